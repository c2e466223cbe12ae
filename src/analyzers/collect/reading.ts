// How a file of a run is read (collect/index.ts): with what the file that led to it passes on — the launch line's
// options, the keys of the config file its parser reads, the variables of the files a shell script sources.
// Pure: files come through the pipeline's FileReader.
import { analyzeAs, type ReadingContext } from '../detect';
import { variablesOf } from '../shell';
import type { SourcedVariable, SourcedVariables } from '../shell/sourced';
import { argumentEnvironment } from '../launch-args';
import { CONFIG_OPTION, configFileArguments } from '../config-arguments';
import type { ConfigFacts, ConfigOptionRead, Format, LaunchArgument, ModuleContext, Reference } from '../facts';
import type { AnalyzedFile, FileRole } from '../resolve';
import { nanogptConfigArguments } from '../hf-python/nanogpt';
import { usageArguments, type UsageCommand } from '../hf-python/usage-line';
import { withUsageTrainerFlags } from './usage-flags';
import { readmeCommand } from './locate';
import { consoleScriptsOf } from '../console-scripts';
import { findReference, projectModules, type FileReader } from '../file-reader';

/** How a file is read: its place in the run and what the file that led to it passes on. */
export interface VisitHow {
  readonly role: FileRole;
  readonly depth: number;
  readonly languageId?: string;
  /** The format a reference implies, over detection (a DeepSpeed JSON, a launcher's script). */
  readonly forced?: Format;
  readonly origin?: AnalyzedFile['origin'];
  /** For a launcher's script: the options the launch line passes it. */
  readonly scriptArgs?: Reference['args'];
  /** For a launcher's script: the positional words of its launch line, which fill a command's arguments. */
  readonly scriptPositionals?: Reference['positionals'];
  /** For a script: the keys of the config file its option names (or defaults to), read only if its parser reads it. */
  readonly configArgs?: (read: ConfigOptionRead) => readonly LaunchArgument[] | undefined;
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
  /** For a launcher's script and its modules: the variables of its environment the launch line gives (os.getenv). */
  readonly environment?: ReadingContext['environment'];
  /** For a given shell script: whether a path a launch writes names another file given (ReadingContext.launchNaming). */
  readonly launchNaming?: ReadingContext['launchNaming'];
  /** For a config: keys the trainer that reads it replaces (Reference.replacedKeys), whose values here are not read. */
  readonly replacedKeys?: Reference['replacedKeys'];
}

/**
 * The keys of the YAML or JSON file the script's option names (`--config`, the last one given; `train.py config.yaml`
 * gives `--config` by its first positional word), else the option's default, found from the launcher; none where the
 * file is not there (the reference to it says so).
 */
