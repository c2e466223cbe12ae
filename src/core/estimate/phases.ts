// The phases of a training step on one GPU of a stage, from its terms: the end of the forward, the backward (at the
// loss, through the last layer, at the first layer, at the tied embedding: the highest), the optimizer step, the first
// step's flat buffers, evaluation and generation. Each phase lists the components live at its high point; the peak of
// the estimate is the highest phase of the busiest stage. Lean mode computes the same totals without component lists.
// Docs: docs/estimate/index.md. Pure.
import type { Component, PhaseEstimate } from '../model';
import { comp, PERSISTENT_IDS, sum } from './component';
import { formatCount } from '../units';
import type { EstimateContext, StageContext } from './context';
import { recomputePeakComponents } from '../terms/activations/recompute';
import type { StageActivations } from '../terms/activations/stage';
import type { EvaluationWork } from '../terms/evaluation';
import { type GradientPlan, reducedHeadGradient, tiedGradientBytes, tiedGradientFormula } from '../terms/gradients';
import { optimizerStepPoint } from '../terms/optimizer-step';
import type { GatheredAt } from '../terms/sharding-buffers';
import type { HeldStepOutputs } from '../terms/previous-step';
import type { Fsdp2RootGradient } from '../terms/fsdp2-root-gradient';
import { gatherPoolCapacity, type GatherInFlight } from '../terms/zero3-gathered';
import {
  forwardLayerBytes,
  gradientsAtLastLayer,
  lastLayerWorkingBytes,
  leanPhases,
  LOSS_BACKWARD_NOTE,
  opensWithOutputNorm,
} from './lean-phases';
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

/** A backward high point: what it holds and its note. */
type BackwardPoint = [Component[], string];

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

/**
 * One layer's backward working set, at the first layer and at the last (lastLayerWorkingBytes: with the MLP's weight
 * gradients, or less what the layers above a lower one released).
 */
function workingComponents(ctx: EstimateContext, terms: StageTerms): { working: Component; lastWorking: Component } {
  const { layer } = terms.activations;
  const workingOf = (bytes: number, note: string): Component =>
    comp(
      ctx,
      'backward-working',
      'Backward working set of one layer',
      bytes,
      () => 'gradients of the largest intermediates of one layer (MLP or attention) + residual stream gradients' + note,
      () => ({}),
    );
  const working = workingOf(layer.backwardWorkingBytes, '');
  const lastBytes = lastLayerWorkingBytes(ctx, terms);
  const lastNote = opensWithOutputNorm(ctx, terms)
    ? " (the layer's output norm opens its backward: its gradient's temporaries beside all the layer saved)"
    : " (the attention's or mixer's with the MLP's weight gradients, made before it)";
  const lastWorking =
    lastBytes === layer.backwardWorkingBytes
      ? working
      : workingOf(lastBytes, lastBytes > layer.backwardWorkingBytes ? lastNote : '');
  return { working, lastWorking };
}

/**
 * The candidate high points of the backward: at the loss, through the last layer, at the first layer, and at the
 * tied embedding (empty when the head is not tied).
 */
