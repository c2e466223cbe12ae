"""The HF Trainer and TRL's SFTTrainer under DeepSpeed ZeRO on the GPU (a point with `zero_stage` and `runner: trainer`
or `sft`), as `deepspeed=ds.json` runs them: TrainingArguments made first, so that from_config builds the model inside
deepspeed.zero.Init at stage 3 (the arguments hand the config to transformers), PEFT's adapters added by the script,
Accelerate's DeepSpeed preparation with the trainer's own optimizer, DeepSpeed's bf16 mode. Rank 0 of the scenario's
GPUs over torch's fake process group, DeepSpeed's CUDA accelerator: the CPU harness's `parallel: deepspeed`
(truthlib/hf_zero.py) on a GPU. DeepSpeed's distribution metadata must be on the path before transformers and
Accelerate are imported (run.py main: truthlib/ds_meta.py)."""
import os


def prepare(scenario):
    """DeepSpeed imported with its CUDA accelerator and Accelerate's state as a DeepSpeed launch leaves it on rank 0."""
    import torch
    from accelerate.state import PartialState
    from accelerate.utils import DistributedType

    import ds_point
    from truthlib import hf_zero

    hf_zero.require_metadata()
    world = scenario["gpus_per_node"]
    ds_point.init_world(world)
    os.environ["LOCAL_WORLD_SIZE"] = str(world)
    ds_point.import_deepspeed(scenario)
    PartialState._prepare_backend = lambda self, cpu=False, sagemaker_dp=False, backend=None: ("fake", DistributedType.DEEPSPEED)

    def set_device(self):
        self.device = torch.device("cuda", 0) if ds_point.device() == "cuda" else torch.device("cpu")
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)

    PartialState.set_device = set_device
    _metrics_gather()


def _metrics_gather():
    """TRL's metrics (Accelerate's gather_for_metrics in compute_loss, grad mode on) all-gather a 2-D tensor into a flat
    output: the input passed flat (truthlib/parallel.py _flat_all_gather), and the copy into views of the output's
    chunks, which the fake group makes and refuses in grad mode, made without grad. Nothing allocated, no collective
    differs."""
    import torch
    import torch.distributed as dist

    from truthlib import parallel

    parallel._flat_all_gather()
    flat = dist.all_gather_into_tensor

    def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
        with torch.no_grad():
            return flat(output_tensor, input_tensor, group=group, async_op=async_op)

    dist.all_gather_into_tensor = all_gather_into_tensor


def config(scenario):
    """The DeepSpeed config a user hands the trainer (truthlib/hf_zero.py): the scenario's ZeRO block, the rest "auto"."""
    from truthlib import hf_zero

    return hf_zero.config(scenario, scenario.get("harness", {}))


def build(scenario, kwargs):
    """The arguments first (kept alive until the trainer exists: returned beside the model), the model made by
    from_config inside ZeRO-Init with random partitions, PEFT's adapters (fp32, PEFT's default) added to it."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, TrainingArguments

    from truthlib import models

    prepare(scenario)
    early = TrainingArguments(**kwargs)
    arch = dict(scenario["architecture"])
    cfg = AutoConfig.for_model(arch.pop("model_type"), **arch)
    model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation=scenario.get("attention", "sdpa"))
    with torch.no_grad():
        for p in model.parameters():
            (p.ds_tensor if hasattr(p, "ds_tensor") else p).normal_(0, 0.02)
    model.config.use_cache = False
    return models.apply_peft(model, scenario), early
