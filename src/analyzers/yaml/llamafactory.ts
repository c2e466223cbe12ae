// The LLaMA-Factory training YAML (`llamafactory-cli train cfg.yaml`), both the flat HF-TrainingArguments-based
// schema and the v1 schema (`model:`, `micro_batch_size`, `dist_config`, `kernel_config`), as facts with exact spans.
// Keys and defaults follow FORMATS.md §6 (hiyouga/LLaMA-Factory@ff6d4d1:src/llamafactory/hparams/*.py). Pure: no I/O, no node:* or vscode imports.
import { about, msg, normalizeOptimizer, notModeled, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import {
  asBackwardPrefetch,
  asEvalStrategy,
  asPacking,
  Invalid,
  asBool,
  asNonNegNumber,
  asSaveStrategy,
  asPosInt,
  asString,
  attentionOf,
  boolOf,
  describe,
  fsdpFromOptions,
  listOf,
  numOf,
  optimizerOf,
  strOf,
  type Entry,
  datedByEvaluationStrategy,
} from './values';

export function analyzeLlamaFactoryYaml(text: string): ConfigFacts {
  // OmegaConf.load (parser.py:117-124): duplicate keys are an error and `${...}` is interpolated.
  const ctx = new YamlCtx(text, { format: 'llamafactory-yaml', tool: 'llamafactory', omegaconf: true });
  return guarded(ctx, () => analyze(ctx));
}

const isOn = (ctx: YamlCtx, e: Entry | undefined): boolean => (e ? boolOf(ctx.view(e)) === true : false);

/** Optimizer replacements switched on by a flag (finetuning_args.py); the raw name is kept for the estimator. */
const OPTIMIZER_FLAGS: readonly (readonly [string, string])[] = [
  ['use_galore', 'galore'],
  ['use_apollo', 'apollo'],
  ['use_badam', 'badam'],
  ['use_adam_mini', 'adam_mini'],
  ['use_muon', 'muon'],
];

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  const model = top.get('model_name_or_path') ?? top.get('model');
  ctx.put('model', model, asString);
  preQuantized(ctx, model);
  methodKeys(ctx, top);
  v1FullPrecision(ctx, top, model);
  quantization(ctx, top);
  stageKeys(ctx, top);
  batchKeys(ctx, top);
  stepKeys(ctx, top);
  optimizer(ctx, top);
  distributed(ctx, top);
}

/**
 * The v1 schema's model engine loads the checkpoint's dtype (`dtype="auto"`) and casts a model tuned in full, with no
 * `peft_config`, to fp32 (`model.to(torch.float32)`, LLaMA-Factory@0075c4b v1/core/model_engine.py); the v0 schema's
 * 16-bit load without bf16 / fp16 is the tool's default (infer_optim_dtype).
 */
function v1FullPrecision(ctx: YamlCtx, top: Map<string, Entry>, model: Entry | undefined): void {
  if (!model || top.has('model_name_or_path') || top.has('peft_config') || ctx.view(model).t !== 'str') return;
  // v1 has no finetuning_type: no peft_config is a full fine-tune (v0's finetuning_type defaults to lora).
  ctx.addDefault('method', model, 'full', 'LLaMA-Factory v1 tunes the whole model unless peft_config names an adapter');
  ctx.addDefault(
    'weightsDtype',
    model,
    'fp32',
    'LLaMA-Factory v1 casts a model tuned in full to fp32 (model.to(torch.float32), v1/core/model_engine.py)',
  );
}

