// Built-in catalog: Shanghai AI Laboratory: InternLM2 and InternLM2.5. Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

export const INTERNLM2: readonly CatalogModel[] = [
  {
    // InternLM2 and 2.5 (remote code): Llama layers as wqkv / wo / w1 w3 w2, 8 kv groups, a 92,544-token vocabulary.
    id: 'internlm/internlm2-1_8b',
    aliases: ['internlm/internlm2_5-1_8b'],
    config: {
      model_type: 'internlm2', architectures: ['InternLM2ForCausalLM'], bias: false, hidden_act: 'silu', hidden_size: 2048, intermediate_size: 8192,
      max_position_embeddings: 32768, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 92544,
    },
    source: hf('internlm/internlm2-1_8b'),
  },
  {
    id: 'internlm/internlm2-chat-1_8b',
    aliases: ['internlm/internlm2_5-1_8b-chat'],
    baseModel: 'internlm/internlm2-1_8b',
    config: {
      model_type: 'internlm2', architectures: ['InternLM2ForCausalLM'], bias: false, hidden_act: 'silu', hidden_size: 2048, intermediate_size: 8192,
      max_position_embeddings: 32768, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 92544,
    },
    source: fineTune('internlm/internlm2-chat-1_8b', 'internlm/internlm2-1_8b'),
  },
  {
    id: 'internlm/internlm2-7b',
    aliases: ['internlm/internlm2_5-7b'],
    config: {
      model_type: 'internlm2', architectures: ['InternLM2ForCausalLM'], bias: false, hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 92544,
    },
    source: checked('internlm/internlm2-7b', 'mlc'),
  },
  {
    id: 'internlm/internlm2-chat-7b',
    aliases: ['internlm/internlm2_5-7b-chat'],
    baseModel: 'internlm/internlm2-7b',
    config: {
      model_type: 'internlm2', architectures: ['InternLM2ForCausalLM'], bias: false, hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 92544,
    },
    source: fineTune('internlm/internlm2-chat-7b', 'internlm/internlm2-7b'),
  },
  {
    id: 'internlm/internlm2-20b',
    aliases: ['internlm/internlm2_5-20b'],
    config: {
      model_type: 'internlm2', architectures: ['InternLM2ForCausalLM'], bias: false, hidden_act: 'silu', hidden_size: 6144, intermediate_size: 16384,
      max_position_embeddings: 32768, num_attention_heads: 48, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 92544,
    },
    source: hf('internlm/internlm2-20b'),
  },
  {
    id: 'internlm/internlm2-chat-20b',
    aliases: ['internlm/internlm2_5-20b-chat'],
    baseModel: 'internlm/internlm2-20b',
    config: {
      model_type: 'internlm2', architectures: ['InternLM2ForCausalLM'], bias: false, hidden_act: 'silu', hidden_size: 6144, intermediate_size: 16384,
      max_position_embeddings: 32768, num_attention_heads: 48, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 92544,
    },
    source: fineTune('internlm/internlm2-chat-20b', 'internlm/internlm2-20b'),
  },
];
