// The contract between the format analyzers and `resolve`: what a file says, with exact source spans.
// Analyzers turn text into ConfigFacts and never throw on user text; resolve merges facts with each tool's
// defaults into a TrainingSetup. Pure types and small helpers; no I/O.

/** Half-open UTF-16 offsets into the file text (the units of JS strings and vscode's document.positionAt). */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type Format =
  | 'scenario'
  | 'deepspeed-json'
  | 'hf-python'
  | 'shell'
  | 'accelerate-yaml'
  | 'axolotl-yaml'
  | 'llamafactory-yaml'
  | 'torchtune-yaml'
  | 'hf-yaml'
  | 'litgpt-yaml'
  | 'verl-yaml'
  | 'hydra-yaml'
  | 'llmfoundry-yaml'
  | 'swift-yaml'
  | 'torchtitan-toml'
  | 'prime-rl-toml'
  | 'forge-yaml'
  | 'nemorl-yaml'
  | 'skypilot-yaml'
  | 'dstack-yaml'
  | 'kubernetes-yaml'
  | 'oumi-yaml'
  | 'autotrain-yaml' // Hugging Face AutoTrain's LLM config (`autotrain --config x.yml`)
  | 'ludwig-yaml' // Ludwig's declarative config (`ludwig train --config x.yaml`)
  | 'mistral-finetune-yaml' // mistralai/mistral-finetune's TrainArgs (`torchrun -m train example/7B.yaml`)
  | 'align-anything-yaml' // PKU-Alignment/align-anything's train config (`deepspeed --module align_anything.trainers.x.sft`)
  | 'areal-yaml'
  // ArcticTraining's training config (snowflakedb/ArcticTraining: `arctic_training run.yml`), its DeepSpeed config inline.
  | 'arctic-yaml'
  // THUDM's GLM fine-tuning configs (ChatGLM3 finetune_demo, GLM-4 finetune): training_args, peft_config, lengths.
  | 'glm-finetune-yaml'
  | 'notebook'
  // The JSON (or YAML) file TrainingArguments' fsdp_config names (`--fsdp_config fsdp.json`): FSDP's options for the HF
  // Trainer; never detected by its text alone (yaml/fsdp-config.ts).
  | 'fsdp-config-json'
  // A project's own training config (YAML or JSON) read by the names of its keys (yaml/project-config.ts).
  | 'project-yaml'
  // A JSON / YAML file a script loads and reads items of (hf-python/data-files.ts): its facts are the items the script
  // takes, located at their keys (script-data.ts); never detected by its text alone.
  | 'script-data';

/**
 * The tool whose defaults apply to a fact that is absent. A DeepSpeed JSON loaded by HF Trainer is still
 * 'deepspeed' for its own keys; the launcher script or TrainingArguments say which trainer ran.
 */
export type Tool =
  | 'vram-lens'
  | 'deepspeed'
  | 'hf-trainer'
  | 'trl'
  | 'accelerate'
  | 'axolotl'
  | 'llamafactory'
  | 'torchtune'
  | 'litgpt'
  | 'torchrun'
  | 'peft'
  | 'unsloth'
  | 'ms-swift'
  | 'openrlhf'
  | 'verl'
  | 'xtuner'
  | 'dpo-reference' // eric-mitchell/direct-preference-optimization's trainers, configured through Hydra
  | 'halos' // ContextualAI/HALOs' trainers on Accelerate, configured through Hydra
  | 'llm-foundry' // mosaicml/llm-foundry's train.py on Composer
  | 'torchtitan' // pytorch/torchtitan's train.py and its TOML job config
  | 'nemo-rl' // NVIDIA/NeMo-RL's SFT, DPO and GRPO on its DTensor or FSDP1 policy workers
  | 'oumi' // oumi-ai/oumi's training config, run on the HF Trainer or TRL's trainers
  | 'autotrain' // huggingface/autotrain-advanced's LLM config, run on TRL's trainers or the HF Trainer
  | 'ludwig' // ludwig-ai/ludwig's LLM config, fine-tuned by its own trainer on PEFT and bitsandbytes
  | 'mistral-finetune' // mistralai/mistral-finetune's train.py: its own Mistral model and LoRA under FSDP1
  | 'rl2' // ChenmienTan/RL2's SFT, DPO, reward-model and PPO trainers on its FSDP1 workers, configured through Hydra
  | 'areal' // inclusionAI/AReaL's RL trainers on its FSDP2 training engine, the inference engine on GPUs of its own
  | 'prime-rl' // PrimeIntellect-ai/prime-rl's RL and SFT trainers on FSDP2, the inference on GPUs of its own
  | 'arctic-training' // snowflakedb/ArcticTraining's SFT, causal and DPO trainers on DeepSpeed
  | 'align-anything' // PKU-Alignment/align-anything's SFT, DPO, KTO, SimPO, ORPO and reward-model trainers on DeepSpeed
  | 'pytorch'; // a training loop the script writes out (plain PyTorch, Accelerate, FSDP by hand)

/**
 * Canonical keys: one vocabulary for every format. Values are normalized to the TrainingSetup vocabulary
 * noted next to each key (the raw text stays in `rawValue`).
 */
