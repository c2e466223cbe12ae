#!/usr/bin/env node
// Compares the estimator with the truth points (test/fixtures/truth/*.json): per point and per group, the error of
// the estimated peak allocated bytes against the measured peak of the measured step (rank 0).
//
//   node tools/truth/compare.mjs                 # every point, then the summary
//   node tools/truth/compare.mjs --summary       # the summary only
//   node tools/truth/compare.mjs --write-status  # rewrites test/fixtures/truth/status.json (passing / known gaps)
//   node tools/truth/compare.mjs --json          # one JSON object per point
//
// The estimator's core (src/core) is bundled on the fly with esbuild into tools/truth/out/core.cjs.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const fixtures = path.join(repo, 'test', 'fixtures', 'truth');
export const TOLERANCE = { within: 0.03, maxLow: 0.05 };
/** GPU points: the estimate's reserved and device bytes against max_memory_reserved and the device memory used. */
export const GPU_TOLERANCE = { within: 0.05 };

async function loadCore() {
  const outfile = path.join(here, 'out', 'core.cjs');
  await esbuild.build({
    stdin: {
      contents:
        "export { estimate } from './src/core/estimate'; export { TrainingSetupSchema } from './src/core/setup';" +
        "export { findGpu } from './src/core/lookup';",
      resolveDir: repo,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return createRequire(import.meta.url)(outfile);
}

export function loadPoints() {
  return fs
    .readdirSync(fixtures)
    .filter((f) => f.endsWith('.json') && f !== 'status.json')
    .sort()
    .flatMap((f) => JSON.parse(fs.readFileSync(path.join(fixtures, f), 'utf8')).points);
}

function estimateOf(core, point) {
  // A GPU point is estimated for the GPU it ran on: its memory bounds what the allocator keeps cached.
  const gpu = point.machine === 'gpu' ? core.findGpu(point.gpu) : undefined;
  const r = core.estimate(core.TrainingSetupSchema.parse(point.scenario), gpu?.ok ? { gpu: gpu.gpu } : {});
  if (!r.ok) return { error: JSON.stringify(r.error ?? r) };
  const g = r.estimate.perGpu;
  return {
    peakBytes: g.peakBytes,
    reservedBytes: g.reservedBytes,
    deviceBytes: g.deviceBytes - fakeGroupNccl(point, g),
    phase: g.phase,
    phases: Object.fromEntries(g.phases.map((p) => [p.phase, p.allocatedBytes])),
  };
}

/**
 * The GPU points run rank 0 of a fake process group (tools/truth/gpu/run.py): no NCCL communicator, so the device
 * memory they measure holds none of the NCCL buffers the estimate counts for a real multi-GPU run.
 */
function fakeGroupNccl(point, perGpu) {
  if (point.machine !== 'gpu') return 0;
  return perGpu.runtime.filter((t) => t.id.startsWith('nccl')).reduce((s, t) => s + t.bytes, 0);
}

function method(p) {
  const s = p.scenario;
  if (s.method === 'lora') return s.lora?.use_dora ? 'dora' : 'lora';
  return s.method ?? 'full';
}

export function groupsOf(p) {
  return {
    suite: p.id.split('/')[0],
    runner: p.harness.runner ?? 'loop',
    parallel: p.harness.parallel ?? 'none',
    method: method(p),
    family: p.scenario.architecture.model_type,
    world: `w${p.worldSize}`,
    offload: p.offloadSeparated ? 'offload' : 'resident',
    checkpointing:
      p.scenario.gradient_checkpointing && p.scenario.gradient_checkpointing !== 'none'
        ? p.harness.reentrant
          ? 'reentrant'
          : 'non-reentrant'
        : 'none',
  };
}

const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))];
};

function summarize(rows, label, ok = passes) {
  const abs = rows.map((r) => Math.abs(r.err));
  const worstLow = rows.reduce((m, r) => (r.err < m.err ? r : m), rows[0]);
  const worstHigh = rows.reduce((m, r) => (r.err > m.err ? r : m), rows[0]);
  const pass = rows.filter((r) => ok(r.err)).length;
  return (
    `${label.padEnd(28)} n=${String(rows.length).padStart(3)}  median |err| ${pct(quantile(abs, 0.5)).padStart(8)}  ` +
    `p90 ${pct(quantile(abs, 0.9)).padStart(8)}  worst low ${pct(worstLow.err).padStart(8)} (${worstLow.id})  ` +
    `worst high ${pct(worstHigh.err).padStart(8)}  within tolerance ${pass}`
  );
}

