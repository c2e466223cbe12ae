// prime-rl's TOML configs (PrimeIntellect-ai/prime-rl: `uv run rl @ rl.toml`, `uv run sft @ sft.toml`): the trainer's
// step on the trainer's GPUs, as its FSDP2 trainer runs it. The model in `optimization_dtype` (float32) sharded by
// fully_shard with bfloat16 param_dtype, every block a unit, the embeddings one and the final norm with the head one
// kept gathered (setup_fsdp); activation checkpointing of every block and activation offloading on by default;
// torch.compile of each block; the optimizer's states on the host but for the step (optim_cpu_offload, torch's AdamW
// without fused); packed rows of seq_len tokens; the RL loss through the fused LM head (log-probabilities taken
// 8,192 tokens by 8,192 vocabulary entries at a time: no logits kept). An RL config's inference runs on GPUs of its
// own, not estimated. Both layouts are read: `[deployment] num_train_gpus` and the earlier `trainer_gpu_ids`.
// Sources: PrimeIntellect-ai/prime-rl@559b447 packages/prime-rl-configs/src/prime_rl/configs/{trainer,rl,sft}.py,
// src/prime_rl/trainer/model.py, optim/__init__.py, rl/train.py, models/layers/lm_head.py. Pure: no I/O.
import { msg, type ConfigFacts } from '../facts';
import { TomlFacts } from './facts';
import { readToml, type TomlEntry } from './parse';

export const PRIME_RL_SOURCE = 'PrimeIntellect-ai/prime-rl@559b447';
const CONFIGS = `${PRIME_RL_SOURCE}:packages/prime-rl-configs/src/prime_rl/configs`;
const MODEL_PY = `${PRIME_RL_SOURCE}:src/prime_rl/trainer/model.py`;

/** Which entry point reads the file: `rl` (trainer, orchestrator and inference) or `sft` (the SFT trainer). */
type Kind = 'rl' | 'sft';

/** The entry point of a prime-rl config, or undefined for a TOML file that is not one. */
export function primeRlKind(text: string): Kind | undefined {
  const head = text.slice(0, 50_000);
  if (/^\s*\[training\]/m.test(head)) return undefined; // torchtitan's job config
  const table = (name: string): boolean => new RegExp(`^\\s*\\[\\[?${name}(\\.[\\w.]+)?\\]\\]?`, 'm').test(head);
  if (/^\s*\[model\]/m.test(head) || table('trainer')) {
    if (table('orchestrator') || table('trainer') || /^\s*(trainer|inference)_gpu_ids\s*=/m.test(head)) return 'rl';
    if (table('data') && /^\s*\[deployment\]|^\s*\[optim\]|^\s*\[model\.(ac|lora|compile)\]/m.test(head)) return 'sft';
  }
  return undefined;
}

/** A file's reading: its facts, the trainer's model table's prefix and the anchor its defaults are said at. */
interface PrimeCtx {
  readonly f: TomlFacts;
  readonly kind: Kind;
  /** `trainer.model.` in an RL config, `model.` in an SFT config. */
  readonly m: string;
  /** Where prime-rl's defaults are said: the model's name, else the first entry of the file. */
  readonly at: TomlEntry;
}

export function analyzePrimeRlToml(text: string): ConfigFacts {
  const doc = readToml(text);
  const f = new TomlFacts(doc, 'prime-rl');
  const kind = primeRlKind(text) ?? 'rl';
  const m = kind === 'rl' ? 'trainer.model.' : 'model.';
  const at = f.get(`${m}name`, 'model.name') ?? doc.entries.values().next().value;
  if (at) {
    const ctx: PrimeCtx = { f, kind, m, at };
    try {
      model(ctx);
      gpus(ctx);
      sequence(ctx);
      precisionAndSharding(ctx);
      checkpointing(ctx);
      adapters(ctx);
      optimizer(ctx);
      loss(ctx);
    } catch {
      // What was found before a failure is returned; the analyzers never throw on user text.
    }
  }
  return { format: 'prime-rl-toml', facts: f.facts, problems: f.problems, references: [], tools: ['prime-rl'] };
}

