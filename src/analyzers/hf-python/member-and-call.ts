// Two kinds of node the static evaluation (PythonFile.evalNode) reads through the expressions it knows: an attribute
// or an item (`args.x`, a module's constant, `d["key"]`, a path's `.parent`), and a call (a string method, getattr,
// a path of a value, an environment variable's default). Pure; it never runs code.
import { environmentHelper, switchEnvironmentHelper } from './environment-helpers';
import type { SyntaxNode } from '@lezer/common';
import type { FactValue } from '../facts';
import type { PythonFile, Val } from './file';
import { namePredicate } from './name-predicate';
import {
  dictGet,
  dictItem,
  dtypeProperty,
  environmentDefault,
  launchEnvironment,
  pathMember,
  pathOfCall,
  staticGetattr,
  staticStringCall,
} from './expressions';
import { classConstant } from './class-constants';
import { dataGet, dataMember, loadedData, loaderFunctionData, namespaceData, passedThroughData } from './data-files';
import { importedMember } from './imported-constants';
import { memberValue, parsedCallMember } from './script-defaults';
import { clip, fmt, isTrailingDotFloat, parseNumber, pyTruthy } from './syntax';

/** `a.b.c` or `x[...]`: an imported constant, the script's option or attribute, a path's parent, a dict's item. */
export function evalMember(file: PythonFile, node: SyntaxNode, text: string, depth: number): Val {
  // `0.`, `1.e5`: a float lezer reads as the number's member (syntax.ts isTrailingDotFloat).
  if (isTrailingDotFloat(file.text, node)) return { k: 'lit', v: parseNumber(text) ?? 0 };
  const d = file.dotted(node);
  if (d)
    return (
      dottedValue(file, d, node, depth) ??
      namespaceAttribute(file, node, depth) ??
      pathMember(file, node, depth) ??
      dtypeProperty(file, node, depth) ?? { k: 'dotted', text: d }
    );
  return (
    environmentItem(file, node, depth) ??
    parsedCallMember(file, node, depth) ??
    dictItem(file, node, depth) ??
    pathMember(file, node, depth) ?? { k: 'unknown', reason: `${clip(text)} is looked up at run time` }
  );
}

/** `a.b` read at `use`: an imported constant, a loaded file's item, the script's option or attribute, a class's value. */
export function dottedValue(file: PythonFile, d: string, use: SyntaxNode, depth: number): Val | undefined {
  return (
    importedMember(file, d, use) ??
    dataMember(file, d, use, depth) ??
    memberValue(file, d, use, depth) ??
    classConstant(file, d, use, depth)
  );
}

/**
 * `os.environ["MODEL_ID"]`: the value the launch line's environment gives the variable (PythonFile.environment), said
 * at the read; else it comes from the environment, not known statically (no default: the script fails without it).
 */
function environmentItem(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const obj = node.firstChild;
  if (!obj || file.text.slice(obj.from, obj.to) !== 'os.environ' || node.lastChild?.name !== ']') return undefined;
  const keyNode = obj.nextSibling?.nextSibling;
  const key = keyNode ? file.evalNode(keyNode, depth + 1) : undefined;
  if (key?.k !== 'lit' || typeof key.v !== 'string') return undefined;
  return launchEnvironment(file, key.v, node) ?? { k: 'unknown', reason: `${key.v} comes from the environment` };
}

/**
 * `script_args.model_name` of `script_args = Namespace(model_name="...", ...)` (a notebook's stand-in for parsed
 * arguments), also through a function's parameter it is passed to: the keyword's value.
 */
