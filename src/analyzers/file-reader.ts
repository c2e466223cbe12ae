// How the analyzers read the files a run references: the reader the host gives (the CLI's and the editor's, bounded by
// size and by where a file may be read from), and where a relative reference is looked for. Types and pure functions;
// the reading itself is the host's.
import type { ModuleRead } from './hf-python/imported-constants';

/**
 * What a file is read as: a config (or a script, a module), a dependency list, or a data file a script loads for its
 * values ('project-data': read only where its real path is inside the reader's project, symlinks resolved).
 */
export type ReadKind = 'config' | 'dependency' | 'project-data';

export interface FileReader {
  /** The text of a file, or undefined when it does not exist or is not read. */
  read(path: string, kind?: ReadKind): string | undefined;
  /**
   * Why read(path) gave undefined for a path that exists (a system file, a device, too large, outside an untrusted
   * workspace), in the user's words and without the file's content; undefined when the file does not exist.
   */
  refusal?(path: string): string | undefined;
  /** A path relative to the referencing file's folder (absolute paths stay as they are). */
  join(fromFile: string, relative: string): string;
  /**
   * Where a relative reference may be, in the order to try: beside the referencing file, then the same path from each
   * folder above it up to the reader's root or the repository's top (the folder with .git): scripts are often written
   * to run from the repository root. Without it, only join(fromFile, relative).
   */
  lookup?(fromFile: string, relative: string): string[];
  /**
   * Where a relative path may be one folder below the referencing file's folder or a folder above it (a launcher whose
   * script runs after a `cd` into a subproject that the launcher does not write: Deep-Agent/R1-V's
   * src/scripts/run_grpo_vllm_qwen25vl.sh names src/open_r1/grpo.py, which is src/r1-v/src/open_r1/grpo.py). Asked
   * only for a training script found nowhere else.
   */
  below?(fromFile: string, relative: string): string[];
}

/**
 * The reader with each read kept for one analysis: a run asks the same paths again and again (a project module is looked
 * for from every file that imports it, in every folder above it: quizshin/tau2-grpo's launcher read 277 paths 689
 * times). Its files do not change while it runs; the next analysis reads them again.
 */
export function readOnce(reader: FileReader): FileReader {
  const texts = new Map<string, string | undefined>();
  const read = (path: string, kind?: ReadKind): string | undefined => {
    const key = `${kind ?? ''}\u0000${path}`;
    if (texts.has(key)) return texts.get(key);
    const text = reader.read(path, kind);
    texts.set(key, text);
    return text;
  };
  return {
    read,
    join: (fromFile, relative) => reader.join(fromFile, relative),
    ...(reader.refusal ? { refusal: (path: string) => reader.refusal?.(path) } : {}),
    ...(reader.lookup ? { lookup: (fromFile: string, relative: string) => reader.lookup!(fromFile, relative) } : {}),
    ...(reader.below ? { below: (fromFile: string, relative: string) => reader.below!(fromFile, relative) } : {}),
  };
}

/** The first place a reference is found at (or its place beside the file when it is nowhere), and whether it was beside it. */
export function findReference(
  reader: FileReader,
  fromFile: string,
  relative: string,
  kind?: ReadKind,
): { path: string; text?: string; above: boolean; up: number } {
  const places = reader.lookup?.(fromFile, relative) ?? [reader.join(fromFile, relative)];
  for (let k = 0; k < places.length; k++) {
    const text = reader.read(places[k], kind);
    if (text !== undefined || reader.refusal?.(places[k]) !== undefined)
      return { path: places[k], text, above: k > 0, up: k };
  }
  return { path: places[0] ?? reader.join(fromFile, relative), above: false, up: 0 };
}

/**
 * The modules of a script's project, for the constants it imports from them (`from config import MODEL_NAME`): found as
 * a helper module is (beside the script, or from a folder above it for an absolute import); and the data files it loads
 * (kind 'data'), found as scriptDataFile finds them.
 */
export function projectModules(reader: FileReader, file: string): ModuleRead {
  return (path, kind) => {
    const found = kind === 'data' ? findReference(reader, file, path, 'project-data') : moduleFile(reader, file, path);
    if (found.text === undefined || (found.above && !foundAboveAs(path, kind === 'data'))) return undefined;
    return { text: found.text, shownAs: path.replace(/^\.\//, ''), found: found.path };
  };
}

/**
 * A module file the script imports its constants from: beside it or from a folder above, else under `src/` (run with
 * src/ on the path: sids07/LLM_finetuning's `from config_dpo import model_args`, the module in src/config_dpo.py). A
 * package's `__init__.py` is asked for by its own path.
 */
function moduleFile(reader: FileReader, file: string, path: string): ReturnType<typeof findReference> {
  const found = findReference(reader, file, path);
  if (found.text !== undefined || path.startsWith('.')) return found;
  const under = findReference(reader, file, `src/${path}`);
  return under.text !== undefined ? under : found;
}

/**
 * The file of a module a script imports (`from llmzoo.models import build_model`): `llmzoo/models.py`, else the
 * package's `llmzoo/models/__init__.py`, each also under `src/` (a src layout's package, installed to run so:
 * `scripts/train.py` importing `gpt_oss_finetune.train` from `src/gpt_oss_finetune/train.py`, or `from config_dpo
 * import model_args` run with src/ on the path).
 */
export function findModule(reader: FileReader, file: string, path: string): ReturnType<typeof findReference> {
  const init = path.replace(/\.py$/, '/__init__.py');
  const found = findReference(reader, file, path);
  if (found.text !== undefined) return found;
  for (const place of [init, `src/${path}`, `src/${init}`]) {
    const other = findReference(reader, file, place);
    if (other.text !== undefined) return other;
  }
  return found;
}

/**
 * Whether a path may name a file found in a folder above the file that names it (a script run from its repository's
 * root): a module imported absolutely, not relatively (`.consts`: `./consts.py`); a data file opened by a path relative
 * to the working folder, `./configs/x.yaml` as `configs/x.yaml`, but not one that starts above it (`../`).
 */
export function foundAboveAs(path: string, data: boolean): boolean {
  return data ? !/^\.\.\//.test(path) : !/^\.\.?\//.test(path);
}
