// llm-foundry's training YAML (mosaicml/llm-foundry scripts/train/yamls/**, run by `composer train/train.py <yaml>`),
// also as the `parameters:` of a MosaicML platform run (mcli), whose `compute.gpus` are the run's GPUs and whose
// parameters are the YAML train.py reads (their `${...}` interpolations resolve there). Read: the Hugging Face model
// (`model.name: hf_causal_lm`, `pretrained_model_name_or_path`, FlashAttention 2, a PEFT LoRA `peft_config`),
// `max_seq_len`, `global_train_batch_size` over the GPUs, `device_train_microbatch_size`, Composer's `precision`, the
// `fsdp_config` (FSDP1: sharding, mixed precision, activation checkpointing, reentrant or not, CPU offload) and the
// optimizer. Sources: mosaicml/llm-foundry@v0.21.0 llmfoundry/utils/config_utils.py, models/hf/hf_causal_lm.py;
// mosaicml/composer's FSDP config and DecoupledAdamW. Pure: no I/O.
import { about, msg, type ConfigFacts } from '../facts';
import { YamlCtx, guarded, precisionByName } from './common';
import {
  asBool,
  asCheckpointing,
  asPosInt,
  asSharding,
  attentionOf,
  boolOf,
  Invalid,
  listOf,
  numOf,
  strOf,
  type Entry,
} from './values';

/** Keys of an llm-foundry training YAML at its top level. */
const LLMFOUNDRY = [
  'global_train_batch_size',
  'device_train_microbatch_size',
  'device_eval_batch_size',
  'max_seq_len',
  'fsdp_config',
  'train_loader',
  'eval_loader',
  'max_duration',
  'precision',
];

/**
 * Whether top-level keys are an llm-foundry training YAML's (its batch keys beside a model and a train loader), or a
 * MosaicML platform run's whose command runs llm-foundry (`parameters`, `command`, and `composer` or llm-foundry in it).
 */
export function isLlmFoundryYaml(keys: ReadonlySet<string>, text: string): boolean {
  if (keys.has('parameters') && keys.has('command') && /\bcomposer\s+\S*train\.py|llm-?foundry/.test(text)) return true;
  const n = LLMFOUNDRY.filter((k) => keys.has(k)).length;
  return (
    keys.has('model') && (keys.has('global_train_batch_size') || keys.has('device_train_microbatch_size')) && n >= 3
  );
}

/** Composer's `precision`: [weights dtype, autocast dtype]. */
const PRECISION: Readonly<Record<string, readonly ['fp32', 'bf16' | 'fp16' | 'none']>> = {
  amp_bf16: ['fp32', 'bf16'],
  amp_fp16: ['fp32', 'fp16'],
  fp32: ['fp32', 'none'],
};

/** llm-foundry's optimizer names (llmfoundry/registry optimizers, Composer's) to the setup's. */
const OPTIMIZERS: Readonly<Record<string, string>> = {
  // Composer's DecoupledAdamW steps one parameter at a time (its own adamw loop): the per-tensor temporaries.
  decoupled_adamw: 'adamw_hf',
  adamw: 'adamw',
  adam: 'adamw',
  decoupled_lionw: 'lion',
  sgd: 'sgd',
};

export function analyzeLlmFoundryYaml(text: string): ConfigFacts {
  // A platform run keeps the training YAML under `parameters:`; its interpolations resolve from there.
  const mcli = /^parameters\s*:/m.test(text) && !/^global_train_batch_size\s*:/m.test(text);
  const ctx = new YamlCtx(text, {
    format: 'llmfoundry-yaml',
    tool: 'llm-foundry',
    omegaconf: true,
    ...(mcli ? { interpolationRoot: 'parameters' } : {}),
  });
  return guarded(ctx, () => analyze(ctx, mcli));
}

function analyze(ctx: YamlCtx, mcli: boolean): void {
  const top = ctx.top();
  const root = mcli ? ctx.sub(top.get('parameters')) : top;
  if (mcli) ctx.put('worldSize', ctx.sub(top.get('compute')).get('gpus'), asPosInt);
  model(ctx, ctx.sub(root.get('model')));
  ctx.put('seqLen', root.get('max_seq_len'), asPosInt);
  ctx.put('trainBatchSize', root.get('global_train_batch_size'), asPosInt);
  microBatch(ctx, root.get('device_train_microbatch_size'));
  precision(ctx, root.get('precision'));
  fsdp(ctx, root.get('fsdp_config'));
  const opt = ctx.sub(root.get('optimizer')).get('name');
  ctx.put('optimizer', opt, (v) => {
    const s = strOf(v)?.trim().toLowerCase() ?? '';
    return OPTIMIZERS[s] ?? s;
  });
}

