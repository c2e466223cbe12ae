"""The HF Trainer and TRL's trainers under DeepSpeed ZeRO (harness `parallel: deepspeed`), as `--deepspeed ds.json`
runs them: TrainingArguments hands the config to transformers before the model is made, so from_config builds it
inside deepspeed.zero.Init at stage 3, and Accelerate prepares it with deepspeed.initialize and the trainer's own
optimizer (torch's AdamW, foreach). Rank 0 of the scenario's GPUs over the fake process group, on DeepSpeed's CPU
accelerator (truthlib/zero.py imports the release)."""
import importlib

from . import parallel, zero


def require_metadata():
    """DeepSpeed's distribution metadata must have been on the path when transformers and Accelerate were imported
    (point.py and gpu/run.py install it, ds_meta.py): they decide at their import whether DeepSpeed is there."""
    # Accelerate exports its DeepSpeed wrappers only when it found DeepSpeed at its import.
    if not hasattr(importlib.import_module("accelerate.utils"), "DeepSpeedSchedulerWrapper"):
        raise RuntimeError("DeepSpeed's metadata was not on the path when transformers and Accelerate were imported "
                           "(point.py and gpu/run.py install it before the first point that runs a trainer under DeepSpeed)")


def prepare(scenario, harness):
    """DeepSpeed imported, Accelerate's state as a DeepSpeed launch leaves it (its metadata on the path already)."""
    require_metadata()
    zero.import_deepspeed("cpu", harness.get("deepspeed"))
    parallel.fake_accelerate(parallel.world_size(scenario))
    from accelerate.state import PartialState
    from accelerate.utils import DistributedType

    PartialState._prepare_backend = lambda self, cpu=False, sagemaker_dp=False, backend=None: (
        "fake", DistributedType.DEEPSPEED)
    # TrainingArguments refuses bf16 without a GPU that has it, unless use_cpu, which turns DeepSpeed off in Accelerate.
    import transformers.training_args

    transformers.training_args.is_torch_bf16_gpu_available = lambda: True


def config(scenario, harness):
    """The DeepSpeed config a user hands the trainer: the ZeRO block of the scenario, the batch, accumulation,
    clipping and precision left "auto" for the trainer to fill from its arguments."""
    cfg = zero.ds_config(scenario, harness)
    cfg.update(train_micro_batch_size_per_gpu="auto", gradient_accumulation_steps="auto", gradient_clipping="auto",
               train_batch_size="auto")
    if "bf16" in cfg:
        cfg["bf16"] = {"enabled": "auto"}
    return cfg


def arguments(kwargs):
    """TrainingArguments made before the model, so that from_config builds it inside ZeRO-Init at stage 3 (the trainer
    makes its own again; the config they hand over is the same). Keep it alive until the trainer exists."""
    from transformers import TrainingArguments

    return TrainingArguments(**kwargs)

