// Term: what the caching allocator holds on the compute stream of a DeepSpeed ZeRO run beyond the peak's tensors, from
// a replay of the engine's initialisation and a training step through the allocator model (terms/allocator.ts). The
// initialisation as DeepSpeed's own code runs it: the model's weights (at stage 3 each parameter's partition,
// partition_parameters.py), the trained 16-bit parameters moved to the host, the cache emptied and the parameters
// brought back as one flat buffer (stage_1_and_2.py __init__ into bit16_groups_flat; stage3.py defragment), the fp32
// master partitions, the optimizer state created by a step over a zero gradient (initialize_optimizer_states: stage 3's
// gradient_buffer of the largest sub-group, stage 1/2's single_grad_partition, freed after), and at stage 3 its
// gradient bucket and gradient partitions (__ipg_bucket_flat_buffer, grad_partitions_flat_buffer). The step: the
// layers' forward and backward and the loss from the shared step replay (terms/step-replay.ts); ZeRO-1/2's gradient
// buckets made at the first gradient (before DeepSpeed 0.18.2 as the backward starts, stage_1_and_2.py backward) and
// stage 2's gradient partition (grads_in_partition) at its end, both freed by the step (_release_ipg_buffers); at
// stages 2 and 3 each gradient copied into the bucket as autograd makes it and dropped
// (reduce_independent_p_g_buckets_and_remove_grads; __add_grad_to_ipg_bucket), stage 1 keeping them to the step; the
// optimizer step, one group at a time, flattening the group's 16-bit gradients and casting them to fp32
// (stage_1_and_2.py step; stage3.py _prepare_fp32_grad_for_sub_group) with torch AdamW's foreach copy of the group's
// exp_avg_sq. ZeRO-3's gathered parameters live on its all-gather stream (overlap_comm), whose pool the runtime counts
// apart (estimate/runtime.ts); what the estimate's peak allocates beyond the replay's (the gathers, the reduce-scatter
// copies) is added to what the replay reserves. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import { checkpointReentrant } from './activations/kept-inputs';
import type { EstimateContext } from '../estimate/context';
import { zeroConfig } from '../estimate/zero-config';
import { formatBytes } from '../units';
import { bucketsBeforeLoss, deepspeedFlattensOnDevice } from '../estimate/deepspeed-release';
import { memo } from '../util/memo';
import { type Allocation, CachingAllocator } from './allocator';
import { blasWorkspace } from './blas-workspaces';
import type { StageForward } from './forward-cache';
import { shiftedLoss, transformersLoss } from './shifted-logits';
import {
  allocatorCapacity,
  allParts,
  boundedReplay,
  fusedTokenLoss,
  layerSequenceReplayed,
  lossAndOffloadKey,
  type ReplayParameter,
  replayLossAndOffload,
  replayScope,
  finalNormBackward,
  replayedFinalNorm,
  stackBackward,
  stackForward,
  type StepShape,
  type StepState,
  stepState,
  shiftedLossKey,
} from './step-replay';
import { lossForwardBackward } from './loss-replay';
import { type ParameterVisit, walkLayerParameters } from './layer-parameters';
import { replayedReserveTerm, type TwoStepReserve } from './two-step-cache';
import {
  adamwTemporariesKey,
  adamwTemporariesOf,
  replayAdamwTemporaries,
  type AdamwTemporaries,
} from './optimizer-step';

/** What the ZeRO replay allocates on the compute stream, in bytes (one rank, one micro-batch). */
export interface ZeroPlan extends StepShape {
  readonly stage: 1 | 2 | 3;
  /** Ranks the weights are partitioned over (stage 3), else 1. */
  readonly weightShards: number;
  /** Elements of the rank's fp32 partition in each optimizer group: ZeRO-3's sub-groups, one group at stages 1 and 2. */
  readonly groups: readonly number[];
  /** Elements of the trained 16-bit parameters flattened at initialisation: ZeRO-3's partitions, else whole. */
  readonly flatElements: number;
  /** ZeRO-1/2 makes the flat buffer on the GPU beside the weights where it has room (DeepSpeed 0.18.7 on). */
  readonly flattenOnDevice: boolean;
  /** Bytes per element of the trained parameters (the 16-bit copy) and of their gradients. */
  readonly paramBytes: number;
  readonly gradBytes: number;
  /**
   * The contiguous gradient buckets in bytes: ZeRO-1/2's made at each backward's first gradient (before DeepSpeed
   * 0.18.2 as the backward starts, `bucketsBeforeLoss`) and freed by the step (_release_ipg_buffers), ZeRO-3's one made
   * at initialisation (__ipg_bucket_flat_buffer).
   */
  readonly buckets: readonly number[];
  readonly bucketsBeforeLoss: boolean;
  /** torch AdamW's foreach copy of each group's exp_avg_sq (none in DeepSpeed's FusedAdam or torch's fused kernel). */
  readonly adamw: AdamwTemporaries;
  readonly capacity: number;
}

