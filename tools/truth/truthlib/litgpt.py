"""LitGPT's own model and LoRA code from a source checkout (LITGPT_SRC), trained as its finetune/lora.py fit loop does.

LitGPT is not on the machine's package index; its model code runs from a checkout (git clone
https://github.com/Lightning-AI/litgpt; the fixtures name the commit). `config.py`, `model.py`, `lora.py` and `utils.py`
are loaded as the package's modules without its `__init__.py` (which imports the inference API and its dependencies);
`utils.py` needs Lightning (setup.sh installs it). What runs is the library's own: GPT, Block, CausalSelfAttention,
LoRAQKVLinear, LoRALinear, mark_only_lora_as_trainable and chunked_cross_entropy.

The loop is finetune/lora.py fit at one micro-batch per step: `logits = model(input_ids, lm_head_chunk_size=128)`,
the last chunk shifted, `loss = chunked_cross_entropy(logits, targets[..., 1:])`, backward, the optimizer step; for a
full fine-tune finetune/full.py's: the whole head at once, `chunked_cross_entropy(logits[..., :-1, :], ...)`. `logits`
and `loss` are rebound each step, so the last step's graph lives until the next forward returns, as in LitGPT. The
precision is Fabric's own plugin, wrapped around the forward as Fabric wraps it: bf16-true (HalfPrecision: the module
made and converted in bf16, adapters included) or bf16-mixed (MixedPrecision: fp32 weights under autocast).
"""
import importlib.util
import os
import subprocess
import sys
import types

import torch
from lightning.fabric.plugins.precision import HalfPrecision, MixedPrecision

from . import loop

# The estimator's transformers module names and LitGPT's LoRA switches (the analyzer's LORA_SWITCHES, reversed).
SWITCHES = {"q_proj": "lora_query", "k_proj": "lora_key", "v_proj": "lora_value", "o_proj": "lora_projection",
            "gate_proj": "lora_mlp", "up_proj": "lora_mlp", "down_proj": "lora_mlp", "lm_head": "lora_head"}


def source():
    src = os.environ.get("LITGPT_SRC")
    if not src or not os.path.isfile(os.path.join(src, "litgpt", "lora.py")):
        raise RuntimeError("a litgpt point needs LITGPT_SRC: a Lightning-AI/litgpt source checkout (setup.sh)")
    return src


