// Term: what an FSDP1 (FullyShardedDataParallel) run reserves, from an allocator replay of its build and two steps over
// FSDP1's four streams. Each unit is one FlatParameter (torch/distributed/fsdp/_flat_param.py): built on the GPU and
// sharded there (terms/fsdp-init-cache.ts), and at the first forward FlatParamHandle.init_flat_param_attributes
// allocates and frees, on the compute stream, each unit's low-precision shard (_mp_shard), its padded unsharded buffer
// (_full_param_padded) and, under parameter mixed precision, a full-precision one (_full_prec_full_param_padded). Each
// unshard (_runtime_utils.py _unshard) then casts the shard on the pre-unshard stream (under CPU offload after copying
// it to the GPU; with no cast the original parameters' sharded views keep that copy until the reshard, and without
// use_orig_params it is dropped once the gathered buffer is in use), all-gathers into a padded buffer on the unshard
// stream and frees the low-precision shard. The unshard stream also gets each unit's unsharded gradient: the
// parameters are views made there, and autograd runs their backward on the stream of their forward. The post-backward
// hook reduce-scatters on the post-backward stream (a padded copy when the numel does not divide, the output shard,
// its cast to the parameters' dtype kept as the gradient until zero_grad), and the reshard frees the unsharded buffer;
// the root unit (embeddings, final norm, untied head) keeps its buffer from its forward to the end of the backward.
// A block freed on a side stream returns to that stream's pool once the stream's recorded work completes
// (record_stream): while the CPU runs ahead of the GPU the replay frees it after that stream's next request (two layer
// buffers in flight in the forward, and from the second step three in the backward; runsAhead). The caching allocator
// keeps each stream's blocks apart (c10/cuda/CUDACachingAllocator.cpp). The layers' forward and backward and the loss
// come from the shared step replay (terms/step-replay.ts); AdamW's state is created at the first step. The replay's
// peak reserved bytes stand for every cached block of the run. Pure arithmetic; no I/O. Docs: docs/estimate/runtime.md
import { checkpointReentrant } from './activations/kept-inputs';
import type { EstimateContext } from '../estimate/context';
import { adaptersWrapped } from '../estimate/fsdp-units';
import { fsdp1BackwardPrefetch } from '../setup';
import { formatBytes } from '../units';
import { fsdp1LaunchLead } from './fsdp1-launch-lead';
import { type Allocation, CachingAllocator } from './allocator';
import { blasWorkspace } from './blas-workspaces';
import type { StageForward } from './forward-cache';
import { buildUnit, type FsdpInitUnits, fsdpInitUnits, rootUnitElements } from './fsdp-init-cache';
import { type BnbLoadModel, bnbLoadKey, loadAndShard, bnbLoadModel } from './bnb-load';
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
import { replayedReserveTerm, type TwoStepReserve } from './two-step-cache';
import { adamwTemporariesKey, adamwTemporariesOf, replayOptimizerStep, type AdamwTemporaries } from './optimizer-step';

/** One FSDP1 unit's FlatParameter, in elements. */
export interface Fsdp1Unit {
  /** Elements of the flat parameter (unpadded). */
  readonly numel: number;
  /** Elements whose gradient the unit reduces: all of them, or a LoRA layer's adapters (their own units). */
  readonly trained: number;
  /**
   * The optimizer's tensors of rank 0's shard, in elements: the one flat shard, or with use_orig_params each original
   * parameter's part of it (the parameters the shard's range covers, in module order; AdamW keeps state per tensor).
   */
  readonly pieces: readonly number[];
}

