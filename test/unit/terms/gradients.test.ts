// Term: gradients (src/core/terms/gradients.ts), against numbers worked out by hand; each test names its source.
import * as assert from 'node:assert/strict';
import { component, near, phase, run, setupFor } from '../helpers';
import { llama31FsdpAccum, llama3ZeroFull, truthPeak, truthSetup } from './helpers';

describe("estimate: a classifier's word embedding gets its gradient last", () => {
  it('DeBERTa-v3-base classifier, checkpointed under AMP: the backward peaks at the end, 2,957,108,116 B measured', () => {
    // CPU truth encoder/deberta-v3-seqcls-full-amp-ckpt (transformers 5.17): the backward's high point is
    // embedding_dense_backward's zeros, the word embedding's gradient (128,100 x 768 x 4 B = 393,523,200 B) made after
    // every other; its config ties the masked-LM decoder, which a classifier does not have. Counted under each layer's
    // recompute, the backward was +7.7 %.
    const setup = truthSetup('encoder/deberta-v3-seqcls-full-amp-ckpt');
    const backward = phase(run(setup), 'backward');
    assert.equal(
      backward.note,
      "end of backward: all gradients, the token embedding's made after the first layer's backward",
    );
    near(backward.allocatedBytes, 2_957_108_116, 0.01, 'backward phase');
    // A masked LM's embedding is its decoder's weight: its gradient comes at the loss, before the layers'.
    const mlm = phase(
      run(truthSetup('encoder/deberta-v3-mlm-full-fp32', { gradient_checkpointing: 'full' })),
      'backward',
    );
    assert.notEqual(mlm.note, backward.note);
  });
});

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
    // The head's gradient waits in autograd's input buffer as a view of its matmul (TBackward), so the lookup's is
    // summed with it into a new tensor: two more of V x h x 2 B. The H100 history of Llama-3.2-3B (bf16, 1 x 1,024,
    // tools/truth/gpu/results/2026-11-24-h100) allocates the lookup's 788,004,864 B and then the sum's before it frees
    // the head's and the lookup's; the estimate had been 788.8 MB below its backward peak with one.
    assert.equal(extra(full, 'Embedding gradient summed'), 2 * VH * 2);
    // After torchtune's chunked head the buffer holds a sum of chunks, a plain tensor: the lookup's is added in place.
    assert.equal(extra(run(s({ ...end, loss: 'chunked' })), 'Embedding gradient summed'), VH * 2);
    // fp32 weights under bf16 autocast: the head's gradient comes out of the cast's backward, a new fp32 tensor, and the
    // lookup's is added in place (Gemma-3-1B's H100 history: two 1,152 MiB blocks, not three).
    assert.equal(
      extra(run(s({ ...end, weights_dtype: 'fp32', mixed_precision: 'bf16' })), 'Embedding gradient summed'),
      VH * 4,
    );
    assert.equal(
      extra(
        run(s({ ...end, method: 'lora', lora: { r: 8, target_modules: ['q_proj', 'v_proj'] } })),
        'Embedding gradient summed',
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
    assert.equal(extra(bert, 'Embedding gradient summed'), 0);
  });
});

