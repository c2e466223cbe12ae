#!/usr/bin/python3
"""Ground truth: bytes that one Mamba-1 mixer of AI21's Jamba saves for backward, as Hugging Face transformers runs it in
training.

Mirrors `JambaMambaMixer`, src/transformers/models/jamba/modeling_jamba.py @ 97bb61d0788015770945004a7db6285db68081c0,
from its input hidden_states (b, s, hidden) (the output of the layer's input_layernorm) to the `out_proj` output, in
training without a cache (JambaModel passes past_key_values=None when none is given, `_update_mamba_mask` turns an
all-ones mask into None, so attention_mask is None here):

* `fused` (`cuda_kernels_forward`, config.use_mamba_kernels=True with mamba_ssm and causal-conv1d installed):
  projected_states = in_proj(x).transpose(1, 2) (b, 2I, s), a channel-last view; hidden_states, gate =
  projected_states.chunk(2, dim=1) (views, strides (2Is, 1, 2I)); causal_conv1d_fn(hidden_states, conv1d.weight.view(I,
  K), conv1d.bias, activation="silu") on that view; x_proj(hidden_states.transpose(1, 2)); split into time_step / B / C;
  dt_layernorm / b_layernorm / c_layernorm (JambaRMSNorm); dt_proj applied with its bias swapped for zeros
  (`self.dt_proj.bias.data` trick, the real bias goes to the kernel as `time_proj_bias.float()`, detached since it is
  `.data`); A = -exp(A_log.float()); selective_scan_fn(hidden_states, discrete_time_step (dt_proj output transposed),
  A, B.transpose(1, 2), C.transpose(1, 2), self.D.float(), gate, time_proj_bias, delta_softplus=True,
  return_last_state=True); out_proj(scan_outputs.transpose(1, 2)). mamba_inner_fn is not used (inner layernorms).
* `torch` (`slow_forward`, the fallback): in_proj, nn.Conv1d + silu, x_proj, the three norms, dt_proj (with its bias),
  softplus, discrete_A = exp(A * dt), discrete_B = dt * B.float(), deltaB_u = discrete_B * u.float(), the per-token
  Python loop (ssm_state = dA_i * ssm_state + dBu_i; matmul(ssm_state.to(dtype), C_i)), stack, + u * D, * silu(gate),
  out_proj; op for op.

The CUDA kernels cannot run here, so they are autograd.Functions that save exactly what the real ones save, with values
from a torch reference (so backward runs):
* state-spaces/mamba mamba_ssm/ops/selective_scan_interface.py @ 0e8d22c5515bb92003edb8d0e39216a816e4ad09,
  SelectiveScanFn.forward: `.contiguous()` on u, delta, B, C, z when stride(-1) != 1 (Jamba's u is the channel-last
  conv output, delta the transposed dt_proj output, B / C the transposed norm outputs, z the gate view: all five are
  copied), D.contiguous(), B / C rearranged to (b, 1, N, s) views; n_chunks = ceil(s / 2048); x = torch.zeros(b, dim,
  n_chunks, 2 * dstate, fp32) (chunk-boundary states, (dA product, state) pairs); then
  ctx.save_for_backward(u, delta, A, B, C, D, z, delta_bias, x, out, prev_state) because z is given; returns out_z.
  csrc/selective_scan/selective_scan.cpp (read @ 23f42a16df513f8d72eb1a54307ed42bfa714bac, the version taking x as
  `prev_state`): out = torch::empty_like(delta) (so bf16, contiguous), out_z = torch::empty_like(z), x fp32 (A's type);
  the checks delta / z / variable B / variable C == u's dtype, A / D / delta_bias fp32, dstate <= 256 (mirrored here).
  The chunk is 2048 tokens in the kernel and here (SCAN_CHUNK); the long points (s > 2048) run the real chunking.
* Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py @ 17f4f2fe12abc9d7fbbb180624e415ff2c1581d2 and
  csrc/causal_conv1d.cpp @ dedc05ff2c440225ac30b3fd4f150ff42c852243: CausalConv1dFn saves (x, weight, bias, seq_idx,
  initial_states); x is copied only if neither its channel nor its time stride is 1 (Jamba's view has channel stride 1:
  no copy, so the whole (b, s, 2I) in_proj output stays alive); out = torch::empty_like(x), which for this non-dense
  view is a dense channel-last (b, I, s) tensor (strides (Is, 1, I), the input's layout permutation); channel-last
  needs I % 8 == 0 and K in 2..4 (checked here). mamba2.py's CausalConv1dFn is reused.

Conventions follow measure.py / gated_deltanet.py / mamba2.py: torch.autograd.graph.saved_tensors_hooks, every saved
tensor's storage counted once by its full nbytes (a saved view costs its whole storage), parameters (and views of them),
16-bit copies of weights made by autocast (`savedParamCastBytes`, also the conv1d weight's 3-D copy) and 0-dim scalars
reported apart. The fp32 copies D.float(), time_proj_bias.float() and A_log.float() of a bf16 model are activations
(new storages that scale with I, like mamba2.py's A). Two torch-1.13 artefacts are replaced by PyTorch >= 2 behaviour:
mean(-1) (gated_deltanet.mean_lastdim) and the matmul folding of a linear whose weight requires grad (`Linear` below,
pytorch/pytorch#95261: the transposed 3-D input of x_proj / out_proj is folded into a contiguous 2-D copy that mm keeps,
where 1.13 ran bmm on a view; with b == 1 the fold is a view, so no copy).

dtypes: `bf16` is the bf16 model without autocast (the main case). `amp_bf16` is fp32 weights under bf16 autocast:
CUDA's autocast policy is emulated on CPU (torch 1.13's CPU autocast casts linear / conv1d / matmul to bf16 like CUDA,
but leaves softplus in bf16 where CUDA runs it in fp32: measure.cuda_fp32 casts it up). Under amp the norms return
fp32 (fp32 weight * bf16 x_hat), so B and C reach selective_scan_fn in fp32 while u / delta / z are bf16: the kernel's
TORCH_CHECK(B.scalar_type() == input_type) fails, so the fused path cannot train Jamba with fp32 weights under autocast
(recorded in the JSON's `unsupported`, no bytes). The torch path runs and is measured.

Parameters are either all frozen (LoRA-style: only the mixer input requires grad) or all trainable; conv bias on,
in_proj / out_proj without bias (JambaConfig's mamba_conv_bias=True, mamba_proj_bias=False), no cache, no padding
mask, no gradient checkpointing.

Run with Debian's torch (1.13, CPU): /usr/bin/python3 tools/activations/mamba1.py [--quick] [--tensors] [--out F]
Prints one JSON line per case with the measured bytes and formula_bytes(), exits 1 if any case differs.
Last full run: 40/40 cases exact, 8 amp_bf16 fused cases unsupported (~25 s on 2 cores).
Regenerate the fixture: /usr/bin/python3 tools/activations/mamba1.py --out test/fixtures/activations/mamba1.json
"""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gated_deltanet as gdn  # noqa: E402  (same folder: PyTorch >= 2 mean, prepare / record / emit_case / write_cases)
import mamba2 as m2  # noqa: E402  (same folder: CausalConv1dFn emulation)
from measure import cuda_fp32  # noqa: E402  (CUDA autocast's fp32 ops, emulated on CPU)

