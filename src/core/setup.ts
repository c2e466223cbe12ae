// The TrainingSetup: the one validated description of a training run that the estimator reads.
// Pure data and zod schemas; no I/O. Field names follow the scenario format of DESIGN.md (snake_case),
// so a scenario file maps onto it one to one and analyzers of other formats fill the same fields.
import { z } from 'zod';
import { HfConfigSchema } from './hf-config';

export { ARCHITECTURE_LIMITS, HfConfigSchema, type HfConfig } from './hf-config';

import { count, DtypeSchema, positiveInt, PYTORCH_VERSION, size } from './setup-primitives';
import { DistillationSchema, PreferenceSchema, RolloutSchema } from './setup-training-blocks';

export { DtypeSchema, PYTORCH_VERSION } from './setup-primitives';
export { DistillationSchema, PreferenceSchema, RewardModelSchema, RolloutSchema } from './setup-training-blocks';

export const MethodSchema = z.enum(['full', 'lora', 'qlora', 'freeze', 'ia3']);
export const MixedPrecisionSchema = z.enum(['none', 'bf16', 'fp16']);
export const OptimizerSchema = z.enum([
  'adamw',
  'adamw_fused',
  'adamw_hf',
  'adamw_8bit',
  'paged_adamw_8bit',
  'paged_adamw',
  'adafactor',
  'sgd',
  'sgd_momentum',
  'rmsprop',
  'lion',
  'lion_8bit',
  'adam_mini',
  'muon',
  'adamw_4bit',
  'none',
]);
export const CheckpointingSchema = z.enum(['none', 'full', 'selective']);
export const AttentionSchema = z.enum(['eager', 'sdpa', 'flash']);
export const FsdpSchema = z.enum(['none', 'full_shard', 'shard_grad_op', 'hybrid_shard', 'no_shard']);
export const OffloadSchema = z.enum(['none', 'cpu', 'nvme']);
/**
 * The cross-entropy: 'full' (the whole logits, HF ForCausalLMLoss), 'chunked' (torchtune CEWithChunkedOutputLoss, 8
 * chunks of the logits), 'chunked-linear' (torchtune LinearCrossEntropyLoss: the head and the cross-entropy 1/8 of the
 * tokens at a time, each chunk's fp32 log-softmax kept), 'fused' (Liger / Cut Cross-Entropy: no logits kept) or
 * 'chunked-nll' (TRL SFTTrainer's loss_type "chunked_nll", the default since TRL 1.7: the head and the cross-entropy run
 * 256 tokens at a time under checkpointing, trl/trainer/sft_trainer.py _chunked_cross_entropy_loss).
 */
export const LossSchema = z.enum(['full', 'chunked', 'chunked-linear', 'fused', 'chunked-nll']);
export const HeadSchema = z.enum(['causal_lm', 'masked_lm', 'seq_cls', 'seq2seq_lm', 'none']);

export const LoraSchema = z.strictObject({
  r: count(65_536).default(8),
  alpha: z.number().positive().optional(),
  dropout: z.number().min(0).max(1).default(0),
  /** Module names (q_proj, v_proj, ...) or the string 'all-linear'. */
  target_modules: z.union([z.array(z.string()).min(1), z.literal('all-linear')]).default(['q_proj', 'v_proj']),
  /** Whole modules trained and saved next to the adapter (e.g. embed_tokens, lm_head). */
  modules_to_save: z.array(z.string()).default([]),
  /** dtype of the modules_to_save copies (unset: the copied module's; LLaMA-Factory upcasts them, docs/scenario.md). */
  saved_dtype: DtypeSchema.optional(),
  /** dtype of the adapter weights: PEFT upcasts adapters to fp32 (autocast_adapter_dtype=True); torchtune keeps the model dtype. */
  dtype: DtypeSchema.default('fp32'),
  /**
   * DoRA (PEFT use_dora, torchtune DoRALinear): a trained magnitude per output feature rescales the weight; its gradient
   * keeps the base output and the LoRA output of every target, and the weight's norm is recomputed each forward.
   */
  use_dora: z.boolean().default(false),
  /**
   * LitGPT over a model whose q, k and v are one fused layer in its Hugging Face names too (Falcon's and GPT-NeoX's
   * query_key_value, Phi-3's qkv_proj): the parts LitGPT's LoRA adapts (its lora_query / lora_key / lora_value
   * switches; litgpt/lora.py LoRAQKVLinear enable_lora). Unset: every part.
   */
  qkv_parts: z
    .array(z.enum(['q', 'k', 'v']))
    .min(1)
    .optional(),
  /**
   * PEFT target_parameters: bare parameters adapted by LoRA, such as the 3-D fused experts of transformers 5
   * ('experts.gate_up_proj', 'mlp.experts.down_proj'; a leading layer index, as in '7.mlp.experts.gate_up_proj', limits
   * the target to that layer). Each is wrapped by PEFT's ParamWrapper: lora_A (in x r·E) and lora_B (r·E x out) per
   * targeted parameter, and W + BA materialized in every forward.
   */
  target_parameters: z.array(z.string()).min(1).optional(),
});

/** PEFT (IA)^3: a learned vector scales the output of each target (the input of a feed-forward target). */
export const Ia3Schema = z.strictObject({
  /** Module names; PEFT's default for llama-family models is k_proj, v_proj and down_proj. */
  target_modules: z.array(z.string()).min(1).default(['k_proj', 'v_proj', 'down_proj']),
  /** Targets whose input (not output) is scaled; PEFT's default for llama-family models is down_proj. */
  feedforward_modules: z.array(z.string()).default(['down_proj']),
  /** dtype of the vectors: PEFT keeps adapters in fp32 (autocast_adapter_dtype=True). */
  dtype: DtypeSchema.default('fp32'),
});

