// `and`, `or` and `not` as Python binds them. @lezer/python (1.1.19) gives `not` no precedence, so its operand runs to
// the end of the expression: `a and not b and c() and not d` parses as `a and not (b and c() and not d)`. Python binds
// `not` tighter than `and`, and `and` tighter than `or` (https://docs.python.org/3/reference/expressions.html#operator-
// precedence): `a and (not b) and c() and (not d)`. Qwen-1's finetune.py raises "ZeRO3 is incompatible with LoRA"
// under `if training_args.use_lora and not lora_args.q_lora and deepspeed.is_deepspeed_zero3_enabled() and not
// is_chat_model`; read through the parser's tree, the test was true without DeepSpeed and nothing after it ran. The
// chain's operators are read in their order and grouped again (booleanTree); the evaluation follows that tree.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import { clip, pyTruthy, readingNoneDefaults } from './syntax';
import { calledAs } from './attributes';

/** An `and` / `or` / `not` expression grouped as Python groups it; a leaf is any other expression node. */
export type BooleanTree =
  | { readonly op: 'and' | 'or'; readonly left: BooleanTree; readonly right: BooleanTree }
  | { readonly op: 'not'; readonly from: number; readonly operand: BooleanTree }
  | { readonly op: 'leaf'; readonly node: SyntaxNode };

/** An operator (a `not` with where it stands) or an operand. */
type Token = 'and' | 'or' | { readonly not: number } | SyntaxNode;

/** The node's `and` / `or` / `not` structure as Python binds it; undefined where the node is none of the three. */
export function booleanTree(node: SyntaxNode): BooleanTree | undefined {
  if (!operatorOf(node)) return undefined;
  const tokens: Token[] = [];
  flatten(node, tokens);
  const reader = { tokens, at: 0 };
  return readOr(reader);
}

/** The boolean operator a node applies (its operands: the children other than comments), if it is one. */
function operatorOf(node: SyntaxNode): { op: 'and' | 'or' | 'not'; operands: SyntaxNode[] } | undefined {
  const kids: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.name !== 'Comment') kids.push(c);
  if (node.name === 'UnaryExpression' && kids.length === 2 && kids[0].name === 'not')
    return { op: 'not', operands: [kids[1]] };
  if (node.name !== 'BinaryExpression' || kids.length !== 3) return undefined;
  const op = kids[1].name;
  return op === 'and' || op === 'or' ? { op, operands: [kids[0], kids[2]] } : undefined;
}

/** The chain's operators and operands in the order of the text (the parser's grouping dropped). */
function flatten(node: SyntaxNode, out: Token[]): void {
  const o = operatorOf(node);
  if (!o) {
    out.push(node);
    return;
  }
  if (o.op === 'not') {
    out.push({ not: node.from });
    flatten(o.operands[0], out);
    return;
  }
  flatten(o.operands[0], out);
  out.push(o.op);
  flatten(o.operands[1], out);
}

interface Reader {
  readonly tokens: readonly Token[];
  at: number;
}

/** `a or b or ...`: `and` chains, grouped from the left (the loosest binding). */
const readOr = (r: Reader): BooleanTree => readChain(r, 'or', readAnd);
/** `a and b and ...`: `not` operands, grouped from the left. */
const readAnd = (r: Reader): BooleanTree => readChain(r, 'and', readNot);

function readChain(r: Reader, op: 'and' | 'or', operand: (r: Reader) => BooleanTree): BooleanTree {
  let left = operand(r);
  while (r.tokens[r.at] === op) {
    r.at++;
    left = { op, left, right: operand(r) };
  }
  return left;
}

function readNot(r: Reader): BooleanTree {
  const t = r.tokens[r.at++];
  if (typeof t === 'object' && 'not' in t) return { op: 'not', from: t.not, operand: readNot(r) };
  // The tokens alternate operand and operator by construction: an operand stands here.
  return { op: 'leaf', node: t as SyntaxNode };
}

/**
 * `a and b`, `a or b`, `not a` as Python gives them, where the operands that decide are known statically: the left
 * value when it decides, else the right one; `not` of a known value. A torch dtype (`torch.bfloat16`) is a true value.
 * Undefined where the node is no boolean operator.
 */
export function evalBoolean(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const tree = booleanTree(node);
  return tree ? evalTree(file, tree, depth) : undefined;
}

