// `model.transformer.gradient_checkpointing = True`: the model's own switch, set by hand. MOSS's and ChatGLM's remote
// code, and transformers' models before 4.35, test `self.gradient_checkpointing and self.training` in the forward and run
// each layer under `torch.utils.checkpoint.checkpoint(...)`, whose use_reentrant defaults to True (MOSS's
// modeling_moss.py MossModel.forward; transformers 4.34 LlamaModel.forward). Read like gradient_checkpointing_enable():
// every layer checkpointed whatever the training arguments say (Trainer only ever turns it on), reentrant. On a
// branch: on when the branch is known to run, nothing when it is known not to, unknown otherwise. Pure; never throws.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import { callOnBranch } from './branches';
import { overLauncher } from './calls';
import type { Entry, PythonFile } from './file';
import { clip } from './syntax';

/**
 * The model's switch: a name of the model (`model`, `base_model`, `policy_model`) and the submodules that hold the
 * layers (`.transformer`, `.model`, `.base_model`, `.gpt_neox`, `.language_model`), ending in `.gradient_checkpointing`.
 * `self.` and the training arguments (`args.gradient_checkpointing`, read as an option) are not it.
 */
const SWITCH = /^(?:\w*model)(?:\.(?:transformer|model|base_model|gpt_neox|language_model))*\.gradient_checkpointing$/;

/** Each `<model>.gradient_checkpointing = True` of the script, read as checkpointing every layer (reentrant). */
export function checkpointingAttribute(file: PythonFile, tool: Tool): void {
  if (!file.text.includes('.gradient_checkpointing')) return;
  file.root.cursor().iterate((n) => {
    if (n.name !== 'AssignStatement') return undefined;
    const target = n.node.firstChild;
    const value = n.node.lastChild;
    if (target?.name !== 'MemberExpression' || target.nextSibling?.name !== 'AssignOp' || value?.name !== 'Boolean')
      return false;
    const name = file.text.slice(target.from, target.to).replace(/\s+/g, '');
    if (SWITCH.test(name) && file.text.slice(value.from, value.to) === 'True') switchedOn(file, n.node, tool);
    return false;
  });
}

function switchedOn(file: PythonFile, statement: SyntaxNode, tool: Tool): void {
  const branch = callOnBranch(file, statement);
  if (!branch) return;
  const { at, cond } = branch;
  const name = clip(branch.name);
  const e: Entry = { rawKey: 'gradient_checkpointing', keySpan: at, valueNode: statement.lastChild, valueSpan: at };
  file.push('gradientCheckpointing', e, cond ? { unknown: `${name} = True runs only when ${cond}` } : 'full', tool);
  if (cond) return;
  overLauncher(file);
  file.facts.push({
    key: 'checkpointReentrant',
    rawKey: 'gradient_checkpointing',
    value: true,
    rawValue: `${name} = True: torch.utils.checkpoint's default use_reentrant=True`,
    keySpan: at,
    valueSpan: at,
    tool,
    origin: 'call-default',
  });
}
