// Term: the allocator's cache at the loss. When a step's peak is in the loss's backward, the caching allocator holds,
// beside the tensors alive there, the blocks the last layers' forward freed: each layer's intermediates that autograd
// does not keep (the MLP's gate, up and product when the layer is checkpointed, the norms' fp32 copies, the rotary
// products, a residual sum in a 20 MiB segment) are freed into blocks that the next layer's requests reuse, and after
// the last layer they stay cached; the head's and the loss's vocabulary-sized requests fit in none of them, so they
// get new segments and those blocks stay reserved, free, to the peak (c10/cuda/CUDACachingAllocator.cpp: a request
// takes only a cached block that holds it; segments never merge; nothing is released while the GPU has room).
// Computed by replaying one block's forward allocations (terms/saved-tensors.ts forwardSequence: every tensor the
// block's replay creates, freed after the op that last reads it unless autograd keeps it) layer after layer through
// the allocator model (terms/allocator.ts) and summing the free blocks smaller than the logits. The real allocation
// sequences of HF Trainer runs replayed the same way show these blocks (tools/truth/FINDINGS.md, "Reserved memory
// from replayed allocation sequences"). Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { memo } from '../util/memo';
import { type Allocation, CachingAllocator } from './allocator';
import type { ForwardSequence } from './saved-tensors';

/**
 * Layers replayed: the first takes new segments for everything, and from the second on each layer's intermediates
 * reuse the blocks the one before freed, so the cache the fourth leaves is the one every later layer leaves.
 */
export const REPLAYED_LAYERS = 4;

/** The cache at the end of the forward, in bytes, and how many layers were replayed to find it. */
export interface ForwardCache {
  readonly bytes: number;
  readonly layers: number;
}

/**
 * Replays `layers` blocks' forward (at most REPLAYED_LAYERS) from an empty cache and returns the bytes in free blocks
 * smaller than `lossRequestBytes` at its end. `checkpointed`: the blocks run under activation checkpointing, which
 * keeps each block's input and frees everything else at its last read.
 */
export function forwardEndCache(
  seq: ForwardSequence,
  layers: number,
  checkpointed: boolean,
  lossRequestBytes: number,
): ForwardCache {
  return replays({ seq, layers: Math.max(1, Math.min(layers, REPLAYED_LAYERS)), checkpointed, lossRequestBytes });
}

interface Replay {
  readonly seq: ForwardSequence;
  readonly layers: number;
  readonly checkpointed: boolean;
  readonly lossRequestBytes: number;
}

/** One replay per sequence (a memoized block's) and arguments: the advice search asks for the same few again and again. */
const replays = memo(replay, {
  scope: (r) => r.seq,
  limit: 256,
  key: (r) => `${r.layers}|${+r.checkpointed}|${r.lossRequestBytes}`,
  recent: {
    size: 8,
    same: (a, b) =>
      a.seq === b.seq &&
      a.layers === b.layers &&
      a.checkpointed === b.checkpointed &&
      a.lossRequestBytes === b.lossRequestBytes,
  },
});

function replay({ seq, layers: replayed, checkpointed, lossRequestBytes }: Replay): ForwardCache {
  const allocator = new CachingAllocator();
  const n = seq.bytes.length;
  const kept = (i: number): boolean =>
    i === seq.output || seq.held[i] || (checkpointed ? i === seq.input : seq.saved[i]) || seq.bytes[i] <= 0;
  // The allocations freed after each one.
  const freesAt: number[][] = seq.bytes.map(() => []);
  for (let i = 0; i < n; i++) if (!kept(i)) freesAt[seq.freeAfter[i]].push(i);
  let input: Allocation | undefined = seq.input >= 0 ? allocator.malloc(seq.bytes[seq.input]) : undefined;
  for (let layer = 0; layer < replayed; layer++) {
    const handles: (Allocation | undefined)[] = new Array<Allocation | undefined>(n);
    for (let i = 0; i < n; i++) {
      if (i === seq.input) handles[i] = input;
      else if (seq.bytes[i] > 0) handles[i] = allocator.malloc(seq.bytes[i]);
      for (const j of freesAt[i]) {
        const h = handles[j];
        if (h) allocator.free(h);
        handles[j] = undefined;
      }
    }
    input = handles[seq.output];
  }
  return { bytes: allocator.cachedBelow(lossRequestBytes), layers: replayed };
}

/**
 * One block's forward allocations on a stage, its layers, the tokens of a micro-batch there, and what the loss's
 * backward point allocates (whichever backward point is the highest).
 */
export interface StageForward {
  readonly sequence: ForwardSequence | undefined;
  readonly layers: number;
  readonly tokens: number;
  readonly lossBackwardBytes: number;
  /** The stage computes the loss (the last pipeline stage). */
  readonly hasLoss: boolean;
}

/**
 * The blocks the last layers' forward left cached at the loss's backward (the replay below), with its formula; undefined where the loss's requests are not
 * the whole logits (chunked or fused losses), where the blocks keep other tensors (selective checkpointing, activation
 * offloading), and with expandable segments (freed ranges of one growing segment serve requests of any size).
 */
export function forwardCacheTerm(ctx: EstimateContext, forward: StageForward): RuntimeTerm | undefined {
  const setup = ctx.setup;
  const ck = setup.gradient_checkpointing;
  if (
    forward.sequence === undefined ||
    ck === 'selective' ||
    setup.loss !== 'full' ||
    setup.activation_offloading ||
    setup.expandable_segments
  )
    return undefined;
  const logits = ctx.dtypes.computeBytes * forward.tokens * (ctx.model.arch.vocab / ctx.layout.tensorParallel);
  const cache = forwardEndCache(forward.sequence, forward.layers, ck === 'full', logits);
  if (cache.bytes <= 0) return undefined;
  return {
    id: 'forward-cache',
    label: "Blocks the forward's last layers freed, cached at the loss",
    bytes: cache.bytes,
    formula: ctx.lean
      ? ''
      : `free blocks smaller than the ${formatBytes(logits)} logits, which the head and the loss cannot use: ` +
        `allocator replay of ${cache.layers} layers' forward${ck === 'full' ? ' (checkpointed)' : ''}, ` +
        "each layer's intermediates freed after their last use unless kept for backward",
  };
}
