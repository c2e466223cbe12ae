// Built-in catalog: EleutherAI: Pythia and GPT-NeoX-20B. Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

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

export const PYTHIA_GPT_J_NEO: readonly CatalogModel[] = [
  {
    id: 'EleutherAI/pythia-14m',
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 128, intermediate_size: 512,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 4, num_hidden_layers: 6, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50304,
    },
    publishedParams: 14_067_712,
    source: checked('EleutherAI/pythia-14m', 'litgpt'),
  },
  {
    id: 'EleutherAI/pythia-70m',
    aliases: ['EleutherAI/pythia-70m-deduped'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 512, intermediate_size: 2048,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 8, num_hidden_layers: 6, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50304,
    },
    publishedParams: 70_426_624,
    source: checked('EleutherAI/pythia-70m', 'litgpt'),
  },
  {
    id: 'EleutherAI/pythia-160m',
    aliases: ['EleutherAI/pythia-160m-deduped'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 768, intermediate_size: 3072,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 12, num_hidden_layers: 12, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50304,
    },
    publishedParams: 162_322_944,
    source: checked('EleutherAI/pythia-160m', 'litgpt'),
  },
  {
    id: 'EleutherAI/pythia-410m',
    aliases: ['EleutherAI/pythia-410m-deduped'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 1024, intermediate_size: 4096,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 16, num_hidden_layers: 24, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50304,
    },
    publishedParams: 405_334_016,
    source: checked('EleutherAI/pythia-410m', 'litgpt'),
  },
  {
    id: 'EleutherAI/pythia-1.4b',
    aliases: ['EleutherAI/pythia-1.4b-deduped'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 2048, intermediate_size: 8192,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 16, num_hidden_layers: 24, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50304,
    },
    publishedParams: 1_414_647_808,
    source: checked('EleutherAI/pythia-1.4b', 'litgpt'),
  },
  {
    id: 'EleutherAI/pythia-2.8b',
    aliases: ['EleutherAI/pythia-2.8b-deduped'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 2560, intermediate_size: 10240,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50304,
    },
    publishedParams: 2_775_208_960,
    source: checked('EleutherAI/pythia-2.8b', 'litgpt'),
  },
  {
    id: 'EleutherAI/pythia-12b',
    aliases: ['EleutherAI/pythia-12b-deduped'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 5120, intermediate_size: 20480,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 40, num_hidden_layers: 36, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50688,
    },
    publishedParams: 11_846_072_320,
    source: checked('EleutherAI/pythia-12b', 'litgpt'),
  },
  {
    id: 'EleutherAI/gpt-j-6b',
    aliases: ['nomic-ai/gpt4all-j'],
    config: {
      model_type: 'gptj', architectures: ['GPTJForCausalLM'], activation_function: 'gelu_new', attn_pdrop: 0, embd_pdrop: 0,
      layer_norm_epsilon: 1e-05, n_embd: 4096, n_head: 16, n_inner: null, n_layer: 28, n_positions: 2048, resid_pdrop: 0, rotary_dim: 64,
      tie_word_embeddings: false, vocab_size: 50400,
    },
    publishedParams: 6_050_882_784,
    source: checked('EleutherAI/gpt-j-6b', 'mlc'),
  },
  {
    id: 'EleutherAI/gpt-neo-125m',
    config: {
      model_type: 'gpt_neo', architectures: ['GPTNeoForCausalLM'], activation_function: 'gelu_new', attention_dropout: 0, embed_dropout: 0,
      hidden_size: 768, intermediate_size: null, layer_norm_epsilon: 1e-05, max_position_embeddings: 2048, num_heads: 12, num_layers: 12,
      resid_dropout: 0, vocab_size: 50257, window_size: 256,
    },
    source: hf('EleutherAI/gpt-neo-125m'),
  },
  {
    id: 'EleutherAI/gpt-neo-1.3B',
    config: {
      model_type: 'gpt_neo', architectures: ['GPTNeoForCausalLM'], activation_function: 'gelu_new', attention_dropout: 0, embed_dropout: 0,
      hidden_size: 2048, intermediate_size: null, layer_norm_epsilon: 1e-05, max_position_embeddings: 2048, num_heads: 16, num_layers: 24,
      resid_dropout: 0, vocab_size: 50257, window_size: 256,
    },
    source: hf('EleutherAI/gpt-neo-1.3B'),
  },
  {
    id: 'EleutherAI/gpt-neo-2.7B',
    config: {
      model_type: 'gpt_neo', architectures: ['GPTNeoForCausalLM'], activation_function: 'gelu_new', attention_dropout: 0, embed_dropout: 0,
      hidden_size: 2560, intermediate_size: null, layer_norm_epsilon: 1e-05, max_position_embeddings: 2048, num_heads: 20, num_layers: 32,
      resid_dropout: 0, vocab_size: 50257, window_size: 256,
    },
    source: hf('EleutherAI/gpt-neo-2.7B'),
  },
  {
    // Polyglot-Ko: GPT-NeoX layers over a 30,080-token Korean vocabulary.
    id: 'EleutherAI/polyglot-ko-1.3b',
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 2048, intermediate_size: 8192,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 16, num_hidden_layers: 24, rotary_pct: 0.5,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 30080,
    },
    source: hf('EleutherAI/polyglot-ko-1.3b'),
  },
  {
    id: 'EleutherAI/polyglot-ko-5.8b',
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 4096, intermediate_size: 16384,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 16, num_hidden_layers: 28, rotary_pct: 0.5,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 30080,
    },
    source: hf('EleutherAI/polyglot-ko-5.8b'),
  },
  {
    id: 'EleutherAI/polyglot-ko-12.8b',
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 5120, intermediate_size: 20480,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 40, num_hidden_layers: 40, rotary_pct: 0.5,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 30080,
    },
    source: hf('EleutherAI/polyglot-ko-12.8b'),
  },
  {
    // Llemma 7B: Code Llama 7B trained further on Proof-Pile-2.
    id: 'EleutherAI/llemma_7b',
    baseModel: 'codellama/CodeLlama-7b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, rms_norm_eps: 1e-05,
      rope_theta: 1000000, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32016,
    },
    source: fineTune('EleutherAI/llemma_7b', 'codellama/CodeLlama-7b-hf'),
  },
  {
    id: 'EleutherAI/pythia-31m',
    aliases: ['EleutherAI/pythia-31m-deduped'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 256, intermediate_size: 1024,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 8, num_hidden_layers: 6, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50304,
    },
    publishedParams: 30_494_720,
    source: checked('EleutherAI/pythia-31m', 'litgpt'),
  },
];
