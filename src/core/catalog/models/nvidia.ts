// Built-in catalog: NVIDIA Nemotron-H and Nemotron Nano: Mamba2, attention and MLP (or MoE) layers by pattern; the
// Nemotron-4 Minitron models (model_type nemotron). Pure data.

import { fineTune, hf, type CatalogModel } from './types';

export const NEMOTRON_H: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // NVIDIA Nemotron Nano 2 and Nemotron-H (nemotron_h): one norm and one mixer per layer, Mamba2 (M), attention without
  // position embedding (*) or a ReLU² MLP (-), by hybrid_override_pattern (architecture.test.ts works the counts out).
  // ---------------------------------------------------------------------------------------------
  {
    // 8,888,227,328: the Hub's safetensors total. Mamba2 heads 128 x 80 (inner 10,240, not expand x hidden), attention heads
    // of 128 (not 4480 / 40).
    id: 'nvidia/NVIDIA-Nemotron-Nano-9B-v2',
    aliases: ['nvidia/NVIDIA-Nemotron-Nano-9B-v2-Base'],
    config: {
      model_type: 'nemotron_h',
      architectures: ['NemotronHForCausalLM'],
      chunk_size: 128,
      conv_kernel: 4,
      head_dim: 128,
      hidden_size: 4480,
      hybrid_override_pattern: 'M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-',
      intermediate_size: 15680,
      mamba_head_dim: 80,
      mamba_num_heads: 128,
      max_position_embeddings: 131072,
      n_groups: 8,
      num_attention_heads: 40,
      num_hidden_layers: 56,
      num_key_value_heads: 8,
      ssm_state_size: 128,
      tie_word_embeddings: false,
      use_bias: false,
      use_conv_bias: true,
      vocab_size: 131072,
    },
    publishedParams: 8_888_227_328,
    source: hf('nvidia/NVIDIA-Nemotron-Nano-9B-v2'),
  },
  {
    // 8,100,852,736, the count listings of this checkpoint give from its model page: 52 layers, 24 Mamba2, 24 MLP, 4 attention.
    id: 'nvidia/Nemotron-H-8B-Base-8K',
    config: {
      model_type: 'nemotron_h',
      architectures: ['NemotronHForCausalLM'],
      chunk_size: 128,
      conv_kernel: 4,
      head_dim: 128,
      hidden_size: 4096,
      hybrid_override_pattern: 'M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-',
      intermediate_size: 21504,
      mamba_head_dim: 64,
      mamba_num_heads: 128,
      n_groups: 8,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      ssm_state_size: 128,
      tie_word_embeddings: false,
      use_bias: false,
      use_conv_bias: true,
      vocab_size: 131072,
    },
    publishedParams: 8_100_852_736,
    source: hf('nvidia/Nemotron-H-8B-Base-8K'),
  },
  {
    // 31,577,937,344: the Hub's safetensors total (num_parameters(); the fp32 router correction biases are buffers, the
    // checkpoint's MTP layer is not loaded). 23 Mamba2, 23 MoE (128 ReLU² experts of 1856, top-6, a shared expert of
    // 3712) and 6 attention layers (32 heads x 128, 2 kv).
    id: 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16',
    aliases: ['nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-Base-BF16', 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B'],
    config: {
      model_type: 'nemotron_h',
      architectures: ['NemotronHForCausalLM'],
      attention_bias: false,
      chunk_size: 128,
      conv_kernel: 4,
      head_dim: 128,
      hidden_size: 2688,
      hybrid_override_pattern: 'MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME',
      intermediate_size: 1856,
      mamba_head_dim: 64,
      mamba_num_heads: 64,
      max_position_embeddings: 262144,
      mlp_bias: false,
      moe_intermediate_size: 1856,
      moe_shared_expert_intermediate_size: 3712,
      n_group: 1,
      n_groups: 8,
      n_routed_experts: 128,
      n_shared_experts: 1,
      norm_topk_prob: true,
      num_attention_heads: 32,
      num_experts_per_tok: 6,
      num_hidden_layers: 52,
      num_key_value_heads: 2,
      routed_scaling_factor: 2.5,
      ssm_state_size: 128,
      tie_word_embeddings: false,
      topk_group: 1,
      use_bias: false,
      use_conv_bias: true,
      vocab_size: 131072,
    },
    publishedParams: 31_577_937_344,
    source: hf('nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16'),
  },
];

