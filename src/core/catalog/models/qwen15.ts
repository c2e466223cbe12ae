// Built-in catalog: Qwen (Alibaba) 1.5: the dense models and CodeQwen1.5. Pure data.

import { fineTune, hf, type CatalogModel } from './types';

export const QWEN_15: readonly CatalogModel[] = [
  {
    // Qwen1.5: Qwen2 layers (q/k/v biases), 32,768 positions, untied embeddings.
    id: 'Qwen/Qwen1.5-0.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 1024, intermediate_size: 2816,
      max_position_embeddings: 32768, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 16, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: hf('Qwen/Qwen1.5-0.5B'),
  },
  {
    id: 'Qwen/Qwen1.5-0.5B-Chat',
    baseModel: 'Qwen/Qwen1.5-0.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 1024, intermediate_size: 2816,
      max_position_embeddings: 32768, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 16, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen1.5-0.5B-Chat', 'Qwen/Qwen1.5-0.5B'),
  },
  {
    id: 'Qwen/Qwen1.5-1.8B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 5504,
      max_position_embeddings: 32768, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 16, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: hf('Qwen/Qwen1.5-1.8B'),
  },
  {
    id: 'Qwen/Qwen1.5-1.8B-Chat',
    baseModel: 'Qwen/Qwen1.5-1.8B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 5504,
      max_position_embeddings: 32768, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 16, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen1.5-1.8B-Chat', 'Qwen/Qwen1.5-1.8B'),
  },
  {
    id: 'Qwen/Qwen1.5-4B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 2560, intermediate_size: 6912,
      max_position_embeddings: 32768, num_attention_heads: 20, num_hidden_layers: 40, num_key_value_heads: 20, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: hf('Qwen/Qwen1.5-4B'),
  },
  {
    id: 'Qwen/Qwen1.5-4B-Chat',
    baseModel: 'Qwen/Qwen1.5-4B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 2560, intermediate_size: 6912,
      max_position_embeddings: 32768, num_attention_heads: 20, num_hidden_layers: 40, num_key_value_heads: 20, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen1.5-4B-Chat', 'Qwen/Qwen1.5-4B'),
  },
  {
    id: 'Qwen/Qwen1.5-7B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: hf('Qwen/Qwen1.5-7B'),
  },
  {
    id: 'Qwen/Qwen1.5-7B-Chat',
    baseModel: 'Qwen/Qwen1.5-7B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen1.5-7B-Chat', 'Qwen/Qwen1.5-7B'),
  },
  {
    id: 'Qwen/Qwen1.5-14B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13696,
      max_position_embeddings: 32768, num_attention_heads: 40, num_hidden_layers: 40, num_key_value_heads: 40, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: hf('Qwen/Qwen1.5-14B'),
  },
  {
    id: 'Qwen/Qwen1.5-14B-Chat',
    baseModel: 'Qwen/Qwen1.5-14B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13696,
      max_position_embeddings: 32768, num_attention_heads: 40, num_hidden_layers: 40, num_key_value_heads: 40, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: fineTune('Qwen/Qwen1.5-14B-Chat', 'Qwen/Qwen1.5-14B'),
  },
  {
    id: 'Qwen/Qwen1.5-32B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 27392,
      max_position_embeddings: 32768, num_attention_heads: 40, num_hidden_layers: 64, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: hf('Qwen/Qwen1.5-32B'),
  },
  {
    id: 'Qwen/Qwen1.5-32B-Chat',
    baseModel: 'Qwen/Qwen1.5-32B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 27392,
      max_position_embeddings: 32768, num_attention_heads: 40, num_hidden_layers: 64, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: fineTune('Qwen/Qwen1.5-32B-Chat', 'Qwen/Qwen1.5-32B'),
  },
  {
    id: 'Qwen/Qwen1.5-72B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 24576,
      max_position_embeddings: 32768, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 64, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: hf('Qwen/Qwen1.5-72B'),
  },
  {
    id: 'Qwen/Qwen1.5-72B-Chat',
    baseModel: 'Qwen/Qwen1.5-72B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 24576,
      max_position_embeddings: 32768, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 64, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: fineTune('Qwen/Qwen1.5-72B-Chat', 'Qwen/Qwen1.5-72B'),
  },
  {
    id: 'Qwen/Qwen1.5-110B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 49152,
      max_position_embeddings: 32768, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: hf('Qwen/Qwen1.5-110B'),
  },
  {
    id: 'Qwen/Qwen1.5-110B-Chat',
    baseModel: 'Qwen/Qwen1.5-110B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 49152,
      max_position_embeddings: 32768, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: fineTune('Qwen/Qwen1.5-110B-Chat', 'Qwen/Qwen1.5-110B'),
  },
  {
    id: 'Qwen/CodeQwen1.5-7B',
    aliases: ['Qwen/CodeQwen1.5-7B-Chat'],
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 13440,
      max_position_embeddings: 65536, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 92416,
    },
    source: hf('Qwen/CodeQwen1.5-7B'),
  },
];
