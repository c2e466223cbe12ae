#!/usr/bin/python3
"""Ground truth: bytes that one Mamba2 mixer layer saves for backward, as Hugging Face transformers runs it in training.

Mirrors the token mixer of a Mamba2 layer, from its input hidden_states (b, s, hidden) (the output of the layer's input
norm) to the `out_proj` output, as these files write it:

* `Mamba2Mixer`, src/transformers/models/mamba2/modeling_mamba2.py @ 020a37d2264e60dc7beb9634c3e87ad870073e2c
  (variant `mamba2`).
* `GraniteMoeHybridMambaLayer`, src/transformers/models/granitemoehybrid/modeling_granitemoehybrid.py
  @ 00511f5df3b63c48b31496072ec35d6ff3ffa6c6 (variant `granitemoehybrid`; the same code as Mamba2Mixer except that
  `forward` masks the input once more before `torch_forward`; older files such as @ 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e
  import the kernels directly, same forward).
* `NemotronHMamba2Mixer`, src/transformers/models/nemotron_h/modeling_nemotron_h.py
  @ 008d9e9577b0eb0149aa6bb0c44da582b10e0b6e (variant `nemotron_h`: grouped gated norm `Zamba2RMSNormGated`, the
  chunk-state contraction written with permutes, `clamp(dt, time_step_min)`; the fused kernel only when
  `cache_params is None` and there is no padding, else causal_conv1d_fn + mamba_chunk_scan_combined).
* `FalconH1Mixer`, src/transformers/models/falcon_h1/modeling_falcon_h1.py @ 001f85b38fb432858ace93f18622f07cec46d874
  (variant `falcon_h1`: `ssm_in_multiplier` and the `mup_vector` buffer around `in_proj`; the gated norm
  `FalconH1RMSNormGated` (grouped) is optional, `mamba_rms_norm`, default False, and `mamba_norm_before_gate` picks
  its order in the torch path; the fused call always passes norm_before_gate=False).

Paths measured:
* `torch`: the transformers `torch_forward` fallback, op for op (chunked SSD with segment_sum, the torch gated
  RMSNorm). What runs without CUDA kernels (and for GraniteMoeHybrid @ 00511f5 with the pip `mamba_ssm` package and no
  `kernels` package, see the report).
* `fused`: `cuda_kernels_forward` in training without a cache: `mamba_split_conv1d_scan_combined` (conv1d, SSD scan,
  gated RMSNorm and out_proj in one autograd.Function).
* `split`: `cuda_kernels_forward` with a cache or (NemotronH) with padding: causal_conv1d_fn +
  mamba_chunk_scan_combined, then the torch gated norm and out_proj (measured for NemotronH, the model that reaches it
  in training: its forward creates a DynamicCache whenever use_cache, which config.use_cache=True gives unless
  gradient checkpointing is on).

The CUDA / Triton kernels cannot run here, so they are autograd.Functions that save exactly what the real ones save,
with values from a torch reference (so backward runs):
* state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py @ d757aef189a5215ab3568516825a145e49f7b7ed:
  - MambaSplitConv1dScanCombinedFn.forward: ctx.save_for_backward(zxbcdt, conv1d_weight, conv1d_bias, out_x, A, D,
    dt_bias, initial_states, seq_idx, rmsnorm_weight, rstd, outproj_weight, outproj_bias). zxbcdt is the in_proj
    output (model dtype), out_x the scan output y (b, s, nheads, headdim) in x.dtype (before the norm; with z when
    rmsnorm_weight is None), rstd fp32 (ngroups * b * s,) from _layer_norm_fwd(group_size=dim // ngroups), or None
    without rmsnorm. The conv output, dt, dA_cumsum, states, CB, the norm output and the out_proj input are recomputed
    in backward.
  - MambaChunkScanCombinedFn.forward: ctx.save_for_backward(out if z is None else out_x, x, dt, dA_cumsum, A, B, C, D,
    z, dt_bias, initial_states, seq_idx): the arguments as passed (views of the conv output / of zxbcdt), out in
    x.dtype, dA_cumsum fp32 (b, nheads, ceil(s / chunk), chunk).
* Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py @ 17f4f2fe12abc9d7fbbb180624e415ff2c1581d2:
  CausalConv1dFn saves (x, weight, bias, seq_idx, initial_states); x is copied only if neither its channel nor its
  time stride is 1; out = empty_like(x).

Conventions follow measure.py / gated_deltanet.py: torch.autograd.graph.saved_tensors_hooks, every saved tensor's
storage counted once by its full nbytes (a saved view costs its whole storage), parameters (and views of them),
buffers, 0-dim scalars and the model-level attention mask reported apart. Two torch-1.13 artefacts are replaced by
PyTorch >= 2 behaviour (gated_deltanet.mean_lastdim, gated_deltanet.repeat_interleave). Every op runs in bf16 on CPU
in 1.13 (depthwise conv1d, softplus, silu, clamp included): nothing needed an fp32 stand-in.

Parameters are either all frozen (LoRA-style: only the mixer input requires grad) or all trainable; the model is bf16
without autocast, no cache, no gradient checkpointing, conv bias on, in_proj / out_proj without bias (the configs'
defaults). Mask cases pass a 2-D padding mask (some zeros, batch > 1) as the models do after _update_mamba_mask.

Run with Debian's torch (1.13, CPU): /usr/bin/python3 tools/activations/mamba2.py [--quick] [--tensors] [--out F]
Prints one JSON line per case with the measured bytes and formula_bytes(), exits 1 if any case differs.
Last full run: 278/278 cases exact (~4 s).
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gated_deltanet as gdn  # noqa: E402  (same folder: PyTorch >= 2 mean and repeat_interleave)

mean_lastdim = gdn.mean_lastdim
repeat_interleave = gdn.repeat_interleave

HF_SOURCES = {
    "mamba2": "huggingface/transformers src/transformers/models/mamba2/modeling_mamba2.py@020a37d2264e60dc7beb9634c3e87ad870073e2c",
    "granitemoehybrid": (
        "huggingface/transformers src/transformers/models/granitemoehybrid/modeling_granitemoehybrid.py"
        "@00511f5df3b63c48b31496072ec35d6ff3ffa6c6"
    ),
    "nemotron_h": "huggingface/transformers src/transformers/models/nemotron_h/modeling_nemotron_h.py@008d9e9577b0eb0149aa6bb0c44da582b10e0b6e",
    "falcon_h1": "huggingface/transformers src/transformers/models/falcon_h1/modeling_falcon_h1.py@001f85b38fb432858ace93f18622f07cec46d874",
    "ssd_combined": "state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py@d757aef189a5215ab3568516825a145e49f7b7ed",
    "causal_conv1d": "Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py@17f4f2fe12abc9d7fbbb180624e415ff2c1581d2",
}


# ----------------------------------------------------------------------------------------
# torch references (values only; autograd through them is used by the emulated backward)
# ----------------------------------------------------------------------------------------
def _conv_ref(xBC_bds, w, bias):
    """causal depthwise conv + silu on (b, d, s), fp32."""
    K = w.shape[-1]
    out = F.conv1d(xBC_bds.float(), w.float().unsqueeze(1), None if bias is None else bias.float(),
                   padding=K - 1, groups=xBC_bds.shape[1])[..., : xBC_bds.shape[-1]]
    return F.silu(out)


def _ssd_ref(x, dt, A, B, C, D=None, dt_bias=None, dt_softplus=False, z=None):
    """Mamba2 SSD in its quadratic form over the whole sequence, fp32. x (b,s,h,p), dt (b,s,h), B/C (b,s,g,n).
    Returns (y, y * silu(z)) like _chunk_scan_fwd (out, out_x)."""
    b, s, h, p = x.shape
    g = B.shape[2]
    xf, dtf = x.float(), dt.float()
    if dt_bias is not None:
        dtf = dtf + dt_bias.float()
    if dt_softplus:
        dtf = F.softplus(dtf)
    Bh = B.float().repeat_interleave(h // g, 2)
    Ch = C.float().repeat_interleave(h // g, 2)
    cs = (dtf * A.float()).cumsum(1)  # (b, s, h)
    seg = cs[:, :, None, :] - cs[:, None, :, :]  # (b, t, s', h)
    causal = torch.ones(s, s, dtype=torch.bool).tril()
    Lm = torch.exp(seg.masked_fill(~causal[None, :, :, None], float("-inf")))
    CB = (Ch[:, :, None] * Bh[:, None, :]).sum(-1)  # (b, t, s', h)
    W = CB * Lm * dtf[:, None, :, :]
    y = (W[..., None] * xf[:, None]).sum(2)  # (b, t, h, p)
    if D is not None:
        y = y + D.float()[:, None] * xf
    yz = y * F.silu(z.float()) if z is not None else None
    return y, yz


def _gated_rms_ref(x, z, w, eps, group_size, norm_before_gate):
    """mamba_ssm layernorm_gated rmsnorm (is_rms_norm=True), fp32."""
    xf, zf = x.float(), z.float()
    if not norm_before_gate:
        xf = xf * F.silu(zf)
    shp = xf.shape
    xg = xf.reshape(*shp[:-1], shp[-1] // group_size, group_size)
    rstd = torch.rsqrt(xg.pow(2).mean(-1, keepdim=True) + eps)
    y = (xg * rstd).reshape(shp) * w.float()
    if norm_before_gate:
        y = y * F.silu(zf)
    return y, rstd.reshape(-1)


def _split_fused_ref(zxbcdt, conv_w, conv_b, dt_bias, A, D, headdim, ngroups, rms_w, eps, norm_before_gate,
                     outproj_w, outproj_b):
    b, s, _ = zxbcdt.shape
    nheads = D.shape[0]
    dim = nheads * headdim
    dc = conv_w.shape[0]
    dstate = (dc - dim) // ngroups // 2
    z, xBC, dt = torch.split(zxbcdt, [dim, dc, nheads], dim=-1)
    xBC = _conv_ref(xBC.transpose(1, 2), conv_w, conv_b).transpose(1, 2)
    x, B, C = torch.split(xBC, [dim, ngroups * dstate, ngroups * dstate], dim=-1)
    y, yz = _ssd_ref(x.reshape(b, s, nheads, headdim), dt, A, B.reshape(b, s, ngroups, dstate),
                     C.reshape(b, s, ngroups, dstate), D=D, dt_bias=dt_bias, dt_softplus=True,
                     z=None if rms_w is not None else z.reshape(b, s, nheads, headdim))
    rstd = None
    if rms_w is not None:
        out, rstd = _gated_rms_ref(y.reshape(b, s, dim), z, rms_w, eps, dim // ngroups, norm_before_gate)
    else:
        out = yz.reshape(b, s, dim)
    res = F.linear(out, outproj_w.float(), None if outproj_b is None else outproj_b.float())
    return res, y, rstd


# ----------------------------------------------------------------------------------------
# kernel emulations: save exactly what the Triton / CUDA autograd.Functions save
# ----------------------------------------------------------------------------------------
class MambaSplitConv1dScanCombinedFn(torch.autograd.Function):
    """mamba_ssm.ops.triton.ssd_combined.MambaSplitConv1dScanCombinedFn (d_nonssm = 0, no initial_states / seq_idx)."""

    @staticmethod
    def forward(ctx, zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size, headdim, ngroups,
                rmsnorm_weight, rmsnorm_eps, outproj_weight, outproj_bias, norm_before_gate, return_final_states):
        b, s, _ = zxbcdt.shape
        nheads = D.shape[0]
        with torch.no_grad():
            res, y, rstd_ref = _split_fused_ref(zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, headdim, ngroups,
                                                rmsnorm_weight, rmsnorm_eps, norm_before_gate, outproj_weight,
                                                outproj_bias)
        # out_x: the scan output of _chunk_scan_fwd, torch.empty(batch, seqlen, nheads, headdim, dtype=x.dtype)
        out_x = torch.empty(b, s, nheads, headdim, dtype=zxbcdt.dtype)
        out_x.copy_(y)
        if rmsnorm_weight is not None:
            rstd = torch.empty(ngroups * b * s, dtype=torch.float32)  # _layer_norm_fwd: (ngroups * M,) fp32
            rstd.copy_(rstd_ref)
            rmsnorm_weight = rmsnorm_weight.contiguous()
        else:
            rstd = None
        out = torch.empty(b, s, outproj_weight.shape[0], dtype=zxbcdt.dtype)  # F.linear(out, outproj_weight) output
        out.copy_(res)
        ctx.save_for_backward(zxbcdt, conv1d_weight, conv1d_bias, out_x, A, D, dt_bias, None, None,
                              rmsnorm_weight, rstd, outproj_weight, outproj_bias)
        ctx.cfg = (headdim, ngroups, rmsnorm_eps, norm_before_gate)
        if return_final_states:
            fs = torch.zeros(b, nheads, headdim, (conv1d_weight.shape[0] - nheads * headdim) // ngroups // 2)
            ctx.mark_non_differentiable(fs)
            return out, fs
        return out

    @staticmethod
    def backward(ctx, dout, *args):
        zxbcdt, w, cb, _out_x, A, D, dt_bias, _i, _q, rms_w, _rstd, ow, ob = ctx.saved_tensors
        headdim, ngroups, eps, nbg = ctx.cfg
        ins = [zxbcdt, w, cb, dt_bias, A, D, rms_w, ow, ob]
        idx = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 9, 7: 11, 8: 12}  # ins position -> forward argument position
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_(ctx.needs_input_grad[idx[i]]) if t is not None else None
                      for i, t in enumerate(ins)]
            res, _, _ = _split_fused_ref(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4], leaves[5], headdim,
                                         ngroups, leaves[6], eps, nbg, leaves[7], leaves[8])
            want = [l for l in leaves if l is not None and l.requires_grad]
            gr = torch.autograd.grad(res, want, dout.float())
        gi = iter(gr)
        grads = [None] * 15
        for i, l in enumerate(leaves):
            if l is not None and l.requires_grad:
                grads[idx[i]] = next(gi).to(ins[i].dtype)
        return tuple(grads)


def mamba_split_conv1d_scan_combined(zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size, seq_idx=None,
                                     activation="silu", rmsnorm_weight=None, rmsnorm_eps=1e-6, outproj_weight=None,
                                     outproj_bias=None, headdim=None, ngroups=1, norm_before_gate=True,
                                     return_final_states=False):
    assert seq_idx is None and activation in ("silu", "swish")
    return MambaSplitConv1dScanCombinedFn.apply(zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size,
                                                headdim, ngroups, rmsnorm_weight, rmsnorm_eps, outproj_weight,
                                                outproj_bias, norm_before_gate, return_final_states)


class CausalConv1dFn(torch.autograd.Function):
    """causal_conv1d.CausalConv1dFn with activation 'silu': x copied only if neither stride(1) nor stride(2) is 1,
    bias made contiguous, out = empty_like(x), ctx.save_for_backward(x, weight, bias, seq_idx, initial_states)."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        if x.stride(2) != 1 and x.stride(1) != 1:
            x = x.contiguous()
        bias = bias.contiguous() if bias is not None else None
        with torch.no_grad():
            ref = _conv_ref(x, weight, bias)
        out = torch.empty_like(x)
        out.copy_(ref)
        # detached: same storages (1.13 cannot unpack a no-grad view of an input that requires grad)
        ctx.save_for_backward(x.detach(), weight, bias, None, None)
        return out

    @staticmethod
    def backward(ctx, dout):
        x, weight, bias, _, _ = ctx.saved_tensors
        with torch.enable_grad():
            ins = [t.detach().requires_grad_(ctx.needs_input_grad[i]) if t is not None else None
                   for i, t in enumerate((x, weight, bias))]
            want = [t for t in ins if t is not None and t.requires_grad]
            gr = iter(torch.autograd.grad(_conv_ref(*ins), want, dout.float()))
        return tuple(next(gr).to(t.dtype) if (t is not None and t.requires_grad) else None for t in ins)