function evalTree(file: PythonFile, tree: BooleanTree, depth: number): Val {
  switch (tree.op) {
    case 'leaf':
      return file.evalNode(tree.node, depth + 1);
    case 'not': {
      const v = evalTree(file, tree.operand, depth + 1);
      if (v.k === 'lit') return { k: 'lit', v: !pyTruthy(v.v), ...(v.dflt ? { dflt: v.dflt } : {}) };
      return { k: 'unknown', reason: `${clip(treeText(file, tree))} is computed at run time` };
    }
    default: {
      const decided = decidedSide(file, tree, depth);
      if (decided) return evalTree(file, decided, depth + 1);
      return { k: 'unknown', reason: `${clip(treeText(file, tree))} is computed at run time` };
    }
  }
}

/** The source text a tree covers. */
function treeText(file: PythonFile, tree: BooleanTree): string {
  const [from, to] = extent(tree);
  return file.text.slice(from, to);
}

function extent(tree: BooleanTree): [number, number] {
  if (tree.op === 'leaf') return [tree.node.from, tree.node.to];
  if (tree.op === 'not') return [tree.from, extent(tree.operand)[1]];
  return [extent(tree.left)[0], extent(tree.right)[1]];
}

/** The side whose value `a and b` / `a or b` takes where its left side is known statically. */
function decidedSide(
  file: PythonFile,
  tree: Extract<BooleanTree, { op: 'and' | 'or' }>,
  depth: number,
): BooleanTree | undefined {
  // `args.model_name or cfg["model"]["name"]`: an option whose default is None gives way to the right-hand side when
  // the launch line is silent (a launch line's --model_name is a fact of its own, over the script's).
  if (tree.op === 'or') {
    const left = readingNoneDefaults(file, () => evalTree(file, tree.left, depth + 1));
    const leftNode = tree.left.op === 'leaf' ? tree.left.node : undefined;
    if (left.k === 'lit' && (left.v === null || left.v === '') && left.dflt) return tree.right;
    if (leftNode && uncalledNone(file, leftNode)) return tree.right;
  }
  const a = evalTree(file, tree.left, depth + 1);
  const truthy = a.k === 'lit' ? pyTruthy(a.v) : a.k === 'dict' ? dictTruthy(a) : torchName(a);
  if (truthy === undefined) return undefined;
  return truthy === (tree.op === 'and') ? tree.right : tree.left;
}

/**
 * The operand node whose value `a and b` / `a or b` takes where its left side is known statically; read for the
 * instance `cfg = cfg or Config()` makes of a parameter that defaults to None. Undefined where the side taken is itself
 * an operator's (no one node stands for it).
 */
export function decidedOperand(file: PythonFile, node: SyntaxNode, depth: number): SyntaxNode | undefined {
  const tree = booleanTree(node);
  if (!tree || tree.op === 'leaf' || tree.op === 'not') return undefined;
  const side = decidedSide(file, tree, depth);
  return side?.op === 'leaf' ? side.node : undefined;
}

/** `torch.bfloat16` and the like: an object, true. */
const torchName = (a: Val): true | undefined => (a.k === 'dotted' && /^torch\.\w+$/.test(a.text) ? true : undefined);

/**
 * A dict the file writes: true with an entry, false when empty with nothing spread into it (`config or
 * self.get_default_config()` with the dict the class's one call passes, Yosef-Ali/amharic-llm-finetuning).
 */
function dictTruthy(a: Extract<Val, { k: 'dict' }>): boolean | undefined {
  if (a.entries.length > 0) return true;
  return a.opaque.length === 0 ? false : undefined;
}

/**
 * A parameter that defaults to None of a function nothing in the file or its importer calls (`def run_sft_training(cfg=
 * None)`, then `cfg = cfg or SFTTrainingConfig()`): None, as a call with no arguments gives it.
 */
function uncalledNone(file: PythonFile, node: SyntaxNode): boolean {
  if (node.name !== 'VariableName') return false;
  const found = file.lookup(file.text.slice(node.from, node.to), node);
  const scope = found.k === 'none' ? found.param?.scope : undefined;
  const dflt = scope?.params.get(found.k === 'none' ? (found.param?.name ?? '') : '');
  if (!scope?.fn || !dflt || file.text.slice(dflt.from, dflt.to) !== 'None') return false;
  const callee = calledAs(file, scope);
  return file.callsNamed(callee).length === 0 && !(callee && file.moduleCallArgs?.[callee]);
}
