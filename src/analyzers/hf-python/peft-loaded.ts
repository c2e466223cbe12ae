// A LoRA adapter a script loads from a folder rather than makes (`PeftModel.from_pretrained(base, "out/sft-lora",
// is_trainable=True)`): trained on when it is loaded trainable, or when the script turns its LoRA weights' gradients
// back on (`if "lora" in name: param.requires_grad = True`); PEFT loads it frozen otherwise (peft/peft_model.py
// PeftModel.from_pretrained: `is_trainable=False` puts the adapter in inference mode). Its rank and targets are the
// ones saved beside it (adapter_config.json), which the files do not show. Pure.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import type { PythonFile } from './file';
import { branchTaken, conditionOf } from './branches';
import { PEFT_CONFIG } from './lora-branches';
import { span } from './syntax';

/** `for name, p in model.named_parameters(): if "lora" in name: p.requires_grad = True` (or requires_grad_(True)). */
const LORA_UNFROZEN =
  /["']lora(?:_[AB])?["']\s+in\s+[\w.]+(?:\.lower\(\))?[\s\S]{0,160}?requires_grad(?:\s*=\s*True|_\(\s*(?:True)?\s*\))/;

/**
 * `PeftModel.from_pretrained(...)`: LoRA training where the adapter is loaded trainable or made so; else nothing. On a
 * branch the script's options decide against, where the script makes its adapter on another that may run
 * (MedicalGPT's `if script_args.peft_path is not None:` load, else a LoraConfig), the config's; on one they leave
 * open, LoRA only where it runs.
 */
export function loadedAdapter(file: PythonFile, c: SyntaxNode): void {
  const taken = branchTaken(file, c);
  if (taken === false && madeElsewhere(file)) return;
  const cond = taken === undefined ? conditionOf(file, c) : undefined;
  const a = file.args(c);
  const flag = a.entries.find((e) => e.rawKey === 'is_trainable');
  const v = flag?.valueNode ? file.evalNode(flag.valueNode, 0) : undefined;
  const trainable = v?.k === 'lit' && v.v === true;
  const unfrozen = !trainable && LORA_UNFROZEN.test(file.text);
  if (!trainable && !unfrozen) return;
  file.tools.add('peft');
  const at = flag && trainable ? flag : undefined;
  const callee = c.firstChild!;
  file.facts.push({
    key: 'method',
    rawKey: at ? 'is_trainable' : 'PeftModel.from_pretrained',
    value: cond ? { unknown: `the adapter is loaded only when ${cond}` } : 'lora',
    rawValue: at ? file.text.slice(at.valueSpan.start, at.valueSpan.end) : 'PeftModel.from_pretrained(...)',
    keySpan: at ? at.keySpan : span(callee),
    valueSpan: at ? at.valueSpan : span(callee),
    tool: 'peft',
  });
  file.problem(
    'not-static',
    'info',
    msg(
      "{0}: the adapter's rank and targets are those saved with it (adapter_config.json), not in these files; " +
        "every linear layer of the blocks at PEFT's default rank is estimated",
      'PeftModel.from_pretrained',
    ),
    span(callee),
    'PeftModel.from_pretrained',
  );
}

/** Whether the script builds a PEFT config on a branch not known to be skipped. */
function madeElsewhere(file: PythonFile): boolean {
  return file.calls.some((d) => PEFT_CONFIG.test(file.calleeName(d) ?? '') && branchTaken(file, d) !== false);
}
