// Expressions the static evaluation reads beyond literals and names (PythonFile.evalNode): comparisons of values known
// statically (`and` / `or` / `not`: boolean-operators.ts), `s.split(",")` on a known string, `getattr(torch, "bfloat16")` and a torch dtype's
// `is_floating_point`, a path of a value (`Path(x)`, a hub download's folder), `os.getenv`'s default, an item of a
// function's returned tuple or of a dict. Each returns undefined where the expression is not one it reads. Pure; it
// never runs code.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import type { ScriptDefault } from './script-defaults';
import { clip, listItems, pyString, pyTruthy, readingNoneDefaults, span } from './syntax';
import { dataAt } from './data-files';
import { soleCallArgumentNode } from './attributes';
import { importedName } from './imported-constants';
import { readsLaunchOptions } from './script-defaults';
import { parsedArgsItem } from './parsed-args-items';
import { dtypeEquality } from './dtype-equality';

/** Python's arithmetic on two numbers known statically; undefined for another operator or a division by zero. */
export function arithmetic(op: string, x: number, y: number): number | undefined {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return y === 0 ? undefined : x / y;
    case '//':
      return y === 0 ? undefined : Math.floor(x / y);
    case '%':
      return y === 0 ? undefined : x - y * Math.floor(x / y);
    default:
      return undefined;
  }
}

/**
 * `a + b`, `a * b`, `a // b`, ... of two numbers known statically (MedicalGPT's `max_source_length +
 * max_target_length`, XTuner's `accumulative_counts * sequence_parallel_size`): a number; undefined for another
 * expression. The result carries the script default one side was read from.
 */
export function evalArithmetic(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const l = node.firstChild;
  const op = l?.nextSibling;
  const r = op?.nextSibling;
  if (!l || op?.name !== 'ArithOp' || !r || r.nextSibling) return undefined;
  return combine(file, file.evalNode(l, depth + 1), file.text.slice(op.from, op.to), file.evalNode(r, depth + 1), node);
}

/** Two values known statically under an arithmetic operator (also `x op= y`). */
export function combine(file: PythonFile, a: Val, op: string, b: Val, node: SyntaxNode): Val {
  const t = clip(file.text.slice(node.from, node.to));
  // `Path(...) / "models" / "x"`: a path joined (a str / str is no Python, so a string here is a path).
  if (op === '/' && a.k === 'lit' && b.k === 'lit' && typeof a.v === 'string' && typeof b.v === 'string')
    return { k: 'lit', v: joinPath(a.v, b.v) };
  // `config_dir + args.config`: strings joined; from an option's default, said to be (a launch line's option reads the
  // script again, data-files.ts).
  if (op === '+' && a.k === 'lit' && b.k === 'lit' && typeof a.v === 'string' && typeof b.v === 'string') {
    const dflt = a.dflt ?? b.dflt;
    return { k: 'lit', v: a.v + b.v, ...(dflt ? { dflt } : {}) };
  }
  if (a.k !== 'lit' || b.k !== 'lit' || typeof a.v !== 'number' || typeof b.v !== 'number')
    return { k: 'unknown', reason: `${t} is computed at run time` };
  // From an option's default the sum is no option's value (a launch line's --x replaces x, not the sum): it is read
  // again with the options as the run has them (launch-args.ts withBranchesDecided), where the file is settled. A
  // value written elsewhere and not replaced by the launch line (a loaded file's item, a module's constant) is final.
  const fromOptions = computedFromOptions(file, [a, b], t);
  if (fromOptions) return fromOptions;
  const v = arithmetic(op, a.v, b.v);
  if (v === undefined || !Number.isFinite(v)) return { k: 'unknown', reason: `${t} is not a number` };
  const dflt = a.dflt ?? b.dflt;
  return { k: 'lit', v, ...(dflt ? { dflt } : {}) };
}

/** What an expression over the script's option defaults reads as before the file is settled. */
const COMPUTED_FROM_OPTIONS = " is computed from the script's options";

/**
 * An expression `text` of `operands`, one of them an option's default, read before the file is settled: unknown, to be
 * worked out again with the options as the run has them (withBranchesDecided); undefined otherwise. A value written
 * elsewhere and not replaced by the launch line (a loaded file's item, a module's constant) is final.
 */
function computedFromOptions(file: PythonFile, operands: readonly Val[], text: string): Val | undefined {
  if (file.settled) return undefined;
  const optionDefault = (v: Val): boolean =>
    v.k === 'lit' && v.dflt !== undefined && v.dflt.elsewhere?.launched !== true;
  return operands.some(optionDefault) ? { k: 'unknown', reason: `${text}${COMPUTED_FROM_OPTIONS}` } : undefined;
}

