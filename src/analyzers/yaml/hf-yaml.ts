// HF TrainingArguments / TRL configs written as YAML (`trl sft --config cfg.yaml`, alignment-handbook recipes, a
// YAML passed to HfArgumentParser.parse_yaml_file): TrainingArguments, TRL and ModelConfig keys as facts with exact
// spans. Keys and defaults follow FORMATS.md §2 (transformers@00349ae:training_args.py, trl@f2cd577). Pure: no I/O, no node:* or vscode imports.
import { about, normalizeOptimizer, type ConfigFacts, type Tool } from '../facts';
import { YamlCtx, guarded } from './common';
import { TRL_SFT_LOSS_TYPES } from '../defaults';
import {
  asBackwardPrefetch,
  asEvalStrategy,
  Invalid,
  asBool,
  asNonNegNumber,
  asSaveStrategy,
  asOnWhenSet,
  asPosInt,
  asString,
  attentionOf,
  boolOf,
  describe,
  dtypeOf,
  fsdpFromOptions,
  galoreKeys,
  grpoKeys,
  listOf,
  optimizerOf,
  strOf,
  type Entry,
  datedByEvaluationStrategy,
} from './values';

/** Keys that only TRL configs (SFTConfig, ModelConfig, ScriptArguments) have; their presence means TRL defaults apply. */
export const TRL_KEYS = new Set([
  'max_length',
  'max_seq_length',
  'packing',
  'packing_strategy',
  'padding_free',
  'use_peft',
  'dataset_text_field',
  'dataset_name',
  'assistant_only_loss',
  'completion_only_loss',
  'loss_type',
  'activation_offloading',
  'lora_r',
  'lora_target_modules',
  'use_bnb_nested_quant',
  'bnb_4bit_quant_type',
  'num_generations',
  'max_completion_length',
  'max_prompt_length',
  'use_vllm',
  'vllm_mode',
  'beta',
  'precompute_ref_log_probs',
  'model_init_kwargs',
  'eos_token',
  'teacher_model_name_or_path',
  'lmbda',
  'reward_model_name_or_path',
]);

/**
 * A Hydra config (a `# @package` header or a top-level `defaults:` list): its script reads it through Hydra, which
 * resolves `${...}` interpolations and rejects duplicate keys, as OmegaConf does.
 */
const HYDRA = /^#\s*@package\b|^defaults\s*:/m;

export function analyzeHfYaml(text: string): ConfigFacts {
  // HfArgumentParser.parse_yaml_file and TrlParser use yaml.safe_load: PyYAML semantics, last duplicate wins.
  const hydra = HYDRA.test(text.slice(0, 20_000));
  const ctx = new YamlCtx(text, { format: 'hf-yaml', tool: 'hf-trainer', omegaconf: hydra });
  return guarded(ctx, () => {
    const tool: Tool = [...ctx.top().keys()].some((k) => TRL_KEYS.has(k)) ? 'trl' : 'hf-trainer';
    ctx.setTool(tool);
    analyze(ctx);
  });
}

const isOn = (ctx: YamlCtx, e: Entry | undefined): boolean => (e ? boolOf(ctx.view(e)) === true : false);

function analyze(ctx: YamlCtx): void {
  analyzeHfEntries(ctx, ctx.top());
}

/**
 * The TrainingArguments / TRL / ModelConfig keys of `top` (by their names: an entry may be written elsewhere in the
 * document, under another name, as a project's own config writes it: yaml/project-config.ts), as facts at the entries.
 */
export function analyzeHfEntries(ctx: YamlCtx, top: Top): void {
  modelKeys(ctx, top);
  trainerKeys(ctx, top);
  sequenceKeys(ctx, top);
  modelLoading(ctx, top);
  peft(ctx, top);
  ctx.deepspeedRef(top.get('deepspeed'));
  fsdpKeys(ctx, top);
  runtimeKeys(ctx, top);
  // num_generations is GRPOConfig's (a TRL YAML for `trl grpo --config`): completions are generated, then trained on.
  const gens = top.get('num_generations');
  if (gens && ctx.view(gens).t !== 'absent') ctx.add('rollout', gens, 'grpo');
  grpoKeys(ctx, top);
  preferenceKeys(ctx, top);
}

type Top = ReturnType<YamlCtx['top']>;

