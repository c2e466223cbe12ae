// The head and the loss in the step replays (terms/step-replay.ts): transformers' ForCausalLMLoss over the logits, with
// Gemma 2's soft-cap and the shifted copy before 4.49, or a fused linear cross-entropy that makes no logits. TRL's
// chunked_nll has its own (terms/chunked-nll-replay.ts). Not a term itself. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import type { Allocation, CachingAllocator } from './allocator';
import type { FusedLossSizes } from './loss';
import { blasWorkspaceAt, clearAutocastCache, type ShiftedLoss, type StepState } from './step-replay';

/**
 * The head and the cross-entropy (transformers' ForCausalLMLoss): the logits (soft-capped in the model's forward), their
 * fp32 upcast and log-softmax; the 16-bit logits and the upcast are freed before the backward, which allocates the
 * loss's gradient and log-softmax's, casts it back to 16 bits, runs it back through the soft-cap, and gives the head's
 * weight gradient (an fp32 head's through its 16-bit copy) and the hidden state's: the backward's first matmul, where
 * autograd's thread takes its cuBLAS workspace at the first step. Returns the last. Before 4.49 (`shape.shiftedLoss`)
 * the upcast is sliced, copied over more than one row, and the slice's backward (at::slice_backward) fills a zero fp32
 * gradient of all the logits and copies log-softmax's into it before the cast back. `headInput`, the final norm's
 * output, is freed where the model's forward returns when a frozen head keeps nothing of it (a trained head keeps it for
 * its weight's gradient, to its backward); without it the caller frees the norm's output.
 */
export function lossForwardBackward(state: StepState, headInput?: Allocation): Allocation {
  const { allocator, shape } = state;
  if (shape.fusedLoss) {
    const gradHidden = fusedLossForwardBackward(state, shape.fusedLoss);
    if (headInput) allocator.free(headInput);
    return gradHidden;
  }
  const half = shape.logits < shape.logitsFp32;
  const shifted = shape.shiftedLoss;
  const copyBytes = shape.headCopy ?? 0;
  const headCopy = copyBytes > 0 ? allocator.malloc(copyBytes) : undefined;
  const product = allocator.malloc(shape.logits);
  const { logits, tanh } = shape.logitSoftcap
    ? softcapForward(allocator, product, shape.logits)
    : { logits: product, tanh: undefined };
  const own = shifted?.ownHalf;
  const freedInModel = half && !own && shifted?.upcastInModel === true;
  const logSoftmax = own ? ownHalfLossForward(state, own.amp, shifted.copy) : upcastLossForward(state, logits, shifted);
  clearAutocastCache(state);
  if (!freedInModel) allocator.free(logits);
  const head = shape.head ?? shape.embedding;
  const trained = head.grad > 0;
  if (headInput && !trained) allocator.free(headInput);
  state.backwardStart?.();
  let logitsGrad = own
    ? ownHalfLossBackward(state, logSoftmax, own.amp, shifted.copy)
    : upcastLossBackward(state, logSoftmax, shifted !== undefined);
  if (tanh) logitsGrad = softcapBackward(allocator, logitsGrad, tanh, shape.logits);
  state.headBackwardStart?.();
  // An fp32 head under autocast ran its matmul on the 16-bit copy: the weight's gradient comes in 16 bits, and the
  // cast's backward (ToCopyBackward) makes the fp32 one once the head's backward is done, then frees the 16-bit one.
  const grad16 = trained && headCopy ? allocator.malloc(copyBytes) : undefined;
  let headGrad = trained && !headCopy ? allocator.malloc(head.grad) : undefined;
  const gradHidden = allocator.malloc(shape.hidden);
  blasWorkspaceAt(state, 'backward');
  allocator.free(logitsGrad);
  if (headCopy) allocator.free(headCopy);
  if (grad16) {
    headGrad = allocator.malloc(head.grad);
    allocator.free(grad16);
  }
  if (headGrad) {
    state.grads.push(headGrad);
    // The cast's backward gives a tied fp32 head's weight a new tensor for the gradient, not a view.
    if (!shape.head) state.tiedHeadGrad = { handle: headGrad, view: !headCopy };
  }
  if (headInput && trained) allocator.free(headInput);
  return gradHidden;
}

/**
 * The fp32 upcast of 16-bit logits (the model's own `logits.float()` before 4.46, which frees the 16-bit logits at once;
 * ForCausalLMLoss's after), before 4.49 its shifted copy over more than one row, and log-softmax's output, kept.
 */
function upcastLossForward(state: StepState, logits: Allocation, shifted: ShiftedLoss | undefined): Allocation {
  const { allocator, shape } = state;
  const upcast = shape.logits < shape.logitsFp32 ? allocator.malloc(shape.logitsFp32) : undefined;
  if (upcast && shifted?.upcastInModel === true) allocator.free(logits);
  const copy = shifted?.copy ? allocator.malloc(shape.logitsFp32) : undefined;
  const logSoftmax = allocator.malloc(shape.logitsFp32);
  if (copy) allocator.free(copy);
  if (upcast) allocator.free(upcast);
  return logSoftmax;
}

/**
 * The loss's backward over fp32: the nll and log-softmax gradients; before 4.49 SliceBackward's zero-filled gradient of
 * the whole logits; the cast back to 16-bit logits. Returns the logits' gradient.
 */
