// Reads the vramLens.* settings for a resource; validation and defaults live in features/settings.ts.
import * as vscode from 'vscode';
import { parseSettings, SETTING_KEYS, type Settings } from '../features/settings';

export function readSettings(scope: vscode.ConfigurationScope | undefined, log: (m: string) => void): Settings {
  const cfg = vscode.workspace.getConfiguration('vramLens', scope);
  const raw: Record<string, unknown> = {};
  for (const k of SETTING_KEYS) raw[k] = cfg.get(k);
  return parseSettings(raw, (k, v) => log(`setting vramLens.${k} is invalid (${JSON.stringify(v)}); using its default`));
}
