// One layer's forward without grad (generation prefill, reference and reward models, evaluation): its largest
// live tensors. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { Architecture } from '../../architecture';

/**
 * One decoder layer's forward without grad (generation's prefill, evaluation during training): nothing is saved, so
 * the high point is the layer's input (the caller still holds it), the residual after attention, the norm's output and
 * the larger sub-block's temporaries. MLP: the activation, the up projection and their product (gated), or the two
 * GELU-side tensors; a mixture of experts runs expert by expert on its share of the tokens, beside the routed output
 * and the router's fp32 probabilities. Attention: q, k, v and their rotary copies, the key and value heads repeated for
 * grouped-query attention (eager, or SDPA with a padding mask: transformers repeat_kv), the attention output and, for
 * eager attention, the scores and their fp32 softmax. Checked against the profiler (tools/peak/measure_generation.py).
 */
export function noGradLayerBytes(
  a: Architecture,
  tokens: number,
  seq: number,
  cb: number,
  attention: 'eager' | 'sdpa' | 'flash',
  tp = 1,
  residualBytes = cb,
): number {
  const T = tokens;
  const h = a.hidden;
  const held = 2 * T * h * residualBytes + T * h * cb; // layer input, residual after attention (fp32 under autocast over fp32 weights), norm output
  const width = (a.gatedMlp ? 3 : 2) * cb;
  let mlp: number;
  if (a.moe) {
    const perExpert = (T * a.moe.topK) / a.moe.experts;
    mlp = Math.max(
      perExpert * (a.moe.expertFfn / tp) * width + T * h * cb + T * a.moe.experts * 4,
      T * (a.moe.sharedExpertFfn / tp) * width,
    );
  } else {
    mlp = T * (a.ffn / tp) * width;
  }
  const nh = a.heads / tp;
  const kv = Math.max(1, a.kvHeads / tp);
  const qkv = T * (nh + 2 * kv) * a.headDim * cb;
  const rotary = a.positions === 'rotary' ? T * (nh + kv) * a.headDim * cb : 0;
  const repeated = attention !== 'flash' && kv < nh ? 2 * T * nh * a.headDim * cb : 0;
  const scores = attention === 'eager' ? (T / Math.max(1, seq)) * nh * seq * seq * (cb + 4) : 0;
  // Gated attention (Qwen3-Next, Qwen3.5): q_proj also gives the output gate, and the gated product is one more tensor.
  const gateOut = a.attnOutputGate ? 2 * T * nh * a.headDim * cb : 0;
  let attn = qkv + rotary + repeated + scores + T * nh * a.headDim * cb + gateOut;
  const mb = a.mamba;
  if (mb) {
    // A Mamba2 layer: the in_proj output, the conv output, the scan output and the fp32 chunk states.
    const d = (mb.heads / tp) * mb.headDim;
    const gn = mb.groups * mb.state;
    const states = (T / Math.max(1, seq)) * Math.ceil(seq / mb.chunk) * (mb.heads / tp) * mb.headDim * mb.state;
    const mixer = T * cb * (2 * d + 2 * gn + mb.heads / tp + (d + 2 * gn) + d) + 4 * states;
    // Falcon-H1 runs both mixers in every layer; the others one or the other.
    attn = mb.parallel ? attn + mixer : Math.max(attn, mixer);
  }
  const m1 = a.mamba1;
  if (m1) {
    // A Mamba-1 layer (fused kernels): the in_proj output, the conv output, delta, the scan output, the norms' fp32
    // inputs and the fp32 per-chunk states.
    const I = m1.inner / tp;
    const chunks = (T / Math.max(1, seq)) * Math.ceil(seq / 2048);
    attn = Math.max(attn, T * cb * (2 * I + 3 * I) + 4 * T * (m1.dtRank + 2 * m1.state) + 8 * chunks * I * m1.state);
  }
  const la = a.linearAttention;
  if (la) {
    // A Gated DeltaNet layer: the q, k, v projection and its conv output, z, the normalised q and k, v's contiguous
    // copy, A (64 per token and value head), the kernel's output, and the gated norm's fp32 input and gate.
    const kd = (la.keyHeads / tp) * la.keyDim;
    const vd = (la.valueHeads / tp) * la.valueDim;
    attn = Math.max(attn, T * cb * (2 * (2 * kd + vd) + 2 * kd + 3 * vd + 64 * (la.valueHeads / tp)) + 2 * 4 * T * vd);
  }
  return held + Math.max(mlp, attn);
}
