// Built-in catalog: EleutherAI: Pythia and GPT-NeoX-20B. Pure data.

import { hf, type CatalogModel } from './types';

export const PYTHIA_NEOX: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // GPT-NeoX and Pythia have biases on every linear layer, an untied embed_out and partial rotary embeddings.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'EleutherAI/pythia-1b',
    aliases: ['EleutherAI/pythia-1b-deduped'],
    config: {
      model_type: 'gpt_neox',
      architectures: ['GPTNeoXForCausalLM'],
      hidden_act: 'gelu',
      hidden_size: 2048,
      intermediate_size: 8192,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 8,
      num_hidden_layers: 16,
      rotary_pct: 0.25,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      use_parallel_residual: true,
      vocab_size: 50304,
    },
    publishedParams: 1_011_781_632,
    source: hf('EleutherAI/pythia-1b'),
  },
  {
    id: 'EleutherAI/pythia-6.9b',
    aliases: ['EleutherAI/pythia-6.9b-deduped'],
    config: {
      model_type: 'gpt_neox',
      architectures: ['GPTNeoXForCausalLM'],
      hidden_act: 'gelu',
      hidden_size: 4096,
      intermediate_size: 16384,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      rotary_pct: 0.25,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      use_parallel_residual: true,
      vocab_size: 50432,
    },
    publishedParams: 6_857_302_016,
    source: hf('EleutherAI/pythia-6.9b'),
  },
  {
    id: 'EleutherAI/gpt-neox-20b',
    config: {
      model_type: 'gpt_neox',
      architectures: ['GPTNeoXForCausalLM'],
      hidden_act: 'gelu_fast',
      hidden_size: 6144,
      intermediate_size: 24576,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 2048,
      num_attention_heads: 64,
      num_hidden_layers: 44,
      rotary_pct: 0.25,
      tie_word_embeddings: false,
      torch_dtype: 'float16',
      use_parallel_residual: true,
      vocab_size: 50432,
    },
    publishedParams: 20_554_567_680,
    source: hf('EleutherAI/gpt-neox-20b'),
  },
];
