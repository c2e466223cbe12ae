// TRL SFTTrainer's loss_type "chunked_nll" in the allocation replays (terms/two-step-cache.ts, fsdp1-step-cache.ts,
// fsdp2-step-cache.ts): the order in which its tensors are allocated and freed, as trl/trainer/sft_trainer.py runs
// them. It runs inside the model's patched forward: the training loop's backward hooks (FSDP's root pre-backward)
// follow its chunks' forward. _chunked_cross_entropy_loss copies the shifted hidden states
// (`hidden_states[..., :-1, :].reshape(-1, H)`, a copy when there is more than one row), packs the valid tokens
// (`hidden[order]`, a second copy; the first is freed when the name is rebound) and calls _chunk on 256 of them at a
// time under torch.utils.checkpoint.checkpoint(use_reentrant=False), which keeps only the chunk's inputs. _chunk: the
// chunk's logits in the compute dtype, their fp32 upcast (the 16-bit product freed), Gemma's soft-cap
// (`cap * tanh(logits / cap)`), log_softmax, its exp and the entropy product. In backward each chunk, last first, is
// recomputed (log_softmax's output and tanh's kept), then the gradients run back through the chain, one fp32 chunk
// tensor replacing the other, to the 16-bit logits' gradient, the head's weight gradient (a full fine-tune) and the
// chunk's hidden gradient, which SliceBackward writes into zeros of the packed size, accumulated into the first.
// Checked block by block against the H100 histories of TRL 1.13 SFT (tools/truth/FINDINGS.md §39). Pure arithmetic;
// no I/O.
// Docs: docs/estimate/runtime.md
import type { Allocation } from './allocator';
import { lossForwardBackward } from './loss-replay';
import { blasWorkspaceAt, clearAutocastCache, finalNormBackward, type StepState } from './step-replay';

/** Valid tokens per chunk (trl/trainer/sft_trainer.py _CHUNKED_LM_HEAD_CHUNK_SIZE). */
const CHUNK_TOKENS = 256;

/** What chunked_nll allocates, in bytes (one micro-batch). */
export interface ChunkedNllShape {
  /** Valid tokens: the micro-batch's tokens less one per row (the labels are shifted). */
  readonly validTokens: number;
  /** Bytes of one token's logits in the compute dtype (V x the compute dtype's bytes). */
  readonly halfPerToken: number;
  /** Bytes of one token's fp32 logits (V x 4). */
  readonly fp32PerToken: number;
  /** Bytes of one token's hidden state as packed (h x its dtype's bytes). */
  readonly hiddenPerToken: number;
  /** The shifted hidden states are copied before packing (more than one row per micro-batch). */
  readonly shiftedCopy: boolean;
  /** Gemma's final_logit_softcapping: three more fp32 chunk tensors, tanh's output kept in the recompute. */
  readonly softcap: boolean;
  /** The head's weight gradient of one chunk (0: the head is frozen). */
  readonly headGrad: number;
}

/** One chunk's sizes: its 16-bit logits, each fp32 tensor over the vocabulary, its hidden states' gradient. */
interface ChunkBytes {
  readonly half: number;
  readonly fp32: number;
  readonly hidden: number;
}

/** Each chunk's sizes, first to last: 256 valid tokens each, the last what remains. */
function chunkSizes(shape: ChunkedNllShape): ChunkBytes[] {
  const out: ChunkBytes[] = [];
  for (let start = 0; start < shape.validTokens; start += CHUNK_TOKENS) {
    const tokens = Math.min(CHUNK_TOKENS, shape.validTokens - start);
    out.push({
      half: tokens * shape.halfPerToken,
      fp32: tokens * shape.fp32PerToken,
      hidden: tokens * shape.hiddenPerToken,
    });
  }
  return out;
}

/** What a chunk's recompute keeps for its backward: log_softmax's output, and with the soft-cap tanh's. */
interface ChunkSaved {
  readonly logSoftmax: Allocation;
  readonly tanh: Allocation | undefined;
}

/** One run of _chunk in the forward: every tensor freed by the chunk's end (the checkpoint keeps none). */
function chunkForward(state: StepState, shape: ChunkedNllShape, b: ChunkBytes): void {
  const allocator = state.allocator;
  const half = allocator.malloc(b.half);
  const upcast = allocator.malloc(b.fp32);
  allocator.free(half);
  const logits = shape.softcap ? softcap(state, upcast, b, false).capped : upcast;
  const logSoftmax = allocator.malloc(b.fp32);
  const exp = allocator.malloc(b.fp32);
  const product = allocator.malloc(b.fp32);
  allocator.free(exp);
  allocator.free(product);
  allocator.free(logits);
  allocator.free(logSoftmax);
}

/**
 * One run of _chunk in its recompute: autograd keeps log_softmax's output (and tanh's); autograd's thread takes its
 * cuBLAS workspace at the first matmul.
 */
function chunkRecompute(state: StepState, shape: ChunkedNllShape, b: ChunkBytes): ChunkSaved {
  const allocator = state.allocator;
  const half = allocator.malloc(b.half);
  blasWorkspaceAt(state, 'backward');
  const upcast = allocator.malloc(b.fp32);
  allocator.free(half);
  const capped = shape.softcap ? softcap(state, upcast, b, true) : undefined;
  const logSoftmax = allocator.malloc(b.fp32);
  const exp = allocator.malloc(b.fp32);
  const product = allocator.malloc(b.fp32);
  allocator.free(product);
  allocator.free(exp);
  allocator.free(capped?.capped ?? upcast);
  return { logSoftmax, tanh: capped?.tanh };
}

