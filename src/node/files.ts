// Reading the user's files from disk for the pipeline (host I/O shared by the CLI and the extension), through the
// bounded reader: regular files only, sizes capped, system trees refused, and an untrusted workspace kept in its roots.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileReader, ReadKind } from '../analyzers/pipeline';
import { nothingAt, readBounded, readPolicy, type ReadPolicy } from './read';

/**
 * Files named by references are read relative to the referencing file; `~` is the home directory. One reader serves
 * one analysis: its time budget starts when it is made.
 */
export function nodeFileReader(
  cwd: string,
  policy: ReadPolicy = readPolicy(),
  dataRoots: readonly string[] = [cwd],
): FileReader {
  const refusals = new Map<string, string>();
  // The folders above a file, by its folder: every reference of a file is looked up from the same ones.
  const above = new Map<string, string[]>();
  const foldersOf = (file: string, root: string): string[] => {
    const dir = path.dirname(file);
    let out = above.get(dir);
    if (!out) above.set(dir, (out = foldersAbove(file, root)));
    return out;
  };
  const folders = new FolderPresence();
  // The data roots' real paths, resolved once for every data file the analysis reads.
  let realDataRoots: string[] | undefined;
  return {
    read(p: string, kind: ReadKind = 'config'): string | undefined {
      const abs = path.resolve(cwd, p);
      if (folders.absentAbove(abs)) return undefined;
      // A data file a script loads is read only inside the project (its real path under the working folder, or under
      // another folder the host names).
      const r =
        kind === 'project-data'
          ? readBounded(abs, 'config', {
              ...policy,
              roots: policy.roots ?? (realDataRoots ??= dataRoots.map(realOrResolved)),
            })
          : readBounded(abs, kind, policy);
      if (r.ok) return r.text;
      if (r.missing) folders.learnAbove(abs);
      else refusals.set(abs, r.reason);
      return undefined;
    },
    refusal(p: string): string | undefined {
      // Asked after every miss; nearly always nothing was refused, and the path need not be resolved to say so.
      return refusals.size === 0 ? undefined : refusals.get(path.resolve(cwd, p));
    },
    join,
    lookup(fromFile: string, relative: string): string[] {
      const beside = join(fromFile, relative);
      const r = relative.trim().replace(/^['"]|['"]$/g, '');
      if (r.startsWith('~/')) return [beside];
      const file = path.resolve(cwd, fromFile);
      const up = foldersOf(file, path.resolve(cwd));
      const places = path.isAbsolute(r)
        ? inThisCheckout(r, [path.dirname(file), ...up])
        : up.map((d) => path.join(d, r));
      // In the form the referencing file's path is given in, as `below`: one file reached from a relative and from an
      // absolute path would be read twice (a launcher's config that its script also loads as data).
      return [beside, ...(path.isAbsolute(fromFile) ? places : places.map((p) => path.relative(cwd, p)))];
    },
    below(fromFile: string, relative: string): string[] {
      const r = relative.trim().replace(/^['"]|['"]$/g, '');
      if (r.startsWith('~/') || r.startsWith('..') || path.isAbsolute(r)) return [];
      const file = path.resolve(cwd, fromFile);
      const places = placesBelow([path.dirname(file), ...foldersOf(file, path.resolve(cwd))], r);
      // In the form the referencing file's path is given in (relative to the working folder, or absolute).
      return path.isAbsolute(fromFile) ? places : places.map((p) => path.relative(cwd, p));
    },
  };
}

/** Most subfolders of one folder that a path is looked for in (FileReader.below). */
const MAX_FOLDERS_BELOW = 200;

/** Folders a project's own files are not in: hidden ones, installed packages, caches. */
const NOT_PROJECT_FOLDER = /^(\.|node_modules$|__pycache__$|site-packages$|venv$|env$|wandb$)/;

/** The relative path under each subfolder of the given folders, nearest folder first (FileReader.below). */
function placesBelow(folders: readonly string[], relative: string): string[] {
  const out: string[] = [];
  for (const dir of folders) {
    for (const e of listEntries(dir, MAX_FOLDERS_BELOW)) {
      if (e.folder && !NOT_PROJECT_FOLDER.test(path.basename(e.path))) out.push(path.join(e.path, relative));
    }
  }
  return out;
}

/**
 * The folders one reader has found absent or present. Most paths an analysis asks for are places a module or a config
 * might be and is not, many of them under one folder that does not exist (`<each folder above>/dschat/utils/model/`):
 * once a miss shows its folder absent, every path under it is a miss without a stat. A reader serves one analysis, so
 * what it learns is not kept past it.
 */
class FolderPresence {
  private readonly absent = new Set<string>();
  private readonly present = new Set<string>();

  /** Whether a folder above the path is known to be absent. */
  absentAbove(file: string): boolean {
    for (let dir = path.dirname(file); !this.present.has(dir);) {
      if (this.absent.has(dir)) return true;
      const up = path.dirname(dir);
      if (up === dir) return false;
      dir = up;
    }
    return false;
  }

  /** After a miss: which folders above it are absent, up to the nearest one present (each folder asked once). */
  learnAbove(file: string): void {
    for (let dir = path.dirname(file); !this.present.has(dir) && !this.absent.has(dir);) {
      if (!nothingAt(dir)) {
        this.present.add(dir);
        return;
      }
      this.absent.add(dir);
      const up = path.dirname(dir);
      if (up === dir) return;
      dir = up;
    }
  }
}

function realOrResolved(p: string): string {
  try {
    return fs.realpathSync.native(path.resolve(p));
  } catch {
    return path.resolve(p);
  }
}

function join(fromFile: string, relative: string): string {
  const r = relative.trim().replace(/^['"]|['"]$/g, '');
  if (r.startsWith('~/')) return path.join(os.homedir(), r.slice(2));
  return path.isAbsolute(r) ? r : path.join(path.dirname(fromFile), r);
}

/** Most trailing parts of an absolute path looked for in this checkout (inThisCheckout). */
const MAX_TAIL_PARTS = 6;

/**
 * Where an absolute path of another machine (`/lfs/local/0/me/project/configs/a.yaml`, the author's clone) may be in
 * this checkout: its last parts, the most first (at least two: a folder and the file; a Python script's name alone
 * last), from the referencing file's folder and each folder above it, nearest first.
 */
function inThisCheckout(absolute: string, folders: readonly string[]): string[] {
  const parts = absolute.split(/[\\/]/).filter((p) => p !== '');
  const out: string[] = [];
  for (let k = Math.min(parts.length - 1, MAX_TAIL_PARTS); k >= 2; k--) {
    for (const d of folders) out.push(path.join(d, ...parts.slice(-k)));
  }
  // The folder a container or a notebook host runs the project in: a path under it is a path of the project.
  if (PROJECT_MOUNTS.has(parts[0]) && parts.length === 2) for (const d of folders) out.push(path.join(d, parts[1]));
  // A Python script at the top of the author's clone (`$PROJ/train_sft.py`, luozoupi/HLSmith-GRPO's PBS jobs): its
  // name alone, last, where no longer tail is here.
  else if (parts.length >= 2 && /\.py$/.test(parts[parts.length - 1]))
    for (const d of folders) out.push(path.join(d, parts[parts.length - 1]));
  return out.filter((p) => p !== path.resolve(absolute));
}

/**
 * Folders the project runs in on the author's machine: `/workspace` (the working folder of NVIDIA's PyTorch containers
 * and RunPod's pods, where the repository is mounted or cloned) and `/content` (Colab's): `/workspace/ds_config.json`
 * is the project's `ds_config.json`. A path deeper under them is found by its last parts, as any other.
 */
const PROJECT_MOUNTS: ReadonlySet<string> = new Set(['workspace', 'content']);

/** Most folders above a file that a relative reference is looked up from. */
const MAX_LEVELS_UP = 8;

/**
 * The folders above a file's own, nearest first, up to the reader's root or the repository's top (the nearest folder
 * with .git), whichever comes first; none when neither is found within MAX_LEVELS_UP folders.
 */
export function foldersAbove(file: string, root: string): string[] {
  const out: string[] = [];
  let dir = path.dirname(file);
  for (let k = 0; k < MAX_LEVELS_UP; k++) {
    if (dir === root || isRepoTop(dir)) return out;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
    out.push(dir);
  }
  return [];
}

/**
 * The project a file the user names belongs to: the nearest folder above it with .git (within MAX_LEVELS_UP), else its
 * own folder. The CLI reads a script's data files there as well as under the working folder.
 */
export function projectTopOf(file: string): string {
  let dir = path.dirname(file);
  for (let k = 0; k < MAX_LEVELS_UP; k++) {
    if (isRepoTop(dir)) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.dirname(file);
}

function isRepoTop(dir: string): boolean {
  try {
    return fs.existsSync(path.join(dir, '.git'));
  } catch {
    return false;
  }
}

/** The files of a folder (at most `max`, in name order), or none when it cannot be listed. */
export function listFolder(dir: string, max = 500): string[] {
  try {
    return fs
      .readdirSync(dir)
      .sort()
      .slice(0, max)
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/** The entries of a folder (at most `max`, in name order) with whether each is a folder; none when it cannot be listed. */
export function listEntries(dir: string, max = 2000): Array<{ readonly path: string; readonly folder: boolean }> {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, max)
      .map((e) => ({ path: path.join(dir, e.name), folder: e.isDirectory() }));
  } catch {
    return [];
  }
}
