// Constants a script imports from a module of its project (`from config import MODEL_NAME`, `import config` then
// `config.BATCH_SIZE`, `from .consts import *`): the module's top-level literal assignments, read where the script uses
// them, each saying where its value is written. The script's analysis looks a name up here where the file itself binds
// none, reading the modules then, once, through the pipeline's reader (ModuleRead). Pure: files come through `read`.
import type { SyntaxNode } from '@lezer/common';
import type { FactValue } from '../facts';
import { lineIndex, lineStarts, offsetWithin } from '../line-index';
import { parsePython } from '../python-parse';
import { RecentResults } from '../recent';
import { PythonFile, type Val } from './file';
import type { Entry } from './static-values';
import { writtenElsewhere } from './script-defaults';
import { importOf, installedPackage, modulePath } from './helper-modules';
import { fieldArgument, literal, moduleConstants } from './module-constants';
import { type LoadedName, type LoaderFunction, moduleLoaders } from './module-loaders';
import { listItems, span } from './syntax';

/** A constant of another module: its literal value and where it is written (`MODEL_NAME in config.py, line 1`). */
export interface ImportedValue {
  readonly value: FactValue;
  readonly source: string;
}

/**
 * The names a script imports from its project's modules: bare (`from m import X`) and through a module (`m.X`), and
 * the bare names that load a configuration file (module-loaders.ts: a loader function, a name bound to a loaded file).
 */
export interface ImportedConstants {
  readonly names: ReadonlyMap<string, ImportedValue>;
  readonly modules: ReadonlyMap<string, ReadonlyMap<string, ImportedValue>>;
  readonly loaders: ReadonlyMap<string, LoaderFunction>;
  readonly loaded: ReadonlyMap<string, LoadedName>;
  /** Names the script imports that their module binds to a config object at its top level (`lora_config = LoraConfig(...)`). */
  readonly configObjects: ReadonlySet<string>;
}

/** One import of a project module: the file it names, the local names with their names in the module, or `*`. */
export interface ProjectImport {
  readonly path: string;
  /** [local name, name in the module]; the name in the module is undefined for `import m` (the module itself). */
  readonly names: readonly (readonly [string, string | undefined])[];
  readonly star: boolean;
}

/** Statements whose bodies hold the imports read (a function's, a branch's, a `try`'s, a `with`'s). */
const BLOCKS = new Set(['FunctionDefinition', 'IfStatement', 'TryStatement', 'WithStatement', 'Body']);

/**
 * The import statements of a block and of the blocks in it, top level first, a few blocks deep. `at`: where the text
 * says `import`, in order; a block without one is not walked (a script's hundreds of functions mostly import nothing).
 */
function importStatements(block: SyntaxNode, at: readonly number[], depth = 0): SyntaxNode[] {
  const top: SyntaxNode[] = [];
  const nested: SyntaxNode[] = [];
  for (let st: SyntaxNode | null = block.firstChild; st; st = st.nextSibling) {
    if (st.name === 'ImportStatement') top.push(st);
    else if (BLOCKS.has(st.name) && depth < 6 && offsetWithin(at, st.from, st.to))
      nested.push(...importStatements(st, at, depth + 1));
  }
  return [...top, ...nested];
}

/**
 * At most this many imports are looked for in the project for one script's constants (an installed package's, which
 * `import rich` or `import swanlab` names, is not there: a failed look-up costs no parsing), this many files read for
 * them, and this many looked for in all.
 */
const MAX_MODULES = 32;
const MAX_READS = 24;
const MAX_LOOKUPS = 96;

/**
 * A project file by its path from the script: a module it imports, or a data file it loads (data-files.ts); its text,
 * how it is named, and where it was found.
 */
export type ModuleRead = (
  path: string,
  kind?: 'module' | 'data',
) => { readonly text: string; readonly shownAs: string; readonly found?: string } | undefined;

/**
 * The imports of a parsed script that name a module of its project (not an installed package): at the top level, and
 * inside a function, a branch or a `try` (`def main(): from training.model import MODEL_NAME_DEFAULT`, a lazy import),
 * whose names the script reads where it binds them nowhere else.
 */
