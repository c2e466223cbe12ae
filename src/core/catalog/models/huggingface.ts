// Built-in catalog: Hugging Face: SmolLM2 and SmolLM3. Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

export const SMOLLM: readonly CatalogModel[] = [
  {
    id: 'HuggingFaceTB/SmolLM2-135M',
    aliases: ['HuggingFaceTB/SmolLM2-135M-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 576,
      intermediate_size: 1536,
      max_position_embeddings: 8192,
      mlp_bias: false,
      num_attention_heads: 9,
      num_hidden_layers: 30,
      num_key_value_heads: 3,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 49152,
    },
    publishedParams: 134_515_008,
    source: hf('HuggingFaceTB/SmolLM2-135M'),
  },
  {
    id: 'HuggingFaceTB/SmolLM2-360M',
    aliases: ['HuggingFaceTB/SmolLM2-360M-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 960,
      intermediate_size: 2560,
      max_position_embeddings: 8192,
      mlp_bias: false,
      num_attention_heads: 15,
      num_hidden_layers: 32,
      num_key_value_heads: 5,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 49152,
    },
    publishedParams: 361_821_120,
    source: hf('HuggingFaceTB/SmolLM2-360M'),
  },
  {
    id: 'HuggingFaceTB/SmolLM2-1.7B',
    aliases: ['HuggingFaceTB/SmolLM2-1.7B-Instruct'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 8192,
      max_position_embeddings: 8192,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 24,
      num_key_value_heads: 32,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 49152,
    },
    publishedParams: 1_711_376_384,
    source: hf('HuggingFaceTB/SmolLM2-1.7B'),
  },
  {
    // SmolLM3 is Llama-shaped but skips RoPE on every fourth layer (no_rope_layers), which does not change memory.
    // SmolLM3-3B-checkpoints holds the intermediate training checkpoints of the same model.
    id: 'HuggingFaceTB/SmolLM3-3B',
    aliases: ['HuggingFaceTB/SmolLM3-3B-Base', 'HuggingFaceTB/SmolLM3-3B-checkpoints'],
    config: {
      model_type: 'smollm3',
      architectures: ['SmolLM3ForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 11008,
      max_position_embeddings: 65536,
      mlp_bias: false,
      num_attention_heads: 16,
      num_hidden_layers: 36,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    publishedParams: 3_075_098_624,
    source: hf('HuggingFaceTB/SmolLM3-3B'),
  },
];

export const SMOLLM_ZEPHYR_DISTIL: readonly CatalogModel[] = [
  {
    // SmolLM: small Llama models with tied embeddings and a 49,152-token vocabulary.
    id: 'HuggingFaceTB/SmolLM-135M',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 576, intermediate_size: 1536,
      max_position_embeddings: 2048, num_attention_heads: 9, num_hidden_layers: 30, num_key_value_heads: 3, rms_norm_eps: 1e-05, rope_theta: 10000,
      attention_bias: false, mlp_bias: false, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49152,
    },
    source: checked('HuggingFaceTB/SmolLM-135M', 'mlc'),
  },
  {
    id: 'HuggingFaceTB/SmolLM-135M-Instruct',
    baseModel: 'HuggingFaceTB/SmolLM-135M',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 576, intermediate_size: 1536,
      max_position_embeddings: 2048, num_attention_heads: 9, num_hidden_layers: 30, num_key_value_heads: 3, rms_norm_eps: 1e-05, rope_theta: 10000,
      attention_bias: false, mlp_bias: false, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49152,
    },
    source: checked('HuggingFaceTB/SmolLM-135M-Instruct', 'mlc'),
  },
  {
    id: 'HuggingFaceTB/SmolLM-360M',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 960, intermediate_size: 2560,
      max_position_embeddings: 2048, num_attention_heads: 15, num_hidden_layers: 32, num_key_value_heads: 5, rms_norm_eps: 1e-05, rope_theta: 10000,
      attention_bias: false, mlp_bias: false, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49152,
    },
    source: checked('HuggingFaceTB/SmolLM-360M', 'mlc'),
  },
  {
    id: 'HuggingFaceTB/SmolLM-360M-Instruct',
    baseModel: 'HuggingFaceTB/SmolLM-360M',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 960, intermediate_size: 2560,
      max_position_embeddings: 2048, num_attention_heads: 15, num_hidden_layers: 32, num_key_value_heads: 5, rms_norm_eps: 1e-05, rope_theta: 10000,
      attention_bias: false, mlp_bias: false, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49152,
    },
    source: checked('HuggingFaceTB/SmolLM-360M-Instruct', 'mlc'),
  },
  {
    id: 'HuggingFaceTB/SmolLM-1.7B',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 8192,
      max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 24, num_key_value_heads: 32, rms_norm_eps: 1e-05, rope_theta: 10000,
      attention_bias: false, mlp_bias: false, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49152,
    },
    source: checked('HuggingFaceTB/SmolLM-1.7B', 'mlc'),
  },
  {
    id: 'HuggingFaceTB/SmolLM-1.7B-Instruct',
    baseModel: 'HuggingFaceTB/SmolLM-1.7B',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 8192,
      max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 24, num_key_value_heads: 32, rms_norm_eps: 1e-05, rope_theta: 10000,
      attention_bias: false, mlp_bias: false, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 49152,
    },
    source: checked('HuggingFaceTB/SmolLM-1.7B-Instruct', 'mlc'),
  },
  {
    // DistilGPT2: GPT-2 distilled to 6 layers.
    id: 'distilbert/distilgpt2',
    aliases: ['distilgpt2'],
    config: {
      model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], activation_function: 'gelu_new', n_ctx: 1024, n_embd: 768, n_head: 12, n_layer: 6,
      n_positions: 1024, vocab_size: 50257,
    },
    publishedParams: 81_912_576,
    source: hf('distilbert/distilgpt2'),
  },
  {
    id: 'distilbert/distilroberta-base',
    aliases: ['distilroberta-base'],
    config: {
      model_type: 'roberta', architectures: ['RobertaForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-05, max_position_embeddings: 514, num_attention_heads: 12, num_hidden_layers: 6,
      type_vocab_size: 1, vocab_size: 50265,
    },
    source: hf('distilbert/distilroberta-base'),
  },
  {
    id: 'HuggingFaceH4/zephyr-7b-gemma-v0.1',
    baseModel: 'google/gemma-7b',
    config: {
      model_type: 'gemma', architectures: ['GemmaForCausalLM'], head_dim: 256, hidden_act: 'gelu', hidden_size: 3072, intermediate_size: 24576,
      max_position_embeddings: 8192, num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 16, rms_norm_eps: 1e-06,
      torch_dtype: 'bfloat16', vocab_size: 256000,
    },
    source: fineTune('HuggingFaceH4/zephyr-7b-gemma-v0.1', 'google/gemma-7b'),
  },
  {
    // The Zephyr recipe's checkpoints (alignment-handbook): Mistral-7B-v0.1 fine-tunes.
    id: 'HuggingFaceH4/zephyr-7b-alpha',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: fineTune('HuggingFaceH4/zephyr-7b-alpha', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    id: 'HuggingFaceH4/mistral-7b-sft-beta',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: fineTune('HuggingFaceH4/mistral-7b-sft-beta', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    id: 'alignment-handbook/zephyr-7b-sft-full',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: fineTune('alignment-handbook/zephyr-7b-sft-full', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    // A QLoRA adapter (adapter_config.json base_model_name_or_path mistralai/Mistral-7B-v0.1): the base's
    // architecture.
    id: 'alignment-handbook/zephyr-7b-sft-qlora',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: fineTune('alignment-handbook/zephyr-7b-sft-qlora', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    id: 'alignment-handbook/zephyr-7b-dpo-qlora',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: fineTune('alignment-handbook/zephyr-7b-dpo-qlora', 'mistralai/Mistral-7B-v0.1'),
  },
];
