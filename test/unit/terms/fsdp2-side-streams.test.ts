// Term: what FSDP2's side streams keep cached where its step replay does not run (src/core/terms/fsdp2-side-streams.ts):
// the copy-in inputs beside each all-gather and the root unit's gather, and under CPU offload one unit's
// reduce-scatter output and its cast. Worked out by hand for gpt-oss-20b over 2 ranks under transformers 4.57 (whose
// experts run one after another in training: outside the replay), from torch's FSDP2 (_fsdp_collectives.py
// foreach_all_gather, foreach_reduce) as the replay makes them.
import * as assert from 'node:assert/strict';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { run, setupFor } from '../helpers';
import { runtimeBytes } from './helpers';

// gpt-oss-20b: one decoder layer unit holds 823,186,976 parameters (32 experts of 2,880 x 5,760 gate/up and 2,880 x
// 2,880 down with their biases, attention, norms, router), split evenly over 2 ranks: 411,593,488 each. The root unit
// holds the untied embedding and head, 201,088 x 2,880 each: 1,158,266,880.
const UNIT = 823_186_976;
const SHARD = UNIT / 2;
const ROOT = 2 * 201_088 * 2_880;

const FSDP2: Partial<TrainingSetupInput> = {
  method: 'full',
  weights_dtype: 'bf16',
  mixed_precision: 'bf16',
  optimizer: 'adamw',
  micro_batch_size: 1,
  seq_len: 4096,
  gradient_checkpointing: 'full',
  attention: 'flash',
  fsdp: 'full_shard',
  fsdp_version: 2,
  gpus_per_node: 2,
  transformers_version: '4.57',
};
const gptOss = (extra: Partial<TrainingSetupInput> = {}) => setupFor('openai/gpt-oss-20b', { ...FSDP2, ...extra });

describe('estimate: FSDP2 side streams outside the step replay (copy-in inputs, offloaded reduce-scatter)', () => {
  it("CPU offload: the first layer gathered beside the root's output, and one unit's reduce-scatter output cached", () => {
    const e = run(gptOss({ offload_params: 'cpu' }));
    // Each shard copied from the host (bf16, no cast): the inputs of one layer's all-gather are SHARD x 2 B. The pool
    // peaks where the first layer is gathered with the root's output still held: ROOT x 2 + UNIT x 2 + SHARD x 2 =
    // 4,786,094,688 B; at the backward point one unit is gathered (UNIT x 2), so the pool adds the rest.
    const capacity = ROOT * 2 + UNIT * 2 + SHARD * 2;
    assert.equal(capacity, 4_786_094_688);
    assert.equal(runtimeBytes(e, 'all-gather-pool'), capacity - UNIT * 2);
    // The reduce-scatter output, bf16, copied to the host and freed: SHARD x 2 B.
    assert.equal(runtimeBytes(e, 'stream-pools'), SHARD * 2);
    const pool = e.perGpu.runtime.find((t) => t.id === 'all-gather-pool')!;
    assert.match(pool.formula, /copy-in\) stream holds at once.*each shard copied from the host\)/);
  });

  it('with an fp32 master (Accelerate upcasts the trained parameters): each offloaded shard cast to bf16', () => {
    const e = run(gptOss({ offload_params: 'cpu', master_weights: true }));
    // The inputs are the casts, SHARD x 2 B, as before; the reduce-scatter output (2 B) is cast to fp32 (4 B) there.
    assert.equal(runtimeBytes(e, 'stream-pools'), SHARD * (2 + 4));
    const pool = e.perGpu.runtime.find((t) => t.id === 'all-gather-pool')!;
    assert.match(pool.formula, /copied from the host and cast from 4 to 2 B/);
  });

  it('without offload, bf16 shards are gathered in place: nothing beside the units, as before', () => {
    const e = run(gptOss());
    const pool = e.perGpu.runtime.find((t) => t.id === 'all-gather-pool');
    assert.ok(!pool || !/copy-in/.test(pool.formula));
    // fp32 shards under bf16 gathering are cast in one flat tensor: SHARD x 2 B beside each unit.
    const cast = run(gptOss({ master_weights: true }));
    assert.match(cast.perGpu.runtime.find((t) => t.id === 'all-gather-pool')!.formula, /cast from 4 to 2 B/);
  });

  it('a dense model under FSDP2 is replayed, which makes these requests itself: not counted twice', () => {
    const e = run(setupFor('Qwen/Qwen2.5-7B', { ...FSDP2, offload_params: 'cpu' }));
    const pool = e.perGpu.runtime.find((t) => t.id === 'all-gather-pool');
    assert.ok(!pool || !/copy-in/.test(pool.formula));
    assert.ok(e.perGpu.runtime.some((t) => t.id === 'fsdp2-step-cache'));
  });
});
