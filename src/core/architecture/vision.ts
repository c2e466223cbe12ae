// Vision towers and projectors loaded beside a language model (Gemma 3's SigLIP, Qwen2-VL / 2.5-VL / 3-VL / 3.5,
// Llama 4, Pixtral under Mistral 3, LLaVA 1.5's CLIP, PaliGemma's SigLIP): their parameter counts, from vision_config. Pure.
import type { HfConfig } from '../setup';
import { bool, num, obj, type ParseContext } from './read';

/**
 * SigLIP vision tower (vision_use_head false) and the Gemma 3 multimodal projector: patch embedding (conv 3 x p x p
 * with bias), position embedding ((image/patch)^2 x width), per layer q/k/v/o with biases, two LayerNorms and a
 * two-layer MLP with biases, a post LayerNorm; projector vision width x text width plus an RMSNorm of the vision width
 * (modeling_siglip.py, modeling_gemma3.py Gemma3MultiModalProjector).
 */
function siglipWithProjector(v: HfConfig, textHidden: number): number | undefined {
  const vit = vitEncoder(v);
  if (!vit) return undefined;
  const w = vit.width;
  // Patch convolution with bias and one position per patch; a post LayerNorm; the projector and its RMSNorm.
  return vit.patchEmbedding + w + vit.patches * w + vit.layers * vit.layer + 2 * w + (w * textHidden + w);
}

/**
 * The ViT encoder both SigLIP and Llama 4's vision tower are built on: a patch projection (channels x patch^2 x width)
 * and per layer q/k/v/o with biases, two LayerNorms and a two-layer MLP with biases.
 */
function vitEncoder(
  v: HfConfig,
):
  { width: number; layers: number; patches: number; patchEmbedding: number; layer: number; inner: number } | undefined {
  const w = num(v, 'hidden_size');
  const inner = num(v, 'intermediate_size');
  const layers = num(v, 'num_hidden_layers');
  const image = num(v, 'image_size');
  const patch = num(v, 'patch_size');
  if (!w || !inner || !layers || !image || !patch) return undefined;
  return {
    width: w,
    layers,
    inner,
    // image_size // patch_size patches a side (SigLIP, CLIP, Idefics3: SmolVLM2-2.2B has 384 / 14 = 27).
    patches: Math.floor(image / patch) ** 2,
    patchEmbedding: (num(v, 'num_channels') ?? 3) * patch * patch * w,
    layer: 4 * (w * w + w) + 2 * 2 * w + (w * inner + inner) + (inner * w + w),
  };
}
/** Qwen3-VL, dense or MoE: the same vision tower. */
const isQwen3Vl = (modelType: string | undefined): boolean => modelType === 'qwen3_vl' || modelType === 'qwen3_vl_moe';

/**
 * Qwen2.5-VL's vision tower and merger (modeling_qwen2_5_vl.py): a Conv3d patch embedding without bias (channels x
 * temporal_patch x patch^2 x width), per block two RMSNorms, qkv and proj with biases and a SwiGLU MLP with biases;
 * the merger's RMSNorm and two linears with biases (4 x width -> 4 x width -> the language model's width). Qwen2-VL
 * (modeling_qwen2_vl.py): LayerNorms with biases, a fc1 / fc2 MLP of mlp_ratio x width, the merger's LayerNorm.
 */
function qwenVisionParams(v: HfConfig, modelType: string, textHidden: number): number | undefined {
  if (isQwen3Vl(modelType)) return qwen3VisionParams(v, textHidden);
  const v25 = modelType === 'qwen2_5_vl';
  const w = num(v, v25 ? 'hidden_size' : 'embed_dim');
  const depth = num(v, 'depth');
  const inner = v25 ? num(v, 'intermediate_size') : (num(v, 'mlp_ratio') ?? 4) * (w ?? 0);
  if (!w || !depth || !inner) return undefined;
  const out = num(v, v25 ? 'out_hidden_size' : 'hidden_size') ?? textHidden;
  const patch = num(v, 'patch_size') ?? 14;
  const embed = (num(v, 'in_chans', 'in_channels') ?? 3) * (num(v, 'temporal_patch_size') ?? 2) * patch * patch * w;
  const merge = (num(v, 'spatial_merge_size') ?? 2) ** 2 * w;
  const norm = v25 ? w : 2 * w;
  const mlp = v25 ? 2 * (w * inner + inner) + (inner * w + w) : w * inner + inner + (inner * w + w);
  const block = 2 * norm + (w * 3 * w + 3 * w) + (w * w + w) + mlp;
  return embed + depth * block + norm + (merge * merge + merge) + (merge * out + out);
}

