// Term: FSDP1's root unit assembles its flat gradient at the end of the backward.
//   An FSDP1 unit's original parameters are views of its unsharded FlatParameter (torch.distributed.fsdp
//   _flat_param.py _use_unsharded_views: flat_param.split(numels) then .view(shape)), so autograd's
//   SplitWithSizesBackward makes the flat gradient, one unsharded-unit-sized tensor, from the views' gradients once
//   the last of them is produced, and frees them after. The root unit (embeddings, final norm and output head: what
//   the per-layer wrapping leaves over) gets its head's gradient first, at the loss, and its embedding's last, after
//   the first layer: the head's gradient waits through the whole backward, and the embedding's backward meets it, the
//   root's unsharded parameters and the flat gradient being made:
//     root trainable params x (per-view gradients + flat gradient) x unsharded dtype.
//   Every layer unit's sharded gradient is there; the root's own is reduce-scattered after.
//   GPU truth (H100, 2026-11-25): llama-3.1-8b full fine-tune, FSDP1 in Accelerate's plugin layout at 8 ranks,
//   max_memory_allocated 21,906.4 MB = shards 15,602.3 + root 2,101.4 + head and embedding gradients 2 x 1,050.7 +
//   the flat gradient 2,101.4. FSDP2 keeps each parameter a DTensor of its own and has no such concatenation.
// Docs: docs/estimate/parallelism.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';

/** The trainable parameters of this stage's FSDP1 root unit (0 where there is none, or nothing in it trains). */
export function fsdp1RootTrainableParams(ctx: EstimateContext, st: StageContext): number {
  const setup = ctx.setup;
  const inv = ctx.model.inventory;
  if (!ctx.sharding.rootUnit || setup.fsdp_version === 2 || setup.method !== 'full') return 0;
  const head = st.last && inv.headTrainable ? inv.head : 0;
  return ((st.first ? inv.embedding : 0) + head) / ctx.layout.tensorParallel;
}

/**
 * The root unit's gradients at the end of an FSDP1 backward, beside its unsharded parameters: the views' gradients and
 * the flat gradient made from them (empty where the root trains nothing).
 */
export function fsdp1RootGradient(ctx: EstimateContext, st: StageContext): Component[] {
  const params = fsdp1RootTrainableParams(ctx, st);
  if (params <= 0) return [];
  const half = ctx.dtypes.half;
  const perView = comp(
    ctx,
    'backward-working',
    "FSDP1 root unit: its parameters' gradients (output head's since the loss, embeddings')",
    params * half,
    () => `${formatCount(params)} params x ${half} B: the gradients of the root's views, kept until the last one`,
    () => ({ params: Math.round(params) }),
  );
  const flat = comp(
    ctx,
    'gathered-grads',
    "FSDP1 root unit's flat gradient (made from its views' gradients)",
    params * half,
    () => `${formatCount(params)} params x ${half} B: autograd's concatenation into the unsharded flat gradient`,
    () => ({ params: Math.round(params) }),
  );
  return [perView, flat];
}
