// The VRAM Lens language server: runs every analysis in its own process, so no file, however large or strange, can
// stall the editor. Diagnostics are pushed for open training configs; hovers, quick fixes (through a command that
// re-checks the files before writing), the status bar and the panel are answered from the same Analysis.
import * as path from 'node:path';
import {
  createConnection,
  DiagnosticSeverity,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeParams,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { fileURLToPath } from 'node:url';
import { detectFormat } from '../analyzers/detect';
import { spanOfKey } from '../features/findings';
import { hoverAt } from '../features/hover';
import { buildPanelModel } from '../features/panel-model';
import type { Analysis } from '../features/analysis';
import type { CanonicalKey } from '../analyzers/facts';
import {
  APPLY_FIX_COMMAND,
  Methods,
  type ApplyFixArgs,
  type PanelResult,
  type ServerInit,
  type StatusResult,
} from '../protocol/server';
import { Analyses, bundleTranslator } from './analyses';
import { fileDiagnostic, toDiagnostic } from './diagnostics';
import { applyAdvice, applyChanges, applyFix, codeActions, type FixContext } from './fixes';
import { RunIndex } from './runs';
import { fsPathOf, Workspace } from './workspace';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const workspace = new Workspace(false, process.env);
const runs = new RunIndex(workspace, () => {
  workspace.changed();
  refreshAll();
});
let analyses: Analyses;
let ctx: FixContext;

const DEBOUNCE_MS = 200;
const timers = new Map<string, ReturnType<typeof setTimeout>>();

/** A document VRAM Lens reads (by its name and content). */
function isConfig(doc: TextDocument): boolean {
  if (!doc.uri.startsWith('file:') && !doc.uri.startsWith('untitled:')) return false;
  return detectFormat(fsPathOf(doc.uri), doc.getText(), doc.languageId) !== undefined;
}

/**
 * The analysis of a document VRAM Lens reads: a config by its name and content, a JSON / YAML file a script of one of
 * the workspace's runs loads for its values (its analysis holds the run, at its keys: analyzers/script-data.ts), or a
 * Python module a script of a run imports (a settings module, a dataclass config: the run's estimate).
 */
async function analysisOf(doc: TextDocument): Promise<Analysis | undefined> {
  if (isConfig(doc)) return analyses.analysis(doc);
  if (!loadedByRun(doc)) return undefined;
  const a = await analyses.analysis(doc);
  if (a?.format === 'script-data') return a;
  // A module the run imports keeps the problems found in it; the run's fit, which no key of the module drives, is in
  // the status bar and the panel rather than on its first line.
  const module = /\.py$/i.test(fsPathOf(doc.uri)) && a?.setup !== undefined;
  return module ? { ...a, findings: a.findings.filter((f) => !FIT_CODES.has(f.code)) } : undefined;
}

/** The findings of a run's fit on the GPU, placed at the key that drives the peak. */
const FIT_CODES: ReadonlySet<string> = new Set(['exceeds-gpu-memory', 'near-gpu-memory', 'variable-length-cache']);

/** Whether a document no format takes alone is a file of a run, by the workspace's index (a script loads it). */
function loadedByRun(doc: TextDocument): boolean {
  return doc.uri.startsWith('file:') && runs.ready && runs.runFor(fsPathOf(doc.uri)) !== undefined;
}

async function publish(doc: TextDocument): Promise<void> {
  const settings = await analyses.settings(doc.uri);
  if (!settings['diagnostics.enabled'] || (!isConfig(doc) && !loadedByRun(doc))) {
    void connection.sendDiagnostics({ uri: doc.uri, diagnostics: [] });
    return;
  }
  if (analyses.isSkipped(doc)) {
    const message = analyses.translate(
      'VRAM Lens stopped analyzing this version of the file: it took longer than the time budget. Edit the file to try again.',
    );
    void connection.sendDiagnostics({ uri: doc.uri, diagnostics: [fileDiagnostic('not-analyzed', message)] });
    return;
  }
  const a = await analysisOf(doc);
  const diagnostics = a ? a.findings.map((f) => toDiagnostic(doc, f)) : [];
  const several = runs.ready ? runs.runsOf(fsPathOf(doc.uri)) : [];
  if (a && several.length > 1) {
    const followed = runs.runFor(fsPathOf(doc.uri))?.entry ?? several[0].entry;
    const names = several.map((r) => path.basename(r.entry)).join(', ');
    diagnostics.push(
      fileDiagnostic(
        'several-runs',
        analyses.translate(
          'This file belongs to {0} runs ({1}); the estimate follows {2}. Run "VRAM Lens: Choose the Run" to follow another.',
          several.length,
          names,
          path.basename(followed),
        ),
        DiagnosticSeverity.Information,
      ),
    );
  }
  void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics });
}

function schedule(doc: TextDocument, delay = DEBOUNCE_MS): void {
  clearTimeout(timers.get(doc.uri));
  timers.set(
    doc.uri,
    setTimeout(() => {
      timers.delete(doc.uri);
      void publish(doc).catch((e: unknown) =>
        connection.console.error(`diagnostics failed for ${doc.uri}: ${errorText(e)}`),
      );
      void connection.sendNotification(Methods.refreshed, {});
    }, delay),
  );
}

function refreshAll(): void {
  for (const doc of documents.all()) schedule(doc);
}

function errorText(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}

/** Runs a request handler; a failure is logged with its stack and answers `fallback`, so one feature never breaks another. */
async function guard<T>(name: string, fallback: T, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    connection.console.error(`${name} failed: ${errorText(e)}`);
    return fallback;
  }
}

