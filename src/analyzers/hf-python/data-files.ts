// A configuration file the script loads itself and reads items of: `json.load(f)` / `json.loads(f.read())` /
// `yaml.safe_load(f)` of a `with open(path) as f`, `json.load(open(path))`, `OmegaConf.load(path)`, with the path a
// literal or the script's default (`--config` defaulting to "cpt_config.json"). The file is read through the
// pipeline's reader (ModuleRead, found beside the script as a helper module is) and parsed as JSON or YAML, so
// `config["model_name_or_path"]`, `config.get("seq_len", 2048)` and `cfg.model.name` are the file's values, said as
// coming from it. Pure: files come through `file.readModule`.
import type { SyntaxNode } from '@lezer/common';
import type { DataItem, FactValue, Span } from '../facts';
import { notAnalyzed } from '../guards';
import { parseYaml } from '../yaml-parse';
import type { PythonFile, Val } from './file';
import type { ScriptDefault } from './script-defaults';
import { writtenElsewhere } from './script-defaults';
import { parameters, pyString, span } from './syntax';
import { calledFunctionBody, soleReturn } from './expressions';
import { importedLoaderFunction, importedLoaded, importsLoaders } from './imported-constants';
import { hasHydraMain } from './hydra-app';
import {
  itemLoader,
  loaderParameter,
  FILE_LOADERS,
  loadedPath,
  NAMESPACE_CLASSES,
  NAMESPACE_HELPERS,
  passThroughParameter,
  PATH_LOADERS,
  spreadItems,
  type LoaderFunction,
} from './module-loaders';

/** `json.load(...)`, `yaml.safe_load(...)`, `OmegaConf.load(...)` of a file the reader finds: its parsed contents. */
export function loadedData(file: PythonFile, call: SyntaxNode, callee: string, depth: number): Val | undefined {
  if (!PATH_LOADERS.test(callee) && !FILE_LOADERS.test(callee)) return undefined;
  const pathNode = loadedPath(file.text, call, undefined);
  return pathNode ? dataAtPath(file, pathNode, depth) : undefined;
}

/**
 * The JSON / YAML file a path expression of the script names (a literal, or the script's default), read through the
 * pipeline's reader and parsed; undefined when the path is not known statically or leaves the project.
 */
function dataAtPath(file: PythonFile, pathNode: SyntaxNode, depth: number): Val | undefined {
  const p = file.evalNode(pathNode, depth + 1);
  // The launch line may name another (`--config configs/sft.yaml` over the option's default, or where it has none):
  // the pipeline reads the script again with its options.
  if (!file.settled && (p.k !== 'lit' || p.dflt)) file.readsLaunchOptions = true;
  return p.k === 'lit' && typeof p.v === 'string' ? dataFile(file, p.v, span(pathNode)) : undefined;
}

/** The JSON / YAML file at a path from the script's folder, parsed (undefined for another kind of file or one outside). */
function dataFile(file: PythonFile, path: string, at: Span): Val | undefined {
  if (!/\.(json|ya?ml)$/i.test(path)) return undefined;
  if (!insideProject(path)) return absoluteInCheckout(file, path, at);
  const cached = file.loadedData.get(path);
  if (cached) return cached;
  // The run's other files find the script from the file it loads (node/launchers.ts, the workspace's runs).
  if (!file.references.some((r) => r.kind === 'data' && r.path === path))
    file.references.push({ kind: 'data', path, span: at });
  if (!file.readModule) return undefined;
  const read = file.readModule(path, 'data');
  const value = read ? parseData(read.text, path) : undefined;
  const v: Val =
    read && value !== undefined && typeof value === 'object' && value !== null
      ? { k: 'data', value, source: read.shownAs, path, keys: [] }
      : { k: 'unknown', reason: `${path} is read at run time: it is not in the project, or not a JSON / YAML mapping` };
  file.loadedData.set(path, v);
  return v;
}

/**
 * An absolute path of the author's machine (an argparse default `/home2/u/proj/naacl/configs/run.yaml`): the file of this
 * checkout with the same last parts, two to four of them and none a hidden folder, beside the script or up to two
 * folders above it; the path itself is never read. Undefined where none is found.
 */
