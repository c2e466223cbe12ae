// Functions of a launch script that run the words they are given as a command (AlexJJ009/dpo-exp's
// `run_cmd_env() { local extra="$1"; shift; ... env $extra "$@"; }`, then `run_cmd_env "-e X=1" accelerate launch
// --config_file zero2.yaml train.py`): a call of one runs its words after those the function shifts off, and that
// command is the launch. Pure: no I/O, no node:* and no 'vscode'.
import type { WordTok } from './lexer';

/** A body being read: its function's name, the `shift`s before its `"$@"`, and whether it runs `"$@"`. */
interface OpenBody {
  readonly name: string | undefined;
  shifts: number;
  passes: boolean;
}

/** The script's functions that run their arguments, by name, with the words each shifts off first. */
export class PassThroughFunctions {
  private readonly known = new Map<string, number>();
  private readonly open: OpenBody[] = [];
  private pendingName: string | undefined;

  /** The name of the function whose body comes next (`name() {`, `function name {`). */
  named(name: string | undefined): void {
    this.pendingName = name;
  }

  /** A `{` group opens: a function's body where one was named, else a plain group. */
  groupOpens(isFunction: boolean): void {
    this.open.push({ name: isFunction ? this.pendingName : undefined, shifts: 0, passes: false });
    this.pendingName = undefined;
  }

  /** A group closes: a function's body that ran `"$@"` is one to read calls of. */
  groupCloses(): void {
    const body = this.open.pop();
    if (body?.name !== undefined && body.passes) this.known.set(body.name, body.shifts);
  }

  /**
   * A command inside a function's body (`words` from `i`, its program): a `shift` counts the words the function takes
   * for itself, a word `"$@"` or `$@` among the command's words runs the rest.
   */
  command(text: string, words: readonly WordTok[], i: number): void {
    const body = [...this.open].reverse().find((b) => b.name !== undefined);
    if (!body || body.passes || i >= words.length) return;
    const raw = words.slice(i).map((w) => text.slice(w.start, w.end));
    if (raw[0] === 'shift') body.shifts += raw.length > 1 && /^\d+$/.test(raw[1]) ? Number(raw[1]) : 1;
    else if (runsArguments(raw)) body.passes = true;
  }

  /** How many words of a call of `name` are the function's own (its name and the shifted ones); undefined: no such function. */
  ownWords(name: string): number | undefined {
    const shifts = this.known.get(name);
    return shifts === undefined ? undefined : 1 + shifts;
  }
}

/** Words that run the rest of their command (`env X=1 cmd`, `exec cmd`): what follows them may be the arguments. */
const RUNNERS = new Set(['env', 'exec', 'command', 'nohup', 'time', 'sudo', 'eval']);

/**
 * Whether a command runs the function's arguments as its program: `"$@"` is its first word after runners, their
 * options and the variables they set (`env $extra "$@"`), not an argument of another program (`python train.py "$@"`).
 */
function runsArguments(raw: readonly string[]): boolean {
  for (const w of raw) {
    if (w === '"$@"' || w === '$@' || w === '"${@}"') return true;
    if (RUNNERS.has(w) || w.startsWith('-') || /^[A-Za-z_]\w*=/.test(w) || /^\$\{?\w+\}?$/.test(w)) continue;
    return false;
  }
  return false;
}
