// Vocabulary tables, one per tool (FORMATS.md §2.1 OptimizerNames, §1.6, §5 Axolotl, §6 LLaMA-Factory, §7 torchtune):
// the values a setup change is written with in each format. Data.
/** HF `optim` names (TrainingArguments, TRL, Axolotl `optimizer`, LLaMA-Factory `optim`), FORMATS.md §2.1. */
export const HF_OPTIM: Record<string, string> = {
  adamw: 'adamw_torch',
  adamw_fused: 'adamw_torch_fused',
  adamw_8bit: 'adamw_bnb_8bit',
  paged_adamw_8bit: 'paged_adamw_8bit',
  paged_adamw: 'paged_adamw_32bit',
  adafactor: 'adafactor',
  sgd: 'sgd',
  rmsprop: 'rmsprop',
  lion: 'lion_32bit',
  lion_8bit: 'lion_8bit',
  adamw_4bit: 'adamw_torch_4bit',
};
/** DeepSpeed `optimizer.type`: native names plus torch.optim classes (FORMATS.md §1.6); bitsandbytes has none. */
export const DS_OPTIM: Record<string, string> = {
  adamw: 'AdamW',
  sgd: 'SGD',
  rmsprop: 'RMSprop',
  lion: 'Lion',
  adafactor: 'Adafactor',
};
/** torchtune `optimizer._component_` (FORMATS.md §7). */
export const TORCHTUNE_OPTIM: Record<string, string> = {
  adamw: 'torch.optim.AdamW',
  adamw_8bit: 'bitsandbytes.optim.AdamW8bit',
  paged_adamw_8bit: 'bitsandbytes.optim.PagedAdamW8bit',
  paged_adamw: 'bitsandbytes.optim.PagedAdamW',
  sgd: 'torch.optim.SGD',
  rmsprop: 'torch.optim.RMSprop',
  lion: 'bitsandbytes.optim.Lion',
  lion_8bit: 'bitsandbytes.optim.Lion8bit',
  adamw_4bit: 'torchao.optim.AdamW4bit',
  adafactor: 'torch.optim.Adafactor',
};
/** HF `attn_implementation` values (FORMATS.md §2.5). */
export const HF_ATTN: Record<string, string> = { eager: 'eager', sdpa: 'sdpa', flash: 'flash_attention_2' };
/** LLaMA-Factory `flash_attn` (FORMATS.md §6). */
export const LF_ATTN: Record<string, string> = { eager: 'disabled', sdpa: 'sdpa', flash: 'fa2' };
/** Axolotl's deprecated attention switches (FORMATS.md §5). */
export const AXOLOTL_ATTN_FLAGS: Record<string, string> = {
  flash: 'flash_attention',
  sdpa: 'sdp_attention',
  eager: 'eager_attention',
};
/** Accelerate `mixed_precision` (FORMATS.md §4): 'no' is quoted because PyYAML reads a plain no as False. */
export const ACCELERATE_MP: Record<string, string> = { none: 'no', bf16: 'bf16', fp16: 'fp16' };
/** HF `fsdp` option strings (FORMATS.md §2.1). */
export const HF_FSDP: Record<string, string> = {
  none: '',
  full_shard: 'full_shard auto_wrap',
  shard_grad_op: 'shard_grad_op auto_wrap',
  hybrid_shard: 'hybrid_shard auto_wrap',
  no_shard: 'no_shard',
};
/** Accelerate `fsdp_sharding_strategy` (FORMATS.md §4). */
export const ACCELERATE_FSDP: Record<string, string> = {
  full_shard: 'FULL_SHARD',
  shard_grad_op: 'SHARD_GRAD_OP',
  hybrid_shard: 'HYBRID_SHARD',
  no_shard: 'NO_SHARD',
};
/** Accelerate `fsdp_state_dict_type` (FSDP1's StateDictType names; Axolotl's fsdp_config takes the same). */
export const FSDP_STATE_DICT: Record<string, string> = {
  full: 'FULL_STATE_DICT',
  sharded: 'SHARDED_STATE_DICT',
  local: 'LOCAL_STATE_DICT',
};
export const TORCH_DTYPE: Record<string, string> = { bf16: 'bfloat16', fp16: 'float16', fp32: 'float32' };
