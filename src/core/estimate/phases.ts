// The phases of a training step on one GPU of a stage, from its terms: the end of the forward, the backward (at the
// loss, through the last layer, at the first layer, at the tied embedding: the highest), the optimizer step, the first
// step's flat buffers, evaluation and generation. Each phase lists the components live at its high point; the peak of
// the estimate is the highest phase of the busiest stage. Lean mode computes the same totals without component lists.
// Docs: docs/estimate/index.md. Pure.
import type { Component, PhaseEstimate } from '../model';
import { comp, PERSISTENT_IDS, sum } from './component';
import { formatCount } from '../units';
import type { EstimateContext, StageContext } from './context';
import type { StageActivations } from '../terms/activations/stage';
import type { EvaluationWork } from '../terms/evaluation';
import type { GradientPlan } from '../terms/gradients';
import { optimizerStepPoint } from '../terms/optimizer-step';
import type { GatheredAt } from '../terms/sharding-buffers';
import type { HeldStepOutputs } from '../terms/previous-step';
import type { Fsdp2RootGradient } from '../terms/fsdp2-root-gradient';
import { gatherPoolCapacity, type GatherInFlight } from '../terms/zero3-gathered';
import { forwardLayerBytes, leanPhases, LOSS_BACKWARD_NOTE } from './lean-phases';
import { backwardCandidates, type BackwardPoint } from './backward-points';
import { lossTemporaries } from './loss-temporaries';
import {
  checkpointSavePhase,
  evaluationPhase,
  firstStepPhase,
  generationPhase,
  heldWhileGenerating,
} from './other-phases';

export { LOSS_BACKWARD_NOTE };

/** A stage's terms, as the phases place them. */
export interface StageTerms {
  /** Allocated through the whole step (weights, states, buckets, an awake vLLM engine). */
  readonly persistent: Component[];
  /**
   * The optimizer's states where they are on the GPU for the optimizer step only (optimizer_states_gpu 'step'), else
   * none: the step's point holds them beside the persistent components.
   */
  readonly stepStates: Component[];
  /** The persistent optimizer states moved to the host while the engine generates ('training'), else none. */
  readonly statesOffWhileGenerating: Component[];
  /** The model's weights moved to the host while a colocated engine generates (weights_gpu 'training'), else none. */
  readonly weightsOffWhileGenerating: Component[];
  /** The colocated vLLM engine's share (held while it sleeps, in generation only). */
  readonly engineC: Component[];
  readonly grads: GradientPlan;
  readonly gathered: Component[];
  /** The gathered layer units at the loss and in the backward (FSDP reshards each layer after its forward). */
  readonly gatheredAt: GatheredAt;
  readonly gatheredGrads: Component[];
  /** Of `gatheredGrads`, FSDP's unsharded gradients of one layer unit, made in that layer's backward. */
  readonly unitGradients?: Component;
  /** Of `gatheredGrads`, what exists from the backward's start, the loss's backward included (ZeRO-1/2's buckets). */
  readonly backwardStart: Component[];
  readonly headGather: Component[];
  /** `headGather` stays through the backward (FSDP's root unit; ZeRO-3 under TRL's chunked loss). */
  readonly headHeldInBackward: boolean;
  /** ... and on ZeRO-3's all-gather stream, whose pool holds it beside the layers (TRL's chunked loss). */
  readonly headHeldOnGatherStream: boolean;
  /** ZeRO-3: its prefetches' flat buffers, which the all-gather stream's pool holds beyond the gathered parameters. */
  readonly gatherInFlight: GatherInFlight;
  readonly activations: StageActivations;
  readonly headAccum: number;
  /** The head's gradient exists at the loss backward (the chunks already done added theirs: torchtune, TRL chunked_nll). */
  readonly headGradAtLoss: boolean;
  readonly tiedAccum: number;
  /** FSDP1's root unit: its views' gradients and the flat gradient made from them, at the end of the backward. */
  readonly rootGradient: Component[];
  /** At the first layer's backward: the layer inputs and gradients FSDP1's frozen units' hooks keep (fsdp1-frozen-inputs.ts). */
  readonly frozenUnitInputs: Component[];
  /** FSDP2's root unit at the embedding's backward: a tied head's unsharded gradient, the root's shard not made yet. */
  readonly fsdp2Root: Fsdp2RootGradient;
  readonly dequantFwdC: Component[];
  readonly dequantC: Component[];
  readonly dequantFwdBytes: number;
  readonly dequantBytes: number;
  readonly refForwardBytes: number;
  readonly refForwardFormula: string;
  readonly rewardFwdC: Component[];
  readonly evaluation: EvaluationWork;
  readonly genComps: Component[];
  /** Final norm, head and loss saved at the end of the forward (last stage). */
  readonly outside: Component[];
  /** A 4-bit head's dequantized weight during one chunk's matmul (forward end and loss backward; quantized-head.ts). */
  readonly headDequant: Component[];
  /** The returned logits and DDP's clone of them at the forward's end (find_unused_parameters; ddp-outputs.ts). */
  readonly ddpOutputs: Component[];
  /**
   * What the loop keeps of a step when it keeps its outputs (terms/previous-step.ts): its logits through the backward,
   * and with its graph's ctx attributes at the optimizer step, an evaluation and the next forward.
   */
  readonly held: HeldStepOutputs;
  /** The loss's transient bytes in the forward and at the start of the backward. */
  readonly lossFwd: number;
  readonly lossBwd: number;
}

