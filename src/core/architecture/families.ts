// What each model family does differently, as data: where its config keeps its sizes, its norms, MLP, biases,
// positions, attention quirks, experts and the kernels that apply to it. parse, modules and count read these rows
// instead of comparing family names; what stays a `case` there is a layout of its own (which modules, which
// mixers). Data only; imports only types. Adding a family: docs/contributing/adding-a-model-family.md.
import type { Attention, Head } from '../setup';
import type { Architecture, Family } from './types';

/** A size every family has: the config keys to read, first found wins, and the field a problem names. */
export interface SizeField {
  readonly field: string;
  readonly keys: readonly string[];
}

/** Where a family's config.json keeps its sizes (GPT-2, BLOOM and T5 predate the names the others share). */
export interface ConfigKeys {
  readonly hidden: SizeField;
  readonly layers: SizeField;
  /** An encoder-decoder's encoder layers (T5's num_layers, BART's encoder_layers); decoder-only families have none. */
  readonly encoderLayers?: SizeField;
  readonly heads: SizeField;
  /** The head width when the config states it; otherwise FamilyTraits.headDimDefault or hidden / heads. */
  readonly headDim: readonly string[];
  readonly maxPositions: readonly string[];
  readonly hiddenDropout: readonly string[];
  readonly attentionDropout: readonly string[];
  /** Where the vocabulary size is (ChatGLM: padded_vocab_size). */
  readonly vocab: readonly string[];
  /** A rotary width in channels, read as a share of the head (GPT-J's rotary_dim). */
  readonly rotaryDim?: readonly string[];
}

/** An attention implementation transformers does not offer for a family, and what it runs instead (eager). */
export interface EagerOnlyAttention {
  readonly replaces: readonly Attention[];
  readonly why: string;
}

export interface FamilyTraits {
  readonly keys: ConfigKeys;
  /** Decoder-only; encoder-only (BERT family: masked-LM head, pooler, token types); encoder-decoder (T5). */
  readonly stack: 'decoder' | 'encoder' | 'encoder-decoder';
  /** The head counted when the config's `architectures` names none. */
  readonly defaultHead: Head;

  // ---- Norms ----
  readonly norm: 'rms' | 'layer';
  /**
   * Where a block's norms sit: 'pre' before attention and before the MLP (two); 'post' after each (two: OLMo 2, and the
   * BERT family's post-LayerNorms); 'sandwich' before and after each (four: Gemma 2 and 3, GLM-4); 'shared' one norm
   * whose output feeds attention and the MLP side by side (Phi-2, GPT-J).
   */
  readonly normPlacement: 'pre' | 'post' | 'sandwich' | 'shared';
  /** The post-norms take the sublayer's output before the residual sum (OLMo 2, GLM-4; Gemma's are modeled after it: same bytes). */
  readonly postNormBeforeResidual: boolean;
  /**
   * RMSNorm as Llama writes it; as Gemma ((1 + weight), in fp32); cast after the weight (gpt-oss, OLMo 2); or as T5
   * (the 16-bit input times the fp32 rsqrt: MiniCPM's rms_layernorm).
   */
  readonly rmsNormStyle: 'llama' | 'gemma' | 'gpt_oss' | 't5';
  /** Norm weights stay fp32 whatever the model dtype (gpt-oss: _keep_in_fp32_modules). */
  readonly fp32NormWeights: boolean;
  /** The norms have a weight (and a LayerNorm a bias); false: OLMo's OlmoLayerNorm has neither. */
  readonly normAffine: boolean;
  /** A LayerNorm has a bias beside its weight (false: Cohere's CohereLayerNorm has a weight only). */
  readonly layerNormBias: boolean;
  /**
   * How the LayerNorm runs: torch's nn.LayerNorm (fp32 under autocast); Cohere's, written out in fp32; Nemotron's
   * LayerNorm1P, F.layer_norm over weight + 1 in the autocast dtype (terms/activations/norms.ts familyLayerNorm).
   */
  readonly layerNormStyle: 'torch' | 'cohere' | 'nemotron';
  /** A LayerNorm on the embeddings (BLOOM's word_embeddings_layernorm, BERT's embeddings.LayerNorm). */
  readonly embeddingNorm: boolean;
  /** A norm after the last block (the BERT family has none: each block ends in its own LayerNorm). */
  readonly finalNorm: boolean;

  // ---- MLP ----
  /** A gated MLP (gate x up); 'feed_forward_proj': as T5's config says (gated-gelu, gated-silu). */
  readonly gatedMlp: boolean | 'feed_forward_proj';
  /**
   * How the gated MLP is written: gate_proj/up_proj, one fused gate_up_proj ('phi3'), Qwen v1's w1/w2, Granite's
   * input_linear, InternLM2's w1 / w3 / w2, ChatGLM's fused dense_h_to_4h.
   */
  readonly gatedMlpStyle: 'llama' | 'phi3' | 'qwen' | 'granite' | 'internlm2' | 'chatglm';

