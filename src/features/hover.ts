// Hover text: the per-GPU breakdown at a memory-relevant key, the phase of the peak, capacity and headroom,
// and the marginal effect of the hovered key ("micro-batch 4 -> 5: +2.1 GiB"). Markdown with a fenced block in
// the `vram-breakdown` language (highlighted by syntaxes/vram-breakdown.tmLanguage.json) and a command link
// that opens the panel. Editor-free and pure.
import type { CanonicalKey, Fact, Span } from '../analyzers/facts';
import { isUnknown } from '../analyzers/facts';
import { parseArchitecture } from '../core/architecture';
import { estimate } from '../core/estimate';
import type { Estimate } from '../core/model';
import type { TrainingSetup } from '../core/setup';
import { formatBytes, formatCount } from '../core/units';
import type { Analysis } from './analysis';
import { SETUP_FIELD_KEY } from './findings';
import { mdCode, mdText, messageMarkdown } from './markdown';

export const OPEN_PANEL_COMMAND = 'vramLens.openPanel';

type Translate = (message: string, ...args: Array<string | number>) => string;
const identity: Translate = (m, ...args) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

interface HoverTarget {
  readonly key: CanonicalKey | string;
  readonly rawKey: string;
  readonly rawValue: string;
  readonly span: Span;
}

function targetAt(a: Analysis, offset: number, text: string): HoverTarget | undefined {
  const inside = (s: Span): boolean => offset >= s.start && offset <= s.end;
  const f: Fact | undefined = [...a.facts.facts].reverse().find((x) => inside(x.keySpan) || inside(x.valueSpan));
  if (f) return { key: f.key, rawKey: f.rawKey, rawValue: f.rawValue, span: f.keySpan };
  if (a.scenario) {
    for (const [k, loc] of Object.entries(a.scenario.keyLocations)) {
      const v = a.scenario.valueLocations[k];
      if (inside(loc) || (v && inside(v))) return { key: SETUP_FIELD_KEY[k] ?? k, rawKey: k, rawValue: v ? text.slice(v.start, v.end) : '', span: loc };
    }
  }
  return undefined;
}

/** The breakdown as an aligned text block (one line per component, then the totals). */
export function breakdownBlock(e: Estimate, gpuLine: boolean): string {
  const rows: Array<[string, string]> = e.perGpu.components.filter((c) => c.bytes > 0).map((c) => [c.label, formatBytes(c.bytes)]);
  rows.push(['= peak allocated', `${formatBytes(e.perGpu.peakBytes)}  (${e.perGpu.phase})`]);
  rows.push(['= reserved', formatBytes(e.perGpu.reservedBytes)]);
  rows.push(['= device (nvidia-smi)', formatBytes(e.perGpu.deviceBytes)]);
  const vl = e.perGpu.variableLengths;
  if (vl && vl.cacheBytes > 0) rows.push(['over a run (variable lengths)',
    `about ${formatBytes(vl.reservedBytes)} reserved or more, ${formatBytes(vl.deviceBytes)} nvidia-smi (+${formatBytes(vl.cacheBytes)} cached, freed before OOM)`]);
  if (e.perGpu.pagedToHostBytes) rows.push(['paged optimizer state in host RAM',
    `${formatBytes(e.perGpu.pagedToHostBytes)} (does not fit beside the rest; paged in and out at each step)`]);
  if (gpuLine && e.gpu) rows.push([`${e.gpu.id}`, `${formatBytes(e.gpu.memoryBytes)}  ${e.fits ? 'fits' : 'DOES NOT FIT'}, headroom ${formatBytes(e.headroomBytes ?? 0)}`]);
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([l, v]) => l + ' '.repeat(Math.max(1, w - l.length)) + v).join('\n');
}

interface Variant {
  readonly label: string;
  readonly patch: Partial<TrainingSetup>;
  /** Compare what the allocator holds over a run (packing changes that, not the per-step peak the fit uses). */
  readonly overRun?: boolean;
}

