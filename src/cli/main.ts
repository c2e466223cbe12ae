// `vram-lens estimate <files...>`: reads files, resolves the setup, prints the per-GPU estimate as a table or
// JSON. Exit status per DESIGN.md: 0 printed an estimate; 1 only with --check when it does not fit; 2 bad input
// or usage, with a one-line reason on stderr naming the file, line and key when there is one.
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { runPipeline, type InputFile, type PipelineResult } from '../analyzers/pipeline';
import { firstHeredoc } from '../analyzers/heredoc';
import type { ModelResolver, Overrides } from '../analyzers/resolve';
import type { Problem } from '../analyzers/scenario';
import { runOnCpu, runTrains } from '../analyzers/trains';
import { advise, type AdviceResult } from '../core';
import type { GpuSpec } from '../core';
import { estimate } from '../core';
import { editableFiles, editsForChanges, type FixFile } from '../features/fixes';
import { formatBytes } from '../core';
import { findGpu } from '../core';
import type { Estimate, TrainingSetup } from '../core';
import { offlineModelResolver, prefetchModelResolver } from '../node/models';
import { nodeFileReader, projectTopOf } from '../node/files';
import { launchersOf, runsModuleEntry } from '../node/launchers';
import { impliedRunOf, optionNaming } from '../node/config-readers';
import { CLI_READ_BUDGET_MS, readBounded, readPolicy } from '../node/read';
import { renderTable } from './table';
import type { Provenance } from '../core';
import { shippedZeroConfigFor } from '../analyzers/shipped-zero';

const USAGE = `usage: vram-lens estimate <config-file>... [--model <hub-id | dir | config.json>] [--gpu <name | size>]
                          [--gpus <n>] [--nodes <n>] [--seq-len <n>] [--json] [--check] [--advise] [--allow-network]`;

export class UsageError extends Error {}

export interface Io {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function positiveInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} expects a positive integer, got '${v}'`);
  return n;
}

function readUserFile(file: string, cwd: string): string {
  const r = readBounded(path.resolve(cwd, file), 'config');
  if (!r.ok)
    throw new UsageError(
      `${file}: ${r.missing ? 'no such file' : r.reason === 'a directory, not a file' ? 'is a directory, not a config file' : r.reason}`,
    );
  return r.text;
}

/** The warnings at their places in the run's files, for --json (the notes of where a file was found left out). */
function jsonProblems(problems: readonly Problem[]): Record<string, unknown>[] {
  return problems
    .filter((p) => p.severity === 'warning')
    .map((p) => ({
      file: p.file,
      line: p.line,
      column: p.column,
      severity: p.severity,
      code: p.code,
      key: p.key ?? null,
      message: p.message,
    }));
}

function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.severity}${p.key ? ` [${p.key}]` : ''}: ${p.message} (${p.code})`;
}

/**
 * Terminal control characters (escape sequences that clear the screen, forge hyperlinks or set the window title,
 * carriage returns that overwrite a line) and bidirectional overrides, removed from everything the CLI prints, since
 * file names and messages quote the user's files. Line feeds and tabs stay.
 */
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069]/g;

export function terminalSafe(s: string): string {
  return s.replace(TERMINAL_CONTROLS, '');
}

/** The estimate command's flags and files, as parsed. */
interface Command {
  readonly files: readonly string[];
  readonly model?: string;
  readonly gpu?: string;
  readonly gpus?: string;
  readonly nodes?: string;
  readonly seqLen?: string;
  readonly json: boolean;
  readonly check: boolean;
  readonly help: boolean;
  readonly allowNetwork: boolean;
  readonly advise: boolean;
}

/** Runs the CLI; resolves to the exit status. */
export async function run(argv: readonly string[], rawIo: Io): Promise<number> {
  const io: Io = { ...rawIo, out: (s) => rawIo.out(terminalSafe(s)), err: (s) => rawIo.err(terminalSafe(s)) };
  try {
    const [cmd, ...rest] = argv;
    if (cmd === '--help' || cmd === '-h' || cmd === undefined) {
      io.out(USAGE);
      return cmd === undefined ? 2 : 0;
    }
    if (cmd !== 'estimate') throw new UsageError(`unknown command '${cmd}'`);
    const c = parseCommand(rest);
    if (c.help) {
      io.out(USAGE);
      return 0;
    }
    return await estimateCommand(c, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`vram-lens: ${e.message}`);
      io.err(USAGE);
      return 2;
    }
    throw e;
  }
}

