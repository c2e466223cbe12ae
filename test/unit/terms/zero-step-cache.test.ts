// What a DeepSpeed ZeRO run's compute stream caches (src/core/terms/zero-step-cache.ts): a replay of the engine's
// initialisation and a step through the caching-allocator model, in place of the flat reserve. The hand-worked plan
// has no layers, so every request is one the walk-through can follow. The real-width point is DeepSpeed 0.16.5's own
// engine on the CPU (tools/truth, suite `replay`, truthlib/zero.py; FINDINGS §49): its peak allocated as the profiler
// measured it, and its whole allocation sequence replayed through the same allocator model (tools/truth/replay.mjs).
import * as assert from 'node:assert/strict';
import { replayZero, type ZeroPlan } from '../../../src/core/terms/zero-step-cache';
import { MiB } from '../../../src/core/units';
import { gpuPointEstimate, gpuPointRun, noLayerStep, replayEstimate } from './helpers';

/**
 * ZeRO-2 over 4 ranks, no layers: a tied 40 MiB trained embedding (20 Mi elements), a 50 MiB gradient bucket made as
 * the backward starts (DeepSpeed before 0.18.2).
 */
function zero2Plan(): ZeroPlan {
  return {
    ...noLayerStep({ weight: 40 * MiB, grad: 40 * MiB, state: 0 }),
    stage: 2,
    weightShards: 1,
    groups: [5 * MiB],
    flatElements: 20 * MiB,
    flattenOnDevice: false,
    paramBytes: 2,
    gradBytes: 2,
    buckets: [50 * MiB],
    bucketsBeforeLoss: true,
    adamw: { kind: 'foreach', copies: 1 },
    capacity: Infinity,
  };
}

describe('zero-step-cache', () => {
  it('ZeRO-2, no layers: the bucket made before the loss backward and the flattened weight leave 840 MiB reserved', () => {
    // Initialisation: the weight (40) is allocated, freed and the cache emptied (DeepSpeed moves it to the host); its
    // flat copy B (40), the fp32 master C (5 Mi x 4 B = 20), the zero gradient A (20), freed after the states C', C''
    // (2 x 20): 120 MiB.
    // The step: the hidden state takes A's 20, the norm's output E (20); the logits F (100), the upcast G (200), the
    // log-softmax H (200), the upcast and logits freed. The backward starts: the 50 MiB bucket splits F; the loss's
    // gradient takes G, log-softmax's a new I (200) while log-softmax's output (H) is kept: 840 MiB, 770 allocated
    // (20 + 40 + 40 + 20 + 200 + 50 + 200 + 200). The 16-bit gradient splits G, the head's (40) F's rest, the hidden
    // state's A's 20; the lookup's gradient and the sum split G, the head's and the lookup's are freed, the sum dropped
    // into the bucket. Stage 2's gradient partition (10) splits A; the step's flat copy (10) and fp32 gradient (20)
    // take A and E, the foreach copy splits F. The step leaves 840 MiB reserved.
    const r = replayZero(zero2Plan());
    assert.equal(r.peakAllocated, 770 * MiB);
    assert.equal(r.reserved, 840 * MiB);
  });

  it("a real-width ZeRO-2 LoRA run: the peak and reserved bytes of DeepSpeed's own sequence", () => {
    // Llama-2-7B widths, 4 layers, LoRA r 8 on all linear layers, 4 x 2,048 tokens, checkpointed, DeepSpeed's default
    // 5e8-element bucket, 8 ranks (tools/truth/scenarios/replay/llama7b-4l-z2-lora-all-ckpt-b4.vram.yaml). Measured
    // with DeepSpeed 0.16.5 on the CPU: peak allocated 6,701,738,760 B at the loss's backward (the 1,000 MB bucket
    // made by backward() beside log-softmax's output and the two fp32 gradients of the logits); the run's allocation
    // sequence replayed through the allocator model reserves 8,415.9 MB. Before the bucket counted at the loss the
    // estimate was 6,050.3 MB allocated, and 7,351.0 MB reserved with the flat 5 % reserve.
    const { peakBytes, reservedBytes, runtime } = replayEstimate('llama7b-4l-z2-lora-all-ckpt-b4').perGpu;
    assert.ok(Math.abs(peakBytes / 6_701_738_760 - 1) < 0.005, `peak ${peakBytes}`);
    assert.ok(Math.abs(reservedBytes / 8_415.9e6 - 1) < 0.01, `reserved ${reservedBytes}`);
    assert.ok(runtime.some((t) => t.id === 'zero-step-cache'));
  });

  it('Llama-3.1-8B full under ZeRO-2 on an H100: reserved within 5 % of the GPU (was -24.5 % through the host)', () => {
    // Rank 0 of 8, 2 x 2,048 tokens, DeepSpeed 0.19.6 (tools/truth/gpu/results/2026-11-26b-h100): max_memory_reserved
    // 58,741,227,520 B, which the allocator model gives to the byte when it replays the GPU's own history from the
    // model's load (FINDINGS §73): the 16.06 GB of bf16 weights flattened beside themselves.
    const id = 'llama-3.1-8b-full-s2048-b2-ckpt-z2-w8';
    const { reserved, measured } = gpuPointEstimate(id, 'zero-step-cache');
    assert.equal(measured, 58_741_227_520);
    assert.ok(Math.abs(reserved / measured - 1) < 0.05, `reserved ${reserved}`);
    // DeepSpeed 0.18.6 and before moved the weights to the host, emptied the cache and brought them back flat.
    const { estimate: old } = gpuPointRun(id, { deepspeed_version: '0.18.6' });
    assert.ok(old.perGpu.reservedBytes < 0.8 * measured, `0.18.6 ${old.perGpu.reservedBytes}`);
  });
});
