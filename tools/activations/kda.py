#!/usr/bin/python3
"""Ground truth: bytes that one Kimi Delta Attention (KDA) token mixer of Kimi Linear saves for backward, as Axolotl
trains it.

Mirrors `KimiDeltaAttention.forward` of axolotl-ai-cloud/axolotl
src/axolotl/monkeypatch/models/kimi_linear/modeling_kimi.py @ 1e4d015475e3f5d48e6fb5517484f0bfd08b96bd (Moonshot's
modeling_kimi.py of Kimi-Linear-48B-A3B-Instruct, revision 6e163f3, patched for training), from the mixer input (the
output of input_layernorm, (b, s, hidden)) to the `o_proj` output (re-padded when a 2-D mask is given):

  q/k/v = {q,k,v}_conv1d(x={q,k,v}_proj(h))          ShortConvolution(P, K, activation='silu'), P = H * d
  g     = fused_kda_gate(f_b_proj(f_a_proj(h)), A_log, head_dim, g_bias=dt_bias)     (fp32 out, (.., H, d))
  beta  = b_proj(h).float().sigmoid()                                               (fp32)
  o, _  = chunk_kda(q, k, v, g, beta, initial_state=None, output_final_state=True, use_qk_l2norm_in_kernel=True,
                    cu_seqlens=cu_seqlens)
  o     = o_norm(o, g_b_proj(g_a_proj(h)) viewed (.., H, d))   FusedRMSNormGated(d, activation='sigmoid')
  out   = o_proj(o viewed (.., P))
With a 2-D padding mask: indices, cu_seqlens = get_unpad_data(mask); h = index_first_axis(h flattened, indices)[None];
out = pad_input(out[0], indices, b, s). Training needs s > 64 (s <= 64 selects fused_recurrent, which asserts).

Kernels (fla-org/flash-linear-attention; Axolotl pins fla-core == flash-linear-attention == 0.4.1, released on PyPI
2025-12-24), emulated by autograd.Functions that save exactly what the real ones save, with the values of a torch
reference (naive recurrent KDA) so that backward runs:
* fla/modules/convolution.py @ 92396f250f2c8f0ad841cecfe29069c8a71a83eb: ShortConvolution(backend='triton') is the
  default (the constructor default; env FLA_CONV_BACKEND overrides) -> causal_conv1d(backend='triton') ->
  CausalConv1dFunction: @input_guard(no_guard_contiguous=['x']), ctx.save_for_backward(x, weight, bias=None,
  residual=None, initial_state=None); x is the projection output as is (bf16 (b, s, P)), weight the (P, K) view of the
  parameter; cu_seqlens / chunk_indices kept as ctx attributes (not saved tensors); the conv output is not saved
  (backward re-runs the conv, without activation, to get the pre-silu values).
  backend='cuda' (Dao-AILab causal_conv1d installed and asked for): x = rearrange(x, 'b t d -> b d t').contiguous()
  (a (b, P, s) copy), seq_idx = prepare_sequence_ids(cu_seqlens).to(int32)[None] when varlen, then causal-conv1d's
  CausalConv1dFn saves (x copy, weight, bias, seq_idx, initial_states); its output is returned as a (b, s, P) view of
  a (b, P, s) tensor, so chunk_kda's @input_guard copies q, k, v to contiguous ones (an older convolution.py, stored
  file id 35182144713 with the same ShortConvolution, passes the transposed view without .contiguous(): then x is
  saved as a channel-last view of the projection output and nothing is copied). Same bytes as triton either way
  without a mask; + 3 int32 seq_idx (4 T each) with one. backend 'mix' (reachable only through FLA_CONV_BACKEND,
  the constructor accepts 'cuda' / 'triton') is FastCausalConv1dFn: saves (x, weight, bias, seq_idx, None), i.e.
  the triton bytes plus seq_idx with a mask.
* fla/ops/kda/gate.py: Axolotl calls the fla 0.4.0 API fused_kda_gate(g, A, head_k_dim, g_bias=dt_bias) (g flat
  (.., H*d)); KDAGateFunction.forward: @input_guard, ctx.save_for_backward(g, A), ctx.g_bias = g_bias, returns
  torch.empty_like(g, dtype=torch.float32) viewed (.., H, d). From fla 0.4.1 on the API is
  fused_kda_gate(g (.., H, d), A_log, dt_bias=None, lower_bound=None, output_dtype=torch.float32)
  (gate.py @ 2ff8338ddc5e662a3797f903ca9e00adc78f05da, 2026; the Dec 2025 generation that chunk.py @ df21b259
  imports has kda_gate_fwd(g, A_log, dt_bias) and fused_kda_gate(g, A_log, dt_bias=None, output_dtype=fp32), stored
  file id 4765942767): ctx.save_for_backward(g, A_log, dt_bias), output fp32. Axolotl's call (head_dim positional,
  g_bias=) raises TypeError under 0.4.1 (unexpected keyword 'g_bias'); the `0.4.1` variant runs the call adapted
  (g viewed (.., H, d), dt_bias=). Both save the bf16 f_b_proj output (b, s, P) plus parameters: same bytes.
* fla/ops/kda/chunk.py @ df21b2592becb2ccb0ab3be2e5d3acb44e8ba2ed (Dec 2025, before fla 0.4.1; the save list is the
  same @ b8e57569c6d144d9531db3e5a497727583d5943d and @ 92396f25): ChunkKDAFunction.forward, @input_guard (every tensor
  argument made contiguous), q, q_rstd = l2norm_fwd(q); k, k_rstd = l2norm_fwd(k) (q, k bf16 new tensors, rstd fp32
  (B, T, H)); g = chunk_local_cumsum(g, 64, scale=RCP_LN2) (new fp32 (B, T, H, d)); o, Aqk, Akk, final_state =
  chunk_kda_fwd(...); ctx.save_for_backward(q, q_rstd, k, k_rstd, v, g, g_org=None, beta, A_log=None, dt_bias=None,
  Aqk, Akk, initial_state=None, cu_seqlens, chunk_indices=None). chunk_kda_fwd_intra (fla/ops/kda/chunk_intra.py
  @ b8e57569c6d144d9531db3e5a497727583d5943d, the generation chunk.py @ df21b259 calls: w, u, kg, Aqk, Akk =
  chunk_kda_fwd_intra(q, k, v, ...)) allocates Aqk = torch.empty(B, T, H, 64, dtype=k.dtype) and
  Akk = torch.zeros(B, T, H, 64, dtype=k.dtype) (the solved inverse; the fp32 diagonal blocks Akkd are freed).
  w, u, qg, kg, v_new and the chunk states h are freed and recomputed in backward (recompute_w_u_fwd +
  chunk_gated_delta_rule_fwd_h). beta is Axolotl's fp32 sigmoid output (same storage as the sigmoid's saved result).
  Later files (@ 92396f25, 2026) compute chunk_indices = prepare_chunk_indices(cu_seqlens, 64) in forward and save it
  ((NT, 2) int32, 8 NT bytes with a mask); fla 0.4.0's chunk_kda_fwd_intra(output_dtype=torch.float32) kept Aqk in
  fp32 (variant `0.4.0`, read in a stored chunk_intra.py whose repository the index does not name and in vendored
  copies carrying fla's comment "the intra Aqk is kept in fp32"; not in a tagged fla file).
* fla/modules/fused_norm_gate.py @ 18cc5e82fd22ef1b5de81980877eff554f216aac: FusedRMSNormGated -> rms_norm_gated ->
  LayerNormGatedFunction: @input_guard, x/g reshaped (-1, d), ctx.save_for_backward(residual_out (= x), g, weight,
  bias=None, mean=None, rstd fp32 (b*s*H,)); activation 'sigmoid' only changes the kernel.
* fla/layers/utils.py @ 00937f204bb709bd93e469a1983104db0a06a5df and fla/ops/utils/index.py
  @ 0091f40ddbe5c84c39bff490691814aaac1f8407: get_unpad_data -> indices = nonzero(mask.flatten()) (int64),
  cu_seqlens int32 (b + 1); IndexFirstAxis / IndexPutFirstAxis save indices (one storage for both; get_unpad_data is
  @tensor_cache, so every KDA layer of a model gets the same indices tensor).

Conventions follow gated_deltanet.py / measure.py: torch.autograd.graph.saved_tensors_hooks, every saved tensor's
storage counted once by its full nbytes (a saved view costs its whole storage), parameters (and views of them) and
0-dim scalars reported apart. No torch-1.13 artefact is involved here (sigmoid keeps its output, .float() keeps
nothing, linears on contiguous 3-D inputs keep the input view in 1.13 and >= 2 alike).

Parameters are either all frozen (LoRA-style: only the mixer input requires grad) or all trainable; the model is
bf16 without autocast (A_log and dt_bias cast to bf16 with it, as from_pretrained(torch_dtype=bf16) does: the model
has no _keep_in_fp32_modules), no cache, no gradient checkpointing. Masks: `none`; `ones`, a 2-D all-ones mask given
to the mixer (KimiLinearModel._update_linear_attn_mask drops an all-ones mask, so in the full model this path runs
only with real padding); `padded`, left padding (Kimi's convention) with T < b*s valid tokens.

Run with Debian's torch (1.13, CPU): /usr/bin/python3 tools/activations/kda.py [--quick] [--tensors] [--out F]
Prints one JSON line per (point, fla, conv, mask, params) with the measured bytes and the closed-form formula's bytes
(formula_bytes() below), and exits 1 if any case differs. Last full run: 126/126 cases exact (~40 s).
"""
import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gated_deltanet as gdn  # noqa: E402  (same folder: Recorder, summarize, prepare, record, emit_case, write_cases)

