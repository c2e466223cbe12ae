// Built-in catalog: IBM Granite 4.0 H: Mamba2 and attention layers. Pure data.

import { fineTune, hf, type CatalogModel } from './types';

export const GRANITE_4_H: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // IBM Granite 4.0 H (granitemoehybrid): Mamba2 layers with one attention layer (no position embedding) at 5, 15, 25
  // and 35 of 40, a gated shared MLP in every layer, tied embeddings (architecture.test.ts works the count out).
  // ---------------------------------------------------------------------------------------------
  {
    // 3,191,396,096: general.parameter_count of the GGUF conversion of this checkpoint (a tensor count, as the Hub's).
    id: 'ibm-granite/granite-4.0-h-micro',
    aliases: ['ibm-granite/granite-4.0-h-micro-base'],
    config: {
      model_type: 'granitemoehybrid', architectures: ['GraniteMoeHybridForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 2048,
      layer_types: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'attention' : 'mamba')), mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64,
      mamba_d_state: 128, mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 64, mamba_proj_bias: false, max_position_embeddings: 131072,
      num_attention_heads: 32, num_hidden_layers: 40, num_key_value_heads: 8, num_local_experts: 0, position_embedding_type: 'nope',
      shared_intermediate_size: 8192, tie_word_embeddings: true, vocab_size: 100352,
    },
    publishedParams: 3_191_396_096,
    source: hf('ibm-granite/granite-4.0-h-micro'),
  },
  {
    // 6,939,037,248: the Hub's safetensors total. 64 experts of 512 (top-6) beside a shared MLP of 1024 in every layer.
    id: 'ibm-granite/granite-4.0-h-tiny',
    aliases: ['ibm-granite/granite-4.0-h-tiny-base'],
    config: {
      model_type: 'granitemoehybrid', architectures: ['GraniteMoeHybridForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 1536,
      intermediate_size: 512,
      layer_types: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'attention' : 'mamba')), mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64,
      mamba_d_state: 128, mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 48, mamba_proj_bias: false, max_position_embeddings: 131072,
      num_attention_heads: 12, num_experts_per_tok: 6, num_hidden_layers: 40, num_key_value_heads: 4, num_local_experts: 64, position_embedding_type: 'nope',
      shared_intermediate_size: 1024, tie_word_embeddings: true, vocab_size: 100352,
    },
    publishedParams: 6_939_037_248,
    source: hf('ibm-granite/granite-4.0-h-tiny'),
  },
  {
    // 32,207,337,984: the Hub's safetensors total. 72 experts of 768 (top-10) beside a shared MLP of 1536.
    id: 'ibm-granite/granite-4.0-h-small',
    aliases: ['ibm-granite/granite-4.0-h-small-base'],
    config: {
      model_type: 'granitemoehybrid', architectures: ['GraniteMoeHybridForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 768,
      layer_types: Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'attention' : 'mamba')), mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64,
      mamba_d_state: 128, mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 128, mamba_proj_bias: false, max_position_embeddings: 131072,
      num_attention_heads: 32, num_experts_per_tok: 10, num_hidden_layers: 40, num_key_value_heads: 8, num_local_experts: 72, position_embedding_type: 'nope',
      shared_intermediate_size: 1536, tie_word_embeddings: true, vocab_size: 100352,
    },
    publishedParams: 32_207_337_984,
    source: hf('ibm-granite/granite-4.0-h-small'),
  },
];

export const GRANITE_3: readonly CatalogModel[] = [
  {
    // Granite 3.x dense: Llama layers with scalar multipliers, 8 kv heads, tied embeddings, a 49,155-token vocabulary.
    id: 'ibm-granite/granite-3.0-2b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 2048,
      intermediate_size: 8192, max_position_embeddings: 4096, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: hf('ibm-granite/granite-3.0-2b-base'),
  },
  {
    id: 'ibm-granite/granite-3.0-2b-instruct',
    baseModel: 'ibm-granite/granite-3.0-2b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 2048,
      intermediate_size: 8192, max_position_embeddings: 4096, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: fineTune('ibm-granite/granite-3.0-2b-instruct', 'ibm-granite/granite-3.0-2b-base'),
  },
  {
    id: 'ibm-granite/granite-3.0-8b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 12800, max_position_embeddings: 4096, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: hf('ibm-granite/granite-3.0-8b-base'),
  },
  {
    id: 'ibm-granite/granite-3.0-8b-instruct',
    baseModel: 'ibm-granite/granite-3.0-8b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 12800, max_position_embeddings: 4096, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: fineTune('ibm-granite/granite-3.0-8b-instruct', 'ibm-granite/granite-3.0-8b-base'),
  },
  {
    id: 'ibm-granite/granite-3.1-2b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 2048,
      intermediate_size: 8192, max_position_embeddings: 131072, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: hf('ibm-granite/granite-3.1-2b-base'),
  },
  {
    id: 'ibm-granite/granite-3.1-2b-instruct',
    baseModel: 'ibm-granite/granite-3.1-2b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 2048,
      intermediate_size: 8192, max_position_embeddings: 131072, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: fineTune('ibm-granite/granite-3.1-2b-instruct', 'ibm-granite/granite-3.1-2b-base'),
  },
  {
    id: 'ibm-granite/granite-3.1-8b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 12800, max_position_embeddings: 131072, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: hf('ibm-granite/granite-3.1-8b-base'),
  },
  {
    id: 'ibm-granite/granite-3.1-8b-instruct',
    baseModel: 'ibm-granite/granite-3.1-8b-base',
    config: {
      model_type: 'granite', architectures: ['GraniteForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 12800, max_position_embeddings: 131072, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 40,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49155,
    },
    source: fineTune('ibm-granite/granite-3.1-8b-instruct', 'ibm-granite/granite-3.1-8b-base'),
  },
];
