// The shapes the interpreter works with: the frames of the blocks it is inside, a command's words, three-valued
// truth, and the small readers of words (a reserved word, an assignment, a `test`). Pure: no I/O.
import type { Narrowing } from './narrow';
import type { Span } from '../facts';
import type { Heredoc, Seg, WordTok } from './lexer';
import type { Env, Field } from './fields';

export type Tri = boolean | undefined;

export interface IfFrame {
  kind: 'if';
  line: number;
  snapshot: Env;
  branches: { env: Env; cond: Tri }[];
  cond: Tri;
  state: 'cond' | 'body';
  parentDead: boolean;
  sawElse: boolean;
  /** The first condition's test of a variable's emptiness: the values each side keeps (narrow.ts). */
  narrowing?: Narrowing;
}
export interface LoopFrame {
  kind: 'loop';
  line: number;
  snapshot: Env;
  parentDead: boolean;
  runsOnce: boolean;
  /**
   * The loop walks the script's own arguments (`while [ $# -gt 0 ]`, `while getopts`, `for a in "$@"`): run without
   * arguments it runs no time, so what it sets is the script's value or a value its command line passes.
   */
  overArguments?: boolean;
  /** The token the loop starts at (its `while` or `for`), to run it over a caller's arguments (option-loop.ts). */
  start?: number;
  /** A `for` loop's variable. */
  variable?: string;
}
export interface CaseFrame {
  kind: 'case';
  line: number;
  snapshot: Env;
  branches: Env[];
  state: 'pattern' | 'body';
  parentDead: boolean;
  sawDefault: boolean;
}
export interface BlockFrame {
  kind: 'group' | 'func' | 'sub';
  snapshot: Env;
  parentDead: boolean;
}
export type Frame = IfFrame | LoopFrame | CaseFrame | BlockFrame;

export interface Command {
  readonly words: WordTok[];
  /** Array assignments (`NAME=( ... )`): the assignment word, and the words between the parentheses. */
  readonly arrays: Map<WordTok, WordTok[]>;
  /** The heredocs redirected into the command, in order (the last one is its standard input). */
  readonly heredocs: readonly Heredoc[];
}

export const and3 = (a: Tri, b: Tri): Tri =>
  a === false || b === false ? false : a === true && b === true ? true : undefined;
export const or3 = (a: Tri, b: Tri): Tri =>
  a === true || b === true ? true : a === false && b === false ? false : undefined;

export function literalWord(w: WordTok): string | undefined {
  if (w.segs.length !== 1) return undefined;
  const s = w.segs[0];
  return s.k === 'lit' && !s.quoted ? s.text : undefined;
}

export function assignParts(
  w: WordTok,
): { name: string; append: boolean; valueSegs: Seg[]; nameSpan: Span; valueSpan: Span } | undefined {
  const s = w.segs[0];
  if (!s || s.k !== 'lit' || s.quoted || !s.exact) return undefined;
  const m = /^([A-Za-z_]\w*)(\+?)=/.exec(s.text);
  if (!m) return undefined;
  const rest = s.text.slice(m[0].length);
  const valueSegs: Seg[] = [];
  if (rest)
    valueSegs.push({ k: 'lit', text: rest, start: s.start + m[0].length, end: s.end, quoted: false, exact: true });
  valueSegs.push(...w.segs.slice(1));
  return {
    name: m[1],
    append: m[2] === '+',
    valueSegs,
    nameSpan: { start: s.start, end: s.start + m[1].length },
    valueSpan: { start: s.start + m[0].length, end: w.end },
  };
}

/**
 * A command's outcome as far as it is known: a test's (`tested`, evalTest's; or from the values a variable may take,
 * where the test narrows one: false when none passes, true when none fails), `true` / `:`, `false`; undefined for
 * another command.
 */
export function commandOutcome(
  name: string,
  tested: Tri,
  negate: boolean,
  narrowing: { readonly whenTrue: readonly unknown[]; readonly whenFalse: readonly unknown[] } | undefined,
): Tri {
  if (narrowing) return narrowing.whenTrue.length === 0 ? false : narrowing.whenFalse.length === 0 ? true : undefined;
  const tri = isTestCommand(name)
    ? tested
    : name === 'true' || name === ':'
      ? true
      : name === 'false'
        ? false
        : undefined;
  return negate && tri !== undefined ? !tri : tri;
}

/** `[`, `[[` or `test`. */
export const isTestCommand = (name: string): boolean => name === '[' || name === '[[' || name === 'test';

export function evalTest(fields: Field[]): Tri {
  let args = fields.slice(1);
  const head = fields[0].text;
  if (head === '[' || head === '[[') {
    if (args.length === 0 || args[args.length - 1].text !== (head === '[' ? ']' : ']]')) return undefined;
    args = args.slice(0, -1);
  }
  let neg = false;
  if (args[0]?.text === '!') {
    neg = true;
    args = args.slice(1);
  }
  if (args.some((a) => a.unknown !== undefined)) return undefined;
  let r: Tri;
  const int = (s: string): number | undefined => (/^\s*[-+]?\d+\s*$/.test(s) ? Number.parseInt(s, 10) : undefined);
  if (args.length === 1) r = args[0].text !== '';
  else if (args.length === 2)
    r = args[0].text === '-z' ? args[1].text === '' : args[0].text === '-n' ? args[1].text !== '' : undefined;
  else if (args.length === 3) {
    const [a, op, b] = [args[0].text, args[1].text, args[2].text];
    const x = int(a);
    const y = int(b);
    switch (op) {
      case '=':
      case '==':
        r = a === b;
        break;
      case '!=':
        r = a !== b;
        break;
      case '-eq':
        r = x === undefined || y === undefined ? undefined : x === y;
        break;
      case '-ne':
        r = x === undefined || y === undefined ? undefined : x !== y;
        break;
      case '-lt':
        r = x === undefined || y === undefined ? undefined : x < y;
        break;
      case '-le':
        r = x === undefined || y === undefined ? undefined : x <= y;
        break;
      case '-gt':
        r = x === undefined || y === undefined ? undefined : x > y;
        break;
      case '-ge':
        r = x === undefined || y === undefined ? undefined : x >= y;
        break;
      default:
        r = undefined;
    }
  }
  return neg && r !== undefined ? !r : r;
}
