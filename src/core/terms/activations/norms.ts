// RMSNorm flavours per family, and what the final norm and the output head keep for backward. Pure arithmetic;
// no I/O.
// Docs: docs/estimate/activations.md
import { FAMILY_TRAITS, type Architecture, type FamilyTraits } from '../../architecture';
import { memo } from '../../util/memo';
import { type ComputeMode, type ForwardSequence, type Tensor, Tape } from '../saved-tensors';

type RmsNormStyle = FamilyTraits['rmsNormStyle'];

/**
 * How a family writes its RMSNorm (FamilyTraits.rmsNormStyle) and what its weights are stored in: Gemma's (1 + weight)
 * in fp32; gpt-oss keeps its norms in fp32 (GptOssPreTrainedModel._keep_in_fp32_modules) and casts after the weight, as
 * OLMo 2 does with the weight in the model dtype; MiniCPM's as T5's; the rest as Llama, in `weightBytes` (the model
 * dtype, or fp32 after a 4/8-bit model's upcast). LitGPT's own RMSNorm (`litgpt`) multiplies the fp32 normalized input
 * by `weight.float()` and casts after, as gpt-oss's (Gemma's adds the unit offset first).
 */
export function rmsNormOf(
  a: Architecture,
  weightBytes: number,
  litgpt = false,
): { style: RmsNormStyle; weightBytes: number } {
  const traits = FAMILY_TRAITS[a.family];
  const style = traits.rmsNormStyle;
  if (style === 'gemma') return { style, weightBytes };
  const bytes = traits.fp32NormWeights ? 4 : weightBytes;
  if (style === 'gpt_oss' || litgpt) return { style: 'gpt_oss', weightBytes: bytes };
  return { style, weightBytes: bytes };
}

/**
 * The most an RMSNorm's backward holds at once beyond what the norm saved, over `elems` activations: every flavour
 * normalizes in fp32 (x.float() * rsqrt(x.pow(2).mean(-1) + eps)), and autograd walks that chain back. At PowBackward0,
 * the gradient of x.pow(2) (grad * (2 * x.pow(1)): the power, its double and the product, three fp32 tensors) meets
 * the mean's expanded gradient and the gradient through x * rsqrt: five fp32 tensors of the input's size. A trained
 * weight's multiply saved the normalized tensor (fp32 in Gemma's and gpt-oss's flavours, the input's dtype after
 * Llama's cast), which its backward, run first, has released by then. CPU truth, Gemma 3's post_feedforward_layernorm
 * at the start of the last layer's backward (aten::mul < PowBackward0): layer/gemma3-lora-all-bf16-ckpt 5 x 2,097,152
 * B, layer/gemma3-full-bf16-ckpt the same with the 2,097,152 B normalized tensor gone.
 */
export function rmsNormBackwardBytes(
  elems: number,
  style: RmsNormStyle,
  weightTrained: boolean,
  inputBytes: number,
): number {
  const released = weightTrained ? (style === 'llama' || style === 't5' ? inputBytes : 4) : 0;
  return (5 * 4 - released) * elems;
}

/**
 * CohereLayerNorm (modeling_cohere.py), written out in fp32: the input upcast; `input - mean` computed twice, once
 * for the variance (kept by pow) and once for the product with rsqrt (kept by that product); rsqrt of the variance,
 * one per row, kept; the normalized input, kept for the weight's gradient; times the weight's fp32 copy, cast back to
 * the input's dtype. The product also keeps that copy for the input's gradient: hidden-size bytes a norm, not counted.
 */
export function cohereLayerNorm(tape: Tape, x: Tensor, rows: number, trainable: boolean, what: string): Tensor {
  const x32 = tape.to(x, 4, `${what} input (fp32)`);
  const forVariance = tape.unarySavesInput(
    tape.free(x32, `${what} input - mean (fp32, for the variance)`),
    `${what} (input - mean)^2 (fp32)`,
  );
  tape.use(forVariance);
  const rsq = tape.tensor(`${what} rsqrt (fp32)`, rows, 4, x.rg);
  const centred = tape.free(x32, `${what} input - mean (fp32)`);
  const normed = tape.mul(centred, rsq, `${what} normalized (fp32)`);
  tape.keepThrough(x32);
  if (trainable) tape.save(normed);
  tape.use(normed);
  const scaled = tape.tensor(`${what} weight x normalized (fp32)`, x.elems, 4, x.rg || trainable);
  return tape.to(scaled, x.bytesPerElem, `${what} output`);
}

/**
 * NemotronLayerNorm1P (modeling_nemotron.py): F.layer_norm with `weight + 1`, its arguments cast to the autocast dtype
 * and autocast switched off inside (_cast_if_autocast_enabled): under AMP the norm runs in 16 bits on a 16-bit copy of
 * its input, which it keeps with the mean and rstd (fp32, one each per row); otherwise as nn.LayerNorm.
 */
export function layerNorm1P(tape: Tape, x: Tensor, rows: number, trainable: boolean, what: string): Tensor {
  if (tape.mode !== 'amp') return tape.layerNorm(x, rows, trainable, what);
  const x16 = tape.to(x, tape.half, `${what} input (autocast dtype)`);
  if (x.rg || trainable) {
    tape.save(x16);
    tape.saveExtra(`${what} mean+rstd (fp32)`, 2 * rows * 4);
  }
  tape.use(x16);
  return tape.tensor(what, x.elems, tape.half, x.rg || trainable);
}

