// The linear modules of an image-text checkpoint's vision tower and projector, by the names PEFT's target list matches
// (a module whose full name ends with "." + the entry). The language model's own names come from linearModules; these
// are the names only the tower and the projector have, so that a LoRA target naming one of them is said to adapt the
// tower rather than to name no module. Pure.
import type { HfConfig } from '../setup';
import { imageTextLayout } from './parse';
import type { ImageText } from './vision';

/** CLIP's and SigLIP's encoder layer (modeling_clip.py CLIPAttention, CLIPMLP; modeling_siglip.py): q/k/v/out_proj, fc1/fc2. */
const VIT = ['q_proj', 'k_proj', 'v_proj', 'out_proj', 'fc1', 'fc2'];

/**
 * The tower's and projector's linear modules, by layout, from transformers 5.17's modeling files: Qwen2-VL's blocks
 * `attn.qkv`, `attn.proj`, `mlp.fc1`, `mlp.fc2` and its merger's `mlp.0`, `mlp.2` (a Sequential); Qwen2.5-VL's blocks
 * with a SwiGLU `mlp.gate_proj / up_proj / down_proj`; Qwen3-VL's and Qwen3.5's `mlp.linear_fc1 / linear_fc2` and the
 * mergers' `linear_fc1 / linear_fc2`; LLaVA's CLIP and `multi_modal_projector.linear_1 / linear_2`; PaliGemma's SigLIP
 * and `multi_modal_projector.linear`; Gemma 3's SigLIP (its projector a bare parameter); Idefics3's SigLIP-style layers
 * and `connector.modality_projection.proj`; InternVL's remote code `attn.qkv`, `attn.proj`, `mlp.fc1 / fc2` and
 * `mlp1.1 / mlp1.3`, transformers' own `attention.q_proj / k_proj / v_proj / projection_layer` and the projector's
 * `linear_1 / linear_2`; Llama 3.2 Vision's `q/k/v/o_proj`, `fc1 / fc2` and `multi_modal_projector`; Llama 4's
 * `q/k/v/o_proj`, `fc1 / fc2`, the patch embedding's `linear` and `multi_modal_projector.linear_1`; Pixtral's
 * `q/k/v/o_proj`, a SwiGLU `feed_forward`, and Mistral 3's `patch_merger.merging_layer`, `linear_1 / linear_2`.
 */
function namesOf(layout: ImageText, modelType: string): readonly string[] {
  switch (layout) {
    case 'qwen-vl':
      if (modelType === 'qwen2_vl') return ['qkv', 'proj', 'fc1', 'fc2', 'mlp.0', 'mlp.2'];
      if (modelType === 'qwen2_5_vl') return ['qkv', 'proj', 'gate_proj', 'up_proj', 'down_proj', 'mlp.0', 'mlp.2'];
      return ['qkv', 'proj', 'linear_fc1', 'linear_fc2'];
    case 'qwen3.5':
      return ['qkv', 'proj', 'linear_fc1', 'linear_fc2'];
    case 'qwen1-vl':
      // visual.py: the blocks' attn.in_proj / out_proj and mlp.c_fc (c_proj is the language model's name too), the
      // resampler's kv_proj.
      return ['in_proj', 'out_proj', 'c_fc', 'kv_proj'];
    case 'llava':
      return [...VIT, 'linear_1', 'linear_2'];
    case 'paligemma':
      return [...VIT, 'linear'];
    case 'gemma3':
      return VIT;
    case 'idefics3':
      return [...VIT, 'modality_projection.proj'];
    case 'internvl':
      return modelType === 'internvl_chat'
        ? ['qkv', 'proj', 'fc1', 'fc2', 'mlp1.1', 'mlp1.3']
        : ['q_proj', 'k_proj', 'v_proj', 'projection_layer', 'fc1', 'fc2', 'linear_1', 'linear_2'];
    case 'mllama':
      return ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'fc1', 'fc2', 'multi_modal_projector'];
    case 'llama4-or-mistral3':
      return modelType === 'llama4'
        ? ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'fc1', 'fc2', 'linear', 'linear_1']
        : [
            'q_proj',
            'k_proj',
            'v_proj',
            'o_proj',
            'gate_proj',
            'up_proj',
            'down_proj',
            'merging_layer',
            'linear_1',
            'linear_2',
          ];
  }
}

/**
 * The names of the linear modules of the config's vision tower and projector (empty for a text-only config): the
 * entries a PEFT target list can name there, each as the last parts of a module's full name.
 */
export function visionLinearNames(config: HfConfig): readonly string[] {
  const modelType = typeof config.model_type === 'string' ? config.model_type : undefined;
  const layout = imageTextLayout(config, modelType);
  return layout && modelType ? namesOf(layout, modelType) : [];
}
