// A TOML file read for its facts: the values as smol-toml parses them (TOML 1.0), and where each key and value is
// written, found by a scan of the lines (`[table]` headers and `key = value` lines, dotted keys included), since the
// parser gives no positions. A value written over several lines (an array) spans to its closing bracket. A syntax
// error is one located problem, at the line and column the parser names. Pure: no I/O.
import { parse, TomlError } from 'smol-toml';
import { msg, type ParseProblem, type Span } from '../facts';
import { lineStarts } from '../line-index';

export interface TomlEntry {
  /** The dotted path from the root (`training.local_batch_size`). */
  readonly path: string;
  readonly keySpan: Span;
  readonly valueSpan: Span;
  /** The value as written. */
  readonly rawValue: string;
  /** The value as parsed (a string, number, boolean, array or table). */
  readonly value: unknown;
}

export interface TomlDoc {
  /** Entries by dotted path; tables themselves are not entries. */
  readonly entries: ReadonlyMap<string, TomlEntry>;
  /** Tables by dotted path, with the span of their header. */
  readonly tables: ReadonlyMap<string, Span>;
  readonly problems: ParseProblem[];
}

/** Parses a TOML file; a file that does not parse gives its syntax error and no entries. */
export function readToml(text: string): TomlDoc {
  let root: Record<string, unknown>;
  try {
    root = parse(text) as Record<string, unknown>;
  } catch (e) {
    return { entries: new Map(), tables: new Map(), problems: [syntaxProblem(text, e)] };
  }
  const entries = new Map<string, TomlEntry>();
  const tables = new Map<string, Span>();
  const starts = lineStarts(text);
  let table: string[] = [];
  let inArrayTable = false;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i];
    const end = i + 1 < starts.length ? starts[i + 1] - 1 : text.length;
    const line = text.slice(start, end);
    const header = /^\s*(\[\[?)\s*([^\]#]+?)\s*\]\]?/.exec(line);
    if (header) {
      table = splitKey(header[2]);
      inArrayTable = header[1] === '[[';
      if (!inArrayTable) tables.set(table.join('.'), { start: start + header.index, end: start + header[0].length });
      continue;
    }
    const kv = /^(\s*)((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=\s*/.exec(
      line,
    );
    if (!kv || inArrayTable) continue;
    const path = [...table, ...splitKey(kv[2])];
    const valueStart = start + kv[0].length;
    const valueEnd = valueEndAt(text, valueStart, end);
    const dotted = path.join('.');
    entries.set(dotted, {
      path: dotted,
      keySpan: { start: start + kv[1].length, end: start + kv[1].length + kv[2].length },
      valueSpan: { start: valueStart, end: valueEnd },
      rawValue: text.slice(valueStart, valueEnd),
      value: valueAt(root, path),
    });
  }
  return { entries, tables, problems: [] };
}

/** A dotted key's parts, quotes taken off (`"a.b".c` is two parts). */
function splitKey(key: string): string[] {
  const parts: string[] = [];
  const re = /\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/gy;
  for (let m = re.exec(key); m && m[0] !== ''; m = re.exec(key)) parts.push(m[1] ?? m[2] ?? m[3]);
  return parts;
}

function valueAt(root: Record<string, unknown>, path: readonly string[]): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

/**
 * Where a value that starts at `from` ends: the line's end less a trailing comment, or, for an array or an inline table
 * that opens there, its closing bracket (strings and comments inside skipped).
 */
function valueEndAt(text: string, from: number, lineEnd: number): number {
  const open = text[from];
  if (open === '[' || open === '{') {
    let depth = 0;
    for (let j = from; j < text.length && j < from + 65_536; j++) {
      const c = text[j];
      if (c === '"' || c === "'") j = stringEnd(text, j);
      else if (c === '#') j = text.indexOf('\n', j) < 0 ? text.length : text.indexOf('\n', j);
      else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return lineEnd;
  }
  let j = from;
  while (j < lineEnd) {
    const c = text[j];
    if (c === '"' || c === "'") j = stringEnd(text, j) + 1;
    else if (c === '#') break;
    else j++;
  }
  let e = Math.min(j, lineEnd);
  while (e > from && /\s/.test(text[e - 1])) e--;
  return e;
}

/** The index of the quote that closes the string opening at `i` (a basic string's escapes skipped). */
function stringEnd(text: string, i: number): number {
  const q = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (q === '"' && text[j] === '\\') j++;
    else if (text[j] === q || text[j] === '\n') return j;
  }
  return text.length;
}

function syntaxProblem(text: string, e: unknown): ParseProblem {
  const starts = lineStarts(text);
  const line = e instanceof TomlError ? e.line : 1;
  const column = e instanceof TomlError ? e.column : 1;
  const at = Math.min(text.length, (starts[line - 1] ?? 0) + Math.max(0, column - 1));
  const first = (e instanceof Error ? e.message : String(e)).split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
  return {
    code: 'syntax-error',
    severity: 'error',
    ...msg('TOML syntax error: {0}', first),
    span: { start: at, end: Math.min(text.length, at + 1) },
  };
}