SOURCES = {
    "axolotl": "axolotl-ai-cloud/axolotl src/axolotl/monkeypatch/models/kimi_linear/modeling_kimi.py@1e4d015475e3f5d48e6fb5517484f0bfd08b96bd",
    "fla_conv": "fla-org/flash-linear-attention fla/modules/convolution.py@92396f250f2c8f0ad841cecfe29069c8a71a83eb",
    "fla_gate": "fla-org/flash-linear-attention fla/ops/kda/gate.py@2ff8338ddc5e662a3797f903ca9e00adc78f05da",
    "fla_chunk": "fla-org/flash-linear-attention fla/ops/kda/chunk.py@df21b2592becb2ccb0ab3be2e5d3acb44e8ba2ed",
    "fla_chunk_intra": "fla-org/flash-linear-attention fla/ops/kda/chunk_intra.py@b8e57569c6d144d9531db3e5a497727583d5943d",
    "fla_chunk_later": "fla-org/flash-linear-attention fla/ops/kda/chunk.py@92396f250f2c8f0ad841cecfe29069c8a71a83eb",
    "fla_norm": "fla-org/flash-linear-attention fla/modules/fused_norm_gate.py@18cc5e82fd22ef1b5de81980877eff554f216aac",
    "fla_unpad": "fla-org/flash-linear-attention fla/layers/utils.py@00937f204bb709bd93e469a1983104db0a06a5df",
    "fla_index": "fla-org/flash-linear-attention fla/ops/utils/index.py@0091f40ddbe5c84c39bff490691814aaac1f8407",
    "causal_conv1d": "Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py@17f4f2fe12abc9d7fbbb180624e415ff2c1581d2",
}

