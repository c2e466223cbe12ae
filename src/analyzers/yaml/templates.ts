// A YAML config that is a template (Jinja's `{{ model_dir }}`, filled in by a script before the tool reads the file):
// `vocab_path:  {{model_dir}}/vocab.json` is not YAML (a plain scalar cannot start with a flow mapping), so the file
// does not parse, and `batch_size: {{ bs }}` parses as a mapping PyYAML refuses. When such a file parses cleanly with
// every expression masked out, the masked text is read instead, and a setting written with one is a value
// not known until the template is rendered, reported at its place.
// The mask keeps every offset, so spans point into the file as written. Pure: no I/O.
import type { Span } from '../facts';

/** Template expressions read per file; a file with more is left as it is (real templates have a handful). */
const MAX_EXPRESSIONS = 1000;

/** The `{{ ... }}` expressions of a text, each on one line, in order; empty when there are none or too many. */
export function templateExpressions(text: string): Span[] {
  if (!text.includes('{{')) return [];
  const out: Span[] = [];
  for (const m of text.matchAll(/\{\{[^{}\n]{0,200}\}\}/g)) {
    if (out.length === MAX_EXPRESSIONS) return [];
    out.push({ start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The text with each expression replaced by as many underscores: a plain scalar of the same length. */
export function maskExpressions(text: string, expressions: readonly Span[]): string {
  let out = '';
  let at = 0;
  for (const p of expressions) {
    out += text.slice(at, p.start) + '_'.repeat(p.end - p.start);
    at = p.end;
  }
  return out + text.slice(at);
}

/** An expression written as a whole value: after `key:` or `- `, with nothing but a comment after it on its line. */
export function isWholeValue(text: string, p: Span): boolean {
  const before = /(?::|(?:^|\s)-)[ \t]+$/.exec(text.slice(Math.max(0, p.start - 64), p.start));
  const lineEnd = text.indexOf('\n', p.end);
  const after = text.slice(p.end, lineEnd === -1 ? text.length : lineEnd);
  return before !== null && /^[ \t]*(#.*)?\r?$/.test(after);
}

/** The expression inside a span, if any (expressions sorted by offset). */
export function expressionIn(expressions: readonly Span[], span: Span): Span | undefined {
  let lo = 0;
  let hi = expressions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (expressions[mid].end <= span.start) lo = mid + 1;
    else hi = mid;
  }
  const p = expressions[lo];
  return p && p.start < span.end ? p : undefined;
}
