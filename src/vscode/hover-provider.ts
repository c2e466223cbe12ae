// The hover: offset in, markdown out (features/hover.ts decides what to say).
import * as vscode from 'vscode';
import { hoverAt, OPEN_PANEL_COMMAND } from '../features/hover';
import type { ExtContext } from './context';

export function provideHover(ctx: ExtContext, doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
  return ctx.guard('hover', () => {
    const a = ctx.analysis(doc);
    if (!a) return undefined;
    const md = hoverAt(a, doc.offsetAt(pos), doc.getText(), (m, ...args) => vscode.l10n.t(m, ...args));
    if (!md) return undefined;
    const ms = new vscode.MarkdownString(md);
    ms.isTrusted = { enabledCommands: [OPEN_PANEL_COMMAND] };
    return new vscode.Hover(ms);
  });
}
