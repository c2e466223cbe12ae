// `cd` in a launch script: the absolute folder it moves to (on its author's machine), where the relative paths of the
// launches after it are looked for when they are not found beside the script or above it (Reference.cwd,
// collect/locate.ts). Pure: no I/O, no node:* and no 'vscode'.
import type { Field } from './fields';
import type { CmdResult } from './launch';

/**
 * The folder after `cd <dir>`: an absolute one known statically, or one relative to an absolute folder already; else
 * none (a folder relative to where the script is run from is what the references' own lookup assumes: beside the
 * script, then above it).
 */
export function changedFolder(cwd: string | undefined, args: readonly Field[]): string | undefined {
  const dir = args.find((f) => !f.text.startsWith('-'));
  if (!dir || dir.unknown !== undefined || dir.opaque) return undefined;
  const text = dir.text.replace(/\/+$/, '');
  if (text.startsWith('/')) return text || '/';
  return cwd !== undefined && /^[\w.-]+(\/[\w.-]+)*$/.test(text) ? `${cwd}/${text}` : undefined;
}

/** A launch's relative references, each said to be looked for in the folder a `cd` moved to (Reference.cwd). */
export function inFolder(r: CmdResult, cwd: string): CmdResult {
  const refs = r.refs.map((ref) => (/^[/~$]/.test(ref.path) ? ref : { ...ref, cwd }));
  return { ...r, refs };
}
