// Converts a case of the published-measurement set (shared/reference/measured.json) into a TrainingSetup,
// reading only the case's own description (model dims, method, precision, optimizer, batch, parallelism),
// and picks the estimate figure that matches the metric the case measured.
import type { Estimate, GpuTarget } from '../src/core/model';
import { TrainingSetupSchema, type TrainingSetup, type TrainingSetupInput } from '../src/core/setup';
import { GiB, MiB } from '../src/core/units';
import { findModel } from '../src/core/lookup';

export interface MeasuredCase {
  id: string;
  model: {
    family: string;
    num_layers: number;
    hidden_size: number;
    num_attention_heads: number;
    num_kv_heads: number;
    intermediate_size: number;
    vocab_size: number;
    tied_embeddings: boolean;
    num_params: number;
    max_position_embeddings?: number;
    hf_id?: string;
  };
  source?: { repo?: string; date?: string; quote?: string };
  training: {
    framework?: string;
    method: string;
    lora?: { rank: number; alpha: number; dropout: number; target_modules: string[]; adapter_dtype: string };
    ia3?: { target_modules: string[]; feedforward_modules: string[] };
    quantization?: { bits: number; type: string; applies_to: string };
    precision_kind: string;
    optimizer: { name: string; optimizer_in_backward?: boolean };
    micro_batch_size: number;
    grad_accum: number;
    seq_len: number;
    seq_len_kind?: string;
    gradient_checkpointing_kind: string;
    attention: string;
    loss: string;
    compile?: boolean;
    activation_offloading?: boolean | null;
    distributed: {
      strategy: string;
      num_gpus: number;
      zero_stage: number;
      cpu_offload_params: boolean;
      cpu_offload_optimizer: boolean;
    };
  };
  hardware?: { gpu?: string; gpu_memory_gib?: number };
  measurement: {
    metric_kind: string;
    metric?: string;
    value_gib: number;
    includes_cuda_context?: boolean;
    cuda_context_reference_mib?: number;
  };
  notes?: string;
}

const LORA_NAME_MAP: Array<[RegExp, string[]]> = [
  [/^q_proj$/, ['q_proj']],
  [/^k_proj$/, ['k_proj']],
  [/^v_proj$/, ['v_proj']],
  [/output_proj|o_proj/, ['o_proj']],
  [/w1\/w2\/w3|gate\/down\/up/, ['gate_proj', 'up_proj', 'down_proj']],
  [/^gate_proj$/, ['gate_proj']],
  [/^up_proj$/, ['up_proj']],
  [/^down_proj$/, ['down_proj']],
  [/^c_attn$/, ['c_attn']],
  [/lm_head|final output/, ['lm_head']],
];

/**
 * transformers 4.x minor releases by the month after their release (github.com/huggingface/transformers/releases):
 * the newest release out before the month a case was published in.
 */
const TRANSFORMERS_RELEASES: ReadonlyArray<readonly [string, string]> = [
  ['2023-01', '4.25'],
  ['2023-02', '4.26'],
  ['2023-04', '4.27'],
  ['2023-05', '4.28'],
  ['2023-06', '4.29'],
  ['2023-07', '4.30'],
  ['2023-08', '4.31'],
  ['2023-09', '4.32'],
  ['2023-10', '4.33'],
  ['2023-11', '4.34'],
  ['2023-12', '4.35'],
  ['2024-01', '4.36'],
  ['2024-02', '4.37'],
  ['2024-03', '4.38'],
  ['2024-04', '4.39'],
  ['2024-05', '4.40'],
  ['2024-06', '4.41'],
  ['2024-07', '4.42'],
  ['2024-08', '4.43'],
  ['2024-09', '4.44'],
  ['2024-10', '4.45'],
  ['2024-11', '4.46'],
  ['2025-01', '4.47'],
  ['2025-02', '4.48'],
  ['2025-03', '4.49'],
];

/** The transformers release current at the start of a case's month (YYYY-MM...), from 2023 to February 2025. */
function releasedBy(date: string): string | undefined {
  const month = /^\d{4}-\d{2}/.exec(date)?.[0];
  if (!month || month < TRANSFORMERS_RELEASES[0][0]) return undefined;
  const next = TRANSFORMERS_RELEASES.findIndex(([from]) => from > month);
  // From the last entry's month on (4.49 and later), the 4.57 default stands.
  return next > 0 ? TRANSFORMERS_RELEASES[next - 1][1] : undefined;
}

