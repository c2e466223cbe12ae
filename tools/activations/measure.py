#!/usr/bin/python3
"""Ground-truth activation memory (bytes saved by autograd for backward) for small
reference models that mirror Hugging Face transformers' op sequences.

Run with Debian's torch (apt-get install python3-torch; torch 1.13):
    /usr/bin/python3 tools/activations/measure.py            # writes test/fixtures/activations/golden.json
    /usr/bin/python3 tools/activations/measure.py --quick    # fewer points, does not write unless --out given
    /usr/bin/python3 tools/activations/measure.py --append   # only falcon_h1: its cases replaced at the end of golden.json

See README.md in this folder for what is measured and the closed-form formulas
(which this script verifies against every measured point: see FORMULAS below).
"""
import argparse
import json
import math
import os
import sys
import time
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode
from torch.utils.checkpoint import checkpoint

import gated_deltanet as gdn  # same folder: the Gated DeltaNet mixer and the PyTorch >= 2 mean

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(REPO, "test", "fixtures", "activations", "golden.json")

# Commits of huggingface/transformers whose modeling files were mirrored (as stored in the
# reference index used when this tool was written).
HF_SOURCES = {
    "llama": "src/transformers/models/llama/modeling_llama.py@5dd4a63548857797727ae73eeb6a6e886ea02a3e",
    "mixtral": "src/transformers/models/mixtral/modeling_mixtral.py@00d4b3d2142cb4ced2f51b90614b5d26bc045015",
    "gpt2": "src/transformers/models/gpt2/modeling_gpt2.py@0010f60284ab4b9d14b7df9c6525b1a2ad44e640",
    "gpt_neox": "src/transformers/models/gpt_neox/modeling_gpt_neox.py@006bd23dd0ce18d54e1cf260b09b15fa943a731d",
    "loss": "src/transformers/loss/loss_utils.py@0114da07ec0e101b420a923dedeb6032b6ac3a44",
    "gpt_oss": "src/transformers/models/gpt_oss/modeling_gpt_oss.py@6edf5b311854175ff83c59179b3360beca1ceffc",
    "deepseek_v3": "src/transformers/models/deepseek_v3/modeling_deepseek_v3.py@00b676f8f0489b88652a31d70751cc540dd06305",
    "glm4_moe": "src/transformers/models/glm4_moe/modeling_glm4_moe.py@a0699c971daff96403489086fcfd07469d20b17f",
    "llama4": "src/transformers/models/llama4/modeling_llama4.py@000c33fdfde12e1ffafbfcdb3c926df5727a00b6",
    "olmo2": "src/transformers/models/olmo2/modeling_olmo2.py@000c33fdfde12e1ffafbfcdb3c926df5727a00b6",
    "glm4": "src/transformers/models/glm4/modeling_glm4.py@00d01786ab67861791c57a11f3fca93e342c9e2d",
    "bloom": "src/transformers/models/bloom/modeling_bloom.py@9d97831a1cbb420edac062c2e8454ce9ac1c4b79",
    "qwen3_5_text": "src/transformers/models/qwen3_5/modeling_qwen3_5.py@009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9",
    "falcon_h1": "src/transformers/models/falcon_h1/modeling_falcon_h1.py@001f85b38fb432858ace93f18622f07cec46d874",
    # not transformers: the fused Mamba2 kernel whose saved tensors falcon_h1's mixer emulates (through mamba2.py)
    "falcon_h1_mamba_kernel": "state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py@d757aef189a5215ab3568516825a145e49f7b7ed",
}


# ----------------------------------------------------------------------------------------
# storage helpers
# ----------------------------------------------------------------------------------------
def storage_key(t):
    if hasattr(t, "untyped_storage"):
        st = t.untyped_storage()
    else:
        st = t.storage()
    return st.data_ptr(), st.nbytes()


# x.mean(-1, keepdim=True) with PyTorch >= 2.0 autograd semantics (shared with gated_deltanet.py, which defines it).
mean_lastdim = gdn.mean_lastdim


def autocast_on():
    return torch.is_autocast_cpu_enabled()


def cuda_fp32(x):
    """CUDA autocast runs softmax/log_softmax/layer_norm/pow/rsqrt/sum/exp/... in fp32 (casting
    lower-precision inputs up). CPU autocast in torch 1.13 does not list those ops, so under AMP we
    emulate CUDA's policy by an explicit cast where a bf16 tensor would reach such an op."""
    if autocast_on() and x.is_floating_point() and x.dtype != torch.float32:
        return x.float()
    return x


def dropout(x, p, training=True):
    """at::dropout: identity when p == 0 or not training (CPU and CUDA). For 0<p<1 on CUDA the fused
    native_dropout kernel is used and saves a bool mask (1 byte/elem). CPU's at::dropout would instead
    save a dtype-sized noise tensor, so we call native_dropout explicitly to get CUDA's behaviour."""
    if not training or p == 0.0:
        return x
    return torch.native_dropout(x, p, True)[0]


# ----------------------------------------------------------------------------------------
# recorder
# ----------------------------------------------------------------------------------------
class OpName(TorchFunctionMode):
    def __init__(self, rec):
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func, types, args=(), kwargs=None):
        prev = self.rec.op
        self.rec.op = getattr(func, "__name__", str(func))
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.rec.op = prev


class Recorder:
    def __init__(self, model, amp):
        self.param_keys = {storage_key(p)[0]: n for n, p in model.named_parameters()}
        self.buffer_keys = {storage_key(b)[0]: n for n, b in model.named_buffers()}
        self.params_by_shape = {}
        if amp:
            for p in model.parameters():
                if p.dim() == 2:
                    self.params_by_shape.setdefault(tuple(p.shape), []).append(p)
                    self.params_by_shape.setdefault(tuple(p.shape[::-1]), []).append(p)
        self.region = "outside"
        self.op = None
        self.entries = []
        self.keep = []
        self.shared_ptrs = set()  # per-forward model-level tensors (qwen3_5_text): always "shared" when a layer saves them

    def classify(self, t, ptr):
        if ptr in self.param_keys:
            return "param"
        if ptr in self.buffer_keys:
            return "buffer"
        if t.dim() == 0:
            return "scalar"
        if self.params_by_shape and t.dim() == 2 and t.dtype != torch.float32:
            for p in self.params_by_shape.get(tuple(t.shape), []):
                pc = p.detach().to(t.dtype)
                if (pc.shape == t.shape and torch.equal(pc, t)) or (pc.shape == t.shape[::-1] and torch.equal(pc.t(), t)):
                    return "paramCast"
        return "act"

    def add(self, t, op, held=False):
        ptr, nbytes = storage_key(t)
        gf = t.grad_fn
        self.entries.append(dict(
            region=self.region, ptr=ptr, nbytes=nbytes, op=op,
            producer=(type(gf).__name__ if gf is not None else ("leaf" if t.requires_grad else "nograd")),
            shape=list(t.shape), dtype=str(t.dtype).replace("torch.", ""),
            kind=self.classify(t, ptr), held=held))
        self.keep.append(t)

    def pack(self, t):
        self.add(t, self.op or "?")
        return t

    @staticmethod
    def unpack(t):
        return t

    def held(self, obj, op):
        """Tensors kept alive by checkpointing outside of autograd's saved-tensor mechanism."""
        if isinstance(obj, torch.Tensor):
            self.add(obj, op, held=True)
        elif isinstance(obj, (tuple, list)):
            for o in obj:
                self.held(o, op)


REC = None  # current recorder (set by measure())


class region:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        if REC is not None:
            self.prev = REC.region
            REC.region = self.name

    def __exit__(self, *a):
        if REC is not None:
            REC.region = self.prev


def is_layer_region(r):
    return r.startswith("layer") or r.startswith("enc") or r.startswith("dec")


def summarize(entries, layer_regions, force_shared=frozenset()):
    by_ptr = {}
    for e in entries:
        by_ptr.setdefault(e["ptr"], []).append(e)
    out = dict(total=0, outside=0, shared=0, loss=0, param=0, buffer=0, paramCast=0, scalar=0, held=0)
    per_layer = {r: 0 for r in layer_regions}
    attributed = {}
    for ptr, es in by_ptr.items():
        e0 = es[0]
        nb = max(e["nbytes"] for e in es)
        kind = e0["kind"]
        if kind != "act":
            out[kind] += nb
            continue
        lr = {e["region"] for e in es if is_layer_region(e["region"])}
        reg = e0["region"]
        if len(lr) > 1 or (lr and ptr in force_shared):
            reg = "shared"
        attributed[ptr] = reg
        out["total"] += nb
        if all(e["held"] for e in es):
            out["held"] += nb
        if reg in per_layer:
            per_layer[reg] += nb
        elif reg == "shared":
            out["shared"] += nb
        elif reg == "loss":
            out["loss"] += nb
        else:
            out["outside"] += nb
    return out, per_layer, attributed


def layer_tensor_list(entries, attributed, reg):
    seen = set()
    res = []
    for e in entries:
        if e["region"] != reg or e["kind"] != "act":
            continue
        key = (e["ptr"], e["op"], tuple(e["shape"]))
        if key in seen:
            continue
        seen.add(key)
        res.append(dict(op=e["op"], producer=e["producer"], shape=e["shape"], dtype=e["dtype"],
                        storageBytes=e["nbytes"], held=e["held"],
                        counted=(e["kind"] == "act" and attributed.get(e["ptr"]) == reg),
                        storageId=e["ptr"]))
    # mark duplicates of a storage (only the first occurrence is counted)
    firsts = {}
    for r in res:
        if r["storageId"] in firsts:
            r["counted"] = False
        else:
            firsts[r["storageId"]] = True
    ids = {}
    for r in res:
        r["storageId"] = ids.setdefault(r["storageId"], len(ids))
    return res


# ----------------------------------------------------------------------------------------
# flash / SDPA-flash emulation
# ----------------------------------------------------------------------------------------
class FlashAttention(torch.autograd.Function):
    """Saves exactly what FlashAttention-2 (flash_attn_func) / aten::_scaled_dot_product_flash_attention
    save for backward: query, key, value, out, logsumexp (fp32, (b, heads, s_q)) (+ an rng state of
    2 int64 for dropout, ignored). k/v are NOT repeated for GQA (flash-attn / SDPA enable_gqa)."""

    @staticmethod
    def forward(ctx, q, k, v, causal, scale, p):
        # q: (b, h, s, d) ; k, v: (b, hkv, s, d)
        b, h, s, d = q.shape
        rep = h // k.shape[1]
        kk = k.float().repeat_interleave(rep, 1)
        vv = v.float().repeat_interleave(rep, 1)
        sc = q.float() @ kk.transpose(-1, -2) * scale
        if causal:
            m = torch.ones(s, kk.shape[2], dtype=torch.bool).triu(1)
            sc = sc.masked_fill(m, float("-inf"))
        lse = torch.logsumexp(sc, -1)
        o = torch.softmax(sc, -1) @ vv
        out = torch.empty(b, s, h, d, dtype=q.dtype).transpose(1, 2)  # kernel output layout (b, s, h, d)
        out.copy_(o)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.causal, ctx.scale = causal, scale
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        with torch.enable_grad():
            qq, kk, vv = [t.detach().float().requires_grad_() for t in (q, k, v)]
            rep = q.shape[1] // k.shape[1]
            sc = qq @ kk.repeat_interleave(rep, 1).transpose(-1, -2) * ctx.scale
            if ctx.causal:
                s = q.shape[2]
                sc = sc.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
            o = torch.softmax(sc, -1) @ vv.repeat_interleave(rep, 1)
            gq, gk, gv = torch.autograd.grad(o, (qq, kk, vv), dout.float())
        return gq.to(q.dtype), gk.to(k.dtype), gv.to(v.dtype), None, None, None


def flash_attn(q, k, v, causal, scale, p=0.0):
    if autocast_on():  # HF flash path / SDPA under autocast run the kernel in the autocast dtype
        q, k, v = [t.to(torch.bfloat16) if t.dtype == torch.float32 else t for t in (q, k, v)]
    return FlashAttention.apply(q, k, v, causal, scale, p)


# ----------------------------------------------------------------------------------------
# building blocks
# ----------------------------------------------------------------------------------------
class LoraLinear(nn.Module):
    """PEFT lora.Linear: result = base(x) + lora_B(lora_A(dropout(x))) * scaling; x is cast to the adapter
    dtype (PEFT _cast_input_dtype); adapters are fp32 when the base is bf16 (PEFT autocast_adapter_dtype=True)."""

    def __init__(self, base, r, alpha, p):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.normal_(self.lora_B.weight, std=0.02)  # PEFT inits B to 0; values do not matter here
        self.p = p
        self.scaling = alpha / r

    def forward(self, x):
        result = self.base_layer(x)
        dt = result.dtype
        if x.dtype != self.lora_A.weight.dtype:
            x = x.to(self.lora_A.weight.dtype)
        result = result + self.lora_B(self.lora_A(dropout(x, self.p))) * self.scaling
        return result.to(dt)


class LlamaRMSNorm(nn.Module):
    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def normalized_fp32(self, x):
        x = x.to(torch.float32)
        return x * torch.rsqrt(mean_lastdim(x.pow(2)) + self.eps)

    def forward(self, x):
        return self.weight * self.normalized_fp32(x).to(x.dtype)


class GemmaRMSNorm(nn.Module):
    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(h))
        self.eps = eps

    def _norm(self, x):
        return x * torch.rsqrt(mean_lastdim(x.pow(2)) + self.eps)

    def forward(self, x):
        out = self._norm(x.float())
        out = out * (1.0 + self.weight.float())
        return out.type_as(x)


class T5LayerNorm(nn.Module):
    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def forward(self, x):
        var = mean_lastdim(x.to(torch.float32).pow(2))
        x = x * torch.rsqrt(var + self.eps)
        if self.weight.dtype in (torch.float16, torch.bfloat16):
            x = x.to(self.weight.dtype)
        return self.weight * x


class LayerNorm(nn.LayerNorm):
    def forward(self, x):
        return F.layer_norm(cuda_fp32(x), self.normalized_shape, self.weight, self.bias, self.eps)


class Conv1D(nn.Module):  # transformers.pytorch_utils.Conv1D (gpt2)
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def gelu_new(x):  # NewGELUActivation (gpt2 "gelu_new")
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(cuda_fp32(x), 3.0))))


ACT = {
    "silu": F.silu,
    "gelu": F.gelu,  # GELUActivation -> exact erf gelu
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_new": gelu_new,
    "relu": F.relu,
}


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(q, k, cos, sin):  # llama
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def rotate_prefix(q, k, cos, sin, rotate):
    """Rotates the first cos.shape[-1] features of each head and concatenates the rest back."""
    rd = cos.shape[-1]
    q_rot, q_pass = q[..., :rd], q[..., rd:]
    k_rot, k_pass = k[..., :rd], k[..., rd:]
    q_embed = torch.cat([(q_rot * cos) + (rotate(q_rot) * sin), q_pass], dim=-1)
    k_embed = torch.cat([(k_rot * cos) + (rotate(k_rot) * sin), k_pass], dim=-1)
    return q_embed, k_embed


def apply_rotary_partial(q, k, cos, sin):  # phi3, GLM-4.5 (rotary_dim = cos.shape[-1], cat with pass-through)
    return rotate_prefix(q, k, cos.unsqueeze(1), sin.unsqueeze(1), rotate_half)


