// The advice engine: searches the changes a practitioner would make (precision, checkpointing, attention,
// ZeRO/FSDP, offload, 8-bit optimizers, LoRA/QLoRA, micro-batch vs accumulation, sequence length, more GPUs,
// and pairs/triples of them), estimates each, prices it with the step-time model, and returns the Pareto set
// of changes that fit, cheapest first. Also answers the largest micro-batch / sequence that fits and how many
// GPUs are needed. Pure; no I/O.
import { parseArchitecture } from '../architecture';
import type { GpuSpec } from '../catalog/gpus';
import { estimate, fusedExpertsIn, quantizesWholeAtLoad, type EstimateOptions } from '../estimate';
import type { Estimate } from '../model';
import type { TrainingSetup } from '../setup';
import { stepTime, type StepTime } from '../step-time';

/** One scenario-key change, e.g. {key: 'gradient_checkpointing', value: 'full'}. */
export interface SetupChange {
  readonly key: keyof TrainingSetup;
  readonly value: unknown;
}

export interface AdviceItem {
  readonly id: string;
  readonly title: string;
  readonly changes: readonly SetupChange[];
  /** Bytes saved on the device (nvidia-smi) figure, versus the current setup. */
  readonly savedBytes: number;
  /** New step time / current step time (1.0 = no slower). */
  readonly stepTimeFactor: number;
  /** Changes what is trained or on what data (LoRA, QLoRA, shorter sequences), not only speed. */
  readonly changesResult: boolean;
  readonly fits: boolean;
  readonly estimate: Estimate;
  /** The cost arithmetic, for "Show formula". */
  readonly costExplain: readonly string[];
  /** GPUs the change needs in total (more GPUs than now for the scale-out option). */
  readonly gpus: number;
}

export interface AdviceResult {
  readonly current: Estimate;
  readonly currentStep: StepTime;
  /**
   * Fitting changes on the Pareto front of (changes result, GPUs needed, step time, memory, number of changes),
   * cheapest first: result-preserving before result-changing, then the fewest GPUs, then the fastest.
   */
  readonly items: readonly AdviceItem[];
  /** How many candidate setups were estimated. */
  readonly evaluated: number;
  readonly maxMicroBatch?: number;
  readonly maxSeqLen?: number;
  /** Total GPUs needed with the current strategy plus ZeRO-3 sharding, when that helps. */
  readonly gpusNeeded?: number;
}

export interface AdviceOptions extends EstimateOptions {
  readonly gpuSpec?: Pick<GpuSpec, 'denseTflops' | 'hostLink' | 'peerLink' | 'hbmBandwidthGBps' | 'bf16'>;
  /** Combine up to this many single changes (1-3). */
  readonly maxCombination?: number;
  /** Upper bound for scale-out advice. */
  readonly maxGpus?: number;
}

interface Move {
  readonly id: string;
  readonly title: string;
  readonly changesResult: boolean;
  readonly group: string;
  apply(s: TrainingSetup): Partial<TrainingSetup> | undefined;
}

const pow2Down = (n: number): number => Math.max(1, Math.floor(n / 2));

/**
 * A candidate: the setup after a chain of moves. The chain is a parent link (the search shares prefixes), so a
 * candidate costs one object; the lists of moves and patches are built only for the candidates that are kept.
 */
interface Applied {
  readonly setup: TrainingSetup;
  readonly parent?: Applied;
  readonly move?: Move;
  readonly patch?: Partial<TrainingSetup>;
}

/** The moves and patches of a candidate, first applied first. */
function chain(a: Applied): { moves: Move[]; patches: Partial<TrainingSetup>[] } {
  const moves: Move[] = [];
  const patches: Partial<TrainingSetup>[] = [];
  for (let c: Applied | undefined = a; c?.move && c.patch; c = c.parent) {
    moves.unshift(c.move);
    patches.unshift(c.patch);
  }
  return { moves, patches };
}

function changesOf(patches: readonly Partial<TrainingSetup>[]): SetupChange[] {
  const m = new Map<keyof TrainingSetup, unknown>();
  for (const p of patches) for (const [k, v] of Object.entries(p)) m.set(k as keyof TrainingSetup, v);
  return [...m].map(([key, value]) => ({ key, value }));
}

