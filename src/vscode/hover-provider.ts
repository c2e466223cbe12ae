// Registers the hover: offset in, markdown out (features/hover.ts decides what to say).
import * as vscode from 'vscode';
import { hoverAt, OPEN_PANEL_COMMAND } from '../features/hover';
import type { ExtContext } from './context';
import { CONFIG_SELECTOR } from './selector';

export function registerHoverProvider(ctx: ExtContext): vscode.Disposable {
  return vscode.languages.registerHoverProvider(CONFIG_SELECTOR, {
    provideHover: (doc, pos) => ctx.guard('hover', () => {
      const a = ctx.analysis(doc);
      if (!a) return undefined;
      const md = hoverAt(a, doc.offsetAt(pos), doc.getText(), (m, ...args) => vscode.l10n.t(m, ...args));
      if (!md) return undefined;
      const ms = new vscode.MarkdownString(md);
      ms.isTrusted = { enabledCommands: [OPEN_PANEL_COMMAND] };
      return new vscode.Hover(ms);
    }),
  });
}
