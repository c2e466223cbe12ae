// One way into eemeli/yaml for every reader and writer: the library builds an Error (with a stack trace) for each
// syntax error, so a pathological file with a million of them costs seconds. Stack traces are switched off while it
// parses (restored after), and only the first MAX_REPORTED errors and warnings are kept. Pure otherwise.
import { parseDocument, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

/** Syntax errors and warnings kept per document; a file with more says how many there were in the last one. */
export const MAX_REPORTED = 100;

/** The most quoted scalars read leniently in one file (lenientQuotes). */
const MAX_LENIENT = 16;

export function parseYaml(text: string, options: ParseOptions & DocumentOptions & SchemaOptions = {}): Document.Parsed {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // logLevel 'error': the library's console warnings (a collection used as a key) would reach the host's log.
    const parse = (source: string): Document.Parsed => parseDocument(source, { logLevel: 'error', ...options });
    let doc = parse(text);
    for (let k = 0; k < MAX_LENIENT && doc.errors.length > 0; k++) {
      const again = lenientQuotes(text, doc);
      if (again === undefined) break;
      const next = parse(again);
      if (next.errors.length >= doc.errors.length) break;
      [text, doc] = [again, next];
    }
    if (doc.errors.length > MAX_REPORTED) doc.errors = doc.errors.slice(0, MAX_REPORTED);
    if (doc.warnings.length > MAX_REPORTED) doc.warnings = doc.warnings.slice(0, MAX_REPORTED);
    return doc;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * A quoted scalar over several lines whose continuation lines are indented less than YAML 1.2 requires (a torchtune
 * prompt written from column 0: `new_system_prompt: "` then the text): PyYAML, which the training tools load their
 * configs with, reads it, folding each line break to a space. The text with that scalar's line breaks made blanks, so
 * every offset stays where it is written; undefined when the first error is not such a scalar.
 */
function lenientQuotes(text: string, doc: Document.Parsed): string | undefined {
  const e = doc.errors[0];
  if (e.code !== 'MISSING_CHAR' || !/quote/.test(e.message)) return undefined;
  // The error is reported at the quote or just after it.
  const open = [e.pos[0], e.pos[0] - 1].find((i) => text[i] === '"' || text[i] === "'");
  if (open === undefined) return undefined;
  const q = text[open];
  let close = -1;
  for (let i = open + 1; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q && q === "'" && text[i + 1] === "'") i++;
    else if (text[i] === q) {
      close = i;
      break;
    }
  }
  if (close < 0 || !/[\r\n]/.test(text.slice(open, close))) return undefined;
  return text.slice(0, open) + text.slice(open, close).replace(/[\r\n]/g, ' ') + text.slice(close);
}
