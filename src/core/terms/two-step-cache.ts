// Term: what the caching allocator holds beyond the peak's tensors in a full fine-tune or a LoRA run on one GPU (or
// DDP), from a replay of the estimate's own allocations through the allocator model (terms/allocator.ts): the weights'
// load, then two steps (each layer's forward from terms/saved-tensors.ts forwardSequence, the logits and the
// cross-entropy, the backward with each parameter's gradient, AdamW's state and its foreach temporary, zero_grad, the
// first step's two cuBLAS workspaces: terms/blas-workspaces.ts). AdamW creates its state lazily, at the first optimizer
// step (torch/optim/adamw.py _init_group: torch.zeros_like(p) for exp_avg and exp_avg_sq), when the cache holds every
// block the first forward and backward freed; each state tensor takes the smallest cached block that holds it
// (c10/cuda/CUDACachingAllocator.cpp: best fit, a block split when the rest exceeds 1 MiB), so the state settles inside
// the blocks the step needs again, and the second step's forward and backward may ask the driver for new segments;
// nothing is released while the GPU has room. Where the replay stands for the setup, its reserved bytes replace the
// flat terms (allocator reserve, logits block, forward cache, small pool, loss segments): the replay holds the blocks
// those approximate. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import { checkpointReentrant } from './activations/kept-inputs';
import { runtimeTerm } from '../estimate/component';
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { olderThan } from '../util/version';
import { type Allocation, CachingAllocator } from './allocator';
import { replayLoss } from './chunked-nll-replay';
import { blasWorkspace } from './blas-workspaces';
import { shiftedLoss, transformersLoss } from './shifted-logits';
import type { StageForward } from './forward-cache';
import {
  allocatorCapacity,
  allParts,
  chunkedNllReplayed,
  expertsReplayed,
  fusedTokenLoss,
  layerSequenceReplayed,
  replayLossAndOffload,
  type ReplayParameter,
  replayScope,
  replayedFinalNorm,
  stackBackward,
  stackForward,
  type StepShape,
  stepShapeKey,
  stepState,
  type StepState,
  shiftedLossKey,
} from './step-replay';
import { walkLayerParameters } from './layer-parameters';
import { resumableReplay } from './resumable-replay';
import { adamwTemporariesKey, adamwTemporariesOf, replayOptimizerStep, type AdamwTemporaries } from './optimizer-step';

/** What the two-step replay allocates, all of it in bytes (one rank, one micro-batch). */
export interface TwoStepPlan extends StepShape {
  /** Optimizer state tensors per parameter (AdamW: exp_avg, exp_avg_sq). */
  readonly statesPerParameter: number;
  /** The foreach implementation's copy of every exp_avg_sq at each step (_foreach_sqrt; none in the fused kernel). */
  readonly adamw: AdamwTemporaries;
  /** The states are on the GPU for the optimizer step only (optimizer_states_gpu 'step'): moved in and out each step. */
  readonly statesEachStep?: boolean;
  /** DDP's flat gradient buckets: the first iteration's, allocated when the model is wrapped, and the rebuilt ones. */
  readonly buckets: DdpBuckets;
  /** Bytes the driver can hand out: the GPU's memory less what is outside the allocator (Infinity without a GPU). */
  readonly capacity: number;
}

/** Peak reserved bytes of the replay, and what the first step alone reserved. */
export interface TwoStepReplay {
  readonly reserved: number;
  readonly firstStep: number;
  /** Peak allocated bytes of the replay. */
  readonly peakAllocated: number;
}

/**
 * The weights' load and two training steps, bounded by the GPU (resumable-replay.ts): `first` stops after
 * the first step's forward and backward, `whole` goes on from there; memoized per plan (the advice search and the
 * editor's changes repeat plans).
 */
const twoStepReplays = resumableReplay(
  { start: startTwoSteps, finish: finishTwoSteps, result: twoStepResult },
  {
    limit: 64,
    scope: (p) => replayScope(p.sequence),
    key: (p) =>
      [
        p.embedding.weight,
        p.embedding.grad,
        p.embedding.state,
        p.layer.map((x) => `${x.weight}/${x.grad}/${x.state}`).join(','),
        p.layers,
        p.head ? `${p.head.weight}/${p.head.grad}/${p.head.state}` : '-',
        stepShapeKey(p),
        p.statesPerParameter,
        adamwTemporariesKey(p.adamw),
        +(p.statesEachStep === true),
        p.buckets.first.join(','),
        p.buckets.rebuilt.join(','),
        p.headCopy ?? 0,
        +(p.logitSoftcap ?? false),
        shiftedLossKey(p.shiftedLoss),
        p.capacity,
      ].join('|'),
  },
);

/** The whole replay of the load and two training steps. */
export const replayTwoSteps = twoStepReplays.whole;

