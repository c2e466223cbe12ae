// LitGPT's config files (`litgpt finetune_lora|finetune_full|finetune|pretrain --config cfg.yaml`, the config_hub
// YAMLs): the checkpoint or model name, precision, bitsandbytes quantization, devices and nodes, LoRA's switches,
// the `train:` batch and sequence keys and the optimizer, as facts with exact spans. Semantics from
// Lightning-AI/litgpt@2685705 (litgpt/finetune/lora.py setup(), litgpt/finetune/full.py, litgpt/pretrain.py,
// litgpt/args.py TrainArgs, litgpt/utils.py instantiate_bnb_optimizer). Pure: no I/O, no node:* or vscode imports.
import { about, msg, normalizeOptimizer, type ConfigFacts } from '../facts';
import { YamlCtx, guarded, precisionByName } from './common';
import { litgptModelConfig } from './litgpt-model-config';
import {
  Invalid,
  asBool,
  asNonNegNumber,
  asPosInt,
  boolOf,
  describe,
  numOf,
  strOf,
  type Entry,
  type View,
} from './values';

export function analyzeLitgptYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'litgpt-yaml', tool: 'litgpt', omegaconf: false });
  return guarded(ctx, () => analyze(ctx));
}

/**
 * LitGPT's LoRA switches (litgpt/lora.py Config: lora_query ... lora_head) to the Hugging Face module names the
 * estimator's module lists use. LitGPT fuses q, k and v into one `attn.qkv` layer and adds LoRA to the parts that are
 * switched on; the estimator counts the adapter per projection, which is the same parameter count. The switches name
 * roles, not modules: where a model has other names for a role, LITGPT_ROLE_NAMES (core/architecture/litgpt-roles.ts)
 * gives them.
 */
export const LORA_SWITCHES: ReadonlyArray<readonly [string, boolean, readonly string[]]> = [
  ['lora_query', true, ['q_proj']],
  ['lora_key', false, ['k_proj']],
  ['lora_value', true, ['v_proj']],
  ['lora_projection', false, ['o_proj']],
  ['lora_mlp', false, ['gate_proj', 'up_proj', 'down_proj', 'fc1', 'fc2', 'dense_h_to_4h', 'dense_4h_to_h']],
  ['lora_head', false, ['lm_head']],
];

/**
 * The modules the LoRA switches adapt (`on`: a switch's value where the file sets it, else its LitGPT default). Every
 * projection of the blocks (query to MLP) is PEFT's all-linear; lora_head's adapter on the head (r x (hidden + vocab))
 * is then left out, a few million parameters at most.
 */
export function litgptLoraTargets(on: (key: string) => boolean | undefined): string[] | 'all-linear' {
  const targets = LORA_SWITCHES.flatMap(([key, byDefault, names]) => ((on(key) ?? byDefault) ? [...names] : []));
  const all = LORA_SWITCHES.slice(0, 5).every(([, , names]) => names.every((n) => targets.includes(n)));
  return all ? 'all-linear' : targets;
}

