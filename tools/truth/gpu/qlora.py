"""bitsandbytes 4-bit models on the GPU with the library's own CUDA kernels.

bitsandbytes is not on the machine's package index. Its Python code comes from a source checkout (BNB_SRC, the
release the fixtures name) and its native library is built from the same checkout for the H100 alone
(build_bnb.sh), so quantize, dequantize and the 4-bit matmul are the library's CUDA kernels and allocate what they
allocate for a user.

The model is loaded as from_pretrained loads a checkpoint with a BitsAndBytesConfig, without a checkpoint: the
quantizer transformers picks for the config (AutoHfQuantizer) turns the model built on the meta device into
Linear4bit layers (preprocess_model), each weight is then made on the GPU in the weights' dtype, with random values,
and quantized there by bitsandbytes.nn.Params4bit (transformers' Bnb4bitQuantize: Params4bit(value,
**old_value.__dict__).to(value.device)), the 16-bit copy freed; the parameters left unquantized and the buffers are
allocated on the GPU in module order, and the quantizer's postprocess_model marks the model loaded in 4 bits.
"""
import os

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def device():
    """cuda; cpu for a smoke test of this module on a machine without a GPU (TRUTH_SMOKE_CPU=1: bitsandbytes' CPU
    stand-ins, truthlib/bnb.py)."""
    return "cpu" if os.environ.get("TRUTH_SMOKE_CPU") == "1" else "cuda"


def quantization_config(scenario):
    """The BitsAndBytesConfig a script gives for the scenario: NF4 / FP4, double quantization as it says, the weights'
    dtype as the compute dtype, the packed codes stored as uint8 or, under FSDP, in the weights' dtype
    (bnb_4bit_quant_storage, which FSDP's flat parameters need)."""
    from transformers import BitsAndBytesConfig

    quant = scenario["quantization"]
    if quant.get("bits") != 4:
        raise ValueError("the GPU points quantize to 4 bits only")
    dtype = DTYPES[scenario["weights_dtype"]]
    storage = dtype if scenario.get("fsdp", "none") != "none" else torch.uint8
    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=quant.get("type", "nf4"),
                              bnb_4bit_use_double_quant=bool(quant.get("double_quant", False)), bnb_4bit_compute_dtype=dtype,
                              bnb_4bit_quant_storage=storage)


def build(config, scenario, attention):
    """The 4-bit model of `config` on the GPU, as from_pretrained leaves it (module docstring)."""
    from transformers import AutoModelForCausalLM
    from transformers.quantizers import AutoHfQuantizer
    from truthlib import bnb as bnb_source

    if device() == "cpu":
        bnb_source.install()  # the CPU stand-ins for the CUDA kernels
    else:
        bnb_source.on_path()  # the library's own kernels (its native library built by bnb_build.sh)
    import bitsandbytes as bnb

    dtype = DTYPES[scenario["weights_dtype"]]
    quantizer = AutoHfQuantizer.from_config(quantization_config(scenario), pre_quantized=False)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attention)
    quantizer.preprocess_model(model=model, dtype=dtype, device_map={"": device()}, checkpoint_files=None, use_kernels=False)
    if scenario.get("harness", {}).get("warmup"):
        # from_pretrained's caching_allocator_warmup (transformers >= 4.50): one block of the loaded model's bytes (4-bit
        # weights at half a byte per element) allocated and freed before the weights load, so they load into it
        from transformers.modeling_utils import caching_allocator_warmup, expand_device_map

        caching_allocator_warmup(model, expand_device_map({"": device()}, list(model.state_dict())), quantizer)
    load(model, dtype, bnb.nn.Params4bit)
    model.hf_quantizer = quantizer
    quantizer.postprocess_model(model)
    return model


def load(model, dtype, params4bit):
    """Every tensor of a meta-device model made on the GPU in module order, a tied one once; 4-bit weights quantized
    from a random 16-bit value made on the GPU (freed once quantized), the others random, the rotary tables
    recomputed."""
    made = {}
    with torch.no_grad():
        for module in model.modules():
            for name, t in list(module._parameters.items()):
                if t is None:
                    continue
                if id(t) not in made:
                    made[id(t)] = _weight(t, dtype, params4bit)
                module._parameters[name] = made[id(t)]
            for name, t in list(module._buffers.items()):
                if t is not None:
                    module._buffers[name] = made.setdefault(id(t), torch.empty_like(t, device=device()))
            if hasattr(module, "rope_init_fn") and hasattr(module, "inv_freq"):
                module.inv_freq.copy_(module.rope_init_fn(module.config, module.inv_freq.device)[0])


def _weight(meta, dtype, params4bit):
    if isinstance(meta, params4bit):
        value = torch.empty(meta.shape, dtype=dtype, device=device()).normal_(0, 0.02)
        quantized = params4bit(value, requires_grad=False, **meta.__dict__).to(value.device)
        del value
        return quantized
    value = torch.empty_like(meta, device=device())
    if value.is_floating_point():
        value.normal_(0, 0.02)
    return torch.nn.Parameter(value, requires_grad=meta.requires_grad)
