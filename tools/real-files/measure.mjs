#!/usr/bin/env node
// How many real training files (test/real-files) the CLI estimates, and why the others are refused.
//
//   node tools/real-files/measure.mjs [--json] [--skip-build] [--timeout-ms 5000] [--files DIR]
//
// Builds once (npm ci --no-audit --no-fund when node_modules is missing, then npm run build; --skip-build reuses
// dist/), then runs `node dist/cli.js estimate <file> --json` on every file of test/real-files/SOURCES.tsv, from the
// folder that stands for the file's repository root (the projects launch these files from there), with no Hugging
// Face cache (HOME, HF_HOME and HF_HUB_CACHE point nowhere) so the figures do not depend on the machine. The CLI
// follows the references itself. Reports the estimate rate over the files of a supported format that name a model
// (expected.json), the refusals grouped by cause with examples, whether each refusal is located (file:line:col), and
// the time per run.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const realDir = path.join(repo, 'test', 'real-files');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const asJson = flag('--json');
const timeoutMs = Number(option('--timeout-ms', '5000'));

/** Formats VRAM Lens reads (README): a file of another format is reported but not counted in the rate. */
const SUPPORTED = new Set([
  'deepspeed-json',
  'hf-python',
  'notebook',
  'shell',
  'accelerate-yaml',
  'axolotl-yaml',
  'llamafactory-yaml',
  'torchtune-yaml',
  'hf-yaml',
  'litgpt-yaml',
  'ms-swift',
  'verl-yaml',
  'llmfoundry-yaml',
]);

function log(s) {
  if (!asJson) process.stdout.write(`${s}\n`);
  else process.stderr.write(`${s}\n`);
}

function filesRoot() {
  const shared = path.resolve(repo, '..', 'shared', 'real-files', 'files');
  for (const d of [option('--files'), process.env.VRAM_LENS_REAL_FILES, path.join(realDir, 'files'), shared]) {
    if (d && fs.existsSync(d)) return path.resolve(d);
  }
  return undefined;
}

function build() {
  // npm ci only where nothing is installed: it empties node_modules first, which may be shared with other checkouts.
  const install = fs.existsSync(path.join(repo, 'node_modules', '.bin'))
    ? []
    : [['npm', ['ci', '--no-audit', '--no-fund']]];
  for (const cmd of [...install, ['npm', ['run', 'build']]]) {
    log(`$ ${cmd[0]} ${cmd[1].join(' ')}`);
    const r = spawnSync(cmd[0], cmd[1], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    if (r.status !== 0) {
      process.stderr.write(`${r.stdout}\n${r.stderr}\n`);
      throw new Error(`${cmd[0]} ${cmd[1].join(' ')} failed (exit ${r.status})`);
    }
  }
}

/** One CLI run with a wall-clock limit; resolves to its exit status, output and time. */
function runCli(file, cwd, env) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [path.join(repo, 'dist', 'cli.js'), 'estimate', file, '--json'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    });
  });
}

const LOCATED = /^(.+):(\d+):(\d+): error\b/;

