#!/usr/bin/python3
"""What LoRA on bare 3-D MoE expert parameters (PEFT `LoraConfig(target_parameters=[...])`, i.e. PEFT's
`ParamWrapper`) keeps for backward and holds live, next to the same transformers-5 fused experts without LoRA.

Reimplemented here, op for op:

* transformers 5 fused experts (`@use_experts_implementation`), three implementations of
  src/transformers/integrations/moe.py @ 8b584a67b474f3dfdedcdda7acb96a33dcc3b5e3:
  - "grouped_mm" (the default: `get_correct_experts_implementation` picks it when none is requested):
    each 3-D parameter is read ONCE per forward (`selected_gate_up = self.gate_up_proj`), torch._grouped_mm
    is emulated by an autograd.Function that saves what derivatives.yaml's `_grouped_mm` entry saves
    (self if mat2 needs grad, mat2 if self needs grad, like mm);
  - "eager" (MixtralExperts / Qwen3MoeExperts / Qwen3NextExperts / Qwen3_5MoeExperts forward, also the
    reference in the moe.py header): loop over hit experts, reads `self.gate_up_proj[expert_idx]` and
    `self.down_proj[expert_idx]` once PER HIT EXPERT;
  - "batched_mm": `self.gate_up_proj[expert_ids]` gathers one weight copy per (token, expert) pair.
  plus gpt-oss's eager loop (modular_gpt_oss.py @ 0261a467116de4a9103b58200f9d82f8fb5a0e86: is_transposed
  layout, biases, clamped (up + 1) * glu).
* PEFT ParamWrapper (src/peft/tuners/lora/layer.py): lora_A = Linear(in, r*E), lora_B = Linear(r*E, out),
  delta = einsum("o r e, e r i -> e o i" | "... -> e i o") * scaling, .to(param.dtype), registered with
  torch.nn.utils.parametrize as W + delta for the duration of the wrapped forward; nested ParamWrappers when
  both gate_up_proj and down_proj are targeted. Three variants:
  - "fixed":   PEFT after PR #2912 (BenjaminBossan/peft @ 160235cb): `with parametrize.cached(): yield`
               around the base forward -> W + delta is computed once per parameter per forward;
  - "prefix":  PEFT up to 0.17.x (huggingface/peft @ b28a09c4 / 9d3e0e57): `parametrize.cached()` only inside
               _LoraParameterProxy.forward, which caches nothing -> W + delta recomputed on every attribute read;
  - "factors": githubnemo/peft @ 04052437 (_LoraFactorsProxy, single adapter): baddbmm(W, B, A, alpha=scaling),
               no separate delta tensor (cached as in "fixed").
  The adapter dtype is fp32 by default (get_peft_model's autocast_adapter_dtype=True upcasts bf16 adapters);
  every case is also run with bf16 adapters (autocast_adapter_dtype=False). The base experts are bf16 and frozen;
  the input and the routing weights require grad (as inside a model).

Measured per case (bf16 on CPU, torch 1.13):
  (a) bytes saved for backward: torch.autograd.graph.saved_tensors_hooks, deduplicated by storage, parameters
      (base experts, lora_A / lora_B, including views of them) and 0-dim scalars reported apart, as measure.py;
  (b) heap bytes in use: a malloc/free interposer (C source below, compiled with gcc into a temp dir, the script
      re-executes itself with it in LD_PRELOAD) sums malloc_usable_size of every live block; peaks are read after
      the forward and after the backward (reset in between), and the largest rise while a ParamWrapper builds
      delta and registers W + delta is reported as delta_rise. Unlike a TorchDispatchMode, it does not hold Python
      references to tensors (which changed autograd's in-place gradient accumulation into out-of-place adds) and
      it sees kernel workspaces; it also sees small Python allocations (a few kB of noise).
  The number of times each wrapped parameter was evaluated (W + delta materialised) is counted in the proxy.
Every case is checked against the closed forms in `predict_saved` (exact, to the byte) and the output of the
LoRA module against the plain module run with merged weights (bitwise). Exit status 1 on any mismatch.

Run: /usr/bin/python3 tools/activations/lora_target_parameters.py [--json out.json] [--quick] [--no-peak]
"""
import argparse
import ctypes
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as P

