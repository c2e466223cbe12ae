// The features behind the thin activation shell (src/extension.ts): loaded on first use so that activating the
// extension costs almost nothing. Creates the ExtContext, starts diagnostics and the status bar, and answers
// the providers and commands the shell registered.
import * as vscode from 'vscode';
import { provideCodeActions } from './code-actions';
import { openPanel, selectGpu } from './commands';
import { ExtContext } from './context';
import { registerDiagnostics } from './diagnostics';
import { provideHover } from './hover-provider';
import { registerStatusBar } from './status-bar';

export interface Features {
  hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined;
  codeActions(doc: vscode.TextDocument, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]>;
  openPanel(): void;
  selectGpu(): Promise<void>;
}

export function startFeatures(context: vscode.ExtensionContext): Features {
  const ctx = new ExtContext();
  context.subscriptions.push(
    ctx,
    ...registerDiagnostics(ctx),
    ...registerStatusBar(ctx),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('vramLens')) ctx.invalidate();
    }),
  );
  return {
    hover: (doc, pos) => provideHover(ctx, doc, pos),
    codeActions: (doc, c) => provideCodeActions(ctx, doc, c),
    openPanel: () => openPanel(ctx, context.extensionUri),
    selectGpu: () => selectGpu(),
  };
}