CHUNK = 64                   # chunk size of chunk_kda (BT)
RCP_LN2 = 1.0 / math.log(2.0)


# ----------------------------------------------------------------------------------------
# torch references (values only; the emulated backward differentiates through them)
# ----------------------------------------------------------------------------------------
def _segments(B, T, cu_seqlens):
    """(batch row, start, end) of every sequence: one per row, or the cu_seqlens spans of a (1, T) varlen batch."""
    if cu_seqlens is None:
        return [(i, 0, T) for i in range(B)]
    cu = cu_seqlens.tolist()
    return [(0, cu[i], cu[i + 1]) for i in range(len(cu) - 1)]


def conv_ref(x, w, cu_seqlens):
    """silu(causal depthwise conv) of x (B, T, D) with weight (D, W), zero state at every sequence start; fp32."""
    B, T, D = x.shape
    W = w.shape[-1]
    out = []
    for bi, s0, s1 in _segments(B, T, cu_seqlens):
        xs = x[bi:bi + 1, s0:s1].float().transpose(1, 2)  # (1, D, t)
        y = F.conv1d(xs, w.float().unsqueeze(1), None, padding=W - 1, groups=D)[..., : s1 - s0]
        out.append(F.silu(y).transpose(1, 2))
    if cu_seqlens is None:
        return torch.cat(out, 0)
    return torch.cat(out, 1)


def gate_ref(g, A, bias, H, d):
    """-exp(A) * softplus(g + bias), fp32 (.., H, d) (fla's kda_gate_fwd, beta=1, threshold=20)."""
    gf = g.float().reshape(*g.shape[:-1], H, d) if g.shape[-1] == H * d and g.dim() == 3 else g.float()
    if bias is not None:
        gf = gf + bias.float().view(H, d)
    return -A.float().reshape(H, 1).exp() * F.softplus(gf)


def l2norm_ref(x, eps=1e-6):
    """fla.modules.l2norm.l2norm_fwd: y = x * rsqrt(sum x^2 + eps) in fp32, stored in x.dtype; rstd fp32 x.shape[:-1]."""
    xf = x.float()
    rstd = torch.rsqrt((xf * xf).sum(-1) + eps)
    return (xf * rstd[..., None]).to(x.dtype), rstd


def kda_ref(q, k, v, g, beta, scale, cu_seqlens):
    """Naive recurrent KDA (fla/ops/kda/naive.py) with the in-kernel q/k L2 norm; returns (o in v.dtype, final states
    fp32 (N, H, d, dv))."""
    B, T, H, K = q.shape
    qn, _ = l2norm_ref(q)
    kn, _ = l2norm_ref(k)
    qn, kn, vf, gf, bf = qn.float() * scale, kn.float(), v.float(), g.float(), beta.float()
    outs, finals = [], []
    for bi, s0, s1 in _segments(B, T, cu_seqlens):
        S = torch.zeros(1, H, K, v.shape[-1])
        rows = []
        for t in range(s0, s1):
            S = S * gf[bi:bi + 1, t, :, :, None].exp()
            kt = kn[bi:bi + 1, t]
            u = vf[bi:bi + 1, t] - (kt[..., None] * S).sum(-2)
            S = S + (bf[bi:bi + 1, t, :, None] * kt)[..., None] * u[..., None, :]
            rows.append((qn[bi:bi + 1, t, :, :, None] * S).sum(-2))
        outs.append(torch.stack(rows, 1))
        finals.append(S)
    o = torch.cat(outs, 0 if cu_seqlens is None else 1)
    return o.to(v.dtype), torch.cat(finals, 0)


