// A launch script that takes its values as positional parameters (`model_path=$2`) and that no file of the run calls:
// the command a README.md shows for it, in its folder or a folder above it (the repository's root README runs
// `./less/scripts/train/warmup_lora_train.sh "$DATA_DIR" "$MODEL_PATH" ...`, princeton-nlp/LESS), is its launch line.
// The README is read as a launch script in place: the command's lines and the variables its code block sets before it
// (`MODEL_PATH=meta-llama/Llama-2-7b-hf`), every other line blanked (offsets and lines kept). Pure; no I/O but the
// reader's.
import type { Span } from '../facts';
import type { FileReader } from '../file-reader';
import { README_LINES } from '../hf-python/usage-line';

/** Folders above the script's own that are looked in for a README (a repository's root over `scripts/train/`). */
const FOLDERS_UP = 3;

const README_NAMES = ['README.md', 'readme.md', 'README.MD'];

/** What may come before the script on the command's line: a prompt, variables, a shell or runner with its options. */
const BEFORE = /^\s*(?:[$>]\s+)?(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:nohup|bash|sh|zsh|time|srun|sbatch)\s+(?:-\S+\s+)*)*$/;

/** A variable set on a line of its own (`MODEL_PATH=...`, `export DATA_DIR=../data`). */
const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_]\w*=/;

/** A README read as a script's launch line: its path, its text in place, and where the command names the script. */
export interface ReadmeLaunch {
  readonly path: string;
  readonly text: string;
  readonly script?: Span;
}

/** The README that runs the script, read as its launch line in place; undefined where none does. */
export function readmeShellLaunch(reader: FileReader, file: string): ReadmeLaunch | undefined {
  const parts = file.split(/[\\/]/);
  for (let up = 0; up <= FOLDERS_UP && up < parts.length; up++) {
    // Up to the root of the path as given (`less/scripts/train/x.sh` run from the repository's root), no further.
    if (['', '.', '..'].includes(parts[parts.length - 1 - up])) break;
    const relative = parts.slice(parts.length - 1 - up).join('/');
    for (const name of README_NAMES) {
      const path = reader.join(file, `${'../'.repeat(up)}${name}`);
      const text = reader.read(path);
      const found = text === undefined ? undefined : commandLines(text, relative);
      if (text !== undefined && found) return { path, text: keptLines(text, found.lines), script: found.script };
    }
  }
  return undefined;
}

/**
 * The lines of the first command that runs `relative` and of the assignments before it in its code block, with where
 * the command names the script.
 */
function commandLines(text: string, relative: string): { lines: Set<number>; script: Span } | undefined {
  const lines = text.split('\n').slice(0, README_LINES);
  const escaped = relative.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const runs = new RegExp(`(?:^|\\s)(?:\\./)?${escaped}(?=\\s|$)`);
  for (let i = 0; i < lines.length; i++) {
    const m = runs.exec(lines[i]);
    if (!m || !BEFORE.test(lines[i].slice(0, m.index + (m[0].startsWith(' ') ? 1 : 0)))) continue;
    const kept = new Set<number>();
    for (let k = i - 1; k >= 0 && !/^\s*(```|~~~)/.test(lines[k]); k--) if (ASSIGNMENT.test(lines[k])) kept.add(k);
    let j = i;
    kept.add(j);
    while (/\\\s*$/.test(lines[j]) && j + 1 < lines.length) kept.add(++j);
    const lineStart = lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0);
    const start = lineStart + m.index + m[0].length - m[0].trimStart().length;
    return { lines: kept, script: { start, end: lineStart + m.index + m[0].length } };
  }
  return undefined;
}

/** `text` with every line but `kept` (0-based) blanked, each character a space and each line break kept. */
function keptLines(text: string, kept: ReadonlySet<number>): string {
  return text
    .split('\n')
    .map((line, i) => (kept.has(i) ? line.replace(/^(\s*)([$>] )/, (_, lead: string) => `${lead}  `) : blank(line)))
    .join('\n');
}

function blank(line: string): string {
  return line.replace(/[^\r]/g, ' ');
}
