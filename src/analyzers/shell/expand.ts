// Expansion: a word's segments against the variables the script sets (`$VAR`, `${VAR:-default}` and the other
// operators, `$((...))`), into pieces that keep their spans; `$(...)`, positional arguments and the environment
// become unknown pieces with a reason. Pure: no I/O, no node:* and no 'vscode'.
import { Lexer, type Heredoc, type Seg, type WordTok } from './lexer';
import { paramForm } from './param-forms';
import {
  type Piece,
  type Env,
  SCRIPT_ARGUMENT,
  unknownOf,
  textOf,
  type Field,
  toFields,
  trimPieces,
  separator,
  withFlags,
} from './fields';
import { evalArith } from './arith';
import { countedPiece, countingCommand } from './counting-commands';

/** `$(which X)` / `$(command -v X)` of a program name (no path, no variable): X, as the shell then runs it. */
const FOUND_ON_PATH = /^\$\(\s*(?:which|command\s+-v)\s+([A-Za-z][\w.-]*)\s*\)$/;
import { argumentsOf, positional, wordPiece } from './argv';

/**
 * `$(dirname "$0")`, `$(dirname "${BASH_SOURCE[0]}")`, `$(cd "$(dirname "$0")" && pwd)`: the folder of the script
 * itself (the text of the substitution, `$(` to `)`).
 */
const SCRIPT_PATH = String.raw`"?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?"?`;
const DIRNAME = String.raw`dirname\s+${SCRIPT_PATH}`;
const OWN_FOLDER = new RegExp(
  String.raw`^\$\(\s*(?:${DIRNAME}|cd\s+"?\$\(\s*${DIRNAME}\s*\)"?\s*(?:&&|;)\s*pwd(?:\s+-P)?)\s*\)$`,
);

/**
 * `$(pwd)` (and `$PWD` unless the script sets it): the folder the script runs from. Written `.`, a path from it is
 * looked for as a relative path is, beside the script and then from the folders above it (a repository's root, where
 * `bash scripts/train.sh` runs), and said where it is found above.
 */
const WORKING_FOLDER = /^\$\(\s*pwd(?:\s+-[LP])?\s*\)$/;

/** `$(cd "$(dirname "$0")/.." && pwd)`: the group is the path from the script's folder (`/..`, `/../..`). */
const OWN_FOLDER_BELOW = new RegExp(
  String.raw`^\$\(\s*cd\s+"?\$\(\s*${DIRNAME}\s*\)((?:\/[\w.-]+)+\/?)"?\s*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)$`,
);

/**
 * `$(cd "$(dirname "$0")/.." && pwd)` (OWN_FOLDER_BELOW), or `$(cd "$SCRIPT_DIR/.." && pwd)`, where SCRIPT_DIR holds
 * the script's folder (or another folder relative to it): that folder, relative to the script (`./..`). A folder from
 * anything else (`cd ..`, from wherever the script is run) is not.
 */
