// The phases of a stage as totals only, for the advice search (estimate/phases.ts builds the same phases with their
// components; a unit test holds both paths equal). Pure.
import type { Component, PhaseEstimate } from '../model';
import type { EstimateContext, StageContext } from './context';
import type { HeldStepOutputs } from '../terms/previous-step';
import { reducedHeadGradient } from '../terms/gradients';
import { optimizerStepPoint } from '../terms/optimizer-step';
import { gatherPoolCapacity, type GatherPoolUnits } from '../terms/zero3-gathered';
import { savesShardsOnGpu, shardClones, unshardedForSave } from '../terms/checkpoint-save';
import type { LossPoint, StageTerms, StreamPoolLedger, StreamPoolPoint } from './phases';
import { heldWhileGenerating } from './other-phases';

/** The note of the backward phase whose peak is the loss's backward (full and lean phases say it alike). */
export const LOSS_BACKWARD_NOTE = 'start of backward: activations + gradients of the logits';

/**
 * The working set at the backward's high point through the last layers. A trained base: with the MLP's weight
 * gradients when they are that layer's own (no FSDP or ZeRO bucket takes them, none kept from an earlier micro-step,
 * no optimizer stepping in the backward). A frozen base without checkpointing on one pipeline stage: the layer whose
 * working set is largest, less what the layers after it saved (LayerActivations.workingBelowReleasedBytes). A layer
 * that ends in a norm after its MLP opens its backward with that norm's, beside all it saved (outputNormWorkingBytes).
 */
export function lastLayerWorkingBytes(ctx: EstimateContext, terms: StageTerms): number {
  return opensWithOutputNorm(ctx, terms)
    ? (terms.activations.layer.outputNormWorkingBytes ?? 0)
    : lastLayerOwnWorkingBytes(ctx, terms);
}

/**
 * Whether the last layer's backward is highest where its output norm opens it: before any of its weight gradients, so
 * FSDP's unsharded gradients of its unit (StageTerms.unitGradients) are not made yet there, while its own working set
 * comes with them (CPU truth accelerate/gemma3-sft-fsdp2-w4-full-amp-ckpt: Gemma 3's post_feedforward_layernorm's
 * PowBackward0 beside no gradient of the layer).
 */
export function opensWithOutputNorm(ctx: EstimateContext, terms: StageTerms): boolean {
  const norm = terms.activations.layer.outputNormWorkingBytes ?? 0;
  return norm > lastLayerOwnWorkingBytes(ctx, terms) + (terms.unitGradients?.bytes ?? 0);
}

/** FSDP's gradients through the last layer's backward: none of its unit's where its output norm opens it. */
export function gradientsAtLastLayer(ctx: EstimateContext, terms: StageTerms): Component[] {
  const unit = terms.unitGradients;
  return unit && opensWithOutputNorm(ctx, terms) ? terms.gatheredGrads.filter((c) => c !== unit) : terms.gatheredGrads;
}

/** The last layer's backward working set at its largest op, its own gradients included where they come first. */
function lastLayerOwnWorkingBytes(ctx: EstimateContext, terms: StageTerms): number {
  const { layer, layerPlan } = terms.activations;
  const setup = ctx.setup;
  if (layerPlan.baseTrainable) {
    const ownGradients =
      !ctx.sharding.fsdp &&
      ctx.sharding.zeroStage === 0 &&
      !setup.optimizer_in_backward &&
      terms.grads.gradsInForward === 0 &&
      terms.gatheredGrads.length === 0;
    return ownGradients
      ? (layer.workingWithMlpGradientsBytes ?? layer.backwardWorkingBytes)
      : layer.backwardWorkingBytes;
  }
  const wholeStack = setup.gradient_checkpointing === 'none' && ctx.layout.pipelineParallel === 1;
  return wholeStack ? (layer.workingBelowReleasedBytes ?? layer.backwardWorkingBytes) : layer.backwardWorkingBytes;
}

/** Evaluation's bytes beside the persistent and gathered ones, lean: kept gradients and the larger of loss and layer. */
function leanEvaluationBytes(terms: StageTerms): number {
  const r = (x: number): number => Math.max(0, Math.round(x));
  const { evalLossBytes, evalLayerBytes, gradsKeptInEval } = terms.evaluation;
  const layer = r(evalLayerBytes) + r(terms.dequantFwdBytes);
  return (gradsKeptInEval > 0 ? r(gradsKeptInEval) : 0) + Math.max(r(evalLossBytes), layer);
}

