// Shell launch scripts (*.sh, *.slurm) -> ConfigFacts: which launcher runs how many processes, and the training
// flags passed to the script, with exact spans. Pure (no I/O, no node:*, no 'vscode'); never throws on user text.
//
// The tokenizer is hand-written: no maintained shell parser on npm fits (they are unmaintained, lose offsets, or
// need WASM). It covers what launch scripts use (FORMATS.md §0.5): `\` continuations, comments, quotes, `$VAR`,
// `${VAR:-default}`, `$((arithmetic))`, `$(...)` (unknown), heredocs (skipped), redirects, `&&`/`;` chains,
// `if`/`for`/`while`/`case` blocks and `#SBATCH` directives. Values built from the script's own assignments are
// evaluated; anything else (the environment, `$1`, `$(...)`) becomes an {unknown} fact, never a guess.
import { evaluationOn, expandableSegmentsOf, galoreOf, galoreRankOf, msg, normalizeOptimizer, notModeled, UNMODELED_OBJECTIVES, type CanonicalKey,
  type Message, type ConfigFacts, type Fact, type FactValue, type ParseProblem, type Reference, type Span, type Tool, type Unknown } from './facts';

// ---------------------------------------------------------------------------------------------------------------
// Lexer: words made of segments that remember where they were written.

type Seg =
  | { readonly k: 'lit'; readonly text: string; readonly start: number; readonly end: number; readonly quoted: boolean; readonly exact: boolean }
  | { readonly k: 'param'; readonly name: string; readonly op?: string; readonly arg?: readonly Seg[]; readonly complex?: string; readonly start: number;
    readonly end: number; readonly quoted: boolean }
  | { readonly k: 'arith'; readonly expr: string; readonly start: number; readonly end: number; readonly quoted: boolean }
  | { readonly k: 'cmdsub'; readonly start: number; readonly end: number; readonly quoted: boolean };

interface WordTok { readonly t: 'word'; readonly segs: readonly Seg[]; readonly start: number; readonly end: number }
interface OpTok { readonly t: 'op'; readonly op: string; readonly start: number; readonly end: number }
type Tok = WordTok | OpTok;

interface Comment { readonly start: number; readonly end: number; readonly lineStart: boolean }

interface Lexed {
  readonly toks: Tok[];
  readonly comments: Comment[];
  readonly problems: ParseProblem[];
}

const OPERATORS = ['&&', '||', ';;&', ';;', ';&', '|&', '&>>', '&>', '>>', '>&', '<<<', '<<-', '<<', '<&', '<>', '>|', '|', '&', ';', '(', ')', '<', '>'];
const REDIRECTS = new Set(['&>>', '&>', '>>', '>&', '<<<', '<&', '<>', '>|', '<', '>']);
const isBlank = (c: string): boolean => c === ' ' || c === '\t' || c === '\r';
const isNameStart = (c: string): boolean => /[A-Za-z_]/.test(c);
const isNameChar = (c: string): boolean => /[A-Za-z0-9_]/.test(c);

function opAt(text: string, i: number): string | undefined {
  for (const op of OPERATORS) if (text.startsWith(op, i)) return op;
  return undefined;
}

/** Length of a `\`-newline continuation at i (2 or 3 with CRLF), else 0. */
function continuationAt(text: string, i: number): number {
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
    if (c === '\\') { i += 2; continue; }
    if (c === "'") { const j = text.indexOf("'", i + 1); if (j < 0) return -1; i = j + 1; continue; }
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') { depth--; if (depth === 0) return i + 1; }
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
    if (c === '\\') { i += 2; continue; }
    if (c === "'") { const j = text.indexOf("'", i + 1); if (j < 0) return -1; i = j + 1; continue; }
    if (c === '"') { i++; while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1; i++; continue; }
    if (c === '$' && text[i + 1] === '{') { depth++; i += 2; continue; }
    if (c === '}') { depth--; if (depth === 0) return i + 1; }
    i++;
  }
  return -1;
}

class Lexer {
  readonly toks: Tok[] = [];
  readonly comments: Comment[] = [];
  readonly problems: ParseProblem[] = [];
  private pendingHeredocs: { delim: string; stripTabs: boolean }[] = [];

  constructor(private readonly text: string) {}

