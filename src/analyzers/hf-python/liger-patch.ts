// Liger's patch functions (liger_kernel/transformers/monkey_patch.py): `apply_liger_kernel_to_gemma2()` sets the model
// class's forward to Liger's, whose loss is its fused linear cross-entropy (fused_linear_cross_entropy=True by default,
// cross_entropy False): the logits are never made, for a model built before the call too (the forward is the class's).
// Its RMSNorm, RoPE and SwiGLU / GeGLU kernels replace the modeling module's classes, which reach the model only when
// it is built after the call or handed to it (`model=`): then the blocks run Liger's kernels too.
// AutoLigerKernelForCausalLM.from_pretrained applies the patch for the model's type, then loads it. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import { branchTaken, conditionOf } from './branches';
import type { Entry, PythonFile } from './file';
import { clip, isModelClass, span } from './syntax';

/** Whether a call's last name is one of Liger's patch functions, or its model class's load. */
export function isLigerPatch(last: string, parts: readonly string[]): boolean {
  return (
    /^apply_liger_kernel_to_\w+$/.test(last) ||
    (last === 'from_pretrained' && parts.at(-2) === 'AutoLigerKernelForCausalLM')
  );
}

/** The loss (fused) and, where they reach the model, the kernels a Liger patch gives the run; on a branch, as it runs. */
export function ligerPatch(file: PythonFile, call: SyntaxNode, tool: Tool): void {
  // Read alone, a test on the script's options is decided again with the launch line's (launch-args.ts
  // withBranchesDecided): a branch its defaults skip holds the patch as a condition.
  const taken = branchTaken(file, call);
  if (taken === false && file.settled) return;
  const at = span(call.firstChild!);
  const name = clip(file.text.slice(at.start, at.end));
  const cond = taken !== true ? conditionOf(file, call) : undefined;
  if (taken === false && cond === undefined) return;
  const e: Entry = { rawKey: name, keySpan: at, valueNode: call.firstChild, valueSpan: at };
  const onBranch = <T extends string>(v: T) => (cond ? { unknown: `${name}(...) runs only when ${cond}` } : v);
  const args = file.args(call);
  const fused = args.entries.find((x) => x.rawKey === 'fused_linear_cross_entropy');
  const given = fused === undefined ? undefined : file.valueOf(fused);
  const off = given?.k === 'lit' && given.v === false;
  if (!off) file.push('loss', e, onBranch('fused'), tool);
  if (handsModel(file, call)) file.push('kernels', e, onBranch('liger'), tool);
}

/** Whether the patch reaches the blocks: it loads the model, is handed it, or comes before the script's first load. */
function handsModel(file: PythonFile, call: SyntaxNode): boolean {
  if (file.calleeName(call)?.endsWith('from_pretrained')) return true;
  if (file.args(call).entries.some((x) => x.rawKey === 'model')) return true;
  const load = file.calls.find((c) => {
    const parts = file.calleeName(c)?.split('.') ?? [];
    return parts.at(-1) === 'from_pretrained' && isModelClass(parts.at(-2) ?? '');
  });
  return load === undefined || call.from < load.from;
}
