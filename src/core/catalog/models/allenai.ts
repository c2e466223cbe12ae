// Built-in catalog: Allen AI: OLMo, OLMo 2, OLMoE and the Tulu 2 / Tulu 3 fine-tunes of Llama. Pure data.

import { checked, hf, type CatalogModel } from './types';

/** Fields the OLMo 2 config.json files share. */
const OLMO2 = {
  model_type: 'olmo2',
  architectures: ['Olmo2ForCausalLM'],
  attention_bias: false,
  hidden_act: 'silu',
  max_position_embeddings: 4096,
  rms_norm_eps: 1e-6,
  rope_theta: 500000,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 100352,
};

export const OLMO_2: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // OLMo 2 (allenai): norms after attention and MLP, q/k norms over the whole projections, 100,352-token vocabulary.
  // Counts by hand in architecture.test.ts.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'allenai/OLMo-2-0425-1B',
    aliases: ['allenai/OLMo-2-0425-1B-Instruct'],
    config: {
      ...OLMO2,
      hidden_size: 2048,
      intermediate_size: 8192,
      num_attention_heads: 16,
      num_hidden_layers: 16,
      num_key_value_heads: 16,
    },
    source: hf('allenai/OLMo-2-0425-1B'),
  },
  {
    id: 'allenai/OLMo-2-1124-7B',
    aliases: ['allenai/OLMo-2-1124-7B-Instruct', 'allenai/OLMo-2-1124-7B-SFT', 'allenai/OLMo-2-1124-7B-DPO'],
    config: {
      ...OLMO2,
      hidden_size: 4096,
      intermediate_size: 11008,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
    },
    source: hf('allenai/OLMo-2-1124-7B'),
  },
  {
    id: 'allenai/OLMo-2-1124-13B',
    // The SFT and DPO stages before the Instruct model (open-instruct README's table), as for the 7B.
    aliases: ['allenai/OLMo-2-1124-13B-Instruct', 'allenai/OLMo-2-1124-13B-SFT', 'allenai/OLMo-2-1124-13B-DPO'],
    config: {
      ...OLMO2,
      hidden_size: 5120,
      intermediate_size: 13824,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 40,
    },
    source: hf('allenai/OLMo-2-1124-13B'),
  },
  {
    id: 'allenai/OLMo-2-0325-32B',
    aliases: ['allenai/OLMo-2-0325-32B-Instruct'],
    config: {
      ...OLMO2,
      hidden_size: 5120,
      intermediate_size: 27648,
      num_attention_heads: 40,
      num_hidden_layers: 64,
      num_key_value_heads: 8,
      head_dim: 128,
    },
    source: hf('allenai/OLMo-2-0325-32B'),
  },
];

