// Term: the 16-bit logits' block left cached at the loss's backward. The full cross-entropy upcasts the logits
// (HF ForCausalLMLoss `logits.float()`; transformers 4.x did it in the model's forward): the 2·T·V-byte 16-bit logits
// are freed once the fp32 copy exists and nothing keeps them, and the backward's buffers are fp32, 4·T·V each: the
// NLL gradient takes the freed fp32 copy's block, the log-softmax gradient needs a new segment, because the only other
// free block that large, the 16-bit logits', is half its size (the caching allocator gives a request a cached block
// only if it holds it: c10/cuda/CUDACachingAllocator.cpp get_free_block). So at the peak, in the loss's backward,
// that block (its segment: 2·T·V rounded up to 2 MiB, kRoundLarge) is reserved and free. Replaying the real
// allocation sequences of HF Trainer runs through terms/allocator.ts shows it in every case whose peak is there
// (tools/truth/FINDINGS.md, "Reserved memory from replayed allocation sequences"). With transformers < 4.49 over
// more than one row, also the whole-logits gradient of the shift's SliceBackward (shifted-logits.ts). Pure arithmetic.
// Docs: docs/estimate/runtime.md
import { sequencesPerExample } from '../setup';
import { ROUND_LARGE } from './allocator';
import type { EstimateContext } from '../estimate/context';
import { logitsDtypeLoss, modelCrossEntropy, ownHalfLoss, shiftedLogitsCopy } from './shifted-logits';

const segment = (bytes: number): number => ROUND_LARGE * Math.ceil(bytes / ROUND_LARGE);

/** A cached block of the loss: its bytes, what it is, and its formula. */
export interface LogitsBlock {
  readonly bytes: number;
  readonly name: string;
  readonly formula: string;
  /** The loss backward's fp32 buffer (4 B x T x V, a segment of its own) whose request finds the block cached. */
  readonly request: number;
}

/**
 * The 16-bit logits' block cached at the loss's backward (the caller knows whether that is the step's peak), with its
 * formula; undefined where the loss leaves none. With transformers < 4.49 over more than one row (shifted-logits.ts)
 * also the segment of the whole-logits gradient that SliceBackward zero-fills after the log-softmax's backward: the
 * nll gradient took the shifted copy's block and the log-softmax gradient the upcast's, and the blocks left free (the
 * kept log-softmax output's and the nll gradient's) hold one row fewer than it needs.
 */
export function logitsBlock(ctx: EstimateContext): LogitsBlock | undefined {
  const setup = ctx.setup;
  const { logitsBytes: cb } = ctx.dtypes;
  // Without an upcast the loss's backward buffers are the logits' size and take their block.
  if (!modelCrossEntropy(ctx) || ctx.model.arch.finalLogitSoftcap || logitsDtypeLoss(ctx)) return undefined;
  const shifted = shiftedLogitsCopy(ctx);
  if (cb !== 2 && !shifted) return undefined;
  const tokens = (setup.micro_batch_size * sequencesPerExample(setup) * setup.seq_len) / ctx.layout.contextParallel;
  const vocab = ctx.model.arch.vocab / ctx.layout.tensorParallel;
  const half = cb === 2 ? segment(cb * tokens * vocab) : 0;
  // A family's own loss shifts the 16-bit logits (shifted-logits.ts ownHalfLoss): SliceBackward's gradient is 16-bit.
  const sliceBytes = ownHalfLoss(ctx) ? cb : 4;
  const slice = shifted ? segment(sliceBytes * tokens * vocab) : 0;
  const parts = [
    half > 0
      ? `the 16-bit logits' segment, ${cb} B x ${tokens} tokens x ${vocab} vocab rounded up to 2 MiB: freed once ` +
        `upcast and too small for the loss backward's fp32 buffers (4 B x T x V), so reserved beside them`
      : '',
    slice > 0
      ? `the whole-logits gradient of the shift's SliceBackward (transformers < 4.49), ${sliceBytes} B x ${tokens} x ${vocab} ` +
        `rounded up to 2 MiB: no free block of the loss holds it`
      : '',
  ];
  const name = [half > 0 ? "16-bit logits' block" : '', slice > 0 ? "shifted logits' gradient segment" : '']
    .filter((x) => x)
    .join(' and ');
  return {
    bytes: half + slice,
    name,
    formula: ctx.lean ? '' : parts.filter((x) => x).join(' + '),
    request: segment(4 * tokens * vocab),
  };
}