mean_lastdim = gdn.mean_lastdim

SCAN_CHUNK = 2048  # selective_scan_fwd: n_chunks = (seqlen + 2048 - 1) / 2048

HF_SOURCES = {
    "jamba": "huggingface/transformers src/transformers/models/jamba/modeling_jamba.py@97bb61d0788015770945004a7db6285db68081c0",
    "selective_scan_interface": "state-spaces/mamba mamba_ssm/ops/selective_scan_interface.py@0e8d22c5515bb92003edb8d0e39216a816e4ad09",
    "selective_scan_cpp": "state-spaces/mamba csrc/selective_scan/selective_scan.cpp@23f42a16df513f8d72eb1a54307ed42bfa714bac",
    "causal_conv1d": "Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py@17f4f2fe12abc9d7fbbb180624e415ff2c1581d2",
    "causal_conv1d_cpp": "Dao-AILab/causal-conv1d csrc/causal_conv1d.cpp@dedc05ff2c440225ac30b3fd4f150ff42c852243",
}


# ----------------------------------------------------------------------------------------
# kernel emulations
# ----------------------------------------------------------------------------------------
def causal_conv1d_fn(x, weight, bias=None, activation=None):
    """causal_conv1d_fn with the layout checks of causal_conv1d_fwd; mamba2.py's CausalConv1dFn does the rest
    (copy only if neither stride is 1, out = empty_like(x), saves x, weight, bias)."""
    assert activation in ("silu", "swish")
    dim, width = weight.shape
    assert 2 <= width <= 4, "causal_conv1d only supports width between 2 and 4"
    if x.stride(1) == 1 and x.stride(2) > 1:  # channel-last kernel
        assert dim % 8 == 0 and x.stride(2) % 8 == 0 and x.stride(0) % 8 == 0, "channel-last layout constraints"
    return m2.CausalConv1dFn.apply(x, weight, bias)


