// mmengine's lazy configs (XTuner's, MMEngine-based trainers'): `dict(type=AutoModelForCausalLM.from_pretrained,
// pretrained_model_name_or_path=..., quantization_config=dict(type=BitsAndBytesConfig, ...))` is the call it describes,
// which the runner makes with the other keys as its arguments. Such a dict is read as that call. Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';

/** What a file gives: the text and its dotted names. */
interface Names {
  readonly text: string;
  dotted(node: SyntaxNode): string | undefined;
}

/**
 * The callable a `dict(type=<name>, ...)` stands for (`type` bound to a name or an attribute, not a string:
 * `rope_scaling=dict(type="linear")` is data), or undefined.
 */
export function lazyCallee(file: Names, call: SyntaxNode): string | undefined {
  const list = call.getChild('ArgList');
  for (let ch = list?.firstChild; ch; ch = ch.nextSibling) {
    if (ch.name !== 'VariableName' || file.text.slice(ch.from, ch.to) !== 'type') continue;
    const op = ch.nextSibling;
    const value = op?.name === 'AssignOp' ? op.nextSibling : null;
    return value ? file.dotted(value) : undefined;
  }
  return undefined;
}