function absoluteInCheckout(file: PythonFile, path: string, at: Span): Val | undefined {
  if (!/^(\/|[A-Za-z]:[\\/])/.test(path) || !file.readModule) return undefined;
  const parts = path.split(/[\\/]+/).filter((x) => x !== '' && x !== '.' && x !== '..');
  for (let k = 2; k <= Math.min(4, parts.length - 1); k++) {
    // Nothing under a hidden folder (`~/.docker/config.json`, `.aws/...`): credentials live there, not a run's config.
    if (parts.slice(-k).some((x) => x.startsWith('.'))) break;
    const tail = parts.slice(-k).join('/');
    for (const up of ['', '../', '../../']) {
      if (file.readModule(`${up}${tail}`, 'data')) return dataFile(file, `${up}${tail}`, at);
    }
  }
  return undefined;
}

/**
 * A relative path, climbing at most two folders first (`../configs/x.yaml` from scripts/), and the reader reads it only
 * where its real path is inside the project ('project-data'): a file elsewhere (`/home/u/.docker/config.json`,
 * `~/.netrc`, `a/../../b.json`) is never read, so that no file of the user's outside the project can have its values
 * printed by a script's items.
 */
export function insideProject(p: string): boolean {
  if (/^([\\/]|~|[A-Za-z]:)/.test(p)) return false;
  const parts = p.split(/[\\/]+/).filter((x) => x !== '.' && x !== '');
  const up = parts.findIndex((x) => x !== '..');
  return up >= 0 && up <= 2 && !parts.slice(up).includes('..');
}

/** JSON or YAML text as plain values; undefined when it does not parse. */
function parseData(text: string, name: string): unknown {
  if (notAnalyzed(text, /\.json$/i.test(name) ? 'json' : 'yaml')) return undefined;
  try {
    if (/\.json$/i.test(name)) return JSON.parse(text) as unknown;
    const doc = parseYaml(text);
    return doc.errors.length > 0 ? undefined : (doc.toJS() as unknown);
  } catch {
    return undefined;
  }
}

/** One step into loaded data: an item or attribute `key`; a scalar or a list of them as a literal said to come from the file. */
export function dataAt(d: Extract<Val, { k: 'data' }>, key: string, use: SyntaxNode): Val {
  const keys = [...d.keys, key];
  const obj = d.value as Record<string, unknown>;
  if (Array.isArray(obj) || !Object.prototype.hasOwnProperty.call(obj, key))
    return { k: 'unknown', reason: `${d.source} has no key ${keys.join('.')}` };
  const v = obj[key];
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return { ...d, value: v, keys };
  const lit = literal(v);
  if (lit === undefined)
    return { k: 'unknown', reason: `${d.source} ${keys.join('.')} is not a value VRAM Lens reads` };
  // A composed config's value is written in the file it came from, at its keys there, or on the launch line.
  if (!d.origins)
    return writtenElsewhere(lit, span(use), `${d.source} ${keys.join('.')}`, { path: d.path, keys, raw: lit });
  const at = d.origins.get(keys.join('.'));
  if (!at) return writtenElsewhere(lit, span(use), `${keys.join('.')}=${String(lit)} on the launch line`);
  return writtenElsewhere(lit, span(use), `${at.path} ${at.keys.join('.')}`, {
    path: at.path,
    keys: at.keys,
    raw: lit,
  });
}

/**
 * The item of a loaded file a fact's value is, when the script takes it as written (`cfg["bs"]`, not `cfg["bs"] * 2`
 * nor `not cfg["fp16"]`, whose values the file does not write): the fact is then the file's (Fact.fromData).
 */
export function dataItemOf(d: ScriptDefault, from: Val | undefined): { fromData?: DataItem } {
  const data = d.elsewhere?.data;
  if (!data || from?.k !== 'lit' || JSON.stringify(from.v) !== JSON.stringify(data.raw)) return {};
  return { fromData: { path: data.path, keys: data.keys } };
}

/** A JSON / YAML scalar, or a list of scalars, as a fact value. */
function literal(v: unknown): FactValue | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  return undefined;
}

/**
 * A mapping given attribute access, the same items (`EasyDict(cfg)`, `OmegaConf.create(cfg)`, `Box(cfg)`, a helper
 * named for it, `dict2namespace(config)`): its one argument.
 */