def _selective_scan_ref(u, delta, A, B, C, D, z, delta_bias, delta_softplus, chunk):
    """selective_scan_ref (variable B / C, one group), fp32; also the per-chunk (dA product, state) pairs of x."""
    u, dl = u.float(), delta.float()
    if delta_bias is not None:
        dl = dl + delta_bias.float()[..., None]
    if delta_softplus:
        dl = F.softplus(dl)
    if B.dim() == 4:
        B, C = B[:, 0], C[:, 0]
    Af, Bf, Cf = A.float(), B.float(), C.float()  # B, C: (b, N, s)
    deltaA = torch.exp(dl[..., None] * Af[None, :, None, :])  # (b, I, s, N)
    deltaB_u = dl[..., None] * Bf.transpose(1, 2)[:, None] * u[..., None]
    state = u.new_zeros(u.shape[0], u.shape[1], A.shape[1])
    ys, states = [], []
    L = u.shape[-1]
    for i in range(L):
        state = deltaA[:, :, i] * state + deltaB_u[:, :, i]
        ys.append((state * Cf[:, None, :, i]).sum(-1))
        if (i + 1) % chunk == 0 or i == L - 1:
            states.append(state)
    out = torch.stack(ys, dim=-1)
    if D is not None:
        out = out + u * D.float()[:, None]
    out_z = out * F.silu(z.float()) if z is not None else None
    dA_prod = [torch.exp(Af[None] * dl[..., c * chunk:(c + 1) * chunk].sum(-1)[..., None]) for c in range(len(states))]
    return out, out_z, states, dA_prod


def _check_selective_scan_fwd(u, delta, A, B, C, D, z, delta_bias):
    """The dtype / shape TORCH_CHECKs of selective_scan_fwd (selective_scan.cpp)."""
    it, wt = u.dtype, A.dtype
    checks = [
        (it in (torch.float32, torch.float16, torch.bfloat16), "input_type is fp32 / fp16 / bf16"),
        (wt in (torch.float32, torch.complex64), "weight_type == Float || weight_type == ComplexFloat"),
        (delta.dtype == it, "delta.scalar_type() == input_type"),
        (B.dtype == it, "B.scalar_type() == (!is_variable_B ? weight_type : input_type)"),
        (C.dtype == it, "C.scalar_type() == (!is_variable_C ? weight_type : input_type)"),
        (A.shape[1] <= 256, "selective_scan only supports state dimension <= 256"),
        (D is None or D.dtype == torch.float32, "D.scalar_type() == at::ScalarType::Float"),
        (delta_bias is None or delta_bias.dtype == torch.float32, "delta_bias.scalar_type() == at::ScalarType::Float"),
        (z is None or z.dtype == it, "z.scalar_type() == input_type"),
    ]
    for ok, msg in checks:
        if not ok:
            raise RuntimeError(f"selective_scan_fwd: Expected {msg} to be true (u {u.dtype}, delta {delta.dtype}, "
                               f"A {A.dtype}, B {B.dtype}, C {C.dtype}, D {None if D is None else D.dtype}, "
                               f"z {None if z is None else z.dtype}, "
                               f"delta_bias {None if delta_bias is None else delta_bias.dtype})")