export const QuantizationSchema = z.strictObject({
  bits: z.union([z.literal(4), z.literal(8)]),
  type: z.enum(['nf4', 'fp4', 'int8', 'gptq', 'awq']).default('nf4'),
  double_quant: z.boolean().default(false),
  /** Block size of the quantization constants: 64 for bitsandbytes 4-bit, 64 for torchao NF4, group size for GPTQ/AWQ. */
  block_size: positiveInt.optional(),
  /** Which linear layers are quantized: every linear layer but the output head (bitsandbytes through transformers),
   *  or only those that carry a LoRA adapter (torchtune's quantize_base). */
  scope: z.enum(['all-linear', 'lora-targets']).default('all-linear'),
  /**
   * Who quantizes: bitsandbytes (transformers' BitsAndBytesConfig; the default) keeps a 4-bit weight's constants in a
   * QuantState on its module, outside the parameter, so ZeRO-3 and FSDP shard only the packed codes; torchao (torchtune)
   * NF4Tensor shards codes and constants together.
   */
  library: z.enum(['bitsandbytes', 'torchao']).optional(),
  /**
   * The fused 3-D MoE expert parameters (transformers 5), which bitsandbytes does not reach, are quantized too (Axolotl
   * quantize_moe_experts); without it they stay in the model dtype.
   */
  experts: z.boolean().optional(),
  /**
   * The output head is quantized too: Lightning Fabric's BitsandbytesPrecision (LitGPT's `quantize: bnb.*`) replaces
   * every nn.Linear, lm_head included; transformers' bitsandbytes integration keeps the head in 16 bits.
   */
  head: z.boolean().optional(),
  /**
   * The dtype a 4-bit weight is dequantized to (bitsandbytes' QuantState.dtype: the weight's dtype when it was
   * quantized). Fabric quantizes from fp16 (`weight.to(torch.half)`), so under bf16 compute each matmul's dequantized
   * weight is copied once more to bf16 (`dequantize_4bit(B).to(A.dtype)`). Unset: the compute dtype, no copy.
   */
  dequant_dtype: z.enum(['fp16', 'bf16', 'fp32']).optional(),
});

/** "auto": HF Trainer / Accelerate fill it from the model's hidden size (estimate/zero-config.ts). */
const sizeOrAuto = z.union([size, z.literal('auto')]);

export const ZeroBucketsSchema = z.strictObject({
  reduce_bucket_size: sizeOrAuto.optional(),
  allgather_bucket_size: size.optional(),
  stage3_prefetch_bucket_size: sizeOrAuto.optional(),
  stage3_max_live_parameters: size.optional(),
  stage3_max_reuse_distance: size.optional(),
  stage3_param_persistence_threshold: sizeOrAuto.optional(),
  /** ZeRO-3 steps the optimizer over sub-groups of this many parameters (default 1e9). */
  sub_group_size: size.optional(),
  /** Gradients copied into a flat bucket of reduce_bucket_size (DeepSpeed default true). */
  contiguous_gradients: z.boolean().optional(),
  /** Reduction overlapped with the backward: ZeRO-1/2 keep two buckets (DeepSpeed default: true at stage 3 only). */
  overlap_comm: z.boolean().optional(),
});

/**
 * A fully specified training run (after defaults). `architecture` is the model's HF config.json fields;
 * the estimator derives everything else from the fields below.
 */
