// Term: the segments an FSDP2 (fully_shard) training step leaves reserved on each of its three streams. FSDP2 gathers
// each unit's parameters on its all-gather copy-in stream (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py
// foreach_all_gather: the all-gather output, and with CPU offload each shard's host-to-device copy and 16-bit cast,
// under `all_gather_copy_in_stream`), copies them out into per-parameter unsharded tensors on the compute stream
// (foreach_all_gather_copy_out), and reduces the gradients on its reduce-scatter stream (foreach_reduce: the
// reduce-scatter input on the compute stream, its output, the cast back to the parameters' dtype and the kept gradient
// shards under `reduce_scatter_stream`). The caching allocator keeps each stream's blocks apart
// (c10/cuda/CUDACachingAllocator.cpp: a block is reused only by requests of the stream it was allocated on), and on the
// compute stream the root unit's gathered embedding and head, its vocabulary-sized gradients and reduce-scatter input,
// and the loss's fp32 tensors are requests no other block holds. What the GPU reserves is the sum of the three
// streams' segments, which this term finds by replaying the load and two steps of FSDP2's own order through three
// allocator models (terms/allocator.ts): the root gathered first and kept to the end of the backward
// (reshard_after_forward off for the root), each layer gathered in its pre-forward with the previous all-gather output
// freed after the copy-out (AllGatherState), resharded after its forward, gathered again for the backward with the
// next unit prefetched (_backward_prefetch), its gradients reduce-scattered in post_backward with one reduce-scatter
// input in flight (reduce_scatter_states, max_input_buffers 1), and AdamW's state created at the first step. The
// layers' forward and backward and the loss come from the shared step replay (terms/step-replay.ts). The term is what
// the replay reserves beyond the reserved figure of the other terms. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import { checkpointReentrant } from './activations/kept-inputs';
import { runtimeTerm } from '../estimate/component';
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { fsdpTailUnit } from '../setup';
import { type Allocation, CachingAllocator } from './allocator';
import { blasWorkspace } from './blas-workspaces';
import type { StageForward } from './forward-cache';
import {
  type Alive,
  allocatorCapacity,
  blasWorkspaceAt,
  embeddingBackward,
  fsdpStepReplayed,
  layerBackward,
  layerForward,
  layerRecompute,
  replayedMicroBatches,
  replayLossAndOffload,
  type ReplayParameter,
  replayScope,
  finalNormForward,
  replayedFinalNorm,
  type StepShape,
  stepShapeKey,
  stepState,
  type StepState,
} from './step-replay';
import { type ParameterVisit, walkLayerParameters } from './layer-parameters';
import { replayLoss } from './chunked-nll-replay';
import { restOfTwoSteps, resumableReplay } from './resumable-replay';
import { adamwTemporariesKey, adamwTemporariesOf, replayOptimizerStep, type AdamwTemporaries } from './optimizer-step';

/** One parameter as FSDP2 shards it: dim 0 split over the ranks, padded to a multiple of the world size. */
export interface ShardedParameter {
  /** Elements of the rank's (padded) shard: ceil(dim0 / world) x the other dimensions. */
  readonly shard: number;
  /** Bytes per element of the sharded parameter (the model's dtype; a LoRA adapter's own). */
  readonly bytes: number;
  /** Whether it trains (gets a gradient, a reduce-scatter and optimizer state). */
  readonly trainable: boolean;
}

/** What the FSDP2 replay allocates: the step's shape on the compute stream plus each unit's shards, in bytes per element. */
export interface Fsdp2Plan extends StepShape {
  readonly world: number;
  /**
   * The root unit's parameters (embedding, final norm, untied head) and one layer unit's, in module order. With a
   * tail unit (fsdp_tail_unit) the root's are split: `embeddingShards` (untied: a unit resharded after its forward;
   * tied: none) and `rootShards` the tail's (final norm and head, the tied embedding first).
   */
  readonly rootShards: readonly ShardedParameter[];
  readonly layerShards: readonly ShardedParameter[];
  readonly embeddingShards?: readonly ShardedParameter[];
  /** Of the gathered parameters and the reduce-scatter (MixedPrecisionPolicy param_dtype / reduce_dtype). */
  readonly paramBytes: number;
  readonly stateBytes: number;
  /** CPUOffloadPolicy: shards, gradients and the optimizer on the host. */
  readonly offload: boolean;
  /**
   * Micro-batches replayed per step (step-replay.ts replayedMicroBatches): 2 under a deferred gradient sync
   * (set_requires_gradient_sync(False) on every micro-batch but the last: the HF Trainer's no_sync), else 1.
   */
  readonly microBatches: number;
  readonly adamw: AdamwTemporaries;
  /** The states are on the GPU for the optimizer step only (optimizer_states_gpu 'step'): moved in and out each step. */
  readonly statesEachStep?: boolean;
  /** Bytes the driver can hand out (the chosen GPU less the context and NCCL): cached segments are released beyond. */
  readonly capacity: number;
}

