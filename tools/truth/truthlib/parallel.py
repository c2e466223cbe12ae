"""Data parallelism in one process: torch's fake process group at world size N (collectives do nothing, their
outputs are allocated), so rank 0's allocations are those of a real rank. FSDP1 and FSDP2 are applied as
Accelerate's FSDP plugin applies them (one unit per decoder layer class in `_no_split_modules`, the root last,
mixed precision param/reduce dtype = the autocast dtype); DDP with the default 25 MiB buckets."""
import os

import torch
import torch.distributed as dist

from .models import DTYPES


def init_world(world_size):
    if world_size > 1 and not dist.is_initialized():
        from torch.testing._internal.distributed.fake_pg import FakeStore

        dist.init_process_group(backend="fake", rank=0, world_size=world_size, store=FakeStore())


def fake_accelerate(world_size):
    """Accelerate's state as a launcher leaves it on rank 0 of `world_size` GPUs, over the fake process group with the
    CPU as the device: the HF Trainer then prepares the model as it does on GPUs (DDP, the FSDP1 plugin, FSDP2). Its
    backend probe would name gloo and MULTI_CPU, which Accelerate does not shard; its device setup would ask CUDA."""
    from accelerate.state import PartialState
    from accelerate.utils import DistributedType

    os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE=str(world_size), LOCAL_WORLD_SIZE=str(world_size))
    init_world(world_size)
    PartialState._prepare_backend = lambda self, cpu=False, sagemaker_dp=False, backend=None: ("fake", DistributedType.MULTI_GPU)
    PartialState.set_device = _cpu_device
    allow_pinning()
    _allreduce_every_ddp()
    _flat_all_gather()


def _flat_all_gather():
    """Accelerate's gather (TRL's rewards) all-gathers a 2-D tensor into a flat output, which NCCL takes byte for byte;
    the fake group copies the input into each rank's chunk of the output and wants the shapes to match. The input is
    passed flat (a view of a contiguous tensor: nothing allocated)."""
    if getattr(dist.all_gather_into_tensor, "_truth_flat", False):
        return
    original = dist.all_gather_into_tensor

    def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
        if input_tensor.dim() > 1 and output_tensor.dim() == 1 and input_tensor.is_contiguous():
            input_tensor = input_tensor.view(-1)
        return original(output_tensor, input_tensor, group=group, async_op=async_op)

    all_gather_into_tensor._truth_flat = True
    dist.all_gather_into_tensor = all_gather_into_tensor


def _cpu_device(state):
    state.device = torch.device("cpu")


def _allreduce_every_ddp():
    """DDP as Accelerate builds it, with the in-place all-reduce hook the loop's DDP points register (wrap_ddp). The
    GPU index Accelerate names as the module's device is the CPU here."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    if getattr(DDP, "_truth_hooked", False):
        return
    original = DDP.__init__

    def init(self, *args, **kwargs):
        kwargs.update(device_ids=None, output_device=None)
        original(self, *args, **kwargs)
        self.register_comm_hook(None, _allreduce_in_place)

    DDP.__init__ = init
    DDP._truth_hooked = True


def world_size(scenario):
    return scenario.get("gpus_per_node", 1) * scenario.get("nodes", 1)


def offloading(scenario):
    return scenario.get("offload_params", "none") != "none" or scenario.get("offload_optimizer", "none") != "none"


def _host_pin_memory(self, *args, **kwargs):
    return self


def allow_pinning():
    """FSDP1's CPU offload pins the shards; without an accelerator pin_memory() raises, so it returns the tensor
    itself (a pinned copy is host memory either way, and host memory is left out of these points)."""
    if not torch.accelerator.is_available():
        torch.Tensor.pin_memory = _host_pin_memory
        # FSDP1 waits for its device-to-host gradient copies; torch.cpu.Stream has no synchronize (nothing to wait for).
        torch.cpu.Stream.synchronize = lambda self: None


def _layer_classes(model):
    from .models import hf_model

    names = set(getattr(hf_model(model), "_no_split_modules", None) or [])
    return {type(m) for m in model.modules() if type(m).__name__ in names}


def _mixed_dtype(scenario):
    mp = scenario.get("mixed_precision", "none")
    return None if mp == "none" else DTYPES[mp]


def wrap_fsdp2(model, scenario, harness):
    """accelerate.utils.fsdp_utils.fsdp2_prepare_model: fully_shard on every decoder layer, then on the root."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy, fully_shard

    mesh = init_device_mesh("cpu", (world_size(scenario),))
    dtype = _mixed_dtype(scenario)
    kwargs = {
        "mesh": mesh,
        "reshard_after_forward": scenario.get("fsdp") != "shard_grad_op",
        "offload_policy": CPUOffloadPolicy(pin_memory=False) if offloading(scenario) else OffloadPolicy(),
        "mp_policy": MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=dtype, output_dtype=dtype) if dtype else MixedPrecisionPolicy(),
    }
    classes = _layer_classes(model)
    for m in list(model.modules()):
        if type(m) in classes:
            fully_shard(m, **kwargs)
    fully_shard(model, **kwargs)
    return model


