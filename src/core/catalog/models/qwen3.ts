// Built-in catalog: Qwen3 (Alibaba): the dense and MoE models, Qwen3-VL, Qwen3.5 and Qwen3-Next. Pure data.

import { fineTune, hf, type CatalogModel } from './types';

/** Qwen3-VL config.json: the language model under text_config, the vision tower under vision_config. */
const QWEN3_VL = { model_type: 'qwen3_vl', architectures: ['Qwen3VLForConditionalGeneration'] };

const QWEN3_VL_TEXT = {
  model_type: 'qwen3_vl_text', head_dim: 128, hidden_act: 'silu', max_position_embeddings: 262144, rms_norm_eps: 1e-6, vocab_size: 151936,
  attention_bias: false, dtype: 'bfloat16',
};

const QWEN3_VL_VISION = {
  hidden_act: 'gelu_pytorch_tanh', in_channels: 3, num_heads: 16, num_position_embeddings: 2304, patch_size: 16, spatial_merge_size: 2,
  temporal_patch_size: 2,
};

/**
 * Qwen3.5 config.json (image-text, transformers 5): the language model under text_config (Gated DeltaNet layers with
 * 16 key heads and value heads of 128, a 4-tap conv, one gated full-attention layer of head_dim 256 in every four),
 * Qwen3-VL's vision tower without deepstack mergers under vision_config. The checkpoints also store a multi-token
 * prediction head (mtp.*), which transformers does not load (_keys_to_ignore_on_load_unexpected = [r"^mtp.*"]).
 */
const QWEN35 = { model_type: 'qwen3_5', architectures: ['Qwen3_5ForConditionalGeneration'] };

const QWEN35_TEXT = {
  model_type: 'qwen3_5_text', attention_bias: false, full_attention_interval: 4, head_dim: 256, hidden_act: 'silu', linear_conv_kernel_dim: 4,
  linear_key_head_dim: 128, linear_num_key_heads: 16, linear_value_head_dim: 128, max_position_embeddings: 262144, mtp_num_hidden_layers: 1,
  partial_rotary_factor: 0.25, rms_norm_eps: 1e-6, vocab_size: 248320, dtype: 'bfloat16',
};

const QWEN35_VISION = {
  model_type: 'qwen3_5', deepstack_visual_indexes: [], hidden_act: 'gelu_pytorch_tanh', in_channels: 3, num_position_embeddings: 2304,
  patch_size: 16, spatial_merge_size: 2, temporal_patch_size: 2,
};

const QWEN35_VISION_LARGE = { ...QWEN35_VISION, depth: 27, hidden_size: 1152, intermediate_size: 4304, num_heads: 16 };

