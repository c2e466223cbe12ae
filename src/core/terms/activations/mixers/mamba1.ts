// The Mamba-1 token mixer (Jamba), selective-scan kernels or slow_forward. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { ActivationPlan, LinearFn } from '../plan';
import { Tape, type Tensor } from '../../saved-tensors';

/**
 * One Mamba-1 mixer (Jamba: modeling_jamba.py JambaMambaMixer), from the input norm's output to out_proj, in training
 * (no cache, no padding):
 * - 'cuda' (mamba_ssm and causal-conv1d installed): in_proj, causal_conv1d_fn on a view of its transposed output (the
 *   whole in_proj output is kept), x_proj on the conv output, RMSNorms over the time step, B and C (fp32 copies and
 *   rsqrt rows), dt_proj, then mamba_ssm's selective_scan_fn, which keeps contiguous copies of u (the channel-last conv
 *   output), delta, z (the gate view), B and C, its output, the fp32 per-chunk states (2048-token chunks), A, D and the
 *   delta bias in fp32; out_proj takes a contiguous copy of the transposed output.
 * - 'torch' (slow_forward, transformers' sequential scan): the discretized A and B (fp32, inner x state per token), the
 *   fp32 state after every step, its 16-bit copy per step for the output matmul, softplus in and out, silu's padded conv
 *   output (fp32 where autocast upcasts softplus over fp32 weights).
 * Every term reproduces tools/activations/mamba1.py (kernels emulated by autograd Functions saving what
 * state-spaces/mamba's selective_scan_interface.py and causal-conv1d save) byte for byte.
 */
export function mamba1Mixer(
  tape: Tape,
  p: ActivationPlan,
  x: Tensor,
  linear: LinearFn,
): { out: Tensor; workingBytes: number } {
  const m = p.arch.mamba1!;
  const b = p.batch;
  const s = p.seq;
  const T = b * s;
  const I = m.inner / p.tp;
  const N = m.state;
  const R = m.dtRank;
  const cb = tape.computeBytes;
  // Under autocast with fp32 weights the norms' outputs are fp32 and so are the scan's inputs that follow them.
  const f = p.mode === 'amp' && p.weightBytes === 4 ? 4 : cb;
  const normBytes = p.quantizedBase ? p.half : p.weightBytes;
  const proj = linear(x, 'in_proj', 2 * I, 'in_proj output (x, gate)');
  const rg = proj.rg;
  // The conv's input is a view of the first half of the transposed in_proj output: its whole storage is kept.
  if (rg) tape.save(proj);
  const norms = (conv: Tensor): Tensor => {
    const xo = linear(conv, 'x_proj', R + 2 * N, 'x_proj output (time step, B, C)');
    const dt = tape.rmsNorm(tape.view(xo, 'time step', T * R), T, p.normsTrainable, 'dt_layernorm', normBytes);
    tape.rmsNorm(tape.view(xo, 'B', T * N), T, p.normsTrainable, 'b_layernorm', normBytes);
    tape.rmsNorm(tape.view(xo, 'C', T * N), T, p.normsTrainable, 'c_layernorm', normBytes);
    return linear(dt, 'dt_proj', I, 'dt_proj output (without its bias)');
  };
  if (rg) tape.saveExtra('A = -exp(A_log) (fp32)', 4 * I * N);
  if (p.baseTrainable) tape.saveExtra('exp(A_log) (fp32)', 4 * I * N);
  const nc = Math.ceil(s / 2048);
  if (p.mambaKernels !== 'torch') {
    const conv = tape.tensor('conv1d output (channel-last)', T * I, cb, rg);
    norms(conv);
    if (rg) {
      tape.saveExtra('selective scan: contiguous u, delta and z, B and C, its output', 4 * 2 * T * I + 2 * 2 * T * N);
      tape.saveExtra(
        'selective scan: per-chunk states (fp32, 2048-token chunks), D and the delta bias (fp32)',
        8 * b * I * nc * N + 8 * I,
      );
    }
    const out = linear(
      tape.tensor('scan output (contiguous copy of its transpose)', T * I, cb, rg || p.baseTrainable),
      'out_proj',
      p.arch.hidden,
      'out_proj output',
    );
    // Backward: the scan's gradients of u, delta, z, B, C and the recomputed states.
    return { out, workingBytes: cb * T * (5 * I + 2 * N) + 8 * b * I * nc * N };
  }
  const conv = tape.tensor('silu(conv1d) output', T * I, cb, rg);
  if (rg) {
    tape.saveExtra(
      'conv1d output, kernel - 1 padded positions included (kept by silu on its slice)',
      2 * b * I * (s + m.convKernel - 1),
    );
    tape.saveExtra('softplus input and output (the time step)', 2 * f * T * I);
    tape.saveExtra(
      'discretized A and B (fp32, inner x state per token), B and u in fp32',
      8 * T * I * N + 4 * T * N + 4 * T * I,
    );
    // ssm_state.to(input_dtype) for the output matmul: a 16-bit copy per step, none when the scan's input is fp32.
    const stateCopies = cb < 4 ? cb * b * I * N * s : 0;
    tape.saveExtra(
      `the scan loop: the initial state, every step's fp32 state${cb < 4 ? ' and its 16-bit copy' : ''}, C`,
      f * b * I * N + 4 * b * I * N * (s - 1) + stateCopies + 2 * T * N,
    );
    tape.saveExtra('scan output and silu(gate)', f * T * I + 2 * T * I);
  }
  // x_proj reads the transposed silu output: a contiguous copy when the batch has more than one sequence (PyTorch >= 2
  // folds a transposed 3-D input), a view otherwise; u * D keeps the silu output for D's gradient.
  norms(b > 1 ? tape.free(conv, 'x_proj input (contiguous copy)') : conv);
  if (p.baseTrainable) tape.save(conv);
  const out = linear(
    tape.tensor('scan output x silu(gate) (contiguous copy of its transpose)', T * I, cb, rg || p.baseTrainable),
    'out_proj',
    p.arch.hidden,
    'out_proj output',
  );
  // Backward: the loop reads deltaA[:, :, i] and deltaB_u[:, :, i]; each SelectBackward0 makes a zero-filled fp32 tensor
  // of the whole b x inner x seq x state input (select_backward), and the engine adds the later ones into the first in
  // place (InputBuffer::accumulate): the two gradient buffers and the newest step's zeros, three at once.
  return { out, workingBytes: 3 * 4 * T * I * N };
}
