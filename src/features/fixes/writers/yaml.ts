// YAML writer: eemeli/yaml ranges; scalars keep their quote style, new keys go after the last sibling in block style.
// Pure: no I/O.
import {
  LineCounter,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Document,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { parseYaml } from '../../../analyzers/yaml-parse';
import { PARSE_OPTIONS, parseCachedBlocks } from '../../../analyzers/yaml/blocks';
import { type Val, type Op, type Written, isRaw, isObj, failed, eolOf, lineStartOf, splice } from '../ops';

const YAML_SPECIAL = /^(y|yes|n|no|on|off|true|false|null|~|nan|\.nan|inf|\.inf|-\.inf)$/i;

function yamlScalar(v: Val, style: string | undefined, pyBools: boolean): string {
  if (isRaw(v)) return v.raw;
  if (v === null) return 'null';
  if (typeof v === 'boolean') return pyBools ? (v ? 'True' : 'False') : String(v);
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => yamlScalar(x, undefined, pyBools)).join(', ')}]`;
  if (isObj(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${yamlScalar(x, undefined, pyBools)}`)
      .join(', ')}}`;
  const s = String(v);
  if (style === 'QUOTE_DOUBLE') return JSON.stringify(s);
  if (style === 'QUOTE_SINGLE') return `'${s.replace(/'/g, "''")}'`;
  if (/^[A-Za-z_./][\w./-]*$/.test(s) && !YAML_SPECIAL.test(s)) return s;
  return `'${s.replace(/'/g, "''")}'`;
}

/** Block-style lines for `key: value` at an indentation (nested mappings and lists on their own lines). */
function yamlBlock(
  path: readonly string[],
  v: Val,
  indent: string,
  step: string,
  pyBools: boolean,
  eol: string,
): string {
  const [head, ...rest] = path;
  if (rest.length > 0) return `${indent}${head}:${eol}${yamlBlock(rest, v, indent + step, step, pyBools, eol)}`;
  if (Array.isArray(v) && v.length > 0)
    return `${indent}${head}:${eol}${v.map((x) => `${indent}${step}- ${yamlScalar(x, undefined, pyBools)}${eol}`).join('')}`;
  if (isObj(v))
    return `${indent}${head}:${eol}${Object.entries(v)
      .map(([k, x]) => yamlBlock([k], x, indent + step, step, pyBools, eol))
      .join('')}`;
  return `${indent}${head}: ${yamlScalar(v, undefined, pyBools)}${eol}`;
}

/** The offset just after the line that contains `pos - 1` (the start of the next line), or the text length. */
function nextLineStart(text: string, pos: number): number {
  if (pos > 0 && text[pos - 1] === '\n') return pos;
  const j = text.indexOf('\n', pos);
  return j < 0 ? text.length : j + 1;
}

