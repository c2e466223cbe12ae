// How far the CPU runs ahead of a GPU-bound FSDP1 forward without the rate limiter (limit_all_gathers=False), in
// layers: the replay of FSDP1's streams (terms/fsdp1-step-cache.ts) holds each layer's gathered buffer on the unshard
// stream until that many later layers have been gathered. With the limiter FullyShardedDataParallel makes the CPU wait
// once two all-gathers are in flight (_runtime_utils.py _unshard, the free-event queue); without it the CPU issues
// layer after layer until the compute stream's launch queue is full (terms/zero3-launch-lead.ts
// LAUNCH_QUEUE_LAUNCHES), and the buffers it has released stay unusable until the kernels that read them have run
// (record_stream). llama-cookbook PR #41 (Llama-2-7B LoRA, FSDP1 on 4 A100-40GB, 4 x 2,048 tokens): turning the
// limiter on lowered max_memory_reserved by 5.31 GB, about 13 layers' 0.40 GB buffers. Docs: docs/estimate/runtime.md.
// Pure arithmetic.
import type { EstimateContext } from '../estimate/context';
import { fsdp1Sharded } from '../fsdp-rules';
import { layerForwardSeconds } from '../step-time';
import type { ForwardSequence } from './saved-tensors';
import { LAUNCH_QUEUE_LAUNCHES } from './zero3-launch-lead';

/**
 * CPU seconds per kernel launch of an eager forward with FSDP1's per-unit hooks: 15 us. A transformers Llama decoder
 * layer's forward (torch 2.13, one thread, tensors small enough that compute is negligible) took 12-21 us of CPU time
 * per kernel-launching op on the truth's CPU host, Python module calls included; a CUDA launch adds a few us.
 */
export const FSDP1_CPU_SECONDS_PER_LAUNCH = 1.5e-5;

/** The layers FSDP1's unshard stream holds in the forward beyond the one in use, and how that was worked out. */
export interface Fsdp1LaunchLead {
  /** Whole layers the CPU has issued ahead of the GPU: at least 2 (the limiter's own is 1). */
  readonly layers: number;
  readonly formula: () => string;
}

/**
 * The CPU's lead where the files turn FSDP1's rate limiter off: the whole layers the launch queue holds
 * (LAUNCH_QUEUE_LAUNCHES over a layer's launches, one per tensor of its forward), or fewer where the CPU gains less
 * than that over the stage's layers (layers x (1 - CPU time / GPU time)). Undefined with the limiter, on an unknown
 * GPU, where the CPU is the slower, or where the lead is no more than the limiter's single layer.
 */
export function fsdp1LaunchLead(
  ctx: EstimateContext,
  sequence: ForwardSequence | undefined,
  layersHere: number,
): Fsdp1LaunchLead | undefined {
  const spec = ctx.gpu?.spec;
  if (ctx.setup.fsdp_limit_all_gathers !== false || !fsdp1Sharded(ctx.setup) || !spec || !sequence) return undefined;
  const launches = sequence.bytes.length;
  if (launches === 0) return undefined;
  const gpu = layerForwardSeconds(ctx.setup, ctx.model.arch, spec);
  const cpuSeconds = launches * FSDP1_CPU_SECONDS_PER_LAUNCH;
  if (!(gpu.seconds > cpuSeconds)) return undefined;
  const queued = LAUNCH_QUEUE_LAUNCHES / launches;
  const gained = layersHere * (1 - cpuSeconds / gpu.seconds);
  const layers = Math.floor(Math.min(queued, gained, layersHere));
  if (layers < 2) return undefined;
  return {
    layers,
    formula: () =>
      `limit_all_gathers off: the CPU runs ahead of the GPU (a layer's forward: GPU ${gpu.formula()}; CPU ` +
      `${launches} launches x ${FSDP1_CPU_SECONDS_PER_LAUNCH * 1e6} us = ${(cpuSeconds * 1e3).toFixed(2)} ms) by ` +
      (queued <= gained
        ? `the ${LAUNCH_QUEUE_LAUNCHES} launches CUDA's launch queue holds / ${launches} a layer`
        : `what it gains over ${layersHere} layers, ${layersHere} x (1 - CPU / GPU time)`) +
      ` = ${layers} whole layers, each layer's gathered buffer held on the unshard stream until their kernels have run`,
  };
}