/** What the FSDP1 replay allocates: the step's shape on the compute stream plus each unit's flat parameter. */
export interface Fsdp1Plan extends StepShape {
  readonly world: number;
  readonly root: Fsdp1Unit;
  readonly layerUnit: Fsdp1Unit;
  /** The build on the GPU (terms/fsdp-init-cache.ts): each unit's tensors as materialised. */
  readonly build: FsdpInitUnits;
  /** A bitsandbytes 4-bit model loaded whole onto the GPU, then sharded (terms/bnb-load.ts), instead of the build. */
  readonly bnbLoad?: BnbLoadModel;
  /** Bytes per element of the flat parameter as stored, and as gathered (MixedPrecision param_dtype, also reduce). */
  readonly storageBytes: number;
  readonly paramBytes: number;
  readonly stateBytes: number;
  /** CPUOffload(offload_params=True): shards, gradients and the optimizer on the host. */
  readonly offload: boolean;
  /**
   * Under CPU offload with no cast, the shard's GPU copy is kept until the reshard: FlatParamHandle.flat_param_to
   * points the original parameters' data at it (_use_sharded_views, use_orig_params), and the forward's unsharded views
   * are plain tensors set on the modules (_use_unsharded_views(as_params=False)), which leave the parameters' data as
   * it was. Without use_orig_params nothing else holds it: _use_unsharded_flat_param's `flat_param.data = ...` drops it
   * once the all-gather has read it (torch/distributed/fsdp/_flat_param.py).
   */
  readonly offloadCopyKept: boolean;
  /** BACKWARD_PRE: each unit's pre-backward gathers the next unit of the backward. */
  readonly prefetch: 'pre' | 'post' | 'none';
  /**
   * Layers the CPU gathers ahead in the forward before a released buffer is back in the unshard stream's pool: 1 with
   * the rate limiter, more without it (terms/fsdp1-launch-lead.ts).
   */
  readonly forwardLead: number;
  /** How forwardLead was worked out, where it is more than 1. */
  readonly forwardLeadFormula?: () => string;
  /** Micro-batches replayed per step (step-replay.ts replayedMicroBatches): 2 under no_sync, else 1. */
  readonly microBatches: number;
  readonly adamw: AdamwTemporaries;
  /** The states are on the GPU for the optimizer step only (optimizer_states_gpu 'step'): moved in and out each step. */
  readonly statesEachStep?: boolean;
  readonly capacity: number;
}

/** Peak reserved bytes of the replay: in all, on each stream, and the allocated peak it reached. */
export interface Fsdp1Replay {
  readonly reserved: number;
  readonly peakAllocated: number;
  readonly compute: number;
  readonly preUnshard: number;
  readonly unshard: number;
  readonly postBackward: number;
}

/** FSDP1's streams in the allocator model (the compute stream is 0). */
const PRE_UNSHARD_STREAM = 1;
const UNSHARD_STREAM = 2;
const POST_BACKWARD_STREAM = 3;

/** A unit's requests, in bytes: worked out once per replay. */
interface UnitBytes {
  readonly shardElements: number;
  /** The rank's shard as stored, and cast to the gather dtype (0: no cast). */
  readonly shard: number;
  readonly lowPrecisionShard: number;
  /** The padded unsharded buffer in the gather dtype, and in the stored dtype (lazy init under mixed precision). */
  readonly padded: number;
  readonly paddedFullPrecision: number;
  /** The unsharded gradient, its padded copy (0: divides), the reduce-scatter output and its cast (0: none). */
  readonly gradient: number;
  readonly paddedGradient: number;
  readonly gradientShard: number;
  readonly gradientCast: number;
  /** Trained elements of the rank's shard, one entry per optimizer tensor: AdamW's state. */
  readonly pieces: readonly number[];
}

function unitBytes(plan: Fsdp1Plan, unit: Fsdp1Unit): UnitBytes {
  const { world, storageBytes: sb, paramBytes: pb } = plan;
  const cast = sb !== pb;
  const shardElements = Math.ceil(unit.numel / world);
  const trainedShard = Math.ceil(unit.trained / world);
  return {
    shardElements,
    shard: shardElements * sb,
    lowPrecisionShard: cast ? shardElements * pb : 0,
    padded: shardElements * world * pb,
    paddedFullPrecision: cast ? shardElements * world * sb : 0,
    gradient: unit.trained * pb,
    paddedGradient: unit.trained > 0 && unit.trained % world !== 0 ? trainedShard * world * pb : 0,
    gradientShard: trainedShard * pb,
    gradientCast: cast ? trainedShard * sb : 0,
    pieces: unit.pieces,
  };
}

