// From the files a user points at to one TrainingSetup: detect each file's format, analyze it, follow the
// references it makes (a DeepSpeed JSON named by TrainingArguments, a launcher flag, an Accelerate or Axolotl
// key) relative to the referencing file, then merge everything with precedence and tool defaults.
// Pure: file access goes through the FileReader the caller provides (the CLI and the extension each have one).
import { torchtuneBuiltin } from './yaml/torchtune-builtin';
import { bundledFileName, bundledNote, findBundledDeepspeed } from './deepspeed-json/bundled';
import { analyzeAs, detectFormat, type ReadingContext } from './detect';
import { variablesOf } from './shell';
import type { SourcedVariable, SourcedVariables } from './shell/sourced';
import { argumentEnvironment, withBranchesDecided, withLaunchArgs } from './launch-args';
import { CONFIG_OPTION, configFileArguments } from './config-arguments';
import {
  msg,
  type ConfigFacts,
  type ArgumentEnvironment,
  type Fact,
  type Format,
  type LaunchArgument,
  type ModuleContext,
  type Reference,
} from './facts';
import { catalogResolver, resolveScenarios, type ModelResolver, type Overrides } from './resolve';
import { locateOffset, resolveFacts, type AnalyzedFile, type FactResolution, type FileRole } from './resolve';
import { analyzeScenario, ScenarioSchema, type Location, type Problem, type ScenarioFacts } from './scenario';
import { olderThan, type Provenance, type ProvenanceMap, type TrainingSetup } from '../core';
import { ACCELERATE_FSDP_TOOLS, accelerateFsdpPatch } from './accelerate-fsdp';
import { TRAINER_DDP_TOOLS, trainerFindUnused } from './trainer-ddp';
import { RAM_EFFICIENT_ENV } from './shell/choices';
import { trlDefault, trlLoadDtype, trlLoadsPolicy, trlReferenceDtype, trlRewardDtype } from './trl-reference';
import { checkpointDtype } from './resolve/model';
import { withPinnedVersions } from './pinned-versions';
import { nanogptConfigArguments } from './hf-python/nanogpt';
import { hydraFiles, mergeFacts } from './hydra-files';
import { rl2Shipped, shippedHydraOrigin } from './hydra/rl2-shipped';
import { addScriptData, scriptDataFile } from './script-data';
import { findReference, projectModules, type FileReader } from './file-reader';

export { findReference, projectModules, type FileReader, type ReadKind } from './file-reader';

/**
 * The keys of the YAML or JSON file a script's `--config` names (the last one given), found from the launcher; none
 * where there is no such option or the file is not there (the launcher's own reference to it says so).
 */
