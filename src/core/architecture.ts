// Turns a Hugging Face config.json (raw fields) into a normalized Architecture and counts its parameters
// exactly, family by family, following each family's modeling_*.py in huggingface/transformers.
// Pure: no I/O. Problems (missing or impossible fields) are returned, never thrown.
import type { HfConfig, Head } from './setup';

export type Family =
  | 'llama' | 'mistral' | 'qwen2' | 'qwen3' | 'gemma' | 'gemma2' | 'phi3' | 'phi' | 'qwen'
  | 'gpt2' | 'gpt_neox' | 'bert' | 'roberta' | 't5' | 'mixtral' | 'qwen2_moe' | 'qwen3_moe' | 'gpt_oss' | 'gemma3'
  | 'deepseek_v3' | 'glm4_moe' | 'llama4' | 'olmo2' | 'glm4' | 'bloom' | 'qwen3_next' | 'granite_hybrid' | 'nemotron_h' | 'falcon_h1' | 'jamba' | 'kimi_linear';

/** One kind of linear layer inside a transformer block, the unit LoRA attaches to. */
export interface LinearModule {
  /** HF module name (q_proj, c_attn, query, wi_0, experts.gate_proj ...). */
  readonly name: string;
  readonly inFeatures: number;
  readonly outFeatures: number;
  readonly bias: boolean;
  /** How many of these exist in the whole model (layers x experts). */
  readonly count: number;
  /** Tokens that pass through one instance per token of input: 1 for dense layers, top_k/E for an expert. */
  readonly tokenFraction: number;
  readonly group: 'attention' | 'mlp' | 'expert' | 'router' | 'cross_attention';
  /**
   * A bare nn.Parameter used in a matmul (gpt-oss experts and router), not an nn.Linear: PEFT's all-linear and
   * bitsandbytes' Linear replacement pass it by.
   */
  readonly parameter?: boolean;
  /**
   * Only in the linear-attention layers ('linear') or only in the full-attention layers ('full') of a hybrid whose two
   * mixers use the same module names for different shapes (Kimi Linear: q_proj, o_proj in KDA and in MLA layers).
   */
  readonly layerKind?: 'linear' | 'full';
}

export interface MoeSpec {
  readonly experts: number;
  readonly topK: number;
  readonly expertFfn: number;
  readonly sharedExpertFfn: number;
  readonly sharedExpertGate: boolean;
  /** How many of the decoder layers are MoE layers (the others are dense). */
  readonly moeLayers: number;
}

/**
 * Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5: modeling_qwen3_next.py Qwen3NextGatedDeltaNet, modular_qwen3_5.py
 * Qwen3_5GatedDeltaNet) on the layers that layer_types marks linear_attention; the others run gated full attention.
 * Keys and queries have `keyHeads` heads of `keyDim`, values `valueHeads` of `valueDim`; a depthwise causal conv1d of
 * `convKernel` taps runs over the concatenated q, k, v channels. Qwen3-Next projects q, k, v, z with one in_proj_qkvz
 * and b, a with in_proj_ba; Qwen3.5 splits them (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a).
 */
export interface LinearAttentionSpec {
  /** How many decoder layers are linear-attention layers. */
  readonly layers: number;
  /** Per decoder layer: true for a linear-attention layer. */
  readonly pattern: readonly boolean[];
  readonly keyHeads: number;
  readonly valueHeads: number;
  readonly keyDim: number;
  readonly valueDim: number;
  readonly convKernel: number;
  readonly splitProjections: boolean;
  /**
   * Kimi Delta Attention (Kimi Linear: modeling_kimi.py KimiDeltaAttention, fla's chunk_kda): q, k, v through their own
   * projections and short convolutions, a per-channel forget gate and an output gate through low-rank pairs
   * (f_a_proj -> f_b_proj, g_a_proj -> g_b_proj, rank = head width), beta from b_proj, as many key as value heads.
   */
  readonly kda?: boolean;
}

/**
 * Mamba2 mixers (IBM Granite 4.0 H: modeling_granitemoehybrid.py GraniteMoeHybridMambaLayer, Bamba's Mamba2 mixer) on
 * the layers layer_types marks "mamba": in_proj to the gate z, x, B, C and dt (2 x inner + 2 x groups x state + heads),
 * a depthwise causal conv1d over x, B and C, dt_bias, A_log and D per head, a gated RMSNorm over the inner width,
 * out_proj. `inner` = heads x headDim.
 */
export interface Mamba2Spec {
  readonly layers: number;
  /** Per decoder layer: true for a Mamba2 layer. */
  readonly pattern: readonly boolean[];
  readonly heads: number;
  readonly headDim: number;
  readonly groups: number;
  readonly state: number;
  readonly convKernel: number;
  readonly chunk: number;
  readonly convBias: boolean;
  /** in_proj's bias (and out_proj's, unless outBias says otherwise). */
  readonly projBias: boolean;
  /** out_proj's bias: Falcon-H1 takes it from projectors_bias, the others from the in_proj flag. */
  readonly outBias: boolean;
  /** Groups the gated norm normalizes over separately (Nemotron-H: n_groups; Granite: the whole inner width). */
  readonly normGroups: number;
  /** The gated RMSNorm before out_proj exists (Falcon-H1: only with mamba_rms_norm; always in the others). */
  readonly gatedNorm: boolean;
  /**
   * Falcon-H1: every layer runs the Mamba2 mixer and attention side by side on the same normed input (their outputs
   * summed), so `pattern` is all true and every layer also has attention.
   */
  readonly parallel?: boolean;
}

/**
 * Mamba-1 mixers (AI21 Jamba: modeling_jamba.py JambaMambaMixer) on the layers that are not attention: in_proj to x
 * and the gate z (2 x inner), a depthwise causal conv1d over x, x_proj to the time step (dtRank) and B, C (state each),
 * RMSNorms over the three (dt_layernorm, b_layernorm, c_layernorm), dt_proj back to the inner width (with a bias the
 * scan adds), A_log (inner x state) and D, out_proj.
 */
export interface Mamba1Spec {
  readonly layers: number;
  /** Per decoder layer: true for a Mamba layer. */
  readonly pattern: readonly boolean[];
  readonly inner: number;
  readonly state: number;
  readonly dtRank: number;
  readonly convKernel: number;
  readonly convBias: boolean;
  readonly projBias: boolean;
  /** The config's use_mamba_kernels (default true): false makes transformers run slow_forward whatever is installed. */
  readonly useKernels: boolean;
}

/**
 * Multi-head latent attention (DeepSeek-V2/V3, Kimi K2, Moonlight): queries through an optional low-rank projection
 * (q_a_proj, its norm, q_b_proj), keys and values from one compressed latent (kv_a_proj_with_mqa, kv_a_layernorm,
 * kv_b_proj) plus a rotary part shared by all heads. Heads are `qkNope + qkRope` wide for q and k, `vHeadDim` for v.
 */
export interface MlaSpec {
  /** 0 when queries come from one q_proj (DeepSeek-V2-Lite, Moonlight). */
  readonly qLoraRank: number;
  readonly kvLoraRank: number;
  readonly qkNope: number;
  readonly qkRope: number;
  readonly vHeadDim: number;
  /** No rotary embedding (Kimi Linear's mla_use_nope): the rope part of q and k is concatenated unrotated. */
  readonly nope?: boolean;
}

export interface Architecture {
  readonly family: Family;
  /** Decoder layers (for T5: encoder + decoder are listed separately). */
  readonly layers: number;
  readonly encoderLayers: number;
  readonly hidden: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  /** Dense MLP width (per projection). */
  readonly ffn: number;
  readonly vocab: number;
  readonly tied: boolean;
  readonly norm: 'rms' | 'layer';
  readonly gatedMlp: boolean;
  readonly qkvBias: boolean;
  readonly outBias: boolean;
  readonly mlpBias: boolean;
  readonly qkNorm: boolean;
  /** ALiBi (BLOOM): a per-head linear bias added to the attention scores, no position embedding. */
  readonly positions: 'rotary' | 'learned' | 'relative' | 'alibi' | 'none';
  readonly maxPositions: number;
  readonly moe?: MoeSpec;
  /** Dropout probabilities used in training (they create saved masks). */
  readonly hiddenDropout: number;
  readonly attentionDropout: number;
  readonly defaultHead: Head;
  readonly finalLogitSoftcap: boolean;
  /** Gemma 2 (and Gemma 3 when configured) soft-caps the attention scores with tanh in eager attention. */
  readonly attnLogitSoftcap: boolean;
  /** BERT/RoBERTa token-type embeddings (2 for BERT, 1 for RoBERTa). */
  readonly typeVocab: number;
  /**
   * Parameters of a vision tower and its projector loaded beside the language model (Gemma 3 4B-27B checkpoints):
   * on the GPU with the weights, idle in text-only training.
   */
  readonly visionParams: number;
  /**
   * Layers whose attention sees only the last `slidingWindow` tokens (Gemma 2 and 3, gpt-oss, or a config's
   * layer_types): a generation cache keeps that many tokens for them. 0 when every layer attends to the whole sequence.
   */
  readonly slidingLayers: number;
  readonly slidingWindow: number;
  /** Multi-head latent attention; `headDim` is then the q/k head width (nope + rope) and `kvHeads` equals `heads`. */
  readonly mla?: MlaSpec;
  /**
   * Linear-attention layers beside the full-attention ones (Qwen3-Next, Qwen3.5). The full-attention layers are then
   * `layers - linearAttention.layers`: only they keep keys and values in a generation cache.
   */
  readonly linearAttention?: LinearAttentionSpec;
  /** Mamba2 layers beside attention layers (Granite 4.0 H); the attention layers are `layers - mamba.layers`. */
  readonly mamba?: Mamba2Spec;
  /** Mamba-1 layers beside attention layers (Jamba); the attention layers are `layers - mamba1.layers`. */
  readonly mamba1?: Mamba1Spec;
  /** Which decoder layers hold the MoE block, when they are not simply the last `moe.moeLayers` (Jamba: every other). */
  readonly moeMask?: readonly boolean[];
  /**
   * Nemotron-H: every layer is one norm and one mixer: Mamba2 ('M'), attention ('*') or a ReLU² MLP ('-')
   * (hybrid_override_pattern). Absent for models whose layers each have a mixer and an MLP.
   */
  readonly blockKinds?: readonly ('M' | '*' | '-' | 'E')[];
  /** Nemotron 3: its MoE layers route in a latent width (moe_latent_size), projected from and back to the hidden width. */
  readonly moeLatent?: number;
  /** Nemotron 3's DeepSeek-V3 routing: expert groups (n_group), groups kept (topk_group), weights normalized (norm_topk_prob). */
  readonly moeRouting?: { readonly groups: number; readonly topkGroups: number; readonly normTopk: boolean };
  /**
   * The full-attention output is gated per channel by sigmoid of a second half of q_proj's output (Qwen3-Next, Qwen3.5:
   * `attn_output * torch.sigmoid(gate)` before o_proj), so q_proj is twice as wide.
   */
  readonly attnOutputGate?: boolean;
  /**
   * Llama 4: which layers are MoE (moe_layers / interleave_moe_layer_step) and which rotate q/k (no_rope_layers; the
   * others are NoPE layers with attention temperature tuning). Its q/k norm (qkL2Norm) has no weight and runs only on
   * the rotary layers.
   */
  readonly layerPattern?: { readonly moe: readonly boolean[]; readonly rope: readonly boolean[]; readonly temperatureTuning: boolean };
  readonly qkL2Norm?: boolean;
  /** Fraction of each head that is rotated (partial_rotary_factor; 1 unless the config says otherwise). */
  readonly partialRotary: number;
  /**
   * Llama 4 loaded with bitsandbytes: transformers swaps Llama4TextExperts for SequentialLlama4TextExperts, one
   * Llama4TextMLP (gate_proj, up_proj, down_proj nn.Linear) per expert, which bitsandbytes quantizes and PEFT can target;
   * every token still runs through every expert (quantizers/base.py MODULES_TO_PATCH_FOR_QUANTIZATION).
   */
  readonly expertsAsLinear?: boolean;
  /**
   * transformers 5 stores the experts of each MoE layer as two 3-D parameters (gate_up_proj E x 2f x h, down_proj
   * E x h x f, decorated with @use_experts_implementation) and the router as a bare weight (MixtralTopKRouter,
   * Qwen3MoeTopKRouter): none of them is an nn.Linear, so bitsandbytes leaves them in the model dtype and PEFT's
   * target_modules passes them by. transformers 4 had one nn.Linear per expert projection. See FUSED_EXPERT_FAMILIES.
   */
  readonly fusedExperts?: boolean;
  /**
   * What the model's own code does whatever the training config asks, for a family trained through its remote code:
   * Kimi Linear's modeling_kimi.py calls each decoder layer itself (gradient_checkpointing_enable() only sets a flag
   * nothing reads) and sets flash_attention_2 in KimiLinearModel.__init__.
   */
  readonly modelCode?: { readonly name: string; readonly file: string; readonly attention: 'flash'; readonly modeled: string };
}

