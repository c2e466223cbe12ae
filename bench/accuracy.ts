// npm run bench:accuracy — runs the estimator over published peak-memory measurements
// (../shared/reference/measured.json, or the path in VRAM_LENS_MEASURED) and prints the signed error per case,
// then the median and 90th-percentile absolute error overall and per metric. Each case is converted to a
// TrainingSetup from its own description only; nothing here is tuned to a case. Then the ground truth of the real
// libraries (test/fixtures/truth): the CPU points' allocated peak, and the GPU points' allocated peak, reserved and
// device memory, each set apart with its median, p90 and worst low case.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { caseGpu, caseToSetup, compareMetric, type MeasuredCase } from './measured-cases';
import { estimate } from '../src/core/estimate';
import { findGpu, type GpuChoice } from '../src/core/lookup';
import { TrainingSetupSchema, type TrainingSetupInput } from '../src/core/setup';
import { GiB } from '../src/core/units';
import { publishedFiles } from './published-files';

function percentile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((x, y) => x - y);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

interface TruthPoint {
  id: string;
  machine: string;
  /** The GPU a GPU point ran on (its name as torch reports it). */
  gpu?: string;
  scenario: TrainingSetupInput;
  peakBytes: number;
  reservedBytes?: number;
  deviceBytes?: number;
}

/** The catalog entry of the GPU a truth point ran on, if any. */
function measuredOn(name: string | undefined): GpuChoice | undefined {
  if (name === undefined) return undefined;
  const hit = findGpu(name);
  return hit.ok ? hit.gpu : undefined;
}

function truthSets(): void {
  const dir = path.resolve(__dirname, '..', 'test', 'fixtures', 'truth');
  const points = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'status.json')
    .flatMap((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { points: TruthPoint[] }).points);
  const errors = { cpu: [] as Err[], gpu: [] as Err[], reserved: [] as Err[], device: [] as Err[] };
  for (const p of points) {
    // A GPU point is estimated for the GPU it ran on: its memory bounds what the allocator keeps cached.
    const r = estimate(TrainingSetupSchema.parse(p.scenario), { gpu: measuredOn(p.gpu) });
    if (!r.ok) continue;
    const g = r.estimate.perGpu;
    const gpu = p.machine === 'gpu';
    errors[gpu ? 'gpu' : 'cpu'].push({ id: p.id, err: (g.peakBytes - p.peakBytes) / p.peakBytes });
    if (gpu && p.reservedBytes && p.deviceBytes) {
      errors.reserved.push({ id: p.id, err: (g.reservedBytes - p.reservedBytes) / p.reservedBytes });
      // Rank 0 of a fake process group opens no NCCL communicator: its device memory holds none of NCCL's buffers.
      const nccl = g.runtime.filter((t) => t.id.startsWith('nccl')).reduce((s, t) => s + t.bytes, 0);
      errors.device.push({ id: p.id, err: (g.deviceBytes - nccl - p.deviceBytes) / p.deviceBytes });
    }
  }
  console.log('');
  console.log('ground truth of the real libraries (test/fixtures/truth):');
  const labels = {
    cpu: 'CPU truth, allocated peak',
    gpu: 'GPU truth, allocated peak',
    reserved: 'GPU truth, reserved',
    device: 'GPU truth, device used',
  };
  for (const [key, label] of Object.entries(labels)) {
    const rows = errors[key as keyof typeof errors];
    if (rows.length === 0) continue;
    const abs = rows.map((r) => Math.abs(r.err));
    const low = rows.reduce((m, r) => (r.err < m.err ? r : m));
    console.log(
      `  ${label.padEnd(26)} n=${rows.length}: median ${(percentile(abs, 0.5) * 100).toFixed(1)}%, ` +
        `p90 ${(percentile(abs, 0.9) * 100).toFixed(1)}%, worst low ${(low.err * 100).toFixed(1)}% (${low.id})`,
    );
  }
}

interface Err {
  id: string;
  err: number;
}

/**
 * One case estimated and set against its metric, or why not: a case it cannot read, or one whose reading throws, is
 * skipped with the reason, never the whole run.
 */
function compareCase(
  c: MeasuredCase,
):
  | { ok: true; r: Extract<ReturnType<typeof estimate>, { ok: true }>; cmp: ReturnType<typeof compareMetric> }
  | { ok: false; reason: string } {
  try {
    const conv = caseToSetup(c);
    if (!conv.ok) return conv;
    const r = estimate(conv.setup, { gpu: caseGpu(c) });
    if (!r.ok) return { ok: false, reason: r.errors.map((e) => e.message).join('; ') };
    const cmp = compareMetric(c, r.estimate);
    if (!(cmp.measuredGiB > 0)) return { ok: false, reason: 'no measured value in GiB (value_gib, or value and unit)' };
    return { ok: true, r, cmp };
  } catch (e) {
    return { ok: false, reason: `could not be read: ${(e as Error).message}` };
  }
}

