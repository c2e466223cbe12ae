// Built-in catalog: Baichuan Intelligence: Baichuan and Baichuan 2. Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

export const BAICHUAN: readonly CatalogModel[] = [
  {
    // Baichuan 2 (remote code): Llama layers with one W_pack for q, k, v; the 7B rotates, the 13B uses ALiBi.
    id: 'baichuan-inc/Baichuan2-7B-Base',
    config: {
      model_type: 'baichuan',
      architectures: ['BaichuanForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      model_max_length: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 125696,
    },
    source: checked('baichuan-inc/Baichuan2-7B-Base', 'mlc'),
  },
  {
    id: 'baichuan-inc/Baichuan2-7B-Chat',
    baseModel: 'baichuan-inc/Baichuan2-7B-Base',
    config: {
      model_type: 'baichuan',
      architectures: ['BaichuanForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      model_max_length: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 125696,
    },
    source: checked('baichuan-inc/Baichuan2-7B-Chat', 'mlc'),
  },
  {
    id: 'baichuan-inc/Baichuan2-13B-Base',
    config: {
      model_type: 'baichuan',
      architectures: ['BaichuanForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 13696,
      model_max_length: 4096,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 125696,
    },
    source: hf('baichuan-inc/Baichuan2-13B-Base'),
  },
  {
    id: 'baichuan-inc/Baichuan2-13B-Chat',
    baseModel: 'baichuan-inc/Baichuan2-13B-Base',
    config: {
      model_type: 'baichuan',
      architectures: ['BaichuanForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 13696,
      model_max_length: 4096,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 125696,
    },
    source: fineTune('baichuan-inc/Baichuan2-13B-Chat', 'baichuan-inc/Baichuan2-13B-Base'),
  },
  {
    // Baichuan (1) 7B: 7,000,559,616 parameters in calflops README (MrYxJ/calculate-flops.pytorch).
    id: 'baichuan-inc/Baichuan-7B',
    config: {
      model_type: 'baichuan',
      architectures: ['BaichuanForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 64000,
    },
    publishedParams: 7_000_559_616,
    source: hf('baichuan-inc/Baichuan-7B'),
  },
  {
    // Baichuan (1) 13B: Baichuan2-13B's layout (W_pack, ALiBi, no max_position_embeddings) with a 64,000-token
    // vocabulary. 13,264,901,120 parameters: the Model Details table of baichuan-inc/Baichuan-13B README_EN.md, which
    // gives the same shapes for Base and Chat, and the Base's pytorch_model.bin.index.json total_size (26,529,802,240
    // bytes of bfloat16).
    // Fields read from AlibabaPAI/FlashModels@98b276ba hf_models/config/baichuan-13b-base/config.json (Hub commit 0ef0739c).
    id: 'baichuan-inc/Baichuan-13B-Base',
    aliases: ['baichuan-inc/Baichuan-13B-Chat'],
    config: {
      model_type: 'baichuan',
      architectures: ['BaichuanForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 5120,
      intermediate_size: 13696,
      model_max_length: 4096,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      rms_norm_eps: 1e-6,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 64000,
    },
    publishedParams: 13_264_901_120,
    source: hf('baichuan-inc/Baichuan-13B-Base'),
  },
];
