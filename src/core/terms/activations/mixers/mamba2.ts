// The Mamba2 token mixer (Granite 4.0 H, Falcon-H1, Nemotron-H), fused kernels or torch_forward. Pure arithmetic;
// no I/O.
// Docs: docs/estimate/activations.md
import type { ActivationPlan, LinearFn } from '../plan';
import { Tape, type Tensor } from '../../saved-tensors';

/**
 * One Mamba2 mixer (Granite 4.0 H: Bamba's Mamba2 mixer in modeling_granitemoehybrid.py), from the input norm's output
 * to out_proj, in training (no cache):
 * - 'cuda' (mamba_ssm and causal-conv1d installed): in_proj, then mamba_split_conv1d_scan_combined runs the conv, the
 *   chunked scan, the gated RMSNorm and out_proj in one autograd Function that keeps the in_proj output, the scan output,
 *   the norm's fp32 rstd per token and group and A (fp32 per head), and recomputes the rest in backward. out_proj's
 *   weight is passed to the kernel directly, so a LoRA adapter on out_proj takes no part (the estimate counts its
 *   parameters, not activations).
 * - 'torch' (transformers' torch_forward): nn.Conv1d keeps its input and silu the padded conv output; the chunked SSD
 *   scan in fp32 over sequences padded to the chunk size keeps its per-chunk products, decays and states; the gated
 *   norm keeps its fp32 input, gate and factors; out_proj is an nn.Linear.
 * Every term reproduces tools/activations/mamba2.py (a torch reimplementation, the kernels emulated by autograd Functions
 * saving what state-spaces/mamba's ssd_combined.py saves) byte for byte.
 */
export function mamba2Mixer(
  tape: Tape,
  p: ActivationPlan,
  x: Tensor,
  linear: LinearFn,
): { out: Tensor; workingBytes: number } {
  const mb = p.arch.mamba!;
  const H = mb.heads / p.tp;
  const d = H * mb.headDim;
  const GN = mb.groups * mb.state;
  const nc = Math.ceil(p.seq / mb.chunk);
  const m: Mamba = {
    tape,
    p,
    mb,
    T: p.batch * p.seq,
    H,
    d,
    GN,
    projW: 2 * d + 2 * GN + H,
    convDim: d + 2 * GN,
    cb: tape.computeBytes,
    nc,
    states: p.batch * nc * H * mb.headDim * mb.state,
  };
  const projOut = linear(x, 'in_proj', m.projW, 'in_proj output (z, x, B, C, dt)');
  // Falcon-H1 scales the in_proj output by its mup_vector, a buffer in the model's load dtype (a product with a tensor
  // that needs no grad keeps only that tensor): under autocast with fp32 weights the product, which the kernel keeps, is
  // fp32.
  const bufferBytes = p.quantizedBase ? p.half : p.weightBytes;
  const proj = mb.parallel
    ? tape.free(projOut, 'in_proj output x mup_vector', projOut.elems, Math.max(projOut.bytesPerElem, bufferBytes))
    : projOut;
  if (p.mambaKernels === 'split' || p.mambaKernels === 'split-masked') return splitKernels(m, proj, linear);
  if (p.mambaKernels !== 'torch') return fusedKernel(m, proj);
  return torchForward(m, proj, linear);
}

/** One mixer's shapes on this rank: tokens, heads, the inner width d, B and C's width GN, chunks and state elements. */
interface Mamba {
  readonly tape: Tape;
  readonly p: ActivationPlan;
  readonly mb: NonNullable<ActivationPlan['arch']['mamba']>;
  readonly T: number;
  readonly H: number;
  readonly d: number;
  readonly GN: number;
  /** in_proj's output width: z, x, B, C, dt. */
  readonly projW: number;
  readonly convDim: number;
  readonly cb: number;
  /** Chunks of the sequence, and the elements of every chunk's state. */
  readonly nc: number;
  readonly states: number;
}

type MixerOut = { out: Tensor; workingBytes: number };

/**
 * NemotronH with a cache (use_cache defaults to on, and only gradient checkpointing turns it off) or a padded batch:
 * causal_conv1d_fn keeps its input, the in_proj output (a channel-last view); mamba_chunk_scan_combined keeps its output
 * and its x, dt, B, C views and the fp32 dA_cumsum; then the torch gated norm (grouped) and out_proj as an nn.Linear. On
 * a padded batch x is the masked product (x * attention_mask), a tensor of its own.
 */
function splitKernels(m: Mamba, proj: Tensor, linear: LinearFn): MixerOut {
  const { tape, p, mb, T, d, GN, H, cb, nc } = m;
  if (proj.rg) {
    tape.save(proj);
    if (p.mambaKernels === 'split-masked') tape.saveExtra('x masked for the padding (scan input)', T * d * cb);
    tape.saveExtra(
      "scan output, its fp32 dA_cumsum, the torch gated norm's fp32 input, gate and factors",
      T * (24 * d + 8 * GN + 2 * H + 4 * mb.normGroups) - 2 * T * m.projW + 4 * p.batch * nc * mb.chunk * H + 4 * H,
    );
  }
  if (p.baseTrainable) tape.saveExtra('exp(A_log) (fp32)', 4 * H);
  if (p.normsTrainable) tape.saveExtra('normalized input for the gated norm weight', 2 * T * d);
  const normed = tape.tensor('gated norm output', T * d, cb, proj.rg || p.normsTrainable);
  const out = linear(normed, 'out_proj', p.arch.hidden, 'out_proj output');
  return { out, workingBytes: cb * T * (m.projW + m.convDim + d) + 4 * m.states };
}

