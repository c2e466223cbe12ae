"""DeepSpeed ZeRO 1/2/3 on the CPU: rank 0 of the real engine (deepspeed.initialize with a client torch AdamW, as the
HF Trainer and Accelerate hand it over) at world size N through torch's fake process group.

DeepSpeed is not on the machine's package index; `setup.sh` puts a source checkout on the path (DEEPSPEED_SRC). Its
CPU accelerator (DS_ACCELERATOR=cpu) runs the same Python as on a GPU, except that it is a "synchronized device": no
side streams, so an all-gather or reduce-scatter completes where it is issued and no buffer outlives its stream. No
C++ op is built (the CPU accelerator would JIT-build a shared-memory all-reduce; the fake group does the
collectives). DeepSpeed's bf16 mode casts the whole model, adapters included, to bf16 and keeps the fp32 master
partitions in its optimizer; there is no autocast (Accelerate turns its own off under DeepSpeed)."""
import os

import torch

from . import models, parallel

# The HF Trainer's DeepSpeed config keys that a scenario's zero_buckets can set (the estimator reads the same).
BUCKET_KEYS = ("reduce_bucket_size", "allgather_bucket_size", "stage3_prefetch_bucket_size", "stage3_max_live_parameters",
               "stage3_max_reuse_distance", "stage3_param_persistence_threshold", "overlap_comm", "contiguous_gradients",
               "sub_group_size")


def _importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def old_release_shims(src):
    """What DeepSpeed releases before 0.14 need to import beside torch 2.13, numpy 2 and pydantic 2, none of it on the
    path a truth point runs: their CPU accelerator imports Intel's extension and oneCCL's bindings (stand-ins in
    shims_old_deepspeed) and names oneCCL as its backend (left uninitialized, so DeepSpeed takes the fake group that
    torch.distributed already has); their elastic agent imports names torch's elastic API no longer has (no elastic
    launch here); their autotuner imports numpy.BUFSIZE; and before 0.12 they speak pydantic v1's API by the name
    pydantic (pydantic 2 keeps it as pydantic.v1; 0.12 added deepspeed/pydantic_v1.py for that)."""
    import re
    import sys
    import types

    def text(*path):
        f = os.path.join(src, *path)
        return open(f).read() if os.path.exists(f) else ""

    # Later releases import oneCCL's bindings inside a try and fall back to gloo.
    if re.search(r"^import oneccl_bindings_for_pytorch", text("accelerator", "cpu_accelerator.py"), re.M):
        sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims_old_deepspeed"))
        agent = types.ModuleType("deepspeed.elasticity.elastic_agent")
        agent.DSElasticAgent = object
        ccl = types.ModuleType("deepspeed.comm.ccl")

        class CCLBackend:
            def __init__(self, *args, **kwargs):
                pass

            def is_initialized(self):
                return False

        ccl.CCLBackend = CCLBackend
        sys.modules.setdefault("deepspeed.elasticity.elastic_agent", agent)
        sys.modules.setdefault("deepspeed.comm.ccl", ccl)
        import numpy

        if not hasattr(numpy, "BUFSIZE"):
            numpy.BUFSIZE = 8192
    v1_api = "ConfigDict" not in text("deepspeed", "runtime", "config_utils.py")
    if v1_api and not text("deepspeed", "pydantic_v1.py") and _importable("pydantic.v1"):
        import pydantic.v1

        sys.modules["pydantic"] = pydantic.v1