export function projectImports(text: string, root: SyntaxNode = parsePython(text).tree.topNode): ProjectImport[] {
  const file = { text };
  const out: ProjectImport[] = [];
  const at = [...text.matchAll(/\bimport\b/g)].map((m) => m.index);
  for (const st of importStatements(root, at)) {
    if (out.length >= MAX_MODULES) break;
    const imp = importOf(file, st);
    if (!imp || installedPackage(imp.module)) continue;
    const path = modulePath(imp.module);
    if (!path) continue;
    const star = st.getChild('*') !== null;
    out.push({ path, names: imp.names.map((local, i) => [local, imp.original[i]] as const), star });
  }
  return out;
}

/**
 * A module's top-level constants (the last assignment of each name), each with where it is written: literals, and the
 * values the module works out from them statically (`MODEL = os.path.join("meta-llama", "Llama-2-7b-hf")`, `BASE +
 * "-Instruct"`, an f-string of its constants); its own imports are not followed.
 */
export function moduleLiterals(
  text: string,
  shownAs: string,
  top: SyntaxNode = parsePython(text).tree.topNode,
): Map<string, ImportedValue> {
  const starts = lineStarts(text);
  const out = new Map<string, ImportedValue>();
  let module: PythonFile | undefined;
  for (const [name, n] of moduleConstants({ text }, top)) {
    let value = n.value;
    if (value === undefined && n.entry.valueNode) {
      if (!module) {
        module = new PythonFile(text);
        module.root = top;
      }
      const v = module.evalNode(n.entry.valueNode, 1);
      value = v.k === 'lit' ? v.v : undefined;
      if (v.k === 'dict') dictLiterals(module, name, v.entries, { shownAs, starts, out });
    }
    if (value === undefined || value === null) continue;
    const line = lineIndex(starts, n.entry.keySpan.start) + 1;
    out.set(name, { value, source: `${name} in ${shownAs}, line ${line}` });
  }
  classLiterals(text, top, { shownAs, starts, out });
  instanceLiterals(module ?? Object.assign(new PythonFile(text), { root: top }), top, { shownAs, starts, out });
  return out;
}

/**
 * The attributes of a module-level instance of one of the module's classes (`train_config = TrainingConfig()`, a
 * dataclass with its fields' defaults; Nguyen3007/decode-only src/config.py), under `train_config.NAME`, the name a
 * script that imports the instance reads them by: the keyword the call passes as a literal, else the class body's
 * value. A call with a positional argument (an `__init__` the reader does not follow) gives none.
 */
function instanceLiterals(
  module: PythonFile,
  top: SyntaxNode,
  where: { shownAs: string; starts: readonly number[]; out: Map<string, ImportedValue> },
): void {
  const { text } = module;
  for (const [name, n] of moduleConstants({ text }, top)) {
    const call = n.entry.valueNode;
    const callee = call?.name === 'CallExpression' ? call.firstChild : null;
    if (!call || callee?.name !== 'VariableName') continue;
    const cls = text.slice(callee.from, callee.to);
    const args = module.args(call);
    if (args.positional.length > 0 || args.opaque.length > 0) continue;
    const attributes = [...where.out].filter(([key]) => key.startsWith(`${cls}.`));
    if (attributes.length === 0) continue;
    for (const [key, v] of attributes) where.out.set(`${name}${key.slice(cls.length)}`, v);
    for (const e of args.entries) {
      const v = e.valueNode ? literal(text, e.valueNode) : undefined;
      if (v === undefined || v === null) continue;
      const line = lineIndex(where.starts, e.keySpan.start) + 1;
      where.out.set(`${name}.${e.rawKey}`, {
        value: v,
        source: `${name}.${e.rawKey} in ${where.shownAs}, line ${line}`,
      });
    }
  }
}

/**
 * The literal class attributes of a module's top-level classes (`class LLMConfig:` / `BASE_MODEL = "..."`), each
 * under `Class.NAME`, the name a script reads them by (`config.LLMConfig.BASE_MODEL`): an attribute the body sets
 * once, to a literal.
 */