/** Peak reserved and allocated bytes of the replay. */
export interface ZeroReplay {
  readonly reserved: number;
  readonly peakAllocated: number;
}

/** Replays the initialisation and a step, bounded by the GPU (boundedReplay); memoized per plan. */
export const replayZero = memo(boundedReplay(replayZeroUncached), {
  limit: 64,
  scope: (p) => replayScope(p.sequence),
  key: (p) =>
    [
      p.stage,
      p.weightShards,
      p.groups.join(','),
      p.flatElements,
      +p.flattenOnDevice,
      p.paramBytes,
      p.gradBytes,
      p.buckets.join(','),
      +p.bucketsBeforeLoss,
      p.embedding.weight,
      p.embedding.grad,
      p.layer.map((x) => `${x.weight}/${x.grad}`).join(','),
      p.layers,
      p.head ? `${p.head.weight}/${p.head.grad}` : '-',
      +p.checkpointed,
      +(p.recomputeStopsEarly ?? false),
      p.hidden,
      p.logits,
      p.logitsFp32,
      adamwTemporariesKey(p.adamw),
      p.blasWorkspace,
      shiftedLossKey(p.shiftedLoss),
      lossAndOffloadKey(p),
      p.capacity,
    ].join('|'),
});

function replayZeroUncached(plan: ZeroPlan): ZeroReplay {
  const state = stepState(new CachingAllocator(plan.capacity), plan);
  initialise(state, plan);
  // One step: the optimizer state exists from the initialisation on, not made lazily at the first step as in
  // terms/two-step-cache.ts, so a second step finds the blocks the first left (on the six setups of FINDINGS §49 a
  // second step moved the estimate by 33 MB at most, and doubled the replay's cost).
  const heldToStep = trainingStep(state, plan);
  optimizerStep(state, plan);
  for (const h of heldToStep) state.allocator.free(h);
  return { reserved: state.allocator.peakReserved, peakAllocated: state.allocator.peakAllocated };
}

/**
 * The engine's initialisation: the weights as loaded (partitions at stage 3), the trained ones freed, the cache
 * emptied and one flat buffer of them made, the fp32 master partitions, the optimizer state made by a step over a zero
 * fp32 gradient that is freed after it, and stage 3's bucket and gradient partitions.
 */
function initialise(state: StepState, plan: ZeroPlan): void {
  const { allocator } = state;
  const weights = allParts(plan).map((p) => ({
    handle: allocator.malloc(Math.ceil(p.weight / plan.weightShards)),
    trained: p.grad > 0,
  }));
  const flatBytes = plan.flatElements * plan.paramBytes;
  if (flatBytes > 0 && plan.flattenOnDevice && plan.capacity - allocator.reserved >= flatBytes) {
    // Flattened on the GPU beside the weights, which the flat buffer's views then replace (stage_1_and_2.py __init__
    // flatten_on_accelerator, DeepSpeed 0.18.7 on): their blocks stay cached.
    allocator.malloc(flatBytes);
    for (const w of weights) if (w.trained) allocator.free(w.handle);
  } else if (flatBytes > 0) {
    // Moved to the host and back as one flat buffer, the cache emptied between (stage_1_and_2.py __init__: cpu_data,
    // empty_cache(), flatten_dense_tensors_aligned; stage3.py defragment: gc.collect(), empty_cache()).
    for (const w of weights) if (w.trained) allocator.free(w.handle);
    allocator.emptyCache();
    allocator.malloc(flatBytes);
  }
  for (const g of plan.groups) allocator.malloc(g * 4);
  if (plan.stage === 3) {
    const buffer = allocator.malloc(Math.max(...plan.groups) * 4);
    for (const g of plan.groups) for (let k = 0; k < 2; k++) allocator.malloc(g * 4);
    allocator.free(buffer);
  } else {
    for (const g of plan.groups) {
      const grad = allocator.malloc(g * 4);
      for (let k = 0; k < 2; k++) allocator.malloc(g * 4);
      allocator.free(grad);
    }
  }
  if (plan.stage === 3) {
    for (const b of plan.buckets) allocator.malloc(b);
    allocator.malloc(partitionElements(plan) * plan.gradBytes);
  }
}

const partitionElements = (plan: ZeroPlan): number => plan.groups.reduce((s, g) => s + g, 0);

/**
 * One forward and backward; at stages 2 and 3 the gradients are dropped once the reduce bucket has them. Returns what
 * the step frees: stage 1/2's buckets and stage 2's gradient partition.
 */
