// The estimator's output types: plain serializable data, units in field names.
import type { SetupKey } from './setup';

export type Phase = 'load' | 'forward' | 'backward' | 'optimizer' | 'first-step' | 'evaluation' | 'generation';

export type ComponentId =
  | 'weights' | 'quantization-constants' | 'adapter-weights' | 'master-weights' | 'gradients' | 'ddp-buckets'
  | 'optimizer-states' | 'optimizer-step' | 'activations' | 'checkpoint-recompute' | 'backward-working'
  | 'autocast-weight-copies' | 'logits-loss' | 'loss-backward' | 'zero-buckets' | 'gathered-params' | 'gathered-grads' | 'first-step-init'
  | 'kv-cache' | 'rollout-engine' | 'load-transient' | 'rotary-tables';

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
  readonly id: 'allocator-reserve' | 'stream-pools' | 'load-cache' | 'cuda-context' | 'nccl' | 'paged-optimizer';
  readonly label: string;
  readonly bytes: number;
  readonly formula: string;
}

/** Runtime terms held by the caching allocator: part of the reserved bytes, not on top of them. */
export const RESERVED_RUNTIME_IDS: ReadonlySet<RuntimeTerm['id']> = new Set<RuntimeTerm['id']>(['allocator-reserve', 'stream-pools', 'load-cache']);

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
  | { readonly ok: true; readonly estimate: Estimate }
  | { readonly ok: false; readonly errors: readonly Warning[] };
