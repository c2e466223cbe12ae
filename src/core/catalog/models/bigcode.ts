// Built-in catalog: BigCode: StarCoder, StarCoderBase, SantaCoder and StarCoder2. Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

export const STARCODER: readonly CatalogModel[] = [
  {
    // StarCoder2: LayerNorms and biases, GQA, a GELU MLP, 4,096-token sliding window.
    id: 'bigcode/starcoder2-3b',
    config: {
      model_type: 'starcoder2', architectures: ['Starcoder2ForCausalLM'], attention_dropout: 0.1, embedding_dropout: 0.1,
      hidden_act: 'gelu_pytorch_tanh', hidden_size: 3072, intermediate_size: 12288, max_position_embeddings: 16384, norm_epsilon: 1e-05,
      num_attention_heads: 24, num_hidden_layers: 30, num_key_value_heads: 2, residual_dropout: 0.1, rope_theta: 999999.4420358813,
      sliding_window: 4096, torch_dtype: 'float32', use_bias: true, vocab_size: 49152,
    },
    source: hf('bigcode/starcoder2-3b'),
  },
  {
    id: 'bigcode/starcoder2-7b',
    config: {
      model_type: 'starcoder2', architectures: ['Starcoder2ForCausalLM'], attention_dropout: 0.1, embedding_dropout: 0.1,
      hidden_act: 'gelu_pytorch_tanh', hidden_size: 4608, intermediate_size: 18432, max_position_embeddings: 16384, norm_epsilon: 1e-05,
      num_attention_heads: 36, num_hidden_layers: 32, num_key_value_heads: 4, residual_dropout: 0.1, rope_theta: 1000000, sliding_window: 4096,
      torch_dtype: 'float32', use_bias: true, vocab_size: 49152,
    },
    source: checked('bigcode/starcoder2-7b', 'mlc'),
  },
  {
    id: 'bigcode/starcoder2-15b',
    config: {
      model_type: 'starcoder2', architectures: ['Starcoder2ForCausalLM'], attention_dropout: 0.1, embedding_dropout: 0.1,
      hidden_act: 'gelu_pytorch_tanh', hidden_size: 6144, intermediate_size: 24576, max_position_embeddings: 16384, norm_epsilon: 1e-05,
      num_attention_heads: 48, num_hidden_layers: 40, num_key_value_heads: 4, residual_dropout: 0.1, rope_theta: 100000, sliding_window: 4096,
      tie_word_embeddings: false, torch_dtype: 'float32', use_bias: true, vocab_size: 49152,
    },
    source: hf('bigcode/starcoder2-15b'),
  },
  {
    id: 'bigcode/starcoder2-15b-instruct-v0.1',
    baseModel: 'bigcode/starcoder2-15b',
    config: {
      model_type: 'starcoder2', architectures: ['Starcoder2ForCausalLM'], attention_dropout: 0.1, embedding_dropout: 0.1,
      hidden_act: 'gelu_pytorch_tanh', hidden_size: 6144, intermediate_size: 24576, max_position_embeddings: 16384, norm_epsilon: 1e-05,
      num_attention_heads: 48, num_hidden_layers: 40, num_key_value_heads: 4, residual_dropout: 0.1, rope_theta: 100000, sliding_window: 4096,
      tie_word_embeddings: false, torch_dtype: 'float32', use_bias: true, vocab_size: 49152,
    },
    source: fineTune('bigcode/starcoder2-15b-instruct-v0.1', 'bigcode/starcoder2-15b'),
  },
  {
    // StarCoderBase / StarCoder 15.5B (Li et al. 2023): GPT-2 layers with multi-query attention, 8,192 learned
    // positions.
    id: 'bigcode/starcoderbase',
    aliases: ['bigcode/starcoder', 'bigcode/starcoderplus'],
    config: {
      model_type: 'gpt_bigcode', architectures: ['GPTBigCodeForCausalLM'], activation_function: 'gelu_pytorch_tanh', attention_softmax_in_fp32: true,
      attn_pdrop: 0.1, embd_pdrop: 0.1, layer_norm_epsilon: 1e-05, multi_query: true, n_embd: 6144, n_head: 48, n_inner: 24576, n_layer: 40,
      n_positions: 8192, resid_pdrop: 0.1, torch_dtype: 'float32', vocab_size: 49152,
    },
    source: hf('bigcode/starcoderbase'),
  },
  {
    id: 'bigcode/starcoderbase-7b',
    config: {
      model_type: 'gpt_bigcode', architectures: ['GPTBigCodeForCausalLM'], activation_function: 'gelu_pytorch_tanh', attention_softmax_in_fp32: true,
      attn_pdrop: 0.1, embd_pdrop: 0.1, layer_norm_epsilon: 1e-05, multi_query: true, n_embd: 4096, n_head: 32, n_inner: 16384, n_layer: 42,
      n_positions: 8192, resid_pdrop: 0.1, torch_dtype: 'float32', vocab_size: 49152,
    },
    source: hf('bigcode/starcoderbase-7b'),
  },
  {
    id: 'bigcode/starcoderbase-3b',
    config: {
      model_type: 'gpt_bigcode', architectures: ['GPTBigCodeForCausalLM'], activation_function: 'gelu_pytorch_tanh', attention_softmax_in_fp32: true,
      attn_pdrop: 0.1, embd_pdrop: 0.1, layer_norm_epsilon: 1e-05, multi_query: true, n_embd: 2816, n_head: 22, n_inner: 11264, n_layer: 36,
      n_positions: 8192, resid_pdrop: 0.1, torch_dtype: 'float32', vocab_size: 49152,
    },
    source: hf('bigcode/starcoderbase-3b'),
  },
  {
    id: 'bigcode/starcoderbase-1b',
    config: {
      model_type: 'gpt_bigcode', architectures: ['GPTBigCodeForCausalLM'], activation_function: 'gelu_pytorch_tanh', attention_softmax_in_fp32: true,
      attn_pdrop: 0.1, embd_pdrop: 0.1, layer_norm_epsilon: 1e-05, multi_query: true, n_embd: 2048, n_head: 16, n_inner: 8192, n_layer: 24,
      n_positions: 8192, resid_pdrop: 0.1, torch_dtype: 'float32', vocab_size: 49152,
    },
    source: hf('bigcode/starcoderbase-1b'),
  },
  {
    id: 'bigcode/tiny_starcoder_py',
    config: {
      model_type: 'gpt_bigcode', architectures: ['GPTBigCodeForCausalLM'], activation_function: 'gelu_pytorch_tanh', attention_softmax_in_fp32: true,
      attn_pdrop: 0.1, embd_pdrop: 0.1, layer_norm_epsilon: 1e-05, multi_query: true, n_embd: 768, n_head: 12, n_inner: 3072, n_layer: 20,
      n_positions: 8192, resid_pdrop: 0.1, torch_dtype: 'float32', vocab_size: 49152,
    },
    source: hf('bigcode/tiny_starcoder_py'),
  },
  {
    id: 'bigcode/gpt_bigcode-santacoder',
    config: {
      model_type: 'gpt_bigcode', architectures: ['GPTBigCodeForCausalLM'], activation_function: 'gelu_pytorch_tanh', attention_softmax_in_fp32: true,
      attn_pdrop: 0.1, embd_pdrop: 0.1, layer_norm_epsilon: 1e-05, multi_query: true, n_embd: 2048, n_head: 16, n_inner: 8192, n_layer: 24,
      n_positions: 2048, resid_pdrop: 0.1, torch_dtype: 'float32', vocab_size: 49280,
    },
    source: checked('bigcode/gpt_bigcode-santacoder', 'mlc'),
  },
];
