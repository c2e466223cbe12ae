// The one bounded reader for every path that comes from user text or settings (references between configs, model
// paths, dependency pins, the files that name a document). A path is read only when it leads, after symlinks, to a
// regular file of a bounded size outside the system's pseudo-file trees, within the roots an untrusted workspace
// allows, and within the analysis's time budget. A refusal says what kind of file it found, never what it contains.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What a file is read as; each kind has its own size limit. */
export type FileKind = 'config' | 'model-config' | 'weights-index' | 'dependency';

/** Bytes above which a file of each kind is refused (real files of each kind are far smaller). */
export const SIZE_LIMITS: Readonly<Record<FileKind, number>> = {
  config: 4 * 1024 * 1024,
  'model-config': 2 * 1024 * 1024,
  'weights-index': 32 * 1024 * 1024,
  dependency: 512 * 1024,
};

/** How long one analysis may spend reading files, in milliseconds. */
export const READ_BUDGET_MS = 2000;

/**
 * The CLI's reading budget for one run it resolves: a command waited for, not a keystroke, so a heavy run (a launcher,
 * its script, the project's modules and the files they load) is read whole on a loaded machine too.
 */
export const CLI_READ_BUDGET_MS = 10_000;

/** Where the reads of one analysis may go, and until when. */
export interface ReadPolicy {
  /** When set (an untrusted workspace), only files under these folders are read. */
  readonly roots?: readonly string[];
  /** The budget the deadline was set from, in milliseconds (READ_BUDGET_MS unless given). */
  readonly budgetMs?: number;
  /** Date.now() after which nothing more is read. */
  readonly deadline?: number;
}

export type ReadResult =
  | { readonly ok: true; readonly text: string; readonly realPath: string }
  | { readonly ok: false; readonly missing: boolean; readonly reason: string };

const SYSTEM_TREES = ['/proc', '/sys', '/dev'];

const inside = (file: string, dir: string): boolean => {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

function systemTree(file: string): string | undefined {
  return process.platform === 'win32' ? undefined : SYSTEM_TREES.find((d) => inside(file, d));
}

const refused = (reason: string, missing = false): ReadResult => ({ ok: false, missing, reason });

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MiB`;
}

/** Reads at most limit + 1 bytes from an open file; a file that reports no size (a /proc file) is bounded the same way. */
function readAtMost(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.alloc(Math.min(64 * 1024, limit + 1 - total));
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n <= 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    if (total > limit) break;
  }
  return Buffer.concat(chunks, total);
}

/** Why a path may not be read under the policy before it is opened, or undefined when it may. */
function pathRefusal(real: string, policy: ReadPolicy): string | undefined {
  const tree = systemTree(real);
  if (tree) return `a system file under ${tree}`;
  if (policy.roots && !policy.roots.some((r) => inside(real, r)))
    return 'outside the workspace (an untrusted workspace reads only its own files and the Hugging Face cache)';
  return undefined;
}

/** Opens without blocking (a FIFO would wait for a writer) and checks that what was opened is a regular file. */
function openRegular(real: string, kind: FileKind): { fd: number } | { reason: string } {
  let fd: number;
  try {
    fd = fs.openSync(real, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return { reason: `cannot be opened (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const st = fs.fstatSync(fd);
  if (st.isFile() && st.size <= SIZE_LIMITS[kind]) return { fd };
  fs.closeSync(fd);
  if (st.isDirectory()) return { reason: 'a directory, not a file' };
  if (!st.isFile()) return { reason: 'not a regular file (a device, FIFO or socket)' };
  return {
    reason: `too large for a ${kind.replace('-', ' ')} (${mib(st.size)}; the limit is ${mib(SIZE_LIMITS[kind])})`,
  };
}

/** Whether a file may be opened under the policy (after symlinks, a regular file in the allowed roots), without reading it. */
export function checkRegularFile(
  file: string,
  policy: ReadPolicy = {},
): { ok: true; realPath: string; size: number } | { ok: false; reason: string } {
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(file));
  } catch (e) {
    return { ok: false, reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const why = pathRefusal(real, policy);
  if (why) return { ok: false, reason: why };
  const st = fs.statSync(real);
  return st.isFile()
    ? { ok: true, realPath: real, size: st.size }
    : { ok: false, reason: 'not a regular file (a device, FIFO or socket)' };
}

/** Reads a file that user text or a setting names, within the policy; a refusal gives the reason in the user's terms. */
export function readBounded(file: string, kind: FileKind, policy: ReadPolicy = {}): ReadResult {
  if (policy.deadline !== undefined && Date.now() > policy.deadline)
    return refused(`not read: the analysis spent its ${policy.budgetMs ?? READ_BUDGET_MS} ms for reading files`);
  const absolute = path.resolve(file);
  // Most paths asked for are places a reference might be and is not: a stat that does not throw on a missing entry
  // tells so without the error realpath would build (its stack is the dearer part of a miss); other errors (a
  // folder that cannot be searched) go on to realpath, which names them.
  if (nothingAt(absolute)) return refused('no such file', true);
  let real: string;
  try {
    real = fs.realpathSync.native(absolute);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return refused(
      code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : `cannot be read (${code ?? 'error'})`,
      code === 'ENOENT' || code === 'ENOTDIR',
    );
  }
  const why = pathRefusal(real, policy);
  if (why) return refused(why);
  const opened = openRegular(real, kind);
  if ('reason' in opened) return refused(opened.reason);
  let bytes: Buffer;
  try {
    bytes = readAtMost(opened.fd, SIZE_LIMITS[kind]);
  } catch (e) {
    return refused(`cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    fs.closeSync(opened.fd);
  }
  if (bytes.length > SIZE_LIMITS[kind])
    return refused(`too large for a ${kind.replace('-', ' ')} (over ${mib(SIZE_LIMITS[kind])})`);
  if (bytes.subarray(0, 8192).includes(0)) return refused('binary data, not a text config');
  return { ok: true, text: bytes.toString('utf8'), realPath: real };
}

/** Whether nothing is at the path (ENOENT), told without an error; any other error is not this. */
export function nothingAt(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** A read policy for one analysis: its deadline starts now. */
export function readPolicy(roots?: readonly string[], budgetMs = READ_BUDGET_MS): ReadPolicy {
  return {
    ...(roots ? { roots: roots.map((r) => safeRealpath(r)) } : {}),
    budgetMs,
    deadline: Date.now() + budgetMs,
  };
}

function safeRealpath(p: string): string {
  try {
    return fs.realpathSync.native(path.resolve(p));
  } catch {
    return path.resolve(p);
  }
}