connection.onInitialize((params: InitializeParams) => {
  const init = (params.initializationOptions ?? {}) as Partial<ServerInit>;
  workspace.trusted = init.trusted === true;
  workspace.setFolders(
    (params.workspaceFolders ?? []).filter((f) => f.uri.startsWith('file:')).map((f) => fileURLToPath(f.uri)),
  );
  analyses = new Analyses(
    connection,
    workspace,
    runs,
    bundleTranslator(init.bundle),
    process.env,
    refreshAll,
    init.skipped ?? [],
  );
  for (const [file, entry] of Object.entries(init.runChoices ?? {})) runs.choose(file, entry);
  ctx = { connection, documents, workspace, analyses };
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      executeCommandProvider: { commands: [APPLY_FIX_COMMAND] },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
  };
});

connection.onInitialized(() => {
  runs.rebuild();
  connection.workspace.onDidChangeWorkspaceFolders(async () => {
    const folders = (await connection.workspace.getWorkspaceFolders()) ?? [];
    workspace.setFolders(folders.filter((f) => f.uri.startsWith('file:')).map((f) => fileURLToPath(f.uri)));
    runs.rebuild();
    refreshAll();
  });
});

documents.onDidOpen((e) => {
  workspace.setOpen(e.document);
  schedule(e.document, 0);
});
documents.onDidChangeContent((e) => {
  workspace.setOpen(e.document);
  runs.update(fsPathOf(e.document.uri));
  refreshAll();
});
documents.onDidClose((e) => {
  workspace.closeOpen(e.document);
  analyses.forget(e.document.uri);
  clearTimeout(timers.get(e.document.uri));
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  refreshAll();
});
connection.onDidChangeWatchedFiles((params) => {
  workspace.changed();
  for (const change of params.changes) if (change.uri.startsWith('file:')) runs.update(fileURLToPath(change.uri));
  refreshAll();
});
connection.onDidChangeConfiguration(() => {
  analyses.settingsChanged();
  workspace.changed();
  refreshAll();
});
connection.onNotification(Methods.tooLarge, (p: { uri: string; chars: number; head: string; languageId: string }) => {
  // Only a file that looks like a training config by its name and first 64 KB gets the note.
  if (!detectFormat(fsPathOf(p.uri), p.head, p.languageId)) return;
  const size = `${(p.chars / 1024 / 1024).toFixed(1)} MiB`;
  const message = analyses.translate(
    'this file is not analyzed: it has {0} of text, and VRAM Lens reads configs like it up to {1}',
    size,
    '1.0 MiB',
  );
  void connection.sendDiagnostics({ uri: p.uri, diagnostics: [fileDiagnostic('not-analyzed', message)] });
});
connection.onNotification(Methods.trusted, () => {
  workspace.trusted = true;
  workspace.changed();
  refreshAll();
});

connection.onHover((params) =>
  guard('hover', null, async () => {
    const doc = documents.get(params.textDocument.uri);
    const a = doc ? await analysisOf(doc) : undefined;
    if (!doc) return null;
    const md = a ? hoverAt(a, doc.offsetAt(params.position), doc.getText(), analyses.translate) : undefined;
    return md ? { contents: { kind: 'markdown' as const, value: md } } : null;
  }),
);

connection.onCodeAction((params) => guard('code actions', [], () => codeActions(ctx, params)));

connection.onExecuteCommand((params) =>
  guard('apply fix', undefined, async () => {
    if (params.command === APPLY_FIX_COMMAND && params.arguments?.[0])
      await applyFix(ctx, params.arguments[0] as ApplyFixArgs);
  }),
);

connection.onRequest(Methods.status, (p: { uri: string }) =>
  guard<StatusResult>('status', { state: 'none' }, async () => {
    const doc = documents.get(p.uri);
    const a = doc ? await analysisOf(doc) : undefined;
    if (!a) return { state: 'none' };
    const e = a.estimate;
    if (!e) return { state: 'no-estimate', reason: a.findings.find((f) => f.code === 'unknown-model')?.message };
    return {
      state: 'estimate',
      deviceBytes: e.perGpu.deviceBytes,
      peakBytes: e.perGpu.peakBytes,
      reservedBytes: e.perGpu.reservedBytes,
      phase: e.perGpu.phase,
      gpu: a.gpu ? { id: a.gpu.id, memoryBytes: a.gpu.memoryBytes } : undefined,
      fits: e.fits,
    };
  }),
);

connection.onRequest(Methods.panel, (p: { uri: string; strings: Record<string, string> }) =>
  guard<PanelResult>('panel', {}, async () => {
    const doc = documents.get(p.uri);
    const a = doc ? await analysisOf(doc) : undefined;
    if (!a) return {};
    return buildPanelModel(a, p.strings);
  }),
);

connection.onRequest(Methods.applyAdvice, (p: { uri: string; adviceId: string }) =>
  guard('apply advice', { applied: false }, () => applyAdvice(ctx, p.uri, p.adviceId)),
);

connection.onRequest(Methods.applyChanges, (p: unknown) =>
  guard('apply what-if changes', { applied: false }, () => applyChanges(ctx, p)),
);

connection.onRequest(Methods.keySpan, (p: { uri: string; key: string }) =>
  guard('reveal key', null, async () => {
    const doc = documents.get(p.uri);
    const a = doc ? await analyses.analysis(doc) : undefined;
    return (a && spanOfKey(a, p.key as CanonicalKey)) ?? null;
  }),
);

connection.onRequest(Methods.runs, (p: { uri: string }) =>
  guard('runs', [], () => runs.runsOf(fsPathOf(p.uri)).map((r) => r.entry)),
);
connection.onNotification(Methods.chooseRun, (p: { uri: string; entry: string }) => {
  runs.choose(fsPathOf(p.uri), p.entry);
  workspace.changed();
  refreshAll();
});

documents.listen(connection);
connection.listen();
