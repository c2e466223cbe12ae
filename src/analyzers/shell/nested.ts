// `bash -c "..."` and `eval "..."`: a launch line inside a string that another shell runs (`srun ... bash -c " cd /app;
// torchrun ..."`), or that this one reads again.
// The string's words as that shell reads them, split into its commands, each word keeping the span where the outer
// script wrote it. Quotes inside the string are kept as characters: the launch flags VRAM Lens reads are plain words.
// Pure: no I/O, no node:* and no 'vscode'.
import { pieceRange } from './args';
import { type Field, separator, toFields } from './fields';

/** How deep `bash -c` strings are read inside each other, and how many one file's commands read in all. */
export const MAX_NESTING = 3;
export const MAX_NESTED_SCRIPTS = 32;

/** Where an interpreter of a `-c` string sits: the file's line starts, its depth, the file's count of such strings. */
export interface Nesting {
  readonly lineStarts: number[];
  readonly depth: number;
  readonly count: { scripts: number };
}

/** Shells whose `-c` runs its argument as a script. */
export const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'zsh', 'dash']);

/** The command string of `bash [options] -c <string>` starting at `at` (the shell's word), undefined without `-c`. */
export function shellCommandString(fields: readonly Field[], at: number): Field | undefined {
  for (let k = at + 1; k < fields.length; k++) {
    const t = fields[k].text;
    if (!t.startsWith('-')) return undefined;
    // -c alone or among single-letter options (`-lc`, `-ec`).
    if (/^-[a-z]*c[a-z]*$/.test(t)) return fields[k + 1];
  }
  return undefined;
}

/** The commands of a `-c` string: its words split at `;`, `&&`, `||` and `|`, in order. */
export function innerCommands(script: Field): Field[][] {
  return commandsOf(toFields(script.pieces.map((p) => (p.unknown === undefined ? { ...p, split: true } : p))));
}

/**
 * `eval $cmd` / `eval "$cmd"` (FlagEmbedding's examples: `cmd="torchrun ... $model_args ..."; eval $cmd`), `eval
 * "$header" "$training_args"` (princeton-nlp/LESS): its words joined with blanks, the string the shell reads again as
 * `bash -c` would.
 */
export function evalCommands(words: readonly Field[]): Field[][] {
  if (words.length === 0) return [];
  const pieces = words.flatMap((w, k) => (k === 0 ? w.pieces : [separator(words[k - 1].pieces, true), ...w.pieces]));
  return innerCommands({ ...words[0], pieces });
}

/** Words split into commands at `;`, `&&`, `||` and `|`, in order. */
function commandsOf(words: readonly Field[]): Field[][] {
  const out: Field[][] = [[]];
  for (const w of words) {
    if (/^(&&|\|\||;|\|)$/.test(w.text)) {
      out.push([]);
      continue;
    }
    // A `;` that ends a word (`cd /openrlhf;`) ends its command.
    if (w.unknown === undefined && w.text.length > 1 && w.text.endsWith(';')) {
      out[out.length - 1].push(...toFields(pieceRange(w, 0, w.text.length - 1)));
      out.push([]);
      continue;
    }
    out[out.length - 1].push(w);
  }
  return out.filter((c) => c.length > 0);
}

/** What the lexer skips as bash skips a NUL byte (lexer.ts continuationAt): a character the outer shell removed. */
const DROPPED = '\0';

/** Characters a backslash escapes inside double quotes (bash(1), QUOTING); before others it is kept. */
const ESCAPED_IN_DOUBLE_QUOTES = new Set(['$', '`', '"', '\\', '\n']);

/**
 * The text of a `-c` string written as one quoted word (`bash -c "..."`, `sh -c '...'`) as the inner shell reads it,
 * every character at the offset it is written at, so what is read from it keeps its place in the file: blanks before
 * the string, the escaping backslashes of a double-quoted one dropped (`\$X` is the inner shell's `$X`), and a
 * backslash-newline dropped whole, as the outer shell removes them: a dropped character is a NUL, which the lexer
 * skips as bash does. Undefined for any other word (one of several quoted parts, or a variable's value).
 */
export function innerScriptText(text: string, script: Field): string | undefined {
  // The field's span is the string's inside, between its quotes.
  const { start, end } = script.span;
  const q = text[start - 1];
  if ((q !== '"' && q !== "'") || text[end] !== q) return undefined;
  const out: string[] = [' '.repeat(start)];
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (c === q) return undefined;
    if (q === '"' && c === '\\' && i + 1 < end && ESCAPED_IN_DOUBLE_QUOTES.has(text[i + 1])) {
      out.push(DROPPED, text[i + 1] === '\n' ? DROPPED : text[i + 1]);
      i++;
      continue;
    }
    out.push(c);
  }
  return out.join('');
}

/**
 * What was read from a `-c` string, its texts without the NULs that stand for the characters the outer shell took out
 * (a word's raw text, a message quoting it): results are plain data, copied where a string changes.
 */
export function withoutDropped<T>(value: T): T {
  if (typeof value === 'string') return (value.includes(DROPPED) ? value.split(DROPPED).join('') : value) as T;
  if (Array.isArray(value)) return value.map((x: unknown) => withoutDropped(x)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withoutDropped(v);
  return out as T;
}
