"""`attention: flash` on the CPU: transformers' own flash_attention_2 path with a stand-in for the CUDA kernel.

What runs is transformers' real integration (integrations/flash_attention.py flash_attention_forward,
modeling_flash_attention_utils._flash_attention_forward): the transposes, PEFT's fp32 check, the unpad of a padded
batch (_upad_input: _index_first_axis of q, k and v) and the pad of the output (flash_attn.bert_padding.pad_input),
the varlen path of packed position ids, and the masks masking_utils builds for flash attention. Only what the
`flash-attn` package would do on a GPU is written here, from flash-attn 2.8's source:

- flash_attn_interface.py: FlashAttnFunc / FlashAttnVarlenFunc make q, k, v contiguous only where the last dimension
  is strided (maybe_contiguous), pad a head dimension that is not a multiple of 8, and keep
  (q, k, v, out_padded, softmax_lse, rng_state) for the backward; the backward allocates dq, dk, dv with empty_like.
- csrc/flash_attn/flash_api.cpp: mha_fwd allocates out = empty_like(q), softmax_lse fp32 (batch, heads, seqlen_q)
  (varlen: (heads, total_q)) and rng_state (2 x int64); mha_bwd allocates softmax_d fp32 (batch, heads, seqlen_q
  rounded to 128), the fp32 dq accumulator (batch, seqlen_q rounded, heads, head_dim rounded; varlen: (heads,
  total_q + 128 x batch, head_dim rounded)) and, for grouped key/value heads, dk and dv expanded to every query head,
  which it sums into dk and dv before returning.
- bert_padding.py: IndexPutFirstAxis (pad_input) keeps only the indices.

The kernel's tiles live in on-chip memory, so the stand-in computes nothing that allocates: the output is the value
heads broadcast over their query heads, the gradients are copies and sums of the incoming gradient. The numbers are
not attention, the allocations are the kernel's. `install()` points transformers' lazy import at these functions;
`use(model)` switches a model built with SDPA to flash_attention_2 (transformers refuses to build it so on a CPU).
"""
import math

import torch


def _contiguous_last(x):
    return x.contiguous() if x is not None and x.stride(-1) != 1 else x


def _round(x, m):
    return (x + m - 1) // m * m


def _head_rounded(d):
    return _round(d, 32) if d <= 192 else 256


def _pad_head(x):
    d = x.size(-1)
    return torch.nn.functional.pad(x, [0, 8 - d % 8]) if d % 8 != 0 else x


def _splits(deterministic, batch_heads):
    """deterministic: one dq accumulator per split, nsplits = ceil(SMs / (batch x heads)) (an H100's 132 SMs)."""
    return [math.ceil(132 / batch_heads)] if deterministic else []