torch.set_num_threads(1)
BF16 = torch.bfloat16


# ---------------------------------------------------------------------------------------------------------------
# transformers 5 fused experts
# ---------------------------------------------------------------------------------------------------------------
class _GroupedMM(torch.autograd.Function):
    """torch._grouped_mm(input (S, in) sorted by expert, weight (E, in, out), offs) with the saving rule of
    derivatives.yaml (`self: _grouped_mm_mat1_backward(grad, mat2, ...)`, `mat2: _grouped_mm_mat2_backward(grad,
    self, ...)`): autograd codegen saves mat2 only if self needs a gradient and self only if mat2 does."""

    @staticmethod
    def forward(ctx, x, w, offs):
        out = x.new_zeros(x.shape[0], w.shape[2])
        start = 0
        for i, end in enumerate(offs.tolist()):
            if end > start:
                out[start:end] = x[start:end] @ w[i]
            start = end
        need_x, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ctx.save_for_backward(x if need_w else None, w if need_x else None)
        ctx.offs = offs
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = gw = None
        if ctx.needs_input_grad[0]:
            gx = g.new_zeros(g.shape[0], w.shape[1])
        if ctx.needs_input_grad[1]:
            gw = g.new_zeros(w.shape[0], x.shape[1], g.shape[1])
        start = 0
        for i, end in enumerate(ctx.offs.tolist()):
            if end > start:
                if gx is not None:
                    gx[start:end] = g[start:end] @ w[i].t()
                if gw is not None:
                    gw[i] = x[start:end].t() @ g[start:end]
            start = end
        return gx, gw, None


def _grouped_linear(x, w, offs, bias=None, is_transposed=False):
    out = _GroupedMM.apply(x, w if is_transposed else w.transpose(-2, -1), offs)
    return out if bias is None else out + bias


def _batched_linear(x, w, bias=None, is_transposed=False):
    if is_transposed:
        out = torch.bmm(x.unsqueeze(1), w).squeeze(1)
    else:
        out = torch.bmm(w, x.unsqueeze(-1)).squeeze(-1)
    return out if bias is None else out + bias


