// The features behind the thin activation shell (src/extension.ts): starts the language server client, the status
// bar and the panel, and answers the commands the shell registered.
import * as vscode from 'vscode';
import { ServerClient } from './client';
import { setGpuCount } from './gpu-count';
import { allowNetwork, setModel } from './model-settings';
import { openPanel, selectGpu } from './commands';
import { registerStatusBar } from './status-bar';
import { hostTimings } from './timings';
import { createLog, recentLog } from './log';

export interface Features {
  openPanel(): void;
  selectGpu(): Promise<void>;
  chooseRun(): Promise<void>;
  setGpuCount(): Promise<void>;
  setModel(arg?: { uri?: string }): Promise<void>;
  allowNetwork(): Promise<void>;
}

export function startFeatures(context: vscode.ExtensionContext): Features {
  const log = createLog();
  const client = new ServerClient(context, log);
  context.subscriptions.push(
    log,
    client,
    ...registerStatusBar(client),
    vscode.commands.registerCommand('vramLens.internal.hostTimings', hostTimings),
    vscode.commands.registerCommand('vramLens.internal.recentLog', recentLog),
  );
  client.start().catch((e: unknown) => {
    log.error(`the VRAM Lens server did not start: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    void vscode.window.showErrorMessage(
      vscode.l10n.t('VRAM Lens could not start: {0}', e instanceof Error ? e.message : String(e)),
    );
  });
  return {
    openPanel: () => openPanel(client, context.extensionUri),
    selectGpu: () => selectGpu(log),
    chooseRun: () => client.chooseRun(vscode.window.activeTextEditor?.document),
    setGpuCount: () => setGpuCount(log),
    setModel: (arg) => setModel(log, arg),
    allowNetwork: () => allowNetwork(log),
  };
}
