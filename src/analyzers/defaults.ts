// Each tool's defaults for the values a file leaves out, with where the default comes from. resolve applies
// them when no file (and no flag or setting) gives a value, and lists them as assumptions. Pure data.
// Citations follow ../shared/FORMATS.md (repo@commit:path).
import type { Tool } from './facts';
import { CONFIG_TOOL_DEFAULTS } from './defaults-config-tools';

export interface ToolDefault {
  readonly value: unknown;
  readonly note: string;
}

export type Field =
  | 'method'
  | 'micro_batch_size'
  | 'gradient_accumulation_steps'
  | 'seq_len'
  | 'gradient_checkpointing'
  | 'optimizer'
  | 'attention'
  | 'lora.r'
  | 'lora.alpha'
  | 'lora.dropout'
  | 'lora.target_modules'
  | 'lora.dtype'
  | 'lora.saved_dtype'
  | 'quantization.type'
  | 'quantization.double_quant'
  | 'mixed_precision'
  | 'weights_dtype'
  | 'loss'
  | 'batch_lengths'
  | 'loop_keeps_outputs'
  | 'use_cache'
  | 'model_code'
  | 'model_logits_fp32'
  | 'fsdp_no_sync'
  | 'fsdp_backward_prefetch'
  | 'fsdp_use_orig_params'
  | 'fsdp_cpu_ram_efficient_loading';

const TITAN = 'pytorch/torchtitan@238fa99:torchtitan/config/job_config.py';
const NEMO_WORKER = 'NVIDIA/NeMo-RL@54bec9d:nemo_rl/models/policy/dtensor_policy_worker.py';
const RL2 = 'ChenmienTan/RL2@9161ede';
const AREAL = 'inclusionAI/AReaL@4aef98d';
const ARCTIC = 'snowflakedb/ArcticTraining@b28638e:arctic_training';

/** The HF Trainer's and TRL's attention default; a transformers pin before 4.36 runs eager (pinned-versions.ts). */
export const SDPA_DEFAULT_NOTE = 'attn_implementation defaults to sdpa in transformers >= 4.36';

const HF = 'transformers@00349ae:src/transformers/training_args.py';
const LITGPT = 'Lightning-AI/litgpt@2685705:litgpt/';
const SWIFT = 'modelscope/ms-swift@8773ecd:swift/'; // v3.12.6; 4.x (swift/arguments/) keeps these defaults
// OpenRLHF: the dotted CLI (--ds.zero_stage, since ed62d0e of 2026-04), the last flat one (--zero_stage), the commands
// removed in 6a981c8 (train_kd, train_kto, train_prm) and in 15d3151 (train_ppo, PPO without Ray).
export const ORLHF = 'OpenRLHF/OpenRLHF@3c3be62:openrlhf/';
export const ORLHF_FLAT = 'OpenRLHF/OpenRLHF@c1ba971:openrlhf/cli/';
export const ORLHF_REMOVED = 'OpenRLHF/OpenRLHF@0489850:openrlhf/cli/';
export const ORLHF_PPO = 'OpenRLHF/OpenRLHF@78da0e9:openrlhf/cli/train_ppo.py';
const VERL = 'volcengine/verl@b178a3c:';
const VERL_PPO = `${VERL}verl/trainer/config/_generated_ppo_trainer.yaml`;
// The HF Trainer runs every micro-batch but the last under accelerator.no_sync(model) unless the accelerator_config's
// gradient_accumulation_kwargs say sync_each_batch (transformers trainer.py _inner_training_loop; Accelerate no_sync:
// FSDP1 no_sync(), FSDP2 set_requires_gradient_sync(False)). Every Trainer-based tool inherits it.
const TRAINER_NO_SYNC: ToolDefault = {
  value: true,
  note:
    'the HF Trainer runs every micro-batch but the last under accelerator.no_sync (transformers trainer.py), unless ' +
    'accelerator_config gradient_accumulation_kwargs sets sync_each_batch',
};

// Accelerate's FullyShardedDataParallelPlugin turns FSDP1's backward prefetch off unless the config or the Trainer's
// fsdp_config names one (accelerate utils/dataclasses.py: NO_PREFETCH -> None; transformers training_args.py
// fsdp_config.get("backward_prefetch", "NO_PREFETCH")). Every Trainer-based tool inherits it.
const ACCELERATE_NO_PREFETCH: ToolDefault = {
  value: 'none',
  note:
    "Accelerate's FSDP plugin runs FSDP1 without backward prefetch (NO_PREFETCH) unless fsdp_backward_prefetch is " +
    'set (accelerate utils/dataclasses.py; the HF Trainer fsdp_config backward_prefetch defaults to NO_PREFETCH)',
};

// FSDP1's use_orig_params where no file names it: the HF Trainer passes fsdp_config.get("use_orig_params", "true") to
// Accelerate's plugin (transformers training_args.py), and `accelerate launch` sets FSDP_USE_ORIG_PARAMS from
// --fsdp_use_orig_params, "true" unless given (accelerate commands/launch.py, utils/launch.py), which is also what
// `accelerate config` writes. The plugin alone, built without the launcher's environment, defaults to False (accelerate
// utils/dataclasses.py); a FullyShardedDataParallel call too (analyzers/hf-python/loop.ts). FSDP2 has no such option.
const TRAINER_ORIG_PARAMS: ToolDefault = {
  value: true,
  note:
    'the HF Trainer runs FSDP1 with use_orig_params unless fsdp_config sets it false (fsdp_config.get("use_orig_params", ' +
    `"true"), ${HF}); accelerate launch passes fsdp_use_orig_params true too, while Accelerate's FSDP plugin alone ` +
    'defaults to false',
};
const ACCELERATE_ORIG_PARAMS: ToolDefault = {
  value: true,
  note:
    'accelerate launch runs FSDP1 with use_orig_params unless the config sets fsdp_use_orig_params false (its ' +
    '--fsdp_use_orig_params defaults to "true", accelerate commands/launch.py, and `accelerate config` writes true); ' +
    "Accelerate's FSDP plugin built without the launcher defaults to false (accelerate utils/dataclasses.py)",
};

