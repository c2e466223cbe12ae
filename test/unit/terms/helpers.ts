// Helpers shared by the estimate tests (test/unit/estimate.test.ts and test/unit/terms/*).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { TrainingSetupSchema, type TrainingSetup } from '../../../src/core';
import { estimate } from '../../../src/core/estimate';
import type { Estimate, RuntimeTerm } from '../../../src/core/model';
import { parseArchitecture, type Architecture } from '../../../src/core/architecture';
import { findModel } from '../../../src/core/lookup';

/** The architecture of a catalog model. */
export function archOf(id: string): Architecture {
  const m = findModel(id);
  assert.ok(m.ok, id);
  const r = parseArchitecture(m.model.config);
  assert.ok(r.ok, id);
  return r.arch;
}

/** The setup of a point of the CPU truth (test/fixtures/truth/<suite>.json, tools/truth/README.md), e.g. 'loop/mixtral-full-amp'. */
export function truthSetup(id: string, extra: Record<string, unknown> = {}): TrainingSetup {
  const file = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'truth', `${id.split('/')[0]}.json`);
  const point = (
    JSON.parse(fs.readFileSync(file, 'utf8')) as { points: Array<{ id: string; scenario: Record<string, unknown> }> }
  ).points.find((p) => p.id === id);
  assert.ok(point, id);
  return TrainingSetupSchema.parse({ ...point.scenario, ...extra });
}

/** The measured peak allocated bytes of a truth point (rank 0, the measured step). */
export function truthPeak(id: string): number {
  const file = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'truth', `${id.split('/')[0]}.json`);
  return (
    JSON.parse(fs.readFileSync(file, 'utf8')) as { points: Array<{ id: string; peakBytes: number }> }
  ).points.find((p) => p.id === id)!.peakBytes;
}

/**
 * The estimate of an allocator-replay point: tools/truth/scenarios/replay/<name>.vram.yaml (real widths, few layers;
 * its recorded sequence replayed in tools/truth/FINDINGS.md §8), with `extra` over the scenario.
 */
export function replayEstimate(name: string, extra: Record<string, unknown> = {}, lean = false): Estimate {
  const file = path.resolve(
    __dirname,
    '..',
    '..',
    '..',
    '..',
    'tools',
    'truth',
    'scenarios',
    'replay',
    `${name}.vram.yaml`,
  );
  const scenario = parseYaml(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const r = estimate(TrainingSetupSchema.parse({ ...scenario, ...extra }), { lean });
  assert.ok(r.ok, name);
  return r.estimate;
}

/** The bytes of a runtime term of an estimate, or undefined where it has none. */
export function runtimeBytes(e: Estimate, id: RuntimeTerm['id']): number | undefined {
  return e.perGpu.runtime.find((r) => r.id === id)?.bytes;
}
