// The VRAM panel host: one webview beside the editor, following the active config document. HTML comes from
// one function with a strict CSP and a nonce; no data in the HTML: the webview posts `ready` and gets the model.
// Edits asked for in the panel go to the language server; the host answers with the files they changed, by id.
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ApplyResult, FromWebview, type ApplyChangesParams, type ToWebview } from '../protocol/messages';
import { Methods, type PanelResult } from '../protocol/server';
import type { ServerClient } from './client';
import { panelStrings } from './l10n';
import { isConfigDocument } from './selector';

export class BreakdownPanel implements vscode.Disposable {
  static current: BreakdownPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private doc: vscode.TextDocument | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Files edited from the panel, by the id the webview knows them by, with the first range each edit changed. */
  private readonly edited = new Map<string, { uri: vscode.Uri; range: vscode.Range }>();
  private nextFileId = 0;

  static show(client: ServerClient, extensionUri: vscode.Uri, doc: vscode.TextDocument | undefined): BreakdownPanel {
    if (BreakdownPanel.current) {
      BreakdownPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      if (doc) BreakdownPanel.current.follow(doc);
      return BreakdownPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(
      'vramLens.panel',
      vscode.l10n.t('VRAM Lens'),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
      },
    );
    BreakdownPanel.current = new BreakdownPanel(client, extensionUri, panel, doc);
    return BreakdownPanel.current;
  }

  private constructor(
    private readonly client: ServerClient,
    private readonly extensionUri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    doc: vscode.TextDocument | undefined,
  ) {
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
    const none = vscode.l10n.t(
      'Open a training config (DeepSpeed JSON, TrainingArguments, launch script, YAML or *.vram.yaml).',
    );
    const r = this.doc
      ? await this.client
          .request<PanelResult>(Methods.panel, { uri: this.doc.uri.toString(), strings: panelStrings() })
          .catch((e: unknown) => {
            this.client.log.error(`panel: ${String(e)}`);
            return undefined;
          })
      : undefined;
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
        const uri = this.doc.uri.toString();
        await this.applyAndReport(msg.requestId, `advice ${msg.adviceId}`, () =>
          this.client.request<unknown>(Methods.applyAdvice, { uri, adviceId: msg.adviceId }),
        );
        return;
      }
      case 'applyChanges': {
        if (!this.doc) return;
        const params: ApplyChangesParams = { uri: this.doc.uri.toString(), changes: msg.changes };
        const keys = msg.changes.map((c) => c.key).join(', ');
        await this.applyAndReport(msg.requestId, `what-if (${keys})`, () =>
          this.client.request<unknown>(Methods.applyChanges, params),
        );
        return;
      }
      case 'revealFile': {
        const target = this.edited.get(msg.fileId);
        if (!target) return;
        const editor = await vscode.window.showTextDocument(target.uri, {
          viewColumn: vscode.ViewColumn.One,
          preserveFocus: false,
        });
        editor.selection = new vscode.Selection(target.range.start, target.range.end);
        editor.revealRange(target.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        return;
      }
      case 'revealKey': {
        if (!this.doc) return;
        const span = await this.client.request<{ start: number; end: number } | null>(Methods.keySpan, {
          uri: this.doc.uri.toString(),
          key: msg.key,
        });
        if (!span) return;
        const editor = await vscode.window.showTextDocument(this.doc, {
          viewColumn: vscode.ViewColumn.One,
          preserveFocus: false,
        });
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

  /**
   * Sends one edit request to the server and tells the webview what came of it. The server applies the edit
   * through the client (workspace/applyEdit) before it answers, so the documents that change meanwhile are the
   * ones it edited; the webview gets their names and ids to reveal them, never their paths.
   */
  private async applyAndReport(requestId: number, what: string, send: () => Promise<unknown>): Promise<void> {
    const changed = new Map<string, { uri: vscode.Uri; range: vscode.Range }>();
    const watch = vscode.workspace.onDidChangeTextDocument((e) => {
      const first = e.contentChanges[0];
      if (!first || changed.has(e.document.uri.toString())) return;
      const start = first.range.start;
      const lines = first.text.split('\n');
      const end =
        lines.length > 1
          ? new vscode.Position(start.line + lines.length - 1, lines[lines.length - 1].length)
          : start.translate(0, first.text.length);
      changed.set(e.document.uri.toString(), { uri: e.document.uri, range: new vscode.Range(start, end) });
    });
    let result: ApplyResult;
    try {
      const parsed = ApplyResult.safeParse(await send());
      result = parsed.success
        ? parsed.data
        : { applied: false, message: vscode.l10n.t('The VRAM Lens server is not running; nothing was written.') };
    } catch (e) {
      const notHandled = (e as { code?: unknown }).code === -32601;
      result = {
        applied: false,
        message: notHandled
          ? vscode.l10n.t('This VRAM Lens server cannot write what-if changes yet; nothing was written.')
          : String(e instanceof Error ? e.message : e),
      };
    } finally {
      watch.dispose();
    }
    if (result.applied && changed.size === 0 && this.doc)
      changed.set(this.doc.uri.toString(), { uri: this.doc.uri, range: new vscode.Range(0, 0, 0, 0) });
    const files = result.applied
      ? [...changed.values()].map((f) => {
          const id = `f${this.nextFileId++}`;
          this.edited.set(id, f);
          if (this.edited.size > 32) this.edited.delete(this.edited.keys().next().value as string);
          return { id, name: path.posix.basename(f.uri.path) };
        })
      : [];
    const names = files.map((f) => f.name).join(', ');
    if (result.applied) this.client.log.info(`panel: wrote ${what} into ${names}`);
    else this.client.log.info(`panel: ${what} not written: ${result.message ?? ''}`);
    this.post({
      type: 'adviceApplied',
      requestId,
      applied: result.applied,
      ...(result.message ? { message: result.message } : {}),
      files,
    });
  }

  private html(): string {
    const w = this.panel.webview;
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = w.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const style = w.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.css'));
    const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src ${w.cspSource}; img-src ${w.cspSource} data:; font-src ${w.cspSource}`;
    return (
      `<!DOCTYPE html><html lang="${vscode.env.language}"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}">` +
      `<meta name="viewport" content="width=device-width, initial-scale=1.0"><link rel="stylesheet" href="${style}"><title>VRAM Lens</title></head>` +
      `<body><div id="root"></div><script nonce="${nonce}" src="${script}"></script></body></html>`
    );
  }

  dispose(): void {
    clearTimeout(this.timer);
    BreakdownPanel.current = undefined;
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
