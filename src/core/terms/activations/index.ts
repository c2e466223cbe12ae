// Activation memory: what autograd keeps for backward, per architecture family, replayed op by op on a
// symbolic tape (saved-tensors.ts) from the HF modeling_*.py forward of each family. Also the logits and
// cross-entropy buffers, and the working set of one layer in backward. Pure arithmetic; no I/O.
//
// Sources: huggingface/transformers models/{llama,gemma,gemma2,phi3,qwen2,qwen3,mixtral,qwen2_moe,gpt2,gpt_neox,
// bert,t5}/modeling_*.py (op order), peft/tuners/lora/layer.py (LoRA forward), torch/nn/attention and the
// aten::_scaled_dot_product_flash_attention schema (flash saves q, k, v, out and an fp32 logsumexp of b x heads x s),
// Korthikanti et al. 2022 (arXiv:2205.05198) for the per-layer accounting they popularised.
import { Recent } from '../../recent';
import type { Architecture, LinearModule } from '../../architecture';
import { linearModules } from '../../architecture';
import type { Attention } from '../../setup';
import { Tape, type ComputeMode, type SavedEntry, type Tensor, type Weight } from '../saved-tensors';

export interface LoraPlan {
  readonly r: number;
  readonly dropout: number;
  readonly dtypeBytes: number;
  /** DoRA: the magnitude's gradient keeps the base output and the LoRA output of each target. */
  readonly dora?: boolean;
  /** Module names (as in linearModules) that carry an adapter. */
  readonly targets: ReadonlySet<string>;
}

/** PEFT (IA)^3 vectors (peft/tuners/ia3/layer.py Linear.forward). */
export interface Ia3Plan {
  /** Module names (as in linearModules) that carry a vector. */
  readonly targets: ReadonlySet<string>;
  /** Targets whose input is scaled (feed-forward); the others scale their output. */
  readonly feedforward: ReadonlySet<string>;
  readonly dtypeBytes: number;
}

export interface ActivationPlan {
  readonly arch: Architecture;
  readonly mode: ComputeMode;
  /** 2 for bf16/fp16 weights and autocast, 4 for fp32. */
  readonly half: 2 | 4;
  readonly weightBytes: number;
  readonly batch: number;
  readonly seq: number;
  readonly attention: Attention;
  /** Base weights of the blocks are trainable (full fine-tune / unfrozen layer). */
  readonly baseTrainable: boolean;
  /** Norm weights are trainable. */
  readonly normsTrainable: boolean;
  /** The hidden states entering the first block require grad (trainable embeddings, or enable_input_require_grads). */
  readonly inputRequiresGrad: boolean;
  readonly lora?: LoraPlan;
  readonly ia3?: Ia3Plan;
  /** Tensor-parallel degree: attention heads and MLP width are split; with sequence parallel the rest too. */
  readonly tp: number;
  readonly sequenceParallel: boolean;
  /** torch.compile fuses elementwise chains. */
  readonly compile?: boolean;
  /**
   * PyTorch < 1.11: softmax's backward took the input as well as the output (`_softmax_backward_data(grad, output,
   * dim, self)` in derivatives.yaml), so autograd saved both; 1.11 passes only the input dtype (pytorch/pytorch
   * issue 64000, fixed by PR 66018).
   */
  readonly softmaxSavesInput?: boolean;
  /** The block's base linears are bitsandbytes 4/8-bit layers (their output keeps the input's dtype). */
  readonly quantizedBase?: boolean;
  /**
   * They are LLM.int8 layers (bitsandbytes 8-bit): MatMul8bitLt keeps its input A in ctx.tensors = (CAt, subA, A)
   * whenever the input or the weight needs a gradient (bitsandbytes/autograd/_functions.py), so a frozen 8-bit linear
   * under LoRA keeps its input, which a 4-bit one (MatMul4Bit: ctx.tensors = (None, B)) does not.
   */
  readonly int8Base?: boolean;
  /**
   * Fused 3-D experts quantized by Axolotl's quantize_moe_experts (bitsandbytes parametrizations): each forward
   * dequantizes every local expert's whole weight to 16 bits (cached for the experts module's forward), and the grouped
   * matmul keeps that tensor for the input's gradient. The number of experts on this rank.
   */
  readonly dequantizedExperts?: number;
  /**
   * The experts run one after another (transformers 4.x's loop over the experts a batch reaches, nn.Linear or gpt-oss's
   * training path), not in one grouped matmul over every routed token (transformers 5's default experts
   * implementation, grouped_mm).
   */
  readonly expertsLooped?: boolean;
  /**
   * fp32 upcast of the parameters a 4/8-bit model keeps unquantized: 'all' (PEFT prepare_model_for_kbit_training:
   * norms, embeddings, head), 'norms' (the norms only). fp32 norm weights make every norm output fp32; quantized
   * linears return fp32 for fp32 inputs, and from the first MLP on the residual stream is fp32.
   */
  readonly kbitUpcast?: KbitUpcast;
  /** The block runs Unsloth's fused kernels (see unslothFastPath). */
  readonly kernels?: Kernels;
  /**
   * Tiled MLP (DeepSpeed ALST TiledMLP, Axolotl tiled_mlp): the dense MLP runs in this many sequence shards without
   * grad and keeps only its input; backward recomputes and differentiates one shard at a time.
   */
  readonly tiledMlpShards?: number;
  /**
   * Gated DeltaNet layers (Qwen3-Next, Qwen3.5): flash-linear-attention's chunked kernel with causal-conv1d (the
   * recommended install), or transformers' torch fallback when those packages are missing. See gatedDeltaNet.
   */
  readonly linearKernels?: LinearKernels;
  /**
   * Mamba2 layers (Granite 4.0 H): mamba_ssm's fused mamba_split_conv1d_scan_combined with causal-conv1d ('cuda'), or
   * transformers' torch_forward ('torch'). See mamba2Mixer.
   */
  readonly mambaKernels?: MambaKernels;
  /**
   * LoRA on bare expert parameters (PEFT target_parameters): per target, what a layer it adapts keeps for backward
   * (W + BA and the routed input of its matmul) and its backward working set; `indices` limits it to those layers
   * (else every MoE layer).
   */
  readonly expertLora?: { readonly targets: ReadonlyArray<{ readonly name: string; readonly savedBytes: number; readonly workingBytes: number; readonly indices?: ReadonlySet<number> }> };
}

export type LinearKernels = 'fla' | 'torch';
/**
 * 'split': causal_conv1d_fn + mamba_chunk_scan_combined + the torch gated norm and out_proj (Nemotron-H with a cache);
 * 'split-masked': the same on a padded batch, where the conv output's x is masked before the scan.
 */
export type MambaKernels = 'cuda' | 'split' | 'split-masked' | 'torch';

export type KbitUpcast = 'none' | 'norms' | 'all';
export type Kernels = 'pytorch' | 'liger' | 'unsloth';

const UNSLOTH_FAMILIES = new Set(['llama', 'mistral', 'qwen2', 'qwen3']);
const UNSLOTH_LORA = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

/**
 * Unsloth replaces a Llama / Mistral / Qwen2 / Qwen3 block's LoRA linears by its fused autograd functions (LoRA_QKV,
 * LoRA_W, LoRA_MLP in unsloth/kernels/fast_lora.py) only when every projection carries a LoRA adapter without dropout
 * (FastLlamaModel.patch_peft_model); otherwise those layers run PEFT's PyTorch forward.
 */
export function unslothFastPath(p: Pick<ActivationPlan, 'kernels' | 'arch' | 'lora' | 'ia3' | 'tp' | 'baseTrainable' | 'kbitUpcast'>): boolean {
  if (p.kernels !== 'unsloth' || !UNSLOTH_FAMILIES.has(p.arch.family) || !p.lora || p.ia3 || p.tp > 1 || p.baseTrainable) return false;
  if (p.kbitUpcast !== undefined && p.kbitUpcast !== 'none') return false;
  return p.lora.dropout === 0 && UNSLOTH_LORA.every((n) => p.lora!.targets.has(n));
}

export interface LayerActivations {
  /** Bytes saved for backward by one block (the average block for MoE / T5 stacks). */
  readonly bytesPerLayer: number;
  /** What one block saves, for the formula view. */
  readonly entries: readonly SavedEntry[];
  /** Bytes one block's backward needs on top (gradients of its intermediates), at its largest op. */
  readonly backwardWorkingBytes: number;
  /** Input of the block, what full checkpointing keeps per layer. */
  readonly layerInputBytes: number;
  /**
   * What op-level selective checkpointing keeps per block (torchtitan's SAC policy: the outputs of every other
   * matmul and of the attention kernel; everything else is recomputed), including the block input.
   */
  readonly selectiveBytes: number;
  /** Tensors computed once and held by every checkpointed layer (T5's position biases), counted once per model. */
  readonly checkpointHeldBytes: number;
  /** Autocast's 16-bit copies of one block's fp32 weights, kept for backward (per block, not per token). */
  readonly weightCopyBytesPerLayer: number;
  /** Models whose first layers are dense and the rest MoE (DeepSeek): each kind's block; bytesPerLayer averages them. */
  readonly kinds?: { readonly dense: number; readonly moe: number; readonly denseLayers: number };
  /** With layers of different kinds: the largest block's saved tensors (what one recomputed layer holds at most). */
  readonly largestLayerBytes?: number;
}

const moduleByName = (mods: LinearModule[]): Map<string, LinearModule> => new Map(mods.map((m) => [m.name, m]));

const layerCache = new WeakMap<Architecture, Map<string, LayerActivations>>();
const targetKeys = new WeakMap<ReadonlySet<string>, string>();

function targetsKey(t: ReadonlySet<string>): string {
  let k = targetKeys.get(t);
  if (k === undefined) {
    k = [...t].sort().join(',');
    targetKeys.set(t, k);
  }
  return k;
}

/**
 * How a family writes its RMSNorm and what its weights are stored in: Gemma's (1 + weight) in fp32; gpt-oss keeps its
 * norms in fp32 (GptOssPreTrainedModel._keep_in_fp32_modules) and casts after the weight; the rest as Llama, in
 * `weightBytes` (the model dtype, or fp32 after a 4/8-bit model's upcast).
 */
