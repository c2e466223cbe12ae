// The command a README.md shows for a file given alone, read as the file's launch line, in the file's folder or up to
// three folders above it (a repository's root README). For a launch script that takes its values as positional
// parameters (`model_path=$2`): the command that runs it (`./less/scripts/train/warmup_lora_train.sh "$DATA_DIR"
// "$MODEL_PATH" ...`, princeton-nlp/LESS). For a config file: the command that names it (`accelerate launch
// --config_file accelerate_configs/deepspeed_zero3.yaml scripts/run_simpo.py training_configs/X.yaml`), else, where
// the README runs a file beside it the same way and ends its command with it, that command with this file in its
// place (princeton-nlp/SimPO's README runs its Mistral and Llama-3 configs so; its gemma-2 config is run the same
// way). The README is read as a launch script in place: the command's lines and the variables its code block sets
// before it (`MODEL_PATH=meta-llama/Llama-2-7b-hf`), every other line blanked (offsets and lines kept). Pure; no I/O
// but the reader's.
import type { Span } from '../facts';
import type { FileReader } from '../file-reader';
import { README_LINES } from '../hf-python/usage-line';

/** Folders above the file's own that are looked in for a README (a repository's root over `scripts/train/`). */
const FOLDERS_UP = 3;

/**
 * The names a README goes by, read in this order: README.md, then the translations projects keep beside it or instead
 * of it (THUDM/ChatGLM3's finetune_demo: README.md in Chinese, README_en.md in English).
 */
export const README_NAMES = [
  'README.md',
  'readme.md',
  'README.MD',
  'Readme.md',
  'README_en.md',
  'README_EN.md',
  'README.en.md',
  'README_zh.md',
  'README_CN.md',
  'README_zh-CN.md',
];

/** What may come before a script on the command's line: a prompt, variables, a shell or runner with its options. */
const BEFORE_SCRIPT =
  /^\s*(?:[$>]\s+)?(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:nohup|bash|sh|zsh|time|srun|sbatch)\s+(?:-\S+\s+)*)*$/;

/** A line that starts a command a config is given to (a prompt and variables first): a launcher, a tool, a script. */
const COMMAND = new RegExp(
  String.raw`^\s*(?:[$>]\s+)?(?:[A-Za-z_]\w*=\S*\s+)*` +
    String.raw`(?:accelerate|torchrun|deepspeed|python3?|uv|llamafactory-cli|tune|axolotl|litgpt|swift|trl|composer|oumi|autotrain|ludwig|arctic_training|` +
    String.raw`nohup|bash|sh|srun|sbatch|\.\/\S+|\S+\.sh)(?=\s|$)`,
);

/** A variable set on a line of its own (`MODEL_PATH=...`, `export DATA_DIR=../data`). */
const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_]\w*=/;

