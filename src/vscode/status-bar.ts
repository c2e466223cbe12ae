// The status bar item for the active config: "VRAM 61.3 / 80 GiB (A100-80GB)", red when it does not fit;
// clicking it picks the GPU.
import * as vscode from 'vscode';
import { formatBytes } from '../core/units';
import type { ExtContext } from './context';
import { CommandId } from './commands';

export function registerStatusBar(ctx: ExtContext): vscode.Disposable[] {
  const item = vscode.window.createStatusBarItem('vramLens.status', vscode.StatusBarAlignment.Right, 100);
  item.name = vscode.l10n.t('VRAM Lens');
  item.command = CommandId.SelectGpu;
  const update = (): void => {
    ctx.guard('status bar', () => {
      const doc = vscode.window.activeTextEditor?.document;
      const a = doc ? ctx.analysis(doc) : undefined;
      if (!a) {
        item.hide();
        return;
      }
      const e = a.estimate;
      if (!e) {
        item.text = `$(circle-slash) ${vscode.l10n.t('VRAM: no estimate')}`;
        item.tooltip = a.findings.find((f) => f.code === 'unknown-model')?.message ?? vscode.l10n.t('The setup is incomplete.');
        item.backgroundColor = undefined;
      } else if (a.gpu) {
        item.text = `$(server) VRAM ${formatBytes(e.perGpu.deviceBytes).replace(' GiB', '')} / ${formatBytes(a.gpu.memoryBytes)} (${a.gpu.id})`;
        item.backgroundColor = e.fits === false ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
        item.tooltip = vscode.l10n.t('Peak per GPU in {0}: {1} allocated, {2} reserved, {3} on the device. Click to choose the GPU.', e.perGpu.phase, formatBytes(e.perGpu.peakBytes), formatBytes(e.perGpu.reservedBytes), formatBytes(e.perGpu.deviceBytes));
      } else {
        item.text = `$(server) VRAM ${formatBytes(e.perGpu.deviceBytes)}`;
        item.backgroundColor = undefined;
        item.tooltip = vscode.l10n.t('No GPU chosen: click to pick one.');
      }
      item.show();
    });
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(update, 300);
  };
  update();
  return [
    item,
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === vscode.window.activeTextEditor?.document) later();
    }),
    ctx.onDidInvalidate(update),
    { dispose: () => clearTimeout(timer) },
  ];
}
