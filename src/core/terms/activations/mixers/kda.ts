// Kimi Delta Attention, Kimi Linear's linear-attention token mixer. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { ActivationPlan, LinearFn } from '../plan';
import { Tape, type Tensor } from '../../saved-tensors';

/**
 * One Kimi Delta Attention token mixer (Kimi Linear's KDA layers), from the input norm's output to o_proj, as
 * modeling_kimi.py's KimiDeltaAttention runs in training with flash-linear-attention 0.4.1 (Axolotl's pin):
 * q, k, v each through its projection and a ShortConvolution with silu (fla's triton causal_conv1d keeps its input and
 * recomputes the conv); the forget gate f_b_proj(f_a_proj(x)) through fused_kda_gate (keeps its 16-bit input, returns
 * fp32); beta = sigmoid(b_proj(x).float()) (its fp32 output kept, and kept again by the kernel); chunk_kda with the q/k
 * L2 norm inside keeps the normalised q and k with an fp32 rstd per head row, v, the fp32 chunk-local cumsum of the gate,
 * beta and two 64-wide intra-chunk matrices per token and head (Aqk, Akk, in k's dtype), recomputing the chunk states;
 * FusedRMSNormGated (sigmoid) keeps its input, the output gate g_b_proj(g_a_proj(x)) and an fp32 rstd per head row;
 * o_proj. Frozen projections under LoRA: T(22P + 272H) bytes for a bf16 model, P = heads x head_dim (trainable ones add
 * the projections' inputs): tools/activations/kda.py measures it, byte for byte, on a torch reimplementation whose
 * kernels are autograd Functions that save what fla's save.
 */
export function kimiDeltaAttention(
  tape: Tape,
  p: ActivationPlan,
  x: Tensor,
  linear: LinearFn,
): { out: Tensor; workingBytes: number } {
  const la = p.arch.linearAttention!;
  const T = p.batch * p.seq;
  const H = la.keyHeads / p.tp;
  const d = la.keyDim;
  const P = H * d;
  const q = linear(x, 'q_proj', P, 'q_proj output');
  const k = linear(x, 'k_proj', P, 'k_proj output');
  const v = linear(x, 'v_proj', P, 'v_proj output');
  for (const t of [q, k, v]) if (t.rg) tape.save(t); // ShortConvolution keeps its input
  const fa = linear(x, 'f_a_proj', d, 'f_a_proj output');
  const fb = linear(fa, 'f_b_proj', P, 'f_b_proj output (forget gate)');
  if (fb.rg) tape.save(fb); // fused_kda_gate keeps its input and recomputes the fp32 gate
  const bProj = linear(x, 'b_proj', H, 'b_proj output');
  const beta = tape.unarySavesOutput(tape.to(bProj, 4, 'b_proj output (fp32)'), 'beta = sigmoid(b) (fp32)');
  const rg = q.rg || k.rg || v.rg || fb.rg || beta.rg;
  if (rg) {
    tape.saveExtra('q, k L2-normalised', 2 * T * P * q.bytesPerElem);
    tape.saveExtra('q, k rstd per head row (fp32)', 2 * T * H * 4);
    tape.saveExtra('v (the conv output)', T * P * v.bytesPerElem);
    tape.saveExtra('forget gate chunk-local cumsum (fp32)', T * P * 4);
    tape.save(beta);
    tape.saveExtra('Aqk and Akk: 64 per token and head each', 2 * T * H * 64 * k.bytesPerElem);
  }
  const o = tape.tensor('chunk_kda output', T * P, v.bytesPerElem, rg);
  const ga = linear(x, 'g_a_proj', d, 'g_a_proj output');
  const gate = linear(ga, 'g_b_proj', P, 'g_b_proj output (output gate)');
  if (o.rg || gate.rg) {
    tape.save(o);
    tape.save(gate);
    tape.saveExtra('gated norm rstd per head row (fp32)', T * H * 4);
  }
  const normed = tape.tensor('gated norm output', T * P, o.bytesPerElem, o.rg || gate.rg || p.normsTrainable);
  const out = linear(normed, 'o_proj', p.arch.hidden, 'o_proj output');
  // Backward: chunk_kda recomputes w, u, the gated q and k, v_new and the chunk states (64 tokens each) in the model
  // dtype and writes dq, dk, dv, dg (fp32) and dbeta; the states' gradients are fp32.
  const nc = Math.ceil(p.seq / 64);
  const states = p.batch * nc * H * d * d;
  const cb = tape.computeBytes;
  return { out, workingBytes: cb * T * 6 * P + 4 * T * P + (cb + 4) * states };
}