function rmsNormOf(a: Architecture, weightBytes: number): { style: 'llama' | 'gemma' | 'gpt_oss'; weightBytes: number } {
  // Qwen3NextRMSNorm: Gemma's zero-centred x.float() normalized * (1 + weight.float()).
  if (a.family === 'gemma' || a.family === 'gemma2' || a.family === 'gemma3' || a.family === 'qwen3_next') return { style: 'gemma', weightBytes };
  if (a.family === 'gpt_oss') return { style: 'gpt_oss', weightBytes: 4 };
  // Olmo2RMSNorm: (weight * normalized_fp32).to(input_dtype), as gpt-oss's, with the weight in the model dtype.
  if (a.family === 'olmo2') return { style: 'gpt_oss', weightBytes };
  return { style: 'llama', weightBytes };
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a === b || targetsKey(a) === targetsKey(b);
const sameLora = (a: LoraPlan | undefined, b: LoraPlan | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.r === b.r && a.dropout === b.dropout && a.dtypeBytes === b.dtypeBytes
    && (a.dora === true) === (b.dora === true) && sameSet(a.targets, b.targets));
const sameIa3 = (a: Ia3Plan | undefined, b: Ia3Plan | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.dtypeBytes === b.dtypeBytes && sameSet(a.targets, b.targets) && sameSet(a.feedforward, b.feedforward));
const expertLoraKey = (p: ActivationPlan): string => (p.expertLora ? p.expertLora.targets.map((t) => `${t.name}:${t.savedBytes}:${t.workingBytes}:${t.indices ? [...t.indices].join('.') : '*'}`).join(';') : '');
/** The fields of the memo key below, compared one by one (no key string to build and hash). */
const samePlan = (a: ActivationPlan, b: ActivationPlan): boolean =>
  a.arch === b.arch && a.batch === b.batch && a.seq === b.seq && a.mode === b.mode && a.half === b.half && a.weightBytes === b.weightBytes
  && a.attention === b.attention && a.baseTrainable === b.baseTrainable && a.normsTrainable === b.normsTrainable
  && a.inputRequiresGrad === b.inputRequiresGrad && a.sequenceParallel === b.sequenceParallel && (a.compile === true) === (b.compile === true)
  && (a.softmaxSavesInput === true) === (b.softmaxSavesInput === true) && (a.quantizedBase === true) === (b.quantizedBase === true) && (a.int8Base === true) === (b.int8Base === true) && (a.dequantizedExperts ?? 0) === (b.dequantizedExperts ?? 0)
  && (a.expertsLooped === true) === (b.expertsLooped === true)
  && (a.kbitUpcast ?? 'none') === (b.kbitUpcast ?? 'none') && (a.kernels ?? 'pytorch') === (b.kernels ?? 'pytorch')
  && (a.tiledMlpShards ?? 0) === (b.tiledMlpShards ?? 0) && (a.linearKernels ?? 'fla') === (b.linearKernels ?? 'fla') && (a.mambaKernels ?? 'cuda') === (b.mambaKernels ?? 'cuda')
  && expertLoraKey(a) === expertLoraKey(b) && a.tp === b.tp
  && sameLora(a.lora, b.lora) && sameIa3(a.ia3, b.ia3);
/**
 * Every plan field: a field added to ActivationPlan does not compile until it is listed here, and the unit tests change
 * each listed field and require both memo layers (samePlan, the key string) to tell the plans apart.
 */
export const PLAN_FIELDS: { readonly [K in keyof Required<ActivationPlan>]: true } = {
  arch: true, mode: true, half: true, weightBytes: true, batch: true, seq: true, attention: true, baseTrainable: true, normsTrainable: true,
  inputRequiresGrad: true, lora: true, ia3: true, tp: true, sequenceParallel: true, compile: true, softmaxSavesInput: true, quantizedBase: true, int8Base: true, dequantizedExperts: true, expertsLooped: true,
  kbitUpcast: true, kernels: true, tiledMlpShards: true, linearKernels: true, mambaKernels: true, expertLora: true,
};
/** The last 32 plans and their results (the advice search asks for the same few plans again and again). */
const recentPlans = new Recent<ActivationPlan, LayerActivations>(32, samePlan);

/** Replays one block of the family and returns what it saves. Memoized per architecture and plan. */
export function layerActivations(p: ActivationPlan): LayerActivations {
  return recentPlans.get(p, layerActivationsByKey);
}

function layerActivationsByKey(p: ActivationPlan): LayerActivations {
  let byPlan = layerCache.get(p.arch);
  if (!byPlan) {
    byPlan = new Map();
    layerCache.set(p.arch, byPlan);
  }
  const key = `${p.mode}${p.half}${p.weightBytes}${p.attention}${+p.baseTrainable}${+p.normsTrainable}${+p.inputRequiresGrad}${+p.sequenceParallel}${+(p.compile === true)}${+(p.softmaxSavesInput === true)}${+(p.quantizedBase === true)}${+(p.int8Base === true)}${p.dequantizedExperts ?? 0}${+(p.expertsLooped === true)}${p.kbitUpcast ?? 'none'}${p.kernels ?? 'pytorch'}${p.tiledMlpShards ?? 0}${p.linearKernels ?? 'fla'}${p.mambaKernels ?? 'cuda'}|${expertLoraKey(p)}|${p.batch}|${p.seq}|${p.tp}|${p.lora ? `${p.lora.r},${p.lora.dropout},${p.lora.dtypeBytes},${+(p.lora.dora === true)},${targetsKey(p.lora.targets)}` : ''}|${p.ia3 ? `${p.ia3.dtypeBytes},${targetsKey(p.ia3.targets)},${targetsKey(p.ia3.feedforward)}` : ''}`;
  let r = byPlan.get(key);
  if (!r) {
    if (byPlan.size > 4096) byPlan.clear();
    r = layerActivationsUncached(p);
    byPlan.set(key, r);
  }
  return r;
}

/** Before PyTorch 1.11 the softmax node also saved its input (see ActivationPlan.softmaxSavesInput). */
function legacySoftmaxInput(tape: Tape, p: ActivationPlan, scores: Tensor, what: string, bytesPerElem: number): void {
  if (p.softmaxSavesInput && scores.rg) tape.save(tape.tensor(`${what} (PyTorch < 1.11)`, scores.elems, bytesPerElem, true));
}

function layerActivationsUncached(p: ActivationPlan): LayerActivations {
  const moe = p.arch.moe;
  const pattern = p.arch.layerPattern;
  const linearPattern = p.arch.linearAttention?.pattern ?? p.arch.mamba?.pattern ?? p.arch.mamba1?.pattern;
  const mixedLinear = linearPattern !== undefined && linearPattern.some((x) => x !== linearPattern[0]);
  // LoRA on expert parameters of some layers only (target_parameters naming layer indices).
  const someLayers = p.expertLora?.targets.some((t) => t.indices !== undefined) === true;
  const blockKinds = p.arch.blockKinds;
  if (!(moe && moe.moeLayers < p.arch.layers) && !(pattern && pattern.rope.some((r) => r !== pattern.rope[0])) && !mixedLinear && !someLayers && !blockKinds) {
    return blockActivations(p, true, true, linearPattern?.[0] === true, p.expertLora ? p.expertLora.targets.map((t) => t.name) : []);
  }
  // Layers of different kinds: dense and MoE (DeepSeek's and GLM-4.5's first layers, Qwen2-MoE's mlp_only_layers,
  // Llama 4 Maverick), rotary and NoPE (Llama 4), linear and full attention (Qwen3-Next, Qwen3.5): the average block,
  // weighted by layer count.
  const kinds = new Map<string, { moeBlock: boolean; rope: boolean; linearLayer: boolean; adapted: string[]; blockKind?: 'M' | '*' | '-' | 'E'; n: number }>();
  for (let i = 0; i < p.arch.layers; i++) {
    const moeBlock = blockKinds ? blockKinds[i] === 'E' : pattern ? pattern.moe[i] : p.arch.moeMask ? p.arch.moeMask[i] : i >= p.arch.layers - (moe?.moeLayers ?? 0);
    const rope = pattern ? pattern.rope[i] : true;
    const linearLayer = linearPattern?.[i] === true;
    const adapted = moeBlock && p.expertLora ? p.expertLora.targets.filter((t) => !t.indices || t.indices.has(i)).map((t) => t.name) : [];
    const blockKind = blockKinds?.[i];
    const k = `${moeBlock}|${rope}|${linearLayer}|${adapted.join(',')}|${blockKind ?? ''}`;
    const c = kinds.get(k);
    if (c) c.n++;
    else kinds.set(k, { moeBlock, rope, linearLayer, adapted, ...(blockKind ? { blockKind } : {}), n: 1 });
  }
  const blocks = [...kinds.values()].map((c) => ({ ...c, l: blockActivations(p, c.moeBlock, c.rope, c.linearLayer, c.adapted, c.blockKind) }));
  const sum = (bs: typeof blocks, f: (l: LayerActivations) => number): number => bs.reduce((t, c) => t + f(c.l) * c.n, 0);
  const count = (bs: typeof blocks): number => bs.reduce((t, c) => t + c.n, 0);
  const avg = (f: (l: LayerActivations) => number): number => sum(blocks, f) / p.arch.layers;
  const sparse = blocks.filter((c) => c.moeBlock);
  const dense = blocks.filter((c) => !c.moeBlock);
  const largest = blocks.reduce((a, b) => (b.l.bytesPerLayer > a.l.bytesPerLayer ? b : a));
  return {
    ...(sparse[0] ?? blocks[0]).l, bytesPerLayer: avg((l) => l.bytesPerLayer), selectiveBytes: avg((l) => l.selectiveBytes), weightCopyBytesPerLayer: avg((l) => l.weightCopyBytesPerLayer),
    backwardWorkingBytes: Math.max(...blocks.map((c) => c.l.backwardWorkingBytes)),
    largestLayerBytes: largest.l.bytesPerLayer,
    kinds: {
      dense: dense.length ? sum(dense, (l) => l.bytesPerLayer) / count(dense) : 0,
      moe: sparse.length ? sum(sparse, (l) => l.bytesPerLayer) / count(sparse) : 0,
      denseLayers: count(dense),
    },
  };
}

/**
 * One block's saved tensors; `moeBlock` false replays a dense layer of a model that mixes dense and MoE layers, `rope`
 * false a Llama 4 NoPE layer, `linearLayer` a Gated DeltaNet layer (Qwen3-Next, Qwen3.5); `adaptedExperts` names the
 * expert parameters LoRA adapts in this layer (PEFT target_parameters); `blockKind` the one mixer of a Nemotron-H layer.
 */
function blockActivations(p: ActivationPlan, moeBlock: boolean, rope = true, linearLayer = false, adaptedExperts: readonly string[] = [], blockKind?: 'M' | '*' | '-' | 'E'): LayerActivations {
  if (unslothFastPath(p)) return unslothBlock(p);
  const a = p.arch;
  // Liger's RMSNorm and SiLU/GELU-mul kernels keep what a compiled block keeps of those ops: the norm's input and
  // inverse RMS (liger_kernel/ops/rms_norm.py), the gate and up projections (ops/swiglu.py, ops/geglu.py).
  const tape = new Tape(p.mode, p.half, p.compile === true || p.kernels === 'liger');
  // Kimi Linear's KDA and MLA layers both have a q_proj and an o_proj, of different shapes: this layer's kind only.
  const mods = moduleByName(linearModules(a).filter((m) => m.layerKind === undefined || m.layerKind === (linearLayer ? 'linear' : 'full')));
  const T = p.batch * p.seq;
  const tp = p.tp;
  // Sequence parallel splits the tokens of the non-tensor-parallel regions (norms, dropout, residual) over TP ranks.
  const Tsp = p.sequenceParallel ? T / tp : T;
  const upcast = p.kbitUpcast !== undefined && p.kbitUpcast !== 'none';
  // Autocast keeps fp32 residuals only with fp32 weights, or when fp32 norms feed 4/8-bit linears (which return
  // their input's dtype): their fp32 outputs reach the residual sum.
  // Kimi Linear's MoE blocks weight their experts' outputs with fp32 routing weights: from the first one on the residual
  // stream is fp32 (every MoE layer but the first gets an fp32 input; counted for all of them).
  const residualBytes = p.weightBytes === 4 || (upcast && p.quantizedBase) || (a.family === 'kimi_linear' && moeBlock && a.moe !== undefined) ? 4 : p.half;
  const normBytes = upcast ? 4 : p.weightBytes;
  const x0 = tape.tensor('block input', Tsp * a.hidden, residualBytes, p.inputRequiresGrad || p.baseTrainable);
  /** What the second half of a pre-norm block (norm + MLP) saves: freed by its backward before the attention's runs. */
  let mlpSavedBytes = 0;
  const moeInfo: MoeInfo = { looped: false, forwardEnd: 0, savedAfterRouted: 0 };
  /** Under a tiled MLP: what the untiled MLP would have kept (bytes, and its 16-bit weight copies under autocast). */
  let tiledMlp: { savedBytes: number; weightCopyBytes: number } | undefined;
  /** A Gated DeltaNet layer's backward working set (its kernel's recomputed tensors and gradients). */
  let linearWorking: number | undefined;

  const weight = (name: string): Weight => {
    const m = mods.get(name);
    const elems = m ? (m.inFeatures * m.outFeatures) / tp : a.hidden * a.hidden;
    // A 4/8-bit base weight is dequantized to the compute dtype inside bitsandbytes' matmul and never saved, so
    // autocast makes no 16-bit copy of it, whatever dtype the model's other parameters are stored in. A bare
    // parameter (transformers 5 fused experts and routers) is never quantized: it keeps the model dtype, or fp32 when
    // prepare_model_for_kbit_training upcast the unquantized parameters.
    if (m?.parameter && p.quantizedBase) {
      return { what: name, elems, trainable: p.baseTrainable, bytesPerElem: p.kbitUpcast !== undefined && p.kbitUpcast !== 'none' ? 4 : p.weightBytes };
    }
    return { what: name, elems, trainable: p.baseTrainable, bytesPerElem: p.quantizedBase ? p.half : p.weightBytes, keepsInputDtype: p.quantizedBase };
  };
  const normWeight: Weight = { what: 'norm', elems: a.hidden, trainable: p.normsTrainable, bytesPerElem: normBytes };

  /** A linear layer with its LoRA adapter or (IA)^3 vector when targeted (PEFT lora.Linear / ia3.Linear forward). */
  const linear = (x: Tensor, name: string, outFeatures: number, what: string): Tensor => {
    const w = weight(name);
    const ia3 = p.ia3;
    if (ia3 && ia3.targets.has(name)) {
      // The input (feed-forward) or the output is cast to the vector's dtype and multiplied by it: the multiply keeps
      // that cast copy for the vector's gradient; the product goes back to the base dtype.
      if (ia3.feedforward.has(name)) {
        const xc = tape.to(x, ia3.dtypeBytes, `${name} IA3 input (adapter dtype)`);
        tape.save(xc);
        return tape.linear(tape.to(tape.free(xc, `${name} input x IA3 vector`), x.bytesPerElem, `${name} scaled input`), w, outFeatures, what);
      }
      const y0 = tape.linear(x, w, outFeatures, what);
      const yc = tape.to(y0, ia3.dtypeBytes, `${what} (adapter dtype)`);
      tape.save(yc);
      return tape.to(tape.free(yc, `${what} x IA3 vector`), y0.bytesPerElem, `${what} (scaled)`);
    }
    const y = tape.linear(x, w, outFeatures, what);
    const m = mods.get(name);
    if (p.int8Base && x.rg && !w.trainable && !m?.parameter) tape.save(x);
    const lora = p.lora;
    if (!lora || !lora.targets.has(name)) return y;
    const tokens = x.elems / ((m ? m.inFeatures : a.hidden) / (name === 'o_proj' || name === 'down_proj' ? tp : 1));
    // PEFT casts x to the adapter dtype, applies dropout, then lora_A and lora_B (both trainable). Its 4/8-bit
    // layers skip the cast under autocast (peft/tuners/lora/bnb.py: requires_conversion = not is_autocast_enabled()).
    let xa = p.quantizedBase && p.mode === 'amp' ? x : tape.to(x, lora.dtypeBytes, `${name} LoRA input (adapter dtype)`);
    xa = tape.dropout(xa, lora.dropout, `${name} LoRA dropout`);
    const A: Weight = { what: `${name}.lora_A`, elems: (m?.inFeatures ?? a.hidden) * lora.r, trainable: true, bytesPerElem: lora.dtypeBytes };
    const ya = tape.linear(xa, A, lora.r, `${name} lora_A output`);
    const B: Weight = { what: `${name}.lora_B`, elems: lora.r * outFeatures, trainable: true, bytesPerElem: lora.dtypeBytes };
    const yb = tape.linear(ya, B, outFeatures, `${name} lora_B output`);
    if (lora.dora) {
      // peft/tuners/lora/dora.py DoraLinearLayer.forward: (mag_norm_scale - 1) * base_result + mag_norm_scale * lora_result
      // * scaling; the magnitude is trained, so both products keep their tensor operand for its gradient.
      tape.save(y);
      tape.save(yb);
    }
    void tokens;
    // result + lora_B(...) * scaling, cast back to the base output dtype.
    return tape.tensor(`${what} (+LoRA)`, y.elems, y.bytesPerElem, true);
  };

  const rms = rmsNormOf(a, normBytes);
  /** Gemma 2 and 3 normalize the attention and MLP outputs too (post_attention, pre/post_feedforward norms). */
  const sandwich = a.family === 'gemma2' || a.family === 'gemma3' || a.family === 'glm4';
  const norm = (x: Tensor, what: string): Tensor =>
    a.norm === 'rms'
      ? tape.rmsNorm(x, x.elems / a.hidden, normWeight.trainable, what, rms.weightBytes, rms.style)
      : tape.layerNorm(x, x.elems / a.hidden, normWeight.trainable, what);

  // Attention geometry on this TP rank.
  const heads = a.heads / tp;
  const kvHeads = Math.max(1, a.kvHeads / tp);
  const qd = heads * a.headDim;
  const kvd = kvHeads * a.headDim;
  const b = p.batch;
  const s = p.seq;

  /** Eager attention computes the softmax in fp32 (HF llama-family `softmax(..., dtype=torch.float32)`, autocast). */
  let softmaxUpcast = false;
  /** softmax(QK^T)V for one block, by implementation. Returns the (b, s, qd) output in compute dtype. */
  const attentionCore = (q: Tensor, k: Tensor, v: Tensor, opts: { causalRepeat: boolean; softmaxFp32: boolean; dropout: number; kvTokens?: number; sinks?: boolean; outWidth?: number }): Tensor => {
    const kvTokens = opts.kvTokens ?? T;
    /** Output width per token: the value heads' (MLA's value heads are narrower than its q/k heads). */
    const od = opts.outWidth ?? qd;
    const gqa = kvHeads < heads;
    // repeat_kv expands a (b, kv, n_rep, s, d) view and reshapes it to (b, heads, s, d): a copy, except with one key
    // and value head (multi-query attention), where the reshape is a view of the unrepeated tensor. Eager attention's
    // torch.matmul then folds batch and heads for bmm, which copies a head dimension of stride 0 unless the batch is 1.
    const repeatKv = (x: Tensor, what: string, viewOk: boolean): Tensor => (viewOk ? tape.view(x, what, kvTokens * qd) : tape.free(x, what, kvTokens * qd, x.bytesPerElem));
    if (p.attention === 'eager') {
      const mqaView = kvHeads === 1 && b === 1;
      const kk = gqa ? repeatKv(k, 'repeat_kv(k)', mqaView) : k;
      const vv = gqa ? repeatKv(v, 'repeat_kv(v)', mqaView) : v;
      const scoresElems = b * heads * s * (kvTokens / b);
      let scores = tape.matmul(q, kk, scoresElems, 'attention scores QK^T');
      if (a.attnLogitSoftcap) {
        // Gemma 2 eager_attention_forward: tanh(scores / cap) * cap; tanh keeps its output.
        scores = tape.free(tape.unarySavesOutput(tape.free(scores, 'scores / soft-cap'), 'tanh(scores / soft-cap)'), 'soft-capped scores');
      }
      let probs: Tensor;
      if (opts.sinks) {
        // gpt-oss eager_attention_forward: one sink logit per head appended (cat promotes to the sinks' dtype: fp32
        // with fp32 weights under autocast), the row max subtracted (max keeps its int64 indices), softmax in the
        // logits' dtype (an explicit dtype, so autocast leaves it), the sink column dropped by a view.
        const rows = b * heads * s;
        const combined = tape.free(scores, 'scores + sink logit (cat)', scoresElems + rows, Math.max(scores.bytesPerElem, p.weightBytes));
        if (combined.rg) tape.saveExtra('row max indices (int64)', rows * 8);
        probs = tape.view(tape.unarySavesOutput(combined, 'softmax output (with sink)'), 'probabilities without the sink (view)', scoresElems);
      } else {
        softmaxUpcast = p.mode === 'amp' || opts.softmaxFp32;
        legacySoftmaxInput(tape, p, scores, 'softmax input', p.mode === 'amp' || opts.softmaxFp32 ? 4 : scores.bytesPerElem);
        if (p.mode === 'amp' || opts.softmaxFp32) {
          const sm = tape.unarySavesOutput(scores, 'softmax output (fp32)', 4);
          probs = tape.to(sm, p.mode === 'amp' ? 4 : tape.computeBytes, 'attention probs');
        } else {
          probs = tape.unarySavesOutput(scores, 'softmax output');
        }
      }
      probs = tape.dropout(probs, opts.dropout, 'attention dropout');
      tape.attentionOutputBytes += probs.storageBytes;
      const out = tape.matmul(probs, vv, T * od, 'attention output');
      return tape.free(out, 'attention output (transposed, contiguous)');
    }
    // SDPA (flash / memory-efficient kernels) and flash_attention_2: no s x s matrix is kept; backward needs
    // q, k, v, the output and the fp32 logsumexp per (batch, head, query).
    const repeat = p.attention === 'sdpa' && gqa && opts.causalRepeat;
    const qq = tape.castForMatmul(q);
    const kk = repeat ? repeatKv(tape.castForMatmul(k), 'repeat_kv(k)', kvHeads === 1) : tape.castForMatmul(k);
    const vv = repeat ? repeatKv(tape.castForMatmul(v), 'repeat_kv(v)', kvHeads === 1) : tape.castForMatmul(v);
    const out = tape.tensor('attention output', T * od, tape.computeBytes, q.rg || k.rg || v.rg);
    if (out.rg) {
      tape.save(qq);
      tape.save(kk);
      tape.save(vv);
      tape.save(out);
      tape.saveExtra('attention logsumexp (fp32)', b * heads * s * 4);
      // flash_attn's FlashAttnFunc also keeps its RNG state (two int64: flash_attn_interface.py save_for_backward).
      if (p.attention === 'flash') tape.saveExtra('flash-attn RNG state (2 x int64)', 16);
      tape.attentionOutputBytes += out.storageBytes + b * heads * s * 4;
    }
    return out;
  };

  /**
   * Multi-head latent attention (transformers modeling_deepseek_v3.py DeepseekV3Attention): q through q_proj, or
   * q_a_proj -> q_a_layernorm -> q_b_proj; kv_a_proj_with_mqa gives the latent and one rotary key; kv_a_layernorm ->
   * kv_b_proj gives every head's key part and value (split views of one output); the rotary parts are rotated
   * (interleaved: a reshape copy), and cat builds new q and k of width nope + rope. Eager attention copies the value
   * view for its matmul; flash_attention_2 pads the value to the q/k width and slices the output back. The output is
   * made contiguous for o_proj.
   */
  const mlaAttention = (h1: Tensor): Tensor => {
    const m = a.mla!;
    const qkd = m.qkNope + m.qkRope;
    let qOut: Tensor;
    if (m.qLoraRank > 0) {
      const qa = linear(h1, 'q_a_proj', m.qLoraRank, 'q_a_proj output');
      const qn = tape.rmsNorm(qa, T, p.normsTrainable, 'q_a_layernorm', rms.weightBytes, rms.style);
      qOut = linear(qn, 'q_b_proj', heads * qkd, 'q_b_proj output');
    } else {
      qOut = linear(h1, 'q_proj', heads * qkd, 'q_proj output');
    }
    const ckv = linear(h1, 'kv_a_proj_with_mqa', m.kvLoraRank + m.qkRope, 'kv_a_proj_with_mqa output');
    const latent = tape.view(ckv, 'compressed kv (view)', T * m.kvLoraRank);
    const kvn = tape.rmsNorm(latent, T, p.normsTrainable, 'kv_a_layernorm', rms.weightBytes, rms.style);
    const kvb = linear(kvn, 'kv_b_proj', heads * (m.qkNope + m.vHeadDim), 'kv_b_proj output');
    // q = cat(q_pass, rotated q_rot), k = cat(k_pass, rotated k_rot expanded over the heads): new tensors.
    const q = tape.free(qOut, 'query (cat of pass and rotary parts)', T * heads * qkd, tape.computeBytes);
    const k = tape.free(kvb, 'key (cat of pass and rotary parts)', T * heads * qkd, tape.computeBytes);
    let v: Tensor;
    if (p.attention === 'flash') v = tape.free(kvb, 'value padded to the q/k width (F.pad)', T * heads * qkd, tape.computeBytes);
    // Eager attention's batched matmul copies the value view, except with one sequence, where the reshape is a view.
    else if (p.attention === 'eager' && b > 1) v = tape.free(kvb, 'value (contiguous copy for the matmul)', T * heads * m.vHeadDim);
    else v = tape.view(kvb, 'value (view of kv_b_proj output)', T * heads * m.vHeadDim);
    const outWidth = heads * (p.attention === 'flash' ? qkd : m.vHeadDim);
    const att = attentionCore(q, k, v, { causalRepeat: false, softmaxFp32: true, dropout: a.attentionDropout, outWidth });
    const o = tape.free(att, 'attention output (contiguous, value width)', T * heads * m.vHeadDim);
    return linear(o, 'o_proj', a.hidden, 'o_proj output');
  };

  /**
   * A pre-LayerNorm block with one fused q/k/v projection and a two-layer MLP (GPT-2, BLOOM): q, k and v are views of
   * the fused output, or copies (BLOOM's reshapes of transposed views); the attention output projected, dropped out
   * and added to the residual; the second LayerNorm, the MLP's up projection, its activation and down projection.
   */
  const fusedQkvBlock = (n: { ln1: string; qkv: string; out: string; ln2: string; up: string; down: string }, copies: boolean, softmaxFp32: boolean, act: (x: Tensor) => Tensor): Tensor => {
    const h1 = tape.layerNorm(x0, Tsp, p.normsTrainable, n.ln1);
    const qkv = linear(h1, n.qkv, 3 * qd, `${n.qkv} output`);
    const part = (what: string): Tensor => (copies ? tape.free(qkv, `${what} (reshape copy)`, T * qd) : tape.view(qkv, what, T * qd));
    const att = attentionCore(part('q'), part('k'), part('v'), { causalRepeat: false, softmaxFp32, dropout: a.attentionDropout });
    const o = tape.dropout(linear(att, n.out, a.hidden, `${n.out} output`), a.hiddenDropout, 'attention output dropout');
    const x1 = tape.free(o, 'residual', Tsp * a.hidden, residualBytes);
    const h2 = tape.layerNorm(x1, Tsp, p.normsTrainable, n.ln2);
    const g = act(linear(h2, n.up, a.ffn / tp, `${n.up} output`));
    return tape.dropout(linear(g, n.down, a.hidden, `${n.down} output`), a.hiddenDropout, 'mlp dropout');
  };

  let layerOutputs: Tensor;
  switch (a.family) {
    case 'gpt2':
      // q, k, v are views (split) of the one c_attn output: saving any of them keeps all of it.
      layerOutputs = fusedQkvBlock({ ln1: 'ln_1', qkv: 'c_attn', out: 'c_proj', ln2: 'ln_2', up: 'c_fc', down: 'mlp.c_proj' }, false, false, (x) => geluNew(tape, x));
      break;
    case 'gpt_neox':
    case 'phi': {
      // Parallel residual: attention and MLP both read the block input (gpt_neox: through two LayerNorms).
      const h1 = tape.layerNorm(x0, Tsp, p.normsTrainable, 'input_layernorm');
      const qkvName = a.family === 'phi' ? 'q_proj' : 'query_key_value';
      const qkv = linear(h1, qkvName, a.family === 'phi' ? qd : 3 * qd, 'qkv output');
      const q = tape.free(qkv, 'q (rotary)', T * qd);
      const k = tape.free(qkv, 'k (rotary)', T * kvd);
      // v is a view of the fused qkv output; eager attention's batched matmul copies it unless the batch is 1.
      const v = a.family === 'phi' ? linear(h1, 'v_proj', kvd, 'v_proj output')
        : p.attention === 'eager' && b > 1 ? tape.free(qkv, 'v (contiguous)', T * kvd) : tape.view(qkv, 'v', T * kvd);
      // GPT-NeoX takes the softmax in the activation dtype.
      const att = attentionCore(q, k, v, { causalRepeat: true, softmaxFp32: a.family === 'phi', dropout: a.attentionDropout });
      linear(att, a.family === 'phi' ? 'dense' : 'dense', a.hidden, 'dense output');
      const h2 = a.family === 'phi' ? h1 : tape.layerNorm(x0, Tsp, p.normsTrainable, 'post_attention_layernorm');
      const up = linear(h2, a.family === 'phi' ? 'fc1' : 'dense_h_to_4h', a.ffn / tp, 'mlp up output');
      const g = tape.unarySavesInput(up, 'gelu output');
      layerOutputs = linear(g, a.family === 'phi' ? 'fc2' : 'dense_4h_to_h', a.hidden, 'mlp down output');
      break;
    }
    case 'bloom':
      // BloomBlock (modeling_bloom.py): query_key_value's output viewed per head and reshaped to (b * heads, s,
      // head_dim), copies of the transposed views, for alibi.baddbmm and bmm; the causal mask added; softmax in fp32
      // cast back to the query's dtype; GeLUFunction keeps its input.
      layerOutputs = fusedQkvBlock({ ln1: 'input_layernorm', qkv: 'query_key_value', out: 'dense', ln2: 'post_attention_layernorm', up: 'dense_h_to_4h', down: 'dense_4h_to_h' },
        true, true, (x) => tape.unarySavesInput(x, 'GeLUFunction output'));
      break;
    case 'bert':
    case 'roberta': {
      const q = linear(x0, 'query', qd, 'query output');
      const k = linear(x0, 'key', qd, 'key output');
      const v = linear(x0, 'value', qd, 'value output');
      const att = attentionCore(q, k, v, { causalRepeat: false, softmaxFp32: false, dropout: a.attentionDropout });
      const o = linear(att, 'attention.output.dense', a.hidden, 'attention output dense');
      const od = tape.dropout(o, a.hiddenDropout, 'attention output dropout');
      const x1 = tape.layerNorm(tape.free(od, 'residual'), Tsp, p.normsTrainable, 'attention LayerNorm');
      const i1 = linear(x1, 'intermediate.dense', a.ffn / tp, 'intermediate output');
      const g = tape.unarySavesInput(i1, 'gelu output');
      const o2 = linear(g, 'output.dense', a.hidden, 'output dense');
      const o2d = tape.dropout(o2, a.hiddenDropout, 'output dropout');
      layerOutputs = tape.layerNorm(tape.free(o2d, 'residual'), Tsp, p.normsTrainable, 'output LayerNorm');
      break;
    }
    case 't5': {
      // One encoder block and one decoder block (self + cross attention) are replayed by t5Stack below.
      layerOutputs = x0;
      break;
    }
    case 'nemotron_h': {
      // NemotronHBlock: norm, then its one mixer, then the residual sum. The MLP is up_proj, ReLU² (relu keeps its output,
      // square the same tensor), down_proj; attention has no position embedding.
      const h1 = norm(x0, 'norm');
      if (blockKind === 'M') {
        const mixer = mamba2Mixer(tape, p, h1, linear);
        linearWorking = mixer.workingBytes;
        layerOutputs = mixer.out;
      } else if (blockKind === '*') {
        const att = attentionCore(linear(h1, 'q_proj', qd, 'q_proj output'), linear(h1, 'k_proj', kvd, 'k_proj output'), linear(h1, 'v_proj', kvd, 'v_proj output'),
          { causalRepeat: true, softmaxFp32: true, dropout: a.attentionDropout });
        layerOutputs = linear(att, 'o_proj', a.hidden, 'o_proj output');
      } else if (blockKind === 'E') {
        const beforeMlp = tape.totalBytes();
        layerOutputs = nemotronMoe(tape, p, h1, linear).out;
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
      } else {
        const beforeMlp = tape.totalBytes();
        const r = tape.unarySavesOutput(linear(h1, 'up_proj', a.ffn / tp, 'up_proj output'), 'relu(up_proj output)');
        layerOutputs = linear(tape.free(r, 'relu(...)^2'), 'down_proj', a.hidden, 'down_proj output');
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
      }
      break;
    }
    case 'falcon_h1': {
      // FalconH1DecoderLayer: the input norm's output goes to the Mamba2 mixer (x ssm_in_multiplier) and to attention
      // (x attention_in_multiplier) side by side; their outputs, scaled by python floats, are summed into the residual;
      // then pre_ff_layernorm and the SwiGLU MLP (gate_proj's output x gate_multiplier feeds silu, byte for byte what
      // Llama's keeps). A product with a python float keeps nothing, but makes a new tensor: in_proj and q/k/v keep their
      // own scaled copies of the norm output, and nothing keeps the norm output itself.
      const h1 = norm(x0, 'input_layernorm');
      const mixer = mamba2Mixer(tape, p, tape.free(h1, 'input norm output x ssm_in_multiplier'), linear);
      linearWorking = mixer.workingBytes;
      const xa = tape.free(h1, 'input norm output x attention_in_multiplier');
      const q = linear(xa, 'q_proj', qd, 'q_proj output');
      const k = tape.free(linear(xa, 'k_proj', kvd, 'k_proj output'), 'k x key_multiplier');
      const v = linear(xa, 'v_proj', kvd, 'v_proj output');
      const qr = tape.free(q, 'q after rotary', T * qd, upcast && p.quantizedBase ? q.bytesPerElem : tape.computeBytes);
      const kr = tape.free(k, 'k after rotary', T * kvd, upcast && p.quantizedBase ? k.bytesPerElem : tape.computeBytes);
      const att = attentionCore(qr, kr, v, { causalRepeat: true, softmaxFp32: true, dropout: a.attentionDropout });
      const o = linear(att, 'o_proj', a.hidden, 'o_proj output');
      const x1 = tape.free(o, 'residual', Tsp * a.hidden, residualBytes);
      const beforeMlp = tape.totalBytes();
      const h2 = norm(x1, 'pre_ff_layernorm');
      if (p.tiledMlpShards) {
        const mark = tape.mark();
        layerOutputs = gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
        tiledMlp = tape.rollback(mark);
        tape.save(h2);
      } else {
        layerOutputs = gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
      }
      mlpSavedBytes = tape.totalBytes() - beforeMlp;
      break;
    }
    default: {
      // Llama family: pre-norm, rotary (saves only cos/sin, which need no grad), GQA, gated MLP. OLMo 2 normalizes the
      // attention and MLP outputs instead of their inputs.
      const postOnly = a.family === 'olmo2';
      const h1 = postOnly ? x0 : norm(x0, 'input_layernorm');
      if (a.mla && !linearLayer) {
        const x1 = tape.free(mlaAttention(h1), 'residual', Tsp * a.hidden, residualBytes);
        const beforeMlp = tape.totalBytes();
        const h2 = norm(x1, 'post_attention_layernorm');
        layerOutputs = moeBlock && a.moe ? (a.family === 'kimi_linear' ? kimiMoe(tape, p, h2, linear) : deepseekMoe(tape, p, h2, linear, moeInfo)) : gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
        break;
      }
      if (linearLayer) {
        const mixer = a.mamba ? mamba2Mixer(tape, p, h1, linear) : a.mamba1 ? mamba1Mixer(tape, p, h1, linear)
          : a.linearAttention?.kda ? kimiDeltaAttention(tape, p, h1, linear) : gatedDeltaNet(tape, p, h1, linear);
        linearWorking = mixer.workingBytes;
        const x1 = tape.free(mixer.out, 'residual', Tsp * a.hidden, residualBytes);
        const beforeMlp = tape.totalBytes();
        const h2 = norm(x1, 'post_attention_layernorm');
        layerOutputs = a.family === 'granite_hybrid' ? graniteMlp(tape, p, h2, linear, moeBlock)
          : moeBlock && a.moe ? (a.family === 'kimi_linear' ? kimiMoe(tape, p, h2, linear) : moeMlp(tape, p, h2, linear, moeInfo)) : gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
        break;
      }
      let q: Tensor;
      let k: Tensor;
      let v: Tensor;
      /** The output gate's half of q_proj's output (Qwen3-Next, Qwen3.5). */
      let outputGate: Tensor | undefined;
      if (a.family === 'phi3') {
        const qkv = linear(h1, 'qkv_proj', qd + 2 * kvd, 'qkv_proj output');
        q = tape.view(qkv, 'q', T * qd);
        k = tape.view(qkv, 'k', T * kvd);
        v = tape.view(qkv, 'v', T * kvd);
      } else if (a.family === 'qwen') {
        const qkv = linear(h1, 'c_attn', 3 * qd, 'c_attn output');
        q = tape.view(qkv, 'q', T * qd);
        k = tape.view(qkv, 'k', T * kvd);
        v = tape.view(qkv, 'v', T * kvd);
      } else if (a.attnOutputGate) {
        // Qwen3NextAttention: q_proj's output viewed as (heads, 2 x head_dim) and chunked into the queries and the gate.
        const qg = linear(h1, 'q_proj', 2 * qd, 'q_proj output (queries and output gate)');
        q = tape.view(qg, 'q (chunk of q_proj output)', T * qd);
        outputGate = qg;
        k = linear(h1, 'k_proj', kvd, 'k_proj output');
        v = linear(h1, 'v_proj', kvd, 'v_proj output');
      } else {
        q = linear(h1, 'q_proj', qd, 'q_proj output');
        k = linear(h1, 'k_proj', kvd, 'k_proj output');
        v = linear(h1, 'v_proj', kvd, 'v_proj output');
      }
      if (a.qkNorm) {
        // Per head (Qwen3, Gemma 3, GLM-4.5), or over the whole projection (OLMo 2: one row per token).
        q = tape.rmsNorm(q, postOnly ? T : T * heads, p.normsTrainable, 'q_norm', rms.weightBytes, rms.style);
        k = tape.rmsNorm(k, postOnly ? T : T * kvHeads, p.normsTrainable, 'k_norm', rms.weightBytes, rms.style);
      }
      // apply_rotary_pos_emb: q*cos + rotate_half(q)*sin creates new q/k tensors (fp32 when 4/8-bit linears return fp32).
      // GLM-4 interleaves the rotary pairs: each layer builds repeat_interleave copies of the rotated half of cos and sin
      // (one row of positions, in the hidden states' dtype), which the multiplies keep.
      if (a.family === 'glm4' && q.rg) tape.saveExtra('interleaved cos / sin (per layer)', 2 * s * Math.round(a.headDim * a.partialRotary) * p.weightBytes);
      let qr = tape.free(q, 'q after rotary', T * qd, upcast && p.quantizedBase ? q.bytesPerElem : tape.computeBytes);
      let kr = tape.free(k, 'k after rotary', T * kvd, upcast && p.quantizedBase ? k.bytesPerElem : tape.computeBytes);
      if (a.positions === 'none') {
        // No position embedding (Granite 4.0 H): q and k go to attention as projected.
        kr = k;
        qr = q;
      } else if (a.layerPattern && !rope) {
        // Llama 4 NoPE layer: k is the projection itself; attention temperature tuning scales q by an fp32 factor per
        // position (kept for q's gradient) and casts the product back.
        kr = k;
        qr = q;
        if (a.layerPattern.temperatureTuning) {
          if (q.rg) tape.saveExtra('attention temperature scales (fp32)', p.seq * 4);
          qr = tape.free(q, 'q x temperature scale', T * qd, q.bytesPerElem);
        }
      } else if (a.qkL2Norm) {
        // Llama 4: rotary (complex multiply, cast back) then the weightless L2 norm in fp32 (x.float() and rsqrt kept).
        qr = tape.rmsNorm(qr, T * heads, false, 'q L2 norm', qr.bytesPerElem, 'llama');
        kr = tape.rmsNorm(kr, T * kvHeads, false, 'k L2 norm', kr.bytesPerElem, 'llama');
      }
      // Llama 4's eager attention takes the softmax in the scores' dtype (no fp32 upcast).
      let att = attentionCore(qr, kr, v, { causalRepeat: true, softmaxFp32: a.family !== 'gpt_oss' && a.family !== 'llama4', dropout: a.attentionDropout, sinks: a.family === 'gpt_oss' });
      if (outputGate) {
        // attn_output * torch.sigmoid(gate): the gate chunk is reshaped (a copy of the strided view), sigmoid keeps its
        // output, and the product keeps both factors.
        const gate = tape.free(outputGate, 'output gate (reshape copy)', T * qd);
        att = tape.mul(att, tape.unarySavesOutput(gate, 'sigmoid(gate)'), 'gated attention output');
      }
      const o = linear(att, a.family === 'qwen' ? 'c_proj' : 'o_proj', a.hidden, 'o_proj output');
      // OLMo 2 and GLM-4 normalize the attention output before the residual sum (its 16-bit output is upcast by the
      // norm); Gemma's byte counts come out the same either way.
      const normBeforeSum = postOnly || a.family === 'glm4';
      let x1 = tape.free(normBeforeSum ? norm(o, 'post_attention_layernorm') : o, 'residual', Tsp * a.hidden, residualBytes);
      if (sandwich && !normBeforeSum) x1 = norm(x1, 'post_attention_layernorm');
      const beforeMlp = tape.totalBytes();
      const h2 = postOnly ? x1 : norm(x1, sandwich ? 'pre_feedforward_layernorm' : 'post_attention_layernorm');
      const denseMlp = (): Tensor => gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, a.family === 'phi3' || a.family === 'glm4' ? 'phi3' : a.family === 'qwen' ? 'qwen' : a.family === 'granite_hybrid' ? 'granite' : 'llama');
      if (a.family === 'granite_hybrid') {
        layerOutputs = graniteMlp(tape, p, h2, linear, moeBlock);
      } else if (p.tiledMlpShards && !(moeBlock && a.moe) && a.family !== 'gpt_oss') {
        // TiledMLP.forward: ctx.save_for_backward(x), then each shard under no_grad; what the MLP would keep exists
        // only for one shard at a time, while backward recomputes it.
        const mark = tape.mark();
        layerOutputs = denseMlp();
        tiledMlp = tape.rollback(mark);
        tape.save(h2);
      } else {
        layerOutputs = a.family === 'gpt_oss' ? gptOssMoe(tape, p, h2, moeInfo)
          : moeBlock && a.moe ? (a.family === 'glm4_moe' ? deepseekMoe(tape, p, h2, linear, moeInfo) : a.family === 'llama4' ? llama4Moe(tape, p, h2, linear) : moeMlp(tape, p, h2, linear, moeInfo)) : denseMlp();
      }
      if (sandwich || postOnly) layerOutputs = norm(layerOutputs, 'post_feedforward_layernorm');
      mlpSavedBytes = tape.totalBytes() - beforeMlp;
      break;
    }
  }
  void layerOutputs;
  // LoRA on this layer's expert parameters (PEFT target_parameters): W + BA and each matmul's routed input are kept.
  let expertLoraWorking = 0;
  if (moeBlock && a.moe && p.expertLora) {
    for (const t of p.expertLora.targets) {
      if (!adaptedExperts.includes(t.name)) continue;
      tape.saveExtra(`${t.name}: W + BA (LoRA on the parameter) and its routed input`, t.savedBytes);
      expertLoraWorking = Math.max(expertLoraWorking, t.workingBytes);
    }
  }

  let entries = tape.entries();
  let bytesPerLayer = tape.totalBytes();
  let checkpointHeldBytes = 0;
  if (a.family === 't5') {
    const t5 = t5Blocks(p);
    entries = t5.entries;
    bytesPerLayer = t5.bytesPerLayer;
    checkpointHeldBytes = t5.checkpointHeldBytes;
  }
  const cb = tape.computeBytes;
  const ffnLocal = a.moe ? a.moe.expertFfn * a.moe.topK : a.ffn / tp;
  const width = a.gatedMlp ? 3 : 2;
  // Looped experts (p.expertsLooped: transformers 4.x gathers each expert's tokens, runs its MLP, index_add_-s the
  // weighted output) run one after another, and so does their backward, in reverse, each releasing what it saved:
  // the high point of an MoE layer's backward is the largest of (a) one expert's share of the routed tokens (T·k/E,
  // routing balanced) with its intermediates' and its output's gradients, (b) the gather's zero-filled gradient of
  // every token beside that expert's input gradient, (c) a shared expert over every token, and (d) the end of the
  // layer's forward when checkpointing recomputes it, with all it saves: the MoE input and its output accumulator,
  // the int64 one-hot expert mask (E x k x T) and the last expert's unsaved matmul outputs. Profiled on the CPU
  // (tools/peak/measure_step.py --moe-checkpointing, 4-16 experts): every routed token's intermediates at once put the
  // estimate 8-24 % high where the layers make the high point; within 2.1 % with these terms. transformers 5's grouped
  // matmul runs every routed token at once: its backward holds their gradients together, as counted below.
  const loopedExperts = moeBlock && a.moe !== undefined && moeInfo.looped && !p.tiledMlpShards;
  let moeWorking = 0;
  if (loopedExperts) {
    const m = a.moe!;
    const share = (T * m.topK) / m.experts;
    const oneExpert = width * cb * share * m.expertFfn + cb * share * a.hidden;
    const gatherGrad = cb * T * a.hidden + cb * share * a.hidden;
    const shared = width * cb * T * m.sharedExpertFfn;
    const forwardEnd = 2 * cb * T * a.hidden + 8 * m.experts * m.topK * T + cb * share * (m.expertFfn + a.hidden) - moeInfo.savedAfterRouted;
    moeWorking = Math.max(oneExpert, gatherGrad, shared, forwardEnd);
  }
  // grouped_mm (transformers 5): the backward holds every routed token's gate, up and product gradients at once (as a
  // dense MLP of width top-k x expert width, below); the end of the recomputed forward holds the routed tokens' copies
  // (MoeInfo.forwardEnd), less what a shared expert, which runs after that point, saves. Profiled on the CPU
  // (tools/peak/measure_step.py --moe-checkpointing, a replica of transformers' grouped_mm).
  const groupedEnd = Math.max(0, moeInfo.forwardEnd - moeInfo.savedAfterRouted);
  // A tiled MLP's backward holds one shard's recomputed tensors and their gradients, plus the full input gradient.
  const mlpWorking = tiledMlp
    ? (width * cb * T * ffnLocal + tiledMlp.savedBytes + tiledMlp.weightCopyBytes) / p.tiledMlpShards! + cb * T * a.hidden
    : loopedExperts ? moeWorking : Math.max(width * cb * T * ffnLocal, groupedEnd);
  // Eager attention backward: the gradient of the probabilities and of the scores coexist (softmax backward), plus
  // the fp32 copy of the gradient when the softmax ran in fp32 on 16-bit scores. By then the block's MLP half has
  // been through its backward and released what it saved. Flash / SDPA backward holds dQ, dK, dV and dO; a gated
  // attention output (Qwen3.5) adds the gradients of the gate and of the ungated output. A Gated DeltaNet layer has
  // its own (gatedDeltaNet).
  const scoreGradBytes = 2 * cb + (softmaxUpcast && cb < 4 ? 4 : 0);
  const attnWorking = linearWorking ?? (p.attention === 'eager' ? scoreGradBytes * b * heads * s * s : 4 * cb * T * qd * (a.attnOutputGate ? 1.5 : 1));
  const backwardWorkingBytes = Math.max(mlpWorking, expertLoraWorking, Math.max(0, attnWorking - mlpSavedBytes)) + 2 * residualBytes * Tsp * a.hidden;
  const layerInputBytes = Tsp * a.hidden * residualBytes;
  const everyOtherMatmul = tape.matmulOutputs.filter((_, i) => i % 2 === 0).reduce((x, y) => x + y, 0);
  const selectiveBytes = Math.min(bytesPerLayer, layerInputBytes + everyOtherMatmul + tape.attentionOutputBytes);
  return { bytesPerLayer, entries, backwardWorkingBytes, layerInputBytes, selectiveBytes, checkpointHeldBytes, weightCopyBytesPerLayer: tape.weightCopyBytes };
}

