// Built-in catalog: Shanghai AI Laboratory's OpenGVLab: InternVL. Pure data.

import { hf, type CatalogModel } from './types';

/**
 * InternVL3-8B as its remote code builds it (`internvl_chat`: InternVLChatModel, which ms-swift and InternVL's own
 * fine-tuning scripts load): InternViT-300M (24 layers, width 1,024, biased q/k/v, LayerNorm, no q/k norm, layer
 * scales) beside Qwen2.5-7B's layers (28 layers, 28 query and 4 key-value heads, a 151,674-token vocabulary, an untied
 * head as Qwen2.5-7B's), the pixel-shuffled tower (downsample_ratio 0.5) projected by a two-layer MLP. Its config.json
 * could not be read whole here; the values are those of the transformers-native conversion of the same weights,
 * OpenGVLab/InternVL3-8B-hf (its config.json, which leaves the text model's tie_word_embeddings at Qwen2Config's
 * default, false), written under the remote code's keys (llm_config, qkv_bias for attention_bias, qk_normalization
 * for use_qk_norm). 7,944,373,760 parameters: transformers 5.17's build of the -hf config on the meta device
 * (7,400,774,144 with the head tied, as InternVLConfig's top-level default ties it there) and the untied head's
 * 151,674 x 3,584.
 */
export const INTERNVL3: readonly CatalogModel[] = [
  {
    id: 'OpenGVLab/InternVL3-8B',
    config: {
      model_type: 'internvl_chat',
      architectures: ['InternVLChatModel'],
      downsample_ratio: 0.5,
      llm_config: {
        model_type: 'qwen2',
        architectures: ['Qwen2ForCausalLM'],
        hidden_act: 'silu',
        hidden_size: 3584,
        intermediate_size: 18944,
        max_position_embeddings: 32768,
        num_attention_heads: 28,
        num_hidden_layers: 28,
        num_key_value_heads: 4,
        rms_norm_eps: 1e-6,
        rope_theta: 1000000,
        tie_word_embeddings: false,
        vocab_size: 151674,
      },
      vision_config: {
        model_type: 'intern_vit_6b',
        hidden_act: 'gelu',
        hidden_size: 1024,
        image_size: 448,
        intermediate_size: 4096,
        layer_norm_eps: 1e-6,
        norm_type: 'layer_norm',
        num_attention_heads: 16,
        num_channels: 3,
        num_hidden_layers: 24,
        patch_size: 14,
        qk_normalization: false,
        qkv_bias: true,
      },
      torch_dtype: 'bfloat16',
    },
    publishedParams: 7_944_373_760,
    source: hf('OpenGVLab/InternVL3-8B-hf'),
  },
];