function classLiterals(
  text: string,
  top: SyntaxNode,
  where: { shownAs: string; starts: readonly number[]; out: Map<string, ImportedValue> },
): void {
  const nested: { key: string; value: SyntaxNode }[] = [];
  for (let st = top.firstChild; st; st = st.nextSibling) {
    // A decorated class (`@dataclass`) is the ClassDefinition of its DecoratedStatement.
    const cls = st.name === 'DecoratedStatement' ? st.getChild('ClassDefinition') : st;
    if (cls?.name !== 'ClassDefinition') continue;
    const className = cls.getChild('VariableName');
    if (!className) continue;
    const seen = new Map<string, SyntaxNode | null>();
    for (let st = cls.getChild('Body')?.firstChild ?? null; st; st = st.nextSibling) {
      const target = st.name === 'AssignStatement' ? st.firstChild : null;
      if (target?.name !== 'VariableName' || !st.getChild('AssignOp')) continue;
      const attr = text.slice(target.from, target.to);
      seen.set(attr, seen.has(attr) ? null : st.lastChild);
    }
    const name = text.slice(className.from, className.to);
    for (const [attr, assigned] of seen) {
      const value = assigned && fieldArgument(text, assigned, 'default');
      const v = value ? (literal(text, value) ?? stringItems(text, value)) : undefined;
      if (v === undefined || v === null) continue;
      const key = `${name}.${attr}`;
      const line = lineIndex(where.starts, value!.from) + 1;
      where.out.set(key, { value: v, source: `${key} in ${where.shownAs}, line ${line}` });
    }
    for (const [attr, assigned] of seen) if (assigned) nested.push({ key: `${name}.${attr}`, value: assigned });
  }
  nestedClassLiterals(text, nested, where);
}

/**
 * A list or tuple of string literals (`TARGET_MODULES = ["q_proj", "v_proj"]` of daniilgorenkov/LLM-with-RAG's
 * config.LoRAConfig): the strings; undefined for anything else.
 */
function stringItems(text: string, n: SyntaxNode): string[] | undefined {
  if (n.name !== 'ArrayExpression' && n.name !== 'TupleExpression') return undefined;
  const items = listItems(n).map((c) => (c.name === 'String' ? literal(text, c) : undefined));
  return items.length > 0 && items.every((v) => typeof v === 'string') ? (items as string[]) : undefined;
}

/**
 * Fields that hold an instance of another of the module's classes (`training: TrainConfig =
 * field(default_factory=TrainConfig)`, `= TrainConfig()`, a `lambda: TrainConfig(...)` factory): that class's
 * attributes under `Config.training.NAME`, the call's literal keywords over them, nested up to three levels.
 */
function nestedClassLiterals(
  text: string,
  fields: readonly { key: string; value: SyntaxNode }[],
  where: { shownAs: string; starts: readonly number[]; out: Map<string, ImportedValue> },
): void {
  for (let level = 0; level < 3; level++) {
    for (const { key, value } of fields) {
      const made = fieldArgument(text, value, 'default_factory');
      const call = made?.name === 'LambdaExpression' ? made.lastChild : made;
      const callee = call?.name === 'CallExpression' ? call.firstChild : call;
      if (!call || callee?.name !== 'VariableName') continue;
      const cls = text.slice(callee.from, callee.to);
      for (const [inner, v] of [...where.out]) {
        if (inner.startsWith(`${cls}.`)) where.out.set(`${key}${inner.slice(cls.length)}`, v);
      }
      if (call.name !== 'CallExpression') continue;
      for (let ch = call.getChild('ArgList')?.firstChild ?? null; ch; ch = ch.nextSibling) {
        const arg = ch.name === 'VariableName' && ch.nextSibling?.name === 'AssignOp' ? ch : null;
        const given = arg?.nextSibling?.nextSibling;
        const v = given ? literal(text, given) : undefined;
        if (!arg || !given || v === undefined || v === null) continue;
        const name = `${key}.${text.slice(arg.from, arg.to)}`;
        where.out.set(name, {
          value: v,
          source: `${name} in ${where.shownAs}, line ${lineIndex(where.starts, given.from) + 1}`,
        });
      }
    }
  }
}

