// Fix builders: turn setup changes (scenario-key terms, as advice produces them) into text edits of the user's own
// files, written in each tool's vocabulary and in each file's style. Pure: no 'vscode', no node:* and no I/O; edits
// are plain data (offsets into the original text) that vscode/convert.ts turns into a WorkspaceEdit.
//
// Shape: a planner per format turns one change into path operations (`Op`: "set this key to this value"), using
// one vocabulary table per tool (FORMATS.md §1-§8); a writer per syntax (JSON, YAML, Python, shell) applies the
// operations to the text; the final text is diffed against the original into small EditData hunks.
import type { SyntaxNode } from '@lezer/common';
import { parsePython } from '../analyzers/python-parse';
import { applyEdits, findNodeAtLocation, modify, parseTree, type ParseError } from 'jsonc-parser';
import { isAlias, isMap, isScalar, isSeq, type Document, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { parseYaml } from '../analyzers/yaml-parse';
import { bundledDeepspeedFor, findBundledDeepspeed } from '../analyzers/deepspeed-json/bundled';
import { analyzeAs } from '../analyzers/detect';
import type { AnalyzedFile } from '../analyzers/resolve';
import { UNSLOTH_CLASSES } from '../analyzers/hf-python';
import { isUnknown, type CanonicalKey, type ConfigFacts, type Fact, type FactValue, type Format, type Tool } from '../analyzers/facts';
import { analyzeScenario } from '../analyzers/scenario';
import type { SetupChange } from '../core/advice';
import type { TrainingSetup } from '../core/setup';

export interface EditData {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  readonly newText: string;
}

export interface FixFile {
  readonly file: string;
  readonly text: string;
  readonly format: Format;
  readonly facts: ConfigFacts;
}

/**
 * The analyzed files a quick fix may edit: inline and bundled DeepSpeed configs (AnalyzedFile.origin) are not on disk,
 * and a file that was not analyzed (over the size or nesting limits) is not parsed again to be written.
 */
export function editableFiles(files: readonly AnalyzedFile[]): FixFile[] {
  return files
    .filter((f) => !f.origin && !f.facts.problems.some((p) => p.code === 'not-analyzed'))
    .map((f) => ({ file: f.file, text: f.text, format: f.facts.format, facts: f.facts }));
}

/**
 * Either every change is written (edits) or none is (edits empty, and `unsupported` says which keys could not be
 * written and why): advice is a unit, and half of it can make a run worse.
 */
export interface FixPlan {
  readonly edits: readonly EditData[];
  readonly unsupported: readonly { key: string; reason: string }[];
}

// ---------------------------------------------------------------------------------------------------------------
// Values and operations.

/** Code written as is (a Python expression such as `torch.bfloat16`). */
interface Raw {
  readonly raw: string;
}

type Val = FactValue | Raw | { readonly [k: string]: Val };

/**
 * One key to write. `when: 'present'` only rewrites a key that is already there (flip fp16 off when bf16 goes on);
 * `when: 'absent'` only adds a missing key (pin_memory next to a new offload device). `append` adds an item to a list.
 * For Python, `call` names the call the keyword belongs to; for shell, `launcher` marks a launcher option.
 */
interface Op {
  readonly path: readonly string[];
  readonly value: Val;
  readonly when?: 'present' | 'absent';
  readonly append?: boolean;
  readonly call?: PyCall;
  readonly launcher?: 'torchrun' | 'deepspeed' | 'accelerate' | 'tune';
}

type PyCall = 'train' | 'lora' | 'bnb' | 'load' | 'unsloth-load' | 'unsloth-peft';
type Planned = { readonly ops: readonly Op[] } | { readonly reason: string };
type Written = { readonly text: string } | { readonly reason: string };

const isRaw = (v: Val): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as Raw).raw === 'string'
  && Object.keys(v).length === 1;
const isObj = (v: Val): v is { readonly [k: string]: Val } => typeof v === 'object' && v !== null && !Array.isArray(v) && !isRaw(v);
const op = (path: string | readonly string[], value: Val,
  extra: Partial<Op> = {}): Op => ({ path: typeof path === 'string' ? path.split('.') : path, value, ...extra });
const ok = (...ops: Op[]): Planned => ({ ops });
const no = (reason: string): Planned => ({ reason });
const failed = (x: Planned | Written): x is { readonly reason: string } => 'reason' in x;

function eolOf(text: string): string {
  return /\r\n/.test(text) ? '\r\n' : '\n';
}

// ---------------------------------------------------------------------------------------------------------------
// JSON writer: jsonc-parser `modify` keeps comments and formatting; indentation is detected from the file.

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

function jsonSet(text: string, o: Op): Written {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root) return { reason: 'the JSON has syntax errors (or hjson-only syntax); fix them first' };
  if (root.type !== 'object') return { reason: 'the JSON is not an object' };
  const path = [...o.path];
  for (let i = 1; i < path.length; i++) {
    const parent = findNodeAtLocation(root, path.slice(0, i));
    if (parent && parent.type !== 'object') return { reason: `\`${path.slice(0, i).join('.')}\` is not an object here, so \`${path[i]}\` cannot be set inside it` };
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

// ---------------------------------------------------------------------------------------------------------------
// YAML writer: eemeli/yaml ranges; scalars keep their quote style, new keys go after the last sibling in block style.

const YAML_SPECIAL = /^(y|yes|n|no|on|off|true|false|null|~|nan|\.nan|inf|\.inf|-\.inf)$/i;

function yamlScalar(v: Val, style: string | undefined, pyBools: boolean): string {
  if (isRaw(v)) return v.raw;
  if (v === null) return 'null';
  if (typeof v === 'boolean') return pyBools ? (v ? 'True' : 'False') : String(v);
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => yamlScalar(x, undefined, pyBools)).join(', ')}]`;
  if (isObj(v)) return `{${Object.entries(v).map(([k, x]) => `${k}: ${yamlScalar(x, undefined, pyBools)}`).join(', ')}}`;
  const s = String(v);
  if (style === 'QUOTE_DOUBLE') return JSON.stringify(s);
  if (style === 'QUOTE_SINGLE') return `'${s.replace(/'/g, "''")}'`;
  if (/^[A-Za-z_./][\w./-]*$/.test(s) && !YAML_SPECIAL.test(s)) return s;
  return `'${s.replace(/'/g, "''")}'`;
}

/** Block-style lines for `key: value` at an indentation (nested mappings and lists on their own lines). */
function yamlBlock(path: readonly string[], v: Val, indent: string, step: string, pyBools: boolean, eol: string): string {
  const [head, ...rest] = path;
  if (rest.length > 0) return `${indent}${head}:${eol}${yamlBlock(rest, v, indent + step, step, pyBools, eol)}`;
  if (Array.isArray(v) && v.length > 0) return `${indent}${head}:${eol}${v.map((x) => `${indent}${step}- ${yamlScalar(x, undefined, pyBools)}${eol}`).join('')}`;
  if (isObj(v)) return `${indent}${head}:${eol}${Object.entries(v).map(([k, x]) => yamlBlock([k], x, indent + step, step, pyBools, eol)).join('')}`;
  return `${indent}${head}: ${yamlScalar(v, undefined, pyBools)}${eol}`;
}

function lineStartOf(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
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

function yamlSet(text: string, o: Op, omegaconf: boolean): Written {
  const doc = parseYaml(text, { uniqueKeys: false, strict: false, prettyErrors: false });
  if (doc.errors.length > 0) return { reason: 'the YAML has syntax errors; fix them first' };
  const eol = eolOf(text);
  const pyBools = /:\s*(True|False)\s*(#.*)?$/m.test(text);
  const step = yamlStep(text);
  let node: unknown = doc.contents;
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
      return yamlInsert(text, map, mapKeyPair, o.path.slice(i), o.append ? [o.value as string] : o.value, step, pyBools, eol);
    }
    let value = derefYaml(doc, pair.value);
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
    if (!isMap(value)) return { reason: `\`${o.path.slice(0, i + 1).join('.')}\` is not a mapping, so \`${o.path[i + 1]}\` cannot be set inside it` };
    map = value;
    mapKeyPair = pair;
    value = undefined;
  }
  return { text };
}

function splice(text: string, start: number, end: number, s: string): string {
  return text.slice(0, start) + s + text.slice(end);
}

function yamlReplace(text: string, pair: Pair, value: unknown, v: Val, pyBools: boolean, step: string, eol: string): Written {
  if (isScalar(value) && value.range) {
    const [s, e] = value.range;
    const src = text.slice(s, e);
    if (src === '' || value.value === null && !/^(null|~|Null|NULL)$/.test(src)) return yamlInsertUnder(text, pair, [], v, step, pyBools, eol);
    const bools = /^(True|False)$/.test(src) || pyBools;
    if (value.type === 'BLOCK_LITERAL' || value.type === 'BLOCK_FOLDED') return { reason: 'the value is a block scalar; edit it by hand' };
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
    const body = Array.isArray(v) && v.length > 0
      ? v.map((x) => `${indent.length > keyIndent.length ? indent : keyIndent + step}- ${yamlScalar(x, undefined, pyBools)}${eol}`).join('')
      : '';
    const head = `${keyIndent}${String(keyName(pair))}:${body ? '' : ' ' + yamlScalar(v, undefined, pyBools)}${eol}`;
    return { text: splice(text, keyLine, end, head + body) };
  }
  return { reason: 'the value has an unsupported YAML shape' };
}

