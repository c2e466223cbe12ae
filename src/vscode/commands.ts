// Command ids and their registration.
import * as vscode from 'vscode';
import { GPU_CATALOG } from '../core/catalog/gpus';
import { formatBytes } from '../core/units';
import { BreakdownPanel } from './breakdown-panel';
import type { ExtContext } from './context';

export const CommandId = {
  OpenPanel: 'vramLens.openPanel',
  SelectGpu: 'vramLens.selectGpu',
} as const;

export function registerCommands(ctx: ExtContext, extensionUri: vscode.Uri): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(CommandId.OpenPanel, () => {
      const doc = vscode.window.activeTextEditor?.document;
      BreakdownPanel.show(ctx, extensionUri, doc && ctx.isConfig(doc) ? doc : undefined);
    }),
    vscode.commands.registerCommand(CommandId.SelectGpu, async () => {
      const picks = GPU_CATALOG.map((g) => ({ label: g.id, description: formatBytes(g.memoryBytes), detail: g.aliases[0] }));
      const choice = await vscode.window.showQuickPick(picks, { placeHolder: vscode.l10n.t('GPU to check the fit against (vramLens.gpu)'), matchOnDescription: true });
      if (!choice) return;
      const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration('vramLens').update('gpu', choice.label, target);
    }),
  ];
}
