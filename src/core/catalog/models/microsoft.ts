// Built-in catalog: Microsoft: Phi-2, Phi-3 / 3.5 and Phi-4. Pure data.

import { hf, type CatalogModel } from './types';

/** Fields the Phi-3-mini and Phi-3.5-mini config.json files share. */
const PHI3_MINI = {
  model_type: 'phi3', architectures: ['Phi3ForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 3072, intermediate_size: 8192,
  num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, original_max_position_embeddings: 4096, rms_norm_eps: 1e-5,
  tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32064,
};

export const PHI_4: readonly CatalogModel[] = [
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