/** The estimate command's arguments; a usage error for an unknown flag or no file and no model. */
function parseCommand(args: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        model: { type: 'string' },
        gpu: { type: 'string' },
        gpus: { type: 'string' },
        nodes: { type: 'string' },
        'seq-len': { type: 'string' },
        json: { type: 'boolean' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        'allow-network': { type: 'boolean' },
        advise: { type: 'boolean' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]);
  }
  const v = parsed.values;
  const c: Command = {
    files: parsed.positionals,
    model: v.model,
    gpu: v.gpu,
    gpus: v.gpus,
    nodes: v.nodes,
    seqLen: v['seq-len'],
    json: v.json === true,
    check: v.check === true,
    help: v.help === true,
    allowNetwork: v['allow-network'] === true,
    advise: v.advise === true,
  };
  if (!c.help && c.files.length === 0 && c.model === undefined) throw new UsageError('no config file given');
  return c;
}

/**
 * A reader of the working folder's files with the CLI's reading budget (CLI_READ_BUDGET_MS), starting now. The data
 * files a script loads are read inside the working folder and inside the project of each file given (projectTopOf):
 * `vram-lens estimate ../run/train.sh` reads the DeepSpeed JSON its script loads beside it.
 */
const cliReader = (cwd: string, given: readonly string[]): ReturnType<typeof nodeFileReader> =>
  nodeFileReader(cwd, readPolicy(undefined, CLI_READ_BUDGET_MS), [
    cwd,
    ...given.map((f) => projectTopOf(path.resolve(cwd, f))),
  ]);

/** Reads the files, resolves the run, estimates it and prints the table or JSON (and the advice); the exit status. */
async function estimateCommand(c: Command, io: Io): Promise<number> {
  const inputs: InputFile[] = c.files.map((f) => ({ file: f, text: readUserFile(f, io.cwd) }));
  const overrides: Overrides = {
    model: c.model,
    gpu: c.gpu,
    gpusPerNode: positiveInt('--gpus', c.gpus),
    nodes: positiveInt('--nodes', c.nodes),
    seqLen: positiveInt('--seq-len', c.seqLen),
    origin: 'flag',
  };
  const res = (await launchedRun(c, io, inputs, overrides)) ?? (await resolveRun(c, io, inputs, overrides));
  if (res.unrecognized.length > 0) {
    io.err(unrecognizedFormat(res.unrecognized[0], inputs));
    return 2;
  }
  const errors = res.problems.filter((p) => p.severity === 'error');
  // Warnings, and the notes that say which file a reference was read from.
  for (const p of res.problems.filter(
    (p) =>
      p.severity === 'warning' ||
      (p.severity === 'info' &&
        [
          'reference-found-above',
          'reference-not-found',
          'read-by-name',
          'readme-launch',
          'several-launches',
          'model-config-overrides',
          'pinned-release',
        ].includes(p.code)),
  ))
    io.err(formatProblem(p));
  if (errors.length > 0 || !res.setup) {
    for (const p of errors) io.err(formatProblem(p));
    if (errors.length === 0) io.err('vram-lens: no setup could be resolved');
    return 2;
  }
  const chosen = res.gpu ? chosenGpu(res.gpu) : undefined;
  if (chosen && !chosen.ok) {
    io.err(chosen.message);
    return 2;
  }
  const gpu = chosen?.gpu;
  const r = estimate(res.setup, { gpu, provenance: res.provenance });
  if (!r.ok) {
    for (const e of r.errors) io.err(estimateError(e, res, c.files));
    return 2;
  }
  const e = r.estimate;
  const advice = c.advise ? adviceOutput(c, res, res.setup, inputs, { gpu, gpuSpec: chosen?.spec, e }) : undefined;
  const hint =
    !c.advise && e.fits === false
      ? '\n\nit does not fit: --advise lists the changes that make it fit, cheapest first'
      : '';
  io.out(
    c.json
      ? JSON.stringify(
          { ...toJson(e), problems: jsonProblems(res.problems), ...(advice?.json ? { advice: advice.json } : {}) },
          null,
          2,
        )
      : renderTable(e) + (advice?.text ?? '') + hint,
  );
  if (c.check) {
    if (e.fits === undefined) {
      io.err('vram-lens: --check needs a GPU (--gpu or `gpu:` in the file)');
      return 2;
    }
    return e.fits ? 0 : 1;
  }
  return 0;
}

