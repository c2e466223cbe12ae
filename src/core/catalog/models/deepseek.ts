// Built-in catalog: DeepSeek: the R1 distills (Qwen2 and Llama architectures), DeepSeek-V2-Lite and DeepSeek-V3. Pure
// data.

import { fineTune, hf, type CatalogModel } from './types';

/** The config.json fields DeepSeek-V2-Lite and Moonlight-16B-A3B share (the DeepSeek MLA + MoE layout at 2048 wide). */
export const DEEPSEEK_16B_MLA = {
  first_k_dense_replace: 1,
  hidden_act: 'silu',
  hidden_size: 2048,
  kv_lora_rank: 512,
  moe_intermediate_size: 1408,
  moe_layer_freq: 1,
  n_routed_experts: 64,
  n_shared_experts: 2,
  num_attention_heads: 16,
  num_experts_per_tok: 6,
  num_hidden_layers: 27,
  num_key_value_heads: 16,
  q_lora_rank: null,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  v_head_dim: 128,
};

export const DEEPSEEK_R1_DISTILLS: readonly CatalogModel[] = [
  {
    // The R1 distill is a Qwen2.5-Math-7B fine-tune, so it shares the Qwen2.5-7B shapes.
    id: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B',
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
    source: hf('deepseek-ai/DeepSeek-R1-Distill-Qwen-7B'),
  },
  {
    // Unlike Qwen2.5-1.5B, this Qwen2.5-Math-1.5B fine-tune does not tie its embeddings.
    id: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B',
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
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      use_sliding_window: false,
      vocab_size: 151936,
    },
    publishedParams: 1_777_088_000,
    source: hf('deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B'),
  },
  {
    id: 'deepseek-ai/DeepSeek-R1-Distill-Llama-8B',
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 8_030_261_248,
    source: hf('deepseek-ai/DeepSeek-R1-Distill-Llama-8B'),
  },
];

export const DEEPSEEK_V2_LITE: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // DeepSeek MLA + MoE decoders (modeling_deepseek_v3.py; DeepSeek-V2 shares the layout): q_proj (no q LoRA rank in the
  // small models), a 512-wide compressed key/value latent, 128 + 64 wide q/k heads and 128-wide value heads; the first
  // layer has a dense MLP, the others 64 routed experts (top 6) and 2 shared experts of width 1408. Counts from the
  // architecture (the model cards give 15.7B and 16B).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'deepseek-ai/DeepSeek-V2-Lite',
    aliases: ['deepseek-ai/DeepSeek-V2-Lite-Chat'],
    config: {
      ...DEEPSEEK_16B_MLA, model_type: 'deepseek_v2', architectures: ['DeepseekV2ForCausalLM'], attention_bias: false,
      intermediate_size: 10944, max_position_embeddings: 163840, rms_norm_eps: 1e-6, vocab_size: 102400,
    },
    source: hf('deepseek-ai/DeepSeek-V2-Lite'),
  },
];

export const DEEPSEEK_V3: readonly CatalogModel[] = [
  {
    // DeepSeek-V3 (and R1, V3-0324, V3.1, which keep its config.json): 61 decoder layers, MLA attention, 3 dense
    // layers, then 256 routed experts (top 8) and one shared expert per layer. 671,026,404,352 parameters by hand in
    // architecture.test.ts (the report's 671B; the Hub's 685B adds the multi-token-prediction layer transformers does
    // not load). The checkpoint stores FP8 blocks; training loads the weights in bf16, as counted here.
    id: 'deepseek-ai/DeepSeek-V3',
    aliases: [
      'deepseek-ai/DeepSeek-V3-Base', 'deepseek-ai/DeepSeek-V3-0324', 'deepseek-ai/DeepSeek-R1', 'deepseek-ai/DeepSeek-R1-0528',
      'deepseek-ai/DeepSeek-V3.1', 'deepseek-ai/DeepSeek-V3.1-Base',
    ],
    config: {
      model_type: 'deepseek_v3', architectures: ['DeepseekV3ForCausalLM'], hidden_act: 'silu', hidden_size: 7168, intermediate_size: 18432,
      kv_lora_rank: 512, moe_intermediate_size: 2048, moe_layer_freq: 1, n_group: 8, n_routed_experts: 256, n_shared_experts: 1,
      norm_topk_prob: true, num_attention_heads: 128, num_experts_per_tok: 8, num_hidden_layers: 61, num_key_value_heads: 128,
      q_lora_rank: 1536, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128, vocab_size: 129280, first_k_dense_replace: 3,
      topk_group: 4, tie_word_embeddings: false, max_position_embeddings: 163840, rms_norm_eps: 1e-6, torch_dtype: 'bfloat16',
    },
    source: hf('deepseek-ai/DeepSeek-V3'),
  },
];

