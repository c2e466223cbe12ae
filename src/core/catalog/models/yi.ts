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
