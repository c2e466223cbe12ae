// A function of the file that tests a name against patterns, called with names known statically: razvanalex-phd/
// SeLeRoSa's `requires_eager_attention(args.base_model)`, which returns `any(p in model_name.lower() for p in
// ["gemma-2", "gemma-3"])`, decides `if requires_eager_attention(...): model_kwargs["attn_implementation"] = "eager"`.
// The body may bind local names once (`model_name_lower = model_name.lower()`, a list of patterns) before its one
// `return`, which may use `in` / `not in`, `and`, `or`, `not`, `==` / `!=` of strings, `lower()` / `upper()` /
// `strip()`, `startswith` / `endswith` and `any(...)` / `all(...)` of a generator over a list. Anything else is not
// read (the call stays computed at run time). Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { FactValue } from '../facts';
import { calledFunctionBody } from './expressions';
import type { PythonFile, Val } from './file';
import { listItems, parameters, pyString } from './syntax';
import { booleanTree, type BooleanTree } from './boolean-operators';

type Value = string | boolean | readonly string[];

/** What the predicate's names hold while its body is read: parameters, locals, a generator's loop name. */
type Scope = ReadonlyMap<string, Value>;

/** The file the predicate is read in, and how deep the evaluation that asked for it is. */
interface Reading {
  readonly file: PythonFile;
  readonly depth: number;
}

const STRING_METHODS: Readonly<Record<string, (s: string) => string>> = {
  lower: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  strip: (s) => s.trim(),
  casefold: (s) => s.toLowerCase(),
};

/** The boolean a call of such a predicate returns, its arguments known statically; undefined otherwise. */
export function namePredicate(file: PythonFile, call: SyntaxNode, depth: number): Val | undefined {
  const body = calledFunctionBody(file, call);
  const fn = body?.parent;
  if (!body || fn?.name !== 'FunctionDefinition') return undefined;
  // The body's shape first (cheap): most functions a script calls are not such predicates.
  if (!predicateShaped(body)) return undefined;
  const params = parameters(file.text, fn.getChild('ParamList'));
  const args = file.args(call);
  if (args.entries.length > 0 || args.opaque.length > 0 || args.positional.length !== params.length) return undefined;
  const scope = new Map<string, Value>();
  for (let i = 0; i < params.length; i++) {
    const v = file.evalNode(args.positional[i], depth + 1);
    if (v.k !== 'lit' || typeof v.v !== 'string' || params[i].starred) return undefined;
    scope.set(params[i].name, v.v);
  }
  const result = returned({ file, depth: depth + 1 }, body, scope);
  return typeof result === 'boolean' ? { k: 'lit', v: result } : undefined;
}

/** A body of a docstring, assignments and one `return` last, at most a few statements, none a call of its own. */
function predicateShaped(body: SyntaxNode): boolean {
  let count = 0;
  let last: SyntaxNode | null = null;
  for (let st = body.firstChild; st; st = st.nextSibling) {
    if (st.name === ':' || st.name === 'Comment') continue;
    const docstring = st.name === 'ExpressionStatement' && st.firstChild?.name === 'String';
    if (!docstring && st.name !== 'AssignStatement' && st.name !== 'ReturnStatement') return false;
    if (++count > MAX_STATEMENTS) return false;
    last = st;
  }
  return last?.name === 'ReturnStatement';
}

/** Statements of the longest predicate read (SeLeRoSa's has three: the lower-cased name, the patterns, the return). */
const MAX_STATEMENTS = 8;

/** The body's statements in order: a docstring, single-name assignments, then the one `return`. */
function returned(r: Reading, body: SyntaxNode, scope: Map<string, Value>): Value | undefined {
  const { file } = r;
  for (let st = body.firstChild; st; st = st.nextSibling) {
    if (st.name === ':' || st.name === 'Comment') continue;
    if (st.name === 'ExpressionStatement' && st.firstChild?.name === 'String') continue;
    if (st.name === 'ReturnStatement') return st.lastChild ? ev(r, st.lastChild, scope) : undefined;
    if (st.name !== 'AssignStatement') return undefined;
    const [target, op, value] = [st.firstChild, st.firstChild?.nextSibling, st.lastChild];
    if (target?.name !== 'VariableName' || op?.name !== 'AssignOp' || !value || value === target) return undefined;
    const name = file.text.slice(target.from, target.to);
    const v = ev(r, value, scope);
    if (v === undefined || scope.has(name)) return undefined;
    scope.set(name, v);
  }
  return undefined;
}

/** An expression of the predicate's body, as Python evaluates it; undefined where it is not one read here. */
function ev(r: Reading, node: SyntaxNode, scope: Scope): Value | undefined {
  const { file } = r;
  const text = (n: SyntaxNode): string => file.text.slice(n.from, n.to);
  switch (node.name) {
    case 'String':
      return pyString(text(node));
    case 'Boolean':
      return text(node) === 'True';
    case 'VariableName':
      return scope.get(text(node)) ?? constant(r, node);
    case 'ParenthesizedExpression':
      return node.firstChild?.nextSibling ? ev(r, node.firstChild.nextSibling, scope) : undefined;
    case 'ArrayExpression':
    case 'TupleExpression':
    case 'SetExpression':
      return strings(r, node, scope);
    case 'UnaryExpression':
    case 'BinaryExpression': {
      const tree = booleanTree(node);
      if (tree) return logic(r, tree, scope);
      return node.name === 'BinaryExpression' ? binary(r, node, scope) : undefined;
    }
    case 'CallExpression':
      return call(r, node, scope);
    default:
      return undefined;
  }
}