/**
 * A high point of the step (each phase's, and each candidate point of the backward) with what it holds of the blocks
 * FSDP allocates on its own streams: the gradients (their shards come from the reduce-scatter stream) and the
 * gathered layer units (all-gather outputs, from the all-gather streams).
 */
export interface StreamPoolPoint {
  readonly phase: PhaseEstimate;
  readonly allocated: number;
  readonly grads: number;
  readonly units: number;
  /** The model states that live through the step (weights, optimizer states, buckets), allocated at init. */
  readonly persistent: number;
  /** The root unit (or the head gathered for the loss), allocated on the all-gather stream. */
  readonly root: number;
}

/** What the phases record for FSDP's stream pools (estimate/runtime.ts): their high points, and the most units gathered at once. */
export interface StreamPoolLedger {
  readonly points: StreamPoolPoint[];
  /** The layer units gathered at once on the all-gather streams (current + prefetch), in bytes. */
  unitCapacity: number;
}

/** A share of the gradients, with a note on which share it is. */
export type GradientShare = (bytes: number, note: string) => Component;

/**
 * What the loss's backward point allocates, whichever backward point is the highest: the segments reserved there stay
 * reserved to the step's peak (estimate/runtime.ts).
 */
export interface LossPoint {
  allocatedBytes: number;
}

/**
 * The phases of a stage with their components; lean mode: leanPhases. Records what each phase holds of FSDP's stream
 * pools, and what the loss's backward point allocates.
 */