/** The model trained and the models it learns from (a teacher, with GKD's on-policy share and length; a reward model). */
function modelKeys(ctx: YamlCtx, top: Top): void {
  ctx.put('model', top.get('model_name_or_path'), asString);
  // GKDConfig (trl gkd --config): the teacher the student is distilled from.
  ctx.put('teacherModel', top.get('teacher_model_name_or_path'), asString);
  // trl grpo --config: a reward model by Hub id (GRPOScriptArguments reward_model_name_or_path).
  ctx.put('rewardModels', top.get('reward_model_name_or_path'), (v) => {
    const id = asString(v);
    return typeof id === 'string' ? [id] : id;
  });
  ctx.put('onPolicyFraction', top.get('lmbda'), asNonNegNumber);
  ctx.put('maxNewTokens', top.get('max_new_tokens'), asPosInt);
}

/**
 * The arguments with which an evaluation keeps no logits on the GPU (eval-logits.ts): eval_accumulation_steps moves
 * them to the host, prediction_loss_only and batch_eval_metrics keep none, and Seq2SeqTrainer's predict_with_generate
 * keeps the generated token ids in their place (trainer_seq2seq.py prediction_step).
 */
const LOGITS_RELEASED = [
  'eval_accumulation_steps',
  'prediction_loss_only',
  'batch_eval_metrics',
  'predict_with_generate',
];

/** The batch, precision, checkpointing and optimizer of TrainingArguments. */
function trainerKeys(ctx: YamlCtx, top: Top): void {
  ctx.put('microBatchSize', top.get('per_device_train_batch_size'), asPosInt);
  ctx.put('evalBatchSize', top.get('per_device_eval_batch_size'), asPosInt);
  ctx.put('evalStrategy', top.get('eval_strategy') ?? top.get('evaluation_strategy'), asEvalStrategy);
  datedByEvaluationStrategy(ctx, top.get('evaluation_strategy'));
  for (const key of LOGITS_RELEASED) ctx.put('evalLogitsReleased', top.get(key), asOnWhenSet);
  ctx.put('gradientAccumulationSteps', top.get('gradient_accumulation_steps'), asPosInt);
  ctx.put('bf16', top.get('bf16'), asBool);
  ctx.put('fp16', top.get('fp16'), asBool);
  ctx.checkPrecisionConflict();
  ctx.put('gradientCheckpointing', top.get('gradient_checkpointing'), (v) => {
    const b = boolOf(v);
    return b === undefined ? asBool(v) : b ? 'full' : 'none';
  });
  ctx.put('optimizer', top.get('optim'), (v) => {
    const s = strOf(v)?.trim();
    return s ? optimizerOf(s, normalizeOptimizer) : undefined;
  });
  // TrainingArguments' deprecated `adafactor` switch: __post_init__ sets optim to Adafactor over any optim given.
  ctx.put('optimizer', top.get('adafactor'), (v) => (boolOf(v) === true ? 'adafactor' : undefined));
  galoreKeys(ctx, top);
}

function sequenceKeys(ctx: YamlCtx, top: Top): void {
  // Sequence length: max_length (SFTConfig); max_seq_length was renamed in TRL v0.16 and removed in v0.20.
  const maxLen = top.get('max_length');
  const oldLen = top.get('max_seq_length');
  ctx.put('seqLen', maxLen, asPosInt);
  if (oldLen) {
    if (ctx.tool === 'trl')
      ctx.deprecated(
        oldLen,
        about(
          '`{0}` is deprecated: TRL renamed it `max_length` in v0.16 and removed it in v0.20; newer TRL fails on it',
        ),
      );
    if (!ctx.has('seqLen')) ctx.put('seqLen', oldLen, asPosInt);
  }

  // SFTConfig packing: samples concatenated to max_length, told apart by their position ids (from which transformers
  // builds an attention mask); off, each batch is padded to its longest sample.
  if (ctx.tool === 'trl') {
    const packing = top.get('packing');
    ctx.put('batchLengths', packing, (v) => {
      const b = boolOf(v);
      return b === undefined ? asBool(v) : b ? 'fixed' : 'variable';
    });
    if (isOn(ctx, packing) && packing) ctx.add('paddedBatches', packing, true);
  }
}

/** The warning at a TRL config's `torch_dtype` (pinned-versions.ts drops it where the project's TRL is older than 0.23). */
export const TORCH_DTYPE_RENAMED =
  '`{0}` is deprecated: renamed `dtype` (TRL deprecated it in v0.23 and removed it in v0.27)';

