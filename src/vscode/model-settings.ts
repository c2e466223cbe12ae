// The commands behind the quick fixes of "unknown model": Set vramLens.model (asks for a Hub id, a folder or a
// config.json and writes it for the workspace) and Allow network access (asks once, in a modal, before it sets
// vramLens.allowNetwork in the user settings; the setting is machine-scoped, so a workspace cannot turn it on).
import * as vscode from 'vscode';

export async function setModel(log: vscode.LogOutputChannel, arg?: { uri?: string }): Promise<void> {
  const scope = arg?.uri ? vscode.Uri.parse(arg.uri) : vscode.window.activeTextEditor?.document.uri;
  const cfg = vscode.workspace.getConfiguration('vramLens', scope);
  const value = await vscode.window.showInputBox({
    prompt: vscode.l10n.t(
      'The model VRAM Lens estimates with (vramLens.model): a Hugging Face id, a model folder or a config.json',
    ),
    placeHolder: 'Qwen/Qwen2.5-7B-Instruct',
    value: cfg.get<string>('model', ''),
    validateInput: (v) =>
      v.trim().length > 0 ? undefined : vscode.l10n.t('Enter a Hugging Face id, a folder or a config.json path'),
  });
  if (value === undefined) return;
  const target = vscode.workspace.workspaceFolders?.length
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
  await cfg.update('model', value.trim(), target);
  log.info(
    `vramLens.model = "${value.trim()}" written to the ${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings`,
  );
}

export async function allowNetwork(log: vscode.LogOutputChannel): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('vramLens');
  if (cfg.get<boolean>('allowNetwork', false)) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('VRAM Lens may already fetch config.json from the Hugging Face Hub (vramLens.allowNetwork).'),
    );
    return;
  }
  const allow = vscode.l10n.t('Allow');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t(
      'Let VRAM Lens download config.json and read the safetensors headers of the models your files name from the Hugging Face Hub? ' +
        'Nothing of your files is sent; what is fetched is cached. This sets vramLens.allowNetwork in your user settings.',
    ),
    { modal: true },
    allow,
  );
  if (answer !== allow) {
    log.info('network access for the Hugging Face Hub not allowed (declined)');
    return;
  }
  await cfg.update('allowNetwork', true, vscode.ConfigurationTarget.Global);
  log.info('vramLens.allowNetwork = true written to the user settings');
}