/** The load and the first step's forward and backward: a lower bound of the whole replay's peak reserved. */
export const replayTwoStepsFirstMicroBatch = twoStepReplays.first;

/** The replay's allocator and what its second step needs of the first: the trained parameters, the first buckets. */
interface TwoStepState {
  readonly plan: TwoStepPlan;
  readonly step: StepState;
  readonly trained: readonly ReplayParameter[];
  readonly firstBuckets: readonly Allocation[];
  firstStep: number;
}

/** The weights, the first iteration's buckets (one flat bucket of every gradient, ddpBucketBytes), the first step. */
function startTwoSteps(plan: TwoStepPlan): TwoStepState {
  const step = stepState(new CachingAllocator(plan.capacity), plan);
  const parameters = allParts(plan);
  for (const p of parameters) step.allocator.malloc(p.weight);
  const firstBuckets = plan.buckets.first.map((b) => step.allocator.malloc(b));
  trainingStep(step);
  const trained = parameters.filter((p) => p.state > 0);
  return { plan, step, trained, firstBuckets, firstStep: step.allocator.peakReserved };
}

/** The first optimizer step (AdamW's state made), the buckets rebuilt before the second forward, the second step. */
function finishTwoSteps(s: TwoStepState): void {
  const { plan, step, trained } = s;
  optimizerStep(step, plan, trained, true);
  zeroGrad(step);
  for (const b of s.firstBuckets) step.allocator.free(b);
  for (const b of plan.buckets.rebuilt) step.allocator.malloc(b);
  trainingStep(step);
  optimizerStep(step, plan, trained, false);
  zeroGrad(step);
}

function twoStepResult(s: TwoStepState): TwoStepReplay {
  const allocator = s.step.allocator;
  return { reserved: allocator.peakReserved, firstStep: s.firstStep, peakAllocated: allocator.peakAllocated };
}

/**
 * AdamW's step: its state made at the first step (or moved in for each step), the temporaries over every state
 * (optimizer-step.ts adamwTemporariesOf), freed when the step ends.
 */
function optimizerStep(
  state: StepState,
  plan: TwoStepPlan,
  parameters: readonly ReplayParameter[],
  first: boolean,
): void {
  const sizes = parameters.map((p) => p.state);
  replayOptimizerStep(
    state.allocator,
    sizes,
    plan.statesPerParameter,
    { first, eachStep: plan.statesEachStep === true },
    plan.adamw,
  );
}

/** zero_grad(set_to_none=True): every gradient freed. */
function zeroGrad(state: StepState): void {
  for (const g of state.grads) state.allocator.free(g);
  state.grads = [];
}

/** One forward and backward: the layers, the logits and the cross-entropy, each parameter's gradient. */
function trainingStep(state: StepState): void {
  const { normOut, kept } = stackForward(state);
  stackBackward(state, kept, replayLoss(state, normOut));
}

/**
 * The setups the replay stands for: a full fine-tune, LoRA or DoRA (no quantization) of a dense decoder, or of an MoE
 * one whose experts the replays follow (expertsReplayed), on one GPU or under DDP, with torch AdamW (foreach or fused)
 * and transformers' own loss (before 4.49 its shifted form), or TRL's chunked_nll with a head in the compute dtype,
 * freed before the backward as the HF Trainer frees it (not in a loop that keeps its outputs).
 */
function replayed(ctx: EstimateContext, forward: StageForward): boolean {
  const setup = ctx.setup;
  // DoRA's layers keep what its forward saves (the base output and the LoRA product), and its weight norm's temporaries
  // are in the layer's sequence where its forward makes them (activations/linear.ts doraWeightNorm).
  const lora = setup.method === 'lora' && ctx.methods.peft;
  return (
    forward.hasLoss &&
    (transformersLoss(ctx) || chunkedNllReplayed(ctx) || fusedTokenLoss(ctx)) &&
    (setup.method === 'full' || lora) &&
    setup.quantization === undefined &&
    expertsReplayed(ctx) &&
    ctx.model.lmHead &&
    !ctx.methods.galore &&
    !ctx.methods.rollout &&
    setup.preference === undefined &&
    setup.loop_keeps_outputs === false &&
    !ctx.sharding.fsdp &&
    ctx.sharding.zeroStage === 0 &&
    ctx.layout.tensorParallel === 1 &&
    ctx.layout.pipelineParallel === 1 &&
    !setup.expandable_segments &&
    layerSequenceReplayed(setup) &&
    (setup.optimizer === 'adamw' || setup.optimizer === 'adamw_fused')
  );
}

/** Whether the two-step replay is meant for the setup (its plan may still find a layer it cannot walk). */
export function twoStepReplayed(ctx: EstimateContext, forward: StageForward): boolean {
  return forward.sequence !== undefined && replayed(ctx, forward);
}