/**
 * Qwen3-VL's vision tower (modeling_qwen3_vl.py Qwen3VLVisionModel): a Conv3d patch embedding with bias, a learned
 * position table (num_position_embeddings x width), per block two LayerNorms, qkv and proj with biases and a
 * fc1 / fc2 MLP with biases; the merger (LayerNorm of the width, 4w -> 4w -> out) and one deepstack merger per
 * deepstack_visual_indexes entry (LayerNorm of 4w, the same two linears).
 */
function qwen3VisionParams(v: HfConfig, textHidden: number): number | undefined {
  const w = num(v, 'hidden_size');
  const depth = num(v, 'depth');
  const inner = num(v, 'intermediate_size');
  const positions = num(v, 'num_position_embeddings');
  if (!w || !depth || !inner || !positions) return undefined;
  const out = num(v, 'out_hidden_size') ?? textHidden;
  const patch = num(v, 'patch_size') ?? 16;
  const embed =
    (num(v, 'in_channels') ?? 3) * (num(v, 'temporal_patch_size') ?? 2) * patch * patch * w + w + positions * w;
  const block = 2 * 2 * w + (w * 3 * w + 3 * w) + (w * w + w) + (w * inner + inner) + (inner * w + w);
  const merge = (num(v, 'spatial_merge_size') ?? 2) ** 2 * w;
  const linears = merge * merge + merge + (merge * out + out);
  const deepstack = Array.isArray(v.deepstack_visual_indexes) ? v.deepstack_visual_indexes.length : 0;
  return embed + depth * block + (2 * w + linears) + deepstack * (2 * merge + linears);
}

/**
 * Llama 4's vision tower, pixel-shuffle adapter and projector (modeling_llama4.py Llama4VisionModel,
 * Llama4MultiModalProjector): an unfolded patch linear without bias, a class embedding, a position table of
 * (image / patch)^2 + 1 rows, two LayerNorms, per layer q/k/v/o and fc1/fc2 with biases and two LayerNorms; the
 * adapter's fc1 (intermediate_size -> projector_input_dim) and fc2 (projector_output_dim squared) without bias; the
 * projector vision_output_dim -> the text width without bias.
 */
function llama4VisionParams(v: HfConfig, textHidden: number): number | undefined {
  const vit = vitEncoder(v);
  if (!vit) return undefined;
  const w = vit.width;
  const projIn = num(v, 'projector_input_dim') ?? 4096;
  const projOut = num(v, 'projector_output_dim') ?? 4096;
  // Patch linear without bias, a class embedding, positions for the patches and the class token, pre/post LayerNorms.
  const embeddings = vit.patchEmbedding + w + (vit.patches + 1) * w + 2 * 2 * w;
  const adapter = vit.inner * projIn + projOut * projOut;
  return embeddings + vit.layers * vit.layer + adapter + (num(v, 'vision_output_dim') ?? 4096) * textHidden;
}

/**
 * Pixtral's vision tower and Mistral 3's projector (modeling_pixtral.py, modeling_mistral3.py): a patch convolution
 * without bias, an RMSNorm, per layer two RMSNorms, q/k/v/o and a gated MLP without biases; the projector's RMSNorm,
 * the patch merger (spatial_merge_size^2 x width -> width, no bias) and two linears into the language model's width.
 */
function pixtralParams(v: HfConfig, textHidden: number, merge: number, bias: boolean): number | undefined {
  const w = num(v, 'hidden_size');
  const inner = num(v, 'intermediate_size');
  const layers = num(v, 'num_hidden_layers');
  const patch = num(v, 'patch_size');
  if (!w || !inner || !layers || !patch) return undefined;
  const tower = (num(v, 'num_channels') ?? 3) * patch * patch * w + w + layers * (2 * w + 4 * w * w + 3 * w * inner);
  const projector =
    w +
    merge * merge * w * w +
    (w * textHidden + (bias ? textHidden : 0)) +
    (textHidden * textHidden + (bias ? textHidden : 0));
  return tower + projector;
}

/**
 * CLIP's vision tower and LLaVA's projector (modeling_clip.py CLIPVisionTransformer, modeling_llava.py
 * LlavaMultiModalProjector): a patch convolution without bias, a class embedding, one position per patch and one for
 * the class token, a LayerNorm before the layers and one after, the ViT layers; the projector's two linears with biases
 * (vision width -> text width -> text width). Every layer is loaded, whichever vision_feature_layer is read
 * (llava-hf/llava-1.5-7b-hf: 7,063,427,072 parameters, 303,507,456 of them the tower and 20,979,712 the projector).
 */