/** Peak reserved bytes of the replay: in all, and on each stream; and its peak allocated bytes. */
export interface Fsdp2Replay {
  readonly reserved: number;
  readonly peakAllocated: number;
  readonly compute: number;
  readonly allGather: number;
  readonly reduceScatter: number;
}

/** FSDP2's side streams in the allocator model (the compute stream is 0). */
const ALL_GATHER_STREAM = 1;
const REDUCE_SCATTER_STREAM = 2;

/** What one unit (the root, or any layer) asks of the allocator, in bytes: worked out once per replay. */
interface UnitRequests {
  readonly shards: readonly ShardedParameter[];
  /** Each parameter's unsharded tensor of the copy-out (world x its shard, in the gather dtype). */
  readonly unsharded: readonly number[];
  /** The all-gather inputs: under CPU offload each shard's copy and its cast (0: no cast); else the flat cast, if any. */
  readonly offloadCopies: readonly { readonly copy: number; readonly cast: number }[];
  readonly flatCast: number;
  /** The all-gather output: world x the shards, in the gather dtype. */
  readonly output: number;
  /** Elements of the trained shards (0: nothing to reduce), the reduce-scatter input and output, the output's cast. */
  readonly trained: number;
  readonly reduceInput: number;
  readonly reduceOutput: number;
  /** The reduce-scatter output cast to the parameters' dtype (0 when it is already that). */
  readonly castOutput: number;
}

function unitRequests(plan: Fsdp2Plan, shards: readonly ShardedParameter[]): UnitRequests {
  const { world, paramBytes } = plan;
  const sum = (ps: readonly ShardedParameter[], bytes: (p: ShardedParameter) => number): number =>
    ps.reduce((s, p) => s + p.shard * bytes(p), 0);
  const cast = (p: ShardedParameter): boolean => p.bytes !== paramBytes;
  const trainedShards = shards.filter((p) => p.trainable);
  const trained = sum(trainedShards, () => 1);
  const castOutput = sum(trainedShards, (p) => p.bytes);
  return {
    shards,
    unsharded: shards.map((p) => world * p.shard * paramBytes),
    offloadCopies: shards.map((p) => ({ copy: p.shard * p.bytes, cast: cast(p) ? p.shard * paramBytes : 0 })),
    flatCast: sum(shards.filter(cast), () => paramBytes),
    output: world * sum(shards, () => paramBytes),
    trained,
    reduceInput: world * trained * paramBytes,
    reduceOutput: trained * paramBytes,
    castOutput: castOutput === trained * paramBytes ? 0 : castOutput,
  };
}

/** The replay's running state: the step state on the compute stream (its allocator holds all three), what is in flight. */
interface Fsdp2State {
  readonly plan: Fsdp2Plan;
  readonly step: StepState;
  readonly root: UnitRequests;
  readonly layer: UnitRequests;
  /** The untied embedding's unit beside a tail unit (the root's requests are then the tail's). */
  readonly embedding: UnitRequests | undefined;
  /** The last all-gather output held for the next copy-out (AllGatherState), and a prefetched one not yet copied out. */
  held: Allocation | undefined;
  prefetched: Allocation | undefined;
  /** The reduce-scatter input in flight (reduce_scatter_states), freed before the next one. */
  reduceInput: Allocation | undefined;
  /** Gradient shards kept on the reduce-scatter stream to zero_grad (none with CPU offload). */
  gradShards: Allocation[];
  /** Whether this micro-batch reduces its gradients (the last of a step, or every one without a deferred sync). */
  sync: boolean;
  /** Each unit's unsharded gradients held from an earlier micro-batch of the step, by unit (unitSlot). */
  readonly accumulated: Map<number, Allocation[]>;
}

