// TOML writer: a key's value replaced where it is written, or a `key = value` line added at the end of its table (the
// table added at the end of the file when there is none); comments, order and formatting kept. The result is parsed
// again and must read back the value. Strings, numbers and booleans only. Pure: no I/O.
import { readToml } from '../../../analyzers/toml/parse';
import { type Op, type Written, isObj, isRaw, eolOf } from '../ops';

export function tomlSet(text: string, o: Op): Written {
  const doc = readToml(text);
  if (doc.problems.length > 0) return { reason: 'the TOML has syntax errors; fix them first' };
  const value = tomlLiteral(o.value);
  if (value === undefined) return { reason: 'only strings, numbers and booleans are written into a TOML file' };
  const path = o.path.join('.');
  const existing = doc.entries.get(path);
  if (o.when === 'present' && !existing) return { text };
  if (o.when === 'absent' && existing) return { text };
  let out: string;
  if (existing) {
    if (existing.rawValue === value) return { text };
    out = text.slice(0, existing.valueSpan.start) + value + text.slice(existing.valueSpan.end);
  } else {
    out = inserted(text, doc, o.path, value);
  }
  const back = readToml(out).entries.get(path);
  if (!back || back.rawValue !== value) return { reason: `\`${path}\` could not be written into this TOML file` };
  return { text: out };
}

/** The text with `key = value` added as the last line of the key's table, or in a new table at the end. */
function inserted(text: string, doc: ReturnType<typeof readToml>, path: readonly string[], value: string): string {
  const eol = eolOf(text);
  const table = path.slice(0, -1).join('.');
  const key = path[path.length - 1];
  const header = doc.tables.get(table);
  if (!header && table !== '') {
    const sep = text.length === 0 || text.endsWith('\n') ? '' : eol;
    return `${text}${sep}${eol}[${table}]${eol}${key} = ${value}${eol}`;
  }
  // After the last key written directly in the table (or its header): the end of that line.
  let after = header?.end ?? 0;
  for (const e of doc.entries.values()) {
    const parent = e.path.slice(0, e.path.lastIndexOf('.') < 0 ? 0 : e.path.lastIndexOf('.'));
    if (parent === table && e.valueSpan.end > after) after = e.valueSpan.end;
  }
  if (table === '' && !header) {
    const first = Math.min(...[...doc.tables.values()].map((s) => s.start), text.length);
    return `${text.slice(0, first)}${key} = ${value}${eol}${text.slice(first)}`;
  }
  const nl = text.indexOf('\n', after);
  const at = nl < 0 ? text.length : text[nl - 1] === '\r' ? nl - 1 : nl;
  return `${text.slice(0, at)}${eol}${key} = ${value}${text.slice(at)}`;
}

function tomlLiteral(v: Op['value']): string | undefined {
  if (isRaw(v) || isObj(v) || Array.isArray(v) || v === null) return undefined;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return undefined;
}
