// Built-in catalog: Smaller labs: TinyLlama, Cerebras-GPT. Pure data.

import { hf, type CatalogModel } from './types';

export const TINYLLAMA: readonly CatalogModel[] = [
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
];

export const CEREBRAS_GPT: readonly CatalogModel[] = [
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
];