/** Families whose experts transformers 5 fuses into 3-D parameters (gpt-oss and Llama 4 always had them). */
export const FUSED_EXPERT_FAMILIES: ReadonlySet<Family> = new Set<Family>(['mixtral', 'qwen2_moe', 'qwen3_moe', 'deepseek_v3', 'glm4_moe', 'qwen3_next', 'granite_hybrid', 'nemotron_h', 'jamba']);

const sequentialExpertsCache = new WeakMap<Architecture, Architecture>();
const fusedExpertsCache = new WeakMap<Architecture, Architecture>();

function variant(cache: WeakMap<Architecture, Architecture>, a: Architecture, change: Partial<Architecture>): Architecture {
  let out = cache.get(a);
  if (!out) {
    out = { ...a, ...change };
    cache.set(a, out);
  }
  return out;
}

/** The Llama 4 architecture as bitsandbytes loads it (see Architecture.expertsAsLinear); one object per architecture. */
export function withSequentialExperts(a: Architecture): Architecture {
  return variant(sequentialExpertsCache, a, { expertsAsLinear: true });
}

/** The architecture as transformers 5 builds it (see Architecture.fusedExperts); one object per architecture. */
export function withFusedExperts(a: Architecture): Architecture {
  return FUSED_EXPERT_FAMILIES.has(a.family) && !a.fusedExperts ? variant(fusedExpertsCache, a, { fusedExperts: true }) : a;
}

export interface ArchitectureProblem {
  readonly field: string;
  readonly message: string;
}

export type ArchitectureResult =
  | { readonly ok: true; readonly arch: Architecture; readonly problems: readonly ArchitectureProblem[] }
  | { readonly ok: false; readonly problems: readonly ArchitectureProblem[] };

const FAMILY_ALIASES: Record<string, Family> = {
  llama: 'llama', mistral: 'mistral', qwen2: 'qwen2', qwen3: 'qwen3', yi: 'llama', gemma: 'gemma', gemma2: 'gemma2',
  phi3: 'phi3', phi: 'phi', qwen: 'qwen', gpt2: 'gpt2', gpt_neox: 'gpt_neox', bert: 'bert', roberta: 'roberta',
  t5: 't5', mt5: 't5', bloom: 'bloom', mixtral: 'mixtral', qwen2_moe: 'qwen2_moe', qwen3_moe: 'qwen3_moe', smollm3: 'llama', gpt_oss: 'gpt_oss',
  gemma3_text: 'gemma3', gemma3: 'gemma3',
  // DeepSeek-V2 and V3 share the decoder (MLA attention, routed + shared experts, dense first layers); Kimi K2 and
  // Moonlight are DeepSeek-V3 checkpoints (modeling_deepseek_v3.py).
  deepseek_v3: 'deepseek_v3', deepseek_v2: 'deepseek_v3', kimi_k2: 'deepseek_v3',
  // Moonshot Kimi Linear (48B-A3B): Kimi Delta Attention layers (kda_layers) and MLA layers without rotary embedding
  // (full_attn_layers), a dense MLP in the first first_k_dense_replace layers and DeepSeek-V3-style MoE after them
  // (routed experts as one w1/w2/w3 MLP each, shared experts); the trust_remote_code modeling_kimi.py that Axolotl
  // trains with (axolotl/monkeypatch/models/kimi_linear).
  kimi_linear: 'kimi_linear',
  // GLM-4.5 / 4.5-Air / 4.6: grouped-query attention with q/k/v biases, partial rotary and optional per-head q/k norms,
  // then DeepSeek-V3's MoE block after the first dense layers (modeling_glm4_moe.py).
  glm4_moe: 'glm4_moe',
  // GLM-4-0414 (9B, 32B): norms before and after the attention and the MLP, q/k/v biases, a fused gate_up_proj and half
  // of each head rotated with interleaved pairs (modeling_glm4.py).
  glm4: 'glm4',
  // Llama 4 (Scout, Maverick): the text model under text_config of the image-text checkpoints (modeling_llama4.py).
  llama4: 'llama4', llama4_text: 'llama4',
  // Mistral Small 3.1 / 3.2: the Mistral language model under text_config beside a Pixtral vision tower.
  mistral3: 'mistral',
  // OLMo 2 and 3: norms after the attention and the MLP only, q/k RMSNorms over the whole projections
  // (modeling_olmo2.py; OLMo 3 adds sliding-window layers, read from layer_types).
  olmo2: 'olmo2', olmo3: 'olmo2',
  // Qwen2-VL and Qwen2.5-VL: Qwen2 language models (multimodal rotary positions save nothing more) beside a ViT and a
  // patch merger (modeling_qwen2_vl.py, modeling_qwen2_5_vl.py).
  qwen2_vl: 'qwen2', qwen2_5_vl: 'qwen2',
  // Qwen3-VL (dense): a Qwen3 language model; the deepstack features added to the first layers' hidden states keep
  // nothing per layer beyond the image tokens' rows (modeling_qwen3_vl.py).
  qwen3_vl: 'qwen3',
  // Qwen3-VL MoE (30B-A3B, 235B-A22B): a Qwen3-MoE language model whose experts are 3-D parameters in every
  // transformers release (Qwen3VLMoeTextExperts), beside Qwen3-VL's vision tower (modeling_qwen3_vl_moe.py).
  qwen3_vl_moe: 'qwen3_moe',
  // Qwen3-Next and Qwen3.5 (dense and MoE): Gated DeltaNet linear-attention layers with one gated full-attention layer in
  // every full_attention_interval (modeling_qwen3_next.py, modular_qwen3_5.py, modular_qwen3_5_moe.py). Qwen3.5's
  // checkpoints are image-text models: the language model under text_config beside Qwen3-VL's vision tower without its
  // deepstack mergers.
  qwen3_next: 'qwen3_next', qwen3_5: 'qwen3_next', qwen3_5_text: 'qwen3_next', qwen3_5_moe: 'qwen3_next', qwen3_5_moe_text: 'qwen3_next',
  // IBM Granite 4.0 (granitemoehybrid): Mamba2 and attention layers by layer_types, each with a gated shared MLP
  // (input_linear chunked into gate and up, output_linear); the H models use no position embedding.
  granitemoehybrid: 'granite_hybrid',
  // AI21 Jamba (v0.1, 1.5-1.7 Mini and Large): Mamba-1 layers with one attention layer (no position embedding) in every
  // attn_layer_period, and an MoE block (Mixtral's) in every expert_layer_period-th layer (modeling_jamba.py).
  jamba: 'jamba',
  // TII Falcon-H1: in every layer a Mamba2 mixer and Llama attention side by side on the input norm's output, then a
  // SwiGLU MLP; µP multipliers are scalar products (and a non-persistent mup_vector buffer) (modeling_falcon_h1.py).
  falcon_h1: 'falcon_h1',
  // NVIDIA Nemotron-H and Nemotron Nano 2: one norm and one mixer per layer, Mamba2, attention (no position embedding)
  // or a ReLU² MLP, by hybrid_override_pattern (modeling_nemotron_h.py).
  nemotron_h: 'nemotron_h',
  // IBM Granite 3.x: Llama's layers; its embedding, residual, attention and logits multipliers are scalar products
  // that keep nothing for backward (modeling_granite.py), so memory follows Llama.
  granite: 'llama',
};

/**
 * Gemma3TextConfig defaults (transformers models/gemma3/configuration_gemma3.py) for the fields the multimodal
 * checkpoints leave out of their text_config.
 */
const GEMMA3_TEXT_DEFAULTS: Readonly<Record<string, unknown>> = {
  vocab_size: 262_208, num_attention_heads: 8, num_key_value_heads: 4, head_dim: 256, hidden_act: 'gelu_pytorch_tanh', tie_word_embeddings: true,
};

/**
 * SigLIP vision tower (vision_use_head false) and the Gemma 3 multimodal projector: patch embedding (conv 3 x p x p
 * with bias), position embedding ((image/patch)^2 x width), per layer q/k/v/o with biases, two LayerNorms and a
 * two-layer MLP with biases, a post LayerNorm; projector vision width x text width plus an RMSNorm of the vision width
 * (modeling_siglip.py, modeling_gemma3.py Gemma3MultiModalProjector).
 */
function siglipWithProjector(v: HfConfig, textHidden: number): number | undefined {
  const vit = vitEncoder(v);
  if (!vit) return undefined;
  const w = vit.width;
  // Patch convolution with bias and one position per patch; a post LayerNorm; the projector and its RMSNorm.
  return vit.patchEmbedding + w + vit.patches * w + vit.layers * vit.layer + 2 * w + (w * textHidden + w);
}

/**
 * The ViT encoder both SigLIP and Llama 4's vision tower are built on: a patch projection (channels x patch^2 x width)
 * and per layer q/k/v/o with biases, two LayerNorms and a two-layer MLP with biases.
 */
function vitEncoder(v: HfConfig): { width: number; layers: number; patches: number; patchEmbedding: number; layer: number; inner: number } | undefined {
  const w = num(v, 'hidden_size');
  const inner = num(v, 'intermediate_size');
  const layers = num(v, 'num_hidden_layers');
  const image = num(v, 'image_size');
  const patch = num(v, 'patch_size');
  if (!w || !inner || !layers || !image || !patch) return undefined;
  return {
    width: w, layers, inner, patches: (image / patch) ** 2, patchEmbedding: (num(v, 'num_channels') ?? 3) * patch * patch * w,
    layer: 4 * (w * w + w) + 2 * 2 * w + (w * inner + inner) + (inner * w + w),
  };
}
/** Qwen3-VL, dense or MoE: the same vision tower. */
const isQwen3Vl = (modelType: string | undefined): boolean => modelType === 'qwen3_vl' || modelType === 'qwen3_vl_moe';

/**
 * Qwen2.5-VL's vision tower and merger (modeling_qwen2_5_vl.py): a Conv3d patch embedding without bias (channels x
 * temporal_patch x patch^2 x width), per block two RMSNorms, qkv and proj with biases and a SwiGLU MLP with biases;
 * the merger's RMSNorm and two linears with biases (4 x width -> 4 x width -> the language model's width). Qwen2-VL
 * (modeling_qwen2_vl.py): LayerNorms with biases, a fc1 / fc2 MLP of mlp_ratio x width, the merger's LayerNorm.
 */
function qwenVisionParams(v: HfConfig, modelType: string, textHidden: number): number | undefined {
  if (isQwen3Vl(modelType)) return qwen3VisionParams(v, textHidden);
  const v25 = modelType === 'qwen2_5_vl';
  const w = num(v, v25 ? 'hidden_size' : 'embed_dim');
  const depth = num(v, 'depth');
  const inner = v25 ? num(v, 'intermediate_size') : (num(v, 'mlp_ratio') ?? 4) * (w ?? 0);
  if (!w || !depth || !inner) return undefined;
  const out = num(v, v25 ? 'out_hidden_size' : 'hidden_size') ?? textHidden;
  const patch = num(v, 'patch_size') ?? 14;
  const embed = (num(v, 'in_chans', 'in_channels') ?? 3) * (num(v, 'temporal_patch_size') ?? 2) * patch * patch * w;
  const merge = (num(v, 'spatial_merge_size') ?? 2) ** 2 * w;
  const norm = v25 ? w : 2 * w;
  const mlp = v25 ? 2 * (w * inner + inner) + (inner * w + w) : (w * inner + inner) + (inner * w + w);
  const block = 2 * norm + (w * 3 * w + 3 * w) + (w * w + w) + mlp;
  return embed + depth * block + norm + (merge * merge + merge) + (merge * out + out);
}

/**
 * Qwen3-VL's vision tower (modeling_qwen3_vl.py Qwen3VLVisionModel): a Conv3d patch embedding with bias, a learned
 * position table (num_position_embeddings x width), per block two LayerNorms, qkv and proj with biases and a
 * fc1 / fc2 MLP with biases; the merger (LayerNorm of the width, 4w -> 4w -> out) and one deepstack merger per
 * deepstack_visual_indexes entry (LayerNorm of 4w, the same two linears).
 */
function qwen3VisionParams(v: HfConfig, textHidden: number): number | undefined {
  const w = num(v, 'hidden_size');
  const depth = num(v, 'depth');
  const inner = num(v, 'intermediate_size');
  const positions = num(v, 'num_position_embeddings');
  if (!w || !depth || !inner || !positions) return undefined;
  const out = num(v, 'out_hidden_size') ?? textHidden;
  const patch = num(v, 'patch_size') ?? 16;
  const embed = (num(v, 'in_channels') ?? 3) * (num(v, 'temporal_patch_size') ?? 2) * patch * patch * w + w + positions * w;
  const block = 2 * 2 * w + (w * 3 * w + 3 * w) + (w * w + w) + (w * inner + inner) + (inner * w + w);
  const merge = (num(v, 'spatial_merge_size') ?? 2) ** 2 * w;
  const linears = (merge * merge + merge) + (merge * out + out);
  const deepstack = Array.isArray(v.deepstack_visual_indexes) ? v.deepstack_visual_indexes.length : 0;
  return embed + depth * block + (2 * w + linears) + deepstack * (2 * merge + linears);
}

