// The command behind "Set the GPU count of this workspace": asks for GPUs per node and nodes and writes them as
// workspace settings (vramLens.gpusPerNode, vramLens.nodes), which every file of the workspace then uses where its
// run does not say how many GPUs it runs on.
import * as vscode from 'vscode';

async function askCount(prompt: string, current: number, max: number, invalid: string): Promise<number | undefined> {
  const value = await vscode.window.showInputBox({
    prompt,
    value: String(current > 0 ? current : 1),
    validateInput: (v) => (/^\d+$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= max ? undefined : invalid),
  });
  return value === undefined ? undefined : Number(value.trim());
}

export async function setGpuCount(log: vscode.LogOutputChannel): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('vramLens');
  const perNode = await askCount(
    vscode.l10n.t('GPUs per node (vramLens.gpusPerNode)'),
    cfg.get<number>('gpusPerNode', 0),
    1024,
    vscode.l10n.t('A whole number from 1 to 1024'),
  );
  if (perNode === undefined) return;
  const nodes = await askCount(
    vscode.l10n.t('Nodes (vramLens.nodes)'),
    cfg.get<number>('nodes', 0),
    100_000,
    vscode.l10n.t('A whole number from 1 to 100000'),
  );
  if (nodes === undefined) return;
  const target = vscode.workspace.workspaceFolders?.length
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
  await cfg.update('gpusPerNode', perNode, target);
  await cfg.update('nodes', nodes, target);
  log.info(
    `vramLens.gpusPerNode = ${perNode}, vramLens.nodes = ${nodes} (${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings)`,
  );
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Saved for this workspace: {0} GPU(s) per node, {1} node(s).', perNode, nodes),
  );
}
