// Term: the segments a full fine-tune's first optimizer step takes from the step's cache. AdamW creates its state
// lazily, at the first optimizer step (torch/optim/adamw.py _init_group: torch.zeros_like(p) for exp_avg and
// exp_avg_sq), when the allocator's cache holds every block the first forward and backward freed: the logits and
// the loss's vocabulary-sized tensors, the layers' intermediates and checkpointed inputs. Each state tensor takes
// the smallest cached block that holds it (c10/cuda/CUDACachingAllocator.cpp: best fit, a block split when the rest
// exceeds 1 MiB), so the state settles inside the blocks the step needs again, and the second step's forward and
// backward ask the driver for new segments; nothing is released while the GPU has room. Computed by replaying two
// steps of the estimate's own allocations (the weights, each layer's forward from terms/saved-tensors.ts
// forwardSequence, the logits and the cross-entropy, the backward with each parameter's gradient, AdamW's state and
// its foreach temporary, zero_grad) through the allocator model (terms/allocator.ts); the term is what that replay
// reserves beyond the reserved figure of the other terms. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes } from '../units';
import { memo } from '../util/memo';
import { type Allocation, CachingAllocator } from './allocator';
import { allocateSequence, freeSchedule, type StageForward } from './forward-cache';
import type { ForwardSequence } from './saved-tensors';

/** One parameter: the bytes of its weight, of its gradient and of each optimizer state tensor. */
export interface ReplayParameter {
  readonly weight: number;
  readonly grad: number;
  readonly state: number;
}

/** What the two-step replay allocates, all of it in bytes (one rank, one micro-batch). */
export interface TwoStepPlan {
  readonly embedding: ReplayParameter;
  /** One decoder layer's parameters in module order (the same for every layer). */
  readonly layer: readonly ReplayParameter[];
  readonly layers: number;
  /** The untied output head, undefined when it is the embedding (tied). */
  readonly head: ReplayParameter | undefined;
  readonly sequence: ForwardSequence;
  readonly checkpointed: boolean;
  /** A hidden state of the micro-batch (tokens x hidden x compute bytes): the embedding's output, a layer's input. */
  readonly hidden: number;
  /** The logits in the compute dtype (tokens x vocabulary). */
  readonly logits: number;
  /** The logits in fp32: the cross-entropy's upcast, log-softmax and gradients (equal to `logits` in fp32 training). */
  readonly logitsFp32: number;
  /** Optimizer state tensors per parameter (AdamW: exp_avg, exp_avg_sq). */
  readonly statesPerParameter: number;
  /** The foreach implementation's copy of every exp_avg_sq at each step (_foreach_sqrt; none in the fused kernel). */
  readonly foreachSqrt: boolean;
  /** DDP's flat gradient buckets, allocated when the model is wrapped (none on one GPU). */
  readonly buckets: readonly number[];
}

/** Peak reserved bytes of the replay, and what the first step alone reserved. */
export interface TwoStepReplay {
  readonly reserved: number;
  readonly firstStep: number;
}

/** The replay's running state: the allocator, and the handles each phase frees later. */
interface ReplayState {
  readonly allocator: CachingAllocator;
  readonly plan: TwoStepPlan;
  /** A layer's forward, and under checkpointing its recompute in the backward (built once per replay). */
  readonly forward: SequenceRun;
  readonly recompute: SequenceRun;
  grads: Allocation[];
}

function allParameters(plan: TwoStepPlan): ReplayParameter[] {
  return allParts(plan.embedding, plan.layer, plan.layers, plan.head);
}

/** Replays the weights' load and two training steps; memoized per plan (the advice search repeats plans). */
export const replayTwoSteps = memo(replayTwoStepsUncached, {
  limit: 64,
  scope: (p) => p.sequence,
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
    ].join('|'),
});

