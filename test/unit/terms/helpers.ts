// Helpers shared by the estimate tests (test/unit/estimate.test.ts and test/unit/terms/*).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TrainingSetupSchema, type TrainingSetup } from '../../../src/core';
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