  run(): Lexed {
    const text = this.text;
    let i = 0;
    let atLineStart = true;
    while (i < text.length) {
      const c = text[i];
      const cont = continuationAt(text, i);
      if (cont) { i += cont; continue; }
      if (isBlank(c)) { i++; continue; }
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
        i = end;
        continue;
      }
      atLineStart = false;
      const op = opAt(text, i);
      if (op) {
        this.toks.push({ t: 'op', op, start: i, end: i + op.length });
        i += op.length;
        if (op === '<<' || op === '<<-') i = this.readHeredocDelimiter(i, op === '<<-');
        continue;
      }
      const w = this.readWord(i, text.length, false);
      // A file-descriptor number glued to a redirect (`2>&1`) is not a word.
      if (/^\d+$/.test(w.segs.map((s) => (s.k === 'lit' ? s.text : '?')).join('')) && (text[w.end] === '>' || text[w.end] === '<')) {
        i = w.end;
        continue;
      }
      if (w.end <= i) { i++; continue; }
      this.toks.push(w);
      i = w.end;
    }
    return { toks: this.toks, comments: this.comments, problems: this.problems };
  }

  private readHeredocDelimiter(from: number, stripTabs: boolean): number {
    let i = from;
    while (i < this.text.length && isBlank(this.text[i])) i++;
    const w = this.readWord(i, this.text.length, false);
    if (w.end <= i) return i;
    const delim = w.segs.map((s) => (s.k === 'lit' ? s.text : '')).join('');
    this.pendingHeredocs.push({ delim, stripTabs });
    return w.end;
  }

  /** Skips heredoc bodies that start at the line beginning at `from`; returns the index after the last one. */
  private skipHeredocs(from: number): number {
    let i = from;
    for (const h of this.pendingHeredocs) {
      while (i < this.text.length) {
        const e = this.text.indexOf('\n', i);
        const lineEnd = e < 0 ? this.text.length : e;
        let line = this.text.slice(i, lineEnd).replace(/\r$/, '');
        if (h.stripTabs) line = line.replace(/^\t+/, '');
        i = e < 0 ? this.text.length : e + 1;
        if (line === h.delim) break;
      }
    }
    this.pendingHeredocs = [];
    return i;
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
      if (litStart >= 0 && litText.length) segs.push({ k: 'lit', text: litText, start: litStart, end, quoted: false, exact: true });
      litStart = -1;
      litText = '';
    };
    let i = from;
    while (i < to) {
      const c = text[i];
      const cont = continuationAt(text, i);
      if (cont) { flush(i); i += cont; continue; }
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
      if (c === '$' || c === '`') {
        const r = this.readDollar(i, to, false);
        if (r) { flush(i); segs.push(r.seg); i = r.end; continue; }
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
      if (cont) { flush(i); i += cont; continue; }
      if (c === '\\' && '$`"\\'.includes(text[i + 1] ?? '')) {
        flush(i);
        segs.push({ k: 'lit', text: text[i + 1], start: i, end: i + 2, quoted: true, exact: false });
        i += 2;
        continue;
      }
      if (c === '$' || c === '`') {
        const r = this.readDollar(i, to, true);
        if (r) { flush(i); segs.push(r.seg); i = r.end; continue; }
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
    if (n === '(') {
      const close = matchParen(text, i + 2);
      if (close < 0 || close > to) { this.unterminated(i, to, msg('unterminated $(')); return { seg: { k: 'cmdsub', start: i, end: to, quoted }, end: to }; }
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

  /** Parses `${...}` spanning [start, end). */
  private parseBraced(start: number, end: number, quoted: boolean): Seg {
    const text = this.text;
    const bodyStart = start + 2;
    const bodyEnd = end - 1;
    let j = bodyStart;
    if (text[j] === '#' || text[j] === '!') return { k: 'param', name: '', complex: `\${${text.slice(bodyStart, bodyEnd)}}`, start, end, quoted };
    if (isNameStart(text[j] ?? '')) while (j < bodyEnd && isNameChar(text[j])) j++;
    else if (/[0-9@*?$!-]/.test(text[j] ?? '')) j++;
    const name = text.slice(bodyStart, j);
    if (!name) return { k: 'param', name: '', complex: text.slice(start, end), start, end, quoted };
    if (j === bodyEnd) return { k: 'param', name, start, end, quoted };
    const m = /^(:-|:=|:\+|:\?|-|=|\+|\?)/.exec(text.slice(j, bodyEnd));
    if (!m) return { k: 'param', name, complex: text.slice(start, end), start, end, quoted };
    const argFrom = j + m[1].length;
    const arg = this.readWord(argFrom, bodyEnd, true).segs.map((s) => (quoted && s.k === 'lit' ? { ...s, quoted: true } : s));
    return { k: 'param', name, op: m[1], arg, start, end, quoted };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Values: text pieces that remember their source, so word splitting keeps exact spans.

interface Piece {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** text[i] was written at start + i. */
  readonly exact: boolean;
  readonly unknown?: string;
  /** Subject to word splitting (an unquoted expansion). */
  readonly split?: boolean;
  /** Came from a quoted segment (keeps an empty word alive). */
  readonly quoted?: boolean;
  /** Came from an expansion (not written literally in this word). */
  readonly expanded?: boolean;
}

interface VarVal {
  readonly pieces: readonly Piece[];
  readonly exported: boolean;
  readonly nameSpan?: Span;
  readonly valueSpan?: Span;
}

type Env = Map<string, VarVal>;

const unknownOf = (pieces: readonly Piece[]): string | undefined => pieces.find((p) => p.unknown !== undefined)?.unknown;
const textOf = (pieces: readonly Piece[]): string => pieces.map((p) => p.text).join('');

interface Field {
  readonly text: string;
  readonly span: Span;
  readonly pieces: readonly Piece[];
  readonly unknown?: string;
  /** The field is only an expansion whose value is unknown (`$EXTRA_ARGS`, `"$@"`): it may hold any number of words. */
  readonly opaque: boolean;
}

function pieceSlice(p: Piece, a: number, b: number): Piece {
  if (p.exact) return { ...p, text: p.text.slice(a, b), start: p.start + a, end: p.start + b };
  return { ...p, text: p.text.slice(a, b) };
}

function makeField(pieces: Piece[]): Field {
  let start = Infinity;
  let end = -Infinity;
  for (const p of pieces) {
    start = Math.min(start, p.start);
    end = Math.max(end, p.end);
  }
  if (!Number.isFinite(start)) start = end = 0;
  const unknown = unknownOf(pieces);
  const opaque = unknown !== undefined && pieces.every((p) => p.expanded && (p.unknown !== undefined || p.text === ''));
  return { text: textOf(pieces), span: { start, end }, pieces, unknown, opaque };
}

/** Word splitting over pieces: blanks in `split` pieces separate fields. */
function toFields(pieces: readonly Piece[]): Field[] {
  const out: Field[] = [];
  let cur: Piece[] = [];
  let alive = false;
  const end = (): void => {
    if (alive || cur.some((p) => p.text.length > 0 || p.unknown !== undefined)) out.push(makeField(cur));
    cur = [];
    alive = false;
  };
  for (const p of pieces) {
    if (p.unknown !== undefined || !p.split) {
      cur.push(p);
      if (p.quoted) alive = true;
      continue;
    }
    const re = /[ \t\n]+/g;
    let last = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(p.text)) !== null) {
      if (m.index > last) cur.push(pieceSlice(p, last, m.index));
      end();
      last = m.index + m[0].length;
    }
    if (last < p.text.length) cur.push(pieceSlice(p, last, p.text.length));
  }
  end();
  return out;
}

/** The source span of field characters [a, b). */
function subSpan(f: Field, a: number, b: number): Span {
  let pos = 0;
  let start = Infinity;
  let end = -Infinity;
  for (const p of f.pieces) {
    const pa = pos;
    const pb = pos + p.text.length;
    pos = pb;
    const lo = Math.max(a, pa);
    const hi = Math.min(b, pb);
    if (lo > hi || (lo === hi && !(a === b && lo === a))) continue;
    if (p.exact) {
      start = Math.min(start, p.start + (lo - pa));
      end = Math.max(end, p.start + (hi - pa));
    } else {
      start = Math.min(start, p.start);
      end = Math.max(end, p.end);
    }
  }
  if (!Number.isFinite(start)) return f.span;
  return { start, end };
}

// ---------------------------------------------------------------------------------------------------------------
// Arithmetic `$(( ... ))`: integers, + - * / % ** and parentheses over variables the script sets.

type Num = { ok: true; v: number } | { ok: false; reason: string };

function evalArith(expr: string, lookup: (name: string) => Piece[] | string): Num {
  const toks = expr.match(/\s+|0[xX][0-9a-fA-F]+|\d+|\$\{[^}]*\}|\$[A-Za-z_]\w*|\$[0-9@#*?]|[A-Za-z_]\w*|\*\*|[-+*/%()]|./g) ?? [];
  const ts = toks.filter((t) => !/^\s+$/.test(t));
  let i = 0;
  const fail = (reason: string): Num => ({ ok: false, reason });
  const variable = (raw: string): Num => {
    const name = raw.replace(/^\$\{?/, '').replace(/\}$/, '');
    if (!/^[A-Za-z_]\w*$/.test(name)) return fail(`\`${raw}\` in $((${expr.trim()})) is not known statically`);
    const v = lookup(name);
    if (typeof v === 'string') return fail(v);
    const u = unknownOf(v);
    if (u !== undefined) return fail(u);
    const t = textOf(v).trim();
    if (!/^[-+]?\d+$/.test(t)) return fail(`\`${name}\` is not an integer ('${t}')`);
    return { ok: true, v: Number.parseInt(t, 10) };
  };
  const atom = (): Num => {
    const t = ts[i++];
    if (t === undefined) return fail(`incomplete arithmetic $((${expr.trim()}))`);
    if (t === '(') {
      const r = sum();
      if (ts[i] !== ')') return fail(`unbalanced parentheses in $((${expr.trim()}))`);
      i++;
      return r;
    }
    if (/^0[xX]/.test(t)) return { ok: true, v: Number.parseInt(t, 16) };
    if (/^\d+$/.test(t)) return { ok: true, v: Number.parseInt(t, 10) };
    if (/^\$?[A-Za-z_{]/.test(t) || t.startsWith('$')) return variable(t);
    return fail(`unsupported '${t}' in $((${expr.trim()}))`);
  };
  const unary = (): Num => {
    if (ts[i] === '-' || ts[i] === '+') {
      const neg = ts[i++] === '-';
      const r = unary();
      return r.ok && neg ? { ok: true, v: -r.v } : r;
    }
    const base = atom();
    if (ts[i] === '**') {
      i++;
      const e = unary();
      if (!base.ok) return base;
      if (!e.ok) return e;
      return { ok: true, v: base.v ** e.v };
    }
    return base;
  };
  const product = (): Num => {
    let l = unary();
    while (ts[i] === '*' || ts[i] === '/' || ts[i] === '%') {
      const op = ts[i++];
      const r = unary();
      if (!l.ok) return l;
      if (!r.ok) return r;
      if (op !== '*' && r.v === 0) return fail(`division by zero in $((${expr.trim()}))`);
      l = { ok: true, v: op === '*' ? l.v * r.v : op === '/' ? Math.trunc(l.v / r.v) : l.v % r.v };
    }
    return l;
  };
  const sum = (): Num => {
    let l = product();
    while (ts[i] === '+' || ts[i] === '-') {
      const op = ts[i++];
      const r = product();
      if (!l.ok) return l;
      if (!r.ok) return r;
      l = { ok: true, v: op === '+' ? l.v + r.v : l.v - r.v };
    }
    return l;
  };
  const r = sum();
  if (r.ok && i < ts.length) return fail(`unsupported arithmetic $((${expr.trim()}))`);
  if (r.ok && !Number.isSafeInteger(r.v)) return fail(`$((${expr.trim()})) overflows`);
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// Flags: how each launcher and script flag maps to canonical keys.

type Kind = 'int' | 'num' | 'bool' | 'str' | 'list';
type Out = Array<[CanonicalKey, FactValue | Unknown]>;

interface FlagSpec {
  readonly key: CanonicalKey;
  readonly kind: Kind;
  /** Maps the parsed value to facts; undefined means the value is invalid. */
  readonly conv?: (v: FactValue) => Out | undefined;
  readonly tool?: Tool;
}

const spec = (key: CanonicalKey, kind: Kind, conv?: FlagSpec['conv'], tool?: Tool): FlagSpec => ({ key, kind, conv, tool });
const whenTrue = (...facts: Out): FlagSpec['conv'] => (v) => (v === true ? facts : []);
const oneOf = (key: CanonicalKey, table: Record<string, FactValue | Unknown>): FlagSpec['conv'] => (v) => {
  const k = String(v).toLowerCase();
  return k in table ? [[key, table[k]]] : undefined;
};
const gcOf = (b: FactValue): Out => [['gradientCheckpointing', b === true ? 'full' : 'none']];
const intIn = (key: CanonicalKey, lo: number, hi: number): FlagSpec['conv'] =>
  (v) => (typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi ? [[key, v]] : undefined);
const DTYPES: Record<string, FactValue | Unknown> = {
  bfloat16: 'bf16', bf16: 'bf16', float16: 'fp16', fp16: 'fp16', half: 'fp16', float32: 'fp32', fp32: 'fp32', float: 'fp32',
  auto: { unknown: "dtype 'auto' takes the checkpoint's dtype" },
};
const MIXED: Record<string, FactValue> = { no: 'none', none: 'none', fp16: 'fp16', bf16: 'bf16', fp8: 'fp8' };
const OFFLOAD: Record<string, FactValue> = { none: 'none', cpu: 'cpu', nvme: 'nvme' };
const ATTENTION: Record<string, FactValue | Unknown> = {
  eager: 'eager', sdpa: 'sdpa', flash_attention_2: 'flash', flash_attention_3: 'flash', fa2: 'flash', fa3: 'flash',
  disabled: 'eager', flex_attention: { unknown: 'flex attention is not modeled' }, auto: { unknown: "attention 'auto' depends on the installed packages" },
};
const FSDP_STRATEGY: Record<string, FactValue> = {
  full_shard: 'full_shard', '1': 'full_shard', shard_grad_op: 'shard_grad_op', '2': 'shard_grad_op', no_shard: 'no_shard', '3': 'no_shard',
  hybrid_shard: 'hybrid_shard', '4': 'hybrid_shard', hybrid_shard_zero2: 'hybrid_shard', '5': 'hybrid_shard',
};

/** `--fsdp "full_shard auto_wrap offload"` (HF TrainingArguments `fsdp`, transformers training_args.py `_process_fsdp_args`). */
function fsdpOf(v: FactValue): Out | undefined {
  const s = String(v).toLowerCase().trim();
  if (s === '' || s === 'false' || s === 'no') return [['fsdp', 'none']];
  if (s === 'true') return [['fsdp', 'full_shard']];
  const words = s.split(/[\s,]+/);
  const mode = words.map((w) => FSDP_STRATEGY[w]).find((x) => x !== undefined);
  const out: Out = [];
  if (mode !== undefined) out.push(['fsdp', mode]);
  else if (words.includes('offload')) out.push(['fsdp', 'full_shard']);
  if (words.includes('offload')) out.push(['fsdpOffload', true]);
  return out.length ? out : undefined;
}

function loraTargetsOf(v: FactValue): Out {
  const items = (Array.isArray(v) ? v : String(v).split(',')).map((x) => String(x).trim()).filter((x) => x);
  if (items.length === 1 && (items[0] === 'all-linear' || items[0] === 'all')) return [['loraTargets', 'all-linear']];
  return [['loraTargets', items]];
}

const SEQ = spec('seqLen', 'int');
/** Packing on: every batch is seq_len long; off: each batch is padded to its longest sample. */
const packingOf = (v: FactValue): Out => [['batchLengths', v === true ? 'fixed' : 'variable']];
const MODEL = spec('model', 'str');
const MICRO = spec('microBatchSize', 'int');
const EVAL_STRATEGY: FlagSpec['conv'] = (v) => {
  const on = evaluationOn(String(v));
  return on === undefined ? undefined : [['evalStrategy', on]];
};

/** Flags of the training script (HF TrainingArguments, TRL, PEFT examples, FastChat, open-instruct, DeepSpeed-Chat, Megatron), by normalized name. */
const SCRIPT_FLAGS: Record<string, FlagSpec> = {
  per_device_train_batch_size: MICRO, per_gpu_train_batch_size: MICRO, micro_batch_size: MICRO, train_micro_batch_size_per_gpu: MICRO,
  per_device_eval_batch_size: spec('evalBatchSize', 'int'), per_gpu_eval_batch_size: spec('evalBatchSize', 'int'),
  eval_strategy: spec('evalStrategy', 'str', EVAL_STRATEGY), evaluation_strategy: spec('evalStrategy', 'str', EVAL_STRATEGY),
  gradient_accumulation_steps: spec('gradientAccumulationSteps', 'int'),
  torch_empty_cache_steps: spec('emptyCacheSteps', 'int'), label_smoothing_factor: spec('labelSmoothing', 'num'),
  // TRL GRPOConfig: prompt and completion lengths, the generation round, the KL reference and the vLLM engine.
  max_prompt_length: spec('promptLen', 'int'), max_completion_length: spec('completionLen', 'int'),
  steps_per_generation: spec('stepsPerGeneration', 'int'), generation_batch_size: spec('generationBatchSize', 'int'),
  num_iterations: spec('numIterations', 'int'), num_generations: spec('numGenerations', 'int'), beta: spec('klBeta', 'num'),
    cpo_alpha: spec('cpoAlpha', 'num'), rpo_alpha: spec('rpoAlpha', 'num'),
  // trl grpo (trl/scripts/grpo.py GRPOScriptArguments): a reward model by Hub id beside the reward functions.
  reward_model_name_or_path: spec('rewardModels', 'str', (v) => (typeof v === 'string' && v.length > 0 ? [['rewardModels', [v]]] : undefined)),
  // trl online_dpo (OnlineDPOConfig reward_model_path): the reward model the script loads by Hub id or path.
  reward_model_path: spec('rewardModels', 'str', (v) => (typeof v === 'string' && v.length > 0 ? [['rewardModels', [v]]] : undefined)),
  // OnlineDPOConfig before TRL 0.20: the colocated vLLM engine's share of the GPU.
  gpu_memory_utilization: spec('vllmMemoryFraction', 'num'),
  teacher_model_name_or_path: spec('teacherModel', 'str'), lmbda: spec('onPolicyFraction', 'num'), max_new_tokens: spec('maxNewTokens', 'int'),
  use_vllm: spec('useVllm', 'bool'), vllm_mode: spec('vllmMode', 'str', oneOf('vllmMode', { colocate: 'colocate', server: 'server' })),
  vllm_gpu_memory_utilization: spec('vllmMemoryFraction', 'num'), vllm_enable_sleep_mode: spec('vllmSleep', 'bool'),
  vllm_tensor_parallel_size: spec('vllmTensorParallel', 'int'),
  ds3_gather_for_generation: spec('gatherForGeneration', 'bool'),
  global_batch_size: spec('trainBatchSize', 'int'),
  bf16: spec('bf16', 'bool'), fp16: spec('fp16', 'bool'), pure_bf16: spec('pureBf16', 'bool'),
  mixed_precision: spec('mixedPrecision', 'str', oneOf('mixedPrecision', MIXED), 'accelerate'),
  gradient_checkpointing: spec('gradientCheckpointing', 'bool', gcOf),
  enable_activation_checkpointing: spec('gradientCheckpointing', 'bool', gcOf),
  disable_gradient_checkpointing: spec('gradientCheckpointing', 'bool', whenTrue(['gradientCheckpointing', 'none'])),
  recompute_granularity: spec('gradientCheckpointing', 'str', oneOf('gradientCheckpointing', { full: 'full', selective: 'selective' })),
  checkpoint_activations: spec('gradientCheckpointing', 'bool', whenTrue(['gradientCheckpointing', 'full'])),
  recompute_activations: spec('gradientCheckpointing', 'bool', whenTrue(['gradientCheckpointing', 'selective'])),
  activation_offloading: spec('activationOffloading', 'bool'), auto_find_batch_size: spec('autoFindBatchSize', 'bool'),
    enable_activation_offloading: spec('activationOffloading', 'bool'),
  optim: spec('optimizer', 'str', (v) => {
    const g = galoreOf(String(v));
    return [['optimizer', normalizeOptimizer(String(v))], ...(g ? [['galore', 'galore'], ['galoreLayerwise', g.layerwise]] as Out : [])];
  }),
  optim_target_modules: spec('galoreTargets', 'list'),
  optim_args: spec('galoreRank', 'str', (v) => {
    const r = galoreRankOf(String(v));
    return r === undefined ? undefined : [['galoreRank', r]];
  }),
  optimizer: spec('optimizer', 'str', (v) => [['optimizer', normalizeOptimizer(String(v))]]),
  'optimizer._component_': spec('optimizer', 'str', (v) => [['optimizer', normalizeOptimizer(String(v))]]),
  zero_stage: spec('zeroStage', 'int', intIn('zeroStage', 0, 3)),
  offload: spec('offloadOptimizer', 'bool', whenTrue(['offloadOptimizer', 'cpu'], ['offloadParams', 'cpu'])),
  dtype: spec('weightsDtype', 'str', oneOf('weightsDtype', DTYPES)), torch_dtype: spec('weightsDtype', 'str', oneOf('weightsDtype', DTYPES)),
  model_name_or_path: MODEL, pretrained_model_name_or_path: MODEL, base_model: MODEL, model_id: MODEL, model_path: MODEL, base_model_name_or_path: MODEL,
  max_seq_length: SEQ, model_max_length: SEQ, max_length: SEQ, max_seq_len: SEQ, cutoff_len: SEQ, block_size: SEQ, seq_length: SEQ,
  sequence_len: SEQ, 'tokenizer.max_seq_len': SEQ,
  packing: spec('batchLengths', 'bool', packingOf), sample_packing: spec('batchLengths', 'bool', packingOf),
    'dataset.packed': spec('batchLengths', 'bool', packingOf),
  lora_r: spec('loraR', 'int'), lora_dim: spec('loraR', 'int'), lora_rank: spec('loraR', 'int'), 'model.lora_rank': spec('loraR', 'int'),
  lora_alpha: spec('loraAlpha', 'num'), 'model.lora_alpha': spec('loraAlpha', 'num'),
  lora_dropout: spec('loraDropout', 'num'), 'model.lora_dropout': spec('loraDropout', 'num'),
  lora_target_modules: spec('loraTargets', 'list', loraTargetsOf), lora_target: spec('loraTargets', 'str', loraTargetsOf),
  q_lora: spec('quantBits', 'bool', whenTrue(['method', 'qlora'], ['quantBits', 4])),
  use_qlora: spec('quantBits', 'bool', whenTrue(['method', 'qlora'], ['quantBits', 4])),
  qlora: spec('quantBits', 'bool', whenTrue(['method', 'qlora'], ['quantBits', 4])),
  load_in_4bit: spec('quantBits', 'bool', whenTrue(['quantBits', 4])), use_4bit_quantization: spec('quantBits', 'bool', whenTrue(['quantBits', 4])),
  load_in_8bit: spec('quantBits', 'bool', whenTrue(['quantBits', 8])), use_8bit_quantization: spec('quantBits', 'bool', whenTrue(['quantBits', 8])),
  quantization_bit: spec('quantBits', 'int', (v) => (v === 4 || v === 8 ? [['quantBits', v]] : undefined)),
  bnb_4bit_quant_type: spec('quantType', 'str', oneOf('quantType', { nf4: 'nf4', fp4: 'fp4' })),
  use_nested_quant: spec('doubleQuant', 'bool'), use_bnb_nested_quant: spec('doubleQuant', 'bool'),
  bnb_4bit_use_double_quant: spec('doubleQuant', 'bool'), double_quantization: spec('doubleQuant', 'bool'),
  use_peft: spec('method', 'bool', whenTrue(['method', 'lora'])), use_peft_lora: spec('method', 'bool', whenTrue(['method', 'lora'])),
  use_lora: spec('method', 'bool', whenTrue(['method', 'lora'])),
  finetuning_type: spec('method', 'str', oneOf('method', { lora: 'lora', freeze: 'freeze', full: 'full' })),
  adapter: spec('method', 'str', oneOf('method', { lora: 'lora', qlora: 'qlora' })),
  freeze_trainable_layers: spec('freezeTrainableLayers', 'int'),
  fsdp: spec('fsdp', 'str', fsdpOf),
  torch_compile: spec('compile', 'bool'), compile: spec('compile', 'bool'),
  attn_implementation: spec('attention', 'str', oneOf('attention', ATTENTION)),
  // FastChat's `--flash_attn True|False` and LLaMA-Factory's `--flash_attn fa2|sdpa|disabled|auto`; False keeps the model default.
  flash_attn: spec('attention', 'str', (v) => (toBool(String(v)) === false ? []
    : toBool(String(v)) === true ? [['attention', 'flash']] : oneOf('attention', ATTENTION)!(v))),
  use_flash_attn: spec('attention', 'bool', whenTrue(['attention', 'flash'])),
  use_flash_attention_2: spec('attention', 'bool', whenTrue(['attention', 'flash'])),
  flash_attention: spec('attention', 'bool', whenTrue(['attention', 'flash'])),
  sdp_attention: spec('attention', 'bool', whenTrue(['attention', 'sdpa'])),
  use_liger_kernel: spec('loss', 'bool', whenTrue(['loss', 'fused'], ['kernels', 'liger'])),
    enable_liger_kernel: spec('loss', 'bool', whenTrue(['loss', 'fused'], ['kernels', 'liger'])),
  fsdp_cpu_offload: spec('fsdpOffload', 'bool'),
  optimizer_in_bwd: spec('optimizerInBackward', 'bool'),
  tensor_model_parallel_size: spec('tensorParallel', 'int'), tensor_parallel_size: spec('tensorParallel', 'int'),
    tensor_parallel_dim: spec('tensorParallel', 'int'),
  pipeline_model_parallel_size: spec('pipelineParallel', 'int'), pipeline_parallel_size: spec('pipelineParallel', 'int'),
  sequence_parallel: spec('sequenceParallel', 'bool'),
};

/** Names whose meaning depends on the tool reading them (torchtune `batch_size` is per device; Axolotl's is global). */
const TOOL_FLAGS: Partial<Record<Tool, Record<string, FlagSpec>>> = {
  torchtune: { batch_size: MICRO },
  axolotl: { batch_size: spec('trainBatchSize', 'int') },
};

/** `accelerate launch` options (accelerate@16cb6eb:src/accelerate/commands/launch.py); `num_processes` is the total over machines. */
const ACCELERATE_FLAGS: Record<string, FlagSpec> = {
  num_processes: spec('worldSize', 'int'),
  num_machines: spec('nodes', 'int'),
  mixed_precision: spec('mixedPrecision', 'str', oneOf('mixedPrecision', MIXED)),
  zero_stage: spec('zeroStage', 'int', intIn('zeroStage', 0, 3)),
  offload_optimizer_device: spec('offloadOptimizer', 'str', oneOf('offloadOptimizer', OFFLOAD)),
  offload_param_device: spec('offloadParams', 'str', oneOf('offloadParams', OFFLOAD)),
  gradient_accumulation_steps: spec('gradientAccumulationSteps', 'int'),
  fsdp_sharding_strategy: spec('fsdp', 'str', oneOf('fsdp', FSDP_STRATEGY)),
  fsdp_offload_params: spec('fsdpOffload', 'bool'),
  fsdp_activation_checkpointing: spec('gradientCheckpointing', 'bool', gcOf),
  dynamo_backend: spec('compile', 'str', (v) => [['compile', !/^no(ne)?$/i.test(String(v))]]),
};
const ACCELERATE_BOOL = new Set(['multi_gpu', 'cpu', 'tpu', 'use_deepspeed', 'use_fsdp', 'use_megatron_lm', 'use_xpu', 'use_mps_device', 'm', 'module',
  'no_python', 'debug', 'quiet', 'q', 'dynamo_use_fullgraph', 'dynamo_use_dynamic', 'dynamo_use_regional_compilation', 'same_network',
  'enable_cpu_affinity', 'tpu_use_cluster', 'tpu_use_sudo', 'downcast_bf16', 'ipex', 'h', 'help', 'use_parallelism_config']);
const TORCHRUN_BOOL = new Set(['standalone', 'no_python', 'module', 'm', 'use_env', 'run_path', 'virtual_local_rank', 'h', 'help']);
const DEEPSPEED_BOOL = new Set(['module', 'no_python', 'no_local_rank', 'no_ssh', 'no_ssh_check', 'force_multi', 'save_pid', 'elastic_training',
  'bind_cores_to_rank', 'h', 'help']);
const SRUN_VALUE = new Set(['N', 'n', 'w', 'c', 'p', 't', 'J', 'o', 'e', 'A', 'q', 'G', 'nodes', 'ntasks', 'ntasks_per_node', 'gpus', 'gpus_per_node',
  'gpus_per_task', 'cpus_per_task', 'partition', 'time', 'job_name', 'output', 'error', 'nodelist', 'gres', 'mem', 'account', 'qos',
  'container_image', 'container_mounts', 'container_workdir', 'export', 'mpi', 'jobid', 'cpu_bind', 'distribution', 'exclude', 'x', 'chdir', 'D']);
const MPIRUN_VALUE = new Set(['np', 'n', 'N', 'H', 'host', 'hostfile', 'machinefile', 'x', 'bind_to', 'map_by', 'rank_by', 'npernode', 'ppn', 'wdir',
  'genv', 'env', 'f']);
const TRL_SCRIPTS = /(^|\/)(sft|dpo|grpo|rloo|kto|orpo|reward|reward_modeling|ppo|online_dpo|xpo|nash_md|gkd|cpo|bco|prm)\.py$/;
/** trl vllm-serve flags read for the server check, and its boolean flags (which take no value). */
const VLLM_SERVE_FLAGS: Record<string, FlagSpec> = {
  tensor_parallel_size: spec('vllmServerTp', 'int'), gpu_memory_utilization: spec('vllmServerMemoryFraction', 'num'),
  max_model_len: spec('vllmServerMaxModelLen', 'int'),
};
const VLLM_SERVE_BOOL = new Set(['enforce_eager', 'trust_remote_code', 'enable_prefix_caching']);
const VLLM_SERVER_KEYS: ReadonlySet<CanonicalKey> = new Set(['vllmServerTp', 'vllmServerMemoryFraction', 'vllmServerMaxModelLen']);
const TRL_SUBCOMMANDS = new Set(['sft', 'dpo', 'grpo', 'rloo', 'kto', 'reward', 'orpo', 'ppo', 'online_dpo', 'xpo', 'gkd', 'cpo', 'bco']);

const normName = (raw: string): string => raw.replace(/^-+/, '').replace(/-/g, '_').toLowerCase();
const isNumberText = (s: string): boolean => /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s);

/** HF `string_to_bool` (transformers hf_argparser.py): yes/no, true/false, t/f, y/n, 1/0, any case. */
function toBool(s: string): boolean | undefined {
  const l = s.toLowerCase();
  if (['yes', 'true', 't', 'y', '1'].includes(l)) return true;
  if (['no', 'false', 'f', 'n', '0'].includes(l)) return false;
  return undefined;
}

/** Number of devices in a CUDA_VISIBLE_DEVICES / --gpu_ids value ('0,1' -> 2). */
function deviceCount(s: string): number | undefined {
  const t = s.trim();
  if (t === '' || /^all$/i.test(t)) return undefined;
  const items = t.split(',').map((x) => x.trim()).filter((x) => x);
  return items.length && items.every((x) => /^(\d+|GPU-[\w-]+|MIG-[\w-/]+)$/.test(x)) ? items.length : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Interpreter: walks the commands in order, keeps the variables the script sets, and analyzes each launch.

type Tri = boolean | undefined;

interface IfFrame { kind: 'if'; line: number; snapshot: Env; branches: { env: Env; cond: Tri }[]; cond: Tri; state: 'cond' | 'body';
  parentDead: boolean; sawElse: boolean }
interface LoopFrame { kind: 'loop'; line: number; snapshot: Env; parentDead: boolean; runsOnce: boolean }
interface CaseFrame { kind: 'case'; line: number; snapshot: Env; branches: Env[]; state: 'pattern' | 'body'; parentDead: boolean; sawDefault: boolean }
interface BlockFrame { kind: 'group' | 'func' | 'sub'; snapshot: Env; parentDead: boolean }
type Frame = IfFrame | LoopFrame | CaseFrame | BlockFrame;

interface CmdResult {
  readonly facts: Fact[];
  readonly refs: Reference[];
  readonly problems: ParseProblem[];
  readonly tools: Tool[];
  training: boolean;
  launcherTool?: Tool;
}

interface Command { readonly words: WordTok[]; readonly arrays: Set<WordTok> }

/** A flag value: the text after `=` or the next field. */
interface Val { readonly text: string; readonly span: Span; readonly unknown?: string; readonly items?: readonly string[] }

interface Opt { readonly name: string; readonly rawKey: string; readonly keySpan: Span; readonly value?: Val }

const and3 = (a: Tri, b: Tri): Tri => (a === false || b === false ? false : a === true && b === true ? true : undefined);
const or3 = (a: Tri, b: Tri): Tri => (a === true || b === true ? true : a === false && b === false ? false : undefined);
const basename = (s: string): string => s.slice(s.lastIndexOf('/') + 1);
const TRAINING_KEYS = new Set<CanonicalKey>(['microBatchSize', 'gradientAccumulationSteps', 'bf16', 'fp16', 'mixedPrecision', 'optimizer',
  'gradientCheckpointing',
  'deepspeedConfig', 'zeroStage', 'fsdp', 'seqLen', 'loraR', 'trainBatchSize', 'pureBf16', 'tensorParallel', 'pipelineParallel', 'gpusPerNode', 'worldSize']);

function literalWord(w: WordTok): string | undefined {
  if (w.segs.length !== 1) return undefined;
  const s = w.segs[0];
  return s.k === 'lit' && !s.quoted ? s.text : undefined;
}

function assignParts(w: WordTok): { name: string; append: boolean; valueSegs: Seg[]; nameSpan: Span; valueSpan: Span } | undefined {
  const s = w.segs[0];
  if (!s || s.k !== 'lit' || s.quoted || !s.exact) return undefined;
  const m = /^([A-Za-z_]\w*)(\+?)=/.exec(s.text);
  if (!m) return undefined;
  const rest = s.text.slice(m[0].length);
  const valueSegs: Seg[] = [];
  if (rest) valueSegs.push({ k: 'lit', text: rest, start: s.start + m[0].length, end: s.end, quoted: false, exact: true });
  valueSegs.push(...w.segs.slice(1));
  return { name: m[1], append: m[2] === '+', valueSegs, nameSpan: { start: s.start, end: s.start + m[1].length },
    valueSpan: { start: s.start + m[0].length, end: w.end } };
}

class Interpreter {
  env: Env;
  readonly frames: Frame[] = [];
  dead = false;
  pos = 0;
  negate = false;
  pendingFunc = false;
  lastTri: Tri = true;
  readonly results: CmdResult[] = [];
  readonly problems: ParseProblem[] = [];
  private readonly lineStarts: number[] = [0];

  constructor(private readonly text: string, private readonly toks: Tok[], seeds: Env) {
    this.env = new Map(seeds);
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  // ----- expansion -----

  expandSegs(segs: readonly Seg[], env: Env, split: boolean): Piece[] {
    const out: Piece[] = [];
    for (const s of segs) {
      switch (s.k) {
        case 'lit':
          out.push({ text: s.text, start: s.start, end: s.end, exact: s.exact, quoted: s.quoted });
          break;
        case 'cmdsub':
          out.push({ text: '', start: s.start, end: s.end, exact: false,
            unknown: `\`${this.text.slice(s.start, Math.min(s.end, s.start + 60))}\` is the output of a command`, expanded: true, quoted: s.quoted });
          break;
        case 'arith': {
          const r = evalArith(s.expr, (name) => this.lookupForArith(name, env));
          out.push(r.ok
            ? { text: String(r.v), start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted }
            : { text: '', start: s.start, end: s.end, exact: false, unknown: r.reason, expanded: true, quoted: s.quoted });
          break;
        }
        case 'param':
          out.push(...this.expandParam(s, env, split));
          break;
      }
    }
    return out;
  }

  private lookupForArith(name: string, env: Env): Piece[] | string {
    const v = env.get(name);
    return v ? [...v.pieces] : `\`${name}\` is not set in this script`;
  }

  private expandParam(s: Extract<Seg, { k: 'param' }>, env: Env, split: boolean): Piece[] {
    const unknownPiece = (reason: string): Piece[] => [{ text: '', start: s.start, end: s.end, exact: false, unknown: reason, expanded: true, quoted: s.quoted,
      split: !s.quoted && split }];
    if (s.complex !== undefined) return unknownPiece(`\`${s.complex.slice(0, 60)}\` is not evaluated statically`);
    const name = s.name;
    let state: { k: 'unset'; reason: string } | { k: 'unknown'; reason: string } | { k: 'value'; pieces: readonly Piece[] };
    if (/^[1-9]$/.test(name)) state = { k: 'unknown', reason: `positional argument $${name} of the script` };
    else if (name === '@' || name === '*') state = { k: 'unknown', reason: `the script's arguments ($${name})` };
    else if (/^[0#?$!-]$/.test(name)) state = { k: 'unknown', reason: `the shell parameter $${name}` };
    else {
      const v = env.get(name);
      if (!v) state = { k: 'unset', reason: `\`${name}\` is not set in this script (it comes from the environment)` };
      else {
        const u = unknownOf(v.pieces);
        state = u !== undefined && !/\s/.test(textOf(v.pieces)) ? { k: 'unknown', reason: u } : { k: 'value', pieces: v.pieces };
      }
    }
    const op = s.op;
    let pieces: readonly Piece[];
    const argPieces = (): Piece[] => this.expandSegs(s.arg ?? [], env, false);
    if (op === ':-' || op === '-' || op === ':=' || op === '=') {
      const empty = state.k === 'value' && textOf(state.pieces) === '' && unknownOf(state.pieces) === undefined;
      if (state.k === 'unknown') {
        const def = textOf(argPieces());
        return unknownPiece(`${state.reason}; the script's default is '${def}'`);
      }
      if (state.k === 'unset' || (op.startsWith(':') && empty)) {
        pieces = argPieces();
        if (op.endsWith('=')) env.set(name, { pieces: pieces.map((p) => ({ ...p, split: false })), exported: env.get(name)?.exported ?? false,
          valueSpan: { start: s.start, end: s.end } });
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
    if (/\s/.test(text)) return pieces.map((p) => ({ ...p, split: !s.quoted && split, quoted: s.quoted, expanded: true }));
    if (unknown !== undefined) return unknownPiece(unknown);
    return [{ text, start: s.start, end: s.end, exact: false, expanded: true, quoted: s.quoted }];
  }

  fieldsOf(words: readonly WordTok[], env: Env): Field[] {
    return words.flatMap((w) => toFields(this.expandSegs(w.segs, env, true)));
  }

  // ----- control flow -----

  private merge(envs: readonly Env[], line: number, what: string): Env {
    const out: Env = new Map();
    const names = new Set<string>();
    for (const e of envs) for (const k of e.keys()) names.add(k);
    for (const name of names) {
      const vals = envs.map((e) => e.get(name));
      const first = vals[0];
      if (vals.every((v) => v === first) && first) { out.set(name, first); continue; }
      if (first && vals.every((v) => v && unknownOf(v.pieces) === undefined && textOf(v.pieces) === textOf(first.pieces))) { out.set(name, first); continue; }
      const described = [...new Set(vals.map((v) => {
        if (!v) return 'unset';
        const u = unknownOf(v.pieces);
        if (u !== undefined) return u.length <= 60 ? u : 'unknown';
        return `'${textOf(v.pieces).slice(0, 40)}'`;
      }))];
      const last = [...vals].reverse().find((v) => v !== undefined)!;
      const reason = `\`${name}\` depends on the ${what} at line ${line} (${described.join(' or ')})`;
      const span = last.valueSpan ?? { start: 0, end: 0 };
      out.set(name, { pieces: [{ text: '', start: span.start, end: span.end, exact: false, unknown: reason }], exported: vals.some((v) => v?.exported),
        nameSpan: last.nameSpan, valueSpan: last.valueSpan });
    }
    return out;
  }

  private top(): Frame | undefined {
    return this.frames[this.frames.length - 1];
  }

  run(): void {
    const toks = this.toks;
    let connector: string | undefined;
    let guard = 0;
    while (this.pos < toks.length) {
      if (++guard > toks.length * 4 + 16) break;
      const t = toks[this.pos];
      const top = this.top();
      if (top?.kind === 'case' && top.state === 'pattern') {
        if (t.t === 'op' && (t.op === '\n' || t.op === ';')) { this.pos++; continue; }
        this.casePattern(top);
        continue;
      }
      if (t.t === 'op') {
        const op = t.op;
        if (op === '\n' || op === ';' || op === '&') { connector = undefined; this.lastTri = true; this.pos++; continue; }
        if (op === '&&' || op === '||' || op === '|' || op === '|&') { connector = op; this.pos++; continue; }
        if (op === ';;' || op === ';&' || op === ';;&') {
          if (top?.kind === 'case' && top.state === 'body') {
            top.branches.push(this.env);
            this.env = new Map(top.snapshot);
            top.state = 'pattern';
            this.dead = top.parentDead;
          }
          connector = undefined;
          this.pos++;
          continue;
        }
        if (op === '(') {
          const n = toks[this.pos + 1];
          if (n && n.t === 'op' && n.op === '(' && n.start === t.end) { this.skipArithCommand(); continue; }
          this.frames.push({ kind: 'sub', snapshot: new Map(this.env), parentDead: this.dead });
          this.pos++;
          continue;
        }
        if (op === ')') {
          if (top?.kind === 'sub') {
            this.frames.pop();
            this.env = top.snapshot;
            this.dead = top.parentDead;
          }
          this.pos++;
          continue;
        }
      } else {
        const kw = literalWord(t);
        if (kw !== undefined && this.keyword(kw, t)) continue;
      }
      const before = this.pos;
      const cmd = this.readCommand();
      if (cmd) this.exec(cmd, connector);
      connector = undefined;
      if (this.pos === before) this.pos++;
    }
  }

  private skipArithCommand(): void {
    let depth = 0;
    while (this.pos < this.toks.length) {
      const t = this.toks[this.pos++];
      if (t.t !== 'op') continue;
      if (t.op === '(') depth++;
      else if (t.op === ')') { depth--; if (depth <= 0) break; }
    }
  }

  private branchCondElse(f: IfFrame): Tri {
    if (f.branches.some((b) => b.cond === true)) return false;
    return f.branches.every((b) => b.cond === false) ? true : undefined;
  }

  /** Handles a reserved word at the start of a command; false when the word is not one. */
  private keyword(kw: string, t: WordTok): boolean {
    const top = this.top();
    const line = this.lineOf(t.start);
    switch (kw) {
      case 'if':
        this.frames.push({ kind: 'if', line, snapshot: new Map(this.env), branches: [], cond: undefined, state: 'cond',
          parentDead: this.dead, sawElse: false });
        this.pos++;
        return true;
      case 'then':
        if (top?.kind === 'if') {
          if (top.branches.some((b) => b.cond === true)) top.cond = false;
          top.state = 'body';
          this.dead = top.parentDead || top.cond === false;
        }
        this.pos++;
        return true;
      case 'elif':
      case 'else':
        if (top?.kind === 'if') {
          top.branches.push({ env: this.env, cond: top.cond });
          this.env = new Map(top.snapshot);
          this.dead = top.parentDead;
          if (kw === 'elif') {
            top.state = 'cond';
            top.cond = undefined;
          } else {
            top.sawElse = true;
            top.state = 'body';
            top.cond = this.branchCondElse(top);
            this.dead = top.parentDead || top.cond === false;
          }
        }
        this.pos++;
        return true;
      case 'fi':
        if (top?.kind === 'if') {
          this.frames.pop();
          top.branches.push({ env: this.env, cond: top.cond });
          if (!top.sawElse) top.branches.push({ env: top.snapshot, cond: this.branchCondElse(top) });
          const live = top.branches.filter((b) => b.cond !== false);
          this.env = live.length === 0 ? top.snapshot : live.length === 1 ? live[0].env : this.merge(live.map((b) => b.env), top.line, '`if`');
          this.dead = top.parentDead;
        }
        this.pos++;
        return true;
      case 'for':
      case 'select':
        this.parseFor(line);
        return true;
      case 'while':
      case 'until':
        this.frames.push({ kind: 'loop', line, snapshot: new Map(this.env), parentDead: this.dead, runsOnce: false });
        this.pos++;
        return true;
      case 'do':
        this.pos++;
        return true;
      case 'done':
        if (top?.kind === 'loop') {
          this.frames.pop();
          this.env = top.runsOnce ? this.env : this.merge([top.snapshot, this.env], top.line, 'loop');
          this.dead = top.parentDead;
        }
        this.pos++;
        return true;
      case 'case': {
        this.pos++;
        if (this.toks[this.pos]?.t === 'word') this.pos++;
        const n = this.toks[this.pos];
        if (n && n.t === 'word' && literalWord(n) === 'in') this.pos++;
        this.frames.push({ kind: 'case', line, snapshot: new Map(this.env), branches: [], state: 'pattern', parentDead: this.dead, sawDefault: false });
        return true;
      }
      case 'esac':
        if (top?.kind === 'case') {
          if (top.state === 'body') top.branches.push(this.env);
          this.finishCase(top);
        }
        this.pos++;
        return true;
      case '{':
        this.frames.push({ kind: this.pendingFunc ? 'func' : 'group', snapshot: new Map(this.env), parentDead: this.dead });
        this.pendingFunc = false;
        this.pos++;
        return true;
      case '}':
        if (top && (top.kind === 'group' || top.kind === 'func')) {
          this.frames.pop();
          if (top.kind === 'func') this.env = top.snapshot;
          this.dead = top.parentDead;
        }
        this.pos++;
        return true;
      case 'function': {
        this.pos += 2;
        const a = this.toks[this.pos];
        const b = this.toks[this.pos + 1];
        if (a?.t === 'op' && a.op === '(' && b?.t === 'op' && b.op === ')') this.pos += 2;
        this.pendingFunc = true;
        return true;
      }
      case '!':
        this.negate = true;
        this.pos++;
        return true;
      default:
        return false;
    }
  }

  private finishCase(top: CaseFrame): void {
    this.frames.pop();
    const envs = top.sawDefault ? top.branches : [...top.branches, top.snapshot];
    this.env = envs.length ? this.merge(envs, top.line, '`case`') : top.snapshot;
    this.dead = top.parentDead;
  }

  private casePattern(top: CaseFrame): void {
    const t = this.toks[this.pos];
    if (t.t === 'word' && literalWord(t) === 'esac') {
      this.finishCase(top);
      this.pos++;
      return;
    }
    while (this.pos < this.toks.length) {
      const x = this.toks[this.pos++];
      if (x.t === 'op' && x.op === ')') break;
      if (x.t === 'word' && literalWord(x) === '*') top.sawDefault = true;
    }
    top.state = 'body';
    this.env = new Map(top.snapshot);
    this.dead = top.parentDead;
  }

  private parseFor(line: number): void {
    this.pos++;
    const n = this.toks[this.pos];
    const frame: LoopFrame = { kind: 'loop', line, snapshot: new Map(this.env), parentDead: this.dead, runsOnce: false };
    if (!n || n.t === 'op') {
      // `for ((i = 0; ...))`: skip the header; the body runs an unknown number of times.
      while (this.pos < this.toks.length) {
        const x = this.toks[this.pos];
        if (x.t === 'word' && literalWord(x) === 'do') break;
        this.pos++;
      }
      this.frames.push(frame);
      return;
    }
    const name = literalWord(n) ?? '';
    this.pos++;
    const words: WordTok[] = [];
    let hasIn = false;
    while (this.pos < this.toks.length && this.toks[this.pos].t === 'op' && (this.toks[this.pos] as OpTok).op === '\n') this.pos++;
    const inTok = this.toks[this.pos];
    if (inTok && inTok.t === 'word' && literalWord(inTok) === 'in') {
      hasIn = true;
      this.pos++;
      while (this.pos < this.toks.length && this.toks[this.pos].t === 'word') words.push(this.toks[this.pos++] as WordTok);
    }
    this.frames.push(frame);
    if (this.dead || !/^[A-Za-z_]\w*$/.test(name)) return;
    const fields = hasIn ? this.fieldsOf(words, this.env) : [];
    frame.runsOnce = hasIn && fields.length > 0 && fields.every((f) => !f.opaque);
    const span = { start: n.start, end: n.end };
    if (fields.length === 1 && fields[0].unknown === undefined) {
      this.env.set(name, { pieces: [{ text: fields[0].text, start: fields[0].span.start, end: fields[0].span.end, exact: false }], exported: false,
        nameSpan: span, valueSpan: fields[0].span });
    } else {
      const list = fields.map((f) => (f.unknown === undefined ? f.text : '?')).slice(0, 6).join(', ');
      const reason = hasIn ? `\`${name}\` is the variable of the \`for\` loop at line ${line} (${list || 'no items'})`
        : `\`${name}\` loops over the script's arguments`;
      this.env.set(name, { pieces: [{ text: '', start: span.start, end: span.end, exact: false, unknown: reason }], exported: false,
        nameSpan: span, valueSpan: span });
    }
  }

  private readCommand(): Command | undefined {
    const words: WordTok[] = [];
    const arrays = new Set<WordTok>();
    const toks = this.toks;
    while (this.pos < toks.length) {
      const t = toks[this.pos];
      if (t.t === 'op') {
        if (REDIRECTS.has(t.op)) {
          this.pos++;
          if (toks[this.pos]?.t === 'word') this.pos++;
          continue;
        }
        if (t.op === '<<' || t.op === '<<-') { this.pos++; continue; }
        if (t.op === '(') {
          const next = toks[this.pos + 1];
          const last = words[words.length - 1];
          if (words.length === 1 && next?.t === 'op' && next.op === ')') {
            this.pendingFunc = true;
            this.pos += 2;
            return undefined;
          }
          if (last && t.start === last.end && /=$/.test(literalWord(last)
            ?? (last.segs[last.segs.length - 1]?.k === 'lit' ? (last.segs[last.segs.length - 1] as { text: string }).text : ''))) {
            let depth = 0;
            while (this.pos < toks.length) {
              const x = toks[this.pos++];
              if (x.t === 'op' && x.op === '(') depth++;
              else if (x.t === 'op' && x.op === ')') { depth--; if (depth <= 0) break; }
            }
            arrays.add(last);
            continue;
          }
        }
        break;
      }
      if (words.length === 0 && literalWord(t) === '[[') {
        while (this.pos < toks.length) {
          const x = toks[this.pos++];
          const w: WordTok = x.t === 'word' ? x : { t: 'word', segs: [{ k: 'lit', text: x.op, start: x.start, end: x.end, quoted: false, exact: true }],
            start: x.start, end: x.end };
          words.push(w);
          if (x.t === 'word' && literalWord(x) === ']]') break;
          if (x.t === 'op' && x.op === '\n') break;
        }
        break;
      }
      words.push(t);
      this.pos++;
    }
    return words.length ? { words, arrays } : undefined;
  }

  private assign(w: WordTok, env: Env, exported: boolean, mode: 'set' | 'skip' | 'maybe', array: boolean): void {
    const p = assignParts(w);
    if (!p || mode === 'skip') return;
    let pieces: Piece[] = array
      ? [{ text: '', start: p.valueSpan.start, end: p.valueSpan.end, exact: false, unknown: `\`${p.name}\` is an array` }]
      : this.expandSegs(p.valueSegs, env, false).map((x) => ({ ...x, split: false }));
    const old = env.get(p.name);
    if (p.append && old) pieces = [...old.pieces, ...pieces];
    let val: VarVal = { pieces, exported: exported || (old?.exported ?? false), nameSpan: p.nameSpan, valueSpan: p.valueSpan };
    if (mode === 'maybe') {
      const tmpA: Env = new Map(old ? [[p.name, old]] : []);
      const tmpB: Env = new Map([[p.name, val]]);
      val = this.merge([tmpA, tmpB], this.lineOf(w.start), 'condition').get(p.name) ?? val;
    }
    env.set(p.name, val);
  }

  private evalTest(fields: Field[]): Tri {
    let args = fields.slice(1);
    const head = fields[0].text;
    if (head === '[' || head === '[[') {
      if (args.length === 0 || args[args.length - 1].text !== (head === '[' ? ']' : ']]')) return undefined;
      args = args.slice(0, -1);
    }
    let neg = false;
    if (args[0]?.text === '!') { neg = true; args = args.slice(1); }
    if (args.some((a) => a.unknown !== undefined)) return undefined;
    let r: Tri;
    const int = (s: string): number | undefined => (/^\s*[-+]?\d+\s*$/.test(s) ? Number.parseInt(s, 10) : undefined);
    if (args.length === 1) r = args[0].text !== '';
    else if (args.length === 2) r = args[0].text === '-z' ? args[1].text === '' : args[0].text === '-n' ? args[1].text !== '' : undefined;
    else if (args.length === 3) {
      const [a, op, b] = [args[0].text, args[1].text, args[2].text];
      const x = int(a);
      const y = int(b);
      switch (op) {
        case '=': case '==': r = a === b; break;
        case '!=': r = a !== b; break;
        case '-eq': r = x === undefined || y === undefined ? undefined : x === y; break;
        case '-ne': r = x === undefined || y === undefined ? undefined : x !== y; break;
        case '-lt': r = x === undefined || y === undefined ? undefined : x < y; break;
        case '-le': r = x === undefined || y === undefined ? undefined : x <= y; break;
        case '-gt': r = x === undefined || y === undefined ? undefined : x > y; break;
        case '-ge': r = x === undefined || y === undefined ? undefined : x >= y; break;
        default: r = undefined;
      }
    }
    return neg && r !== undefined ? !r : r;
  }

  private exec(cmd: Command, connector: string | undefined): void {
    const negate = this.negate;
    this.negate = false;
    const words = cmd.words;
    const top = this.top();
    const inCond = (top?.kind === 'if' && top.state === 'cond');
    if (this.dead) return;
    let i = 0;
    while (i < words.length && assignParts(words[i])) i++;
    const prior = this.lastTri;
    if (i === words.length) {
      const mode = connector === '&&' ? (prior === true ? 'set' : prior === false ? 'skip' : 'maybe')
        : connector === '||' ? (prior === false ? 'set' : prior === true ? 'skip' : 'maybe') : 'set';
      for (const w of words) this.assign(w, this.env, false, mode, cmd.arrays.has(w));
      this.lastTri = true;
      return;
    }
    let env = this.env;
    if (i > 0) {
      env = new Map(this.env);
      for (const w of words.slice(0, i)) this.assign(w, env, true, 'set', cmd.arrays.has(w));
    }
    const head = literalWord(words[i]);
    if (head && ['export', 'declare', 'typeset', 'local', 'readonly'].includes(head)) {
      let exported = head === 'export';
      for (const w of words.slice(i + 1)) {
        const lit = literalWord(w);
        if (lit && /^[-+][a-zA-Z]+$/.test(lit)) { if (lit.includes('x')) exported = true; continue; }
        if (assignParts(w)) this.assign(w, this.env, exported, 'set', cmd.arrays.has(w));
        else if (lit && exported && this.env.has(lit)) this.env.set(lit, { ...this.env.get(lit)!, exported: true });
      }
      this.lastTri = true;
      return;
    }
    if (head === 'unset') {
      for (const w of words.slice(i + 1)) { const lit = literalWord(w); if (lit) this.env.delete(lit); }
      this.lastTri = true;
      return;
    }
    const fields = this.fieldsOf(words.slice(i), env);
    if (!fields.length) return;
    const name = fields[0].text;
    const isTest = name === '[' || name === '[[' || name === 'test';
    let tri: Tri = isTest ? this.evalTest(fields) : name === 'true' || name === ':' ? true : name === 'false' ? false : undefined;
    if (negate && tri !== undefined) tri = !tri;
    if (inCond && top?.kind === 'if') top.cond = connector === '&&' ? and3(top.cond, tri) : connector === '||' ? or3(top.cond, tri) : tri;
    // Other commands are assumed to succeed, so `mkdir -p x && X=1` sets X; a test with an unknown outcome does not.
    this.lastTri = isTest ? tri : tri ?? true;
    const r = analyzeLaunch(this.text, fields, env);
    if (r) {
      allocatorConf(this.text, r, env);
      this.results.push(r);
    }
  }
}

/**
 * PYTORCH_CUDA_ALLOC_CONF as the training command sees it (exported or a prefix).
 */
function allocatorConf(text: string, r: CmdResult, env: Env): void {
  const v = env.get('PYTORCH_CUDA_ALLOC_CONF');
  if (!v || !v.exported || !v.nameSpan || !v.valueSpan) return;
  const rawValue = text.slice(v.valueSpan.start, v.valueSpan.end);
  const u = unknownOf(v.pieces);
  const value: FactValue | Unknown = u !== undefined ? { unknown: u } : expandableSegmentsOf(textOf(v.pieces));
  r.facts.push({ key: 'expandableSegments', rawKey: 'PYTORCH_CUDA_ALLOC_CONF', value, rawValue, keySpan: v.nameSpan, valueSpan: v.valueSpan,
    tool: r.launcherTool ?? r.tools[0] ?? 'torchrun' });
}

// ---------------------------------------------------------------------------------------------------------------
// Launch commands: wrappers (srun, mpirun, env), launchers, and the training script's flags.

/** The pieces of field characters [a, b). */
function pieceRange(f: Field, a: number, b: number): Piece[] {
  const out: Piece[] = [];
  let pos = 0;
  for (const p of f.pieces) {
    const pa = pos;
    const pb = pos + p.text.length;
    pos = pb;
    if (p.text.length === 0) {
      if (pa >= a && pa <= b && p.unknown !== undefined) out.push(p);
      continue;
    }
    const lo = Math.max(a, pa);
    const hi = Math.min(b, pb);
    if (lo < hi) out.push(pieceSlice(p, lo - pa, hi - pa));
  }
  return out;
}

type Consume = 'never' | 'bool' | 'list' | 'one';

interface Parsed { readonly opts: Opt[]; readonly positionals: Field[]; readonly next: number }

const looksLikeFlag = (f: Field): boolean => f.unknown === undefined && /^-[A-Za-z-]/.test(f.text);

/**
 * Parses `--k v`, `--k=v`, bare flags and (with `kv`) `key=value` overrides from fields[j]. A launcher stops at its
 * first positional (the script); a script's arguments run to the end.
 */
function parseArgs(fields: readonly Field[], j: number, consume: (name: string) => Consume, stopAtPositional: boolean, kv: boolean,
  opaque: (f: Field) => void): Parsed {
  const opts: Opt[] = [];
  const positionals: Field[] = [];
  while (j < fields.length) {
    const f = fields[j];
    if (f.opaque) { opaque(f); j++; continue; }
    if (f.text === '--') { j++; if (stopAtPositional) break; continue; }
    if (looksLikeFlag(f)) {
      const eq = f.text.indexOf('=');
      if (eq > 0) {
        const vp = pieceRange(f, eq + 1, f.text.length);
        opts.push({ name: normName(f.text.slice(0, eq)), rawKey: f.text.slice(0, eq), keySpan: subSpan(f, 0, eq),
          value: { text: f.text.slice(eq + 1), span: subSpan(f, eq + 1, f.text.length), unknown: unknownOf(vp) } });
        j++;
        continue;
      }
      const name = normName(f.text);
      const c = consume(name);
      const next = fields[j + 1];
      let value: Val | undefined;
      if (c === 'list') {
        let k = j + 1;
        while (k < fields.length && !looksLikeFlag(fields[k]) && !(kv && /^[A-Za-z_][\w.-]*=/.test(fields[k].text))) k++;
        if (k > j + 1) {
          const items = fields.slice(j + 1, k);
          value = { text: items.map((x) => x.text).join(' '), items: items.map((x) => x.text),
            span: { start: items[0].span.start, end: items[items.length - 1].span.end },
            unknown: items.find((x) => x.unknown !== undefined)?.unknown };
        }
        opts.push({ name, rawKey: f.text, keySpan: f.span, value });
        j = k;
        continue;
      }
      const takes = next !== undefined && !looksLikeFlag(next) && c !== 'never'
        && (c !== 'bool' || next.unknown !== undefined || toBool(next.text) !== undefined)
        && !(kv && next.unknown === undefined && /^[A-Za-z_][\w.-]*=/.test(next.text));
      if (takes) value = { text: next.text, span: next.span, unknown: next.unknown };
      opts.push({ name, rawKey: f.text, keySpan: f.span, value });
      j += takes ? 2 : 1;
      continue;
    }
    const m = kv ? /^~?([A-Za-z_][\w.-]*)=/.exec(f.text) : null;
    if (m) {
      if (!f.text.startsWith('~')) {
        const eq = m[0].length - 1;
        const vp = pieceRange(f, eq + 1, f.text.length);
        opts.push({ name: m[1].replace(/-/g, '_').toLowerCase(), rawKey: m[1], keySpan: subSpan(f, 0, eq),
          value: { text: f.text.slice(eq + 1), span: subSpan(f, eq + 1, f.text.length), unknown: unknownOf(vp) } });
      }
      j++;
      continue;
    }
    if (stopAtPositional) break;
    positionals.push(f);
    j++;
  }
  return { opts, positionals, next: j };
}

function skipOpts(fields: readonly Field[], i: number, valued: Set<string>): number {
  while (i < fields.length && /^-/.test(fields[i].text)) {
    const t = fields[i].text;
    const name = t.replace(/^-+/, '').replace(/-/g, '_');
    if (t.includes('=')) i++;
    else if (name === 'mca' || name === 'gmca') i += 3;
    else if (valued.has(name)) i += 2;
    else i++;
  }
  return i;
}

class Launch {
  readonly r: CmdResult = { facts: [], refs: [], problems: [], tools: [], training: false };

  constructor(private readonly text: string) {}

  tool(t: Tool): void {
    if (!this.r.tools.includes(t)) this.r.tools.push(t);
  }

  fact(key: CanonicalKey, rawKey: string, keySpan: Span, valueSpan: Span, value: FactValue | Unknown, tool: Tool): void {
    this.r.facts.push({ key, rawKey, value, rawValue: this.text.slice(valueSpan.start, valueSpan.end), keySpan, valueSpan, tool });
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      this.r.problems.push({ code: 'not-static', severity: 'info', ...msg('{0}: {1}', rawKey, (value as Unknown).unknown), span: valueSpan, rawKey });
    }
  }

  ref(kind: Reference['kind'], path: string, span: Span): void {
    this.r.refs.push({ kind, path, span });
  }

  invalid(o: Opt, what: string): void {
    const span = o.value?.span ?? o.keySpan;
    this.r.problems.push({ code: 'invalid-value', severity: 'warning', ...msg('{0} expects {1}, got \'{2}\'', o.rawKey, what, o.value?.text ?? ''),
      span, rawKey: o.rawKey });
  }

  notStatic(span: Span, m: Message, rawKey?: string): void {
    this.r.problems.push({ code: 'not-static', severity: 'info', ...m, span, rawKey });
  }

  /** Emits the facts of one option through its spec; a bare flag is `true` for booleans and ignored otherwise. */
  spec(s: FlagSpec, o: Opt, tool: Tool): void {
    const t = s.tool ?? tool;
    const valueSpan = o.value?.span ?? o.keySpan;
    if (!o.value) {
      if (s.kind !== 'bool') return;
      this.emit(s, o, true, valueSpan, t);
      return;
    }
    if (o.value.unknown !== undefined) {
      this.fact(s.key, o.rawKey, o.keySpan, valueSpan, { unknown: o.value.unknown }, t);
      return;
    }
    const raw = o.value.text.trim();
    let v: FactValue;
    switch (s.kind) {
      case 'int':
        if (!isNumberText(raw) || !Number.isInteger(Number(raw))) return this.invalid(o, 'an integer');
        v = Number(raw);
        break;
      case 'num':
        if (!isNumberText(raw)) return this.invalid(o, 'a number');
        v = Number(raw);
        break;
      case 'bool': {
        const b = toBool(raw);
        if (b === undefined) return this.invalid(o, 'true or false');
        v = b;
        break;
      }
      case 'list':
        v = o.value.items ?? [raw];
        break;
      case 'str':
        v = raw;
        break;
    }
    this.emit(s, o, v, valueSpan, t);
  }

  private emit(s: FlagSpec, o: Opt, v: FactValue, valueSpan: Span, tool: Tool): void {
    const out = s.conv ? s.conv(v) : [[s.key, v] as [CanonicalKey, FactValue]];
    if (!out) return this.invalid(o, `a valid value for ${s.key}`);
    for (const [k, val] of out) this.fact(k, o.rawKey, o.keySpan, valueSpan, val, tool);
  }
}

interface Visible { readonly count?: number; readonly unknown?: string; readonly rawKey: string; readonly keySpan: Span; readonly valueSpan: Span }

/** CUDA_VISIBLE_DEVICES as the launched process sees it (exported or given as a prefix), if the script sets it. */
function visibleDevices(env: Env, name = 'CUDA_VISIBLE_DEVICES'): Visible | undefined {
  const v = env.get(name);
  if (!v || !v.exported || !v.nameSpan || !v.valueSpan) return undefined;
  const u = unknownOf(v.pieces);
  const text = textOf(v.pieces);
  const base = { rawKey: name, keySpan: v.nameSpan, valueSpan: v.valueSpan };
  if (u !== undefined) return { ...base, unknown: u };
  const count = name === 'CUDA_VISIBLE_DEVICES' ? deviceCount(text) : isNumberText(text.trim()) ? Number(text.trim()) : undefined;
  return count === undefined ? { ...base, unknown: `${name}='${text}' is not a device count` } : { ...base, count };
}

function emitVisible(l: Launch, vis: Visible, key: CanonicalKey, tool: Tool): void {
  l.fact(key, vis.rawKey, vis.keySpan, vis.valueSpan, vis.count !== undefined ? vis.count : { unknown: vis.unknown ?? 'not known statically' }, tool);
}

const ALL_GPUS: Unknown = { unknown: 'all visible GPUs' };

function torchrunFacts(l: Launch, opts: readonly Opt[], env: Env): void {
  for (const o of opts) {
    if (o.name === 'nproc_per_node') {
      if (!o.value) continue;
      if (o.value.unknown === undefined && /^(gpu|auto)$/i.test(o.value.text.trim())) {
        const vis = visibleDevices(env);
        l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, vis?.count ?? ALL_GPUS, 'torchrun');
      } else l.spec(spec('gpusPerNode', 'int'), o, 'torchrun');
    } else if (o.name === 'nnodes') {
      const m = o.value && o.value.unknown === undefined ? /^(\d+):(\d+)$/.exec(o.value.text.trim()) : null;
      if (m && o.value) l.fact('nodes', o.rawKey, o.keySpan, o.value.span,
        m[1] === m[2] ? Number(m[1]) : { unknown: `elastic range of ${m[1]} to ${m[2]} nodes` }, 'torchrun');
      else l.spec(spec('nodes', 'int'), o, 'torchrun');
    } else if (o.name === 'standalone' && !o.value) {
      l.fact('nodes', o.rawKey, o.keySpan, o.keySpan, 1, 'torchrun');
    }
  }
}

/** deepspeed launcher (deepspeedai/DeepSpeed@edaa722:deepspeed/launcher/runner.py:55-112, 452-465). */
function deepspeedFacts(l: Launch, opts: readonly Opt[], env: Env, launcher: Field): void {
  const has = (n: string): boolean => opts.some((o) => o.name === n);
  for (const o of opts) {
    if (o.name === 'num_gpus' || o.name === 'num_accelerators') {
      if (o.value && o.value.unknown === undefined && o.value.text.trim() === '-1')
        l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, ALL_GPUS, 'deepspeed');
      else l.spec(spec('gpusPerNode', 'int'), o, 'deepspeed');
    } else if (o.name === 'num_nodes') {
      if (o.value && o.value.unknown === undefined && o.value.text.trim() === '-1')
        l.fact('nodes', o.rawKey, o.keySpan, o.value.span, { unknown: 'all hosts in the hostfile' }, 'deepspeed');
      else l.spec(spec('nodes', 'int'), o, 'deepspeed');
    } else if ((o.name === 'include' || o.name === 'i') && o.value) {
      if (o.value.unknown !== undefined) { l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'deepspeed'); continue; }
      const hosts = o.value.text.trim().split('@').filter((h) => h);
      const counts = hosts.map((h) => { const c = h.split(':')[1]; return c === undefined ? undefined : deviceCount(c); });
      if (hosts.length > 1 && !has('num_nodes')) l.fact('nodes', o.rawKey, o.keySpan, o.value.span, hosts.length, 'deepspeed');
      const same = counts.every((c) => c !== undefined && c === counts[0]);
      l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span,
        same && counts[0] !== undefined ? counts[0] : { unknown: `the GPUs of ${o.value.text.trim()}` }, 'deepspeed');
    } else if ((o.name === 'exclude' || o.name === 'e') && o.value && !has('num_gpus') && !has('include') && !has('i')) {
      l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, { unknown: 'all visible GPUs except the excluded ones' }, 'deepspeed');
    } else if ((o.name === 'hostfile' || o.name === 'h') && o.value && !has('num_nodes')) {
      l.fact('nodes', o.rawKey, o.keySpan, o.value.span, { unknown: 'the hosts listed in the hostfile' }, 'deepspeed');
    }
  }
  const counted = has('num_gpus') || has('num_accelerators') || has('include') || has('i') || has('exclude') || has('e');
  if (!counted) {
    // runner.py turns CUDA_VISIBLE_DEVICES into --include localhost:<ids> only when no count flag is given.
    const vis = has('num_nodes') ? undefined : visibleDevices(env);
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'deepspeed');
    else l.fact('gpusPerNode', 'deepspeed', launcher.span, launcher.span, ALL_GPUS, 'deepspeed');
  }
}

/** `accelerate launch` options; explicit flags win over the config file (accelerate@16cb6eb:src/accelerate/commands/launch.py). */
function accelerateFacts(l: Launch, opts: readonly Opt[], env: Env): void {
  const has = (n: string): boolean => opts.some((o) => o.name === n);
  for (const o of opts) {
    if (o.name === 'config_file') {
      if (!o.value) continue;
      if (o.value.unknown !== undefined) l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown), o.rawKey);
      else l.ref('config', o.value.text, o.value.span);
    } else if (o.name === 'deepspeed_config_file') {
      deepspeedRef(l, o, 'accelerate');
    } else if (o.name === 'use_fsdp' && !o.value) {
      if (!has('fsdp_sharding_strategy')) l.fact('fsdp', o.rawKey, o.keySpan, o.keySpan, 'full_shard', 'accelerate');
    } else if (o.name === 'gpu_ids' && o.value && !has('num_processes')) {
      if (o.value.unknown !== undefined) l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'accelerate');
      else {
        const c = deviceCount(o.value.text);
        if (c !== undefined) l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, c, 'accelerate');
      }
    } else {
      const s = ACCELERATE_FLAGS[o.name];
      if (s) l.spec(s, o, 'accelerate');
    }
  }
  if (!has('num_processes') && !has('gpu_ids')) {
    const vis = visibleDevices(env);
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'accelerate');
  }
}

