// LitGPT's config hub as published (test/published/litgpt-config-hub): every fine-tuning config of
// Lightning-AI/litgpt@5895df1 read through the LitGPT analyzer, against the table its README gives for it. The table's
// "Peak memory" is what the scripts print, torch.cuda.max_memory_allocated() / 1e9 (litgpt/finetune/lora.py:212), on
// A10G GPUs (24 GB); OOM rows ran out of memory there.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { estimate } from '../../src/core/estimate';
import { findGpu } from '../../src/core/lookup';
import { resolveText } from './helpers';

const DIR = path.join(__dirname, '../../../test/published/litgpt-config-hub');

interface Row {
  readonly config: string;
  readonly machine: string;
  readonly peakGB: number | null;
  readonly line: number;
}

const table = JSON.parse(fs.readFileSync(path.join(DIR, 'table.json'), 'utf8')) as { rows: Row[] };

function estimateConfig(config: string) {
  const text = fs.readFileSync(path.join(DIR, 'files', config), 'utf8');
  const res = resolveText(config, text);
  assert.ok(res.setup, `${config}: no setup (${res.problems.map((p) => p.message).join('; ')})`);
  const a10g = findGpu('A10G');
  assert.ok(a10g.ok);
  const r = estimate(res.setup, { gpu: a10g.gpu });
  assert.ok(r.ok, config);
  return r.estimate;
}

describe("published: LitGPT's config hub (Lightning-AI/litgpt@5895df1, 46 rows on A10G)", () => {
  const errors: number[] = [];
  for (const row of table.rows) {
    const what = `${row.config} on ${row.machine} (README line ${row.line}): ${row.peakGB ?? 'OOM'}`;
    it(what, () => {
      const e = estimateConfig(row.config);
      if (row.peakGB === null) {
        assert.equal(e.fits, false, `${(e.perGpu.deviceBytes / 1e9).toFixed(2)} GB fits`);
        return;
      }
      const err = e.perGpu.peakBytes / 1e9 / row.peakGB - 1;
      errors.push(Math.abs(err));
      assert.ok(Math.abs(err) <= 0.08, `${(e.perGpu.peakBytes / 1e9).toFixed(2)} GB (${(err * 100).toFixed(1)} %)`);
    });
  }
  it('median error within 4 % over the rows with a figure', () => {
    const sorted = [...errors].sort((a, b) => a - b);
    assert.equal(sorted.length, table.rows.filter((r) => r.peakGB !== null).length);
    const median = sorted[Math.floor(sorted.length / 2)];
    assert.ok(median <= 0.04, `median ${(median * 100).toFixed(1)} %`);
  });
});
