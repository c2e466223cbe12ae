// Term: variable-length batches (src/core/terms/variable-length.ts), against the allocator replay; each test names its
// source.
import * as assert from 'node:assert/strict';
import { GiB } from '../../../src/core/units';
import { run, setupFor } from '../helpers';

describe('estimate: variable-length batches', () => {
  // Qwen2-7B (vocab 152,064), LoRA on bf16 weights without autocast: the logits are bf16 and the loss is the full
  // fp32-upcast cross-entropy, whose vocabulary-sized tensors peak at 4·T·V saved + 8·T·V of logit gradients.
  const base = {
    weights_dtype: 'bf16' as const,
    method: 'lora' as const,
    gradient_checkpointing: 'full' as const,
    micro_batch_size: 1,
    seq_len: 2048,
  };
  const lossSet = 12 * 2048 * 152_064; // 3,737,124,864 B
  // Two sets (CACHED_LOSS_SETS): about the lower quartile of tools/allocator/replay.py over 24 orders of uniformly
  // spread lengths (tools/allocator/README.md).
  const cached = 2 * lossSet; // 7,474,249,728 B

  it('the cache of earlier, shorter batches is two more sets of loss tensors (2 x 12·T·V = 7,474,249,728 B), beside the fit', () => {
    const gpu = { id: 'A100-80GB', memoryBytes: 80 * GiB, source: 'test' };
    const fixed = run(setupFor('Qwen/Qwen2-7B', base), { gpu });
    const v = run(setupFor('Qwen/Qwen2-7B', { ...base, batch_lengths: 'variable' }), { gpu });
    assert.equal(fixed.perGpu.variableLengths, undefined);
    const vl = v.perGpu.variableLengths!;
    assert.equal(vl.cacheBytes, cached);
    assert.equal(vl.reservedBytes, v.perGpu.reservedBytes + cached);
    assert.equal(vl.deviceBytes, v.perGpu.deviceBytes + cached);
    // The allocator frees its cache before an out-of-memory error: the fit and the per-step figures do not change.
    assert.equal(v.perGpu.deviceBytes, fixed.perGpu.deviceBytes);
    assert.equal(v.fits, fixed.fits);
    assert.ok(v.assumptions.some((a) => a.key === 'batch_lengths.cache' && /^2 sets/.test(a.value)));
  });

  it('keeps no cache of earlier batches with expandable segments or with the cache emptied every few steps', () => {
    for (const extra of [{ expandable_segments: true }, { empty_cache_steps: 10 }]) {
      // The same step with batches of one length: its reserved figure, and no more.
      const fixed = run(setupFor('Qwen/Qwen2-7B', { ...base, ...extra }));
      const e = run(setupFor('Qwen/Qwen2-7B', { ...base, ...extra, batch_lengths: 'variable' }));
      assert.equal(e.perGpu.variableLengths, undefined);
      assert.equal(e.perGpu.reservedBytes, fixed.perGpu.reservedBytes);
      assert.ok(e.assumptions.some((a) => a.key === 'batch_lengths.cache' && a.value === 'none kept over the run'));
    }
  });

  it('is whole bytes where tensor parallelism does not divide the vocabulary (a fuzz input: Qwen2-7B over TP 7)', () => {
    // 152,064 / 7 = 21,723.43 vocabulary rows per GPU: the cache was 1,067,749,961.14 B, which no allocator holds.
    const vl = run(
      setupFor('Qwen/Qwen2-7B', { ...base, batch_lengths: 'variable', tensor_parallel: 7, gpus_per_node: 7 }),
    ).perGpu.variableLengths!;
    assert.ok(Number.isSafeInteger(vl.cacheBytes), String(vl.cacheBytes));
    assert.ok(Number.isSafeInteger(vl.reservedBytes) && Number.isSafeInteger(vl.deviceBytes));
  });

  it("stops at the GPU's capacity", () => {
    const probe = run(setupFor('Qwen/Qwen2-7B', { ...base, batch_lengths: 'variable' }));
    const gpu = { id: 'small', memoryBytes: probe.perGpu.deviceBytes + GiB, source: 'test' };
    const vl = run(setupFor('Qwen/Qwen2-7B', { ...base, batch_lengths: 'variable' }), { gpu }).perGpu.variableLengths!;
    assert.equal(vl.cacheBytes, GiB);
    assert.equal(vl.deviceBytes, gpu.memoryBytes);
    assert.match(vl.formula, /capped/);
  });

  it('a fused linear-cross-entropy caches only its input gradient, per-token loss and one chunk of logits, twice', () => {
    // Liger chunking at T = 8192, h = 3584, V = 152,064: ceil(V/h) = 43, ceil(8192/43) = 191 -> 256 tokens a chunk.
    // T·h·2 + 4·T + 256·V·2 = 58,720,256 + 32,768 + 77,856,768 = 136,609,792 B a set; two sets 273,219,584 B.
    const vl = run(setupFor('Qwen/Qwen2-7B', { ...base, seq_len: 8192, loss: 'fused', batch_lengths: 'variable' }))
      .perGpu.variableLengths!;
    assert.equal(vl.cacheBytes, 2 * 136_609_792);
  });
});
