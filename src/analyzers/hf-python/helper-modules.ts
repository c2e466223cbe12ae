// The helper modules a training script imports from beside itself and calls into: PEFT's examples/sft/train.py
// builds its model, BitsAndBytesConfig and LoraConfig in `utils.create_and_prepare_model(model_args, ...)`, so what
// runs is written in utils.py and decided by train.py's options. Each such import is a `module` reference; the
// pipeline reads the module when it is a file beside the script, with the script's options as the run has them
// (PythonFile.inherited). Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import type { CallArgument, CallArguments } from '../facts';
import type { PythonFile } from './file';
import { isModelClass, isModelLoad, span } from './syntax';
import { importedConfigObject } from './imported-constants';
import { branchTaken } from './branches';
import { mappedFunction } from './mapped-functions';

/**
 * Top-level packages that are never a file of the project (Python's standard library, and the packages training scripts
 * install): no read is tried for an absolute import of one. Names a project often has a module of its own by
 * (`evaluate.py`, a `tokenizers/` folder, which Python imports before the installed package) are left out.
 */
export const PACKAGES: ReadonlySet<string> = new Set([
  'abc',
  'accelerate',
  'argparse',
  'ast',
  'asyncio',
  'base64',
  'bisect',
  'bitsandbytes',
  'codecs',
  'collections',
  'concurrent',
  'contextlib',
  'copy',
  'csv',
  'dataclasses',
  'datasets',
  'datetime',
  'deepspeed',
  'einops',
  'enum',
  'fire',
  'fnmatch',
  'functools',
  'gc',
  'glob',
  'gzip',
  'hashlib',
  'heapq',
  'huggingface_hub',
  'importlib',
  'inspect',
  'io',
  'itertools',
  'json',
  'jsonlines',
  'logging',
  'math',
  'matplotlib',
  'multiprocessing',
  'nltk',
  'numpy',
  'omegaconf',
  'operator',
  'os',
  'pandas',
  'pathlib',
  'peft',
  'pickle',
  'PIL',
  'platform',
  'pprint',
  'psutil',
  'pydantic',
  'queue',
  'random',
  're',
  'requests',
  'rich',
  'safetensors',
  'scipy',
  'sentencepiece',
  'shlex',
  'shutil',
  'signal',
  'sklearn',
  'socket',
  'statistics',
  'string',
  'struct',
  'subprocess',
  'sys',
  'tempfile',
  'textwrap',
  'threading',
  'tiktoken',
  'time',
  'torch',
  'torchvision',
  'tqdm',
  'traceback',
  'transformers',
  'trl',
  'typer',
  'types',
  'typing',
  'unittest',
  'unsloth',
  'urllib',
  'uuid',
  'vllm',
  'wandb',
  'warnings',
  'weakref',
  'yaml',
  'zipfile',
  '__future__',
]);

/**
 * Whether an import names an installed package (PACKAGES) and not a module of the project: an absolute import of one
 * (`import json`, `from tqdm.auto import tqdm`); a relative one (`from .types import Config`) is the package's own.
 */
export function installedPackage(module: string): boolean {
  return !module.startsWith('.') && PACKAGES.has(module.split('.')[0]);
}

/** At most this many modules are followed from one file. */
const MAX_MODULES = 8;

/**
 * One import statement: the module it names (dots for a relative one), the local names it binds, and for each the
 * name in the module (`b` of `from m import b as c`; none for `import m`, whose attributes are the module's names).
 */
export interface Imported {
  readonly module: string;
  readonly node: SyntaxNode;
  readonly names: readonly string[];
  readonly original: readonly (string | undefined)[];
  /** `from .model import *`: every public name of the module. */
  readonly star?: true;
}