def causal_conv1d_fn(x, weight, bias=None, activation=None, seq_idx=None):
    assert activation in ("silu", "swish") and seq_idx is None
    return CausalConv1dFn.apply(x, weight, bias)


class MambaChunkScanCombinedFn(torch.autograd.Function):
    """mamba_ssm.ops.triton.ssd_combined.MambaChunkScanCombinedFn (z None, no initial_states / seq_idx)."""

    @staticmethod
    def forward(ctx, x, dt, A, B, C, chunk_size, D, dt_bias, dt_softplus, return_final_states):
        b, s, h, p = x.shape
        nchunks = math.ceil(s / chunk_size)
        with torch.no_grad():
            y, _ = _ssd_ref(x, dt, A, B, C, D=D, dt_bias=dt_bias, dt_softplus=dt_softplus)
            dtf = dt.float() + (dt_bias.float() if dt_bias is not None else 0)
            dtf = F.softplus(dtf) if dt_softplus else dtf
            pad = nchunks * chunk_size - s
            dA = F.pad((dtf * A.float()).transpose(1, 2), (0, pad)).reshape(b, h, nchunks, chunk_size)
        # _chunk_cumsum_fwd: dA_cumsum = torch.empty(batch, nheads, nchunks, chunk_size, dtype=torch.float32)
        dA_cumsum = torch.empty(b, h, nchunks, chunk_size, dtype=torch.float32)
        dA_cumsum.copy_(dA.cumsum(-1))
        out = torch.empty(b, s, h, p, dtype=x.dtype)  # _chunk_scan_fwd: dtype=x.dtype
        out.copy_(y)
        ctx.save_for_backward(out, x.detach(), dt.detach(), dA_cumsum, A, B.detach(), C.detach(), D, None, dt_bias,
                              None, None)
        ctx.dt_softplus = dt_softplus
        if return_final_states:
            fs = torch.zeros(b, h, p, B.shape[-1])
            ctx.mark_non_differentiable(fs)
            return out, fs
        return out

    @staticmethod
    def backward(ctx, dout, *args):
        _out, x, dt, _dac, A, B, C, D, _z, dt_bias, _i, _q = ctx.saved_tensors
        ins = [x, dt, A, B, C, D, dt_bias]
        pos = [0, 1, 2, 3, 4, 6, 7]
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_(ctx.needs_input_grad[pos[i]]) if t is not None else None
                      for i, t in enumerate(ins)]
            y, _ = _ssd_ref(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4], D=leaves[5], dt_bias=leaves[6],
                            dt_softplus=ctx.dt_softplus)
            want = [l for l in leaves if l is not None and l.requires_grad]
            gr = iter(torch.autograd.grad(y, want, dout.float()))
        grads = [None] * 10
        for i, l in enumerate(leaves):
            if l is not None and l.requires_grad:
                grads[pos[i]] = next(gr).to(ins[i].dtype)
        return tuple(grads)