/**
 * One file given alone (no --model): as the editor shows a file of a run, the run of the first file under the working
 * folder that runs it and gives a setup that trains (a launch line's flags and GPUs over a script's defaults, a config
 * with the launcher that runs it), said on stderr; its own run where no such file is, or where it fails for another
 * reason than the model. Where it names no model alone (a training script whose model comes from its launch line, a
 * DeepSpeed config) or is no config detection knows (a thin training entry point), a run that only loads the model
 * is taken too, and then a file that reads it (readerRun). With --model the same: the flag gives the model of whichever
 * run is read (a config whose model is a folder on another machine still gets its launcher's GPUs).
 * Undefined for several files: they are read as given.
 */
async function launchedRun(
  c: Command,
  io: Io,
  inputs: readonly InputFile[],
  overrides: Overrides,
): Promise<PipelineResult | undefined> {
  if (inputs.length !== 1) return undefined;
  const alone = await resolveRun(c, io, inputs, overrides);
  const unread = alone.unrecognized.length > 0 || alone.problems.some((p) => p.code === 'unknown-model');
  // A project's config read by its names alone: the run of a file that reads it, where one gives a setup, is truer.
  const byName = alone.files.some((f) => f.facts.format === 'project-yaml');
  const own = !byName && (alone.setup !== undefined || !unread);
  if (own && !alone.setup) return alone;
  const reader = cliReader(io.cwd, [inputs[0].file]);
  const file = path.resolve(io.cwd, inputs[0].file);
  const launchers = launchersOf(file, io.cwd, reader);
  let firstRead: { run: PipelineResult; said: string } | undefined;
  let firstEstimated: { run: PipelineResult; said: string } | undefined;
  // A run that trains on the CPU (a debug launcher) is taken only where no other run of the file trains on GPUs.
  let firstOnCpu: { run: PipelineResult; said: string } | undefined;
  for (const launcher of launchers) {
    const text = reader.read(launcher);
    if (text === undefined) continue;
    // A Python module another Python file reaches is one it imports (`from config import Config`): the importer's run
    // reads what it takes of it, and the module is no config of the run's own.
    const imports = /\.py$/i.test(file) && /\.py$/i.test(launcher);
    // A script that takes helpers of another script, without running its main block, is no run of that script.
    if (imports && own && !runsModuleEntry(file, inputs[0].text, text)) continue;
    // A script whose option's default names the file runs with that option (not a README's command giving another);
    // else the file by the path the launcher's reference resolves to, so that it is read once, as the launcher runs it.
    const named = optionNaming(launcher, text, file, reader);
    const run = await resolveRun(
      c,
      io,
      named
        ? [{ file: launcher, text, args: named }]
        : [{ file: launcher, text }, ...(imports ? [] : [{ ...inputs[0], file }])],
      overrides,
    );
    // A JSON / YAML file no format takes alone is a data file the script loads: said to be read, not run.
    const unrecognized = (r: PipelineResult): boolean => r.unrecognized.some((u) => path.resolve(io.cwd, u) === file);
    const data = (byName || unrecognized(alone)) && !unrecognized(run) && /\.(json|ya?ml)$/i.test(file);
    const others =
      launchers.length > 1 ? ` (${launchers.length - 1} other file(s) ${data ? 'read' : 'run'} it too)` : '';
    const whatItIs = own ? 'is part of a run' : data ? 'is not a config alone' : 'gives no estimate alone';
    const said =
      `vram-lens: ${inputs[0].file} ${whatItIs}; read as the run of ` +
      `${path.relative(io.cwd, launcher)}, which ${data ? 'reads' : imports ? 'imports' : 'runs'} it${others}`;
    if (run.setup && trains(run) && runOnCpu(run.files)) {
      firstOnCpu ??= { run, said };
      continue;
    }
    if (run.setup && trains(run)) {
      io.err(said);
      return run;
    }
    if (own) continue;
    // A run that loads the model and trains nothing (an evaluation script that reads the same config) is taken only
    // where no other run of the file trains.
    if (run.setup && !firstEstimated) firstEstimated = { run, said };
    // A data file that its first run reads: that run's problems say what stops the estimate (its model unknown
    // offline), at their places, where the file alone says only its format.
    if (data && !firstRead) firstRead = { run, said };
  }
  if (firstOnCpu) io.err(firstOnCpu.said);
  if (firstOnCpu) return firstOnCpu.run;
  // Training arguments no file names (an HfArgumentParser JSON of yangjianxin1/Firefly's train_args/dpo/lora/): the
  // run of the script that reads files like it, where one reads it and trains, is truer than the keys alone.
  const argumentsFile = launchers.length === 0 && alone.files.some((f) => f.facts.format === 'hf-yaml');
  const read =
    own && argumentsFile
      ? await readerRun(c, io, { file, alone, overrides, byName: true, given: 'holds training arguments' })
      : undefined;
  if (read?.run.setup && trains(read.run)) {
    io.err(read.said);
    return read.run;
  }
  if (own) return alone;
  // Read by its names, the file is a training config: a run that trains nothing (a merge or evaluation script that
  // reads it too) is not truer than its own reading.
  const implied =
    (byName ? undefined : (firstEstimated ?? firstRead)) ??
    (await readerRun(c, io, { file, alone, overrides, byName }));
  // Read by its names, the file's own estimate stands where no file that reads it gives one.
  const chosen = byName && !implied?.run.setup ? undefined : implied;
  if (chosen) io.err(chosen.said);
  return chosen?.run ?? alone;
}