export function caseToSetup(c: MeasuredCase): { ok: true; setup: TrainingSetup } | { ok: false; reason: string } {
  const m = c.model;
  const t = c.training;
  const fam = m.family === 'bert-encoder' ? 'bert' : m.family === 'qwen1' ? 'qwen' : m.family;
  const architecture: Record<string, unknown> = {
    model_type: fam,
    num_hidden_layers: m.num_layers,
    hidden_size: m.hidden_size,
    num_attention_heads: m.num_attention_heads,
    num_key_value_heads: m.num_kv_heads,
    intermediate_size: m.intermediate_size,
    vocab_size: m.vocab_size,
    tie_word_embeddings: m.tied_embeddings,
  };
  // The positions the case does not state come from the checkpoint's published config.json (the built-in catalog).
  const published = m.hf_id ? findModel(m.hf_id) : undefined;
  const positions =
    m.max_position_embeddings ?? (published?.ok ? published.model.config.max_position_embeddings : undefined);
  if (typeof positions === 'number') architecture.max_position_embeddings = positions;
  const method = t.method.startsWith('qlora')
    ? 'qlora'
    : t.method === 'lora'
      ? 'lora'
      : t.method === 'full'
        ? 'full'
        : t.method === 'ia3'
          ? 'ia3'
          : undefined;
  if (!method) return { ok: false, reason: `method '${t.method}' is not modeled` };

  const s: TrainingSetupInput = {
    architecture,
    parameters: m.num_params,
    method,
    micro_batch_size: t.micro_batch_size,
    gradient_accumulation_steps: t.grad_accum,
    seq_len: t.seq_len,
  };
  // PEFT IA3Config: vectors in fp32 (autocast_adapter_dtype=True).
  if (method === 'ia3' && t.ia3)
    s.ia3 = { target_modules: t.ia3.target_modules, feedforward_modules: t.ia3.feedforward_modules, dtype: 'fp32' };
  // Batches padded to their own longest sample (the case's seq_len is then the longest batch of the run).
  // A harness that calls torch.cuda.empty_cache() between steps (PEFT's MetaMathQA runner, every 10 steps, over batches
  // bucketed by length) returns that cache to the driver, so its runs are compared with the per-step figure. Those cases
  // also give the 99th percentile of the reserved memory sampled after each step; the comparison uses their
  // max_memory_reserved, the peak of the longest batch that the estimate describes, not a percentile over shorter
  // batches (run.py runs its extra loss passes at the training batch size "to prevent this from ... affecting the max
  // memory metric").
  if (/dynamic/i.test(t.seq_len_kind ?? '') && !/empty_cache/.test(c.measurement.metric ?? ''))
    s.batch_lengths = 'variable';
  if (fam === 'bert') {
    // BertForSequenceClassification, 2 labels; the case's parameter count includes its pooler and classifier.
    s.head = 'seq_cls';
    s.num_labels = 2;
    architecture.architectures = ['BertForSequenceClassification'];
  }
  if (t.lora) {
    const targets = new Set<string>();
    for (const raw of t.lora.target_modules)
      for (const [re, names] of LORA_NAME_MAP) if (re.test(raw)) names.forEach((n) => targets.add(n));
    s.lora = {
      r: t.lora.rank,
      alpha: t.lora.alpha,
      dropout: t.lora.dropout,
      target_modules: [...targets].filter((n) => n !== 'lm_head'),
      dtype: t.lora.adapter_dtype.startsWith('fp32') ? 'fp32' : 'bf16',
    };
  }
  if (t.quantization) {
    const torchao = /torchao/i.test(t.quantization.type);
    const gptq = /gptq/i.test(t.quantization.type);
    s.quantization = {
      bits: t.quantization.bits === 8 ? 8 : 4,
      type: gptq ? 'gptq' : t.quantization.bits === 8 ? 'int8' : 'nf4',
      // torchtune's qlora builders store every block linear in NF4 (FrozenNF4Linear for the ones without LoRA), so
      // its scope is all block linears whatever the case text says; other stacks follow the case.
      double_quant: torchao || /double/i.test(t.quantization.type),
      scope: torchao || !/lora/i.test(t.quantization.applies_to) ? 'all-linear' : 'lora-targets',
    };
    // torchtune's releases before May 2024 (v0.1.x) pinned torchao 0.1 (torchtune 0.1.1 requirements.txt).
    if (torchao && c.source?.repo === 'pytorch/torchtune' && (c.source.date ?? '9999') < '2024-05')
      s.torchao_version = '0.1';
    // bitsandbytes: the release the case names, else the last before 0.43.2 for a case published before August 2024
    // (0.43.2, July 2024, is the first whose 4-bit matmul keeps no input: bitsandbytes-foundation/bitsandbytes#1270).
    const bnb = /bitsandbytes\s*v?(\d+\.\d+(?:\.\d+)?)/i.exec(`${t.framework ?? ''} ${t.quantization.type}`);
    if (!torchao && !gptq && bnb) s.bitsandbytes_version = bnb[1];
    else if (!torchao && !gptq && (c.source?.date ?? '9999') < '2024-08') s.bitsandbytes_version = '0.43.1';
  }
  switch (t.precision_kind) {
    case 'fp32':
      s.weights_dtype = 'fp32';
      s.mixed_precision = 'none';
      break;
    case 'amp_fp16':
      s.weights_dtype = 'fp32';
      s.mixed_precision = 'fp16';
      break;
    case 'pure_bf16':
      s.weights_dtype = 'bf16';
      s.mixed_precision = 'none';
      break;
    case 'bf16_weights_plus_autocast':
      s.weights_dtype = 'bf16';
      s.mixed_precision = 'bf16';
      break;
    case 'fsdp_mixed_bf16_fp32_master':
      s.weights_dtype = 'bf16';
      s.master_weights = true;
      break;
    case 'deepspeed_bf16_fp32_master_trainable_only':
      s.weights_dtype = 'bf16';
      s.master_weights = true;
      break;
    default:
      return { ok: false, reason: `precision '${t.precision_kind}' is not mapped` };
  }
  const on = t.optimizer.name;
  s.optimizer = /adafactor/i.test(on)
    ? 'adafactor'
    : /8bit/i.test(on)
      ? /paged/i.test(on) && !/or/i.test(on)
        ? 'paged_adamw_8bit'
        : 'adamw_8bit'
      : /adamw_hf|transformers\.AdamW/i.test(on)
        ? 'adamw_hf'
        : /fused/i.test(on)
          ? 'adamw_fused'
          : 'adamw';
  s.optimizer_in_backward = t.optimizer.optimizer_in_backward === true;
  s.gradient_checkpointing =
    t.gradient_checkpointing_kind === 'none'
      ? 'none'
      : t.gradient_checkpointing_kind === 'selective_op'
        ? 'selective'
        : 'full';
  s.attention = /eager/i.test(t.attention)
    ? 'eager'
    : /flash-attn|flash_attention_2|flash attn/i.test(t.attention)
      ? 'flash'
      : 'sdpa';
  s.loss = /chunked/i.test(t.loss) ? 'chunked' : 'full';
  s.activation_offloading = t.activation_offloading === true;
  s.compile = t.compile === true;
  // torchtitan's torch.compile wraps each transformer block; the output projection and the loss run eager.
  if (s.compile && /torchtitan/i.test(t.framework ?? '')) s.compile_loss = false;
  // PyTorch < 2.0 zero_grad() kept gradient buffers (set_to_none=False by default).
  if (/torch 1\./.test(t.framework ?? '')) s.zero_grad_set_to_none = false;
  // use_reentrant where the case says it; torchtune, torchtitan and LitGPT checkpoint through checkpoint_wrapper, whose
  // default is CheckpointImpl.NO_REENTRANT. Otherwise transformers' default for its release (kept-inputs.ts).
  const ckText = `${t.gradient_checkpointing_kind ?? ''} ${t.framework ?? ''} ${c.notes ?? ''}`;
  if (/use_reentrant\s*[=:]\s*false|non[- _]?reentrant/i.test(ckText)) s.checkpoint_reentrant = false;
  else if (/use_reentrant\s*[=:]\s*true|\breentrant\b/i.test(ckText)) s.checkpoint_reentrant = true;
  else if (/torchtune|torchtitan|litgpt/i.test(t.framework ?? '')) s.checkpoint_reentrant = false;
  const torchVersion = /torch (\d+\.\d+)/.exec(t.framework ?? '');
  if (torchVersion) s.pytorch_version = torchVersion[1];
  // The transformers release the case names; else, for a run through transformers' own models, the release current
  // when the case was published (releasedBy); else the last 4.x line for a case published before 2026 (5.0 came out of
  // its release candidates in 2026). It decides how MoE experts are stored (one nn.Linear per expert before 5.0) and
  // how the causal-LM loss shifts the logits (before 4.49).
  const hfVersion = /transformers ~?(\d+\.\d+)/.exec(t.framework ?? '');
  const date = c.source?.date ?? '9999';
  const ownModels = /torchtune|torchtitan|litgpt|megatron|nanogpt/i.test(t.framework ?? '');
  const current = ownModels ? undefined : releasedBy(date);
  if (hfVersion) s.transformers_version = hfVersion[1];
  else if (current) s.transformers_version = current;
  else if (date < '2026-01') s.transformers_version = '4.57';
  const d = t.distributed;
  // FSDP1 checkpoints: SHARDED_STATE_DICT where the case says so, and, for a case published before Accelerate 0.31
  // (2024-06-07), the release before it, whose FSDP plugin kept the shards on the GPU (terms/checkpoint-save.ts).
  if (/SHARDED_STATE_DICT|sharded state dict/i.test(`${d.strategy} ${t.framework ?? ''} ${c.notes ?? ''}`))
    s.fsdp_state_dict_type = 'sharded';
  if (!ownModels && date < '2024-06-07') s.accelerate_version = '0.30';
  s.gpus_per_node = Math.min(8, d.num_gpus);
  s.nodes = Math.max(1, Math.round(d.num_gpus / 8));
  if (d.num_gpus > 1) {
    if (/fsdp/i.test(d.strategy)) s.fsdp = d.zero_stage === 3 ? 'full_shard' : 'shard_grad_op';
    // torchtune and torchtitan shard with fully_shard (FSDP2) only.
    if (/fsdp/i.test(d.strategy) && /torchtune|torchtitan|fsdp2/i.test(`${t.framework ?? ''} ${d.strategy}`))
      s.fsdp_version = 2;
    if (/embeddings and output sharded separately/i.test(d.strategy)) s.fsdp_shard_embeddings = true;
    else s.zero_stage = d.zero_stage as 0 | 1 | 2 | 3;
    if (d.cpu_offload_optimizer) s.offload_optimizer = 'cpu';
    if (d.cpu_offload_params) s.offload_params = 'cpu';
  }
  if (c.measurement.includes_cuda_context && c.measurement.cuda_context_reference_mib)
    s.cuda_context_bytes = c.measurement.cuda_context_reference_mib * MiB;
  const parsed = TrainingSetupSchema.safeParse(s);
  if (!parsed.success)
    return { ok: false, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, setup: parsed.data };
}

