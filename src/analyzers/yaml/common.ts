// Shared machinery of the YAML analyzers (Accelerate, Axolotl, LLaMA-Factory, torchtune, HF/TRL): one eemeli/yaml
// parse with exact ranges, mapping walks that follow anchors, aliases, merge keys and OmegaConf `${...}`
// interpolation, lenient value readers (YAML 1.1 booleans, numbers written as strings) and fact/problem recording.
// Pure: no I/O, no node:* imports; nothing here throws on user text.
import { Document, LineCounter, YAMLMap, isAlias, isMap, isPair, isScalar, isSeq, type Node, type YAMLError } from 'yaml';
import { parseYaml } from '../yaml-parse';
import { about, bySubject, evaluationOn, galoreOf, galoreRankOf, msg } from '../facts';
import type { CanonicalKey, ConfigFacts, Fact, FactValue, Format, Message, ParseProblem, ProblemCode, Reference, Span, SubjectMessage, Tool,
  Unknown } from '../facts';

/** One `key: value` of a mapping, with the value resolved through aliases and interpolation. */
export interface Entry {
  readonly key: string;
  /** Dotted path from the document root (`fsdp_config.fsdp_offload_params`). */
  readonly path: string;
  readonly keySpan: Span;
  /** The value after alias and interpolation resolution; null for `key:` with nothing after it. */
  readonly node: Node | null;
  /** Where the value, the alias (`*a`) or the interpolation (`${x}`) is written. */
  readonly valueSpan: Span;
  /** Where the resolved value is defined, when that differs from valueSpan. */
  readonly originSpan?: Span;
  /** Why an interpolation could not be resolved statically. */
  readonly unresolved?: string;
}

/** A value as the tools read it, after YAML 1.1 / 1.2 differences are smoothed out. */
export type View =
  | { readonly t: 'absent' }
  | { readonly t: 'unknown'; readonly reason: string }
  | { readonly t: 'str'; readonly v: string; readonly plain: boolean }
  | { readonly t: 'num'; readonly v: number }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'seq'; readonly items: readonly View[] }
  | { readonly t: 'map'; readonly node: YAMLMap };

/** A value the tool would reject; recorded as an 'invalid-value' problem instead of a fact. */
export class Invalid {
  /** `why` is about the key path (its `{0}`), filled in when the problem is recorded. */
  constructor(readonly why: SubjectMessage, readonly severity: 'error' | 'warning' = 'error') {}
}

export type Converted = FactValue | Unknown | Invalid | undefined;
export type Conv = (v: View) => Converted;

export interface CtxOptions {
  readonly format: Format;
  readonly tool: Tool;
  /** OmegaConf loaders (LLaMA-Factory, torchtune) reject duplicate keys and resolve `${...}`; PyYAML keeps the last key. */
  readonly omegaconf: boolean;
}

const MAX_ALIAS_DEPTH = 16;

/**
 * Flow collections nested deeper than this are refused before parsing: eemeli/yaml 2.9 aborts the whole process
 * (a V8 "RegExpCompiler allocation failed" crash, not a catchable error) after a few parses of ~1000-deep `[[[`.
 * Real configs nest a handful of levels; brackets inside quoted strings are counted too, which only errs on the
 * safe side.
 */
export const MAX_FLOW_DEPTH = 256;

/** The deepest unclosed `[` / `{` nesting of a text (a linear scan, quotes not excluded). */
export function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) {
      depth++;
      if (depth > max) max = depth;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return max;
}

// ---------------------------------------------------------------------------------------------------------------
// Top-level block cache. The editor re-analyzes the whole file on every keystroke and eemeli/yaml has no
// incremental parser, so a block-style top-level mapping is cut into blocks (a line with a key at column 0 and
// everything up to the next such line; the comments and blank lines in between stay with the block above, where a
// full parse also puts them in the ranges) and each block is parsed alone and cached by its text; an edit re-parses
// only the block it touches. A cached block found at another offset has its node ranges shifted in place. The
// blocks' pairs are put into one root map whose nodes, ranges (all three ends) and (empty) errors equal what the full
// parse gives. Blocks are joined where the end of one depends on the next: after an empty value (`key:`), whose
// range[2] reaches over the following comments, and after indented text that follows a column-0 comment (eemeli/yaml
// may run it on into the next line as a multi-line key). Anything the scanner cannot vouch for falls back to one
// full parse:
//   - document markers (`---`, `...`), directives (`%`), explicit keys (`? `, `: ` at column 0), top-level flow
//     collections, block scalars, sequences, tags or any other text before the first key;
//   - tabs, a byte-order mark, a lone CR, anchors, aliases and merge keys (their resolution crosses blocks);
//   - block scalars with keep chomping (`|+`, `>+`: trailing blank lines belong to the value);
//   - any block that does not parse cleanly into a block mapping (errors point at cross-block constructs such as
//     an unclosed quote or bracket, so a file with syntax errors is always read whole).
// Cached nodes are shared between analyses: they are only valid until the next YamlCtx is built, which holds
// because every analyzer builds its context, reads it and returns plain data synchronously.
// ---------------------------------------------------------------------------------------------------------------

const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: false, strict: false } as const;