/** mamba_split_conv1d_scan_combined: the conv, the scan, the gated norm and out_proj in one autograd Function. */
function fusedKernel(m: Mamba, proj: Tensor): MixerOut {
  const { tape, p, mb, T, d, H } = m;
  if (proj.rg) {
    tape.save(proj);
    // The kernel keeps the scan output in its input's dtype (gated by z inside the kernel when there is no norm).
    tape.saveExtra(mb.gatedNorm ? 'scan output (before the gated norm)' : 'scan output', T * d * proj.bytesPerElem);
    if (mb.gatedNorm) tape.saveExtra('gated norm rstd per token and group (fp32)', T * mb.groups * 4);
    tape.saveExtra('A = -exp(A_log) (fp32)', H * 4);
  }
  if (p.baseTrainable) tape.saveExtra('exp(A_log) (fp32)', H * 4);
  const out = tape.tensor('out_proj output (in the fused kernel)', T * p.arch.hidden, m.cb, proj.rg || p.baseTrainable);
  // Backward recomputes the conv output and the chunk states (fp32) and writes the gradient of the in_proj output, in
  // the dtype of what the kernel received.
  return { out, workingBytes: proj.bytesPerElem * T * (m.projW + m.convDim + d) + 4 * m.states };
}

/** transformers' torch_forward: nn.Conv1d, the chunked SSD scan in fp32 over padded chunks, the gated norm, out_proj. */
function torchForward(m: Mamba, proj: Tensor, linear: LinearFn): MixerOut {
  const { tape, p, mb, T, d, H, cb, nc } = m;
  const C = mb.chunk;
  const Sp = p.batch * nc * C;
  const b = p.batch;
  if (proj.rg) torchScanSaved(m, proj);
  if (p.baseTrainable) tape.saveExtra("D x and exp(A_log) for the parameters' gradients (fp32)", 4 * H + 4 * Sp * d);
  if (p.normsTrainable && mb.gatedNorm) tape.saveExtra('normalized input for the gated norm weight (fp32)', 4 * T * d);
  const normed = tape.tensor('gated norm output', T * d, cb, proj.rg || p.normsTrainable);
  const out = linear(normed, 'out_proj', p.arch.hidden, 'out_proj output');
  // The reference chunked scan (transformers 5.17 mamba2_chunk_scan, the old torch_forward's SSD) contracts by
  // broadcasting: C[:, :, :, None] * B[:, :, None] is b x chunks x C x C x heads x state and M[..., None] *
  // x[:, :, None] b x chunks x C x C x heads x head_dim, both fp32, each summed at once. In backward MulBackward0 makes
  // the gradient of both broadcast inputs at that full size before reducing them to their shapes (the engine's
  // sum_to in validate_outputs): two such tensors at once. CPU truth suite `hybrid` (Granite 4.0 H, Falcon-H1,
  // Nemotron-H layouts): the backward peak sits there.
  const product = 4 * b * nc * C * C * H * Math.max(mb.state, mb.headDim);
  return { out, workingBytes: 2 * product + 8 * b * (nc + 1) * d * mb.state };
}

/** What torch_forward keeps for backward from the conv through the gated norm (or Falcon-H1's silu gate). */
function torchScanSaved(m: Mamba, proj: Tensor): void {
  const { tape, p, mb, T, d, GN, H, cb, nc } = m;
  const C = mb.chunk;
  const Sp = p.batch * nc * C;
  const b = p.batch;
  tape.saveExtra(
    'conv input, dt and gate paths, L2 of the scan inputs (fp32 where the scan works)',
    T * (8 * d + 4 * GN + 8 * H),
  );
  tape.saveExtra(
    'conv1d output, kernel - 1 padded positions included (kept by silu on its slice)',
    2 * b * m.convDim * (p.seq + mb.convKernel - 1),
  );
  tape.saveExtra(
    'chunked scan over padded tokens: x, B, C, decays and the chunk products (fp32)',
    Sp * (12 * d + 12 * H * mb.state + 12 * H * C + 8 * H),
  );
  tape.saveExtra(
    'chunk states and their decays (fp32)',
    8 * b * (nc + 1) * d * mb.state + 4 * b * H * (nc + 1) ** 2 + 2 * (nc + 1) ** 2,
  );
  tape.saveExtra('causal masks', 2 * C * C);
  tape.saveExtra('A = -exp(A_log) (fp32)', 4 * H);
  if (mb.gatedNorm)
    tape.saveExtra('gated norm: fp32 input, gate, rsqrt and factors', 12 * T * d + 4 * T * mb.normGroups);
  // Falcon-H1 without mamba_rms_norm: y * silu(gate), y (fp32) already counted with the scan.
  else tape.saveExtra('silu(gate)', 2 * T * d);
  if (proj.bytesPerElem > cb) {
    // Falcon-H1 under autocast with fp32 weights: the in_proj output x mup_vector is fp32 (kept by the conv's input
    // view), conv1d casts its input and weight to 16 bits (both copies kept), the dt path works in fp32, and the gate
    // is fp32 already: silu(gate) is fp32 without the gated norm, and the norm's gate.float() is no copy
    // (tools/activations/measure.py, falcon_h1 amp_bf16 torch cases, exact).
    tape.saveExtra(
      'fp32 in_proj output, 16-bit conv1d input and weight copies, fp32 dt path and gate',
      2 * T * m.projW +
        2 * T * m.convDim +
        2 * m.convDim * mb.convKernel +
        6 * T * H +
        (mb.gatedNorm ? -4 * T * d : 2 * T * d),
    );
  }
}