export type CanonicalKey =
  | 'model' // string: Hub id, directory or config.json path
  // string: the config.json fields, as JSON text, of a model the files define by its dimensions instead of naming a
  // checkpoint (torchtune's generic builders: `lora_llama2` with vocab_size, num_layers...); a named model wins
  | 'architecture'
  // string: config.json fields as JSON text that the trainer sets over the named checkpoint's config before it builds
  // the model (ArcticTraining model.hf_config_kwargs, Axolotl overrides_of_model_config)
  | 'modelConfigOverrides'
  | 'method' // 'full' | 'lora' | 'qlora' | 'freeze'
  | 'loraR'
  | 'loraAlpha'
  | 'loraDropout' // numbers
  | 'loraTargets' // string[] | 'all-linear'
  | 'loraModulesToSave' // string[]
  | 'loraTargetRegex' // string: a PEFT target_modules str, re.fullmatch-ed against each module's full name
  | 'loraTargetParameters' // string[]: PEFT target_parameters (bare parameters such as fused MoE experts), Axolotl lora_target_parameters
  | 'loraDora' // boolean: DoRA (PEFT use_dora, LLaMA-Factory use_dora, Axolotl peft_use_dora, torchtune use_dora)
  | 'ia3Targets' // string[] (PEFT IA3Config target_modules)
  | 'ia3Feedforward' // string[] (PEFT IA3Config feedforward_modules)
  | 'quantBits' // 4 | 8 (load_in_4bit / load_in_8bit / quantization_bit)
  | 'quantType' // 'nf4' | 'fp4' | 'int8' | 'gptq' | 'awq'
  | 'doubleQuant' // boolean
  | 'kbitUpcast' // 'none' | 'norms' | 'all': unquantized parameters of a 4/8-bit model cast to fp32
  // 'all' | 'all-checkpointed' (its use_gradient_checkpointing not False): prepare_model_for_kbit_training under an `if`
  // that tests the quantization
  | 'kbitUpcastWhenQuantized'
  | 'kbitCastBack' // true: a loop over named_modules() puts the embeddings and the head back in bf16 (qlora.py)
  | 'loraCastBack' // true: the same loop casts the LoRA layers to bf16 (qlora.py: `isinstance(module, LoraLayer)`)
  | 'freezeTrainableLayers' // number
  | 'weightsDtype' // 'fp32' | 'bf16' | 'fp16' (dtype the model is loaded/stored in)
  | 'masterWeights' // boolean: the optimizer steps an fp32 copy of each trained 16-bit parameter (mistral-finetune)
  | 'referenceDtype' // 'fp32' | 'bf16' | 'fp16': the dtype a preference run loads its reference copy in, where its own
  | 'bf16'
  | 'fp16' // boolean: mixed-precision switches as the tool names them
  | 'pureBf16' // boolean (LLaMA-Factory pure_bf16)
  | 'mixedPrecision' // 'none' | 'bf16' | 'fp16' | 'fp8' (Accelerate mixed_precision)
  | 'optimizer' // TrainingSetup optimizer value ('adamw', 'adamw_8bit', ...) or the raw name when unknown
  | 'galore' // 'galore' | 'apollo': the optimizer's gradients are projected (HF optim galore_*, LLaMA-Factory use_galore / use_apollo)
  | 'galoreRank' // number: GaLore rank (HF optim_args rank=, LLaMA-Factory galore_rank)
  | 'galoreTargets' // string[] | 'all-linear': GaLore targets (HF optim_target_modules, LLaMA-Factory galore_target)
  | 'galoreLayerwise' // boolean: layer-wise GaLore (HF optim galore_*_layerwise, LLaMA-Factory galore_layerwise)
  | 'badam' // 'layer' | 'ratio': BAdam block coordinate descent (LLaMA-Factory use_badam, badam_mode)
  | 'microBatchSize' // number
  | 'evalBatchSize' // number: per-device batch of the evaluation during training
  | 'evalStrategy' // boolean: evaluation runs during training (eval_strategy not 'no', Axolotl val_set_size > 0)
  | 'autoFindBatchSize' // boolean: HF Trainer auto_find_batch_size (halve the micro-batch after an out-of-memory error)
  | 'evalLogitsReleased' // true: an argument keeps the evaluation's logits off the GPU (eval_accumulation_steps, predict_with_generate)
  | 'evalNewTokens' // number: new tokens a generate-only evaluation makes per prompt (predict_with_generate, no labels)
  | 'evalPromptLen' // number: the prompt length of that evaluation
  | 'evalKeepsLogits' // boolean: HF Trainer gathers every eval batch's logits on the GPU (compute_metrics, no eval_accumulation_steps)
  | 'gradientAccumulationSteps' // number
  | 'trainBatchSize' // number (DeepSpeed train_batch_size, Axolotl batch_size)
  | 'seqLen' // number
  | 'targetLen' // number: an encoder-decoder's labels, tokenized to their own max_length (text_target=)
  | 'batchLengths' // 'fixed' (packed, or padded to the maximum length) | 'variable' (each batch padded to its longest sample)
  | 'paddedBatches' // boolean: the batches carry padding or packed rows, so the model builds an attention mask
  | 'gradientCheckpointing' // 'none' | 'full' | 'selective'
  | 'activationOffloading' // boolean
  | 'optimizerStatesGpu' // 'always' | 'training' | 'step': where the optimizer's states are between uses (TrainingSetup optimizer_states_gpu)
  | 'weightsGpu' // 'always' | 'training': where the policy's weights are while a colocated engine generates (TrainingSetup weights_gpu)
  | 'visionTowerTrained' // boolean: a vision-language model's vision tower trains too (verl / EasyR1 freeze_vision_tower false)
  | 'visionUnfrozen' // boolean: a script's batches carry images and nothing in it freezes the vision tower (requires_grad stays True)
  | 'checkpointReentrant' // boolean: torch.utils.checkpoint use_reentrant of the checkpointed layers
  | 'checkpointWrapper' // true: the layers are checkpointed by torch's checkpoint_wrapper (apply_activation_checkpointing)
  | 'zero3Init' // boolean: a ZeRO-3 model is made inside deepspeed.zero.Init (Accelerate's zero3_init_flag)
  | 'tieEmbeddings' // boolean: the output head shares the embedding's weight (LitGPT pretrain train.tie_embeddings)
  | 'tiledMlp' // true (shards from the sequence length) | number of shards: Axolotl tiled_mlp / tiled_mlp_num_shards
  | 'kernels' // 'pytorch' | 'liger' | 'unsloth': the kernels the blocks run
  | 'expandableSegments' // boolean: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True in the launch environment
  | 'emptyCacheSteps' // number: HF TrainingArguments torch_empty_cache_steps
  | 'loopKeepsOutputs' // boolean | 'step': a loop keeps the step's outputs until the next forward ('step': released after the backward)
  | 'actorLogps' // 'openrlhf': OpenRLHF's Actor casts the logits to fp32 and takes log-probs with flash-attn's cross-entropy
  | 'longestBatchFirst' // boolean: the loop runs its longest batch first (Lit-GPT's scripts: longest_seq_ix if iter_num == 0)
  | 'modelCode' // 'transformers' | 'litgpt': whose model code runs (a script that builds LitGPT's own GPT)
  | 'useCache' // boolean: transformers' use_cache in the training forward (from_pretrained use_cache=, model.config.use_cache =)
  | 'preference' // preference objective: 'dpo' (paired, with a reference: a frozen copy, or the model with
  // adapters off under PEFT) | 'kto' (unpaired, with a reference and a KL batch) | 'reference-free' (ORPO, SimPO,
  // CPO) | 'reward' (reward-model training: pairs, no reference)
  // 'given' (an explicit reference model: TRL ref_model, LLaMA-Factory ref_model) | 'precomputed' | 'copied'
  // (OnlineDPOTrainer copies a model handed to it without peft_config)
  | 'referenceModel'
  | 'rollout' // 'grpo' | 'rloo': online RL that generates its own completions (TRL GRPOConfig / GRPOTrainer, RLOOConfig /
  // RLOOTrainer, `trl grpo|rloo`, Axolotl rl: grpo)
  | 'promptLen' // number: longest prompt (TRL max_prompt_length)
  | 'completionLen' // number: generated tokens per completion (TRL max_completion_length)
  | 'completionBudget' // number: prompt + completion tokens, where max_completion_length = that - max_prompt_length
  | 'stepsPerGeneration' // number: micro-batches one generation round serves (TRL steps_per_generation)
  | 'generationBatchSize' // number: completions per round over all GPUs (TRL generation_batch_size)
  | 'klBeta' // number: KL coefficient; 0 means no reference model (TRL beta)
  | 'cpoAlpha' // number: TRL CPOConfig cpo_alpha, the chosen NLL's weight; 0 skips the NLL
  | 'rpoAlpha' // number: TRL DPOConfig rpo_alpha; set (even 0), DPO adds the chosen half's NLL
  | 'head' // 'seq_cls': the model is loaded as a sequence classifier (from_pretrained's class, TRL RewardTrainer)
  | 'numLabels' // number: labels of a sequence-classification head (from_pretrained num_labels)
  | 'labelSmoothing' // number: HF TrainingArguments label_smoothing_factor; above 0 the LabelSmoother replaces the model's loss
  | 'onPolicyFraction' // number: TRL GKD lmbda, the share of steps the student regenerates its batch
  | 'maxNewTokens' // number: TRL GKD max_new_tokens of an on-policy round
  | 'numIterations' // number: optimization passes per generated batch (TRL num_iterations)
  | 'scoringBatchSize' // number: sequences per GPU in each no-grad scoring forward (verl log_prob_micro_batch_size_per_gpu)
  | 'numGenerations' // number: completions per prompt (TRL num_generations)
  | 'useVllm' // boolean: completions generated by vLLM (TRL use_vllm)
  | 'grpoPromptBatch' // boolean: a GRPO trainer's per_device_train_batch_size counts prompts (TRL before 0.15, its forks)
  | 'vllmMode' // 'colocate' | 'server' (TRL vllm_mode)
  | 'vllmMemoryFraction' // number: GPU share of a colocated vLLM engine (TRL vllm_gpu_memory_utilization)
  | 'vllmTensorParallel' // number: GPUs a colocated vLLM engine splits the model over (TRL vllm_tensor_parallel_size)
  | 'vllmSleep' // boolean: the colocated engine sleeps while the policy trains (TRL vllm_enable_sleep_mode)
  | 'vllmMemoryOf' // 'total' | 'free': what the engine's share is of (verl 0.1's vendored vLLM: the memory free at its start)
  | 'gatherForGeneration' // boolean: ZeRO-3 weights gathered for generation (TRL ds3_gather_for_generation)
  | 'vllmSharedWeights' // boolean: the colocated vLLM engine holds the weights the policy trains on (Unsloth fast_inference)
  | 'attention' // 'eager' | 'sdpa' | 'flash'
  | 'loss' // 'full' | 'chunked' | 'chunked-linear' | 'fused' | 'chunked-nll'
  | 'trlSft' // true: TRL's SFTTrainer trains the run (SFTConfig / SFTTrainer, `trl sft`, a TRL YAML with SFT-only keys)
  // string: the transformers or TRL trainer class a script builds (Trainer, SFTTrainer, DPOTrainer, ...): the run takes
  // its DeepSpeed config through the Trainer's integration, which refuses values that mismatch TrainingArguments'
  | 'hfTrainer'
  | 'compile' // boolean
  | 'zeroStage' // 0 | 1 | 2 | 3
  | 'offloadOptimizer' // 'none' | 'cpu' | 'nvme'
  | 'offloadParams' // 'none' | 'cpu' | 'nvme'
  | 'reduceBucketSize'
  | 'allgatherBucketSize'
  | 'stage3PrefetchBucketSize'
  | 'stage3MaxLiveParameters'
  | 'stage3MaxReuseDistance'
  | 'stage3ParamPersistenceThreshold' // numbers
  | 'zeroOverlapComm' // boolean: DeepSpeed overlap_comm (ZeRO-1/2 keep two gradient buckets)
  | 'zeroContiguousGradients' // boolean: DeepSpeed contiguous_gradients (the flat gradient bucket)
  | 'fsdp' // 'none' | 'full_shard' | 'shard_grad_op' | 'hybrid_shard' | 'no_shard'
  | 'fsdpOffload' // boolean (params + grads + optimizer to CPU)
  | 'fsdpVersion' // 1 | 2 (Accelerate / Axolotl fsdp_version)
  | 'bitsandbytesVersion' // string: the bitsandbytes release a config's tool version implies (a pin in the project wins)
  | 'transformersVersion' // string: the transformers release a config's keys imply (EVALUATION_STRATEGY_RELEASE; a pin wins)
  | 'trlVersion' // string: the TRL release a config's tool pins (AutoTrain's requirements; a pin in the project wins)
  | 'peftVersion' // string: the PEFT release a config's tool pins (a pin in the project wins)
  | 'torchaoVersion' // string: the torchao release a config's tool version implies (a pin in the project wins)
  | 'fsdpShardEmbeddings' // boolean (embeddings / output head wrapped as their own FSDP units)
  | 'fsdpTailUnit' // boolean (FSDP2's final norm and output head in a unit not resharded after the forward)
  | 'ddpFindUnused' // boolean (DDP find_unused_parameters: the Trainer's ddp_find_unused_parameters)
  | 'ddpWrap' // boolean (false: a loop of the script's own whose DDP wrap does not run; no gradient buckets)
  | 'fsdpNoSync' // boolean (gradient sync deferred to the last micro-batch: no_sync, Accelerator.accumulate)
  | 'fsdpStateDictType' // 'full' | 'sharded' | 'local' (Accelerate fsdp_state_dict_type)
  | 'fsdpBackwardPrefetch' // 'pre' | 'post' | 'none' (FSDP1 backward_prefetch: BACKWARD_PRE, BACKWARD_POST, NO_PREFETCH)
  | 'fsdpLimitAllGathers' // boolean | 'torch' (FSDP1 limit_all_gathers; 'torch': a FullyShardedDataParallel call without it)
  | 'fsdpUseOrigParams' // boolean (FSDP1 use_orig_params: the original parameters stay views of the flat parameter)
  | 'fsdpCpuRamEfficientLoading' // boolean (FSDP's CPU-RAM-efficient loading: rank 0 materialises the checkpoint)
  | 'bnbLoad' // 'warmup' | 'gpu' | 'host': how a bitsandbytes 4-bit model reaches FSDP1 or ZeRO-3 (TrainingSetup bnb_load)
  | 'savesCheckpoints' // boolean: checkpoints written while training (HF save_strategy other than "no")
  | 'optimizerInBackward' // boolean
  | 'gpusPerNode' // number (torchrun --nproc_per_node, deepspeed --num_gpus)
  | 'nodes' // number
  | 'worldSize' // number (Accelerate num_processes: all machines)
  | 'tensorParallel'
  | 'pipelineParallel' // numbers
  | 'pipelineSchedule' // 'device_map': one process splits the model's layers over the GPUs it sees
  | 'visibleGpus' // number: the GPUs CUDA_VISIBLE_DEVICES shows a script run by plain python (one process)
  | 'deviceMapSplit' // true: the model is loaded with device_map "auto" / "balanced" / "sequential" (layers over every visible GPU)
  | 'sequenceParallel' // boolean
  | 'subGroupSize' // number: ZeRO-3 optimizer sub-group size (DeepSpeed sub_group_size)
  | 'zeroHpzPartitionSize' // number: ZeRO++ hpZ, GPUs that share a secondary copy of the parameters (DeepSpeed zero_hpz_partition_size)
  | 'micsShardSize' // number: MiCS, GPUs ZeRO-3 shards over, replicated across groups (DeepSpeed mics_shard_size)
  | 'contextParallel' // number: GPUs that split each sequence (Axolotl context_parallel_size /
  // sequence_parallel_degree, Accelerate cp_size, DeepSpeed sequence_parallel_size)
  | 'expertParallel' // number: ranks one MoE layer's experts are split over (Axolotl expert_parallel_size)
  | 'fsdpShardSize' // number: GPUs in one FSDP shard group (Axolotl dp_shard_size, Accelerate
  // parallelism_config_dp_shard_size, torchtune data_parallel_shard_dim)
  | 'vllmServerTp' // number: GPUs one trl vllm-serve instance splits the model over (--tensor_parallel_size)
  | 'vllmServerMemoryFraction' // number: share of each server GPU vLLM takes (trl vllm-serve --gpu_memory_utilization)
  | 'vllmServerMaxModelLen' // number: longest sequence the server admits (trl vllm-serve --max_model_len)
  | 'fp8AllGather' // boolean: FSDP2 all-gathers the float8 linears' weights in fp8 (Axolotl fp8_enable_fsdp_float8_all_gather)
  | 'quantizeExperts' // boolean: the fused 3-D MoE expert parameters are quantized too (Axolotl quantize_moe_experts)
  | 'badamUpdateRatio' // number: BAdam ratio mode's share of each tensor updated (LLaMA-Factory badam_update_ratio)
  | 'rewardModels' // string[]: reward models named by Hub id (TRL GRPO reward_funcs, Axolotl trl.reward_funcs), resolved as 'model'
  | 'teacherModel' // string: a second resident model (torchtune knowledge distillation teacher_model, TRL GKD teacher_model_name_or_path), Hub id as 'model'
  | 'deepspeedConfig' // string: path of a referenced DeepSpeed JSON (or '{inline json}')
  | 'gpu'; // string: GPU name (scenario, settings)