function replayTwoStepsUncached(plan: TwoStepPlan): TwoStepReplay {
  const seq = plan.sequence;
  const inputKept = plan.checkpointed || (seq.input >= 0 && seq.saved[seq.input]);
  const state: ReplayState = {
    allocator: new CachingAllocator(),
    plan,
    forward: sequenceRun(seq, (i) =>
      i === seq.input ? inputKept : i === seq.output || (!plan.checkpointed && seq.saved[i]),
    ),
    recompute: sequenceRun(seq, (i) => i === seq.input || (seq.saved[i] && i !== seq.output)),
    grads: [],
  };
  const parameters = allParameters(plan);
  for (const p of parameters) state.allocator.malloc(p.weight);
  for (const b of plan.buckets) state.allocator.malloc(b);
  trainingStep(state);
  const firstStep = state.allocator.peakReserved;
  for (const p of parameters) for (let k = 0; k < plan.statesPerParameter; k++) state.allocator.malloc(p.state);
  optimizerTemporaries(state, parameters);
  zeroGrad(state);
  trainingStep(state);
  optimizerTemporaries(state, parameters);
  zeroGrad(state);
  return { reserved: state.allocator.peakReserved, firstStep };
}

/** AdamW foreach: one copy of every exp_avg_sq (_foreach_sqrt), freed when the step ends. */
function optimizerTemporaries(state: ReplayState, parameters: readonly ReplayParameter[]): void {
  if (!state.plan.foreachSqrt) return;
  const temps = parameters.map((p) => state.allocator.malloc(p.state));
  for (const t of temps) state.allocator.free(t);
}

/** zero_grad(set_to_none=True): every gradient freed. */
function zeroGrad(state: ReplayState): void {
  for (const g of state.grads) state.allocator.free(g);
  state.grads = [];
}

/** One forward and backward: the layers, the logits and the cross-entropy, each parameter's gradient. */
function trainingStep(state: ReplayState): void {
  const { allocator, plan } = state;
  let input = allocator.malloc(plan.hidden);
  const keptPerLayer: Alive[][] = [];
  for (let l = 0; l < plan.layers; l++) {
    const layer = layerForward(state, input);
    keptPerLayer.push(layer.kept);
    input = layer.output;
  }
  const normOut = allocator.malloc(plan.hidden);
  allocator.free(input);
  let gradHidden = lossForwardBackward(state);
  allocator.free(normOut);
  for (let l = plan.layers - 1; l >= 0; l--) {
    gradHidden = layerBackward(state, keptPerLayer[l], gradHidden);
  }
  embeddingBackward(state);
  allocator.free(gradHidden);
}

/**
 * The head and the cross-entropy (transformers' ForCausalLMLoss): the logits, their fp32 upcast and log-softmax; the
 * 16-bit logits and the upcast are freed before the backward, which allocates the loss's gradient and log-softmax's,
 * casts it back to 16 bits, and gives the head's weight gradient and the hidden state's. Returns the last.
 */
function lossForwardBackward(state: ReplayState): Allocation {
  const { allocator, plan } = state;
  const half = plan.logits < plan.logitsFp32;
  const logits = allocator.malloc(plan.logits);
  const upcast = half ? allocator.malloc(plan.logitsFp32) : undefined;
  const logSoftmax = allocator.malloc(plan.logitsFp32);
  if (upcast) allocator.free(upcast);
  allocator.free(logits);
  const nllGrad = allocator.malloc(plan.logitsFp32);
  const softmaxGrad = allocator.malloc(plan.logitsFp32);
  allocator.free(nllGrad);
  allocator.free(logSoftmax);
  const logitsGrad = half ? allocator.malloc(plan.logits) : softmaxGrad;
  if (half) allocator.free(softmaxGrad);
  const head = plan.head ?? plan.embedding;
  if (head.grad > 0) state.grads.push(allocator.malloc(head.grad));
  const gradHidden = allocator.malloc(plan.hidden);
  allocator.free(logitsGrad);
  return gradHidden;
}

/** The embedding's gradient: its own, or with a tied head one more of its size, accumulated and freed. */
function embeddingBackward(state: ReplayState): void {
  const { allocator, plan } = state;
  if (plan.embedding.grad <= 0) return;
  if (plan.head) {
    state.grads.push(allocator.malloc(plan.embedding.grad));
    return;
  }
  allocator.free(allocator.malloc(plan.embedding.grad));
}

