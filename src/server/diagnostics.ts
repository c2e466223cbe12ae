// Findings as LSP diagnostics: located at the finding's span, with the code linking to its entry in
// docs/diagnostics.md and the related places (other big contributors, the file that set a value) attached.
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Finding } from '../features/findings';
import { fsPathOf } from './workspace';

export const DIAGNOSTIC_SOURCE = 'vram-lens';
/** Where each diagnostic code is explained (one heading per code). */
export const DIAGNOSTICS_DOCS = 'https://github.com/vram-lens/vram-lens/blob/main/docs/diagnostics.md';

const SEVERITY: Readonly<Record<Finding['severity'], DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

export function toDiagnostic(doc: TextDocument, f: Finding): Diagnostic {
  const range = { start: doc.positionAt(f.span.start), end: doc.positionAt(Math.max(f.span.start, f.span.end)) };
  return {
    range,
    severity: SEVERITY[f.severity],
    source: DIAGNOSTIC_SOURCE,
    code: f.code,
    codeDescription: { href: `${DIAGNOSTICS_DOCS}#${f.code}` },
    message: f.message,
    relatedInformation: f.related.map((r) => {
      const sameFile = r.file === fsPathOf(doc.uri);
      const uri = sameFile ? doc.uri : r.file.startsWith('untitled:') ? r.file : pathToFileURL(r.file).toString();
      const start =
        r.span && sameFile ? doc.positionAt(r.span.start) : { line: Math.max(0, (r.line ?? 1) - 1), character: 0 };
      const end = r.span && sameFile ? doc.positionAt(r.span.end) : start;
      return { location: { uri, range: { start, end } }, message: r.message };
    }),
  };
}

/** A diagnostic about the whole file, at 1:1 (a file that is not analyzed, and why). */
export function fileDiagnostic(
  code: string,
  message: string,
  severity: DiagnosticSeverity = DiagnosticSeverity.Warning,
): Diagnostic {
  const at = { line: 0, character: 0 };
  return {
    range: { start: at, end: { line: 0, character: 1 } },
    severity,
    source: DIAGNOSTIC_SOURCE,
    code,
    codeDescription: { href: `${DIAGNOSTICS_DOCS}#${code}` },
    message,
  };
}
