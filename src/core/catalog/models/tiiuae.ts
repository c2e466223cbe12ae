// Built-in catalog: TII Falcon-H1: a Mamba2 mixer and attention side by side in every layer. Pure data.

import { checked, hf, type CatalogModel } from './types';

export const FALCON_H1: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // TII Falcon-H1 (falcon_h1): a Mamba2 mixer and attention side by side in every layer, then a SwiGLU MLP. The µP
  // multipliers change no byte; mamba_chunk_size 128 as in the 0.5B config (architecture.test.ts works the counts out).
  // ---------------------------------------------------------------------------------------------
  {
    // 521,411,104: the pinned checkpoint's parameter count (model.safetensors 1,042,886,408 B = 2 B x 521,411,104 + its
    // header). Attention heads of 64 (not 1024 / 8); no gated norm in the mixer (mamba_rms_norm false).
    id: 'tiiuae/Falcon-H1-0.5B-Base',
    aliases: ['tiiuae/Falcon-H1-0.5B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, attention_in_multiplier: 1.0, attention_out_multiplier: 0.9375,
      embedding_multiplier: 5.656854249492381, head_dim: 64, hidden_act: 'silu', hidden_size: 1024, intermediate_size: 2048,
      key_multiplier: 0.39062499999999994,
      lm_head_multiplier: 0.0390625, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_ssm: 1536, mamba_d_state: 128,
      mamba_expand: 2, mamba_n_groups: 1, mamba_n_heads: 24, mamba_norm_before_gate: false, mamba_proj_bias: false, mamba_rms_norm: false,
      max_position_embeddings: 16384, mlp_bias: false, mlp_multipliers: [0.8838834764831844, 0.5859375], num_attention_heads: 8, num_hidden_layers: 36,
      num_key_value_heads: 2, projectors_bias: false, rms_norm_eps: 1e-5, ssm_in_multiplier: 1.25,
      ssm_multipliers: [0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738], ssm_out_multiplier: 0.23570226039551587,
      tie_word_embeddings: false, vocab_size: 32784,
    },
    publishedParams: 521_411_104,
    source: hf('tiiuae/Falcon-H1-0.5B-Base'),
  },
  {
    // 1,554,863,488: sum(p.numel()) of transformers' FalconH1ForCausalLM (411 tensors = 24 x 17 + 3).
    id: 'tiiuae/Falcon-H1-1.5B-Base',
    aliases: ['tiiuae/Falcon-H1-1.5B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 2048,
      intermediate_size: 4608, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_ssm: 3072, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 48, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 8, num_hidden_layers: 24,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 65537,
    },
    publishedParams: 1_554_863_488,
    source: hf('tiiuae/Falcon-H1-1.5B-Base'),
  },
  {
    // 66 layers of hidden 1280 (6 attention heads of 128, not 1280 / 6); no published exact count.
    id: 'tiiuae/Falcon-H1-1.5B-Deep-Base',
    aliases: ['tiiuae/Falcon-H1-1.5B-Deep-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 1280,
      intermediate_size: 3072, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 64, mamba_d_ssm: 1536, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 24, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 6, num_hidden_layers: 66,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 65537,
    },
    source: hf('tiiuae/Falcon-H1-1.5B-Deep-Base'),
  },
  {
    // No published exact count.
    id: 'tiiuae/Falcon-H1-3B-Base',
    aliases: ['tiiuae/Falcon-H1-3B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 2560,
      intermediate_size: 6144, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 128, mamba_d_ssm: 4096, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 32, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 10, num_hidden_layers: 32,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 65537,
    },
    source: hf('tiiuae/Falcon-H1-3B-Base'),
  },
  {
    // 7,585,654,880: a measured census of the checkpoint (44 layers).
    id: 'tiiuae/Falcon-H1-7B-Base',
    aliases: ['tiiuae/Falcon-H1-7B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 3072,
      intermediate_size: 12288, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 128, mamba_d_ssm: 3072, mamba_d_state: 256,
      mamba_n_groups: 1, mamba_n_heads: 24, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 12, num_hidden_layers: 44,
      num_key_value_heads: 2, projectors_bias: false, tie_word_embeddings: false, vocab_size: 130049,
    },
    publishedParams: 7_585_654_880,
    source: hf('tiiuae/Falcon-H1-7B-Base'),
  },
  {
    // Two Mamba2 groups; no published exact count.
    id: 'tiiuae/Falcon-H1-34B-Base',
    aliases: ['tiiuae/Falcon-H1-34B-Instruct'],
    config: {
      model_type: 'falcon_h1', architectures: ['FalconH1ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 5120,
      intermediate_size: 21504, mamba_chunk_size: 128, mamba_conv_bias: true, mamba_d_conv: 4, mamba_d_head: 128, mamba_d_ssm: 4096, mamba_d_state: 256,
      mamba_n_groups: 2, mamba_n_heads: 32, mamba_proj_bias: false, mamba_rms_norm: true, mlp_bias: false, num_attention_heads: 20, num_hidden_layers: 72,
      num_key_value_heads: 4, projectors_bias: false, tie_word_embeddings: false, vocab_size: 261120,
    },
    source: hf('tiiuae/Falcon-H1-34B-Base'),
  },
];