function clipWithProjector(v: HfConfig, textHidden: number): number | undefined {
  const vit = vitEncoder(v);
  if (!vit) return undefined;
  const w = vit.width;
  const tower = vit.patchEmbedding + w + (vit.patches + 1) * w + 2 * w + vit.layers * vit.layer + 2 * w;
  return tower + (w * textHidden + textHidden) + (textHidden * textHidden + textHidden);
}

/**
 * PaliGemma's SigLIP tower and projector (modeling_siglip.py SiglipVisionTransformer with vision_use_head false,
 * modeling_paligemma.py PaliGemmaMultiModalProjector): a patch convolution with bias, one position per patch
 * (image_size 224 unless given), the ViT layers, a post LayerNorm; one biased linear from the vision width to
 * projection_dim (the text width). google/paligemma-3b-pt-224: 412,442,352 + 2,361,344 beside Gemma 2B's 2,508,662,784.
 */
function siglipPaligemma(v: HfConfig, textHidden: number): number | undefined {
  const vit = vitEncoder({ image_size: 224, ...v });
  if (!vit) return undefined;
  const w = vit.width;
  const out = num(v, 'projection_dim') ?? textHidden;
  return vit.patchEmbedding + w + vit.patches * w + vit.layers * vit.layer + 2 * w + (w * out + out);
}

/**
 * Idefics3VisionConfig's and SmolVLMVisionConfig's defaults (transformers 5.17 configuration_idefics3.py,
 * configuration_smolvlm.py) for the fields a checkpoint's vision_config leaves out (SmolVLM2-2.2B-Instruct writes no
 * hidden_size).
 */
const IDEFICS3_VISION_DEFAULTS: HfConfig = {
  hidden_size: 1152,
  intermediate_size: 3072,
  num_hidden_layers: 12,
  image_size: 224,
  patch_size: 32,
};

/**
 * Idefics3's and SmolVLM's tower and connector (modeling_idefics3.py, modeling_smolvlm.py): SigLIP's embeddings (a
 * patch convolution with bias, one position per patch), the ViT layers and a post LayerNorm; the connector's
 * pixel shuffle folds scale_factor² patches into one, projected to the text width without bias.
 */
function idefics3Params(v: HfConfig, textHidden: number, scale: number): number | undefined {
  const vit = vitEncoder(v);
  if (!vit) return undefined;
  const w = vit.width;
  return vit.patchEmbedding + w + vit.patches * w + vit.layers * vit.layer + 2 * w + w * scale * scale * textHidden;
}

/**
 * InternViT and InternVL's projector (the remote code's modeling_intern_vit.py / modeling_internvl_chat.py mlp1, and
 * transformers' modeling_internvl.py): a patch convolution with bias, a class token, one position per patch and one
 * for it; per layer q/k/v (biased with qkv_bias / attention_bias) and a biased output projection, per-head-width q / k
 * RMSNorms with qk_normalization / use_qk_norm, two LayerNorms (RMSNorms with norm_type rms_norm), a biased fc1 / fc2
 * MLP and two layer-scale vectors; no final norm (use_mean_pooling). The projector: a LayerNorm over the pixel-shuffled
 * width (w / downsample_ratio²), a linear to the text width and one text width to text width, both biased.
 */
function internVitParams(v: HfConfig, textHidden: number, downsample: number): number | undefined {
  const side = (key: string): number | undefined => {
    const x = v[key];
    return Array.isArray(x) && typeof x[0] === 'number' ? x[0] : num(v, key);
  };
  const w = num(v, 'hidden_size');
  const inner = num(v, 'intermediate_size');
  const layers = num(v, 'num_hidden_layers');
  const image = side('image_size');
  const patch = side('patch_size');
  if (!w || !inner || !layers || !image || !patch) return undefined;
  const rms = v.norm_type === 'rms_norm';
  const qkvBias = bool(v, 'qkv_bias') ?? bool(v, 'attention_bias') ?? false;
  const qkNorm = (bool(v, 'qk_normalization') ?? bool(v, 'use_qk_norm') ?? false) ? 2 * w : 0;
  const norm = rms ? w : 2 * w;
  const layer =
    3 * w * w + (qkvBias ? 3 * w : 0) + (w * w + w) + qkNorm + 2 * norm + (w * inner + inner) + (inner * w + w) + 2 * w;
  const embeddings =
    (num(v, 'num_channels') ?? 3) * patch * patch * w + w + w + (Math.floor(image / patch) ** 2 + 1) * w;
  const shuffled = w * Math.round(1 / downsample) ** 2;
  const projector = 2 * shuffled + (shuffled * textHidden + textHidden) + (textHidden * textHidden + textHidden);
  return embeddings + layers * layer + projector;
}

