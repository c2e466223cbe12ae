// The loop most scripts that take options parse them with, run over the arguments a calling script passes (argv.ts):
//
//   while (( "$#" )); do            # or [ $# -gt 0 ], [[ -n "$1" ]]
//     case "$1" in
//       --sft_model_path) sft_model_path="$2"; shift 2 ;;
//       --lr=*) lr="${1#*=}"; shift ;;
//       --use_lora) use_lora=true; shift ;;
//       *) echo "Unknown option: $1"; exit 1 ;;
//     esac
//   done
//
// The loop is run as bash runs it: each turn the first branch whose pattern matches `$1` assigns, `shift` moves on
// (in the branch or after `esac`), `break` ends it. A turn this reading cannot follow (an option matched by no branch,
// a branch that exits or has control flow of its own, a word the caller's value of is not known) leaves the loop to
// the reading of a script run without arguments. Pure: no I/O, no node:* and no 'vscode'.
import { type Seg, type Tok, type WordTok, REDIRECTS } from './lexer';
import type { Env, Piece } from './fields';
import { assignParts, literalWord } from './syntax';
import { expandSegs } from './expand';
import { layer } from './layers';
import { type ArgumentWords, ARGUMENTS, argumentsOf, callerArguments, wordPiece } from './argv';

/** One command of a branch: its words (no control flow inside a branch is followed). */
type Words = readonly WordTok[];

interface Branch {
  /** The patterns, as regular expressions (bash's glob `*`, `?`, `[...]`); undefined for one not read. */
  readonly patterns: readonly (RegExp | undefined)[];
  readonly commands: readonly Words[];
}

interface OptionLoop {
  readonly branches: readonly Branch[];
  /** Commands after `esac` in the loop's body (`shift`). */
  readonly after: readonly Words[];
}

/** The most turns of an option loop run (a script's options are a few dozen). */
const MAX_TURNS = 512;

/**
 * How the loop walks the words: `while` over `$1` and `shift` (`variable` undefined), or `for a in "$@"` with each
 * word in turn as `$a` (no shift moves it on).
 */
interface Walk {
  readonly text: string;
  readonly caller: string;
  readonly variable?: string;
}

/**
 * The variables an option loop over the caller's arguments leaves (`toks[from, to)`: its header and body), with the
 * arguments it did not shift; undefined when the loop is not one this reading runs. `variable`: the name a `for` loop
 * gives each argument.
 */
export function runOptionLoop(
  text: string,
  toks: readonly Tok[],
  range: { readonly from: number; readonly to: number; readonly variable?: string },
  env: Env,
): Env | undefined {
  const argv = argumentsOf(env);
  const loop = argv && parseOptionLoop(toks, range.from, range.to, range.variable ?? '1');
  if (!argv || !loop) return undefined;
  const walk: Walk = { text, caller: argv.caller, variable: range.variable };
  const out = layer(env);
  let words = argv.words;
  for (let turn = 0; words.length > 0; turn++) {
    if (turn >= MAX_TURNS || words[0] === null) return undefined;
    const branch = loop.branches.find((b) => b.patterns.some((p) => p?.test(words[0]!)));
    // A `for` loop goes on past a word no branch takes; a `while` over `$1` would not move on.
    if (!branch && walk.variable === undefined) return undefined;
    const step = branch ? runCommands(walk, [...branch.commands, ...loop.after], words, out) : 0;
    if (step === 'exit') return undefined;
    if (step === 'break') break;
    if (walk.variable !== undefined) words = words.slice(1);
    else if (step === 0) return undefined;
    else words = words.slice(step);
  }
  if (walk.variable === undefined) out.set(ARGUMENTS, callerArguments(words, argv.caller));
  return out;
}

/** A branch's commands run against the current words: the shift they make, `break`, or `exit` (not followed). */
function runCommands(
  walk: Walk,
  commands: readonly Words[],
  words: ArgumentWords,
  env: Env,
): number | 'break' | 'exit' {
  let shift = 0;
  for (const c of commands) {
    const head = literalWord(c[0]);
    if (head === 'shift') {
      const n = c.length > 1 ? Number(literalWord(c[1])) : 1;
      if (!Number.isInteger(n) || n < 0) return 'exit';
      shift += n;
    } else if (head === 'break') return 'break';
    else if (head === 'exit' || head === 'return') return 'exit';
    else if (c.every((w) => assignParts(w))) {
      for (const w of c) assignFromArguments(walk, w, words.slice(shift), env);
    }
  }
  return shift;
}

/** `NAME=value` in a branch: `$1`, `$2`, `${1#*=}` (or the `for` variable's) read from the words, the rest as written. */
function assignFromArguments(walk: Walk, w: WordTok, words: ArgumentWords, env: Env): void {
  const a = assignParts(w)!;
  const pieces: Piece[] = [];
  for (const s of a.valueSegs) {
    const fromWords = s.k === 'param' ? argumentSeg(s, words, walk.variable) : undefined;
    if (fromWords === undefined) pieces.push(...expandSegs(walk.text, [s], env, false));
    else pieces.push(wordPiece(fromWords, walk.caller, { start: s.start, end: s.end }, s.quoted));
  }
  const prior = env.get(a.name);
  env.set(a.name, {
    pieces: pieces.map((p) => ({ ...p, split: false })),
    exported: prior?.exported ?? false,
    nameSpan: a.nameSpan,
    valueSpan: a.valueSpan,
  });
}

