// The setup's blocks for what a run trains against besides its data: a distillation teacher, preference pairs, and
// online RL with generation (its reward models). Pure zod schemas; TrainingSetupSchema (setup.ts) holds them.
import { z } from 'zod';
import { HfConfigSchema } from './hf-config';
import { count, DtypeSchema, positiveInt } from './setup-primitives';

/** A distillation teacher beside the student (torchtune knowledge distillation, TRL GKD). */
export const DistillationSchema = z.strictObject({
  teacher_model: z.string().optional(),
  teacher_architecture: HfConfigSchema,
  teacher_parameters: count(1e14).optional(),
  /**
   * The distillation loss: 'forward_kl' (torchtune ForwardKLWithChunkedOutputLoss, beside the cross-entropy) or
   * 'jsd' (TRL GKDTrainer's generalized Jensen-Shannon divergence over the full logits, instead of it).
   */
  loss: z.enum(['forward_kl', 'jsd']).default('forward_kl'),
  /** GKD's beta: 0 is the forward KL, 1 the reverse KL, between them the mixture (GKDConfig default 0.5). */
  jsd_beta: z.number().min(0).max(1).default(0.5),
  /**
   * GKD's lmbda: the share of steps whose batch the student first regenerates on-policy (GKDConfig default 0.5);
   * above 0 the generation is a phase of its own. 0: no generation (torchtune KD).
   */
  on_policy: z.number().min(0).max(1).default(0),
  /** Tokens the student generates in an on-policy round (GKDConfig max_new_tokens, default 128). */
  max_new_tokens: count(2 ** 24).default(128),
});

/** A reward model named by Hub id (its HF config.json fields, and its published parameter count when known). */
export const RewardModelSchema = z.strictObject({
  model: z.string().min(1),
  architecture: HfConfigSchema,
  parameters: count(1e14).optional(),
  /** Its weights' dtype (TRL loads it by its name with model_init_kwargs, not in the policy's dtype); unset: the model's. */
  dtype: DtypeSchema.optional(),
});

/** Online RL with generation (GRPO, RLOO): see TrainingSetupSchema.rollout. */
export const RolloutSchema = z
  .object({
    /**
     * What trains on the completions. 'policy-gradient' (GRPO, RLOO): a round's completions are generated and scored, then
     * trained on micro-batch by micro-batch. 'online-dpo' (TRL OnlineDPOTrainer): each micro-step generates two
     * completions per prompt, runs the policy over both, then the reference and the reward model without grad while the
     * policy's activations are held, and trains on the pair with the DPO loss (trl/trainer/online_dpo_trainer.py
     * training_step).
     */
    objective: z.enum(['policy-gradient', 'online-dpo']).default('policy-gradient'),
    /**
     * Completions generated at once per GPU: TRL per_device_train_batch_size x steps_per_generation (GRPO). Online DPO
     * generates two per prompt of the micro-batch in every micro-step, whatever this says.
     */
    batch: count(2 ** 20),
    /** Generated tokens per completion (max_completion_length); the prompt is seq_len minus this. */
    completion_len: count(2 ** 24),
    /**
     * Where completions are generated: the policy's own generate() on the training GPU (KV cache, 'generate'), vLLM
     * in the training process taking a fixed share of the GPU ('vllm-colocate'), or a vLLM server on other GPUs.
     */
    engine: z.enum(['generate', 'vllm-colocate', 'vllm-server']).default('generate'),
    /** Share of the GPU's memory a colocated vLLM engine takes (vllm_gpu_memory_utilization). */
    vllm_memory_fraction: z.number().gt(0).max(1).default(0.3),
    /** GPUs a colocated engine splits the model over (TRL vllm_tensor_parallel_size). */
    vllm_tensor_parallel: positiveInt.default(1),
    /**
     * How the training forward takes the policy's log-probabilities. 'trl': TRL's selective_log_softmax over the
     * completion's logits (fp32 under Accelerate's autocast wrapper). 'verl': verl's dp_actor over the logits of every
     * token (prompt and response) in the model's compute dtype, through flash-attn's cross_entropy_loss, which keeps
     * the logits and writes their gradient over them (volcengine/verl@b178a3c:verl/utils/torch_functional.py
     * logprobs_from_logits, inplace_backward=True).
     */
    logps: z.enum(['trl', 'verl']).default('trl'),
    /** vLLM sleep mode: the colocated engine releases its memory while the policy trains. */
    vllm_sleep: z.boolean().default(false),
    /** The colocated engine's share holds the weights the policy trains on (Unsloth fast_inference), not a copy. */
    vllm_shared_weights: z.boolean().default(false),
    /**
     * What vllm_memory_fraction is a share of: the GPU's total memory ('total': vLLM's gpu_memory_utilization since
     * 0.6.4, TRL's colocated engine, verl on vLLM's own workers), or the memory free when the engine starts ('free': the
     * vLLM 0.3.1-0.6.3 workers verl 0.1 vendors, verl/third_party/vllm/vllm_v_0_6_3/worker.py
     * determine_num_available_blocks, "[VERL] use the remaining memory"): the KV cache is that share of what the
     * actor's states, the CUDA context, the engine's own weights and its profile run leave, beside those weights.
     */
    vllm_memory_of: z.enum(['total', 'free']).default('total'),
    /**
     * The KL reference (beta > 0): a frozen copy of the model ('copy'), the policy with its adapters disabled
     * (PEFT, 'adapters-off'), or none (beta = 0, TRL's default).
     */
    reference: z.enum(['copy', 'adapters-off', 'none']).default('none'),
    /**
     * The old policy's log-probabilities are recomputed in a no-grad pass after generation (num_iterations > 1, or
     * more generation steps than accumulation steps, or vLLM's importance-sampling correction).
     */
    old_logps: z.boolean().default(false),
    /**
     * Sequences per GPU in each no-grad forward that scores a round's completions (the old policy's and the
     * reference's log-probabilities): verl's log_prob_micro_batch_size_per_gpu. Unset: the training micro-batch (TRL
     * scores at per_device_train_batch_size).
     */
    scoring_batch: count(65_536).optional(),
    /** DeepSpeed ZeRO-3: the full weights are gathered on each GPU for generation (ds3_gather_for_generation). */
    gather_weights: z.boolean().default(true),
    /**
     * Reward models given by Hub id (TRL reward_funcs="org/model"): GRPOTrainer loads each as
     * AutoModelForSequenceClassification (num_labels 1) with the policy's model_init_kwargs on every GPU, prepared like
     * the reference model, and scores the round's completions with one no-grad forward.
     */
    reward_models: z.array(RewardModelSchema).default([]),
    /**
     * The vLLM server of vllm_mode server (trl vllm-serve on other GPUs of the training GPU's type): its tensor-parallel
     * size, its share of each GPU and the longest sequence it admits (default: the model's positions).
     */
    vllm_server: z
      .strictObject({
        tensor_parallel: positiveInt.default(1),
        memory_fraction: z.number().gt(0).max(1).default(0.9),
        max_model_len: positiveInt.optional(),
      })
      .optional(),
  })
  .strict();