def mamba_chunk_scan_combined(x, dt, A, B, C, chunk_size, D=None, z=None, seq_idx=None, return_final_states=False,
                              dt_bias=None, dt_softplus=False):
    assert z is None and seq_idx is None
    return MambaChunkScanCombinedFn.apply(x, dt, A, B, C, chunk_size, D, dt_bias, dt_softplus, return_final_states)


# ----------------------------------------------------------------------------------------
# transformers helpers (modeling_mamba2.py, copied into the three hybrid files)
# ----------------------------------------------------------------------------------------
def pad_tensor_by_size(input_tensor, pad_size):
    pad_shape = (0, 0, 0, 0, 0, pad_size, 0, 0) if len(input_tensor.shape) == 4 else (0, 0, 0, pad_size, 0, 0)
    return F.pad(input_tensor, pad_shape, mode="constant", value=0)


def reshape_into_chunks(input_tensor, pad_size, chunk_size):
    input_tensor = pad_tensor_by_size(input_tensor, pad_size)
    if len(input_tensor.shape) == 3:
        return input_tensor.reshape(input_tensor.shape[0], -1, chunk_size, input_tensor.shape[2])
    return input_tensor.reshape(input_tensor.shape[0], -1, chunk_size, input_tensor.shape[2], input_tensor.shape[3])


