// Term: what DeepSpeed's ZeRO-Offload allocates on the GPU while it hands a reduced gradient to the host. With the
// optimizer offloaded, ZeRO-2 and ZeRO-3 copy each gradient partition into host buffers as it is reduced and keep none
// on the GPU (stage3.py partition_grads into its flat host buffer; stage_1_and_2.py copy_grads_in_partition, which
// clears the gradient), but at the accumulation boundary they first check it on the GPU:
// - ZeRO-3 takes the partition back from the host buffer (`grad_buffer.to(grad_partition.device)`, in the accumulation
//   dtype) and reads its norm from an fp64 copy (`_constant_buffered_norm2`: `part.data.double()`), then copies it to
//   the fp32 host gradient: (accumulation bytes + 8) B per element of the partition at once.
// - ZeRO-2 reads the norm of its part from an fp64 copy (8 B an element of the part), then checks the whole gradient
//   for inf / nan (`_has_inf_or_nan`: an fp32 copy, isnan, isinf and their or, and that as fp32 again: 11 B an element).
// One gradient at a time; the largest trained tensor of a layer sets it through the layers' backward, the output head's
// where it is reduced, when the final norm's gradient arrives, beside every activation. CPU truth (DeepSpeed 0.19.6,
// FINDINGS §113): zero/llama-wide-small-vocab-w1-z3-full-offload-opt holds 2,818,048 x (2 + 8) B at its peak, the
// ZeRO-2 twin 2,818,048 x 11 B. With the optimizer on NVMe, ZeRO-3 keeps an fp32 copy of each partition of a bucket
// for its swap-out beside these: not counted (not measured). Docs: docs/estimate/gradients.md. Pure arithmetic.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';

/** DeepSpeed ZeRO-2 / ZeRO-3 with the optimizer offloaded: the reduced gradients live on the host. */
export const gradientsOnHost = (ctx: EstimateContext): boolean =>
  !ctx.sharding.fsdp &&
  (ctx.sharding.zeroStage === 2 || ctx.sharding.zeroStage === 3) &&
  ctx.sharding.offloadOptimizer &&
  ctx.setup.optimizer !== 'none';

/** Elements of the largest trained tensor inside a block: a linear weight (an expert stack) or an adapter matrix. */
export function largestLayerTrainedTensor(ctx: EstimateContext): number {
  const { setup } = ctx;
  const inv = ctx.model.inventory;
  if (setup.method !== 'full' && setup.method !== 'freeze')
    return Math.min(inv.largestTrainableTensor, adapterLargest(ctx));
  const layers = ctx.model.arch.layers;
  let largest = 0;
  for (const m of ctx.model.modules) {
    const perLayer = m.parameter && layers > 0 ? m.count / layers : 1;
    largest = Math.max(largest, m.inFeatures * m.outFeatures * perLayer);
  }
  return largest;
}

/** The largest adapter matrix (LoRA's A or B, r x the wider side); the inventory's largest tensor otherwise. */
function adapterLargest(ctx: EstimateContext): number {
  const inv = ctx.model.inventory;
  let largest = 0;
  for (const [rows, cols] of inv.trainableMatrices) {
    if (rows === ctx.model.arch.vocab && cols === ctx.model.arch.hidden) continue; // modules_to_save head / embedding
    largest = Math.max(largest, rows * cols);
  }
  return largest > 0 ? largest : inv.largestTrainableTensor;
}

/** Bytes of the boundary checks of one gradient of `elements` (whole, unsharded) on this stage's GPU. */
export function boundaryCheckBytes(ctx: EstimateContext, elements: number): number {
  const tp = ctx.layout.tensorParallel;
  if (ctx.sharding.zeroStage === 3) return (elements / tp / ctx.sharding.shardGrads) * (ctx.dtypes.gradBytes + 8);
  return (elements / tp) * 11; // the whole gradient's check outweighs the part's fp64 copy (8 B a part's element)
}

/** The boundary checks of one gradient as a component, or none where the gradients do not go to the host. */
export function boundaryChecks(ctx: EstimateContext, st: StageContext, elements: number, what: string): Component[] {
  if (!gradientsOnHost(ctx) || st.trainableHere <= 0 || !(elements > 0)) return [];
  const bytes = boundaryCheckBytes(ctx, elements);
  const tp = ctx.layout.tensorParallel;
  const tpNote = tp > 1 ? ` / TP ${tp}` : '';
  return [
    comp(
      ctx,
      'zero-buckets',
      `ZeRO-Offload checks of one gradient on the GPU (${what})`,
      bytes,
      () =>
        ctx.sharding.zeroStage === 3
          ? `${formatCount(elements)}${tpNote} / ${ctx.sharding.shardGrads} (the partition) x (${ctx.dtypes.gradBytes} B ` +
            "taken back from the host buffer + 8 B fp64 copy for its norm): DeepSpeed's ZeRO-3 with the optimizer offloaded"
          : `${formatCount(elements)}${tpNote} x 11 B (fp32 copy, isnan, isinf, their or, and that in fp32: ZeRO-2's ` +
            'inf / nan check of the whole gradient before it goes to the host)',
      () => ({ elements: Math.round(elements), zeroStage: ctx.sharding.zeroStage }),
    ),
  ];
}

/**
 * Elements of the output head's gradient where ZeRO-Offload checks it near the backward's start (the last stage's own,
 * untied head that trains); 0 elsewhere. A tied head's gradient is complete only after the embedding's backward.
 */
export function headCheckedElements(ctx: EstimateContext, st: StageContext): number {
  const a = ctx.model.arch;
  if (!gradientsOnHost(ctx) || !st.last || !ctx.model.lmHead || a.tied || !ctx.model.inventory.headTrainable) return 0;
  return a.vocab * a.hidden;
}

/**
 * The head's point: its whole gradient, made by its matmul's backward, waits in the bucket until the final norm's
 * arrives, and is reduced and checked then, beside every activation (CPU truth
 * zero/llama-wide-vocab8k-w1-z3-full-offload-opt: 16,777,216 B of gradient and 16,777,216 + 67,108,864 B of checks at
 * its peak). Empty where no head is checked.
 */
export function headCheckComponents(ctx: EstimateContext, st: StageContext): Component[] {
  const elements = headCheckedElements(ctx, st);
  if (elements <= 0) return [];
  const tp = ctx.layout.tensorParallel;
  const gradient = comp(
    ctx,
    'gradients',
    "Gradients (the output head's, whole, before its reduction)",
    (elements / tp) * ctx.dtypes.gradBytes,
    () => `V x h${tp > 1 ? ` / TP ${tp}` : ''} x ${ctx.dtypes.gradBytes} B`,
    () => ({ elements }),
  );
  return [gradient, ...boundaryChecks(ctx, st, elements, "the output head's")];
}
