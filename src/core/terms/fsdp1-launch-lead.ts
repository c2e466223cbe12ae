// How far the CPU runs ahead of a GPU-bound FSDP1 forward without the rate limiter (limit_all_gathers=False), in
// layers: the replay of FSDP1's streams (terms/fsdp1-step-cache.ts) holds each layer's gathered buffer on the unshard
// stream until that many later layers have been gathered. With the limiter FullyShardedDataParallel makes the CPU wait
// once two all-gathers are in flight (_runtime_utils.py _unshard, the free-event queue); without it the CPU issues
// layer after layer until the compute stream's launch queue is full (terms/cpu-launch-lead.ts
// LAUNCH_QUEUE_LAUNCHES), and the buffers it has released stay unusable until the kernels that read them have run
// (record_stream). llama-cookbook PR #41 (Llama-2-7B LoRA, FSDP1 on 4 A100-40GB, 4 x 2,048 tokens): turning the
// limiter on lowered max_memory_reserved by 5.31 GB, about 13 layers' 0.40 GB buffers. Docs: docs/estimate/runtime.md.
// Pure arithmetic.
import type { EstimateContext } from '../estimate/context';
import { fsdp1Sharded } from '../fsdp-rules';
import type { ForwardSequence } from './saved-tensors';
import { cpuLaunchLead } from './cpu-launch-lead';

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
  if (ctx.setup.fsdp_limit_all_gathers !== false || !fsdp1Sharded(ctx.setup)) return undefined;
  const lead = cpuLaunchLead(ctx, sequence, layersHere, FSDP1_CPU_SECONDS_PER_LAUNCH);
  const layers = Math.floor(lead?.layers ?? 0);
  if (!lead || layers < 2) return undefined;
  return {
    layers,
    formula: () =>
      `limit_all_gathers off: the CPU runs ahead of the GPU (a layer's forward: GPU ${lead.gpu.formula()}; CPU ` +
      `${lead.launches} launches x ${FSDP1_CPU_SECONDS_PER_LAUNCH * 1e6} us = ${(lead.cpuSeconds * 1e3).toFixed(2)} ms) ` +
      `by ${lead.bound()} = ${layers} whole layers, each layer's gathered buffer held on the unshard stream until ` +
      'their kernels have run',
  };
}