/** `x *= y` (`+=`, `-=`, `//=`, ...): x as bound before the statement, under the operator with y. */
export function evalUpdate(file: PythonFile, st: SyntaxNode, depth: number): Val {
  const target = st.firstChild!;
  const op = target.nextSibling;
  const operand = op?.nextSibling;
  if (op?.name !== 'UpdateOp' || !operand) return { k: 'unknown', reason: 'an update of a name is not read' };
  const sign = file.text.slice(op.from, op.to).slice(0, -1);
  return combine(file, file.evalNode(target, depth + 1), sign, file.evalNode(operand, depth + 1), st);
}

/** `a == b`, `a < b`, ... of two values known statically (`args.bits == 4` with bits defaulting to 4): a boolean. */
export function evalComparison(file: PythonFile, node: SyntaxNode, depth: number): Val {
  const l = node.firstChild;
  const op = l?.nextSibling;
  const r = op?.nextSibling;
  const t = file.text.slice(node.from, node.to);
  const unknown: Val = { k: 'unknown', reason: `${clip(t)} is computed at run time` };
  if (l && (op?.name === 'in' || (op?.name === 'not' && op.nextSibling?.name === 'in')))
    return membership(file, node, depth) ?? unknown;
  if (l && op?.name === 'is') return identity(file, node, depth) ?? unknown;
  if (!l || op?.name !== 'CompareOp' || !r || r.nextSibling) return unknown;
  const a = file.evalNode(l, depth + 1);
  const b = file.evalNode(r, depth + 1);
  const sameDtype = dtypeEquality(file.text.slice(op.from, op.to), a, b);
  if (sameDtype !== undefined) return { k: 'lit', v: sameDtype };
  if (a.k !== 'lit' || b.k !== 'lit' || Array.isArray(a.v) || Array.isArray(b.v)) return unknown;
  const operator = file.text.slice(op.from, op.to);
  const v = compare(operator, a.v as Scalar, b.v as Scalar);
  if (v === undefined) return unknown;
  const dflt = comparedOption(operator, a, b) ?? a.dflt ?? b.dflt;
  return { k: 'lit', v, ...(dflt ? { dflt } : {}) };
}

/**
 * An option's default compared with a string (`args.cpu_offload == "on"`, LambdaLabsML/distributed-training-guide's
 * train_llm.py): the default, marked so that the launch line's word is compared the same way (launch-args.ts).
 */
function comparedOption(operator: string, a: Val, b: Val): ScriptDefault | undefined {
  if ((operator !== '==' && operator !== '!=') || a.k !== 'lit' || b.k !== 'lit') return undefined;
  const [option, other] = a.dflt && !b.dflt ? [a, b] : b.dflt && !a.dflt ? [b, a] : [undefined, undefined];
  if (!option?.dflt || typeof other?.v !== 'string') return undefined;
  return { ...option.dflt, equals: { value: other.v, negated: operator === '!=' } };
}

type Scalar = string | number | boolean | null;

/**
 * `"chat" in name.lower()` / `x not in [...]`: a substring of a string, or an item of a list of strings or numbers
 * (Chinese-Mixtral's `if training_args.load_in_kbits in [4, 8]:` around its BitsAndBytesConfig).
 */
function membership(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const l = node.firstChild!;
  const negated = l.nextSibling?.name === 'not';
  const r = negated ? l.nextSibling?.nextSibling?.nextSibling : l.nextSibling?.nextSibling;
  if (!r || r.nextSibling) return undefined;
  const a = file.evalNode(l, depth + 1);
  // A literal list of numbers is no FactValue (lists are of strings): its items are read here.
  const numbers = numberItems(file, r, depth);
  const b: Val = numbers ? { k: 'lit', v: null } : file.evalNode(r, depth + 1);
  if (a.k !== 'lit' || b.k !== 'lit') return undefined;
  const item = a.v;
  let found: boolean;
  if (numbers && typeof item === 'number') found = numbers.includes(item);
  else if (typeof b.v === 'string' && typeof item === 'string') found = b.v.includes(item);
  else if (Array.isArray(b.v) && typeof item === 'string') found = b.v.includes(item);
  else return undefined;
  const dflt = a.dflt ?? b.dflt;
  return { k: 'lit', v: negated ? !found : found, ...(dflt ? { dflt } : {}) };
}

/** The numbers of a literal list, tuple or set of numbers (`[4, 8]`); undefined for anything else. */
function numberItems(file: PythonFile, node: SyntaxNode, depth: number): number[] | undefined {
  if (!['ArrayExpression', 'TupleExpression', 'SetExpression'].includes(node.name)) return undefined;
  const out: number[] = [];
  for (const ch of listItems(node)) {
    if (ch.name !== 'Number') return undefined;
    const v = file.evalNode(ch, depth + 1);
    if (v.k !== 'lit' || typeof v.v !== 'number') return undefined;
    out.push(v.v);
  }
  return out.length > 0 ? out : undefined;
}

/**
 * `x is None` / `x is not None` (or True, False) with x known statically (`args.peft_path is not None` with the
 * option defaulting to None): Python's singletons are equal exactly when they are the same object.
 */