/**
 * The measured value in GiB. torchtune's April 2024 releases (v0.1.x) logged
 * `torch.cuda.max_memory_reserved(device) / 1e9` with the unit "GB" (torchtune/utils/memory.py `memory_stats_log`), and
 * the tutorials of that month quote those logs ("GPU peak memory allocation: 13.96 GB"). Later versions divide by 1024**3
 * and print GiB, as the README tables say.
 */
export function measuredGiB(c: MeasuredCase): number {
  const m = c.measurement;
  const decimalGB =
    c.source?.repo === 'pytorch/torchtune' &&
    (c.source.date ?? '9999') < '2024-05' &&
    /\bGB\b/.test(c.source.quote ?? '');
  return decimalGB ? (m.value_gib * 1e9) / GiB : m.value_gib;
}

/** The estimate figure comparable with the case's metric, in GiB. */
export function compareMetric(
  c: MeasuredCase,
  e: Estimate,
): { metric: string; measuredGiB: number; estimatedGiB: number } {
  const m = c.measurement;
  const measured = measuredGiB(c);
  const pg = e.perGpu;
  // Reserved and nvidia-smi figures of a whole run include the cache of earlier, shorter batches.
  const run = pg.variableLengths ?? pg;
  switch (m.metric_kind) {
    case 'max_memory_allocated':
    case 'peak_active_bytes':
      return { metric: m.metric_kind, measuredGiB: measured, estimatedGiB: pg.peakBytes / GiB };
    case 'nvidia_smi_used':
      return { metric: m.metric_kind, measuredGiB: measured, estimatedGiB: run.deviceBytes / GiB };
    default:
      return {
        metric: m.metric_kind === 'max_memory_reserved' ? m.metric_kind : `${m.metric_kind} (vs reserved)`,
        measuredGiB: measured,
        estimatedGiB: run.reservedBytes / GiB,
      };
  }
}

/** The case's GPU as an estimate target (its memory caps what the allocator can cache), when the case gives its size. */
export function caseGpu(c: MeasuredCase): GpuTarget | undefined {
  const gib = c.hardware?.gpu_memory_gib;
  return gib
    ? { id: c.hardware?.gpu ?? 'GPU', memoryBytes: gib * GiB, source: `${c.id}: hardware.gpu_memory_gib` }
    : undefined;
}
