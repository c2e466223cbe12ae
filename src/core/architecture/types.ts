// The normalized shapes the architecture code produces: a family, its linear modules, MoE / MLA / hybrid-mixer specs,
// the Architecture itself and its parameter count. Types only: no logic, imports only core/setup's Head.
import type { Head } from '../setup';

export type Family =
  | 'llama'
  | 'mistral'
  | 'qwen2'
  | 'qwen3'
  | 'gemma'
  | 'gemma2'
  | 'phi3'
  | 'phi'
  | 'qwen'
  | 'gpt2'
  | 'gpt_neox'
  | 'bert'
  | 'roberta'
  | 'distilbert'
  | 'deberta_v2'
  | 't5'
  | 'bart'
  | 'mbart'
  | 'mixtral'
  | 'qwen2_moe'
  | 'qwen3_moe'
  | 'gpt_oss'
  | 'gemma3'
  | 'deepseek_v3'
  | 'glm4_moe'
  | 'llama4'
  | 'olmo2'
  | 'olmoe'
  | 'glm4'
  | 'bloom'
  | 'qwen3_next'
  | 'granite_hybrid'
  | 'nemotron_h'
  | 'falcon_h1'
  | 'jamba'
  | 'kimi_linear'
  | 'opt'
  | 'gptj'
  | 'gpt_neo'
  | 'falcon'
  | 'gpt_bigcode'
  | 'starcoder2'
  | 'olmo'
  | 'internlm'
  | 'internlm2'
  | 'baichuan'
  | 'chatglm'
  | 'chatglm1'
  | 'stablelm'
  | 'minicpm'
  | 'cohere'
  | 'cohere2'
  | 'nemotron';

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
/**
 * DeBERTa-v2 / v3's disentangled attention (modeling_deberta_v2.py DisentangledSelfAttention): each layer adds to its
 * content scores a content-to-position (c2p) and a position-to-content (p2c) term, read by gather from a query or key
 * times the relative position embeddings (the encoder's rel_embeddings, LayerNorm'd once per forward when norm_rel_ebd
 * says layer_norm). The embeddings are projected by the layer's own query_proj and key_proj (share_att_key) or by
 * pos_query_proj and pos_key_proj. DeBERTa-v2 xlarge / xxlarge add a convolution beside the first layer (ConvLayer).
 */
export interface DebertaSpec {
  /** Rows of rel_embeddings: 2 x position_buckets, else 2 x max_relative_positions (max_position_embeddings if unset). */
  readonly relRows: number;
  readonly relNorm: boolean;
  readonly shareAttKey: boolean;
  readonly c2p: boolean;
  readonly p2c: boolean;
  /** The learned absolute positions are added to the token embeddings (position_biased_input: v2's default, off in v3). */
  readonly positionBiasedInput: boolean;
  /** conv_kernel_size and conv_groups of the ConvLayer beside the first layer, when the config has one. */
  readonly conv?: { readonly kernel: number; readonly groups: number };
}

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

/**
 * PEFT's transformers 5 MoE conversion patterns (peft/utils/transformers_weight_conversion.py `_MOE_TARGET_MODULE_MAPPING`):
 * 'mixtral' maps w1 and w3 to gate_up_proj, w2 to down_proj and the router gate to gate.weight; 'qwen2_moe' maps
 * gate_proj and up_proj to gate_up_proj, down_proj to down_proj and gate to gate.weight.
 */