/**
 * One decoder block under Unsloth's kernels (unsloth/models/llama.py LlamaDecoderLayer_fast_forward with
 * unsloth/kernels): Fast_RMS_Layernorm keeps its input and the fp32 inverse RMS per row; LoRA_QKV keeps its input
 * and returns Q, K, V; Qwen3's q/k norms keep their inputs; the rotary kernel works in place and keeps only cos/sin;
 * flash-attn / xformers keep Q, K, V, the output and the fp32 logsumexp; LoRA_W (o_proj) keeps its input, the
 * attention output; LoRA_MLP keeps its input and the gate and up projections e, g, and recomputes swiglu(e, g) in
 * backward, where it writes the gradients into e and g and the input's gradient into the input's buffer.
 */
function unslothBlock(p: ActivationPlan): LayerActivations {
  const a = p.arch;
  const tape = new Tape(p.mode, p.half, false);
  const T = p.batch * p.seq;
  const cb = tape.computeBytes;
  const qd = a.heads * a.headDim;
  const kvd = a.kvHeads * a.headDim;
  const rows = (what: string): void => tape.saveExtra(`${what} inverse RMS (fp32)`, T * 4);
  const x0 = tape.tensor('block input', T * a.hidden, cb, true);
  tape.save(x0);
  rows('input_layernorm');
  const h1 = tape.tensor('input_layernorm output (LoRA_QKV input)', T * a.hidden, cb, true);
  tape.save(h1);
  let q = tape.tensor('Q', T * qd, cb, true);
  let k = tape.tensor('K', T * kvd, cb, true);
  const v = tape.tensor('V', T * kvd, cb, true);
  if (a.qkNorm) {
    tape.save(q);
    tape.save(k);
    tape.saveExtra('q_norm / k_norm inverse RMS (fp32)', T * (a.heads + a.kvHeads) * 4);
    q = tape.tensor('Q (normed, rotary in place)', T * qd, cb, true);
    k = tape.tensor('K (normed, rotary in place)', T * kvd, cb, true);
  }
  tape.save(q);
  tape.save(k);
  tape.save(v);
  const o = tape.tensor('attention output (LoRA_W input)', T * qd, cb, true);
  tape.save(o);
  tape.saveExtra('attention logsumexp (fp32)', p.batch * a.heads * p.seq * 4);
  const x1 = tape.tensor('residual', T * a.hidden, cb, true);
  tape.save(x1);
  rows('post_attention_layernorm');
  const h2 = tape.tensor('post_attention_layernorm output (LoRA_MLP input)', T * a.hidden, cb, true);
  tape.save(h2);
  tape.save(tape.tensor('e = gate_proj(x)', T * a.ffn, cb, true));
  tape.save(tape.tensor('g = up_proj(x)', T * a.ffn, cb, true));
  const bytesPerLayer = tape.totalBytes();
  // Backward: LoRA_MLP holds the down projection's input gradient (T x ffn) while writing the rest in place; the
  // attention backward holds dQ, dK, dV and dO; the residual stream's gradient comes in and goes out.
  const residual = 2 * cb * T * a.hidden;
  const backwardWorkingBytes = Math.max(cb * T * a.ffn, cb * T * (2 * qd + 2 * kvd)) + residual;
  const layerInputBytes = T * a.hidden * cb;
  return { bytesPerLayer, entries: tape.entries(), backwardWorkingBytes, layerInputBytes, selectiveBytes: bytesPerLayer, checkpointHeldBytes: 0, weightCopyBytesPerLayer: 0 };
}

