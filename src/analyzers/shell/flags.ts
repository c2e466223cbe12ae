// Flags: how each launcher and script flag maps to canonical keys (one FlagSpec per flag, per tool), and which
// launcher options take a value. Data and small converters; pure: no I/O, no node:* and no 'vscode'.
import {
  evaluationOn,
  galoreOf,
  galoreRankOf,
  useReentrantOfJson,
  normalizeOptimizer,
  type CanonicalKey,
  type FactValue,
  type Tool,
  type Unknown,
} from '../facts';
import { TRL_SFT_LOSS_TYPES } from '../defaults';
import { attentionOf } from '../yaml/values';

type Kind = 'int' | 'num' | 'bool' | 'str' | 'list';
type Out = Array<[CanonicalKey, FactValue | Unknown]>;

export interface FlagSpec {
  readonly key: CanonicalKey;
  readonly kind: Kind;
  /** Maps the parsed value to facts; undefined means the value is invalid. */
  readonly conv?: (v: FactValue) => Out | undefined;
  readonly tool?: Tool;
  /**
   * Read only from a value known statically, and only where conv takes it (else nothing is said): an option whose name
   * says what it is less surely than the others (`--model_name`, which some scripts use as a run's label).
   */
  readonly onlyKnown?: true;
  /** A bare flag (no value) is `true`, as a boolean option's is, though a value may be a word (`--flash_attn`). */
  readonly bareTrue?: true;
}

export const spec = (key: CanonicalKey, kind: Kind, conv?: FlagSpec['conv'], tool?: Tool): FlagSpec => ({
  key,
  kind,
  conv,
  tool,
});
const whenTrue =
  (...facts: Out): FlagSpec['conv'] =>
  (v) =>
    v === true ? facts : [];
/** A LoRA switch: on is LoRA, off a full fine-tune (the script's LoRA branch skipped: MedicalGPT's `--use_peft False`). */
const loraSwitch: FlagSpec['conv'] = (v) =>
  v === true ? [['method', 'lora']] : v === false ? [['method', 'full']] : [];
const oneOf =
  (key: CanonicalKey, table: Record<string, FactValue | Unknown>): FlagSpec['conv'] =>
  (v) => {
    const k = String(v).toLowerCase();
    return k in table ? [[key, table[k]]] : undefined;
  };
const gcOf = (b: FactValue): Out => [['gradientCheckpointing', b === true ? 'full' : 'none']];
/** `accelerate launch --fsdp_activation_checkpointing`: Accelerate wraps each layer in checkpoint_wrapper (NO_REENTRANT). */
const fsdpGcOf = (b: FactValue): Out =>
  b === true ? [...gcOf(b), ['checkpointReentrant', false], ['checkpointWrapper', true]] : gcOf(b);
const reentrantOf = (v: FactValue): Out => {
  const r = typeof v === 'string' ? useReentrantOfJson(v) : undefined;
  return r === undefined ? [] : [['checkpointReentrant', r]];
};
const intIn =
  (key: CanonicalKey, lo: number, hi: number): FlagSpec['conv'] =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi ? [[key, v]] : undefined;
const DTYPES: Record<string, FactValue | Unknown> = {
  bfloat16: 'bf16',
  bf16: 'bf16',
  float16: 'fp16',
  fp16: 'fp16',
  half: 'fp16',
  float32: 'fp32',
  fp32: 'fp32',
  float: 'fp32',
  auto: { unknown: "dtype 'auto' takes the checkpoint's dtype", fromCheckpoint: true },
};
const MIXED: Record<string, FactValue> = { no: 'none', none: 'none', fp16: 'fp16', bf16: 'bf16', fp8: 'fp8' };
const OFFLOAD: Record<string, FactValue> = { none: 'none', cpu: 'cpu', nvme: 'nvme' };
const ATTENTION: Record<string, FactValue | Unknown> = {
  eager: 'eager',
  sdpa: 'sdpa',
  flash_attention_2: 'flash',
  flash_attention_3: 'flash',
  fa2: 'flash',
  fa3: 'flash',
  disabled: 'eager',
  flex_attention: 'flash',
  auto: { unknown: "attention 'auto' depends on the installed packages" },
};
/**
 * `--attn_implementation`: transformers' names, or a kernel from the Hub (transformers' `kernels` integration,
 * `kernels-community/vllm-flash-attn3`), read by its name as the YAML configs' are (yaml/values.ts attentionOf).
 */