class SelectiveScanFn(torch.autograd.Function):
    """mamba_ssm.ops.selective_scan_interface.SelectiveScanFn (variable B / C, no prev_state), saving what it saves."""

    @staticmethod
    def forward(ctx, u, delta, A, B, C, D=None, z=None, delta_bias=None, delta_softplus=False,
                return_last_state=False, prev_state=None):
        assert prev_state is None
        ctx.in_dtypes = [None if t is None else t.dtype for t in (u, delta, A, B, C, D, z, delta_bias)]
        if u.stride(-1) != 1:
            u = u.contiguous()
        if delta.stride(-1) != 1:
            delta = delta.contiguous()
        if D is not None:
            D = D.contiguous()
        if B.stride(-1) != 1:
            B = B.contiguous()
        if C.stride(-1) != 1:
            C = C.contiguous()
        if z is not None and z.stride(-1) != 1:
            z = z.contiguous()
        if B.dim() == 3:
            B = B.unsqueeze(1)  # rearrange(B, "b dstate l -> b 1 dstate l")
            ctx.squeeze_B = True
        if C.dim() == 3:
            C = C.unsqueeze(1)
            ctx.squeeze_C = True
        n_chunks = int((u.shape[-1] + SCAN_CHUNK - 1) / SCAN_CHUNK)
        x = torch.zeros((u.shape[0], u.shape[1], n_chunks, int(A.shape[1] * 2)), dtype=torch.float32)
        x[:, :, 0, 0::2] = 1
        # selective_scan_cuda.fwd(u, delta, A, B, C, D, z, delta_bias, delta_softplus, x)
        _check_selective_scan_fwd(u, delta, A, B, C, D, z, delta_bias)
        with torch.no_grad(), torch.autocast("cpu", enabled=False):
            ref_out, ref_out_z, states, dA_prod = _selective_scan_ref(u, delta, A, B, C, D, z, delta_bias,
                                                                      delta_softplus, SCAN_CHUNK)
            for c in range(n_chunks):
                x[:, :, c, 0::2] = dA_prod[c]
                x[:, :, c, 1::2] = states[c]
        out = torch.empty_like(delta)
        out.copy_(ref_out)
        ctx.delta_softplus = delta_softplus
        ctx.has_z = z is not None
        last_state = x[:, :, -1, 1::2]  # (batch, dim, dstate)
        ctx.mark_non_differentiable(last_state)
        det = [None if t is None else t.detach() for t in (u, delta, A, B, C, D, z, delta_bias)]  # same storages
        if not ctx.has_z:
            ctx.save_for_backward(*det[:6], det[7], x, None)
            return out if not return_last_state else (out, last_state)
        out_z = torch.empty_like(z)
        out_z.copy_(ref_out_z)
        ctx.save_for_backward(*det, x, out, None)
        return out_z if not return_last_state else (out_z, last_state)

    @staticmethod
    def backward(ctx, dout, *args):
        saved = ctx.saved_tensors
        if ctx.has_z:
            u, delta, A, B, C, D, z, delta_bias = saved[:8]
        else:
            (u, delta, A, B, C, D, delta_bias), z = saved[:7], None
        if getattr(ctx, "squeeze_B", False):
            B = B.squeeze(1)
        if getattr(ctx, "squeeze_C", False):
            C = C.squeeze(1)
        ins = [u, delta, A, B, C, D, z, delta_bias]
        with torch.enable_grad(), torch.autocast("cpu", enabled=False):
            leaves = [None if t is None else t.detach().requires_grad_(ctx.needs_input_grad[i])
                      for i, t in enumerate(ins)]
            out, out_z, _, _ = _selective_scan_ref(*leaves, ctx.delta_softplus, SCAN_CHUNK)
            y = out_z if ctx.has_z else out
            want = [l for l in leaves if l is not None and l.requires_grad]
            gr = iter(torch.autograd.grad(y, want, dout.float()))
        grads = [None] * 11
        for i, l in enumerate(leaves):
            if l is not None and l.requires_grad:
                grads[i] = next(gr).to(ctx.in_dtypes[i])
        return tuple(grads)


def selective_scan_fn(u, delta, A, B, C, D=None, z=None, delta_bias=None, delta_softplus=False,
                      return_last_state=False, prev_state=None):
    return SelectiveScanFn.apply(u, delta, A, B, C, D, z, delta_bias, delta_softplus, return_last_state, prev_state)