export type FactValue = string | number | boolean | null | readonly string[];

/**
 * The transformers release of a run whose TrainingArguments get `evaluation_strategy`: transformers renamed it
 * eval_strategy in 4.41 (huggingface/transformers PR 30190: "will be removed in version 4.46") and its later releases
 * have no such field (4.57.6's training_args.py), so the run uses 4.45 or earlier: 4.45 is assumed, which a pin in the
 * project's dependency files overrides.
 */
export const EVALUATION_STRATEGY_RELEASE = {
  version: '4.45',
  note:
    'evaluation_strategy, which transformers renamed eval_strategy in 4.41 and removed after 4.45 ' +
    '(huggingface/transformers PR 30190), dates the run to transformers 4.45 or earlier',
} as const;

/** The last transformers 4.x release, taken for a run that a removed API or an old TRL dates before transformers 5. */
export const LAST_TRANSFORMERS_4 = '4.57';

/**
 * `Trainer(tokenizer=...)`: transformers 4.46 renamed the argument processing_class and 5.0 removed it (Trainer.__init__
 * of 5.x takes no `tokenizer`), so a script that passes it runs on transformers 4.x.
 */
export const TRAINER_TOKENIZER_RELEASE = {
  version: LAST_TRANSFORMERS_4,
  note:
    "Trainer's tokenizer=, which transformers 4.46 renamed processing_class and 5.0 removed, dates the run to " +
    `transformers 4.x: the last 4.x release, ${LAST_TRANSFORMERS_4}, is assumed (an older one may differ: set transformers_version)`,
} as const;

