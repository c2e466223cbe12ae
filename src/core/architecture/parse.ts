// config.json -> Architecture: finds the language model's fields, reads the sizes every family has, then the parts
// only some have (MoE blocks, hybrid mixers, a vision tower), in that order, so problems come out in a fixed order.
// Pure: problems (missing or impossible fields) are returned, never thrown.
import type { HfConfig, Head } from '../setup';
import { FAMILY_ALIASES, SUPPORTED_MODEL_TYPES } from './aliases';
import { parseExperts, PEFT_MOE_PATTERNS } from './experts';
import { FAMILY_TRAITS, type FamilyTraits } from './families';
import { nemotronPattern, parseHybrid } from './hybrids';
import { bool, num, obj, ParseContext, ropePartial, str } from './read';
import type { Architecture, ArchitectureResult, DebertaSpec, Family, MlaSpec } from './types';
import { visionTowerParams, type ImageText } from './vision';

/**
 * Gemma3TextConfig defaults (transformers models/gemma3/configuration_gemma3.py) for the fields the multimodal
 * checkpoints leave out of their text_config.
 */
const GEMMA3_TEXT_DEFAULTS: Readonly<Record<string, unknown>> = {
  vocab_size: 262_208,
  num_attention_heads: 8,
  num_key_value_heads: 4,
  head_dim: 256,
  hidden_act: 'gelu_pytorch_tanh',
  tie_word_embeddings: true,
};

/**
 * LlamaConfig defaults (transformers models/llama/configuration_llama.py) for the fields LLaVA 1.5's text_config leaves
 * out (llava-hf/llava-1.5-7b-hf writes only its vocabulary, positions and norm epsilon there).
 */
const LLAMA_TEXT_DEFAULTS: Readonly<Record<string, unknown>> = {
  vocab_size: 32_000,
  hidden_size: 4096,
  intermediate_size: 11_008,
  num_hidden_layers: 32,
  num_attention_heads: 32,
  hidden_act: 'silu',
  tie_word_embeddings: false,
};

/**
 * MistralConfig defaults (transformers models/mistral/configuration_mistral.py) for the fields LLaVA-NeXT's Mistral
 * text_config leaves out (llava-hf/llava-v1.6-mistral-7b-hf writes the MLP width, kv heads, positions and rope there).
 */
const MISTRAL_TEXT_DEFAULTS: Readonly<Record<string, unknown>> = {
  vocab_size: 32_000,
  hidden_size: 4096,
  intermediate_size: 14_336,
  num_hidden_layers: 32,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  hidden_act: 'silu',
  tie_word_embeddings: false,
};

/** The config class defaults LLaVA's text_config leaves to, by its model_type. */
const TEXT_DEFAULTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  llama: LLAMA_TEXT_DEFAULTS,
  mistral: MISTRAL_TEXT_DEFAULTS,
};

/**
 * GPT-2's activation_function values that run one F.gelu kernel, which keeps only its input for backward
 * (transformers' activations.py GELUActivation, PytorchGELUTanh); its default gelu_new is written out in Python.
 */
const GELU_KERNELS: ReadonlySet<string> = new Set(['gelu', 'gelu_pytorch_tanh']);

/**
 * Config-decided parts of the embeddings and norms (absent for every family whose layout is fixed): OPT's
 * word_embed_proj_dim (token embeddings narrower than the hidden size, with project_in / project_out), its final norm
 * (only with do_layer_norm_before and without _remove_final_layer_norm) and layer_norm_elementwise_affine.
 */
function embeddingLayout(
  cfg: HfConfig,
  family: string,
  hidden: number,
): Pick<Architecture, 'embedWidth' | 'finalNorm' | 'normAffine'> {
  if (family !== 'opt') return {};
  const width = num(cfg, 'word_embed_proj_dim');
  const finalNorm = (bool(cfg, 'do_layer_norm_before') ?? true) && bool(cfg, '_remove_final_layer_norm') !== true;
  const affine = bool(cfg, 'layer_norm_elementwise_affine') ?? true;
  return {
    ...(width !== undefined && width !== hidden ? { embedWidth: width } : {}),
    ...(finalNorm ? {} : { finalNorm }),
    ...(affine ? {} : { normAffine: false }),
  };
}