  // ---- Attention ----
  /** Attention and the MLP both read the block's input and their outputs are summed (GPT-NeoX, Phi-2, GPT-J, Falcon). */
  readonly parallelResidual: boolean;
  /** One projection for q, k and v, by its name; absent when they are separate (q_proj, k_proj, v_proj). */
  readonly fusedQkv?: 'c_attn' | 'qkv_proj' | 'query_key_value' | 'wqkv' | 'W_pack';
  /** Multi-head latent attention (DeepSeek-V2/V3, Kimi): a compressed key/value latent, see MlaSpec. */
  readonly mla: boolean;
  /** q_proj also yields a sigmoid gate on the attention output (Qwen3-Next, Qwen3.5). */
  readonly attnOutputGate: boolean;
  /** Bias on q/k/v by default; the config's attention_bias overrides it. */
  readonly qkvBias: boolean;
  /** Bias on the output projection: always, never, or as attention_bias says (default false). */
  readonly outBias: boolean | 'attention_bias';
  /** Bias on the MLP by default; the config's mlp_bias overrides it. */
  readonly mlpBias: boolean;
  /**
   * A config key that switches every linear's bias at once (OPT's enable_bias, Falcon's bias, StarCoder2's use_bias,
   * InternLM2's bias, ChatGLM's add_bias_linear), read after attention_bias / mlp_bias and before the family's defaults.
   */
  readonly biasFlag?: 'enable_bias' | 'bias' | 'use_bias' | 'add_bias_linear';
  /** A config key that switches the attention's biases (q/k/v and output) alone, after attention_bias (InternLM's bias). */
  readonly attentionBiasFlag?: 'bias';
  /** A config key for the q/k/v biases alone, read first (ChatGLM's add_qkv_bias). */
  readonly qkvBiasFlag?: 'add_qkv_bias' | 'use_qkv_bias';
  /** Norms on q and k per head; or when the config's use_qk_norm (GLM-4.5) or qk_layernorm (StableLM 2 12B) says so. */
  readonly qkNorm: boolean | 'use_qk_norm' | 'qk_layernorm';
  /**
   * tanh soft-caps on the final logits and the attention scores, when the config gives them (Gemma 2 and 3); 'default'
   * also when the config leaves them out (Gemma2Config defaults final_logit_softcapping 30.0 and attn_logit_softcapping
   * 50.0, transformers models/gemma2/configuration_gemma2.py; Gemma 3's default to None). A null turns them off.
   */
  readonly softcaps: boolean | 'default';
  /** Eager attention takes its softmax in fp32 (false: in the scores' dtype: GPT-2, GPT-NeoX, BERT, gpt-oss, Llama 4). */
  readonly eagerSoftmaxFp32: boolean;
  /** One learned logit per head in the softmax (gpt-oss attention sinks). */
  readonly attentionSinks: boolean;
  /** Eager attention builds a (batch, 1, seq, seq) mask (false: the causal mask is a buffer or absent: GPT-2, GPT-NeoX, BERT, T5). */
  readonly eagerMask4d: boolean;
  /** Implementations transformers has no path for, replaced by eager attention. */
  readonly eagerOnlyAttention?: EagerOnlyAttention;
  /** from_pretrained accepts flash_attention_2 (false: Llama 4). */
  readonly flashAttention2: boolean;
  /** Sliding-window layers when layer_types does not list them: none, every other one, or all but every n-th (Gemma 3). */
  readonly slidingDefault: 'layer_types' | 'alternate' | 'every-nth-global';

  // ---- Positions ----
  /**
   * 'position_embedding_type': rotary when the config says rope, else none (Granite 4.0 H); 'rotary-or-alibi': ALiBi
   * when the config's alibi is true, else rotary (Falcon).
   */
  readonly positions: Architecture['positions'] | 'position_embedding_type' | 'rotary-or-alibi';
  /** Rows of a learned position table beyond max_position_embeddings (OPT: 2, an offset kept from fairseq). */
  readonly positionOffset: number;
  /** Share of each head rotated when the config does not say (partial_rotary_factor). */
  readonly partialRotary: number;
  /** Rotary pairs interleaved: each layer builds repeat_interleave copies of cos / sin (GLM-4). */
  readonly interleavedRotary: boolean;
  /** Before this transformers release every attention layer kept its own rotary cos / sin tables. */
  readonly ropeTablesPerLayerBefore?: '4.39';

  // ---- Embeddings and head ----
  /** tie_word_embeddings' default; 'never': the head is separate whatever the config says (NemotronHForCausalLM). */
  readonly tiedDefault: boolean | 'never';
  /** Token-type embeddings when type_vocab_size is absent (BERT 2, RoBERTa 1). */
  readonly typeVocabDefault: number;
  /** lm_head has a bias (Phi-2). */
  readonly lmHeadBias: boolean;