interface CachedBlock {
  readonly doc: Document.Parsed;
  readonly map: YAMLMap.Parsed;
  /** The offset in the file that the node ranges currently describe. */
  offset: number;
  /** The parse (generation) that last placed this block, to catch one block text used twice in a file. */
  generation: number;
}

const BLOCK_CACHE_MAX = 512;
const blockCache = new Map<string, CachedBlock>();
let blockCacheEnabled = true;
let generation = 0;

/** Test hook: switches the block path off (every file is parsed whole) or on again; the cache is kept. */
export function setYamlBlockCache(enabled: boolean): void {
  blockCacheEnabled = enabled;
}

/** Test hook: empties the block cache. */
export function clearYamlBlockCache(): void {
  blockCache.clear();
}

/** Anchors (`&a`) and aliases (`*a`) where a node may start; over-matches inside strings and comments, which is safe. */
const ANCHOR_OR_ALIAS = /(?:^|[\s[\]{},])[&*][^\s[\]{},]/;
/** A block scalar header with keep chomping (`|+`, `>2+`, `|+2`). */
const KEEP_CHOMP = /[|>][1-9]?\+/;

/**
 * The offsets where the top-level blocks start (the first is 0), or undefined when the text must be parsed whole.
 * A block starts at a line with a key at column 0 (`name:` followed by a space or the line end).
 */