def import_deepspeed(accelerator="cpu", release=None):
    """DeepSpeed from DEEPSPEED_SRC, or for a point that names a release (harness `deepspeed: "0.15.0"`) from
    DEEPSPEED_SRC_DIR/ds-<release> (gpu/deps.sh assembles those)."""
    os.environ["DS_ACCELERATOR"] = accelerator
    if release:
        os.environ["DEEPSPEED_SRC"] = os.path.join(os.environ["DEEPSPEED_SRC_DIR"], "ds-" + release)
        # The CPU accelerator of releases before 0.16 counts its devices by NUMA node through the numactl program;
        # LOCAL_SIZE answers first (cpu_accelerator.py device_count).
        os.environ.setdefault("LOCAL_SIZE", "1")
    src = os.environ.get("DEEPSPEED_SRC")
    if src and src not in os.sys.path:
        os.sys.path.insert(0, src)
    shim = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims")
    if shim not in os.sys.path:
        os.sys.path.append(shim)  # hjson (config files only; this harness passes dicts), when not installed
    # Compiled wheels missing for this Python (the GPU machine's): the part of pydantic's API DeepSpeed's configs use,
    # and a msgpack that refuses to pack (DeepSpeed's pipeline messages only)
    if os.environ.get("TRUTH_PYDANTIC_SHIM") == "1" or not _importable("pydantic"):
        os.sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims_pydantic"))
    if not _importable("msgpack"):
        os.sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims_msgpack"))
    if src:
        old_release_shims(src)
    import deepspeed
    import deepspeed.ops

    # Build no C++ op (the shared-memory all-reduce of the CPU accelerator): every op marked incompatible, the
    # all-reduce's by name too, since releases before 0.17 look it up without a default.
    compatible = deepspeed.ops.__compatible_ops__
    for name in list(compatible):
        compatible[name] = False
    compatible.setdefault("deepspeed_shm_comm", False)
    gpu_copy_of_host_gradients()
    return deepspeed


def gpu_copy_of_host_gradients():
    """ZeRO-3 with its optimizer offloaded copies each reduced gradient partition into its flat host buffer, then takes
    `grad_buffer.to(grad_partition.device)` back for the boundary's norm and fp32 copy (stage3.py partition_grads,
    _offload_grad_partition_at_boundary): on a GPU a new tensor of the partition in the accumulation dtype, beside the
    norm's fp64 copy; on the CPU the host buffer itself. Here the boundary gets that copy, so the point allocates what a
    GPU run does while the norm and the fp32 copy run. Releases before 0.19 do this inside partition_grads; their
    offload points are not run."""
    from deepspeed.runtime.zero.stage3 import DeepSpeedZeroOptimizer_Stage3 as Stage3

    boundary = Stage3.__dict__.get("_offload_grad_partition_at_boundary")
    if boundary is None or getattr(boundary, "gpu_copy", False):
        return

    def on_gpu(self, param, grad_buffer, *args):
        host = self.grad_partitions_flat_buffer
        if host is not None and grad_buffer.untyped_storage().data_ptr() == host.untyped_storage().data_ptr():
            grad_buffer = grad_buffer.clone()
        return boundary(self, param, grad_buffer, *args)

    on_gpu.gpu_copy = True
    Stage3._offload_grad_partition_at_boundary = on_gpu


def ds_config(scenario, harness):
    zero = {"stage": scenario.get("zero_stage", 0)}
    zero.update({k: v for k, v in (scenario.get("zero_buckets") or {}).items() if k in BUCKET_KEYS})
    if scenario.get("offload_optimizer", "none") == "cpu":
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": False}
    if scenario.get("offload_params", "none") == "cpu":
        zero["offload_param"] = {"device": "cpu", "pin_memory": False}
    cfg = {
        "train_micro_batch_size_per_gpu": scenario.get("micro_batch_size", 1),
        "gradient_accumulation_steps": scenario.get("gradient_accumulation_steps", 1),
        "gradient_clipping": harness.get("max_grad_norm", 1.0),  # the HF Trainer's max_grad_norm default
        "zero_optimization": zero,
        "zero_force_ds_cpu_optimizer": False,  # the client torch AdamW steps the offloaded partitions
        "steps_per_print": 10**9,
        "wall_clock_breakdown": False,
    }
    if scenario.get("weights_dtype") == "bf16":
        cfg["bf16"] = {"enabled": True}
    return cfg


def fill_auto(cfg, model):
    """The "auto" values of the ZeRO block filled as the HF Trainer fills them, by its own code (transformers
    integrations/deepspeed.py HfTrainerDeepSpeedConfig.trainer_config_finalize: the hidden-size buckets)."""
    if "auto" not in cfg["zero_optimization"].values():
        return cfg
    from types import SimpleNamespace

    from accelerate.utils.deepspeed import HfDeepSpeedConfig
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    # transformers makes HfDeepSpeedConfig a subclass of Accelerate's only when the deepspeed distribution is installed
    # (here it is on the path, as source, without metadata): the filling methods are transformers' own, the config
    # parsing Accelerate's, as in an installed stack.
    methods = ("trainer_config_finalize", "fill_only", "fill_match", "is_auto")
    filler = type("HfTrainerDeepSpeedConfig", (HfDeepSpeedConfig,),
                  {m: HfTrainerDeepSpeedConfig.__dict__[m] for m in methods})
    hf = filler(cfg)
    hf._dtype, hf.mismatches = None, []
    hf.trainer_config_finalize(SimpleNamespace(get_warmup_steps=lambda steps: 0), models.hf_model(model), 1)
    return hf.config


