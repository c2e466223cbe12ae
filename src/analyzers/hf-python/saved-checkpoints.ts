// A model loaded from a folder the same file saves a model to earlier: a notebook trains, `model.save_pretrained(
// "lora_model")`, then loads "lora_model" again to try it (Unsloth's notebooks), or a second stage starts from the first
// stage's `output_dir` checkpoint. That folder is not on this machine and is not a model to look up: it is the model
// the file trains, so the load is not the run's model (the first stage's stands), said at the place. Pure.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import type { Entry, PythonFile } from './file';

/** The calls that write a model's folder: their first argument (or save_directory) is that folder. */
const SAVES = /\.(save_pretrained|save_pretrained_merged|save_pretrained_gguf|save_model|save_lora)$/;

/**
 * Where the file saves a model (a save call's folder, a trainer's output_dir), with the place it does so: found once
 * per file (a file that loads many models asks for each).
 */
function savedFolders(file: PythonFile): readonly { folder: string; at: number }[] {
  file.savedFolders ??= findSavedFolders(file);
  return file.savedFolders;
}

function findSavedFolders(file: PythonFile): { folder: string; at: number }[] {
  const out: { folder: string; at: number }[] = [];
  for (const call of file.calls) {
    const callee = file.calleeName(call) ?? '';
    const a = file.args(call);
    const nodes: (SyntaxNode | null | undefined)[] = SAVES.test(callee)
      ? [
          a.entries.find((e) => e.rawKey === 'save_directory' || e.rawKey === 'output_dir')?.valueNode ??
            a.positional[0],
        ]
      : [a.entries.find((e) => e.rawKey === 'output_dir')?.valueNode];
    for (const n of nodes) {
      const v = n ? file.evalNode(n, 0) : undefined;
      if (v?.k === 'lit' && typeof v.v === 'string' && v.v.trim() !== '')
        out.push({ folder: folderOf(v.v), at: call.from });
    }
  }
  return out;
}

const folderOf = (p: string): string => p.trim().replace(/^\.\//, '').replace(/\/+$/, '');

/**
 * Whether a model name is a folder the file saves a model to before this load (or a checkpoint under it); said at
 * the load when it is.
 */
export function savedEarlier(file: PythonFile, name: string, e: Entry): boolean {
  // A folder's name may have blanks (Colab's `/content/drive/My Drive/...`).
  if (!/^[\w./ -]+$/.test(name) || file.calls.length === 0) return false;
  const folder = folderOf(name);
  const saved = savedFolders(file).find(
    (s) => s.at < e.valueSpan.start && (folder === s.folder || folder.startsWith(`${s.folder}/`)),
  );
  if (!saved) return false;
  file.problem(
    'not-modeled',
    'info',
    msg(
      '{0}: a folder this file saves its trained model to earlier (line {1}): the model it trains is estimated, not this load',
      name,
      file.line(saved.at),
    ),
    e.valueSpan,
    e.rawKey,
  );
  return true;
}