export function topLevelBlocks(text: string): number[] | undefined {
  if (text.length === 0 || text.includes('\t') || text.includes('\uFEFF') || text.includes('<<') || /\r(?!\n)/.test(text) || ANCHOR_OR_ALIAS.test(text)
    || KEEP_CHOMP.test(text)) return undefined;
  const starts: number[] = [];
  let afterComment = false; // a column-0 comment since the last line of content
  let seenKey = false;
  let joinNext = false;
  for (let pos = 0; pos < text.length;) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const c = text.charCodeAt(pos);
    const lineEnd = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    if (lineEnd === pos) {
      // A blank line changes nothing.
    } else if (c === 35 /* # */) {
      afterComment = true;
    } else if (c === 32 /* space */) {
      if (!seenKey) return undefined;
      // Indented text after a column-0 comment may run on into the next column-0 line in eemeli/yaml (a multi-line
      // implicit key, reported as an error): the next key line then stays in this block.
      if (afterComment) joinNext = true;
      afterComment = false;
    } else {
      const line = text.slice(pos, lineEnd);
      if (/^(?:---|\.\.\.)(?:\s|$)|^[%{[|>!@`]|^[?:](?:\s|$)/.test(line)) return undefined;
      if (/^[^\s#-][^:]*:(?:\s|$)/.test(line)) {
        if (joinNext) joinNext = false;
        else starts.push(starts.length === 0 ? 0 : pos);
        seenKey = true;
      } else if (!seenKey) {
        return undefined;
      }
      afterComment = false;
    }
    pos = nl + 1;
  }
  return starts.length > 0 ? starts : undefined;
}

/** Moves every node range of a parsed block by delta (fresh arrays: eemeli may share one range between nodes). */
function shiftNode(node: unknown, delta: number, depth: number): void {
  if (!node || typeof node !== 'object' || depth > 10_000) return;
  if (isPair(node)) {
    shiftNode(node.key, delta, depth + 1);
    shiftNode(node.value, delta, depth + 1);
    return;
  }
  const n = node as Node;
  const r = n.range;
  if (r) n.range = [r[0] + delta, r[1] + delta, r[2] + delta];
  if (isMap(n) || isSeq(n)) for (const item of n.items as unknown[]) shiftNode(item, delta, depth + 1);
}

function shiftErrors(errors: YAMLError[], delta: number): void {
  for (const e of errors) e.pos = [e.pos[0] + delta, e.pos[1] + delta];
}

/** One block at its offset in the file: from the cache (shifted when it moved) or freshly parsed and cached. */
function placeBlock(blockText: string, offset: number): CachedBlock | undefined {
  let cached = blockCache.get(blockText);
  if (cached && cached.generation === generation) cached = undefined; // the same text twice in one file: parse the copy alone
  else if (cached) {
    const delta = offset - cached.offset;
    if (delta !== 0) {
      shiftNode(cached.map, delta, 0);
      const dr = cached.doc.range;
      cached.doc.range = [dr[0] + delta, dr[1] + delta, dr[2] + delta];
      shiftErrors(cached.doc.warnings, delta);
      cached.offset = offset;
    }
    cached.generation = generation;
    return cached;
  }
  const doc = parseYaml(blockText, PARSE_OPTIONS);
  const map = doc.contents;
  if (doc.errors.length > 0 || !isMap(map) || map.flow || map.items.length === 0) return undefined;
  const block: CachedBlock = { doc, map, offset: 0, generation };
  if (offset !== 0) {
    shiftNode(map, offset, 0);
    doc.range = [doc.range[0] + offset, doc.range[1] + offset, doc.range[2] + offset];
    shiftErrors(doc.warnings, offset);
    block.offset = offset;
  }
  if (!cached) {
    if (blockCache.size >= BLOCK_CACHE_MAX) blockCache.clear();
    blockCache.set(blockText, block);
  }
  return block;
}

/** Whether the last node written in a block collection is an empty value (`key:` or `-` with nothing after it). */
function endsEmpty(node: unknown, depth: number): boolean {
  if (depth > 10_000) return true;
  if (!node) return true;
  if (isMap(node) || isSeq(node)) {
    if (node.flow) return false;
    const last: unknown = node.items[node.items.length - 1];
    if (last === undefined) return true;
    return endsEmpty(isPair(last) ? last.value : last, depth + 1);
  }
  const r = (node as Node).range;
  return !r || r[0] === r[1];
}

/** Whether the last content line before offset `to` ends with an empty value (`key:`, `-`); a guess, checked by endsEmpty. */
function looksOpen(text: string, to: number): boolean {
  let end = to; // a line start, right after a newline
  while (end > 0) {
    const nl = end - 1;
    const start = nl > 0 ? text.lastIndexOf('\n', nl - 1) + 1 : 0;
    const line = text.slice(start, nl).trim();
    end = start;
    if (line === '' || line.startsWith('#')) continue;
    return line.endsWith(':') || line === '-' || line.endsWith(' -');
  }
  return false;
}

/**
 * The document of a block-style file assembled from its cached top-level blocks, with the line starts recorded in
 * lines; undefined (and lines untouched) when the text has to be parsed whole.
 */
function parseByBlocks(text: string, lines: LineCounter): Document.Parsed | undefined {
  const starts = topLevelBlocks(text);
  if (!starts) return undefined;
  generation++;
  const blocks: CachedBlock[] = [];
  for (let i = 0; i < starts.length;) {
    const from = starts[i] ?? 0;
    let j = i + 1;
    while (j < starts.length && looksOpen(text, starts[j] ?? 0)) j++; // saves parsing the parts of a joined block
    for (;;) {
      const to = starts[j] ?? text.length;
      const block = placeBlock(text.slice(from, to), from);
      if (!block) return undefined;
      // Where an empty value (`key:` with nothing after it) ends, range[2], depends on the comments and blank lines
      // after it, up to the next key: a block ending with one is parsed together with the next block.
      if (j < starts.length && endsEmpty(block.map, 0)) {
        j++;
        continue;
      }
      blocks.push(block);
      break;
    }
    i = j;
  }
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  if (!first || !last) return undefined;
  const root = new YAMLMap() as YAMLMap.Parsed;
  const warnings: YAMLError[] = [];
  for (const b of blocks) {
    for (const pair of b.map.items) root.items.push(pair);
    for (const w of b.doc.warnings) warnings.push(w);
  }
  root.range = [first.map.range[0], last.map.range[1], last.map.range[2]];
  const doc = new Document(undefined, PARSE_OPTIONS) as unknown as Document.Parsed;
  doc.contents = root;
  doc.range = [first.doc.range[0], last.doc.range[1], last.doc.range[2]];
  doc.errors = [];
  doc.warnings = warnings;
  lines.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
  return doc;
}

/** The parse state of one file and the facts, problems and references found so far. */
export class YamlCtx {
  readonly facts: Fact[] = [];
  readonly problems: ParseProblem[] = [];
  readonly references: Reference[] = [];
  readonly tools: Tool[];
  readonly lines = new LineCounter();
  readonly doc: Document.Parsed | undefined;
  readonly root: YAMLMap | undefined;
  private rootEntries: Map<string, Entry> | undefined;
  private readonly seenDuplicates = new Set<string>();

  /** The tool whose semantics the facts follow; an analyzer may settle it after looking at the keys. */
  tool: Tool;

  constructor(readonly text: string, readonly opts: CtxOptions) {
    this.tool = opts.tool;
    this.tools = [opts.tool];
    let doc: Document.Parsed | undefined;
    try {
      if (flowDepth(text) > MAX_FLOW_DEPTH) {
        this.problem('syntax-error', 'error', msg('brackets nested more than {0} levels deep; the file is not read', MAX_FLOW_DEPTH), { start: 0, end: 0 });
      } else {
        doc = (blockCacheEnabled ? parseByBlocks(text, this.lines) : undefined) ?? parseYaml(text, { lineCounter: this.lines, ...PARSE_OPTIONS });
      }
    } catch (err) {
      // eemeli/yaml reports problems in doc.errors; this guards the never-throw contract against library bugs.
      this.problem('syntax-error', 'error', msg('YAML could not be parsed: {0}', err instanceof Error ? err.message : String(err)), { start: 0, end: 0 });
    }
    this.doc = doc;
    for (const e of doc?.errors ?? []) {
      this.problem('syntax-error', 'error', e.message.split('\n')[0] !== undefined ? msg('{0}', e.message.split('\n')[0]) : msg('YAML syntax error'),
        this.span(e.pos[0], e.pos[1]));
    }
    const contents = doc?.contents;
    this.root = isMap(contents) ? contents : undefined;
    if (contents && !this.root && !(isScalar(contents) && contents.value === null)) {
      this.problem('syntax-error', 'error', msg('expected a mapping of keys to values at the top level'), this.nodeSpan(contents));
    }
  }

  /** A span clamped into the text, so that broken input never yields an out-of-range position. */
  span(start: number, end: number): Span {
    const n = this.text.length;
    const s = Math.max(0, Math.min(Number.isFinite(start) ? start : 0, n));
    const e = Math.max(s, Math.min(Number.isFinite(end) ? end : s, n));
    return { start: s, end: e };
  }

  /** The written extent of a node: scalars and flow collections end at their last character, block collections at their last item. */
  nodeSpan(node: Node | null | undefined, depth = 0): Span {
    const r = node?.range;
    if (!node || !r) return this.span(0, 0);
    if ((isMap(node) || isSeq(node)) && !node.flow && depth < 64) {
      let end = r[0];
      for (const item of node.items as unknown[]) {
        // A map item is a pair: its extent ends with its value, or with its key when the value is empty.
        const pair = isMap(node) ? (item as { key: Node | null; value: Node | null }) : undefined;
        const last = pair ? (pair.value?.range ? pair.value : pair.key) : (item as Node);
        if (last) end = Math.max(end, this.nodeSpan(last, depth + 1).end);
      }
      return this.span(r[0], end);
    }
    return this.span(r[0], r[1]);
  }

  problem(code: ProblemCode, severity: ParseProblem['severity'], m: Message, span: Span, rawKey?: string): void {
    const { message, template } = m;
    this.problems.push(rawKey === undefined ? { code, severity, message, template, span } : { code, severity, message, template, span, rawKey });
  }

  line(offset: number): number {
    return this.lines.linePos(offset).line;
  }

  /** The entries of the top-level mapping (empty when the document is not a mapping). */
  top(): Map<string, Entry> {
    if (!this.rootEntries) this.rootEntries = this.root ? this.entries(this.root, '') : new Map();
    return this.rootEntries;
  }

  /**
   * The entries of a mapping. Merge keys (`<<: *a` or `<<: [*a, *b]`) contribute the anchored map's pairs at the
   * alias site, explicit keys override merged ones (YAML merge semantics), and a repeated key is reported as
   * 'duplicate-key' and the last one wins (PyYAML's behaviour; OmegaConf refuses the file).
   */
  entries(map: YAMLMap, prefix: string, depth = 0): Map<string, Entry> {
    const out = new Map<string, Entry>();
    const merged = new Map<string, Entry>();
    if (depth > MAX_ALIAS_DEPTH) return out;
    for (const pair of map.items) {
      const keyNode = pair.key as Node | null;
      const keyName = keyNode && isScalar(keyNode) ? String(keyNode.value) : keyNode && isAlias(keyNode) ? `*${keyNode.source}` : undefined;
      if (keyName === undefined || !keyNode) continue;
      const keySpan = this.nodeSpan(keyNode);
      if (keyName === '<<' && isScalar(keyNode) && keyNode.type === 'PLAIN') {
        this.mergeInto(merged, pair.value as Node | null, prefix, depth);
        continue;
      }
      const path = prefix ? `${prefix}.${keyName}` : keyName;
      const entry = this.makeEntry(keyName, path, keySpan, pair.value as Node | null);
      const prev = out.get(keyName);
      if (prev) {
        const dupId = `${keySpan.start}`;
        if (!this.seenDuplicates.has(dupId)) {
          this.seenDuplicates.add(dupId);
          const severity = this.opts.omegaconf ? 'error' : 'warning';
          const line = this.line(prev.keySpan.start);
          const m = this.opts.omegaconf
            ? msg('`{0}` is already set on line {1}; OmegaConf refuses the file', path, line)
            : msg('`{0}` is already set on line {1}; the last one wins', path, line);
          this.problem('duplicate-key', severity, m, keySpan, path);
        }
      }
      out.set(keyName, entry);
    }
    for (const [k, e] of merged) if (!out.has(k)) out.set(k, e);
    return out;
  }

  private mergeInto(merged: Map<string, Entry>, value: Node | null, prefix: string, depth: number): void {
    const sources = value && isSeq(value) ? (value.items as Node[]) : [value];
    for (const src of sources) {
      if (!src || !isAlias(src)) continue;
      const target = this.resolveAlias(src);
      if (!target || !isMap(target)) continue;
      const site = this.nodeSpan(src);
      for (const [k, e] of this.entries(target, prefix, depth + 1)) {
        // The first merged map wins over later ones, as in YAML 1.1 merge keys.
        if (merged.has(k)) continue;
        merged.set(k, { ...e, keySpan: site, valueSpan: site, originSpan: e.originSpan ?? e.valueSpan });
      }
    }
  }

  private resolveAlias(node: Node): Node | undefined {
    let cur: Node | undefined = node;
    for (let i = 0; cur && isAlias(cur) && i < MAX_ALIAS_DEPTH; i++) {
      try {
        cur = this.doc ? (cur.resolve(this.doc) as Node | undefined) : undefined;
      } catch {
        cur = undefined;
      }
    }
    return cur && isAlias(cur) ? undefined : cur;
  }

  private makeEntry(key: string, path: string, keySpan: Span, raw: Node | null): Entry {
    if (!raw) return { key, path, keySpan, node: null, valueSpan: this.span(keySpan.end, keySpan.end) };
    const valueSpan = this.nodeSpan(raw);
    if (isAlias(raw)) {
      const target = this.resolveAlias(raw);
      if (!target) return { key, path, keySpan, node: null, valueSpan, unresolved: `alias ${raw.source} has no anchor` };
      return { key, path, keySpan, node: target, valueSpan, originSpan: this.nodeSpan(target) };
    }
    return { key, path, keySpan, node: raw, valueSpan };
  }

  /** Follows OmegaConf interpolations (`${a.b}`) written as the whole value; other strings are left alone. */
  private interpolate(e: Entry): Entry {
    if (!this.opts.omegaconf) return e;
    let cur: Entry = e;
    for (let hops = 0; hops < MAX_ALIAS_DEPTH; hops++) {
      const n = cur.node;
      if (!n || !isScalar(n) || typeof n.value !== 'string') return cur;
      const m = /^\$\{\s*([^${}]+?)\s*\}$/.exec(n.value.trim());
      if (!m) {
        if (n.value.includes('${')) return { ...e, node: null, unresolved: `\`${n.value}\` is built by OmegaConf string interpolation at launch time` };
        return cur;
      }
      const ref = m[1] ?? '';
      if (ref.includes(':')) return { ...e, node: null, unresolved: `\`${n.value}\` is an OmegaConf resolver call, known only at launch time` };
      const target = this.lookup(ref.replace(/^\.+/, ''));
      if (!target) return { ...e, node: null, unresolved: `\`${n.value}\`: no key \`${ref}\` in this file (it may come from a command-line override)` };
      cur = { ...e, node: target.node, originSpan: target.originSpan ?? target.valueSpan, unresolved: target.unresolved };
    }
    return { ...e, node: null, unresolved: 'interpolation cycle' };
  }

  /** A dotted path from the root (`tokenizer.max_seq_len`). */
  lookup(path: string): Entry | undefined {
    let entries = this.top();
    const parts = path.split('.');
    for (let i = 0; i < parts.length; i++) {
      const e = entries.get(parts[i] ?? '');
      if (!e) return undefined;
      if (i === parts.length - 1) return e;
      if (!e.node || !isMap(e.node)) return undefined;
      entries = this.entries(e.node, e.path);
    }
    return undefined;
  }

  /** The entries of a nested mapping value (an empty map when the value is not a mapping). */
  sub(e: Entry | undefined): Map<string, Entry> {
    return e && e.node && isMap(e.node) ? this.entries(e.node, e.path) : new Map();
  }

  /** How the tool reads an entry's value. */
  view(e: Entry): View {
    const r = this.interpolate(e);
    if (r.unresolved) return { t: 'unknown', reason: r.unresolved };
    return this.viewNode(r.node, 0);
  }

  private viewNode(node: Node | null | undefined, depth: number): View {
    if (!node) return { t: 'absent' };
    if (isAlias(node)) return depth > MAX_ALIAS_DEPTH ? { t: 'absent' } : this.viewNode(this.resolveAlias(node), depth + 1);
    if (isMap(node)) return { t: 'map', node };
    if (isSeq(node)) return depth > MAX_ALIAS_DEPTH ? { t: 'seq', items: [] }
      : { t: 'seq', items: (node.items as Node[]).map((i) => this.viewNode(i, depth + 1)) };
    if (!isScalar(node)) return { t: 'absent' };
    const v = node.value;
    const plain = node.type === 'PLAIN' || node.type === undefined;
    if (v === null || v === undefined) return { t: 'absent' };
    if (typeof v === 'boolean') return { t: 'bool', v };
    if (typeof v === 'number') return { t: 'num', v };
    if (typeof v === 'bigint') return { t: 'num', v: Number(v) };
    if (typeof v === 'string') {
      // PyYAML (YAML 1.1) reads `~` and empty plain scalars as null, like YAML 1.2; eemeli already did that.
      return { t: 'str', v, plain };
    }
    return { t: 'absent' };
  }

  /** The value text as written (the alias or interpolation for indirect values). */
  raw(e: Entry): string {
    return this.text.slice(e.valueSpan.start, e.valueSpan.end);
  }

  /**
   * Records a fact from an entry. Absent values record nothing; values that cannot be known statically become
   * unknown facts with a 'not-static' problem; values the tool would reject become 'invalid-value' problems.
   */
  put(key: CanonicalKey, e: Entry | undefined, conv: Conv, rawKey?: string): Fact | undefined {
    if (!e) return undefined;
    const resolved = this.interpolate(e);
    const view = resolved.unresolved ? ({ t: 'unknown', reason: resolved.unresolved } as const) : this.viewNode(resolved.node, 0);
    if (view.t === 'absent') return undefined;
    if (view.t === 'unknown') {
      this.problem('not-static', 'warning', msg('{0}: {1}', e.path, view.reason), e.valueSpan, e.path);
      return this.add(key, e, { unknown: view.reason }, rawKey);
    }
    const value = conv(view);
    if (value === undefined) return undefined;
    if (value instanceof Invalid) {
      this.problem('invalid-value', value.severity, bySubject(value.why, e.path), e.valueSpan, e.path);
      return undefined;
    }
    return this.add(key, resolved, value, rawKey);
  }

  /** Records a fact with a value already computed (derived facts such as method from a component name). */
  add(key: CanonicalKey, e: Entry, value: FactValue | Unknown, rawKey?: string, spans?: { keySpan?: Span; valueSpan?: Span }): Fact {
    const valueSpan = spans?.valueSpan ?? e.valueSpan;
    const base = {
      key, rawKey: rawKey ?? e.path, value, rawValue: this.text.slice(valueSpan.start, valueSpan.end),
      keySpan: spans?.keySpan ?? e.keySpan, valueSpan, tool: this.tool,
    };
    const fact: Fact = e.originSpan && !spans?.valueSpan ? { ...base, originSpan: e.originSpan } : base;
    this.facts.push(fact);
    return fact;
  }

  /** Records a fact read outside the YAML tree (a comment), at the given spans. */
  addAt(key: CanonicalKey, value: FactValue, rawKey: string, keySpan: Span, valueSpan: Span): Fact {
    const fact: Fact = { key, rawKey, value, rawValue: this.text.slice(valueSpan.start, valueSpan.end), keySpan, valueSpan, tool: this.tool };
    this.facts.push(fact);
    return fact;
  }

  setTool(tool: Tool): void {
    this.tool = tool;
    this.tools.splice(0, this.tools.length, tool);
  }

  has(key: CanonicalKey): boolean {
    return this.facts.some((f) => f.key === key);
  }

  get(key: CanonicalKey): Fact | undefined {
    for (let i = this.facts.length - 1; i >= 0; i--) if (this.facts[i]?.key === key) return this.facts[i];
    return undefined;
  }

  /** Records a DeepSpeed config path as a Reference (followed by resolve relative to this file) and a fact. */
  deepspeedRef(e: Entry | undefined): void {
    if (!e) return;
    const v = this.view(e);
    if (v.t === 'str') {
      const p = v.v.trim();
      if (!p) return;
      if (p.startsWith('{')) {
        this.add('deepspeedConfig', e, '{inline json}');
        return;
      }
      this.references.push({ kind: 'deepspeed', path: p, span: e.valueSpan });
      this.add('deepspeedConfig', e, p);
    } else if (v.t === 'map') {
      this.add('deepspeedConfig', e, '{inline json}');
      this.inlineDeepspeed(e);
    } else if (v.t === 'unknown') {
      this.put('deepspeedConfig', e, () => undefined);
    } else if (v.t !== 'absent') {
      this.problem('invalid-value', 'error', msg('{0}: expected the path of a DeepSpeed JSON file', e.path), e.valueSpan, e.path);
    }
  }

  /** The memory keys of a DeepSpeed config written inline as a mapping (FORMATS.md §1.4). */
  private inlineDeepspeed(e: Entry): void {
    const ds = this.sub(e);
    const zero = this.sub(ds.get('zero_optimization'));
    this.put('zeroStage', zero.get('stage'), asEnumInt([0, 1, 2, 3]));
    this.put('offloadOptimizer', this.sub(zero.get('offload_optimizer')).get('device'), asOffload);
    this.put('offloadParams', this.sub(zero.get('offload_param')).get('device'), asOffload);
    this.put('microBatchSize', ds.get('train_micro_batch_size_per_gpu'), asPosInt);
    this.put('gradientAccumulationSteps', ds.get('gradient_accumulation_steps'), asPosInt);
    this.put('trainBatchSize', ds.get('train_batch_size'), asPosInt);
  }

  /** Flags bf16 and fp16 both switched on (the tools raise "cannot be simultaneously enabled"). */
  checkPrecisionConflict(): void {
    const bf = this.get('bf16');
    const fp = this.get('fp16');
    if (bf && fp && bf.value === true && fp.value === true) {
      const later = bf.keySpan.start > fp.keySpan.start ? bf : fp;
      this.problem('conflicting-precision', 'error', msg('bf16 and fp16 are both enabled; the trainer refuses to start'), later.keySpan, later.rawKey);
    }
  }

  /** `why` is about the key path: `about('`{0}` is deprecated: use ...')`. */
  deprecated(e: Entry | undefined, why: SubjectMessage, severity: ParseProblem['severity'] = 'warning'): void {
    if (e) this.problem('deprecated-key', severity, bySubject(why, e.path), e.keySpan, e.path);
  }

  result(): ConfigFacts {
    return { format: this.opts.format, facts: this.facts, problems: this.problems, references: this.references, tools: this.tools };
  }
}

/** Runs an analyzer body and turns any internal failure into a located problem, keeping what was found. */
export function guarded(ctx: YamlCtx, body: () => void): ConfigFacts {
  try {
    body();
  } catch (err) {
    ctx.problem('syntax-error', 'error', msg('could not analyze the file: {0}', err instanceof Error ? err.message : String(err)), ctx.span(0, 0));
  }
  return ctx.result();
}

// ---------------------------------------------------------------------------------------------------------------
// Value readers. PyYAML (YAML 1.1) reads plain yes/no/on/off as booleans and `2e-5` as a string; eemeli/yaml
// (YAML 1.2 core) does the opposite. Pydantic and dataclass loaders then coerce strings, so memory keys are read
// leniently: a boolean may be written true/True/yes/on/1, a number may be a quoted or underscored string.
// ---------------------------------------------------------------------------------------------------------------

const TRUE_WORDS = new Set(['true', 'yes', 'on', 'y', 't', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', 'n', 'f', '0']);

/** Interprets a view as a boolean, or undefined when it is not one. */
export function boolOf(v: View): boolean | undefined {
  if (v.t === 'bool') return v.v;
  if (v.t === 'num' && (v.v === 0 || v.v === 1)) return v.v === 1;
  if (v.t === 'str') {
    const w = v.v.trim().toLowerCase();
    if (TRUE_WORDS.has(w)) return true;
    if (FALSE_WORDS.has(w)) return false;
  }
  return undefined;
}

/** Interprets a view as a number (`1_000`, `'8'`, `5e8` included), or undefined. */
export function numOf(v: View): number | undefined {
  if (v.t === 'num') return v.v;
  if (v.t === 'str') {
    const s = v.v.trim().replace(/_/g, '');
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Number(s);
  }
  return undefined;
}

export function strOf(v: View): string | undefined {
  if (v.t === 'str') return v.v;
  if (v.t === 'num') return String(v.v);
  if (v.t === 'bool') return String(v.v);
  return undefined;
}

/** A list of strings: a YAML sequence, or one comma- or space-separated string. */
export function listOf(v: View, sep: RegExp = /[,\s]+/): string[] | undefined {
  if (v.t === 'seq') return v.items.map((i) => strOf(i)).filter((s): s is string => s !== undefined && s.length > 0);
  if (v.t === 'str') return v.v.split(sep).map((s) => s.trim()).filter((s) => s.length > 0);
  return undefined;
}

export const asBool: Conv = (v) => {
  const b = boolOf(v);
  return b === undefined ? new Invalid(about('{0}: expected true or false, found {1}', describe(v))) : b;
};

/** A positive integer (batch sizes, accumulation steps, lengths). */
/** A packing / pad-to-maximum switch: on means every batch is seq_len long, off means each batch is padded to its longest sample. */
export const asPacking: Conv = (v) => {
  const b = boolOf(v);
  return b === undefined ? asBool(v) : b ? 'fixed' : 'variable';
};

export const asPosInt: Conv = (v) => {
  const n = numOf(v);
  if (n === undefined) return new Invalid(about('{0}: expected a positive integer, found {1}', describe(v)));
  if (!Number.isInteger(n) || n <= 0) return new Invalid(about('{0}: must be a positive integer, found {1}', n));
  return n;
};

/** HF eval_strategy / evaluation_strategy: "no" turns evaluation off; "steps" and "epoch" run it during training. */
export const asEvalStrategy: Conv = (v) => {
  const s = strOf(v);
  return (s === undefined ? undefined : evaluationOn(s)) ?? new Invalid(about('{0}: expected one of {1}, found {2}', 'no, steps, epoch', describe(v)));
};

export const asNonNegNumber: Conv = (v) => {
  const n = numOf(v);
  if (n === undefined) return new Invalid(about('{0}: expected a number, found {1}', describe(v)));
  if (n < 0) return new Invalid(about('{0}: must not be negative, found {1}', n));
  return n;
};

export const asString: Conv = (v) => {
  const s = strOf(v);
  if (s === undefined) return new Invalid(about('{0}: expected a string, found {1}', describe(v)));
  return s.trim() === '' ? undefined : s.trim();
};

export function asEnumInt(allowed: readonly number[]): Conv {
  return (v) => {
    const n = numOf(v);
    if (n === undefined || !allowed.includes(n)) return new Invalid(about('{0}: expected one of {1}, found {2}', allowed.join(', '), describe(v)));
    return n;
  };
}

/** Offload devices as DeepSpeed and Accelerate spell them. */
export const asOffload: Conv = (v) => {
  if (v.t === 'bool' && !v.v) return 'none';
  const s = strOf(v)?.trim().toLowerCase();
  if (s === 'none' || s === 'cpu' || s === 'nvme') return s;
  if (s === 'no' || s === 'false') return 'none';
  return new Invalid(about('{0}: expected none, cpu or nvme, found {1}', describe(v)));
};

export function describe(v: View): string {
  switch (v.t) {
    case 'str': return JSON.stringify(v.v.length > 40 ? `${v.v.slice(0, 40)}…` : v.v);
    case 'num': return String(v.v);
    case 'bool': return String(v.v);
    case 'seq': return 'a list';
    case 'map': return 'a mapping';
    case 'unknown': return 'an unresolved value';
    default: return 'nothing';
  }
}

/** HF / PyTorch dtype names to the setup vocabulary. */
export function dtypeOf(raw: string): 'fp32' | 'bf16' | 'fp16' | undefined {
  const s = raw.trim().toLowerCase().replace(/^torch\./, '');
  if (s === 'bfloat16' || s === 'bf16') return 'bf16';
  if (s === 'float16' || s === 'fp16' || s === 'half') return 'fp16';
  if (s === 'float32' || s === 'fp32' || s === 'float') return 'fp32';
  return undefined;
}

/**
 * An attention implementation name (HF attn_implementation, Axolotl, LLaMA-Factory flash_attn) to the memory class
 * the estimator models: 'eager' materializes the s x s score matrix; 'sdpa' uses PyTorch's fused kernels; 'flash'
 * keeps O(s) memory. FlashAttention 2/3, xformers' memory-efficient kernel, flex and sage attention all avoid the
 * score matrix, so they are 'flash' for memory purposes.
 */
export function attentionOf(raw: string): 'eager' | 'sdpa' | 'flash' | undefined {
  const s = raw.trim().toLowerCase();
  if (s === 'eager' || s === 'disabled') return 'eager';
  if (s === 'sdpa') return 'sdpa';
  if (/flash|^fa[23]$|xformers|flex|sage/.test(s)) return 'flash';
  return undefined;
}

/** FSDP options of HF TrainingArguments / Axolotl `fsdp` (list or space-separated string). */
export function fsdpFromOptions(options: readonly string[]): { fsdp?: string; offload: boolean } {
  const lower = options.map((o) => o.toLowerCase());
  let fsdp: string | undefined;
  for (const o of lower) {
    if (o === 'full_shard' || o === 'shard_grad_op' || o === 'no_shard') fsdp = o;
    else if (o === 'hybrid_shard' || o === 'hybrid_shard_zero2') fsdp = 'hybrid_shard';
  }
  return { fsdp, offload: lower.includes('offload') };
}

/** FSDP1 sharding strategies by name or by the integer Accelerate accepts (1-5). */
export function shardingOf(v: View): string | undefined {
  const n = numOf(v);
  const byInt = ['full_shard', 'shard_grad_op', 'no_shard', 'hybrid_shard', 'hybrid_shard'];
  if (n !== undefined && Number.isInteger(n) && n >= 1 && n <= 5) return byInt[n - 1];
  const s = strOf(v)?.trim().toLowerCase();
  if (s === 'full_shard' || s === 'shard_grad_op' || s === 'no_shard' || s === 'hybrid_shard') return s;
  if (s === 'hybrid_shard_zero2' || s === '_hybrid_shard_zero2') return 'hybrid_shard';
  return undefined;
}

export const asSharding: Conv = (v) => shardingOf(v) ?? new Invalid(about('{0}: expected FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2, found {1}', describe(v)));

/** Optimizer names of the HF family; 4-bit states have no setup value yet, so their raw name is kept. */
export function optimizerOf(raw: string, normalize: (s: string) => string): string {
  return normalize(raw.trim());
}

/**
 * HF TrainingArguments' GaLore: optim galore_* (with _layerwise), optim_target_modules (a name or a list), optim_args
 * ("rank=64, ..."). Axolotl passes the same keys through.
 */
export function galoreKeys(ctx: YamlCtx, m: ReadonlyMap<string, Entry>): void {
  const optim = m.get('optim') ?? m.get('optimizer');
  const g = optim ? galoreOf(strOf(ctx.view(optim)) ?? '') : undefined;
  if (!g || !optim) return;
  ctx.add('galore', optim, 'galore');
  ctx.add('galoreLayerwise', optim, g.layerwise);
  ctx.put('galoreTargets', m.get('optim_target_modules'),
    (v) => listOf(v) ?? (strOf(v) !== undefined ? [strOf(v)!] : new Invalid(about('{0}: expected module names, found {1}', describe(v)))));
  ctx.put('galoreRank', m.get('optim_args'), (v) => {
    const s = strOf(v);
    return s === undefined ? undefined : galoreRankOf(s);
  });
}

/**
 * TRL GRPOConfig keys (top level of a TRL YAML, Axolotl's `trl:` block): prompt and completion lengths, the generation
 * round, the KL reference and the vLLM engine.
 */
export function grpoKeys(ctx: YamlCtx, m: ReadonlyMap<string, Entry>): void {
  ctx.put('promptLen', m.get('max_prompt_length'), asPosInt);
  ctx.put('completionLen', m.get('max_completion_length'), asPosInt);
  ctx.put('stepsPerGeneration', m.get('steps_per_generation'), asPosInt);
  ctx.put('generationBatchSize', m.get('generation_batch_size'), asPosInt);
  ctx.put('numIterations', m.get('num_iterations'), asPosInt);
  ctx.put('numGenerations', m.get('num_generations'), asPosInt);
  ctx.put('klBeta', m.get('beta'), asNonNegNumber);
  ctx.put('useVllm', m.get('use_vllm'), asBool);
  ctx.put('vllmMode', m.get('vllm_mode'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    return s === 'colocate' || s === 'server' ? s : new Invalid(about('{0}: expected colocate or server, found {1}', describe(v)));
  });
  ctx.put('vllmMemoryFraction', m.get('vllm_gpu_memory_utilization'), asNonNegNumber);
  ctx.put('vllmTensorParallel', m.get('vllm_tensor_parallel_size'), asPosInt);
  ctx.put('vllmSleep', m.get('vllm_enable_sleep_mode'), asBool);
  ctx.put('gatherForGeneration', m.get('ds3_gather_for_generation'), asBool);
}
