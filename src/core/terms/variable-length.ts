// Term: variable-length batches. The caching allocator keeps the loss blocks of earlier, shorter record batches
// beside the longest one's: one more set of the vocabulary-sized tensors, capped at the GPU's memory.
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
  const variableLengths =
    setup.batch_lengths === 'variable' && !cacheReleased && !ctx.lean
      ? lengthCache(ctx, totals, stage, lossTensorBytes)
      : undefined;
  return variableLengths;
}

/**
 * Variable-length batches (each padded to its own longest sample): when a batch longer than every earlier one
 * arrives, its largest tensors (the vocabulary-sized logits and loss buffers) fit in none of the cached blocks of
 * the earlier batches, so the allocator reserves new ones; smaller tensors are carved out of the cached blocks
 * (best fit, blocks split, no merging across segments: c10/cuda/CUDACachingAllocator.cpp). The record batch just
 * before the longest one is nearly as long, so its loss blocks stay cached beside the new ones: one more set of loss
 * tensors. Earlier records add more, by an amount that depends on the order of lengths: tools/allocator/replay.py
 * gives 0.4x to 9x (median about 4x) over 1,000 steps of uniformly spread lengths, the published ms-swift runs
 * 1.2x to 2.7x. The figure counts one set, the low end of both. Blocks are freed before an out-of-memory error, so
 * the total stops at the GPU's capacity.
 */
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
  const lossBytes = stage === pp - 1 ? lossTensorBytes : 0; // the loss runs on the last pipeline stage
  // Cached blocks win over paged optimizer state, which the driver evicts to make room.
  const room = gpu
    ? gpu.memoryBytes - (deviceBytes - reservedBytes - Math.max(0, pagedResident - pagedWorking))
    : Infinity;
  // Free room in the segments the model's load left cached takes those blocks first.
  const cacheBytes = Math.max(0, Math.min(reservedBytes + lossBytes - loadCache, room) - reservedBytes);
  assumptions.push({
    key: 'batch_lengths.cache',
    value: 'one set of loss tensors of earlier, shorter batches',
    source:
      'VRAM Lens: the record batch before the longest one leaves its loss blocks cached; ' +
      'earlier records add more depending on the order of lengths (allocator replay: 0.4-9x, ' +
      'published runs: 1.2-2.7x)',
  });
  return {
    cacheBytes,
    reservedBytes: reservedBytes + cacheBytes,
    deviceBytes: deviceBytes + cacheBytes,
    formula:
      `logits and cross-entropy blocks of earlier, shorter record batches, one longest batch's ` +
      `worth${cacheBytes < lossBytes ? ` (${Math.round(lossBytes / MiB)} MiB), capped at the GPU's memory` : ''}`,
  };
}