/** `[model] name` (propagated to the trainer) or the trainer's own `[trainer.model] name`. */
function model(c: PrimeCtx): void {
  const e = c.f.get(`${c.m}name`, 'model.name');
  if (!e) return;
  if (typeof e.value === 'string') c.f.add('model', e, e.value);
  else c.f.invalid(e, 'a model name');
}

/**
 * The trainer's GPUs: `[deployment] num_train_gpus` (1 by default) on one node, `num_train_nodes` of
 * `gpus_per_node` (8) on several, or the earlier layout's `trainer_gpu_ids`; the inference GPUs are said apart.
 */
function gpus(c: PrimeCtx): void {
  const { f } = c;
  const nodes = f.count('nodes', 'deployment.num_train_nodes');
  if (nodes !== undefined) {
    if (!f.count('gpusPerNode', 'deployment.gpus_per_node'))
      f.assume(
        'gpusPerNode',
        f.get('deployment.num_train_nodes')!,
        8,
        `deployment.gpus_per_node defaults to 8 (${CONFIGS}/rl.py)`,
      );
  } else if (!f.count('gpusPerNode', 'deployment.num_train_gpus')) {
    const ids = f.get('trainer_gpu_ids');
    if (ids && Array.isArray(ids.value) && ids.value.length > 0) f.add('gpusPerNode', ids, ids.value.length);
    else f.assume('gpusPerNode', c.at, 1, `deployment.num_train_gpus defaults to 1 (${CONFIGS}/${c.kind}.py)`);
  }
  const infer = f.get('deployment.num_infer_gpus', 'inference_gpu_ids', 'deployment.num_infer_nodes');
  if (c.kind === 'rl')
    f.problems.push({
      code: 'not-modeled',
      severity: 'info',
      ...msg(
        "{0}: prime-rl's inference runs on GPUs of its own; the estimate is the trainer's GPUs",
        infer?.path ?? 'inference',
      ),
      span: (infer ?? c.at).keySpan,
      rawKey: infer?.path ?? 'inference',
    });
}

/**
 * Packed rows: the RL trainer takes rows of the trainer's seq_len tokens, one a micro-step (rl/train.py); the
 * orchestrator's seq_len, which the trainer's must hold, stands for it where the trainer's is not written. The SFT
 * trainer packs `data.micro_batch_size` rows of `data.seq_len` (1 and 128 by default).
 */
function sequence(c: PrimeCtx): void {
  const { f } = c;
  const packed = 'prime-rl packs samples into rows of seq_len tokens';
  if (c.kind === 'sft') {
    if (!f.count('seqLen', 'data.seq_len'))
      f.assume('seqLen', c.at, 128, `data.seq_len defaults to 128 (${CONFIGS}/sft.py)`);
    if (!f.count('microBatchSize', 'data.micro_batch_size'))
      f.assume('microBatchSize', c.at, 1, `data.micro_batch_size defaults to 1 (${CONFIGS}/sft.py)`);
    f.assume('batchLengths', f.get('data.seq_len') ?? c.at, 'fixed', packed);
    return;
  }
  const own = f.count('seqLen', `${c.m}seq_len`, 'seq_len');
  const orchestrator = f.get('orchestrator.seq_len');
  if (own === undefined && orchestrator && typeof orchestrator.value === 'number')
    f.assume('seqLen', orchestrator, orchestrator.value, "the trainer's rows hold at least the orchestrator's seq_len");
  else if (own === undefined)
    f.assume('seqLen', c.at, 2048, `trainer.model.seq_len defaults to 2048 (${CONFIGS}/trainer.py)`);
  const rows = f.get(`${c.m}seq_len`, 'seq_len', 'orchestrator.seq_len') ?? c.at;
  f.assume(
    'microBatchSize',
    rows,
    1,
    `the RL trainer steps one packed row of seq_len tokens at a time (${PRIME_RL_SOURCE}:src/prime_rl/trainer/rl/train.py)`,
  );
  f.assume('batchLengths', rows, 'fixed', packed);
}