/** The transformers release `evaluation_strategy` implies, as an assumption (origin call-default) at the key. */
export function evaluationStrategyRelease(
  at: Pick<Fact, 'rawKey' | 'rawValue' | 'keySpan' | 'valueSpan' | 'tool'>,
): Fact {
  const { version, note } = EVALUATION_STRATEGY_RELEASE;
  return { ...at, key: 'transformersVersion', value: version, origin: 'call-default', defaultNote: note };
}

/** A value that cannot be known statically (a function argument, an f-string, `args.x`, "auto"). */
export interface Unknown {
  readonly unknown: string;
  /** "auto" that HF Trainer / Accelerate fill from the model config (DeepSpeed's hidden-size buckets). */
  readonly fromHiddenSize?: true;
  /** A dtype of "auto": the one the checkpoint's config.json stores, known once the model's config is. */
  readonly fromCheckpoint?: true;
}

export interface Fact {
  readonly key: CanonicalKey;
  /** The key as written (`train_micro_batch_size_per_gpu`, `--per_device_train_batch_size`, `lora_r`). */
  readonly rawKey: string;
  readonly value: FactValue | Unknown;
  /** The value text as written, for messages and hovers. */
  readonly rawValue: string;
  readonly keySpan: Span;
  readonly valueSpan: Span;
  /** The tool whose semantics the key follows (decides defaults and meaning). */
  readonly tool: Tool;
  /**
   * Where the value is defined when valueSpan only refers to it: the anchor of a YAML alias (`*a`, `<<: *a`) or
   * the target of an OmegaConf interpolation (`${batch_size}`). Absent when the value is written at valueSpan.
   */
  readonly originSpan?: Span;
  /**
   * Set when the value is a default rather than a setting written for this run: 'dataclass-default' is a field default
   * of a script's own arguments dataclass (HfArgumentParser uses it unless the command line overrides it);
   * 'call-default' is a library default made explicit because tools disagree on it (BitsAndBytesConfig's fp4,
   * LoraConfig's r=8 under a TRL trainer whose ModelConfig would say 16); 'script-default' is a default of the
   * script's own options read through `args.x` (argparse `default=`, an arguments dataclass field, the parameter of a
   * function called once): what runs when the launcher passes nothing, located at the default.
   */
  readonly origin?: 'dataclass-default' | 'call-default' | 'script-default';
  /**
   * With origin 'call-default': the tool's default and where it is stated (repo@commit:path). Resolve reports the value
   * as that tool's default, an assumption, rather than as a setting of the file (OpenRLHF's defaults that differ by
   * command: the micro-batch, max_len).
   */
  readonly defaultNote?: string;
  /**
   * The program passes the value to the library itself, which takes it over its launcher's config and environment:
   * `Accelerator(mixed_precision=...)` over `accelerate launch --config_file` (Accelerate's state.py reads
   * ACCELERATE_MIXED_PRECISION only when the argument is None). Such a fact wins over every file's.
   */
  readonly overridesLauncher?: true;
  /**
   * Read from an option's name alone (`--model_name Qwen/Qwen2.5-7B-Instruct` on a launch line, whose use in the
   * script is not seen): a value any file gives for the key by what it does wins over it.
   */
  readonly byNameOnly?: true;
  /** A project module's length its mapped data function cuts or pads to: below any file's (resolve/winning.ts). */
  readonly moduleDataBound?: true;
  /**
   * A count from verl's deprecated global batch keys as verl 0.1 reads them: that release, which projects still vendor
   * (TinyZero and its descendants), counts those micro-batches in prompts and multiplies them by rollout.n after
   * splitting them over the GPUs (its fsdp_workers.py); the run takes this value where the project's verl is that one
   * (collect/vendored-verl.ts).
   */
  readonly valueInVerl01?: number;
  /**
   * The model is loaded by a from_pretrained call that passes no dtype (RL2's workers): transformers 5 loads the
   * checkpoint's dtype, 4.x float32 (resolve/model.ts).
   */
  readonly loadsCheckpointDtype?: true;
  /**
   * Set when the value is one of several the file can give (a shell variable set on some branches of an `if` or
   * `case`): the note says which values it can take and that the worst for memory is estimated. Resolve reports it
   * as an assumption, not as the file's setting.
   */
  readonly assumed?: string;
  /**
   * The value is a script's own command-line option read at run time (`args.batch` of an argparse option `--batch`),
   * with the option's default as written: a launcher that runs the script gives the value (its flag, else the default).
   * `switched`: the option is a switch that decides the value (`if args.use_lora:` around the LoraConfig): `on` when
   * the launcher turns it on, `off` when it is off.
   */
  readonly fromArg?: {
    readonly name: string;
    readonly default?: string;
    readonly line?: number;
    readonly switched?: { readonly on: FactValue; readonly off: FactValue };
    /** A boolean flag's off flag (click's `--no-x` of `--x/--no-x`): the launch line turns the value off with it. */
    readonly off?: string;
    /** The value is whether the option's word equals this string (or differs, negated): `args.x == "on"`. */
    readonly equals?: { readonly value: string; readonly negated: boolean };
    /** The value is the option's word split on this separator, as the script splits it where it uses it. */
    readonly split?: string;
    /** argparse `type=bool`: the value is bool() of the word, True for any word but the empty one ("False" too). */
    readonly truthOfWord?: true;
  };
  /**
   * The value is an item of a JSON / YAML file the script loads (`cfg["train"]["micro_batch_size"]` of
   * `yaml.safe_load(open("configs/sft.yaml"))`), taken as written there: the file's path as the script writes it and
   * the keys down to the item. The file is where the value is written: the pipeline adds it to the run with the fact
   * located at its key (script-data.ts), and a fix edits it there, not the script's read.
   */
  readonly fromData?: DataItem;
}

