// Oumi's training config (oumi-ai/oumi `configs/recipes/**/*_train.yaml`, run by `oumi train -c x.yaml` or `oumi
// distributed torchrun -m oumi train -c x.yaml`): `model` (model_name, model_max_length, torch_dtype_str,
// attn_implementation, enable_liger_kernel), `training` (trainer_type, the HF / TRL trainer it runs; the batch, the
// accumulation, checkpointing, the optimizer, mixed_precision_dtype, compile, use_peft), `peft` (LoRA and q_lora's
// bitsandbytes quantization) and `fsdp` (FSDP1 through Accelerate's plugin). Oumi's own defaults where it leaves
// transformers' and PEFT's (lora_alpha 8, bnb_4bit_quant_type fp4) are facts with their source. Source:
// oumi-ai/oumi@d8ed077 src/oumi/core/configs/params/{model,training,peft,fsdp}_params.py. Pure: no I/O.
import { about, msg, normalizeOptimizer, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import {
  asBackwardPrefetch,
  asBool,
  asCheckpointing,
  asPosInt,
  asSharding,
  attentionOf,
  boolOf,
  describe,
  dtypeOf,
  Invalid,
  listOf,
  numOf,
  optimizerOf,
  strOf,
  type Entry,
} from './values';

const PARAMS = 'oumi-ai/oumi@d8ed077:src/oumi/core/configs/params';

/**
 * The sections of Oumi's TrainingConfig (oumi/core/configs/training_config.py): a file with another top-level key is no
 * Oumi config, which OmegaConf's merge into the structured schema refuses (a project's own YAML with `model:` and
 * `training:` beside `lora:` or `optimization:`).
 */
const OUMI_SECTIONS = new Set(['data', 'model', 'training', 'peft', 'fsdp', 'deepspeed']);

/** Whether top-level keys are an Oumi training config: `model` with `model_name`, and `training` with trainer keys. */
export function isOumiYaml(keys: ReadonlySet<string>, text: string): boolean {
  return (
    keys.has('model') &&
    keys.has('training') &&
    [...keys].every((k) => OUMI_SECTIONS.has(k)) &&
    /^\s+model_name\s*:/m.test(text) &&
    /^\s+(trainer_type|per_device_train_batch_size|enable_gradient_checkpointing|mixed_precision_dtype)\s*:/m.test(text)
  );
}

/** trainer_type values (oumi TrainerType) and the tool whose trainer runs. */
const TRAINERS: Readonly<Record<string, 'trl' | 'hf-trainer' | 'oumi'>> = {
  TRL_SFT: 'trl',
  TRL_DPO: 'trl',
  TRL_GRPO: 'trl',
  TRL_KTO: 'trl',
  HF: 'hf-trainer',
  OUMI: 'oumi',
};

export function analyzeOumiYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'oumi-yaml', tool: 'oumi', omegaconf: true });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  model(ctx, ctx.sub(top.get('model')));
  const t = ctx.sub(top.get('training'));
  const trainer = t.get('trainer_type');
  const kind = trainer ? strOf(ctx.view(trainer))?.trim().toUpperCase() : 'HF';
  if (trainer && kind === 'TRL_DPO') ctx.add('preference', trainer, 'dpo');
  if (trainer && kind === 'TRL_GRPO') ctx.add('rollout', trainer, 'grpo');
  const runs = kind !== undefined ? TRAINERS[kind] : undefined;
  // The trainer Oumi runs: its defaults apply after Oumi's own.
  ctx.tools.push(runs === 'trl' ? 'trl' : 'hf-trainer');
  if (trainer && kind !== undefined && runs === undefined)
    ctx.problem(
      'not-modeled',
      'warning',
      msg('{0}: {1} is estimated as the HF Trainer', trainer.path, kind),
      trainer.valueSpan,
      trainer.path,
    );
  ctx.put('microBatchSize', t.get('per_device_train_batch_size'), asPosInt);
  ctx.put('gradientAccumulationSteps', t.get('gradient_accumulation_steps'), asPosInt);
  const ckpt = t.get('enable_gradient_checkpointing');
  ctx.put('gradientCheckpointing', ckpt, asCheckpointing);
  const reentrant = ctx.sub(t.get('gradient_checkpointing_kwargs')).get('use_reentrant');
  ctx.put('checkpointReentrant', reentrant, asBool);
  ctx.put('optimizer', t.get('optimizer'), (v) => {
    const s = strOf(v)?.trim();
    return s ? optimizerOf(s, normalizeOptimizer) : undefined;
  });
  ctx.put('mixedPrecision', t.get('mixed_precision_dtype'), (v) => {
    const s = strOf(v)?.trim().toUpperCase();
    return s === 'BF16' ? 'bf16' : s === 'FP16' ? 'fp16' : s === 'NONE' ? 'none' : undefined;
  });
  ctx.put('compile', t.get('compile'), asBool);
  const usePeft = t.get('use_peft');
  if (usePeft && boolOf(ctx.view(usePeft)) === true) peft(ctx, ctx.sub(top.get('peft')), usePeft);
  const compiled = t.get('compile');
  const peftUncompiled =
    usePeft !== undefined && boolOf(ctx.view(usePeft)) === true && !(compiled && boolOf(ctx.view(compiled)) === true);
  fsdp(ctx, ctx.sub(top.get('fsdp')), peftUncompiled);
}

