// The pieces of a training step's allocation replay that the replaying terms share (terms/two-step-cache.ts,
// terms/fsdp2-step-cache.ts): a decoder layer's forward from the activation replay's sequence (terms/saved-tensors.ts
// forwardSequence), its recompute under checkpointing, a backward that gives each kept tensor a gradient of its size
// with the layer's parameter gradients among them (added into held ones under a deferred gradient sync; the walk of
// those parameters: terms/layer-parameters.ts), and activation offloading of the checkpointed inputs; the head and the
// loss are terms/loss-replay.ts.
// Each runs on one allocator model (terms/allocator.ts): the compute stream's, and the offload's restore stream. Not a
// term itself. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import { groupedMmExperts } from '../architecture';
import type { EstimateContext } from '../estimate/context';
import { fsdp2ExpertPadding } from '../estimate/fsdp2-padding';
import { expertsLooped } from '../estimate/normalize';
import { memo, memoByObject } from '../util/memo';
import type { Allocation, CachingAllocator } from './allocator';
import { bnbLoadModel } from './bnb-load';
import type { ChunkedNllShape } from './chunked-nll-replay';
import { autocastCastsHead } from './activations/stage';
import { finalNormSequence } from './activations/norms';
import { finalNormPlan, lossPlan } from './logits-loss';
import { type FusedLossSizes, fusedLossSizes } from './loss';
import { plainTokenLoss } from './shifted-logits';
import { allocateSequence, freeSchedule } from './forward-cache';
import type { ForwardSequence, LinearOp } from './saved-tensors';

/** One parameter: the bytes of its weight, of its gradient and of each optimizer state tensor. */
export interface ReplayParameter {
  readonly weight: number;
  readonly grad: number;
  readonly state: number;
  /** The layer's linear op (in module order, LoRA's A and B ops of their own) whose backward makes the gradient. */
  readonly op?: number;
}

/** What one forward and backward allocate on the compute stream, in bytes (one rank, one micro-batch). */
export interface StepShape {
  readonly embedding: ReplayParameter;
  /** One decoder layer's parameters in module order (the same for every layer). */
  readonly layer: readonly ReplayParameter[];
  readonly layers: number;
  /** The untied output head, undefined when it is the embedding (tied). */
  readonly head: ReplayParameter | undefined;
  readonly sequence: ForwardSequence;
  /**
   * The final norm's forward from the last layer's output (activations/norms.ts finalNormSequence); undefined: its
   * output alone, of a hidden state's size.
   */
  readonly finalNorm?: ForwardSequence;
  readonly checkpointed: boolean;
  /**
   * Non-reentrant checkpointing: the recompute stops at the layer's last pack (ForwardSequence.recomputeEnd) and its
   * temporaries go as the recompute unwinds. Undefined reads as false (the reentrant form reruns the whole forward).
   */
  readonly recomputeStopsEarly?: boolean;
  /**
   * A hidden state of the micro-batch: the embedding's output, a layer's input (tokens x hidden x the residual stream's
   * bytes: fp32 under autocast with fp32 weights, whose embedding and residual adds stay fp32; the compute dtype where
   * FSDP's mixed precision gathers the weights in it).
   */
  readonly hidden: number;
  /** The logits in the compute dtype (tokens x vocabulary). */
  readonly logits: number;
  /** The logits in fp32: the cross-entropy's upcast, log-softmax and gradients (equal to `logits` in fp32 training). */
  readonly logitsFp32: number;
  /** One thread's cuBLAS workspace, taken at its first matmul and never freed (terms/blas-workspaces.ts; 0: unknown). */
  readonly blasWorkspace: number;
  /**
   * Autocast's 16-bit copy of an fp32 output head's weight, which the head's matmul keeps for the hidden state's
   * gradient (0: no copy; undefined reads as 0).
   */
  readonly headCopy?: number;
  /**
   * Gemma's final_logit_softcapping in the model's forward (`logits / cap`, tanh, `* cap`, in the logits' dtype;
   * undefined reads as none).
   */
  readonly logitSoftcap?: boolean;
  /** TRL's chunked_nll instead of transformers' cross-entropy over the whole logits (terms/chunked-nll-replay.ts). */
  readonly chunkedNll?: ChunkedNllShape;
  /** A fused linear cross-entropy instead of it (Liger, Cut Cross-Entropy: fusedLossForwardBackward). */
  readonly fusedLoss?: FusedLossSizes;
  /**
   * Activation offloading under full checkpointing: each layer's checkpointed input goes to the host once two newer
   * ones are saved, and comes back on a stream of its own for its layer's backward (offloadCheckpointedInput).
   */
  readonly offloadedInputs?: boolean;
  /**
   * transformers before 4.49 shifted the logits, not the labels (terms/shifted-logits.ts): undefined for the loss as
   * 4.49 and later run it.
   */
  readonly shiftedLoss?: ShiftedLoss;
}

