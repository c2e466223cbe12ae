// A YAML config that is a template (Jinja's `{{ model_dir }}`, filled in by a script before the tool reads the file):
// `vocab_path:  {{model_dir}}/vocab.json` is not YAML (a plain scalar cannot start with a flow mapping), so the file
// does not parse, and `batch_size: {{ bs }}` parses as a mapping PyYAML refuses. When such a file parses cleanly with
// every placeholder masked out, the masked text is read instead, and a setting written with a placeholder is a value
// not known until the template is rendered, reported at its place.
// The mask keeps every offset, so spans point into the file as written. Pure: no I/O.
import type { Span } from '../facts';

/** Placeholders read per file; a file with more is left as it is (real templates have a handful). */
const MAX_PLACEHOLDERS = 1000;

/** The `{{ ... }}` placeholders of a text, each on one line, in order; empty when there are none or too many. */
export function templatePlaceholders(text: string): Span[] {
  if (!text.includes('{{')) return [];
  const out: Span[] = [];
  for (const m of text.matchAll(/\{\{[^{}\n]{0,200}\}\}/g)) {
    if (out.length === MAX_PLACEHOLDERS) return [];
    out.push({ start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The text with each placeholder replaced by as many underscores: a plain scalar of the same length. */
export function maskPlaceholders(text: string, placeholders: readonly Span[]): string {
  let out = '';
  let at = 0;
  for (const p of placeholders) {
    out += text.slice(at, p.start) + '_'.repeat(p.end - p.start);
    at = p.end;
  }
  return out + text.slice(at);
}

/** A placeholder written as a whole value: after `key:` or `- `, with nothing but a comment after it on its line. */
export function isWholeValue(text: string, p: Span): boolean {
  const before = /(?::|(?:^|\s)-)[ \t]+$/.exec(text.slice(Math.max(0, p.start - 64), p.start));
  const lineEnd = text.indexOf('\n', p.end);
  const after = text.slice(p.end, lineEnd === -1 ? text.length : lineEnd);
  return before !== null && /^[ \t]*(#.*)?\r?$/.test(after);
}

/** The placeholder inside a span, if any (placeholders sorted by offset). */
export function placeholderIn(placeholders: readonly Span[], span: Span): Span | undefined {
  let lo = 0;
  let hi = placeholders.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (placeholders[mid].end <= span.start) lo = mid + 1;
    else hi = mid;
  }
  const p = placeholders[lo];
  return p && p.start < span.end ? p : undefined;
}