/** LitGPT model names (pretrain's `model_name`) whose Hub id is not the name itself, by prefix. */
const MODEL_NAME_PREFIXES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^pythia-/i, 'EleutherAI/'],
  [/^Llama-2-/, 'meta-llama/'],
  [/^(Meta-)?Llama-3/, 'meta-llama/'],
  [/^Qwen/, 'Qwen/'],
  [/^Mistral-/, 'mistralai/'],
  [/^gemma-/, 'google/'],
  [/^phi-/, 'microsoft/'],
];

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  model(ctx, top);
  litgptModelConfig(ctx, top.get('model_config'));
  precision(ctx, top);
  quantize(ctx, top);
  lora(ctx, top);
  const train = ctx.sub(top.get('train'));
  devices(ctx, top, beforeOptimizerArgs(ctx, train));
  ctx.put('microBatchSize', train.get('micro_batch_size'), asPosInt, 'train.micro_batch_size');
  // global_batch_size counts samples between optimizer steps over every data-parallel rank (litgpt/args.py
  // TrainArgs.batch_size / gradient_accumulation_iters): DeepSpeed's train_batch_size.
  // train.global_batch_size: samples per optimizer step over every data-parallel rank (litgpt/args.py TrainArgs
  // gradient_accumulation_iters = global / GPUs // micro), DeepSpeed's train_batch_size: resolve derives the
  // accumulation once the micro-batch and the GPU count are settled (a launch line may change the micro-batch).
  ctx.put('trainBatchSize', train.get('global_batch_size'), asPosInt, 'train.global_batch_size');
  // LitGPT's fine-tuning scripts load the head from its own checkpoint entry (a copy of the embedding for tied Hub
  // models: scripts/convert_hf_checkpoint.py); pretrain ties them when train.tie_embeddings is set.
  const tie = train.get('tie_embeddings');
  if (tie && ctx.view(tie).t !== 'absent') ctx.put('tieEmbeddings', tie, asBool, 'train.tie_embeddings');
  const seq = train.get('max_seq_length');
  if (seq && ctx.view(seq).t === 'absent') {
    // lora.py fit(): model.max_seq_length = min(longest sample, train.max_seq_length or inf).
    ctx.add(
      'seqLen',
      seq,
      { unknown: "unbounded: the longest sample in the dataset (up to the model's context length)" },
      'train.max_seq_length',
    );
  } else {
    ctx.put('seqLen', seq, asPosInt, 'train.max_seq_length');
  }
  optimizer(ctx, top);
  bitsandbytesRelease(ctx, top, train);
}

/** Why a LoRA run of a LitGPT before OptimizerArgs shards with FSDP1, said at `devices`. */
export const litgptFsdp1Note = (oldKey: string): string =>
  `${oldKey} is a TrainArgs key of LitGPT before OptimizerArgs (May 2024), whose finetune_lora shards with Fabric's ` +
  "FSDPStrategy(auto_wrap_policy={Block}): FSDP1 with the adapters in their Block's unit (fully_shard from LitGPT " +
  '0.5.11, Lightning-AI/litgpt@5ac69b0)';

/** A `train:` key of TrainArgs that OptimizerArgs replaced: the config was written for a LitGPT before May 2024. */
function beforeOptimizerArgs(ctx: YamlCtx, train: Map<string, Entry>): Entry | undefined {
  return TRAIN_OPTIMIZER_KEYS.map((k) => train.get(k)).find((e) => e && ctx.view(e).t !== 'absent');
}

/** The optimizer-step keys of TrainArgs that OptimizerArgs replaced (Lightning-AI/litgpt@141c8bf, 2024-05-23). */
export const TRAIN_OPTIMIZER_KEYS = ['learning_rate', 'weight_decay', 'beta1', 'beta2'];

/**
 * The bitsandbytes release of a quantized run whose config was written for a LitGPT before OptimizerArgs: its `train:`
 * block sets learning_rate / weight_decay / beta1 / beta2, which TrainArgs had until 2024-05-23 and current LitGPT
 * rejects, so it runs on a LitGPT of that time, which pinned bitsandbytes 0.41.0 then 0.42.0 (pyproject.toml at
 * Lightning-AI/litgpt@2bcb2c3 and @5895df1; 0.44 from December 2024): a release whose 4-bit matmul keeps its input
 * for backward. A pin in the project's dependency files (pipeline.ts withPinnedVersions) wins over it.
 */
function bitsandbytesRelease(ctx: YamlCtx, top: Map<string, Entry>, train: Map<string, Entry>): void {
  if (!ctx.has('quantBits') || top.get('optimizer')) return;
  const old = beforeOptimizerArgs(ctx, train);
  if (!old) return;
  ctx.addDefault(
    'bitsandbytesVersion',
    old,
    '0.42.0',
    `${old.path} is a TrainArgs key of LitGPT before OptimizerArgs (Lightning-AI/litgpt@141c8bf, May 2024), which ` +
      'pinned bitsandbytes==0.42.0 (pyproject.toml at @5895df1): a release whose 4-bit matmul keeps its input',
  );
}