function backwardCandidates(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  gradC: GradientShare,
): BackwardPoint[] {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { half } = ctx.dtypes;
  const ck = setup.gradient_checkpointing;
  const {
    persistent: pers,
    gatheredAt,
    gatheredGrads,
    backwardStart,
    headGather,
    headAccum,
    headGradAtLoss,
    dequantC,
    outside,
  } = terms;
  const { gradsInForward, embGradLater, gradAtFirst, unsynced } = terms.grads;
  const { actComp, maskHeld, castComp, recompute } = terms.activations;
  // Backward start: all activations, the loss gradients, and the head's gradient (first to be produced).
  const headGrad = reducedHeadGradient(ctx, st);
  const unsyncedAll = unsynced ? [unsynced.all] : [];
  const unsyncedFirst = unsynced ? [unsynced.atFirstLayer] : [];
  const recomputeC =
    recompute > 0
      ? [
          comp(
            ctx,
            'checkpoint-recompute',
            'Recomputed layer (checkpointing)',
            recompute,
            () => "one layer's saved tensors, recomputed during its backward",
            () => ({ perLayerBytes: Math.round(recompute) }),
          ),
        ]
      : [];
  const { working, lastWorking } = workingComponents(ctx, terms);
  const headGradC = gradC(Math.max(gradsInForward, headGrad), ' (first gradients: output head)');
  // The head's weight gradient comes after the loss backward (its matmul runs next), except with a chunked loss,
  // where the chunks before the current one have already added theirs to it.
  const headAtLossC = headGradAtLoss ? headGradC : gradC(gradsInForward, terms.grads.inForwardNote);
  const accumC =
    headAccum > 0
      ? [
          comp(
            ctx,
            'backward-working',
            "Output head gradient of one chunk (summed into the head's gradient)",
            headAccum,
            () =>
              `V x h / TP x ${half} B: each output chunk's weight gradient is added to the running sum (autograd InputBuffer)`,
            () => ({ vocab: a.vocab, hidden: a.hidden }),
          ),
        ]
      : [];
  const atLoss: Component[] = [
    ...pers,
    headAtLossC,
    ...unsyncedAll,
    ...gatheredAt.loss,
    ...headGather,
    ...backwardStart,
    actComp,
    ...maskHeld,
    ...(ck === 'full' ? [] : castComp),
    ...outside,
    lossBackward(ctx, terms),
    ...terms.headDequant,
    ...accumC,
    ...terms.held.logits,
    ...terms.held.stepCache,
  ];
  const headHeld = terms.headHeldInBackward ? headGather : [];
  const atLastLayer: Component[] = [
    ...pers,
    headGradC,
    ...unsyncedAll,
    ...gatheredAt.lastLayer,
    ...headHeld,
    ...gradientsAtLastLayer(ctx, terms),
    actComp,
    ...maskHeld,
    ...castComp,
    ...recomputeC,
    lastWorking,
    ...dequantC,
    ...terms.held.logits,
    ...terms.held.stepCache,
  ];
  // Inside the last layer's recompute, before its backward's working set: the recompute's own high point, which holds
  // a quantized weight's dequantized copy where its matmul runs (the sequence makes it).
  const recomputePeakC = recomputePeakComponents(ctx, terms.activations.checkpointedLayer);
  const inRecompute = (point: Component[], workingC: Component): Component[] =>
    recomputePeakC.length > 0
      ? [...point.filter((c) => c !== workingC && !recomputeC.includes(c) && !dequantC.includes(c)), ...recomputePeakC]
      : [];
  const atRecompute = inRecompute(atLastLayer, lastWorking);
  const layerParts: LayerPointParts = {
    head: pers,
    afterGrads: unsyncedFirst,
    afterUnits: [...headHeld, ...gatheredGrads],
    tail: [...maskHeld, ...recomputeC, working, ...dequantC, ...terms.held.logits, ...terms.held.stepCache],
  };
  const atFirstLayer: Component[] = [
    ...layerParts.head,
    gradC(gradAtFirst, embGradLater > 0 ? " (all but the embedding's, which comes after the first layer)" : ''),
    ...layerParts.afterGrads,
    ...gatheredAt.firstLayer,
    ...layerParts.afterUnits,
    ...layerParts.tail,
  ];
  const atFirstRecompute = inRecompute(atFirstLayer, working);
  const atSecondLayer = secondLayerPoint(ctx, st, terms, gradC, layerParts);
  const atTransition = transitionPoint(ctx, terms, atLastLayer, [
    ...gatheredAt.lastLayer,
    ...recomputeC,
    lastWorking,
    ...dequantC,
  ]);
  const atRootGradient = rootGradientPoint(terms, gradC, pers, [...unsyncedFirst, ...headHeld]);
  const atRootGradientUnsynced = unsynced
    ? unsyncedRootGradientPoint(terms, pers, [unsynced.atRootGradient, ...headHeld])
    : [];
  const atEmbedding = embeddingPoint(
    ctx,
    terms,
    gradC,
    [...pers],
    [...unsyncedFirst, ...gatheredAt.firstLayer, ...headHeld],
  );
  return [
    [atLoss, LOSS_BACKWARD_NOTE],
    [atLastLayer, 'backward through the last layer: activations + one layer recomputed/in flight'],
    [atRecompute, "inside the last layer's recompute: activations + the recomputed layer at its high point"],
    [atSecondLayer, "backward through the second layer: the first layer's unit prefetched"],
    [atTransition, "between two layers' backwards: the next layer's unit gathered before the last is resharded"],
    [atFirstLayer, 'end of backward: all gradients + the first layer in flight'],
    [atFirstRecompute, "end of backward: all gradients + the first layer's recompute at its high point"],
    [atEmbedding, 'end of backward: all gradients + the embedding gradient of the tied head'],
    [atRootGradient, "end of backward: FSDP1's root unit makes its flat gradient"],
    [
      atRootGradientUnsynced,
      "end of a micro-batch's backward before the last: FSDP1's root unit makes its flat gradient beside every unit's " +
        'kept unsharded gradient (no_sync)',
    ],
  ];
}