/** The loss of transformers before 4.49: `logits.float()`, then `logits[..., :-1, :].contiguous()` and cross_entropy. */
export interface ShiftedLoss {
  /** Before 4.46 the model's forward upcasts, and the 16-bit logits are freed at once. */
  readonly upcastInModel: boolean;
  /** Over more than one row the slice is not contiguous: an fp32 copy of it. */
  readonly copy: boolean;
  /**
   * The family's own loss on the 16-bit logits (shifted-logits.ts ownHalfLoss): the copy is 16-bit, and cross_entropy
   * runs in fp32 under autocast (its cast of the copy), in 16 bits without.
   */
  readonly ownHalf?: { readonly amp: boolean };
}

/** A replay memo's key of the loss before 4.49 ('-' for the loss as 4.49 and later run it). */
export function shiftedLossKey(s: ShiftedLoss | undefined): string {
  if (!s) return '-';
  return `${+s.upcastInModel}${+s.copy}${s.ownHalf ? `h${+s.ownHalf.amp}` : ''}`;
}

/** A tensor alive in the replay: its allocator handle and its bytes (the size of its gradient). */
export interface Alive {
  readonly handle: Allocation;
  readonly bytes: number;
  /** Its allocation in the layer's forward sequence. */
  readonly index?: number;
}

/** How a block's forward runs in the replay: what it keeps, and the frees that follow from that (freeSchedule). */
interface SequenceRun {
  readonly keep: (i: number) => boolean;
  readonly schedule: readonly (readonly number[])[];
  /** How many of the sequence's allocations the run makes. */
  readonly end: number;
}

/** The compute stream's replay state: its allocator, the layer's two runs, and the gradients allocated so far. */
export interface StepState {
  readonly allocator: CachingAllocator;
  readonly shape: StepShape;
  /** A layer's forward, and under checkpointing its recompute in the backward (built once per replay). */
  readonly forward: SequenceRun;
  readonly recompute: SequenceRun;
  /** The final norm's forward (StepShape.finalNorm), and what it keeps to its backward once it has run. */
  readonly finalNorm: SequenceRun | undefined;
  finalNormKept: Allocation[];

  /** Parameter gradients allocated and not yet taken (zero_grad, or FSDP's reduce-scatter, frees them). */
  grads: Allocation[];
  /** For each of the layer's parameters: its linear op in the layer's forward sequence (undefined: a vector, or unmatched). */
  readonly parameterOps: readonly (LinearOp | undefined)[];
  /**
   * A tied head's gradient as the loss leaves it in autograd's input buffer for the embedding's: `view` when it is the
   * matmul's (the head ran once), which the lookup's gradient is summed with out of place (embeddingBackward).
   */
  tiedHeadGrad: { readonly handle: Allocation; readonly view: boolean } | undefined;
  /**
   * Autocast's weight copies that nothing saved (checkpointed layers): its cache holds them until the autocast context
   * of the forward exits, after the loss (torch/amp/autocast_mode.py __exit__: torch.clear_autocast_cache()).
   */
  autocastCache: Allocation[];
  /** The threads whose cuBLAS workspace is allocated: the loop's (forward) and autograd's (backward). */
  readonly blasThreads: Set<BlasThread>;
  /** What the training loop allocates between the loss's forward and its backward (DeepSpeed's backward()). */
  backwardStart?: () => void;
  /** What runs once the logits' gradient is there, before the head's backward (FSDP2's pre-backward of the head's unit). */
  headBackwardStart?: () => void;
  /** Under activation offloading: the checkpointed inputs still on the GPU, oldest first, and those sent to the host. */
  readonly stash: Allocation[];
  readonly offloaded: Set<Allocation>;
  /**
   * The layers' parameters hold gradients from an earlier micro-batch (FSDP's deferred gradient sync): AccumulateGrad
   * adds each new gradient into the held one in place, and frees it (parameterGrad).
   */
  accumulating: boolean;
}