export const NVIDIA_FINE_TUNES: readonly CatalogModel[] = [
  {
    // Mistral-NeMo-Minitron 8B: Mistral NeMo 12B pruned to 4,096 wide with an 11,520 MLP (Sreenivas et al. 2024).
    id: 'nvidia/Mistral-NeMo-Minitron-8B-Base',
    config: {
      model_type: 'mistral',
      architectures: ['MistralForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11520,
      max_position_embeddings: 8192,
      num_attention_heads: 32,
      num_hidden_layers: 40,
      num_key_value_heads: 8,
      head_dim: 128,
      rms_norm_eps: 1e-5,
      rope_theta: 1000000,
      sliding_window: null,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 131072,
    },
    source: hf('nvidia/Mistral-NeMo-Minitron-8B-Base'),
  },
  {
    // Llama-3.1-Nemotron-70B-Instruct: a Llama-3.1-70B-Instruct fine-tune.
    id: 'nvidia/Llama-3.1-Nemotron-70B-Instruct-HF',
    baseModel: 'meta-llama/Llama-3.1-70B',
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 28672,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    source: fineTune('nvidia/Llama-3.1-Nemotron-70B-Instruct-HF', 'meta-llama/Llama-3.1-70B'),
  },
  {
    // OpenMath-Nemotron-1.5B: Qwen2.5-Math-1.5B fine-tuned on OpenMathReasoning, after raising its rope_theta
    // (10,000 -> 500,000) and max_position_embeddings (4,096 -> 131,072) in config.json, as NVIDIA's recipe for the
    // 1.5B and 7B models says; the other fields are Qwen2.5-Math-1.5B's (tied embeddings: 1,543,714,304 parameters).
    // Checked against NVIDIA/NeMo-Skills@0b012df8 docs/releases/openmathreasoning/training.md ("Prepare base model").
    id: 'nvidia/OpenMath-Nemotron-1.5B',
    baseModel: 'Qwen/Qwen2.5-Math-1.5B',
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
      rope_theta: 500000,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 151936,
    },
    source: `${hf('nvidia/OpenMath-Nemotron-1.5B')} (Qwen/Qwen2.5-Math-1.5B's fields with rope_theta 500000 and max_position_embeddings 131072: https://github.com/NVIDIA/NeMo-Skills/blob/main/docs/releases/openmathreasoning/training.md)`,
  },
];

/** Fields the Nemotron-4 Minitron config.json files share (NemotronForCausalLM). */
const MINITRON = {
  model_type: 'nemotron',
  architectures: ['NemotronForCausalLM'],
  head_dim: 128,
  hidden_act: 'relu2',
  max_position_embeddings: 4096,
  norm_eps: 1e-5,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  partial_rotary_factor: 0.5,
  rope_theta: 10000,
  tie_word_embeddings: false,
  vocab_size: 256000,
};

export const MINITRON_MODELS: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // Nemotron-4 Minitron (nvidia; model_type nemotron): LayerNorm1P, rotary on half of each head, an ungated relu^2 MLP,
  // an untied 256,000-token head. Nemotron-Mini-4B-Instruct is the 4B's instruction tune. Counts by hand in
  // architecture.test.ts.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'nvidia/Minitron-4B-Base',
    aliases: ['nvidia/Nemotron-4-Minitron-4B-Base', 'nvidia/Nemotron-Mini-4B-Instruct'],
    config: { ...MINITRON, hidden_size: 3072, intermediate_size: 9216, num_attention_heads: 24 },
    source: hf('nvidia/Minitron-4B-Base'),
  },
  {
    id: 'nvidia/Minitron-8B-Base',
    aliases: ['nvidia/Nemotron-4-Minitron-8B-Base'],
    config: { ...MINITRON, hidden_size: 4096, intermediate_size: 16384, num_attention_heads: 48 },
    source: hf('nvidia/Minitron-8B-Base'),
  },
];
