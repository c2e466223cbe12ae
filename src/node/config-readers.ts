// The scripts that may read a config file no file of the project names: a training script that takes its YAML or
// JSON through an option (`--config`, `--config_path`, `--cfg`) whose default or usage line names a file beside it
// (`configs/sft_qwen2_7b.yaml` for `configs/sft_llama3_8b.yaml`), or that has no value for the option at all. The CLI
// given such a file alone reads it as the run of the first of them that reads it and trains (cli/main.ts). Text only;
// files come through the pipeline's reader.
import * as path from 'node:path';
import type { FileReader } from '../analyzers/pipeline';
import type { LaunchArgument } from '../analyzers/facts';
import { findReference } from '../analyzers/file-reader';
import { usageArguments } from '../analyzers/hf-python/usage-line';
import { candidates } from './candidates';

/** A script that may take the file through one of its options. */
export interface ConfigReader {
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

/** The option of a script's text that takes a config file, and the values it has without one (default, usage line). */
function configOption(text: string, file: string): { option: string; values: string[] } | undefined {
  for (const m of text.matchAll(ADD_ARGUMENT)) {
    const flags = [...m[1].matchAll(/["']([^"']+)["']/g)].map((f) => f[1]);
    const option = flags.find((f) => CONFIG_OPTION.test(f));
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
export function configReadersOf(file: string, root: string, reader: FileReader): ConfigReader[] {
  const target = path.resolve(file);
  const ext = path.extname(target).toLowerCase();
  if (!/^\.(ya?ml|json)$/.test(ext)) return [];
  const fileWords = new Set(words(target).filter((w) => STAGE_WORDS.has(w)));
  const found: (ConfigReader & { score: number })[] = [];
  for (const script of candidates(root)) {
    if (!/\.py$/i.test(script) || NOT_TRAINING.test(path.basename(script))) continue;
    const text = reader.read(script);
    if (text === undefined || !text.includes('add_argument')) continue;
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
 * How the script would be given the file: the path written as its option's own value is (relative to the folder that
 * value is found from; from the working folder, where the script runs, when it has none), with a score of 2 where that
 * value names a file of the same kind in the same folder and 1 where the option has no value; undefined where its
 * values name files elsewhere.
 */
function placeOf(
  reader: FileReader,
  { script, root }: { script: string; root: string },
  target: string,
  ext: string,
  values: readonly string[],
): { value: string; score: number; why: (option: string) => string } | undefined {
  const rel = (from: string): string => path.relative(from, target).split(path.sep).join('/');
  for (const v of values) {
    if (path.extname(v).toLowerCase() !== ext) continue;
    const found = findReference(reader, script, v);
    if (found.text === undefined || path.dirname(path.resolve(found.path)) !== path.dirname(target)) continue;
    const base = path.resolve(found.path).slice(0, -path.normalize(v).replace(/^\.\//, '').length);
    return { value: rel(base), score: 2, why: (o) => `its --${o} reads ${v}, a file beside it` };
  }
  if (values.length > 0) return undefined;
  return { value: rel(path.resolve(root)), score: 1, why: (o) => `its --${o} has no value without a launch line` };
}
