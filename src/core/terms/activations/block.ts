// One decoder block of a family, replayed op by op on the tape: the block's context (geometry, dtypes, the adapters'
// linear and the norms, bound to this block), the dispatch to the family's block (families.ts, decoder.ts), and what
// the block's backward holds at its largest op. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { type Architecture, isEncoderDecoder, type LinearModule, linearModules } from '../../architecture';
import { type ForwardSequence, Tape, type Tensor, type Weight } from '../saved-tensors';
import { decoderBlock } from './decoder';
import { falconBlock } from './falcon';
import {
  bertBlock,
  debertaBlock,
  distilbertBlock,
  bloomBlock,
  chatglm6bBlock,
  falconH1Block,
  gpt2Block,
  gptjBlock,
  cohereBlock,
  gptNeoxBlock,
  nemotronHBlock,
} from './families';
import { linear as linearOf } from './linear';
import { checkpointedForwardHighBytes, recomputeHighBytes } from './recompute';
import type { MoeInfo } from './moe';
import { familyLayerNorm, rmsNormOf } from './norms';
import type { ActivationPlan, LayerActivations, LinearFn } from './plan';
import { bartBlocks } from './bart';
import { t5Blocks } from './t5';
import { unslothBlock, unslothFastPath } from './unsloth';

const moduleByName = (mods: LinearModule[]): Map<string, LinearModule> => new Map(mods.map((m) => [m.name, m]));

/** What the ops of a block report back to its result. */
export interface BlockState {
  /** What the second half of a pre-norm block (norm + MLP) saves: freed by its backward before the attention's runs. */
  mlpSavedBytes: number;
  readonly moeInfo: MoeInfo;
  /** Under a tiled MLP: what the untiled MLP would have kept (bytes, and its 16-bit weight copies under autocast). */
  tiledMlp: { savedBytes: number; weightCopyBytes: number } | undefined;
  /** A Gated DeltaNet layer's backward working set (its kernel's recomputed tensors and gradients). */
  linearWorking: number | undefined;
  /** Eager attention computes the softmax in fp32 (HF llama-family `softmax(..., dtype=torch.float32)`, autocast). */
  softmaxUpcast: boolean;
  /**
   * Bytes per score element that attention's backward holds when a kernel other than eager kept the full scores (SDPA's
   * math kernel: the fp32 gradients of the probabilities and of the scores); undefined: by the plan's attention.
   */
  scoreGradBytes?: number;
  /** The residual stream after the attention half, which the block's last residual sum reads. */
  residual: Tensor | undefined;
  /**
   * What the last linear applied would hold of gradients before its backward reads a saved tensor, beside its output's
   * gradient (a LoRA target's, recompute.ts loraEntryGradientBytes; 0 for a plain linear).
   */
  lastLinearEntryGradBytes: number;
  /** What the last linear applied saved for backward (with its adapter), and whether it carries one. */
  lastLinearSaved: { readonly bytes: number; readonly adapted: boolean };
  /** What the attention's output projection saved: released before the attention core's backward runs. */
  attentionOutputSavedBytes: number;
  /**
   * What a dense MLP's output projection saved, with its adapter's tensors: its backward releases them before the MLP's
   * working set peaks (the multiply of the activation by the up projection holds three intermediates' gradients).
   */
  mlpOutputSavedBytes: number;
  /** The same for the block: what its backward holds besides its output's gradient when its recompute begins. */
  entryGradBytes: number;
  /**
   * A norm after the MLP (Gemma 2 / 3, GLM-4, OLMo 2): the first op of the layer's backward, run while everything the
   * layer saved is still held; the most its backward holds at once (norms.ts rmsNormBackwardBytes).
   */
  outputNormBackwardBytes: number;
}