  // ---- Defaults of fields a config may leave out ----
  /** head_dim when absent (Qwen3-Next 256, Nemotron-H 128); undefined: hidden / heads. */
  readonly headDimDefault?: number;
  readonly maxPositionsDefault: number;
  /** Hidden and attention dropout when the config gives none. */
  readonly dropoutDefault: number;
  /** Attention dropout when the config gives none, where it differs from the hidden one (OPT: 0). */
  readonly attentionDropoutDefault?: number;

  // ---- Experts ----
  /** Which MoE block the family's modeling file runs ('none': no MoE). */
  readonly moeBlock: 'none' | 'mixtral' | 'jamba' | 'deepseek' | 'kimi' | 'gpt_oss' | 'llama4' | 'granite' | 'nemotron';
  /** A routed expert's gate, up and down projections (Mixtral and Kimi: w1, w3, w2). */
  readonly expertNames: readonly [gate: string, up: string, down: string];
  /**
   * How transformers stores the routed experts: one nn.Linear per expert projection ('never'); fused into two 3-D
   * parameters from transformers 5 ('from-5.0'); only ever fused, same layout ('only': Granite 4.0 H, Nemotron 3);
   * the family's own 3-D parameters in every release ('own': gpt-oss, Llama 4).
   */
  readonly fusedExperts: 'never' | 'from-5.0' | 'only' | 'own';
  /** bitsandbytes swaps the 3-D experts for one MLP of nn.Linear per expert (Llama 4: SequentialLlama4TextExperts). */
  readonly sequentialExpertsUnderBnb: boolean;
  /** Every token runs through every expert, zero-weighted off its top-k (Llama 4 in transformers). */
  readonly expertsRunAllTokens: boolean;
  /** fp32 routing weights make the residual stream fp32 from the first MoE layer on (Kimi Linear). */
  readonly fp32MoeResidual: boolean;

  // ---- Kernels and code paths ----
  /** The Mamba2 mixer takes the split kernels with a cache or a padded batch (Nemotron-H keeps its cache in training). */
  readonly mambaSplitKernels: boolean;
  /** Unsloth's fused LoRA autograd functions replace the block's LoRA linears (Llama, Mistral, Qwen2, Qwen3). */
  readonly unslothFastPath: boolean;
  /** The family is trained through its own remote code, which fixes checkpointing and attention (Kimi Linear). */
  readonly modelCode?: Architecture['modelCode'];
  /**
   * The causal-LM loss of the family's own remote code, whatever transformers release loads it: 'own' where its shifts
   * and upcasts differ from transformers' and are not modeled (Qwen-1, InternLM2, Baichuan, ChatGLM2 / 3); the release
   * whose loss it copies (MiniCPM's modeling_minicpm.py is 4.36's Llama code: `logits = logits.float()` in its forward,
   * then the shifted contiguous slice; ChatGLM-6B's ChatGLMForConditionalGeneration does the same after a
   * `permute(1, 0, 2).contiguous()` of the 16-bit logits that frees the first copy at once, and its cast of the fp32
   * logits back to 16 bits for the output, 2·T·V at the end of the forward, is not modeled).
   */
  readonly remoteCodeLoss?: 'own' | '4.36.0';
  /**
   * The family's remote code builds its weights in a dtype of its own, not torch's default: a from_pretrained without
   * a dtype loads the checkpoint's 16 bits under transformers 4 too (why, with the source).
   */
  readonly ownWeightDtype?: string;
  /**
   * Before this transformers release (major, minor) the family's causal-LM class computed its own loss as
   * GPT2LMHeadModel does: `shift_logits = lm_logits[..., :-1, :].contiguous()` on the 16-bit logits, then
   * CrossEntropyLoss, with no `.float()` (which Llama-style classes had in their forward until 4.46, Llama's from 4.31,
   * and ForCausalLMLoss has since). Every class wrote its own loss before 4.46, whose refactor (huggingface/transformers
   * #34191) brought self.loss_function: GPT-2, GPT-NeoX, BLOOM, OPT and Falcon wrote this one (4.46 is where they are
   * known to run it until). GPTBigCode kept it through 4.48 at least: fms-acceleration's SantaCoder peaks are the same
   * bytes under 4.45.2 and 4.48.1 while Mistral's moved with 4.46 (test/published/measured-collected); 4.57 calls
   * self.loss_function.
   */
  readonly ownHalfLossBefore?: readonly [number, number];
}

/** The field names most families share (LlamaConfig and its descendants). */
const HF_KEYS: ConfigKeys = {
  hidden: { field: 'hidden_size', keys: ['hidden_size'] },
  layers: { field: 'num_hidden_layers', keys: ['num_hidden_layers', 'num_layers'] },
  heads: { field: 'num_attention_heads', keys: ['num_attention_heads'] },
  headDim: ['head_dim'],
  maxPositions: ['max_position_embeddings'],
  hiddenDropout: ['hidden_dropout_prob', 'hidden_dropout'],
  attentionDropout: ['attention_probs_dropout_prob', 'attention_dropout'],
  vocab: ['vocab_size'],
};