def wrap_fsdp1(model, scenario, harness):
    """Accelerate's FSDP1 plugin defaults as the HF Trainer sets them: FULL_SHARD, transformer-layer auto wrap,
    limit_all_gathers, use_orig_params, MixedPrecision(param, reduce, buffer dtypes); the backward prefetch the scenario
    names (fsdp_backward_prefetch: none is the plugin's NO_PREFETCH; unset is FSDP's own default, BACKWARD_PRE)."""
    import functools

    from torch.distributed.fsdp import BackwardPrefetch, CPUOffload, MixedPrecision, ShardingStrategy
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy

    dtype = _mixed_dtype(scenario)
    if offloading(scenario):
        allow_pinning()
    if harness.get("wrap") == "peft":
        # transformers Trainer._fsdp_qlora_plugin_updates: a PEFT LoRA model gets PEFT's policy (adapters wrapped alone).
        from peft.utils.other import fsdp_auto_wrap_policy

        policy = fsdp_auto_wrap_policy(model)
    else:
        policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls=_layer_classes(model))
    strategy = {"full_shard": ShardingStrategy.FULL_SHARD, "shard_grad_op": ShardingStrategy.SHARD_GRAD_OP,
                "no_shard": ShardingStrategy.NO_SHARD}[scenario.get("fsdp", "full_shard")]
    return FSDP(model, sharding_strategy=strategy, device_id=torch.device("cpu"),
                auto_wrap_policy=policy,
                mixed_precision=MixedPrecision(param_dtype=dtype, reduce_dtype=dtype, buffer_dtype=dtype) if dtype else None,
                cpu_offload=CPUOffload(offload_params=offloading(scenario)),
                backward_prefetch={"pre": BackwardPrefetch.BACKWARD_PRE, "post": BackwardPrefetch.BACKWARD_POST}.get(
                    scenario.get("fsdp_backward_prefetch", "pre")),
                limit_all_gathers=True, use_orig_params=harness.get("use_orig_params", True), sync_module_states=False)


def _allreduce_in_place(state, bucket):
    """NCCL's all-reduce works in place on the bucket; the fake group's returns nothing, so DDP gets the bucket back."""
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def wrap_ddp(model, scenario, harness):
    from torch.nn.parallel import DistributedDataParallel as DDP

    ddp = DDP(model, device_ids=None, bucket_cap_mb=harness.get("bucket_cap_mb", 25),
              gradient_as_bucket_view=harness.get("gradient_as_bucket_view", False))
    ddp.register_comm_hook(None, _allreduce_in_place)
    return ddp


WRAPPERS = {"fsdp1": wrap_fsdp1, "fsdp2": wrap_fsdp2, "ddp": wrap_ddp}


def wrap(model, scenario, harness):
    kind = harness.get("parallel", "none")
    return model if kind == "none" else WRAPPERS[kind](model, scenario, harness)


def _local(t):
    return getattr(t, "_local_tensor", t)


def offloaded_tensors(model, optimizer):
    """Tensors CPU offload keeps in host memory: the sharded parameters, their gradients, the optimizer state."""
    out = []
    for p in model.parameters():
        out.append(_local(p))
        if p.grad is not None:
            out.append(_local(p.grad))
    for handle in _fsdp1_handles(model):
        flat = handle.flat_param
        out += [flat, getattr(flat, "_local_shard", None), getattr(flat, "_cpu_grad", None), flat.grad]
    for st in optimizer.state.values():
        out += [_local(v) for v in st.values() if torch.is_tensor(v) and v.dim() > 0]
    return [t for t in out if t is not None]


def watch_grad_writeback(rec):
    """FSDP1 with use_orig_params writes the original parameters' gradients back into a new flat gradient before each
    unshard (FlatParamHandle._writeback_orig_params: torch.zeros_like(flat_param)); under CPU offload the flat
    parameter is still the host shard then, so that gradient is host memory. It is gone by the end of the backward,
    where the other offloaded storages are listed, so it is listed when it is made. Under no_sync the flat gradient is
    the unsharded one, which stays on the GPU until the last micro-batch reduces it (FSDP1 no_sync docstring): only a
    gradient of the shard's size is host memory."""
    from torch.distributed.fsdp._flat_param import FlatParamHandle

    _WRITEBACK_WATCH["rec"] = rec  # one process runs several points: the current point's recorder
    if getattr(FlatParamHandle, "_truth_watched", False):
        return
    original = FlatParamHandle._writeback_orig_params

    def writeback(self):
        wrote = original(self)
        grad = self.flat_param.grad
        shard = getattr(self.flat_param, "_local_shard", None)
        if (self._offload_params and grad is not None and grad.device.type == "cpu" and shard is not None
                and grad.numel() == shard.numel()):
            _WRITEBACK_WATCH["rec"].snapshot_offloaded([grad])
        return wrote

    FlatParamHandle._writeback_orig_params = writeback
    FlatParamHandle._truth_watched = True


_WRITEBACK_WATCH = {"rec": None}


def _fsdp1_handles(model):
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    return [m._handle for m in model.modules() if isinstance(m, FSDP) and m._handle is not None]
