// Whether a script's vision-language run trains the vision tower. PyTorch leaves every parameter's requires_grad True
// and transformers' from_pretrained freezes nothing, so a full fine-tune whose batches carry images trains the tower
// unless something freezes it (castorini/visa's qwen/train.py, tulerfeng/Video-R1's sft_video.py and Deep-Agent/R1-V's
// GRPO trainer freeze nothing). What the script, or the GRPO trainer module it imports (grpo-forks.ts), writes is read:
// image inputs (`pixel_values`, `image_grid_thw`, qwen_vl_utils' `process_vision_info`, a processor's `max_pixels`, a
// chat message's `{"type": "image"}` or `"video"`), and any line that freezes or names a freeze of a vision part
// (`model.visual.requires_grad_(False)`, `freeze_vision_modules`, a loop over `vision_tower.parameters()`). Pure.
import type { PythonFile } from './file';

/** Image or video inputs in a script's text. */
const IMAGES =
  /\bpixel_values\b|\bimage_grid_thw\b|\bprocess_vision_info\b|\bmax_pixels\b|["']type["']\s*:\s*["'](?:image|video)["']/;

/** A line that freezes a vision part, or a flag named for it. */
const FREEZES_VISION =
  /\bfreeze_(?:vision|vit|visual|image)\w*|(?:visual|vision\w*|vit|image_encoder)\b[^\n]*requires_grad|requires_grad[^\n]*(?:visual|vision|vit\b)/i;

/**
 * The fact `visionUnfrozen` (true) where the script's texts (its own and the modules given) pass images to the model
 * and none of them freezes a vision part: the resolver then counts the tower as trained in a full fine-tune.
 */
export function visionTowerUnfrozen(file: PythonFile, moduleTexts: readonly string[] = []): void {
  if (file.imported) return;
  const texts = [file.text, ...moduleTexts];
  if (!texts.some((t) => IMAGES.test(t)) || texts.some((t) => FREEZES_VISION.test(t))) return;
  const m = IMAGES.exec(file.text);
  const at = m ? { start: m.index, end: m.index + m[0].length } : { start: 0, end: 0 };
  file.facts.push({
    key: 'visionUnfrozen',
    rawKey: m ? m[0] : 'images',
    value: true,
    rawValue: m ? m[0] : 'images in the trainer module',
    keySpan: at,
    valueSpan: at,
    tool: file.tools.has('trl') ? 'trl' : 'hf-trainer',
  });
}