/**
 * A side stream's frees: a block returns to the stream's pool once the stream's recorded work completes, which the
 * replay takes as after the stream's next request (or its next `depth` requests).
 */
class SideStream {
  private readonly pending: { readonly block: Allocation; readonly due: number }[] = [];
  private requests = 0;
  /**
   * Requests of this stream after which a block freed from the compute side is back in its pool: 1 while the CPU runs
   * ahead of the GPU, 0 where it does not, more where it runs ahead by several layers (no rate limiter).
   */
  depth = 1;
  constructor(
    private readonly allocator: CachingAllocator,
    readonly stream: number,
  ) {}

  malloc(bytes: number): Allocation {
    const a = this.mallocOrWait(bytes);
    this.requests++;
    if (this.pending.length === 0) return a;
    // The blocks whose requests have come back to their pool, the others kept in order (no array made per request).
    let kept = 0;
    for (const p of this.pending) {
      if (p.due <= this.requests) this.allocator.free(p.block);
      else this.pending[kept++] = p;
    }
    this.pending.length = kept;
    return a;
  }

  /**
   * A request that finds no room waits for the blocks still in use by earlier kernels and frees them (the caching
   * allocator synchronizes its events before it releases cached segments), then asks again.
   */
  private mallocOrWait(bytes: number): Allocation {
    try {
      return this.allocator.malloc(bytes, this.stream);
    } catch (e) {
      if (!(e instanceof RangeError) || this.pending.length === 0) throw e;
      this.flush();
      return this.allocator.malloc(bytes, this.stream);
    }
  }

  /** Freed at once: the stream's own work on it is done. */
  free(a: Allocation): void {
    this.allocator.free(a);
  }

  /** Freed from the compute side: back in the pool after the stream's next `depth` requests (at once with none). */
  release(a: Allocation): void {
    if (this.depth > 0) this.pending.push({ block: a, due: this.requests + this.depth });
    else this.allocator.free(a);
  }

  flush(): void {
    for (const p of this.pending) this.allocator.free(p.block);
    this.pending.length = 0;
  }
}

/** One unit while it is unsharded: its buffer, and under CPU offload with no cast its shard's GPU copy. */
interface Unsharded {
  readonly buffer: Allocation;
  readonly copy: Allocation | undefined;
}

interface Fsdp1State {
  readonly plan: Fsdp1Plan;
  readonly step: StepState;
  readonly root: UnitBytes;
  readonly layer: UnitBytes;
  readonly preUnshard: SideStream;
  readonly unshard: SideStream;
  readonly postBackward: SideStream;
  /** A unit gathered ahead of its backward (BACKWARD_PRE / BACKWARD_POST). */
  prefetched: Unsharded | undefined;
  /** Gradient shards kept to zero_grad (or, under CPU offload, to the optimizer's step on the host). */
  gradShards: Allocation[];
  /** Whether this micro-batch reduces its gradients (the last of a step, or every one without no_sync). */
  sync: boolean;
  /** Each unit's unsharded gradient held from an earlier micro-batch of the step: a layer's by its index, the root's. */
  readonly accumulated: Map<number, Allocation>;
}

/** The root unit's place in `accumulated` (the layers' are their indices). */
const ROOT_SLOT = -1;

/**
 * The build and two FSDP1 steps, bounded by the GPU (resumable-replay.ts): `first` stops after the first
 * micro-batch, `whole` goes on from there; memoized per plan (the advice search and the editor's changes repeat plans).
 */
