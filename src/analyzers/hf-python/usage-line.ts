// A script's own usage line: the command its docstring or header comments show for running it
// (`python scripts/run_grpo.py --config configs/grpo.yaml` in baremetaldevx86/Qwen-2.5-1.5B-GRPO's run_grpo.py, whose
// --config is required). A script that reads an option it has no value for alone is read with that line's options
// when no launch line runs it (collect/reading.ts), each said to come from the line. Pure; never throws on user text.
import type { LaunchArgument } from '../facts';

/** Lines at the top of a script where its docstring and header comments show how it runs. */
const HEAD_LINES = 80;

/**
 * Lines of a README beside the script read for a command that runs it: a long README keeps its fine-tuning section
 * far down (TigerResearch/TigerBot's runs train_sft.py at line 429); the samples' longest is under 2,000 lines.
 */
export const README_LINES = 2000;

/** A command that runs a Python script: the interpreter, or a launcher that starts it. */
const RUNNER = /(?:^|[\s`$>(])(?:python3?|uv run(?: python3?)?|torchrun|accelerate launch|deepspeed)(?=\s)/;

/** Where the words of a command end: a comment, a pipe, a list or a redirection. */
const END = /^(?:#|\||&&|;|>|`|\))/;

/** The options a usage line passes (`--name value`, `--name=value`, a bare `--flag`), in its order. */
function options(words: readonly string[]): LaunchArgument[] {
  const out: LaunchArgument[] = [];
  for (let i = 0; i < words.length; i++) {
    const m = /^--?([A-Za-z][\w.-]*)(?:=(.*))?$/.exec(words[i]);
    if (!m) continue;
    if (m[2] !== undefined) {
      out.push({ name: m[1], value: m[2] });
      continue;
    }
    const next = words[i + 1];
    if (next !== undefined && !next.startsWith('-')) {
      out.push({ name: m[1], value: next });
      i++;
    } else out.push({ name: m[1] });
  }
  return out;
}

/** The words of a command's text after the script, unquoted, up to where the command ends. */
function wordsOf(rest: string): string[] {
  const out: string[] = [];
  for (const raw of rest.trim().split(/\s+/)) {
    if (!raw || END.test(raw)) break;
    out.push(raw.replace(/^(['"])(.*)\1$/, '$2').replace(/[`'"]+$/, ''));
  }
  return out;
}

/** A command that runs a script: its options, and its first and last lines (1-based, the continued ones included). */
export interface UsageCommand {
  readonly args: LaunchArgument[];
  readonly line: number;
  readonly lastLine: number;
  /** The console script the line runs the script by (its pyproject.toml entry point), where it is one. */
  readonly command?: string;
}

/**
 * The options of the first line near the top of `text` that runs the script named `file` (by its file name, after
 * an interpreter or a launcher, or by one of its console scripts, `commands`, as the line's first word), joined with
 * the lines a trailing `\` continues it on; undefined when there is none or it passes no option.
 */
export function usageArguments(
  text: string,
  file: string,
  lineCount = HEAD_LINES,
  commands: readonly string[] = [],
): UsageCommand | undefined {
  const name = file.split(/[\\/]/).pop() ?? file;
  const script = new RegExp(`(?:^|[\\s/])${escape(name)}(?=\\s|$)(.*)$`);
  const byCommand =
    commands.length > 0 ? new RegExp(`^[\\s#$>\`]*(${commands.map(escape).join('|')})(?=\\s)(.*)$`) : undefined;
  const lines = text.split('\n').slice(0, lineCount);
  for (let i = 0; i < lines.length; i++) {
    const byName = byCommand?.exec(lines[i]);
    if (!byName && !RUNNER.test(lines[i])) continue;
    let joined = lines[i].replace(/^\s*#+/, '');
    let j = i;
    for (; /\\\s*$/.test(joined) && j + 1 < lines.length; j++)
      joined = `${joined.replace(/\\\s*$/, ' ')}${lines[j + 1].replace(/^\s*#+/, '')}`;
    const rest = byName ? byCommand?.exec(joined)?.[2] : script.exec(joined)?.[1];
    const args = rest !== undefined ? options(wordsOf(rest)) : [];
    if (args.length > 0) return { args, line: i + 1, lastLine: j + 1, ...(byName ? { command: byName[1] } : {}) };
  }
  return undefined;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
