// Starts the VRAM Lens language server (dist/server.js, a process of its own, so no analysis can stall the editor)
// and keeps it honest: a watchdog restarts it when one analysis runs past the time budget, and that document version
// is then skipped with a diagnostic that says so. Trust, the l10n bundle and the watched files are passed to it.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { OPEN_PANEL_COMMAND } from '../features/hover';
import { MAX_SYNCED_CHARS, Methods, type ServerInit, type SkippedDocument } from '../protocol/server';
import { CONFIG_FILTERS } from './selector';
import { timed } from './timings';

/** Where the run chosen for each file is remembered (workspace state). */
const RUN_CHOICES = 'vramLens.runChoices';
/** How long one analysis may run before the server is restarted without it. */
export const ANALYSIS_BUDGET_MS = 8000;
/** The files whose changes can change an analysis: configs, scripts and the dependency pins. */
const WATCHED = '**/*.{json,jsonc,hjson,conf,yaml,yml,py,sh,bash,slurm,sbatch,txt,toml,cfg}';

export class ServerClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly skipped: SkippedDocument[] = [];
  private inFlight: { uri: string; version: number; since: number } | undefined;
  /** Documents too large to send to the server (their text never crosses the process boundary). */
  private readonly large = new Set<string>();
  private readonly watchdog: ReturnType<typeof setInterval>;
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when analyses may have changed (the status bar and the panel refresh). */
  readonly onDidRefresh = this.emitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.watchdog = setInterval(() => this.check(), 1000);
  }

  async start(): Promise<void> {
    const module = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'server.js').fsPath;
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: ['file', 'untitled'].flatMap((scheme) => CONFIG_FILTERS.map((f) => ({ ...f, scheme }))),
      synchronize: { configurationSection: 'vramLens', fileEvents: vscode.workspace.createFileSystemWatcher(WATCHED) },
      initializationOptions: (): ServerInit => ({
        trusted: vscode.workspace.isTrusted,
        bundle: vscode.l10n.bundle,
        skipped: this.skipped,
        runChoices: this.runChoices(),
      }),
      markdown: { isTrusted: { enabledCommands: [OPEN_PANEL_COMMAND] } },
      outputChannel: this.log,
      diagnosticCollectionName: 'vram-lens',
      middleware: {
        didOpen: async (doc, next) => (timed('didOpen', () => this.isLarge(doc)) ? this.sendTooLarge(doc) : next(doc)),
        didChange: async (e, next) =>
          timed('didChange', () => this.large.has(e.document.uri.toString())) ? undefined : next(e),
        didClose: async (doc, next) => (this.large.delete(doc.uri.toString()) ? undefined : next(doc)),
      },
    };
    const client = new LanguageClient('vramLens', vscode.l10n.t('VRAM Lens'), serverOptions, clientOptions);
    client.onNotification(Methods.analyzing, (p: { uri: string | null; version?: number }) => {
      this.inFlight = p.uri ? { uri: p.uri, version: p.version ?? 0, since: Date.now() } : undefined;
    });
    client.onNotification(Methods.refreshed, () => this.emitter.fire());
    this.client = client;
    const started = performance.now();
    await client.start();
    this.log.info(`language server started in ${Math.round(performance.now() - started)} ms (${module})`);
    this.context.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => void client.sendNotification(Methods.trusted)),
    );
  }

  /**
   * Whether a document is over MAX_SYNCED_CHARS, decided without touching its text: a saved file by its size on disk
   * (building the text or its line offsets of a 20 MB document would itself be a long task), else by its lines.
   */
  private isLarge(doc: vscode.TextDocument): boolean {
    if (this.sizeOf(doc) <= MAX_SYNCED_CHARS) return false;
    this.large.add(doc.uri.toString());
    return true;
  }

  private sizeOf(doc: vscode.TextDocument): number {
    if (doc.uri.scheme === 'file' && !doc.isDirty) {
      try {
        return fs.statSync(doc.uri.fsPath).size;
      } catch {
        // Not on disk any more: measured by its lines below.
      }
    }
    return doc.lineCount > 20_000 ? Infinity : doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end);
  }

  private async sendTooLarge(doc: vscode.TextDocument): Promise<void> {
    const chars = this.sizeOf(doc);
    this.log.info(`${doc.uri.fsPath}: ${chars} characters, not sent to the server`);
    const head = timed('tooLarge', () =>
      doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 2000), 0)).slice(0, 65_536),
    );
    await this.client?.sendNotification(Methods.tooLarge, {
      uri: doc.uri.toString(),
      chars,
      head,
      languageId: doc.languageId,
    });
  }

  private runChoices(): Record<string, string> {
    return this.context.workspaceState.get<Record<string, string>>(RUN_CHOICES, {});
  }

  /** Lets the user pick which run a file that belongs to several follows (remembered for the workspace). */
  async chooseRun(doc: vscode.TextDocument | undefined): Promise<void> {
    if (!doc) return;
    const entries = (await this.request<string[]>(Methods.runs, { uri: doc.uri.toString() })) ?? [];
    if (entries.length === 0) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'No other file of the workspace runs {0}: it is a run of its own.',
          vscode.workspace.asRelativePath(doc.uri),
        ),
      );
      return;
    }
    const pick = await vscode.window.showQuickPick(
      entries.map((e) => ({ label: vscode.workspace.asRelativePath(e), entry: e })),
      {
        placeHolder: vscode.l10n.t('The run whose estimate {0} shows', vscode.workspace.asRelativePath(doc.uri)),
      },
    );
    if (!pick) return;
    await this.context.workspaceState.update(RUN_CHOICES, { ...this.runChoices(), [doc.uri.fsPath]: pick.entry });
    this.log.info(`${doc.uri.fsPath} follows the run of ${pick.entry}`);
    await this.client?.sendNotification(Methods.chooseRun, { uri: doc.uri.toString(), entry: pick.entry });
  }

  /** A request to the server, or undefined when it is not running. */
  async request<R>(method: string, params: unknown): Promise<R | undefined> {
    if (!this.client?.isRunning()) return undefined;
    return this.client.sendRequest<R>(method, params);
  }

  /** Restarts the server without the document version whose analysis has run past the budget. */
  private check(): void {
    const f = this.inFlight;
    if (!f || Date.now() - f.since < ANALYSIS_BUDGET_MS) return;
    this.inFlight = undefined;
    this.skipped.push({ uri: f.uri, version: f.version });
    this.log.warn(
      `analysis of ${f.uri} (version ${f.version}) ran past ${ANALYSIS_BUDGET_MS} ms; restarting the server without it`,
    );
    void this.client?.restart().catch((e: unknown) => this.log.error(`restarting the server failed: ${String(e)}`));
  }

  dispose(): void {
    clearInterval(this.watchdog);
    this.emitter.dispose();
    void this.client?.stop();
  }
}