def rotate_half_interleaved(x):  # GLM-4 rotate_half: pairs (0, 1), (2, 3), ...
    x1 = x[..., 0::2]
    x2 = x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rotary_interleaved(q, k, cos, sin):  # GLM-4 apply_rotary_pos_emb: cos / sin halves interleaved per layer
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    cos = cos[..., : cos.shape[-1] // 2].repeat_interleave(2, dim=-1)
    sin = sin[..., : sin.shape[-1] // 2].repeat_interleave(2, dim=-1)
    return rotate_prefix(q, k, cos, sin, rotate_half_interleaved)


def repeat_kv(x, n_rep):
    b, nkv, s, d = x.shape
    if n_rep == 1:
        return x
    x = x[:, :, None, :, :].expand(b, nkv, n_rep, s, d)
    return x.reshape(b, nkv * n_rep, s, d)


def rope_cos_sin(inv_freq, position_ids, dtype, repeat=True):
    """cos/sin of the rotary frequencies, repeated to the head width (llama); gpt-oss keeps the half width."""
    with torch.no_grad():
        inv = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        pos = position_ids[:, None, :].float()
        with torch.autocast("cpu", enabled=False):
            freqs = (inv.float() @ pos.float()).transpose(1, 2)
            emb = torch.cat((freqs, freqs), dim=-1) if repeat else freqs
            cos, sin = emb.cos(), emb.sin()
    return cos.to(dtype), sin.to(dtype)


def eager_attention(q, k, v, mask, scaling, n_rep, p, softcap=None):
    """transformers eager_attention_forward (llama family; Gemma 2 soft-caps the scores with tanh)."""
    k = repeat_kv(k, n_rep)
    v = repeat_kv(v, n_rep)
    w = torch.matmul(q, k.transpose(2, 3)) * scaling
    if softcap is not None:
        w = torch.tanh(w / softcap) * softcap
    if mask is not None:
        w = w + mask[:, :, :, : k.shape[-2]]
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    w = dropout(w, p)
    o = torch.matmul(w, v)
    return o.transpose(1, 2).contiguous()


def causal_lm_loss(logits, labels, vocab):
    """transformers.loss.loss_utils.ForCausalLMLoss"""
    logits = logits.float()
    labels = F.pad(labels, (0, 1), value=-100)
    shift_labels = labels[..., 1:].contiguous()
    logits = logits.view(-1, vocab)
    return F.cross_entropy(logits, shift_labels.view(-1), ignore_index=-100, reduction="mean")


class _MatMul4Bit(torch.autograd.Function):
    """bitsandbytes MatMul4Bit (autograd/_functions.py): F.linear(A, dequantize_4bit(B).to(A.dtype)); it keeps only
    the quantized weight (ctx.tensors = (None, B)), never the input, because the base weight is frozen. The
    dequantized weight is emulated by a frozen bf16 tensor."""

    @staticmethod
    def forward(ctx, a, w):
        ctx.w = w
        return F.linear(a, w.to(a.dtype))

    @staticmethod
    def backward(ctx, g):
        return g @ ctx.w.to(g.dtype), None


class Bnb4Linear(nn.Module):
    """bitsandbytes nn.Linear4bit.forward: the input is cast to the compute dtype (bf16) and the output back to the
    input's dtype (`out.to(inp_dtype)`): an fp32 input gives an fp32 output."""

    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(o, i), requires_grad=False)
        self.in_features, self.out_features = i, o

    def forward(self, x):
        inp_dtype = x.dtype
        return _MatMul4Bit.apply(x.to(torch.bfloat16), self.weight).to(inp_dtype)


class LoraLinear4bit(LoraLinear):
    """PEFT lora.bnb.Linear4bit.forward: result = base(x).clone(); under autocast x is not cast to the adapter dtype
    (requires_conversion = not torch.is_autocast_enabled()); result + lora_B(lora_A(dropout(x))) * scaling."""

    def forward(self, x):
        result = self.base_layer(x).clone()
        if not autocast_on():
            x = x.to(self.lora_A.weight.dtype)
        output = self.lora_B(self.lora_A(dropout(x, self.p))) * self.scaling
        if not autocast_on():
            output = output.to(result.dtype)
        return result + output


def make_linear(cfg, i, o, bias, name):
    lora = cfg.get("_lora")
    quantized = bool(lora and lora.get("quantized"))
    lin = Bnb4Linear(i, o) if quantized and not bias else nn.Linear(i, o, bias=bias)
    if lora and (lora["targets"] == "all-linear" or name in lora["targets"]):
        return (LoraLinear4bit if quantized else LoraLinear)(lin, lora["r"], lora["alpha"], lora["dropout"])
    return lin


# ----------------------------------------------------------------------------------------
# llama-style decoder (llama / qwen2 / gemma / phi3 / mixtral / qwen2_moe)
# ----------------------------------------------------------------------------------------
class LlamaMLP(nn.Module):
    def __init__(self, cfg, inter=None):
        super().__init__()
        h, f = cfg["hidden_size"], inter or cfg["intermediate_size"]
        self.gate_proj = make_linear(cfg, h, f, False, "gate_proj")
        self.up_proj = make_linear(cfg, h, f, False, "up_proj")
        self.down_proj = make_linear(cfg, f, h, False, "down_proj")
        self.act = ACT[cfg["hidden_act"]]

    def forward(self, x):
        return self.down_proj(self.act(self.gate_proj(x)) * self.up_proj(x))


class Phi3MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, f = cfg["hidden_size"], cfg["intermediate_size"]
        self.gate_up_proj = make_linear(cfg, h, 2 * f, False, "gate_up_proj")
        self.down_proj = make_linear(cfg, f, h, False, "down_proj")
        self.act = ACT[cfg["hidden_act"]]

    def forward(self, x):
        up = self.gate_up_proj(x)
        gate, up = up.chunk(2, dim=-1)
        up = up * self.act(gate)
        return self.down_proj(up)


def balanced_routing(sel, E):
    """The routing of a trained model, whose balancing loss spreads the tokens evenly: token t goes to experts
    (t*k + j) mod E. Replaces the chosen indices in place of a random router's (which sends most tokens to a few
    experts); same shape and dtype, so the bytes are those of the real selection (cfg _balanced)."""
    T, k = sel.shape
    return (torch.arange(T)[:, None] * k + torch.arange(k)[None, :]) % E


def grouped_experts(E, h, f, layout):
    """transformers 5's fused experts through its default implementation, grouped_mm (the replica of
    integrations/moe.py in lora_target_parameters.py): 3-D gate_up_proj / down_proj, the routed tokens sorted by
    expert, one grouped matmul per projection (cfg _experts_impl: grouped_mm)."""
    from lora_target_parameters import Experts
    return Experts(E, h, f, layout, "grouped_mm", torch.float32)


def expert_counts(sel, E):
    return torch.bincount(sel.reshape(-1), minlength=E).tolist()


class SparseMoe(nn.Module):
    """MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock (shared expert + sigmoid gate)."""

    def __init__(self, cfg, family):
        super().__init__()
        self.family = family
        self.E = cfg["num_local_experts"] if family == "mixtral" else cfg["num_experts"]
        self.k = cfg["num_experts_per_tok"]
        h = cfg["hidden_size"]
        self.gate = nn.Linear(h, self.E, bias=False)
        inter = cfg["intermediate_size"] if family == "mixtral" else cfg["moe_intermediate_size"]
        self.grouped = cfg.get("_experts_impl") == "grouped_mm"
        if self.grouped:
            self.experts = grouped_experts(self.E, h, inter, "mixtral")
        else:
            self.experts = nn.ModuleList([LlamaMLP(cfg, inter) for _ in range(self.E)])
        self.norm_topk = cfg.get("norm_topk_prob", True) if family == "qwen2_moe" else True
        self.balanced = cfg.get("_balanced", False)
        if family == "qwen2_moe":
            self.shared_expert = LlamaMLP(cfg, cfg["shared_expert_intermediate_size"])
            self.shared_expert_gate = nn.Linear(h, 1, bias=False)
        self.last_counts = None

    def forward(self, hs):
        b, s, h = hs.shape
        hs = hs.view(-1, h)
        router_logits = self.gate(hs)
        rw = F.softmax(router_logits, dim=1, dtype=torch.float)
        rw, sel = torch.topk(rw, self.k, dim=-1)
        if self.balanced:
            sel = balanced_routing(sel, self.E)
        if self.norm_topk:
            rw /= rw.sum(dim=-1, keepdim=True)
        rw = rw.to(hs.dtype)
        if self.grouped:
            final = self.experts(hs, sel, rw)
            self.last_counts = expert_counts(sel, self.E)
            return self._shared(hs, final).reshape(b, s, h)
        final = torch.zeros((b * s, h), dtype=hs.dtype)
        mask = F.one_hot(sel, num_classes=self.E).permute(2, 1, 0)
        counts = []
        for e in range(self.E):
            idx, top_x = torch.where(mask[e])
            counts.append(int(top_x.shape[0]))
            if top_x.shape[0] == 0:
                continue
            cur = hs[None, top_x].reshape(-1, h)
            cur = self.experts[e](cur) * rw[top_x, idx, None]
            final.index_add_(0, top_x, cur.to(hs.dtype))
        self.last_counts = counts
        return self._shared(hs, final).reshape(b, s, h)

    def _shared(self, hs, final):
        if self.family == "qwen2_moe":
            sh = self.shared_expert(hs)
            sh = torch.sigmoid(self.shared_expert_gate(hs)) * sh
            final = final + sh
        return final


class LlamaAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, nh, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.hd = cfg.get("head_dim") or h // nh
        self.nh, self.kv = nh, kv
        self.scaling = self.hd ** -0.5
        bias = cfg.get("attention_bias", False)
        self.fused = cfg["family"] == "phi3"
        if self.fused:
            self.qkv_proj = make_linear(cfg, h, (nh + 2 * kv) * self.hd, False, "qkv_proj")
        else:
            self.q_proj = make_linear(cfg, h, nh * self.hd, bias, "q_proj")
            self.k_proj = make_linear(cfg, h, kv * self.hd, bias, "k_proj")
            self.v_proj = make_linear(cfg, h, kv * self.hd, bias, "v_proj")
        self.o_proj = make_linear(cfg, nh * self.hd, h, False, "o_proj")
        if cfg["family"] == "gemma3":  # Gemma3Attention q_norm / k_norm over head_dim, before the rotary
            self.q_norm = GemmaRMSNorm(self.hd, cfg["rms_norm_eps"])
            self.k_norm = GemmaRMSNorm(self.hd, cfg["rms_norm_eps"])
        if cfg["family"] == "glm4_moe" and cfg.get("use_qk_norm"):  # Glm4MoeAttention q_norm / k_norm over head_dim
            self.q_norm = LlamaRMSNorm(self.hd, cfg["rms_norm_eps"])
            self.k_norm = LlamaRMSNorm(self.hd, cfg["rms_norm_eps"])
        # GLM-4.5 rotates the first partial_rotary_factor of each head and concatenates the rest (apply_rotary_pos_emb);
        # GLM-4 does the same on interleaved pairs
        self.rotary = {"glm4_moe": apply_rotary_partial, "glm4": apply_rotary_interleaved}.get(cfg["family"], apply_rotary)

    def forward(self, x, mask, cos, sin):
        b, s, _ = x.shape
        shp = (b, s, -1, self.hd)
        if self.fused:
            qkv = self.qkv_proj(x)
            qp = self.nh * self.hd
            q = qkv[..., :qp]
            k = qkv[..., qp: qp + self.kv * self.hd]
            v = qkv[..., qp + self.kv * self.hd:]
            q, k, v = q.view(shp).transpose(1, 2), k.view(shp).transpose(1, 2), v.view(shp).transpose(1, 2)
            q, k = apply_rotary_partial(q, k, cos, sin)
        else:
            q = self.q_proj(x).view(shp).transpose(1, 2)
            k = self.k_proj(x).view(shp).transpose(1, 2)
            v = self.v_proj(x).view(shp).transpose(1, 2)
            if hasattr(self, "q_norm"):
                q, k = self.q_norm(q), self.k_norm(k)
            q, k = self.rotary(q, k, cos, sin)
        p = self.cfg.get("attention_dropout", 0.0)
        if self.cfg["_attn"] == "flash":
            o = flash_attn(q, k, v, True, self.scaling, p).transpose(1, 2).contiguous()
        else:
            o = eager_attention(q, k, v, mask, self.scaling, self.nh // self.kv, p, self.cfg.get("attn_logit_softcapping"))
        o = o.reshape(b, s, -1).contiguous()
        return self.o_proj(o)


class LlamaLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        fam = cfg["family"]
        Norm = GemmaRMSNorm if fam in ("gemma", "gemma2", "gemma3") else LlamaRMSNorm
        self.fam = fam
        self.cfg = cfg
        self.input_layernorm = Norm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.post_attention_layernorm = Norm(cfg["hidden_size"], cfg["rms_norm_eps"])
        if fam in ("gemma2", "gemma3", "glm4"):  # Gemma2/3 and Glm4DecoderLayer: the attention and MLP outputs are normalized too
            self.pre_feedforward_layernorm = Norm(cfg["hidden_size"], cfg["rms_norm_eps"])
            self.post_feedforward_layernorm = Norm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.self_attn = LlamaAttention(cfg)
        if fam in ("mixtral", "qwen2_moe"):
            self.mlp = SparseMoe(cfg, fam)
        elif fam in ("phi3", "glm4"):  # Glm4MLP: the same fused gate_up_proj, up * act(gate)
            self.mlp = Phi3MLP(cfg)
        else:
            self.mlp = LlamaMLP(cfg)

    def forward(self, hs, mask, position_ids, cache_position, pos_emb):
        cos, sin = pos_emb
        if self.fam in ("gemma2", "gemma3", "glm4"):
            hs = hs + self.post_attention_layernorm(self.self_attn(self.input_layernorm(hs), mask, cos, sin))
            return hs + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(hs)))
        res = hs
        hs = self.input_layernorm(hs)
        hs = self.self_attn(hs, mask, cos, sin)
        if self.fam == "phi3":
            hs = dropout(hs, self.cfg["resid_pdrop"])
        hs = res + hs
        res = hs
        hs = self.post_attention_layernorm(hs)
        hs = self.mlp(hs)
        if self.fam == "phi3":
            hs = dropout(hs, self.cfg["resid_pdrop"])
        return res + hs


def run_layers(model, layers, hs, args_fn, prefix="layer"):
    """Calls each layer like HF does, optionally under gradient checkpointing, with REC regions."""
    ck = model.cfg["_ckpt"]
    for i, layer in enumerate(layers):
        args = args_fn(i, hs)
        with region(f"{prefix}{i}"):
            if ck == "none":
                hs = layer(*args)
            elif ck == "full_reentrant":
                # CheckpointFunction: tensor args -> ctx.save_for_backward (seen by the hooks);
                # non-tensor args (e.g. the (cos, sin) tuple) are kept in ctx.inputs (not seen: add them).
                for a in args:
                    if isinstance(a, (tuple, list)) and REC is not None:
                        REC.held(a, "CheckpointFunction.ctx.inputs(non-tensor arg)")
                hs = checkpoint(layer, *args, use_reentrant=True)
            elif ck == "full_nonreentrant":
                # non-reentrant: the hooks inside are replaced by checkpoint's own; the args are kept
                # alive by the unpack closure (add them as 'held').
                if REC is not None:
                    REC.held(list(args), "checkpoint(non-reentrant).closure(args)")
                hs = checkpoint(layer, *args, use_reentrant=False)
            if isinstance(hs, tuple):
                hs = hs[0]
    return hs


def causal_float_mask(b, s, dtype):
    """_prepare_4d_causal_attention_mask_with_cache_position with a 2D all-ones attention_mask."""
    mn = torch.finfo(dtype).min
    m = torch.full((s, s), mn, dtype=dtype).triu(1)
    m = m[None, None].expand(b, 1, -1, -1).clone()
    return m


