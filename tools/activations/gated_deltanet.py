#!/usr/bin/python3
"""Ground truth: bytes that one Gated DeltaNet (linear-attention) block of Qwen3-Next / Qwen3.5 saves for backward.

Mirrors the token mixer of a `linear_attention` layer, from the layer input of the mixer (the output of the
input RMSNorm, shape (b, s, hidden)) to the `out_proj` output, as Hugging Face transformers writes it:

* Qwen3-Next: `Qwen3NextGatedDeltaNet`, src/transformers/models/qwen3_next/modeling_qwen3_next.py
  @ 01cdc6081c7500f9e50c98b1b943c90ecb665db3 (fused `in_proj_qkvz` + `in_proj_ba` and
  `fix_query_key_value_ordering`).
* Qwen3.5: `Qwen3_5GatedDeltaNet`, src/transformers/models/qwen3_5/modeling_qwen3_5.py
  @ d8c1e2844cbfeae1e342a1723d7f4e69ff1adcc0 (split `in_proj_qkv` / `in_proj_z` / `in_proj_b` / `in_proj_a`).

* transformers main: `Qwen3_5GatedDeltaNet`, src/transformers/models/qwen3_5/modeling_qwen3_5.py
  @ 009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9 (variant `qwen3_5_main`): the same projections, a rewritten
  torch_chunk_gated_delta_rule (q/k repeated inside, fp32 before l2norm, torch.linalg.solve_triangular instead of the
  forward-substitution loop), kernels picked per function by use_kernel_func_from_hub_with_fallback (the `fla` /
  `causal_conv1d` package when importable), q/k repeated in the layer only for fla < 0.5, and always the torch gated
  RMSNorm (a hub kernel only with `kernels` + use_kernels=True).

The classic files (first two) share the same fast-path choice, decided at import time:
`is_causal_conv1d_available()` (CUDA and the `causal_conv1d` package) gives `causal_conv1d_fn`, else
`F.silu(self.conv1d(mixed_qkv)[..., :seq_len])`; `is_flash_linear_attention_available()` (CUDA and `fla` >= 0.2.2)
gives fla's `chunk_gated_delta_rule` and `FusedRMSNormGated`, else `torch_chunk_gated_delta_rule` and the torch
`RMSNormGated`. Training without a cache always takes the chunked path, with `use_qk_l2norm_in_kernel=True`.

Paths measured (a conv choice x a core choice, so mixed installs are covered too):
* `torch`: the transformers torch fallback, op for op (torch_chunk_gated_delta_rule with its 63-step forward
  substitution loop and its per-chunk loop; the torch gated RMSNorm; nn.Conv1d + silu).
* `fla` / `cuda`: the kernels cannot run here (Triton / CUDA), so they are replaced by autograd.Functions that save
  exactly what the real ones save (same idea as FlashAttention in measure.py), with the same input handling:
  - causal_conv1d.CausalConv1dFn (Dao-AILab/causal-conv1d causal_conv1d_interface.py): x (no copy when x is
    channel-last, as the transposed projection output is), weight; silu fused, output not saved.
  - fla.ops.gated_delta_rule.chunk.ChunkGatedDeltaRuleFunction (fla-org/flash-linear-attention,
    fla/ops/gated_delta_rule/chunk.py): @input_guard makes every tensor argument contiguous, then
    save_for_backward(q, q_rstd, k, k_rstd, v, g, beta, A, initial_state, cu_seqlens) with q, k L2-normalised
    (model dtype), q_rstd / k_rstd fp32 (B, T, H), g the chunk-local cumsum in fp32, A = solve_tril output in k.dtype
    (B, T, Hv, 64); h is recomputed in backward.
  - fla.modules.fused_norm_gate.LayerNormGatedFunction (rms): @input_guard, save_for_backward(x, g, weight, bias=None,
    mean=None, rstd fp32 (T,)).
  The values they compute are the torch reference's (so backward works); only what is saved matters here.

Conventions follow measure.py: torch.autograd.graph.saved_tensors_hooks, every saved tensor's storage counted
once by its full nbytes (a saved view costs its whole storage), parameters (and views of them) and 0-dim scalars
reported apart. Two torch-1.13 artefacts are replaced by PyTorch >= 2 behaviour: `mean(-1)` (1.13's MeanBackward1
keeps its input) and `repeat_interleave(int)` (1.13 builds it from index_select and keeps an int64 index of Hv
entries; >= 2.1 does unsqueeze / expand / clone, which keeps nothing).

Parameters are either all frozen (LoRA-style: only the block input requires grad) or all trainable; the model is
bf16 without autocast, no padding mask, no cache, no gradient checkpointing.

Run with Debian's torch (1.13, CPU): /usr/bin/python3 tools/activations/gated_deltanet.py [--quick] [--tensors] [--out F]
Prints one JSON line per (variant, point, path, params) with the measured bytes and the closed-form formula's
bytes (formula_bytes() below), and exits 1 if any case differs. Last full run: 228/228 cases exact (~80 s).
"""
import argparse
import json
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

HF_SOURCES = {
    "qwen3_next": "src/transformers/models/qwen3_next/modeling_qwen3_next.py@01cdc6081c7500f9e50c98b1b943c90ecb665db3",
    "qwen3_5": "src/transformers/models/qwen3_5/modeling_qwen3_5.py@d8c1e2844cbfeae1e342a1723d7f4e69ff1adcc0",
    "fla_chunk": "fla-org/flash-linear-attention fla/ops/gated_delta_rule/chunk.py@92396f250f2c8f0ad841cecfe29069c8a71a83eb",
    "fla_norm": "fla-org/flash-linear-attention fla/modules/fused_norm_gate.py@18cc5e82fd22ef1b5de81980877eff554f216aac",
    "fla_l2norm": "fla-org/flash-linear-attention fla/modules/l2norm.py@1165df27f495f5c377afb3e7999d542dad975b04",
    "causal_conv1d": "Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py@17f4f2fe12abc9d7fbbb180624e415ff2c1581d2",
}