/** An item of a JSON / YAML file a script loads: the file as the script writes its path, and the keys to the item. */
export interface DataItem {
  readonly path: string;
  readonly keys: readonly string[];
}

/**
 * Training objectives whose extra memory is not modeled, with what is left out: the estimate covers the policy's
 * training step only, and a 'not-modeled' warning says so where the objective is set.
 */
export const UNMODELED_OBJECTIVES: Readonly<Record<string, string>> = {
  ppo: 'rollout generation, the reference, reward and value models',
  xpo: 'generation from the policy and the reference (or their mixture), the reference and the reward model or judge',
};

/**
 * expandable_segments in a PYTORCH_CUDA_ALLOC_CONF value: comma-separated key:value pairs, True or 1 turns it on
 * (c10/cuda/CUDAAllocatorConfig.cpp).
 */
export function expandableSegmentsOf(conf: string): boolean {
  const m = /(?:^|,)\s*expandable_segments\s*:\s*(\w+)/i.exec(conf);
  return m ? /^(true|1)$/i.test(m[1]) : false;
}

/** A 'not-modeled' message for an objective of UNMODELED_OBJECTIVES. */
export function notModeled(name: string, objective: string): Message {
  return msg(
    '{0}: {1} are not modeled; the estimate covers the training step of the policy only',
    name,
    UNMODELED_OBJECTIVES[objective] ?? objective,
  );
}

