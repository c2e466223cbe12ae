// ExtContext: the analysis cache (one Analysis per document version), settings, the log channel and guard().
// Also finds the files that belong to the same run as a document (a launch script or TrainingArguments file in
// the same or parent folder that references it), so a DeepSpeed JSON is estimated with its launcher's values.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { analyzeAs, detectFormat } from '../analyzers/detect';
import type { InputFile } from '../analyzers/pipeline';
import type { ModelResolver } from '../analyzers/resolve';
import { nodeFileReader } from '../node/files';
import { offlineModelResolver, prefetchModelResolver } from '../node/models';
import { analyzeDocument, type Analysis } from '../features/analysis';
import { toAnalysisSettings, type Settings } from '../features/settings';
import { readSettings } from './settings';

const SCAN_EXT = new Set(['.sh', '.bash', '.slurm', '.py', '.yaml', '.yml']);
const MAX_SCAN_FILES = 60;
const MAX_SCAN_BYTES = 512 * 1024;

export class ExtContext implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  private readonly cache = new Map<string, { version: number; settingsKey: string; analysis: Analysis }>();
  private readonly related = new Map<string, { stamp: string; files: InputFile[] }>();
  private readonly fetched = new Map<string, ModelResolver>();
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when analyses must be recomputed (settings changed, a model arrived from the Hub). */
  readonly onDidInvalidate = this.emitter.event;

  constructor() {
    this.log = vscode.window.createOutputChannel('VRAM Lens', { log: true });
  }

  settings(uri?: vscode.Uri): Settings {
    return readSettings(uri, (m) => this.log.warn(m));
  }

  /** Runs fn; on an exception logs the stack and returns undefined, so one feature never breaks the others. */
  guard<T>(name: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      const msg = `${name} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`;
      this.log.error(msg);
      if (process.env.VRAM_LENS_E2E_RESULTS) console.error(`[vram-lens] ${msg}`);
      return undefined;
    }
  }

  isConfig(doc: vscode.TextDocument): boolean {
    if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled' && doc.uri.scheme !== 'vscode-remote') return false;
    return detectFormat(doc.fileName, doc.getText(), doc.languageId) !== undefined;
  }

  invalidate(): void {
    this.cache.clear();
    this.related.clear();
    this.emitter.fire();
  }

  /** The Analysis of a document at its current version (computed once per version and settings). */
  analysis(doc: vscode.TextDocument): Analysis | undefined {
    if (!this.isConfig(doc)) return undefined;
    const settings = this.settings(doc.uri);
    const settingsKey = JSON.stringify(settings);
    const key = doc.uri.toString();
    const hit = this.cache.get(key);
    if (hit && hit.version === doc.version && hit.settingsKey === settingsKey) return hit.analysis;
    const cwd = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath ?? path.dirname(doc.fileName);
    const resolver = this.resolverFor(settings, cwd);
    const analysis = analyzeDocument(
      { file: doc.fileName, text: doc.getText(), languageId: doc.languageId },
      toAnalysisSettings(settings),
      { reader: nodeFileReader(cwd), resolver, related: this.relatedFiles(doc), translate: (m, ...args) => vscode.l10n.t(m, ...args) },
    );
    this.cache.set(key, { version: doc.version, settingsKey, analysis });
    if (settings.allowNetwork && !analysis.setup) this.fetchInBackground(analysis, settings, cwd);
    return analysis;
  }

  forget(doc: vscode.TextDocument): void {
    this.cache.delete(doc.uri.toString());
  }

  private resolverFor(settings: Settings, cwd: string): ModelResolver {
    const offline = offlineModelResolver({ cwd, env: process.env, networkHint: 'the vramLens.allowNetwork setting' });
    if (!settings.allowNetwork || this.fetched.size === 0) return offline;
    return (ref) => (this.fetched.get(ref) ?? offline)(ref);
  }

  /** With network allowed, fetches a model the files name from the Hub, then recomputes. */
  private fetchInBackground(a: Analysis, settings: Settings, cwd: string): void {
    const ref = settings.model || (a.pipeline.decided.model?.fact.value as string | undefined);
    if (typeof ref !== 'string' || this.fetched.has(ref)) return;
    this.fetched.set(ref, offlineModelResolver({ cwd, env: process.env }));
    prefetchModelResolver([ref], { cwd, env: process.env, allowNetwork: true, networkHint: 'the vramLens.allowNetwork setting' })
      .then((r) => {
        this.fetched.set(ref, r);
        this.invalidate();
      })
      .catch((e: unknown) => this.log.warn(`fetching ${ref} from the Hub failed: ${String(e)}`));
  }

  /** Files in the document's folder and its parent that reference the document (launchers, TrainingArguments). */
  private relatedFiles(doc: vscode.TextDocument): InputFile[] {
    if (doc.uri.scheme !== 'file') return [];
    const dir = path.dirname(doc.fileName);
    const dirs = [dir, path.dirname(dir)];
    const stamp = dirs.map((d) => { try { return String(fs.statSync(d).mtimeMs); } catch { return '0'; } }).join('|');
    const hit = this.related.get(doc.fileName);
    if (hit && hit.stamp === stamp) return hit.files;
    const out: InputFile[] = [];
    let scanned = 0;
    const reader = nodeFileReader(dir);
    for (const d of dirs) {
      let names: string[] = [];
      try { names = fs.readdirSync(d); } catch { continue; }
      for (const n of names) {
        if (scanned >= MAX_SCAN_FILES) break;
        const p = path.join(d, n);
        if (p === doc.fileName || !SCAN_EXT.has(path.extname(n).toLowerCase())) continue;
        let text: string;
        try {
          const st = fs.statSync(p);
          if (!st.isFile() || st.size > MAX_SCAN_BYTES) continue;
          text = fs.readFileSync(p, 'utf8');
        } catch {
          continue;
        }
        scanned++;
        if (!text.includes(path.basename(doc.fileName))) continue;
        const format = detectFormat(p, text);
        if (!format || format === 'scenario') continue;
        const facts = analyzeAs(format, text);
        if (facts.references.some((r) => path.resolve(reader.join(p, r.path)) === path.resolve(doc.fileName))) out.push({ file: p, text });
      }
    }
    this.related.set(doc.fileName, { stamp, files: out });
    return out;
  }

  dispose(): void {
    this.emitter.dispose();
    this.log.dispose();
  }
}