/** Inserts `rest: value` under a key whose value is empty (`key:` followed by nothing). */
function yamlInsertUnder(text: string, pair: Pair, rest: readonly string[], v: Val, step: string, pyBools: boolean, eol: string): Written {
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
function yamlInsert(text: string, map: YAMLMap, parentPair: Pair | undefined, rest: readonly string[], v: Val, step: string,
  pyBools: boolean, eol: string): Written {
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
    ((last.value as { range?: [number, number, number] } | null)?.range?.[1]) ?? 0,
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

// ---------------------------------------------------------------------------------------------------------------
// Python writer: keyword arguments of one call, found on the @lezer/python tree; nothing outside the call changes.

const TRL_CONFIGS = new Set([
  'SFTConfig', 'DPOConfig', 'GRPOConfig', 'RLOOConfig', 'ORPOConfig', 'KTOConfig', 'PPOConfig', 'RewardConfig', 'CPOConfig',
  'BCOConfig', 'GKDConfig', 'PRMConfig', 'NashMDConfig', 'OnlineDPOConfig', 'XPOConfig', 'IterativeSFTConfig', 'GOLDConfig', 'MiniLLMConfig',
]);

function calleeName(text: string, call: SyntaxNode): string {
  const c = call.firstChild;
  return c ? text.slice(c.from, c.to).replace(/\s+/g, '') : '';
}

function callKind(name: string): PyCall | 'trl' | undefined {
  const parts = name.split('.');
  const last = parts.pop() ?? '';
  if (UNSLOTH_CLASSES.has(parts[parts.length - 1] ?? ''))
    return last === 'from_pretrained' ? 'unsloth-load' : last === 'get_peft_model' ? 'unsloth-peft' : undefined;
  if (last === 'TrainingArguments' || last === 'Seq2SeqTrainingArguments') return 'train';
  if (TRL_CONFIGS.has(last)) return 'trl';
  if (last === 'LoraConfig') return 'lora';
  if (last === 'BitsAndBytesConfig') return 'bnb';
  if (last === 'from_pretrained') return 'load';
  return undefined;
}

interface PyArg {
  readonly from: number;
  readonly to: number;
  readonly kw?: string;
  readonly value?: { readonly from: number; readonly to: number };
}

interface PyCallSite {
  readonly kind: PyCall | 'trl';
  readonly open: number;
  readonly close: number;
  readonly args: readonly PyArg[];
  readonly trailingComma: boolean;
}

function pyCalls(text: string): PyCallSite[] {
  const tree = parsePython(text).tree;
  const out: PyCallSite[] = [];
  tree.iterate({
    enter: (n) => {
      if (n.name !== 'CallExpression') return;
      const node = n.node;
      const kind = callKind(calleeName(text, node));
      const argList = node.getChild('ArgList');
      if (!kind || !argList) return;
      const kids: SyntaxNode[] = [];
      for (let c = argList.firstChild; c; c = c.nextSibling) kids.push(c);
      const open = kids[0];
      const close = kids[kids.length - 1];
      if (!open || open.name !== '(' || !close || close.name !== ')') return;
      const args: PyArg[] = [];
      let cur: SyntaxNode[] = [];
      let trailingComma = false;
      const flush = (): void => {
        if (cur.length === 0) return;
        const a = cur[0]!;
        const b = cur[cur.length - 1]!;
        const eq = cur.findIndex((x) => x.name === 'AssignOp');
        if (eq === 1 && a.name === 'VariableName' && cur[2]) {
          args.push({ from: a.from, to: b.to, kw: text.slice(a.from, a.to), value: { from: cur[2].from, to: b.to } });
        } else {
          args.push({ from: a.from, to: b.to });
        }
        cur = [];
      };
      for (const k of kids.slice(1, -1)) {
        if (k.name === ',') {
          flush();
          trailingComma = true;
        } else {
          cur.push(k);
          trailingComma = false;
        }
      }
      flush();
      out.push({ kind, open: open.from, close: close.from, args, trailingComma });
    },
  });
  return out;
}

function pyLiteral(v: Val, quote: string): string {
  if (isRaw(v)) return v.raw;
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyLiteral(x, quote)).join(', ')}]`;
  if (isObj(v)) return `{${Object.entries(v).map(([k, x]) => `${quote}${k}${quote}: ${pyLiteral(x, quote)}`).join(', ')}}`;
  const s = String(v);
  return quote === "'" ? `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(s);
}

const PY_CALL_NAMES: Record<PyCall, string> = {
  train: 'TrainingArguments / TRL config', lora: 'LoraConfig', bnb: 'BitsAndBytesConfig', load: 'from_pretrained',
  'unsloth-load': 'FastLanguageModel.from_pretrained', 'unsloth-peft': 'FastLanguageModel.get_peft_model',
};

function pySet(text: string, o: Op): Written {
  const want = o.call ?? 'train';
  const calls = pyCalls(text).filter((c) => c.kind === want || (want === 'train' && c.kind === 'trl'));
  const kw = o.path[0]!;
  if (o.path.length !== 1) return { reason: `nested keyword \`${o.path.join('.')}\` is not written in Python` };
  const site = calls.find((c) => c.args.some((a) => a.kw === kw)) ?? calls[0];
  if (!site) return { reason: `no ${PY_CALL_NAMES[want]}(...) call to write \`${kw}\` into` };
  const quote = /^'/.test(text.slice(site.open, site.close).match(/=\s*(['"])/)?.[1] ?? '"') ? "'" : '"';
  const value = pyLiteral(o.value, quote);
  const arg = site.args.find((a) => a.kw === kw);
  if (arg?.value) {
    if (o.when === 'absent') return { text };
    return { text: splice(text, arg.value.from, arg.value.to, value) };
  }
  if (o.when === 'present') return { text };
  const item = `${kw}=${value}`;
  const last = site.args[site.args.length - 1];
  if (!last) return { text: splice(text, site.open + 1, site.close, item) };
  const eol = eolOf(text);
  const inner = text.slice(site.open + 1, last.to);
  const firstArg = site.args[0]!;
  const multiLine = /\n/.test(text.slice(site.open, firstArg.from));
  if (multiLine) {
    // One argument per line: the new keyword gets its own line at the indentation of the last one.
    const ls = lineStartOf(text, last.from);
    const indent = text.slice(ls, last.from).match(/^[ \t]*/)?.[0] ?? '';
    if (site.trailingComma) {
      const comma = text.indexOf(',', last.to);
      return { text: splice(text, comma + 1, comma + 1, `${eol}${indent}${item},`) };
    }
    return { text: splice(text, last.to, last.to, `,${eol}${indent}${item}`) };
  }
  if (/\n/.test(inner)) {
    // Hanging indentation: continue under the last argument.
    const col = last.from - lineStartOf(text, last.from);
    const at = site.trailingComma ? text.indexOf(',', last.to) + 1 : last.to;
    return { text: splice(text, at, at, `${site.trailingComma ? '' : ','}${eol}${' '.repeat(col)}${item}`) };
  }
  if (site.trailingComma) {
    const comma = text.indexOf(',', last.to);
    return { text: splice(text, comma + 1, comma + 1, ` ${item}`) };
  }
  return { text: splice(text, last.to, last.to, `, ${item}`) };
}

// ---------------------------------------------------------------------------------------------------------------
// Shell writer: flags are found through the analyzer's facts (spans of `--k v` and `--k=v`); new flags join the
// training command's continuation block.

const LAUNCHER_TOOLS = new Set<Tool>(['torchrun', 'accelerate', 'deepspeed']);
const SCRIPT_TOOLS = new Set<Tool>(['hf-trainer', 'trl', 'llamafactory', 'axolotl', 'torchtune', 'peft', 'vram-lens']);