/**
 * The literal items of a dict constant (`TRAINING_CONFIG = {"per_device_train_batch_size": 1, ...}`), each under
 * `NAME["key"]`, the name the script's subscript reads (expressions.ts dictItem).
 */
function dictLiterals(
  module: PythonFile,
  name: string,
  entries: readonly Entry[],
  where: { shownAs: string; starts: readonly number[]; out: Map<string, ImportedValue> },
): void {
  for (const e of entries) {
    if (e.forced || !e.valueNode) continue;
    const v = module.evalNode(e.valueNode, 1);
    if (v.k !== 'lit' || v.v === null) continue;
    const key = `${name}[${JSON.stringify(e.rawKey)}]`;
    const line = lineIndex(where.starts, e.keySpan.start) + 1;
    where.out.set(key, { value: v.v, source: `${key} in ${where.shownAs}, line ${line}` });
  }
}

/**
 * The constants a script's project imports give it; `read` finds a module's file from the script (undefined: none). A
 * package is its `__init__.py`; a name it does not bind is a module of the package (`from config.finetuning_qwen import
 * config`, then `config.BASE_MODEL_CHECKPOINT`: config/finetuning_qwen/config.py).
 */
export function importedConstants(imports: readonly ProjectImport[], read: ModuleRead): ImportedConstants | undefined {
  const names = new Map<string, ImportedValue>();
  const modules = new Map<string, ReadonlyMap<string, ImportedValue>>();
  const loaders = new Map<string, LoaderFunction>();
  const loaded = new Map<string, LoadedName>();
  const configObjects = new Set<string>();
  let reads = 0;
  let lookups = 0;
  const readAt = (path: string): ReturnType<ModuleRead> => {
    if (reads >= MAX_READS || lookups++ >= MAX_LOOKUPS) return undefined;
    const found = read(path);
    if (found) reads++;
    return found;
  };
  const moduleAt = (path: string): ParsedModule | undefined => {
    const init = path.replace(/\.py$/, '/__init__.py');
    const found = readAt(path);
    const pkg = found ? undefined : readAt(init);
    if (found) return parsedModule(found.text, found.shownAs, path);
    return pkg && parsedModule(pkg.text, pkg.shownAs, init);
  };
  for (const imp of imports) {
    const found = moduleAt(imp.path);
    const literals = found?.literals ?? new Map<string, ImportedValue>();
    if (imp.star && found) starredNames(found, { names, loaders, loaded });
    for (const [local, original] of imp.names) {
      if (original !== undefined && found?.configObjects.has(original)) configObjects.add(local);
      if (original === undefined) {
        if (found) modules.set(local, literals);
      } else if (literals.has(original)) names.set(local, literals.get(original)!);
      else if (partsOf(literals, original, local, names, '.') > 0) continue;
      else if (partsOf(literals, original, local, names, '[') > 0) continue;
      else {
        const loader = found && loaderOf(found, original, moduleAt);
        if (loader?.fn) loaders.set(local, loader.fn);
        if (loader?.loaded) loaded.set(local, loader.loaded);
        const sub = loader ? undefined : readAt(imp.path.replace(/\.py$/, `/${original}.py`));
        if (sub) modules.set(local, moduleLiterals(sub.text, sub.shownAs));
      }
    }
  }
  return names.size > 0 || modules.size > 0 || loaders.size > 0 || loaded.size > 0 || configObjects.size > 0
    ? { names, modules, loaders, loaded, configObjects }
    : undefined;
}

