// Hugging Face AutoTrain's LLM config (huggingface/autotrain-advanced `configs/llm_finetuning/*.yml`, run by
// `autotrain --config x.yml`): `task` (llm-sft, llm-dpo, llm-orpo, llm-reward, llm-generic), `base_model`, `backend`
// (the machine: a Space, an endpoint or DGX cloud names its GPUs) and `params`, AutoTrain's LLMTrainingParams, which
// its trainers turn into TRL's or the HF Trainer's arguments. AutoTrain's own defaults are facts with their source.
// Source: huggingface/autotrain-advanced@b5c98fb src/autotrain/parser.py, trainers/clm/{params,utils}.py,
// trainers/clm/train_clm_{default,sft,dpo,orpo,reward}.py, commands.py, backends/base.py, requirements.txt. Pure.
// Docs: docs/formats.md
import { about, msg, normalizeOptimizer, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { asBool, asPosInt, boolOf, describe, Invalid, numOf, optimizerOf, strOf, type Entry } from './values';

const SRC = 'huggingface/autotrain-advanced@b5c98fb:src/autotrain';
const PARAMS = `${SRC}/trainers/clm/params.py`;
const UTILS = `${SRC}/trainers/clm/utils.py`;

/** AutoTrain's config sections (parser.py AutoTrainConfigParser): a file with other top-level keys is not one. */
const SECTIONS = new Set(['task', 'base_model', 'project_name', 'log', 'backend', 'data', 'params', 'hub']);

/** Whether top-level keys are an AutoTrain config: `task`, `base_model` and `params`, and nothing AutoTrain does not read. */
export function isAutotrainYaml(keys: ReadonlySet<string>): boolean {
  return keys.has('task') && keys.has('base_model') && keys.has('params') && [...keys].every((k) => SECTIONS.has(k));
}

/** The trainers of an LLM task (parser.py: `llm-<trainer>`, generic as default; `llm` alone runs the default). */
type Trainer = 'default' | 'sft' | 'dpo' | 'orpo' | 'reward';
const TRAINERS = new Set<string>(['default', 'sft', 'dpo', 'orpo', 'reward']);

export function analyzeAutotrainYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'autotrain-yaml', tool: 'autotrain', omegaconf: false });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  const task = top.get('task');
  const taskName = task ? strOf(ctx.view(task))?.trim() : undefined;
  if (task && taskName !== undefined && !/^llm(-|$)/.test(taskName)) {
    ctx.problem(
      'not-modeled',
      'warning',
      msg('{0}: AutoTrain task {1} is not modeled; only its LLM tasks (llm-sft, llm-dpo, ...) are', 'task', taskName),
      task.valueSpan,
      'task',
    );
    return;
  }
  const base = top.get('base_model');
  ctx.put('model', base, (v) => strOf(v)?.trim() || undefined);
  if (base) loaded(ctx, base, task ?? base);
  const p = ctx.sub(top.get('params'));
  const at = top.get('params') ?? task!;
  const trainer = trainerOf(ctx, task, taskName, p.get('trainer'));
  ctx.tools.push(trainer === 'default' ? 'hf-trainer' : 'trl');
  objective(ctx, trainer, task ?? at, p);
  length(ctx, trainer, at, p);
  batch(ctx, p, ctx.sub(top.get('data')).get('valid_split'));
  precision(ctx, at, p);
  peft(ctx, p);
  backend(ctx, top.get('backend'), p.get('distributed_backend'));
  ctx.put('optimizer', p.get('optimizer'), (v) => {
    const s = strOf(v)?.trim();
    return s ? optimizerOf(s, normalizeOptimizer) : undefined;
  });
  const flash = p.get('use_flash_attention_2');
  if (flash && boolOf(ctx.view(flash)) === true) ctx.add('attention', flash, 'flash');
  const unsloth = p.get('unsloth');
  if (unsloth && boolOf(ctx.view(unsloth)) === true)
    ctx.problem(
      'not-modeled',
      'warning',
      msg(
        "{0}: Unsloth's loader (AutoTrain uses it for llama, mistral, gemma and qwen2 under the default and sft " +
          "trainers) is not modeled here; estimated with PEFT's",
        unsloth.path,
      ),
      unsloth.valueSpan,
      unsloth.path,
    );
}

/** The releases AutoTrain's requirements.txt pins: each gives way to a pin of the project's own. */
const PINS = [
  ['transformersVersion', '4.48.0'],
  ['trlVersion', '0.13.0'],
  ['peftVersion', '0.14.0'],
  ['bitsandbytesVersion', '0.45.0'],
] as const;

/**
 * How AutoTrain loads the model: `from_pretrained` without a dtype (utils.py get_model), float32 under the transformers
 * its requirements pin, with the releases they pin.
 */