/** A LayerNorm as the family writes it (FamilyTraits.layerNormStyle): Cohere's in fp32, Nemotron's LayerNorm1P, torch's. */
export function familyLayerNorm(
  a: Architecture,
  tape: Tape,
  x: Tensor,
  rows: number,
  trainable: boolean,
  what: string,
): Tensor {
  const style = FAMILY_TRAITS[a.family].layerNormStyle;
  if (style === 'cohere') return cohereLayerNorm(tape, x, rows, trainable, what);
  if (style === 'nemotron') return layerNorm1P(tape, x, rows, trainable, what);
  return tape.layerNorm(x, rows, trainable, what);
}

/** What the final norm and the head are replayed with (finalNormSaved, finalNormSequence). */
export interface FinalNormPlan {
  arch: Architecture;
  mode: ComputeMode;
  half: 2 | 4;
  weightBytes: number;
  tokens: number;
  normTrainable: boolean;
  headTrainable: boolean;
  /** Storage of the final norm's and the head's weights when it differs from weightBytes (fp32 upcast of a 4/8-bit model). */
  normWeightBytes?: number;
  headWeightBytes?: number;
  /** Bytes per element of the residual stream when it differs from the model's (fp32 behind 4/8-bit layers). */
  residualBytes?: number;
  /**
   * TRL chunked_nll: the head runs on a packed copy of the norm's output (hidden_states[mask], the valid tokens), the
   * input its checkpointed chunks keep until backward whether or not the head trains.
   */
  packedHeadInput?: boolean;
  /** DeepSpeed ZeRO-3's linear runs the head and saves its input whether or not the head trains. */
  zero3Linear?: boolean;
  /** LitGPT's own RMSNorm (rmsNormOf). */
  litgpt?: boolean;
}

/**
 * What the final norm and the output head keep for backward, replayed on the tape like a block: the norm's fp32
 * upcast (and its normalized input when the norm weight trains), and the head's input when the head trains (or when
 * ZeRO-3's linear runs it). A frozen norm and head (LoRA, QLoRA) keep only the upcast input the norm's backward needs.
 */
export function finalNormSaved(p: FinalNormPlan): number {
  return finalNormPerToken(p) * p.tokens;
}

/**
 * The final norm's forward over `tokens` from the last layer's output, as the allocation replays run it (a decoder
 * layer's sequence likewise: terms/saved-tensors.ts forwardSequence): the fp32 upcast, its square, the rsqrt, the
 * normalized tensor and the cast back, with what the norm keeps for its backward.
 */
export const finalNormSequence = memo(
  (p: FinalNormPlan): ForwardSequence => {
    const tape = new Tape(p.mode, p.half, false);
    const { x, normed } = finalNorm(tape, p, p.tokens);
    return tape.forwardSequence(x, normed);
  },
  { scope: (p) => p.arch, limit: 4096, key: (p) => `${finalNormKey(p)}/${p.tokens}` },
);

/** The final norm on `tape` over `rows` tokens: its input (the last layer's output) and its output. */
function finalNorm(tape: Tape, p: FinalNormPlan, rows: number): { x: Tensor; normed: Tensor } {
  const a = p.arch;
  const residualBytes = p.residualBytes ?? (p.weightBytes === 4 ? 4 : p.half);
  const x = tape.tensor('final hidden states', rows * a.hidden, residualBytes, true);
  const rms = rmsNormOf(a, p.normWeightBytes ?? p.weightBytes, p.litgpt === true);
  const normed =
    a.norm === 'rms'
      ? tape.rmsNorm(x, rows, p.normTrainable, 'final norm', rms.weightBytes, rms.style)
      : familyLayerNorm(a, tape, x, rows, p.normTrainable, 'final norm');
  // The model's forward holds its input (`hidden_states`) until the norm returns and the name is rebound.
  tape.keepThrough(x);
  return { x, normed };
}

// Every saved tensor is proportional to the tokens: replay one token once per setting (the advice search asks often).
const finalNormPerToken = memo(
  (p: FinalNormPlan): number => {
    const headBytes = p.headWeightBytes ?? p.weightBytes;
    const a = p.arch;
    const tape = new Tape(p.mode, p.half, false);
    const { normed } = finalNorm(tape, p, 1);
    if (p.packedHeadInput) tape.save(tape.free(normed, 'valid tokens of the final hidden states (packed copy)'));
    else
      tape.linear(
        normed,
        {
          what: 'lm_head',
          elems: a.vocab * a.hidden,
          trainable: p.headTrainable,
          bytesPerElem: headBytes,
          ...(p.zero3Linear ? { savesInput: true } : {}),
        },
        a.vocab,
        'logits',
      );
    return tape.totalBytes();
  },
  {
    scope: (p) => p.arch,
    limit: 4096,
    key: finalNormKey,
  },
);

/** A final norm plan's settings but its tokens (finalNormPerToken, finalNormSequence). */
function finalNormKey(p: FinalNormPlan): string {
  const normBytes = p.normWeightBytes ?? p.weightBytes;
  const headBytes = p.headWeightBytes ?? p.weightBytes;
  const packed = +(p.packedHeadInput === true);
  const z3 = +(p.zero3Linear === true);
  const litgpt = +(p.litgpt === true);
  return `${p.mode}${p.half}${p.weightBytes}${+p.normTrainable}${+p.headTrainable}${normBytes}${headBytes}${p.residualBytes ?? ''}${packed}${z3}${litgpt}`;
}
