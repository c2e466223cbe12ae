// Built-in catalog: Microsoft: Phi-2, Phi-3 / 3.5 and Phi-4, DeBERTa-v3. Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

/** Fields the Phi-3-mini and Phi-3.5-mini config.json files share. */
const PHI3_MINI = {
  model_type: 'phi3',
  architectures: ['Phi3ForCausalLM'],
  attention_bias: false,
  hidden_act: 'silu',
  hidden_size: 3072,
  intermediate_size: 8192,
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 32,
  original_max_position_embeddings: 4096,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 32064,
};

export const PHI_4: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // More current checkpoints of supported families (config.json fields; counts from the architecture, as published).
  // ---------------------------------------------------------------------------------------------
  {
    // Phi-4: phi3 layers, 40 heads of 128 with 10 kv heads, 100,352-token vocabulary.
    id: 'microsoft/phi-4',
    config: {
      model_type: 'phi3',
      architectures: ['Phi3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 17920,
      max_position_embeddings: 16384,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 10,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 100352,
    },
    publishedParams: 14_659_507_200,
    source: hf('microsoft/phi-4'),
  },
  {
    // Phi-4-mini: phi3 layers, 24 heads of 128 with 8 kv heads, three quarters of each head rotated, tied 200,064 vocabulary.
    id: 'microsoft/Phi-4-mini-instruct',
    config: {
      model_type: 'phi3',
      architectures: ['Phi3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 3072,
      intermediate_size: 8192,
      max_position_embeddings: 131072,
      num_attention_heads: 24,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      partial_rotary_factor: 0.75,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 200064,
    },
    publishedParams: 3_836_021_760,
    source: hf('microsoft/Phi-4-mini-instruct'),
  },
];

export const PHI_3_2: readonly CatalogModel[] = [
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
];

export const PHI_1_DIALOGPT: readonly CatalogModel[] = [
  {
    // Phi-1.5 (and Phi-1, the same shapes): parallel attention and MLP off one LayerNorm, half of each head rotated.
    id: 'microsoft/phi-1_5',
    config: {
      model_type: 'phi',
      architectures: ['PhiForCausalLM'],
      hidden_act: 'gelu_new',
      hidden_size: 2048,
      intermediate_size: 8192,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 24,
      partial_rotary_factor: 0.5,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 51200,
    },
    publishedParams: 1_418_270_720,
    source: checked('microsoft/phi-1_5', 'litgpt'),
  },
  {
    id: 'microsoft/phi-1',
    config: {
      model_type: 'phi',
      architectures: ['PhiForCausalLM'],
      hidden_act: 'gelu_new',
      hidden_size: 2048,
      intermediate_size: 8192,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 24,
      partial_rotary_factor: 0.5,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 51200,
    },
    source: hf('microsoft/phi-1'),
  },
  {
    // Phi-3-medium with LongRoPE scaling to 131,072 positions.
    id: 'microsoft/Phi-3-medium-128k-instruct',
    baseModel: 'microsoft/Phi-3-medium-4k-instruct',
    config: {
      model_type: 'phi3',
      architectures: ['Phi3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 17920,
      max_position_embeddings: 131072,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 10,
      original_max_position_embeddings: 4096,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32064,
    },
    source: fineTune('microsoft/Phi-3-medium-128k-instruct', 'microsoft/Phi-3-medium-4k-instruct'),
  },
  {
    // Phi-4 reasoning fine-tunes: phi-4 with 32,768 positions.
    id: 'microsoft/Phi-4-reasoning',
    aliases: ['microsoft/Phi-4-reasoning-plus'],
    baseModel: 'microsoft/phi-4',
    config: {
      model_type: 'phi3',
      architectures: ['Phi3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 17920,
      max_position_embeddings: 32768,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 10,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 100352,
    },
    source: checked('microsoft/Phi-4-reasoning', 'litgpt'),
  },
  {
    // DialoGPT: GPT-2 fine-tuned on Reddit conversations (Zhang et al. 2020).
    id: 'microsoft/DialoGPT-small',
    baseModel: 'openai-community/gpt2',
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      n_ctx: 1024,
      n_embd: 768,
      n_head: 12,
      n_layer: 12,
      n_positions: 1024,
      vocab_size: 50257,
    },
    source: fineTune('microsoft/DialoGPT-small', 'openai-community/gpt2'),
  },
  {
    id: 'microsoft/DialoGPT-medium',
    baseModel: 'openai-community/gpt2-medium',
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      n_ctx: 1024,
      n_embd: 1024,
      n_head: 16,
      n_layer: 24,
      n_positions: 1024,
      vocab_size: 50257,
    },
    source: fineTune('microsoft/DialoGPT-medium', 'openai-community/gpt2-medium'),
  },
  {
    id: 'microsoft/DialoGPT-large',
    baseModel: 'openai-community/gpt2-large',
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      n_ctx: 1024,
      n_embd: 1280,
      n_head: 20,
      n_layer: 36,
      n_positions: 1024,
      vocab_size: 50257,
    },
    source: fineTune('microsoft/DialoGPT-large', 'openai-community/gpt2-large'),
  },
  {
    // Phi-3-mini-128k: Phi-3.5-mini's shapes and 131,072 positions.
    id: 'microsoft/Phi-3-mini-128k-instruct',
    baseModel: 'microsoft/Phi-3.5-mini-instruct',
    config: {
      model_type: 'phi3',
      architectures: ['Phi3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 3072,
      intermediate_size: 8192,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      original_max_position_embeddings: 4096,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32064,
      max_position_embeddings: 131072,
      sliding_window: 262144,
    },
    source: fineTune('microsoft/Phi-3-mini-128k-instruct', 'microsoft/Phi-3.5-mini-instruct'),
  },
  {
    id: 'microsoft/Phi-4-mini-reasoning',
    baseModel: 'microsoft/Phi-4-mini-instruct',
    config: {
      model_type: 'phi3',
      architectures: ['Phi3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 3072,
      intermediate_size: 8192,
      max_position_embeddings: 131072,
      num_attention_heads: 24,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      partial_rotary_factor: 0.75,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 200064,
    },
    source: fineTune('microsoft/Phi-4-mini-reasoning', 'microsoft/Phi-4-mini-instruct'),
  },
];

/**
 * Fields the DeBERTa-v3 config.json files share (microsoft/deberta-v3-base's; the large model's fine-tunes carry the
 * same fields): 256 log-bucketed relative positions shared with the content projections, LayerNorm'd relative
 * embeddings, no absolute positions, no token types.
 */
const DEBERTA_V3 = (own: {
  hidden_size: number;
  intermediate_size: number;
  num_attention_heads: number;
  num_hidden_layers: number;
  vocab_size?: number;
}): CatalogModel['config'] => ({
  model_type: 'deberta-v2',
  attention_probs_dropout_prob: 0.1,
  hidden_act: 'gelu',
  hidden_dropout_prob: 0.1,
  layer_norm_eps: 1e-7,
  max_position_embeddings: 512,
  max_relative_positions: -1,
  norm_rel_ebd: 'layer_norm',
  pos_att_type: 'p2c|c2p',
  position_biased_input: false,
  position_buckets: 256,
  relative_attention: true,
  share_att_key: true,
  type_vocab_size: 0,
  vocab_size: 128100,
  ...own,
});

export const DEBERTA: readonly CatalogModel[] = [
  // DeBERTa-v3 (He et al. 2021): ELECTRA-style pre-training of DeBERTa's disentangled attention; the model cards give
  // the layers and widths (xsmall 12 x 384, small 6 x 768, base 12 x 768, large 24 x 1024) and the 128K vocabulary.
  {
    id: 'microsoft/deberta-v3-xsmall',
    config: DEBERTA_V3({ hidden_size: 384, intermediate_size: 1536, num_attention_heads: 6, num_hidden_layers: 12 }),
    source: hf('microsoft/deberta-v3-xsmall'),
  },
  {
    id: 'microsoft/deberta-v3-small',
    config: DEBERTA_V3({ hidden_size: 768, intermediate_size: 3072, num_attention_heads: 12, num_hidden_layers: 6 }),
    source: hf('microsoft/deberta-v3-small'),
  },
  {
    id: 'microsoft/deberta-v3-base',
    config: DEBERTA_V3({ hidden_size: 768, intermediate_size: 3072, num_attention_heads: 12, num_hidden_layers: 12 }),
    source: hf('microsoft/deberta-v3-base'),
  },
  {
    id: 'microsoft/deberta-v3-large',
    config: DEBERTA_V3({ hidden_size: 1024, intermediate_size: 4096, num_attention_heads: 16, num_hidden_layers: 24 }),
    source: hf('microsoft/deberta-v3-large'),
  },
  {
    // mDeBERTa-v3: the base model over a 250K multilingual vocabulary (CC100).
    id: 'microsoft/mdeberta-v3-base',
    config: DEBERTA_V3({
      hidden_size: 768,
      intermediate_size: 3072,
      num_attention_heads: 12,
      num_hidden_layers: 12,
      vocab_size: 251000,
    }),
    source: hf('microsoft/mdeberta-v3-base'),
  },
];