function upcastLossBackward(state: StepState, logSoftmax: Allocation, shifted: boolean): Allocation {
  const { allocator, shape } = state;
  let grad = lossGradients(allocator, logSoftmax, shape.logitsFp32);
  if (shifted) grad = replaced(allocator, grad, shape.logitsFp32);
  return shape.logits < shape.logitsFp32 ? replaced(allocator, grad, shape.logits) : grad;
}

/** nll_loss's gradient and log_softmax's, of `bytes` each; the first and the kept output freed. Returns the second. */
function lossGradients(allocator: CachingAllocator, logSoftmax: Allocation, bytes: number): Allocation {
  const nllGrad = allocator.malloc(bytes);
  const grad = allocator.malloc(bytes);
  allocator.free(nllGrad);
  allocator.free(logSoftmax);
  return grad;
}

/** A new tensor of `bytes` made from `old` (a cast, a zero-filled slice gradient), then `old` freed. */
function replaced(allocator: CachingAllocator, old: Allocation, bytes: number): Allocation {
  const next = allocator.malloc(bytes);
  allocator.free(old);
  return next;
}

/**
 * A family's own loss on the 16-bit logits (GPT2LMHeadModel's; terms/shifted-logits.ts ownHalfLoss): the shifted slice
 * copied in 16 bits over more than one row, autocast's fp32 cast of it under autocast, and log-softmax's output in fp32
 * there or in 16 bits without, kept; the copy and the cast are freed as the forward returns.
 */
function ownHalfLossForward(state: StepState, amp: boolean, copied: boolean): Allocation {
  const { allocator, shape } = state;
  const copy = copied ? allocator.malloc(shape.logits) : undefined;
  const cast = amp ? allocator.malloc(shape.logitsFp32) : undefined;
  const logSoftmax = allocator.malloc(amp ? shape.logitsFp32 : shape.logits);
  if (cast) allocator.free(cast);
  if (copy) allocator.free(copy);
  return logSoftmax;
}

/**
 * Its backward: the nll and log-softmax gradients in log-softmax's dtype, autocast's cast back to 16 bits, and over more
 * than one row SliceBackward's zero-filled 16-bit gradient of the whole logits. Returns the logits' gradient.
 */
function ownHalfLossBackward(state: StepState, logSoftmax: Allocation, amp: boolean, copied: boolean): Allocation {
  const { allocator, shape } = state;
  let grad = lossGradients(allocator, logSoftmax, amp ? shape.logitsFp32 : shape.logits);
  if (amp) grad = replaced(allocator, grad, shape.logits);
  return copied ? replaced(allocator, grad, shape.logits) : grad;
}

/**
 * A fused linear cross-entropy (terms/loss.ts fusedLossSizes): the forward makes the hidden states' gradient and every
 * token's fp32 loss and keeps them, one chunk of logits at a time; the backward frees the losses and hands the kept
 * gradient on, after the head's weight gradient (the backward's first matmul). No logits outlive the forward. Returns
 * the hidden states' gradient.
 */
function fusedLossForwardBackward(state: StepState, loss: FusedLossSizes): Allocation {
  const { allocator, shape } = state;
  const copyBytes = shape.headCopy ?? 0;
  const headCopy = copyBytes > 0 ? allocator.malloc(copyBytes) : undefined;
  const gradHidden = allocator.malloc(loss.inputGrad);
  const tokenLosses = allocator.malloc(loss.tokenLosses);
  allocator.free(allocator.malloc(loss.chunkLogits));
  clearAutocastCache(state);
  state.backwardStart?.();
  allocator.free(tokenLosses);
  state.headBackwardStart?.();
  const head = shape.head ?? shape.embedding;
  if (head.grad > 0) {
    const headGrad = allocator.malloc(head.grad);
    state.grads.push(headGrad);
    if (!shape.head) state.tiedHeadGrad = { handle: headGrad, view: !headCopy };
  }
  blasWorkspaceAt(state, 'backward');
  if (headCopy) allocator.free(headCopy);
  return gradHidden;
}

/**
 * `logits / cap`, tanh, `* cap` (transformers Gemma2ForCausalLM.forward): each product freed when the name is rebound,
 * tanh's output kept for its backward. Returns the capped logits and tanh's output.
 */
function softcapForward(
  allocator: CachingAllocator,
  product: Allocation,
  bytes: number,
): { logits: Allocation; tanh: Allocation } {
  const divided = allocator.malloc(bytes);
  allocator.free(product);
  const tanh = allocator.malloc(bytes);
  allocator.free(divided);
  return { logits: allocator.malloc(bytes), tanh };
}

/** The soft-cap's backward: the product's, tanh's (its output freed) and the quotient's gradients, one after the other. */
function softcapBackward(allocator: CachingAllocator, grad: Allocation, tanh: Allocation, bytes: number): Allocation {
  const scaled = allocator.malloc(bytes);
  allocator.free(grad);
  const throughTanh = allocator.malloc(bytes);
  allocator.free(scaled);
  allocator.free(tanh);
  const divided = allocator.malloc(bytes);
  allocator.free(throughTanh);
  return divided;
}