function scriptConfigArguments(
  reader: FileReader,
  launcher: string,
  args: Reference['args'],
): LaunchArgument[] | undefined {
  const given = [...(args ?? [])].reverse().find((a) => a.name === CONFIG_OPTION);
  const path = given?.value?.trim().replace(/^(['"])(.*)\1$/, '$2');
  if (!path || !/\.(ya?ml|json)$/i.test(path)) return undefined;
  const found = findReference(reader, launcher, path);
  if (found.text === undefined) return undefined;
  return configFileArguments(found.text, found.path.split(/[\\/]/).pop() ?? found.path);
}

/** The assignments of the Python files a launch line passes to nanoGPT's train.py, in order; none where none is there. */
function configuratorArguments(
  reader: FileReader,
  launcher: string,
  files: readonly string[] | undefined,
): LaunchArgument[] | undefined {
  const out: LaunchArgument[] = [];
  for (const f of files ?? []) {
    const found = findReference(reader, launcher, f);
    if (found.text !== undefined) out.push(...nanogptConfigArguments(found.text, f));
  }
  return out.length > 0 ? out : undefined;
}

export interface InputFile {
  readonly file: string;
  readonly text: string;
  readonly languageId?: string;
}

export interface PipelineResult {
  readonly setup?: TrainingSetup;
  readonly provenance: ProvenanceMap;
  readonly problems: readonly Problem[];
  readonly files: readonly AnalyzedFile[];
  readonly scenarios: readonly ScenarioFacts[];
  readonly gpu?: string;
  readonly decided: FactResolution['decided'];
  /** Files given that are not a recognised format. */
  readonly unrecognized: readonly string[];
}

const MAX_DEPTH = 3;

/** How a file is read: its place in the run and what the file that led to it passes on. */
interface VisitHow {
  readonly role: FileRole;
  readonly depth: number;
  readonly languageId?: string;
  /** The format a reference implies, over detection (a DeepSpeed JSON, a launcher's script). */
  readonly forced?: Format;
  readonly origin?: AnalyzedFile['origin'];
  /** For a launcher's script: the options the launch line passes it. */
  readonly scriptArgs?: Reference['args'];
  /** For a launcher's script: the keys of the config file its `--config` names, read only if its parser reads it. */
  readonly configArgs?: () => readonly LaunchArgument[] | undefined;
  /** For a launcher's script: the assignments of the Python files its launch line passes, read if it execs them. */
  readonly configuratorArgs?: () => readonly LaunchArgument[] | undefined;
  /** For a helper module: the importing script's options as the run has them, and the module's names it calls. */
  readonly module?: ModuleContext;
  /** For a config file: the launch line's overrides of its keys (EasyR1's `key=value` after `config=`). */
  readonly overrides?: Reference['args'];
  /** For a launcher's script: the Hydra overrides on its launch line (`model=pythia28 loss.beta=0.1`). */
  readonly hydraOverrides?: Reference['overrides'];
  /** For a Hydra config: it is its application's primary config (the one @hydra.main or a launch line names). */
  readonly hydraPrimary?: true;
  /** For a Hydra config a launch line names: the launcher, where the line's overrides are said. */
  readonly hydraLauncher?: string;
  /** For a shell script another runs: the words it is run with and what the caller exports. */
  readonly shell?: ReadingContext['shell'];
}

/**
 * A file's facts and the options its launch line runs it with: the keys of the config file its parser reads
 * (TrlParser's --config, the Python files nanoGPT's configurator.py execs) come first, the launch line's own after
 * them, and win. nanoGPT's train.py computes its run from its globals as the command line sets them: it is read again
 * with them.
 */
function analyzeWithArguments(
  format: Format,
  file: string,
  text: string,
  how: VisitHow,
  reader: FileReader,
): { walked: ConfigFacts; scriptArgs: Reference['args'] } {
  const readModule = format === 'hf-python' && !how.module ? projectModules(reader, file) : undefined;
  const reading = { module: how.module, overrides: how.overrides, readModule, shell: how.shell };
  const read = analyzeAs(format, text, reading);
  // A shell script that sources files is read again with the variables they set.
  const sourced = format === 'shell' ? sourcedVariables(reader, file, read.references) : undefined;
  const first = sourced ? analyzeAs(format, text, { ...reading, sourced }) : read;
  const configArgs = first.readsConfigOption
    ? how.configArgs?.()
    : first.readsConfigurator
      ? how.configuratorArgs?.()
      : undefined;
  const scriptArgs = configArgs ? [...configArgs, ...(how.scriptArgs ?? [])] : how.scriptArgs;
  // nanoGPT's configurator sets the globals from the files and flags; a script that reads options it has no value for
  // alone takes the launch line's own (a TrlParser config file's keys are merged as facts, said as the file's).
  const rereadWith = first.readsConfigurator ? scriptArgs : first.readsLaunchOptions ? how.scriptArgs : undefined;
  // A Hydra application's script composes its config with the line's overrides (hf-python/hydra-app.ts).
  const hydraOverrides = first.readsLaunchOptions ? how.hydraOverrides : undefined;
  if (!rereadWith?.length && !hydraOverrides?.length) return { walked: first, scriptArgs };
  const options = argumentEnvironment(first.options, rereadWith ?? [], undefined, file);
  // nanoGPT's and fsdp_qlora's scripts have readers of their own; a script is read as the line runs it, unsettled.
  const module = {
    options,
    calls: [],
    ...(first.readsConfigurator ? {} : { settled: false as const }),
    ...(hydraOverrides?.length ? { hydraOverrides } : {}),
  };
  return { walked: analyzeAs(format, text, { module, readModule }), scriptArgs };
}

/** How a shell script another runs is read: with the words it is given, and the caller's name to say where they are from. */
function calledBy(file: string, shell: NonNullable<Reference['shell']>): ReadingContext['shell'] {
  return { ...shell, caller: file.split(/[\\/]/).pop() ?? file };
}

/** The variables each file a shell script sources leaves set, by the path it writes; undefined when none is read. */
function sourcedVariables(
  reader: FileReader,
  file: string,
  references: readonly Reference[],
): SourcedVariables | undefined {
  const out = new Map<string, readonly SourcedVariable[]>();
  for (const ref of references) {
    if (ref.kind !== 'sourced' || out.has(ref.path)) continue;
    const found = findReference(reader, file, ref.path);
    if (found.text !== undefined) out.set(ref.path, variablesOf(found.text));
  }
  return out.size ? out : undefined;
}

/**
 * A file a tool ships, for a reference that finds none: a DeepSpeed config that Axolotl or LLaMA-Factory ships, named
 * as their examples do, or a config torchtune ships, named by `tune run ... --config <name>`; read as published, its
 * values said to be that tool's.
 */
function shippedFile(
  ref: Reference,
  format: Format | undefined,
): { file: string; text: string; how: Pick<VisitHow, 'forced' | 'origin'> } | undefined {
  const deepspeed = ref.kind === 'deepspeed' ? findBundledDeepspeed(ref.path, format) : undefined;
  if (deepspeed) {
    return {
      file: bundledFileName(deepspeed),
      text: JSON.stringify(deepspeed.config, null, 2),
      how: { forced: 'deepspeed-json', origin: { kind: 'bundled', ...bundledNote(deepspeed) } },
    };
  }
  const rl2 = ref.kind === 'config' && ref.hydra ? rl2Shipped(ref.path) : undefined;
  if (rl2)
    return { file: rl2.file, text: rl2.text, how: { forced: 'hydra-yaml', origin: shippedHydraOrigin(rl2.file) } };
  const torchtune = ref.kind === 'config' ? torchtuneBuiltin(ref.path) : undefined;
  if (!torchtune) return undefined;
  return {
    file: torchtune.file,
    text: torchtune.text,
    how: { forced: 'torchtune-yaml', origin: { kind: 'bundled', owner: torchtune.owner, note: torchtune.note } },
  };
}

/** The file a reference names as the referencing file writes it (Reference.text), under a name of its own. */
function written(file: string, ref: Reference): ReturnType<typeof findReference> {
  return { path: `${file}#${ref.path}`, text: ref.text, above: false, up: 0 };
}

/** Analyzes the given files and everything they reference. */
export function collectFiles(
  inputs: readonly InputFile[],
  reader: FileReader,
): {
  files: AnalyzedFile[];
  scenarios: ScenarioFacts[];
  problems: Problem[];
  unrecognized: string[];
  missingScripts: MissingScript[];
} {
  const missingScripts: MissingScript[] = [];
  const files: AnalyzedFile[] = [];
  const scenarios: ScenarioFacts[] = [];
  const problems: Problem[] = [];
  const unrecognized: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, text: string, how: VisitHow): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const { role, depth } = how;
    const format = how.forced ?? detectFormat(file, text, how.languageId);
    if (!format) {
      unrecognized.push(file);
      return;
    }
    if (format === 'scenario') {
      scenarios.push(analyzeScenario(text, file));
      return;
    }
    // A Hydra config: its run is composed from the primary config, its group options and the launch line's overrides,
    // each file with the facts whose values it writes.
    if (format === 'hydra-yaml') {
      files.push(...hydraFiles(reader, { file, text }, how, seen, (path, f) => mergeFacts(files, path, f)));
      return;
    }
    const { walked, scriptArgs } = analyzeWithArguments(format, file, text, how, reader);
    const analyzed =
      format === 'hf-python' && !how.module ? withBranchesDecided(walked, text, scriptArgs, file) : walked;
    const facts = scriptArgs ? withLaunchArgs(analyzed, scriptArgs) : analyzed;
    const effectiveRole: FileRole = role === 'referenced' ? 'referenced' : format === 'shell' ? 'launcher' : 'config';
    const self: AnalyzedFile = {
      file,
      text,
      role: effectiveRole,
      facts,
      ...(how.origin ? { origin: how.origin } : {}),
    };
    files.push(self);
    if (depth >= MAX_DEPTH) return;
    // The options this file's helper modules read (the same for each of them).
    let moduleOptions: ArgumentEnvironment | undefined;
    for (const ref of facts.references) {
      const at = locateOffset(file, text, ref.span.start, ref.span.end);
      // A sourced file's variables are read by the file that names it; so are a loaded data file's values, and the file
      // is one of the run's with the items the script takes located at their keys (script-data.ts).
      if (ref.kind === 'data') addScriptData(files, seen, scriptDataFile(reader, inputs, self, ref.path));
      // A sourced file that launches the run runs in this shell: read with the variables set before it is sourced, where
      // this script launches nothing itself (a sourced setup file's own commands are not the run).
      const launches =
        ref.kind === 'sourced' && ref.shell && !facts.references.some((r) => r.kind === 'script')
          ? sourcedLaunch(reader, file, ref)
          : undefined;
      if (launches && ref.shell)
        visit(launches.path, launches.text, {
          role: 'config',
          depth: depth + 1,
          forced: 'shell',
          shell: calledBy(file, ref.shell),
        });
      if (ref.kind === 'sourced' || ref.kind === 'data') continue;
      if (ref.kind === 'module') {
        // A module of the project: beside the script, or (an absolute import) from a folder above it; an installed
        // package is not a file of the run, and is not said. It runs in the script's process: the launch line's
        // options are its command line too.
        const found = findReference(reader, file, ref.path);
        if (found.text === undefined || (found.above && /^\.\.?\//.test(ref.path))) continue;
        moduleOptions ??= argumentEnvironment(analyzed.options, scriptArgs, how.module?.options, file);
        visit(found.path, found.text, {
          role: 'referenced',
          depth: depth + 1,
          forced: 'hf-python',
          module: { options: moduleOptions, calls: ref.calls ?? [], callArgs: ref.callArgs },
          ...(scriptArgs ? { scriptArgs } : {}),
        });
        continue;
      }
      if (/^\s*\{/.test(ref.path)) {
        visit(`${file}#inline-deepspeed`, ref.path, {
          role: 'referenced',
          depth: depth + 1,
          forced: 'deepspeed-json',
          origin: { kind: 'inline' },
        });
        continue;
      }
      if (/[$`]|\{\{/.test(ref.path) || ref.path.startsWith('<')) {
        problems.push({
          ...at,
          severity: 'warning',
          code: 'reference-not-found',
          ...msg("the referenced file '{0}' depends on a variable and cannot be followed statically", ref.path),
        });
        continue;
      }
      const found = located(reader, file, ref);
      const target = found.path;
      const t = found.text;
      const refusal = t === undefined ? reader.refusal?.(target) : undefined;
      // The training script a launcher runs: read when it is there; a script that is not (another checkout) is
      // skipped without a word unless nothing else names the model (mergeFiles says so then); a module that is none of
      // the checkout's files is an installed package's.
      if (ref.kind === 'script') {
        if (t === undefined) {
          if (ref.module === undefined) missingScripts.push({ ...at, path: ref.path });
          continue;
        }
        // A Python file the launch line runs is the training program even where none of the constructs detection
        // looks for is in it: a thin entry point (LLaVA's and FastChat's train_mem.py: `from llava.train.train import
        // train; train()`) is read for the modules it calls.
        // Another shell script the launcher runs is the run's launcher, read with the words it is given.
        if (!ref.shell && detectFormat(target, t) !== 'hf-python' && !/\.py$/i.test(target)) continue;
        const elsewhere = foundElsewhere(at, ref, found);
        if (elsewhere) problems.push(elsewhere);
        if (ref.shell) {
          visit(target, t, { role: 'config', depth: depth + 1, forced: 'shell', shell: calledBy(file, ref.shell) });
          continue;
        }
        visit(target, t, {
          role: 'referenced',
          depth: depth + 1,
          forced: 'hf-python',
          scriptArgs: ref.args ?? [],
          configArgs: () => scriptConfigArguments(reader, file, ref.args),
          configuratorArgs: () => configuratorArguments(reader, file, ref.positionalFiles),
          ...(ref.overrides ? { hydraOverrides: ref.overrides } : {}),
        });
        continue;
      }
      if (found.above && t !== undefined) problems.push(foundAbove(at, ref.path, found));
      // A file a tool ships, named as its examples do, read as published when none is there.
      const shipped = t === undefined && !refusal ? shippedFile(ref, format) : undefined;
      if (shipped) {
        const hydra = ref.hydra ? hydraHow(ref, how, file) : {};
        visit(shipped.file, shipped.text, { role: 'referenced', depth: depth + 1, ...shipped.how, ...hydra });
        continue;
      }
      const unread = notRead(ref, target, t, refusal);
      if (unread || t === undefined) {
        if (unread) problems.push({ ...at, severity: 'warning', code: 'reference-not-found', ...unread });
        continue;
      }
      const deepspeed = ref.kind === 'deepspeed';
      // A Hydra application's primary config takes the overrides its script's launch line passes (hydraHow).
      visit(target, t, {
        // A DeepSpeed config and a config's inherited parent rank below the file that names them.
        role: deepspeed || ref.base ? 'referenced' : 'config',
        depth: depth + 1,
        ...(deepspeed ? { forced: 'deepspeed-json' as const } : ref.hydra ? { forced: 'hydra-yaml' as const } : {}),
        ...(ref.args ? { overrides: ref.args } : {}),
        ...(ref.hydra ? hydraHow(ref, how, file) : {}),
        // A file the referencing file writes (a notebook's %%writefile cell or json.dump) is not edited by a fix.
        ...(ref.text !== undefined ? { origin: { kind: 'inline' as const } } : {}),
      });
    }
  };
  for (const i of inputs) visit(i.file, i.text, { role: 'config', depth: 0, languageId: i.languageId });
  return { files, scenarios, problems, unrecognized: notLoadedData(unrecognized, files, reader), missingScripts };
}

/** The path of the file a reference names, as the pipeline finds it (for the files that run a file: node/launchers.ts, server/runs.ts). */
export function referencedPath(reader: FileReader, file: string, ref: Reference): string {
  return (ref.module !== undefined ? moduleFile(reader, file, ref.path) : findReference(reader, file, ref.path)).path;
}

/** A reference's file: the text the referencing file writes, a module's file, else the file at its path. */
function located(
  reader: FileReader,
  file: string,
  ref: Reference,
): ReturnType<typeof findReference> & { place?: string } {
  if (ref.text !== undefined) return written(file, ref);
  return ref.module !== undefined ? moduleFile(reader, file, ref.path) : findReference(reader, file, ref.path);
}

/** The note that a script or module was read from elsewhere than its path beside the file, or undefined. */
function foundElsewhere(at: Location, ref: Reference, found: ReturnType<typeof located>): Problem | undefined {
  if (ref.module !== undefined && found.place !== undefined)
    return found.above || found.place !== ref.path
      ? moduleFoundAt(at, ref.module, { ...found, place: found.place })
      : undefined;
  return found.above ? foundAbove(at, ref.path, found) : undefined;
}

/**
 * The file of a module a launch line runs (`python -m pkg.train` names pkg/train.py): the file, else the package's
 * `__main__.py`, each also under `src/` (a src layout's package, installed to run so).
 */
function moduleFile(
  reader: FileReader,
  file: string,
  path: string,
): ReturnType<typeof findReference> & { place: string } {
  const main = path.replace(/\.py$/, '/__main__.py');
  for (const place of [path, main, `src/${path}`, `src/${main}`]) {
    const found = findReference(reader, file, place);
    if (found.text !== undefined) return { ...found, place };
  }
  return { ...findReference(reader, file, path), place: path };
}

/** Where the file of a module a launch line runs was found, when it is not the name's own path beside the line. */
function moduleFoundAt(at: Location, module: string, found: { place: string; up: number }): Problem {
  return {
    ...at,
    severity: 'info',
    code: 'reference-found-above',
    ...msg(
      'the module {0} is read from {1}, the path from {2} folder(s) up (the line runs from there, as from a repository root)',
      module,
      `${'../'.repeat(found.up)}${found.place}`,
      found.up,
    ),
  };
}

/** A file a shell script sources, where it launches a run itself (a shell script of the launch formats); else undefined. */
function sourcedLaunch(reader: FileReader, file: string, ref: Reference): { path: string; text: string } | undefined {
  const found = findReference(reader, file, ref.path);
  return found.text !== undefined && detectFormat(found.path, found.text) === 'shell'
    ? { path: found.path, text: found.text }
    : undefined;
}

/** Why a referenced file is not read (refused, missing, not the DeepSpeed config it is named as); undefined when it is. */
function notRead(
  ref: Reference,
  target: string,
  text: string | undefined,
  refusal: string | undefined,
): ReturnType<typeof msg> | undefined {
  if (refusal) return msg('the referenced file {0} is not read: {1}', ref.path, refusal);
  if (text === undefined) return msg('referenced file not found: {0} (looked for {1})', ref.path, target);
  const notDeepspeed = ref.kind === 'deepspeed' ? notADeepspeedConfig(text) : undefined;
  if (notDeepspeed)
    return msg('the referenced file {0} is not a DeepSpeed config ({1}); it is not read', ref.path, notDeepspeed);
  return undefined;
}

/** The files no format takes but those a script of the run loads for its values (read by the script, not missing one). */
function notLoadedData(unrecognized: readonly string[], files: readonly AnalyzedFile[], reader: FileReader): string[] {
  const loaded = new Set(
    files.flatMap((f) =>
      f.facts.references.filter((r) => r.kind === 'data').map((r) => findReference(reader, f.file, r.path).path),
    ),
  );
  return unrecognized.filter((u) => !loaded.has(u));
}

/** A Hydra config's reading from the reference that names it: the primary config, with the line's overrides. */
function hydraHow(
  ref: Reference,
  how: VisitHow,
  file: string,
): Pick<VisitHow, 'overrides' | 'hydraPrimary' | 'hydraLauncher'> {
  const overrides = ref.overrides ?? how.hydraOverrides ?? [];
  const placed = ref.overrides?.some((a) => a.at !== undefined) === true;
  return { overrides, hydraPrimary: true, ...(placed ? { hydraLauncher: file } : {}) };
}

/** A training script a launcher names that is not there: said only when the model is then unknown. */
export interface MissingScript extends Location {
  readonly path: string;
}

function foundAbove(at: Location, written: string, found: { path: string; up: number }): Problem {
  const up = found.up;
  if (/^(\/|[A-Za-z]:[\\/])/.test(written.trim().replace(/^['"]/, ''))) {
    return {
      ...at,
      severity: 'info',
      code: 'reference-found-above',
      ...msg(
        '{0} is not on this machine: read {1}, the file of this checkout with the same last parts (the clone it was written on)',
        written,
        found.path,
      ),
    };
  }
  const rel = `${'../'.repeat(up)}${written
    .trim()
    .replace(/^['"]|['"]$/g, '')
    .replace(/^\.\//, '')}`;
  return {
    ...at,
    severity: 'info',
    code: 'reference-found-above',
    ...msg(
      '{0} is not beside this file: read {1}, the path from {2} folder(s) up (the script runs from there, as from a repository root)',
      written,
      rel,
      up,
    ),
  };
}

/**
 * Why a file named as a DeepSpeed config is not one, or undefined when it may be: a DeepSpeed config is a JSON (or
 * hjson) object, so its first character after blanks and comments is `{`. Files that are not configs of the run are
 * never analyzed, so nothing of their content reaches a message.
 */
export function notADeepspeedConfig(text: string): string | undefined {
  const body = text.replace(/^\uFEFF/, '');
  let i = 0;
  while (i < body.length) {
    if (/\s/.test(body[i])) i++;
    else if (body.startsWith('//', i) || body[i] === '#') i = nextLine(body, i);
    else if (body.startsWith('/*', i)) i = body.indexOf('*/', i + 2) < 0 ? body.length : body.indexOf('*/', i + 2) + 2;
    else break;
  }
  if (i >= body.length) return 'it is empty';
  return body[i] === '{' ? undefined : 'it is not a JSON object';
}

function nextLine(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl < 0 ? text.length : nl + 1;
}

/** The whole path: files -> facts -> TrainingSetup with provenance and located problems. */
export function runPipeline(
  inputs: readonly InputFile[],
  reader: FileReader,
  overrides: Overrides,
  resolver: ModelResolver = catalogResolver,
): PipelineResult {
  return trainerDdp(
    trlLoads(
      accelerateFsdp(
        trainerRamEfficientLoading(withPinnedVersions(mergeFiles(inputs, reader, overrides, resolver), inputs, reader)),
      ),
    ),
  );
}

/**
 * FSDP_CPU_RAM_EFFICIENT_LOADING from the launch line's environment, where the HF Trainer's own arguments configure
 * FSDP: from transformers 4.41 TrainingArguments sets it from fsdp_config's cpu_ram_efficient_loading, "false" unless
 * given, over the environment (huggingface/transformers#30002, training_args.py); before, the environment's value is
 * what the load reads. So under a release from 4.41 on, the Trainer's own value (its fsdp_config, else its default)
 * replaces the environment's.
 */
function trainerRamEfficientLoading(r: PipelineResult): PipelineResult {
  const s = r.setup;
  const prov = r.provenance.fsdp_cpu_ram_efficient_loading;
  const fsdpTool = r.decided.fsdp?.fact.tool;
  if (!s || prov?.kind !== 'file' || prov.key !== RAM_EFFICIENT_ENV) return r;
  if (!fsdpTool || !TRAINER_DDP_TOOLS.has(fsdpTool) || olderThan(s.transformers_version, 4, 41)) return r;
  const own = r.files
    .flatMap((f) => f.facts.facts.map((fact) => ({ fact, file: f })))
    .filter(({ fact }) => fact.key === 'fsdpCpuRamEfficientLoading' && fact.rawKey !== RAM_EFFICIENT_ENV)
    .pop();
  const value = typeof own?.fact.value === 'boolean' ? own.fact.value : false;
  const provenance: Provenance = own
    ? {
        kind: 'file',
        file: own.file.file,
        line: locateOffset(own.file.file, own.file.text, own.fact.valueSpan.start, own.fact.valueSpan.end).line,
        key: own.fact.rawKey,
      }
    : {
        kind: 'default',
        owner: fsdpTool,
        note:
          `from transformers 4.41 the HF Trainer sets ${RAM_EFFICIENT_ENV} from its fsdp_config over the launch ` +
          `line's (huggingface/transformers#30002): cpu_ram_efficient_loading defaults to "false"`,
      };
  return {
    ...r,
    setup: { ...s, fsdp_cpu_ram_efficient_loading: value },
    provenance: { ...r.provenance, fsdp_cpu_ram_efficient_loading: provenance },
  };
}

/**
 * What TRL loads by a name, in the pinned release (trl-reference.ts): the policy given to a trainer as a model id, in
 * TRL's load dtype where no file gives one, and the reference it loads by the policy's name where that dtype differs.
 */
function trlLoads(r: PipelineResult): PipelineResult {
  const s0 = r.setup;
  if (!s0 || !r.files.some((f) => f.facts.tools.includes('trl'))) return r;
  const facts = r.files.flatMap((f) => f.facts.facts);
  const ckpt = s0.architecture ? checkpointDtype(s0.architecture) : undefined;
  let setup = s0;
  const provenance: ProvenanceMap = { ...r.provenance };
  const load = trlLoadsPolicy(facts) ? trlDefault(setup, ckpt) : undefined;
  if (load && provenance.weights_dtype?.kind === 'default' && !facts.some((f) => f.key === 'weightsDtype')) {
    setup = { ...setup, weights_dtype: load.value };
    provenance.weights_dtype = { kind: 'default', owner: 'trl', note: `the trainer loads a model id ${load.why}` };
  }
  const reference = setup.reference_dtype === undefined ? trlReferenceDtype(setup, facts, ckpt) : undefined;
  if (reference) {
    setup = { ...setup, reference_dtype: reference.value };
    provenance.reference_dtype = { kind: 'default', owner: 'trl', note: reference.note };
  }
  setup = withRewardDtypes(setup, facts);
  return setup === s0 && provenance.weights_dtype === r.provenance.weights_dtype ? r : { ...r, setup, provenance };
}

/** Reward models given by name, in the dtype GRPOTrainer loads them in (trl-reference.ts trlRewardDtype). */
function withRewardDtypes(setup: TrainingSetup, facts: readonly Fact[]): TrainingSetup {
  const models = setup.rollout?.reward_models ?? [];
  if (models.length === 0) return setup;
  const dtype = trlLoadDtype(facts);
  const typed = models.map((m) => {
    const d = m.dtype ?? trlRewardDtype(setup, dtype, checkpointDtype(m.architecture));
    return d && d !== m.dtype ? { ...m, dtype: d } : m;
  });
  return typed.every((m, i) => m === models[i])
    ? setup
    : { ...setup, rollout: { ...setup.rollout!, reward_models: typed } };
}

function mergeFiles(
  inputs: readonly InputFile[],
  reader: FileReader,
  overrides: Overrides,
  resolver: ModelResolver,
): PipelineResult {
  const { files, scenarios, problems, unrecognized, missingScripts } = collectFiles(inputs, reader);
  // A missing training script matters only when the model is nowhere else: then it is said at the script's name.
  const noModel = !files.some((f) => f.facts.facts.some((x) => x.key === 'model'));
  const withMissing = (ps: Problem[]): Problem[] =>
    noModel && missingScripts.length > 0 && ps.some((p) => p.code === 'unknown-model')
      ? [
          ...ps,
          ...missingScripts.map((m): Problem => ({
            ...m,
            severity: 'warning',
            code: 'reference-not-found',
            ...msg('the training script {0} was not found, and no other file of the run names the model', m.path),
          })),
        ]
      : ps;
  if (files.length === 0) {
    const r = resolveScenarios(scenarios, overrides, resolver);
    return {
      setup: r.setup,
      provenance: r.provenance,
      problems: [...problems, ...r.problems],
      files,
      scenarios,
      gpu: r.gpu,
      decided: {},
      unrecognized,
    };
  }
  // Scenario values (what-ifs) apply on top of the config files; flags and settings still win.
  const scenarioModel = scenarios
    .map((s) => s.values.model)
    .filter((m): m is string => typeof m === 'string')
    .pop();
  const fr = resolveFacts(files, { ...overrides, model: overrides.model ?? scenarioModel }, resolver);
  const all = withMissing([...problems, ...fr.problems, ...scenarios.flatMap((s) => s.problems)]);
  if (!fr.setup || scenarios.length === 0)
    return {
      setup: fr.setup,
      provenance: fr.provenance,
      problems: all,
      files,
      scenarios,
      gpu: fr.gpu,
      decided: fr.decided,
      unrecognized,
    };
  const merged: Record<string, unknown> = { ...fr.setup };
  const prov = { ...fr.provenance } as Record<string, ProvenanceMap[keyof ProvenanceMap]>;
  for (const s of scenarios) {
    for (const [k, v] of Object.entries(s.values)) {
      const p = prov[k];
      if (p && (p.kind === 'flag' || p.kind === 'setting')) continue;
      merged[k] = v;
      prov[k] = { kind: 'file', file: s.file, line: s.keyLocations[k]?.line, key: k };
    }
  }
  const parsed = ScenarioSchema.safeParse(merged);
  if (!parsed.success || !parsed.data.architecture) {
    return {
      setup: fr.setup,
      provenance: fr.provenance,
      problems: all,
      files,
      scenarios,
      gpu: fr.gpu,
      decided: fr.decided,
      unrecognized,
    };
  }
  const setup = parsed.data as TrainingSetup;
  return {
    setup,
    provenance: prov as ProvenanceMap,
    problems: all,
    files,
    scenarios,
    gpu: setup.gpu,
    decided: fr.decided,
    unrecognized,
  };
}

/**
 * What Accelerate's FSDP preparation does that the files do not say, by its release (a pin, or current):
 * - under mixed precision it upcasts the trainable parameters of a 16-bit model to fp32 before sharding, "DeepSpeed's
 *   strategy to hold the parameters in full precision" (accelerator.py prepare_model for FSDP1 from 0.30,
 *   huggingface/accelerate#2674; utils/fsdp_utils.py fsdp2_prepare_model from FSDP2's first release, 1.6): the shard
 *   is the fp32 master, 16-bit copies exist only all-gathered;
 * - the HF Trainer's no_sync is Accelerate's, which did nothing to an FSDP2 module before 1.11;
 * - from 1.14 FSDP2 puts the final norm and the head in a unit kept unsharded from its forward to its backward.
 */
function accelerateFsdp(r: PipelineResult): PipelineResult {
  const s0 = r.setup;
  if (!s0 || s0.fsdp === undefined || s0.fsdp === 'none') return r;
  const tool = r.files.flatMap((f) => f.facts.tools).find((t) => ACCELERATE_FSDP_TOOLS.has(t));
  if (!tool) return r;
  const provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]> = { ...r.provenance };
  const syncProv = provenance.fsdp_no_sync;
  const patch = accelerateFsdpPatch(s0, {
    masterWeightsStated: provenance.master_weights !== undefined,
    noSyncFromDefault: syncProv?.kind === 'default',
  });
  if (Object.keys(patch).length === 0) return r;
  const setup = { ...s0, ...patch };
  if (patch.master_weights) {
    provenance.master_weights = {
      kind: 'default',
      owner: tool,
      note:
        "Accelerate's FSDP preparation upcasts the trainable parameters of a 16-bit model to fp32 under mixed " +
        'precision (huggingface/accelerate#2674, FSDP2 from 1.6): each shard is the fp32 master',
    };
  }
  if (patch.fsdp_tail_unit) {
    provenance.fsdp_tail_unit = {
      kind: 'default',
      owner: tool,
      note:
        `Accelerate ${setup.accelerate_version ?? '1.14 or later'} wraps FSDP2's final norm and output head in a unit ` +
        'not resharded after the forward, and untied embeddings in one of their own (huggingface/accelerate#4015)',
    };
  }
  if (patch.fsdp_no_sync === false && syncProv?.kind === 'default') {
    provenance.fsdp_no_sync = {
      kind: 'default',
      owner: syncProv.owner,
      note:
        `the HF Trainer's no_sync is Accelerate's, which before 1.11 (accelerate ${setup.accelerate_version} pinned) ` +
        'did nothing to an FSDP2 module (huggingface/accelerate#3762): every micro-batch reduces its gradients',
    };
  }
  return { ...r, setup, provenance: provenance as ProvenanceMap };
}

/**
 * The HF Trainer's DDP find_unused_parameters where no file gives ddp_find_unused_parameters (trainer-ddp.ts): true
 * for a PEFT model or a model without gradient checkpointing, said as the tool's default.
 */
function trainerDdp(r: PipelineResult): PipelineResult {
  const s0 = r.setup;
  if (!s0 || r.provenance.ddp_find_unused_parameters !== undefined) return r;
  const tools = r.files.flatMap((f) => f.facts.tools).filter((t) => TRAINER_DDP_TOOLS.has(t));
  // Axolotl and LLaMA-Factory decide it before the Trainer does.
  const tool = tools.find((t) => t === 'axolotl' || t === 'llamafactory') ?? tools[0];
  const rule = tool ? trainerFindUnused(tool, s0) : undefined;
  if (!rule || !tool) return r;
  return {
    ...r,
    setup: { ...s0, ddp_find_unused_parameters: rule.value },
    provenance: { ...r.provenance, ddp_find_unused_parameters: { kind: 'default', owner: tool, note: rule.note } },
  };
}
