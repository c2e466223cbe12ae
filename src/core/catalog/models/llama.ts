// Built-in catalog: Meta's Llama line: Llama 2, Llama 3 / 3.1 / 3.2 and Llama 4 (Scout, Maverick). Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

/** Llama 4 config.json fields both checkpoints share (meta-llama/Llama-4-Scout-17B-16E, -Maverick-17B-128E). */
const LLAMA4 = {
  model_type: 'llama4', architectures: ['Llama4ForConditionalGeneration'], tie_word_embeddings: false,
  vision_config: {
    model_type: 'llama4_vision_model', hidden_size: 1408, intermediate_size: 5632, num_hidden_layers: 34, num_attention_heads: 16, image_size: 336,
    patch_size: 14, num_channels: 3, pixel_shuffle_ratio: 0.5, projector_input_dim: 4096, projector_output_dim: 4096, vision_output_dim: 4096,
  },
};

const LLAMA4_TEXT = {
  model_type: 'llama4_text', attention_bias: false, attention_chunk_size: 8192, attn_scale: 0.1, attn_temperature_tuning: true, floor_scale: 8192,
  head_dim: 128, hidden_act: 'silu', hidden_size: 5120, intermediate_size: 8192, intermediate_size_mlp: 16384, num_attention_heads: 40,
  num_experts_per_tok: 1, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-5, vocab_size: 202048, tie_word_embeddings: false,
  no_rope_layers: Array.from({ length: 48 }, (_, i) => ((i + 1) % 4 === 0 ? 0 : 1)),
};