type LinearFn = (x: Tensor, name: string, outFeatures: number, what: string) => Tensor;

/**
 * Granite 4.0 H's MLP half: the shared MLP (input_linear chunked into gate and up, silu, output_linear) and, in the MoE
 * models, GraniteMoeHybridMoE beside it (modeling_granitemoehybrid.py): an nn.Linear router with fp32 logits, top-k and
 * an fp32 softmax cast back, the sorted routing indices, the gathered inputs through the experts' input_linear (a loop of
 * F.linear over GraniteMoeHybridParallelExperts' 3-D weight), silu(gate) x up, output_linear, the gate products and an
 * index_add that keeps its source. The MoE terms are tools/activations/granite_moe.py's closed form (18 cases, exact;
 * none depends on which experts are hit).
 */
function graniteMlp(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn, moeBlock: boolean): Tensor {
  const a = p.arch;
  const out = gatedMlp(tape, a.ffn / p.tp, a.hidden, x, linear, 'granite');
  const moe = a.moe;
  if (moe && moeBlock && (x.rg || p.baseTrainable)) {
    const T = x.elems / a.hidden;
    const pairs = T * moe.topK;
    const Ie = moe.expertFfn;
    tape.saveExtra('router (int64 indices, fp32 softmax, gates), expert activations, gated outputs and the index_add source',
      p.baseTrainable ? pairs * (30 + 8 * Ie + 6 * a.hidden) : pairs * (30 + 6 * Ie + 4 * a.hidden));
    // Axolotl's quantize_moe_experts: each expert's F.linear takes a view of the whole dequantized input_linear (2 x Ie)
    // and output_linear weights, which the views keep alive for the input's gradient.
    if ((p.dequantizedExperts ?? 0) > 0 && x.rg) tape.saveExtra('dequantized expert weights (NF4 -> 16-bit, kept by the expert matmuls)', p.dequantizedExperts! * 3 * Ie * a.hidden * tape.half);
    // The router's and the experts' weight gradients need the block input (one storage with the shared MLP's).
    if (p.baseTrainable) tape.save(x);
  }
  return out;
}

/**
 * Nemotron 3's MoE block (NemotronHMoE in modeling_nemotron_h.py), from the layer norm's output to the block output:
 * the router in fp32 (F.linear of fp32 copies of the input and the weight, sigmoid, the correction bias, group and
 * top-k selection, gathered and normalized weights times routed_scaling_factor, not under no_grad), the routed experts
 * through transformers 5's default grouped_mm implementation (sorted tokens, sentinel masks, two grouped matmuls with
 * relu² between, the fp32 weighted products summed over the top-k), optional latent projections, and the shared expert
 * (up_proj, relu², down_proj). The routed part is tools/activations/nemotron_moe.py's closed form (82 measured cases,
 * exact), which no term of depends on which experts the tokens reach.
 */
function nemotronMoe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): { out: Tensor; workingBytes: number } {
  const a = p.arch;
  const moe = a.moe!;
  const r = a.moeRouting ?? { groups: 1, topkGroups: 1, normTopk: true };
  const T = x.elems / a.hidden;
  const S = T * moe.topK;
  const d = a.moeLatent ?? a.hidden;
  const E = moe.experts;
  const Im = moe.expertFfn;
  const routedIn = a.moeLatent ? linear(x, 'fc1_latent_proj', d, 'fc1_latent_proj output') : x;
  if (x.rg || p.baseTrainable) {
    const trained = p.baseTrainable;
    const perPair = 41 + (trained ? 4 : 2) * Im + (trained ? 4 : 2) * d - (r.normTopk ? 0 : 4);
    const perToken = 5 * E + 16 * r.groups + 8 * r.topkGroups + 4 + (trained ? 4 * a.hidden : 0) - (r.normTopk ? 0 : 4);
    tape.saveExtra('router (fp32 scores, masks, indices, weights) and routed experts (grouped_mm inputs, relu², weighted products)', S * perPair + T * perToken + 4 * E * (a.hidden + 1));
    // Axolotl's quantize_moe_experts: the grouped matmuls keep the dequantized up and down weights (E x Im x d each).
    if ((p.dequantizedExperts ?? 0) > 0 && x.rg) tape.saveExtra('dequantized expert weights (NF4 -> 16-bit, kept by the grouped matmuls)', p.dequantizedExperts! * 2 * Im * d * tape.half);
  }
  let routed = tape.tensor('routed experts output', T * d, tape.computeBytes, routedIn.rg || p.baseTrainable);
  if (a.moeLatent) routed = linear(routed, 'fc2_latent_proj', a.hidden, 'fc2_latent_proj output');
  const up = linear(x, 'shared_experts.up_proj', moe.sharedExpertFfn, 'shared expert up_proj output');
  const act = tape.unarySavesOutput(up, 'relu(shared up_proj output)');
  const shared = linear(tape.free(act, 'relu(...)^2'), 'shared_experts.down_proj', a.hidden, 'shared expert output');
  return { out: tape.tensor('routed + shared', T * a.hidden, tape.computeBytes, routed.rg || shared.rg), workingBytes: 0 };
}

/** Granite 4.0 H's MLP half alone: the shared MLP and the MoE block (see mixerSavedBytes). */
export const graniteMlpSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, (tape, plan, x, linear) => graniteMlp(tape, plan, x, linear, true));

/** Nemotron 3's MoE block alone (see mixerSavedBytes). */
export const nemotronMoeSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, nemotronMoe);

/**
 * One Mamba2 mixer (Granite 4.0 H: Bamba's Mamba2 mixer in modeling_granitemoehybrid.py), from the input norm's output
 * to out_proj, in training (no cache):
 * - 'cuda' (mamba_ssm and causal-conv1d installed): in_proj, then mamba_split_conv1d_scan_combined runs the conv, the
 *   chunked scan, the gated RMSNorm and out_proj in one autograd Function that keeps the in_proj output, the scan output,
 *   the norm's fp32 rstd per token and group and A (fp32 per head), and recomputes the rest in backward. out_proj's
 *   weight is passed to the kernel directly, so a LoRA adapter on out_proj takes no part (the estimate counts its
 *   parameters, not activations).
 * - 'torch' (transformers' torch_forward): nn.Conv1d keeps its input and silu the padded conv output; the chunked SSD
 *   scan in fp32 over sequences padded to the chunk size keeps its per-chunk products, decays and states; the gated
 *   norm keeps its fp32 input, gate and factors; out_proj is an nn.Linear.
 * Every term reproduces tools/activations/mamba2.py (a torch reimplementation, the kernels emulated by autograd Functions
 * saving what state-spaces/mamba's ssd_combined.py saves) byte for byte.
 */
function mamba2Mixer(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): { out: Tensor; workingBytes: number } {
  const mb = p.arch.mamba!;
  const T = p.batch * p.seq;
  const H = mb.heads / p.tp;
  const d = H * mb.headDim;
  const GN = mb.groups * mb.state;
  const projW = 2 * d + 2 * GN + H;
  const convDim = d + 2 * GN;
  const cb = tape.computeBytes;
  const projOut = linear(x, 'in_proj', projW, 'in_proj output (z, x, B, C, dt)');
  // Falcon-H1 scales the in_proj output by its mup_vector, a buffer in the model's load dtype (a product with a tensor
  // that needs no grad keeps only that tensor): under autocast with fp32 weights the product, which the kernel keeps, is
  // fp32.
  const bufferBytes = p.quantizedBase ? p.half : p.weightBytes;
  const proj = mb.parallel ? tape.free(projOut, 'in_proj output x mup_vector', projOut.elems, Math.max(projOut.bytesPerElem, bufferBytes)) : projOut;
  const C = mb.chunk;
  const nc = Math.ceil(p.seq / C);
  const states = p.batch * nc * H * mb.headDim * mb.state;
  if (p.mambaKernels === 'split' || p.mambaKernels === 'split-masked') {
    // NemotronH with a cache (use_cache defaults to on, and only gradient checkpointing turns it off) or a padded batch:
    // causal_conv1d_fn keeps its input, the in_proj output (a channel-last view); mamba_chunk_scan_combined keeps its
    // output and its x, dt, B, C views and the fp32 dA_cumsum; then the torch gated norm (grouped) and out_proj as an
    // nn.Linear. On a padded batch x is the masked product (x * attention_mask), a tensor of its own.
    if (proj.rg) {
      tape.save(proj);
      if (p.mambaKernels === 'split-masked') tape.saveExtra('x masked for the padding (scan input)', T * d * cb);
      tape.saveExtra('scan output, its fp32 dA_cumsum, the torch gated norm\'s fp32 input, gate and factors', T * (24 * d + 8 * GN + 2 * H + 4 * mb.normGroups) - 2 * T * projW + 4 * p.batch * nc * C * H + 4 * H);
    }
    if (p.baseTrainable) tape.saveExtra('exp(A_log) (fp32)', 4 * H);
    if (p.normsTrainable) tape.saveExtra('normalized input for the gated norm weight', 2 * T * d);
    const normed = tape.tensor('gated norm output', T * d, cb, proj.rg || p.normsTrainable);
    const out = linear(normed, 'out_proj', p.arch.hidden, 'out_proj output');
    return { out, workingBytes: cb * T * (projW + convDim + d) + 4 * states };
  }
  if (p.mambaKernels !== 'torch') {
    if (proj.rg) {
      tape.save(proj);
      // The kernel keeps the scan output in its input's dtype (gated by z inside the kernel when there is no norm).
      tape.saveExtra(mb.gatedNorm ? 'scan output (before the gated norm)' : 'scan output', T * d * proj.bytesPerElem);
      if (mb.gatedNorm) tape.saveExtra('gated norm rstd per token and group (fp32)', T * mb.groups * 4);
      tape.saveExtra('A = -exp(A_log) (fp32)', H * 4);
    }
    if (p.baseTrainable) tape.saveExtra('exp(A_log) (fp32)', H * 4);
    const out = tape.tensor('out_proj output (in the fused kernel)', T * p.arch.hidden, cb, proj.rg || p.baseTrainable);
    // Backward recomputes the conv output and the chunk states (fp32) and writes the gradient of the in_proj output, in
    // the dtype of what the kernel received.
    return { out, workingBytes: proj.bytesPerElem * T * (projW + convDim + d) + 4 * states };
  }
  const Sp = p.batch * nc * C;
  const b = p.batch;
  if (proj.rg) {
    tape.saveExtra('conv input, dt and gate paths, L2 of the scan inputs (fp32 where the scan works)', T * (8 * d + 4 * GN + 8 * H));
    tape.saveExtra('conv1d output, kernel - 1 padded positions included (kept by silu on its slice)', 2 * b * convDim * (p.seq + mb.convKernel - 1));
    tape.saveExtra('chunked scan over padded tokens: x, B, C, decays and the chunk products (fp32)', Sp * (12 * d + 12 * H * mb.state + 12 * H * C + 8 * H));
    tape.saveExtra('chunk states and their decays (fp32)', 8 * b * (nc + 1) * d * mb.state + 4 * b * H * (nc + 1) ** 2 + 2 * (nc + 1) ** 2);
    tape.saveExtra('causal masks', 2 * C * C);
    tape.saveExtra('A = -exp(A_log) (fp32)', 4 * H);
    if (mb.gatedNorm) tape.saveExtra('gated norm: fp32 input, gate, rsqrt and factors', 12 * T * d + 4 * T * mb.normGroups);
    // Falcon-H1 without mamba_rms_norm: y * silu(gate), y (fp32) already counted with the scan.
    else tape.saveExtra('silu(gate)', 2 * T * d);
    if (proj.bytesPerElem > cb) {
      // Falcon-H1 under autocast with fp32 weights: the in_proj output x mup_vector is fp32 (kept by the conv's input
      // view), conv1d casts its input and weight to 16 bits (both copies kept), the dt path works in fp32, and the gate
      // is fp32 already: silu(gate) is fp32 without the gated norm, and the norm's gate.float() is no copy
      // (tools/activations/measure.py, falcon_h1 amp_bf16 torch cases, exact).
      tape.saveExtra('fp32 in_proj output, 16-bit conv1d input and weight copies, fp32 dt path and gate', 2 * T * projW + 2 * T * convDim + 2 * convDim * mb.convKernel + 6 * T * H
        + (mb.gatedNorm ? -4 * T * d : 2 * T * d));
    }
  }
  if (p.baseTrainable) tape.saveExtra('D x and exp(A_log) for the parameters\' gradients (fp32)', 4 * H + 4 * Sp * d);
  if (p.normsTrainable && mb.gatedNorm) tape.saveExtra('normalized input for the gated norm weight (fp32)', 4 * T * d);
  const normed = tape.tensor('gated norm output', T * d, cb, proj.rg || p.normsTrainable);
  const out = linear(normed, 'out_proj', p.arch.hidden, 'out_proj output');
  return { out, workingBytes: 2 * 4 * H * C * Sp + 8 * b * (nc + 1) * d * mb.state };
}

/**
 * One Mamba-1 mixer (Jamba: modeling_jamba.py JambaMambaMixer), from the input norm's output to out_proj, in training
 * (no cache, no padding):
 * - 'cuda' (mamba_ssm and causal-conv1d installed): in_proj, causal_conv1d_fn on a view of its transposed output (the
 *   whole in_proj output is kept), x_proj on the conv output, RMSNorms over the time step, B and C (fp32 copies and
 *   rsqrt rows), dt_proj, then mamba_ssm's selective_scan_fn, which keeps contiguous copies of u (the channel-last conv
 *   output), delta, z (the gate view), B and C, its output, the fp32 per-chunk states (2048-token chunks), A, D and the
 *   delta bias in fp32; out_proj takes a contiguous copy of the transposed output.
 * - 'torch' (slow_forward, transformers' sequential scan): the discretized A and B (fp32, inner x state per token), the
 *   fp32 state after every step, its 16-bit copy per step for the output matmul, softplus in and out, silu's padded conv
 *   output (fp32 where autocast upcasts softplus over fp32 weights).
 * Every term reproduces tools/activations/mamba1.py (kernels emulated by autograd Functions saving what
 * state-spaces/mamba's selective_scan_interface.py and causal-conv1d save) byte for byte.
 */
function mamba1Mixer(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): { out: Tensor; workingBytes: number } {
  const m = p.arch.mamba1!;
  const b = p.batch;
  const s = p.seq;
  const T = b * s;
  const I = m.inner / p.tp;
  const N = m.state;
  const R = m.dtRank;
  const cb = tape.computeBytes;
  // Under autocast with fp32 weights the norms' outputs are fp32 and so are the scan's inputs that follow them.
  const f = p.mode === 'amp' && p.weightBytes === 4 ? 4 : cb;
  const normBytes = p.quantizedBase ? p.half : p.weightBytes;
  const proj = linear(x, 'in_proj', 2 * I, 'in_proj output (x, gate)');
  const rg = proj.rg;
  // The conv's input is a view of the first half of the transposed in_proj output: its whole storage is kept.
  if (rg) tape.save(proj);
  const norms = (conv: Tensor): Tensor => {
    const xo = linear(conv, 'x_proj', R + 2 * N, 'x_proj output (time step, B, C)');
    const dt = tape.rmsNorm(tape.view(xo, 'time step', T * R), T, p.normsTrainable, 'dt_layernorm', normBytes);
    tape.rmsNorm(tape.view(xo, 'B', T * N), T, p.normsTrainable, 'b_layernorm', normBytes);
    tape.rmsNorm(tape.view(xo, 'C', T * N), T, p.normsTrainable, 'c_layernorm', normBytes);
    return linear(dt, 'dt_proj', I, 'dt_proj output (without its bias)');
  };
  if (rg) tape.saveExtra('A = -exp(A_log) (fp32)', 4 * I * N);
  if (p.baseTrainable) tape.saveExtra('exp(A_log) (fp32)', 4 * I * N);
  const nc = Math.ceil(s / 2048);
  if (p.mambaKernels !== 'torch') {
    const conv = tape.tensor('conv1d output (channel-last)', T * I, cb, rg);
    norms(conv);
    if (rg) {
      tape.saveExtra('selective scan: contiguous u, delta and z, B and C, its output', 4 * 2 * T * I + 2 * 2 * T * N);
      tape.saveExtra('selective scan: per-chunk states (fp32, 2048-token chunks), D and the delta bias (fp32)', 8 * b * I * nc * N + 8 * I);
    }
    const out = linear(tape.tensor('scan output (contiguous copy of its transpose)', T * I, cb, rg || p.baseTrainable), 'out_proj', p.arch.hidden, 'out_proj output');
    // Backward: the scan's gradients of u, delta, z, B, C and the recomputed states.
    return { out, workingBytes: cb * T * (5 * I + 2 * N) + 8 * b * I * nc * N };
  }
  const conv = tape.tensor('silu(conv1d) output', T * I, cb, rg);
  if (rg) {
    tape.saveExtra('conv1d output, kernel - 1 padded positions included (kept by silu on its slice)', 2 * b * I * (s + m.convKernel - 1));
    tape.saveExtra('softplus input and output (the time step)', 2 * f * T * I);
    tape.saveExtra('discretized A and B (fp32, inner x state per token), B and u in fp32', 8 * T * I * N + 4 * T * N + 4 * T * I);
    tape.saveExtra('the scan loop: the initial state, every step\'s fp32 state and its 16-bit copy, C', f * b * I * N + 4 * b * I * N * (s - 1) + 2 * b * I * N * s + 2 * T * N);
    tape.saveExtra('scan output and silu(gate)', f * T * I + 2 * T * I);
  }
  // x_proj reads the transposed silu output: a contiguous copy when the batch has more than one sequence (PyTorch >= 2
  // folds a transposed 3-D input), a view otherwise; u * D keeps the silu output for D's gradient.
  norms(b > 1 ? tape.free(conv, 'x_proj input (contiguous copy)') : conv);
  if (p.baseTrainable) tape.save(conv);
  const out = linear(tape.tensor('scan output x silu(gate) (contiguous copy of its transpose)', T * I, cb, rg || p.baseTrainable), 'out_proj', p.arch.hidden, 'out_proj output');
  return { out, workingBytes: 2 * 4 * T * I * N + 8 * b * I * N * s };
}