/** finetuning_type and the LoRA and freeze settings it reads. */
function methodKeys(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('method', top.get('finetuning_type'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    if (s === 'lora' || s === 'full' || s === 'freeze') return s;
    if (s === 'oft') return { unknown: 'oft: orthogonal fine-tuning is not modelled' };
    return new Invalid(about('{0}: expected lora, freeze, full or oft, found {1}', describe(v)));
  });
  // lora_rank is read only by LoRA (finetuning_type, default lora): a full or freeze run may set it to 0.
  const method = top.get('finetuning_type');
  const lora = !method || strOf(ctx.view(method))?.trim().toLowerCase() === 'lora';
  if (lora) ctx.put('loraR', top.get('lora_rank'), asPosInt);
  ctx.put('loraAlpha', top.get('lora_alpha'), asNonNegNumber);
  ctx.put('loraDropout', top.get('lora_dropout'), asNonNegNumber);
  ctx.put('loraDora', top.get('use_dora'), asBool);
  // lora_target: "all" means every linear layer; otherwise a comma-separated list of module names.
  ctx.put('loraTargets', top.get('lora_target'), (v) => {
    const list = listOf(v, /,/);
    if (!list || list.length === 0) return undefined;
    return list.length === 1 && list[0]?.toLowerCase() === 'all' ? 'all-linear' : list;
  });
  ctx.put(
    'loraModulesToSave',
    top.get('additional_target'),
    (v) => listOf(v, /,/) ?? new Invalid(about('{0}: expected module names')),
  );
  ctx.put('freezeTrainableLayers', top.get('freeze_trainable_layers'), (v) => {
    const n = numOf(v);
    return n === undefined || !Number.isInteger(n) || n === 0
      ? new Invalid(about('{0}: expected a non-zero integer, found {1}', describe(v)))
      : n;
  });
}

/**
 * Preference stages (train/dpo/workflow.py): chosen and rejected in one forward; ORPO and SimPO need no reference
 * model; an explicit ref_model is a second resident model, otherwise full fine-tuning copies the model and LoRA disables
 * its adapters (create_ref_model).
 */
function stageKeys(ctx: YamlCtx, top: Map<string, Entry>): void {
  const stage = top.get('stage');
  const prefLossEntry = top.get('pref_loss');
  const prefLoss = prefLossEntry ? (strOf(ctx.view(prefLossEntry))?.trim().toLowerCase() ?? '') : '';
  const refFree = prefLoss === 'orpo' || prefLoss === 'simpo';
  ctx.put('preference', stage, (v) => {
    const s = strOf(v)?.trim();
    // stage: rm (train/rm/workflow.py): the pairs scored by a value head on the causal LM (TRL
    // AutoModelForCausalLMWithValueHead), no reference.
    return s === 'dpo' ? (refFree ? 'reference-free' : 'dpo') : s === 'kto' ? 'kto' : s === 'rm' ? 'reward' : undefined;
  });
  const stageName = stage ? strOf(ctx.view(stage))?.trim().toLowerCase() : undefined;
  if (stage && stageName === 'ppo')
    ctx.problem('not-modeled', 'warning', notModeled(`stage: ${stageName}`, stageName), stage.valueSpan, 'stage');
  // Multimodal models: the vision tower is frozen by default (freeze_vision_tower: true, finetuning_args.py); training it
  // adds its gradients and optimizer state (counted for a full fine-tune) and its activations over the images (not).
  ctx.put('visionTowerTrained', top.get('freeze_vision_tower'), (v) => {
    const b = boolOf(v);
    return b === undefined ? undefined : !b;
  });
  const refModel = top.get('ref_model');
  if (refModel && !refFree && (stageName === 'dpo' || stageName === 'kto'))
    ctx.put('referenceModel', refModel, (v) => (strOf(v) ? 'given' : undefined));
}

/** The batch, evaluation, checkpoints, accumulation and the sequence length (cutoff_len) with its packing. */
function batchKeys(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('microBatchSize', top.get('per_device_train_batch_size') ?? top.get('micro_batch_size'), asPosInt);
  ctx.put('evalBatchSize', top.get('per_device_eval_batch_size'), asPosInt);
  // Seq2SeqTrainingArguments: label_smoothing_factor makes the Trainer's LabelSmoother take the loss.
  ctx.put('labelSmoothing', top.get('label_smoothing_factor'), asNonNegNumber);
  ctx.put('savesCheckpoints', top.get('save_strategy'), asSaveStrategy);
  ctx.put('evalStrategy', top.get('eval_strategy') ?? top.get('evaluation_strategy'), asEvalStrategy);
  datedByEvaluationStrategy(ctx, top.get('evaluation_strategy'));
  ctx.put('gradientAccumulationSteps', top.get('gradient_accumulation_steps'), asPosInt);
  ctx.put('seqLen', top.get('cutoff_len'), asPosInt);
  // packing / neat_packing concatenate samples up to cutoff_len; otherwise each batch is padded to its longest sample.
  const packing = top.get('packing') ?? top.get('neat_packing');
  if (packing) ctx.put('batchLengths', packing, asPacking);
  else ctx.put('batchLengths', top.get('stage'), (v) => (strOf(v)?.trim() === 'pt' ? 'fixed' : undefined)); // packing defaults on for pre-training
}

