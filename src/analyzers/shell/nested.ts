// `bash -c "..."` and `eval "..."`: a launch line inside a string that another shell runs (`srun ... bash -c " cd /app;
// torchrun ..."`), or that this one reads again.
// The string's words as that shell reads them, split into its commands, each word keeping the span where the outer
// script wrote it. Quotes inside the string are kept as characters: the launch flags VRAM Lens reads are plain words.
// Pure: no I/O, no node:* and no 'vscode'.
import { pieceRange } from './args';
import { type Field, toFields } from './fields';

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
 * `eval $cmd` / `eval "$cmd"` (FlagEmbedding's examples: `cmd="torchrun ... $model_args ..."; eval $cmd`): the string
 * the shell reads again, as `bash -c` would; unquoted, its words arrive split already.
 */
export function evalCommands(words: readonly Field[]): Field[][] {
  return words.length === 1 ? innerCommands(words[0]) : commandsOf(words);
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