function modelLoading(ctx: YamlCtx, top: Top): void {
  // Model loading (TRL ModelConfig; model_init_kwargs for SFTConfig when the model is a string).
  const init = ctx.sub(top.get('model_init_kwargs'));
  const dtype = top.get('dtype') ?? top.get('torch_dtype') ?? init.get('dtype') ?? init.get('torch_dtype');
  ctx.put('weightsDtype', dtype, (v) => {
    const s = strOf(v) ?? '';
    if (s.trim().toLowerCase() === 'auto')
      return { unknown: 'auto: the dtype stored in the checkpoint config', fromCheckpoint: true };
    return dtypeOf(s) ?? new Invalid(about('{0}: expected bfloat16, float16 or float32, found {1}', describe(v)));
  });
  // TRL's ModelConfig renamed the field; the HF examples' own ModelArguments (run_clm.py) still have `torch_dtype`.
  if (dtype?.key === 'torch_dtype' && ctx.tool === 'trl') ctx.deprecated(dtype, about(TORCH_DTYPE_RENAMED));
  ctx.put('attention', top.get('attn_implementation') ?? init.get('attn_implementation'), (v) => {
    const s = strOf(v);
    if (s === undefined)
      return new Invalid(about('{0}: expected an attention implementation name, found {1}', describe(v)));
    return attentionOf(s) ?? { unknown: `attn_implementation ${s}: memory behaviour not known` };
  });
  // The alignment handbook's ModelArguments before attn_implementation (and the recipes written for it, uclaml/SPIN's
  // configs/tulu-70B/config.yaml): handed to from_pretrained, which transformers 4.34-4.4x took as FlashAttention-2.
  if (!ctx.has('attention'))
    ctx.put('attention', top.get('use_flash_attention_2') ?? init.get('use_flash_attention_2'), (v) => {
      const b = boolOf(v);
      return b === undefined ? asBool(v) : b ? 'flash' : undefined;
    });
}

/** TrainingArguments' `fsdp` options and `fsdp_config`. */
function fsdpKeys(ctx: YamlCtx, top: Top): void {
  const fsdp = top.get('fsdp');
  if (fsdp) {
    ctx.put('fsdp', fsdp, (v) => {
      if (v.t === 'bool') return v.v ? 'full_shard' : undefined;
      const options = listOf(v);
      return options
        ? fsdpFromOptions(options).fsdp
        : new Invalid(about('{0}: expected FSDP options, found {1}', describe(v)));
    });
    const options = listOf(ctx.view(fsdp));
    if (options && fsdpFromOptions(options).offload) ctx.add('fsdpOffload', fsdp, true);
  }
  fsdpConfigKeys(ctx, ctx.sub(top.get('fsdp_config')));
  ctx.syncEachBatch(top.get('accelerator_config'));
  ctx.checkpointKwargs(top.get('gradient_checkpointing_kwargs'));
}

/**
 * TrainingArguments' fsdp_config, written inline or in the file it names (yaml/fsdp-config.ts): TrainingArguments
 * strips a `fsdp_` prefix from its keys and passes backward_prefetch, use_orig_params, cpu_ram_efficient_loading,
 * limit_all_gathers and activation_checkpointing (FSDP's own checkpoint_wrapper around each layer) to Accelerate.
 */
export function fsdpConfigKeys(ctx: YamlCtx, fsdpCfg: Map<string, Entry>): void {
  ctx.put(
    'fsdpBackwardPrefetch',
    fsdpCfg.get('backward_prefetch') ?? fsdpCfg.get('fsdp_backward_prefetch'),
    asBackwardPrefetch,
  );
  ctx.trainerOrigParams(fsdpCfg);
  ctx.trainerCpuRamEfficient(fsdpCfg);
  ctx.put('fsdpLimitAllGathers', fsdpCfg.get('limit_all_gathers') ?? fsdpCfg.get('fsdp_limit_all_gathers'), asBool);
  const fsdpCheckpointing = fsdpCfg.get('activation_checkpointing') ?? fsdpCfg.get('fsdp_activation_checkpointing');
  if (!ctx.has('gradientCheckpointing')) {
    ctx.put('gradientCheckpointing', fsdpCheckpointing, (v) => {
      const b = boolOf(v);
      return b === undefined ? asBool(v) : b ? 'full' : undefined;
    });
  }
  ctx.fsdpCheckpointing(fsdpCheckpointing);
}

