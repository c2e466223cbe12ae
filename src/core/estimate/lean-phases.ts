// The phases of a stage as totals only, for the advice search (estimate/phases.ts builds the same phases with their
// components; a unit test holds both paths equal). Pure.
import { headCheckComponents } from '../terms/zero-offload-checks';
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
  const { evalLossBytes, evalLayerBytes, gradsKeptInEval } = terms.evaluation;
  const layer = whole(evalLayerBytes) + whole(terms.dequantFwdBytes);
  return (gradsKeptInEval > 0 ? whole(gradsKeptInEval) : 0) + Math.max(whole(evalLossBytes), layer);
}

/** A byte count as the lean path adds it: rounded to a whole non-negative count, as each component is. */
const whole = (x: number): number => Math.max(0, Math.round(x));

/** The components' bytes, each rounded to a whole non-negative count, summed (the lean path's totals). */
export function roundedTotal(cs: readonly Component[]): number {
  return cs.reduce((t, c) => t + whole(c.bytes), 0);
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

/** Records the lean path's points and the all-gather pool's capacity in the stream-pool ledger. */
function recordLeanPools(
  poolsAtPhase: StreamPoolLedger,
  out: PhaseEstimate[],
  persistent: number,
  capacity: number,
  points: readonly LeanPoint[],
): void {
  poolsAtPhase.unitCapacity = Math.max(poolsAtPhase.unitCapacity, capacity);
  for (const { phase, allocated, grads, units, root } of points) {
    const point: StreamPoolPoint = { phase: out[phase], allocated, grads, units, persistent, root };
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
  const grads = whole(terms.grads.gradAtFirst - second.layerGradBytes);
  const units = roundedTotal(second.units);
  const firstLayerActivations = st.layersHere > 0 ? whole(terms.activations.actComp.bytes / st.layersHere) : 0;
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
 * The totals the lean step's points are built from, each rounded as phasesFor adds its components: persistent
 * components, gathered units, gradients, activations and what the loop keeps.
 */
interface StepTotals {
  readonly persistent: number;
  readonly units: ReturnType<typeof leanGatherUnits>;
  /** The gathered head (FSDP's root unit, ZeRO-3's head), and what of it the backward holds past the loss. */
  readonly head: number;
  readonly headHeld: number;
  /** FSDP's unsharded gradients of the layers at the end of the backward. */
  readonly layerGradients: number;
  readonly outside: number;
  readonly cast: number;
  readonly castCache: number;
  readonly activations: number;
  readonly headDequant: number;
  readonly kept: ReturnType<typeof keptSums>;
  /** The gradients made in the forward (kept from an earlier micro-step), the head's first, the head's at the loss. */
  readonly gradientsInForward: number;
  readonly headGradient: number;
  readonly headGradientAtLoss: number;
  /** Gradients kept unsharded under no_sync: all of them, and those made by the first layer's backward. */
  readonly unsyncedAll: number;
  readonly unsyncedFirst: number;
  readonly mask: number;
  readonly maskHeld: number;
  /** A layer's backward: recomputed tensors, working set (the last layer's too) and dequantized weight. */
  readonly recompute: number;
  readonly working: number;
  readonly lastWorking: number;
  readonly dequant: number;
}

function stepTotals(ctx: EstimateContext, st: StageContext, terms: StageTerms): StepTotals {
  const tot = roundedTotal;
  const { gradsInForward } = terms.grads;
  const { layer, recompute } = terms.activations;
  const headGradient = whole(Math.max(gradsInForward, reducedHeadGradient(ctx, st)));
  const head = tot(terms.headGather);
  return {
    persistent: tot(terms.persistent),
    units: leanGatherUnits(terms),
    head,
    headHeld: terms.headHeldInBackward ? head : 0,
    layerGradients: tot(terms.gatheredGrads),
    outside: tot(terms.outside),
    cast: tot(terms.activations.castComp),
    castCache: tot(terms.activations.castCacheComp),
    activations: terms.activations.actComp.bytes,
    headDequant: tot(terms.headDequant),
    kept: keptSums(terms.held),
    gradientsInForward: gradsInForward > 0 ? whole(gradsInForward) : 0,
    headGradient,
    headGradientAtLoss: terms.headGradAtLoss ? headGradient : whole(gradsInForward),
    unsyncedAll: terms.grads.unsynced ? whole(terms.grads.unsynced.all.bytes) : 0,
    unsyncedFirst: terms.grads.unsynced ? whole(terms.grads.unsynced.atFirstLayer.bytes) : 0,
    mask: whole(terms.activations.maskBytes),
    maskHeld: whole(terms.activations.maskHeldBytes),
    recompute: recompute > 0 ? whole(recompute) : 0,
    working: whole(layer.backwardWorkingBytes),
    lastWorking: whole(lastLayerWorkingBytes(ctx, terms)),
    dequant: whole(terms.dequantBytes),
  };
}

/** A point of the lean step: its phase's index, allocated bytes, gradients, gathered units and root unit. */
interface LeanPoint {
  readonly phase: number;
  readonly allocated: number;
  readonly grads: number;
  readonly units: number;
  readonly root: number;
}

/**
 * The end of the forward (phases.ts forwardComponents): at the loss (its temporaries, the reference's forward, a
 * reward model's layer; the layer units resharded) or inside the last layer (its intermediates, its unit gathered).
 */
function leanForward(ctx: EstimateContext, terms: StageTerms, t: StepTotals): LeanPoint {
  const { units } = t;
  const tail = Math.max(
    whole(terms.lossFwd),
    whole(terms.refForwardBytes),
    t.headDequant,
    roundedTotal(terms.ddpOutputs),
    ...terms.rewardFwdC.map((c) => whole(c.bytes)),
  );
  const lossTail = t.outside + tail;
  const layerTail = whole(forwardLayerBytes(terms)) + whole(terms.dequantFwdBytes);
  const forwardLayer = units.forwardLayer ?? units.inLayer;
  const atLossTail = lossTail + units.forwardEnd >= layerTail + forwardLayer;
  const full = ctx.setup.gradient_checkpointing === 'full';
  const allocated =
    t.persistent +
    t.gradientsInForward +
    t.unsyncedAll +
    t.head +
    t.activations +
    t.mask +
    (full ? t.castCache : t.cast) +
    (atLossTail ? lossTail + units.forwardEnd : layerTail + forwardLayer) +
    t.kept.forward;
  const gathered = atLossTail ? units.forwardEnd : forwardLayer;
  return { phase: 0, allocated, grads: t.gradientsInForward, units: gathered, root: t.head };
}

/** The start of the backward (phases.ts backwardCandidates atLoss): all activations and the logits' gradients. */
function leanAtLoss(ctx: EstimateContext, terms: StageTerms, t: StepTotals): LeanPoint {
  const allocated =
    t.persistent +
    t.headGradientAtLoss +
    t.unsyncedAll +
    t.units.loss +
    t.head +
    roundedTotal(terms.backwardStart) +
    t.activations +
    t.maskHeld +
    (ctx.setup.gradient_checkpointing === 'full' ? 0 : t.cast) +
    t.outside +
    whole(terms.lossBwd) +
    t.headDequant +
    (terms.headAccum > 0 ? whole(terms.headAccum) : 0) +
    t.kept.backward;
  return { phase: 1, allocated, grads: t.headGradientAtLoss, units: t.units.loss, root: t.head };
}

/**
 * Inside a layer's recompute (phases.ts inRecompute): its high point and the gradients in flight instead of the
 * layer's recomputed tensors, working set and dequantized weight; undefined without such a point.
 */
function leanInRecompute(terms: StageTerms, t: StepTotals, point: LeanPoint, working: number): LeanPoint | undefined {
  const peak = terms.activations.checkpointedLayer;
  if (!peak || peak.recomputeHighBytes <= 0) return undefined;
  const allocated =
    point.allocated - t.recompute - working - t.dequant + whole(peak.recomputeHighBytes) + whole(peak.entryGradBytes);
  return allocated > 0 ? { ...point, allocated } : undefined;
}

/** Through the layers (phases.ts backwardCandidates): the last layer, its recompute, FSDP's second and transition. */
function leanThroughLayers(ctx: EstimateContext, st: StageContext, terms: StageTerms, t: StepTotals): LeanPoint[] {
  const inLayer = t.recompute + t.working + t.dequant + t.kept.backward;
  const inLastLayer = inLayer - t.working + t.lastWorking;
  const lastUnits = t.units.lastLayer;
  const lastGradients = roundedTotal(gradientsAtLastLayer(ctx, terms));
  const beside = t.persistent + t.headGradient + t.unsyncedAll + t.headHeld + t.activations + t.maskHeld + t.cast;
  const atLast: LeanPoint = {
    phase: 1,
    allocated: beside + lastUnits + lastGradients + inLastLayer,
    grads: t.headGradient,
    units: lastUnits,
    root: t.headHeld,
  };
  const rest = t.persistent + t.unsyncedFirst + t.headHeld + t.layerGradients + t.maskHeld + inLayer;
  const second = leanSecondLayer(st, terms, rest);
  const transition = leanTransition(terms, atLast.allocated - lastUnits - inLastLayer + t.kept.backward);
  const headCheck = headCheckComponents(ctx, st);
  const headChecks = roundedTotal(headCheck);
  const atHeadChecks: LeanPoint | undefined =
    headChecks > 0
      ? {
          phase: 1,
          allocated:
            t.persistent +
            lastUnits +
            t.activations +
            t.maskHeld +
            t.cast +
            whole(terms.activations.layer.layerInputBytes) +
            headChecks +
            t.kept.backward,
          grads: roundedTotal(headCheck.filter((c) => c.id === 'gradients')),
          units: lastUnits,
          root: 0,
        }
      : undefined;
  return [
    atLast,
    atHeadChecks,
    leanInRecompute(terms, t, atLast, t.lastWorking),
    second && { phase: 1, ...second, root: t.headHeld },
    transition && { phase: 1, ...transition, grads: t.headGradient, root: t.headHeld },
  ].filter((p): p is LeanPoint => p !== undefined);
}

/**
 * The end of the backward (phases.ts backwardCandidates): the first layer with all gradients, its recompute, the
 * embedding's made after it, the tied embedding's, FSDP1's root gradient (under no_sync too).
 */
function leanBackwardEnd(terms: StageTerms, t: StepTotals): LeanPoint[] {
  const { gradAtFirst, gradAtEnd, rootGradShard, unsynced } = terms.grads;
  const inLayer = t.recompute + t.working + t.dequant + t.kept.backward;
  const firstUnits = t.units.firstLayer;
  const firstGradients = whole(gradAtFirst);
  const atFirstLayer: LeanPoint = {
    phase: 1,
    allocated:
      t.persistent +
      firstGradients +
      t.unsyncedFirst +
      firstUnits +
      t.headHeld +
      t.layerGradients +
      t.maskHeld +
      roundedTotal(terms.frozenUnitInputs) +
      inLayer,
    grads: firstGradients,
    units: firstUnits,
    root: t.headHeld,
  };
  const points = [atFirstLayer, leanInRecompute(terms, t, atFirstLayer, t.working)];
  // An untied (or a classifier's) embedding's gradient, made after the first layer's backward: every gradient.
  if (terms.grads.embGradLater > 0) {
    const grads = whole(gradAtEnd);
    const allocated = t.persistent + grads + t.unsyncedFirst + firstUnits + t.headHeld + t.kept.backward;
    points.push({ phase: 1, allocated, grads, units: firstUnits, root: t.headHeld });
  }
  // The embedding's backward (phases.ts embeddingPoint): FSDP2's root still holds the head's gradient, not its shard.
  if (terms.tiedAccum > 0) {
    const grads = whole(gradAtEnd - terms.fsdp2Root.shardLaterBytes);
    const embedding = grads + roundedTotal(terms.fsdp2Root.held) + whole(terms.tiedAccum);
    const allocated = t.persistent + embedding + t.unsyncedFirst + firstUnits + t.headHeld + t.kept.backward;
    points.push({ phase: 1, allocated, grads, units: firstUnits, root: t.headHeld });
  }
  const rootGradient = roundedTotal(terms.rootGradient);
  if (rootGradient > 0) {
    const grads = whole(gradAtEnd - rootGradShard);
    const allocated = t.persistent + grads + t.unsyncedFirst + t.headHeld + rootGradient + t.kept.backward;
    points.push({ phase: 1, allocated, grads, units: 0, root: t.headHeld });
  }
  // Under no_sync, a micro-batch before the last makes the root's flat gradient beside every unit's unsharded gradient.
  if (rootGradient > 0 && unsynced) {
    const allocated = t.persistent + whole(unsynced.atRootGradient.bytes) + t.headHeld + rootGradient + t.kept.backward;
    points.push({ phase: 1, allocated, grads: 0, units: 0, root: t.headHeld });
  }
  return points.filter((p): p is LeanPoint => p !== undefined);
}

/** The optimizer step: the model states, the gradients it steps, its temporaries and what the loop keeps. */
function leanOptimizer(ctx: EstimateContext, st: StageContext, terms: StageTerms, t: StepTotals): LeanPoint {
  const gradients = ctx.setup.optimizer_in_backward ? 0 : terms.grads.gradAtStep;
  const stepPoint = optimizerStepPoint(ctx, st, gradients);
  const temporaries = stepPoint.temporaries.reduce((s, x) => s + whole(x.bytes), 0);
  const allocated =
    t.persistent + roundedTotal(terms.stepStates) + whole(stepPoint.gradients) + temporaries + t.kept.optimizer;
  return { phase: 2, allocated, grads: whole(gradients), units: 0, root: 0 };
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
  const t = stepTotals(ctx, st, terms);
  const forward = leanForward(ctx, terms, t);
  const atLoss = leanAtLoss(ctx, terms, t);
  const backward = [atLoss, ...leanThroughLayers(ctx, st, terms, t), ...leanBackwardEnd(terms, t)];
  const optimizer = leanOptimizer(ctx, st, terms, t);
  const bwd = Math.max(...backward.map((p) => p.allocated));
  lossPoint.allocatedBytes = atLoss.allocated;
  // The persistent components stand for the non-churning part: the peak's churn is its total minus them.
  const persistent = terms.persistent;
  const out: PhaseEstimate[] = [
    { phase: 'forward', allocatedBytes: forward.allocated, components: persistent, note: '' },
    {
      phase: 'backward',
      allocatedBytes: bwd,
      components: persistent,
      note: bwd === atLoss.allocated ? LOSS_BACKWARD_NOTE : '',
    },
    { phase: 'optimizer', allocatedBytes: optimizer.allocated, components: persistent, note: '' },
  ];
  if (poolsAtPhase) {
    const capacity = gatherPoolCapacity(terms.gatherInFlight, t.units);
    recordLeanPools(poolsAtPhase, out, t.persistent, capacity, [forward, ...backward, optimizer]);
  }
  const sums = { pSum: t.persistent, gSum: t.units.inLayer, hgSum: t.head, keptBetween: t.kept.between };
  out.push(...leanOtherPhases(ctx, st, terms, sums));
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
  const kept = whole(terms.evaluation.gradsKeptInEval);
  const saved = roundedTotal([shardClones(ctx, st), ...unshardedForSave(ctx, terms.gathered, terms.headGather)]);
  const allocatedBytes = roundedTotal(persistent) + kept + saved + keptAfter;
  return { phase: 'checkpoint-save', allocatedBytes, components: persistent, note: '' };
}

/** ZeRO's first step: the flat 16-bit copy of the parameters beside the model states but the optimizer's (lean). */
function leanFirstStep(ctx: EstimateContext, st: StageContext, persistent: Component[]): PhaseEstimate | undefined {
  const zero = ctx.sharding.zeroStage;
  if (zero < 1 || ctx.setup.optimizer === 'none' || (zero === 3 && ctx.sharding.offloadParams)) return undefined;
  let fs = Math.max(
    0,
    Math.round((st.flatHere * ctx.dtypes.weightBytes) / (zero === 3 ? ctx.sharding.shardParams : 1)),
  );
  for (const c of persistent) if (c.id !== 'optimizer-states') fs += whole(c.bytes);
  const components = persistent.filter((c) => c.id !== 'optimizer-states');
  return { phase: 'first-step', allocatedBytes: fs, components, note: '' };
}