export function wrappedData(file: PythonFile, call: SyntaxNode): SyntaxNode | undefined {
  const callee = file.calleeName(call);
  const last = callee?.split('.').pop() ?? '';
  if (!callee || !(NAMESPACE_CLASSES.test(callee) || NAMESPACE_HELPERS.test(last))) return undefined;
  const a = file.args(call);
  return a.positional.length === 1 && a.entries.length === 0 && a.opaque.length === 0 ? a.positional[0] : undefined;
}

/** `EasyDict(config)` of loaded data: the same data. */
export function namespaceData(file: PythonFile, call: SyntaxNode, depth: number): Val | undefined {
  const inner = wrappedData(file, call);
  const v = inner ? file.evalNode(inner, depth + 1) : undefined;
  return v?.k === 'data' ? v : undefined;
}

/** `cfg.a.b` where `cfg` holds loaded data (OmegaConf's attribute access, an EasyDict, a namespace of it). */
export function dataMember(file: PythonFile, dotted: string, node: SyntaxNode, depth: number): Val | undefined {
  let root: SyntaxNode | null = node;
  while (root && root.name === 'MemberExpression') root = root.firstChild;
  if (root?.name !== 'VariableName' || !holdsLoadedData(file, root)) return undefined;
  let v = file.evalNode(root, depth + 1);
  for (const key of dotted.split('.').slice(1)) {
    if (v.k !== 'data') return undefined;
    v = dataAt(v, key, node);
  }
  return v.k === 'data' || v.k === 'lit' || v.k === 'unknown' ? v : undefined;
}

/**
 * `d.get("key", default)` of loaded data: the file's value, else the default; also of a part `.get` took
 * (`cfg.get("lora", {}).get("enabled", False)`).
 */
export function dataGet(file: PythonFile, call: SyntaxNode, callee: string, depth: number): Val | undefined {
  const head = call.firstChild;
  const obj = head?.name === 'MemberExpression' ? head.firstChild : null;
  let root = obj;
  for (;;) {
    if (root?.name === 'MemberExpression') root = root.firstChild;
    else if (root?.name === 'CallExpression' && isGetCall(file, root)) root = root.firstChild?.firstChild ?? null;
    else break;
  }
  if (!obj || !callee.endsWith('.get') || root?.name !== 'VariableName' || !holdsLoadedData(file, root))
    return undefined;
  const d = file.evalNode(obj, depth + 1);
  if (d.k !== 'data') return undefined;
  const [keyNode, fallback] = file.args(call).positional;
  const key = keyNode?.name === 'String' ? pyString(file.text.slice(keyNode.from, keyNode.to)) : undefined;
  if (key === undefined) return undefined;
  const found = dataAt(d, key, call);
  if (found.k !== 'unknown' || !/has no key/.test(found.reason)) return found;
  return fallback ? file.evalNode(fallback, depth + 1) : { k: 'lit', v: null };
}

/** `x.get(...)`: a call of a member named get. */
function isGetCall(file: PythonFile, call: SyntaxNode): boolean {
  const prop = call.firstChild?.name === 'MemberExpression' ? call.firstChild.lastChild : null;
  return prop?.name === 'PropertyName' && file.text.slice(prop.from, prop.to) === 'get';
}