/** Precision, checkpointing, attention, kernels and compile. */
/**
 * `flash_attn` (default auto). Auto leaves the attention transformers picks, SDPA for the models that have it
 * (model/model_utils/attention.py configure_attn_implementation returns early), except for Gemma 2, which takes
 * FlashAttention-2 where flash-attn is installed and eager attention otherwise. For Gemma 2 the installed packages
 * decide: the estimate stands in SDPA, whose memory is FlashAttention-2's, and says so at the key (at the model where
 * the key is not written).
 */
function attentionKeys(ctx: YamlCtx, top: Map<string, Entry>): void {
  const model = top.get('model_name_or_path') ?? top.get('model');
  const name = model ? strOf(ctx.view(model)) : undefined;
  const gemma2 = name !== undefined && /gemma-?2(?=[-_/]|$)/i.test(name);
  const written = top.get('flash_attn');
  const auto = !written || strOf(ctx.view(written))?.trim().toLowerCase() === 'auto';
  const at = written ?? model;
  if (gemma2 && auto && at) {
    const why = 'auto: Gemma 2 runs FlashAttention-2 where flash-attn is installed, else eager attention';
    ctx.add('attention', at, { unknown: why });
    ctx.problem(
      'not-static',
      'warning',
      msg(
        'flash_attn: auto runs Gemma 2 with FlashAttention-2 where flash-attn is installed, else with eager attention, ' +
          "which keeps every head's attention weights: estimated with SDPA, whose memory is FlashAttention-2's; " +
          'set flash_attn: fa2 or disabled',
      ),
      written ? written.valueSpan : at.valueSpan,
      'flash_attn',
    );
    return;
  }
  ctx.put('attention', written, (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    if (s === 'auto') return undefined;
    return (
      (s && attentionOf(s)) ??
      new Invalid(about('{0}: expected auto, disabled, sdpa, fa2 or fa3, found {1}', describe(v)))
    );
  });
}

function stepKeys(ctx: YamlCtx, top: Map<string, Entry>): void {
  // upcast_layernorm casts the norm weights to fp32 (model/model_utils/checkpointing.py prepare_model_for_training); with 4/8-bit
  // layers their fp32 outputs carry on through the residual stream.
  ctx.put('kbitUpcast', top.get('upcast_layernorm'), (v) => {
    const b = boolOf(v);
    return b === undefined ? undefined : b ? 'norms' : 'none';
  });
  ctx.put('bf16', top.get('bf16'), asBool);
  ctx.put('fp16', top.get('fp16'), asBool);
  ctx.put('pureBf16', top.get('pure_bf16'), asBool);
  ctx.checkPrecisionConflict();
  const fp8 = top.get('fp8');
  if (isOn(ctx, fp8) && fp8) ctx.add('mixedPrecision', fp8, 'fp8');

  // Gradient checkpointing is ON unless disabled (model/model_utils/checkpointing.py:184).
  ctx.put('gradientCheckpointing', top.get('disable_gradient_checkpointing'), (v) => {
    const b = boolOf(v);
    return b === undefined ? asBool(v) : b ? 'none' : 'full';
  });
  // use_reentrant_gc (default True) is passed as gradient_checkpointing_kwargs (model/model_utils/checkpointing.py).
  ctx.put('checkpointReentrant', top.get('use_reentrant_gc'), asBool);
  const unslothGc = top.get('use_unsloth_gc');
  if (isOn(ctx, unslothGc) && unslothGc) ctx.add('activationOffloading', unslothGc, true);

  attentionKeys(ctx, top);

  const liger = top.get('enable_liger_kernel');
  if (isOn(ctx, liger) && liger) {
    ctx.add('loss', liger, 'fused');
    ctx.add('kernels', liger, 'liger');
  }
  const kernel = ctx.sub(top.get('kernel_config')).get('name');
  if (kernel && !ctx.has('loss')) {
    ctx.put('loss', kernel, (v) => {
      const s = strOf(v)?.trim().toLowerCase();
      if (s === 'liger_kernel' || s === 'liger') return 'fused';
      return s === 'auto' ? { unknown: 'auto: kernels chosen by the installed packages' } : undefined;
    });
  }
  ctx.put('compile', top.get('torch_compile'), asBool);
}