/**
 * Llama 4's vision tower, pixel-shuffle adapter and projector (modeling_llama4.py Llama4VisionModel,
 * Llama4MultiModalProjector): an unfolded patch linear without bias, a class embedding, a position table of
 * (image / patch)^2 + 1 rows, two LayerNorms, per layer q/k/v/o and fc1/fc2 with biases and two LayerNorms; the
 * adapter's fc1 (intermediate_size -> projector_input_dim) and fc2 (projector_output_dim squared) without bias; the
 * projector vision_output_dim -> the text width without bias.
 */
function llama4VisionParams(v: HfConfig, textHidden: number): number | undefined {
  const vit = vitEncoder(v);
  if (!vit) return undefined;
  const w = vit.width;
  const projIn = num(v, 'projector_input_dim') ?? 4096;
  const projOut = num(v, 'projector_output_dim') ?? 4096;
  // Patch linear without bias, a class embedding, positions for the patches and the class token, pre/post LayerNorms.
  const embeddings = vit.patchEmbedding + w + (vit.patches + 1) * w + 2 * 2 * w;
  const adapter = vit.inner * projIn + projOut * projOut;
  return embeddings + vit.layers * vit.layer + adapter + (num(v, 'vision_output_dim') ?? 4096) * textHidden;
}

/**
 * Pixtral's vision tower and Mistral 3's projector (modeling_pixtral.py, modeling_mistral3.py): a patch convolution
 * without bias, an RMSNorm, per layer two RMSNorms, q/k/v/o and a gated MLP without biases; the projector's RMSNorm,
 * the patch merger (spatial_merge_size^2 x width -> width, no bias) and two linears into the language model's width.
 */
function pixtralParams(v: HfConfig, textHidden: number, merge: number, bias: boolean): number | undefined {
  const w = num(v, 'hidden_size');
  const inner = num(v, 'intermediate_size');
  const layers = num(v, 'num_hidden_layers');
  const patch = num(v, 'patch_size');
  if (!w || !inner || !layers || !patch) return undefined;
  const tower = (num(v, 'num_channels') ?? 3) * patch * patch * w + w + layers * (2 * w + 4 * w * w + 3 * w * inner);
  const projector = w + merge * merge * w * w + (w * textHidden + (bias ? textHidden : 0)) + (textHidden * textHidden + (bias ? textHidden : 0));
  return tower + projector;
}

export const SUPPORTED_MODEL_TYPES: readonly string[] = Object.keys(FAMILY_ALIASES);

