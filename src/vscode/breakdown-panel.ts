// The VRAM panel host: one webview beside the editor, following the active config document. HTML comes from
// one function with a strict CSP and a nonce; no data in the HTML: the webview posts `ready` and gets the model.
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import type { Analysis } from '../features/analysis';
import { buildPanelModel } from '../features/panel-model';
import { editsForChanges } from '../features/fixes';
import { fixFiles } from '../features/quick-fixes';
import { spanOfKey } from '../features/findings';
import { FromWebview, type ToWebview } from '../protocol/messages';
import type { CanonicalKey } from '../analyzers/facts';
import type { ExtContext } from './context';
import { toRange, toWorkspaceEdit } from './convert';
import { panelStrings } from './l10n';

export class BreakdownPanel implements vscode.Disposable {
  static current: BreakdownPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private doc: vscode.TextDocument | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  static show(ctx: ExtContext, extensionUri: vscode.Uri, doc: vscode.TextDocument | undefined): BreakdownPanel {
    if (BreakdownPanel.current) {
      BreakdownPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      if (doc) BreakdownPanel.current.follow(doc);
      return BreakdownPanel.current;
    }
    const panel = vscode.window.createWebviewPanel('vramLens.panel', vscode.l10n.t('VRAM Lens'), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
    });
    BreakdownPanel.current = new BreakdownPanel(ctx, extensionUri, panel, doc);
    return BreakdownPanel.current;
  }

  private constructor(private readonly ctx: ExtContext, private readonly extensionUri: vscode.Uri, readonly panel: vscode.WebviewPanel, doc: vscode.TextDocument | undefined) {
    this.doc = doc;
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m)),
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e && ctx.isConfig(e.document)) this.follow(e.document);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.doc && e.document.uri.toString() === this.doc.uri.toString()) this.schedule();
      }),
      ctx.onDidInvalidate(() => this.schedule()),
    );
  }

  follow(doc: vscode.TextDocument): void {
    this.doc = doc;
    this.push();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.push(), 250);
  }

  private post(msg: ToWebview): void {
    void this.panel.webview.postMessage(msg);
  }

  private analysis(): Analysis | undefined {
    return this.doc ? this.ctx.analysis(this.doc) : undefined;
  }

  private push(): void {
    this.ctx.guard('panel', () => {
      const a = this.analysis();
      if (!a) {
        this.post({ type: 'noConfig', reason: vscode.l10n.t('Open a training config (DeepSpeed JSON, TrainingArguments, launch script, YAML or *.vram.yaml).') });
        return;
      }
      const r = buildPanelModel(a, panelStrings());
      if (r.model) this.post({ type: 'panelModel', model: r.model });
      else this.post({ type: 'noConfig', reason: r.reason ?? '' });
    });
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = FromWebview.safeParse(raw);
    if (!parsed.success) {
      this.ctx.log.warn(`panel: dropped an invalid message: ${parsed.error.message}`);
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'ready':
        this.push();
        return;
      case 'applyAdvice': {
        const a = this.analysis();
        const item = a?.advice()?.items.find((i) => i.id === msg.adviceId);
        if (!a || !item) return;
        const plan = editsForChanges(item.changes, fixFiles(a), a.file);
        if (plan.edits.length === 0 || plan.unsupported.length > 0) {
          void vscode.window.showWarningMessage(vscode.l10n.t('This change cannot be written into these files: {0}', plan.unsupported.map((u) => u.reason).join('; ')));
          return;
        }
        await vscode.workspace.applyEdit(await toWorkspaceEdit(plan.edits));
        return;
      }
      case 'revealKey': {
        const a = this.analysis();
        if (!a || !this.doc) return;
        const span = spanOfKey(a, msg.key as CanonicalKey);
        if (!span) return;
        const editor = await vscode.window.showTextDocument(this.doc, { viewColumn: vscode.ViewColumn.One, preserveFocus: false });
        const range = toRange(this.doc, span);
        editor.selection = new vscode.Selection(range.start, range.end);
        editor.revealRange(range);
        return;
      }
      default: {
        const never: never = msg;
        void never;
      }
    }
  }

  private html(): string {
    const w = this.panel.webview;
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = w.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const style = w.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.css'));
    const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${w.cspSource}; img-src ${w.cspSource} data:; font-src ${w.cspSource}`;
    return `<!DOCTYPE html><html lang="${vscode.env.language}"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}">`
      + `<meta name="viewport" content="width=device-width, initial-scale=1.0"><link rel="stylesheet" href="${style}"><title>VRAM Lens</title></head>`
      + `<body><div id="root"></div><script nonce="${nonce}" src="${script}"></script></body></html>`;
  }

  dispose(): void {
    clearTimeout(this.timer);
    BreakdownPanel.current = undefined;
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
