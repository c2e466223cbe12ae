// Built-in catalog: Google Gemma 1, 2 and 3. Pure data.

import { fineTune, hf, type CatalogModel, type HfConfig } from './types';

/**
 * A Gemma 3 image-text config.json (4B-27B): the language model's own fields under text_config (the rest are
 * Gemma3TextConfig defaults) and the SigLIP vision tower all sizes share.
 */
const gemma3Config = (text: HfConfig): HfConfig => ({
  model_type: 'gemma3',
  architectures: ['Gemma3ForConditionalGeneration'],
  text_config: { model_type: 'gemma3_text', ...text, sliding_window: 1024, rope_scaling: { factor: 8.0, rope_type: 'linear' } },
  vision_config: {
    model_type: 'siglip_vision_model', hidden_size: 1152, image_size: 896, intermediate_size: 4304, num_attention_heads: 16, num_hidden_layers: 27,
    patch_size: 14, vision_use_head: false,
  },
  torch_dtype: 'bfloat16',
});

export const GEMMA_3_270M: readonly CatalogModel[] = [
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
];

export const GEMMA: readonly CatalogModel[] = [
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
    config: gemma3Config({
      head_dim: 128, hidden_size: 5376, intermediate_size: 21504, num_attention_heads: 32, num_hidden_layers: 62, num_key_value_heads: 16,
      query_pre_attn_scalar: 168,
    }),
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
];

