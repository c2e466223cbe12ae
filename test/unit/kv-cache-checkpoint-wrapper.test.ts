// The training forward's KV cache under torch's checkpoint_wrapper (src/core/terms/previous-step.ts heldCache): with
// numbers worked by hand and the CPU truth points loop/*-cache-wrapper (tools/truth, test/fixtures/truth/loop.json).
import * as assert from 'node:assert/strict';
import { estimate, TrainingSetupSchema, type TrainingSetupInput } from '../../src/core';

// The truth points' tiny Llama: 2 layers, 2 key-value heads of 64, in bf16: one step's cache is
// 2 layers x 2 (k, v) x 2 sequences x 256 tokens x 128 x 2 B = 524,288 B.
const LLAMA = {
  model_type: 'llama',
  hidden_size: 256,
  intermediate_size: 688,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 4096,
  max_position_embeddings: 2048,
  tie_word_embeddings: false,
};
const CACHE = 2 * 2 * 2 * 256 * 128 * 2;

/** Each phase's allocation, less the same run's without a cache (use_cache off). */
function cacheAtPhases(extra: Partial<TrainingSetupInput>): { forward: number; backward: number; optimizer: number } {
  const phases = (useCache: boolean): Record<string, number> => {
    const setup: TrainingSetupInput = {
      architecture: LLAMA,
      method: 'lora',
      lora: { r: 8, alpha: 16, target_modules: ['q_proj', 'v_proj'] },
      weights_dtype: 'bf16',
      micro_batch_size: 2,
      seq_len: 256,
      attention: 'sdpa',
      cuda_context_bytes: 0,
      gradient_checkpointing: 'full',
      use_cache: useCache,
      ...extra,
    };
    const r = estimate(TrainingSetupSchema.parse(setup));
    assert.ok(r.ok, JSON.stringify(r));
    return Object.fromEntries(r.estimate.perGpu.phases.map((p) => [p.phase, p.allocatedBytes]));
  };
  const [on, off] = [phases(true), phases(false)];
  return {
    forward: on.forward - off.forward,
    backward: on.backward - off.backward,
    optimizer: on.optimizer - off.optimizer,
  };
}

describe('KV cache under checkpoint_wrapper', () => {
  it("transformers' own checkpointing turns use_cache off: no cache", () => {
    assert.deepEqual(cacheAtPhases({ loop_keeps_outputs: true }), { forward: 0, backward: 0, optimizer: 0 });
  });

  it('torch checkpoint_wrapper keeps it: beside the checkpointed layers, and doubled by the recompute when kept', () => {
    // Kept with the outputs: at the forward this step's cache and the last step's, to which its recompute added every
    // layer's keys and values again (transformers 5.17 on the CPU: (2, 2, 256, 64) per layer after the forward,
    // (2, 2, 512, 64) after the backward); at the optimizer step this step's, doubled.
    const kept = cacheAtPhases({ loop_keeps_outputs: true, checkpoint_wrapper: true });
    assert.deepEqual(kept, { forward: 3 * CACHE, backward: CACHE, optimizer: 2 * CACHE });
    // Outputs dropped before the backward: the checkpointed layers keep the cache as their argument.
    const dropped = cacheAtPhases({ loop_keeps_outputs: false, checkpoint_wrapper: true });
    assert.deepEqual(dropped, { forward: CACHE, backward: CACHE, optimizer: 0 });
  });

  it('before transformers 4.36 (tuples, no Cache object) the recompute does not add to the kept cache', () => {
    const old = cacheAtPhases({ loop_keeps_outputs: true, checkpoint_wrapper: true, transformers_version: '4.35.2' });
    assert.equal(old.optimizer, CACHE);
  });
});