/** One block's replay: the plan, the tape, the geometry every op reads on this TP rank, and the ops bound to the block. */
export interface BlockContext {
  readonly p: ActivationPlan;
  readonly a: Architecture;
  readonly tape: Tape;
  /** This layer's linear modules by name. */
  readonly mods: Map<string, LinearModule>;
  readonly moeBlock: boolean;
  readonly rope: boolean;
  readonly linearLayer: boolean;
  readonly blockKind: 'M' | '*' | '-' | 'E' | undefined;
  /** Tokens, tensor-parallel degree, and tokens of the sequence-parallel regions. */
  readonly T: number;
  readonly tp: number;
  readonly Tsp: number;
  /** 4/8-bit model's unquantized parameters upcast to fp32. */
  readonly upcast: boolean;
  readonly residualBytes: number;
  readonly x0: Tensor;
  readonly normWeight: Weight;
  readonly rms: ReturnType<typeof rmsNormOf>;
  /** Gemma 2 and 3 normalize the attention and MLP outputs too (post_attention, pre/post_feedforward norms). */
  readonly sandwich: boolean;
  /** Attention geometry on this TP rank. */
  readonly heads: number;
  readonly kvHeads: number;
  readonly qd: number;
  readonly kvd: number;
  readonly b: number;
  readonly s: number;
  /** A linear layer with its LoRA adapter or (IA)^3 vector when targeted (linear.ts), and the family's norm. */
  readonly linear: LinearFn;
  readonly norm: (x: Tensor, what: string) => Tensor;
  readonly state: BlockState;
}

/**
 * The block of each family that is not Llama-shaped (those run decoderBlock). An encoder-decoder's blocks are
 * replayed by t5Blocks or bartBlocks (keptByBlock): its block input only here.
 */
const FAMILY_BLOCKS: Partial<Record<Architecture['family'], (bc: BlockContext) => Tensor>> = {
  gpt2: gpt2Block,
  gpt_neox: gptNeoxBlock,
  phi: gptNeoxBlock,
  gptj: gptjBlock,
  bloom: bloomBlock,
  bert: bertBlock,
  roberta: bertBlock,
  distilbert: distilbertBlock,
  deberta_v2: debertaBlock,
  t5: (bc) => bc.x0,
  bart: (bc) => bc.x0,
  mbart: (bc) => bc.x0,
  nemotron_h: nemotronHBlock,
  falcon_h1: falconH1Block,
  falcon: falconBlock,
  chatglm1: chatglm6bBlock,
  cohere: cohereBlock,
  cohere2: cohereBlock,
};

/**
 * One block's saved tensors; `moeBlock` false replays a dense layer of a model that mixes dense and MoE layers, `rope`
 * false a Llama 4 NoPE layer, `linearLayer` a Gated DeltaNet layer (Qwen3-Next, Qwen3.5); `adaptedExperts` names the
 * expert parameters LoRA adapts in this layer (PEFT target_parameters); `blockKind` the one mixer of a Nemotron-H layer.
 */
export function blockActivations(
  p: ActivationPlan,
  moeBlock: boolean,
  rope = true,
  linearLayer = false,
  adaptedExperts: readonly string[] = [],
  blockKind?: 'M' | '*' | '-' | 'E',
): LayerActivations {
  if (unslothFastPath(p)) return unslothBlock(p);
  const bc = blockContext(p, moeBlock, rope, linearLayer, blockKind);
  const out = (FAMILY_BLOCKS[bc.a.family] ?? decoderBlock)(bc);
  // The residual sum that makes the block's output (saves nothing): for the allocator replay's sequence.
  const { tape, x0, a, Tsp, residualBytes, state } = bc;
  tape.use(state.residual ?? x0);
  const output = out === x0 ? x0 : tape.free(out, 'block output (residual sum)', Tsp * a.hidden, residualBytes);
  return blockResult(bc, adaptedExperts, output);
}