export const OLMO_1: readonly CatalogModel[] = [
  {
    // OLMo (1): Llama layers whose LayerNorms have no weights; the 1B ties its embeddings.
    id: 'allenai/OLMo-1B-hf',
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 8192,
      max_position_embeddings: 2048,
      num_attention_heads: 16,
      num_hidden_layers: 16,
      num_key_value_heads: 16,
      tie_word_embeddings: true,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: checked('allenai/OLMo-1B-hf', 'litgpt'),
  },
  {
    id: 'allenai/OLMo-7B-hf',
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: checked('allenai/OLMo-7B-hf', 'litgpt'),
  },
  {
    id: 'allenai/OLMo-7B-Instruct-hf',
    baseModel: 'allenai/OLMo-7B-hf',
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: checked('allenai/OLMo-7B-Instruct-hf', 'litgpt'),
  },
  {
    // OLMo 1.7 (0424, 0724): 4,096 positions, q/k/v clipped at 8.
    id: 'allenai/OLMo-7B-0424-hf',
    aliases: ['allenai/OLMo-7B-0724-hf'],
    config: {
      model_type: 'olmo',
      architectures: ['OlmoForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 11008,
      max_position_embeddings: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      clip_qkv: 8,
      tie_word_embeddings: false,
      torch_dtype: 'float32',
      vocab_size: 50304,
    },
    source: hf('allenai/OLMo-7B-0424-hf'),
  },
];

/** Fields the Tulu 2 config.json files share (Llama 2 layers; Tulu 2 trains with 8,192 positions). */
const TULU2 = {
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  hidden_act: 'silu',
  max_position_embeddings: 8192,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  vocab_size: 32000,
};

export const TULU: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // Tulu 2 (open-instruct): Llama 2 fine-tuned on the Tulu v2 mixture (SFT), and the DPO models trained from those
  // (their model cards). The DPO checkpoints keep the SFT model's architecture fields, as configs copied from them
  // show (e.g. _name_or_path allenai/tulu-2-dpo-7b in
  // https://huggingface.co/Technoculture/Medtulu-2x7b/blob/74cee968a3ecfdfe0a069cb55784932783ec95d3/config.json).
  // ---------------------------------------------------------------------------------------------
  {
    id: 'allenai/tulu-2-7b',
    aliases: ['allenai/tulu-2-dpo-7b'],
    baseModel: 'meta-llama/Llama-2-7b-hf',
    config: {
      ...TULU2,
      hidden_size: 4096,
      intermediate_size: 11008,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 32,
      rms_norm_eps: 1e-6,
      rope_theta: 10000,
    },
    source: 'https://huggingface.co/allenai/tulu-2-7b/blob/b6355c59be95aadfdaca742a6f6b31b4174dfdfb/config.json',
  },
  {
    id: 'allenai/tulu-2-13b',
    aliases: ['allenai/tulu-2-dpo-13b'],
    baseModel: 'meta-llama/Llama-2-13b-hf',
    config: {
      ...TULU2,
      hidden_size: 5120,
      intermediate_size: 13824,
      num_attention_heads: 40,
      num_hidden_layers: 40,
      num_key_value_heads: 40,
      rms_norm_eps: 1e-6,
    },
    source: 'https://huggingface.co/allenai/tulu-2-13b/blob/e06acc863f02971e2410152134744a1a7eb064c7/config.json',
  },
  {
    id: 'allenai/tulu-2-70b',
    aliases: ['allenai/tulu-2-dpo-70b'],
    baseModel: 'meta-llama/Llama-2-70b-hf',
    config: {
      ...TULU2,
      hidden_size: 8192,
      intermediate_size: 28672,
      num_attention_heads: 64,
      num_hidden_layers: 80,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
    },
    source: 'https://huggingface.co/allenai/tulu-2-70b/blob/36935b4e32594fdeb71dd99a7a7e4056b8fa82de/config.json',
  },
  {
    // Tulu 2's recipe on Llama 3 8B. Its config.json as the checkpoints trained from it copy it (_name_or_path
    // allenai/llama-3-tulu-2-8b): 8,129 positions (sic) and no rope_scaling.
    id: 'allenai/llama-3-tulu-2-8b',
    baseModel: 'meta-llama/Meta-Llama-3-8B',
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 8129,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-6,
      rope_theta: 500000,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128256,
    },
    source:
      'https://huggingface.co/vwxyzjn/online_dpo_tulu_2/blob/064d21a4f79eab425a0bfd54453511c58a791389/config.json (an online-DPO checkpoint of allenai/llama-3-tulu-2-8b with its fields)',
  },
  {
    // Tulu 3 8B: Llama 3.1 8B with 8 tokens added (128,264). The SFT, DPO and final (RLVR) checkpoints are stages of
    // one run, each trained from the one before with its tokenizer (open-instruct docs/tulu3.md: the DPO command starts
    // from allenai/Llama-3.1-Tulu-3-8B-SFT, the RLVR one from allenai/Llama-3.1-Tulu-3-8B-DPO), so they share these
    // fields.
    id: 'allenai/Llama-3.1-Tulu-3-8B',
    aliases: ['allenai/Llama-3.1-Tulu-3-8B-SFT', 'allenai/Llama-3.1-Tulu-3-8B-DPO'],
    baseModel: 'meta-llama/Llama-3.1-8B',
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 4096,
      intermediate_size: 14336,
      max_position_embeddings: 131072,
      mlp_bias: false,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      rms_norm_eps: 1e-5,
      rope_scaling: {
        factor: 8,
        high_freq_factor: 4,
        low_freq_factor: 1,
        original_max_position_embeddings: 8192,
        rope_type: 'llama3',
      },
      rope_theta: 500000,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 128264,
    },
    source: hf('allenai/Llama-3.1-Tulu-3-8B'),
  },
];

export const OLMOE: readonly CatalogModel[] = [
  {
    // OLMoE-1B-7B (September 2024): 16 layers of 2048 with 16 heads, q/k norms over the whole projections, 64 SwiGLU
    // experts of 1024 per layer, 8 of them per token (norm_topk_prob false), an untied 50,304-token vocabulary: 6.92B
    // parameters, 1.3B active. The SFT and Instruct checkpoints keep the architecture. Counted by hand in
    // architecture.test.ts.
    id: 'allenai/OLMoE-1B-7B-0924',
    aliases: ['allenai/OLMoE-1B-7B-0924-SFT', 'allenai/OLMoE-1B-7B-0924-Instruct'],
    config: {
      model_type: 'olmoe',
      architectures: ['OlmoeForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 1024,
      max_position_embeddings: 4096,
      num_attention_heads: 16,
      num_experts: 64,
      num_experts_per_tok: 8,
      num_hidden_layers: 16,
      num_key_value_heads: 16,
      norm_topk_prob: false,
      rms_norm_eps: 1e-5,
      rope_theta: 10000,
      tie_word_embeddings: false,
      vocab_size: 50304,
    },
    source: hf('allenai/OLMoE-1B-7B-0924'),
  },
];