/**
 * The plan of a full fine-tune or a LoRA run with AdamW on one GPU (or DDP): a dense decoder, the plain cross-entropy
 * over the whole logits, gradients and optimizer state for the trained parameters only, the allocator bounded by
 * `capacity`; undefined for anything else, which keeps the other terms only.
 */
export function twoStepPlan(ctx: EstimateContext, forward: StageForward, capacity = Infinity): TwoStepPlan | undefined {
  const seq = forward.sequence;
  if (seq === undefined || !twoStepReplayed(ctx, forward)) return undefined;
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { embeddingBytes, gradBytes, stateBytes, logitsBytes, residualBytes, mode, half } = ctx.dtypes;
  const inv = ctx.model.inventory;
  const full = setup.method === 'full';
  const parameter = (elems: number, bytes: number, trainable: boolean): ReplayParameter => ({
    weight: elems * bytes,
    grad: trainable ? elems * Math.max(gradBytes, bytes) : 0,
    state: trainable ? elems * stateBytes : 0,
  });
  const layer: ReplayParameter[] = [];
  const walked = walkLayerParameters(
    ctx,
    (rows, cols, bytes, trainable, op) => layer.push({ ...parameter(rows * cols, bytes, trainable), op }),
    seq.linears,
  );
  if (!walked) return undefined;
  const tokens = forward.tokens;
  const embedding = parameter(inv.embedding, embeddingBytes, full);
  const head = inv.head > 0 ? parameter(inv.head, embeddingBytes, full) : undefined;
  return {
    embedding,
    layer,
    layers: forward.layers,
    head,
    sequence: seq,
    checkpointed: setup.gradient_checkpointing === 'full',
    recomputeStopsEarly: !checkpointReentrant(setup),
    finalNorm: replayedFinalNorm(ctx, tokens, residualBytes),
    hidden: tokens * a.hidden * residualBytes,
    logits: tokens * a.vocab * logitsBytes,
    logitsFp32: tokens * a.vocab * 4,
    blasWorkspace: blasWorkspace(ctx),
    ...replayLossAndOffload(ctx, tokens, (head ?? embedding).grad),
    shiftedLoss: shiftedLoss(ctx),
    logitSoftcap: setup.loss === 'full' && a.finalLogitSoftcap,
    // Autocast casts an fp32 head's weight for the logits' matmul, which keeps the copy for the hidden state's gradient.
    headCopy: mode === 'amp' && embeddingBytes === 4 ? (inv.head > 0 ? inv.head : inv.embedding) * half : 0,
    statesPerParameter: 2,
    adamw: adamwTemporariesOf(setup),
    statesEachStep: setup.optimizer_states_gpu === 'step',
    buckets: ctx.sharding.ddp
      ? ddpBucketBytes(
          allParts({ embedding, layer, layers: forward.layers, head }),
          setup.pytorch_version,
          setup.ddp_find_unused_parameters === true,
        )
      : { first: [], rebuilt: [] },
    capacity,
  };
}

/** DDP's gradient buckets in the first iteration, and as the Reducer rebuilds them before the second forward. */
export interface DdpBuckets {
  readonly first: readonly number[];
  readonly rebuilt: readonly number[];
}

/**
 * DDP's Reducer buckets (torch/nn/parallel/distributed.py, bucket_cap_mb 25, the first bucket 1 MiB): the parameters in
 * reverse order (the order their gradients come), a bucket closed once it holds the cap; each bucket one flat
 * gradient-sized buffer. From PyTorch 1.12 (pytorch/pytorch#72843) DDP without find_unused_parameters puts every
 * parameter in one bucket for the first iteration (BucketCapacityConfig: [sys.maxsize]), and `_pre_forward` rebuilds
 * the buckets by those caps before the second forward (`reducer._rebuild_buckets()`), freeing the first. With
 * find_unused_parameters the capped buckets are made from the start (CPU truth accelerate/llama-ddp-w2-full-amp: a
 * 4,194,304 B bucket of the head's gradient and one of the 9,999,360 B left, built with the model).
 */
export function ddpBucketBytes(
  parameters: readonly ReplayParameter[],
  pytorchVersion: string | undefined,
  findUnused = false,
): DdpBuckets {
  const rebuilt = cappedBuckets(parameters);
  const oneBucket = !findUnused && !olderThan(pytorchVersion, 1, 12);
  return { first: oneBucket ? [rebuilt.reduce((sum, b) => sum + b, 0)] : rebuilt, rebuilt };
}

function cappedBuckets(parameters: readonly ReplayParameter[]): number[] {
  const out: number[] = [];
  let cap = DDP_FIRST_BUCKET;
  let sum = 0;
  for (let i = parameters.length - 1; i >= 0; i--) {
    sum += parameters[i].grad;
    if (sum >= cap) {
      out.push(sum);
      sum = 0;
      cap = DDP_BUCKET_CAP;
    }
  }
  if (sum > 0) out.push(sum);
  return out;
}