function moves(base: TrainingSetup, bf16: boolean): Move[] {
  const world = base.gpus_per_node * base.nodes;
  const half = bf16 ? 'bf16' : 'fp16';
  const m: Move[] = [];
  m.push({ id: 'amp', group: 'precision', title: `Mixed precision (${half} autocast)`, changesResult: false,
    apply: (s) => (s.weights_dtype === 'fp32' && s.mixed_precision === 'none' ? { mixed_precision: half } : undefined) });
  m.push({ id: 'pure-bf16', group: 'precision', title: 'Load the model in bf16 (pure bf16 weights)', changesResult: false,
    apply: (s) => (bf16 && s.weights_dtype === 'fp32' && s.method === 'full' && s.zero_stage === 0 && s.fsdp === 'none' ? { weights_dtype: 'bf16', mixed_precision: 'bf16' } : undefined) });
  // PEFT's prepare_model_for_kbit_training keeps norms, embeddings and head in fp32, and with them the residual stream
  // behind 4-bit layers; TRL dropped the cast (trl PR 4457: same loss curves, less memory).
  // torchao before 0.2 quantizes each NF4 weight whole on the GPU while the model is built and loaded; from 0.2 it
  // quantizes in 1M-element chunks (pytorch/ao#196), the same NF4 codes without the load-time high point.
  m.push({ id: 'torchao-chunked', group: 'precision', title: 'Upgrade torchao to 0.2 or later (NF4 quantized in chunks: no load-time spike)', changesResult: false,
    apply: (s) => (quantizesWholeAtLoad(s) ? { torchao_version: '0.2' } : undefined) });
  m.push({ id: 'no-kbit-upcast', group: 'precision', title: 'Keep the unquantized parameters in 16 bits (no fp32 cast of prepare_model_for_kbit_training)', changesResult: false,
    apply: (s) => (s.kbit_upcast !== 'none' ? { kbit_upcast: 'none' } : undefined) });
  // Evaluation during training runs a no-grad forward at its own batch; a smaller one changes no training result.
  m.push({ id: 'eval-batch-1', group: 'batch', title: 'Evaluate with a batch of 1 (per_device_eval_batch_size)', changesResult: false,
    apply: (s) => (s.eval_batch_size !== undefined && s.eval_batch_size > 1 ? { eval_batch_size: 1 } : undefined) });
  // DPO with a reference: its log-probabilities computed once before training (TRL precompute_ref_log_probs) free the
  // reference copy and its forward from every step; the loss is the same.
  m.push({ id: 'precompute-ref', group: 'reference', title: 'Precompute the reference log-probabilities before training (precompute_ref_log_probs)', changesResult: false,
    apply: (s) => (s.preference && (s.preference.reference === 'copy' || s.preference.reference === 'adapters-off') ? { preference: { ...s.preference, reference: 'precomputed' } } : undefined) });
  // GRPO: the colocated vLLM engine can sleep while the policy trains (its weights go to the host and come back each
  // round); fewer completions per round shrink the KV cache at the price of more rounds; dropping the KL term (beta = 0)
  // removes the reference, which changes the objective.
  m.push({ id: 'vllm-sleep', group: 'rollout', title: 'Let the colocated vLLM engine sleep while the policy trains (vllm_enable_sleep_mode)', changesResult: false,
    apply: (s) => (s.rollout?.engine === 'vllm-colocate' && s.rollout.objective !== 'online-dpo' && !s.rollout.vllm_sleep ? { rollout: { ...s.rollout, vllm_sleep: true } } : undefined) });
  m.push({ id: 'rollout-half', group: 'rollout', title: 'Generate half as many completions per round (steps_per_generation)', changesResult: false,
    apply: (s) => (s.rollout?.engine === 'generate' && s.rollout.objective !== 'online-dpo' && s.rollout.batch % (2 * s.micro_batch_size) === 0 ? { rollout: { ...s.rollout, batch: s.rollout.batch / 2 } } : undefined) });
  m.push({ id: 'kl-off', group: 'rollout', title: 'Drop the KL term (beta = 0): no reference model', changesResult: true,
    apply: (s) => (s.rollout && s.rollout.objective !== 'online-dpo' && s.rollout.reference !== 'none' ? { rollout: { ...s.rollout, reference: 'none' } } : undefined) });
  m.push({ id: 'gc-full', group: 'checkpointing', title: 'Enable gradient checkpointing', changesResult: false,
    apply: (s) => (s.gradient_checkpointing !== 'full' ? { gradient_checkpointing: 'full' } : undefined) });
  m.push({ id: 'gc-selective', group: 'checkpointing', title: 'Selective activation checkpointing', changesResult: false,
    apply: (s) => (s.gradient_checkpointing === 'none' ? { gradient_checkpointing: 'selective' } : undefined) });
  m.push({ id: 'sdpa', group: 'attention', title: 'Use SDPA / FlashAttention instead of eager attention', changesResult: false,
    apply: (s) => (s.attention === 'eager' ? { attention: 'sdpa' } : undefined) });
  m.push({ id: 'flash', group: 'attention', title: 'Use FlashAttention-2 (no repeated k/v, no s x s matrix)', changesResult: false,
    apply: (s) => (s.attention !== 'flash' ? { attention: 'flash' } : undefined) });
  m.push({ id: 'fla-kernels', group: 'linear-attention', title: 'Install flash-linear-attention and causal-conv1d (Gated DeltaNet kernels instead of the torch fallback)', changesResult: false,
    apply: (s) => (s.linear_attention_kernels === 'torch' ? { linear_attention_kernels: 'fla' } : undefined) });
  const parsed = parseArchitecture(base.architecture);
  // transformers 5's fused MoE experts stay in 16 bits under bitsandbytes; Axolotl's quantize_moe_experts quantizes them.
  if (parsed.ok && fusedExpertsIn(base, parsed.arch)) {
    m.push({ id: 'quantize-experts', group: 'precision', title: 'Quantize the fused MoE experts too (Axolotl quantize_moe_experts)', changesResult: false,
      apply: (s) => (s.quantization && s.quantization.type !== 'gptq' && s.quantization.type !== 'awq' && !s.quantization.experts ? { quantization: { ...s.quantization, experts: true } } : undefined) });
  }
  const mamba1 = parsed.ok && parsed.arch.mamba1 !== undefined;
  m.push({ id: 'mamba-kernels', group: 'linear-attention', title: mamba1 ? 'Install mamba_ssm and causal-conv1d (the selective-scan kernel instead of slow_forward)' : 'Install mamba_ssm and causal-conv1d (the fused Mamba2 kernel instead of torch_forward)', changesResult: false,
    apply: (s) => (s.mamba_kernels === 'torch' ? { mamba_kernels: 'cuda' } : undefined) });
  m.push({ id: 'chunked-loss', group: 'loss', title: 'Chunked / fused cross-entropy (no full fp32 logits)', changesResult: false,
    apply: (s) => (s.loss === 'full' ? { loss: 'fused' } : undefined) });
  // bitsandbytes 8-bit layers cannot be sharded (FSDP refuses integer parameters, ZeRO-3 cannot partition them):
  // no candidate shards the parameters of an int8 model; ZeRO-1/2 shard only the optimizer state and gradients.
  const int8 = (s: TrainingSetup): boolean => s.quantization?.type === 'int8';
  if (world > 1) {
    for (const z of [1, 2, 3] as const) {
      m.push({ id: `zero${z}`, group: 'sharding', title: `DeepSpeed ZeRO stage ${z}`, changesResult: false,
        apply: (s) => (s.fsdp === 'none' && s.zero_stage < z && !(z === 3 && int8(s)) ? { zero_stage: z, ...(s.weights_dtype !== 'fp32' && s.method === 'full' ? { master_weights: true } : {}) } : undefined) });
    }
    m.push({ id: 'zero3-offload-opt', group: 'sharding', title: 'ZeRO-3 with the optimizer offloaded to CPU', changesResult: false,
      apply: (s) => (s.fsdp === 'none' && s.offload_optimizer === 'none' && !int8(s) ? { zero_stage: 3, offload_optimizer: 'cpu' } : undefined) });
  }
  if (world > 1) {
    for (const f of ['full_shard', 'shard_grad_op', 'hybrid_shard'] as const) {
      if (f === 'hybrid_shard' && base.nodes === 1) continue;
      m.push({ id: `fsdp-${f}`, group: 'sharding', title: `FSDP ${f.toUpperCase()}`, changesResult: false,
        apply: (s) => (s.fsdp !== f && s.zero_stage === 0 && !int8(s) ? { fsdp: f, ...(s.weights_dtype !== 'fp32' && s.method === 'full' ? { master_weights: true } : {}) } : undefined) });
    }
  }
  for (const factor of [2, 4]) {
    m.push({ id: `gpus-x${factor}`, group: 'scale', title: `${factor}x the GPUs (${world * factor} in total) with sharded model states`, changesResult: false,
      apply: (s) => {
        if (int8(s)) return undefined;
        const total = s.gpus_per_node * s.nodes * factor;
        const perNode = Math.min(total, 8);
        return { gpus_per_node: perNode, nodes: Math.max(1, total / perNode), ...(s.zero_stage === 0 && s.fsdp === 'none' ? { zero_stage: 3 as const } : {}) };
      } });
  }
  // FSDP has no NVMe offload: from an FSDP setup this switches to DeepSpeed ZeRO-3, and it does not follow a move
  // that just chose an FSDP mode (that move would be undone).
  m.push({ id: 'offload-opt-nvme', group: 'offload', title: base.fsdp !== 'none' ? 'Switch to DeepSpeed ZeRO-3 with the optimizer on NVMe (ZeRO-Infinity)' : 'Offload the optimizer to NVMe (ZeRO-Infinity)', changesResult: false,
    apply: (s) => (s.offload_optimizer !== 'nvme' && s.optimizer !== 'none' && s.fsdp === base.fsdp && !int8(s) ? { offload_optimizer: 'nvme', zero_stage: 3 as const, fsdp: 'none' } : undefined) });
  // A different optimizer changes the training dynamics (and usually the learning-rate schedule): labelled.
  m.push({ id: 'adafactor', group: 'optimizer', title: 'Adafactor (factored second moment, no momentum)', changesResult: true,
    apply: (s) => (s.optimizer !== 'adafactor' && s.offload_optimizer === 'none' ? { optimizer: 'adafactor' } : undefined) });
  for (const r of [8, 64]) {
    m.push({ id: `lora-r${r}`, group: 'method', title: `LoRA r=${r} on all linear layers`, changesResult: true,
      apply: (s) => (s.method === 'full' || s.method === 'freeze' || (s.lora && s.lora.r !== r) ? { method: s.method === 'qlora' ? 'qlora' : 'lora', lora: { r, alpha: 2 * r, dropout: 0.05, target_modules: 'all-linear', modules_to_save: [], dtype: 'fp32', use_dora: false }, master_weights: false, weights_dtype: s.weights_dtype === 'fp32' ? (bf16 ? 'bf16' : 'fp16') : s.weights_dtype } : undefined) });
  }
  m.push({ id: 'lora-attn', group: 'method', title: 'LoRA r=16 on the attention projections only', changesResult: true,
    apply: (s) => (s.method === 'full' || s.method === 'freeze' ? { method: 'lora', lora: { r: 16, alpha: 32, dropout: 0.05, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'], modules_to_save: [], dtype: 'fp32', use_dora: false }, master_weights: false, weights_dtype: s.weights_dtype === 'fp32' ? (bf16 ? 'bf16' : 'fp16') : s.weights_dtype } : undefined) });
  m.push({ id: 'seq-3/4', group: 'sequence', title: 'Shorten the sequence length by a quarter', changesResult: true,
    apply: (s) => (s.seq_len >= 512 ? shorter(s, Math.floor((s.seq_len * 3) / 4 / 64) * 64) : undefined) });
  m.push({ id: 'micro-3/4', group: 'batch', title: 'Smaller micro-batch (3/4), more accumulation', changesResult: false,
    apply: (s) => (s.micro_batch_size >= 4 && (s.micro_batch_size * s.gradient_accumulation_steps) % Math.floor((s.micro_batch_size * 3) / 4) === 0
      ? { micro_batch_size: Math.floor((s.micro_batch_size * 3) / 4), gradient_accumulation_steps: (s.micro_batch_size * s.gradient_accumulation_steps) / Math.floor((s.micro_batch_size * 3) / 4) } : undefined) });
  // FSDP has one CPU offload (CPUOffload(offload_params=True)): sharded parameters, their gradients and the optimizer
  // step all move to the host, whichever of the two keys asks for it.
  const fsdpOffload = 'FSDP CPU offload (parameters, gradients and optimizer step on the host)';
  m.push({ id: 'offload-opt', group: 'offload', title: base.fsdp !== 'none' ? fsdpOffload : 'Offload the optimizer to CPU (ZeRO-Offload)', changesResult: false,
    apply: (s) => (s.offload_optimizer === 'none' && s.optimizer !== 'none' ? { offload_optimizer: 'cpu', ...(s.zero_stage === 0 && s.fsdp === 'none' ? { zero_stage: 2 as const } : {}) } : undefined) });
  m.push({ id: 'offload-params', group: 'offload', title: base.fsdp !== 'none' ? fsdpOffload : 'Offload parameters and optimizer to CPU (ZeRO-Infinity)', changesResult: false,
    apply: (s) => (s.offload_params === 'none' && !int8(s) ? { offload_params: 'cpu', offload_optimizer: 'cpu', ...(s.fsdp === 'none' ? { zero_stage: 3 as const } : {}) } : undefined) });
  // Long sequences: a tiled MLP (DeepSpeed ALST TiledMLP, Axolotl tiled_mlp) keeps only each dense MLP's input and
  // recomputes it shard by shard in backward: one more MLP forward.
  m.push({ id: 'tiled-mlp', group: 'mlp', title: 'Tiled MLP (sequence shards, recomputed in backward)', changesResult: false,
    apply: (s) => (s.tiled_mlp === false && s.seq_len >= 8192 ? { tiled_mlp: true } : undefined) });
  m.push({ id: 'adam8bit', group: 'optimizer', title: 'Switch to 8-bit AdamW (bitsandbytes)', changesResult: false,
    apply: (s) => (['adamw', 'adamw_fused', 'adamw_hf', 'paged_adamw'].includes(s.optimizer) && s.offload_optimizer === 'none' ? { optimizer: 'adamw_8bit' } : undefined) });
  m.push({ id: 'paged8bit', group: 'optimizer', title: 'Paged 8-bit AdamW (spills to host under pressure)', changesResult: false,
    apply: (s) => (['adamw', 'adamw_fused', 'adamw_hf', 'adamw_8bit'].includes(s.optimizer) && s.offload_optimizer === 'none' ? { optimizer: 'paged_adamw_8bit' } : undefined) });
  m.push({ id: 'lora', group: 'method', title: 'LoRA (r=16 on all linear layers) instead of full fine-tuning', changesResult: true,
    apply: (s) => (s.method === 'full' || s.method === 'freeze' ? { method: 'lora', lora: { r: 16, alpha: 32, dropout: 0.05, target_modules: 'all-linear', modules_to_save: [], dtype: 'fp32', use_dora: false }, master_weights: false, weights_dtype: s.weights_dtype === 'fp32' ? (bf16 ? 'bf16' : 'fp16') : s.weights_dtype } : undefined) });
  m.push({ id: 'qlora', group: 'method', title: 'QLoRA (4-bit NF4 base, LoRA r=16 on all linear layers)', changesResult: true,
    apply: (s) => (s.method !== 'qlora' ? { method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true, scope: 'all-linear' }, lora: s.lora ?? { r: 16, alpha: 32, dropout: 0.05, target_modules: 'all-linear', modules_to_save: [], dtype: 'fp32', use_dora: false }, master_weights: false, zero_stage: 0, weights_dtype: bf16 ? 'bf16' : 'fp16' } : undefined) });
  m.push({ id: 'no-dora', group: 'method', title: 'Plain LoRA instead of DoRA (no magnitude vectors, no weight norms)', changesResult: true,
    apply: (s) => (s.lora?.use_dora && (s.method === 'lora' || s.method === 'qlora') ? { lora: { ...s.lora, use_dora: false } } : undefined) });
  m.push({ id: 'lora-rank', group: 'method', title: 'Lower the LoRA rank', changesResult: true,
    apply: (s) => (s.lora && s.lora.r > 8 && (s.method === 'lora' || s.method === 'qlora') ? { lora: { ...s.lora, r: pow2Down(s.lora.r) } } : undefined) });
  m.push({ id: 'micro-half', group: 'batch', title: 'Halve the micro-batch, double gradient accumulation (same global batch)', changesResult: false,
    apply: (s) => (s.micro_batch_size > 1 ? { micro_batch_size: pow2Down(s.micro_batch_size), gradient_accumulation_steps: s.gradient_accumulation_steps * (s.micro_batch_size / pow2Down(s.micro_batch_size)) } : undefined) });
  m.push({ id: 'micro-1', group: 'batch', title: 'Micro-batch 1 with more gradient accumulation (same global batch)', changesResult: false,
    apply: (s) => (s.micro_batch_size > 2 ? { micro_batch_size: 1, gradient_accumulation_steps: s.gradient_accumulation_steps * s.micro_batch_size } : undefined) });
  m.push({ id: 'seq-half', group: 'sequence', title: 'Halve the sequence length', changesResult: true,
    apply: (s) => (s.seq_len >= 256 ? shorter(s, Math.floor(s.seq_len / 2)) : undefined) });
  return m;
}

/** A shorter sequence; with GRPO rollouts the prompt and the completion shrink in proportion. */
function shorter(s: TrainingSetup, seq: number): Partial<TrainingSetup> {
  if (!s.rollout) return { seq_len: seq };
  const completion = Math.max(1, Math.round((s.rollout.completion_len * seq) / s.seq_len));
  return completion < seq ? { seq_len: seq, rollout: { ...s.rollout, completion_len: completion } } : { seq_len: seq };
}

function applyAll(base: TrainingSetup, ms: readonly Move[]): { setup: TrainingSetup; changes: SetupChange[] } | undefined {
  let s = base;
  const changes = new Map<keyof TrainingSetup, unknown>();
  for (const mv of ms) {
    const patch = mv.apply(s);
    if (!patch) return undefined;
    s = { ...s, ...patch };
    for (const [k, v] of Object.entries(patch)) changes.set(k as keyof TrainingSetup, v);
  }
  return { setup: s, changes: [...changes].map(([key, value]) => ({ key, value })) };
}

/** Identity of a candidate setup for de-duplication (the fields the moves change). */
const signature = (s: TrainingSetup): string =>
  `${s.method}|${s.lora?.r}|${s.lora?.use_dora ? 'dora' : ''}|${s.lora ? (s.lora.target_modules === 'all-linear' ? 'all' : s.lora.target_modules.length) : ''}|${s.quantization?.bits}${s.quantization?.experts ? 'E' : ''}|${s.weights_dtype}|${s.mixed_precision}|${s.master_weights}|${s.optimizer}|`
  + `${s.micro_batch_size}|${s.gradient_accumulation_steps}|${s.seq_len}|${s.gradient_checkpointing}|${s.attention}|${s.loss}|${s.zero_stage}|${s.fsdp}|`
  + `${s.offload_optimizer}|${s.offload_params}|${s.gpus_per_node}|${s.nodes}|${s.eval_batch_size}|${s.kbit_upcast}|${s.tiled_mlp}|${s.preference?.reference}|${s.torchao_version}`
  + (s.rollout ? `|${s.rollout.batch}|${s.rollout.completion_len}|${s.rollout.reference}|${s.rollout.vllm_sleep}` : '');

/** The step time of a setup as estimated: its trainable parameters and the paged optimizer state left in host RAM. */
function timeOf(setup: TrainingSetup, e: Estimate, spec: Parameters<typeof stepTime>[2], lean = false): ReturnType<typeof stepTime> {
  return stepTime(setup, e.parameters.trainable, spec, lean, e.perGpu.pagedToHostBytes);
}

/** Advice for a setup on a GPU: the fitting changes, cheapest first. */
export function advise(setup: TrainingSetup, opts: AdviceOptions = {}): AdviceResult | undefined {
  const cur = estimate(setup, opts);
  if (!cur.ok) return undefined;
  const current = cur.estimate;
  const spec = opts.gpuSpec;
  const currentStep = timeOf(setup, current, spec);
  const capacity = opts.gpu?.memoryBytes;
  const all = moves(setup, spec?.bf16 ?? true);
  const maxK = Math.max(1, Math.min(3, opts.maxCombination ?? 3));
  /** What the search keeps of a fitting candidate: numbers only; the items shown are estimated again in full. */
  interface Light { applied: Applied; deviceBytes: number; stepTimeFactor: number; changesResult: boolean; gpus: number; nChanges: number; nMoves: number }
  const groups = new Map<string, Light[]>();
  const lean: EstimateOptions = { ...opts, lean: true };
  // Pareto dominance: b dominates a when it is at least as good on GPUs, step time, result-changing, device memory
  // and number of changes, and strictly better on one. Memory differences below max(512 MiB, 2 % of the GPU) do not
  // count: an extra change that saves a few hundred MiB more is not worth listing next to the simpler one. Likewise
  // step times within 2 % of the current step (finer than the step-time model can tell): a change that only shaves a
  // fraction of a percent (FlashAttention-2 beside SDPA) does not earn a separate item.
  const memEps = Math.max(512 * 1024 * 1024, 0.02 * (capacity ?? 0));
  const stepEps = 0.02;
  const dominated = (a: Light, b: Light): boolean =>
    b.gpus <= a.gpus && b.stepTimeFactor <= a.stepTimeFactor + stepEps && (!b.changesResult || a.changesResult) && b.deviceBytes <= a.deviceBytes + memEps
    && b.nChanges <= a.nChanges
    && (b.gpus < a.gpus || b.stepTimeFactor < a.stepTimeFactor - stepEps || (a.changesResult && !b.changesResult) || b.deviceBytes < a.deviceBytes - memEps || b.nChanges < a.nChanges);
  let evaluated = 0;

  const consider = (applied: Applied): void => {
    const r = estimate(applied.setup, lean);
    evaluated++;
    if (!r.ok) return;
    const e = r.estimate;
    if ((capacity !== undefined && e.fits !== true) || current.perGpu.deviceBytes - e.perGpu.deviceBytes <= 0) return;
    const st = timeOf(applied.setup, e, spec, true);
    const keys = new Set<string>();
    let changesResult = false;
    let nMoves = 0;
    for (let a: Applied | undefined = applied; a?.move && a.patch; a = a.parent) {
      for (const k in a.patch) keys.add(k);
      changesResult ||= a.move.changesResult;
      nMoves++;
    }
    const c: Light = {
      applied, deviceBytes: e.perGpu.deviceBytes, stepTimeFactor: currentStep.seconds > 0 ? st.seconds / currentStep.seconds : 1,
      changesResult, gpus: applied.setup.gpus_per_node * applied.setup.nodes, nChanges: keys.size, nMoves,
    };
    // Keep only the Pareto set of each group as the search goes, so dominated candidates are garbage at once.
    const k = `${c.changesResult}|${c.gpus}|${c.nChanges}`;
    const g = groups.get(k);
    if (!g) {
      groups.set(k, [c]);
      return;
    }
    // Candidates that tie within the tolerances on every count (8-bit AdamW and its paged variant when nothing is
    // paged, or one setup reached by a longer chain of moves) are one item: the one of fewest moves, else the first.
    const tie = (b: Light): boolean => Math.abs(b.stepTimeFactor - c.stepTimeFactor) <= stepEps && Math.abs(b.deviceBytes - c.deviceBytes) <= memEps;
    if (g.some((b) => dominated(c, b))) return;
    const tied = g.findIndex(tie);
    if (tied >= 0) {
      if (c.nMoves < g[tied].nMoves) g[tied] = c;
      return;
    }
    const rest = g.filter((b) => !dominated(b, c));
    rest.push(c);
    groups.set(k, rest);
  };

  // Singles, pairs and triples of moves from different groups; each prefix is applied once and reused.
  const n = all.length;
  const step = (from: Applied, mv: Move): Applied | undefined => {
    const patch = mv.apply(from.setup);
    if (!patch) return undefined;
    return { setup: { ...from.setup, ...patch }, parent: from, move: mv, patch };
  };
  const root: Applied = { setup };
  for (let i = 0; i < n; i++) {
    const si = step(root, all[i]);
    if (!si) continue;
    consider(si);
    if (maxK < 2) continue;
    for (let j = i + 1; j < n; j++) {
      if (all[j].group === all[i].group) continue;
      const sij = step(si, all[j]);
      if (!sij) continue;
      consider(sij);
      if (maxK < 3) continue;
      for (let k = j + 1; k < n; k++) {
        if (all[k].group === all[i].group || all[k].group === all[j].group) continue;
        const sijk = step(sij, all[k]);
        if (sijk) consider(sijk);
      }
    }
  }

  // Across groups (each group already holds only its own Pareto set).
  const survivors: Light[] = [...groups.values()].flat();
  const front = survivors.filter((a) => !survivors.some((b) => b !== a && dominated(a, b)));
  // Different move chains can reach the same setup; the search does not de-duplicate as it goes (a signature per
  // candidate costs more than the few hundred repeated estimates), so the front keeps the first of each setup.
  const shown = new Set<string>([signature(setup)]);
  // The items shown are estimated again in full (formulas and assumptions).
  const items: AdviceItem[] = [];
  for (const c of front.sort((x, y) => Number(x.changesResult) - Number(y.changesResult) || x.gpus - y.gpus || x.stepTimeFactor - y.stepTimeFactor || x.nChanges - y.nChanges || x.nMoves - y.nMoves || x.deviceBytes - y.deviceBytes)) {
    const sig = signature(c.applied.setup);
    if (shown.has(sig)) continue;
    shown.add(sig);
    const full = estimate(c.applied.setup, opts);
    if (!full.ok) continue;
    const { moves: combo, patches } = chain(c.applied);
    items.push({
      id: combo.map((m) => m.id).join('+'), title: combo.map((m) => m.title).join(' + '), changes: changesOf(patches),
      savedBytes: current.perGpu.deviceBytes - full.estimate.perGpu.deviceBytes, stepTimeFactor: c.stepTimeFactor, changesResult: c.changesResult,
      fits: capacity === undefined ? true : full.estimate.fits === true, estimate: full.estimate,
      costExplain: timeOf(c.applied.setup, full.estimate, spec).explain, gpus: c.gpus,
    });
  }

  const result: { maxMicroBatch?: number; maxSeqLen?: number; gpusNeeded?: number } = {};
  if (capacity !== undefined) {
    result.maxMicroBatch = largestFitting(setup, opts, 'micro_batch_size', 1, 1024);
    result.maxSeqLen = largestFitting(setup, opts, 'seq_len', 128, 1 << 20);
    result.gpusNeeded = gpusNeeded(setup, opts);
    evaluated += 40;
    const now = setup.gpus_per_node * setup.nodes;
    if (result.gpusNeeded !== undefined && result.gpusNeeded > now && !current.fits) {
      const total = result.gpusNeeded;
      const perNode = Math.min(total, 8);
      const sharded = setup.zero_stage === 3 || setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard';
      const patch: Partial<TrainingSetup> = { gpus_per_node: perNode, nodes: Math.max(1, total / perNode), ...(sharded ? {} : { zero_stage: 3 as const }) };
      const s2 = { ...setup, ...patch };
      const r = estimate(s2, opts);
      // The search may already list this very change (its 2x / 4x the GPUs move).
      const sig = (cs: readonly SetupChange[]): string => cs.map((c) => `${String(c.key)}=${JSON.stringify(c.value)}`).sort().join(' ');
      const listed = items.some((i) => sig(i.changes) === sig(Object.entries(patch).map(([key, value]) => ({ key: key as keyof TrainingSetup, value }))));
      if (r.ok && !listed) {
        const st = timeOf(s2, r.estimate, spec);
        // Per-GPU step time; the cost is hardware: the title says how many GPUs.
        items.push({
          id: 'more-gpus', title: `Use ${total} GPUs with sharded model states (ZeRO-3)`, changes: Object.entries(patch).map(([key, value]) => ({ key: key as keyof TrainingSetup, value })),
          savedBytes: current.perGpu.deviceBytes - r.estimate.perGpu.deviceBytes, stepTimeFactor: currentStep.seconds > 0 ? st.seconds / currentStep.seconds : 1,
          changesResult: false, fits: r.estimate.fits === true, estimate: r.estimate, costExplain: [...st.explain, `needs ${total} GPUs instead of ${now}`], gpus: total,
        });
      }
    }
  }
  return { current, currentStep, items, evaluated, ...result };
}

/**
 * Each single change on its own (fitting or not), for quick fixes: what it saves and what it costs.
 * Sorted by saved bytes, largest first.
 */
export function singleChanges(setup: TrainingSetup, opts: AdviceOptions = {}): AdviceItem[] {
  const cur = estimate(setup, { ...opts, lean: true });
  if (!cur.ok) return [];
  const spec = opts.gpuSpec;
  const base = timeOf(setup, cur.estimate, spec);
  const out: AdviceItem[] = [];
  for (const mv of moves(setup, spec?.bf16 ?? true)) {
    const applied = applyAll(setup, [mv]);
    if (!applied) continue;
    const r = estimate(applied.setup, opts);
    if (!r.ok) continue;
    const saved = cur.estimate.perGpu.deviceBytes - r.estimate.perGpu.deviceBytes;
    if (saved <= 0) continue;
    const st = timeOf(applied.setup, r.estimate, spec);
    out.push({
      id: mv.id, title: mv.title, changes: applied.changes, savedBytes: saved, stepTimeFactor: base.seconds > 0 ? st.seconds / base.seconds : 1,
      changesResult: mv.changesResult, fits: opts.gpu === undefined ? true : r.estimate.fits === true, estimate: r.estimate, costExplain: st.explain,
      gpus: applied.setup.gpus_per_node * applied.setup.nodes,
    });
  }
  return out.sort((a, b) => b.savedBytes - a.savedBytes);
}

/** Largest value of an integer field (micro-batch or sequence length) at which the setup fits, by bisection. */
export function largestFitting(setup: TrainingSetup, opts: EstimateOptions, key: 'micro_batch_size' | 'seq_len', lo: number, hi: number): number | undefined {
  const fits = (v: number): boolean => {
    const r = estimate({ ...setup, [key]: v }, { ...opts, lean: true });
    return r.ok && r.estimate.fits === true;
  };
  if (!fits(lo)) return undefined;
  let good = lo;
  let bad = hi + 1;
  // Exponential search, then bisection.
  let probe = lo * 2;
  while (probe <= hi && fits(probe)) {
    good = probe;
    probe *= 2;
  }
  bad = Math.min(bad, probe);
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/**
 * GPUs needed in total with model states sharded (ZeRO-3 when no sharding is configured), up to maxGpus. A model with
 * bitsandbytes 8-bit layers cannot be sharded (FSDP and ZeRO-3 refuse them): no count.
 */
export function gpusNeeded(setup: TrainingSetup, opts: AdviceOptions): number | undefined {
  if (setup.quantization?.type === 'int8') return undefined;
  const max = opts.maxGpus ?? 1024;
  const sharded = setup.zero_stage === 3 || setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard';
  for (let total = setup.gpus_per_node * setup.nodes; total <= max; total *= 2) {
    const perNode = Math.min(total, 8);
    const s: TrainingSetup = { ...setup, gpus_per_node: perNode, nodes: Math.max(1, total / perNode), ...(sharded || total === 1 ? {} : { zero_stage: 3 as const }) };
    const r = estimate(s, { ...opts, lean: true });
    if (r.ok && r.estimate.fits) return total;
  }
  return undefined;
}