class LlamaLike(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, V = cfg["hidden_size"], cfg["vocab_size"]
        self.embed_tokens = nn.Embedding(V, h)
        if cfg["family"] in ("deepseek_v3", "glm4_moe"):
            attention = LlamaAttention if cfg["family"] == "glm4_moe" else DeepseekAttention
            self.layers = nn.ModuleList([DeepseekLayer(cfg, i, attention) for i in range(cfg["num_hidden_layers"])])
        elif cfg["family"] == "llama4":
            self.layers = nn.ModuleList([Llama4Layer(cfg, i) for i in range(cfg["num_hidden_layers"])])
        elif cfg["family"] == "olmo2":
            self.layers = nn.ModuleList([Olmo2Layer(cfg) for _ in range(cfg["num_hidden_layers"])])
        else:
            Layer = GptOssLayer if cfg["family"] == "gpt_oss" else LlamaLayer
            self.layers = nn.ModuleList([Layer(cfg) for _ in range(cfg["num_hidden_layers"])])
        Norm = {
            "gemma": GemmaRMSNorm,
            "gemma2": GemmaRMSNorm,
            "gemma3": GemmaRMSNorm,
            "gpt_oss": GptOssRMSNorm,
            "olmo2": GptOssRMSNorm,
        }.get(cfg["family"], LlamaRMSNorm)
        self.norm = Norm(h, cfg["rms_norm_eps"])
        hd = cfg.get("head_dim") or h // cfg["num_attention_heads"]
        rd = int(hd * cfg.get("partial_rotary_factor", 1.0))
        self.register_buffer("inv_freq", 1.0 / (cfg["rope_theta"] ** (torch.arange(0, rd, 2).float() / rd)), persistent=False)
        self.lm_head = nn.Linear(h, V, bias=False)
        if cfg.get("tie_word_embeddings"):
            self.lm_head.weight = self.embed_tokens.weight

    def forward(self, ids, labels):
        b, s = ids.shape
        with region("outside"):
            hs = self.embed_tokens(ids)
            if self.cfg["family"] in ("gemma", "gemma2", "gemma3"):
                normalizer = torch.tensor(self.cfg["hidden_size"] ** 0.5, dtype=hs.dtype)
                hs = hs * normalizer
            cache_position = torch.arange(s)
            position_ids = cache_position.unsqueeze(0)
            mask = None if self.cfg["_attn"] == "flash" else causal_float_mask(b, s, hs.dtype)
            if self.cfg["family"] == "llama4":  # Llama4TextRotaryEmbedding: complex frequencies, fp32
                with torch.no_grad():
                    freqs = (self.inv_freq[None, :, None].float() @ position_ids[:, None, :].float()).transpose(1, 2)
                    pos_emb = torch.polar(torch.ones_like(freqs), freqs)
            else:  # Olmo2RotaryEmbedding keeps cos / sin in fp32
                dt = torch.float32 if self.cfg["family"] == "olmo2" else hs.dtype
                pos_emb = rope_cos_sin(self.inv_freq, position_ids, dt, repeat=self.cfg["family"] != "gpt_oss")
        hs = run_layers(self, self.layers, hs, lambda i, x: (x, mask, position_ids, cache_position, pos_emb))
        with region("outside"):
            hs = self.norm(hs)
        with region("loss"):
            logits = self.lm_head(hs)
            cap = self.cfg.get("final_logit_softcapping")
            if cap is not None:  # Gemma2ForCausalLM
                logits = torch.tanh(logits / cap) * cap
            loss = causal_lm_loss(logits, labels, self.cfg["vocab_size"])
        return loss


# ----------------------------------------------------------------------------------------
# gpt-oss (transformers >= 4.57 models/gpt_oss/modeling_gpt_oss.py, training path)
# ----------------------------------------------------------------------------------------
class GptOssRMSNorm(LlamaRMSNorm):
    """Llama's normalization; the weight multiplies the fp32 result before the cast back."""

    def forward(self, x):
        return (self.weight * self.normalized_fp32(x)).to(x.dtype)


def gpt_oss_rotary(x, cos, sin):
    first, second = torch.chunk(x, 2, dim=-1)
    return torch.cat((first * cos - second * sin, second * cos + first * sin), dim=-1)


class GptOssAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, nh, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.hd, self.nh, self.kv = cfg["head_dim"], nh, kv
        self.scaling = self.hd ** -0.5
        self.q_proj = make_linear(cfg, h, nh * self.hd, True, "q_proj")
        self.k_proj = make_linear(cfg, h, kv * self.hd, True, "k_proj")
        self.v_proj = make_linear(cfg, h, kv * self.hd, True, "v_proj")
        self.o_proj = make_linear(cfg, nh * self.hd, h, True, "o_proj")
        self.sinks = nn.Parameter(torch.zeros(nh))

    def forward(self, x, mask, cos, sin):
        b, s, _ = x.shape
        shp = (b, s, -1, self.hd)
        q = self.q_proj(x).view(shp).transpose(1, 2)
        k = self.k_proj(x).view(shp).transpose(1, 2)
        v = self.v_proj(x).view(shp).transpose(1, 2)
        c, si = cos.unsqueeze(1), sin.unsqueeze(1)
        q, k = gpt_oss_rotary(q, c, si), gpt_oss_rotary(k, c, si)
        if self.cfg["_attn"] == "flash":  # a flash kernel that takes the sinks (vllm-flash-attn3): q, k, v, out, lse
            o = flash_attn(q, k, v, True, self.scaling, 0.0).transpose(1, 2).contiguous()
        else:  # eager_attention_forward with sinks
            kk = repeat_kv(k, self.nh // self.kv)
            vv = repeat_kv(v, self.nh // self.kv)
            w = torch.matmul(q, kk.transpose(2, 3)) * self.scaling
            w = w + mask[:, :, :, : kk.shape[-2]]
            sinks = self.sinks.reshape(1, -1, 1, 1).expand(b, -1, s, -1)
            comb = torch.cat([w, sinks], dim=-1)
            comb = comb - comb.max(dim=-1, keepdim=True).values
            probs = F.softmax(comb, dim=-1, dtype=comb.dtype)
            o = torch.matmul(probs[..., :-1], vv).transpose(1, 2).contiguous()
        return self.o_proj(o.reshape(b, s, -1).contiguous())


class GptOssMoe(nn.Module):
    """GptOssTopKRouter + GptOssExperts (training loop; expert weights indexed with a 0-d index: views)."""

    def __init__(self, cfg):
        super().__init__()
        h, f, E = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_local_experts"]
        self.h, self.E, self.k = h, E, cfg["num_experts_per_tok"]
        self.router_weight = nn.Parameter(torch.empty(E, h))
        self.router_bias = nn.Parameter(torch.zeros(E))
        self.grouped = cfg.get("_experts_impl") == "grouped_mm"
        if self.grouped:  # transformers 5's GptOssExperts through grouped_mm
            self.experts = grouped_experts(E, h, f, "gpt_oss")
        else:
            self.gate_up_proj = nn.Parameter(torch.empty(E, h, 2 * f))
            self.gate_up_proj_bias = nn.Parameter(torch.zeros(E, 2 * f))
            self.down_proj = nn.Parameter(torch.empty(E, f, h))
            self.down_proj_bias = nn.Parameter(torch.zeros(E, h))
        self.alpha, self.limit = 1.702, 7.0
        self.balanced = cfg.get("_balanced", False)
        self.last_counts = None

    def forward(self, x):
        b = x.shape[0]
        hs = x.reshape(-1, self.h)
        logits = F.linear(hs, self.router_weight, self.router_bias)
        top_v, top_i = torch.topk(logits, self.k, dim=-1)
        if self.balanced:
            top_i = balanced_routing(top_i, self.E)
        top_v = F.softmax(top_v, dim=1, dtype=top_v.dtype)
        if self.grouped:  # GptOssMLP.forward (5.x): experts(hidden_states, router_indices, router_scores)
            self.last_counts = expert_counts(top_i, self.E)
            return self.experts(hs, top_i, top_v).view(b, -1, self.h)
        scores = torch.zeros_like(logits).scatter_(1, top_i, top_v)
        out_all = torch.zeros_like(hs)
        with torch.no_grad():
            mask = F.one_hot(top_i, num_classes=self.E + 1).permute(2, 1, 0)
            hit = torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero()
        counts = [0] * self.E
        for e in hit[:]:
            e = e[0]
            if e == self.E:
                continue
            with torch.no_grad():
                _, tok = torch.where(mask[e])
            counts[int(e)] = int(tok.shape[0])
            cur = hs[tok]
            gate_up = cur @ self.gate_up_proj[e] + self.gate_up_proj_bias[e]
            gate, up = gate_up[..., ::2], gate_up[..., 1::2]
            gate = gate.clamp(min=None, max=self.limit)
            up = up.clamp(min=-self.limit, max=self.limit)
            glu = gate * torch.sigmoid(gate * self.alpha)
            out = ((up + 1) * glu) @ self.down_proj[e] + self.down_proj_bias[e]
            out_all.index_add_(0, tok, (out * scores[tok, e, None]).to(hs.dtype))
        self.last_counts = counts
        return out_all.view(b, -1, self.h)


class GptOssLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_layernorm = GptOssRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.post_attention_layernorm = GptOssRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.self_attn = GptOssAttention(cfg)
        self.mlp = GptOssMoe(cfg)

    def forward(self, hs, mask, position_ids, cache_position, pos_emb):
        cos, sin = pos_emb
        hs = hs + self.self_attn(self.input_layernorm(hs), mask, cos, sin)
        return hs + self.mlp(self.post_attention_layernorm(hs))



# ----------------------------------------------------------------------------------------
# DeepSeek-V3 / V2 / Kimi K2 / Moonlight (transformers models/deepseek_v3/modeling_deepseek_v3.py): multi-head latent
# attention (MLA), a sigmoid router with a score-correction bias, routed experts in a loop and shared experts.
# ----------------------------------------------------------------------------------------
def rotary_interleave(x, cos, sin):
    """apply_rotary_pos_emb_interleave (rope_interleave=True, the DeepseekV3Config default)."""
    b, h, s, d = x.shape
    x = x.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
    return (x * cos) + (rotate_half(x) * sin)


class DeepseekAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
        self.nh, self.qlr, self.kvlr = nh, cfg["q_lora_rank"], cfg["kv_lora_rank"]
        self.nope, self.rope, self.vd = cfg["qk_nope_head_dim"], cfg["qk_rope_head_dim"], cfg["v_head_dim"]
        self.qkd = self.nope + self.rope
        if self.qlr is None:
            self.q_proj = make_linear(cfg, h, nh * self.qkd, False, "q_proj")
        else:
            self.q_a_proj = make_linear(cfg, h, self.qlr, False, "q_a_proj")
            self.q_a_layernorm = LlamaRMSNorm(self.qlr, cfg["rms_norm_eps"])
            self.q_b_proj = make_linear(cfg, self.qlr, nh * self.qkd, False, "q_b_proj")
        self.kv_a_proj_with_mqa = make_linear(cfg, h, self.kvlr + self.rope, False, "kv_a_proj_with_mqa")
        self.kv_a_layernorm = LlamaRMSNorm(self.kvlr, cfg["rms_norm_eps"])
        self.kv_b_proj = make_linear(cfg, self.kvlr, nh * (self.nope + self.vd), False, "kv_b_proj")
        self.o_proj = make_linear(cfg, nh * self.vd, h, False, "o_proj")
        self.scaling = self.qkd ** -0.5

    def forward(self, x, mask, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x) if self.qlr is None else self.q_b_proj(self.q_a_layernorm(self.q_a_proj(x)))
        q = q.view(b, s, -1, self.qkd).transpose(1, 2)
        q_pass, q_rot = torch.split(q, [self.nope, self.rope], dim=-1)
        ckv = self.kv_a_proj_with_mqa(x)
        k_pass, k_rot = torch.split(ckv, [self.kvlr, self.rope], dim=-1)
        k_pass = self.kv_b_proj(self.kv_a_layernorm(k_pass)).view(b, s, -1, self.nope + self.vd).transpose(1, 2)
        k_pass, v = torch.split(k_pass, [self.nope, self.vd], dim=-1)
        k_rot = k_rot.view(b, 1, s, self.rope)
        c, si = cos.unsqueeze(1), sin.unsqueeze(1)
        q_rot, k_rot = rotary_interleave(q_rot, c, si), rotary_interleave(k_rot, c, si)
        k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
        q = torch.cat((q_pass, q_rot), dim=-1)
        k = torch.cat((k_pass, k_rot), dim=-1)
        p = self.cfg.get("attention_dropout", 0.0)
        if self.cfg["_attn"] == "flash":  # flash_attention_2 needs one head width: v is padded, the output sliced
            v = F.pad(v, [0, self.qkd - self.vd])
            o = flash_attn(q, k, v, True, self.scaling, p).transpose(1, 2)[..., : self.vd]
        else:
            o = eager_attention(q, k, v, mask, self.scaling, 1, p)
        return self.o_proj(o.reshape(b, s, -1).contiguous())


class DeepseekMoE(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h = cfg["hidden_size"]
        self.E, self.k = cfg["n_routed_experts"], cfg["num_experts_per_tok"]
        self.grouped = cfg.get("_experts_impl") == "grouped_mm"
        if self.grouped:
            self.experts = grouped_experts(self.E, h, cfg["moe_intermediate_size"], "mixtral")
        else:
            self.experts = nn.ModuleList([LlamaMLP(cfg, cfg["moe_intermediate_size"]) for _ in range(self.E)])
        self.gate_weight = nn.Parameter(torch.empty(self.E, h))  # DeepseekV3TopkRouter.weight (not an nn.Linear)
        self.register_buffer("e_score_correction_bias", torch.zeros(self.E))
        self.shared_experts = LlamaMLP(cfg, cfg["moe_intermediate_size"] * cfg["n_shared_experts"])
        self.n_group, self.topk_group, self.scale = cfg["n_group"], cfg["topk_group"], cfg["routed_scaling_factor"]
        self.balanced = cfg.get("_balanced", False)
        self.last_counts = None

    def forward(self, hs):
        res = hs
        b, s, h = hs.shape
        x = hs.view(-1, h)
        logits = F.linear(x.type(torch.float32), self.gate_weight.type(torch.float32))
        scores = logits.sigmoid()
        with torch.no_grad():  # get_topk_indices
            sc = scores.view(-1, self.E) + self.e_score_correction_bias.unsqueeze(0)
            gs = sc.view(-1, self.n_group, self.E // self.n_group).topk(min(2, self.E // self.n_group), dim=-1)[0].sum(dim=-1)
            gi = torch.topk(gs, k=self.topk_group, dim=-1, sorted=False)[1]
            gm = torch.zeros_like(gs).scatter_(1, gi, 1)
            sm = gm.unsqueeze(-1).expand(-1, self.n_group, self.E // self.n_group).reshape(-1, self.E)
            sel = torch.topk(sc.masked_fill(~sm.bool(), 0.0), k=self.k, dim=-1, sorted=False)[1]
            if self.balanced:
                sel = balanced_routing(sel, self.E)
        w = scores.gather(1, sel)
        w /= w.sum(dim=-1, keepdim=True) + 1e-20  # norm_topk_prob
        w = w * self.scale
        if self.grouped:  # DeepseekV3MoE.forward (5.x): experts(hidden_states, topk_indices, topk_weights), fp32 weights
            self.last_counts = expert_counts(sel, self.E)
            return self.experts(x, sel, w).view(b, s, h) + self.shared_experts(res)
        final = torch.zeros_like(x, dtype=w.dtype)
        mask = F.one_hot(sel, num_classes=self.E).permute(2, 0, 1)
        counts = []
        for e in range(self.E):
            tok, widx = torch.where(mask[e])
            counts.append(int(tok.numel()))
            if tok.numel() > 0:
                out = self.experts[e](x[tok]) * w[tok, widx].unsqueeze(-1)
                final.index_add_(0, tok, out)
        self.last_counts = counts
        return final.type(x.dtype).view(b, s, h) + self.shared_experts(res)


class DeepseekLayer(nn.Module):
    """DeepseekV3DecoderLayer; with LlamaAttention, Glm4MoeDecoderLayer (transformers 4.54-4.57: Llama's attention with
    q/k/v biases, partial rotary and optional per-head q/k norms, then the same dense first layers and MoE block)."""

    def __init__(self, cfg, idx, attention=None):
        super().__init__()
        self.input_layernorm = LlamaRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.post_attention_layernorm = LlamaRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.self_attn = (attention or DeepseekAttention)(cfg)
        self.mlp = DeepseekMoE(cfg) if idx >= cfg["first_k_dense_replace"] else LlamaMLP(cfg)

    def forward(self, hs, mask, position_ids, cache_position, pos_emb):
        cos, sin = pos_emb
        hs = hs + self.self_attn(self.input_layernorm(hs), mask, cos, sin)
        return hs + self.mlp(self.post_attention_layernorm(hs))


# ----------------------------------------------------------------------------------------
# Llama 4 text model (modeling_llama4.py: Llama4TextAttention, Llama4TextMoe, Llama4TextDecoderLayer)
# ----------------------------------------------------------------------------------------
def llama4_rotary(xq, xk, freqs_cis):
    """apply_rotary_emb: complex multiply in fp32, cast back to the input dtype."""
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    xq_out = torch.view_as_real(xq_ * freqs_cis[:, :, None, :]).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis[:, :, None, :]).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def llama4_l2norm(x, eps):
    """Llama4TextL2Norm: no weight; x.float() normalised by its RMS, cast back."""
    x32 = x.float()
    return (x32 * torch.rsqrt(mean_lastdim(x32.pow(2)) + eps)).type_as(x)


def llama4_eager_attention(q, k, v, mask, scaling, n_rep, p):
    """Llama 4's eager_attention_forward: the softmax in the scores' dtype (CUDA autocast still runs it in fp32)."""
    k = repeat_kv(k, n_rep)
    v = repeat_kv(v, n_rep)
    w = torch.matmul(q, k.transpose(2, 3)) * scaling
    if mask is not None:
        w = w + mask[:, :, :, : k.shape[-2]]
    w = F.softmax(cuda_fp32(w), dim=-1)
    w = dropout(w, p)
    return torch.matmul(w, v).transpose(1, 2).contiguous()


def attend(mod, q, k, v, mask, eager=None):
    """flash_attention_2 or the eager path on (b, heads, s, d) q/k/v, then o_proj over the merged heads."""
    b, s = q.shape[0], q.shape[2]
    p = mod.cfg.get("attention_dropout", 0.0)
    if mod.cfg["_attn"] == "flash":
        o = flash_attn(q, k, v, True, mod.scaling, p).transpose(1, 2).contiguous()
    else:
        o = (eager or eager_attention)(q, k, v, mask, mod.scaling, mod.nh // mod.kv, p)
    return mod.o_proj(o.reshape(b, s, -1).contiguous())


class Llama4Attention(nn.Module):
    def __init__(self, cfg, idx):
        super().__init__()
        self.cfg = cfg
        h, nh, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.hd, self.nh, self.kv = cfg["head_dim"], nh, kv
        self.scaling = self.hd ** -0.5
        self.use_rope = bool(cfg["no_rope_layers"][idx])
        self.q_proj = make_linear(cfg, h, nh * self.hd, False, "q_proj")
        self.k_proj = make_linear(cfg, h, kv * self.hd, False, "k_proj")
        self.v_proj = make_linear(cfg, h, kv * self.hd, False, "v_proj")
        self.o_proj = make_linear(cfg, nh * self.hd, h, False, "o_proj")
        self.qk_norm = cfg.get("use_qk_norm") and self.use_rope
        self.tuning = cfg.get("attn_temperature_tuning") and not self.use_rope

    def forward(self, x, mask, freqs_cis, cache_position):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, -1, self.hd)
        k = self.k_proj(x).view(b, s, -1, self.hd)
        v = self.v_proj(x).view(b, s, -1, self.hd).transpose(1, 2)
        if self.use_rope:
            q, k = llama4_rotary(q, k, freqs_cis)
        if self.qk_norm:
            q, k = llama4_l2norm(q, self.cfg["rms_norm_eps"]), llama4_l2norm(k, self.cfg["rms_norm_eps"])
        if self.tuning:
            scales = torch.log1p(torch.floor((cache_position.float() + 1.0) / self.cfg["floor_scale"])) * self.cfg["attn_scale"] + 1.0
            q = (q * scales.view((1, s, 1, 1)).expand((b, s, 1, 1))).to(q.dtype)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        return attend(self, q, k, v, mask, llama4_eager_attention)


class Llama4Moe(nn.Module):
    """Llama4TextMoe: every token through every expert (bmm over E), scaled by its sigmoid score (0 off the top-k)."""

    def __init__(self, cfg):
        super().__init__()
        h, E, f = cfg["hidden_size"], cfg["num_local_experts"], cfg["intermediate_size"]
        self.h, self.E, self.k = h, E, cfg["num_experts_per_tok"]
        self.gate_up_proj = nn.Parameter(torch.zeros(E, h, 2 * f))
        self.down_proj = nn.Parameter(torch.zeros(E, f, h))
        self.router = make_linear(cfg, h, E, False, "router")
        self.shared_expert = LlamaMLP(cfg, f)
        self.act = ACT[cfg["hidden_act"]]
        self.last_counts = None

    def forward(self, hs):
        x = hs.reshape(-1, self.h)
        logits = self.router(x)
        top_v, top_i = torch.topk(logits, self.k, dim=1)
        scores = torch.full_like(logits, float("-inf")).scatter_(1, top_i, top_v)
        scores = torch.sigmoid(scores.float()).to(scores.dtype)
        routed_in = x.repeat(scores.shape[1], 1) * scores.transpose(0, 1).reshape(-1, 1)
        gate_up = torch.bmm(routed_in.view(self.E, -1, self.h), self.gate_up_proj)
        gate, up = gate_up.chunk(2, dim=-1)
        nxt = torch.bmm(up * self.act(gate), self.down_proj).view(-1, self.h)
        out = self.shared_expert(x)
        out.add_(nxt.reshape(self.E, -1, self.h).sum(dim=0))
        self.last_counts = torch.bincount(top_i.flatten(), minlength=self.E).tolist()
        return out


class Llama4Layer(nn.Module):
    def __init__(self, cfg, idx):
        super().__init__()
        self.input_layernorm = LlamaRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.post_attention_layernorm = LlamaRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.self_attn = Llama4Attention(cfg, idx)
        self.mlp = Llama4Moe(cfg) if idx in cfg["moe_layers"] else LlamaMLP(cfg, cfg["intermediate_size_mlp"])

    def forward(self, hs, mask, position_ids, cache_position, pos_emb):
        hs = hs + self.self_attn(self.input_layernorm(hs), mask, pos_emb, cache_position)
        return hs + self.mlp(self.post_attention_layernorm(hs)).view(hs.shape)


# ----------------------------------------------------------------------------------------
# OLMo 2 (modeling_olmo2.py): norms after attention and MLP, q/k norms over the whole projections
# ----------------------------------------------------------------------------------------
class Olmo2Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, nh, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.hd, self.nh, self.kv = cfg.get("head_dim") or h // nh, nh, kv
        self.scaling = self.hd ** -0.5
        self.q_proj = make_linear(cfg, h, nh * self.hd, False, "q_proj")
        self.k_proj = make_linear(cfg, h, kv * self.hd, False, "k_proj")
        self.v_proj = make_linear(cfg, h, kv * self.hd, False, "v_proj")
        self.o_proj = make_linear(cfg, nh * self.hd, h, False, "o_proj")
        self.q_norm = GptOssRMSNorm(nh * self.hd, cfg["rms_norm_eps"])  # Olmo2RMSNorm: (weight * x_fp32).to(dtype)
        self.k_norm = GptOssRMSNorm(kv * self.hd, cfg["rms_norm_eps"])

    def forward(self, x, mask, cos, sin):
        b, s, _ = x.shape
        shp = (b, s, -1, self.hd)
        q = self.q_norm(self.q_proj(x)).view(shp).transpose(1, 2)
        k = self.k_norm(self.k_proj(x)).view(shp).transpose(1, 2)
        v = self.v_proj(x).view(shp).transpose(1, 2)
        qt, kt = q.dtype, k.dtype
        q, k = apply_rotary(q, k, cos, sin)  # cos/sin stay fp32 (Olmo2RotaryEmbedding), the results are cast back
        q, k = q.to(qt), k.to(kt)
        return attend(self, q, k, v, mask)


class Olmo2Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.self_attn = Olmo2Attention(cfg)
        self.mlp = LlamaMLP(cfg)
        self.post_attention_layernorm = GptOssRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.post_feedforward_layernorm = GptOssRMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])

    def forward(self, hs, mask, position_ids, cache_position, pos_emb):
        cos, sin = pos_emb
        hs = hs + self.post_attention_layernorm(self.self_attn(hs, mask, cos, sin))
        return hs + self.post_feedforward_layernorm(self.mlp(hs))


# ----------------------------------------------------------------------------------------
# Qwen3.5 dense text model (modeling_qwen3_5.py on transformers main @ 009e78d6: Qwen3_5TextModel, Qwen3_5DecoderLayer,
# Qwen3_5Attention, Qwen3_5GatedDeltaNet, Qwen3_5MLP, Qwen3_5RMSNorm). Layers alternate per layer_types between the
# Gated DeltaNet token mixer (gated_deltanet.py, variant qwen3_5_main on the fast path) and gated full attention.
# ----------------------------------------------------------------------------------------
if HERE not in sys.path:
    sys.path.insert(0, HERE)

# PEFT target_modules="all-linear" on Qwen3.5 (every nn.Linear but lm_head; conv1d is not one)
QWEN3_5_LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a",
                        "out_proj", "gate_proj", "up_proj", "down_proj"]


class _CausalConv1dFn(gdn.CausalConv1dFn):
    """gated_deltanet.CausalConv1dFn (same forward, same saved x and weight); its emulated backward runs in fp32, because
    under AMP x is bf16 while the weight stays fp32 (the CUDA kernel takes mixed input / weight dtypes)."""

    @staticmethod
    def backward(ctx, dout):
        x, weight = ctx.saved_tensors
        with torch.enable_grad():
            xx, ww = x.detach().float().requires_grad_(), weight.detach().float().requires_grad_()
            dx, dw = torch.autograd.grad(gdn._causal_conv_ref(xx, ww, ctx.activation), (xx, ww), dout.float())
        return dx.to(x.dtype), dw.to(weight.dtype), None, None


def _causal_conv1d_fn(x, weight, bias=None, activation=None, seq_idx=None):
    return _CausalConv1dFn.apply(x, weight, bias, activation)


def qwen3_5_gated_deltanet(cfg):
    """Qwen3_5GatedDeltaNet as transformers main runs it with the kernels installed (gated_deltanet.py variant
    'qwen3_5_main', conv 'cuda', core 'fla', gva): causal_conv1d_fn, fla >= 0.5 chunk_gated_delta_rule with q / k kept at
    the key heads (fla_needs_equal_qk_heads() is False), and the torch Qwen3_5RMSNormGated. Its nn.Linear projections
    are wrapped like make_linear does when LoRA targets them."""
    dims = dict(hidden=cfg["hidden_size"], Hk=cfg["linear_num_key_heads"], Hv=cfg["linear_num_value_heads"],
                dk=cfg["linear_key_head_dim"], dv=cfg["linear_value_head_dim"], K=cfg["linear_conv_kernel_dim"])
    m = gdn.GatedDeltaNet(dims, variant="qwen3_5_main", conv="cuda", core="fla", gva=True)
    assert m.layer_norm_epsilon == cfg["rms_norm_eps"] and not m.repeat_qk_heads
    assert m.causal_conv1d_fn is gdn.causal_conv1d_fn
    m.causal_conv1d_fn = _causal_conv1d_fn
    lora = cfg.get("_lora")
    if lora:
        assert not lora.get("quantized")
        for name in ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj"):
            if lora["targets"] == "all-linear" or name in lora["targets"]:
                setattr(m, name, LoraLinear(getattr(m, name), lora["r"], lora["alpha"], lora["dropout"]))
    return m


class Qwen3_5Attention(nn.Module):
    """Qwen3_5Attention (= Qwen3NextAttention): q_proj twice as wide, chunked per head into the query and an output
    gate; zero-centred q / k norms over head_dim; the first partial_rotary_factor of each head rotated; the attention
    output multiplied by sigmoid(gate) before o_proj."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, nh, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.hd, self.nh, self.kv = cfg["head_dim"], nh, kv
        self.scaling = self.hd ** -0.5
        bias = cfg["attention_bias"]
        self.q_proj = make_linear(cfg, h, nh * self.hd * 2, bias, "q_proj")
        self.k_proj = make_linear(cfg, h, kv * self.hd, bias, "k_proj")
        self.v_proj = make_linear(cfg, h, kv * self.hd, bias, "v_proj")
        self.o_proj = make_linear(cfg, nh * self.hd, h, bias, "o_proj")
        self.q_norm = GemmaRMSNorm(self.hd, cfg["rms_norm_eps"])  # Qwen3_5RMSNorm: (1 + weight) in fp32, cast back
        self.k_norm = GemmaRMSNorm(self.hd, cfg["rms_norm_eps"])

    def forward(self, x, mask, cos, sin):
        b, s, _ = x.shape
        shp = (b, s, -1, self.hd)
        q, gate = torch.chunk(self.q_proj(x).view(b, s, -1, self.hd * 2), 2, dim=-1)
        gate = gate.reshape(b, s, -1)
        q = self.q_norm(q.view(shp)).transpose(1, 2)
        k = self.k_norm(self.k_proj(x).view(shp)).transpose(1, 2)
        v = self.v_proj(x).view(shp).transpose(1, 2)
        q, k = apply_rotary_partial(q, k, cos, sin)
        p = self.cfg.get("attention_dropout", 0.0)
        if self.cfg["_attn"] == "flash":
            o = flash_attn(q, k, v, True, self.scaling, p).transpose(1, 2).contiguous()
        else:
            o = eager_attention(q, k, v, mask, self.scaling, self.nh // self.kv, p)
        o = o.reshape(b, s, -1).contiguous()
        o = o * torch.sigmoid(gate)
        return self.o_proj(o)


class Qwen3_5Layer(nn.Module):
    """Qwen3_5DecoderLayer: input_layernorm -> token mixer (linear_attn or self_attn per layer_types) -> residual ->
    post_attention_layernorm -> SwiGLU MLP -> residual."""

    def __init__(self, cfg, idx):
        super().__init__()
        h = cfg["hidden_size"]
        self.block_type = cfg["layer_types"][idx]
        if self.block_type == "linear_attention":
            self.linear_attn = qwen3_5_gated_deltanet(cfg)
        else:
            self.self_attn = Qwen3_5Attention(cfg)
        self.mlp = LlamaMLP(cfg)
        self.input_layernorm = GemmaRMSNorm(h, cfg["rms_norm_eps"])
        self.post_attention_layernorm = GemmaRMSNorm(h, cfg["rms_norm_eps"])

    def forward(self, hs, mask, position_ids, pos_emb):
        cos, sin = pos_emb
        res = hs
        hs = self.input_layernorm(hs)
        if self.block_type == "linear_attention":  # the linear-attention mask is None without padding
            hs = self.linear_attn(hs)
        else:
            hs = self.self_attn(hs, mask, cos, sin)
        hs = res + hs
        res = hs
        hs = self.mlp(self.post_attention_layernorm(hs))
        return res + hs


class Qwen3_5Text(nn.Module):
    """Qwen3_5ForCausalLM over Qwen3_5TextModel."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, V = cfg["hidden_size"], cfg["vocab_size"]
        self.embed_tokens = nn.Embedding(V, h)
        self.layers = nn.ModuleList([Qwen3_5Layer(cfg, i) for i in range(cfg["num_hidden_layers"])])
        self.norm = GemmaRMSNorm(h, cfg["rms_norm_eps"])
        rd = int(cfg["head_dim"] * cfg["partial_rotary_factor"])
        self.register_buffer("inv_freq", 1.0 / (cfg["rope_theta"] ** (torch.arange(0, rd, 2).float() / rd)), persistent=False)
        self.mrope_section = [11, 11, 10]  # rope_parameters.get("mrope_section", [11, 11, 10])
        self.lm_head = nn.Linear(h, V, bias=False)
        if cfg.get("tie_word_embeddings"):
            self.lm_head.weight = self.embed_tokens.weight

    def rotary(self, x, position_ids):
        """Qwen3_5TextRotaryEmbedding: (3, b, s) position ids (text: three equal rows), interleaved M-RoPE
        recomposition, cos / sin (b, s, rotary_dim) in the hidden states' dtype."""
        with torch.no_grad():
            inv = self.inv_freq[None, None, :, None].float().expand(3, position_ids.shape[1], -1, 1)
            pos = position_ids[:, :, None, :].float()
            with torch.autocast("cpu", enabled=False):
                freqs = (inv.float() @ pos.float()).transpose(2, 3)
                cos, sin = freqs.cos(), freqs.sin()

            def recompose(freq):
                thw = freq[0]
                for dim, offset in enumerate((1, 2), start=1):
                    idx = slice(offset, self.mrope_section[dim] * 3, 3)
                    thw[..., idx] = freq[dim, ..., idx]
                return torch.cat((thw, thw), dim=-1)

            sin, cos = recompose(sin), recompose(cos)
        return cos.to(x.dtype), sin.to(x.dtype)

    def forward(self, ids, labels):
        b, s = ids.shape
        with region("outside"):
            hs = self.embed_tokens(ids)
            position_ids = torch.arange(s).view(1, 1, -1).expand(4, b, -1)
            text_position_ids, position_ids = position_ids[0], position_ids[1:]
            masks = {"full_attention": None if self.cfg["_attn"] == "flash" else causal_float_mask(b, s, hs.dtype),
                     "linear_attention": None}  # create_recurrent_attention_mask: None without padding
            pos_emb = self.rotary(hs, position_ids)
            if REC is not None:
                # Made once per forward and handed to every layer (HF passes them to all decoder layers): shared across
                # layers even when, with one full-attention layer, a single layer saves them (cos / sin by the rotary,
                # the eager mask held by checkpointing).
                for t in (masks["full_attention"], text_position_ids) + tuple(pos_emb):
                    if t is not None:
                        REC.shared_ptrs.add(storage_key(t)[0])
        types = self.cfg["layer_types"]
        hs = run_layers(self, self.layers, hs, lambda i, x: (x, masks[types[i]], text_position_ids, pos_emb))
        with region("outside"):
            hs = self.norm(hs)
        with region("loss"):
            logits = self.lm_head(hs)
            loss = causal_lm_loss(logits, labels, self.cfg["vocab_size"])
        return loss


# ----------------------------------------------------------------------------------------
# Falcon-H1 (falcon_h1; modeling_falcon_h1.py @ 001f85b3: FalconH1ForCausalLM, FalconH1DecoderLayer, FalconH1Attention,
# FalconH1Mixer, FalconH1MLP, FalconH1RMSNorm). Every layer runs a Mamba2 mixer and llama attention side by side on the
# same normed input, then a SwiGLU MLP; the µP multipliers are scalar products (new tensors that nothing saves, except
# as the next op's input) and the mixer's mup_vector buffer.
# ----------------------------------------------------------------------------------------
import mamba2 as m2  # noqa: E402  (same folder: the Mamba2 mixer, variant falcon_h1, and its kernel emulations)


class _FusedScanAutocastFn(m2.MambaSplitConv1dScanCombinedFn):
    """mamba2.py's MambaSplitConv1dScanCombinedFn (same forward, same saved tensors) plus what the real forward does
    under autocast (ssd_combined.py @ d757aef: `@custom_fwd` without cast_inputs, so zxbcdt arrives and is kept in
    whatever dtype it has, and out_x follows it; then `if torch.is_autocast_enabled(): out, outproj_weight =
    out.to(dtype), outproj_weight.to(dtype)` before `F.linear`): the out_proj weight it saves is a 16-bit copy of the
    fp32 parameter (real memory, about 2 bytes per out_proj weight; Recorder files it as savedParamCastBytes) and the
    output is 16-bit."""

    @staticmethod
    def forward(ctx, zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size, headdim, ngroups,
                rmsnorm_weight, rmsnorm_eps, outproj_weight, outproj_bias, norm_before_gate, return_final_states):
        out = m2.MambaSplitConv1dScanCombinedFn.forward(
            ctx, zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size, headdim, ngroups, rmsnorm_weight,
            rmsnorm_eps, outproj_weight, outproj_bias, norm_before_gate, return_final_states)
        ctx.outproj_dtypes = (outproj_weight.dtype, None if outproj_bias is None else outproj_bias.dtype)
        if autocast_on():
            assert not return_final_states
            saved = list(ctx.to_save)
            saved[11] = outproj_weight.to(torch.bfloat16)
            saved[12] = None if outproj_bias is None else outproj_bias.to(torch.bfloat16)
            ctx.save_for_backward(*saved)  # replaces the first call's list (packed once, after forward returns)
            out = out.to(torch.bfloat16)
        return out

    @staticmethod
    def backward(ctx, dout, *args):
        grads = list(m2.MambaSplitConv1dScanCombinedFn.backward(ctx, dout, *args))
        for i, dt in zip((11, 12), ctx.outproj_dtypes):  # gradients of the fp32 parameters, not of their 16-bit copies
            if grads[i] is not None:
                grads[i] = grads[i].to(dt)
        return tuple(grads)


def _mamba_split_conv1d_scan_combined(zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size, seq_idx=None,
                                      activation="silu", rmsnorm_weight=None, rmsnorm_eps=1e-6, outproj_weight=None,
                                      outproj_bias=None, headdim=None, ngroups=1, norm_before_gate=True,
                                      return_final_states=False):
    assert seq_idx is None and activation in ("silu", "swish")
    return _FusedScanAutocastFn.apply(zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size, headdim, ngroups,
                                      rmsnorm_weight, rmsnorm_eps, outproj_weight, outproj_bias, norm_before_gate,
                                      return_final_states)


# Mamba2Mixer.cuda_kernels_forward looks the kernel up in mamba2's namespace at call time: in this process it gets the
# autocast-aware version (identical without autocast).
m2.mamba_split_conv1d_scan_combined = _mamba_split_conv1d_scan_combined

# The linears a Falcon-H1 LoRA targets here: PEFT all-linear would also take the mixer's out_proj, but on the fused path
# the kernel multiplies by out_proj.weight itself (PEFT's LoRA layer forwards .weight to the base weight), so an
# adapter there would never run.
FALCON_H1_LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "in_proj"]


def falcon_h1_mup_vector(cfg):
    """compute_mup_vector(config): (1, 1, 2d + 2GN + H), the five ssm_multipliers over z, x, B, C, dt."""
    d, gn, H = cfg["mamba_d_ssm"], cfg["mamba_n_groups"] * cfg["mamba_d_state"], cfg["mamba_n_heads"]
    m = cfg["ssm_multipliers"]
    v = torch.ones(1, 1, 2 * d + 2 * gn + H)
    v[:, :, :d] *= m[0]
    v[:, :, d:2 * d] *= m[1]
    v[:, :, 2 * d:2 * d + gn] *= m[2]
    v[:, :, 2 * d + gn:2 * d + 2 * gn] *= m[3]
    v[:, :, 2 * d + 2 * gn:] *= m[4]
    return v


def falcon_h1_mixer(cfg):
    """FalconH1Mixer = mamba2.Mixer(variant 'falcon_h1'), path 'fused' (mamba_kernels cuda: cuda_kernels_forward with
    self.training and no cache, i.e. mamba_split_conv1d_scan_combined with norm_before_gate=False) or 'torch'
    (torch_forward); its multipliers, mup_vector and norm eps from the config; in_proj wrapped when LoRA targets it."""
    d, H, P = cfg["mamba_d_ssm"], cfg["mamba_n_heads"], cfg["mamba_d_head"]
    assert H * P == d and H % cfg["mamba_n_groups"] == 0
    # mamba2.Mixer: conv bias on, in_proj / out_proj without bias, silu, time_step_limit (0, inf): the checkpoints' values
    assert cfg["mamba_conv_bias"] and not cfg["mamba_proj_bias"] and not cfg["projectors_bias"] and cfg["hidden_act"] == "silu"
    pt = dict(hidden=cfg["hidden_size"], H=H, P=P, G=cfg["mamba_n_groups"], N=cfg["mamba_d_state"],
              K=cfg["mamba_d_conv"], C=cfg["mamba_chunk_size"])
    norm = "none" if not cfg["mamba_rms_norm"] else ("norm_first" if cfg["mamba_norm_before_gate"] else "gate_first")
    m = m2.Mixer(pt, variant="falcon_h1", path={"cuda": "fused", "torch": "torch"}[cfg["_mamba_kernels"]], falcon_norm=norm)
    m.ssm_in_multiplier = cfg["ssm_in_multiplier"]
    m.mup_vector = falcon_h1_mup_vector(cfg)  # the registered (non-persistent) buffer, replaced
    if cfg["mamba_rms_norm"]:
        m.norm.variance_epsilon = cfg["rms_norm_eps"]
    lora = cfg.get("_lora")
    if lora:
        assert isinstance(lora["targets"], list) and not lora.get("quantized")
        assert "out_proj" not in lora["targets"] or m.path == "torch", "the fused kernel bypasses an out_proj adapter"
        for name in ("in_proj", "out_proj"):
            if name in lora["targets"]:
                setattr(m, name, LoraLinear(getattr(m, name), lora["r"], lora["alpha"], lora["dropout"]))
    return m


class FalconH1Attention(LlamaAttention):
    """FalconH1Attention: llama attention (head_dim from the config) with the k_proj output times key_multiplier."""

    def __init__(self, cfg):
        super().__init__(cfg)
        assert self.hd == cfg["head_dim"] and not cfg["attention_bias"]
        self.key_multiplier = cfg["key_multiplier"]

    def forward(self, x, mask, cos, sin):
        b, s, _ = x.shape
        shp = (b, s, -1, self.hd)
        q = self.q_proj(x).view(shp).transpose(1, 2)
        k = self.k_proj(x).view(shp).transpose(1, 2) * self.key_multiplier
        v = self.v_proj(x).view(shp).transpose(1, 2)
        q, k = apply_rotary(q, k, cos, sin)
        p = self.cfg.get("attention_dropout", 0.0)
        if self.cfg["_attn"] == "flash":
            o = flash_attn(q, k, v, True, self.scaling, p).transpose(1, 2).contiguous()
        else:
            o = eager_attention(q, k, v, mask, self.scaling, self.nh // self.kv, p)
        o = o.reshape(b, s, -1).contiguous()
        return self.o_proj(o)


class FalconH1MLP(nn.Module):
    """FalconH1MLP: y = up_proj(x) * act(gate_proj(x) * gate_multiplier); down_proj(y) * down_multiplier."""

    def __init__(self, cfg):
        super().__init__()
        h, f, bias = cfg["hidden_size"], cfg["intermediate_size"], cfg["mlp_bias"]
        self.gate_proj = make_linear(cfg, h, f, bias, "gate_proj")
        self.up_proj = make_linear(cfg, h, f, bias, "up_proj")
        self.down_proj = make_linear(cfg, f, h, bias, "down_proj")
        self.act_fn = ACT[cfg["hidden_act"]]
        self.gate_multiplier, self.down_multiplier = cfg["mlp_multipliers"]

    def forward(self, x):
        y = self.up_proj(x) * self.act_fn(self.gate_proj(x) * self.gate_multiplier)
        return self.down_proj(y) * self.down_multiplier


class FalconH1Layer(nn.Module):
    """FalconH1DecoderLayer.forward: input_layernorm; mamba(normed) * ssm_out_multiplier; self_attn(normed *
    attention_in_multiplier) * attention_out_multiplier; their sum onto the residual; pre_ff_layernorm; feed_forward;
    residual. FalconH1RMSNorm is llama's RMSNorm."""

    def __init__(self, cfg):
        super().__init__()
        h = cfg["hidden_size"]
        self.feed_forward = FalconH1MLP(cfg)
        self.mamba = falcon_h1_mixer(cfg)
        self.self_attn = FalconH1Attention(cfg)
        self.attention_in_multiplier = cfg["attention_in_multiplier"]
        self.ssm_out_multiplier = cfg["ssm_out_multiplier"]
        self.attn_out_multiplier = cfg["attention_out_multiplier"]
        self.input_layernorm = LlamaRMSNorm(h, cfg["rms_norm_eps"])
        self.pre_ff_layernorm = LlamaRMSNorm(h, cfg["rms_norm_eps"])

    def forward(self, hs, mask, position_ids, pos_emb):
        cos, sin = pos_emb
        residual = hs
        hs = self.input_layernorm(hs)
        mamba_hs = self.mamba(hs)  # mamba_attention_mask: None without padding (_update_mamba_mask)
        mamba_hs = mamba_hs * self.ssm_out_multiplier
        attn_hs = self.self_attn(hs * self.attention_in_multiplier, mask, cos, sin)
        attn_hs = attn_hs * self.attn_out_multiplier
        hs = mamba_hs + attn_hs
        hs = residual + hs
        residual = hs
        hs = self.pre_ff_layernorm(hs)
        hs = self.feed_forward(hs)
        return residual + hs


def falcon_h1_causal_mask(b, s, dtype):
    """FalconH1Model._update_causal_mask without an attention_mask (eager): target_length = s + 1 (past_seen_tokens +
    sequence_length + 1), triu(1), times (arange(target) > cache_position), expanded (a view) to (b, 1, s, s + 1)."""
    mn = torch.finfo(dtype).min
    m = torch.full((s, s + 1), mn, dtype=dtype).triu(1)
    m *= torch.arange(s + 1) > torch.arange(s).reshape(-1, 1)
    return m[None, None, :, :].expand(b, 1, -1, -1)


class FalconH1(nn.Module):
    """FalconH1ForCausalLM over FalconH1Model: embeddings times embedding_multiplier, the layers, final_layernorm,
    lm_head times lm_head_multiplier, ForCausalLMLoss."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, V = cfg["hidden_size"], cfg["vocab_size"]
        self.embed_tokens = nn.Embedding(V, h)
        self.layers = nn.ModuleList([FalconH1Layer(cfg) for _ in range(cfg["num_hidden_layers"])])
        self.final_layernorm = LlamaRMSNorm(h, cfg["rms_norm_eps"])
        hd = cfg["head_dim"]
        self.register_buffer("inv_freq", 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd)), persistent=False)
        self.lm_head = nn.Linear(h, V, bias=False)
        assert not cfg["tie_word_embeddings"]

    def forward(self, ids, labels):
        b, s = ids.shape
        with region("outside"):
            hs = self.embed_tokens(ids) * self.cfg["embedding_multiplier"]
            position_ids = torch.arange(s).unsqueeze(0)
            mask = None if self.cfg["_attn"] == "flash" else falcon_h1_causal_mask(b, s, hs.dtype)
            pos_emb = rope_cos_sin(self.inv_freq, position_ids, hs.dtype)
        hs = run_layers(self, self.layers, hs, lambda i, x: (x, mask, position_ids, pos_emb))
        with region("outside"):
            hs = self.final_layernorm(hs)
        with region("loss"):
            logits = self.lm_head(hs) * self.cfg["lm_head_multiplier"]
            loss = causal_lm_loss(logits, labels, self.cfg["vocab_size"])
        return loss


# ----------------------------------------------------------------------------------------
# gpt2
# ----------------------------------------------------------------------------------------
class GPT2Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        P = cfg["n_positions"]
        self.register_buffer("bias", torch.tril(torch.ones((P, P), dtype=torch.bool)).view(1, 1, P, P))
        self.h, self.nh = cfg["hidden_size"], cfg["num_attention_heads"]
        self.hd = self.h // self.nh
        self.c_attn = Conv1D(3 * self.h, self.h)
        self.c_proj = Conv1D(self.h, self.h)

    def _split(self, t):
        return t.view(t.size()[:-1] + (self.nh, self.hd)).permute(0, 2, 1, 3)

    def forward(self, x, attention_mask):
        q, k, v = self.c_attn(x).split(self.h, dim=2)
        q, k, v = self._split(q), self._split(k), self._split(v)
        if self.cfg["_attn"] == "flash":
            o = flash_attn(q, k, v, True, self.hd ** -0.5, self.cfg["attn_pdrop"])
        else:
            w = torch.matmul(q, k.transpose(-1, -2))
            w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
            ql, kl = q.size(-2), k.size(-2)
            cm = self.bias[:, :, kl - ql: kl, :kl]
            mv = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
            w = torch.where(cm, w.to(w.dtype), mv)
            if attention_mask is not None:
                w = w + attention_mask
            w = F.softmax(cuda_fp32(w), dim=-1)
            w = w.type(v.dtype)
            w = dropout(w, self.cfg["attn_pdrop"])
            o = torch.matmul(w, v)
        o = o.permute(0, 2, 1, 3).contiguous()
        o = o.view(o.size()[:-2] + (self.h,))
        o = self.c_proj(o)
        return dropout(o, self.cfg["resid_pdrop"])


class GPT2Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h = cfg["hidden_size"]
        self.cfg = cfg
        self.ln_1 = LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.attn = GPT2Attention(cfg)
        self.ln_2 = LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.c_fc = Conv1D(cfg["n_inner"], h)
        self.c_proj = Conv1D(h, cfg["n_inner"])

    def forward(self, hs, attention_mask):
        res = hs
        hs = self.attn(self.ln_1(hs), attention_mask)
        hs = hs + res
        res = hs
        x = self.c_fc(self.ln_2(hs))
        x = ACT[self.cfg["activation_function"]](x)
        x = self.c_proj(x)
        x = dropout(x, self.cfg["resid_pdrop"])
        return res + x


class GPT2(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, V = cfg["hidden_size"], cfg["vocab_size"]
        self.wte = nn.Embedding(V, h)
        self.wpe = nn.Embedding(cfg["n_positions"], h)
        self.h = nn.ModuleList([GPT2Block(cfg) for _ in range(cfg["num_hidden_layers"])])
        self.ln_f = LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.lm_head = nn.Linear(h, V, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, ids, labels):
        b, s = ids.shape
        with region("outside"):
            pos = torch.arange(s).unsqueeze(0)
            hs = self.wte(ids) + self.wpe(pos)
            hs = dropout(hs, self.cfg["embd_pdrop"])
            am = None
            if self.cfg["_attn"] != "flash":
                # 2D all-ones attention_mask -> extended (b,1,1,s) additive mask in model dtype
                am = (1.0 - torch.ones(b, 1, 1, s, dtype=hs.dtype)) * torch.finfo(hs.dtype).min
        hs = run_layers(self, self.h, hs, lambda i, x: (x, am))
        with region("outside"):
            hs = self.ln_f(hs)
        with region("loss"):
            logits = self.lm_head(hs)
            loss = causal_lm_loss(logits, labels, self.cfg["vocab_size"])
        return loss


# ----------------------------------------------------------------------------------------
# gpt_neox
# ----------------------------------------------------------------------------------------
class NeoXAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
        self.h, self.nh, self.hd = h, nh, h // nh
        self.rot = int(self.hd * cfg["rotary_pct"])
        P = cfg["max_position_embeddings"]
        self.register_buffer("bias", torch.tril(torch.ones((P, P), dtype=torch.bool)).view(1, 1, P, P), persistent=False)
        inv = 1.0 / (cfg["rotary_emb_base"] ** (torch.arange(0, self.rot, 2).float() / self.rot))
        t = torch.arange(P).float()
        emb = torch.cat((torch.outer(t, inv),) * 2, -1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)
        self.norm_factor = self.hd ** -0.5
        self.query_key_value = nn.Linear(h, 3 * h, bias=True)
        self.dense = nn.Linear(h, h, bias=True)

    def forward(self, x, attention_mask, position_ids):
        qkv = self.query_key_value(x)
        qkv = qkv.view(qkv.size()[:-1] + (self.nh, 3 * self.hd))
        d = self.hd
        q = qkv[..., :d].permute(0, 2, 1, 3)
        k = qkv[..., d:2 * d].permute(0, 2, 1, 3)
        v = qkv[..., 2 * d:].permute(0, 2, 1, 3)
        q_rot, q_pass = q[..., :self.rot], q[..., self.rot:]
        k_rot, k_pass = k[..., :self.rot], k[..., self.rot:]
        s = k.shape[-2]
        cos, sin = self.cos_cached[:s].to(x.dtype), self.sin_cached[:s].to(x.dtype)
        cos = cos[position_ids].unsqueeze(1)
        sin = sin[position_ids].unsqueeze(1)
        q = (q_rot * cos) + (rotate_half(q_rot) * sin)
        k = (k_rot * cos) + (rotate_half(k_rot) * sin)
        q = torch.cat((q, q_pass), dim=-1)
        k = torch.cat((k, k_pass), dim=-1)
        if self.cfg["_attn"] == "flash":
            tdt = v.dtype
            q, k = q.to(tdt), k.to(tdt)
            o = flash_attn(q, k, v, True, self.norm_factor, self.cfg["attention_dropout"])
        else:
            b, nh, ql, hd = q.size()
            kl = k.size(-2)
            cm = self.bias[:, :, kl - ql: kl, :kl]
            q2 = q.view(b * nh, ql, hd)
            k2 = k.view(b * nh, kl, hd)
            sc = torch.zeros(b * nh, ql, kl, dtype=q2.dtype)
            sc = torch.baddbmm(sc, q2, k2.transpose(1, 2), beta=1.0, alpha=self.norm_factor)
            sc = sc.view(b, nh, ql, kl)
            mv = torch.tensor(torch.finfo(sc.dtype).min, dtype=sc.dtype)
            sc = torch.where(cm, sc, mv)
            if attention_mask is not None:
                sc = sc + attention_mask
            w = F.softmax(cuda_fp32(sc), dim=-1)
            w = w.to(v.dtype)
            w = dropout(w, self.cfg["attention_dropout"])
            o = torch.matmul(w, v)
        o = o.permute(0, 2, 1, 3).contiguous()
        o = o.view(o.size(0), o.size(1), self.h)
        return self.dense(o)


class NeoXLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h = cfg["hidden_size"]
        self.cfg = cfg
        self.input_layernorm = LayerNorm(h, eps=cfg["layer_norm_eps"])
        self.post_attention_layernorm = LayerNorm(h, eps=cfg["layer_norm_eps"])
        self.attention = NeoXAttention(cfg)
        self.dense_h_to_4h = nn.Linear(h, cfg["intermediate_size"])
        self.dense_4h_to_h = nn.Linear(cfg["intermediate_size"], h)

    def forward(self, hs, attention_mask, position_ids):
        a = self.attention(self.input_layernorm(hs), attention_mask, position_ids)
        a = dropout(a, self.cfg["hidden_dropout"])
        m = self.dense_4h_to_h(ACT[self.cfg["hidden_act"]](self.dense_h_to_4h(self.post_attention_layernorm(hs))))
        m = dropout(m, self.cfg["hidden_dropout"])
        return m + a + hs  # use_parallel_residual=True


class GPTNeoX(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, V = cfg["hidden_size"], cfg["vocab_size"]
        self.embed_in = nn.Embedding(V, h)
        self.layers = nn.ModuleList([NeoXLayer(cfg) for _ in range(cfg["num_hidden_layers"])])
        self.final_layer_norm = LayerNorm(h, eps=cfg["layer_norm_eps"])
        self.embed_out = nn.Linear(h, V, bias=False)

    def forward(self, ids, labels):
        b, s = ids.shape
        with region("outside"):
            hs = dropout(self.embed_in(ids), self.cfg["hidden_dropout"])
            position_ids = torch.arange(s).unsqueeze(0)
            am = None
            if self.cfg["_attn"] != "flash":
                am = (1.0 - torch.ones(b, 1, 1, s, dtype=hs.dtype)) * torch.finfo(hs.dtype).min
        hs = run_layers(self, self.layers, hs, lambda i, x: (x, am, position_ids))
        with region("outside"):
            hs = self.final_layer_norm(hs)
        with region("loss"):
            logits = self.embed_out(hs)
            loss = causal_lm_loss(logits, labels, self.cfg["vocab_size"])
        return loss


# ----------------------------------------------------------------------------------------
# bloom: ALiBi, fused query_key_value, eager attention only, GeLUFunction
# ----------------------------------------------------------------------------------------
class BloomGeLUFunction(torch.autograd.Function):
    """modeling_bloom.py GeLUFunction (BloomGelu in training mode): the tanh GELU, keeping its input."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        t = torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x))
        return (0.5 * x * ((1 - t * t) * (0.79788456 + 0.1070322243 * x * x)) + 0.5 * (1 + t)) * g


def bloom_alibi(b, s, nh, dtype):
    """build_alibi_tensor with an all-ones attention mask: (b * nh, 1, s)."""
    closest = 2 ** math.floor(math.log2(nh))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest) - 3))), dtype=torch.float32)
    slopes = torch.pow(base, torch.arange(1, 1 + closest, dtype=torch.int32))
    if closest != nh:
        extra = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest) - 3))), dtype=torch.float32)
        rem = min(closest, nh - closest)
        slopes = torch.cat([slopes, torch.pow(extra, torch.arange(1, 1 + 2 * rem, 2, dtype=torch.int32))], dim=0)
    mask = torch.ones(b, s, dtype=torch.long)
    arange = ((mask.cumsum(dim=-1) - 1) * mask)[:, None, :]
    alibi = slopes[..., None] * arange
    return alibi.reshape(b * nh, 1, s).to(dtype)


class BloomAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, nh = cfg["hidden_size"], cfg["n_head"]
        self.cfg, self.h, self.nh, self.hd = cfg, h, nh, h // nh
        self.inv_norm_factor = 1.0 / math.sqrt(self.hd)
        self.query_key_value = make_linear(cfg, h, 3 * h, True, "query_key_value")
        self.dense = make_linear(cfg, h, h, True, "dense")

    def forward(self, x, residual, alibi, mask):
        b, ql, _ = x.shape
        fused = self.query_key_value(x).view(b, ql, self.nh, 3, self.hd)
        q = fused[..., 0, :].transpose(1, 2).reshape(b * self.nh, -1, self.hd)
        k = fused[..., 1, :].transpose(1, 2).reshape(b * self.nh, -1, self.hd).transpose(-1, -2)
        v = fused[..., 2, :].transpose(1, 2).reshape(b * self.nh, -1, self.hd)
        scores = alibi.baddbmm(batch1=q, batch2=k, beta=1.0, alpha=self.inv_norm_factor)
        w = scores.view(b, self.nh, ql, -1) + mask
        probs = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        probs = dropout(probs, self.cfg["attention_dropout"])
        ctx = torch.bmm(probs.view(b * self.nh, ql, -1), v)
        ctx = ctx.view(b, self.nh, ql, self.hd).permute(0, 2, 1, 3).reshape(b, ql, self.h)
        out = self.dense(ctx)
        return residual + dropout(out, self.cfg["hidden_dropout"])


class BloomBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h = cfg["hidden_size"]
        self.cfg = cfg
        self.input_layernorm = LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.self_attention = BloomAttention(cfg)
        self.post_attention_layernorm = LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.dense_h_to_4h = make_linear(cfg, h, 4 * h, True, "dense_h_to_4h")
        self.dense_4h_to_h = make_linear(cfg, 4 * h, h, True, "dense_4h_to_h")

    def forward(self, hs, alibi, mask):
        a = self.self_attention(self.input_layernorm(hs), hs, alibi, mask)
        m = self.dense_4h_to_h(BloomGeLUFunction.apply(self.dense_h_to_4h(self.post_attention_layernorm(a))))
        return a + dropout(m, self.cfg["hidden_dropout"])


class Bloom(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, V = cfg["hidden_size"], cfg["vocab_size"]
        self.word_embeddings = nn.Embedding(V, h)
        self.word_embeddings_layernorm = LayerNorm(h, eps=cfg["layer_norm_epsilon"])
        self.h = nn.ModuleList([BloomBlock(cfg) for _ in range(cfg["n_layer"])])
        self.ln_f = LayerNorm(h, eps=cfg["layer_norm_epsilon"])

    def forward(self, ids, labels):
        b, s = ids.shape
        with region("outside"):
            hs = self.word_embeddings_layernorm(self.word_embeddings(ids))
            alibi = bloom_alibi(b, s, self.cfg["n_head"], hs.dtype)
            mask = causal_float_mask(b, s, hs.dtype)
        hs = run_layers(self, self.h, hs, lambda i, x: (x, alibi, mask))
        with region("outside"):
            hs = self.ln_f(hs)
        with region("loss"):
            logits = F.linear(hs, self.word_embeddings.weight)  # tied lm_head
            loss = causal_lm_loss(logits, labels, self.cfg["vocab_size"])
        return loss


# ----------------------------------------------------------------------------------------
# bert (encoder, MLM head)
# ----------------------------------------------------------------------------------------
class BertLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
        self.cfg, self.h, self.nh, self.hd = cfg, h, nh, h // nh
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.attn_out = nn.Linear(h, h)
        self.ln1 = LayerNorm(h, eps=cfg["layer_norm_eps"])
        self.intermediate = nn.Linear(h, cfg["intermediate_size"])
        self.output = nn.Linear(cfg["intermediate_size"], h)
        self.ln2 = LayerNorm(h, eps=cfg["layer_norm_eps"])

    def _t(self, x):
        return x.view(x.size()[:-1] + (self.nh, self.hd)).permute(0, 2, 1, 3)

    def forward(self, hs, ext_mask):
        c = self.cfg
        q, k, v = self._t(self.query(hs)), self._t(self.key(hs)), self._t(self.value(hs))
        if c["_attn"] == "flash":
            ctx = flash_attn(q, k, v, False, self.hd ** -0.5, c["attention_probs_dropout_prob"])
        else:
            sc = torch.matmul(q, k.transpose(-1, -2))
            sc = sc / math.sqrt(self.hd)
            if ext_mask is not None:
                sc = sc + ext_mask
            probs = F.softmax(cuda_fp32(sc), dim=-1)
            probs = dropout(probs, c["attention_probs_dropout_prob"])
            ctx = torch.matmul(probs, v)
        ctx = ctx.permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size()[:-2] + (self.h,))
        a = dropout(self.attn_out(ctx), c["hidden_dropout_prob"])
        a = self.ln1(a + hs)
        i = F.gelu(self.intermediate(a))
        o = dropout(self.output(i), c["hidden_dropout_prob"])
        return self.ln2(o + a)