/**
 * The word a parameter reads (`$2`, or the `for` loop's `$a`; `${1#*=}` / `${1##*=}`: what follows the `=` of
 * `--lr=3e-4`), null for a word not known; undefined for a parameter that is not one of these.
 */
function argumentSeg(
  s: Extract<Seg, { k: 'param' }>,
  words: ArgumentWords,
  variable: string | undefined,
): string | null | undefined {
  const plain = s.op === undefined && s.complex === undefined;
  if (variable !== undefined && s.name === variable && plain) return words[0] ?? '';
  if (variable === undefined && /^[1-9]$/.test(s.name) && plain) return words[Number(s.name) - 1] ?? '';
  const name = variable ?? '[1-9]';
  const m = s.complex === undefined ? undefined : new RegExp(`^\\$\\{(${name})(##?)\\*=\\}$`).exec(s.complex);
  if (!m) return undefined;
  const word = words[variable !== undefined ? 0 : Number(m[1]) - 1];
  if (word === null || word === undefined) return word ?? '';
  const at = m[2] === '#' ? word.indexOf('=') : word.lastIndexOf('=');
  return at < 0 ? word : word.slice(at + 1);
}

/**
 * The `case "$1" in ... esac` (`case $a in` of a `for a` loop: `subject`) of a loop's tokens, with the commands after
 * it; undefined when there is none.
 */
function parseOptionLoop(toks: readonly Tok[], from: number, to: number, subject: string): OptionLoop | undefined {
  let i = from;
  while (i < to && !isWord(toks[i], 'case')) i++;
  const word = toks[i + 1];
  if (i >= to || word?.t !== 'word' || !isParameter(word, subject) || !isWord(toks[i + 2], 'in')) return undefined;
  i += 3;
  const branches: Branch[] = [];
  for (;;) {
    while (i < to && isOp(toks[i], '\n', ';')) i++;
    if (i >= to) return undefined;
    if (isWord(toks[i], 'esac')) break;
    const b = parseBranch(toks, i, to);
    if (!b) return undefined;
    branches.push(b.branch);
    i = b.next;
  }
  const after = commandsIn(toks, i + 1, to);
  return after && { branches, after: after.filter((c) => !isWord(c[0], 'done')) };
}

/** One branch of a `case`: `pattern | pattern) commands ;;`. */
function parseBranch(toks: readonly Tok[], at: number, to: number): { branch: Branch; next: number } | undefined {
  let i = at;
  if (isOp(toks[i], '(')) i++;
  const patterns: (RegExp | undefined)[] = [];
  while (i < to && !isOp(toks[i], ')')) {
    const t = toks[i++];
    if (t.t === 'word') patterns.push(globOf(t));
    else if (!isOp(t, '|')) return undefined;
  }
  let end = ++i;
  while (end < to && !isOp(toks[end], ';;', ';&', ';;&') && !isWord(toks[end], 'esac')) end++;
  const commands = commandsIn(toks, i, end);
  if (!commands) return undefined;
  return { branch: { patterns, commands }, next: isOp(toks[end], ';;', ';&', ';;&') ? end + 1 : end };
}

/** Simple commands between `from` and `to`, split at newlines, `;`, `&&` and `||`; undefined at control flow. */
function commandsIn(toks: readonly Tok[], from: number, to: number): Words[] | undefined {
  const out: WordTok[][] = [[]];
  for (let i = from; i < to; i++) {
    const t = toks[i];
    if (t.t === 'op') {
      if (isOp(t, '\n', ';', '&&', '||')) out.push([]);
      else if (isOp(t, '(')) {
        // `REST+=("$1")`: an array this reading does not keep; the command is left out.
        while (i < to && !isOp(toks[i], ')')) i++;
        out[out.length - 1] = [];
      } else if (!REDIRECTS.has(t.op)) return undefined;
      continue;
    }
    const cur = out[out.length - 1];
    if (cur.length === 0 && CONTROL.has(literalWord(t) ?? '')) return undefined;
    cur.push(t);
  }
  return out.filter((c) => c.length > 0);
}

const CONTROL = new Set(['if', 'for', 'while', 'until', 'case', 'select', '{', 'function']);

/** `"$1"` / `$1` / `${1}` (or another parameter's name). */
function isParameter(w: WordTok, name: string): boolean {
  const segs = w.segs.filter((s) => !(s.k === 'lit' && s.text === ''));
  return segs.length === 1 && segs[0].k === 'param' && segs[0].name === name && segs[0].op === undefined;
}

/** A case pattern as a regular expression: unquoted `*`, `?` and `[...]` are glob characters, the rest literal. */
function globOf(w: WordTok): RegExp | undefined {
  let re = '';
  for (const s of w.segs) {
    if (s.k !== 'lit') return undefined;
    re += s.quoted ? escape(s.text) : globText(s.text);
  }
  return new RegExp(`^${re}$`, 's');
}

/** An unquoted part of a pattern as a regular expression. */
function globText(text: string): string {
  let re = '';
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    const close = c === '[' ? text.indexOf(']', k + 2) : -1;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (close > 0) {
      re += `[${text
        .slice(k + 1, close)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')}]`;
      k = close;
    } else if (c === '\\' && k + 1 < text.length) re += escape(text[++k]);
    else re += escape(c);
  }
  return re;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const isWord = (t: Tok | undefined, word: string): boolean => t?.t === 'word' && literalWord(t) === word;

const isOp = (t: Tok | undefined, ...ops: string[]): boolean => t?.t === 'op' && ops.includes(t.op);
