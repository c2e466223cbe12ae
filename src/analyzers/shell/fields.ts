// Values: text pieces that remember their source, so word splitting keeps exact spans; the variables a script
// sets (Env) and the fields its words split into. Pure: no I/O, no node:* and no 'vscode'.
import type { Span } from '../facts';

export interface Piece {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** text[i] was written at start + i. */
  readonly exact: boolean;
  readonly unknown?: string;
  /** Subject to word splitting (an unquoted expansion). */
  readonly split?: boolean;
  /** Came from a quoted segment (keeps an empty word alive). */
  readonly quoted?: boolean;
  /** Came from an expansion (not written literally in this word). */
  readonly expanded?: boolean;
}

export interface VarVal {
  readonly pieces: readonly Piece[];
  readonly exported: boolean;
  readonly nameSpan?: Span;
  readonly valueSpan?: Span;
  /**
   * An array (`ARGS=( --flag value ... )`): each element's pieces, where it was written; `pieces` is then every element
   * with a blank between them.
   */
  readonly elements?: readonly (readonly Piece[])[];
  /**
   * A variable set differently on the branches of an `if` or `case`: the value of each branch (undefined where a
   * branch leaves it unset) and where the branching is. The pieces stay unknown; a launch that uses it is analyzed
   * once per value.
   */
  readonly choices?: { readonly values: readonly (VarVal | undefined)[]; readonly what: string; readonly line: number };
  /**
   * The branches' values where some are not known statically (`header="srun torchrun --nnodes=$num_nodes ..."` on one
   * branch, `header="torchrun --nnodes=1 ..."` on the other): not choices for a fact, but a command word that is the
   * variable runs each (command-choices.ts).
   */
  readonly branches?: {
    readonly values: readonly (VarVal | undefined)[];
    readonly what: string;
    readonly line: number;
  };
  /** A positional parameter ($1 ... $9) of the script read as it runs without arguments: unset (choices.ts). */
  readonly argumentless?: true;
  /** The value is written in another file (the calling script's export): its pieces are located where it is expanded. */
  readonly atUse?: true;
  /** The script's arguments (`$@`) as the script that runs it passes them, and that script's name (argv.ts). */
  readonly argv?: { readonly words: readonly (string | null)[]; readonly caller: string };
}

export type Env = Map<string, VarVal>;

/** The most characters and pieces a variable's value keeps (real launch scripts stay far below: a few KiB). */
export const MAX_VALUE_CHARS = 64 * 1024;
export const MAX_VALUE_PIECES = 1024;

/** A value past those bounds (`X="$X$X"` on every line), which is not expanded further. */
export const tooLong = (pieces: readonly Piece[]): boolean =>
  pieces.length > MAX_VALUE_PIECES || pieces.reduce((n, x) => n + x.text.length, 0) > MAX_VALUE_CHARS;

/** An array's value as one string of pieces: its elements with a blank between them, where the shell splits them. */
/**
 * A piece of a variable's value as a reference expands it (split or not, quoted or not): the same object when it has
 * these flags already (pieces are never changed, so values share them), which keeps a value that grows line by line
 * (`ARGS="$ARGS --x"`) from being copied whole at every line.
 */
export function withFlags(p: Piece, split: boolean, quoted: boolean): Piece {
  return p.split === split && p.quoted === quoted && p.expanded === true ? p : { ...p, split, quoted, expanded: true };
}

export function arrayPieces(elements: readonly (readonly Piece[])[]): Piece[] {
  return elements.flatMap((e, i) => (i === 0 ? [...e] : [separator(elements[i - 1], true), ...e]));
}

/** The blank between two array elements, placed at the end of the one before it. */
export function separator(before: readonly Piece[], split: boolean): Piece {
  const at = before.length ? before[before.length - 1].end : 0;
  return { text: ' ', start: at, end: at, exact: false, split, expanded: true };
}

export const unknownOf = (pieces: readonly Piece[]): string | undefined =>
  pieces.find((p) => p.unknown !== undefined)?.unknown;
export const textOf = (pieces: readonly Piece[]): string => pieces.map((p) => p.text).join('');

/** A value as a message quotes it: in single quotes, cut at 60 characters with an ellipsis. */
export function quotedValue(pieces: readonly Piece[]): string {
  const t = textOf(pieces);
  return `'${t.length > 60 ? `${t.slice(0, 59)}…` : t}'`;
}

export interface Field {
  readonly text: string;
  readonly span: Span;
  readonly pieces: readonly Piece[];
  readonly unknown?: string;
  /** The field is only an expansion whose value is unknown (`$EXTRA_ARGS`, `"$@"`): it may hold any number of words. */
  readonly opaque: boolean;
}

export function pieceSlice(p: Piece, a: number, b: number): Piece {
  if (p.exact) return { ...p, text: p.text.slice(a, b), start: p.start + a, end: p.start + b };
  return { ...p, text: p.text.slice(a, b) };
}