/** What `from m import *` binds of module m: its public constants, loader functions and loaded names. */
function starredNames(
  found: ParsedModule,
  into: { names: Map<string, ImportedValue>; loaders: Map<string, LoaderFunction>; loaded: Map<string, LoadedName> },
): void {
  const visible = (name: string): boolean => !name.startsWith('_');
  for (const [name, v] of found.literals) if (visible(name)) into.names.set(name, v);
  for (const [name, fn] of found.loaders.functions) if (visible(name)) into.loaders.set(name, fn);
  for (const [name, l] of found.loaders.loaded) if (visible(name)) into.loaded.set(name, l);
}

/**
 * Copies the items of a dict constant (`NAME["key"]`, `opens` `[`) or the attributes of a class (`Class.NAME`, `opens`
 * `.`) the script imports under its local name; returns how many.
 */
function partsOf(
  literals: ReadonlyMap<string, ImportedValue>,
  original: string,
  local: string,
  names: Map<string, ImportedValue>,
  opens: '[' | '.',
): number {
  let n = 0;
  for (const [key, v] of literals) {
    if (!key.startsWith(`${original}${opens}`)) continue;
    names.set(`${local}${key.slice(original.length)}`, v);
    n++;
  }
  return n;
}

/** A module read for the names a script imports: its literals, its loaders, and its own project imports. */
interface ParsedModule {
  readonly path: string;
  readonly literals: ReadonlyMap<string, ImportedValue>;
  readonly loaders: ReturnType<typeof moduleLoaders>;
  readonly imports: ProjectImport[];
  /** Top-level names bound to a config object (`lora_config = LoraConfig(...)`, `args = TrainingArguments(...)`). */
  readonly configObjects: ReadonlySet<string>;
}

/**
 * A top-level name bound to a config class's call (`lora_config = LoraConfig(`, `args: SFTConfig = SFTConfig(`) or to
 * a model a class loads (`model = AutoModelForSequenceClassification.from_pretrained(`): what the script imports of it
 * makes the module's top level part of the run.
 */
