// activate(): registers the commands and loads the features (dist/features.js: the language server client, the
// status bar and the panel) right after activation returns, so activation itself stays cheap. Nothing else. Every
// analysis runs in the language server's own process (dist/server.js).
import * as vscode from 'vscode';
import type { Features } from './vscode/main';

let features: Features | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const load = (): Features => {
    if (!features) {
      try {
        const main = require('./features.js') as typeof import('./vscode/main');
        features = main.startFeatures(context);
      } catch (e) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t('VRAM Lens could not start: {0}', e instanceof Error ? e.message : String(e)),
        );
        throw e;
      }
    }
    return features;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('vramLens.openPanel', () => load().openPanel()),
    vscode.commands.registerCommand('vramLens.selectGpu', () => load().selectGpu()),
    vscode.commands.registerCommand('vramLens.chooseRun', () => load().chooseRun()),
    vscode.commands.registerCommand('vramLens.setGpuCount', () => load().setGpuCount()),
    vscode.commands.registerCommand('vramLens.setModel', (arg?: { uri?: string }) => load().setModel(arg)),
    vscode.commands.registerCommand('vramLens.allowNetwork', () => load().allowNetwork()),
  );
  // The server, diagnostics and the status bar start right after activation.
  const timer = setTimeout(() => load(), 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
}

export function deactivate(): void {
  features = undefined;
}
