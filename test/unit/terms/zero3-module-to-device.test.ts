// A model made outside deepspeed.zero.Init under ZeRO-3: DeepSpeed's engine moves it to the GPU whole before it
// partitions it (src/core/terms/zero3-module-to-device.ts; deepspeedai/DeepSpeed engine.py _configure_distributed_model,
// parameter_offload.py _convert_to_zero_parameters). Worked out by hand from Llama-3-8B's 8,030,261,248 parameters;
// liucongg/ChatGLM-Finetuning's README (A40, ChatGLM2-6B full fine-tune, ZeRO-3 with parameter and optimizer offload)
// reads 26 GB for a run whose step alone needs 6.3 GiB.
import * as assert from 'node:assert/strict';
import { findGpu, gpuTarget } from '../../../src/core/lookup';
import { phase, run, setupFor } from '../helpers';
import { llama3ZeroFull } from './helpers';

const GiB = 2 ** 30;
const PARAMS = 8_030_261_248;

describe('estimate: ZeRO-3 moves a model made outside zero.Init to the GPU whole', () => {
  it('Llama-3-8B in bf16, parameters and optimizer offloaded: the load (14.96 GiB) is the peak and stays reserved', () => {
    const offload = { zero_stage: 3, offload_params: 'cpu', offload_optimizer: 'cpu' } as const;
    const outside = run(llama3ZeroFull({ ...offload, zero3_init: false }));
    const inside = run(llama3ZeroFull({ ...offload, zero3_init: true }));
    // 8,030,261,248 x 2 B = 16,060,522,496 B = 14.96 GiB, every parameter at once before the first is partitioned.
    const load = phase(outside, 'load');
    assert.equal(load.allocatedBytes, PARAMS * 2);
    assert.equal(outside.perGpu.peakBytes, PARAMS * 2);
    assert.ok(!inside.perGpu.phases.some((p) => p.phase === 'load'), 'made under zero.Init: no such phase');
    assert.ok(inside.perGpu.peakBytes < 7 * GiB, `the step alone: ${inside.perGpu.peakBytes / GiB} GiB`);
    // Nothing empties the cache: the segments stay reserved, and the step's tensors reuse them.
    assert.equal(outside.perGpu.reservedBytes, PARAMS * 2);
    assert.ok(!outside.perGpu.runtime.some((t) => t.id === 'allocator-reserve'), 'the step caches inside the segments');
  });

  it('without offload the step is higher: the load changes neither the peak nor what is reserved', () => {
    const outside = run(llama3ZeroFull({ zero_stage: 3, zero3_init: false, deepspeed_version: '0.19.6' }));
    const inside = run(llama3ZeroFull({ zero_stage: 3, zero3_init: true, deepspeed_version: '0.19.6' }));
    assert.equal(phase(outside, 'load').allocatedBytes, PARAMS * 2);
    assert.equal(outside.perGpu.peakBytes, inside.perGpu.peakBytes);
    assert.equal(outside.perGpu.reservedBytes, inside.perGpu.reservedBytes);
  });

  it('decides the fit: a 70B model made outside zero.Init does not fit an 80 GB GPU at load, whatever the sharding', () => {
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const setup = setupFor('meta-llama/Meta-Llama-3-70B', {
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      master_weights: true,
      gradient_checkpointing: 'full',
      zero_stage: 3,
      zero3_init: false,
      gpus_per_node: 8,
      nodes: 4,
      offload_params: 'cpu',
      offload_optimizer: 'cpu',
    });
    const e = run(setup, { gpu: gpuTarget(h100.gpu) });
    // 70.55B x 2 B = 131 GiB on one GPU before ZeRO-3 partitions it over the 32 ranks.
    assert.ok(phase(e, 'load').allocatedBytes > 130 * GiB);
    assert.equal(e.fits, false);
    assert.equal(run({ ...setup, zero3_init: true }, { gpu: gpuTarget(h100.gpu) }).fits, true);
  });
});