/** The Hub id of a LitGPT checkpoint directory: `checkpoints/<org>/<name>` (LitGPT's download layout), else the path. */
export function litgptCheckpointModel(dir: string): string {
  const s = dir.trim().replace(/\\/g, '/').replace(/\/+$/, '');
  const m = /(?:^|\/)checkpoints\/([^/]+\/[^/]+)$/.exec(s);
  return m?.[1] ?? s;
}

/** The Hub id of a LitGPT model name (pretrain's `model_name`): the organisation's prefix where the name has none. */
export function litgptModelName(name: string): string {
  const s = name.trim();
  const prefix = MODEL_NAME_PREFIXES.find(([re]) => re.test(s));
  return prefix ? `${prefix[1]}${s}` : s;
}

/** `checkpoint_dir: checkpoints/<org>/<name>` (LitGPT's download layout), or pretrain's `model_name`. */
function model(ctx: YamlCtx, top: Map<string, Entry>): void {
  const dir = top.get('checkpoint_dir') ?? top.get('initial_checkpoint_dir');
  const name = top.get('model_name');
  if (dir && ctx.view(dir).t !== 'absent') {
    ctx.put('model', dir, (v) => {
      const s = strOf(v)?.trim();
      if (!s) return new Invalid(about('{0}: expected a checkpoint directory, found {1}', describe(v)));
      return litgptCheckpointModel(s);
    });
    return;
  }
  ctx.put('model', name, (v) => {
    const s = strOf(v)?.trim();
    if (!s) return new Invalid(about('{0}: expected a LitGPT model name, found {1}', describe(v)));
    return litgptModelName(s);
  });
}

/** Fabric's precision names to [weights dtype, autocast dtype]. */
export const LITGPT_PRECISION: Readonly<Record<string, readonly [string, string]>> = {
  'bf16-true': ['bf16', 'none'],
  '16-true': ['fp16', 'none'],
  'bf16-mixed': ['fp32', 'bf16'],
  '16-mixed': ['fp32', 'fp16'],
  '32-true': ['fp32', 'none'],
  '32': ['fp32', 'none'],
  bf16: ['fp32', 'bf16'],
  '16': ['fp32', 'fp16'],
};

/**
 * `precision` is Lightning Fabric's: "bf16-true" / "16-true" keep the weights (and the optimizer state) in 16 bits with
 * no autocast; "bf16-mixed" / "16-mixed" keep fp32 weights under autocast; "32-true" is fp32 throughout.
 */
function precision(ctx: YamlCtx, top: Map<string, Entry>): void {
  precisionByName(ctx, top.get('precision'), LITGPT_PRECISION, 'bf16-true, bf16-mixed, 16-true, 16-mixed or 32-true');
}

/** A `quantize` value: its bits, 4-bit type and double quantization; undefined for anything else. */
export function litgptQuantize(raw: string): { bits: 4 | 8; type?: 'nf4' | 'fp4'; doubleQuant: boolean } | undefined {
  const m = /^bnb\.(nf4|fp4|int8)(-dq|-training)?$/.exec(raw.trim().toLowerCase());
  if (!m) return undefined;
  return m[1] === 'int8'
    ? { bits: 8, doubleQuant: false }
    : { bits: 4, type: m[1] as 'nf4' | 'fp4', doubleQuant: m[2] === '-dq' };
}

