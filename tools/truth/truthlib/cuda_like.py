"""Where CPU kernels allocate differently from CUDA ones, the CUDA behaviour, so CPU truth points measure what a GPU
run allocates. `install()` registers both, once per process (point.py calls it).

Autocast. torch.autocast("cpu") and torch.autocast("cuda") keep different op lists (aten/src/ATen/autocast_mode.cpp).
CUDA runs pow, the unary transcendental ops (exp, log, rsqrt, ...), softplus and the layer / group norms in fp32
(`fp32`), and softmax /
log_softmax / sum / cumsum / prod with an fp32 output dtype unless one is given (`fp32_set_opt_dtype`); the CPU lists
leave these in the input's dtype. A model that calls them on 16-bit tensors under autocast (GPT-2's gelu_new: 0.5 * x *
(1 + tanh(c * (x + 0.044715 * pow(x, 3))))) allocates fp32 tensors on a GPU and 16-bit ones on the CPU. Kernels
registered for the AutocastCPU dispatch key do what the CUDA ones do: cast 16-bit floating inputs to fp32 (or set the
output dtype) and call the op below autocast. Autograd sits below the autocast keys, so the casts and the op are
recorded as on a GPU.

bmm. matmul does not fold a strided 3-D input into one matrix when the weight needs no gradient (LinearAlgebra.cpp
should_fold: a frozen head applied to hidden_states[:, -k:, :], as logits_to_keep does), and runs bmm over the weight
expanded to the batch with batch stride 0. The CPU bmm makes that operand contiguous, a copy of batch x the weight;
cuBLAS takes the stride 0 as it is (aten/src/ATen/native/cuda/Blas.cpp prepare_batch_matrix_for_cublas). The CPU
kernel registered here multiplies batch by batch into one output, which allocates what the CUDA kernel does.

Dropout. On a CUDA tensor with 0 < p < 1, at::dropout calls native_dropout (aten/src/ATen/native/Dropout.cpp
is_fused_kernel_acceptable), whose backward keeps a bool mask (1 B per element). On the CPU it multiplies the input by a
noise tensor of the input's dtype and keeps that (4 B per element for an fp32 LoRA input). native_dropout runs on the
CPU too and keeps the same bool mask, so F.dropout calls it here where CUDA would.

SDPA in fp32 with grouped key-value heads. transformers 5 hands SDPA the un-repeated key and value heads with
enable_gqa=True when it has no mask. On a GPU no fused kernel takes that in fp32 (flash and cuDNN want 16-bit inputs,
the memory-efficient kernel no grouped heads: sdp_utils.cpp check_batch_size_and_num_heads_dense<false>), so
_scaled_dot_product_attention_math runs and keeps the fp32 probabilities; the CPU's flash kernel takes it and keeps
none. GPU truth (H100, torch 2.11): pure fp32 qwen2.5-0.5b at 2 x 1,024 tokens allocates 3.0 GiB more than the flash
path. Such calls run the math kernel here too; not under autocast, which casts SDPA's inputs to 16 bits first.

Nemotron's LayerNorm1P. modeling_nemotron._cast_if_autocast_enabled asks torch.is_autocast_enabled() without a device,
which is CUDA's autocast: on a GPU under autocast it casts the norm's input, weight and bias to the autocast dtype and
normalizes in 16 bits; on the CPU it answers false and the norm runs in fp32. It asks the device it is given here.
"""
import torch

_LOW = (torch.float16, torch.bfloat16)
_AUTOCAST_CPU = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastCPU)

# CUDA's `fp32` list, restricted to overloads whose only floating inputs are tensors the kernel casts.
FP32_OPS = [
    "pow.Tensor_Scalar",
    "pow.Tensor_Tensor",
    "pow.Scalar",
    "acos",
    "asin",
    "cosh",
    "erfinv",
    "exp",
    "expm1",
    "log",
    "log10",
    "log2",
    "log1p",
    "reciprocal",
    "rsqrt",
    "sinh",
    "tan",
    "softplus",
    # The norms: CUDA normalizes 16-bit inputs in fp32 and returns fp32 (GPT-2's and GPT-NeoX's nn.LayerNorm under
    # autocast keep an fp32 copy of their input for backward); CPU autocast leaves them in the input's dtype.
    "layer_norm",
    "native_layer_norm",
    "group_norm",
]
# CUDA's `fp32_set_opt_dtype` list: the op gets dtype=float32 when its input is 16-bit and no dtype is given.
OPT_DTYPE_OPS = ["softmax.int", "log_softmax.int", "sum", "sum.dim_IntList", "cumsum", "prod", "prod.dim_int"]

