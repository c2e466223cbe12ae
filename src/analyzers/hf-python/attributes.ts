// `obj.attr = value` read back where `obj.attr` is used: llama-cookbook's notebook sets
// `train_config.model_name = "meta-llama/Meta-Llama-3.1-8B"` on a config object, then loads
// `from_pretrained(train_config.model_name)`; scripts override a parsed option (`args.max_length = 512`). Only an
// assignment that surely runs before the use is taken: a statement of the use's own block or of a block around it in
// the same function, with no statement between them that may set the attribute again. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Scope, Val } from './file';
import type { CallArgument, CallArguments } from '../facts';
import type { Via } from './static-values';
import { instanceAttribute } from './class-constants';
import { overlaidValue, overlaysOf } from './attribute-overlays';
import { dataAt } from './data-files';
import { dottedValue } from './member-and-call';
import { clip, MAX_DEPTH, parameters } from './syntax';
import { calledFunctionBody, soleReturn } from './expressions';
import { offsetWithin } from '../line-index';
import { takenBody } from './branches';
import { parsedOption, parsesCommandLine } from './script-defaults';

/** The value the last `dotted = value` that surely runs before `use` sets, or undefined when there is none. */
export function assignedAttribute(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const attr = dotted.split('.').pop()!;
  const overlays = overlaysOf(file, dotted);
  if (!file.attrAssigned.has(attr) && overlays.length === 0) return undefined;
  const sites = setSites(file, dotted);
  // From the use's statement outwards, block by block, up to the function (or module) the use is in.
  for (let st = statementOf(use); st?.parent; st = statementOf(st.parent)) {
    const block = st.parent;
    for (let s = st.prevSibling; s; s = s.prevSibling) {
      // `for k, v in cfg.items(): setattr(args, k, v)`: the mapping's item, if it has one (attribute-overlays.ts).
      const laid = overlays.length > 0 ? overlaidValue(file, overlays, s, attr, use, depth) : undefined;
      if (laid === 'absent') continue;
      if (laid) return laid;
      const value = assignmentTo(file, s, dotted);
      if (value) {
        const v = file.evalNode(value, depth + 1);
        if (v.k !== 'lit') return undefined;
        const text = `${dotted} = ${clip(file.text.slice(value.from, value.to), 40)} at line ${file.line(s.from)}`;
        return { ...v, via: { text, span: { start: value.from, end: value.to } } };
      }
      if (!offsetWithin(sites, s.from, s.to)) continue;
      // An `if` whose test is known (`if args.qlora: args.lora = True`): what the clause it runs sets, if it does.
      const onBranch = s.name === 'IfStatement' ? setOnBranch(file, s, dotted, sites) : undefined;
      if (onBranch === 'unset') continue;
      if (onBranch) {
        const v = file.evalNode(onBranch.value, depth + 1);
        if (v.k !== 'lit') return undefined;
        const text =
          `${dotted} = ${clip(file.text.slice(onBranch.value.from, onBranch.value.to), 40)} at line ` +
          `${file.line(onBranch.at.from)}, on the branch of the if at line ${file.line(s.from)} the run takes`;
        return { ...v, via: { text, span: { start: onBranch.value.from, end: onBranch.value.to } } };
      }
      // A statement that may set it (under an `if` not known, in a loop, by `+=`): what the use reads is not known here.
      return undefined;
    }
    if (block.name === 'Script' || block.parent?.name === 'FunctionDefinition') return undefined;
  }
  return undefined;
}

/**
 * `self.x` in a method of a class whose `__init__` sets it once at its top level (`self.llm = parser.llm`) and no other
 * statement of the class sets: that value, read in `__init__` (its parameters take what the class's one call passes:
 * `Trainer(args)`, script-defaults.ts singleCallArgument). yushengsu-thu/mup_training's Trainer loads `self.llm`. A
 * mapping loaded from a file is that mapping (`self.model_config = config.get("model", {})`), for the items the
 * methods read.
 */
export function initAttribute(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const value = /^self\.\w+$/.test(dotted) ? initValue(file, dotted, use) : undefined;
  if (!value) return undefined;
  const v = file.evalNode(value.node, depth + 1);
  // A dict the class's one call passes (`T(config)` with `config = {...}` in main): `self.config["model_name"]` its item.
  if (v.k !== 'lit' && v.k !== 'data' && v.k !== 'dict') return undefined;
  return v.k === 'lit' ? { ...v, via: value.via } : v;
}