function loaded(ctx: YamlCtx, base: Entry, at: Entry): void {
  ctx.addDefault(
    'weightsDtype',
    base,
    'fp32',
    `AutoTrain loads the model without a dtype: float32 under transformers 4.48 (${UTILS} get_model)`,
  );
  for (const [key, version] of PINS)
    ctx.addDefault(
      key,
      at,
      version,
      `AutoTrain's requirements.txt pins ${version} (huggingface/autotrain-advanced@b5c98fb)`,
    );
}

/** `params.trainer` (which wins: parser.py copies `params` over what the task gave), else the task's suffix. */
function trainerOf(
  ctx: YamlCtx,
  task: Entry | undefined,
  taskName: string | undefined,
  given: Entry | undefined,
): Trainer {
  const written = given ? strOf(ctx.view(given))?.trim() : undefined;
  const fromTask = taskName?.split('-')[1];
  const name = written ?? (fromTask === 'generic' ? 'default' : (fromTask ?? 'default'));
  if (TRAINERS.has(name)) return name as Trainer;
  const e = given ?? task;
  if (e)
    ctx.problem(
      'invalid-value',
      'warning',
      msg(
        '{0}: {1} is no AutoTrain LLM trainer (default, sft, dpo, orpo, reward); estimated as the default',
        e.path,
        name,
      ),
      e.valueSpan,
      e.path,
    );
  return 'default';
}

/** What the trainer trains: TRL's SFT (packed), DPO (with its reference), ORPO, a reward model; the HF Trainer's LM. */
function objective(ctx: YamlCtx, trainer: Trainer, at: Entry, p: ReadonlyMap<string, Entry>): void {
  if (trainer === 'sft') ctx.add('trlSft', at, true);
  if (trainer === 'dpo') {
    ctx.add('preference', at, 'dpo');
    // With PEFT the model with its adapters off is the reference and model_ref is not loaded (train_clm_dpo.py).
    const ref = p.get('model_ref');
    if (ref && strOf(ctx.view(ref)) && !isOn(ctx, p.get('peft'))) ctx.add('referenceModel', ref, 'given');
  }
  if (trainer === 'orpo') ctx.add('preference', at, 'reference-free');
  if (trainer === 'reward') {
    ctx.add('preference', at, 'reward');
    ctx.addDefault('head', at, 'seq_cls', `AutoTrain's reward trainer loads AutoModelForSequenceClassification`);
    ctx.addDefault(
      'numLabels',
      at,
      1,
      `AutoTrain's reward trainer sets num_labels = 1 (${SRC}/trainers/clm/train_clm_reward.py)`,
    );
  }
  if (trainer === 'dpo' || trainer === 'orpo') {
    const prompt = p.get('max_prompt_length');
    if (prompt) ctx.put('promptLen', prompt, asPosInt);
    else ctx.addDefault('promptLen', at, 128, `AutoTrain max_prompt_length defaults to 128 (${PARAMS})`);
    ctx.put('completionLen', p.get('max_completion_length'), asPosInt);
  }
}

/**
 * The sequence: `block_size` (-1, the default: none), bounded by the tokenizer's length, which AutoTrain sets to
 * `model_max_length` (2048) where the tokenizer's own exceeds 2,048 (utils.py get_tokenizer); none given, that length
 * up to 1,024 (configure_block_size). The SFT trainer packs to it and the default trainer cuts the text into blocks of
 * it: every row that long. The preference trainers pad each batch to its longest pair.
 */
function length(ctx: YamlCtx, trainer: Trainer, at: Entry, p: ReadonlyMap<string, Entry>): void {
  const blockEntry = p.get('block_size');
  const block = blockEntry ? numOf(ctx.view(blockEntry)) : -1;
  const maxEntry = p.get('model_max_length');
  const max = (maxEntry ? numOf(ctx.view(maxEntry)) : undefined) ?? 2048;
  const tokenizer = `the tokenizer's length, model_max_length ${max} (AutoTrain replaces a tokenizer limit above 2,048 by it: ${UTILS} get_tokenizer)`;
  if (blockEntry && block === undefined) ctx.put('seqLen', blockEntry, () => undefined);
  else if (block === undefined || block <= 0) {
    const seq = Math.min(1024, max);
    ctx.addDefault(
      'seqLen',
      blockEntry ?? at,
      seq,
      `block_size unset: ${tokenizer}, up to 1,024 (${UTILS} configure_block_size)`,
    );
  } else if (block > max) {
    ctx.addDefault(
      'seqLen',
      blockEntry!,
      max,
      `block_size ${block} above ${tokenizer}: that length (${UTILS} configure_block_size)`,
    );
  } else ctx.put('seqLen', blockEntry, asPosInt);
  const fixed = trainer === 'sft' || trainer === 'default';
  const how =
    trainer === 'sft'
      ? "AutoTrain's SFT trainer packs to block_size (train_clm_sft.py packing=True)"
      : trainer === 'default'
        ? "AutoTrain's default trainer cuts the text into blocks of block_size (utils.py group_texts)"
        : "TRL's collator pads each batch to its longest pair";
  ctx.addDefault('batchLengths', blockEntry ?? at, fixed ? 'fixed' : 'variable', how);
}

