// Term: the gathered layers ZeRO-3's all-gather stream holds while the CPU runs ahead of a GPU-bound step
// (src/core/terms/zero3-launch-lead.ts), worked out by hand from Llama-2-70B's shapes and measured on an H100 with
// DeepSpeed 0.19.6 (test/fixtures/truth/gpu.json; the launch queue and the runs with it halved and doubled in
// tools/truth/gpu/results/2026-11-27b-h100, FINDINGS §89).
import * as assert from 'node:assert/strict';
import { TrainingSetupSchema } from '../../../src/core';
import { neededBytes } from '../../../src/core/advice';
import { findGpu } from '../../../src/core/lookup';
import { layerForwardSeconds } from '../../../src/core/step-time';
import { LAUNCH_QUEUE_LAUNCHES } from '../../../src/core/terms/cpu-launch-lead';
import { ZERO3_CPU_SECONDS_PER_LAUNCH } from '../../../src/core/terms/zero3-launch-lead';
import { near } from '../helpers';
import { archOf, gpuPointRun, gpuTruthPoint } from './helpers';

const B4 = 'llama-2-70b-lora-s2048-b4-ckpt-z3-w8-drop0.1';
const B8 = 'llama-2-70b-lora-s2048-b8-ckpt-z3-w8-drop0.1';
const B2 = 'llama-2-70b-lora-s2048-b2-ckpt-z3-w8-drop0.1';

const leadTerm = (id: string, extra = {}) =>
  gpuPointRun(id, extra).estimate.perGpu.runtime.find((t) => t.id === 'zero3-launch-lead');

const setupOf = (id: string) => TrainingSetupSchema.parse(gpuTruthPoint(id).scenario);

function h100() {
  const g = findGpu('H100-80GB');
  assert.ok(g.ok && g.gpu.spec);
  return g.gpu.spec;
}