/** The block's context: its tape, this layer's modules, the geometry on this TP rank, its linear and norm. */
function blockContext(
  p: ActivationPlan,
  moeBlock: boolean,
  rope: boolean,
  linearLayer: boolean,
  blockKind: 'M' | '*' | '-' | 'E' | undefined,
): BlockContext {
  const a = p.arch;
  // Liger's RMSNorm and SiLU/GELU-mul kernels keep what a compiled block keeps of those ops: the norm's input and
  // inverse RMS (liger_kernel/ops/rms_norm.py), the gate and up projections (ops/swiglu.py, ops/geglu.py).
  const tape = new Tape(p.mode, p.half, p.compile === true || p.kernels === 'liger');
  // Kimi Linear's KDA and MLA layers both have a q_proj and an o_proj, of different shapes: this layer's kind only.
  const mods = moduleByName(
    linearModules(a).filter((m) => m.layerKind === undefined || m.layerKind === (linearLayer ? 'linear' : 'full')),
  );
  const T = p.batch * p.seq;
  const tp = p.tp;
  // Sequence parallel splits the tokens of the non-tensor-parallel regions (norms, dropout, residual) over TP ranks.
  const Tsp = p.sequenceParallel ? T / tp : T;
  const upcast = p.kbitUpcast !== undefined && p.kbitUpcast !== 'none';
  // Autocast keeps fp32 residuals only with fp32 weights, or when fp32 norms feed 4/8-bit linears (which return
  // their input's dtype): their fp32 outputs reach the residual sum.
  // Kimi Linear's MoE blocks weight their experts' outputs with fp32 routing weights: from the first one on the residual
  // stream is fp32 (every MoE layer but the first gets an fp32 input; counted for all of them).
  const residualBytes =
    p.weightBytes === 4 ||
    (upcast && p.quantizedBase) ||
    (a.family === 'kimi_linear' && moeBlock && a.moe !== undefined)
      ? 4
      : p.half;
  const normBytes = upcast ? 4 : p.weightBytes;
  const x0 = tape.tensor('block input', Tsp * a.hidden, residualBytes, p.inputRequiresGrad || p.baseTrainable);
  const state: BlockState = {
    mlpSavedBytes: 0,
    moeInfo: { looped: false, forwardEnd: 0, savedAfterRouted: 0 },
    tiledMlp: undefined,
    linearWorking: undefined,
    softmaxUpcast: false,
    residual: undefined,
    lastLinearEntryGradBytes: 0,
    lastLinearSaved: { bytes: 0, adapted: false },
    attentionOutputSavedBytes: 0,
    mlpOutputSavedBytes: 0,
    entryGradBytes: 0,
    outputNormBackwardBytes: 0,
  };
  const normWeight: Weight = { what: 'norm', elems: a.hidden, trainable: p.normsTrainable, bytesPerElem: normBytes };
  const rms = rmsNormOf(a, normBytes, p.litgptModel === true);
  const sandwich = a.family === 'gemma2' || a.family === 'gemma3' || a.family === 'glm4';
  const norm = (x: Tensor, what: string): Tensor =>
    a.norm === 'rms'
      ? tape.rmsNorm(x, x.elems / a.hidden, normWeight.trainable, what, rms.weightBytes, rms.style)
      : familyLayerNorm(a, tape, x, x.elems / a.hidden, normWeight.trainable, what);
  const heads = a.heads / tp;
  const kvHeads = Math.max(1, a.kvHeads / tp);
  const qd = heads * a.headDim;
  const kvd = kvHeads * a.headDim;
  const b = p.batch;
  const s = p.seq;
  const bc: BlockContext = {
    p,
    a,
    tape,
    mods,
    moeBlock,
    rope,
    linearLayer,
    blockKind,
    T,
    tp,
    Tsp,
    upcast,
    residualBytes,
    x0,
    normWeight,
    rms,
    sandwich,
    heads,
    kvHeads,
    qd,
    kvd,
    b,
    s,
    linear: (x, name, outFeatures, what) => linearOf(bc, x, name, outFeatures, what),
    norm,
    state,
  };
  return bc;
}

/**
 * The gradients of the block's MLP weights (every expert's, the router's and a shared expert's in an MoE block) when
 * the base is trained: the MLP comes last in the block, so its backward has made them (AccumulateGrad takes each
 * weight's gradient as its .grad) by the time the attention's or the mixer's backward runs. Gradients in the weights'
 * dtype. CPU truth hybrid/jamba-full-bf16: the MoE layer's 4,227,072 B of expert gradients are live at the Mamba scan's
 * backward high point.
 */
