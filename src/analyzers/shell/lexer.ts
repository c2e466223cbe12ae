// The shell lexer: words made of segments that remember where they were written (text, `$VAR`, `${...}`,
// `$((...))`, `$(...)`), operators, comments, and heredocs: their bodies are not words of the script, but each `<<`
// operator keeps where its body is, and `heredocSegs` reads a body as the one string it is (expanded unless the
// delimiter is quoted) for the interpreter's `read VAR <<EOF` and `$(cat <<EOF ...)`. Pure: no I/O, no node:* and no
// 'vscode'.
import { msg, type Message, type ParseProblem } from '../facts';

export type Seg =
  | {
      readonly k: 'lit';
      readonly text: string;
      readonly start: number;
      readonly end: number;
      readonly quoted: boolean;
      readonly exact: boolean;
    }
  | {
      readonly k: 'param';
      readonly name: string;
      /**
       * `${NAME[@]}`: every element of an array, a word each even when quoted (`all`); `${NAME[*]}`: every element,
       * one word when quoted (`joined`); `${NAME[0]}`: the first (`first`).
       */
      readonly index?: 'all' | 'joined' | 'first';
      readonly op?: string;
      readonly arg?: readonly Seg[];
      readonly complex?: string;
      readonly start: number;
      readonly end: number;
      readonly quoted: boolean;
    }
  | {
      readonly k: 'arith';
      readonly expr: string;
      readonly start: number;
      readonly end: number;
      readonly quoted: boolean;
    }
  | {
      readonly k: 'cmdsub';
      readonly start: number;
      readonly end: number;
      readonly quoted: boolean;
      /** `$(cat <<EOF ... EOF)`: the output is the heredoc's text. */
      readonly heredoc?: Heredoc;
    };

/** A heredoc: the `<<` operator, its delimiter and where its body is. */
export interface Heredoc {
  /** Offset of the `<<` / `<<-` operator. */
  readonly opStart: number;
  readonly delim: string;
  /** The delimiter is quoted (`<<'EOF'`, `<<"EOF"`, `<<\EOF`): the body is taken as written, not expanded. */
  readonly quoted: boolean;
  /** `<<-`: leading tabs are stripped from each line. */
  readonly stripTabs: boolean;
  /** The body: the lines after the operator's line, up to the closing delimiter's line (the end of the text without one). */
  bodyStart: number;
  bodyEnd: number;
}

export interface WordTok {
  readonly t: 'word';
  readonly segs: readonly Seg[];
  readonly start: number;
  readonly end: number;
}
export interface OpTok {
  readonly t: 'op';
  readonly op: string;
  readonly start: number;
  readonly end: number;
  /** The heredoc of a `<<` / `<<-` operator. */
  readonly heredoc?: Heredoc;
}
export type Tok = WordTok | OpTok;

export interface Comment {
  readonly start: number;
  readonly end: number;
  readonly lineStart: boolean;
}

interface Lexed {
  readonly toks: Tok[];
  readonly comments: Comment[];
  readonly problems: ParseProblem[];
}

const OPERATORS = [
  '&&',
  '||',
  ';;&',
  ';;',
  ';&',
  '|&',
  '&>>',
  '&>',
  '>>',
  '>&',
  '<<<',
  '<<-',
  '<<',
  '<&',
  '<>',
  '>|',
  '|',
  '&',
  ';',
  '(',
  ')',
  '<',
  '>',
];
export const REDIRECTS = new Set(['&>>', '&>', '>>', '>&', '<<<', '<&', '<>', '>|', '<', '>']);
export const isBlank = (c: string): boolean => c === ' ' || c === '\t' || c === '\r';
const isNameStart = (c: string): boolean => /[A-Za-z_]/.test(c);
const isNameChar = (c: string): boolean => /[A-Za-z0-9_]/.test(c);

function opAt(text: string, i: number): string | undefined {
  for (const op of OPERATORS) if (text.startsWith(op, i)) return op;
  return undefined;
}

/**
 * Whether the comment from `start` to `end` (its newline) is a line of its own inside a `\` continuation that the
 * comment itself continues (it ends with `\`) and that goes on with an option (`--x`): a commented-out option.
 */
