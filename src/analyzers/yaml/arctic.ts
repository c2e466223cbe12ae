// ArcticTraining's training config (snowflakedb/ArcticTraining, run by `arctic_training run.yml [--num_gpus N]`: the
// DeepSpeed launcher starting its trainer on every GPU): the trainer `type` (sft unless set; causal, dpo), the batch
// and accumulation, `sequence_parallel_size` (DeepSpeed Ulysses), `activation_checkpoint_cpu_offload`,
// `tiled_mlp_compute`, `model` (name_or_path, dtype, attn_implementation, disable_activation_checkpoint, the Liger
// factory `type: liger`, peft_config), `data` (max_length, packing) and the inline `deepspeed` config, to which the
// trainer adds what it leaves out. ArcticTraining's own defaults are facts with their source where they follow from a
// key of the file; the rest are the tool's defaults (analyzers/defaults.ts). Source: snowflakedb/ArcticTraining@b28638e
// arctic_training/config/{trainer,model,data}.py, model/{hf,liger}_factory.py, trainer/sft_trainer.py,
// data/sft_factory.py. Pure: no I/O.
// Docs: docs/formats.md
import { about, msg, normalizeOptimizer, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { peftConfigMapping } from './peft-config';
import { configOverrides } from './config-overrides';
import {
  asBool,
  asPosInt,
  attentionOf,
  boolOf,
  describe,
  dtypeOf,
  Invalid,
  numOf,
  optimizerOf,
  strOf,
  type Conv,
  type Entry,
} from './values';

const SRC = 'snowflakedb/ArcticTraining@b28638e:arctic_training';

/**
 * Whether a YAML is an ArcticTraining config: `model:` with `name_or_path` and `data:` with `sources` (its
 * TrainerConfig's two required sections, in its own spelling), beside a key of its trainer.
 */
export function isArcticYaml(keys: ReadonlySet<string>, text: string): boolean {
  return (
    keys.has('model') &&
    keys.has('data') &&
    sectionHas('model', 'name_or_path').test(text) &&
    sectionHas('data', 'sources').test(text) &&
    TRAINER_KEYS.some((k) => keys.has(k))
  );
}

/**
 * A top-level `section:` whose block holds `key:` at some depth. Each line of the block is one of three disjoint kinds
 * (indented text, blank, a comment), so a block without the key is rejected in one pass, however long.
 */
function sectionHas(section: string, key: string): RegExp {
  const line = String.raw`(?:[ \t]+\S[^\r\n]*|[ \t]*|#[^\r\n]*)\r?\n`;
  return new RegExp(String.raw`^${section}:[ \t]*(?:#[^\r\n]*)?\r?\n(?:${line})*?[ \t]+${key}[ \t]*:`, 'm');
}

/** Top-level keys of ArcticTraining's TrainerConfig beside its model and data (config/trainer.py). */
const TRAINER_KEYS = [
  'type',
  'code',
  'micro_batch_size',
  'gradient_accumulation_steps',
  'sequence_parallel_size',
  'expert_parallel_size',
  'activation_checkpoint_cpu_offload',
  'tiled_mlp_compute',
  'epochs',
  'exit_iteration',
  'min_iterations',
  'train_iters',
  'deepspeed',
  'optimizer',
  'scheduler',
  'tokenizer',
  'logger',
  'wandb',
  'checkpoint',
];

export function analyzeArcticYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'arctic-yaml', tool: 'arctic-training', omegaconf: false });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  const modelEntry = top.get('model');
  trainer(ctx, top.get('type'), top.get('ref_model'));
  ctx.put('microBatchSize', top.get('micro_batch_size'), asPosInt);
  ctx.put('gradientAccumulationSteps', top.get('gradient_accumulation_steps'), asPosInt);
  const sp = top.get('sequence_parallel_size');
  ctx.put('contextParallel', sp, asPosInt);
  ctx.put('expertParallel', top.get('expert_parallel_size'), asPosInt);
  ctx.put('activationOffloading', top.get('activation_checkpoint_cpu_offload'), asBool);
  ctx.put('tiledMlp', top.get('tiled_mlp_compute'), asBool);
  data(ctx, ctx.sub(top.get('data')));
  optimizer(ctx, ctx.sub(top.get('optimizer')).get('type'));
  if (!modelEntry) return;
  const m = ctx.sub(modelEntry);
  const liger = model(ctx, m);
  tiledLoss(ctx, sp, liger);
  deepspeed(ctx, top.get('deepspeed'), m.get('dtype'), modelEntry);
}