class Experts(nn.Module):
    """layout "mixtral" (Mixtral / Qwen3-MoE / Qwen3-Next / Qwen3.5-MoE): gate_up_proj (E, 2f, h), down_proj (E, h, f),
    SiLU gate on the first half. layout "gpt_oss": gate_up_proj (E, h, 2f), down_proj (E, f, h), biases,
    interleaved gate/up with clamps, is_transposed=True."""

    def __init__(self, E, h, f, layout, impl, dtype):
        super().__init__()
        self.num_experts, self.layout, self.impl = E, layout, impl
        g = torch.Generator().manual_seed(1)
        if layout == "mixtral":
            self.is_transposed, self.has_bias = False, False
            self.gate_up_proj = nn.Parameter((torch.randn(E, 2 * f, h, generator=g) / math.sqrt(h)).to(dtype))
            self.down_proj = nn.Parameter((torch.randn(E, h, f, generator=g) / math.sqrt(f)).to(dtype))
        else:
            self.is_transposed, self.has_bias = True, True
            self.gate_up_proj = nn.Parameter((torch.randn(E, h, 2 * f, generator=g) / math.sqrt(h)).to(dtype))
            self.gate_up_proj_bias = nn.Parameter((torch.randn(E, 2 * f, generator=g) * 0.1).to(dtype))
            self.down_proj = nn.Parameter((torch.randn(E, f, h, generator=g) / math.sqrt(f)).to(dtype))
            self.down_proj_bias = nn.Parameter((torch.randn(E, h, generator=g) * 0.1).to(dtype))
            self.alpha, self.limit = 1.702, 7.0
        self.reads = {"gate_up_proj": 0, "down_proj": 0}  # attribute reads during forward (counted by the proxy)

    def _apply_gate(self, gate_up):
        if self.layout == "mixtral":  # _default_apply_gate
            gate, up = gate_up.chunk(2, dim=-1)
            return F.silu(gate) * up
        gate, up = gate_up[..., ::2], gate_up[..., 1::2]  # GptOssExperts._apply_gate
        gate = gate.clamp(min=None, max=self.limit)
        up = up.clamp(min=-self.limit, max=self.limit)
        glu = gate * torch.sigmoid(gate * self.alpha)
        return (up + 1) * glu

    def forward(self, hidden_states, top_k_index, top_k_weights):
        return getattr(self, "_" + self.impl)(hidden_states, top_k_index, top_k_weights)

    def _eager(self, hidden_states, top_k_index, top_k_weights):
        if self.layout == "gpt_oss":
            return self._eager_gpt_oss(hidden_states, top_k_index, top_k_weights)
        final_hidden_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = F.one_hot(top_k_index, num_classes=self.num_experts)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            expert_idx = expert_idx[0]
            if expert_idx == self.num_experts:
                continue
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[token_idx]
            gate, up = F.linear(current_state, self.gate_up_proj[expert_idx]).chunk(2, dim=-1)
            current_hidden_states = F.silu(gate) * up
            current_hidden_states = F.linear(current_hidden_states, self.down_proj[expert_idx])
            current_hidden_states = current_hidden_states * top_k_weights[token_idx, top_k_pos, None]
            final_hidden_states.index_add_(0, token_idx, current_hidden_states.to(final_hidden_states.dtype))
        return final_hidden_states

    def _eager_gpt_oss(self, hidden_states, router_indices, routing_weights):
        next_states = torch.zeros_like(hidden_states, dtype=hidden_states.dtype, device=hidden_states.device)
        with torch.no_grad():
            expert_mask = F.one_hot(router_indices, num_classes=self.num_experts)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            expert_idx = expert_idx[0]
            if expert_idx == self.num_experts:
                continue
            with torch.no_grad():
                top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[token_idx]
            gate_up = current_state @ self.gate_up_proj[expert_idx] + self.gate_up_proj_bias[expert_idx]
            gated_output = self._apply_gate(gate_up)
            out = gated_output @ self.down_proj[expert_idx] + self.down_proj_bias[expert_idx]
            weighted_output = out * routing_weights[token_idx, top_k_pos, None]
            next_states.index_add_(0, token_idx, weighted_output.to(hidden_states.dtype))
        return next_states

    def _grouped_mm(self, hidden_states, top_k_index, top_k_weights):
        num_top_k = top_k_index.size(-1)
        num_tokens = hidden_states.size(0)
        hidden_dim = hidden_states.size(-1)
        token_idx = torch.arange(num_tokens).unsqueeze(1).expand(-1, num_top_k).reshape(-1)
        sample_weights = top_k_weights.reshape(-1)
        expert_ids = top_k_index.reshape(-1)
        selected_hidden_states = hidden_states[token_idx]
        perm = torch.argsort(expert_ids)
        inv_perm = torch.argsort(perm)
        expert_ids_g = expert_ids[perm]
        sample_weights_g = sample_weights[perm]
        selected_hidden_states_g = selected_hidden_states[perm]
        selected_gate_up = self.gate_up_proj
        selected_down = self.down_proj
        selected_gate_up_bias = self.gate_up_proj_bias[expert_ids_g] if self.has_bias else None
        selected_down_bias = self.down_proj_bias[expert_ids_g] if self.has_bias else None
        histc_input = expert_ids_g.float()
        num_tokens_per_expert = torch.histc(histc_input, bins=self.num_experts, min=0, max=self.num_experts - 1)
        offsets = torch.cumsum(num_tokens_per_expert, dim=0, dtype=torch.int32)
        gate_up_out = _grouped_linear(selected_hidden_states_g, selected_gate_up, offsets, selected_gate_up_bias,
                                      self.is_transposed)
        gated_out = self._apply_gate(gate_up_out)
        out_per_sample_g = _grouped_linear(gated_out, selected_down, offsets, selected_down_bias, self.is_transposed)
        out_per_sample_g = out_per_sample_g * sample_weights_g.unsqueeze(-1)
        out_per_sample = out_per_sample_g[inv_perm]
        final_hidden_states = out_per_sample.view(num_tokens, num_top_k, hidden_dim).sum(dim=1)
        return final_hidden_states.to(hidden_states.dtype)

    def _batched_mm(self, hidden_states, top_k_index, top_k_weights):
        num_top_k = top_k_index.size(-1)
        num_tokens = hidden_states.size(0)
        hidden_dim = hidden_states.size(-1)
        token_idx = torch.arange(num_tokens).unsqueeze(1).expand(-1, num_top_k).reshape(-1)
        sample_weights = top_k_weights.reshape(-1)
        expert_ids = top_k_index.reshape(-1)
        valid_mask = expert_ids < self.num_experts
        expert_ids_clamped = expert_ids.clamp(0, self.num_experts - 1)
        selected_hidden_states = hidden_states[token_idx]
        selected_gate_up = self.gate_up_proj[expert_ids_clamped]
        selected_down = self.down_proj[expert_ids_clamped]
        selected_gate_up_bias = self.gate_up_proj_bias[expert_ids_clamped] if self.has_bias else None
        selected_down_bias = self.down_proj_bias[expert_ids_clamped] if self.has_bias else None
        gate_up_out = _batched_linear(selected_hidden_states, selected_gate_up, selected_gate_up_bias,
                                      self.is_transposed)
        gated_out = self._apply_gate(gate_up_out)
        out_per_sample = _batched_linear(gated_out, selected_down, selected_down_bias, self.is_transposed)
        out_per_sample = out_per_sample * sample_weights.unsqueeze(-1)
        out_per_sample = out_per_sample * valid_mask.unsqueeze(-1).to(out_per_sample.dtype)
        final_hidden_states = out_per_sample.view(num_tokens, num_top_k, hidden_dim).sum(dim=1)
        return final_hidden_states.to(hidden_states.dtype)