// FSDP's CPU-RAM-efficient loading where no file names it: the HF Trainer sets FSDP_CPU_RAM_EFFICIENT_LOADING from
// fsdp_config.get("cpu_ram_efficient_loading", "false") when it configures FSDP (transformers training_args.py);
// `accelerate launch` from --fsdp_cpu_ram_efficient_loading, "true" unless given (accelerate commands/launch.py), which
// `accelerate config` also writes. Under transformers 4 it decides how a 4-bit model reaches FSDP1 (terms/bnb-load.ts).
const TRAINER_CPU_RAM_EFFICIENT: ToolDefault = {
  value: false,
  note: `the HF Trainer's fsdp_config cpu_ram_efficient_loading defaults to "false" (${HF})`,
};
const ACCELERATE_CPU_RAM_EFFICIENT: ToolDefault = {
  value: true,
  note:
    'accelerate launch loads with FSDP_CPU_RAM_EFFICIENT_LOADING unless the config sets fsdp_cpu_ram_efficient_loading ' +
    'false (its --fsdp_cpu_ram_efficient_loading defaults to "true", accelerate commands/launch.py)',
};

/** The HF Trainer's load without a dtype, read without a release (pinned-versions.ts reads it again under one). */
export const FROM_PRETRAINED_FP32_NOTE = 'from_pretrained loads fp32 weights unless dtype/torch_dtype is given';

