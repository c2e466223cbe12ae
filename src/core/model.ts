// The estimator's output types: plain serializable data, units in field names.
import type { SetupKey } from './setup';

export type Phase =
  'load' | 'forward' | 'backward' | 'optimizer' | 'first-step' | 'evaluation' | 'generation' | 'checkpoint-save';

/**
 * What a component holds. Each id is made by the files named (under src/core/), and documented in docs/estimate/.
 */
export type ComponentId =
  /** The model's parameters, ZeRO++'s hpZ partition (terms/weights.ts); frozen models' (terms/reference-models.ts). */
  | 'weights'
  /** 4/8-bit base weights with their quantization constants (terms/weights.ts, terms/quantization.ts). */
  | 'quantization-constants'
  /** LoRA / DoRA / IA3 parameters and modules_to_save copies (terms/adapters.ts). */
  | 'adapter-weights'
  /** The fp32 copy of 16-bit trainable parameters (terms/master-weights.ts). */
  | 'master-weights'
  /** Gradients live at a phase (terms/gradients.ts, placed by estimate/phases.ts; in generation: terms/generation.ts). */
  | 'gradients'
  /** DDP's flat gradient buckets (terms/gradients.ts). */
  | 'ddp-buckets'
  /** The cuBLAS handles' workspaces, one per thread that runs matmuls (terms/blas-workspaces.ts). */
  | 'blas-workspaces'
  /** Optimizer states and BAdam's masks (terms/optimizer-states.ts). */
  | 'optimizer-states'
  /** Temporaries of the optimizer step (terms/optimizer-step.ts, placed by estimate/phases.ts). */
  | 'optimizer-step'
  /** Tensors saved for backward and eager attention's causal mask (terms/activations/stage.ts). */
  | 'activations'
  /** One layer recomputed under checkpointing (estimate/phases.ts, from terms/activations/stage.ts). */
  | 'checkpoint-recompute'
  /**
   * A working set of one layer or op at a time: a layer's forward or backward temporaries (estimate/phases.ts), a
   * dequantized weight or DoRA's norm (terms/activations/stage.ts), prefill and decoding (terms/generation.ts), a frozen
   * model's no-grad layer (terms/reference-models.ts), gradient accumulation buffers (estimate/phases.ts).
   */
  | 'backward-working'
  /** Autocast's 16-bit copies of fp32 weights (terms/activations/stage.ts, terms/logits-loss.ts). */
  | 'autocast-weight-copies'
  /** Logits, the loss and log-probabilities: saved and transient (terms/logits-loss.ts, estimate/phases.ts, generation). */
  | 'logits-loss'
  /** The loss's backward: gradients of the logits (estimate/phases.ts, from terms/loss.ts). */
  | 'loss-backward'
  /** ZeRO's reduce and gradient buckets (terms/sharding-buffers.ts). */
  | 'zero-buckets'
  /** ZeRO-3's gradient bucket, made once with the optimizer (terms/sharding-buffers.ts). */
  | 'zero-grad-bucket'
  /** Parameters all-gathered by ZeRO-3 or FSDP (terms/sharding-buffers.ts; for generation: terms/generation.ts). */
  | 'gathered-params'
  /** FSDP's unsharded gradients of one unit (terms/sharding-buffers.ts). */
  | 'gathered-grads'
  /** ZeRO's flat parameter copy built at the first step (estimate/phases.ts). */
  | 'first-step-init'
  /** A sharded FSDP1 checkpoint's clones of every parameter shard (terms/checkpoint-save.ts). */
  | 'checkpoint-save'
  /** The generation cache: keys, values and recurrent states (terms/kv-cache.ts). */
  | 'kv-cache'
  /** A colocated vLLM engine's share of the GPU (terms/generation.ts). */
  | 'rollout-engine'
  /** Temporaries of torchao < 0.2 quantizing NF4 weights at load (terms/nf4-load.ts). */
  | 'load-transient'
  /** Rotary cos/sin tables per attention layer before transformers 4.39 (terms/weights.ts). */
  | 'rotary-tables';

/** One memory term: how many bytes, the formula in words and symbols, and the inputs that went into it. */
export interface Component {
  readonly id: ComponentId;
  readonly label: string;
  readonly bytes: number;
  readonly formula: string;
  readonly inputs: Readonly<Record<string, number | string | boolean>>;
}

export interface PhaseEstimate {
  readonly phase: Phase;
  /** Bytes allocated by PyTorch on the busiest GPU at the highest point of this phase. */
  readonly allocatedBytes: number;
  readonly components: readonly Component[];
  readonly note: string;
}

/** A term outside PyTorch's allocated bytes (allocator reserve, CUDA context, NCCL). */
export interface RuntimeTerm {
  readonly id:
    | 'allocator-reserve'
    | 'stream-pools'
    | 'all-gather-pool'
    | 'zero3-launch-lead'
    | 'fsdp-init-cache'
    | 'load-cache'
    | 'kbit-setup-cache'
    | 'logits-block'
    | 'forward-cache'
    | 'loss-segments'
    | 'two-step-cache'
    | 'fsdp2-step-cache'
    | 'fsdp1-step-cache'
    | 'zero-step-cache'
    | 'small-pool'
    | 'cuda-context'
    | 'nccl'
    | 'nccl-nvls'
    | 'paged-optimizer';
  readonly label: string;
  readonly bytes: number;
  readonly formula: string;
}