function mlpGradientBytes(bc: BlockContext, moeBlock: boolean): number {
  const { p, a, tp } = bc;
  // A Nemotron-H layer is one mixer or one MLP: none of its own runs before the other.
  if (!p.baseTrainable || p.quantizedBase || bc.blockKind !== undefined) return 0;
  const width = a.gatedMlp ? 3 : 2;
  const elems =
    moeBlock && a.moe
      ? (width * a.hidden * (a.moe.experts * a.moe.expertFfn + a.moe.sharedExpertFfn) + a.moe.experts * a.hidden) / tp
      : (width * a.hidden * a.ffn) / tp;
  return elems * p.weightBytes;
}

/** LoRA on this layer's expert parameters (PEFT target_parameters): W + BA and each matmul's routed input are kept. */
function expertLoraWorking(bc: BlockContext, adaptedExperts: readonly string[]): number {
  const { p, a, tape, moeBlock } = bc;
  let working = 0;
  if (!moeBlock || !a.moe || !p.expertLora) return 0;
  for (const t of p.expertLora.targets) {
    if (!adaptedExperts.includes(t.name)) continue;
    tape.saveExtra(
      `${t.name}: W + BA (LoRA on the parameter) and its ${t.router ? 'input' : 'routed input'}`,
      t.savedBytes,
    );
    working = Math.max(working, t.workingBytes);
  }
  return working;
}

/** What the block keeps, from the tape (T5's blocks from their own replay), and its forward's sequence of tensors. */
function keptByBlock(bc: BlockContext, output: Tensor) {
  const { p, a, tape } = bc;
  if (isEncoderDecoder(a)) {
    const blocks = a.family === 't5' ? t5Blocks(bc) : bartBlocks(bc);
    // The encoder-decoders' tapes do not model bitsandbytes' kept inputs.
    return { ...blocks, forwardSequence: undefined, contextHeldBytes: 0 };
  }
  return {
    backwardWorkingBytes: undefined,
    encoderStackBytes: undefined,
    entries: tape.entries(),
    bytesPerLayer: tape.totalBytes(),
    // The boolean mask SDPA gets is built once per forward and passed to every layer: checkpointed layers hold it
    // until their backward (b x s x s x 1 B).
    checkpointHeldBytes: p.attention === 'sdpa' && p.sdpaMask ? p.batch * p.seq * p.seq : 0,
    forwardSequence: tape.forwardSequence(bc.x0, output) as ForwardSequence | undefined,
    contextHeldBytes: tape.contextHeldBytes(bc.x0),
  };
}

/**
 * Looped experts (p.expertsLooped: transformers 4.x gathers each expert's tokens, runs its MLP, index_add_-s the
 * weighted output) run one after another, and so does their backward, in reverse, each releasing what it saved: the
 * high point of an MoE layer's backward is the largest of (a) one expert's share of the routed tokens (T·k/E, routing
 * balanced) with its intermediates' and its output's gradients, (b) the gather's zero-filled gradient of every token
 * beside that expert's input gradient, (c) a shared expert over every token, and (d) the end of the layer's forward
 * when checkpointing recomputes it, with all it saves: the MoE input and its output accumulator, the int64 one-hot
 * expert mask (E x k x T) and the last expert's unsaved matmul outputs. Profiled on the CPU (tools/peak/measure_step.py
 * --moe-checkpointing, 4-16 experts): every routed token's intermediates at once put the estimate 8-24 % high where the
 * layers make the high point; within 2.1 % with these terms.
 */