function main(): void {
  const file =
    process.env.VRAM_LENS_MEASURED ?? path.resolve(__dirname, '..', '..', 'shared', 'reference', 'measured.json');
  if (!fs.existsSync(file)) {
    console.log(`bench:accuracy: ${file} not found (it lives in ../shared beside the checkout); nothing to compare.`);
    publishedFiles(percentile);
    truthSets();
    return;
  }
  const cases = JSON.parse(fs.readFileSync(file, 'utf8')) as MeasuredCase[];
  const rows: Array<{ id: string; metric: string; measured: number; estimated: number; err: number; phase: string }> =
    [];
  const skipped: string[] = [];
  for (const c of cases) {
    const compared = compareCase(c);
    if (!compared.ok) {
      skipped.push(`${c.id}: ${compared.reason}`);
      continue;
    }
    const { r, cmp } = compared;
    if (process.env.CASE && c.id.includes(process.env.CASE)) {
      for (const ph of r.estimate.perGpu.phases) {
        console.log(`  [${ph.phase}] ${(ph.allocatedBytes / GiB).toFixed(2)} GiB`);
        for (const comp of ph.components)
          console.log(`      ${comp.label.padEnd(50)} ${(comp.bytes / GiB).toFixed(3)}  ${comp.formula}`);
      }
      for (const rt of r.estimate.perGpu.runtime) console.log(`  + ${rt.label} ${(rt.bytes / GiB).toFixed(3)}`);
    }
    rows.push({
      id: c.id,
      metric: cmp.metric,
      measured: cmp.measuredGiB,
      estimated: cmp.estimatedGiB,
      err: (cmp.estimatedGiB - cmp.measuredGiB) / cmp.measuredGiB,
      phase: r.estimate.perGpu.phase,
    });
  }
  const pad = (s: string, n: number): string => (s.length >= n ? s.slice(0, n) : s + ' '.repeat(n - s.length));
  console.log(
    `${pad('case', 44)} ${pad('metric', 22)} ${pad('measured', 9)} ${pad('estimate', 9)} ${pad('error', 8)} phase`,
  );
  for (const r of rows) {
    const error = `${r.err >= 0 ? '+' : ''}${(r.err * 100).toFixed(1)}%`;
    console.log(
      `${pad(r.id, 44)} ${pad(r.metric, 22)} ${pad(r.measured.toFixed(2), 9)} ${pad(r.estimated.toFixed(2), 9)} ` +
        `${pad(error, 8)} ${r.phase}`,
    );
  }
  const abs = rows.map((r) => Math.abs(r.err));
  console.log('');
  console.log(`cases: ${rows.length} compared, ${skipped.length} skipped`);
  const median = percentile(abs, 0.5) * 100;
  const p90 = percentile(abs, 0.9) * 100;
  console.log(`overall: median |error| ${median.toFixed(2)}%, p90 ${p90.toFixed(2)}%`);
  // The verdict on the exact figures: a p90 of 12.002 % prints as 12.00 % but is above a 12 % target.
  const verdict = (x: number, target: number): string => `${x <= target ? 'met' : 'not met'} (${x.toFixed(3)}%)`;
  console.log(`targets: median <= 5%: ${verdict(median, 5)}; p90 <= 12%: ${verdict(p90, 12)}`);
  const metrics = [...new Set(rows.map((r) => r.metric))];
  for (const m of metrics) {
    const xs = rows.filter((r) => r.metric === m).map((r) => Math.abs(r.err));
    console.log(
      `  ${pad(m, 22)} n=${xs.length}: median ${(percentile(xs, 0.5) * 100).toFixed(1)}%, p90 ${(percentile(xs, 0.9) * 100).toFixed(1)}%`,
    );
  }
  for (const s of skipped) console.log(`skipped ${s}`);
  collectedSet();
  publishedFiles(percentile);
  truthSets();
}

/**
 * The published measurements collected from their sources (test/published/measured-collected), estimated as the shared
 * set is: the median, p90 and worst low case, per source and in all.
 */
function collectedSet(): void {
  const file = path.resolve(__dirname, '..', 'test', 'published', 'measured-collected', 'cases.json');
  if (!fs.existsSync(file)) return;
  const cases = JSON.parse(fs.readFileSync(file, 'utf8')) as MeasuredCase[];
  const rows: Err[] = [];
  const bySource = new Map<string, Err[]>();
  for (const c of cases) {
    const compared = compareCase(c);
    if (!compared.ok) continue;
    const e = { id: c.id, err: compared.cmp.estimatedGiB / compared.cmp.measuredGiB - 1 };
    rows.push(e);
    const source = c.source?.repo?.split(' ')[0] ?? 'other';
    bySource.set(source, [...(bySource.get(source) ?? []), e]);
  }
  console.log('');
  console.log('published measurements collected from their sources (test/published/measured-collected):');
  for (const [name, xs] of [...bySource, ['all', rows] as const]) console.log(`  ${summary(name, xs)}`);
}

/** A set's size, median and p90 absolute error and its worst low case. */
function summary(name: string, xs: readonly Err[]): string {
  const abs = xs.map((x) => Math.abs(x.err));
  const low = xs.reduce((m, x) => (x.err < m.err ? x : m));
  return (
    `${name} n=${xs.length}: median ${(percentile(abs, 0.5) * 100).toFixed(1)}%, p90 ` +
    `${(percentile(abs, 0.9) * 100).toFixed(1)}%, worst low ${(low.err * 100).toFixed(1)}% (${low.id})`
  );
}

main();