/** Runtime terms held by the caching allocator: part of the reserved bytes, not on top of them. */
export const RESERVED_RUNTIME_IDS: ReadonlySet<RuntimeTerm['id']> = new Set<RuntimeTerm['id']>([
  'allocator-reserve',
  'stream-pools',
  'all-gather-pool',
  'zero3-launch-lead',
  'fsdp-init-cache',
  'load-cache',
  'kbit-setup-cache',
  'logits-block',
  'forward-cache',
  'loss-segments',
  'two-step-cache',
  'fsdp2-step-cache',
  'fsdp1-step-cache',
  'zero-step-cache',
  'small-pool',
]);

export interface Assumption {
  readonly key: SetupKey | string;
  readonly value: string;
  readonly source: string;
}

export interface Warning {
  readonly key: SetupKey | string;
  readonly message: string;
  /**
   * Set on warnings the editor shows as a diagnostic at the key: 'fused-experts' when transformers 5's 3-D MoE experts
   * stay unquantized or out of LoRA's reach; 'no-effect' when the model's code ignores the setting (Kimi Linear's
   * modeling_kimi.py never checkpoints its layers); 'gpu-unsupported' when the chosen GPU cannot run what the files ask
   * for (bf16, FlashAttention-2).
   */
  readonly code?: 'fused-experts' | 'no-effect' | 'gpu-unsupported';
  /** A warning about something that stops the run ('error'), not only costs memory or time. */
  readonly severity?: 'error';
}

export interface ParameterSummary {
  readonly total: number;
  readonly trainable: number;
  readonly frozen: number;
  readonly quantized: number;
  readonly adapter: number;
  readonly source: string;
}

export interface PerGpuEstimate {
  /** Peak bytes allocated by PyTorch (torch.cuda.max_memory_allocated). */
  readonly peakBytes: number;
  /** Bytes the caching allocator holds at that peak (torch.cuda.max_memory_reserved). */
  readonly reservedBytes: number;
  /** What nvidia-smi shows for the process: reserved + CUDA context + NCCL + memory outside PyTorch. */
  readonly deviceBytes: number;
  readonly phase: Phase;
  readonly components: readonly Component[];
  readonly runtime: readonly RuntimeTerm[];
  readonly phases: readonly PhaseEstimate[];
  /** Pipeline stage the busiest rank runs (0 when there is no pipeline parallelism). */
  readonly stage: number;
  /** With variable-length batches: what the allocator holds over a whole run on a GPU with room to spare. */
  readonly variableLengths?: VariableLengthCache;
  /** Paged optimizer state (bitsandbytes, CUDA unified memory) that does not fit beside the rest: it lives in host RAM. */
  readonly pagedToHostBytes?: number;
  /**
   * Set only under EstimateOptions.reservedLowerBound, when a step replay was skipped or run in part (an FSDP replay's
   * first micro-batch) or the peak allocated (or the model states alone) with what sits outside the allocator already
   * exceeds the GPU: reservedBytes and deviceBytes
   * are lower bounds (the real figures are at least these), and so is the step's paged memory; in the last case so is
   * peakBytes, and the phases are the model states' one.
   */
  readonly reservedLowerBound?: true;
}

/**
 * The caching allocator keeps the blocks of earlier, shorter batches: a longer batch's largest tensors do not fit in
 * them, so it reserves new ones. That cache is released before an out-of-memory error (the allocator frees cached
 * blocks and retries), so it is reported beside the fit, not in it.
 */
export interface VariableLengthCache {
  /** Blocks of earlier, shorter batches still cached when the longest batch peaks. */
  readonly cacheBytes: number;
  /** torch.cuda.max_memory_reserved over a run (reservedBytes + cacheBytes, at most what the GPU leaves). */
  readonly reservedBytes: number;
  /** nvidia-smi over a run. */
  readonly deviceBytes: number;
  readonly formula: string;
}

export interface GpuTarget {
  readonly id: string;
  readonly memoryBytes: number;
  readonly source: string;
}

export interface Layout {
  readonly world: number;
  readonly dataParallel: number;
  readonly shardGroup: number;
  readonly tensorParallel: number;
  readonly pipelineParallel: number;
  /** The pipeline's stages are one process's GPUs (device_map), not a pipeline engine's ranks. */
  readonly deviceMapSplit?: true;
  readonly expertParallel: number;
  /** GPUs that split each sequence (context parallelism). */
  readonly contextParallel: number;
  readonly globalBatch: number;
}

export interface Estimate {
  readonly model: string;
  readonly architecture: string;
  readonly parameters: ParameterSummary;
  readonly layout: Layout;
  readonly perGpu: PerGpuEstimate;
  /** Host RAM needed per node for offloaded state and pinned buffers. */
  readonly cpuBytes: number;
  /** NVMe space needed per node for offloaded state. */
  readonly nvmeBytes: number;
  readonly gpu?: GpuTarget;
  readonly fits?: boolean;
  readonly headroomBytes?: number;
  readonly assumptions: readonly Assumption[];
  readonly warnings: readonly Warning[];
}

export type EstimateResult =
  { readonly ok: true; readonly estimate: Estimate } | { readonly ok: false; readonly errors: readonly Warning[] };
