// Term: the allocator's cache at the loss. When a step's peak is in the loss's backward, the caching allocator holds,
// beside the tensors alive there, the blocks the last layers' forward freed: each layer's intermediates that autograd
// does not keep (the MLP's gate, up and product when the layer is checkpointed, the norms' fp32 copies, the rotary
// products, a residual sum in a 20 MiB segment) are freed into blocks that the next layer's requests reuse, and after
// the last layer they stay cached; the head's and the loss's vocabulary-sized requests fit in none of them, so they
// get new segments and those blocks stay reserved, free, to the peak (c10/cuda/CUDACachingAllocator.cpp: a request
// takes only a cached block that holds it; segments never merge; nothing is released while the GPU has room).
// Computed by replaying one block's forward allocations (terms/saved-tensors.ts forwardSequence: every tensor the
// block's replay creates, freed after the op that last reads it unless autograd keeps it) layer after layer through
// the allocator model (terms/allocator.ts) and summing the free blocks smaller than the logits; a loss that asks for
// smaller tensors (TRL chunked_nll's chunks) has them placed by best fit first, and what stays free is summed. The
// real allocation sequences of HF Trainer and TRL SFT runs replayed the same way show these blocks
// (tools/truth/FINDINGS.md, "Reserved memory from replayed allocation sequences"). Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { memo } from '../util/memo';
import { type Allocation, CachingAllocator } from './allocator';
import { chunkedNllTensors } from './loss';
import { lossPlan } from './logits-loss';
import type { ForwardSequence } from './saved-tensors';
import type { Zero3LaunchLead } from './zero3-launch-lead';
import { checkpointReentrant } from './activations/kept-inputs';

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
 * What the loss asks of the allocator after the forward: `below`, requests of at least that many bytes (the whole
 * logits), which no forward block holds, so the cache is the free blocks smaller than it; or `sizes`, the loss's
 * tensors alive at the peak (a chunked loss), placed by best fit into the forward's blocks, the cache being what stays
 * free.
 */
export type LossRequests = { readonly below: number } | { readonly sizes: readonly number[] };

/**
 * Replays `layers` blocks' forward (at most REPLAYED_LAYERS) from an empty cache, then the loss's requests, and returns
 * the bytes cached in free blocks. `checkpointed`: the blocks run under activation checkpointing, which keeps each
 * block's input and frees everything else at its last read, except, when `keepsContextHeld` (non-reentrant
 * checkpointing), what autograd Functions hold as ctx attributes (bitsandbytes' kept inputs).
 */
export function forwardEndCache(
  seq: ForwardSequence,
  layers: number,
  checkpointed: boolean,
  loss: LossRequests,
  keepsContextHeld = false,
): ForwardCache {
  const lossKey = 'below' in loss ? `<${loss.below}` : loss.sizes.join(',');
  const layersReplayed = Math.max(1, Math.min(layers, REPLAYED_LAYERS));
  return replays({ seq, layers: layersReplayed, checkpointed, keepsContextHeld, loss, lossKey });
}

interface Replay {
  readonly seq: ForwardSequence;
  readonly layers: number;
  readonly checkpointed: boolean;
  readonly keepsContextHeld: boolean;
  readonly loss: LossRequests;
  readonly lossKey: string;
}

/** One replay per sequence (a memoized block's) and arguments: the advice search asks for the same few again and again. */
const replays = memo(replay, {
  scope: (r) => r.seq,
  limit: 256,
  key: (r) => `${r.layers}|${+r.checkpointed}|${+r.keepsContextHeld}|${r.lossKey}`,
  recent: {
    size: 8,
    same: (a, b) =>
      a.seq === b.seq &&
      a.layers === b.layers &&
      a.checkpointed === b.checkpointed &&
      a.keepsContextHeld === b.keepsContextHeld &&
      a.lossKey === b.lossKey,
  },
});

function replay({ seq, layers: replayed, checkpointed, keepsContextHeld, loss }: Replay): ForwardCache {
  const allocator = new CachingAllocator();
  const keptByCheckpoint = (i: number): boolean => i === seq.input || (keepsContextHeld && seq.contextHeld[i]);
  const kept = (i: number): boolean =>
    i === seq.output ||
    (seq.held[i] && (!checkpointed || seq.uncached?.[i] !== true)) ||
    (checkpointed ? keptByCheckpoint(i) : seq.saved[i]) ||
    seq.bytes[i] <= 0;
  const schedule = freeSchedule(seq, (i) => !kept(i));
  let input: Allocation | undefined = seq.input >= 0 ? allocator.malloc(seq.bytes[seq.input]) : undefined;
  for (let layer = 0; layer < replayed; layer++) input = allocateSequence(allocator, seq, input, schedule)[seq.output];
  if ('below' in loss) return { bytes: allocator.cachedBelow(loss.below), layers: replayed };
  for (const size of loss.sizes) if (size > 0) allocator.malloc(size);
  return { bytes: allocator.cachedBelow(Number.MAX_SAFE_INTEGER), layers: replayed };
}