/**
 * Llama 3.2 Vision's tiled ViT and projector (modeling_mllama.py MllamaVisionModel, MllamaModel): a patch convolution
 * without bias, a class embedding; the gated position embedding (one row per patch and the class token, a gate, and a
 * tile embedding of max_num_tiles x those rows per aspect-ratio id: len(supported_aspect_ratios) + 1 of them), the pre-
 * and post-tile embeddings (max_num_tiles x width per aspect-ratio id, a gate each), two LayerNorms; the local layers
 * (q/k/v/o without bias, a biased fc1 / fc2 MLP, two LayerNorms) and the global ones (the same with two gates); the
 * projector from vision_output_dim to the text width, biased.
 */
function mllamaVisionParams(v: HfConfig, textHidden: number): number | undefined {
  const w = num(v, 'hidden_size');
  const inner = num(v, 'intermediate_size');
  const layers = num(v, 'num_hidden_layers');
  const global = num(v, 'num_global_layers');
  const image = num(v, 'image_size');
  const patch = num(v, 'patch_size');
  const tiles = num(v, 'max_num_tiles');
  const out = num(v, 'vision_output_dim');
  const ratios = Array.isArray(v.supported_aspect_ratios) ? v.supported_aspect_ratios.length : undefined;
  if (!w || !inner || !layers || global === undefined || !image || !patch || !tiles || !out || !ratios)
    return undefined;
  const positions = Math.floor(image / patch) ** 2 + 1;
  const ids = ratios + 1;
  const embeddings =
    (num(v, 'num_channels') ?? 3) * patch * patch * w +
    w +
    (1 + positions * w + ids * tiles * positions * w) +
    2 * (ids * tiles * w + 1) +
    2 * 2 * w;
  const layer = 4 * w * w + (w * inner + inner) + (inner * w + w) + 2 * 2 * w;
  return embeddings + layers * layer + global * (layer + 2) + (out * textHidden + textHidden);
}

/**
 * Qwen-VL's visual.py VisionTransformer (ViT-bigG): a patch convolution without bias, 256 learned positions, ln_pre,
 * `layers` blocks of ln_1, a fused in_proj (3w x w with bias), out_proj, ln_2 and an MLP c_fc / c_proj of
 * int(w x mlp_ratio) with biases; the Resampler (attn_pool: 256 queries and their fixed 2-D sin-cos positions, both
 * parameters, kv_proj w -> output_dim without bias, nn.MultiheadAttention of output_dim, ln_q and ln_kv), ln_post and
 * the output projection. Qwen-VL-Chat (w 1664, 48 layers, mlp_ratio 4.9231, patch 14, output 4096): 1.94B.
 */
function qwen1VisualParams(v: HfConfig): number | undefined {
  const w = num(v, 'width');
  const layers = num(v, 'layers');
  const ratio = num(v, 'mlp_ratio');
  const patch = num(v, 'patch_size');
  const out = num(v, 'output_dim');
  if (!w || !layers || !ratio || !patch || !out) return undefined;
  const mlp = Math.floor(w * ratio);
  const block = 2 * w + (3 * w * w + 3 * w) + (w * w + w) + 2 * w + (w * mlp + mlp) + (mlp * w + w);
  const queries = 256;
  const resampler = 2 * queries * out + w * out + (4 * out * out + 4 * out) + 2 * (2 * out);
  return 3 * patch * patch * w + queries * w + 2 * w + layers * block + resampler + 2 * out + out * out;
}

/** The ViT towers with their projectors, by layout, and the vision_config fields each needs. */
const VIT_TOWERS: Readonly<
  Record<
    'llava' | 'paligemma' | 'gemma3',
    { count: (v: HfConfig, hidden: number) => number | undefined; fields: string }
  >
> = {
  llava: {
    count: clipWithProjector,
    fields: 'hidden_size, intermediate_size, num_hidden_layers, image_size and patch_size',
  },
  paligemma: { count: siglipPaligemma, fields: 'hidden_size, intermediate_size, num_hidden_layers and patch_size' },
  gemma3: {
    count: siglipWithProjector,
    fields: 'hidden_size, intermediate_size, num_hidden_layers, image_size and patch_size',
  },
};

/**
 * How an image-text config.json nests its language model: Gemma 3 4B-27B and Llama 4 / Mistral 3 under text_config,
 * Qwen2-VL / 2.5-VL / 3-VL at the top level or under text_config, Qwen3.5 under text_config. Each loads its own tower.
 */