# ----------------------------------------------------------------------------------------
# the mixer (modeling_jamba.py)
# ----------------------------------------------------------------------------------------
class Linear(nn.Linear):
    """nn.Linear with the matmul folding of PyTorch >= 2 (aten/src/ATen/native/LinearAlgebra.cpp `should_fold`: a >= 3-D
    input times a weight that requires grad is always folded to 2-D, `reshape` copying a non-viewable input, and mm
    keeps that copy). torch 1.13 instead runs a transposed 3-D input through bmm on a view (no copy). Only trainable
    weights differ: frozen ones take the same path in both (nothing of the input is saved). Under autocast the input is
    cast first, as autocast's linear kernel does before matmul."""

    def forward(self, x):
        if x.dim() >= 3 and self.weight.requires_grad:
            if torch.is_autocast_cpu_enabled() and x.is_floating_point():
                x = x.to(torch.get_autocast_cpu_dtype())
            y = F.linear(x.reshape(-1, x.shape[-1]), self.weight, self.bias)
            return y.view(*x.shape[:-1], y.shape[-1])
        return F.linear(x, self.weight, self.bias)


class JambaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = mean_lastdim(cuda_fp32(hidden_states).pow(2))
        hidden_states = hidden_states * torch.rsqrt(cuda_fp32(variance + self.variance_epsilon))
        return self.weight * hidden_states.to(input_dtype)


class JambaMambaMixer(nn.Module):
    """path: 'fused' (cuda_kernels_forward with the emulated kernels) | 'torch' (slow_forward)."""

    def __init__(self, pt, path="fused", eps=1e-6):
        super().__init__()
        self.path = path
        self.hidden_size = pt["hidden"]
        self.ssm_state_size = pt["N"]
        self.conv_kernel_size = pt["K"]
        self.intermediate_size = pt["I"]
        self.time_step_rank = pt["R"]
        self.conv1d = nn.Conv1d(self.intermediate_size, self.intermediate_size, bias=True,
                                kernel_size=self.conv_kernel_size, groups=self.intermediate_size,
                                padding=self.conv_kernel_size - 1)
        self.activation = "silu"
        self.act = nn.SiLU()
        self.in_proj = Linear(self.hidden_size, self.intermediate_size * 2, bias=False)
        self.x_proj = Linear(self.intermediate_size, self.time_step_rank + self.ssm_state_size * 2, bias=False)
        self.dt_proj = Linear(self.time_step_rank, self.intermediate_size, bias=True)
        self.A_log = nn.Parameter(torch.log(self.a_init()))
        self.D = nn.Parameter(torch.ones(self.intermediate_size))
        self.out_proj = Linear(self.intermediate_size, self.hidden_size, bias=False)
        self.dt_layernorm = JambaRMSNorm(self.time_step_rank, eps=eps)
        self.b_layernorm = JambaRMSNorm(self.ssm_state_size, eps=eps)
        self.c_layernorm = JambaRMSNorm(self.ssm_state_size, eps=eps)

    def a_init(self):  # S4D real initialization
        A = torch.arange(1, self.ssm_state_size + 1)[None, :]
        return A.expand(self.intermediate_size, -1).contiguous()

    # ---- cuda_kernels_forward, training, no cache, no mask ----
    def cuda_kernels_forward(self, hidden_states):
        projected_states = self.in_proj(hidden_states).transpose(1, 2)
        hidden_states, gate = projected_states.chunk(2, dim=1)
        conv_weights = self.conv1d.weight.view(self.conv1d.weight.size(0), self.conv1d.weight.size(2))
        hidden_states = causal_conv1d_fn(hidden_states, conv_weights, self.conv1d.bias, activation=self.activation)
        ssm_parameters = self.x_proj(hidden_states.transpose(1, 2))
        time_step, B, C = torch.split(
            ssm_parameters, [self.time_step_rank, self.ssm_state_size, self.ssm_state_size], dim=-1)
        time_step = self.dt_layernorm(time_step)
        B = self.b_layernorm(B)
        C = self.c_layernorm(C)
        time_proj_bias = self.dt_proj.bias.data
        with torch.no_grad():
            self.dt_proj.bias.data = torch.zeros_like(self.dt_proj.bias.data)
        discrete_time_step = self.dt_proj(time_step).transpose(1, 2)
        with torch.no_grad():
            self.dt_proj.bias.data = time_proj_bias
        A = -torch.exp(cuda_fp32(self.A_log.float()))
        time_proj_bias = time_proj_bias.float() if time_proj_bias is not None else None
        scan_outputs, ssm_state = selective_scan_fn(
            hidden_states, discrete_time_step, A, B.transpose(1, 2), C.transpose(1, 2), self.D.float(), gate,
            time_proj_bias, delta_softplus=True, return_last_state=True)
        return self.out_proj(scan_outputs.transpose(1, 2))

    # ---- slow_forward, training, no cache, no mask ----
    def slow_forward(self, input_states):
        batch_size, seq_len, _ = input_states.shape
        dtype = input_states.dtype
        projected_states = self.in_proj(input_states).transpose(1, 2)
        hidden_states, gate = projected_states.chunk(2, dim=1)
        ssm_state = torch.zeros((batch_size, self.intermediate_size, self.ssm_state_size),
                                device=hidden_states.device, dtype=dtype)
        hidden_states = self.act(self.conv1d(hidden_states)[..., :seq_len])
        ssm_parameters = self.x_proj(hidden_states.transpose(1, 2))
        time_step, B, C = torch.split(
            ssm_parameters, [self.time_step_rank, self.ssm_state_size, self.ssm_state_size], dim=-1)
        time_step = self.dt_layernorm(time_step)
        B = self.b_layernorm(B)
        C = self.c_layernorm(C)
        discrete_time_step = self.dt_proj(time_step)
        discrete_time_step = F.softplus(cuda_fp32(discrete_time_step)).transpose(1, 2)
        A = -torch.exp(cuda_fp32(self.A_log.float()))
        discrete_A = torch.exp(cuda_fp32(A[None, :, None, :] * discrete_time_step[:, :, :, None]))
        discrete_B = discrete_time_step[:, :, :, None] * B[:, None, :, :].float()
        deltaB_u = discrete_B * hidden_states[:, :, :, None].float()
        scan_outputs = []
        for i in range(seq_len):
            ssm_state = discrete_A[:, :, i, :] * ssm_state + deltaB_u[:, :, i, :]
            scan_output = torch.matmul(ssm_state.to(dtype), C[:, i, :].unsqueeze(-1))
            scan_outputs.append(scan_output[:, :, 0])
        scan_output = torch.stack(scan_outputs, dim=-1)
        scan_output = scan_output + (hidden_states * self.D[None, :, None])
        scan_output = (scan_output * self.act(gate))
        return self.out_proj(scan_output.transpose(1, 2))

    def forward(self, hidden_states):
        if self.path == "fused":
            return self.cuda_kernels_forward(hidden_states)
        return self.slow_forward(hidden_states)