const attentionConv: FlagSpec['conv'] = (v) => {
  const k = String(v).toLowerCase();
  if (k in ATTENTION) return [['attention', ATTENTION[k]]];
  const hub = /^[\w.-]+\/[\w.-]+(?::[\w.-]+)?$/.test(k) ? attentionOf(k) : undefined;
  return hub ? [['attention', hub]] : undefined;
};
/** `accelerate launch --fsdp_backward_prefetch` (FSDP1's BackwardPrefetch: names, or 1 and 2). */
const BACKWARD_PREFETCH: Record<string, FactValue> = {
  backward_pre: 'pre',
  backward_post: 'post',
  no_prefetch: 'none',
  '1': 'pre',
  '2': 'post',
};
const FSDP_STRATEGY: Record<string, FactValue> = {
  full_shard: 'full_shard',
  '1': 'full_shard',
  shard_grad_op: 'shard_grad_op',
  '2': 'shard_grad_op',
  no_shard: 'no_shard',
  '3': 'no_shard',
  hybrid_shard: 'hybrid_shard',
  '4': 'hybrid_shard',
  hybrid_shard_zero2: 'hybrid_shard',
  '5': 'hybrid_shard',
};

/** `--fsdp "full_shard auto_wrap offload"` (HF TrainingArguments `fsdp`, transformers training_args.py `_process_fsdp_args`). */
function fsdpOf(v: FactValue): Out | undefined {
  const s = String(v).toLowerCase().trim();
  if (s === '' || s === 'false' || s === 'no') return [['fsdp', 'none']];
  if (s === 'true') return [['fsdp', 'full_shard']];
  const words = s.split(/[\s,]+/);
  const mode = words.map((w) => FSDP_STRATEGY[w]).find((x) => x !== undefined);
  const out: Out = [];
  if (mode !== undefined) out.push(['fsdp', mode]);
  // No sharding option (`--fsdp auto_wrap`): the Trainer still turns FSDP on (ACCELERATE_USE_FSDP), and Accelerate's
  // plugin takes FSDP_SHARDING_STRATEGY, FULL_SHARD unless the environment names another.
  else if (words.includes('offload') || words.includes('auto_wrap')) out.push(['fsdp', 'full_shard']);
  if (words.includes('offload')) out.push(['fsdpOffload', true]);
  return out.length ? out : undefined;
}

function loraTargetsOf(v: FactValue): Out {
  const items = (Array.isArray(v) ? v : String(v).split(',')).map((x) => String(x).trim()).filter((x) => x);
  if (items.length === 1 && (items[0] === 'all-linear' || items[0] === 'all')) return [['loraTargets', 'all-linear']];
  return [['loraTargets', items]];
}

const SEQ = spec('seqLen', 'int');
/** Packing on: every batch is seq_len long; off: each batch is padded to its longest sample. */
const packingOf = (v: FactValue): Out => [['batchLengths', v === true ? 'fixed' : 'variable']];
/** The same, where the packed rows are told apart by position ids or a mask (TRL, Axolotl): the model builds a mask. */
const maskedPackingOf = (v: FactValue): Out =>
  v === true
    ? [
        ['batchLengths', 'fixed'],
        ['paddedBatches', true],
      ]
    : packingOf(v);
const MODEL = spec('model', 'str');
/**
 * `--model_name Qwen/Qwen2.5-7B-Instruct` / `--model meta-llama/Llama-3.1-8B`: the model where the value is a Hub id
 * (`owner/name`) or a folder's path (`/DATA/models/gemma-2b`, `./models/llama-2-7b`: lun2hang/playgemma_textcls_sft
 * runs TRL's sft.py with `--model_name` a local folder), the option's use in the script being what it says (sotopia-rl
 * passes its arguments to a trainer class of its package); a plain word (`--model_name llama-7b-sft`, `--model hf`) is
 * no model.
 */