/** `quantize: bnb.nf4 | bnb.nf4-dq | bnb.fp4 | bnb.fp4-dq | bnb.int8-training` (Fabric's BitsandbytesPrecision). */
function quantize(ctx: YamlCtx, top: Map<string, Entry>): void {
  const e = top.get('quantize');
  if (!e) return;
  const v = ctx.view(e);
  if (v.t === 'absent') return;
  const q = litgptQuantize(strOf(v) ?? '');
  if (!q) {
    ctx.problem(
      'invalid-value',
      'error',
      msg(
        '{0}: expected bnb.nf4, bnb.nf4-dq, bnb.fp4, bnb.fp4-dq or bnb.int8-training, found {1}',
        e.path,
        describe(v),
      ),
      e.valueSpan,
      e.path,
    );
    return;
  }
  ctx.add('quantBits', e, q.bits);
  if (q.type) ctx.add('quantType', e, q.type);
  ctx.add('doubleQuant', e, q.doubleQuant);
  const p = top.get('precision');
  const ps = p ? (strOf(ctx.view(p))?.trim().toLowerCase() ?? '') : '';
  if (ps.includes('mixed')) {
    ctx.problem(
      'invalid-value',
      'error',
      msg(
        'LitGPT refuses quantization with mixed precision ("Quantization and mixed precision is not supported."): use bf16-true',
      ),
      p!.valueSpan,
      'precision',
    );
  }
}

/** The LoRA keys: present means the config is for `litgpt finetune_lora`; the switches select the projections. Without
 * them the config is a full fine-tune's or a pretraining run's. */
function lora(ctx: YamlCtx, top: Map<string, Entry>): void {
  const keys = ['lora_r', 'lora_alpha', 'lora_dropout', ...LORA_SWITCHES.map(([k]) => k)];
  const first = keys.map((k) => top.get(k)).find((e): e is Entry => e !== undefined);
  if (!first) {
    const anchor = top.get('checkpoint_dir') ?? top.get('model_name');
    if (anchor) ctx.add('method', anchor, 'full', anchor.path);
    return;
  }
  // LoRA, or QLoRA over a 4-bit `quantize` (read before this), as LitGPT's finetune_lora runs it.
  ctx.add('method', first, ctx.get('quantBits')?.value === 4 ? 'qlora' : 'lora', first.path);
  ctx.put('loraR', top.get('lora_r'), asPosInt);
  ctx.put('loraAlpha', top.get('lora_alpha'), asNonNegNumber);
  ctx.put('loraDropout', top.get('lora_dropout'), asNonNegNumber);
  const switches = new Map<string, boolean | undefined>();
  for (const [key] of LORA_SWITCHES) {
    const e = top.get(key);
    const on = e ? boolOf(ctx.view(e)) : undefined;
    if (e && on === undefined && ctx.view(e).t !== 'absent') {
      ctx.problem(
        'invalid-value',
        'error',
        msg('{0}: expected true or false, found {1}', key, describe(ctx.view(e))),
        e.valueSpan,
        key,
      );
    }
    switches.set(key, on);
  }
  ctx.add(
    'loraTargets',
    first,
    litgptLoraTargets((key) => switches.get(key)),
    LORA_SWITCHES.map(([k]) => k)
      .filter((k) => top.has(k))
      .join(', ') || first.path,
  );
}

/**
 * `devices` (an integer, or "auto" / -1 for every GPU of the node) and `num_nodes`. More than one process shards the
 * model: finetune_lora with FSDP2 (fully_shard, LitGPT 0.5.11 on) and finetune_full / pretrain with Fabric's
 * FSDPStrategy, both with every Block checkpointed (activation_checkpointing_policy={Block}, checkpoint_wrapper). A
 * LoRA config written before OptimizerArgs (`old`) ran finetune_lora on Fabric's FSDPStrategy too.
 */
