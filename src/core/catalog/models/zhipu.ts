// Built-in catalog: Zhipu AI (THUDM, zai-org): GLM-4-0414 and GLM-4.5 / 4.6. Pure data.

import { checked, hf, type CatalogModel } from './types';

/** Fields the GLM-4.5 family's config.json files share (zai-org/GLM-4.5, GLM-4.5-Air, GLM-4.6). */
const GLM45_COMMON = {
  model_type: 'glm4_moe',
  architectures: ['Glm4MoeForCausalLM'],
  attention_bias: true,
  head_dim: 128,
  hidden_act: 'silu',
  n_group: 1,
  n_shared_experts: 1,
  norm_topk_prob: true,
  num_attention_heads: 96,
  num_experts_per_tok: 8,
  num_key_value_heads: 8,
  num_nextn_predict_layers: 1,
  partial_rotary_factor: 0.5,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: false,
  topk_group: 1,
  torch_dtype: 'bfloat16',
  vocab_size: 151552,
};

export const GLM_4: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // GLM-4-0414 (glm4): 40 layers of 32 heads x 128 (2 kv heads) over 4096, q/k/v biases, a fused gate_up_proj of
  // 2 x 13696, four RMSNorms per layer. Count by hand in architecture.test.ts: 9,400,279,040.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'THUDM/GLM-4-9B-0414',
    aliases: ['zai-org/GLM-4-9B-0414', 'THUDM/GLM-Z1-9B-0414', 'zai-org/GLM-Z1-9B-0414'],
    config: {
      model_type: 'glm4',
      architectures: ['Glm4ForCausalLM'],
      attention_bias: true,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 13696,
      max_position_embeddings: 32768,
      num_attention_heads: 32,
      num_hidden_layers: 40,
      num_key_value_heads: 2,
      partial_rotary_factor: 0.5,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 151552,
    },
    source: hf('THUDM/GLM-4-9B-0414'),
  },
];

export const GLM_45: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // GLM-4.5 family (modeling_glm4_moe.py): 96 query heads of 128 and 8 key/value heads (wider than hidden / heads),
  // q/k/v biases, half of each head rotated, a dense first layer (three for GLM-4.5), then 128 (160) routed experts
  // top-8 and one shared expert. Both uploads also store one multi-token-prediction layer (layers.46 / layers.92, with
  // its own embedding and head copies) that transformers skips when loading; the Hub's 110B / 358B count includes it,
  // the model cards' 106B / 355B and this catalog's count do not.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'zai-org/GLM-4.5-Air',
    aliases: ['zai-org/GLM-4.5-Air-Base'],
    config: {
      ...GLM45_COMMON,
      hidden_size: 4096,
      intermediate_size: 10944,
      moe_intermediate_size: 1408,
      n_routed_experts: 128,
      first_k_dense_replace: 1,
      num_hidden_layers: 46,
      use_qk_norm: false,
      max_position_embeddings: 131072,
    },
    source: hf('zai-org/GLM-4.5-Air'),
  },
  {
    id: 'zai-org/GLM-4.5',
    aliases: ['zai-org/GLM-4.5-Base'],
    config: {
      ...GLM45_COMMON,
      hidden_size: 5120,
      intermediate_size: 12288,
      moe_intermediate_size: 1536,
      n_routed_experts: 160,
      first_k_dense_replace: 3,
      num_hidden_layers: 92,
      use_qk_norm: true,
      max_position_embeddings: 131072,
    },
    source: hf('zai-org/GLM-4.5'),
  },
  {
    // GLM-4.5's architecture with a 202,752-token context window.
    id: 'zai-org/GLM-4.6',
    config: {
      ...GLM45_COMMON,
      hidden_size: 5120,
      intermediate_size: 12288,
      moe_intermediate_size: 1536,
      n_routed_experts: 160,
      first_k_dense_replace: 3,
      num_hidden_layers: 92,
      use_qk_norm: true,
      max_position_embeddings: 202752,
    },
    source: hf('zai-org/GLM-4.6'),
  },
];

export const CHATGLM: readonly CatalogModel[] = [
  {
    // ChatGLM2 / ChatGLM3 6B (remote code): 28 layers, 2 kv groups, SwiGLU 13,696; 6,243,584,000 parameters in
    // calflops README.
    id: 'THUDM/chatglm2-6b',
    aliases: ['zai-org/chatglm2-6b'],
    config: {
      model_type: 'chatglm',
      architectures: ['ChatGLMModel'],
      add_bias_linear: false,
      add_qkv_bias: true,
      ffn_hidden_size: 13696,
      hidden_size: 4096,
      kv_channels: 128,
      multi_query_attention: true,
      multi_query_group_num: 2,
      num_attention_heads: 32,
      num_layers: 28,
      padded_vocab_size: 65024,
      rmsnorm: true,
      seq_length: 32768,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
    },
    publishedParams: 6_243_584_000,
    source: hf('THUDM/chatglm2-6b'),
  },
  {
    id: 'THUDM/chatglm3-6b',
    aliases: ['zai-org/chatglm3-6b', 'THUDM/chatglm3-6b-base'],
    config: {
      model_type: 'chatglm',
      architectures: ['ChatGLMModel'],
      add_bias_linear: false,
      add_qkv_bias: true,
      ffn_hidden_size: 13696,
      hidden_size: 4096,
      kv_channels: 128,
      multi_query_attention: true,
      multi_query_group_num: 2,
      num_attention_heads: 32,
      num_layers: 28,
      padded_vocab_size: 65024,
      rmsnorm: true,
      seq_length: 8192,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
    },
    publishedParams: 6_243_584_000,
    source: checked('THUDM/chatglm3-6b', 'mlc'),
  },
  {
    // GLM-4-9B-Chat (remote code): the ChatGLM3 layers, 40 deep, over a 151,552-token vocabulary.
    id: 'THUDM/glm-4-9b-chat',
    aliases: ['zai-org/glm-4-9b-chat', 'THUDM/glm-4-9b'],
    config: {
      model_type: 'chatglm',
      architectures: ['ChatGLMModel'],
      add_bias_linear: false,
      add_qkv_bias: true,
      ffn_hidden_size: 13696,
      hidden_size: 4096,
      kv_channels: 128,
      multi_query_attention: true,
      multi_query_group_num: 2,
      num_attention_heads: 32,
      num_layers: 40,
      padded_vocab_size: 151552,
      rmsnorm: true,
      seq_length: 131072,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
    },
    source: hf('THUDM/glm-4-9b-chat'),
  },
  {
    // ChatGLM-6B, the first generation (remote code): 28 GLM blocks of 32 heads over 4096, a 16,384-wide GELU MLP, biases
    // everywhere, a 130,528-token vocabulary tied to the head (no tie_word_embeddings: PretrainedConfig's default).
    // Fields as transformers 4.27 prints ChatGLMConfig for this checkpoint in public fine-tuning logs.
    id: 'THUDM/chatglm-6b',
    aliases: ['zai-org/chatglm-6b'],
    config: {
      model_type: 'chatglm',
      architectures: ['ChatGLMModel'],
      hidden_size: 4096,
      inner_hidden_size: 16384,
      layernorm_epsilon: 1e-5,
      max_sequence_length: 2048,
      num_attention_heads: 32,
      num_layers: 28,
      position_encoding_2d: true,
      pre_seq_len: null,
      prefix_projection: false,
      quantization_bit: 0,
      torch_dtype: 'float16',
      vocab_size: 130528,
    },
    source: hf('THUDM/chatglm-6b'),
  },
];
