// One Analysis per document version, workspace generation and settings: computed on demand in the server process,
// never kept once any file of the workspace changed. Settings come from the client (workspace/configuration, which
// honours the restricted settings of an untrusted workspace); a model is fetched from the Hub only when the user
// allowed network access in a trusted workspace.
import type { Connection } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { InputFile } from '../analyzers/pipeline';
import type { ModelResolver } from '../analyzers/resolve';
import * as path from 'node:path';
import { analyzeDocument, type Analysis } from '../features/analysis';
import { verdictLine } from '../features/hover';
import { parseSettings, toAnalysisSettings, type Settings } from '../features/settings';
import { offlineModelResolver, prefetchModelResolver } from '../node/models';
import { Methods, type SkippedDocument } from '../protocol/server';
import type { RunIndex } from './runs';
import { fsPathOf, type Workspace } from './workspace';

export type Translate = (message: string, ...args: Array<string | number>) => string;

/** A translate function over an l10n bundle (message -> translation); placeholders are filled after translation. */
export function bundleTranslator(bundle: Readonly<Record<string, string>> | undefined): Translate {
  return (m, ...args) =>
    (bundle?.[m] ?? m).replace(/\{(\d+)\}/g, (x, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : x));
}

const NETWORK_HINT = 'the vramLens.allowNetwork setting';

export class Analyses {
  private readonly cache = new Map<string, { key: string; analysis: Analysis }>();
  private readonly settingsCache = new Map<string, Settings>();
  private readonly fetched = new Map<string, ModelResolver>();
  private readonly skipped = new Set<string>();

  constructor(
    private readonly connection: Connection,
    private readonly workspace: Workspace,
    private readonly runs: RunIndex,
    readonly translate: Translate,
    private readonly env: Readonly<Record<string, string | undefined>>,
    /** Called when a model arrived from the Hub, so that every open document is analyzed again. */
    private readonly onModelFetched: () => void,
    skipped: readonly SkippedDocument[] = [],
  ) {
    for (const s of skipped) this.skipped.add(`${s.uri}@${s.version}`);
  }

  /** Whether this document version ran past the time budget in an earlier server (it is not analyzed again). */
  isSkipped(doc: TextDocument): boolean {
    return this.skipped.has(`${doc.uri}@${doc.version}`);
  }

  /** The settings of a document (fetched once per configuration change). */
  async settings(uri: string): Promise<Settings> {
    const hit = this.settingsCache.get(uri);
    if (hit) return hit;
    const raw = ((await this.connection.workspace.getConfiguration({ scopeUri: uri, section: 'vramLens' })) ??
      {}) as Record<string, unknown>;
    const flat: Record<string, unknown> = {
      ...raw,
      'diagnostics.enabled': (raw.diagnostics as { enabled?: unknown } | undefined)?.enabled,
    };
    const settings = parseSettings(flat, (k, v) =>
      this.connection.console.warn(`setting vramLens.${k} is invalid (${JSON.stringify(v)}); using its default`),
    );
    this.settingsCache.set(uri, settings);
    return settings;
  }

  settingsChanged(): void {
    this.settingsCache.clear();
    this.cache.clear();
  }

  forget(uri: string): void {
    this.cache.delete(uri);
    this.settingsCache.delete(uri);
  }

  /** The Analysis of a document at its current version, generation and settings. */
  async analysis(doc: TextDocument): Promise<Analysis | undefined> {
    if (this.isSkipped(doc)) return undefined;
    const settings = await this.settings(doc.uri);
    const key = `${doc.version}|${this.workspace.generation}|${JSON.stringify(settings)}`;
    const hit = this.cache.get(doc.uri);
    if (hit && hit.key === key) return hit.analysis;
    const file = fsPathOf(doc.uri);
    const cwd = this.workspace.cwdOf(file);
    void this.connection.sendNotification(Methods.analyzing, { uri: doc.uri, version: doc.version });
    const started = performance.now();
    try {
      const analysis = analyzeDocument(
        { file, text: doc.getText(), languageId: doc.languageId },
        toAnalysisSettings(settings),
        {
          reader: this.workspace.reader(cwd),
          resolver: this.resolverFor(settings, cwd),
          related: this.relatedFiles(file),
          translate: this.translate,
        },
      );
      this.cache.set(doc.uri, { key, analysis });
      this.connection.console.info(this.describe(analysis, Math.round(performance.now() - started)));
      if (settings.allowNetwork && this.workspace.trusted && !analysis.setup)
        this.fetchInBackground(analysis, settings, cwd);
      return analysis;
    } finally {
      void this.connection.sendNotification(Methods.analyzing, { uri: null });
    }
  }

  /** One line for the output channel: what was analysed (the file, its run's entry and files), the headline, the time. */
  private describe(a: Analysis, ms: number): string {
    const entry = this.runs.ready ? this.runs.runFor(a.file)?.entry : undefined;
    const files = a.pipeline.files.map((f) =>
      f.origin ? `${path.basename(f.file)} (${f.origin.kind})` : path.basename(f.file),
    );
    const run = `${entry && entry !== a.file ? `run of ${path.basename(entry)}` : 'run'}: ${files.join(', ') || path.basename(a.file)}`;
    const e = a.estimate;
    const reason =
      a.findings.find((f) => f.severity === 'error')?.message ?? a.estimateErrors?.[0]?.message ?? 'no estimate';
    const headline = e
      ? `${verdictLine(e)}, peak in ${e.perGpu.phase}`
      : `no estimate (${reason.length > 160 ? `${reason.slice(0, 157)}...` : reason})`;
    return `analysed ${a.file} [${a.format ?? 'not a config'}] in ${ms} ms; ${run}; ${headline}; ${a.findings.length} diagnostic(s)`;
  }

  /** The other files of the document's run: its entry file from the index, or the files beside it while the index builds. */
  private relatedFiles(file: string): InputFile[] {
    if (!this.runs.ready) return this.workspace.relatedFiles(file);
    return [...(this.runs.runFor(file)?.inputs ?? [])];
  }

  private resolverFor(settings: Settings, cwd: string): ModelResolver {
    const offline = offlineModelResolver({
      cwd,
      env: this.env,
      networkHint: NETWORK_HINT,
      roots: this.workspace.allowedRoots(),
    });
    if (!settings.allowNetwork || !this.workspace.trusted || this.fetched.size === 0) return offline;
    return (ref, from) => (this.fetched.get(ref) ?? offline)(ref, from);
  }

  /** With network allowed in a trusted workspace, fetches a model the files name from the Hub, then recomputes. */
  private fetchInBackground(a: Analysis, settings: Settings, cwd: string): void {
    const ref = settings.model || (a.pipeline.decided.model?.fact.value as string | undefined);
    if (typeof ref !== 'string' || this.fetched.has(ref)) return;
    this.fetched.set(ref, offlineModelResolver({ cwd, env: this.env }));
    this.connection.console.info(
      `fetching config.json of ${ref} from the Hugging Face Hub (vramLens.allowNetwork is on)`,
    );
    prefetchModelResolver([ref], { cwd, env: this.env, allowNetwork: true, networkHint: NETWORK_HINT })
      .then((r) => {
        const got = r(ref);
        this.connection.console.info(got.ok ? `${ref}: ${got.model.source}` : `${ref}: ${got.message}`);
        this.fetched.set(ref, r);
        this.workspace.changed();
        this.onModelFetched();
      })
      .catch((e: unknown) => this.connection.console.warn(`fetching ${ref} from the Hub failed: ${String(e)}`));
  }
}
