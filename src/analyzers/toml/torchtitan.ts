// torchtitan's TOML job config (pytorch/torchtitan, `torchrun -m torchtitan.train --job.config_file x.toml`, its
// run_train.sh's CONFIG_FILE): the model by name and flavor, the batch, the sequence, FSDP2 with its mixed precision
// and CPU offload, the parallel degrees, activation checkpointing, torch.compile and the optimizer. Both layouts are
// read: the one from June 2025 (`[parallelism]`, `training.local_batch_size`, `optimizer.implementation`) and the one
// before (`training.batch_size`, the degrees under `[training]` and `[experimental]`, `optimizer.fused`). Sources:
// pytorch/torchtitan@238fa99 torchtitan/config/job_config.py (the last release of the TOML configs),
// models/llama3/infra/parallelize.py apply_fsdp, models/*/__init__.py (the flavors); @82f7387 config_manager.py (the
// layout before). Pure: no I/O.
import { msg, type ConfigFacts } from '../facts';
import { TomlFacts } from './facts';
import { readToml, type TomlDoc, type TomlEntry } from './parse';

export const TORCHTITAN_SOURCE = 'pytorch/torchtitan@238fa99';

/** Whether a TOML file is a torchtitan job config: a `[model]` table with `name` or `flavor`, and a `[training]` table. */
export function isTorchtitanToml(text: string): boolean {
  return /^\s*\[model\]/m.test(text) && /^\s*\[training\]/m.test(text) && /^\s*(name|flavor)\s*=/m.test(text);
}

/** torchtitan's model flavors (models/<name>/__init__.py) as the catalog models of the same architecture. */
const FLAVORS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  llama3: {
    '8B': 'meta-llama/Llama-3.1-8B',
    '70B': 'meta-llama/Llama-3.1-70B',
    '405B': 'meta-llama/Llama-3.1-405B',
  },
  // torchtitan's first model, before llama3 took its place (2024).
  llama2: { '7B': 'meta-llama/Llama-2-7b-hf', '13B': 'meta-llama/Llama-2-13b-hf', '70B': 'meta-llama/Llama-2-70b-hf' },
  qwen3: Object.fromEntries(
    ['0.6B', '1.7B', '4B', '8B', '14B', '32B', '30B-A3B', '235B-A22B'].map((f) => [f, `Qwen/Qwen3-${f}`]),
  ),
  // 16B: 27 layers of width 2048, 64 routed and 2 shared experts, multi-head latent attention: DeepSeek-V2-Lite.
  deepseek_v3: {
    '16B': 'deepseek-ai/DeepSeek-V2-Lite',
    '236B': 'deepseek-ai/DeepSeek-V2',
    '671B': 'deepseek-ai/DeepSeek-V3',
  },
  llama4: {
    '17bx16e': 'meta-llama/Llama-4-Scout-17B-16E',
    '17bx128e': 'meta-llama/Llama-4-Maverick-17B-128E',
  },
  gpt_oss: { '20b': 'openai/gpt-oss-20b', '120b': 'openai/gpt-oss-120b' },
};

/** torchtitan's facts of one file. */
type TitanCtx = TomlFacts;

export function analyzeTorchtitanToml(text: string): ConfigFacts {
  return analyzeTorchtitanDoc(readToml(text), 'torchtitan-toml');
}

/**
 * A torchtitan job config's entries by dotted path, wherever they are written: its TOML file, or the YAML of a
 * trainer built on torchtitan (meta-pytorch/forge's `trainer:` section).
 */
export function analyzeTorchtitanDoc(doc: TomlDoc, format: 'torchtitan-toml' | 'forge-yaml'): ConfigFacts {
  const ctx = new TomlFacts(doc, 'torchtitan');
  try {
    model(ctx);
    batch(ctx);
    precision(ctx);
    parallelism(ctx);
    checkpointing(ctx);
    compileAndOptimizer(ctx);
  } catch {
    // What was found before a failure is returned; the analyzers never throw on user text.
  }
  return { format, facts: ctx.facts, problems: ctx.problems, references: [], tools: ['torchtitan'] };
}

