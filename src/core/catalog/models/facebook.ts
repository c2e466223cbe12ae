// Built-in catalog: Facebook AI: RoBERTa. Pure data.

import { fineTune, hf, type CatalogModel } from './types';

export const ROBERTA: readonly CatalogModel[] = [
  {
    id: 'FacebookAI/roberta-base',
    aliases: ['roberta-base'],
    config: {
      model_type: 'roberta',
      architectures: ['RobertaForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 768,
      intermediate_size: 3072,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 514,
      num_attention_heads: 12,
      num_hidden_layers: 12,
      type_vocab_size: 1,
      vocab_size: 50265,
    },
    publishedParams: 124_645_632,
    source: hf('FacebookAI/roberta-base'),
  },
  {
    id: 'FacebookAI/roberta-large',
    aliases: ['roberta-large'],
    config: {
      model_type: 'roberta',
      architectures: ['RobertaForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 1024,
      intermediate_size: 4096,
      layer_norm_eps: 1e-5,
      max_position_embeddings: 514,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      type_vocab_size: 1,
      vocab_size: 50265,
    },
    publishedParams: 355_359_744,
    source: hf('FacebookAI/roberta-large'),
  },
];

export const OPT_XLM_ROBERTA: readonly CatalogModel[] = [
  {
    // OPT (Zhang et al. 2022, Table 1): pre-LayerNorm decoders with ReLU MLPs, learned positions, tied embeddings.
    id: 'facebook/opt-125m',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: true, dropout: 0.1, ffn_dim: 3072, hidden_size: 768, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 12, num_hidden_layers: 12, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 768,
    },
    publishedParams: 125_239_296,
    source: hf('facebook/opt-125m'),
  },
  {
    // OPT-350m: 512-wide embeddings projected to 1,024, post-LayerNorm blocks, no final norm.
    id: 'facebook/opt-350m',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: false, dropout: 0.1, ffn_dim: 4096, hidden_size: 1024, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 16, num_hidden_layers: 24, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 512,
    },
    publishedParams: 331_196_416,
    source: hf('facebook/opt-350m'),
  },
  {
    id: 'facebook/opt-1.3b',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: true, dropout: 0.1, ffn_dim: 8192, hidden_size: 2048, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 32, num_hidden_layers: 24, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 2048,
    },
    publishedParams: 1_315_758_080,
    source: hf('facebook/opt-1.3b'),
  },
  {
    id: 'facebook/opt-2.7b',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: true, dropout: 0.1, ffn_dim: 10240, hidden_size: 2560, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 32, num_hidden_layers: 32, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 2560,
    },
    source: hf('facebook/opt-2.7b'),
  },
  {
    id: 'facebook/opt-6.7b',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: true, dropout: 0.1, ffn_dim: 16384, hidden_size: 4096, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 32, num_hidden_layers: 32, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 4096,
    },
    source: hf('facebook/opt-6.7b'),
  },
  {
    id: 'facebook/opt-13b',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: true, dropout: 0.1, ffn_dim: 20480, hidden_size: 5120, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 40, num_hidden_layers: 40, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 5120,
    },
    source: hf('facebook/opt-13b'),
  },
  {
    id: 'facebook/opt-30b',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: true, dropout: 0.1, ffn_dim: 28672, hidden_size: 7168, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 56, num_hidden_layers: 48, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 7168,
    },
    source: hf('facebook/opt-30b'),
  },
  {
    id: 'facebook/opt-66b',
    config: {
      model_type: 'opt', architectures: ['OPTForCausalLM'], _remove_final_layer_norm: false, activation_dropout: 0, activation_function: 'relu',
      attention_dropout: 0, do_layer_norm_before: true, dropout: 0.1, ffn_dim: 36864, hidden_size: 9216, layerdrop: 0, max_position_embeddings: 2048,
      num_attention_heads: 72, num_hidden_layers: 64, torch_dtype: 'float16', vocab_size: 50272, word_embed_proj_dim: 9216,
    },
    source: hf('facebook/opt-66b'),
  },
  {
    // XLM-RoBERTa: RoBERTa layers over a 250,002-token vocabulary.
    id: 'FacebookAI/xlm-roberta-base',
    aliases: ['xlm-roberta-base'],
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-05, max_position_embeddings: 514,
      num_attention_heads: 12, num_hidden_layers: 12, type_vocab_size: 1, vocab_size: 250002,
    },
    publishedParams: 278_043_648,
    source: hf('FacebookAI/xlm-roberta-base'),
  },
  {
    id: 'FacebookAI/xlm-roberta-large',
    aliases: ['xlm-roberta-large'],
    config: {
      model_type: 'xlm-roberta', architectures: ['XLMRobertaForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-05, max_position_embeddings: 514,
      num_attention_heads: 16, num_hidden_layers: 24, type_vocab_size: 1, vocab_size: 250002,
    },
    publishedParams: 559_890_432,
    source: hf('FacebookAI/xlm-roberta-large'),
  },
  {
    id: 'FacebookAI/roberta-large-mnli',
    aliases: ['roberta-large-mnli'],
    baseModel: 'FacebookAI/roberta-large',
    config: {
      model_type: 'roberta', architectures: ['RobertaForSequenceClassification'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu',
      hidden_dropout_prob: 0.1, hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-05, max_position_embeddings: 514,
      num_attention_heads: 16, num_hidden_layers: 24, type_vocab_size: 1, vocab_size: 50265,
    },
    source: fineTune('FacebookAI/roberta-large-mnli', 'FacebookAI/roberta-large'),
  },
];
