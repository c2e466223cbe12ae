// Built-in catalog: Cohere: Aya 23, Aya Expanse and Command R (model_type cohere), Command R7B and Tiny Aya (cohere2).
// Pure data.

import { hf, type CatalogModel } from './types';

/** Fields the Aya and Command R config.json files share (CohereForCausalLM). */
const COHERE = {
  model_type: 'cohere',
  architectures: ['CohereForCausalLM'],
  attention_bias: false,
  hidden_act: 'silu',
  layer_norm_eps: 1e-5,
  max_position_embeddings: 8192,
  use_qk_norm: false,
  vocab_size: 256000,
};

/** The Aya models at 8B: Aya 23 and Aya Expanse share the block and differ in logit_scale. */
const AYA_8B = {
  ...COHERE,
  hidden_size: 4096,
  intermediate_size: 14336,
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  rope_theta: 10000,
};

export const COHERE_MODELS: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // Cohere (CohereForAI, renamed CohereLabs in 2025): one weight-only LayerNorm per block feeding attention and the
  // SwiGLU MLP side by side, a tied head, logits times logit_scale. Sizes checked against copies of the config.json
  // files (the AWQ upload kevinbazira/aya-expanse-8b-awq-4bit names the snapshot it was made from; the Aya 23 and
  // Aya Expanse 32B fine-tunes and quantizations keep the base's fields). Counts by hand in architecture.test.ts.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'CohereForAI/aya-expanse-8b',
    aliases: ['CohereLabs/aya-expanse-8b'],
    config: { ...AYA_8B, logit_scale: 0.125 },
    source: hf('CohereForAI/aya-expanse-8b'),
  },
  {
    id: 'CohereForAI/aya-23-8B',
    aliases: ['CohereLabs/aya-23-8B'],
    config: { ...AYA_8B, logit_scale: 0.0625 },
    source: hf('CohereForAI/aya-23-8B'),
  },
  {
    id: 'CohereForAI/aya-expanse-32b',
    aliases: ['CohereLabs/aya-expanse-32b'],
    config: {
      ...COHERE,
      hidden_size: 8192,
      intermediate_size: 24576,
      logit_scale: 0.0625,
      num_attention_heads: 64,
      num_hidden_layers: 40,
      num_key_value_heads: 8,
      rope_theta: 4000000,
    },
    source: hf('CohereForAI/aya-expanse-32b'),
  },
  {
    id: 'CohereForAI/c4ai-command-r-v01',
    aliases: ['CohereLabs/c4ai-command-r-v01'],
    config: {
      ...COHERE,
      hidden_size: 8192,
      intermediate_size: 22528,
      logit_scale: 0.0625,
      num_attention_heads: 64,
      num_hidden_layers: 40,
      num_key_value_heads: 64,
      rope_theta: 8000000,
      tie_word_embeddings: true,
    },
    source: hf('CohereForAI/c4ai-command-r-v01'),
  },
  // Command R7B (Cohere2ForCausalLM): Aya Expanse 8B's sizes with three sliding-window layers to one full-attention
  // layer (sliding_window_pattern 4), logit_scale 0.25; fields as the huihui-ai/c4ai-command-r7b-12-2024-abliterated
  // copy of its config.json gives them.
  {
    id: 'CohereForAI/c4ai-command-r7b-12-2024',
    aliases: ['CohereLabs/c4ai-command-r7b-12-2024'],
    config: {
      ...AYA_8B,
      model_type: 'cohere2',
      architectures: ['Cohere2ForCausalLM'],
      head_dim: 128,
      logit_scale: 0.25,
      rope_theta: 50000,
      sliding_window: 4096,
      sliding_window_pattern: 4,
    },
    source: hf('CohereForAI/c4ai-command-r7b-12-2024'),
  },
  // Tiny Aya (February 2026; Cohere2ForCausalLM): 36 layers, three sliding-window layers (RoPE) then one
  // full-attention layer (no positions), a 262,144-token tied vocabulary, logit_scale 1.0. The regional variants have
  // the same config.json. Fields and the count as rasbt/LLMs-from-scratch ch05/15_tiny-aya/standalone-tiny-aya.ipynb
  // (@50be268) reads them from the checkpoint: 3,349,227,520 parameters.
  {
    id: 'CohereLabs/tiny-aya-global',
    aliases: ['CohereLabs/tiny-aya-earth', 'CohereLabs/tiny-aya-fire', 'CohereLabs/tiny-aya-water'],
    config: {
      model_type: 'cohere2',
      architectures: ['Cohere2ForCausalLM'],
      attention_bias: false,
      head_dim: 128,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 11008,
      layer_norm_eps: 1e-5,
      layer_types: Array.from({ length: 36 }, (_, i) => (i % 4 === 3 ? 'full_attention' : 'sliding_attention')),
      logit_scale: 1.0,
      num_attention_heads: 16,
      num_hidden_layers: 36,
      num_key_value_heads: 4,
      rope_theta: 50000,
      sliding_window: 4096,
      tie_word_embeddings: true,
      vocab_size: 262144,
    },
    publishedParams: 3349227520,
    source: hf('CohereLabs/tiny-aya-global'),
  },
];
