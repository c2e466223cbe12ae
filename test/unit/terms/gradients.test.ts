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

describe("estimate: ZeRO-3's flat buffer of gradient partitions", () => {
  // stage3.py allocates every gradient partition at once with the optimizer (grad_partitions_flat_buffer =
  // torch.zeros(sum of partition_numel), in the gradient accumulation dtype, bf16 here) and keeps it; with the
  // optimizer offloaded it is on the host. Llama-3-8B: 8,030,261,248 params / 8 GPUs x 2 B = 2,007,565,312 B.
  const s = (extra: Record<string, string | number>) =>
    setupFor('meta-llama/Meta-Llama-3-8B', {
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      master_weights: true,
      gpus_per_node: 8,
      gradient_checkpointing: 'full',
      ...extra,
    });
  const grads = (e: ReturnType<typeof run>): number =>
    phase(e, 'forward')
      .components.filter((c) => c.id === 'gradients')
      .reduce((t, c) => t + c.bytes, 0);

  it('is held through the forward without accumulation at stage 3, not at stage 2 nor offloaded', () => {
    assert.equal(grads(run(s({ zero_stage: 3 }))), 2_007_565_312);
    assert.equal(grads(run(s({ zero_stage: 2 }))), 0);
    assert.equal(grads(run(s({ zero_stage: 3, offload_optimizer: 'cpu' }))), 0);
  });

  it('says where it comes from: the buffer, not the previous micro-step', () => {
    const c = phase(run(s({ zero_stage: 3 })), 'forward').components.find((x) => x.id === 'gradients')!;
    assert.match(c.formula, /ZeRO-3's flat buffer of gradient partitions/);
  });
});
