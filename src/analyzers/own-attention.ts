// Attention a model's own remote code picks, whatever the run's attn_implementation says: Qwen-1's modeling_qwen.py
// (model_type "qwen") takes no attn_implementation. With config.json's use_flash_attn "auto" (Qwen/Qwen-7B and its
// siblings) it runs flash-attn's unpadded kernel where the package is installed and the model is not fp32, else torch
// 2's scaled_dot_product_attention, which with its mask keeps no s x s score matrix either; its own eager _attn runs
// only before torch 2. Pure.
import type { Provenance, TrainingSetup } from '../core';

/** The attention Qwen-1's own code runs, with why, where no file of the run says; undefined for other models. */
export function ownAttention(
  setup: TrainingSetup,
  attention: Provenance | undefined,
): { readonly attention: TrainingSetup['attention']; readonly provenance: Provenance } | undefined {
  const config = setup.architecture as { readonly model_type?: unknown; readonly use_flash_attn?: unknown } | undefined;
  if (config?.model_type !== 'qwen' || (attention !== undefined && attention.kind !== 'default')) return undefined;
  const sixteen = setup.weights_dtype !== 'fp32' || setup.mixed_precision !== 'none';
  const flash = sixteen && config.use_flash_attn !== false && config.use_flash_attn !== 'false';
  return {
    attention: flash ? 'flash' : 'sdpa',
    provenance: {
      kind: 'default',
      owner: 'VRAM Lens',
      note: flash
        ? 'Qwen-1\'s modeling_qwen.py runs flash-attn where it is installed (use_flash_attn "auto"), as Qwen\'s ' +
          "fine-tuning README has it, else torch 2's scaled_dot_product_attention: not transformers' attn_implementation"
        : "Qwen-1's modeling_qwen.py runs torch 2's scaled_dot_product_attention for an fp32 model (flash-attn takes " +
          "16 bits only): not transformers' attn_implementation",
    },
  };
}