def gated_rms_ref(x, g, w, eps):
    """rmsnorm(x) * w * sigmoid(g) in fp32, stored in x.dtype (LayerNormGatedFunction, is_rms_norm, 'sigmoid')."""
    xf = x.float()
    rstd = torch.rsqrt((xf * xf).mean(-1, keepdim=True) + eps)
    return (xf * rstd * w.float() * torch.sigmoid(g.float())).to(x.dtype)


def _grads(fn, tensors, needs, dout):
    """Gradients of fn(*tensors) w.r.t. the tensors that need one (None elsewhere), in their dtypes."""
    with torch.enable_grad():
        ins = [t.detach().requires_grad_(bool(n)) if isinstance(t, torch.Tensor) and t.is_floating_point() else t
               for t, n in zip(tensors, needs)]
        want = [t for t, n in zip(ins, needs) if n and isinstance(t, torch.Tensor)]
        out = fn(*ins)
        gr = iter(torch.autograd.grad(out, want, dout.to(out.dtype), allow_unused=True)) if want else iter(())
    res = []
    for t, n in zip(ins, needs):
        if n and isinstance(t, torch.Tensor):
            gi = next(gr)
            res.append(torch.zeros_like(t) if gi is None else gi.to(t.dtype))
        else:
            res.append(None)
    return res


# ----------------------------------------------------------------------------------------
# ShortConvolution (fla/modules/convolution.py)
# ----------------------------------------------------------------------------------------
class CausalConv1dFunction(torch.autograd.Function):
    """fla triton CausalConv1dFunction (activation 'silu', no bias / residual / initial state): x saved as passed
    (no_guard_contiguous=['x']); y = torch.empty_like(x, memory_format=contiguous); cu_seqlens a ctx attribute."""

    @staticmethod
    def forward(ctx, x, weight, cu_seqlens):
        ctx.cu_seqlens = cu_seqlens
        ctx.save_for_backward(x, weight, None, None, None)
        with torch.no_grad():
            ref = conv_ref(x, weight, cu_seqlens)
        y = torch.empty_like(x, memory_format=torch.contiguous_format)
        y.copy_(ref)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, _, _, _ = ctx.saved_tensors
        dx, dw = _grads(lambda a, b: conv_ref(a, b, ctx.cu_seqlens), (x, weight), ctx.needs_input_grad[:2], dy)
        return dx, dw, None


class DaoCausalConv1dFn(torch.autograd.Function):
    """causal_conv1d.CausalConv1dFn (Dao-AILab) on x (B, D, T): x copied only if neither stride(1) nor stride(2) is 1;
    seq_idx made contiguous; out = torch.empty_like(x); ctx.save_for_backward(x, weight, bias, seq_idx,
    initial_states)."""

    @staticmethod
    def forward(ctx, x, weight, seq_idx, cu_seqlens):
        if x.stride(2) != 1 and x.stride(1) != 1:
            x = x.contiguous()
        seq_idx = seq_idx.contiguous() if seq_idx is not None else None
        ctx.cu_seqlens = cu_seqlens
        # detached: same storage (1.13 cannot unpack a no-grad view of an input that requires grad)
        ctx.save_for_backward(x.detach(), weight, None, seq_idx, None)
        with torch.no_grad():
            ref = conv_ref(x.transpose(1, 2), weight, cu_seqlens).transpose(1, 2)
        out = torch.empty_like(x)
        out.copy_(ref)
        return out

    @staticmethod
    def backward(ctx, dout):
        x, weight, _, _, _ = ctx.saved_tensors
        fn = lambda a, b: conv_ref(a.transpose(1, 2), b, ctx.cu_seqlens).transpose(1, 2)  # noqa: E731
        dx, dw = _grads(fn, (x, weight), ctx.needs_input_grad[:2], dout)
        return dx, dw, None, None


def prepare_sequence_ids(cu_seqlens):
    """fla.ops.utils.index.prepare_sequence_ids: position_ids.eq(0).cumsum(0) - 1 (int64)."""
    lens = (cu_seqlens[1:] - cu_seqlens[:-1]).tolist()
    return torch.cat([torch.full((n,), i, dtype=torch.int64) for i, n in enumerate(lens)])


class ShortConvolution(nn.Module):
    """fla ShortConvolution(hidden_size, kernel_size, bias=False, activation='silu', backend='triton'): an nn.Conv1d
    weight (D, 1, W); forward -> causal_conv1d(x, weight=rearrange(weight, 'd 1 w -> d w'), ...)."""

    def __init__(self, hidden_size, kernel_size, backend="triton"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(hidden_size, 1, kernel_size))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        self.backend = backend

    def forward(self, x, cu_seqlens=None):
        w = self.weight.view(self.weight.shape[0], self.weight.shape[-1])  # rearrange 'd 1 w -> d w'
        if self.backend == "triton":
            return CausalConv1dFunction.apply(x, w, cu_seqlens)
        # backend 'cuda' (causal_conv1d branch of fla's causal_conv1d, no cache)
        xt = x.transpose(1, 2).contiguous()  # rearrange(x, 'b t d -> b d t').contiguous()
        seq_idx = prepare_sequence_ids(cu_seqlens).to(torch.int32).unsqueeze(0) if cu_seqlens is not None else None
        y = DaoCausalConv1dFn.apply(xt, w, seq_idx, cu_seqlens)
        return y.transpose(1, 2)  # rearrange(y, 'b d t -> b t d'): a view