/** A 'not-modeled' message for OnlineDPOTrainer's reward_model argument: a model object loaded elsewhere (not counted). */
export function rewardModelObjectNotCounted(): Message {
  return msg(
    "{0}: a reward model is loaded on every GPU and scores each micro-step's completions, but which model it is is not known here, " +
      'so its weights and forward are not counted; name it by Hub id (OnlineDPOConfig reward_model_path)',
    'reward_model',
  );
}

/** A 'not-modeled' message for a GRPO reward model named by a Hub id that could not be resolved (not counted). */
export function rewardModelNotCounted(name: string, reason: string, key = 'reward_funcs'): Message {
  return msg(
    '{0}: a reward model ({1}) is loaded on every GPU, but it is not known, so its weights and forward are not counted: {2}',
    key,
    name,
    reason,
  );
}

export type ProblemCode =
  | 'not-modeled'
  | 'syntax-error'
  | 'strict-json-comments'
  | 'duplicate-key'
  | 'unknown-key'
  | 'invalid-value'
  | 'unresolved-auto'
  | 'batch-size-mismatch'
  | 'conflicting-precision'
  | 'offload-needs-zero'
  | 'deprecated-key'
  | 'reference-not-found'
  | 'unknown-model'
  | 'placeholder'
  | 'not-static'
  | 'not-analyzed'
  // A setting the trainer ignores (align-anything's `--ds_cfgs`, its checkpointing switch under LoRA).
  | 'no-effect'
  // A project's own config read by the names of its keys (yaml/project-config.ts): said at the model key.
  | 'read-by-name'
  // A launch that hides every GPU (CUDA_VISIBLE_DEVICES="") or asks Accelerate for the CPU (use_cpu: true).
  | 'runs-on-cpu'
  // A launcher that runs training more than once, one launch after another: which one is estimated (shell/index.ts).
  | 'several-launches';

/** Problems kept per file (a broken file reports its first ones; fixing them shows the next). */
export const MAX_PROBLEMS = 100;

export interface ParseProblem {
  readonly code: ProblemCode;
  readonly severity: 'error' | 'warning' | 'info';
  readonly message: string;
  readonly span: Span;
  readonly rawKey?: string;
  /** `message` before its values are filled in, for translation: `{0}`-style placeholders in `text`, filled from `args`. */
  readonly template?: MessageTemplate;
}

/** An English message with `{0}`, `{1}` placeholders and the values that fill them (the l10n bundle's key and arguments). */
export interface MessageTemplate {
  readonly text: string;
  readonly args: readonly (string | number)[];
}

/** A problem message: the filled-in English text and the template it came from. */
export interface Message {
  readonly message: string;
  readonly template: MessageTemplate;
}

/** Fills `{0}`-style placeholders (in one pass: values are not re-scanned; placeholders without a value stay). */
export function fillTemplate(text: string, args: readonly (string | number)[]): string {
  return text.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

/** Control characters, bidirectional overrides and invisible marks: never shown from user text. */
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Text quoted from a user's file, made safe to show on one line: control characters (terminal escapes, screen
 * clears, hyperlinks, window titles), bidirectional overrides and invisible marks removed (line breaks and tabs
 * become spaces), and a long text cut to `max` characters with its length said.
 */
export function cleanText(s: string, max = 500): string {
  const one = s.replace(UNSHOWN, (c) => (c === '\t' || c === '\n' || c === '\r' ? ' ' : ''));
  return one.length <= max ? one : `${one.slice(0, max - 40)}… (${one.length.toLocaleString('en-US')} characters)`;
}

/** A value as the user wrote it, for a message: cleaned and at most 80 characters. */
export const quoteWritten = (s: string): string => cleanText(s, 80);

/**
 * A message from a template: `msg('`{0}` is deprecated: use {1}', key, replacement)`. Template texts are l10n keys.
 * Arguments are cleaned (cleanText), since they quote the user's files.
 */