const fsdp1Replays = resumableReplay(
  { start: startFsdp1, finish: finishFsdp1, result: fsdp1Result },
  {
    limit: 64,
    scope: (p) => replayScope(p.sequence),
    key: (p) =>
      [
        p.embedding.grad,
        p.layer.map((x) => `${x.weight}/${x.grad}`).join(','),
        p.layers,
        p.head ? p.head.grad : '-',
        stepShapeKey(p),
        p.world,
        `${p.root.numel}/${p.root.trained}/${p.root.pieces.join(',')}`,
        `${p.layerUnit.numel}/${p.layerUnit.trained}/${p.layerUnit.pieces.join(',')}`,
        p.build.layer.join(','),
        p.build.root.join(','),
        p.bnbLoad ? bnbLoadKey(p.bnbLoad) : '-',
        p.storageBytes,
        p.paramBytes,
        p.stateBytes,
        +p.offload,
        +p.offloadCopyKept,
        p.prefetch,
        p.forwardLead,
        p.microBatches,
        adamwTemporariesKey(p.adamw),
        +(p.statesEachStep === true),
        p.capacity,
      ].join('|'),
  },
);

/** The whole replay of the build and two FSDP1 steps. */
export const replayFsdp1 = fsdp1Replays.whole;

/** The build and the first micro-batch: a lower bound of the whole replay's peak reserved. */
export const replayFsdp1FirstMicroBatch = fsdp1Replays.first;

/** The build, the first forward's lazy initialisation and the first micro-batch. */
function startFsdp1(plan: Fsdp1Plan): Fsdp1State {
  const allocator = new CachingAllocator(plan.capacity);
  const state: Fsdp1State = {
    plan,
    step: stepState(allocator, plan),
    root: unitBytes(plan, plan.root),
    layer: unitBytes(plan, plan.layerUnit),
    preUnshard: new SideStream(allocator, PRE_UNSHARD_STREAM),
    unshard: new SideStream(allocator, UNSHARD_STREAM),
    postBackward: new SideStream(allocator, POST_BACKWARD_STREAM),
    prefetched: undefined,
    gradShards: [],
    sync: true,
    accumulated: new Map(),
  };
  build(state);
  lazyInit(state);
  microBatch(state, 0, 0);
  return state;
}

/** The rest of two steps of `microBatches` micro-batches each, each step ending in the optimizer's. */
function finishFsdp1(state: Fsdp1State): void {
  restOfTwoSteps(
    state.plan.microBatches,
    (s, m) => microBatch(state, s, m),
    (first) => optimizerStep(state, first),
  );
}

/** Micro-batch `m` of step `s`: the last of a step reduces its gradients. */
function microBatch(state: Fsdp1State, s: number, m: number): void {
  const plan = state.plan;
  state.sync = m === plan.microBatches - 1;
  trainingStep(state, s * plan.microBatches + m);
}

/** Peak reserved bytes so far, in all and on each stream, and the allocated peak. */
function fsdp1Result(state: Fsdp1State): Fsdp1Replay {
  const allocator = state.step.allocator;
  return {
    reserved: allocator.peakReserved,
    peakAllocated: allocator.peakAllocated,
    compute: allocator.reservedOn(0),
    preUnshard: allocator.reservedOn(PRE_UNSHARD_STREAM),
    unshard: allocator.reservedOn(UNSHARD_STREAM),
    postBackward: allocator.reservedOn(POST_BACKWARD_STREAM),
  };
}

/** The build, unit by unit with the root last (_init_param_handle_from_module; fsdp-init-cache.ts buildUnit). */
function build(state: Fsdp1State): void {
  const { build: units, layers, bnbLoad } = state.plan;
  if (bnbLoad) {
    loadAndShard(state.step.allocator, bnbLoad);
    return;
  }
  for (let l = 0; l < layers; l++) buildUnit(state.step.allocator, units.layer, units);
  buildUnit(state.step.allocator, units.root, units);
}

/**
 * The first forward's lazy initialisation of every unit, the root first (init_flat_param_attributes): the low-precision
 * shard, the padded unsharded buffer and its full-precision twin, each allocated and freed on the compute stream.
 */
function lazyInit(state: Fsdp1State): void {
  const allocator = state.step.allocator;
  const once = (u: UnitBytes): void => {
    for (const bytes of [u.lowPrecisionShard, u.padded, u.paddedFullPrecision])
      if (bytes > 0) allocator.free(allocator.malloc(bytes));
  };
  once(state.root);
  for (let l = 0; l < state.plan.layers; l++) once(state.layer);
}