/** A tensor alive in the replay: its allocator handle and its bytes (the size of its gradient). */
interface Alive {
  readonly handle: Allocation;
  readonly bytes: number;
}

/** One layer's forward; returns its output and what autograd (or checkpointing: the input) keeps to the backward. */
function layerForward(state: ReplayState, input: Allocation): { output: Allocation; kept: Alive[] } {
  const seq = state.plan.sequence;
  const alive = runSequence(state.allocator, seq, input, state.forward);
  const inputKept = state.forward.keep(seq.input);
  if (!inputKept && seq.input < 0) state.allocator.free(input);
  const inputBytes = seq.input >= 0 ? seq.bytes[seq.input] : 0;
  const kept = inputKept ? [{ handle: input, bytes: inputBytes }, ...alive.kept] : alive.kept;
  return { output: alive.output!, kept };
}

/** How a block's forward runs in the replay: what it keeps, and the frees that follows from that (freeSchedule). */
interface SequenceRun {
  readonly keep: (i: number) => boolean;
  readonly schedule: readonly (readonly number[])[];
}

/**
 * The run that keeps what `keep` names and frees everything else after its last read, held tensors (autocast's weight
 * copies) at the block's end, the input likewise when not kept.
 */
function sequenceRun(seq: ForwardSequence, keep: (i: number) => boolean): SequenceRun {
  return { keep, schedule: freeSchedule(seq, (i) => !keep(i) && !seq.held[i]) };
}

/**
 * Runs a block's forward sequence from `input`. Returns the output's handle and the other kept tensors, in order (the
 * input not among them).
 */
function runSequence(
  allocator: CachingAllocator,
  seq: ForwardSequence,
  input: Allocation,
  run: SequenceRun,
): { output: Allocation | undefined; kept: Alive[] } {
  const handles = allocateSequence(allocator, seq, input, run.schedule);
  const kept: Alive[] = [];
  for (let i = 0; i < seq.bytes.length; i++) {
    const h = handles[i];
    if (!h || i === seq.input || i === seq.output) continue;
    if (run.keep(i)) kept.push({ handle: h, bytes: seq.bytes[i] });
    else allocator.free(h);
  }
  return { output: seq.output === seq.input ? undefined : handles[seq.output], kept };
}

/**
 * One layer's backward: under checkpointing its forward again (what autograd saves kept, the recomputed output freed);
 * then each kept tensor, last first, gets a gradient of its size while the one before is freed, the layer's
 * parameters' gradients among them (last parameter first, spread over the layer's backward), and the gradient of the
 * layer's input. Returns the last.
 */
function layerBackward(state: ReplayState, kept: Alive[], gradOutput: Allocation): Allocation {
  const { allocator, plan } = state;
  const seq = plan.sequence;
  let saved = kept;
  if (plan.checkpointed) {
    const again = runSequence(allocator, seq, kept[0].handle, state.recompute);
    if (again.output) allocator.free(again.output);
    saved = again.kept;
  }
  const params = plan.layer;
  let grad = gradOutput;
  let next = params.length - 1;
  for (let k = saved.length - 1; k >= 0; k--) {
    const g = allocator.malloc(saved[k].bytes);
    allocator.free(grad);
    grad = g;
    while (next >= 0 && next * saved.length >= k * params.length) parameterGrad(state, params[next--]);
    allocator.free(saved[k].handle);
  }
  while (next >= 0) parameterGrad(state, params[next--]);
  const gradInput = allocator.malloc(plan.hidden);
  allocator.free(grad);
  if (plan.checkpointed) allocator.free(kept[0].handle);
  return gradInput;
}

function parameterGrad(state: ReplayState, p: ReplayParameter): void {
  if (p.grad > 0) state.grads.push(state.allocator.malloc(p.grad));
}