export const TrainingSetupSchema = z.strictObject({
  /** Hub id or path, for display; the numbers come from `architecture`. */
  model: z.string().optional(),
  architecture: HfConfigSchema,
  /** Exact total parameter count when known (safetensors header, catalog); overrides the count from the architecture. */
  parameters: count(1e14).optional(),
  method: MethodSchema.default('full'),
  lora: LoraSchema.optional(),
  ia3: Ia3Schema.optional(),
  quantization: QuantizationSchema.optional(),
  /**
   * FP8 training under FSDP2 with torchao's float8 all-gather (Axolotl fp8_enable_fsdp_float8_all_gather): the linear
   * weights are all-gathered in fp8 (1 B per parameter).
   */
  fp8_all_gather: z.boolean().default(false),
  /** Layers left trainable in a 'freeze' run (the last N decoder layers), as LLaMA-Factory's freeze_trainable_layers. */
  freeze_trainable_layers: positiveInt.optional(),
  /**
   * Parameters a 4/8-bit model keeps unquantized, held in fp32: 'all' (PEFT prepare_model_for_kbit_training casts
   * norms, embeddings, output head and biases to fp32; on a model that is not quantized, every 16-bit parameter),
   * 'norms' (TRL's SFTTrainer before its November 2025 clean-up: prepare_model_for_kbit_training, then embeddings and
   * head back to bf16 by peft_module_casting_to_bf16), or 'none' (Axolotl, LLaMA-Factory, torchtune, current TRL).
   */
  kbit_upcast: z.enum(['none', 'norms', 'all']).default('none'),
  /**
   * With kbit_upcast 'norms': the embeddings and the head were cast to fp32 by prepare_model_for_kbit_training and then
   * back to bf16 (TRL's peft_module_casting_to_bf16, qlora.py's loop), their fp32 copies freed into the allocator's cache
   * (terms/kbit-setup-cache.ts); false where only the norms were cast (LLaMA-Factory's upcast_layernorm).
   */
  kbit_cast_back: z.boolean().default(false),
  weights_dtype: DtypeSchema.default('fp32'),
  mixed_precision: MixedPrecisionSchema.default('none'),
  master_weights: z.boolean().default(false),
  optimizer: OptimizerSchema.default('adamw'),
  micro_batch_size: count(65_536).default(1),
  gradient_accumulation_steps: count(2 ** 20).default(1),
  seq_len: count(2 ** 24).default(2048),
  /** An encoder-decoder's decoder tokens per sequence (max_target_length), beside seq_len in its encoder. Unset: seq_len. */
  target_len: count(2 ** 24).optional(),
  gradient_checkpointing: CheckpointingSchema.default('none'),
  attention: AttentionSchema.default('sdpa'),
  /**
   * The kernel behind attention 'flash' (one that keeps no s x s matrix): 'flash_attn' (flash_attention_2 / 3 and the
   * hub's flash-attn kernels, through transformers' flash path, which unpads a padded batch), 'flex' (FlexAttention:
   * a block mask, no unpadding), 'xformers' (memory_efficient_attention, Axolotl's patch) or 'sage' (SageAttention).
   * Unset: 'flash_attn'.
   */
  attention_kernel: z.enum(['flash_attn', 'flex', 'xformers', 'sage']).optional(),
  loss: LossSchema.default('full'),
  /** torch.compile: Inductor fuses elementwise chains (norms, activations, the loss) and saves only their inputs. */
  compile: z.boolean().default(false),
  /**
   * Whether the loss is compiled too (torchtune compile_loss, HF models that compute the loss inside the compiled
   * forward). Unset: the same as `compile`. torchtitan compiles each transformer block only.
   */
  compile_loss: z.boolean().optional(),
  head: HeadSchema.optional(),
  num_labels: positiveInt.default(2),
  /**
   * TRL's AutoModelForCausalLMWithValueHead (LLaMA-Factory stage: rm): the LM head's logits are computed and cast to
   * fp32 in every forward although no loss uses them, and a one-output value head scores the last hidden states; with
   * `preference` the chosen and rejected sequences run together and the pairwise loss compares their scores.
   */
  value_head: z.boolean().optional(),
  /**
   * The HF Trainer's label_smoothing_factor > 0: the labels are kept from the model, which returns its logits, and the
   * LabelSmoother takes a contiguous copy of the shifted logits, -log_softmax of it, and an fp32 sum over the classes.
   */
  label_smoothing: z.boolean().optional(),
  gpus_per_node: count(1024).default(1),
  nodes: count(100_000).default(1),
  zero_stage: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).default(0),
  zero_buckets: ZeroBucketsSchema.optional(),
  /** ZeRO++ hpZ: a secondary copy of the 16-bit parameters, partitioned over this many GPUs (a node), for all-gathers. */
  zero_hpz_partition_size: positiveInt.optional(),
  /** MiCS: ZeRO shards over groups of this many GPUs and replicates across the groups. */
  zero_mics_shard_size: positiveInt.optional(),
  fsdp: FsdpSchema.default('none'),
  /**
   * The FSDP implementation: 1 (FullyShardedDataParallel, flat parameters; Accelerate's default) or 2 (fully_shard,
   * one DTensor shard per parameter along dim 0: torchtune, torchtitan, Accelerate / Axolotl fsdp_version: 2).
   */
  fsdp_version: z.union([z.literal(1), z.literal(2)]).optional(),
  /**
   * FSDP1 with LoRA / IA3: each adapter layer an FSDP unit of its own (PEFT fsdp_auto_wrap_policy, which the HF Trainer
   * sets for a PEFT model), or false: inside its decoder layer's unit (use_orig_params=True), which makes the layers
   * save and FSDP reduce and keep what the frozen weights' gradients need. Unset: true (an assumption under FSDP1), and
   * false under model_code: litgpt (Fabric's FSDPStrategy wraps whole Blocks).
   */
  fsdp_adapters_wrapped: z.boolean().optional(),
  /**
   * FSDP1's backward prefetch (FullyShardedDataParallel backward_prefetch): 'pre' (BACKWARD_PRE, the constructor's
   * default, and what `accelerate config` writes) all-gathers the next unit of the backward when a unit's pre-backward
   * hook runs, the root's included, which fires as the loss's backward starts when the model returns the loss; 'post'
   * (BACKWARD_POST) in a unit's post-backward hook; 'none' (NO_PREFETCH, Accelerate's FullyShardedDataParallelPlugin
   * default, the HF Trainer's) not at all. Unset: 'pre' (an assumption under FSDP1).
   */
  fsdp_backward_prefetch: z.enum(['pre', 'post', 'none']).optional(),
  /**
   * FSDP1's rate limiter (FullyShardedDataParallel limit_all_gathers): true makes the CPU wait once two all-gathers
   * are in flight; false lets it run ahead of a GPU-bound forward by as many layers as the compute stream's launch
   * queue holds, each layer's gathered buffer held on the unshard stream until its kernels have run
   * (terms/fsdp1-launch-lead.ts). False was the default of FullyShardedDataParallel before PyTorch 2.1, of
   * Accelerate's FSDP plugin before 0.26 and of the HF Trainer's fsdp_config in 2023. Unset: true.
   */
  fsdp_limit_all_gathers: z.boolean().optional(),
  /**
   * FSDP1's use_orig_params: true (the HF Trainer's default, and what `accelerate config` writes) keeps the original
   * nn.Parameters as views of the FlatParameter; false (a FullyShardedDataParallel call's default, Accelerate's plugin's
   * when its config omits the key, Answer.AI's fsdp_qlora) hides them. With CPU offload the original parameters then
   * view each unit's GPU copy of its shard while it is unsharded (terms/fsdp1-offload-shard-copy.ts); with adapters in
   * units of their own PEFT reads the fp32 shard's dtype and casts the layers' inputs to it (terms/activations/stage.ts).
   * Unset: true (an assumption where it matters).
   */
  fsdp_use_orig_params: z.boolean().optional(),
  /**
   * FSDP's CPU-RAM-efficient loading (Accelerate's fsdp_cpu_ram_efficient_loading; the HF Trainer's fsdp_config
   * cpu_ram_efficient_loading): from_pretrained materialises the checkpoint on rank 0 only and FSDP broadcasts it
   * (sync_module_states). Under transformers 4 it sends a bitsandbytes 4-bit model's quantized weights to the host
   * one by one (terms/bnb-load.ts). `accelerate launch` and `accelerate config` default to true, the HF Trainer's own
   * fsdp_config to false. Unset: true (an assumption where it decides a 4-bit load).
   */
  fsdp_cpu_ram_efficient_loading: z.boolean().optional(),
  /**
   * How a bitsandbytes 4-bit model reaches FSDP1 or ZeRO-3 (terms/bnb-load.ts): 'warmup', whole onto each GPU after
   * transformers' caching_allocator_warmup (transformers 4.50 and later without CPU-RAM-efficient loading, all of 5);
   * 'gpu', whole onto each GPU, each weight quantized there with no warm-up (transformers before 4.50, Answer.AI's
   * fsdp_qlora with --low_memory false); 'host', each weight quantized on the GPU and sent to the host, FSDP1 building
   * the units from there (transformers 4 under CPU-RAM-efficient loading, Answer.AI's fsdp_qlora by default; under
   * ZeRO-3 transformers 4 whatever that says). Unset: from transformers_version and fsdp_cpu_ram_efficient_loading.
   */
  bnb_load: z.enum(['warmup', 'gpu', 'host']).optional(),
  /**
   * Gradient accumulation under FSDP with the gradient sync deferred to the last micro-batch (FSDP1 no_sync(), FSDP2
   * set_requires_gradient_sync(False)): what the HF Trainer, Accelerate's accumulate() and Lightning do, which keeps
   * every unsharded gradient from one micro-batch to the next. false: each micro-batch's gradients are reduce-scattered
   * as they come (FSDP's default in a plain loop, torchtune, torchtitan, Accelerate's sync_each_batch). Unset: true
   * (an assumption under FSDP with accumulation); false under FSDP2 with accelerate_version before 1.11.
   */
  fsdp_no_sync: z.boolean().optional(),
  /**
   * How FSDP1 writes a checkpoint (Accelerate fsdp_state_dict_type): 'full' gathers each unit and copies it to the CPU
   * (FULL_STATE_DICT, Accelerate's default for FSDP1), 'sharded' writes each rank's shard of every parameter
   * (SHARDED_STATE_DICT), 'local' the flat shards as they are. Unset: 'full' under FSDP1.
   */
  fsdp_state_dict_type: z.enum(['full', 'sharded', 'local']).optional(),
  /**
   * Whether the run writes checkpoints while it trains (HF TrainingArguments save_strategy other than "no"). Unset:
   * true, the HF Trainer's default (save_strategy "steps", every 500 steps).
   */
  saves_checkpoints: z.boolean().optional(),
  /** GPUs in one FSDP hybrid-shard group (defaults to gpus_per_node). */
  fsdp_shard_size: positiveInt.optional(),
  /**
   * Token embeddings and output head wrapped as FSDP units of their own (torchtune custom_sharded_layers), so they
   * are resharded after use. Otherwise they belong to the root unit, which FSDP keeps unsharded from forward to backward.
   */
  fsdp_shard_embeddings: z.boolean().default(false),
  /**
   * FSDP2 with the final norm and output head in a unit of their own that is not resharded after the forward, and
   * untied embeddings in one that is (Accelerate's fsdp2_prepare_model from 1.14, huggingface/accelerate#4015): the
   * head stays unsharded from its forward to its backward, no root unit holds the embeddings through the backward,
   * and the last layer is prefetched once the logits' gradient is there. With tied embeddings the tail unit holds
   * them, gathered at the start of the forward.
   */
  fsdp_tail_unit: z.boolean().optional(),
  /**
   * DDP with find_unused_parameters: its Reducer takes capped buckets from the first step (no single flat bucket), and
   * _DDPSink clones the forward's outputs. The HF Trainer sets it for a PEFT model or a model without gradient
   * checkpointing unless ddp_find_unused_parameters says otherwise; Axolotl sets false, LLaMA-Factory false for LoRA.
   */
  ddp_find_unused_parameters: z.boolean().optional(),
  /**
   * False: the data-parallel processes each train the whole model without torch's DistributedDataParallel (a loop of
   * the script's own that never wraps it, or wraps it only on a branch that does not run): no gradient buckets and no
   * output clones. Unset: DDP wraps the model wherever the GPUs hold whole copies (the Trainer, Accelerate and DDP).
   */
  ddp_wrap: z.boolean().optional(),
  /**
   * Whether every batch is seq_len tokens long (packed, or padded to the maximum length) or each batch is padded to
   * its own longest sample. Variable lengths leave blocks of earlier, shorter batches in the allocator's cache.
   */
  batch_lengths: z.enum(['fixed', 'variable']).default('fixed'),
  /**
   * Whether the model gets an attention mask: batches with padding tokens (padded to their longest sample or to
   * seq_len), or packed rows told apart by position ids. SDPA then takes the mask (each layer converts it) and
   * repeat_kv copies grouped key-value heads; without one transformers passes enable_gqa=True. Unset: a padded batch
   * when batch_lengths is variable and a micro-batch holds more than one sequence.
   */
  padded_batches: z.boolean().optional(),
  /**
   * PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: one growing segment per stream, whose freed ranges serve
   * requests of any size, so the blocks of earlier, shorter batches are not left cached beside the new ones.
   */
  expandable_segments: z.boolean().default(false),
  /** HF TrainingArguments torch_empty_cache_steps: torch.cuda.empty_cache() every N steps returns the cache to the driver. */
  empty_cache_steps: positiveInt.optional(),
  offload_optimizer: OffloadSchema.default('none'),
  offload_params: OffloadSchema.default('none'),
  /** Activations of checkpointed layers kept in host memory (torchtune / TRL activation offloading). */
  activation_offloading: z.boolean().default(false),
  /**
   * Where the optimizer's states are between their uses: on the GPU throughout ('always'); moved to host memory while a
   * colocated engine generates and back for the training update ('training': verl's optimizer_offload); or on the
   * GPU for the optimizer step only, moved in before it and out after it ('step': RL2's offload_optimizer, prime-rl's
   * CPUOffloadOptimizer). The training passes and the generation then hold none of them; the step holds them all.
   */
  optimizer_states_gpu: z.enum(['always', 'training', 'step']).default('always'),
  /**
   * Where the policy's weights are while a colocated engine generates: on the GPU throughout ('always'), or moved to
   * host memory once the engine has them and back for the passes that score and train ('training': verl's
   * param_offload, RL2's offload_model). Only the engine's generation is without them.
   */
  weights_gpu: z.enum(['always', 'training']).default('always'),
  /**
   * A vision-language model's vision tower trains with the language model (verl and EasyR1 freeze_vision_tower false,
   * their default): not modeled, a warning; the estimate keeps the tower frozen.
   */
  vision_tower_trained: z.boolean().default(false),
  /**
   * Tiled MLP (DeepSpeed ALST TiledMLP, Axolotl tiled_mlp): each dense MLP runs in sequence shards without grad and
   * keeps only its input; backward recomputes one shard at a time. true: ceil(seq_len / hidden_size) shards (Axolotl's
   * default); a number: that many shards.
   */
  tiled_mlp: z.union([z.boolean(), positiveInt]).default(false),
  /**
   * Kernels the blocks run: PyTorch's ops (the transformers modules); Liger's (RMSNorm and SwiGLU/GeGLU as single
   * kernels that keep only their inputs, RoPE in place: use_liger_kernel); or Unsloth's fused Triton kernels
   * (LoRA_QKV, LoRA_W, LoRA_MLP, RMSNorm, RoPE), which keep fewer tensors for backward.
   */
  kernels: z.enum(['pytorch', 'liger', 'unsloth']).default('pytorch'),
  /**
   * Gated DeltaNet layers (Qwen3-Next, Qwen3.5): 'fla' when flash-linear-attention and causal-conv1d are installed
   * (their kernels), 'torch' for transformers' torch fallback, which keeps several times more for backward. Unset: fla,
   * listed as an assumption.
   */
  linear_attention_kernels: z.enum(['fla', 'torch']).optional(),
  /**
   * Mamba2 layers (Granite 4.0 H): 'cuda' when mamba_ssm and causal-conv1d are installed (the fused kernel), 'torch' for
   * transformers' torch_forward. Unset: cuda, listed as an assumption.
   */
  mamba_kernels: z.enum(['cuda', 'torch']).optional(),
  /**
   * optimizer.zero_grad(set_to_none=True), the default since PyTorch 2.0: gradients are freed after each step.
   * With False (PyTorch < 2.0, or set explicitly) gradient buffers stay allocated through the next forward.
   */
  zero_grad_set_to_none: z.boolean().default(true),
  /**
   * The training loop keeps the last step's outputs referenced into the next step: a loop that rebinds
   * `outputs = model(...)` or `logits = model(...)` each iteration without deleting them (LitGPT's fit loops keep
   * `logits` until the next forward returns). A step's logits stay allocated through its backward, its optimizer step
   * and the next forward, and so does its autograd graph, with what its Functions keep as ctx attributes
   * (bitsandbytes' kept inputs: PyTorch frees saved tensors after backward, ctx attributes only with the graph).
   * HF Trainer, TRL and Axolotl return `loss.detach()` from each step, which frees both. 'step': the loop references
   * the outputs through the step's backward and optimizer step and drops them before the next forward (`output = None`
   * or `del outputs` after the backward: AnswerDotAI/fsdp_qlora@05ed9f2:train.py train_fsdp), so the logits are counted
   * at the backward and the optimizer step only. Unset: false.
   */
  loop_keeps_outputs: z.union([z.boolean(), z.literal('step')]).default(false),
  /**
   * The loop runs its longest batch first, so an out-of-memory shows at once: Lit-GPT's finetune scripts from fa5d73e
   * (June 2023) to 73baa2d (February 2024), `get_batch(..., longest_seq_ix if iter_num == 0 else None)`. That batch
   * meets no outputs a loop keeps from an earlier step (loop_keeps_outputs), and the shorter batches after it, with what
   * they keep of the one before, are taken to stay below it. Unset: false.
   */
  longest_batch_first: z.boolean().default(false),
  /**
   * transformers' `use_cache` in the training forward: a DynamicCache of every layer's keys and values in the outputs
   * (on by the config's default; off under checkpointing and in HF Trainer 5), counted where the loop keeps its outputs
   * (loop_keeps_outputs): the cache lives with them (`outputs.past_key_values`). Unset: false.
   */
  use_cache: z.boolean().default(false),
  /**
   * Whose model code runs the layers: transformers' (HF Trainer, TRL, Axolotl, LLaMA-Factory, a from_pretrained loop)
   * or LitGPT's model.py. For Falcon, transformers' FalconAttention hands SDPA one key and value head with a mask, which
   * only the math kernel takes; LitGPT repeats them for every head and reaches a fused kernel. Unset: transformers.
   */
  model_code: z.enum(['transformers', 'litgpt']).default('transformers'),
  /**
   * A lit-gpt checkout from before 50b1974b (2023-10-24), which made no repeat for a multi-query model: SDPA's math
   * kernel runs (terms/activations/sdpa-math.ts; the flash-attn package, where installed, took it). Unset: false.
   */
  litgpt_mqa_broadcast: z.boolean().optional(),
  /**
   * The model's forward hands the loss fp32 logits, upcast outside any compiled region: torchtune's decoder without
   * output chunks ends in `self.output(h).float()` and is compiled apart from its loss, so a compiled full cross-entropy
   * keeps them and makes their gradient in fp32 (tools/truth/compiled_loss.py). Unset: the loss upcasts them.
   */
  model_logits_fp32: z.boolean().optional(),
  /**
   * 'openrlhf': the logits and log-probabilities of OpenRLHF's Actor (openrlhf/models/actor.py forward, since
   * OpenRLHF/OpenRLHF#634): the head's 16-bit output cast to fp32 (`output["logits"].to(torch.float32)`, the 16-bit
   * tensor freed), then log_probs_from_logits (models/utils.py), flash-attn's triton cross_entropy_loss, which keeps the
   * fp32 logits and an fp32 loss and logsumexp per token for backward and writes the logits' gradient into a new fp32
   * tensor (inplace_backward off). SFT (>= 0.7) and DPO take their loss so. Unset: the loss of `loss`.
   */
  actor_logps: z.enum(['openrlhf']).optional(),
  /**
   * Evaluation forwards are split over the context-parallel group as training's are (Axolotl's
   * SequenceParallelContextManager hooks the model for the whole trainer.train(), evaluation included:
   * src/axolotl/train.py execute_training). Unset: an evaluation forward runs whole sequences on each GPU.
   */
  eval_sequence_split: z.boolean().optional(),
  /** LitGPT pretrain's train.tie_embeddings: the head shares the embedding whatever the config says (model_code litgpt;
   * unset, LitGPT's GPT keeps a head of its own, a copy of a tied model's embedding: architecture/litgpt-head.ts). */
  tie_embeddings: z.boolean().optional(),
  /**
   * PyTorch version the run uses ("major.minor"), for behaviour that changed between releases: before 1.11 softmax
   * and log_softmax keep their input for backward as well as their output. Unset: a current release.
   */
  pytorch_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 2.4 or 1.10.2').optional(),
  /**
   * transformers version the run uses ("major.minor"). From 5.0 the experts of Mixtral, Qwen2-MoE, Qwen3-MoE,
   * DeepSeek-V2/V3 and GLM-4.5 are fused 3-D parameters (modeling_*.py `@use_experts_implementation`), not one
   * nn.Linear per expert: bitsandbytes leaves them unquantized, and PEFT's target_modules reaches them only through
   * PEFT's own conversion of the 4.x expert names (peft_version). Unset: a current release (5.x).
   */
  transformers_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 5.2 or 4.57.1').optional(),
  /**
   * PEFT version the run uses ("major.minor"). With transformers 5, PEFT 0.19 and later map LoRA target_modules that
   * name the 4.x expert modules (Mixtral w1 / w3 / w2 and the router gate; gate_proj / up_proj / down_proj of Qwen3-MoE,
   * Qwen3-Next, DeepSeek-V2/V3, GLM-4.5) onto the fused 3-D expert parameters and the router's weight, as
   * target_parameters (peft/utils/transformers_weight_conversion.py `_convert_peft_config_moe`); 0.20 and later do
   * the same for `all-linear`. Before 0.19 target_modules does not reach the fused experts. Unset: a current release.
   */
  peft_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 0.21 or 0.18.1').optional(),
  /**
   * torchao version ("major.minor") of a torchtune QLoRA run (NF4 base weights). Before 0.2 NF4Tensor.from_tensor
   * compares every element with the 16 NF4 codes at once (numel x 16 16-bit elements, twice; pytorch/ao#196 quantizes
   * in chunks since), and torchtune 0.1 quantizes each weight on the GPU three times while it builds and loads the
   * model: the segments this leaves in the allocator's cache stay reserved through training. Unset: a current release.
   */
  torchao_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 0.1 or 0.8.0').optional(),
  /**
   * bitsandbytes version ("major.minor[.patch]") of a run with 4-bit bitsandbytes layers. Before 0.43.2 MatMul4Bit
   * kept each quantized linear's input for backward as a ctx attribute (`ctx.tensors = (A, B)`;
   * bitsandbytes-foundation/bitsandbytes#1270 keeps `(None, B)` since), which non-reentrant checkpointing does not
   * release. Unset: a current release.
   */
  bitsandbytes_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 0.43.1 or 0.45').optional(),
  /**
   * Accelerate version the run uses ("major.minor"). Before 0.31 its FSDP plugin left SHARDED_STATE_DICT's config
   * unset, so FSDP1 kept every parameter's shard on the GPU (ShardedStateDictConfig offload_to_cpu=False) until the
   * whole state dict was built (huggingface/accelerate#2762 moves each to the CPU as it is made). Before 1.11 its
   * no_sync() left FSDP2 modules reducing every micro-batch (huggingface/accelerate#3762). Unset: a current release.
   */
  accelerate_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 1.10 or 0.28.0').optional(),
  /**
   * DeepSpeed version the run uses ("major.minor.patch"). Before 0.18.2 ZeRO-1/2's backward() made the contiguous
   * gradient buckets before the loss's backward (stage_1_and_2.py backward); since the backward prologue runs from a
   * hook (deepspeedai/DeepSpeed#7665), at the first gradient. Unset: a current release.
   */
  deepspeed_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 0.16.5 or 0.18').optional(),
  /**
   * Whether a ZeRO-3 model is made inside deepspeed.zero.Init (Accelerate's zero3_init_flag): the HF Trainer and TRL
   * load it so at stage 3 (TrainingArguments hands DeepSpeed's config to from_pretrained, set_deepspeed_weakref), as
   * does Accelerate by default. A model made first and handed to deepspeed.initialize got ZeRO-3's linear wrapper only
   * from DeepSpeed 0.19.4 (deepspeedai/DeepSpeed#8189): before it, torch's linear keeps each gathered weight for its
   * backward (terms/zero3-linear-kept.ts). Unset: made under ZeRO-Init.
   */
  zero3_init: z.boolean().optional(),
  /**
   * Whether checkpointed layers run torch.utils.checkpoint with use_reentrant=True (the forward under no_grad, the
   * graph rebuilt in backward) or the non-reentrant implementation (saved-tensor hooks drop what the forward saves).
   * It matters where an autograd Function keeps a tensor as a ctx attribute (bitsandbytes' kept inputs): hooks do not
   * see it, so only the reentrant form frees it. Unset: transformers' gradient_checkpointing_enable default
   * (use_reentrant=True before 5.0, False since).
   */
  checkpoint_reentrant: z.boolean().optional(),
  /**
   * The layers are checkpointed by torch's checkpoint_wrapper put inside each FSDP unit (Accelerate's FSDP
   * activation_checkpointing, apply_activation_checkpointing on the wrapped model, a loop's own), not by the model's
   * own gradient checkpointing around each unit's call (transformers before 4.52): FSDP1 then keeps no recomputed
   * layer's input (terms/fsdp1-frozen-inputs.ts). Unset: the model's own.
   */
  checkpoint_wrapper: z.boolean().optional(),
  /**
   * TRL version ("major.minor") of a TRL run (preference.logps 'rows', rollout), for its trainers' passes that changed
   * between releases: from 0.29 DPOTrainer._compute_loss replaces concatenated_forward (the reference's logits held
   * through the entropy metric over a copy of the logits, no masked copies for the mean logits); from 0.20 GRPO's
   * training forward computes the entropy of the completion logits; from 1.7 it keeps the undivided logits (`outputs`)
   * to the end of _get_per_token_logps_and_entropies. Unset: a current release.
   */
  trl_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 1.7 or 0.19.1').optional(),
  /**
   * OpenRLHF version ("major.minor") of an OpenRLHF run (setup.actor_logps): before 0.7 its SFT trainer took GPTLMLoss
   * over the Actor's fp32 logits (a shifted contiguous copy, nn.CrossEntropyLoss's log_softmax kept; OpenRLHF@v0.6.2
   * openrlhf/models/loss.py), from 0.7 log_probs_from_logits (OpenRLHF/OpenRLHF#923). Unset: a current release.
   */
  openrlhf_version: z.string().regex(PYTORCH_VERSION, 'expected a version like 0.6 or 0.8.5').optional(),
  /**
   * The dtype of the frozen reference copy's weights where it is not the model's: TRL loads the reference by the
   * policy's name with model_init_kwargs (GRPO and RLOO from 0.19, DPO from 0.29; trl create_model_from_path), in
   * float32 unless a dtype is given from 0.27. Unset: the model's weights dtype.
   */
  reference_dtype: DtypeSchema.optional(),
  /**
   * Per-device batch of the evaluation that runs during training (HF per_device_eval_batch_size when eval_strategy is
   * not 'no', Axolotl eval_batch_size). A no-grad forward at this batch, with the model states still allocated; it is
   * often larger than the training micro-batch (HF's default is 8). Unset: no evaluation phase.
   */
  eval_batch_size: count(65_536).optional(),
  /**
   * The evaluation generates instead of computing a loss: prompts of `prompt_len` tokens, then up to `new_tokens` more
   * (Seq2SeqTrainer predict_with_generate over eval batches without labels runs no loss forward: THUDM's GLM finetune
   * scripts). Unset: a loss forward at the eval batch.
   */
  eval_generation: z
    .object({ prompt_len: count(1_048_576), new_tokens: count(1_048_576) })
    .strict()
    .optional(),
  /** Paired preference training (DPO and its relatives): see PreferenceSchema. */
  preference: PreferenceSchema.optional(),
  /**
   * Online reinforcement learning with generation (GRPO): each round the policy generates completions for a batch of
   * prompts, scores them, then trains on them micro-batch by micro-batch. seq_len is the prompt and the completion
   * together; the loss takes the log-probabilities of the completion tokens only (TRL logits_to_keep), row by row.
   */
  rollout: RolloutSchema.optional(),
  /**
   * GaLore (Zhao et al. 2024; HF optim galore_*, LLaMA-Factory use_galore): the optimizer keeps its states for the
   * gradients of the target matrices projected to `rank` dimensions, beside the projection matrix; other parameters
   * keep full states. `layerwise` steps each parameter during backward (like optimizer_in_backward).
   */
  galore: z
    .strictObject({
      /** GaLore keeps its projection matrices (SVD of the gradient); APOLLO regenerates a random projection from a seed. */
      kind: z.enum(['galore', 'apollo']).default('galore'),
      rank: positiveInt.default(128),
      /** Module names, 'attn' / 'mlp' groups, or 'all-linear'. */
      target_modules: z.union([z.array(z.string()).min(1), z.literal('all-linear')]).default('all-linear'),
      layerwise: z.boolean().default(false),
    })
    .optional(),
  /**
   * BAdam (LLaMA-Factory use_badam, badam_mode: layer): block coordinate descent over the decoder layers of a full
   * fine-tune; one layer trains at a time (gradients, optimizer state and an fp32 copy for that block only) and the
   * layers above it keep what their inputs' gradients need.
   */
  badam: z
    .strictObject({
      /**
       * 'layer': one decoder layer trained at a time (BlockOptimizer); 'ratio': every matrix of the decoder layers trained
       * on a share of its entries (BlockOptimizerRatio: sparse gradients and sparse Adam states).
       */
      mode: z.enum(['layer', 'ratio']).default('layer'),
      /** Ratio mode: the share of each tensor's entries updated (LLaMA-Factory badam_update_ratio, 0.05). */
      update_ratio: z.number().gt(0).max(1).default(0.05),
    })
    .optional(),
  /** torchtune's optimizer_in_bwd: the optimizer steps each parameter during backward; no gradient buffers persist. */
  optimizer_in_backward: z.boolean().default(false),
  tensor_parallel: count(1024).default(1),
  pipeline_parallel: count(1024).default(1),
  /**
   * How the pipeline's stages run: '1f1b' (a pipeline engine, one process per stage, up to pipeline_parallel
   * micro-batches in flight on the first stage), or 'device_map' (one process splits the model's layers over the GPUs
   * it sees, transformers' / Accelerate's device_map, ms-swift without torchrun: one micro-batch at a time, the hidden
   * states copied between GPUs, no NCCL among them).
   */
  pipeline_schedule: z.enum(['1f1b', 'device_map']).optional(),
  sequence_parallel: z.boolean().default(false),
  /**
   * GPUs that split each sequence between them (context parallelism: ring attention in torchtitan, Axolotl's
   * ring-flash-attn sequence parallelism, DeepSpeed-Ulysses): each holds seq_len / context_parallel tokens of every
   * activation and of the loss. They are data-parallel ranks for sharding (FSDP / ZeRO shard over them too).
   */
  context_parallel: count(1024).default(1),
  /** Experts per expert-parallel group (MoE); 1 means every rank holds every expert. */
  expert_parallel: count(1024).default(1),
  /**
   * Knowledge distillation: a frozen teacher, sharded like the student, runs a no-grad forward over each batch; its
   * logits meet the student's in torchtune's forward-KL loss beside the cross-entropy, or in TRL GKD's generalized JSD.
   */
  distillation: DistillationSchema.optional(),
  gpu: z.string().optional(),
  /** Memory the CUDA context, cuBLAS/cuDNN workspaces and kernels take before PyTorch allocates, in bytes. */
  cuda_context_bytes: z
    .number()
    .nonnegative()
    .max(64 * 2 ** 30)
    .optional(),
});

