// A model class of the script whose forward computes its loss with a fused linear cross-entropy, from the hidden states
// and the head's weight, chunk by chunk: the full logits are never made. mesolitica/malaya's train.py subclasses
// Qwen2ForCausalLM and returns `ChunkedCE.apply(x_, m, ...)` (its chunk_loss_lora package); small-ablation's
// openai-oss-sft-lora.py calls Liger's LigerFusedLinearCrossEntropyLoss in its forward; cut-cross-entropy's
// `linear_cross_entropy(embeddings, classifier, labels)` is the same. Read as the 'fused' loss, said at the call.
// Pure: it reads the syntax tree.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { span } from './syntax';

/** The fused linear cross-entropy kernels a forward calls (Liger's, cut-cross-entropy's, chunked ones by name). */
const FUSED_LINEAR_CE =
  /^(?:linear_cross_entropy|Liger\w*FusedLinearCrossEntropy\w*|\w*[Ff]used[Ll]inear[Cc]ross[Ee]ntropy\w*|ChunkedCE|fused_linear_cross_entropy)$/;

/** The loss of a forward of the script's own model class, where it is a fused linear cross-entropy. */
export function ownFusedLoss(file: PythonFile, calls: readonly SyntaxNode[]): void {
  if (file.facts.some((f) => f.key === 'loss')) return;
  for (const c of calls) {
    const parts = file.calleeName(c)?.split('.') ?? [];
    const name = parts[parts.length - 1] === 'apply' ? parts[parts.length - 2] : parts[parts.length - 1];
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