# ---------------------------------------------------------------------------------------------------------------
# PEFT ParamWrapper emulation
# ---------------------------------------------------------------------------------------------------------------
class LoraParameterProxy(nn.Module):
    """_LoraParameterProxy. prefix=True: PEFT <= 0.17.x, `with parametrize.cached()` inside forward (no effect)."""

    def __init__(self, delta_weight, counter, prefix):
        super().__init__()
        self.delta_weight, self.counter, self.prefix = delta_weight, counter, prefix

    def forward(self, W):
        self.counter[0] += 1
        if self.prefix:
            with P.cached():
                return W + self.delta_weight
        return W + self.delta_weight


class LoraFactorsProxy(nn.Module):
    """githubnemo/peft _LoraFactorsProxy: baddbmm(W, lhs, rhs, alpha=scaling) (autocast disabled there)."""

    def __init__(self, lhs, rhs, scaling, counter):
        super().__init__()
        self.lhs, self.rhs, self.scaling, self.counter = lhs, rhs, scaling, counter

    def forward(self, W):
        self.counter[0] += 1
        return torch.baddbmm(W, self.lhs, self.rhs, alpha=self.scaling)


class ParamWrapper(nn.Module):
    def __init__(self, base_layer, parameter_name, r, lora_alpha, variant, adapter_dtype):
        super().__init__()
        self.base_layer, self.parameter_name, self.variant = base_layer, parameter_name, variant
        param = self.get_param()
        # _get_in_out_features: (experts, in, out) = shape; update_layer swaps for the (experts, out, in) layout
        self.num_experts, self.in_features, self.out_features = param.shape
        self._did_swap_in_out_features = not getattr(self.get_base_layer(), "is_transposed", False)
        if self._did_swap_in_out_features:
            self.in_features, self.out_features = self.out_features, self.in_features
        self.lora_A = nn.Linear(self.in_features, r * self.num_experts, bias=False)
        self.lora_B = nn.Linear(r * self.num_experts, self.out_features, bias=False)
        self.scaling = lora_alpha / r
        g = torch.Generator().manual_seed(2)
        with torch.no_grad():  # non-zero B so that the delta is visible in the outputs
            self.lora_A.weight.copy_(torch.randn(self.lora_A.weight.shape, generator=g) / math.sqrt(self.in_features))
            self.lora_B.weight.copy_(torch.randn(self.lora_B.weight.shape, generator=g) * 0.02)
        # _move_adapter_to_device_of_base_layer casts to param.dtype, then autocast_adapter_dtype upcasts bf16->fp32
        self.lora_A.to(adapter_dtype)
        self.lora_B.to(adapter_dtype)
        self.counter = [0]

    def get_base_layer(self):
        m = self.base_layer
        while isinstance(m, ParamWrapper):
            m = m.base_layer
        return m

    def get_param(self):
        return getattr(self.get_base_layer(), self.parameter_name)

    def get_delta_weight(self):
        weight_A = self.lora_A.weight
        weight_B = self.lora_B.weight
        weight_A = weight_A.reshape(self.num_experts, -1, weight_A.shape[-1])
        weight_B = weight_B.reshape(weight_B.shape[0], -1, self.num_experts)
        if not self._did_swap_in_out_features:
            delta_weight = torch.einsum("o r e, e r i -> e i o", weight_B, weight_A) * self.scaling
        else:
            delta_weight = torch.einsum("o r e, e r i -> e o i", weight_B, weight_A) * self.scaling
        param = self.get_param()
        return delta_weight.to(param.device, param.dtype)

    def get_delta_factors(self):
        weight_A = self.lora_A.weight.reshape(self.num_experts, -1, self.lora_A.weight.shape[-1])
        weight_B = self.lora_B.weight
        weight_B = weight_B.reshape(weight_B.shape[0], -1, self.num_experts).permute(2, 0, 1)
        if not self._did_swap_in_out_features:
            lhs, rhs = weight_A.transpose(-2, -1), weight_B.transpose(-2, -1)
        else:
            lhs, rhs = weight_B, weight_A
        param = self.get_param()
        return lhs.to(param.dtype), rhs.to(param.dtype), self.scaling

    @contextmanager
    def _activate_lora(self):
        tracker = Tracker.active
        if tracker is not None:
            tracker.enter_delta()
        if self.variant == "factors":
            proxy = LoraFactorsProxy(*self.get_delta_factors(), self.counter)
        else:
            proxy = LoraParameterProxy(self.get_delta_weight(), self.counter, self.variant == "prefix")
        base_layer = self.get_base_layer()
        requires_grad_before = self.get_param().requires_grad
        P.register_parametrization(base_layer, self.parameter_name, proxy)
        base_layer.parametrizations[self.parameter_name].original.requires_grad_(requires_grad_before)
        if tracker is not None:
            tracker.leave_delta()
        try:
            if self.variant == "prefix":
                yield
            else:
                with P.cached():
                    yield
        finally:
            param_list = base_layer.parametrizations[self.parameter_name]
            if len(param_list) == 1:
                P.remove_parametrizations(base_layer, self.parameter_name, leave_parametrized=False)
            else:
                del param_list[len(param_list) - 1]

    def forward(self, x, *args, **kwargs):
        with self._activate_lora():
            return self.base_layer(x, *args, **kwargs)


