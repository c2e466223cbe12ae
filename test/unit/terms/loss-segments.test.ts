// The segments reserved at the loss's backward when the step peaks elsewhere (src/core/terms/loss-segments.ts): the
// allocator releases none while the GPU has room, so reserved is at least what the loss's backward point held. The
// replayed figure is the recorded HF Trainer sequence of tools/truth/scenarios/replay/llama70b-2l-lora-qv-ckpt
// (transformers 5.17, PEFT 0.21, on the CPU) replayed through the caching-allocator model (tools/truth/FINDINGS.md §8).
import * as assert from 'node:assert/strict';
import { estimate } from '../../../src/core/estimate';
import { LOSS_BACKWARD_NOTE } from '../../../src/core/estimate/phases';
import type { Estimate } from '../../../src/core/model';
import { TrainingSetupSchema, type TrainingSetupInput } from '../../../src/core/setup';

/** Llama-2-70B widths, two layers, LoRA on q and v, checkpointed, bf16 autocast, no CUDA context (as replayed). */
const llama70bWidths = (extra: Partial<TrainingSetupInput> = {}, lean = false): Estimate => {
  const r = estimate(
    TrainingSetupSchema.parse({
      architecture: {
        model_type: 'llama',
        hidden_size: 8192,
        intermediate_size: 28672,
        num_hidden_layers: 2,
        num_attention_heads: 64,
        num_key_value_heads: 8,
        vocab_size: 32000,
        max_position_embeddings: 4096,
        tie_word_embeddings: false,
      },
      method: 'lora',
      weights_dtype: 'bf16',
      micro_batch_size: 1,
      seq_len: 1024,
      attention: 'sdpa',
      optimizer: 'adamw',
      cuda_context_bytes: 0,
      mixed_precision: 'bf16',
      lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'v_proj'] },
      gradient_checkpointing: 'full',
      ...extra,
    }),
    { lean },
  );
  assert.ok(r.ok);
  return r.estimate;
};
const term = (e: Estimate, id: string): number | undefined => e.perGpu.runtime.find((r) => r.id === id)?.bytes;

describe('loss-segments', () => {
  it('Llama-2-70B widths, checkpointed: the peak is a layer backward, reserved is what the loss held', () => {
    const e = llama70bWidths();
    // The recorded sequence peaks in a layer's backward too (5,023.8 MB allocated, MulBackward0).
    assert.equal(e.perGpu.phase, 'backward');
    assert.match(e.perGpu.phases.find((p) => p.phase === 'backward')!.note, /last layer/);
    const kept = term(e, 'loss-segments');
    assert.ok(kept !== undefined && kept > 0);
    // reserved = the peak + its reserve + what the loss's point exceeds them by.
    assert.equal(e.perGpu.reservedBytes, e.perGpu.peakBytes + term(e, 'allocator-reserve')! + kept);
    // The replayed recorded sequence reserves 5,247.1 MB (2 steps); without the term the estimate is 3.4 % low.
    const err = e.perGpu.reservedBytes / 5_247.1e6 - 1;
    assert.ok(Math.abs(err) <= 0.03, `${(err * 100).toFixed(1)} %`);
    assert.ok((e.perGpu.reservedBytes - kept) / 5_247.1e6 - 1 < -0.03);
  });
  it('none when the peak is the loss itself (the logits block and the forward cache are counted there)', () => {
    // Without checkpointing every layer's saved tensors are alive at the loss, which is the peak.
    const e = llama70bWidths({ gradient_checkpointing: 'none' });
    assert.equal(e.perGpu.phases.find((p) => p.phase === 'backward')!.note, LOSS_BACKWARD_NOTE);
    assert.equal(term(e, 'loss-segments'), undefined);
    assert.ok(term(e, 'forward-cache')! > 0);
  });
  it('none with a chunked loss (no whole-logits blocks to keep) or expandable segments', () => {
    assert.equal(term(llama70bWidths({ loss: 'chunked' }), 'loss-segments'), undefined);
    assert.equal(term(llama70bWidths({ expandable_segments: true }), 'loss-segments'), undefined);
  });
  it('the lean estimate (the advice search) reserves the same', () => {
    assert.equal(llama70bWidths({}, true).perGpu.reservedBytes, llama70bWidths().perGpu.reservedBytes);
  });
});