def offloaded(opt):
    """Storages ZeRO-Offload keeps in host memory: the fp32 master partitions, their gradients, the optimizer state
    (the torch optimizer inside DeepSpeed's steps the host copies)."""
    inner = getattr(opt, "optimizer", opt)
    out = []
    for group in inner.param_groups:
        for p in group["params"]:
            out.append(p)
            if p.grad is not None:
                out.append(p.grad)
    for st in inner.state.values():
        out += [v for v in st.values() if torch.is_tensor(v) and v.dim() > 0]
    for name in ("averaged_gradients", "single_partition_of_fp32_groups", "fp32_partitioned_groups_flat"):
        value = getattr(opt, name, None)
        if isinstance(value, (list, tuple)):
            out += [t for t in value if torch.is_tensor(t)]
        elif isinstance(value, dict):
            out += [t for v in value.values() for t in (v if isinstance(v, list) else [v]) if torch.is_tensor(t)]
    # The fp32 partitions' gradients: ZeRO-3 gives each sub-group its own host buffer (stage3.py
    # initialize_optimizer_states, subgroup_gradient_buffer), which the inner optimizer's param groups may not list.
    for name in ("single_partition_of_fp32_groups", "fp32_partitioned_groups_flat"):
        out += [t.grad for t in getattr(opt, name, None) or [] if torch.is_tensor(t)]
    # ZeRO-3 with the parameters offloaded keeps their 16-bit partitions in flat host buffers (stage3.py
    # _create_param_groups_fp16_flat_cpu_memory).
    out += getattr(opt, "param_groups_fp16_flat_cpu_memory", None) or []
    # ZeRO-1/2's host staging: one gradient buffer of the largest parameter, and per parameter its accumulated gradient.
    out.append(getattr(opt, "temp_grad_buffer_for_cpu_offload", None))
    out += getattr(opt, "param_buffer_of_bit16_for_cpu_offload_groups", None) or []  # the 16-bit copy of the update
    out += list((getattr(opt, "accumulated_grads_in_cpu", None) or {}).values())
    grads = getattr(opt, "_DeepSpeedZeroOptimizer_Stage3__param_id_to_grad_partition", None) or {}
    out += [t for t in grads.values() if torch.is_tensor(t)]
    return [t for t in out if torch.is_tensor(t) and t.device.type == "cpu"]


def run(rec, scenario, harness):
    world = parallel.world_size(scenario)
    # ZeRO-1/2 give each rank a contiguous slice of the flat parameters, so what a rank handles differs: `rank: last`
    # runs the last rank, which holds the output head and the last layers.
    rank = world - 1 if harness.get("rank") == "last" else 0
    if not torch.distributed.is_initialized():  # DeepSpeed needs a process group at any world size
        from torch.testing._internal.distributed.fake_pg import FakeStore

        torch.distributed.init_process_group(backend="fake", rank=rank, world_size=world, store=FakeStore())
    os.environ.update(RANK=str(rank), LOCAL_RANK="0", WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT="29500")
    deepspeed = import_deepspeed(release=harness.get("deepspeed"))
    from .loop import enable_checkpointing, trainable

    model = models.apply_peft(models.build_model(scenario, harness), scenario)
    enable_checkpointing(model, scenario, harness)
    model.train()
    rec.watch_forward(models.hf_model(model))
    opt = torch.optim.AdamW(trainable(model), lr=1e-4, foreach=True)
    config = fill_auto(ds_config(scenario, harness), model)
    engine, zero_opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=config, dist_init_required=False)
    data = models.batch(scenario, harness)
    accumulation = scenario.get("gradient_accumulation_steps", 1)
    offload = parallel.offloading(scenario)
    for step in range(harness.get("steps", 2)):
        with rec.step(step):
            for _ in range(accumulation):
                out = engine(**data)
                loss = out.loss
                del out
                engine.backward(loss)
                del loss
                if offload and engine.is_gradient_accumulation_boundary():
                    rec.snapshot_offloaded(offloaded(zero_opt))
                engine.step()
    return {"model": engine.module, "optimizer": zero_opt, "batchShape": list(data["input_ids"].shape)}
