// Quick fixes for our memory diagnostics, from features/quick-fixes.ts (edits in the user's own format).
import * as vscode from 'vscode';
import { quickFixes } from '../features/quick-fixes';
import type { ExtContext } from './context';
import { toWorkspaceEdit } from './convert';
import { DIAGNOSTIC_SOURCE } from './diagnostics';

const MEMORY_CODES = new Set(['exceeds-gpu-memory', 'near-gpu-memory']);

function codeOf(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  return typeof c === 'object' && c !== null ? String(c.value) : c === undefined ? undefined : String(c);
}

export async function provideCodeActions(ctx: ExtContext, doc: vscode.TextDocument, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
  const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && MEMORY_CODES.has(codeOf(d) ?? ''));
  if (ours.length === 0) return [];
  const a = ctx.analysis(doc);
  if (!a) return [];
  const fixes = ctx.guard('code actions', () => quickFixes(a, (m, ...args) => vscode.l10n.t(m, ...args))) ?? [];
  const actions: vscode.CodeAction[] = [];
  for (const f of fixes) {
    const action = new vscode.CodeAction(f.title, vscode.CodeActionKind.QuickFix);
    action.edit = await toWorkspaceEdit(f.edits);
    action.diagnostics = ours;
    action.isPreferred = f.preferred;
    actions.push(action);
  }
  return actions;
}
