// Term: eager attention's 4D causal masks, built once per forward and held by checkpointed layers to the end of the
// backward. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { comp } from '../../estimate/component';
import type { EstimateContext, StageContext } from '../../estimate/context';
import type { Component } from '../../model';
import { olderThan } from '../../util/version';

/** The mask's component in the forward, the same when checkpointed layers hold it through the backward, and bytes. */
export interface CausalMask {
  readonly maskC: Component[];
  readonly maskHeld: Component[];
  readonly maskBytes: number;
  readonly maskHeldBytes: number;
}

/**
 * Eager attention in the decoder families takes a 4D causal mask (b x 1 x s x s, in the embeddings' output dtype:
 * transformers masking_utils eager_mask) built once per forward; under checkpointing every layer's saved inputs
 * reference it, so it lives until the end of the backward. Falcon with ALiBi folds the biases into one
 * (b x heads x s x s) mask (modeling_falcon.py FalconModel.forward), which every layer's SDPA call keeps for its
 * backward. `weightBytes`: of the parameters the model computes with, which give the embeddings' output its dtype
 * (FSDP's 16-bit param_dtype over fp32 weights: 16-bit; CPU truth fsdp2/gptoss-w2-amp-ckpt, two 1 MiB bf16 masks).
 */
export function causalMask(ctx: EstimateContext, st: StageContext, weightBytes: number): CausalMask {
  const { setup } = ctx;
  const a = ctx.model.arch;
  const { attention } = ctx.dtypes;
  const seqs = st.sequences;
  const ck = setup.gradient_checkpointing;
  // ChatGLM-6B's get_masks: a boolean (b, 1, s, s) mask, which every layer's masked_fill_ keeps for backward.
  const glm = a.family === 'chatglm1';
  const maskElem = glm ? 1 : weightBytes === 4 ? 4 : 2;
  const alibi =
    a.family === 'falcon' && a.positions === 'alibi' && attention !== 'flash' && setup.model_code === 'transformers';
  const heads = alibi ? a.heads / ctx.layout.tensorParallel : 1;
  const masks = mixedWindowMasks(ctx) ? 2 : 1;
  if (a.family === 'deberta_v2') return debertaMasks(ctx, seqs);
  const maskBytes =
    alibi ||
    (attention === 'eager' &&
      !['gpt2', 'gpt_neox', 'bert', 'roberta', 'distilbert', 'deberta_v2', 't5', 'bart', 'mbart'].includes(a.family))
      ? masks * seqs * heads * setup.seq_len * setup.seq_len * maskElem
      : 0;
  // Under autocast over fp32 weights each layer keeps its own 16-bit copy (falcon.ts) and the fp32 mask goes with the
  // forward (CPU truth loop/falconrw-full-amp: +2.7 % with it held).
  const ownCopies = ctx.dtypes.mode === 'amp' && weightBytes === 4;
  const keptByLayers = ck !== 'none' || glm || (alibi && attention === 'sdpa' && !ownCopies);
  const maskC =
    maskBytes > 0
      ? [
          comp(
            ctx,
            'activations',
            alibi
              ? 'ALiBi attention mask (4D, every head)'
              : `Causal attention mask${masks > 1 ? 's' : ''} (4D, eager attention)`,
            maskBytes,
            () =>
              (masks > 1 ? '2 masks (full and sliding-window layers) x ' : '') +
              `b x ${alibi ? 'heads x ' : ''}s x s x ${maskElem} B = ${masks > 1 ? '2 x ' : ''}${seqs}` +
              `${alibi ? ` x ${heads}` : ''} x ${setup.seq_len}²` +
              (ck !== 'none'
                ? ', held by the checkpointed layers until the end of the backward'
                : glm
                  ? ", kept by every layer's masked_fill_ until the end of the backward"
                  : keptByLayers
                    ? ", kept by every layer's SDPA call until the end of the backward"
                    : ''),
            () => ({ sequences: seqs, seqLen: setup.seq_len, ...(alibi ? { heads } : {}) }),
          ),
        ]
      : [];
  const maskHeld = keptByLayers ? maskC : [];
  return { maskC, maskHeld, maskBytes, maskHeldBytes: keptByLayers ? maskBytes : 0 };
}

/**
 * DeBERTa-v2 / v3's encoder builds, once per forward, the b x 1 x s x s product of the tokenizer's int64 attention mask
 * with itself (DebertaV2Encoder.get_attention_mask) and the s x s int64 relative positions (build_relative_position);
 * every layer reads both, and under checkpointing each layer's saved inputs hold them to the end of the backward.
 */
function debertaMasks(ctx: EstimateContext, seqs: number): CausalMask {
  const s = ctx.setup.seq_len;
  const relative = ctx.model.arch.deberta?.relRows ? s * s * 8 : 0;
  const maskBytes = seqs * s * s * 8 + relative;
  const held = ctx.setup.gradient_checkpointing !== 'none';
  const maskC = [
    comp(
      ctx,
      'activations',
      'Attention mask (b x 1 x s x s, int64) and relative positions (s x s, int64)',
      maskBytes,
      () =>
        `b x s x s x 8 B${relative ? ' + s x s x 8 B' : ''} = ${seqs} x ${s}² x 8${relative ? ` + ${s}² x 8` : ''}` +
        (held ? ', held by the checkpointed layers until the end of the backward' : ''),
      () => ({ sequences: seqs, seqLen: s }),
    ),
  ];
  return { maskC, maskHeld: held ? maskC : [], maskBytes, maskHeldBytes: held ? maskBytes : 0 };
}

/**
 * A model with both full-attention and sliding-window layers builds one 4D mask of each kind per forward and hands
 * each layer its kind's (transformers >= 4.53 masking_utils: Gemma 2 / 3 `causal_mask_mapping`, Qwen2 / Qwen3 when
 * `layer_types` has sliding layers); under checkpointing both are held through the backward.
 */
function mixedWindowMasks(ctx: EstimateContext): boolean {
  const a = ctx.model.arch;
  return a.slidingLayers > 0 && a.slidingLayers < a.layers && !olderThan(ctx.setup.transformers_version, 4, 53);
}
