// activate(): builds the ExtContext and registers each feature. Nothing else.
import * as vscode from 'vscode';
import { registerCodeActions } from './vscode/code-actions';
import { registerCommands } from './vscode/commands';
import { ExtContext } from './vscode/context';
import { registerDiagnostics } from './vscode/diagnostics';
import { registerHoverProvider } from './vscode/hover-provider';
import { registerStatusBar } from './vscode/status-bar';

export function activate(context: vscode.ExtensionContext): void {
  const ctx = new ExtContext();
  try {
    context.subscriptions.push(
      ctx,
      registerHoverProvider(ctx),
      registerCodeActions(ctx),
      ...registerDiagnostics(ctx),
      ...registerStatusBar(ctx),
      ...registerCommands(ctx, context.extensionUri),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('vramLens')) ctx.invalidate();
      }),
    );
  } catch (e) {
    ctx.log.error(`activation failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('VRAM Lens could not start: {0}', e instanceof Error ? e.message : String(e)));
  }
}

export function deactivate(): void {}
