// What the language server knows of the workspace: its folders, whether it is trusted, the open documents' text
// (which wins over the disk, so an unsaved edit of a referenced file counts at once), and a generation counter that
// moves on every change of any file, so that no analysis outlives the texts it was computed from.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { type FileReader, type InputFile, projectModules, type ReadKind } from '../analyzers/pipeline';
import { detectFormat, analyzeAs } from '../analyzers/detect';
import { nodeFileReader } from '../node/files';
import { hfHubCacheDir, vramLensCacheDir } from '../node/models';
import { listFolder } from '../node/files';
import { readBounded, readPolicy, type ReadPolicy } from '../node/read';

/** A short, stable fingerprint of a text (FNV-1a over its UTF-16 code units, with its length). */
export function textHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${(h >>> 0).toString(16)}:${text.length}`;
}

/** The file system path of a document URI (an untitled document keeps its URI as its name). */
export function fsPathOf(uri: string): string {
  return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
}

const SCAN_EXT = new Set(['.sh', '.bash', '.slurm', '.py', '.yaml', '.yml']);
const MAX_SCAN_FILES = 60;

export class Workspace {
  private folders: string[] = [];
  private open = new Map<string, TextDocument>();
  /** Moves on every change of an open document, of a file on disk, of the settings or of the trust. */
  generation = 0;

  constructor(
    public trusted: boolean,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  setFolders(folders: readonly string[]): void {
    this.folders = folders.map((f) => path.resolve(f));
    this.changed();
  }

  get roots(): readonly string[] {
    return this.folders;
  }

  changed(): void {
    this.generation++;
  }

  setOpen(doc: TextDocument): void {
    this.open.set(fsPathOf(doc.uri), doc);
    this.changed();
  }

  closeOpen(doc: TextDocument): void {
    this.open.delete(fsPathOf(doc.uri));
    this.changed();
  }

  /** The roots an untrusted workspace may read: its folders and the Hugging Face and VRAM Lens caches. */
  allowedRoots(): readonly string[] | undefined {
    return this.trusted ? undefined : [...this.folders, hfHubCacheDir(this.env), vramLensCacheDir(this.env)];
  }

  /** Whether a file lies inside a workspace folder (quick fixes write nowhere else). */
  inside(file: string): boolean {
    const abs = path.resolve(file);
    return this.folders.some((f) => {
      const rel = path.relative(f, abs);
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
  }

  /** The current text of a file: the open document's, else the disk's through the bounded reader. */
  currentText(file: string): string | undefined {
    const open = this.open.get(path.resolve(file));
    if (open) return open.getText();
    const r = readBounded(file, 'config', readPolicy(this.allowedRoots()));
    return r.ok ? r.text : undefined;
  }

  /** The open document of a file, if it is open. */
  openDocument(file: string): TextDocument | undefined {
    return this.open.get(path.resolve(file));
  }

  /**
   * A reader for one analysis: open documents first, then the disk within the policy. A data file a script loads is
   * read only inside the folder (`cwd`), open or not, as the disk reader reads it ('project-data').
   */
  reader(cwd: string): FileReader {
    const policy: ReadPolicy = readPolicy(this.allowedRoots());
    const disk = nodeFileReader(cwd, policy);
    const openText = (abs: string, kind?: ReadKind): string | undefined => {
      const rel = path.relative(cwd, abs);
      const outside = rel.startsWith('..') || path.isAbsolute(rel);
      return kind === 'project-data' && outside ? undefined : this.open.get(abs)?.getText();
    };
    return {
      read: (p: string, kind?: ReadKind) => openText(path.resolve(cwd, p), kind) ?? disk.read(p, kind),
      refusal: (p: string) => disk.refusal?.(p),
      join: (from: string, rel: string) => disk.join(from, rel),
      lookup: (from: string, rel: string) => disk.lookup?.(from, rel) ?? [disk.join(from, rel)],
      below: (from: string, rel: string) => disk.below?.(from, rel) ?? [],
    };
  }

  /** The folder that holds a file: its workspace folder, else its own directory. */
  cwdOf(file: string): string {
    return this.folders.find((f) => this.inside(file) && file.startsWith(f)) ?? path.dirname(file);
  }

  /**
   * Files in the document's folder and its parent that reference it (launchers, TrainingArguments scripts), so that
   * a DeepSpeed JSON is estimated with its launcher's values.
   */
  relatedFiles(file: string): InputFile[] {
    const dir = path.dirname(file);
    const out: InputFile[] = [];
    const reader = this.reader(dir);
    let scanned = 0;
    for (const d of [dir, path.dirname(dir)]) {
      for (const p of listFolder(d)) {
        if (scanned >= MAX_SCAN_FILES) break;
        if (p === file || !SCAN_EXT.has(path.extname(p).toLowerCase())) continue;
        const text = reader.read(p);
        if (text === undefined) continue;
        scanned++;
        if (!text.includes(path.basename(file))) continue;
        const format = detectFormat(p, text);
        if (!format || format === 'scenario') continue;
        const facts = analyzeAs(format, text, { readModule: projectModules(reader, p) });
        if (facts.references.some((r) => path.resolve(reader.join(p, r.path)) === path.resolve(file)))
          out.push({ file: p, text });
      }
    }
    return out;
  }
}
