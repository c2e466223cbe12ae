// The reasons shown to the user for the defaults the TrainingSetup schema applies (setup.ts), where a file does not set
// a value. Pure data.
import type { SetupKey, TrainingSetup } from './setup';

/** Defaults of the rollout block, with the reason shown to the user when a file does not set them. */
export const ROLLOUT_DEFAULT_NOTES: Readonly<Record<keyof NonNullable<TrainingSetup['rollout']>, string>> = {
  objective: 'GRPO-style policy gradient: a round of completions is scored, then trained on',
  batch: 'completions generated per GPU in one round',
  completion_len: 'generated tokens per completion',
  engine: "the policy's own generate() on the training GPU",
  vllm_memory_fraction: "a colocated vLLM engine takes 0.3 of the GPU's memory (TRL vllm_gpu_memory_utilization)",
  vllm_sleep: 'the colocated engine keeps its share while the policy trains',
  vllm_tensor_parallel: "each GPU's colocated engine holds the whole model (vllm_tensor_parallel_size 1)",
  vllm_shared_weights: 'the colocated engine loads its own copy of the weights',
  vllm_memory_of: "the colocated engine's share is of the GPU's total memory",
  logps: "TRL's selective_log_softmax over the completion's logits",
  reference: 'no KL reference model (beta = 0)',
  old_logps: "the old policy's log-probabilities come from the generation round itself",
  scoring_batch: 'the scoring forward runs at the training micro-batch',
  gather_weights: 'ZeRO-3 gathers the full weights for generation (TRL ds3_gather_for_generation)',
  reward_models: 'rewards from functions only: no reward model loaded on the GPU',
  vllm_server: "trl vllm-serve's defaults: one GPU, gpu_memory_utilization 0.9, max_model_len the model's positions",
};

/** The defaults the schema applies, with the reason shown to the user. */
export const SCHEMA_DEFAULT_NOTES: Partial<Record<SetupKey, string>> = {
  method: 'full fine-tuning unless a LoRA/QLoRA/IA3/freeze setting says otherwise',
  weights_dtype: 'PyTorch loads weights in fp32 unless a dtype is given',
  kbit_upcast: 'parameters left unquantized stay in the model dtype (no prepare_model_for_kbit_training call seen)',
  mixed_precision: 'no autocast unless bf16/fp16 is enabled',
  optimizer: 'torch.optim.AdamW (two fp32 states per trainable parameter)',
  micro_batch_size: 'one sequence per GPU per step',
  gradient_accumulation_steps: 'no accumulation',
  seq_len: 'padded/packed sequence length assumed for the longest batch',
  gradient_checkpointing: 'off unless enabled',
  attention: 'SDPA, the Hugging Face default since transformers 4.36 (memory-efficient / flash kernel on CUDA)',
  loss: 'cross-entropy on the full fp32-upcast logits (Hugging Face ForCausalLMLoss)',
  gpus_per_node: 'a single GPU unless the launcher says otherwise',
  nodes: 'a single node',
  zero_stage: 'no ZeRO sharding',
  fsdp: 'no FSDP',
  fsdp_shard_embeddings:
    'embeddings and output head in the FSDP root unit (per-layer wrapping, as Accelerate wraps a model before 1.14)',
  fsdp_tail_unit: "FSDP2's final norm and output head in a unit kept unsharded from its forward to its backward",
  ddp_find_unused_parameters: 'DDP looks for parameters without gradients (find_unused_parameters)',
  batch_lengths: 'every batch seq_len tokens long (packed, or padded to the maximum length)',
  eval_batch_size: 'the evaluation batch during training',
  offload_optimizer: 'no offload',
  offload_params: 'no offload',
  tensor_parallel: 'no tensor parallelism',
  pipeline_parallel: 'no pipeline parallelism',
  context_parallel: 'no context parallelism: every GPU holds whole sequences',
};