# ---------------------------------------------------------------------------------------------------------------
# measurement
# ---------------------------------------------------------------------------------------------------------------
MALLTRACK_C = r"""
#define _GNU_SOURCE
#include <stddef.h>
#include <malloc.h>
#include <errno.h>
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static long cur = 0, peak = 0;
static inline void add(long n) {
    long c = __atomic_add_fetch(&cur, n, __ATOMIC_RELAXED);
    long p = __atomic_load_n(&peak, __ATOMIC_RELAXED);
    while (c > p && !__atomic_compare_exchange_n(&peak, &p, c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}
void *malloc(size_t n) { void *p = __libc_malloc(n); if (p) add((long)malloc_usable_size(p)); return p; }
void free(void *p) { if (p) { add(-(long)malloc_usable_size(p)); __libc_free(p); } }
void *calloc(size_t a, size_t b) { void *p = __libc_calloc(a, b); if (p) add((long)malloc_usable_size(p)); return p; }
void *realloc(void *q, size_t n) {
    long old = q ? (long)malloc_usable_size(q) : 0;
    void *p = __libc_realloc(q, n);
    if (p) add((long)malloc_usable_size(p) - old); else if (q && n == 0) add(-old);
    return p;
}
void *memalign(size_t a, size_t n) { void *p = __libc_memalign(a, n); if (p) add((long)malloc_usable_size(p)); return p; }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void **r, size_t a, size_t n) { void *p = memalign(a, n); if (!p) return ENOMEM; *r = p; return 0; }
long mt_cur(void) { return __atomic_load_n(&cur, __ATOMIC_RELAXED); }
long mt_peak(void) { return __atomic_load_n(&peak, __ATOMIC_RELAXED); }
void mt_reset_peak(void) { __atomic_store_n(&peak, __atomic_load_n(&cur, __ATOMIC_RELAXED), __ATOMIC_RELAXED); }
void mt_set_peak(long p) { __atomic_store_n(&peak, p, __ATOMIC_RELAXED); }
"""


