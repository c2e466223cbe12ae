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
// A block text written several times in one file (a duplicated key) has one cached copy per occurrence. Cached nodes
// are shared between analyses: they are only valid until the next parse through the cache, which holds because every
// analyzer builds its context, reads it and returns plain data synchronously, and the YAML writer of quick fixes
// reads its document at once and keeps none. Pure: no I/O.
import { Document, LineCounter, YAMLMap, isMap, isPair, isSeq, type Node, type YAMLError } from 'yaml';
import { parseYaml } from '../yaml-parse';

export const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: false, strict: false } as const;

interface CachedBlock {
  readonly doc: Document.Parsed;
  readonly map: YAMLMap.Parsed;
  /** The offset in the file that the node ranges currently describe. */
  offset: number;
  /** The parse (generation) that last placed this block, to catch one block text used twice in a file. */
  generation: number;
}

const BLOCK_CACHE_MAX = 512;
/** The parsed copies of each block text: a text written n times in one file (a duplicated key) has n copies. */
const blockCache = new Map<string, CachedBlock[]>();
let blockCacheEnabled = true;
let generation = 0;

/** Test hook: switches the block path off (every file is parsed whole) or on again; the cache is kept. */
export function setYamlBlockCache(enabled: boolean): void {
  blockCacheEnabled = enabled;
}

/** Test hook: how many parsed copies of a block text the cache holds. */
export function cachedBlockCopies(blockText: string): number {
  return blockCache.get(blockText)?.length ?? 0;
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
  if (
    text.length === 0 ||
    text.includes('\t') ||
    text.includes('\uFEFF') ||
    text.includes('<<') ||
    /\r(?!\n)/.test(text) ||
    ANCHOR_OR_ALIAS.test(text) ||
    KEEP_CHOMP.test(text)
  )
    return undefined;
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
  const copies = blockCache.get(blockText);
  // A copy not yet placed by this parse: the same text twice in one file takes two copies.
  const cached = copies?.find((c) => c.generation !== generation);
  if (cached) {
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
  if (copies) copies.push(block);
  else {
    if (blockCache.size >= BLOCK_CACHE_MAX) blockCache.clear();
    blockCache.set(blockText, [block]);
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

/** The document parsed block by block through the cache, or undefined when the cache is off or the text must be parsed whole. */
export function parseCachedBlocks(text: string, lines: LineCounter): Document.Parsed | undefined {
  return blockCacheEnabled ? parseByBlocks(text, lines) : undefined;
}