export function phasesFor(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  poolsAtPhase: StreamPoolLedger | undefined,
  lossPoint: LossPoint,
): PhaseEstimate[] {
  if (ctx.lean) return leanPhases(ctx, st, terms, poolsAtPhase, lossPoint);
  const setup = ctx.setup;
  const pers = terms.persistent;
  const gradC = gradientShare(ctx, st, terms);
  const fwd = forwardComponents(ctx, st, terms, gradC);
  // Backward runs through the loss first (logit gradients live, no layer recomputed yet), then the last layer
  // (loss buffers freed, one layer recomputed and its gradients in flight), then down to the first layer
  // (all gradients produced, activations freed).
  const candidates = backwardCandidates(ctx, st, terms, gradC);
  const [bwd, bwdNote] = candidates.reduce((m, c) => (sum(c[0]) > sum(m[0]) ? c : m));
  lossPoint.allocatedBytes = sum(candidates[0][0]);
  // Optimizer step: activations are gone; gradients, states and step temporaries are live.
  const gradsHeld = setup.optimizer_in_backward ? 0 : terms.grads.gradAtStep;
  const stepPoint = optimizerStepPoint(ctx, st, gradsHeld);
  const stepTemps: Component[] = stepPoint.temporaries.map((t) =>
    comp(ctx, 'optimizer-step', t.label, t.bytes, t.formula, () => ({})),
  );
  const optC: Component[] = [
    ...pers,
    ...terms.stepStates,
    gradC(
      stepPoint.gradients,
      stepPoint.gradients < gradsHeld
        ? ' (ZeRO-1/2: the 16-bit gradients freed once the fp32 partition is made)'
        : ctx.sharding.zeroStage === 1 && terms.grads.gradAtStep < terms.grads.gradAtEnd
          ? " (ZeRO-1's partition, kept by the backward's epilogue)"
          : '',
    ),
    ...stepTemps,
    ...terms.held.logits,
    ...terms.held.graph,
  ];
  const phasesOut: PhaseEstimate[] = [
    {
      phase: 'forward',
      allocatedBytes: sum(fwd),
      components: fwd,
      note: 'end of forward: saved activations and the loss',
    },
    { phase: 'backward', allocatedBytes: sum(bwd), components: bwd, note: bwdNote },
    {
      phase: 'optimizer',
      allocatedBytes: sum(optC),
      components: optC,
      note: 'optimizer step: gradients, states and step temporaries',
    },
  ];
  if (poolsAtPhase) recordStreamPools(terms, poolsAtPhase, phasesOut, fwd, candidates, optC);
  const evaluation = evaluationPhase(ctx, terms, pers, gradC);
  if (evaluation) phasesOut.push(evaluation);
  const generationOut = generationPhase(ctx, heldWhileGenerating(terms), terms.genComps);
  if (generationOut) phasesOut.push(generationOut);
  const firstStep = firstStepPhase(ctx, st, pers);
  if (firstStep) phasesOut.push(firstStep);
  const save = checkpointSavePhase(ctx, st, terms, gradC);
  if (save) phasesOut.push(save);
  return phasesOut;
}

/**
 * A share of the gradients (none kept from a previous micro-step, the head's first, all but the embedding's, none on
 * the GPU under offload) states its own elements, so that its numbers multiply to its bytes.
 */
function gradientShare(ctx: EstimateContext, st: StageContext, terms: StageTerms): GradientShare {
  const { shardGrads } = ctx.sharding;
  const { gradBytes } = ctx.dtypes;
  const { trainableGradHere } = st;
  const { gradLabel, gradFormula } = terms.grads;
  return (bytes: number, note: string): Component =>
    comp(
      ctx,
      'gradients',
      gradLabel,
      bytes,
      () =>
        Math.abs(bytes - terms.grads.gradFormulaBytes) < 1 || Number.isNaN(terms.grads.gradFormulaBytes)
          ? `${gradFormula()}${note}`
          : `${formatCount(bytes / gradBytes)} of ${formatCount(trainableGradHere / shardGrads)} gradient elements x ${gradBytes} B${note}`,
      () => ({ params: Math.round(trainableGradHere), bytesPerGrad: gradBytes, shard: shardGrads }),
    );
}

/**
 * The end of the forward. It peaks either at the loss (logits, loss temporaries) or inside the last layer (its
 * intermediates, before any logits exist), whichever is higher.
 */
function forwardComponents(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  gradC: GradientShare,
): Component[] {
  const a = ctx.model.arch;
  const ck = ctx.setup.gradient_checkpointing;
  const { sequences: seqs, tokens: T } = st;
  const { persistent: pers, gathered, gatheredAt, headGather, dequantFwdC, refForwardBytes, rewardFwdC } = terms;
  const { gradsInForward } = terms.grads;
  const { actComp, maskC, castComp, castCacheComp } = terms.activations;
  const lossTemps = lossTemporaries(ctx, terms);
  const layerTemps = forwardLayerTemporaries(ctx, terms);
  const refTemps =
    refForwardBytes > 0
      ? [
          comp(
            ctx,
            'logits-loss',
            'Reference forward: logits and log-probs (no grad)',
            refForwardBytes,
            () => terms.refForwardFormula,
            () => ({ sequences: seqs, tokens: T, vocab: a.vocab }),
          ),
        ]
      : [];
  // The forward's tail: the loss's temporaries, the reference's forward, or (online DPO) a reward model's layer.
  const lossTail = [
    ...terms.outside,
    ...[lossTemps, refTemps, terms.headDequant, terms.ddpOutputs, ...rewardFwdC.map((c) => [c])].reduce((m, t) =>
      sum(t) > sum(m) ? t : m,
    ),
  ];
  // At the loss the layer units are resharded (FSDP); inside the last layer its unit is gathered.
  const inLayer = gatheredAt.forwardLayer ?? gathered;
  const atLossTail = sum(lossTail) + sum(gatheredAt.forwardEnd) >= layerTemps.bytes + sum(dequantFwdC) + sum(inLayer);
  const fwdTail = atLossTail ? lossTail : [layerTemps, ...dequantFwdC];
  return [
    ...pers,
    ...(gradsInForward > 0 ? [gradC(gradsInForward, terms.grads.inForwardNote)] : []),
    ...(terms.grads.unsynced ? [terms.grads.unsynced.all] : []),
    ...(atLossTail ? gatheredAt.forwardEnd : inLayer),
    ...headGather,
    actComp,
    ...maskC,
    ...(ck === 'full' ? castCacheComp : castComp),
    ...fwdTail,
    ...terms.held.atForward,
    ...terms.held.stepCache,
  ];
}

