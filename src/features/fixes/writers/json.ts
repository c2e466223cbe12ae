// JSON writer: jsonc-parser `modify` keeps comments and formatting; indentation is detected from the file. Pure: no I/O.
import { applyEdits, findNodeAtLocation, modify, parseTree, type ParseError } from 'jsonc-parser';
import { type Val, type Op, type Written, isRaw, isObj, eolOf } from '../ops';

function jsonIndent(text: string): { insertSpaces: boolean; tabSize: number } {
  const sizes: number[] = [];
  for (const m of text.matchAll(/^([ \t]+)["}\]]/gm)) {
    const ws = m[1] ?? '';
    if (ws.includes('\t')) return { insertSpaces: false, tabSize: 1 };
    sizes.push(ws.length);
  }
  const min = sizes.length ? Math.min(...sizes) : 2;
  return { insertSpaces: true, tabSize: min > 0 && min <= 8 ? min : 2 };
}

export function jsonSet(text: string, o: Op): Written {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root)
    return { reason: 'the JSON has syntax errors (or hjson-only syntax); fix them first' };
  if (root.type !== 'object') return { reason: 'the JSON is not an object' };
  const path = [...o.path];
  for (let i = 1; i < path.length; i++) {
    const parent = findNodeAtLocation(root, path.slice(0, i));
    if (parent && parent.type !== 'object')
      return {
        reason: `\`${path.slice(0, i).join('.')}\` is not an object here, so \`${path[i]}\` cannot be set inside it`,
      };
  }
  const existing = findNodeAtLocation(root, path);
  if (o.when === 'present' && !existing) return { text };
  if (o.when === 'absent' && existing) return { text };
  const value = toJson(o.value);
  if (existing && JSON.stringify(valueOfJsonNode(existing)) === JSON.stringify(value)) return { text };
  const { insertSpaces, tabSize } = jsonIndent(text);
  const edits = modify(text, path, value, { formattingOptions: { insertSpaces, tabSize, eol: eolOf(text) } });
  return { text: applyEdits(text, edits) };
}

function valueOfJsonNode(n: NonNullable<ReturnType<typeof findNodeAtLocation>>): unknown {
  return n.type === 'object' || n.type === 'array' ? undefined : n.value;
}

function toJson(v: Val): unknown {
  if (isRaw(v)) return v.raw;
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]));
  return v;
}