/** GPT2Config: n_embd, n_layer, n_head, n_positions, resid_pdrop, attn_pdrop. */
const GPT2_KEYS: ConfigKeys = {
  ...HF_KEYS,
  hidden: { field: 'n_embd', keys: ['n_embd', 'hidden_size'] },
  layers: { field: 'n_layer', keys: ['n_layer', 'num_layers', 'num_hidden_layers'] },
  heads: { field: 'n_head', keys: ['n_head', 'num_attention_heads'] },
  maxPositions: ['n_positions'],
  hiddenDropout: ['resid_pdrop', 'hidden_dropout'],
  attentionDropout: ['attn_pdrop', 'attention_dropout'],
};

/** DistilBertConfig: dim, n_layers, n_heads, hidden_dim (the FFN's width), dropout, attention_dropout. */
const DISTILBERT_KEYS: ConfigKeys = {
  ...HF_KEYS,
  hidden: { field: 'dim', keys: ['dim', 'hidden_size'] },
  layers: { field: 'n_layers', keys: ['n_layers', 'num_hidden_layers'] },
  heads: { field: 'n_heads', keys: ['n_heads', 'num_attention_heads'] },
  hiddenDropout: ['dropout'],
  attentionDropout: ['attention_dropout'],
};

/** BloomConfig: n_layer and n_head (num_hidden_layers / num_attention_heads are their aliases), hidden_size or n_embed. */
const BLOOM_KEYS: ConfigKeys = {
  ...HF_KEYS,
  hidden: { field: 'hidden_size', keys: ['hidden_size', 'n_embed'] },
  layers: { field: 'n_layer', keys: ['n_layer', 'num_layers', 'num_hidden_layers'] },
  heads: { field: 'n_head', keys: ['n_head', 'num_attention_heads'] },
};

/** T5Config: d_model, num_decoder_layers (num_layers is the encoder's, and the decoder's when absent), num_heads, d_kv. */
const T5_KEYS: ConfigKeys = {
  ...HF_KEYS,
  hidden: { field: 'd_model', keys: ['d_model', 'hidden_size'] },
  layers: { field: 'num_hidden_layers', keys: ['num_decoder_layers', 'num_layers', 'num_hidden_layers'] },
  encoderLayers: { field: 'num_layers', keys: ['num_layers'] },
  heads: { field: 'num_attention_heads', keys: ['num_heads', 'num_attention_heads'] },
  headDim: ['d_kv', 'head_dim'],
  // The original T5 configs write n_positions (512), the length it was trained at; its positions are relative.
  maxPositions: ['n_positions', 'max_position_embeddings'],
  hiddenDropout: ['dropout_rate', 'hidden_dropout'],
  attentionDropout: ['dropout_rate', 'attention_dropout'],
};

/**
 * BartConfig / MBartConfig: d_model, encoder_layers and decoder_layers, decoder_attention_heads (the encoder's are the
 * same in every published checkpoint), dropout, attention_dropout.
 */
const BART_KEYS: ConfigKeys = {
  ...HF_KEYS,
  hidden: { field: 'd_model', keys: ['d_model', 'hidden_size'] },
  layers: { field: 'decoder_layers', keys: ['decoder_layers', 'num_hidden_layers'] },
  encoderLayers: { field: 'encoder_layers', keys: ['encoder_layers'] },
  heads: { field: 'decoder_attention_heads', keys: ['decoder_attention_heads', 'num_attention_heads'] },
  hiddenDropout: ['dropout'],
  attentionDropout: ['attention_dropout'],
};

/** OPTConfig: LlamaConfig's names, with the hidden dropout as `dropout`. */
const OPT_KEYS: ConfigKeys = { ...HF_KEYS, hiddenDropout: ['dropout', 'hidden_dropout'] };

/** GPTNeoConfig: hidden_size, num_layers, num_heads, resid_dropout. */
const GPT_NEO_KEYS: ConfigKeys = {
  ...HF_KEYS,
  layers: { field: 'num_layers', keys: ['num_layers', 'num_hidden_layers'] },
  heads: { field: 'num_heads', keys: ['num_heads', 'num_attention_heads'] },
  hiddenDropout: ['resid_dropout', 'hidden_dropout'],
};

/** FalconConfig: num_hidden_layers / num_attention_heads, or n_layer / n_head in the first remote-code configs. */
const FALCON_KEYS: ConfigKeys = {
  ...HF_KEYS,
  layers: { field: 'num_hidden_layers', keys: ['num_hidden_layers', 'n_layer'] },
  heads: { field: 'num_attention_heads', keys: ['num_attention_heads', 'n_head'] },
};