def segment_sum(input_tensor):
    chunk_size = input_tensor.size(-1)
    input_tensor = input_tensor[..., None].expand(*input_tensor.size(), chunk_size)
    mask = torch.tril(torch.ones(chunk_size, chunk_size, dtype=torch.bool), diagonal=-1)
    input_tensor = input_tensor.masked_fill(~mask, 0)
    tensor_segsum = torch.cumsum(input_tensor, dim=-2)
    mask = torch.tril(torch.ones(chunk_size, chunk_size, dtype=torch.bool), diagonal=0)
    tensor_segsum = tensor_segsum.masked_fill(~mask, -torch.inf)
    return tensor_segsum


def apply_mask_to_padding_states(hidden_states, attention_mask):
    if attention_mask is not None and attention_mask.shape[1] > 1 and attention_mask.shape[0] > 1:
        dtype = hidden_states.dtype
        hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
    return hidden_states


class MambaRMSNormGated(nn.Module):  # Mamba2 / GraniteMoeHybridRMSNormGated: gate first, one group
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        if gate is not None:
            hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        variance = mean_lastdim(hidden_states.pow(2))
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class Zamba2RMSNormGated(nn.Module):  # NemotronH: gate first, group_size = intermediate_size // n_groups
    def __init__(self, hidden_size, group_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        self.group_size = group_size

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        if gate is not None:
            hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        *prefix_dims, last_dim = hidden_states.shape
        group_count = last_dim // self.group_size
        hidden_states_group = hidden_states.view(*prefix_dims, group_count, self.group_size)
        variance = mean_lastdim(hidden_states_group.pow(2))
        hidden_states_group = hidden_states_group * torch.rsqrt(variance + self.variance_epsilon)
        hidden_states = hidden_states_group.view(*prefix_dims, group_count * self.group_size)
        return self.weight * hidden_states.to(input_dtype)


class FalconH1RMSNormGated(nn.Module):
    def __init__(self, hidden_size, eps=1e-6, n_groups=1, norm_before_gate=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        self.n_groups = n_groups
        self.norm_before_gate = norm_before_gate

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        if not self.norm_before_gate and gate is not None:
            hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        if len(hidden_states.shape) == 3:
            batch_size, seq_len, dim = hidden_states.shape
        else:
            batch_size, dim = hidden_states.shape
            seq_len = 1
        hidden_states = hidden_states.to(torch.float32)
        hidden_states = hidden_states.view(batch_size, seq_len, self.n_groups, int(dim // self.n_groups))
        variance = mean_lastdim(hidden_states.pow(2))
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        hidden_states = self.weight.view(self.n_groups, int(dim // self.n_groups)) * hidden_states
        hidden_states = hidden_states.view(batch_size, seq_len, dim)
        if seq_len == 1:
            hidden_states = hidden_states.squeeze(1)
        if self.norm_before_gate and gate is not None:
            hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        return hidden_states.to(input_dtype)


# ----------------------------------------------------------------------------------------
# the mixer
# ----------------------------------------------------------------------------------------
class Mamba2Mixer(nn.Module):
    """variant: 'mamba2' | 'granitemoehybrid' | 'nemotron_h' | 'falcon_h1'; path: 'torch' | 'fused' | 'split';
    falcon_norm: 'none' (mamba_rms_norm=False, the config default) | 'gate_first' (mamba_rms_norm, norm_before_gate
    False) | 'norm_first' (mamba_rms_norm, norm_before_gate True, the config default order)."""

    def __init__(self, pt, variant="mamba2", path="torch", falcon_norm="none"):
        super().__init__()
        self.variant, self.path, self.falcon_norm = variant, path, falcon_norm
        self.hidden_size = pt["hidden"]
        self.num_heads, self.head_dim = pt["H"], pt["P"]
        self.intermediate_size = self.num_heads * self.head_dim
        self.n_groups, self.ssm_state_size = pt["G"], pt["N"]
        self.conv_kernel_size, self.chunk_size = pt["K"], pt["C"]
        self.activation = "silu"
        self.act = nn.SiLU()
        self.time_step_limit = (0.0, float("inf"))
        self.time_step_min = 0.001
        self.conv_dim = self.intermediate_size + 2 * self.n_groups * self.ssm_state_size
        self.conv1d = nn.Conv1d(self.conv_dim, self.conv_dim, bias=True, kernel_size=self.conv_kernel_size,
                                groups=self.conv_dim, padding=self.conv_kernel_size - 1)
        projection_size = self.intermediate_size + self.conv_dim + self.num_heads
        self.in_proj = nn.Linear(self.hidden_size, projection_size, bias=False)
        self.dt_bias = nn.Parameter(torch.ones(self.num_heads))
        self.A_log = nn.Parameter(torch.log(torch.arange(1, self.num_heads + 1, dtype=torch.float32)))
        self.D = nn.Parameter(torch.ones(self.num_heads))
        eps = 1e-5
        if variant in ("mamba2", "granitemoehybrid"):
            self.norm = MambaRMSNormGated(self.intermediate_size, eps=eps)
        elif variant == "nemotron_h":
            self.norm = Zamba2RMSNormGated(self.intermediate_size, self.intermediate_size // self.n_groups, eps=eps)
        elif falcon_norm != "none":
            self.norm = FalconH1RMSNormGated(self.intermediate_size, eps=eps, n_groups=self.n_groups,
                                             norm_before_gate=falcon_norm == "norm_first")
        self.mamba_rms_norm = variant != "falcon_h1" or falcon_norm != "none"
        self.out_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=False)
        if variant == "falcon_h1":
            mup = torch.ones(1, 1, projection_size)
            d, gn = self.intermediate_size, self.n_groups * self.ssm_state_size
            for (lo, hi), m in zip([(0, d), (d, 2 * d), (2 * d, 2 * d + gn), (2 * d + gn, 2 * d + 2 * gn),
                                    (2 * d + 2 * gn, projection_size)], (0.8, 1.1, 0.9, 1.2, 0.7)):
                mup[:, :, lo:hi] *= m
            self.register_buffer("mup_vector", mup, persistent=False)
            self.ssm_in_multiplier = 0.9

    # ---- transformers torch_forward, op for op (no cache) ----
    def torch_forward(self, input_states, attention_mask=None):
        v = self.variant
        batch_size, seq_len, _ = input_states.shape
        dtype = input_states.dtype
        if v == "nemotron_h":
            if attention_mask is not None:
                input_states = (input_states * attention_mask[:, :, None]).to(dtype)
        else:
            input_states = apply_mask_to_padding_states(input_states, attention_mask)
        if v == "falcon_h1":
            input_states = input_states * self.ssm_in_multiplier
        projected_states = self.in_proj(input_states)
        if v == "falcon_h1":
            projected_states = projected_states * self.mup_vector
        gate, hidden_states_B_C, dt = projected_states.split(
            [self.intermediate_size, self.conv_dim, self.num_heads], dim=-1)
        hidden_states_B_C = self.act(self.conv1d(hidden_states_B_C.transpose(1, 2))[..., :seq_len].transpose(1, 2))
        if v == "nemotron_h":
            if attention_mask is not None:
                hidden_states_B_C = (hidden_states_B_C * attention_mask[:, :, None]).to(hidden_states_B_C.dtype)
        else:
            hidden_states_B_C = apply_mask_to_padding_states(hidden_states_B_C, attention_mask)
        hidden_states, B, C = torch.split(
            hidden_states_B_C,
            [self.intermediate_size, self.n_groups * self.ssm_state_size, self.n_groups * self.ssm_state_size],
            dim=-1)
        A = -torch.exp(self.A_log.float())
        dt = F.softplus(dt + self.dt_bias)
        if v == "nemotron_h":
            dt = torch.clamp(dt, self.time_step_min)
        else:
            dt = torch.clamp(dt, self.time_step_limit[0], self.time_step_limit[1])
        hidden_states = hidden_states.reshape(batch_size, seq_len, -1, self.head_dim).float()
        B = B.reshape(batch_size, seq_len, -1, self.ssm_state_size).float()
        C = C.reshape(batch_size, seq_len, -1, self.ssm_state_size).float()
        B = repeat_interleave(B, self.num_heads // self.n_groups, dim=2)
        C = repeat_interleave(C, self.num_heads // self.n_groups, dim=2)
        pad_size = (self.chunk_size - seq_len % self.chunk_size) % self.chunk_size
        D_residual = self.D[..., None] * pad_tensor_by_size(hidden_states, pad_size)
        hidden_states = hidden_states * dt[..., None]
        A = A.to(hidden_states.dtype) * dt
        hidden_states, A, B, C = [reshape_into_chunks(t, pad_size, self.chunk_size) for t in (hidden_states, A, B, C)]
        A = A.permute(0, 3, 1, 2)
        A_cumsum = torch.cumsum(A, dim=-1)
        L = torch.exp(segment_sum(A))
        G_intermediate = C[:, :, :, None, :, :] * B[:, :, None, :, :, :]
        G = G_intermediate.sum(dim=-1)
        M_intermediate = G[..., None] * L.permute(0, 2, 3, 4, 1)[..., None]
        M = M_intermediate.sum(dim=-1)
        Y_diag = (M[..., None] * hidden_states[:, :, None]).sum(dim=3)
        decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
        if v == "nemotron_h":
            B_decay_contraction = B * decay_states.permute(0, 2, 3, 1)[..., None]
            states = (B_decay_contraction.permute(0, 1, 3, 2, 4)[..., None]
                      * hidden_states.permute(0, 1, 3, 2, 4)[..., None, :]).sum(dim=3).permute(0, 1, 2, 4, 3)
        else:
            B_decay = B * decay_states.permute(0, -2, -1, 1)[..., None]
            states = (B_decay[..., None, :] * hidden_states[..., None]).sum(dim=2)
        previous_states = torch.zeros_like(states[:, :1])
        states = torch.cat([previous_states, states], dim=1)
        decay_chunk = torch.exp(segment_sum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
        if v == "nemotron_h":
            states_permuted = states.permute(0, 2, 1, 3, 4)
            result = (decay_chunk[..., None, None] * states_permuted[:, :, None, ...]).sum(dim=2)
            new_states = result.permute(0, 2, 1, 3, 4)
        else:
            decay_chunk = decay_chunk.transpose(1, 3)
            new_states = (decay_chunk[..., None, None] * states[:, :, None, ...]).sum(dim=1)
        states, ssm_state = new_states[:, :-1], new_states[:, -1]
        state_decay_out = torch.exp(A_cumsum)
        C_times_states = (C[..., None, :] * states[:, :, None, ...])
        state_decay_out_permuted = state_decay_out.permute(0, 2, 3, 1)
        Y_off = (C_times_states.sum(-1) * state_decay_out_permuted[..., None])
        y = Y_diag + Y_off
        y = y.reshape(batch_size, -1, self.num_heads, self.head_dim)
        y = y + D_residual
        if pad_size > 0:
            y = y[:, :seq_len, :, :]
        y = y.reshape(batch_size, seq_len, -1)
        if self.mamba_rms_norm:
            scan_output = self.norm(y, gate)
        else:
            scan_output = y * F.silu(gate)
        return self.out_proj(scan_output.to(dtype))

    # ---- transformers cuda_kernels_forward, training, no cache (fused) or NemotronH's split branch ----
    def cuda_kernels_forward(self, hidden_states, attention_mask=None):
        v = self.variant
        batch_size, seq_len, _ = hidden_states.shape
        gts = self.n_groups * self.ssm_state_size
        if v == "nemotron_h":
            if attention_mask is not None and not torch.all(attention_mask == 1):
                dtype = hidden_states.dtype
                hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
        else:
            hidden_states = apply_mask_to_padding_states(hidden_states, attention_mask)
        if v == "falcon_h1":
            hidden_states = hidden_states * self.ssm_in_multiplier
        projected_states = self.in_proj(hidden_states)
        if v == "falcon_h1":
            projected_states = projected_states * self.mup_vector
        A = -torch.exp(self.A_log.float())
        if self.path == "fused":
            out = mamba_split_conv1d_scan_combined(
                projected_states, self.conv1d.weight.squeeze(1), self.conv1d.bias, self.dt_bias, A, D=self.D,
                chunk_size=self.chunk_size, seq_idx=None, activation=self.activation,
                rmsnorm_weight=self.norm.weight if self.mamba_rms_norm else None,
                rmsnorm_eps=self.norm.variance_epsilon if self.mamba_rms_norm else None,
                outproj_weight=self.out_proj.weight, outproj_bias=self.out_proj.bias, headdim=self.head_dim,
                ngroups=self.n_groups, norm_before_gate=False, return_final_states=v == "nemotron_h")
            if v == "nemotron_h":
                out, _ssm_state = out
            return out
        assert v == "nemotron_h", "split path measured for NemotronH only"
        gate, hidden_states_B_C, time_step = torch.split(
            projected_states, [self.intermediate_size, self.conv_dim, self.num_heads], dim=-1)
        hidden_states_B_C = causal_conv1d_fn(x=hidden_states_B_C.transpose(1, 2), weight=self.conv1d.weight.squeeze(1),
                                             bias=self.conv1d.bias, activation=self.activation
                                             ).transpose(1, 2)[:, :seq_len]
        hidden_states, B, C = torch.split(hidden_states_B_C, [self.intermediate_size, gts, gts], dim=-1)
        if attention_mask is not None and not torch.all(attention_mask == 1):
            dtype = hidden_states.dtype
            hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
        scan_output, ssm_state = mamba_chunk_scan_combined(
            hidden_states.view(batch_size, seq_len, -1, self.head_dim), time_step, A,
            B.view(batch_size, seq_len, self.n_groups, -1), C.view(batch_size, seq_len, self.n_groups, -1),
            chunk_size=self.chunk_size, D=self.D, z=None, seq_idx=None, return_final_states=True,
            dt_bias=self.dt_bias, dt_softplus=True)
        scan_output = scan_output.view(batch_size, seq_len, -1)
        scan_output = self.norm(scan_output, gate)
        return self.out_proj(scan_output)

    def forward(self, hidden_states, attention_mask=None):
        if self.path in ("fused", "split"):
            return self.cuda_kernels_forward(hidden_states, attention_mask)
        if self.variant in ("granitemoehybrid", "falcon_h1"):  # their forward() masks before torch_forward
            dtype = hidden_states.dtype
            if attention_mask is not None and attention_mask.shape[1] > 1 and attention_mask.shape[0] > 1:
                hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
        return self.torch_forward(hidden_states, attention_mask)


Mixer = Mamba2Mixer


# ----------------------------------------------------------------------------------------
# recording (same rules as measure.py / gated_deltanet.py)
# ----------------------------------------------------------------------------------------
def storage_key(t):
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return st.data_ptr(), st.nbytes()


class Recorder(gdn.Recorder):
    def __init__(self, model, mask=None):
        super().__init__(model)
        self.buffer_ptrs = {storage_key(b)[0] for b in model.buffers()}
        self.mask_ptr = storage_key(mask)[0] if mask is not None else None

    def pack(self, t):
        t = super().pack(t)
        e = self.entries[-1]
        if e["kind"] == "act":
            if e["ptr"] in self.buffer_ptrs:
                e["kind"] = "buffer"
            elif e["ptr"] == self.mask_ptr:
                e["kind"] = "mask"
        return t


def summarize(entries):
    by_ptr = {}
    for e in entries:
        by_ptr.setdefault(e["ptr"], e)
    out = dict(act=0, param=0, scalar=0, buffer=0, mask=0)
    for e in by_ptr.values():
        out[e["kind"]] += e["storageBytes"]
    return out


def measure(pt, variant, path, trainable, falcon_norm="none", mask=False, dtype=torch.bfloat16, want_tensors=False,
            seed=0):
    torch.manual_seed(seed)
    m = Mixer(pt, variant=variant, path=path, falcon_norm=falcon_norm)
    x = gdn.prepare(m, pt, dtype, trainable, seed)
    attn = None
    if mask:
        attn = torch.ones(pt["b"], pt["s"], dtype=torch.long)
        attn[1:, : max(1, pt["s"] // 5)] = 0  # left padding on every sequence but the first
    return gdn.record(m, Recorder(m, attn), x, lambda: m(x, attn), trainable, want_tensors, summarize)



# ----------------------------------------------------------------------------------------
# closed-form formula (bf16 model, bytes per Mamba2 mixer)
# ----------------------------------------------------------------------------------------
def formula_bytes(pt, variant, path, trainable, falcon_norm="none", mask=False):
    """Bytes saved for backward by one Mamba2 mixer, bf16 model, no cache. The attention mask itself (a model-level
    int64 (b, s) tensor that every masking mul saves) is not included: it is one storage shared by all layers."""
    b, s, h, H, P, G, N, K, C = (pt[k] for k in ("b", "s", "hidden", "H", "P", "G", "N", "K", "C"))
    d = H * P                          # intermediate_size (d_inner)
    GN = G * N
    Dc = d + 2 * GN                    # conv channels (x, B, C)
    proj = 2 * d + 2 * GN + H          # in_proj output (z, xBC, dt)
    T = b * s                          # tokens
    nc = -(-s // C)                    # chunks per sequence
    Sp = b * nc * C                    # tokens after padding s up to a multiple of chunk_size
    norm = variant != "falcon_h1" or falcon_norm != "none"
    norm_groups = 1 if variant in ("mamba2", "granitemoehybrid") else G  # rsqrt rows of the torch gated norm
    n = 0
    # in_proj input (bf16), kept for the weight gradient only
    if trainable:
        n += 2 * T * h
    # A = -exp(A_log.float()) (fp32, H): saved by the kernel / the A * dt mul; exp keeps its result when A_log trains
    n += 4 * H + (4 * H if trainable else 0)
    if path == "fused":
        # MambaSplitConv1dScanCombinedFn: zxbcdt (the in_proj output, bf16), out_x (scan output y, bf16, b*s*d),
        # rstd (fp32, ngroups per token) when the gated RMSNorm is fused in
        n += 2 * T * proj + 2 * T * d + (4 * T * G if norm else 0)
        return n
    if path == "split":  # NemotronH: causal_conv1d_fn + mamba_chunk_scan_combined + Zamba2RMSNormGated + out_proj
        # the in_proj output (x of CausalConv1dFn is a channel-last view of it; dt of the scan too), bf16
        n += 2 * T * proj
        # the conv output (b, Dc, s), bf16: B and C (and x without padding) are views of it
        n += 2 * T * Dc
        # with padding, x is the masked product (bf16)
        if mask:
            n += 2 * T * d
        # scan out (bf16) and dA_cumsum (fp32, b * H * nc * chunk)
        n += 2 * T * d + 4 * Sp * H
        # gated norm on the bf16 scan output: x.float(), gate.float(), silu(gate), x*silu(gate) (fp32), rsqrt per group
        n += 4 * 4 * T * d + 4 * T * G
        if trainable:
            n += 2 * T * d  # x_hat.to(bf16) kept by weight * x_hat
            n += 2 * T * d  # out_proj input (bf16)
        return n
    # ---------------- torch_forward ----------------
    # conv1d input: a view of the in_proj output (its whole storage), bf16
    n += 2 * T * proj
    # silu keeps the conv output slice, i.e. the whole conv output (b, Dc, s + K - 1), bf16
    n += 2 * b * Dc * (s + K - 1)
    # dt path, bf16 (b, s, H): softplus input (dt + dt_bias), clamp input (softplus output), clamp output (dt)
    n += 3 * 2 * T * H
    # x.float() (b, s, H, P) kept by x * dt, fp32
    n += 4 * T * d
    # padded fp32 (b, nc*C, ...): x*dt chunks, B, C (repeated to H heads), B*decay, Y_off's C.states sum, y + D*x
    n += 4 * Sp * (2 * d + 3 * H * N) + 4 * Sp * d
    # (b, H, nc, C, C) fp32: L = exp(segsum), G = C.B, M = G*L
    n += 3 * 4 * Sp * H * C
    # (b, H, nc*C) fp32: exp(A_cumsum_last - A_cumsum), exp(A_cumsum)
    n += 2 * 4 * Sp * H
    # chunk states: cat([0, states]) and the state passing sum, fp32 (b, nc + 1, H, P, N) each
    n += 2 * 4 * b * (nc + 1) * H * P * N
    # exp(segsum) of the chunk decays, fp32 (b, H, nc + 1, nc + 1)
    n += 4 * b * H * (nc + 1) ** 2
    # the ~mask bool tensors of the two segment_sum calls (masked_fill keeps its mask)
    n += 2 * C * C + 2 * (nc + 1) ** 2
    if trainable:
        n += 4 * Sp * d  # pad(x.float()) kept by D[..., None] * pad(...) for D's gradient
    # ---- gate / norm (the torch path's y is fp32, a view of the padded (b, nc*C, H, P) storage) ----
    if variant == "falcon_h1" and falcon_norm == "none":
        # y * silu(gate): y (padded fp32 storage already counted) and silu(gate) (bf16)
        n += 2 * T * d
    elif variant == "falcon_h1" and falcon_norm == "norm_first":
        # pow / mul keep y (already counted); rsqrt per group; then x_hat_w * silu(gate.float()):
        # gate.float(), silu(gate) and x_hat_w (fp32)
        n += 4 * T * G + 3 * 4 * T * d
        if trainable:
            n += 4 * T * d  # x_hat (fp32) kept by weight * x_hat
    else:
        # gate first: gate.float(), silu(gate), y*silu(gate) (fp32) + rsqrt rows; y itself (already counted)
        n += 3 * 4 * T * d + 4 * T * norm_groups
        if trainable:
            n += 4 * T * d  # x_hat (fp32) kept by weight * x_hat
    if trainable:
        n += 2 * T * d  # out_proj input (bf16)
    return n


# ----------------------------------------------------------------------------------------
# points
# ----------------------------------------------------------------------------------------
def P_(b, s, hidden, H, P, G, N, K=4, C=16, name=None):
    return dict(b=b, s=s, hidden=hidden, H=H, P=P, G=G, N=N, K=K, C=C, name=name)


POINTS = [
    P_(1, 37, 64, 4, 16, 1, 16, C=16),
    P_(2, 50, 96, 6, 16, 2, 8, C=16),
    P_(3, 33, 64, 8, 8, 4, 16, C=32),
    P_(2, 64, 128, 4, 32, 1, 32, C=16),          # s a multiple of chunk_size
    P_(1, 45, 80, 6, 12, 3, 24, K=3, C=16),
    P_(2, 70, 64, 8, 16, 8, 16, C=32),           # n_groups == num_heads
    P_(1, 100, 128, 16, 16, 2, 32, C=32, name="Granite-4.0-H shape ratios (head_dim 64 -> 16), scaled down"),
    P_(2, 40, 96, 12, 8, 4, 16, C=16, name="NemotronH-like (n_groups 8 -> 4), scaled down"),
    P_(1, 150, 64, 4, 16, 1, 16, C=64),
]

# (variant, path, falcon_norm)
PATHS = [
    ("mamba2", "torch", "none"),
    ("mamba2", "fused", "none"),
    ("granitemoehybrid", "torch", "none"),
    ("nemotron_h", "torch", "none"),
    ("nemotron_h", "fused", "none"),
    ("nemotron_h", "split", "none"),
    ("falcon_h1", "torch", "none"),
    ("falcon_h1", "torch", "gate_first"),
    ("falcon_h1", "torch", "norm_first"),
    ("falcon_h1", "fused", "none"),
    ("falcon_h1", "fused", "gate_first"),
]

# padding-mask cases (b > 1): which path each model takes in training with a padded batch
MASK_PATHS = [
    ("mamba2", "torch", "none"),
    ("mamba2", "fused", "none"),
    ("granitemoehybrid", "torch", "none"),
    ("granitemoehybrid", "fused", "none"),
    ("nemotron_h", "torch", "none"),
    ("nemotron_h", "split", "none"),
    ("falcon_h1", "torch", "gate_first"),
    ("falcon_h1", "fused", "none"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="first 3 points")
    ap.add_argument("--tensors", action="store_true", help="also print the saved-tensor list of each case")
    ap.add_argument("--out", help="also write {source, cases} as JSON")
    args = ap.parse_args()
    torch.set_num_threads(2)
    points = POINTS[:3] if args.quick else POINTS
    records = []
    bad = n = 0
    jobs = [(pt, v, p, fn, False) for pt in points for v, p, fn in PATHS]
    jobs += [(pt, v, p, fn, True) for pt in points if pt["b"] > 1 for v, p, fn in MASK_PATHS]
    for pt, variant, path, fnorm, mask in jobs:
        for trainable in (False, True):
            tot, tensors = measure(pt, variant, path, trainable, falcon_norm=fnorm, mask=mask,
                                   want_tensors=args.tensors)
            exp = formula_bytes(pt, variant, path, trainable, falcon_norm=fnorm, mask=mask)
            n += 1
            bad += tot["act"] != exp
            rec = dict(variant=variant, path=path, falconNorm=fnorm if variant == "falcon_h1" else None, mask=mask,
                       params="trainable" if trainable else "frozen",
                       **{k: pt[k] for k in ("b", "s", "hidden", "H", "P", "G", "N", "K", "C")},
                       intermediate=pt["H"] * pt["P"], measured=tot["act"], formula=exp, match=tot["act"] == exp,
                       perToken=round(tot["act"] / (pt["b"] * pt["s"]), 2), savedParamBytes=tot["param"],
                       savedBufferBytes=tot["buffer"], savedMaskBytes=tot["mask"], savedScalarBytes=tot["scalar"])
            gdn.emit_case(records, rec, tensors)
    print(f"formula check: {n - bad}/{n} cases reproduced exactly", flush=True)
    if args.out:
        gdn.write_cases(args.out, "mamba2.py", records, hfSources=HF_SOURCES)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
