// FastChat's and LLaVA's patches of LLaMA's attention, called before the model is built (fastchat/train/train_mem.py,
// llava/train/train_mem.py): `replace_llama_attn_with_flash_attn()` (llama_flash_attn_monkey_patch.py,
// llama2_flash_attn_monkey_patch.py) sets LlamaAttention.forward to flash-attn's varlen kernel over the unpadded
// tokens, `replace_llama_attn_with_xformers_attn()` to xformers' memory_efficient_attention: no s x s scores either way.
// Read as the run's attention at the call (the xformers one names its kernel). Pure.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import { callOnBranch } from './branches';
import type { Entry, PythonFile } from './file';

const PATCH = /^replace_llama_attn_with_(?:flash_attn|xformers_attn)$/;

/** Whether a call's last name is one of the LLaMA attention patches. */
export const isAttentionPatch = (last: string): boolean => PATCH.test(last);

/** The attention a patch gives the run: 'flash', at the call; on a branch not known statically, as it runs. */
export function attentionPatch(file: PythonFile, call: SyntaxNode, tool: Tool): void {
  const branch = callOnBranch(file, call);
  if (!branch) return;
  const { at, name, cond } = branch;
  const e: Entry = { rawKey: name, keySpan: at, valueNode: call.firstChild, valueSpan: at };
  file.push('attention', e, cond ? { unknown: `${name}(...) runs only when ${cond}` } : 'flash', tool);
}
