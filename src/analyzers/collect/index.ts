// The files of a run: the files a user points at and everything they reference, each detected and analyzed as the file
// that led to it reads it (a launcher's script with the line's options, a helper module with the script's, a sourced
// launcher with the caller's variables), up to three references deep. Pure: file access goes through the FileReader.
import { detectFormat } from '../detect';
import { argumentEnvironment, withBranchesDecided, withLaunchArgs } from '../launch-args';
import {
  isUnknown,
  msg,
  type ArgumentEnvironment,
  type ConfigFacts,
  type ConfigOptionRead,
  type Fact,
  type Format,
  type Reference,
  type Span,
  type Tool,
} from '../facts';
import { locateOffset, type AnalyzedFile, type FileRole } from '../resolve';
import { analyzeScenario, type Location, type Problem, type ScenarioFacts } from '../scenario';
import { hydraFiles, mergeFacts } from '../hydra-files';
import { isHydraPrimary } from '../hydra';
import { addScriptData, scriptDataFile } from '../script-data';
import { findModule, findReference, type FileReader } from '../file-reader';
import { heredocFiles } from '../heredoc';
import { MAX_ANALYZED_CHARS } from '../guards';
import { analyzeShell, variablesOf } from '../shell';
import { isFlagObjective } from '../shell/reference-flags';
import type { InputFile } from '../pipeline';
import { consoleScriptModule } from '../console-scripts';
import { withoutUnreadCommandLine } from './unread-command-line';
import { analyzeWithArguments, calledBy, configuratorArguments, scriptConfigArguments, type VisitHow } from './reading';
import {
  located,
  notLoadedData,
  notRead,
  otherYamlEnding,
  readmeLaunch,
  shippedFile,
  sourcedLaunch,
  variableRooted,
} from './locate';
import {
  markdownLaunch,
  readmeConfigLaunch,
  readmeHydraLaunch,
  readmeLauncherLaunch,
  readmeShellLaunch,
  type ReadmeLaunch,
} from './readme-command';
import { foundElsewhere } from './found-elsewhere';
import { isMakefile, makefileLaunch } from './makefile';
import { withVendoredVerl } from './vendored-verl';
import { shippedDeepspeedFormat } from '../deepspeed-json/bundled';
import { withoutUnreadDefaults, withoutUnreadOptions } from './unread-options';
import { withWordTruth } from './bool-typed-options';

export { referencedPath, notADeepspeedConfig } from './locate';

const MAX_DEPTH = 3;

/** A training script a launcher names that is not there: said only when the model is then unknown. */
export interface MissingScript extends Location {
  readonly path: string;
}

export interface CollectedFiles {
  readonly files: AnalyzedFile[];
  readonly scenarios: ScenarioFacts[];
  readonly problems: Problem[];
  /** Files given that no format takes (but data files a script of the run loads). */
  readonly unrecognized: string[];
  readonly missingScripts: MissingScript[];
}

/** Analyzes the given files and everything they reference. */
export function collectFiles(inputs: readonly InputFile[], reader: FileReader): CollectedFiles {
  const collection = new FileCollection(inputs, reader);
  for (const i of inputs)
    collection.visit(i.file, i.text, {
      ...entryHow(i, reader),
      languageId: i.languageId,
      ...(inputs.length > 1 ? { launchNaming: namesGiven(reader, i.file, inputs) } : {}),
    });
  const collected = withoutOwnEvaluationStrategy(collection.collected.files);
  const scripts = collected.filter((f) => f.facts.format === 'hf-python');
  const files = collected.map((f) =>
    f.facts.format === 'hf-python'
      ? withoutUnreadDefaults(
          f,
          scripts.filter((m) => m !== f),
        )
      : f,
  );
  const left = notLoadedData(collection.collected.unrecognized, files, reader);
  // A file the run names that no format takes (LLaMA2-Accessory's `--llama_config "$2 configs/...json"`, a model's own
  // params file) is said where it is; the run is estimated without it. A file given that no format takes stops it.
  const named = left.filter((u) => collection.referenced.has(u) && !inputs.some((i) => i.file === u));
  return {
    ...collection.collected,
    files,
    problems: [...collection.collected.problems, ...named.map(unreadReference)],
    unrecognized: left.filter((u) => !named.includes(u)),
  };
}

