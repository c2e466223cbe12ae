// FSDP1 without its rate limiter (limit_all_gathers=False): the CPU runs ahead of a GPU-bound forward and each layer it
// has gathered stays on the unshard stream until its kernels have run (src/core/terms/fsdp1-launch-lead.ts, replayed
// in src/core/terms/fsdp1-step-cache.ts). Worked out by hand from Llama-2-7B's shapes on the H100 LoRA truth points
// (test/fixtures/truth/gpu.json, measured with the limiter on); llama-cookbook PR #41 measured the limiter's effect on
// 4 A100-40GB: 5.31 GB of max_memory_reserved (tools/truth/FINDINGS.md §127).
import * as assert from 'node:assert/strict';
import { FSDP1_CPU_SECONDS_PER_LAUNCH } from '../../../src/core/terms/fsdp1-launch-lead';
import { LAUNCH_QUEUE_LAUNCHES } from '../../../src/core/terms/cpu-launch-lead';
import { near } from '../helpers';
import { gpuPointRun } from './helpers';

const B4 = 'llama-2-7b-lora-s2048-b4-ckpt-fsdp1-w2';
const S512 = 'llama-2-7b-lora-s512-b1-ckpt-fsdp1-w2';
const GiB = 2 ** 30;

function fsdp1Term(id: string, limit: boolean) {
  const { estimate: e, reserved } = gpuPointRun(id, { fsdp_limit_all_gathers: limit });
  const term = e.perGpu.runtime.find((t) => t.id === 'fsdp1-step-cache');
  assert.ok(term, 'the FSDP1 replay');
  const unshard = /([\d.]+) GiB on the unshard stream/.exec(term.formula);
  assert.ok(unshard, term.formula);
  return { e, term, unshard: Number(unshard[1]) * GiB, measured: reserved };
}

describe('estimate: FSDP1 without limit_all_gathers holds the layers the CPU gathered ahead', () => {
  it('4 x 2,048 tokens on the H100: 1,024 launches / 72 a layer = 14 layers ahead, 12 buffers more than the limiter', () => {
    // A layer's forward: 438.3M FLOPs a token x 8,192 tokens over 989 TFLOPS x 0.4 x 0.97 = 9.4 ms of GPU time; its 72
    // tensors x 15 us = 1.08 ms of CPU time. The CPU gains 32 x (1 - 1.08 / 9.4) = 28 layers, the queue holds 14.2.
    assert.equal(LAUNCH_QUEUE_LAUNCHES, 1024);
    near(72 * FSDP1_CPU_SECONDS_PER_LAUNCH, 0.00108, 1e-6, 'CPU time a layer');
    const on = fsdp1Term(B4, true);
    const off = fsdp1Term(B4, false);
    assert.match(off.term.formula, /CPU 72 launches x 15 us = 1\.08 ms/);
    assert.match(off.term.formula, /\/ 72 a layer = 14 whole layers/);
    assert.doesNotMatch(on.term.formula, /limit_all_gathers/);
    // A layer's padded buffer: 202,383,360 frozen elements x 2 B = 404,766,720 B, a segment of 194 x 2 MiB. With the
    // limiter the unshard stream holds three (the backward's in flight) beside the root's; without it the forward
    // holds the 14 gathered ahead and the one in use: 12 segments more, 4.55 GiB (the formula rounds to 0.1 GiB).
    near(off.unshard - on.unshard, 12 * 194 * 2 ** 21, 0.03, 'the unshard stream');
    // Reserved only: the allocated peak is the limiter's.
    assert.equal(off.e.perGpu.peakBytes, on.e.perGpu.peakBytes);
    near(on.e.perGpu.reservedBytes, on.measured, 0.03, 'the limiter on, as measured');
  });

  it('1 x 512 tokens: the GPU is the faster (0.85 ms a layer against 1.08 ms), no layer ahead', () => {
    // 438.3M x 512 / (989 TFLOPS x 0.4 x 512 / 768) = 0.85 ms: the CPU never gets ahead.
    const on = fsdp1Term(S512, true);
    const off = fsdp1Term(S512, false);
    assert.doesNotMatch(off.term.formula, /limit_all_gathers/);
    assert.equal(off.e.perGpu.reservedBytes, on.e.perGpu.reservedBytes);
  });
});
