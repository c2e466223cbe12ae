// Term: variable-length batches. The caching allocator keeps the loss blocks of earlier, shorter record batches
// beside the longest one's: two more sets of the vocabulary-sized tensors, capped at the GPU's memory.
// Sources: c10/cuda/CUDACachingAllocator.cpp (best fit, no merging across segments); tools/allocator/replay.py;
// published ms-swift runs. Docs: docs/estimate/runtime.md. Pure arithmetic; no I/O.
import type { VariableLengthCache } from '../model';
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTotals } from '../estimate/runtime';
import { MiB } from '../units';

/**
 * The cache variable-length batches leave over a run, when the allocator keeps it (no expandable segments, no
 * periodic empty_cache): undefined otherwise, and in lean mode.
 */
export function variableLengthCache(
  ctx: EstimateContext,
  totals: RuntimeTotals,
  stage: number,
  lossTensorBytes: number,
): VariableLengthCache | undefined {
  const setup = ctx.setup;
  const { assumptions } = ctx.notes;
  // With expandable segments, or the cache emptied every few steps, earlier batches' blocks are not held over a run.
  const cacheReleased = setup.expandable_segments || setup.empty_cache_steps !== undefined;
  if (setup.batch_lengths === 'variable' && cacheReleased && !ctx.lean) {
    assumptions.push({
      key: 'batch_lengths.cache',
      value: 'none kept over the run',
      source: setup.expandable_segments
        ? 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: freed ranges of the growing segment serve requests of any size'
        : `torch_empty_cache_steps=${setup.empty_cache_steps}: the allocator's cache is returned to the driver every ${setup.empty_cache_steps} steps`,
    });
  }
  // A loss without vocabulary-sized tensors (a sequence classifier's) leaves nothing of this kind cached.
  const variableLengths =
    setup.batch_lengths === 'variable' && !cacheReleased && !ctx.lean && lossTensorBytes > 0
      ? lengthCache(ctx, totals, stage, lossTensorBytes)
      : undefined;
  return variableLengths;
}

/**
 * Variable-length batches (each padded to its own longest sample): when a batch longer than every earlier one
 * arrives, its largest tensors (the vocabulary-sized logits and loss buffers) fit in none of the cached blocks of
 * the earlier batches, so the allocator reserves new ones; smaller tensors are carved out of the cached blocks
 * (best fit, blocks split, no merging across segments: c10/cuda/CUDACachingAllocator.cpp). Every such record batch
 * leaves its loss blocks cached, and a run of n batches has about ln n records, the last ones nearly as long as the
 * longest. How much stays depends on the order of lengths: tools/allocator/replay.py, over 24 orders of 100 to 300
 * uniformly spread lengths, leaves 0.3 to 9.6 sets beside the longest batch's own, median 2.9 to 4.1, fewer than two
 * in 12 to 25 % of the orders. The figure counts two sets (the two records before the longest), the lower quartile
 * of the replay. Blocks are freed before an out-of-memory error, so the total stops at the GPU's capacity.
 */
export const CACHED_LOSS_SETS = 2;

/** The cached loss tensors of earlier, shorter batches on `stage`, beside its per-step reserved figure. */
function lengthCache(
  ctx: EstimateContext,
  totals: RuntimeTotals,
  stage: number,
  lossTensorBytes: number,
): VariableLengthCache {
  const pp = ctx.layout.pipelineParallel;
  const { assumptions } = ctx.notes;
  const { reservedBytes, deviceBytes, loadCache, pagedWorking, pagedResident } = totals;
  const gpu = ctx.gpu;
  // The loss runs on the last pipeline stage. In whole bytes: a vocabulary that tensor parallelism does not divide
  // evenly leaves a fraction of a row per GPU in the per-rank loss tensors' average.
  const lossBytes = stage === pp - 1 ? Math.ceil(CACHED_LOSS_SETS * lossTensorBytes) : 0;
  // Cached blocks win over paged optimizer state, which the driver evicts to make room.
  const room = gpu
    ? gpu.memoryBytes - (deviceBytes - reservedBytes - Math.max(0, pagedResident - pagedWorking))
    : Infinity;
  // Free room in the segments the model's load left cached takes those blocks first.
  const cacheBytes = Math.max(0, Math.ceil(Math.min(reservedBytes + lossBytes - loadCache, room) - reservedBytes));
  assumptions.push({
    key: 'batch_lengths.cache',
    value: `${CACHED_LOSS_SETS} sets of loss tensors of earlier, shorter batches`,
    source:
      'VRAM Lens: each batch longer than all before it leaves its loss blocks cached; the count depends on ' +
      'the order of lengths (allocator replay over orders of uniformly spread lengths: 0.3-9.6 sets, ' +
      'fewer than two in 12-25 % of them)',
  });
  return {
    cacheBytes,
    reservedBytes: reservedBytes + cacheBytes,
    deviceBytes: deviceBytes + cacheBytes,
    formula:
      `logits and cross-entropy blocks of earlier, shorter record batches, ${CACHED_LOSS_SETS} x one longest ` +
      `batch's worth${cacheBytes < lossBytes ? ` (${Math.round(lossBytes / MiB)} MiB), capped at the GPU's memory` : ''}`,
  };
}
