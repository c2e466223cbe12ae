// Constants a script imports from a module of its project (`from config import MODEL_NAME`, `import config` then
// `config.BATCH_SIZE`, `from .consts import *`): the module's top-level literal assignments, read where the script uses
// them, each saying where its value is written. The script's analysis looks a name up here where the file itself binds
// none, reading the modules then, once, through the pipeline's reader (ModuleRead). Pure: files come through `read`.
import type { SyntaxNode } from '@lezer/common';
import type { FactValue } from '../facts';
import { lineIndex, lineStarts } from '../line-index';
import { parsePython } from '../python-parse';
import type { PythonFile, Val } from './file';
import { writtenElsewhere } from './script-defaults';
import { importOf, modulePath, PACKAGES } from './helper-modules';
import { moduleConstants } from './module-constants';
import { span } from './syntax';

/** A constant of another module: its literal value and where it is written (`MODEL_NAME in config.py, line 1`). */
export interface ImportedValue {
  readonly value: FactValue;
  readonly source: string;
}

/** The names a script imports from its project's modules: bare (`from m import X`) and through a module (`m.X`). */
export interface ImportedConstants {
  readonly names: ReadonlyMap<string, ImportedValue>;
  readonly modules: ReadonlyMap<string, ReadonlyMap<string, ImportedValue>>;
}

/** One import of a project module: the file it names, the local names with their names in the module, or `*`. */
export interface ProjectImport {
  readonly path: string;
  /** [local name, name in the module]; the name in the module is undefined for `import m` (the module itself). */
  readonly names: readonly (readonly [string, string | undefined])[];
  readonly star: boolean;
}

/** At most this many imports are followed for one script's constants, and this many files read for them. */
const MAX_MODULES = 8;
const MAX_READS = 24;

/** A module's file found from the script by its path (`config.py`, `./consts.py`): its text and how it is named. */
/** A project file by its path from the script: a module it imports, or a data file it loads (data-files.ts). */
export type ModuleRead = (
  path: string,
  kind?: 'module' | 'data',
) => { readonly text: string; readonly shownAs: string } | undefined;

/** The top-level imports of a parsed script that name a module of its project (not an installed package). */
export function projectImports(text: string, root: SyntaxNode = parsePython(text).tree.topNode): ProjectImport[] {
  const file = { text };
  const out: ProjectImport[] = [];
  for (let st: SyntaxNode | null = root.firstChild; st && out.length < MAX_MODULES; st = st.nextSibling) {
    if (st.name !== 'ImportStatement') continue;
    const imp = importOf(file, st);
    if (!imp || PACKAGES.has(imp.module.replace(/^\.+/, '').split('.')[0])) continue;
    const path = modulePath(imp.module);
    if (!path) continue;
    const star = st.getChild('*') !== null;
    out.push({ path, names: imp.names.map((local, i) => [local, imp.original[i]] as const), star });
  }
  return out;
}

/** A module's top-level literal constants (the last assignment of each name), each with where it is written. */
export function moduleLiterals(text: string, shownAs: string): Map<string, ImportedValue> {
  const starts = lineStarts(text);
  const out = new Map<string, ImportedValue>();
  for (const [name, n] of moduleConstants({ text }, parsePython(text).tree.topNode)) {
    if (n.value === undefined || n.value === null) continue;
    const line = lineIndex(starts, n.entry.keySpan.start) + 1;
    out.set(name, { value: n.value, source: `${name} in ${shownAs}, line ${line}` });
  }
  return out;
}

/**
 * The constants a script's project imports give it; `read` finds a module's file from the script (undefined: none). A
 * package is its `__init__.py`; a name it does not bind is a module of the package (`from config.finetuning_qwen import
 * config`, then `config.BASE_MODEL_CHECKPOINT`: config/finetuning_qwen/config.py).
 */
export function importedConstants(imports: readonly ProjectImport[], read: ModuleRead): ImportedConstants | undefined {
  const names = new Map<string, ImportedValue>();
  const modules = new Map<string, ReadonlyMap<string, ImportedValue>>();
  let reads = 0;
  const readAt = (path: string): ReturnType<ModuleRead> => (reads++ < MAX_READS ? read(path) : undefined);
  for (const imp of imports) {
    const found = readAt(imp.path) ?? readAt(imp.path.replace(/\.py$/, '/__init__.py'));
    const literals = found ? moduleLiterals(found.text, found.shownAs) : new Map<string, ImportedValue>();
    if (imp.star) for (const [name, v] of literals) if (!name.startsWith('_')) names.set(name, v);
    for (const [local, original] of imp.names) {
      if (original === undefined) {
        if (found) modules.set(local, literals);
      } else if (literals.has(original)) names.set(local, literals.get(original)!);
      else {
        const sub = readAt(imp.path.replace(/\.py$/, `/${original}.py`));
        if (sub) modules.set(local, moduleLiterals(sub.text, sub.shownAs));
      }
    }
  }
  return names.size > 0 || modules.size > 0 ? { names, modules } : undefined;
}

/** The constants of the project modules a file imports, read the first time a name is looked up there. */
function importsOf(file: PythonFile): ImportedConstants | undefined {
  if (file.importsRead === undefined)
    file.importsRead =
      (file.readModule && importedConstants(projectImports(file.text, file.root), file.readModule)) ?? null;
  return file.importsRead ?? undefined;
}

/** `MODEL_NAME` of `from config import MODEL_NAME`, for a name the file binds nowhere. */
export function importedName(file: PythonFile, name: string, use: SyntaxNode): Val | undefined {
  const imported = file.readModule ? importsOf(file)?.names.get(name) : undefined;
  return imported && importedValue(imported, use);
}

/** `config.MODEL_NAME` where `config` is an imported project module the file does not bind otherwise. */
export function importedMember(file: PythonFile, dotted: string, use: SyntaxNode): Val | undefined {
  const imports = file.readModule ? importsOf(file) : undefined;
  if (!imports || imports.modules.size === 0) return undefined;
  const at = dotted.lastIndexOf('.');
  const module = imports.modules.get(dotted.slice(0, at));
  if (!module) return undefined;
  const found = file.lookup(dotted.split('.')[0], use);
  const imported = found.k === 'none' && !found.param ? module.get(dotted.slice(at + 1)) : undefined;
  return imported && importedValue(imported, use);
}

/** An imported constant's value, located where the file reads it and saying where it is written (ScriptDefault.elsewhere). */
function importedValue(imported: ImportedValue, use: SyntaxNode): Val {
  return writtenElsewhere(imported.value, span(use), imported.source);
}
