// Command ids and what the commands do (registered by extension.ts).
import * as vscode from 'vscode';
import { GPU_CATALOG } from '../core';
import { formatBytes } from '../core';
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

/**
 * Picks the GPU, then where to save it: the workspace (.vscode/settings.json, shared with whoever opens the folder)
 * or the user settings (every workspace). Logs what it wrote, and says so when a workspace value hides a user one.
 */
export async function selectGpu(log: vscode.LogOutputChannel): Promise<void> {
  const picks = GPU_CATALOG.map((g) => ({
    label: g.id,
    description: formatBytes(g.memoryBytes),
    detail: g.aliases[0],
  }));
  const choice = await vscode.window.showQuickPick(picks, {
    placeHolder: vscode.l10n.t('GPU to check the fit against (vramLens.gpu)'),
    matchOnDescription: true,
  });
  if (!choice) return;
  const config = vscode.workspace.getConfiguration('vramLens');
  const inspected = config.inspect<string>('gpu');
  const targets: Array<vscode.QuickPickItem & { target: vscode.ConfigurationTarget }> = [];
  if (vscode.workspace.workspaceFolders?.length) {
    targets.push({
      label: vscode.l10n.t('Workspace'),
      target: vscode.ConfigurationTarget.Workspace,
      description: vscode.workspace.workspaceFile ? vscode.l10n.t('this workspace file') : '.vscode/settings.json',
      detail: vscode.l10n.t('Saved with the project, for everyone who opens it.'),
    });
  }
  const hidden = inspected?.workspaceValue || inspected?.workspaceFolderValue;
  targets.push({
    label: vscode.l10n.t('User'),
    target: vscode.ConfigurationTarget.Global,
    description: vscode.l10n.t('all workspaces'),
    detail: hidden
      ? vscode.l10n.t('This workspace sets {0}, which takes precedence over the user setting.', hidden)
      : vscode.l10n.t('Saved in your user settings, for every workspace.'),
  });
  const where =
    targets.length === 1
      ? targets[0]
      : await vscode.window.showQuickPick(targets, {
          placeHolder: vscode.l10n.t('Save {0} for this workspace or for the user?', choice.label),
        });
  if (!where) return;
  await config.update('gpu', choice.label, where.target);
  const scope = where.target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user';
  log.info(
    `vramLens.gpu = "${choice.label}" written to the ${scope} settings${where.description ? ` (${where.description})` : ''}`,
  );
  if (where.target === vscode.ConfigurationTarget.Global && hidden)
    log.warn(`the workspace still sets vramLens.gpu = "${hidden}", which takes precedence`);
}
