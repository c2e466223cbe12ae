// The model cast after its load: `model = model.bfloat16()`, `model.half()`, `model.to(torch.bfloat16)`,
// `AutoModelForCausalLM.from_pretrained(...).half()` (FastChat's forks, many loops). nn.Module.half / bfloat16 / float
// and .to(dtype) cast every floating parameter in place (torch/nn/modules/module.py _apply), so the weights train in
// that dtype whatever from_pretrained loaded; torch's AdamW keeps its states in the parameters' dtype. Read as the
// weights' dtype, over the load's (and a launch line's `--torch_dtype`); not a cast after the trainer's train(), which
// readies the trained model for saving. On a branch: as written when the branch is
// known to run, nothing when it is known not to, unknown otherwise. Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import { callOnBranch } from './branches';
import { modelNames } from './loop';
import type { Entry, PythonFile } from './file';
import { isModelLoad, span } from './syntax';
import { dtypeOf } from './values';

/** The casting methods that take no argument, and the dtype each gives. */
const CASTS: Readonly<Record<string, string>> = { half: 'fp16', bfloat16: 'bf16', float: 'fp32' };

/** Methods that return the module they are called on, between a load and its cast (`.cuda().half()`). */
const SELF_RETURNING = new Set(['to', 'cuda', 'train']);

/** Each cast of the model after its load (the names bound to it: loop.ts modelNames), as the weights' dtype. */
export function modelCasts(file: PythonFile, calls: readonly SyntaxNode[], tool: Tool): void {
  // Most scripts cast nothing: answered from the text before the model's names are worked out.
  if (!/\.(half|bfloat16|float|to)\s*\(/.test(file.text)) return;
  const models = modelNames(file, calls);
  // A cast after the trainer's train() prepares the trained model for saving or merging, not for training.
  const trained = calls.find((c) => trainCall(file, c, models))?.from ?? Infinity;
  for (const c of calls) {
    if (c.from > trained) continue;
    const callee = c.firstChild;
    const prop = callee?.name === 'MemberExpression' ? callee.lastChild : null;
    if (!callee || prop?.name !== 'PropertyName' || !isModel(file, callee.firstChild, models)) continue;
    const method = file.text.slice(prop.from, prop.to);
    const args = file.args(c);
    const bare = args.positional.length === 0 && args.entries.length === 0;
    const dtype = bare && method in CASTS ? CASTS[method] : method === 'to' ? castOfTo(file, c) : undefined;
    if (dtype) cast(file, c, dtype, tool);
  }
}

/**
 * `trainer.train(...)`, `Trainer(...).train()`: a train() call on something that is not the model (`model.train()`
 * switches its mode).
 */
function trainCall(file: PythonFile, c: SyntaxNode, models: ReadonlySet<string>): boolean {
  const callee = c.firstChild;
  const prop = callee?.name === 'MemberExpression' ? callee.lastChild : null;
  const receiver = callee?.firstChild;
  if (!prop || !receiver || file.text.slice(prop.from, prop.to) !== 'train') return false;
  const written = file.text.slice(receiver.from, receiver.to).replace(/\s+/g, '');
  if (receiver.name === 'VariableName') return !models.has(written);
  return receiver.name === 'CallExpression' || (receiver.name === 'MemberExpression' && written !== 'self.model');
}

/** Whether a receiver is the model: a name bound to it, `self.model`, or a load (and its `.cuda()` / `.to(device)`). */
function isModel(file: PythonFile, n: SyntaxNode | null, models: ReadonlySet<string>): boolean {
  if (!n) return false;
  if (n.name === 'VariableName') return models.has(file.text.slice(n.from, n.to));
  if (n.name === 'MemberExpression') return file.text.slice(n.from, n.to).replace(/\s+/g, '') === 'self.model';
  if (n.name !== 'CallExpression') return false;
  const parts = file.calleeName(n)?.split('.');
  if (parts && isModelLoad(parts)) return true;
  const inner = n.firstChild;
  const prop = inner?.name === 'MemberExpression' ? inner.lastChild : null;
  return (
    prop !== null && SELF_RETURNING.has(file.text.slice(prop.from, prop.to)) && isModel(file, inner!.firstChild, models)
  );
}

/** The dtype a `.to(...)` call names: `dtype=` or a positional torch dtype (a device alone names none). */
function castOfTo(file: PythonFile, call: SyntaxNode): string | undefined {
  const args = file.args(call);
  const named = args.entries.find((e) => e.rawKey === 'dtype')?.valueNode;
  for (const n of named ? [named] : args.positional) {
    if (!/^torch\.(b?float16|half|float32|float)$/.test(file.text.slice(n.from, n.to))) continue;
    const d = dtypeOf(file, file.evalNode(n, 1));
    if (typeof d === 'string') return d;
  }
  return undefined;
}

function cast(file: PythonFile, call: SyntaxNode, dtype: string, tool: Tool): void {
  const branch = callOnBranch(file, call);
  if (!branch) return;
  const { cond } = branch;
  const at = span(call);
  const written = file.text.slice(call.from, call.to);
  const e: Entry = { rawKey: 'model cast', keySpan: at, valueNode: call, valueSpan: at };
  file.push('weightsDtype', e, cond ? { unknown: `${written} runs only when ${cond}` } : dtype, tool);
  const last = file.facts.length - 1;
  file.facts[last] = { ...file.facts[last], rawValue: written, overridesLauncher: true };
}
