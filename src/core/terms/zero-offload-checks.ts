// Term: what DeepSpeed's ZeRO-Offload allocates on the GPU while it hands a reduced gradient to the host. With the
// optimizer offloaded, ZeRO-2 and ZeRO-3 copy each gradient partition into host buffers as it is reduced and keep none
// on the GPU (stage3.py partition_grads into its flat host buffer; stage_1_and_2.py copy_grads_in_partition, which
// clears the gradient), but at the accumulation boundary they first check it on the GPU:
// - ZeRO-3 takes the partition back from the host buffer (`grad_buffer.to(grad_partition.device)`, in the accumulation
//   dtype) and reads its norm from an fp64 copy (`_constant_buffered_norm2`: `part.data.double()`, 250M elements at a
//   time), then copies it to the fp32 host gradient through an fp32 copy: (accumulation bytes + 8) B per element of a
//   partition up to 250M elements.
// - ZeRO-2 reads the norm of its part from an fp64 copy (8 B an element of the part), then checks the whole gradient
//   for inf / nan (`_has_inf_or_nan`: an fp32 copy, isnan, isinf and their or, and that as fp32 again: 11 B an element).
// One gradient at a time; the largest trained tensor of a layer sets it through the layers' backward, the output head's
// where it is reduced, when the final norm's gradient arrives, beside every activation. ZeRO-1 keeps every gradient to
// its epilogue at the step and checks them there as ZeRO-2 does. CPU truth (DeepSpeed 0.19.6,
// FINDINGS §113): zero/llama-wide-small-vocab-w1-z3-full-offload-opt holds 2,818,048 x (2 + 8) B at its peak, the
// ZeRO-2 twin 2,818,048 x 11 B. With the optimizer on NVMe, ZeRO-3 keeps an fp32 copy of each partition of a bucket
// for its swap-out beside these: not counted (not measured). Docs: docs/estimate/gradients.md. Pure arithmetic.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import { largestModuleTensor } from '../estimate/inventory';
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
  return largestModuleTensor(ctx.model.arch, ctx.model.modules);
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

/** Elements of ZeRO-3's norm pieces: `_constant_buffered_norm2` copies a partition to fp64 250M elements at a time. */
export const ZERO3_NORM_PIECE = 250_000_000;

/**
 * Bytes of the boundary checks of one gradient of `elements` (whole, unsharded) on this stage's GPU. ZeRO-3: the
 * partition in the accumulation dtype, beside the larger of its fp64 norm piece and the fp32 copy made for the host
 * gradient after it. ZeRO-1/2: the whole gradient's inf / nan check, which outweighs the part's fp64 and fp32 copies.
 */
export function boundaryCheckBytes(ctx: EstimateContext, elements: number): number {
  const tp = ctx.layout.tensorParallel;
  if (ctx.sharding.zeroStage !== 3) return (elements / tp) * 11;
  const part = elements / tp / ctx.sharding.shardGrads;
  return part * ctx.dtypes.gradBytes + Math.max(Math.min(part, ZERO3_NORM_PIECE) * 8, part * 4);
}

/** The boundary checks of one gradient as a component, or none where the gradients do not go to the host. */
export function boundaryChecks(ctx: EstimateContext, st: StageContext, elements: number, what: string): Component[] {
  if (!gradientsOnHost(ctx) || st.trainableHere <= 0 || !(elements > 0)) return [];
  const bytes = boundaryCheckBytes(ctx, elements);
  return [
    comp(
      ctx,
      'zero-buckets',
      `ZeRO-Offload checks of one gradient on the GPU (${what})`,
      bytes,
      () => checkFormula(ctx, elements),
      () => ({ elements: Math.round(elements), zeroStage: ctx.sharding.zeroStage }),
    ),
  ];
}

/** The checks of a layer's largest trained tensor, made in each layer's backward; none where gradients stay on the GPU. */
export function layerChecks(ctx: EstimateContext, st: StageContext): Component[] {
  if (!gradientsOnHost(ctx)) return [];
  return boundaryChecks(ctx, st, largestLayerTrainedTensor(ctx), "a layer's largest");
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

/**
 * ZeRO-1 with the optimizer offloaded keeps every gradient through the backward and reduces them in its epilogue, at
 * the step, where each is checked as ZeRO-2's are (11 B an element of the whole gradient) before it goes to the host:
 * the largest trained tensor beside all the gradients. CPU truth: zero/llama-wide-vocab8k-w4-z1-full-offload-opt-last-rank
 * peaks there, the 8,388,608-element head's 33,554,432 + 3 x 8,388,608 + 33,554,432 B beside every gradient. Undefined
 * elsewhere.
 */
export function zero1EpilogueChecks(
  ctx: EstimateContext,
): { label: string; bytes: number; formula: () => string } | undefined {
  const { fsdp, zeroStage, offloadOptimizer } = ctx.sharding;
  if (fsdp || zeroStage !== 1 || !offloadOptimizer || ctx.setup.optimizer === 'none') return undefined;
  const largest = Math.max(ctx.model.inventory.largestTrainableTensor, largestLayerTrainedTensor(ctx));
  if (!(largest > 0)) return undefined;
  return {
    label: "ZeRO-Offload checks of one gradient on the GPU (ZeRO-1's epilogue: the largest, beside every gradient)",
    bytes: boundaryCheckBytes(ctx, largest),
    formula: () => checkFormula(ctx, largest),
  };
}

/** The checks' formula in the terms of boundaryCheckBytes. */
function checkFormula(ctx: EstimateContext, elements: number): string {
  const tp = ctx.layout.tensorParallel;
  const tpNote = tp > 1 ? ` / TP ${tp}` : '';
  if (ctx.sharding.zeroStage !== 3)
    return (
      `${formatCount(elements)}${tpNote} x 11 B (fp32 copy, isnan, isinf, their or, and that in fp32: the inf / nan ` +
      'check of the whole gradient before it goes to the host)'
    );
  const part = elements / tp / ctx.sharding.shardGrads;
  const piece = Math.min(part, ZERO3_NORM_PIECE);
  const second =
    piece * 8 >= part * 4
      ? `${formatCount(piece)} x 8 B (its norm's fp64 copy${part > ZERO3_NORM_PIECE ? ', one 250M-element piece' : ''})`
      : `${formatCount(part)} x 4 B (the fp32 copy for the host gradient, larger than a 250M-element fp64 norm piece)`;
  return (
    `${formatCount(part)} x ${ctx.dtypes.gradBytes} B (the partition, ${formatCount(elements)}${tpNote} / ` +
    `${ctx.sharding.shardGrads}, taken back from the host buffer) + ${second}: DeepSpeed's ZeRO-3 with the optimizer offloaded`
  );
}
