// PKU-Alignment/align-anything's training config (`align_anything/configs/train/<task>/<trainer>.yaml`, which the
// trainer module `deepspeed --module align_anything.trainers.<task>.<trainer> --model_name_or_path ...` reads, its
// launch line's options replacing keys of any section by their names): `train_cfgs` (the DeepSpeed config file
// `ds_cfgs`, the batch, accumulation, checkpointing, bf16 / fp16), `model_cfgs` (the model and `model_max_length`),
// `lora_cfgs`, `bnb_cfgs`. The trainer is DeepSpeed's engine over the model loaded in bf16 (models/pretrained_model.py
// load_pretrained_models), stepped by DeepSpeed's FusedAdam; the trainer writes the batch, the accumulation and the
// precision switches into the DeepSpeed config it reads (utils/tools.py prepare_ds_train_cfgs), so those keys of the
// file are not the run's. Which trainer reads the file follows from the keys only it has. Source:
// PKU-Alignment/align-anything@3f9decc. Pure.
// Docs: docs/formats.md
import { msg, type ConfigFacts, type LaunchArgument } from '../facts';
import { YamlCtx, guarded } from './common';
import { ZERO_STAGE_FILE } from '../shell/align-anything-launch';
import { asBool, asPosInt, boolOf, listOf, numOf, strOf, type Entry } from './values';

export const ALIGN_ANYTHING_SRC = 'PKU-Alignment/align-anything@3f9decc:align_anything';

/** Whether top-level keys are an align-anything training config: its train_cfgs beside its model_cfgs. */
export function isAlignAnythingYaml(keys: ReadonlySet<string>): boolean {
  return keys.has('train_cfgs') && keys.has('model_cfgs');
}

/**
 * The config as its trainer reads it; `overrides` carries the launch environment's ZERO_STAGE_FILE (the launch line's
 * options are facts of the line itself).
 */
export function analyzeAlignAnythingYaml(text: string, overrides: readonly LaunchArgument[] = []): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'align-anything-yaml', tool: 'align-anything', omegaconf: false });
  const zeroStageFile = overrides.find((a) => a.name === ZERO_STAGE_FILE);
  return guarded(ctx, () => analyze(ctx, zeroStageFile));
}

/** The trainers whose configs VRAM Lens reads; the RL ones (PPO, GRPO) are said. */
type Trainer = 'sft' | 'dpo' | 'kto' | 'simpo' | 'orpo' | 'rm' | 'rl';

function analyze(ctx: YamlCtx, zeroStageFile: LaunchArgument | undefined): void {
  const top = ctx.top();
  const trainEntry = top.get('train_cfgs')!;
  const modelEntry = top.get('model_cfgs')!;
  const train = ctx.sub(trainEntry);
  const model = ctx.sub(modelEntry);
  const trainer = trainerOf(train, model);
  if (trainer === 'rl') {
    ctx.problem(
      'not-modeled',
      'warning',
      msg(
        "{0}: align-anything's PPO and GRPO trainers (an actor, a critic or reward model and a reference, each its " +
          'own DeepSpeed engine, and the generation between them) are not modeled',
        'model_cfgs.actor_model_name_or_path',
      ),
      model.get('actor_model_name_or_path')!.keySpan,
      'model_cfgs.actor_model_name_or_path',
    );
    return;
  }
  modelName(ctx, model.get('model_name_or_path'), modelEntry);
  ctx.put('seqLen', model.get('model_max_length'), asPosInt);
  ctx.put('microBatchSize', train.get('per_device_train_batch_size'), asPosInt);
  ctx.put('evalBatchSize', train.get('per_device_eval_batch_size'), asPosInt);
  ctx.put('gradientAccumulationSteps', train.get('gradient_accumulation_steps'), asPosInt);
  ctx.put('bf16', train.get('bf16'), asBool);
  ctx.put('fp16', train.get('fp16'), asBool);
  const lora = adapters(ctx, top.get('lora_cfgs'), top.get('bnb_cfgs'));
  checkpointing(ctx, train.get('gradient_checkpointing'), lora);
  evaluation(ctx, ctx.sub(top.get('data_cfgs')).get('eval_datasets'));
  deepspeedFile(ctx, train.get('ds_cfgs'), zeroStageFile);
  objective(ctx, trainer, trainEntry);
}