/**
 * A YAML / JSON file that no file of the project runs or reads (one no format takes, or a project's config read by its
 * names, `byName`): the run of the script that takes files like it through a config option, or of its launcher
 * (node/config-readers.ts), resolved as the other runs are.
 */
async function readerRun(
  c: Command,
  io: Io,
  how: { file: string; alone: PipelineResult; overrides: Overrides; byName: boolean; given?: string },
): Promise<{ run: PipelineResult; said: string } | undefined> {
  const { file, alone, overrides, byName } = how;
  if (!byName && !alone.unrecognized.some((u) => path.resolve(io.cwd, u) === file)) return undefined;
  const implied = impliedRunOf(file, io.cwd, cliReader(io.cwd, [file]));
  if (!implied) return undefined;
  const run = await resolveRun(c, io, implied.inputs, overrides);
  const what = how.given ?? 'is not a config alone';
  const given = `vram-lens: ${path.relative(io.cwd, file)} ${what} and no file of the project names it`;
  return { run, said: `${given}; ${implied.said}` };
}

/** Whether a file of the run trains: a trainer, a training loop, a launcher or a training tool's config. */
const trains = (run: PipelineResult): boolean => runTrains(run.files);

/**
 * The pipeline over the files, offline; with --allow-network, a second pass that fetches from the Hub the model the
 * files name (or --model) when it was unknown, then resolves synchronously again.
 */
async function resolveRun(
  c: Command,
  io: Io,
  inputs: readonly InputFile[],
  overrides: Overrides,
): Promise<PipelineResult> {
  const env = io.env ?? process.env;
  const reader = cliReader(
    io.cwd,
    inputs.map((f) => f.file),
  );
  const resolver: ModelResolver = offlineModelResolver({ cwd: io.cwd, env, networkHint: '--allow-network' });
  const res = runPipeline([...inputs], reader, overrides, resolver);
  if (res.unrecognized.length > 0 || !c.allowNetwork || res.setup) return res;
  if (!res.problems.some((p) => p.code === 'unknown-model')) return res;
  const ref = overrides.model ?? modelRef(res);
  if (!ref) return res;
  const online = await prefetchModelResolver([ref], {
    cwd: io.cwd,
    env,
    allowNetwork: true,
    networkHint: '--allow-network',
  });
  return runPipeline([...inputs], reader, overrides, online);
}

/** An estimate error at the file and line that set the value, when the provenance knows them. */
function estimateError(e: { key: string; message: string }, res: PipelineResult, files: readonly string[]): string {
  const prov = res.provenance as Readonly<Record<string, Provenance | undefined>>;
  const p = prov[e.key] ?? prov[e.key.split('.')[0]];
  const at = p?.kind === 'file' ? `${p.file}${p.line !== undefined ? `:${p.line}` : ''}` : (files[0] ?? 'setup');
  return `${at}: error [${e.key}]: ${e.message}`;
}

/**
 * --advise: the changes that make the run fit, written for the files that would change (the config files and the
 * scenarios), as JSON or text.
 */