const TRUE_WORDS = new Set(['true', 'yes', 'on', 'y', 't', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', 'n', 'f', '0']);

/**
 * A word as a boolean, any case (YAML 1.1's words, and Python's strtobool as Accelerate's str_to_bool and the HF
 * Trainer's fsdp_config switches read them), or undefined.
 */
export function wordBool(word: string): boolean | undefined {
  const w = word.trim().toLowerCase();
  return TRUE_WORDS.has(w) ? true : FALSE_WORDS.has(w) ? false : undefined;
}

export function msg(text: string, ...args: (string | number)[]): Message {
  const clean = args.map((a) => (typeof a === 'string' ? cleanText(a) : a));
  return { message: fillTemplate(text, clean), template: { text, args: clean } };
}

import type { LaunchArgument, Reference } from './reference';
export type { LaunchArgument, Reference } from './reference';

export interface ConfigFacts {
  readonly format: Format;
  readonly facts: readonly Fact[];
  readonly problems: readonly ParseProblem[];
  readonly references: readonly Reference[];
  /**
   * A shell script of several training launches run one after another: the references of the launches not estimated.
   * The index of runs counts them, so that a config one of them names is found to be run by the script (and read,
   * given with it, as the launch that names it: ReadingContext.launchNaming).
   */
  readonly otherLaunchReferences?: readonly Reference[];
  /** The trainer this file says runs the job (TRL config, HF TrainingArguments, a launcher), if it says. */
  readonly tools: readonly Tool[];
  /** A Python script's own options with their defaults (argparse, arguments dataclasses): what its helper modules read. */
  readonly options?: readonly ScriptOption[];
  /**
   * A script whose command line is a function's parameters (a typer or click command, Fire's function): the
   * parameters its launch line's positional words fill, in order (Reference.positionals).
   */
  readonly commandArguments?: readonly string[];
  /**
   * A Trainer script's model load (its from_pretrained) made before its TrainingArguments exist
   * (hf-python/zero-init.ts): under ZeRO-3 DeepSpeed gets a model made outside deepspeed.zero.Init.
   */
  readonly modelBeforeArguments?: Span;
  /**
   * A written-out loop's model load that the file hands to deepspeed.initialize with no HfDeepSpeedConfig, zero.Init
   * or Accelerator in it (hf-python/zero-init.ts): under ZeRO-3 DeepSpeed gets a model made outside zero.Init.
   */
  readonly loopModelOutsideZeroInit?: Span;
  /** A TRL trainer makes the PEFT model itself from the peft_config it is handed (deepspeed-adapters.ts). */
  readonly peftByTrainer?: true;
  /** A notebook read as the shell commands its cells run (`!tune run ...`): the run's launcher, as a shell script is. */
  readonly launchesRun?: true;
  /**
   * The script's arguments come from a file one of its options names: TrlParser.parse_args_and_config's `--config`, or
   * the option a parse_yaml_file / parse_json_file call reads. The file's keys set the fields of its dataclasses that
   * the launch line leaves (config-arguments.ts).
   */
  readonly readsConfigOption?: ConfigOptionRead;
  /**
   * The script is nanoGPT's train.py (hf-python/nanogpt.ts): configurator.py execs the Python files of its command line
   * over its globals, then applies its `--key=value` flags; the script is read again with them.
   */
  readonly readsConfigurator?: true;
  /**
   * The script reads options it has no value for alone, which a launch line may give: an option without a default
   * (`--training_model_path`, `--config` required), or the path of a file it loads (`yaml.safe_load(open(args.config))`).
   * Run by a launch line with options, it is read again with them.
   */
  readonly readsLaunchOptions?: true;
  /**
   * The script parses transformers' TrainingArguments (or a TRL config) from its own command line (HfArgumentParser,
   * TrlParser): the Trainer's flags on the line that runs it are the run's, whether the script reads them or not.
   */
  readonly readsTrainerFlags?: true;
  /**
   * The script parses TRL's ModelConfig from its command line and reads only the model's name from it (proofrl's
   * `GRPOTrainer(model=model_cfg.model_name_or_path, ...)`): the line's ModelConfig flags (`--dtype`, `--load_in_4bit`,
   * `--use_peft`...) reach nothing.
   */
  readonly modelConfigNameOnly?: true;
}

/**
 * An option of the script that imports a helper module, as the run has it (the launch line's value, else the script's
 * default), keyed by its name: what the helper's `args.x` reads.
 */
export interface InheritedOption {
  readonly value: FactValue;
  /** Where the value comes from, in words: "the default 64 of ModelArguments.lora_r (train.py line 29)". */
  readonly source: string;
  /** Passed on the launch line, not a default. */
  readonly launched: boolean;
  /** Passed on the launch line from a value not known statically (`--model $MODEL`): why; `value` is then null. */
  readonly unknown?: string;
}

export type ArgumentEnvironment = ReadonlyMap<string, InheritedOption>;

/** A helper module read for the script that imports it: the script's options, and the module's names it calls. */
export interface ModuleContext {
  readonly options: ArgumentEnvironment;
  readonly calls: readonly string[];
  /** The arguments the script passes the module's functions it calls, where it calls each once (Reference.callArgs). */
  readonly callArgs?: Readonly<Record<string, CallArguments>>;
  /** For a script read again with its launch line: the line's Hydra overrides (`model=llama training.lr=1e-4`). */
  readonly hydraOverrides?: readonly LaunchArgument[];
  /**
   * For a script read again with its launch line's options: its tests are not settled as a helper module's are (every
   * branch is read; the pipeline decides those the options decide, launch-args.ts withBranchesDecided).
   */
  readonly settled?: false;
  /** A module the script imports: its `if __name__ == "__main__":` block does not run (the script's own does). */
  readonly imported?: true;
  /** Star-imported (`from utils import *`): `calls` are the names the script may call, kept where the module defines them. */
  readonly starImport?: true;
}

/**
 * The arguments of a script's call of a helper module's function (`load_model("meta-llama/Meta-Llama-3-8B", dtype)`):
 * each a literal the script's own values give, or null where it is not known statically.
 */
export interface CallArguments {
  readonly positional: readonly (CallArgument | null)[];
  readonly keywords: Readonly<Record<string, CallArgument | null>>;
  /** Where the script calls it: `main.py line 23`. */
  readonly at: string;
}

/**
 * What a script's call passes a module's function: a literal, a mapping it loaded from a JSON / YAML file, or a model
 * class by its name (`create_hf_model(AutoModelForCausalLM, ...)`: the class whose from_pretrained the module calls).
 */
export type CallArgument =
  { readonly value: FactValue } | { readonly loaded: LoadedArgument } | { readonly modelClass: string };

/** A mapping a script loaded from a JSON / YAML file (or a part of one), passed on to a module's function. */
export interface LoadedArgument {
  readonly value: unknown;
  /** The file as the script names it in messages, its path as the script writes it, and the part's keys in it. */
  readonly source: string;
  readonly path: string;
  readonly keys: readonly string[];
  /** Composed from several files (a Hydra application's config): where each value is written, by its dotted key. */
  readonly origins?: ReadonlyMap<string, { readonly path: string; readonly keys: readonly string[] }>;
}

/** One option of a script (`--lora_r` / `ModelArguments.lora_r`) and the value it has when the launch line is silent. */
export interface ScriptOption {
  readonly name: string;
  /** The default as a literal; null for a None default. */
  readonly value: FactValue;
  /** 'argparse default of --lora_r' / 'ModelArguments.lora_r default'. */
  readonly where: string;
  readonly line: number;
  /** argparse `nargs="+"` / `"*"` / a count: the option takes several words, a list. */
  readonly many?: true;
  /** Its class's `__post_init__` splits the string on this separator (hf-python/post-init-splits.ts). */
  readonly splitBy?: string;
  /** The flag that turns it off when given bare (argparse store_false, click's `--no-x`), without its dashes. */
  readonly offFlag?: string;
  /** argparse `type=bool`: the launch line's word is bool() of it, True for any word but the empty one. */
  readonly truthOfWord?: true;
}

export const isUnknown = (v: Fact['value']): v is Unknown =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && 'unknown' in v;

export function emptyFacts(format: Format): ConfigFacts {
  return { format, facts: [], problems: [], references: [], tools: [] };
}

/**
 * HF TrainingArguments eval_strategy / evaluation_strategy (IntervalStrategy, also as `IntervalStrategy.STEPS`):
 * "no" means no evaluation; "steps" and "epoch" run it during training. Undefined for anything else.
 */
export function evaluationOn(raw: string): boolean | undefined {
  const s = raw
    .trim()
    .toLowerCase()
    .replace(/^intervalstrategy\./, '');
  return s === 'no' ? false : s === 'steps' || s === 'epoch' ? true : undefined;
}
/** HF `optim` names of GaLore (transformers OptimizerNames: galore_adamw, galore_adamw_8bit, galore_adafactor, *_layerwise). */
export function galoreOf(optim: string): { layerwise: boolean } | undefined {
  const n = optim.trim().toLowerCase();
  return n.startsWith('galore_') ? { layerwise: n.endsWith('_layerwise') } : undefined;
}

/** The rank in HF `optim_args` ("rank=64, update_proj_gap=100, scale=0.10"). */
export function galoreRankOf(optimArgs: string): number | undefined {
  const m = /(?:^|[\s,])rank\s*=\s*(\d+)/.exec(optimArgs);
  return m ? Number(m[1]) : undefined;
}

/**
 * use_reentrant in a gradient_checkpointing_kwargs JSON string (HF's dict arguments accept JSON text starting with `{`:
 * `--gradient_checkpointing_kwargs '{"use_reentrant": false}'`). Undefined when the text is not JSON or does not set it.
 */
export function useReentrantOfJson(text: string): boolean | undefined {
  const t = text.trim();
  if (!t.startsWith('{') || t.length > 4096) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    const r = v !== null && typeof v === 'object' ? (v as Record<string, unknown>).use_reentrant : undefined;
    return typeof r === 'boolean' ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Maps an optimizer name of any tool (HF `optim`, DeepSpeed optimizer.type, torchtune _component_) to the setup vocabulary. */
export function normalizeOptimizer(raw: string): string {
  const n = raw
    .toLowerCase()
    .replace(/^torch\.optim\./, '')
    .replace(/^bitsandbytes\.optim\./, '')
    .replace(/^bnb\.optim\./, '');
  // torchao's 4-bit AdamW (HF optim adamw_torch_4bit, torchao.optim.AdamW4bit); bitsandbytes has no 4-bit optimizer.
  if (/adamw?.*4bit/.test(n)) return 'adamw_4bit';
  if (/paged.*adamw?.*8bit|pagedadamw8bit/.test(n)) return 'paged_adamw_8bit';
  if (/paged.*adamw?/.test(n)) return 'paged_adamw';
  if (/adamw?.*8bit|adamw8bit|adam8bit|adamw_bnb_8bit/.test(n)) return 'adamw_8bit';
  if (/lion.*8bit/.test(n)) return 'lion_8bit';
  if (/lion/.test(n)) return 'lion';
  if (/adafactor/.test(n)) return 'adafactor';
  if (/fused|onebitadam|cpuadam|deepspeedcpuadam/.test(n) && /adam/.test(n)) return 'adamw_fused';
  if (/adamw_hf|^adamw_torch_loop/.test(n)) return 'adamw_hf';
  if (/adam/.test(n)) return 'adamw';
  if (/sgd/.test(n)) return n.includes('momentum') ? 'sgd_momentum' : 'sgd';
  if (/^adam_?mini$/.test(n)) return 'adam_mini';
  // torch.optim.RMSprop (the HF optim `rmsprop`, DeepSpeed's optimizer.type falling back to torch.optim); bitsandbytes'
  // RMSprop (rmsprop_bnb*) steps in one fused kernel and is not this one.
  if (n === 'rmsprop') return 'rmsprop';
  if (/^muon$/.test(n)) return 'muon';
  return raw;
}

/**
 * A message about a subject that is known only later (the key path of a YAML value, say): `{0}` in `text` is the
 * subject and `args` fill `{1}`, `{2}`, ... `about('{0}: expected a string, found {1}', found)`; see `bySubject`.
 */
export interface SubjectMessage {
  readonly text: string;
  readonly args: readonly (string | number)[];
}

export function about(text: string, ...args: (string | number)[]): SubjectMessage {
  return { text, args };
}

/** The message of `m` with its subject filled in as `{0}`. */
export function bySubject(m: SubjectMessage, subject: string): Message {
  return msg(m.text, subject, ...m.args);
}

/** The option of a script that names the file its arguments come from, and the file its default names, if any. */
export interface ConfigOptionRead {
  readonly option: string;
  /** The option's default, where it names a YAML or JSON file, as the script writes it. */
  readonly path?: string;
}