export const TOOL_DEFAULTS: Partial<Record<Tool, Partial<Record<Field, ToolDefault>>>> = {
  // The DPO reference implementation loads with from_pretrained and no attention setting (train.py).
  'dpo-reference': { attention: { value: 'sdpa', note: SDPA_DEFAULT_NOTE } },
  halos: {
    'lora.dtype': {
      value: 'model',
      note: "HALOs' launch.py casts every lora_ module to model.policy_dtype after get_peft_model",
    },
  },
  'hf-trainer': {
    fsdp_no_sync: TRAINER_NO_SYNC,
    fsdp_backward_prefetch: ACCELERATE_NO_PREFETCH,
    fsdp_use_orig_params: TRAINER_ORIG_PARAMS,
    fsdp_cpu_ram_efficient_loading: TRAINER_CPU_RAM_EFFICIENT,
    micro_batch_size: { value: 8, note: `per_device_train_batch_size defaults to 8 (${HF})` },
    gradient_accumulation_steps: { value: 1, note: `gradient_accumulation_steps defaults to 1 (${HF})` },
    gradient_checkpointing: { value: 'none', note: `gradient_checkpointing defaults to False (${HF})` },
    optimizer: { value: 'adamw', note: `optim defaults to adamw_torch (adamw_torch_fused with torch >= 2.8) (${HF})` },
    attention: { value: 'sdpa', note: SDPA_DEFAULT_NOTE },
    weights_dtype: { value: 'fp32', note: FROM_PRETRAINED_FP32_NOTE },
    'lora.r': { value: 8, note: 'PEFT LoraConfig r defaults to 8 (peft@5d602fd:src/peft/tuners/lora/config.py)' },
    'lora.alpha': { value: 8, note: 'PEFT LoraConfig lora_alpha defaults to 8' },
    'lora.dropout': { value: 0, note: 'PEFT LoraConfig lora_dropout defaults to 0.0' },
    'lora.target_modules': {
      value: ['q_proj', 'v_proj'],
      note: 'PEFT targets q_proj and v_proj for llama-family models when target_modules is None',
    },
    'lora.dtype': { value: 'fp32', note: 'PEFT upcasts adapter weights to fp32 (autocast_adapter_dtype=True)' },
    'quantization.type': {
      value: 'fp4',
      note: 'BitsAndBytesConfig bnb_4bit_quant_type defaults to "fp4" (transformers quantization_config.py)',
    },
    'quantization.double_quant': { value: false, note: 'bnb_4bit_use_double_quant defaults to False' },
  },
  trl: {
    fsdp_no_sync: TRAINER_NO_SYNC,
    fsdp_backward_prefetch: ACCELERATE_NO_PREFETCH,
    fsdp_use_orig_params: TRAINER_ORIG_PARAMS,
    fsdp_cpu_ram_efficient_loading: TRAINER_CPU_RAM_EFFICIENT,
    micro_batch_size: { value: 8, note: `per_device_train_batch_size defaults to 8 (${HF})` },
    gradient_accumulation_steps: { value: 1, note: `gradient_accumulation_steps defaults to 1 (${HF})` },
    seq_len: {
      value: 1024,
      note:
        "max_length defaults to 1024 in TRL's SFTConfig, DPOConfig, KTOConfig and RewardConfig (and ORPO's, CPO's, BCO's " +
        "and PRM's configs): prompt + completion for preference pairs (trl 1.13 trl/trainer/sft_config.py, dpo_config.py, " +
        'kto_config.py, reward_config.py; trl@f2cd577)',
    },
    batch_lengths: {
      value: 'variable',
      note:
        'each batch is padded to its longest sample: SFTConfig packing defaults to False (trl@f2cd577:trl/trainer/sft_config.py); ' +
        'GRPO and RLOO pad prompts and completions to the longest of the batch',
    },
    gradient_checkpointing: {
      value: 'full',
      note: 'TRL configs default gradient_checkpointing=True (trl@f2cd577:trl/trainer/base_config.py)',
    },
    mixed_precision: {
      value: 'bf16',
      note: 'TRL configs default bf16 = not fp16 (trl@f2cd577:trl/trainer/base_config.py)',
    },
    optimizer: { value: 'adamw', note: `optim defaults to adamw_torch (${HF})` },
    attention: { value: 'sdpa', note: SDPA_DEFAULT_NOTE },
    weights_dtype: {
      value: 'fp32',
      note: 'TRL ModelConfig dtype defaults to "float32" (trl@f2cd577:trl/trainer/model_config.py)',
    },
    'lora.r': { value: 16, note: 'TRL ModelConfig lora_r defaults to 16' },
    'lora.alpha': { value: 32, note: 'TRL ModelConfig lora_alpha defaults to 32' },
    'lora.dropout': { value: 0.05, note: 'TRL ModelConfig lora_dropout defaults to 0.05' },
    'lora.target_modules': {
      value: ['q_proj', 'v_proj'],
      note: 'PEFT targets q_proj and v_proj for llama-family models when none are given',
    },
    'lora.dtype': { value: 'fp32', note: 'PEFT upcasts adapter weights to fp32 (autocast_adapter_dtype=True)' },
    'quantization.type': { value: 'nf4', note: 'TRL ModelConfig bnb_4bit_quant_type defaults to "nf4"' },
    'quantization.double_quant': { value: false, note: 'TRL ModelConfig use_bnb_nested_quant defaults to False' },
  },
  axolotl: {
    fsdp_no_sync: TRAINER_NO_SYNC,
    fsdp_backward_prefetch: ACCELERATE_NO_PREFETCH,
    fsdp_use_orig_params: TRAINER_ORIG_PARAMS,
    fsdp_cpu_ram_efficient_loading: TRAINER_CPU_RAM_EFFICIENT,
    micro_batch_size: { value: 1, note: 'Axolotl micro_batch_size defaults to 1 (axolotl@067b021 config schema)' },
    gradient_accumulation_steps: { value: 1, note: 'Axolotl gradient_accumulation_steps defaults to 1' },
    seq_len: { value: 512, note: 'Axolotl sequence_len defaults to 512' },
    batch_lengths: {
      value: 'variable',
      note: 'Axolotl sample_packing and pad_to_sequence_len default to off: each batch is padded to its longest sample',
    },
    gradient_checkpointing: { value: 'none', note: 'Axolotl gradient_checkpointing defaults to False' },
    optimizer: { value: 'adamw_fused', note: 'Axolotl optimizer defaults to adamw_torch_fused' },
    attention: { value: 'sdpa', note: 'transformers default attention (sdpa)' },
    weights_dtype: {
      value: 'bf16',
      note: 'Axolotl loads the model in bf16 when bf16 is enabled (the common "auto" on Ampere+)',
    },
    mixed_precision: { value: 'bf16', note: 'Axolotl bf16: auto becomes bf16 on Ampere and newer GPUs' },
    'lora.dtype': { value: 'fp32', note: 'PEFT upcasts adapter weights to fp32 (autocast_adapter_dtype=True)' },
    'lora.dropout': { value: 0, note: 'PEFT LoraConfig lora_dropout defaults to 0.0' },
    'quantization.type': { value: 'nf4', note: 'Axolotl QLoRA uses NF4 with double quantization' },
    'quantization.double_quant': { value: true, note: 'Axolotl QLoRA uses NF4 with double quantization' },
  },
  llamafactory: {
    // Without bf16 / fp16 the model is still loaded in 16 bits: model_args.compute_dtype is None, so patch_config sets
    // it to infer_optim_dtype(config.torch_dtype) and passes it as torch_dtype.
    weights_dtype: {
      value: 'bf16',
      note:
        'LLaMA-Factory loads the model in infer_optim_dtype(config.torch_dtype) when neither bf16 nor fp16 is set: ' +
        'bf16 for a bf16 checkpoint on a GPU that supports it, else fp16 (the same bytes), never fp32 on a GPU ' +
        '(LLaMA-Factory@01a6700 model/patcher.py patch_config, extras/misc.py infer_optim_dtype)',
    },
    fsdp_no_sync: TRAINER_NO_SYNC,
    fsdp_backward_prefetch: ACCELERATE_NO_PREFETCH,
    fsdp_use_orig_params: TRAINER_ORIG_PARAMS,
    fsdp_cpu_ram_efficient_loading: TRAINER_CPU_RAM_EFFICIENT,
    method: {
      value: 'lora',
      note: 'LLaMA-Factory finetuning_type defaults to lora (LLaMA-Factory@ff6d4d1 hparams/finetuning_args.py)',
    },
    micro_batch_size: {
      value: 8,
      note: `per_device_train_batch_size defaults to 8 (LLaMA-Factory uses HF TrainingArguments)`,
    },
    gradient_accumulation_steps: { value: 1, note: 'gradient_accumulation_steps defaults to 1' },
    seq_len: { value: 2048, note: 'LLaMA-Factory cutoff_len defaults to 2048 (LLaMA-Factory@ff6d4d1 data_args.py)' },
    batch_lengths: {
      value: 'variable',
      note: 'LLaMA-Factory packing is off except for stage pt: DataCollatorForSeq2Seq pads each batch to its longest sample',
    },
    gradient_checkpointing: {
      value: 'full',
      note: 'LLaMA-Factory enables gradient checkpointing unless disable_gradient_checkpointing',
    },
    optimizer: { value: 'adamw', note: `optim defaults to adamw_torch (${HF})` },
    attention: {
      value: 'sdpa',
      note: "LLaMA-Factory flash_attn: auto keeps transformers' default attention, SDPA (model_utils/attention.py configure_attn_implementation)",
    },
    'lora.r': { value: 8, note: 'LLaMA-Factory lora_rank defaults to 8' },
    'lora.dropout': { value: 0, note: 'LLaMA-Factory lora_dropout defaults to 0' },
    'lora.target_modules': { value: 'all-linear', note: 'LLaMA-Factory lora_target defaults to all' },
    'lora.dtype': {
      value: 'fp32',
      note: 'LLaMA-Factory upcasts trainable parameters to fp32 (upcast_trainable_params)',
    },
    'lora.saved_dtype': {
      value: 'fp32',
      note:
        'LLaMA-Factory upcasts every trainable parameter to fp32 outside pure_bf16 (model/adapter.py ' +
        'cast_trainable_params_to_fp32), the additional_target copies included',
    },
    'quantization.type': {
      value: 'nf4',
      note: 'LLaMA-Factory quantization_type defaults to nf4 with double quantization',
    },
    'quantization.double_quant': { value: true, note: 'LLaMA-Factory double_quantization defaults to True' },
  },
  torchtune: {
    fsdp_no_sync: {
      value: false,
      note: "the recipes reduce-scatter every micro-batch's gradients (no no_sync: torchtune recipes/full_finetune_distributed.py)",
    },
    gradient_accumulation_steps: { value: 1, note: 'torchtune recipes default gradient_accumulation_steps to 1' },
    batch_lengths: {
      value: 'variable',
      note: 'torchtune dataset.packed defaults to False: padded_collate_sft pads each batch to its longest sample',
    },
    gradient_checkpointing: { value: 'none', note: 'torchtune enable_activation_checkpointing defaults to False' },
    weights_dtype: { value: 'fp32', note: 'torchtune dtype defaults to fp32' },
    attention: { value: 'sdpa', note: 'torchtune attention uses torch SDPA' },
    optimizer: { value: 'adamw', note: 'torchtune recipes use torch.optim.AdamW' },
    loss: { value: 'full', note: 'torch CrossEntropyLoss unless a chunked/linear CE component is configured' },
    model_logits_fp32: {
      value: true,
      note: "torchtune's TransformerDecoder returns fp32 logits to a loss that takes them whole (`self.output(h).float()`)",
    },
    'lora.dtype': { value: 'model', note: 'torchtune keeps adapters in the model dtype' },
    'lora.dropout': { value: 0, note: 'torchtune lora_dropout defaults to 0.0' },
    'quantization.type': { value: 'nf4', note: 'torchtune QLoRA: torchao NF4 (block 64, quantized scales)' },
    'quantization.double_quant': { value: true, note: 'torchao NF4 quantizes its scales' },
  },
  litgpt: {
    fsdp_backward_prefetch: {
      value: 'pre',
      note: `finetune_full and pretrain shard with Fabric's FSDPStrategy, which leaves FSDP's backward_prefetch at BACKWARD_PRE (${LITGPT}finetune/full.py)`,
    },
    fsdp_no_sync: {
      value: true,
      note: `the scripts run the micro-batches before the last under fabric.no_backward_sync (FSDP no_sync) (${LITGPT})`,
    },
    loop_keeps_outputs: {
      value: true,
      note:
        `LitGPT's fit loops keep \`logits\` referenced until the next forward returns, and with it the step's graph ` +
        `(${LITGPT}finetune/lora.py fit: logits = model(input_ids, lm_head_chunk_size=128); full.py, adapter.py alike)`,
    },
    model_code: {
      value: 'litgpt',
      note: `LitGPT runs its own GPT model, not transformers' modeling code (${LITGPT}model.py)`,
    },
    micro_batch_size: {
      value: 1,
      note: `LitGPT train.micro_batch_size defaults to 1 in finetune_lora (${LITGPT}finetune/lora.py setup)`,
    },
    gradient_checkpointing: {
      value: 'none',
      note: `LitGPT checkpoints blocks only when it shards over several GPUs (${LITGPT}finetune/lora.py parallelize_fn)`,
    },
    weights_dtype: {
      value: 'fp32',
      note: `LitGPT precision defaults to bf16-mixed on a bf16 GPU: fp32 weights under autocast (${LITGPT}utils.py get_default_supported_precision)`,
    },
    mixed_precision: {
      value: 'bf16',
      note: `LitGPT precision defaults to bf16-mixed on a bf16 GPU (${LITGPT}utils.py get_default_supported_precision)`,
    },
    attention: {
      value: 'sdpa',
      note: `LitGPT's attention calls torch's scaled_dot_product_attention (${LITGPT}model.py CausalSelfAttention.scaled_dot_product_attention)`,
    },
    optimizer: { value: 'adamw', note: `LitGPT's optimizer defaults to "AdamW" (${LITGPT}finetune/lora.py setup)` },
    loss: {
      value: 'chunked',
      note:
        `LitGPT computes the head in chunks of 128 positions and the cross-entropy per chunk ` +
        `(${LITGPT}finetune/lora.py fit, lm_head_chunk_size=128; utils.py chunked_cross_entropy)`,
    },
    'lora.r': { value: 8, note: `LitGPT lora_r defaults to 8 (${LITGPT}finetune/lora.py setup)` },
    'lora.alpha': { value: 16, note: `LitGPT lora_alpha defaults to 16 (${LITGPT}finetune/lora.py setup)` },
    'lora.dropout': { value: 0.05, note: `LitGPT lora_dropout defaults to 0.05 (${LITGPT}finetune/lora.py setup)` },
    'lora.target_modules': {
      value: ['q_proj', 'v_proj'],
      note: `LitGPT switches LoRA on for the query and the value only by default (${LITGPT}finetune/lora.py setup)`,
    },
    'lora.dtype': {
      value: 'model',
      note: 'LitGPT keeps the adapters in the precision of the model (Fabric converts the whole module)',
    },
  },
  pytorch: {
    fsdp_no_sync: {
      value: false,
      note: 'a loop without no_sync, set_requires_gradient_sync(False) or accelerator.accumulate reduces every micro-batch',
    },
    micro_batch_size: {
      value: 1,
      note: 'torch.utils.data.DataLoader batch_size defaults to 1 (torch/utils/data/dataloader.py)',
    },
    gradient_accumulation_steps: {
      value: 1,
      note: 'the loop steps the optimizer after every backward (Accelerator gradient_accumulation_steps defaults to 1)',
    },
    gradient_checkpointing: {
      value: 'none',
      note: 'transformers models checkpoint only after gradient_checkpointing_enable() (modeling_utils.py)',
    },
    optimizer: {
      value: 'adamw',
      note: 'no optimizer class of torch.optim, bitsandbytes or transformers is constructed in the script: AdamW assumed',
    },
    loop_keeps_outputs: {
      value: false,
      note: "no variable of the training loop keeps the model's outputs into the next step",
    },
    use_cache: {
      value: true,
      note:
        "transformers' PretrainedConfig use_cache defaults to True, and outside gradient checkpointing the training " +
        'forward returns its DynamicCache (configuration_utils.py; checked with transformers 5.17 and 4.57)',
    },
  },
  'ms-swift': {
    fsdp_no_sync: TRAINER_NO_SYNC,
    micro_batch_size: {
      value: 1,
      note: `swift's per_device_train_batch_size defaults to 1 (${SWIFT}trainers/arguments.py TrainArgumentsMixin)`,
    },
    gradient_checkpointing: {
      value: 'full',
      note: `swift's gradient_checkpointing defaults to True (${SWIFT}trainers/arguments.py TrainArgumentsMixin)`,
    },
    batch_lengths: {
      value: 'variable',
      note: `swift's packing defaults to False: each batch is padded to its longest sample (${SWIFT}llm/argument/base_args/base_args.py)`,
    },
    optimizer: { value: 'adamw', note: `swift leaves optim to the HF default adamw_torch (${HF})` },
    attention: {
      value: 'sdpa',
      note: `swift's attn_impl defaults to None: the transformers default, sdpa (${SWIFT}llm/argument/base_args/model_args.py)`,
    },
    weights_dtype: {
      value: 'bf16',
      note:
        `swift's torch_dtype defaults to the dtype in the model's config (bfloat16 for most current checkpoints; ` +
        `a float16 or float32 checkpoint loads in that dtype) ` +
        `(${SWIFT}llm/argument/base_args/model_args.py _init_torch_dtype)`,
    },
    mixed_precision: {
      value: 'bf16',
      note:
        `swift turns on bf16 autocast for a bfloat16 torch_dtype, fp16 for float16 and float32 ` +
        `(${SWIFT}llm/argument/base_args/model_args.py _init_mixed_precision)`,
    },
    'lora.r': { value: 8, note: `swift's lora_rank defaults to 8 (${SWIFT}llm/argument/tuner_args.py)` },
    'lora.alpha': { value: 32, note: `swift's lora_alpha defaults to 32 (${SWIFT}llm/argument/tuner_args.py)` },
    'lora.dropout': { value: 0.05, note: `swift's lora_dropout defaults to 0.05 (${SWIFT}llm/argument/tuner_args.py)` },
    'lora.target_modules': {
      value: 'all-linear',
      note: `swift's target_modules defaults to ['all-linear'] (${SWIFT}llm/argument/tuner_args.py)`,
    },
    'lora.dtype': { value: 'fp32', note: 'PEFT upcasts adapter weights to fp32 (autocast_adapter_dtype=True)' },
    'quantization.type': {
      value: 'nf4',
      note: `swift's bnb_4bit_quant_type defaults to nf4 (${SWIFT}llm/argument/base_args/quant_args.py)`,
    },
    'quantization.double_quant': {
      value: true,
      note: `swift's bnb_4bit_use_double_quant defaults to True (${SWIFT}llm/argument/base_args/quant_args.py)`,
    },
  },
  openrlhf: {
    gradient_checkpointing: {
      value: 'none',
      note: `--model.gradient_checkpointing_enable (flat CLI: --gradient_checkpointing) is off by default (${ORLHF}cli/train_sft.py)`,
    },
    optimizer: {
      value: 'adamw_fused',
      note:
        `--optim defaults to adam: DeepSpeed builds FusedAdam from the optimizer block, DeepSpeedCPUAdam with --ds.adam_offload ` +
        `(${ORLHF}utils/deepspeed/deepspeed_utils.py get_train_ds_config)`,
    },
    attention: {
      value: 'flash',
      note:
        `--ds.attn_implementation (flat CLI: --attn_implementation) defaults to flash_attention_2 (${ORLHF}cli/train_sft.py); ` +
        'before 2025-08 the flat CLI had a --flash_attn switch, off by default',
    },
    weights_dtype: {
      value: 'bf16',
      note:
        `--ds.param_dtype (flat CLI: --param_dtype) defaults to bf16, the torch_dtype the model is loaded in (${ORLHF}models/actor.py); ` +
        'before 2026-01 the flat CLI had a --bf16 switch, off by default',
    },
    mixed_precision: {
      value: 'bf16',
      note: `DeepSpeed's bf16 block is on for param_dtype bf16 (${ORLHF}utils/deepspeed/deepspeed_utils.py get_train_ds_config)`,
    },
    batch_lengths: {
      value: 'variable',
      note: `without --ds.packing_samples each batch is padded to its longest sample (${ORLHF}datasets/sft_dataset.py collate_fn)`,
    },
    'lora.alpha': {
      value: 16,
      note: `--ds.lora.alpha (flat CLI: --lora_alpha) defaults to 16 (${ORLHF}cli/train_sft.py)`,
    },
    'lora.dropout': {
      value: 0,
      note: `--ds.lora.dropout (flat CLI: --lora_dropout) defaults to 0 (${ORLHF}cli/train_sft.py)`,
    },
    'lora.target_modules': {
      value: 'all-linear',
      note: `--ds.lora.target_modules (flat CLI: --target_modules) defaults to all-linear (${ORLHF}cli/train_sft.py)`,
    },
    'lora.dtype': {
      value: 'fp32',
      note:
        "DeepSpeed's bf16 engine keeps the adapters in bf16 with an fp32 master copy in the optimizer: the bytes per " +
        'trainable parameter of fp32 adapters (weight, gradient, master copy and two Adam states: 16)',
    },
    'quantization.type': {
      value: 'nf4',
      note: `--ds.load_in_4bit loads NF4 weights with double quantization (${ORLHF}models/actor.py BitsAndBytesConfig)`,
    },
    'quantization.double_quant': {
      value: true,
      note: `--ds.load_in_4bit loads NF4 weights with double quantization (${ORLHF}models/actor.py BitsAndBytesConfig)`,
    },
  },
  verl: {
    fsdp_no_sync: {
      value: false,
      note: `verl runs backward on each micro-batch without no_sync: FSDP reduce-scatters every one (${VERL}verl/workers/actor/dp_actor.py)`,
    },
    fsdp_backward_prefetch: {
      value: 'pre',
      note: `verl builds FSDP1 without backward_prefetch, so torch's BACKWARD_PRE applies (${VERL}verl/workers/fsdp_workers.py)`,
    },
    fsdp_use_orig_params: { value: false, note: `fsdp_config.use_orig_params defaults to false (${VERL_PPO})` },
    fsdp_cpu_ram_efficient_loading: {
      value: true,
      note:
        "verl loads the weights on rank 0's CPU, the others on the meta device, and FSDP syncs them " +
        `(sync_module_states; ${VERL}verl/workers/fsdp_workers.py)`,
    },
    gradient_checkpointing: {
      value: 'full',
      note: `model.enable_gradient_checkpointing defaults to true (${VERL_PPO}; sft_trainer.yaml too)`,
    },
    optimizer: { value: 'adamw', note: `optim.optimizer defaults to torch.optim AdamW (${VERL_PPO})` },
    attention: {
      value: 'flash',
      note: `verl loads the model with attn_implementation flash_attention_2 (${VERL}verl/workers/fsdp_workers.py)`,
    },
    weights_dtype: {
      value: 'fp32',
      note: `fsdp_config.model_dtype defaults to fp32 for the trained model (${VERL_PPO}; sft_trainer.yaml too)`,
    },
    mixed_precision: {
      value: 'bf16',
      note: `FSDP computes in bf16 (MixedPrecision param_dtype bf16, reduce and buffers fp32; ${VERL}verl/workers/fsdp_workers.py)`,
    },
    batch_lengths: {
      value: 'variable',
      note: `model.use_remove_padding runs the rollout's sequences unpadded; the estimate takes each at the longest length (${VERL_PPO})`,
    },
    'lora.alpha': { value: 16, note: `model.lora_alpha defaults to 16 (${VERL_PPO})` },
    'lora.dropout': { value: 0, note: "verl's LoraConfig sets no dropout: PEFT's 0.0" },
    'lora.target_modules': { value: 'all-linear', note: `model.target_modules defaults to all-linear (${VERL_PPO})` },
    'lora.dtype': { value: 'fp32', note: 'the adapters take the fp32 model dtype (PEFT autocast_adapter_dtype=True)' },
  },
  deepspeed: {
    micro_batch_size: {
      value: 1,
      note: 'DeepSpeed train_micro_batch_size_per_gpu defaults to 1 when no batch key is given (deepspeed/runtime/config.py)',
    },
    gradient_accumulation_steps: { value: 1, note: 'DeepSpeed gradient_accumulation_steps defaults to 1' },
    optimizer: { value: 'adamw_fused', note: 'DeepSpeed builds FusedAdam for an "Adam/AdamW" optimizer block' },
  },
  unsloth: {
    loss: {
      value: 'fused',
      note:
        "Unsloth computes the training loss with its chunked fused cross-entropy, one chunk's logits at a time " +
        '(unsloth_fused_ce_loss for every batch since 2025-10 unless UNSLOTH_RETURN_LOGITS=1; unsloth/models/llama.py)',
    },
    attention: {
      value: 'flash',
      note: 'Unsloth runs flash-attn or xformers attention kernels (memory linear in the sequence length)',
    },
    weights_dtype: {
      value: 'bf16',
      note: 'Unsloth from_pretrained dtype=None loads bfloat16 where the GPU supports it (float16 on T4 / V100)',
    },
    'lora.dtype': { value: 'fp32', note: "Unsloth's prepare_model_for_kbit_training keeps the LoRA weights in fp32" },
    'quantization.type': { value: 'nf4', note: 'Unsloth loads 4-bit weights as bitsandbytes NF4' },
    'quantization.double_quant': { value: true, note: 'Unsloth 4-bit loading uses double quantization' },
  },
  accelerate: {
    fsdp_backward_prefetch: ACCELERATE_NO_PREFETCH,
    fsdp_use_orig_params: ACCELERATE_ORIG_PARAMS,
    fsdp_cpu_ram_efficient_loading: ACCELERATE_CPU_RAM_EFFICIENT,
  },
  ...CONFIG_TOOL_DEFAULTS,
  'nemo-rl': {
    weights_dtype: {
      value: 'fp32',
      note: `NeMo-RL's policy workers load the model in float32; precision is FSDP's param_dtype (${NEMO_WORKER})`,
    },
    gradient_checkpointing: {
      value: 'none',
      note: 'NeMo-RL dtensor_cfg.activation_checkpointing / activation_checkpointing_enabled off unless set',
    },
    optimizer: { value: 'adamw', note: `torch.optim.AdamW with torch's defaults (foreach on CUDA) (${NEMO_WORKER})` },
    attention: { value: 'sdpa', note: `NeMo-RL's from_pretrained names no attn_implementation: sdpa (${NEMO_WORKER})` },
    loss: { value: 'full', note: "NeMo-RL's losses take log_softmax over the fp32 logits of every token" },
    batch_lengths: {
      value: 'variable',
      note: 'NeMo-RL pads each batch to its longest sequence (make_sequence_length_divisible_by)',
    },
    fsdp_no_sync: {
      value: false,
      note: `NeMo-RL's workers call backward on each micro-batch with no no_sync: every micro-batch reduce-scatters (${NEMO_WORKER})`,
    },
  },
  rl2: {
    weights_dtype: {
      value: 'fp32',
      note: `RL2's workers call from_pretrained without a dtype (${RL2}:RL2/workers/fsdp/actor.py)`,
    },
    attention: {
      value: 'flash',
      note: `RL2's workers load the model with attn_implementation="flash_attention_2" (${RL2}:RL2/workers/fsdp/actor.py)`,
    },
    optimizer: {
      value: 'adamw',
      note: `torch.optim.AdamW with torch's defaults (foreach on CUDA) (${RL2}:RL2/workers/fsdp/base.py)`,
    },
    mixed_precision: {
      value: 'bf16',
      note: `the worker's dtype defaults to bfloat16: FSDP's MixedPrecision param_dtype (${RL2}:RL2/trainer/config/actor/fsdp.yaml)`,
    },
    gradient_checkpointing: {
      value: 'full',
      note: `enable_gradient_checkpointing defaults to true (${RL2}:RL2/trainer/config/actor/fsdp.yaml)`,
    },
    loss: {
      value: 'full',
      note: `RL2 casts the logits to float32 and takes each token's log-probability from them (${RL2}:RL2/utils/functions.py)`,
    },
    batch_lengths: {
      value: 'fixed',
      note: `RL2 packs sequences into each micro-batch (${RL2}:RL2/utils/sequences.py)`,
    },
    fsdp_no_sync: {
      value: false,
      note: `RL2 calls backward on each micro-batch with no no_sync: every micro-batch reduce-scatters (${RL2}:RL2/workers/fsdp/actor.py)`,
    },
  },
  areal: {
    weights_dtype: {
      value: 'bf16',
      note: `AReaL's dtype defaults to bfloat16: the dtype the model is loaded in (${AREAL}:areal/api/cli_args.py)`,
    },
    mixed_precision: {
      value: 'bf16',
      note: `FSDP2's param_dtype is the engine's dtype, bfloat16 unless set (${AREAL}:areal/engine/fsdp_utils/parallel.py)`,
    },
    gradient_checkpointing: {
      value: 'none',
      note: `AReaL's gradient_checkpointing defaults to false (${AREAL}:areal/api/cli_args.py)`,
    },
    attention: {
      value: 'flash',
      note: `AReaL's attn_impl defaults to flash_attention_2 (${AREAL}:areal/api/cli_args.py)`,
    },
    optimizer: {
      value: 'adamw_fused',
      note: `AReaL's optimizer type "adam" is torch.optim.AdamW(fused=True) (${AREAL}:areal/engine/fsdp_engine.py)`,
    },
    loss: {
      value: 'full',
      note: "AReaL's actor takes each token's log-probability from the logits of the packed micro-batch",
    },
    batch_lengths: { value: 'fixed', note: 'AReaL packs sequences into each micro-batch (mb_spec)' },
    'lora.dtype': {
      value: 'model',
      note: `AReaL's get_peft_model passes autocast_adapter_dtype=False: the adapters keep the model's dtype (${AREAL}:areal/engine/fsdp_engine.py)`,
    },
    fsdp_no_sync: {
      value: false,
      note: `AReaL's engine reduce-scatters each micro-batch's gradients (${AREAL}:areal/engine/fsdp_engine.py)`,
    },
  },
  'arctic-training': {
    micro_batch_size: { value: 1, note: `ArcticTraining micro_batch_size defaults to 1 (${ARCTIC}/config/trainer.py)` },
    gradient_accumulation_steps: {
      value: 1,
      note: `ArcticTraining gradient_accumulation_steps defaults to 1 (${ARCTIC}/config/trainer.py)`,
    },
    gradient_checkpointing: {
      value: 'full',
      note: `ArcticTraining turns activation checkpointing on unless model.disable_activation_checkpoint (${ARCTIC}/model/hf_factory.py)`,
    },
    weights_dtype: { value: 'bf16', note: `ArcticTraining model.dtype defaults to bf16 (${ARCTIC}/config/model.py)` },
    attention: {
      value: 'sdpa',
      note: `ArcticTraining model.attn_implementation defaults to sdpa (${ARCTIC}/config/model.py)`,
    },
    optimizer: {
      value: 'adamw_fused',
      note: `ArcticTraining's SFT trainer steps DeepSpeed's FusedAdam unless optimizer.type says (${ARCTIC}/optimizer/adam_factory.py)`,
    },
    loss: {
      value: 'full',
      note: "ArcticTraining's SFT trainer takes the model's loss: the cross-entropy over the full logits (trainer/sft_trainer.py)",
    },
    batch_lengths: {
      value: 'variable',
      note: `ArcticTraining pads each batch to its longest sample, rounded up to div_length 256 (${ARCTIC}/data/sft_factory.py)`,
    },
  },
  torchtitan: {
    micro_batch_size: { value: 8, note: `torchtitan training.local_batch_size defaults to 8 (${TITAN})` },
    gradient_accumulation_steps: {
      value: 1,
      note: `torchtitan training.global_batch_size defaults to -1: local_batch_size x data-parallel degree (${TITAN})`,
    },
    seq_len: { value: 2048, note: `torchtitan training.seq_len defaults to 2048 (${TITAN})` },
    gradient_checkpointing: {
      value: 'selective',
      note:
        `torchtitan activation_checkpoint.mode defaults to selective with selective_ac_option "2" (every second ` +
        `block checkpointed), estimated as op-level selective checkpointing (${TITAN})`,
    },
    weights_dtype: { value: 'fp32', note: `torchtitan training.dtype defaults to float32 (${TITAN})` },
    mixed_precision: {
      value: 'bf16',
      note: `torchtitan training.mixed_precision_param defaults to bfloat16: FSDP2's param_dtype, autocast without FSDP (${TITAN})`,
    },
    optimizer: {
      value: 'adamw_fused',
      note: `torchtitan optimizer.name defaults to AdamW with implementation "fused" (${TITAN})`,
    },
    attention: { value: 'sdpa', note: "torchtitan's models run torch's scaled_dot_product_attention" },
    loss: {
      value: 'full',
      note: 'torchtitan cross_entropy_loss upcasts the whole logits (pred.flatten(0, 1).float()) (torchtitan/components/loss.py)',
    },
    batch_lengths: { value: 'fixed', note: "torchtitan's text datasets pack samples into seq_len-token rows" },
    fsdp_no_sync: {
      value: false,
      note: `torchtitan's train step reduce-scatters each micro-batch's gradients (no set_requires_gradient_sync) (${TITAN})`,
    },
  },
  'vram-lens': {},
};