function adviceOutput(
  c: Command,
  res: PipelineResult,
  setup: TrainingSetup,
  inputs: readonly InputFile[],
  target: { gpu: ChosenGpu['gpu'] | undefined; gpuSpec: GpuSpec | undefined; e: Estimate },
): { json?: unknown[]; text?: string } {
  const files: FixFile[] = [
    ...editableFiles(res.files),
    ...inputs
      .filter((i) => res.scenarios.some((s) => s.file === i.file))
      .map((i) => ({
        file: i.file,
        text: i.text,
        format: 'scenario' as const,
        facts: { format: 'scenario' as const, facts: [], problems: [], references: [], tools: [] },
      })),
  ];
  const primary = files[files.length - 1]?.file ?? '';
  // ZeRO changes are written into the primary file, pointing it at its tool's shipped DeepSpeed config.
  const zeroConfigFor = shippedZeroConfigFor(files[files.length - 1]?.facts, setup);
  const a = advise(setup, { gpu: target.gpu, gpuSpec: target.gpuSpec, provenance: res.provenance, zeroConfigFor });
  if (c.json) return { json: a ? adviceToJson(a, files, primary) : [] };
  return { text: a ? renderAdvice(a, target.e.gpu?.id, files, primary) : '' };
}

/**
 * The error for a file no analyzer reads, located like every other error (file:line:col): at the first heredoc when
 * the file has one (its body is not read), else at the top of the file.
 */
function unrecognizedFormat(f: string, inputs: readonly InputFile[]): string {
  const text = inputs.find((i) => i.file === f)?.text;
  // (`<<` in Python, JSON or YAML is not a heredoc: `1 << bits`.)
  const h = text === undefined || /\.(py|json|jsonc|hjson|ya?ml|toml)$/i.test(f) ? undefined : firstHeredoc(text);
  const kinds =
    'DeepSpeed JSON, HF/TRL Python, launch script, Accelerate, Axolotl, LLaMA-Factory, torchtune or LitGPT YAML, or a *.vram.yaml scenario';
  return h
    ? `${f}:${h.line}:${h.column}: error: not a recognised training config (${kinds}): ` +
        `heredocs (<<${h.delimiter}) are not read, and no command outside one is a training command (unrecognized-format)`
    : `${f}:1:1: error: not a recognised training config (${kinds}) (unrecognized-format)`;
}

/** A GPU of the catalog (or a size), with its peer link, for the estimate and the advice. */
interface ChosenGpu {
  readonly ok: true;
  readonly gpu: { id: string; memoryBytes: number; source: string; nvlink?: boolean };
  readonly spec: GpuSpec | undefined;
}

/** The GPU a run names, with whether its peer link is NVLink, or the closest catalog names. */
function chosenGpu(name: string): ChosenGpu | { ok: false; message: string } {
  const g = findGpu(name);
  if (!g.ok)
    return {
      ok: false,
      message: `unknown GPU '${name}'; closest catalog names: ${g.suggestions.join(', ')} (or give a size such as 24GiB)`,
    };
  const nvlink = g.gpu.spec?.peerLink ? g.gpu.spec.peerLink.kind === 'nvlink' : undefined;
  return { ok: true, gpu: { ...g.gpu, nvlink }, spec: g.gpu.spec };
}

/** The advice list for --json: cheapest first, each with its changes, cost, new estimate and edits. */
function adviceToJson(a: AdviceResult, files: readonly FixFile[], primary: string): unknown[] {
  return a.items.map((i) => {
    const plan = editsForChanges(i.changes, files, primary);
    const est = toJson(i.estimate) as { perGpu: unknown };
    return {
      id: i.id,
      title: i.title,
      changes: i.changes.map((c) => ({ key: c.key, value: c.value })),
      savedBytes: i.savedBytes,
      stepTimeFactor: Number(i.stepTimeFactor.toFixed(4)),
      changesResult: i.changesResult,
      fits: i.fits,
      gpus: i.gpus,
      estimate: est.perGpu,
      costExplain: i.costExplain,
      edits: plan.edits,
      unsupported: plan.unsupported,
    };
  });
}

/**
 * The advice as text under the table. An item whose changes cannot all be written into the given files (a key the
 * format has no setting for, a method switch that needs new code) says why, as the quick fixes and the panel do.
 */