/**
 * What one token mixer alone saves (its input, the input norm's output, requiring grad), with its weights trainable or
 * frozen as the plan says: the unit the ground-truth scripts measure (gated_deltanet.py, mamba2.py).
 */
function mixerSavedBytes(p: ActivationPlan, mixer: (tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn) => unknown): number {
  const tape = new Tape(p.mode, p.half, false);
  const x = tape.tensor('mixer input', p.batch * p.seq * p.arch.hidden, p.half, true);
  const linear: LinearFn = (xin, name, outFeatures, what) => {
    const m = linearModules(p.arch).find((l) => l.name === name && l.layerKind !== 'full');
    const y = tape.linear(xin, { what: name, elems: (m ? m.inFeatures : p.arch.hidden) * outFeatures, trainable: p.baseTrainable, bytesPerElem: p.weightBytes }, outFeatures, what);
    if (p.int8Base && xin.rg && !p.baseTrainable && !m?.parameter) tape.save(xin); // MatMul8bitLt keeps its input
    return y;
  };
  mixer(tape, p, x, linear);
  return tape.totalBytes();
}

/** A Mamba2 mixer alone (see mixerSavedBytes). */
export const mamba2SavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, mamba2Mixer);

/** A Mamba-1 mixer alone (see mixerSavedBytes). */
export const mamba1SavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, mamba1Mixer);

/** A Gated DeltaNet token mixer alone (see mixerSavedBytes). */
export const gatedDeltaNetSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, gatedDeltaNet);

/** A Kimi Delta Attention token mixer alone (see mixerSavedBytes). */
export const kimiDeltaAttentionSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, kimiDeltaAttention);

/**
 * One Kimi Delta Attention token mixer (Kimi Linear's KDA layers), from the input norm's output to o_proj, as
 * modeling_kimi.py's KimiDeltaAttention runs in training with flash-linear-attention 0.4.1 (Axolotl's pin):
 * q, k, v each through its projection and a ShortConvolution with silu (fla's triton causal_conv1d keeps its input and
 * recomputes the conv); the forget gate f_b_proj(f_a_proj(x)) through fused_kda_gate (keeps its 16-bit input, returns
 * fp32); beta = sigmoid(b_proj(x).float()) (its fp32 output kept, and kept again by the kernel); chunk_kda with the q/k
 * L2 norm inside keeps the normalised q and k with an fp32 rstd per head row, v, the fp32 chunk-local cumsum of the gate,
 * beta and two 64-wide intra-chunk matrices per token and head (Aqk, Akk, in k's dtype), recomputing the chunk states;
 * FusedRMSNormGated (sigmoid) keeps its input, the output gate g_b_proj(g_a_proj(x)) and an fp32 rstd per head row;
 * o_proj. Frozen projections under LoRA: T(22P + 272H) bytes for a bf16 model, P = heads x head_dim (trainable ones add
 * the projections' inputs): tools/activations/kda.py measures it, byte for byte, on a torch reimplementation whose
 * kernels are autograd Functions that save what fla's save.
 */
function kimiDeltaAttention(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): { out: Tensor; workingBytes: number } {
  const la = p.arch.linearAttention!;
  const T = p.batch * p.seq;
  const H = la.keyHeads / p.tp;
  const d = la.keyDim;
  const P = H * d;
  const q = linear(x, 'q_proj', P, 'q_proj output');
  const k = linear(x, 'k_proj', P, 'k_proj output');
  const v = linear(x, 'v_proj', P, 'v_proj output');
  for (const t of [q, k, v]) if (t.rg) tape.save(t); // ShortConvolution keeps its input
  const fa = linear(x, 'f_a_proj', d, 'f_a_proj output');
  const fb = linear(fa, 'f_b_proj', P, 'f_b_proj output (forget gate)');
  if (fb.rg) tape.save(fb); // fused_kda_gate keeps its input and recomputes the fp32 gate
  const bProj = linear(x, 'b_proj', H, 'b_proj output');
  const beta = tape.unarySavesOutput(tape.to(bProj, 4, 'b_proj output (fp32)'), 'beta = sigmoid(b) (fp32)');
  const rg = q.rg || k.rg || v.rg || fb.rg || beta.rg;
  if (rg) {
    tape.saveExtra('q, k L2-normalised', 2 * T * P * q.bytesPerElem);
    tape.saveExtra('q, k rstd per head row (fp32)', 2 * T * H * 4);
    tape.saveExtra('v (the conv output)', T * P * v.bytesPerElem);
    tape.saveExtra('forget gate chunk-local cumsum (fp32)', T * P * 4);
    tape.save(beta);
    tape.saveExtra('Aqk and Akk: 64 per token and head each', 2 * T * H * 64 * k.bytesPerElem);
  }
  const o = tape.tensor('chunk_kda output', T * P, v.bytesPerElem, rg);
  const ga = linear(x, 'g_a_proj', d, 'g_a_proj output');
  const gate = linear(ga, 'g_b_proj', P, 'g_b_proj output (output gate)');
  if (o.rg || gate.rg) {
    tape.save(o);
    tape.save(gate);
    tape.saveExtra('gated norm rstd per head row (fp32)', T * H * 4);
  }
  const normed = tape.tensor('gated norm output', T * P, o.bytesPerElem, o.rg || gate.rg || p.normsTrainable);
  const out = linear(normed, 'o_proj', p.arch.hidden, 'o_proj output');
  // Backward: chunk_kda recomputes w, u, the gated q and k, v_new and the chunk states (64 tokens each) in the model
  // dtype and writes dq, dk, dv, dg (fp32) and dbeta; the states' gradients are fp32.
  const nc = Math.ceil(p.seq / 64);
  const states = p.batch * nc * H * d * d;
  const cb = tape.computeBytes;
  return { out, workingBytes: cb * T * 6 * P + 4 * T * P + (cb + 4) * states };
}

/**
 * F.linear(x.float(), weight.float()), the router of DeepSeek-V3 and Kimi Linear: fp32 copies of both, which autocast
 * casts back to 16 bits for the matmul; without autocast the fp32 copy of a 16-bit weight is kept for the input's
 * gradient.
 */
function fp32Router(tape: Tape, p: ActivationPlan, x: Tensor): Tensor {
  const a = p.arch;
  const experts = a.moe!.experts;
  const x32 = tape.to(x, 4, 'router input (fp32)');
  const rw: Weight = { what: 'router', elems: a.hidden * experts, trainable: p.baseTrainable, bytesPerElem: 4 };
  if (x32.rg && tape.mode !== 'amp' && p.weightBytes !== 4) tape.saveExtra('router weight (fp32 copy)', a.hidden * experts * 4);
  return tape.linear(x32, rw, experts, 'router logits');
}

/** Kimi Linear's MoE block alone (see mixerSavedBytes). */
export const kimiMoeSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, kimiMoe);

/**
 * Kimi Linear's MoE block as Axolotl's modeling_kimi.py trains it (KimiSparseMoeBlock._training_forward): the router
 * F.linear(x.float(), W.float()) (its fp32 weight copy kept), softmax over every expert in fp32 (kept), top-k (int64
 * indices kept) renormalised (the chosen weights and their sum kept) and scaled; the routed pairs sorted by expert:
 * argsort and its inverse, the repeated token index and the gathered inputs (four int64 indices per pair kept by the
 * index ops); one KimiBlockSparseMLP (w1, w3, w2) per expert on its slice; the outputs concatenated and multiplied by
 * the fp32 weights (both kept; the product and so the block's output are fp32), un-permuted and summed per token; the
 * shared experts on every token. tools/activations/kimi_linear.py measures it byte for byte.
 */
function kimiMoe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  const S = T * moe.topK;
  const probs = tape.unarySavesOutput(tape.to(fp32Router(tape, p, x), 4, 'router logits (fp32)'), 'router softmax (fp32)');
  if (probs.rg) {
    tape.saveExtra('top-k, sorted, token and inverse indices (int64, four per routed pair)', 32 * S);
    if (moe.topK > 1 && (a.moeRouting?.normTopk ?? true)) {
      tape.saveExtra('top-k weights before normalisation and the gathered weights (fp32)', 8 * S);
      tape.saveExtra('top-k weight sum (fp32)', 4 * T);
    } else {
      tape.saveExtra('gathered top-k weights (fp32)', 4 * S);
    }
  }
  const routed = tape.tensor('routed tokens (gathered, sorted by expert)', S * a.hidden, x.bytesPerElem, x.rg);
  const down = expertMlp(tape, a, routed, linear, ['w1', 'w3', 'w2']);
  tape.save(down); // the concatenated expert outputs, kept by the product with the fp32 weights
  if (moe.sharedExpertFfn > 0) gatedMlp(tape, moe.sharedExpertFfn, a.hidden, x, (xx, name, out, what) => linear(xx, `shared_experts.${name}`, out, what), 'llama');
  return tape.tensor('moe output (fp32)', T * a.hidden, 4, true);
}

/**
 * One Gated DeltaNet token mixer (Qwen3-Next / Qwen3.5 linear attention), from the input norm's output to out_proj, as
 * transformers' Qwen3_5GatedDeltaNet runs it in training (modeling_qwen3_5.py @009e78d6; Qwen3-Next saves the same
 * bytes). The projections give q, k, v (one tensor: in_proj_qkv, or Qwen3-Next's torch.cat of in_proj_qkvz's parts),
 * the gate z and b, a; a depthwise causal conv1d with silu over the q, k, v channels; beta = sigmoid(b) and
 * g = -exp(A_log) * softplus(a.float() + dt_bias) in fp32; the chunked gated delta rule; an RMSNorm of each value head
 * gated by silu(z) in fp32; out_proj.
 * - 'fla' (flash-linear-attention >= 0.5 and causal-conv1d installed): causal_conv1d_fn keeps its input and recomputes
 *   silu; ChunkGatedDeltaRuleFunction keeps the L2-normalised q and k (key heads: transformers no longer repeats them
 *   for fla >= 0.5) with an fp32 rstd per head row, a contiguous copy of v, the fp32 chunk-local cumsum of g, beta and
 *   A (64 per token and value head), and recomputes the chunk states in backward.
 * - 'torch' (neither installed: torch_chunk_gated_delta_rule): nn.Conv1d keeps its input and silu the whole padded
 *   conv output; the chunked recurrence runs in fp32 over sequences padded to a multiple of 64 and keeps per chunk
 *   its C x C products, the solve_triangular results and the state.
 * Every term reproduces tools/activations/gated_deltanet.py, which measures a torch reimplementation of both paths
 * (the kernels emulated by autograd Functions that save what their sources save) byte for byte.
 */
function gatedDeltaNet(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): { out: Tensor; workingBytes: number } {
  const la = p.arch.linearAttention!;
  const T = p.batch * p.seq;
  const tp = p.tp;
  const hk = la.keyHeads / tp;
  const hv = la.valueHeads / tp;
  const kd = hk * la.keyDim;
  const vd = hv * la.valueDim;
  const dc = 2 * kd + vd;
  const cb = tape.computeBytes;
  let qkv: Tensor;
  let z: Tensor;
  let bProj: Tensor;
  let aProj: Tensor;
  if (la.splitProjections) {
    qkv = linear(x, 'in_proj_qkv', dc, 'in_proj_qkv output');
    z = linear(x, 'in_proj_z', vd, 'in_proj_z output');
    bProj = linear(x, 'in_proj_b', hv, 'in_proj_b output');
    aProj = linear(x, 'in_proj_a', hv, 'in_proj_a output');
  } else {
    // fix_query_key_value_ordering splits views of the two projections; torch.cat((q, k, v)) makes the conv's input.
    const qkvz = linear(x, 'in_proj_qkvz', dc + vd, 'in_proj_qkvz output');
    const ba = linear(x, 'in_proj_ba', 2 * hv, 'in_proj_ba output');
    qkv = tape.free(qkvz, 'q, k, v (torch.cat)', T * dc);
    z = tape.view(qkvz, 'z (view)', T * vd);
    bProj = tape.view(ba, 'b (view)', T * hv);
    aProj = tape.view(ba, 'a (view)', T * hv);
  }
  const torchPath = p.linearKernels === 'torch';
  // The conv keeps its input (nn.Conv1d and causal_conv1d_fn alike); F.silu on the [..., :s] slice of nn.Conv1d's
  // output keeps that whole (b, channels, s + K - 1) storage.
  if (qkv.rg || p.baseTrainable) {
    tape.save(qkv);
    if (torchPath) tape.saveExtra('conv1d output, K - 1 padded positions included (kept by silu on its slice)', p.batch * dc * (p.seq + la.convKernel - 1) * cb);
  }
  const conv = tape.free(qkv, 'silu(conv1d(q, k, v))', T * dc, cb);
  const beta = tape.unarySavesOutput(bProj, 'beta = sigmoid(b)');
  // a.float() + dt_bias: fp32, kept by softplus; the product with -exp(A_log) keeps that fp32 vector, and the softplus
  // output (with exp(A_log)'s result for its own backward) when A_log trains.
  const spIn = tape.free(tape.to(aProj, 4, 'a.float()'), 'a.float() + dt_bias', T * hv, 4);
  const sp = tape.unarySavesInput(spIn, 'softplus(a + dt_bias)', 4);
  if (sp.rg) tape.saveExtra('-exp(A_log) (fp32)', hv * 4);
  if (p.baseTrainable) {
    tape.save(sp);
    tape.saveExtra('exp(A_log) (fp32)', hv * 4);
  }
  if (conv.rg) {
    if (!torchPath) {
      tape.saveExtra('q, k L2-normalised (fla, key heads)', 2 * T * kd * cb);
      tape.saveExtra('q, k rstd per head row (fp32)', 2 * T * hk * 4);
      tape.saveExtra('v (contiguous copy)', T * vd * cb);
      tape.saveExtra('g chunk-local cumsum (fp32)', T * hv * 4);
      tape.save(beta);
      tape.saveExtra('A: inverse of (I + beta K K^T) per chunk, 64 per token and value head', T * hv * 64 * cb);
    } else {
      // torch_chunk_gated_delta_rule: q and k repeated to the value heads and L2-normalised in fp32 (x and its inverse
      // norm kept for each), then everything in fp32 over P = b x 64 x ceil(s / 64) padded tokens.
      const C = 64;
      const nc = Math.ceil(p.seq / C);
      const P = p.batch * C * nc;
      const dk = la.keyDim;
      const dv = la.valueDim;
      tape.saveExtra('q, k repeated to the value heads, fp32, and their inverse norms', 8 * T * hv * dk + 8 * T * hv);
      tape.saveExtra('key, k_beta, query x scale, key x decay, k_cumdecay (+ query x exp(g) past the first chunk), fp32', 4 * hv * dk * (5 * P + (nc > 1 ? P : 0)));
      tape.saveExtra('value, new values (solve_triangular), v_new, fp32', 12 * hv * dv * P);
      tape.saveExtra('five 64 x 64 products per chunk (decay, k_beta K^T, Q K^T, the triangular system, intra-chunk attention), fp32', 20 * C * hv * P);
      tape.saveExtra('beta, exp of the cumulative decay (x3), chunk decay, fp32', 16 * hv * P + 4 * p.batch * hv * nc);
      tape.saveExtra('the state entering each chunk (dk x dv, fp32)', 4 * p.batch * hv * nc * dk * dv);
      tape.saveExtra('causal mask (bool)', C * C);
    }
  }
  const o = tape.tensor('gated delta rule output', T * vd, cb, conv.rg);
  // Qwen3_5RMSNormGated over each value head: x.float() (kept by pow and the product), the fp32 rsqrt per row,
  // gate.float() (kept by silu), weight * x_hat (x_hat cast back to the input's dtype, the product in the wider of it
  // and the weight's: fp32 under autocast over fp32 weights) and silu(gate) in fp32 (kept by their product); x_hat in
  // the input's dtype for the norm weight's gradient.
  const rows = T * hv;
  const normWeightBytes = p.kbitUpcast !== undefined && p.kbitUpcast !== 'none' ? 4 : p.weightBytes;
  if (o.rg) {
    tape.save(tape.to(o, 4, 'gated norm input (fp32)'));
    tape.saveExtra('gated norm rsqrt (fp32)', rows * 4);
    tape.save(tape.to(z, 4, 'gate z (fp32)'));
    tape.saveExtra('weight x x_hat', rows * la.valueDim * Math.max(cb, normWeightBytes));
    tape.saveExtra('silu(gate) (fp32)', rows * la.valueDim * 4);
  }
  if (p.normsTrainable) tape.saveExtra('x_hat for the gated norm weight', rows * la.valueDim * cb);
  const normed = tape.tensor('gated norm output', T * vd, cb, o.rg || p.normsTrainable);
  const out = linear(normed, 'out_proj', p.arch.hidden, 'out_proj output');
  // Backward: fla recomputes w, u, v_new (token-sized) and the chunk states in the model dtype, keeps the states'
  // gradients in fp32, and writes dq, dk, dv, dg, dbeta; the torch path holds the gradients of its largest fp32
  // chunk products at a time.
  const nc = Math.ceil(p.seq / 64);
  const states = p.batch * nc * hv * la.keyDim * la.valueDim;
  const workingBytes = torchPath
    ? 2 * 4 * hv * 64 * p.batch * 64 * nc + (cb + 4) * states
    : cb * T * (2 * hv * la.keyDim + 4 * vd + 2 * kd) + (cb + 4) * states;
  return { out, workingBytes };
}