function continuedComment(text: string, start: number, end: number): boolean {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (!/^[ \t]*$/.test(text.slice(lineStart, start))) return false;
  if (!inContinuedCommand(text, lineStart)) return false;
  if (!/\\\r?$/.test(text.slice(start, end))) return false;
  // The lines the continuation would have taken, past the commented-out ones: an option there runs on its own. Where
  // only comments follow to a blank line or the end (`#  --use_wandb \` last), nothing is cut off.
  const rest = text.slice(end + 1, end + 1 + 4000).split('\n');
  const next = rest.find((line) => !/^[ \t]*#/.test(line)) ?? '';
  return /^[ \t]*--?\w/.test(next);
}

/**
 * Whether the line at `lineStart` goes on a command the lines before it continue with `\`: the line before ends with
 * `\` and is a command's, or a commented-out option inside such a command. A comment line's own `\` continues nothing,
 * so a command commented out whole (`#python b.py \`, `#  --z 3 \`) is no command.
 */
function inContinuedCommand(text: string, lineStart: number): boolean {
  let end = lineStart - 1;
  for (let lines = 0; lines < 1000 && end > 0; lines++) {
    const prevStart = text.lastIndexOf('\n', end - 1) + 1;
    const prev = text.slice(prevStart, end).replace(/\r$/, '');
    if (!prev.endsWith('\\')) return false;
    if (!/^[ \t]*#/.test(prev)) return true;
    end = prevStart - 1;
  }
  return false;
}

/** Length of a `\`-newline continuation at i (2 or 3 with CRLF), else 0. */
function continuationAt(text: string, i: number): number {
  // bash drops a NUL byte of its input; nested.ts marks with one what the outer shell took out of a `-c` string.
  if (text[i] === '\0') return 1;
  if (text[i] !== '\\') return 0;
  if (text[i + 1] === '\n') return 2;
  if (text[i + 1] === '\r' && text[i + 2] === '\n') return 3;
  return 0;
}

/** Index just past the `)` matching the `(` before `from` (depth 1), skipping quotes; -1 when unterminated. */
function matchParen(text: string, from: number, depth = 1): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      const j = text.indexOf("'", i + 1);
      if (j < 0) return -1;
      i = j + 1;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** Index just past the `}` closing a `${` whose body starts at `from`; -1 when unterminated. */
function matchBrace(text: string, from: number): number {
  let depth = 1;
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      const j = text.indexOf("'", i + 1);
      if (j < 0) return -1;
      i = j + 1;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '$' && text[i + 1] === '{') {
      depth++;
      i += 2;
      continue;
    }
    if (c === '}') {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

export class Lexer {
  readonly toks: Tok[] = [];
  readonly comments: Comment[] = [];
  readonly problems: ParseProblem[] = [];
  private pendingHeredocs: Heredoc[] = [];

  /**
   * @param ipython the text is a notebook's `!` lines, which IPython expands before the shell sees them: `{name}` is
   * the Python variable's value, read as `${name}` (IPython's var_expand).
   */
  constructor(
    private readonly text: string,
    private readonly ipython = false,
  ) {}

  /** IPython's `{name}` at i (a Python variable of the notebook), as the parameter it is read as. */
  private pythonVariable(i: number, quoted: boolean): { seg: Seg; end: number } | undefined {
    if (!this.ipython || this.text[i] !== '{') return undefined;
    const m = /^\{([A-Za-z_]\w*)\}/.exec(this.text.slice(i, i + 256));
    if (!m) return undefined;
    const end = i + m[0].length;
    return { seg: { k: 'param', name: m[1], start: i, end, quoted }, end };
  }

  run(): Lexed {
    const text = this.text;
    let i = 0;
    let atLineStart = true;
    while (i < text.length) {
      const c = text[i];
      const cont = continuationAt(text, i);
      if (cont) {
        i += cont;
        continue;
      }
      if (isBlank(c)) {
        i++;
        continue;
      }
      if (c === '\n') {
        this.toks.push({ t: 'op', op: '\n', start: i, end: i + 1 });
        i++;
        atLineStart = true;
        if (this.pendingHeredocs.length) i = this.skipHeredocs(i);
        continue;
      }
      if (c === '#') {
        const e = text.indexOf('\n', i);
        const end = e < 0 ? text.length : e;
        this.comments.push({ start: i, end, lineStart: atLineStart });
        // A commented-out option inside a `\` continuation (`    #--model_name_or_path Qwen/... \`): bash ends the
        // command there, the lines after it another command; read as the continued command it stands in, and said.
        if (e >= 0 && continuedComment(text, i, end)) {
          this.problems.push({
            code: 'syntax-error',
            severity: 'warning',
            ...msg(
              'bash ends the command at this comment line: the lines after it run as a command of their own. ' +
                'Read as the one command the `\\` continuations mean; move the comment out of the command',
            ),
            span: { start: i, end },
          });
          i = end + 1;
          continue;
        }
        i = end;
        continue;
      }
      atLineStart = false;
      const op = opAt(text, i);
      if (op) {
        const tok: { t: 'op'; op: string; start: number; end: number; heredoc?: Heredoc } = {
          t: 'op',
          op,
          start: i,
          end: i + op.length,
        };
        this.toks.push(tok);
        i += op.length;
        if (op === '<<' || op === '<<-') {
          const h = this.readHeredocDelimiter(tok.start, i, op === '<<-');
          if (h.heredoc) tok.heredoc = h.heredoc;
          i = h.end;
        }
        continue;
      }
      const w = this.readWord(i, text.length, false);
      // A file-descriptor number glued to a redirect (`2>&1`) is not a word.
      if (
        /^\d+$/.test(w.segs.map((s) => (s.k === 'lit' ? s.text : '?')).join('')) &&
        (text[w.end] === '>' || text[w.end] === '<')
      ) {
        i = w.end;
        continue;
      }
      if (w.end <= i) {
        i++;
        continue;
      }
      this.toks.push(w);
      i = w.end;
    }
    return { toks: this.toks, comments: this.comments, problems: this.problems };
  }

  private readHeredocDelimiter(opStart: number, from: number, stripTabs: boolean): { end: number; heredoc?: Heredoc } {
    let i = from;
    while (i < this.text.length && isBlank(this.text[i])) i++;
    const w = this.readWord(i, this.text.length, false);
    if (w.end <= i) return { end: i };
    const delim = w.segs.map((s) => (s.k === 'lit' ? s.text : '')).join('');
    const quoted = w.segs.some((s) => s.quoted);
    const heredoc: Heredoc = { opStart, delim, quoted, stripTabs, bodyStart: w.end, bodyEnd: w.end };
    this.pendingHeredocs.push(heredoc);
    return { end: w.end, heredoc };
  }

  /** Skips heredoc bodies that start at the line beginning at `from` (noting where each is); returns the index after the last one. */
  private skipHeredocs(from: number): number {
    let i = from;
    for (const h of this.pendingHeredocs) {
      h.bodyStart = i;
      h.bodyEnd = this.text.length;
      while (i < this.text.length) {
        const lineStart = i;
        const e = this.text.indexOf('\n', i);
        const lineEnd = e < 0 ? this.text.length : e;
        let line = this.text.slice(i, lineEnd).replace(/\r$/, '');
        if (h.stripTabs) line = line.replace(/^\t+/, '');
        i = e < 0 ? this.text.length : e + 1;
        if (line === h.delim) {
          h.bodyEnd = lineStart;
          break;
        }
      }
    }
    this.pendingHeredocs = [];
    return i;
  }

  /**
   * A heredoc's body as the segments of one string, as bash reads it: `\`-newline continuations are joined and, under
   * `<<-`, each line's leading tabs dropped; with an unquoted delimiter `$VAR`, `${...}`, `$((...))` and `$(...)` are
   * expanded and `\$`, `` \` `` and `\\` escaped. Quotes are plain characters. (With a quoted delimiter bash keeps the
   * `\`-newlines for `read -r` and `cat`; they are joined here too, as the script means the lines as one command.)
   */
  heredocSegs(h: Heredoc): Seg[] {
    const text = this.text;
    const to = Math.min(h.bodyEnd, text.length);
    const segs: Seg[] = [];
    let litStart = -1;
    let litText = '';
    const flush = (): void => {
      if (litStart >= 0 && litText.length)
        segs.push({
          k: 'lit',
          text: litText,
          start: litStart,
          end: litStart + litText.length,
          quoted: true,
          exact: true,
        });
      litStart = -1;
      litText = '';
    };
    let i = h.bodyStart;
    let lineStart = true;
    while (i < to) {
      if (lineStart && h.stripTabs && text[i] === '\t') {
        flush();
        while (i < to && text[i] === '\t') i++;
        continue;
      }
      lineStart = false;
      const c = text[i];
      const cont = continuationAt(text, i);
      if (cont) {
        flush();
        i += cont;
        lineStart = true;
        continue;
      }
      if (c === '\r' && text[i + 1] === '\n') {
        flush();
        i++;
        continue;
      }
      if (!h.quoted) {
        if (c === '\\' && '$`\\'.includes(text[i + 1] ?? '') && i + 1 < to) {
          flush();
          segs.push({ k: 'lit', text: text[i + 1], start: i, end: i + 2, quoted: true, exact: false });
          i += 2;
          continue;
        }
        if (c === '$' || c === '`') {
          const r = this.readDollar(i, to, true);
          if (r) {
            flush();
            segs.push(r.seg);
            i = r.end;
            continue;
          }
        }
      }
      if (c === '\n') lineStart = true;
      if (litStart < 0) litStart = i;
      litText += c;
      i++;
    }
    flush();
    return segs;
  }

  private unterminated(start: number, end: number, m: Message): void {
    this.problems.push({ code: 'syntax-error', severity: 'warning', ...m, span: { start, end: Math.max(start, end) } });
  }

  /**
   * Reads segments from `from`. Outside `inArg` mode a word ends at a blank, a newline or an operator; in
   * `inArg` mode (the body of `${X:-...}`) everything up to `to` belongs to it.
   */
  readWord(from: number, to: number, inArg: boolean): WordTok {
    const text = this.text;
    const segs: Seg[] = [];
    let litStart = -1;
    let litText = '';
    const flush = (end: number): void => {
      if (litStart >= 0 && litText.length)
        segs.push({ k: 'lit', text: litText, start: litStart, end, quoted: false, exact: true });
      litStart = -1;
      litText = '';
    };
    let i = from;
    while (i < to) {
      const c = text[i];
      const cont = continuationAt(text, i);
      if (cont) {
        flush(i);
        i += cont;
        continue;
      }
      if (!inArg && (isBlank(c) || c === '\n' || ';&|()<>'.includes(c))) break;
      if (c === '\\') {
        flush(i);
        const n = text[i + 1] ?? '';
        segs.push({ k: 'lit', text: n, start: i, end: Math.min(to, i + 2), quoted: true, exact: false });
        i = Math.min(to, i + 2);
        continue;
      }
      if (c === "'") {
        flush(i);
        const j = text.indexOf("'", i + 1);
        const end = j < 0 || j >= to ? to : j;
        if (j < 0 || j >= to) this.unterminated(i, to, msg('unterminated single quote'));
        segs.push({ k: 'lit', text: text.slice(i + 1, end), start: i + 1, end, quoted: true, exact: true });
        i = Math.min(to, end + 1);
        continue;
      }
      if (c === '"') {
        flush(i);
        i = this.readDouble(i + 1, to, segs);
        continue;
      }
      if (c === '$' && text[i + 1] === "'") {
        flush(i);
        const j = text.indexOf("'", i + 2);
        const end = j < 0 || j >= to ? to : j;
        const body = text.slice(i + 2, end);
        segs.push({ k: 'lit', text: body, start: i + 2, end, quoted: true, exact: !body.includes('\\') });
        i = Math.min(to, end + 1);
        continue;
      }
      if (c === '$' || c === '`' || c === '{') {
        const r = c === '{' ? this.pythonVariable(i, false) : this.readDollar(i, to, false);
        if (r) {
          flush(i);
          segs.push(r.seg);
          i = r.end;
          continue;
        }
      }
      if (litStart < 0) litStart = i;
      litText += c;
      i++;
    }
    flush(i);
    return { t: 'word', segs, start: from, end: i };
  }

  /** Reads the inside of "..." starting after the opening quote; returns the index after the closing quote. */
  private readDouble(from: number, to: number, segs: Seg[]): number {
    const text = this.text;
    let litStart = -1;
    let litText = '';
    const flush = (end: number): void => {
      if (litStart >= 0) segs.push({ k: 'lit', text: litText, start: litStart, end, quoted: true, exact: true });
      litStart = -1;
      litText = '';
    };
    let i = from;
    let sawAny = false;
    while (i < to) {
      const c = text[i];
      if (c === '"') {
        flush(i);
        if (!sawAny) segs.push({ k: 'lit', text: '', start: from, end: from, quoted: true, exact: true });
        return i + 1;
      }
      sawAny = true;
      const cont = continuationAt(text, i);
      if (cont) {
        flush(i);
        i += cont;
        continue;
      }
      if (c === '\\' && '$`"\\'.includes(text[i + 1] ?? '')) {
        flush(i);
        segs.push({ k: 'lit', text: text[i + 1], start: i, end: i + 2, quoted: true, exact: false });
        i += 2;
        continue;
      }
      if (c === '$' || c === '`' || c === '{') {
        const r = c === '{' ? this.pythonVariable(i, true) : this.readDollar(i, to, true);
        if (r) {
          flush(i);
          segs.push(r.seg);
          i = r.end;
          continue;
        }
      }
      if (litStart < 0) litStart = i;
      litText += c;
      i++;
    }
    flush(i);
    this.unterminated(from - 1, to, msg('unterminated double quote'));
    return to;
  }

  /** Reads `$...` or a backquoted command at i; undefined when the `$` is a plain character. */
  private readDollar(i: number, to: number, quoted: boolean): { seg: Seg; end: number } | undefined {
    const text = this.text;
    if (text[i] === '`') {
      let j = i + 1;
      while (j < to && text[j] !== '`') j += text[j] === '\\' ? 2 : 1;
      if (j >= to) this.unterminated(i, to, msg('unterminated backquote'));
      const end = Math.min(to, j + 1);
      return { seg: { k: 'cmdsub', start: i, end, quoted }, end };
    }
    const n = text[i + 1] ?? '';
    if (n === '(' && text[i + 2] === '(') {
      const close = matchParen(text, i + 3, 2);
      if (close > 0 && close <= to && text[close - 2] === ')') {
        return { seg: { k: 'arith', expr: text.slice(i + 3, close - 2), start: i, end: close, quoted }, end: close };
      }
    }
    // `$[ expr ]`: bash's older arithmetic expansion, as `$(( expr ))` (VideoLLaMA2's `$[$GLOBAL_BATCH_SIZE/...]`).
    if (n === '[') {
      const close = text.indexOf(']', i + 2);
      if (close > 0 && close < to && !text.slice(i + 2, close).includes('['))
        return {
          seg: { k: 'arith', expr: text.slice(i + 2, close), start: i, end: close + 1, quoted },
          end: close + 1,
        };
    }
    if (n === '(') {
      const cat = this.catHeredoc(i, to);
      if (cat) return { seg: { k: 'cmdsub', start: i, end: cat.end, quoted, heredoc: cat.heredoc }, end: cat.end };
      const close = matchParen(text, i + 2);
      if (close < 0 || close > to) {
        this.unterminated(i, to, msg('unterminated $('));
        return { seg: { k: 'cmdsub', start: i, end: to, quoted }, end: to };
      }
      return { seg: { k: 'cmdsub', start: i, end: close, quoted }, end: close };
    }
    if (n === '{') {
      const close = matchBrace(text, i + 2);
      if (close < 0 || close > to) {
        this.unterminated(i, to, msg('unterminated ${'));
        return { seg: { k: 'param', name: '', complex: 'an unterminated ${', start: i, end: to, quoted }, end: to };
      }
      return { seg: this.parseBraced(i, close, quoted), end: close };
    }
    if (isNameStart(n)) {
      let j = i + 1;
      while (j < to && isNameChar(text[j])) j++;
      return { seg: { k: 'param', name: text.slice(i + 1, j), start: i, end: j, quoted }, end: j };
    }
    if (/[0-9@*#?$!-]/.test(n) && n !== '') {
      return { seg: { k: 'param', name: n, start: i, end: i + 2, quoted }, end: i + 2 };
    }
    return undefined;
  }

  /**
   * `$(cat <<EOF` and a newline at i: the heredoc, and the index after the `)` that closes the substitution after the
   * delimiter's line (or on it: `EOF)`). Undefined for anything else, which is an opaque command substitution.
   */
  private catHeredoc(i: number, to: number): { heredoc: Heredoc; end: number } | undefined {
    const text = this.text;
    const m = /^[ \t]*cat[ \t]*(<<-?)[ \t]*(?:'([A-Za-z_]\w*)'|"([A-Za-z_]\w*)"|(\\?)([A-Za-z_]\w*))[ \t]*\r?\n/.exec(
      text.slice(i + 2, Math.min(to, i + 200)),
    );
    if (!m) return undefined;
    const stripTabs = m[1] === '<<-';
    const delim = m[2] ?? m[3] ?? m[5];
    const quoted = m[2] !== undefined || m[3] !== undefined || m[4] === '\\';
    const bodyStart = i + 2 + m[0].length;
    let j = bodyStart;
    while (j < to) {
      const e = text.indexOf('\n', j);
      const lineEnd = e < 0 || e > to ? to : e;
      let line = text.slice(j, lineEnd).replace(/\r$/, '');
      if (stripTabs) line = line.replace(/^\t+/, '');
      const lineStart = j;
      j = lineEnd + 1;
      if (!line.startsWith(delim)) continue;
      const rest = line.slice(delim.length);
      let close = -1;
      if (/^[ \t]*\)/.test(rest)) close = text.indexOf(')', lineStart);
      else if (/^[ \t]*$/.test(rest)) {
        let k = lineEnd;
        while (k < to && /\s/.test(text[k])) k++;
        if (text[k] === ')') close = k;
      }
      if (close < 0) continue;
      const heredoc: Heredoc = {
        opStart: text.indexOf('<<', i),
        delim,
        quoted,
        stripTabs,
        bodyStart,
        bodyEnd: lineStart,
      };
      return { heredoc, end: close + 1 };
    }
    return undefined;
  }

  /** Parses `${...}` spanning [start, end). */
  private parseBraced(start: number, end: number, quoted: boolean): Seg {
    const text = this.text;
    const bodyStart = start + 2;
    const bodyEnd = end - 1;
    let j = bodyStart;
    if (text[j] === '#' || text[j] === '!')
      return { k: 'param', name: '', complex: `\${${text.slice(bodyStart, bodyEnd)}}`, start, end, quoted };
    if (isNameStart(text[j] ?? '')) while (j < bodyEnd && isNameChar(text[j])) j++;
    // `${10}`: in braces a positional parameter takes every digit.
    else if (/[0-9]/.test(text[j] ?? '')) while (j < bodyEnd && /[0-9]/.test(text[j])) j++;
    else if (/[@*?$!-]/.test(text[j] ?? '')) j++;
    const name = text.slice(bodyStart, j);
    if (!name) return { k: 'param', name: '', complex: text.slice(start, end), start, end, quoted };
    if (j === bodyEnd) return { k: 'param', name, start, end, quoted };
    const index = /^\[([@*]|0)\]$/.exec(text.slice(j, bodyEnd))?.[1];
    if (index !== undefined && isNameStart(name[0])) {
      return {
        k: 'param',
        name,
        index: index === '0' ? 'first' : index === '@' ? 'all' : 'joined',
        start,
        end,
        quoted,
      };
    }
    const m = /^(:-|:=|:\+|:\?|-|=|\+|\?)/.exec(text.slice(j, bodyEnd));
    if (!m) return { k: 'param', name, complex: text.slice(start, end), start, end, quoted };
    const argFrom = j + m[1].length;
    const arg = this.readWord(argFrom, bodyEnd, true).segs.map((s) =>
      quoted && s.k === 'lit' ? { ...s, quoted: true } : s,
    );
    return { k: 'param', name, op: m[1], arg, start, end, quoted };
  }
}