/** `type`: sft (the default), causal (the same loss over every token) or dpo; a project's own trainer is said. */
function trainer(ctx: YamlCtx, type: Entry | undefined, refModel: Entry | undefined): void {
  if (!type) return;
  const kind = strOf(ctx.view(type))?.trim();
  if (kind === 'dpo') {
    ctx.add('preference', type, 'dpo');
    if (refModel) ctx.add('referenceModel', refModel, 'given');
  } else if (kind !== undefined && kind !== 'sft' && kind !== 'causal')
    ctx.problem(
      'not-modeled',
      'warning',
      msg(
        "{0}: {1} is a trainer of the project's own (its `code` script); estimated as ArcticTraining's SFT trainer",
        type.path,
        kind,
      ),
      type.valueSpan,
      type.path,
    );
}

/**
 * `model`: the Hub id or path, the weights' dtype, attention, checkpointing (on unless disable_activation_checkpoint:
 * hf_factory.py post_create_model_callback), Liger's model factory (its fused linear cross-entropy keeps no logits)
 * and a PEFT config. Returns whether the Liger factory builds the model.
 */
function model(ctx: YamlCtx, m: ReadonlyMap<string, Entry>): boolean {
  ctx.put('model', m.get('name_or_path'), (v) => strOf(v)?.trim() || undefined);
  ctx.put('weightsDtype', m.get('dtype'), asDtype);
  ctx.put('attention', m.get('attn_implementation'), (v) => attentionOf(strOf(v) ?? '') ?? undefined);
  ctx.put('gradientCheckpointing', m.get('disable_activation_checkpoint'), (v) =>
    boolOf(v) === undefined ? asBool(v) : boolOf(v) ? 'none' : 'full',
  );
  peftConfigMapping(ctx, ctx.sub(m.get('peft_config')));
  configOverrides(ctx, m.get('hf_config_kwargs'));
  const type = m.get('type');
  const liger = type !== undefined && strOf(ctx.view(type))?.trim() === 'liger';
  if (liger && type) {
    ctx.add('kernels', type, 'liger');
    ctx.add('loss', type, 'fused');
  }
  return liger;
}

/** ArcticTraining's DType: torch's names and their short forms (config/enums.py). */
const asDtype: Conv = (v) =>
  dtypeOf(
    strOf(v)
      ?.trim()
      .replace(/^torch\./, '') ?? '',
  ) ?? new Invalid(about('{0}: expected bf16, fp16 or fp32, found {1}', describe(v)));

/**
 * Sequence parallelism without Liger: the SFT trainer computes the head and the loss in shards of about 1 GiB of fp32
 * logits, recomputed in backward (DeepSpeed TiledFusedLogitsLoss, trainer/sft_trainer.py loss): estimated as a fused
 * loss, which keeps no logits.
 */
function tiledLoss(ctx: YamlCtx, sp: Entry | undefined, liger: boolean): void {
  if (liger || !sp) return;
  const n = numOf(ctx.view(sp));
  if (n === undefined || n <= 1) return;
  ctx.addDefault(
    'loss',
    sp,
    'fused',
    `with sequence_parallel_size > 1 ArcticTraining's SFT trainer computes the logits and the loss in shards of ` +
      `about 1 GiB of fp32 logits, recomputed in backward (DeepSpeed TiledFusedLogitsLoss; ${SRC}/trainer/sft_trainer.py): ` +
      'estimated as a fused loss, without that one shard',
  );
}

/**
 * `data`: max_length, a HumanInt ("128k", "32Ki", "1e6"); samples are padded to their batch's longest, rounded up to
 * div_length (pad_to "div_length"), unless packed or padded to max_length (data/sft_factory.py).
 */
function data(ctx: YamlCtx, d: ReadonlyMap<string, Entry>): void {
  ctx.put('seqLen', d.get('max_length'), asHumanInt);
  const pack = d.get('pack_samples');
  if (pack && boolOf(ctx.view(pack)) === true) ctx.add('batchLengths', pack, 'fixed');
  const padTo = d.get('pad_to');
  if (padTo && strOf(ctx.view(padTo))?.trim() === 'max_length') ctx.add('batchLengths', padTo, 'fixed');
}

