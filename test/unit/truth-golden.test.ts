// The estimator against the CPU ground truth of tools/truth: real transformers / PEFT / Accelerate / TRL code on small
// random-initialised models, rank 0 of DDP / FSDP1 / FSDP2 through torch's fake process group, the peak allocated
// bytes of a training step read from the profiler's allocation records (test/fixtures/truth/<suite>.json); and the
// GPU points' max_memory_allocated (gpu.json), each estimated for the GPU it ran on, as tools/truth/compare.mjs does.
//
// test/fixtures/truth/status.json sorts the points in two lists (tools/truth/compare.mjs --write-status writes it):
// - passing: the estimate must stay within the tolerance (3 % either way, never more than 5 % low);
// - knownGaps: the error each point had when the list was written. A gap may shrink; it must not grow by more than
//   1 point, and once a gap is within tolerance the test asks for it to be moved to `passing`.
// Every point must be in exactly one list. See tools/truth/FINDINGS.md for the mechanisms behind the gaps.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { estimate } from '../../src/core/estimate';
import { findGpu } from '../../src/core/lookup';
import { TrainingSetupSchema, type TrainingSetupInput } from '../../src/core/setup';

interface TruthPoint {
  id: string;
  scenario: TrainingSetupInput;
  peakBytes: number;
  peakPhase: string;
  /** 'gpu' for the points measured on a GPU (`gpu` names it); the CPU points have no GPU and no cuBLAS. */
  machine?: string;
  gpu?: string;
}

interface Status {
  tolerance: { within: number; maxLow: number };
  passing: string[];
  knownGaps: Record<string, number>;
}

const dir = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'truth');
const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8')) as Status;
const points: TruthPoint[] = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.json') && f !== 'status.json')
  .sort()
  .flatMap((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { points: TruthPoint[] }).points);

const GAP_SLACK = 0.01;
const passing = new Set(status.passing);

function errorOf(p: TruthPoint): number {
  const gpu = p.machine === 'gpu' && p.gpu ? findGpu(p.gpu) : undefined;
  const r = estimate(TrainingSetupSchema.parse(p.scenario), gpu?.ok ? { gpu: gpu.gpu } : {});
  assert.ok(r.ok, `${p.id}: the estimator refused the scenario`);
  return (r.estimate.perGpu.peakBytes - p.peakBytes) / p.peakBytes;
}

function withinTolerance(err: number): boolean {
  return Math.abs(err) <= status.tolerance.within && err >= -status.tolerance.maxLow;
}

const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;

describe('estimate against the CPU ground truth of real libraries (tools/truth)', () => {
  it('has at least 300 points, each listed once in status.json', () => {
    assert.ok(points.length >= 300, `${points.length} points`);
    const ids = points.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'duplicate point ids');
    const listed = [...status.passing, ...Object.keys(status.knownGaps)];
    assert.equal(new Set(listed).size, listed.length, 'a point is listed twice');
    const missing = ids.filter((id) => !passing.has(id) && !(id in status.knownGaps));
    assert.deepEqual(missing, [], 'points in neither list of status.json (run tools/truth/compare.mjs --write-status)');
    const stale = listed.filter((id) => !ids.includes(id));
    assert.deepEqual(stale, [], 'status.json lists points that no fixture has');
  });

  for (const p of points) {
    if (passing.has(p.id)) {
      it(`${p.id} within tolerance (measured ${p.peakBytes.toLocaleString('en-US')} B at ${p.peakPhase})`, () => {
        const err = errorOf(p);
        assert.ok(withinTolerance(err), `estimate is ${pct(err)} from the measured peak`);
      });
    } else if (p.id in status.knownGaps) {
      const was = status.knownGaps[p.id];
      it(`${p.id} known gap (${pct(was)} when recorded) does not grow`, () => {
        const err = errorOf(p);
        assert.ok(!withinTolerance(err), `now ${pct(err)}: within tolerance, move it to "passing" in status.json`);
        assert.ok(Math.abs(err) <= Math.abs(was) + GAP_SLACK, `now ${pct(err)}, was ${pct(was)}`);
      });
    }
  }
});