def _fill_out(out, v):
    """out (..., heads, d) <- v (..., kv_heads, d) broadcast over the query heads of each group: no allocation."""
    heads, kv = out.size(-2), v.size(-2)
    shape = (*out.shape[:-2], kv, heads // kv, out.size(-1))
    with torch.no_grad():
        out.view(shape).copy_(v.unsqueeze(-2).expand(shape))


def _backward(q, k, v, dout, softmax_d_shape, accum_shape, expanded_shape):
    """What mha_bwd / mha_varlen_bwd allocate, and dq, dk, dv (empty_like in the Python wrapper). Self-attention:
    dout has the rows of k and v."""
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    dout = _contiguous_last(_pad_head(dout))
    softmax_d = torch.empty(softmax_d_shape, dtype=torch.float32, device=q.device)  # noqa: F841 (freed on return)
    dq_accum = torch.empty(accum_shape, dtype=torch.float32, device=q.device)  # noqa: F841
    heads, kv = q.size(-2), k.size(-2)
    with torch.no_grad():
        dq.copy_(dout)
        if kv == heads:
            dk.copy_(dout)
            dv.copy_(dout)
        else:
            dk_expanded = torch.empty(expanded_shape, dtype=q.dtype, device=q.device)
            dv_expanded = torch.empty_like(dk_expanded)
            dk_expanded.copy_(dout)
            dv_expanded.copy_(dout)
            grouped = (*expanded_shape[:-2], kv, heads // kv, expanded_shape[-1])
            torch.sum(dk_expanded.view(grouped), dim=-2, out=dk)
            torch.sum(dv_expanded.view(grouped), dim=-2, out=dv)
    return dq, dk, dv


class FlashAttnFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic):
        head_size_og = q.size(3)
        q, k, v = (_pad_head(x) for x in (q, k, v))
        with torch.profiler.record_function("flash_attn::fwd"):
            out_padded = torch.empty_like(_contiguous_last(q))
            _fill_out(out_padded, v)
            b, s, h = q.size(0), q.size(1), q.size(2)
            softmax_lse = torch.zeros((b, h, s), dtype=torch.float32, device=q.device)
            rng_state = torch.zeros(2, dtype=torch.int64, device=q.device)
        ctx.save_for_backward(q, k, v, out_padded, softmax_lse, rng_state)
        ctx.deterministic = deterministic
        return out_padded[..., :head_size_og]

    @staticmethod
    def backward(ctx, dout):
        q, k, v, _out, _lse, _rng = ctx.saved_tensors
        b, s, h, d = q.shape
        s_r, d_r = _round(s, 128), _head_rounded(d)
        splits = _splits(ctx.deterministic, b * h)
        with torch.profiler.record_function("flash_attn::bwd"):
            dq, dk, dv = _backward(q, k, v, dout, (b, h, s_r), (*splits, b, s_r, h, d_r), (b, k.size(1), h, d))
        head_size_og = dout.size(3)
        return dq[..., :head_size_og], dk[..., :head_size_og], dv[..., :head_size_og], None, None, None, None, None, None, None


class FlashAttnVarlenFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal,
                window_size, softcap, alibi_slopes, deterministic):
        head_size_og = q.size(2)
        q, k, v = (_pad_head(x) for x in (q, k, v))
        with torch.profiler.record_function("flash_attn::varlen_fwd"):
            out_padded = torch.empty_like(_contiguous_last(q))
            _fill_out(out_padded, v)
            softmax_lse = torch.zeros((q.size(1), q.size(0)), dtype=torch.float32, device=q.device)
            rng_state = torch.zeros(2, dtype=torch.int64, device=q.device)
        ctx.save_for_backward(q, k, v, out_padded, softmax_lse, rng_state, cu_seqlens_q, cu_seqlens_k)
        ctx.max_seqlen_q = max_seqlen_q
        ctx.deterministic = deterministic
        return out_padded[..., :head_size_og]

    @staticmethod
    def backward(ctx, dout):
        q, k, v, _out, _lse, _rng, cu_q, _cu_k = ctx.saved_tensors
        total_q, h, d = q.shape
        batch = cu_q.numel() - 1
        s_r, d_r = _round(int(ctx.max_seqlen_q), 128), _head_rounded(d)
        splits = _splits(ctx.deterministic, batch * h)
        with torch.profiler.record_function("flash_attn::varlen_bwd"):
            dq, dk, dv = _backward(q, k, v, dout, (batch, h, s_r), (*splits, h, total_q + 128 * batch, d_r), (k.size(0), h, d))
        head_size_og = dout.size(2)
        return (dq[..., :head_size_og], dk[..., :head_size_og], dv[..., :head_size_og]) + (None,) * 11


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
                    alibi_slopes=None, deterministic=False, return_attn_probs=False):
    return FlashAttnFunc.apply(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0,
                           softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                           deterministic=False, return_attn_probs=False, block_table=None):
    return FlashAttnVarlenFunc.apply(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
                                     softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic)


class IndexPutFirstAxis(torch.autograd.Function):
    """bert_padding.py: a zero tensor of the padded rows, the values put at their indices; keeps the indices."""

    @staticmethod
    def forward(ctx, values, indices, first_axis_dim):
        ctx.save_for_backward(indices)
        output = torch.zeros(first_axis_dim, *values.shape[1:], device=values.device, dtype=values.dtype)
        output[indices] = values
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (indices,) = ctx.saved_tensors
        return grad_output[indices], None, None


def pad_input(hidden_states, indices, batch, seqlen):
    output = IndexPutFirstAxis.apply(hidden_states, indices, batch * seqlen)
    return output.view(batch, seqlen, *output.shape[1:])


_installed = False


def install():
    """Points transformers' lazy import of flash_attention_2 at the functions above (once per process)."""
    global _installed
    if _installed:
        return
    from transformers import modeling_flash_attention_utils as fa

    real = fa._lazy_imports

    def lazy_imports(implementation, attention_wrapper=None, allow_all_kernels=False):
        if implementation == "flash_attention_2":
            # unpad_input serves only a query shorter than its keys (decoding), never a training step: transformers'
            # own copy of it stands in.
            return flash_attn_func, flash_attn_varlen_func, None, pad_input, fa._unpad_input
        return real(implementation, attention_wrapper, allow_all_kernels=allow_all_kernels)

    fa._lazy_imports = lazy_imports
    _installed = True


def use(model):
    """Switches a model built with SDPA to transformers' flash_attention_2 path (install() first)."""
    install()
    for config in {id(c): c for c in _configs(model)}.values():
        config._attn_implementation = "flash_attention_2"
    return model


def _configs(model):
    for module in model.modules():
        config = getattr(module, "config", None)
        if config is not None and hasattr(config, "_attn_implementation"):
            yield config
