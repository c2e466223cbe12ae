// Analysis per change over the real training files of test/real-files: each file is read as the editor reads it after
// a keystroke (its text edited, the files of its run read from disk, the estimate made), three times; the line printed
// gives the median, p90 and largest of the files' own medians. The synthetic analysis rows of speed.ts time one shape
// of file; these are the shapes people write (a launcher and its 2,000-line script, a class that keeps its config).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runPipeline } from '../src/analyzers/pipeline';
import { catalogResolver } from '../src/analyzers/resolve';
import { estimate } from '../src/core/estimate';
import { nodeFileReader } from '../src/node/files';

/** The files expected.json lists as training files, as paths under `files/`. */
function trainingFiles(dir: string): string[] {
  const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as {
    files: Record<string, { training?: boolean }>;
  };
  return Object.entries(expected.files)
    .filter(([, e]) => e.training === true)
    .map(([file]) => file);
}

/** One file's median time over three analyses of an edited text, in ms. */
function perChange(root: string, file: string): number {
  const abs = path.join(root, file);
  const text = fs.readFileSync(abs, 'utf8');
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const edited = i % 2 === 0 ? text : `${text}\n`;
    const t0 = process.hrtime.bigint();
    const r = runPipeline([{ file: abs, text: edited }], nodeFileReader(root), {}, catalogResolver);
    if (r.setup) estimate(r.setup);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times.sort((a, b) => a - b)[1];
}

/** Prints the line, or a skipped one where the files are not there (dist/bench.js runs from dist/). */
export function realFilesAnalysis(dir = path.resolve(__dirname, '..', 'test', 'real-files')): void {
  const root = path.join(dir, 'files');
  if (!fs.existsSync(root)) {
    console.log(JSON.stringify({ name: 'analysis per change: real files', skipped: `${root} not found` }));
    return;
  }
  const files = trainingFiles(dir).filter((f) => fs.existsSync(path.join(root, f)));
  for (const f of files.slice(0, 20)) perChange(root, f); // warm-up
  const xs = files.map((f) => perChange(root, f)).sort((a, b) => a - b);
  const q = (p: number): number => Number(xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(3));
  console.log(
    JSON.stringify({
      name: `analysis per change: the ${xs.length} training files of test/real-files, their runs read from disk`,
      unit: 'ms',
      median: q(0.5),
      p90: q(0.9),
      max: q(1),
      n: xs.length,
    }),
  );
}
