// The segments reserved at the loss's backward when the step peaks elsewhere (src/core/terms/loss-segments.ts): the
// allocator releases none while the GPU has room, so reserved is at least what the loss's backward point held. The
// replayed figure is the recorded HF Trainer sequence of tools/truth/scenarios/replay/llama70b-2l-lora-qv-ckpt
// (transformers 5.17, PEFT 0.21, on the CPU) replayed through the caching-allocator model (tools/truth/FINDINGS.md §8).
import * as assert from 'node:assert/strict';
import { LOSS_BACKWARD_NOTE } from '../../../src/core/estimate/phases';
import type { Estimate } from '../../../src/core/model';
import { replayEstimate, runtimeBytes } from './helpers';

/** Llama-2-70B widths, two layers, LoRA on q and v, checkpointed, bf16 autocast, no CUDA context (as replayed). */
const llama70bWidths = (extra: Record<string, unknown> = {}, lean = false): Estimate =>
  replayEstimate('llama70b-2l-lora-qv-ckpt', extra, lean);

describe('loss-segments', () => {
  it('Llama-2-70B widths, checkpointed: the peak is a layer backward, reserved is what the loss held', () => {
    const e = llama70bWidths();
    // The recorded sequence peaks in a layer's backward too (5,023.8 MB allocated, MulBackward0).
    assert.equal(e.perGpu.phase, 'backward');
    assert.match(e.perGpu.phases.find((p) => p.phase === 'backward')!.note, /last layer/);
    const kept = runtimeBytes(e, 'loss-segments');
    assert.ok(kept !== undefined && kept > 0);
    // reserved = the peak + its reserve + what the loss's point exceeds them by.
    assert.equal(e.perGpu.reservedBytes, e.perGpu.peakBytes + runtimeBytes(e, 'allocator-reserve')! + kept);
    // The replayed recorded sequence reserves 5,247.1 MB (2 steps); without the term the estimate is 3.4 % low.
    const err = e.perGpu.reservedBytes / 5_247.1e6 - 1;
    assert.ok(Math.abs(err) <= 0.03, `${(err * 100).toFixed(1)} %`);
    assert.ok((e.perGpu.reservedBytes - kept) / 5_247.1e6 - 1 < -0.03);
  });
  it('none when the peak is the loss itself (the logits block and the forward cache are counted there)', () => {
    // Without checkpointing every layer's saved tensors are alive at the loss, which is the peak.
    const e = llama70bWidths({ gradient_checkpointing: 'none' });
    assert.equal(e.perGpu.phases.find((p) => p.phase === 'backward')!.note, LOSS_BACKWARD_NOTE);
    assert.equal(runtimeBytes(e, 'loss-segments'), undefined);
    assert.ok(runtimeBytes(e, 'forward-cache')! > 0);
  });
  it('none with a chunked loss (no whole-logits blocks to keep) or expandable segments', () => {
    assert.equal(runtimeBytes(llama70bWidths({ loss: 'chunked' }), 'loss-segments'), undefined);
    assert.equal(runtimeBytes(llama70bWidths({ expandable_segments: true }), 'loss-segments'), undefined);
  });
  it('the lean estimate (the advice search) reserves the same', () => {
    assert.equal(llama70bWidths({}, true).perGpu.reservedBytes, llama70bWidths().perGpu.reservedBytes);
  });
});