/** A fenced code block's first or last line: the assignments a command takes do not cross it. */
const FENCE = /^\s*(```|~~~)/;

/** A README read as a file's launch line: its path, its text in place, and where the command names the file. */
export interface ReadmeLaunch {
  readonly path: string;
  readonly text: string;
  readonly script?: Span;
  /** The file beside it the README's command names, in whose place this file is put. */
  readonly sibling?: string;
}

/** A README's command and the lines read with it (0-based), where it names the file. */
interface Found {
  readonly lines: ReadonlySet<number>;
  readonly script: Span;
  readonly sibling?: string;
}

/** The README that runs a launch script, read as its launch line in place; undefined where none does. */
export function readmeShellLaunch(reader: FileReader, file: string): ReadmeLaunch | undefined {
  return readmeLaunchOf(reader, file, (lines, relative) => commandFor(lines, scriptRun(relative)));
}

/** The README whose command names a config file (or a file beside it, as its last word); undefined where none does. */
export function readmeConfigLaunch(reader: FileReader, file: string): ReadmeLaunch | undefined {
  return readmeLaunchOf(
    reader,
    file,
    (lines, relative) => commandFor(lines, configNamed(relative)) ?? siblingCommand(lines, relative),
  );
}

/** A multi-process launcher at a command's start: the GPUs, and how they share the model, are the line's. */
const LAUNCHER_COMMAND =
  /^\s*(?:[$>]\s+)?(?:[A-Za-z_]\w*=\S*\s+)*(?:nohup\s+)?(?:accelerate\s+launch|torchrun|deepspeed|python3?\s+-m\s+torch\.distributed\.(?:run|launch))(?=\s|$)/;

/**
 * The README whose command runs a Python script under a launcher (`accelerate launch --config_file
 * experiments/hh/reward/deepspeed_config_zero3.yaml experiments/hh/reward/train_reward_model_7b.py`), for a script
 * that needs no command line and that no launch script runs: the README's command is how the project runs it.
 */
export function readmeLauncherLaunch(reader: FileReader, file: string): ReadmeLaunch | undefined {
  return readmeLaunchOf(reader, file, (lines, relative) => {
    const named = new RegExp(`(^|\\s)(?:\\./)?${escape(relative)}(?=\\s|$)`);
    for (let i = 0; i < lines.length; i++) {
      if (!COMMAND.test(lines[i])) continue;
      const command = commandLinesAt(lines, i);
      for (const k of LAUNCHER_COMMAND.test(lines[i]) ? command : []) {
        const m = named.exec(lines[k]);
        if (!m) continue;
        const start = m.index + m[1].length;
        const script = offsetSpan(lines, k, { start, end: m.index + m[0].length });
        return { lines: withAssignments(lines, i, command), script };
      }
      i = command[command.length - 1];
    }
    return undefined;
  });
}

/**
 * The README whose command runs the Hydra application of a primary config given alone: a Python script in the folder
 * above the config's (`python -u train.py model=pythia28 loss=dpo ...` for config/config.yaml,
 * eric-mitchell/direct-preference-optimization), with Hydra overrides. Whether the script composes this config is
 * for the run to show (collect/index.ts keeps the command only where it leads back to the file).
 */
export function readmeHydraLaunch(reader: FileReader, file: string): ReadmeLaunch | undefined {
  return readmeLaunchOf(reader, file, (lines, relative) => {
    const parts = relative.split('/');
    if (parts.length < 2) return undefined;
    const above = parts.slice(0, -2);
    return commandFor(lines, hydraAppRun(above.length ? `${above.join('/')}/` : ''));
  });
}

/** Where a command's first line runs a Python script of `folder` under python (options first), overrides after it. */
function hydraAppRun(folder: string): (line: string, first: boolean) => { start: number; end: number } | undefined {
  const runs = new RegExp(`(^|\\s)(?:\\./)?${escape(folder)}[\\w.-]+\\.py(?=\\s|$)`);
  return (line, first) => {
    const m = first ? runs.exec(line) : null;
    if (!m) return undefined;
    const start = m.index + m[1].length;
    const end = m.index + m[0].length;
    const launcher = /^\s*(?:[$>]\s+)?(?:[A-Za-z_]\w*=\S*\s+)*python3?(?:\s+-\S+)*\s+$/.test(line.slice(0, start));
    return launcher && /\s[\w.+~]+=\S/.test(line.slice(end)) ? { start, end } : undefined;
  };
}

function readmeLaunchOf(
  reader: FileReader,
  file: string,
  find: (lines: readonly string[], relative: string) => Found | undefined,
): ReadmeLaunch | undefined {
  const parts = file.split(/[\\/]/);
  for (let up = 0; up <= FOLDERS_UP && up < parts.length; up++) {
    // Up to the root of the path as given (`less/scripts/train/x.sh` run from the repository's root), no further.
    if (['', '.', '..'].includes(parts[parts.length - 1 - up])) break;
    const relative = parts.slice(parts.length - 1 - up).join('/');
    for (const name of README_NAMES) {
      const path = reader.join(file, `${'../'.repeat(up)}${name}`);
      const text = reader.read(path);
      if (text === undefined) continue;
      const lines = text.split('\n');
      const found = find(lines.slice(0, README_LINES), relative);
      if (found) return launchIn(path, lines, found, relative);
    }
  }
  return undefined;
}

/** The README read as the command alone, with this file in the sibling's place where the command names one. */
function launchIn(path: string, lines: readonly string[], found: Found, relative: string): ReadmeLaunch {
  if (!found.sibling) return { path, text: keptLines(lines, found.lines), script: found.script };
  const text = keptLines(lines, found.lines, { at: found.script, by: relative });
  const script = { start: found.script.start, end: found.script.start + relative.length };
  return { path, text, script, sibling: found.sibling };
}

export const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where a command's first line runs the script at `relative`, only a prompt, variables or a shell before it. */
function scriptRun(relative: string): (line: string, first: boolean) => { start: number; end: number } | undefined {
  const runs = new RegExp(`(^|\\s)(?:\\./)?${escape(relative)}(?=\\s|$)`);
  return (line, first) => {
    const m = first ? runs.exec(line) : null;
    const start = m ? m.index + m[1].length : -1;
    return m && BEFORE_SCRIPT.test(line.slice(0, start)) ? { start, end: m.index + m[0].length } : undefined;
  };
}

/** Where a command's line names the config at `relative` as one of its words (`--config_file x.yaml`, `key=x.yaml`). */
function configNamed(relative: string): (line: string) => { start: number; end: number } | undefined {
  const named = new RegExp(`(^|[\\s='"])(?:\\./)?${escape(relative)}(?=[\\s'"]|$)`);
  return (line) => {
    const m = named.exec(line);
    return m ? { start: m.index + m[1].length, end: m.index + m[0].length } : undefined;
  };
}

/** The first command whose lines `at` finds the file in, with the assignments before it in its code block. */
function commandFor(
  lines: readonly string[],
  at: (line: string, first: boolean) => { start: number; end: number } | undefined,
): Found | undefined {
  for (let i = 0; i < lines.length; i++) {
    if (!COMMAND.test(lines[i])) continue;
    const command = commandLinesAt(lines, i);
    for (const k of command) {
      const where = at(lines[k], k === i);
      if (where) return { lines: withAssignments(lines, i, command), script: offsetSpan(lines, k, where) };
    }
    i = command[command.length - 1];
  }
  return undefined;
}

/**
 * A command that ends with a file beside this one (same folder, same extension: the README runs each recipe of a
 * folder the same way): its lines, with this file to be put in the sibling's place.
 */
function siblingCommand(lines: readonly string[], relative: string): Found | undefined {
  const folder = relative.slice(0, relative.lastIndexOf('/') + 1);
  const ext = /\.\w+$/.exec(relative)?.[0];
  if (!ext) return undefined;
  // The command's last word, before a comment (`configs/lora.yaml # For Chat Fine-tune`, THUDM/GLM-4's README).
  const last = new RegExp(`(^|\\s)((?:\\./)?${escape(folder)}[^\\s/'"]+${escape(ext)})\\s*(?:#.*)?$`);
  for (let i = 0; i < lines.length; i++) {
    if (!COMMAND.test(lines[i])) continue;
    const command = commandLinesAt(lines, i);
    const end = command[command.length - 1];
    const m = last.exec(lines[end]);
    if (m && m[2].replace(/^\.\//, '') !== relative) {
      const start = m.index + m[1].length;
      const script = offsetSpan(lines, end, { start, end: start + m[2].length });
      return { lines: withAssignments(lines, i, command), script, sibling: m[2] };
    }
    i = end;
  }
  return undefined;
}

/** A command's lines from `i`, joined by trailing backslashes. */
function commandLinesAt(lines: readonly string[], i: number): number[] {
  const out = [i];
  for (let j = i; /\\\s*$/.test(lines[j]) && j + 1 < lines.length;) out.push(++j);
  return out;
}

/** The command's lines and the assignments before it in its code block. */
export function withAssignments(lines: readonly string[], first: number, command: readonly number[]): Set<number> {
  const kept = new Set(command);
  for (let k = first - 1; k >= 0 && !FENCE.test(lines[k]); k--) if (ASSIGNMENT.test(lines[k])) kept.add(k);
  return kept;
}

function offsetSpan(lines: readonly string[], line: number, at: { start: number; end: number }): Span {
  const lineStart = lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  return { start: lineStart + at.start, end: lineStart + at.end };
}

/**
 * The README's lines with every line but `kept` (0-based) blanked, each character a space and each line break kept,
 * a prompt before a command blanked too; `replace`: the sibling's path at that span written over by this file's (the
 * last word of its command, so what follows on the README's later lines, all blank, is all that moves).
 */
function keptLines(lines: readonly string[], kept: ReadonlySet<number>, replace?: { at: Span; by: string }): string {
  const text = lines
    .map((line, i) => (kept.has(i) ? line.replace(/^(\s*)([$>] )/, (_, lead: string) => `${lead}  `) : blank(line)))
    .join('\n');
  return replace ? text.slice(0, replace.at.start) + replace.by + text.slice(replace.at.end) : text;
}

/** A line blanked: every character a space (a carriage return kept), its length and the text's offsets kept. */
export function blank(line: string): string {
  return line.replace(/[^\r]/g, ' ');
}

/** A launcher or a training tool's subcommand: a training run wherever it is written. */
export const LAUNCH_COMMAND = new RegExp(
  String.raw`(?:^|\s)(?:torchrun|accelerate\s+launch|deepspeed|llamafactory-cli\s+train|tune\s+run|axolotl\s+train|` +
    String.raw`-m\s+axolotl\.cli\.train|swift\s+(?:sft|rlhf|pt)|litgpt\s+(?:finetune|pretrain)|trl\s+(?:sft|dpo|grpo)|` +
    String.raw`arctic_training(?!\s+process-data))(?=\s|$)`,
);

/** A Python script or module run (`python train.py`, `python -m pkg.sft`): the module, or the script. */
export const PYTHON_RUN = /(?:^|\s)python3?\s+(?:-m\s+(\S+)|(\S+\.py))/;

/** A command that starts a training run: a launcher or a tool, or Python running a script or module. */
const training = (line: string): boolean => LAUNCH_COMMAND.test(line) || PYTHON_RUN.test(line);

/** A line that opens or closes an HTML code block, the tag alone on it. */
const HTML_OPEN = /^\s*<(?:code|pre)(?:\s[^>]*)?>\s*$/i;
const HTML_CLOSE = /^\s*<\/(?:code|pre)>\s*$/i;

/** Code blocks of a shell: no info string, or a shell's name. */
const SHELL_BLOCK = /^\s*(?:```|~~~)\s*(?:bash|sh|shell|zsh|console|shell-session)?\s*$/;

/**
 * A Markdown file given alone (a README that documents its training command) read as the launch script its shell code
 * blocks make: their lines in place, every other line blanked (offsets and lines kept), prompts blanked; undefined
 * where no block starts a training run.
 */
export function markdownLaunch(text: string): string | undefined {
  const lines = text.split('\n');
  let block: 'shell' | 'other' | 'html' | undefined;
  let launches = false;
  const out = lines.map((line) => {
    if (FENCE.test(line) && block !== 'html') {
      block = block ? undefined : SHELL_BLOCK.test(line) ? 'shell' : 'other';
      return blank(line);
    }
    // An HTML block of its own lines (`<code>` ... `</code>`, `<pre>`: liangwq/Chatglm_lora_multi-gpu's README).
    if (block === undefined && HTML_OPEN.test(line)) block = 'html';
    else if (block === 'html' && HTML_CLOSE.test(line)) block = undefined;
    else if (block === 'html') {
      launches ||= training(line);
      return line;
    }
    if (HTML_OPEN.test(line) || HTML_CLOSE.test(line)) return blank(line);
    if (block !== 'shell') return blank(line);
    launches ||= training(line);
    return line.replace(/^(\s*)([$>] )/, (_, lead: string) => `${lead}  `);
  });
  return launches ? out.join('\n') : undefined;
}