function folderFrom(sub: string, env: Env): string | undefined {
  // `$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)`: a folder relative to the script's own.
  const own = OWN_FOLDER_BELOW.exec(sub);
  if (own) return `.${own[1]}`.replace(/\/$/, '');
  const m = /^\$\(\s*cd\s+("?)\$\{?([A-Za-z_]\w*)\}?((?:\/[\w.-]+)*\/?)\1\s*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)$/.exec(sub);
  const base = m ? env.get(m[2]) : undefined;
  if (!m || !base || base.pieces.some((p) => p.unknown !== undefined)) return undefined;
  const text = base.pieces.map((p) => p.text).join('');
  return text === '.' || text.startsWith('./') ? `${text}${m[3]}`.replace(/\/$/, '') : undefined;
}

export function expandSegs(script: string, segs: readonly Seg[], env: Env, split: boolean): Piece[] {
  const out: Piece[] = [];
  for (const s of segs) {
    switch (s.k) {
      case 'lit':
        out.push({ text: s.text, start: s.start, end: s.end, exact: s.exact, quoted: s.quoted });
        break;
      case 'cmdsub': {
        if (s.heredoc) {
          // `$(cat <<EOF ... EOF)`: the heredoc's text, less its trailing newlines, split where unquoted.
          const body = trimPieces(heredocText(script, s.heredoc, env), '', '\n');
          if (s.quoted && !body.length)
            out.push({ text: '', start: s.start, end: s.end, exact: false, expanded: true, quoted: true });
          for (const p of body) out.push({ ...p, split: !s.quoted && split, quoted: s.quoted, expanded: true });
          break;
        }
        const sub = script.slice(s.start, s.end);
        const folder = OWN_FOLDER.test(sub) || WORKING_FOLDER.test(sub) ? '.' : folderFrom(sub, env);
        if (folder !== undefined) {
          // The script's own folder: paths from it are written relative to the script, as the pipeline reads them.
          out.push({ text: folder, start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted });
          break;
        }
        // `$(which torchrun)`, `$(command -v deepspeed)`: the path of a program on PATH, run as that program.
        const found = FOUND_ON_PATH.exec(sub);
        if (found) {
          out.push({ text: found[1], start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted });
          break;
        }
        const counted = countingCommand(sub, env);
        if (counted) {
          out.push(countedPiece(counted, s, split));
          break;
        }
        const sum = exprArithmetic(script.slice(s.start, s.end));
        const r = sum === undefined ? undefined : evalArith(sum, (name) => lookupForArith(name, env));
        out.push(
          r?.ok
            ? { text: String(r.v), start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted }
            : {
                text: '',
                start: s.start,
                end: s.end,
                exact: false,
                unknown:
                  r?.reason ?? `\`${script.slice(s.start, Math.min(s.end, s.start + 60))}\` is the output of a command`,
                expanded: true,
                quoted: s.quoted,
              },
        );
        break;
      }
      case 'arith': {
        const r = evalArith(s.expr, (name) => lookupForArith(name, env));
        out.push(
          r.ok
            ? { text: String(r.v), start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted }
            : {
                text: '',
                start: s.start,
                end: s.end,
                exact: false,
                unknown: r.reason,
                expanded: true,
                quoted: s.quoted,
              },
        );
        break;
      }
      case 'param':
        out.push(...expandParam(script, s, env, split));
        break;
    }
  }
  return out;
}

/**
 * `$(expr 16 / $nproc_per_node)` as the arithmetic it computes (`16 / $nproc_per_node`): integers, variables and
 * + - * / % (`\\*` or `'*'` for a product), the integer arithmetic of coreutils' expr; undefined for any other command.
 */
function exprArithmetic(sub: string): string | undefined {
  const m = /^\$\(\s*expr\s+([^()`;|&<>]*?)\s*\)$/.exec(sub);
  if (!m) return undefined;
  const words = m[1].split(/\s+/).map((w) => (w === '\\*' || w === "'*'" || w === '"*"' ? '*' : w));
  const operand = /^(-?\d+|\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\})$/;
  const ok = words.every((w, i) => (i % 2 === 0 ? operand.test(w) : /^[-+*/%]$/.test(w))) && words.length % 2 === 1;
  return ok ? words.join(' ') : undefined;
}

/**
 * `$PWD` where the script does not set it: the folder it runs from, as `$(pwd)` (WORKING_FOLDER); likewise Slurm's
 * `$SLURM_SUBMIT_DIR`, the folder `sbatch` was run from, which a job script names its files from.
 */
function workingFolder(s: Extract<Seg, { k: 'param' }>): Piece {
  return { text: '.', start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted };
}

function lookupForArith(name: string, env: Env): Piece[] | string {
  const v = env.get(name);
  return v ? [...v.pieces] : `\`${name}\` is not set in this script`;
}

function expandParam(script: string, s: Extract<Seg, { k: 'param' }>, env: Env, split: boolean): Piece[] {
  const unknownPiece = (reason: string): Piece[] => [
    {
      text: '',
      start: s.start,
      end: s.end,
      exact: false,
      unknown: reason,
      expanded: true,
      quoted: s.quoted,
      split: !s.quoted && split,
    },
  ];
  if (s.complex !== undefined) {
    // `${arg#*=}` of a loop over "$@": whatever it cuts, the value comes from the script's command line.
    const base = env.get(/^(?:\$\{)?([A-Za-z_]\w*)/.exec(s.complex)?.[1] ?? '');
    const from = base ? unknownOf(base.pieces) : undefined;
    if (from !== undefined && SCRIPT_ARGUMENT.test(from)) return unknownPiece(from);
    const formed = paramForm(s.complex, env);
    if (formed !== undefined) {
      const piece: Piece = { text: formed, start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted };
      return [/\s/.test(formed) ? withFlags(piece, !s.quoted && split, s.quoted) : piece];
    }
    return unknownPiece(`\`${s.complex.slice(0, 60)}\` is not evaluated statically`);
  }
  const name = s.name;
  const argv = argumentsOf(env);
  if (argv && (name === '@' || name === '*') && s.op === undefined) {
    const elements = argv.words.map((w) => [wordPiece(w, argv.caller, s, s.quoted)]);
    return elements.length ? arrayElements(elements, { ...s, index: name === '@' ? 'all' : 'joined' }, split) : [];
  }
  let state:
    { k: 'unset'; reason: string } | { k: 'unknown'; reason: string } | { k: 'value'; pieces: readonly Piece[] };
  const given = /^([1-9]\d*|#)$/.test(name) ? positional(name, env) : undefined;
  if (given)
    state = given.k === 'unset' ? given : { k: 'value', pieces: [wordPiece(given.word, given.caller, s, s.quoted)] };
  else if (/^[1-9]\d*$/.test(name))
    state = env.get(name)?.argumentless
      ? { k: 'unset', reason: `positional argument $${name} of the script, run without it` }
      : { k: 'unknown', reason: `positional argument $${name} of the script` };
  else if (name === 'OPTARG' && !env.has(name))
    state = { k: 'unknown', reason: "an option's argument of the script ($OPTARG)" };
  else if (name === '@' || name === '*') state = { k: 'unknown', reason: `the script's arguments ($${name})` };
  else if (/^[0#?$!-]$/.test(name)) state = { k: 'unknown', reason: `the shell parameter $${name}` };
  else {
    const v = env.get(name);
    if (!v && (name === 'PWD' || name === 'SLURM_SUBMIT_DIR')) state = { k: 'value', pieces: [workingFolder(s)] };
    else if (!v)
      state = { k: 'unset', reason: `\`${name}\` is not set in this script (it comes from the environment)` };
    else if (v.elements && (s.index === 'all' || s.index === 'joined') && s.op === undefined)
      return arrayElements(v.elements, s, split);
    else if (v.elements) state = { k: 'value', pieces: v.elements[0] ?? [] };
    else {
      const u = unknownOf(v.pieces);
      // A value another file gives (the calling script's export) is read where this script expands it.
      const pieces = v.atUse ? v.pieces.map((p) => ({ ...p, start: s.start, end: s.end })) : v.pieces;
      state = u !== undefined && !/\s/.test(textOf(v.pieces)) ? { k: 'unknown', reason: u } : { k: 'value', pieces };
    }
  }
  const op = s.op;
  let pieces: readonly Piece[];
  const argPieces = (): Piece[] => expandSegs(script, s.arg ?? [], env, false);
  if (op === ':-' || op === '-' || op === ':=' || op === '=') {
    const empty = state.k === 'value' && textOf(state.pieces) === '' && unknownOf(state.pieces) === undefined;
    if (state.k === 'unknown') {
      const def = argPieces();
      const open = unknownOf(def);
      return unknownPiece(
        open === undefined
          ? `${state.reason}; the script's default is '${textOf(def)}'`
          : `${state.reason}, else ${open}`,
      );
    }
    if (state.k === 'unset' || (op.startsWith(':') && empty)) {
      pieces = argPieces();
      if (op.endsWith('='))
        env.set(name, {
          pieces: pieces.map((p) => ({ ...p, split: false })),
          exported: env.get(name)?.exported ?? false,
          valueSpan: { start: s.start, end: s.end },
        });
    } else pieces = (state as { pieces: readonly Piece[] }).pieces;
  } else if (op === ':+' || op === '+') {
    if (state.k === 'unknown') return unknownPiece(state.reason);
    const set = state.k === 'value' && (op === '+' || textOf(state.pieces) !== '');
    pieces = set ? argPieces() : [];
  } else {
    if (state.k !== 'value') return unknownPiece(state.reason);
    pieces = state.pieces;
  }
  const text = textOf(pieces);
  const unknown = unknownOf(pieces);
  // A value with blanks keeps where each part was written, so `$LAUNCHER` splits into flags with their own spans;
  // a single word points at the reference written here (`$BATCH_SIZE`).
  if (/\s/.test(text)) return pieces.map((p) => withFlags(p, !s.quoted && split, s.quoted));
  if (unknown !== undefined) return unknownPiece(unknown);
  return [{ text, start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted }];
}

/**
 * `${NAME[@]}` of an array: each element a word of its own, quoted or not, with the spans where it was written; an
 * unquoted element is split further, as the shell does. `"${NAME[*]}"` joins them into one word.
 */
function arrayElements(
  elements: readonly (readonly Piece[])[],
  s: Extract<Seg, { k: 'param' }>,
  split: boolean,
): Piece[] {
  const element = (e: readonly Piece[]): Piece[] =>
    e.map((p) => ({ ...p, split: !s.quoted && split, quoted: s.quoted, expanded: true }));
  const apart = s.index === 'all' ? split : !s.quoted && split;
  return elements.flatMap((e, i) => (i === 0 ? element(e) : [separator(elements[i - 1], apart), ...element(e)]));
}

/** A heredoc's body as one string: its pieces, expanded against `env` unless the delimiter is quoted (lexer.heredocSegs). */
export function heredocText(script: string, h: Heredoc, env: Env): Piece[] {
  return expandSegs(script, new Lexer(script).heredocSegs(h), env, false).map((p) => ({ ...p, split: false }));
}

export function fieldsOf(script: string, words: readonly WordTok[], env: Env): Field[] {
  return words.flatMap((w) => toFields(expandSegs(script, w.segs, env, true)));
}