export const GEMMA_FINE_TUNES: readonly CatalogModel[] = [
  {
    // CodeGemma and the Gemma 1.1 and ShieldGemma fine-tunes: their base model's config.json fields.
    id: 'google/codegemma-2b',
    baseModel: 'google/gemma-2b',
    config: {
      model_type: 'gemma', architectures: ['GemmaForCausalLM'], attention_bias: false, head_dim: 256, hidden_act: 'gelu', hidden_size: 2048,
      intermediate_size: 16384, max_position_embeddings: 8192, num_attention_heads: 8, num_hidden_layers: 18, num_key_value_heads: 1,
      rms_norm_eps: 1e-06, torch_dtype: 'bfloat16', vocab_size: 256000,
    },
    source: fineTune('google/codegemma-2b', 'google/gemma-2b'),
  },
  {
    id: 'google/codegemma-7b',
    baseModel: 'google/gemma-7b',
    config: {
      model_type: 'gemma', architectures: ['GemmaForCausalLM'], attention_bias: false, head_dim: 256, hidden_act: 'gelu', hidden_size: 3072,
      intermediate_size: 24576, max_position_embeddings: 8192, num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 16,
      rms_norm_eps: 1e-06, torch_dtype: 'bfloat16', vocab_size: 256000,
    },
    source: fineTune('google/codegemma-7b', 'google/gemma-7b'),
  },
  {
    id: 'google/codegemma-7b-it',
    baseModel: 'google/gemma-7b',
    config: {
      model_type: 'gemma', architectures: ['GemmaForCausalLM'], attention_bias: false, head_dim: 256, hidden_act: 'gelu', hidden_size: 3072,
      intermediate_size: 24576, max_position_embeddings: 8192, num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 16,
      rms_norm_eps: 1e-06, torch_dtype: 'bfloat16', vocab_size: 256000,
    },
    source: fineTune('google/codegemma-7b-it', 'google/gemma-7b'),
  },
  {
    id: 'google/gemma-1.1-2b-it',
    baseModel: 'google/gemma-2b',
    config: {
      model_type: 'gemma', architectures: ['GemmaForCausalLM'], attention_bias: false, head_dim: 256, hidden_act: 'gelu', hidden_size: 2048,
      intermediate_size: 16384, max_position_embeddings: 8192, num_attention_heads: 8, num_hidden_layers: 18, num_key_value_heads: 1,
      rms_norm_eps: 1e-06, torch_dtype: 'bfloat16', vocab_size: 256000,
    },
    source: fineTune('google/gemma-1.1-2b-it', 'google/gemma-2b'),
  },
  {
    id: 'google/gemma-1.1-7b-it',
    baseModel: 'google/gemma-7b',
    config: {
      model_type: 'gemma', architectures: ['GemmaForCausalLM'], attention_bias: false, head_dim: 256, hidden_act: 'gelu', hidden_size: 3072,
      intermediate_size: 24576, max_position_embeddings: 8192, num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 16,
      rms_norm_eps: 1e-06, torch_dtype: 'bfloat16', vocab_size: 256000,
    },
    source: fineTune('google/gemma-1.1-7b-it', 'google/gemma-7b'),
  },
  {
    id: 'google/shieldgemma-2b',
    baseModel: 'google/gemma-2-2b',
    config: {
      model_type: 'gemma2', architectures: ['Gemma2ForCausalLM'], attention_bias: false, attn_logit_softcapping: 50, final_logit_softcapping: 30,
      head_dim: 256, hidden_act: 'gelu_pytorch_tanh', hidden_activation: 'gelu_pytorch_tanh', hidden_size: 2304, intermediate_size: 9216,
      max_position_embeddings: 8192, num_attention_heads: 8, num_hidden_layers: 26, num_key_value_heads: 4, query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-06, sliding_window: 4096, torch_dtype: 'float32', vocab_size: 256000,
    },
    source: fineTune('google/shieldgemma-2b', 'google/gemma-2-2b'),
  },
  {
    id: 'google/shieldgemma-9b',
    baseModel: 'google/gemma-2-9b',
    config: {
      model_type: 'gemma2', architectures: ['Gemma2ForCausalLM'], attention_bias: false, attn_logit_softcapping: 50, final_logit_softcapping: 30,
      head_dim: 256, hidden_act: 'gelu_pytorch_tanh', hidden_activation: 'gelu_pytorch_tanh', hidden_size: 3584, intermediate_size: 14336,
      max_position_embeddings: 8192, num_attention_heads: 16, num_hidden_layers: 42, num_key_value_heads: 8, query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-06, sliding_window: 4096, torch_dtype: 'float32', vocab_size: 256000,
    },
    source: fineTune('google/shieldgemma-9b', 'google/gemma-2-9b'),
  },
  {
    id: 'google/shieldgemma-27b',
    baseModel: 'google/gemma-2-27b',
    config: {
      model_type: 'gemma2', architectures: ['Gemma2ForCausalLM'], attention_bias: false, attn_logit_softcapping: 50, final_logit_softcapping: 30,
      head_dim: 128, hidden_act: 'gelu_pytorch_tanh', hidden_activation: 'gelu_pytorch_tanh', hidden_size: 4608, intermediate_size: 36864,
      max_position_embeddings: 8192, num_attention_heads: 32, num_hidden_layers: 46, num_key_value_heads: 16, query_pre_attn_scalar: 144,
      rms_norm_eps: 1e-06, sliding_window: 4096, vocab_size: 256000,
    },
    source: fineTune('google/shieldgemma-27b', 'google/gemma-2-27b'),
  },
  {
    id: 'google/gemma-2-2b-jpn-it',
    baseModel: 'google/gemma-2-2b',
    config: {
      model_type: 'gemma2', architectures: ['Gemma2ForCausalLM'], attention_bias: false, attn_logit_softcapping: 50, final_logit_softcapping: 30,
      head_dim: 256, hidden_act: 'gelu_pytorch_tanh', hidden_activation: 'gelu_pytorch_tanh', hidden_size: 2304, intermediate_size: 9216,
      max_position_embeddings: 8192, num_attention_heads: 8, num_hidden_layers: 26, num_key_value_heads: 4, query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-06, sliding_window: 4096, torch_dtype: 'float32', vocab_size: 256000,
    },
    source: fineTune('google/gemma-2-2b-jpn-it', 'google/gemma-2-2b'),
  },
];