# ----------------------------------------------------------------------------------------
# fused_kda_gate (fla/ops/kda/gate.py)
# ----------------------------------------------------------------------------------------
class KDAGateFunction040(torch.autograd.Function):
    """fla 0.4.0 KDAGateFunction(g (.., H*d), A, head_k_dim, g_bias): @input_guard; ctx.save_for_backward(g, A);
    ctx.g_bias = g_bias; y = empty_like(g, fp32) viewed (.., H, d)."""

    @staticmethod
    def forward(ctx, g, A, head_k_dim, g_bias):
        g = g.contiguous()
        H = A.numel()
        ctx.H, ctx.d, ctx.g_bias = H, head_k_dim, g_bias
        ctx.save_for_backward(g, A)
        with torch.no_grad():
            y = gate_ref(g, A, g_bias, H, head_k_dim)
        return y

    @staticmethod
    def backward(ctx, dy):
        g, A = ctx.saved_tensors
        needs = (ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.needs_input_grad[3])
        dg, dA, db = _grads(lambda a, b, c: gate_ref(a, b, c, ctx.H, ctx.d), (g, A, ctx.g_bias), needs, dy)
        return dg, dA, None, db


class KDAGateFunction041(torch.autograd.Function):
    """fla >= 0.4.1 KDAGateFunction(g (.., H, d), A_log, dt_bias, lower_bound=None, output_dtype=fp32): @input_guard;
    yg = empty_like(g, dtype=fp32); ctx.save_for_backward(g, A_log, dt_bias)."""

    @staticmethod
    def forward(ctx, g, A_log, dt_bias):
        g = g.contiguous()
        ctx.save_for_backward(g, A_log, dt_bias)
        with torch.no_grad():
            y = gate_ref(g, A_log, dt_bias, g.shape[-2], g.shape[-1])
        return y

    @staticmethod
    def backward(ctx, dy):
        g, A_log, dt_bias = ctx.saved_tensors
        fn = lambda a, b, c: gate_ref(a, b, c, a.shape[-2], a.shape[-1])  # noqa: E731
        return tuple(_grads(fn, (g, A_log, dt_bias), ctx.needs_input_grad[:3], dy))


# ----------------------------------------------------------------------------------------
# chunk_kda (fla/ops/kda/chunk.py)
# ----------------------------------------------------------------------------------------
def chunk_local_cumsum(g, cu_seqlens, scale):
    """chunk-local cumsum over 64-token chunks restarting at every sequence start, * scale, new fp32 tensor."""
    B, T = g.shape[:2]
    out = torch.empty_like(g, dtype=torch.float32)
    for bi, s0, s1 in _segments(B, T, cu_seqlens):
        for c0 in range(s0, s1, CHUNK):
            c1 = min(c0 + CHUNK, s1)
            out[bi, c0:c1] = g[bi, c0:c1].float().cumsum(0) * scale
    return out


class ChunkKDAFunction(torch.autograd.Function):
    """ChunkKDAFunction.forward with use_qk_l2norm_in_kernel=True, use_gate_in_kernel=False, no initial state:
    @input_guard (tensor args contiguous), l2norm_fwd(q), l2norm_fwd(k), g = chunk_local_cumsum(g) (fp32), Aqk
    (B, T, H, 64) in aqk_dtype (k.dtype in fla 0.4.1, fp32 in 0.4.0), Akk (B, T, H, 64) in k.dtype;
    ctx.save_for_backward(q, q_rstd, k, k_rstd, v, g, None, beta, None, None, Aqk, Akk, None, cu_seqlens, None)."""

    @staticmethod
    def forward(ctx, q, k, v, g, beta, scale, cu_seqlens, aqk_dtype):
        q, k, v, g, beta = (t.contiguous() for t in (q, k, v, g, beta))  # @input_guard
        ctx.inputs = tuple(t.detach() for t in (q, k, v, g, beta))  # for the emulated backward only, not "saved"
        ctx.scale, ctx.cu_seqlens = scale, cu_seqlens
        qn, q_rstd = l2norm_ref(q)
        kn, k_rstd = l2norm_ref(k)
        g_cum = chunk_local_cumsum(g, cu_seqlens, RCP_LN2)
        B, T, H, _ = q.shape
        Aqk = torch.zeros(B, T, H, CHUNK, dtype=aqk_dtype)
        Akk = torch.zeros(B, T, H, CHUNK, dtype=k.dtype)
        with torch.no_grad():
            ref, final_state = kda_ref(*ctx.inputs, scale, cu_seqlens)
        o = torch.empty_like(v)  # chunk_gla_fwd_o_gk: o = torch.empty_like(v)
        o.copy_(ref)
        ctx.save_for_backward(qn, q_rstd, kn, k_rstd, v.detach(), g_cum, None, beta.detach(), None, None, Aqk, Akk,
                              None, cu_seqlens, None)
        ctx.mark_non_differentiable(final_state)
        return o, final_state

    @staticmethod
    def backward(ctx, do, dht):
        needs = ctx.needs_input_grad[:5]
        fn = lambda *a: kda_ref(*a, ctx.scale, ctx.cu_seqlens)[0]  # noqa: E731
        return (*_grads(fn, ctx.inputs, needs, do), None, None, None)