/** A module constant the predicate reads (`EAGER_MODELS = ["gemma-2", ...]` at the file's top). */
function constant(r: Reading, node: SyntaxNode): Value | undefined {
  const v = r.file.evalNode(node, r.depth + 1);
  return v.k === 'lit' ? asValue(v.v) : undefined;
}

function asValue(v: FactValue): Value | undefined {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
}

const not = (v: Value | undefined): boolean | undefined => (typeof v === 'boolean' ? !v : undefined);

/** The items of a list, tuple or set of strings. */
function strings(r: Reading, node: SyntaxNode, scope: Scope): readonly string[] | undefined {
  const out: string[] = [];
  for (const c of listItems(node)) {
    const v = ev(r, c, scope);
    if (typeof v !== 'string') return undefined;
    out.push(v);
  }
  return out;
}

/** `a and b`, `a or b`, `not a`, grouped as Python groups them (boolean-operators.ts). */
function logic(r: Reading, tree: BooleanTree, scope: Scope): Value | undefined {
  if (tree.op === 'leaf') return ev(r, tree.node, scope);
  if (tree.op === 'not') return not(logic(r, tree.operand, scope));
  // Python's truth of a string or list is its length; the predicates read here combine booleans.
  const a = logic(r, tree.left, scope);
  if (typeof a !== 'boolean') return undefined;
  if ((tree.op === 'and' && !a) || (tree.op === 'or' && a)) return a;
  const b = logic(r, tree.right, scope);
  return typeof b === 'boolean' ? b : undefined;
}

/** `a in b`, `a not in b`, `a == b`, `a != b`. */
function binary(r: Reading, node: SyntaxNode, scope: Scope): Value | undefined {
  const { file } = r;
  const left = node.firstChild;
  const right = node.lastChild;
  if (!left || !right || left === right) return undefined;
  const ops = file.text.slice(left.to, right.from).trim().replace(/\s+/g, ' ');
  const a = ev(r, left, scope);
  const b = ev(r, right, scope);
  if (a === undefined || b === undefined) return undefined;
  if (ops === 'in' || ops === 'not in') {
    const found = contains(a, b);
    return found === undefined ? undefined : ops === 'in' ? found : !found;
  }
  if ((ops === '==' || ops === '!=') && typeof a === 'string' && typeof b === 'string')
    return ops === '==' ? a === b : a !== b;
  return undefined;
}

/** `a in b`: a substring of a string, or an item of a list. */
function contains(a: Value, b: Value): boolean | undefined {
  if (typeof a !== 'string') return undefined;
  if (typeof b === 'string') return b.includes(a);
  return Array.isArray(b) ? b.includes(a) : undefined;
}

/** `s.lower()` and the like, `s.startswith(x)` / `s.endswith(x)`, `any(...)` / `all(...)` of a generator. */
function call(r: Reading, node: SyntaxNode, scope: Scope): Value | undefined {
  const { file } = r;
  const callee = node.firstChild;
  const argList = node.getChild('ArgList');
  if (!callee || !argList) return undefined;
  if (callee.name === 'VariableName') {
    const name = file.text.slice(callee.from, callee.to);
    return name === 'any' || name === 'all' ? quantifier(r, argList, scope, name) : undefined;
  }
  if (callee.name !== 'MemberExpression' || !callee.firstChild || !callee.lastChild) return undefined;
  const receiver = ev(r, callee.firstChild, scope);
  const method = file.text.slice(callee.lastChild.from, callee.lastChild.to);
  if (typeof receiver !== 'string') return undefined;
  const args = argNodes(argList);
  if (STRING_METHODS[method] && args.length === 0) return STRING_METHODS[method](receiver);
  if ((method === 'startswith' || method === 'endswith') && args.length === 1) {
    const x = ev(r, args[0], scope);
    const options = typeof x === 'string' ? [x] : Array.isArray(x) ? x : undefined;
    if (!options) return undefined;
    return options.some((o) => (method === 'startswith' ? receiver.startsWith(o) : receiver.endsWith(o)));
  }
  return undefined;
}

/** The arguments an argument list holds, without its brackets and commas. */
function argNodes(argList: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = argList.firstChild; c; c = c.nextSibling) if (!['(', ')', ',', 'Comment'].includes(c.name)) out.push(c);
  return out;
}

/** `any(elt for name in items)` / `all(...)`: elt read with name bound to each item of a list known statically. */
function quantifier(r: Reading, argList: SyntaxNode, scope: Scope, which: string): Value | undefined {
  const { file } = r;
  const [elt, kwFor, target, kwIn, iterable, ...rest] = argNodes(argList);
  if (rest.length > 0 || kwFor?.name !== 'for' || target?.name !== 'VariableName' || kwIn?.name !== 'in') return;
  const items = iterable ? ev(r, iterable, scope) : undefined;
  if (!Array.isArray(items)) return undefined;
  const name = file.text.slice(target.from, target.to);
  const truths: boolean[] = [];
  for (const item of items) {
    const v = ev(r, elt, new Map([...scope, [name, item]]));
    if (typeof v !== 'boolean') return undefined;
    truths.push(v);
  }
  return which === 'any' ? truths.some(Boolean) : truths.every(Boolean);
}