/** The setups the replay stands for: a full fine-tune of a dense decoder with torch AdamW (foreach or fused) and the plain loss. */
function replayed(ctx: EstimateContext, forward: StageForward): boolean {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  return !(
    !forward.hasLoss ||
    setup.method !== 'full' ||
    setup.loss !== 'full' ||
    a.moe !== undefined ||
    !ctx.model.lmHead ||
    ctx.methods.adapters ||
    ctx.methods.galore ||
    ctx.methods.rollout ||
    setup.preference !== undefined ||
    ctx.sharding.fsdp ||
    ctx.sharding.zeroStage > 0 ||
    ctx.layout.tensorParallel > 1 ||
    ctx.layout.pipelineParallel > 1 ||
    setup.expandable_segments ||
    setup.activation_offloading ||
    setup.gradient_checkpointing === 'selective' ||
    (setup.optimizer !== 'adamw' && setup.optimizer !== 'adamw_fused')
  );
}

/**
 * The plan of a full fine-tune with AdamW on one GPU (or DDP): every parameter trainable, a dense decoder, the plain
 * cross-entropy over the whole logits; undefined for anything else, which keeps the other terms only.
 */
export function twoStepPlan(ctx: EstimateContext, forward: StageForward): TwoStepPlan | undefined {
  const seq = forward.sequence;
  if (seq === undefined || !replayed(ctx, forward)) return undefined;
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { weightBytes, embeddingBytes, gradBytes, stateBytes, computeBytes } = ctx.dtypes;
  const inv = ctx.model.inventory;
  const parameter = (elems: number, bytes: number): ReplayParameter => ({
    weight: elems * bytes,
    grad: elems * Math.max(gradBytes, bytes),
    state: elems * stateBytes,
  });
  const layer: ReplayParameter[] = [];
  let linear = 0;
  for (const m of ctx.model.modules) {
    const perLayer = m.count / a.layers;
    if (!Number.isInteger(perLayer)) return undefined;
    const elems = m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0);
    for (let k = 0; k < perLayer; k++) layer.push(parameter(elems, weightBytes));
    linear += perLayer * elems;
  }
  const vectors = Math.max(0, Math.round(inv.blocks / a.layers) - linear);
  for (let rest = vectors; rest > 0; rest -= a.hidden) layer.push(parameter(Math.min(a.hidden, rest), weightBytes));
  const tokens = forward.tokens;
  const embedding = parameter(inv.embedding, embeddingBytes);
  const head = inv.head > 0 ? parameter(inv.head, embeddingBytes) : undefined;
  return {
    embedding,
    layer,
    layers: forward.layers,
    head,
    sequence: seq,
    checkpointed: setup.gradient_checkpointing === 'full',
    hidden: tokens * a.hidden * computeBytes,
    logits: tokens * a.vocab * computeBytes,
    logitsFp32: tokens * a.vocab * 4,
    statesPerParameter: 2,
    foreachSqrt: setup.optimizer === 'adamw',
    buckets:
      ctx.layout.dataParallel * ctx.layout.contextParallel > 1
        ? ddpBucketBytes(allParts(embedding, layer, forward.layers, head))
        : [],
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

function allParts(
  embedding: ReplayParameter,
  layer: readonly ReplayParameter[],
  layers: number,
  head: ReplayParameter | undefined,
): ReplayParameter[] {
  const out: ReplayParameter[] = [embedding];
  for (let l = 0; l < layers; l++) out.push(...layer);
  if (head) out.push(head);
  return out;
}

/**
 * The term: what the two-step replay reserves beyond `reservedSoFar` (the peak's allocated bytes, the flat reserve and
 * the cached blocks the other terms count), undefined when it reserves no more or the setup is not replayed.
 */
export function twoStepCacheTerm(
  ctx: EstimateContext,
  forward: StageForward,
  reservedSoFar: number,
): RuntimeTerm | undefined {
  const plan = twoStepPlan(ctx, forward);
  if (!plan) return undefined;
  const replay = replayTwoSteps(plan);
  if (replay.reserved <= reservedSoFar) return undefined;
  return {
    id: 'two-step-cache',
    label: "Segments AdamW's first step took from the step's cache",
    bytes: replay.reserved - reservedSoFar,
    formula: ctx.lean
      ? ''
      : `allocator replay of two steps reserves ${formatBytes(replay.reserved)} (the first alone ` +
        `${formatBytes(replay.firstStep)}): AdamW's state, created at the first optimizer step, settles in the blocks ` +
        `the first forward and backward freed, and the second step asks for new segments`,
  };
}