/** `model`: the Hub id, the length, the weights' dtype ("auto", the default: the checkpoint's), attention, Liger. */
function model(ctx: YamlCtx, m: ReadonlyMap<string, Entry>): void {
  ctx.put('model', m.get('model_name'), (v) => strOf(v)?.trim() || undefined);
  ctx.put('seqLen', m.get('model_max_length'), asPosInt);
  ctx.put('weightsDtype', m.get('torch_dtype_str'), (v) => {
    const s = strOf(v)?.trim().toLowerCase() ?? '';
    if (s === 'auto') return { unknown: 'auto: the dtype stored in the checkpoint config' };
    return dtypeOf(s) ?? new Invalid(about('{0}: expected bfloat16, float16 or float32, found {1}', describe(v)));
  });
  ctx.put('attention', m.get('attn_implementation'), (v) => attentionOf(strOf(v) ?? '') ?? undefined);
  const liger = m.get('enable_liger_kernel');
  if (liger && boolOf(ctx.view(liger)) === true) {
    ctx.add('kernels', liger, 'liger');
    ctx.add('loss', liger, 'fused');
  }
}

/** `peft` with `training.use_peft`: LoRA, or QLoRA with `q_lora` (4 or 8 bits; fp4 unless bnb_4bit_quant_type). */
function peft(ctx: YamlCtx, p: ReadonlyMap<string, Entry>, on: Entry): void {
  const q = p.get('q_lora');
  const quantized = q !== undefined && boolOf(ctx.view(q)) === true;
  ctx.add('method', quantized ? q! : on, quantized ? 'qlora' : 'lora');
  const r = p.get('lora_r');
  if (r) ctx.put('loraR', r, asPosInt);
  else ctx.addDefault('loraR', on, 8, `Oumi lora_r defaults to 8 (${PARAMS}/peft_params.py)`);
  const alpha = p.get('lora_alpha');
  if (alpha) ctx.put('loraAlpha', alpha, (v) => numOf(v));
  else ctx.addDefault('loraAlpha', on, 8, `Oumi lora_alpha defaults to 8 (${PARAMS}/peft_params.py)`);
  const dropout = p.get('lora_dropout');
  if (dropout) ctx.put('loraDropout', dropout, (v) => numOf(v));
  else ctx.addDefault('loraDropout', on, 0, `Oumi lora_dropout defaults to 0.0 (${PARAMS}/peft_params.py)`);
  ctx.put('loraTargets', p.get('lora_target_modules'), (v) => listOf(v) ?? undefined);
  if (!quantized) return;
  const bits = p.get('q_lora_bits');
  if (bits) ctx.put('quantBits', bits, (v) => (numOf(v) === 4 || numOf(v) === 8 ? numOf(v) : undefined));
  else ctx.addDefault('quantBits', q!, 4, `Oumi q_lora_bits defaults to 4 (${PARAMS}/peft_params.py)`);
  const qtype = p.get('bnb_4bit_quant_type');
  if (qtype)
    ctx.put('quantType', qtype, (v) =>
      strOf(v)?.trim() === 'nf4' ? 'nf4' : strOf(v)?.trim() === 'fp4' ? 'fp4' : undefined,
    );
  else ctx.addDefault('quantType', q!, 'fp4', `Oumi bnb_4bit_quant_type defaults to "fp4" (${PARAMS}/peft_params.py)`);
  ctx.put('doubleQuant', p.get('use_bnb_nested_quant'), asBool);
}

/**
 * `fsdp` with `enable_fsdp`: FSDP1 (Accelerate's plugin), its sharding, CPU offload, backward prefetch and
 * use_orig_params. Oumi hands the last two to Accelerate as FSDP_BACKWARD_PREFETCH and FSDP_USE_ORIG_PARAMS
 * (src/oumi/core/distributed.py), with defaults of its own: BACKWARD_PRE, and use_orig_params false for PEFT without
 * compile (distributed.py _get_use_orig_params), where Accelerate's plugin would take no prefetch and true.
 */
function fsdp(ctx: YamlCtx, f: ReadonlyMap<string, Entry>, peftUncompiled: boolean): void {
  const on = f.get('enable_fsdp');
  if (!on || boolOf(ctx.view(on)) !== true) return;
  const sharding = f.get('sharding_strategy');
  if (sharding) ctx.put('fsdp', sharding, asSharding);
  else ctx.add('fsdp', on, 'full_shard');
  ctx.add('fsdpVersion', on, 1);
  ctx.put('fsdpOffload', f.get('cpu_offload'), asBool);
  const prefetch = f.get('backward_prefetch');
  if (prefetch) ctx.put('fsdpBackwardPrefetch', prefetch, asBackwardPrefetch);
  else
    ctx.addDefault(
      'fsdpBackwardPrefetch',
      on,
      'pre',
      `Oumi backward_prefetch defaults to BACKWARD_PRE (${PARAMS}/fsdp_params.py)`,
    );
  const orig = f.get('use_orig_params');
  if (orig) ctx.put('fsdpUseOrigParams', orig, asBool);
  else if (peftUncompiled)
    ctx.addDefault(
      'fsdpUseOrigParams',
      on,
      false,
      'Oumi turns use_orig_params off for PEFT training without compile (oumi-ai/oumi@d8ed077:src/oumi/core/distributed.py ' +
        '_get_use_orig_params)',
    );
}
