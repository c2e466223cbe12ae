"""A plain PyTorch training loop (what a custom script or torchtitan-style trainer does), single-process or one rank
of DDP / FSDP1 / FSDP2 through the fake process group."""
import contextlib

import torch

from . import models, parallel


def enable_checkpointing(model, scenario, harness):
    """model.gradient_checkpointing_enable as the HF Trainer calls it (transformers 5: non-reentrant by default); with
    the scenario's `checkpoint_wrapper`, torch's apply_activation_checkpointing around each decoder layer instead (a
    non-reentrant checkpoint_wrapper, as ATorch, llama-recipes and Accelerate's FSDP activation_checkpointing put it),
    which transformers does not know about: its forward keeps use_cache."""
    if scenario.get("gradient_checkpointing", "none") == "none":
        return
    base = models.hf_model(model)
    if scenario.get("checkpoint_wrapper"):
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
            CheckpointImpl, apply_activation_checkpointing, checkpoint_wrapper)

        layer_names = set(base._no_split_modules or [])
        wrap = lambda m: checkpoint_wrapper(m, checkpoint_impl=CheckpointImpl.NO_REENTRANT)  # noqa: E731
        apply_activation_checkpointing(model, checkpoint_wrapper_fn=wrap,
                                       check_fn=lambda m: type(m).__name__ in layer_names)
        return
    base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": harness.get("reentrant", False)})
    if harness.get("reentrant", False) and scenario.get("method", "full") != "full":
        base.enable_input_require_grads()  # what PEFT / the Trainer do so the reentrant recomputation has a graph


def trainable(model):
    return [p for p in model.parameters() if p.requires_grad]


def make_optimizer(model, scenario):
    # CUDA tensors default to the foreach AdamW; CPU tensors to the per-tensor loop. foreach=True keeps the CUDA
    # allocation pattern (one temporary per state tensor list in _foreach_sqrt / _foreach_div).
    opt = scenario.get("optimizer", "adamw")
    if opt == "sgd":
        return torch.optim.SGD(trainable(model), lr=1e-4)
    if opt == "rmsprop":
        return torch.optim.RMSprop(trainable(model), lr=1e-4, foreach=True)
    if opt == "adamw_fused":
        return torch.optim.AdamW(trainable(model), lr=1e-4, fused=True)
    return torch.optim.AdamW(trainable(model), lr=1e-4, foreach=True)


def amp_forward(wrapped, scenario, harness):
    """The forward as run: under autocast when mixed precision is on, with Accelerate's convert_outputs_to_fp32 when
    the point mirrors an Accelerate-prepared model (the default for DDP / FSDP points)."""
    mp = scenario.get("mixed_precision", "none")
    if mp == "none":
        return wrapped
    from accelerate.utils import convert_outputs_to_fp32

    def forward(**batch):
        with torch.autocast("cpu", dtype=models.DTYPES[mp]):
            return wrapped(**batch)

    accelerate_amp = harness.get("amp", "accelerate" if harness.get("parallel", "none") != "none" else "autocast")
    return convert_outputs_to_fp32(forward) if accelerate_amp == "accelerate" else forward


@contextlib.contextmanager
def gradient_sync(wrapped, scenario, last):
    """What the HF Trainer runs each micro-batch in (transformers trainer.py: every micro-batch but the last under
    `accelerator.no_sync(model)` unless sync_each_batch), when the scenario says fsdp_no_sync: Accelerator.no_sync
    calls FSDP2's set_requires_gradient_sync(False) and FSDP1's (or DDP's) no_sync(); otherwise each micro-batch's
    gradients are reduced as they come (FSDP's default)."""
    if last or not scenario.get("fsdp_no_sync", False) or wrapped is None:
        yield
        return
    if hasattr(wrapped, "set_requires_gradient_sync"):
        wrapped.set_requires_gradient_sync(False)
        try:
            yield
        finally:
            wrapped.set_requires_gradient_sync(True)
        return
    with wrapped.no_sync():
        yield


def run(rec, scenario, harness):
    parallel.init_world(parallel.world_size(scenario))
    model = models.apply_peft(models.build_model(scenario, harness), scenario)
    enable_checkpointing(model, scenario, harness)
    model.train()
    rec.watch_forward(models.hf_model(model))
    wrapped = parallel.wrap(model, scenario, harness)
    if parallel.offloading(scenario):
        parallel.watch_grad_writeback(rec)
    opt = make_optimizer(wrapped, scenario)
    forward = amp_forward(wrapped, scenario, harness)
    data = models.batch(scenario, harness)
    accumulation = scenario.get("gradient_accumulation_steps", 1)
    # loop_keeps_outputs: a loop that rebinds `logits = ...` each iteration, as LitGPT's fit loops do; the last
    # step's logits (and through them its graph) are freed when the next forward has returned. With use_cache it
    # keeps the whole `outputs = model(...)`, as a plain transformers loop does: its past_key_values too. "step": the
    # loop drops its `output` after the optimizer step (`output = None`, Answer.AI's fsdp_qlora train.py).
    keeps = scenario.get("loop_keeps_outputs", False)
    to_step_end = keeps == "step"
    whole = keeps and (to_step_end or scenario.get("use_cache", False))
    held = None
    for step in range(harness.get("steps", 2)):
        with rec.step(step):
            for micro in range(accumulation):
                with gradient_sync(wrapped if harness.get("parallel", "none") != "none" else None, scenario, micro == accumulation - 1):
                    out = forward(**data)
                    if keeps:
                        held = out if whole else out.logits
                    loss = out.loss
                    del out
                    (loss / accumulation).backward()
                    del loss
            if parallel.offloading(scenario):
                rec.snapshot_offloaded(parallel.offloaded_tensors(wrapped, opt))
            opt.step()
            opt.zero_grad(set_to_none=True)
            if to_step_end:
                held = None
    return {"model": wrapped, "optimizer": opt, "batchShape": list(data["input_ids"].shape)}