# ----------------------------------------------------------------------------------------
# recording (same rules as measure.py / gated_deltanet.py / mamba2.py)
# ----------------------------------------------------------------------------------------
class Recorder(gdn.Recorder):
    """gated_deltanet's Recorder; under autocast a saved 16-bit tensor equal to a cast weight (>= 2-D parameter, its
    transpose, or a batch-expanded view of either, as bmm keeps it) is autocast's copy of that weight: kind
    'paramCast'."""

    def __init__(self, model, amp=False):
        super().__init__(model)
        self.weights = [p for p in model.parameters() if p.dim() >= 2] if amp else []

    def pack(self, t):
        t = super().pack(t)
        e = self.entries[-1]
        if e["kind"] == "act" and self.weights and t.dtype != torch.float32:
            c = t[0] if t.dim() == 3 and (t.stride(0) == 0 or t.shape[0] == 1) else t
            for p in self.weights:
                pd = p.detach()
                if (c.shape == pd.shape and torch.equal(c, pd.to(c.dtype))) or \
                        (pd.dim() == 2 and c.shape == pd.t().shape and torch.equal(c, pd.t().to(c.dtype))):
                    e["kind"] = "paramCast"
                    break
        return t


def summarize(entries):
    by_ptr = {}
    for e in entries:
        by_ptr.setdefault(e["ptr"], e)
    out = dict(act=0, param=0, paramCast=0, scalar=0)
    for e in by_ptr.values():
        out[e["kind"]] += e["storageBytes"]
    return out