function makeField(pieces: Piece[]): Field {
  let start = Infinity;
  let end = -Infinity;
  for (const p of pieces) {
    start = Math.min(start, p.start);
    end = Math.max(end, p.end);
  }
  if (!Number.isFinite(start)) start = end = 0;
  const unknown = unknownOf(pieces);
  const opaque = unknown !== undefined && pieces.every((p) => p.expanded && (p.unknown !== undefined || p.text === ''));
  return { text: textOf(pieces), span: { start, end }, pieces, unknown, opaque };
}

/**
 * The pieces without the characters of `lead` at the start and of `trail` at the end (`read` drops blanks and
 * newlines at both ends, a command substitution its trailing newlines); an unknown piece stops the trimming.
 */
export function trimPieces(pieces: readonly Piece[], lead: string, trail: string): Piece[] {
  const out = [...pieces];
  const has = (set: string, c: string | undefined): boolean => c !== undefined && set.includes(c);
  while (out.length && out[0].unknown === undefined) {
    const p = out[0];
    let k = 0;
    while (k < p.text.length && has(lead, p.text[k])) k++;
    if (k < p.text.length) {
      if (k > 0) out[0] = pieceSlice(p, k, p.text.length);
      break;
    }
    out.shift();
  }
  while (out.length && out[out.length - 1].unknown === undefined) {
    const p = out[out.length - 1];
    let k = p.text.length;
    while (k > 0 && has(trail, p.text[k - 1])) k--;
    if (k > 0) {
      if (k < p.text.length) out[out.length - 1] = pieceSlice(p, 0, k);
      break;
    }
    out.pop();
  }
  return out;
}

/** Word splitting over pieces: blanks in `split` pieces separate fields. */
export function toFields(pieces: readonly Piece[]): Field[] {
  const out: Field[] = [];
  let cur: Piece[] = [];
  let alive = false;
  const end = (): void => {
    if (alive || cur.some((p) => p.text.length > 0 || p.unknown !== undefined)) out.push(makeField(cur));
    cur = [];
    alive = false;
  };
  for (const p of pieces) {
    if (p.unknown !== undefined || !p.split) {
      cur.push(p);
      if (p.quoted) alive = true;
      continue;
    }
    const re = /[ \t\n]+/g;
    let last = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(p.text)) !== null) {
      if (m.index > last) cur.push(pieceSlice(p, last, m.index));
      end();
      last = m.index + m[0].length;
    }
    if (last < p.text.length) cur.push(pieceSlice(p, last, p.text.length));
  }
  end();
  return out;
}

/** The source span of field characters [a, b). */
export function subSpan(f: Field, a: number, b: number): Span {
  let pos = 0;
  let start = Infinity;
  let end = -Infinity;
  for (const p of f.pieces) {
    const pa = pos;
    const pb = pos + p.text.length;
    pos = pb;
    const lo = Math.max(a, pa);
    const hi = Math.min(b, pb);
    // An unknown expansion has no text; it is part of the range when it sits inside it (`x=$KNOWN/$UNKNOWN`).
    const unknownInside = p.text === '' && p.unknown !== undefined && lo === hi;
    if (lo > hi || (lo === hi && !(a === b && lo === a) && !unknownInside)) continue;
    if (p.exact) {
      start = Math.min(start, p.start + (lo - pa));
      end = Math.max(end, p.start + (hi - pa));
    } else {
      start = Math.min(start, p.start);
      end = Math.max(end, p.end);
    }
  }
  if (!Number.isFinite(start)) return f.span;
  return { start, end };
}

/** A value that is only the script's own positional argument (`$2`), which a run without arguments leaves empty. */
export function isScriptArgument(pieces: readonly Piece[]): boolean {
  const u = unknownOf(pieces);
  return u !== undefined && SCRIPT_ARGUMENT.test(u);
}

/**
 * The reasons the shell analyzer gives a value of the script's own command line: a positional argument (expand.ts),
 * getopts' `$OPTARG` (expand.ts) and the variable of a `for` loop over `"$@"` (scriptArgumentOfLoop).
 */
export const SCRIPT_ARGUMENT = new RegExp(
  [
    /^positional argument \$[1-9] of the script$/.source,
    /^an option's argument of the script \(\$OPTARG\)$/.source,
    /^an argument of the script \(`\w+` of the `for` loop at line \d+\)$/.source,
  ].join('|'),
);

export const scriptArgumentOfLoop = (name: string, line: number): string =>
  `an argument of the script (\`${name}\` of the \`for\` loop at line ${line})`;

/** What a merge names a loop over the script's arguments (interpreter.ts), whose values are choices like a `case`'s. */
export const ARGUMENT_LOOP = "loop over the script's arguments";

/** Whether `--name` (or `--name=...`) is among the fields from `from`. */
export const hasFlag = (fields: readonly Field[], from: number, name: string): boolean =>
  fields.slice(from).some((f) => f.text === name || f.text.startsWith(`${name}=`));
