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

export const BERT_T5_MT5: readonly CatalogModel[] = [
  {
    id: 'google-bert/bert-base-cased',
    aliases: ['bert-base-cased'],
    config: {
      model_type: 'bert', architectures: ['BertForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 28996,
    },
    publishedParams: 108_310_272,
    source: hf('google-bert/bert-base-cased'),
  },
  {
    id: 'google-bert/bert-large-cased',
    aliases: ['bert-large-cased'],
    config: {
      model_type: 'bert', architectures: ['BertForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 1024, intermediate_size: 4096, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 16,
      num_hidden_layers: 24, type_vocab_size: 2, vocab_size: 28996,
    },
    publishedParams: 333_579_264,
    source: hf('google-bert/bert-large-cased'),
  },
  {
    id: 'google-bert/bert-base-multilingual-cased',
    aliases: ['bert-base-multilingual-cased'],
    config: {
      model_type: 'bert', architectures: ['BertForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 119547,
    },
    publishedParams: 177_853_440,
    source: hf('google-bert/bert-base-multilingual-cased'),
  },
  {
    id: 'google-bert/bert-base-multilingual-uncased',
    aliases: ['bert-base-multilingual-uncased'],
    config: {
      model_type: 'bert', architectures: ['BertForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 105879,
    },
    source: hf('google-bert/bert-base-multilingual-uncased'),
  },
  {
    id: 'google-bert/bert-base-chinese',
    aliases: ['bert-base-chinese'],
    config: {
      model_type: 'bert', architectures: ['BertForMaskedLM'], attention_probs_dropout_prob: 0.1, hidden_act: 'gelu', hidden_dropout_prob: 0.1,
      hidden_size: 768, intermediate_size: 3072, layer_norm_eps: 1e-12, max_position_embeddings: 512, num_attention_heads: 12, num_hidden_layers: 12,
      type_vocab_size: 2, vocab_size: 21128,
    },
    source: hf('google-bert/bert-base-chinese'),
  },
  {
    // T5 1.0 3B and 11B: 128-wide heads, ReLU feed-forward, tied embeddings.
    id: 'google-t5/t5-3b',
    aliases: ['t5-3b'],
    config: {
      model_type: 't5', architectures: ['T5ForConditionalGeneration'], d_ff: 16384, d_kv: 128, d_model: 1024, layer_norm_epsilon: 1e-06,
      n_positions: 512, num_heads: 32, num_layers: 24, relative_attention_num_buckets: 32, vocab_size: 32128,
    },
    publishedParams: 2_851_598_336,
    source: hf('google-t5/t5-3b'),
  },
  {
    id: 'google-t5/t5-11b',
    aliases: ['t5-11b'],
    config: {
      model_type: 't5', architectures: ['T5ForConditionalGeneration'], d_ff: 65536, d_kv: 128, d_model: 1024, layer_norm_epsilon: 1e-06,
      n_positions: 512, num_heads: 128, num_layers: 24, relative_attention_num_buckets: 32, vocab_size: 32128,
    },
    publishedParams: 11_307_321_344,
    source: hf('google-t5/t5-11b'),
  },
  {
    // T5 v1.1 layout (FLAN-T5, the v1.1 and LM-adapted checkpoints): gated-GELU feed-forward, untied embeddings.
    id: 'google/flan-t5-small',
    aliases: ['google/t5-v1_1-small', 'google/t5-small-lm-adapt'],
    config: {
      model_type: 't5', architectures: ['T5ForConditionalGeneration'], d_ff: 1024, d_kv: 64, d_model: 512, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 8, num_heads: 6,
      num_layers: 8, relative_attention_num_buckets: 32, tie_word_embeddings: false, torch_dtype: 'float32', vocab_size: 32128,
    },
    publishedParams: 76_961_152,
    source: hf('google/flan-t5-small'),
  },
  {
    id: 'google/flan-t5-base',
    aliases: ['google/t5-v1_1-base', 'google/t5-base-lm-adapt'],
    config: {
      model_type: 't5', architectures: ['T5ForConditionalGeneration'], d_ff: 2048, d_kv: 64, d_model: 768, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 12, num_heads: 12,
      num_layers: 12, relative_attention_num_buckets: 32, tie_word_embeddings: false, torch_dtype: 'float32', vocab_size: 32128,
    },
    publishedParams: 247_577_856,
    source: hf('google/flan-t5-base'),
  },
  {
    id: 'google/flan-t5-large',
    aliases: ['google/t5-v1_1-large', 'google/t5-large-lm-adapt'],
    config: {
      model_type: 't5', architectures: ['T5ForConditionalGeneration'], d_ff: 2816, d_kv: 64, d_model: 1024, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 24, num_heads: 16,
      num_layers: 24, relative_attention_num_buckets: 32, tie_word_embeddings: false, torch_dtype: 'float32', vocab_size: 32128,
    },
    publishedParams: 783_150_080,
    source: hf('google/flan-t5-large'),
  },
  {
    id: 'google/flan-t5-xxl',
    aliases: ['google/t5-v1_1-xxl', 'google/t5-xxl-lm-adapt', 'bigscience/T0pp'],
    config: {
      model_type: 't5', architectures: ['T5ForConditionalGeneration'], d_ff: 10240, d_kv: 64, d_model: 4096, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 24, num_heads: 64,
      num_layers: 24, relative_attention_num_buckets: 32, tie_word_embeddings: false, torch_dtype: 'float32', vocab_size: 32128,
    },
    publishedParams: 11_135_332_352,
    source: hf('google/flan-t5-xxl'),
  },
  {
    // mT5 (and BigScience mT0, fine-tuned from it): T5 v1.1 shapes over a 250,112-token vocabulary.
    id: 'google/mt5-small',
    aliases: ['bigscience/mt0-small'],
    config: {
      model_type: 'mt5', architectures: ['MT5ForConditionalGeneration'], d_ff: 1024, d_kv: 64, d_model: 512, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 8, num_heads: 6,
      num_layers: 8, relative_attention_num_buckets: 32, tie_word_embeddings: false, vocab_size: 250112,
    },
    publishedParams: 300_176_768,
    source: hf('google/mt5-small'),
  },
  {
    id: 'google/mt5-base',
    aliases: ['bigscience/mt0-base'],
    config: {
      model_type: 'mt5', architectures: ['MT5ForConditionalGeneration'], d_ff: 2048, d_kv: 64, d_model: 768, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 12, num_heads: 12,
      num_layers: 12, relative_attention_num_buckets: 32, tie_word_embeddings: false, vocab_size: 250112,
    },
    publishedParams: 582_401_280,
    source: hf('google/mt5-base'),
  },
  {
    id: 'google/mt5-large',
    aliases: ['bigscience/mt0-large'],
    config: {
      model_type: 'mt5', architectures: ['MT5ForConditionalGeneration'], d_ff: 2816, d_kv: 64, d_model: 1024, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 24, num_heads: 16,
      num_layers: 24, relative_attention_num_buckets: 32, tie_word_embeddings: false, vocab_size: 250112,
    },
    source: hf('google/mt5-large'),
  },
  {
    id: 'google/mt5-xl',
    aliases: ['bigscience/mt0-xl'],
    config: {
      model_type: 'mt5', architectures: ['MT5ForConditionalGeneration'], d_ff: 5120, d_kv: 64, d_model: 2048, dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu', is_gated_act: true, layer_norm_epsilon: 1e-06, n_positions: 512, num_decoder_layers: 24, num_heads: 32,
      num_layers: 24, relative_attention_num_buckets: 32, tie_word_embeddings: false, vocab_size: 250112,
    },
    source: hf('google/mt5-xl'),
  },
  {
    // UL2 20B (and FLAN-UL2): a T5 v1.1-style encoder-decoder, 32 + 32 layers at 4,096, 16 heads of 256, gated-SiLU
    // feed-forward.
    id: 'google/flan-ul2',
    aliases: ['google/ul2'],
    config: {
      model_type: 't5', architectures: ['T5ForConditionalGeneration'], d_ff: 16384, d_kv: 256, d_model: 4096, layer_norm_epsilon: 1e-06,
      n_positions: 512, num_decoder_layers: 32, num_heads: 16, num_layers: 32, relative_attention_num_buckets: 32, tie_word_embeddings: false,
      vocab_size: 32128, feed_forward_proj: 'gated-silu',
    },
    source: hf('google/flan-ul2'),
  },
];