def malltrack():
    """The malloc interposer's ctypes handle when it is preloaded in this process, else None."""
    lib = ctypes.CDLL(None)
    if not hasattr(lib, "mt_cur"):
        return None
    for name in ("mt_cur", "mt_peak"):
        getattr(lib, name).restype = ctypes.c_long
    lib.mt_set_peak.argtypes = [ctypes.c_long]
    return lib


def reexec_with_malltrack():
    """Compile the interposer (gcc) and re-run this script with it in LD_PRELOAD; on failure carry on without."""
    if os.environ.get("LORA_TP_MALLTRACK"):
        return
    build = os.path.join(tempfile.gettempdir(), f"malltrack-{os.getuid()}")
    os.makedirs(build, exist_ok=True)
    src, so = os.path.join(build, "malltrack.c"), os.path.join(build, "malltrack.so")
    with open(src, "w") as fh:
        fh.write(MALLTRACK_C)
    try:
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", so, src], check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"no malloc tracker ({e}): peaks not measured", file=sys.stderr)
        os.environ["LORA_TP_MALLTRACK"] = "none"
        return
    env = dict(os.environ, LORA_TP_MALLTRACK=so, LD_PRELOAD=":".join(filter(None, [so, os.environ.get("LD_PRELOAD")])))
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


class Tracker:
    """Heap bytes in use (every malloc / free of the process, malloc_usable_size), current and peak."""
    active = None

    def __init__(self, lib):
        self.lib, self.delta_rise, self.stack = lib, 0, []

    def cur(self):
        return self.lib.mt_cur()

    def peak(self):
        return self.lib.mt_peak()

    def reset(self):
        self.lib.mt_reset_peak()

    def enter_delta(self):  # a ParamWrapper starts building delta and registering W + delta
        self.stack.append((self.peak(), self.cur()))
        self.reset()

    def leave_delta(self):
        outer_peak, entry = self.stack.pop()
        p = self.peak()
        self.delta_rise = max(self.delta_rise, p - entry)
        self.lib.mt_set_peak(max(outer_peak, p))


def storage_ptr(t):
    return t.storage().data_ptr()


class SavedRecorder:
    def __init__(self, param_ptrs):
        self.param_ptrs = param_ptrs
        self.seen = {}
        self.keep = []  # keep packed tensors alive so that a freed storage's address cannot be reused and merged

    def pack(self, t):
        ptr = storage_ptr(t)
        kind = "param" if ptr in self.param_ptrs else ("scalar" if t.dim() == 0 else "act")
        self.seen.setdefault(ptr, (t.storage().nbytes(), kind))
        self.keep.append(t)
        return t

    def totals(self):
        out = {"act": 0, "param": 0, "scalar": 0}
        for nbytes, kind in self.seen.values():
            out[kind] += nbytes
        return out


def build(pt, variant, targets, impl, layout, adapter_dtype):
    experts = Experts(pt["E"], pt["h"], pt["f"], layout, impl, BF16)
    for p in experts.parameters():
        p.requires_grad_(False)
    module = experts
    if variant != "plain":
        for name in targets:  # PEFT wraps in target order: the last one is the outermost
            module = ParamWrapper(module, name, pt["r"], 2 * pt["r"], variant, adapter_dtype)
            for p in (module.lora_A.weight, module.lora_B.weight):
                p.requires_grad_(True)
    return experts, module


