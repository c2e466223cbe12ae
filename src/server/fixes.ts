// Quick fixes and panel advice written into the user's files by the server: offered only when every file they edit
// is inside the workspace and still holds the text they were computed on, applied through a command that recomputes
// them, checks the texts again, and sends versioned edits (the client refuses them if a document changed since).
// An edit to another file than the active one is marked for confirmation, so the editor shows it before writing.
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  type AnnotatedTextEdit,
  type CodeAction,
  type CodeActionParams,
  type Connection,
  type Diagnostic,
  type TextDocumentEdit,
  type TextDocuments,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis } from '../features/analysis';
import { editsForChanges, type EditData } from '../features/fixes';
import { gpuCountNote } from '../features/findings';
import { fixFiles, keyFixes, quickFixes } from '../features/quick-fixes';
import { ApplyChangesParams } from '../protocol/messages';
import { TrainingSetupSchema, type TrainingSetup } from '../core';
import type { SetupChange } from '../core';
import {
  ALLOW_NETWORK_COMMAND,
  APPLY_FIX_COMMAND,
  SET_GPU_COUNT_COMMAND,
  SET_MODEL_COMMAND,
  type ApplyFixArgs,
} from '../protocol/server';
import type { Analyses } from './analyses';
import { DIAGNOSTIC_SOURCE } from './diagnostics';
import { fsPathOf, textHash, type Workspace } from './workspace';

const MEMORY_CODES = new Set(['exceeds-gpu-memory', 'near-gpu-memory']);
const OTHER_FILE = 'vramLens.otherFile';

export interface FixContext {
  readonly connection: Connection;
  readonly documents: TextDocuments<TextDocument>;
  readonly workspace: Workspace;
  readonly analyses: Analyses;
}

/** The hash of every file text a fix was computed on, keyed by file. */
function basesOf(a: Analysis, edits: readonly EditData[]): Record<string, string> {
  const texts = new Map(fixFiles(a).map((f) => [f.file, f.text]));
  const out: Record<string, string> = {};
  for (const e of edits) out[e.file] ??= textHash(texts.get(e.file) ?? '');
  return out;
}

/** Why the edits may not be written now (a file outside the workspace, or changed since), or undefined. */
function refusal(ctx: FixContext, bases: Readonly<Record<string, string>>): string | undefined {
  for (const [file, hash] of Object.entries(bases)) {
    if (!ctx.workspace.inside(file))
      return ctx.analyses.translate('{0} is outside the workspace; VRAM Lens does not write there', file);
    const now = ctx.workspace.currentText(file);
    if (now === undefined || textHash(now) !== hash)
      return ctx.analyses.translate(
        '{0} changed since this fix was computed; choose it again from the refreshed list',
        path.basename(file),
      );
  }
  return undefined;
}

function otherFiles(edits: readonly EditData[], active: string): string[] {
  return [...new Set(edits.map((e) => e.file).filter((f) => f !== active))];
}

/** The quick fixes for the diagnostics in the request's range: memory changes, the model, deprecated keys. */
export async function codeActions(ctx: FixContext, params: CodeActionParams): Promise<CodeAction[]> {
  const mine = params.context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE);
  const ours: Diagnostic[] = mine.filter((d) => MEMORY_CODES.has(String(d.code)));
  const model = mine.filter((d) => d.code === 'unknown-model');
  const deprecated = mine.filter((d) => d.code === 'deprecated-key');
  const doc = ctx.documents.get(params.textDocument.uri);
  if ((ours.length === 0 && model.length === 0 && deprecated.length === 0) || !doc) return [];
  const a = await ctx.analyses.analysis(doc);
  if (!a) return [];
  const actions: CodeAction[] = [];
  if (model.length > 0) actions.push(...(await modelActions(ctx, doc.uri, model)));
  for (const fix of deprecated.length > 0 ? keyFixes(a, ctx.analyses.translate) : []) {
    const d = deprecated.filter((x) => doc.offsetAt(x.range.start) === fix.at);
    if (d.length === 0) continue;
    const bases = basesOf(a, fix.edits);
    if (refusal(ctx, bases)) continue;
    const args: ApplyFixArgs = { uri: doc.uri, fixId: fix.id, bases };
    actions.push({
      title: fix.title,
      kind: CodeActionKind.QuickFix,
      diagnostics: d,
      isPreferred: true,
      command: { title: fix.title, command: APPLY_FIX_COMMAND, arguments: [args] },
    });
  }
  if (ours.length === 0) return actions;
  if (gpuCountNote(a)) {
    const title = ctx.analyses.translate(
      'Set the GPU count of this workspace (now assumed: {0})',
      (a.setup?.gpus_per_node ?? 1) * (a.setup?.nodes ?? 1),
    );
    actions.push({
      title,
      kind: CodeActionKind.QuickFix,
      diagnostics: ours,
      command: { title, command: SET_GPU_COUNT_COMMAND },
    });
  }
  for (const fix of quickFixes(a, ctx.analyses.translate)) {
    const bases = basesOf(a, fix.edits);
    if (refusal(ctx, bases)) continue;
    const others = otherFiles(fix.edits, a.file).map((f) => path.basename(f));
    const title =
      others.length > 0 ? ctx.analyses.translate('{0} · also edits {1}', fix.title, others.join(', ')) : fix.title;
    const args: ApplyFixArgs = { uri: doc.uri, fixId: fix.id, bases };
    actions.push({
      title,
      kind: CodeActionKind.QuickFix,
      diagnostics: ours,
      isPreferred: fix.preferred,
      command: { title, command: APPLY_FIX_COMMAND, arguments: [args] },
    });
  }
  return actions;
}