/**
 * `self.x.y` (and deeper) in a method of such a class: `.y` of what `__init__` sets `self.x` to, an item of a loaded
 * mapping, an attribute of an instance of a class the file defines (strykesg/ea's `DeepSeekFinetuner(config)` with
 * `config = FinetuneConfig()`, then `self.config.model_name` in `load_model_and_tokenizer`), or an option of the parsed
 * command line (tdolega/rag-tge's `self.args = parser.parse_args()`, then `self.args.input_model_name`).
 */
export function initAttributeMember(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const m = /^self\.(\w+)\.([\w.]+)$/.exec(dotted);
  const value = m ? initValue(file, `self.${m[1]}`, use) : undefined;
  if (!m || !value) return undefined;
  const keys = m[2].split('.');
  // `self.args = parser.parse_args()`, then `self.args.model_name` in a method: the option's value, as `args.x` reads.
  if (keys.length === 1 && parsesCommandLine(file, value.node)) return parsedOption(file, keys[0], use, depth);
  let v: Val | undefined = file.evalNode(passedArgument(file, value.node, 0) ?? value.node, depth + 1);
  for (const key of keys) {
    if (v?.k === 'data') v = dataAt(v, key, use);
    else if (v?.k === 'call') v = instanceAttribute(file, v.node, key, depth);
    else return undefined;
  }
  return v?.k === 'lit' || v?.k === 'data' || v?.k === 'unknown' ? v : undefined;
}

/** `self.x` where `__init__` sets it from the parsed command line (`self.args = parser.parse_args()`). */
export function selfHoldsParsedArgs(file: PythonFile, dotted: string, use: SyntaxNode): boolean {
  const value = /^self\.\w+$/.test(dotted) ? initValue(file, dotted, use) : undefined;
  return value !== undefined && parsesCommandLine(file, value.node);
}

/**
 * The argument node a parameter's function is called with, where `node` names a parameter (up to three calls deep):
 * what an instance made by the caller is (a parameter holds no instance in the static evaluation).
 */
function passedArgument(file: PythonFile, node: SyntaxNode, hops: number): SyntaxNode | undefined {
  if (node.name !== 'VariableName' || hops >= 3) return undefined;
  const found = file.lookup(file.text.slice(node.from, node.to), node);
  const arg = found.k === 'none' && found.param ? argumentNode(file, found.param) : undefined;
  return arg ? (passedArgument(file, arg, hops + 1) ?? arg) : undefined;
}

/** The value node of `self.x = ...` in `__init__` of the class around `use`, when that is the class's only `self.x =`. */
function initValue(file: PythonFile, dotted: string, use: SyntaxNode): { node: SyntaxNode; via: Via } | undefined {
  const cls = enclosing(use, 'ClassDefinition');
  const body = cls?.getChild('Body');
  if (!body) return undefined;
  const setsIt = new RegExp(`(^|[^\\w.])${dotted.replace('.', '\\.')}\\s*(=(?!=)|[-+*/%]=)`, 'gm');
  if ((file.text.slice(body.from, body.to).match(setsIt) ?? []).length !== 1) return undefined;
  for (let s = classMethod(file, body, '__init__')?.firstChild ?? null; s; s = s.nextSibling) {
    const value = assignmentTo(file, s, dotted);
    if (!value) continue;
    const text = `${dotted} = ${clip(file.text.slice(value.from, value.to), 40)} at line ${file.line(s.from)}`;
    return {
      node: methodReturn(file, body, value) ?? value,
      via: { text, span: { start: value.from, end: value.to } },
    };
  }
  return undefined;
}

/** The body of the method a class body defines under `name`. */
function classMethod(file: PythonFile, classBody: SyntaxNode, name: string): SyntaxNode | undefined {
  for (let st = classBody.firstChild; st; st = st.nextSibling) {
    const n = st.name === 'FunctionDefinition' ? st.getChild('VariableName') : null;
    if (n && file.text.slice(n.from, n.to) === name) return st.getChild('Body') ?? undefined;
  }
  return undefined;
}

/**
 * What `self.method()` with no arguments returns, where the class's method of that name has one return
 * (`self.config = self._load_config()`, whose `_load_config` returns `json.load(f)` of `open(self.config_path)`):
 * that expression, read in the method. Undefined for any other value.
 */
function methodReturn(file: PythonFile, classBody: SyntaxNode, value: SyntaxNode): SyntaxNode | undefined {
  const m = value.name === 'CallExpression' ? /^self\.(\w+)\(\s*\)$/.exec(file.text.slice(value.from, value.to)) : null;
  const body = m ? classMethod(file, classBody, m[1]) : undefined;
  return (body && soleReturn(body)?.lastChild) ?? undefined;
}