/**
 * `cap * tanh(logits / cap)`: the quotient freed after tanh, tanh's output after the product unless autograd keeps it,
 * the fp32 logits when the name is rebound.
 */
function softcap(
  state: StepState,
  upcast: Allocation,
  b: ChunkBytes,
  keepTanh: boolean,
): { capped: Allocation; tanh: Allocation | undefined } {
  const allocator = state.allocator;
  const divided = allocator.malloc(b.fp32);
  const tanh = allocator.malloc(b.fp32);
  allocator.free(divided);
  const capped = allocator.malloc(b.fp32);
  if (!keepTanh) allocator.free(tanh);
  allocator.free(upcast);
  return { capped, tanh: keepTanh ? tanh : undefined };
}

/**
 * One chunk's backward after its recompute, to the matmul's: nll_loss's and log_softmax's gradients, the soft-cap's
 * three, the 16-bit logits' gradient, the head's weight gradient (a full fine-tune) and the chunk's hidden gradient.
 */
function chunkBackward(
  state: StepState,
  shape: ChunkedNllShape,
  saved: ChunkSaved,
  b: ChunkBytes,
): { head: Allocation | undefined; hidden: Allocation } {
  const allocator = state.allocator;
  const nll = allocator.malloc(b.fp32);
  let grad = allocator.malloc(b.fp32);
  allocator.free(saved.logSoftmax);
  allocator.free(nll);
  if (saved.tanh) {
    const scaled = allocator.malloc(b.fp32);
    allocator.free(grad);
    const throughTanh = allocator.malloc(b.fp32);
    allocator.free(saved.tanh);
    allocator.free(scaled);
    grad = allocator.malloc(b.fp32);
    allocator.free(throughTanh);
  }
  const halfGrad = allocator.malloc(b.half);
  allocator.free(grad);
  const head = shape.headGrad > 0 ? allocator.malloc(shape.headGrad) : undefined;
  const hidden = allocator.malloc(b.hidden);
  allocator.free(halfGrad);
  return { head, hidden };
}

/**
 * The loss's forward and backward from the final norm's output (freed at the forward's end); returns the gradient of
 * the hidden states. The head's gradient of each chunk is accumulated (AccumulateGrad: the first kept, the second summed
 * into a new tensor, the later ones in place), the packed gradient likewise in place into the first chunk's zeros.
 */
export function chunkedNllForwardBackward(state: StepState, shape: ChunkedNllShape, normOut: Allocation): Allocation {
  const { allocator } = state;
  const chunks = chunkSizes(shape);
  const packedBytes = shape.validTokens * shape.hiddenPerToken;
  const shifted = shape.shiftedCopy ? allocator.malloc(packedBytes) : undefined;
  const packed = allocator.malloc(packedBytes);
  if (shifted) allocator.free(shifted);
  for (const b of chunks) chunkForward(state, shape, b);
  clearAutocastCache(state);
  allocator.free(normOut);
  finalNormBackward(state);
  state.backwardStart?.();
  let headSum: Allocation | undefined;
  let packedGrad: Allocation | undefined;
  for (let c = chunks.length - 1; c >= 0; c--) {
    const saved = chunkRecompute(state, shape, chunks[c]);
    const { head, hidden } = chunkBackward(state, shape, saved, chunks[c]);
    // The first chunk runs its backward last; its matmul's backward releases the packed states the checkpoints kept.
    if (c === 0) allocator.free(packed);
    headSum = accumulate(state, headSum, head, c === chunks.length - 2 ? shape.headGrad : 0);
    const zeros = allocator.malloc(packedBytes);
    allocator.free(hidden);
    packedGrad = accumulate(state, packedGrad, zeros, 0);
  }
  // IndexBackward's zeros of the packed size, then SliceBackward's of the whole hidden states.
  const unpacked = allocator.malloc(packedBytes);
  if (packedGrad) allocator.free(packedGrad);
  const gradHidden = allocator.malloc(state.shape.hidden);
  allocator.free(unpacked);
  if (headSum) {
    state.grads.push(headSum);
    if (!state.shape.head) state.tiedHeadGrad = { handle: headSum, view: chunks.length === 1 };
  }
  return gradHidden;
}

/**
 * Adds `next` to the running sum: the first gradient is kept; a sum out of place (`outOfPlace` bytes) is a new tensor,
 * both freed; in place, the new gradient is freed.
 */
function accumulate(
  state: StepState,
  sum: Allocation | undefined,
  next: Allocation | undefined,
  outOfPlace: number,
): Allocation | undefined {
  if (!next) return sum;
  if (!sum) return next;
  if (outOfPlace <= 0) {
    state.allocator.free(next);
    return sum;
  }
  const fresh = state.allocator.malloc(outOfPlace);
  state.allocator.free(sum);
  state.allocator.free(next);
  return fresh;
}

/**
 * The step's loss from the final norm's output to the hidden states' gradient: TRL's chunked_nll where the shape has it,
 * else transformers' cross-entropy (or a fused one) over the head, which frees the norm's output (lossForwardBackward).
 */
export function replayLoss(state: StepState, normOut: Allocation): Allocation {
  if (state.shape.chunkedNll) return chunkedNllForwardBackward(state, state.shape.chunkedNll, normOut);
  const gradHidden = lossForwardBackward(state, normOut);
  finalNormBackward(state);
  return gradHidden;
}
