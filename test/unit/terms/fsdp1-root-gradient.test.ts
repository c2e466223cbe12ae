// Term: FSDP1's root unit assembles its flat gradient at the end of the backward (src/core/terms/fsdp1-root-gradient.ts),
// and FSDP1 with CPU offload keeps every unit's sharded gradient on the GPU until then (terms/gradients.ts). Numbers
// worked out by hand for Llama-3.1-8B and checked against the H100 points of tools/truth/gpu/results/2026-11-25-h100.
import * as assert from 'node:assert/strict';
import { component, near, phase } from '../helpers';
import { gpuPointRun } from './helpers';

// Llama-3.1-8B: 8,030,261,248 params; embedding and (untied) head 128,256 x 4,096 = 525,336,576 each, the root
// unit's trainable 1,050,673,152; fp32 weights under bf16 MixedPrecision, FULL_SHARD over 8 GPUs.
const ALL = 8_030_261_248;
const ROOT = 2 * 525_336_576;
const SHARD = 8;
const weights = (ALL * 4) / SHARD; // 4,015,130,624
const adam = 2 * weights; // 8,030,261,248
const layerGrads = ((ALL - ROOT) * 4) / SHARD; // every layer unit's sharded fp32 gradient: 3,489,794,048
const rootHeld = ROOT * 2; // the root unit, unsharded in bf16 since the forward: 2,101,346,304
const rootGrads = 2 * ROOT * 2; // the views' gradients + the flat gradient, bf16: 4,202,692,608
const blas = 2 * 32 * 2 ** 20; // the forward's and autograd's cuBLAS workspaces on an H100

describe("estimate: FSDP1's root unit makes its flat gradient at the end of the backward", () => {
  it('peaks at the root: layer gradients, the root unsharded, its views’ gradients and the flat gradient', () => {
    const { estimate: e, peak: measured } = gpuPointRun('llama-3.1-8b-full-s2048-b1-ckpt-fsdp1plugin-w8-wfp32');
    const bwd = phase(e, 'backward');
    assert.equal(bwd.allocatedBytes, weights + adam + layerGrads + rootHeld + rootGrads + blas); // 21,906,333,696
    assert.equal(component(bwd, 'backward-working') + component(bwd, 'gathered-grads'), rootGrads);
    // H100 max_memory_allocated 21,906,374,656 B: the final norm's 4,096 weights are the 40,960 B between them.
    near(e.perGpu.peakBytes, measured, 1e-5, 'against the H100');
  });

  it('with CPU offload keeps every sharded gradient on the GPU until the root is done', () => {
    const { estimate: e, peak: measured } = gpuPointRun('llama-3.1-8b-full-s2048-b1-ckpt-fsdp1plugin-w8-offload-wfp32');
    const bwd = phase(e, 'backward');
    assert.equal(bwd.allocatedBytes, layerGrads + rootHeld + rootGrads + blas); // 9,860,941,824
    assert.equal(component(bwd, 'gradients'), layerGrads);
    // The step runs on the host: no gradient is left on the GPU for it.
    assert.equal(component(phase(e, 'optimizer'), 'gradients'), 0);
    near(e.perGpu.peakBytes, measured, 1e-5, 'against the H100 (9,860,982,784 B)');
  });

  it('is absent under FSDP2 (a DTensor per parameter) and where the root trains nothing (LoRA)', () => {
    const { estimate: e } = gpuPointRun('llama-3.1-8b-full-s2048-b1-ckpt-fsdp2-w8-wfp32');
    const names = phase(e, 'backward').components.map((c) => c.label);
    assert.ok(!names.some((n) => n.startsWith('FSDP1 root unit')), names.join(', '));
    const lora = gpuPointRun('llama-3.1-8b-lora-s2048-b2-ckpt-fsdp1plugin-w8').estimate;
    assert.ok(!phase(lora, 'backward').components.some((c) => c.label.startsWith('FSDP1 root unit')));
  });
});
