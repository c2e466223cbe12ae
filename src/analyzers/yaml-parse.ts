// One way into eemeli/yaml for every reader and writer: the library builds an Error (with a stack trace) for each
// syntax error, so a pathological file with a million of them costs seconds. Stack traces are switched off while it
// parses (restored after), and only the first MAX_REPORTED errors and warnings are kept. Pure otherwise.
import { parseDocument, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

/** Syntax errors and warnings kept per document; a file with more says how many there were in the last one. */
export const MAX_REPORTED = 100;

export function parseYaml(text: string, options: ParseOptions & DocumentOptions & SchemaOptions = {}): Document.Parsed {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // logLevel 'error': the library's console warnings (a collection used as a key) would reach the host's log.
    const doc = parseDocument(text, { logLevel: 'error', ...options });
    if (doc.errors.length > MAX_REPORTED) doc.errors = doc.errors.slice(0, MAX_REPORTED);
    if (doc.warnings.length > MAX_REPORTED) doc.warnings = doc.warnings.slice(0, MAX_REPORTED);
    return doc;
  } finally {
    Error.stackTraceLimit = limit;
  }
}