/** `from utils import a, b as c` / `import pkg.helpers as h` / `from .helpers import f`, read from the tree. */
export function importOf(file: Pick<PythonFile, 'text'>, st: SyntaxNode): Imported | undefined {
  const first = st.firstChild;
  if (!first) return undefined;
  const parts: string[] = [];
  const names: string[] = [];
  const original: (string | undefined)[] = [];
  let node: SyntaxNode | undefined;
  let ch: SyntaxNode | null = first.nextSibling;
  // The module path: names and dots up to `import` (for `from`) or to `as` / `,` / the end (for `import`).
  for (; ch && ch.name !== 'import' && ch.name !== 'as' && ch.name !== ','; ch = ch.nextSibling) {
    if (ch.name !== 'VariableName' && ch.name !== '.') return undefined;
    node ??= ch;
    parts.push(file.text.slice(ch.from, ch.to));
  }
  if (!node) return undefined;
  if (first.name === 'import') {
    const module = parts.join('');
    const aliased = ch?.name === 'as' && ch.nextSibling?.name === 'VariableName';
    // `import a.b` binds `a`, whose attribute `b` is the module: its functions are called as `a.b.f(...)`.
    names.push(aliased ? file.text.slice(ch!.nextSibling!.from, ch!.nextSibling!.to) : module);
    return { module, node, names, original: [undefined] };
  }
  let star = false;
  for (ch = ch?.nextSibling ?? null; ch; ch = ch.nextSibling) {
    star ||= ch.name === '*';
    if (ch.name !== 'VariableName') continue;
    const alias = ch.nextSibling?.name === 'as' ? ch.nextSibling.nextSibling : null;
    names.push(file.text.slice((alias ?? ch).from, (alias ?? ch).to));
    original.push(file.text.slice(ch.from, ch.to));
    if (alias) ch = alias;
  }
  return { module: parts.join(''), node, names, original, ...(star ? { star: true as const } : {}) };
}

/**
 * The file a module path names, relative to the importing file: `utils` -> utils.py, `pkg.a` -> pkg/a.py (an absolute
 * import, found beside the file or from a folder above it, as a project run from its root has it on sys.path), `.a.b`
 * -> ./a/b.py and `..a` -> ../a.py (relative imports: the package's own folders only).
 */
export function modulePath(module: string): string | undefined {
  const m = /^(\.*)([\w.]*)$/.exec(module);
  if (!m || m[2] === '' || m[2].endsWith('.')) return undefined;
  const dots = m[1].length;
  const up = dots === 0 ? '' : dots === 1 ? './' : '../'.repeat(dots - 1);
  return `${up}${m[2].split('.').join('/')}.py`;
}

/**
 * The helper modules of a script: the imports from which it calls a name (`create_and_prepare_model(...)`,
 * `helpers.load(...)`), as `module` references, the known packages left out.
 */
export function helperModules(file: PythonFile, imports: readonly SyntaxNode[], entries: readonly string[] = []): void {
  // A call on a branch known not to run (`if model_args.use_unsloth:` with the default False) follows no module, nor
  // one on a branch not known either way whose `if` loads the model or makes the trainer itself on another branch: the
  // library's path is read, not the project's alternative to it (alignment-handbook forks: Unsloth's loader under
  // `use_unsloth`, which the YAML the launch line gives H4ArgumentParser may set).
  const callees = file.calls
    .filter((c) => {
      const taken = branchTaken(file, c);
      return taken === true || (taken === undefined && !loadsOnOtherBranch(file, c));
    })
    .map((c) => file.calleeName(c))
    .filter((x): x is string => x !== undefined);
  callees.push(...mappedFunctions(file));
  let n = 0;
  for (const st of imports) {
    const imp = importOf(file, st);
    if (!imp || installedPackage(imp.module)) continue;
    const reexported = reexportedCalls(file, imp, entries);
    if (reexported) {
      const path = modulePath(imp.module);
      if (path && n++ < MAX_MODULES)
        file.references.push({ kind: 'module', path, span: span(imp.node), ...reexported });
      continue;
    }
    if (imp.star) {
      const names = starCandidates(file, imports, callees);
      const path = modulePath(imp.module);
      if (names.length === 0 || !path || n++ >= MAX_MODULES) continue;
      const callArgs = callArguments(file, { ...imp, names, original: names }, names);
      const ref = { kind: 'module' as const, path, span: span(imp.node), calls: names, starImport: true as const };
      file.references.push(callArgs ? { ...ref, callArgs } : ref);
      continue;
    }
    const calls = calledNames(imp, callees);
    // A config object the module builds on import (`lora_config = LoraConfig(...)`): its top level is part of the run.
    if (calls.length === 0 && !imp.names.some((local) => importedConfigObject(file, local))) continue;
    const path = modulePath(imp.module);
    if (!path || n++ >= MAX_MODULES) continue;
    const callArgs = callArguments(file, imp, calls);
    file.references.push({ kind: 'module', path, span: span(imp.node), calls, ...(callArgs ? { callArgs } : {}) });
  }
}