/**
 * A unit's unshard: on the pre-unshard stream the shard copied to the GPU (CPU offload) and cast to the gather dtype
 * (the copy freed once cast; kept to the reshard when there is no cast), the all-gather's padded buffer on the unshard
 * stream, then the low-precision shard freed.
 */
function unshardUnit(state: Fsdp1State, unit: UnitBytes): Unsharded {
  const pre = state.preUnshard;
  const lowPrecision = unit.lowPrecisionShard > 0 ? pre.malloc(unit.lowPrecisionShard) : undefined;
  let copy = state.plan.offload ? pre.malloc(unit.shard) : undefined;
  if (copy && lowPrecision) {
    pre.free(copy);
    copy = undefined;
  }
  const buffer = state.unshard.malloc(unit.padded);
  if (lowPrecision) pre.free(lowPrecision);
  if (copy && !state.plan.offloadCopyKept) {
    pre.free(copy);
    copy = undefined;
  }
  return { buffer, copy };
}

/** The reshard: the unsharded buffer (and an offloaded shard's copy) back to their streams' pools. */
function reshard(state: Fsdp1State, unit: Unsharded): void {
  state.unshard.release(unit.buffer);
  if (unit.copy) state.preUnshard.release(unit.copy);
}

/**
 * The post-backward hook: the unsharded gradient on the unshard stream (the parameters' gradients on the compute stream
 * gathered into it), the reshard, and on the post-backward stream the reduce-scatter (a padded copy where the numel
 * does not divide, the output shard, its cast kept as the gradient). Under no_sync (`_sync_gradients` false,
 * _runtime_utils.py _post_backward_hook) the hook returns after the reshard and the unsharded gradient stays; the next
 * micro-batch's is added into it (AccumulateGrad) and freed.
 */
function postBackward(state: Fsdp1State, unit: UnitBytes, unsharded: Unsharded, slot: number): void {
  const compute = state.step.allocator;
  const fresh = unit.gradient > 0 ? state.unshard.malloc(unit.gradient) : undefined;
  for (const g of state.step.grads) compute.free(g);
  state.step.grads = [];
  reshard(state, unsharded);
  if (!fresh) return;
  const held = state.accumulated.get(slot);
  if (held) state.unshard.release(fresh);
  const gradient = held ?? fresh;
  state.accumulated.delete(slot);
  if (!state.sync) {
    state.accumulated.set(slot, gradient);
    return;
  }
  const post = state.postBackward;
  const padded = unit.paddedGradient > 0 ? post.malloc(unit.paddedGradient) : undefined;
  let shard = post.malloc(unit.gradientShard);
  if (padded) post.free(padded);
  if (unit.gradientCast > 0) {
    const cast = post.malloc(unit.gradientCast);
    post.free(shard);
    shard = cast;
  }
  state.unshard.release(gradient);
  state.gradShards.push(shard);
}

/** The unit a backward needs: the one prefetched for it, or gathered now. */
function unshardForBackward(state: Fsdp1State): Unsharded {
  const unit = state.prefetched ?? unshardUnit(state, state.layer);
  state.prefetched = undefined;
  return unit;
}

/** One FSDP1 forward and backward over the root unit and the layer units. */
function trainingStep(state: Fsdp1State, index: number): void {
  const { plan, step } = state;
  const compute = step.allocator;
  state.unshard.depth = plan.forwardLead;
  const root = unshardUnit(state, state.root);
  let input = compute.malloc(plan.hidden);
  blasWorkspaceAt(step, 'forward');
  const kept: Alive[][] = [];
  for (let l = 0; l < plan.layers; l++) {
    const unit = unshardUnit(state, state.layer);
    const layer = layerForward(step, input);
    reshard(state, unit);
    kept.push(layer.kept);
    input = layer.output;
  }
  const normOut = finalNormForward(step, input);
  let rootUnit = root;
  // The root's post-forward and pre-backward; TRL's chunked loss runs inside the model's forward, before them.
  const rootHooks = (): void => {
    rootUnit = rootPostForwardAndPreBackward(state, root, index);
  };
  if (plan.chunkedNll) step.backwardStart = rootHooks;
  else rootHooks();
  let gradHidden = replayLoss(step, normOut);
  step.backwardStart = undefined;
  const rootGrads = step.grads;
  step.grads = [];
  for (let l = plan.layers - 1; l >= 0; l--) gradHidden = layerStep(state, l, kept[l], gradHidden);
  step.grads = rootGrads;
  embeddingBackward(step);
  compute.free(gradHidden);
  postBackward(state, state.root, rootUnit, ROOT_SLOT);
  state.unshard.flush();
  state.unshard.depth = 1;
  state.preUnshard.flush();
}