function shellWord(v: Val, existing?: string): string {
  if (isRaw(v)) return v.raw;
  if (typeof v === 'boolean') {
    const cased = existing && /^[a-z]/.test(existing) ? (v ? 'true' : 'false') : v ? 'True' : 'False';
    return cased;
  }
  if (Array.isArray(v)) return v.map((x) => shellWord(x)).join(' ');
  const s = v === null ? '' : String(v);
  if (existing && /^".*"$/.test(existing)) return JSON.stringify(s);
  if (existing && /^'.*'$/.test(existing)) return `'${s}'`;
  return /^[\w./:,=+-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
}

function shellSet(file: FixFile, text: string, o: Op): Written {
  const facts = analyzeAs('shell', text).facts;
  const name = o.path.join('.');
  const flagRe = new RegExp(`^--?${name.replace(/[._-]/g, '[._-]')}$`, 'i');
  const hits = facts.filter((f) => flagRe.test(f.rawKey) && (o.launcher ? LAUNCHER_TOOLS.has(f.tool) || f.tool === 'torchtune' : true));
  const seen = new Set<number>();
  const sites = hits.filter((f) => !seen.has(f.keySpan.start) && seen.add(f.keySpan.start));
  if (sites.length > 0) {
    if (o.when === 'absent') return { text };
    let t = text;
    for (const f of [...sites].sort((a, b) => b.keySpan.start - a.keySpan.start)) {
      const bare = f.valueSpan.start === f.keySpan.start && f.valueSpan.end === f.keySpan.end;
      if (bare) {
        if (o.value === true) continue;
        if (o.value === false) {
          t = removeShellWord(t, f.keySpan.start, f.keySpan.end);
          continue;
        }
        return { reason: `\`${f.rawKey}\` is written without a value; edit it by hand` };
      }
      const existing = t.slice(f.valueSpan.start, f.valueSpan.end);
      if (/\$/.test(existing) && !/^[\w.]+$/.test(existing) && o.value !== null && typeof o.value === 'object' && !Array.isArray(o.value)) {
        return { reason: `\`${f.rawKey}\` takes its value from a shell expression` };
      }
      t = splice(t, f.valueSpan.start, f.valueSpan.end, shellWord(o.value, existing));
    }
    return { text: t };
  }
  if (o.when === 'present') return { text };
  const word = `--${name} ${shellWord(o.value)}`;
  if (o.launcher) return shellInsertLauncher(text, o.launcher, word);
  const script = facts.filter((f) => /^--?\w/.test(f.rawKey) && SCRIPT_TOOLS.has(f.tool));
  const last = script.sort((a, b) => a.keySpan.start - b.keySpan.start)[script.length - 1];
  if (!last) return { reason: `no training command with flags in ${file.file} to add \`--${name}\` to` };
  const end = Math.max(last.keySpan.end, last.valueSpan.end);
  const ls = lineStartOf(text, end);
  const nl = text.indexOf('\n', end);
  const lineEnd = nl < 0 ? text.length : nl > 0 && text[nl - 1] === '\r' ? nl - 1 : nl;
  const rest = text.slice(end, lineEnd);
  const line = text.slice(ls, lineEnd);
  const flagFirst = /^\s*-/.test(line);
  const indent = line.match(/^[ \t]*/)?.[0] ?? '';
  const eol = eolOf(text);
  if (/^\s*\\\s*$/.test(rest) && flagFirst) {
    const at = nl < 0 ? text.length : nl + 1;
    return { text: splice(text, at, at, `${indent}${word} \\${eol}`) };
  }
  const prevLine = text.slice(lineStartOf(text, Math.max(0, ls - 1)), Math.max(0, ls - 1)).replace(/\r$/, '');
  if (/^\s*$/.test(rest) && flagFirst && /\\$/.test(prevLine)) {
    return { text: splice(text, end, lineEnd, ` \\${eol}${indent}${word}`) };
  }
  return { text: splice(text, end, end, ` ${word}`) };
}

/** Removes one word (a bare flag) and the blank it leaves; a line left with only `\` goes too. */
function removeShellWord(text: string, start: number, end: number): string {
  const ls = lineStartOf(text, start);
  const nl = text.indexOf('\n', end);
  const le = nl < 0 ? text.length : nl + 1;
  const line = text.slice(ls, le);
  const without = text.slice(ls, start) + text.slice(end, le);
  if (/^\s*\\?\s*$/.test(without)) {
    // The line held only this flag. If it ended the command, the previous line's `\` must go as well.
    if (!/\\\s*$/.test(line.replace(/\r?\n$/, '')) && ls > 0) {
      const prevEnd = ls - 1;
      const prevStart = lineStartOf(text, prevEnd);
      const prev = text.slice(prevStart, prevEnd).replace(/\r$/, '');
      const cut = prev.replace(/\s*\\$/, '');
      const cr = text[prevEnd - 1] === '\r' ? '\r' : '';
      return text.slice(0, prevStart) + cut + cr + '\n' + text.slice(le);
    }
    return text.slice(0, ls) + text.slice(le);
  }
  let e = end;
  while (text[e] === ' ' || text[e] === '\t') e++;
  return splice(text, start, e, '');
}

function shellInsertLauncher(text: string, launcher: NonNullable<Op['launcher']>, word: string): Written {
  const re = {
    torchrun: /(^|[\s;&|(])(torchrun|python3? -m torch\.distributed\.(?:run|launch))(?=[ \t])/m,
    deepspeed: /(^|[\s;&|(])(deepspeed)(?=[ \t]+(?!-)\S)/m,
    accelerate: /(^|[\s;&|(])(accelerate[ \t]+launch)(?=[ \t])/m,
    tune: /(^|[\s;&|(])(tune[ \t]+run)(?=[ \t])/m,
  }[launcher];
  const m = re.exec(text);
  if (!m) return { reason: `no ${launcher} launcher command to add \`${word.split(' ')[0]}\` to` };
  const at = m.index + (m[1] ?? '').length + (m[2] ?? '').length;
  return { text: splice(text, at, at, ` ${word}`) };
}

// ---------------------------------------------------------------------------------------------------------------
// Vocabulary tables, one per tool (FORMATS.md §2.1 OptimizerNames, §1.6, §5 Axolotl, §6 LLaMA-Factory, §7 torchtune).

/** HF `optim` names (TrainingArguments, TRL, Axolotl `optimizer`, LLaMA-Factory `optim`), FORMATS.md §2.1. */
const HF_OPTIM: Record<string, string> = {
  adamw: 'adamw_torch', adamw_fused: 'adamw_torch_fused', adamw_8bit: 'adamw_bnb_8bit', paged_adamw_8bit: 'paged_adamw_8bit',
  paged_adamw: 'paged_adamw_32bit', adafactor: 'adafactor', sgd: 'sgd', lion: 'lion_32bit', lion_8bit: 'lion_8bit', adamw_4bit: 'adamw_torch_4bit',
};
/** DeepSpeed `optimizer.type`: native names plus torch.optim classes (FORMATS.md §1.6); bitsandbytes has none. */
const DS_OPTIM: Record<string, string> = { adamw: 'AdamW', sgd: 'SGD', lion: 'Lion', adafactor: 'Adafactor' };
/** torchtune `optimizer._component_` (FORMATS.md §7). */
const TORCHTUNE_OPTIM: Record<string, string> = {
  adamw: 'torch.optim.AdamW', adamw_8bit: 'bitsandbytes.optim.AdamW8bit', paged_adamw_8bit: 'bitsandbytes.optim.PagedAdamW8bit',
  paged_adamw: 'bitsandbytes.optim.PagedAdamW', sgd: 'torch.optim.SGD', lion: 'bitsandbytes.optim.Lion', lion_8bit: 'bitsandbytes.optim.Lion8bit',
  adamw_4bit: 'torchao.optim.AdamW4bit',
  adafactor: 'torch.optim.Adafactor',
};
/** HF `attn_implementation` values (FORMATS.md §2.5). */
const HF_ATTN: Record<string, string> = { eager: 'eager', sdpa: 'sdpa', flash: 'flash_attention_2' };
/** LLaMA-Factory `flash_attn` (FORMATS.md §6). */
const LF_ATTN: Record<string, string> = { eager: 'disabled', sdpa: 'sdpa', flash: 'fa2' };
/** Axolotl's deprecated attention switches (FORMATS.md §5). */
const AXOLOTL_ATTN_FLAGS: Record<string, string> = { flash: 'flash_attention', sdpa: 'sdp_attention', eager: 'eager_attention' };
/** Accelerate `mixed_precision` (FORMATS.md §4): 'no' is quoted because PyYAML reads a plain no as False. */
const ACCELERATE_MP: Record<string, string> = { none: 'no', bf16: 'bf16', fp16: 'fp16' };
/** HF `fsdp` option strings (FORMATS.md §2.1). */
const HF_FSDP: Record<string, string> = { none: '', full_shard: 'full_shard auto_wrap', shard_grad_op: 'shard_grad_op auto_wrap',
  hybrid_shard: 'hybrid_shard auto_wrap', no_shard: 'no_shard' };
/** Accelerate `fsdp_sharding_strategy` (FORMATS.md §4). */
const ACCELERATE_FSDP: Record<string, string> = { full_shard: 'FULL_SHARD', shard_grad_op: 'SHARD_GRAD_OP',
  hybrid_shard: 'HYBRID_SHARD', no_shard: 'NO_SHARD' };
const TORCH_DTYPE: Record<string, string> = { bf16: 'bfloat16', fp16: 'float16', fp32: 'float32' };

/** Canonical keys through which a file says it sets a setup key. */
const RELATED: Partial<Record<string, readonly CanonicalKey[]>> = {
  micro_batch_size: ['microBatchSize'],
  gradient_accumulation_steps: ['gradientAccumulationSteps'],
  seq_len: ['seqLen'],
  gradient_checkpointing: ['gradientCheckpointing'],
  mixed_precision: ['bf16', 'fp16', 'mixedPrecision'],
  weights_dtype: ['weightsDtype'],
  optimizer: ['optimizer'],
  attention: ['attention'],
  loss: ['loss'],
  compile: ['compile'],
  activation_offloading: ['activationOffloading'],
  tiled_mlp: ['tiledMlp'],
  zero_stage: ['zeroStage'],
  offload_optimizer: ['offloadOptimizer'],
  offload_params: ['offloadParams'],
  fsdp: ['fsdp'],
  method: ['method'],
  lora: ['loraR', 'loraAlpha', 'loraDropout', 'loraTargets'],
  quantization: ['quantBits'],
  gpus_per_node: ['gpusPerNode', 'worldSize'],
  nodes: ['nodes'],
};

/** Which formats own a concept, in order of preference, when no file writes it yet. */
const TRAINER_FORMATS: readonly Format[] = ['scenario', 'hf-python', 'hf-yaml', 'axolotl-yaml', 'llamafactory-yaml', 'torchtune-yaml', 'shell'];
const OWNERS: Partial<Record<string, readonly Format[]>> = {
  zero_stage: ['scenario', 'deepspeed-json', 'accelerate-yaml'],
  offload_optimizer: ['scenario', 'deepspeed-json', 'accelerate-yaml', 'torchtune-yaml'],
  offload_params: ['scenario', 'deepspeed-json', 'accelerate-yaml', 'torchtune-yaml'],
  mixed_precision: [...TRAINER_FORMATS, 'accelerate-yaml', 'deepspeed-json'],
  micro_batch_size: [...TRAINER_FORMATS, 'deepspeed-json'],
  gradient_accumulation_steps: [...TRAINER_FORMATS, 'deepspeed-json', 'accelerate-yaml'],
  gpus_per_node: ['scenario', 'shell', 'accelerate-yaml'],
  nodes: ['scenario', 'shell', 'accelerate-yaml'],
  fsdp: [...TRAINER_FORMATS, 'accelerate-yaml'],
};

/** Setup keys whose value follows from the others (DeepSpeed / FSDP keep the fp32 master copy by themselves). */
const DERIVED = new Set(['master_weights']);

/** The value a key has when no file writes it (so writing nothing is correct). */
const ABSENT_MEANS: Partial<Record<string, unknown>> = { zero_stage: 0, offload_optimizer: 'none', offload_params: 'none', fsdp: 'none', nodes: 1,
  compile: false, activation_offloading: false, tiled_mlp: false };

// ---------------------------------------------------------------------------------------------------------------
// Planners: one setup change -> operations in one file's format.

interface PlanCtx {
  readonly file: FixFile;
  readonly changes: readonly SetupChange[];
  readonly fact: (k: CanonicalKey) => Fact | undefined;
  readonly has: (rawKey: string) => boolean;
  readonly changed: (k: string) => unknown;
}

function planCtx(file: FixFile, changes: readonly SetupChange[]): PlanCtx {
  return {
    file,
    changes,
    fact: (k) => file.facts.facts.find((f) => f.key === k && f.origin !== 'call-default'),
    has: (raw) => file.facts.facts.some((f) => f.rawKey === raw || f.rawKey.replace(/^-+/, '') === raw),
    changed: (k) => changes.find((c) => c.key === k)?.value,
  };
}

type Lora = { r?: number; alpha?: number; dropout?: number; target_modules?: readonly string[] | 'all-linear';
  modules_to_save?: readonly string[]; use_dora?: boolean };
type Quant = { bits?: number; type?: string; double_quant?: boolean; experts?: boolean };

function plan(file: FixFile, ch: SetupChange, changes: readonly SetupChange[]): Planned {
  const c = planCtx(file, changes);
  // Quantized fused experts are Axolotl's own loading step (quantize_moe_experts): no other format can ask for it.
  if (ch.key === 'quantization' && (ch.value as Quant | undefined)?.experts && file.format !== 'scenario' && file.format !== 'axolotl-yaml') {
    return no('only Axolotl quantizes fused MoE experts (quantize_moe_experts)');
  }
  // Package versions live in the environment (and a requirements pin), not in a training config.
  if ((ch.key === 'torchao_version' || ch.key === 'transformers_version' || ch.key === 'pytorch_version') && file.format !== 'scenario') {
    return no(`${ch.key.replace('_version', '').replace('pytorch', 'torch')} is a package version: upgrade it in the environment and its requirements pin`);
  }
  switch (file.format) {
    case 'scenario': return planScenario(ch);
    case 'deepspeed-json': return planDeepSpeed(c, ch);
    case 'hf-python': return planPython(c, ch);
    case 'shell': return planShell(c, ch);
    case 'accelerate-yaml': return planAccelerate(c, ch);
    case 'axolotl-yaml': return planAxolotl(c, ch);
    case 'llamafactory-yaml': return planLlamaFactory(c, ch);
    case 'torchtune-yaml': return planTorchtune(c, ch);
    case 'hf-yaml': return planHfYaml(c, ch);
  }
}

function planScenario(ch: SetupChange): Planned {
  return ok(op([ch.key], ch.value as Val));
}

const str = (v: unknown): string => String(v);

/** DeepSpeed JSON (FORMATS.md §1): batch keys, precision blocks, ZeRO block with offload and buckets, optimizer.type. */
function planDeepSpeed(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const known = (k: CanonicalKey): boolean => {
    const f = c.fact(k);
    return !!f && !isUnknown(f.value);
  };
  switch (ch.key) {
    case 'zero_stage':
      if (c.file.facts.facts.some((f) => f.key === 'zeroStage' && f.rawKey === 'zero_optimization'))
        return no('`"zero_optimization": true` is the legacy form; write it as {"stage": N} first');
      return ok(op('zero_optimization.stage', Number(v)));
    case 'offload_optimizer':
    case 'offload_params': {
      const block = ch.key === 'offload_optimizer' ? 'offload_optimizer' : 'offload_param';
      if (v === 'nvme' && !/"nvme_path"/.test(c.file.text)) return no('NVMe offload needs an nvme_path; write it by hand');
      return ok(op(['zero_optimization', block, 'device'], str(v)),
        ...(v !== 'none' ? [op(['zero_optimization', block, 'pin_memory'], true, { when: 'absent' })] : []));
    }
    case 'mixed_precision':
      if (v === 'bf16') return ok(op('bf16.enabled', true), op('fp16.enabled', false, { when: 'present' }));
      if (v === 'fp16') return ok(op('fp16.enabled', true), op('bf16.enabled', false, { when: 'present' }));
      return ok(op('bf16.enabled', false, { when: 'present' }), op('fp16.enabled', false, { when: 'present' }));
    case 'micro_batch_size':
    case 'gradient_accumulation_steps': {
      const key = ch.key === 'micro_batch_size' ? 'train_micro_batch_size_per_gpu' : 'gradient_accumulation_steps';
      const canon: CanonicalKey = ch.key === 'micro_batch_size' ? 'microBatchSize' : 'gradientAccumulationSteps';
      const f = c.fact(canon);
      // "auto" is filled from TrainingArguments; it stays as it is.
      if (f && isUnknown(f.value) && /^auto/.test(f.value.unknown)) return ok();
      const ops = [op(key, Number(v))];
      // train_batch_size = micro x accumulation x GPUs (config.py _batch_assertion): keep it consistent.
      const tb = c.fact('trainBatchSize');
      if (tb && typeof tb.value === 'number') {
        const m0 = c.fact('microBatchSize');
        const g0 = c.fact('gradientAccumulationSteps');
        const micro0 = typeof m0?.value === 'number' ? m0.value : undefined;
        const gas0 = typeof g0?.value === 'number' ? g0.value : g0 ? undefined : micro0 !== undefined ? undefined : 1;
        const micro1 = (c.changed('micro_batch_size') as number | undefined) ?? micro0;
        const gas1 = (c.changed('gradient_accumulation_steps') as number | undefined) ?? gas0;
        if (micro0 === undefined || gas0 === undefined || micro1 === undefined || gas1 === undefined) {
          if (!known('microBatchSize') || !known('gradientAccumulationSteps'))
            return no('train_batch_size is fixed and the other batch keys are derived from it; change train_batch_size by hand');
        } else if (micro0 * gas0 !== micro1 * gas1) {
          const next = (tb.value * micro1 * gas1) / (micro0 * gas0);
          if (!Number.isInteger(next)) return no('train_batch_size would not be a whole number');
          ops.push(op('train_batch_size', next));
        }
      }
      return ok(...ops);
    }
    case 'optimizer': {
      const name = DS_OPTIM[str(v)];
      if (!c.fact('optimizer')) return no('DeepSpeed has no optimizer block here; the trainer picks the optimizer');
      if (!name) return no(`the DeepSpeed optimizer block cannot express ${str(v)} (bitsandbytes optimizers are not DeepSpeed optimizers); remove the block so the trainer's optim applies`);
      return ok(op('optimizer.type', name));
    }
    case 'weights_dtype':
      return no('DeepSpeed derives the weights dtype from its bf16/fp16 blocks');
    default:
      return no(`DeepSpeed JSON has no key for ${ch.key}`);
  }
}

/** The training-call keyword for the sequence length: the one the file already uses, else TRL's max_length. */
function seqKey(c: PlanCtx, fallback: string | undefined): string | undefined {
  const f = c.fact('seqLen');
  return f ? f.rawKey.replace(/^-+/, '') : fallback;
}

function loraOps(l: Lora, keys: { r: string; alpha: string; dropout: string; dora?: string }, targets: (t: NonNullable<Lora['target_modules']>) => Op[],
  extra: Partial<Op> = {}): Op[] {
  const ops: Op[] = [];
  // DoRA on is written; off only where the file has the key.
  if (keys.dora && l.use_dora !== undefined) ops.push(op(keys.dora, l.use_dora, l.use_dora ? extra : { ...extra, when: 'present' }));
  if (l.r !== undefined) ops.push(op(keys.r, l.r, extra));
  if (l.alpha !== undefined) ops.push(op(keys.alpha, l.alpha, extra));
  if (l.dropout !== undefined) ops.push(op(keys.dropout, l.dropout, extra));
  if (l.target_modules !== undefined) ops.push(...targets(l.target_modules));
  return ops;
}

type Rollout = NonNullable<TrainingSetup['rollout']>;

/**
 * GRPOConfig keys for a changed rollout, against what the file sets (or TRL's defaults): vllm_enable_sleep_mode, beta
 * 0.0 for no reference, max_completion_length, and steps_per_generation for the completions per round.
 */
function rolloutKeys(c: PlanCtx, r: Rollout): Array<[string, Val]> | string {
  const num = (k: CanonicalKey): number | undefined => {
    const f = c.fact(k);
    return typeof f?.value === 'number' ? f.value : undefined;
  };
  const out: Array<[string, Val]> = [];
  // OnlineDPOConfig: the generated tokens are max_new_tokens (64 by default); the completions per micro-step follow the
  // micro-batch.
  if (r.objective === 'online-dpo') {
    if (r.completion_len !== (num('maxNewTokens') ?? 64)) out.push(['max_new_tokens', r.completion_len]);
    return out;
  }
  if (r.vllm_sleep !== (c.fact('vllmSleep')?.value === true)) out.push(['vllm_enable_sleep_mode', r.vllm_sleep]);
  if (r.reference === 'none' && (num('klBeta') ?? 0) > 0) out.push(['beta', 0.0]);
  if (r.completion_len !== (num('completionLen') ?? 256)) out.push(['max_completion_length', r.completion_len]);
  const micro = (c.changed('micro_batch_size') as number | undefined) ?? num('microBatchSize') ?? 8;
  const gas = (c.changed('gradient_accumulation_steps') as number | undefined) ?? num('gradientAccumulationSteps') ?? 1;
  const current = micro * (num('stepsPerGeneration') ?? gas);
  if (r.batch !== current) {
    if (c.fact('generationBatchSize')) return 'generation_batch_size counts the completions of all GPUs; change it by hand';
    if (r.batch % micro !== 0) return `${r.batch} completions per round is not a multiple of the micro-batch (${micro})`;
    out.push(['steps_per_generation', r.batch / micro]);
  }
  return out;
}

/** max_prompt_length for a shorter GRPO sequence: the sequence minus the completion. */
function promptKey(c: PlanCtx, seq: number): [string, number] {
  const r = c.changed('rollout') as Rollout | undefined;
  const f = c.fact('completionLen');
  const completion = r?.completion_len ?? (typeof f?.value === 'number' ? f.value : 256);
  return ['max_prompt_length', seq - completion];
}

/** HF TrainingArguments / TRL configs, PEFT LoraConfig, BitsAndBytesConfig, from_pretrained (FORMATS.md §2). */
function planPython(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const calls = pyCalls(c.file.text);
  const hasCall = (k: PyCall | 'trl'): boolean => calls.some((x) => x.kind === k);
  const trainCall = hasCall('train') || hasCall('trl');
  const train = (path: string, value: Val, extra: Partial<Op> = {}): Op => op([path], value, { call: 'train', ...extra });
  if (!trainCall && ['micro_batch_size', 'eval_batch_size', 'gradient_accumulation_steps', 'mixed_precision', 'gradient_checkpointing', 'optimizer', 'loss',
    'compile', 'activation_offloading', 'fsdp', 'seq_len'].includes(ch.key)) {
    return no('no TrainingArguments / TRL config call in this file (the script may read its settings from the command line)');
  }
  if (hasCall('unsloth-load') || hasCall('unsloth-peft')) {
    const u = planUnsloth(c, ch, hasCall);
    if (u) return u;
  }
  switch (ch.key) {
    case 'kbit_upcast':
      // The cast is the body of a library call; keeping its other two effects takes code, not a keyword.
      return no('replace prepare_model_for_kbit_training(model) by model.gradient_checkpointing_enable() and model.enable_input_require_grads() by hand');
    case 'micro_batch_size': return ok(train('per_device_train_batch_size', Number(v)));
    case 'eval_batch_size': return v === undefined ? ok(train('eval_strategy', 'no')) : ok(train('per_device_eval_batch_size', Number(v)));
    case 'gradient_accumulation_steps': return ok(train('gradient_accumulation_steps', Number(v)));
    case 'mixed_precision':
      if (v === 'bf16') return ok(train('bf16', true), train('fp16', false, { when: 'present' }));
      if (v === 'fp16') return ok(train('fp16', true), train('bf16', false, { when: 'present' }));
      return ok(train('bf16', false), train('fp16', false, { when: 'present' }));
    case 'gradient_checkpointing':
      if (v === 'selective') return no('TrainingArguments has no selective checkpointing');
      return ok(train('gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return name ? ok(train('optim', name)) : no(`HF optim has no name for ${str(v)}`);
    }
    case 'loss':
      // DPOConfig's fused preference loss is use_liger_loss; use_liger_kernel patches the model only.
      if (c.file.facts.facts.some((f) => f.key === 'preference'))
        return v === 'fused' ? ok(train('use_liger_loss', true))
        : v === 'full' ? ok(train('use_liger_loss', false, { when: 'present' })) : no('DPOConfig has no chunked loss');
      if (v === 'fused') return ok(train('use_liger_kernel', true));
      if (v === 'full') return ok(train('use_liger_kernel', false, { when: 'present' }));
      return no('TrainingArguments has no chunked-loss switch');
    case 'compile': return ok(train('torch_compile', Boolean(v)));
    case 'preference': {
      const ref = (v as { reference?: string } | undefined)?.reference;
      if (!hasCall('trl')) return no('the reference log-probabilities are a DPOConfig setting (precompute_ref_log_probs)');
      if (ref === 'precomputed') return ok(train('precompute_ref_log_probs', true));
      if (ref === 'copy' || ref === 'adapters-off') return ok(train('precompute_ref_log_probs', false, { when: 'present' }));
      return no('switching the preference objective needs another trainer');
    }
    case 'activation_offloading':
      return hasCall('trl') ? ok(train('activation_offloading', Boolean(v))) : no('activation_offloading is a TRL config key; TrainingArguments has none');
    case 'fsdp': {
      const s = HF_FSDP[str(v)];
      return s === undefined ? no(`no fsdp option for ${str(v)}`) : ok(train('fsdp', s));
    }
    case 'rollout': {
      const keys = rolloutKeys(c, v as Rollout);
      return typeof keys === 'string' ? no(keys) : hasCall('trl') ? ok(...keys.map(([k, x]) => train(k, x))) : no('the rollout settings are GRPOConfig keys');
    }
    case 'seq_len': {
      if (c.fact('rollout') && c.fact('rollout')?.value !== 'online-dpo')
        return hasCall('trl') ? ok(train(...promptKey(c, Number(v)))) : no('the prompt length is a GRPOConfig key (max_prompt_length)');
      const k = seqKey(c, hasCall('trl') ? 'max_length' : undefined);
      return k ? ok(train(k, Number(v))) : no('TrainingArguments has no sequence length; it is a data or tokenizer setting of the script');
    }
    case 'attention': {
      const name = HF_ATTN[str(v)];
      if (!name) return no(`no attn_implementation for ${str(v)}`);
      if (hasCall('load')) return ok(op(['attn_implementation'], name, { call: 'load' }));
      const f = c.fact('attention');
      if (f && f.rawKey === 'attn_implementation') return no('attn_implementation sits inside a dict (model_init_kwargs); edit it by hand');
      return no('no from_pretrained(...) call to pass attn_implementation to');
    }
    case 'weights_dtype': {
      const name = TORCH_DTYPE[str(v)];
      if (!name || !hasCall('load')) return no('no from_pretrained(...) call to pass the dtype to');
      const kw = /\bdtype\s*=/.test(c.file.text) && !/\btorch_dtype\s*=/.test(c.file.text) ? 'dtype' : 'torch_dtype';
      if (!/^\s*import torch\b|^\s*import torch$/m.test(c.file.text)) return no('the file does not import torch, so torch.<dtype> cannot be written');
      return ok(op([kw], { raw: `torch.${name}` }, { call: 'load' }));
    }
    case 'method': {
      if (v === 'lora' || v === 'qlora') {
        if (!hasCall('lora')) return no('the file builds no LoraConfig; switching to LoRA needs new code (get_peft_model / peft_config)');
        if (v === 'qlora' && !hasCall('bnb')) return no('the file builds no BitsAndBytesConfig; QLoRA needs a 4-bit quantization_config in code');
        return v === 'qlora' ? ok(op(['load_in_4bit'], true, { call: 'bnb' }), op(['load_in_8bit'], false, { call: 'bnb', when: 'present' })) : ok();
      }
      return no(`switching the method to ${str(v)} needs code changes (the LoraConfig / get_peft_model calls)`);
    }
    case 'lora': {
      if (!hasCall('lora')) return no('the file builds no LoraConfig');
      const l = v as Lora;
      const ops = loraOps(l, { r: 'r', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'use_dora' },
        (t) => [op(['target_modules'], t === 'all-linear' ? 'all-linear' : [...t], { call: 'lora' })], { call: 'lora' });
      if (l.modules_to_save && l.modules_to_save.length > 0) ops.push(op(['modules_to_save'], [...l.modules_to_save], { call: 'lora' }));
      return ok(...ops);
    }
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!hasCall('bnb')) return no('the file builds no BitsAndBytesConfig');
      if (!q) return ok(op(['load_in_4bit'], false, { call: 'bnb', when: 'present' }), op(['load_in_8bit'], false, { call: 'bnb', when: 'present' }));
      if (q.bits === 8) return ok(op(['load_in_8bit'], true, { call: 'bnb' }), op(['load_in_4bit'], false, { call: 'bnb', when: 'present' }));
      const ops = [op(['load_in_4bit'], true, { call: 'bnb' }), op(['load_in_8bit'], false, { call: 'bnb', when: 'present' })];
      if (q.type === 'nf4' || q.type === 'fp4') ops.push(op(['bnb_4bit_quant_type'], q.type, { call: 'bnb' }));
      if (q.double_quant !== undefined) ops.push(op(['bnb_4bit_use_double_quant'], q.double_quant, { call: 'bnb' }));
      return ok(...ops);
    }
    default:
      return no(`a TrainingArguments script has no setting for ${ch.key}`);
  }
}

/**
 * Unsloth scripts: the model, 4/8-bit loading, the sequence length and checkpointing are keywords of
 * FastLanguageModel.from_pretrained / get_peft_model (unsloth/models/loader.py, llama.py), LoRA those of get_peft_model.
 * Undefined leaves the change to the TrainingArguments planner.
 */
function planUnsloth(c: PlanCtx, ch: SetupChange, hasCall: (k: PyCall | 'trl') => boolean): Planned | undefined {
  const v = ch.value;
  const peft = hasCall('unsloth-peft');
  const load = (kw: string, value: Val, extra: Partial<Op> = {}): Op => op([kw], value, { call: 'unsloth-load', ...extra });
  const gcCall: PyCall = peft ? 'unsloth-peft' : 'unsloth-load';
  const gc = (value: Val): Op => op(['use_gradient_checkpointing'], value, { call: gcCall });
  switch (ch.key) {
    case 'gradient_checkpointing': {
      if (v === 'selective') return no('Unsloth checkpoints whole layers');
      if (v === 'none') return ok(gc(false));
      const offload = c.changed('activation_offloading') ?? c.fact('activationOffloading')?.value ?? true;
      return ok(gc(offload === false ? true : 'unsloth'));
    }
    case 'activation_offloading':
      // "unsloth" checkpoints and offloads; True checkpoints only. Without checkpointing there is nothing to offload.
      if (c.changed('gradient_checkpointing') === 'none') return ok();
      return ok(gc(v ? 'unsloth' : true));
    case 'lora': {
      if (!peft) return undefined;
      const l = v as Lora;
      return ok(...loraOps(l, { r: 'r', alpha: 'lora_alpha', dropout: 'lora_dropout' },
        (t) => [op(['target_modules'], t === 'all-linear' ? 'all-linear' : [...t], { call: 'unsloth-peft' })], { call: 'unsloth-peft' }));
    }
    case 'quantization': {
      if (!hasCall('unsloth-load')) return undefined;
      const q = v as Quant | undefined;
      if (!q) return ok(load('load_in_4bit', false), load('load_in_8bit', false, { when: 'present' }));
      if (q.bits === 8) return ok(load('load_in_8bit', true), load('load_in_4bit', false));
      return ok(load('load_in_4bit', true), load('load_in_8bit', false, { when: 'present' }));
    }
    case 'method':
      if (!peft || !hasCall('unsloth-load') || (v !== 'lora' && v !== 'qlora')) return undefined;
      return v === 'qlora' ? ok(load('load_in_4bit', true), load('load_in_8bit', false, { when: 'present' })) : ok(load('load_in_4bit', false));
    case 'seq_len': {
      if (!hasCall('unsloth-load')) return undefined;
      // The model's max_seq_length, and the trainer's own length key when the file writes one.
      const own = c.file.facts.facts.find((f) => f.key === 'seqLen' && f.tool !== 'unsloth' && f.origin !== 'call-default');
      return ok(load('max_seq_length', Number(v)), ...(own ? [op([own.rawKey], Number(v), { call: 'train' })] : []));
    }
    case 'loss':
      return v === 'fused' ? ok() : no('Unsloth computes the loss with its fused cross-entropy unless UNSLOTH_RETURN_LOGITS=1 is set in the environment');
    case 'kernels':
      return no('Unsloth\'s kernels come with FastLanguageModel; running without them means loading the model with transformers');
    default:
      return undefined;
  }
}

/** Shell launch scripts (FORMATS.md §3, §2.3): launcher options and HF-style script flags. */
function planShell(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const hfScript = c.file.facts.tools.some((t) => t === 'hf-trainer' || t === 'trl' || t === 'llamafactory');
  const flag = (name: string, value: Val, extra: Partial<Op> = {}): Op => op([name], value, extra);
  // A flag the script already takes can be rewritten whatever the script is; a new flag only for HfArgumentParser scripts.
  const present = (raw: string): boolean => c.has(`--${raw}`) || c.has(raw);
  const needHf = (name: string): Planned | undefined => (present(name) || hfScript ? undefined
    : no(`the script's own flags are unknown, so \`--${name}\` is not added`));
  switch (ch.key) {
    case 'micro_batch_size': return needHf('per_device_train_batch_size') ?? ok(flag('per_device_train_batch_size', Number(v)));
    case 'eval_batch_size':
      return v === undefined ? needHf('eval_strategy') ?? ok(flag('eval_strategy', 'no'))
        : needHf('per_device_eval_batch_size') ?? ok(flag('per_device_eval_batch_size', Number(v)));
    case 'gradient_accumulation_steps': return needHf('gradient_accumulation_steps') ?? ok(flag('gradient_accumulation_steps', Number(v)));
    case 'mixed_precision': {
      const mp = c.fact('mixedPrecision');
      if (mp) return ok(flag(mp.rawKey.replace(/^-+/, ''), v === 'none' ? 'no' : str(v)));
      if (v === 'bf16') return needHf('bf16') ?? ok(flag('bf16', true), flag('fp16', false, { when: 'present' }));
      if (v === 'fp16') return needHf('fp16') ?? ok(flag('fp16', true), flag('bf16', false, { when: 'present' }));
      return ok(flag('bf16', false, { when: 'present' }), flag('fp16', false, { when: 'present' }));
    }
    case 'gradient_checkpointing': {
      if (v === 'selective') return no('no selective checkpointing flag');
      const f = c.fact('gradientCheckpointing');
      if (f && f.rawKey.replace(/^-+/, '') === 'disable_gradient_checkpointing') return ok(flag('disable_gradient_checkpointing', v !== 'full'));
      return needHf('gradient_checkpointing') ?? ok(flag('gradient_checkpointing', v === 'full'));
    }
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return !name ? no(`HF optim has no name for ${str(v)}`) : needHf('optim') ?? ok(flag('optim', name));
    }
    case 'seq_len': {
      const k = seqKey(c, c.file.facts.tools.includes('trl') ? 'max_length' : undefined);
      return k ? ok(flag(k, Number(v))) : no("the script's sequence-length flag is unknown");
    }
    case 'attention': {
      const f = c.fact('attention');
      const raw = f?.rawKey.replace(/^-+/, '');
      if (raw === 'attn_implementation') return ok(flag(raw, HF_ATTN[str(v)] ?? str(v)));
      if (raw === 'flash_attn' && /^(sdpa|fa2|fa3|disabled|auto)$/.test(f?.rawValue ?? '')) return ok(flag(raw, LF_ATTN[str(v)] ?? str(v)));
      if (raw && v === 'flash' && f?.value !== 'flash') return ok(flag(raw, true));
      return no('the script has no attention flag to change');
    }
    case 'loss':
      if (v !== 'fused') return no('no flag for this loss');
      return needHf('use_liger_kernel') ?? ok(flag(present('enable_liger_kernel') ? 'enable_liger_kernel' : 'use_liger_kernel', true));
    case 'zero_stage':
      return present('zero_stage') ? ok(flag('zero_stage', Number(v)))
        : no('the launch command has no --zero_stage flag; ZeRO is set in the DeepSpeed config');
    case 'offload_optimizer':
      return present('offload_optimizer_device') ? ok(flag('offload_optimizer_device', str(v))) : no('no offload flag in the launch command');
    case 'offload_params':
      return present('offload_param_device') ? ok(flag('offload_param_device', str(v))) : no('no offload flag in the launch command');
    case 'gpus_per_node': {
      const text = c.file.text;
      if (present('num_processes')) {
        const nodes = (c.changed('nodes') as number | undefined) ?? (typeof c.fact('nodes')?.value === 'number' ? (c.fact('nodes')!.value as number) : 1);
        return ok(flag('num_processes', Number(v) * nodes, { launcher: 'accelerate' }));
      }
      if (present('nproc_per_node')) return ok(flag('nproc_per_node', Number(v), { launcher: 'torchrun' }));
      if (present('num_gpus')) return ok(flag('num_gpus', Number(v), { launcher: 'deepspeed' }));
      if (/(^|[\s;&|(])(torchrun|python3? -m torch\.distributed\.(run|launch))\s/m.test(text))
        return ok(flag('nproc_per_node', Number(v), { launcher: 'torchrun' }));
      if (/(^|[\s;&|(])tune\s+run\s/m.test(text)) return ok(flag('nproc_per_node', Number(v), { launcher: 'tune' }));
      if (/(^|[\s;&|(])accelerate\s+launch\s/m.test(text))
        return ok(flag('num_processes', Number(v) * ((c.changed('nodes') as number | undefined) ?? 1), { launcher: 'accelerate' }));
      if (/(^|[\s;&|(])deepspeed\s+(?!-)\S/m.test(text)) return ok(flag('num_gpus', Number(v), { launcher: 'deepspeed' }));
      return no('no distributed launcher (torchrun, accelerate launch, deepspeed, tune run) to give the GPU count to');
    }
    case 'nodes':
      if (present('nnodes')) return ok(flag('nnodes', Number(v), { launcher: 'torchrun' }));
      if (present('num_machines')) return ok(flag('num_machines', Number(v), { launcher: 'accelerate' }));
      return Number(v) === 1 ? ok() : no('multi-node launch options are set by hand (hosts, rendezvous)');
    case 'lora': {
      const l = v as Lora;
      const ops: Op[] = [];
      for (const [k, x] of [['loraR', l.r], ['loraAlpha', l.alpha], ['loraDropout', l.dropout]] as const) {
        if (x === undefined) continue;
        const f = c.fact(k);
        if (!f) return no('the script does not take this LoRA setting as a flag');
        ops.push(flag(f.rawKey.replace(/^-+/, ''), x));
      }
      return ok(...ops);
    }
    case 'method':
      return c.fact('method')?.value === v ? ok() : no('switching the method needs other flags of the script; edit it by hand');
    default:
      return no(`no launch flag for ${ch.key}`);
  }
}

/** Accelerate YAML (FORMATS.md §4): mixed_precision, deepspeed_config.*, num_processes / num_machines, fsdp_config. */
function planAccelerate(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const dt = /^distributed_type:\s*['"]?(\w+)/m.exec(c.file.text)?.[1]?.toUpperCase();
  const deepspeed = (key: string, value: Val): Planned => {
    if (dt === 'DEEPSPEED') return ok(op(['deepspeed_config', key], value));
    if (dt === 'FSDP') return no('this Accelerate config uses FSDP, not DeepSpeed');
    if (/deepspeed_config_file/.test(c.file.text)) return no('the DeepSpeed settings live in deepspeed_config_file');
    return ok(op('distributed_type', 'DEEPSPEED'), op(['deepspeed_config', key], value));
  };
  switch (ch.key) {
    case 'mixed_precision': return ok(op('mixed_precision', ACCELERATE_MP[str(v)] ?? str(v)));
    case 'zero_stage': return deepspeed('zero_stage', Number(v));
    case 'offload_optimizer': return deepspeed('offload_optimizer_device', str(v));
    case 'offload_params': return deepspeed('offload_param_device', str(v));
    case 'gradient_accumulation_steps':
      return dt === 'DEEPSPEED' && c.fact('gradientAccumulationSteps') ? ok(op('deepspeed_config.gradient_accumulation_steps', Number(v)))
        : no('Accelerate takes the accumulation from the training script');
    case 'gpus_per_node': {
      const nodesFact = c.fact('nodes');
      const nodes = (c.changed('nodes') as number | undefined) ?? (typeof nodesFact?.value === 'number' ? nodesFact.value : 1);
      return ok(op('num_processes', Number(v) * nodes));
    }
    case 'nodes': return c.fact('nodes') || Number(v) !== 1 ? ok(op('num_machines', Number(v))) : ok();
    case 'fsdp': {
      if (dt !== 'FSDP') return no('switching Accelerate to FSDP needs a whole fsdp_config block; run `accelerate config`');
      const s = ACCELERATE_FSDP[str(v)];
      if (!s) return no(`no FSDP sharding strategy for ${str(v)}`);
      return ok(op('fsdp_config.fsdp_sharding_strategy', s));
    }
    default:
      return no(`an Accelerate config has no setting for ${ch.key}`);
  }
}

/** Keys shared by HF-argument YAML formats (LLaMA-Factory, TRL/alignment-handbook YAML): FORMATS.md §2, §6. */
function hfYamlCommon(c: PlanCtx, ch: SetupChange): Planned | undefined {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size': return ok(op(c.has('micro_batch_size') && !c.has('per_device_train_batch_size') ? 'micro_batch_size'
      : 'per_device_train_batch_size', Number(v)));
    case 'eval_batch_size': return v === undefined ? ok(op('eval_strategy', 'no')) : ok(op('per_device_eval_batch_size', Number(v)));
    case 'gradient_accumulation_steps': return ok(op('gradient_accumulation_steps', Number(v)));
    case 'mixed_precision':
      if (v === 'bf16') return ok(op('bf16', true), op('fp16', false, { when: 'present' }));
      if (v === 'fp16') return ok(op('fp16', true), op('bf16', false, { when: 'present' }), op('pure_bf16', false, { when: 'present' }));
      return ok(op('bf16', false), op('fp16', false, { when: 'present' }), op('pure_bf16', false, { when: 'present' }));
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return name ? ok(op('optim', name)) : no(`HF optim has no name for ${str(v)}`);
    }
    case 'compile': return ok(op('torch_compile', Boolean(v)));
    case 'fsdp': {
      const s = HF_FSDP[str(v)];
      return s === undefined ? no(`no fsdp option for ${str(v)}`) : ok(op('fsdp', s));
    }
    default: return undefined;
  }
}

/** LLaMA-Factory YAML (FORMATS.md §6). */
function planLlamaFactory(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const common = hfYamlCommon(c, ch);
  if (common) return common;
  switch (ch.key) {
    case 'seq_len': return ok(op('cutoff_len', Number(v)));
    case 'zero_stage': case 'offload_optimizer': case 'offload_params': return bundledZeroOp(c, 'llamafactory', 'LLaMA-Factory');
    case 'kbit_upcast':
      return v === 'none' ? ok(op('upcast_layernorm', false)) : v === 'norms' ? ok(op('upcast_layernorm', true)) : no('LLaMA-Factory upcasts only the norms');
    case 'gradient_checkpointing':
      // Checkpointing is on unless disable_gradient_checkpointing (model_utils/checkpointing.py:184).
      if (v === 'selective') return no('LLaMA-Factory has no selective checkpointing');
      return v === 'full' ? ok(op('disable_gradient_checkpointing', false, { when: 'present' })) : ok(op('disable_gradient_checkpointing', true));
    case 'attention': {
      const s = LF_ATTN[str(v)];
      return s ? ok(op('flash_attn', s)) : no(`no flash_attn value for ${str(v)}`);
    }
    case 'loss':
      if (v === 'fused') return ok(op('enable_liger_kernel', true));
      if (v === 'full') return ok(op('enable_liger_kernel', false, { when: 'present' }));
      return no('LLaMA-Factory has no chunked-loss switch');
    case 'method':
      if (v === 'lora' || v === 'full' || v === 'freeze')
        return ok(op('finetuning_type', str(v)), ...(v === 'lora' ? [] : [op('quantization_bit', null, { when: 'present' })]));
      if (v === 'qlora') return ok(op('finetuning_type', 'lora'), op('quantization_bit', 4));
      return no(`LLaMA-Factory has no method ${str(v)}`);
    case 'lora': {
      const l = v as Lora;
      const ops = loraOps(l, { r: 'lora_rank', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'use_dora' },
        (t) => [op('lora_target', t === 'all-linear' ? 'all' : t.join(','))]);
      if (l.modules_to_save && l.modules_to_save.length > 0) ops.push(op('additional_target', l.modules_to_save.join(',')));
      return ok(...ops);
    }
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!q) return ok(op('quantization_bit', null, { when: 'present' }));
      const ops = [op('quantization_bit', q.bits ?? 4)];
      if (q.type && q.type !== 'nf4' && q.type !== 'int8') return no(`LLaMA-Factory bnb quantization is nf4; ${q.type} is not written`);
      if (q.double_quant === false) ops.push(op('double_quantization', false));
      else ops.push(op('double_quantization', true, { when: 'present' }));
      return ok(...ops);
    }
    case 'weights_dtype':
      return no('LLaMA-Factory loads the model in the compute dtype (bf16/fp16 switches); pure_bf16 changes more than the weights');
    default:
      return no(`LLaMA-Factory has no setting for ${ch.key}`);
  }
}

/** TRL / alignment-handbook YAML: TrainingArguments + ModelConfig keys (FORMATS.md §2.4). */
function planHfYaml(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const common = hfYamlCommon(c, ch);
  if (common) return common;
  switch (ch.key) {
    case 'rollout': {
      const keys = rolloutKeys(c, v as Rollout);
      return typeof keys === 'string' ? no(keys) : ok(...keys.map(([k, x]) => op(k, x)));
    }
    case 'seq_len':
      if (c.fact('rollout') && c.fact('rollout')?.value !== 'online-dpo') return ok(op(...promptKey(c, Number(v))));
      return ok(op(seqKey(c, 'max_length') ?? 'max_length', Number(v)));
    case 'gradient_checkpointing':
      return v === 'selective' ? no('TrainingArguments has no selective checkpointing') : ok(op('gradient_checkpointing', v === 'full'));
    case 'attention': {
      const s = HF_ATTN[str(v)];
      if (!s) return no(`no attn_implementation for ${str(v)}`);
      return ok(op(c.has('model_init_kwargs.attn_implementation') && !c.has('attn_implementation') ? 'model_init_kwargs.attn_implementation'
        : 'attn_implementation', s));
    }
    case 'loss':
      if (v === 'fused') return ok(op('use_liger_kernel', true));
      if (v === 'full') return ok(op('use_liger_kernel', false, { when: 'present' }));
      return no('no chunked-loss switch');
    case 'activation_offloading': return ok(op('activation_offloading', Boolean(v)));
    case 'weights_dtype': {
      const d = TORCH_DTYPE[str(v)];
      const f = c.fact('weightsDtype');
      return d ? ok(op(f ? f.rawKey : 'dtype', d)) : no(`no dtype for ${str(v)}`);
    }
    case 'method':
      if (v === 'lora') return ok(op('use_peft', true));
      if (v === 'qlora') return ok(op('use_peft', true), op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' }));
      if (v === 'full') return ok(op('use_peft', false), op('load_in_4bit', false, { when: 'present' }));
      return no(`no method ${str(v)} in TRL configs`);
    case 'lora': {
      const l = v as Lora;
      const ops = loraOps(l, { r: 'lora_r', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'use_dora' },
        (t) => [op('lora_target_modules', t === 'all-linear' ? 'all-linear' : [...t])]);
      if (l.modules_to_save && l.modules_to_save.length > 0) ops.push(op('lora_modules_to_save', [...l.modules_to_save]));
      return ok(...ops);
    }
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!q) return ok(op('load_in_4bit', false, { when: 'present' }), op('load_in_8bit', false, { when: 'present' }));
      if (q.bits === 8) return ok(op('load_in_8bit', true), op('load_in_4bit', false, { when: 'present' }));
      const ops = [op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' })];
      if (q.type === 'nf4' || q.type === 'fp4') ops.push(op('bnb_4bit_quant_type', q.type));
      if (q.double_quant !== undefined) ops.push(op('use_bnb_nested_quant', q.double_quant));
      return ok(...ops);
    }
    default:
      return no(`a TRL config has no setting for ${ch.key}`);
  }
}

/**
 * ZeRO settings for a YAML config whose tool ships DeepSpeed configs (Axolotl deepspeed_configs/, LLaMA-Factory
 * examples/deepspeed/): point `deepspeed` at the shipped file with the wanted stage and offload. The current settings
 * come from the file the config names (a shipped one), or none; the advice's changes override them.
 */
function bundledZeroOp(c: PlanCtx, tool: 'axolotl' | 'llamafactory', name: string): Planned {
  // Under FSDP the offload is FSDP's (parameters, gradients and the optimizer step together).
  const fsdp = c.changed('fsdp') ?? c.fact('fsdp')?.value;
  if (fsdp !== undefined && fsdp !== 'none' && c.changed('zero_stage') === undefined) return fsdpOffloadOp(c, tool);
  const named = c.fact('deepspeedConfig');
  const path = named && typeof named.value === 'string' ? named.value : undefined;
  const current = path ? findBundledDeepspeed(path, c.file.format) : undefined;
  if (path && !current) return no(`deepspeed names ${path}, not one of the DeepSpeed configs ${name} ships; change that file`);
  const stage = Number(c.changed('zero_stage') ?? current?.stage ?? 0);
  const offOpt = str(c.changed('offload_optimizer') ?? current?.offloadOptimizer ?? 'none');
  const offParams = str(c.changed('offload_params') ?? current?.offloadParams ?? 'none');
  if (stage === 0 && offOpt === 'none' && offParams === 'none') return ok(op('deepspeed', null, { when: 'present' }));
  const mp = c.changed('mixed_precision') ?? c.fact('bf16')?.value;
  const b = bundledDeepspeedFor(tool, stage, offOpt, offParams, mp === true || mp === 'bf16');
  if (!b) return no(`${name} ships no DeepSpeed config with ZeRO-${stage}${offOpt !== 'none' ? `, the optimizer offloaded to ${offOpt}` : ''}${offParams !== 'none' ? `, the parameters offloaded to ${offParams}` : ''}`);
  return ok(op('deepspeed', b.path));
}

/** FSDP CPU offload in an Axolotl fsdp_config (offload_params moves parameters, gradients and the optimizer step). */
function fsdpOffloadOp(c: PlanCtx, tool: 'axolotl' | 'llamafactory'): Planned {
  // Either key asks for FSDP's one offload (CPUOffload(offload_params=True)); it goes to the CPU only.
  const wanted = [c.changed('offload_params'), c.changed('offload_optimizer')].filter((x) => x !== undefined).map(str);
  if (wanted.some((x) => x !== 'cpu' && x !== 'none')) return no('FSDP offloads to the CPU only');
  const on = wanted.includes('cpu');
  if (tool === 'llamafactory') return no('LLaMA-Factory runs FSDP from an Accelerate config: set fsdp_offload_params there');
  if (c.fact('fsdp')?.rawKey === 'fsdp') return no('the fsdp: option list is deprecated; add offload_params to an fsdp_config block by hand');
  const key = c.has('fsdp_config.fsdp_offload_params') ? 'fsdp_config.fsdp_offload_params' : 'fsdp_config.offload_params';
  return on ? ok(op(key, true)) : ok(op(key, false, { when: 'present' }));
}

/** Axolotl YAML (FORMATS.md §5). */
function planAxolotl(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size': return ok(op('micro_batch_size', Number(v)));
    case 'eval_batch_size': return v === undefined ? ok(op('eval_strategy', 'no')) : ok(op('eval_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      if (c.has('batch_size') && !c.has('gradient_accumulation_steps'))
        return no('the accumulation is derived from batch_size here; change batch_size by hand');
      return ok(op('gradient_accumulation_steps', Number(v)));
    case 'seq_len': return ok(op('sequence_len', Number(v)));
    case 'zero_stage': case 'offload_optimizer': case 'offload_params': return bundledZeroOp(c, 'axolotl', 'Axolotl');
    case 'mixed_precision':
      if (v === 'bf16') return ok(op('bf16', true), op('fp16', false, { when: 'present' }));
      if (v === 'fp16') return ok(op('fp16', true), op('bf16', false, { when: 'present' }));
      return ok(op('bf16', false), op('fp16', false, { when: 'present' }));
    case 'gradient_checkpointing':
      return v === 'selective' ? no('Axolotl has no selective checkpointing') : ok(op('gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return name ? ok(op('optimizer', name)) : no(`Axolotl has no optimizer name for ${str(v)}`);
    }
    case 'attention': {
      // Follow the file: attn_implementation when it uses it, the deprecated switches when it uses those.
      const flags = Object.values(AXOLOTL_ATTN_FLAGS).filter((k) => c.has(k));
      if (c.has('attn_implementation') || flags.length === 0) {
        const s = HF_ATTN[str(v)];
        return s ? ok(op('attn_implementation', s), ...flags.map((k) => op(k, false, { when: 'present' }))) : no(`no attn_implementation for ${str(v)}`);
      }
      const on = AXOLOTL_ATTN_FLAGS[str(v)];
      if (!on) return no(`no attention switch for ${str(v)}`);
      return ok(op(on, true), ...Object.values(AXOLOTL_ATTN_FLAGS).filter((k) => k !== on).map((k) => op(k, false, { when: 'present' })));
    }
    case 'loss':
      // The Liger plugin with its fused linear cross-entropy (axolotl integrations/liger).
      if (v === 'fused') return ok(op('plugins', 'axolotl.integrations.liger.LigerPlugin', { append: true }), op('liger_fused_linear_cross_entropy', true));
      if (v === 'chunked') return ok(op('chunked_cross_entropy', true));
      return ok(op('liger_fused_linear_cross_entropy', false, { when: 'present' }), op('cut_cross_entropy', false, { when: 'present' }),
        op('chunked_cross_entropy', false, { when: 'present' }));
    case 'compile': return ok(op('torch_compile', Boolean(v)));
    case 'activation_offloading': return ok(op('activation_offloading', Boolean(v)));
    case 'tiled_mlp':
      if (v === false) return ok(op('tiled_mlp', false, { when: 'present' }));
      return typeof v === 'number' ? ok(op('tiled_mlp', true), op('tiled_mlp_num_shards', v)) : ok(op('tiled_mlp', true));
    case 'method':
      if (v === 'lora') return ok(op('adapter', 'lora'), op('load_in_4bit', false, { when: 'present' }));
      if (v === 'qlora') return ok(op('adapter', 'qlora'), op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' }));
      if (v === 'full') return ok(op('adapter', null, { when: 'present' }), op('load_in_4bit', false, { when: 'present' }),
        op('load_in_8bit', false, { when: 'present' }));
      return no(`Axolotl has no method ${str(v)}`);
    case 'lora': {
      const l = v as Lora;
      const ops = loraOps(l, { r: 'lora_r', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'peft_use_dora' }, (t) =>
        t === 'all-linear' ? [op('lora_target_linear', true)] : [op('lora_target_modules', [...t]), op('lora_target_linear', false, { when: 'present' })]);
      if (l.modules_to_save && l.modules_to_save.length > 0) ops.push(op('lora_modules_to_save', [...l.modules_to_save]));
      return ok(...ops);
    }
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!q) return ok(op('load_in_4bit', false, { when: 'present' }), op('load_in_8bit', false, { when: 'present' }));
      if (q.type && q.type !== 'nf4' && q.type !== 'int8') return no(`Axolotl's 4-bit loading is nf4; ${q.type} needs bnb_config_kwargs`);
      const experts = q.experts ? [op('quantize_moe_experts', true)] : [op('quantize_moe_experts', false, { when: 'present' })];
      return q.bits === 8 ? ok(op('load_in_8bit', true), op('load_in_4bit', false, { when: 'present' }), ...experts)
        : ok(op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' }), ...experts);
    }
    case 'weights_dtype': {
      const k = { bf16: 'bfloat16', fp16: 'float16', fp32: 'float32' }[str(v)];
      return k ? ok(op(k, true), ...['bfloat16', 'float16', 'float32'].filter((x) => x !== k).map((x) => op(x, false, { when: 'present' })))
        : no(`no dtype for ${str(v)}`);
    }
    default:
      return no(`Axolotl has no setting for ${ch.key}`);
  }
}

/** torchtune YAML recipes (FORMATS.md §7). */
function planTorchtune(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const builder = /^\s*_component_:\s*\S*\.(\w+)\s*$/m.exec(c.file.text.split(/^model:/m)[1] ?? '')?.[1] ?? '';
  switch (ch.key) {
    case 'micro_batch_size': return ok(op('batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      if (Number(v) > 1 && /^optimizer_in_bwd:\s*(True|true)/m.test(c.file.text)) return no('optimizer_in_bwd needs gradient_accumulation_steps 1');
      return ok(op('gradient_accumulation_steps', Number(v)));
    case 'seq_len': return ok(op('tokenizer.max_seq_len', Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective') return ok(op('enable_activation_checkpointing', true), op('ac_mode', 'selective'));
      return ok(op('enable_activation_checkpointing', v === 'full'), ...(v === 'full' ? [op('ac_mode', 'full', { when: 'present' })] : []));
    case 'weights_dtype':
      if (v === 'fp16') return no('the torchtune recipes reject fp16');
      return ok(op('dtype', str(v)));
    case 'mixed_precision': {
      // torchtune has no autocast: `dtype` is pure low precision, so bf16 is expressible only together with bf16 weights.
      if (c.changed('weights_dtype') === v || (v === 'none' && c.changed('weights_dtype') !== undefined)) return ok();
      return no('torchtune has no autocast; its `dtype` makes the weights themselves bf16 (weights_dtype)');
    }
    case 'optimizer': {
      const comp = TORCHTUNE_OPTIM[str(v)];
      if (!comp) return no(`no torchtune optimizer component for ${str(v)}`);
      if (!comp.startsWith('torch.') && /^\s+fused:/m.test(c.file.text))
        return no('the optimizer block passes `fused`, which bitsandbytes optimizers do not take');
      return ok(op('optimizer._component_', comp));
    }
    case 'loss':
      if (v === 'fused') return ok(op('loss._component_', 'torchtune.modules.loss.LinearCrossEntropyLoss'));
      if (v === 'chunked') return ok(op('loss._component_', 'torchtune.modules.loss.CEWithChunkedOutputLoss'));
      return ok(op('loss._component_', 'torch.nn.CrossEntropyLoss'));
    case 'compile': return ok(op('compile', Boolean(v)));
    case 'activation_offloading': return ok(op('enable_activation_offloading', Boolean(v)));
    case 'offload_optimizer':
    case 'offload_params': {
      // fsdp_cpu_offload moves parameters, gradients and optimizer state together.
      const other = ch.key === 'offload_optimizer' ? 'offload_params' : 'offload_optimizer';
      const both = c.changed(other);
      if (v === 'cpu' && both === 'cpu') return ok(op('fsdp_cpu_offload', true));
      if (v === 'none' && (both === 'none' || both === undefined) && c.fact('fsdpOffload')) return ok(op('fsdp_cpu_offload', false));
      return no('torchtune offloads parameters and optimizer state together (fsdp_cpu_offload); one of them alone cannot be written');
    }
    case 'method':
      if ((v === 'lora' && /^lora_/.test(builder)) || (v === 'qlora' && /^qlora_/.test(builder)) || (v === 'full' && !/^q?lora_/.test(builder))) return ok();
      return no('switching the method in torchtune swaps the model builder component (and the recipe); edit it by hand');
    case 'lora': {
      if (!/^q?lora_/.test(builder)) return no('the model builder is not a lora_ builder');
      const l = v as Lora;
      const attn = ['q_proj', 'k_proj', 'v_proj', 'output_proj'];
      const ops = loraOps(l, { r: 'model.lora_rank', alpha: 'model.lora_alpha', dropout: 'model.lora_dropout', dora: 'model.use_dora' }, (t) => {
        if (t === 'all-linear') return [op('model.lora_attn_modules', attn), op('model.apply_lora_to_mlp', true)];
        const names = t.map((x) => (x === 'o_proj' ? 'output_proj' : x));
        return names.every((x) => attn.includes(x)) ? [op('model.lora_attn_modules', names), op('model.apply_lora_to_mlp', false, { when: 'present' })] : [];
      });
      return ok(...ops);
    }
    default:
      return no(`torchtune has no setting for ${ch.key}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Writing operations into a file, and diffing the result into edits.

function writeOp(file: FixFile, text: string, o: Op): Written {
  switch (file.format) {
    case 'deepspeed-json': return jsonSet(text, o);
    case 'scenario':
      if (/\.json$/i.test(file.file)) return jsonSet(text, o);
      return yamlWriteDeep(text, o);
    case 'hf-python': return pySet(text, o);
    case 'shell': return shellSet(file, text, o);
    case 'accelerate-yaml': case 'axolotl-yaml': case 'hf-yaml': return yamlSet(text, o, false);
    case 'llamafactory-yaml': case 'torchtune-yaml': return yamlSet(text, o, true);
  }
}

/** Scenario objects (lora, quantization) are written key by key, so that comments and order inside them survive. */
function yamlWriteDeep(text: string, o: Op): Written {
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

function syntaxErrors(file: FixFile, text: string): number {
  if (file.format === 'scenario') return analyzeScenario(text, file.file).problems.filter((p) => p.code === 'syntax-error').length;
  return analyzeAs(file.format, text).problems.filter((p) => p.code === 'syntax-error').length;
}

/** Line hunks between two texts (common prefix/suffix, then an LCS over the middle lines), trimmed to characters. */
function diffEdits(file: string, a: string, b: string): EditData[] {
  if (a === b) return [];
  const split = (s: string): string[] => s.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const la = split(a);
  const lb = split(b);
  let p = 0;
  while (p < la.length && p < lb.length && la[p] === lb[p]) p++;
  let s = 0;
  while (s < la.length - p && s < lb.length - p && la[la.length - 1 - s] === lb[lb.length - 1 - s]) s++;
  const ma = la.slice(p, la.length - s);
  const mb = lb.slice(p, lb.length - s);
  const offA: number[] = [0];
  for (const l of la) offA.push(offA[offA.length - 1]! + l.length);
  const hunks: { a0: number; a1: number; b0: number; b1: number }[] = [];
  if (ma.length * mb.length > 4_000_000) {
    hunks.push({ a0: p, a1: la.length - s, b0: p, b1: lb.length - s });
  } else {
    const n = ma.length;
    const m = mb.length;
    const dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i]![j] = ma[i] === mb[j] ? dp[i + 1]![j + 1]! + 1
      : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
    let i = 0;
    let j = 0;
    let open: { a0: number; b0: number } | undefined;
    const close = (): void => {
      if (open) hunks.push({ a0: p + open.a0, a1: p + i, b0: p + open.b0, b1: p + j });
      open = undefined;
    };
    while (i < n || j < m) {
      if (i < n && j < m && ma[i] === mb[j]) {
        close();
        i++;
        j++;
      } else {
        open ??= { a0: i, b0: j };
        if (j < m && (i >= n || dp[i]![j + 1]! >= dp[i + 1]![j]!)) j++;
        else i++;
      }
    }
    close();
  }
  return hunks.map((h) => {
    const start = offA[h.a0]!;
    const end = offA[h.a1]!;
    const oldText = la.slice(h.a0, h.a1).join('');
    const newText = lb.slice(h.b0, h.b1).join('');
    let x = 0;
    while (x < oldText.length && x < newText.length && oldText[x] === newText[x]) x++;
    let y = 0;
    while (y < oldText.length - x && y < newText.length - x && oldText[oldText.length - 1 - y] === newText[newText.length - 1 - y]) y++;
    return { file, start: start + x, end: end - y, newText: newText.slice(x, newText.length - y) };
  });
}

/** Applies edits (offsets into the original text) to a text; used by callers and tests. */
export function applyEditData(text: string, edits: readonly EditData[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start || b.end - a.end)) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Choosing files and putting it together.

function setsKey(file: FixFile, key: string): boolean {
  const rel = RELATED[key];
  if (!rel) return false;
  return file.facts.facts.some((f) => rel.includes(f.key) && f.origin !== 'call-default'
    // "auto" is filled from the trainer's arguments: the file follows the trainer, it does not set the value.
    && !(isUnknown(f.value) && /^auto/.test(f.value.unknown)));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The operations (per file) for one change: every file that sets the key, else the owner, else the primary file. */
function planChange(ch: SetupChange, changes: readonly SetupChange[], files: readonly FixFile[],
  primaryFile: string): Map<FixFile, readonly Op[]> | { reason: string } {
  const out = new Map<FixFile, readonly Op[]>();
  if (DERIVED.has(ch.key)) return out;
  const scenario = files.find((f) => f.format === 'scenario' && f.file === primaryFile);
  if (scenario) {
    out.set(scenario, [op([ch.key], ch.value as Val)]);
    return out;
  }
  // LoRA and QLoRA load the base model in the training dtype (resolve-facts applies the same rule), so a weights
  // dtype that comes with a method change is written only where a file can say it.
  const implied = ch.key === 'weights_dtype' && changes.some((c) => c.key === 'method' && (c.value === 'lora' || c.value === 'qlora'));
  const setters = files.filter((f) => setsKey(f, ch.key));
  const reasons: string[] = [];
  if (setters.length > 0) {
    for (const f of setters) {
      const p = plan(f, ch, changes);
      if (failed(p)) {
        if (implied) return new Map();
        return { reason: `${f.file} sets ${ch.key}, but ${p.reason}` };
      }
      out.set(f, p.ops);
    }
    return out;
  }
  if (ABSENT_MEANS[ch.key] !== undefined && sameValue(ABSENT_MEANS[ch.key], ch.value)) return out;
  const owners = OWNERS[ch.key] ?? TRAINER_FORMATS;
  const ordered = [
    ...owners.flatMap((fmt) => files.filter((f) => f.format === fmt)),
    ...files.filter((f) => f.file === primaryFile),
  ];
  const tried = new Set<FixFile>();
  for (const f of ordered) {
    if (tried.has(f)) continue;
    tried.add(f);
    const p = plan(f, ch, changes);
    if (!failed(p)) {
      out.set(f, p.ops);
      return out;
    }
    reasons.push(`${f.file}: ${p.reason}`);
  }
  if (implied) return out;
  return { reason: reasons.length ? reasons.join('; ') : `no file can express ${ch.key}` };
}

/** Edits that apply a list of setup changes (scenario-key terms) to the user's own files, in each file's format and style. */
export function editsForChanges(changes: readonly SetupChange[], files: readonly FixFile[], primaryFile: string): FixPlan {
  const unsupported: { key: string; reason: string }[] = [];
  const perFile = new Map<FixFile, { key: string; op: Op }[]>();
  for (const ch of changes) {
    const r = planChange(ch, changes, files, primaryFile);
    if ('reason' in r && typeof r.reason === 'string') {
      unsupported.push({ key: ch.key, reason: r.reason });
      continue;
    }
    for (const [f, ops] of r as Map<FixFile, readonly Op[]>) {
      const list = perFile.get(f) ?? [];
      for (const o of ops) list.push({ key: ch.key, op: o });
      perFile.set(f, list);
    }
  }
  if (unsupported.length > 0) return { edits: [], unsupported };
  const edits: EditData[] = [];
  for (const [f, ops] of perFile) {
    let text = f.text;
    for (const { key, op: o } of ops) {
      const w = writeOp(f, text, o);
      if (failed(w)) {
        unsupported.push({ key, reason: `${f.file}: ${w.reason}` });
        break;
      }
      text = w.text;
    }
    if (text !== f.text && syntaxErrors(f, text) > syntaxErrors(f, f.text)) {
      unsupported.push({ key: ops[0]?.key ?? '', reason: `${f.file}: the edit would break the file's syntax` });
    }
    edits.push(...diffEdits(f.file, f.text, text));
  }
  if (unsupported.length > 0) return { edits: [], unsupported };
  return { edits, unsupported: [] };
}

/** Canonical keys that have a setup-key counterpart, for setKey. */
const CANONICAL_TO_SETUP: Partial<Record<CanonicalKey, string>> = {
  microBatchSize: 'micro_batch_size', gradientAccumulationSteps: 'gradient_accumulation_steps', seqLen: 'seq_len',
  gradientCheckpointing: 'gradient_checkpointing', weightsDtype: 'weights_dtype', mixedPrecision: 'mixed_precision', optimizer: 'optimizer',
  attention: 'attention', loss: 'loss', compile: 'compile', activationOffloading: 'activation_offloading', zeroStage: 'zero_stage',
  offloadOptimizer: 'offload_optimizer', offloadParams: 'offload_params', fsdp: 'fsdp', method: 'method', gpusPerNode: 'gpus_per_node', nodes: 'nodes',
};

/** One setting in one file: replace the value where the key is written, else insert the key where the format puts it. */
export function setKey(file: FixFile, key: CanonicalKey, value: FactValue): EditData[] | undefined {
  let ch: SetupChange | undefined;
  const setup = CANONICAL_TO_SETUP[key];
  if (setup) ch = { key: setup as SetupChange['key'], value };
  else if (key === 'bf16' || key === 'fp16') ch = { key: 'mixed_precision', value: value === true ? key : 'none' };
  else if (key === 'loraR' || key === 'loraAlpha' || key === 'loraDropout') {
    const field = key === 'loraR' ? 'r' : key === 'loraAlpha' ? 'alpha' : 'dropout';
    ch = { key: 'lora', value: { [field]: value } };
  }
  if (!ch) return undefined;
  const plan = editsForChanges([ch], [file], file.file);
  return plan.unsupported.length > 0 ? undefined : [...plan.edits];
}
