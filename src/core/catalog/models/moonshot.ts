// Built-in catalog: Moonshot AI: Moonlight (a DeepSeek-V3 checkpoint) and Kimi Linear. Pure data.

import { DEEPSEEK_16B_MLA } from './deepseek';
import { hf, type CatalogModel } from './types';

export const MOONLIGHT: readonly CatalogModel[] = [
  {
    // The DeepSeek-V3 architecture at DeepSeek-V2-Lite's size, with a 163,840-token vocabulary and an 11,264-wide
    // dense first layer.
    id: 'moonshotai/Moonlight-16B-A3B',
    aliases: ['moonshotai/Moonlight-16B-A3B-Instruct'],
    config: {
      ...DEEPSEEK_16B_MLA,
      model_type: 'deepseek_v3',
      architectures: ['DeepseekV3ForCausalLM'],
      intermediate_size: 11264,
      max_position_embeddings: 8192,
      rms_norm_eps: 1e-5,
      vocab_size: 163840,
    },
    source: hf('moonshotai/Moonlight-16B-A3B'),
  },
];

export const KIMI_LINEAR: readonly CatalogModel[] = [
  // ---------------------------------------------------------------------------------------------
  // Moonshot Kimi Linear (kimi_linear): 20 Kimi Delta Attention layers and 7 MLA layers without rotary embedding, a dense
  // first layer, then 256 routed experts (top 8) and one shared expert per layer (architecture.test.ts works the count out).
  // ---------------------------------------------------------------------------------------------
  {
    // 49,122,681,728 by hand, as the checkpoint's model.safetensors.index.json states (total_parameters).
    id: 'moonshotai/Kimi-Linear-48B-A3B-Instruct',
    aliases: ['moonshotai/Kimi-Linear-48B-A3B-Base'],
    config: {
      model_type: 'kimi_linear',
      architectures: ['KimiLinearForCausalLM'],
      first_k_dense_replace: 1,
      hidden_act: 'silu',
      hidden_size: 2304,
      intermediate_size: 9216,
      kv_lora_rank: 512,
      linear_attn_config: {
        full_attn_layers: [4, 8, 12, 16, 20, 24, 27],
        head_dim: 128,
        kda_layers: [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26],
        num_heads: 32,
        short_conv_kernel_size: 4,
      },
      mla_use_nope: true,
      model_max_length: 1048576,
      moe_intermediate_size: 1024,
      moe_layer_freq: 1,
      moe_renormalize: true,
      moe_router_activation_func: 'sigmoid',
      num_attention_heads: 32,
      num_expert_group: 1,
      num_experts: 256,
      num_experts_per_token: 8,
      num_hidden_layers: 27,
      num_key_value_heads: 32,
      num_shared_experts: 1,
      q_lora_rank: null,
      qk_nope_head_dim: 128,
      qk_rope_head_dim: 64,
      rms_norm_eps: 1e-5,
      routed_scaling_factor: 2.446,
      tie_word_embeddings: false,
      topk_group: 1,
      v_head_dim: 128,
      vocab_size: 163840,
      dtype: 'bfloat16',
    },
    publishedParams: 49_122_681_728,
    source: hf('moonshotai/Kimi-Linear-48B-A3B-Instruct'),
  },
];