/** `batch_size` (2) per GPU for training and evaluation, `gradient_accumulation` (4); evaluation with a valid_split. */
function batch(ctx: YamlCtx, p: ReadonlyMap<string, Entry>, valid: Entry | undefined): void {
  ctx.put('microBatchSize', p.get('batch_size'), asPosInt);
  ctx.put('evalBatchSize', p.get('batch_size'), asPosInt);
  ctx.put('gradientAccumulationSteps', p.get('gradient_accumulation'), asPosInt);
  ctx.put('autoFindBatchSize', p.get('auto_find_batch_size'), asBool);
  if (valid) ctx.put('evalStrategy', valid, (v) => (v.t === 'str' && v.v.trim() !== '' ? true : undefined));
}

/**
 * `mixed_precision` fp16 / bf16 (None, the default: fp32 throughout); the model is loaded without a dtype, float32
 * on the transformers AutoTrain pins (defaults.ts); checkpointing unless `disable_gradient_checkpointing`, reentrant for
 * a 4/8-bit base (utils.py configure_training_args).
 */
function precision(ctx: YamlCtx, at: Entry, p: ReadonlyMap<string, Entry>): void {
  ctx.put('mixedPrecision', p.get('mixed_precision'), (v) => {
    if (v.t === 'absent') return 'none';
    const s = strOf(v)?.trim().toLowerCase();
    return s === 'bf16' || s === 'fp16'
      ? s
      : s === 'none' || s === 'no'
        ? 'none'
        : new Invalid(about('{0}: expected fp16, bf16 or None, found {1}', describe(v)));
  });
  const off = p.get('disable_gradient_checkpointing');
  ctx.put('gradientCheckpointing', off, (v) => (boolOf(v) === undefined ? asBool(v) : boolOf(v) ? 'none' : 'full'));
  if (off && boolOf(ctx.view(off)) === true) return;
  const kbit = isOn(ctx, p.get('peft')) && quantBits(ctx, p.get('quantization')) !== undefined;
  ctx.addDefault(
    'checkpointReentrant',
    p.get('quantization') ?? at,
    kbit,
    `AutoTrain checkpoints with use_reentrant ${kbit ? 'True for a 4/8-bit base' : 'False'} (${UTILS} configure_training_args)`,
  );
}

const isOn = (ctx: YamlCtx, e: Entry | undefined): boolean => (e ? boolOf(ctx.view(e)) === true : false);

/** `quantization` int4 / int8 (int4 unless set; None for a 16-bit base): the bits, or undefined for none. */
function quantBits(ctx: YamlCtx, e: Entry | undefined): 4 | 8 | undefined {
  if (!e) return 4;
  const v = ctx.view(e);
  const s = v.t === 'absent' ? 'none' : strOf(v)?.trim().toLowerCase();
  return s === 'int4' ? 4 : s === 'int8' ? 8 : undefined;
}

/**
 * `peft` (off by default: a full fine-tune, whatever `quantization` says): LoRA with r 16, alpha 32, dropout 0.05 on
 * `target_modules` (all-linear, or names separated by commas), over a 4-bit NF4 base without double quantization
 * (int4, the default) or an 8-bit one (utils.py get_model).
 */
function peft(ctx: YamlCtx, p: ReadonlyMap<string, Entry>): void {
  const on = p.get('peft');
  if (!on || !isOn(ctx, on)) return;
  const q = p.get('quantization');
  const bits = quantBits(ctx, q);
  const qAt = q ?? on;
  ctx.add('method', qAt, bits === 4 ? 'qlora' : 'lora');
  if (bits !== undefined) {
    const note = `AutoTrain quantization defaults to int4 (${PARAMS})`;
    if (q) ctx.add('quantBits', q, bits);
    else ctx.addDefault('quantBits', on, bits, note);
    if (bits === 4) {
      const bnb = `AutoTrain's BitsAndBytesConfig for int4 (${UTILS} get_model)`;
      ctx.addDefault('quantType', qAt, 'nf4', `${bnb}: bnb_4bit_quant_type nf4`);
      ctx.addDefault('doubleQuant', qAt, false, `${bnb}: bnb_4bit_use_double_quant False`);
    }
  }
  const lora = (key: 'loraR' | 'loraAlpha' | 'loraDropout', name: string, dflt: number): void => {
    const e = p.get(name);
    if (e) ctx.put(key, e, key === 'loraR' ? asPosInt : (v) => numOf(v));
    else ctx.addDefault(key, on, dflt, `AutoTrain ${name} defaults to ${dflt} (${PARAMS})`);
  };
  lora('loraR', 'lora_r', 16);
  lora('loraAlpha', 'lora_alpha', 32);
  lora('loraDropout', 'lora_dropout', 0.05);
  const targets = p.get('target_modules');
  if (!targets)
    ctx.addDefault('loraTargets', on, 'all-linear', `AutoTrain target_modules defaults to all-linear (${PARAMS})`);
  else
    ctx.put('loraTargets', targets, (v) => {
      const s = strOf(v)?.trim();
      if (!s) return undefined;
      return s.toLowerCase() === 'all-linear'
        ? 'all-linear'
        : s
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean);
    });
}

