// Built-in catalog: Qwen (Alibaba) before Qwen3: Qwen v1, Qwen1.5-MoE, Qwen2 and Qwen2.5, and the Qwen2 / 2.5-VL
// image-text models. Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

/** Fields the Qwen2.5-VL config.json files share; the vision tower is the same ViT in every size. */
const QWEN25_VL = {
  model_type: 'qwen2_5_vl', architectures: ['Qwen2_5_VLForConditionalGeneration'], hidden_act: 'silu', max_position_embeddings: 128000,
  rms_norm_eps: 1e-6, torch_dtype: 'bfloat16',
};

const QWEN25_VL_VISION = {
  depth: 32, hidden_act: 'silu', hidden_size: 1280, intermediate_size: 3420, num_heads: 16, in_chans: 3, patch_size: 14, spatial_merge_size: 2,
  temporal_patch_size: 2, window_size: 112, fullatt_block_indexes: [7, 15, 23, 31],
};

/** Qwen2-VL: the same layout with Qwen2's ViT (LayerNorm, fc1 / fc2 MLP of 4 x 1280). */
const QWEN2_VL = {
  model_type: 'qwen2_vl', architectures: ['Qwen2VLForConditionalGeneration'], hidden_act: 'silu', max_position_embeddings: 32768, rms_norm_eps: 1e-6,
  torch_dtype: 'bfloat16',
};

const QWEN2_VL_VISION = { depth: 32, embed_dim: 1280, mlp_ratio: 4, num_heads: 16, in_chans: 3, patch_size: 14, spatial_merge_size: 2, temporal_patch_size: 2 };

