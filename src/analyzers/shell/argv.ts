// A script that another script runs with arguments (`bash scripts/train_dpo.sh --sft_model_path meta-llama/... --bsz
// 2`, Pre-DPO's examples; `sh sft.sh out run huggyllama/llama-7b`): its positional parameters are the caller's words,
// read where the script expands them (`$2`, `${1:-x}`, `"$@"`, `$#`, after `shift`); the loop that parses them is
// run in option-loop.ts. Pure: no I/O, no node:* and no 'vscode'.
import type { Env, Piece, VarVal } from './fields';

/** The environment entry that holds the arguments a calling script passes (the shell's `$@`). */
export const ARGUMENTS = '@';

/** The caller's words: each a text, or null where the calling script's value is not known statically. */
export type ArgumentWords = readonly (string | null)[];

/** The arguments of a script run by another, as the environment holds them. */
export function callerArguments(words: ArgumentWords, caller: string): VarVal {
  return { pieces: [], exported: false, argv: { words, caller } };
}

/** The known arguments of the script, when a calling script passed them. */
export function argumentsOf(env: Env): NonNullable<VarVal['argv']> | undefined {
  return env.get(ARGUMENTS)?.argv;
}

/** A caller's word as a piece read at `site` (where the script expands it). */
export function wordPiece(
  word: string | null,
  caller: string,
  site: { start: number; end: number },
  quoted: boolean,
): Piece {
  return word === null
    ? {
        text: '',
        ...site,
        exact: false,
        expanded: true,
        quoted,
        unknown: `an argument ${caller} passes, not known statically`,
      }
    : { text: word, ...site, exact: false, expanded: true, quoted };
}

/**
 * `$1` ... `$9` and `$#` of a script a caller runs with known arguments: the word, or unset past the last one;
 * undefined when no caller's arguments are known.
 */
export function positional(
  name: string,
  env: Env,
): { k: 'word'; word: string | null; caller: string } | { k: 'unset'; reason: string } | undefined {
  const argv = argumentsOf(env);
  if (!argv) return undefined;
  if (name === '#') return { k: 'word', word: String(argv.words.length), caller: argv.caller };
  const i = Number(name) - 1;
  return i < argv.words.length
    ? { k: 'word', word: argv.words[i], caller: argv.caller }
    : { k: 'unset', reason: `positional argument $${name} of the script: ${argv.caller} passes ${argv.words.length}` };
}

/** `shift [n]`: the arguments less the first n; false when they are not known. */
export function shiftArguments(env: Env, n: number): boolean {
  const argv = argumentsOf(env);
  if (!argv || !(n >= 0)) return false;
  env.set(ARGUMENTS, callerArguments(argv.words.slice(n), argv.caller));
  return true;
}