function namespaceAttribute(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const obj = node.firstChild;
  const prop = node.lastChild;
  file.makesNamespaces ??= /\bNamespace\s*\(/.test(file.text);
  if (!obj || prop?.name !== 'PropertyName' || !file.makesNamespaces) return undefined;
  const v = file.evalNode(obj, depth + 1);
  if (v.k !== 'dict') return undefined;
  const name = file.text.slice(prop.from, prop.to);
  const entry = [...v.entries].reverse().find((e) => e.rawKey === name);
  return entry ? file.valueOf(entry) : undefined;
}

/** A call whose value is known statically, else the call itself (`{ k: 'call' }`); `dict(...)` is the caller's. */
export function evalCall(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val {
  const known =
    downloadedRepo(file, node, callee, depth) ??
    loadedData(file, node, callee, depth) ??
    loaderFunctionData(file, node, depth) ??
    passedThroughData(file, node, depth) ??
    dataGet(file, node, callee, depth) ??
    dictGet(file, node, callee, depth) ??
    namespaceData(file, node, depth) ??
    staticStringCall(file, node, depth) ??
    staticGetattr(file, node, callee, depth) ??
    conversion(file, node, callee, depth) ??
    extremum(file, node, callee, depth) ??
    lengthOf(file, node, callee, depth) ??
    pathOfCall(file, node, callee, depth) ??
    environmentDefault(file, node, callee, depth) ??
    environmentHelper(file, node, depth) ??
    switchEnvironmentHelper(file, node, depth) ??
    namePredicate(file, node, depth);
  return known ?? { k: 'call', callee, node };
}

/**
 * `int(x)`, `float(x)`, `bool(x)`, `str(x)`, `list(x)`, `tuple(x)` of one value known statically, converted as Python
 * converts it (`int(cfg["training"]["per_device_train_batch_size"])`); a conversion Python refuses (`int("3.5")`) or
 * whose text this does not write as Python does (`str(1e-4)`) stays unknown. A value that converts to itself keeps
 * where it came from (the script's default, a loaded file's key).
 */
function conversion(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val | undefined {
  if (!CONVERSIONS.has(callee)) return undefined;
  const v = soleArgument(file, node, depth);
  if (v?.k !== 'lit') return undefined;
  const out = converted(callee, v.v);
  if (out === undefined) return undefined;
  return JSON.stringify(out) === JSON.stringify(v.v) ? v : { k: 'lit', v: out };
}

const CONVERSIONS = new Set(['int', 'float', 'bool', 'str', 'list', 'tuple']);

/**
 * `max(1, args.batch_size)`, `min(a, b, ...)` of two or more numbers known statically (not of one iterable): the
 * largest or smallest. A result equal to one argument keeps where that one came from (the script's default).
 */
function extremum(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val | undefined {
  if (callee !== 'max' && callee !== 'min') return undefined;
  const a = file.args(node);
  if (a.positional.length < 2 || a.entries.length > 0 || a.opaque.length > 0) return undefined;
  let best: Val | undefined;
  let capped: string | undefined;
  for (const arg of a.positional) {
    const v = file.evalNode(arg, depth + 1);
    // run_clm's `min(data_args.block_size, tokenizer.model_max_length)`: the tokenizer's limit, not known statically,
    // caps the length; the known argument is taken as the length, which the limit can only lower.
    const limit =
      callee === 'min' && v.k !== 'lit' && /(^|\.)model_max_length$/.test(file.text.slice(arg.from, arg.to));
    if (limit) {
      capped = file.text.slice(arg.from, arg.to);
      continue;
    }
    if (v.k !== 'lit' || typeof v.v !== 'number') return undefined;
    const better =
      best?.k === 'lit' && typeof best.v === 'number' && (callee === 'max' ? v.v <= best.v : v.v >= best.v);
    if (!better) best = v;
  }
  if (!capped || best?.k !== 'lit') return best;
  const text = `${clip(file.text.slice(node.from, node.to))} taken as ${String(best.v)}: ${capped} is not known statically`;
  return { ...best, assumed: text };
}

/**
 * `len(x)` of a string or list known statically (small-ablation's `if training_args.fsdp is not None and
 * len(training_args.fsdp):` around gradient_checkpointing_enable, --fsdp "full_shard auto_wrap" given).
 */
function lengthOf(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val | undefined {
  if (callee !== 'len') return undefined;
  const v = soleArgument(file, node, depth);
  if (v?.k !== 'lit' || !(typeof v.v === 'string' || Array.isArray(v.v))) return undefined;
  return { k: 'lit', v: v.v.length };
}

/** The value of a call's one positional argument, where it is given alone (no keywords, no `*args`). */
function soleArgument(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const a = file.args(node);
  if (a.positional.length !== 1 || a.entries.length > 0 || a.opaque.length > 0) return undefined;
  return file.evalNode(a.positional[0], depth + 1);
}

function converted(callee: string, v: FactValue): FactValue | undefined {
  const numeric = typeof v === 'string' && /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(v);
  switch (callee) {
    case 'int':
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (typeof v === 'number') return Math.trunc(v);
      return typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v) ? Number(v) : undefined;
    case 'float':
      if (typeof v === 'boolean') return v ? 1 : 0;
      return typeof v === 'number' ? v : numeric ? Number(v) : undefined;
    case 'bool':
      return pyTruthy(v);
    case 'str':
      return typeof v === 'string' ? v : undefined;
    default:
      return Array.isArray(v) ? v : undefined;
  }
}

/** A signed number literal (`not x`: boolean-operators.ts). */
export function evalUnary(file: PythonFile, node: SyntaxNode, text: string): Val {
  const op = node.firstChild;
  const arg = op?.nextSibling;
  if (op && arg && op.name === 'ArithOp' && arg.name === 'Number') {
    const n = parseNumber(file.text.slice(arg.from, arg.to));
    const sign = file.text.slice(op.from, op.to);
    if (n !== undefined && (sign === '-' || sign === '+')) return { k: 'lit', v: sign === '-' ? -n : n };
  }
  return { k: 'unknown', reason: `${clip(text)} is computed at run time` };
}

/** Why a value is not a static literal, with the dataclass or argparse default of `x.field` when the file has one. */
export function describeVal(file: PythonFile, v: Val): string {
  switch (v.k) {
    case 'unknown':
      return v.reason;
    case 'dotted': {
      const field = v.text.split('.').pop()!;
      const d = file.fieldDefaults.get(field);
      const hint = d ? `; the ${d.where} is ${d.text} (line ${d.line})` : '';
      return `${v.text} is read at run time${hint}`;
    }
    case 'call':
      return `computed by ${clip(v.callee, 60)}(...) at run time`;
    case 'dict':
      return 'a dict';
    case 'data':
      return `the contents of ${v.source}${v.keys.length ? ` at ${v.keys.join('.')}` : ''}`;
    case 'lit':
      return `the literal ${fmt(v.v)}`;
  }
}

/**
 * `snapshot_download("Qwen/Qwen2.5-0.5B-Instruct")` (huggingface_hub's, ModelScope's): the local folder of that
 * repository, which a model loaded from it is; read as the repository's id, so the model is that checkpoint.
 */
function downloadedRepo(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val | undefined {
  if (!/(^|\.)snapshot_download$/.test(callee)) return undefined;
  const a = file.args(node);
  const id = a.entries.find((e) => e.rawKey === 'repo_id' || e.rawKey === 'model_id')?.valueNode ?? a.positional[0];
  const v = id ? file.evalNode(id, depth + 1) : undefined;
  return v?.k === 'lit' && typeof v.v === 'string' && /^[\w.-]+\/[\w.-]+$/.test(v.v) ? v : undefined;
}
