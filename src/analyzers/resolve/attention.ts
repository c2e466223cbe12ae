// Which kernel an attention 'flash' names. The analyzers read every kernel that keeps no s x s matrix as 'flash'; the
// kernel matters where transformers' flash-attn path differs from the others (it unpads a padded batch:
// core/terms/activations/stage.ts flashUnpad; it needs an Ampere-class GPU: core/estimate/checks.ts).
import type { TrainingSetup } from '../../core';
import { fileProv, type ResolveContext } from './context';

/** The kernel a file's attention setting names: its value (attn_implementation) or its key (Axolotl's flags). */
export function attentionKernelOf(rawKey: string, rawValue: string): TrainingSetup['attention_kernel'] {
  const s = `${rawKey} ${rawValue}`.toLowerCase();
  if (/flex/.test(s)) return 'flex';
  if (/xformers/.test(s)) return 'xformers';
  if (/sage/.test(s)) return 'sage';
  return undefined;
}

/** attention_kernel from the fact that decided attention, when it is 'flash' and names flex, xformers or sage. */
export function resolveAttentionKernel(ctx: ResolveContext): void {
  const w = ctx.decided.attention;
  if (ctx.setup.attention !== 'flash' || ctx.setup.attention_kernel !== undefined || !w) return;
  const kernel = attentionKernelOf(w.fact.rawKey, w.fact.rawValue);
  if (!kernel) return;
  ctx.setup.attention_kernel = kernel;
  ctx.prov.attention_kernel = fileProv(w);
}
