// A launch script kept inside a YAML task file (a SkyPilot task's `run:`, a dstack task's `commands:`): read as a
// shell script in place, every character outside its parts blanked so that its facts, problems and quick fixes keep
// the YAML's offsets, with the variables the platform gives it. Shared by yaml/skypilot.ts and yaml/dstack.ts, and by
// the quick-fix writer (fixes/writers/task-script.ts). Pure: no I/O.
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import type { ConfigFacts, Span } from '../facts';
import { analyzeShell } from '../shell';
import type { Env } from '../shell/fields';

/** One stretch of the script: its span, and whether its line breaks are folded into spaces (a plain YAML scalar). */
export interface ScriptPart {
  readonly span: Span;
  readonly fold: boolean;
  /**
   * One word with spaces in it (a Kubernetes command item, `bash -c`'s script): quoted by the blanked characters
   * just before and after it, offsets kept.
   */
  readonly quote?: { readonly open: number; readonly close: number; readonly char: string };
}

/** A scalar's script: a block scalar's lines (after its `|` line), or a plain scalar (its line breaks folded). */
export function scalarPart(text: string, node: Node | null | undefined): ScriptPart | undefined {
  if (!node || !isScalar(node) || !node.range) return undefined;
  const [start, end] = node.range;
  if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
    const nl = text.indexOf('\n', start);
    return nl < 0 || nl >= end ? undefined : { span: { start: nl + 1, end }, fold: node.type === 'BLOCK_FOLDED' };
  }
  return node.type === 'PLAIN' ? { span: { start, end }, fold: true } : undefined;
}

/** The parts of a task's script under `key`: one scalar, or a list of scalars (each a command line of its own). */
export function scriptParts(text: string, node: Node | null | undefined): ScriptPart[] {
  if (isSeq(node)) return node.items.flatMap((item) => scalarPart(text, item as Node) ?? []);
  const one = scalarPart(text, node);
  return one ? [one] : [];
}

/** The parts of the script under a top-level `key` of a task file's text; none when the file does not parse. */
export function taskScriptParts(text: string, key: string): ScriptPart[] {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return [];
  return scriptParts(text, doc.contents.get(key, true) as Node | null);
}

/**
 * The text with every character outside the parts blanked but line breaks, a folded part's breaks as spaces; within
 * `join` the breaks between parts too (a Kubernetes container's command list: its items are the words of one line).
 */
export function maskedScript(text: string, parts: readonly ScriptPart[], join?: Span): string {
  const out = text.replace(/[^\n]/g, ' ').split('');
  if (join) for (let i = join.start; i < join.end; i++) if (out[i] === '\n') out[i] = ' ';
  for (const p of parts) {
    for (let i = p.span.start; i < p.span.end; i++) out[i] = p.fold && text[i] === '\n' ? ' ' : text[i];
    if (p.quote) out[p.quote.open] = out[p.quote.close] = p.quote.char;
  }
  return out.join('');
}

/** The script's facts, located in the task file, merged after the task's own (`base`). */
export function withTaskScript(
  base: ConfigFacts,
  text: string,
  parts: readonly ScriptPart[],
  seeds: Env,
  join?: Span,
): ConfigFacts {
  if (parts.length === 0) return base;
  const script = analyzeShell(maskedScript(text, parts, join), seeds);
  return {
    ...script,
    format: base.format,
    facts: [...base.facts, ...script.facts],
    problems: [...base.problems, ...script.problems],
  };
}

/** A variable's value `text` written at `span` (exactly, when `written` there is the value itself). */
export function envValue(text: string, span: Span, written?: string): Env extends Map<string, infer V> ? V : never {
  return {
    pieces: [{ text, start: span.start, end: span.end, exact: written === text }],
    exported: true,
    valueSpan: span,
  };
}