/**
 * The machine: a Space, an endpoint or DGX cloud names its GPU and count (backends/base.py); `local` runs on every GPU
 * the machine shows (commands.py: torch.cuda.device_count()), which the file does not say. `distributed_backend:
 * deepspeed` on several GPUs is ZeRO-3 without offload, its model made under zero.Init (commands.py).
 */
function backend(ctx: YamlCtx, b: Entry | undefined, distributed: Entry | undefined): void {
  const name = b ? strOf(ctx.view(b))?.trim() : undefined;
  const hw = name ? BACKEND_GPUS[name] : undefined;
  if (b && hw) {
    ctx.add('gpu', b, hw.gpu);
    ctx.add('gpusPerNode', b, hw.count);
  } else if (b && name !== undefined && !/^spaces-cpu/.test(name))
    ctx.add('gpusPerNode', b, { unknown: `AutoTrain backend ${name} runs on every GPU the machine has` });
  const ds = distributed ? strOf(ctx.view(distributed))?.trim() : undefined;
  if (distributed && ds === 'deepspeed') {
    ctx.add('zeroStage', distributed, 3);
    ctx.add('offloadOptimizer', distributed, 'none');
    ctx.add('offloadParams', distributed, 'none');
    ctx.add('zero3Init', distributed, true);
  }
}

/** AutoTrain's hardware names (backends/base.py) and the GPUs they give. */
const BACKEND_GPUS: Readonly<Record<string, { readonly gpu: string; readonly count: number }>> = {
  'spaces-a10g-large': { gpu: 'A10G', count: 1 },
  'spaces-a10g-small': { gpu: 'A10G', count: 1 },
  'spaces-a10g-largex2': { gpu: 'A10G', count: 2 },
  'spaces-a10g-largex4': { gpu: 'A10G', count: 4 },
  'spaces-a100-large': { gpu: 'A100-80GB', count: 1 },
  'spaces-t4-medium': { gpu: 'T4', count: 1 },
  'spaces-t4-small': { gpu: 'T4', count: 1 },
  'spaces-l4x1': { gpu: 'L4', count: 1 },
  'spaces-l4x4': { gpu: 'L4', count: 4 },
  'spaces-l40sx1': { gpu: 'L40S', count: 1 },
  'spaces-l40sx4': { gpu: 'L40S', count: 4 },
  'spaces-l40sx8': { gpu: 'L40S', count: 8 },
  'dgx-a100': { gpu: 'A100-80GB', count: 1 },
  'dgx-2a100': { gpu: 'A100-80GB', count: 2 },
  'dgx-4a100': { gpu: 'A100-80GB', count: 4 },
  'dgx-8a100': { gpu: 'A100-80GB', count: 8 },
  // Inference endpoints' machines: g4dn.xlarge (a T4), g5.2xlarge (an A10G), g4dn.12xlarge (four T4s), p4de (A100 80 GB).
  'ep-aws-useast1-s': { gpu: 'T4', count: 1 },
  'ep-aws-useast1-m': { gpu: 'A10G', count: 1 },
  'ep-aws-useast1-l': { gpu: 'T4', count: 4 },
  'ep-aws-useast1-xl': { gpu: 'A100-80GB', count: 1 },
  'ep-aws-useast1-2xl': { gpu: 'A100-80GB', count: 2 },
  'ep-aws-useast1-4xl': { gpu: 'A100-80GB', count: 4 },
  'ep-aws-useast1-8xl': { gpu: 'A100-80GB', count: 8 },
  'nvcf-l40sx1': { gpu: 'L40S', count: 1 },
  'nvcf-h100x1': { gpu: 'H100-80GB', count: 1 },
  'nvcf-h100x2': { gpu: 'H100-80GB', count: 2 },
  'nvcf-h100x4': { gpu: 'H100-80GB', count: 4 },
  'nvcf-h100x8': { gpu: 'H100-80GB', count: 8 },
};
