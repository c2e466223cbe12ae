// The busiest rank: one StageContext per distinct pipeline stage (the first and the last hold the embeddings and the
// head), with the stage's share of every kind of parameter. Pure.
// Docs: docs/estimate/index.md
import { frozenUnitInputs } from '../terms/fsdp1-frozen-inputs';
import { fsdp1RootGradient } from '../terms/fsdp1-root-gradient';
import { fsdp2RootGradient } from '../terms/fsdp2-root-gradient';
import { headDequant, quantizedHead } from '../terms/quantized-head';
import { ddpOutputsClone } from '../terms/ddp-outputs';
import { heldStepOutputs } from '../terms/previous-step';
import type { Component, PhaseEstimate } from '../model';
import { forwardsPerExample, sequencesPerExample } from '../setup';
import { blasWorkspaces } from '../terms/blas-workspaces';
import { adapterWeights } from '../terms/adapters';
import { type StageActivations, stageActivations } from '../terms/activations/stage';
import { dequantWorkingSets } from '../terms/activations/dequant';
import { evaluationWork } from '../terms/evaluation';
import { generationComponents, rolloutEngine } from '../terms/generation';
import { accumulationBuffers, ddpBuckets, gradientPlan } from '../terms/gradients';
import { logitsAndLoss } from '../terms/logits-loss';
import { masterWeights } from '../terms/master-weights';
import { optimizerStates } from '../terms/optimizer-states';
import { frozenModelWeights, referenceForward, rewardForwards } from '../terms/reference-models';
import { shardingBuffers } from '../terms/sharding-buffers';
import { zero3LaunchLead } from '../terms/zero3-launch-lead';
import { weights } from '../terms/weights';
import { sum } from './component';
import type { EstimateContext, StageContext } from './context';
import { fsdp2ExpertPadding } from './fsdp2-padding';
import { type LossPoint, phasesFor, type StageTerms, type StreamPoolLedger } from './phases';
import { roundedTotal } from './lean-phases';
import type { StageForward } from '../terms/forward-cache';
import { cudaContextBytes, sideStreamPools } from './runtime';

/** The geometry of pipeline stage `stageIndex` as one of its GPUs holds it. */
export function stageContext(ctx: EstimateContext, stageIndex: number): StageContext {
  const setup = ctx.setup;
  const { arch: a, modules: mods, inventory: inv } = ctx.model;
  const { tensorParallel: tp, pipelineParallel: pp, contextParallel: cp } = ctx.layout;
  const { shardOptimizer, shardGrads, shardParams, zeroStage: zero } = ctx.sharding;
  const { denseBytes, embeddingBytes: embBytes } = ctx.dtypes;
  const first = stageIndex === 0;
  const last = stageIndex === pp - 1;
  const layersHere = Math.ceil(a.layers / pp);
  const layerShare = layersHere / a.layers;
  // A device_map split runs each micro-batch through every GPU before the next starts: one in flight.
  const sequential = pp === 1 || setup.pipeline_schedule === 'device_map';
  const inFlight = sequential ? 1 : Math.min(pp - stageIndex, setup.gradient_accumulation_steps);

  // Block linears split by TP; embeddings/head vocab-parallel; experts by EP; stage share by PP.
  // Expert parallelism splits each MoE layer's experts over ep ranks; ZeRO / FSDP then shard a rank's experts over
  // the ranks that hold the same ones (the expert-data-parallel group: S / ep of a shard group of S; DeepSpeed-MoE's
  // expert data parallel groups, torchtitan's dp_shard_mod_ep mesh). So an expert quantity sharded over S is divided
  // by max(ep, S) per GPU, not by ep x S: blockFor(S) is the block parameter count that is then divided by S.
  // gpt-oss's experts carry biases ([E, 2f], [E, h]), split and padded with their weights.
  const expertParams = a.moe
    ? mods
        .filter((m) => m.group === 'expert')
        .reduce((s, m) => s + (m.inFeatures + (m.bias ? 1 : 0)) * m.outFeatures * m.count, 0)
    : 0;
  const blockParams = blockFor(ctx, expertParams, layerShare, shardParams);
  // A 4-bit head (Fabric's bitsandbytes precision) is counted with the quantized weights, not the 16-bit ones.
  const headQuant = last && quantizedHead(setup, a) ? inv.head : 0;
  const embHere = (first ? inv.embedding : 0) + (last ? inv.head : 0) - headQuant;
  const blockQuant = (inv.quantized * layerShare) / tp;
  const quantHere = blockQuant + headQuant / tp;
  const denseBlock = blockParams / tp - blockQuant;
  // A vision tower (Gemma 3) sits with the embeddings on the first stage, in the model dtype.
  const visionHere = first ? inv.vision / tp : 0;
  const unquantizedParams = denseBlock + embHere / tp + visionHere;
  const modelBytes = denseBlock * denseBytes + (embHere / tp) * embBytes + visionHere * embBytes;
  // Trainable parameters to divide by the optimizer's shard degree, by the gradients' and by ZeRO's flat buffer's
  // (they differ only for the experts under expert parallelism, see blockFor).
  // Under a value head the untied LM head gets no gradient (its logits reach no loss): not trained.
  const headUnused = setup.method === 'full' && last && !inv.headTrainable ? inv.head : 0;
  // A vision tower trained with the model (freeze_vision_tower false) is trained beside the embeddings.
  const visionTrained = setup.vision_tower_trained && first ? inv.vision : 0;
  const trainedOutside = embHere - headUnused + visionTrained;
  const trainableHere = trainableFor(ctx, expertParams, layerShare, last, trainedOutside, shardOptimizer);
  const trainableGradHere = trainableFor(ctx, expertParams, layerShare, last, trainedOutside, shardGrads);
  const flatHere = trainableFor(ctx, expertParams, layerShare, last, trainedOutside, zero === 3 ? shardParams : 1);
  // Paired preference training runs the chosen and the rejected sequence of each example in one forward.
  const seqs = setup.micro_batch_size * sequencesPerExample(setup);
  // Each context-parallel rank holds its share of every sequence.
  const seqHere = setup.seq_len / cp;
  const T = seqs * seqHere;
  return {
    stage: stageIndex,
    first,
    last,
    layersHere,
    layerShare,
    inFlight,
    graphsHeld: inFlight * forwardsPerExample(setup),
    expertParams,
    blockParams,
    embeddingHere: embHere,
    quantizedHere: quantHere,
    denseBlock,
    visionHere,
    unquantizedParams,
    modelBytes,
    trainableHere,
    trainableGradHere,
    flatHere,
    sequences: seqs,
    seqHere,
    tokens: T,
  };
}