/** The components' bytes, each rounded to a whole non-negative count, summed (the lean path's totals). */
export function roundedTotal(cs: readonly Component[]): number {
  return cs.reduce((t, c) => t + Math.max(0, Math.round(c.bytes)), 0);
}

/**
 * What the outputs a loop keeps add at each phase (terms/previous-step.ts): the forward holds what is left of the last
 * step (its logits, graph and cache, unless the loop dropped them at its end or the longest batch runs first) and this
 * step's cache beside repeat_kv's copies; the backward this step's logits and that cache; the optimizer step this
 * step's logits, graph and cache; an evaluation or a checkpoint save between steps what is left of the last step.
 */
function keptSums(held: HeldStepOutputs): { forward: number; backward: number; optimizer: number; between: number } {
  const [logits, graph, step] = [roundedTotal(held.logits), roundedTotal(held.graph), roundedTotal(held.stepCache)];
  const [last, atForward] = [roundedTotal(held.lastStep), roundedTotal(held.atForward)];
  return { forward: atForward + step, backward: logits + step, optimizer: logits + graph, between: last };
}

/** A stream-pool point of the lean path: the phase's index, allocated bytes, gradients, gathered units, root unit. */
type LeanPoolPoint = [number, number, number, number, number];

/** Records the lean path's points and the all-gather pool's capacity in the stream-pool ledger. */
function recordLeanPools(
  poolsAtPhase: StreamPoolLedger,
  out: PhaseEstimate[],
  persistent: number,
  capacity: number,
  points: readonly LeanPoolPoint[],
): void {
  poolsAtPhase.unitCapacity = Math.max(poolsAtPhase.unitCapacity, capacity);
  for (const [i, allocated, grads, units, root] of points) {
    const point: StreamPoolPoint = { phase: out[i], allocated, grads, units, persistent, root };
    poolsAtPhase.points.push(point);
  }
}

/**
 * phases.ts secondLayerPoint as totals: the second layer's backward under FSDP's backward prefetch (undefined without
 * it), from `rest`, what it shares with the first layer's point beside the gradients and the gathered units.
 */
function leanSecondLayer(
  st: StageContext,
  terms: StageTerms,
  rest: number,
): { allocated: number; grads: number; units: number } | undefined {
  const second = terms.gatheredAt.secondLayer;
  if (!second) return undefined;
  const r = (x: number): number => Math.max(0, Math.round(x));
  const grads = r(terms.grads.gradAtFirst - second.layerGradBytes);
  const units = roundedTotal(second.units);
  const firstLayerActivations = st.layersHere > 0 ? r(terms.activations.actComp.bytes / st.layersHere) : 0;
  return { allocated: rest + grads + units + firstLayerActivations, grads, units };
}

/** The gathered units' totals at the step's points, rounded as the lean phases add them (gatherPoolCapacity's too). */
function leanGatherUnits(terms: StageTerms): GatherPoolUnits & { readonly loss: number; readonly forwardEnd: number } {
  const { gathered, gatheredAt, headGather } = terms;
  const tot = roundedTotal;
  const loss = tot(gatheredAt.loss);
  return {
    inLayer: tot(gathered),
    ...(gatheredAt.forwardLayer ? { forwardLayer: tot(gatheredAt.forwardLayer) } : {}),
    ...(gatheredAt.layerTransition ? { layerTransition: tot(gatheredAt.layerTransition) } : {}),
    lastLayer: tot(gatheredAt.lastLayer),
    firstLayer: tot(gatheredAt.firstLayer),
    ...(gatheredAt.afterBackward ? { afterBackward: tot(gatheredAt.afterBackward) } : {}),
    atLossWithHead: loss + tot(headGather),
    headHeld: terms.headHeldOnGatherStream ? tot(headGather) : 0,
    loss,
    forwardEnd: tot(gatheredAt.forwardEnd),
  };
}

/**
 * The same phases as phasesFor, as totals only (no component lists): the advice search estimates thousands of
 * candidates and needs the peak, the phase and the churn. A unit test holds both paths equal.
 */
