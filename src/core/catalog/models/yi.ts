// Built-in catalog: 01.AI: Yi. Pure data.

import { hf, type CatalogModel } from './types';

export const YI: readonly CatalogModel[] = [
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
];

export const YI_9B_CODER: readonly CatalogModel[] = [
  {
    // Yi-9B and Yi-1.5-9B: Yi-6B deepened to 48 layers.
    id: '01-ai/Yi-9B',
    aliases: ['01-ai/Yi-1.5-9B', '01-ai/Yi-1.5-9B-Chat'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 48,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-5,
      rope_theta: 10000,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 64000,
    },
    source: hf('01-ai/Yi-9B'),
  },
  {
    id: '01-ai/Yi-Coder-1.5B',
    aliases: ['01-ai/Yi-Coder-1.5B-Chat'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 5504,
      max_position_embeddings: 131072,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      num_key_value_heads: 16,
      rms_norm_eps: 1e-5,
      rope_theta: 10000000,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 64000,
    },
    source: hf('01-ai/Yi-Coder-1.5B'),
  },
];