/**
 * The stream the offloaded inputs come back on: Axolotl's CheckpointHiddenStatesOffload and torchtune's
 * OffloadActivations copy them to the GPU under their own `torch.cuda.stream(self.s1)`, so their blocks are that
 * stream's (the FSDP replays' side streams are 1-3).
 */
export const RESTORE_STREAM = 4;

/** A thread that runs matmuls: the training loop's (forward, optimizer) or autograd's device thread (backward). */
export type BlasThread = 'forward' | 'backward';

/** The thread's first matmul takes its cuBLAS workspace (terms/blas-workspaces.ts); later ones reuse it. */
export function blasWorkspaceAt(state: StepState, thread: BlasThread): void {
  if (state.blasThreads.has(thread)) return;
  state.blasThreads.add(thread);
  if (state.shape.blasWorkspace > 0) state.allocator.malloc(state.shape.blasWorkspace);
}

export function stepState(allocator: CachingAllocator, shape: StepShape): StepState {
  const seq = shape.sequence;
  const checkpointed = shape.checkpointed;
  const inputKept = checkpointed || (seq.input >= 0 && seq.saved[seq.input]);
  return {
    allocator,
    shape,
    // Autocast's weight copies are saved by the matmuls for the input's gradient: kept to the backward where autograd
    // saves (no checkpointing, and the recompute), cached to the forward's end where checkpointing drops them.
    forward: sequenceRun(seq, (i) =>
      i === seq.input ? inputKept : i === seq.output || (!checkpointed && (seq.saved[i] || seq.held[i])),
    ),
    recompute: sequenceRun(
      seq,
      (i) => i === seq.input || ((seq.saved[i] || seq.held[i]) && i !== seq.output),
      shape.recomputeStopsEarly === true ? seq.recomputeEnd : seq.bytes.length,
    ),
    finalNorm: shape.finalNorm && sequenceRun(shape.finalNorm, (i) => keptForBackward(shape.finalNorm!, i)),
    finalNormKept: [],
    grads: [],
    parameterOps: shape.layer.map((p) => (p.op === undefined ? undefined : seq.linears[p.op])),
    tiedHeadGrad: undefined,
    autocastCache: [],
    blasThreads: new Set(),
    stash: [],
    offloaded: new Set(),
    accumulating: false,
  };
}

/** A layer's forward sequence as a string: every field the replays read. */
function sequenceKey(seq: ForwardSequence): string {
  const flags = (xs: readonly boolean[]): string => xs.map((x) => (x ? 1 : 0)).join('');
  return [
    seq.bytes.join(','),
    seq.freeAfter.join(','),
    flags(seq.saved),
    flags(seq.held),
    flags(seq.uncached ?? []),
    flags(seq.contextHeld),
    seq.recomputeEnd,
    seq.input,
    seq.output,
    seq.linears.map((op) => `${op.weightElems}:${op.input}:${op.output}`).join(','),
  ].join(';');
}

/** The final norm's sequence as a string, once per sequence object (activations/norms.ts memoizes them). */
const finalNormKey = memoByObject(sequenceKey);

/** The first sequence seen with the same content (bounded like every memo). */
const firstEqualSequence = memo((seq: ForwardSequence) => seq, { key: sequenceKey, limit: 256 });

/**
 * The scope of the replays' memos: one object per sequence content. Every estimate builds its own sequence object (the
 * editor parses the setup again at each change), so a memo scoped by that object would never be hit again; the content
 * is read once per object, and the advice search's candidates, which share the object, pay a WeakMap lookup.
 */
export const replayScope = memoByObject(firstEqualSequence);

