// The published runs whose own files are in the repository (test/published): each config read through the analyzers
// as the editor reads it, estimated on the GPU it ran on, against the figure its authors published (or their OOM).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runPipeline } from '../src/analyzers/pipeline';
import { estimate } from '../src/core/estimate';
import { findGpu } from '../src/core/lookup';

interface Row {
  readonly config: string;
  readonly machine: string;
  readonly peakGB: number | null;
}

/** The error of each row with a figure, and how many OOM rows the estimate puts over the GPU. */
function litgptConfigHub(dir: string): { errors: Array<{ id: string; err: number }>; oom: number; oomOver: number } {
  const table = JSON.parse(fs.readFileSync(path.join(dir, 'table.json'), 'utf8')) as { rows: Row[] };
  const a10g = findGpu('A10G');
  const errors: Array<{ id: string; err: number }> = [];
  let oom = 0;
  let oomOver = 0;
  for (const row of table.rows) {
    const text = fs.readFileSync(path.join(dir, 'files', row.config), 'utf8');
    const res = runPipeline([{ file: row.config, text }], { read: () => undefined, join: (_f, r) => r }, {});
    if (!res.setup || !a10g.ok) continue;
    const r = estimate(res.setup, { gpu: a10g.gpu });
    if (!r.ok) continue;
    if (row.peakGB === null) {
      oom++;
      if (r.estimate.fits === false) oomOver++;
      continue;
    }
    errors.push({ id: `${row.config} ${row.machine}`, err: r.estimate.perGpu.peakBytes / 1e9 / row.peakGB - 1 });
  }
  return { errors, oom, oomOver };
}

/** Prints the published sets of test/published. */
export function publishedFiles(percentile: (xs: number[], q: number) => number): void {
  const dir = path.resolve(__dirname, '..', 'test', 'published', 'litgpt-config-hub');
  if (!fs.existsSync(dir)) return;
  const { errors, oom, oomOver } = litgptConfigHub(dir);
  const abs = errors.map((e) => Math.abs(e.err));
  const low = errors.reduce((m, e) => (e.err < m.err ? e : m));
  console.log('');
  console.log('published runs read from their own files (test/published):');
  console.log(
    `  LitGPT config hub (max_memory_allocated) n=${errors.length}: median ${(percentile(abs, 0.5) * 100).toFixed(1)}%, ` +
      `p90 ${(percentile(abs, 0.9) * 100).toFixed(1)}%, worst low ${(low.err * 100).toFixed(1)}% (${low.id}); ` +
      `OOM rows over the GPU: ${oomOver} of ${oom}`,
  );
}
