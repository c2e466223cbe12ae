// Built-in catalog: Facebook AI: RoBERTa. Pure data.

import { hf, type CatalogModel } from './types';

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
