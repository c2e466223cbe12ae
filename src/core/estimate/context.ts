// What every step of the estimate reads: the setup as given and as it runs, the model and its parameter inventory,
// the parallel layout, the dtypes, the training methods, the GPU, and the sink for warnings and assumptions. Built
// once per estimate (estimate/index.ts), then one StageContext per pipeline stage (estimate/stage.ts). Types only.
// Docs: docs/estimate/index.md
import type { Architecture, LinearModule } from '../architecture';
import type { GpuSpec } from '../catalog/gpus';
import type { Assumption, Layout, PhaseEstimate, Warning } from '../model';
import type { Attention, ProvenanceMap, TrainingSetup } from '../setup';
import type { ComputeMode } from '../terms/saved-tensors';
import type { galoreShapes } from '../terms/galore';
import type { Inventory, ParameterTarget } from './inventory';
import type { PeftMoeConversion } from './peft-moe';

export interface EstimateOptions {
  /** GPU memory to check the fit against (driver-reported total), with its catalog id. */
  readonly gpu?: {
    readonly id: string;
    readonly memoryBytes: number;
    readonly source: string;
    readonly nvlink?: boolean;
    readonly spec?: GpuSpec;
  };
  /** Where each setup value came from; values without a file/flag/setting source become assumptions. */
  readonly provenance?: ProvenanceMap;
  /** Margin kept free below the GPU size for 'fits' (fraction, e.g. 0.05). */
  readonly headroomFraction?: number;
  /** Numbers only: no formula text and no assumptions (the advice search estimates thousands of candidates). */
  readonly lean?: boolean;
  /**
   * The step replays (FSDP's and the two-step one) are skipped, and so is the rest of the reserved bytes of a setup
   * whose peak allocated and CUDA context already exceed the GPU, and the rest of the phases of one whose model states
   * and CUDA context do (one phase of those states stands for them): the reserved and device bytes are then lower bounds
   * (the peak allocated plus what sits outside the allocator), flagged on the estimate (PerGpuEstimate.reservedLowerBound).
   * The advice search rules out with them the candidates that cannot fit or cannot join its front, before it replays
   * the others. 'first-micro-batch': the FSDP and two-step replays run the load and their first micro-batch only
   * (where the whole replay is not known already), ZeRO's runs whole; where one stopped, the bytes are lower bounds,
   * flagged so (a replay's peak reserved only grows as it goes on), closer than without it.
   */
  readonly reservedLowerBound?: boolean | 'first-micro-batch';
}

/** Where warnings and assumptions go, in the order the steps push them (the order the user reads them in). */
export interface Notes {
  readonly warnings: Warning[];
  readonly assumptions: Assumption[];
}

/** A frozen reward model beside the policy (GRPO reward_models, online DPO). */
export interface RewardModel {
  readonly model: string;
  readonly arch: Architecture;
  readonly params: number;
  readonly largestBlock: number;
  /** Bytes per weight where its dtype is not the model's (RewardModelSchema dtype). */
  readonly weightBytes?: number;
}

/** The model as it runs: its architecture (experts fused or not), linear modules and parameter inventory. */
export interface ModelPlan {
  /** The architecture as estimated: fused 3-D experts (transformers 5) or one linear per expert (Llama 4 under bnb). */
  readonly arch: Architecture;
  /** The architecture as parsed from the config. */
  readonly baseArch: Architecture;
  /** The model's own code fixes checkpointing or attention (Architecture.modelCode). */
  readonly code: Architecture['modelCode'];
  /** The base weights are quantized by bitsandbytes (not GPTQ / AWQ checkpoints). */
  readonly bitsandbytes: boolean;
  /** A family transformers 5 stores with fused 3-D experts. */
  readonly fusedFamily: boolean;
  readonly modules: LinearModule[];
  readonly inventory: Inventory;
  /** The head produces vocabulary logits (causal, seq2seq or masked LM): there is a loss over them. */
  readonly lmHead: boolean;
}

/** How the ranks shard the model states and what is offloaded (ctx.layout holds the degrees). */
export interface ShardingPlan {
  readonly fsdp: boolean;
  /** The ZeRO stage in force (0 under FSDP). */
  readonly zeroStage: number;
  readonly shardOptimizer: number;
  readonly shardGrads: number;
  readonly shardParams: number;
  readonly offloadOptimizer: boolean;
  readonly offloadParams: boolean;
  /** FSDP's CPUOffload: parameters, gradients and the optimizer step on the host together. */
  readonly fsdpOffload: boolean;
  /** FSDP keeps its root unit (embeddings + output head unless they are wrapped on their own) unsharded. */
  readonly rootUnit: boolean;
  /** FSDP accumulates unsharded gradients over the micro-batches before the last (fsdp_no_sync). */
  readonly deferredGradSync: boolean;
  /**
   * torch's DistributedDataParallel wraps the model: whole copies on more than one data- or context-parallel GPU,
   * without ZeRO or FSDP, in a run that wraps it (setup ddp_wrap).
   */
  readonly ddp: boolean;
}

