// Built-in catalog: OpenAI: gpt-oss and GPT-2. Pure data.

import { hf, type CatalogModel } from './types';

/** openai/gpt-oss-20b config.json (bf16 architecture; the published checkpoint stores the experts in MXFP4). */
const GPT_OSS_20B = {
  model_type: 'gpt_oss',
  architectures: ['GptOssForCausalLM'],
  attention_bias: true,
  attention_dropout: 0.0,
  experts_per_token: 4,
  head_dim: 64,
  hidden_act: 'silu',
  hidden_size: 2880,
  intermediate_size: 2880,
  max_position_embeddings: 131072,
  num_attention_heads: 64,
  num_experts_per_tok: 4,
  num_hidden_layers: 24,
  num_key_value_heads: 8,
  num_local_experts: 32,
  output_router_logits: false,
  rms_norm_eps: 1e-5,
  rope_theta: 150000,
  sliding_window: 128,
  swiglu_limit: 7.0,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 201088,
};

export const GPT_OSS: readonly CatalogModel[] = [
  {
    // 24 layers of 32 experts (top-4) with bias, attention with bias and one learned sink logit per head, alternating
    // sliding (128) and full attention. The checkpoint stores the experts in MXFP4; training dequantizes them to bf16
    // (transformers Mxfp4Config(dequantize=True)), so the catalog keeps the bf16 architecture only.
    // 20,914,757,184 parameters: gpt-oss model card (arXiv 2508.10925, Table 1: 20.91B total).
    id: 'openai/gpt-oss-20b',
    aliases: ['unsloth/gpt-oss-20b-BF16', 'unsloth/gpt-oss-20b'],
    config: GPT_OSS_20B,
    publishedParams: 20_914_757_184,
    source: hf('openai/gpt-oss-20b'),
  },
  {
    // As gpt-oss-20b with 36 layers of 128 experts. 116,829,156,672 parameters: gpt-oss model card (Table 1: 116.83B).
    id: 'openai/gpt-oss-120b',
    aliases: ['unsloth/gpt-oss-120b-BF16', 'unsloth/gpt-oss-120b', 'axolotl-ai-co/gpt-oss-120b-dequantized'],
    config: { ...GPT_OSS_20B, num_hidden_layers: 36, num_local_experts: 128 },
    publishedParams: 116_829_156_672,
    source: hf('openai/gpt-oss-120b'),
  },
];

export const GPT_2: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // GPT-2 uses Conv1D layers with biases and learned positions, ties lm_head to wte, and an absent n_inner means 4 * n_embd.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'openai-community/gpt2',
    aliases: ['gpt2'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 768,
      n_head: 12,
      n_layer: 12,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 124_439_808,
    source: hf('openai-community/gpt2'),
  },
  {
    id: 'openai-community/gpt2-medium',
    aliases: ['gpt2-medium'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 1024,
      n_head: 16,
      n_layer: 24,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 354_823_168,
    source: hf('openai-community/gpt2-medium'),
  },
  {
    id: 'openai-community/gpt2-large',
    aliases: ['gpt2-large'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 1280,
      n_head: 20,
      n_layer: 36,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 774_030_080,
    source: hf('openai-community/gpt2-large'),
  },
  {
    id: 'openai-community/gpt2-xl',
    aliases: ['gpt2-xl'],
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      n_ctx: 1024,
      n_embd: 1600,
      n_head: 25,
      n_layer: 48,
      n_positions: 1024,
      vocab_size: 50257,
    },
    publishedParams: 1_557_611_200,
    source: hf('openai-community/gpt2-xl'),
  },
];