/**
 * quantization_bit (4/8 with bnb, hqq or eetq; 2/3 with hqq), quantization_method, quantization_type ("nf4") and
 * double_quantization (True by default; model_args.py).
 */
function quantization(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('quantBits', top.get('quantization_bit'), (v) => {
    const n = numOf(v);
    if (n === 4 || n === 8) return n;
    if (n === 2 || n === 3) return { unknown: `${n}-bit HQQ quantization is not modelled` };
    return new Invalid(about('{0}: expected 2, 3, 4 or 8, found {1}', describe(v)));
  });
  const methodEntry = top.get('quantization_method');
  ctx.put('quantType', methodEntry, (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    if (s === 'gptq' || s === 'awq') return s;
    return undefined;
  });
  if (!ctx.has('quantType')) {
    ctx.put('quantType', top.get('quantization_type'), (v) => {
      const s = strOf(v)?.trim().toLowerCase();
      return s === 'nf4' || s === 'fp4' ? s : new Invalid(about('{0}: expected nf4 or fp4, found {1}', describe(v)));
    });
  }
  ctx.put('doubleQuant', top.get('double_quantization'), asBool);
  // v1 schema: quant_config: {name: ..., ...}; only its presence and the bit width are read.
  const qc = top.get('quant_config');
  const q = ctx.sub(qc);
  if (qc && q.size > 0 && !ctx.has('quantBits')) {
    const bits = q.get('quantization_bit') ?? q.get('bits');
    if (bits)
      ctx.put('quantBits', bits, (v) =>
        numOf(v) === 4 || numOf(v) === 8
          ? numOf(v)
          : new Invalid(about('{0}: expected 4 or 8, found {1}', describe(v))),
      );
    else ctx.add('quantBits', qc, { unknown: 'quant_config: bit width not written' });
  }
}

/** A GPTQ/AWQ checkpoint is loaded pre-quantized without any quantization_bit (model_utils/quantization.py). */
function preQuantized(ctx: YamlCtx, model: Entry | undefined): void {
  if (!model) return;
  const id = strOf(ctx.view(model)) ?? '';
  const m = /(gptq|awq)/i.exec(id);
  if (!m) return;
  ctx.add('quantType', model, (m[1] ?? '').toLowerCase(), model.path);
  // The bit width only when the name says it (`-Int4`, `-w4`, `-4bit`); GPTQ/AWQ checkpoints are usually 4-bit.
  const name = id.slice(id.lastIndexOf('/') + 1);
  const bits = /(?:^|[-_.])(?:int|w)(4|8)(?=$|[-_.])|(?:^|[-_.])(4|8)-?bits?(?=$|[-_.])/i.exec(name);
  if (bits) ctx.add('quantBits', model, Number(bits[1] ?? bits[2]), model.path);
}