/**
 * `cfg.x` where `cfg` is bound to a call of a function of the file that returns one constructor call (`cfg =
 * parse_args()` with `def parse_args(): ... return TrainConfig(per_device_train_batch_size=args.batch_size, ...)`):
 * that call's keyword x, read in the function (i-am-mushfiq/FirstAidQA-gemma2b-QLoRA's train.py). Undefined when the
 * call passes no such keyword.
 */
export function returnedKeyword(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const m = /^(\w+)\.(\w+)$/.exec(dotted);
  if (!m) return undefined;
  const value = boundValue(file, m[1], use, 0);
  if (value?.name !== 'CallExpression' || file.args(value).positional.length > 0) return undefined;
  const body = calledFunctionBody(file, value);
  const returned = body && soleReturn(body)?.lastChild;
  if (returned?.name !== 'CallExpression') return undefined;
  const kw = file.args(returned).entries.find((e) => e.rawKey === m[2]);
  if (!kw?.valueNode) return undefined;
  const v = file.evalNode(kw.valueNode, depth + 1);
  return v.k === 'lit' ? v : undefined;
}

/**
 * `cfg.x` where `cfg` is bound to a call of a function of the file whose one return is a name (`cfg = load_config()`
 * with `def load_config(): cfg = TrainConfig(); for k, v in raw.items(): setattr(cfg, k, v); return cfg`): `cfg.x`
 * as the function holds it at its return, the loaded mapping laid over the instance included (attribute-overlays.ts).
 */
export function returnedNameAttribute(
  file: PythonFile,
  dotted: string,
  use: SyntaxNode,
  depth: number,
): Val | undefined {
  const m = /^(\w+)\.(\w+)$/.exec(dotted);
  const value = m ? boundValue(file, m[1], use, 0) : undefined;
  if (!m || value?.name !== 'CallExpression' || depth > MAX_DEPTH / 2) return undefined;
  const body = calledFunctionBody(file, value);
  const returned = body && soleReturn(body)?.lastChild;
  if (returned?.name !== 'VariableName') return undefined;
  const v = dottedValue(file, `${file.text.slice(returned.from, returned.to)}.${m[2]}`, returned, depth + 1);
  return v?.k === 'lit' || v?.k === 'data' ? v : undefined;
}

/**
 * The expression a name is assigned where `use` reads it, following a parameter to what its function's one call passes
 * (a name there, up to three calls deep).
 */
function boundValue(file: PythonFile, name: string, use: SyntaxNode, hops: number): SyntaxNode | undefined {
  const found = file.lookup(name, use);
  if (found.k === 'binding')
    return found.binding.kind === 'assign' ? (found.binding.valueNode ?? undefined) : undefined;
  const arg = found.param && hops < 3 ? argumentNode(file, found.param) : undefined;
  return arg?.name === 'VariableName' ? boundValue(file, file.text.slice(arg.from, arg.to), arg, hops + 1) : undefined;
}

/**
 * The argument node the one call of a parameter's function passes for it (by keyword or position; a class's
 * `__init__` is called by the class's name, its `self` not passed); undefined when the function is not called once.
 */
export function argumentNode(file: PythonFile, param: { scope: Scope; name: string }): SyntaxNode | undefined {
  const { scope, name } = param;
  const callee = calledAs(file, scope);
  const sites = file.callsNamed(callee);
  if (sites.length !== 1) return undefined;
  const a = file.args(sites[0]);
  const i = positionalParameters(file, scope).indexOf(name);
  return a.entries.find((e) => e.rawKey === name)?.valueNode ?? (i >= 0 ? a.positional[i] : undefined);
}

/** The name a function is called by: a class's `__init__` by the class's, any other by its own. */
export function calledAs(file: PythonFile, scope: Scope): string | undefined {
  return scope.fn === '__init__' ? classNameOf(file, scope.node) : scope.fn;
}

/**
 * The parameters a call fills by position: those declared, not starred, less a method's own `self` or `cls` (a
 * class's `__init__` is called by the class's name, a static or class method through the class).
 */
export function positionalParameters(file: PythonFile, scope: Scope): string[] {
  const declared = parameters(file.text, scope.node.getChild('ParamList'))
    .filter((p) => !p.starred)
    .map((p) => p.name);
  const method = classNameOf(file, scope.node) !== undefined && (declared[0] === 'self' || declared[0] === 'cls');
  return method ? declared.slice(1) : declared;
}