function num(cfg: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = cfg[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

/** partial_rotary_factor inside rope_parameters (transformers 5 configs) or rope_scaling. */
function ropePartial(cfg: HfConfig): number | undefined {
  for (const k of ['rope_parameters', 'rope_scaling']) {
    const r = cfg[k];
    if (typeof r === 'object' && r !== null && !Array.isArray(r)) {
      const v = (r as HfConfig).partial_rotary_factor;
      if (typeof v === 'number' && v > 0 && v <= 1) return v;
    }
  }
  return undefined;
}

function bool(cfg: HfConfig, key: string): boolean | undefined {
  const v = cfg[key];
  return typeof v === 'boolean' ? v : undefined;
}

function str(cfg: HfConfig, key: string): string | undefined {
  const v = cfg[key];
  return typeof v === 'string' ? v : undefined;
}

const parsedCache = new WeakMap<object, ArchitectureResult>();

/** Reads and checks a config.json; returns the normalized architecture or the fields that are missing. Memoized per config object. */
export function parseArchitecture(cfg: HfConfig): ArchitectureResult {
  const hit = parsedCache.get(cfg);
  if (hit) return hit;
  const r = parseArchitectureUncached(cfg);
  parsedCache.set(cfg, r);
  return r;
}

function parseArchitectureUncached(config: HfConfig): ArchitectureResult {
  const problems: ArchitectureProblem[] = [];
  const modelType = str(config, 'model_type');
  // Gemma 3 4B-27B are image-text models: the language model's fields sit under text_config.
  const nested = modelType === 'gemma3' && typeof config.text_config === 'object' && config.text_config !== null;
  // Qwen2-VL / Qwen2.5-VL: the language model's fields at the top level (older config.json files) or under text_config.
  const qwenVl = modelType === 'qwen2_vl' || modelType === 'qwen2_5_vl' || isQwen3Vl(modelType);
  // Qwen3.5 (dense and MoE): the language model under text_config, Qwen3-VL's vision tower under vision_config.
  const qwen35 = modelType === 'qwen3_5' || modelType === 'qwen3_5_moe';
  const textConfig = typeof config.text_config === 'object' && config.text_config !== null ? config.text_config as HfConfig : undefined;
  const llama4Nested = (modelType === 'llama4' || modelType === 'mistral3') && textConfig !== undefined;
  const cfg: HfConfig = nested ? { ...GEMMA3_TEXT_DEFAULTS, ...(config.text_config as HfConfig), model_type: 'gemma3' }
    : modelType === 'gemma3' || modelType === 'gemma3_text' ? { ...GEMMA3_TEXT_DEFAULTS, ...config }
      : (qwenVl || qwen35) && textConfig ? { ...config, ...textConfig, model_type: modelType }
        : llama4Nested ? { ...textConfig, model_type: modelType } : config;
  if (!modelType) return { ok: false, problems: [{ field: 'model_type', message: 'config has no model_type' }] };
  const family = FAMILY_ALIASES[modelType.toLowerCase()];
  if (!family) {
    return {
      ok: false,
      problems: [{ field: 'model_type', message: `model_type '${modelType}' is not supported (supported: ${SUPPORTED_MODEL_TYPES.join(', ')})` }],
    };
  }
  const need = (value: number | undefined, field: string): number => {
    if (value === undefined || !(value > 0) || !Number.isInteger(value)) {
      problems.push({ field, message: `${field} must be a positive integer in a ${modelType} config` });
      return 1;
    }
    return value;
  };

  // Nemotron-H: the layer list is the pattern (hybrid_override_pattern, or layers_block_type / layer_types); the config's
  // num_hidden_layers is not used (NemotronHConfig).
  let nemotronKinds: Array<'M' | '*' | '-' | 'E'> | undefined;
  if (family === 'nemotron_h') {
    const pat = str(cfg, 'hybrid_override_pattern');
    const list = Array.isArray(cfg.layers_block_type) ? cfg.layers_block_type as unknown[] : Array.isArray(cfg.layer_types) ? cfg.layer_types as unknown[] : undefined;
    const kindOf = (t: unknown): 'M' | '*' | '-' | 'E' | undefined => (t === 'M' || t === 'mamba' || t === 'linear_attention' ? 'M' : t === '*' || t === 'attention' || t === 'full_attention' ? '*'
      : t === '-' || t === 'mlp' ? '-' : t === 'E' || t === 'moe' ? 'E' : undefined);
    const raw = pat !== undefined ? [...pat] : list;
    if (!raw || raw.length === 0) problems.push({ field: 'hybrid_override_pattern', message: 'a nemotron_h config needs hybrid_override_pattern (or layers_block_type)' });
    else {
      const kinds = raw.map(kindOf);
      const bad = raw.filter((_, i) => kinds[i] === undefined);
      if (bad.length > 0) problems.push({ field: 'hybrid_override_pattern', message: `unknown layer kinds ${[...new Set(bad.map(String))].join(', ')} (M mamba, * attention, - MLP, E MoE)` });
      nemotronKinds = kinds.filter((k): k is 'M' | '*' | '-' | 'E' => k !== undefined);
    }
  }
  const isGpt2 = family === 'gpt2';
  const isT5 = family === 't5';
  // BloomConfig: n_layer and n_head (num_hidden_layers / num_attention_heads are their aliases), hidden_size or n_embed.
  const isBloom = family === 'bloom';
  const hidden = need(num(cfg, isGpt2 ? 'n_embd' : isT5 ? 'd_model' : 'hidden_size', isBloom ? 'n_embed' : 'hidden_size'), isGpt2 ? 'n_embd' : isT5 ? 'd_model' : 'hidden_size');
  const layers = nemotronKinds ? Math.max(1, nemotronKinds.length)
    : need(num(cfg, isGpt2 || isBloom ? 'n_layer' : isT5 ? 'num_decoder_layers' : 'num_hidden_layers', 'num_layers', 'num_hidden_layers'), isGpt2 || isBloom ? 'n_layer' : 'num_hidden_layers');
  const encoderLayers = isT5 ? need(num(cfg, 'num_layers'), 'num_layers') : 0;
  const heads = need(num(cfg, isGpt2 || isBloom ? 'n_head' : isT5 ? 'num_heads' : 'num_attention_heads', 'num_attention_heads'), isGpt2 || isBloom ? 'n_head' : 'num_attention_heads');
  // MLA: every head has its own keys and values (num_key_value_heads = heads); q/k heads are nope + rope wide. The
  // config's head_dim is the rotary width there (DeepseekV3Config: head_dim = qk_rope_head_dim).
  let mla: MlaSpec | undefined;
  if (family === 'deepseek_v3' || family === 'kimi_linear') {
    const qLora = num(cfg, 'q_lora_rank');
    mla = {
      qLoraRank: qLora !== undefined && qLora > 0 ? qLora : 0, kvLoraRank: need(num(cfg, 'kv_lora_rank'), 'kv_lora_rank'),
      qkNope: need(num(cfg, 'qk_nope_head_dim'), 'qk_nope_head_dim'), qkRope: need(num(cfg, 'qk_rope_head_dim'), 'qk_rope_head_dim'),
      vHeadDim: need(num(cfg, 'v_head_dim'), 'v_head_dim'),
      ...(family === 'kimi_linear' && bool(cfg, 'mla_use_nope') === true ? { nope: true } : {}),
    };
    // KimiMLAAttention asserts q_lora_rank is None and mla_use_nope (modeling_kimi.py).
    if (family === 'kimi_linear' && mla.qLoraRank > 0) problems.push({ field: 'q_lora_rank', message: 'Kimi Linear\'s MLA layers take q_lora_rank: null (modeling_kimi.py asserts it)' });
  }
  const kvHeads = mla ? heads : num(cfg, 'num_key_value_heads') ?? heads;
  // Qwen3NextConfig / Qwen3_5TextConfig default head_dim to 256, NemotronHConfig to 128, rather than hidden / heads.
  const headDim = mla ? mla.qkNope + mla.qkRope : num(cfg, isT5 ? 'd_kv' : 'head_dim', family === 'nemotron_h' ? 'attention_head_dim' : 'head_dim')
    ?? (family === 'qwen3_next' ? 256 : family === 'nemotron_h' ? 128 : Math.floor(hidden / heads));
  const vocab = need(num(cfg, 'vocab_size'), 'vocab_size');

  let ffn: number;
  if (isGpt2) ffn = num(cfg, 'n_inner') ?? 4 * hidden;
  else if (isT5) ffn = need(num(cfg, 'd_ff'), 'd_ff');
  else if (family === 'qwen') ffn = need(num(cfg, 'intermediate_size'), 'intermediate_size') / 2;
  // Llama 4: intermediate_size is an expert's (and the shared expert's) width, intermediate_size_mlp the dense layers'.
  else if (family === 'llama4') ffn = num(cfg, 'intermediate_size_mlp') ?? 16384;
  else if (isBloom) ffn = 4 * hidden; // BloomMLP: dense_h_to_4h
  // GraniteMoeHybridMLP (shared_mlp) is shared_intermediate_size wide; intermediate_size is an expert's.
  else if (family === 'granite_hybrid') ffn = need(num(cfg, 'shared_intermediate_size'), 'shared_intermediate_size');
  // Nemotron-H: intermediate_size is the ReLU² MLP layers' width; an all-MoE pattern may leave it out.
  else if (family === 'nemotron_h') ffn = need(num(cfg, 'intermediate_size', 'moe_intermediate_size'), 'intermediate_size');
  // Qwen3.5-MoE has no dense layer and no intermediate_size (Qwen3_5MoeTextConfig deletes it).
  else if (family === 'qwen3_next' && num(cfg, 'intermediate_size') === undefined && (num(cfg, 'num_experts') ?? 0) > 0) ffn = need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
  else ffn = need(num(cfg, 'intermediate_size'), 'intermediate_size');

  if (kvHeads <= 0 || heads % kvHeads !== 0) {
    problems.push({ field: 'num_key_value_heads', message: `num_attention_heads (${heads}) must be a multiple of num_key_value_heads (${kvHeads})` });
  }

  const act = (str(cfg, 'hidden_act') ?? str(cfg, 'activation_function') ?? str(cfg, 'hidden_activation') ?? '').toLowerCase();
  const ffProj = (str(cfg, 'feed_forward_proj') ?? '').toLowerCase();
  const gatedMlp = family === 'gpt2' || family === 'gpt_neox' || family === 'bert' || family === 'roberta' || family === 'phi' || isBloom || family === 'nemotron_h'
    ? false
    : isT5 ? ffProj.startsWith('gated') : true;

  const tiedDefault = ['gemma', 'gemma2', 'gemma3', 'gpt2', 'bert', 'roberta', 't5', 'bloom'].includes(family);
  // NemotronHForCausalLM declares no tied weights: its head is separate whatever the config says.
  const tied = family === 'nemotron_h' ? false : bool(cfg, 'tie_word_embeddings') ?? tiedDefault;

  let moe: MoeSpec | undefined;
  if (family === 'mixtral' || family === 'qwen2_moe' || family === 'qwen3_moe' || family === 'gpt_oss') {
    const localExperts = family === 'mixtral' || family === 'gpt_oss';
    const experts = need(num(cfg, 'num_local_experts', 'num_experts'), localExperts ? 'num_local_experts' : 'num_experts');
    const topK = need(num(cfg, 'num_experts_per_tok', 'experts_per_token'), 'num_experts_per_tok');
    // gpt-oss: intermediate_size is the width of one expert (modeling_gpt_oss.py GptOssExperts.expert_dim).
    const expertFfn = localExperts ? ffn : need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
    const sharedExpertFfn = family === 'qwen2_moe' ? (num(cfg, 'shared_expert_intermediate_size') ?? 0) : 0;
    const step = num(cfg, 'decoder_sparse_step') ?? 1;
    const onlyMlp = Array.isArray(cfg['mlp_only_layers']) ? (cfg['mlp_only_layers'] as unknown[]).filter((x) => typeof x === 'number') as number[] : [];
    let moeLayers = 0;
    for (let i = 0; i < layers; i++) {
      if (!onlyMlp.includes(i) && experts > 0 && (i + 1) % step === 0) moeLayers++;
    }
    if (localExperts) moeLayers = layers;
    moe = { experts, topK, expertFfn, sharedExpertFfn, sharedExpertGate: family === 'qwen2_moe' && sharedExpertFfn > 0, moeLayers };
  } else if (family === 'qwen3_next' && (num(cfg, 'num_experts') ?? 0) > 0) {
    // Qwen3NextDecoderLayer: a sparse MoE block where (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers,
    // else a dense MLP of intermediate_size; Qwen3_5MoeDecoderLayer: a sparse MoE block in every layer. The block has
    // routed experts of moe_intermediate_size, a router without bias, one shared expert of
    // shared_expert_intermediate_size and its one-output sigmoid gate.
    const experts = need(num(cfg, 'num_experts'), 'num_experts');
    const everyLayer = modelType === 'qwen3_5_moe' || modelType === 'qwen3_5_moe_text';
    const step = everyLayer ? 1 : num(cfg, 'decoder_sparse_step') ?? 1;
    const onlyMlp = !everyLayer && Array.isArray(cfg['mlp_only_layers']) ? (cfg['mlp_only_layers'] as unknown[]).filter((x) => typeof x === 'number') as number[] : [];
    let moeLayers = 0;
    for (let i = 0; i < layers; i++) if (!onlyMlp.includes(i) && (i + 1) % step === 0) moeLayers++;
    const sharedExpertFfn = num(cfg, 'shared_expert_intermediate_size') ?? 0;
    moe = { experts, topK: need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'), expertFfn: need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size'), sharedExpertFfn, sharedExpertGate: sharedExpertFfn > 0, moeLayers };
  } else if (family === 'kimi_linear' && (num(cfg, 'num_experts', 'num_local_experts', 'n_routed_experts') ?? 0) > 0) {
    // KimiDecoderLayer: KimiSparseMoeBlock where layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0,
    // else KimiMLP of intermediate_size; the shared experts are one KimiMLP of moe_intermediate_size x num_shared_experts.
    const experts = need(num(cfg, 'num_experts', 'num_local_experts', 'n_routed_experts'), 'num_experts');
    const firstDense = num(cfg, 'first_k_dense_replace') ?? 0;
    const freq = num(cfg, 'moe_layer_freq') ?? 1;
    const expertFfn = need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
    let moeLayers = 0;
    for (let i = 0; i < layers; i++) if (i >= firstDense && i % freq === 0) moeLayers++;
    moe = { experts, topK: need(num(cfg, 'num_experts_per_token', 'num_experts_per_tok'), 'num_experts_per_token'), expertFfn, sharedExpertFfn: expertFfn * (num(cfg, 'num_shared_experts', 'n_shared_experts') ?? 0), sharedExpertGate: false, moeLayers };
  } else if (family === 'deepseek_v3' || family === 'glm4_moe') {
    // DeepseekV3DecoderLayer: layers from first_k_dense_replace on are MoE (every moe_layer_freq-th), the first ones a
    // dense MLP of intermediate_size; the shared experts are one MLP of moe_intermediate_size x n_shared_experts.
    // Glm4MoeDecoderLayer: the same rule without moe_layer_freq.
    const experts = need(num(cfg, 'n_routed_experts'), 'n_routed_experts');
    const firstDense = num(cfg, 'first_k_dense_replace') ?? 0;
    const freq = num(cfg, 'moe_layer_freq') ?? 1;
    const expertFfn = need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
    let moeLayers = 0;
    for (let i = 0; i < layers; i++) if (i >= firstDense && i % freq === 0) moeLayers++;
    moe = { experts, topK: need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'), expertFfn, sharedExpertFfn: expertFfn * (num(cfg, 'n_shared_experts') ?? 0), sharedExpertGate: false, moeLayers };
  }

  let layerPattern: Architecture['layerPattern'];
  if (family === 'llama4') {
    // Llama4TextConfig: moe_layers defaults to every interleave_moe_layer_step-th layer (from step - 1); no_rope_layers
    // to 1 (rotary) except every no_rope_layer_interval-th layer (4).
    const experts = need(num(cfg, 'num_local_experts') ?? 16, 'num_local_experts');
    const step = num(cfg, 'interleave_moe_layer_step') ?? 1;
    const listed = Array.isArray(cfg.moe_layers) ? new Set((cfg.moe_layers as unknown[]).filter((x): x is number => typeof x === 'number')) : undefined;
    const noRope = Array.isArray(cfg.no_rope_layers) ? (cfg.no_rope_layers as unknown[]) : undefined;
    const interval = num(cfg, 'no_rope_layer_interval') ?? 4;
    const moeFlags = Array.from({ length: layers }, (_, i) => (listed ? listed.has(i) : step > 0 && i >= step - 1 && (i - (step - 1)) % step === 0));
    const ropeFlags = Array.from({ length: layers }, (_, i) => (noRope ? noRope[i] !== 0 && noRope[i] !== false : (i + 1) % interval !== 0));
    const tuning = cfg.attn_temperature_tuning;
    layerPattern = { moe: moeFlags, rope: ropeFlags, temperatureTuning: tuning === undefined || tuning === null ? true : Boolean(tuning) };
    const expertFfn = need(num(cfg, 'intermediate_size') ?? 8192, 'intermediate_size');
    moe = { experts, topK: need(num(cfg, 'num_experts_per_tok') ?? 1, 'num_experts_per_tok'), expertFfn, sharedExpertFfn: expertFfn, sharedExpertGate: false, moeLayers: moeFlags.filter(Boolean).length };
  }

  const qkvBiasByFamily = family === 'qwen2' || family === 'qwen2_moe' || family === 'qwen' || family === 'gpt2' || family === 'gpt_neox'
    || family === 'bert' || family === 'roberta' || family === 'phi' || isBloom;
  const attentionBias = bool(cfg, 'attention_bias');
  const qkvBias = attentionBias ?? qkvBiasByFamily;
  const outBias = family === 'gpt2' || family === 'gpt_neox' || family === 'bert' || family === 'roberta' || family === 'phi' || isBloom
    ? true
    : family === 'llama' || family === 'mistral' || family === 'qwen3' || family === 'qwen3_moe' || family === 'gpt_oss' || family === 'llama4' || family === 'qwen3_next'
      || family === 'granite_hybrid' || family === 'falcon_h1' ? (attentionBias ?? false) : false;
  const mlpBias = bool(cfg, 'mlp_bias') ?? (family === 'gpt2' || family === 'gpt_neox' || family === 'bert' || family === 'roberta' || family === 'phi' || isBloom);

  const norm: 'rms' | 'layer' = ['gpt2', 'gpt_neox', 'bert', 'roberta', 'phi', 'bloom'].includes(family) ? 'layer' : 'rms';
  // Granite 4.0's position_embedding_type: "nope" (the H models) or "rope".
  const positions: Architecture['positions'] = isGpt2 || family === 'bert' || family === 'roberta' ? 'learned' : isT5 ? 'relative' : isBloom ? 'alibi'
    : (family === 'granite_hybrid' && str(cfg, 'position_embedding_type') !== 'rope') || family === 'nemotron_h' || family === 'jamba' || mla?.nope === true ? 'none' : 'rotary';
  // Kimi Linear's config.json gives model_max_length (1,048,576) and no max_position_embeddings.
  const maxPositions = num(cfg, isGpt2 ? 'n_positions' : 'max_position_embeddings') ?? (family === 'kimi_linear' ? num(cfg, 'model_max_length') : undefined) ?? (isGpt2 ? 1024 : 512);

  const hiddenDropout = num(cfg, isGpt2 ? 'resid_pdrop' : isT5 ? 'dropout_rate' : 'hidden_dropout_prob', 'hidden_dropout')
    ?? (isGpt2 ? 0.1 : family === 'bert' || family === 'roberta' ? 0.1 : isT5 ? 0.1 : 0);
  const attentionDropout = num(cfg, isGpt2 ? 'attn_pdrop' : isT5 ? 'dropout_rate' : 'attention_probs_dropout_prob', 'attention_dropout')
    ?? (isGpt2 ? 0.1 : family === 'bert' || family === 'roberta' ? 0.1 : isT5 ? 0.1 : 0);

  let visionParams = 0;
  if (llama4Nested && typeof config.vision_config === 'object' && config.vision_config !== null) {
    const vc = config.vision_config as HfConfig;
    const v = modelType === 'llama4' ? llama4VisionParams(vc, hidden) : pixtralParams(vc, hidden, num(config, 'spatial_merge_size') ?? 2, bool(config, 'multimodal_projector_bias') ?? false);
    if (v === undefined) problems.push({ field: 'vision_config', message: `a ${modelType} config needs vision_config hidden_size, intermediate_size, num_hidden_layers, image_size and patch_size` });
    else visionParams = v;
  }
  if (qwenVl) {
    const v = typeof config.vision_config === 'object' && config.vision_config !== null ? qwenVisionParams(config.vision_config as HfConfig, modelType!, hidden) : undefined;
    if (v === undefined) problems.push({ field: 'vision_config', message: `a ${modelType} config needs vision_config depth and ${modelType === 'qwen2_vl' ? 'embed_dim' : isQwen3Vl(modelType) ? 'hidden_size, intermediate_size, num_position_embeddings' : 'hidden_size, intermediate_size'}` });
    else visionParams = v;
  }
  if (qwen35 && typeof config.vision_config === 'object' && config.vision_config !== null) {
    // Qwen3_5VisionModel is Qwen3VLVisionModel with its deepstack mergers deleted (modular_qwen3_5.py); the MoE model's
    // tower builds none either, whatever deepstack_visual_indexes says.
    const v = qwen3VisionParams({ ...(config.vision_config as HfConfig), deepstack_visual_indexes: [] }, hidden);
    if (v === undefined) problems.push({ field: 'vision_config', message: `a ${modelType} config needs vision_config depth, hidden_size, intermediate_size and num_position_embeddings` });
    else visionParams = v;
  }
  // Gated DeltaNet layers: layer_types when listed, else every full_attention_interval-th layer (4) is full attention
  // (Qwen3NextConfig). Defaults of the linear-attention fields as in configuration_qwen3_next.py.
  let linearAttention: LinearAttentionSpec | undefined;
  if (family === 'qwen3_next') {
    const listed = Array.isArray(cfg.layer_types) ? (cfg.layer_types as unknown[]) : undefined;
    const interval = num(cfg, 'full_attention_interval') ?? 4;
    const pattern = Array.from({ length: layers }, (_, i) => (listed ? listed[i] !== 'full_attention' : (i + 1) % Math.max(1, interval) !== 0));
    if (listed && listed.length !== layers) problems.push({ field: 'layer_types', message: `layer_types lists ${listed.length} layers, num_hidden_layers is ${layers}` });
    linearAttention = {
      layers: pattern.filter(Boolean).length, pattern,
      keyHeads: need(num(cfg, 'linear_num_key_heads') ?? 16, 'linear_num_key_heads'), valueHeads: need(num(cfg, 'linear_num_value_heads') ?? 32, 'linear_num_value_heads'),
      keyDim: need(num(cfg, 'linear_key_head_dim') ?? 128, 'linear_key_head_dim'), valueDim: need(num(cfg, 'linear_value_head_dim') ?? 128, 'linear_value_head_dim'),
      convKernel: need(num(cfg, 'linear_conv_kernel_dim') ?? 4, 'linear_conv_kernel_dim'),
      splitProjections: modelType !== 'qwen3_next',
    };
    if (linearAttention.valueHeads % linearAttention.keyHeads !== 0) {
      problems.push({ field: 'linear_num_value_heads', message: `linear_num_value_heads (${linearAttention.valueHeads}) must be a multiple of linear_num_key_heads (${linearAttention.keyHeads})` });
    }
  } else if (family === 'kimi_linear') {
    // KimiLinearConfig.linear_attn_config: kda_layers lists the KDA layers (1-based), the others are MLA layers; num_heads
    // heads of head_dim for q, k and v alike; short_conv_kernel_size taps (modeling_kimi.py KimiDeltaAttention).
    const lac = typeof cfg.linear_attn_config === 'object' && cfg.linear_attn_config !== null ? cfg.linear_attn_config as HfConfig : undefined;
    if (!lac) problems.push({ field: 'linear_attn_config', message: 'a kimi_linear config needs linear_attn_config (kda_layers, num_heads, head_dim, short_conv_kernel_size)' });
    else {
      const listed = Array.isArray(lac.kda_layers) ? (lac.kda_layers as unknown[]).filter((x): x is number => typeof x === 'number') : undefined;
      if (!listed) problems.push({ field: 'linear_attn_config.kda_layers', message: 'linear_attn_config needs kda_layers (the 1-based indices of the KDA layers)' });
      const bad = (listed ?? []).filter((x) => !Number.isInteger(x) || x < 1 || x > layers);
      if (bad.length > 0) problems.push({ field: 'linear_attn_config.kda_layers', message: `kda_layers ${bad.join(', ')} are outside 1..${layers} (the indices are 1-based)` });
      const kdaSet = new Set(listed ?? []);
      const pattern = Array.from({ length: layers }, (_, i) => kdaSet.has(i + 1));
      const kh = need(num(lac, 'num_heads'), 'linear_attn_config.num_heads');
      const kdim = need(num(lac, 'head_dim'), 'linear_attn_config.head_dim');
      linearAttention = {
        layers: pattern.filter(Boolean).length, pattern, keyHeads: kh, valueHeads: kh, keyDim: kdim, valueDim: kdim,
        convKernel: need(num(lac, 'short_conv_kernel_size') ?? 4, 'linear_attn_config.short_conv_kernel_size'), splitProjections: true, kda: true,
      };
    }
  }
  // Granite 4.0: layer_types (or layers_block_type) lists "mamba" / "attention", all "mamba" when absent
  // (GraniteMoeHybridConfig). The MoE models (num_local_experts > 0) keep their experts in GraniteMoeParallelExperts,
  // not modeled yet.
  let mamba: Mamba2Spec | undefined;
  if (family === 'granite_hybrid') {
    const experts = num(cfg, 'num_local_experts') ?? 0;
    if (experts > 0) {
      // GraniteMoeHybridMoE in every layer beside the shared MLP: experts of intermediate_size (gate and up fused) in
      // GraniteMoeHybridParallelExperts (3-D weights), a top-k router that is an nn.Linear.
      moe = { experts, topK: need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'), expertFfn: need(num(cfg, 'intermediate_size'), 'intermediate_size'), sharedExpertFfn: 0, sharedExpertGate: false, moeLayers: layers };
    }
    const listed = Array.isArray(cfg.layer_types) ? cfg.layer_types as unknown[] : Array.isArray(cfg.layers_block_type) ? cfg.layers_block_type as unknown[] : undefined;
    if (listed && listed.length !== layers) problems.push({ field: 'layer_types', message: `layer_types lists ${listed.length} layers, num_hidden_layers is ${layers}` });
    const pattern = Array.from({ length: layers }, (_, i) => (listed ? listed[i] !== 'attention' : true));
    const inner = (num(cfg, 'mamba_expand') ?? 2) * hidden;
    const mHeads = need(num(cfg, 'mamba_n_heads') ?? 128, 'mamba_n_heads');
    const headDimM = num(cfg, 'mamba_d_head') ?? inner / mHeads;
    if (headDimM * mHeads !== inner) problems.push({ field: 'mamba_d_head', message: `mamba_n_heads (${mHeads}) x mamba_d_head (${headDimM}) must equal mamba_expand x hidden_size (${inner})` });
    mamba = {
      layers: pattern.filter(Boolean).length, pattern, heads: mHeads, headDim: headDimM,
      groups: need(num(cfg, 'mamba_n_groups') ?? 1, 'mamba_n_groups'), state: need(num(cfg, 'mamba_d_state') ?? 256, 'mamba_d_state'),
      convKernel: need(num(cfg, 'mamba_d_conv') ?? 4, 'mamba_d_conv'), chunk: need(num(cfg, 'mamba_chunk_size') ?? 256, 'mamba_chunk_size'),
      convBias: bool(cfg, 'mamba_conv_bias') ?? true, projBias: bool(cfg, 'mamba_proj_bias') ?? false, normGroups: 1, gatedNorm: true,
      outBias: bool(cfg, 'mamba_proj_bias') ?? false,
    };
  }
  if (family === 'falcon_h1') {
    // FalconH1Config: the mixer's inner width is mamba_d_ssm (1024 when the key is absent, mamba_expand x hidden_size when
    // it is null), mamba_d_head "auto" = inner / mamba_n_heads; the gated norm only with mamba_rms_norm, grouped by
    // mamba_n_groups; in_proj's bias is mamba_proj_bias, out_proj's projectors_bias.
    const dssm = cfg.mamba_d_ssm;
    const inner = dssm === null ? (num(cfg, 'mamba_expand') ?? 2) * hidden : need(num(cfg, 'mamba_d_ssm') ?? 1024, 'mamba_d_ssm');
    const mHeads = need(num(cfg, 'mamba_n_heads') ?? 128, 'mamba_n_heads');
    const headDimM = num(cfg, 'mamba_d_head') ?? inner / mHeads;
    if (headDimM * mHeads !== inner) problems.push({ field: 'mamba_d_head', message: `mamba_n_heads (${mHeads}) x mamba_d_head (${headDimM}) must equal the mixer's inner width mamba_d_ssm (${inner})` });
    const groups = need(num(cfg, 'mamba_n_groups') ?? 1, 'mamba_n_groups');
    mamba = {
      layers, pattern: Array.from({ length: layers }, () => true), heads: mHeads, headDim: headDimM, groups,
      state: need(num(cfg, 'mamba_d_state') ?? 256, 'mamba_d_state'), convKernel: need(num(cfg, 'mamba_d_conv') ?? 4, 'mamba_d_conv'),
      chunk: need(num(cfg, 'mamba_chunk_size') ?? 256, 'mamba_chunk_size'), convBias: bool(cfg, 'mamba_conv_bias') ?? true,
      projBias: bool(cfg, 'mamba_proj_bias') ?? false, outBias: bool(cfg, 'projectors_bias') ?? false,
      normGroups: groups, gatedNorm: bool(cfg, 'mamba_rms_norm') ?? false, parallel: true,
    };
  }
  // Jamba (JambaConfig): layer i is attention when i % attn_layer_period == attn_layer_offset (8, 4), else Mamba-1; it
  // holds the MoE block when num_experts > 1 and i % expert_layer_period == expert_layer_offset (2, 1). Mamba-1 inner
  // width mamba_expand x hidden, dt rank "auto" = ceil(hidden / 16).
  let mamba1: Mamba1Spec | undefined;
  let moeMask: boolean[] | undefined;
  if (family === 'jamba') {
    const period = need(num(cfg, 'attn_layer_period') ?? 8, 'attn_layer_period');
    const offset = num(cfg, 'attn_layer_offset') ?? 4;
    const ePeriod = need(num(cfg, 'expert_layer_period') ?? 2, 'expert_layer_period');
    const eOffset = num(cfg, 'expert_layer_offset') ?? 1;
    const pattern = Array.from({ length: layers }, (_, i) => i % period !== offset);
    const experts = num(cfg, 'num_experts') ?? 16;
    if (experts > 1) {
      moeMask = Array.from({ length: layers }, (_, i) => i % ePeriod === eOffset);
      moe = { experts, topK: need(num(cfg, 'num_experts_per_tok') ?? 2, 'num_experts_per_tok'), expertFfn: ffn, sharedExpertFfn: 0, sharedExpertGate: false, moeLayers: moeMask.filter(Boolean).length };
    }
    const rank = cfg.mamba_dt_rank;
    mamba1 = {
      layers: pattern.filter(Boolean).length, pattern, inner: need(num(cfg, 'mamba_expand') ?? 2, 'mamba_expand') * hidden,
      state: need(num(cfg, 'mamba_d_state') ?? 16, 'mamba_d_state'),
      dtRank: rank === undefined || rank === null || rank === 'auto' ? Math.ceil(hidden / 16) : need(num(cfg, 'mamba_dt_rank'), 'mamba_dt_rank'),
      convKernel: need(num(cfg, 'mamba_d_conv') ?? 4, 'mamba_d_conv'), convBias: bool(cfg, 'mamba_conv_bias') ?? true, projBias: bool(cfg, 'mamba_proj_bias') ?? false,
      useKernels: bool(cfg, 'use_mamba_kernels') ?? true,
    };
  }
  let blockKinds: Array<'M' | '*' | '-' | 'E'> | undefined;
  let moeLatent: number | undefined;
  let moeRouting: Architecture['moeRouting'];
  // Kimi Linear: KimiSparseMoeBlock renormalises the chosen weights when moe_renormalize (default true) and top-k > 1.
  if (family === 'kimi_linear' && moe) moeRouting = { groups: num(cfg, 'num_expert_group') ?? 1, topkGroups: num(cfg, 'topk_group') ?? 1, normTopk: bool(cfg, 'moe_renormalize') ?? true };
  if (nemotronKinds) {
    // NemotronHConfig fields and defaults: mamba_num_heads 128 x mamba_head_dim 64, n_groups 8, ssm_state_size 128,
    // conv_kernel 4 with bias, chunk_size 128, no projection biases; the gated norm is grouped by n_groups.
    blockKinds = nemotronKinds;
    const moeLayers = nemotronKinds.filter((k) => k === 'E').length;
    if (moeLayers > 0) {
      // NemotronHMoE: n_routed_experts non-gated ReLU² experts (3-D up_proj / down_proj), a sigmoid router (a bare weight
      // and an fp32 correction-bias buffer), shared experts of moe_shared_expert_intermediate_size; with moe_latent_size
      // the routed experts work in that width between fc1_latent_proj and fc2_latent_proj.
      const latent = num(cfg, 'moe_latent_size');
      if (latent !== undefined && latent > 0) moeLatent = latent;
      moeRouting = { groups: num(cfg, 'n_group') ?? 1, topkGroups: num(cfg, 'topk_group') ?? 1, normTopk: bool(cfg, 'norm_topk_prob') ?? true };
      moe = {
        experts: need(num(cfg, 'n_routed_experts'), 'n_routed_experts'), topK: need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'),
        expertFfn: need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size'),
        sharedExpertFfn: (num(cfg, 'moe_shared_expert_intermediate_size') ?? 0) * (num(cfg, 'n_shared_experts') ?? 1), sharedExpertGate: false, moeLayers,
      };
    }
    const groups = need(num(cfg, 'n_groups', 'mamba_n_groups') ?? 8, 'n_groups');
    const pattern = blockKinds.map((k) => k === 'M');
    mamba = {
      layers: pattern.filter(Boolean).length, pattern, heads: need(num(cfg, 'mamba_num_heads') ?? 128, 'mamba_num_heads'), headDim: need(num(cfg, 'mamba_head_dim') ?? 64, 'mamba_head_dim'),
      groups, state: need(num(cfg, 'ssm_state_size', 'mamba_state_dim') ?? 128, 'ssm_state_size'), convKernel: need(num(cfg, 'conv_kernel', 'mamba_d_conv') ?? 4, 'conv_kernel'),
      chunk: need(num(cfg, 'chunk_size') ?? 128, 'chunk_size'), convBias: bool(cfg, 'use_conv_bias') ?? bool(cfg, 'mamba_conv_bias') ?? true,
      projBias: bool(cfg, 'use_bias') ?? false, outBias: bool(cfg, 'use_bias') ?? false, normGroups: groups, gatedNorm: true,
    };
  }
  if (nested) {
    const v = typeof config.vision_config === 'object' && config.vision_config !== null ? siglipWithProjector(config.vision_config as HfConfig, hidden) : undefined;
    if (v === undefined) problems.push({ field: 'vision_config', message: 'a gemma3 config needs vision_config hidden_size, intermediate_size, num_hidden_layers, image_size and patch_size' });
    else visionParams = v;
  }
  // Sliding-window layers: listed in layer_types; otherwise Gemma 2 alternates from the first layer, Gemma 3 makes every
  // sliding_window_pattern-th layer global (6 by default), gpt-oss alternates (transformers configuration_*.py).
  const window = num(cfg, 'sliding_window') ?? 0;
  const types = Array.isArray(cfg.layer_types) ? (cfg.layer_types as unknown[]) : undefined;
  let slidingLayers = 0;
  if (window > 0) {
    if (types) slidingLayers = types.filter((t) => t === 'sliding_attention').length;
    else if (family === 'gemma2' || family === 'gpt_oss') slidingLayers = Math.ceil(layers / 2);
    else if (family === 'gemma3') slidingLayers = layers - Math.floor(layers / (num(cfg, 'sliding_window_pattern') ?? 6));
  }
  const arch: Architecture = {
    family, layers, encoderLayers, hidden, heads, kvHeads, headDim, ffn, vocab, tied, norm, gatedMlp,
    qkvBias, outBias, mlpBias,
    qkNorm: family === 'qwen3' || family === 'qwen3_moe' || family === 'qwen3_next' || family === 'gemma3' || family === 'olmo2' || (family === 'glm4_moe' && bool(cfg, 'use_qk_norm') === true),
    positions, maxPositions, moe, hiddenDropout, attentionDropout,
    defaultHead: checkpointHead(cfg) ?? (family === 'bert' || family === 'roberta' ? 'masked_lm' : isT5 ? 'seq2seq_lm' : 'causal_lm'),
    finalLogitSoftcap: (family === 'gemma2' || family === 'gemma3') && num(cfg, 'final_logit_softcapping') !== undefined,
    attnLogitSoftcap: (family === 'gemma2' || family === 'gemma3') && num(cfg, 'attn_logit_softcapping') !== undefined,
    typeVocab: num(cfg, 'type_vocab_size') ?? (family === 'bert' ? 2 : family === 'roberta' ? 1 : 0),
    visionParams,
    slidingLayers: Math.min(layers, slidingLayers),
    slidingWindow: slidingLayers > 0 ? window : 0,
    ...(mla ? { mla } : {}),
    ...(layerPattern ? { layerPattern, qkL2Norm: bool(cfg, 'use_qk_norm') ?? true } : {}),
    partialRotary: num(cfg, 'partial_rotary_factor') ?? ropePartial(cfg) ?? (family === 'glm4' || family === 'glm4_moe' ? 0.5 : family === 'qwen3_next' ? 0.25 : 1),
    ...(linearAttention ? { linearAttention, ...(family === 'qwen3_next' ? { attnOutputGate: true } : {}) } : {}),
    ...(mamba ? { mamba } : {}),
    ...(mamba1 ? { mamba1 } : {}),
    ...(moeMask ? { moeMask } : {}),
    ...(blockKinds ? { blockKinds } : {}),
    ...(moeLatent ? { moeLatent } : {}),
    ...(moeRouting ? { moeRouting } : {}),
    // Qwen3-VL-MoE, Qwen3.5-MoE, Granite 4.0 H (GraniteMoeHybridParallelExperts) and Nemotron 3 (NemotronHExperts) exist
    // only with 3-D experts.
    ...(family === 'kimi_linear' ? { modelCode: KIMI_CODE } : {}),
    ...(modelType === 'qwen3_vl_moe' || ((modelType === 'qwen3_5_moe' || modelType === 'qwen3_5_moe_text' || family === 'granite_hybrid' || family === 'nemotron_h') && moe) ? { fusedExperts: true } : {}),
  };
  // Acts are read for their effect on saved tensors; an unknown activation does not change the byte count.
  void act;
  return problems.length > 0 ? { ok: false, problems } : { ok: true, arch, problems };
}

const KIMI_CODE: Architecture['modelCode'] = {
  name: 'Kimi Linear', file: 'modeling_kimi.py', attention: 'flash',
  modeled: 'Kimi Linear as its remote code and Axolotl\'s training copy of it run (per-expert linear layers, no checkpointing, fla kernels); transformers\' own kimi_linear (5.x, without trust_remote_code) fuses the experts and checkpoints its layers, which is not modeled',
};

/** Decoder layers with a key/value cache: all but the linear-attention, Mamba2 and (Nemotron-H) MLP-only layers. */
export function attentionLayerCount(a: Architecture): number {
  if (a.blockKinds) return a.blockKinds.filter((k) => k === '*').length;
  if (a.mamba?.parallel) return a.layers;
  return a.layers - (a.linearAttention?.layers ?? 0) - (a.mamba?.layers ?? 0) - (a.mamba1?.layers ?? 0);
}

const modulesCache = new WeakMap<Architecture, LinearModule[]>();

/** Linear layers of one decoder block (or encoder block) in HF naming, with their shapes. Memoized per architecture. */
export function linearModules(a: Architecture): LinearModule[] {
  let m = modulesCache.get(a);
  if (!m) {
    m = linearModulesUncached(a);
    modulesCache.set(a, m);
  }
  return m;
}

type AddLinear = (name: string, inF: number, outF: number, bias: boolean, count: number, group: LinearModule['group'], tokenFraction?: number, parameter?: boolean) => void;

/** q/k/v/o nn.Linear projections of grouped-query attention (q/k/v biases per qkvBias, o per outBias). */
function gqaAttention(a: Architecture, add: AddLinear): void {
  const qd = a.heads * a.headDim;
  const kvd = a.kvHeads * a.headDim;
  add('q_proj', a.hidden, qd, a.qkvBias, a.layers, 'attention');
  add('k_proj', a.hidden, kvd, a.qkvBias, a.layers, 'attention');
  add('v_proj', a.hidden, kvd, a.qkvBias, a.layers, 'attention');
  add('o_proj', qd, a.hidden, a.outBias, a.layers, 'attention');
}

/**
 * The routed experts of the MoE layers: one nn.Linear per expert projection (transformers 4), or the two 3-D
 * parameters of transformers 5 (Architecture.fusedExperts), the same parameter count.
 */
function routedExperts(a: Architecture, add: AddLinear, [gate, up, down]: readonly [string, string, string]): void {
  const moe = a.moe!;
  const h = a.hidden;
  const frac = moe.topK / moe.experts;
  const n = moe.moeLayers * moe.experts;
  if (a.fusedExperts) {
    add('experts.gate_up_proj', h, 2 * moe.expertFfn, false, n, 'expert', frac, true);
    add('experts.down_proj', moe.expertFfn, h, false, n, 'expert', frac, true);
    return;
  }
  add(`experts.${gate}`, h, moe.expertFfn, false, n, 'expert', frac);
  add(`experts.${up}`, h, moe.expertFfn, false, n, 'expert', frac);
  add(`experts.${down}`, moe.expertFfn, h, false, n, 'expert', frac);
}

/**
 * DeepSeek-V3's MLPs (modeling_deepseek_v3.py; GLM-4.5 reuses them): a dense gate/up/down MLP in the first layers, then
 * per MoE layer the routed experts, a router that is a bare nn.Parameter (DeepseekV3TopkRouter.weight) and the shared
 * experts as one MLP named shared_experts.
 */
function deepseekMlps(a: Architecture, add: AddLinear, expertNames: readonly [string, string, string] = ['gate_proj', 'up_proj', 'down_proj']): void {
  const h = a.hidden;
  const moe = a.moe!;
  const dense = a.layers - moe.moeLayers;
  add('gate_proj', h, a.ffn, false, dense, 'mlp');
  add('up_proj', h, a.ffn, false, dense, 'mlp');
  add('down_proj', a.ffn, h, false, dense, 'mlp');
  routedExperts(a, add, expertNames);
  add('gate', h, moe.experts, false, moe.moeLayers, 'router', 1, true);
  if (moe.sharedExpertFfn > 0) {
    add('shared_experts.gate_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
    add('shared_experts.up_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
    add('shared_experts.down_proj', moe.sharedExpertFfn, h, false, moe.moeLayers, 'mlp');
  }
}

function linearModulesUncached(a: Architecture): LinearModule[] {
  const h = a.hidden;
  const qd = a.heads * a.headDim;
  const kvd = a.kvHeads * a.headDim;
  const L = a.layers;
  const m: LinearModule[] = [];
  const add: AddLinear = (name, inF, outF, bias, count, group, tokenFraction = 1, parameter = false) => {
    if (count > 0) m.push({ name, inFeatures: inF, outFeatures: outF, bias, count, group, tokenFraction, ...(parameter ? { parameter } : {}) });
  };
  switch (a.family) {
    case 'gpt2':
      add('c_attn', h, 3 * h, true, L, 'attention');
      add('c_proj', h, h, true, L, 'attention');
      add('c_fc', h, a.ffn, true, L, 'mlp');
      add('mlp.c_proj', a.ffn, h, true, L, 'mlp');
      break;
    case 'gpt_neox':
      add('query_key_value', h, 3 * h, a.qkvBias, L, 'attention');
      add('dense', h, h, a.outBias, L, 'attention');
      add('dense_h_to_4h', h, a.ffn, a.mlpBias, L, 'mlp');
      add('dense_4h_to_h', a.ffn, h, a.mlpBias, L, 'mlp');
      break;
    case 'qwen':
      add('c_attn', h, 3 * h, true, L, 'attention');
      add('c_proj', h, h, false, L, 'attention');
      add('w1', h, a.ffn, false, L, 'mlp');
      add('w2', h, a.ffn, false, L, 'mlp');
      add('mlp.c_proj', a.ffn, h, false, L, 'mlp');
      break;
    case 'bert':
    case 'roberta':
      add('query', h, qd, true, L, 'attention');
      add('key', h, qd, true, L, 'attention');
      add('value', h, qd, true, L, 'attention');
      add('attention.output.dense', qd, h, true, L, 'attention');
      add('intermediate.dense', h, a.ffn, true, L, 'mlp');
      add('output.dense', a.ffn, h, true, L, 'mlp');
      break;
    case 't5': {
      const E = a.encoderLayers;
      for (const [n, c, g] of [['q', E + 2 * L, 'attention'], ['k', E + 2 * L, 'attention'], ['v', E + 2 * L, 'attention']] as const) {
        add(n, h, qd, false, c, g);
      }
      add('o', qd, h, false, E + 2 * L, 'attention');
      if (a.gatedMlp) {
        add('wi_0', h, a.ffn, false, E + L, 'mlp');
        add('wi_1', h, a.ffn, false, E + L, 'mlp');
      } else {
        add('wi', h, a.ffn, false, E + L, 'mlp');
      }
      add('wo', a.ffn, h, false, E + L, 'mlp');
      break;
    }
    case 'bloom':
      // BloomAttention: query_key_value (h -> 3h) and dense, BloomMLP: dense_h_to_4h and dense_4h_to_h, all with biases.
      add('query_key_value', h, 3 * qd, true, L, 'attention');
      add('dense', qd, h, true, L, 'attention');
      add('dense_h_to_4h', h, a.ffn, true, L, 'mlp');
      add('dense_4h_to_h', a.ffn, h, true, L, 'mlp');
      break;
    case 'phi':
      add('q_proj', h, qd, true, L, 'attention');
      add('k_proj', h, kvd, true, L, 'attention');
      add('v_proj', h, kvd, true, L, 'attention');
      add('dense', qd, h, true, L, 'attention');
      add('fc1', h, a.ffn, true, L, 'mlp');
      add('fc2', a.ffn, h, true, L, 'mlp');
      break;
    case 'glm4':
      gqaAttention(a, add);
      add('gate_up_proj', h, 2 * a.ffn, false, L, 'mlp');
      add('down_proj', a.ffn, h, false, L, 'mlp');
      break;
    case 'phi3':
      add('qkv_proj', h, qd + 2 * kvd, false, L, 'attention');
      add('o_proj', qd, h, false, L, 'attention');
      add('gate_up_proj', h, 2 * a.ffn, false, L, 'mlp');
      add('down_proj', a.ffn, h, false, L, 'mlp');
      break;
    case 'gpt_oss': {
      // GptOssAttention: q/k/v/o nn.Linear with attention_bias; GptOssExperts: 3-D parameters gate_up_proj (E, h, 2f)
      // with bias (E, 2f) and down_proj (E, f, h) with bias (E, h); GptOssTopKRouter: weight (E, h) and bias (E).
      // The experts and the router are not nn.Linear, so PEFT's all-linear reaches only the attention projections.
      const moe = a.moe!;
      gqaAttention(a, add);
      add('experts.gate_up_proj', h, 2 * moe.expertFfn, true, L * moe.experts, 'expert', moe.topK / moe.experts, true);
      add('experts.down_proj', moe.expertFfn, h, true, L * moe.experts, 'expert', moe.topK / moe.experts, true);
      add('router', h, moe.experts, true, L, 'router', 1, true);
      break;
    }
    case 'deepseek_v3': {
      // DeepseekV3Attention (MLA) and DeepseekV3MoE: the router is a bare nn.Parameter (DeepseekV3TopkRouter.weight),
      // the shared experts one DeepseekV3MLP named shared_experts.
      const mla = a.mla!;
      if (mla.qLoraRank > 0) {
        add('q_a_proj', h, mla.qLoraRank, a.qkvBias, L, 'attention');
        add('q_b_proj', mla.qLoraRank, qd, false, L, 'attention');
      } else {
        add('q_proj', h, qd, false, L, 'attention');
      }
      add('kv_a_proj_with_mqa', h, mla.kvLoraRank + mla.qkRope, a.qkvBias, L, 'attention');
      add('kv_b_proj', mla.kvLoraRank, a.heads * (mla.qkNope + mla.vHeadDim), false, L, 'attention');
      add('o_proj', a.heads * mla.vHeadDim, h, a.outBias, L, 'attention');
      deepseekMlps(a, add);
      break;
    }
    case 'kimi_linear': {
      // modeling_kimi.py: KimiMLAAttention on the full-attention layers (q_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj);
      // KimiDeltaAttention on the KDA layers (q_proj, k_proj, v_proj of heads x head_dim, the forget gate f_a_proj ->
      // f_b_proj and output gate g_a_proj -> g_b_proj of rank head_dim, b_proj to one beta per head, o_proj), all
      // without bias. The MLPs are KimiMLP (gate_proj, up_proj, down_proj) in the dense layers and as shared_experts;
      // the routed experts are KimiBlockSparseMLP (w1 gate, w3 up, w2 down) each; the router KimiMoEGate is a bare weight.
      const mla = a.mla!;
      const la = a.linearAttention;
      const kdaLayers = la?.layers ?? 0;
      const full = L - kdaLayers;
      const addIn = (kind: 'linear' | 'full'): AddLinear => (name, inF, outF, bias, count, group) => {
        if (count > 0) m.push({ name, inFeatures: inF, outFeatures: outF, bias, count, group, tokenFraction: 1, layerKind: kind });
      };
      const addFull = addIn('full');
      addFull('q_proj', h, qd, false, full, 'attention');
      addFull('kv_a_proj_with_mqa', h, mla.kvLoraRank + mla.qkRope, false, full, 'attention');
      addFull('kv_b_proj', mla.kvLoraRank, a.heads * (mla.qkNope + mla.vHeadDim), false, full, 'attention');
      addFull('o_proj', a.heads * mla.vHeadDim, h, false, full, 'attention');
      if (la && kdaLayers > 0) {
        const addKda = addIn('linear');
        const P = la.keyHeads * la.keyDim;
        addKda('q_proj', h, P, false, kdaLayers, 'attention');
        addKda('k_proj', h, P, false, kdaLayers, 'attention');
        addKda('v_proj', h, P, false, kdaLayers, 'attention');
        addKda('f_a_proj', h, la.keyDim, false, kdaLayers, 'attention');
        addKda('f_b_proj', la.keyDim, P, false, kdaLayers, 'attention');
        addKda('b_proj', h, la.keyHeads, false, kdaLayers, 'attention');
        addKda('g_a_proj', h, la.keyDim, false, kdaLayers, 'attention');
        addKda('g_b_proj', la.keyDim, P, false, kdaLayers, 'attention');
        addKda('o_proj', P, h, false, kdaLayers, 'attention');
      }
      if (a.moe) deepseekMlps(a, add, ['w1', 'w3', 'w2']);
      else {
        add('gate_proj', h, a.ffn, false, L, 'mlp');
        add('up_proj', h, a.ffn, false, L, 'mlp');
        add('down_proj', a.ffn, h, false, L, 'mlp');
      }
      break;
    }
    case 'llama4': {
      // Llama4TextAttention q/k/v/o (attention_bias); dense layers Llama4TextMLP of intermediate_size_mlp; MoE layers
      // Llama4TextExperts as 3-D parameters (gate_up_proj E x h x 2f, down_proj E x f x h: not nn.Linear, so PEFT's
      // all-linear leaves them), Llama4Router (an nn.Linear) and the shared expert. transformers runs every token
      // through every expert (a bmm over all E, the tokens scaled by their sigmoid scores, zero off the top-k).
      const moe = a.moe!;
      gqaAttention(a, add);
      const dense = L - moe.moeLayers;
      add('gate_proj', h, a.ffn, false, dense, 'mlp');
      add('up_proj', h, a.ffn, false, dense, 'mlp');
      add('down_proj', a.ffn, h, false, dense, 'mlp');
      if (a.expertsAsLinear) {
        add('experts.gate_proj', h, moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert');
        add('experts.up_proj', h, moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert');
        add('experts.down_proj', moe.expertFfn, h, false, moe.moeLayers * moe.experts, 'expert');
      } else {
        add('experts.gate_up_proj', h, 2 * moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert', 1, true);
        add('experts.down_proj', moe.expertFfn, h, false, moe.moeLayers * moe.experts, 'expert', 1, true);
      }
      add('router', h, moe.experts, false, moe.moeLayers, 'router');
      add('shared_expert.gate_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
      add('shared_expert.up_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
      add('shared_expert.down_proj', moe.sharedExpertFfn, h, false, moe.moeLayers, 'mlp');
      break;
    }
    case 'glm4_moe':
      // Glm4MoeAttention: q/k/v with attention_bias, o_proj without (outBias is false); then DeepSeek-V3's dense and MoE MLPs.
      gqaAttention(a, add);
      deepseekMlps(a, add);
      break;
    case 'nemotron_h': {
      // One mixer per layer: NemotronHMamba2Mixer in_proj / out_proj ('M'), q/k/v/o without bias ('*'), the ReLU² MLP's
      // up_proj / down_proj ('-').
      const mb = a.mamba!;
      const kinds = a.blockKinds!;
      const att = kinds.filter((k) => k === '*').length;
      const mlps = kinds.filter((k) => k === '-').length;
      const inner = mb.heads * mb.headDim;
      add('q_proj', h, qd, false, att, 'attention');
      add('k_proj', h, kvd, false, att, 'attention');
      add('v_proj', h, kvd, false, att, 'attention');
      add('o_proj', qd, h, false, att, 'attention');
      add('in_proj', h, 2 * inner + 2 * mb.groups * mb.state + mb.heads, mb.projBias, mb.layers, 'attention');
      add('out_proj', inner, h, mb.outBias, mb.layers, 'attention');
      add('up_proj', h, a.ffn, a.mlpBias, mlps, 'mlp');
      add('down_proj', a.ffn, h, a.mlpBias, mlps, 'mlp');
      const moe = a.moe;
      if (moe) {
        // Experts as 3-D parameters (non-gated), the router's bare weight, the shared experts and latent projections.
        const d = a.moeLatent ?? h;
        const frac = moe.topK / moe.experts;
        add('experts.up_proj', d, moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert', frac, true);
        add('experts.down_proj', moe.expertFfn, d, false, moe.moeLayers * moe.experts, 'expert', frac, true);
        add('gate', h, moe.experts, false, moe.moeLayers, 'router', 1, true);
        add('shared_experts.up_proj', h, moe.sharedExpertFfn, a.mlpBias, moe.moeLayers, 'mlp');
        add('shared_experts.down_proj', moe.sharedExpertFfn, h, a.mlpBias, moe.moeLayers, 'mlp');
        if (a.moeLatent) {
          add('fc1_latent_proj', h, a.moeLatent, false, moe.moeLayers, 'mlp');
          add('fc2_latent_proj', a.moeLatent, h, false, moe.moeLayers, 'mlp');
        }
      }
      break;
    }
    case 'jamba': {
      // JambaAttention q/k/v/o without bias on the attention layers; the Mamba-1 mixer's in_proj and out_proj
      // (mamba_proj_bias), x_proj (no bias) and dt_proj (with bias) on the others; JambaMLP (gate/up/down) on the dense
      // layers, the router and Mixtral's experts on the MoE layers.
      const m1 = a.mamba1!;
      const att = L - m1.layers;
      add('q_proj', h, qd, false, att, 'attention');
      add('k_proj', h, kvd, false, att, 'attention');
      add('v_proj', h, kvd, false, att, 'attention');
      add('o_proj', qd, h, false, att, 'attention');
      add('in_proj', h, 2 * m1.inner, m1.projBias, m1.layers, 'attention');
      add('x_proj', m1.inner, m1.dtRank + 2 * m1.state, false, m1.layers, 'attention');
      add('dt_proj', m1.dtRank, m1.inner, true, m1.layers, 'attention');
      add('out_proj', m1.inner, h, m1.projBias, m1.layers, 'attention');
      const moe = a.moe;
      const dense = moe ? L - moe.moeLayers : L;
      add('gate_proj', h, a.ffn, false, dense, 'mlp');
      add('up_proj', h, a.ffn, false, dense, 'mlp');
      add('down_proj', a.ffn, h, false, dense, 'mlp');
      if (moe) {
        routedExperts(a, add, ['gate_proj', 'up_proj', 'down_proj']);
        add('router', h, moe.experts, false, moe.moeLayers, 'router');
      }
      break;
    }
    case 'falcon_h1': {
      // FalconH1DecoderLayer: the Mamba2 mixer's in_proj (mamba_proj_bias) and out_proj (projectors_bias), Llama attention
      // (attention_bias on q/k/v and o) and the SwiGLU MLP (mlp_bias), all in every layer.
      const mb = a.mamba!;
      const inner = mb.heads * mb.headDim;
      add('in_proj', h, 2 * inner + 2 * mb.groups * mb.state + mb.heads, mb.projBias, L, 'attention');
      add('out_proj', inner, h, mb.outBias, L, 'attention');
      gqaAttention(a, add);
      add('gate_proj', h, a.ffn, a.mlpBias, L, 'mlp');
      add('up_proj', h, a.ffn, a.mlpBias, L, 'mlp');
      add('down_proj', a.ffn, h, a.mlpBias, L, 'mlp');
      break;
    }
    case 'granite_hybrid': {
      // GraniteMoeHybridAttention q/k/v/o (attention_bias) on the attention layers, the Mamba2 mixer's in_proj and out_proj
      // (mamba_proj_bias) on the others, the shared MLP's input_linear (gate and up) and output_linear everywhere.
      const mb = a.mamba!;
      const full = L - mb.layers;
      const inner = mb.heads * mb.headDim;
      add('q_proj', h, qd, a.qkvBias, full, 'attention');
      add('k_proj', h, kvd, a.qkvBias, full, 'attention');
      add('v_proj', h, kvd, a.qkvBias, full, 'attention');
      add('o_proj', qd, h, a.outBias, full, 'attention');
      add('in_proj', h, 2 * inner + 2 * mb.groups * mb.state + mb.heads, mb.projBias, mb.layers, 'attention');
      add('out_proj', inner, h, mb.outBias, mb.layers, 'attention');
      add('input_linear', h, 2 * a.ffn, false, L, 'mlp');
      add('output_linear', a.ffn, h, false, L, 'mlp');
      const moe = a.moe;
      if (moe) {
        const frac = moe.topK / moe.experts;
        add('block_sparse_moe.input_linear', h, 2 * moe.expertFfn, false, L * moe.experts, 'expert', frac, true);
        add('block_sparse_moe.output_linear', moe.expertFfn, h, false, L * moe.experts, 'expert', frac, true);
        add('block_sparse_moe.router.layer', h, moe.experts, false, L, 'router');
      }
      break;
    }
    default: {
      if (a.linearAttention) {
        // Qwen3NextAttention on the full-attention layers: q_proj gives the queries and their output gate (2 x heads x
        // head_dim). Qwen3NextGatedDeltaNet on the others: q, k, v, z and b, a projections (fused in Qwen3-Next, split
        // in Qwen3.5) and out_proj, all without bias.
        const la = a.linearAttention;
        const full = L - la.layers;
        const kd = la.keyHeads * la.keyDim;
        const vd = la.valueHeads * la.valueDim;
        add('q_proj', h, 2 * qd, a.qkvBias, full, 'attention');
        add('k_proj', h, kvd, a.qkvBias, full, 'attention');
        add('v_proj', h, kvd, a.qkvBias, full, 'attention');
        add('o_proj', qd, h, a.outBias, full, 'attention');
        if (la.splitProjections) {
          add('in_proj_qkv', h, 2 * kd + vd, false, la.layers, 'attention');
          add('in_proj_z', h, vd, false, la.layers, 'attention');
          add('in_proj_b', h, la.valueHeads, false, la.layers, 'attention');
          add('in_proj_a', h, la.valueHeads, false, la.layers, 'attention');
        } else {
          add('in_proj_qkvz', h, 2 * kd + 2 * vd, false, la.layers, 'attention');
          add('in_proj_ba', h, 2 * la.valueHeads, false, la.layers, 'attention');
        }
        add('out_proj', vd, h, false, la.layers, 'attention');
      } else {
        gqaAttention(a, add);
      }
      const moe = a.moe;
      const dense = moe ? L - moe.moeLayers : L;
      add('gate_proj', h, a.ffn, a.mlpBias, dense, 'mlp');
      add('up_proj', h, a.ffn, a.mlpBias, dense, 'mlp');
      add('down_proj', a.ffn, h, a.mlpBias, dense, 'mlp');
      if (moe) {
        routedExperts(a, add, a.family === 'mixtral' ? ['w1', 'w3', 'w2'] : ['gate_proj', 'up_proj', 'down_proj']);
        // transformers 4: an nn.Linear; 5: the TopKRouter's bare weight, used with F.linear.
        add('gate', h, moe.experts, false, moe.moeLayers, 'router', 1, a.fusedExperts === true);
        if (moe.sharedExpertFfn > 0) {
          add('shared_expert.gate_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
          add('shared_expert.up_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
          add('shared_expert.down_proj', moe.sharedExpertFfn, h, false, moe.moeLayers, 'mlp');
          add('shared_expert_gate', h, 1, false, moe.moeLayers, 'router');
        }
      }
      break;
    }
  }
  return m;
}

export interface ParameterCount {
  readonly total: number;
  /** Token (and position) embeddings. */
  readonly embedding: number;
  /** Output projection when not tied (0 when tied), plus any task head. */
  readonly head: number;
  /** All transformer blocks. */
  readonly blocks: number;
  /** One block's parameters (the largest block for MoE / T5 decoder). */
  readonly largestBlock: number;
  /** Parameters inside the linear layers of the blocks (what LoRA / quantization act on). */
  readonly linear: number;
  /** Norms, biases and other small tensors of the blocks. */
  readonly other: number;
  /** A vision tower and projector beside the language model (Architecture.visionParams). */
  readonly vision: number;
}

/** A Mamba2 mixer's parameters outside its two linears: conv1d weight (and bias), dt_bias, A_log, D, the gated norm. */
function mambaExtra(mb: Mamba2Spec): number {
  const convDim = mb.heads * mb.headDim + 2 * mb.groups * mb.state;
  return convDim * mb.convKernel + (mb.convBias ? convDim : 0) + 3 * mb.heads + (mb.gatedNorm ? mb.heads * mb.headDim : 0);
}

/** A Mamba-1 mixer's parameters outside its linears: conv1d weight (and bias), A_log, D, the dt / B / C norms. */
function mamba1Extra(m: Mamba1Spec): number {
  return m.inner * m.convKernel + (m.convBias ? m.inner : 0) + m.inner * m.state + m.inner + m.dtRank + 2 * m.state;
}

const countCache = new WeakMap<Architecture, Map<string, ParameterCount>>();

/**
 * The head a checkpoint was saved with (config.json `architectures`): a sequence classifier (reward models,
 * classification fine-tunes: *ForSequenceClassification) or a masked-LM head; undefined for causal and seq2seq LMs and
 * configs without the field, which take the family's head.
 */
function checkpointHead(cfg: HfConfig): Head | undefined {
  const archs = cfg.architectures;
  const first = Array.isArray(archs) && typeof archs[0] === 'string' ? archs[0] : undefined;
  if (!first) return undefined;
  return /ForSequenceClassification$/.test(first) ? 'seq_cls' : /ForMaskedLM$/.test(first) ? 'masked_lm' : undefined;
}

/** Exact parameter count of the model with the given task head; formulas per family in the comments. Memoized. */
export function countParameters(a: Architecture, head: Head = a.defaultHead, numLabels = 2): ParameterCount {
  let byHead = countCache.get(a);
  if (!byHead) {
    byHead = new Map();
    countCache.set(a, byHead);
  }
  const key = `${head}:${numLabels}`;
  let c = byHead.get(key);
  if (!c) {
    c = countParametersUncached(a, head, numLabels);
    byHead.set(key, c);
  }
  return c;
}

function countParametersUncached(a: Architecture, head: Head, numLabels: number): ParameterCount {
  const h = a.hidden;
  const mods = linearModules(a);
  let linear = 0;
  let linearBias = 0;
  for (const m of mods) {
    linear += m.inFeatures * m.outFeatures * m.count;
    if (m.bias) linearBias += m.outFeatures * m.count;
  }
  // Norm weights (and biases for LayerNorm) per block, as the modeling files declare them.
  const normSize = a.norm === 'layer' ? 2 * h : h;
  let blockNorms: number;
  let finalNorm = normSize;
  let embedding = a.vocab * h;
  let extra = 0;
  switch (a.family) {
    case 'gemma2':
    case 'glm4':
    case 'gemma3':
      blockNorms = 4 * h * a.layers; // input, post_attention, pre_feedforward, post_feedforward
      if (a.qkNorm) extra += 2 * a.headDim * a.layers; // Gemma 3 q_norm, k_norm
      break;
    case 'gpt_neox':
    case 'gpt2':
      blockNorms = 2 * normSize * a.layers;
      if (a.family === 'gpt2') embedding += a.maxPositions * h; // wpe
      break;
    case 'phi':
      blockNorms = normSize * a.layers; // one LayerNorm: attention and MLP run in parallel
      break;
    case 'bloom':
      blockNorms = 2 * normSize * a.layers; // input and post-attention LayerNorms
      embedding += normSize; // word_embeddings_layernorm
      break;
    case 'bert':
    case 'roberta':
      blockNorms = 2 * normSize * a.layers;
      embedding += a.maxPositions * h + a.typeVocab * h + normSize; // position, token type, embedding LayerNorm
      finalNorm = 0;
      break;
    case 't5':
      // Encoder blocks: 2 norms; decoder blocks: 3 norms; relative attention bias (32 buckets x heads) in the first
      // layer of the encoder and of the decoder; final norms of both stacks.
      blockNorms = h * (2 * a.encoderLayers + 3 * a.layers);
      extra += 2 * 32 * a.heads;
      finalNorm = 2 * h;
      break;
    case 'deepseek_v3':
      // input and post-attention norms, q_a_layernorm (with a q LoRA rank) and kv_a_layernorm per layer. The router's
      // e_score_correction_bias is a buffer, not a parameter.
      blockNorms = (2 * h + (a.mla!.qLoraRank > 0 ? a.mla!.qLoraRank : 0) + a.mla!.kvLoraRank) * a.layers;
      break;
    case 'kimi_linear': {
      // Input and post-attention norms in every layer; kv_a_layernorm in the MLA layers; in each KDA layer the three
      // ShortConvolution weights (P x K each, no bias), A_log (one per head), dt_bias (P) and the gated output norm's
      // weight (head_dim); the router's e_score_correction_bias (one per expert) is an nn.Parameter in KimiMoEGate.
      const la = a.linearAttention;
      const kda = la?.layers ?? 0;
      const P = la ? la.keyHeads * la.keyDim : 0;
      blockNorms = 2 * normSize * a.layers + a.mla!.kvLoraRank * (a.layers - kda);
      if (la) extra += kda * (3 * P * la.convKernel + la.keyHeads + P + la.keyDim);
      extra += (a.moe?.experts ?? 0) * (a.moe?.moeLayers ?? 0);
      break;
    }
    case 'olmo2':
      // post_attention and post_feedforward norms; q_norm and k_norm over the whole q and k projections.
      blockNorms = 2 * normSize * a.layers;
      extra += (a.heads + a.kvHeads) * a.headDim * a.layers;
      break;
    case 'nemotron_h':
      // One norm per layer; each Mamba2 layer's conv1d, dt_bias, A_log, D and gated norm.
      blockNorms = normSize * a.layers;
      extra += a.mamba!.layers * mambaExtra(a.mamba!);
      break;
    case 'jamba': {
      // input_layernorm and pre_ff_layernorm; each Mamba-1 layer's depthwise conv1d (with its bias), A_log (inner x state),
      // D, and the dt / B / C RMSNorms (dt_proj's bias is counted with the linears).
      const m1 = a.mamba1!;
      blockNorms = 2 * normSize * a.layers;
      extra += m1.layers * mamba1Extra(m1);
      break;
    }
    case 'falcon_h1':
      // input_layernorm and pre_ff_layernorm; each layer's Mamba2 conv1d, dt_bias, A_log, D (and gated norm with
      // mamba_rms_norm). The µP multipliers are config floats and mup_vector a non-persistent buffer: no parameters.
      blockNorms = 2 * normSize * a.layers;
      extra += a.layers * mambaExtra(a.mamba!);
      break;
    case 'granite_hybrid': {
      // Input and post-attention norms in every layer; in each Mamba2 layer the depthwise conv1d over x, B and C (with its
      // bias), dt_bias, A_log and D per head and the gated norm over the inner width.
      blockNorms = 2 * normSize * a.layers;
      extra += a.mamba!.layers * mambaExtra(a.mamba!);
      break;
    }
    case 'qwen3_next': {
      // Input and post-attention norms in every layer; q_norm and k_norm (head_dim each) in the full-attention layers;
      // in each Gated DeltaNet layer the depthwise conv1d over the q, k, v channels (no bias), dt_bias and A_log per value
      // head and the gated RMSNorm's weight (value head width, shared by the heads).
      const la = a.linearAttention!;
      const convDim = 2 * la.keyHeads * la.keyDim + la.valueHeads * la.valueDim;
      blockNorms = 2 * normSize * a.layers;
      extra += 2 * a.headDim * (a.layers - la.layers) + la.layers * (convDim * la.convKernel + 2 * la.valueHeads + la.valueDim);
      break;
    }
    default:
      blockNorms = 2 * normSize * a.layers;
      if (a.qkNorm) extra += 2 * a.headDim * a.layers;
      if (a.family === 'gpt_oss') extra += a.heads * a.layers; // attention sinks: one learned logit per head
  }
  const blocks = linear + linearBias + blockNorms + extra;

  let headParams = 0;
  switch (head) {
    case 'causal_lm':
    case 'seq2seq_lm':
      headParams = a.tied ? 0 : a.vocab * h;
      if (a.family === 'phi') headParams += a.vocab; // lm_head has a bias
      break;
    case 'masked_lm':
      // BertLMPredictionHead: transform dense h*h + h, LayerNorm 2h, decoder tied to the embedding plus a V bias
      // (BertForMaskedLM builds BertModel without its pooler).
      headParams = a.family === 'bert' || a.family === 'roberta' ? h * h + h + 2 * h + a.vocab : (a.tied ? 0 : a.vocab * h);
      break;
    case 'seq_cls':
      // Pooler (BERT) + classifier; decoder models score with a bias-free linear on the last token.
      headParams = a.family === 'bert' ? h * h + h + h * numLabels + numLabels
        : a.family === 'roberta' ? h * h + h + h * numLabels + numLabels
          : h * numLabels;
      break;
    case 'none':
      headParams = a.family === 'bert' || a.family === 'roberta' ? h * h + h : 0; // BertModel/RobertaModel keep their pooler
      break;
  }
  const total = embedding + blocks + finalNorm + headParams + a.visionParams;
  const perBlockLinear = mods.reduce((s, m) => s + (m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0)) * (m.count / (a.family === 't5' ? (m.group === 'mlp' ? a.encoderLayers + a.layers : a.encoderLayers + 2 * a.layers) : a.layers)), 0);
  // A model whose first layers are dense (DeepSeek) or that mixes dense and MoE layers: its largest block is the
  // larger of the two kinds, not the average.
  const moe = a.moe;
  let largestBlock = a.family === 't5' ? Math.round(perBlockLinear + 3 * h) : Math.round(blocks / a.layers);
  if (moe && moe.moeLayers > 0 && moe.moeLayers < a.layers) {
    const per = (g: (m: LinearModule) => boolean, n: number): number => mods.filter(g).reduce((t, m) => t + m.inFeatures * m.outFeatures * m.count, 0) / n;
    const moeMlp = per((m) => m.group === 'expert' || m.group === 'router' || m.name.startsWith('shared_expert'), moe.moeLayers);
    const denseMlp = per((m) => m.group === 'mlp' && !m.name.startsWith('shared_expert'), a.layers - moe.moeLayers);
    largestBlock = Math.round(blocks / a.layers - (moeMlp * moe.moeLayers + denseMlp * (a.layers - moe.moeLayers)) / a.layers + Math.max(moeMlp, denseMlp));
  }
  const la = a.linearAttention ?? a.mamba ?? a.mamba1;
  if (a.blockKinds) {
    // Nemotron-H: a layer is one norm and one mixer; the largest block is the largest of the three kinds present.
    const sizeOf = (names: string[], extraParams: number): number => mods.filter((m) => names.includes(m.name))
      .reduce((t, m) => t + m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0), 0) + extraParams + h;
    const present = new Set(a.blockKinds);
    const moeBlock = mods.filter((m) => m.group === 'expert' || m.group === 'router' || m.name.startsWith('shared_experts') || m.name.includes('latent_proj'))
      .reduce((t, m) => t + (m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0)) * (m.count / (a.moe?.moeLayers || 1)), 0) + h;
    largestBlock = Math.max(
      present.has('M') ? sizeOf(['in_proj', 'out_proj'], mambaExtra(a.mamba!)) : 0,
      present.has('*') ? sizeOf(['q_proj', 'k_proj', 'v_proj', 'o_proj'], 0) : 0,
      present.has('-') ? sizeOf(['up_proj', 'down_proj'], 0) : 0,
      present.has('E') ? moeBlock : 0,
    );
  } else if (la && la.layers > 0 && la.layers < a.layers) {
    // Linear-attention (or Mamba2) and full-attention layers differ in their attention half: the largest block has the
    // larger one.
    const kda = a.linearAttention?.kda === true;
    const mixerExtra = kda
      ? a.linearAttention!.keyHeads * a.linearAttention!.keyDim * (3 * a.linearAttention!.convKernel + 1) + a.linearAttention!.keyHeads + a.linearAttention!.keyDim
      : a.linearAttention
      ? (2 * a.linearAttention.keyHeads * a.linearAttention.keyDim + a.linearAttention.valueHeads * a.linearAttention.valueDim) * a.linearAttention.convKernel + 2 * a.linearAttention.valueHeads + a.linearAttention.valueDim
      : a.mamba ? mambaExtra(a.mamba) : mamba1Extra(a.mamba1!);
    const isFull = (m: LinearModule): boolean => (kda ? m.layerKind === 'full' : m.name === 'q_proj' || m.name === 'k_proj' || m.name === 'v_proj' || m.name === 'o_proj');
    const isLinear = (m: LinearModule): boolean => (kda ? m.layerKind === 'linear' : m.group === 'attention' && m.count === la.layers && !isFull(m));
    const linearHalf = mods.filter(isLinear).reduce((t, m) => t + m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0), 0) + mixerExtra;
    const fullHalf = mods.filter(isFull).reduce((t, m) => t + m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0), 0) + (a.qkNorm ? 2 * a.headDim : 0)
      + (kda ? a.mla!.kvLoraRank : 0);
    const mean = (linearHalf * la.layers + fullHalf * (a.layers - la.layers)) / a.layers;
    largestBlock = Math.round(largestBlock - mean + Math.max(linearHalf, fullHalf));
  }
  return { total, embedding, head: headParams, blocks: blocks + finalNorm, largestBlock, linear, other: linearBias + blockNorms + extra + finalNorm, vision: a.visionParams };
}
