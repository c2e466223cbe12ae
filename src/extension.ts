// activate(): registers the providers and commands, and loads the features (dist/features.js: analyzers, estimator,
// advice, panel) on first use or right after activation returns, so activation itself stays cheap. Nothing else.
import * as vscode from 'vscode';
import type { Features } from './vscode/main';
import { CONFIG_SELECTOR } from './vscode/selector';

let features: Features | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const load = (): Features => {
    if (!features) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const main = require('./features.js') as typeof import('./vscode/main');
        features = main.startFeatures(context);
      } catch (e) {
        void vscode.window.showErrorMessage(vscode.l10n.t('VRAM Lens could not start: {0}', e instanceof Error ? e.message : String(e)));
        throw e;
      }
    }
    return features;
  };
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(CONFIG_SELECTOR, { provideHover: (doc, pos) => load().hover(doc, pos) }),
    vscode.languages.registerCodeActionsProvider(CONFIG_SELECTOR, { provideCodeActions: (doc, _range, c) => load().codeActions(doc, c) },
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
    vscode.commands.registerCommand('vramLens.openPanel', () => load().openPanel()),
    vscode.commands.registerCommand('vramLens.selectGpu', () => load().selectGpu()),
  );
  // Diagnostics and the status bar for the documents already open start right after activation.
  const timer = setTimeout(() => load(), 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
}

export function deactivate(): void {
  features = undefined;
}
