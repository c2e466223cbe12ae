// A transformers pin older than the model's code (src/core/estimate/transformers-release.ts): IntMeGroup/DFBench pins
// transformers==4.37.2 in its root requirements.txt for its InternVL code, and its qwen2.5/train.sh fine-tunes
// Qwen2.5-VL-7B, whose code came with transformers 4.49. Read as 4.37, the run got 4.37's per-layer rotary tables;
// it is estimated with 4.49, the first release that runs it.
import * as assert from 'node:assert/strict';
import { run, setupFor } from './helpers';

const rotary = (e: ReturnType<typeof run>): number =>
  e.perGpu.phases[0].components.find((c) => c.id === 'rotary-tables')?.bytes ?? 0;

describe('a transformers pin older than the model', () => {
  it("is not the run's: warned at transformers_version, and the first release with the model estimated", () => {
    const pinned = run(setupFor('Qwen/Qwen2.5-VL-7B-Instruct', { method: 'lora', transformers_version: '4.37.2' }));
    const first = run(setupFor('Qwen/Qwen2.5-VL-7B-Instruct', { method: 'lora', transformers_version: '4.49' }));
    const w = pinned.warnings.find((x) => x.key === 'transformers_version');
    assert.match(
      w?.message ?? '',
      /^transformers 4\.37\.2 predates qwen2_5_vl, whose code came with transformers 4\.49: .* estimated with 4\.49/,
    );
    assert.equal(rotary(pinned), 0);
    assert.equal(pinned.perGpu.deviceBytes, first.perGpu.deviceBytes);
  });

  it('a release that has the model stays: 4.37 for Llama-2 keeps its per-layer rotary tables', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', transformers_version: '4.37.2' }),
    );
    assert.equal(
      e.warnings.some((x) => x.key === 'transformers_version'),
      false,
    );
    // 32 layers x cos and sin x 4096 positions x 128 x 2 B in the bf16 weights' dtype (weights.test.ts).
    assert.equal(rotary(e), 32 * 2 * 4096 * 128 * 2);
  });
});