/** A unit's place in `accumulated`: a layer's index, or the root (the tail with a tail unit) and the embedding's unit. */
const ROOT_SLOT = -1;
const EMBEDDING_SLOT = -2;

const shardKey = (s: readonly ShardedParameter[]): string =>
  s.map((x) => `${x.shard}x${x.bytes}${x.trainable ? 't' : 'f'}`).join(',');

/**
 * The load and two FSDP2 steps, bounded by the GPU (resumable-replay.ts): `first` stops after the first
 * micro-batch, `whole` goes on from there; memoized per plan (the advice search and the editor's changes repeat plans).
 */
const fsdp2Replays = resumableReplay(
  { start: startFsdp2, finish: finishFsdp2, result: fsdp2Result },
  {
    limit: 64,
    scope: (p) => replayScope(p.sequence),
    key: (p) =>
      [
        p.embedding.grad,
        p.layer.map((x) => x.grad).join(','),
        p.layers,
        p.head ? p.head.grad : '-',
        stepShapeKey(p),
        p.world,
        shardKey(p.rootShards),
        shardKey(p.layerShards),
        p.embeddingShards ? shardKey(p.embeddingShards) : '-',
        p.paramBytes,
        p.stateBytes,
        +p.offload,
        p.microBatches,
        adamwTemporariesKey(p.adamw),
        +(p.statesEachStep === true),
        p.capacity,
      ].join('|'),
  },
);

/** The whole replay of the load and two FSDP2 steps. */
export const replayFsdp2 = fsdp2Replays.whole;

/** The load and the first micro-batch: a lower bound of the whole replay's peak reserved. */
export const replayFsdp2FirstMicroBatch = fsdp2Replays.first;

/** The sharded parameters materialised (on the GPU unless offloaded), then the first micro-batch. */
function startFsdp2(plan: Fsdp2Plan): Fsdp2State {
  const state: Fsdp2State = {
    plan,
    step: stepState(new CachingAllocator(plan.capacity), plan),
    root: unitRequests(plan, plan.rootShards),
    layer: unitRequests(plan, plan.layerShards),
    embedding: plan.embeddingShards?.length ? unitRequests(plan, plan.embeddingShards) : undefined,
    held: undefined,
    prefetched: undefined,
    reduceInput: undefined,
    gradShards: [],
    sync: true,
    accumulated: new Map(),
  };
  // Materialised sharded on the GPU (to_empty), parameter by parameter; on the host under CPU offload.
  if (!plan.offload) for (const p of allShards(plan)) state.step.allocator.malloc(p.shard * p.bytes);
  microBatch(state, 0);
  return state;
}

/** The rest of two steps of `microBatches` micro-batches each, each step ending in the optimizer's. */
function finishFsdp2(state: Fsdp2State): void {
  const shards = allShards(state.plan);
  restOfTwoSteps(
    state.plan.microBatches,
    (_s, m) => microBatch(state, m),
    (first) => optimizerStep(state, shards, first),
  );
}

/** Micro-batch `m` of a step: the ones after the first add into the held gradients, the last reduces them. */
function microBatch(state: Fsdp2State, m: number): void {
  state.sync = m === state.plan.microBatches - 1;
  state.step.accumulating = m > 0;
  if (state.plan.embeddingShards) trainingStepWithTail(state);
  else trainingStep(state);
}

/** Peak reserved bytes so far, in all and on each stream, and the allocated peak. */
function fsdp2Result(state: Fsdp2State): Fsdp2Replay {
  const compute = state.step.allocator;
  return {
    reserved: compute.peakReserved,
    peakAllocated: compute.peakAllocated,
    compute: compute.reservedOn(0),
    allGather: compute.reservedOn(ALL_GATHER_STREAM),
    reduceScatter: compute.reservedOn(REDUCE_SCATTER_STREAM),
  };
}