/**
 * The root's post-forward keeps its buffer (the root is not resharded after forward) but drops an offloaded copy, whose
 * work is done by the time the loss is computed. Its pre-backward: under CPU offload its shard is copied again;
 * BACKWARD_PRE gathers the last layer. Returns the root unit as the backward holds it.
 */
function rootPostForwardAndPreBackward(state: Fsdp1State, root: Unsharded, index: number): Unsharded {
  const plan = state.plan;
  let rootUnit = root;
  if (root.copy) {
    state.preUnshard.free(root.copy);
    rootUnit = { buffer: root.buffer, copy: undefined };
  }
  if (plan.offload) {
    const again = unshardCopy(state, state.root);
    if (again) rootUnit = { buffer: root.buffer, copy: again };
  }
  if (plan.prefetch === 'pre' && plan.layers > 0) state.prefetched = unshardUnit(state, state.layer);
  // The backward's frees on the unshard stream wait for its next request from the second step on (runsAhead).
  state.unshard.flush();
  state.unshard.depth = runsAhead(plan, index) ? 1 : 0;
  return rootUnit;
}

/**
 * Whether the CPU runs ahead of the GPU in a backward, so that one more unit is in flight on the unshard stream: not in
 * the first step, whose new segments (cudaMalloc) hold the CPU back, nor under CPU offload, whose host copies do; from
 * the second step on it does. A timing effect, which the H100 histories of 2026-11-25 show varying: of eight full
 * fine-tunes without offload the third in-flight buffer appears in the second step (cut from the root's free gradient
 * block: a third root-sized segment) in four, already in the first (a third layer-sized segment) in two, in neither in
 * two; with offload in none. The rule takes the larger of the two outcomes a run can have.
 */
function runsAhead(plan: Fsdp1Plan, step: number): boolean {
  return step > 0 && !plan.offload;
}

/**
 * Under CPU offload the pre-backward copies the root's shard again: cast and freed, or with no cast kept by the original
 * parameters' views (offloadCopyKept). Without use_orig_params and no cast it copies nothing: the root's flat parameter
 * is still unsharded on the GPU, which pre_unshard's device test finds.
 */
function unshardCopy(state: Fsdp1State, unit: UnitBytes): Allocation | undefined {
  const pre = state.preUnshard;
  const lowPrecision = unit.lowPrecisionShard > 0 ? pre.malloc(unit.lowPrecisionShard) : undefined;
  if (!lowPrecision) return state.plan.offloadCopyKept ? pre.malloc(unit.shard) : undefined;
  const copy = pre.malloc(unit.shard);
  pre.free(copy);
  pre.free(lowPrecision);
  return undefined;
}

/**
 * One layer unit's backward: its pre-backward gathers it (unless prefetched) and, with BACKWARD_PRE, the next unit of
 * the backward; the recompute under checkpointing, the backward, then the post-backward (BACKWARD_POST gathers the next
 * unit there). Returns the gradient of the layer's input.
 */
