// Built-in catalog: Google encoders and encoder-decoders: BERT, T5, FLAN-T5. Pure data.

import { hf, type CatalogModel } from './types';

export const BERT: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // For BERT and RoBERTa, publishedParams is the bare encoder including the pooler.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'google-bert/bert-base-uncased',
    aliases: ['bert-base-uncased'],
    config: {
      model_type: 'bert',
      architectures: ['BertForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 768,
      intermediate_size: 3072,
      layer_norm_eps: 1e-12,
      max_position_embeddings: 512,
      num_attention_heads: 12,
      num_hidden_layers: 12,
      type_vocab_size: 2,
      vocab_size: 30522,
    },
    publishedParams: 109_482_240,
    source: hf('google-bert/bert-base-uncased'),
  },
  {
    id: 'google-bert/bert-large-uncased',
    aliases: ['bert-large-uncased'],
    config: {
      model_type: 'bert',
      architectures: ['BertForMaskedLM'],
      hidden_act: 'gelu',
      hidden_size: 1024,
      intermediate_size: 4096,
      layer_norm_eps: 1e-12,
      max_position_embeddings: 512,
      num_attention_heads: 16,
      num_hidden_layers: 24,
      type_vocab_size: 2,
      vocab_size: 30522,
    },
    publishedParams: 335_141_888,
    source: hf('google-bert/bert-large-uncased'),
  },
];

export const T5: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // The original T5 checkpoints omit feed_forward_proj, num_decoder_layers and tie_word_embeddings,
  // so they are ReLU, symmetric and tied, whereas flan-t5 is gated-gelu and untied.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'google-t5/t5-small',
    aliases: ['t5-small'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 2048,
      d_kv: 64,
      d_model: 512,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_heads: 8,
      num_layers: 6,
      relative_attention_num_buckets: 32,
      vocab_size: 32128,
    },
    publishedParams: 60_506_624,
    source: hf('google-t5/t5-small'),
  },
  {
    id: 'google-t5/t5-base',
    aliases: ['t5-base'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 3072,
      d_kv: 64,
      d_model: 768,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_heads: 12,
      num_layers: 12,
      relative_attention_num_buckets: 32,
      vocab_size: 32128,
    },
    publishedParams: 222_903_552,
    source: hf('google-t5/t5-base'),
  },
  {
    id: 'google-t5/t5-large',
    aliases: ['t5-large'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 4096,
      d_kv: 64,
      d_model: 1024,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_heads: 16,
      num_layers: 24,
      relative_attention_num_buckets: 32,
      vocab_size: 32128,
    },
    publishedParams: 737_668_096,
    source: hf('google-t5/t5-large'),
  },
];

export const FLAN_T5: readonly CatalogModel[] = [
  {
    // T5 v1.1 XL: FLAN-T5-XL, the LM-adapted checkpoint and BigScience's T0 3B (fine-tuned from it) share the config.
    id: 'google/flan-t5-xl',
    aliases: ['google/t5-v1_1-xl', 'google/t5-xl-lm-adapt', 'bigscience/T0_3B'],
    config: {
      model_type: 't5',
      architectures: ['T5ForConditionalGeneration'],
      d_ff: 5120,
      d_kv: 64,
      d_model: 2048,
      dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu',
      is_gated_act: true,
      layer_norm_epsilon: 1e-6,
      n_positions: 512,
      num_decoder_layers: 24,
      num_heads: 32,
      num_layers: 24,
      relative_attention_num_buckets: 32,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 32128,
    },
    publishedParams: 2_849_757_184,
    source: hf('google/flan-t5-xl'),
  },
];
