// How far the CPU runs ahead of a GPU-bound forward, in layers: where a layer's kernels take the GPU longer than the
// CPU takes to issue them, the CPU gets ahead until the compute stream's launch queue is full, or by what it gains over
// the stage's layers where the two times are close. ZeRO-3's all-gather stream (terms/zero3-launch-lead.ts) and
// FSDP1 without its rate limiter (terms/fsdp1-launch-lead.ts) hold the parameters of every layer issued ahead, each
// with its own CPU cost a launch. Docs: docs/estimate/runtime.md. Pure arithmetic.
import type { EstimateContext } from '../estimate/context';
import { layerForwardSeconds } from '../step-time';
import type { ForwardSequence } from './saved-tensors';

/**
 * Launches a CUDA stream queues before the next launch blocks the CPU: 1,024 (the H100 blocked at the 1,021st launch
 * behind one held kernel, CUDA 13.0, driver 580; half and twice that under CUDA_SCALE_LAUNCH_QUEUES=0.5x / 2x).
 */
export const LAUNCH_QUEUE_LAUNCHES = 1024;

/** The CPU's lead over a GPU-bound forward and the times it comes from. */
export interface CpuLaunchLead {
  /** Layers the CPU has issued ahead, not rounded: the least of the queue's, the gain's and the stage's layers. */
  readonly layers: number;
  /** Kernel launches of one layer's forward (one per tensor it makes). */
  readonly launches: number;
  /** CPU seconds to issue one layer's launches. */
  readonly cpuSeconds: number;
  /** GPU seconds of one layer's forward, and how they were worked out. */
  readonly gpu: { readonly seconds: number; readonly formula: () => string };
  /** What bounds the lead, in words: the launch queue, the CPU's gain over the stage, or the stage's layers. */
  readonly bound: () => string;
}

/**
 * The lead where a layer's forward takes the GPU longer than the CPU's launches at `secondsPerLaunch`: the layers the
 * launch queue holds (LAUNCH_QUEUE_LAUNCHES over a layer's launches), or fewer where the CPU gains less than that over
 * the stage's layers (layers x (1 - CPU time / GPU time)). Undefined on an unknown GPU, without a forward sequence, or
 * where the CPU is the slower.
 */
export function cpuLaunchLead(
  ctx: EstimateContext,
  sequence: ForwardSequence | undefined,
  layersHere: number,
  secondsPerLaunch: number,
): CpuLaunchLead | undefined {
  const spec = ctx.gpu?.spec;
  const launches = sequence?.bytes.length ?? 0;
  if (!spec || launches === 0) return undefined;
  const gpu = layerForwardSeconds(ctx.setup, ctx.model.arch, spec);
  const cpuSeconds = launches * secondsPerLaunch;
  if (!(gpu.seconds > cpuSeconds)) return undefined;
  const queued = LAUNCH_QUEUE_LAUNCHES / launches;
  const gained = layersHere * (1 - cpuSeconds / gpu.seconds);
  const layers = Math.min(queued, gained, layersHere);
  const bound = (): string =>
    layers === queued
      ? `the ${LAUNCH_QUEUE_LAUNCHES} launches CUDA's launch queue holds / ${launches} a layer`
      : layers === gained
        ? `what it gains over ${layersHere} layers, ${layersHere} x (1 - CPU / GPU time)`
        : `all ${layersHere} layers of the stage`;
  return { layers, launches, cpuSeconds, gpu, bound };
}
