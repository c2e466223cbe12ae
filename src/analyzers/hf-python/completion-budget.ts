// A completion length written as what a sequence budget leaves after the prompt: Unsloth's GRPO notebooks (copied by
// many: waqqasansari/qwen3-grpo-finetune, osamaaltaf-pk/LLMs-Unsloth) measure the longest prompt of their data
// (`max_prompt_length = maximum_length + 1`) and give the rest of max_seq_length to the completion
// (`max_completion_length = max_seq_length - max_prompt_length`). The split is the data's, but prompt + completion is
// the budget by construction: that sum is the fact (completionBudget), which the rollout's resolution spends on the
// prompt length the run has and the completion (resolve/rollout.ts). Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import type { Entry, PythonFile } from './file';
import { clip } from './syntax';

/** `max_completion_length=` not known statically, whose expression is `<known> - <the prompt length>`: the budget. */
export function completionBudget(file: PythonFile, e: Entry, tool: Tool): void {
  if (file.valueOf(e).k === 'lit' || !e.valueNode) return;
  const expr = expression(file, e.valueNode);
  if (expr?.name !== 'BinaryExpression') return;
  const left = expr.firstChild;
  const op = left?.nextSibling;
  const right = expr.lastChild;
  if (!left || !right || op?.name !== 'ArithOp' || file.text.slice(op.from, op.to) !== '-') return;
  if (!/(^|[._])max_prompt_length$|prompt_len/.test(file.text.slice(right.from, right.to).trim())) return;
  const budget = file.evalNode(left, 1);
  if (budget.k !== 'lit' || typeof budget.v !== 'number' || !Number.isInteger(budget.v) || budget.v <= 0) return;
  file.facts.push({
    key: 'completionBudget',
    rawKey: e.rawKey,
    value: budget.v,
    rawValue: clip(`${file.text.slice(expr.from, expr.to)} (${file.text.slice(left.from, left.to)} = ${budget.v})`),
    keySpan: e.keySpan,
    valueSpan: e.valueSpan,
    tool,
  });
}

/** The expression itself, or the one a name is assigned where the name is read (`max_completion_length` above). */
function expression(file: PythonFile, node: SyntaxNode): SyntaxNode | undefined {
  if (node.name !== 'VariableName') return node;
  const found = file.lookup(file.text.slice(node.from, node.to), node);
  return found.k === 'binding' && found.binding.kind === 'assign' ? (found.binding.valueNode ?? undefined) : undefined;
}
