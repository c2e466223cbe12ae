// Term: what FSDP1's initialisation leaves cached on the compute stream (src/core/terms/fsdp-init-cache.ts). The
// replays are worked by hand with the caching allocator's rules (terms/allocator.ts: a request of 10 MiB or more gets
// a segment of its own size rounded to 2 MiB, the best-fitting free block is split when more than 1 MiB is left);
// the published runs are Answer.AI's (AnswerDotAI/fsdp_qlora@05ed9f2 benchmarks_03_2024.md, tools/truth/FINDINGS.md
// §11).
import * as assert from 'node:assert/strict';
import { initCacheBytes } from '../../../src/core/terms/fsdp-init-cache';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { run, setupFor } from '../helpers';
import { ANSWER_AI_LORA, runtimeBytes } from './helpers';

const MiB = 2 ** 20;

describe('fsdp-init-cache: hand-worked replays', () => {
  it('two 40 MiB parameters per layer, a 100 MiB root, two ranks: 310 MiB cached', () => {
    // Layer 1: 40 + 40 MiB parameters, their 80 MiB flat copy, a 40 MiB shard (kept); the rest freed: 160 MiB cached.
    // Layer 2 reuses the three blocks; its shard takes a new segment. Root: a 100 MiB parameter and a 100 MiB flat copy
    // (new segments), its 50 MiB shard split from the 80 MiB block (30 MiB left); both 100 MiB blocks freed. The first
    // forward's unsharded buffers (100, then 80 MiB) fit in the 100 MiB blocks. 40 + 40 + 30 + 100 + 100 = 310 MiB.
    assert.equal(
      initCacheBytes({ layer: [40 * MiB, 40 * MiB], root: [100 * MiB], unshardedRatio: 1, shards: 2, offload: false }),
      310 * MiB,
    );
  });
  it('CPU offload frees each shard too', () => {
    // The shards no longer pin blocks: layer 1 leaves 40 + 40 + 80 + 40, every later unit reuses them; the root's
    // 100 MiB parameter and flat copy take new segments, its 50 MiB shard the 80 MiB block, and is freed: 400 MiB.
    assert.equal(
      initCacheBytes({ layer: [40 * MiB, 40 * MiB], root: [100 * MiB], unshardedRatio: 1, shards: 2, offload: true }),
      400 * MiB,
    );
  });
  it('Llama-2-7B in bf16 over two ranks: 1,526 MiB', () => {
    // q, k, v, o (32 MiB each), gate, up, down (86 MiB each), the norms (16 KiB, a 2 MiB small segment), a 388 MiB flat
    // copy: 776 MiB cached from the first layer on. The root: the embedding takes 250 MiB of the 388 MiB block, the head
    // a new 250 MiB segment, the flat copy a new 500 MiB one, the 250 MiB shard another; freed: 388 + 250 + 500 more
    // than the layers' 388 -> 128 + 258 + 2 + 388 + 500 + 250 = 1,526 MiB.
    const layer = [32, 32, 32, 32, 86, 86, 86].map((x) => x * MiB).concat([16_384]);
    assert.equal(
      initCacheBytes({ layer, root: [250 * MiB, 250 * MiB], unshardedRatio: 1, shards: 2, offload: false }),
      1526 * MiB,
    );
  });
});

describe("fsdp-init-cache: Answer.AI's FSDP1 layout with DoRA (Llama-2-7B, 2 ranks)", () => {
  // The LoRA layout is replayed whole (terms/fsdp1-step-cache.ts, test/unit/terms/fsdp1-step-cache.test.ts), and a
  // bitsandbytes 4-bit model is built by its load (terms/bnb-load.ts); with DoRA the replay does not stand, and the
  // flat terms do, this one among them.
  const base: Partial<TrainingSetupInput> = {
    ...ANSWER_AI_LORA,
    lora: { ...ANSWER_AI_LORA.lora!, use_dora: true },
  };
  const layout = (extra: Partial<TrainingSetupInput>): ReturnType<typeof run> =>
    run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, ...extra }));
  it('at batch 1 the build leaves more cached than the step holds', () => {
    const term = runtimeBytes(layout({ seq_len: 512 }), 'fsdp-init-cache') ?? 0;
    assert.ok(term > 0, `${term}`);
  });
  it('none for a bitsandbytes 4-bit model, whose load builds the units (terms/bnb-load.ts)', () => {
    const qlora = layout({ seq_len: 512, method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true } });
    assert.equal(runtimeBytes(qlora, 'fsdp-init-cache'), undefined);
  });
  it('on a GPU, only as far as it has room: the allocator frees whole cached segments before running out', () => {
    const free = layout({ seq_len: 512 });
    const room = free.perGpu.deviceBytes - (runtimeBytes(free, 'fsdp-init-cache') ?? 0) / 2;
    // A card whose usable memory (1/16 kept free) ends halfway through the cached segments.
    const gpu = { id: 'half the cache', memoryBytes: (room * 16) / 15, source: 'test' };
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, seq_len: 512 }), { gpu, headroomFraction: 1 / 16 });
    assert.equal(e.fits, true);
    assert.ok(Math.abs(e.perGpu.deviceBytes - room) < 1024, `${e.perGpu.deviceBytes} vs ${room}`);
    assert.ok((runtimeBytes(e, 'fsdp-init-cache') ?? 0) < (runtimeBytes(free, 'fsdp-init-cache') ?? 0));
  });
  it('none under FSDP2, which shards in place', () => {
    assert.equal(runtimeBytes(layout({ seq_len: 512, fsdp_version: 2 }), 'fsdp-init-cache'), undefined);
  });
  it('none where the step holds more than the cache (4 x 2,048 tokens)', () => {
    assert.equal(runtimeBytes(layout({ seq_len: 2048, micro_batch_size: 4 }), 'fsdp-init-cache'), undefined);
  });
});