/** act(gate(x)) * up(x) -> down: Llama/Mistral/Qwen/Gemma MLP (phi3 and Qwen v1 fuse or rename the projections). */
function gatedMlp(tape: Tape, ffn: number, hidden: number, x: Tensor, linear: LinearFn, style: 'llama' | 'phi3' | 'qwen' | 'granite'): Tensor {
  if (style === 'phi3' || style === 'granite') {
    // gate_up_proj output is chunked into two views; silu saves the gate view, the product saves both halves. Granite
    // 4.0's shared MLP does the same with input_linear and output_linear.
    const [upName, downName] = style === 'granite' ? ['input_linear', 'output_linear'] : ['gate_up_proj', 'down_proj'];
    const gu = linear(x, upName, 2 * ffn, `${upName} output`);
    const tokens = gu.elems / (2 * ffn);
    const gate = tape.view(gu, 'gate (view)', tokens * ffn);
    const up = tape.view(gu, 'up (view)', tokens * ffn);
    const act = tape.unarySavesInput(gate, 'act(gate)');
    const prod = tape.mul(up, act, 'up * act(gate)');
    return linear(prod, downName, hidden, `${downName} output`);
  }
  if (style === 'qwen') {
    const a1 = linear(x, 'w1', ffn, 'w1 output');
    const a2 = linear(x, 'w2', ffn, 'w2 output');
    const act = tape.unarySavesInput(a2, 'silu(w2 x)');
    const prod = tape.mul(a1, act, 'w1 x * silu(w2 x)');
    return linear(prod, 'mlp.c_proj', hidden, 'c_proj output');
  }
  const g = linear(x, 'gate_proj', ffn, 'gate_proj output');
  const u = linear(x, 'up_proj', ffn, 'up_proj output');
  if (tape.fused) {
    // act(g) * u as one kernel: backward recomputes act(g) from the saved g and u.
    if (g.rg || u.rg) {
      tape.save(g);
      tape.save(u);
    }
    return linear(tape.tensor('act(gate) * up', g.elems, g.bytesPerElem, g.rg || u.rg), 'down_proj', hidden, 'down_proj output');
  }
  const act = tape.unarySavesInput(g, 'act(gate_proj)');
  const prod = tape.mul(act, u, 'act(gate) * up');
  return linear(prod, 'down_proj', hidden, 'down_proj output');
}

/**
 * The routed tokens through their experts' gated MLPs: one nn.Linear per projection (transformers 4), or the fused
 * gate_up_proj chunked into two views and down_proj of transformers 5 (MixtralExperts.forward and its grouped_mm
 * implementation keep the same tensors: the gathered input, gate_up, act(gate), the product).
 */
function expertMlp(tape: Tape, a: Architecture, routed: Tensor, linear: LinearFn, [gate, up, down]: readonly [string, string, string], dequantizedExperts = 0): Tensor {
  const ffn = a.moe!.expertFfn;
  if (a.fusedExperts) {
    // Axolotl's quantize_moe_experts: the NF4 experts are dequantized whole (E x 2f x h and E x h x f in 16 bits) for
    // the grouped matmuls, which keep them for the routed input's gradient (bitsandbytes nn/parametrize.py,
    // transformers integrations/moe.py grouped_mm).
    if (dequantizedExperts > 0 && routed.rg) tape.saveExtra('dequantized expert weights (NF4 -> 16-bit, kept by the grouped matmuls)', dequantizedExperts * 3 * ffn * a.hidden * tape.half);
    const gu = linear(routed, 'experts.gate_up_proj', 2 * ffn, 'expert gate_up output');
    const g = tape.view(gu, 'expert gate (view)', gu.elems / 2);
    const u = tape.view(gu, 'expert up (view)', gu.elems / 2);
    const act = tape.unarySavesInput(g, 'expert act');
    return linear(tape.mul(act, u, 'expert act * up'), 'experts.down_proj', a.hidden, 'expert down output');
  }
  const g = linear(routed, `experts.${gate}`, ffn, 'expert gate output');
  const u = linear(routed, `experts.${up}`, ffn, 'expert up output');
  const act = tape.unarySavesInput(g, 'expert act');
  const prod = tape.mul(act, u, 'expert act * up');
  return linear(prod, `experts.${down}`, a.hidden, 'expert down output');
}

/**
 * transformers 5's default experts implementation over fused 3-D experts (gpt-oss has no other kind): one grouped matmul
 * per projection.
 */
const groupedExperts = (p: ActivationPlan): boolean => (p.arch.fusedExperts === true || p.arch.family === 'gpt_oss') && p.expertsLooped !== true;

/**
 * What an MoE block tells the layer's backward working set (set by the blocks that run transformers' experts loop or
 * its grouped_mm: moeMlp, deepseekMoe, gptOssMoe): whether its experts run one after another (p.expertsLooped), what it
 * holds at the end of its routed experts' forward beside what it saves when they run through grouped_mm (0 when
 * looped), and what it saves after that point (its shared expert).
 */
interface MoeInfo { looped: boolean; forwardEnd: number; savedAfterRouted: number }

/**
 * transformers 5 grouped_mm (integrations/moe.py) at the top-k sum, beside what is saved: the gathered tokens and
 * their sorted copy, the gated product (routed tokens x expert width), the MoE input, and in the routing weights'
 * dtype (fp32 from DeepSeek's fp32 router) the weighted output, its unsorted copy and the sum.
 */
function groupedForwardEnd(a: Architecture, T: number, cb: number, weightBytes: number): number {
  const routed = T * a.moe!.topK;
  return cb * (2 * routed * a.hidden + routed * a.moe!.expertFfn + T * a.hidden) + weightBytes * (2 * routed * a.hidden + T * a.hidden);
}

/** Sparse MoE block: router softmax, top-k, each token through k experts (expected s*b*k/E tokens per expert). */
function moeMlp(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn, info?: MoeInfo): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  // Jamba's router is named `router` and its top-k weights are not renormalized (JambaSparseMoeBlock).
  const jamba = a.family === 'jamba';
  const logits = linear(x, jamba ? 'router' : 'gate', moe.experts, 'router logits');
  tape.unarySavesOutput(logits, 'router softmax (fp32)', 4);
  // Expert inputs are gathered copies of the routed tokens: T*k rows in all.
  const routed = tape.tensor('routed tokens', T * moe.topK * a.hidden, x.bytesPerElem, x.rg);
  const down = expertMlp(tape, a, routed, linear, a.family === 'mixtral' ? ['w1', 'w3', 'w2'] : ['gate_proj', 'up_proj', 'down_proj'], p.dequantizedExperts);
  // Each expert output is scaled by its routing weight (saved for the weight's grad); index_add_ keeps its
  // source (the weighted output) and the int64 token indices; top-k indices and the weight normalisation
  // (clone + sum) are kept too.
  const weighted = tape.mul(down, tape.tensor('routing weights (16-bit)', T * moe.topK, x.bytesPerElem, x.rg), 'weighted expert output');
  if (info) info.looped = p.expertsLooped === true;
  if (groupedExperts(p)) {
    if (info) info.forwardEnd = groupedForwardEnd(a, T, tape.computeBytes, x.bytesPerElem);
    // transformers 5 grouped_mm (integrations/moe.py): the weighted outputs are put back in token order by an index
    // (which keeps its int64 indices, not its source) and summed over the top-k; the tokens were gathered by their
    // index and sorted by expert (argsort, and its inverse): three int64 index tensors.
    tape.saveExtra('token, sort and unsort indices (int64)', 3 * T * moe.topK * 8);
  } else {
    tape.save(weighted);
    tape.saveExtra('token indices per expert (int64)', T * moe.topK * 8);
  }
  tape.saveExtra('top-k indices (int64)', T * moe.topK * 8);
  if (!jamba) tape.saveExtra('routing weights before normalisation (fp32) and their sum', T * moe.topK * 4 + T * 4);
  if (moe.sharedExpertFfn > 0) {
    const before = tape.totalBytes();
    const sg = linear(x, 'shared_expert.gate_proj', moe.sharedExpertFfn, 'shared expert gate');
    const su = linear(x, 'shared_expert.up_proj', moe.sharedExpertFfn, 'shared expert up');
    const sa = tape.unarySavesInput(sg, 'shared expert act');
    const sp = tape.mul(sa, su, 'shared expert act * up');
    const sd = linear(sp, 'shared_expert.down_proj', a.hidden, 'shared expert down');
    const gate = linear(x, 'shared_expert_gate', 1, 'shared expert gate logit');
    const sig = tape.unarySavesOutput(gate, 'sigmoid(gate)');
    tape.mul(sig, sd, 'gated shared expert');
    if (info) info.savedAfterRouted = tape.totalBytes() - before;
  }
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}

/**
 * DeepSeek MoE (modeling_deepseek_v3.py DeepseekV3TopkRouter + DeepseekV3MoE): the router is F.linear of the fp32
 * hidden states and fp32 weight (autocast runs it in 16 bits), then sigmoid; the chosen scores are gathered (int64
 * indices kept), normalised in place (a copy and the sum kept) and scaled. Each routed token goes through its expert
 * (the token index and the gathered input kept), its output times its weight in the weights' dtype (both kept) is
 * index_add_-ed into a zero tensor of that dtype (the product kept); the shared experts run on every token.
 */
function deepseekMoe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn, info?: MoeInfo): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  const routedTokens = T * moe.topK;
  const logits = fp32Router(tape, p, x);
  const scores = tape.unarySavesOutput(logits, 'router sigmoid');
  const wb = scores.bytesPerElem;
  if (scores.rg) {
    tape.saveExtra('top-k indices (int64)', routedTokens * 8);
    tape.saveExtra('top-k scores before normalisation and their sum', routedTokens * wb + T * wb);
  }
  const routed = tape.tensor('routed tokens (gathered)', routedTokens * a.hidden, x.bytesPerElem, x.rg);
  // torch.where(mask[e]) returns the token and slot indices as views of one nonzero() result: 2 x int64 per token.
  const grouped = groupedExperts(p);
  // transformers 5 grouped_mm: the token, sort and unsort indices (int64); the 4.x loop: torch.where(mask[e]) returns
  // the token and slot indices as views of one nonzero() result, 2 x int64 per token.
  if (x.rg) tape.saveExtra(grouped ? 'token, sort and unsort indices (int64)' : 'token and slot indices per expert (int64)', routedTokens * (grouped ? 24 : 16));
  const down = expertMlp(tape, a, routed, linear, ['gate_proj', 'up_proj', 'down_proj'], p.dequantizedExperts);
  const weighted = tape.mul(down, tape.tensor('routing weight per routed token', routedTokens, wb, scores.rg), 'weighted expert output', wb);
  if (info) info.looped = p.expertsLooped === true;
  if (grouped && info) info.forwardEnd = groupedForwardEnd(a, T, tape.computeBytes, wb);
  if (!grouped) tape.save(weighted); // index_add_ keeps its source (grouped_mm's index back to token order does not)
  if (moe.sharedExpertFfn > 0) {
    const before = tape.totalBytes();
    gatedMlp(tape, moe.sharedExpertFfn, a.hidden, x, (xx, name, out, what) => linear(xx, name.replace(/^(gate|up|down)_proj$/, 'shared_experts.$1_proj'), out, what), 'llama');
    if (info) info.savedAfterRouted = tape.totalBytes() - before;
  }
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}

/**
 * Llama 4 MoE as transformers runs it (modeling_llama4.py Llama4TextMoe, Llama4Router, Llama4TextExperts): every token
 * goes through every expert. The router (an nn.Linear) gives E logits, top-k keeps k of them (int64 indices kept),
 * scatter_ fills the rest with -inf, sigmoid in fp32 (its output kept) cast back; the hidden states are repeated E
 * times and scaled by their score (both factors kept: the repeated copy for the scores' gradient, the transposed
 * scores, a copy, for the input's); bmm with gate_up_proj (E x h x 2f: its input kept only when the experts train,
 * its 16-bit copy under autocast), silu of the gate half (the whole gate_up output kept), times the up half (the
 * activation kept), bmm with down_proj, summed over the experts onto the shared expert's output.
 */
function llama4Moe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const E = moe.experts;
  const f = moe.expertFfn;
  const T = x.elems / a.hidden;
  const logits = linear(x, 'router', E, 'router logits');
  const cb = logits.bytesPerElem;
  if (logits.rg) {
    tape.saveExtra('top-k indices (int64)', T * moe.topK * 8);
    tape.saveExtra('router sigmoid output (fp32)', T * E * 4);
  }
  const scores = tape.tensor('routing scores (transposed copy)', T * E, cb, logits.rg);
  const repeated = tape.tensor(`hidden states repeated x ${E}`, E * T * a.hidden, x.bytesPerElem, x.rg);
  const routedIn = tape.mul(repeated, scores, 'scaled expert inputs');
  if (a.expertsAsLinear) {
    // bitsandbytes: SequentialLlama4TextExperts runs one Llama4TextMLP per expert over its slice of the E x T rows.
    gatedMlp(tape, f, a.hidden, routedIn, (xx, name, out, what) => linear(xx, `experts.${name}`, out, what), 'llama');
  } else {
    llama4BmmExperts(tape, p, routedIn);
  }
  gatedMlp(tape, moe.sharedExpertFfn, a.hidden, x, (xx, name, out, what) => linear(xx, `shared_expert.${name}`, out, what), 'llama');
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}

/** Llama4TextExperts: bmm of the E x T rows with the 3-D gate_up_proj, silu of the gate half times the up half, bmm with down_proj. */
function llama4BmmExperts(tape: Tape, p: ActivationPlan, routedIn: Tensor): void {
  const a = p.arch;
  const E = a.moe!.experts;
  const f = a.moe!.expertFfn;
  const expertWeight = (what: string, elems: number): Weight => ({ what, elems, trainable: p.baseTrainable, bytesPerElem: p.weightBytes, uncachedCopies: E });
  // Axolotl's quantize_moe_experts: bmm takes the whole dequantized 3-D weights and keeps them for the input's gradient.
  if ((p.dequantizedExperts ?? 0) > 0 && routedIn.rg) tape.saveExtra('dequantized expert weights (NF4 -> 16-bit, kept by bmm)', p.dequantizedExperts! * 3 * f * a.hidden * tape.half);
  const gateUp = tape.linear(routedIn, expertWeight('experts.gate_up_proj', a.hidden * 2 * f), 2 * f, 'expert gate_up');
  tape.save(gateUp); // silu keeps the gate half, a view of gate_up; the product keeps the up half
  const rows = routedIn.elems / a.hidden; // E x T
  const act = tape.tensor('silu(gate)', rows * f, gateUp.bytesPerElem, gateUp.rg);
  const prod = tape.mul(tape.view(gateUp, 'up (view)', rows * f), act, 'up * silu(gate)');
  tape.linear(prod, expertWeight('experts.down_proj', f * a.hidden), a.hidden, 'expert down');
}

/**
 * gpt-oss MoE in training (modeling_gpt_oss.py GptOssTopKRouter + GptOssExperts, the per-expert loop of
 * transformers >= 4.57, which indexes the expert weights with a 0-d index: views, nothing copied). Router: a linear
 * with bias, top-k (int64 indices kept), softmax over the k values (kept), scattered into a T x E score matrix.
 * Each expert: its tokens gathered (index keeps the int64 token indices), gate_up = x W + b, the gate and up halves
 * clamped (clamp keeps its input: the whole gate_up), glu = gate * sigmoid(1.702 gate) (sigmoid output and the clamped
 * gate kept), (up + 1) * glu (both kept), out = . W_down + b, out * routing weight (both kept), index_add_.
 * Per routed token: 2f + 4f + h elements and 8 B of index; full fine-tuning adds the inputs of both matmuls.
 */
function gptOssMoe(tape: Tape, p: ActivationPlan, x: Tensor, info?: MoeInfo): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  const f = moe.expertFfn;
  const routedTokens = T * moe.topK;
  const rw: Weight = { what: 'router', elems: a.hidden * moe.experts, trainable: p.baseTrainable, bytesPerElem: p.weightBytes };
  const logits = tape.linear(x, rw, moe.experts, 'router logits');
  if (logits.rg) {
    tape.saveExtra('top-k indices (int64)', routedTokens * 8);
    tape.unarySavesOutput(tape.tensor('top-k logits', routedTokens, logits.bytesPerElem, true), 'top-k softmax');
  }
  const routed = tape.tensor('routed tokens (gathered)', routedTokens * a.hidden, x.bytesPerElem, x.rg);
  // transformers 5 runs the experts through grouped_mm: the tokens gathered, sorted by expert and put back in token
  // order by an index (token, sort and unsort indices, int64), nothing kept of the weighted outputs; the 4.x loop keeps
  // each expert's token indices and index_add_'s source.
  const grouped = groupedExperts(p);
  if (x.rg) tape.saveExtra(grouped ? 'token, sort and unsort indices (int64)' : 'token indices per expert (int64)', routedTokens * (grouped ? 24 : 8));
  // At the top-k sum grouped_mm also holds the gathered tokens and their sorted copy, the biases gathered per routed
  // token (gate_up's and down's), the gated product, the weighted output and its unsorted copy, the MoE input and the
  // sum (profiled: tools/peak/measure_step.py --moe-checkpointing).
  const cb = tape.computeBytes;
  if (info) info.looped = p.expertsLooped === true;
  if (grouped && info) info.forwardEnd = cb * (5 * routedTokens * a.hidden + 3 * routedTokens * f + 2 * T * a.hidden);
  // Axolotl's quantize_moe_experts: each expert's matmul takes a view of the whole dequantized 3-D weight, which its
  // views keep alive for the input's gradient (as in expertMlp).
  if ((p.dequantizedExperts ?? 0) > 0 && routed.rg) tape.saveExtra('dequantized expert weights (NF4 -> 16-bit, kept by the expert matmuls)', p.dequantizedExperts! * 3 * f * a.hidden * tape.half);
  // Each expert's matmul uses a view of its slice of the 3-D parameter: under autocast every view is cast anew (not a
  // leaf, so not cached) and each copy is kept for the input's gradient: one per expert, per layer.
  const expertWeight = (what: string, elems: number): Weight => ({ what, elems, trainable: p.baseTrainable, bytesPerElem: p.weightBytes, uncachedCopies: moe.experts });
  // The biases are added after the matmul, so the sum takes the wider dtype (fp32 with fp32 weights under autocast).
  const gateUp0 = tape.linear(routed, expertWeight('experts.gate_up_proj', a.hidden * 2 * f), 2 * f, 'expert gate_up');
  const gateUp = tape.free(gateUp0, 'expert gate_up + bias', undefined, Math.max(gateUp0.bytesPerElem, p.weightBytes));
  tape.save(gateUp); // clamp of the gate and of the up view keeps the input
  const gate = tape.tensor('clamped gate', routedTokens * f, gateUp.bytesPerElem, gateUp.rg);
  const sig = tape.unarySavesOutput(tape.free(gate, '1.702 gate'), 'sigmoid(1.702 gate)');
  const glu = tape.mul(gate, sig, 'glu');
  const upPlus = tape.tensor('clamped up + 1', routedTokens * f, gateUp.bytesPerElem, gateUp.rg);
  const gated = tape.mul(upPlus, glu, '(up + 1) * glu');
  const out0 = tape.linear(gated, expertWeight('experts.down_proj', f * a.hidden), a.hidden, 'expert down');
  const out = tape.free(out0, 'expert down + bias', undefined, Math.max(out0.bytesPerElem, p.weightBytes));
  const weighted = tape.mul(out, tape.tensor('routing weight per routed token', routedTokens, tape.computeBytes, logits.rg), 'weighted expert output');
  if (!grouped) tape.save(weighted); // index_add_ keeps its source (derivatives.yaml: grad.index_select(...).expand_as(source))
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}

/**
 * gelu_new written out in Python (NewGELUActivation): 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))).
 * Under CUDA autocast, pow runs in fp32, so x is upcast and the chain after it stays fp32.
 */
function geluNew(tape: Tape, x: Tensor): Tensor {
  const x32 = tape.mode === 'amp' ? tape.to(x, 4, 'gelu input (fp32 for pow)') : x;
  const cube = tape.unarySavesInput(x32, 'x^3'); // pow saves its input
  const inner = tape.free(cube, 'x + 0.044715 x^3', undefined, Math.max(x.bytesPerElem, cube.bytesPerElem));
  const th = tape.unarySavesOutput(inner, 'tanh(...)');
  const half = tape.free(x, '0.5 * x');
  const onePlus = tape.free(th, '1 + tanh');
  return tape.mul(half, onePlus, 'gelu_new output');
}