const MODEL_BY_HUB_ID: FlagSpec = {
  ...spec('model', 'str', (v) =>
    /^[A-Za-z0-9][\w.-]*\/[\w.-]+\/?$|^(\/|\.{1,2}\/|~\/)[\w./-]*[\w.-]+\/[\w.-]+\/?$/.test(String(v))
      ? [['model', v]]
      : undefined,
  ),
  onlyKnown: true,
};
/**
 * `--config_name` of the transformers example scripts (run_clm.py, run_mlm.py and their copies): the config the model
 * is built from, `AutoModelFor*.from_config(config)` from scratch where no --model_name_or_path is given (and the
 * architecture of one that is). Read as MODEL_BY_HUB_ID is, and also as a config file named alone
 * (`configs/roberta_medium.json`, `config.json`); below the model a file or --model_name_or_path gives.
 */
const CONFIG_NAME: FlagSpec = {
  ...spec('model', 'str', (v) => (/^[\w.-]+\.json$/.test(String(v)) ? [['model', v]] : MODEL_BY_HUB_ID.conv!(v))),
  onlyKnown: true,
};
const MICRO = spec('microBatchSize', 'int');
const EVAL_STRATEGY: FlagSpec['conv'] = (v) => {
  const on = evaluationOn(String(v));
  return on === undefined ? undefined : [['evalStrategy', on]];
};