export const FALCON: readonly CatalogModel[] = [
  {
    // Falcon-7B: multi-query attention, attention and MLP in parallel off one LayerNorm, tied embeddings.
    id: 'tiiuae/falcon-7b',
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: false, attention_dropout: 0, bias: false, hidden_dropout: 0,
      hidden_size: 4544, layer_norm_epsilon: 1e-05, multi_query: true, new_decoder_architecture: false, num_attention_heads: 71,
      num_hidden_layers: 32, parallel_attn: true, torch_dtype: 'bfloat16', vocab_size: 65024,
    },
    source: checked('tiiuae/falcon-7b', 'litgpt'),
  },
  {
    id: 'tiiuae/falcon-7b-instruct',
    baseModel: 'tiiuae/falcon-7b',
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: false, attention_dropout: 0, bias: false, hidden_dropout: 0,
      hidden_size: 4544, layer_norm_epsilon: 1e-05, multi_query: true, new_decoder_architecture: false, num_attention_heads: 71,
      num_hidden_layers: 32, parallel_attn: true, torch_dtype: 'bfloat16', vocab_size: 65024,
    },
    source: checked('tiiuae/falcon-7b-instruct', 'litgpt'),
  },
  {
    // Falcon-40B and 180B: the new decoder architecture, 8 kv groups, ln_attn and ln_mlp.
    id: 'tiiuae/falcon-40b',
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: false, attention_dropout: 0, bias: false, hidden_dropout: 0,
      hidden_size: 8192, layer_norm_epsilon: 1e-05, multi_query: false, new_decoder_architecture: true, num_attention_heads: 128,
      num_hidden_layers: 60, num_kv_heads: 8, parallel_attn: true, torch_dtype: 'bfloat16', vocab_size: 65024,
    },
    source: checked('tiiuae/falcon-40b', 'litgpt'),
  },
  {
    id: 'tiiuae/falcon-40b-instruct',
    baseModel: 'tiiuae/falcon-40b',
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: false, attention_dropout: 0, bias: false, hidden_dropout: 0,
      hidden_size: 8192, layer_norm_epsilon: 1e-05, multi_query: false, new_decoder_architecture: true, num_attention_heads: 128,
      num_hidden_layers: 60, num_kv_heads: 8, parallel_attn: true, torch_dtype: 'bfloat16', vocab_size: 65024,
    },
    source: checked('tiiuae/falcon-40b-instruct', 'litgpt'),
  },
  {
    id: 'tiiuae/falcon-180B',
    aliases: ['tiiuae/falcon-180B-chat'],
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: false, attention_dropout: 0, bias: false, hidden_dropout: 0,
      hidden_size: 14848, layer_norm_epsilon: 1e-05, multi_query: false, new_decoder_architecture: true, num_attention_heads: 232,
      num_hidden_layers: 80, num_kv_heads: 8, parallel_attn: true, torch_dtype: 'bfloat16', vocab_size: 65024,
    },
    source: checked('tiiuae/falcon-180B', 'litgpt'),
  },
  {
    // Falcon-RW: trained on RefinedWeb only; sequential blocks with biases and ALiBi.
    id: 'tiiuae/falcon-rw-1b',
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: true, attention_dropout: 0, bias: true, hidden_dropout: 0,
      hidden_size: 2048, layer_norm_epsilon: 1e-05, multi_query: false, new_decoder_architecture: false, num_attention_heads: 32,
      num_hidden_layers: 24, parallel_attn: false, torch_dtype: 'bfloat16', vocab_size: 50304,
    },
    source: hf('tiiuae/falcon-rw-1b'),
  },
  {
    id: 'tiiuae/falcon-rw-7b',
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: true, attention_dropout: 0, bias: true, hidden_dropout: 0,
      hidden_size: 4096, layer_norm_epsilon: 1e-05, multi_query: false, new_decoder_architecture: false, num_attention_heads: 64,
      num_hidden_layers: 36, parallel_attn: false, torch_dtype: 'bfloat16', vocab_size: 65024,
    },
    source: hf('tiiuae/falcon-rw-7b'),
  },
  {
    // Falcon2-11B: the new decoder architecture with one LayerNorm per block (num_ln_in_parallel_attn 1).
    id: 'tiiuae/falcon-11B',
    config: {
      model_type: 'falcon', architectures: ['FalconForCausalLM'], alibi: false, attention_dropout: 0, bias: false, hidden_dropout: 0,
      hidden_size: 4096, layer_norm_epsilon: 1e-05, multi_query: false, new_decoder_architecture: true, num_attention_heads: 32,
      num_hidden_layers: 60, num_kv_heads: 8, parallel_attn: true, max_position_embeddings: 8192, num_ln_in_parallel_attn: 1, rope_theta: 500042,
      torch_dtype: 'bfloat16', vocab_size: 65024,
    },
    source: hf('tiiuae/falcon-11B'),
  },
  {
    // Falcon 3: Llama layers with 256-wide heads and 4 kv heads.
    id: 'tiiuae/Falcon3-1B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 8192,
      max_position_embeddings: 4096, num_attention_heads: 8, num_hidden_layers: 18, num_key_value_heads: 4, rms_norm_eps: 1e-06, rope_theta: 1000042,
      head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-1B-Base', 'litgpt'),
  },
  {
    id: 'tiiuae/Falcon3-1B-Instruct',
    baseModel: 'tiiuae/Falcon3-1B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 8192,
      max_position_embeddings: 4096, num_attention_heads: 8, num_hidden_layers: 18, num_key_value_heads: 4, rms_norm_eps: 1e-06, rope_theta: 1000042,
      head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-1B-Instruct', 'litgpt'),
  },
  {
    id: 'tiiuae/Falcon3-3B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 3072, intermediate_size: 9216,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 22, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 1000042, head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-3B-Base', 'litgpt'),
  },
  {
    id: 'tiiuae/Falcon3-3B-Instruct',
    baseModel: 'tiiuae/Falcon3-3B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 3072, intermediate_size: 9216,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 22, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 1000042, head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-3B-Instruct', 'litgpt'),
  },
  {
    id: 'tiiuae/Falcon3-7B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 3072, intermediate_size: 23040,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 1000042, head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-7B-Base', 'litgpt'),
  },
  {
    id: 'tiiuae/Falcon3-7B-Instruct',
    baseModel: 'tiiuae/Falcon3-7B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 3072, intermediate_size: 23040,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 1000042, head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-7B-Instruct', 'litgpt'),
  },
  {
    id: 'tiiuae/Falcon3-10B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 3072, intermediate_size: 23040,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 40, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 1000042, head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-10B-Base', 'litgpt'),
  },
  {
    id: 'tiiuae/Falcon3-10B-Instruct',
    baseModel: 'tiiuae/Falcon3-10B-Base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 3072, intermediate_size: 23040,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 40, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 1000042, head_dim: 256, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 131072,
    },
    source: checked('tiiuae/Falcon3-10B-Instruct', 'litgpt'),
  },
];