/** The block parameters of a stage that are then divided by S (experts: over the expert-data-parallel group). */
function blockFor(ctx: EstimateContext, expertParams: number, layerShare: number, S: number): number {
  const { arch: a, inventory: inv } = ctx.model;
  const ep = ctx.layout.expertParallel;
  const epCut = a.moe && ep > 1 ? expertParams * (1 - Math.min(ep, Number.isFinite(S) ? S : 1) / ep) : 0;
  // FSDP2 pads the fused experts' dim-0 shards (fsdp2-padding.ts): counted as that many more expert parameters.
  const padded = expertParams * (fsdp2ExpertPadding(ctx, S) - 1);
  return (inv.blocks - epCut + padded) * layerShare;
}

/**
 * A stage's trainable parameters per GPU to divide by a shard degree S; `embTrained`: its trained embedding, head (and
 * vision tower) parameters.
 */
function trainableFor(
  ctx: EstimateContext,
  expertParams: number,
  layerShare: number,
  last: boolean,
  embTrained: number,
  S: number,
): number {
  const setup = ctx.setup;
  const inv = ctx.model.inventory;
  const tp = ctx.layout.tensorParallel;
  return setup.method === 'full'
    ? blockFor(ctx, expertParams, layerShare, S) / tp + embTrained / tp
    : (inv.trainable * (setup.method === 'freeze' ? (last ? 1 : 0) : layerShare)) /
        (setup.method === 'freeze' ? 1 : tp);
}

/**
 * Under EstimateOptions.reservedLowerBound, a stage whose model states (weights, adapters, master copy, optimizer
 * states) with the CUDA context already exceed the GPU: one phase of those states alone, a lower bound of every phase
 * (each holds them), which the runtime terms then report as a lower bound that does not fit. Undefined otherwise.
 * `held` is what the bound counts: the model states, or (lean-phases.ts) the states with the activations saved for
 * backward, which the forward holds together at its end (its `fwd` is their sum and more).
 */
function statesExceedGpu(
  ctx: EstimateContext,
  st: StageContext,
  held: readonly Component[],
  states = sum(held),
): ReturnType<typeof stagePhases> | undefined {
  if (!ctx.reservedLowerBound || !ctx.gpu) return undefined;
  const contextBytes = cudaContextBytes(ctx.setup);
  if (states + contextBytes <= ctx.gpu.memoryBytes * (1 - ctx.headroomFraction)) return undefined;
  return {
    phases: [{ phase: 'forward', allocatedBytes: states, components: [...held], note: '' }],
    lossTensorBytes: undefined,
    forward: { sequence: undefined, layers: st.layersHere, tokens: st.tokens, lossBackwardBytes: 0, hasLoss: st.last },
  };
}