/**
 * What the importing script's call passes a parameter of this module's function (ModuleContext.callArgs): by keyword,
 * else by position; undefined where it passes nothing for it, null where its value is not known statically.
 */
export function scriptCallArgumentOf(
  file: PythonFile,
  scope: Scope,
  name: string,
  called: CallArguments,
): CallArgument | null | undefined {
  if (Object.prototype.hasOwnProperty.call(called.keywords, name)) return called.keywords[name];
  const i = positionalParameters(file, scope).indexOf(name);
  return i >= 0 ? called.positional[i] : undefined;
}

/**
 * The argument node the function's one call in this file gives a parameter, by keyword or position (a class's
 * `__init__` by the class's call); undefined where it is called more or less than once, or passes nothing for it.
 */
export function soleCallArgumentNode(file: PythonFile, scope: Scope, name: string): SyntaxNode | undefined {
  const callee = calledAs(file, scope);
  const sites = file.callsNamed(callee);
  if (sites.length !== 1) return undefined;
  const a = file.args(sites[0]);
  const i = positionalParameters(file, scope).indexOf(name);
  return a.entries.find((e) => e.rawKey === name)?.valueNode ?? (i >= 0 ? a.positional[i] : undefined) ?? undefined;
}

/** The name of the class a method is defined in (decorated or not), or undefined. */
export function classNameOf(file: PythonFile, fn: SyntaxNode): string | undefined {
  // A decorated method (`@classmethod`) sits in its decorated statement.
  const stmt = fn.parent?.name === 'DecoratedStatement' ? fn.parent : fn;
  const cls = stmt.parent?.name === 'Body' ? stmt.parent.parent : null;
  const name = cls?.name === 'ClassDefinition' ? cls.getChild('VariableName') : null;
  return name ? file.text.slice(name.from, name.to) : undefined;
}

/** The nearest node of a kind around `node`. */
function enclosing(node: SyntaxNode, kind: string): SyntaxNode | undefined {
  for (let n = node.parent; n; n = n.parent) if (n.name === kind) return n;
  return undefined;
}

/** The statement of a block (a Body or the module) that holds `node`. */
export function statementOf(node: SyntaxNode): SyntaxNode | undefined {
  let n: SyntaxNode | null = node;
  while (n?.parent && n.parent.name !== 'Body' && n.parent.name !== 'Script') n = n.parent;
  return n?.parent ? n : undefined;
}

/**
 * What the clause an `if` runs (its tests known statically) sets `dotted` to: the last assignment at the clause's top
 * level, 'unset' where the clause (or no clause) sets it, undefined where it may set it otherwise or the clause is
 * not known.
 */
function setOnBranch(
  file: PythonFile,
  stmt: SyntaxNode,
  dotted: string,
  sites: readonly number[],
): { readonly value: SyntaxNode; readonly at: SyntaxNode } | 'unset' | undefined {
  const body = takenBody(file, stmt);
  if (body === undefined) return undefined;
  if (body === null) return 'unset';
  for (let st = body.lastChild; st; st = st.prevSibling) {
    const value = assignmentTo(file, st, dotted);
    if (value) return { value, at: st };
    if (offsetWithin(sites, st.from, st.to)) return undefined;
  }
  return 'unset';
}

/**
 * Where the file's text sets `dotted` (`dotted = ...`, `dotted += ...`), as the offsets of the name, in order: found
 * once per name and reading (PythonFile.attributeSetSites), where each statement before each use was searched.
 */
function setSites(file: PythonFile, dotted: string): readonly number[] {
  const known = file.attributeSetSites.get(dotted);
  if (known) return known;
  const setsIt = new RegExp(`(^|[^\\w.])${dotted.replace(/\./g, '\\.')}\\s*(=(?!=)|[-+*/%]=)`, 'gm');
  const sites = [...file.text.matchAll(setsIt)].map((m) => m.index + m[1].length);
  file.attributeSetSites.set(dotted, sites);
  return sites;
}

/** `dotted = value` as one statement with a single target: its value. */
function assignmentTo(file: PythonFile, st: SyntaxNode, dotted: string): SyntaxNode | undefined {
  if (st.name !== 'AssignStatement') return undefined;
  const target = st.firstChild;
  const op = target?.nextSibling;
  if (target?.name !== 'MemberExpression' || op?.name !== 'AssignOp') return undefined;
  if (file.dotted(target) !== dotted) return undefined;
  // One target: the value right after the first `=` (nodes are compared by place: each access makes a new object).
  const value = st.lastChild;
  return value && value.from > op.from && value.prevSibling?.from === op.from ? value : undefined;
}