function trainingStep(state: StepState, plan: ZeroPlan): Allocation[] {
  const { allocator } = state;
  const heldToStep: Allocation[] = [];
  const makeBuckets = (): void => {
    if (plan.stage < 3) heldToStep.push(...plan.buckets.map((b) => allocator.malloc(b)));
  };
  if (plan.bucketsBeforeLoss) state.backwardStart = makeBuckets;
  const { normOut, kept } = stackForward(state);
  const gradHidden = lossForwardBackward(state);
  if (!plan.bucketsBeforeLoss) makeBuckets();
  allocator.free(normOut);
  finalNormBackward(state);
  releaseGrads(state, plan);
  stackBackward(state, kept, gradHidden, () => releaseGrads(state, plan));
  // Stage 2 copies the reduced gradients of its partition into grads_in_partition, freed by the step.
  if (plan.stage === 2) heldToStep.push(allocator.malloc(partitionElements(plan) * plan.gradBytes));
  return heldToStep;
}

/**
 * Stages 2 and 3 copy each gradient into the reduce bucket and drop autograd's tensor. A tied head's gradient waits for
 * the lookup's: the hook fires once AccumulateGrad has their sum (embeddingBackward).
 */
function releaseGrads(state: StepState, plan: ZeroPlan): void {
  if (plan.stage === 1) return;
  const waiting = state.tiedHeadGrad?.handle;
  for (const g of state.grads) if (g !== waiting) state.allocator.free(g);
  state.grads = waiting ? [waiting] : [];
}

/**
 * The optimizer step, one group at a time: the group's 16-bit gradients flattened and cast to an fp32 gradient (the
 * flat copy freed), torch AdamW's foreach temporary, the fp32 gradient freed; then stage 1's gradients (zero_grad).
 */
function optimizerStep(state: StepState, plan: ZeroPlan): void {
  const { allocator } = state;
  for (const g of plan.groups) {
    const flat = allocator.malloc(g * plan.gradBytes);
    const fp32 = allocator.malloc(g * 4);
    allocator.free(flat);
    replayAdamwTemporaries(allocator, [g * 4], plan.adamw);
    allocator.free(fp32);
  }
  for (const g of state.grads) allocator.free(g);
  state.grads = [];
}

/**
 * The setups the replay stands for: DeepSpeed ZeRO 1-3 over every rank without offload, a full fine-tune or plain LoRA
 * (no quantization, no DoRA) of a dense decoder, transformers' own loss over the whole logits freed before the backward
 * (not a loop that keeps its outputs) or a fused linear cross-entropy, activation offloading only under full
 * checkpointing, torch AdamW or a fused Adam.
 */
export function zeroReplayed(ctx: EstimateContext, forward: StageForward): boolean {
  const setup = ctx.setup;
  const { sharding, layout } = ctx;
  const lora = setup.method === 'lora' && ctx.methods.peft && !ctx.methods.lora?.use_dora;
  return (
    forward.sequence !== undefined &&
    forward.hasLoss &&
    (transformersLoss(ctx) || fusedTokenLoss(ctx)) &&
    !sharding.fsdp &&
    sharding.zeroStage >= 1 &&
    sharding.shardOptimizer === layout.dataParallel &&
    !sharding.offloadOptimizer &&
    !sharding.offloadParams &&
    (setup.method === 'full' || lora) &&
    setup.quantization === undefined &&
    ctx.model.arch.moe === undefined &&
    ctx.model.lmHead &&
    !ctx.methods.galore &&
    !ctx.methods.rollout &&
    setup.preference === undefined &&
    setup.loop_keeps_outputs === false &&
    layout.tensorParallel === 1 &&
    layout.pipelineParallel === 1 &&
    layout.contextParallel === 1 &&
    !setup.expandable_segments &&
    layerSequenceReplayed(setup) &&
    (setup.optimizer === 'adamw' || setup.optimizer === 'adamw_fused')
  );
}

/** ZeRO-3's optimizer sub-groups (stage3.py _create_fp16_sub_groups): whole partitions added until one reaches the size. */
function subGroups(partitions: readonly number[], size: number): number[] {
  const out: number[] = [];
  let sum = 0;
  for (const p of partitions) {
    sum += p;
    if (sum >= size) {
      out.push(sum);
      sum = 0;
    }
  }
  if (sum > 0 || out.length === 0) out.push(sum);
  return out;
}