/**
 * Bytes the replays let the allocator reserve: the chosen GPU's memory less the headroom the fit keeps free and what
 * lies outside the allocator (Infinity without a GPU). Cached segments are released before a request fails, so they
 * count only as far as this reaches and never decide the fit.
 */
export function allocatorCapacity(ctx: EstimateContext, outsideReserved: number): number {
  return ctx.gpu ? ctx.gpu.memoryBytes * (1 - ctx.headroomFraction) - outsideReserved : Infinity;
}

/**
 * A replay bounded by its plan's capacity, which the allocator model meets as the real one does: cached segments
 * released, the request retried. One that runs out even then is replayed without a limit: what it reserves is more
 * than the GPU has, and the estimate says the run does not fit.
 */
export function boundedReplay<P extends { readonly capacity: number }, R>(replay: (plan: P) => R): (plan: P) => R {
  return (plan) => {
    try {
      return replay(plan);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      return replay({ ...plan, capacity: Infinity });
    }
  };
}

/**
 * Whether the replays follow a layer's experts: there are none (a dense layer), or transformers 5 runs them through
 * grouped_mm over 3-D expert parameters (gpt-oss's own too), which walkLayerParameters allocates as one tensor each,
 * whole on every rank (no expert parallelism). transformers 4's loop, and Unsloth's kernels, run the experts one after
 * another, which the layer's forward sequence does not follow. GPU truth (H100): Qwen1.5-MoE-A2.7B and Qwen3-30B-A3B
 * LoRA on one GPU, reserved -0.4 to -0.1 % replayed, where the flat share was -1.5 to +0.6 % (tools/truth/FINDINGS.md
 * §94).
 */
export function expertsReplayed(ctx: EstimateContext): boolean {
  const a = ctx.model.arch;
  if (a.moe === undefined) return true;
  return (
    groupedMmExperts(a) &&
    !expertsLooped(ctx.setup, a) &&
    ctx.setup.kernels !== 'unsloth' &&
    ctx.layout.expertParallel === 1
  );
}

/**
 * What the FSDP step replays (terms/fsdp1-step-cache.ts, terms/fsdp2-step-cache.ts) stand for in common: FSDP
 * FULL_SHARD over every rank (FSDP2 over one too: H100 truth at world size 1, reserved +3.2 %), a full fine-tune or
 * plain LoRA (no quantization, no DoRA) of a dense decoder, or of an MoE one whose experts the replays follow
 * (expertsReplayed) and FSDP2 does not pad, with transformers' loss, a fused one or TRL's chunked_nll and torch AdamW,
 * with or without a deferred gradient sync (the replays run its micro-batches); no tensor or pipeline parallelism,
 * expandable segments, activation offloading without full checkpointing, optimizer in backward or selective
 * checkpointing.
 */
export function fsdpStepReplayed(ctx: EstimateContext, forward: { readonly hasLoss: boolean }): boolean {
  const setup = ctx.setup;
  const lora = (setup.method === 'lora' || setup.method === 'qlora') && ctx.methods.peft && !ctx.methods.lora?.use_dora;
  // A bitsandbytes 4-bit model under FSDP1: its load and sharding on the GPU start the replay (terms/bnb-load.ts).
  const quantization = setup.quantization === undefined || bnbLoadModel(ctx) !== undefined;
  return (
    forward.hasLoss &&
    ctx.sharding.fsdp &&
    setup.fsdp === 'full_shard' &&
    // FSDP1 switches FULL_SHARD to NO_SHARD at world size 1 (fully_sharded_data_parallel.py); FSDP2 shards over one.
    (ctx.sharding.shardParams > 1 || setup.fsdp_version === 2) &&
    ctx.sharding.shardParams === ctx.layout.world &&
    (setup.method === 'full' || lora) &&
    quantization &&
    (setup.loss === 'full' || fusedTokenLoss(ctx) || chunkedNllReplayed(ctx)) &&
    expertsReplayed(ctx) &&
    fsdp2ExpertPadding(ctx, ctx.sharding.shardParams) === 1 &&
    ctx.model.lmHead &&
    !ctx.methods.galore &&
    !ctx.methods.rollout &&
    setup.preference === undefined &&
    ctx.layout.tensorParallel === 1 &&
    ctx.layout.pipelineParallel === 1 &&
    !setup.expandable_segments &&
    layerSequenceReplayed(setup) &&
    !setup.optimizer_in_backward &&
    (setup.optimizer === 'adamw' || setup.optimizer === 'adamw_fused')
  );
}

