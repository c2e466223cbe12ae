// Term: FSDP1 with CPU offload keeps a GPU copy of each unsharded unit's shard under use_orig_params
// (src/core/terms/fsdp1-offload-shard-copy.ts). Numbers worked out by hand for Llama-3.1-8B and checked against the
// H100 points of tools/truth/gpu/results/2026-11-25-h100.
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import { near, phase } from '../helpers';
import { gpuPointRun } from './helpers';

const COPY = 'FSDP1 CPU offload: GPU copy of the';

const copies = (e: Estimate, name: 'forward' | 'backward' = 'backward'): number[] =>
  phase(e, name)
    .components.filter((c) => c.label.startsWith(COPY))
    .map((c) => c.bytes);

describe('estimate: FSDP1 with CPU offload keeps a GPU copy of each unsharded unit’s shard', () => {
  const id = 'llama-3.1-8b-lora-s2048-b2-ckpt-fsdp1plugin-w2-offload';

  it('the root unit’s and the gathered layer unit’s, in the stored dtype, over 2 ranks', () => {
    const { estimate: e, peak: measured } = gpuPointRun(id);
    // Root: embedding + head 2 x 525,336,576 params / 2 ranks x 2 B; one decoder layer 218,112,000 params / 2 x 2 B.
    // Forward and backward peak at the loss, where no layer unit is gathered (NO_PREFETCH): the root's copy alone.
    assert.deepEqual(copies(e), [1_050_673_152]);
    assert.deepEqual(copies(e, 'forward'), [1_050_673_152]);
    // Under BACKWARD_PRE the root's pre-backward gathers the last layer's unit at the loss, and its copy with it.
    assert.deepEqual(
      copies(gpuPointRun(id, { fsdp_backward_prefetch: 'pre' }).estimate).sort(),
      [1_050_673_152, 218_112_000],
    );
    // H100 max_memory_allocated 10,665,146,368 B.
    near(e.perGpu.peakBytes, measured, 1e-3, 'against the H100');
  });

  it('none with use_orig_params=False, and none where MixedPrecision casts fp32 weights to bf16', () => {
    assert.deepEqual(copies(gpuPointRun(id, { fsdp_use_orig_params: false }).estimate), []);
    assert.deepEqual(copies(gpuPointRun('llama-3.1-8b-full-s2048-b1-ckpt-fsdp1plugin-w8-offload-wfp32').estimate), []);
  });

  it('says use_orig_params is assumed where no file gave it', () => {
    const { estimate: e } = gpuPointRun(id);
    assert.ok(e.assumptions.some((a) => a.key === 'fsdp_use_orig_params' && a.value === 'true'));
  });
});