/** Flags of the training script (HF TrainingArguments, TRL, PEFT examples, FastChat, open-instruct, DeepSpeed-Chat, Megatron), by normalized name. */
export const SCRIPT_FLAGS: Record<string, FlagSpec> = {
  per_device_train_batch_size: MICRO,
  per_gpu_train_batch_size: MICRO,
  micro_batch_size: MICRO,
  per_device_batch_size: MICRO,
  batch_size_per_device: MICRO,
  train_micro_batch_size_per_gpu: MICRO,
  per_device_eval_batch_size: spec('evalBatchSize', 'int'),
  per_gpu_eval_batch_size: spec('evalBatchSize', 'int'),
  eval_strategy: spec('evalStrategy', 'str', EVAL_STRATEGY),
  evaluation_strategy: spec('evalStrategy', 'str', EVAL_STRATEGY),
  gradient_accumulation_steps: spec('gradientAccumulationSteps', 'int'),
  torch_empty_cache_steps: spec('emptyCacheSteps', 'int'),
  label_smoothing_factor: spec('labelSmoothing', 'num'),
  save_strategy: spec(
    'savesCheckpoints',
    'str',
    oneOf('savesCheckpoints', { no: false, steps: true, epoch: true, best: true }),
  ),
  // TRL GRPOConfig: prompt and completion lengths, the generation round, the KL reference and the vLLM engine.
  max_prompt_length: spec('promptLen', 'int'),
  max_completion_length: spec('completionLen', 'int'),
  steps_per_generation: spec('stepsPerGeneration', 'int'),
  generation_batch_size: spec('generationBatchSize', 'int'),
  num_iterations: spec('numIterations', 'int'),
  num_generations: spec('numGenerations', 'int'),
  beta: spec('klBeta', 'num'),
  cpo_alpha: spec('cpoAlpha', 'num'),
  // TRL SFTConfig loss_type: chunked_nll, nll, dft; other trainers' loss types say nothing about the logits here.
  loss_type: spec('loss', 'str', (v) => {
    const loss = TRL_SFT_LOSS_TYPES.get(String(v));
    return loss ? [['loss', loss]] : [];
  }),
  rpo_alpha: spec('rpoAlpha', 'num'),
  // trl grpo (trl/scripts/grpo.py GRPOScriptArguments): a reward model by Hub id beside the reward functions.
  reward_model_name_or_path: spec('rewardModels', 'str', (v) =>
    typeof v === 'string' && v.length > 0 ? [['rewardModels', [v]]] : undefined,
  ),
  // trl online_dpo (OnlineDPOConfig reward_model_path): the reward model the script loads by Hub id or path.
  reward_model_path: spec('rewardModels', 'str', (v) =>
    typeof v === 'string' && v.length > 0 ? [['rewardModels', [v]]] : undefined,
  ),
  // OnlineDPOConfig before TRL 0.20: the colocated vLLM engine's share of the GPU.
  gpu_memory_utilization: spec('vllmMemoryFraction', 'num'),
  teacher_model_name_or_path: spec('teacherModel', 'str'),
  lmbda: spec('onPolicyFraction', 'num'),
  max_new_tokens: spec('maxNewTokens', 'int'),
  use_vllm: spec('useVllm', 'bool'),
  vllm_mode: spec('vllmMode', 'str', oneOf('vllmMode', { colocate: 'colocate', server: 'server' })),
  vllm_gpu_memory_utilization: spec('vllmMemoryFraction', 'num'),
  vllm_enable_sleep_mode: spec('vllmSleep', 'bool'),
  vllm_tensor_parallel_size: spec('vllmTensorParallel', 'int'),
  ds3_gather_for_generation: spec('gatherForGeneration', 'bool'),
  global_batch_size: spec('trainBatchSize', 'int'),
  bf16: spec('bf16', 'bool'),
  fp16: spec('fp16', 'bool'),
  pure_bf16: spec('pureBf16', 'bool'),
  mixed_precision: spec('mixedPrecision', 'str', oneOf('mixedPrecision', MIXED), 'accelerate'),
  gradient_checkpointing: spec('gradientCheckpointing', 'bool', gcOf),
  gradient_checkpointing_kwargs: spec('checkpointReentrant', 'str', reentrantOf),
  // PEFT's examples/sft ModelArguments and LLaMA-Factory's ModelArguments: passed on as gradient_checkpointing_kwargs.
  use_reentrant: spec('checkpointReentrant', 'bool'),
  use_reentrant_gc: spec('checkpointReentrant', 'bool'),
  enable_activation_checkpointing: spec('gradientCheckpointing', 'bool', gcOf),
  // The name PEFT's prepare_model_for_kbit_training, Unsloth and xllm's Config give the switch (BobaZooba/xllm-demo).
  use_gradient_checkpointing: spec('gradientCheckpointing', 'bool', gcOf),
  disable_gradient_checkpointing: spec('gradientCheckpointing', 'bool', whenTrue(['gradientCheckpointing', 'none'])),
  recompute_granularity: spec(
    'gradientCheckpointing',
    'str',
    oneOf('gradientCheckpointing', { full: 'full', selective: 'selective' }),
  ),
  checkpoint_activations: spec('gradientCheckpointing', 'bool', whenTrue(['gradientCheckpointing', 'full'])),
  recompute_activations: spec('gradientCheckpointing', 'bool', whenTrue(['gradientCheckpointing', 'selective'])),
  activation_offloading: spec('activationOffloading', 'bool'),
  auto_find_batch_size: spec('autoFindBatchSize', 'bool'),
  ddp_find_unused_parameters: spec('ddpFindUnused', 'bool'),
  enable_activation_offloading: spec('activationOffloading', 'bool'),
  // TrainingArguments' deprecated `adafactor` switch: __post_init__ sets optim to Adafactor over any optim given.
  adafactor: spec('optimizer', 'bool', (v) => (v === true ? [['optimizer', 'adafactor']] : [])),
  optim: spec('optimizer', 'str', (v) => {
    const g = galoreOf(String(v));
    return [
      ['optimizer', normalizeOptimizer(String(v))],
      ...(g
        ? ([
            ['galore', 'galore'],
            ['galoreLayerwise', g.layerwise],
          ] as Out)
        : []),
    ];
  }),
  optim_target_modules: spec('galoreTargets', 'list'),
  optim_args: spec('galoreRank', 'str', (v) => {
    const r = galoreRankOf(String(v));
    return r === undefined ? undefined : [['galoreRank', r]];
  }),
  optimizer: spec('optimizer', 'str', (v) => [['optimizer', normalizeOptimizer(String(v))]]),
  'optimizer._component_': spec('optimizer', 'str', (v) => [['optimizer', normalizeOptimizer(String(v))]]),
  zero_stage: spec('zeroStage', 'int', intIn('zeroStage', 0, 3)),
  offload: spec('offloadOptimizer', 'bool', whenTrue(['offloadOptimizer', 'cpu'], ['offloadParams', 'cpu'])),
  dtype: spec('weightsDtype', 'str', oneOf('weightsDtype', DTYPES)),
  torch_dtype: spec('weightsDtype', 'str', oneOf('weightsDtype', DTYPES)),
  model_name_or_path: MODEL,
  model_name: MODEL_BY_HUB_ID,
  // ColossalChat's (Coati) and many RLHF scripts' base model: `--pretrain bigscience/bloom-1b7`.
  pretrain: MODEL_BY_HUB_ID,
  model: MODEL_BY_HUB_ID,
  pretrained_model_name: MODEL_BY_HUB_ID,
  base_model_name: MODEL_BY_HUB_ID,
  // A vision-language model's vision tower trained with it (LLaMA-Factory's and 2U1/Qwen2-VL-Finetune's flag, ms-swift's).
  freeze_vision_tower: spec('visionTowerTrained', 'bool', (v) => [['visionTowerTrained', !v]]),
  freeze_vit: spec('visionTowerTrained', 'bool', (v) => [['visionTowerTrained', !v]]),
  // Other scripts' own names for it (VirtuosoResearch/Scalable-finetuning's --model_key TinyLlama/...).
  model_key: MODEL_BY_HUB_ID,
  model_repo: MODEL_BY_HUB_ID,
  model_checkpoint: MODEL_BY_HUB_ID,
  hf_model: MODEL_BY_HUB_ID,
  llm_model: MODEL_BY_HUB_ID,
  config_name: CONFIG_NAME,
  actor_model_name_or_path: MODEL,
  pretrained_model_name_or_path: MODEL,
  base_model: MODEL,
  model_id: MODEL,
  model_path: MODEL,
  base_model_name_or_path: MODEL,
  max_seq_length: SEQ,
  model_max_length: SEQ,
  max_length: SEQ,
  max_seq_len: SEQ,
  cutoff_len: SEQ,
  block_size: SEQ,
  seq_length: SEQ,
  sequence_len: SEQ,
  'tokenizer.max_seq_len': SEQ,
  packing: spec('batchLengths', 'bool', maskedPackingOf),
  sample_packing: spec('batchLengths', 'bool', maskedPackingOf),
  'dataset.packed': spec('batchLengths', 'bool', packingOf),
  lora_r: spec('loraR', 'int'),
  lora_dim: spec('loraR', 'int'),
  // DeepSpeed-Chat: only the LinearLayer_LoRA adapters train (hf-python deepspeedChatLora).
  only_optimize_lora: spec('method', 'bool', whenTrue(['method', 'lora'])),
  lora_rank: spec('loraR', 'int'),
  'model.lora_rank': spec('loraR', 'int'),
  lora_alpha: spec('loraAlpha', 'num'),
  'model.lora_alpha': spec('loraAlpha', 'num'),
  lora_dropout: spec('loraDropout', 'num'),
  'model.lora_dropout': spec('loraDropout', 'num'),
  lora_target_modules: spec('loraTargets', 'list', loraTargetsOf),
  lora_target: spec('loraTargets', 'str', loraTargetsOf),
  q_lora: spec('quantBits', 'bool', whenTrue(['method', 'qlora'], ['quantBits', 4])),
  use_qlora: spec('quantBits', 'bool', whenTrue(['method', 'qlora'], ['quantBits', 4])),
  qlora: spec('quantBits', 'bool', whenTrue(['method', 'qlora'], ['quantBits', 4])),
  load_in_4bit: spec('quantBits', 'bool', whenTrue(['quantBits', 4])),
  use_4bit_quantization: spec('quantBits', 'bool', whenTrue(['quantBits', 4])),
  load_in_8bit: spec('quantBits', 'bool', whenTrue(['quantBits', 8])),
  use_8bit_quantization: spec('quantBits', 'bool', whenTrue(['quantBits', 8])),
  quantization_bit: spec('quantBits', 'int', (v) => (v === 4 || v === 8 ? [['quantBits', v]] : undefined)),
  bnb_4bit_quant_type: spec('quantType', 'str', oneOf('quantType', { nf4: 'nf4', fp4: 'fp4' })),
  use_nested_quant: spec('doubleQuant', 'bool'),
  use_bnb_nested_quant: spec('doubleQuant', 'bool'),
  bnb_4bit_use_double_quant: spec('doubleQuant', 'bool'),
  double_quantization: spec('doubleQuant', 'bool'),
  use_peft: spec('method', 'bool', loraSwitch),
  use_peft_lora: spec('method', 'bool', loraSwitch),
  use_lora: spec('method', 'bool', loraSwitch),
  // xllm's Config: LoRA on the model (with load_in_4bit, QLoRA).
  apply_lora: spec('method', 'bool', loraSwitch),
  // princeton-nlp/LESS's model arguments (less/train/model_arguments.py: `lora: bool`).
  lora: spec('method', 'bool', loraSwitch),
  finetuning_type: spec('method', 'str', oneOf('method', { lora: 'lora', freeze: 'freeze', full: 'full' })),
  adapter: spec('method', 'str', oneOf('method', { lora: 'lora', qlora: 'qlora' })),
  freeze_trainable_layers: spec('freezeTrainableLayers', 'int'),
  fsdp: spec('fsdp', 'str', fsdpOf),
  torch_compile: spec('compile', 'bool'),
  compile: spec('compile', 'bool'),
  attn_implementation: spec('attention', 'str', attentionConv),
  // FastChat's `--flash_attn True|False` and LLaMA-Factory's `--flash_attn fa2|sdpa|disabled|auto`; False keeps the model default.
  // A bare `--flash_attn` parses only where the option is a boolean (LLaMA-Factory's src/train_bash.py era, FastChat):
  // FlashAttention-2 (GAIR-NLP/cs2916 2024/hw2/finetune/run.sh).
  flash_attn: {
    ...spec('attention', 'str', (v) =>
      toBool(String(v)) === false
        ? []
        : toBool(String(v)) === true
          ? [['attention', 'flash']]
          : oneOf('attention', ATTENTION)!(v),
    ),
    bareTrue: true,
  },
  use_flash_attn: spec('attention', 'bool', whenTrue(['attention', 'flash'])),
  use_flash_attention_2: spec('attention', 'bool', whenTrue(['attention', 'flash'])),
  flash_attention: spec('attention', 'bool', whenTrue(['attention', 'flash'])),
  sdp_attention: spec('attention', 'bool', whenTrue(['attention', 'sdpa'])),
  use_liger_kernel: spec('loss', 'bool', whenTrue(['loss', 'fused'], ['kernels', 'liger'])),
  // TRL's GRPO / DPO / KTO configs: Liger's fused linear loss takes the log-probabilities from the hidden states.
  use_liger_loss: spec('loss', 'bool', whenTrue(['loss', 'fused'])),
  enable_liger_kernel: spec('loss', 'bool', whenTrue(['loss', 'fused'], ['kernels', 'liger'])),
  fsdp_cpu_offload: spec('fsdpOffload', 'bool'),
  optimizer_in_bwd: spec('optimizerInBackward', 'bool'),
  tensor_model_parallel_size: spec('tensorParallel', 'int'),
  tensor_parallel_size: spec('tensorParallel', 'int'),
  tensor_parallel_dim: spec('tensorParallel', 'int'),
  pipeline_model_parallel_size: spec('pipelineParallel', 'int'),
  pipeline_parallel_size: spec('pipelineParallel', 'int'),
  sequence_parallel: spec('sequenceParallel', 'bool'),
};