function allShards(plan: Fsdp2Plan): ShardedParameter[] {
  const out = [...(plan.embeddingShards ?? []), ...plan.rootShards];
  for (let l = 0; l < plan.layers; l++) out.push(...plan.layerShards);
  return out;
}

/**
 * AdamW on the GPU's shards (none under CPU offload, where the host steps): the state created at the first step, the
 * foreach copy of every exp_avg_sq, then zero_grad frees the gradient shards.
 */
function optimizerStep(state: Fsdp2State, shards: readonly ShardedParameter[], first: boolean): void {
  const { plan } = state;
  const compute = state.step.allocator;
  if (!plan.offload) {
    const sizes = shards.filter((p) => p.trainable).map((p) => p.shard * plan.stateBytes);
    replayOptimizerStep(compute, sizes, 2, { first, eachStep: plan.statesEachStep === true }, plan.adamw);
  }
  for (const g of state.gradShards) compute.free(g);
  state.gradShards = [];
}

/**
 * A unit's all-gather on the copy-in stream: its inputs (under CPU offload each shard copied to the GPU and cast to the
 * gather dtype; otherwise one flat cast of the shards when the dtypes differ), the output of world x the shards, the
 * inputs freed. Returns the output.
 */
function allGather(state: Fsdp2State, unit: UnitRequests): Allocation {
  const allocator = state.step.allocator;
  const malloc = (bytes: number): Allocation => allocator.malloc(bytes, ALL_GATHER_STREAM);
  const inputs: Allocation[] = [];
  if (state.plan.offload) {
    for (const { copy, cast } of unit.offloadCopies) {
      const copied = malloc(copy);
      if (cast > 0) {
        inputs.push(malloc(cast));
        allocator.free(copied);
      } else inputs.push(copied);
    }
  } else if (unit.flatCast > 0) inputs.push(malloc(unit.flatCast));
  const output = malloc(unit.output);
  for (const i of inputs) allocator.free(i);
  return output;
}

/** The copy-out: each parameter's unsharded tensor on the compute stream (world x its shard). */
function copyOut(state: Fsdp2State, unit: UnitRequests): Allocation[] {
  return unit.unsharded.map((bytes) => state.step.allocator.malloc(bytes));
}

/** Pre-forward: gather (unless prefetched), free the all-gather output held from the unit before, copy out, hold this one. */
function unshardForward(state: Fsdp2State, unit: UnitRequests): Allocation[] {
  const output = state.prefetched ?? allGather(state, unit);
  state.prefetched = undefined;
  if (state.held) state.step.allocator.free(state.held);
  const params = copyOut(state, unit);
  state.held = output;
  return params;
}

/** Pre-backward of an unchecked layer: gather (unless prefetched), copy out, free the output at once. */
function unshardBackward(state: Fsdp2State, unit: UnitRequests): Allocation[] {
  const output = state.prefetched ?? allGather(state, unit);
  state.prefetched = undefined;
  const params = copyOut(state, unit);
  state.step.allocator.free(output);
  return params;
}

/**
 * The unit's unsharded gradients at its post-backward: those its backward made, or under a deferred sync those held
 * from the step's first micro-batch, into which a later one's were added (AccumulateGrad frees a layer's as it adds
 * them: step-replay.ts parameterGrad; the root's new ones are freed here).
 */
function unitGradients(state: Fsdp2State, slot: number): Allocation[] {
  const fresh = state.step.grads;
  state.step.grads = [];
  const held = state.accumulated.get(slot);
  if (!held) return fresh;
  for (const g of fresh) state.step.allocator.free(g);
  state.accumulated.delete(slot);
  return held;
}

/**
 * Post-backward: reshard (the unsharded parameters freed), the previous reduce-scatter input freed, this unit's
 * allocated on the compute stream and the gradients freed once copied in; the output on the reduce-scatter stream,
 * cast to the parameters' dtype when it differs, and kept as the gradient shards (copied to the host and freed under
 * CPU offload).
 */
