// The pre-pass before jsonc-parser: the hjson-isms DeepSpeed itself loads (`#` comments, unquoted keys and strings,
// Python literals, template placeholders) are rewritten so that jsonc-parser reads them, with a map back to the
// original text; what json.load would reject becomes a problem. Pure: no I/O, no node:* and no 'vscode'.
import { createScanner, SyntaxKind } from 'jsonc-parser';
import { MAX_PROBLEMS, msg, type Message, type ParseProblem, type Span } from '../facts';

export const MAX_DEPTH = 512;

type Bare = { readonly word: string; readonly kind: 'placeholder' | 'string' | 'python' };

export interface Prepared {
  /** The text jsonc-parser reads: `#` comments blanked, bare words wrapped in double quotes. */
  readonly json: string;
  /** Positions (in `json`) of the quotes the pre-pass inserted, ascending. */
  readonly inserts: readonly number[];
  /** Bare words by their start offset in the original text. */
  readonly bare: ReadonlyMap<number, Bare>;
  /** Brackets nest deeper than MAX_DEPTH: jsonc-parser recurses per level, so such text is not parsed. */
  readonly tooDeep: boolean;
}

/** A placeholder: `$VAR`, `${VAR}`, `{{var}}`, or an identifier in capitals (`BATCH_SIZE_PER_GPU`, `QuantW_FORWARD`). */
function isPlaceholder(word: string): boolean {
  if (/^\$/.test(word) || /^\{\{.*\}\}$/.test(word)) return true;
  return (
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(word) && /[A-Z]/.test(word) && (word === word.toUpperCase() || word.includes('_'))
  );
}

const PY_LITERAL: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

/** The text jsonc-parser will read, built piece by piece from the original with a map of what was inserted. */
class Rewrite {
  readonly pieces: string[] = [];
  /** Positions (in the output) of the quotes inserted. */
  readonly inserts: number[] = [];
  readonly bare = new Map<number, Bare>();
  /** Original text copied up to here; output length so far. */
  copied = 0;
  outLen = 0;

  constructor(
    readonly text: string,
    private readonly problems: ParseProblem[],
  ) {}

  /** A problem, unless the cap is reached (a pathological file has one per token: beyond the cap they are not built). */
  report(p: () => ParseProblem): void {
    if (this.problems.length <= MAX_PROBLEMS) this.problems.push(p());
  }

  /** Copies the original text up to `end`. */
  copyTo(end: number): void {
    if (end > this.copied) {
      this.pieces.push(this.text.slice(this.copied, end));
      this.outLen += end - this.copied;
      this.copied = end;
    }
  }

  /** Writes `replacement` (of the same length) in place of the original from `from` to `to`. */
  replace(from: number, to: number, replacement: string): void {
    this.copyTo(from);
    this.pieces.push(replacement);
    this.outLen += replacement.length;
    this.copied = to;
  }

  /** Wraps the original from `from` to `to` in double quotes, recording where they go. */
  quote(from: number, to: number): void {
    this.copyTo(from);
    this.pieces.push('"');
    this.inserts.push(this.outLen);
    this.outLen += 1;
    this.copyTo(to);
    this.pieces.push('"');
    this.inserts.push(this.outLen);
    this.outLen += 1;
  }
}

/** An hjson `#` comment, blanked to the end of its line so jsonc-parser skips it; returns where the line ends. */
function hashComment(w: Rewrite, off: number): number {
  const text = w.text;
  let eol = off;
  while (eol < text.length && text[eol] !== '\n' && text[eol] !== '\r') eol++;
  w.replace(off, eol, ' '.repeat(eol - off));
  w.report(() =>
    strictProblem(
      { start: off, end: eol },
      msg(
        'a `#` comment: DeepSpeed reads it through hjson, ' +
          'but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it',
      ),
    ),
  );
  return eol;
}

/**
 * A bare word from `off` to `end`: a Python literal (True / False / None) becomes its JSON spelling, anything else a
 * quoted string (a placeholder is an error); a key when a colon follows it inside an object.
 */
function bareWord(w: Rewrite, off: number, end: number, inObject: boolean): void {
  const text = w.text;
  const word = text.slice(off, end);
  // A bare word is a key when a colon follows it (hjson keys may also follow a line break instead of a comma).
  let after = end;
  while (after < text.length && (text[after] === ' ' || text[after] === '\t')) after++;
  const atKey = inObject && text[after] === ':';
  const py = PY_LITERAL[word];
  if (py !== undefined && !atKey) {
    // True/False/None have the same length as their JSON spelling, so no offset moves.
    w.replace(off, end, py);
    w.bare.set(off, { word, kind: 'python' });
    w.report(() =>
      strictProblem(
        { start: off, end },
        msg(
          'the Python literal `{0}` (JSON spells it `{1}`): hjson reads it as the string "{0}", ' +
            'but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it',
          word,
          py,
        ),
      ),
    );
    return;
  }
  w.quote(off, end);
  const placeholder = !atKey && isPlaceholder(word);
  w.bare.set(off, { word, kind: placeholder ? 'placeholder' : 'string' });
  if (placeholder) {
    w.report(() => ({
      code: 'placeholder',
      severity: 'error',
      span: { start: off, end },
      ...msg(
        '`{0}` is a template placeholder, not a value: replace it before training (neither json.load nor DeepSpeed can use it)',
        word,
      ),
    }));
    return;
  }
  w.report(() =>
    strictProblem(
      { start: off, end },
      atKey
        ? msg(
            'the unquoted key `{0}`: DeepSpeed reads it through hjson, ' +
              'but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it',
            word,
          )
        : msg(
            'the unquoted string `{0}`: DeepSpeed reads it through hjson, ' +
              'but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it',
            word,
          ),
    ),
  );
}