/** What changes how the step runs: cache emptying, label smoothing, checkpoints, Liger, compile, offloading. */
function runtimeKeys(ctx: YamlCtx, top: Top): void {
  ctx.put('emptyCacheSteps', top.get('torch_empty_cache_steps'), asPosInt);
  ctx.put('labelSmoothing', top.get('label_smoothing_factor'), asNonNegNumber);
  ctx.put('savesCheckpoints', top.get('save_strategy'), asSaveStrategy);
  // TRL's GRPO / DPO / KTO configs' use_liger_loss: Liger's fused linear loss, no logits materialized.
  ctx.put('loss', top.get('use_liger_loss'), (v) => (boolOf(v) === true ? 'fused' : undefined));
  const liger = top.get('use_liger_kernel');
  if (isOn(ctx, liger) && liger) {
    ctx.add('loss', liger, 'fused');
    ctx.add('kernels', liger, 'liger');
  }
  sftKeys(ctx, top);
  // torch_compile_backend / torch_compile_mode switch torch_compile on implicitly.
  const compile = top.get('torch_compile');
  if (compile) ctx.put('compile', compile, asBool);
  else {
    const implied = top.get('torch_compile_backend') ?? top.get('torch_compile_mode');
    if (implied && ctx.view(implied).t !== 'absent') ctx.add('compile', implied, true);
  }
  ctx.put('activationOffloading', top.get('activation_offloading'), asBool);
  ctx.put('autoFindBatchSize', top.get('auto_find_batch_size'), asBool);
  ctx.put('ddpFindUnused', top.get('ddp_find_unused_parameters'), asBool);
}

/** DPOConfig's loss types (trl/trainer/dpo_config.py); sigmoid, hinge and ipo are CPOConfig's too. */
const DPO_LOSSES = new Set([
  'sigmoid',
  'hinge',
  'ipo',
  'exo_pair',
  'nca_pair',
  'robust',
  'bco_pair',
  'sppo_hard',
  'aot',
  'aot_pair',
  'apo_zero',
  'apo_down',
  'discopop',
]);
/** Keys only DPOConfig has (trl/trainer/dpo_config.py). */
const DPO_KEYS = [
  'ref_model_init_kwargs',
  'reference_free',
  'precompute_ref_log_probs',
  'rpo_alpha',
  'sync_ref_model',
  'ref_adapter_name',
  'model_adapter_name',
  'force_use_ref_model',
  'use_weighting',
  'ld_alpha',
  'f_divergence_type',
];
/**
 * Keys only CPOConfig has (SimPO is its loss_type simpo), and the SimPOConfig of SimPO's own trainer
 * (princeton-nlp/SimPO scripts/simpo_config.py gamma_beta_ratio): no reference model.
 */
const CPO_KEYS = ['cpo_alpha', 'simpo_gamma', 'gamma_beta_ratio'];
/** Keys only KTOConfig has: unpaired examples, a reference and a KL batch. */
const KTO_KEYS = ['desirable_weight', 'undesirable_weight'];

/**
 * A TRL YAML for one of the preference trainers (`trl dpo --config`, alignment-handbook's dpo / orpo recipes): the
 * objective its keys name. DPOConfig's own keys or loss types say DPO (a reference model; precompute_ref_log_probs
 * computes its log-probabilities once, rpo_alpha adds the chosen NLL), CPOConfig's say CPO / SimPO (no reference),
 * KTOConfig's say KTO. beta and max_prompt_length alone are keys of DPO, ORPO, CPO and KTO alike: DPO, the one that
 * keeps a reference model, is assumed there, as an assumption with its reason.
 */
