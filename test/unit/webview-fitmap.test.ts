// The panel's fit map (webview-ui/src/fitmap.ts): cell classification and the grid against direct estimates.
import * as assert from 'node:assert/strict';
import { estimate } from '../../src/core/estimate';
import { classify, computeFitMap, FIT_MICROS, FIT_SEQS } from '../../webview-ui/src/fitmap';
import { setupFor } from './helpers';

/** The estimate's device bytes, on `gpu` with 5 % headroom when one is given (as the fit map asks). */
const device = (s: ReturnType<typeof setupFor>, micro: number, seq: number, gpu?: { memoryBytes: number }): number => {
  const opts = gpu ? { gpu: { id: 'test', source: 'test', memoryBytes: gpu.memoryBytes }, headroomFraction: 0.05 } : {};
  const r = estimate({ ...s, micro_batch_size: micro, seq_len: seq }, { lean: true, ...opts });
  assert.ok(r.ok);
  return r.estimate.perGpu.deviceBytes;
};

describe('webview fit map', () => {
  it('classifies by capacity x (1 - headroom)', () => {
    assert.equal(classify(95, 100, 0.05), 'fits');
    assert.equal(classify(95.5, 100, 0.05), 'near');
    assert.equal(classify(100, 100, 0.05), 'near');
    assert.equal(classify(100.5, 100, 0.05), 'oom');
    assert.equal(classify(100, 100, 0), 'fits');
    assert.equal(classify(NaN, 100, 0.05), 'error');
  });

  it('has the default axes: micro 1..32 x seq 512..32768', () => {
    assert.deepEqual(FIT_MICROS, [1, 2, 4, 8, 16, 32]);
    assert.deepEqual(FIT_SEQS, [512, 1024, 2048, 4096, 8192, 16384, 32768]);
  });

  it('matches direct estimates, cell by cell, on a hand-sized GPU', () => {
    const s = setupFor('Qwen/Qwen2.5-0.5B', {
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      gradient_checkpointing: 'full',
      attention: 'flash',
    });
    // A GPU sized so that micro-batch 2 x 2048 sits at 97 % of it: inside the 5 % headroom band ("near"). Beyond
    // 95 % the 16-bit logits' block is released, but the two-step replay reserves as much in the second step.
    const anchor = device(s, 2, 2048);
    const gpu = { id: 'test', memoryBytes: anchor / 0.97 };
    assert.equal(device(s, 2, 2048, gpu), anchor);
    const fm = computeFitMap(s, gpu, 0.05);
    assert.equal(fm.rows.length, FIT_SEQS.length);
    const at = (micro: number, seq: number) => fm.rows[FIT_SEQS.indexOf(seq)][FIT_MICROS.indexOf(micro)];
    assert.equal(at(2, 2048).status, 'near');
    assert.equal(at(2, 2048).deviceBytes, anchor);
    assert.equal(at(1, 512).status, 'fits');
    assert.equal(at(32, 32768).status, 'oom');
    for (const row of fm.rows) {
      let seenOom = false;
      for (const cell of row) {
        if (seenOom) {
          assert.equal(cell.status, 'oom', 'a row stays out of memory once it is');
          continue;
        }
        // On the GPU: the cached blocks it has no room for are released (the logits' block), as the allocator does.
        const d = device(s, cell.micro, cell.seq, gpu);
        assert.equal(cell.deviceBytes, d, `device bytes at ${cell.micro} x ${cell.seq}`);
        const expected = d <= gpu.memoryBytes * 0.95 ? 'fits' : d <= gpu.memoryBytes ? 'near' : 'oom';
        assert.equal(cell.status, expected, `status at ${cell.micro} x ${cell.seq}`);
        seenOom = cell.status === 'oom';
      }
    }
    assert.ok(fm.evaluated <= FIT_MICROS.length * FIT_SEQS.length);
  });

  it('grows monotonically along both axes (the early stop relies on it)', () => {
    const s = setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', mixed_precision: 'bf16' });
    for (const seq of [512, 2048, 8192]) {
      let prev = 0;
      for (const micro of FIT_MICROS) {
        const d = device(s, micro, seq);
        assert.ok(d > prev, `${micro} x ${seq}`);
        prev = d;
      }
    }
  });
});
