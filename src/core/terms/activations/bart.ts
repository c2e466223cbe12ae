// BART and mBART: an encoder layer and a decoder layer with cross-attention, each at its stack's length, and the
// embeddings of both stacks. Source: transformers models/bart/modeling_bart.py (BartEncoderLayer, BartDecoderLayer,
// BartEncoder.forward, BartDecoder.forward), models/mbart/modeling_mbart.py. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { FAMILY_TRAITS } from '../../architecture';
import { Tape, type Tensor } from '../saved-tensors';
import { attentionCore } from './attention';
import type { BlockContext } from './block';
import { type EncoderDecoderBlocks, encoderDecoderWorking, stackContext } from './encoder-decoder';

/** A sublayer's function of its (normalized) input. */
type Sublayer = (c: BlockContext, x: Tensor) => Tensor;

/**
 * BART's and mBART's layers on a tape of their own: one encoder layer at the source's length (seq), one decoder layer
 * at the target's (target_len, else seq), the encoder's output once, and what each stack's embeddings keep.
 */
export function bartBlocks(bc: BlockContext): EncoderDecoderBlocks {
  const { p, a } = bc;
  const tape = new Tape(p.mode, p.half);
  const S = p.seq;
  const Sd = p.targetSeq ?? p.seq;
  const enc = stackContext(bc, tape, S);
  const dec = stackContext(bc, tape, Sd);
  const rg = p.inputRequiresGrad || p.baseTrainable;
  const embeddings = embeddingsKept(enc) + embeddingsKept(dec);
  const e0 = tape.tensor('encoder layer input', enc.T * a.hidden, bc.residualBytes, rg);
  bartLayer(enc, e0, [['self_attn', (c, x) => attend(c, x, x, false)]], 'encoder');
  const encoderBytes = tape.totalBytes();
  const encoderOut = tape.tensor('encoder output', enc.T * a.hidden, bc.residualBytes, rg);
  const d0 = tape.tensor('decoder layer input', dec.T * a.hidden, bc.residualBytes, rg);
  bartLayer(
    dec,
    d0,
    [
      ['self_attn', (c, x) => attend(c, x, x, true)],
      ['encoder_attn', (c, x) => attend(c, x, encoderOut, false)],
    ],
    'decoder',
  );
  // The encoder's output is one tensor every decoder layer's cross-attention reads: kept once, not per layer.
  const encoderOutput = tape.entries().some((x) => x.what === 'encoder output') ? encoderOut.storageBytes : 0;
  const decoderBytes = tape.totalBytes() - encoderBytes - encoderOutput;
  // mBART's encoder ends in its own layer_norm, which keeps its input (the decoder's final norm is the head's).
  const encoderNorm =
    FAMILY_TRAITS[a.family].finalNorm && (rg || p.normsTrainable) ? enc.T * (a.hidden * bc.residualBytes + 8) : 0;
  const total = encoderBytes * a.encoderLayers + decoderBytes * a.layers + encoderOutput + embeddings + encoderNorm;
  const eager = p.attention === 'eager';
  return {
    bytesPerLayer: total / (a.encoderLayers + a.layers),
    entries: tape.entries(),
    checkpointHeldBytes: 0,
    backwardWorkingBytes: encoderDecoderWorking(bc, {
      S,
      Sd,
      decoderBytes,
      mlpWidth: 2,
      // Eager attention's softmax in the scores' dtype: the probabilities' gradient and the scores'.
      scoreGradBytes: eager ? 2 * tape.computeBytes + (p.softmaxGradTemp ? 4 : 0) : 0,
    }),
    encoderStackBytes: encoderBytes * a.encoderLayers + embeddingsKept(enc) + encoderNorm,
  };
}

/**
 * One layer: its sublayers (self-attention, and the decoder's cross-attention), then the MLP, each with its dropout and
 * residual sum and a LayerNorm after the sum (BART) or before the sublayer (mBART).
 */
function bartLayer(c: BlockContext, x0: Tensor, attentions: [string, Sublayer][], stack: string): Tensor {
  const { a, tape, T } = c;
  const pre = FAMILY_TRAITS[a.family].normPlacement === 'pre';
  const sub = (x: Tensor, name: string, f: Sublayer): Tensor => {
    const input = pre ? c.norm(x, `${stack} ${name}_layer_norm`) : x;
    const y = tape.dropout(f(c, input), a.hiddenDropout, `${stack} ${name} dropout`);
    tape.use(x, y);
    const sum = tape.tensor(`${stack} ${name} residual sum`, T * a.hidden, c.residualBytes, x.rg || y.rg);
    return pre ? sum : c.norm(sum, `${stack} ${name}_layer_norm`);
  };
  let x = x0;
  for (const [name, f] of attentions) x = sub(x, name, f);
  return sub(x, 'final', mlp);
}

/** BartAttention: q from the layer, k and v from it or from the encoder's output; the kernel; out_proj. */
function attend(c: BlockContext, x: Tensor, kv: Tensor, causal: boolean): Tensor {
  const { a, qd, linear } = c;
  const q = linear(x, 'q_proj', qd, 'q_proj output');
  const k = linear(kv, 'k_proj', qd, 'k_proj output');
  const v = linear(kv, 'v_proj', qd, 'v_proj output');
  const out = attentionCore(c, q, k, v, {
    causalRepeat: causal,
    softmaxFp32: false,
    dropout: a.attentionDropout,
    kvTokens: kv.elems / a.hidden,
  });
  return linear(out, 'out_proj', a.hidden, 'out_proj output');
}

/** fc1, the activation (GELU: one kernel that keeps its input), activation_dropout, fc2. */
function mlp(c: BlockContext, x: Tensor): Tensor {
  const { a, tape, tp, linear } = c;
  const up = linear(x, 'fc1', a.ffn / tp, 'fc1 output');
  const act = tape.dropout(
    tape.unarySavesInput(up, 'activation_fn output'),
    a.activationDropout ?? 0,
    'activation dropout',
  );
  return linear(act, 'fc2', a.hidden, 'fc2 output');
}

/**
 * What one stack's embeddings keep when they train (a full fine-tune): embed_tokens(ids) (x sqrt(d_model) with
 * scale_embedding) + embed_positions is layernorm_embedding's input, kept with its mean and rstd, and the dropout
 * after it keeps its mask. A frozen embedding and LayerNorm keep nothing.
 */
function embeddingsKept(c: BlockContext): number {
  const { p, a, T, residualBytes } = c;
  if (!p.baseTrainable && !p.normsTrainable) return 0;
  const layerNormInput = T * a.hidden * (p.mode === 'amp' ? 4 : residualBytes) + 2 * T * 4;
  const mask = a.hiddenDropout > 0 ? T * a.hidden : 0;
  return layerNormInput + mask;
}