/** ArcticTraining's HumanInt (config/utils.py parse_human_val): 1_000, 32k, 1M, 64Ki, 1e6, 2^17. */
export const asHumanInt: Conv = (v) => {
  const n = numOf(v) ?? humanNumber(strOf(v) ?? '');
  if (n === undefined) return new Invalid(about('{0}: expected a positive integer, found {1}', describe(v)));
  if (!Number.isInteger(n) || n <= 0)
    return new Invalid(about('{0}: must be a positive integer, found {1}', describe(v)));
  return n;
};

const SUFFIXES: Readonly<Record<string, number>> = {
  k: 1e3,
  m: 1e6,
  b: 1e9,
  t: 1e12,
  ki: 2 ** 10,
  mi: 2 ** 20,
  gi: 2 ** 30,
  ti: 2 ** 40,
};

function humanNumber(raw: string): number | undefined {
  const s = raw.replace(/_/g, '').trim().toLowerCase();
  const pow = /^(-?\d+\.?\d?)\^(-?\d+\.?\d?)$/.exec(s);
  if (pow) return Math.sign(Number(pow[1])) * Math.abs(Number(pow[1])) ** Number(pow[2]);
  const suffix = /^(-?\d+\.?\d?)(ki|mi|gi|ti|k|m|b|t)$/.exec(s);
  if (suffix) return Math.round(Number(suffix[1]) * SUFFIXES[suffix[2]]);
  return undefined;
}

/** optimizer.type: DeepSpeed's FusedAdam (the SFT trainer's default) or DeepSpeedCPUAdam (optimizer/adam_factory.py). */
function optimizer(ctx: YamlCtx, type: Entry | undefined): void {
  ctx.put('optimizer', type, (v) => {
    const s = strOf(v)?.trim();
    if (!s) return undefined;
    return /^(fused|cpu)_adam(_moe)?$/.test(s) ? 'adamw_fused' : optimizerOf(s, normalizeOptimizer);
  });
}

/**
 * The inline DeepSpeed config and what the trainer adds to it (config/trainer.py build_deepspeed_config): a missing
 * zero_optimization becomes stage 2, and DeepSpeed's bfloat16 (fp16) is switched on when the model's dtype is bf16
 * (fp16) and the config does not say. Its batch keys are overwritten from the trainer's, so they are not read.
 */
function deepspeed(ctx: YamlCtx, e: Entry | undefined, dtype: Entry | undefined, modelEntry: Entry): void {
  const ds = ctx.sub(e);
  if (e) ctx.add('deepspeedConfig', e, '{inline json}');
  const zeroEntry = ds.get('zero_optimization');
  if (!zeroEntry)
    ctx.addDefault(
      'zeroStage',
      e ?? modelEntry,
      2,
      `ArcticTraining fills a missing zero_optimization with stage 2 (${SRC}/config/trainer.py build_deepspeed_config)`,
    );
  else zero(ctx, zeroEntry);
  const bf16 = ds.get('bfloat16') ?? ds.get('bf16');
  const fp16 = ds.get('fp16');
  if (bf16) ctx.put('bf16', ctx.sub(bf16).get('enabled'), asBool);
  if (fp16) ctx.put('fp16', ctx.sub(fp16).get('enabled'), asBool);
  const weights = dtype ? asDtype(ctx.view(dtype)) : 'bf16';
  const note = `ArcticTraining enables DeepSpeed's bfloat16 when model.dtype is bf16, its default (${SRC}/config/trainer.py)`;
  if (!bf16 && weights === 'bf16') {
    if (dtype) ctx.add('bf16', dtype, true);
    else ctx.addDefault('bf16', modelEntry, true, note);
  }
  if (!fp16 && weights === 'fp16' && dtype) ctx.add('fp16', dtype, true);
}

/** zero_optimization: the stage (DeepSpeed's default 0 where the mapping leaves it out) and the offload devices. */
function zero(ctx: YamlCtx, zeroEntry: Entry): void {
  if (!ctx.zeroBlock(zeroEntry).has('stage'))
    ctx.addDefault('zeroStage', zeroEntry, 0, "DeepSpeed's zero_optimization.stage defaults to 0");
}