export function prepare(text: string, problems: ParseProblem[]): Prepared {
  const scanner = createScanner(text, false);
  const w = new Rewrite(text, problems);
  // The open brackets: tell keys from values for bare words, and bound the nesting depth.
  const stack: ('{' | '[')[] = [];
  let prev: SyntaxKind | undefined;
  let lastComma = -1;
  let depthExceeded = false;
  if (text.charCodeAt(0) === 0xfeff) {
    // A byte-order mark is not JSON whitespace for jsonc-parser; blank it (the caller reports it).
    w.replace(0, 1, ' ');
    scanner.setPosition(1);
  }
  for (;;) {
    const kind = scanner.scan();
    if (kind === SyntaxKind.EOF) break;
    const off = scanner.getTokenOffset();
    // The scanner counts one past the end for an unterminated block comment; spans stay inside the text.
    const len = Math.min(scanner.getTokenLength(), text.length - off);
    switch (kind) {
      case SyntaxKind.LineCommentTrivia:
      case SyntaxKind.BlockCommentTrivia:
        w.report(() =>
          strictProblem(
            { start: off, end: off + len },
            msg(
              'a comment: DeepSpeed reads it through hjson, ' +
                'but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it',
            ),
          ),
        );
        continue;
      case SyntaxKind.Trivia:
      case SyntaxKind.LineBreakTrivia:
        continue;
      case SyntaxKind.OpenBraceToken:
      case SyntaxKind.OpenBracketToken:
        stack.push(kind === SyntaxKind.OpenBraceToken ? '{' : '[');
        if (stack.length > MAX_DEPTH) depthExceeded = true;
        break;
      case SyntaxKind.CloseBraceToken:
      case SyntaxKind.CloseBracketToken:
        if (prev === SyntaxKind.CommaToken && lastComma >= 0)
          w.report(() =>
            strictProblem(
              { start: lastComma, end: lastComma + 1 },
              msg(
                'a trailing comma: DeepSpeed reads it through hjson, ' +
                  'but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it',
              ),
            ),
          );
        stack.pop();
        break;
      case SyntaxKind.CommaToken:
        lastComma = off;
        break;
      case SyntaxKind.Unknown: {
        if (text[off] === '#') {
          scanner.setPosition(hashComment(w, off));
          continue;
        }
        const end = bareWordEnd(text, scanner, off + len);
        bareWord(w, off, end, stack[stack.length - 1] === '{');
        scanner.setPosition(end);
        prev = SyntaxKind.StringLiteral;
        continue;
      }
      default:
        break;
    }
    prev = kind;
  }
  w.copyTo(text.length);
  return { json: w.pieces.join(''), inserts: w.inserts, bare: w.bare, tooDeep: depthExceeded };
}

/** Extends a bare word over `${...}` / `$(...)` and over further words on the same line (an hjson quoteless string). */
function bareWordEnd(text: string, scanner: ReturnType<typeof createScanner>, end: number): number {
  for (;;) {
    if (text[end - 1] === '$' && (text[end] === '{' || text[end] === '(')) {
      const open = text[end];
      const close = open === '{' ? '}' : ')';
      let depth = 0;
      let i = end;
      for (; i < text.length && text[i] !== '\n' && text[i] !== '\r'; i++) {
        if (text[i] === open) depth++;
        else if (text[i] === close && --depth === 0) break;
      }
      if (i >= text.length || text[i] !== close) return end;
      end = i + 1;
      // Anything glued to the closing brace (`${X}_suffix`) belongs to the same word.
      while (end < text.length && !/[\s{}[\],:"]/.test(text[end])) end++;
      continue;
    }
    let j = end;
    while (j < text.length && (text[j] === ' ' || text[j] === '\t')) j++;
    if (j === end || j >= text.length) return end;
    scanner.setPosition(j);
    const k = scanner.scan();
    if (k !== SyntaxKind.Unknown || text[j] === '#') return end;
    end = scanner.getTokenOffset() + scanner.getTokenLength();
  }
}

/** A construct json.load rejects; the message says what it is, how DeepSpeed reads it, and who rejects it. */
export function strictProblem(span: Span, m: Message): ParseProblem {
  return { code: 'strict-json-comments', severity: 'warning', span, ...m };
}
