// Term: DeepSpeed's ZeRO-Offload checks each reduced gradient on the GPU before it goes to the host, and keeps none
// there (src/core/terms/zero-offload-checks.ts). Numbers worked out by hand from the CPU truth points' shapes
// (test/fixtures/truth/zero.json, DeepSpeed 0.19.6, tools/truth/FINDINGS.md §113): Llama layers of hidden 1,024 and
// MLP 2,752 (the largest linear 2,752 x 1,024 = 2,818,048 elements), in bf16.
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import { estimate } from '../../../src/core/estimate';
import { findModel } from '../../../src/core/lookup';
import { TrainingSetupSchema } from '../../../src/core/setup';
import { near, phase } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

const CHECKS = 'ZeRO-Offload checks of one gradient';

const run = (id: string): Estimate => {
  const r = estimate(truthSetup(id));
  assert.ok(r.ok);
  return r.estimate;
};
const backward = (e: Estimate) => phase(e, 'backward').components;
const checks = (e: Estimate): number[] =>
  backward(e)
    .filter((c) => c.label.startsWith(CHECKS))
    .map((c) => c.bytes);
const gradients = (e: Estimate): number =>
  backward(e)
    .filter((c) => c.id === 'gradients')
    .reduce((s, c) => s + c.bytes, 0);