def inputs(pt):
    T, K, H, h = pt["T"], pt["K"], pt["H"], pt["h"]
    g = torch.Generator().manual_seed(3)
    x = torch.randn(T, h, generator=g).to(BF16).requires_grad_(True)
    # every token picks K distinct experts among the first H; the first H tokens make sure all H are hit
    idx = torch.stack([torch.randperm(H, generator=g)[:K] for _ in range(T)])
    for e in range(H):
        row = idx[e % T]
        if e not in row:
            row[0] = e
    assert len(torch.unique(idx)) == H
    w = torch.softmax(torch.randn(T, K, generator=g), -1).to(BF16).requires_grad_(True)  # router output, has grad
    gout = (torch.randn(T, h, generator=g) * 0.1).to(BF16)
    return x, idx, w, gout


def run(pt, variant, targets, impl, layout, adapter_dtype, lib):
    experts, module = build(pt, variant, targets, impl, layout, adapter_dtype)
    x, idx, w, gout = inputs(pt)
    params = list(module.parameters())
    # (a) saved for backward
    rec = SavedRecorder({storage_ptr(p) for p in params})
    with torch.autograd.graph.saved_tensors_hooks(rec.pack, lambda t: t):
        out = module(x, idx, w)
    saved = rec.totals()
    wrappers = [m for m in module.modules() if isinstance(m, ParamWrapper)]
    reads = {m.parameter_name: m.counter[0] for m in wrappers}
    out.backward(gout)
    ref_out = out.detach()
    del out, rec
    # same output as the plain experts with merged weights W + delta
    same = True
    if variant != "plain":
        merged, _ = build(pt, "plain", [], impl, layout, adapter_dtype)
        with torch.no_grad():
            for m in wrappers:
                name = m.parameter_name
                if variant == "factors":
                    lhs, rhs, s = m.get_delta_factors()
                    wm = torch.baddbmm(getattr(experts, name), lhs, rhs, alpha=s)
                else:
                    wm = getattr(experts, name) + m.get_delta_weight()
                getattr(merged, name).copy_(wm)
            same = torch.equal(merged(x.detach(), idx, w.detach()), ref_out)
        del merged
    res = dict(saved=saved, reads=reads, same=same)
    # (b) heap bytes
    if lib is not None:
        for p in params:
            p.grad = None
        x.grad = w.grad = None
        del ref_out
        gc.collect()
        gc.disable()
        tr = Tracker.active = Tracker(lib)
        base = tr.cur()
        tr.reset()
        out = module(x, idx, w)
        res["after_fwd"], res["peak_fwd"] = tr.cur() - base, tr.peak() - base
        tr.reset()
        out.backward(gout)
        del out
        res["peak_bwd"], res["end"] = tr.peak() - base, tr.cur() - base
        res["delta_rise"] = tr.delta_rise
        Tracker.active = None
        gc.enable()
    return res


# ---------------------------------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------------------------------
def dims(pt, name):
    """(in, out) of the per-expert linear map held by the 3-D parameter."""
    return (pt["h"], 2 * pt["f"]) if name == "gate_up_proj" else (pt["f"], pt["h"])


def predict_saved(pt, variant, targets, impl, layout, adapter_bytes, b=2):
    """Activation bytes saved for backward by the experts module (parameters and 0-dim scalars excluded).
    S = T*K (token, expert) pairs, H = experts hit, b = bytes of the base dtype, int64 indices 8 B."""
    T, K, E, H, h, f = pt["T"], pt["K"], pt["E"], pt["H"], pt["h"], pt["f"]
    S = T * K
    g = 3 * f if layout == "mixtral" else 6 * f  # gate/act intermediates per pair (SiLU*up | clamp, sigmoid, (up+1)*glu)
    if impl == "eager":  # torch.where -> (n_e, 2) int64 per hit expert; index_add_ keeps its source (h)
        base = S * (16 + b * (g + 2 * h + 1))
    elif impl == "grouped_mm":  # token_idx, perm, inv_perm int64; routing weights (1)
        base = S * (24 + b * (g + h + 1))
    else:  # batched_mm: token_idx int64, bf16 valid mask; one weight copy per pair for both projections
        base = S * (10 + b * (g + h + 1 + 3 * f * h))
    if variant == "plain":
        return base
    extra = 0
    for name in targets:
        i, o = dims(pt, name)
        extra += S * i * b  # the grouped mm / mm / bmm now also keeps its activation input
        if impl != "batched_mm":  # batched_mm keeps the gathered copy in both cases; W + delta is transient there
            copies = H if (variant == "prefix" and impl == "eager") else 1
            extra += copies * E * i * o * b  # W + delta: a new tensor, not a parameter
        if variant == "factors" and adapter_bytes != b:
            extra += pt["r"] * E * (i + o) * b  # bf16 casts of lora_B / lora_A kept by baddbmm
    if impl == "batched_mm" and targets:
        extra += 8 * S  # IndexBackward of W'[expert_ids_clamped] keeps the (shared) int64 expert ids
    return base + extra


