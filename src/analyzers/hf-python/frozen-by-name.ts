// A loop over the model's parameters that freezes them by name: `for name, param in model.named_parameters():` with
// `param.requires_grad = False` for all but some (nkkbr/241121_qwerty's train.py trains only its `mm_projector`, as
// LLaVA's first stage does). Which weights train is then the script's choice, which the estimate does not read: it
// counts every weight as trained (gradients and optimizer state too), said at the assignment. A run that applies LoRA
// freezes the base weights anyway, and a loop over a part of the model (`model.visual.parameters()`) freezes that part
// only: neither is said. Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import { branchTaken } from './branches';
import type { PythonFile } from './file';
import { span } from './syntax';

/** `for [name,] param in <model>.named_parameters():` or `.parameters()`, the receiver and the parameter's name. */
const LOOP =
  /^for\s+(?:\w+\s*,\s*)?(\w+)\s+in\s+((?:self\.)?(?:model|base_model)(?:\.model)?)\.(named_)?parameters\(\)\s*:?\s*$/;

/** What a freezing assignment writes, spaces aside. */
const FREEZES = /\.requires_grad\s*=\s*False\b/;

/** A warning at each `param.requires_grad = False` of such a loop, unless the run applies LoRA or the loop never runs. */
export function frozenByName(file: PythonFile): void {
  // The walk looks for `<param>.requires_grad = False`: a text without it has none (most scripts), and is not walked.
  if (file.imported || !FREEZES.test(file.text) || appliesLora(file)) return;
  file.root.cursor().iterate((n) => {
    if (n.name !== 'ForStatement') return undefined;
    const body = n.node.getChild('Body');
    const header = body ? file.text.slice(n.from, body.from) : '';
    const m = LOOP.exec(header);
    if (!m || !body || branchTaken(file, n.node) === false) return undefined;
    const freeze = freezingAssignment(file, body, m[1]);
    if (freeze)
      file.problem(
        'not-modeled',
        'warning',
        msg(
          'the loop over {0}.{1}() sets requires_grad = False on the weights it chooses: which weights train is not ' +
            'read, every weight is estimated as trained (gradients and optimizer state too)',
          m[2],
          m[3] ? 'named_parameters' : 'parameters',
        ),
        span(freeze),
        'requires_grad',
      );
    return false;
  });
}

/** The first `<param>.requires_grad = False` in the loop's body, its target. */
function freezingAssignment(file: PythonFile, body: SyntaxNode, param: string): SyntaxNode | undefined {
  let found: SyntaxNode | undefined;
  body.cursor().iterate((n) => {
    if (found) return false;
    if (n.name !== 'AssignStatement') return undefined;
    const target = n.node.firstChild;
    const value = n.node.lastChild;
    if (target?.name !== 'MemberExpression' || value?.name !== 'Boolean') return undefined;
    const text = file.text.slice(target.from, target.to).replace(/\s+/g, '');
    if (text === `${param}.requires_grad` && file.text.slice(value.from, value.to) === 'False') found = target;
    return undefined;
  });
  return found;
}

/**
 * Whether the file's facts apply an adapter (LoRA, QLoRA, IA3): PEFT freezes the base weights itself. A rank alone
 * (an arguments dataclass's `lora_r` field that no LoraConfig reads: NJUDeepEngine/meteora loads its adapters itself,
 * then turns on `lora_` and `moe_gate` weights by name) applies none.
 */
function appliesLora(file: PythonFile): boolean {
  return file.facts.some((f) => f.key === 'method' && f.value !== 'full');
}