export const QWEN_3: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // The Qwen3 checkpoints set head_dim 128 explicitly, add q_norm and k_norm per layer and have no attention bias.
  // ---------------------------------------------------------------------------------------------
  {
    // The safetensors totals of the small tied Qwen3 models count a stored lm_head copy, so publishedParams is left out for 0.6B, 1.7B and 4B.
    id: 'Qwen/Qwen3-0.6B',
    aliases: ['Qwen/Qwen3-0.6B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 1024,
      intermediate_size: 3072,
      max_position_embeddings: 40960,
      num_attention_heads: 16,
      num_hidden_layers: 28,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    source: hf('Qwen/Qwen3-0.6B'),
  },
  {
    id: 'Qwen/Qwen3-1.7B',
    aliases: ['Qwen/Qwen3-1.7B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 6144,
      max_position_embeddings: 40960,
      num_attention_heads: 16,
      num_hidden_layers: 28,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    source: hf('Qwen/Qwen3-1.7B'),
  },
  {
    // The July 2025 refreshes (-2507) keep the architecture and parameter count; only the context window grows
    // (max_position_embeddings 262144, rope_theta 5e6), which does not change memory at a given sequence length.
    id: 'Qwen/Qwen3-4B',
    aliases: ['Qwen/Qwen3-4B-Base', 'Qwen/Qwen3-4B-Instruct-2507', 'Qwen/Qwen3-4B-Thinking-2507'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 2560,
      intermediate_size: 9728,
      max_position_embeddings: 40960,
      num_attention_heads: 32,
      num_hidden_layers: 36,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    source: hf('Qwen/Qwen3-4B'),
  },
  {
    id: 'Qwen/Qwen3-8B',
    aliases: ['Qwen/Qwen3-8B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 12288,
      max_position_embeddings: 40960,
      num_attention_heads: 32,
      num_hidden_layers: 36,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 8_190_735_360,
    source: hf('Qwen/Qwen3-8B'),
  },
  {
    id: 'Qwen/Qwen3-14B',
    aliases: ['Qwen/Qwen3-14B-Base'],
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 17408,
      max_position_embeddings: 40960,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 14_768_307_200,
    source: hf('Qwen/Qwen3-14B'),
  },
  {
    // Qwen3-32B has 64 query heads of width 128, so the attention width (8192) exceeds hidden_size.
    id: 'Qwen/Qwen3-32B',
    config: {
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 25600,
      max_position_embeddings: 40960,
      num_attention_heads: 64,
      num_hidden_layers: 64,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 32_762_123_264,
    source: hf('Qwen/Qwen3-32B'),
  },
  {
    // Every layer is sparse (decoder_sparse_step 1, no mlp_only_layers); intermediate_size is unused by the MoE layers.
    // The -2507 refreshes keep the architecture (only the context window grows, as for Qwen3-4B).
    id: 'Qwen/Qwen3-30B-A3B',
    aliases: ['Qwen/Qwen3-30B-A3B-Base', 'Qwen/Qwen3-30B-A3B-Instruct-2507', 'Qwen/Qwen3-30B-A3B-Thinking-2507', 'Qwen/Qwen3-Coder-30B-A3B-Instruct'],
    config: {
      model_type: 'qwen3_moe',
      architectures: ['Qwen3MoeForCausalLM'],
      attention_bias: false,
      decoder_sparse_step: 1,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 6144,
      max_position_embeddings: 40960,
      mlp_only_layers: [],
      moe_intermediate_size: 768,
      norm_topk_prob: true,
      num_attention_heads: 32,
      num_experts: 128,
      num_experts_per_tok: 8,
      num_hidden_layers: 48,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      router_aux_loss_coef: 0.001,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 30_532_122_624,
    source: hf('Qwen/Qwen3-30B-A3B'),
  },
];

export const QWEN_3_VL_NEXT: readonly CatalogModel[] = [
  // Qwen3-VL (dense): the Qwen3 language model of the same size under text_config, a SigLIP-2-sized ViT with a learned
  // position table, its merger and three deepstack mergers (architecture.test.ts: 4,437,815,808 and 8,767,123,696).
  {
    id: 'Qwen/Qwen3-VL-4B-Instruct',
    aliases: ['Qwen/Qwen3-VL-4B-Thinking'],
    config: {
      ...QWEN3_VL, tie_word_embeddings: true,
      text_config: {
        ...QWEN3_VL_TEXT, hidden_size: 2560, intermediate_size: 9728, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8,
        tie_word_embeddings: true,
      },
      vision_config: {
        ...QWEN3_VL_VISION, depth: 24, hidden_size: 1024, intermediate_size: 4096, out_hidden_size: 2560, deepstack_visual_indexes: [5, 11, 17],
      },
    },
    source: hf('Qwen/Qwen3-VL-4B-Instruct'),
  },
  {
    id: 'Qwen/Qwen3-VL-8B-Instruct',
    aliases: ['Qwen/Qwen3-VL-8B-Thinking'],
    config: {
      ...QWEN3_VL, tie_word_embeddings: false,
      text_config: {
        ...QWEN3_VL_TEXT, hidden_size: 4096, intermediate_size: 12288, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8,
        tie_word_embeddings: false,
      },
      vision_config: {
        ...QWEN3_VL_VISION, depth: 27, hidden_size: 1152, intermediate_size: 4304, out_hidden_size: 4096, deepstack_visual_indexes: [8, 16, 24],
      },
    },
    source: hf('Qwen/Qwen3-VL-8B-Instruct'),
  },
  {
    // Qwen3-30B-A3B's language model (30,532,122,624) under text_config, its experts 3-D parameters, and Qwen3-VL's
    // 27-block tower of 1152 with three deepstack mergers into 2048 (538,631,408): 31,070,754,032 by hand in
    // architecture.test.ts, the model page's 31.1B.
    id: 'Qwen/Qwen3-VL-30B-A3B-Instruct',
    aliases: ['Qwen/Qwen3-VL-30B-A3B-Thinking'],
    config: {
      model_type: 'qwen3_vl_moe', architectures: ['Qwen3VLMoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN3_VL_TEXT, model_type: 'qwen3_vl_moe_text', decoder_sparse_step: 1, hidden_size: 2048, intermediate_size: 6144, mlp_only_layers: [],
        moe_intermediate_size: 768, norm_topk_prob: true, num_attention_heads: 32, num_experts: 128, num_experts_per_tok: 8, num_hidden_layers: 48,
        num_key_value_heads: 4, rope_theta: 5000000,
      },
      vision_config: {
        ...QWEN3_VL_VISION, model_type: 'qwen3_vl_moe', depth: 27, hidden_size: 1152, intermediate_size: 4304, out_hidden_size: 2048,
        deepstack_visual_indexes: [8, 16, 24],
      },
    },
    source: hf('Qwen/Qwen3-VL-30B-A3B-Instruct'),
  },

  // ---------------------------------------------------------------------------------------------
  // Qwen3.5 and Qwen3-Next: Gated DeltaNet linear attention in three layers of four, gated full attention in the fourth.
  // Counts are what transformers loads (language model + vision tower, no MTP head): the Hub totals less the MTP head,
  // worked by hand in architecture.test.ts. A checkpoint re-saved by transformers has exactly that count (Qwen3.5-9B
  // fine-tunes 9,409,813,744 and a Qwen3.5-27B fine-tune 27,356,728,560 on the Hub; Qwen3-Coder-Next, which stores no MTP
  // head, 79,674,391,296).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'Qwen/Qwen3.5-0.8B',
    aliases: ['Qwen/Qwen3.5-0.8B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: true,
      text_config: {
        ...QWEN35_TEXT, hidden_size: 1024, intermediate_size: 3584, linear_num_value_heads: 16, num_attention_heads: 8, num_hidden_layers: 24,
        num_key_value_heads: 2, tie_word_embeddings: true,
      },
      vision_config: { ...QWEN35_VISION, depth: 12, hidden_size: 768, intermediate_size: 3072, num_heads: 12, out_hidden_size: 1024 },
    },
    source: hf('Qwen/Qwen3.5-0.8B'),
  },
  {
    id: 'Qwen/Qwen3.5-2B',
    aliases: ['Qwen/Qwen3.5-2B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: true,
      text_config: {
        ...QWEN35_TEXT, hidden_size: 2048, intermediate_size: 6144, linear_num_value_heads: 16, num_attention_heads: 8, num_hidden_layers: 24,
        num_key_value_heads: 2, tie_word_embeddings: true,
      },
      vision_config: { ...QWEN35_VISION, depth: 24, hidden_size: 1024, intermediate_size: 4096, num_heads: 16, out_hidden_size: 2048 },
    },
    source: hf('Qwen/Qwen3.5-2B'),
  },
  {
    id: 'Qwen/Qwen3.5-4B',
    aliases: ['Qwen/Qwen3.5-4B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: true,
      text_config: {
        ...QWEN35_TEXT, hidden_size: 2560, intermediate_size: 9216, linear_num_value_heads: 32, num_attention_heads: 16, num_hidden_layers: 32,
        num_key_value_heads: 4, tie_word_embeddings: true,
      },
      vision_config: { ...QWEN35_VISION, depth: 24, hidden_size: 1024, intermediate_size: 4096, num_heads: 16, out_hidden_size: 2560 },
    },
    source: hf('Qwen/Qwen3.5-4B'),
  },
  {
    id: 'Qwen/Qwen3.5-9B',
    aliases: ['Qwen/Qwen3.5-9B-Base'],
    config: {
      ...QWEN35, tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, hidden_size: 4096, intermediate_size: 12288, linear_num_value_heads: 32, num_attention_heads: 16, num_hidden_layers: 32,
        num_key_value_heads: 4, tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, out_hidden_size: 4096 },
    },
    publishedParams: 9_409_813_744,
    source: hf('Qwen/Qwen3.5-9B'),
  },
  {
    id: 'Qwen/Qwen3.5-27B',
    aliases: ['Qwen/Qwen3.6-27B'],
    config: {
      ...QWEN35, tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, hidden_size: 5120, intermediate_size: 17408, linear_num_value_heads: 48, num_attention_heads: 24, num_hidden_layers: 64,
        num_key_value_heads: 4, tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, out_hidden_size: 5120 },
    },
    publishedParams: 27_356_728_560,
    source: hf('Qwen/Qwen3.5-27B'),
  },
  {
    id: 'Qwen/Qwen3.5-35B-A3B',
    aliases: ['Qwen/Qwen3.6-35B-A3B', 'Qwen/Qwen3.5-35B-A3B-Base'],
    config: {
      model_type: 'qwen3_5_moe', architectures: ['Qwen3_5MoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, model_type: 'qwen3_5_moe_text', hidden_size: 2048, linear_num_value_heads: 32, moe_intermediate_size: 512, num_attention_heads: 16,
        num_experts: 256, num_experts_per_tok: 8, num_hidden_layers: 40, num_key_value_heads: 2, shared_expert_intermediate_size: 512,
        tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, model_type: 'qwen3_5_moe', out_hidden_size: 2048 },
    },
    source: hf('Qwen/Qwen3.5-35B-A3B'),
  },
  {
    id: 'Qwen/Qwen3.5-122B-A10B',
    config: {
      model_type: 'qwen3_5_moe', architectures: ['Qwen3_5MoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, model_type: 'qwen3_5_moe_text', hidden_size: 3072, linear_num_value_heads: 64, moe_intermediate_size: 1024, num_attention_heads: 32,
        num_experts: 256, num_experts_per_tok: 8, num_hidden_layers: 48, num_key_value_heads: 2, shared_expert_intermediate_size: 1024,
        tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, model_type: 'qwen3_5_moe', out_hidden_size: 3072 },
    },
    source: hf('Qwen/Qwen3.5-122B-A10B'),
  },
  {
    id: 'Qwen/Qwen3.5-397B-A17B',
    config: {
      model_type: 'qwen3_5_moe', architectures: ['Qwen3_5MoeForConditionalGeneration'], tie_word_embeddings: false,
      text_config: {
        ...QWEN35_TEXT, model_type: 'qwen3_5_moe_text', hidden_size: 4096, linear_num_value_heads: 64, moe_intermediate_size: 1024, num_attention_heads: 32,
        num_experts: 512, num_experts_per_tok: 10, num_hidden_layers: 60, num_key_value_heads: 2, shared_expert_intermediate_size: 1024,
        tie_word_embeddings: false,
      },
      vision_config: { ...QWEN35_VISION_LARGE, model_type: 'qwen3_5_moe', out_hidden_size: 4096 },
    },
    source: hf('Qwen/Qwen3.5-397B-A17B'),
  },
  {
    // 48 layers of 2048: Gated DeltaNet (16 key heads, 32 value heads of 128) three times in four, gated attention of 16
    // heads x 256 (2 kv) in the fourth; 512 experts of 512 (top-10), a shared expert of 512 and its gate in every layer.
    id: 'Qwen/Qwen3-Next-80B-A3B-Instruct',
    aliases: ['Qwen/Qwen3-Next-80B-A3B-Thinking', 'Qwen/Qwen3-Coder-Next'],
    config: {
      model_type: 'qwen3_next', architectures: ['Qwen3NextForCausalLM'], decoder_sparse_step: 1, full_attention_interval: 4, head_dim: 256, hidden_act: 'silu',
      hidden_size: 2048, intermediate_size: 5120, linear_conv_kernel_dim: 4, linear_key_head_dim: 128, linear_num_key_heads: 16, linear_num_value_heads: 32,
      linear_value_head_dim: 128, max_position_embeddings: 262144, mlp_only_layers: [], moe_intermediate_size: 512, norm_topk_prob: true,
      num_attention_heads: 16,
      num_experts: 512, num_experts_per_tok: 10, num_hidden_layers: 48, num_key_value_heads: 2, partial_rotary_factor: 0.25, rms_norm_eps: 1e-6,
      rope_theta: 10000000, shared_expert_intermediate_size: 512, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    publishedParams: 79_674_391_296,
    source: hf('Qwen/Qwen3-Next-80B-A3B-Instruct'),
  },
];

export const QWEN_3_235B: readonly CatalogModel[] = [
  {
    // Qwen3-235B-A22B: 94 MoE layers of 128 experts (top 8) of 1536, 64 heads of 128 with 4 kv heads.
    id: 'Qwen/Qwen3-235B-A22B',
    aliases: ['Qwen/Qwen3-235B-A22B-Instruct-2507', 'Qwen/Qwen3-235B-A22B-Thinking-2507'],
    config: {
      model_type: 'qwen3_moe', architectures: ['Qwen3MoeForCausalLM'], attention_bias: false, decoder_sparse_step: 1, head_dim: 128, hidden_act: 'silu',
      hidden_size: 4096, intermediate_size: 12288, max_position_embeddings: 40960, mlp_only_layers: [], moe_intermediate_size: 1536, norm_topk_prob: true,
      num_attention_heads: 64, num_experts: 128, num_experts_per_tok: 8, num_hidden_layers: 94, num_key_value_heads: 4, rms_norm_eps: 1e-6,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    publishedParams: 235_093_634_560,
    source: hf('Qwen/Qwen3-235B-A22B'),
  },
];

export const QWEN_3_CODER_EMBEDDING: readonly CatalogModel[] = [
  {
    // Qwen3-Coder 480B-A35B: 160 experts of 2,560, top 8, in all 62 layers.
    id: 'Qwen/Qwen3-Coder-480B-A35B-Instruct',
    config: {
      model_type: 'qwen3_moe', architectures: ['Qwen3MoeForCausalLM'], attention_bias: false, decoder_sparse_step: 1, head_dim: 128,
      hidden_act: 'silu', hidden_size: 6144, intermediate_size: 8192, max_position_embeddings: 262144, mlp_only_layers: [],
      moe_intermediate_size: 2560, norm_topk_prob: true, num_attention_heads: 96, num_experts: 160, num_experts_per_tok: 8, num_hidden_layers: 62,
      num_key_value_heads: 8, rms_norm_eps: 1e-06, rope_theta: 10000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 151936,
    },
    source: hf('Qwen/Qwen3-Coder-480B-A35B-Instruct'),
  },
  {
    // Qwen3 Embedding and Reranker: Qwen3 fine-tunes of the same size.
    id: 'Qwen/Qwen3-Embedding-0.6B',
    baseModel: 'Qwen/Qwen3-0.6B',
    config: {
      model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 1024,
      intermediate_size: 3072, max_position_embeddings: 40960, num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 8,
      rms_norm_eps: 1e-06, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen3-Embedding-0.6B', 'Qwen/Qwen3-0.6B'),
  },
  {
    id: 'Qwen/Qwen3-Reranker-0.6B',
    baseModel: 'Qwen/Qwen3-0.6B',
    config: {
      model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 1024,
      intermediate_size: 3072, max_position_embeddings: 40960, num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 8,
      rms_norm_eps: 1e-06, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen3-Reranker-0.6B', 'Qwen/Qwen3-0.6B'),
  },
  {
    id: 'Qwen/Qwen3-Embedding-4B',
    baseModel: 'Qwen/Qwen3-4B',
    config: {
      model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 2560,
      intermediate_size: 9728, max_position_embeddings: 40960, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8,
      rms_norm_eps: 1e-06, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen3-Embedding-4B', 'Qwen/Qwen3-4B'),
  },
  {
    id: 'Qwen/Qwen3-Reranker-4B',
    baseModel: 'Qwen/Qwen3-4B',
    config: {
      model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 2560,
      intermediate_size: 9728, max_position_embeddings: 40960, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8,
      rms_norm_eps: 1e-06, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen3-Reranker-4B', 'Qwen/Qwen3-4B'),
  },
  {
    id: 'Qwen/Qwen3-Embedding-8B',
    baseModel: 'Qwen/Qwen3-8B',
    config: {
      model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 12288, max_position_embeddings: 40960, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8,
      rms_norm_eps: 1e-06, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen3-Embedding-8B', 'Qwen/Qwen3-8B'),
  },
  {
    id: 'Qwen/Qwen3-Reranker-8B',
    baseModel: 'Qwen/Qwen3-8B',
    config: {
      model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], attention_bias: false, head_dim: 128, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 12288, max_position_embeddings: 40960, num_attention_heads: 32, num_hidden_layers: 36, num_key_value_heads: 8,
      rms_norm_eps: 1e-06, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
    },
    source: fineTune('Qwen/Qwen3-Reranker-8B', 'Qwen/Qwen3-8B'),
  },
];