/**
 * `optimization_dtype` (float32) for the parameters, FSDP2 with bfloat16 param_dtype; reshard_after_forward (true),
 * dp_replicate (HSDP), fsdp_cpu_offload (parameters, gradients and states on the host), optim_cpu_offload (true: the
 * states on the GPU for the step only), context parallelism.
 */
function precisionAndSharding(c: PrimeCtx): void {
  const { f, m, at } = c;
  const dtype = f.get(`${m}optimization_dtype`);
  if (dtype && (dtype.value === 'float32' || dtype.value === 'bfloat16'))
    f.add('weightsDtype', dtype, dtype.value === 'float32' ? 'fp32' : 'bf16');
  else if (dtype) f.invalid(dtype, '"float32" or "bfloat16"');
  else f.assume('weightsDtype', at, 'fp32', `model.optimization_dtype defaults to float32 (${CONFIGS}/trainer.py)`);
  f.assume(
    'mixedPrecision',
    dtype ?? at,
    'bf16',
    `FSDP2's MixedPrecisionPolicy(param_dtype=bfloat16) (${MODEL_PY} setup_fsdp)`,
  );
  const reshard = f.get(`${m}reshard_after_forward`);
  const replicate = f.get(`${m}dp_replicate`);
  const hsdp = typeof replicate?.value === 'number' && replicate.value > 1;
  const mode = hsdp ? 'hybrid_shard' : reshard?.value === false ? 'shard_grad_op' : 'full_shard';
  const units = `fully_shard over every block, the embeddings and the final norm with the head kept gathered (${MODEL_PY} setup_fsdp)`;
  if (reshard && !hsdp) f.add('fsdp', reshard, mode);
  else if (hsdp) f.add('fsdp', replicate!, mode);
  else f.assume('fsdp', at, mode, units);
  f.assume('fsdpVersion', at, 2, units);
  f.assume('fsdpShardEmbeddings', at, true, units);
  f.assume('fsdpTailUnit', at, true, units);
  const offload = f.get(`${m}fsdp_cpu_offload`);
  if (offload?.value === true) f.add('fsdpOffload', offload, true);
  const states = f.get(`${m}optim_cpu_offload`);
  if (states && typeof states.value === 'boolean')
    f.add('optimizerStatesGpu', states, states.value ? 'step' : 'always');
  else if (offload?.value !== true)
    f.assume(
      'optimizerStatesGpu',
      at,
      'step',
      `model.optim_cpu_offload defaults to true: the states on the host but for the step (${CONFIGS}/trainer.py)`,
    );
  const full = f.get(`${m}full_offload`) ?? (c.f.doc.tables.has(`${m}full_offload`) ? at : undefined);
  if (full && full.value !== false)
    f.warn(
      full,
      msg(
        '{0}: the full CPU optimizer offload is estimated as the states on the host but for the step',
        `${m}full_offload`,
      ),
    );
  f.count('contextParallel', `${m}cp`);
}

/**
 * `[model.ac]` (on by default: every block, `freq` 1; `mode = "selective"` checkpoints parts of each block) and
 * activation offloading (on by default); torch.compile of each block (on by default); flash attention.
 */
function checkpointing(c: PrimeCtx): void {
  const { f, m, at } = c;
  const mode = f.get(`${m}ac.mode`);
  const freq = f.get(`${m}ac.freq`);
  const every = typeof freq?.value === 'number' ? freq.value : 1;
  if (mode?.value === 'selective') f.add('gradientCheckpointing', mode, 'selective');
  else if (every === 1) {
    if (freq) f.add('gradientCheckpointing', freq, 'full');
    else
      f.assume(
        'gradientCheckpointing',
        at,
        'full',
        `model.ac checkpoints every block by default (${CONFIGS}/trainer.py)`,
      );
  } else if (every === 2) {
    f.warn(
      freq!,
      msg('{0}: every second block checkpointed is estimated as op-level selective checkpointing', freq!.path),
    );
    f.add('gradientCheckpointing', freq!, 'selective');
  } else {
    f.warn(
      freq!,
      msg('{0}: one block in {1} checkpointed is estimated without checkpointing (an upper bound)', freq!.path, every),
    );
    f.add('gradientCheckpointing', freq!, 'none');
  }
  f.assume(
    'activationOffloading',
    at,
    true,
    `model.ac_offloading is on by default: checkpointed blocks' inputs on the host (${CONFIGS}/trainer.py)`,
  );
  f.assume('compile', at, true, `model.compile compiles each block by default (${CONFIGS}/trainer.py)`);
  f.assume(
    'attention',
    at,
    'flash',
    `model.attn "auto" is FlashAttention 3 on Hopper, 4 on Blackwell (${CONFIGS}/trainer.py)`,
  );
}