/**
 * FSDP1 without backward prefetch, between two layers' backwards (GatheredAt.layerTransition): the last-layer point
 * without its layer (`layer`: its unit, recompute, working set and dequantized weight), with the two units and the
 * gradient of the layer output that passes between them; empty where there is no such point.
 */
function transitionPoint(
  ctx: EstimateContext,
  terms: StageTerms,
  atLastLayer: Component[],
  layer: Component[],
): Component[] {
  const units = terms.gatheredAt.layerTransition;
  if (!units) return [];
  const passed = comp(
    ctx,
    'activations',
    "Gradient of a layer's output (between two layers' backwards)",
    terms.activations.layer.layerInputBytes,
    () => 'tokens x hidden x the residual stream bytes',
    () => ({}),
  );
  return [...atLastLayer.filter((c) => !layer.includes(c)), ...units, passed];
}

/** What the first and the second layers' backward points share, in the order they are listed. */
interface LayerPointParts {
  /** The persistent components. */
  readonly head: Component[];
  /** After the gradients: the unsynced ones. */
  readonly afterGrads: Component[];
  /** After the gathered units: the root unit and one unit's unsharded gradients. */
  readonly afterUnits: Component[];
  /** The mask, the recomputed layer, its working set, dequantized weights and held blocks. */
  readonly tail: Component[];
}

/**
 * FSDP with backward prefetch: the second layer's backward, with the first layer's unit gathered beside its own, the
 * first layer's kept activations and every layer's sharded gradient but the first's (empty without prefetch). Its
 * sharded gradient is smaller than a unit, so with many ranks this is the backward's high point: H100 history of
 * Llama-3.1-8B under FSDP2 at 16 ranks, the local highs of the layers' backwards rise by 37.7 MB a layer (a 54,528,000 B
 * gradient shard made, a 16,777,216 B checkpointed input freed) up to the second layer's, 12,900.7 MB; the first
 * layer's, with nothing to prefetch, is 398 MB below it.
 */
function secondLayerPoint(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  gradC: GradientShare,
  parts: LayerPointParts,
): Component[] {
  const second = terms.gatheredAt.secondLayer;
  if (!second) return [];
  const { actComp } = terms.activations;
  const grads = Math.max(0, terms.grads.gradAtFirst - second.layerGradBytes);
  return [
    ...parts.head,
    gradC(grads, " (all but the first layer's and the embedding's)"),
    ...parts.afterGrads,
    ...second.units,
    ...parts.afterUnits,
    comp(
      ctx,
      'activations',
      "The first layer's kept activations",
      st.layersHere > 0 ? actComp.bytes / st.layersHere : 0,
      () => `${actComp.label}: one layer's share`,
      () => ({}),
    ),
    ...parts.tail,
  ];
}

/**
 * FSDP1's root unit makes its flat gradient once the embedding's is produced (terms/fsdp1-root-gradient.ts): every
 * layer unit's sharded gradient, the root's unsharded parameters and its gradients, before its own reduce-scatter
 * (empty without a root unit that trains). `held`: the unsynced gradients and the root unit, listed after the gradients.
 */