def chunk_kda(q, k, v, g, beta, scale=None, initial_state=None, output_final_state=False,
              use_qk_l2norm_in_kernel=False, cu_seqlens=None, aqk_dtype=torch.bfloat16):
    assert initial_state is None and use_qk_l2norm_in_kernel
    if cu_seqlens is not None:
        assert q.shape[0] == 1
    assert q.shape == k.shape == g.shape and beta.shape == q.shape[:3]
    if scale is None:
        scale = k.shape[-1] ** -0.5
    o, final_state = ChunkKDAFunction.apply(q, k, v, g, beta, scale, cu_seqlens, aqk_dtype)
    return o, (final_state if output_final_state else None)


# ----------------------------------------------------------------------------------------
# FusedRMSNormGated (fla/modules/fused_norm_gate.py)
# ----------------------------------------------------------------------------------------
class LayerNormGatedFunction(torch.autograd.Function):
    """is_rms_norm=True, no residual, activation 'sigmoid': @input_guard, x/g reshaped (-1, d),
    ctx.save_for_backward(residual_out (= x), g, weight, bias=None, mean=None, rstd fp32 (M,))."""

    @staticmethod
    def forward(ctx, x, g, weight, eps):
        x, g = x.contiguous(), g.contiguous()  # @input_guard
        shape = x.shape
        x, g = x.reshape(-1, x.shape[-1]), g.reshape(-1, g.shape[-1])
        with torch.no_grad():
            xf = x.float()
            rstd = torch.rsqrt((xf * xf).mean(-1) + eps)
            y = gated_rms_ref(x, g, weight, eps)
        ctx.eps = eps
        # detached: same storages (1.13 cannot unpack a no-grad view of an input that requires grad)
        ctx.save_for_backward(x.detach(), g.detach(), weight, None, None, rstd)
        return y.reshape(shape)

    @staticmethod
    def backward(ctx, dy):
        x, g, weight, _, _, _ = ctx.saved_tensors
        fn = lambda a, b, c: gated_rms_ref(a, b, c, ctx.eps)  # noqa: E731
        dx, dg, dw = _grads(fn, (x, g, weight), ctx.needs_input_grad[:3], dy.reshape(x.shape))
        return dx.reshape(dy.shape), dg.reshape(dy.shape), dw, None


class FusedRMSNormGated(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, activation="sigmoid"):
        super().__init__()
        assert activation == "sigmoid"
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x, g):
        return LayerNormGatedFunction.apply(x, g, self.weight, self.eps)


# ----------------------------------------------------------------------------------------
# unpad / pad (fla/layers/utils.py)
# ----------------------------------------------------------------------------------------
class IndexFirstAxis(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, indices):
        ctx.save_for_backward(indices)
        ctx.first_axis_dim, other_shape = x.shape[0], x.shape[1:]
        second_dim = other_shape.numel()
        return torch.gather(x.reshape(x.shape[0], -1), 0,
                            indices[:, None].expand(-1, second_dim)).reshape(-1, *other_shape)

    @staticmethod
    def backward(ctx, do):
        (indices,) = ctx.saved_tensors
        other_shape = do.shape[1:]
        do = do.reshape(do.shape[0], -1)
        dx = torch.zeros(ctx.first_axis_dim, do.shape[1], dtype=do.dtype)
        dx.scatter_(0, indices[:, None].expand(-1, do.shape[1]), do)
        return dx.reshape(ctx.first_axis_dim, *other_shape), None


class IndexPutFirstAxis(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, indices, first_axis_dim):
        ctx.save_for_backward(indices)
        y = torch.zeros(first_axis_dim, *x.shape[1:], dtype=x.dtype)
        y[indices] = x
        return y

    @staticmethod
    def backward(ctx, do):
        (indices,) = ctx.saved_tensors
        return do[indices], None, None


def get_unpad_data(attention_mask):
    lens = attention_mask.sum(dim=-1, dtype=torch.int32)
    indices = torch.nonzero(attention_mask.flatten(), as_tuple=False).flatten()
    cu_seqlens = F.pad(lens.cumsum(dim=0, dtype=torch.int32), (1, 0))
    return indices, cu_seqlens, int(lens.max())


def pad_input(hidden_states, indices, batch_size, seq_len):
    output = IndexPutFirstAxis.apply(hidden_states, indices, batch_size * seq_len)
    return output.view(batch_size, seq_len, *output.shape[1:])  # rearrange '(b s) ... -> b s ...'


