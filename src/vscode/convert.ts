// Conversions between our offsets/edits/severities and VS Code's types. All conversions live here.
import * as vscode from 'vscode';
import type { Span } from '../analyzers/facts';
import type { EditData } from '../features/fixes';

export function toRange(doc: vscode.TextDocument, span: Span): vscode.Range {
  return new vscode.Range(doc.positionAt(span.start), doc.positionAt(Math.max(span.start, span.end)));
}

export function toSeverity(s: 'error' | 'warning' | 'info'): vscode.DiagnosticSeverity {
  switch (s) {
    case 'error': return vscode.DiagnosticSeverity.Error;
    case 'warning': return vscode.DiagnosticSeverity.Warning;
    case 'info': return vscode.DiagnosticSeverity.Information;
  }
}

/** Edits (offsets into each file's current text) as one WorkspaceEdit across files. */
export async function toWorkspaceEdit(edits: readonly EditData[]): Promise<vscode.WorkspaceEdit> {
  const we = new vscode.WorkspaceEdit();
  const byFile = new Map<string, EditData[]>();
  for (const e of edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  for (const [file, list] of byFile) {
    const uri = vscode.Uri.file(file);
    const doc = await vscode.workspace.openTextDocument(uri);
    for (const e of list) we.replace(uri, new vscode.Range(doc.positionAt(e.start), doc.positionAt(e.end)), e.newText);
  }
  return we;
}