/** `[model] name` and `flavor`: the catalog model of that architecture; the debug models and others are unknown. */
function model(ctx: TitanCtx): void {
  const nameEntry = ctx.get('model.name');
  const flavorEntry = ctx.get('model.flavor');
  const at = flavorEntry ?? nameEntry;
  if (!at) return;
  const name = typeof nameEntry?.value === 'string' ? nameEntry.value : 'llama3';
  const flavor = typeof flavorEntry?.value === 'string' ? flavorEntry.value : 'debugmodel';
  const id = FLAVORS[name]?.[flavor];
  if (id) ctx.add('model', at, id);
  else if (/^debugmodel/.test(flavor))
    ctx.add('model', at, { unknown: `${name} ${flavor} is torchtitan's small test model, not a published one` });
  else ctx.add('model', at, { unknown: `torchtitan's ${name} flavor ${flavor} is not one VRAM Lens knows` });
  const converters = ctx.get('model.converters');
  const float8 = ctx.get('float8.enable_float8_linear');
  if (
    (converters && Array.isArray(converters.value) && converters.value.some((c) => /float8|mx/.test(String(c)))) ||
    float8?.value === true
  )
    ctx.warn(
      converters ?? float8!,
      msg('{0}: float8 training is not modeled: the estimate is bf16 training', 'float8'),
    );
}

/** The per-GPU batch, the global batch (the accumulation follows from it) and the sequence length. */
function batch(ctx: TitanCtx): void {
  ctx.count('microBatchSize', 'training.local_batch_size', 'training.batch_size');
  const global = ctx.get('training.global_batch_size');
  // -1 (the default): the local batch times the data-parallel degree, no accumulation.
  if (global && global.value !== -1) ctx.count('trainBatchSize', 'training.global_batch_size');
  ctx.count('seqLen', 'training.seq_len');
}

/**
 * `training.dtype` (the parameters' dtype: float32 unless bfloat16, which FSDP then keeps without an fp32 master),
 * `mixed_precision_param` (FSDP2's param_dtype; autocast on one GPU, maybe_enable_amp) and CPU offload.
 */
function precision(ctx: TitanCtx): void {
  const dtype = ctx.get('training.dtype');
  if (dtype) {
    if (dtype.value === 'bfloat16' || dtype.value === 'float32')
      ctx.add('weightsDtype', dtype, dtype.value === 'bfloat16' ? 'bf16' : 'fp32');
    else ctx.invalid(dtype, '"bfloat16" or "float32"');
  }
  const mp = ctx.get('training.mixed_precision_param');
  if (mp) {
    if (mp.value === 'bfloat16' || mp.value === 'float32')
      ctx.add('mixedPrecision', mp, mp.value === 'bfloat16' ? 'bf16' : 'none');
    else ctx.invalid(mp, '"bfloat16" or "float32"');
  }
  const offload = ctx.get('training.enable_cpu_offload');
  if (offload && typeof offload.value === 'boolean') ctx.add('fsdpOffload', offload, offload.value);
}

/**
 * The parallel degrees (ParallelDims): data_parallel_shard_degree -1 (the default) shards over every GPU the other
 * degrees leave, 1 turns FSDP off (DDP when data_parallel_replicate_degree > 1), a replicate degree above 1 with
 * sharding is HSDP; `fsdp_reshard_after_forward = "never"` keeps each layer's parameters gathered from its forward to
 * its backward, as SHARD_GRAD_OP does. Every block, the embeddings and the norm with the head are FSDP2 units.
 */
function parallelism(ctx: TitanCtx): void {
  const p = (key: string): string[] => [`parallelism.${key}`, `training.${key}`, `experimental.${key}`];
  const tp = ctx.count('tensorParallel', ...p('tensor_parallel_degree'));
  const pp = ctx.count('pipelineParallel', ...p('pipeline_parallel_degree'));
  const cp = ctx.count('contextParallel', ...p('context_parallel_degree'));
  ctx.count('expertParallel', ...p('expert_parallel_degree'));
  const shardEntry = ctx.get(...p('data_parallel_shard_degree'));
  const replicateEntry = ctx.get(...p('data_parallel_replicate_degree'));
  const shard = typeof shardEntry?.value === 'number' ? shardEntry.value : -1;
  const replicate = typeof replicateEntry?.value === 'number' ? replicateEntry.value : 1;
  const at = shardEntry ?? replicateEntry ?? ctx.get('training.local_batch_size', 'training.batch_size');
  if (!at) return;
  if (shard === 1) {
    if (replicateEntry && replicate > 1) ctx.add('fsdp', replicateEntry, 'none');
  } else {
    const reshard = ctx.get('parallelism.fsdp_reshard_after_forward');
    const mode = replicate > 1 ? 'hybrid_shard' : reshard?.value === 'never' ? 'shard_grad_op' : 'full_shard';
    ctx.add('fsdp', reshard?.value === 'never' ? reshard : at, mode);
    ctx.add('fsdpVersion', at, 2);
    units(ctx, at);
    if (shard > 1 && replicate > 1) ctx.add('fsdpShardSize', shardEntry!, shard);
  }
  // Every degree written as a number: the run's GPUs are their product.
  if (shard > 0 && replicateEntry !== undefined) {
    const world = replicate * shard * (tp ?? 1) * (pp ?? 1) * (cp ?? 1);
    ctx.add('worldSize', shardEntry ?? replicateEntry, world);
  }
}