def measure(pt, path, trainable, dtype="bf16", want_tensors=False, seed=0):
    torch.manual_seed(seed)
    m = JambaMambaMixer(pt, path=path)
    amp = dtype == "amp_bf16"
    x = gdn.prepare(m, pt, torch.float32 if amp else torch.bfloat16, trainable, seed)
    with torch.no_grad():
        m.A_log.copy_(torch.log(m.a_init()))  # prepare() redraws every >= 2-D parameter; keep the S4D init

    def forward():
        if amp:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return m(x)
        return m(x)

    return gdn.record(m, Recorder(m, amp), x, forward, trainable, want_tensors, summarize)


# ----------------------------------------------------------------------------------------
# closed-form formula (bytes per Jamba Mamba mixer)
# ----------------------------------------------------------------------------------------
def formula_bytes(pt, path, trainable, dtype="bf16", chunk=SCAN_CHUNK):
    """Bytes saved for backward by one JambaMambaMixer, no cache, no mask. dtype 'bf16' (bf16 model) or 'amp_bf16' (fp32
    weights under CUDA bf16 autocast; torch path only, the fused path fails its dtype check). chunk: the scan kernel's
    2048-token chunk (x holds one (dA, state) pair per chunk)."""
    b, s, h, I, N, R, K = (pt[k] for k in ("b", "s", "hidden", "I", "N", "R", "K"))
    T = b * s                          # tokens
    nc = -(-s // chunk)                # scan chunks per sequence
    amp = dtype == "amp_bf16"
    assert not (amp and path == "fused"), "the fused path fails under autocast with fp32 weights"
    n = 0
    # in_proj input (bf16 model input / autocast's bf16 copy of the fp32 input), for the weight gradient only
    if trainable:
        n += 2 * T * h
    # in_proj output (b, s, 2I) bf16: the conv's input is a view of its first half (no copy), gate a view of the rest
    n += 2 * T * 2 * I
    # three JambaRMSNorms (dt: R, B: N, C: N): x.float() (pow, mul) and the rsqrt row, fp32
    n += 4 * T * (R + 2 * N) + 3 * 4 * T
    if trainable:
        n += 2 * T * (R + 2 * N)  # x_hat.to(bf16) kept by weight * x_hat
        n += 2 * T * R            # dt_proj input (bf16; autocast's bf16 copy of the fp32 norm output)
    # A = -exp(A_log.float()) (fp32, I x N), kept by the scan / by A * dt; exp keeps its result when A_log trains
    n += 4 * I * N + (4 * I * N if trainable else 0)
    if path == "fused":
        # SelectiveScanFn: contiguous copies (bf16, b*s*I each) of u (the channel-last conv output), delta (the
        # transposed dt_proj output) and z (the gate view); of B and C (b, N, s); out = empty_like(delta) (bf16);
        # x (fp32, (b, I, nc, 2N)); D.float() and time_proj_bias.float() (fp32, I each)
        n += 3 * 2 * T * I + 2 * 2 * T * N + 2 * T * I + 4 * b * I * nc * 2 * N + 2 * 4 * I
        if trainable:
            n += 2 * T * I  # x_proj input: the conv output itself (its transpose is contiguous)
            n += 2 * T * I  # out_proj input: a contiguous copy of out_z.transpose(1, 2)
        return n
    # ---------------- slow_forward ----------------
    f = 4 if amp else 2  # under CUDA autocast softplus runs in fp32, the norm outputs and the mixer input are fp32
    # conv1d output (b, I, s + K - 1) bf16, kept whole by silu's slice
    n += 2 * b * I * (s + K - 1)
    # softplus input (dt_proj output; its fp32 copy under amp) and output dt (kept by A * dt and dt * B)
    n += f * T * I + f * T * I
    # discrete_A (exp result) and discrete_B, fp32 (b, I, s, N); B.float() (b, s, N); u.float() (b, I, s)
    n += 2 * 4 * T * I * N + 4 * T * N + 4 * T * I
    # the loop: the zero initial state (input dtype), the s - 1 fp32 states kept by the next dA_i * state, the s
    # ssm_state.to(dtype) kept by matmul (bf16; under amp autocast's bf16 copy), C (bf16 norm output, kept whole by
    # matmul; under amp the per-token bf16 copies of the fp32 C_i)
    n += f * b * I * N + 4 * b * I * N * (s - 1) + 2 * b * I * N * s + 2 * T * N
    # (scan_output + u * D) * silu(gate): scan_output (bf16; fp32 under amp, + u * D(fp32)) and silu(gate) (bf16)
    n += f * T * I + 2 * T * I
    if trainable:
        # x_proj input: a contiguous copy of the transposed silu output; with b == 1 the fold is a view of the silu
        # output, which u * D keeps anyway
        n += 2 * T * I if b > 1 else 0
        n += 2 * T * I  # u (silu output, bf16) kept by u * D
        n += 2 * T * I  # out_proj input: a contiguous copy of the transposed product
    return n


# ----------------------------------------------------------------------------------------
# points
# ----------------------------------------------------------------------------------------
def P_(b, s, hidden, I, N, R, K=4, name=None):
    return dict(b=b, s=s, hidden=hidden, I=I, N=N, R=R, K=K, name=name)


POINTS = [
    P_(1, 64, 64, 128, 16, 4, name="Jamba-v0.1 ratios (expand 2, N 16, R = hidden/16, K 4), hidden 4096 -> 64"),
    P_(2, 50, 96, 192, 16, 6),
    P_(3, 37, 128, 256, 16, 8),
    P_(2, 45, 64, 64, 8, 4, K=3),                 # expand 1, N 8, K 3
    P_(1, 100, 48, 144, 32, 3, K=2),              # expand 3, N 32, K 2
    P_(2, 33, 80, 160, 4, 16),                    # R > N, tiny N
    P_(1, 2100, 32, 64, 4, 2, name="s > 2048: two scan chunks"),
    P_(2, 2049, 16, 32, 8, 1, name="s = 2048 + 1: two scan chunks"),
]
AMP_POINTS = [0, 1, 3, 6]  # indices into POINTS measured under amp_bf16
QUICK = [0, 1, 3]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 short points, writes nothing unless --out")
    ap.add_argument("--tensors", action="store_true", help="also print the saved-tensor list of each case")
    ap.add_argument("--out", help="also write {source, hfSources, unsupported, cases} as JSON")
    args = ap.parse_args()
    torch.set_num_threads(2)
    idx = QUICK if args.quick else range(len(POINTS))
    jobs = [(i, path, "bf16") for i in idx for path in ("fused", "torch")]
    jobs += [(i, path, "amp_bf16") for i in idx if i in AMP_POINTS for path in ("fused", "torch")]
    records, unsupported = [], []
    bad = n = 0
    for i, path, dtype in jobs:
        pt = POINTS[i]
        for trainable in (False, True):
            shape = {k: pt[k] for k in ("b", "s", "hidden", "I", "N", "R", "K")}
            params = "trainable" if trainable else "frozen"
            try:
                tot, tensors = measure(pt, path, trainable, dtype=dtype, want_tensors=args.tensors)
            except RuntimeError as err:
                if not (dtype == "amp_bf16" and path == "fused"):
                    raise
                u = dict(path=path, params=params, dtype=dtype, **shape, error=str(err))
                print(f"unsupported: {u}", flush=True)
                unsupported.append(u)
                continue
            exp = formula_bytes(pt, path, trainable, dtype=dtype)
            n += 1
            bad += tot["act"] != exp
            rec = dict(path=path, params=params, dtype=dtype, **shape, scanChunk=SCAN_CHUNK,
                       nChunks=-(-pt["s"] // SCAN_CHUNK), measured=tot["act"], formula=exp, match=tot["act"] == exp,
                       perToken=round(tot["act"] / (pt["b"] * pt["s"]), 2), savedParamBytes=tot["param"],
                       savedParamCastBytes=tot["paramCast"], savedScalarBytes=tot["scalar"])
            gdn.emit_case(records, rec, tensors, name=pt["name"])
    print(f"formula check: {n - bad}/{n} cases reproduced exactly; {len(unsupported)} unsupported", flush=True)
    if args.out:
        gdn.write_cases(args.out, "mamba1.py", records, hfSources=HF_SOURCES, unsupported=unsupported)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