function deepspeedRef(l: Launch, o: Opt, tool: Tool): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined) {
    l.fact('deepspeedConfig', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, tool);
    return;
  }
  const v = o.value.text.trim();
  if (v.startsWith('{')) {
    l.fact('deepspeedConfig', o.rawKey, o.keySpan, o.value.span, '{inline json}', tool);
    return;
  }
  l.fact('deepspeedConfig', o.rawKey, o.keySpan, o.value.span, v, tool);
  l.ref('deepspeed', v, o.value.span);
}

/** The training script's own flags (everything after the script path). */
function scriptFacts(l: Launch, p: Parsed, tool: Tool, configPositional: boolean): void {
  for (const o of p.opts) {
    if (o.name === 'deepspeed' || o.name === 'deepspeed_config') {
      deepspeedRef(l, o, tool);
      continue;
    }
    if (o.name === 'config' && (tool === 'trl' || tool === 'torchtune' || tool === 'axolotl')) {
      if (!o.value) continue;
      if (o.value.unknown !== undefined) l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown), o.rawKey);
      else if (/\.(ya?ml|json)$/i.test(o.value.text.trim())) l.ref('config', o.value.text.trim(), o.value.span);
      continue;
    }
    const s = TOOL_FLAGS[tool]?.[o.name] ?? SCRIPT_FLAGS[o.name];
    if (s) l.spec(s, o, tool);
  }
  const first = p.positionals[0];
  if (configPositional && first) {
    if (first.unknown !== undefined) l.notStatic(first.span, msg('the config file: {0}', first.unknown));
    else if (/\.(ya?ml|yml|json)$/i.test(first.text)) l.ref('config', first.text, first.span);
  }
}

