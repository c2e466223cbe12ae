// One bounded way into the Python parser (@lezer/python) for the analyzer and the fix writer. Lezer's error recovery
// costs about 30 µs per character of text that is not Python (against 1-2 µs for code), so what no script contains is
// blanked first (lines over MAX_LINE characters, runs of one punctuation character beyond MAX_RUN), keeping every
// offset, and the parse gets a budget of steps that valid code never reaches (it takes about 0.25 steps per character)
// and of time spent recovering from syntax errors (PARSE_BUDGET_MS): past either, the file is read up to where the
// parse stopped, and a problem says so. Valid code is never timed, so results on real scripts do not depend on the
// machine or its load. The last few trees are reused, so a keystroke re-parses only the edited region (TreeFragment).
import { TreeFragment, type Tree } from '@lezer/common';
import { parser as pythonParser } from '@lezer/python';
import { msg, type ParseProblem } from './facts';

/**
 * The parser with tree buffers of 128 entries instead of lezer's 1,024: an incremental parse reuses whole subtrees
 * but never the inside of a buffer, so a keystroke re-parses the buffer around it. With 1,024-entry buffers that was
 * about 1,000 parse steps (0.9 ms in a 2,000-line script); with 128, about 90 (0.16 ms). A whole parse takes the same
 * time (235 ms for 20,000 lines either way).
 */
const parser = pythonParser.configure({ bufferLength: 128 });

/** Lines longer than this are not read (no training script has one; pasted data and fuzzed text do). */
export const MAX_LINE = 4000;
/** A run of one punctuation character is read up to this length. */
export const MAX_RUN = 200;
/**
 * Parse steps allowed: a base plus 0.4 per character (valid code takes 0.2-0.3 per character) and one per line break
 * (a notebook's script keeps each cell line on its JSON line, so thousands of blank lines stand for cell outputs).
 */
const stepBudget = (text: string): number => 20_000 + Math.ceil(0.4 * text.length) + lineBreaks(text);

function lineBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
/** Milliseconds of error recovery allowed (text that is not Python costs ~30 µs per character there). */
export const PARSE_BUDGET_MS = 500;

export interface ParsedPython {
  readonly tree: Tree;
  /** The text the tree was parsed from: the input with the unread stretches blanked (same offsets). */
  readonly text: string;
  readonly problems: readonly ParseProblem[];
}

/**
 * The text with [from, to) blanked but for its triple quotes, which open or close a string that goes on over other
 * lines: a notebook exported as a script keeps a Markdown cell with a pasted image as one `"""![image.png](data:...`
 * line of 400,000 characters, and blanking its quotes would turn the rest of the script into a string
 * (PegasusArc/LoRa-Finetuning-Mistral-with-Dolly15K).
 */
function blank(text: string, from: number, to: number): string {
  const kept = text.slice(from, to).replace(/"""|'''|[^\n]/g, (m) => (m.length === 3 ? m : ' '));
  return text.slice(0, from) + kept + text.slice(to);
}

/** The text with over-long lines and long punctuation runs blanked, and the problems that say where. */
function mask(text: string): { text: string; problems: ParseProblem[] } {
  const problems: ParseProblem[] = [];
  let out = text;
  let line = 1;
  for (let start = 0; start < text.length; line++) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    if (end - start > MAX_LINE) {
      out = blank(out, start, end);
      problems.push({
        code: 'not-analyzed',
        severity: 'warning',
        span: { start, end: start + 1 },
        ...msg(
          'line {0} has {1} characters and is not read (VRAM Lens reads Python lines up to {2})',
          line,
          end - start,
          MAX_LINE,
        ),
      });
    }
    start = end + 1;
  }
  out = out.replace(/([^\w\s])\1{200,}/g, (run) => run.slice(0, MAX_RUN) + ' '.repeat(run.length - MAX_RUN));
  return { text: out, problems };
}

const recent: Array<{ input: string; parsed: ParsedPython; fragments: readonly TreeFragment[] }> = [];
const RECENT = 4;

/**
 * Fragments of the most similar recent parse (the longest unchanged start and end: the same file before the edit, when
 * a script and the helper module it imports are parsed in turn), shifted to the new text (the changed region parsed
 * again).
 */
function reusable(text: string): readonly TreeFragment[] | undefined {
  let best: { fragments: readonly TreeFragment[]; start: number; endA: number; endB: number } | undefined;
  for (const prev of recent) {
    const a = prev.parsed.text;
    let start = 0;
    const max = Math.min(a.length, text.length);
    while (start < max && a.charCodeAt(start) === text.charCodeAt(start)) start++;
    let endA = a.length;
    let endB = text.length;
    while (endA > start && endB > start && a.charCodeAt(endA - 1) === text.charCodeAt(endB - 1)) {
      endA--;
      endB--;
    }
    if (!best || start + (text.length - endB) > best.start + (text.length - best.endB))
      best = { fragments: prev.fragments, start, endA, endB };
    // The latest parse is the edited file's in the usual case (most of it unchanged): no need to look further.
    if (2 * (best.start + text.length - best.endB) >= text.length) break;
  }
  if (!best) return undefined;
  return TreeFragment.applyChanges(best.fragments, [
    { fromA: best.start, toA: best.endA, fromB: best.start, toB: best.endB },
  ]);
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Whether the parse is recovering from a syntax error (lezer's Parse.recovering, not in its typings): a parse whose
 * lezer has no such field is taken as recovering, so every step of it is timed.
 */
function recovering(parse: object): boolean {
  const r = (parse as { recovering?: unknown }).recovering;
  return typeof r !== 'number' || r > 0;
}

/** Parses a Python text within the budgets (the same input gives the same tree and problems). */
export function parsePython(input: string): ParsedPython {
  const at = recent.findIndex((r) => r.input === input);
  if (at >= 0) {
    // Kept at the front: a file parsed again and again unchanged (a helper module beside an edited script) stays.
    const [hit] = recent.splice(at, 1);
    recent.unshift(hit);
    return hit.parsed;
  }
  const masked = mask(input);
  const fragments = reusable(masked.text);
  const parse = parser.startParse(masked.text, fragments);
  const budget = stepBudget(masked.text);
  let tree: Tree | null;
  let stopped = false;
  let recoveryMs = 0;
  for (let steps = 0; ; steps++) {
    // Only error recovery is timed: valid code is read to the step budget whatever the machine's load, so the same
    // text always gives the same tree (a wall-clock limit on the whole parse cut the 43,823-line script of a notebook,
    // noahwei682/qwen2.5-0.5b-rl's QwenGRPO.ipynb, short on a loaded machine).
    const timed = recovering(parse);
    const start = timed ? performance.now() : 0;
    tree = parse.advance();
    if (tree) break;
    if (timed) recoveryMs += performance.now() - start;
    if (!stopped && (steps >= budget || recoveryMs > PARSE_BUDGET_MS)) {
      parse.stopAt(parse.parsedPos);
      stopped = true;
    }
  }
  const problems = [...masked.problems];
  if (tree.length < masked.text.length) {
    problems.push({
      code: 'not-analyzed',
      severity: 'warning',
      span: { start: tree.length, end: Math.min(masked.text.length, tree.length + 1) },
      ...msg(
        'this file is read up to line {0}: the text after it is not Python that VRAM Lens can parse',
        lineOf(masked.text, tree.length),
      ),
    });
  }
  const parsed: ParsedPython = { tree, text: masked.text, problems };
  recent.unshift({ input, parsed, fragments: TreeFragment.addTree(tree, fragments) });
  if (recent.length > RECENT) recent.pop();
  return parsed;
}