export const QWEN_2: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // The Qwen2 and Qwen2.5 checkpoints and their distills use model_type qwen2, which always has bias on q_proj, k_proj and v_proj.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen2-7B',
    aliases: ['Qwen/Qwen2-7B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 3584,
      intermediate_size: 18944,
      max_position_embeddings: 131072,
      num_attention_heads: 28,
      num_hidden_layers: 28,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 7_615_616_512,
    source: hf('Qwen/Qwen2-7B'),
  },
  {
    id: 'Qwen/Qwen2.5-0.5B',
    aliases: ['Qwen/Qwen2.5-0.5B-Instruct', 'Qwen/Qwen2.5-Coder-0.5B', 'Qwen/Qwen2.5-Coder-0.5B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 896,
      intermediate_size: 4864,
      max_position_embeddings: 32768,
      num_attention_heads: 14,
      num_hidden_layers: 24,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 494_032_768,
    source: hf('Qwen/Qwen2.5-0.5B'),
  },
  {
    id: 'Qwen/Qwen2.5-1.5B',
    aliases: ['Qwen/Qwen2.5-1.5B-Instruct', 'Qwen/Qwen2.5-Coder-1.5B', 'Qwen/Qwen2.5-Coder-1.5B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 1536,
      intermediate_size: 8960,
      max_position_embeddings: 131072,
      num_attention_heads: 12,
      num_hidden_layers: 28,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 1_543_714_304,
    source: hf('Qwen/Qwen2.5-1.5B'),
  },
  {
    id: 'Qwen/Qwen2.5-3B',
    aliases: ['Qwen/Qwen2.5-3B-Instruct', 'Qwen/Qwen2.5-Coder-3B', 'Qwen/Qwen2.5-Coder-3B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 11008,
      max_position_embeddings: 32768,
      num_attention_heads: 16,
      num_hidden_layers: 36,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 3_085_938_688,
    source: hf('Qwen/Qwen2.5-3B'),
  },
  {
    id: 'Qwen/Qwen2.5-7B',
    aliases: ['Qwen/Qwen2.5-7B-Instruct', 'Qwen/Qwen2.5-Coder-7B', 'Qwen/Qwen2.5-Coder-7B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 3584,
      intermediate_size: 18944,
      max_position_embeddings: 131072,
      num_attention_heads: 28,
      num_hidden_layers: 28,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 7_615_616_512,
    source: hf('Qwen/Qwen2.5-7B'),
  },
  {
    id: 'Qwen/Qwen2.5-14B',
    aliases: ['Qwen/Qwen2.5-14B-Instruct', 'Qwen/Qwen2.5-Coder-14B', 'Qwen/Qwen2.5-Coder-14B-Instruct', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-14B'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 13824,
      max_position_embeddings: 131072,
      num_attention_heads: 40,
      num_hidden_layers: 48,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 14_770_033_664,
    source: hf('Qwen/Qwen2.5-14B'),
  },
  {
    id: 'Qwen/Qwen2.5-32B',
    // QwQ-32B and its preview are Qwen2.5-32B fine-tunes; their config.json differs only in max_position_embeddings.
    aliases: [
      'Qwen/Qwen2.5-32B-Instruct', 'Qwen/Qwen2.5-Coder-32B', 'Qwen/Qwen2.5-Coder-32B-Instruct', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B',
      'Qwen/QwQ-32B', 'Qwen/QwQ-32B-Preview',
    ],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 27648,
      max_position_embeddings: 131072,
      num_attention_heads: 40,
      num_hidden_layers: 64,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 32_763_876_352,
    source: hf('Qwen/Qwen2.5-32B'),
  },
  {
    id: 'Qwen/Qwen2.5-72B',
    aliases: ['Qwen/Qwen2.5-72B-Instruct'],
    config: {
      model_type: 'qwen2',
      architectures: ['Qwen2ForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 29568,
      max_position_embeddings: 131072,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 152064,
    },
    publishedParams: 72_706_203_648,
    source: hf('Qwen/Qwen2.5-72B'),
  },
];

export const QWEN_15_MOE: readonly CatalogModel[] = [
  {
    // Each layer has 60 routed experts of width 1408 plus one gated shared expert of width 5632.
    id: 'Qwen/Qwen1.5-MoE-A2.7B',
    aliases: ['Qwen/Qwen1.5-MoE-A2.7B-Chat'],
    config: {
      model_type: 'qwen2_moe',
      architectures: ['Qwen2MoeForCausalLM'],
      decoder_sparse_step: 1,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 5632,
      max_position_embeddings: 8192,
      moe_intermediate_size: 1408,
      norm_topk_prob: false,
      num_attention_heads: 16,
      num_experts: 60,
      num_experts_per_tok: 4,
      num_hidden_layers: 24,
      num_key_value_heads: 16,
      rms_norm_eps: 1e-6,
      router_aux_loss_coef: 0.001,
      shared_expert_intermediate_size: 5632,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 14_315_784_192,
    source: hf('Qwen/Qwen1.5-MoE-A2.7B'),
  },
];

export const QWEN_2_VL: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // Qwen2.5-VL and Qwen2-VL: the Qwen2.5 / Qwen2 language model of the same size (the fields at the top of config.json)
  // beside a 32-block ViT of width 1280 and a merger into the language model's width (vision_config). Totals by hand in
  // architecture.test.ts: 3,754,622,976 / 8,292,166,656 / 73,406,351,360 and 2,208,985,600 / 8,291,375,616.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen2.5-VL-3B-Instruct',
    config: {
      ...QWEN25_VL, hidden_size: 2048, intermediate_size: 11008, num_attention_heads: 16, num_hidden_layers: 36, num_key_value_heads: 2,
      tie_word_embeddings: true, vocab_size: 151936, vision_config: { ...QWEN25_VL_VISION, out_hidden_size: 2048 },
    },
    source: hf('Qwen/Qwen2.5-VL-3B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2.5-VL-7B-Instruct',
    config: {
      ...QWEN25_VL, hidden_size: 3584, intermediate_size: 18944, num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4,
      tie_word_embeddings: false, vocab_size: 152064, vision_config: { ...QWEN25_VL_VISION, out_hidden_size: 3584 },
    },
    source: hf('Qwen/Qwen2.5-VL-7B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2.5-VL-72B-Instruct',
    config: {
      ...QWEN25_VL, hidden_size: 8192, intermediate_size: 29568, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8,
      tie_word_embeddings: false, vocab_size: 152064, vision_config: { ...QWEN25_VL_VISION, out_hidden_size: 8192 },
    },
    source: hf('Qwen/Qwen2.5-VL-72B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2-VL-2B-Instruct',
    config: {
      ...QWEN2_VL, hidden_size: 1536, intermediate_size: 8960, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 2,
      tie_word_embeddings: true, vocab_size: 151936, vision_config: { ...QWEN2_VL_VISION, hidden_size: 1536 },
    },
    source: hf('Qwen/Qwen2-VL-2B-Instruct'),
  },
  {
    id: 'Qwen/Qwen2-VL-7B-Instruct',
    config: {
      ...QWEN2_VL, hidden_size: 3584, intermediate_size: 18944, num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4,
      tie_word_embeddings: false, vocab_size: 152064, vision_config: { ...QWEN2_VL_VISION, hidden_size: 3584 },
    },
    source: hf('Qwen/Qwen2-VL-7B-Instruct'),
  },
];

export const QWEN_1: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // The Qwen v1 checkpoints use model_type 'qwen' with remote code. Their intermediate_size is twice the width of each of the
  // two up projections (w1, w2), so the per-projection width is intermediate_size / 2. The norm is an
  // RMSNorm even though the key is spelled layer_norm_epsilon; c_attn (fused qkv) has a bias, and no_bias
  // covers every other linear layer.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen-7B-Chat',
    aliases: ['Qwen/Qwen-7B'],
    config: {
      model_type: 'qwen',
      architectures: ['QWenLMHeadModel'],
      hidden_size: 4096,
      intermediate_size: 22016,
      kv_channels: 128,
      layer_norm_epsilon: 1e-6,
      max_position_embeddings: 8192,
      no_bias: true,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      rotary_pct: 1.0,
      seq_length: 8192,
      tie_word_embeddings: false,
      vocab_size: 151936,
    },
    publishedParams: 7_721_324_544,
    source: hf('Qwen/Qwen-7B-Chat'),
  },
  {
    id: 'Qwen/Qwen-1_8B-Chat',
    aliases: ['Qwen/Qwen-1_8B'],
    config: {
      model_type: 'qwen',
      architectures: ['QWenLMHeadModel'],
      hidden_size: 2048,
      intermediate_size: 11008,
      kv_channels: 128,
      layer_norm_epsilon: 1e-6,
      max_position_embeddings: 8192,
      no_bias: true,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      rotary_pct: 1.0,
      seq_length: 8192,
      tie_word_embeddings: false,
      vocab_size: 151936,
    },
    publishedParams: 1_836_828_672,
    source: hf('Qwen/Qwen-1_8B-Chat'),
  },
];

export const QWEN_2_MATH_1M_V1: readonly CatalogModel[] = [
  {
    id: 'Qwen/Qwen2-0.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 896, intermediate_size: 4864,
      max_position_embeddings: 32768, num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    publishedParams: 494_032_768,
    source: checked('Qwen/Qwen2-0.5B', 'mlc'),
  },
  {
    id: 'Qwen/Qwen2-0.5B-Instruct',
    baseModel: 'Qwen/Qwen2-0.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 896, intermediate_size: 4864,
      max_position_embeddings: 32768, num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: checked('Qwen/Qwen2-0.5B-Instruct', 'mlc'),
  },
  {
    id: 'Qwen/Qwen2-1.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 1536, intermediate_size: 8960,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 2, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    publishedParams: 1_543_714_304,
    source: checked('Qwen/Qwen2-1.5B', 'mlc'),
  },
  {
    id: 'Qwen/Qwen2-1.5B-Instruct',
    baseModel: 'Qwen/Qwen2-1.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 1536, intermediate_size: 8960,
      max_position_embeddings: 32768, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 2, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: checked('Qwen/Qwen2-1.5B-Instruct', 'mlc'),
  },
  {
    id: 'Qwen/Qwen2-72B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 29568,
      max_position_embeddings: 131072, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: hf('Qwen/Qwen2-72B'),
  },
  {
    id: 'Qwen/Qwen2-72B-Instruct',
    baseModel: 'Qwen/Qwen2-72B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 29568,
      max_position_embeddings: 131072, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: fineTune('Qwen/Qwen2-72B-Instruct', 'Qwen/Qwen2-72B'),
  },
  {
    // Qwen2-57B-A14B: 64 routed experts (top 8) of 2,560 and a gated shared expert of 20,480 in every layer.
    id: 'Qwen/Qwen2-57B-A14B',
    aliases: ['Qwen/Qwen2-57B-A14B-Instruct'],
    config: {
      model_type: 'qwen2_moe', architectures: ['Qwen2MoeForCausalLM'], hidden_act: 'silu', hidden_size: 3584, intermediate_size: 18944,
      max_position_embeddings: 131072, moe_intermediate_size: 2560, num_attention_heads: 28, num_experts: 64, num_experts_per_tok: 8,
      num_hidden_layers: 28, num_key_value_heads: 4, rms_norm_eps: 1e-06, rope_theta: 1000000, shared_expert_intermediate_size: 20480,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: hf('Qwen/Qwen2-57B-A14B'),
  },
  {
    // Qwen2.5-Math: the Qwen2.5 shapes with 4,096 positions and rope_theta 1e4.
    id: 'Qwen/Qwen2.5-Math-1.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 1536, intermediate_size: 8960,
      max_position_embeddings: 4096, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 2, rms_norm_eps: 1e-06, rope_theta: 10000,
      tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: checked('Qwen/Qwen2.5-Math-1.5B', 'litgpt'),
  },
  {
    id: 'Qwen/Qwen2.5-Math-1.5B-Instruct',
    baseModel: 'Qwen/Qwen2.5-Math-1.5B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 1536, intermediate_size: 8960,
      max_position_embeddings: 4096, num_attention_heads: 12, num_hidden_layers: 28, num_key_value_heads: 2, rms_norm_eps: 1e-06, rope_theta: 10000,
      tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: checked('Qwen/Qwen2.5-Math-1.5B-Instruct', 'litgpt'),
  },
  {
    id: 'Qwen/Qwen2.5-Math-7B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 3584, intermediate_size: 18944,
      max_position_embeddings: 4096, num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4, rms_norm_eps: 1e-06, rope_theta: 10000,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: checked('Qwen/Qwen2.5-Math-7B', 'litgpt'),
  },
  {
    id: 'Qwen/Qwen2.5-Math-7B-Instruct',
    baseModel: 'Qwen/Qwen2.5-Math-7B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 3584, intermediate_size: 18944,
      max_position_embeddings: 4096, num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4, rms_norm_eps: 1e-06, rope_theta: 10000,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: checked('Qwen/Qwen2.5-Math-7B-Instruct', 'litgpt'),
  },
  {
    id: 'Qwen/Qwen2.5-Math-72B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 29568,
      max_position_embeddings: 4096, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-06, rope_theta: 10000,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: checked('Qwen/Qwen2.5-Math-72B', 'litgpt'),
  },
  {
    id: 'Qwen/Qwen2.5-Math-72B-Instruct',
    baseModel: 'Qwen/Qwen2.5-Math-72B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 29568,
      max_position_embeddings: 4096, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-06, rope_theta: 10000,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: checked('Qwen/Qwen2.5-Math-72B-Instruct', 'litgpt'),
  },
  {
    // Qwen2.5-1M: the Qwen2.5 shapes with 1,010,000 positions.
    id: 'Qwen/Qwen2.5-7B-Instruct-1M',
    baseModel: 'Qwen/Qwen2.5-7B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 3584, intermediate_size: 18944,
      max_position_embeddings: 1010000, num_attention_heads: 28, num_hidden_layers: 28, num_key_value_heads: 4, rms_norm_eps: 1e-06,
      rope_theta: 10000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: checked('Qwen/Qwen2.5-7B-Instruct-1M', 'litgpt'),
  },
  {
    id: 'Qwen/Qwen2.5-14B-Instruct-1M',
    baseModel: 'Qwen/Qwen2.5-14B',
    config: {
      model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 1010000, num_attention_heads: 40, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 10000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 152064,
    },
    source: checked('Qwen/Qwen2.5-14B-Instruct-1M', 'litgpt'),
  },
  {
    id: 'Qwen/Qwen-14B',
    aliases: ['Qwen/Qwen-14B-Chat'],
    config: {
      model_type: 'qwen', architectures: ['QWenLMHeadModel'], hidden_size: 5120, intermediate_size: 27392, kv_channels: 128,
      max_position_embeddings: 8192, no_bias: true, num_attention_heads: 40, num_hidden_layers: 40, seq_length: 2048, tie_word_embeddings: false,
      vocab_size: 152064,
    },
    source: hf('Qwen/Qwen-14B'),
  },
  {
    id: 'Qwen/Qwen-72B',
    aliases: ['Qwen/Qwen-72B-Chat'],
    config: {
      model_type: 'qwen', architectures: ['QWenLMHeadModel'], hidden_size: 8192, intermediate_size: 49152, kv_channels: 128,
      max_position_embeddings: 32768, no_bias: true, num_attention_heads: 64, num_hidden_layers: 80, seq_length: 32768, tie_word_embeddings: false,
      vocab_size: 152064,
    },
    source: hf('Qwen/Qwen-72B'),
  },
];