CHUNK = 64  # chunk_size of torch_chunk_gated_delta_rule and of fla's kernels


# ----------------------------------------------------------------------------------------
# PyTorch >= 2 autograd semantics for two ops whose 1.13 backward saves more
# ----------------------------------------------------------------------------------------
class _MeanLastDim(torch.autograd.Function):
    """x.mean(-1, keepdim=True) with PyTorch >= 2.0 autograd semantics. torch 1.13's MeanBackward1 saves
    its whole input (formula uses self.sym_numel(), which 1.13's codegen did not reduce to an int);
    PyTorch 2.x saves only sizes + numel. Without this, every RMSNorm would count an extra fp32 b*s*h.
    measure.py uses this one too."""

    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return x.mean(-1, keepdim=True)

    @staticmethod
    def backward(ctx, g):
        return g.expand(ctx.shape) / ctx.shape[-1]


def mean_lastdim(x):
    return _MeanLastDim.apply(x)


def repeat_interleave(x, repeats, dim):
    """aten repeat_interleave.self_int as PyTorch >= 2.1 implements it (Repeat.cpp): unsqueeze, expand, contiguous
    clone, flatten. Nothing is saved for backward (1.13 went through index_select and saved an int64 index)."""
    x = x.unsqueeze(dim + 1)
    shape = list(x.shape)
    shape[dim + 1] = repeats
    return x.expand(shape).clone(memory_format=torch.contiguous_format).flatten(dim, dim + 1)


# ----------------------------------------------------------------------------------------
# transformers torch fallback (modeling_qwen3_next.py / modeling_qwen3_5.py, same code in both)
# ----------------------------------------------------------------------------------------
def l2norm(x, dim=-1, eps=1e-6):
    inv_norm = torch.rsqrt((x * x).sum(dim=dim, keepdim=True) + eps)
    return x * inv_norm