/** `[model.lora]`: LoRA of rank 16, alpha 32 by default on every linear layer (the default target list). */
function adapters(c: PrimeCtx): void {
  const { f, m } = c;
  const table = f.doc.tables.get(`${m}lora`);
  const rank = f.get(`${m}lora.rank`);
  if (!table && !rank) return;
  const at = rank ?? f.get(`${m}lora.alpha`) ?? c.at;
  f.add('method', at, 'lora');
  if (!f.count('loraR', `${m}lora.rank`)) f.assume('loraR', at, 16, `lora.rank defaults to 16 (${CONFIGS}/trainer.py)`);
  const alpha = f.get(`${m}lora.alpha`);
  if (alpha && typeof alpha.value === 'number') f.add('loraAlpha', alpha, alpha.value);
  else f.assume('loraAlpha', at, 32, `lora.alpha defaults to 32 (${CONFIGS}/trainer.py)`);
  const targets = f.get(`${m}lora.target_modules`);
  if (targets && Array.isArray(targets.value)) f.add('loraTargets', targets, targets.value.map(String));
  else
    f.assume(
      'loraTargets',
      at,
      'all-linear',
      `lora.target_modules defaults to every projection of attention and the MLP (${CONFIGS}/trainer.py)`,
    );
}

/** `[optim] type` (adamw by default): torch's AdamW, fused unless its states go to the host; Muon; SGD. */
function optimizer(c: PrimeCtx): void {
  const { f } = c;
  const p = c.kind === 'rl' ? 'trainer.optim.' : 'optim.';
  const type = f.get(`${p}type`);
  const name = typeof type?.value === 'string' ? type.value : 'adamw';
  const offloaded = f.get(`${c.m}optim_cpu_offload`)?.value !== false;
  const source = `${PRIME_RL_SOURCE}:src/prime_rl/trainer/optim/__init__.py`;
  const value = { adamw: offloaded ? 'adamw' : 'adamw_fused', muon: 'muon', sgd: 'sgd_momentum' }[name];
  const at = type ?? f.get(`${p}lr`) ?? c.at;
  if (value === undefined)
    f.add('optimizer', at, { unknown: `prime-rl's ${name} optimizer is not one VRAM Lens models` });
  else if (type) f.add('optimizer', type, value);
  else
    f.assume(
      'optimizer',
      at,
      value,
      `optim.type defaults to adamw: torch's AdamW, fused only without optim_cpu_offload (${source})`,
    );
}

/**
 * The RL loss takes each token's log-probability through the fused LM head (fused_lm_head_token_chunk_size 8192, or
 * "disabled"): no logits kept. The SFT trainer runs the plain head (it disables the fused one).
 */
function loss(c: PrimeCtx): void {
  const { f, at } = c;
  const chunk = f.get(`${c.m}fused_lm_head_token_chunk_size`);
  const head = `${PRIME_RL_SOURCE}:src/prime_rl/trainer/models/layers/lm_head.py`;
  if (c.kind === 'sft')
    return f.assume('loss', at, 'full', `prime-rl's SFT trainer runs the plain LM head and cross-entropy (${head})`);
  if (chunk?.value === 'disabled') return f.add('loss', chunk, 'full');
  f.assume(
    'loss',
    chunk ?? at,
    'fused',
    `the fused LM head computes log-probabilities chunk by chunk, no logits kept (${head})`,
  );
}