function identity(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const l = node.firstChild!;
  const negated = l.nextSibling?.nextSibling?.name === 'not';
  const r = negated ? l.nextSibling?.nextSibling?.nextSibling : l.nextSibling?.nextSibling;
  if (!r || r.nextSibling) return undefined;
  const a = file.evalNode(l, depth + 1);
  const b = file.evalNode(r, depth + 1);
  if (a.k !== 'lit' || b.k !== 'lit') return undefined;
  // None, True and False are single objects: anything else (a string, a number, a list) is not them.
  const singleton = (v: unknown): boolean => v === null || typeof v === 'boolean';
  if (!singleton(a.v) && !singleton(b.v)) return undefined;
  const same = a.v === b.v;
  const dflt = a.dflt ?? b.dflt;
  return { k: 'lit', v: negated ? !same : same, ...(dflt ? { dflt } : {}) };
}

function compare(o: string, x: Scalar, y: Scalar): boolean | undefined {
  if (o === '==') return x === y;
  if (o === '!=') return x !== y;
  if (typeof x !== 'number' || typeof y !== 'number') return undefined;
  if (o === '<') return x < y;
  if (o === '<=') return x <= y;
  if (o === '>') return x > y;
  if (o === '>=') return x >= y;
  return undefined;
}

/** `a if test else b` with a test known statically (a default of None or a literal): the branch it picks. */
export function evalConditional(file: PythonFile, node: SyntaxNode, depth: number): Val {
  const kw = node.getChild('if');
  const els = node.getChild('else');
  const test = kw?.nextSibling;
  const yes = node.firstChild;
  const no = els?.nextSibling;
  if (kw && els && test && yes && no && test.from < els.from) {
    // A test reads None defaults too (`x.split(",") if x else [...]` with x defaulting to None).
    const c = readingNoneDefaults(file, () => file.evalNode(test, depth + 1));
    if (c.k === 'lit') {
      // A test on an option's default (`ds_config_file if ds_config_file else None` with the default None): the
      // launch line's value may turn it, so the script is read again with the line's options.
      if (c.dflt) readsLaunchOptions(file);
      return file.evalNode(pyTruthy(c.v) ? yes : no, depth + 1);
    }
    const argv = argvDefault(file, test, yes, no, depth);
    if (argv) return argv;
  }
  return { k: 'unknown', reason: `${clip(file.text.slice(node.from, node.to))} is chosen at run time` };
}

/**
 * `sys.argv[1] if len(sys.argv) > 1 else "meta-llama/Llama-2-7b-chat-hf"`: a positional argument of the command line
 * with its default, read as an argparse default is (the script's default, which the launch line can override).
 */
function argvDefault(
  file: PythonFile,
  test: SyntaxNode,
  yes: SyntaxNode,
  no: SyntaxNode,
  depth: number,
): Val | undefined {
  const read = (n: SyntaxNode): string => file.text.slice(n.from, n.to).replace(/\s+/g, '');
  const index = /^sys\.argv\[(\d+)\]$/.exec(read(yes))?.[1];
  if (!index || Number(index) < 1 || !/^len\(sys\.argv\)(>|>=)\d+$/.test(read(test))) return undefined;
  const name = `sys.argv[${index}]`;
  file.argvPositions = Math.max(file.argvPositions, Number(index));
  const given = launchedPosition(file, name, yes);
  if (given) return given;
  const v = file.evalNode(no, depth + 1);
  if (v.k !== 'lit' || v.dflt) return undefined;
  // The launch line's word at that position replaces it: read again with the line's words.
  readsLaunchOptions(file);
  const at = span(no);
  const where = `the value when the command line gives no ${name}`;
  return { k: 'lit', v: v.v, dflt: { node: no, keySpan: at, valueSpan: at, where } };
}

/** `sys.argv[i]` as the launch line gives it by position (the script read again with the line's words), if it does. */
function launchedPosition(file: PythonFile, name: string, use: SyntaxNode): Val | undefined {
  const o = file.inherited?.get(name);
  if (!o?.launched) return undefined;
  if (o.unknown !== undefined) return { k: 'unknown', reason: `${name}: ${o.unknown}` };
  if (o.value === null) return undefined;
  const at = span(use);
  const elsewhere = { source: o.source, launched: true };
  return {
    k: 'lit',
    v: String(o.value),
    dflt: { node: null, lit: o.value, keySpan: at, valueSpan: at, where: o.source, elsewhere },
  };
}

/**
 * `getattr(torch, "bfloat16")` with a name known statically: the attribute it reads, `torch.bfloat16`. A model's
 * `supports_gradient_checkpointing` (`getattr(model, "supports_gradient_checkpointing", False)`, the test of
 * LLaMA-Efficient-Tuning's prepare_model_for_training and its copies) is True: transformers' decoder models set it.
 */