const scriptConsume = (tool: Tool) => (name: string): Consume => {
  const s = TOOL_FLAGS[tool]?.[name] ?? SCRIPT_FLAGS[name];
  if (name === 'deepspeed') return 'one';
  return s?.kind === 'bool' ? 'bool' : s?.kind === 'list' ? 'list' : 'one';
};

/** The tool whose semantics the script's flags follow. */
function scriptTool(script: string, fields: readonly Field[], from: number): Tool {
  if (/^axolotl\.cli\.train/.test(script)) return 'axolotl';
  if (TRL_SCRIPTS.test(script) || /(^|\/)trl\//.test(script) || /^trl\./.test(script)) return 'trl';
  for (let k = from; k < fields.length; k++) {
    const t = fields[k].text;
    if (t === '--deepspeed_config' || t.startsWith('--deepspeed_config=')) return 'deepspeed';
    if (t === '--deepspeed' && (k + 1 >= fields.length || looksLikeFlag(fields[k + 1]))) return 'deepspeed';
  }
  return 'hf-trainer';
}

function analyzeLaunch(text: string, fields: readonly Field[], envIn: Env): CmdResult | undefined {
  const l = new Launch(text);
  const opaque = (f: Field): void => l.notStatic(f.span, f.unknown === undefined
    ? msg('{0} may add arguments that are not visible here: not known statically', text.slice(f.span.start, f.span.end))
    : msg('{0} may add arguments that are not visible here: {1}', text.slice(f.span.start, f.span.end), f.unknown));
  let env = envIn;
  let i = 0;
  for (let guard = 0; guard < 16 && i < fields.length; guard++) {
    const w = basename(fields[i].text);
    if (w === 'srun' || w === 'salloc') { i = skipOpts(fields, i + 1, SRUN_VALUE); continue; }
    if (w === 'mpirun' || w === 'mpiexec') { i = skipOpts(fields, i + 1, MPIRUN_VALUE); continue; }
    if (['nohup', 'time', 'exec', 'stdbuf', 'nice', 'ionice', 'command', 'sudo', 'unbuffer', 'xvfb-run'].includes(w)) {
      i++;
      while (i < fields.length && fields[i].text.startsWith('-')) i += fields[i].text === '-n' ? 2 : 1;
      continue;
    }
    if (w === 'numactl' || w === 'taskset') {
      i++;
      let sawOpt = false;
      while (i < fields.length && fields[i].text.startsWith('-')) { sawOpt = true; i += fields[i].text.includes('=') ? 1 : 2; }
      if (w === 'taskset' && !sawOpt) i++;
      continue;
    }
    if (w === 'env') {
      i++;
      env = new Map(env);
      while (i < fields.length) {
        const f = fields[i];
        const m = /^([A-Za-z_]\w*)=/.exec(f.text);
        if (m) {
          env.set(m[1], { pieces: pieceRange(f, m[0].length, f.text.length), exported: true, nameSpan: subSpan(f, 0, m[1].length),
            valueSpan: subSpan(f, m[0].length, f.text.length) });
          i++;
        } else if (f.text.startsWith('-')) i++;
        else break;
      }
      continue;
    }
    break;
  }
  const f0 = fields[i];
  if (!f0 || f0.unknown !== undefined) return undefined;
  const cmd = basename(f0.text);
  const sub = fields[i + 1]?.text;
  const launcherConsume = (bools: Set<string>) => (name: string): Consume => (bools.has(name) ? 'never' : 'one');
  let launcherTool: Tool | undefined;
  let scriptAt: number;
  let moduleName: string | undefined;

  if (cmd === 'torchrun' || cmd === 'deepspeed' || (cmd === 'accelerate' && sub === 'launch') || cmd === 'accelerate-launch' || /^python[\d.]*$/.test(cmd)) {
    let j = i + 1;
    let kind = cmd === 'accelerate-launch' ? 'accelerate' : cmd;
    if (cmd === 'accelerate') j = i + 2;
    if (/^python[\d.]*$/.test(cmd)) {
      while (j < fields.length && /^-/.test(fields[j].text)) {
        const t = fields[j].text;
        if (t === '-c') return undefined;
        if (t === '-m') { moduleName = fields[j + 1]?.text; j += 2; break; }
        j += t === '-W' || t === '-X' ? 2 : 1;
      }
      if (moduleName === 'torch.distributed.launch' || moduleName === 'torch.distributed.run') { kind = 'torchrun'; moduleName = undefined; }
      else if (moduleName === 'accelerate.commands.launch') { kind = 'accelerate'; moduleName = undefined; }
      else if (moduleName === 'deepspeed.launcher.runner') { kind = 'deepspeed'; moduleName = undefined; }
      else kind = 'python';
    }
    if (kind === 'python') {
      scriptAt = moduleName !== undefined ? j - 1 : j;
    } else {
      const bools = kind === 'torchrun' ? TORCHRUN_BOOL : kind === 'deepspeed' ? DEEPSPEED_BOOL : ACCELERATE_BOOL;
      const p = parseArgs(fields, j, launcherConsume(bools), true, false, opaque);
      launcherTool = kind === 'torchrun' ? 'torchrun' : kind === 'deepspeed' ? 'deepspeed' : 'accelerate';
      l.tool(launcherTool);
      if (kind === 'torchrun') torchrunFacts(l, p.opts, env);
      else if (kind === 'deepspeed') deepspeedFacts(l, p.opts, env, f0);
      else accelerateFacts(l, p.opts, env);
      if (p.opts.some((o) => o.name === 'm' || o.name === 'module')) moduleName = fields[p.next]?.text;
      scriptAt = p.next;
    }
  } else if ((cmd === 'llamafactory-cli' || cmd === 'lmf') && sub === 'train') {
    launcherTool = 'llamafactory';
    l.tool('llamafactory');
    const p = parseArgs(fields, i + 2, scriptConsume('llamafactory'), false, true, opaque);
    scriptFacts(l, p, 'llamafactory', true);
    // LLaMA-Factory runs torchrun itself when more than one device is visible (LLaMA-Factory@ff6d4d1:src/llamafactory/launcher.py:58-77).
    const nproc = visibleDevices(env, 'NPROC_PER_NODE');
    const nnodes = visibleDevices(env, 'NNODES');
    if (nnodes) emitVisible(l, nnodes, 'nodes', 'llamafactory');
    const vis = nproc ?? visibleDevices(env);
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'llamafactory');
    else l.fact('gpusPerNode', f0.text, f0.span, f0.span, ALL_GPUS, 'llamafactory');
    l.r.training = true;
    l.r.launcherTool = 'llamafactory';
    return l.r;
  } else if (cmd === 'axolotl' && sub === 'train') {
    launcherTool = 'axolotl';
    l.tool('axolotl');
    const p = parseArgs(fields, i + 2, scriptConsume('axolotl'), false, false, opaque);
    scriptFacts(l, p, 'axolotl', true);
    const vis = visibleDevices(env);
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'axolotl');
    l.r.training = true;
    l.r.launcherTool = 'axolotl';
    return l.r;
  } else if (cmd === 'tune' && sub === 'run') {
    const p = parseArgs(fields, i + 2, launcherConsume(TORCHRUN_BOOL), true, false, opaque);
    l.tool('torchtune');
    torchrunFacts(l, p.opts, env);
    const rest = parseArgs(fields, p.next + 1, scriptConsume('torchtune'), false, true, opaque);
    scriptFacts(l, rest, 'torchtune', false);
    l.r.training = true;
    l.r.launcherTool = 'torchtune';
    return l.r;
  } else if (cmd === 'trl' && sub === 'vllm-serve') {
    // The vLLM server of GRPO's vllm_mode server (trl/scripts/vllm_serve.py ScriptArguments): not a training launch;
    // its tensor parallelism, memory share and longest sequence are read for the server check.
    l.tool('trl');
    const p = parseArgs(fields, i + 2, (name) => (VLLM_SERVE_BOOL.has(name) ? 'bool' : 'one'), false, false, opaque);
    for (const o of p.opts) {
      const s = VLLM_SERVE_FLAGS[o.name];
      if (s) l.spec(s, o, 'trl');
    }
    l.r.training = false;
    return l.r;
  } else if (cmd === 'trl' && sub !== undefined && TRL_SUBCOMMANDS.has(sub)) {
    l.tool('trl');
    // The subcommand names the trainer: paired preference trainers, or objectives whose extra memory is not modeled.
    const subField = fields[i + 1];
    const pref = sub === 'dpo' || sub === 'kto' ? sub : sub === 'orpo' || sub === 'cpo' ? 'reference-free' : undefined;
    if (pref) l.fact('preference', `trl ${sub}`, subField.span, subField.span, pref, 'trl');
    if (sub === 'grpo' || sub === 'rloo') l.fact('rollout', `trl ${sub}`, subField.span, subField.span, sub, 'trl');
    if (sub === 'online_dpo') l.fact('rollout', `trl ${sub}`, subField.span, subField.span, 'online-dpo', 'trl');
    const objective = sub === 'xpo' ? 'xpo' : sub;
    if (UNMODELED_OBJECTIVES[objective]) l.r.problems.push({ code: 'not-modeled', severity: 'warning', ...notModeled(`trl ${sub}`, objective),
      span: subField.span, rawKey: `trl ${sub}` });
    const p = parseArgs(fields, i + 2, scriptConsume('trl'), false, false, opaque);
    scriptFacts(l, p, 'trl', false);
    l.r.training = true;
    l.r.launcherTool = 'trl';
    return l.r;
  } else if (/\.py$/.test(f0.text)) {
    scriptAt = i;
  } else {
    return undefined;
  }

  const scriptField = fields[scriptAt];
  if (!scriptField) {
    if (launcherTool) { l.r.training = true; l.r.launcherTool = launcherTool; return l.r; }
    return undefined;
  }
  const script = moduleName ?? scriptField.text;
  if (scriptField.opaque) opaque(scriptField);
  const tool = scriptTool(script, fields, scriptAt + 1);
  const p = parseArgs(fields, scriptAt + 1, scriptConsume(tool), false, false, opaque);
  scriptFacts(l, p, tool, true);
  // A plain script says which trainer it uses only through the flags it was given.
  if (tool !== 'hf-trainer' || l.r.facts.some((f) => f.tool === tool)) l.tool(tool);
  // open-instruct passes `--use_qlora --use_lora`: QLoRA is LoRA on 4-bit weights, so the LoRA switch does not undo it.
  if (l.r.facts.some((f) => f.key === 'method' && f.value === 'qlora')) {
    for (let k = l.r.facts.length - 1; k >= 0; k--) if (l.r.facts[k].key === 'method' && l.r.facts[k].value === 'lora') l.r.facts.splice(k, 1);
  }
  l.r.launcherTool = launcherTool;
  l.r.training = launcherTool !== undefined || l.r.facts.some((f) => TRAINING_KEYS.has(f.key));
  return l.r;
}