/**
 * The trainer a config is written for, by the keys only its YAML has (configs/train/text_to_text): the RL trainers'
 * actor model; KTO's KL batch; SimPO's gamma, ORPO's regularization beside scale_coeff, DPO's scale_coeff alone; the
 * reward model's regularization alone; SFT otherwise.
 */
function trainerOf(train: ReadonlyMap<string, Entry>, model: ReadonlyMap<string, Entry>): Trainer {
  if (model.has('actor_model_name_or_path')) return 'rl';
  if (train.has('kl_steps') || train.has('per_device_kl_batch_size')) return 'kto';
  if (train.has('scale_coeff')) return train.has('gamma') ? 'simpo' : train.has('regularization') ? 'orpo' : 'dpo';
  if (train.has('regularization')) return 'rm';
  return 'sft';
}

/** `model_cfgs.model_name_or_path`: null in the shipped configs, where the launch line's option gives the model. */
function modelName(ctx: YamlCtx, e: Entry | undefined, at: Entry): void {
  const name = e ? strOf(ctx.view(e))?.trim() : undefined;
  if (name) {
    ctx.add('model', e!, name);
    return;
  }
  ctx.add('model', e ?? at, {
    unknown:
      'model_cfgs.model_name_or_path is not set: align-anything takes the model from the launch line ' +
      '(--model_name_or_path)',
  });
}

/**
 * `lora_cfgs` (`use_lora`: PEFT's LoraConfig with r, lora_alpha, lora_dropout, target_modules) and `bnb_cfgs`
 * (`use_bnb`: bitsandbytes 4- or 8-bit, only with LoRA: load_pretrained_models raises otherwise). Returns whether LoRA
 * trains the model.
 */
function adapters(ctx: YamlCtx, loraEntry: Entry | undefined, bnbEntry: Entry | undefined): boolean {
  const l = ctx.sub(loraEntry);
  const b = ctx.sub(bnbEntry);
  const useLora = l.get('use_lora');
  const useBnb = b.get('use_bnb');
  const lora = useLora !== undefined && boolOf(ctx.view(useLora)) === true;
  const bnb = useBnb !== undefined && boolOf(ctx.view(useBnb)) === true;
  if (bnb && !lora) {
    ctx.problem(
      'invalid-value',
      'error',
      msg(
        '{0}: align-anything refuses bitsandbytes without LoRA (models/pretrained_model.py raises ValueError); set lora_cfgs.use_lora: True',
        'bnb_cfgs.use_bnb',
      ),
      useBnb!.valueSpan,
      'bnb_cfgs.use_bnb',
    );
  }
  if (!lora) return false;
  const bits = bnb ? quantBits(ctx, b) : undefined;
  ctx.add('method', useLora!, bits === 4 ? 'qlora' : 'lora');
  if (bits !== undefined) {
    ctx.add('quantBits', useBnb!, bits);
    if (bits === 4) {
      ctx.put('quantType', b.get('bnb_4bit_quant_type'), (v) => strOf(v)?.trim().toLowerCase() || undefined);
      ctx.put('doubleQuant', b.get('bnb_4bit_use_double_quant'), asBool);
    }
  }
  ctx.put('loraR', l.get('r'), asPosInt);
  ctx.put('loraAlpha', l.get('lora_alpha'), (v) => numOf(v));
  ctx.put('loraDropout', l.get('lora_dropout'), (v) => numOf(v));
  ctx.put('loraTargets', l.get('target_modules'), (v) => listOf(v) ?? undefined);
  return true;
}

/** bitsandbytes' bits: load_in_4bit, else load_in_8bit; neither set loads the model unquantized. */
function quantBits(ctx: YamlCtx, b: ReadonlyMap<string, Entry>): 4 | 8 | undefined {
  const on = (key: string): boolean => {
    const e = b.get(key);
    return e !== undefined && boolOf(ctx.view(e)) === true;
  };
  return on('load_in_4bit') ? 4 : on('load_in_8bit') ? 8 : undefined;
}