function yamlStep(text: string): string {
  const sizes = [...text.matchAll(/^( +)[^\s#-]/gm)].map((m) => (m[1] ?? '').length).filter((n) => n > 0);
  const min = sizes.length ? Math.min(...sizes) : 2;
  return ' '.repeat(min > 0 && min <= 8 ? min : 2);
}

function keyName(p: Pair): string | undefined {
  return isScalar(p.key) ? String(p.key.value) : undefined;
}

function derefYaml(doc: Document, n: unknown): unknown {
  let x = n;
  for (let i = 0; i < 16 && isAlias(x); i++) x = (x as { resolve(d: Document): unknown }).resolve(doc);
  return x;
}

/** The pair for a key in a mapping, looking through merge keys (`<<: *base`) to where the key is defined. */
function findPair(doc: Document, m: YAMLMap, key: string, depth = 0): Pair | undefined {
  const direct = m.items.find((p) => keyName(p) === key);
  if (direct || depth > 8) return direct;
  for (const p of m.items) {
    if (keyName(p) !== '<<') continue;
    const targets = isSeq(p.value) ? p.value.items : [p.value];
    for (const t of targets) {
      const tm = derefYaml(doc, t);
      if (isMap(tm)) {
        const hit = findPair(doc, tm, key, depth + 1);
        if (hit) return hit;
      }
    }
  }
  return undefined;
}

/**
 * The document of a text to write to. A block-style file is assembled from the analyzers' block cache, so that the
 * texts an advice item writes one operation after another re-parse only the block the last operation changed (a
 * 200 KB file with a long chat template is otherwise parsed whole for each operation); its nodes are read at once and
 * not kept, since the next parse may move them. A file the block path cannot vouch for is parsed whole, and the last
 * such document is kept: the operations of one change, and the changes of one advice item, are written to the same
 * text one after another, and many leave it as it was (a key already set, or absent). The writers never change it.
 */
const lastParsed: { text?: string; doc?: Document } = {};

function parsedForWrite(text: string): Document {
  const byBlocks = parseCachedBlocks(text, new LineCounter());
  if (byBlocks) return byBlocks;
  if (lastParsed.text !== text || !lastParsed.doc) {
    lastParsed.doc = parseYaml(text, PARSE_OPTIONS);
    lastParsed.text = text;
  }
  return lastParsed.doc;
}

export function yamlSet(text: string, o: Op, omegaconf: boolean): Written {
  const doc = parsedForWrite(text);
  if (doc.errors.length > 0) return { reason: 'the YAML has syntax errors; fix them first' };
  const eol = eolOf(text);
  const pyBools = /:\s*(True|False)\s*(#.*)?$/m.test(text);
  const step = yamlStep(text);
  const node: unknown = doc.contents;
  if (node === null || (isScalar(node) && node.value === null)) {
    if (o.when === 'present') return { text };
    const pre = text.length > 0 && !text.endsWith('\n') ? eol : '';
    return { text: text + pre + yamlBlock(o.path, o.value, '', step, pyBools, eol) };
  }
  if (!isMap(node)) return { reason: 'the YAML is not a mapping of keys to values' };
  let map: YAMLMap = node;
  let mapKeyPair: Pair | undefined;
  for (let i = 0; i < o.path.length; i++) {
    const seg = o.path[i]!;
    const pair = findPair(doc, map, seg);
    if (!pair) {
      if (o.when === 'present') return { text };
      return yamlInsert(
        text,
        map,
        mapKeyPair,
        o.path.slice(i),
        o.append ? [o.value as string] : o.value,
        step,
        pyBools,
        eol,
      );
    }
    const value = derefYaml(doc, pair.value);
    // An OmegaConf interpolation (`${batch_size}`) is edited where its target is written.
    if (omegaconf && isScalar(value) && typeof value.value === 'string') {
      const m = /^\$\{([\w.]+)\}$/.exec(value.value);
      if (m && i === o.path.length - 1) return yamlSet(text, { ...o, path: (m[1] ?? '').split('.') }, omegaconf);
    }
    if (i === o.path.length - 1) {
      if (o.when === 'absent') return { text };
      if (o.append) return yamlAppend(text, pair, value, o.value, pyBools, eol);
      return yamlReplace(text, pair, value, o.value, pyBools, step, eol);
    }
    if (value === null || value === undefined || (isScalar(value) && value.value === null)) {
      if (o.when === 'present') return { text };
      return yamlInsertUnder(text, pair, o.path.slice(i + 1), o.value, step, pyBools, eol);
    }
    if (!isMap(value))
      return {
        reason: `\`${o.path.slice(0, i + 1).join('.')}\` is not a mapping, so \`${o.path[i + 1]}\` cannot be set inside it`,
      };
    map = value;
    mapKeyPair = pair;
  }
  return { text };
}

function yamlReplace(
  text: string,
  pair: Pair,
  value: unknown,
  v: Val,
  pyBools: boolean,
  step: string,
  eol: string,
): Written {
  if (isScalar(value) && value.range) {
    const [s, e] = value.range;
    const src = text.slice(s, e);
    if (src === '' || (value.value === null && !/^(null|~|Null|NULL)$/.test(src)))
      return yamlInsertUnder(text, pair, [], v, step, pyBools, eol);
    const bools = /^(True|False)$/.test(src) || pyBools;
    if (value.type === 'BLOCK_LITERAL' || value.type === 'BLOCK_FOLDED')
      return { reason: 'the value is a block scalar; edit it by hand' };
    const out = Array.isArray(v) || isObj(v) ? yamlScalar(v, undefined, bools) : yamlScalar(v, value.type, bools);
    return { text: splice(text, s, e, out) };
  }
  if ((isSeq(value) || isMap(value)) && (value as YAMLSeq).range) {
    const [s, e] = (value as YAMLSeq).range!;
    if ((value as YAMLSeq).flow) return { text: splice(text, s, e, yamlScalar(v, undefined, pyBools)) };
    // A block collection: rewrite the lines under the key, at their indentation.
    const ls = lineStartOf(text, s);
    const indent = text.slice(ls, s).match(/^ */)?.[0] ?? '';
    const end = nextLineStart(text, e);
    const key = pair.key as { range?: [number, number, number] };
    if (!key.range) return { reason: 'the key has no source range' };
    const keyLine = lineStartOf(text, key.range[0]);
    const keyIndent = text.slice(keyLine, key.range[0]);
    if (!/^ *$/.test(keyIndent)) return { reason: 'the key shares its line with other content; edit it by hand' };
    const body =
      Array.isArray(v) && v.length > 0
        ? v
            .map(
              (x) =>
                `${indent.length > keyIndent.length ? indent : keyIndent + step}- ${yamlScalar(x, undefined, pyBools)}${eol}`,
            )
            .join('')
        : '';
    const head = `${keyIndent}${String(keyName(pair))}:${body ? '' : ' ' + yamlScalar(v, undefined, pyBools)}${eol}`;
    return { text: splice(text, keyLine, end, head + body) };
  }
  return { reason: 'the value has an unsupported YAML shape' };
}

/** Inserts `rest: value` under a key whose value is empty (`key:` followed by nothing). */
function yamlInsertUnder(
  text: string,
  pair: Pair,
  rest: readonly string[],
  v: Val,
  step: string,
  pyBools: boolean,
  eol: string,
): Written {
  const key = pair.key as { range?: [number, number, number] };
  if (!key.range) return { reason: 'the key has no source range' };
  const colon = text.indexOf(':', key.range[1]);
  if (colon < 0) return { reason: 'no colon after the key' };
  if (rest.length === 0) {
    if (Array.isArray(v) || isObj(v)) {
      const keyIndent = text.slice(lineStartOf(text, key.range[0]), key.range[0]);
      const lines = yamlBlock(['x'], v, keyIndent, step, pyBools, eol).split(eol).slice(1).join(eol);
      const lineEnd = nextLineStart(text, colon + 1);
      const pre = lineEnd === text.length && !text.endsWith('\n') ? eol : '';
      return { text: splice(text, lineEnd, lineEnd, pre + lines) };
    }
    return { text: splice(text, colon + 1, colon + 1, ' ' + yamlScalar(v, undefined, pyBools)) };
  }
  const keyIndent = text.slice(lineStartOf(text, key.range[0]), key.range[0]);
  if (!/^ *$/.test(keyIndent)) return { reason: 'the key shares its line with other content; edit it by hand' };
  // Drop an explicit `null` / `~` so that the new mapping can follow the key.
  let t = text;
  const after = t.slice(colon + 1).match(/^[ \t]*(null|~|Null|NULL)?/)?.[0] ?? '';
  if (/null|~/i.test(after)) t = splice(t, colon + 1, colon + 1 + after.length, '');
  const at = nextLineStart(t, colon + 1);
  const pre = at === t.length && !t.endsWith('\n') ? eol : '';
  return { text: splice(t, at, at, pre + yamlBlock(rest, v, keyIndent + step, step, pyBools, eol)) };
}

/** Inserts `rest: value` into a mapping, after its last entry, at the indentation of its entries. */
function yamlInsert(
  text: string,
  map: YAMLMap,
  parentPair: Pair | undefined,
  rest: readonly string[],
  v: Val,
  step: string,
  pyBools: boolean,
  eol: string,
): Written {
  if (map.flow) {
    const r = map.range;
    if (!r) return { reason: 'the mapping has no source range' };
    const close = text.lastIndexOf('}', r[1]);
    if (close < r[0]) return { reason: 'the flow mapping is not closed' };
    const flat = rest.length > 1 ? { [rest.slice(1).join('.')]: v } : v;
    const nested = rest.length > 1 ? rest.slice(1).reduceRight<Val>((acc, k) => ({ [k]: acc }), v) : flat;
    const inner = text.slice(r[0] + 1, close).trim();
    const item = `${rest[0]}: ${yamlScalar(nested, undefined, pyBools)}`;
    const before = text.slice(0, close).replace(/\s*$/, '');
    const at = before.length;
    return { text: splice(text, at, at, inner.length ? `, ${item}` : item) };
  }
  const items = map.items.filter((p) => (p.key as { range?: unknown } | null)?.range);
  const first = items[0];
  const last = items[items.length - 1];
  if (!first || !last) {
    if (parentPair) return yamlInsertUnder(text, parentPair, rest, v, step, pyBools, eol);
    return { reason: 'the mapping is empty' };
  }
  const firstKey = (first.key as { range: [number, number, number] }).range[0];
  const indent = text.slice(lineStartOf(text, firstKey), firstKey);
  if (!/^ *$/.test(indent)) return { reason: 'the mapping does not start on its own line; edit it by hand' };
  const lastEnd = Math.max(
    (last.key as { range: [number, number, number] }).range[1],
    (last.value as { range?: [number, number, number] } | null)?.range?.[1] ?? 0,
  );
  const at = nextLineStart(text, lastEnd);
  const pre = at === text.length && !text.endsWith('\n') ? eol : '';
  return { text: splice(text, at, at, pre + yamlBlock(rest, v, indent, step, pyBools, eol)) };
}

/** Adds an item to a list (Axolotl `plugins`), unless it is there already. */
function yamlAppend(text: string, pair: Pair, value: unknown, v: Val, pyBools: boolean, eol: string): Written {
  const item = yamlScalar(v, undefined, pyBools);
  if (isSeq(value)) {
    if (value.items.some((x) => isScalar(x) && x.value === v)) return { text };
    const r = value.range;
    if (!r) return { reason: 'the list has no source range' };
    if (value.flow) {
      const close = text.lastIndexOf(']', r[1]);
      const before = text.slice(0, close).replace(/[\s,]*$/, '');
      return { text: splice(text, before.length, before.length, value.items.length ? `, ${item}` : item) };
    }
    const lastItem = value.items[value.items.length - 1] as { range?: [number, number, number] } | undefined;
    if (!lastItem?.range) return { reason: 'the list has no source range' };
    const ls = lineStartOf(text, lastItem.range[0]);
    const prefix = text.slice(ls, lastItem.range[0]);
    if (!/^ *- *$/.test(prefix)) return { reason: 'the list items do not start their lines; edit it by hand' };
    const at = nextLineStart(text, lastItem.range[1]);
    const pre = at === text.length && !text.endsWith('\n') ? eol : '';
    return { text: splice(text, at, at, `${pre}${prefix}${item}${eol}`) };
  }
  if (value === null || value === undefined || (isScalar(value) && value.value === null)) {
    return yamlInsertUnder(text, pair, [], [v as string], '  ', pyBools, eol);
  }
  return { reason: 'the value is not a list' };
}

/** Scenario objects (lora, quantization) are written key by key, so that comments and order inside them survive. */
export function yamlWriteDeep(text: string, o: Op): Written {
  if (isObj(o.value)) {
    const doc = parseYaml(text);
    const existing = isMap(doc.contents) ? findPair(doc, doc.contents, o.path[0]!) : undefined;
    if (existing && isMap(existing.value)) {
      let t = text;
      for (const [k, x] of Object.entries(o.value)) {
        const r = yamlSet(t, { ...o, path: [...o.path, k], value: x }, false);
        if (failed(r)) return r;
        t = r.text;
      }
      return { text: t };
    }
  }
  if (o.value === undefined) return { reason: 'no value to write' };
  return yamlSet(text, o, false);
}