/** GPT-J's rotary_dim as a share of the head width. */
function rotaryShare(cfg: HfConfig, traits: FamilyTraits, headDim: number): number | undefined {
  const dim = traits.keys.rotaryDim ? num(cfg, ...traits.keys.rotaryDim) : undefined;
  return dim !== undefined && dim > 0 && dim <= headDim ? dim / headDim : undefined;
}

/**
 * FalconDecoderLayer: input_layernorm and post_attention_layernorm without parallel_attn (Falcon-RW); with it,
 * ln_attn and ln_mlp when num_ln_in_parallel_attn is 2 (its default in the new decoder architecture), else one
 * input_layernorm (Falcon-7B).
 */
function falconNorms(ctx: ParseContext): number {
  const { cfg, modelType } = ctx;
  if (bool(cfg, 'parallel_attn') === false) return 2;
  const newArchitecture = bool(cfg, 'new_decoder_architecture') ?? modelType.toLowerCase() === 'refinedweb';
  return (num(cfg, 'num_ln_in_parallel_attn') ?? (newArchitecture ? 2 : 1)) === 2 ? 2 : 1;
}

/**
 * FalconAttention's split (new decoder architecture or not) and whether FalconDecoderLayer adds the attention output to
 * the MLP's instead of the residual: parallel_attn (default true), always in the new decoder architecture.
 */