/** The what-ifs worth showing for a key, given the current setup. */
function variantsFor(key: string, s: TrainingSetup): Variant[] {
  const v: Variant[] = [];
  switch (key) {
    case 'microBatchSize':
      v.push({ label: `micro-batch ${s.micro_batch_size} -> ${s.micro_batch_size + 1}`, patch: { micro_batch_size: s.micro_batch_size + 1 } });
      if (s.micro_batch_size > 1) v.push({ label: `micro-batch ${s.micro_batch_size} -> ${s.micro_batch_size - 1}`,
        patch: { micro_batch_size: s.micro_batch_size - 1 } });
      break;
    case 'trainBatchSize':
    case 'gradientAccumulationSteps':
      v.push({ label: `accumulation ${s.gradient_accumulation_steps} -> ${s.gradient_accumulation_steps * 2}`,
        patch: { gradient_accumulation_steps: s.gradient_accumulation_steps * 2 } });
      break;
    case 'seqLen':
      v.push({ label: `sequence ${s.seq_len} -> ${s.seq_len * 2}`, patch: { seq_len: s.seq_len * 2 } });
      if (s.seq_len >= 256) v.push({ label: `sequence ${s.seq_len} -> ${Math.floor(s.seq_len / 2)}`, patch: { seq_len: Math.floor(s.seq_len / 2) } });
      break;
    case 'zeroStage':
      if (s.zero_stage < 3) v.push({ label: `stage ${s.zero_stage} -> ${s.zero_stage + 1}`, patch: { zero_stage: (s.zero_stage + 1) as 1 | 2 | 3 } });
      if (s.zero_stage > 0) v.push({ label: `stage ${s.zero_stage} -> ${s.zero_stage - 1}`, patch: { zero_stage: (s.zero_stage - 1) as 0 | 1 | 2 } });
      break;
    case 'gradientCheckpointing':
      v.push(s.gradient_checkpointing === 'none'
        ? { label: 'checkpointing off -> on', patch: { gradient_checkpointing: 'full' } }
        : { label: 'checkpointing on -> off', patch: { gradient_checkpointing: 'none' } });
      break;
    case 'optimizer':
      if (s.optimizer !== 'adamw_8bit') v.push({ label: `${s.optimizer} -> adamw_8bit`, patch: { optimizer: 'adamw_8bit' } });
      if (s.optimizer !== 'adamw') v.push({ label: `${s.optimizer} -> adamw`, patch: { optimizer: 'adamw' } });
      break;
    case 'bf16':
    case 'fp16':
    case 'mixedPrecision':
    case 'weightsDtype':
      if (s.mixed_precision === 'none' && s.weights_dtype === 'fp32') v.push({ label: 'fp32 -> bf16 autocast', patch: { mixed_precision: 'bf16' } });
      else if (s.mixed_precision !== 'none') v.push({ label: `${s.mixed_precision} autocast -> fp32`,
        patch: { mixed_precision: 'none', weights_dtype: 'fp32' } });
      else v.push({ label: `${s.weights_dtype} -> fp32`, patch: { weights_dtype: 'fp32', master_weights: false } });
      break;
    case 'offloadOptimizer':
      v.push(s.offload_optimizer === 'none' ? { label: 'optimizer offload none -> cpu', patch: { offload_optimizer: 'cpu' } }
        : { label: `optimizer offload ${s.offload_optimizer} -> none`, patch: { offload_optimizer: 'none' } });
      break;
    case 'offloadParams':
      v.push(s.offload_params === 'none' ? { label: 'parameter offload none -> cpu', patch: { offload_params: 'cpu' } }
        : { label: `parameter offload ${s.offload_params} -> none`, patch: { offload_params: 'none' } });
      break;
    case 'fsdp':
    case 'fsdpOffload':
      v.push(s.fsdp === 'none' ? { label: 'FSDP none -> full_shard', patch: { fsdp: 'full_shard' } }
        : { label: `FSDP ${s.fsdp} -> none`, patch: { fsdp: 'none' } });
      break;
    case 'loraR':
      if (s.lora) {
        v.push({ label: `LoRA rank ${s.lora.r} -> ${s.lora.r * 2}`, patch: { lora: { ...s.lora, r: s.lora.r * 2 } } });
        if (s.lora.r > 1) v.push({ label: `LoRA rank ${s.lora.r} -> ${Math.max(1, Math.floor(s.lora.r / 2))}`,
          patch: { lora: { ...s.lora, r: Math.max(1, Math.floor(s.lora.r / 2)) } } });
      }
      break;
    case 'galore':
    case 'galoreRank':
    case 'galoreTargets':
    case 'galoreLayerwise':
      if (s.galore) {
        v.push({ label: `${s.galore.kind === 'apollo' ? 'APOLLO' : 'GaLore'} rank ${s.galore.rank} -> ${s.galore.rank * 2}`,
          patch: { galore: { ...s.galore, rank: s.galore.rank * 2 } } });
        v.push({ label: `no ${s.galore.kind === 'apollo' ? 'APOLLO' : 'GaLore'} (full optimizer states)`, patch: { galore: undefined } });
      }
      break;
    case 'badam':
    case 'badamUpdateRatio':
      if (s.badam) v.push({ label: 'no BAdam (every layer trains at once)', patch: { badam: undefined } });
      if (s.badam?.mode === 'ratio') {
        v.push({ label: `BAdam update ratio ${s.badam.update_ratio} -> ${s.badam.update_ratio / 2}`,
          patch: { badam: { ...s.badam, update_ratio: s.badam.update_ratio / 2 } } });
        v.push({ label: 'BAdam ratio -> layer mode', patch: { badam: { ...s.badam, mode: 'layer' } } });
      }
      break;
    case 'rewardModels':
      if (s.rollout && s.rollout.reward_models.length > 0)
        v.push({ label: 'no reward model (reward functions only)', patch: { rollout: { ...s.rollout, reward_models: [] } } });
      break;
    case 'loraDora':
      if (s.lora?.use_dora) v.push({ label: 'DoRA -> plain LoRA', patch: { lora: { ...s.lora, use_dora: false } } });
      else if (s.lora) v.push({ label: 'LoRA -> DoRA', patch: { lora: { ...s.lora, use_dora: true } } });
      break;
    case 'loraTargets':
      if (s.lora && s.lora.target_modules !== 'all-linear')
        v.push({ label: 'targets -> all-linear', patch: { lora: { ...s.lora, target_modules: 'all-linear' } } });
      break;
    case 'quantBits':
      if (s.quantization) v.push({ label: `${s.quantization.bits}-bit base -> 16-bit`,
        patch: { quantization: undefined, method: s.method === 'qlora' ? 'lora' : s.method } });
      break;
    case 'quantizeExperts':
      // Axolotl quantize_moe_experts: what leaving the fused experts in 16 bits would cost (or quantizing them save).
      if (s.quantization) v.push({ label: s.quantization.experts ? 'fused experts quantized -> left in 16 bits' : 'fused experts in 16 bits -> quantized',
        patch: { quantization: { ...s.quantization, experts: !s.quantization.experts } } });
      break;
    case 'gpusPerNode':
    case 'worldSize':
      v.push({ label: `GPUs ${s.gpus_per_node * s.nodes} -> ${s.gpus_per_node * s.nodes * 2}`, patch: { gpus_per_node: s.gpus_per_node * 2 } });
      break;
    case 'contextParallel':
      // Doubling the split takes twice the GPUs (the data-parallel degree stays); halving it returns them.
      v.push({ label: `context parallel ${s.context_parallel} -> ${s.context_parallel * 2} (GPUs x2)`,
        patch: { context_parallel: s.context_parallel * 2, gpus_per_node: s.gpus_per_node * 2 } });
      if (s.context_parallel > 1 && s.gpus_per_node % 2 === 0)
        v.push({ label: `context parallel ${s.context_parallel} -> ${s.context_parallel / 2} (GPUs /2)`,
        patch: { context_parallel: s.context_parallel / 2, gpus_per_node: s.gpus_per_node / 2 } });
      break;
    case 'expertParallel':
      v.push({ label: `expert parallel ${s.expert_parallel} -> ${s.expert_parallel * 2}`, patch: { expert_parallel: s.expert_parallel * 2 } });
      if (s.expert_parallel > 1) v.push({ label: `expert parallel ${s.expert_parallel} -> 1`, patch: { expert_parallel: 1 } });
      break;
    case 'attention': {
      // A model whose own code sets the attention (Kimi Linear's modeling_kimi.py) has no attention what-if.
      const parsed = parseArchitecture(s.architecture);
      const fixedAttention = parsed.ok && parsed.arch.modelCode !== undefined;
      if (s.attention !== 'flash' && !fixedAttention) v.push({ label: `attention ${s.attention} -> flash`, patch: { attention: 'flash' } });
      if (s.attention !== 'eager' && !fixedAttention) v.push({ label: `attention ${s.attention} -> eager`, patch: { attention: 'eager' } });
      // Qwen3.5 / Qwen3-Next: the Gated DeltaNet layers' kernels matter more than the attention layers' here.
      const mt = String(s.architecture.model_type ?? '');
      if (/^qwen3_(next|5)/.test(mt)) {
        const k = s.linear_attention_kernels ?? 'fla';
        const other = k === 'fla' ? 'torch' : 'fla';
        v.push({ label: `Gated DeltaNet kernels ${k} -> ${other}`, patch: { linear_attention_kernels: other } });
      }
      // Mamba hybrids: the Mamba layers' kernels (mamba_ssm + causal-conv1d, or transformers' torch path).
      if (parsed.ok && (parsed.arch.mamba || parsed.arch.mamba1)) {
        const k = s.mamba_kernels ?? 'cuda';
        const other = k === 'cuda' ? 'torch' : 'cuda';
        v.push({ label: `${parsed.arch.mamba1 ? 'Mamba' : 'Mamba2'} kernels ${k} -> ${other}`, patch: { mamba_kernels: other } });
      }
      break;
    }
    case 'loss':
      if (s.loss !== 'fused') v.push({ label: `loss ${s.loss} -> fused linear-CE`, patch: { loss: 'fused' } });
      break;
    case 'activationOffloading':
      v.push({ label: `activation offloading ${s.activation_offloading ? 'on -> off' : 'off -> on'}`,
        patch: { activation_offloading: !s.activation_offloading,
        gradient_checkpointing: s.gradient_checkpointing === 'none' ? 'full' : s.gradient_checkpointing } });
      break;
    case 'tiledMlp':
      v.push({ label: `tiled MLP ${s.tiled_mlp === false ? 'off -> on' : 'on -> off'}`, patch: { tiled_mlp: s.tiled_mlp === false } });
      if (typeof s.tiled_mlp === 'number' && s.tiled_mlp > 1)
        v.push({ label: `tiled MLP shards ${s.tiled_mlp} -> ${s.tiled_mlp * 2}`, patch: { tiled_mlp: s.tiled_mlp * 2 } });
      break;
    case 'evalBatchSize':
    case 'evalStrategy':
      if (s.eval_batch_size !== undefined && s.eval_batch_size > 1)
        v.push({ label: `eval batch ${s.eval_batch_size} -> ${Math.floor(s.eval_batch_size / 2)}`,
        patch: { eval_batch_size: Math.floor(s.eval_batch_size / 2) } });
      if (s.eval_batch_size !== undefined) v.push({ label: 'no evaluation during training', patch: { eval_batch_size: undefined } });
      break;
    case 'kbitUpcast':
      if (s.kbit_upcast !== 'none') v.push({ label: `fp32 upcast (${s.kbit_upcast}) -> none`, patch: { kbit_upcast: 'none' } });
      if (s.kbit_upcast === 'all' && s.quantization) v.push({ label: 'fp32 upcast all -> norms only', patch: { kbit_upcast: 'norms' } });
      break;
    case 'preference':
      if (s.preference && (s.preference.reference === 'copy' || s.preference.reference === 'adapters-off')) {
        v.push({ label: 'reference log-probs precomputed', patch: { preference: { ...s.preference, reference: 'precomputed' } } });
      }
      if (s.preference) v.push({ label: 'plain training (no preference objective)', patch: { preference: undefined } });
      break;
    case 'rollout':
    case 'useVllm':
    case 'vllmMode':
      if (s.rollout) {
        for (const [engine, label] of [['generate', 'generation with the policy\'s generate()'], ['vllm-colocate', 'vLLM colocated'],
          ['vllm-server', 'vLLM server on other GPUs']] as const) {
          if (s.rollout.engine !== engine) v.push({ label: `${label}`, patch: { rollout: { ...s.rollout, engine } } });
        }
      }
      break;
    case 'completionLen':
      if (s.rollout && s.rollout.completion_len > 1) {
        const c = Math.floor(s.rollout.completion_len / 2);
        v.push({ label: `completions ${s.rollout.completion_len} -> ${c} tokens`,
          patch: { rollout: { ...s.rollout, completion_len: c }, seq_len: s.seq_len - (s.rollout.completion_len - c) } });
      }
      break;
    case 'maxNewTokens':
      // Online DPO: max_length bounds prompt + completion (the prompt is cut from the left), so fewer generated tokens
      // shorten the completion slice and the decoding, not the sequence.
      if (s.rollout?.objective === 'online-dpo' && s.rollout.completion_len > 1) {
        const c = Math.floor(s.rollout.completion_len / 2);
        v.push({ label: `completions ${s.rollout.completion_len} -> ${c} tokens`, patch: { rollout: { ...s.rollout, completion_len: c } } });
      }
      break;
    case 'promptLen':
      if (s.rollout) {
        const p = s.seq_len - s.rollout.completion_len;
        if (p > 1) v.push({ label: `prompts ${p} -> ${Math.floor(p / 2)} tokens`, patch: { seq_len: s.seq_len - (p - Math.floor(p / 2)) } });
      }
      break;
    case 'stepsPerGeneration':
    case 'generationBatchSize':
      if (s.rollout && s.rollout.objective !== 'online-dpo' && s.rollout.batch >= 2 * s.micro_batch_size)
        v.push({ label: `completions per round ${s.rollout.batch} -> ${s.rollout.batch / 2}`,
        patch: { rollout: { ...s.rollout, batch: Math.max(1, Math.floor(s.rollout.batch / 2)) } } });
      break;
    case 'klBeta':
      if (s.rollout && s.rollout.objective !== 'online-dpo' && s.rollout.reference !== 'none')
        v.push({ label: 'beta 0 (no reference model)', patch: { rollout: { ...s.rollout, reference: 'none' } } });
      break;
    case 'vllmMemoryFraction':
      if (s.rollout?.engine === 'vllm-colocate' && s.rollout.vllm_memory_fraction > 0.1) {
        const f = Math.round((s.rollout.vllm_memory_fraction - 0.1) * 100) / 100;
        v.push({ label: `vLLM share ${s.rollout.vllm_memory_fraction} -> ${f}`, patch: { rollout: { ...s.rollout, vllm_memory_fraction: f } } });
      }
      break;
    case 'vllmSleep':
      if (s.rollout?.engine === 'vllm-colocate') v.push({ label: `vLLM sleep mode ${s.rollout.vllm_sleep ? 'on -> off' : 'off -> on'}`,
        patch: { rollout: { ...s.rollout, vllm_sleep: !s.rollout.vllm_sleep } } });
      break;
    case 'kernels':
      if (s.kernels !== 'pytorch') v.push({ label: `${s.kernels} kernels -> PyTorch layers`, patch: { kernels: 'pytorch' } });
      break;
    case 'expandableSegments':
    case 'emptyCacheSteps':
      if (s.batch_lengths === 'variable' && (s.expandable_segments || s.empty_cache_steps !== undefined)) {
        v.push({ label: 'default allocator (cache of earlier batches kept)',
          patch: { expandable_segments: false, empty_cache_steps: undefined }, overRun: true });
      }
      break;
    case 'batchLengths': {
      const flipped = s.batch_lengths === 'variable' ? 'fixed' : 'variable';
      v.push({ label: `${s.batch_lengths} -> ${flipped} batch lengths`, patch: { batch_lengths: flipped }, overRun: true });
      break;
    }
    default:
      break;
  }
  return v;
}

