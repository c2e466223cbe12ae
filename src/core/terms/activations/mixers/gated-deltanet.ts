// Gated DeltaNet, the linear-attention token mixer of Qwen3-Next and Qwen3.5. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { ActivationPlan, LinearFn } from '../plan';
import { Tape, type Tensor } from '../../saved-tensors';

/**
 * One Gated DeltaNet token mixer (Qwen3-Next / Qwen3.5 linear attention), from the input norm's output to out_proj, as
 * transformers' Qwen3_5GatedDeltaNet runs it in training (modeling_qwen3_5.py @009e78d6; Qwen3-Next saves the same
 * bytes). The projections give q, k, v (one tensor: in_proj_qkv, or Qwen3-Next's torch.cat of in_proj_qkvz's parts),
 * the gate z and b, a; a depthwise causal conv1d with silu over the q, k, v channels; beta = sigmoid(b) and
 * g = -exp(A_log) * softplus(a.float() + dt_bias) in fp32; the chunked gated delta rule; an RMSNorm of each value head
 * gated by silu(z) in fp32; out_proj.
 * - 'fla' (flash-linear-attention >= 0.5 and causal-conv1d installed): causal_conv1d_fn keeps its input and recomputes
 *   silu; ChunkGatedDeltaRuleFunction keeps the L2-normalised q and k (key heads: transformers no longer repeats them
 *   for fla >= 0.5) with an fp32 rstd per head row, a contiguous copy of v, the fp32 chunk-local cumsum of g, beta and
 *   A (64 per token and value head), and recomputes the chunk states in backward.
 * - 'torch' (neither installed: torch_chunk_gated_delta_rule): nn.Conv1d keeps its input and silu the whole padded
 *   conv output; the chunked recurrence runs in fp32 over sequences padded to a multiple of 64 and keeps per chunk
 *   its C x C products, the solve_triangular results and the state.
 * Every term reproduces tools/activations/gated_deltanet.py, which measures a torch reimplementation of both paths
 * (the kernels emulated by autograd Functions that save what their sources save) byte for byte.
 */
export function gatedDeltaNet(
  tape: Tape,
  p: ActivationPlan,
  x: Tensor,
  linear: LinearFn,
): { out: Tensor; workingBytes: number } {
  const la = p.arch.linearAttention!;
  const hk = la.keyHeads / p.tp;
  const hv = la.valueHeads / p.tp;
  const kd = hk * la.keyDim;
  const vd = hv * la.valueDim;
  const m: Mixer = { tape, p, la, T: p.batch * p.seq, hk, hv, kd, vd, dc: 2 * kd + vd, cb: tape.computeBytes };
  const { qkv, z, bProj, aProj } = projections(m, x, linear);
  const torchPath = p.linearKernels === 'torch';
  // The conv keeps its input (nn.Conv1d and causal_conv1d_fn alike); F.silu on the [..., :s] slice of nn.Conv1d's
  // output keeps that whole (b, channels, s + K - 1) storage.
  if (qkv.rg || p.baseTrainable) {
    tape.save(qkv);
    if (torchPath)
      tape.saveExtra(
        'conv1d output, K - 1 padded positions included (kept by silu on its slice)',
        p.batch * m.dc * (p.seq + la.convKernel - 1) * m.cb,
      );
  }
  const conv = tape.free(qkv, 'silu(conv1d(q, k, v))', m.T * m.dc, m.cb);
  const beta = tape.unarySavesOutput(bProj, 'beta = sigmoid(b)');
  decay(m, aProj);
  if (conv.rg) {
    if (torchPath) torchRuleSaved(m);
    else flaRuleSaved(m, beta);
  }
  const o = tape.tensor('gated delta rule output', m.T * vd, m.cb, conv.rg);
  const normed = gatedNorm(m, o, z);
  const out = linear(normed, 'out_proj', p.arch.hidden, 'out_proj output');
  return { out, workingBytes: backwardWorkingBytes(m, torchPath) };
}

/** One mixer's shapes on this rank: tokens T, key / value heads and widths, the conv's channels dc, bytes per element. */
interface Mixer {
  readonly tape: Tape;
  readonly p: ActivationPlan;
  readonly la: NonNullable<ActivationPlan['arch']['linearAttention']>;
  readonly T: number;
  readonly hk: number;
  readonly hv: number;
  readonly kd: number;
  readonly vd: number;
  readonly dc: number;
  readonly cb: number;
}

/** q, k, v (one tensor), the gate z and b, a: Qwen3.5's four projections, or Qwen3-Next's two split into views. */
function projections(m: Mixer, x: Tensor, linear: LinearFn): { qkv: Tensor; z: Tensor; bProj: Tensor; aProj: Tensor } {
  const { tape, T, dc, vd, hv } = m;
  if (m.la.splitProjections)
    return {
      qkv: linear(x, 'in_proj_qkv', dc, 'in_proj_qkv output'),
      z: linear(x, 'in_proj_z', vd, 'in_proj_z output'),
      bProj: linear(x, 'in_proj_b', hv, 'in_proj_b output'),
      aProj: linear(x, 'in_proj_a', hv, 'in_proj_a output'),
    };
  // fix_query_key_value_ordering splits views of the two projections; torch.cat((q, k, v)) makes the conv's input.
  const qkvz = linear(x, 'in_proj_qkvz', dc + vd, 'in_proj_qkvz output');
  const ba = linear(x, 'in_proj_ba', 2 * hv, 'in_proj_ba output');
  return {
    qkv: tape.free(qkvz, 'q, k, v (torch.cat)', T * dc),
    z: tape.view(qkvz, 'z (view)', T * vd),
    bProj: tape.view(ba, 'b (view)', T * hv),
    aProj: tape.view(ba, 'a (view)', T * hv),
  };
}