/** For each allocation of a block's forward, the allocations freed right after it: those `freed` names, at their last read. */
export function freeSchedule(seq: ForwardSequence, freed: (i: number) => boolean): number[][] {
  const freesAt: number[][] = seq.bytes.map(() => []);
  for (let i = 0; i < seq.bytes.length; i++) if (freed(i)) freesAt[seq.freeAfter[i]].push(i);
  return freesAt;
}

/**
 * Runs a block's forward through `allocator` from `input` (the previous block's output, not allocated here): every
 * tensor allocated in order, and after each the ones `schedule` frees there. Returns the handles still alive, by index.
 */
export function allocateSequence(
  allocator: CachingAllocator,
  seq: ForwardSequence,
  input: Allocation | undefined,
  schedule: readonly (readonly number[])[],
  end = seq.bytes.length,
): (Allocation | undefined)[] {
  const n = seq.bytes.length;
  const handles: (Allocation | undefined)[] = new Array<Allocation | undefined>(n);
  for (let i = 0; i < end; i++) {
    if (i === seq.input) handles[i] = input;
    else if (seq.bytes[i] > 0) handles[i] = allocator.malloc(seq.bytes[i]);
    for (const j of schedule[i]) {
      const h = handles[j];
      if (h) allocator.free(h);
      handles[j] = undefined;
    }
  }
  return handles;
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
  /** How far the CPU runs ahead of a GPU-bound ZeRO-3 step (terms/zero3-launch-lead.ts). */
  readonly zero3LaunchLead?: Zero3LaunchLead;
}

/**
 * The blocks the last layers' forward left cached at the loss's backward (the replay above), with its formula;
 * undefined for losses whose requests are not modeled (lossRequests), where the blocks keep other tensors (selective
 * checkpointing, activation offloading), and with expandable segments (freed ranges of one growing segment serve
 * requests of any size).
 */
export function forwardCacheTerm(ctx: EstimateContext, forward: StageForward): RuntimeTerm | undefined {
  const setup = ctx.setup;
  const ck = setup.gradient_checkpointing;
  const loss = lossRequests(ctx, forward.tokens);
  if (
    forward.sequence === undefined ||
    loss === undefined ||
    ck === 'selective' ||
    setup.activation_offloading ||
    setup.expandable_segments
  )
    return undefined;
  const cache = forwardEndCache(forward.sequence, forward.layers, ck === 'full', loss, !checkpointReentrant(setup));
  if (cache.bytes <= 0) return undefined;
  const layers = `allocator replay of ${cache.layers} layers' forward${ck === 'full' ? ' (checkpointed)' : ''}`;
  return {
    id: 'forward-cache',
    label: "Blocks the forward's last layers freed, cached at the loss",
    bytes: cache.bytes,
    formula: ctx.lean
      ? ''
      : 'below' in loss
        ? `free blocks smaller than the ${formatBytes(loss.below)} logits, which the head and the loss cannot use: ` +
          `${layers}, each layer's intermediates freed after their last use unless kept for backward`
        : `free blocks of the forward's intermediates beside TRL chunked_nll's chunk tensors ` +
          `(${loss.sizes.map((b) => formatBytes(b)).join(', ')}, placed by best fit): ${layers}`,
  };
}

/**
 * The loss's requests after the forward: the whole logits of a plain cross-entropy (16-bit logits, their fp32 upcast
 * and log-softmax: none fits a forward block, `below` the smallest of them); TRL chunked_nll's packed hidden states, the
 * last chunk's four fp32 chunk x V tensors and its slice gradient (terms/loss.ts chunkedNll). Undefined for the other
 * losses (rows of log-probabilities, fused and chunked kernels), which keep the flat reserve only.
 */
function lossRequests(ctx: EstimateContext, tokens: number): LossRequests | undefined {
  const setup = ctx.setup;
  if (setup.preference !== undefined || ctx.methods.rollout !== undefined) return undefined;
  if (setup.loss === 'full')
    return { below: ctx.dtypes.logitsBytes * tokens * (ctx.model.arch.vocab / ctx.layout.tensorParallel) };
  return setup.loss === 'chunked-nll' ? { sizes: chunkedNllTensors(lossPlan(ctx, tokens)) } : undefined;
}