/** Names whose meaning depends on the tool reading them (torchtune `batch_size` is per device; Axolotl's is global). */
export const TOOL_FLAGS: Partial<Record<Tool, Record<string, FlagSpec>>> = {
  torchtune: { batch_size: MICRO },
  axolotl: { batch_size: spec('trainBatchSize', 'int') },
};

/** `accelerate launch` options (accelerate@16cb6eb:src/accelerate/commands/launch.py); `num_processes` is the total over machines. */
const PREFETCH_FLAG = spec(
  'fsdpBackwardPrefetch',
  'str',
  oneOf('fsdpBackwardPrefetch', BACKWARD_PREFETCH),
  'accelerate',
);
export const ACCELERATE_FLAGS: Record<string, FlagSpec> = {
  num_processes: spec('worldSize', 'int'),
  num_machines: spec('nodes', 'int'),
  mixed_precision: spec('mixedPrecision', 'str', oneOf('mixedPrecision', MIXED)),
  zero_stage: spec('zeroStage', 'int', intIn('zeroStage', 0, 3)),
  offload_optimizer_device: spec('offloadOptimizer', 'str', oneOf('offloadOptimizer', OFFLOAD)),
  offload_param_device: spec('offloadParams', 'str', oneOf('offloadParams', OFFLOAD)),
  gradient_accumulation_steps: spec('gradientAccumulationSteps', 'int'),
  zero3_init_flag: spec('zero3Init', 'bool'),
  fsdp_sharding_strategy: spec('fsdp', 'str', oneOf('fsdp', FSDP_STRATEGY)),
  fsdp_offload_params: spec('fsdpOffload', 'bool'),
  fsdp_state_dict_type: spec(
    'fsdpStateDictType',
    'str',
    oneOf('fsdpStateDictType', { full_state_dict: 'full', sharded_state_dict: 'sharded', local_state_dict: 'local' }),
    'accelerate',
  ),
  fsdp_activation_checkpointing: spec('gradientCheckpointing', 'bool', fsdpGcOf),
  fsdp_backward_prefetch: PREFETCH_FLAG,
  // The name before Accelerate 0.21.
  fsdp_backward_prefetch_policy: PREFETCH_FLAG,
  // FSDP1 only ("true" unless given); accelerateFacts leaves it out under --fsdp_version 2.
  fsdp_use_orig_params: spec('fsdpUseOrigParams', 'bool'),
  fsdp_cpu_ram_efficient_loading: spec('fsdpCpuRamEfficientLoading', 'bool'),
  dynamo_backend: spec('compile', 'str', (v) => [['compile', !/^no(ne)?$/i.test(String(v))]]),
};
export const ACCELERATE_BOOL = new Set([
  'multi_gpu',
  'cpu',
  'tpu',
  'use_deepspeed',
  'use_fsdp',
  'use_megatron_lm',
  'use_xpu',
  'use_mps_device',
  'm',
  'module',
  'no_python',
  'debug',
  'quiet',
  'q',
  'dynamo_use_fullgraph',
  'dynamo_use_dynamic',
  'dynamo_use_regional_compilation',
  'same_network',
  'enable_cpu_affinity',
  'tpu_use_cluster',
  'tpu_use_sudo',
  'downcast_bf16',
  'ipex',
  'h',
  'help',
  'use_parallelism_config',
]);
export const TORCHRUN_BOOL = new Set([
  'standalone',
  'no_python',
  'module',
  'm',
  'use_env',
  'run_path',
  'virtual_local_rank',
  'h',
  'help',
]);
export const DEEPSPEED_BOOL = new Set([
  'module',
  'no_python',
  'no_local_rank',
  'no_ssh',
  'no_ssh_check',
  'force_multi',
  'save_pid',
  'elastic_training',
  'bind_cores_to_rank',
  'h',
  'help',
]);
export const SRUN_VALUE = new Set([
  'N',
  'n',
  'w',
  'c',
  'p',
  't',
  'J',
  'o',
  'e',
  'A',
  'q',
  'G',
  'nodes',
  'ntasks',
  'ntasks_per_node',
  'gpus',
  'gpus_per_node',
  'gpus_per_task',
  'cpus_per_task',
  'partition',
  'time',
  'job_name',
  'output',
  'error',
  'nodelist',
  'gres',
  'mem',
  'account',
  'qos',
  'container_image',
  'container_mounts',
  'container_workdir',
  'export',
  'mpi',
  'jobid',
  'cpu_bind',
  'distribution',
  'exclude',
  'x',
  'chdir',
  'D',
]);
export const MPIRUN_VALUE = new Set([
  'np',
  'n',
  'N',
  'H',
  'host',
  'hostfile',
  'machinefile',
  'x',
  'bind_to',
  'map_by',
  'rank_by',
  'npernode',
  'ppn',
  'wdir',
  'genv',
  'env',
  'f',
]);
export const TRL_SCRIPTS =
  /(^|\/)(sft|dpo|grpo|rloo|kto|orpo|reward|reward_modeling|ppo|online_dpo|xpo|nash_md|gkd|cpo|bco|prm)\.py$/;