class Bert(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        h, V = cfg["hidden_size"], cfg["vocab_size"]
        self.word_embeddings = nn.Embedding(V, h)
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], h)
        self.token_type_embeddings = nn.Embedding(cfg["type_vocab_size"], h)
        self.emb_ln = LayerNorm(h, eps=cfg["layer_norm_eps"])
        self.layer = nn.ModuleList([BertLayer(cfg) for _ in range(cfg["num_hidden_layers"])])
        self.transform = nn.Linear(h, h)
        self.transform_ln = LayerNorm(h, eps=cfg["layer_norm_eps"])
        self.decoder = nn.Linear(h, V, bias=False)
        self.decoder.weight = self.word_embeddings.weight
        self.decoder_bias = nn.Parameter(torch.zeros(V))

    def forward(self, ids, labels):
        b, s = ids.shape
        c = self.cfg
        with region("outside"):
            tt = torch.zeros(b, s, dtype=torch.long)
            pos = torch.arange(s).unsqueeze(0)
            e = self.word_embeddings(ids) + self.token_type_embeddings(tt)
            e = e + self.position_embeddings(pos)
            e = self.emb_ln(e)
            hs = dropout(e, c["hidden_dropout_prob"])
            ext = None
            if c["_attn"] != "flash":
                ext = (1.0 - torch.ones(b, 1, 1, s, dtype=hs.dtype)) * torch.finfo(hs.dtype).min
        hs = run_layers(self, self.layer, hs, lambda i, x: (x, ext))
        with region("loss"):
            x = F.gelu(self.transform(hs))
            x = self.transform_ln(x)
            logits = F.linear(x, self.decoder.weight, self.decoder_bias)
            loss = F.cross_entropy(logits.view(-1, c["vocab_size"]), labels.view(-1))
        return loss