def commit(src):
    """The checkout's commit, for the record (versions())."""
    try:
        return subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def modules(src):
    """litgpt.config, .model, .lora and .utils from the checkout, as submodules of a package with no __init__."""
    if "litgpt.lora" in sys.modules:
        return sys.modules["litgpt.lora"], sys.modules["litgpt.utils"]
    root = os.path.join(src, "litgpt")
    pkg = types.ModuleType("litgpt")
    pkg.__path__ = [root]
    sys.modules["litgpt"] = pkg

    def load(name):
        spec = importlib.util.spec_from_file_location(f"litgpt.{name}", os.path.join(root, f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"litgpt.{name}"] = module
        setattr(pkg, name, module)
        spec.loader.exec_module(module)
        return module

    utils = load("utils")
    load("config")
    load("model")
    return load("lora"), utils


def config(lora, scenario, harness):
    """A LitGPT Config from the scenario's transformers config fields and its LoRA targets: Llama-shaped, or LitGPT's
    own named config (harness `litgpt_name`: Gemma-2-2b, falcon-7b, stablelm-base-alpha-3b) at the scenario's sizes."""
    arch = scenario["architecture"]
    adapter = scenario.get("lora", {})
    targets = set(adapter.get("target_modules", ["q_proj", "v_proj"]))
    switches = {name: any(SWITCHES[t] == name for t in targets if t in SWITCHES) for name in set(SWITCHES.values())}
    heads = arch["num_attention_heads"]
    layers = arch["num_hidden_layers"]
    hidden = arch["hidden_size"]
    kv = 1 if arch.get("multi_query") else arch.get("num_key_value_heads", heads)
    sizes = dict(block_size=scenario["seq_len"], vocab_size=arch["vocab_size"], padded_vocab_size=arch["vocab_size"],
                 n_layer=layers, n_head=heads, n_embd=hidden, n_query_groups=kv,
                 intermediate_size=arch.get("intermediate_size", 4 * hidden), lora_r=adapter.get("r", 8),
                 lora_alpha=adapter.get("alpha", 16), lora_dropout=adapter.get("dropout", 0.0), **switches)
    name = harness.get("litgpt_name")
    if not name:
        return lora.Config(name="truth", rotary_percentage=1.0, parallel_residual=False, bias=False,
                           norm_class_name="RMSNorm", mlp_class_name="LLaMAMLP", **sizes)
    # LitGPT's named config (Falcon-7B, StableLM-alpha, Gemma 2) at the scenario's sizes.
    extra = dict(head_size=arch.get("head_dim", hidden // heads))
    if arch["model_type"] == "gemma2":
        # Its score scale, and every other layer's sliding window.
        extra.update(attention_scores_scalar=arch.get("query_pre_attn_scalar", extra["head_size"]),
                     sliding_window_indices=[1 if i % 2 == 0 else 0 for i in range(layers)])
    return lora.Config.from_name(name, **sizes, **extra)


def fabric_precision(scenario):
    """LitGPT's `precision` as Fabric's own plugin: bf16-true (HalfPrecision: the module made and converted in bf16) or
    bf16-mixed (MixedPrecision: fp32 weights, the forward under autocast, LitGPT's default for training on a bf16 GPU;
    autocast on the CPU allocates as on a GPU through cuda_like)."""
    weights, mixed = scenario.get("weights_dtype"), scenario.get("mixed_precision", "none")
    if weights == "bf16" and mixed == "none":
        return HalfPrecision("bf16-true")
    if weights in (None, "fp32") and mixed == "bf16":
        return MixedPrecision("bf16-mixed", device="cpu")
    raise ValueError("the litgpt runner runs precision bf16-true or bf16-mixed")


def fabric_forward(model, precision):
    """The forward as Fabric's wrapper runs it (lightning/fabric/wrappers.py _FabricModule.forward): the inputs
    converted, the module called in the precision's forward context, every floating output converted to the default
    dtype (HalfPrecision.convert_output: the head's bf16 chunks come back as fp32 copies)."""

    def forward(*args, **kwargs):
        args, kwargs = precision.convert_input((args, kwargs))
        with precision.forward_context():
            output = model(*args, **kwargs)
        return precision.convert_output(output)

    return forward


def run(rec, scenario, harness):
    method = scenario.get("method", "full")
    if scenario.get("gradient_checkpointing", "none") != "none" or method not in ("lora", "full"):
        raise ValueError("the litgpt runner runs finetune/lora.py or full.py on one device: no checkpointing")
    lora, utils = modules(source())
    precision = fabric_precision(scenario)
    torch.manual_seed(harness.get("seed", 0))
    with precision.module_init_context():
        # finetune/full.py builds litgpt.model.GPT; the LoRA config's extra fields are zero there.
        model = (lora.GPT if method == "lora" else sys.modules["litgpt.model"].GPT)(config(lora, scenario, harness))
    model = precision.convert_module(model)
    if method == "lora":
        lora.mark_only_lora_as_trainable(model)
    model.train()
    rec.watch_forward(model)
    opt = loop.make_optimizer(model, scenario)
    forward = fabric_forward(model, precision)
    batch, seq = scenario["micro_batch_size"], scenario["seq_len"]
    input_ids = torch.randint(0, scenario["architecture"]["vocab_size"], (batch, seq))
    targets = input_ids.clone()
    for step in range(harness.get("steps", 2)):
        with rec.step(step):
            if method == "lora":
                logits = forward(input_ids, lm_head_chunk_size=128)
                logits[-1] = logits[-1][..., :-1, :]
                loss = utils.chunked_cross_entropy(logits, targets[..., 1:])
            else:
                # finetune/full.py fit: the whole head at once, the cross-entropy in chunks.
                logits = forward(input_ids)
                loss = utils.chunked_cross_entropy(logits[..., :-1, :], targets[..., 1:])
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    return {"model": model, "optimizer": opt, "batchShape": [batch, seq]}