/**
 * statesExceedGpu with the activations saved for backward beside the model states known so far: the lean forward
 * (lean-phases.ts `fwd`) holds both, the states rounded and the activations as they are, and more.
 */
function activationsExceedGpu(
  ctx: EstimateContext,
  st: StageContext,
  persistent: readonly Component[],
  activations: StageActivations,
): ReturnType<typeof stagePhases> | undefined {
  const held = [...persistent, activations.actComp];
  return statesExceedGpu(ctx, st, held, roundedTotal(persistent) + activations.actComp.bytes);
}

/**
 * The phases of one pipeline stage, from its terms in the order the persistent components are listed; the loss's
 * largest tensors when the stage computes the loss.
 */
function stagePhases(
  ctx: EstimateContext,
  stageIndex: number,
  poolsAtPhase: StreamPoolLedger | undefined,
): { phases: PhaseEstimate[]; lossTensorBytes: number | undefined; forward: StageForward } {
  const st = stageContext(ctx, stageIndex);
  const modelWeights = [
    ...weights(ctx, st),
    ...frozenModelWeights(ctx, st),
    ...adapterWeights(ctx, st),
    ...masterWeights(ctx, st),
  ];
  // States on the GPU for the optimizer step only are held at the step's point, not through the passes.
  const states = optimizerStates(ctx, st);
  const where = ctx.setup.optimizer_states_gpu;
  const persistent: Component[] = [...modelWeights, ...(where === 'step' ? [] : states)];
  const bound = statesExceedGpu(ctx, st, persistent);
  if (bound) return bound;
  // The lean path (the advice search's candidates) has its activations first: with the states, a bound on its forward
  // that rules most candidates out before their other terms are built. (The full path keeps its notes' order.)
  const leanActivations = ctx.lean ? stageActivations(ctx, st) : undefined;
  const withActivations = leanActivations && activationsExceedGpu(ctx, st, persistent, leanActivations);
  if (withActivations) return withActivations;

  const engineC = rolloutEngine(ctx, persistent, cudaContextBytes(ctx.setup));
  if (!ctx.methods.rollout?.vllm_sleep) persistent.push(...engineC);
  const { terms, activations, loss, zero3LayerBytes } = stageTerms(ctx, st, {
    persistent,
    modelWeights,
    states,
    engineC,
    leanActivations,
  });
  const lossPoint: LossPoint = { allocatedBytes: 0 };
  const phases = phasesFor(ctx, st, terms, poolsAtPhase, lossPoint);
  return {
    phases,
    lossTensorBytes: loss ? loss.lossTensorBytes : undefined,
    forward: {
      sequence: activations.layer.forwardSequence,
      layers: st.layersHere,
      tokens: st.tokens,
      lossBackwardBytes: lossPoint.allocatedBytes,
      hasLoss: st.last,
      zero3LaunchLead: zero3LaunchLead(ctx, st, activations.layer.forwardSequence, zero3LayerBytes),
    },
  };
}

/** What stagePhases has before its terms: the states held through the passes, and the activations the lean path built. */
interface StageStates {
  readonly persistent: Component[];
  readonly modelWeights: Component[];
  readonly states: Component[];
  readonly engineC: Component[];
  readonly leanActivations: StageActivations | undefined;
}

/**
 * The terms of one stage's phases beside its persistent states: gradients, sharding buffers, activations, the loss, the
 * forwards of a reference or reward model, evaluation and generation (phases.ts places them). Appends the DDP buckets,
 * the sharding buffers and the cuBLAS workspaces to `persistent`.
 */
