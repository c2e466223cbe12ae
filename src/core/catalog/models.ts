// This file owns the built-in catalog of popular Hugging Face checkpoints: the memory-relevant subset of each config.json plus its published parameter count.
// It is pure data with no imports and no I/O, so both the VS Code extension and the CLI can bundle it.

/**
 * One value of a config.json field.
 * Nested objects occur only where the checkpoint itself nests them (quantization_config).
 */
export type HfConfigValue =
  | string
  | number
  | boolean
  | null
  | readonly (string | number)[]
  | { readonly [key: string]: HfConfigValue };

/** Raw Hugging Face config.json fields, exactly as named and valued in the checkpoint's config.json. */
export type HfConfig = Readonly<Record<string, HfConfigValue>>;

export interface CatalogModel {
  /** Canonical Hub id, e.g. 'meta-llama/Llama-2-7b-hf'. */
  readonly id: string;
  /** Other ids people write for the same weights (e.g. 'NousResearch/Llama-2-7b-hf', old names like 'meta-llama/Meta-Llama-3.1-8B'). */
  readonly aliases?: readonly string[];
  /** For an upload read from its name (Unsloth bnb-4bit, GPTQ, AWQ): the listed entry whose architecture it takes. */
  readonly derivedFrom?: string;
  /** The memory-relevant subset of config.json, with HF's own field names and values. */
  readonly config: HfConfig;
  /** Exact total parameter count when published (model card, safetensors metadata total, or a paper); omit if you are not sure. */
  readonly publishedParams?: number;
  /** Where config and count come from (URL of config.json / model card). */
  readonly source: string;
}

// Conventions used throughout the catalog:
// - A field is listed only when the checkpoint's config.json contains it, so an absent field means the
//   transformers default for that model_type applies (for example old t5 configs have no feed_forward_proj,
//   which defaults to "relu", and no tie_word_embeddings, which defaults to true).
// - Aliases may also name fine-tunes (Instruct/Chat variants) whose config.json has the same
//   architecture fields, because the memory estimate is identical for them.
// - publishedParams counts each tensor once, so tied input and output embeddings count once. For
//   encoder-only models it is the bare encoder class including the pooler (BertModel, RobertaModel),
//   and for gpt2 it is GPT2Model, whose lm_head is tied to wte.
// - publishedParams is left out for pre-quantized checkpoints, whose safetensors totals count packed
//   integer storage rather than logical parameters, and wherever the count was not certain.

const hf = (id: string): string => `https://huggingface.co/${id}/blob/main/config.json`;

/**
 * A Gemma 3 image-text config.json (4B-27B): the language model's own fields under text_config (the rest are
 * Gemma3TextConfig defaults) and the SigLIP vision tower all sizes share.
 */
const gemma3Config = (text: HfConfig): HfConfig => ({
  model_type: 'gemma3',
  architectures: ['Gemma3ForConditionalGeneration'],
  text_config: { model_type: 'gemma3_text', ...text, sliding_window: 1024, rope_scaling: { factor: 8.0, rope_type: 'linear' } },
  vision_config: { model_type: 'siglip_vision_model', hidden_size: 1152, image_size: 896, intermediate_size: 4304, num_attention_heads: 16, num_hidden_layers: 27, patch_size: 14, vision_use_head: false },
  torch_dtype: 'bfloat16',
});

/** The config.json fields DeepSeek-V2-Lite and Moonlight-16B-A3B share (the DeepSeek MLA + MoE layout at 2048 wide). */
/** Fields the Qwen2.5-VL config.json files share; the vision tower is the same ViT in every size. */
const QWEN25_VL = { model_type: 'qwen2_5_vl', architectures: ['Qwen2_5_VLForConditionalGeneration'], hidden_act: 'silu', max_position_embeddings: 128000, rms_norm_eps: 1e-6, torch_dtype: 'bfloat16' };
const QWEN25_VL_VISION = {
  depth: 32, hidden_act: 'silu', hidden_size: 1280, intermediate_size: 3420, num_heads: 16, in_chans: 3, patch_size: 14, spatial_merge_size: 2,
  temporal_patch_size: 2, window_size: 112, fullatt_block_indexes: [7, 15, 23, 31],
};
/** Qwen2-VL: the same layout with Qwen2's ViT (LayerNorm, fc1 / fc2 MLP of 4 x 1280). */
const QWEN2_VL = { model_type: 'qwen2_vl', architectures: ['Qwen2VLForConditionalGeneration'], hidden_act: 'silu', max_position_embeddings: 32768, rms_norm_eps: 1e-6, torch_dtype: 'bfloat16' };
const QWEN2_VL_VISION = { depth: 32, embed_dim: 1280, mlp_ratio: 4, num_heads: 16, in_chans: 3, patch_size: 14, spatial_merge_size: 2, temporal_patch_size: 2 };

/** Qwen3-VL config.json: the language model under text_config, the vision tower under vision_config. */
const QWEN3_VL = { model_type: 'qwen3_vl', architectures: ['Qwen3VLForConditionalGeneration'] };
const QWEN3_VL_TEXT = { model_type: 'qwen3_vl_text', head_dim: 128, hidden_act: 'silu', max_position_embeddings: 262144, rms_norm_eps: 1e-6, vocab_size: 151936, attention_bias: false, dtype: 'bfloat16' };
const QWEN3_VL_VISION = { hidden_act: 'gelu_pytorch_tanh', in_channels: 3, num_heads: 16, num_position_embeddings: 2304, patch_size: 16, spatial_merge_size: 2, temporal_patch_size: 2 };

/** Llama 4 config.json fields both checkpoints share (meta-llama/Llama-4-Scout-17B-16E, -Maverick-17B-128E). */
/**
 * Qwen3.5 config.json (image-text, transformers 5): the language model under text_config (Gated DeltaNet layers with
 * 16 key heads and value heads of 128, a 4-tap conv, one gated full-attention layer of head_dim 256 in every four),
 * Qwen3-VL's vision tower without deepstack mergers under vision_config. The checkpoints also store a multi-token
 * prediction head (mtp.*), which transformers does not load (_keys_to_ignore_on_load_unexpected = [r"^mtp.*"]).
 */
const QWEN35 = { model_type: 'qwen3_5', architectures: ['Qwen3_5ForConditionalGeneration'] };
const QWEN35_TEXT = {
  model_type: 'qwen3_5_text', attention_bias: false, full_attention_interval: 4, head_dim: 256, hidden_act: 'silu', linear_conv_kernel_dim: 4,
  linear_key_head_dim: 128, linear_num_key_heads: 16, linear_value_head_dim: 128, max_position_embeddings: 262144, mtp_num_hidden_layers: 1,
  partial_rotary_factor: 0.25, rms_norm_eps: 1e-6, vocab_size: 248320, dtype: 'bfloat16',
};
const QWEN35_VISION = { model_type: 'qwen3_5', deepstack_visual_indexes: [], hidden_act: 'gelu_pytorch_tanh', in_channels: 3, num_position_embeddings: 2304, patch_size: 16, spatial_merge_size: 2, temporal_patch_size: 2 };
const QWEN35_VISION_LARGE = { ...QWEN35_VISION, depth: 27, hidden_size: 1152, intermediate_size: 4304, num_heads: 16 };

const LLAMA4 = {
  model_type: 'llama4', architectures: ['Llama4ForConditionalGeneration'], tie_word_embeddings: false,
  vision_config: {
    model_type: 'llama4_vision_model', hidden_size: 1408, intermediate_size: 5632, num_hidden_layers: 34, num_attention_heads: 16, image_size: 336,
    patch_size: 14, num_channels: 3, pixel_shuffle_ratio: 0.5, projector_input_dim: 4096, projector_output_dim: 4096, vision_output_dim: 4096,
  },
};
const LLAMA4_TEXT = {
  model_type: 'llama4_text', attention_bias: false, attention_chunk_size: 8192, attn_scale: 0.1, attn_temperature_tuning: true, floor_scale: 8192,
  head_dim: 128, hidden_act: 'silu', hidden_size: 5120, intermediate_size: 8192, intermediate_size_mlp: 16384, num_attention_heads: 40,
  num_experts_per_tok: 1, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-5, vocab_size: 202048, tie_word_embeddings: false,
  no_rope_layers: Array.from({ length: 48 }, (_, i) => ((i + 1) % 4 === 0 ? 0 : 1)),
};

/** Mistral Small 24B's language model (mistralai/Mistral-Small-24B-Base-2501 and the text_config of 3.1 / 3.2). */
const MISTRAL_SMALL_TEXT = {
  model_type: 'mistral', head_dim: 128, hidden_act: 'silu', hidden_size: 5120, intermediate_size: 32768, num_attention_heads: 32,
  num_hidden_layers: 40, num_key_value_heads: 8, rms_norm_eps: 1e-5, rope_theta: 100000000, sliding_window: null, tie_word_embeddings: false,
  torch_dtype: 'bfloat16', vocab_size: 131072,
};