/** T5: average of one encoder block and one decoder block (self-attention, cross-attention, MLP). */
function t5Blocks(p: ActivationPlan): { bytesPerLayer: number; entries: SavedEntry[]; checkpointHeldBytes: number } {
  const a = p.arch;
  const tape = new Tape(p.mode, p.half);
  const T = p.batch * p.seq;
  const qd = (a.heads * a.headDim) / p.tp;
  const rb = p.weightBytes === 4 ? 4 : p.half;
  const w = (name: string, inF: number, outF: number): Weight => ({ what: name, elems: (inF * outF) / p.tp, trainable: p.baseTrainable, bytesPerElem: p.weightBytes });
  const lin = (x: Tensor, name: string, inF: number, outF: number): Tensor => tape.linear(x, w(name, inF, outF), outF / (name === 'o' || name === 'wo' ? 1 : p.tp), `${name} output`);
  const attn = (x: Tensor, kv: Tensor, label: string): Tensor => {
    const q = lin(x, 'q', a.hidden, a.heads * a.headDim);
    const k = lin(kv, 'k', a.hidden, a.heads * a.headDim);
    const v = lin(kv, 'v', a.hidden, a.heads * a.headDim);
    const heads = a.heads / p.tp;
    const scores = tape.matmul(q, k, p.batch * heads * p.seq * p.seq, `${label} scores`);
    legacySoftmaxInput(tape, p, scores, `${label} softmax input`, 4);
    const sm = tape.unarySavesOutput(scores, `${label} softmax (fp32)`, 4);
    let probs = tape.to(sm, tape.computeBytes, `${label} probs`);
    probs = tape.dropout(probs, a.attentionDropout, `${label} dropout`);
    const out = tape.matmul(probs, v, T * qd, `${label} output`);
    return lin(tape.free(out, 'contiguous'), 'o', qd, a.hidden);
  };
  const ff = (x: Tensor): Tensor => {
    if (a.gatedMlp) {
      const g = lin(x, 'wi_0', a.hidden, a.ffn);
      const act = tape.unarySavesInput(g, 'gelu(wi_0 x)');
      const u = lin(x, 'wi_1', a.hidden, a.ffn);
      const prod = tape.mul(act, u, 'gelu * wi_1');
      const pd = tape.dropout(prod, a.hiddenDropout, 'ff dropout');
      return lin(pd, 'wo', a.ffn, a.hidden);
    }
    const h = lin(x, 'wi', a.hidden, a.ffn);
    const r = tape.unarySavesOutput(h, 'relu');
    const rd = tape.dropout(r, a.hiddenDropout, 'ff dropout');
    return lin(rd, 'wo', a.ffn, a.hidden);
  };
  const sub = (x: Tensor, f: (n: Tensor) => Tensor, label: string): Tensor => {
    const n = tape.rmsNorm(x, T, p.normsTrainable, `${label} layer_norm`, p.weightBytes, 't5');
    const y = f(n);
    tape.dropout(y, a.hiddenDropout, `${label} dropout`);
    return tape.tensor('residual', T * a.hidden, rb, true);
  };
  const rg = p.inputRequiresGrad || p.baseTrainable;
  let e = tape.tensor('encoder block input', T * a.hidden, rb, rg);
  e = sub(e, (n) => attn(n, n, 'self-attention'), 'encoder self-attention');
  e = sub(e, ff, 'encoder MLP');
  const encoderBytes = tape.totalBytes();
  const enc = tape.tensor('encoder output', T * a.hidden, rb, rg);
  let d = tape.tensor('decoder block input', T * a.hidden, rb, rg);
  d = sub(d, (n) => attn(n, n, 'decoder self-attention'), 'decoder self-attention');
  d = sub(d, (n) => attn(n, enc, 'cross-attention'), 'decoder cross-attention');
  sub(d, ff, 'decoder MLP');
  const decoderBytes = tape.totalBytes() - encoderBytes;
  // The first layer of each stack computes the relative-position bucket ids (int64, s x s), kept by the
  // embedding lookup of the bias.
  const buckets = 2 * p.seq * p.seq * 8;
  const total = encoderBytes * a.encoderLayers + decoderBytes * a.layers + buckets;
  // Under checkpointing the position bias (+ mask) tensors computed in the first layer are inputs of every
  // later layer and stay alive: one (b, heads, s, s) tensor for the encoder, two (self, cross) for the decoder.
  const cb = tape.computeBytes === 4 || p.mode === 'amp' ? (p.weightBytes === 4 ? 4 : 2) : 2;
  const heldBiases = (a.encoderLayers > 1 ? 1 : 0) * cb * p.batch * (a.heads / p.tp) * p.seq * p.seq + (a.layers > 1 ? 2 : 0) * cb * p.batch * (a.heads / p.tp) * p.seq * p.seq;
  return { bytesPerLayer: total / (a.encoderLayers + a.layers), entries: tape.entries(), checkpointHeldBytes: heldBiases };
}

export interface LossPlan {
  readonly tokens: number;
  readonly vocab: number;
  readonly logitsBytes: number;
  readonly loss: 'full' | 'chunked' | 'fused';
  /** Hidden size: the fused linear cross-entropy sizes its token chunks by it. */
  readonly hidden?: number;
  /** Paired preference training with TRL's selective_log_softmax: the tokens of one sequence (a row). */
  readonly preferenceRowTokens?: number;
  /** Autocast runs log_softmax in fp32. */
  readonly amp?: boolean;
  /**
   * GRPO's per-token log-probabilities (TRL _get_per_token_logps_and_entropies): the completion logits divided by the
   * temperature (a second tensor of their size), then selective_log_softmax row by row; no mean-logits copies.
   */
  readonly policyGradient?: boolean;
  /** Preference log-probabilities from one log_softmax in the logits' own dtype (torchtune get_batch_log_probs). */
  readonly nativeLogSoftmax?: boolean;
  /**
   * LLaMA-Factory's preference log-probabilities (train/dpo/trainer.py concatenated_forward, trainer_utils.py
   * get_batch_logps): the logits cast to fp32, logits[:, :-1, :] through one log_softmax; the fp32 logits stay
   * referenced for the metrics until the loss is computed.
   */
  readonly wholeLogSoftmax?: boolean;
  /** The HF Trainer's LabelSmoother instead of the model's own loss. */
  readonly labelSmoothing?: boolean;
  /** A value head scores the hidden states; the LM head's logits are computed (and cast to fp32) but unused. */
  readonly unusedLogits?: boolean;
  /**
   * With preferenceRowTokens: the chosen half's NLL beside the rows' log-probs, TRL ORPO / CPO's ('orpo': no reference,
   * no masked mean logits, the rows' backward first) or TRL DPO's with rpo_alpha ('dpo': after the rows, the NLL's
   * backward first, and the reference's pass computes it too).
   */
  readonly chosenNll?: 'orpo' | 'dpo';
  /**
   * Online DPO (TRL OnlineDPOTrainer._forward): the logits of every position exist (`tokens`), and one log_softmax runs
   * over the completion slice, this share of the tokens, in the logits' dtype (fp32 under autocast).
   */
  readonly completionShare?: number;
  /** Chunks of CEWithChunkedOutputLoss (torchtune uses 8). */
  readonly chunks: number;
  readonly softcap: boolean;
  /** torch.compile fuses the upcast, log-softmax and nll: it saves the logits and a per-row logsumexp. */
  readonly compile?: boolean;
  /** PyTorch < 1.11: log_softmax's backward also took its input, so the fp32 logits are saved next to its output. */
  readonly logSoftmaxSavesInput?: boolean;
  /** Knowledge distillation: a forward-KL loss against a teacher's logits, beside the cross-entropy. */
  readonly distill?: boolean;
  /** With distill: TRL GKD's generalized JSD (this beta) over the full logits, instead of the cross-entropy. */
  readonly jsdBeta?: number;
}

export interface LossMemory {
  /** Saved for backward at the end of forward (log-softmax output, logits kept by the caller). */
  readonly savedBytes: number;
  /** Live at the cross-entropy call in forward, beyond what stays saved. */
  readonly forwardTransientBytes: number;
  /** Live at the start of backward through the loss (gradients of logits), beyond what stays saved. */
  readonly backwardTransientBytes: number;
  readonly formula: string;
}

/**
 * Logits and cross-entropy. HF ForCausalLMLoss upcasts the logits to fp32 (logits.float()) before
 * F.cross_entropy, whose log_softmax saves its fp32 output; in backward, nll_loss_backward and
 * log_softmax_backward each produce an fp32 b x s x V gradient. With 128k-152k vocabularies this is often the
 * largest single term. torchtune's CEWithChunkedOutputLoss upcasts chunk by chunk; Liger / Cut Cross-Entropy
 * never materialise the logits.
 */
/**
 * What the final norm and the output head keep for backward, replayed on the tape like a block: the norm's fp32
 * upcast (and its normalized input when the norm weight trains), and the head's input when the head trains. A frozen
 * norm and head (LoRA, QLoRA) keep only the upcast input the norm's backward needs.
 */
export function finalNormSaved(p: {
  arch: Architecture; mode: ComputeMode; half: 2 | 4; weightBytes: number; tokens: number; normTrainable: boolean; headTrainable: boolean;
  /** Storage of the final norm's and the head's weights when it differs from weightBytes (fp32 upcast of a 4/8-bit model). */
  normWeightBytes?: number; headWeightBytes?: number;
  /** Bytes per element of the residual stream when it differs from the model's (fp32 behind 4/8-bit layers). */
  residualBytes?: number;
}): number {
  // Every saved tensor is proportional to the tokens: replay one token once per setting (the advice search asks often).
  const normBytes = p.normWeightBytes ?? p.weightBytes;
  const headBytes = p.headWeightBytes ?? p.weightBytes;
  const key = `${p.mode}${p.half}${p.weightBytes}${+p.normTrainable}${+p.headTrainable}${normBytes}${headBytes}${p.residualBytes ?? ''}`;
  let byKey = finalNormCache.get(p.arch);
  if (!byKey) finalNormCache.set(p.arch, (byKey = new Map()));
  let perToken = byKey.get(key);
  if (perToken === undefined) {
    const a = p.arch;
    const tape = new Tape(p.mode, p.half, false);
    const residualBytes = p.residualBytes ?? (p.weightBytes === 4 ? 4 : p.half);
    const x = tape.tensor('final hidden states', a.hidden, residualBytes, true);
    const rms = rmsNormOf(a, normBytes);
    const normed = a.norm === 'rms'
      ? tape.rmsNorm(x, 1, p.normTrainable, 'final norm', rms.weightBytes, rms.style)
      : tape.layerNorm(x, 1, p.normTrainable, 'final norm');
    tape.linear(normed, { what: 'lm_head', elems: a.vocab * a.hidden, trainable: p.headTrainable, bytesPerElem: headBytes }, a.vocab, 'logits');
    perToken = tape.totalBytes();
    byKey.set(key, perToken);
  }
  return perToken * p.tokens;
}
const finalNormCache = new WeakMap<Architecture, Map<string, number>>();

/**
 * TRL's per-token log-probabilities of a chosen + rejected batch (trl/trainer/utils.py selective_log_softmax, DPOTrainer
 * concatenated_forward). 16-bit logits go row by row through log_softmax, whose outputs (fp32 under autocast) are kept
 * for backward; fp32 logits take the logsumexp path, which keeps the logits themselves. The mean chosen / rejected
 * logits are taken over boolean-masked copies of half the logits. In backward each row's gradient goes through fp32
 * temporaries, and unbind's backward stacks the rows' gradients into one tensor of the logits' size.
 */
function preferenceLogps(p: LossPlan, TV: number): LossMemory {
  if (p.chosenNll) return withChosenNll(p, TV, p.chosenNll);
  const lb = p.logitsBytes;
  const rowTV = p.preferenceRowTokens! * p.vocab;
  if (lb === 4 && p.policyGradient) {
    return { savedBytes: 4 * TV, forwardTransientBytes: 4 * TV, backwardTransientBytes: 8 * TV,
      formula: 'completion log-probs (fp32 logits, logsumexp path): logits divided by the temperature 4·T·V kept; the undivided logits 4·T·V; backward: gradients of the logits 8·T·V (T: completion tokens)' };
  }
  if (lb === 4) {
    return { savedBytes: 4 * TV, forwardTransientBytes: 2 * TV, backwardTransientBytes: 8 * TV,
      formula: 'preference log-probs (fp32 logits, logsumexp path): logits 4·T·V kept; masked half for the mean logits 2·T·V; backward: gradients of the logits 8·T·V' };
  }
  const out = p.amp ? 4 : lb;
  // Backward: each row's saved output is freed once its log_softmax backward has run, while its gradient (in the logits'
  // dtype) waits for unbind's backward to stack them all: the saved outputs plus one row's temporaries at the start,
  // the rows' gradients and their stack at the end (tools/peak: GRPO cases within 3 % of the profiler's peak).
  const backward = Math.max(2 * out * rowTV, 2 * lb * TV - out * TV);
  const backwardFormula = `backward: max(one row's gradients ${2 * out}·s·V beside the kept outputs, the rows' gradients and their stack 2 x ${lb}·T·V)`;
  if (p.policyGradient) {
    return {
      savedBytes: out * TV,
      // The undivided logits are freed once divided, before any row's output exists.
      forwardTransientBytes: Math.max(2 * lb * TV - out * TV, lb * TV + (p.amp ? 4 * rowTV : 0)),
      backwardTransientBytes: backward,
      formula: `completion log-probs row by row: log_softmax outputs ${out}·T·V kept; forward: max(the logits and their copy divided by the temperature 2 x ${lb}·T·V, the divided logits ${lb}·T·V${p.amp ? ' + one row\'s fp32 copy' : ''} beside the kept outputs); ${backwardFormula} (T: completion tokens)`,
    };
  }
  return {
    savedBytes: out * TV,
    forwardTransientBytes: lb * TV + Math.max(p.amp ? 4 * rowTV : 0, (lb * TV) / 2),
    backwardTransientBytes: backward,
    formula: `preference log-probs row by row: log_softmax outputs ${out}·T·V kept; logits ${lb}·T·V + max(one row's fp32 copy, masked half for the mean logits); ${backwardFormula}`,
  };
}

/**
 * Online DPO's log-probabilities (trl/trainer/online_dpo_trainer.py _forward): the model's logits of every position
 * (T·V, freed when _forward returns), logits[:, prompt_len - 1:-1].log_softmax(-1) over the completion slice (Tc·V, in the
 * logits' dtype, fp32 under autocast), then take_along_dim. The slice is not contiguous: log_softmax's kernel copies it
 * (autocast's fp32 cast is that copy). log_softmax keeps its output for backward; the slice and the gather keep nothing
 * of that size. Backward: take_along_dim's gradient and log_softmax's (2 x Tc·V) beside the kept output; then, the kept
 * output freed, `logits[:, a:b]` unwinds two recorded slices (the batch dimension's full `:` is a slice op too): each
 * SliceBackward fills a zero gradient of all the logits, the second while the first is copied into it (2 x T·V).
 * Profiled on the CPU (tools/peak/measure_step.py --online-dpo: within 1 %).
 */
function onlineDpoLogps(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  const out = p.amp ? 4 : lb;
  const TcV = p.completionShare! * TV;
  return {
    savedBytes: out * TcV,
    forwardTransientBytes: lb * TV + (p.amp ? 4 : lb) * TcV,
    backwardTransientBytes: Math.max(2 * out * TcV, 2 * lb * TV - out * TcV),
    formula: `completion log-probs, one log_softmax over the completion slice: output ${out}·Tc·V kept; forward: logits of every position ${lb}·T·V + the slice's ${p.amp ? 'fp32 ' : ''}copy ${p.amp ? 4 : lb}·Tc·V; backward: max(gather and log_softmax gradients 2 x ${out}·Tc·V, two slices' zero-filled gradients of all the logits 2 x ${lb}·T·V once the kept output is freed) (Tc = ${+p.completionShare!.toFixed(3)} x T completion tokens)`,
  };
}

/**
 * TRL ORPO / CPO (orpo_trainer.py, cpo_trainer.py concatenated_forward): nn.CrossEntropyLoss over the chosen half's
 * logits[..., :-1, :].contiguous() (its log_softmax output kept, in fp32 under autocast), then the rows' log-probs over
 * all the logits without the DPO trainer's masked mean logits. In backward the rows run first: their gradient of all the
 * logits waits in autograd's input buffer while the NLL's log_softmax backward runs, and then its zero-filled gradient of
 * all the logits is added to it (three of them at once). Profiled on the CPU: tools/peak/measure_step.py --trl-orpo.
 */
function withChosenNll(p: LossPlan, TV: number, kind: 'orpo' | 'dpo'): LossMemory {
  const lb = p.logitsBytes;
  const rows = preferenceLogps({ ...p, chosenNll: undefined }, TV);
  const half = ((p.amp ? 4 : lb) * TV) / 2; // the chosen half's log_softmax output
  const copy = (lb * TV) / 2 + (p.amp && lb < 4 ? (4 * TV) / 2 : 0); // its contiguous copy (and autocast's fp32 cast)
  const rowTV = p.preferenceRowTokens! * p.vocab;
  // ORPO's rows run without the masked copies of DPO's mean logits: 16-bit logits (and one row's fp32 copy under
  // autocast) beside the outputs; fp32 logits are what the logsumexp path keeps.
  const rowsForward = kind === 'dpo' ? rows.forwardTransientBytes : lb === 4 ? 0 : lb * TV + (p.amp ? 4 * rowTV : 0);
  const saved = rows.savedBytes + half;
  // At the NLL's log_softmax: the logits (fp32 ones are what the rows keep), DPO's rows' outputs (its NLL comes after
  // them; ORPO's before), the half's copy and its output.
  const atNll = (lb === 4 ? rows.savedBytes : lb * TV + (kind === 'dpo' ? rows.savedBytes : 0)) + copy + half;
  const forward = Math.max(atNll, rows.savedBytes + half + rowsForward);
  // ORPO: the rows' backward runs first, then the NLL's beside the rows' gradient of the logits, then their sum. DPO:
  // the NLL's backward first (its gradients beside everything kept, then its zero-filled gradient of all the logits),
  // then the rows' beside that gradient, then their sum.
  const backward = kind === 'orpo'
    ? Math.max(rows.savedBytes + half + rows.backwardTransientBytes, lb * TV + 3 * half, 3 * lb * TV)
    : Math.max(saved + 2 * half, rows.savedBytes + half + lb * TV, rows.savedBytes + lb * TV + rows.backwardTransientBytes, 3 * lb * TV);
  return {
    savedBytes: saved,
    forwardTransientBytes: forward - saved,
    backwardTransientBytes: backward - saved,
    formula: `preference log-probs row by row (${rows.savedBytes / TV}·T·V kept) and the chosen half's NLL: its log_softmax ${(2 * half) / TV}·T·V/2 kept, its contiguous copy${p.amp ? ' and fp32 cast' : ''} in forward; backward: the rows' and the NLL's gradients of all the logits and their sum 3 x ${lb}·T·V`,
  };
}

/**
 * TRL KTO's reference pass (kto_trainer.py get_batch_loss_metrics, forward): the policy's chosen and rejected logits,
 * taken by index (copies of all the completion logits), are kept for the metrics while the reference runs the same
 * forward without grad: the KL batch, then the completions, whose logits go row by row through log_softmax and are
 * then copied by index in turn. Profiled on the CPU: tools/peak/measure_step.py --trl-kto.
 */
