// Term: weights (src/core/terms/weights.ts), against numbers worked out by hand; each test names its source.
import * as assert from 'node:assert/strict';
import { run, setupFor } from '../helpers';

describe('estimate: rotary tables kept by every attention layer before transformers 4.39', () => {
  // transformers <= 4.37 modeling_llama.py / modeling_mistral.py: each attention's rotary embedding registers
  // cos_cached and sin_cached of max_position_embeddings x head_dim in the default dtype at load (4.38 keeps them as
  // _cos_cached / _sin_cached "for BC"); 4.39 computes cos and sin in forward.
  const rotary = (e: ReturnType<typeof run>): number =>
    e.perGpu.phases[0].components.find((c) => c.id === 'rotary-tables')?.bytes ?? 0;
  const base = { weights_dtype: 'bf16' as const, method: 'lora' as const, micro_batch_size: 1, seq_len: 1024 };
  it('Mistral-7B-v0.1 (32,768 positions) under 4.37: 32 x 2 x 32,768 x 128 x 2 B = 512 MiB', () => {
    assert.equal(
      rotary(run(setupFor('mistralai/Mistral-7B-v0.1', { ...base, transformers_version: '4.37' }))),
      32 * 2 * 32768 * 128 * 2,
    );
    // In fp32 (loaded without a torch_dtype) twice that.
    assert.equal(
      rotary(
        run(setupFor('mistralai/Mistral-7B-v0.1', { ...base, weights_dtype: 'fp32', transformers_version: '4.38.2' })),
      ),
      32 * 2 * 32768 * 128 * 4,
    );
  });
  it('none from 4.39, with no version given (a current release), or for Gemma', () => {
    assert.equal(rotary(run(setupFor('mistralai/Mistral-7B-v0.1', { ...base, transformers_version: '4.39' }))), 0);
    assert.equal(rotary(run(setupFor('mistralai/Mistral-7B-v0.1', base))), 0);
    assert.equal(rotary(run(setupFor('google/gemma-7b', { ...base, transformers_version: '4.38' }))), 0);
  });
  it('Yi-6B (4,096 positions) under 4.37: 64 MiB, counted in every phase', () => {
    const e = run(setupFor('01-ai/Yi-6B', { ...base, transformers_version: '4.37' }));
    for (const p of e.perGpu.phases)
      assert.equal(p.components.find((c) => c.id === 'rotary-tables')?.bytes, 32 * 2 * 4096 * 128 * 2, p.phase);
  });
});