function preferenceKeys(ctx: YamlCtx, top: Map<string, Entry>): void {
  if (ctx.tool !== 'trl' || ctx.has('rollout') || ctx.has('trlSft') || ctx.has('preference')) return;
  const present = (k: string): Entry | undefined => {
    const e = top.get(k);
    return e && ctx.view(e).t !== 'absent' ? e : undefined;
  };
  // Generation keys are the online trainers' (GRPO, RLOO, online DPO), whose rollout resolve/rollout.ts reads.
  if (present('max_completion_length') || present('use_vllm')) return;
  const first = (keys: readonly string[]): Entry | undefined => keys.map(present).find((e) => e !== undefined);
  const lossEntry = present('loss_type');
  const loss = lossEntry ? strOf(ctx.view(lossEntry))?.trim() : undefined;
  const kto = first(KTO_KEYS) ?? (loss === 'kto' || loss === 'apo_zero_unpaired' ? lossEntry : undefined);
  const cpo = first(CPO_KEYS) ?? (loss === 'simpo' ? lossEntry : undefined);
  const dpo = first(DPO_KEYS) ?? (loss !== undefined && DPO_LOSSES.has(loss) ? lossEntry : undefined);
  if (kto) ctx.add('preference', kto, 'kto');
  else if (cpo) {
    ctx.add('preference', cpo, 'reference-free');
    ctx.put('cpoAlpha', top.get('cpo_alpha'), asNonNegNumber);
  } else if (dpo) {
    const free = present('reference_free');
    ctx.add('preference', dpo, free && isOn(ctx, free) ? 'reference-free' : 'dpo');
    const precomputed = present('precompute_ref_log_probs');
    if (precomputed && isOn(ctx, precomputed)) ctx.add('referenceModel', precomputed, 'precomputed');
    ctx.put('rpoAlpha', top.get('rpo_alpha'), asNonNegNumber);
  } else {
    const shared = present('beta') ?? present('max_prompt_length');
    // The keys of DPOConfig, ORPOConfig, CPOConfig and KTOConfig alike: DPO, the most memory of them (a reference
    // model beside the policy), is assumed and said so.
    if (shared)
      ctx.addDefault(
        'preference',
        shared,
        'dpo',
        "beta and max_prompt_length are keys of TRL's DPOConfig, ORPOConfig, CPOConfig and KTOConfig alike: " +
          "DPO assumed, with its reference model (ORPO and CPO keep none; the script's trainer decides)",
      );
  }
}

/** Keys that only TRL's SFTConfig has: a TRL YAML with one of them is for `trl sft --config`. */
const SFT_KEYS = ['packing', 'packing_strategy', 'dataset_text_field', 'completion_only_loss', 'assistant_only_loss'];

/**
 * SFTConfig's loss_type (chunked_nll, nll, dft; DPO's and GRPO's loss types are other names), and whether the YAML is
 * an SFTTrainer's: an SFT-only key or an SFT loss type says so (the trl default loss then applies, resolve/loss.ts).
 */
function sftKeys(ctx: YamlCtx, top: Map<string, Entry>): void {
  const lossType = top.get('loss_type');
  const sftLoss = (v: Parameters<typeof strOf>[0]): 'full' | 'chunked-nll' | undefined =>
    TRL_SFT_LOSS_TYPES.get(strOf(v)?.trim() ?? '');
  if (!ctx.has('loss')) ctx.put('loss', lossType, sftLoss);
  if (ctx.tool !== 'trl') return;
  const marker =
    SFT_KEYS.map((k) => top.get(k)).find((e) => e !== undefined && ctx.view(e).t !== 'absent') ??
    (lossType && sftLoss(ctx.view(lossType)) ? lossType : undefined);
  if (marker) ctx.add('trlSft', marker, true);
}

/** TRL ModelConfig: use_peft with lora_* keys, load_in_4bit / load_in_8bit (nf4 by default in TRL). */
function peft(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('method', top.get('use_peft'), (v) => {
    const b = boolOf(v);
    return b === undefined ? asBool(v) : b ? 'lora' : 'full';
  });
  ctx.put('loraR', top.get('lora_r'), asPosInt);
  ctx.put('loraAlpha', top.get('lora_alpha'), asNonNegNumber);
  ctx.put('loraDropout', top.get('lora_dropout'), asNonNegNumber);
  ctx.put('loraDora', top.get('use_dora'), asBool);
  ctx.put('loraTargets', top.get('lora_target_modules'), (v) => {
    const list = listOf(v);
    if (!list || list.length === 0) return undefined;
    return list.length === 1 && list[0] === 'all-linear' ? 'all-linear' : list;
  });
  ctx.put(
    'loraModulesToSave',
    top.get('lora_modules_to_save'),
    (v) => listOf(v) ?? new Invalid(about('{0}: expected module names')),
  );
  const q4 = top.get('load_in_4bit');
  const q8 = top.get('load_in_8bit');
  if (isOn(ctx, q4) && q4) ctx.add('quantBits', q4, 4);
  else if (isOn(ctx, q8) && q8) ctx.add('quantBits', q8, 8);
  ctx.put('quantType', top.get('bnb_4bit_quant_type'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    return s === 'nf4' || s === 'fp4' ? s : new Invalid(about('{0}: expected nf4 or fp4, found {1}', describe(v)));
  });
  ctx.put('doubleQuant', top.get('use_bnb_nested_quant'), asBool);
}
