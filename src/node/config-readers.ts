// The run of a config file no file of the project names: a training script that takes its YAML or JSON through an
// option (`--config`, `--config_path`, `--cfg`) whose default or usage line names a file beside it
// (`configs/sft_qwen2_7b.yaml` for `configs/sft_llama3_8b.yaml`), or that has no value for the option at all, given
// the file there, or a launch script of it that passes its first argument through, run with the file. The CLI given
// such a file alone (cli/main.ts) and the editor's index of runs (server/runs.ts) read it as the first of these runs
// that reads it and trains; the editor hands it the scripts its background scan found declaring such an option and
// the launchers its index knows, so that no folder is walked for it on the analysis's path. Files come through the pipeline's reader.
import * as path from 'node:path';
import { runPipeline, type FileReader, type InputFile } from '../analyzers/pipeline';
import type { LaunchArgument } from '../analyzers/facts';
import { detectFormat } from '../analyzers/detect';
import { findReference } from '../analyzers/file-reader';
import { usageArguments } from '../analyzers/hf-python/usage-line';
import { runTrains } from '../analyzers/trains';
import { candidates } from './candidates';
import { launchersOf } from './launchers';

/**
 * Where the scripts and their launchers are found: the CLI walks the working folder (candidates.ts, launchers.ts); the
 * editor's index of runs hands what its background scan already read.
 */
export interface ProjectFiles {
  /** Files that may be scripts taking configs (only the `.py` ones are read). */
  readonly scripts: readonly string[];
  /** The files that run a script. */
  readonly launchersOf: (script: string) => readonly string[];
}

/** A run that reads a file no file names: its entry, given as the pipeline's input, and what to say of it. */
export interface ImpliedRun {
  readonly entry: string;
  readonly inputs: readonly InputFile[];
  /** `read as the run of scripts/run_grpo.py --config configs/x.yaml (its --config reads ..., a file beside it)`. */
  readonly said: string;
}

/**
 * The first run that reads `file` and trains, of those the scripts that take configs like it make (configReadersOf):
 * for each script, its launchers that pass their first argument on (`CFG=${1:-configs/sft_qwen2_7b.yaml}`), run with
 * the file as that argument, then the script with the file as its option's value. Undefined for a file that is no
 * YAML or JSON, or that none of them reads.
 */