export type PeftMoePattern = 'mixtral' | 'qwen2_moe';

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
  /**
   * GPT-2 whose MLP activation is one F.gelu kernel (activation_function gelu or gelu_pytorch_tanh, nanoGPT's nn.GELU),
   * which keeps its input for backward, instead of gelu_new written out in Python; T5 whose gated MLP is not
   * gated-gelu (gated-silu: one kernel that keeps its input).
   */
  readonly geluKernel?: true;
  /**
   * The dropout after the MLP's activation (BART's activation_dropout): a mask and a new tensor of the MLP's width,
   * kept for the second linear. Unset: none.
   */
  readonly activationDropout?: number;
  /** The token embeddings are multiplied by sqrt(d_model) (BART's scale_embedding: mBART, Pegasus): a new tensor. */
  readonly scaledEmbedding?: true;
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
  /** DeBERTa-v2 / v3's relative positions and disentangled attention. */
  readonly deberta?: DebertaSpec;
  /**
   * Llama 3.2 Vision (mllama): how many of the layers are cross-attention layers (cross_attention_layers), which read
   * the image's states as keys and values, with per-head q / k RMSNorms and two tanh gates of their own.
   */
  readonly crossAttentionLayers?: number;
  /** Rows of the token embedding beyond the vocabulary the head scores (Mllama's 8 image tokens). */
  readonly embedExtraRows?: number;
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
  readonly layerPattern?: {
    readonly moe: readonly boolean[];
    readonly rope: readonly boolean[];
    readonly temperatureTuning: boolean;
  };
  readonly qkL2Norm?: boolean;
  /** Fraction of each head that is rotated (partial_rotary_factor; 1 unless the config says otherwise). */
  readonly partialRotary: number;
  /**
   * Token embeddings narrower than the hidden size, projected in before the first block and out after the last
   * (OPT-350m: word_embed_proj_dim 512, project_in / project_out without bias); the tied head is this wide too.
   */
  readonly embedWidth?: number;
  /** Whether a norm follows the last block, when the config decides (OPT: do_layer_norm_before); else the family's. */
  readonly finalNorm?: boolean;
  /** false: the norms have no weight or bias (OPT's layer_norm_elementwise_affine: false, OLMo's OlmoLayerNorm). */
  readonly normAffine?: boolean;
  /**
   * Norms in each block when the config decides how many (Falcon: 1 with parallel_attn, 2 for ln_attn and ln_mlp in
   * the new decoder architecture or for a sequential block); else the family's FamilyTraits.normPlacement says.
   */
  readonly normsPerBlock?: number;
  /**
   * FalconAttention's split of query_key_value (modeling_falcon.py _split_heads): the new decoder architecture's kv
   * groups (key and value broadcast to every query head), or the first one's multi-query head or interleaved q/k/v;
   * and whether attention and the MLP run side by side off the block input (parallel_attn).
   */
  readonly falcon?: { readonly newDecoder: boolean; readonly parallel: boolean };
  /**
   * Llama 4 loaded with bitsandbytes: transformers swaps Llama4TextExperts for SequentialLlama4TextExperts, one
   * Llama4TextMLP (gate_proj, up_proj, down_proj nn.Linear) per expert, which bitsandbytes quantizes and PEFT can target;
   * every token still runs through every expert (quantizers/base.py MODULES_TO_PATCH_FOR_QUANTIZATION). gpt-oss loaded
   * in 4 bits by Unsloth: GptOssExpertsBnb4bit's gate_up_projs and down_projs, an nn.Linear with bias per expert, which
   * bitsandbytes quantizes; each runs over its routed tokens (unsloth_zoo temporary_patches/gpt_oss.py).
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
   * The head as LitGPT's model code builds it, where it differs from the config (architecture/litgpt-head.ts): 'copy',
   * a tied embedding copied into a head of its own (tied is then false); 'shared', an untied head tied to the embedding
   * (pretrain's train.tie_embeddings). A given parameter count, the checkpoint's, gains or loses the head's V x h.
   */
  readonly headByCode?: 'copy' | 'shared';
  /**
   * PEFT's transformers 5 MoE conversion for this model_type (see PEFT_MOE_PATTERNS): which 4.x expert and router names
   * PEFT (0.19 on) moves from target_modules onto the fused parameters. Absent: PEFT maps nothing for this model.
   */
  readonly peftMoePattern?: PeftMoePattern;
  /**
   * What the model's own code does whatever the training config asks, for a family trained through its remote code:
   * Kimi Linear's modeling_kimi.py calls each decoder layer itself (gradient_checkpointing_enable() only sets a flag
   * nothing reads) and sets flash_attention_2 in KimiLinearModel.__init__.
   */
  readonly modelCode?: {
    readonly name: string;
    readonly file: string;
    readonly attention: 'flash';
    readonly modeled: string;
  };
}

export interface ArchitectureProblem {
  readonly field: string;
  readonly message: string;
}

export type ArchitectureResult =
  | { readonly ok: true; readonly arch: Architecture; readonly problems: readonly ArchitectureProblem[] }
  | { readonly ok: false; readonly problems: readonly ArchitectureProblem[] };

export interface ParameterCount {
  readonly total: number;
  /** Token (and position) embeddings. */
  readonly embedding: number;
  /** Output projection when not tied (0 when tied), plus any task head. */
  readonly head: number;
  /** All transformer blocks, and the final norm after them. */
  readonly blocks: number;
  /** The final norm's elements (included in `blocks`; in FSDP's root unit, not a layer's). */
  readonly finalNorm: number;
  /** One block's parameters (the largest block for MoE / T5 decoder). */
  readonly largestBlock: number;
  /** Parameters inside the linear layers of the blocks (what LoRA / quantization act on). */
  readonly linear: number;
  /** Norms, biases and other small tensors of the blocks. */
  readonly other: number;
  /** A vision tower and projector beside the language model (Architecture.visionParams). */
  readonly vision: number;
}