function devices(ctx: YamlCtx, top: Map<string, Entry>, old: Entry | undefined): void {
  const d = top.get('devices');
  const n = top.get('num_nodes');
  ctx.put('nodes', n, asPosInt);
  if (!d) return;
  const v = ctx.view(d);
  const count = deviceCount(v);
  if (count === 'all') {
    ctx.add('gpusPerNode', d, { unknown: 'devices: auto uses every GPU of the node; set vramLens.gpusPerNode' });
    return;
  }
  if (count === undefined) {
    if (v.t !== 'absent')
      ctx.problem(
        'invalid-value',
        'error',
        msg('{0}: expected a number of GPUs or auto, found {1}', 'devices', describe(v)),
        d.valueSpan,
        'devices',
      );
    return;
  }
  ctx.add('gpusPerNode', d, count);
  const nodes = n ? (numOf(ctx.view(n)) ?? 1) : 1;
  if (count * nodes > 1) {
    ctx.add('fsdp', d, 'full_shard');
    // finetune_lora's ModelParallelStrategy calls fully_shard (FSDP2); finetune_full and pretrain use Fabric's
    // FSDPStrategy (FSDP1) (Lightning-AI/litgpt@2685705:litgpt/finetune/lora.py parallelize_fn, finetune/full.py).
    const method = ctx.get('method')?.value;
    const lora = method === 'lora' || method === 'qlora';
    if (lora && old) {
      ctx.addDefault('fsdpVersion', d, 1, litgptFsdp1Note(old.path));
    } else {
      ctx.add('fsdpVersion', d, lora ? 2 : 1);
    }
    ctx.add('gradientCheckpointing', d, 'full');
    if (ctx.has('quantBits')) {
      ctx.problem(
        'invalid-value',
        'error',
        msg(
          'LitGPT trains quantized models on one GPU only ("Quantization is currently not supported for multi-GPU training")',
        ),
        d.valueSpan,
        'devices',
      );
    }
  }
}

function deviceCount(v: View): number | 'all' | undefined {
  if (v.t === 'num') return v.v === -1 ? 'all' : Number.isInteger(v.v) && v.v >= 1 ? v.v : undefined;
  const s = strOf(v)?.trim().toLowerCase();
  if (s === 'auto' || s === '-1') return 'all';
  const k = s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined;
  return k !== undefined && k >= 1 ? k : undefined;
}

/** Why a quantized LitGPT run with no optimizer given steps PagedAdamW (the YAML's and the command line's default). */
export const LITGPT_PAGED_ADAMW =
  'with bitsandbytes quantization LitGPT steps bnb.optim.PagedAdamW for its default AdamW ' +
  '(Lightning-AI/litgpt@2685705:litgpt/utils.py instantiate_bnb_optimizer; finetune/lora.py before OptimizerArgs)';

/**
 * `optimizer: AdamW` or `{class_path: torch.optim.AdamW, init_args: {...}}`. With bitsandbytes quantization LitGPT
 * replaces an AdamW by bnb.optim.PagedAdamW (utils.py instantiate_bnb_optimizer) and refuses any other optimizer.
 */
function optimizer(ctx: YamlCtx, top: Map<string, Entry>): void {
  const e = top.get('optimizer');
  const quantized = ctx.has('quantBits');
  const q = top.get('quantize');
  if (!e && quantized && q) {
    ctx.addDefault('optimizer', q, 'paged_adamw', LITGPT_PAGED_ADAMW);
    return;
  }
  if (!e) return;
  const v = ctx.view(e);
  const classPath = v.t === 'map' ? ctx.sub(e).get('class_path') : undefined;
  const name = (classPath ? strOf(ctx.view(classPath)) : strOf(v))?.trim();
  if (!name) return;
  const where = classPath ?? e;
  const short = name.split('.').pop() ?? name;
  if (quantized) {
    if (!/AdamW/.test(short)) {
      ctx.problem(
        'invalid-value',
        'error',
        msg(
          'LitGPT allows only AdamW with quantization ("The chosen quantization format only supports the AdamW optimizer.")',
        ),
        where.valueSpan,
        where.path,
      );
      return;
    }
    ctx.add('optimizer', where, 'paged_adamw', where.path);
    return;
  }
  ctx.add('optimizer', where, normalizeOptimizer(short), where.path);
}
