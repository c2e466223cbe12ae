// Term: the 16-bit logits' block left cached at the loss's backward. The full cross-entropy upcasts the logits
// (HF ForCausalLMLoss `logits.float()`; transformers 4.x did it in the model's forward): the 2·T·V-byte 16-bit logits
// are freed once the fp32 copy exists and nothing keeps them, and the backward's buffers are fp32, 4·T·V each: the
// NLL gradient takes the freed fp32 copy's block, the log-softmax gradient needs a new segment, because the only other
// free block that large, the 16-bit logits', is half its size (the caching allocator gives a request a cached block
// only if it holds it: c10/cuda/CUDACachingAllocator.cpp get_free_block). So at the peak, in the loss's backward,
// that block (its segment: 2·T·V rounded up to 2 MiB, kRoundLarge) is reserved and free. Replaying the real
// allocation sequences of HF Trainer runs through terms/allocator.ts shows it in every case whose peak is there
// (tools/truth/FINDINGS.md, "Reserved memory from replayed allocation sequences"). Pure arithmetic.
// Docs: docs/estimate/runtime.md
import { sequencesPerExample } from '../setup';
import { ROUND_LARGE } from './allocator';
import type { EstimateContext } from '../estimate/context';

/**
 * The 16-bit logits' block cached at the loss's backward (the caller knows whether that is the step's peak), with its
 * formula; undefined where the loss leaves none.
 */
export function logitsBlock(ctx: EstimateContext): { bytes: number; formula: string } | undefined {
  const setup = ctx.setup;
  const { computeBytes: cb } = ctx.dtypes;
  const { teacher, rollout } = ctx.methods;
  // The plain full cross-entropy over 16-bit logits: other losses keep other tensors (terms/loss.ts).
  const plainLoss =
    setup.loss === 'full' &&
    !(setup.compile_loss ?? setup.compile) &&
    setup.preference === undefined &&
    rollout === undefined &&
    teacher === undefined &&
    setup.label_smoothing !== true &&
    setup.value_head !== true &&
    !ctx.model.arch.finalLogitSoftcap &&
    ctx.model.arch.defaultHead === 'causal_lm';
  if (!plainLoss || cb !== 2) return undefined;
  const tokens = (setup.micro_batch_size * sequencesPerExample(setup) * setup.seq_len) / ctx.layout.contextParallel;
  const vocab = ctx.model.arch.vocab / ctx.layout.tensorParallel;
  const logits = cb * tokens * vocab;
  return {
    bytes: ROUND_LARGE * Math.ceil(logits / ROUND_LARGE),
    formula: ctx.lean
      ? ''
      : `the 16-bit logits' segment, ${cb} B x ${tokens} tokens x ${vocab} vocab rounded up to 2 MiB: freed once ` +
        `upcast and too small for the loss backward's fp32 buffers (4 B x T x V), so reserved beside them`,
  };
}