// ---------------------------------------------------------------------------------------------------------------
// #SBATCH directives: the job's node and GPU counts, also seeded as the SLURM_* variables srun would set.

interface SbatchOpt { readonly name: string; readonly rawKey: string; readonly value: string; readonly keySpan: Span; readonly valueSpan: Span }

function parseSbatch(text: string, comments: readonly Comment[]): SbatchOpt[] {
  const out: SbatchOpt[] = [];
  for (const c of comments) {
    if (!c.lineStart || !text.startsWith('#SBATCH', c.start)) continue;
    const body = text.slice(c.start + 7, c.end);
    if (body && !isBlank(body[0])) continue;
    const re = /\S+/g;
    const words: { w: string; start: number }[] = [];
    let m: RegExpExecArray | null;
    while ((m = re.exec(body)) !== null) {
      if (m[0].startsWith('#')) break;
      words.push({ w: m[0], start: c.start + 7 + m.index });
    }
    for (let k = 0; k < words.length; k++) {
      const { w, start } = words[k];
      if (!w.startsWith('-')) continue;
      const eq = w.indexOf('=');
      if (eq > 0) {
        out.push({ name: w.slice(0, eq).replace(/^-+/, '').replace(/-/g, '_'), rawKey: w.slice(0, eq), value: w.slice(eq + 1),
          keySpan: { start, end: start + eq }, valueSpan: { start: start + eq + 1, end: start + w.length } });
      } else if (words[k + 1] && !words[k + 1].w.startsWith('-')) {
        const v = words[k + 1];
        out.push({ name: w.replace(/^-+/, '').replace(/-/g, '_'), rawKey: w, value: v.w, keySpan: { start, end: start + w.length },
          valueSpan: { start: v.start, end: v.start + v.w.length } });
        k++;
      }
    }
  }
  return out;
}