function renderAdvice(a: AdviceResult, gpu: string | undefined, files: readonly FixFile[], primary: string): string {
  const L: string[] = [
    '',
    `advice (${a.evaluated} candidate setups evaluated${gpu ? ` for ${gpu}` : ''}; cheapest first):`,
  ];
  if (a.items.length === 0) L.push('  nothing found that fits: more GPUs or a smaller model are needed');
  for (const [n, i] of a.items.slice(0, 12).entries()) {
    const pct = Math.round((i.stepTimeFactor - 1) * 100);
    L.push(`  ${n + 1}. ${i.title}`);
    L.push(
      `     ${formatBytes(i.deviceBytes)} per GPU (-${formatBytes(i.savedBytes)}), ` +
        `step time ${pct >= 0 ? '+' : ''}${pct}%${i.changesResult ? ', changes what is trained' : ''}${i.gpus > 1 ? `, ${i.gpus} GPUs` : ''}`,
    );
    if (files.length === 0) continue;
    const { unsupported } = editsForChanges(i.changes, files, primary);
    if (unsupported.length > 0) L.push(`     not written by a quick fix: ${unwritable(unsupported, files)}`);
  }
  if (a.maxMicroBatch !== undefined) L.push(`largest micro-batch that fits: ${a.maxMicroBatch}`);
  if (a.maxSeqLen !== undefined) L.push(`longest sequence that fits: ${a.maxSeqLen}`);
  if (a.gpusNeeded !== undefined) L.push(`GPUs needed with sharded model states: ${a.gpusNeeded}`);
  return L.join('\n');
}

/**
 * Why advice cannot be written, once per reason: the file named once, and "<tool> has no setting (key) for a", "... for b"
 * merged into one clause ("torchtune has no setting for gpus_per_node, zero_stage").
 */
function unwritable(unsupported: readonly { key: string; reason: string }[], files: readonly FixFile[]): string {
  const byFile = new Map<string, string[]>();
  for (const { reason } of unsupported) {
    const f = files.find((x) => reason.startsWith(`${x.file}: `) || reason.startsWith(`${x.file} `));
    const file = f?.file ?? '';
    const text = f && reason.startsWith(`${f.file}: `) ? reason.slice(f.file.length + 2) : reason;
    const list = byFile.get(file) ?? [];
    const m = /^(.*) has no (setting|key) for (\S+)$/.exec(text);
    const prev = m ? list.findIndex((r) => r.startsWith(`${m[1]} has no ${m[2]} for `)) : -1;
    if (m && prev >= 0) list[prev] += `, ${m[3]}`;
    else if (!list.includes(text)) list.push(text);
    byFile.set(file, list);
  }
  return [...byFile]
    .map(([file, rs]) => (file && rs.every((r) => !r.startsWith(file)) ? `${file}: ${rs.join('; ')}` : rs.join('; ')))
    .join('; ');
}

/** The model reference the files name (a scenario `model:` or a config fact), for the network pass. */
function modelRef(res: PipelineResult): string | undefined {
  const fromFacts = res.decided.model?.fact.value;
  if (typeof fromFacts === 'string') return fromFacts;
  for (const s of res.scenarios) if (typeof s.values.model === 'string') return s.values.model;
  for (const f of res.files)
    for (const fact of f.facts.facts) if (fact.key === 'model' && typeof fact.value === 'string') return fact.value;
  return undefined;
}

/** The --json contract (DESIGN.md): stable field names, bytes as integers. */
export function toJson(e: Estimate): Record<string, unknown> {
  return {
    model: e.model,
    architecture: e.architecture,
    parameters: e.parameters,
    layout: e.layout,
    perGpu: {
      peakBytes: e.perGpu.peakBytes,
      reservedBytes: e.perGpu.reservedBytes,
      deviceBytes: e.perGpu.deviceBytes,
      phase: e.perGpu.phase,
      stage: e.perGpu.stage,
      components: e.perGpu.components.map((c) => ({
        id: c.id,
        label: c.label,
        bytes: c.bytes,
        formula: c.formula,
        inputs: c.inputs,
      })),
      runtime: e.perGpu.runtime,
      phases: e.perGpu.phases.map((p) => ({ phase: p.phase, allocatedBytes: p.allocatedBytes, note: p.note })),
      variableLengths: e.perGpu.variableLengths ?? null,
      pagedToHostBytes: e.perGpu.pagedToHostBytes ?? 0,
    },
    cpuBytes: e.cpuBytes,
    nvmeBytes: e.nvmeBytes,
    gpu: e.gpu ? { id: e.gpu.id, memoryBytes: e.gpu.memoryBytes, source: e.gpu.source } : null,
    fits: e.fits ?? null,
    headroomBytes: e.headroomBytes ?? null,
    assumptions: e.assumptions,
    warnings: e.warnings,
  };
}

if (require.main === module) {
  run(process.argv.slice(2), {
    out: (s) => process.stdout.write(`${s}\n`),
    err: (s) => process.stderr.write(`${s}\n`),
    cwd: process.cwd(),
  })
    .then((code) => {
      process.exitCode = code;
    })
    .catch((e: unknown) => {
      process.stderr.write(`vram-lens: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 70;
    });
}