/** The generation of online RL (GRPO, online DPO) or of on-policy distillation, per round. */
export type GenerationPlan = Pick<
  NonNullable<TrainingSetup['rollout']>,
  | 'batch'
  | 'completion_len'
  | 'engine'
  | 'vllm_memory_fraction'
  | 'vllm_sleep'
  | 'vllm_shared_weights'
  | 'reference'
  | 'old_logps'
  | 'gather_weights'
>;

/** What is trained and how: adapters, GaLore, BAdam, distillation, preference and RL. */
export interface MethodPlan {
  /** LoRA or QLoRA. */
  readonly peft: boolean;
  /** Adapters of any kind: a frozen base with small trainable tensors beside it. */
  readonly adapters: boolean;
  /** The LoRA block, PEFT's defaults when the method asks for LoRA without one. */
  readonly lora: TrainingSetup['lora'];
  readonly ia3: TrainingSetup['ia3'];
  /** Module names that carry an adapter. */
  readonly targets: Set<string>;
  /** PEFT target_parameters: LoRA on bare expert parameters. */
  readonly parameterTargets: { targets: ParameterTarget[]; unmatched: string[] };
  /** PEFT's conversion of 4.x expert and router names in target_modules onto transformers 5's fused parameters. */
  readonly peftMoe: PeftMoeConversion | undefined;
  readonly galore: ReturnType<typeof galoreShapes> | undefined;
  /** BAdam layer mode: one decoder layer trained at a time. */
  readonly badamLayer: boolean;
  /** BAdam ratio mode: the share of every tensor's entries trained. */
  readonly badamRatio: number | undefined;
  readonly teacher: { arch: Architecture; params: number } | undefined;
  readonly rewardModels: readonly RewardModel[];
  /** TRL GKD: the student trains on the generalized JSD against the teacher, outside online RL. */
  readonly gkd: boolean;
  readonly rollout: TrainingSetup['rollout'];
  /** GKD's on-policy rounds, generated with generate(). */
  readonly gkdGeneration: GenerationPlan | undefined;
  /** TRL OnlineDPOTrainer: two completions per prompt generated in every micro-step. */
  readonly onlineDpo: boolean;
  readonly generation: GenerationPlan | undefined;
  /** Bytes a colocated vLLM engine takes of the GPU. */
  readonly vllmShare: number;
  /** A bitsandbytes paged optimizer (its state in CUDA unified memory). */
  readonly paged: boolean;
  /** NF4 weights quantized whole at load by torchao < 0.2. */
  readonly oldTorchaoNf4: boolean;
}

/** Bytes per element of each kind of tensor, and the attention implementation that runs. */
export interface DtypePlan {
  /** prepare_model_for_kbit_training's fp32 cast in force ('none' for GPTQ). */
  readonly kbit: TrainingSetup['kbit_upcast'];
  /** The same, with a quantized model only. */
  readonly kbitQuantized: TrainingSetup['kbit_upcast'];
  readonly wholeModelUpcast: boolean;
  /** The model's weights. */
  readonly weightBytes: number;
  /** Unquantized block parameters (norms, biases; fp32 after the kbit upcast). */
  readonly denseBytes: number;
  /** Embeddings and the output head. */
  readonly embeddingBytes: number;
  /** 16-bit activations and gathers, or 4 in pure fp32 training. */
  readonly half: 2 | 4;
  readonly mode: ComputeMode;
  /** The compute dtype: 4 in pure fp32, else `half`. */
  readonly computeBytes: number;
  /** The residual stream's dtype in a no-grad forward: fp32 under autocast over fp32 weights. */
  readonly residualBytes: number;
  /**
   * The head's output, the logits: the compute dtype, or fp32 where a 4/8-bit model runs without autocast after the
   * kbit upcast of its embeddings, norms and head (the hidden states and the head are fp32 throughout).
   */
  readonly logitsBytes: number;
  readonly adapterBytes: number;
  readonly trainableBytes: number;
  /** An fp32 master copy of the trainable parameters. */
  readonly masterCopy: boolean;
  /** Bytes per element of each optimizer state. */
  readonly stateBytes: number;
  /** FSDP mixed precision keeps only the fp32 shard. */
  readonly fsdpMaster: boolean;
  readonly gradBytes: number;
  /**
   * modules_to_save copies (PEFT's ModulesToSaveWrapper: a trainable copy of the embedding or the head, made from the
   * module as loaded): their weights, gradients and optimizer states are in the module's own dtype, apart from the
   * adapters' (PEFT's fp32 upcast of adapters, autocast_adapter_dtype, reaches tuner layers only).
   */
  readonly savedModuleBytes: number;
  readonly savedGradBytes: number;
  readonly savedStateBytes: number;
  readonly attention: Attention;
  /** The reason attention runs eager for this family, when it does. */
  readonly eagerOnly: { readonly replaces: readonly Attention[]; readonly why: string } | undefined;
  /** PyTorch < 1.11: softmax and log_softmax also save their input. */
  readonly oldSoftmax: boolean;
}