const CONFIG_OBJECT = /^(\w+)\s*(?::[^=\n]+)?=\s*(?:\w*(?:Config|Arguments)|[\w.]*\.from_pretrained)\(/gm;

/**
 * The last modules read: a helper module is read again, unchanged, at every keystroke in the script that imports it,
 * and what is read of it depends on its text, name and path alone (its parse is kept the same way, python-parse.ts).
 */
const recentModules = new RecentResults<ParsedModule>(8);

function parsedModule(text: string, shownAs: string, path: string): ParsedModule {
  return recentModules.get(text, `${path}\u0000${shownAs}`, () => readModule(text, shownAs, path));
}

function readModule(text: string, shownAs: string, path: string): ParsedModule {
  const top = parsePython(text).tree.topNode;
  return {
    path,
    literals: moduleLiterals(text, shownAs, top),
    loaders: moduleLoaders(text, top),
    imports: projectImports(text, top),
    configObjects: new Set([...text.matchAll(CONFIG_OBJECT)].map((m) => m[1])),
  };
}

/**
 * What `original` of a module is as a loader: a loader function or a name bound to a loaded file, following the
 * module's own import of it once (a package's `__init__.py` that takes `load_config` from `.experiment_io`); undefined
 * when it is neither.
 */
function loaderOf(
  found: ParsedModule,
  original: string,
  moduleAt: (path: string) => ParsedModule | undefined,
  hops = 0,
): { readonly fn?: LoaderFunction; readonly loaded?: LoadedName } | undefined {
  const fn = found.loaders.functions.get(original);
  const loaded = found.loaders.loaded.get(original);
  if (fn || loaded) return { fn, loaded };
  const via = hops === 0 ? found.imports.find((i) => i.names.some(([l]) => l === original)) : undefined;
  const inNext = via?.names.find(([l]) => l === original)?.[1];
  const next = via && inNext ? moduleAt(besideModule(found.path, via.path)) : undefined;
  return next && inNext ? loaderOf(next, inNext, moduleAt, hops + 1) : undefined;
}

/**
 * A path a module's import names, from the script's folder: an absolute import as is, a relative one from the module's
 * folder (the reader's join resolves its `..`).
 */
export function besideModule(modulePath: string, imported: string): string {
  return /^\.\.?\//.test(imported) ? `${modulePath.replace(/[^/]*$/, '')}${imported.replace(/^\.\//, '')}` : imported;
}

/** The constants of the project modules a file imports, read the first time a name is looked up there. */
function importsOf(file: PythonFile): ImportedConstants | undefined {
  if (file.importsRead === undefined)
    file.importsRead =
      (file.readModule && importedConstants(projectImports(file.text, file.root), file.readModule)) ?? null;
  return file.importsRead ?? undefined;
}

/** The loader function a bare name is imported as (`from utils import load_config`), if any. */
export function importedLoaderFunction(file: PythonFile, name: string): LoaderFunction | undefined {
  return importsOf(file)?.loaders.get(name);
}

/** The loaded file a bare name is imported as (`from config import GRPO_CFG`), if any. */
/** Whether a name the script imports is a config object its module builds at its top level (helper-modules.ts). */
export function importedConfigObject(file: PythonFile, name: string): boolean {
  return importsOf(file)?.configObjects.has(name) === true;
}

export function importedLoaded(file: PythonFile, name: string): LoadedName | undefined {
  return importsOf(file)?.loaded.get(name);
}

/** Whether the file imports a loader function or a loaded file from its project's modules. */
export function importsLoaders(file: PythonFile): boolean {
  const imports = file.readModule ? importsOf(file) : undefined;
  return imports !== undefined && (imports.loaders.size > 0 || imports.loaded.size > 0);
}

/** `MODEL_NAME` of `from config import MODEL_NAME`, for a name the file binds nowhere. */
export function importedName(file: PythonFile, name: string, use: SyntaxNode): Val | undefined {
  const imported = file.readModule ? importsOf(file)?.names.get(name) : undefined;
  return imported && importedValue(imported, use);
}

/** `config.MODEL_NAME` where `config` is an imported project module the file does not bind otherwise. */
export function importedMember(file: PythonFile, dotted: string, use: SyntaxNode): Val | undefined {
  const imports = file.readModule ? importsOf(file) : undefined;
  if (!imports) return undefined;
  const found = file.lookup(dotted.split('.')[0], use);
  if (found.k !== 'none' || found.param) return undefined;
  // `m.NAME`, `m.Class.NAME` of an imported module, or `Class.NAME` of an imported class.
  const at = dotted.lastIndexOf('.');
  const first = dotted.indexOf('.');
  const imported =
    imports.modules.get(dotted.slice(0, at))?.get(dotted.slice(at + 1)) ??
    imports.modules.get(dotted.slice(0, first))?.get(dotted.slice(first + 1)) ??
    imports.names.get(dotted);
  return imported && importedValue(imported, use);
}

/**
 * The items a `**NAME` spread of an imported dict constant passes (`GRPOConfig(**TRAINING_ARGS)` after `from config
 * import TRAINING_ARGS`: umbertogriffo/llm-finetuning-playground src/finetune.py), each located at the spread and
 * naming the module's line; undefined when NAME is no imported dict of literal items.
 */
export function importedDictItems(
  file: PythonFile,
  name: string,
  use: SyntaxNode,
): { key: string; value: Val }[] | undefined {
  const imports = file.readModule ? importsOf(file) : undefined;
  if (!imports) return undefined;
  const found = file.lookup(name, use);
  if (found.k !== 'none' || found.param) return undefined;
  const prefix = `${name}["`;
  const items: { key: string; value: Val }[] = [];
  for (const [k, v] of imports.names) {
    if (!k.startsWith(prefix) || !k.endsWith('"]')) continue;
    const key: unknown = JSON.parse(k.slice(name.length + 1, -1));
    if (typeof key === 'string') items.push({ key, value: importedValue(v, use) });
  }
  return items.length > 0 ? items : undefined;
}

/** An imported constant's value, located where the file reads it and saying where it is written (ScriptDefault.elsewhere). */
function importedValue(imported: ImportedValue, use: SyntaxNode): Val {
  return writtenElsewhere(imported.value, span(use), imported.source);
}
