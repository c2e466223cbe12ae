// T5: an encoder block and a decoder block with cross-attention, averaged. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { legacySoftmaxInput } from './attention';
import type { ActivationPlan } from './plan';
import { type SavedEntry, Tape, type Tensor, type Weight } from '../saved-tensors';

/** T5: average of one encoder block and one decoder block (self-attention, cross-attention, MLP). */
export function t5Blocks(p: ActivationPlan): {
  bytesPerLayer: number;
  entries: SavedEntry[];
  checkpointHeldBytes: number;
} {
  const a = p.arch;
  const tape = new Tape(p.mode, p.half);
  const T = p.batch * p.seq;
  const qd = (a.heads * a.headDim) / p.tp;
  const rb = p.weightBytes === 4 ? 4 : p.half;
  const w = (name: string, inF: number, outF: number): Weight => ({
    what: name,
    elems: (inF * outF) / p.tp,
    trainable: p.baseTrainable,
    bytesPerElem: p.weightBytes,
  });
  const lin = (x: Tensor, name: string, inF: number, outF: number): Tensor =>
    tape.linear(x, w(name, inF, outF), outF / (name === 'o' || name === 'wo' ? 1 : p.tp), `${name} output`);
  const attn = (x: Tensor, kv: Tensor, label: string): Tensor => {
    const q = lin(x, 'q', a.hidden, a.heads * a.headDim);
    const k = lin(kv, 'k', a.hidden, a.heads * a.headDim);
    const v = lin(kv, 'v', a.hidden, a.heads * a.headDim);
    const heads = a.heads / p.tp;
    const scores = tape.matmul(q, k, p.batch * heads * p.seq * p.seq, `${label} scores`);
    legacySoftmaxInput(tape, p, scores, `${label} softmax input`, 4);
    const sm = tape.unarySavesOutput(scores, `${label} softmax (fp32)`, 4);
    let probs = tape.to(sm, tape.computeBytes, `${label} probs`);
    probs = tape.dropout(probs, a.attentionDropout, `${label} dropout`);
    const out = tape.matmul(probs, v, T * qd, `${label} output`);
    return lin(tape.free(out, 'contiguous'), 'o', qd, a.hidden);
  };
  const ff = (x: Tensor): Tensor => {
    if (a.gatedMlp) {
      const g = lin(x, 'wi_0', a.hidden, a.ffn);
      const act = tape.unarySavesInput(g, 'gelu(wi_0 x)');
      const u = lin(x, 'wi_1', a.hidden, a.ffn);
      const prod = tape.mul(act, u, 'gelu * wi_1');
      const pd = tape.dropout(prod, a.hiddenDropout, 'ff dropout');
      return lin(pd, 'wo', a.ffn, a.hidden);
    }
    const h = lin(x, 'wi', a.hidden, a.ffn);
    const r = tape.unarySavesOutput(h, 'relu');
    const rd = tape.dropout(r, a.hiddenDropout, 'ff dropout');
    return lin(rd, 'wo', a.ffn, a.hidden);
  };
  const sub = (x: Tensor, f: (n: Tensor) => Tensor, label: string): Tensor => {
    const n = tape.rmsNorm(x, T, p.normsTrainable, `${label} layer_norm`, p.weightBytes, 't5');
    const y = f(n);
    tape.dropout(y, a.hiddenDropout, `${label} dropout`);
    return tape.tensor('residual', T * a.hidden, rb, true);
  };
  const rg = p.inputRequiresGrad || p.baseTrainable;
  let e = tape.tensor('encoder block input', T * a.hidden, rb, rg);
  e = sub(e, (n) => attn(n, n, 'self-attention'), 'encoder self-attention');
  sub(e, ff, 'encoder MLP');
  const encoderBytes = tape.totalBytes();
  const enc = tape.tensor('encoder output', T * a.hidden, rb, rg);
  let d = tape.tensor('decoder block input', T * a.hidden, rb, rg);
  d = sub(d, (n) => attn(n, n, 'decoder self-attention'), 'decoder self-attention');
  d = sub(d, (n) => attn(n, enc, 'cross-attention'), 'decoder cross-attention');
  sub(d, ff, 'decoder MLP');
  const decoderBytes = tape.totalBytes() - encoderBytes;
  // The first layer of each stack computes the relative-position bucket ids (int64, s x s), kept by the
  // embedding lookup of the bias.
  const buckets = 2 * p.seq * p.seq * 8;
  const total = encoderBytes * a.encoderLayers + decoderBytes * a.layers + buckets;
  // Under checkpointing the position bias (+ mask) tensors computed in the first layer are inputs of every
  // later layer and stay alive: one (b, heads, s, s) tensor for the encoder, two (self, cross) for the decoder.
  const cb = tape.computeBytes === 4 || p.mode === 'amp' ? (p.weightBytes === 4 ? 4 : 2) : 2;
  const heldBiases =
    (a.encoderLayers > 1 ? 1 : 0) * cb * p.batch * (a.heads / p.tp) * p.seq * p.seq +
    (a.layers > 1 ? 2 : 0) * cb * p.batch * (a.heads / p.tp) * p.seq * p.seq;
  return {
    bytesPerLayer: total / (a.encoderLayers + a.layers),
    entries: tape.entries(),
    checkpointHeldBytes: heldBiases,
  };
}