/** ChatGLMConfig: num_layers, kv_channels (head width), padded_vocab_size, seq_length. */
const CHATGLM_KEYS: ConfigKeys = {
  ...HF_KEYS,
  layers: { field: 'num_layers', keys: ['num_layers', 'num_hidden_layers'] },
  headDim: ['kv_channels', 'head_dim'],
  maxPositions: ['seq_length', 'max_position_embeddings'],
  vocab: ['padded_vocab_size', 'vocab_size'],
};

/** ChatGLM-6B's (the first generation's) ChatGLMConfig: num_layers, inner_hidden_size, max_sequence_length. */
const CHATGLM1_KEYS: ConfigKeys = {
  ...HF_KEYS,
  layers: { field: 'num_layers', keys: ['num_layers', 'num_hidden_layers'] },
  maxPositions: ['max_sequence_length', 'max_position_embeddings'],
};

const GATE_UP_DOWN = ['gate_proj', 'up_proj', 'down_proj'] as const;
const W1_W3_W2 = ['w1', 'w3', 'w2'] as const;

/** A Llama decoder: pre-RMSNorm, rotary, grouped-query attention without biases, a SwiGLU MLP, an untied head. */
const DECODER: FamilyTraits = {
  keys: HF_KEYS,
  stack: 'decoder',
  defaultHead: 'causal_lm',
  norm: 'rms',
  normPlacement: 'pre',
  postNormBeforeResidual: false,
  rmsNormStyle: 'llama',
  fp32NormWeights: false,
  normAffine: true,
  layerNormBias: true,
  layerNormStyle: 'torch',
  embeddingNorm: false,
  finalNorm: true,
  gatedMlp: true,
  gatedMlpStyle: 'llama',
  parallelResidual: false,
  mla: false,
  attnOutputGate: false,
  qkvBias: false,
  outBias: false,
  mlpBias: false,
  qkNorm: false,
  softcaps: false,
  eagerSoftmaxFp32: true,
  attentionSinks: false,
  eagerMask4d: true,
  flashAttention2: true,
  slidingDefault: 'layer_types',
  positions: 'rotary',
  positionOffset: 0,
  partialRotary: 1,
  interleavedRotary: false,
  tiedDefault: false,
  typeVocabDefault: 0,
  lmHeadBias: false,
  maxPositionsDefault: 512,
  dropoutDefault: 0,
  moeBlock: 'none',
  expertNames: GATE_UP_DOWN,
  fusedExperts: 'never',
  sequentialExpertsUnderBnb: false,
  expertsRunAllTokens: false,
  fp32MoeResidual: false,
  mambaSplitKernels: false,
  unslothFastPath: false,
};

/** The pre-2021 LayerNorm decoders' common ground: LayerNorm, a plain two-layer MLP, biases everywhere. */
const LAYERNORM_BIASED = { norm: 'layer', gatedMlp: false, qkvBias: true, outBias: true, mlpBias: true } as const;

/**
 * Cohere (modeling_cohere.py): Llama's modules and SwiGLU MLP with one weight-only LayerNorm per block feeding attention
 * and the MLP side by side (CohereDecoderLayer: residual + attn + mlp), a tied head, q/k LayerNorms per head where the
 * config's use_qk_norm says.
 */
const COHERE: FamilyTraits = {
  ...DECODER,
  norm: 'layer',
  layerNormBias: false,
  layerNormStyle: 'cohere',
  normPlacement: 'shared',
  parallelResidual: true,
  qkNorm: 'use_qk_norm',
  tiedDefault: true,
  maxPositionsDefault: 8192,
};

/** BERT: post-LayerNorm encoder with learned positions, token types, an embedding LayerNorm and a masked-LM head. */
const BERT: FamilyTraits = {
  ...DECODER,
  ...LAYERNORM_BIASED,
  stack: 'encoder',
  defaultHead: 'masked_lm',
  normPlacement: 'post',
  embeddingNorm: true,
  finalNorm: false,
  positions: 'learned',
  tiedDefault: true,
  typeVocabDefault: 2,
  dropoutDefault: 0.1,
  eagerSoftmaxFp32: false,
  eagerMask4d: false,
};

/**
 * BART (modeling_bart.py): an encoder and a decoder of post-LayerNorm layers (the decoder's with cross-attention),
 * biased q/k/v/out_proj and fc1/fc2, GELU, a learned position table per stack with 2 extra rows, a LayerNorm on each
 * stack's embeddings, the head tied to the shared embedding. Its attention runs SDPA and FlashAttention.
 */
const BART: FamilyTraits = {
  ...DECODER,
  ...LAYERNORM_BIASED,
  keys: BART_KEYS,
  stack: 'encoder-decoder',
  defaultHead: 'seq2seq_lm',
  normPlacement: 'post',
  embeddingNorm: true,
  finalNorm: false,
  positions: 'learned',
  positionOffset: 2,
  tiedDefault: true,
  maxPositionsDefault: 1024,
  dropoutDefault: 0.1,
  attentionDropoutDefault: 0,
  eagerSoftmaxFp32: false,
  eagerMask4d: false,
};

