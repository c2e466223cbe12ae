// Term: the gathered layers ZeRO-3's all-gather stream keeps while the CPU runs ahead of a GPU-bound step. Where a
// layer's kernels take the GPU longer than the CPU takes to issue them, the CPU gets ahead until the compute stream's
// launch queue is full (terms/cpu-launch-lead.ts); each layer it has issued has had its parameters gathered, and their blocks, released by the
// CPU, stay unusable until the kernels that read them have run (record_stream), so the all-gather stream's pool holds
// every layer in the queue. CUDA's queue holds 1,024 launches per stream (CUDA_SCALE_LAUNCH_QUEUES scales it); a layer
// launches about one kernel per tensor its forward makes. H100 truth (tools/truth/gpu/results/2026-11-27b-h100, FINDINGS
// §89): Llama-2-70B LoRA at 4 x 2,048 tokens, max_memory_reserved 41.6 / 47.9-53.8 / 58.1 GiB with the queue at half,
// default and twice its size, allocated 36.2 GiB in each. Docs: docs/estimate/runtime.md. Pure arithmetic.
import type { EstimateContext, StageContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { deepspeedHooksMeasured } from '../estimate/deepspeed-release';
import { runtimeTerm, usableGpuBytes } from '../estimate/component';
import type { ForwardSequence } from './saved-tensors';
import { cpuLaunchLead } from './cpu-launch-lead';

/**
 * CPU seconds per kernel launch of a layer's forward under ZeRO-3, DeepSpeed's fetch and release hooks included
 * (DeepSpeed 0.19.6, the H100 host of the GPU truth), on the scale of layerForwardSeconds: Llama-2-70B LoRA layers
 * (92 tensors each) kept the CPU behind the GPU at 2 x 2,048 tokens (19.6 ms of modelled GPU time a layer), and at
 * 4 x 2,048 (38 ms) let it run ahead by the whole queue, and with the queue doubled by 14 of the 80 layers, which puts
 * the CPU's time a layer at 82 % of the GPU's: 31 ms, 0.34 ms a launch.
 */
export const ZERO3_CPU_SECONDS_PER_LAUNCH = 3.4e-4;

/** ZeRO-3 gathers on a stream of its own: overlap_comm, true unless the config turns it off. */
export const zero3GatherStream = (ctx: EstimateContext): boolean =>
  !ctx.sharding.fsdp &&
  ctx.sharding.zeroStage === 3 &&
  ctx.sharding.shardParams > 1 &&
  ctx.setup.zero_buckets?.overlap_comm !== false;

/** How far the CPU runs ahead of a GPU-bound ZeRO-3 step, and what the all-gather stream's pool then holds. */
export interface Zero3LaunchLead {
  /** Layers whose gathered parameters the pool holds: those the launch queue holds, or fewer where the CPU gains slowly. */
  readonly layers: number;
  /** Bytes of those layers' gathered parameters. */
  readonly bytes: number;
  readonly formula: () => string;
}

/**
 * The CPU's lead where a layer's forward takes the GPU longer than the CPU: the layers the launch queue holds
 * (LAUNCH_QUEUE_LAUNCHES over a layer's launches, one per tensor of its forward), or fewer where the CPU gains less
 * than that over the stage's layers (layers x (1 - CPU time / GPU time)). Undefined where the CPU is the slower, on an
 * unknown GPU, or for a DeepSpeed release whose hooks' CPU time was not measured.
 */
export function zero3LaunchLead(
  ctx: EstimateContext,
  st: StageContext,
  sequence: ForwardSequence | undefined,
  layerBytes: number,
): Zero3LaunchLead | undefined {
  if (!zero3GatherStream(ctx) || !(layerBytes > 0) || !deepspeedHooksMeasured(ctx.setup)) return undefined;
  const lead = cpuLaunchLead(ctx, sequence, st.layersHere, ZERO3_CPU_SECONDS_PER_LAUNCH);
  if (!lead) return undefined;
  assumeMeasuredRelease(ctx);
  return {
    layers: lead.layers,
    bytes: Math.round(lead.layers * layerBytes),
    formula: () =>
      `the CPU runs ahead of the GPU (a layer's forward: GPU ${lead.gpu.formula()}; CPU ${lead.launches} launches x ` +
      `${ZERO3_CPU_SECONDS_PER_LAUNCH * 1e3} ms with DeepSpeed's hooks = ${(lead.cpuSeconds * 1e3).toFixed(1)} ms) by ` +
      `${lead.bound()} = ${lead.layers.toFixed(1)} layers x ${formatBytes(layerBytes)} gathered, held on the ` +
      'all-gather stream until the kernels that read them have run',
  };
}

/**
 * The lead's layers beyond what the all-gather pool holds anyway (its capacity), as far as the GPU has room for them:
 * a request that finds no room waits for those blocks' kernels and frees them (release_cached_blocks synchronizes), so
 * the lead raises reserved memory and never decides the fit.
 */
export function zero3LaunchLeadTerm(
  ctx: EstimateContext,
  lead: Zero3LaunchLead | undefined,
  poolCapacity: number,
  reservedSoFar: number,
  outside: number,
): RuntimeTerm | undefined {
  if (!lead) return undefined;
  const room = Math.max(0, usableGpuBytes(ctx) - reservedSoFar - outside);
  const beyond = Math.max(0, lead.bytes - Math.round(poolCapacity));
  const bytes = Math.min(beyond, room);
  return runtimeTerm(
    ctx,
    'zero3-launch-lead',
    "Gathered layers ZeRO-3's all-gather stream holds while the CPU runs ahead",
    bytes,
    () =>
      `${lead.formula()}: ${formatBytes(lead.bytes)}, less the ${formatBytes(poolCapacity)} the pool holds anyway` +
      (bytes < beyond ? `; ${formatBytes(bytes)} of it fit beside the rest, the allocator frees the others` : ''),
  );
}

/**
 * Where no file names the DeepSpeed release and the lead counts, the release it is taken to be, said once (with what
 * else the release changes, where the assumption is already made): the lead needs one whose hooks' CPU time was
 * measured.
 */
function assumeMeasuredRelease(ctx: EstimateContext): void {
  if (ctx.lean || ctx.setup.deepspeed_version !== undefined) return;
  const source =
    "a current release, whose ZeRO-3 hooks took 0.34 ms of CPU time a kernel launch on the GPU truth's H100 host; " +
    "where a layer's kernels take the GPU longer, the CPU runs ahead and the layers it has issued stay gathered " +
    "(reserved only, never the fit): set deepspeed_version for an earlier release, whose hooks' time was not " +
    'measured and which is estimated without it';
  const value = 'current (0.19.6 or later)';
  const list = ctx.notes.assumptions;
  const at = list.findIndex((a) => a.key === 'deepspeed_version');
  if (at < 0) list.push({ key: 'deepspeed_version', value, source: `VRAM Lens default: ${source}` });
  else list[at] = { key: 'deepspeed_version', value, source: `${list[at].source}; and ${source}` };
}