/** The embedding, the layers (in order) and the untied head: every parameter of the model. */
export function allParts(shape: Pick<StepShape, 'embedding' | 'layer' | 'layers' | 'head'>): ReplayParameter[] {
  const out: ReplayParameter[] = [shape.embedding];
  for (let l = 0; l < shape.layers; l++) out.push(...shape.layer);
  if (shape.head) out.push(shape.head);
  return out;
}

/**
 * A fused linear cross-entropy over a plain next-token loss of a transformers model (Liger's or Cut Cross-Entropy's
 * kernels; Unsloth's run its layers too, which the replays do not follow): what the replays run in place of
 * transformers' loss.
 */
export function fusedTokenLoss(ctx: EstimateContext): boolean {
  const setup = ctx.setup;
  return (
    setup.loss === 'fused' && setup.kernels !== 'unsloth' && setup.model_code === 'transformers' && plainTokenLoss(ctx)
  );
}

/**
 * TRL SFTTrainer's chunked_nll as terms/chunked-nll-replay.ts replays it: a plain token loss, with the head's weight in
 * the compute dtype (stored so, or gathered so by FSDP's param dtype; an fp32 head under autocast is cast per chunk,
 * which the replay does not follow).
 */
export function chunkedNllReplayed(ctx: EstimateContext): boolean {
  return ctx.setup.loss === 'chunked-nll' && plainTokenLoss(ctx) && !autocastCastsHead(ctx);
}

/** chunked_nll's sizes for a micro-batch of `tokens` tokens (undefined for the other losses). */
function chunkedNllShape(ctx: EstimateContext, tokens: number, headGrad: number): ChunkedNllShape | undefined {
  if (ctx.setup.loss !== 'chunked-nll') return undefined;
  const a = ctx.model.arch;
  const rows = tokens / ctx.setup.seq_len;
  return {
    validTokens: tokens - rows,
    halfPerToken: a.vocab * ctx.dtypes.computeBytes,
    fp32PerToken: a.vocab * 4,
    hiddenPerToken: a.hidden * Math.max(ctx.dtypes.computeBytes, ctx.dtypes.denseBytes),
    shiftedCopy: rows > 1,
    softcap: a.finalLogitSoftcap,
    headGrad,
  };
}

/**
 * Whether a layer's replayed sequence stands for the run's: full or no checkpointing (selective checkpointing keeps
 * other tensors), activation offloading only under full checkpointing (offloadCheckpointedInput), and no tiled MLP,
 * whose shards run without grad and again in the backward.
 */
export function layerSequenceReplayed(
  setup: Pick<EstimateContext['setup'], 'activation_offloading' | 'gradient_checkpointing' | 'tiled_mlp'>,
): boolean {
  return (
    (!setup.activation_offloading || setup.gradient_checkpointing === 'full') &&
    setup.tiled_mlp === false &&
    setup.gradient_checkpointing !== 'selective'
  );
}

/**
 * Micro-batches a step's replay runs: 1, or under FSDP's deferred gradient sync the first, which keeps its unsharded
 * gradients, and the last, which adds into them and reduces. A micro-batch between them makes the last one's requests
 * but the reduction's, and replaying it moved no figure of the H100's FSDP points run at three.
 */
export function replayedMicroBatches(ctx: EstimateContext): number {
  return ctx.sharding.deferredGradSync ? Math.min(ctx.setup.gradient_accumulation_steps, 2) : 1;
}

/**
 * The loss and offloading fields of a replay's shape, for the plans to spread in (each undefined when not run); `headGrad`
 * is the bytes of the output head's gradient as the replay makes it (TRL's chunks add theirs into it).
 */
export function replayLossAndOffload(
  ctx: EstimateContext,
  tokens: number,
  headGrad: number,
): Pick<StepShape, 'fusedLoss' | 'chunkedNll' | 'offloadedInputs'> {
  return {
    fusedLoss: fusedTokenLoss(ctx) ? fusedLossSizes(lossPlan(ctx, tokens)) : undefined,
    chunkedNll: chunkedNllShape(ctx, tokens, headGrad),
    offloadedInputs: ctx.setup.activation_offloading && ctx.setup.gradient_checkpointing === 'full' ? true : undefined,
  };
}