function postBackward(state: Fsdp2State, unit: UnitRequests, params: readonly Allocation[], slot: number): void {
  const compute = state.step.allocator;
  for (const p of params) compute.free(p);
  if (unit.trained === 0) return;
  const grads = unitGradients(state, slot);
  if (!state.sync) {
    state.accumulated.set(slot, grads);
    return;
  }
  if (state.reduceInput) compute.free(state.reduceInput);
  state.reduceInput = compute.malloc(unit.reduceInput);
  for (const g of grads) compute.free(g);
  let output = compute.malloc(unit.reduceOutput, REDUCE_SCATTER_STREAM);
  if (unit.castOutput > 0) {
    const cast = compute.malloc(unit.castOutput, REDUCE_SCATTER_STREAM);
    compute.free(output);
    output = cast;
  }
  if (state.plan.offload) compute.free(output);
  else state.gradShards.push(output);
}

/** One FSDP2 forward and backward over the root unit and the layer units. */
function trainingStep(state: Fsdp2State): void {
  const { plan, step } = state;
  const compute = step.allocator;
  const rootParams = unshardForward(state, state.root);
  blasWorkspaceAt(step, 'forward');
  const { output, kept } = layersForward(state, compute.malloc(plan.hidden));
  const normOut = finalNormForward(step, output);
  // The root's post-forward frees the last all-gather output; its pre-backward prefetches the last layer.
  if (state.held) state.step.allocator.free(state.held);
  state.held = undefined;
  if (plan.layers > 0) state.prefetched = allGather(state, state.layer);
  let gradHidden = replayLoss(step, normOut);
  const rootGrads = step.grads;
  step.grads = [];
  for (let l = plan.layers - 1; l >= 0; l--) {
    gradHidden = layerStep(state, l, kept[l], gradHidden, l > 0 ? state.layer : undefined);
  }
  step.grads = rootGrads;
  embeddingBackward(step);
  compute.free(gradHidden);
  postBackward(state, state.root, rootParams, ROOT_SLOT);
  endOfStep(state);
}

/** Each layer's forward, its unit gathered in its pre-forward and resharded after: the last output, what each keeps. */
function layersForward(state: Fsdp2State, input: Allocation): { output: Allocation; kept: Alive[][] } {
  const compute = state.step.allocator;
  const kept: Alive[][] = [];
  let output = input;
  for (let l = 0; l < state.plan.layers; l++) {
    const params = unshardForward(state, state.layer);
    const layer = layerForward(state.step, output);
    for (const p of params) compute.free(p);
    kept.push(layer.kept);
    output = layer.output;
  }
  return { output, kept };
}

/** The step's end: the last all-gather output and the reduce-scatter input in flight are freed. */
function endOfStep(state: Fsdp2State): void {
  const compute = state.step.allocator;
  if (state.held) compute.free(state.held);
  state.held = undefined;
  if (state.reduceInput) compute.free(state.reduceInput);
  state.reduceInput = undefined;
}

/**
 * One FSDP2 forward and backward with a tail unit (Accelerate 1.14+ fsdp2_prepare_model): an untied embedding gathered
 * in its own pre-forward and resharded after it (its all-gather output held to the first layer's copy-out), the tail
 * (final norm and head) gathered after the layers and kept through the loss; the root's post-forward frees the tail's
 * all-gather output, and the tail's pre-backward, once the logits' gradient is there, prefetches the last layer. The
 * tail's post-backward reshards it and reduces the head's gradients before the layers' backward; the last layer's
 * pre-backward prefetches a trained embedding's unit, reduced after the lookup's backward. Tied, the tail holds the
 * embedding: gathered at the start and kept to the embedding's gradient.
 */
