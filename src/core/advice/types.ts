// What the advice engine returns, and its options. Types only.
// Docs: docs/estimate/advice.md
import type { GpuSpec } from '../catalog/gpus';
import type { EstimateOptions } from '../estimate';
import type { Estimate } from '../model';
import type { TrainingSetup, ZeroBuckets } from '../setup';
import type { StepTime } from '../step-time';

/** One scenario-key change, e.g. {key: 'gradient_checkpointing', value: 'full'}. */
export interface SetupChange {
  readonly key: keyof TrainingSetup;
  readonly value: unknown;
}

export interface AdviceItem {
  readonly id: string;
  readonly title: string;
  readonly changes: readonly SetupChange[];
  /** Bytes saved on the device (nvidia-smi) figure, versus the current setup. */
  readonly savedBytes: number;
  /** New step time / current step time (1.0 = no slower). */
  readonly stepTimeFactor: number;
  /** Changes what is trained or on what data (LoRA, QLoRA, shorter sequences), not only speed. */
  readonly changesResult: boolean;
  readonly fits: boolean;
  /** The device (nvidia-smi) figure after the change. */
  readonly deviceBytes: number;
  /**
   * The estimate after the change, with its formulas and assumptions: worked out when first read (the search lists
   * dozens of items, and most views show only their figures).
   */
  readonly estimate: Estimate;
  /** The cost arithmetic, for "Show formula". */
  readonly costExplain: readonly string[];
  /** GPUs the change needs in total (more GPUs than now for the scale-out option). */
  readonly gpus: number;
}

export interface AdviceResult {
  readonly current: Estimate;
  readonly currentStep: StepTime;
  /**
   * Fitting changes on the Pareto front of (changes result, GPUs needed, step time, memory, number of changes),
   * cheapest first: result-preserving before result-changing, then the fewest GPUs, then the fastest.
   */
  readonly items: readonly AdviceItem[];
  /** How many candidate setups were estimated. */
  readonly evaluated: number;
  readonly maxMicroBatch?: number;
  readonly maxSeqLen?: number;
  /** Total GPUs needed with the current strategy plus ZeRO-3 sharding, when that helps. */
  readonly gpusNeeded?: number;
}

export interface AdviceOptions extends EstimateOptions {
  readonly gpuSpec?: Pick<GpuSpec, 'denseTflops' | 'hostLink' | 'peerLink' | 'hbmBandwidthGBps' | 'bf16'>;
  /** Combine up to this many single changes (1-3). */
  readonly maxCombination?: number;
  /** Upper bound for scale-out advice. */
  readonly maxGpus?: number;
  /**
   * The ZeRO settings of the DeepSpeed config a change to this stage and offload would point the run at (a file the
   * tool ships, as its quick fix writes it), or undefined where the settings stay as they are.
   */
  readonly zeroConfigFor?: (stage: number, offloadOptimizer: string, offloadParams: string) => ZeroBuckets | undefined;
}