const LOADER_CALL = /\b(json\.loads?|yaml\.\w*load|OmegaConf\.load)\s*\(/;

/**
 * Whether the file loads a file anywhere: a loader's call in its text, a loader it imports from its project, or (a
 * helper module) a loaded mapping its importer passes it. Most files load nothing: one test spares a lookup per
 * attribute and item the file reads.
 */
function loadsData(file: PythonFile): boolean {
  file.loadsData ??=
    LOADER_CALL.test(file.text) || hasHydraMain(file.text) || importsLoaders(file) || givenLoaded(file);
  return file.loadsData;
}

/**
 * Whether a name may hold loaded data, so that its value is looked into: bound to a loader's call (`config =
 * json.loads(...)`), to a part of a name that does (`quantization = config.get("quantization", {})`, `train_cfg =
 * config["training"]`), or a function's parameter (`def run_training(config)`, called with loaded data: the evaluation
 * of the call's argument says).
 */
function holdsLoadedData(file: PythonFile, name: SyntaxNode, hops = 0): boolean {
  if (!loadsData(file) || hops > MAX_HOPS) return false;
  const found = file.lookup(file.text.slice(name.from, name.to), name);
  if (found.k === 'none') return found.param !== undefined;
  if (found.binding.kind !== 'assign' || !found.binding.valueNode) return false;
  return valueHoldsData(file, found.binding.valueNode, hops);
}

/** Whether a name's value may be loaded data: a loader's call, a part of a name that holds it, or either passed through. */
function valueHoldsData(file: PythonFile, value: SyntaxNode, hops: number): boolean {
  if (
    LOADER_CALL.test(file.text.slice(value.from, value.to)) ||
    loaderReturn(file, value) !== undefined ||
    importedLoaderOf(file, value) !== undefined
  )
    return true;
  const through = value.name === 'CallExpression' ? passedThrough(file, value) : undefined;
  if (through) return hops < MAX_HOPS && valueHoldsData(file, through, hops + 1);
  const root = partOf(file, value);
  return root !== undefined && holdsLoadedData(file, root, hops + 1);
}

/** Whether the script that imports this module passes one of its functions a mapping it loaded (CallArgument). */
function givenLoaded(file: PythonFile): boolean {
  return Object.values(file.moduleCallArgs ?? {}).some((c) =>
    [...c.positional, ...Object.values(c.keywords)].some((a) => a !== null && 'loaded' in a),
  );
}

/** Names bound to parts of parts followed from a name to its loader's call. */
const MAX_HOPS = 4;

/** The name an item, attribute or `.get(...)` of it is taken from (`config` of `config.get("q", {})["x"]`). */
function partOf(file: PythonFile, value: SyntaxNode): SyntaxNode | undefined {
  let n: SyntaxNode | null = value;
  for (;;) {
    const wrapped: SyntaxNode | undefined = n?.name === 'CallExpression' ? wrappedData(file, n) : undefined;
    if (wrapped) n = wrapped;
    else if (n?.name === 'MemberExpression') n = n.firstChild;
    else if (n?.name === 'CallExpression' && n.firstChild?.name === 'MemberExpression') {
      const prop = n.firstChild.lastChild;
      if (prop?.name !== 'PropertyName' || file.text.slice(prop.from, prop.to) !== 'get') return undefined;
      n = n.firstChild.firstChild;
    } else break;
  }
  return n?.name === 'VariableName' && n !== value ? n : undefined;
}

/**
 * `load_config(path)` of a function of the file that returns what a loader read (`def load_config(p): with open(p) as
 * f: return yaml.safe_load(f)`, or a name bound to it): its data, the parameter taking the call's argument.
 */
export function loaderFunctionData(file: PythonFile, call: SyntaxNode, depth: number): Val | undefined {
  const imported = importedLoaderData(file, call, depth);
  if (imported) return imported;
  if (!loadsData(file)) return undefined;
  // The file of this call's argument where the function loads its parameter's path (one loader called with a file
  // per config: `model_cfg = load_config("configs/model.yaml")`, `lora_cfg = load_config("configs/lora.yaml")`).
  const own = ownLoaderData(file, call, depth);
  if (own) return own;
  const returned = loaderReturn(file, call);
  const v = returned ? file.evalNode(spreadItems(file.text, returned) ?? returned, depth + 1) : undefined;
  return v?.k === 'data' ? v : undefined;
}

/**
 * A call of a function of the file that hands back the mapping it is given (`apply_overrides(load_config(args.config),
 * args.set)`, whose one return is `return cfg` of its parameter, changed in place at most, or a copy of it,
 * `cfg = dict(cfg)`: the rule of an imported module's function, module-loaders.ts passThroughParameter): the argument's
 * loaded data, as the function leaves it without overrides (a launch line's `--set` items are not applied).
 */
export function passedThroughData(file: PythonFile, call: SyntaxNode, depth: number): Val | undefined {
  const arg = passedThrough(file, call);
  const v = arg ? file.evalNode(arg, depth + 1) : undefined;
  return v?.k === 'data' ? v : undefined;
}

/** The argument a call of a function of the file hands back (its one return is that parameter, or a copy of it). */
function passedThrough(file: PythonFile, call: SyntaxNode): SyntaxNode | undefined {
  const def = calledFunctionBody(file, call)?.parent;
  const fn = def ? passThroughParameter(file.text, def) : undefined;
  if (!fn) return undefined;
  const a = file.args(call);
  return a.entries.find((e) => e.rawKey === fn.parameter)?.valueNode ?? a.positional[fn.index];
}

/** A call of a function of the file that returns the contents of the file its parameter names: that file's data. */
function ownLoaderData(file: PythonFile, call: SyntaxNode, depth: number): Val | undefined {
  const def = calledFunctionBody(file, call)?.parent;
  const fn = def ? (loaderParameter(file.text, def) ?? itemLoader(file.text, def)) : undefined;
  if (!fn) return undefined;
  // The call's argument, else the parameter's default (`def load_config(path="configs/sft.yaml")`, `load_config()`).
  const dflt = parameters(file.text, def?.getChild('ParamList') ?? null)[fn.index]?.def ?? undefined;
  return loaderCallData(file, call, fn, depth, dflt);
}

/** The expression a call's function returns, where the function is the file's own, returns once and loads a file. */
function loaderReturn(file: PythonFile, call: SyntaxNode): SyntaxNode | undefined {
  const body = calledFunctionBody(file, call);
  if (!body || !LOADER_CALL.test(file.text.slice(body.from, body.to))) return undefined;
  const value = soleReturn(body)?.lastChild;
  return value && value.name !== 'return' ? value : undefined;
}

/**
 * `load_config("configs/sft.yaml")` of a loader function a project module defines (`from utils import load_config`):
 * the file its path argument names, as the script's own loader call reads it.
 */
function importedLoaderData(file: PythonFile, call: SyntaxNode, depth: number): Val | undefined {
  const fn = importedLoaderOf(file, call);
  return fn ? loaderCallData(file, call, fn, depth) : undefined;
}

/**
 * What a call of a loader function reads: the file its argument (by keyword or position, else `dflt`) names, or, for a
 * function that loads a fixed file (LoaderFunction.path), that file's item the argument names.
 */
function loaderCallData(
  file: PythonFile,
  call: SyntaxNode,
  fn: LoaderFunction,
  depth: number,
  dflt?: SyntaxNode,
): Val | undefined {
  const a = file.args(call);
  const arg = a.entries.find((e) => e.rawKey === fn.parameter)?.valueNode ?? a.positional[fn.index] ?? dflt;
  if (!arg) return undefined;
  if (fn.passThrough) {
    const v = file.evalNode(arg, depth + 1);
    return v.k === 'data' ? v : undefined;
  }
  return fn.path !== undefined ? loadedItem(file, fn.path, arg, call, depth) : dataAtPath(file, arg, depth);
}

/** The item of the file at `path` (as the working folder finds it) that the call's argument `key` names. */
function loadedItem(file: PythonFile, path: string, key: SyntaxNode, call: SyntaxNode, depth: number): Val | undefined {
  const d = dataFile(file, path, span(call));
  const k = file.evalNode(key, depth + 1);
  if (d?.k !== 'data' || k.k !== 'lit' || typeof k.v !== 'string') return undefined;
  return dataAt(d, k.v, call);
}

/** The imported loader function a call calls by its bare name, where the file binds that name nowhere. */
function importedLoaderOf(file: PythonFile, call: SyntaxNode): ReturnType<typeof importedLoaderFunction> {
  const callee = call.name === 'CallExpression' ? call.firstChild : null;
  if (callee?.name !== 'VariableName' || !file.readModule) return undefined;
  const name = file.text.slice(callee.from, callee.to);
  const fn = importedLoaderFunction(file, name);
  return fn && file.lookup(name, call).k !== 'binding' ? fn : undefined;
}

/**
 * `GRPO_CFG` of `from config import GRPO_CFG` where config.py binds it to a file it loads (`with open("grpo.yml") as
 * f: GRPO_CFG = yaml.safe_load(f)`): that file's contents, the path read from where the run starts, as the module's
 * `open` reads it.
 */
export function importedData(file: PythonFile, name: string, use: SyntaxNode): Val | undefined {
  const loaded = file.readModule ? importedLoaded(file, name) : undefined;
  return loaded ? dataFile(file, loaded.path, span(use)) : undefined;
}

/** A JSON object / YAML mapping (not a list, not a scalar). */
export function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
