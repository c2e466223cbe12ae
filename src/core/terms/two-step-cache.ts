// Term: the segments a full fine-tune's first optimizer step takes from the step's cache. AdamW creates its state
// lazily, at the first optimizer step (torch/optim/adamw.py _init_group: torch.zeros_like(p) for exp_avg and
// exp_avg_sq), when the allocator's cache holds every block the first forward and backward freed: the logits and
// the loss's vocabulary-sized tensors, the layers' intermediates and checkpointed inputs. Each state tensor takes
// the smallest cached block that holds it (c10/cuda/CUDACachingAllocator.cpp: best fit, a block split when the rest
// exceeds 1 MiB), so the state settles inside the blocks the step needs again, and the second step's forward and
// backward ask the driver for new segments; nothing is released while the GPU has room. Computed by replaying two
// steps of the estimate's own allocations (the weights, each layer's forward from terms/saved-tensors.ts
// forwardSequence, the logits and the cross-entropy, the backward with each parameter's gradient, AdamW's state and
// its foreach temporary, zero_grad, and the first step's two cuBLAS workspaces: terms/blas-workspaces.ts) through the
// allocator model (terms/allocator.ts); the term is what that replay
// reserves beyond the reserved figure of the other terms. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import { runtimeTerm } from '../estimate/component';
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { memo } from '../util/memo';
import { CachingAllocator } from './allocator';
import { blasWorkspace } from './blas-workspaces';
import type { StageForward } from './forward-cache';
import {
  allocatorCapacity,
  allParts,
  type Alive,
  blasWorkspaceAt,
  boundedReplay,
  embeddingBackward,
  layerBackward,
  layerForward,
  layerRecompute,
  lossForwardBackward,
  type ReplayParameter,
  type StepShape,
  type StepState,
  replayScope,
  stepState,
  walkLayerParameters,
} from './step-replay';

/** What the two-step replay allocates, all of it in bytes (one rank, one micro-batch). */
export interface TwoStepPlan extends StepShape {
  /** Optimizer state tensors per parameter (AdamW: exp_avg, exp_avg_sq). */
  readonly statesPerParameter: number;
  /** The foreach implementation's copy of every exp_avg_sq at each step (_foreach_sqrt; none in the fused kernel). */
  readonly foreachSqrt: boolean;
  /** DDP's flat gradient buckets, allocated when the model is wrapped (none on one GPU). */
  readonly buckets: readonly number[];
  /** Bytes the driver can hand out: the GPU's memory less what is outside the allocator (Infinity without a GPU). */
  readonly capacity: number;
}

/** Peak reserved bytes of the replay, and what the first step alone reserved. */
export interface TwoStepReplay {
  readonly reserved: number;
  readonly firstStep: number;
}

/**
 * Replays the weights' load and two training steps, bounded by the GPU (boundedReplay); memoized per plan (the advice
 * search and the editor's changes repeat plans).
 */
export const replayTwoSteps = memo(boundedReplay(replayTwoStepsUncached), {
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
      +p.checkpointed,
      p.hidden,
      p.logits,
      p.logitsFp32,
      p.statesPerParameter,
      +p.foreachSqrt,
      p.buckets.join(','),
      p.blasWorkspace,
      p.capacity,
    ].join('|'),
});

function replayTwoStepsUncached(plan: TwoStepPlan): TwoStepReplay {
  const state = stepState(new CachingAllocator(plan.capacity), plan);
  const parameters = allParts(plan);
  const trained = parameters.filter((p) => p.state > 0);
  for (const p of parameters) state.allocator.malloc(p.weight);
  for (const b of plan.buckets) state.allocator.malloc(b);
  trainingStep(state);
  const firstStep = state.allocator.peakReserved;
  for (const p of trained) for (let k = 0; k < plan.statesPerParameter; k++) state.allocator.malloc(p.state);
  optimizerTemporaries(state, plan, trained);
  zeroGrad(state);
  trainingStep(state);
  optimizerTemporaries(state, plan, trained);
  zeroGrad(state);
  return { reserved: state.allocator.peakReserved, firstStep };
}

/** AdamW foreach: one copy of every exp_avg_sq (_foreach_sqrt), freed when the step ends. */
function optimizerTemporaries(state: StepState, plan: TwoStepPlan, parameters: readonly ReplayParameter[]): void {
  if (!plan.foreachSqrt) return;
  const temps = parameters.map((p) => state.allocator.malloc(p.state));
  for (const t of temps) state.allocator.free(t);
}

/** zero_grad(set_to_none=True): every gradient freed. */
function zeroGrad(state: StepState): void {
  for (const g of state.grads) state.allocator.free(g);
  state.grads = [];
}

