// Built-in catalog: H2O.ai's H2O-Danube (Mistral's architecture). Pure data.

import { hf, type CatalogModel } from './types';

/** Fields the H2O-Danube 1.8B config.json files share (MistralForCausalLM). */
const DANUBE_1_8B = {
  model_type: 'mistral',
  architectures: ['MistralForCausalLM'],
  hidden_act: 'silu',
  hidden_size: 2560,
  intermediate_size: 6912,
  num_attention_heads: 32,
  num_hidden_layers: 24,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-5,
  rope_theta: 10000,
  tie_word_embeddings: false,
  vocab_size: 32000,
};

export const H2O_DANUBE: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // H2O-Danube 1.8B (h2oai): Mistral's layers at 2560 wide; the first generation with a 4096-token sliding window over
  // 16,384 positions, Danube2 without a window over 8,192. Sizes checked against the config.json of h2oai's
  // h2o-danube-1.8b-chat and h2o-danube2-1.8b-chat and of fine-tunes that name h2o-danube2-1.8b-base.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'h2oai/h2o-danube2-1.8b-base',
    aliases: ['h2oai/h2o-danube2-1.8b-chat', 'h2oai/h2o-danube2-1.8b-sft'],
    config: { ...DANUBE_1_8B, max_position_embeddings: 8192, sliding_window: null },
    source: hf('h2oai/h2o-danube2-1.8b-base'),
  },
  {
    id: 'h2oai/h2o-danube-1.8b-base',
    aliases: ['h2oai/h2o-danube-1.8b-chat', 'h2oai/h2o-danube-1.8b-sft'],
    config: { ...DANUBE_1_8B, max_position_embeddings: 16384, sliding_window: 4096 },
    source: hf('h2oai/h2o-danube-1.8b-base'),
  },
];
