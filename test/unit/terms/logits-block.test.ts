// The 16-bit logits' block cached at a loss-backward peak (src/core/terms/logits-block.ts), with bytes worked by hand.
// The mechanism is what replaying real HF Trainer allocation sequences through the caching-allocator model shows
// (tools/truth/FINDINGS.md §8): the freed bf16 logits' block, too small for the loss backward's fp32 buffers.
import * as assert from 'node:assert/strict';
import { run, setupFor } from '../helpers';
import { llama2LoraLoss, LORA_LOSS_RUN } from './helpers';

const block = (e: ReturnType<typeof run>): number | undefined =>
  e.perGpu.runtime.find((r) => r.id === 'logits-block')?.bytes;
/** The note of the phase the peak is in. */
const peakNote = (e: ReturnType<typeof run>): string | undefined =>
  e.perGpu.phases.find((p) => p.phase === e.perGpu.phase)?.note;

describe('logits-block', () => {
  it('Llama-2-7B LoRA, 4 x 2048 tokens: 2 B x 8,192 x 32,000 = 524,288,000 B (500 MiB, a multiple of 2 MiB)', () => {
    const e = run(llama2LoraLoss());
    assert.equal(peakNote(e), 'start of backward: activations + gradients of the logits');
    assert.equal(block(e), 524_288_000);
    // Reserved beside the peak: the flat reserve, this block, the forward's cached blocks and the small pool's
    // (forward-cache.test.ts, small-pool.test.ts), and what the two-step replay reserves beyond them
    // (two-step-cache.test.ts).
    const held = (id: string): number => e.perGpu.runtime.find((r) => r.id === id)?.bytes ?? 0;
    assert.equal(
      e.perGpu.reservedBytes,
      e.perGpu.peakBytes +
        held('allocator-reserve') +
        524_288_000 +
        held('forward-cache') +
        held('small-pool') +
        held('two-step-cache'),
    );
  });
  it('rounded up to 2 MiB: Llama-3-8B, 1 x 1000 tokens: 2 B x 1,000 x 128,256 = 256,512,000 B -> 123 x 2 MiB', () => {
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...LORA_LOSS_RUN, micro_batch_size: 1, seq_len: 1000 }));
    assert.equal(block(e), 123 * 2 * 1024 * 1024);
  });
  it('none with a fused loss (no logits), with fp32 logits, or when the peak is elsewhere', () => {
    assert.equal(block(run(llama2LoraLoss({ loss: 'fused' }))), undefined);
    assert.equal(block(run(llama2LoraLoss({ weights_dtype: 'fp32', mixed_precision: 'none' }))), undefined);
    // A full fine-tune with AdamW peaks at the optimizer step.
    const full = run(setupFor('Qwen/Qwen2.5-0.5B', { weights_dtype: 'bf16', micro_batch_size: 1, seq_len: 512 }));
    assert.notEqual(peakNote(full), 'start of backward: activations + gradients of the logits');
    assert.equal(block(full), undefined);
  });
});
