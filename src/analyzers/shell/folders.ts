// `cd` in a launch script: the absolute folder it moves to (on its author's machine), where the relative paths of the
// launches after it are looked for when they are not found beside the script or above it (Reference.cwd,
// collect/locate.ts). Pure: no I/O, no node:* and no 'vscode'.
import type { Field } from './fields';
import type { CmdResult } from './launch';

/**
 * The folder after `cd <dir>`: an absolute one known statically, one relative to the folder the script is run from
 * (`cd src` before `deepspeed train.py --deepspeed configs/ds.json`: ChiYeungLaw/LLaMa-EasyFT's finetune.sh, whose
 * files are under src/), or one relative to a folder moved to already; else none.
 */
export function changedFolder(cwd: string | undefined, args: readonly Field[]): string | undefined {
  const dir = args.find((f) => !f.text.startsWith('-'));
  if (!dir || dir.unknown !== undefined || dir.opaque) return undefined;
  const text = dir.text.replace(/\/+$/, '');
  if (text.startsWith('/')) return text || '/';
  if (!/^[\w.-]+(\/[\w.-]+)*$/.test(text)) return undefined;
  return cwd !== undefined ? `${cwd}/${text}` : text;
}

/** A launch's relative references, each said to be looked for in the folder a `cd` moved to (Reference.cwd). */
export function inFolder(r: CmdResult, cwd: string): CmdResult {
  const refs = r.refs.map((ref) => (/^[/~$]/.test(ref.path) ? ref : { ...ref, cwd }));
  return { ...r, refs };
}