function rootGradientPoint(
  terms: StageTerms,
  gradC: GradientShare,
  persistent: Component[],
  held: Component[],
): Component[] {
  if (terms.rootGradient.length === 0) return [];
  const grads = terms.grads.gradAtEnd - terms.grads.rootGradShard;
  return [
    ...persistent,
    gradC(grads, " (every layer unit's; the root's is reduce-scattered next)"),
    ...held,
    ...terms.rootGradient,
    ...terms.held.logits,
    ...terms.held.stepCache,
  ];
}

/**
 * The same under no_sync in a micro-batch before the last: no unit has reduce-scattered, so every layer unit's unsharded
 * gradient is there (and the root's of the micro-batches before, into which the new flat gradient is then added in
 * place), and no sharded gradient. LitGPT's Gemma-2B full fine-tune over 4 A10Gs under Fabric's FSDP1 (config hub,
 * April 2024, 4 micro-batches a step): 17.43 GB published, 15.4 GB from the last micro-batch's points.
 */
function unsyncedRootGradientPoint(terms: StageTerms, persistent: Component[], held: Component[]): Component[] {
  if (terms.rootGradient.length === 0) return [];
  return [...persistent, ...held, ...terms.rootGradient, ...terms.held.logits, ...terms.held.stepCache];
}

/** The loss's backward: the gradient of the logits, by the kind of log-probabilities. */
function lossBackward(ctx: EstimateContext, terms: StageTerms): Component {
  const setup = ctx.setup;
  const { rollout, onlineDpo } = ctx.methods;
  const pref = setup.preference;
  return comp(
    ctx,
    'loss-backward',
    'Loss backward (gradient of logits)',
    terms.lossBwd,
    () =>
      onlineDpo
        ? "the gather's and log_softmax's gradients of the completion slice, then the zero-filled gradient of every position's logits"
        : (pref?.logps === 'rows' || rollout) && setup.loss !== 'fused'
          ? "the rows' log_softmax gradients and the logits' gradient stacked from them"
          : setup.loss === 'chunked-nll'
            ? "the last chunk's recompute under checkpointing (TRL chunked_nll), then its nll_loss and log_softmax gradients"
            : 'nll_loss and log_softmax gradients of the logits',
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

/**
 * The embedding's backward, after the first layer's: its gradient meets the tied head's there (empty where the head is
 * not tied, or nothing trains it). Under FSDP2 the root unit still holds the head's unsharded gradient and has not made
 * its shard (terms/fsdp2-root-gradient.ts).
 */
function embeddingPoint(
  ctx: EstimateContext,
  terms: StageTerms,
  gradC: GradientShare,
  persistent: Component[],
  held: Component[],
): Component[] {
  if (terms.tiedAccum <= 0) return [];
  const { shardLaterBytes, held: rootGradient } = terms.fsdp2Root;
  const note = shardLaterBytes > 0 ? " (all but the root unit's, reduce-scattered after the embedding's)" : '';
  return [
    ...persistent,
    gradC(terms.grads.gradAtEnd - shardLaterBytes, note),
    ...held,
    ...rootGradient,
    tiedAccumComponent(ctx, terms.tiedAccum),
    ...terms.held.logits,
    ...terms.held.stepCache,
  ];
}

/**
 * The tied weight's second gradient at the embedding's backward (terms/gradients.ts accumulationBuffers): beside the
 * head's, the lookup's and, when the head's is a matmul's view, their sum in a new tensor.
 */
function tiedAccumComponent(ctx: EstimateContext, tiedAccum: number): Component {
  const a = ctx.model.arch;
  const one = tiedGradientBytes(ctx);
  const copies = Math.round(tiedAccum / one);
  const each = tiedGradientFormula(ctx);
  return comp(
    ctx,
    'backward-working',
    "Embedding gradient summed with the tied output head's",
    tiedAccum,
    () =>
      copies > 1
        ? `${copies} x ${each}: the lookup's gradient and its sum with the head's, a view of the head's matmul that ` +
          'autograd cannot add to in place: all three alive until the sum is stored'
        : `${each}: the lookup's gradient, added in place to the head's (a sum of chunks already, a new tensor from ` +
          "autocast's cast of the fp32 head, or the fused loss's own)",
    () => ({ vocab: a.vocab, hidden: a.hidden, copies }),
  );
}