/**
 * The importer's calls a package's `__init__.py` takes from a module of its own (`from .model import
 * load_model_and_processor`, which the script calls as `from sft import load_model_and_processor`): followed into that
 * module with the importer's arguments, as a call of the module itself would be. Only for a module the script calls
 * into (entries), and only names the import binds.
 */
function reexportedCalls(
  file: PythonFile,
  imp: Imported,
  entries: readonly string[],
): { calls: string[]; callArgs?: Record<string, CallArguments> } | undefined {
  if (!file.settled || entries.length === 0 || !imp.module.startsWith('.')) return undefined;
  const calls: string[] = [];
  const callArgs: Record<string, CallArguments> = {};
  // `from .model import *` (a package that re-exports its modules whole): each name the importer calls, wherever defined.
  const bound: [string, string | undefined][] = imp.star
    ? entries.map((e) => [e, e])
    : imp.names.map((l, i) => [l, imp.original[i]]);
  for (const [local, inModule] of bound) {
    if (inModule === undefined || !entries.includes(local)) continue;
    calls.push(inModule);
    const given = file.moduleCallArgs?.[local];
    if (given) callArgs[inModule] = given;
  }
  if (calls.length === 0) return undefined;
  return Object.keys(callArgs).length > 0 ? { calls, callArgs } : { calls };
}

/** A call of a trainer class (`Trainer(...)`, `trl.SFTTrainer(...)`, a project's `CustomDPOTrainer(...)`). */
const TRAINER_CALL = /(^|\.)\w*Trainer$/;

/**
 * Whether the innermost `if` around a call has another clause that loads the model with the library itself (a model
 * class's `from_pretrained`) or makes its trainer (`SFTTrainer(...)`, `Trainer(...)`).
 */
function loadsOnOtherBranch(file: PythonFile, call: SyntaxNode): boolean {
  let stmt: SyntaxNode | null = call.parent;
  while (stmt && stmt.name !== 'IfStatement') stmt = stmt.parent;
  if (!stmt) return false;
  const others = stmt.getChildren('Body').filter((b) => call.from < b.from || call.to > b.to);
  return file.calls.some(
    (c) =>
      others.some((b) => c.from >= b.from && c.to <= b.to) &&
      (isModelLoad(file.calleeName(c)?.split('.') ?? []) || TRAINER_CALL.test(file.calleeName(c) ?? '')),
  );
}

/**
 * The arguments the script gives each module function it calls exactly once (`load_model(base_model, torch_dtype)`
 * with `base_model = "meta-llama/Meta-Llama-3-8B"`): literals where the script's values give them, for the module's
 * parameters (script-defaults.ts singleCallArgument). A call with a `*` / `**` spread gives none.
 */