/**
 * The memo key's part for the step's shape that every step replay's plan has (checkpointing and its recompute, the
 * hidden state and the logits, the cuBLAS workspace, the loss and offloading); each plan adds its own fields.
 */
export function stepShapeKey(p: StepShape): string {
  return [
    +p.checkpointed,
    +(p.recomputeStopsEarly ?? false),
    p.finalNorm ? finalNormKey(p.finalNorm) : '-',
    p.hidden,
    p.logits,
    p.logitsFp32,
    p.blasWorkspace,
    lossAndOffloadKey(p),
  ].join('/');
}

/** The memo key's part for the fields replayLossAndOffload sets. */
export function lossAndOffloadKey(shape: Pick<StepShape, 'fusedLoss' | 'chunkedNll' | 'offloadedInputs'>): string {
  const f = shape.fusedLoss;
  const c = shape.chunkedNll;
  return (
    `${f ? `${f.inputGrad}/${f.tokenLosses}/${f.chunkLogits}` : '-'}/${c ? Object.values(c).join('/') : '-'}/` +
    `${+(shape.offloadedInputs ?? false)}`
  );
}

/** The forward's autocast context exits after the loss: its cache of weight copies is cleared. */
export function clearAutocastCache(state: StepState): void {
  for (const copy of state.autocastCache) state.allocator.free(copy);
  state.autocastCache = [];
}

/**
 * The embedding's gradient: its own; with a tied head the lookup's, summed with the head's waiting in autograd's input
 * buffer: in place into a sum of chunks, else (the head's matmul's view) into a new tensor that replaces it, the head's
 * and the lookup's freed after (terms/gradients.ts accumulationBuffers).
 */
export function embeddingBackward(state: StepState): void {
  const { allocator, shape } = state;
  const bytes = shape.embedding.grad;
  if (bytes <= 0) return;
  if (shape.head) {
    state.grads.push(allocator.malloc(bytes));
    return;
  }
  const lookup = allocator.malloc(bytes);
  const head = state.tiedHeadGrad;
  state.tiedHeadGrad = undefined;
  if (!head?.view) {
    allocator.free(lookup);
    return;
  }
  const sum = allocator.malloc(bytes);
  allocator.free(head.handle);
  allocator.free(lookup);
  const i = state.grads.indexOf(head.handle);
  if (i >= 0) state.grads[i] = sum;
  else state.grads.push(sum);
}

/**
 * The embedding's output through every layer's forward (the loop's thread takes its cuBLAS workspace at the first
 * matmul): the final norm's output, the last layer's freed, and what each layer keeps to its backward.
 */
export function stackForward(state: StepState): { normOut: Allocation; kept: Alive[][] } {
  const { allocator, shape } = state;
  let input = allocator.malloc(shape.hidden);
  blasWorkspaceAt(state, 'forward');
  const kept: Alive[][] = [];
  for (let l = 0; l < shape.layers; l++) {
    const layer = layerForward(state, input);
    kept.push(layer.kept);
    input = layer.output;
  }
  return { normOut: finalNormForward(state, input), kept };
}

/**
 * The final norm's forward as a step replay runs it (StepShape.finalNorm): over `tokens` hidden states of
 * `hiddenBytes` each, its weight in `gatheredBytes` where FSDP's mixed precision gathers it in the compute dtype.
 */
export function replayedFinalNorm(
  ctx: EstimateContext,
  tokens: number,
  hiddenBytes: number,
  gatheredBytes?: number,
): ForwardSequence {
  const plan = finalNormPlan(ctx, tokens, false);
  const gathered = gatheredBytes === undefined ? {} : { weightBytes: gatheredBytes, normWeightBytes: gatheredBytes };
  return finalNormSequence({ ...plan, residualBytes: hiddenBytes, ...gathered });
}