export function leanPhases(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  poolsAtPhase: StreamPoolLedger | undefined,
  lossPoint: LossPoint,
): PhaseEstimate[] {
  const setup = ctx.setup;
  const ck = setup.gradient_checkpointing;
  const {
    persistent,
    gatheredGrads,
    headGather,
    headAccum,
    headGradAtLoss,
    tiedAccum,
    refForwardBytes,
    rewardFwdC,
    outside,
    lossFwd,
    lossBwd,
  } = terms;
  const { gradsInForward, gradAtEnd, gradAtFirst } = terms.grads;
  const { layer, actComp, maskBytes, maskHeldBytes, castComp, castCacheComp, recompute } = terms.activations;
  const r = (x: number): number => Math.max(0, Math.round(x));
  const tot = roundedTotal;
  const pSum = tot(persistent);
  const g = leanGatherUnits(terms);
  const { inLayer: gSum, lastLayer: gLast, firstLayer: gFirst, loss: gLoss, forwardEnd: gFwdEnd } = g;
  const gFwdLayer = g.forwardLayer ?? gSum;
  const hgSum = tot(headGather);
  const ggSum = tot(gatheredGrads);
  const outSum = tot(outside);
  const castSum = tot(castComp);
  const castCacheSum = tot(castCacheComp);
  const act = actComp.bytes;
  const headDequantSum = tot(terms.headDequant);
  const kept = keptSums(terms.held);
  const tail = Math.max(
    r(lossFwd),
    r(refForwardBytes),
    headDequantSum,
    tot(terms.ddpOutputs),
    ...rewardFwdC.map((c) => r(c.bytes)),
  );
  const lossTail = outSum + tail;
  const layerTail = r(forwardLayerBytes(terms)) + r(terms.dequantFwdBytes);
  // At the forward's loss the layer units are resharded (FSDP); inside the last layer its unit is gathered.
  const atLossTail = lossTail + gFwdEnd >= layerTail + gFwdLayer;
  const fwdTail = atLossTail ? lossTail + gFwdEnd : layerTail + gFwdLayer;
  const headGrad = reducedHeadGradient(ctx, st);
  const unsyncedAll = terms.grads.unsynced ? r(terms.grads.unsynced.all.bytes) : 0;
  const unsyncedFirst = terms.grads.unsynced ? r(terms.grads.unsynced.atFirstLayer.bytes) : 0;
  const rec = recompute > 0 ? r(recompute) : 0;
  const work = r(layer.backwardWorkingBytes);
  const headGradB = r(Math.max(gradsInForward, headGrad));
  const headAtLossB = headGradAtLoss ? headGradB : r(gradsInForward);
  const mask = r(maskBytes);
  const held = r(maskHeldBytes);
  const fwd =
    pSum +
    (gradsInForward > 0 ? r(gradsInForward) : 0) +
    unsyncedAll +
    hgSum +
    act +
    mask +
    (ck === 'full' ? castCacheSum : castSum) +
    fwdTail +
    kept.forward;
  const atLoss =
    pSum +
    headAtLossB +
    unsyncedAll +
    gLoss +
    hgSum +
    tot(terms.backwardStart) +
    act +
    held +
    (ck === 'full' ? 0 : castSum) +
    outSum +
    r(lossBwd) +
    headDequantSum +
    (headAccum > 0 ? r(headAccum) : 0) +
    kept.backward;
  const headHeldSum = terms.headHeldInBackward ? hgSum : 0;
  const inLayer = rec + work + r(terms.dequantBytes) + kept.backward;
  const inLastLayer = inLayer - work + r(lastLayerWorkingBytes(ctx, terms));
  const ggLast = tot(gradientsAtLastLayer(ctx, terms));
  const atLast = pSum + headGradB + unsyncedAll + gLast + headHeldSum + ggLast + act + held + castSum + inLastLayer;
  // Inside a layer's recompute: its high point and the gradients in flight instead of the layer, its working set and a
  // dequantized weight (the recompute's sequence makes it where its matmul runs).
  const peak = terms.activations.checkpointedLayer;
  const inRecompute = (point: number, working: number): number =>
    peak && peak.recomputeHighBytes > 0
      ? point - rec - working - r(terms.dequantBytes) + r(peak.recomputeHighBytes) + r(peak.entryGradBytes)
      : 0;
  const atRecompute = inRecompute(atLast, r(lastLayerWorkingBytes(ctx, terms)));
  const atFirstLayer = pSum + r(gradAtFirst) + unsyncedFirst + gFirst + headHeldSum + ggSum + held + inLayer;
  const atFirstRecompute = inRecompute(atFirstLayer, work);
  const second = leanSecondLayer(st, terms, pSum + unsyncedFirst + headHeldSum + ggSum + held + inLayer);
  // The embedding's backward (phases.ts embeddingPoint): FSDP2's root still holds the head's gradient, not its shard.
  const gradsAtEmbedding = r(gradAtEnd - terms.fsdp2Root.shardLaterBytes);
  const embeddingGrads = gradsAtEmbedding + tot(terms.fsdp2Root.held) + r(tiedAccum);
  const atEmbedding = tiedAccum > 0 ? pSum + embeddingGrads + unsyncedFirst + gFirst + headHeldSum + kept.backward : 0;
  const rootGrad = tot(terms.rootGradient);
  const atRootGradient =
    rootGrad > 0
      ? pSum + r(gradAtEnd - terms.grads.rootGradShard) + unsyncedFirst + headHeldSum + rootGrad + kept.backward
      : 0;
  // Under no_sync, a micro-batch before the last makes the root's flat gradient beside every unit's unsharded gradient.
  const unsyncedAtRoot = terms.grads.unsynced ? r(terms.grads.unsynced.atRootGradient.bytes) : 0;
  const atRootUnsynced =
    rootGrad > 0 && terms.grads.unsynced ? pSum + unsyncedAtRoot + headHeldSum + rootGrad + kept.backward : 0;
  const atFirst = Math.max(atFirstLayer, atFirstRecompute, atEmbedding, atRootGradient, atRootUnsynced);
  const transition = leanTransition(terms, atLast - gLast - inLastLayer + kept.backward);
  const bwd = Math.max(atLoss, atLast, atRecompute, second?.allocated ?? 0, transition?.allocated ?? 0, atFirst);
  lossPoint.allocatedBytes = atLoss;
  const stepPoint = optimizerStepPoint(ctx, st, setup.optimizer_in_backward ? 0 : terms.grads.gradAtStep);
  const temps = stepPoint.temporaries.reduce((t, x) => t + r(x.bytes), 0);
  const opt = pSum + tot(terms.stepStates) + r(stepPoint.gradients) + temps + kept.optimizer;
  // The persistent components stand for the non-churning part: the peak's churn is its total minus them.
  const persistentOnly = persistent;
  const out: PhaseEstimate[] = [
    { phase: 'forward', allocatedBytes: fwd, components: persistentOnly, note: '' },
    {
      phase: 'backward',
      allocatedBytes: bwd,
      components: persistentOnly,
      note: bwd === atLoss ? LOSS_BACKWARD_NOTE : '',
    },
    { phase: 'optimizer', allocatedBytes: opt, components: persistentOnly, note: '' },
  ];
  if (poolsAtPhase) {
    // Each backward candidate: the loss point holds the gradients kept from the previous micro-step (and the head's
    // with a chunked loss), the last-layer point the head's, the end of the backward all of them; the layer units
    // gathered there with them. [phase, allocated, gradients, gathered units, root unit]
    const points: LeanPoolPoint[] = [
      [0, fwd, gradsInForward > 0 ? r(gradsInForward) : 0, atLossTail ? gFwdEnd : gFwdLayer, hgSum],
      [1, atLoss, headAtLossB, gLoss, hgSum],
      [1, atLast, headGradB, gLast, headHeldSum],
      ...(atRecompute > 0 ? [[1, atRecompute, headGradB, gLast, headHeldSum] as LeanPoolPoint] : []),
      ...(second ? [[1, second.allocated, second.grads, second.units, headHeldSum] as LeanPoolPoint] : []),
      ...(transition ? [[1, transition.allocated, headGradB, transition.units, headHeldSum] as LeanPoolPoint] : []),
      [1, atFirstLayer, r(gradAtFirst), gFirst, headHeldSum],
      ...(atFirstRecompute > 0 ? [[1, atFirstRecompute, r(gradAtFirst), gFirst, headHeldSum] as LeanPoolPoint] : []),
      [2, opt, r(setup.optimizer_in_backward ? 0 : terms.grads.gradAtStep), 0, 0],
    ];
    if (atEmbedding > 0) points.push([1, atEmbedding, gradsAtEmbedding, gFirst, headHeldSum]);
    if (atRootGradient > 0) points.push([1, atRootGradient, r(gradAtEnd - terms.grads.rootGradShard), 0, headHeldSum]);
    if (atRootUnsynced > 0) points.push([1, atRootUnsynced, 0, 0, headHeldSum]);
    recordLeanPools(poolsAtPhase, out, pSum, gatherPoolCapacity(terms.gatherInFlight, g), points);
  }
  out.push(...leanOtherPhases(ctx, st, terms, { pSum, gSum, hgSum, keptBetween: kept.between }));
  return out;
}