function trainingStepWithTail(state: Fsdp2State): void {
  const { plan, step } = state;
  const compute = step.allocator;
  const embedding = state.embedding;
  const tiedTail = embedding === undefined ? unshardForward(state, state.root) : undefined;
  const embeddingParams = embedding ? unshardForward(state, embedding) : [];
  const input = compute.malloc(plan.hidden);
  for (const p of embeddingParams) compute.free(p);
  blasWorkspaceAt(step, 'forward');
  const { output, kept } = layersForward(state, input);
  const tailParams = tiedTail ?? unshardForward(state, state.root);
  const normOut = finalNormForward(step, output);
  const prefetchLastLayer = (): void => {
    if (plan.layers > 0) state.prefetched = allGather(state, state.layer);
  };
  // TRL's chunked loss never runs the head: the root's pre-backward prefetches the last layer as the backward starts.
  step.backwardStart = () => {
    if (state.held) compute.free(state.held);
    state.held = undefined;
    if (plan.chunkedNll) prefetchLastLayer();
  };
  step.headBackwardStart = plan.chunkedNll ? undefined : prefetchLastLayer;
  let gradHidden = replayLoss(step, normOut);
  step.backwardStart = undefined;
  step.headBackwardStart = undefined;
  const tailGrads = tiedTail ? step.grads : [];
  if (tiedTail) step.grads = [];
  else postBackward(state, state.root, tailParams, ROOT_SLOT);
  const embeddingTrained = embedding !== undefined && embedding.trained > 0;
  for (let l = plan.layers - 1; l >= 0; l--) {
    const next = l > 0 ? state.layer : embeddingTrained ? embedding : undefined;
    gradHidden = layerStep(state, l, kept[l], gradHidden, next);
  }
  step.grads = tailGrads;
  if (embedding && embeddingTrained) {
    const params = unshardBackward(state, embedding);
    embeddingBackward(step);
    postBackward(state, embedding, params, EMBEDDING_SLOT);
  } else {
    embeddingBackward(step);
    if (tiedTail) postBackward(state, state.root, tailParams, ROOT_SLOT);
  }
  compute.free(gradHidden);
  endOfStep(state);
}

/**
 * One layer's backward: under checkpointing the recompute's pre-forward copies out and holds the all-gather output,
 * the pre-backward prefetches the next unit; without, the pre-backward copies out, frees the output and prefetches.
 * Then the backward and the post-backward's reduce-scatter. Returns the gradient of the layer's input.
 */
function layerStep(
  state: Fsdp2State,
  index: number,
  kept: Alive[],
  gradOutput: Allocation,
  next: UnitRequests | undefined,
): Allocation {
  const { plan, step } = state;
  const params = plan.checkpointed ? unshardForward(state, state.layer) : unshardBackward(state, state.layer);
  const saved = layerRecompute(step, kept);
  if (next) state.prefetched = allGather(state, next);
  const gradInput = layerBackward(step, kept, saved, gradOutput);
  postBackward(state, state.layer, params, index);
  return gradInput;
}

/** The setups the replay stands for: FSDP2, fully sharded over every rank (fsdpStepReplayed). */
function replayed(ctx: EstimateContext, forward: StageForward): boolean {
  return fsdpStepReplayed(ctx, forward) && ctx.setup.fsdp_version === 2;
}

/** Both views of each parameter: unsharded (the step replay's, in `paramBytes`) and as FSDP2 shards it over `world`. */
class ParameterSet {
  readonly unsharded: ReplayParameter[] = [];
  readonly shards: ShardedParameter[] = [];
  constructor(
    private readonly world: number,
    private readonly paramBytes: number,
  ) {}

  /** A parameter of `rows` x `cols` elements of `bytes` each, sharded along its rows. */
  add(rows: number, cols: number, bytes: number, trainable: boolean, op?: number): void {
    const grad = trainable ? rows * cols * this.paramBytes : 0;
    this.unsharded.push({ weight: rows * cols * this.paramBytes, grad, state: 0, op });
    this.shards.push({ shard: Math.ceil(rows / this.world) * cols, bytes, trainable });
  }
}

/**
 * The plan of an FSDP2 run (one rank's view): each parameter's shard from its first dimension, the step's tensors from
 * the activation replay; undefined for anything else, which keeps the other terms only.
 */