const DDP_FIRST_BUCKET = 1 << 20;
const DDP_BUCKET_CAP = 25 << 20;

/** The reserved bytes of a replayed setup, and the term that reports what they hold beyond the peak's tensors. */
export interface TwoStepReserve {
  readonly reservedBytes: number;
  readonly term: RuntimeTerm | undefined;
  /** The replay ran in part (an FSDP replay's first micro-batch): reservedBytes is a lower bound. */
  readonly lowerBound?: true;
}

/**
 * A replay's reserved bytes for the estimate: its peak reserved, plus what the estimate's peak allocates beyond the
 * replay's (`missing`: tensors the replay leaves out need segments of their own), never less than the peak. A replay
 * run in part (`partial`) adds nothing for what it left out: its allocated peak is below the whole replay's, so the
 * difference would not be a lower bound.
 */
function replayedReserve(
  peakAllocated: number,
  replay: { readonly reserved: number; readonly peakAllocated: number },
  capacity: number,
  partial: boolean,
): { missing: number; reservedBytes: number; capped: boolean } {
  const missing = partial ? 0 : Math.max(0, peakAllocated - replay.peakAllocated);
  const replayed = replay.reserved + missing;
  // A replay that ran out even with its cache released was replayed without a bound (boundedReplay), and a peak above
  // the bound does not fit either: what such a run would reserve stays as replayed.
  const limit = replay.reserved > capacity || peakAllocated > capacity ? Infinity : capacity;
  return { missing, reservedBytes: Math.max(peakAllocated, Math.min(replayed, limit)), capped: replayed > limit };
}

/**
 * A replaying term's reserved bytes and its runtime term: `replayedReserve` of its replay, the formula written by
 * `describe` around the note of what the estimate's peak allocates beyond the replay ('' when nothing). No more than
 * the GPU holds beside the memory outside the allocator (`capacity`, the replay's bound): the caching allocator
 * releases its cached segments and retries before it reports out of memory, so what the replay and the tensors it
 * leaves out would cache beyond that is given back. `partial`: the replay ran in part, and the bytes are a lower bound.
 */
export function replayedReserveTerm(
  ctx: EstimateContext,
  id: RuntimeTerm['id'],
  label: string,
  peakAllocated: number,
  replay: { readonly reserved: number; readonly peakAllocated: number },
  capacity: number,
  describe: (beyond: string) => string,
  partial = false,
): TwoStepReserve {
  const { missing, reservedBytes, capped } = replayedReserve(peakAllocated, replay, capacity, partial);
  const beyond =
    (missing > 0 ? `, plus the ${formatBytes(missing)} the estimate's peak allocates beyond it` : '') +
    (capped
      ? `, up to the ${formatBytes(capacity)} the GPU has room for (the allocator releases cached segments)`
      : '');
  const term = runtimeTerm(ctx, id, label, reservedBytes - peakAllocated, () => describe(beyond));
  return partial ? { reservedBytes, term, lowerBound: true } : { reservedBytes, term };
}

/**
 * What the allocator reserves in a setup the two-step replay stands for: the replay's peak reserved bytes, plus what the
 * estimate's peak allocates beyond the replay's (tensors the replay leaves out need segments of their own), never less
 * than the peak; undefined for the setups the replay does not stand for (their cached blocks are the other terms').
 */
export function twoStepReserve(
  ctx: EstimateContext,
  forward: StageForward,
  peakAllocated: number,
  outsideReserved: number,
): TwoStepReserve | undefined {
  const plan = twoStepPlan(ctx, forward, allocatorCapacity(ctx, outsideReserved));
  if (!plan) return undefined;
  // The advice's closer bounds (EstimateContext.firstMicroBatch): the whole replay where known, else its first step.
  const { result: replay, partial } = ctx.firstMicroBatch
    ? twoStepReplays.atLeast(plan)
    : { result: replayTwoSteps(plan), partial: false };
  return replayedReserveTerm(
    ctx,
    'two-step-cache',
    'Cached by the allocator (replay of the load and two steps)',
    peakAllocated,
    replay,
    plan.capacity,
    (beyond) =>
      `allocator replay of the load and two training steps reserves ${formatBytes(replay.reserved)} (the first ` +
      `step alone ${formatBytes(replay.firstStep)}) at ${formatBytes(replay.peakAllocated)} allocated${beyond}` +
      ': the free blocks of the logits, the loss and the layers, and the segments the second step takes because ' +
      "AdamW's state, created at the first optimizer step, settled in the blocks the first step freed",
    partial,
  );
}
