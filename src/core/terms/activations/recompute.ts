// The recomputed layer's own high point under full activation checkpointing. torch.utils.checkpoint runs a layer's
// forward again when its backward first unpacks a saved tensor (non-reentrant: the saved-tensor unpack hook calls
// recompute_fn; reentrant: CheckpointFunction.backward), before any gradient of the layer's own exists. The recompute
// keeps what autograd saves and frees every other intermediate at its last read, so while it runs it holds the saved
// tensors made so far plus the op's transient outputs; that can exceed what the layer keeps at its end. PEFT's LoRA
// sum is the case in point: the base output, the scaled adapter output and their sum in the adapter's dtype at once
// (peft/tuners/lora/layer.py Linear.forward `result = result + lora_B(lora_A(dropout(x))) * scaling`). Beside it lie
// the gradients the layer's backward made before its first unpack (recomputeEntryGradBytes). Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { comp } from '../../estimate/component';
import type { Component } from '../../model';
import type { ForwardSequence } from '../saved-tensors';

/**
 * The most bytes a layer's recompute holds at once, from its forward sequence: every allocation in order, those autograd
 * saves kept, the others freed after their last read. The block's input is not counted (checkpointing kept it), nor
 * autocast's 16-bit weight copies (`held`: counted with the layer's weight copies, terms/activations/stage.ts).
 */
export function recomputeHighBytes(seq: ForwardSequence, stopsEarly: boolean): number {
  return runningHighBytes(seq, (i) => seq.saved[i], stopsEarly ? seq.recomputeEnd : seq.bytes.length);
}

/**
 * The most bytes a checkpointed layer's first forward holds at once: it runs without saving (checkpointing keeps only
 * its input), so every intermediate goes at its last read. The input and autocast's cached weight copies (kept to the
 * forward's end, counted with the cache) are not counted; a frozen weight's copy, cast for its use alone, is.
 */
export function checkpointedForwardHighBytes(seq: ForwardSequence): number {
  return runningHighBytes(seq, () => false, seq.bytes.length, true);
}

/** The running high point of a block's allocations in order, `kept` ones never freed, the others after their last read. */
function runningHighBytes(
  seq: ForwardSequence,
  kept: (i: number) => boolean,
  end = seq.bytes.length,
  uncachedCopies = false,
): number {
  const n = end;
  const freedAt: number[] = new Array<number>(n).fill(0);
  const counted = (i: number): boolean =>
    i !== seq.input && (!seq.held[i] || (uncachedCopies && seq.uncached?.[i] === true));
  for (let i = 0; i < n; i++) {
    if (counted(i) && !kept(i) && seq.freeAfter[i] < n) freedAt[seq.freeAfter[i]] += seq.bytes[i];
  }
  let live = 0;
  let high = 0;
  for (let i = 0; i < n; i++) {
    if (counted(i)) live += seq.bytes[i];
    high = Math.max(high, live);
    live -= freedAt[i];
  }
  return high;
}

/** What a LoRA linear's backward makes before it reads a saved tensor: the output's, the sum's and the adapter's dtype. */
export interface LoraOutputGradient {
  /** Elements of the base output (and of the adapter's output). */
  readonly elems: number;
  /** Bytes per element of the base output and of the sum (the wider of the base output and the adapter dtype). */
  readonly outputBytes: number;
  readonly sumBytes: number;
}

/**
 * The gradients a LoRA linear's backward holds when it first reads a saved tensor, beside its output's gradient: the
 * scaled adapter output's gradient (MulBackward0 by `scaling`, in the sum's dtype), and, when the sum was promoted
 * to a wider adapter dtype, the base output's gradient cast back to its dtype (AddBackward0 of a promoted sum); the
 * promoted gradient itself (ToCopyBackward0) is freed once the multiply has read it. lora_B's backward is the first
 * to read a saved tensor (its input). CPU truth layer/llama-lora-all-bf16-ckpt: 1,048,576 + 2,097,152 B beside the
 * 1,048,576 B gradient of the layer's output when the recompute begins.
 */
export function loraEntryGradientBytes(g: LoraOutputGradient): number {
  return g.elems * g.sumBytes + (g.sumBytes !== g.outputBytes ? g.elems * g.outputBytes : 0);
}

/** A checkpointed layer's high points, in bytes (StageActivations.checkpointedLayer). */
export interface CheckpointedLayer {
  /** Its first forward, without saving (checkpointedForwardHighBytes); undefined for a mixer's kernel. */
  readonly forwardHighBytes: number | undefined;
  /** Its recompute (recomputeHighBytes), and the gradients in flight when that begins. */
  readonly recomputeHighBytes: number;
  readonly entryGradBytes: number;
}

/**
 * The two components of the point inside a layer's recompute: its high point, and the gradients beside it (none
 * without a checkpointed layer's figures).
 */
export function recomputePeakComponents(
  ctx: { readonly lean: boolean },
  peak: CheckpointedLayer | undefined,
): Component[] {
  if (!peak || peak.recomputeHighBytes <= 0) return [];
  return [
    comp(
      ctx,
      'checkpoint-recompute',
      'Recomputed layer at its high point (checkpointing)',
      peak.recomputeHighBytes,
      () =>
        "one layer's forward run again in its backward: the tensors autograd saves, made so far, and the op's " +
        'intermediates that are freed at their last read, at the most they hold together',
      () => ({ highBytes: Math.round(peak.recomputeHighBytes) }),
    ),
    comp(
      ctx,
      'backward-working',
      'Gradients in flight when the recompute begins',
      peak.entryGradBytes,
      () =>
        "the layer output's gradient, and what the layer's last op made of it before reading a saved tensor " +
        "(a LoRA target's scaled-adapter and base-output gradients)",
      () => ({}),
    ),
  ];
}