/**
 * Paired preference training (DPO and its relatives): each example is a chosen and a rejected sequence run through
 * the model in one concatenated forward, so micro_batch_size sequences become twice as many. `reference`: how the
 * reference log-probabilities are obtained each step: 'copy' (a frozen copy of the model, TRL create_reference_model
 * / LLaMA-Factory create_ref_model), 'adapters-off' (the policy itself with its adapters disabled, for PEFT runs),
 * 'precomputed' (computed once before training: precompute_ref_log_probs) or 'none' (reference-free losses: ORPO,
 * SimPO, CPO).
 */
export const PreferenceSchema = z
  .object({
    reference: z.enum(['copy', 'adapters-off', 'precomputed', 'none']),
    /**
     * How the per-token log-probabilities are taken: 'rows' (TRL selective_log_softmax: one sequence at a time, 16-bit
     * logits), 'whole' (one log_softmax over fp32 logits of the batch: LLaMA-Factory's get_batch_logps) or 'native'
     * (one log_softmax in the logits' own dtype: torchtune rlhf.get_batch_log_probs).
     */
    logps: z.enum(['rows', 'whole', 'native']).default('rows'),
    /**
     * Chosen and rejected in one forward (DPO and its relatives); false for KTO, whose examples are single
     * completions, each batch with a mismatched KL batch that the policy and the reference run without grad.
     */
    paired: z.boolean().default(true),
    /**
     * false: the trainer keeps only each pass's log-probabilities (the DPO reference implementation's and HALOs'
     * concatenated_forward / forward return log-probs): the policy's logits are not held while the reference runs,
     * and KTO's KL batch and completions run one after the other, each pass's logits freed before the next. Unset:
     * they are held (TRL and LLaMA-Factory keep the policy's logits for their metrics).
     */
    logits_kept: z.boolean().optional(),
    /**
     * TRL ORPO and CPO (cpo_alpha > 0, SimPO's default too): the chosen half's NLL by nn.CrossEntropyLoss beside the
     * log-probabilities, over its own contiguous copy of the logits; its gradient of all the logits is added to theirs.
     */
    chosen_nll: z.boolean().optional(),
    /**
     * The chosen and the rejected sequences run as two forwards whose graphs are both held for one backward (TRL's
     * RewardTrainer before 0.24: `model(input_ids_chosen)` then `model(input_ids_rejected)`, trl@v0.23.0
     * reward_trainer.py compute_loss; 0.24 concatenates them): as much is saved as in one concatenated forward, but
     * each forward's working set, and a checkpointed layer's recompute, is the micro-batch's alone. Unset: one forward.
     */
    separate_passes: z.boolean().optional(),
  })
  .strict();
