// Command ids and what the commands do (registered by extension.ts).
import * as vscode from 'vscode';
import { GPU_CATALOG } from '../core/catalog/gpus';
import { formatBytes } from '../core/units';
import { BreakdownPanel } from './breakdown-panel';
import type { ServerClient } from './client';
import { isConfigDocument } from './selector';

export const CommandId = {
  OpenPanel: 'vramLens.openPanel',
  SelectGpu: 'vramLens.selectGpu',
} as const;

export function openPanel(client: ServerClient, extensionUri: vscode.Uri): void {
  const doc = vscode.window.activeTextEditor?.document;
  BreakdownPanel.show(client, extensionUri, doc && isConfigDocument(doc) ? doc : undefined);
}

export async function selectGpu(): Promise<void> {
  const picks = GPU_CATALOG.map((g) => ({ label: g.id, description: formatBytes(g.memoryBytes), detail: g.aliases[0] }));
  const choice = await vscode.window.showQuickPick(picks, { placeHolder: vscode.l10n.t('GPU to check the fit against (vramLens.gpu)'), matchOnDescription: true });
  if (!choice) return;
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('vramLens').update('gpu', choice.label, target);
}
