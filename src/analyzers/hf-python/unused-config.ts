// A PEFT config a training script makes and never hands on: `config = LoraConfig(...)` whose name nothing reads (its
// `model = get_peft_model(model, config)` commented out: datawhalechina/self-llm MiniCPM/train.py) applies no LoRA.
// Read in a script that trains (a Trainer or a loop of its own), not in a module the script imports, which may make a
// config the script reads. Pure.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import type { PythonFile } from './file';
import { assignedName, span } from './syntax';

/** The facts of each LoraConfig call whose value nothing reads dropped, said at the call. */
export function dropUnusedConfigs(file: PythonFile, calls: readonly SyntaxNode[]): void {
  // A script that makes its trainer (or calls .train() on one): not a snippet that builds configs for another file.
  const trains = calls.some((c) => /(^|\.)(\w*Trainer|train)$/.test(file.calleeName(c) ?? ''));
  if (!trains) return;
  for (const c of calls) {
    if (file.calleeName(c)?.split('.').pop() !== 'LoraConfig' || !unusedConfig(file, c)) continue;
    file.facts = file.facts.filter((f) => f.keySpan.start < c.from || f.keySpan.end > c.to);
  }
}

/** Whether the call's value is bound to a name that no code of the script reads; said at the call when it is. */
function unusedConfig(file: PythonFile, call: SyntaxNode): boolean {
  if (file.imported) return false;
  const name = assignedName(call, file.text);
  const target = call.parent?.firstChild;
  if (name === undefined || !target) return false;
  let read = false;
  file.root.cursor().iterate((n) => {
    if (read) return false;
    if (n.name === 'VariableName' && n.from !== target.from && file.text.slice(n.from, n.to) === name) read = true;
    return undefined;
  });
  if (read) return false;
  const callee = file.text.slice(call.firstChild!.from, call.firstChild!.to);
  file.problem(
    'no-effect',
    'info',
    msg('{0} is made as {1}, which nothing in the script reads: no adapter is applied with it', `${callee}(...)`, name),
    span(call.firstChild!),
    callee,
  );
  return true;
}
