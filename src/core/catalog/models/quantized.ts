// Built-in catalog: Pre-quantized uploads (bitsandbytes, GPTQ, AWQ) whose config.json carries a quantization_config.
// Pure data.

import { hf, type CatalogModel } from './types';

export const PRE_QUANTIZED: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // These checkpoints are pre-quantized, and only the memory-relevant keys of quantization_config are kept.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'unsloth/llama-3-8b-bnb-4bit',
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
      quantization_config: {
        bnb_4bit_compute_dtype: 'bfloat16',
        bnb_4bit_quant_type: 'nf4',
        bnb_4bit_use_double_quant: true,
        llm_int8_skip_modules: null,
        load_in_4bit: true,
        load_in_8bit: false,
        quant_method: 'bitsandbytes',
      },
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    source: hf('unsloth/llama-3-8b-bnb-4bit'),
  },
  {
    id: 'TheBloke/Llama-2-7B-GPTQ',
    aliases: ['TheBloke/Llama-2-7b-Chat-GPTQ'],
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
      quantization_config: {
        bits: 4,
        desc_act: false,
        group_size: 128,
        quant_method: 'gptq',
        sym: true,
      },
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 32000,
    },
    source: hf('TheBloke/Llama-2-7B-GPTQ'),
  },
  {
    id: 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
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
      quantization_config: {
        bits: 4,
        group_size: 128,
        modules_to_not_convert: null,
        quant_method: 'awq',
        version: 'gemm',
        zero_point: true,
      },
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      vocab_size: 128256,
    },
    source: hf('hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4'),
  },
];