# ---------------------------------------------------------------------------------------------------------------
POINTS = [
    dict(T=64, K=2, E=4, H=4, h=64, f=96, r=4),
    dict(T=256, K=2, E=8, H=8, h=256, f=128, r=8),
    dict(T=512, K=4, E=16, H=16, h=256, f=64, r=4),
    dict(T=256, K=2, E=16, H=6, h=256, f=128, r=16),  # only 6 of 16 experts hit
    dict(T=1024, K=8, E=32, H=32, h=128, f=64, r=2),
    dict(T=128, K=1, E=8, H=3, h=512, f=256, r=8),  # top-1, 3 of 8 experts hit
]
VARIANTS = ["plain", "fixed", "prefix", "factors"]
TARGET_SETS = [("gate_up_proj",), ("down_proj",), ("gate_up_proj", "down_proj")]
IMPLS = [("mixtral", "grouped_mm"), ("mixtral", "eager"), ("mixtral", "batched_mm"), ("gpt_oss", "grouped_mm"),
         ("gpt_oss", "eager")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="write every case here")
    ap.add_argument("--quick", action="store_true", help="first two points only")
    ap.add_argument("--no-peak", action="store_true", help="skip the malloc tracker (saved bytes only)")
    args = ap.parse_args()
    if not args.no_peak:
        reexec_with_malltrack()
    lib = None if args.no_peak else malltrack()
    points = POINTS[:2] if args.quick else POINTS
    rows, failures = [], 0
    for layout, impl in IMPLS:
        for pt in points:
            S = pt["T"] * pt["K"]
            if impl == "batched_mm" and S * 3 * pt["f"] * pt["h"] * 2 > 64 << 20:
                continue  # one weight copy per (token, expert) pair: skip the big points
            for adapter_dtype in (torch.float32, BF16):
                for variant in VARIANTS:
                    if variant == "plain" and adapter_dtype != torch.float32:
                        continue
                    for targets in ([()] if variant == "plain" else TARGET_SETS):
                        res = run(pt, variant, list(targets), impl, layout, adapter_dtype, lib)
                        ab = 4 if adapter_dtype == torch.float32 else 2
                        pred = predict_saved(pt, variant, targets, impl, layout, ab)
                        ok = res["same"] and pred == res["saved"]["act"]
                        failures += not ok
                        row = dict(layout=layout, impl=impl, variant=variant, adapter_bytes=ab,
                                   targets="+".join(targets) or "-", **pt, **res, predicted_act=pred, ok=ok)
                        rows.append(row)
                        peak = (f" | heap after_fwd {res['after_fwd']} peak_fwd {res['peak_fwd']} "
                                f"peak_bwd {res['peak_bwd']} delta_rise {res['delta_rise']}") if lib else ""
                        print(f"{layout:7s} {impl:10s} {variant:7s} a{ab} {row['targets']:22s} "
                              f"T={pt['T']} K={pt['K']} E={pt['E']} H={pt['H']} h={pt['h']} f={pt['f']} "
                              f"r={pt['r']}: saved act {res['saved']['act']} (closed form {pred}) param "
                              f"{res['saved']['param']} scalar {res['saved']['scalar']} reads {res['reads']}{peak} "
                              f"{'ok' if ok else 'MISMATCH' + ('' if res['same'] else ' (output)')}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    print(f"{len(rows)} cases, {failures} mismatches")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
