// transformers' GPTQConfig / AwqConfig in a script (`GPTQConfig(bits=4, disable_exllama=True)` handed to
// from_pretrained as quantization_config): the model's linear layers are that many-bit GPTQ / AWQ weights, as a
// pre-quantized checkpoint's config.json says (checkpoint-quantization.ts). Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import type { PythonFile } from './file';
import { branchTaken, conditionOf, sideTaken } from './branches';

/** The bit width and the method of a GPTQConfig / AwqConfig call, at its `bits` argument. */
export function weightQuantizationCall(file: PythonFile, call: SyntaxNode, method: 'gptq' | 'awq'): void {
  const args = file.args(call);
  const bits = args.entries.find((e) => e.rawKey === 'bits') ?? args.entries.find((e) => e.rawKey === 'w_bit');
  // On a branch the run does not take (`GPTQConfig(...) if lora_args.q_lora else None` with q_lora False): nothing.
  const side = sideTaken(file, call);
  if (!bits || side === false || branchTaken(file, call) === false) return;
  const cond = side === undefined ? conditionOf(file, call) : undefined;
  if (cond !== undefined) {
    file.push('quantBits', bits, { unknown: `the quantization config is used only when ${cond}` }, 'hf-trainer');
    return;
  }
  const v = file.valueOf(bits);
  if (v.k !== 'lit') {
    file.push('quantBits', bits, { unknown: `${bits.rawKey} is ${file.describe(v)}` }, 'hf-trainer', v);
    return;
  }
  if (v.v !== 4 && v.v !== 8) {
    const text = file.text.slice(bits.valueSpan.start, bits.valueSpan.end);
    const said = msg('{0}: {1}-bit weights are not modeled (4 and 8 are)', bits.rawKey, text);
    file.problem('not-modeled', 'warning', said, bits.valueSpan, bits.rawKey);
    return;
  }
  file.push('quantBits', bits, v.v, 'hf-trainer', v);
  file.push('quantType', bits, method, 'hf-trainer');
}
