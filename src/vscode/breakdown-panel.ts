// The VRAM panel host: one webview beside the editor, following the active config document. HTML comes from
// one function with a strict CSP and a nonce; no data in the HTML: the webview posts `ready` and gets the model.
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { FromWebview, type ToWebview } from '../protocol/messages';
import { Methods, type PanelResult } from '../protocol/server';
import type { ServerClient } from './client';
import { panelStrings } from './l10n';
import { isConfigDocument } from './selector';

export class BreakdownPanel implements vscode.Disposable {
  static current: BreakdownPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private doc: vscode.TextDocument | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  static show(client: ServerClient, extensionUri: vscode.Uri, doc: vscode.TextDocument | undefined): BreakdownPanel {
    if (BreakdownPanel.current) {
      BreakdownPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      if (doc) BreakdownPanel.current.follow(doc);
      return BreakdownPanel.current;
    }
    const panel = vscode.window.createWebviewPanel('vramLens.panel', vscode.l10n.t('VRAM Lens'), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
    });
    BreakdownPanel.current = new BreakdownPanel(client, extensionUri, panel, doc);
    return BreakdownPanel.current;
  }

  private constructor(private readonly client: ServerClient, private readonly extensionUri: vscode.Uri, readonly panel: vscode.WebviewPanel, doc: vscode.TextDocument | undefined) {
    this.doc = doc;
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m)),
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e && isConfigDocument(e.document)) this.follow(e.document);
      }),
      client.onDidRefresh(() => this.schedule()),
    );
  }

  follow(doc: vscode.TextDocument): void {
    this.doc = doc;
    void this.push();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.push(), 250);
  }

  private post(msg: ToWebview): void {
    void this.panel.webview.postMessage(msg);
  }

  private async push(): Promise<void> {
    const none = vscode.l10n.t('Open a training config (DeepSpeed JSON, TrainingArguments, launch script, YAML or *.vram.yaml).');
    const r = this.doc ? await this.client.request<PanelResult>(Methods.panel, { uri: this.doc.uri.toString(), strings: panelStrings() }).catch((e: unknown) => {
      this.client.log.error(`panel: ${String(e)}`);
      return undefined;
    }) : undefined;
    if (r?.model) this.post({ type: 'panelModel', model: r.model });
    else this.post({ type: 'noConfig', reason: r?.reason ?? none });
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = FromWebview.safeParse(raw);
    if (!parsed.success) {
      this.client.log.warn(`panel: dropped an invalid message: ${parsed.error.message}`);
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'ready':
        void this.push();
        return;
      case 'applyAdvice': {
        if (!this.doc) return;
        const r = await this.client.request<{ applied: boolean; message?: string }>(Methods.applyAdvice, { uri: this.doc.uri.toString(), adviceId: msg.adviceId });
        if (r && !r.applied && r.message) void vscode.window.showWarningMessage(r.message);
        return;
      }
      case 'revealKey': {
        if (!this.doc) return;
        const span = await this.client.request<{ start: number; end: number } | null>(Methods.keySpan, { uri: this.doc.uri.toString(), key: msg.key });
        if (!span) return;
        const editor = await vscode.window.showTextDocument(this.doc, { viewColumn: vscode.ViewColumn.One, preserveFocus: false });
        const range = new vscode.Range(this.doc.positionAt(span.start), this.doc.positionAt(span.end));
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
