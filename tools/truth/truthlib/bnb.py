"""bitsandbytes from a source checkout (BNB_SRC), its 4-bit kernels on the CPU allocating what the CUDA ones do.

bitsandbytes is not on the machine's package index; its Python code runs on the CPU from a checkout (git clone
https://github.com/bitsandbytes-foundation/bitsandbytes; the fixtures name the release) with no native library:
transformers' BitsAndBytesConfig loading, Params4bit, Linear4bit, MatMul4Bit, PEFT's 4-bit LoRA layers are the
library's own. What is not its own is the arithmetic of five ops (bitsandbytes::quantize_4bit, dequantize_4bit,
quantize_blockwise, dequantize_blockwise and their .out forms), which on a GPU are CUDA kernels that allocate their
outputs and nothing else (bitsandbytes/backends/cuda/ops.py: `out = torch.empty(...)`, then the kernel). On the CPU
they fall to the library's pure-PyTorch implementations (backends/default/ops.py), which make full-size temporaries
(the unpacked codes as int32 and fp32, the scaled copies). The kernels registered here for the CPU run those same
implementations inside a range named `bnb_cuda_like::<op>`; memory.Timeline.exclude_kernel_internals leaves out what
is allocated and freed inside such a range, so the outputs alone count, as on a GPU.

bitsandbytes::gemm_4bit (MatMul4Bit's forward, and matmul_4bit without a gradient) runs here as the CUDA backend's
`_dequant_linear_fallback` does, which is its path for training shapes (backends/cuda/ops.py: more than 1,536 rows of
the input, or a shape its heuristic gives to dequantization): the nested absmax dequantized into an fp32 tensor (one
per 64 weights) and a second one with the offset added, both held by the function to its return, the weight
dequantized whole in the input's dtype, F.linear. (The fused cgemm_4bit kernel it picks for a few rows allocates only
the output; the default backend's composite frees the first absmax at once.)
"""
import os
import sys

from . import ds_meta

KERNEL_RANGE = "bnb_cuda_like::"
OPS = ("quantize_4bit", "dequantize_4bit", "quantize_blockwise", "dequantize_blockwise")

_installed = False
# The kernel registrations: a torch.library.Library unregisters its kernels when collected, so they are kept here.
_LIBRARIES = []


def release(src):
    """The checkout's release: bitsandbytes/__init__.py `__version__`."""
    with open(os.path.join(src, "bitsandbytes", "__init__.py")) as f:
        for line in f:
            if line.startswith("__version__"):
                return line.split("=", 1)[1].strip().strip("\"'")
    raise RuntimeError(f"no __version__ in {src}/bitsandbytes/__init__.py")


def install():
    """The checkout (BNB_SRC: the directory holding `bitsandbytes/`) and a dist-info of its release on the path
    (transformers and PEFT take bitsandbytes as installed only when its metadata is found), then the CPU kernels."""
    global _installed
    if _installed:
        return
    on_path()
    _register_cpu_kernels()
    _installed = True


def on_path():
    """The checkout (BNB_SRC) and its dist-info on the path, no kernels of ours: where its native library is built
    (gpu/bnb_build.sh), the library's own CUDA and CPU kernels run."""
    src = os.environ.get("BNB_SRC")
    if not src or not os.path.isdir(os.path.join(src, "bitsandbytes")):
        raise RuntimeError("a 4-bit point needs BNB_SRC: a bitsandbytes source checkout (setup.sh)")
    if src not in sys.path:
        sys.path.insert(0, src)
        ds_meta.dist_info("bitsandbytes", release(src))


def _register_cpu_kernels():
    import torch
    from torch.autograd.profiler import record_function

    defaults = _import_recording_default_kernels()

    def cuda_like(name, fn):
        def kernel(*args, **kwargs):
            with record_function(KERNEL_RANGE + name):
                return fn(*args, **kwargs)

        return kernel

    def out_form(name, fn):
        def kernel(*args, **kwargs):
            out = kwargs.pop("out", None)
            if out is None:  # the dispatcher passes the schema's `out` positionally
                *args, out = args
            with record_function(KERNEL_RANGE + name):
                out.copy_(fn(*args, **kwargs))

        return kernel

    def gemm_4bit(A, B, shapeB, absmax, blocksize, quant_type, bias=None, absmax_8bit=None, absmax_code=None,
                  absmax_offset=None):
        # backends/cuda/ops.py _dequant_linear_fallback, allocation for allocation.
        if absmax_8bit is not None:
            absmax_dq = torch.empty_like(absmax_8bit, dtype=torch.float32)
            torch.ops.bitsandbytes.dequantize_blockwise.out(absmax_8bit, absmax, absmax_code, 256, torch.float32, out=absmax_dq)
            absmax = absmax_dq + absmax_offset
        B_dq = torch.empty(shapeB, dtype=A.dtype, device=A.device)
        torch.ops.bitsandbytes.dequantize_4bit.out(B, absmax, blocksize, quant_type, shapeB, A.dtype, out=B_dq)
        return torch.nn.functional.linear(A, B_dq, bias)

    lib = torch.library.Library("bitsandbytes", "IMPL")  # noqa: TOR901 (kept for the process: the kernels stay)
    lib.impl("gemm_4bit", gemm_4bit, "CPU")
    for name in OPS:
        lib.impl(name, cuda_like(name, defaults[name]), "CPU")
        if name.startswith("de"):
            lib.impl(name + ".out", out_form(name, defaults[name]), "CPU")
    _LIBRARIES.append(lib)



def _import_recording_default_kernels():
    """Imports bitsandbytes while noting the kernels its default backend registers (torch.library.register_kernel
    with device "default"), by op name, and returns them."""
    import torch

    defaults = {}
    original = torch.library.register_kernel

    def register_kernel(op, device_types, func=None, **kwargs):
        def note(fn):
            if device_types == "default":
                defaults[str(op).split("::", 1)[1]] = getattr(fn, "__wrapped__", fn)
            return original(op, device_types, fn, **kwargs)

        return note if func is None else note(func)

    torch.library.register_kernel = register_kernel
    try:
        import bitsandbytes  # noqa: F401
        from bitsandbytes.backends.default import ops as default_ops
    finally:
        torch.library.register_kernel = original
    # The default backend wraps its arithmetic in torch.compile (_try_torch_compile); compiling it here only costs time.
    for name in ("_dequantize_4bit_compute", "_dequantize_blockwise_compute"):
        fn = getattr(default_ops, name, None)
        if fn is not None:
            setattr(default_ops, name, getattr(fn, "__wrapped__", fn))
    missing = [n for n in OPS if n not in defaults]
    if missing:
        raise RuntimeError(f"bitsandbytes registered no default kernel for {missing}")
    return defaults