/** The replay's plan, undefined for the setups it does not stand for. */
export function zeroPlan(ctx: EstimateContext, forward: StageForward, capacity = Infinity): ZeroPlan | undefined {
  const seq = forward.sequence;
  if (seq === undefined || !zeroReplayed(ctx, forward)) return undefined;
  const a = ctx.model.arch;
  const inv = ctx.model.inventory;
  const { embeddingBytes, gradBytes, logitsBytes, residualBytes } = ctx.dtypes;
  const full = ctx.setup.method === 'full';
  const stage = ctx.sharding.zeroStage as 1 | 2 | 3;
  const world = ctx.sharding.shardOptimizer;
  const parameter = (elems: number, bytes: number, trainable: boolean): ReplayParameter => ({
    weight: elems * bytes,
    grad: trainable ? elems * Math.max(gradBytes, bytes) : 0,
    state: 0,
  });
  const layer: ReplayParameter[] = [];
  const layerTrained: number[] = [];
  const visit: ParameterVisit = (rows, cols, bytes, trainable, op) => {
    layer.push({ ...parameter(rows * cols, bytes, trainable), op });
    if (trainable) layerTrained.push(rows * cols);
  };
  const walked = walkLayerParameters(ctx, visit, seq.linears);
  if (!walked) return undefined;
  const embedding = parameter(inv.embedding, embeddingBytes, full);
  const head = inv.head > 0 ? parameter(inv.head, embeddingBytes, full) : undefined;
  // The trained parameters in module order: the embedding and an untied head only in a full fine-tune.
  const trained = [
    ...(full ? [inv.embedding] : []),
    ...Array.from({ length: forward.layers }, () => layerTrained).flat(),
    ...(full && head ? [inv.head] : []),
  ];
  const wholeTrained = trained.reduce((s, e) => s + e, 0);
  const zb = zeroConfig(ctx.setup, a.hidden);
  const bucketCount = zb.contiguous_gradients === false ? 0 : stage < 3 && zb.overlap_comm === true ? 2 : 1;
  const buckets = Array.from({ length: bucketCount }, () => zb.reduce_bucket_size * ctx.dtypes.weightBytes);
  const partitions = trained.map((e) => Math.ceil(e / world));
  const partitioned = partitions.reduce((s, p) => s + p, 0);
  const groups = stage === 3 ? subGroups(partitions, zb.sub_group_size) : [Math.ceil(wholeTrained / world)];
  const tokens = forward.tokens;
  return {
    embedding,
    layer,
    layers: forward.layers,
    head,
    sequence: seq,
    checkpointed: ctx.setup.gradient_checkpointing === 'full',
    recomputeStopsEarly: !checkpointReentrant(ctx.setup),
    finalNorm: replayedFinalNorm(ctx, tokens, residualBytes),
    hidden: tokens * a.hidden * residualBytes,
    logits: tokens * a.vocab * logitsBytes,
    logitsFp32: tokens * a.vocab * 4,
    blasWorkspace: blasWorkspace(ctx),
    ...replayLossAndOffload(ctx, tokens, (head ?? embedding).grad),
    shiftedLoss: shiftedLoss(ctx),
    stage,
    weightShards: stage === 3 ? world : 1,
    groups,
    flatElements: stage === 3 ? partitioned : wholeTrained,
    flattenOnDevice: stage < 3 && deepspeedFlattensOnDevice(ctx.setup),
    paramBytes: full ? ctx.dtypes.weightBytes : ctx.dtypes.adapterBytes,
    gradBytes,
    buckets,
    bucketsBeforeLoss: bucketsBeforeLoss(ctx.setup),
    adamw: adamwTemporariesOf(ctx.setup),
    capacity,
  };
}

/**
 * What the allocator reserves on the compute stream of a ZeRO setup the replay stands for: the replay's peak reserved
 * bytes, plus what the estimate's peak allocates beyond the replay's (the buckets, ZeRO-3's gathered parameters),
 * never less than the peak; undefined for the other setups.
 */
export function zeroStepReserve(
  ctx: EstimateContext,
  forward: StageForward,
  peakAllocated: number,
  outsideReserved: number,
): TwoStepReserve | undefined {
  const plan = zeroPlan(ctx, forward, allocatorCapacity(ctx, outsideReserved));
  if (!plan) return undefined;
  const replay = replayZero(plan);
  return replayedReserveTerm(
    ctx,
    'zero-step-cache',
    `Cached by the allocator (replay of ZeRO-${plan.stage}'s initialisation and a step)`,
    peakAllocated,
    replay,
    plan.capacity,
    (beyond) =>
      `allocator replay of the engine's initialisation and a ZeRO-${plan.stage} step on the compute stream ` +
      `reserves ${formatBytes(replay.reserved)} at ${formatBytes(replay.peakAllocated)} allocated${beyond}: the ` +
      'blocks the flattened parameters, the optimizer state made at initialisation, the logits, the loss and the ' +
      'layers left free',
  );
}