describe("estimate: ZeRO-3's flat buffer of gradient partitions", () => {
  // stage3.py allocates every gradient partition at once with the optimizer (grad_partitions_flat_buffer =
  // torch.zeros(sum of partition_numel), in the gradient accumulation dtype, bf16 here) and keeps it; with the
  // optimizer offloaded it is on the host. Llama-3-8B: 8,030,261,248 params / 8 GPUs x 2 B = 2,007,565,312 B.
  const s = llama3ZeroFull;
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

describe("estimate: ZeRO-1/2's contiguous gradient buffer holds whole parameters", () => {
  // stage_1_and_2.py copy_grads_in_partition sizes the buffer as the sum of the numel of every parameter reaching into
  // the rank's partition. Llama-3-8B full fine-tune, ZeRO-2 over 64 GPUs, the parameters in the model's order
  // (norms aside): embedding 525,336,576, then per layer q 16,777,216, k and v 4,194,304, o 16,777,216, gate, up and
  // down 58,720,256, then the head 525,336,576: 8,029,995,008 in all, a partition of ceil(/ 64) = 125,468,672. Rank 4's
  // partition starts at 501,874,688, inside the embedding, and ends at 627,343,360, inside layer 0's up_proj: its
  // buffer holds the embedding, q, k, v, o, gate and up, 684,720,128 elements, the largest over the 64 ranks (rank 0:
  // the embedding alone; the last: the head alone).
  const e = run(llama3ZeroFull({ zero_stage: 2, nodes: 8 }));

  it('the busiest rank holds 684,720,128 gradient elements in bf16 at the step, not the 125M partition', () => {
    assert.equal(component(phase(e, 'optimizer'), 'gradients'), 684_720_128 * 2);
  });

  it('matches DeepSpeed 0.19.6 on the CPU within 2 % with accumulation (-2.5 % with the partition alone)', () => {
    // zero/llama-w8-z2-full-accum2 measures rank 0, whose buffer (the 1,048,576-element embedding) is kept into the
    // next micro-step's forward; the estimate takes the busiest rank, whose buffer reaches into the head as well.
    near(
      run(truthSetup('zero/llama-w8-z2-full-accum2')).perGpu.peakBytes,
      truthPeak('zero/llama-w8-z2-full-accum2'),
      0.02,
      'peak',
    );
  });
});

describe("estimate: FSDP's unsharded gradients kept between micro-batches (no_sync)", () => {
  // Under no_sync (FSDP1) / set_requires_gradient_sync(False) (FSDP2) the micro-batches before the last keep every
  // unit's whole gradient in the unsharded parameter's dtype; the last one starts with all of them instead of the
  // reduced shards. Tiny llama of the truth suites: 2 x 1,048,576 embedding/head + 2 x 725,504 layer + 256 norm =
  // 3,548,416 params; bf16 unsharded 7,096,832 B against 4-GPU fp32 shards of 3,548,416 B: 3,548,416 B more.
  const PARAMS = 3_548_416;
  const unsynced = (e: ReturnType<typeof run>): number =>
    phase(e, 'forward')
      .components.filter((c) => c.label.startsWith('FSDP unsharded gradients kept'))
      .reduce((t, c) => t + c.bytes, 0);

  for (const kind of ['fsdp1', 'fsdp2']) {
    it(`${kind}: the CPU truth's no_sync point holds ${PARAMS.toLocaleString('en')} B more than its reduce-every-micro-batch twin`, () => {
      const nosync = run(truthSetup(`${kind}/llama-w4-amp-accum2-nosync`));
      const each = run(truthSetup(`${kind}/llama-w4-amp-accum2`));
      assert.equal(unsynced(nosync), PARAMS * 2);
      assert.equal(unsynced(each), 0);
      // Measured (test/fixtures/truth): the two peaks differ by exactly the gradient shards' worth.
      assert.equal(truthPeak(`${kind}/llama-w4-amp-accum2-nosync`) - truthPeak(`${kind}/llama-w4-amp-accum2`), PARAMS);
      assert.equal(nosync.perGpu.peakBytes - each.perGpu.peakBytes, PARAMS);
    });
  }

  it('Llama-3.1-8B on 8 GPUs, 4 micro-batches: 8.03B params x 2 B unsharded, said as an assumption when unset', () => {
    const s = llama31FsdpAccum;
    const e = run(s({}));
    assert.equal(unsynced(e), 8_030_261_248 * 2);
    assert.ok(e.assumptions.some((a) => a.key === 'fsdp_no_sync' && a.value === 'true'));
    assert.equal(unsynced(run(s({ fsdp_no_sync: false }))), 0);
    // No accumulation, or one GPU: nothing to defer.
    assert.equal(unsynced(run(s({ gradient_accumulation_steps: 1 }))), 0);
    assert.ok(!run(s({ gradient_accumulation_steps: 1 })).assumptions.some((a) => a.key === 'fsdp_no_sync'));
  });

  it("an Accelerate before 1.11 left FSDP2's gradients reduced every micro-batch (huggingface/accelerate#3762)", () => {
    // Accelerator.no_sync looked the model up for a no_sync method, which an FSDP2 module does not have.
    const s = llama31FsdpAccum;
    const old = run(s({ fsdp_version: 2, accelerate_version: '1.10' }));
    assert.equal(unsynced(old), 0);
    assert.ok(old.assumptions.some((a) => a.key === 'fsdp_no_sync' && a.value === 'false'));
    assert.equal(unsynced(run(s({ fsdp_version: 2, accelerate_version: '1.11' }))), 8_030_261_248 * 2);
    // FSDP1 has its own no_sync; a loop that says it defers (Lightning's set_requires_gradient_sync) does.
    assert.equal(unsynced(run(s({ fsdp_version: 1, accelerate_version: '1.10' }))), 8_030_261_248 * 2);
    assert.equal(
      unsynced(run(s({ fsdp_version: 2, accelerate_version: '1.10', fsdp_no_sync: true }))),
      8_030_261_248 * 2,
    );
  });
});

describe('gradients: DeepSpeed with its optimizer offloaded accumulates on the host', () => {
  // CPU truth zero/llama-w8-z3-full-offload-opt-ga2 and zero/llama-w8-z2-full-offload-opt-ga2 (DeepSpeed 0.19.6, two
  // micro-batches a step): the peak is the one-micro-batch point's to the byte (41,105,117 B and 46,912,284 B), as
  // stage3.py partition_grads adds each micro-batch's partitions into the host's fp32 ones (`fp32_grad_tensor.add_`) and
  // its flat gradient buffer is on the host (`device=self.device`, the CPU when offloading).
  it('keeps no gradient partition on the GPU between micro-batches, within 0.5 % of the CPU truth', () => {
    for (const id of ['zero/llama-w8-z3-full-offload-opt-ga2', 'zero/llama-w8-z2-full-offload-opt-ga2']) {
      const e = run(truthSetup(id));
      near(e.perGpu.peakBytes, truthPeak(id), 0.005, id);
      const grads = phase(e, 'forward').components.find((c) => c.id === 'gradients');
      assert.equal(grads?.bytes ?? 0, 0, id);
    }
    // Not offloaded, the bf16 partitions stay on the GPU from one micro-batch to the next.
    const kept = run(truthSetup('zero/llama-w8-z3-full-offload-opt-ga2', { offload_optimizer: 'none' }));
    assert.ok((phase(kept, 'forward').components.find((c) => c.id === 'gradients')?.bytes ?? 0) > 0);
  });
});
