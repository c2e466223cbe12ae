// Built-in catalog: Allen AI: OLMo 2. Pure data.

import { checked, hf, type CatalogModel } from './types';

/** Fields the OLMo 2 config.json files share. */
const OLMO2 = {
  model_type: 'olmo2',
  architectures: ['Olmo2ForCausalLM'],
  attention_bias: false,
  hidden_act: 'silu',
  max_position_embeddings: 4096,
  rms_norm_eps: 1e-6,
  rope_theta: 500000,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 100352,
};

export const OLMO_2: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // OLMo 2 (allenai): norms after attention and MLP, q/k norms over the whole projections, 100,352-token vocabulary.
  // Counts by hand in architecture.test.ts.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'allenai/OLMo-2-0425-1B',
    aliases: ['allenai/OLMo-2-0425-1B-Instruct'],
    config: {
      ...OLMO2,
      hidden_size: 2048,
      intermediate_size: 8192,
      num_attention_heads: 16,
      num_hidden_layers: 16,
      num_key_value_heads: 16,
    },
    source: hf('allenai/OLMo-2-0425-1B'),
  },
  {
    id: 'allenai/OLMo-2-1124-7B',
    aliases: ['allenai/OLMo-2-1124-7B-Instruct', 'allenai/OLMo-2-1124-7B-SFT', 'allenai/OLMo-2-1124-7B-DPO'],
    config: {
      ...OLMO2,
      hidden_size: 4096,
      intermediate_size: 11008,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
    },
    source: hf('allenai/OLMo-2-1124-7B'),
  },
  {
    id: 'allenai/OLMo-2-1124-13B',
    aliases: ['allenai/OLMo-2-1124-13B-Instruct'],
    config: {
      ...OLMO2,
      hidden_size: 5120,
      intermediate_size: 13824,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 40,
    },
    source: hf('allenai/OLMo-2-1124-13B'),
  },
  {
    id: 'allenai/OLMo-2-0325-32B',
    aliases: ['allenai/OLMo-2-0325-32B-Instruct'],
    config: {
      ...OLMO2,
      hidden_size: 5120,
      intermediate_size: 27648,
      num_attention_heads: 40,
      num_hidden_layers: 64,
      num_key_value_heads: 8,
      head_dim: 128,
    },
    source: hf('allenai/OLMo-2-0325-32B'),
  },
];

export const OLMO_1: readonly CatalogModel[] = [
  {
    // OLMo (1): Llama layers whose LayerNorms have no weights; the 1B ties its embeddings.
    id: 'allenai/OLMo-1B-hf',
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 8192,
      max_position_embeddings: 2048,
      num_attention_heads: 16,
      num_hidden_layers: 16,
      num_key_value_heads: 16,
      tie_word_embeddings: true,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: checked('allenai/OLMo-1B-hf', 'litgpt'),
  },
  {
    id: 'allenai/OLMo-7B-hf',
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: checked('allenai/OLMo-7B-hf', 'litgpt'),
  },
  {
    id: 'allenai/OLMo-7B-Instruct-hf',
    baseModel: 'allenai/OLMo-7B-hf',
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: checked('allenai/OLMo-7B-Instruct-hf', 'litgpt'),
  },
  {
    // OLMo 1.7 (0424, 0724): 4,096 positions, q/k/v clipped at 8.
    id: 'allenai/OLMo-7B-0424-hf',
    aliases: ['allenai/OLMo-7B-0724-hf'],
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      clip_qkv: 8,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: hf('allenai/OLMo-7B-0424-hf'),
  },
];