/**
 * The FSDP2 units besides the blocks, by the layout's date: from July 2025 (torchtitan@83e6941, #1094) the token
 * embeddings are a unit of their own and the final norm with the output head one not resharded after the forward;
 * before, they sat in the root unit (resharded after the forward) and the last block was not resharded. The layout of
 * June 2025 on (local_batch_size) is taken as the later one.
 */
function units(ctx: TitanCtx, at: TomlEntry): void {
  const later = !ctx.get('training.batch_size') || ctx.get('training.local_batch_size') !== undefined;
  const source = later
    ? 'torchtitan apply_fsdp from July 2025 (@83e6941): the embeddings a unit of their own, ' +
      'the final norm and the head one kept gathered from the forward to the backward'
    : 'torchtitan apply_fsdp before July 2025 (@82f7387): the embeddings, final norm and head in the root unit, resharded after the forward';
  ctx.assume('fsdpShardEmbeddings', at, later, source);
  ctx.assume('fsdpTailUnit', at, later, source);
}

/**
 * `[activation_checkpoint] mode`: none, full (every block) or selective: `selective_ac_option = "op"` is op-level SAC,
 * the estimate's 'selective'; a number N checkpoints every N-th block whole (1: every block). Every second block keeps
 * about what op-level SAC keeps (said, estimated as it); every third or rarer keeps more than that and is estimated
 * without checkpointing, which bounds it from above. memory_budget (torch.compile's min-cut) is estimated as SAC.
 */
function checkpointing(ctx: TitanCtx): void {
  const mode = ctx.get('activation_checkpoint.mode');
  if (!mode) return;
  const m = String(mode.value).toLowerCase();
  if (m === 'none' || m === 'full') return ctx.add('gradientCheckpointing', mode, m);
  if (m === 'memory_budget') {
    ctx.warn(mode, msg('{0}: memory_budget is estimated as op-level selective checkpointing', mode.path));
    return ctx.add('gradientCheckpointing', mode, 'selective');
  }
  if (m !== 'selective') return ctx.invalid(mode, '"none", "full", "selective" or "memory_budget"');
  const option = ctx.get('activation_checkpoint.selective_ac_option');
  const text = option ? String(option.value).trim() : '2';
  if (text === 'op') return ctx.add('gradientCheckpointing', option!, 'selective');
  const every = Number(text);
  const at = option ?? mode;
  if (!Number.isInteger(every) || every < 1) return ctx.invalid(at, '"op" or a positive whole number');
  if (every === 1) return ctx.add('gradientCheckpointing', at, 'full');
  if (every === 2) {
    ctx.warn(
      at,
      msg(
        '{0}: every second block checkpointed is estimated as op-level selective checkpointing',
        'selective_ac_option',
      ),
    );
    return ctx.add('gradientCheckpointing', at, 'selective');
  }
  ctx.warn(
    at,
    msg(
      '{0}: one block in {1} checkpointed is estimated without checkpointing (an upper bound)',
      'selective_ac_option',
      every,
    ),
  );
  ctx.add('gradientCheckpointing', at, 'none');
}

/**
 * `[compile] enable` (`training.compile` before) compiles each block; the optimizer: AdamW or Adam with
 * `implementation` ("fused", the default from June 2025; "foreach"; "for-loop") or the earlier `fused` (false by
 * default: foreach).
 */
function compileAndOptimizer(ctx: TitanCtx): void {
  const compile = ctx.get('compile.enable', 'training.compile');
  if (compile && typeof compile.value === 'boolean') ctx.add('compile', compile, compile.value);
  const name = ctx.get('optimizer.name');
  const impl = ctx.get('optimizer.implementation');
  const fused = ctx.get('optimizer.fused');
  const adam = !name || /^adamw?$/i.test(String(name.value));
  if (!adam) {
    ctx.add('optimizer', name!, { unknown: `optimizer ${String(name!.value)} is not one VRAM Lens models here` });
    return;
  }
  if (impl) {
    const v = { fused: 'adamw_fused', foreach: 'adamw', 'for-loop': 'adamw_hf' }[String(impl.value)];
    if (v) ctx.add('optimizer', impl, v);
    else ctx.invalid(impl, '"fused", "foreach" or "for-loop"');
  } else if (fused && typeof fused.value === 'boolean')
    ctx.add('optimizer', fused, fused.value ? 'adamw_fused' : 'adamw');
  else if (name && ctx.get('training.batch_size') && !ctx.get('training.local_batch_size'))
    // The layout before June 2025: `optimizer.fused` defaulted to false, torch's foreach AdamW.
    ctx.add('optimizer', name, 'adamw');
}