function signed(bytes: number): string {
  return `${bytes >= 0 ? '+' : '-'}${formatBytes(Math.abs(bytes))}`;
}

/** Markdown for a hover at `offset`, or undefined when the offset is not on a memory-relevant key. */
export function hoverAt(a: Analysis, offset: number, text: string, t: Translate = identity): string | undefined {
  const target = targetAt(a, offset, text);
  if (!target) return undefined;
  const lines: string[] = [];
  lines.push(`**VRAM Lens** · ${mdCode(target.rawKey)}`);
  if (target.key === 'model' && a.setup) {
    const arch = parseArchitecture(a.setup.architecture);
    const src = a.pipeline.provenance.architecture;
    const params = a.estimate?.parameters;
    if (arch.ok) {
      const x = arch.arch;
      lines.push(t('{0}: {1} layers, hidden {2}, {3} heads ({4} kv), MLP {5}, vocab {6}', x.family, x.layers, x.hidden, x.heads, x.kvHeads, x.ffn, x.vocab));
    }
    if (params) lines.push(t('{0} parameters ({1} trainable) · source: {2}', formatCount(params.total), formatCount(params.trainable),
      mdText(src?.kind === 'catalog' ? src.entry : params.source)));
  }
  const e = a.estimate;
  if (!a.setup || !e) {
    const reason = a.findings.find((f) => f.code === 'unknown-model') ?? a.pipeline.problems.find((p) => p.severity === 'error') ?? a.estimateErrors?.[0];
    const why = reason ? messageMarkdown(reason.message, 'template' in reason ? reason.template : undefined, t) : mdText(t('the setup is incomplete'));
    lines.push('', t('No estimate yet: {0}', why));
    return lines.join('\n\n');
  }
  lines.push('```vram-breakdown\n' + breakdownBlock(e, true) + '\n```');
  const s = a.setup;
  const effects: string[] = [];
  const overRun = (x: typeof e): number => x.perGpu.variableLengths?.deviceBytes ?? x.perGpu.deviceBytes;
  for (const variant of variantsFor(String(target.key), s)) {
    // Lean estimates leave out the over-a-run figure; a variant that compares it needs the full one.
    const r = estimate({ ...s, ...variant.patch }, { gpu: e.gpu ? { id: e.gpu.id, memoryBytes: e.gpu.memoryBytes, source: e.gpu.source } : undefined,
      lean: !variant.overRun });
    if (!r.ok) continue;
    if (variant.overRun) {
      effects.push(`${variant.label}: ${signed(overRun(r.estimate) - overRun(e))}${t(' over a run (nvidia-smi); the per-step peak is unchanged')}`);
      continue;
    }
    const delta = r.estimate.perGpu.deviceBytes - e.perGpu.deviceBytes;
    effects.push(`${variant.label}: ${signed(delta)}${r.estimate.fits === false && e.fits ? t(' (no longer fits)') : r.estimate.fits && e.fits === false ? t(' (fits)') : ''}`);
  }
  if (effects.length > 0) lines.push(t('**This key:** {0}', effects.join(' · ')));
  if (isUnknown({ unknown: '' }) && target.rawValue === '"auto"') lines.push(t('"auto" is filled in by the trainer from TrainingArguments.'));
  lines.push(`[${t('Open the VRAM panel')}](command:${OPEN_PANEL_COMMAND})`);
  return lines.join('\n\n');
}
