// Built-in catalog: OpenBMB MiniCPM. Pure data.

import { hf, type CatalogModel } from './types';

export const MINICPM: readonly CatalogModel[] = [
  {
    // MiniCPM-2B (remote code modeling_minicpm.py): 40 Llama layers, 36 heads, a 122,753-token vocabulary tied to the
    // head (MiniCPMConfig's default: the config.json has no tie_word_embeddings), µP multipliers. The config.json's
    // fields as a copy of the checkpoint shows them (datawhalechina/llms-from-scratch-cn@2337d6e7
    // Model_Architecture_Discussions/MiniCPM/config.json); model_type and architectures as transformers' MiniCPM4
    // tests write an older MiniCPM config (tests/models/minicpm4, test_older_minicpm_config_is_not_routed_to_minicpm4).
    id: 'openbmb/MiniCPM-2B-sft-bf16',
    aliases: ['openbmb/MiniCPM-2B-dpo-bf16', 'OpenBMB/miniCPM-bf16'],
    config: {
      model_type: 'minicpm',
      architectures: ['MiniCPMForCausalLM'],
      hidden_act: 'silu',
      hidden_size: 2304,
      intermediate_size: 5760,
      max_position_embeddings: 2048,
      num_attention_heads: 36,
      num_hidden_layers: 40,
      num_key_value_heads: 36,
      rms_norm_eps: 1e-5,
      rope_scaling: null,
      torch_dtype: 'bfloat16',
      vocab_size: 122753,
      scale_emb: 12,
      dim_model_base: 256,
      scale_depth: 1.4,
    },
    source: hf('openbmb/MiniCPM-2B-sft-bf16'),
  },
];
