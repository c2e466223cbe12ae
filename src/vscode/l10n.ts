// The panel's strings translated by VS Code's l10n (l10n/bundle.l10n.<locale>.json), passed to the webview in the
// model so the webview itself needs no localisation runtime.
import * as vscode from 'vscode';
import { PANEL_STRINGS } from '../../webview-ui/src/strings';

export function panelStrings(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of PANEL_STRINGS) out[s] = vscode.l10n.t(s);
  return out;
}