/** The model: a Hugging Face checkpoint (hf_causal_lm), its attention and a PEFT LoRA config; MPT by dimensions is not. */
function model(ctx: YamlCtx, m: ReadonlyMap<string, Entry>): void {
  const name = m.get('name');
  const kind = name ? strOf(ctx.view(name))?.trim() : undefined;
  if (kind !== undefined && !/^hf_/.test(kind)) {
    ctx.add('model', name!, {
      unknown: `llm-foundry's ${kind} builds its model from the config's dimensions, not read`,
    });
    return;
  }
  ctx.put('model', m.get('pretrained_model_name_or_path'), (v) => strOf(v)?.trim() || undefined);
  const flash = m.get('use_flash_attention_2');
  if (flash && boolOf(ctx.view(flash)) === true) ctx.add('attention', flash, 'flash');
  ctx.put('attention', m.get('attn_implementation'), (v) => attentionOf(strOf(v) ?? ''));
  const peft = ctx.sub(m.get('peft_config'));
  const type = peft.get('peft_type');
  if (!type) return;
  if (strOf(ctx.view(type))?.trim().toUpperCase() !== 'LORA') {
    ctx.problem('not-modeled', 'warning', msg('{0}: only LoRA is read', type.path), type.valueSpan, type.path);
    return;
  }
  ctx.add('method', type, 'lora');
  ctx.put('loraR', peft.get('r'), asPosInt);
  ctx.put('loraAlpha', peft.get('lora_alpha'), (v) => numOf(v));
  ctx.put('loraDropout', peft.get('lora_dropout'), (v) => numOf(v));
  ctx.put('loraTargets', peft.get('target_modules'), (v) => {
    const s = strOf(v)?.trim();
    return s === 'all-linear'
      ? 'all-linear'
      : (listOf(v) ?? new Invalid(about('{0}: expected a list of module names')));
  });
}

/**
 * `device_train_microbatch_size`: a number, or `auto`, which Composer searches at run time: it starts at the whole
 * per-GPU batch (global_train_batch_size / GPUs, what the estimate then takes) and halves it after each out-of-memory.
 */
function microBatch(ctx: YamlCtx, e: Entry | undefined): void {
  if (!e) return;
  if (strOf(ctx.view(e))?.trim() === 'auto') {
    ctx.problem(
      'not-static',
      'info',
      msg(
        '{0}: auto: Composer starts at the whole per-GPU batch (global_train_batch_size / GPUs, estimated here) and halves it after each out-of-memory',
        e.path,
      ),
      e.valueSpan,
      e.path,
    );
    ctx.add('microBatchSize', e, { unknown: 'Composer searches the micro-batch at run time (auto)' });
    return;
  }
  ctx.put('microBatchSize', e, asPosInt);
}

function precision(ctx: YamlCtx, e: Entry | undefined): void {
  precisionByName(ctx, e, PRECISION, 'amp_bf16, amp_fp16 or fp32');
}

/**
 * `fsdp_config` (Composer's FSDP1): FULL_SHARD unless it says otherwise; `mixed_precision: PURE` gathers the parameters
 * in the autocast dtype as the estimate's FSDP mixed precision does, DEFAULT and FULL keep them in fp32 (said, and
 * estimated as PURE); checkpointing (reentrant unless `activation_checkpointing_reentrant: false`, Composer's default
 * true), its CPU offload, and the parameters' CPU offload.
 */
function fsdp(ctx: YamlCtx, e: Entry | undefined): void {
  const c = ctx.sub(e);
  if (!e || ctx.view(e).t !== 'map') return;
  const sharding = c.get('sharding_strategy');
  if (sharding) ctx.put('fsdp', sharding, asSharding);
  else ctx.add('fsdp', e, 'full_shard');
  ctx.add('fsdpVersion', e, 1);
  const mp = c.get('mixed_precision');
  const mode = mp ? strOf(ctx.view(mp))?.trim().toUpperCase() : 'DEFAULT';
  if (mode !== 'PURE')
    ctx.problem(
      'not-modeled',
      'warning',
      msg(
        '{0}: {1} keeps the gathered parameters in fp32; the estimate gathers them in the autocast dtype, as PURE does',
        'fsdp_config.mixed_precision',
        mode ?? 'DEFAULT',
      ),
      (mp ?? e).valueSpan,
      'fsdp_config.mixed_precision',
    );
  const ckpt = c.get('activation_checkpointing');
  ctx.put('gradientCheckpointing', ckpt, asCheckpointing);
  if (ckpt && boolOf(ctx.view(ckpt)) === true) {
    const reentrant = c.get('activation_checkpointing_reentrant');
    if (reentrant) ctx.put('checkpointReentrant', reentrant, asBool);
    else ctx.add('checkpointReentrant', ckpt, true);
  }
  ctx.put('activationOffloading', c.get('activation_cpu_offload'), asBool);
  const offload = c.get('cpu_offload');
  if (offload && boolOf(ctx.view(offload)) === true) ctx.add('fsdpOffload', offload, true);
}