export function scriptConfigArguments(
  reader: FileReader,
  launcher: string,
  read: ConfigOptionRead,
  line: { readonly args?: Reference['args']; readonly positionals?: Reference['positionals'] } = {},
): LaunchArgument[] | undefined {
  const given = [...(line.args ?? [])].reverse().find((a) => a.name === read.option);
  const positional = read.option === CONFIG_OPTION ? line.positionals?.[0] : undefined;
  const path = (given?.value ?? positional ?? read.path ?? undefined)?.trim().replace(/^(['"])(.*)\1$/, '$2');
  if (!path || !/\.(ya?ml|json)$/i.test(path)) return undefined;
  const found = findReference(reader, launcher, path);
  if (found.text === undefined) return undefined;
  return configFileArguments(found.text, found.path.split(/[\\/]/).pop() ?? found.path);
}

/** The assignments of the Python files a launch line passes to nanoGPT's train.py, in order; none where none is there. */
export function configuratorArguments(
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

/**
 * The options of the usage line a script shows for itself, else of the first command that runs it in the README.md of
 * its folder (castorini/visa's qwen/README.md: `deepspeed ... train.py --model_name_or_path Qwen/Qwen2-VL-7B-Instruct
 * ...` beside a train.py whose model option has no default), each said to come from that line.
 */
function usageLine(
  file: string,
  text: string,
  reader: FileReader,
):
  { readonly args: NonNullable<Reference['args']>; readonly readme: boolean; readonly own?: UsageCommand } | undefined {
  const name = file.split(/[\\/]/).pop() ?? file;
  const commands = consoleScriptsOf(reader, file);
  const own = usageArguments(text, file, undefined, commands);
  if (own) {
    const from = `the usage line of ${name} (line ${own.line}${byConsoleScript(own)})`;
    return { args: own.args.map((a) => ({ ...a, from })), readme: false, own };
  }
  const readme = readmeCommand(reader, file, commands);
  if (!readme) return undefined;
  const from = `the command ${readme.name} shows for ${name} (line ${readme.usage.line}${byConsoleScript(readme.usage)})`;
  return { args: readme.usage.args.map((a) => ({ ...a, from })), readme: true };
}

/** `, qlora-train: its console script in pyproject.toml` where the line runs the script by that name. */
const byConsoleScript = (usage: UsageCommand): string =>
  usage.command ? `, ${usage.command}: its console script in pyproject.toml` : '';

/**
 * A file's facts and the options its launch line runs it with: the keys of the config file its parser reads
 * (TrlParser's --config, the Python files nanoGPT's configurator.py execs) come first, the launch line's own after
 * them, and win. nanoGPT's train.py computes its run from its globals as the command line sets them: it is read again
 * with them.
 */
export function analyzeWithArguments(
  format: Format,
  file: string,
  text: string,
  how: VisitHow,
  reader: FileReader,
): { walked: ConfigFacts; scriptArgs: Reference['args']; readmeUsage?: true } {
  const readModule = format === 'hf-python' ? projectModules(reader, file) : undefined;
  const environment = how.environment;
  const reading = {
    module: how.module,
    overrides: how.overrides,
    readModule,
    shell: how.shell,
    environment,
    launchNaming: format === 'shell' ? how.launchNaming : undefined,
  };
  const read = analyzeAs(format, text, reading);
  // A shell script that sources files is read again with the variables they set.
  const sourced = format === 'shell' ? sourcedVariables(reader, file, read.references) : undefined;
  const first = sourced ? analyzeAs(format, text, { ...reading, sourced }) : read;
  const configArgs = first.readsConfigOption
    ? how.configArgs?.(first.readsConfigOption)
    : first.readsConfigurator
      ? how.configuratorArgs?.()
      : undefined;
  const lineArgs = withCommandArguments(how.scriptArgs, how.scriptPositionals, first.commandArguments);
  const scriptArgs = configArgs ? [...configArgs, ...(lineArgs ?? [])] : lineArgs;
  // nanoGPT's configurator sets the globals from the files and flags; a script that reads options it has no value for
  // alone takes the launch line's own (a TrlParser config file's keys are merged as facts, said as the file's), and
  // with no launch line, the one its own docstring shows (hf-python/usage-line.ts).
  // The usage line stands for the launch line: the helper modules the script calls into read their options from it.
  const found =
    how.scriptArgs === undefined && format === 'hf-python' && first.readsLaunchOptions
      ? usageLine(file, text, reader)
      : undefined;
  // A usage line's file for the option whose default the script reads (the default names the file given) is not read.
  const defaulted = first.readsConfigOption?.path !== undefined ? first.readsConfigOption.option : undefined;
  const usage = found?.args.filter((a) => a.name !== defaulted);
  const launched = lineArgs ?? usage;
  const runArgs = scriptArgs ?? usage;
  const readmeUsage = found?.readme ? { readmeUsage: true as const } : {};
  // The config file's keys fill the parser's dataclasses below the line's flags, as TrlParser and
  // HfArgumentParser.parse_yaml_file give them: the script is read again with them where it reads such a field itself
  // (`model_args.target_modules`, a test of `model_args.peft_enabled`), as with the launch line's options.
  const rereadWith = first.readsConfigurator
    ? scriptArgs
    : configArgs?.length
      ? [...configArgs, ...(launched ?? [])]
      : first.readsLaunchOptions
        ? launched
        : undefined;
  // A Hydra application's script composes its config with the line's overrides (hf-python/hydra-app.ts).
  const hydraOverrides = first.readsLaunchOptions ? how.hydraOverrides : undefined;
  // The script's own usage line gives the Trainer's flags too where the script parses them (usage-flags.ts).
  const flags = (walked: ConfigFacts): ConfigFacts =>
    found?.own && walked.readsTrainerFlags
      ? withUsageTrainerFlags(walked, text, found.own, file.split(/[\\/]/).pop() ?? file)
      : walked;
  if (!rereadWith?.length && !hydraOverrides?.length)
    return { walked: flags(first), scriptArgs: runArgs, ...readmeUsage };
  const options = argumentEnvironment(first.options, rereadWith ?? [], undefined, file);
  // nanoGPT's and fsdp_qlora's scripts have readers of their own; a script is read as the line runs it, unsettled.
  const module = {
    options,
    calls: [],
    ...(first.readsConfigurator ? {} : { settled: false as const }),
    ...(hydraOverrides?.length ? { hydraOverrides } : {}),
  };
  const walked = flags(analyzeAs(format, text, { module, readModule, environment }));
  return { walked, scriptArgs: runArgs, ...readmeUsage };
}

/**
 * The launch line's options with its positional words given to the command's arguments by name, in order, those an
 * option names left out (Fire takes a parameter by its flag or by position: the words fill the others).
 */
function withCommandArguments(
  args: Reference['args'],
  positionals: Reference['positionals'],
  commandArguments: readonly string[] | undefined,
): Reference['args'] {
  if (!positionals?.length || !commandArguments?.length) return args;
  const named = new Set((args ?? []).map((a) => a.name.replace(/-/g, '_')));
  const free = commandArguments.filter((name) => !named.has(name));
  const byPosition = positionals
    .slice(0, free.length)
    .map((value, i): LaunchArgument => ({ name: free[i], value, positional: true }));
  return [...(args ?? []), ...byPosition];
}

/** How a shell script another runs is read: with the words it is given, and the caller's name to say where they are from. */
export function calledBy(file: string, shell: NonNullable<Reference['shell']>): ReadingContext['shell'] {
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
