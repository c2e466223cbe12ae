// Term: FSDP2's root unit holds a tied head's unsharded gradient until the embedding's backward is done
// (src/core/terms/fsdp2-root-gradient.ts). Numbers worked out by hand for Qwen2.5-1.5B and checked against the H100
// points of tools/truth/gpu/results/2026-11-26-h100.
import * as assert from 'node:assert/strict';
import { component, near, phase } from '../helpers';
import { gpuPointRun } from './helpers';

// Qwen2.5-1.5B: 1,543,714,304 params, the tied embedding 151,936 x 1,536 = 233,373,696 of them; fp32 weights under
// bf16 parameters (MixedPrecisionPolicy), FSDP2 over 8 GPUs, 2 x 128 tokens, no checkpointing.
const ALL = 1_543_714_304;
const EMBEDDING = 151_936 * 1_536;
const SHARD = 8;
const weights = (ALL * 4) / SHARD; // 771,857,152
const adam = 2 * weights; // 1,543,714,304
const layerGrads = ((ALL - EMBEDDING) * 4) / SHARD; // every layer's sharded fp32 gradient, the final norm's: 655,170,304
const oneBf16 = EMBEDDING * 2; // the root unsharded, and each gradient of the tied weight: 466,747,392
const firstLayerUnit = 46_797_824 * 2; // the first layer gathered in bf16: 93,595,648
const blas = 2 * 32 * 2 ** 20; // the forward's and autograd's cuBLAS workspaces on an H100

describe("estimate: FSDP2's root unit holds the tied head's gradient to the embedding's backward", () => {
  it("peaks at the embedding: the root, the head's gradient, the lookup's, their sum; the root's shard not yet", () => {
    const { estimate: e, peak: measured } = gpuPointRun('qwen2.5-1.5b-full-s128-b2-nockpt-fsdp2-w8-wfp32');
    const bwd = phase(e, 'backward');
    assert.match(bwd.note ?? '', /embedding gradient of the tied head/);
    assert.equal(component(bwd, 'gradients'), layerGrads);
    const held = bwd.components.find((c) => c.label === "FSDP2 root unit: the tied head's unsharded gradient");
    assert.equal(held?.bytes, oneBf16);
    // 4,998,435,840 B
    assert.equal(bwd.allocatedBytes, weights + adam + blas + layerGrads + firstLayerUnit + 4 * oneBf16);
    // H100 max_memory_allocated 5,021,873,152 B (without the head's gradient the estimate was 7.4 % low).
    near(e.perGpu.peakBytes, measured, 0.005, 'against the H100');
  });

  it('is absent under FSDP1, for an untied head and for LoRA', () => {
    const held = (id: string) =>
      phase(gpuPointRun(id).estimate, 'backward').components.some((c) => c.label.startsWith('FSDP2 root unit'));
    assert.ok(!held('qwen2.5-1.5b-full-s2048-b4-nockpt-fsdp1plugin-w2-wfp32'));
    assert.ok(!held('llama-3.1-8b-full-s2048-b1-ckpt-fsdp2-w8-wfp32'));
    assert.ok(!held('qwen2.5-32b-lora-s2048-b1-ckpt-fsdp2-w8'));
  });
});