/**
 * FSDP1 without backward prefetch, between two layers' backwards (phases.ts transitionPoint): `rest` (the last-layer
 * point without its layer, its unit and its working set), the two units and the gradient passed between them; undefined
 * where there is no such point.
 */
function leanTransition(terms: StageTerms, rest: number): { allocated: number; units: number } | undefined {
  const held = terms.gatheredAt.layerTransition;
  if (!held) return undefined;
  const units = roundedTotal(held);
  return { allocated: rest + units + Math.round(terms.activations.layer.layerInputBytes), units };
}

/**
 * The last layer's intermediates while its forward runs: under full checkpointing the most its forward holds at once
 * (terms/activations/recompute.ts), otherwise half its backward working set.
 */
export function forwardLayerBytes(terms: StageTerms): number {
  return terms.activations.checkpointedLayer?.forwardHighBytes ?? terms.activations.layer.backwardWorkingBytes / 2;
}

/** The sums the lean phases beyond the training step build on. */
interface LeanSums {
  /** Persistent components, gathered layer units and the gathered head (FSDP's root unit, ZeRO-3's head). */
  readonly pSum: number;
  readonly gSum: number;
  readonly hgSum: number;
  /** What the loop keeps from one step to the next (its outputs). */
  readonly keptBetween: number;
}

