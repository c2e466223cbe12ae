// The resumable step replays (src/core/terms/resumable-replay.ts): a counting replay worked out by hand.
import * as assert from 'node:assert/strict';
import { CachingAllocator } from '../../../src/core/terms/allocator';
import { resumableReplay } from '../../../src/core/terms/resumable-replay';
import { MiB } from '../../../src/core/units';

describe('resumable-replay: a replay that stops after its first micro-batch and goes on from there', () => {
  // A counting replay: `start` allocates the plan's first 100 MiB, `finish` another 100 MiB; the figures are the
  // allocator's peak reserved (one 100 MiB segment each: 100 after the first micro-batch, 200 in all).
  const runs = { start: 0, finish: 0 };
  const replay = resumableReplay(
    {
      start: (plan: { capacity: number; n: number }) => {
        runs.start++;
        const allocator = new CachingAllocator(plan.capacity);
        allocator.malloc(100 * MiB);
        return { allocator };
      },
      finish: (s: { allocator: CachingAllocator }) => {
        runs.finish++;
        s.allocator.malloc(100 * MiB);
      },
      result: (s: { allocator: CachingAllocator }) => s.allocator.peakReserved,
    },
    { limit: 64, key: (p) => `${p.n}|${p.capacity}` },
  );

  it('the whole replay goes on from the first micro-batch: one start for both', () => {
    assert.equal(replay.first({ capacity: Infinity, n: 0 }), 100 * MiB);
    assert.equal(replay.whole({ capacity: Infinity, n: 0 }), 200 * MiB);
    assert.equal(replay.first({ capacity: Infinity, n: 0 }), 100 * MiB);
    assert.deepEqual(runs, { start: 1, finish: 1 });
  });

  it('past the newest 16 paused replays a state is let go: the whole replay starts again, with the same figures', () => {
    for (let n = 1; n <= 17; n++) replay.first({ capacity: Infinity, n });
    assert.deepEqual(runs, { start: 18, finish: 1 });
    assert.equal(replay.whole({ capacity: Infinity, n: 1 }), 200 * MiB);
    assert.deepEqual(runs, { start: 19, finish: 2 });
    assert.equal(replay.whole({ capacity: Infinity, n: 17 }), 200 * MiB);
    assert.deepEqual(runs, { start: 19, finish: 3 });
  });

  it('a replay that runs out within the GPU goes on without a bound, as boundedReplay does', () => {
    // 150 MiB of room: the first 100 MiB segment fits, the second does not even with nothing cached to release.
    assert.equal(replay.first({ capacity: 150 * MiB, n: 0 }), 100 * MiB);
    assert.equal(replay.whole({ capacity: 150 * MiB, n: 0 }), 200 * MiB);
  });
});
