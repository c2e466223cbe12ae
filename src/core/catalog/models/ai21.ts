// Built-in catalog: AI21 Jamba: Mamba-1 and attention layers with MoE. Pure data.

import { hf, type CatalogModel } from './types';

export const JAMBA: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // AI21 Jamba (jamba): Mamba-1 layers with an attention layer in every 8 (offset 4) and Mixtral's MoE block in every
  // other layer (offset 1), 16 experts top-2 (architecture.test.ts works the count out).
  // ---------------------------------------------------------------------------------------------
  {
    // 51,570,323,328 by hand: 28 Mamba-1 layers, 4 attention layers, 16 MoE and 16 dense MLPs, an untied head.
    id: 'ai21labs/Jamba-v0.1',
    aliases: ['ai21labs/AI21-Jamba-1.5-Mini', 'ai21labs/AI21-Jamba-Mini-1.6', 'ai21labs/AI21-Jamba-Mini-1.7'],
    config: {
      model_type: 'jamba',
      architectures: ['JambaForCausalLM'],
      attn_layer_offset: 4,
      attn_layer_period: 8,
      expert_layer_offset: 1,
      expert_layer_period: 2,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      mamba_conv_bias: true,
      mamba_d_conv: 4,
      mamba_d_state: 16,
      mamba_dt_rank: 256,
      mamba_expand: 2,
      mamba_proj_bias: false,
      max_position_embeddings: 262144,
      num_attention_heads: 32,
      num_experts: 16,
      num_experts_per_tok: 2,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      use_mamba_kernels: true,
      vocab_size: 65536,
    },
    source: hf('ai21labs/Jamba-v0.1'),
  },
  {
    // Jamba 1.5 Large (and 1.6 / 1.7): 72 layers of 8192, 9 attention layers, dt rank 512; no published exact count.
    id: 'ai21labs/AI21-Jamba-1.5-Large',
    aliases: ['ai21labs/AI21-Jamba-Large-1.6', 'ai21labs/AI21-Jamba-Large-1.7'],
    config: {
      model_type: 'jamba',
      architectures: ['JambaForCausalLM'],
      attn_layer_offset: 4,
      attn_layer_period: 8,
      expert_layer_offset: 1,
      expert_layer_period: 2,
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 24576,
      mamba_conv_bias: true,
      mamba_d_conv: 4,
      mamba_d_state: 16,
      mamba_dt_rank: 512,
      mamba_expand: 2,
      mamba_proj_bias: false,
      max_position_embeddings: 262144,
      num_attention_heads: 64,
      num_experts: 16,
      num_experts_per_tok: 2,
      num_hidden_layers: 72,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      use_mamba_kernels: true,
      vocab_size: 65536,
    },
    source: hf('ai21labs/AI21-Jamba-1.5-Large'),
  },
];