export type TrainingSetupInput = z.input<typeof TrainingSetupSchema>;
export type TrainingSetup = z.output<typeof TrainingSetupSchema>;
export type Method = z.infer<typeof MethodSchema>;
export type Dtype = z.infer<typeof DtypeSchema>;
export type Optimizer = z.infer<typeof OptimizerSchema>;
export type Checkpointing = z.infer<typeof CheckpointingSchema>;
export type Attention = z.infer<typeof AttentionSchema>;
export type Fsdp = z.infer<typeof FsdpSchema>;
export type Offload = z.infer<typeof OffloadSchema>;
export type Lora = z.infer<typeof LoraSchema>;
export type Ia3 = z.infer<typeof Ia3Schema>;
export type ZeroBuckets = z.infer<typeof ZeroBucketsSchema>;
export type Quantization = z.infer<typeof QuantizationSchema>;
export type Head = z.infer<typeof HeadSchema>;
export type SetupKey = keyof TrainingSetup;

/** Where a setup value came from; every value not read from the user's files becomes an assumption. */
export type Provenance =
  | { readonly kind: 'file'; readonly file: string; readonly line?: number; readonly key: string }
  | { readonly kind: 'flag'; readonly flag: string }
  | { readonly kind: 'setting'; readonly setting: string }
  | { readonly kind: 'catalog'; readonly entry: string }
  | { readonly kind: 'default'; readonly owner: string; readonly note?: string };