/**
 * The last layer's intermediates while its forward runs: under full checkpointing, the most its forward holds at once
 * (nothing saved: terms/activations/recompute.ts); otherwise half its backward working set.
 */
function forwardLayerTemporaries(ctx: EstimateContext, terms: StageTerms): Component {
  const checkpointed = terms.activations.checkpointedLayer?.forwardHighBytes !== undefined;
  return comp(
    ctx,
    'backward-working',
    'Forward temporaries of one layer',
    forwardLayerBytes(terms),
    () =>
      checkpointed
        ? "the last layer's forward under checkpointing: its intermediates at the most they hold together"
        : 'the largest intermediates of one layer while it runs (MLP or attention)',
    () => ({}),
  );
}

/** Records what the forward, each backward candidate and the optimizer step hold of FSDP's stream pools. */
function recordStreamPools(
  terms: StageTerms,
  poolsAtPhase: StreamPoolLedger,
  phasesOut: PhaseEstimate[],
  fwd: Component[],
  candidates: BackwardPoint[],
  optC: Component[],
): void {
  const { gathered, gatheredAt } = terms;
  const units = new Set([
    ...gathered,
    ...gatheredAt.forwardEnd,
    ...(gatheredAt.forwardLayer ?? []),
    ...(gatheredAt.layerTransition ?? []),
    ...gatheredAt.loss,
    ...gatheredAt.lastLayer,
    ...(gatheredAt.secondLayer?.units ?? []),
    ...gatheredAt.firstLayer,
  ]);
  const root = new Set(terms.headGather);
  poolsAtPhase.unitCapacity = Math.max(
    poolsAtPhase.unitCapacity,
    gatherPoolCapacity(terms.gatherInFlight, {
      inLayer: sum(gathered),
      ...(gatheredAt.forwardLayer ? { forwardLayer: sum(gatheredAt.forwardLayer) } : {}),
      ...(gatheredAt.layerTransition ? { layerTransition: sum(gatheredAt.layerTransition) } : {}),
      lastLayer: sum(gatheredAt.lastLayer),
      firstLayer: sum(gatheredAt.firstLayer),
      ...(gatheredAt.afterBackward ? { afterBackward: sum(gatheredAt.afterBackward) } : {}),
      atLossWithHead: sum(gatheredAt.loss) + sum(terms.headGather),
      headHeld: terms.headHeldOnGatherStream ? sum(terms.headGather) : 0,
    }),
  );
  const point = (ph: PhaseEstimate, cs: Component[]): StreamPoolPoint => ({
    phase: ph,
    allocated: sum(cs),
    grads: sum(cs.filter((c) => c.id === 'gradients')),
    units: sum(cs.filter((c) => units.has(c))),
    persistent: sum(cs.filter((c) => PERSISTENT_IDS.has(c.id))),
    root: sum(cs.filter((c) => root.has(c))),
  });
  poolsAtPhase.points.push(
    point(phasesOut[0], fwd),
    ...candidates.filter((c) => c[0].length > 0).map((c) => point(phasesOut[1], c[0])),
    point(phasesOut[2], optC),
  );
}