/** The cause of a refusal, from the CLI's first error line. */
function causeOf(r) {
  if (r.timedOut) return 'timeout';
  if (r.code !== 0 && r.code !== 2) return 'crash';
  if (/internal error|\n\s+at .*\.js:\d+|TypeError|RangeError/.test(r.stderr)) return 'crash';
  const errors = r.stderr.split('\n').filter((l) => / error\b/.test(l) || l.startsWith('vram-lens:'));
  const first = errors[0] ?? '';
  if (/not a recognised training config/.test(first)) return 'not a recognised config';
  if (/no model found in these files/.test(first)) return 'no model found';
  if (/is not known statically/.test(first)) return 'model not known statically (variable, argument)';
  if (/unknown model '/.test(first)) return 'unknown model (not in the catalog, no cache)';
  if (/no such file or directory \(unknown-model\)/.test(first)) return 'model path not on disk';
  if (/trainable/.test(first)) return '0 trainable parameters';
  if (/no setup could be resolved/.test(first)) return 'no setup resolved';
  const code = /\(([a-z-]+)\)\s*$/.exec(first);
  return code ? `error: ${code[1]}` : `other: ${first.slice(0, 80)}`;
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main() {
  const root = filesRoot();
  if (!root) {
    process.stderr.write(
      'test/real-files/files is missing: run `node test/real-files/collect.mjs` first (see test/real-files/README.md)\n',
    );
    process.exitCode = 2;
    return;
  }
  if (!flag('--skip-build') || !fs.existsSync(path.join(repo, 'dist', 'cli.js'))) build();
  const expected = JSON.parse(fs.readFileSync(path.join(realDir, 'expected.json'), 'utf8')).files;
  const rows = fs
    .readFileSync(path.join(realDir, 'SOURCES.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
  const nowhere = path.join(os.tmpdir(), 'vram-lens-real-files-no-cache');
  const env = { ...process.env, HOME: nowhere, HF_HOME: nowhere, HF_HUB_CACHE: nowhere, XDG_CACHE_HOME: nowhere };
  const records = [];
  for (const [file, repository] of rows) {
    const exp = expected[file];
    const abs = path.join(root, file);
    const cwd = path.join(root, file.slice(0, file.indexOf('/')));
    const r = await runCli(abs, cwd, env);
    let estimated = false;
    let peakBytes = null;
    if (r.code === 0) {
      try {
        peakBytes = JSON.parse(r.stdout).perGpu.peakBytes;
        estimated = peakBytes > 0;
      } catch {
        estimated = false;
      }
    }
    const errorLines = r.stderr.split('\n').filter((l) => / error\b/.test(l) || l.startsWith('vram-lens:'));
    records.push({
      file,
      repository,
      format: exp.format,
      namesModel: typeof exp.model === 'string',
      supported: SUPPORTED.has(exp.format),
      exit: r.timedOut ? null : r.code,
      estimated,
      peakBytes,
      cause: estimated ? null : r.code === 0 ? 'exit 0 without an estimate' : causeOf(r),
      located: r.code === 2 ? errorLines.length > 0 && errorLines.every((l) => LOCATED.test(l)) : null,
      message: estimated
        ? null
        : (errorLines[0] ?? r.stderr.trim().split('\n')[0] ?? '').replaceAll(root + path.sep, ''),
      ms: Math.round(r.ms),
    });
  }
  const target = records.filter((x) => x.supported && x.namesModel);
  const summary = {
    files: records.length,
    target: target.length,
    targetEstimated: target.filter((x) => x.estimated).length,
    allEstimated: records.filter((x) => x.estimated).length,
    exit2: records.filter((x) => x.exit === 2).length,
    exit2Located: records.filter((x) => x.exit === 2 && x.located).length,
    crashes: records.filter((x) => x.cause === 'crash').length,
    timeouts: records.filter((x) => x.cause === 'timeout').length,
    ms: {
      median: percentile(
        records.map((x) => x.ms),
        50,
      ),
      p95: percentile(
        records.map((x) => x.ms),
        95,
      ),
      max: Math.max(...records.map((x) => x.ms)),
    },
  };
  const group = (list) => {
    const by = new Map();
    for (const x of list.filter((y) => !y.estimated)) {
      const g = by.get(x.cause) ?? [];
      g.push(x);
      by.set(x.cause, g);
    }
    return [...by]
      .sort((a, b) => b[1].length - a[1].length)
      .map(([cause, xs]) => ({
        cause,
        count: xs.length,
        examples: xs.slice(0, 3).map((x) => x.file),
        located: xs.filter((x) => x.located).length,
      }));
  };
  const byFormat = [...new Set(records.map((x) => x.format))].sort().map((f) => {
    const xs = records.filter((x) => x.format === f);
    return {
      format: f,
      files: xs.length,
      namesModel: xs.filter((x) => x.namesModel).length,
      estimated: xs.filter((x) => x.estimated).length,
      estimatedNamingModel: xs.filter((x) => x.estimated && x.namesModel).length,
    };
  });
  const result = { summary, causesInTarget: group(target), causesAll: group(records), byFormat, records };
  if (asJson) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const pad = (s, n) => String(s).padEnd(n);
  const lpad = (s, n) => String(s).padStart(n);
  log('');
  log(
    `${summary.targetEstimated} of ${summary.target} estimated: files in a supported format that name a model ` +
      `(${records.length} files in all, ${summary.allEstimated} estimated)`,
  );
  log(
    `exit 2: ${summary.exit2} files, ${summary.exit2Located} with every error at file:line:col; ` +
      `crashes: ${summary.crashes}; timeouts (${timeoutMs} ms): ${summary.timeouts}`,
  );
  log(
    `time per run: median ${summary.ms.median} ms, p95 ${summary.ms.p95} ms, max ${summary.ms.max} ms (a fresh node process each)`,
  );
  for (const [title, groups] of [
    ['not estimated, supported format naming a model', result.causesInTarget],
    ['not estimated, all files', result.causesAll],
  ]) {
    log('');
    log(`${title}:`);
    log(`  ${pad('cause', 48)} ${lpad('files', 5)} ${lpad('located', 7)}  examples`);
    for (const g of groups)
      log(`  ${pad(g.cause, 48)} ${lpad(g.count, 5)} ${lpad(g.located, 7)}  ${g.examples.join(', ')}`);
  }
  log('');
  log(
    `  ${pad('format', 18)} ${lpad('files', 5)} ${lpad('model', 5)} ${lpad('estimated', 9)} ${lpad('of those with model', 19)}`,
  );
  for (const f of byFormat)
    log(
      `  ${pad(f.format, 18)} ${lpad(f.files, 5)} ${lpad(f.namesModel, 5)} ${lpad(f.estimated, 9)} ${lpad(f.estimatedNamingModel, 19)}`,
    );
}

main().catch((e) => {
  process.stderr.write(`measure: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
