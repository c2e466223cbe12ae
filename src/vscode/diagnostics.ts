// Owns the DiagnosticCollection: refresh on open, on change (debounced), on settings change; delete on close.
import * as vscode from 'vscode';
import type { ExtContext } from './context';
import { toRange, toSeverity } from './convert';

const DEBOUNCE_MS = 300;
export const DIAGNOSTIC_SOURCE = 'vram-lens';
const DOCS = 'https://github.com/vram-lens/vram-lens#diagnostics';

export function registerDiagnostics(ctx: ExtContext): vscode.Disposable[] {
  const collection = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const refresh = (doc: vscode.TextDocument): void => {
    ctx.guard('diagnostics', () => {
      if (!ctx.settings(doc.uri)['diagnostics.enabled']) {
        collection.delete(doc.uri);
        return;
      }
      const a = ctx.analysis(doc);
      if (!a) {
        collection.delete(doc.uri);
        return;
      }
      collection.set(doc.uri, a.findings.map((f) => {
        const d = new vscode.Diagnostic(toRange(doc, f.span), f.message, toSeverity(f.severity));
        d.source = DIAGNOSTIC_SOURCE;
        d.code = { value: f.code, target: vscode.Uri.parse(`${DOCS}-${f.code}`) };
        d.relatedInformation = f.related.map((r) => new vscode.DiagnosticRelatedInformation(
          new vscode.Location(vscode.Uri.file(r.file), r.span && r.file === doc.fileName ? toRange(doc, r.span) : new vscode.Position(Math.max(0, (r.line ?? 1) - 1), 0)), r.message));
        return d;
      }));
    });
  };
  const schedule = (doc: vscode.TextDocument): void => {
    const k = doc.uri.toString();
    clearTimeout(timers.get(k));
    timers.set(k, setTimeout(() => {
      timers.delete(k);
      refresh(doc);
    }, DEBOUNCE_MS));
  };
  for (const doc of vscode.workspace.textDocuments) refresh(doc);
  return [
    collection,
    vscode.workspace.onDidOpenTextDocument(refresh),
    vscode.workspace.onDidChangeTextDocument((e) => schedule(e.document)),
    vscode.workspace.onDidSaveTextDocument(() => vscode.workspace.textDocuments.forEach(schedule)),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      collection.delete(doc.uri);
      ctx.forget(doc);
    }),
    ctx.onDidInvalidate(() => vscode.workspace.textDocuments.forEach(refresh)),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  ];
}
