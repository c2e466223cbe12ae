// What a model's own remote code decides whatever the run asks: Qwen-1's modeling_qwen.py (model_type "qwen").
// - Precision: QWenLMHeadModel.__init__ sets bf16 itself where its config names none (`bf16`, `fp16` and `fp32` all
//   false, as Qwen/Qwen-7B's config.json has them: "autoset_precision"), fp16 on a GPU without bf16, and casts the
//   transformer and the head to it, whatever dtype from_pretrained loaded.
// - Attention: it takes no attn_implementation. With use_flash_attn "auto" it runs flash-attn's unpadded kernel where
//   the package is installed and the model is not fp32, else torch 2's scaled_dot_product_attention, which with its
//   mask keeps no s x s score matrix either; its own eager _attn runs only before torch 2.
// Pure.
import type { Provenance, TrainingSetup } from '../core';

interface QwenConfig {
  readonly model_type?: unknown;
  readonly use_flash_attn?: unknown;
  readonly bf16?: unknown;
  readonly fp16?: unknown;
  readonly fp32?: unknown;
}

/** Qwen-1's config: the checkpoint's config.json (model_type "qwen"); undefined for other models. */
const qwen1 = (setup: TrainingSetup): QwenConfig | undefined => {
  const config = setup.architecture as QwenConfig | undefined;
  return config?.model_type === 'qwen' ? config : undefined;
};

/**
 * The weights' dtype Qwen-1's own code casts to where its config names no precision: bf16, said as on a GPU that
 * computes in it (fp16 elsewhere, the same bytes), whatever dtype the load asked (`torch_dtype="auto"` or
 * torch.float32 alike: QWenLMHeadModel.__init__ reads only config.bf16 / fp16 / fp32); undefined for other models.
 */
export function ownPrecision(
  setup: TrainingSetup,
  weights: Provenance | undefined,
): { readonly weights: TrainingSetup['weights_dtype']; readonly provenance: Provenance } | undefined {
  const config = qwen1(setup);
  if (!config || setup.weights_dtype !== 'fp32') return undefined;
  if (config.bf16 === true || config.fp16 === true || config.fp32 === true) return undefined;
  return {
    weights: 'bf16',
    provenance: {
      kind: 'default',
      owner: 'VRAM Lens',
      note:
        "Qwen-1's modeling_qwen.py casts the model to bf16 itself when its config sets none of bf16, fp16 and fp32 " +
        '(autoset_precision), on a GPU that computes in bf16 (fp16 on older GPUs, the same bytes), whatever dtype ' +
        `from_pretrained loaded${weights?.kind === 'file' ? ` (${weights.key ?? 'the dtype'} at ${weights.file.split('/').pop()}:${weights.line})` : ''}; ` +
        'pass fp32=True to from_pretrained to keep fp32',
    },
  };
}

/** The attention Qwen-1's own code runs, with why, where no file of the run says; undefined for other models. */
export function ownAttention(
  setup: TrainingSetup,
  attention: Provenance | undefined,
): { readonly attention: TrainingSetup['attention']; readonly provenance: Provenance } | undefined {
  const config = qwen1(setup);
  if (!config || (attention !== undefined && attention.kind !== 'default')) return undefined;
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