# ----------------------------------------------------------------------------------------
# t5 (encoder-decoder)
# ----------------------------------------------------------------------------------------
def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    ret = 0
    if bidirectional:
        num_buckets //= 2
        ret += (rel > 0).to(torch.long) * num_buckets
        rel = torch.abs(rel)
    else:
        rel = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    is_small = rel < max_exact
    large = max_exact + (torch.log(rel.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return ret + torch.where(is_small, rel, large)


class T5Attention(nn.Module):
    def __init__(self, cfg, is_decoder, has_rel):
        super().__init__()
        self.cfg, self.is_decoder, self.has_rel = cfg, is_decoder, has_rel
        d, nh, kv = cfg["d_model"], cfg["num_heads"], cfg["d_kv"]
        self.nh, self.kv, self.inner = nh, kv, nh * kv
        self.q, self.k = nn.Linear(d, self.inner, bias=False), nn.Linear(d, self.inner, bias=False)
        self.v, self.o = nn.Linear(d, self.inner, bias=False), nn.Linear(self.inner, d, bias=False)
        if has_rel:
            self.relative_attention_bias = nn.Embedding(cfg["relative_attention_num_buckets"], nh)

    def compute_bias(self, ql, kl):
        ctx = torch.arange(ql)[:, None]
        mem = torch.arange(kl)[None, :]
        buckets = t5_bucket(mem - ctx, not self.is_decoder, self.cfg["relative_attention_num_buckets"],
                            self.cfg["relative_attention_max_distance"])
        values = self.relative_attention_bias(buckets)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hs, mask, kv_states=None, position_bias=None):
        b, s = hs.shape[:2]
        sh = lambda x: x.view(b, -1, self.nh, self.kv).transpose(1, 2)
        q = sh(self.q(hs))
        src = hs if kv_states is None else kv_states
        k, v = sh(self.k(src)), sh(self.v(src))
        scores = torch.matmul(q, k.transpose(3, 2))
        if position_bias is None:
            kl = k.shape[2]
            if not self.has_rel:
                position_bias = torch.zeros((1, self.nh, s, kl), dtype=scores.dtype)
            else:
                position_bias = self.compute_bias(s, kl)
            if mask is not None:
                position_bias = position_bias + mask
        scores += position_bias
        w = F.softmax(scores.float(), dim=-1).type_as(scores)
        w = dropout(w, self.cfg["dropout_rate"])
        o = torch.matmul(w, v)
        o = o.transpose(1, 2).contiguous().view(b, -1, self.inner)
        return self.o(o), position_bias


class T5Block(nn.Module):
    def __init__(self, cfg, is_decoder, has_rel):
        super().__init__()
        d = cfg["d_model"]
        self.cfg, self.is_decoder = cfg, is_decoder
        self.ln_sa = T5LayerNorm(d, cfg["layer_norm_epsilon"])
        self.sa = T5Attention(cfg, is_decoder, has_rel)
        if is_decoder:
            self.ln_ca = T5LayerNorm(d, cfg["layer_norm_epsilon"])
            self.ca = T5Attention(cfg, True, False)
        self.ln_ff = T5LayerNorm(d, cfg["layer_norm_epsilon"])
        self.wi = nn.Linear(d, cfg["d_ff"], bias=False)
        self.wo = nn.Linear(cfg["d_ff"], d, bias=False)

    def forward(self, hs, mask, position_bias, enc_hs, enc_mask, enc_dec_bias):
        p = self.cfg["dropout_rate"]
        a, position_bias = self.sa(self.ln_sa(hs), mask, position_bias=position_bias)
        hs = hs + dropout(a, p)
        if self.is_decoder:
            a, enc_dec_bias = self.ca(self.ln_ca(hs), enc_mask, kv_states=enc_hs, position_bias=enc_dec_bias)
            hs = hs + dropout(a, p)
        x = self.wi(self.ln_ff(hs))
        x = F.relu(x)
        x = dropout(x, p)
        x = self.wo(x)
        hs = hs + dropout(x, p)
        return hs, position_bias, enc_dec_bias


class T5(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        d, V = cfg["d_model"], cfg["vocab_size"]
        self.shared = nn.Embedding(V, d)
        self.enc = nn.ModuleList([T5Block(cfg, False, i == 0) for i in range(cfg["num_layers"])])
        self.enc_ln = T5LayerNorm(d, cfg["layer_norm_epsilon"])
        self.dec = nn.ModuleList([T5Block(cfg, True, i == 0) for i in range(cfg["num_decoder_layers"])])
        self.dec_ln = T5LayerNorm(d, cfg["layer_norm_epsilon"])
        self.lm_head = nn.Linear(d, V, bias=False)
        self.lm_head.weight = self.shared.weight  # tie_word_embeddings=True

    def _stack(self, layers, hs, mask, enc_hs, enc_mask, prefix):
        ck = self.cfg["_ckpt"]
        pb, edb = None, None
        for i, layer in enumerate(layers):
            with region(f"{prefix}{i}"):
                args = (hs, mask, pb, enc_hs, enc_mask, edb)
                if ck == "none":
                    out = layer(*args)
                elif ck == "full_reentrant":
                    out = checkpoint(layer, *args, use_reentrant=True)
                else:
                    REC is not None and REC.held(list(args), "checkpoint(non-reentrant).closure(args)")
                    out = checkpoint(layer, *args, use_reentrant=False)
                hs, pb, edb = out
        return hs

    def forward(self, ids, labels):
        b, s = ids.shape
        p = self.cfg["dropout_rate"]
        with region("outside"):
            dt = self.shared.weight.dtype
            mn = torch.finfo(dt).min
            enc_ext = (1.0 - torch.ones(b, 1, 1, s, dtype=dt)) * mn
            hs = dropout(self.shared(ids), p)
        hs = self._stack(self.enc, hs, enc_ext, None, None, "enc")
        with region("outside"):
            enc_out = dropout(self.enc_ln(hs), p)
            dec_ids = torch.cat([torch.zeros(b, 1, dtype=torch.long), labels[:, :-1]], 1)  # _shift_right
            causal = torch.tril(torch.ones(s, s))[None, None].expand(b, 1, s, s)
            dec_ext = ((1.0 - causal) * mn).to(dt)
            cross_ext = (1.0 - torch.ones(b, 1, 1, s, dtype=dt)) * mn
            hs = dropout(self.shared(dec_ids), p)
        hs = self._stack(self.dec, hs, dec_ext, enc_out, cross_ext, "dec")
        with region("outside"):
            hs = dropout(self.dec_ln(hs), p)
        with region("loss"):
            hs = hs * (self.cfg["d_model"] ** -0.5)
            logits = self.lm_head(hs)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        return loss


FAMILY_CLASS = {"llama": LlamaLike, "qwen2": LlamaLike, "gemma": LlamaLike, "phi3": LlamaLike,
                "mixtral": LlamaLike, "qwen2_moe": LlamaLike, "gpt2": GPT2, "gpt_neox": GPTNeoX,
                "bert": Bert, "t5": T5, "gpt_oss": LlamaLike, "gemma2": LlamaLike, "gemma3": LlamaLike,
                "deepseek_v3": LlamaLike, "glm4_moe": LlamaLike, "llama4": LlamaLike, "olmo2": LlamaLike, "glm4": LlamaLike,
                "bloom": Bloom, "qwen3_5_text": Qwen3_5Text, "falcon_h1": FalconH1}


# ----------------------------------------------------------------------------------------
# configs / points
# ----------------------------------------------------------------------------------------
# (batch, seq, hidden, heads, kv_heads, vocab, ffn_multiplier_index)
# FFN size: SwiGLU families use SWIGLU_MULT[i]*h, GeLU/ReLU families GELU_MULT[i]*h (4x for most points;
# a few points use other ratios so that the ffn term is separable from the hidden term in the fits).
SWIGLU_MULT = [2.6875, 2.75, 2.5, 3.0, 3.5, 2.25, 2.0, 2.6875]
GELU_MULT = [4, 4, 4, 4, 3, 5, 2, 4]
POINTS = [
    (1, 64, 64, 4, 2, 1000, 0),
    (2, 128, 128, 8, 2, 2000, 1),
    (1, 256, 128, 4, 2, 3000, 2),
    (2, 64, 256, 8, 4, 5000, 3),
    (2, 96, 96, 6, 3, 1500, 4),
    (1, 128, 192, 6, 2, 2500, 5),
    (2, 256, 64, 4, 2, 1200, 6),
    (2, 192, 160, 5, 1, 4000, 7),  # MQA (kv=1); with b=1, kv=1 repeat_kv+matmul reshapes are views (see README)
]


# Qwen3.5 (qwen3_5_text): its own points, head_dim and the Gated DeltaNet dims independent of hidden / heads as in the
# real models; s not a multiple of the 64-token chunk on half of them. The last field indexes QWEN3_5_DIMS.
QWEN3_5_POINTS = [
    (1, 64, 64, 2, 1, 1000, 0),
    (2, 100, 128, 4, 2, 2000, 1),
    (1, 130, 128, 2, 1, 3000, 2),
    (2, 64, 96, 4, 2, 1500, 3),
    (2, 192, 64, 2, 2, 1200, 4),
    (1, 200, 96, 3, 1, 2500, 5),
    (3, 37, 128, 4, 1, 4000, 6),
    (2, 128, 112, 4, 2, 5000, 7),
]
# (head_dim, linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim, ffn multiplier)
QWEN3_5_DIMS = [
    (32, 2, 4, 16, 16, 2.75),
    (32, 2, 4, 32, 32, 3.0),
    (64, 2, 4, 32, 16, 2.5),
    (32, 2, 4, 16, 32, 3.5),
    (64, 2, 2, 32, 32, 2.0),
    (32, 2, 4, 24, 24, 2.6875),
    (64, 2, 4, 32, 32, 2.25),
    (32, 2, 4, 16, 32, 2.75),
]
QWEN3_5_LAYER_TYPES = ["linear_attention", "full_attention"]

# Falcon-H1 (falcon_h1): its own points, scaled down from the checkpoints' ratios (Falcon-H1-0.5B: hidden 1024, 8 heads
# of 64 (nh*hd = h/2), kv 2, mamba_d_ssm 1536 = 24 heads x 64, d_state 128, 1 group, chunk 128, intermediate 2048; the
# larger ones: d_ssm 0.8-1.6 x hidden, intermediate 2.25-4.2 x hidden, 2 groups on 34B). s below the chunk size never,
# not a multiple of it on half of the points. The last field indexes FALCON_H1_DIMS.
FALCON_H1_POINTS = [
    (2, 100, 128, 8, 2, 2000, 0),
    (1, 128, 128, 8, 2, 3000, 1),
    (2, 64, 80, 6, 2, 1500, 2),
    (2, 96, 160, 10, 2, 4000, 3),
    (1, 150, 96, 6, 2, 2500, 4),
    (3, 40, 64, 4, 2, 1000, 5),
]
# (head_dim, mamba_d_ssm, mamba_n_heads, mamba_d_head, mamba_d_state, mamba_n_groups, mamba_chunk_size, intermediate_size)
FALCON_H1_DIMS = [
    (16, 192, 12, 16, 16, 1, 32, 256),  # 0.5B / 8 (head_dim 16 = hidden / heads here), s 100 over chunks of 32
    (8, 192, 12, 16, 32, 1, 64, 256),   # 0.5B ratios: nh*hd = h/2, d = 1.5h, intermediate 2h; s a multiple of the chunk
    (8, 96, 6, 16, 16, 1, 16, 192),     # 1.5B-Deep-like: nh*hd = 0.6h, d = 1.2h, intermediate 2.4h
    (8, 128, 8, 16, 16, 2, 32, 672),    # 34B-like: two groups, d = 0.8h, intermediate 4.2h
    (8, 96, 6, 16, 32, 1, 64, 384),     # 7B-like: d = h, intermediate 4h; s 150 over chunks of 64
    (32, 96, 3, 32, 16, 1, 16, 160),    # heads wider than hidden / heads (nh*hd = 2h), 3 mamba heads of 32
]
# Falcon-H1-0.5B's µP multipliers (they change values, not bytes: `x * 1.0` is still a new tensor)
FALCON_H1_MULTIPLIERS = dict(
    attention_in_multiplier=1.0, attention_out_multiplier=0.9375, embedding_multiplier=5.656854249492381,
    key_multiplier=0.39062499999999994, lm_head_multiplier=0.0390625, ssm_in_multiplier=1.25,
    ssm_multipliers=[0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738],
    ssm_out_multiplier=0.23570226039551587, mlp_multipliers=[0.8838834764831844, 0.5859375])
FAMILY_POINTS = {"qwen3_5_text": QWEN3_5_POINTS, "falcon_h1": FALCON_H1_POINTS}


def make_cfg(family, b, s, h, nh, kv, V, fi=0):
    L = 3 if family not in ("t5", "mixtral", "qwen2_moe", "gpt_oss", "qwen3_5_text", "falcon_h1") else 2
    swiglu_ffn = int(round(h * SWIGLU_MULT[fi] / 16)) * 16  # ~2.7x
    gf = GELU_MULT[fi] * h
    base = dict(family=family, hidden_size=h, num_attention_heads=nh, vocab_size=V, num_hidden_layers=L)
    if family in ("llama", "qwen2", "mixtral", "qwen2_moe", "gemma", "gemma2", "gemma3", "phi3"):
        base.update(num_key_value_heads=kv, intermediate_size=swiglu_ffn, rms_norm_eps=1e-6, rope_theta=10000.0,
                    attention_dropout=0.0, hidden_act="silu", attention_bias=False, tie_word_embeddings=False,
                    max_position_embeddings=4096)
        if family == "qwen2":
            base.update(attention_bias=True)  # q/k/v bias (o_proj has none)
        if family in ("gemma", "gemma2", "gemma3"):
            base.update(hidden_act="gelu_pytorch_tanh", head_dim=h // nh, tie_word_embeddings=True)
        if family == "gemma2":
            base.update(query_pre_attn_scalar=h // nh, attn_logit_softcapping=50.0, final_logit_softcapping=30.0)
        if family == "gemma3":
            base.update(query_pre_attn_scalar=h // nh, final_logit_softcapping=None, attn_logit_softcapping=None)
        if family == "phi3":
            base.update(resid_pdrop=0.0, partial_rotary_factor=1.0)
        if family == "mixtral":
            base.update(num_local_experts=4, num_experts_per_tok=2, intermediate_size=swiglu_ffn)
        if family == "qwen2_moe":
            base.update(attention_bias=True, num_experts=4, num_experts_per_tok=2, norm_topk_prob=False,
                        moe_intermediate_size=swiglu_ffn // 2, shared_expert_intermediate_size=swiglu_ffn,
                        intermediate_size=swiglu_ffn)
    elif family in ("deepseek_v3", "glm4_moe"):
        # One dense layer then two MoE layers (first_k_dense_replace 1) of 4 routed experts (top 2) and a shared one.
        base.update(intermediate_size=swiglu_ffn, moe_intermediate_size=swiglu_ffn // 2, n_routed_experts=4,
                    num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1, n_group=1, topk_group=1,
                    norm_topk_prob=True, attention_dropout=0.0, hidden_act="silu", tie_word_embeddings=False,
                    max_position_embeddings=4096)
        if family == "deepseek_v3":
            # MLA with a q LoRA rank on every other point; v_head_dim differs from the q/k head width (nope + rope), as
            # in DeepSeek-V3 (128 vs 192).
            base.update(num_key_value_heads=nh, q_lora_rank=None if fi % 2 == 0 else h // 2, kv_lora_rank=h // 2,
                        qk_nope_head_dim=h // nh, qk_rope_head_dim=16, v_head_dim=h // nh, head_dim=16,
                        routed_scaling_factor=2.5, rms_norm_eps=1e-6, rope_theta=10000.0, attention_bias=False)
        else:
            # Heads wider than hidden / heads (GLM-4.5: 96 x 128 over 5120), half of each head rotated, q/k/v biases,
            # per-head q/k norms on every other point (GLM-4.5 has them, -Air does not).
            base.update(num_key_value_heads=kv, head_dim=h // nh + 8, partial_rotary_factor=0.5, use_qk_norm=fi % 2 == 1,
                        routed_scaling_factor=1.0, rms_norm_eps=1e-5, rope_theta=1000000.0, attention_bias=True)
    elif family == "glm4":
        # GLM-4-0414: q/k/v biases, half of each head rotated on interleaved pairs, four norms per layer.
        base.update(num_key_value_heads=kv, head_dim=h // nh, partial_rotary_factor=0.5, intermediate_size=swiglu_ffn,
                    rms_norm_eps=1e-5, rope_theta=10000.0, attention_dropout=0.0, hidden_act="silu", attention_bias=True,
                    tie_word_embeddings=False, max_position_embeddings=4096)
    elif family == "qwen3_5_text":
        # Qwen3_5TextConfig names. Two layers, a Gated DeltaNet one then a full-attention one (measure() may swap them).
        hd, Hk, Hv, dk, dv, mult = QWEN3_5_DIMS[fi]
        base.update(model_type="qwen3_5_text", layer_types=list(QWEN3_5_LAYER_TYPES), num_key_value_heads=kv, head_dim=hd,
                    intermediate_size=int(round(h * mult / 16)) * 16, partial_rotary_factor=0.25,
                    linear_num_key_heads=Hk, linear_num_value_heads=Hv, linear_key_head_dim=dk, linear_value_head_dim=dv,
                    linear_conv_kernel_dim=4, rms_norm_eps=1e-6, rope_theta=10000000.0, attention_dropout=0.0,
                    hidden_act="silu", attention_bias=False, tie_word_embeddings=False, max_position_embeddings=4096)
    elif family == "falcon_h1":
        # FalconH1Config names (config.json of the checkpoints); mamba_rms_norm is set per case (measure(cfg_overrides)).
        hd, d, H, P, N, G, C, inter = FALCON_H1_DIMS[fi]
        base.update(model_type="falcon_h1", num_key_value_heads=kv, head_dim=hd, intermediate_size=inter,
                    mamba_d_ssm=d, mamba_n_heads=H, mamba_d_head=P, mamba_d_state=N, mamba_n_groups=G, mamba_d_conv=4,
                    mamba_chunk_size=C, mamba_expand=2, mamba_conv_bias=True, mamba_proj_bias=False,
                    projectors_bias=False, mamba_rms_norm=False, mamba_norm_before_gate=False, attention_bias=False,
                    mlp_bias=False, rms_norm_eps=1e-5, rope_theta=100000000000.0, attention_dropout=0.0,
                    hidden_act="silu", tie_word_embeddings=False, max_position_embeddings=16384,
                    **json.loads(json.dumps(FALCON_H1_MULTIPLIERS)))
    elif family == "olmo2":
        base.update(num_key_value_heads=kv, head_dim=h // nh, intermediate_size=swiglu_ffn, rms_norm_eps=1e-6,
                    rope_theta=500000.0, attention_dropout=0.0, hidden_act="silu", attention_bias=False,
                    tie_word_embeddings=False, max_position_embeddings=4096)
    elif family == "llama4":
        # Even points: every layer MoE, q/k rotated and L2-normed (Scout's rotary layers); odd points: MoE in layer 1
        # only, a dense MLP of intermediate_size_mlp elsewhere, NoPE layers with temperature tuning (Maverick's mix).
        rope = fi % 2 == 0
        base.update(num_key_value_heads=kv, head_dim=h // nh, intermediate_size=swiglu_ffn // 2, intermediate_size_mlp=swiglu_ffn,
                    num_local_experts=4, num_experts_per_tok=1, moe_layers=[0, 1, 2] if rope else [1],
                    no_rope_layers=[1, 1, 1] if rope else [0, 0, 0], use_qk_norm=True, attn_temperature_tuning=True,
                    attn_scale=0.1, floor_scale=32, rms_norm_eps=1e-5, rope_theta=500000.0, attention_dropout=0.0,
                    hidden_act="silu", attention_bias=False, tie_word_embeddings=False, max_position_embeddings=4096)
    elif family == "gpt_oss":
        # expert width = hidden (as in gpt-oss), 4 experts top-2, head_dim fixed to h / nh
        base.update(num_key_value_heads=kv, head_dim=h // nh, intermediate_size=swiglu_ffn // 2, num_local_experts=4,
                    num_experts_per_tok=2, rms_norm_eps=1e-5, rope_theta=150000.0, attention_bias=True,
                    attention_dropout=0.0, hidden_act="silu", tie_word_embeddings=False, max_position_embeddings=4096,
                    sliding_window=128, swiglu_limit=7.0)
    elif family == "gpt2":
        base.update(num_key_value_heads=nh, n_inner=gf, intermediate_size=gf, n_positions=1024,
                    max_position_embeddings=1024, layer_norm_epsilon=1e-5, activation_function="gelu_new",
                    attn_pdrop=0.1, resid_pdrop=0.1, embd_pdrop=0.1, tie_word_embeddings=True)
    elif family == "gpt_neox":
        base.update(num_key_value_heads=nh, intermediate_size=gf, rotary_pct=0.25, rotary_emb_base=10000,
                    max_position_embeddings=2048, layer_norm_eps=1e-5, hidden_act="gelu", attention_dropout=0.0,
                    hidden_dropout=0.0, use_parallel_residual=True, attention_bias=True, tie_word_embeddings=False)
    elif family == "bloom":
        # BloomConfig names: n_layer, n_head; the MLP is 4 x hidden whatever the point's multiplier.
        base.update(n_layer=base["num_hidden_layers"], n_head=nh, num_key_value_heads=nh, layer_norm_epsilon=1e-5,
                    hidden_dropout=0.0, attention_dropout=0.0, apply_residual_connection_post_layernorm=False,
                    tie_word_embeddings=True)
    elif family == "bert":
        base.update(num_key_value_heads=nh, intermediate_size=gf, max_position_embeddings=512, type_vocab_size=2,
                    layer_norm_eps=1e-12, hidden_act="gelu", attention_probs_dropout_prob=0.1,
                    hidden_dropout_prob=0.1)
    elif family == "t5":
        base.update(d_model=h, num_heads=nh, num_key_value_heads=nh, d_kv=h // nh, d_ff=gf, intermediate_size=gf,
                    num_layers=L, num_decoder_layers=L, relative_attention_num_buckets=32,
                    relative_attention_max_distance=128, dropout_rate=0.1, layer_norm_epsilon=1e-6,
                    feed_forward_proj="relu", tie_word_embeddings=True)
    return base


# ----------------------------------------------------------------------------------------
# one measurement
# ----------------------------------------------------------------------------------------
def measure(family, point, dtype, attn, ckpt, lora=None, want_tensors=False, seed=0, layer_types=None,
            cfg_overrides=None, mamba_kernels="cuda"):
    global REC
    b, s, h, nh, kv, V, fi = point
    cfg = make_cfg(family, b, s, h, nh, kv, V, fi)
    if layer_types is not None:  # qwen3_5_text: another order of the layer kinds
        cfg["layer_types"] = list(layer_types)
    if cfg_overrides:  # falcon_h1: mamba_rms_norm
        cfg.update(cfg_overrides)
    cfg["_attn"], cfg["_ckpt"], cfg["_mamba_kernels"] = attn, ckpt, mamba_kernels
    if lora:
        cfg["_lora"] = lora
    torch.manual_seed(seed)
    model = FAMILY_CLASS[family](cfg)
    with torch.no_grad():  # make routers/activations non-degenerate
        for n, p_ in model.named_parameters():
            if p_.dim() >= 2 and "lora" not in n:
                p_.normal_(0, 0.5 / math.sqrt(p_.shape[-1]))
    if lora:
        for n, p_ in model.named_parameters():
            p_.requires_grad_("lora_" in n)
    if dtype in ("bf16", "qlora_amp_bf16"):
        model.to(torch.bfloat16)
        if lora:  # PEFT autocast_adapter_dtype=True keeps adapters in fp32
            for m in model.modules():
                if isinstance(m, LoraLinear):
                    m.lora_A.float()
                    m.lora_B.float()
    if dtype in ("bf16", "qlora_amp_bf16") and family == "gpt_oss":
        for m in model.modules():  # GptOssPreTrainedModel._keep_in_fp32_modules: the norms stay fp32
            if isinstance(m, GptOssRMSNorm):
                m.float()
    if dtype == "qlora_amp_bf16":
        # PEFT prepare_model_for_kbit_training casts every parameter that is not 4-bit to fp32 ("all"); TRL's
        # SFTTrainer (before its Nov 2025 clean-up) then put embeddings and head back to bf16 (peft_module_casting_to_bf16),
        # leaving the norms in fp32 ("norms"); "none" keeps the model dtype.
        up = lora.get("kbitUpcast", "none")
        if up in ("norms", "all"):
            for n, m in model.named_modules():
                if isinstance(m, (LlamaRMSNorm, GemmaRMSNorm)):
                    m.float()
        if up == "all":
            model.embed_tokens.float()
            model.lm_head.float()
    model.train()
    g = torch.Generator().manual_seed(1234 + seed)
    ids = torch.randint(0, V, (b, s), generator=g)
    labels = torch.randint(0, V, (b, s), generator=g)
    amp = dtype in ("amp_bf16", "qlora_amp_bf16")
    rec = Recorder(model, amp=amp)
    REC = rec
    try:
        with torch.autograd.graph.saved_tensors_hooks(rec.pack, rec.unpack), OpName(rec):
            if amp:
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = model(ids, labels)
            else:
                loss = model(ids, labels)
    finally:
        REC = None
    if family == "t5":
        layer_regions = [f"enc{i}" for i in range(cfg["num_layers"])] + [f"dec{i}" for i in range(cfg["num_decoder_layers"])]
    else:
        layer_regions = [f"layer{i}" for i in range(cfg["num_hidden_layers"])]
    tot, per_layer, attributed = summarize(rec.entries, layer_regions, rec.shared_ptrs)
    # A pack hook that returns its tensor makes a node -> saved tensor -> grad_fn (the node) cycle through autograd's
    # C++ objects, which Python's collector cannot see; a backward pass frees the saved tensors and breaks it, so
    # memory stays flat over thousands of cases.
    rec.keep.clear()
    loss.backward()
    assert torch.isfinite(loss).all()
    pl = [per_layer[r] for r in layer_regions]
    public_cfg = {k: v for k, v in cfg.items() if not k.startswith("_")}
    case = dict(family=family, config=public_cfg, batch=b, seq=s, dtype=dtype, attention=attn, checkpointing=ckpt,
                lora=lora, savedBytes=dict(
                    total=tot["total"], perLayer=sum(pl) / len(pl), perLayerList=pl,
                    outsideLayers=tot["outside"] + tot["shared"], sharedAcrossLayers=tot["shared"],
                    logitsAndLoss=tot["loss"], savedParamBytes=tot["param"], savedParamCastBytes=tot["paramCast"],
                    savedBufferBytes=tot["buffer"], savedScalarBytes=tot["scalar"], heldByCheckpointBytes=tot["held"]))
    if family == "falcon_h1":  # which Mamba2 path ran: cuda = the fused kernel (the estimator's default), torch = torch_forward
        case["mamba_kernels"] = mamba_kernels
    if family in ("mixtral", "qwen2_moe", "gpt_oss", "deepseek_v3", "glm4_moe", "llama4"):
        case["expertTokens"] = [getattr(l.mlp, "last_counts", None) or [] for l in model.layers]
    if family == "t5":
        ne = cfg["num_layers"]
        case["savedBytes"]["perEncoderLayer"] = pl[:ne]
        case["savedBytes"]["perDecoderLayer"] = pl[ne:]
    if want_tensors:
        rep = layer_regions[1] if len(layer_regions) > 1 else layer_regions[0]
        if family == "t5":
            case["layerTensors"] = {"enc0": layer_tensor_list(rec.entries, attributed, "enc0"),
                                    "dec1": layer_tensor_list(rec.entries, attributed, "dec1")}
        elif family == "qwen3_5_text":  # one layer of each kind
            case["layerTensors"] = {r: layer_tensor_list(rec.entries, attributed, r) for r in layer_regions}
        else:
            case["layerTensors"] = {rep: layer_tensor_list(rec.entries, attributed, rep)}
        case["outsideTensors"] = layer_tensor_list(rec.entries, attributed, "outside")
        case["lossTensors"] = layer_tensor_list(rec.entries, attributed, "loss")
        shared = [e for e in rec.entries if attributed.get(e["ptr"]) == "shared"]
        seen, sl = set(), []
        for e in shared:
            if e["ptr"] not in seen:
                seen.add(e["ptr"])
                sl.append(dict(op=e["op"], producer=e["producer"], shape=e["shape"], dtype=e["dtype"],
                               storageBytes=e["nbytes"], held=e["held"]))
        case["sharedTensors"] = sl
    return case


# ----------------------------------------------------------------------------------------
# closed-form formulas (bytes per layer); verified against every measured point
# ----------------------------------------------------------------------------------------
sys.path.insert(0, HERE)
from formulas import formula_per_layer, load_cases  # noqa: E402  (same folder)


# Families without a closed form in formulas.py (its terms have no Gated DeltaNet dims): the unit tests check the
# estimator against their cases instead. falcon_h1 has its own closed form here (OWN_CLOSED_FORM, falcon_h1_formula).
NO_CLOSED_FORM = ("qwen3_5_text",)


def verify(cases):
    mism = nver = 0
    skipped = 0
    for c in cases:
        if c["family"] in NO_CLOSED_FORM:
            skipped += 1
            continue
        own = OWN_CLOSED_FORM.get(c["family"])
        exp = own(c) if own else formula_per_layer(c)
        if exp is None:
            print("NO FORMULA", c["family"], c["dtype"], c["attention"], c["checkpointing"], c["lora"])
            continue
        nver += 1
        got = c["savedBytes"]["perLayerList"]
        if list(got) != list(exp):
            mism += 1
            print("FORMULA MISMATCH", c["family"], c["dtype"], c["attention"], c["checkpointing"], c["lora"],
                  (c["batch"], c["seq"], c["config"]["hidden_size"]), "measured", got, "formula", exp)
    print(f"formula check: {nver - mism}/{nver} cases reproduced exactly"
          + (f" ({skipped} {'/'.join(NO_CLOSED_FORM)} cases have no closed form)" if skipped else ""))
    return mism


# config fields that are constant per family are written once under "familyConfigDefaults"
CONSTANT_FIELDS = ("rms_norm_eps", "rope_theta", "max_position_embeddings", "layer_norm_epsilon", "layer_norm_eps",
                   "rotary_emb_base", "type_vocab_size", "relative_attention_max_distance", "n_positions")


KEEP_FIELDS = ("hidden_size", "num_attention_heads", "num_key_value_heads", "intermediate_size", "vocab_size",
               "num_hidden_layers", "head_dim", "moe_intermediate_size", "shared_expert_intermediate_size", "n_inner",
               "d_ff", "d_kv", "d_model", "num_heads")


def compact(out):
    """Moves config fields that are constant within a family to familyConfigDefaults (merge them back to get
    the full HF-style config of a case) to keep golden.json small."""
    defaults = {}
    vals = {}
    for c in out["cases"]:
        for k, v in c["config"].items():
            vals.setdefault(c["family"], {}).setdefault(k, set()).add(json.dumps(v))
    for c in out["cases"]:
        d = defaults.setdefault(c["family"], {})
        for k in list(c["config"].keys()):
            if k in CONSTANT_FIELDS or (k not in KEEP_FIELDS and k != "family" and len(vals[c["family"]][k]) == 1):
                d[k] = c["config"].pop(k)
        for lst in list(c.get("layerTensors", {}).values()) + [c.get(k, []) for k in ("outsideTensors", "lossTensors", "sharedTensors")]:
            for t in lst:
                if not t.get("held"):
                    t.pop("held", None)
    out["familyConfigDefaults"] = defaults
    return out


LAST_FAMILIES = ("qwen3_5_text", "falcon_h1")


def measure_qwen3_5_text(cases, quick, t0):
    """Qwen3.5 text model: 2 layers, layer_types [linear_attention, full_attention]; fp32 / bf16 / amp_bf16 x eager / flash x
    no / reentrant / non-reentrant checkpointing, then PEFT LoRA on every linear (QWEN3_5_LORA_TARGETS, r 8, dropout 0 and
    0.05) in bf16 and amp_bf16. The LoRA groups also run with the layers swapped ([full_attention, linear_attention]):
    layer 0 reads the frozen embeddings (an input that needs no grad), so each kind is measured once as layer 1."""
    fam = "qwen3_5_text"
    points = QWEN3_5_POINTS[:3] if quick else QWEN3_5_POINTS
    for dtype in ("fp32", "bf16", "amp_bf16"):
        for attn in ("eager", "flash"):
            for ck in ("none", "full_reentrant", "full_nonreentrant"):
                for pi, pt in enumerate(points):
                    cases.append(measure(fam, pt, dtype, attn, ck, want_tensors=pi == 1 and ck == "none"))
    print(f"{fam}: {len(cases)} cases, {time.time() - t0:.1f}s", flush=True)
    for order in (QWEN3_5_LAYER_TYPES, QWEN3_5_LAYER_TYPES[::-1]):
        for p in (0.0, 0.05):
            for dtype in ("bf16", "amp_bf16"):
                for attn in ("eager", "flash"):
                    for pt in points:
                        lora = dict(r=8, alpha=16, dropout=p, targets=list(QWEN3_5_LORA_TARGETS), adapterDtype="fp32")
                        cases.append(measure(fam, pt, dtype, attn, "none", lora=lora, layer_types=order))
    print(f"{fam} lora: {len(cases)} cases, {time.time() - t0:.1f}s", flush=True)


# ----------------------------------------------------------------------------------------
# Falcon-H1: runner and closed form
# ----------------------------------------------------------------------------------------
def measure_falcon_h1(cases, quick, t0):
    """Falcon-H1, 2 layers. The Mamba2 mixer on the fused kernel (mamba_kernels cuda, what trains on a GPU with mamba_ssm)
    unless the case says mamba_kernels torch. mamba_rms_norm False (0.5B) and True (1.5B and up; gate first,
    norm_before_gate False) on every group.
    * fp32 / bf16 / amp_bf16 x eager / flash x no / reentrant / non-reentrant checkpointing, full fine-tune.
    * LoRA on FALCON_H1_LORA_TARGETS (not the mixer's out_proj), r 8 dropout 0 and r 16 dropout 0.05, fp32 / bf16 /
      amp_bf16 x eager / flash; and bf16 / amp_bf16 flash under non-reentrant checkpointing (r 16, dropout 0.05).
    * torch_forward (mamba_kernels torch): bf16 / amp_bf16 x eager / flash, full fine-tune and LoRA r 8 dropout 0."""
    fam = "falcon_h1"
    points = FALCON_H1_POINTS[:3] if quick else FALCON_H1_POINTS
    norms = (False, True)
    n0 = len(cases)

    def lora(p):
        return dict(r=8 if p == 0.0 else 16, alpha=16, dropout=p, targets=list(FALCON_H1_LORA_TARGETS), adapterDtype="fp32")

    for dtype in ("fp32", "bf16", "amp_bf16"):
        for attn in ("eager", "flash"):
            for ck in ("none", "full_reentrant", "full_nonreentrant"):
                for norm in norms:
                    for pi, pt in enumerate(points):
                        cases.append(measure(fam, pt, dtype, attn, ck, want_tensors=pi == 1 and ck == "none",
                                             cfg_overrides=dict(mamba_rms_norm=norm)))
    print(f"{fam}: {len(cases) - n0} cases, {time.time() - t0:.1f}s", flush=True)
    for p in (0.0, 0.05):
        for dtype in ("fp32", "bf16", "amp_bf16"):
            for attn in ("eager", "flash"):
                for norm in norms:
                    for pi, pt in enumerate(points):
                        cases.append(measure(fam, pt, dtype, attn, "none", lora=lora(p),
                                             want_tensors=pi == 1 and p == 0.05 and dtype != "fp32",
                                             cfg_overrides=dict(mamba_rms_norm=norm)))
    for dtype in ("bf16", "amp_bf16"):
        for norm in norms:
            for pt in points:
                cases.append(measure(fam, pt, dtype, "flash", "full_nonreentrant", lora=lora(0.05),
                                     cfg_overrides=dict(mamba_rms_norm=norm)))
    print(f"{fam} lora: {len(cases) - n0} cases, {time.time() - t0:.1f}s", flush=True)
    for dtype in ("bf16", "amp_bf16"):
        for attn in ("eager", "flash"):
            for lo in (None, lora(0.0)):
                for norm in norms:
                    for pi, pt in enumerate(points):
                        cases.append(measure(fam, pt, dtype, attn, "none", lora=lo, mamba_kernels="torch",
                                             want_tensors=pi == 1 and lo is None and attn == "flash",
                                             cfg_overrides=dict(mamba_rms_norm=norm)))
    print(f"{fam} torch_forward: {len(cases) - n0} cases, {time.time() - t0:.1f}s", flush=True)


def falcon_h1_mixer_bytes(case, full):
    """Bytes one FalconH1Mixer saves, without its in_proj input (counted with the other linear inputs) and without LoRA
    adapters. Fused (mamba_kernels cuda): what MambaSplitConv1dScanCombinedFn keeps, zxbcdt and out_x in the dtype
    zxbcdt arrives in (fp32 under AMP: in_proj's bf16 output times the fp32 mup_vector buffer), rstd fp32 with the gated
    norm, A fp32 (and exp's result when A_log trains). torch_forward: mamba2.formula_bytes (bf16) and, under AMP, its
    differences (checked on every case)."""
    cf = case["config"]
    b, s = case["batch"], case["seq"]
    T = b * s
    d, H, P, G, N = (cf[k] for k in ("mamba_d_ssm", "mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state"))
    proj = 2 * d + 2 * G * N + H
    norm = cf["mamba_rms_norm"]
    dt = case["dtype"]
    if case.get("mamba_kernels", "cuda") == "cuda":
        Z = 2 if dt == "bf16" else 4  # zxbcdt's dtype: the model's (bf16 / fp32), fp32 under AMP (the mup_vector product)
        return Z * T * proj + Z * T * d + (4 * T * G if norm else 0) + 4 * H + (4 * H if full else 0)
    assert dt in ("bf16", "amp_bf16")
    pt = dict(b=b, s=s, hidden=cf["hidden_size"], H=H, P=P, G=G, N=N, K=cf["mamba_d_conv"], C=cf["mamba_chunk_size"])
    fnorm = "none" if not norm else ("norm_first" if cf["mamba_norm_before_gate"] else "gate_first")
    n = m2.formula_bytes(pt, "falcon_h1", "torch", full, falcon_norm=fnorm) - (2 * T * cf["hidden_size"] if full else 0)
    if dt == "amp_bf16":
        Dc = d + 2 * G * N
        # conv1d gets autocast's bf16 copy of the xBC slice (and of its weight, 3-D so not filed as savedParamCast), and
        # the fp32 zxbcdt itself stays (silu / the gated norm keep the gate, a view of it) instead of a bf16 zxbcdt
        n += 2 * T * Dc + 2 * Dc * cf["mamba_d_conv"] + (4 - 2) * T * proj
        n += 3 * 2 * T * H  # softplus / clamp keep fp32 (b, s, H) instead of bf16
        assert fnorm in ("none", "gate_first")
        n += 2 * T * d if fnorm == "none" else -4 * T * d  # silu(gate) fp32 / gate.float() is the zxbcdt view already
    return n


def falcon_h1_formula(case):
    """Closed form of a falcon_h1 case's perLayerList (bytes per layer; see README.md, Falcon-H1)."""
    cf = case["config"]
    b, s = case["batch"], case["seq"]
    T = b * s
    h, nh, kv, hd, I = (cf[k] for k in ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                                        "intermediate_size"))
    Aq, Akv, S2, BHS = T * nh * hd, T * kv * hd, b * nh * s * s, b * nh * s
    dt, lo = case["dtype"], case["lora"]
    full = not lo
    L = cf["num_hidden_layers"]
    R = 2 if dt == "bf16" else 4  # residual stream
    a = 4 if dt == "fp32" else 2  # a linear's input / output (autocast: bf16)
    amp = dt == "amp_bf16"
    if case["checkpointing"] != "none":
        return [R * T * h] * L  # the layer input (the mask, cos / sin and position ids are shared)
    n = 2 * (4 * T * h + 4 * T) + (2 * R * T * h if full else 0)  # input_layernorm, pre_ff_layernorm
    if full:  # the linears' inputs: in_proj; q / k / v (AMP: one bf16 copy each); gate / up (AMP: one each)
        n += a * T * h * (1 + (3 if amp else 1) + (2 if amp else 1))
    n += falcon_h1_mixer_bytes(case, full)
    if case["attention"] == "eager":  # q, repeat_kv(k), repeat_kv(v) copies, fp32 softmax (+ 16-bit probs), o_proj input
        n += 3 * a * Aq + (a * Aq if full else 0) + 4 * S2 + (2 * S2 if a == 2 else 0)
    else:  # flash: q, k, v, out (= o_proj input), lse (the emulation's lse is bf16 under AMP)
        n += 2 * a * Aq + 2 * a * Akv + (2 if amp else 4) * BHS
    n += 3 * a * T * I + (a * T * I if full else 0)  # silu input, silu output, up output, down_proj input
    if lo:
        r, p = lo["r"], lo["dropout"]
        ins = {"in_proj": h, "q_proj": h, "k_proj": h, "v_proj": h, "o_proj": nh * hd, "gate_proj": h, "up_proj": h,
               "down_proj": I}
        shared_input = {"q_proj": "attn", "k_proj": "attn", "v_proj": "attn", "gate_proj": "mlp", "up_proj": "mlp"}
        seen = set()
        for t in lo["targets"]:
            w = ins[t]
            if dt == "fp32":  # the adapter reads its input as is: q / k / v (gate / up) share one; flash's out is counted
                if p > 0:
                    n += 5 * T * w
                elif shared_input.get(t, t) not in seen and not (t == "o_proj" and case["attention"] == "flash"):
                    n += 4 * T * w
                seen.add(shared_input.get(t, t))
                n += 4 * T * r
            elif dt == "bf16":  # fp32 adapters: an fp32 copy of the input (p > 0: its bool mask and the dropped copy)
                n += (5 if p > 0 else 4) * T * w + 4 * T * r
            else:  # AMP: autocast's bf16 copy of the (fp32-cast, dropped) input, bf16 A output
                n += (3 if p > 0 else 2) * T * w + 2 * T * r
        # layer 0 reads the frozen embeddings: its input_layernorm saves nothing and the adapters reading the normed
        # input (in_proj, q, k, v) drop no grad-requiring tensor, so keep no mask
        first = n - (4 * T * h + 4 * T) - (sum(1 for t in lo["targets"] if t in ("in_proj", "q_proj", "k_proj", "v_proj")) * T * h if p > 0 else 0)
        return [first] + [n] * (L - 1)
    return [n] * L


OWN_CLOSED_FORM = {"falcon_h1": falcon_h1_formula}  # families checked against a closed form here, not formulas.json


def append_to_golden(path, fams, cases):
    """Replaces the cases of `fams` in an existing golden.json by `cases` (appended after every other case, where a full
    run writes them) and their familyConfigDefaults; leaves every other case byte for byte as it was."""
    with open(path) as f:
        out = json.load(f)
    before = {}
    for c in out["cases"]:
        before[c["family"]] = before.get(c["family"], 0) + 1
    new = compact(dict(cases=cases))
    out["cases"] = [c for c in out["cases"] if c["family"] not in fams] + new["cases"]
    for fam in fams:
        out["familyConfigDefaults"][fam] = new["familyConfigDefaults"][fam]
    for k, v in HF_SOURCES.items():
        out["hfSources"].setdefault(k, v)
    after = {}
    for c in out["cases"]:
        after[c["family"]] = after.get(c["family"], 0) + 1
    for fam in sorted(set(before) | set(after)):
        if fam not in fams:
            assert before.get(fam) == after.get(fam), fam
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("appended to", path, {f: (before.get(f, 0), after.get(f, 0)) for f in fams}, os.path.getsize(path), "bytes",
          len(out["cases"]), "cases")


FAMILY_RUNNERS = {"qwen3_5_text": measure_qwen3_5_text, "falcon_h1": measure_falcon_h1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--families", default=None)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--verify", default=None, help="only check formulas.json against an existing golden.json")
    ap.add_argument("--append", action="store_true",
                    help="measure only --families (default falcon_h1; each one of %s) and put their cases at the end of "
                         "the existing golden.json (--out, else the default path), replacing any earlier cases of those "
                         "families; every other case is left as it is" % ", ".join(LAST_FAMILIES))
    args = ap.parse_args()
    if args.verify:
        return 1 if verify(load_cases(args.verify)) else 0
    torch.set_num_threads(2)
    if args.append:
        fams = args.families.split(",") if args.families else ["falcon_h1"]
        assert all(f in LAST_FAMILIES for f in fams), f"--append takes families of {LAST_FAMILIES}"
        cases, t0 = [], time.time()
        for fam in fams:
            FAMILY_RUNNERS[fam](cases, args.quick, t0)
        mism = verify(cases)
        if not args.no_write and not mism:
            append_to_golden(args.out or DEFAULT_OUT, fams, cases)
        return 1 if mism else 0
    fams = ["llama", "qwen2", "gemma", "gemma2", "gemma3", "phi3", "gpt2", "gpt_neox", "bert", "t5", "mixtral", "qwen2_moe", "gpt_oss",
            "deepseek_v3", "glm4_moe", "llama4", "olmo2", "glm4", "bloom", "qwen3_5_text", "falcon_h1"]
    if args.families:
        fams = args.families.split(",")
    points = POINTS[:3] if args.quick else POINTS
    cases = []
    t0 = time.time()
    for fam in fams:
        if fam in LAST_FAMILIES:  # measured after every other group, so a full run appends them to golden.json
            continue
        attns = ["eager"] if fam in ("t5", "bloom") else ["eager", "flash"]
        for dtype in ("fp32", "bf16", "amp_bf16"):
            for attn in attns:
                for ck in ("none", "full_reentrant", "full_nonreentrant"):
                    for pi, pt in enumerate(points):
                        want = pi == 1 and ck == "none"
                        cases.append(measure(fam, pt, dtype, attn, ck, want_tensors=want))
        print(f"{fam}: {len(cases)} cases, {time.time() - t0:.1f}s", flush=True)
    # LoRA (llama family only)
    if "llama" in fams:
        for targets in (["q_proj", "v_proj"], "all-linear"):
            for r in (8, 64):
                for p in (0.05, 0.0):
                    for dtype in ("fp32", "bf16", "amp_bf16"):
                        for attn in ("eager", "flash"):
                            for pi, pt in enumerate(points):
                                lora = dict(r=r, alpha=16, dropout=p, targets=targets,
                                            adapterDtype="fp32")
                                want = pi == 1 and r == 8 and attn == "eager"
                                cases.append(measure("llama", pt, dtype, attn, "none", lora=lora, want_tensors=want))
        # LoRA + checkpointing (non-reentrant: reentrant needs enable_input_require_grads with frozen embeddings)
        for dtype in ("bf16", "amp_bf16"):
            for pt in points:
                lora = dict(r=8 if pt[2] % 128 else 64, alpha=16, dropout=0.05, targets="all-linear", adapterDtype="fp32")
                cases.append(measure("llama", pt, dtype, "flash", "full_nonreentrant", lora=lora))
        print(f"lora: {len(cases)} cases, {time.time() - t0:.1f}s", flush=True)
        # QLoRA: 4-bit base linears (bitsandbytes Linear4bit), bf16 model, autocast, with the fp32 upcasts of
        # PEFT's prepare_model_for_kbit_training ("all"), of TRL's SFTTrainer before Nov 2025 ("norms"), or none.
        for up in ("none", "norms", "all"):
            for targets in (["q_proj", "v_proj"], "all-linear"):
                for ck in ("none", "full_nonreentrant"):
                    for attn in ("eager", "flash"):
                        for pi, pt in enumerate(points):
                            lora = dict(r=8, alpha=16, dropout=0.05 if pi % 2 else 0.0, targets=targets,
                                        adapterDtype="fp32", quantized="nf4", kbitUpcast=up)
                            want = pi == 1 and ck == "none" and attn == "flash" and targets == "all-linear"
                            cases.append(measure("llama", pt, "qlora_amp_bf16", attn, ck, lora=lora, want_tensors=want))
        print(f"qlora: {len(cases)} cases, {time.time() - t0:.1f}s", flush=True)
    # LoRA on the attention projections (gpt-oss: PEFT all-linear reaches nothing else, its experts
    # and router are not nn.Linear; DeepSeek: the MLA projections)
    attention_targets = {"gpt_oss": ["q_proj", "k_proj", "v_proj", "o_proj"],
                         "deepseek_v3": ["q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"],
                         "glm4_moe": ["q_proj", "k_proj", "v_proj", "o_proj"],
                         "llama4": ["q_proj", "k_proj", "v_proj", "o_proj"],
                         "olmo2": ["q_proj", "k_proj", "v_proj", "o_proj"],
                         "glm4": ["q_proj", "k_proj", "v_proj", "o_proj"],
                         "bloom": ["query_key_value"]}
    for fam, targets in attention_targets.items():
        if fam not in fams:
            continue
        for dtype in ("bf16", "amp_bf16"):
            for attn in ("eager",) if fam == "bloom" else ("eager", "flash"):
                for pt in points:
                    lora = dict(r=8, alpha=16, dropout=0.0, targets=targets, adapterDtype="fp32")
                    cases.append(measure(fam, pt, dtype, attn, "none", lora=lora))
        print(f"{fam} lora: {len(cases)} cases, {time.time() - t0:.1f}s", flush=True)
    for fam in LAST_FAMILIES:  # in this order, after every other family
        if fam in fams:
            FAMILY_RUNNERS[fam](cases, args.quick, t0)
    mism = verify(cases)
    out = dict(generator="tools/activations/measure.py", torch=torch.__version__, hfSources=HF_SOURCES,
               notes="bytes of storages saved for backward (dedup by storage, full nbytes), see tools/activations/README.md",
               cases=cases)
    path = args.out or (None if (args.quick or args.no_write) else DEFAULT_OUT)
    if path:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(compact(out), f, separators=(",", ":"))
        print("wrote", path, os.path.getsize(path), "bytes", len(cases), "cases")
    return 1 if mism else 0


if __name__ == "__main__":
    sys.exit(main())
