// Term: gradients (src/core/terms/gradients.ts), against numbers worked out by hand; each test names its source.
import * as assert from 'node:assert/strict';
import { phase, run, setupFor } from '../helpers';

describe('estimate: gradients of weights used more than once', () => {
  // Autograd sums the gradients of a weight used twice in its input buffer: a new contribution and the running sum
  // coexist. Llama-3.2-3B: tied embeddings, vocab 128,256 x hidden 3,072 = 394,002,432 elements, 2 B in bf16.
  const VH = 128256 * 3072;
  const extra = (e: ReturnType<typeof run>, label: string): number =>
    e.perGpu.phases
      .flatMap((p) => p.components)
      .filter((c) => c.label.startsWith(label))
      .reduce((m, c) => Math.max(m, c.bytes), 0);
  const s = (x: Record<string, unknown>) =>
    setupFor('meta-llama/Llama-3.2-3B', { weights_dtype: 'bf16', micro_batch_size: 2, seq_len: 4096, ...x });

  it("chunked output (torchtune): each chunk's head gradient next to the running sum, 788,004,864 B", () => {
    assert.equal(extra(run(s({ loss: 'chunked' })), 'Output head gradient of one chunk'), VH * 2);
    assert.equal(extra(run(s({ loss: 'full' })), 'Output head gradient of one chunk'), 0);
  });

  it("tied embeddings: the lookup's gradient meets the head's at the end of the backward; not for LoRA or a classifier head", () => {
    // Short sequences with checkpointing: the end of the backward (all gradients) is the backward's high point; the
    // embedding's backward runs after the first layer's, so its gradient does not meet that layer's recomputation.
    const end = { micro_batch_size: 1, seq_len: 256, gradient_checkpointing: 'full' };
    const full = run(s(end));
    assert.equal(
      phase(full, 'backward').note,
      'end of backward: all gradients + the embedding gradient of the tied head',
    );
    assert.equal(extra(full, 'Recomputed layer'), 0);
    assert.equal(extra(full, 'Embedding gradient before'), VH * 2);
    assert.equal(
      extra(
        run(s({ ...end, method: 'lora', lora: { r: 8, target_modules: ['q_proj', 'v_proj'] } })),
        'Embedding gradient before',
      ),
      0,
    );
    const bert = run(
      setupFor('google-bert/bert-large-uncased', {
        weights_dtype: 'fp32',
        micro_batch_size: 1,
        seq_len: 128,
        gradient_checkpointing: 'full',
        head: 'seq_cls',
      }),
    );
    assert.equal(extra(bert, 'Embedding gradient before'), 0);
  });
});