export const DEEPSEEK_CODER_LLM_V2: readonly CatalogModel[] = [
  {
    // DeepSeek-Coder: Llama layers, a 32,256-token vocabulary, 16,384 positions (linear rope scaling x4).
    id: 'deepseek-ai/deepseek-coder-1.3b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 5504,
      max_position_embeddings: 16384, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 16, rms_norm_eps: 1e-06,
      rope_theta: 100000, rope_scaling: { factor: 4, type: 'linear' }, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32256,
    },
    source: hf('deepseek-ai/deepseek-coder-1.3b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-coder-1.3b-instruct',
    baseModel: 'deepseek-ai/deepseek-coder-1.3b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 5504,
      max_position_embeddings: 16384, num_attention_heads: 16, num_hidden_layers: 24, num_key_value_heads: 16, rms_norm_eps: 1e-06,
      rope_theta: 100000, rope_scaling: { factor: 4, type: 'linear' }, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32256,
    },
    source: fineTune('deepseek-ai/deepseek-coder-1.3b-instruct', 'deepseek-ai/deepseek-coder-1.3b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-coder-6.7b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 16384, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-06,
      rope_theta: 100000, rope_scaling: { factor: 4, type: 'linear' }, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32256,
    },
    source: hf('deepseek-ai/deepseek-coder-6.7b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-coder-6.7b-instruct',
    baseModel: 'deepseek-ai/deepseek-coder-6.7b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 16384, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-06,
      rope_theta: 100000, rope_scaling: { factor: 4, type: 'linear' }, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32256,
    },
    source: fineTune('deepseek-ai/deepseek-coder-6.7b-instruct', 'deepseek-ai/deepseek-coder-6.7b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-coder-33b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 7168, intermediate_size: 19200,
      max_position_embeddings: 16384, num_attention_heads: 56, num_hidden_layers: 62, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 100000, rope_scaling: { factor: 4, type: 'linear' }, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32256,
    },
    source: hf('deepseek-ai/deepseek-coder-33b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-coder-33b-instruct',
    baseModel: 'deepseek-ai/deepseek-coder-33b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 7168, intermediate_size: 19200,
      max_position_embeddings: 16384, num_attention_heads: 56, num_hidden_layers: 62, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      rope_theta: 100000, rope_scaling: { factor: 4, type: 'linear' }, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32256,
    },
    source: fineTune('deepseek-ai/deepseek-coder-33b-instruct', 'deepseek-ai/deepseek-coder-33b-base'),
  },
  {
    // DeepSeek LLM: Llama layers, a 102,400-token vocabulary (DeepSeek-AI 2024, Table 2).
    id: 'deepseek-ai/deepseek-llm-7b-base',
    aliases: ['deepseek-ai/deepseek-coder-7b-base-v1.5', 'deepseek-ai/deepseek-math-7b-base'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 30, num_key_value_heads: 32, rms_norm_eps: 1e-06,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 102400,
    },
    source: hf('deepseek-ai/deepseek-llm-7b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-llm-7b-chat',
    baseModel: 'deepseek-ai/deepseek-llm-7b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 30, num_key_value_heads: 32, rms_norm_eps: 1e-06,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 102400,
    },
    source: fineTune('deepseek-ai/deepseek-llm-7b-chat', 'deepseek-ai/deepseek-llm-7b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-llm-67b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 22016,
      max_position_embeddings: 4096, num_attention_heads: 64, num_hidden_layers: 95, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 102400,
    },
    source: hf('deepseek-ai/deepseek-llm-67b-base'),
  },
  {
    id: 'deepseek-ai/deepseek-llm-67b-chat',
    baseModel: 'deepseek-ai/deepseek-llm-67b-base',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 22016,
      max_position_embeddings: 4096, num_attention_heads: 64, num_hidden_layers: 95, num_key_value_heads: 8, rms_norm_eps: 1e-06,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 102400,
    },
    source: fineTune('deepseek-ai/deepseek-llm-67b-chat', 'deepseek-ai/deepseek-llm-67b-base'),
  },
  {
    // DeepSeek-V2 236B (DeepSeek-AI 2024): MLA with a 1,536 query rank, 160 routed experts (top 6) and 2 shared
    // experts of 1,536.
    id: 'deepseek-ai/DeepSeek-V2',
    aliases: ['deepseek-ai/DeepSeek-V2-Chat', 'deepseek-ai/DeepSeek-V2.5', 'deepseek-ai/DeepSeek-Coder-V2-Instruct'],
    config: {
      model_type: 'deepseek_v2', architectures: ['DeepseekV2ForCausalLM'], first_k_dense_replace: 1, hidden_act: 'silu', hidden_size: 5120,
      intermediate_size: 12288, kv_lora_rank: 512, max_position_embeddings: 163840, moe_intermediate_size: 1536, moe_layer_freq: 1,
      n_routed_experts: 160, n_shared_experts: 2, num_attention_heads: 128, num_experts_per_tok: 6, num_hidden_layers: 60, num_key_value_heads: 128,
      q_lora_rank: 1536, qk_nope_head_dim: 128, qk_rope_head_dim: 64, rms_norm_eps: 1e-06, tie_word_embeddings: false, torch_dtype: 'bfloat16',
      v_head_dim: 128, vocab_size: 102400,
    },
    source: hf('deepseek-ai/DeepSeek-V2'),
  },
];