export function ktoReferenceLogps(p: LossPlan): { bytes: number; formula: string } {
  const TV = p.tokens * p.vocab;
  const lb = p.logitsBytes;
  if (p.wholeLogSoftmax) {
    // LLaMA-Factory (train/kto/trainer.py): the policy's chosen and rejected fp32 logits (boolean-index copies) are kept
    // for the metrics; the reference's concatenated_forward holds its completions' fp32 logits while its KL batch runs
    // the same pass: fp32 logits, the slice's copy and the log_softmax. Profiled: tools/peak/measure_step.py --lf-kto.
    return { bytes: 20 * TV, formula: 'the policy\'s chosen and rejected fp32 logits (index copies) 4·T·V; the reference\'s completion fp32 logits 4·T·V beside its KL batch\'s fp32 logits, the slice\'s copy and the log_softmax 3 x 4·T·V' };
  }
  const out = p.amp ? 4 : lb;
  const rows = lb === 4 || p.preferenceRowTokens === undefined ? 0 : 2 * out * p.preferenceRowTokens * p.vocab;
  return { bytes: 2 * lb * TV + Math.max(lb * TV, rows),
    formula: `the policy's chosen and rejected logits (index copies) ${lb}·T·V; the reference's completion logits ${lb}·T·V and their index copies ${lb}·T·V${rows > 0 ? ' (or one row\'s log_softmax temporaries)' : ''}` };
}

/**
 * The reference model's no-grad log-probabilities of the same batch: the logits and, with nothing kept for backward,
 * one row's log_softmax at a time (TRL), or one log_softmax over fp32 logits (LLaMA-Factory's get_batch_logps).
 */
export function referenceLogps(p: LossPlan): { bytes: number; formula: string } {
  const TV = p.tokens * p.vocab;
  const lb = p.logitsBytes;
  if (p.chosenNll === 'dpo') {
    // TRL DPO with rpo_alpha: the reference's concatenated_forward computes the chosen half's NLL too (its copy, fp32
    // cast under autocast and log_softmax, without grad), the largest of its temporaries beside its logits.
    const plain = referenceLogps({ ...p, chosenNll: undefined });
    const nll = (lb * TV) / 2 + (p.amp && lb < 4 ? 2 * TV : 0) + ((p.amp ? 4 : lb) * TV) / 2;
    const logits = lb * TV;
    return { bytes: Math.max(plain.bytes, logits + nll), formula: `${plain.formula}, or the logits ${lb}·T·V and the chosen half's NLL (its copy and log_softmax)` };
  }
  if (p.completionShare !== undefined) {
    const TcV = p.completionShare * TV;
    const slice = p.amp ? 4 : lb;
    return { bytes: lb * TV + 2 * slice * TcV, formula: `logits of every position ${lb}·T·V, the completion slice's ${p.amp ? 'fp32 ' : ''}copy and its log_softmax 2 x ${slice}·Tc·V` };
  }
  if (p.loss === 'fused') {
    const f = lossMemory(p);
    return { bytes: f.savedBytes + f.forwardTransientBytes, formula: f.formula };
  }
  if (p.nativeLogSoftmax) return { bytes: 2 * lb * TV, formula: `logits ${lb}·T·V and their log_softmax ${lb}·T·V` };
  if (p.wholeLogSoftmax) {
    // LLaMA-Factory get_batch_loss_metrics: the policy's fp32 logits are still referenced (chosen_logits /
    // rejected_logits, for the metrics) while the reference runs the same pass: its fp32 logits, the slice's copy and
    // the log_softmax.
    return { bytes: 16 * TV, formula: 'the policy\'s fp32 logits, still referenced for the metrics, 4·T·V; the reference\'s fp32 logits, the slice\'s copy and its log_softmax 3 x 4·T·V' };
  }
  if (p.preferenceRowTokens === undefined) return { bytes: 8 * TV, formula: 'fp32 logits 4·T·V and their log_softmax 4·T·V' };
  if (lb === 4) return { bytes: 6 * TV, formula: 'fp32 logits 4·T·V + masked half for the mean logits 2·T·V' };
  const out = p.amp ? 4 : lb;
  const rowTV = p.preferenceRowTokens * p.vocab;
  return { bytes: lb * TV + Math.max(2 * out * rowTV, (lb * TV) / 2), formula: `logits ${lb}·T·V + max(one row's ${out}-byte copy and log_softmax, masked half for the mean logits)` };
}

export function lossMemory(p: LossPlan): LossMemory {
  if (p.distill && p.jsdBeta !== undefined) {
    if (p.loss !== 'fused') return jsdMemory(p, p.jsdBeta);
    // Liger's fused linear JSD (TRL GKD with use_liger_kernel) runs chunk by chunk like its fused cross-entropy: the
    // logits of the student and the teacher never exist whole.
    const f = crossEntropyMemory(p);
    return { ...f, forwardTransientBytes: 2 * f.forwardTransientBytes, formula: `fused linear JSD (Liger): ${f.formula}, for the student's and the teacher's chunk` };
  }
  const ce = crossEntropyMemory(p);
  if (!p.distill) return ce;
  // torchtune ForwardKLLoss, chunk by chunk: softmax(teacher, fp32) is kept by the product with the student's
  // log-probabilities (which need a gradient), log_softmax(student, fp32) keeps its output, masked_fill keeps the bool
  // isinf mask: 9 B per logit until the backward. The teacher's logits (no grad, the model's dtype) are held from its
  // forward through the student's forward to the loss; at the last chunk's masked_fill its product and the filled
  // copy (2 x 4 B per logit of the chunk) exist beside them, where the cross-entropy's chunk upcast is gone. The
  // backward of each chunk: the product's and the log-softmax's gradients (2 x 4 B per logit of the chunk). Profiled
  // on the CPU: tools/peak/measure_step.py --torchtune-kd.
  const TV = p.tokens * p.vocab;
  const c = Math.max(1, p.chunks);
  const up = p.logitsBytes === 4 ? 0 : 4;
  const cc = p.loss === 'chunked' ? c : 1; // the cross-entropy's and the KL's pieces: one chunk, or the whole logits
  return {
    savedBytes: ce.savedBytes + 9 * TV,
    forwardTransientBytes: ce.forwardTransientBytes - (up * TV) / cc + p.logitsBytes * TV + (Math.max(up, 8) * TV) / cc,
    backwardTransientBytes: ce.backwardTransientBytes + (8 * TV) / c,
    formula: `${ce.formula}; forward-KL distillation: teacher softmax 4·T·V + student log-softmax 4·T·V + isinf mask 1·T·V kept, teacher logits ${p.logitsBytes}·T·V held to the loss, backward +8·T·V/${c}`,
  };
}

/**
 * TRL GKDTrainer.generalized_jsd_loss on the student's and the teacher's logits (no cross-entropy): both divided by
 * the temperature, log_softmax in fp32 (autocast), then for 0 < beta < 1 the mixture's logsumexp over the two stacked
 * log-probability tensors and two kl_div terms; beta 0 or 1 is one kl_div. Bytes per logit measured with the profiler
 * on the CPU (tools/peak/measure_jsd.py: the same for 16- and 32-bit logits except the two divided copies): kept for
 * backward 28 / 8 / 12 B (mixture / beta 0 / beta 1), forward high point 52 / 20 / 24 B + the divided copies, loss
 * backward 20 / 8 / 12 B above what is kept. The student's and the teacher's logits are held through the loss.
 */
function jsdMemory(p: LossPlan, beta: number): LossMemory {
  const TV = p.tokens * p.vocab;
  const lb = p.logitsBytes;
  const [kept, peak, back, what] = beta === 0 ? [8, 20, 8, 'forward KL'] : beta === 1 ? [12, 24, 12, 'reverse KL'] : [28, 52, 20, `mixture, beta ${beta}`];
  return {
    savedBytes: kept * TV,
    forwardTransientBytes: (peak - kept + 4 * lb) * TV,
    backwardTransientBytes: back * TV,
    formula: `GKD generalized JSD (${what}): ${kept}·T·V kept (fp32 log-probabilities${beta > 0 && beta < 1 ? ', their stack and the mixture' : ''}); forward +${peak - kept}·T·V temporaries + the student's and teacher's logits and their copies divided by the temperature 4 x ${lb}·T·V; backward +${back}·T·V`,
  };
}

function crossEntropyMemory(p: LossPlan): LossMemory {
  const TV = p.tokens * p.vocab;
  const lb = p.logitsBytes;
  // OnlineDPOTrainer takes its log-probabilities from the model's logits whatever loss kernel the config names.
  if (p.completionShare !== undefined) return onlineDpoLogps(p, TV);
  if (p.labelSmoothing) {
    // transformers trainer_pt_utils.py LabelSmoother: compute_loss keeps the model's logits (outputs) while the smoother
    // makes logits[..., :-1, :].contiguous(), -log_softmax of it (the log_softmax output kept by its backward, the
    // negation by gather's) and an fp32 sum over the classes (a cast copy when the log-probs are 16-bit). Backward: the
    // gather's zero-filled gradient beside the sum's (cast back to 16 bits), then their sum. Profiled on the CPU:
    // tools/peak/measure_step.py --label-smoothing.
    const out = p.amp ? 4 : lb;
    const sumCast = out < 4 ? 4 * TV : 0;
    const saved = 2 * out * TV;
    const forward = Math.max(2 * lb * TV + (p.amp ? 4 * TV : 0) + out * TV, 2 * lb * TV + saved + sumCast);
    return { savedBytes: saved, forwardTransientBytes: forward - saved, backwardTransientBytes: (out < 4 ? 2 : 1) * out * TV,
      formula: `label smoothing (LabelSmoother): log_softmax output and its negation 2 x ${out}·T·V kept; forward: the model's logits and their shifted copy 2 x ${lb}·T·V${sumCast > 0 ? ' + the fp32 sum\'s cast 4·T·V' : ''}; backward: the gather's gradient${out < 4 ? ' and the sum\'s' : ''} ${out < 4 ? 2 : 1} x ${out}·T·V` };
  }
  if (p.unusedLogits) {
    // AutoModelForCausalLMWithValueHead.forward: lm_logits = base_model_output.logits, then .float(); both exist at the
    // end of the forward and are dropped unused, so nothing of their size is kept or has a gradient.
    // Profiled on the CPU: tools/peak/measure_step.py --lf-rm.
    return { savedBytes: 0, forwardTransientBytes: lb * TV + (lb < 4 ? 4 * TV : 0), backwardTransientBytes: 0,
      formula: `logits computed but unused (value head): ${lb}·T·V${lb < 4 ? ' and their fp32 copy 4·T·V' : ''} at the end of the forward; nothing kept` };
  }
  if (p.wholeLogSoftmax && p.loss !== 'fused') {
    // get_batch_logps: .to(float32) (the 16-bit logits freed once cast), then log_softmax over the non-contiguous
    // logits[:, :-1, :], whose kernel copies it; its output is kept for backward. Backward: the gather's and
    // log_softmax's gradients beside the kept output (the slices' zero-filled gradients come after, one at a time).
    // Profiled on the CPU: tools/peak/measure_step.py --lf-dpo.
    return {
      savedBytes: 4 * TV,
      forwardTransientBytes: 8 * TV,
      backwardTransientBytes: 8 * TV,
      formula: 'preference log-probs, one log_softmax over the fp32 logits: output 4·T·V kept; forward: the fp32 logits and the slice\'s copy 2 x 4·T·V; backward: gather and log_softmax gradients 2 x 4·T·V',
    };
  }
  if (p.loss === 'fused') {
    // Liger's fused linear cross-entropy (liger_kernel/ops/fused_linear_cross_entropy.py) computes the gradient during
    // the forward: it allocates the input's gradient (T x h, input dtype) and a fp32 loss per token, both kept for
    // backward, and runs the tokens in chunks of next_pow2(ceil(T / ceil(V / h))), so that one chunk's logits
    // (written over by their gradient in place) are about the size of the input. Cut-cross-entropy (Apple cce, used by
    // Unsloth and Axolotl's plugin) keeps less: its logits never leave on-chip memory.
    const h = p.hidden ?? 4096;
    const chunkTokens = Math.min(p.tokens, 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(p.tokens / Math.ceil(p.vocab / h))))));
    return {
      savedBytes: p.tokens * h * lb + 4 * p.tokens,
      forwardTransientBytes: chunkTokens * p.vocab * lb,
      backwardTransientBytes: 0,
      formula: `fused linear-cross-entropy: input gradient T·h·${lb} B + fp32 loss 4·T kept; one chunk of ${chunkTokens} tokens x V x ${lb} B of logits (chunk = next_pow2(T / ceil(V/h)))`,
    };
  }
  const up = lb === 4 ? 0 : 4; // the .float() copy exists only when logits are 16-bit
  if (p.preferenceRowTokens !== undefined) return preferenceLogps(p, TV);
  if (p.nativeLogSoftmax) {
    // torchtune rlhf.get_batch_log_probs: gather(logits.log_softmax(-1)) on the model's logits, no upcast.
    return { savedBytes: lb * TV, forwardTransientBytes: lb * TV, backwardTransientBytes: 2 * lb * TV,
      formula: `preference log-probs, one log_softmax in the logits' dtype: output ${lb}·T·V kept; logits ${lb}·T·V; backward: gather and log_softmax gradients 2 x ${lb}·T·V` };
  }
  if (p.compile) {
    const c = p.loss === 'chunked' ? Math.max(1, p.chunks) : 1;
    // Inductor fuses the .float() upcast, log-softmax and nll into reductions over the saved logits (forward) and one
    // pointwise kernel that writes the logits' gradient in their own dtype (backward): no fp32 T x V buffer exists.
    return {
      savedBytes: lb * TV + 4 * p.tokens,
      forwardTransientBytes: 0,
      backwardTransientBytes: (lb * TV) / c,
      formula: `compiled CE${c > 1 ? ` (${c} chunks)` : ''}: saved logits ${lb}·T·V + fp32 logsumexp 4·T; backward: gradient of ${c > 1 ? 'one chunk' : 'the logits'} ${lb}·T·V${c > 1 ? `/${c}` : ''} (upcast fused)`,
    };
  }
  if (p.loss === 'chunked') {
    const c = Math.max(1, p.chunks);
    // Saved: fp32 log-softmax of every chunk (4TV). Forward: 16-bit logits chunks (lb*TV) + one fp32 chunk copy.
    // Backward: per chunk, nll grad + log_softmax grad (2 x 4TV/c).
    const oldIn = p.logSoftmaxSavesInput ? 4 * TV : 0;
    return {
      savedBytes: 4 * TV + oldIn,
      forwardTransientBytes: lb * TV + (oldIn > 0 ? 0 : (up * TV) / c),
      backwardTransientBytes: (8 * TV) / c + (lb * TV) / c,
      formula: `chunked CE (${c} chunks): saved 4·T·V (fp32 log-softmax)${oldIn > 0 ? ' + 4·T·V (its fp32 input, PyTorch < 1.11)' : ''}; forward +${lb}·T·V logits${oldIn > 0 ? '' : ` +${up}·T·V/${c}`}; backward +8·T·V/${c}`,
    };
  }
  // Gemma 2/3 soft-capping, tanh(logits / cap) * cap: tanh's backward keeps its output; the divisions and products by a
  // scalar keep nothing (profiled: tools/peak/measure_step.py --gemma2).
  const softcap = p.softcap ? lb * TV : 0;
  const oldIn = p.logSoftmaxSavesInput ? 4 * TV : 0;
  return {
    savedBytes: 4 * TV + softcap + oldIn,
    forwardTransientBytes: lb * TV + (oldIn > 0 ? 0 : up * TV),
    backwardTransientBytes: 8 * TV,
    formula: `full CE: logits ${lb}·T·V, fp32 upcast ${up}·T·V, saved log-softmax 4·T·V${oldIn > 0 ? ' and its fp32 input 4·T·V (PyTorch < 1.11)' : ''}; backward nll grad + log-softmax grad 8·T·V`,
  };
}

/**
 * One decoder layer's forward without grad (generation's prefill, evaluation during training): nothing is saved, so
 * the high point is the layer's input (the caller still holds it), the residual after attention, the norm's output and
 * the larger sub-block's temporaries. MLP: the activation, the up projection and their product (gated), or the two
 * GELU-side tensors; a mixture of experts runs expert by expert on its share of the tokens, beside the routed output
 * and the router's fp32 probabilities. Attention: q, k, v and their rotary copies, the key and value heads repeated for
 * grouped-query attention (eager, or SDPA with a padding mask: transformers repeat_kv), the attention output and, for
 * eager attention, the scores and their fp32 softmax. Checked against the profiler (tools/peak/measure_generation.py).
 */
export function noGradLayerBytes(a: Architecture, tokens: number, seq: number, cb: number, attention: 'eager' | 'sdpa' | 'flash', tp = 1, residualBytes = cb): number {
  const T = tokens;
  const h = a.hidden;
  const held = 2 * T * h * residualBytes + T * h * cb; // layer input, residual after attention (fp32 under autocast over fp32 weights), norm output
  const width = (a.gatedMlp ? 3 : 2) * cb;
  let mlp: number;
  if (a.moe) {
    const perExpert = (T * a.moe.topK) / a.moe.experts;
    mlp = Math.max(perExpert * (a.moe.expertFfn / tp) * width + T * h * cb + T * a.moe.experts * 4, T * (a.moe.sharedExpertFfn / tp) * width);
  } else {
    mlp = T * (a.ffn / tp) * width;
  }
  const nh = a.heads / tp;
  const kv = Math.max(1, a.kvHeads / tp);
  const qkv = T * (nh + 2 * kv) * a.headDim * cb;
  const rotary = a.positions === 'rotary' ? T * (nh + kv) * a.headDim * cb : 0;
  const repeated = attention !== 'flash' && kv < nh ? 2 * T * nh * a.headDim * cb : 0;
  const scores = attention === 'eager' ? (T / Math.max(1, seq)) * nh * seq * seq * (cb + 4) : 0;
  // Gated attention (Qwen3-Next, Qwen3.5): q_proj also gives the output gate, and the gated product is one more tensor.
  const gateOut = a.attnOutputGate ? 2 * T * nh * a.headDim * cb : 0;
  let attn = qkv + rotary + repeated + scores + T * nh * a.headDim * cb + gateOut;
  const mb = a.mamba;
  if (mb) {
    // A Mamba2 layer: the in_proj output, the conv output, the scan output and the fp32 chunk states.
    const d = (mb.heads / tp) * mb.headDim;
    const gn = mb.groups * mb.state;
    const states = (T / Math.max(1, seq)) * Math.ceil(seq / mb.chunk) * (mb.heads / tp) * mb.headDim * mb.state;
    const mixer = T * cb * ((2 * d + 2 * gn + mb.heads / tp) + (d + 2 * gn) + d) + 4 * states;
    // Falcon-H1 runs both mixers in every layer; the others one or the other.
    attn = mb.parallel ? attn + mixer : Math.max(attn, mixer);
  }
  const m1 = a.mamba1;
  if (m1) {
    // A Mamba-1 layer (fused kernels): the in_proj output, the conv output, delta, the scan output, the norms' fp32
    // inputs and the fp32 per-chunk states.
    const I = m1.inner / tp;
    const chunks = (T / Math.max(1, seq)) * Math.ceil(seq / 2048);
    attn = Math.max(attn, T * cb * (2 * I + 3 * I) + 4 * T * (m1.dtRank + 2 * m1.state) + 8 * chunks * I * m1.state);
  }
  const la = a.linearAttention;
  if (la) {
    // A Gated DeltaNet layer: the q, k, v projection and its conv output, z, the normalised q and k, v's contiguous
    // copy, A (64 per token and value head), the kernel's output, and the gated norm's fp32 input and gate.
    const kd = (la.keyHeads / tp) * la.keyDim;
    const vd = (la.valueHeads / tp) * la.valueDim;
    attn = Math.max(attn, T * cb * (2 * (2 * kd + vd) + 2 * kd + 3 * vd + 64 * (la.valueHeads / tp)) + 2 * 4 * T * vd);
  }
  return held + Math.max(mlp, attn);
}