/**
 * For a model VRAM Lens cannot find: set vramLens.model for the workspace, and, where the model is a Hub id and
 * network access is off, let VRAM Lens fetch its config.json (the client asks before it sets vramLens.allowNetwork).
 */
async function modelActions(ctx: FixContext, uri: string, diagnostics: Diagnostic[]): Promise<CodeAction[]> {
  const t = ctx.analyses.translate;
  const settings = await ctx.analyses.settings(uri);
  const out: CodeAction[] = [];
  const set = t('Set vramLens.model for this workspace…');
  out.push({
    title: set,
    kind: CodeActionKind.QuickFix,
    diagnostics,
    command: { title: set, command: SET_MODEL_COMMAND, arguments: [{ uri }] },
  });
  if (!settings.allowNetwork && diagnostics.some((d) => /allowNetwork/.test(d.message))) {
    const allow = t('Allow VRAM Lens to fetch config.json from the Hugging Face Hub…');
    out.push({
      title: allow,
      kind: CodeActionKind.QuickFix,
      diagnostics,
      command: { title: allow, command: ALLOW_NETWORK_COMMAND },
    });
  }
  return out;
}

/** Versioned edits per file; another file than the active one is annotated for confirmation. */
function workspaceEdit(ctx: FixContext, edits: readonly EditData[], active: string, label: string): WorkspaceEdit {
  const byFile = new Map<string, EditData[]>();
  for (const e of edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  const documentChanges: TextDocumentEdit[] = [];
  let annotated = false;
  for (const [file, list] of byFile) {
    const open = ctx.workspace.openDocument(file);
    const doc =
      open ?? TextDocument.create(pathToFileURL(file).toString(), '', 0, ctx.workspace.currentText(file) ?? '');
    const other = file !== active;
    annotated ||= other;
    const textEdits: AnnotatedTextEdit[] = list.map((e) => ({
      range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) },
      newText: e.newText,
      ...(other ? { annotationId: OTHER_FILE } : {}),
    })) as AnnotatedTextEdit[];
    documentChanges.push({
      textDocument: { uri: open?.uri ?? pathToFileURL(file).toString(), version: open ? open.version : null },
      edits: textEdits,
    });
  }
  const changeAnnotations = annotated
    ? {
        [OTHER_FILE]: {
          label,
          needsConfirmation: true,
          description: ctx.analyses.translate('VRAM Lens edits a file of the same run'),
        },
      }
    : undefined;
  return { documentChanges, ...(changeAnnotations ? { changeAnnotations } : {}) };
}

/** Recomputes, re-checks and applies edits; says why when it does not. */
async function applyChecked(
  ctx: FixContext,
  edits: readonly EditData[],
  bases: Readonly<Record<string, string>>,
  active: string,
  label: string,
): Promise<{ applied: boolean; message?: string }> {
  const why = refusal(ctx, bases);
  if (why) {
    void ctx.connection.window.showWarningMessage(why);
    return { applied: false, message: why };
  }
  const r = await ctx.connection.workspace.applyEdit({ label, edit: workspaceEdit(ctx, edits, active, label) });
  if (!r.applied) {
    const message = ctx.analyses.translate(
      'A file changed while the edit was being applied; nothing was written. Choose the fix again.',
    );
    void ctx.connection.window.showWarningMessage(message);
    return { applied: false, message };
  }
  return { applied: true };
}

