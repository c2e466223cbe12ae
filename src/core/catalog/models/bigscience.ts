// Built-in catalog: BigScience: BLOOM (and BLOOMZ) and mT0. Pure data.

import { hf, type CatalogModel } from './types';

export const BLOOM: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // BLOOM (and BLOOMZ, fine-tuned from it): ALiBi attention, LayerNorms with biases, a fused query_key_value, a 4 x
  // hidden GELU MLP, a LayerNorm after the 250,880-token tied embedding. 12h² + 13h per layer; published totals.
  // ---------------------------------------------------------------------------------------------
  ...(
    [
      ['560m', 24, 16, 1024, 559_214_592],
      ['1b1', 24, 16, 1536, 1_065_314_304],
      ['1b7', 24, 16, 2048, 1_722_408_960],
      ['3b', 30, 32, 2560, 3_002_557_440],
      ['7b1', 30, 32, 4096, 7_069_016_064],
    ] as const
  ).map(([size, layers, heads, hidden, params]) => ({
    id: `bigscience/bloom-${size}`,
    // BLOOMZ's -mt (multilingual prompts) and -p3 (English P3 only) fine-tunes exist at 7b1 (BLOOMZ's model card).
    aliases: [
      `bigscience/bloomz-${size}`,
      ...(size === '7b1' ? ['bigscience/bloomz-7b1-mt', 'bigscience/bloomz-7b1-p3'] : []),
    ],
    config: {
      model_type: 'bloom',
      architectures: ['BloomForCausalLM'],
      n_layer: layers,
      n_head: heads,
      hidden_size: hidden,
      vocab_size: 250880,
      layer_norm_epsilon: 1e-5,
      hidden_dropout: 0.0,
      attention_dropout: 0.0,
      apply_residual_connection_post_layernorm: false,
    },
    publishedParams: params,
    source: hf(`bigscience/bloom-${size}`),
  })),
];

export const MT0: readonly CatalogModel[] = [
  {
    // mT5 XXL (and BigScience's mT0-XXL fine-tuned from it): T5 v1.1 XXL's shape (4096 wide, 64 heads of 64, a gated-GELU
    // feed-forward of 10,240, 24 + 24 layers) over a 250,112-token vocabulary, untied: 12,921,057,280 parameters.
    id: 'bigscience/mt0-xxl',
    aliases: ['google/mt5-xxl', 'bigscience/mt0-xxl-mt'],
    config: {
      model_type: 'mt5',
      architectures: ['MT5ForConditionalGeneration'],
      d_ff: 10240,
      d_kv: 64,
      d_model: 4096,
      dense_act_fn: 'gelu_new',
      feed_forward_proj: 'gated-gelu',
      is_gated_act: true,
      layer_norm_epsilon: 1e-6,
      num_decoder_layers: 24,
      num_heads: 64,
      num_layers: 24,
      relative_attention_num_buckets: 32,
      tie_word_embeddings: false,
      vocab_size: 250112,
    },
    source: hf('bigscience/mt0-xxl'),
  },
];

export const BLOOM_176B: readonly CatalogModel[] = [
  {
    // BLOOM 176B (BigScience 2022, Table 3): 70 layers at 14,336, 112 heads; BLOOMZ (-mt, -p3) is its multitask fine-tune.
    id: 'bigscience/bloom',
    aliases: ['bigscience/bloomz', 'bigscience/bloomz-mt', 'bigscience/bloomz-p3'],
    config: {
      model_type: 'bloom',
      architectures: ['BloomForCausalLM'],
      n_layer: 70,
      n_head: 112,
      hidden_size: 14336,
      vocab_size: 250880,
      layer_norm_epsilon: 1e-5,
      hidden_dropout: 0,
      attention_dropout: 0,
      apply_residual_connection_post_layernorm: false,
    },
    publishedParams: 176_247_271_424,
    source: hf('bigscience/bloom'),
  },
];