function loopedExpertsWorking(bc: BlockContext): number {
  const { a, T, tape, state } = bc;
  const m = a.moe!;
  const cb = tape.computeBytes;
  const width = a.gatedMlp ? 3 : 2;
  const share = (T * m.topK) / m.experts;
  const oneExpert = width * cb * share * m.expertFfn + cb * share * a.hidden;
  const gatherGrad = cb * T * a.hidden + cb * share * a.hidden;
  const shared = width * cb * T * m.sharedExpertFfn;
  const forwardEnd =
    2 * cb * T * a.hidden +
    8 * m.experts * m.topK * T +
    cb * share * (m.expertFfn + a.hidden) -
    state.moeInfo.savedAfterRouted;
  return Math.max(oneExpert, gatherGrad, shared, forwardEnd);
}

/**
 * The MLP's backward at its largest. transformers 5's grouped matmul holds every routed token's gate, up and product
 * gradients at once (as a dense MLP of width top-k x expert width); the end of the recomputed forward holds the routed
 * tokens' copies (MoeInfo.forwardEnd), less what a shared expert, which runs after that point, saves (profiled on the
 * CPU: tools/peak/measure_step.py --moe-checkpointing, a replica of transformers' grouped_mm). A tiled MLP's backward
 * holds one shard's recomputed tensors and their gradients, plus the full input gradient. A dense MLP's holds its
 * intermediates' gradients once the output projection has released what it saved (CPU truth
 * layer/llama-full-bf16-ckpt: at MulBackward0 the product's, the activation's and the up projection's gradients,
 * 3 x 2,818,048 B, and not the 2,818,048 B product that down_proj kept).
 */
function mlpWorking(bc: BlockContext, loopedExperts: boolean): number {
  const { p, a, T, tp, tape, state } = bc;
  const { tiledMlp, moeInfo } = state;
  const cb = tape.computeBytes;
  const width = a.gatedMlp ? 3 : 2;
  const ffnLocal = a.moe ? a.moe.expertFfn * a.moe.topK : a.ffn / tp;
  if (tiledMlp)
    return (
      (width * cb * T * ffnLocal + tiledMlp.savedBytes + tiledMlp.weightCopyBytes) / p.tiledMlpShards! +
      cb * T * a.hidden
    );
  if (loopedExperts) return loopedExpertsWorking(bc);
  const groupedEnd = Math.max(0, moeInfo.forwardEnd - moeInfo.savedAfterRouted);
  return Math.max(width * cb * T * ffnLocal - state.mlpOutputSavedBytes, groupedEnd);
}

/**
 * The attention's (or mixer's) backward at its largest, over what the MLP half and the output projection released
 * before it. Eager attention backward: the gradient of the probabilities and of the scores coexist (softmax backward).
 * When the softmax ran in fp32 on 16-bit scores both are fp32 (the probabilities' 16-bit gradient is cast up, then
 * freed), and the 16-bit copy of the probabilities the value matmul kept is already released by its backward: 4 + 4 - 2
 * B per score over what the layer saved. CPU truth (Llama, 8 heads, 1 x 1,024 tokens, bf16, eager): at the peak
 * (_softmax_backward_data) the fp32 gradient copy and the fp32 result, 33.5 MB each, and of the last layer's saved
 * probabilities only the fp32 ones. Flash / SDPA backward holds dQ, dK, dV and dO; a gated attention output (Qwen3.5)
 * adds the gradients of the gate and of the ungated output. A Gated DeltaNet layer has its own (gatedDeltaNet). On a
 * GPU, ATen's softmax backward adds a temporary in the probabilities' dtype (ActivationPlan.softmaxGradTemp):
 * Mistral-7B LoRA, 2 x 2,048 tokens, H100, a fourth 1,073,741,824 B fp32 tensor (2 x 32 x 2,048² x 4 B) at the peak.
 */
function mixerWorking(bc: BlockContext): number {
  const { p, a, tape, T, heads, qd, b, s, state } = bc;
  const { linearWorking, mlpSavedBytes, softmaxUpcast } = state;
  const cb = tape.computeBytes;
  const softmaxTemp = p.softmaxGradTemp ? (softmaxUpcast ? 4 : cb) : 0;
  const scoreGradBytes = state.scoreGradBytes ?? (softmaxUpcast && cb < 4 ? 8 - cb : 2 * cb) + softmaxTemp;
  const scoresKept = p.attention === 'eager' || state.scoreGradBytes !== undefined;
  const attnWorking =
    linearWorking ?? (scoresKept ? scoreGradBytes * b * heads * s * s : 4 * cb * T * qd * (a.attnOutputGate ? 1.5 : 1));
  return Math.max(0, attnWorking - mlpSavedBytes - state.attentionOutputSavedBytes);
}