# ----------------------------------------------------------------------------------------
# the KDA mixer (Axolotl's KimiDeltaAttention)
# ----------------------------------------------------------------------------------------
class KimiDeltaAttention(nn.Module):
    def __init__(self, cfg, fla="0.4.1", conv="triton"):
        super().__init__()
        self.hidden_size = cfg["hidden"]
        self.conv_size = cfg["K"]
        self.head_dim = self.head_k_dim = cfg["d"]
        self.num_heads = self.num_k_heads = cfg["H"]
        self.fla = fla
        projection_k_size = self.head_k_dim * self.num_k_heads
        projection_size = self.head_dim * self.num_heads
        self.q_proj = nn.Linear(self.hidden_size, projection_k_size, bias=False)
        self.k_proj = nn.Linear(self.hidden_size, projection_k_size, bias=False)
        self.v_proj = nn.Linear(self.hidden_size, projection_size, bias=False)
        self.q_conv1d = ShortConvolution(projection_k_size, self.conv_size, backend=conv)
        self.k_conv1d = ShortConvolution(projection_k_size, self.conv_size, backend=conv)
        self.v_conv1d = ShortConvolution(projection_size, self.conv_size, backend=conv)
        self.A_log = nn.Parameter(torch.log(torch.empty(self.num_heads, dtype=torch.float32).uniform_(1, 16)).view(1, 1, -1, 1))
        self.f_a_proj = nn.Linear(self.hidden_size, self.head_dim, bias=False)
        self.f_b_proj = nn.Linear(self.head_dim, projection_size, bias=False)
        self.dt_bias = nn.Parameter(torch.zeros(projection_size, dtype=torch.float32))  # torch.empty in Axolotl
        self.b_proj = nn.Linear(self.hidden_size, self.num_heads, bias=False)
        self.g_a_proj = nn.Linear(self.hidden_size, self.head_dim, bias=False)
        self.g_b_proj = nn.Linear(self.head_dim, projection_size, bias=False)
        self.o_norm = FusedRMSNormGated(self.head_dim, eps=1e-5, activation="sigmoid")
        self.o_proj = nn.Linear(projection_size, self.hidden_size, bias=False)

    def fused_kda_gate(self, g):
        if self.fla == "0.4.0":
            # Axolotl's call: fused_kda_gate(g, self.A_log, self.head_dim, g_bias=self.dt_bias)
            return KDAGateFunction040.apply(g, self.A_log, self.head_dim, self.dt_bias)
        # fla >= 0.4.1 API (Axolotl's call raises TypeError there): g viewed (.., H, d), dt_bias=
        return KDAGateFunction041.apply(g.view(*g.shape[:-1], self.num_heads, self.head_dim), self.A_log, self.dt_bias)

    def forward(self, hidden_states, attention_mask=None):
        batch_size, q_len, _ = hidden_states.shape
        mode = "fused_recurrent" if q_len <= 64 else "chunk"
        if self.training:
            assert mode == "chunk", "Only chunk mode is supported in training."
        cu_seqlens = None
        indices = None
        if attention_mask is not None:
            indices, cu_seqlens, _ = get_unpad_data(attention_mask[:, -q_len:])
            hidden_states = IndexFirstAxis.apply(hidden_states.reshape(-1, *hidden_states.shape[2:]), indices).unsqueeze(0)
        q = self.q_conv1d(self.q_proj(hidden_states), cu_seqlens)
        k = self.k_conv1d(self.k_proj(hidden_states), cu_seqlens)
        v = self.v_conv1d(self.v_proj(hidden_states), cu_seqlens)
        g = self.f_b_proj(self.f_a_proj(hidden_states))
        g = self.fused_kda_gate(g)
        beta = self.b_proj(hidden_states).float().sigmoid()
        q, k = (x.view(*x.shape[:-1], -1, self.head_k_dim) for x in (q, k))  # rearrange '... (h d) -> ... h d'
        v = v.view(*v.shape[:-1], -1, self.head_dim)
        o, recurrent_state = chunk_kda(q=q, k=k, v=v, g=g, beta=beta, initial_state=None, output_final_state=True,
                                       use_qk_l2norm_in_kernel=True, cu_seqlens=cu_seqlens,
                                       aqk_dtype=torch.float32 if self.fla == "0.4.0" else k.dtype)
        g = self.g_b_proj(self.g_a_proj(hidden_states))
        g = g.view(*g.shape[:-1], -1, self.head_dim)
        o = self.o_norm(o, g)
        o = o.reshape(*o.shape[:-2], -1)  # rearrange 'b t h d -> b t (h d)'
        o = self.o_proj(o)
        if attention_mask is not None:
            o = pad_input(o.squeeze(0), indices, batch_size, q_len)
        return o


# ----------------------------------------------------------------------------------------
# measurement
# ----------------------------------------------------------------------------------------
def make_mask(pt, mask):
    """None, an all-ones (b, s) mask, or left padding: row i keeps s - pad_i tokens (pad_i = 0, 17, 34, ...)."""
    b, s = pt["b"], pt["s"]
    if mask == "none":
        return None
    m = torch.ones(b, s, dtype=torch.int64)
    if mask == "padded":
        for i in range(b):
            m[i, : min(17 * (i + (1 if b == 1 else 0)), s - 1)] = 0
    return m