function optimizer(ctx: YamlCtx, top: Map<string, Entry>): void {
  // GaLore (LLaMA-Factory finetuning_args.py GaloreArguments: galore_rank 16, galore_target "all") projects the
  // gradients of the optimizer named by optim (adamw_torch -> GaLoreAdamW, adamw_bnb_8bit, adafactor).
  // APOLLO (ApolloArguments: apollo_rank 16, apollo_target "all") keeps states of the same projected shape from a
  // random projection it regenerates from a seed, so no projection matrix is stored.
  for (const kind of ['galore', 'apollo'] as const) {
    const on = top.get(`use_${kind}`);
    if (!isOn(ctx, on) || !on) continue;
    ctx.add('galore', on, kind);
    ctx.put('galoreRank', top.get(`${kind}_rank`), asPosInt);
    ctx.put('galoreTargets', top.get(`${kind}_target`), (v) => {
      const list =
        listOf(v) ??
        (strOf(v) ?? '')
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x);
      return list.length === 1 && list[0] === 'all' ? 'all-linear' : list;
    });
    ctx.put('galoreLayerwise', top.get(`${kind}_layerwise`), asBool);
    break;
  }
  // BAdam (finetuning_args.py BAdamArgument: badam_mode "layer" by default) trains one block at a time over the
  // optimizer named by optim.
  const badam = top.get('use_badam');
  if (isOn(ctx, badam) && badam) {
    const mode = top.get('badam_mode');
    if (mode) ctx.put('badam', mode, (v) => (strOf(v)?.trim() === 'ratio' ? 'ratio' : 'layer'));
    else ctx.add('badam', badam, 'layer');
    ctx.put('badamUpdateRatio', top.get('badam_update_ratio'), asNonNegNumber);
  }
  for (const [flag, name] of OPTIMIZER_FLAGS) {
    const e = top.get(flag);
    if (flag === 'use_galore' || flag === 'use_apollo' || flag === 'use_badam' || !isOn(ctx, e) || !e) continue;
    ctx.add('optimizer', e, name, flag);
    return;
  }
  ctx.put('optimizer', top.get('optim'), (v) => {
    const s = strOf(v)?.trim();
    return s ? optimizerOf(s, normalizeOptimizer) : undefined;
  });
}

/** deepspeed (a JSON path), HF `fsdp` options (list or string), and the v1 `dist_config: {name: fsdp2 | deepspeed}`. */
function distributed(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.deepspeedRef(top.get('deepspeed'));
  ctx.put('ddpFindUnused', top.get('ddp_find_unused_parameters'), asBool);
  const fsdp = top.get('fsdp');
  if (fsdp) {
    ctx.put('fsdp', fsdp, (v) => {
      if (v.t === 'bool') return v.v ? 'full_shard' : undefined;
      const options = listOf(v);
      if (!options) return new Invalid(about('{0}: expected FSDP options, found {1}', describe(v)));
      return fsdpFromOptions(options).fsdp;
    });
    const options = listOf(ctx.view(fsdp));
    if (options && fsdpFromOptions(options).offload) ctx.add('fsdpOffload', fsdp, true);
  }
  ctx.deprecated(
    top.get('fsdp_transformer_layer_cls_to_wrap'),
    about('`{0}` is deprecated: a transformers v4 key; use `fsdp_config: {transformer_layer_cls_to_wrap: ...}`'),
    'info',
  );
  const fsdpCfg = ctx.sub(top.get('fsdp_config'));
  ctx.put(
    'fsdpBackwardPrefetch',
    fsdpCfg.get('backward_prefetch') ?? fsdpCfg.get('fsdp_backward_prefetch'),
    asBackwardPrefetch,
  );
  ctx.trainerOrigParams(fsdpCfg);
  ctx.trainerCpuRamEfficient(fsdpCfg);
  ctx.put('fsdpLimitAllGathers', fsdpCfg.get('limit_all_gathers') ?? fsdpCfg.get('fsdp_limit_all_gathers'), asBool);
  ctx.fsdpCheckpointing(fsdpCfg.get('activation_checkpointing') ?? fsdpCfg.get('fsdp_activation_checkpointing'));
  ctx.put(
    'gradientCheckpointing',
    fsdpCfg.get('activation_checkpointing') ?? fsdpCfg.get('fsdp_activation_checkpointing'),
    (v) => {
      const b = boolOf(v);
      return b === undefined ? asBool(v) : b && !ctx.has('gradientCheckpointing') ? 'full' : undefined;
    },
  );

  const dist = ctx.sub(top.get('dist_config'));
  const name = dist.get('name');
  ctx.put('fsdp', name, (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    return s === 'fsdp2' || s === 'fsdp' ? 'full_shard' : undefined;
  });
  if (name && strOf(ctx.view(name))?.trim().toLowerCase() === 'deepspeed') {
    const file = dist.get('config_file') ?? dist.get('config_path');
    if (file) ctx.deepspeedRef(file);
  }
}