/** `gradient_checkpointing`: the trainer enables it only when LoRA is off (trainers/base/supervised_trainer.py). */
function checkpointing(ctx: YamlCtx, e: Entry | undefined, lora: boolean): void {
  if (!e) return;
  const on = boolOf(ctx.view(e));
  if (on === true && lora) {
    const src = `${ALIGN_ANYTHING_SRC}/trainers/base/supervised_trainer.py init_deepspeed_engines`;
    ctx.addDefault(
      'gradientCheckpointing',
      e,
      'none',
      `align-anything enables gradient checkpointing only without LoRA (${src})`,
    );
    ctx.problem(
      'no-effect',
      'info',
      msg('{0}: align-anything enables gradient checkpointing only without LoRA ({1})', e.path, src),
      e.valueSpan,
      e.path,
    );
    return;
  }
  ctx.put('gradientCheckpointing', e, (v) => (boolOf(v) === undefined ? asBool(v) : boolOf(v) ? 'full' : 'none'));
}

/** `data_cfgs.eval_datasets`: the evaluation runs when one is named (trainers/base/supervised_trainer.py). */
function evaluation(ctx: YamlCtx, e: Entry | undefined): void {
  if (!e) return;
  const v = ctx.view(e);
  if (v.t === 'absent' || v.t === 'unknown') return;
  const named = v.t === 'seq' ? v.items.length > 0 : v.t === 'str' ? v.v.trim() !== '' && v.v.trim() !== 'null' : false;
  ctx.add('evalStrategy', e, named);
}

/**
 * `ds_cfgs`: a file name under configs/deepspeed (utils/tools.py read_cfgs), two folders above the task's folder of
 * configs/train; the launch environment's ZERO_STAGE_FILE names it instead. Its batch, accumulation and precision keys
 * are replaced by the trainer's (prepare_ds_train_cfgs).
 */
function deepspeedFile(ctx: YamlCtx, e: Entry | undefined, zeroStageFile: LaunchArgument | undefined): void {
  if (!e) return;
  const name = zeroStageFile ? environmentFile(ctx, e, zeroStageFile) : strOf(ctx.view(e))?.trim();
  if (!name) return;
  const path = name.includes('/') ? name : `../../deepspeed/${name}`;
  ctx.references.push({
    kind: 'deepspeed',
    path,
    span: e.valueSpan,
    replacedKeys: ['trainBatchSize', 'microBatchSize', 'gradientAccumulationSteps', 'bf16', 'fp16'],
  });
  ctx.add('deepspeedConfig', e, path);
}

/** The file ZERO_STAGE_FILE names in place of ds_cfgs, said at ds_cfgs; undefined (and said) where it is not known. */
function environmentFile(ctx: YamlCtx, e: Entry, zeroStageFile: LaunchArgument): string | undefined {
  const value = zeroStageFile.value?.trim();
  if (!value) {
    ctx.add('deepspeedConfig', e, {
      unknown:
        'ZERO_STAGE_FILE in the launch environment names the DeepSpeed config, and its value is not known statically',
    });
    return undefined;
  }
  ctx.problem(
    'no-effect',
    'info',
    msg(
      '{0}: ZERO_STAGE_FILE={1} in the launch environment names the DeepSpeed config in place of this one (utils/tools.py read_cfgs)',
      'train_cfgs.ds_cfgs',
      value,
    ),
    e.valueSpan,
    'train_cfgs.ds_cfgs',
  );
  return value;
}

/**
 * The trainer's objective: DPO and KTO load a second copy of the model as the reference (a DeepSpeed engine of its own,
 * sharded under ZeRO-3 only), SimPO and ORPO none; the reward model is the model with a score head
 * (AnyModelForScore) over chosen and rejected sequences.
 */
function objective(ctx: YamlCtx, trainer: Trainer, at: Entry): void {
  const src = `${ALIGN_ANYTHING_SRC}/trainers/text_to_text/${trainer}.py`;
  if (trainer === 'dpo' || trainer === 'kto') {
    ctx.addDefault('preference', at, trainer, `align-anything's ${trainer.toUpperCase()} trainer (${src})`);
    ctx.addDefault('referenceModel', at, 'given', `align-anything loads the reference as a second model (${src})`);
  } else if (trainer === 'simpo' || trainer === 'orpo') {
    ctx.addDefault(
      'preference',
      at,
      'reference-free',
      `align-anything's ${trainer.toUpperCase()} trainer has no reference model (${src})`,
    );
  } else if (trainer === 'rm') {
    ctx.addDefault('preference', at, 'reward', `align-anything's reward-model trainer (${src})`);
    ctx.addDefault('head', at, 'seq_cls', `align-anything scores each sequence with a one-output head (${src})`);
    ctx.addDefault('numLabels', at, 1, `align-anything's score head has one output (${src})`);
  }
}