function falconLayout(ctx: ParseContext): { newDecoder: boolean; parallel: boolean } {
  const { cfg, modelType } = ctx;
  const newDecoder = bool(cfg, 'new_decoder_architecture') ?? modelType.toLowerCase() === 'refinedweb';
  return { newDecoder, parallel: newDecoder || (bool(cfg, 'parallel_attn') ?? true) };
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

/** Qwen3-VL, dense or MoE. */
const isQwen3Vl = (modelType: string | undefined): boolean => modelType === 'qwen3_vl' || modelType === 'qwen3_vl_moe';

/** Which image-text layout a config.json has, if any (see ImageText). */
export function imageTextLayout(config: HfConfig, modelType: string | undefined): ImageText | undefined {
  const textConfig = obj(config, 'text_config');
  // Gemma 3 4B-27B are image-text models: the language model's fields sit under text_config.
  if (modelType === 'gemma3' && textConfig) return 'gemma3';
  // Qwen2-VL / Qwen2.5-VL: the language model's fields at the top level (older config.json files) or under text_config.
  if (modelType === 'qwen2_vl' || modelType === 'qwen2_5_vl' || isQwen3Vl(modelType)) return 'qwen-vl';
  // Qwen3.5 (dense and MoE): the language model under text_config, Qwen3-VL's vision tower under vision_config.
  if (modelType === 'qwen3_5' || modelType === 'qwen3_5_moe') return 'qwen3.5';
  // Qwen-VL (the first, remote code): Qwen-1's language model at the top level, its ViT and resampler under `visual`.
  if (modelType === 'qwen' && obj(config, 'visual')) return 'qwen1-vl';
  if ((modelType === 'llama4' || modelType === 'mistral3') && textConfig) return 'llama4-or-mistral3';
  // LLaVA 1.5 and LLaVA-NeXT: a language model of its own model_type (Llama's by default) under text_config, a CLIP tower.
  if ((modelType === 'llava' || modelType === 'llava_next') && textConfig) return 'llava';
  // PaliGemma: Gemma (1 or 2) under text_config beside a SigLIP tower and one linear projector.
  if (modelType === 'paligemma' && textConfig) return 'paligemma';
  // Llama 3.2 Vision: its language model under text_config beside the tiled ViT.
  if (modelType === 'mllama' && textConfig) return 'mllama';
  // Idefics3 and SmolVLM: a language model of its own model_type (Llama's by default) under text_config beside a
  // SigLIP-style tower and a pixel-shuffle connector.
  if ((modelType === 'idefics3' || modelType === 'smolvlm') && textConfig) return 'idefics3';
  // InternVL: the language model under text_config (transformers' own internvl) or llm_config (the remote code's
  // internvl_chat) beside an InternViT tower and its MLP projector.
  if ((modelType === 'internvl' && textConfig) || (modelType === 'internvl_chat' && obj(config, 'llm_config')))
    return 'internvl';
  return undefined;
}

/** The language model's fields: text_config merged over (or instead of) the top level, Gemma 3's defaults beneath. */
function languageModelConfig(config: HfConfig, modelType: string | undefined, layout: ImageText | undefined): HfConfig {
  const textConfig = obj(config, 'text_config');
  if (layout === 'gemma3') return { ...GEMMA3_TEXT_DEFAULTS, ...textConfig, model_type: 'gemma3' };
  if (modelType === 'gemma3' || modelType === 'gemma3_text') return { ...GEMMA3_TEXT_DEFAULTS, ...config };
  if ((layout === 'qwen-vl' || layout === 'qwen3.5') && textConfig)
    return { ...config, ...textConfig, model_type: modelType };
  if (layout === 'llama4-or-mistral3') return { ...textConfig, model_type: modelType };
  if (layout === 'paligemma') return { ...textConfig, model_type: str(textConfig ?? {}, 'model_type') ?? 'gemma' };
  if (layout === 'llava' || layout === 'idefics3') {
    const textType = str(textConfig ?? {}, 'model_type') ?? 'llama';
    // Idefics3ForConditionalGeneration's lm_head is the top-level config's to tie (tie_word_embeddings, default false).
    const tie = layout === 'idefics3' ? { tie_word_embeddings: bool(config, 'tie_word_embeddings') ?? false } : {};
    return { ...TEXT_DEFAULTS[textType], ...textConfig, ...tie, model_type: textType };
  }
  if (layout === 'mllama') return { ...textConfig, model_type: 'mllama_text_model' };
  if (layout === 'internvl') {
    // The remote code's language model is a CausalLM of llm_config, tied as that says; transformers' own
    // InternVLForConditionalGeneration ties its lm_head as the top-level config says (PreTrainedConfig's default: tied).
    if (modelType === 'internvl_chat') {
      const llm = obj(config, 'llm_config') ?? {};
      return { ...llm, model_type: str(llm, 'model_type') ?? 'qwen2' };
    }
    const tie = bool(config, 'tie_word_embeddings') ?? true;
    return { ...textConfig, tie_word_embeddings: tie, model_type: str(textConfig ?? {}, 'model_type') ?? 'qwen2' };
  }
  return config;
}

/** The sizes every family has, read with the family's field names. */
export interface Dimensions {
  readonly hidden: number;
  readonly layers: number;
  readonly encoderLayers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly vocab: number;
  /** Dense MLP width (per projection). */
  readonly ffn: number;
  readonly mla?: MlaSpec;
}

function parseDimensions(
  ctx: ParseContext,
  traits: FamilyTraits,
  nemotronKinds: readonly unknown[] | undefined,
): Dimensions {
  const { cfg } = ctx;
  const { keys } = traits;
  const hidden = ctx.need(num(cfg, ...keys.hidden.keys), keys.hidden.field);
  const layers = nemotronKinds
    ? Math.max(1, nemotronKinds.length)
    : ctx.need(num(cfg, ...keys.layers.keys), keys.layers.field);
  const encoderKeys = traits.keys.encoderLayers;
  const encoderLayers = encoderKeys ? ctx.need(num(cfg, ...encoderKeys.keys), encoderKeys.field) : 0;
  const heads = ctx.need(num(cfg, ...keys.heads.keys), keys.heads.field);
  const mla = traits.mla ? parseMla(ctx) : undefined;
  const kvHeads = mla ? heads : kvHeadsOf(ctx, heads);
  const headDim = mla
    ? mla.qkNope + mla.qkRope
    : (num(cfg, ...keys.headDim) ?? traits.headDimDefault ?? Math.floor(hidden / heads));
  const vocab = ctx.need(num(cfg, ...keys.vocab), 'vocab_size');
  const ffn = ffnWidth(ctx, hidden);
  if (kvHeads <= 0 || heads % kvHeads !== 0) {
    ctx.problem(
      'num_key_value_heads',
      `num_attention_heads (${heads}) must be a multiple of num_key_value_heads (${kvHeads})`,
    );
  }
  return { hidden, layers, encoderLayers, heads, kvHeads, headDim, vocab, ffn, ...(mla ? { mla } : {}) };
}

/**
 * Key/value heads: num_key_value_heads, or what the family's config says instead: Falcon's kv groups in the new decoder
 * architecture (num_kv_heads, n_head_kv in the first remote code) or one with multi_query; StarCoder's multi_query;
 * ChatGLM's multi_query_group_num.
 */
function kvHeadsOf(ctx: ParseContext, heads: number): number {
  const { cfg, family, modelType } = ctx;
  switch (family) {
    case 'falcon': {
      const newArchitecture = bool(cfg, 'new_decoder_architecture') ?? modelType.toLowerCase() === 'refinedweb';
      return newArchitecture
        ? (num(cfg, 'num_kv_heads', 'n_head_kv') ?? heads)
        : bool(cfg, 'multi_query') === true
          ? 1
          : heads;
    }
    case 'gpt_bigcode':
      return (bool(cfg, 'multi_query') ?? true) ? 1 : heads;
    case 'chatglm':
      return bool(cfg, 'multi_query_attention') === true ? (num(cfg, 'multi_query_group_num') ?? heads) : heads;
    default:
      return num(cfg, 'num_key_value_heads') ?? heads;
  }
}

/**
 * MLA: every head has its own keys and values (num_key_value_heads = heads); q/k heads are nope + rope wide. The
 * config's head_dim is the rotary width there (DeepseekV3Config: head_dim = qk_rope_head_dim).
 */
function parseMla(ctx: ParseContext): MlaSpec {
  const { cfg, family } = ctx;
  const qLora = num(cfg, 'q_lora_rank');
  const mla: MlaSpec = {
    qLoraRank: qLora !== undefined && qLora > 0 ? qLora : 0,
    kvLoraRank: ctx.need(num(cfg, 'kv_lora_rank'), 'kv_lora_rank'),
    qkNope: ctx.need(num(cfg, 'qk_nope_head_dim'), 'qk_nope_head_dim'),
    qkRope: ctx.need(num(cfg, 'qk_rope_head_dim'), 'qk_rope_head_dim'),
    vHeadDim: ctx.need(num(cfg, 'v_head_dim'), 'v_head_dim'),
    ...(family === 'kimi_linear' && bool(cfg, 'mla_use_nope') === true ? { nope: true } : {}),
  };
  // KimiMLAAttention asserts q_lora_rank is None and mla_use_nope (modeling_kimi.py).
  if (family === 'kimi_linear' && mla.qLoraRank > 0) {
    ctx.problem('q_lora_rank', "Kimi Linear's MLA layers take q_lora_rank: null (modeling_kimi.py asserts it)");
  }
  return mla;
}

/** The dense MLP's width (per projection), from the field each family keeps it in. */
function ffnWidth(ctx: ParseContext, hidden: number): number {
  const { cfg, family } = ctx;
  switch (family) {
    case 'gpt2':
      return num(cfg, 'n_inner') ?? 4 * hidden;
    case 't5':
      return ctx.need(num(cfg, 'd_ff'), 'd_ff');
    case 'bart':
    case 'mbart':
      return ctx.need(num(cfg, 'decoder_ffn_dim', 'encoder_ffn_dim'), 'decoder_ffn_dim');
    case 'distilbert':
      return num(cfg, 'hidden_dim') ?? 4 * hidden;
    case 'qwen':
      return ctx.need(num(cfg, 'intermediate_size'), 'intermediate_size') / 2;
    case 'llama4':
      // Llama 4: intermediate_size is an expert's (and the shared expert's) width, intermediate_size_mlp the dense layers'.
      return num(cfg, 'intermediate_size_mlp') ?? 16384;
    case 'bloom':
      return 4 * hidden; // BloomMLP: dense_h_to_4h
    case 'opt':
      return ctx.need(num(cfg, 'ffn_dim'), 'ffn_dim');
    case 'gptj':
    case 'gpt_bigcode':
      return num(cfg, 'n_inner') ?? 4 * hidden;
    case 'gpt_neo':
      return num(cfg, 'intermediate_size') ?? 4 * hidden;
    case 'falcon':
      return num(cfg, 'ffn_hidden_size') ?? 4 * hidden;
    case 'chatglm':
      return ctx.need(num(cfg, 'ffn_hidden_size'), 'ffn_hidden_size');
    case 'chatglm1':
      return num(cfg, 'inner_hidden_size') ?? 4 * hidden;
    case 'granite_hybrid':
      // GraniteMoeHybridMLP (shared_mlp) is shared_intermediate_size wide; intermediate_size is an expert's.
      return ctx.need(num(cfg, 'shared_intermediate_size'), 'shared_intermediate_size');
    case 'nemotron_h':
      // Nemotron-H: intermediate_size is the ReLU² MLP layers' width; an all-MoE pattern may leave it out.
      return ctx.need(num(cfg, 'intermediate_size', 'moe_intermediate_size'), 'intermediate_size');
    case 'qwen3_next':
      // Qwen3.5-MoE has no dense layer and no intermediate_size (Qwen3_5MoeTextConfig deletes it).
      if (num(cfg, 'intermediate_size') === undefined && (num(cfg, 'num_experts') ?? 0) > 0) {
        return ctx.need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
      }
      return ctx.need(num(cfg, 'intermediate_size'), 'intermediate_size');
    default:
      return ctx.need(num(cfg, 'intermediate_size'), 'intermediate_size');
  }
}

/**
 * The head a checkpoint was saved with (config.json `architectures`): a sequence classifier (reward models,
 * classification fine-tunes: *ForSequenceClassification), a masked-LM head, or none (an encoder saved as the bare
 * BertModel / RobertaModel / XLMRobertaModel, as sentence-embedding models are); undefined for causal and seq2seq LMs
 * and configs without the field, which take the family's head.
 */
function checkpointHead(cfg: HfConfig): Head | undefined {
  const archs = cfg.architectures;
  const first = Array.isArray(archs) && typeof archs[0] === 'string' ? archs[0] : undefined;
  if (!first) return undefined;
  return /ForSequenceClassification$/.test(first)
    ? 'seq_cls'
    : /ForMaskedLM$/.test(first)
      ? 'masked_lm'
      : /^(Bert|Roberta|XLMRoberta|DistilBert|DebertaV2)Model$/.test(first)
        ? 'none'
        : undefined;
}

/**
 * Model types whose experts exist only as 3-D parameters, in a family that also has per-expert linears: Qwen3-VL-MoE
 * (Qwen3VLMoeTextExperts in every transformers release) and Qwen3.5-MoE. Granite 4.0 H (GraniteMoeHybridParallelExperts)
 * and Nemotron 3 (NemotronHExperts) have them as a family trait (fusedExperts: 'only').
 */
const FUSED_ONLY_MODEL_TYPES: ReadonlySet<string> = new Set(['qwen3_vl_moe', 'qwen3_5_moe', 'qwen3_5_moe_text']);

/**
 * Sliding-window layers: listed in layer_types; otherwise Gemma 2 and gpt-oss alternate from the first layer, Gemma 3
 * makes every sliding_window_pattern-th layer global (6 by default) (transformers configuration_*.py).
 */
function slidingLayerCount(cfg: HfConfig, traits: FamilyTraits, layers: number): number {
  const types = Array.isArray(cfg.layer_types) ? (cfg.layer_types as unknown[]) : undefined;
  if (types) return types.filter((t) => t === 'sliding_attention').length;
  switch (traits.slidingDefault) {
    case 'alternate':
      return Math.ceil(layers / 2);
    case 'every-nth-global':
      return layers - Math.floor(layers / (num(cfg, 'sliding_window_pattern') ?? 6));
    case 'layer_types':
      return 0;
  }
}

/**
 * The family of a model_type; ChatGLM-6B and ChatGLM2 / 3 share model_type chatglm, and only the first generation's
 * config has inner_hidden_size and position_encoding_2d (its configuration_chatglm.py).
 */
function familyOf(modelType: string, cfg: HfConfig): Family | undefined {
  const family = FAMILY_ALIASES[modelType.toLowerCase()];
  if (
    family === 'chatglm' &&
    (num(cfg, 'inner_hidden_size') !== undefined || bool(cfg, 'position_encoding_2d') !== undefined)
  )
    return 'chatglm1';
  return family;
}

/** Which linears have biases: the family's defaults, the config's flags over them. */
function biasesOf(cfg: HfConfig, traits: FamilyTraits): Pick<Architecture, 'qkvBias' | 'outBias' | 'mlpBias'> {
  const allBias = traits.biasFlag ? bool(cfg, traits.biasFlag) : undefined;
  const attentionFlag = traits.attentionBiasFlag ? bool(cfg, traits.attentionBiasFlag) : undefined;
  const attentionBias = bool(cfg, 'attention_bias') ?? attentionFlag ?? allBias;
  return {
    // ChatGLM: add_qkv_bias adds q/k/v biases whatever add_bias_linear says.
    qkvBias: (traits.qkvBiasFlag && bool(cfg, traits.qkvBiasFlag) === true) || (attentionBias ?? traits.qkvBias),
    outBias:
      traits.outBias === 'attention_bias' ? (attentionBias ?? false) : (attentionFlag ?? allBias ?? traits.outBias),
    mlpBias: bool(cfg, 'mlp_bias') ?? allBias ?? traits.mlpBias,
  };
}

/** The position encoding: the family's, or the config's choice where the family leaves it to the config. */
function positionsOf(
  cfg: HfConfig,
  traits: FamilyTraits,
  mla: Architecture['mla'],
  deberta: DebertaSpec | undefined,
): Architecture['positions'] {
  if (deberta) return deberta.positionBiasedInput ? 'learned' : 'relative';
  if (traits.positions === 'position_embedding_type')
    return str(cfg, 'position_embedding_type') === 'rope' ? 'rotary' : 'none'; // Granite 4.0: "nope" (H models) or "rope"
  if (traits.positions === 'rotary-or-alibi') return bool(cfg, 'alibi') === true ? 'alibi' : 'rotary';
  return mla?.nope === true ? 'none' : traits.positions;
}

/**
 * The config's model type, its image-text layout, the language model's config and the family it parses as; or the
 * problem that stops the parse (no model_type, or one no family takes).
 */
function familyOfConfig(config: HfConfig):
  | {
      readonly modelType: string;
      readonly layout: ReturnType<typeof imageTextLayout>;
      readonly cfg: HfConfig;
      readonly family: Family;
    }
  | { readonly problems: { field: string; message: string }[] } {
  const modelType = str(config, 'model_type');
  const layout = imageTextLayout(config, modelType);
  const cfg = languageModelConfig(config, modelType, layout);
  if (!modelType) return { problems: [{ field: 'model_type', message: 'config has no model_type' }] };
  // LLaVA's and PaliGemma's language model is the family of its text_config's model_type.
  const family = familyOf(
    layout === 'llava' ||
      layout === 'paligemma' ||
      layout === 'idefics3' ||
      layout === 'internvl' ||
      layout === 'mllama'
      ? (str(cfg, 'model_type') ?? modelType)
      : modelType,
    cfg,
  );
  if (family) return { modelType, layout, cfg, family };
  const message = `model_type '${modelType}' is not supported (supported: ${SUPPORTED_MODEL_TYPES.join(', ')})`;
  return { problems: [{ field: 'model_type', message }] };
}

function parseArchitectureUncached(config: HfConfig): ArchitectureResult {
  const found = familyOfConfig(config);
  if ('problems' in found) return { ok: false, problems: found.problems };
  const { modelType, layout, cfg, family } = found;
  const ctx = new ParseContext(cfg, config, modelType, family);
  const traits = FAMILY_TRAITS[family];

  // Nemotron-H: the layer list is the pattern (hybrid_override_pattern, or layers_block_type / layer_types); the config's
  // num_hidden_layers is not used (NemotronHConfig).
  const nemotronKinds = family === 'nemotron_h' ? nemotronPattern(ctx) : undefined;
  const dims = parseDimensions(ctx, traits, nemotronKinds);
  const { hidden, layers, heads, mla } = dims;
  const experts = parseExperts(ctx, dims);
  const visionParams = visionTowerParams(ctx, hidden, layout);
  const hybrid = parseHybrid(ctx, dims, experts.moe, nemotronKinds);
  const moe = hybrid.moe;

  const gatedMlp =
    traits.gatedMlp === 'feed_forward_proj'
      ? (str(cfg, 'feed_forward_proj') ?? '').toLowerCase().startsWith('gated')
      : traits.gatedMlp;
  const tied = traits.tiedDefault === 'never' ? false : (bool(cfg, 'tie_word_embeddings') ?? traits.tiedDefault);
  const { qkvBias, outBias, mlpBias } = biasesOf(cfg, traits);
  const deberta = family === 'deberta_v2' ? debertaSpec(cfg) : undefined;
  const positions = positionsOf(cfg, traits, mla, deberta);
  const window = num(cfg, 'sliding_window') ?? 0;
  const slidingLayers = window > 0 ? slidingLayerCount(cfg, traits, layers) : 0;
  const { linearAttention, mamba, mamba1, moeMask, blockKinds, moeLatent, moeRouting } = hybrid;
  const layerPattern = experts.layerPattern;
  const arch: Architecture = {
    family,
    layers,
    encoderLayers: dims.encoderLayers,
    hidden,
    heads,
    kvHeads: dims.kvHeads,
    headDim: dims.headDim,
    ffn: dims.ffn,
    vocab: dims.vocab,
    tied,
    norm: traits.norm,
    gatedMlp,
    qkvBias,
    outBias,
    mlpBias,
    qkNorm: typeof traits.qkNorm === 'string' ? bool(cfg, traits.qkNorm) === true : traits.qkNorm,
    positions,
    maxPositions: num(cfg, ...traits.keys.maxPositions) ?? traits.maxPositionsDefault,
    moe,
    hiddenDropout: num(cfg, ...traits.keys.hiddenDropout) ?? traits.dropoutDefault,
    attentionDropout:
      num(cfg, ...traits.keys.attentionDropout) ?? traits.attentionDropoutDefault ?? traits.dropoutDefault,
    defaultHead: checkpointHead(cfg) ?? traits.defaultHead,
    finalLogitSoftcap: softcapOn(cfg, traits.softcaps, 'final_logit_softcapping'),
    attnLogitSoftcap: softcapOn(cfg, traits.softcaps, 'attn_logit_softcapping'),
    typeVocab: num(cfg, 'type_vocab_size') ?? traits.typeVocabDefault,
    visionParams,
    slidingLayers: Math.min(layers, slidingLayers),
    slidingWindow: slidingLayers > 0 ? window : 0,
    ...(mla ? { mla } : {}),
    ...(deberta ? { deberta } : {}),
    ...(layerPattern ? { layerPattern, qkL2Norm: bool(cfg, 'use_qk_norm') ?? true } : {}),
    partialRotary:
      num(cfg, 'partial_rotary_factor') ??
      ropePartial(cfg) ??
      rotaryShare(cfg, traits, dims.headDim) ??
      traits.partialRotary,
    ...(linearAttention ? { linearAttention, ...(traits.attnOutputGate ? { attnOutputGate: true } : {}) } : {}),
    ...(mamba ? { mamba } : {}),
    ...(mamba1 ? { mamba1 } : {}),
    ...(moeMask ? { moeMask } : {}),
    ...(blockKinds ? { blockKinds } : {}),
    ...(moeLatent ? { moeLatent } : {}),
    ...(moeRouting ? { moeRouting } : {}),
    ...familyExtras(ctx, traits, { moe: moe !== undefined, hidden }),
  };
  const problems = ctx.problems;
  return problems.length > 0 ? { ok: false, problems } : { ok: true, arch, problems };
}

/**
 * The fields only some families or model types have: their modeling code, fused experts and PEFT's expert pattern,
 * the embedding layout, norms without an affine or of their own count per block, GPT-2's fused GELU kernel.
 */
function familyExtras(
  ctx: ParseContext,
  traits: FamilyTraits,
  { moe, hidden }: { moe: boolean; hidden: number },
): Partial<Architecture> {
  const { cfg, family, modelType } = ctx;
  const peftMoePattern = moe ? PEFT_MOE_PATTERNS[modelType.toLowerCase()] : undefined;
  return {
    ...(traits.modelCode ? { modelCode: traits.modelCode } : {}),
    ...((traits.fusedExperts === 'only' || FUSED_ONLY_MODEL_TYPES.has(modelType)) && moe ? { fusedExperts: true } : {}),
    ...(peftMoePattern ? { peftMoePattern } : {}),
    ...embeddingLayout(cfg, family, hidden),
    ...(traits.normAffine ? {} : { normAffine: false }),
    ...(family === 'falcon' ? { normsPerBlock: falconNorms(ctx), falcon: falconLayout(ctx) } : {}),
    // StableLM 2 12B: attention and the MLP side by side off input_layernorm (no post_attention_layernorm).
    ...(family === 'stablelm' && bool(cfg, 'use_parallel_residual') === true ? { normsPerBlock: 1 } : {}),
    ...(family === 'gpt2' && GELU_KERNELS.has(str(cfg, 'activation_function') ?? '') ? { geluKernel: true } : {}),
    // T5 v1.1's gated-gelu runs gelu_new written out (T5Config: "gated-gelu" -> dense_act_fn gelu_new); gated-silu one.
    ...(family === 't5' && (str(cfg, 'feed_forward_proj') ?? '').toLowerCase() !== 'gated-gelu'
      ? { geluKernel: true }
      : {}),
    ...(str(cfg, 'model_type') === 'mllama_text_model' ? mllamaText(cfg) : {}),
    ...(family === 'bart' || family === 'mbart' ? bartExtras(cfg) : {}),
  };
}

/** BART's and mBART's activation_dropout (BartConfig default 0.0) and scale_embedding (default false). */
function bartExtras(cfg: HfConfig): Partial<Architecture> {
  const activationDropout = num(cfg, 'activation_dropout') ?? 0;
  return {
    ...(activationDropout > 0 ? { activationDropout } : {}),
    ...(bool(cfg, 'scale_embedding') === true ? { scaledEmbedding: true as const } : {}),
  };
}

/**
 * DeBERTa-v2 / v3's relative positions (DebertaV2Config, modeling_deberta_v2.py DebertaV2Encoder): rel_embeddings has 2 x
 * position_buckets rows, else 2 x max_relative_positions (max_position_embeddings when below 1); pos_att_type is a list
 * or a "p2c|c2p" string; position_biased_input defaults to true (v3's configs set false).
 */
function debertaSpec(cfg: HfConfig): DebertaSpec {
  const buckets = num(cfg, 'position_buckets') ?? -1;
  const maxRelative = num(cfg, 'max_relative_positions') ?? -1;
  const span = buckets > 0 ? buckets : maxRelative >= 1 ? maxRelative : (num(cfg, 'max_position_embeddings') ?? 512);
  const raw = cfg.pos_att_type;
  const types = (Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split('|') : []).map((t) =>
    t.trim().toLowerCase(),
  );
  const norms = (str(cfg, 'norm_rel_ebd') ?? 'none').toLowerCase().split('|');
  const relative = bool(cfg, 'relative_attention') === true;
  const kernel = num(cfg, 'conv_kernel_size') ?? 0;
  return {
    relRows: relative ? 2 * span : 0,
    relNorm: relative && norms.some((n) => n.trim() === 'layer_norm'),
    shareAttKey: bool(cfg, 'share_att_key') === true,
    c2p: relative && types.includes('c2p'),
    p2c: relative && types.includes('p2c'),
    positionBiasedInput: bool(cfg, 'position_biased_input') ?? true,
    ...(kernel > 0 ? { conv: { kernel, groups: num(cfg, 'conv_groups') ?? 1 } } : {}),
  };
}

/**
 * Llama 3.2 Vision's language model (modeling_mllama.py MllamaTextModel): the layers cross_attention_layers lists
 * attend to the image, and the token embedding has 8 rows beyond the vocabulary (`vocab_size + 8`).
 */
function mllamaText(cfg: HfConfig): Pick<Architecture, 'crossAttentionLayers' | 'embedExtraRows'> {
  const cross = cfg.cross_attention_layers;
  return { crossAttentionLayers: Array.isArray(cross) ? cross.length : 0, embedExtraRows: 8 };
}

/** A tanh soft-cap is on when the config gives it, or (family default) when the config leaves the key out. */
function softcapOn(cfg: HfConfig, trait: boolean | 'default', key: string): boolean {
  if (trait === false) return false;
  return num(cfg, key) !== undefined || (trait === 'default' && !(key in cfg));
}
