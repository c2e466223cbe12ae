// An `if` around a checkpointing call whose unknown part only asks whether the model checkpoints already
// (DaoyuanLi2816/can-i-finetune-this: `if GRADIENT_CHECKPOINTING and not getattr(model, "is_gradient_checkpointing",
// False): model.gradient_checkpointing_enable()`): checkpointing is on after it either way, so the branch counts as run
// where the rest of its test is true; so does one that asks whether the model has the switch (HAS_ENABLE). Pure; never
// throws on user text.
import type { SyntaxNode } from '@lezer/common';
import { booleanTree, type BooleanTree } from './boolean-operators';
import { branchTaken } from './branches';
import type { PythonFile } from './file';
import { pyTruthy } from './syntax';

/** `getattr(model, "is_gradient_checkpointing", ...)` or `model.is_gradient_checkpointing`. */
const ALREADY =
  /^(?:getattr\(\s*[\w.]+\s*,\s*(['"])is_gradient_checkpointing\1[^)]*\)|[\w.]+\.is_gradient_checkpointing)$/;

/**
 * `hasattr(model, "gradient_checkpointing_enable")`: true of every transformers model (PreTrainedModel defines it, and
 * a PEFT model passes attributes on to its base), Jack31098/llm_training_demo's `if args.use_activation_checkpointing
 * and hasattr(model, "gradient_checkpointing_enable"):`.
 */
const HAS_ENABLE = /^hasattr\(\s*[\w.]+\s*,\s*(['"])gradient_checkpointing_enable\1\s*\)$/;

/** Whether the call's own `if` runs it once the test's "already checkpointing" part is taken as true. */
export function runsBesideCheckpointingGuard(file: PythonFile, call: SyntaxNode): boolean {
  let stmt: SyntaxNode | null = call.parent;
  while (stmt && stmt.name !== 'IfStatement') stmt = stmt.parent;
  const test = stmt?.firstChild?.nextSibling;
  const body = stmt?.getChild('Body');
  if (!stmt || !test || !body || call.from < body.from || call.to > body.to) return false;
  if (stmt.getChild('elif') && call.from > (stmt.getChild('elif')?.from ?? 0)) return false;
  if (branchTaken(file, stmt) !== true) return false;
  const tree = booleanTree(test);
  return tree !== undefined && holds(file, tree, false);
}

/** The tree is true, reading each "already checkpointing" guard under a `not` as false (so `not guard` is true). */
function holds(file: PythonFile, t: BooleanTree, negated: boolean): boolean {
  switch (t.op) {
    case 'and':
      return !negated && holds(file, t.left, false) && holds(file, t.right, false);
    case 'or':
      return !negated && (holds(file, t.left, false) || holds(file, t.right, false));
    case 'not':
      return holds(file, t.operand, !negated);
    case 'leaf': {
      const text = file.text.slice(t.node.from, t.node.to).trim();
      if (ALREADY.test(text)) return negated;
      if (hasEnable(file, t.node, text)) return !negated;
      const v = file.evalNode(t.node, 0);
      return v.k === 'lit' && pyTruthy(v.v) !== negated;
    }
  }
}

/** HAS_ENABLE written in the test, or as the value of a name the test reads (`supported = hasattr(...)`). */
function hasEnable(file: PythonFile, node: SyntaxNode, text: string): boolean {
  if (HAS_ENABLE.test(text)) return true;
  const bound = node.name === 'VariableName' ? file.bindingValue(node) : null;
  return bound !== null && HAS_ENABLE.test(file.text.slice(bound.from, bound.to).trim());
}
