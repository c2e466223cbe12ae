// Built-in catalog: Stability AI: StableLM 2, StableLM-3B-4E1T and Stable Code. Pure data.

import { checked, hf, type CatalogModel } from './types';

export const STABLELM: readonly CatalogModel[] = [
  {
    // StableLM 2 / 3B-4E1T: Llama's modules with LayerNorms, a quarter of each head rotated.
    id: 'stabilityai/stablelm-2-1_6b',
    config: {
      model_type: 'stablelm', architectures: ['StableLmForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 5632,
      layer_norm_eps: 1e-05, max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 24, num_key_value_heads: 32,
      partial_rotary_factor: 0.25, rope_theta: 10000, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_qkv_bias: true, vocab_size: 100352,
    },
    source: hf('stabilityai/stablelm-2-1_6b'),
  },
  {
    id: 'stabilityai/stablelm-2-zephyr-1_6b',
    baseModel: 'stabilityai/stablelm-2-1_6b',
    config: {
      model_type: 'stablelm', architectures: ['StableLmForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 5632,
      layer_norm_eps: 1e-05, max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 24, num_key_value_heads: 32,
      partial_rotary_factor: 0.25, rope_theta: 10000, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_qkv_bias: true, vocab_size: 100352,
    },
    source: checked('stabilityai/stablelm-2-zephyr-1_6b', 'mlc'),
  },
  {
    id: 'stabilityai/stablelm-3b-4e1t',
    config: {
      model_type: 'stablelm', architectures: ['StableLmForCausalLM'], hidden_act: 'silu', hidden_size: 2560, intermediate_size: 6912,
      layer_norm_eps: 1e-05, max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32,
      partial_rotary_factor: 0.25, rope_theta: 10000, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_qkv_bias: false, vocab_size: 50304,
    },
    source: checked('stabilityai/stablelm-3b-4e1t', 'mlc'),
  },
  {
    id: 'stabilityai/stablelm-zephyr-3b',
    baseModel: 'stabilityai/stablelm-3b-4e1t',
    config: {
      model_type: 'stablelm', architectures: ['StableLmForCausalLM'], hidden_act: 'silu', hidden_size: 2560, intermediate_size: 6912,
      layer_norm_eps: 1e-05, max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32,
      partial_rotary_factor: 0.25, rope_theta: 10000, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_qkv_bias: false, vocab_size: 50304,
    },
    source: checked('stabilityai/stablelm-zephyr-3b', 'litgpt'),
  },
  {
    id: 'stabilityai/stable-code-3b',
    config: {
      model_type: 'stablelm', architectures: ['StableLmForCausalLM'], hidden_act: 'silu', hidden_size: 2560, intermediate_size: 6912,
      layer_norm_eps: 1e-05, max_position_embeddings: 16384, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32,
      partial_rotary_factor: 0.25, rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_qkv_bias: false, vocab_size: 50304,
    },
    source: checked('stabilityai/stable-code-3b', 'litgpt'),
  },
];
