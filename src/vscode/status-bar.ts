// The status bar item for the active config: "VRAM 61.3 / 80 GiB (A100-80GB)", red when it does not fit;
// clicking it picks the GPU. The numbers come from the language server's analysis of the document.
import * as vscode from 'vscode';
import { formatBytes } from '../core';
import { Methods, type StatusResult } from '../protocol/server';
import type { ServerClient } from './client';
import { CommandId } from './commands';
import { timed } from './timings';

function show(item: vscode.StatusBarItem, r: StatusResult): void {
  if (r.state === 'none') {
    item.hide();
    return;
  }
  if (r.state === 'no-estimate' || r.deviceBytes === undefined) {
    item.text = `$(circle-slash) ${vscode.l10n.t('VRAM: no estimate')}`;
    item.tooltip = r.reason ?? vscode.l10n.t('The setup is incomplete.');
    item.backgroundColor = undefined;
  } else if (r.gpu) {
    item.text = `$(server) VRAM ${formatBytes(r.deviceBytes).replace(' GiB', '')} / ${formatBytes(r.gpu.memoryBytes)} (${r.gpu.id})`;
    item.backgroundColor = r.fits === false ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    item.tooltip = vscode.l10n.t(
      'Peak per GPU in {0}: {1} allocated, {2} reserved, {3} on the device. Click to choose the GPU.',
      r.phase ?? '',
      formatBytes(r.peakBytes ?? 0),
      formatBytes(r.reservedBytes ?? 0),
      formatBytes(r.deviceBytes),
    );
  } else {
    item.text = `$(server) VRAM ${formatBytes(r.deviceBytes)}`;
    item.backgroundColor = undefined;
    item.tooltip = vscode.l10n.t('No GPU chosen: click to pick one.');
  }
  item.show();
}

export function registerStatusBar(client: ServerClient): vscode.Disposable[] {
  const item = vscode.window.createStatusBarItem('vramLens.status', vscode.StatusBarAlignment.Right, 100);
  item.name = vscode.l10n.t('VRAM Lens');
  item.command = CommandId.SelectGpu;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The document the item speaks for: the active editor's, kept while the focus is in the VRAM panel, a terminal or
  // another view without a text editor (the panel's numbers and the item's then stay side by side).
  let doc = vscode.window.activeTextEditor?.document;
  const update = async (): Promise<void> => {
    if (doc?.isClosed) doc = undefined;
    const r = doc
      ? await client.request<StatusResult>(Methods.status, { uri: doc.uri.toString() }).catch(() => undefined)
      : undefined;
    timed('statusBar', () => show(item, r ?? { state: 'none' }));
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void update(), 150);
  };
  const follow = (e: vscode.TextEditor | undefined): void => {
    if (e) doc = e.document;
    later();
  };
  later();
  return [
    item,
    vscode.window.onDidChangeActiveTextEditor(follow),
    vscode.workspace.onDidCloseTextDocument(later),
    client.onDidRefresh(later),
    { dispose: () => clearTimeout(timer) },
  ];
}