interface SbatchFacts { nodes?: SbatchOpt & { n: number }; gpusPerNode?: SbatchOpt & { n: number }; seeds: Env }

function sbatchFacts(opts: readonly SbatchOpt[]): SbatchFacts {
  const last = (...names: string[]): SbatchOpt | undefined => [...opts].reverse().find((o) => names.includes(o.name));
  const intOf = (o: SbatchOpt | undefined, re = /^(\d+)$/): (SbatchOpt & { n: number }) | undefined => {
    const m = o ? re.exec(o.value) : null;
    return o && m ? { ...o, n: Number(m[m.length - 1]) } : undefined;
  };
  const nodes = intOf(last('nodes', 'N'));
  const perNode = intOf(last('gpus_per_node'), /^(?:[\w-]+:)?(\d+)$/) ?? intOf(last('gres'), /(?:^|,)gpu(?::[\w-]+)?:(\d+)/);
  const tasksPerNode = intOf(last('ntasks_per_node'));
  const tasks = intOf(last('ntasks', 'n'));
  const perTask = intOf(last('gpus_per_task'), /^(?:[\w-]+:)?(\d+)$/);
  let gpusPerNode = perNode;
  const tpn = tasksPerNode?.n ?? (tasks && nodes && tasks.n % nodes.n === 0 ? tasks.n / nodes.n : undefined);
  if (!gpusPerNode && perTask && tpn !== undefined) gpusPerNode = { ...perTask, n: perTask.n * tpn };
  const seeds: Env = new Map();
  const seed = (name: string, o: SbatchOpt | undefined, value?: number): void => {
    if (!o) return;
    const text = value !== undefined ? String(value) : o.value;
    seeds.set(name, { pieces: [{ text, start: o.valueSpan.start, end: o.valueSpan.end, exact: text === o.value }], exported: true, nameSpan: o.keySpan,
      valueSpan: o.valueSpan });
  };
  seed('SLURM_NNODES', nodes);
  seed('SLURM_JOB_NUM_NODES', nodes);
  seed('SLURM_GPUS_PER_NODE', gpusPerNode, gpusPerNode?.n);
  seed('SLURM_GPUS_ON_NODE', gpusPerNode, gpusPerNode?.n);
  seed('SLURM_NTASKS_PER_NODE', tasksPerNode);
  seed('SLURM_NTASKS', tasks);
  return { nodes, gpusPerNode, seeds };
}