export const LLAMA_2_3: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // The Llama 2 checkpoints come first.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'meta-llama/Llama-2-7b-hf',
    aliases: ['NousResearch/Llama-2-7b-hf', 'meta-llama/Llama-2-7b-chat-hf', 'NousResearch/Llama-2-7b-chat-hf'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    publishedParams: 6_738_415_616,
    source: hf('meta-llama/Llama-2-7b-hf'),
  },
  {
    id: 'meta-llama/Llama-2-13b-hf',
    aliases: ['NousResearch/Llama-2-13b-hf', 'meta-llama/Llama-2-13b-chat-hf', 'NousResearch/Llama-2-13b-chat-hf'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 13824,
      max_position_embeddings: 4096,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 40,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    publishedParams: 13_015_864_320,
    source: hf('meta-llama/Llama-2-13b-hf'),
  },
  {
    id: 'meta-llama/Llama-2-70b-hf',
    aliases: ['NousResearch/Llama-2-70b-hf', 'meta-llama/Llama-2-70b-chat-hf', 'NousResearch/Llama-2-70b-chat-hf'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 28672,
      max_position_embeddings: 4096,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    publishedParams: 68_976_648_192,
    source: hf('meta-llama/Llama-2-70b-hf'),
  },

  // ---------------------------------------------------------------------------------------------
  // The Llama 3, 3.1 and 3.2 checkpoints use grouped-query attention and a 128256-token vocabulary.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'meta-llama/Meta-Llama-3-8B',
    aliases: [
      'meta-llama/Llama-3-8B', 'meta-llama/Meta-Llama-3-8B-Instruct', 'NousResearch/Meta-Llama-3-8B', 'unsloth/llama-3-8b',
      'unsloth/llama-3-8b-Instruct',
    ],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 8192,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 8_030_261_248,
    source: hf('meta-llama/Meta-Llama-3-8B'),
  },
  {
    id: 'meta-llama/Meta-Llama-3-70B',
    aliases: ['meta-llama/Llama-3-70B', 'meta-llama/Meta-Llama-3-70B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 8192,
      intermediate_size: 28672,
      max_position_embeddings: 8192,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 70_553_706_496,
    source: hf('meta-llama/Meta-Llama-3-70B'),
  },
  {
    id: 'meta-llama/Llama-3.1-8B',
    aliases: [
      'meta-llama/Meta-Llama-3.1-8B',
      'meta-llama/Llama-3.1-8B-Instruct',
      'meta-llama/Meta-Llama-3.1-8B-Instruct',
      'unsloth/Meta-Llama-3.1-8B',
      'unsloth/Meta-Llama-3.1-8B-Instruct',
    ],
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
    source: hf('meta-llama/Llama-3.1-8B'),
  },
  {
    id: 'meta-llama/Llama-3.1-70B',
    aliases: [
      'meta-llama/Meta-Llama-3.1-70B',
      'meta-llama/Llama-3.1-70B-Instruct',
      'meta-llama/Meta-Llama-3.1-70B-Instruct',
      'meta-llama/Llama-3.3-70B-Instruct',
      // DeepSeek-R1-Distill-Llama-70B is a fine-tune of Llama-3.3-70B-Instruct (same config).
      'deepseek-ai/DeepSeek-R1-Distill-Llama-70B',
    ],
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
    publishedParams: 70_553_706_496,
    source: hf('meta-llama/Llama-3.1-70B'),
  },
  {
    id: 'meta-llama/Llama-3.1-405B',
    aliases: ['meta-llama/Meta-Llama-3.1-405B', 'meta-llama/Llama-3.1-405B-Instruct', 'meta-llama/Meta-Llama-3.1-405B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 16384,
      intermediate_size: 53248,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 128,
      num_hidden_layers: 126,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 405_853_388_800,
    source: hf('meta-llama/Llama-3.1-405B'),
  },
  {
    id: 'meta-llama/Llama-3.2-1B',
    aliases: ['meta-llama/Llama-3.2-1B-Instruct', 'unsloth/Llama-3.2-1B', 'unsloth/Llama-3.2-1B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      head_dim: 64,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 8192,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 16,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 1_235_814_400,
    source: hf('meta-llama/Llama-3.2-1B'),
  },
  {
    id: 'meta-llama/Llama-3.2-3B',
    aliases: ['meta-llama/Llama-3.2-3B-Instruct', 'unsloth/Llama-3.2-3B', 'unsloth/Llama-3.2-3B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 3072,
      intermediate_size: 8192,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 24,
      num_hidden_layers: 28,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 3_212_749_824,
    source: hf('meta-llama/Llama-3.2-3B'),
  },
];

export const LLAMA_4: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // Llama 4 (image-text checkpoints; the text model under text_config): 48 layers of 40 heads x 128 (8 kv), q/k rotated
  // and L2-normed on three layers of four, NoPE layers with attention temperature tuning; Scout: 16 experts of 8192 in
  // every layer, Maverick: 128 experts in every other layer and a dense MLP of 16384 between; both top-1 with a shared
  // expert. Counts by hand in architecture.test.ts (108,641,793,536 and 401,583,781,376, as published).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'meta-llama/Llama-4-Scout-17B-16E-Instruct',
    aliases: ['meta-llama/Llama-4-Scout-17B-16E'],
    config: {
      ...LLAMA4,
      text_config: { ...LLAMA4_TEXT, interleave_moe_layer_step: 1, num_local_experts: 16, use_qk_norm: true, max_position_embeddings: 10485760 },
    },
    publishedParams: 108_641_793_536,
    source: hf('meta-llama/Llama-4-Scout-17B-16E-Instruct'),
  },
  {
    id: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct',
    aliases: ['meta-llama/Llama-4-Maverick-17B-128E'],
    config: {
      ...LLAMA4,
      text_config: { ...LLAMA4_TEXT, interleave_moe_layer_step: 2, num_local_experts: 128, use_qk_norm: false, max_position_embeddings: 1048576 },
    },
    publishedParams: 401_583_781_376,
    source: hf('meta-llama/Llama-4-Maverick-17B-128E-Instruct'),
  },
];

export const LLAMA_1_CODE_LLAMA: readonly CatalogModel[] = [
  {
    // LLaMA (1) 7B converted to transformers: Llama layers, 2,048 positions, a 32,000-token vocabulary (Touvron et al.
    // 2023, Table 2).
    id: 'huggyllama/llama-7b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rms_norm_eps: 1e-06, max_sequence_length: 2048,
      tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
    },
    publishedParams: 6_738_415_616,
    source: hf('huggyllama/llama-7b'),
  },
  {
    // LLaMA (1) 13B converted to transformers: Llama layers, 2,048 positions, a 32,000-token vocabulary (Touvron et
    // al. 2023, Table 2).
    id: 'huggyllama/llama-13b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 2048, num_attention_heads: 40, num_hidden_layers: 40, rms_norm_eps: 1e-06, max_sequence_length: 2048,
      tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
    },
    publishedParams: 13_015_864_320,
    source: hf('huggyllama/llama-13b'),
  },
  {
    // LLaMA (1) 30B converted to transformers: Llama layers, 2,048 positions, a 32,000-token vocabulary (Touvron et
    // al. 2023, Table 2).
    id: 'huggyllama/llama-30b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 6656, intermediate_size: 17920,
      max_position_embeddings: 2048, num_attention_heads: 52, num_hidden_layers: 60, rms_norm_eps: 1e-06, max_sequence_length: 2048,
      tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
    },
    publishedParams: 32_528_943_616,
    source: hf('huggyllama/llama-30b'),
  },
  {
    // LLaMA (1) 65B converted to transformers: Llama layers, 2,048 positions, a 32,000-token vocabulary (Touvron et
    // al. 2023, Table 2).
    id: 'huggyllama/llama-65b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 22016,
      max_position_embeddings: 2048, num_attention_heads: 64, num_hidden_layers: 80, rms_norm_eps: 1e-06, max_sequence_length: 2048,
      tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
    },
    publishedParams: 65_285_660_672,
    source: hf('huggyllama/llama-65b'),
  },
  {
    // Code Llama: Llama 2 layers, 16,384 positions, rope_theta 1e6, an infilling vocabulary of 32,016.
    id: 'codellama/CodeLlama-7b-hf',
    aliases: ['meta-llama/CodeLlama-7b-hf'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 16384, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32016,
    },
    publishedParams: 6_738_546_688,
    source: checked('codellama/CodeLlama-7b-hf', 'litgpt'),
  },
  {
    id: 'codellama/CodeLlama-7b-Instruct-hf',
    aliases: ['meta-llama/CodeLlama-7b-Instruct-hf'],
    baseModel: 'codellama/CodeLlama-7b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 16384, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32016,
    },
    source: checked('codellama/CodeLlama-7b-Instruct-hf', 'litgpt'),
  },
  {
    // The Python specialization has no infilling tokens: a 32,000-token vocabulary.
    id: 'codellama/CodeLlama-7b-Python-hf',
    aliases: ['meta-llama/CodeLlama-7b-Python-hf'],
    baseModel: 'codellama/CodeLlama-7b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 16384, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: checked('codellama/CodeLlama-7b-Python-hf', 'litgpt'),
  },
  {
    // Code Llama: Llama 2 layers, 16,384 positions, rope_theta 1e6, an infilling vocabulary of 32,016.
    id: 'codellama/CodeLlama-13b-hf',
    aliases: ['meta-llama/CodeLlama-13b-hf'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 16384, num_attention_heads: 40, num_hidden_layers: 40, num_key_value_heads: 40, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32016,
    },
    source: checked('codellama/CodeLlama-13b-hf', 'litgpt'),
  },
  {
    id: 'codellama/CodeLlama-13b-Instruct-hf',
    aliases: ['meta-llama/CodeLlama-13b-Instruct-hf'],
    baseModel: 'codellama/CodeLlama-13b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 16384, num_attention_heads: 40, num_hidden_layers: 40, num_key_value_heads: 40, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32016,
    },
    source: checked('codellama/CodeLlama-13b-Instruct-hf', 'litgpt'),
  },
  {
    // The Python specialization has no infilling tokens: a 32,000-token vocabulary.
    id: 'codellama/CodeLlama-13b-Python-hf',
    aliases: ['meta-llama/CodeLlama-13b-Python-hf'],
    baseModel: 'codellama/CodeLlama-13b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 16384, num_attention_heads: 40, num_hidden_layers: 40, num_key_value_heads: 40, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: checked('codellama/CodeLlama-13b-Python-hf', 'litgpt'),
  },
  {
    // Code Llama: Llama 2 layers, 16,384 positions, rope_theta 1e6.
    id: 'codellama/CodeLlama-34b-hf',
    aliases: ['meta-llama/CodeLlama-34b-hf'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 22016,
      max_position_embeddings: 16384, num_attention_heads: 64, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: checked('codellama/CodeLlama-34b-hf', 'litgpt'),
  },
  {
    id: 'codellama/CodeLlama-34b-Instruct-hf',
    aliases: ['meta-llama/CodeLlama-34b-Instruct-hf'],
    baseModel: 'codellama/CodeLlama-34b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 22016,
      max_position_embeddings: 16384, num_attention_heads: 64, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: checked('codellama/CodeLlama-34b-Instruct-hf', 'litgpt'),
  },
  {
    // The Python specialization has no infilling tokens: a 32,000-token vocabulary.
    id: 'codellama/CodeLlama-34b-Python-hf',
    aliases: ['meta-llama/CodeLlama-34b-Python-hf'],
    baseModel: 'codellama/CodeLlama-34b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 22016,
      max_position_embeddings: 16384, num_attention_heads: 64, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: checked('codellama/CodeLlama-34b-Python-hf', 'litgpt'),
  },
  {
    // Code Llama: Llama 2 layers, 16,384 positions, rope_theta 1e6, an infilling vocabulary of 32,016.
    id: 'codellama/CodeLlama-70b-hf',
    aliases: ['meta-llama/CodeLlama-70b-hf'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 8192, intermediate_size: 28672,
      max_position_embeddings: 16384, num_attention_heads: 64, num_hidden_layers: 80, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32016,
    },
    source: checked('codellama/CodeLlama-70b-hf', 'litgpt'),
  },
  {
    // Llama Guard 3 8B: a Llama-3.1-8B fine-tune.
    id: 'meta-llama/Llama-Guard-3-8B',
    baseModel: 'meta-llama/Llama-3.1-8B',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 14336, max_position_embeddings: 131072, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 32,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 128256,
    },
    source: fineTune('meta-llama/Llama-Guard-3-8B', 'meta-llama/Llama-3.1-8B'),
  },
];