/** Fields the Phi-3-mini and Phi-3.5-mini config.json files share. */
const PHI3_MINI = {
  model_type: 'phi3', architectures: ['Phi3ForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 3072, intermediate_size: 8192,
  num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, original_max_position_embeddings: 4096, rms_norm_eps: 1e-5,
  tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32064,
};

/** Fields the OLMo 2 config.json files share. */
const OLMO2 = {
  model_type: 'olmo2', architectures: ['Olmo2ForCausalLM'], attention_bias: false, hidden_act: 'silu', max_position_embeddings: 4096,
  rms_norm_eps: 1e-6, rope_theta: 500000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 100352,
};

/** Fields the GLM-4.5 family's config.json files share (zai-org/GLM-4.5, GLM-4.5-Air, GLM-4.6). */
const GLM45_COMMON = {
  model_type: 'glm4_moe',
  architectures: ['Glm4MoeForCausalLM'],
  attention_bias: true,
  head_dim: 128,
  hidden_act: 'silu',
  n_group: 1,
  n_shared_experts: 1,
  norm_topk_prob: true,
  num_attention_heads: 96,
  num_experts_per_tok: 8,
  num_key_value_heads: 8,
  num_nextn_predict_layers: 1,
  partial_rotary_factor: 0.5,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: false,
  topk_group: 1,
  torch_dtype: 'bfloat16',
  vocab_size: 151552,
};

const DEEPSEEK_16B_MLA = {
  first_k_dense_replace: 1,
  hidden_act: 'silu',
  hidden_size: 2048,
  kv_lora_rank: 512,
  moe_intermediate_size: 1408,
  moe_layer_freq: 1,
  n_routed_experts: 64,
  n_shared_experts: 2,
  num_attention_heads: 16,
  num_experts_per_tok: 6,
  num_hidden_layers: 27,
  num_key_value_heads: 16,
  q_lora_rank: null,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  v_head_dim: 128,
};

/** openai/gpt-oss-20b config.json (bf16 architecture; the published checkpoint stores the experts in MXFP4). */
const GPT_OSS_20B = {
  model_type: 'gpt_oss',
  architectures: ['GptOssForCausalLM'],
  attention_bias: true,
  attention_dropout: 0.0,
  experts_per_token: 4,
  head_dim: 64,
  hidden_act: 'silu',
  hidden_size: 2880,
  intermediate_size: 2880,
  max_position_embeddings: 131072,
  num_attention_heads: 64,
  num_experts_per_tok: 4,
  num_hidden_layers: 24,
  num_key_value_heads: 8,
  num_local_experts: 32,
  output_router_logits: false,
  rms_norm_eps: 1e-5,
  rope_theta: 150000,
  sliding_window: 128,
  swiglu_limit: 7.0,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 201088,
};

export const MODEL_CATALOG: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // The Llama 2 checkpoints come first.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'meta-llama/Llama-2-7b-hf',
    aliases: ['NousResearch/Llama-2-7b-hf', 'meta-llama/Llama-2-7b-chat-hf', 'NousResearch/Llama-2-7b-chat-hf'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    publishedParams: 6_738_415_616,
    source: hf('meta-llama/Llama-2-7b-hf'),
  },
  {
    id: 'meta-llama/Llama-2-13b-hf',
    aliases: ['NousResearch/Llama-2-13b-hf', 'meta-llama/Llama-2-13b-chat-hf', 'NousResearch/Llama-2-13b-chat-hf'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 13824,
      max_position_embeddings: 4096,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 40,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    publishedParams: 13_015_864_320,
    source: hf('meta-llama/Llama-2-13b-hf'),
  },
  {
    id: 'meta-llama/Llama-2-70b-hf',
    aliases: ['NousResearch/Llama-2-70b-hf', 'meta-llama/Llama-2-70b-chat-hf', 'NousResearch/Llama-2-70b-chat-hf'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 28672,
      max_position_embeddings: 4096,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    publishedParams: 68_976_648_192,
    source: hf('meta-llama/Llama-2-70b-hf'),
  },

  // ---------------------------------------------------------------------------------------------
  // The Llama 3, 3.1 and 3.2 checkpoints use grouped-query attention and a 128256-token vocabulary.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'meta-llama/Meta-Llama-3-8B',
    aliases: ['meta-llama/Llama-3-8B', 'meta-llama/Meta-Llama-3-8B-Instruct', 'NousResearch/Meta-Llama-3-8B', 'unsloth/llama-3-8b', 'unsloth/llama-3-8b-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 8192,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 8_030_261_248,
    source: hf('meta-llama/Meta-Llama-3-8B'),
  },
  {
    id: 'meta-llama/Meta-Llama-3-70B',
    aliases: ['meta-llama/Llama-3-70B', 'meta-llama/Meta-Llama-3-70B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 28672,
      max_position_embeddings: 8192,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 70_553_706_496,
    source: hf('meta-llama/Meta-Llama-3-70B'),
  },
  {
    id: 'meta-llama/Llama-3.1-8B',
    aliases: [
      'meta-llama/Meta-Llama-3.1-8B',
      'meta-llama/Llama-3.1-8B-Instruct',
      'meta-llama/Meta-Llama-3.1-8B-Instruct',
      'unsloth/Meta-Llama-3.1-8B',
      'unsloth/Meta-Llama-3.1-8B-Instruct',
    ],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 8_030_261_248,
    source: hf('meta-llama/Llama-3.1-8B'),
  },
  {
    id: 'meta-llama/Llama-3.1-70B',
    aliases: [
      'meta-llama/Meta-Llama-3.1-70B',
      'meta-llama/Llama-3.1-70B-Instruct',
      'meta-llama/Meta-Llama-3.1-70B-Instruct',
      'meta-llama/Llama-3.3-70B-Instruct',
      // DeepSeek-R1-Distill-Llama-70B is a fine-tune of Llama-3.3-70B-Instruct (same config).
      'deepseek-ai/DeepSeek-R1-Distill-Llama-70B',
    ],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 28672,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 70_553_706_496,
    source: hf('meta-llama/Llama-3.1-70B'),
  },
  {
    id: 'meta-llama/Llama-3.1-405B',
    aliases: ['meta-llama/Meta-Llama-3.1-405B', 'meta-llama/Llama-3.1-405B-Instruct', 'meta-llama/Meta-Llama-3.1-405B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 16384,
      intermediate_size: 53248,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 128,
      num_hidden_layers: 126,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 405_853_388_800,
    source: hf('meta-llama/Llama-3.1-405B'),
  },
  {
    id: 'meta-llama/Llama-3.2-1B',
    aliases: ['meta-llama/Llama-3.2-1B-Instruct', 'unsloth/Llama-3.2-1B', 'unsloth/Llama-3.2-1B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      head_dim: 64,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 8192,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 16,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 1_235_814_400,
    source: hf('meta-llama/Llama-3.2-1B'),
  },
  {
    id: 'meta-llama/Llama-3.2-3B',
    aliases: ['meta-llama/Llama-3.2-3B-Instruct', 'unsloth/Llama-3.2-3B', 'unsloth/Llama-3.2-3B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 3072,
      intermediate_size: 8192,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 24,
      num_hidden_layers: 28,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 3_212_749_824,
    source: hf('meta-llama/Llama-3.2-3B'),
  },

  // ---------------------------------------------------------------------------------------------
  // The Mistral and Mixtral checkpoints follow.
  // ---------------------------------------------------------------------------------------------
  {
    // Mistral 7B v0.1 uses a 4096-token sliding attention window; zephyr-7b-beta is a fine-tune with the same config.
    id: 'mistralai/Mistral-7B-v0.1',
    aliases: ['mistralai/Mistral-7B-Instruct-v0.1', 'HuggingFaceH4/zephyr-7b-beta'],
    config: {
      model_type: 'mistral',
      architectures: ['MistralForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 32768,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      sliding_window: 4096,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32000,
    },
    publishedParams: 7_241_732_096,
    source: hf('mistralai/Mistral-7B-v0.1'),
  },
  {
    // v0.3 extends the vocabulary to 32768 and drops the sliding window.
    id: 'mistralai/Mistral-7B-v0.3',
    aliases: ['mistralai/Mistral-7B-Instruct-v0.3'],
    config: {
      model_type: 'mistral',
      architectures: ['MistralForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 32768,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      sliding_window: null,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32768,
    },
    publishedParams: 7_248_023_552,
    source: hf('mistralai/Mistral-7B-v0.3'),
  },
  {
    // Mistral NeMo sets head_dim 128 explicitly, which is not hidden_size / num_attention_heads (160).
    id: 'mistralai/Mistral-Nemo-Base-2407',
    aliases: ['mistralai/Mistral-Nemo-Instruct-2407'],
    config: {
      model_type: 'mistral',
      architectures: ['MistralForCausalLM'],
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 14336,
      max_position_embeddings: 1024000,
      num_attention_heads: 32,
      num_hidden_layers: 40,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      sliding_window: null,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 131072,
    },
    publishedParams: 12_247_782_400,
    source: hf('mistralai/Mistral-Nemo-Base-2407'),
  },
  {
    id: 'mistralai/Mixtral-8x7B-v0.1',
    aliases: ['mistralai/Mixtral-8x7B-Instruct-v0.1'],
    config: {
      model_type: 'mixtral',
      architectures: ['MixtralForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 32768,
      num_attention_heads: 32,
      num_experts_per_tok: 2,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      num_local_experts: 8,
      rms_norm_eps: 1e-5,
      router_aux_loss_coef: 0.02,
      sliding_window: null,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32000,
    },
    publishedParams: 46_702_792_704,
    source: hf('mistralai/Mixtral-8x7B-v0.1'),
  },
  {
    // The base v0.1 checkpoint keeps the 32000-token vocabulary; the Instruct release uses 32768, so it is not an alias.
    id: 'mistralai/Mixtral-8x22B-v0.1',
    config: {
      model_type: 'mixtral',
      architectures: ['MixtralForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 6144,
      intermediate_size: 16384,
      max_position_embeddings: 65536,
      num_attention_heads: 48,
      num_experts_per_tok: 2,
      num_hidden_layers: 56,
      num_key_value_heads: 8,
      num_local_experts: 8,
      rms_norm_eps: 1e-5,
      router_aux_loss_coef: 0.001,
      sliding_window: null,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32000,
    },
    publishedParams: 140_620_634_112,
    source: hf('mistralai/Mixtral-8x22B-v0.1'),
  },

  // ---------------------------------------------------------------------------------------------
  // The Qwen2 and Qwen2.5 checkpoints and their distills use model_type qwen2, which always has bias on q_proj, k_proj and v_proj.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen2-7B',
    aliases: ['Qwen/Qwen2-7B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 3584,
      intermediate_size: 18944,
      max_position_embeddings: 131072,
      num_attention_heads: 28,
      num_hidden_layers: 28,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 7_615_616_512,
    source: hf('Qwen/Qwen2-7B'),
  },
  {
    id: 'Qwen/Qwen2.5-0.5B',
    aliases: ['Qwen/Qwen2.5-0.5B-Instruct', 'Qwen/Qwen2.5-Coder-0.5B', 'Qwen/Qwen2.5-Coder-0.5B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 896,
      intermediate_size: 4864,
      max_position_embeddings: 32768,
      num_attention_heads: 14,
      num_hidden_layers: 24,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 494_032_768,
    source: hf('Qwen/Qwen2.5-0.5B'),
  },
  {
    id: 'Qwen/Qwen2.5-1.5B',
    aliases: ['Qwen/Qwen2.5-1.5B-Instruct', 'Qwen/Qwen2.5-Coder-1.5B', 'Qwen/Qwen2.5-Coder-1.5B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 1536,
      intermediate_size: 8960,
      max_position_embeddings: 131072,
      num_attention_heads: 12,
      num_hidden_layers: 28,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 1_543_714_304,
    source: hf('Qwen/Qwen2.5-1.5B'),
  },
  {
    id: 'Qwen/Qwen2.5-3B',
    aliases: ['Qwen/Qwen2.5-3B-Instruct', 'Qwen/Qwen2.5-Coder-3B', 'Qwen/Qwen2.5-Coder-3B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 11008,
      max_position_embeddings: 32768,
      num_attention_heads: 16,
      num_hidden_layers: 36,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 3_085_938_688,
    source: hf('Qwen/Qwen2.5-3B'),
  },
  {
    id: 'Qwen/Qwen2.5-7B',
    aliases: ['Qwen/Qwen2.5-7B-Instruct', 'Qwen/Qwen2.5-Coder-7B', 'Qwen/Qwen2.5-Coder-7B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 3584,
      intermediate_size: 18944,
      max_position_embeddings: 131072,
      num_attention_heads: 28,
      num_hidden_layers: 28,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 7_615_616_512,
    source: hf('Qwen/Qwen2.5-7B'),
  },
  {
    id: 'Qwen/Qwen2.5-14B',
    aliases: ['Qwen/Qwen2.5-14B-Instruct', 'Qwen/Qwen2.5-Coder-14B', 'Qwen/Qwen2.5-Coder-14B-Instruct', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-14B'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 13824,
      max_position_embeddings: 131072,
      num_attention_heads: 40,
      num_hidden_layers: 48,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 14_770_033_664,
    source: hf('Qwen/Qwen2.5-14B'),
  },
  {
    id: 'Qwen/Qwen2.5-32B',
    // QwQ-32B and its preview are Qwen2.5-32B fine-tunes; their config.json differs only in max_position_embeddings.
    aliases: ['Qwen/Qwen2.5-32B-Instruct', 'Qwen/Qwen2.5-Coder-32B', 'Qwen/Qwen2.5-Coder-32B-Instruct', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', 'Qwen/QwQ-32B', 'Qwen/QwQ-32B-Preview'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 27648,
      max_position_embeddings: 131072,
      num_attention_heads: 40,
      num_hidden_layers: 64,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 32_763_876_352,
    source: hf('Qwen/Qwen2.5-32B'),
  },
  {
    id: 'Qwen/Qwen2.5-72B',
    aliases: ['Qwen/Qwen2.5-72B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 29568,
      max_position_embeddings: 131072,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 72_706_203_648,
    source: hf('Qwen/Qwen2.5-72B'),
  },
  {
    // The R1 distill is a Qwen2.5-Math-7B fine-tune, so it shares the Qwen2.5-7B shapes.
    id: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B',
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 3584,
      intermediate_size: 18944,
      max_position_embeddings: 131072,
      num_attention_heads: 28,
      num_hidden_layers: 28,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 7_615_616_512,
    source: hf('deepseek-ai/DeepSeek-R1-Distill-Qwen-7B'),
  },
  {
    // Unlike Qwen2.5-1.5B, this Qwen2.5-Math-1.5B fine-tune does not tie its embeddings.
    id: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B',
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 1536,
      intermediate_size: 8960,
      max_position_embeddings: 131072,
      num_attention_heads: 12,
      num_hidden_layers: 28,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 1_777_088_000,
    source: hf('deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B'),
  },
  {
    id: 'deepseek-ai/DeepSeek-R1-Distill-Llama-8B',
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 8_030_261_248,
    source: hf('deepseek-ai/DeepSeek-R1-Distill-Llama-8B'),
  },

  // ---------------------------------------------------------------------------------------------
  // The Qwen3 checkpoints set head_dim 128 explicitly, add q_norm and k_norm per layer and have no attention bias.
  // ---------------------------------------------------------------------------------------------
  {
    // The safetensors totals of the small tied Qwen3 models count a stored lm_head copy, so publishedParams is left out for 0.6B, 1.7B and 4B.
    id: 'Qwen/Qwen3-0.6B',
    aliases: ['Qwen/Qwen3-0.6B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 1024,
      intermediate_size: 3072,
      max_position_embeddings: 40960,
      num_attention_heads: 16,
      num_hidden_layers: 28,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    source: hf('Qwen/Qwen3-0.6B'),
  },
  {
    id: 'Qwen/Qwen3-1.7B',
    aliases: ['Qwen/Qwen3-1.7B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 6144,
      max_position_embeddings: 40960,
      num_attention_heads: 16,
      num_hidden_layers: 28,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    source: hf('Qwen/Qwen3-1.7B'),
  },
  {
    // The July 2025 refreshes (-2507) keep the architecture and parameter count; only the context window grows
    // (max_position_embeddings 262144, rope_theta 5e6), which does not change memory at a given sequence length.
    id: 'Qwen/Qwen3-4B',
    aliases: ['Qwen/Qwen3-4B-Base', 'Qwen/Qwen3-4B-Instruct-2507', 'Qwen/Qwen3-4B-Thinking-2507'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 2560,
      intermediate_size: 9728,
      max_position_embeddings: 40960,
      num_attention_heads: 32,
      num_hidden_layers: 36,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    source: hf('Qwen/Qwen3-4B'),
  },
  {
    id: 'Qwen/Qwen3-8B',
    aliases: ['Qwen/Qwen3-8B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 12288,
      max_position_embeddings: 40960,
      num_attention_heads: 32,
      num_hidden_layers: 36,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 8_190_735_360,
    source: hf('Qwen/Qwen3-8B'),
  },
  {
    id: 'Qwen/Qwen3-14B',
    aliases: ['Qwen/Qwen3-14B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 17408,
      max_position_embeddings: 40960,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 14_768_307_200,
    source: hf('Qwen/Qwen3-14B'),
  },
  {
    // Qwen3-32B has 64 query heads of width 128, so the attention width (8192) exceeds hidden_size.
    id: 'Qwen/Qwen3-32B',
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 25600,
      max_position_embeddings: 40960,
      num_attention_heads: 64,
      num_hidden_layers: 64,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 32_762_123_264,
    source: hf('Qwen/Qwen3-32B'),
  },
  {
    // Every layer is sparse (decoder_sparse_step 1, no mlp_only_layers); intermediate_size is unused by the MoE layers.
    // The -2507 refreshes keep the architecture (only the context window grows, as for Qwen3-4B).
    id: 'Qwen/Qwen3-30B-A3B',
    aliases: ['Qwen/Qwen3-30B-A3B-Base', 'Qwen/Qwen3-30B-A3B-Instruct-2507', 'Qwen/Qwen3-30B-A3B-Thinking-2507', 'Qwen/Qwen3-Coder-30B-A3B-Instruct'],
    config: {
      model_type: 'qwen3_moe',
      architectures: ['Qwen3MoeForCausalLM'],
      attention_bias: false,
      decoder_sparse_step: 1,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 6144,
      max_position_embeddings: 40960,
      mlp_only_layers: [],
      moe_intermediate_size: 768,
      norm_topk_prob: true,
      num_attention_heads: 32,
      num_experts: 128,
      num_experts_per_tok: 8,
      num_hidden_layers: 48,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      router_aux_loss_coef: 0.001,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 30_532_122_624,
    source: hf('Qwen/Qwen3-30B-A3B'),
  },
  {
    // 24 layers of 32 experts (top-4) with bias, attention with bias and one learned sink logit per head, alternating
    // sliding (128) and full attention. The checkpoint stores the experts in MXFP4; training dequantizes them to bf16
    // (transformers Mxfp4Config(dequantize=True)), so the catalog keeps the bf16 architecture only.
    // 20,914,757,184 parameters: gpt-oss model card (arXiv 2508.10925, Table 1: 20.91B total).
    id: 'openai/gpt-oss-20b',
    aliases: ['unsloth/gpt-oss-20b-BF16', 'unsloth/gpt-oss-20b'],
    config: GPT_OSS_20B,
    publishedParams: 20_914_757_184,
    source: hf('openai/gpt-oss-20b'),
  },
  {
    // As gpt-oss-20b with 36 layers of 128 experts. 116,829,156,672 parameters: gpt-oss model card (Table 1: 116.83B).
    id: 'openai/gpt-oss-120b',
    aliases: ['unsloth/gpt-oss-120b-BF16', 'unsloth/gpt-oss-120b', 'axolotl-ai-co/gpt-oss-120b-dequantized'],
    config: { ...GPT_OSS_20B, num_hidden_layers: 36, num_local_experts: 128 },
    publishedParams: 116_829_156_672,
    source: hf('openai/gpt-oss-120b'),
  },
  {
    // Each layer has 60 routed experts of width 1408 plus one gated shared expert of width 5632.
    id: 'Qwen/Qwen1.5-MoE-A2.7B',
    aliases: ['Qwen/Qwen1.5-MoE-A2.7B-Chat'],
    config: {
      model_type: 'qwen2_moe',
      architectures: ['Qwen2MoeForCausalLM'],
      decoder_sparse_step: 1,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 5632,
      max_position_embeddings: 8192,
      moe_intermediate_size: 1408,
      norm_topk_prob: false,
      num_attention_heads: 16,
      num_experts: 60,
      num_experts_per_tok: 4,
      num_hidden_layers: 24,
      num_key_value_heads: 16,
      rms_norm_eps: 1e-6,
      router_aux_loss_coef: 0.001,
      shared_expert_intermediate_size: 5632,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 14_315_784_192,
    source: hf('Qwen/Qwen1.5-MoE-A2.7B'),
  },

  // ---------------------------------------------------------------------------------------------
  // DeepSeek MLA + MoE decoders (modeling_deepseek_v3.py; DeepSeek-V2 shares the layout): q_proj (no q LoRA rank in the
  // small models), a 512-wide compressed key/value latent, 128 + 64 wide q/k heads and 128-wide value heads; the first
  // layer has a dense MLP, the others 64 routed experts (top 6) and 2 shared experts of width 1408. Counts from the
  // architecture (the model cards give 15.7B and 16B).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'deepseek-ai/DeepSeek-V2-Lite',
    aliases: ['deepseek-ai/DeepSeek-V2-Lite-Chat'],
    config: {
      ...DEEPSEEK_16B_MLA, model_type: 'deepseek_v2', architectures: ['DeepseekV2ForCausalLM'], attention_bias: false,
      intermediate_size: 10944, max_position_embeddings: 163840, rms_norm_eps: 1e-6, vocab_size: 102400,
    },
    source: hf('deepseek-ai/DeepSeek-V2-Lite'),
  },
  {
    // The DeepSeek-V3 architecture at DeepSeek-V2-Lite's size, with a 163,840-token vocabulary and an 11,264-wide
    // dense first layer.
    id: 'moonshotai/Moonlight-16B-A3B',
    aliases: ['moonshotai/Moonlight-16B-A3B-Instruct'],
    config: {
      ...DEEPSEEK_16B_MLA, model_type: 'deepseek_v3', architectures: ['DeepseekV3ForCausalLM'],
      intermediate_size: 11264, max_position_embeddings: 8192, rms_norm_eps: 1e-5, vocab_size: 163840,
    },
    source: hf('moonshotai/Moonlight-16B-A3B'),
  },
  {
    // DeepSeek-V3 (and R1, V3-0324, V3.1, which keep its config.json): 61 decoder layers, MLA attention, 3 dense
    // layers, then 256 routed experts (top 8) and one shared expert per layer. 671,026,404,352 parameters by hand in
    // architecture.test.ts (the report's 671B; the Hub's 685B adds the multi-token-prediction layer transformers does
    // not load). The checkpoint stores FP8 blocks; training loads the weights in bf16, as counted here.
    id: 'deepseek-ai/DeepSeek-V3',
    aliases: ['deepseek-ai/DeepSeek-V3-Base', 'deepseek-ai/DeepSeek-V3-0324', 'deepseek-ai/DeepSeek-R1', 'deepseek-ai/DeepSeek-R1-0528', 'deepseek-ai/DeepSeek-V3.1', 'deepseek-ai/DeepSeek-V3.1-Base'],
    config: {
      model_type: 'deepseek_v3', architectures: ['DeepseekV3ForCausalLM'], hidden_act: 'silu', hidden_size: 7168, intermediate_size: 18432,
      kv_lora_rank: 512, moe_intermediate_size: 2048, moe_layer_freq: 1, n_group: 8, n_routed_experts: 256, n_shared_experts: 1,
      norm_topk_prob: true, num_attention_heads: 128, num_experts_per_tok: 8, num_hidden_layers: 61, num_key_value_heads: 128,
      q_lora_rank: 1536, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128, vocab_size: 129280, first_k_dense_replace: 3,
      topk_group: 4, tie_word_embeddings: false, max_position_embeddings: 163840, rms_norm_eps: 1e-6, torch_dtype: 'bfloat16',
    },
    source: hf('deepseek-ai/DeepSeek-V3'),
  },

  // ---------------------------------------------------------------------------------------------
  // Qwen2.5-VL and Qwen2-VL: the Qwen2.5 / Qwen2 language model of the same size (the fields at the top of config.json)
  // beside a 32-block ViT of width 1280 and a merger into the language model's width (vision_config). Totals by hand in
  // architecture.test.ts: 3,754,622,976 / 8,292,166,656 / 73,406,351,360 and 2,208,985,600 / 8,291,375,616.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen2.5-VL-3B-Instruct',
    config: { ...QWEN25_VL, hidden_size: 2048, intermediate_size: 11008, num_attention_heads: 16, num_hidden_layers: 36, num_key_value_heads: 2, tie_word_embeddings: true, vocab_size: 151936, vision_config: { ...QWEN25_VL_VISION, out_hidden_size: 2048 } },
    source: hf('Qwen/Qwen2.5-VL-3B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2.5-VL-7B-Instruct',
    config: { ...QWEN25_VL, hidden_size: 3584, intermediate_size: 18944, num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4, tie_word_embeddings: false, vocab_size: 152064, vision_config: { ...QWEN25_VL_VISION, out_hidden_size: 3584 } },
    source: hf('Qwen/Qwen2.5-VL-7B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2.5-VL-72B-Instruct',
    config: { ...QWEN25_VL, hidden_size: 8192, intermediate_size: 29568, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, tie_word_embeddings: false, vocab_size: 152064, vision_config: { ...QWEN25_VL_VISION, out_hidden_size: 8192 } },
    source: hf('Qwen/Qwen2.5-VL-72B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2-VL-2B-Instruct',
    config: { ...QWEN2_VL, hidden_size: 1536, intermediate_size: 8960, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 2, tie_word_embeddings: true, vocab_size: 151936, vision_config: { ...QWEN2_VL_VISION, hidden_size: 1536 } },
    source: hf('Qwen/Qwen2-VL-2B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2-VL-7B-Instruct',
    config: { ...QWEN2_VL, hidden_size: 3584, intermediate_size: 18944, num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4, tie_word_embeddings: false, vocab_size: 152064, vision_config: { ...QWEN2_VL_VISION, hidden_size: 3584 } },
    source: hf('Qwen/Qwen2-VL-7B-Instruct'),
  },

  // Qwen3-VL (dense): the Qwen3 language model of the same size under text_config, a SigLIP-2-sized ViT with a learned
  // position table, its merger and three deepstack mergers (architecture.test.ts: 4,437,815,808 and 8,767,123,696).
  {
    id: 'Qwen/Qwen3-VL-4B-Instruct',
    aliases: ['Qwen/Qwen3-VL-4B-Thinking'],
    config: {
      ...QWEN3_VL, tie_word_embeddings: true,
      text_config: { ...QWEN3_VL_TEXT, hidden_size: 2560, intermediate_size: 9728, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8, tie_word_embeddings: true },
      vision_config: { ...QWEN3_VL_VISION, depth: 24, hidden_size: 1024, intermediate_size: 4096, out_hidden_size: 2560, deepstack_visual_indexes: [5, 11, 17] },
    },
    source: hf('Qwen/Qwen3-VL-4B-Instruct'),
  },
  {
    id: 'Qwen/Qwen3-VL-8B-Instruct',
    aliases: ['Qwen/Qwen3-VL-8B-Thinking'],
    config: {
      ...QWEN3_VL, tie_word_embeddings: false,
      text_config: { ...QWEN3_VL_TEXT, hidden_size: 4096, intermediate_size: 12288, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8, tie_word_embeddings: false },
      vision_config: { ...QWEN3_VL_VISION, depth: 27, hidden_size: 1152, intermediate_size: 4304, out_hidden_size: 4096, deepstack_visual_indexes: [8, 16, 24] },
    },
    source: hf('Qwen/Qwen3-VL-8B-Instruct'),
  },
  {
    // Qwen3-30B-A3B's language model (30,532,122,624) under text_config, its experts 3-D parameters, and Qwen3-VL's
    // 27-block tower of 1152 with three deepstack mergers into 2048 (538,631,408): 31,070,754,032 by hand in
    // architecture.test.ts, the model page's 31.1B.
    id: 'Qwen/Qwen3-VL-30B-A3B-Instruct',
    aliases: ['Qwen/Qwen3-VL-30B-A3B-Thinking'],
    config: {
      model_type: 'qwen3_vl_moe', architectures: ['Qwen3VLMoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN3_VL_TEXT, model_type: 'qwen3_vl_moe_text', decoder_sparse_step: 1, hidden_size: 2048, intermediate_size: 6144, mlp_only_layers: [],
        moe_intermediate_size: 768, norm_topk_prob: true, num_attention_heads: 32, num_experts: 128, num_experts_per_tok: 8, num_hidden_layers: 48,
        num_key_value_heads: 4, rope_theta: 5000000,
      },
      vision_config: { ...QWEN3_VL_VISION, model_type: 'qwen3_vl_moe', depth: 27, hidden_size: 1152, intermediate_size: 4304, out_hidden_size: 2048, deepstack_visual_indexes: [8, 16, 24] },
    },
    source: hf('Qwen/Qwen3-VL-30B-A3B-Instruct'),
  },

  // ---------------------------------------------------------------------------------------------
  // Qwen3.5 and Qwen3-Next: Gated DeltaNet linear attention in three layers of four, gated full attention in the fourth.
  // Counts are what transformers loads (language model + vision tower, no MTP head): the Hub totals less the MTP head,
  // worked by hand in architecture.test.ts. A checkpoint re-saved by transformers has exactly that count (Qwen3.5-9B
  // fine-tunes 9,409,813,744 and a Qwen3.5-27B fine-tune 27,356,728,560 on the Hub; Qwen3-Coder-Next, which stores no MTP
  // head, 79,674,391,296).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen3.5-0.8B',
    aliases: ['Qwen/Qwen3.5-0.8B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: true,
      text_config: { ...QWEN35_TEXT, hidden_size: 1024, intermediate_size: 3584, linear_num_value_heads: 16, num_attention_heads: 8, num_hidden_layers: 24, num_key_value_heads: 2, tie_word_embeddings: true },
      vision_config: { ...QWEN35_VISION, depth: 12, hidden_size: 768, intermediate_size: 3072, num_heads: 12, out_hidden_size: 1024 },
    },
    source: hf('Qwen/Qwen3.5-0.8B'),
  },
  {
    id: 'Qwen/Qwen3.5-2B',
    aliases: ['Qwen/Qwen3.5-2B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: true,
      text_config: { ...QWEN35_TEXT, hidden_size: 2048, intermediate_size: 6144, linear_num_value_heads: 16, num_attention_heads: 8, num_hidden_layers: 24, num_key_value_heads: 2, tie_word_embeddings: true },
      vision_config: { ...QWEN35_VISION, depth: 24, hidden_size: 1024, intermediate_size: 4096, num_heads: 16, out_hidden_size: 2048 },
    },
    source: hf('Qwen/Qwen3.5-2B'),
  },
  {
    id: 'Qwen/Qwen3.5-4B',
    aliases: ['Qwen/Qwen3.5-4B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: true,
      text_config: { ...QWEN35_TEXT, hidden_size: 2560, intermediate_size: 9216, linear_num_value_heads: 32, num_attention_heads: 16, num_hidden_layers: 32, num_key_value_heads: 4, tie_word_embeddings: true },
      vision_config: { ...QWEN35_VISION, depth: 24, hidden_size: 1024, intermediate_size: 4096, num_heads: 16, out_hidden_size: 2560 },
    },
    source: hf('Qwen/Qwen3.5-4B'),
  },
  {
    id: 'Qwen/Qwen3.5-9B',
    aliases: ['Qwen/Qwen3.5-9B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: false,
      text_config: { ...QWEN35_TEXT, hidden_size: 4096, intermediate_size: 12288, linear_num_value_heads: 32, num_attention_heads: 16, num_hidden_layers: 32, num_key_value_heads: 4, tie_word_embeddings: false },
      vision_config: { ...QWEN35_VISION_LARGE, out_hidden_size: 4096 },
    },
    publishedParams: 9_409_813_744,
    source: hf('Qwen/Qwen3.5-9B'),
  },
  {
    id: 'Qwen/Qwen3.5-27B',
    aliases: ['Qwen/Qwen3.6-27B'],
    config: {
      ...QWEN35, tie_word_embeddings: false,
      text_config: { ...QWEN35_TEXT, hidden_size: 5120, intermediate_size: 17408, linear_num_value_heads: 48, num_attention_heads: 24, num_hidden_layers: 64, num_key_value_heads: 4, tie_word_embeddings: false },
      vision_config: { ...QWEN35_VISION_LARGE, out_hidden_size: 5120 },
    },
    publishedParams: 27_356_728_560,
    source: hf('Qwen/Qwen3.5-27B'),
  },
  {
    id: 'Qwen/Qwen3.5-35B-A3B',
    aliases: ['Qwen/Qwen3.6-35B-A3B', 'Qwen/Qwen3.5-35B-A3B-Base'],
    config: {
      model_type: 'qwen3_5_moe', architectures: ['Qwen3_5MoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, model_type: 'qwen3_5_moe_text', hidden_size: 2048, linear_num_value_heads: 32, moe_intermediate_size: 512, num_attention_heads: 16,
        num_experts: 256, num_experts_per_tok: 8, num_hidden_layers: 40, num_key_value_heads: 2, shared_expert_intermediate_size: 512, tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, model_type: 'qwen3_5_moe', out_hidden_size: 2048 },
    },
    source: hf('Qwen/Qwen3.5-35B-A3B'),
  },
  {
    id: 'Qwen/Qwen3.5-122B-A10B',
    config: {
      model_type: 'qwen3_5_moe', architectures: ['Qwen3_5MoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, model_type: 'qwen3_5_moe_text', hidden_size: 3072, linear_num_value_heads: 64, moe_intermediate_size: 1024, num_attention_heads: 32,
        num_experts: 256, num_experts_per_tok: 8, num_hidden_layers: 48, num_key_value_heads: 2, shared_expert_intermediate_size: 1024, tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, model_type: 'qwen3_5_moe', out_hidden_size: 3072 },
    },
    source: hf('Qwen/Qwen3.5-122B-A10B'),
  },
  {
    id: 'Qwen/Qwen3.5-397B-A17B',
    config: {
      model_type: 'qwen3_5_moe', architectures: ['Qwen3_5MoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, model_type: 'qwen3_5_moe_text', hidden_size: 4096, linear_num_value_heads: 64, moe_intermediate_size: 1024, num_attention_heads: 32,
        num_experts: 512, num_experts_per_tok: 10, num_hidden_layers: 60, num_key_value_heads: 2, shared_expert_intermediate_size: 1024, tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, model_type: 'qwen3_5_moe', out_hidden_size: 4096 },
    },
    source: hf('Qwen/Qwen3.5-397B-A17B'),
  },
  {
    // 48 layers of 2048: Gated DeltaNet (16 key heads, 32 value heads of 128) three times in four, gated attention of 16
    // heads x 256 (2 kv) in the fourth; 512 experts of 512 (top-10), a shared expert of 512 and its gate in every layer.
    id: 'Qwen/Qwen3-Next-80B-A3B-Instruct',
    aliases: ['Qwen/Qwen3-Next-80B-A3B-Thinking', 'Qwen/Qwen3-Coder-Next'],
    config: {
      model_type: 'qwen3_next', architectures: ['Qwen3NextForCausalLM'], decoder_sparse_step: 1, full_attention_interval: 4, head_dim: 256, hidden_act: 'silu',
      hidden_size: 2048, intermediate_size: 5120, linear_conv_kernel_dim: 4, linear_key_head_dim: 128, linear_num_key_heads: 16, linear_num_value_heads: 32,
      linear_value_head_dim: 128, max_position_embeddings: 262144, mlp_only_layers: [], moe_intermediate_size: 512, norm_topk_prob: true, num_attention_heads: 16,
      num_experts: 512, num_experts_per_tok: 10, num_hidden_layers: 48, num_key_value_heads: 2, partial_rotary_factor: 0.25, rms_norm_eps: 1e-6,
      rope_theta: 10000000, shared_expert_intermediate_size: 512, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    publishedParams: 79_674_391_296,
    source: hf('Qwen/Qwen3-Next-80B-A3B-Instruct'),
  },

  // ---------------------------------------------------------------------------------------------
  // IBM Granite 4.0 H (granitemoehybrid): Mamba2 layers with one attention layer (no position embedding) at 5, 15, 25
  // and 35 of 40, a gated shared MLP in every layer, tied embeddings (architecture.test.ts works the count out).
  // ---------------------------------------------------------------------------------------------
  {
    // 3,191,396,096: general.parameter_count of the GGUF conversion of this checkpoint (a tensor count, as the Hub's).
    id: 'ibm-granite/granite-4.0-h-micro',
    aliases: ['ibm-granite/granite-4.0-h-micro-base'],
    config: {
      model_type: 'granitemoehybrid', architectures: ['GraniteMoeHybridForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 2048,
      layer_types: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'attention' : 'mamba')), mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64,
      mamba_d_state: 128, mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 64, mamba_proj_bias: false, max_position_embeddings: 131072,
      num_attention_heads: 32, num_hidden_layers: 40, num_key_value_heads: 8, num_local_experts: 0, position_embedding_type: 'nope',
      shared_intermediate_size: 8192, tie_word_embeddings: true, vocab_size: 100352,
    },
    publishedParams: 3_191_396_096,
    source: hf('ibm-granite/granite-4.0-h-micro'),
  },
  {
    // 6,939,037,248: the Hub's safetensors total. 64 experts of 512 (top-6) beside a shared MLP of 1024 in every layer.
    id: 'ibm-granite/granite-4.0-h-tiny',
    aliases: ['ibm-granite/granite-4.0-h-tiny-base'],
    config: {
      model_type: 'granitemoehybrid', architectures: ['GraniteMoeHybridForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 1536, intermediate_size: 512,
      layer_types: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'attention' : 'mamba')), mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64,
      mamba_d_state: 128, mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 48, mamba_proj_bias: false, max_position_embeddings: 131072,
      num_attention_heads: 12, num_experts_per_tok: 6, num_hidden_layers: 40, num_key_value_heads: 4, num_local_experts: 64, position_embedding_type: 'nope',
      shared_intermediate_size: 1024, tie_word_embeddings: true, vocab_size: 100352,
    },
    publishedParams: 6_939_037_248,
    source: hf('ibm-granite/granite-4.0-h-tiny'),
  },
  {
    // 32,207,337,984: the Hub's safetensors total. 72 experts of 768 (top-10) beside a shared MLP of 1536.
    id: 'ibm-granite/granite-4.0-h-small',
    aliases: ['ibm-granite/granite-4.0-h-small-base'],
    config: {
      model_type: 'granitemoehybrid', architectures: ['GraniteMoeHybridForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096, intermediate_size: 768,
      layer_types: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'attention' : 'mamba')), mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64,
      mamba_d_state: 128, mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 128, mamba_proj_bias: false, max_position_embeddings: 131072,
      num_attention_heads: 32, num_experts_per_tok: 10, num_hidden_layers: 40, num_key_value_heads: 8, num_local_experts: 72, position_embedding_type: 'nope',
      shared_intermediate_size: 1536, tie_word_embeddings: true, vocab_size: 100352,
    },
    publishedParams: 32_207_337_984,
    source: hf('ibm-granite/granite-4.0-h-small'),
  },

  // ---------------------------------------------------------------------------------------------
  // Moonshot Kimi Linear (kimi_linear): 20 Kimi Delta Attention layers and 7 MLA layers without rotary embedding, a dense
  // first layer, then 256 routed experts (top 8) and one shared expert per layer (architecture.test.ts works the count out).
  // ---------------------------------------------------------------------------------------------
  {
    // 49,122,681,728 by hand, as the checkpoint's model.safetensors.index.json states (total_parameters).
    id: 'moonshotai/Kimi-Linear-48B-A3B-Instruct',
    aliases: ['moonshotai/Kimi-Linear-48B-A3B-Base'],
    config: {
      model_type: 'kimi_linear', architectures: ['KimiLinearForCausalLM'], first_k_dense_replace: 1, hidden_act: 'silu', hidden_size: 2304,
      intermediate_size: 9216, kv_lora_rank: 512, linear_attn_config: {
        full_attn_layers: [4, 8, 12, 16, 20, 24, 27], head_dim: 128,
        kda_layers: [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26], num_heads: 32, short_conv_kernel_size: 4,
      },
      mla_use_nope: true, model_max_length: 1048576, moe_intermediate_size: 1024, moe_layer_freq: 1, moe_renormalize: true, moe_router_activation_func: 'sigmoid',
      num_attention_heads: 32, num_expert_group: 1, num_experts: 256, num_experts_per_token: 8, num_hidden_layers: 27, num_key_value_heads: 32,
      num_shared_experts: 1, q_lora_rank: null, qk_nope_head_dim: 128, qk_rope_head_dim: 64, rms_norm_eps: 1e-5, routed_scaling_factor: 2.446,
      tie_word_embeddings: false, topk_group: 1, v_head_dim: 128, vocab_size: 163840, dtype: 'bfloat16',
    },
    publishedParams: 49_122_681_728,
    source: hf('moonshotai/Kimi-Linear-48B-A3B-Instruct'),
  },

  // ---------------------------------------------------------------------------------------------
  // AI21 Jamba (jamba): Mamba-1 layers with an attention layer in every 8 (offset 4) and Mixtral's MoE block in every
  // other layer (offset 1), 16 experts top-2 (architecture.test.ts works the count out).
  // ---------------------------------------------------------------------------------------------
  {
    // 51,570,323,328 by hand: 28 Mamba-1 layers, 4 attention layers, 16 MoE and 16 dense MLPs, an untied head.
    id: 'ai21labs/Jamba-v0.1',
    aliases: ['ai21labs/AI21-Jamba-1.5-Mini', 'ai21labs/AI21-Jamba-Mini-1.6', 'ai21labs/AI21-Jamba-Mini-1.7'],
    config: {
      model_type: 'jamba', architectures: ['JambaForCausalLM'], attn_layer_offset: 4, attn_layer_period: 8, expert_layer_offset: 1, expert_layer_period: 2,
      hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_state: 16, mamba_dt_rank: 256,
      mamba_expand: 2, mamba_proj_bias: false, max_position_embeddings: 262144, num_attention_heads: 32, num_experts: 16, num_experts_per_tok: 2,
      num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-6, tie_word_embeddings: false, use_mamba_kernels: true, vocab_size: 65536,
    },
    source: hf('ai21labs/Jamba-v0.1'),
  },
  {
    // Jamba 1.5 Large (and 1.6 / 1.7): 72 layers of 8192, 9 attention layers, dt rank 512; no published exact count.
    id: 'ai21labs/AI21-Jamba-1.5-Large',
    aliases: ['ai21labs/AI21-Jamba-Large-1.6', 'ai21labs/AI21-Jamba-Large-1.7'],
    config: {
      model_type: 'jamba', architectures: ['JambaForCausalLM'], attn_layer_offset: 4, attn_layer_period: 8, expert_layer_offset: 1, expert_layer_period: 2,
      hidden_act: 'silu', hidden_size: 8192, intermediate_size: 24576, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_state: 16, mamba_dt_rank: 512,
      mamba_expand: 2, mamba_proj_bias: false, max_position_embeddings: 262144, num_attention_heads: 64, num_experts: 16, num_experts_per_tok: 2,
      num_hidden_layers: 72, num_key_value_heads: 8, rms_norm_eps: 1e-6, tie_word_embeddings: false, use_mamba_kernels: true, vocab_size: 65536,
    },
    source: hf('ai21labs/AI21-Jamba-1.5-Large'),
  },

  // ---------------------------------------------------------------------------------------------
  // TII Falcon-H1 (falcon_h1): a Mamba2 mixer and attention side by side in every layer, then a SwiGLU MLP. The µP
  // multipliers change no byte; mamba_chunk_size 128 as in the 0.5B config (architecture.test.ts works the counts out).
  // ---------------------------------------------------------------------------------------------
  {
    // 521,411,104: the pinned checkpoint's parameter count (model.safetensors 1,042,886,408 B = 2 B x 521,411,104 + its
    // header). Attention heads of 64 (not 1024 / 8); no gated norm in the mixer (mamba_rms_norm false).
    id: 'tiiuae/Falcon-H1-0.5B-Base',
    aliases: ['tiiuae/Falcon-H1-0.5B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, attention_in_multiplier: 1.0, attention_out_multiplier: 0.9375,
      embedding_multiplier: 5.656854249492381, head_dim: 64, hidden_act: 'silu', hidden_size: 1024, intermediate_size: 2048, key_multiplier: 0.39062499999999994,
      lm_head_multiplier: 0.0390625, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_ssm: 1536, mamba_d_state: 128,
      mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 24, mamba_norm_before_gate: false, mamba_proj_bias: false, mamba_rms_norm: false,
      max_position_embeddings: 16384, mlp_bias: false, mlp_multipliers: [0.8838834764831844, 0.5859375], num_attention_heads: 8, num_hidden_layers: 36,
      num_key_value_heads: 2, projectors_bias: false, rms_norm_eps: 1e-5, ssm_in_multiplier: 1.25,
      ssm_multipliers: [0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738], ssm_out_multiplier: 0.23570226039551587,
      tie_word_embeddings: false, vocab_size: 32784,
    },
    publishedParams: 521_411_104,
    source: hf('tiiuae/Falcon-H1-0.5B-Base'),
  },
  {
    // 1,554,863,488: sum(p.numel()) of transformers' FalconH1ForCausalLM (411 tensors = 24 x 17 + 3).
    id: 'tiiuae/Falcon-H1-1.5B-Base',
    aliases: ['tiiuae/Falcon-H1-1.5B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 2048,
      intermediate_size: 4608, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_ssm: 3072, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 48, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 8, num_hidden_layers: 24,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 65537,
    },
    publishedParams: 1_554_863_488,
    source: hf('tiiuae/Falcon-H1-1.5B-Base'),
  },
  {
    // 66 layers of hidden 1280 (6 attention heads of 128, not 1280 / 6); no published exact count.
    id: 'tiiuae/Falcon-H1-1.5B-Deep-Base',
    aliases: ['tiiuae/Falcon-H1-1.5B-Deep-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 1280,
      intermediate_size: 3072, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_ssm: 1536, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 24, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 6, num_hidden_layers: 66,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 65537,
    },
    source: hf('tiiuae/Falcon-H1-1.5B-Deep-Base'),
  },
  {
    // No published exact count.
    id: 'tiiuae/Falcon-H1-3B-Base',
    aliases: ['tiiuae/Falcon-H1-3B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 2560,
      intermediate_size: 6144, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 128, mamba_d_ssm: 4096, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 32, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 10, num_hidden_layers: 32,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 65537,
    },
    source: hf('tiiuae/Falcon-H1-3B-Base'),
  },
  {
    // 7,585,654,880: a measured census of the checkpoint (44 layers).
    id: 'tiiuae/Falcon-H1-7B-Base',
    aliases: ['tiiuae/Falcon-H1-7B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 3072,
      intermediate_size: 12288, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 128, mamba_d_ssm: 3072, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 24, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 12, num_hidden_layers: 44,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 130049,
    },
    publishedParams: 7_585_654_880,
    source: hf('tiiuae/Falcon-H1-7B-Base'),
  },
  {
    // Two Mamba2 groups; no published exact count.
    id: 'tiiuae/Falcon-H1-34B-Base',
    aliases: ['tiiuae/Falcon-H1-34B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 5120,
      intermediate_size: 21504, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 128, mamba_d_ssm: 4096, mamba_d_state: 256,
      mamba_n_groups: 2, mamba_n_heads: 32, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 20, num_hidden_layers: 72,
      num_key_value_heads: 4, projectors_bias: false, tie_word_embeddings: false, vocab_size: 261120,
    },
    source: hf('tiiuae/Falcon-H1-34B-Base'),
  },

  // ---------------------------------------------------------------------------------------------
  // NVIDIA Nemotron Nano 2 and Nemotron-H (nemotron_h): one norm and one mixer per layer, Mamba2 (M), attention without
  // position embedding (*) or a ReLU² MLP (-), by hybrid_override_pattern (architecture.test.ts works the counts out).
  // ---------------------------------------------------------------------------------------------
  {
    // 8,888,227,328: the Hub's safetensors total. Mamba2 heads 128 x 80 (inner 10,240, not expand x hidden), attention heads
    // of 128 (not 4480 / 40).
    id: 'nvidia/NVIDIA-Nemotron-Nano-9B-v2',
    aliases: ['nvidia/NVIDIA-Nemotron-Nano-9B-v2-Base'],
    config: {
      model_type: 'nemotron_h', architectures: ['NemotronHForCausalLM'], chunk_size: 128, conv_kernel: 4, head_dim: 128, hidden_size: 4480,
      hybrid_override_pattern: 'M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-', intermediate_size: 15680, mamba_head_dim: 80,
      mamba_num_heads: 128, max_position_embeddings: 131072, n_groups: 8, num_attention_heads: 40, num_hidden_layers: 56, num_key_value_heads: 8,
      ssm_state_size: 128, tie_word_embeddings: false, use_bias: false, use_conv_bias: true, vocab_size: 131072,
    },
    publishedParams: 8_888_227_328,
    source: hf('nvidia/NVIDIA-Nemotron-Nano-9B-v2'),
  },
  {
    // 8,100,852,736, the count listings of this checkpoint give from its model page: 52 layers, 24 Mamba2, 24 MLP, 4 attention.
    id: 'nvidia/Nemotron-H-8B-Base-8K',
    config: {
      model_type: 'nemotron_h', architectures: ['NemotronHForCausalLM'], chunk_size: 128, conv_kernel: 4, head_dim: 128, hidden_size: 4096,
      hybrid_override_pattern: 'M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-', intermediate_size: 21504, mamba_head_dim: 64,
      mamba_num_heads: 128, n_groups: 8, num_attention_heads: 32, num_key_value_heads: 8, ssm_state_size: 128, tie_word_embeddings: false,
      use_bias: false, use_conv_bias: true, vocab_size: 131072,
    },
    publishedParams: 8_100_852_736,
    source: hf('nvidia/Nemotron-H-8B-Base-8K'),
  },
  {
    // 31,577,937,344: the Hub's safetensors total (num_parameters(); the fp32 router correction biases are buffers, the
    // checkpoint's MTP layer is not loaded). 23 Mamba2, 23 MoE (128 ReLU² experts of 1856, top-6, a shared expert of
    // 3712) and 6 attention layers (32 heads x 128, 2 kv).
    id: 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16',
    aliases: ['nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-Base-BF16', 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B'],
    config: {
      model_type: 'nemotron_h', architectures: ['NemotronHForCausalLM'], attention_bias: false, chunk_size: 128, conv_kernel: 4, head_dim: 128, hidden_size: 2688,
      hybrid_override_pattern: 'MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME', intermediate_size: 1856, mamba_head_dim: 64, mamba_num_heads: 64,
      max_position_embeddings: 262144, mlp_bias: false, moe_intermediate_size: 1856, moe_shared_expert_intermediate_size: 3712, n_group: 1, n_groups: 8,
      n_routed_experts: 128, n_shared_experts: 1, norm_topk_prob: true, num_attention_heads: 32, num_experts_per_tok: 6, num_hidden_layers: 52,
      num_key_value_heads: 2, routed_scaling_factor: 2.5, ssm_state_size: 128, tie_word_embeddings: false, topk_group: 1, use_bias: false, use_conv_bias: true,
      vocab_size: 131072,
    },
    publishedParams: 31_577_937_344,
    source: hf('nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16'),
  },

  // ---------------------------------------------------------------------------------------------
  // Llama 4 (image-text checkpoints; the text model under text_config): 48 layers of 40 heads x 128 (8 kv), q/k rotated
  // and L2-normed on three layers of four, NoPE layers with attention temperature tuning; Scout: 16 experts of 8192 in
  // every layer, Maverick: 128 experts in every other layer and a dense MLP of 16384 between; both top-1 with a shared
  // expert. Counts by hand in architecture.test.ts (108,641,793,536 and 401,583,781,376, as published).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'meta-llama/Llama-4-Scout-17B-16E-Instruct',
    aliases: ['meta-llama/Llama-4-Scout-17B-16E'],
    config: { ...LLAMA4, text_config: { ...LLAMA4_TEXT, interleave_moe_layer_step: 1, num_local_experts: 16, use_qk_norm: true, max_position_embeddings: 10485760 } },
    publishedParams: 108_641_793_536,
    source: hf('meta-llama/Llama-4-Scout-17B-16E-Instruct'),
  },
  {
    id: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct',
    aliases: ['meta-llama/Llama-4-Maverick-17B-128E'],
    config: { ...LLAMA4, text_config: { ...LLAMA4_TEXT, interleave_moe_layer_step: 2, num_local_experts: 128, use_qk_norm: false, max_position_embeddings: 1048576 } },
    publishedParams: 401_583_781_376,
    source: hf('meta-llama/Llama-4-Maverick-17B-128E-Instruct'),
  },

  // ---------------------------------------------------------------------------------------------
  // Mistral Small 24B (40 layers of 32 heads x 128 over 5120, 8 kv heads, MLP 32768, vocabulary 131,072) and its
  // image-text 3.1 / 3.2 checkpoints (mistral3: the same language model under text_config and a 24-layer Pixtral tower).
  // Counts by hand in architecture.test.ts: 23,572,403,200 and 24,011,361,280.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'mistralai/Mistral-Small-24B-Base-2501',
    // Devstral Small 1.1 (2507) and Magistral Small 1.1 (2507) keep the 1.0 text-only config.
    aliases: ['mistralai/Mistral-Small-24B-Instruct-2501', 'mistralai/Devstral-Small-2505', 'mistralai/Devstral-Small-2507', 'mistralai/Magistral-Small-2506', 'mistralai/Magistral-Small-2507'],
    config: { ...MISTRAL_SMALL_TEXT, architectures: ['MistralForCausalLM'], max_position_embeddings: 32768 },
    publishedParams: 23_572_403_200,
    source: hf('mistralai/Mistral-Small-24B-Base-2501'),
  },
  {
    id: 'mistralai/Mistral-Small-3.1-24B-Instruct-2503',
    // Magistral Small 1.2 (2509) is Mistral Small 3.2 with its vision encoder.
    aliases: ['mistralai/Mistral-Small-3.1-24B-Base-2503', 'mistralai/Mistral-Small-3.2-24B-Instruct-2506', 'mistralai/Magistral-Small-2509'],
    config: {
      model_type: 'mistral3', architectures: ['Mistral3ForConditionalGeneration'], spatial_merge_size: 2, multimodal_projector_bias: false,
      text_config: { ...MISTRAL_SMALL_TEXT, max_position_embeddings: 131072 },
      vision_config: { model_type: 'pixtral', hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 24, num_attention_heads: 16, head_dim: 64, patch_size: 14, image_size: 1540, num_channels: 3 },
    },
    publishedParams: 24_011_361_280,
    source: hf('mistralai/Mistral-Small-3.1-24B-Instruct-2503'),
  },

  // ---------------------------------------------------------------------------------------------
  // OLMo 2 (allenai): norms after attention and MLP, q/k norms over the whole projections, 100,352-token vocabulary.
  // Counts by hand in architecture.test.ts.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'allenai/OLMo-2-0425-1B',
    aliases: ['allenai/OLMo-2-0425-1B-Instruct'],
    config: { ...OLMO2, hidden_size: 2048, intermediate_size: 8192, num_attention_heads: 16, num_hidden_layers: 16, num_key_value_heads: 16 },
    source: hf('allenai/OLMo-2-0425-1B'),
  },
  {
    id: 'allenai/OLMo-2-1124-7B',
    aliases: ['allenai/OLMo-2-1124-7B-Instruct', 'allenai/OLMo-2-1124-7B-SFT', 'allenai/OLMo-2-1124-7B-DPO'],
    config: { ...OLMO2, hidden_size: 4096, intermediate_size: 11008, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32 },
    source: hf('allenai/OLMo-2-1124-7B'),
  },
  {
    id: 'allenai/OLMo-2-1124-13B',
    aliases: ['allenai/OLMo-2-1124-13B-Instruct'],
    config: { ...OLMO2, hidden_size: 5120, intermediate_size: 13824, num_attention_heads: 40, num_hidden_layers: 40, num_key_value_heads: 40 },
    source: hf('allenai/OLMo-2-1124-13B'),
  },
  {
    id: 'allenai/OLMo-2-0325-32B',
    aliases: ['allenai/OLMo-2-0325-32B-Instruct'],
    config: { ...OLMO2, hidden_size: 5120, intermediate_size: 27648, num_attention_heads: 40, num_hidden_layers: 64, num_key_value_heads: 8, head_dim: 128 },
    source: hf('allenai/OLMo-2-0325-32B'),
  },

  // ---------------------------------------------------------------------------------------------
  // GLM-4-0414 (glm4): 40 layers of 32 heads x 128 (2 kv heads) over 4096, q/k/v biases, a fused gate_up_proj of
  // 2 x 13696, four RMSNorms per layer. Count by hand in architecture.test.ts: 9,400,279,040.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'THUDM/GLM-4-9B-0414',
    aliases: ['zai-org/GLM-4-9B-0414', 'THUDM/GLM-Z1-9B-0414', 'zai-org/GLM-Z1-9B-0414'],
    config: {
      model_type: 'glm4', architectures: ['Glm4ForCausalLM'], attention_bias: true, head_dim: 128, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 13696, max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 40, num_key_value_heads: 2,
      partial_rotary_factor: 0.5, rms_norm_eps: 1e-5, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151552,
    },
    source: hf('THUDM/GLM-4-9B-0414'),
  },

  // ---------------------------------------------------------------------------------------------
  // More current checkpoints of supported families (config.json fields; counts from the architecture, as published).
  // ---------------------------------------------------------------------------------------------
  {
    // Phi-4: phi3 layers, 40 heads of 128 with 10 kv heads, 100,352-token vocabulary.
    id: 'microsoft/phi-4',
    config: {
      model_type: 'phi3', architectures: ['Phi3ForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 5120, intermediate_size: 17920,
      max_position_embeddings: 16384, num_attention_heads: 40, num_hidden_layers: 40, num_key_value_heads: 10, rms_norm_eps: 1e-5,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 100352,
    },
    publishedParams: 14_659_507_200,
    source: hf('microsoft/phi-4'),
  },
  {
    // Phi-4-mini: phi3 layers, 24 heads of 128 with 8 kv heads, three quarters of each head rotated, tied 200,064 vocabulary.
    id: 'microsoft/Phi-4-mini-instruct',
    config: {
      model_type: 'phi3', architectures: ['Phi3ForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 3072, intermediate_size: 8192,
      max_position_embeddings: 131072, num_attention_heads: 24, num_hidden_layers: 32, num_key_value_heads: 8, partial_rotary_factor: 0.75,
      rms_norm_eps: 1e-5, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 200064,
    },
    publishedParams: 3_836_021_760,
    source: hf('microsoft/Phi-4-mini-instruct'),
  },
  {
    // Ministral 8B: Mistral layers, 32 heads of 128 with 8 kv heads, 131,072-token vocabulary.
    id: 'mistralai/Ministral-8B-Instruct-2410',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], head_dim: 128, hidden_act: 'silu', hidden_size: 4096, intermediate_size: 12288,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8, rms_norm_eps: 1e-5,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    publishedParams: 8_019_808_256,
    source: hf('mistralai/Ministral-8B-Instruct-2410'),
  },
  {
    // Gemma 3 270M: 4 heads of 256 with one kv head over 640, a 262,144-token tied vocabulary (most of its weights).
    id: 'google/gemma-3-270m',
    aliases: ['google/gemma-3-270m-it', 'unsloth/gemma-3-270m-it'],
    config: {
      model_type: 'gemma3_text', architectures: ['Gemma3ForCausalLM'], attention_bias: false, final_logit_softcapping: null, attn_logit_softcapping: null,
      head_dim: 256, hidden_activation: 'gelu_pytorch_tanh', hidden_size: 640, intermediate_size: 2048, max_position_embeddings: 32768,
      num_attention_heads: 4, num_hidden_layers: 18, num_key_value_heads: 1, query_pre_attn_scalar: 256, rms_norm_eps: 1e-6, sliding_window: 512,
      torch_dtype: 'bfloat16', vocab_size: 262144,
    },
    publishedParams: 268_098_176,
    source: hf('google/gemma-3-270m'),
  },
  {
    // Qwen3-235B-A22B: 94 MoE layers of 128 experts (top 8) of 1536, 64 heads of 128 with 4 kv heads.
    id: 'Qwen/Qwen3-235B-A22B',
    aliases: ['Qwen/Qwen3-235B-A22B-Instruct-2507', 'Qwen/Qwen3-235B-A22B-Thinking-2507'],
    config: {
      model_type: 'qwen3_moe', architectures: ['Qwen3MoeForCausalLM'], attention_bias: false, decoder_sparse_step: 1, head_dim: 128, hidden_act: 'silu',
      hidden_size: 4096, intermediate_size: 12288, max_position_embeddings: 40960, mlp_only_layers: [], moe_intermediate_size: 1536, norm_topk_prob: true,
      num_attention_heads: 64, num_experts: 128, num_experts_per_tok: 8, num_hidden_layers: 94, num_key_value_heads: 4, rms_norm_eps: 1e-6,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    publishedParams: 235_093_634_560,
    source: hf('Qwen/Qwen3-235B-A22B'),
  },

  // ---------------------------------------------------------------------------------------------
  // GLM-4.5 family (modeling_glm4_moe.py): 96 query heads of 128 and 8 key/value heads (wider than hidden / heads),
  // q/k/v biases, half of each head rotated, a dense first layer (three for GLM-4.5), then 128 (160) routed experts
  // top-8 and one shared expert. Both uploads also store one multi-token-prediction layer (layers.46 / layers.92, with
  // its own embedding and head copies) that transformers skips when loading; the Hub's 110B / 358B count includes it,
  // the model cards' 106B / 355B and this catalog's count do not.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'zai-org/GLM-4.5-Air',
    aliases: ['zai-org/GLM-4.5-Air-Base'],
    config: { ...GLM45_COMMON, hidden_size: 4096, intermediate_size: 10944, moe_intermediate_size: 1408, n_routed_experts: 128, first_k_dense_replace: 1, num_hidden_layers: 46, use_qk_norm: false, max_position_embeddings: 131072 },
    source: hf('zai-org/GLM-4.5-Air'),
  },
  {
    id: 'zai-org/GLM-4.5',
    aliases: ['zai-org/GLM-4.5-Base'],
    config: { ...GLM45_COMMON, hidden_size: 5120, intermediate_size: 12288, moe_intermediate_size: 1536, n_routed_experts: 160, first_k_dense_replace: 3, num_hidden_layers: 92, use_qk_norm: true, max_position_embeddings: 131072 },
    source: hf('zai-org/GLM-4.5'),
  },
  {
    // GLM-4.5's architecture with a 202,752-token context window.
    id: 'zai-org/GLM-4.6',
    config: { ...GLM45_COMMON, hidden_size: 5120, intermediate_size: 12288, moe_intermediate_size: 1536, n_routed_experts: 160, first_k_dense_replace: 3, num_hidden_layers: 92, use_qk_norm: true, max_position_embeddings: 202752 },
    source: hf('zai-org/GLM-4.6'),
  },

  // ---------------------------------------------------------------------------------------------
  // The Qwen v1 checkpoints use model_type 'qwen' with remote code. Their intermediate_size is twice the width of each of the
  // two up projections (w1, w2), so the per-projection width is intermediate_size / 2. The norm is an
  // RMSNorm even though the key is spelled layer_norm_epsilon; c_attn (fused qkv) has a bias, and no_bias
  // covers every other linear layer.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen-7B-Chat',
    aliases: ['Qwen/Qwen-7B'],
    config: {
      model_type: 'qwen',
      architectures: ['QWenLMHeadModel'],
      hidden_size: 4096,
      intermediate_size: 22016,
      kv_channels: 128,
      layer_norm_epsilon: 1e-6,
      max_position_embeddings: 8192,
      no_bias: true,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      rotary_pct: 1.0,
      seq_length: 8192,
      tie_word_embeddings: false,
      vocab_size: 151936,
    },
    publishedParams: 7_721_324_544,
    source: hf('Qwen/Qwen-7B-Chat'),
  },
  {
    id: 'Qwen/Qwen-1_8B-Chat',
    aliases: ['Qwen/Qwen-1_8B'],
    config: {
      model_type: 'qwen',
      architectures: ['QWenLMHeadModel'],
      hidden_size: 2048,
      intermediate_size: 11008,
      kv_channels: 128,
      layer_norm_epsilon: 1e-6,
      max_position_embeddings: 8192,
      no_bias: true,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      rotary_pct: 1.0,
      seq_length: 8192,
      tie_word_embeddings: false,
      vocab_size: 151936,
    },
    publishedParams: 1_836_828_672,
    source: hf('Qwen/Qwen-1_8B-Chat'),
  },

  // ---------------------------------------------------------------------------------------------
  // These checkpoints use the Llama architecture or a close variant of it.
  // ---------------------------------------------------------------------------------------------
  {
    id: '01-ai/Yi-6B',
    aliases: ['01-ai/Yi-6B-Chat'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 64000,
    },
    publishedParams: 6_061_035_520,
    source: hf('01-ai/Yi-6B'),
  },
  {
    id: '01-ai/Yi-34B',
    aliases: ['01-ai/Yi-34B-Chat'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 7168,
      intermediate_size: 20480,
      max_position_embeddings: 4096,
      num_attention_heads: 56,
      num_hidden_layers: 60,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 64000,
    },
    publishedParams: 34_388_917_248,
    source: hf('01-ai/Yi-34B'),
  },
  {
    id: 'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
    aliases: ['TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T', 'TinyLlama/TinyLlama_v1.1'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 5632,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 22,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32000,
    },
    publishedParams: 1_100_048_384,
    source: hf('TinyLlama/TinyLlama-1.1B-Chat-v1.0'),
  },
  {
    id: 'HuggingFaceTB/SmolLM2-135M',
    aliases: ['HuggingFaceTB/SmolLM2-135M-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 576,
      intermediate_size: 1536,
      max_position_embeddings: 8192,
      mlp_bias: false,
      num_attention_heads: 9,
      num_hidden_layers: 30,
      num_key_value_heads: 3,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 49152,
    },
    publishedParams: 134_515_008,
    source: hf('HuggingFaceTB/SmolLM2-135M'),
  },
  {
    id: 'HuggingFaceTB/SmolLM2-360M',
    aliases: ['HuggingFaceTB/SmolLM2-360M-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 960,
      intermediate_size: 2560,
      max_position_embeddings: 8192,
      mlp_bias: false,
      num_attention_heads: 15,
      num_hidden_layers: 32,
      num_key_value_heads: 5,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 49152,
    },
    publishedParams: 361_821_120,
    source: hf('HuggingFaceTB/SmolLM2-360M'),
  },
  {
    id: 'HuggingFaceTB/SmolLM2-1.7B',
    aliases: ['HuggingFaceTB/SmolLM2-1.7B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 8192,
      max_position_embeddings: 8192,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 24,
      num_key_value_heads: 32,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 49152,
    },
    publishedParams: 1_711_376_384,
    source: hf('HuggingFaceTB/SmolLM2-1.7B'),
  },
  {
    // SmolLM3 is Llama-shaped but skips RoPE on every fourth layer (no_rope_layers), which does not change memory.
    // SmolLM3-3B-checkpoints holds the intermediate training checkpoints of the same model.
    id: 'HuggingFaceTB/SmolLM3-3B',
    aliases: ['HuggingFaceTB/SmolLM3-3B-Base', 'HuggingFaceTB/SmolLM3-3B-checkpoints'],
    config: {
      model_type: 'smollm3',
      architectures: ['SmolLM3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 11008,
      max_position_embeddings: 65536,
      mlp_bias: false,
      num_attention_heads: 16,
      num_hidden_layers: 36,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 3_075_098_624,
    source: hf('HuggingFaceTB/SmolLM3-3B'),
  },

  // ---------------------------------------------------------------------------------------------
  // The Gemma and Gemma 2 checkpoints tie their embeddings by default and scale hidden states by sqrt(hidden_size).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'google/gemma-2b',
    aliases: ['google/gemma-2b-it'],
    config: {
      model_type: 'gemma',
      architectures: ['GemmaForCausalLM'],
      attention_bias: false,
      head_dim: 256,
      hidden_act: 'gelu',
      hidden_size: 2048,
      intermediate_size: 16384,
      max_position_embeddings: 8192,
      num_attention_heads: 8,
      num_hidden_layers: 18,
      num_key_value_heads: 1,
      rms_norm_eps: 1e-6,
      torch_dtype: 'bfloat16',
      vocab_size: 256000,
    },
    publishedParams: 2_506_172_416,
    source: hf('google/gemma-2b'),
  },
  {
    // Gemma 7B has 16 heads of width 256, so its attention width (4096) exceeds hidden_size (3072).
    id: 'google/gemma-7b',
    aliases: ['google/gemma-7b-it'],
    config: {
      model_type: 'gemma',
      architectures: ['GemmaForCausalLM'],
      attention_bias: false,
      head_dim: 256,
      hidden_act: 'gelu',
      hidden_size: 3072,
      intermediate_size: 24576,
      max_position_embeddings: 8192,
      num_attention_heads: 16,
      num_hidden_layers: 28,
      num_key_value_heads: 16,
      rms_norm_eps: 1e-6,
      torch_dtype: 'bfloat16',
      vocab_size: 256000,
    },
    publishedParams: 8_537_680_896,
    source: hf('google/gemma-7b'),
  },
  {
    // Gemma 2 alternates sliding-window (4096) and global attention layers and has four norms per layer.
    id: 'google/gemma-2-2b',
    aliases: ['google/gemma-2-2b-it'],
    config: {
      model_type: 'gemma2',
      architectures: ['Gemma2ForCausalLM'],
      attention_bias: false,
      attn_logit_softcapping: 50.0,
      final_logit_softcapping: 30.0,
      head_dim: 256,
      hidden_act: 'gelu_pytorch_tanh',
      hidden_activation: 'gelu_pytorch_tanh',
      hidden_size: 2304,
      intermediate_size: 9216,
      max_position_embeddings: 8192,
      num_attention_heads: 8,
      num_hidden_layers: 26,
      num_key_value_heads: 4,
      query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-6,
      sliding_window: 4096,
      torch_dtype: 'float32',
      vocab_size: 256000,
    },
    publishedParams: 2_614_341_888,
    source: hf('google/gemma-2-2b'),
  },
  {
    id: 'google/gemma-2-9b',
    aliases: ['google/gemma-2-9b-it'],
    config: {
      model_type: 'gemma2',
      architectures: ['Gemma2ForCausalLM'],
      attention_bias: false,
      attn_logit_softcapping: 50.0,
      final_logit_softcapping: 30.0,
      head_dim: 256,
      hidden_act: 'gelu_pytorch_tanh',
      hidden_activation: 'gelu_pytorch_tanh',
      hidden_size: 3584,
      intermediate_size: 14336,
      max_position_embeddings: 8192,
      num_attention_heads: 16,
      num_hidden_layers: 42,
      num_key_value_heads: 8,
      query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-6,
      sliding_window: 4096,
      torch_dtype: 'float32',
      vocab_size: 256000,
    },
    publishedParams: 9_241_705_984,
    source: hf('google/gemma-2-9b'),
  },
  {
    // Gemma 3 text-only 1B: four norms per layer as Gemma 2, plus q_norm / k_norm; no logit soft-capping; tied.
    // 999,885,952 = 26 x 26,842,112 + 262,144 x 1152 + 1152 (safetensors metadata of the checkpoint).
    id: 'google/gemma-3-1b-pt',
    aliases: ['google/gemma-3-1b-it', 'unsloth/gemma-3-1b-it', 'unsloth/gemma-3-1b-pt'],
    config: {
      model_type: 'gemma3_text',
      architectures: ['Gemma3ForCausalLM'],
      attention_bias: false,
      attention_dropout: 0.0,
      final_logit_softcapping: null,
      attn_logit_softcapping: null,
      head_dim: 256,
      hidden_activation: 'gelu_pytorch_tanh',
      hidden_size: 1152,
      intermediate_size: 6912,
      max_position_embeddings: 32768,
      num_attention_heads: 4,
      num_hidden_layers: 26,
      num_key_value_heads: 1,
      query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-6,
      sliding_window: 512,
      torch_dtype: 'bfloat16',
      vocab_size: 262144,
    },
    publishedParams: 999_885_952,
    source: hf('google/gemma-3-1b-pt'),
  },
  {
    // Gemma 3 4B-27B are image-text checkpoints (Gemma3ForConditionalGeneration): the language model under text_config
    // (the omitted fields are Gemma3TextConfig defaults: 8 heads, 4 kv heads, head_dim 256, vocab 262,208) and a
    // SigLIP vision tower of 416,866,032 parameters plus a projector. Published totals include both.
    id: 'google/gemma-3-4b-pt',
    aliases: ['google/gemma-3-4b-it', 'unsloth/gemma-3-4b-it', 'unsloth/gemma-3-4b-pt'],
    config: gemma3Config({ hidden_size: 2560, intermediate_size: 10240, num_hidden_layers: 34 }),
    publishedParams: 4_300_079_472,
    source: hf('google/gemma-3-4b-pt'),
  },
  {
    id: 'google/gemma-3-12b-pt',
    aliases: ['google/gemma-3-12b-it', 'unsloth/gemma-3-12b-it', 'unsloth/gemma-3-12b-pt'],
    config: gemma3Config({ hidden_size: 3840, intermediate_size: 15360, num_attention_heads: 16, num_hidden_layers: 48, num_key_value_heads: 8 }),
    publishedParams: 12_187_325_040,
    source: hf('google/gemma-3-12b-pt'),
  },
  {
    id: 'google/gemma-3-27b-pt',
    aliases: ['google/gemma-3-27b-it', 'unsloth/gemma-3-27b-it', 'unsloth/gemma-3-27b-pt'],
    config: gemma3Config({ head_dim: 128, hidden_size: 5376, intermediate_size: 21504, num_attention_heads: 32, num_hidden_layers: 62, num_key_value_heads: 16, query_pre_attn_scalar: 168 }),
    publishedParams: 27_432_406_640,
    source: hf('google/gemma-3-27b-pt'),
  },
  {
    // The stored torch_dtype of the 27B base checkpoint was not confirmed, so the field is left out.
    id: 'google/gemma-2-27b',
    aliases: ['google/gemma-2-27b-it'],
    config: {
      model_type: 'gemma2',
      architectures: ['Gemma2ForCausalLM'],
      attention_bias: false,
      attn_logit_softcapping: 50.0,
      final_logit_softcapping: 30.0,
      head_dim: 128,
      hidden_act: 'gelu_pytorch_tanh',
      hidden_activation: 'gelu_pytorch_tanh',
      hidden_size: 4608,
      intermediate_size: 36864,
      max_position_embeddings: 8192,
      num_attention_heads: 32,
      num_hidden_layers: 46,
      num_key_value_heads: 16,
      query_pre_attn_scalar: 144,
      rms_norm_eps: 1e-6,
      sliding_window: 4096,
      vocab_size: 256000,
    },
    publishedParams: 27_227_128_320,
    source: hf('google/gemma-2-27b'),
  },

  // ---------------------------------------------------------------------------------------------
  // In the Phi checkpoints, phi3 fuses q, k and v into qkv_proj and gate and up into gate_up_proj, while phi-2 uses LayerNorm and biases.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'microsoft/Phi-3-mini-4k-instruct',
    config: { ...PHI3_MINI, max_position_embeddings: 4096, sliding_window: 2047 },
    publishedParams: 3_821_079_552,
    source: hf('microsoft/Phi-3-mini-4k-instruct'),
  },
  {
    // Phi-3.5-mini: Phi-3-mini's layers with a 128k LongRoPE context (rope factors leave the parameters unchanged).
    id: 'microsoft/Phi-3.5-mini-instruct',
    config: { ...PHI3_MINI, max_position_embeddings: 131072, sliding_window: 262144 },
    publishedParams: 3_821_079_552,
    source: hf('microsoft/Phi-3.5-mini-instruct'),
  },
  {
    id: 'microsoft/Phi-3-medium-4k-instruct',
    config: {
      model_type: 'phi3',
      architectures: ['Phi3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 17920,
      max_position_embeddings: 4096,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 10,
      original_max_position_embeddings: 4096,
      rms_norm_eps: 1e-5,
      sliding_window: 2047,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32064,
    },
    publishedParams: 13_960_238_080,
    source: hf('microsoft/Phi-3-medium-4k-instruct'),
  },
  {
    // phi-2 has a parallel attention/MLP block with one LayerNorm per layer, biases everywhere and a biased lm_head.
    id: 'microsoft/phi-2',
    config: {
      model_type: 'phi',
      architectures: ['PhiForCausalLM'],
      hidden_act: 'gelu_new',
      hidden_size: 2560,
      intermediate_size: 10240,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      partial_rotary_factor: 0.4,
      qk_layernorm: false,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 51200,
    },
    publishedParams: 2_779_683_840,
    source: hf('microsoft/phi-2'),
  },

  // ---------------------------------------------------------------------------------------------
  // GPT-2 uses Conv1D layers with biases and learned positions, ties lm_head to wte, and an absent n_inner means 4 * n_embd.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'openai-community/gpt2',
    aliases: ['gpt2'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 768,
      n_head: 12,
      n_layer: 12,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 124_439_808,
    source: hf('openai-community/gpt2'),
  },
  {
    id: 'openai-community/gpt2-medium',
    aliases: ['gpt2-medium'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 1024,
      n_head: 16,
      n_layer: 24,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 354_823_168,
    source: hf('openai-community/gpt2-medium'),
  },
  {
    id: 'openai-community/gpt2-large',
    aliases: ['gpt2-large'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 1280,
      n_head: 20,
      n_layer: 36,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 774_030_080,
    source: hf('openai-community/gpt2-large'),
  },
  {
    id: 'openai-community/gpt2-xl',
    aliases: ['gpt2-xl'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 1600,
      n_head: 25,
      n_layer: 48,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 1_557_611_200,
    source: hf('openai-community/gpt2-xl'),
  },
  {
    // Cerebras-GPT 1.3B: GPT-2 layers at width 2048, 24 layers, a 4x MLP (n_inner 8192), 2,048 learned positions
    // (Dey et al. 2023, Cerebras-GPT, Table 1). No exact published count: 1,315,723,264 counted from the architecture.
    id: 'cerebras/Cerebras-GPT-1.3B',
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2Model'],
      activation_function: 'gelu',
      n_ctx: 2048,
      n_embd: 2048,
      n_head: 16,
      n_inner: 8192,
      n_layer: 24,
      n_positions: 2048,
      vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-1.3B'),
  },

  // ---------------------------------------------------------------------------------------------
  // GPT-NeoX and Pythia have biases on every linear layer, an untied embed_out and partial rotary embeddings.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'EleutherAI/pythia-1b',
    aliases: ['EleutherAI/pythia-1b-deduped'],
    config: {
      model_type: 'gpt_neox',
      architectures: ['GPTNeoXForCausalLM'],
      hidden_act: 'gelu',
      hidden_size: 2048,
      intermediate_size: 8192,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 8,
      num_hidden_layers: 16,
      rotary_pct: 0.25,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      use_parallel_residual: true,
      vocab_size: 50304,
    },
    publishedParams: 1_011_781_632,
    source: hf('EleutherAI/pythia-1b'),
  },
  {
    id: 'EleutherAI/pythia-6.9b',
    aliases: ['EleutherAI/pythia-6.9b-deduped'],
    config: {
      model_type: 'gpt_neox',
      architectures: ['GPTNeoXForCausalLM'],
      hidden_act: 'gelu',
      hidden_size: 4096,
      intermediate_size: 16384,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      rotary_pct: 0.25,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      use_parallel_residual: true,
      vocab_size: 50432,
    },
    publishedParams: 6_857_302_016,
    source: hf('EleutherAI/pythia-6.9b'),
  },
  {
    id: 'EleutherAI/gpt-neox-20b',
    config: {
      model_type: 'gpt_neox',
      architectures: ['GPTNeoXForCausalLM'],
      hidden_act: 'gelu_fast',
      hidden_size: 6144,
      intermediate_size: 24576,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 64,
      num_hidden_layers: 44,
      rotary_pct: 0.25,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      use_parallel_residual: true,
      vocab_size: 50432,
    },
    publishedParams: 20_554_567_680,
    source: hf('EleutherAI/gpt-neox-20b'),
  },

  // ---------------------------------------------------------------------------------------------
  // For BERT and RoBERTa, publishedParams is the bare encoder including the pooler.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'google-bert/bert-base-uncased',
    aliases: ['bert-base-uncased'],
    config: {
      model_type: 'bert',
      architectures: ['BertForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 768,
      intermediate_size: 3072,
      layer_norm_eps: 1e-12,
      max_position_embeddings: 512,
      num_attention_heads: 12,
      num_hidden_layers: 12,
      type_vocab_size: 2,
      vocab_size: 30522,
    },
    publishedParams: 109_482_240,
    source: hf('google-bert/bert-base-uncased'),
  },
  {
    id: 'google-bert/bert-large-uncased',
    aliases: ['bert-large-uncased'],
    config: {
      model_type: 'bert',
      architectures: ['BertForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 1024,
      intermediate_size: 4096,
      layer_norm_eps: 1e-12,
      max_position_embeddings: 512,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      type_vocab_size: 2,
      vocab_size: 30522,
    },
    publishedParams: 335_141_888,
    source: hf('google-bert/bert-large-uncased'),
  },
  {
    id: 'FacebookAI/roberta-base',
    aliases: ['roberta-base'],
    config: {
      model_type: 'roberta',
      architectures: ['RobertaForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 768,
      intermediate_size: 3072,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 514,
      num_attention_heads: 12,
      num_hidden_layers: 12,
      type_vocab_size: 1,
      vocab_size: 50265,
    },
    publishedParams: 124_645_632,
    source: hf('FacebookAI/roberta-base'),
  },
  {
    id: 'FacebookAI/roberta-large',
    aliases: ['roberta-large'],
    config: {
      model_type: 'roberta',
      architectures: ['RobertaForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 1024,
      intermediate_size: 4096,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 514,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      type_vocab_size: 1,
      vocab_size: 50265,
    },
    publishedParams: 355_359_744,
    source: hf('FacebookAI/roberta-large'),
  },

  // ---------------------------------------------------------------------------------------------
  // The original T5 checkpoints omit feed_forward_proj, num_decoder_layers and tie_word_embeddings,
  // so they are ReLU, symmetric and tied, whereas flan-t5 is gated-gelu and untied.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'google-t5/t5-small',
    aliases: ['t5-small'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 2048,
      d_kv: 64,
      d_model: 512,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_heads: 8,
      num_layers: 6,
      relative_attention_num_buckets: 32,
      vocab_size: 32128,
    },
    publishedParams: 60_506_624,
    source: hf('google-t5/t5-small'),
  },
  {
    id: 'google-t5/t5-base',
    aliases: ['t5-base'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 3072,
      d_kv: 64,
      d_model: 768,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_heads: 12,
      num_layers: 12,
      relative_attention_num_buckets: 32,
      vocab_size: 32128,
    },
    publishedParams: 222_903_552,
    source: hf('google-t5/t5-base'),
  },
  {
    id: 'google-t5/t5-large',
    aliases: ['t5-large'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 4096,
      d_kv: 64,
      d_model: 1024,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_heads: 16,
      num_layers: 24,
      relative_attention_num_buckets: 32,
      vocab_size: 32128,
    },
    publishedParams: 737_668_096,
    source: hf('google-t5/t5-large'),
  },
  // ---------------------------------------------------------------------------------------------
  // BLOOM (and BLOOMZ, fine-tuned from it): ALiBi attention, LayerNorms with biases, a fused query_key_value, a 4 x
  // hidden GELU MLP, a LayerNorm after the 250,880-token tied embedding. 12h² + 13h per layer; published totals.
  // ---------------------------------------------------------------------------------------------
  ...([
    ['560m', 24, 16, 1024, 559_214_592], ['1b1', 24, 16, 1536, 1_065_314_304], ['1b7', 24, 16, 2048, 1_722_408_960],
    ['3b', 30, 32, 2560, 3_002_557_440], ['7b1', 30, 32, 4096, 7_069_016_064],
  ] as const).map(([size, layers, heads, hidden, params]) => ({
    id: `bigscience/bloom-${size}`,
    aliases: [`bigscience/bloomz-${size}`],
    config: {
      model_type: 'bloom', architectures: ['BloomForCausalLM'], n_layer: layers, n_head: heads, hidden_size: hidden, vocab_size: 250880,
      layer_norm_epsilon: 1e-5, hidden_dropout: 0.0, attention_dropout: 0.0, apply_residual_connection_post_layernorm: false,
    },
    publishedParams: params,
    source: hf(`bigscience/bloom-${size}`),
  })),
  {
    // T5 v1.1 XL: FLAN-T5-XL, the LM-adapted checkpoint and BigScience's T0 3B (fine-tuned from it) share the config.
    id: 'google/flan-t5-xl',
    aliases: ['google/t5-v1_1-xl', 'google/t5-xl-lm-adapt', 'bigscience/T0_3B'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 5120,
      d_kv: 64,
      d_model: 2048,
      dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu',
      is_gated_act: true,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_decoder_layers: 24,
      num_heads: 32,
      num_layers: 24,
      relative_attention_num_buckets: 32,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 32128,
    },
    publishedParams: 2_849_757_184,
    source: hf('google/flan-t5-xl'),
  },
  {
    // mT5 XXL (and BigScience's mT0-XXL fine-tuned from it): T5 v1.1 XXL's shape (4096 wide, 64 heads of 64, a gated-GELU
    // feed-forward of 10,240, 24 + 24 layers) over a 250,112-token vocabulary, untied: 12,921,057,280 parameters.
    id: 'bigscience/mt0-xxl',
    aliases: ['google/mt5-xxl', 'bigscience/mt0-xxl-mt'],
    config: {
      model_type: 'mt5', architectures: ['MT5ForConditionalGeneration'], d_ff: 10240, d_kv: 64, d_model: 4096, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-6, num_decoder_layers: 24, num_heads: 64, num_layers: 24,
      relative_attention_num_buckets: 32, tie_word_embeddings: false, vocab_size: 250112,
    },
    source: hf('bigscience/mt0-xxl'),
  },

  // ---------------------------------------------------------------------------------------------
  // These checkpoints are pre-quantized, and only the memory-relevant keys of quantization_config are kept.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'unsloth/llama-3-8b-bnb-4bit',
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 8192,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      quantization_config: {
        bnb_4bit_compute_dtype: 'bfloat16',
        bnb_4bit_quant_type: 'nf4',
        bnb_4bit_use_double_quant: true,
        llm_int8_skip_modules: null,
        load_in_4bit: true,
        load_in_8bit: false,
        quant_method: 'bitsandbytes',
      },
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    source: hf('unsloth/llama-3-8b-bnb-4bit'),
  },
  {
    id: 'TheBloke/Llama-2-7B-GPTQ',
    aliases: ['TheBloke/Llama-2-7b-Chat-GPTQ'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      quantization_config: {
        bits: 4,
        desc_act: false,
        group_size: 128,
        quant_method: 'gptq',
        sym: true,
      },
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    source: hf('TheBloke/Llama-2-7B-GPTQ'),
  },
  {
    id: 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      quantization_config: {
        bits: 4,
        group_size: 128,
        modules_to_not_convert: null,
        quant_method: 'awq',
        version: 'gemm',
        zero_point: true,
      },
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 128256,
    },
    source: hf('hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4'),
  },
];