export interface EstimateContext {
  /** The setup as written (warnings quote it). */
  readonly given: TrainingSetup;
  /** Normalized: the model code's checkpointing and attention, layer-wise GaLore, BAdam as a freeze run. */
  readonly setup: TrainingSetup;
  /**
   * Plus PEFT's LoRA / IA3 defaults and QLoRA's NF4 default: what the inventory and the quantization read. Kept apart
   * from `setup`, which the checks read as written (a QLoRA run without a quantization block is not a quantized setup
   * for them).
   */
  readonly effectiveSetup: TrainingSetup;
  readonly model: ModelPlan;
  /** Degrees of parallelism (reported as is). */
  readonly layout: Layout;
  readonly sharding: ShardingPlan;
  readonly dtypes: DtypePlan;
  readonly methods: MethodPlan;
  readonly gpu: EstimateOptions['gpu'];
  /** The margin kept free below the GPU's size for the fit (EstimateOptions.headroomFraction; 0 when unset). */
  readonly headroomFraction: number;
  readonly provenance: ProvenanceMap;
  /** Numbers only (the advice search): no formula text, no assumptions. */
  readonly lean: boolean;
  /** The step replays are skipped: reserved and device bytes are lower bounds (EstimateOptions.reservedLowerBound). */
  readonly reservedLowerBound: boolean;
  /**
   * The step replays (FSDP's and the two-step one) stop after their first micro-batch unless already replayed whole,
   * ZeRO's runs whole (EstimateOptions.reservedLowerBound 'first-micro-batch'): where one stopped, reserved and device
   * bytes are lower bounds.
   */
  readonly firstMicroBatch: boolean;
  readonly notes: Notes;
}

/**
 * One pipeline stage as the busiest rank holds it: its layers, and its share of each kind of parameter (after tensor
 * parallelism, before sharding unless said).
 */
export interface StageContext {
  readonly stage: number;
  readonly first: boolean;
  readonly last: boolean;
  readonly layersHere: number;
  /** Share of the decoder layers on this stage. */
  readonly layerShare: number;
  /** Micro-batches in flight on this stage (pipeline warm-up). */
  readonly inFlight: number;
  /**
   * Forward graphs held at once for backward: the micro-batches in flight, times two where each runs its chosen and
   * rejected sequences as two forwards (forwardsPerExample).
   */
  readonly graphsHeld: number;
  /** Routed-expert parameters of the whole model. */
  readonly expertParams: number;
  /** Block parameters of this stage, sharded over shardParams (experts over the expert-data-parallel group). */
  readonly blockParams: number;
  /** Embedding (first stage) and head (last stage) parameters. */
  readonly embeddingHere: number;
  /** Quantized parameters per GPU. */
  readonly quantizedHere: number;
  /** Unquantized block parameters per GPU. */
  readonly denseBlock: number;
  readonly visionHere: number;
  readonly unquantizedParams: number;
  /** The unquantized weights' bytes per GPU before sharding. */
  readonly modelBytes: number;
  /** Trainable parameters per GPU for the optimizer's, the gradients' and ZeRO's flat buffer's shard degree. */
  readonly trainableHere: number;
  readonly trainableGradHere: number;
  readonly flatHere: number;
  /** Sequences per micro-batch (a preference pair counts two) and tokens per GPU. */
  readonly sequences: number;
  readonly seqHere: number;
  readonly tokens: number;
}

/** What the steps before the context read and write: the setup, where its values came from, the GPU and the notes. */
export type PlanningContext = Pick<EstimateContext, 'given' | 'setup' | 'provenance' | 'lean' | 'notes' | 'gpu'>;

/** A load phase above the training step, the bytes it leaves reserved, and how to say what they are. */
export interface ModelLoad {
  readonly phase: PhaseEstimate;
  readonly reservedBytes: number;
  /** The reserved bytes' label and formula where they exceed the step's (estimate/runtime.ts loadCacheTerm). */
  readonly cacheLabel: string;
  readonly cacheFormula: () => string;
  /**
   * The load's segments are the step's to reuse: the step's runtime terms stand as they are, and the load counts where
   * its segments exceed what the step reserves (ZeRO-3's move of a whole model). Without it the runtime terms are
   * worked out from the load's peak where it is the higher (torchao's NF4 load, replayed).
   */
  readonly servesStep?: true;
}