/** trl vllm-serve flags read for the server check, and its boolean flags (which take no value). */
export const VLLM_SERVE_FLAGS: Record<string, FlagSpec> = {
  tensor_parallel_size: spec('vllmServerTp', 'int'),
  gpu_memory_utilization: spec('vllmServerMemoryFraction', 'num'),
  max_model_len: spec('vllmServerMaxModelLen', 'int'),
};
export const VLLM_SERVE_BOOL = new Set(['enforce_eager', 'trust_remote_code', 'enable_prefix_caching']);
export const VLLM_SERVER_KEYS: ReadonlySet<CanonicalKey> = new Set([
  'vllmServerTp',
  'vllmServerMemoryFraction',
  'vllmServerMaxModelLen',
]);
export const TRL_SUBCOMMANDS = new Set([
  'sft',
  'dpo',
  'grpo',
  'rloo',
  'kto',
  'reward',
  'orpo',
  'ppo',
  'online_dpo',
  'xpo',
  'gkd',
  'cpo',
  'bco',
]);

export const normName = (raw: string): string => raw.replace(/^-+/, '').replace(/-/g, '_').toLowerCase();
export const isNumberText = (s: string): boolean => /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s);

/** HF `string_to_bool` (transformers hf_argparser.py): yes/no, true/false, t/f, y/n, 1/0, any case. */
export function toBool(s: string): boolean | undefined {
  const l = s.toLowerCase();
  if (['yes', 'true', 't', 'y', '1'].includes(l)) return true;
  if (['no', 'false', 'f', 'n', '0'].includes(l)) return false;
  return undefined;
}