/** What the block keeps and what its backward holds at its largest op, from the replayed tape. */
function blockResult(bc: BlockContext, adaptedExperts: readonly string[], output: Tensor): LayerActivations {
  const { p, a, tape, moeBlock, Tsp, residualBytes, state } = bc;
  const expertLora = expertLoraWorking(bc, adaptedExperts);
  const kept = keptByBlock(bc, output);
  const { entries, bytesPerLayer, checkpointHeldBytes, forwardSequence, contextHeldBytes } = kept;
  const loopedExperts = moeBlock && a.moe !== undefined && state.moeInfo.looped && !p.tiledMlpShards;
  const mlp = mlpWorking(bc, loopedExperts);
  const mixer = mixerWorking(bc);
  const residualGrads = 2 * residualBytes * Tsp * a.hidden;
  // An encoder-decoder's stacks work at their own lengths (encoder-decoder.ts encoderDecoderWorking).
  const backwardWorkingBytes = kept.backwardWorkingBytes ?? Math.max(mlp, expertLora, mixer) + residualGrads;
  const workingWithMlpGradientsBytes =
    kept.backwardWorkingBytes ?? Math.max(mlp, expertLora, mixer + mlpGradientBytes(bc, moeBlock)) + residualGrads;
  const layerInputBytes = Tsp * a.hidden * residualBytes;
  // Under full checkpointing: the first forward's and the recompute's high points, and the gradients beside the
  // recompute (the layer output's and what the block's last op made before its first unpack).
  // The sequence replays the block as transformers 5 runs it: not looped experts (transformers 4.x) or a tiled MLP,
  // whose recompute runs piece by piece, nor a mixer's kernel (Mamba's scan, Gated DeltaNet's chunks), which allocates
  // inside itself what the sequence does not replay.
  const faithful = !loopedExperts && !state.tiledMlp && state.linearWorking === undefined;
  const recompute =
    forwardSequence && faithful
      ? {
          recomputeHighBytes: recomputeHighBytes(forwardSequence, p.reentrantCheckpoint !== true),
          recomputeEntryGradBytes: layerInputBytes + state.entryGradBytes,
          checkpointedForwardHighBytes: checkpointedForwardHighBytes(forwardSequence),
        }
      : {};
  const everyOtherMatmul = tape.matmulOutputs.filter((_, i) => i % 2 === 0).reduce((x, y) => x + y, 0);
  const selectiveBytes = Math.min(bytesPerLayer, layerInputBytes + everyOtherMatmul + tape.attentionOutputBytes);
  const releasedFirst = isEncoderDecoder(a) ? 0 : tape.releasedFirst();
  return {
    bytesPerLayer,
    ...(kept.encoderStackBytes !== undefined ? { encoderStackBytes: kept.encoderStackBytes } : {}),
    ...(releasedFirst > 0 ? { releasedFirstBytes: releasedFirst } : {}),
    entries,
    backwardWorkingBytes,
    workingWithMlpGradientsBytes,
    ...(state.outputNormBackwardBytes > 0
      ? { outputNormWorkingBytes: state.outputNormBackwardBytes + residualGrads }
      : {}),
    layerInputBytes,
    selectiveBytes,
    checkpointHeldBytes,
    weightCopyBytesPerLayer: tape.weightCopyBytes,
    cachedWeightCopyBytesPerLayer: tape.cachedWeightCopyBytes,
    ...(contextHeldBytes > 0 ? { contextHeldBytes } : {}),
    ...(forwardSequence ? { forwardSequence } : {}),
    ...recompute,
  };
}