/** One forward and backward: the layers, the logits and the cross-entropy, each parameter's gradient. */
function trainingStep(state: StepState): void {
  const { allocator, shape } = state;
  let input = allocator.malloc(shape.hidden);
  blasWorkspaceAt(state, 'forward');
  const keptPerLayer: Alive[][] = [];
  for (let l = 0; l < shape.layers; l++) {
    const layer = layerForward(state, input);
    keptPerLayer.push(layer.kept);
    input = layer.output;
  }
  const normOut = allocator.malloc(shape.hidden);
  allocator.free(input);
  let gradHidden = lossForwardBackward(state);
  allocator.free(normOut);
  for (let l = shape.layers - 1; l >= 0; l--) {
    const kept = keptPerLayer[l];
    gradHidden = layerBackward(state, kept, layerRecompute(state, kept), gradHidden);
  }
  embeddingBackward(state);
  allocator.free(gradHidden);
}

/**
 * The setups the replay stands for: a full fine-tune or plain LoRA (no quantization, no DoRA) of a dense decoder on one
 * GPU or under DDP, with torch AdamW (foreach or fused) and the plain loss.
 */
function replayed(ctx: EstimateContext, forward: StageForward): boolean {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const lora = setup.method === 'lora' && ctx.methods.peft && !ctx.methods.lora?.use_dora;
  return (
    forward.hasLoss &&
    (setup.method === 'full' || lora) &&
    setup.quantization === undefined &&
    setup.loss === 'full' &&
    a.moe === undefined &&
    ctx.model.lmHead &&
    !ctx.methods.galore &&
    !ctx.methods.rollout &&
    setup.preference === undefined &&
    !ctx.sharding.fsdp &&
    ctx.sharding.zeroStage === 0 &&
    ctx.layout.tensorParallel === 1 &&
    ctx.layout.pipelineParallel === 1 &&
    !setup.expandable_segments &&
    !setup.activation_offloading &&
    setup.gradient_checkpointing !== 'selective' &&
    (setup.optimizer === 'adamw' || setup.optimizer === 'adamw_fused')
  );
}

/**
 * The plan of a full fine-tune or a LoRA run with AdamW on one GPU (or DDP): a dense decoder, the plain cross-entropy
 * over the whole logits, gradients and optimizer state for the trained parameters only, the allocator bounded by
 * `capacity`; undefined for anything else, which keeps the other terms only.
 */
export function twoStepPlan(ctx: EstimateContext, forward: StageForward, capacity = Infinity): TwoStepPlan | undefined {
  const seq = forward.sequence;
  if (seq === undefined || !replayed(ctx, forward)) return undefined;
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { embeddingBytes, gradBytes, stateBytes, computeBytes, residualBytes } = ctx.dtypes;
  const inv = ctx.model.inventory;
  const full = setup.method === 'full';
  const parameter = (elems: number, bytes: number, trainable: boolean): ReplayParameter => ({
    weight: elems * bytes,
    grad: trainable ? elems * Math.max(gradBytes, bytes) : 0,
    state: trainable ? elems * stateBytes : 0,
  });
  const layer: ReplayParameter[] = [];
  const walked = walkLayerParameters(ctx, (rows, cols, bytes, trainable) =>
    layer.push(parameter(rows * cols, bytes, trainable)),
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
    hidden: tokens * a.hidden * residualBytes,
    logits: tokens * a.vocab * computeBytes,
    logitsFp32: tokens * a.vocab * 4,
    blasWorkspace: blasWorkspace(ctx),
    statesPerParameter: 2,
    foreachSqrt: setup.optimizer === 'adamw',
    buckets:
      ctx.layout.dataParallel * ctx.layout.contextParallel > 1
        ? ddpBucketBytes(allParts({ embedding, layer, layers: forward.layers, head }))
        : [],
    capacity,
  };
}

/**
 * DDP's Reducer buckets (torch/nn/parallel/distributed.py, bucket_cap_mb 25, the first bucket 1 MiB): the parameters in
 * reverse order, a bucket closed once it holds the cap; each bucket one flat gradient-sized buffer.
 */
export function ddpBucketBytes(parameters: readonly ReplayParameter[]): number[] {
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

/**
 * The term: what the two-step replay reserves beyond `reservedSoFar` (the peak's allocated bytes, the flat reserve and
 * the cached blocks the other terms count), undefined when it reserves no more or the setup is not replayed.
 */
export function twoStepCacheTerm(
  ctx: EstimateContext,
  forward: StageForward,
  reservedSoFar: number,
  outsideReserved: number,
): RuntimeTerm | undefined {
  const plan = twoStepPlan(ctx, forward, allocatorCapacity(ctx, outsideReserved));
  if (!plan) return undefined;
  const replay = replayTwoSteps(plan);
  return runtimeTerm(
    ctx,
    'two-step-cache',
    "Segments AdamW's first step took from the step's cache",
    replay.reserved - reservedSoFar,
    () =>
      `allocator replay of two steps reserves ${formatBytes(replay.reserved)} (the first alone ` +
      `${formatBytes(replay.firstStep)}): AdamW's state, created at the first optimizer step, settles in the blocks ` +
      `the first forward and backward freed, and the second step asks for new segments`,
  );
}