/** The warning at a file the run names that no format takes. */
function unreadReference(file: string): Problem {
  return {
    file,
    start: 0,
    end: 0,
    line: 1,
    column: 1,
    severity: 'warning',
    code: 'not-analyzed',
    ...msg(
      'a file this run names, in no format VRAM Lens reads (DeepSpeed JSON, a training script or YAML config): its ' +
        'values are not in the estimate',
    ),
  };
}

/**
 * For a given launch script of several launches: whether a path one writes is another file given (found from the
 * script as the run's references are: beside it, or from a folder above it).
 */
function namesGiven(
  reader: FileReader,
  file: string,
  inputs: readonly InputFile[],
): NonNullable<VisitHow['launchNaming']> {
  const given = new Set(inputs.map((i) => i.file).filter((f) => f !== file));
  return (written) => !/[$`]/.test(written) && given.has(findReference(reader, file, written).path);
}

/**
 * How a given file is read: a config of the run; a script with the options, or a shell script with the words, it is
 * given, as a launcher's script or a script another runs is.
 */
function entryHow(input: InputFile, reader: FileReader): VisitHow {
  const { args, words } = input;
  if (words) {
    const shell = { words, exported: [], caller: 'the command line' };
    return { role: 'config', depth: 0, forced: 'shell', shell };
  }
  const configArgs = (read: ConfigOptionRead) => scriptConfigArguments(reader, input.file, read, { args });
  if (!args) return { role: 'config', depth: 0, configArgs };
  return { role: 'config', depth: 0, forced: 'hf-python', scriptArgs: args, configArgs };
}

/** A file read, as the references it makes are followed from it. */
interface Referrer {
  readonly self: AnalyzedFile;
  readonly format: Format;
  readonly how: VisitHow;
  /** Its facts before the launch line's options are merged (the options its parser declares). */
  readonly analyzed: ConfigFacts;
  /** The options its launch line passes it, with the keys of the config file its parser reads first. */
  readonly scriptArgs: Reference['args'];
  /** The options its helper modules read (the same for each of them), made at the first module. */
  moduleOptions?: ArgumentEnvironment;
  /** Its options are those of the command the README.md of its folder shows (no launch line runs it). */
  readonly readmeUsage?: true;
}

/**
 * An option of the script's own named evaluation_strategy (read as the script's parser reads it): an argparse option,
 * or a field of a dataclass of its own (minwukim/VRL's `evaluation_strategy: str` in the class TrlParser parses, passed
 * on as `eval_strategy=`).
 */
const OWN_EVALUATION_STRATEGY =
  /\badd_argument\(\s*(['"])--evaluation[-_]strategy\1|^[ \t]+evaluation_strategy\s*:\s*\w/m;

/** A file's fact dating the run by `evaluation_strategy` (facts.ts EVALUATION_STRATEGY_RELEASE). */
const datedByEvaluationStrategy = (f: Fact): boolean =>
  f.key === 'transformersVersion' && /^(--)?evaluation[-_]strategy$/.test(f.rawKey);

/**
 * The run's launchers and configs that give `evaluation_strategy` to a script of the run that declares it as its own
 * option (razvanalex-phd/SeLeRoSa's launch line, minwukim/VRL's YAML): the script's name, not TrainingArguments', so it
 * does not date the run, as it does where the script parses TrainingArguments from its command line.
 */
function withoutOwnEvaluationStrategy(files: readonly AnalyzedFile[]): AnalyzedFile[] {
  const own = files.some(
    (f) =>
      f.facts.format === 'hf-python' &&
      !f.facts.readsTrainerFlags &&
      OWN_EVALUATION_STRATEGY.test(f.text.slice(0, MAX_ANALYZED_CHARS.python)),
  );
  if (!own) return [...files];
  return files.map((f) =>
    f.facts.format === 'hf-python' || !f.facts.facts.some(datedByEvaluationStrategy)
      ? f
      : { ...f, facts: { ...f.facts, facts: f.facts.facts.filter((x) => !datedByEvaluationStrategy(x)) } },
  );
}

/** The files read so far and what was said of them; `visit` reads a file and follows its references. */
class FileCollection {
  readonly collected: CollectedFiles = { files: [], scenarios: [], problems: [], unrecognized: [], missingScripts: [] };
  private readonly seen = new Set<string>();
  /** The names each project module was read for, with their call arguments (several files of the run call into it). */
  private readonly moduleCalls = new Map<
    string,
    { calls: ReadonlySet<string>; callArgs: Reference['callArgs']; starImport: boolean }
  >();
  /** The files a launcher of the run writes from heredocs, by each path they may be read at: the text and the launcher. */
  private readonly written = new Map<string, { text: string; writtenBy: string }>();
  /** Files that another file of the run names and no format takes (unread, said where they are; not a stop). */
  readonly referenced = new Set<string>();

  constructor(
    private readonly inputs: readonly InputFile[],
    private readonly reader: FileReader,
  ) {}

  visit(file: string, text: string, how: VisitHow): void {
    if (this.seen.has(file)) return;
    this.seen.add(file);
    // A file another file of the run leads to is read as that file reads it, not by the names of its keys; one that no
    // format takes (a project's own config a launch line hands its script, `--config configs/training_config.yaml`, read
    // by a loader the Python reader does not follow) is read by its names, its facts ranked below every other file's.
    const detected =
      how.forced ??
      detectFormat(file, text, how.languageId, how.depth === 0) ??
      (how.depth > 0 && detectFormat(file, text, how.languageId, true) === 'project-yaml' ? 'project-yaml' : undefined);
    // A README that shows its training command, or a Makefile whose target runs it, given alone: the launch script in it.
    const script = !detected && how.depth === 0 ? launchScriptIn(file, text) : undefined;
    if (script !== undefined) return this.visitAs('shell', file, script, how);
    if (!detected) {
      this.collected.unrecognized.push(file);
      if (how.depth > 0) this.referenced.add(file);
      return;
    }
    this.visitAs(detected, file, text, how);
  }

  private visitAs(format: Format, file: string, text: string, how: VisitHow): void {
    const { files } = this.collected;
    if (format === 'scenario') {
      this.collected.scenarios.push(analyzeScenario(text, file));
      return;
    }
    // A Hydra config: its run is composed from the primary config, its group options and the launch line's overrides,
    // each file with the facts whose values it writes.
    if (format === 'hydra-yaml') {
      // Given alone, a primary config is run as the README's command runs its application (its overrides included).
      const readme = how.depth === 0 && isHydraPrimary(text) ? readmeHydraLaunch(this.reader, file) : undefined;
      if (readme && this.launchedBy(readme, file)) return;
      files.push(...hydraFiles(this.reader, { file, text }, how, this.seen, (path, f) => mergeFacts(files, path, f)));
      return;
    }
    const referrer = this.analyze(format, file, text, how);
    if (this.launchedByReadme(format, file, how, referrer)) return;
    if (format === 'shell') this.noteWritten(file, text);
    files.push(referrer.self);
    if (how.depth >= MAX_DEPTH) return;
    for (const ref of this.followed(referrer)) this.follow(referrer, ref);
  }

  /**
   * The references a file's run follows. Where a launcher runs several launch scripts, each is a run of its own
   * (xiusic/Rubric-RM's batch_run.sh runs three complete launchers; its Qwen2.5-14B one was read with the Llama-3.1-8B
   * one's model): one that is a file the user gave (the one open) is followed alone of them, with this launcher's words
   * and variables; else of those run one after another that launch something themselves, the last, with a note naming
   * the others, as the shell's own launches are (shell/index.ts). Scripts on the branches of an `if` are alternatives.
   */
  private followed(referrer: Referrer): readonly Reference[] {
    const { file, text, facts } = referrer.self;
    const launches = facts.references.filter((r) => r.kind === 'script' && r.shell !== undefined);
    if (launches.length < 2) return facts.references;
    const pathOf = (r: Reference): ReturnType<typeof located> => located(this.reader, file, this.withWritten(file, r));
    const given = new Set(this.inputs.map((i) => i.file).filter((f) => f !== file));
    const open = launches.find((r) => given.has(pathOf(r).path));
    if (open) return facts.references.filter((r) => !launches.includes(r) || r === open);
    const running = launches.filter((r) => !r.conditional && launchesSomething(pathOf(r).text));
    if (running.length < 2) return facts.references;
    const last = running[running.length - 1];
    const lineOf = (r: Reference): number => locateOffset(file, text, r.span.start, r.span.end).line;
    this.collected.problems.push({
      ...locateOffset(file, text, last.span.start, last.span.end),
      severity: 'info',
      code: 'several-launches',
      ...msg(
        'this script launches training {0} times, one after another: each is a run of its own, and this last one (line ' +
          '{1}) is estimated, not the earlier ones (line {2})',
        String(running.length),
        String(lineOf(last)),
        running.slice(0, -1).map(lineOf).join(', '),
      ),
    });
    return facts.references.filter((r) => !running.includes(r) || r === last);
  }

  /**
   * A script given alone that needs a command line (an option only one gives; a launch script's positional parameters),
   * or a Python script no launch line runs that its README runs under a launcher (`accelerate launch`, `torchrun`,
   * `deepspeed`), and whose README.md shows the command that runs it (readme-command.ts: in a folder above, too): that
   * command is the run's launch line, read in place in the README (its launcher, the Trainer's flags, the DeepSpeed
   * config it names), and the script is read as the line runs it. False where there is no such command, or it does
   * not lead back to the script (the script is then read alone, with the line's options).
   */
  private launchedByReadme(format: Format, file: string, how: VisitHow, referrer: Referrer): boolean {
    if (how.depth !== 0) return false;
    const readme: ReadmeLaunch | undefined =
      format === 'hf-python' && referrer.readmeUsage
        ? readmeLaunch(this.reader, file)
        : format === 'hf-python' && how.scriptArgs === undefined
          ? readmeLauncherLaunch(this.reader, file)
          : format === 'shell' && takesArguments(referrer.analyzed)
            ? readmeShellLaunch(this.reader, file)
            : README_CONFIGS.has(format)
              ? readmeConfigLaunch(this.reader, file)
              : undefined;
    if (!readme || !this.sameKind(readme, format)) return false;
    return this.launchedBy(readme, file);
  }

  /** The README's command read as the run's launch line, kept where it leads back to the file given alone. */
  private launchedBy(readme: ReadmeLaunch, file: string): boolean {
    if (this.seen.has(readme.path)) return false;
    const { files, problems, missingScripts, unrecognized } = this.collected;
    const before = [files.length, problems.length, missingScripts.length, unrecognized.length];
    this.seen.delete(file);
    this.visit(readme.path, readme.text, { role: 'config', depth: 0, forced: 'shell' });
    if (this.seen.has(file) && !unrecognized.includes(file)) {
      if (readme.script) this.collected.problems.push(readmeNote(readme, readme.script));
      return true;
    }
    // The command did not lead back to the file (it names another path), or its script does not read the file as one
    // of its configs: nothing of it is kept.
    files.length = before[0];
    problems.length = before[1];
    missingScripts.length = before[2];
    unrecognized.length = before[3];
    this.seen.add(file);
    return false;
  }

  /**
   * The file beside it that a README's command runs, in whose place it is put, is a file of its format (where it is
   * there: a README may name a recipe the checkout no longer has).
   */
  private sameKind(readme: ReadmeLaunch, format: Format): boolean {
    if (readme.sibling === undefined) return true;
    const path = this.reader.join(readme.path, readme.sibling);
    const text = this.reader.read(path);
    return text === undefined || detectFormat(path, text, undefined, true) === format;
  }

  /** The file analyzed as the file that led to it reads it. */
  private analyze(format: Format, file: string, text: string, how: VisitHow): Referrer {
    const { walked, scriptArgs, readmeUsage } = analyzeWithArguments(format, file, text, how, this.reader);
    const analyzed =
      format === 'hf-python' && !how.module
        ? withBranchesDecided(walked, text, scriptArgs, file, how.environment)
        : walked;
    const launched = scriptArgs ? withLaunchArgs(analyzed, scriptArgs) : analyzed;
    const replaced = how.replacedKeys;
    const kept = replaced ? { ...launched, facts: launched.facts.filter((f) => !replaced.includes(f.key)) } : launched;
    const facts = format === 'shell' ? withVendoredVerl(this.reader, file, kept) : kept;
    const launcher = format === 'shell' || facts.launchesRun === true;
    const role: FileRole = how.role === 'referenced' ? 'referenced' : launcher ? 'launcher' : 'config';
    const self: AnalyzedFile = { file, text, role, facts, ...(how.origin ? { origin: how.origin } : {}) };
    return { self, format, how, analyzed, scriptArgs, ...(readmeUsage ? { readmeUsage } : {}) };
  }

  private follow(from: Referrer, ref: Reference): void {
    const { file, text } = from.self;
    const at = locateOffset(file, text, ref.span.start, ref.span.end);
    // A loaded data file's values are read by the file that names it, and the file is one of the run's with the items
    // the script takes located at their keys (script-data.ts).
    if (ref.kind === 'data') {
      const data = scriptDataFile(this.reader, this.inputs, from.self, ref.path);
      addScriptData(this.collected.files, this.seen, data);
      return;
    }
    if (ref.kind === 'sourced') return this.followSourced(from, ref);
    if (ref.kind === 'module') return this.followModule(from, ref);
    if (/^\s*\{/.test(ref.path)) {
      const depth = from.how.depth + 1;
      const how: VisitHow = { role: 'referenced', depth, forced: 'deepspeed-json', origin: { kind: 'inline' } };
      return this.visit(`${file}#inline-deepspeed`, ref.path, how);
    }
    if (variableRooted(ref) && located(this.reader, file, ref).rooted) return this.followScript(from, ref, at);
    if (/[$`]|\{\{/.test(ref.path) || ref.path.startsWith('<')) {
      this.collected.problems.push({
        ...at,
        severity: 'warning',
        code: 'reference-not-found',
        ...msg("the referenced file '{0}' depends on a variable and cannot be followed statically", ref.path),
      });
      return;
    }
    if (ref.kind === 'script') return this.followScript(from, ref, at);
    this.followConfig(from, ref, at);
  }

  /**
   * A sourced file's variables are read by the file that names it. A sourced file that launches the run runs in this
   * shell: read with the variables set before it is sourced, where this script launches nothing itself (a sourced setup
   * file's own commands are not the run).
   */
  private followSourced(from: Referrer, ref: Reference): void {
    const { file, facts } = from.self;
    if (!ref.shell || facts.references.some((r) => r.kind === 'script')) return;
    const launches = sourcedLaunch(this.reader, file, ref);
    if (!launches) return;
    const shell = calledBy(file, ref.shell);
    this.visit(launches.path, launches.text, { role: 'config', depth: from.how.depth + 1, forced: 'shell', shell });
  }

  /**
   * A module of the project (or its package's `__init__.py`): beside the script, or (an absolute import) from a folder
   * above it; an installed package is
   * not a file of the run, and is not said. It runs in the script's process: the launch line's options are its command
   * line too.
   */
  private followModule(from: Referrer, ref: Reference): void {
    const { file } = from.self;
    const found = findModule(this.reader, file, ref.path);
    if (found.text === undefined || (found.above && /^\.\.?\//.test(ref.path))) return;
    from.moduleOptions ??= argumentEnvironment(from.analyzed.options, from.scriptArgs, from.how.module?.options, file);
    const entries = this.moduleEntries(found.path, ref);
    if (entries === undefined) return;
    const { calls, callArgs, starImport } = entries;
    // A package's `__init__.py` that imports its modules passes the importer's calls on: no step of its own.
    const step = /(^|[\\/])__init__\.py$/.test(file) ? 0 : 1;
    this.visit(found.path, found.text, {
      role: 'referenced',
      depth: from.how.depth + step,
      forced: 'hf-python',
      module: { options: from.moduleOptions, calls, callArgs, imported: true, ...(starImport ? { starImport } : {}) },
      ...(from.scriptArgs ? { scriptArgs: from.scriptArgs } : {}),
      ...(from.how.environment ? { environment: from.how.environment } : {}),
    });
  }

  /**
   * The names to read a module for: those this file calls into, with those other files of the run called before; the
   * module read for fewer is read again (ChatGLM-Efficient-Tuning's utils/other.py: its package's `__init__.py` calls
   * plot_loss, common.py calls prepare_model_for_training, whose checkpointing is the run's). Undefined where it was
   * read for all of them already. Names from star imports only (`from utils import *`) are kept where the module
   * defines them (ModuleContext.starImport).
   */
  private moduleEntries(
    path: string,
    ref: Reference,
  ): { calls: string[]; callArgs: Reference['callArgs']; starImport: true | undefined } | undefined {
    const { calls = [], callArgs } = ref;
    const before = this.moduleCalls.get(path);
    const starImport = (before?.starImport ?? true) && ref.starImport === true;
    if (before && calls.every((c) => before.calls.has(c)))
      return this.seen.has(path) ? undefined : { calls: [...calls], callArgs, starImport: ref.starImport };
    const all = [...new Set([...(before?.calls ?? []), ...calls])];
    const args = before?.callArgs || callArgs ? { ...callArgs, ...before?.callArgs } : undefined;
    this.moduleCalls.set(path, { calls: new Set(all), callArgs: args, starImport });
    if (before && this.seen.has(path)) {
      this.seen.delete(path);
      const files = this.collected.files;
      const at = files.findIndex((f) => f.file === path);
      if (at >= 0) files.splice(at, 1);
    }
    return { calls: all, callArgs: args, starImport: starImport || undefined };
  }

  /**
   * The training script a launcher runs: read when it is there; one that is not (another checkout) is noted for
   * mergeFiles, which says so at its name; a module that is none of the checkout's files is an installed package's.
   */
  private followScript(from: Referrer, named: Reference, at: Location): void {
    const { file } = from.self;
    const ref = this.withWritten(file, named);
    const found = ref.program ? this.programModule(from.self, ref) : located(this.reader, file, ref);
    if (found?.text === undefined) {
      if (ref.module === undefined && !ref.program) this.collected.missingScripts.push({ ...at, path: ref.path });
      return;
    }
    // A Python file the launch line runs is the training program even where none of the constructs detection looks for
    // is in it: a thin entry point (LLaVA's and FastChat's train_mem.py: `from llava.train.train import train;
    // train()`) is read for the modules it calls. Another shell script the launcher runs is the run's launcher, read
    // with the words it is given.
    if (!ref.shell && detectFormat(found.path, found.text) !== 'hf-python' && !/\.py$/i.test(found.path)) return;
    const elsewhere = foundElsewhere(at, ref, found);
    if (elsewhere) this.collected.problems.push(elsewhere);
    const depth = from.how.depth + 1;
    if (ref.shell) {
      this.visit(found.path, found.text, { role: 'config', depth, forced: 'shell', shell: calledBy(file, ref.shell) });
      return;
    }
    const reader = this.reader;
    this.visit(found.path, found.text, {
      role: 'referenced',
      depth,
      forced: 'hf-python',
      scriptArgs: ref.args ?? [],
      ...(ref.positionals ? { scriptPositionals: ref.positionals } : {}),
      configArgs: (read) => scriptConfigArguments(reader, file, read, ref),
      configuratorArgs: () => configuratorArguments(reader, file, ref.positionalFiles),
      ...(ref.overrides ? { hydraOverrides: ref.overrides } : {}),
      ...(ref.environment ? { environment: new Map(ref.environment.map((v) => [v.name, v.value])) } : {}),
      // A script the launcher writes itself is not edited by a fix (its text is in the launcher's heredoc).
      ...(ref.text !== undefined ? { origin: { kind: 'inline' as const } } : {}),
    });
    if (ref.program) this.settleProgram(from.self, found.path, ref);
    if (ref.toolByName) this.settleToolByName(from.self, found.path, ref.toolByName);
    this.settleFlagObjective(from.self);
    this.settleUnreadOptions(from.self, found.path);
    this.settleWordTruth(from.self, found.path, ref);
    this.settleUnreadCommandLine(from.self, found.path, ref);
  }

  /** The module of a program a launch line runs by its name, where the project declares it as a console script. */
  private programModule(launcher: AnalyzedFile, ref: Reference): ReturnType<typeof located> | undefined {
    const module = consoleScriptModule(this.reader, launcher.file, ref.path);
    return module ? { ...module, above: false, up: 0 } : undefined;
  }

  /**
   * The note that a program run by its name has no code in these files, once its module is read: gone where the
   * project's code gives the run's settings, else said again with the module it runs.
   */
  private settleProgram(launcher: AnalyzedFile, module: string, ref: Reference): void {
    const read = this.collected.files.filter((f) => f.file !== launcher.file && f.facts.format === 'hf-python');
    const gives = read.some((f) => f.facts.facts.length > 0);
    const named = (p: ConfigFacts['problems'][number]): boolean =>
      p.code === 'read-by-name' && p.span.start === ref.span.start;
    const said = {
      ...msg(
        "{0} runs {1}, a console script of this project, in which nothing gives the run's settings: its options are " +
          "read by their names, as the HF Trainer's (TrainingArguments); a default of the program's own is not seen",
        ref.path,
        module.split(/[\\/]/).slice(-2).join('/'),
      ),
    };
    this.launcherFacts(launcher, (facts) => ({
      ...facts,
      problems: facts.problems.flatMap((p) => (!named(p) ? [p] : gives ? [] : [{ ...p, ...said }])),
    }));
  }

  /** A launch line's sequence length from an option its script declares and nothing of the run reads: none. */
  private settleUnreadOptions(launcher: AnalyzedFile, script: string): void {
    const read = this.collected.files.find((f) => f.file === script);
    if (read?.facts.format !== 'hf-python') return;
    const modules = this.collected.files.filter((f) => f !== read && f.facts.format === 'hf-python');
    this.launcherFacts(launcher, (facts) => withoutUnreadOptions(facts, read, modules));
  }

  /** A false word the launch line gives an option its script declares with argparse `type=bool`: on. */
  private settleWordTruth(launcher: AnalyzedFile, script: string, ref: Reference): void {
    const read = this.collected.files.find((f) => f.file === script);
    if (read?.facts.format !== 'hf-python') return;
    this.launcherFacts(launcher, (facts) => withWordTruth(facts, launcher.text, read, ref));
  }

  /** The options a launch line passes a script that reads no command line: none of the run's. */
  private settleUnreadCommandLine(launcher: AnalyzedFile, script: string, ref: Reference): void {
    const read = this.collected.files.find((f) => f.file === script);
    if (read?.facts.format !== 'hf-python') return;
    const modules = this.collected.files.filter((f) => f !== read && f.facts.format === 'hf-python');
    this.launcherFacts(launcher, (facts) => withoutUnreadCommandLine(facts, read, modules, ref));
  }

  /**
   * The objective a launch line's flags made an assumption of, where its script was not read (`--ref_model`: DPO,
   * shell/reference-flags.ts): the script, read, says which trainer it builds, so the assumption goes.
   */
  private settleFlagObjective(launcher: AnalyzedFile): void {
    this.launcherFacts(launcher, (facts) => ({ ...facts, facts: facts.facts.filter((f) => !isFlagObjective(f)) }));
  }

  /**
   * A launcher whose flags were read under the tool its script's name suggests (TRL's for an `sft.py`): where the script
   * read builds transformers' Trainer or a loop of its own and nothing of TRL, the launcher's flags and tool are that
   * trainer's (ZLHe0/MiniOneRec's sft.py, a transformers.Trainer run by `torchrun sft.py`, took TRL's defaults).
   */
  private settleToolByName(launcher: AnalyzedFile, script: string, guessed: Tool): void {
    const read = this.collected.files.find((f) => f.file === script);
    const own = read?.facts.tools.find((t) => t === 'hf-trainer' || t === 'pytorch');
    if (!read || read.facts.tools.includes(guessed) || !own) return;
    this.launcherFacts(launcher, (facts) => ({
      ...facts,
      tools: facts.tools.map((t) => (t === guessed ? own : t)),
      facts: facts.facts.map((f) => (f.tool === guessed ? { ...f, tool: own } : f)),
    }));
  }

  /**
   * The launcher's analysis as what its script, once read, makes of it: found by its file, so that each settling above
   * takes the one before it into account.
   */
  private launcherFacts(launcher: AnalyzedFile, change: (facts: ConfigFacts) => ConfigFacts): void {
    const at = this.collected.files.findIndex((f) => f.file === launcher.file);
    if (at < 0) return;
    const current = this.collected.files[at];
    this.collected.files[at] = { ...current, facts: change(current.facts) };
  }

  /** The places a relative path from a file may be read at (findReference's order). */
  private places(file: string, path: string): string[] {
    const relative = path.replace(/^(\.\/)+/, '');
    return this.reader.lookup?.(file, relative) ?? [this.reader.join(file, relative)];
  }

  /** The heredocs a launcher writes files with (the last write of a path stands): the run reads what they write. */
  private noteWritten(file: string, text: string): void {
    // A launcher over the size limit is not analyzed (guards.ts): neither are its heredocs and variables.
    if (text.length > MAX_ANALYZED_CHARS.shell || !/<</.test(text)) return;
    const values = new Map<string, string>();
    for (const v of variablesOf(text))
      if (v.parts.every((p) => p.unknown === undefined)) values.set(v.name, v.parts.map((p) => p.text).join(''));
    for (const w of heredocFiles(text, values))
      for (const place of this.places(file, w.path)) this.written.set(place, { text: w.text, writtenBy: file });
  }

  /** A file a launcher of the run writes before it runs (`cat > ds_config.json <<'EOF'`): the text the run reads. */
  private withWritten(file: string, named: Reference): Reference {
    if (named.text !== undefined || this.written.size === 0) return named;
    const at = this.places(file, named.path).find((p) => this.written.has(p));
    return at !== undefined ? { ...named, ...this.written.get(at)! } : named;
  }

  /** A config file (a DeepSpeed JSON, an Accelerate YAML, a Hydra config, an inherited parent) the file names. */
  private followConfig(from: Referrer, named: Reference, at: Location): void {
    const { file } = from.self;
    const ref = this.withWritten(file, named);
    const found = located(this.reader, file, ref);
    const t = found.text;
    const refusal = t === undefined ? this.reader.refusal?.(found.path) : undefined;
    const depth = from.how.depth + 1;
    const note = t === undefined ? undefined : foundElsewhere(at, ref, found);
    if (note) this.collected.problems.push(note);
    // A file a tool ships, named as its examples do, read as published when none is there.
    const shippedFormat = shippedDeepspeedFormat(from.format, from.self.facts.tools);
    const shipped = t === undefined && !refusal ? shippedFile(ref, shippedFormat) : undefined;
    if (shipped) {
      const hydra = ref.hydra ? hydraHow(ref, from.how, file) : {};
      this.visit(shipped.file, shipped.text, { role: 'referenced', depth, ...shipped.how, ...hydra });
      return;
    }
    const sibling = t === undefined && !refusal ? otherYamlEnding(this.reader, found.path) : undefined;
    const unread = notRead(ref, found.path, t, refusal, sibling?.split(/[\\/]/).pop());
    if (unread || t === undefined) {
      if (unread) this.collected.problems.push({ ...at, severity: 'warning', code: 'reference-not-found', ...unread });
      return;
    }
    const deepspeed = ref.kind === 'deepspeed';
    const fsdp = ref.kind === 'fsdp-config';
    // A Hydra application's primary config takes the overrides its script's launch line passes (hydraHow).
    this.visit(found.path, t, {
      // A DeepSpeed config, an FSDP options file and a config's inherited parent rank below the file that names them.
      role: deepspeed || fsdp || ref.base ? 'referenced' : 'config',
      depth,
      ...(deepspeed
        ? { forced: 'deepspeed-json' as const }
        : fsdp
          ? { forced: 'fsdp-config-json' as const }
          : ref.hydra
            ? { forced: 'hydra-yaml' as const }
            : {}),
      ...(ref.args ? { overrides: ref.args } : {}),
      ...(ref.replacedKeys ? { replacedKeys: ref.replacedKeys } : {}),
      ...(ref.hydra ? hydraHow(ref, from.how, file) : {}),
      // A file the referencing file writes (a notebook's %%writefile cell or json.dump) is not edited by a fix.
      ...(ref.text !== undefined ? { origin: { kind: 'inline' as const } } : {}),
    });
  }
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

/** A launch script whose values come from its positional parameters, which only a command that runs it gives. */
function takesArguments(facts: ConfigFacts): boolean {
  return facts.facts.some(
    (f) => isUnknown(f.value) && /positional argument \$[1-9] of the script/.test(f.value.unknown),
  );
}

/** Where a README's command runs the file given alone: the run's launch line, said at the command. */
function readmeNote(readme: ReadmeLaunch, script: Span): Problem {
  const { path, text, sibling } = readme;
  const name = text.slice(script.start, script.end);
  return {
    ...locateOffset(path, text, script.start, script.end),
    severity: 'info',
    code: 'readme-launch',
    ...(sibling
      ? msg(
          "{0} is run as this command runs {1}, the file beside it, which nothing else in these files runs: the rest of the command is the run's",
          name,
          sibling,
        )
      : msg("{0} is run by this command, which nothing else in these files runs: its arguments are the run's", name)),
  };
}

/** Config files a README's command can launch, when one is given alone (their launcher and script are the command's). */
const README_CONFIGS: ReadonlySet<Format> = new Set([
  'hf-yaml',
  'deepspeed-json',
  'accelerate-yaml',
  'axolotl-yaml',
  'llamafactory-yaml',
  'torchtune-yaml',
  'litgpt-yaml',
  'swift-yaml',
  'verl-yaml',
  'llmfoundry-yaml',
  'oumi-yaml',
  'autotrain-yaml',
  'ludwig-yaml',
  'mistral-finetune-yaml',
  'align-anything-yaml',
  'arctic-yaml',
  'glm-finetune-yaml',
]);

/** The launch script a README's shell code blocks or a Makefile's training target hold, read in place. */
function launchScriptIn(file: string, text: string): string | undefined {
  if (/\.(md|markdown)$/i.test(file)) return markdownLaunch(text);
  return isMakefile(file) ? makefileLaunch(text) : undefined;
}

/** Whether a shell script a launcher runs launches something itself: a value of a run, or a script it runs. */
function launchesSomething(text: string | undefined): boolean {
  if (text === undefined) return false;
  const analyzed = analyzeShell(text);
  return analyzed.facts.length > 0 || analyzed.references.some((r) => r.kind === 'script');
}