export type ImageText =
  | 'gemma3'
  | 'qwen-vl'
  | 'qwen1-vl'
  | 'qwen3.5'
  | 'llama4-or-mistral3'
  | 'llava'
  | 'paligemma'
  | 'idefics3'
  | 'internvl'
  | 'mllama';

/**
 * The vision tower and projector of an image-text checkpoint, from its vision_config; 0 when the config has none to
 * read (a problem is recorded when the tower's fields are missing).
 */
export function visionTowerParams(ctx: ParseContext, hidden: number, layout: ImageText | undefined): number {
  const { config, modelType } = ctx;
  const vc = obj(config, 'vision_config');
  let v: number | undefined;
  switch (layout) {
    case undefined:
      return 0;
    case 'llama4-or-mistral3':
      if (!vc) return 0;
      v =
        modelType === 'llama4'
          ? llama4VisionParams(vc, hidden)
          : pixtralParams(
              vc,
              hidden,
              num(config, 'spatial_merge_size') ?? 2,
              bool(config, 'multimodal_projector_bias') ?? false,
            );
      if (v === undefined) {
        ctx.problem(
          'vision_config',
          `a ${modelType} config needs vision_config hidden_size, intermediate_size, num_hidden_layers, image_size and patch_size`,
        );
      }
      return v ?? 0;
    case 'qwen-vl': {
      v = vc ? qwenVisionParams(vc, modelType, hidden) : undefined;
      const fields =
        modelType === 'qwen2_vl'
          ? 'embed_dim'
          : isQwen3Vl(modelType)
            ? 'hidden_size, intermediate_size, num_position_embeddings'
            : 'hidden_size, intermediate_size';
      if (v === undefined)
        ctx.problem('vision_config', `a ${modelType} config needs vision_config depth and ${fields}`);
      return v ?? 0;
    }
    case 'qwen1-vl': {
      const visual = obj(config, 'visual');
      v = visual ? qwen1VisualParams(visual) : undefined;
      if (v === undefined)
        ctx.problem(
          'visual',
          'a Qwen-VL config needs visual width, layers, heads, mlp_ratio, patch_size and output_dim',
        );
      return v ?? 0;
    }
    case 'qwen3.5':
      // Qwen3_5VisionModel is Qwen3VLVisionModel with its deepstack mergers deleted (modular_qwen3_5.py); the MoE model's
      // tower builds none either, whatever deepstack_visual_indexes says.
      if (!vc) return 0;
      v = qwen3VisionParams({ ...vc, deepstack_visual_indexes: [] }, hidden);
      if (v === undefined) {
        ctx.problem(
          'vision_config',
          `a ${modelType} config needs vision_config depth, hidden_size, intermediate_size and num_position_embeddings`,
        );
      }
      return v ?? 0;
    case 'idefics3':
      v = idefics3Params({ ...IDEFICS3_VISION_DEFAULTS, ...vc }, hidden, num(config, 'scale_factor') ?? 2);
      if (v === undefined)
        ctx.problem('vision_config', `an ${modelType} config needs vision_config ${VIT_TOWERS.gemma3.fields}`);
      return v ?? 0;
    case 'mllama':
      v = vc ? mllamaVisionParams(vc, hidden) : undefined;
      if (v === undefined)
        ctx.problem(
          'vision_config',
          'an mllama config needs vision_config hidden_size, intermediate_size, num_hidden_layers, num_global_layers, ' +
            'image_size, patch_size, max_num_tiles, supported_aspect_ratios and vision_output_dim',
        );
      return v ?? 0;
    case 'internvl':
      v = vc ? internVitParams(vc, hidden, num(config, 'downsample_ratio') ?? 0.5) : undefined;
      if (v === undefined)
        ctx.problem(
          'vision_config',
          `an ${modelType} config needs vision_config hidden_size, intermediate_size, num_hidden_layers, image_size and patch_size`,
        );
      return v ?? 0;
    case 'llava':
    case 'paligemma':
    case 'gemma3': {
      // A ViT tower (CLIP or SigLIP) with the model's projector.
      const tower = VIT_TOWERS[layout];
      v = vc ? tower.count(vc, hidden) : undefined;
      // LLaVA-NeXT's image_newline: one learned vector of the text width between rows of image features.
      if (v !== undefined && modelType === 'llava_next') v += hidden;
      if (v === undefined) ctx.problem('vision_config', `a ${layout} config needs vision_config ${tower.fields}`);
      return v ?? 0;
    }
  }
}