export function impliedRunOf(
  file: string,
  root: string,
  reader: FileReader,
  project: ProjectFiles = {
    scripts: candidates(root),
    launchersOf: (script) => launchersOf(script, root, reader),
  },
): ImpliedRun | undefined {
  const target = path.resolve(file);
  // A training config names its model somewhere (`model_name`, `base_model`, `model: {path: ...}`); a file that does
  // not (a dataset card, a CI workflow, an environment) is not offered to the scripts, whose texts are then not read.
  if (!/model/i.test(reader.read(target) ?? '')) return undefined;
  const reads = (inputs: readonly InputFile[]): boolean => {
    const run = runPipeline(inputs, reader, {});
    return runTrains(run.files) && run.files.some((f) => path.resolve(f.file) === target);
  };
  for (const r of configReadersOf(target, { root, scripts: project.scripts }, reader)) {
    const text = reader.read(r.script);
    if (text === undefined) continue;
    const script = path.relative(root, r.script);
    const value = r.args[0].value ?? '';
    for (const launcher of project.launchersOf(r.script)) {
      const shell = reader.read(launcher);
      if (shell === undefined || !/\$\{?1\b/.test(shell) || detectFormat(launcher, shell) !== 'shell') continue;
      const inputs = [{ file: launcher, text: shell, words: [value] }];
      if (reads(inputs))
        return {
          entry: launcher,
          inputs,
          said: `read as the run of ${path.relative(root, launcher)} ${value}, which runs ${script} with it (${r.why})`,
        };
    }
    const inputs = [{ file: r.script, text, args: r.args }];
    if (reads(inputs))
      return { entry: r.script, inputs, said: `read as the run of ${script} --${r.args[0].name} ${value} (${r.why})` };
  }
  return undefined;
}

/** A script that may take the file through one of its options. */
interface ConfigReader {
  readonly script: string;
  readonly args: readonly LaunchArgument[];
  /** Why this script: the option and the value it has without the file (`its default configs/sft_qwen2_7b.yaml`). */
  readonly why: string;
}

/** At most this many scripts are offered, best first. */
const MAX_READERS = 6;

/** The long name of an option that takes a config file: config, cfg, conf, yaml, with a prefix or a path suffix. */
const CONFIG_OPTION = /^--(?:[a-z0-9]+[-_])?(?:config|cfg|conf|yaml)(?:[-_](?:path|file|name))?$/i;

/** One `add_argument(...)` call's first string arguments (its flags) and its `default=` string, if any. */
const ADD_ARGUMENT = /\.add_argument\(\s*((?:["'][^"'\n]+["']\s*,\s*)+)([^()]*(?:\([^()]*\)[^()]*)*)\)/g;

/** Words of a file's name that say what it trains, shared between a script's and a config's names. */
const STAGE_WORDS = new Set([
  'sft',
  'dpo',
  'grpo',
  'ppo',
  'orpo',
  'kto',
  'simpo',
  'rm',
  'reward',
  'pretrain',
  'pretraining',
  'cpt',
  'distill',
  'kd',
  'lora',
  'qlora',
  'rl',
  'rlhf',
  'finetune',
]);
/** Words of a script's name that say it does not train. */
const NOT_TRAINING = /(?:^|[^a-z])(eval|evaluate|infer|inference|generate|predict|test|serve|merge|export|convert)/i;

/** An option's default that names a YAML or JSON file (`default='train_args/sft/qlora/qwen-7b-sft-qlora.json'`). */
const FILE_DEFAULT = /\bdefault\s*=\s*["'][^"'\n]+\.(?:json|ya?ml)["']/i;

/**
 * Whether a script's text declares an option that may take a config file, by its name or by a default naming one
 * (yangjianxin1/Firefly's `--train_args_file`): a cheap test before configOption.
 */
export function takesConfigOption(text: string): boolean {
  return (
    text.includes('add_argument') &&
    (/["']--(?:[a-z0-9]+[-_])?(?:config|cfg|conf|yaml)\b/i.test(text) || FILE_DEFAULT.test(text))
  );
}

/**
 * The option of a script's text that takes a config file, by its name or by its default naming one, and the values it
 * has without one (default, usage line).
 */
function configOption(text: string, file: string): { option: string; values: string[] } | undefined {
  for (const m of text.matchAll(ADD_ARGUMENT)) {
    // A call commented out (Firefly's train.py keeps its earlier `# parser.add_argument("--train_args_file", ...)`).
    if (text.slice(text.lastIndexOf('\n', m.index) + 1, m.index).includes('#')) continue;
    const flags = [...m[1].matchAll(/["']([^"']+)["']/g)].map((f) => f[1]);
    const long = flags.find((f) => f.startsWith('--'));
    const option = flags.find((f) => CONFIG_OPTION.test(f)) ?? (FILE_DEFAULT.test(m[2]) ? long : undefined);
    if (!option) continue;
    const name = option.replace(/^--/, '');
    const values: string[] = [];
    const dflt = /\bdefault\s*=\s*["']([^"'\n]+)["']/.exec(m[2]);
    if (dflt) values.push(dflt[1]);
    for (const a of usageArguments(text, file)?.args ?? [])
      if (a.name === name && typeof a.value === 'string') values.push(a.value);
    return { option: name, values };
  }
  return undefined;
}

/** The words of a file's base name, lower case. */
function words(file: string): string[] {
  return path
    .basename(file)
    .replace(/\.[^.]+$/, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * The scripts under `root` that may read `file` through a config option, best first: one whose option names a file of
 * the same kind in the same folder, then one whose option has no value without a launch line; among equals, one whose
 * name shares a stage word with the file's (`train_sft.py` for `sft_ultrachat.yaml`). Scripts named for evaluation or
 * inference, and those whose option names a file elsewhere, are left out.
 */
function configReadersOf(
  file: string,
  { root, scripts }: { root: string; scripts: readonly string[] },
  reader: FileReader,
): ConfigReader[] {
  const target = path.resolve(file);
  const ext = path.extname(target).toLowerCase();
  if (!/^\.(ya?ml|json)$/.test(ext)) return [];
  const fileWords = new Set(words(target).filter((w) => STAGE_WORDS.has(w)));
  const found: (ConfigReader & { score: number })[] = [];
  for (const script of scripts) {
    if (!/\.py$/i.test(script) || NOT_TRAINING.test(path.basename(script))) continue;
    const text = reader.read(script);
    if (text === undefined || !takesConfigOption(text)) continue;
    const opt = configOption(text, script);
    if (!opt) continue;
    const placed = placeOf(reader, { script, root }, target, ext, opt.values);
    if (!placed) continue;
    const shared = words(script).filter((w) => fileWords.has(w)).length;
    found.push({
      script: path.resolve(script),
      args: [{ name: opt.option, value: placed.value, from: `${placed.value}, the file given, as --${opt.option}` }],
      why: placed.why(opt.option),
      score: placed.score + shared / 2,
    });
  }
  found.sort((a, b) => b.score - a.score || a.script.localeCompare(b.script));
  return found.slice(0, MAX_READERS).map(({ script, args, why }) => ({ script, args, why }));
}

/**
 * How the script would be given the file: written as its option's own value is, with the file's name (from the
 * working folder, where the script runs, when it has none), with a score of 2 where that value names a file of the
 * same kind in the same folder and 1 where the option has no value; undefined where its values name files elsewhere.
 */
function placeOf(
  reader: FileReader,
  { script, root }: { script: string; root: string },
  target: string,
  ext: string,
  values: readonly string[],
): { value: string; score: number; why: (option: string) => string } | undefined {
  for (const v of values) {
    if (path.extname(v).toLowerCase() !== ext) continue;
    const found = findReference(reader, script, v);
    if (found.text === undefined) continue;
    const at = path.resolve(found.path);
    if (path.dirname(at) === path.dirname(target)) {
      // The value as the script's own is written, the file's name in place of its own (`../configs/a.yaml`).
      const value = `${v.slice(0, v.length - path.posix.basename(v).length)}${path.basename(target)}`;
      return { value, score: 2, why: (o) => `its --${o} reads ${v}, a file beside it` };
    }
    const tree = configTree(at, v);
    if (tree && target.startsWith(tree.folder + path.sep)) {
      const value = `${tree.written}${path.relative(tree.folder, target).split(path.sep).join('/')}`;
      return { value, score: 1.5, why: (o) => `its --${o} reads ${v}, a file of the same folder tree` };
    }
  }
  if (values.length > 0) return undefined;
  const value = path.relative(path.resolve(root), target).split(path.sep).join('/');
  return { value, score: 1, why: (o) => `its --${o} has no value without a launch line` };
}

/**
 * The top folder a value names its file under (`train_args/` of `train_args/sft/qlora/qwen-7b-sft-qlora.json`): the
 * tree of configs of one kind (yangjianxin1/Firefly keeps its DPO configs in train_args/dpo/lora/). Undefined for a
 * value with fewer than two folders (its own folder is `placeOf`'s first test).
 */
function configTree(found: string, value: string): { folder: string; written: string } | undefined {
  const parts = value.split('/').filter((p) => p !== '.' && p !== '');
  const lead = parts.findIndex((p) => p !== '..');
  if (lead < 0 || parts.length - lead < 3) return undefined;
  const below = parts.length - lead - 1;
  let folder = found;
  for (let i = 0; i < below; i++) folder = path.dirname(folder);
  const written = value.slice(0, value.indexOf(parts[lead]) + parts[lead].length + 1);
  return { folder, written };
}

/**
 * The option of a script whose default names `file` (yangjianxin1/Firefly's `--train_args_file` for
 * train_args/sft/qlora/qwen-7b-sft-qlora.json), as a launch option giving it; undefined where none does. The run of
 * such a file is the script with that option set, not a command elsewhere that gives another file.
 */
export function optionNaming(
  script: string,
  text: string,
  file: string,
  reader: FileReader,
): LaunchArgument[] | undefined {
  if (!/\.(ya?ml|json)$/i.test(file) || !takesConfigOption(text)) return undefined;
  const opt = configOption(text, script);
  const v = opt?.values[0];
  if (!opt || v === undefined) return undefined;
  const found = findReference(reader, script, v);
  if (found.text === undefined || path.resolve(found.path) !== path.resolve(file)) return undefined;
  return [{ name: opt.option, value: v, from: `${v}, its default` }];
}