// ---------------------------------------------------------------------------------------------------------------
// Entry point.

/**
 * Reads a launch script. Facts come from the training launches (a launcher, or a script given training flags); when a
 * script has other commands too (`train && merge`), only the training ones count, and two training launches that
 * disagree on a key get an info problem.
 */
export function analyzeShell(text: string): ConfigFacts {
  try {
    return analyze(text);
  } catch (e) {
    return {
      format: 'shell', facts: [], references: [], tools: [],
      problems: [{ code: 'syntax-error', severity: 'info', ...msg('the script could not be analyzed: {0}', e instanceof Error ? e.message : String(e)),
        span: { start: 0, end: 0 } }],
    };
  }
}

function analyze(text: string): ConfigFacts {
  const lexed = new Lexer(text).run();
  const sb = sbatchFacts(parseSbatch(text, lexed.comments));
  const interp = new Interpreter(text, lexed.toks, sb.seeds);
  interp.run();
  const training = interp.results.filter((r) => r.training);
  const chosen = training.length ? training : interp.results;
  const facts: Fact[] = [];
  const problems: ParseProblem[] = [...lexed.problems, ...interp.problems];
  const tools: Tool[] = [];
  const sbTool: Tool = chosen.find((r) => r.launcherTool)?.launcherTool ?? 'torchrun';
  const known = (k: CanonicalKey): boolean => chosen.some((r) =>
    r.facts.some((f) => f.key === k && !(typeof f.value === 'object' && f.value !== null && !Array.isArray(f.value))));
  if (sb.nodes && !known('nodes')) facts.push({ key: 'nodes', rawKey: sb.nodes.rawKey, value: sb.nodes.n, rawValue: sb.nodes.value, keySpan: sb.nodes.keySpan,
    valueSpan: sb.nodes.valueSpan, tool: sbTool });
  if (sb.gpusPerNode && !known('gpusPerNode') && !known('worldSize')) {
    const g = sb.gpusPerNode;
    facts.push({ key: 'gpusPerNode', rawKey: g.rawKey, value: g.n, rawValue: g.value, keySpan: g.keySpan, valueSpan: g.valueSpan, tool: sbTool });
  }
  for (const r of chosen) {
    facts.push(...r.facts);
    problems.push(...r.problems);
    for (const t of r.tools) if (!tools.includes(t)) tools.push(t);
  }
  // A trl vllm-serve line beside the training launch: the server's settings.
  if (training.length > 0) for (const r of interp.results) if (!r.training) facts.push(...r.facts.filter((f) => VLLM_SERVER_KEYS.has(f.key)));
  if (training.length > 1) {
    const byKey = new Map<CanonicalKey, Fact[]>();
    for (const r of training) {
      for (const f of r.facts) {
        if (typeof f.value === 'object' && f.value !== null && !Array.isArray(f.value)) continue;
        byKey.set(f.key, [...(byKey.get(f.key) ?? []), f]);
      }
    }
    for (const [key, fs] of byKey) {
      const values = [...new Set(fs.map((f) => JSON.stringify(f.value)))];
      if (values.length < 2) continue;
      const lastFact = fs[fs.length - 1];
      problems.push({ code: 'not-static', severity: 'info', span: lastFact.valueSpan, rawKey: lastFact.rawKey,
        ...msg('this script launches training more than once with different {0} ({1}); the last launch is used', key, values.join(', ')) });
    }
  }
  const references: Reference[] = [];
  for (const r of chosen) for (const ref of r.refs) if (!references.some((x) => x.path === ref.path && x.span.start === ref.span.start)) references.push(ref);
  return { format: 'shell', facts, problems, references, tools };
}
