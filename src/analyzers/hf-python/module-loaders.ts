// The configuration files a project module loads, read from its syntax tree alone: a function that returns the file its
// parameter names (`def load_config(path): with open(path) as f: return yaml.safe_load(f)`, or `Config(**cfg)` of the
// loaded mapping), and a top-level name bound to a file the module opens by a literal path (`with open("grpo.yml") as
// f: GRPO_CFG = yaml.safe_load(f)`). The script that imports them reads the file (data-files.ts). Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import { soleReturn } from './expressions';
import { children, parameters, pyString } from './syntax';
import { withOpened } from './written-files';

/** The loaders whose argument is an open file (or its text); OmegaConf's takes the path itself. */
export const FILE_LOADERS = /^(json\.loads?|yaml\.(safe_|full_|unsafe_)?load)$/;
export const PATH_LOADERS = /^((omegaconf\.)?OmegaConf\.load)$/;

/**
 * A module's function that loads the file one of its parameters names: that parameter's place and name. With `path`,
 * the function loads that file and returns the item the parameter names (`def get_model_identifiers_from_yaml(
 * model_family): ... yaml.load(open("config/model_config.yaml")) ... return model_configs[model_family]`).
 */
export interface LoaderFunction {
  readonly index: number;
  readonly parameter: string;
  readonly path?: string;
  /** The function hands back the mapping its parameter is given, copied or changed in place at most. */
  readonly passThrough?: true;
}

/** A module's top-level name bound to a file it loads: the file's path as the module writes it. */
export interface LoadedName {
  readonly path: string;
}

/** The loader functions and loaded names among a module's top-level statements. */
export function moduleLoaders(
  text: string,
  top: SyntaxNode,
): { functions: Map<string, LoaderFunction>; loaded: Map<string, LoadedName> } {
  const functions = new Map<string, LoaderFunction>();
  const loaded = new Map<string, LoadedName>();
  for (const st of children(top)) {
    const def = st.name === 'DecoratedStatement' ? st.getChild('FunctionDefinition') : st;
    if (def?.name === 'FunctionDefinition') {
      const name = def.getChild('VariableName');
      const fn = name ? text.slice(name.from, name.to) : '';
      const found = loaderParameter(text, def) ?? itemLoader(text, def) ?? passThroughParameter(text, def);
      if (found) functions.set(fn, found);
    } else for (const [name, path] of loadedAtTop(text, st)) loaded.set(name, { path });
  }
  return { functions, loaded };
}

/** The parameter whose file a function returns the contents of, where it returns once. */
export function loaderParameter(text: string, def: SyntaxNode): LoaderFunction | undefined {
  const body = def.getChild('Body');
  const value = body ? soleReturn(body)?.lastChild : undefined;
  if (!body || !value || value.name === 'return') return undefined;
  const call = loaderCall(text, spreadItems(text, value) ?? convertedItems(text, value) ?? value, body);
  const path = call ? unwrapped(text, boundIn(text, loadedPath(text, call, body), body)) : undefined;
  if (path?.name !== 'VariableName') return undefined;
  const parameter = text.slice(path.from, path.to);
  const index = parameters(text, def.getChild('ParamList')).findIndex((p) => p.name === parameter);
  return index >= 0 ? { index, parameter } : undefined;
}

/**
 * A function that hands back the mapping a parameter gives it, copied at most (`updated = copy.deepcopy(dict(config))`,
 * its items then set from a command line's overrides, `return updated`; LoaderFunction.passThrough). What it changes
 * is not followed: the items are the mapping's.
 */
export function passThroughParameter(text: string, def: SyntaxNode): LoaderFunction | undefined {
  const body = def.getChild('Body');
  const value = body ? soleReturn(body)?.lastChild : undefined;
  if (!body || value?.name !== 'VariableName') return undefined;
  const source = copiedFrom(text, boundIn(text, value, body), 0);
  if (source?.name !== 'VariableName') return undefined;
  const parameter = text.slice(source.from, source.to);
  const index = parameters(text, def.getChild('ParamList')).findIndex((p) => p.name === parameter);
  return index >= 0 ? { index, parameter, passThrough: true } : undefined;
}

/** The name a copy is made of: `copy.deepcopy(x)`, `deepcopy(x)`, `dict(x)`, `copy.copy(x)`, `x.copy()`, or x itself. */
function copiedFrom(text: string, node: SyntaxNode | undefined, depth: number): SyntaxNode | undefined {
  if (!node || depth > 4 || node.name !== 'CallExpression') return node;
  const head = node.firstChild;
  const callee = head ? text.slice(head.from, head.to) : '';
  if (/^(copy\.deepcopy|deepcopy|copy\.copy|dict)$/.test(callee))
    return copiedFrom(text, firstPositional(node), depth + 1);
  const receiver =
    head?.name === 'MemberExpression' && /\.copy$/.test(callee) ? (head.firstChild ?? undefined) : undefined;
  return receiver ? copiedFrom(text, receiver, depth + 1) : undefined;
}

