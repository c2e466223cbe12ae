// A Python script that trains by running a launch command (a driver, a Modal or Kubeflow step): `subprocess.run(
// ["accelerate", "launch", "-m", "axolotl.cli.train", str(yaml_path)])`, `os.system("accelerate launch -m
// axolotl.cli.train config.yml")`. Each command whose words are known statically becomes a line of a shell script,
// every character of it mapped back to where the Python writes it, so that the shell analyzer reads the launch and its
// facts are located in the script; a config the script writes before (yaml.dump, write_text) is read as written. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { ConfigFacts, Span } from '../facts';
import { MAX_ANALYZED_CHARS } from '../guards';
import { movedSpans } from '../moved-spans';
import { parsePython } from '../python-parse';
import { analyzeShell } from '../shell';
import { PythonFile } from './file';
import { withWrittenConfigs, writtenFiles } from './written-files';

/** The commands as a shell script, and where in the Python each of its characters is written. */
export interface ShellOut {
  readonly text: string;
  readonly offsets: readonly number[];
}

/** The calls that run a command: subprocess's (a list of words, or a string with shell=True) and os.system's. */
const RUNS = /^(?:subprocess\.)?(?:run|call|check_call|check_output|Popen)$|^os\.(?:system|popen)$/;
const MAX_COMMANDS = 16;

/** Whether the text may run a command at all (a cheap test before the parse). */
export function mayShellOut(text: string): boolean {
  return text.length <= MAX_ANALYZED_CHARS.python && /\b(?:subprocess|os\.system|os\.popen)\b/.test(text);
}

/** The commands a script runs whose words are known statically, as one shell script; undefined when there are none. */
export function shellOut(text: string): ShellOut | undefined {
  if (!mayShellOut(text)) return undefined;
  const out = { chars: [] as string[], offsets: [] as number[] };
  try {
    const file = new PythonFile(text);
    file.root = parsePython(text).tree.topNode;
    const bare = /^\s*from\s+subprocess\s+import\b/m.test(text);
    const cur = file.root.cursor();
    let commands = 0;
    do {
      if (commands >= MAX_COMMANDS) break;
      if (cur.name !== 'CallExpression') continue;
      const callee = file.calleeName(cur.node) ?? '';
      if (!RUNS.test(callee) || (!callee.includes('.') && !bare)) continue;
      const first = file.args(cur.node).positional[0];
      if (first && command(file, first, out)) commands++;
    } while (cur.next());
  } catch {
    // What was read before a failure is kept.
  }
  return out.chars.length > 0 ? { text: out.chars.join(''), offsets: out.offsets } : undefined;
}

/** Appends `s` to the script, each character at `at(i)` in the Python. */
function put(out: { chars: string[]; offsets: number[] }, s: string, at: (i: number) => number): void {
  for (let i = 0; i < s.length; i++) {
    out.chars.push(s[i]);
    out.offsets.push(at(i));
  }
}

/** Where the i-th character of a string literal's value is written: in place when the literal has no escapes. */
function literalAt(file: PythonFile, node: SyntaxNode, value: string): (i: number) => number {
  const raw = file.text.slice(node.from, node.to);
  const quote = /^[rRuU]?("""|'''|"|')/.exec(raw)?.[0] ?? '';
  const inPlace =
    node.name === 'String' && raw.slice(quote.length, raw.length - quote.replace(/^[rRuU]/, '').length) === value;
  return inPlace ? (i) => node.from + quote.length + i : () => node.from;
}

/** A word quoted for the shell where it has to be (single quotes, as shlex.join does). */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'"'"'`)}'`;
}

/** One command: a list of words (each known statically) or a command line; false when it is not known. */
function command(file: PythonFile, node: SyntaxNode, out: { chars: string[]; offsets: number[] }): boolean {
  if (node.name === 'ArrayExpression' || node.name === 'TupleExpression') {
    const words: { text: string; at: (i: number) => number }[] = [];
    for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
      if (['[', ']', '(', ')', ',', 'Comment'].includes(ch.name)) continue;
      const v = file.evalNode(ch, 0);
      if (v.k !== 'lit' || (typeof v.v !== 'string' && typeof v.v !== 'number')) return false;
      const w = String(v.v);
      const quoted = shellWord(w);
      const at = literalAt(file, ch, w);
      const el = ch;
      words.push({ text: quoted, at: quoted === w ? at : () => el.from });
    }
    if (words.length === 0) return false;
    words.forEach((w, i) => {
      if (i > 0) put(out, ' ', () => node.from);
      put(out, w.text, w.at);
    });
  } else {
    const v = file.evalNode(node, 0);
    if (v.k !== 'lit' || typeof v.v !== 'string' || !v.v.trim()) return false;
    put(out, v.v, literalAt(file, node, v.v));
  }
  put(out, '\n', () => node.to);
  return true;
}

/**
 * The run a Python script launches through a command (shellOut), read by the shell analyzer with the configs the
 * script writes, its spans moved back into the Python; undefined when no command launches training.
 */
export function analyzeShellOut(text: string): ConfigFacts | undefined {
  const shell = shellOut(text);
  if (!shell) return undefined;
  const r = withWrittenConfigs(analyzeShell(shell.text), writtenFiles(text));
  if (r.references.length === 0 && !r.facts.some((f) => f.key === 'model')) return undefined;
  const last = shell.offsets.length - 1;
  const at = (s: Span): Span => {
    const start = shell.offsets[Math.min(s.start, last)];
    const end = s.end > s.start ? shell.offsets[Math.min(s.end - 1, last)] + 1 : start;
    return { start, end: Math.max(start, end) };
  };
  return { ...movedSpans(r, at), format: 'hf-python', launchesRun: true };
}
