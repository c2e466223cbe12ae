// T5: an encoder block and a decoder block with cross-attention, averaged. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { legacySoftmaxInput } from './attention';
import { geluNew } from './mlp';
import { Tape, type Tensor } from '../saved-tensors';
import type { BlockContext } from './block';
import { type EncoderDecoderBlocks, encoderDecoderWorking } from './encoder-decoder';
import { linear } from './linear';

/**
 * T5: average of one encoder block and one decoder block (self-attention, cross-attention, MLP), on a tape of its own;
 * the linear layers with their LoRA adapters or (IA)^3 vectors as a decoder block's (linear.ts).
 */
export function t5Blocks(bc: BlockContext): EncoderDecoderBlocks {
  const p = bc.p;
  const a = p.arch;
  const tape = new Tape(p.mode, p.half);
  const own: BlockContext = { ...bc, tape };
  // The encoder reads the source (seq) and the decoder the target (targetSeq, else as long as the source).
  const S = p.seq;
  const Sd = p.targetSeq ?? p.seq;
  const [T, Td] = [p.batch * S, p.batch * Sd];
  const qd = (a.heads * a.headDim) / p.tp;
  const heads = a.heads / p.tp;
  const rb = p.weightBytes === 4 ? 4 : p.half;
  // o and wo are split along their input under tensor parallelism, the others along their output.
  const lin = (x: Tensor, name: string, outF: number): Tensor =>
    linear(own, x, name, outF / (name === 'o' || name === 'wo' ? 1 : p.tp), `${name} output`);
  // Each row's qLen queries over its kvLen keys and values.
  const attn = (x: Tensor, kv: Tensor, qLen: number, kvLen: number, label: string): Tensor => {
    const q = lin(x, 'q', a.heads * a.headDim);
    const k = lin(kv, 'k', a.heads * a.headDim);
    const v = lin(kv, 'v', a.heads * a.headDim);
    const scores = tape.matmul(q, k, p.batch * heads * qLen * kvLen, `${label} scores`);
    // transformers 4.x: softmax(scores.float()).type_as(scores), the fp32 output kept beside its cast; 5.x's eager
    // attention takes the softmax in the scores' dtype (halfSoftmax).
    const softmaxBytes = p.halfSoftmax ? tape.computeBytes : 4;
    legacySoftmaxInput(tape, p, scores, `${label} softmax input`, softmaxBytes);
    const sm = tape.unarySavesOutput(scores, `${label} softmax`, softmaxBytes);
    let probs = tape.to(sm, tape.computeBytes, `${label} probs`);
    probs = tape.dropout(probs, a.attentionDropout, `${label} dropout`);
    const out = tape.matmul(probs, v, p.batch * qLen * qd, `${label} output`);
    return lin(tape.free(out, 'contiguous'), 'o', a.hidden);
  };
  const ff = (x: Tensor): Tensor => {
    if (a.gatedMlp) {
      const g = lin(x, 'wi_0', a.ffn);
      // gated-gelu: gelu_new written out (NewGELUActivation), which keeps its chain's tensors; else one kernel.
      const act = a.geluKernel ? tape.unarySavesInput(g, 'act(wi_0 x)') : geluNew(tape, g);
      const u = lin(x, 'wi_1', a.ffn);
      const prod = tape.mul(act, u, 'gelu * wi_1');
      const pd = tape.dropout(prod, a.hiddenDropout, 'ff dropout');
      return lin(pd, 'wo', a.hidden);
    }
    const h = lin(x, 'wi', a.ffn);
    const r = tape.unarySavesOutput(h, 'relu');
    const rd = tape.dropout(r, a.hiddenDropout, 'ff dropout');
    return lin(rd, 'wo', a.hidden);
  };
  const sub = (x: Tensor, rows: number, f: (n: Tensor) => Tensor, label: string): Tensor => {
    const n = tape.rmsNorm(x, rows, p.normsTrainable, `${label} layer_norm`, p.weightBytes, 't5');
    const y = f(n);
    tape.dropout(y, a.hiddenDropout, `${label} dropout`);
    return tape.tensor('residual', rows * a.hidden, rb, true);
  };
  const rg = p.inputRequiresGrad || p.baseTrainable;
  let e = tape.tensor('encoder block input', T * a.hidden, rb, rg);
  e = sub(e, T, (n) => attn(n, n, S, S, 'self-attention'), 'encoder self-attention');
  sub(e, T, ff, 'encoder MLP');
  const encoderBytes = tape.totalBytes();
  const enc = tape.tensor('encoder output', T * a.hidden, rb, rg);
  let d = tape.tensor('decoder block input', Td * a.hidden, rb, rg);
  d = sub(d, Td, (n) => attn(n, n, Sd, Sd, 'decoder self-attention'), 'decoder self-attention');
  d = sub(d, Td, (n) => attn(n, enc, Sd, S, 'cross-attention'), 'decoder cross-attention');
  sub(d, Td, ff, 'decoder MLP');
  // The encoder's output is one tensor every decoder layer's cross-attention reads: kept once, not per layer.
  const encoderOutput = tape.entries().some((x) => x.what === 'encoder output') ? enc.storageBytes : 0;
  const decoderBytes = tape.totalBytes() - encoderBytes - encoderOutput;
  // The first layer of each stack computes the relative-position bucket ids (int64, s x s), kept by the
  // embedding lookup of the bias.
  const buckets = (S * S + Sd * Sd) * 8;
  const total = encoderBytes * a.encoderLayers + decoderBytes * a.layers + encoderOutput + buckets;
  // Under checkpointing the position bias (+ mask) tensors computed in the first layer are inputs of every
  // later layer and stay alive: one (b, heads, s, s) tensor for the encoder, two (self, cross) for the decoder.
  const cb = tape.computeBytes === 4 || p.mode === 'amp' ? (p.weightBytes === 4 ? 4 : 2) : 2;
  const heldBiases =
    (a.encoderLayers > 1 ? 1 : 0) * cb * p.batch * heads * S * S +
    (a.layers > 1 ? 1 : 0) * cb * p.batch * heads * (Sd * Sd + Sd * S);
  return {
    bytesPerLayer: total / (a.encoderLayers + a.layers),
    entries: tape.entries(),
    checkpointHeldBytes: heldBiases,
    backwardWorkingBytes: encoderDecoderWorking(bc, {
      S,
      Sd,
      decoderBytes,
      mlpWidth: a.gatedMlp ? 3 : 2,
      // The probabilities' gradient beside the scores' (fp32 softmax over 16-bit scores: the fp32 gradient and result
      // less the kept 16-bit copy), and ATen's GPU temporary.
      scoreGradBytes:
        (tape.computeBytes < 4 ? 8 - tape.computeBytes : 2 * tape.computeBytes) + (p.softmaxGradTemp ? 4 : 0),
    }),
    encoderStackBytes: encoderBytes * a.encoderLayers + S * S * 8,
  };
}