/**
 * g = -exp(A_log) * softplus(a.float() + dt_bias): a.float() + dt_bias in fp32, kept by softplus; the product with
 * -exp(A_log) keeps that fp32 vector, and the softplus output (with exp(A_log)'s result for its own backward) when
 * A_log trains.
 */
function decay(m: Mixer, aProj: Tensor): void {
  const { tape, T, hv, p } = m;
  const spIn = tape.free(tape.to(aProj, 4, 'a.float()'), 'a.float() + dt_bias', T * hv, 4);
  const sp = tape.unarySavesInput(spIn, 'softplus(a + dt_bias)', 4);
  if (sp.rg) tape.saveExtra('-exp(A_log) (fp32)', hv * 4);
  if (p.baseTrainable) {
    tape.save(sp);
    tape.saveExtra('exp(A_log) (fp32)', hv * 4);
  }
}

/** What fla's ChunkGatedDeltaRuleFunction keeps (>= 0.5: q and k at the key heads). */
function flaRuleSaved(m: Mixer, beta: Tensor): void {
  const { tape, T, kd, hk, vd, hv, cb } = m;
  tape.saveExtra('q, k L2-normalised (fla, key heads)', 2 * T * kd * cb);
  tape.saveExtra('q, k rstd per head row (fp32)', 2 * T * hk * 4);
  tape.saveExtra('v (contiguous copy)', T * vd * cb);
  tape.saveExtra('g chunk-local cumsum (fp32)', T * hv * 4);
  tape.save(beta);
  tape.saveExtra('A: inverse of (I + beta K K^T) per chunk, 64 per token and value head', T * hv * 64 * cb);
}

/**
 * torch_chunk_gated_delta_rule: q and k repeated to the value heads and L2-normalised in fp32 (x and its inverse norm
 * kept for each), then everything in fp32 over P = b x 64 x ceil(s / 64) padded tokens.
 */
function torchRuleSaved(m: Mixer): void {
  const { tape, T, hv, p } = m;
  const C = 64;
  const nc = Math.ceil(p.seq / C);
  const P = p.batch * C * nc;
  const dk = m.la.keyDim;
  const dv = m.la.valueDim;
  tape.saveExtra('q, k repeated to the value heads, fp32, and their inverse norms', 8 * T * hv * dk + 8 * T * hv);
  tape.saveExtra(
    'key, k_beta, query x scale, key x decay, k_cumdecay (+ query x exp(g) past the first chunk), fp32',
    4 * hv * dk * (5 * P + (nc > 1 ? P : 0)),
  );
  tape.saveExtra('value, new values (solve_triangular), v_new, fp32', 12 * hv * dv * P);
  tape.saveExtra(
    'five 64 x 64 products per chunk (decay, k_beta K^T, Q K^T, the triangular system, intra-chunk attention), fp32',
    20 * C * hv * P,
  );
  tape.saveExtra('beta, exp of the cumulative decay (x3), chunk decay, fp32', 16 * hv * P + 4 * p.batch * hv * nc);
  tape.saveExtra('the state entering each chunk (dk x dv, fp32)', 4 * p.batch * hv * nc * dk * dv);
  tape.saveExtra('causal mask (bool)', C * C);
}

/**
 * Qwen3_5RMSNormGated over each value head: x.float() (kept by pow and the product), the fp32 rsqrt per row,
 * gate.float() (kept by silu), weight * x_hat (x_hat cast back to the input's dtype, the product in the wider of it
 * and the weight's: fp32 under autocast over fp32 weights) and silu(gate) in fp32 (kept by their product); x_hat in
 * the input's dtype for the norm weight's gradient. Returns the norm's output.
 */
function gatedNorm(m: Mixer, o: Tensor, z: Tensor): Tensor {
  const { tape, p, la, cb } = m;
  const rows = m.T * m.hv;
  const normWeightBytes = p.kbitUpcast !== undefined && p.kbitUpcast !== 'none' ? 4 : p.weightBytes;
  if (o.rg) {
    tape.save(tape.to(o, 4, 'gated norm input (fp32)'));
    tape.saveExtra('gated norm rsqrt (fp32)', rows * 4);
    tape.save(tape.to(z, 4, 'gate z (fp32)'));
    tape.saveExtra('weight x x_hat', rows * la.valueDim * Math.max(cb, normWeightBytes));
    tape.saveExtra('silu(gate) (fp32)', rows * la.valueDim * 4);
  }
  if (p.normsTrainable) tape.saveExtra('x_hat for the gated norm weight', rows * la.valueDim * cb);
  return tape.tensor('gated norm output', m.T * m.vd, cb, o.rg || p.normsTrainable);
}

/**
 * Backward: fla recomputes w, u, v_new (token-sized) and the chunk states in the model dtype, keeps the states'
 * gradients in fp32, and writes dq, dk, dv, dg, dbeta; the torch path holds the gradients of its largest fp32 chunk
 * products at a time.
 */
function backwardWorkingBytes(m: Mixer, torchPath: boolean): number {
  const { p, la, hv, cb, T } = m;
  const nc = Math.ceil(p.seq / 64);
  const states = p.batch * nc * hv * la.keyDim * la.valueDim;
  return torchPath
    ? 2 * 4 * hv * 64 * p.batch * 64 * nc + (cb + 4) * states
    : cb * T * (2 * hv * la.keyDim + 4 * m.vd + 2 * m.kd) + (cb + 4) * states;
}
