// What the script's own model code does to the run: a model class whose forward computes its loss with a fused linear
// cross-entropy (ownFusedLoss), and module classes of the script set into the model in place of its layers
// (ownAdapterModules). Pure: it reads the syntax tree.
//
// A fused linear cross-entropy takes the hidden states and the head's weight chunk by chunk: the full logits are never
// made. mesolitica/malaya's train.py subclasses Qwen2ForCausalLM and returns `ChunkedCE.apply(x_, m, ...)` (its
// chunk_loss_lora package); small-ablation's openai-oss-sft-lora.py calls Liger's LigerFusedLinearCrossEntropyLoss in
// its forward; cut-cross-entropy's `linear_cross_entropy(embeddings, classifier, labels)` is the same. Read as the
// 'fused' loss, said at the call.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { msg } from '../facts';
import { span } from './syntax';

/** The fused linear cross-entropy kernels a forward calls (Liger's, cut-cross-entropy's, chunked ones by name). */
const FUSED_LINEAR_CE =
  /^(?:linear_cross_entropy|Liger\w*FusedLinearCrossEntropy\w*|\w*[Ff]used[Ll]inear[Cc]ross[Ee]ntropy\w*|ChunkedCE|fused_linear_cross_entropy)$/;

/** What the script's own model code says: the loss its model class computes, and the modules it sets into the model. */
export function ownModelCode(file: PythonFile, calls: readonly SyntaxNode[]): void {
  ownFusedLoss(file, calls);
  ownAdapterModules(file, calls);
}

/** The loss of a forward of the script's own model class, where it is a fused linear cross-entropy. */
function ownFusedLoss(file: PythonFile, calls: readonly SyntaxNode[]): void {
  if (file.facts.some((f) => f.key === 'loss')) return;
  const held = fusedAttributes(file);
  for (const c of calls) {
    const parts = file.calleeName(c)?.split('.') ?? [];
    const own = parts.length === 2 && parts[0] === 'self' ? held.get(parts[1]) : undefined;
    const name = own ?? (parts[parts.length - 1] === 'apply' ? parts[parts.length - 2] : parts[parts.length - 1]);
    if (!name || !FUSED_LINEAR_CE.test(name) || !inModelForward(file, c)) continue;
    const at = span(c.firstChild!);
    const rawValue = `${file.text.slice(at.start, at.end)}(...) in the model's forward`;
    file.facts.push({
      key: 'loss',
      rawKey: name,
      value: 'fused',
      rawValue,
      keySpan: at,
      valueSpan: at,
      tool: 'hf-trainer',
    });
    return;
  }
}

/**
 * The attributes a class of the file sets to a fused linear cross-entropy module and calls later (small-ablation's
 * `self.loss = LigerFusedLinearCrossEntropyLoss(reduction="sum")` in __init__, `self.loss(self.lm_head.weight,
 * embeddings, labels)` in forward): attribute name to the kernel's class.
 */
function fusedAttributes(file: PythonFile): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of file.text.matchAll(/\bself\.(\w+)\s*=\s*(?:[\w.]+\.)?(\w+)\s*\(/g))
    if (FUSED_LINEAR_CE.test(m[2])) out.set(m[1], m[2]);
  return out;
}

/** Whether a call is in the `forward` method of a class of the file that extends another (the model class). */
function inModelForward(file: PythonFile, call: SyntaxNode): boolean {
  for (let p = call.parent; p; p = p.parent) {
    if (p.name !== 'FunctionDefinition') continue;
    const name = p.getChild('VariableName');
    const cls = p.parent?.parent;
    return (
      name !== null &&
      file.text.slice(name.from, name.to) === 'forward' &&
      cls?.name === 'ClassDefinition' &&
      cls.getChild('ArgList') !== null
    );
  }
  return false;
}

/**
 * Module classes of the script set into the model in place of its layers (small-ablation's openai-oss-sft-lora.py:
 * `setattr(module, child_name, LinearLoRA(child, r=...))` and `ExpertLoRA` over gpt-oss's experts, after every weight
 * is frozen): their parameters train, and their forward's tensors are kept, which the estimate does not count; said
 * once per class at its call. Only a class of the file that extends torch's nn.Module counts.
 */
function ownAdapterModules(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const said = new Set<string>();
  for (const c of calls) {
    if (file.calleeName(c) !== 'setattr') continue;
    const set = file.args(c).positional[2];
    const made = set?.name === 'VariableName' ? file.bindingValue(set) : set;
    if (made?.name !== 'CallExpression') continue;
    const cls = file.calleeName(made);
    if (!cls || said.has(cls) || !moduleClassOfFile(file, cls)) continue;
    said.add(cls);
    file.problem(
      'not-modeled',
      'warning',
      msg(
        '{0}: a module class of the script set into the model: its parameters and what its forward keeps are not counted',
        cls,
      ),
      span(made.firstChild!),
      cls,
    );
  }
}

/** Whether the file defines a class of that name that extends torch's nn.Module. */
function moduleClassOfFile(file: PythonFile, name: string): boolean {
  for (let c = file.root.firstChild; c; c = c.nextSibling) {
    if (c.name !== 'ClassDefinition') continue;
    const id = c.getChild('VariableName');
    if (!id || file.text.slice(id.from, id.to) !== name) continue;
    const bases = c.getChild('ArgList');
    return bases !== null && /\b(?:nn\.)?Module\b/.test(file.text.slice(bases.from, bases.to));
  }
  return false;
}
