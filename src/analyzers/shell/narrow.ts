// A test of whether a variable is empty (`[ -z "$X" ]`), read on a variable whose value depends on an earlier branch:
// each side of the test keeps only the values that lead there. Pure: no I/O, no node:* and no 'vscode'.
import type { WordTok } from './lexer';
import { type VarVal, type Env, unknownOf, textOf, isScriptArgument } from './fields';

/** The values a variable keeps on each side of a test of its emptiness. */
export interface Narrowing {
  readonly name: string;
  readonly whenTrue: readonly (VarVal | undefined)[];
  readonly whenFalse: readonly (VarVal | undefined)[];
  readonly original: VarVal;
}

const VARIABLE = /^"?\$\{?([A-Za-z_]\w*)\}?"?$/;
const EMPTY = /^(""|'')$/;

/**
 * The variable a test word list checks for emptiness, and whether the test is true when it is empty:
 * `[ -z "$X" ]`, `[[ -n $X ]]`, `test -z "${X}"`, `[ "$X" ]`, `[ "$X" = "" ]`, `[ "" != "$X" ]`, each with `!`.
 */
export function emptinessTest(
  text: string,
  words: readonly WordTok[],
): { name: string; trueWhenEmpty: boolean } | undefined {
  let args = words.map((w) => text.slice(w.start, w.end));
  const head = args[0];
  if (head !== '[' && head !== '[[' && head !== 'test') return undefined;
  args = args.slice(1);
  if (head !== 'test') {
    if (args[args.length - 1] !== (head === '[' ? ']' : ']]')) return undefined;
    args = args.slice(0, -1);
  }
  let negated = false;
  if (args[0] === '!') {
    negated = true;
    args = args.slice(1);
  }
  const found = readEmptiness(args);
  return found && { name: found.name, trueWhenEmpty: found.trueWhenEmpty !== negated };
}

function readEmptiness(args: readonly string[]): { name: string; trueWhenEmpty: boolean } | undefined {
  const nameOf = (s: string | undefined): string | undefined => (s === undefined ? undefined : VARIABLE.exec(s)?.[1]);
  if (args.length === 1) {
    const name = nameOf(args[0]);
    return name ? { name, trueWhenEmpty: false } : undefined;
  }
  if (args.length === 2 && (args[0] === '-z' || args[0] === '-n')) {
    const name = nameOf(args[1]);
    return name ? { name, trueWhenEmpty: args[0] === '-z' } : undefined;
  }
  if (args.length !== 3 || !['=', '==', '!='].includes(args[1])) return undefined;
  const name = EMPTY.test(args[2]) ? nameOf(args[0]) : EMPTY.test(args[0]) ? nameOf(args[2]) : undefined;
  return name ? { name, trueWhenEmpty: args[1] !== '!=' } : undefined;
}

/**
 * The branch values of the tested variable on each side of the test. Unset and '' are empty; a value of the script's
 * command line is not (an argument passed to set it is a value). Undefined when the variable has no branch values or
 * one of them cannot be told (the environment's).
 */
export function narrowingOf(test: { name: string; trueWhenEmpty: boolean }, env: Env): Narrowing | undefined {
  const original = env.get(test.name);
  const values = original?.choices?.values;
  if (!original || !values) return undefined;
  const empty: (VarVal | undefined)[] = [];
  const full: (VarVal | undefined)[] = [];
  for (const v of values) {
    if (v === undefined) empty.push(v);
    else if (unknownOf(v.pieces) === undefined) (textOf(v.pieces) === '' ? empty : full).push(v);
    else if (isScriptArgument(v.pieces)) full.push(v);
    else return undefined;
  }
  return test.trueWhenEmpty
    ? { name: test.name, whenTrue: empty, whenFalse: full, original }
    : { name: test.name, whenTrue: full, whenFalse: empty, original };
}

/** Sets the tested variable in env to the values one side of the test keeps (nothing when it keeps none). */
export function applyNarrowing(env: Env, n: Narrowing, side: boolean): void {
  const values = side ? n.whenTrue : n.whenFalse;
  if (values.length === 0) return;
  if (values.length === 1) {
    if (values[0] === undefined) env.delete(n.name);
    else env.set(n.name, values[0]);
    return;
  }
  env.set(n.name, { ...n.original, choices: { ...n.original.choices!, values } });
}