/** The command behind every quick fix. */
export async function applyFix(ctx: FixContext, args: ApplyFixArgs): Promise<void> {
  const doc = ctx.documents.get(args.uri);
  const a = doc ? await ctx.analyses.analysis(doc) : undefined;
  const fix = !a
    ? undefined
    : args.fixId.startsWith('key:')
      ? keyFixes(a, ctx.analyses.translate).find((f) => f.id === args.fixId)
      : quickFixes(a, ctx.analyses.translate).find((f) => f.id === args.fixId);
  if (!a || !fix) {
    void ctx.connection.window.showWarningMessage(
      ctx.analyses.translate('This fix no longer applies to the file as it is now; nothing was written.'),
    );
    return;
  }
  const bases = basesOf(a, fix.edits);
  const same =
    Object.keys(bases).length === Object.keys(args.bases).length &&
    Object.entries(bases).every(([f, h]) => args.bases[f] === h);
  if (!same) {
    void ctx.connection.window.showWarningMessage(
      ctx.analyses.translate(
        'The files changed since this fix was offered; nothing was written. Choose the fix again.',
      ),
    );
    return;
  }
  await applyChecked(ctx, fix.edits, bases, a.file, fix.title);
}

/** Applies one advice item from the panel. */
export async function applyAdvice(
  ctx: FixContext,
  uri: string,
  adviceId: string,
): Promise<{ applied: boolean; message?: string }> {
  const doc = ctx.documents.get(uri);
  const a = doc ? await ctx.analyses.analysis(doc) : undefined;
  const item = a?.advice()?.items.find((i) => i.id === adviceId);
  if (!a || !item)
    return {
      applied: false,
      message: ctx.analyses.translate('This advice no longer applies to the file as it is now.'),
    };
  const plan = editsForChanges(item.changes, fixFiles(a), a.file);
  if (plan.edits.length === 0 || plan.unsupported.length > 0) {
    return {
      applied: false,
      message: ctx.analyses.translate(
        'This change cannot be written into these files: {0}',
        plan.unsupported.map((u) => u.reason).join('; '),
      ),
    };
  }
  return applyChecked(ctx, plan.edits, basesOf(a, plan.edits), fsPathOf(uri), item.title);
}

/**
 * Writes the panel's what-if changes into the run's files: each key must be a setup key with a value its schema
 * accepts, and every change must be expressible in the files (otherwise nothing is written and the answer says why).
 */
export async function applyChanges(ctx: FixContext, raw: unknown): Promise<{ applied: boolean; message?: string }> {
  const parsed = ApplyChangesParams.safeParse(raw);
  if (!parsed.success)
    return {
      applied: false,
      message: ctx.analyses.translate('This change cannot be written into these files: {0}', 'invalid request'),
    };
  const { uri, changes: asSent } = parsed.data;
  const shape = TrainingSetupSchema.shape as Record<
    string,
    { safeParse(v: unknown): { success: boolean } } | undefined
  >;
  const bad = asSent.filter((c) => !shape[c.key]?.safeParse(c.value).success).map((c) => c.key);
  if (bad.length > 0)
    return {
      applied: false,
      message: ctx.analyses.translate('This change cannot be written into these files: {0}', bad.join(', ')),
    };
  const changes: SetupChange[] = asSent.map((c) => ({ key: c.key as keyof TrainingSetup, value: c.value }));
  const doc = ctx.documents.get(uri);
  const a = doc ? await ctx.analyses.analysis(doc) : undefined;
  if (!a)
    return {
      applied: false,
      message: ctx.analyses.translate('This advice no longer applies to the file as it is now.'),
    };
  const plan = editsForChanges(changes, fixFiles(a), a.file);
  if (plan.edits.length === 0 || plan.unsupported.length > 0) {
    return {
      applied: false,
      message: ctx.analyses.translate(
        'This change cannot be written into these files: {0}',
        plan.unsupported.map((u) => u.reason).join('; '),
      ),
    };
  }
  return applyChecked(ctx, plan.edits, basesOf(a, plan.edits), fsPathOf(uri), changes.map((c) => c.key).join(', '));
}