/** What a forward that is not checkpointed keeps of a sequence: its output and what autograd or autocast hold. */
function keptForBackward(seq: ForwardSequence, i: number): boolean {
  return i === seq.output || seq.saved[i] || seq.held[i];
}

/**
 * The final norm's forward from the last layer's output (StepShape.finalNorm): returns its output; what the norm keeps
 * for its backward stays until finalNormBackward.
 */
export function finalNormForward(state: StepState, input: Allocation): Allocation {
  const { allocator, shape, finalNorm: run } = state;
  const seq = shape.finalNorm;
  if (!seq || !run) {
    const out = allocator.malloc(shape.hidden);
    allocator.free(input);
    return out;
  }
  const alive = runSequence(allocator, seq, input, run);
  state.finalNormKept = alive.kept.map((k) => k.handle);
  if (run.keep(seq.input)) state.finalNormKept.push(input);
  return alive.output ?? input;
}

/** The final norm's backward once the head's is done: what its forward kept is freed. */
export function finalNormBackward(state: StepState): void {
  for (const h of state.finalNormKept) state.allocator.free(h);
  state.finalNormKept = [];
}

/**
 * Every layer's backward, last first, from the loss's gradient of the hidden state, then the embedding's; `afterEach`
 * runs after each of them (ZeRO's reduce hooks). The last gradient of the hidden state is freed.
 */
export function stackBackward(
  state: StepState,
  kept: readonly Alive[][],
  gradHidden: Allocation,
  afterEach: () => void = () => undefined,
): void {
  let grad = gradHidden;
  for (let l = state.shape.layers - 1; l >= 0; l--) {
    grad = layerBackward(state, kept[l], layerRecompute(state, kept[l]), grad);
    afterEach();
  }
  embeddingBackward(state);
  afterEach();
  state.allocator.free(grad);
}

/** One layer's forward; returns its output and what autograd (or checkpointing: the input) keeps to the backward. */
export function layerForward(state: StepState, input: Allocation): { output: Allocation; kept: Alive[] } {
  const seq = state.shape.sequence;
  if (state.shape.offloadedInputs && state.shape.checkpointed) offloadCheckpointedInput(state, input);
  const alive = runSequence(state.allocator, seq, input, state.forward, state.autocastCache);
  const inputKept = state.forward.keep(seq.input);
  if (!inputKept && seq.input < 0) state.allocator.free(input);
  const inputBytes = seq.input >= 0 ? seq.bytes[seq.input] : 0;
  const kept = inputKept ? [{ handle: input, bytes: inputBytes, index: seq.input }, ...alive.kept] : alive.kept;
  return { output: alive.output!, kept };
}

/**
 * The run that keeps what `keep` names and frees everything else after its last read, held tensors (autocast's weight
 * copies) at the block's end or, in the forward, into the autocast cache; the input likewise when not kept.
 */
function sequenceRun(seq: ForwardSequence, keep: (i: number) => boolean, end = seq.bytes.length): SequenceRun {
  return { keep, schedule: freeSchedule(seq, (i) => !keep(i) && !cachedCopy(seq, i)), end };
}

/** Whether a tensor of the sequence is a weight copy autocast caches to the forward's end. */
function cachedCopy(seq: ForwardSequence, i: number): boolean {
  return seq.held[i] && seq.uncached?.[i] !== true;
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
  autocastCache?: Allocation[],
): { output: Allocation | undefined; kept: Alive[] } {
  const handles = allocateSequence(allocator, seq, input, run.schedule, run.end);
  const kept: Alive[] = [];
  for (let i = 0; i < seq.bytes.length; i++) {
    const h = handles[i];
    if (!h || i === seq.input || i === seq.output) continue;
    if (run.keep(i)) kept.push({ handle: h, bytes: seq.bytes[i], index: i });
    else if (autocastCache && cachedCopy(seq, i)) autocastCache.push(h);
    else allocator.free(h);
  }
  return { output: seq.output === seq.input ? undefined : handles[seq.output], kept };
}

/**
 * Under checkpointing, a layer's forward again in its backward: what autograd saves is kept, the recomputed output
 * freed. Returns what the backward reads; without checkpointing, what the forward kept.
 */