/** The lean phases beside the training step: evaluation, generation, ZeRO's first step, a sharded checkpoint save. */
function leanOtherPhases(ctx: EstimateContext, st: StageContext, terms: StageTerms, sums: LeanSums): PhaseEstimate[] {
  const { persistent, genComps, engineC } = terms;
  const { pSum, gSum, hgSum, keptBetween } = sums;
  const generation = ctx.methods.generation;
  const out: PhaseEstimate[] = [];
  if (terms.evaluation.evalBatch !== undefined)
    out.push({
      phase: 'evaluation',
      allocatedBytes: pSum + gSum + hgSum + leanEvaluationBytes(terms) + keptBetween,
      components: persistent,
      note: '',
    });
  // The sleeping vLLM engine's share, where the generation's peak holds it, is held, not churned, like the persistent
  // components.
  if (generation) {
    const held = heldWhileGenerating(terms);
    out.push({
      phase: 'generation',
      allocatedBytes:
        pSum -
        roundedTotal(terms.statesOffWhileGenerating) -
        roundedTotal(terms.weightsOffWhileGenerating) +
        roundedTotal(genComps),
      components: engineC.some((c) => genComps.includes(c)) ? [...held, ...engineC] : held,
      note: '',
    });
  }
  const firstStep = leanFirstStep(ctx, st, persistent);
  if (firstStep) out.push(firstStep);
  const save = leanCheckpointSave(ctx, st, terms, persistent, keptBetween);
  if (save) out.push(save);
  return out;
}

/** A sharded FSDP1 checkpoint that keeps its shards on the GPU (terms/checkpoint-save.ts), lean. */
function leanCheckpointSave(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  persistent: Component[],
  keptAfter: number,
): PhaseEstimate | undefined {
  if (!savesShardsOnGpu(ctx)) return undefined;
  const kept = Math.max(0, Math.round(terms.evaluation.gradsKeptInEval));
  const saved = roundedTotal([shardClones(ctx, st), ...unshardedForSave(ctx, terms.gathered, terms.headGather)]);
  const allocatedBytes = roundedTotal(persistent) + kept + saved + keptAfter;
  return { phase: 'checkpoint-save', allocatedBytes, components: persistent, note: '' };
}

/** ZeRO's first step: the flat 16-bit copy of the parameters beside the model states but the optimizer's (lean). */
function leanFirstStep(ctx: EstimateContext, st: StageContext, persistent: Component[]): PhaseEstimate | undefined {
  const zero = ctx.sharding.zeroStage;
  if (zero < 1 || ctx.setup.optimizer === 'none') return undefined;
  let fs = Math.max(
    0,
    Math.round((st.flatHere * ctx.dtypes.weightBytes) / (zero === 3 ? ctx.sharding.shardParams : 1)),
  );
  for (const c of persistent) if (c.id !== 'optimizer-states') fs += Math.max(0, Math.round(c.bytes));
  const components = persistent.filter((c) => c.id !== 'optimizer-states');
  return { phase: 'first-step', allocatedBytes: fs, components, note: '' };
}