_library = None


def _to_fp32(x):
    if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dtype in _LOW:
        return x.float()
    return x


def _fp32_kernel(op):
    def kernel(*args, **kwargs):
        with torch._C._ExcludeDispatchKeyGuard(_AUTOCAST_CPU):
            return op(*[_to_fp32(a) for a in args], **{k: _to_fp32(v) for k, v in kwargs.items()})

    return kernel


def _opt_dtype_kernel(op):
    # softmax.int takes its dtype positionally (third argument); sum, cumsum and prod as a keyword.
    arguments = op._schema.arguments
    index = next(i for i, a in enumerate(arguments) if a.name == "dtype")
    positional = not arguments[index].kwarg_only

    def kernel(*args, **kwargs):
        with torch._C._ExcludeDispatchKeyGuard(_AUTOCAST_CPU):
            x = args[0]
            if isinstance(x, torch.Tensor) and x.dtype in _LOW:
                if positional and len(args) > index:
                    if args[index] is None:
                        args = (*args[:index], torch.float32, *args[index + 1 :])
                elif kwargs.get("dtype") is None:
                    kwargs = {**kwargs, "dtype": torch.float32}
            return op(*args, **kwargs)

    return kernel


def _bmm_cpu(self, mat2):
    out = torch.empty((self.shape[0], self.shape[1], mat2.shape[2]), dtype=self.dtype)
    for i in range(self.shape[0]):
        torch.mm(self[i], mat2[i], out=out[i])
    return out


def _dropout_like_cuda(dropout):
    def kernel(input, p=0.5, training=True, inplace=False):
        if training and 0 < p < 1 and not inplace and input.numel() > 0:
            return torch.native_dropout(input, p, True)[0]
        return dropout(input, p, training, inplace)

    return kernel


def _sdpa_like_cuda(sdpa):
    def kernel(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
        # Under autocast SDPA runs in the autocast dtype (CUDA's lower_precision_fp list): an fp32 query (rotary
        # embeddings in fp32) is cast before the kernel is chosen.
        dtype = torch.get_autocast_dtype("cpu") if torch.is_autocast_enabled("cpu") else query.dtype
        if enable_gqa and dtype == torch.float32 and query.shape[-3] != key.shape[-3]:
            return torch.ops.aten._scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal,
                                                                     scale=scale, enable_gqa=True)[0]
        return sdpa(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, scale=scale,
                    enable_gqa=enable_gqa)

    return kernel


def install():
    """Registers the kernels once per process."""
    global _library
    if _library is not None:
        return
    _library = torch.library.Library("aten", "IMPL")
    for name in FP32_OPS:
        packet, _, overload = name.partition(".")
        op = getattr(getattr(torch.ops.aten, packet), overload or "default")
        _library.impl(name, _fp32_kernel(op), "AutocastCPU")
    for name in OPT_DTYPE_OPS:
        packet, _, overload = name.partition(".")
        op = getattr(getattr(torch.ops.aten, packet), overload or "default")
        _library.impl(name, _opt_dtype_kernel(op), "AutocastCPU")
    _library.impl("bmm", _bmm_cpu, "CPU")
    torch.nn.functional.dropout = _dropout_like_cuda(torch.nn.functional.dropout)
    torch.nn.functional.scaled_dot_product_attention = _sdpa_like_cuda(torch.nn.functional.scaled_dot_product_attention)
    _nemotron_norm_like_cuda()


def _nemotron_norm_like_cuda():
    """LayerNorm1P's autocast check asks the device its input is on (see the module's docstring)."""
    try:
        from transformers.models.nemotron import modeling_nemotron
    except ImportError:
        return

    def cast_if_autocast_enabled(device_type, *args):
        if not torch.is_autocast_enabled(device_type):
            return args
        return torch.amp.autocast_mode._cast(args, device_type, torch.get_autocast_dtype(device_type))

    modeling_nemotron._cast_if_autocast_enabled = cast_if_autocast_enabled