/** The default for a field under the first tool (in priority order) that has one. */
export function toolDefault(tools: readonly Tool[], field: Field): (ToolDefault & { tool: Tool }) | undefined {
  for (const t of tools) {
    const d = TOOL_DEFAULTS[t]?.[field];
    if (d) return { ...d, tool: t };
  }
  return undefined;
}

/**
 * TRL SFTConfig's loss_type (trl@06b42c7:trl/trainer/sft_config.py, v1.7.0): unset, it becomes "chunked_nll" (or "nll"
 * with use_liger_kernel, whose fused loss the files say as `loss: fused`). Before TRL 1.7 it defaulted to "nll"
 * (withPinnedVersions reverts the default for an older pinned TRL). Unsloth patches SFTTrainer back to "nll"
 * (unslothai/unsloth PR 8261), so the default is TRL's own SFTTrainer's only.
 */
export const TRL_SFT_LOSS_DEFAULT: ToolDefault = {
  value: 'chunked-nll',
  note:
    'SFTConfig loss_type defaults to "chunked_nll" since TRL 1.7 (trl@06b42c7:trl/trainer/sft_config.py): the head ' +
    'and the cross-entropy run 256 tokens at a time under checkpointing; "nll" before 1.7',
};

/** SFTConfig loss_type values and the loss they run: "nll" and "dft" (dft_loss) take the model's whole logits. */
export const TRL_SFT_LOSS_TYPES: ReadonlyMap<string, 'full' | 'chunked-nll'> = new Map([
  ['chunked_nll', 'chunked-nll'],
  ['nll', 'full'],
  ['dft', 'full'],
]);
