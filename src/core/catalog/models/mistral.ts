// Built-in catalog: Mistral AI: Mistral 7B, Mistral NeMo, Mixtral, Mistral Small and Ministral. Pure data.

import { checked, hf, type CatalogModel } from './types';

/** Mistral Small 24B's language model (mistralai/Mistral-Small-24B-Base-2501 and the text_config of 3.1 / 3.2). */
const MISTRAL_SMALL_TEXT = {
  model_type: 'mistral', head_dim: 128, hidden_act: 'silu', hidden_size: 5120, intermediate_size: 32768, num_attention_heads: 32,
  num_hidden_layers: 40, num_key_value_heads: 8, rms_norm_eps: 1e-5, rope_theta: 100000000, sliding_window: null, tie_word_embeddings: false,
  torch_dtype: 'bfloat16', vocab_size: 131072,
};

export const MISTRAL_7B_MIXTRAL: readonly CatalogModel[] = [
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
];

export const MISTRAL_SMALL: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // Mistral Small 24B (40 layers of 32 heads x 128 over 5120, 8 kv heads, MLP 32768, vocabulary 131,072) and its
  // image-text 3.1 / 3.2 checkpoints (mistral3: the same language model under text_config and a 24-layer Pixtral tower).
  // Counts by hand in architecture.test.ts: 23,572,403,200 and 24,011,361,280.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'mistralai/Mistral-Small-24B-Base-2501',
    // Devstral Small 1.1 (2507) and Magistral Small 1.1 (2507) keep the 1.0 text-only config.
    aliases: [
      'mistralai/Mistral-Small-24B-Instruct-2501', 'mistralai/Devstral-Small-2505', 'mistralai/Devstral-Small-2507',
      'mistralai/Magistral-Small-2506', 'mistralai/Magistral-Small-2507',
    ],
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
      vision_config: {
        model_type: 'pixtral', hidden_size: 1024, intermediate_size: 4096, num_hidden_layers: 24, num_attention_heads: 16, head_dim: 64,
        patch_size: 14, image_size: 1540, num_channels: 3,
      },
    },
    publishedParams: 24_011_361_280,
    source: hf('mistralai/Mistral-Small-3.1-24B-Instruct-2503'),
  },
];

export const MINISTRAL: readonly CatalogModel[] = [
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
];

export const MISTRAL_LARGE_CODESTRAL: readonly CatalogModel[] = [
  {
    // Mistral 7B v0.2: 32,768 positions, rope_theta 1e6, no sliding window.
    id: 'mistralai/Mistral-7B-Instruct-v0.2',
    aliases: ['mistral-community/Mistral-7B-v0.2'],
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, sliding_window: null, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: checked('mistralai/Mistral-7B-Instruct-v0.2', 'litgpt'),
  },
  {
    // Mixtral-8x22B-Instruct: the v3 tokenizer (32,768 tokens).
    id: 'mistralai/Mixtral-8x22B-Instruct-v0.1',
    baseModel: 'mistralai/Mixtral-8x22B-v0.1',
    config: {
      model_type: 'mixtral', architectures: ['MixtralForCausalLM'], hidden_act: 'silu', hidden_size: 6144, intermediate_size: 16384,
      max_position_embeddings: 65536, num_attention_heads: 48, num_experts_per_tok: 2, num_hidden_layers: 56, num_key_value_heads: 8,
      num_local_experts: 8, rms_norm_eps: 1e-05, rope_theta: 1000000, sliding_window: null, tie_word_embeddings: false, torch_dtype: 'bfloat16',
      vocab_size: 32768,
    },
    source: checked('mistralai/Mixtral-8x22B-Instruct-v0.1', 'litgpt'),
  },
  {
    // Codestral 22B and Mistral-Small-Instruct-2409: 56 layers at 6,144, 8 kv heads.
    id: 'mistralai/Codestral-22B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 6144, intermediate_size: 16384,
      max_position_embeddings: 32768, num_attention_heads: 48, num_hidden_layers: 56, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, sliding_window: null, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32768,
    },
    source: hf('mistralai/Codestral-22B-v0.1'),
  },
  {
    id: 'mistralai/Mistral-Small-Instruct-2409',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 6144, intermediate_size: 16384,
      max_position_embeddings: 131072, num_attention_heads: 48, num_hidden_layers: 56, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, sliding_window: null, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32768,
    },
    source: hf('mistralai/Mistral-Small-Instruct-2409'),
  },
  {
    id: 'mistralai/Mistral-Large-Instruct-2407',
    aliases: ['mistralai/Mistral-Large-Instruct-2411'],
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 12288, intermediate_size: 28672,
      max_position_embeddings: 131072, num_attention_heads: 96, num_hidden_layers: 88, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, sliding_window: null, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32768,
    },
    source: checked('mistralai/Mistral-Large-Instruct-2407', 'litgpt'),
  },
];
