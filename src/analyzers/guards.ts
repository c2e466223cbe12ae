// Limits every analyzer keeps, so that no input, however large or deep, can stall the editor or exhaust the
// stack: a file over MAX_ANALYZED_CHARS is not analyzed, and neither is one whose brackets nest deeper than
// MAX_NESTING (real configs nest a handful of levels). One linear scan decides, before any parser runs. Pure.
import { MAX_PROBLEMS, msg, type ParseProblem } from './facts';

export { MAX_PROBLEMS };

/**
 * Characters above which a file is not analyzed, per syntax: far above real files (DeepSpeed JSON configs are a few
 * KB, YAML configs and launch scripts tens of KB, the longest training scripts a few hundred KB), low enough that any
 * text within them is analyzed in well under a second.
 */
export const MAX_ANALYZED_CHARS: Readonly<Record<Syntax, number>> = {
  json: 256 * 1024,
  yaml: 512 * 1024,
  shell: 512 * 1024,
  python: 1024 * 1024,
  toml: 256 * 1024,
  // A notebook's JSON also holds its cells' outputs (images as base64): its code alone is read (notebook.ts).
  notebook: 16 * 1024 * 1024,
};
/** Bracket nesting above which a file is not analyzed. */
export const MAX_NESTING = 100;

export type Syntax = 'json' | 'yaml' | 'toml' | 'python' | 'shell' | 'notebook';

/** The brackets that nest in each syntax (YAML's parentheses are plain text, so only flow collections count). */
const OPENERS: Readonly<Record<Syntax, string>> = {
  json: '[{',
  yaml: '[{',
  toml: '[{',
  python: '([{',
  shell: '([{',
  notebook: '[{',
};
const CLOSERS: Readonly<Record<Syntax, string>> = {
  json: ']}',
  yaml: ']}',
  toml: ']}',
  python: ')]}',
  shell: ')]}',
  notebook: ']}',
};
/** The characters the bracket scan stops at: quotes, comment starts (`#`, `/`) and the syntax's brackets. */
const STOPS: Readonly<Record<Syntax, string>> = {
  json: String.raw`["'#/[\]{}]`,
  yaml: String.raw`["'#/[\]{}]`,
  toml: String.raw`["'#[\]{}]`,
  python: String.raw`["'#/()[\]{}]`,
  shell: String.raw`["'#/()[\]{}]`,
  notebook: String.raw`["[\]{}]`,
};

/** Where a string or comment that starts at `i` ends (the index after it), or undefined when none starts there. */
function skipQuoted(text: string, i: number, syntax: Syntax): number | undefined {
  const c = text[i];
  if (c === '#' && syntax !== 'json' && syntax !== 'notebook') return lineEnd(text, i);
  if (syntax === 'json' && c === '/' && text[i + 1] === '/') return lineEnd(text, i);
  if (syntax === 'json' && c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2);
    return end < 0 ? text.length : end + 2;
  }
  if (c !== '"' && c !== "'") return undefined;
  if (syntax === 'python' && text.startsWith(c.repeat(3), i)) {
    const end = text.indexOf(c.repeat(3), i + 3);
    return end < 0 ? text.length : end + 3;
  }
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\' && c === '"') j++;
    else if (text[j] === c) return j + 1;
    else if (text[j] === '\n' && syntax !== 'shell') return j;
  }
  return text.length;
}

function lineEnd(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl < 0 ? text.length : nl;
}

/**
 * YAML also nests by indentation and by compact block entries (`- - - x`): the offset of a line that starts deeper
 * than MAX_NESTING entries or is indented by more than 4 x MAX_NESTING columns, or undefined.
 */
function yamlBlockTooDeep(text: string): number | undefined {
  for (let start = 0; start < text.length;) {
    let i = start;
    while (text[i] === ' ') i++;
    if (i - start > 4 * MAX_NESTING) return start;
    let entries = 0;
    while ((text[i] === '-' || text[i] === '?') && (text[i + 1] === ' ' || text[i + 1] === '\t')) {
      i += 2;
      while (text[i] === ' ' || text[i] === '\t') i++;
      if (++entries > MAX_NESTING) return i;
    }
    const nl = text.indexOf('\n', i);
    start = nl < 0 ? text.length : nl + 1;
  }
  return undefined;
}

/** The offset where the text first nests deeper than MAX_NESTING, or undefined. Linear in the text. */
export function tooDeep(text: string, syntax: Syntax): number | undefined {
  if (syntax === 'yaml') {
    const block = yamlBlockTooDeep(text);
    if (block !== undefined) return block;
  }
  const open = OPENERS[syntax];
  const close = CLOSERS[syntax];
  // A regular expression finds the next character that matters (the scan runs on every analysis).
  const stops = new RegExp(STOPS[syntax], 'g');
  let depth = 0;
  for (let m = stops.exec(text); m !== null; m = stops.exec(text)) {
    const i = m.index;
    const c = text[i];
    if (open.includes(c)) {
      if (++depth > MAX_NESTING) return i;
    } else if (close.includes(c)) {
      if (depth > 0) depth--;
    } else {
      const skipped = skipQuoted(text, i, syntax);
      if (skipped !== undefined) stops.lastIndex = Math.max(skipped, i + 1);
    }
  }
  return undefined;
}

/** Why `length` characters of a syntax are not analyzed (over MAX_ANALYZED_CHARS), at the file's top; else undefined. */
export function tooLarge(length: number, syntax: Syntax): ParseProblem | undefined {
  const limit = MAX_ANALYZED_CHARS[syntax];
  if (length <= limit) return undefined;
  const size = (n: number): string =>
    n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`;
  return {
    code: 'not-analyzed',
    severity: 'warning',
    span: { start: 0, end: Math.min(1, length) },
    ...msg(
      'this file is not analyzed: it has {0} of text, and VRAM Lens reads configs like it up to {1}',
      size(length),
      size(limit),
    ),
  };
}

/** Why a text is not analyzed (too large, nested too deep), located, or undefined when it may be. */
export function notAnalyzed(text: string, syntax: Syntax): ParseProblem | undefined {
  const large = tooLarge(text.length, syntax);
  if (large) return large;
  const at = tooDeep(text, syntax);
  if (at === undefined) return undefined;
  return {
    code: 'not-analyzed',
    severity: 'warning',
    span: { start: at, end: at + 1 },
    ...msg('this file is not analyzed: it nests deeper than {0} levels here', MAX_NESTING),
  };
}

/** The first MAX_PROBLEMS problems, and one more that says the rest is left out. */
export function capProblems(problems: readonly ParseProblem[]): readonly ParseProblem[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  const last = problems[MAX_PROBLEMS - 1];
  return [
    ...problems.slice(0, MAX_PROBLEMS),
    {
      code: 'syntax-error',
      severity: 'info',
      span: last.span,
      ...msg('more problems in this file are not shown; fix the ones above first'),
    },
  ];
}