export function layerRecompute(state: StepState, kept: Alive[]): Alive[] {
  if (!state.shape.checkpointed) return kept;
  restoreCheckpointedInput(state, kept);
  const again = runSequence(state.allocator, state.shape.sequence, kept[0].handle, state.recompute);
  if (again.output) state.allocator.free(again.output);
  return again.kept;
}

/**
 * Activation offloading as a layer's checkpoint saves its input (Axolotl's CheckpointHiddenStatesOffload, torchtune's
 * OffloadActivations, max_fwd_stash_size 2): the input is copied to the host and stays referenced in the forward
 * stash until two newer inputs are saved (_reap_forward_stash), then its GPU memory is freed.
 */
function offloadCheckpointedInput(state: StepState, input: Allocation): void {
  state.stash.push(input);
  if (state.stash.length <= 2) return;
  const old = state.stash.shift()!;
  state.allocator.free(old);
  state.offloaded.add(old);
}

/**
 * The layer's backward unpacks its checkpointed input: from the stash while it is still there (the last two layers),
 * else copied back to the GPU on the offload stream (_restore_tensor), the copy taking the input's place.
 */
function restoreCheckpointedInput(state: StepState, kept: Alive[]): void {
  const input = kept[0].handle;
  const stashed = state.stash.indexOf(input);
  if (stashed >= 0) state.stash.splice(stashed, 1);
  if (!state.offloaded.delete(input)) return;
  kept[0] = { handle: state.allocator.malloc(kept[0].bytes, RESTORE_STREAM), bytes: kept[0].bytes };
}

/**
 * One layer's backward from what `layerRecompute` returned: each kept tensor, last first, gets a gradient of its size
 * while the one before is freed, and the gradient of the layer's input comes last. A linear op's backward runs once its
 * output's gradient is there and makes its weight's gradient before its input's (GPU allocator histories,
 * tools/truth/FINDINGS.md §100: down_proj's weight gradient, then its input's; up_proj's after the product's backward,
 * before SiLU's): a parameter gets its gradient just after its op's output's where the layer kept the output, else just
 * before its op's input's; the others (norms, or a walk the forward did not match) are spread over the backward, last
 * parameter first.
 */
export function layerBackward(state: StepState, kept: Alive[], saved: Alive[], gradOutput: Allocation): Allocation {
  const { allocator, shape } = state;
  const params = shape.layer;
  const places = gradientPlaces(state.parameterOps, saved);
  let grad = gradOutput;
  let next = params.length - 1;
  for (let k = saved.length - 1; k >= 0; k--) {
    for (let p = params.length - 1; p >= 0; p--) if (places[p] === 2 * k) parameterGrad(state, params[p]);
    const g = allocator.malloc(saved[k].bytes);
    allocator.free(grad);
    grad = g;
    for (let p = params.length - 1; p >= 0; p--) if (places[p] === 2 * k + 1) parameterGrad(state, params[p]);
    for (; next >= 0 && next * saved.length >= k * params.length; next--) {
      if (places[next] < 0) parameterGrad(state, params[next]);
    }
    allocator.free(saved[k].handle);
  }
  for (; next >= 0; next--) if (places[next] < 0) parameterGrad(state, params[next]);
  const gradInput = allocator.malloc(shape.hidden);
  allocator.free(grad);
  if (shape.checkpointed) allocator.free(kept[0].handle);
  return gradInput;
}

/**
 * Where each parameter's gradient comes in layerBackward: 2k + 1 just after the gradient of kept tensor k (its op's
 * output), 2k just before it (its op's input), -1 spread.
 */
function gradientPlaces(ops: readonly (LinearOp | undefined)[], saved: readonly Alive[]): number[] {
  const at = (index: number): number => (index < 0 ? -1 : saved.findIndex((s) => s.index === index));
  return ops.map((op) => {
    if (!op || op.input < 0) return -1;
    const out = at(op.output);
    if (out >= 0) return 2 * out + 1;
    const input = at(op.input);
    return input >= 0 ? 2 * input : -1;
  });
}

function parameterGrad(state: StepState, p: ReplayParameter): void {
  if (p.grad <= 0) return;
  const grad = state.allocator.malloc(p.grad);
  if (state.accumulating) state.allocator.free(grad);
  else state.grads.push(grad);
}