export type ProvenanceMap = Partial<Record<SetupKey, Provenance>>;

/** Attention runs flash-attn's kernels ('flash' with no other attention_kernel named): unpadding, Ampere-class GPUs. */
export function usesFlashAttn(s: Pick<TrainingSetup, 'attention' | 'attention_kernel'>): boolean {
  return s.attention === 'flash' && (s.attention_kernel ?? 'flash_attn') === 'flash_attn';
}

export * from './fsdp-rules';

/**
 * Sequences per example in one forward: 2 for paired preference training (chosen + rejected in one concatenated
 * forward), else 1.
 */
export function sequencesPerExample(s: Pick<TrainingSetup, 'preference' | 'rollout'>): number {
  if (s.preference?.separate_passes) return 1;
  return s.preference?.paired || s.rollout?.objective === 'online-dpo' ? 2 : 1;
}

/** Forwards per micro-batch whose graphs one backward frees: 2 where chosen and rejected run apart, else 1. */
export function forwardsPerExample(s: Pick<TrainingSetup, 'preference'>): number {
  return s.preference?.separate_passes ? 2 : 1;
}

/**
 * Completions generated at once per GPU: the rollout's batch, or for online DPO two per prompt of the micro-batch
 * (OnlineDPOTrainer._generate repeats each prompt twice).
 */
export function generationBatch(s: Pick<TrainingSetup, 'rollout' | 'micro_batch_size'>): number {
  return s.rollout?.objective === 'online-dpo' ? 2 * s.micro_batch_size : (s.rollout?.batch ?? 0);
}

export { ROLLOUT_DEFAULT_NOTES, SCHEMA_DEFAULT_NOTES } from './setup-notes';