/** A function that loads a file by a literal path and returns its item named by a parameter (LoaderFunction.path). */
export function itemLoader(text: string, def: SyntaxNode): LoaderFunction | undefined {
  const body = def.getChild('Body');
  const value = body ? soleReturn(body)?.lastChild : undefined;
  if (!body || value?.name !== 'MemberExpression') return undefined;
  const [object, open, key, close] = children(value);
  if (!object || open?.name !== '[' || key?.name !== 'VariableName' || close?.name !== ']') return undefined;
  const call = loaderCall(text, object, body);
  const path = call ? unwrapped(text, boundIn(text, loadedPath(text, call, body), body)) : undefined;
  const literal = path?.name === 'String' ? pyString(text.slice(path.from, path.to)) : undefined;
  const parameter = text.slice(key.from, key.to);
  const index = parameters(text, def.getChild('ParamList')).findIndex((p) => p.name === parameter);
  return literal !== undefined && index >= 0 ? { index, parameter, path: literal } : undefined;
}

/** `NAME = loader(...)` at the top level or in a top-level `with` block, of a file named by a literal path. */
function loadedAtTop(text: string, st: SyntaxNode): [string, string][] {
  const assigns = st.name === 'WithStatement' ? children(st.getChild('Body') ?? st) : [st];
  const out: [string, string][] = [];
  for (const a of assigns) {
    if (a.name !== 'AssignStatement') continue;
    const [target, op, value] = children(a);
    if (target?.name !== 'VariableName' || op?.name !== 'AssignOp' || !value) continue;
    const call = loaderCall(text, value, undefined);
    const path = call ? loadedPath(text, call, undefined) : undefined;
    const literal = path?.name === 'String' ? pyString(text.slice(path.from, path.to)) : undefined;
    if (literal !== undefined) out.push([text.slice(target.from, target.to), literal]);
  }
  return out;
}

/** `d` of `Config(**d)` or `DotMap(d)`: an object built from a mapping's items alone, whose attributes are those items. */
export function spreadItems(text: string, node: SyntaxNode): SyntaxNode | undefined {
  if (node.name !== 'CallExpression') return undefined;
  const items = children(node.getChild('ArgList') ?? node).filter((c) => !['(', ')', ',', 'Comment'].includes(c.name));
  if (items.length === 2 && items[0].name === '**' && items[1].name === 'VariableName') return items[1];
  // `DotMap(config_data)`, `EasyDict(cfg)`: the mapping given attribute access.
  const callee = node.firstChild ? text.slice(node.firstChild.from, node.firstChild.to) : '';
  const wraps = NAMESPACE_CLASSES.test(callee) || NAMESPACE_HELPERS.test(callee.split('.').pop() ?? '');
  return wraps && items.length === 1 && items[0].name === 'VariableName' ? items[0] : undefined;
}

/**
 * `cfg` of `convert_none(cfg)`, `_expand_env(cfg)`: a function the module defines itself (a lowercase name, `def`
 * in its text, nested or not) given the loaded mapping alone, which hands back the same items converted (None for
 * `null`, environment variables expanded). What it changes of a value is not followed; the items are the file's.
 */
export function convertedItems(text: string, node: SyntaxNode): SyntaxNode | undefined {
  if (node.name !== 'CallExpression' || node.firstChild?.name !== 'VariableName') return undefined;
  const items = children(node.getChild('ArgList') ?? node).filter((c) => !['(', ')', ',', 'Comment'].includes(c.name));
  const callee = text.slice(node.firstChild.from, node.firstChild.to);
  if (!/^[a-z_]\w*$/.test(callee) || items.length !== 1 || items[0].name !== 'VariableName') return undefined;
  return new RegExp(`^[ \\t]*def[ \\t]+${callee}[ \\t]*\\(`, 'm').test(text) ? items[0] : undefined;
}

/** Classes that give a mapping's items as attributes. */
export const NAMESPACE_CLASSES =
  /^(?:(?:easydict\.)?EasyDict|edict|AttrDict|(?:box\.)?Box|(?:dotmap\.)?DotMap|(?:munch\.)?(?:Munch|munchify)|(?:omegaconf\.)?OmegaConf\.create)$/;
/** A helper of the script's own that does the same, named for it (`dict2namespace`, `dict_to_obj`, `to_namespace`). */
export const NAMESPACE_HELPERS =
  /^(?:dict_?(?:2|to)_?(?:namespace|ns|obj|object|attrdict|edict)|to_namespace|namespace_from_dict)$/i;

