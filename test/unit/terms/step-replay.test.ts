// The step replays' shared pieces (src/core/terms/step-replay.ts) that no one term owns: a layer's backward worked by
// hand, a fused linear cross-entropy in place of transformers' loss, and activation offloading of the checkpointed
// layer inputs. The hand-worked plan has
// no layers; the estimates are GPU truth points (test/fixtures/truth/gpu.json, one H100 80GB, torch 2.11,
// transformers 5.17) with the loss or the offloading changed, which no GPU point measured: what is checked is that the
// replay runs and moves by the bytes the change takes out of the step.
import * as assert from 'node:assert/strict';
import { CachingAllocator } from '../../../src/core/terms/allocator';
import { lossForwardBackward } from '../../../src/core/terms/loss-replay';
import { layerBackward, layerForward, layerRecompute, stepState } from '../../../src/core/terms/step-replay';
import { MiB } from '../../../src/core/units';
import { gpuPointRun, loggingAllocator, noLayerStep } from './helpers';

const REPLAYS = ['two-step-cache', 'fsdp2-step-cache', 'fsdp1-step-cache', 'zero-step-cache'];
const replayed = (r: ReturnType<typeof gpuPointRun>): boolean =>
  r.estimate.perGpu.runtime.some((t) => REPLAYS.includes(t.id) && t.bytes > 0);