describe('estimate: the CPU runs ahead of a GPU-bound ZeRO-3 step by the launch queue (DeepSpeed 0.19.6 and later)', () => {
  // Llama-2-70B, one layer: q and o 8,192 x 8,192 = 67,108,864 each, k and v 8,192 x 1,024 = 8,388,608 each, gate, up
  // and down 8,192 x 28,672 = 234,881,024 each, two norms 2 x 8,192: 855,654,400 parameters. Forward FLOPs a token:
  // 2 x 855,654,400 + attention 4 x 2,048 x 64 heads x 128 = 1,711,308,800 + 67,108,864 = 1,778,417,664.
  const flopsPerToken = 1_778_417_664;
  const h100Peak = 989.4e12 * 0.4; // the H100 SXM's dense bf16 peak (catalog/gpus.ts) at 40 % MFU

  it("a layer's GPU time: its FLOPs over the H100's 989.4 TFLOPS bf16 peak at 40 % MFU and the micro-batch's efficiency", () => {
    // 4 x 2,048 = 8,192 tokens, efficiency 8,192 / (8,192 + 256): 37.96 ms; 2 x 2,048: 4,096 / 4,352, 19.56 ms.
    const b4 = layerForwardSeconds(setupOf(B4), archOf('meta-llama/Llama-2-70b-hf'), h100());
    near(b4.seconds, (flopsPerToken * 8192) / (h100Peak * (8192 / 8448)), 1e-6, '4 x 2,048');
    near(b4.seconds, 0.03796, 1e-3, '37.96 ms');
    const b2 = layerForwardSeconds(setupOf(B2), archOf('meta-llama/Llama-2-70b-hf'), h100());
    near(b2.seconds, 0.01956, 1e-3, '19.56 ms');
  });

  it('4 x 2,048 tokens: 1,024 launches / 92 a layer = 11.1 layers; the H100 within 3 % reserved (was -29 %)', () => {
    // The layer's forward makes 92 tensors, one launch each (the H100's profile: 97 launches a layer over all streams);
    // its CPU time 92 x 0.34 ms = 31.3 ms is below the GPU's 38.0 ms, and the CPU would gain 80 x (1 - 31.3 / 38.0) =
    // 14.1 layers over the forward: the queue's 11.1 bound it.
    assert.equal(LAUNCH_QUEUE_LAUNCHES, 1024);
    near(92 * ZERO3_CPU_SECONDS_PER_LAUNCH, 0.03128, 1e-3, 'CPU time a layer');
    const term = leadTerm(B4);
    assert.ok(term, 'the lead term');
    assert.match(term.formula, /92 launches x 0\.34 ms/);
    assert.match(term.formula, /the 1024 launches CUDA's launch queue holds \/ 92 a layer = 11\.1 layers x 1\.6 GiB/);
    // 11.13 x 1,711,308,800 B = 19.05 GB: the layers' gathered parameters the pool holds beyond its own capacity.
    const { estimate: e, reserved } = gpuPointRun(B4);
    near(e.perGpu.reservedBytes, reserved, 0.03, 'reserved');
  });

  it('8 x 2,048 tokens: the same 11.1 layers; the H100 within 3 % reserved (was -22 %)', () => {
    assert.match(leadTerm(B8)?.formula ?? '', /= 11\.1 layers/);
    const { estimate: e, reserved } = gpuPointRun(B8);
    near(e.perGpu.reservedBytes, reserved, 0.03, 'reserved');
  });

  it('where the CPU gains fewer layers than the queue holds, those: 3 x 2,560 tokens', () => {
    // 7,680 tokens, attention 4 x 2,560 x 64 x 128 = 83,886,080: 1,795,194,880 FLOPs a token, / (395.6 TFLOPS x
    // 7,680 / 7,936) = 36.01 ms; the CPU gains 80 x (1 - 31.28 / 36.01) = 10.5 layers, fewer than the queue's 11.1.
    const term = leadTerm(B4, { micro_batch_size: 3, seq_len: 2560 });
    assert.match(term?.formula ?? '', /what it gains over 80 layers, 80 x \(1 - CPU \/ GPU time\) = 10\.5 layers/);
  });

  it('nothing where the CPU is the slower (2 x 2,048 tokens: 19.6 ms of GPU time a layer), as the H100 showed', () => {
    assert.equal(leadTerm(B2), undefined);
    const { estimate: e, reserved } = gpuPointRun(B2);
    near(e.perGpu.reservedBytes, reserved, 0.05, 'reserved');
  });

  it('nothing before DeepSpeed 0.19.6, whose hooks were not timed, nor without overlap_comm', () => {
    assert.equal(leadTerm(B4, { deepspeed_version: '0.16.5' }), undefined);
    assert.equal(leadTerm(B4, { zero_buckets: { overlap_comm: false } }), undefined);
  });

  it('never more than the GPU has room for: the allocator frees those blocks before it reports out of memory', () => {
    // 12 x 2,048 tokens: 11.1 layers would take the reserved bytes past the 80 GB H100; what fits of them counts.
    const { estimate: e } = gpuPointRun(B8, { micro_batch_size: 12 });
    const term = e.perGpu.runtime.find((t) => t.id === 'zero3-launch-lead');
    assert.ok(term && term.bytes > 0);
    assert.match(term.formula, /of it fit beside the rest, the allocator frees the others/);
    assert.ok(e.perGpu.deviceBytes <= h100().memoryBytes, 'device bytes within the GPU');
  });

  it('the advice weighs what the fit needs: the device bytes less the lead, which a CPU-bound step does not save', () => {
    const { estimate: e } = gpuPointRun(B4);
    const lead = e.perGpu.runtime.find((t) => t.id === 'zero3-launch-lead');
    assert.ok(lead);
    assert.equal(neededBytes(e), e.perGpu.deviceBytes - lead.bytes);
  });

  it('says which release it takes where no file names one: a current one, whose hooks were timed', () => {
    const e = gpuPointRun(B4, { deepspeed_version: undefined }).estimate;
    const a = e.assumptions.find((x) => x.key === 'deepspeed_version');
    assert.equal(a?.value, 'current (0.19.6 or later)');
    assert.match(a?.source ?? '', /0\.34 ms of CPU time a kernel launch/);
    assert.equal(
      gpuPointRun(B4).estimate.assumptions.find((x) => x.key === 'deepspeed_version'),
      undefined,
    );
  });
});