describe('estimate: ZeRO-Offload checks each gradient on the GPU and keeps none there', () => {
  it('ZeRO-3: the partition taken back from the host and its fp64 copy, (2 + 8) B an element', () => {
    const id = 'zero/llama-wide-small-vocab-w1-z3-full-offload-opt';
    const e = run(id);
    // One rank: the partition is the whole 2,818,048-element weight, 2,818,048 x 10 B.
    assert.deepEqual(checks(e), [28_180_480]);
    assert.equal(gradients(e), 0, 'no gradient partition stays on the GPU');
    // Measured 136,905,909 B, at the norm inside an AccumulateGrad hook of the last layer's backward.
    near(e.perGpu.peakBytes, truthPeak(id), 0.005, 'against the CPU truth');
  });

  it('ZeRO-3 over 4 ranks: a quarter of the weight', () => {
    const e = run('zero/llama-wide-small-vocab-w4-z3-full-offload-opt');
    // 2,818,048 / 4 = 704,512 elements x 10 B.
    assert.deepEqual(checks(e), [7_045_120]);
  });

  it('ZeRO-2: the whole gradient checked for inf / nan, 11 B an element, on the rank that holds the last layer', () => {
    const e = run('zero/llama-wide-small-vocab-w4-z2-full-offload-opt-last-rank');
    // 2,818,048 x (4 fp32 copy + 1 isnan + 1 isinf + 1 or + 4 the or in fp32) = 30,998,528 B.
    assert.deepEqual(checks(e), [30_998_528]);
    // Measured on the last of 4 ranks 145,360,056 B (rank 0, whose layers' checks come at the backward's end, 119,211,164).
    near(
      e.perGpu.peakBytes,
      truthPeak('zero/llama-wide-small-vocab-w4-z2-full-offload-opt-last-rank'),
      0.005,
      'last rank',
    );
  });

  it("the output head's whole gradient and its checks where the final norm's gradient arrives", () => {
    const id = 'zero/llama-wide-vocab8k-w1-z3-full-offload-opt';
    const e = run(id);
    const p = phase(e, 'backward');
    assert.match(p.note, /output head's gradient/);
    // Head 8,192 x 1,024 = 8,388,608 elements: its gradient 8,388,608 x 2 B, its checks 8,388,608 x 10 B.
    assert.equal(gradients(e), 16_777_216);
    assert.deepEqual(checks(e), [83_886_080]);
    // Measured 236,262,565 B: 16,777,216 B of gradient, 16,777,216 + 67,108,864 B of checks at its peak.
    near(e.perGpu.peakBytes, truthPeak(id), 0.01, 'against the CPU truth');
  });

  it("ZeRO-2: the head's whole gradient checked for inf / nan on the last rank", () => {
    const id = 'zero/llama-wide-vocab8k-w4-z2-full-offload-opt-last-rank';
    const e = run(id);
    assert.match(phase(e, 'backward').note, /output head's gradient/);
    // 8,388,608 x 11 B beside the head's 8,388,608 x 2 B gradient.
    assert.deepEqual(checks(e), [92_274_688]);
    assert.equal(gradients(e), 16_777_216);
    // Measured on the last of 4 ranks: 261,428,392 B.
    near(e.perGpu.peakBytes, truthPeak(id), 0.015, 'against the CPU truth');
  });

  it('ZeRO-1: every gradient kept to its epilogue at the step, the largest checked beside them', () => {
    const step = (id: string) => phase(run(id), 'optimizer').components;
    const stepChecks = (id: string): number[] =>
      step(id)
        .filter((c) => c.label.startsWith(CHECKS))
        .map((c) => c.bytes);
    // The 8,192-word head's 8,388,608 elements x 11 B; with a 512-word head, the 2,818,048-element MLP weight's.
    const wide = 'zero/llama-wide-vocab8k-w4-z1-full-offload-opt-last-rank';
    assert.deepEqual(stepChecks(wide), [92_274_688]);
    assert.deepEqual(stepChecks('zero/llama-wide-small-vocab-w4-z1-full-offload-opt-last-rank'), [30_998_528]);
    // Every gradient whole in bf16: 42,079,232 parameters (2 layers of 4 x 1,024^2 + 3 x 2,818,048 + 2 x 1,024,
    // the final norm's 1,024, the embedding and the head 8,388,608 each).
    const grads = step(wide)
      .filter((c) => c.id === 'gradients')
      .reduce((t, c) => t + c.bytes, 0);
    assert.equal(grads, 42_079_232 * 2);
    // Measured on the last of 4 ranks: 272,131,268 B, inside the check's max.
    near(run(wide).perGpu.peakBytes, truthPeak(wide), 0.02, 'against the CPU truth');
  });

  it("a fused expert stack is one gradient, and ZeRO-3's fp64 norm copy goes 250M elements at a time", () => {
    const layerChecks = (id: string): number[] => {
      const m = findModel(id);
      assert.ok(m.ok, id);
      const setup = TrainingSetupSchema.parse({
        architecture: m.model.config,
        parameters: m.model.publishedParams,
        weights_dtype: 'bf16',
        master_weights: true,
        zero_stage: 3,
        offload_optimizer: 'cpu',
        gpus_per_node: 8,
        gradient_checkpointing: 'full',
        seq_len: 512,
      });
      const r = estimate(setup);
      assert.ok(r.ok);
      return checks(r.estimate);
    };
    // Mixtral-8x7B under transformers 5: gate_up_proj [8, 28,672, 4,096] = 939,524,096 elements, / 8 ranks =
    // 117,440,512 x (2 + 8) B.
    assert.deepEqual(layerChecks('mistralai/Mixtral-8x7B-v0.1'), [1_174_405_120]);
    // DeepSeek-V3: gate_up_proj [256, 4,096, 7,168] = 7,516,192,768 elements, / 8 = 939,524,096 x 2 B, and then the
    // fp32 copy for the host, 939,524,096 x 4 B, above a 250M-element fp64 piece's 2,000,000,000 B.
    assert.deepEqual(layerChecks('deepseek-ai/DeepSeek-V3'), [1_879_048_192 + 3_758_096_384]);
  });

  it('none without offload, and none for adapters beyond their own small matrices', () => {
    assert.deepEqual(checks(run('zero/llama-wide-small-vocab-w1-z3-full')), []);
    // LoRA r16 on all linears: the largest adapter matrix is 16 x 2,752 = 44,032 elements, a half on each of 2 ranks.
    const lora = run('zero/llama-wide-small-vocab-w2-z3-lora-all-offload-opt');
    assert.ok(checks(lora).every((b) => b === 220_160));
  });
});
