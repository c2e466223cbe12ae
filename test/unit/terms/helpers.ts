// Helpers shared by the estimate tests (test/unit/estimate.test.ts and test/unit/terms/*).
import * as assert from 'node:assert/strict';
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