/**
 * A list written as one argument, `[q_proj,v_proj]` or `["q_proj", "v_proj"]`: Python Fire's literal (fire parser.py
 * `DefaultParseValue` reads bare names as strings; alpaca-lora's `--lora_target_modules='[q_proj,v_proj]'`), or JSON a
 * script loads. Undefined when the text is not bracketed.
 */
export function listLiteral(s: string): string[] | undefined {
  const m = /^\[(.*)\]$/s.exec(s.trim());
  if (!m) return undefined;
  return m[1]
    .split(',')
    .map((x) =>
      x
        .trim()
        .replace(/^(['"])(.*)\1$/s, '$2')
        .trim(),
    )
    .filter((x) => x);
}

/** Number of devices in a CUDA_VISIBLE_DEVICES / --gpu_ids value ('0,1' -> 2). */
export function deviceCount(s: string): number | undefined {
  const t = s.trim();
  if (t === '' || /^all$/i.test(t)) return undefined;
  const items = t
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x);
  return items.length && items.every((x) => /^(\d+|GPU-[\w-]+|MIG-[\w-/]+)$/.test(x)) ? items.length : undefined;
}

/** Options of `docker run` / `docker exec` that take a value (docker run --help), as skipOpts names them. */
export const DOCKER_VALUE = new Set([
  'e',
  'env',
  'env_file',
  'v',
  'volume',
  'mount',
  'name',
  'w',
  'workdir',
  'gpus',
  'shm_size',
  'ipc',
  'network',
  'net',
  'u',
  'user',
  'p',
  'publish',
  'entrypoint',
  'runtime',
  'ulimit',
  'cpus',
  'm',
  'memory',
  'device',
  'label',
  'l',
  'add_host',
  'cap_add',
  'cap_drop',
  'security_opt',
  'hostname',
  'h',
  'pid',
  'platform',
  'restart',
  'log_driver',
  'log_opt',
  'tmpfs',
  'group_add',
  'expose',
  'cidfile',
  'dns',
  'memory_swap',
  'cpuset_cpus',
  'storage_opt',
  'stop_signal',
  'volumes_from',
  'link',
  'pull',
  'uts',
  'userns',
  'cgroupns',
  'annotation',
]);

/** Options of `singularity exec` / `apptainer exec` that take a value (singularity exec --help), as skipOpts names them. */
export const SINGULARITY_VALUE = new Set([
  'B',
  'bind',
  'mount',
  'env',
  'env_file',
  'home',
  'H',
  'workdir',
  'W',
  'overlay',
  'o',
  'security',
  'network',
  'network_args',
  'hostname',
  'pwd',
  'scratch',
  'S',
  'app',
  'apply_cgroups',
  'dns',
  'fusemount',
  'drop_caps',
  'add_caps',
]);

/** Options of `uv run` / `conda run` that take a value (uv run --help, conda run --help). */
export const RUNNER_VALUE = new Set([
  '--with',
  '--with-requirements',
  '--with-editable',
  '--python',
  '-p',
  '--group',
  '--extra',
  '--env-file',
  '--directory',
  '--project',
  '--package',
  '--index',
  '-n',
  '--name',
  '--prefix',
  '--cwd',
]);