export function fsdp2Plan(ctx: EstimateContext, forward: StageForward, capacity = Infinity): Fsdp2Plan | undefined {
  const seq = forward.sequence;
  if (seq === undefined || !replayed(ctx, forward)) return undefined;
  const a = ctx.model.arch;
  const inv = ctx.model.inventory;
  const world = ctx.sharding.shardParams;
  const { embeddingBytes, weightBytes, computeBytes, stateBytes } = ctx.dtypes;
  const full = ctx.setup.method === 'full';
  const layer = new ParameterSet(world, computeBytes);
  const visit: ParameterVisit = (rows, cols, bytes, trainable, op) => layer.add(rows, cols, bytes, trainable, op);
  if (!walkLayerParameters(ctx, visit, seq.linears)) {
    return undefined;
  }
  const root = new ParameterSet(world, computeBytes);
  const vocabRows = inv.embedding / a.hidden;
  root.add(vocabRows, a.hidden, embeddingBytes, full);
  root.add(a.hidden, 1, weightBytes, full);
  if (inv.head > 0) root.add(inv.head / a.hidden, a.hidden, embeddingBytes, full);
  const tokens = forward.tokens;
  // A tail unit takes the final norm and an untied head; the embedding is a unit of its own (tied: the tail's first).
  const tail = fsdpTailUnit(ctx.setup);
  const untiedTail = tail && inv.head > 0;
  return {
    embedding: root.unsharded[0],
    layer: layer.unsharded,
    layers: forward.layers,
    head: inv.head > 0 ? root.unsharded[2] : undefined,
    sequence: seq,
    checkpointed: ctx.setup.gradient_checkpointing === 'full',
    recomputeStopsEarly: !checkpointReentrant(ctx.setup),
    finalNorm: replayedFinalNorm(ctx, tokens, computeBytes, computeBytes),
    hidden: tokens * a.hidden * computeBytes,
    logits: tokens * a.vocab * ctx.dtypes.logitsBytes,
    logitsFp32: tokens * a.vocab * 4,
    blasWorkspace: blasWorkspace(ctx),
    // TRL's chunked_nll: the head's gradient of a chunk in the gathered dtype, accumulated into the unsharded one.
    ...replayLossAndOffload(ctx, tokens, (inv.head > 0 ? root.unsharded[2] : root.unsharded[0]).grad),
    world,
    rootShards: untiedTail ? root.shards.slice(1) : root.shards,
    layerShards: layer.shards,
    ...(tail ? { embeddingShards: untiedTail ? root.shards.slice(0, 1) : [] } : {}),
    paramBytes: computeBytes,
    stateBytes,
    offload: ctx.sharding.fsdpOffload,
    microBatches: replayedMicroBatches(ctx),
    adamw: adamwTemporariesOf(ctx.setup),
    statesEachStep: ctx.setup.optimizer_states_gpu === 'step',
    capacity,
  };
}

/**
 * The term: what the FSDP2 replay reserves beyond `reservedSoFar` (the peak's allocated bytes, the flat reserve, the
 * stream pools and cached blocks the other terms count), undefined when it reserves no more; `partial` where only the
 * first micro-batch was replayed (the advice's closer bounds, EstimateContext.firstMicroBatch, where the whole replay
 * is not known yet); none where the replay is skipped (EstimateContext.reservedLowerBound without the first
 * micro-batch: `partial`, the other terms a lower bound). Undefined when the setup is not replayed.
 */
export function fsdp2StepCacheTerm(
  ctx: EstimateContext,
  forward: StageForward,
  reservedSoFar: number,
  outsideReserved: number,
): { readonly term: RuntimeTerm | undefined; readonly partial: boolean } | undefined {
  const plan = fsdp2Plan(ctx, forward, allocatorCapacity(ctx, outsideReserved));
  if (!plan) return undefined;
  // The replay skipped (EstimateOptions.reservedLowerBound): what the other terms reserve is a lower bound of it all.
  if (ctx.reservedLowerBound && !ctx.firstMicroBatch) return { term: undefined, partial: true };
  const { result: replay, partial } = ctx.firstMicroBatch
    ? fsdp2Replays.atLeast(plan)
    : { result: replayFsdp2(plan), partial: false };
  const term = runtimeTerm(
    ctx,
    'fsdp2-step-cache',
    "Segments FSDP2's streams keep apart",
    replay.reserved - reservedSoFar,
    () =>
      `allocator replay of the load and two FSDP2 steps reserves ${formatBytes(replay.reserved)}: ` +
      `${formatBytes(replay.compute)} on the compute stream, ${formatBytes(replay.allGather)} on the all-gather ` +
      `copy-in stream, ${formatBytes(replay.reduceScatter)} on the reduce-scatter stream; each stream reuses only its ` +
      `own blocks, and the root's vocabulary-sized tensors fit in no block the layers freed`,
  );
  return { term, partial };
}