export function passes(err) {
  return Math.abs(err) <= TOLERANCE.within && err >= -TOLERANCE.maxLow;
}

async function main() {
  const args = new Set(process.argv.slice(2));
  const core = await loadCore();
  const rows = [];
  for (const p of loadPoints()) {
    const e = estimateOf(core, p);
    if (e.error) {
      console.log(`${p.id}: estimator error ${e.error}`);
      continue;
    }
    rows.push({
      id: p.id,
      measured: p.peakBytes,
      measuredPhase: p.peakPhase,
      est: e.peakBytes,
      estPhase: e.phase,
      err: (e.peakBytes - p.peakBytes) / p.peakBytes,
      phases: Object.fromEntries(
        Object.entries(p.phases).map(([k, v]) => [k, { measured: v.peakBytes, est: e.phases[k] ?? null }]),
      ),
      groups: groupsOf(p),
      ...(p.machine === 'gpu'
        ? {
            reservedErr: (e.reservedBytes - p.reservedBytes) / p.reservedBytes,
            deviceErr: (e.deviceBytes - p.deviceBytes) / p.deviceBytes,
          }
        : {}),
    });
  }
  if (args.has('--json')) {
    for (const r of rows) console.log(JSON.stringify(r));
    return;
  }
  if (!args.has('--summary')) {
    for (const r of rows) {
      const ph = Object.entries(r.phases)
        .map(([k, v]) => `${k} ${v.est === null ? 'n/a' : pct((v.est - v.measured) / v.measured)}`)
        .join(', ');
      console.log(
        `${r.id.padEnd(48)} measured ${r.measured.toLocaleString('en-US').padStart(12)} (${r.measuredPhase})  ` +
          `estimate ${r.est.toLocaleString('en-US').padStart(12)} (${r.estPhase})  ${pct(r.err).padStart(8)}   [${ph}]`,
      );
    }
    console.log('');
  }
  console.log(summarize(rows, 'all points'));
  for (const key of ['suite', 'runner', 'parallel', 'method', 'family', 'world', 'offload', 'checkpointing']) {
    console.log(`\nby ${key}`);
    const groups = new Map();
    for (const r of rows) groups.set(r.groups[key], [...(groups.get(r.groups[key]) ?? []), r]);
    for (const [g, rs] of [...groups].sort()) console.log('  ' + summarize(rs, g));
  }
  const gpu = rows.filter((r) => r.reservedErr !== undefined);
  if (gpu.length > 0) {
    console.log('\nGPU points, reserved and device memory (tolerance 5 % either way)');
    for (const key of ['reservedErr', 'deviceErr'])
      console.log(
        '  ' +
          summarize(
            gpu.map((r) => ({ ...r, err: r[key] })),
            key === 'reservedErr' ? 'reserved' : 'device',
            gpuPasses,
          ),
      );
  }
  if (args.has('--write-status')) writeStatus(rows);
}

export function gpuPasses(err) {
  return Math.abs(err) <= GPU_TOLERANCE.within;
}

function split(rows, err, ok) {
  return {
    passing: rows
      .filter((r) => ok(r[err]))
      .map((r) => r.id)
      .sort(),
    knownGaps: Object.fromEntries(
      rows
        .filter((r) => !ok(r[err]))
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((r) => [r.id, Number(r[err].toFixed(4))]),
    ),
  };
}

function writeStatus(rows) {
  const status = {
    comment:
      'Written by tools/truth/compare.mjs --write-status. ' +
      'passing: points whose estimate is within tolerance (test/unit/truth-golden.test.ts asserts it). ' +
      'knownGaps: the error of the other points when this file was written; ' +
      'the test fails when one of them gets worse by more than 1 point, or passes (then move it).',
    tolerance: TOLERANCE,
    ...split(rows, 'err', passes),
    gpu: {
      comment:
        'GPU points (gpu.json): the estimate of reserved bytes against max_memory_reserved and of device bytes against ' +
        'the device memory used (test/unit/truth-gpu.test.ts asserts both lists as above).',
      tolerance: GPU_TOLERANCE,
      reserved: split(
        rows.filter((r) => r.reservedErr !== undefined),
        'reservedErr',
        gpuPasses,
      ),
      device: split(
        rows.filter((r) => r.deviceErr !== undefined),
        'deviceErr',
        gpuPasses,
      ),
    },
  };
  fs.writeFileSync(path.join(fixtures, 'status.json'), JSON.stringify(status, null, 1) + '\n');
  console.log(`\nstatus.json: ${status.passing.length} passing, ${Object.keys(status.knownGaps).length} known gaps`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
