// Term: the segments reserved at the loss's backward when the step's peak is elsewhere (in the last or first layer's
// backward, at the optimizer step). There the allocator holds what the loss's backward point allocates, the 16-bit
// logits' block (logits-block.ts), the blocks the forward's last layers left cached (forward-cache.ts) and the small
// pool's (small-pool.ts); it releases no segment while the GPU has room (c10/cuda/CUDACachingAllocator.cpp:
// release_cached_blocks only on a failed allocation or empty_cache), so max_memory_reserved is at least that, whatever
// the later points allocate. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { forwardCacheTerm, type StageForward } from './forward-cache';
import { logitsBlock } from './logits-block';
import { smallPoolTerm } from './small-pool';

/**
 * The segments reserved at the loss's backward, when the step's peak is elsewhere: the allocated bytes there plus the
 * 16-bit logits' block, the forward's cached blocks and the small pool's. The allocator releases no segment while the GPU has room, so
 * the reserved figure is at least that; the term is what it exceeds the peak's own reserved figure by (undefined when
 * it does not, or when the stage computes no loss). `streamPools`: what FSDP's other streams hold in their own pools
 * (runtime.ts), held beside the loss's backward as beside the peak.
 */
export function lossSegments(
  ctx: EstimateContext,
  forward: StageForward,
  reservedAtPeak: number,
  streamPools = 0,
): RuntimeTerm | undefined {
  if (!forward.hasLoss) return undefined;
  const loss = logitsBlock(ctx);
  const block = loss?.bytes ?? 0;
  const cache = forwardCacheTerm(ctx, forward)?.bytes ?? 0;
  const small = smallPoolTerm(ctx, forward)?.bytes ?? 0;
  const atLoss = forward.lossBackwardBytes + block + cache + small + streamPools;
  if (block + cache + small <= 0 || atLoss <= reservedAtPeak) return undefined;
  return {
    id: 'loss-segments',
    label: "Segments reserved at the loss's backward, kept to the peak",
    bytes: atLoss - reservedAtPeak,
    formula: ctx.lean
      ? ''
      : `${formatBytes(forward.lossBackwardBytes)} allocated at the loss's backward + ` +
        `${formatBytes(block)} ${loss?.name ?? "16-bit logits' block"} + ${formatBytes(cache)} blocks the forward left cached + ` +
        `${formatBytes(small)} of small-pool blocks${streamPools > 0 ? ` + ${formatBytes(streamPools)} in FSDP's stream pools` : ''} = ` +
        `${formatBytes(atLoss)} reserved there, which the allocator keeps (no segment is released while the GPU has ` +
        "room): more than this peak's allocated bytes and reserve",
  };
}
