// Built-in catalog: LLM-jp 3 (NII's LLM Research and Development Center), Llama-architecture models pretrained on
// Japanese and English with a 99,584-token vocabulary, untied embeddings and full multi-head attention. Sizes from the
// Megatron configs LLM-jp publishes for converting each checkpoint (COPIES.llmjp). Pure data.

import { checked, type CatalogModel } from './types';

/** The fields every LLM-jp 3 config.json shares (LlamaForCausalLM, 4,096 positions). */
const LLM_JP_3_CONFIG = {
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  hidden_act: 'silu',
  max_position_embeddings: 4096,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 99584,
};

export const LLM_JP_3: readonly CatalogModel[] = [
  {
    id: 'llm-jp/llm-jp-3-150m',
    aliases: ['llm-jp/llm-jp-3-150m-instruct2', 'llm-jp/llm-jp-3-150m-instruct3'],
    config: {
      ...LLM_JP_3_CONFIG,
      hidden_size: 512,
      intermediate_size: 2048,
      num_attention_heads: 8,
      num_hidden_layers: 12,
      num_key_value_heads: 8,
    },
    source: checked('llm-jp/llm-jp-3-150m', 'llmjp'),
  },
  {
    id: 'llm-jp/llm-jp-3-440m',
    aliases: ['llm-jp/llm-jp-3-440m-instruct2', 'llm-jp/llm-jp-3-440m-instruct3'],
    config: {
      ...LLM_JP_3_CONFIG,
      hidden_size: 1024,
      intermediate_size: 3584,
      num_attention_heads: 8,
      num_hidden_layers: 16,
      num_key_value_heads: 8,
    },
    source: checked('llm-jp/llm-jp-3-440m', 'llmjp'),
  },
  {
    id: 'llm-jp/llm-jp-3-980m',
    aliases: ['llm-jp/llm-jp-3-980m-instruct2', 'llm-jp/llm-jp-3-980m-instruct3'],
    config: {
      ...LLM_JP_3_CONFIG,
      hidden_size: 1536,
      intermediate_size: 5376,
      num_attention_heads: 8,
      num_hidden_layers: 20,
      num_key_value_heads: 8,
    },
    source: checked('llm-jp/llm-jp-3-980m', 'llmjp'),
  },
  {
    id: 'llm-jp/llm-jp-3-1.8b',
    aliases: ['llm-jp/llm-jp-3-1.8b-instruct', 'llm-jp/llm-jp-3-1.8b-instruct2', 'llm-jp/llm-jp-3-1.8b-instruct3'],
    config: {
      ...LLM_JP_3_CONFIG,
      hidden_size: 2048,
      intermediate_size: 7168,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      num_key_value_heads: 16,
    },
    source: checked('llm-jp/llm-jp-3-1.8b', 'llmjp'),
  },
  {
    id: 'llm-jp/llm-jp-3-3.7b',
    aliases: ['llm-jp/llm-jp-3-3.7b-instruct', 'llm-jp/llm-jp-3-3.7b-instruct2', 'llm-jp/llm-jp-3-3.7b-instruct3'],
    config: {
      ...LLM_JP_3_CONFIG,
      hidden_size: 3072,
      intermediate_size: 8192,
      num_attention_heads: 24,
      num_hidden_layers: 28,
      num_key_value_heads: 24,
    },
    source: checked('llm-jp/llm-jp-3-3.7b', 'llmjp'),
  },
  {
    id: 'llm-jp/llm-jp-3-7.2b',
    aliases: ['llm-jp/llm-jp-3-7.2b-instruct', 'llm-jp/llm-jp-3-7.2b-instruct2', 'llm-jp/llm-jp-3-7.2b-instruct3'],
    config: {
      ...LLM_JP_3_CONFIG,
      hidden_size: 4096,
      intermediate_size: 11008,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
    },
    source: checked('llm-jp/llm-jp-3-7.2b', 'llmjp'),
  },
  {
    id: 'llm-jp/llm-jp-3-13b',
    aliases: ['llm-jp/llm-jp-3-13b-instruct', 'llm-jp/llm-jp-3-13b-instruct2', 'llm-jp/llm-jp-3-13b-instruct3'],
    config: {
      ...LLM_JP_3_CONFIG,
      hidden_size: 5120,
      intermediate_size: 13824,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 40,
    },
    source: checked('llm-jp/llm-jp-3-13b', 'llmjp'),
  },
];