function callArguments(
  file: PythonFile,
  imp: Imported,
  calls: readonly string[],
): Record<string, CallArguments> | undefined {
  const out: Record<string, CallArguments> = {};
  const lit = (n: SyntaxNode | null): CallArgument | null => {
    const named = n?.name === 'VariableName' || n?.name === 'MemberExpression';
    const cls = named ? file.text.slice(n.from, n.to).split('.').pop()! : '';
    if (isModelClass(cls)) return { modelClass: cls };
    const v = n ? file.evalNode(n, 0) : undefined;
    if (v?.k === 'data') {
      const { value, source, path, keys, origins } = v;
      return { loaded: { value, source, path, keys, ...(origins ? { origins } : {}) } };
    }
    return v?.k === 'lit' ? { value: v.v } : null;
  };
  const record = (name: string, all: readonly SyntaxNode[]): void => {
    const trained = all.length > 1 ? trainedSite(file, all) : undefined;
    const sites = trained ? [trained] : all;
    if (sites.length !== 1 || spreads(sites[0])) return;
    const a = file.args(sites[0]);
    out[name] = {
      positional: a.positional.map(lit),
      keywords: Object.fromEntries(a.entries.map((e) => [e.rawKey, lit(e.valueNode)])),
      at: `line ${file.line(sites[0].from)}`,
    };
  };
  for (const name of calls) {
    const i = imp.original.indexOf(name);
    const local = i >= 0 ? imp.names[i] : undefined;
    const sites = file.calls.filter((c) => {
      const callee = file.calleeName(c);
      return callee === local || (i < 0 && imp.names.some((l) => callee === `${l}.${name}`));
    });
    record(name, sites);
    // A static or class method called through the imported class (`ModelEngine.build_qlora_model(MODEL_ID, cfg)`).
    for (const method of local ? methodsCalled(file, local) : []) {
      if (!(method in out)) record(method, file.callsNamed(`${local}.${method}`));
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Of several calls of a module's function, the one whose result the file trains: bound to the name a trainer is given
 * as its model, the last such binding before the trainer (kshahmir49/LLM-Post-Training dpo.ipynb loads a trained
 * checkpoint to compare with, then `model, tokenizer = load_model_and_tokenizer("HuggingFaceTB/SmolLM2-135M-Instruct",
 * USE_GPU)` and `DPOTrainer(model=model, ...)`). Undefined when no trainer takes such a name.
 */
function trainedSite(file: PythonFile, sites: readonly SyntaxNode[]): SyntaxNode | undefined {
  for (const t of file.calls) {
    if (!TRAINER_CALL.test(file.calleeName(t) ?? '')) continue;
    const a = file.args(t);
    const m = a.entries.find((e) => e.rawKey === 'model')?.valueNode ?? a.positional[0];
    if (m?.name !== 'VariableName') continue;
    const name = file.text.slice(m.from, m.to);
    const before = sites.filter((c) => c.to <= t.from && assignedNames(file, c).includes(name));
    if (before.length > 0) return before[before.length - 1];
  }
  return undefined;
}

/** The names a statement `a, b = call(...)` (or `a = call(...)`) binds to the call's result. */
function assignedNames(file: PythonFile, call: SyntaxNode): string[] {
  const st = call.parent;
  if (st?.name !== 'AssignStatement' || st.lastChild?.from !== call.from) return [];
  const out: string[] = [];
  for (let ch = st.firstChild; ch && ch.name !== 'AssignOp'; ch = ch.nextSibling)
    if (ch.name === 'VariableName') out.push(file.text.slice(ch.from, ch.to));
  return out;
}

/** The names called through an imported name as `name.method(...)`. */
function methodsCalled(file: PythonFile, local: string): string[] {
  const out = new Set<string>();
  for (const c of file.calls) {
    const m = file.calleeName(c)?.match(/^(\w+)\.(\w+)$/);
    if (m && m[1] === local) out.add(m[2]);
  }
  return [...out];
}

/** Whether a call passes `*args` or `**kwargs`: its arguments' places are then not known. */
function spreads(call: SyntaxNode): boolean {
  for (let ch = call.getChild('ArgList')?.firstChild ?? null; ch; ch = ch.nextSibling)
    if (ch.name === '*' || ch.name === '**') return true;
  return false;
}

/**
 * The names a script may call from a module it star-imports (`from utils import *`, then `load_model(args)`): each
 * name it calls bare, or calls a method of, that none of its own definitions and other imports binds. The module keeps
 * those it defines (reachableCalls' `starImport`): a builtin or a local variable's method names nothing there.
 */
function starCandidates(file: PythonFile, imports: readonly SyntaxNode[], callees: readonly string[]): string[] {
  const bound = new Set<string>();
  for (const st of imports) for (const name of importOf(file, st)?.names ?? []) bound.add(name.split('.')[0]);
  for (let st = file.root.firstChild; st; st = st.nextSibling) {
    const defined = definedName(file, st);
    if (defined !== undefined) bound.add(defined);
  }
  const out = new Set<string>();
  for (const callee of callees) {
    const first = callee.split('.')[0];
    if (/^\w+$/.test(first) && !bound.has(first)) out.add(first);
  }
  return [...out];
}

/**
 * The functions the script maps over a dataset (`dataset.map(tokenize, batched=True)`, `.map(function=tokenize)`):
 * datasets calls them in the script's process, as the script would.
 */
function mappedFunctions(file: PythonFile): string[] {
  const out: string[] = [];
  for (const c of file.calls) {
    const f = mappedFunction(file, c);
    if (f?.name === 'VariableName' || f?.name === 'MemberExpression') out.push(file.text.slice(f.from, f.to));
  }
  return out;
}

/** The module's names the script calls: `f` of `from m import f` called as `f(...)`, `g` of `m.g(...)` after `import m`. */
function calledNames(imp: Imported, callees: readonly string[]): string[] {
  const out = new Set<string>();
  imp.names.forEach((local, i) => {
    const inModule = imp.original[i];
    for (const callee of callees) {
      if (inModule !== undefined && (callee === local || callee.startsWith(`${local}.`))) out.add(inModule);
      else if (inModule === undefined && callee.startsWith(`${local}.`))
        out.add(callee.slice(local.length + 1).split('.')[0]);
    }
  });
  return [...out];
}

/**
 * The calls of a helper module that run for the script: its top-level code, and the bodies of the functions the script
 * calls (`entries`) and of the module's functions those call in turn. Every call when an entry is not a function of
 * the module (a class, or a name it imports from elsewhere): what runs is then not followed.
 */
export function reachableCalls(
  file: PythonFile,
  calls: readonly SyntaxNode[],
  entries: readonly string[],
  starImport = false,
): SyntaxNode[] {
  const functions = new Set<string>();
  for (let st = file.root.firstChild; st; st = st.nextSibling) {
    const name = functionName(file, st);
    if (name !== undefined) functions.add(name);
  }
  // A star-imported module none of whose definitions the script calls: only its top level runs.
  if (starImport && entries.length === 0) return calls.filter((c) => topLevel(c));
  if (entries.length === 0 || entries.some((e) => !functions.has(e))) return [...calls];
  const enclosing = (c: SyntaxNode): string | undefined => {
    let top: SyntaxNode = c;
    for (let p = c.parent; p && p.name !== 'Script'; p = p.parent) top = p;
    return functionName(file, top);
  };
  const owner = new Map(calls.map((c) => [c, enclosing(c)] as const));
  const reached = new Set<string>(entries);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of calls) {
      const fn = owner.get(c);
      const callee = file.calleeName(c);
      if (fn !== undefined && !reached.has(fn)) continue;
      if (callee && functions.has(callee) && !reached.has(callee)) {
        reached.add(callee);
        grew = true;
      }
    }
  }
  return calls.filter((c) => {
    const fn = owner.get(c);
    return fn === undefined || reached.has(fn);
  });
}

/** The names a script that star-imports the module may call (ModuleContext.starImport) that the module defines. */
export function starEntries(file: PythonFile, called: readonly string[]): string[] {
  const defined = new Set<string>();
  for (let st = file.root.firstChild; st; st = st.nextSibling) {
    const name = definedName(file, st);
    if (name !== undefined) defined.add(name);
  }
  return called.filter((e) => defined.has(e));
}

/** Whether a call is outside every function and class of the module. */
function topLevel(call: SyntaxNode): boolean {
  for (let p = call.parent; p && p.name !== 'Script'; p = p.parent)
    if (p.name === 'FunctionDefinition' || p.name === 'ClassDefinition') return false;
  return true;
}

/** The name a top-level statement defines when it is a function or a class (decorated or not). */
function definedName(file: PythonFile, st: SyntaxNode): string | undefined {
  const def =
    st.name === 'DecoratedStatement' ? (st.getChild('FunctionDefinition') ?? st.getChild('ClassDefinition')) : st;
  if (def?.name !== 'FunctionDefinition' && def?.name !== 'ClassDefinition') return undefined;
  const name = def.getChild('VariableName');
  return name ? file.text.slice(name.from, name.to) : undefined;
}

/** The name a top-level statement defines when it is a function (decorated or not). */
function functionName(file: PythonFile, st: SyntaxNode): string | undefined {
  const def = st.name === 'DecoratedStatement' ? st.getChild('FunctionDefinition') : st;
  const name = def?.name === 'FunctionDefinition' ? def.getChild('VariableName') : null;
  return name ? file.text.slice(name.from, name.to) : undefined;
}