function stageTerms(
  ctx: EstimateContext,
  st: StageContext,
  { persistent, modelWeights, states, engineC, leanActivations }: StageStates,
): {
  terms: StageTerms;
  activations: StageActivations;
  loss: ReturnType<typeof logitsAndLoss>;
  zero3LayerBytes: ReturnType<typeof shardingBuffers>['zero3LayerBytes'];
} {
  const where = ctx.setup.optimizer_states_gpu;
  const grads = gradientPlan(ctx, st);
  const sharding = shardingBuffers(ctx, st);
  const { gathered, gatheredAt, gatheredGrads, backwardStart, headGather, gatherInFlight } = sharding;
  persistent.push(...ddpBuckets(ctx, st, grads), ...sharding.persistent, ...blasWorkspaces(ctx));

  const activations = leanActivations ?? stageActivations(ctx, st);
  const { headAccum, tiedAccum, headGradAtLoss } = accumulationBuffers(ctx, st);
  const { dequantFwdC, dequantC, dequantFwdBytes, dequantBytes } = dequantWorkingSets(
    ctx,
    st,
    activations.layer.backwardWorkingBytes,
    activations.checkpointedLayer !== undefined,
  );
  const { refForwardBytes, refForwardFormula } = referenceForward(ctx, st);
  const rewardFwdC = rewardForwards(ctx, st);
  const evaluation = evaluationWork(ctx, st, activations.layerPlan, grads.gradStored);
  const { gradStored, gradLabel, gradFormula } = grads;
  // Weights moved to the host while a colocated engine generates, back for the passes that score (weights_gpu).
  const weightsOffWhileGenerating =
    ctx.setup.weights_gpu === 'training' && ctx.methods.generation?.engine === 'vllm-colocate' ? modelWeights : [];
  const genComps = generationComponents(ctx, st, {
    weightsOffWhileGenerating,
    gathered,
    headGather,
    engineC,
    gradStored,
    gradLabel,
    gradFormula,
    gradsKeptInEval: evaluation.gradsKeptInEval,
  });
  const loss = logitsAndLoss(ctx, st);
  const terms: StageTerms = {
    persistent,
    stepStates: where === 'step' ? states : [],
    statesOffWhileGenerating: where === 'training' ? states : [],
    weightsOffWhileGenerating,
    engineC,
    grads,
    gathered,
    gatheredAt,
    gatheredGrads,
    unitGradients: sharding.unitGradients,
    backwardStart,
    headGather,
    headHeldInBackward: sharding.headHeldInBackward,
    headHeldOnGatherStream: sharding.headHeldOnGatherStream,
    gatherInFlight,
    activations,
    headAccum,
    headGradAtLoss,
    tiedAccum,
    rootGradient: fsdp1RootGradient(ctx, st),
    frozenUnitInputs: frozenUnitInputs(ctx, st, activations.layer.layerInputBytes),
    fsdp2Root: fsdp2RootGradient(ctx, st),
    dequantFwdC,
    dequantC,
    dequantFwdBytes,
    dequantBytes,
    refForwardBytes,
    refForwardFormula,
    rewardFwdC,
    evaluation,
    genComps,
    outside: loss ? loss.outside : [],
    headDequant: headDequant(ctx, st),
    ddpOutputs: ddpOutputsClone(ctx, st),
    held: heldStepOutputs(ctx, st, activations),
    lossFwd: loss ? loss.lossFwd : 0,
    lossBwd: loss ? loss.lossBwd : 0,
  };
  return { terms, activations, loss, zero3LayerBytes: sharding.zero3LayerBytes };
}

/** The busiest rank: each distinct pipeline stage evaluated, the one with the highest peak kept. */
export function busiestStage(ctx: EstimateContext): {
  phases: PhaseEstimate[];
  peak: PhaseEstimate;
  stage: number;
  lossTensorBytes: number;
  poolsAtPhase: StreamPoolLedger | undefined;
  forward: StageForward;
} {
  const pp = ctx.layout.pipelineParallel;
  // The side streams' pools (estimate/runtime.ts) need the gradients and gathered units allocated at each phase's high point.
  const pools = sideStreamPools(ctx);
  const poolsAtPhase: StreamPoolLedger | undefined =
    pools.reduceScatter || pools.allGather ? { points: [], unitCapacity: 0 } : undefined;
  // Bytes of the vocabulary-sized tensors live at the loss (set by the last stage): the largest tensors of a step.
  let lossTensorBytes = 0;
  const stages = pp === 1 ? [0] : [0, pp - 1];
  let best: { phases: PhaseEstimate[]; peak: PhaseEstimate; stage: number; forward: StageForward } | undefined;
  for (const stage of stages) {
    const run = stagePhases(ctx, stage, poolsAtPhase);
    if (run.lossTensorBytes !== undefined) lossTensorBytes = run.lossTensorBytes;
    const phases = run.phases;
    const peak = phases.reduce((m, p) => (p.allocatedBytes > m.allocatedBytes ? p : m));
    if (!best || peak.allocatedBytes > best.peak.allocatedBytes) best = { phases, peak, stage, forward: run.forward };
  }
  // (Fields copied one by one: an object spread here makes every estimate several times slower in V8.)
  return {
    phases: best!.phases,
    peak: best!.peak,
    stage: best!.stage,
    lossTensorBytes,
    poolsAtPhase,
    forward: best!.forward,
  };
}