def torch_chunk_gated_delta_rule(query, key, value, g, beta, chunk_size=64, initial_state=None,
                                 output_final_state=False, use_qk_l2norm_in_kernel=False):
    initial_dtype = query.dtype
    if use_qk_l2norm_in_kernel:
        query = l2norm(query, dim=-1, eps=1e-6)
        key = l2norm(key, dim=-1, eps=1e-6)
    query, key, value, beta, g = [
        x.transpose(1, 2).contiguous().to(torch.float32) for x in (query, key, value, beta, g)
    ]

    batch_size, num_heads, sequence_length, k_head_dim = key.shape
    v_head_dim = value.shape[-1]
    pad_size = (chunk_size - sequence_length % chunk_size) % chunk_size
    query = F.pad(query, (0, 0, 0, pad_size))
    key = F.pad(key, (0, 0, 0, pad_size))
    value = F.pad(value, (0, 0, 0, pad_size))
    beta = F.pad(beta, (0, pad_size))
    g = F.pad(g, (0, pad_size))
    total_sequence_length = sequence_length + pad_size
    scale = 1 / (query.shape[-1] ** 0.5)
    query = query * scale

    v_beta = value * beta.unsqueeze(-1)
    k_beta = key * beta.unsqueeze(-1)
    # reshape to chunks
    query, key, value, k_beta, v_beta = [
        x.reshape(x.shape[0], x.shape[1], -1, chunk_size, x.shape[-1]) for x in (query, key, value, k_beta, v_beta)
    ]
    g = g.reshape(g.shape[0], g.shape[1], -1, chunk_size)
    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=query.device), diagonal=0)

    # chunk decay
    g = g.cumsum(dim=-1)
    decay_mask = ((g.unsqueeze(-1) - g.unsqueeze(-2)).tril().exp().float()).tril()
    attn = -((k_beta @ key.transpose(-1, -2)) * decay_mask).masked_fill(mask, 0)
    for i in range(1, chunk_size):
        row = attn[..., i, :i].clone()
        sub = attn[..., :i, :i].clone()
        attn[..., i, :i] = row + (row.unsqueeze(-1) * sub).sum(-2)
    attn = attn + torch.eye(chunk_size, dtype=attn.dtype, device=attn.device)
    value = attn @ v_beta
    k_cumdecay = attn @ (k_beta * g.exp().unsqueeze(-1))
    last_recurrent_state = (
        torch.zeros(batch_size, num_heads, k_head_dim, v_head_dim).to(value)
        if initial_state is None
        else initial_state.to(value)
    )
    core_attn_out = torch.zeros_like(value)
    mask = torch.triu(torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=query.device), diagonal=1)

    # for each chunk
    for i in range(0, total_sequence_length // chunk_size):
        q_i, k_i, v_i = query[:, :, i], key[:, :, i], value[:, :, i]
        attn = (q_i @ k_i.transpose(-1, -2) * decay_mask[:, :, i]).masked_fill_(mask, 0)
        v_prime = (k_cumdecay[:, :, i]) @ last_recurrent_state
        v_new = v_i - v_prime
        attn_inter = (q_i * g[:, :, i, :, None].exp()) @ last_recurrent_state
        core_attn_out[:, :, i] = attn_inter + attn @ v_new
        last_recurrent_state = (
            last_recurrent_state * g[:, :, i, -1, None, None].exp()
            + (k_i * (g[:, :, i, -1, None] - g[:, :, i]).exp()[..., None]).transpose(-1, -2) @ v_new
        )

    if not output_final_state:
        last_recurrent_state = None
    core_attn_out = core_attn_out.reshape(core_attn_out.shape[0], core_attn_out.shape[1], -1, core_attn_out.shape[-1])
    core_attn_out = core_attn_out[:, :, :sequence_length]
    core_attn_out = core_attn_out.transpose(1, 2).contiguous().to(initial_dtype)
    return core_attn_out, last_recurrent_state


def torch_chunk_gated_delta_rule_main(query, key, value, g, beta, chunk_size=64, initial_state=None,
                                      output_final_state=False, use_qk_l2norm_in_kernel=False, **kwargs):
    """torch_chunk_gated_delta_rule of transformers main (modeling_qwen3_5.py @ 009e78d6): q/k repeated inside, fp32
    and l2norm first, torch.linalg.solve_triangular instead of the forward-substitution loop (is_torchdynamo_exporting()
    is False in training), decays folded into query / key before the chunk scan."""
    initial_dtype = query.dtype
    batch_size, sequence_length, _, k_head_dim = key.shape
    num_v_heads, v_head_dim = value.shape[-2:]
    if key.shape[2] != num_v_heads:
        query, key = (repeat_interleave(x, num_v_heads // x.shape[2], dim=2) for x in (query, key))
    recurrent_state_shape = (batch_size, num_v_heads, k_head_dim, v_head_dim)
    padded_output_shape = (batch_size, num_v_heads, -1, v_head_dim)
    decay = g
    query, key, value, beta, decay = [
        x.transpose(1, 2).to(torch.float32, memory_format=torch.contiguous_format)
        for x in (query, key, value, beta, decay)
    ]
    if use_qk_l2norm_in_kernel:
        query = l2norm(query, dim=-1, eps=1e-6)
        key = l2norm(key, dim=-1, eps=1e-6)
    scaling = query.shape[-1] ** -0.5
    query = query * scaling

    pad_size = (chunk_size - sequence_length % chunk_size) % chunk_size
    query, key, value = (F.pad(x, (0, 0, 0, pad_size)) for x in (query, key, value))
    beta, decay = (F.pad(x, (0, pad_size)) for x in (beta, decay))
    total_sequence_length = sequence_length + pad_size
    num_chunks = total_sequence_length // chunk_size

    v_beta = value * beta.unsqueeze(-1)
    k_beta = key * beta.unsqueeze(-1)
    query, key, k_beta, v_beta = [
        x.reshape(x.shape[0], x.shape[1], -1, chunk_size, x.shape[-1]) for x in (query, key, k_beta, v_beta)
    ]
    decay = decay.reshape(decay.shape[0], decay.shape[1], -1, chunk_size)
    strictly_upper_mask = torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=query.device).triu(1)
    cum_decay = decay.cumsum(dim=3)
    pairwise_decay = cum_decay.unsqueeze(4) - cum_decay.unsqueeze(3)
    pairwise_decay = pairwise_decay.masked_fill(strictly_upper_mask, float("-inf"))
    pairwise_decay = pairwise_decay.exp()
    ut_system = (k_beta @ key.transpose(-1, -2)) * pairwise_decay
    intra_chunk_attn = (query @ key.transpose(-1, -2)) * pairwise_decay
    decayed_k_beta = k_beta * cum_decay.exp().unsqueeze(-1)
    new_values = torch.linalg.solve_triangular(ut_system, v_beta, upper=False, unitriangular=True)
    k_cumdecay = torch.linalg.solve_triangular(ut_system, decayed_k_beta, upper=False, unitriangular=True)
    if initial_state is None:
        last_recurrent_state = torch.zeros(recurrent_state_shape, dtype=new_values.dtype, device=new_values.device)
    else:
        last_recurrent_state = initial_state.to(new_values)
    core_attn_out = torch.zeros_like(new_values)
    query = query * cum_decay.exp().unsqueeze(-1)
    key = key * (cum_decay[..., -1:] - cum_decay).exp().unsqueeze(-1)
    chunk_decay = cum_decay[..., -1].exp()[..., None, None]
    for i in range(num_chunks):
        v_new = new_values[:, :, i] - k_cumdecay[:, :, i] @ last_recurrent_state
        inter_chunk_attn = query[:, :, i] @ last_recurrent_state
        core_attn_out[:, :, i] = inter_chunk_attn + intra_chunk_attn[:, :, i] @ v_new
        last_recurrent_state = last_recurrent_state * chunk_decay[:, :, i] + key[:, :, i].transpose(-1, -2) @ v_new
    last_recurrent_state = None if not output_final_state else last_recurrent_state
    core_attn_out = core_attn_out.reshape(padded_output_shape)
    core_attn_out = core_attn_out[:, :, :sequence_length]
    core_attn_out = core_attn_out.transpose(1, 2).to(initial_dtype, memory_format=torch.contiguous_format)
    return core_attn_out, last_recurrent_state


class RMSNormGated(nn.Module):
    """Qwen3NextRMSNormGated / Qwen3_5RMSNormGated (the torch gated norm, used when fla is not available)."""

    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = mean_lastdim(hidden_states.pow(2))
        # Norm before gate
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        hidden_states = self.weight * hidden_states.to(input_dtype)
        hidden_states = hidden_states * F.silu(gate.to(torch.float32))
        return hidden_states.to(input_dtype)


# ----------------------------------------------------------------------------------------
# kernel emulations: save exactly what the CUDA / Triton kernels save
# ----------------------------------------------------------------------------------------
def _causal_conv_ref(x, weight, activation):
    out = F.conv1d(x, weight.unsqueeze(1), None, padding=weight.shape[-1] - 1, groups=x.shape[1])[..., : x.shape[-1]]
    return F.silu(out) if activation in ("silu", "swish") else out


class CausalConv1dFn(torch.autograd.Function):
    """causal_conv1d.CausalConv1dFn: x is copied only if neither its channel nor its time stride is 1; the output is
    torch::empty_like(x) (so channel-last when x is); ctx.save_for_backward(x, weight, bias, seq_idx, initial_states)."""

    @staticmethod
    def forward(ctx, x, weight, bias, activation):
        if x.stride(2) != 1 and x.stride(1) != 1:
            x = x.contiguous()
        with torch.no_grad():
            ref = _causal_conv_ref(x, weight, activation)
        out = torch.empty_like(x)
        out.copy_(ref)
        ctx.save_for_backward(x.detach(), weight)  # bias, seq_idx, initial_states are None here
        ctx.activation = activation
        return out

    @staticmethod
    def backward(ctx, dout):
        x, weight = ctx.saved_tensors
        with torch.enable_grad():
            xx, ww = x.detach().requires_grad_(), weight.detach().requires_grad_()
            dx, dw = torch.autograd.grad(_causal_conv_ref(xx, ww, ctx.activation), (xx, ww), dout)
        return dx, dw, None, None


def causal_conv1d_fn(x, weight, bias=None, activation=None, seq_idx=None):
    return CausalConv1dFn.apply(x, weight, bias, activation)


def _l2norm_fwd(x, eps=1e-6):
    """fla.modules.l2norm.l2norm_fwd: y in x.dtype, rstd fp32 of shape x.shape[:-1]."""
    xf = x.float()
    rstd = torch.rsqrt((xf * xf).sum(-1) + eps)
    return (xf * rstd[..., None]).to(x.dtype), rstd


def _chunk_local_cumsum(g, chunk):
    b, t, h = g.shape
    pad = (chunk - t % chunk) % chunk
    gp = F.pad(g.float().transpose(1, 2), (0, pad)).reshape(b, h, -1, chunk).cumsum(-1)
    return gp.reshape(b, h, -1)[..., :t].transpose(1, 2).contiguous()


def _fla_reference(q, k, v, g, beta, l2):
    """Values of chunk_gated_delta_rule (q, k may have fewer heads than v: grouped value attention)."""
    if q.shape[2] != v.shape[2]:
        rep = v.shape[2] // q.shape[2]
        q, k = q.repeat_interleave(rep, 2), k.repeat_interleave(rep, 2)
    if l2:
        q, k = (l2norm(t.float()).to(t.dtype) for t in (q, k))
    o, _ = torch_chunk_gated_delta_rule(q, k, v, g, beta, chunk_size=CHUNK)
    return o


class ChunkGatedDeltaRuleFunction(torch.autograd.Function):
    """fla ChunkGatedDeltaRuleFunction.forward (input_guard, use_qk_l2norm_in_kernel=True, no initial state)."""

    @staticmethod
    def forward(ctx, q, k, v, g, beta, use_qk_l2norm_in_kernel):
        q, k, v, g, beta = (t.contiguous() for t in (q, k, v, g, beta))  # @input_guard
        ctx.inputs = tuple(t.detach() for t in (q, k, v, g, beta))  # for the emulated backward only, not "saved"
        if use_qk_l2norm_in_kernel:
            q, q_rstd = _l2norm_fwd(q)
            k, k_rstd = _l2norm_fwd(k)
        else:
            q_rstd = k_rstd = None
        g_cum = _chunk_local_cumsum(g, CHUNK)  # chunk_local_cumsum(..., output_dtype=torch.float)
        b, t, hv = beta.shape
        A = torch.zeros(b, t, hv, CHUNK, dtype=k.dtype)  # chunk_scaled_dot_kkt_fwd -> solve_tril(output_dtype=k.dtype)
        with torch.no_grad():
            ref = _fla_reference(*ctx.inputs, use_qk_l2norm_in_kernel)
        o = torch.empty_like(v)  # chunk_fwd_o: o = torch.empty_like(v)
        o.copy_(ref)
        ctx.save_for_backward(*(t.detach() if t is not None else None for t in (q, q_rstd, k, k_rstd, v, g_cum, beta, A)))
        ctx.l2 = use_qk_l2norm_in_kernel
        return o

    @staticmethod
    def backward(ctx, do):
        with torch.enable_grad():
            ins = [t.detach().requires_grad_() for t in ctx.inputs]
            grads = torch.autograd.grad(_fla_reference(*ins, ctx.l2), ins, do)
        return (*grads, None)


def chunk_gated_delta_rule(q, k, v, g, beta, initial_state=None, output_final_state=False,
                           use_qk_l2norm_in_kernel=False):
    return ChunkGatedDeltaRuleFunction.apply(q, k, v, g, beta, use_qk_l2norm_in_kernel), None


def _gated_rms_ref(x, g, w, eps):
    xf = x.float()
    rstd = torch.rsqrt((xf * xf).mean(-1, keepdim=True) + eps)
    return (xf * rstd * w.float() * F.silu(g.float())).to(x.dtype)


class LayerNormGatedFunction(torch.autograd.Function):
    """fla fused_norm_gate.LayerNormGatedFunction with is_rms_norm=True, no residual, activation 'silu'."""

    @staticmethod
    def forward(ctx, x, g, weight, eps):
        x, g = x.contiguous(), g.contiguous()  # @input_guard
        shape = x.shape
        x, g = x.reshape(-1, x.shape[-1]), g.reshape(-1, g.shape[-1])
        with torch.no_grad():
            xf = x.float()
            rstd = torch.rsqrt((xf * xf).mean(-1) + eps)  # (T,) fp32
            y = _gated_rms_ref(x, g, weight, eps)
        # residual_out (= x), g, weight, bias=None, mean=None, rstd; detached: same storages (1.13 cannot unpack a
        # no-grad view of an input that requires grad)
        ctx.save_for_backward(x.detach(), g.detach(), weight, rstd)
        ctx.eps = eps
        return y.reshape(shape)

    @staticmethod
    def backward(ctx, dy):
        x, g, weight, _ = ctx.saved_tensors
        with torch.enable_grad():
            ins = [t.detach().requires_grad_() for t in (x, g, weight)]
            dx, dg, dw = torch.autograd.grad(_gated_rms_ref(*ins, ctx.eps), ins, dy.reshape(x.shape))
        return dx, dg, dw, None


class FusedRMSNormGated(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, activation="silu"):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x, g):
        return LayerNormGatedFunction.apply(x, g, self.weight, self.eps)


# ----------------------------------------------------------------------------------------
# the Gated DeltaNet block
# ----------------------------------------------------------------------------------------
class GatedDeltaNet(nn.Module):
    """variant: 'qwen3_next' (in_proj_qkvz + in_proj_ba), 'qwen3_5' (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a), or
    'qwen3_5_main' (transformers main, modeling_qwen3_5.py @ 009e78d6: Qwen3.5 projections, solve_triangular fallback,
    torch gated norm even with fla).
    conv: 'torch' (nn.Conv1d + silu) or 'cuda' (causal_conv1d_fn). core: 'torch' (torch_chunk_gated_delta_rule +
    torch RMSNormGated) or 'fla' (chunk_gated_delta_rule + FusedRMSNormGated). gva: q/k are not repeated to the value
    heads (fla >= 0.5 with a transformers that checks fla_needs_equal_qk_heads(); the classic files always repeat)."""

    def __init__(self, cfg, variant="qwen3_5", conv="torch", core="torch", gva=False):
        super().__init__()
        self.hidden_size = cfg["hidden"]
        self.num_v_heads, self.num_k_heads = cfg["Hv"], cfg["Hk"]
        self.head_k_dim, self.head_v_dim = cfg["dk"], cfg["dv"]
        self.key_dim = self.head_k_dim * self.num_k_heads
        self.value_dim = self.head_v_dim * self.num_v_heads
        self.conv_kernel_size = cfg["K"]
        self.activation = "silu"
        self.layer_norm_epsilon = 1e-6
        self.variant, self.gva = variant, gva
        self.conv_dim = self.key_dim * 2 + self.value_dim
        self.conv1d = nn.Conv1d(self.conv_dim, self.conv_dim, bias=False, kernel_size=self.conv_kernel_size,
                                groups=self.conv_dim, padding=self.conv_kernel_size - 1)
        if variant == "qwen3_next":
            self.in_proj_qkvz = nn.Linear(self.hidden_size, self.key_dim * 2 + self.value_dim * 2, bias=False)
            self.in_proj_ba = nn.Linear(self.hidden_size, self.num_v_heads * 2, bias=False)
        else:
            self.in_proj_qkv = nn.Linear(self.hidden_size, self.key_dim * 2 + self.value_dim, bias=False)
            self.in_proj_z = nn.Linear(self.hidden_size, self.value_dim, bias=False)
            self.in_proj_b = nn.Linear(self.hidden_size, self.num_v_heads, bias=False)
            self.in_proj_a = nn.Linear(self.hidden_size, self.num_v_heads, bias=False)
        self.dt_bias = nn.Parameter(torch.ones(self.num_v_heads))
        self.A_log = nn.Parameter(torch.log(torch.empty(self.num_v_heads).uniform_(0, 16)))
        main = variant == "qwen3_5_main"
        # transformers main: always the torch gated norm (a hub kernel only with `kernels` + use_kernels=True)
        self.norm = (RMSNormGated(self.head_v_dim, eps=self.layer_norm_epsilon) if core == "torch" or main
                     else FusedRMSNormGated(self.head_v_dim, eps=self.layer_norm_epsilon, activation=self.activation))
        self.out_proj = nn.Linear(self.value_dim, self.hidden_size, bias=False)
        self.causal_conv1d_fn = causal_conv1d_fn if conv == "cuda" else None
        self.chunk_gated_delta_rule = (chunk_gated_delta_rule if core == "fla" else
                                       torch_chunk_gated_delta_rule_main if main else torch_chunk_gated_delta_rule)
        # classic files: repeat whenever Hv > Hk; main: only for fla < 0.5 (fla_needs_equal_qk_heads), the torch
        # fallback repeats inside torch_chunk_gated_delta_rule
        self.repeat_qk_heads = self.num_v_heads > self.num_k_heads and not gva and (core == "fla" or not main)

    def fix_query_key_value_ordering(self, mixed_qkvz, mixed_ba):  # Qwen3-Next only
        new_tensor_shape_qkvz = mixed_qkvz.size()[:-1] + (
            self.num_k_heads,
            2 * self.head_k_dim + 2 * self.head_v_dim * self.num_v_heads // self.num_k_heads,
        )
        new_tensor_shape_ba = mixed_ba.size()[:-1] + (self.num_k_heads, 2 * self.num_v_heads // self.num_k_heads)
        mixed_qkvz = mixed_qkvz.view(*new_tensor_shape_qkvz)
        mixed_ba = mixed_ba.view(*new_tensor_shape_ba)
        split_arg_list_qkvz = [
            self.head_k_dim,
            self.head_k_dim,
            (self.num_v_heads // self.num_k_heads * self.head_v_dim),
            (self.num_v_heads // self.num_k_heads * self.head_v_dim),
        ]
        split_arg_list_ba = [self.num_v_heads // self.num_k_heads, self.num_v_heads // self.num_k_heads]
        query, key, value, z = torch.split(mixed_qkvz, split_arg_list_qkvz, dim=3)
        b, a = torch.split(mixed_ba, split_arg_list_ba, dim=3)
        value = value.reshape(value.size(0), value.size(1), -1, self.head_v_dim)
        z = z.reshape(z.size(0), z.size(1), -1, self.head_v_dim)
        b = b.reshape(b.size(0), b.size(1), self.num_v_heads)
        a = a.reshape(a.size(0), a.size(1), self.num_v_heads)
        return query, key, value, z, b, a

    def forward(self, hidden_states):
        # apply_mask_to_padding_states is a no-op without padding (attention_mask None / all ones)
        batch_size, seq_len, _ = hidden_states.shape
        if self.variant == "qwen3_next":  # qwen3_5 and qwen3_5_main project alike
            projected_states_qkvz = self.in_proj_qkvz(hidden_states)
            projected_states_ba = self.in_proj_ba(hidden_states)
            query, key, value, z, b, a = self.fix_query_key_value_ordering(projected_states_qkvz, projected_states_ba)
            query, key, value = (x.reshape(x.shape[0], x.shape[1], -1) for x in (query, key, value))
            mixed_qkv = torch.cat((query, key, value), dim=-1)
            mixed_qkv = mixed_qkv.transpose(1, 2)
        else:
            mixed_qkv = self.in_proj_qkv(hidden_states)
            mixed_qkv = mixed_qkv.transpose(1, 2)
            z = self.in_proj_z(hidden_states)
            z = z.reshape(batch_size, seq_len, -1, self.head_v_dim)
            b = self.in_proj_b(hidden_states)
            a = self.in_proj_a(hidden_states)

        if self.causal_conv1d_fn is not None:
            mixed_qkv = self.causal_conv1d_fn(x=mixed_qkv, weight=self.conv1d.weight.squeeze(1),
                                              bias=self.conv1d.bias, activation=self.activation, seq_idx=None)
        else:
            mixed_qkv = F.silu(self.conv1d(mixed_qkv)[:, :, :seq_len])

        mixed_qkv = mixed_qkv.transpose(1, 2)
        query, key, value = torch.split(mixed_qkv, [self.key_dim, self.key_dim, self.value_dim], dim=-1)
        query = query.reshape(query.shape[0], query.shape[1], -1, self.head_k_dim)
        key = key.reshape(key.shape[0], key.shape[1], -1, self.head_k_dim)
        value = value.reshape(value.shape[0], value.shape[1], -1, self.head_v_dim)

        beta = b.sigmoid()
        # If the model is loaded in fp16, without the .float() here, A might be -inf
        g = -self.A_log.float().exp() * F.softplus(a.float() + self.dt_bias)
        if self.repeat_qk_heads:
            query = repeat_interleave(query, self.num_v_heads // self.num_k_heads, dim=2)
            key = repeat_interleave(key, self.num_v_heads // self.num_k_heads, dim=2)

        core_attn_out, _ = self.chunk_gated_delta_rule(query, key, value, g=g, beta=beta, initial_state=None,
                                                       output_final_state=False, use_qk_l2norm_in_kernel=True)

        z_shape_og = z.shape
        core_attn_out = core_attn_out.reshape(-1, core_attn_out.shape[-1])
        z = z.reshape(-1, z.shape[-1])
        core_attn_out = self.norm(core_attn_out, z)
        core_attn_out = core_attn_out.reshape(z_shape_og)
        core_attn_out = core_attn_out.reshape(core_attn_out.shape[0], core_attn_out.shape[1], -1)
        return self.out_proj(core_attn_out)


# ----------------------------------------------------------------------------------------
# recording (same rules as measure.py)
# ----------------------------------------------------------------------------------------
def storage_key(t):
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return st.data_ptr(), st.nbytes()


class Recorder(TorchFunctionMode):
    def __init__(self, model):
        super().__init__()
        self.param_ptrs = {storage_key(p)[0] for p in model.parameters()}
        self.op = None
        self.entries = []
        self.keep = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        prev = self.op
        if prev is None or prev == "apply":
            self.op = getattr(func, "__name__", str(func))
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.op = prev

    def pack(self, t):
        ptr, nbytes = storage_key(t)
        kind = "param" if ptr in self.param_ptrs else ("scalar" if t.dim() == 0 else "act")
        self.entries.append(dict(op=self.op or "apply", shape=list(t.shape), dtype=str(t.dtype).replace("torch.", ""),
                                 ptr=ptr, storageBytes=nbytes, kind=kind))
        self.keep.append(t)
        return t


def summarize(entries):
    by_ptr = {}
    for e in entries:
        by_ptr.setdefault(e["ptr"], e)
    out = dict(act=0, param=0, scalar=0)
    for e in by_ptr.values():
        out[e["kind"]] += e["storageBytes"]
    return out


def prepare(m, pt, dtype, trainable, seed):
    """Weights drawn at a fan-in scale, the module in `dtype` and training mode, its parameters trainable or frozen;
    returns the input (b, s, hidden), which requires grad."""
    with torch.no_grad():
        for n, p in m.named_parameters():
            if p.dim() >= 2:
                fan_in = p.shape[1] if p.dim() == 2 else p.shape[-1]
                p.normal_(0, 0.5 / math.sqrt(fan_in))
    m.to(dtype).train()
    for p in m.parameters():
        p.requires_grad_(trainable)
    x = torch.randn(pt["b"], pt["s"], pt["hidden"], generator=torch.Generator().manual_seed(1 + seed)).to(dtype)
    x.requires_grad_(True)
    return x


def record(m, rec, x, forward, trainable, want_tensors, summarize_fn=None):
    """Runs `forward()` under the saved-tensor hooks of `rec`, sums what was saved (summarize_fn, this module's
    summarize by default), lists the tensors when asked, then runs a backward and checks the gradients are finite."""
    with torch.autograd.graph.saved_tensors_hooks(rec.pack, lambda t: t), rec:
        y = forward()
    tot = (summarize_fn or summarize)(rec.entries)
    tensors = None
    if want_tensors:
        seen, tensors = set(), []
        for e in rec.entries:
            if e["kind"] != "act":
                continue
            tensors.append(dict(op=e["op"], shape=e["shape"], dtype=e["dtype"], storageBytes=e["storageBytes"],
                                counted=e["ptr"] not in seen))
            seen.add(e["ptr"])
    rec.keep.clear()
    y.float().square().mean().backward()
    assert torch.isfinite(y.float()).all() and torch.isfinite(x.grad.float()).all()
    if trainable:
        assert all(p.grad is not None and torch.isfinite(p.grad.float()).all() for p in m.parameters())
    return tot, tensors


def emit_case(records, rec, tensors=None, name=None):
    """Prints one measured case as a JSON line and keeps it for --out (with its name and saved-tensor list if given)."""
    if name:
        rec["name"] = name
    if tensors is not None:
        rec["tensors"] = tensors
    print(json.dumps(rec), flush=True)
    records.append(rec)


def write_cases(path, script, records, **extra):
    """Writes a script's measured cases as the unit tests read them: {source, ...extra, cases}."""
    with open(path, "w") as f:
        json.dump({"source": f"tools/activations/{script} (Debian torch {torch.__version__}, CPU, bf16)", **extra, "cases": records}, f, indent=1)
        f.write("\n")


def measure(pt, variant, conv, core, trainable, gva=False, dtype=torch.bfloat16, want_tensors=False, seed=0):
    torch.manual_seed(seed)
    m = GatedDeltaNet(pt, variant=variant, conv=conv, core=core, gva=gva)
    x = prepare(m, pt, dtype, trainable, seed)
    return record(m, Recorder(m), x, lambda: m(x), trainable, want_tensors)


# ----------------------------------------------------------------------------------------
# closed-form formula (bf16 model, bytes per Gated DeltaNet block); see the notes in the report
# ----------------------------------------------------------------------------------------
def formula_bytes(pt, conv, core, trainable, gva=False, variant="qwen3_5"):
    """Bytes saved for backward by one Gated DeltaNet block, bf16 model, no padding mask, no cache.
    conv: 'torch' | 'cuda' (causal-conv1d); core: 'torch' | 'fla'; gva: fla gets q/k with the key heads only
    (fla >= 0.5 and transformers main); variant 'qwen3_5_main' = transformers main (solve_triangular fallback, torch
    gated norm also with fla). Sum of independent components; see the report for the tensor behind every term."""
    b, s, h, Hk, Hv, dk, dv, K = (pt[k] for k in ("b", "s", "hidden", "Hk", "Hv", "dk", "dv", "K"))
    C = CHUNK
    T = b * s                         # tokens
    nc = -(-s // C)                   # chunks per sequence
    P = b * nc * C                    # tokens after padding s up to a multiple of C
    Dc = 2 * Hk * dk + Hv * dv        # conv channels (q, k, v)
    r = Hv // Hk
    main = variant == "qwen3_5_main"
    Hq = Hk if (gva and core == "fla") else Hv  # heads of the q / k given to the fla kernel
    n = 0
    # --- projections and gates (every path) ---
    # in_proj_* input (hidden_states, one storage for all projections), bf16: only for weight gradients
    if trainable:
        n += 2 * T * h
    # beta = b.sigmoid() keeps its output (bf16, b*s*Hv); fla saves the same storage
    n += 2 * T * Hv
    # g = -A_log.float().exp() * softplus(a.float() + dt_bias): softplus keeps its fp32 input;
    # the mul keeps -exp(A_log) (fp32, Hv) and, when A_log trains, the softplus output (fp32) and exp(A_log) (fp32, Hv)
    n += 4 * T * Hv + 4 * Hv
    if trainable:
        n += 4 * T * Hv + 4 * Hv
    # --- depthwise causal conv ---
    # its input (the q/k/v projection, or its cat in Qwen3-Next), bf16: nn.Conv1d and CausalConv1dFn both keep it
    n += 2 * T * Dc
    if conv == "torch":
        # F.silu(conv1d(x)[..., :s]) saves the slice, i.e. the whole conv output (b, Dc, s + K - 1), bf16
        n += 2 * b * Dc * (s + K - 1)
    # --- chunked gated delta rule ---
    if core == "fla":
        # ChunkGatedDeltaRuleFunction: q, k l2-normalised (bf16) + rstd (fp32) each, v contiguous copy (bf16),
        # g chunk-local cumsum (fp32), A (bf16, b*s*Hv*C); beta is the sigmoid output already counted
        n += 2 * (2 * T * Hq * dk + 4 * T * Hq) + 2 * T * Hv * dv + 4 * T * Hv + 2 * T * Hv * C
    elif not main:
        # l2norm(x) on bf16 q, k: x*x and x*inv keep x; rsqrt keeps inv (bf16, b*s*Hv*1), for q and for k
        if r > 1:
            n += 2 * 2 * T * Hv * dk  # the repeat_interleave'd q and k (bf16)
        else:
            n += 2 * T * Dc  # q, k are views of the conv output (b, s, Dc): its whole storage
        n += 2 * 2 * T * Hv
        # padded fp32 tensors (b, Hv, nc*C, d). dk: key, k_beta, k_beta*exp(g), query*scale (whole storages);
        # k_i*exp(g_last - g_i) of every chunk; q_i*exp(g_i) of chunks 1.. (chunk 0 multiplies the zero initial state,
        # which needs no gradient); k_cumdecay only if there is a second chunk (same reason). dv: value, v_beta, v_new.
        n += 4 * Hv * dk * (6 * P - b * C + (P if nc > 1 else 0))
        n += 4 * Hv * dv * 3 * P
        # (b, Hv, nc, C, C) fp32: exp of the decay differences, decay_mask, k_beta@k^T, attn+I (whole), and per chunk
        # q_i@k_i^T (kept by the mul with decay_mask) and the masked product (kept by attn @ v_new)
        n += 4 * 6 * P * Hv * C
        # (b, Hv, nc*C) fp32: padded beta, exp(g), exp(g) per chunk row, exp(g_last - g)
        n += 4 * 4 * P * Hv
        # forward substitution loop, i = 1..C-1: clones row (i) and sub (i x i), fp32, per (b, Hv, chunk):
        # sum(i + i^2) = (C^3 - C) / 3 elements
        n += 4 * b * Hv * nc * (C ** 3 - C) // 3
        # recurrent state before each chunk (fp32 dk x dv) and exp(g_last) per chunk
        n += 4 * b * Hv * nc * (dk * dv + 1)
        # the two bool (C, C) masks
        n += 2 * C * C
    else:
        # transformers main: q, k cast to fp32 (b, Hv, s, dk) then l2norm: x and inv (fp32 per row), for q and for k
        n += 2 * (4 * T * Hv * dk + 4 * T * Hv)
        # padded fp32 (b, Hv, nc*C, d). dk: key, k_beta, query*scale, key*exp(g_last - g), k_cumdecay (the result of
        # solve_triangular, which keeps it); query*exp(g) only if there is a second chunk (chunk 0 reads the zero
        # initial state, which needs no gradient). dv: value, new_values (solve_triangular result), v_new.
        n += 4 * Hv * dk * (5 * P + (P if nc > 1 else 0))
        n += 4 * Hv * dv * 3 * P
        # (b, Hv, nc, C, C) fp32: pairwise decay (exp), k_beta@k^T, q@k^T, ut_system (kept by solve_triangular),
        # intra-chunk attention (kept by the chunk matmul)
        n += 4 * 5 * P * Hv * C
        # (b, Hv, nc*C) fp32: padded beta, exp(cum_decay) (twice), exp(g_last - cum_decay); (b, Hv, nc): chunk decay
        n += 4 * 4 * P * Hv + 4 * b * Hv * nc
        # recurrent state before each chunk (fp32 dk x dv)
        n += 4 * b * Hv * nc * dk * dv
        # the bool (C, C) mask
        n += C * C
    # --- gated RMSNorm ---
    if core == "fla" and not main:
        # FusedRMSNormGated: x (the kernel output o, bf16), gate z (bf16, contiguous), rstd (fp32 per row)
        n += 2 * T * Hv * dv + 2 * T * Hv * dv + 4 * T * Hv
    else:
        # torch gated RMSNorm: x.float() (4), rsqrt (4 per row), gate.float() (4), weight*x_hat bf16 (2), silu(gate) (4)
        n += T * Hv * (14 * dv + 4)
        if trainable:
            n += 2 * T * Hv * dv  # x_hat.to(bf16), kept by weight * x_hat for the weight gradient
    # --- out_proj input (bf16): only for the weight gradient ---
    if trainable:
        n += 2 * T * Hv * dv
    return n


# ----------------------------------------------------------------------------------------
# points
# ----------------------------------------------------------------------------------------
def P_(b, s, hidden, Hk, Hv, dk, dv, K=4, name=None):
    return dict(b=b, s=s, hidden=hidden, Hk=Hk, Hv=Hv, dk=dk, dv=dv, K=K, name=name)


POINTS = [
    P_(1, 64, 128, 2, 2, 32, 32),
    P_(2, 100, 192, 2, 4, 32, 48),
    P_(1, 130, 160, 1, 3, 16, 32),
    P_(3, 37, 96, 4, 4, 32, 16),
    P_(1, 65, 64, 2, 8, 16, 16, K=3),
    P_(2, 192, 160, 3, 6, 24, 40, K=5),
    P_(1, 200, 256, 16, 48, 128, 128, name="Qwen3.5-27B heads (16 k, 48 v, 128/128), hidden scaled down"),
    P_(2, 128, 256, 16, 32, 128, 128, name="Qwen3-Next-80B heads (16 k, 32 v, 128/128), hidden scaled down"),
]

PATHS = [  # (conv, core, gva)
    ("torch", "torch", False),
    ("cuda", "fla", False),
    ("cuda", "fla", True),
    ("cuda", "torch", False),
    ("torch", "fla", False),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="first 4 points, torch and fla paths only")
    ap.add_argument("--tensors", action="store_true", help="also print the saved-tensor list of each case")
    ap.add_argument("--variants", default="qwen3_5,qwen3_next,qwen3_5_main")
    ap.add_argument("--out", help="also write the records as one JSON array (the unit tests read "
                    "test/fixtures/activations/gated_deltanet.json)")
    args = ap.parse_args()
    records = []
    torch.set_num_threads(2)
    points = POINTS[:4] if args.quick else POINTS
    paths = PATHS[:2] if args.quick else PATHS
    bad = n = 0
    for variant in args.variants.split(","):
        for pt in points:
            for conv, core, gva in paths:
                if gva and pt["Hv"] == pt["Hk"]:
                    continue
                for trainable in (False, True):
                    tot, tensors = measure(pt, variant, conv, core, trainable, gva=gva, want_tensors=args.tensors)
                    exp = formula_bytes(pt, conv, core, trainable, gva=gva, variant=variant)
                    n += 1
                    bad += tot["act"] != exp
                    rec = dict(variant=variant, conv=conv, core=core, gva=gva,
                               params="trainable" if trainable else "frozen",
                               **{k: pt[k] for k in ("b", "s", "hidden", "Hk", "Hv", "dk", "dv", "K")},
                               measured=tot["act"], formula=exp, match=tot["act"] == exp,
                               perToken=round(tot["act"] / (pt["b"] * pt["s"]), 2),
                               savedParamBytes=tot["param"], savedScalarBytes=tot["scalar"])
                    emit_case(records, rec, tensors)
    print(f"formula check: {n - bad}/{n} cases reproduced exactly", flush=True)
    if args.out:
        write_cases(args.out, "gated_deltanet.py", records)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