/** The loader call an expression is: the call itself, or the value a name is last bound to in `scope`. */
function loaderCall(text: string, node: SyntaxNode, scope: SyntaxNode | undefined): SyntaxNode | undefined {
  if (node.name === 'CallExpression') {
    const callee = node.firstChild ? text.slice(node.firstChild.from, node.firstChild.to) : '';
    return FILE_LOADERS.test(callee) || PATH_LOADERS.test(callee) ? node : undefined;
  }
  const bound = node.name === 'VariableName' ? boundIn(text, node, scope) : undefined;
  return bound && bound !== node ? loaderCall(text, bound, undefined) : undefined;
}

/** The value a name is last bound to before its use in `scope` (a function body), else the node itself. */
function boundIn(text: string, node: SyntaxNode | undefined, scope: SyntaxNode | undefined): SyntaxNode | undefined {
  if (node?.name !== 'VariableName' || !scope) return node;
  const name = text.slice(node.from, node.to);
  let bound: SyntaxNode | undefined;
  for (const a of assignments(scope)) {
    const [target, op, value] = children(a);
    if (a.from < node.from && target?.name === 'VariableName' && op?.name === 'AssignOp' && value)
      if (text.slice(target.from, target.to) === name) bound = value;
  }
  return bound ?? node;
}

/** The assignment statements of a function body, its nested blocks included (not nested functions). */
function assignments(node: SyntaxNode, out: SyntaxNode[] = [], depth = 0): SyntaxNode[] {
  if (depth > 50) return out;
  for (const ch of children(node)) {
    if (ch.name === 'AssignStatement') out.push(ch);
    else if (ch.name !== 'FunctionDefinition' && ch.name !== 'ClassDefinition') assignments(ch, out, depth + 1);
  }
  return out;
}

/**
 * The path expression a loader call reads: OmegaConf's argument, else the file its open-file argument opens (`open(P)`,
 * `P.open()` of a pathlib path, `f.read()` of either, `P.read_text()`, or the `with` block's `f`). `scope` is the function body a name
 * bound to the path is looked for in (none: the caller evaluates the name).
 */
export function loadedPath(text: string, call: SyntaxNode, scope: SyntaxNode | undefined): SyntaxNode | undefined {
  const callee = call.firstChild ? text.slice(call.firstChild.from, call.firstChild.to) : '';
  const arg = firstPositional(call);
  if (!arg || PATH_LOADERS.test(callee)) return arg;
  if (arg.name === 'CallExpression' && arg.firstChild) {
    const target = arg.firstChild.firstChild;
    const head = text.slice(arg.firstChild.from, arg.firstChild.to);
    if (/\.read$/.test(head) && target) return openPath(text, target, scope);
    // `yaml.safe_load(args.config.read_text(encoding="utf-8"))`: pathlib reads the file at the receiver.
    if (/\.read_text$/.test(head) && arg.firstChild.name === 'MemberExpression' && target)
      return unwrapped(text, boundIn(text, target, scope));
  }
  return openPath(text, arg, scope);
}

/** The path of `open(P)` or `P.open()`, or of the `with` statement's call that binds `f`. */
function openPath(text: string, node: SyntaxNode, scope: SyntaxNode | undefined): SyntaxNode | undefined {
  const opened = node.name === 'VariableName' ? withOpened({ text }, node) : node;
  if (opened?.name !== 'CallExpression' || !opened.firstChild) return undefined;
  const head = text.slice(opened.firstChild.from, opened.firstChild.to);
  if (head === 'open') return firstPositional(opened);
  const receiver = opened.firstChild.name === 'MemberExpression' ? opened.firstChild.firstChild : null;
  return /\.open$/.test(head) && receiver ? unwrapped(text, boundIn(text, receiver, scope)) : undefined;
}

/** `p` of `Path(p)` or `str(p)`, else the node. */
function unwrapped(text: string, node: SyntaxNode | undefined): SyntaxNode | undefined {
  if (node?.name !== 'CallExpression' || !node.firstChild) return node;
  const head = text.slice(node.firstChild.from, node.firstChild.to);
  return /^(str|Path|pathlib\.Path|os\.path\.expanduser)$/.test(head) ? firstPositional(node) : node;
}

/** A call's first argument when it is positional. */
function firstPositional(call: SyntaxNode): SyntaxNode | undefined {
  const first = children(call.getChild('ArgList') ?? call).find((c) => !['(', ')', ',', 'Comment'].includes(c.name));
  return first && first.nextSibling?.name !== 'AssignOp' && first.name !== '*' && first.name !== '**'
    ? first
    : undefined;
}
