// The optimizer a script constructs itself: for the loop it writes out (the one the loop steps), and for the HF
// Trainer handed it through `optimizers=(optimizer, scheduler)`, which replaces TrainingArguments' optim
// (transformers trainer.py create_optimizer: `if self.optimizer is None`). Its class names the states; torch's
// fused=True and foreach=False change the step's temporaries, SGD's momentum adds a state, bitsandbytes' optim_bits=8
// makes its 32-bit classes 8-bit. Pure.
import type { SyntaxNode } from '@lezer/common';
import { normalizeOptimizer, type Tool } from '../facts';
import type { PythonFile } from './file';
import { argument, calleeFact } from './calls';
import { assignedName, children, clip, walk } from './syntax';

/** Optimizer classes of torch.optim, bitsandbytes, transformers and torchao, by their class name. */
const OPTIMIZER_CLASS = new RegExp(
  '^(AdamW|Adam|SGD|RMSprop|Adafactor|Lion|Adam8bit|AdamW8bit|PagedAdam8bit|PagedAdamW|PagedAdamW8bit|PagedAdamW32bit|' +
    'Lion8bit|PagedLion8bit|AdamW4bit|FusedAdam|DeepSpeedCPUAdam)$',
);

const isOptimizerCall = (file: PythonFile, c: SyntaxNode): boolean =>
  OPTIMIZER_CLASS.test(file.calleeName(c)?.split('.').pop() ?? '');

/**
 * What an RMSprop call sets that the model of its step leaves out (optimizer-step.ts rmspropTemporaries): a momentum
 * buffer, the centered grad_avg, or weight decay's copy of the gradients (torch/optim/rmsprop.py).
 */
function rmspropBeyondDefaults(lit: (k: string) => unknown): string[] {
  const set = (k: string): boolean => typeof lit(k) === 'number' && (lit(k) as number) !== 0;
  return [
    ...(set('momentum') ? [`momentum=${String(lit('momentum'))}`] : []),
    ...(set('weight_decay') ? [`weight_decay=${String(lit('weight_decay'))}`] : []),
    ...(lit('centered') === true ? ['centered=True'] : []),
  ];
}

/** The 8-bit optimizer a bitsandbytes class is with `optim_bits=8` (bitsandbytes/optim/optimizer.py Optimizer1State/2State). */
const EIGHT_BIT: Readonly<Record<string, string>> = {
  adamw: 'adamw_8bit',
  adam: 'adamw_8bit',
  paged_adamw: 'paged_adamw_8bit',
  lion: 'lion_8bit',
};

/** The optimizer fact of one constructor call, for `tool`. */
function optimizerFact(file: PythonFile, c: SyntaxNode, tool: Tool): void {
  const cls = file.calleeName(c)!.split('.').pop()!;
  const get = argument(file.args(c));
  const lit = (k: string): unknown => {
    const e = get(k);
    const x = e ? file.valueOf(e) : undefined;
    return x?.k === 'lit' ? x.v : undefined;
  };
  let value = normalizeOptimizer(cls);
  if (value === 'adamw' && lit('fused') === true) value = 'adamw_fused';
  else if (value === 'adamw' && lit('foreach') === false) value = 'adamw_hf';
  else if (value === 'sgd' && typeof lit('momentum') === 'number' && (lit('momentum') as number) > 0)
    value = 'sgd_momentum';
  if (lit('optim_bits') === 8) value = EIGHT_BIT[value] ?? value;
  const beyond = value === 'rmsprop' ? rmspropBeyondDefaults(lit) : [];
  if (beyond.length > 0) value = 'rmsprop_beyond_defaults';
  const callee = file.calleeName(c)!;
  const shown = beyond.length > 0 ? `${clip(callee)}(${beyond.join(', ')})` : `${clip(callee)}(...)`;
  calleeFact(file, c, 'optimizer', callee, value, shown, tool);
}

/** The optimizer a written-out loop constructs: the one whose name the loop steps (`optimizer.step()`), else the first. */
export function optimizerCall(file: PythonFile, calls: readonly SyntaxNode[], loop: SyntaxNode, tool: Tool): void {
  const built = calls.filter((c) => isOptimizerCall(file, c));
  if (built.length === 0) return;
  const stepped = new Set<string>();
  walk(loop, (n) => {
    if (n.name !== 'CallExpression') return;
    const parts = file.calleeName(n)?.split('.') ?? [];
    if (parts.length === 2 && parts[1] === 'step') stepped.add(parts[0]);
  });
  optimizerFact(file, built.find((b) => stepped.has(assignedName(b, file.text) ?? '')) ?? built[0], tool);
}

/**
 * The optimizer a Trainer is handed, `Trainer(..., optimizers=(adam_bnb_optim, None))` (transformers' docs "Efficient
 * Training on a Single GPU": `bnb.optim.Adam8bit(...)`): the constructor call the tuple's first item names, or is.
 */
export function trainerOptimizers(file: PythonFile, calls: readonly SyntaxNode[], tool: Tool): void {
  for (const c of calls) {
    if (!/Trainer$/.test(file.calleeName(c)?.split('.').pop() ?? '')) continue;
    const node = argument(file.args(c))('optimizers')?.valueNode;
    const tuple = node?.name === 'ParenthesizedExpression' ? node.firstChild?.nextSibling : node;
    const first = tuple?.name === 'TupleExpression' ? children(tuple).find((n) => n.name !== '(') : undefined;
    if (!first) continue;
    const name = first.name === 'VariableName' ? file.text.slice(first.from, first.to) : undefined;
    const built =
      first.name === 'CallExpression' && isOptimizerCall(file, first)
        ? first
        : calls
            .filter((b) => isOptimizerCall(file, b) && name !== undefined && assignedName(b, file.text) === name)
            .pop();
    if (built) optimizerFact(file, built, tool);
    return;
  }
}