def measure(pt, fla, conv, mask, trainable, want_tensors=False, seed=0):
    torch.manual_seed(seed)
    m = KimiDeltaAttention(pt, fla=fla, conv=conv)
    x = gdn.prepare(m, pt, torch.bfloat16, trainable, seed)
    am = make_mask(pt, mask)
    tot, tensors = gdn.record(m, gdn.Recorder(m), x, lambda: m(x, am), trainable, want_tensors)
    tokens = pt["b"] * pt["s"] if am is None else int(am.sum())
    return tot, tensors, tokens


def formula_bytes(pt, fla, conv, mask, trainable, tokens):
    """Bytes saved for backward by one KDA mixer, bf16 model. tokens = b*s, or the valid tokens T with a mask."""
    b, h, H, d = pt["b"], pt["hidden"], pt["H"], pt["d"]
    T = tokens
    P = H * d
    n = 0
    # ShortConvolution x3: the q/k/v projection outputs (triton: as is; cuda: (b, P, s) contiguous copies), bf16
    n += 3 * 2 * T * P
    # fused_kda_gate: its input, the f_b_proj output, bf16 (the fp32 gate output is not kept)
    n += 2 * T * P
    # beta = b_proj(h).float().sigmoid(): the fp32 output, kept by the sigmoid and by chunk_kda (one storage)
    n += 4 * T * H
    # chunk_kda: q, k L2-normalised (bf16) + q_rstd, k_rstd (fp32), v (bf16), chunk-local cumsum of g (fp32),
    # Aqk (T, H, 64) in k.dtype (fp32 in fla 0.4.0), Akk (T, H, 64) in k.dtype
    n += 2 * (2 * T * P + 4 * T * H) + 2 * T * P + 4 * T * P
    n += (4 if fla == "0.4.0" else 2) * T * H * CHUNK + 2 * T * H * CHUNK
    # o_norm (FusedRMSNormGated): x (chunk_kda output o, bf16), gate (g_b_proj output, bf16), rstd fp32 per (token, head)
    n += 2 * T * P + 2 * T * P + 4 * T * H
    if trainable:
        # inputs kept for the weight gradients: h (one storage for q/k/v/f_a/b/g_a_proj), f_a / g_a outputs
        # (f_b_proj / g_b_proj inputs), the o_proj input (the norm output), all bf16
        n += 2 * T * h + 2 * 2 * T * d + 2 * T * P
    if mask != "none":
        # unpad / pad: indices int64 (T), one storage for IndexFirstAxis and IndexPutFirstAxis; cu_seqlens int32
        # (b + 1) kept by chunk_kda
        n += 8 * T + 4 * (b + 1)
        if conv == "cuda":
            n += 3 * 4 * T  # seq_idx int32 (1, T), one per conv (CausalConv1dFn keeps it)
    return n


# ----------------------------------------------------------------------------------------
# points
# ----------------------------------------------------------------------------------------
def P_(b, s, hidden, H, d, K=4, name=None):
    return dict(b=b, s=s, hidden=hidden, H=H, d=d, K=K, name=name)


POINTS = [
    P_(1, 65, 64, 2, 16),
    P_(2, 100, 96, 2, 32),
    P_(1, 130, 128, 4, 32),
    P_(3, 77, 160, 3, 24),
    P_(2, 128, 192, 4, 64),
    P_(1, 200, 256, 2, 128),
    P_(1, 96, 2304, 32, 128, name="Kimi-Linear-48B-A3B mixer (hidden 2304, 32 heads x 128)"),
]

PATHS = [  # (fla, conv)
    ("0.4.1", "triton"),
    ("0.4.1", "cuda"),
    ("0.4.0", "triton"),
]

MASKS = ["none", "ones", "padded"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="first 3 points, fla 0.4.1 triton only")
    ap.add_argument("--tensors", action="store_true", help="also print the saved-tensor list of each case")
    ap.add_argument("--out", help="also write the records (test/fixtures/activations/kda.json)")
    args = ap.parse_args()
    torch.set_num_threads(2)
    points = POINTS[:3] if args.quick else POINTS
    paths = PATHS[:1] if args.quick else PATHS
    records = []
    bad = n = 0
    for pt in points:
        for fla, conv in paths:
            for mask in MASKS:
                for trainable in (False, True):
                    tot, tensors, tokens = measure(pt, fla, conv, mask, trainable, want_tensors=args.tensors)
                    exp = formula_bytes(pt, fla, conv, mask, trainable, tokens)
                    n += 1
                    bad += tot["act"] != exp
                    rec = dict(fla=fla, conv=conv, mask=mask, params="trainable" if trainable else "frozen",
                               **{k: pt[k] for k in ("b", "s", "hidden", "H", "d", "K")}, tokens=tokens,
                               measured=tot["act"], formula=exp, match=tot["act"] == exp,
                               perToken=round(tot["act"] / tokens, 2),
                               savedParamBytes=tot["param"], savedScalarBytes=tot["scalar"])
                    gdn.emit_case(records, rec, tensors)
    print(f"formula check: {n - bad}/{n} cases reproduced exactly", flush=True)
    if args.out:
        gdn.write_cases(args.out, "kda.py", records, sources=SOURCES)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