function layerStep(state: Fsdp1State, index: number, kept: Alive[], gradOutput: Allocation): Allocation {
  const { plan, step } = state;
  const hasNext = index > 0;
  const unit = unshardForBackward(state);
  if (plan.prefetch === 'pre' && hasNext) state.prefetched = unshardUnit(state, state.layer);
  const saved = layerRecompute(step, kept);
  const gradInput = layerBackward(step, kept, saved, gradOutput);
  if (plan.prefetch === 'post' && hasNext) state.prefetched = unshardUnit(state, state.layer);
  postBackward(state, state.layer, unit, index);
  return gradInput;
}

/**
 * AdamW on the GPU's shards (none under CPU offload, where the host steps): the state created at the first step, the
 * foreach copy of every exp_avg_sq, then zero_grad (or the host's step) frees the gradient shards.
 */
function optimizerStep(state: Fsdp1State, first: boolean): void {
  const { plan } = state;
  const compute = state.step.allocator;
  if (!plan.offload) {
    const shards: number[] = [...state.root.pieces];
    for (let l = 0; l < plan.layers; l++) shards.push(...state.layer.pieces);
    const sizes = shards.map((s) => s * plan.stateBytes);
    replayOptimizerStep(compute, sizes, 2, { first, eachStep: plan.statesEachStep === true }, plan.adamw);
  }
  for (const g of state.gradShards) compute.free(g);
  state.gradShards = [];
}

/**
 * The setups the replay stands for: FSDP1 FULL_SHARD over every rank (fsdpStepReplayed), LoRA with the adapters in
 * units of their own.
 */
function replayed(ctx: EstimateContext, forward: StageForward): boolean {
  const setup = ctx.setup;
  return (
    fsdpStepReplayed(ctx, forward) &&
    setup.fsdp_version !== 2 &&
    ctx.sharding.zeroStage === 0 &&
    (setup.method === 'full' || adaptersWrapped(setup))
  );
}

const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

/**
 * Rank 0's part of each parameter of a flat parameter (parameters in module order, the shard the first
 * ceil(total / world) elements): the parameters it covers whole, then the one it cuts; the rest have none.
 */
export function firstShardPieces(parameters: readonly number[], world: number): number[] {
  let left = Math.ceil(sum(parameters) / world);
  const out: number[] = [];
  for (const p of parameters) {
    if (left <= 0) break;
    out.push(Math.min(p, left));
    left -= p;
  }
  return out;
}

/**
 * The plan of an FSDP1 run (one rank's view): the units from the model's inventory, the step's tensors from the
 * activation replay; undefined for anything else, which keeps the other terms only.
 */