/** Gemma: Llama's layout with Gemma's RMSNorm ((1 + weight) in fp32) and tied embeddings. */
const GEMMA: FamilyTraits = { ...DECODER, rmsNormStyle: 'gemma', tiedDefault: true };

export const FAMILY_TRAITS: Readonly<Record<Family, FamilyTraits>> = {
  // LlamaForCausalLM's `logits = logits.float()` came with pretraining_tp in 4.31 (the Llama 2 release): the vendored
  // copies of 4.28-4.30 (GaLore's, Q-GaLore's, APOLLO's peft_pretraining/modeling_llama.py) compute the loss on the
  // 16-bit logits, those of 4.31 on (BELLE's, LongAlign's, MFTCoder's) upcast them.
  llama: {
    ...DECODER,
    outBias: 'attention_bias',
    ropeTablesPerLayerBefore: '4.39',
    unslothFastPath: true,
    ownHalfLossBefore: [4, 31],
  },
  mistral: { ...DECODER, outBias: 'attention_bias', ropeTablesPerLayerBefore: '4.39', unslothFastPath: true },
  qwen2: { ...DECODER, qkvBias: true, ropeTablesPerLayerBefore: '4.39', unslothFastPath: true },
  qwen3: { ...DECODER, outBias: 'attention_bias', qkNorm: true, unslothFastPath: true },
  gemma: GEMMA,
  gemma2: { ...GEMMA, normPlacement: 'sandwich', softcaps: 'default', slidingDefault: 'alternate' },
  phi3: { ...DECODER, gatedMlpStyle: 'phi3', fusedQkv: 'qkv_proj' },
  phi: { ...DECODER, ...LAYERNORM_BIASED, normPlacement: 'shared', parallelResidual: true, lmHeadBias: true },
  qwen: { ...DECODER, qkvBias: true, gatedMlpStyle: 'qwen', fusedQkv: 'c_attn', remoteCodeLoss: 'own' },
  gpt2: {
    ...DECODER,
    ownHalfLossBefore: [4, 46],
    ...LAYERNORM_BIASED,
    keys: GPT2_KEYS,
    fusedQkv: 'c_attn',
    positions: 'learned',
    tiedDefault: true,
    maxPositionsDefault: 1024,
    dropoutDefault: 0.1,
    eagerSoftmaxFp32: false,
    eagerMask4d: false,
  },
  gpt_neox: {
    ...DECODER,
    ownHalfLossBefore: [4, 46],
    ...LAYERNORM_BIASED,
    parallelResidual: true,
    fusedQkv: 'query_key_value',
    eagerSoftmaxFp32: false,
    eagerMask4d: false,
  },
  bert: BERT,
  roberta: { ...BERT, typeVocabDefault: 1 },
  distilbert: { ...BERT, keys: DISTILBERT_KEYS, typeVocabDefault: 0 },
  // DebertaV2Config: no token types by default; absolute positions as position_biased_input says (parse.ts); the
  // disentangled attention is written out in the model's own code for every attn_implementation.
  deberta_v2: {
    ...BERT,
    typeVocabDefault: 0,
    eagerOnlyAttention: {
      replaces: ['sdpa', 'flash'],
      why: "DeBERTa's disentangled attention is its own code (modeling_deberta_v2.py), with no SDPA or FlashAttention path: eager attention is used",
    },
  },
  t5: {
    ...DECODER,
    keys: T5_KEYS,
    stack: 'encoder-decoder',
    defaultHead: 'seq2seq_lm',
    gatedMlp: 'feed_forward_proj',
    positions: 'relative',
    tiedDefault: true,
    dropoutDefault: 0.1,
    eagerMask4d: false,
  },
  bart: BART,
  mbart: { ...BART, normPlacement: 'pre', finalNorm: true },
  mixtral: {
    ...DECODER,
    ropeTablesPerLayerBefore: '4.39',
    moeBlock: 'mixtral',
    expertNames: W1_W3_W2,
    fusedExperts: 'from-5.0',
  },
  qwen2_moe: { ...DECODER, qkvBias: true, moeBlock: 'mixtral', fusedExperts: 'from-5.0' },
  qwen3_moe: { ...DECODER, outBias: 'attention_bias', qkNorm: true, moeBlock: 'mixtral', fusedExperts: 'from-5.0' },
  gpt_oss: {
    ...DECODER,
    outBias: 'attention_bias',
    rmsNormStyle: 'gpt_oss',
    fp32NormWeights: true,
    attentionSinks: true,
    eagerSoftmaxFp32: false,
    eagerOnlyAttention: {
      replaces: ['sdpa'],
      why: 'transformers has no SDPA path for gpt-oss (attention sinks): eager attention is used; a flash kernel that takes the sinks is attention: flash',
    },
    slidingDefault: 'alternate',
    moeBlock: 'gpt_oss',
    fusedExperts: 'own',
  },
  gemma3: { ...GEMMA, normPlacement: 'sandwich', softcaps: true, qkNorm: true, slidingDefault: 'every-nth-global' },
  deepseek_v3: { ...DECODER, mla: true, moeBlock: 'deepseek', fusedExperts: 'from-5.0' },
  glm4_moe: { ...DECODER, qkNorm: 'use_qk_norm', partialRotary: 0.5, moeBlock: 'deepseek', fusedExperts: 'from-5.0' },
  llama4: {
    ...DECODER,
    outBias: 'attention_bias',
    eagerSoftmaxFp32: false,
    flashAttention2: false,
    moeBlock: 'llama4',
    fusedExperts: 'own',
    sequentialExpertsUnderBnb: true,
    expertsRunAllTokens: true,
  },
  olmo2: { ...DECODER, normPlacement: 'post', postNormBeforeResidual: true, rmsNormStyle: 'gpt_oss', qkNorm: true },
  olmoe: { ...DECODER, qkNorm: true, moeBlock: 'mixtral', fusedExperts: 'from-5.0' },
  glm4: {
    ...DECODER,
    normPlacement: 'sandwich',
    postNormBeforeResidual: true,
    gatedMlpStyle: 'phi3',
    partialRotary: 0.5,
    interleavedRotary: true,
  },
  bloom: {
    ...DECODER,
    ownHalfLossBefore: [4, 46],
    ...LAYERNORM_BIASED,
    keys: BLOOM_KEYS,
    embeddingNorm: true,
    fusedQkv: 'query_key_value',
    positions: 'alibi',
    tiedDefault: true,
    eagerOnlyAttention: {
      replaces: ['sdpa', 'flash'],
      why: "transformers runs BLOOM's ALiBi attention in eager code only (no SDPA or FlashAttention path): eager attention is used",
    },
  },
  qwen3_next: {
    ...DECODER,
    outBias: 'attention_bias',
    rmsNormStyle: 'gemma',
    qkNorm: true,
    attnOutputGate: true,
    partialRotary: 0.25,
    headDimDefault: 256,
    moeBlock: 'mixtral',
    fusedExperts: 'from-5.0',
  },
  granite_hybrid: {
    ...DECODER,
    outBias: 'attention_bias',
    gatedMlpStyle: 'granite',
    positions: 'position_embedding_type',
    moeBlock: 'granite',
    fusedExperts: 'only',
  },
  nemotron_h: {
    ...DECODER,
    keys: { ...HF_KEYS, headDim: ['head_dim', 'attention_head_dim'] },
    gatedMlp: false,
    positions: 'none',
    tiedDefault: 'never',
    headDimDefault: 128,
    moeBlock: 'nemotron',
    fusedExperts: 'only',
    mambaSplitKernels: true,
  },
  falcon_h1: { ...DECODER, outBias: 'attention_bias' },
  jamba: { ...DECODER, positions: 'none', moeBlock: 'jamba', fusedExperts: 'from-5.0' },
  kimi_linear: {
    ...DECODER,
    keys: { ...HF_KEYS, maxPositions: ['max_position_embeddings', 'model_max_length'] },
    mla: true,
    moeBlock: 'kimi',
    expertNames: W1_W3_W2,
    fp32MoeResidual: true,
    modelCode: {
      name: 'Kimi Linear',
      file: 'modeling_kimi.py',
      attention: 'flash',
      modeled:
        "Kimi Linear as its remote code and Axolotl's training copy of it run (per-expert linear layers, no checkpointing, fla kernels); " +
        "transformers' own kimi_linear (5.x, without trust_remote_code) fuses the experts and checkpoints its layers, which is not modeled",
    },
  },
  opt: {
    ...DECODER,
    ownHalfLossBefore: [4, 46],
    ...LAYERNORM_BIASED,
    keys: OPT_KEYS,
    biasFlag: 'enable_bias',
    positions: 'learned',
    positionOffset: 2,
    tiedDefault: true,
    maxPositionsDefault: 2048,
    dropoutDefault: 0.1,
    attentionDropoutDefault: 0,
  },
  gptj: {
    ...DECODER,
    ...LAYERNORM_BIASED,
    keys: { ...GPT2_KEYS, rotaryDim: ['rotary_dim'] },
    normPlacement: 'shared',
    parallelResidual: true,
    qkvBias: false,
    outBias: false,
    lmHeadBias: true,
    maxPositionsDefault: 2048,
    eagerOnlyAttention: {
      replaces: ['sdpa'],
      why: 'transformers has no SDPA path for GPT-J (GPTJPreTrainedModel offers eager and flash_attention_2 only): eager attention is used',
    },
  },
  gpt_neo: {
    ...DECODER,
    ...LAYERNORM_BIASED,
    keys: GPT_NEO_KEYS,
    qkvBias: false,
    positions: 'learned',
    tiedDefault: true,
    maxPositionsDefault: 2048,
    eagerOnlyAttention: {
      replaces: ['sdpa'],
      why: 'transformers has no SDPA path for GPT-Neo (GPTNeoPreTrainedModel offers eager and flash_attention_2 only): eager attention is used',
    },
  },
  falcon: {
    ...DECODER,
    ownHalfLossBefore: [4, 46],
    ...LAYERNORM_BIASED,
    keys: FALCON_KEYS,
    biasFlag: 'bias',
    qkvBias: false,
    outBias: false,
    mlpBias: false,
    normPlacement: 'shared',
    parallelResidual: true,
    fusedQkv: 'query_key_value',
    positions: 'rotary-or-alibi',
    tiedDefault: true,
    maxPositionsDefault: 2048,
  },
  gpt_bigcode: {
    ...DECODER,
    ...LAYERNORM_BIASED,
    ownHalfLossBefore: [4, 49],
    keys: GPT2_KEYS,
    fusedQkv: 'c_attn',
    positions: 'learned',
    tiedDefault: true,
    maxPositionsDefault: 1024,
    dropoutDefault: 0.1,
  },
  starcoder2: {
    ...DECODER,
    ...LAYERNORM_BIASED,
    keys: { ...HF_KEYS, hiddenDropout: ['residual_dropout', 'hidden_dropout'] },
    biasFlag: 'use_bias',
    tiedDefault: true,
    maxPositionsDefault: 4096,
  },
  olmo: { ...DECODER, norm: 'layer', normAffine: false, outBias: 'attention_bias' },
  internlm: {
    ...DECODER,
    attentionBiasFlag: 'bias',
    qkvBias: true,
    outBias: true,
    eagerOnlyAttention: {
      replaces: ['sdpa'],
      why: "InternLM's remote code (modeling_internlm.py) has an eager attention and a FlashAttention-2 one, no SDPA path: eager attention is used",
    },
    remoteCodeLoss: 'own',
  },
  internlm2: { ...DECODER, biasFlag: 'bias', fusedQkv: 'wqkv', gatedMlpStyle: 'internlm2', remoteCodeLoss: 'own' },
  baichuan: {
    ...DECODER,
    keys: { ...HF_KEYS, maxPositions: ['max_position_embeddings', 'model_max_length'] },
    fusedQkv: 'W_pack',
    remoteCodeLoss: 'own',
  },
  chatglm: {
    ...DECODER,
    keys: CHATGLM_KEYS,
    biasFlag: 'add_bias_linear',
    qkvBiasFlag: 'add_qkv_bias',
    fusedQkv: 'query_key_value',
    gatedMlpStyle: 'chatglm',
    partialRotary: 0.5,
    remoteCodeLoss: 'own',
    ownWeightDtype:
      "ChatGLM2 / 3's remote code builds every layer in the config's torch_dtype (modeling_chatglm.py " +
      '_config_to_kwargs: dtype=config.torch_dtype), whatever transformers release loads it',
  },
  chatglm1: {
    ...DECODER,
    ...LAYERNORM_BIASED,
    keys: CHATGLM1_KEYS,
    fusedQkv: 'query_key_value',
    eagerMask4d: false,
    tiedDefault: true,
    maxPositionsDefault: 2048,
    eagerOnlyAttention: {
      replaces: ['sdpa', 'flash'],
      why: "ChatGLM-6B's remote code computes attention in its own eager attention_fn (baddbmm, an fp32 softmax): eager attention is used",
    },
    remoteCodeLoss: '4.36.0',
    ownWeightDtype:
      "ChatGLM-6B's remote code builds its layers in half precision (modeling_chatglm.py: params_dtype=torch.half), " +
      'whatever transformers release loads it',
  },
  stablelm: { ...DECODER, norm: 'layer', qkvBiasFlag: 'use_qkv_bias', qkNorm: 'qk_layernorm', partialRotary: 0.25 },
  minicpm: { ...DECODER, rmsNormStyle: 't5', tiedDefault: true, remoteCodeLoss: '4.36.0' },
  cohere: COHERE,
  nemotron: {
    ...DECODER,
    norm: 'layer',
    layerNormStyle: 'nemotron',
    gatedMlp: false,
    partialRotary: 0.5,
    maxPositionsDefault: 4096,
  },
  cohere2: { ...COHERE, qkNorm: false },
};

/** An encoder-decoder (T5, BART, mBART): two stacks, the decoder's with cross-attention. */
export const isEncoderDecoder = (a: Pick<Architecture, 'family'>): boolean =>
  FAMILY_TRAITS[a.family].stack === 'encoder-decoder';