describe('step-replay', () => {
  it('a fused linear cross-entropy: the input gradient and token losses kept, one chunk of logits, no logits after', () => {
    // A tied 100 MiB embedding that trains. Forward: the hidden states' gradient (20 MiB, a segment of its own), the
    // token losses (2 MiB: a 20 MiB segment, as every request of 1-10 MiB gets) and one 30 MiB chunk of logits, freed:
    // 52 MiB. Backward: the losses freed, the head's 100 MiB gradient in a new segment (the free 30 MiB block is too
    // small): 120 MiB allocated, 20 + 20 + 30 + 100 = 170 MiB reserved.
    const shape = {
      ...noLayerStep({ weight: 100 * MiB, grad: 100 * MiB, state: 0 }),
      fusedLoss: { inputGrad: 20 * MiB, tokenLosses: 2 * MiB, chunkTokens: 128, chunkLogits: 30 * MiB },
    };
    const state = stepState(new CachingAllocator(), shape);
    lossForwardBackward(state);
    assert.equal(state.allocator.peakAllocated, 120 * MiB);
    assert.equal(state.allocator.allocated, 120 * MiB);
    assert.equal(state.allocator.peakReserved, 170 * MiB);
    assert.equal(state.grads.length, 1);
  });

  it("a layer's backward: each weight's gradient in its op's own backward, before its input's gradient", () => {
    // A hand-made layer: x (20 MiB) -> up_proj -> u (64 MiB) -> SiLU -> a (64 MiB) -> down_proj -> y (20 MiB), every
    // tensor but y kept. Autograd runs down_proj's backward first: its weight's gradient (7 MiB), then a's (64 MiB); the
    // norm's vector (3 MiB, no op) comes in the even spread; SiLU's backward gives u's gradient (64 MiB), and up_proj's
    // backward, which waits for it, its weight's (5 MiB) then x's (20 MiB); the layer's input gradient (20 MiB) last.
    // The order the H100's histories show (tools/truth/FINDINGS.md section 100).
    const { allocator, log } = loggingAllocator();
    const shape = {
      ...noLayerStep({ weight: 0, grad: 0, state: 0 }),
      layers: 1,
      layer: [
        { weight: 5 * MiB, grad: 5 * MiB, state: 0, op: 0 },
        { weight: 7 * MiB, grad: 7 * MiB, state: 0, op: 1 },
        { weight: 3 * MiB, grad: 3 * MiB, state: 0 },
      ],
      sequence: {
        bytes: [20 * MiB, 64 * MiB, 64 * MiB, 20 * MiB],
        freeAfter: [1, 2, 3, 3],
        saved: [true, true, true, false],
        recomputeEnd: 4,
        held: [false, false, false, false],
        contextHeld: [false, false, false, false],
        input: 0,
        output: 3,
        linears: [
          { weightElems: 100, input: 0, output: 1 },
          { weightElems: 100, input: 2, output: 3 },
        ],
      },
    };
    const state = stepState(allocator, shape);
    const { kept } = layerForward(state, state.allocator.malloc(20 * MiB));
    const gradOutput = state.allocator.malloc(20 * MiB);
    log.length = 0;
    layerBackward(state, kept, layerRecompute(state, kept), gradOutput);
    assert.deepEqual(
      log.filter((x) => x > 0),
      [7, 64, 3, 64, 5, 20, 20],
    );
  });

  it('FSDP2, ZeRO-3 and one GPU with a fused loss: replayed, the logits gone from the step', () => {
    // Llama-3.1-8B LoRA over 8 ranks, 2 x 2,048 tokens: transformers' loss holds the bf16 logits, their fp32 upcast,
    // log-softmax and gradients (4,096 x 128,256 x 4 B = 2,004 MiB each); the fused loss one chunk of logits, 128
    // tokens (next_pow2(4,096 / ceil(128,256 / 4,096))) x 128,256 x 2 B = 31.3 MiB, beside a 32 MiB input gradient.
    // (ZeRO-3 over 8 ranks at 4 x 2,048 tokens: 4,008 MiB each.)
    const ids = [
      'llama-3.1-8b-lora-s2048-b2-ckpt-fsdp2-w8',
      'llama-3.1-8b-lora-s2048-b2-ckpt',
      'llama-3.1-8b-lora-s2048-b4-ckpt-z3-w8',
    ];
    for (const id of ids) {
      const asRun = gpuPointRun(id);
      const fused = gpuPointRun(id, { loss: 'fused' });
      assert.ok(replayed(asRun) && replayed(fused), id);
      const allocatedLess = asRun.estimate.perGpu.peakBytes - fused.estimate.perGpu.peakBytes;
      const reservedLess = asRun.estimate.perGpu.reservedBytes - fused.estimate.perGpu.reservedBytes;
      assert.ok(allocatedLess > 2 * 2004 * MiB, `${id}: ${allocatedLess}`);
      assert.ok(reservedLess >= allocatedLess, `${id}: ${reservedLess} < ${allocatedLess}`);
    }
  });

  it('activation offloading: replayed, every checkpointed layer input but two on the host', () => {
    // 32 layers' inputs of 2 x 2,048 x 4,096 x 2 B = 32 MiB: 30 of them leave the GPU (960 MiB); the replay's reserved
    // figure falls by about as much (within 5 %), the inputs brought back for the backward being on a stream of their own.
    const id = 'llama-3.1-8b-lora-s2048-b2-ckpt-fsdp2-w8';
    const asRun = gpuPointRun(id);
    const offloaded = gpuPointRun(id, { activation_offloading: true });
    assert.ok(replayed(offloaded));
    const allocatedLess = asRun.estimate.perGpu.peakBytes - offloaded.estimate.perGpu.peakBytes;
    const reservedLess = asRun.estimate.perGpu.reservedBytes - offloaded.estimate.perGpu.reservedBytes;
    assert.equal(allocatedLess, 30 * 32 * MiB);
    assert.ok(Math.abs(reservedLess - allocatedLess) <= 0.05 * allocatedLess, `${reservedLess} vs ${allocatedLess}`);
  });

  it('not replayed: offloading without checkpointing, a fused loss under Unsloth kernels, or a tiled MLP', () => {
    // The tiled MLP's shards run without grad and again in the backward, which the layer's sequence does not hold:
    // replayed, Llama-3.1-8B LoRA at 131,072 tokens put 71.1 GiB allocated where the estimate has 62.2 (FINDINGS §95).
    const id = 'llama-3.1-8b-lora-s2048-b2-ckpt';
    assert.equal(replayed(gpuPointRun(id, { activation_offloading: true, gradient_checkpointing: 'none' })), false);
    assert.equal(replayed(gpuPointRun(id, { loss: 'fused', kernels: 'unsloth' })), false);
    assert.equal(replayed(gpuPointRun(id)), true);
    assert.equal(replayed(gpuPointRun(id, { tiled_mlp: true })), false);
  });
});