export function staticGetattr(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val | undefined {
  if (callee !== 'getattr') return undefined;
  const a = file.args(node);
  const named = a.positional[1] ? file.evalNode(a.positional[1], depth + 1) : undefined;
  if (named?.k === 'lit' && named.v === 'supports_gradient_checkpointing') return { k: 'lit', v: true };
  if (a.positional.length !== 2 || a.entries.length > 0 || a.opaque.length > 0) return undefined;
  const obj = file.dotted(a.positional[0]);
  const attr = file.evalNode(a.positional[1], depth + 1);
  if (!obj || attr.k !== 'lit' || typeof attr.v !== 'string' || !/^\w+$/.test(attr.v)) return undefined;
  return { k: 'dotted', text: `${obj}.${attr.v}` };
}

/** `x.is_floating_point` where x is a torch dtype known statically (`torch.bfloat16`): whether it is a float type. */
export function dtypeProperty(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const obj = node.firstChild;
  const prop = node.lastChild;
  if (!obj || prop?.name !== 'PropertyName' || file.text.slice(prop.from, prop.to) !== 'is_floating_point')
    return undefined;
  const v = file.evalNode(obj, depth + 1);
  const dtype = v.k === 'dotted' ? /^torch\.(\w+)$/.exec(v.text)?.[1] : undefined;
  if (dtype === undefined) return undefined;
  return { k: 'lit', v: /^(float|bfloat|half$|double$)/.test(dtype) };
}

/** `s.split(",")` (or `.split()`) on a string known statically: the list of its parts, as Python's str.split gives. */
export function staticSplit(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const callee = node.firstChild;
  if (callee?.name !== 'MemberExpression' || callee.lastChild?.name !== 'PropertyName') return undefined;
  if (file.text.slice(callee.lastChild.from, callee.lastChild.to) !== 'split' || !callee.firstChild) return undefined;
  const a = file.args(node);
  if (a.entries.length > 0 || a.opaque.length > 0 || a.positional.length > 1) return undefined;
  const sepVal = a.positional[0] ? file.evalNode(a.positional[0], depth + 1) : undefined;
  if (sepVal && !(sepVal.k === 'lit' && typeof sepVal.v === 'string' && sepVal.v.length > 0)) return undefined;
  const obj = file.evalNode(callee.firstChild, depth + 1);
  if (obj.k !== 'lit' || typeof obj.v !== 'string') return undefined;
  const parts =
    sepVal && sepVal.k === 'lit' ? obj.v.split(sepVal.v as string) : obj.v.split(/\s+/).filter((x) => x.length > 0);
  // An option's default split where it is used: the launch line's word is split the same way (launch-args.ts).
  const sep = sepVal?.k === 'lit' ? (sepVal.v as string) : undefined;
  const dflt = obj.dflt && sep !== undefined ? { ...obj.dflt, splitOnUse: sep } : obj.dflt;
  return { k: 'lit', v: parts, ...(obj.via ? { via: obj.via } : {}), ...(dflt ? { dflt } : {}) };
}

/**
 * A call that only names a path of the value it is given: `Path(x)`, `str(x)`, `os.path.expanduser(x)` and
 * `os.path.abspath(x)`, a path's `.expanduser()` / `.resolve()` / `.absolute()`, and a hub download,
 * `snapshot_download("org/name", cache_dir=...)` (huggingface_hub's and ModelScope's), whose folder holds the model it
 * names: the value itself (`model_path = Path(args.model_path).expanduser()` is the option `--model_path`).
 */
export function pathOfCall(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val | undefined {
  const a = file.args(node);
  if (a.opaque.length > 0) return undefined;
  const last = callee.split('.').pop() ?? '';
  if (last === 'snapshot_download') {
    const id = a.positional[0] ?? a.entries.find((e) => e.rawKey === 'repo_id' || e.rawKey === 'model_id')?.valueNode;
    return id ? file.evalNode(id, depth + 1) : undefined;
  }
  if (PATH_FUNCTIONS.has(callee) && a.positional.length === 1 && a.entries.length === 0)
    return pathValue(file.evalNode(a.positional[0], depth + 1));
  if ((callee === 'os.path.join' || callee === 'os.path.dirname') && a.positional.length > 0 && !a.entries.length) {
    const parts = a.positional.map((n) => file.evalNode(n, depth + 1));
    if (!parts.every((x) => x.k === 'lit' && typeof x.v === 'string')) return inCachedRepository(parts);
    const texts = parts.map((x) => (x as { v: string }).v);
    if (callee === 'os.path.dirname') return texts.length === 1 ? { k: 'lit', v: parentOf(texts[0]) } : undefined;
    return { k: 'lit', v: texts.reduce(joinPath) };
  }
  const head = node.firstChild;
  if (head?.name !== 'MemberExpression' || head.lastChild?.name !== 'PropertyName' || !head.firstChild)
    return undefined;
  const method = file.text.slice(head.lastChild.from, head.lastChild.to);
  if (!PATH_METHODS.has(method) || a.positional.length > 0 || a.entries.length > 0) return undefined;
  return pathValue(file.evalNode(head.firstChild, depth + 1));
}

/**
 * `os.path.join(snapshots_dir, os.listdir(snapshots_dir)[0])` where `snapshots_dir` is a repository's folder of the
 * Hugging Face cache (`.../models--mistralai--Mistral-7B-Instruct-v0.3/snapshots`): whatever the rest is at run time,
 * the path is inside that repository's snapshots, so the known folder stands for it (the model its name gives).
 */
function inCachedRepository(parts: readonly Val[]): Val | undefined {
  const first = parts[0];
  if (first?.k !== 'lit' || typeof first.v !== 'string') return undefined;
  return /(?:^|\/)models--[^/-][^/]*--[^/]+(?:\/snapshots)?\/?$/.test(first.v) ? first : undefined;
}

/**
 * `os.getenv("X", default)` / `os.environ.get("X", default)`: the default, as a shell's `${X:-default}` reads (the
 * variable is not set where the file is read); without a default, unknown: the environment gives it.
 */
export function environmentDefault(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val | undefined {
  if (callee !== 'os.getenv' && callee !== 'os.environ.get' && callee !== 'getenv') return undefined;
  const a = file.args(node);
  const name = a.positional[0] ? file.evalNode(a.positional[0], depth + 1) : undefined;
  if (name?.k !== 'lit' || typeof name.v !== 'string' || a.opaque.length > 0) return undefined;
  const given = launchEnvironment(file, name.v, node);
  if (given) return given;
  const dflt = a.positional[1] ?? a.entries.find((e) => e.rawKey === 'default')?.valueNode;
  if (dflt) return file.evalNode(dflt, depth + 1);
  return { k: 'unknown', reason: `${name.v} comes from the environment` };
}

/**
 * The value the launch line's environment gives a variable (PythonFile.environment), said at the read `node`;
 * undefined where it gives none.
 */
export function launchEnvironment(
  file: PythonFile,
  name: string,
  node: SyntaxNode,
): Extract<Val, { k: 'lit' }> | undefined {
  const given = file.environment?.get(name);
  if (given === undefined) return undefined;
  const via = { text: `${name}=${clip(given, 60)} in the launch line's environment`, span: span(node) };
  return { k: 'lit', v: given, via };
}

/** A value that can be a path: a string known statically, or an option read at run time. */
function pathValue(v: Val): Val | undefined {
  return (v.k === 'lit' && typeof v.v === 'string') || v.k === 'dotted' ? v : undefined;
}

const PATH_FUNCTIONS: ReadonlySet<string> = new Set([
  'Path',
  'pathlib.Path',
  'str',
  'os.path.expanduser',
  'os.path.abspath',
  'os.path.realpath',
  'os.path.normpath',
]);
const PATH_METHODS: ReadonlySet<string> = new Set(['expanduser', 'resolve', 'absolute']);

/** A string method of a string known statically: `split`, `lower`, `upper`, `strip`. */
export function staticStringCall(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  return staticSplit(file, node, depth) ?? staticStringMethod(file, node, depth);
}

/**
 * `s.lower()`, `s.upper()`, `s.strip()`, `s.replace(old, new)` and `"google/{}".format(s)` of strings known statically
 * (`"google/{}".format(args.model_key.replace("_", "-"))`). The case and blank changes keep where the string came from
 * (the script's default of an option, for `via` and `dflt`); a replacement or a formatting of an option's default is
 * no option's value (a launch line's --x replaces x, not the result), so it is read again with the options as the run
 * has them (launch-args.ts withBranchesDecided), as arithmetic is.
 */
function staticStringMethod(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const callee = node.firstChild;
  if (callee?.name !== 'MemberExpression' || callee.lastChild?.name !== 'PropertyName' || !callee.firstChild)
    return undefined;
  const method = file.text.slice(callee.lastChild.from, callee.lastChild.to);
  const apply = STRING_METHODS[method];
  if (!apply) return undefined;
  const a = file.args(node);
  if (a.entries.length > 0 || a.opaque.length > 0 || a.positional.length !== apply.length - 1) return undefined;
  const obj = file.evalNode(callee.firstChild, depth + 1);
  const args = a.positional.map((p) => file.evalNode(p, depth + 1));
  const text = clip(file.text.slice(node.from, node.to));
  if ([obj, ...args].some((v) => v.k === 'unknown' && v.reason.includes(COMPUTED_FROM_OPTIONS)))
    return { k: 'unknown', reason: `${text}${COMPUTED_FROM_OPTIONS}` };
  if (obj.k !== 'lit' || typeof obj.v !== 'string') return undefined;
  const strings: string[] = [];
  for (const v of args) {
    if (v.k !== 'lit' || (typeof v.v !== 'string' && typeof v.v !== 'number')) return undefined;
    strings.push(String(v.v));
  }
  const out = apply(obj.v, ...strings);
  if (out === undefined) return undefined;
  if (method === 'replace' || method === 'format')
    return computedFromOptions(file, [obj, ...args], text) ?? { k: 'lit', v: out };
  return { k: 'lit', v: out, ...(obj.via ? { via: obj.via } : {}), ...(obj.dflt ? { dflt: obj.dflt } : {}) };
}

/** Each method with its arguments after the string (its `length` is 1 + their count). */
const STRING_METHODS: Readonly<Record<string, (s: string, ...args: string[]) => string | undefined>> = {
  lower: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  strip: (s) => s.trim(),
  replace: (s, old: string, by: string) => (old === '' ? undefined : s.split(old).join(by)),
  format: (s, arg: string) => formatOne(s, arg),
};

/** `str.format` with one argument: every `{}` and `{0}` replaced by it; any other field is left to run time. */
function formatOne(template: string, arg: string): string | undefined {
  const fields = template.replace(/\{\{|\}\}/g, '').match(/\{[^}]*\}/g) ?? [];
  if (fields.length === 0 || fields.some((f) => f !== '{}' && f !== '{0}')) return undefined;
  return template.replace(/\{\{|\}\}|\{0?\}/g, (m) => (m === '{{' ? '{' : m === '}}' ? '}' : arg));
}

/**
 * An f-string whose replacements are plain names or expressions of a known str or bool, without a conversion
 * or a format spec (`f"checkpoints/{MODEL_NAME}/model_config.yaml"`): the string Python formats. Anything else is
 * formatted at run time.
 */
export function evalFormatString(file: PythonFile, node: SyntaxNode, t: string, depth: number): Val {
  const runtime: Val = { k: 'unknown', reason: `the f-string ${clip(t)} is formatted at run time` };
  const parts: string[] = [];
  let template = '';
  let at = node.from;
  for (let r = node.firstChild; r; r = r.nextSibling) {
    if (r.name !== 'FormatReplacement') continue;
    if (r.getChild('FormatConversion') || r.getChild('FormatSpec')) return runtime;
    const expr = r.firstChild?.nextSibling;
    const v = expr && expr.name !== '}' ? file.evalNode(expr, depth + 1) : undefined;
    if (v?.k !== 'lit') return runtime;
    const text = formatted(v.v);
    if (text === undefined) return runtime;
    template += file.text.slice(at, r.from) + `\uE000${parts.length}\uE001`;
    parts.push(text);
    at = r.to;
  }
  const s = pyString(template + file.text.slice(at, node.to));
  if (s === undefined) return runtime;
  const braces = s.replace(/\{\{/g, '{').replace(/\}\}/g, '}');
  return { k: 'lit', v: braces.replace(/\uE000(\d+)\uE001/g, (_, i: string) => parts[Number(i)]) };
}

/**
 * How an f-string formats a value without a spec: str() of a string or a bool. A number is left unknown: the evaluated
 * value no longer tells 2 from 2.0, which Python formats apart.
 */
function formatted(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return undefined;
}

/**
 * One item of what a function of the file returns, where `a, b = f()` unpacks it: f's one `return x, y` (a nested
 * function's returns are its own), item `index` read in f's body (rohan-paul's CodeLlama notebook: `output_dir,
 * model_name = setup_environment()`, whose body sets model_name to a literal). Undefined for anything else: another
 * callee, more than one return, a count that does not match.
 */
export function returnedItem(
  file: PythonFile,
  rhs: SyntaxNode,
  index: number | undefined,
  depth: number,
): Val | undefined {
  if (index === undefined || depth > 24) return undefined;
  const body = calledFunctionBody(file, rhs);
  const returned = body && soleReturn(body);
  if (!returned) return undefined;
  const items = returnedItems(returned);
  return index < items.length ? file.evalNode(items[index], depth + 1) : undefined;
}

/** The body of the file's own function a call names by a plain name (`load_config(path)`), or undefined. */
export function calledFunctionBody(file: PythonFile, call: SyntaxNode): SyntaxNode | undefined {
  const callee = call.name === 'CallExpression' ? call.firstChild : null;
  return callee ? definedFunctionBody(file, callee) : undefined;
}

/** The body of the function the file defines under a name (a VariableName node), as seen from that node. */
export function definedFunctionBody(file: PythonFile, name: SyntaxNode): SyntaxNode | undefined {
  if (name.name !== 'VariableName') return undefined;
  const found = file.lookup(file.text.slice(name.from, name.to), name);
  if (found.k !== 'binding' || found.binding.kind !== 'def') return undefined;
  let fn: SyntaxNode | null = file.root.resolveInner(found.binding.pos, 1);
  while (fn && fn.name !== 'FunctionDefinition') fn = fn.parent;
  return fn?.getChild('Body') ?? undefined;
}

/** The one return statement of a function body, or undefined when it has none or several. */
export function soleReturn(body: SyntaxNode): SyntaxNode | undefined {
  const returns = returnStatements(body);
  return returns.length === 1 ? returns[0] : undefined;
}

/** The nodes a return statement can be in: blocks and the compound statements that hold them (not expressions). */
const HOLDS_STATEMENTS = new Set([
  'Body',
  'IfStatement',
  'ForStatement',
  'WhileStatement',
  'TryStatement',
  'WithStatement',
  'MatchStatement',
  'MatchBody',
  'MatchClause',
]);

/**
 * The return statements of a function body, not those of the functions and classes it defines: only its blocks are
 * walked, not the expressions in them (asked of every function a value is followed through, it was a fifth of a
 * launcher's reading when it went into every call and string).
 */
export function returnStatements(node: SyntaxNode, out: SyntaxNode[] = [], depth = 0): SyntaxNode[] {
  if (depth > 100) return out;
  for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
    if (ch.name === 'ReturnStatement') out.push(ch);
    else if (HOLDS_STATEMENTS.has(ch.name)) returnStatements(ch, out, depth + 1);
  }
  return out;
}

/** The items a return statement gives: `return a, b` and `return (a, b)` two, `return x` one. */
function returnedItems(ret: SyntaxNode): SyntaxNode[] {
  const items: SyntaxNode[] = [];
  for (let ch = ret.firstChild; ch; ch = ch.nextSibling)
    if (ch.name !== 'return' && ch.name !== ',' && ch.name !== 'Comment') items.push(ch);
  const only = items.length === 1 ? items[0] : undefined;
  if (only?.name !== 'TupleExpression' && only?.name !== 'ParenthesizedExpression') return items;
  const inner: SyntaxNode[] = [];
  for (let ch = only.firstChild; ch; ch = ch.nextSibling)
    if (!['(', ')', ',', 'Comment'].includes(ch.name)) inner.push(ch);
  return inner;
}

/**
 * `d["key"]` of a dict the file writes (`CONFIG = {"model_name": ...}` then `from_pretrained(CONFIG["model_name"])`):
 * that entry's value, as later `d["key"] = value` statements leave it. Undefined for anything else.
 */
export function dictItem(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const item = subscript(file, node, depth);
  if (!item) return undefined;
  const { obj, k, d } = item;
  if (d?.k === 'data') return dataAt(d, k!, node);
  // An item of a dict constant imported from a module of the project (`from src.config import TRAINING_CONFIG`).
  if (d?.k !== 'dict' && obj.name === 'VariableName' && k !== undefined) {
    const name = importedNameAt(file, obj);
    if (name !== undefined) return importedName(file, `${name}[${JSON.stringify(k)}]`, node);
  }
  // `args["model_path"]` of `args = vars(parser.parse_args())`: the option (parsed-args-items.ts).
  if (d?.k !== 'dict') return k === undefined ? undefined : parsedArgsItem(file, obj, k, depth);
  const entry = [...d.entries].reverse().find((e) => e.rawKey === k);
  if (!entry?.valueNode) return undefined;
  if (entry.forced) return { k: 'unknown', reason: `${clip(file.text.slice(node.from, node.to))} is ${entry.forced}` };
  return file.evalNode(entry.valueNode, depth + 1);
}

/**
 * The imported name a variable stands for: itself where nothing in the file binds it, or the one the function's one
 * call passes a parameter (`def train(cfg): ...cfg["MODEL_NAME"]` called as `train(CFG)` after `from config import
 * CFG`, sids07/LLM_finetuning's scripts).
 */
function importedNameAt(file: PythonFile, variable: SyntaxNode): string | undefined {
  const name = file.text.slice(variable.from, variable.to);
  const bound = file.lookup(name, variable);
  if (bound.k !== 'none') return undefined;
  if (!bound.param) return name;
  const arg = soleCallArgumentNode(file, bound.param.scope, bound.param.name);
  if (arg?.name !== 'VariableName') return undefined;
  const passed = file.lookup(file.text.slice(arg.from, arg.to), arg);
  return passed.k === 'none' && !passed.param ? file.text.slice(arg.from, arg.to) : undefined;
}

/** The value node `d[key]` reads of a dict the file writes, its key known statically; undefined for anything else. */
export function dictEntryNode(file: PythonFile, node: SyntaxNode, depth: number): SyntaxNode | undefined {
  const item = subscript(file, node, depth);
  if (item?.d?.k !== 'dict') return undefined;
  const entry = [...item.d.entries].reverse().find((e) => e.rawKey === item.k);
  return entry?.forced ? undefined : (entry?.valueNode ?? undefined);
}

/** `obj[key]`: the object's node, the key known statically (else undefined) and the object's value where it is. */
function subscript(
  file: PythonFile,
  node: SyntaxNode,
  depth: number,
): { obj: SyntaxNode; k: string | undefined; d: Val | undefined } | undefined {
  const obj = node.firstChild;
  const open = obj?.nextSibling;
  const key = open?.nextSibling;
  if (!obj || open?.name !== '[' || !key || key.nextSibling?.name !== ']') return undefined;
  const k = itemKey(file, key, depth);
  return { obj, k, d: k === undefined ? undefined : file.evalNode(obj, depth + 1) };
}

/**
 * `d.get("key")` / `d.get("key", default)` of a dict the file writes, also chained (`config.get("model_config").get(
 * "base_model")`, vinodkumartz/HealthAI-Finetune's notebook): the entry's value as `d["key"]` reads it, else the default
 * (None without one). Undefined for anything else.
 */
export function dictGet(file: PythonFile, call: SyntaxNode, callee: string, depth: number): Val | undefined {
  const head = call.firstChild;
  const obj = head?.name === 'MemberExpression' ? head.firstChild : null;
  if (!obj || !callee.endsWith('.get')) return undefined;
  const [keyNode, fallback] = file.args(call).positional;
  const key = keyNode ? itemKey(file, keyNode, depth) : undefined;
  if (key === undefined) return undefined;
  const d = file.evalNode(obj, depth + 1);
  if (d.k !== 'dict') return undefined;
  const entry = [...d.entries].reverse().find((e) => e.rawKey === key);
  if (!entry) return fallback ? file.evalNode(fallback, depth + 1) : { k: 'lit', v: null };
  if (!entry.valueNode) return undefined;
  if (entry.forced) return { k: 'unknown', reason: `${clip(file.text.slice(call.from, call.to))} is ${entry.forced}` };
  return file.evalNode(entry.valueNode, depth + 1);
}

/**
 * The key a subscript names: a string as written, or an expression known statically to be one (`AVAILABLE_MODELS[
 * args.model]` with the option's default "phi"). A key that is the default of an option of the script makes the script
 * read again with a launch line's options, whose value for the option then names the item.
 */
function itemKey(file: PythonFile, key: SyntaxNode, depth: number): string | undefined {
  if (key.name === 'String') return pyString(file.text.slice(key.from, key.to));
  if (key.name !== 'VariableName' && key.name !== 'MemberExpression') return undefined;
  const v = file.evalNode(key, depth + 1);
  if (v.k !== 'lit' || typeof v.v !== 'string') return undefined;
  if (v.dflt) readsLaunchOptions(file);
  return v.v;
}

/**
 * The script's own file, `__file__`, as a path relative to the folder the script is in: what `.parent` and
 * `.parents[k]` of it, and joins onto those, are read against (`Path(__file__).resolve().parents[3] / "models"` is
 * `../../../models`, which the model resolver looks for from the script's folder).
 */
export const SCRIPT_FILE = './__file__';

/** A path's `.parent` and `.parents[k]` (a pathlib path or a string the file treats as one), relative ones kept so. */
export function pathMember(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const obj = node.firstChild;
  const next = obj?.nextSibling;
  if (!obj || !next) return undefined;
  if (next.name === '.' && next.nextSibling?.name === 'PropertyName') {
    if (file.text.slice(next.nextSibling.from, next.nextSibling.to) !== 'parent') return undefined;
    const v = file.evalNode(obj, depth + 1);
    return v.k === 'lit' && typeof v.v === 'string' ? { k: 'lit', v: parentOf(v.v) } : undefined;
  }
  const index = next.name === '[' ? next.nextSibling : null;
  const parents = obj.name === 'MemberExpression' ? obj.lastChild : null;
  if (index?.name !== 'Number' || parents?.name !== 'PropertyName' || !parents.prevSibling) return undefined;
  if (file.text.slice(parents.from, parents.to) !== 'parents' || !obj.firstChild) return undefined;
  const k = Number(file.text.slice(index.from, index.to));
  const v = file.evalNode(obj.firstChild, depth + 1);
  if (v.k !== 'lit' || typeof v.v !== 'string' || !Number.isInteger(k) || k < 0 || k > 32) return undefined;
  let p = v.v;
  for (let i = 0; i <= k; i++) p = parentOf(p);
  return { k: 'lit', v: p };
}

/** The folder a path is in: `a/b` -> `a`, `./x` -> `.`, `.` -> `..`, `../..` -> `../../..`. */
function parentOf(path: string): string {
  const p = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (p === '.' || p === '') return '..';
  if (/(^|\/)\.\.$/.test(p)) return `${p}/..`;
  const i = p.lastIndexOf('/');
  return i < 0 ? '.' : i === 0 ? '/' : p.slice(0, i);
}

/**
 * `a / b` of two paths (os.path.join's rule: an absolute b replaces a); a relative result keeps its `./`. A folder of
 * the script's own path (`PROJECT_ROOT = Path(__file__).resolve().parents[2]`, here `../..`) is absolute in Python, and
 * so is a path already joined onto it: `PROJECT_ROOT / config_path` where `config_path = PROJECT_ROOT / args.config`
 * (`../../config/x.yaml`) is that path, not the root joined twice.
 */
function joinPath(a: string, b: string): string {
  if (b.startsWith('/')) return b;
  if (/^\.\.?(?:\/\.\.)*$/.test(a) && a !== '.' && b.startsWith(`${a}/`)) return b;
  if (a === '.' || a === '') return `./${b}`;
  return a.endsWith('/') ? a + b : `${a}/${b}`;
}