export function fsdp1Plan(ctx: EstimateContext, forward: StageForward, capacity = Infinity): Fsdp1Plan | undefined {
  const seq = forward.sequence;
  if (seq === undefined || !replayed(ctx, forward)) return undefined;
  const a = ctx.model.arch;
  const inv = ctx.model.inventory;
  const { weightBytes, computeBytes, stateBytes } = ctx.dtypes;
  const full = ctx.setup.method === 'full';
  const world = ctx.sharding.shardParams;
  const perParameter = ctx.setup.fsdp_use_orig_params !== false;
  const layer: ReplayParameter[] = [];
  const base: number[] = [];
  const adapters: number[] = [];
  const visit: ParameterVisit = (rows, cols, _bytes, trainable, op) => {
    const elements = rows * cols;
    layer.push({ weight: elements * computeBytes, grad: trainable ? elements * computeBytes : 0, state: 0, op });
    (full || !trainable ? base : adapters).push(elements);
  };
  const walked = walkLayerParameters(ctx, visit, seq.linears);
  if (!walked) return undefined;
  const bnbLoad = bnbLoadModel(ctx);
  const units = fsdpInitUnits(ctx, sum(base));
  if (!units) return undefined;
  // A 4-bit layer's flat parameter holds the packed codes in the weights' dtype: its elements are its bytes over that.
  const layerElements = bnbLoad ? sum(units.layer) / weightBytes : sum(base);
  const adapterElements = sum(adapters);
  const rootParameters = rootUnitElements(ctx);
  const rootElements = sum(rootParameters);
  // Each adapter is a unit of its own: one parameter, sharded whole.
  const adapterPieces = adapters.map((e) => Math.ceil(e / world));
  const pieces = (parameters: readonly number[]): number[] =>
    perParameter ? firstShardPieces(parameters, world) : [Math.ceil(sum(parameters) / world)];
  const parameter = (elements: number): ReplayParameter => ({
    weight: elements * computeBytes,
    grad: full ? elements * computeBytes : 0,
    state: 0,
  });
  const tokens = forward.tokens;
  const lead = fsdp1LaunchLead(ctx, seq, forward.layers);
  const embedding = parameter(inv.embedding);
  const head = inv.head > 0 ? parameter(inv.head) : undefined;
  return {
    embedding,
    layer,
    layers: forward.layers,
    head,
    sequence: seq,
    checkpointed: ctx.setup.gradient_checkpointing === 'full',
    recomputeStopsEarly: !checkpointReentrant(ctx.setup),
    finalNorm: replayedFinalNorm(ctx, tokens, computeBytes, computeBytes),
    hidden: tokens * a.hidden * computeBytes,
    logits: tokens * a.vocab * ctx.dtypes.logitsBytes,
    logitsFp32: tokens * a.vocab * 4,
    blasWorkspace: blasWorkspace(ctx),
    ...replayLossAndOffload(ctx, tokens, (head ?? embedding).grad),
    world,
    root: { numel: rootElements, trained: full ? rootElements : 0, pieces: full ? pieces(rootParameters) : [] },
    layerUnit: {
      numel: layerElements,
      trained: full ? layerElements : adapterElements,
      pieces: full ? pieces(base) : adapterPieces,
    },
    build: units,
    bnbLoad,
    storageBytes: weightBytes,
    paramBytes: computeBytes,
    stateBytes,
    offload: ctx.sharding.fsdpOffload,
    offloadCopyKept: perParameter,
    prefetch: fsdp1BackwardPrefetch(ctx.setup) ?? 'none',
    forwardLead: lead?.layers ?? 1,
    ...(lead ? { forwardLeadFormula: lead.formula } : {}),
    microBatches: replayedMicroBatches(ctx),
    adamw: adamwTemporariesOf(ctx.setup),
    statesEachStep: ctx.setup.optimizer_states_gpu === 'step',
    capacity,
  };
}

/**
 * What the allocator reserves in an FSDP1 setup the replay stands for: the replay's peak reserved bytes, plus what the
 * estimate's peak allocates beyond the replay's, never less than the peak; undefined for the other setups.
 */
export function fsdp1StepReserve(
  ctx: EstimateContext,
  forward: StageForward,
  peakAllocated: number,
  outsideReserved: number,
): TwoStepReserve | undefined {
  const plan = fsdp1Plan(ctx, forward, allocatorCapacity(ctx, outsideReserved));
  if (!plan) return undefined;
  // The advice's closer bounds (EstimateContext.firstMicroBatch): the whole replay where known, else its first
  // micro-batch.
  const { result: replay, partial } = ctx.firstMicroBatch
    ? fsdp1Replays.atLeast(plan)
    : { result: replayFsdp1(plan), partial: false };
  return replayedReserveTerm(
    ctx,
    'fsdp1-step-cache',
    "Cached by the allocator on FSDP1's streams (replay of the build and two steps)",
    peakAllocated,
    replay,
    plan.capacity,
    (beyond) =>
      `allocator replay of FSDP1's build and two steps reserves ${formatBytes(replay.reserved)} at ` +
      `${formatBytes(replay.peakAllocated)} ${plan.forwardLeadFormula ? 'in use, blocks waiting for kernels included' : 'allocated'}: ` +
      `${formatBytes(replay.compute)} on the compute stream, ` +
      `${formatBytes(replay.preUnshard)} on the pre-unshard stream, ${formatBytes(replay.unshard)} on the unshard ` +
      `stream, ${formatBytes(replay.postBackward)} on the post-backward stream${beyond}; each stream reuses only ` +
      'its own blocks' +
      (plan.forwardLeadFormula ? `; ${plan.forwardLeadFormula()}` : ''),
    partial,
  );
}
