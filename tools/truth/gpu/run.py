#!/usr/bin/env python3
"""GPU ground truth: real max_memory_allocated, max_memory_reserved and device memory used, per phase of a training
step, for real-size models built from the configs in configs/ (random weights, nothing downloaded).

    python3 tools/truth/gpu/run.py --out DIR [--only GLOB] [--list] [--trace]

Each point runs in its own process (`--point ID`), so the caching allocator and the CUDA context start fresh; its
JSON goes to DIR/<id>.json and all of them to DIR/gpu-truth.json. Needs torch (CUDA), transformers, peft,
accelerate; no network. FSDP points shard over torch's fake process group: one process is rank 0 of N.

DeepSpeed points (`zero_stage`, ds_point.py) need DEEPSPEED_SRC, a DeepSpeed source checkout.

`--trace` also records the CUDA caching allocator's own allocation sequence (torch.cuda.memory._record_memory_history,
without stacks) and writes it to DIR/<id>.trace.json in the format of the CPU harness's traces (truthlib/memory.py
trace), with the phase marks and the real max_memory_reserved of each step: `node tools/truth/replay.mjs` then replays
the GPU's own sequence through the estimator's allocator model and sets its reserved figure beside the GPU's, a direct
check of src/core/terms/allocator.ts.
"""
import argparse
import datetime
import fnmatch
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # truthlib: the CPU harness's fake process group and DDP comm hook
os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
import points as P  # noqa: E402


def device_used():
    """Bytes in use on the device (what NVML reports), from cudaMemGetInfo."""
    import torch

    free, total = torch.cuda.mem_get_info()
    return total - free


def smi_used():
    """Device memory used before this process creates its CUDA context (nvidia-smi), or None."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=30).stdout.strip().splitlines()
        return int(out[0]) * 2**20
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


def versions():
    import torch

    out = {"python": platform.python_version(), "cuda": torch.version.cuda}
    for name in ("torch", "transformers", "peft", "accelerate", "trl", "datasets", "bitsandbytes"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    if "ds_point" in sys.modules:  # a DeepSpeed point: the source release it ran
        out["deepspeed"] = sys.modules["ds_point"].version()
    return out


def runs_trainer(scenario):
    """Whether a point runs the HF Trainer or TRL's SFTTrainer (`runner: trainer` / `sft`), under DeepSpeed or not."""
    return harness_of(scenario).get("runner") in ("trainer", "sft")


def harness_of(scenario):
    """How a point runs beyond what its scenario says (points.py `harness`): `runner: trainer` (the HF Trainer),
    `fsdp1: plugin` (Accelerate's FSDP1 plugin layout rather than Answer.AI's loop)."""
    return scenario.get("harness", {})


def build(scenario):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    arch = dict(scenario["architecture"])
    cfg = AutoConfig.for_model(arch.pop("model_type"), **arch)
    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[scenario["weights_dtype"]]
    # Built on the meta device, as from_pretrained builds (transformers >= 4.51); FSDP materialises the shards itself,
    # the other runs get every tensor allocated once, in module order (materialise). A 4-bit model is quantized on the
    # GPU by bitsandbytes as a load does (qlora.py), FSDP then shards it as Accelerate shards a loaded one.
    if scenario.get("quantization"):
        import qlora

        model = qlora.build(cfg, scenario, scenario.get("attention", "sdpa"))
    else:
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=scenario.get("attention", "sdpa"))
        if scenario["fsdp"] == "none":
            materialise(model, "cuda")
            randomise(model)
    model.config.use_cache = False
    if scenario.get("kbit_upcast", "none") != "none":
        # PEFT's prepare_model_for_kbit_training: every parameter left unquantized to fp32; checkpointing as below
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
    if scenario["method"] in ("lora", "qlora"):
        from peft import LoraConfig, get_peft_model

        lora = scenario["lora"]
        config = LoraConfig(r=lora["r"], lora_alpha=lora["alpha"], lora_dropout=lora.get("dropout", 0.0),
                            target_modules=lora["target_modules"], use_dora=lora.get("use_dora", False), task_type="CAUSAL_LM")
        # Adapters in the model's dtype where the scenario says so (PEFT before 0.12 made them so; FSDP1 flat
        # parameters of the custom loop need one dtype per unit).
        model = get_peft_model(model, config, autocast_adapter_dtype=lora.get("dtype") != "bf16")
    if scenario.get("fsdp_version") == 1 or runs_trainer(scenario):
        return model  # checkpointing is applied around the FSDP1 units (shard_fsdp1), or by the Trainer
    if scenario["gradient_checkpointing"] != "none":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if scenario["method"] in ("lora", "qlora"):
            model.enable_input_require_grads()
    return model


def materialise(model, device):
    """Each parameter and buffer of a model built on the meta device allocated on `device`, in module order, a tied
    tensor once: the placement a from_pretrained load gives. A build directly on the device allocates the untied
    output head and frees it when transformers ties it, which leaves a head-sized block cached that a user's run does
    not have (FINDINGS §32)."""
    import torch

    made = {}
    for module in model.modules():
        for table, wrap in ((module._parameters, True), (module._buffers, False)):
            for name, t in list(table.items()):
                if t is None:
                    continue
                if id(t) not in made:
                    empty = torch.empty_like(t, device=device)
                    made[id(t)] = torch.nn.Parameter(empty, requires_grad=t.requires_grad) if wrap else empty
                table[name] = made[id(t)]


def randomise(model):
    """Random values for the materialised shards, and the rotary tables recomputed (to_empty leaves them garbage)."""
    import torch

    with torch.no_grad():
        for p in model.parameters():
            # Host-resident (CPU-offloaded) shards: a constant, since normal_ over billions of host values took
            # minutes (three offload points ran past their limit); the values change no allocation.
            if p.device.type == "cpu":
                p.fill_(0.02)
            else:
                p.normal_(0, 0.02)
        for m in model.modules():
            if hasattr(m, "rope_init_fn") and hasattr(m, "inv_freq"):
                m.inv_freq.copy_(m.rope_init_fn(m.config, m.inv_freq.device)[0])


def shard(model, scenario):
    """Accelerate's FSDP2 layout on rank 0 of a fake group: fully_shard per decoder layer and the root, bf16 compute,
    then the shards materialised on the GPU with random values (rotary tables recomputed)."""
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy, fully_shard
    from torch.testing._internal.distributed.fake_pg import FakeStore

    world = scenario["gpus_per_node"]
    if os.environ.get("VRAM_TRUTH_BACKEND") == "nccl":
        # Real NCCL, possible on one GPU only at world size 1: its streams, its work objects and its own buffers
        # beside the fake group's figures for the same point.
        dist.init_process_group(backend="nccl", rank=0, world_size=1, init_method="tcp://127.0.0.1:29517", device_id=torch.device("cuda", 0))
    else:
        dist.init_process_group(backend="fake", rank=0, world_size=world, store=FakeStore())
    mesh = init_device_mesh("cuda", (world,))
    offload = scenario.get("offload_params", "none") != "none"
    kw = dict(mesh=mesh, mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16, output_dtype=torch.bfloat16),
              offload_policy=CPUOffloadPolicy() if offload else OffloadPolicy())
    names = set(model._no_split_modules or [])
    for m in list(model.modules()):
        if type(m).__name__ in names:
            fully_shard(m, **kw)
    fully_shard(model, **kw)
    model.to_empty(device="cpu" if offload else "cuda")
    randomise(model)
    return model


def wrap_ddp(model, scenario):
    """DDP on rank 0 of a fake group, as Accelerate sets it up: the default 25 MiB buckets, gradients apart from the
    buckets (gradient_as_bucket_view=False). NCCL's all-reduce works in place on the bucket; the fake group's returns
    nothing, so truthlib's comm hook hands DDP its bucket back, as on the CPU."""
    from torch.nn.parallel import DistributedDataParallel as DDP
    from truthlib.parallel import _allreduce_in_place, init_world

    init_world(scenario["gpus_per_node"])
    ddp = DDP(model, device_ids=[0], bucket_cap_mb=25, gradient_as_bucket_view=False)
    ddp.register_comm_hook(None, _allreduce_in_place)
    return ddp


def retying_init(model, device):
    """FSDP1's param_init_fn: each module's own tensors materialised on `device` (to_empty(recurse=False)), which gives
    each module a parameter of its own, then the parameters the model shares (a tied output head) tied again, the first
    materialised kept, as Accelerate wraps its param_init_fn (accelerate/utils/fsdp_utils.py ensure_weights_retied).
    Without it the head and the embedding train apart and FSDP's flat parameter holds the tied weight twice."""
    owners = {}
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            owners.setdefault(id(p), []).append(module)
    shared = {key for key, modules in owners.items() if len(modules) > 1}
    made = {}

    def init(module):
        tied = {name: id(p) for name, p in module.named_parameters(recurse=False) if id(p) in shared}
        module.to_empty(device=device, recurse=False)
        for name, key in tied.items():
            if key in made:
                setattr(module, name, made[key])
            else:
                made[key] = getattr(module, name)
        return module

    return init


def shard_fsdp1(model, scenario, device="cuda"):
    """A custom FSDP1 loop as Answer.AI's fsdp_qlora train.py sets it up (points.custom_fsdp1) on rank 0 of a fake
    group: every leaf module whose weight trains (the LoRA layers) and every decoder layer an FSDP unit, FULL_SHARD,
    use_orig_params=False, limit_all_gathers, the scenario's backward prefetch, each unit materialised from meta by
    param_init_fn, then checkpoint_wrapper (REENTRANT with enable_input_require_grads, or NO_REENTRANT) on the decoder
    layers. Accelerate's plugin layout (points.plugin_fsdp1) differs in use_orig_params=True, bf16 MixedPrecision and,
    for a full fine-tune, the decoder layers alone as units."""
    import functools

    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
        CheckpointImpl, apply_activation_checkpointing, checkpoint_wrapper)
    from torch.distributed.fsdp import BackwardPrefetch, CPUOffload, MixedPrecision, ShardingStrategy
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp.wrap import _or_policy, lambda_auto_wrap_policy, transformer_auto_wrap_policy
    from torch.testing._internal.distributed.fake_pg import FakeStore

    dist.init_process_group(backend="fake", rank=0, world_size=scenario["gpus_per_node"], store=FakeStore())
    layers = {type(m) for m in model.modules() if type(m).__name__ in set(model._no_split_modules or [])}

    def trains(m):
        return len(list(m.named_children())) == 0 and getattr(m, "weight", None) is not None and m.weight.requires_grad

    # PEFT's fsdp_auto_wrap_policy: the layers whose weight trains (the adapters) and the decoder layers
    policy = functools.partial(_or_policy, policies=[functools.partial(lambda_auto_wrap_policy, lambda_fn=trains),
                                                      functools.partial(transformer_auto_wrap_policy, transformer_layer_cls=layers)])
    plugin = harness_of(scenario).get("fsdp1") == "plugin"
    quantized = bool(scenario.get("quantization"))
    if plugin and scenario["method"] == "full":
        policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls=layers)
    offload = scenario.get("offload_params", "none") != "none"
    bf16 = torch.bfloat16
    mixed = MixedPrecision(param_dtype=bf16, reduce_dtype=bf16, buffer_dtype=bf16) if scenario["mixed_precision"] == "bf16" else None
    prefetch = {"pre": BackwardPrefetch.BACKWARD_PRE, "post": BackwardPrefetch.BACKWARD_POST}.get(scenario.get("fsdp_backward_prefetch", "pre"))
    # A 4-bit model is whole on the GPU, quantized (qlora.py): FSDP flattens and shards what is there, as a loaded
    # model is sharded; the others are materialised unit by unit from the meta device.
    model = FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD, auto_wrap_policy=policy,
                 use_orig_params=scenario.get("fsdp_use_orig_params", plugin),
                 cpu_offload=CPUOffload(offload_params=True) if offload else None, limit_all_gathers=True,
                 mixed_precision=mixed, backward_prefetch=prefetch, device_id=torch.device(device), sync_module_states=False,
                 param_init_fn=None if quantized else retying_init(model, torch.device(device)))
    if quantized:
        torch.cuda.empty_cache()  # what loading and flattening freed (Answer.AI's train.py empties the cache after loading)
    else:
        randomise(model)
    if scenario["gradient_checkpointing"] != "none":
        reentrant = scenario.get("checkpoint_reentrant", True)
        if reentrant:
            model.enable_input_require_grads()
        impl = CheckpointImpl.REENTRANT if reentrant else CheckpointImpl.NO_REENTRANT
        apply_activation_checkpointing(model, checkpoint_wrapper_fn=functools.partial(checkpoint_wrapper, checkpoint_impl=impl),
                                       check_fn=lambda m: type(m) in layers)
    return model


# Entries the allocator's history keeps; a step of a 32B model makes a few hundred thousand.
TRACE_ENTRIES = 50_000_000


def trace_length():
    """Entries in the allocator's recorded history so far (the snapshot carries no stacks: cheap)."""
    import torch

    return len(torch.cuda.memory._snapshot()["device_traces"][0])


def frames_name(entry):
    """Where an allocation came from, from its recorded Python frames (--stacks): the three innermost frames outside
    torch's own modules, innermost first, as `function (file:line)`."""
    out = []
    for f in entry.get("frames") or []:
        name = f.get("filename", "")
        if "/torch/" in name and "/nn/modules/" not in name:
            continue
        out.append(f"{f.get('name')} ({os.path.basename(name)}:{f.get('line')})")
        if len(out) == 3:
            break
    return " < ".join(out) or "(no frame)"


def trace_from_history(entries, marks):
    """The allocator's history (TraceEntry dicts: action, addr, size, stream) as the CPU harness's trace: `events` in
    order, `[bytes, address, 0]` for an allocation, `[-bytes, address, 0]` once its free has completed (when the
    allocator can hand the block out again), a fourth element naming the stream when it is not the default one (the
    allocator keeps each stream's blocks apart: FSDP's all-gather and reduce-scatter streams), and the marks' names at
    their positions (`marks`: (name, index into `entries`)). `freesRequested` lists, for each free the program made,
    the index of the next event and the address: the allocated bytes the program sees (max_memory_allocated) drop there,
    before a block that another stream still reads completes its free. Segment entries are left out: the replay's allocator
    model makes its own."""
    at = {}
    for name, index in marks:
        at.setdefault(index, []).append(name)
    events, ops, op_index, op_of_addr, requested = [], ["(no stacks recorded)"], {}, {}, []
    for i, e in enumerate(entries):
        events.extend(at.pop(i, []))
        stream = [e["stream"]] if e.get("stream") else []
        if e["action"] == "alloc":
            op = 0
            if e.get("frames"):
                name = frames_name(e)
                op = op_index.setdefault(name, len(ops))
                if op == len(ops):
                    ops.append(name)
            op_of_addr[e["addr"]] = op
            events.append([e["size"], e["addr"], op] + stream)
        elif e["action"] == "free_completed":
            events.append([-e["size"], e["addr"], op_of_addr.pop(e["addr"], 0)] + stream)
        elif e["action"] == "free_requested":
            # where the program freed it (max_memory_allocated drops here); a block another stream still reads
            # completes its free later, when the allocator sees that stream's event done (record_stream)
            requested.append([len(events), e["addr"]])
    for index in sorted(at):
        events.extend(at[index])
    return {"ops": ops, "events": events, "freesRequested": requested}


def requested_peak(events, begin, end):
    """The most bytes allocated at once between two marks (what the CPU traces call the measured peak)."""
    cur, peak, inside = 0, 0, False
    for e in events:
        if isinstance(e, str):
            inside = e == begin or (inside and e != end)
            continue
        cur += e[0]
        if inside:
            peak = max(peak, cur)
    return peak


def measure_point(pid, scenario, trace=False):
    import torch

    before_context = smi_used()
    torch.cuda.init()
    torch.empty(1, device="cuda")
    context = device_used() - before_context if before_context is not None else None
    marks = [] if trace else None
    if trace:
        stacks = os.environ.get("TRUTH_TRACE_STACKS") == "1"
        torch.cuda.memory._record_memory_history(enabled="all", context="alloc" if stacks else None, stacks="python",
                                                 max_entries=TRACE_ENTRIES)
    early = None
    if scenario.get("zero_stage") and runs_trainer(scenario):
        import ds_trainer

        model, early = ds_trainer.build(scenario, trainer_kwargs(scenario, "/tmp/truth-early-args"))
    elif scenario.get("zero_stage"):
        import ds_point

        ds_point.init_world(scenario["gpus_per_node"])
        model = ds_point.build(scenario)  # the DeepSpeed engine
    elif scenario.get("fsdp_version") == 1:
        model = shard_fsdp1(build(scenario), scenario)
    elif scenario["fsdp"] != "none":
        model = shard(build(scenario), scenario)
    elif scenario.get("gpus_per_node", 1) > 1:
        model = wrap_ddp(build(scenario), scenario)
    else:
        model = build(scenario)
    model.train()
    steps = []
    record = {"id": pid, "scenario": scenario, "steps": steps, "cudaContextBytes": context,
              "gpu": torch.cuda.get_device_name(0), "totalBytes": torch.cuda.get_device_properties(0).total_memory,
              "versions": versions(), "date": datetime.date.today().isoformat(), "machine": "gpu"}
    try:
        if runs_trainer(scenario):
            run_trainer(model, scenario, marks, steps, early)
        elif scenario.get("zero_stage"):
            ds_point.run_engine(model, scenario, PhaseClock(marks), steps)
        else:
            run_loop(model, scenario, marks, steps)
    except torch.cuda.OutOfMemoryError as e:
        # Out of memory is a result too: the estimate must say the run does not fit.
        record.update(outOfMemory=True, error=str(e).splitlines()[0][:400], failedStep=len(steps),
                      maxAllocatedBytes=torch.cuda.max_memory_allocated(), maxReservedBytes=torch.cuda.max_memory_reserved())
        return record, None
    record["phases"] = steps[-1]
    if scenario.get("fsdp_version") == 1:
        # shard_fsdp1 ties shared parameters again after materialising them (retying_init); older records lack the key.
        record["fsdp1Retied"] = True
    stats = torch.cuda.memory_stats()
    record["allocatorStats"] = {k: stats.get(k) for k in ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free",
                                                          "inactive_split_bytes.all.peak", "active_bytes.all.peak")}
    if not trace:
        return record, None
    entries = torch.cuda.memory._snapshot()["device_traces"][0]
    torch.cuda.memory._record_memory_history(enabled=None)
    if len(entries) >= TRACE_ENTRIES:
        raise RuntimeError(f"the allocator's history is full ({len(entries)} entries): raise TRACE_ENTRIES")
    tr = trace_from_history(entries, marks)
    measured = steps[-1]
    tr.update({"id": pid, "scenario": scenario, "measuredStep": 1, "machine": "gpu", "gpu": record["gpu"],
               "versions": record["versions"], "date": record["date"],
               "peakBytes": requested_peak(tr["events"], "step_begin:1", "step_end:1"),
               "peakPhase": max(measured, key=lambda k: measured[k]["maxAllocatedBytes"]),
               "gpuMaxAllocatedBytes": max(v["maxAllocatedBytes"] for v in measured.values()),
               "gpuMaxReservedBytes": max(v["maxReservedBytes"] for v in measured.values())})
    return record, tr


def run_loop(model, scenario, marks, steps):
    """Two steps of a plain loop (the second is the measured one: the optimizer state exists): torch's AdamW (foreach
    on CUDA), input_ids as labels, autocast under bf16 mixed precision unless FSDP2 casts, Accelerate's
    convert_outputs_to_fp32 for the FSDP1 plugin's layout."""
    import torch

    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)
    g = torch.Generator(device="cuda").manual_seed(0)
    ids = torch.randint(0, scenario["architecture"]["vocab_size"], (scenario["micro_batch_size"], scenario["seq_len"]), device="cuda", generator=g)
    plugin = harness_of(scenario).get("fsdp1") == "plugin"
    autocast = scenario["mixed_precision"] == "bf16" and (scenario["fsdp"] == "none" or plugin)
    for step in range(2):
        steps.append(one_step(model, opt, ids, autocast, marks, step, accelerate_amp=plugin and autocast))


class PhaseClock:
    """A point's phases: the trace's marks (when its history is recorded), and per phase, from its begin (the peak
    statistics reset) to its end, what the allocator and the device report."""

    def __init__(self, marks):
        self.marks, self.name, self.start = marks, None, 0.0

    def mark(self, name):
        import torch

        if self.marks is not None:
            torch.cuda.synchronize()
            self.marks.append((name, trace_length()))

    def begin(self, name):
        import torch

        self.mark(f"{name}_begin")
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        self.name, self.start = name, time.time()

    def end(self):
        import torch

        torch.cuda.synchronize()
        return {"maxAllocatedBytes": torch.cuda.max_memory_allocated(), "maxReservedBytes": torch.cuda.max_memory_reserved(),
                "allocatedAtEndBytes": torch.cuda.memory_allocated(), "deviceUsedAtEndBytes": device_used(),
                "seconds": round(time.time() - self.start, 3)}


class TokenRows:
    """Rows of random token ids, each its own labels (the Trainer's default collator stacks them)."""

    def __init__(self, n, seq, vocab):
        import torch

        self.rows = torch.randint(3, vocab, (n, seq), generator=torch.Generator().manual_seed(7))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return {"input_ids": self.rows[i], "labels": self.rows[i]}


def trainer_kwargs(scenario, out):
    """TrainingArguments as the user gives them: bf16 (Accelerate's autocast; under DeepSpeed its bf16 mode, the
    scenario's bf16 weights), the Trainer's checkpointing with its default kwargs, the DeepSpeed config of a ZeRO point."""
    kwargs = dict(output_dir=out, per_device_train_batch_size=scenario["micro_batch_size"], max_steps=2,
                  bf16=scenario["mixed_precision"] == "bf16", gradient_checkpointing=scenario["gradient_checkpointing"] != "none",
                  report_to="none", save_strategy="no", disable_tqdm=True, dataloader_num_workers=0, seed=0,
                  use_cpu=os.environ.get("TRUTH_SMOKE_CPU") == "1")
    if scenario.get("zero_stage"):
        import ds_trainer

        kwargs.update(deepspeed=ds_trainer.config(scenario), bf16=scenario["weights_dtype"] == "bf16", use_cpu=False)
    return kwargs


def run_trainer(model, scenario, marks, steps, early=None):
    """Two steps of transformers.Trainer (or TRL's SFTTrainer, `runner: sft`) as a user configures it for one GPU: bf16 (Accelerate's autocast and
    convert_outputs_to_fp32) when the scenario's mixed precision is bf16, gradient checkpointing by the Trainer (its
    default kwargs), the default optimizer (adamw_torch_fused) and max_grad_norm (1.0). Phases: forward from the step's
    begin to the model's output (a forward hook on the outermost module, after Accelerate's wrapper), backward to
    on_pre_optimizer_step (the gradient clipping included, as the CPU harness counts it), optimizer to on_step_end."""
    import tempfile

    import torch
    from transformers import Trainer, TrainerCallback, TrainingArguments

    clock = PhaseClock(marks)

    def end():
        steps[-1][clock.name] = clock.end()

    class Phases(TrainerCallback):
        def on_step_begin(self, args, st, control, **kwargs):
            clock.mark(f"step_begin:{st.global_step}")
            steps.append({})
            clock.begin("forward")

        def on_pre_optimizer_step(self, args, st, control, **kwargs):
            end()
            clock.begin("optimizer")

        def on_step_end(self, args, st, control, **kwargs):
            end()
            clock.mark(f"step_end:{st.global_step - 1}")

    def forward_done(module, args, output):
        if torch.is_grad_enabled() and clock.name == "forward":
            end()
            clock.begin("backward")

    model.register_forward_hook(forward_done)
    rows = TokenRows(4 * scenario["micro_batch_size"], scenario["seq_len"], scenario["architecture"]["vocab_size"])
    with tempfile.TemporaryDirectory() as out:
        kwargs = trainer_kwargs(scenario, out)
        if harness_of(scenario).get("runner") == "sft":
            # TRL's SFTTrainer on pre-tokenized rows (no packing): its loss, entropy and token-accuracy metrics
            from datasets import Dataset
            from trl import SFTConfig, SFTTrainer
            from truthlib.models import tokenizer

            ds = Dataset.from_dict({"input_ids": rows.rows.tolist()})
            trainer = SFTTrainer(model=model, args=SFTConfig(**kwargs, max_length=scenario["seq_len"], packing=False), train_dataset=ds,
                                 processing_class=tokenizer(scenario["architecture"]["vocab_size"]), callbacks=[Phases()])
        else:
            trainer = Trainer(model=model, args=TrainingArguments(**kwargs), train_dataset=rows, callbacks=[Phases()])
        del early  # the arguments that made the model under ZeRO-Init: the trainer's own hand over the same config
        assert trainer.args.optim.value == "adamw_torch_fused", trainer.args.optim
        trainer.train()
    assert len(steps) == 2 and all(len(s) == 3 for s in steps), steps


def one_step(model, opt, ids, autocast, marks=None, step=0, accelerate_amp=False):
    import torch

    phases = {}
    clock = PhaseClock(marks)

    def phase(name, fn):
        clock.begin(name)
        out = fn()
        phases[name] = clock.end()
        return out

    def forward():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
            out = model(input_ids=ids, labels=ids)
        if accelerate_amp:
            # Accelerate's prepare_model under native AMP: convert_outputs_to_fp32 (an fp32 copy of the 16-bit logits)
            from accelerate.utils.operations import convert_to_fp32

            out = convert_to_fp32(out)
        return out.loss

    clock.mark(f"step_begin:{step}")
    loss = phase("forward", forward)
    phase("backward", loss.backward)
    del loss
    phase("optimizer", lambda: (opt.step(), opt.zero_grad(set_to_none=True)))
    clock.mark(f"step_end:{step}")
    return phases


def preload():
    """Imports what every point needs before the points fork, so each child starts at once. CUDA stays untouched in
    the parent (PYTORCH_NVML_BASED_CUDA_CHECK: transformers' availability checks ask NVML, not the CUDA runtime), so
    each child creates its own context and caching allocator, as a fresh process would."""
    import torch  # noqa: F401
    import transformers  # noqa: F401
    from transformers import AutoConfig, AutoModelForCausalLM  # noqa: F401
    import peft  # noqa: F401
    import torch.distributed.fsdp  # noqa: F401
    from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: F401
    assert not torch.cuda.is_initialized()


def run_child(pid, out_dir, trace, timeout):
    """One point in a forked child: its JSON to DIR/<id>.json, its stderr to DIR/<id>.log. Returns the exit status."""
    log = os.path.join(out_dir, pid + ".log")
    child = os.fork()
    if child == 0:
        code = 1
        try:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 2)
            os.dup2(fd, 1)
            write_point(pid, out_dir, trace)
            code = 0
        except BaseException:  # noqa: BLE001 - the child reports every failure in its log and its exit status
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    start = time.time()
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.time() - start > timeout:
            os.kill(child, 9)
            os.waitpid(child, 0)
            return "timeout"
        time.sleep(0.05)


def write_point(pid, out_dir, trace):
    if os.environ.get("TRUTH_DUMP_EVERY"):  # where a slow point spends its time: every thread's stack to the log
        import faulthandler

        faulthandler.dump_traceback_later(float(os.environ["TRUTH_DUMP_EVERY"]), repeat=True)
    record, tr = measure_point(pid, P.all_points()[pid], trace)
    with open(os.path.join(out_dir, pid + ".json"), "w") as f:
        json.dump(record, f, indent=1)
    if tr is not None:
        with open(os.path.join(out_dir, pid + ".trace.json"), "w") as f:
            json.dump(tr, f)


def deepspeed_metadata(ids):
    """DeepSpeed's distribution metadata on the path before transformers and Accelerate are imported (preload), where a
    point runs a trainer under DeepSpeed (ds_trainer.py; truthlib/ds_meta.py). One release per command."""
    points = P.all_points()
    harnesses = [harness_of(points[i]) for i in ids if points[i].get("zero_stage") and runs_trainer(points[i])]
    releases = {h.get("deepspeed") for h in harnesses}
    if not harnesses:
        return
    if len(releases) > 1:
        raise SystemExit(f"trainer points under DeepSpeed name several releases {sorted(map(str, releases))}: run them apart")
    from truthlib import ds_meta

    ds_meta.install(ds_meta.source_dir(harnesses[0]))


def selected(only, first, last):
    ids = list(P.all_points())[first:last]
    globs = only.split(",") if only else None
    return [i for i in ids if not globs or any(fnmatch.fnmatch(i, g) for g in globs)]


def summary(record):
    if record.get("outOfMemory"):
        return "OUT OF MEMORY"
    phases = record["phases"].values()
    allocated = max(v["maxAllocatedBytes"] for v in phases) / 2**30
    reserved = max(v["maxReservedBytes"] for v in phases) / 2**30
    return f"{allocated:.2f} GiB allocated, {reserved:.2f} GiB reserved"


def run_all(out_dir, ids, trace, deadline, timeout):
    """Runs the points in order until `deadline` (seconds from now) would be passed; what did not start is listed."""
    os.makedirs(out_dir, exist_ok=True)
    preload()
    results, began = [], time.time()
    for pid in ids:
        if time.time() - began > deadline:
            results.append({"id": pid, "notRun": True})
            continue
        t = time.time()
        status = run_child(pid, out_dir, trace, timeout)
        path = os.path.join(out_dir, pid + ".json")
        if status == 0 and os.path.exists(path):
            with open(path) as f:
                results.append(json.load(f))
            what = summary(results[-1])
        else:
            with open(os.path.join(out_dir, pid + ".log")) as f:
                tail = f.read().strip().splitlines()[-6:]
            results.append({"id": pid, "error": f"exit {status}: " + "\n".join(tail)})
            what = "FAILED " + results[-1]["error"]
        print(f"{pid}: {what} ({time.time() - t:.0f} s)", flush=True)
        with open(os.path.join(out_dir, "gpu-truth.json"), "w") as f:
            json.dump({"points": results}, f, indent=1)
    print(f"{sum('phases' in r for r in results)} measured, {sum(bool(r.get('outOfMemory')) for r in results)} out of memory, "
          f"{sum('error' in r and not r.get('outOfMemory') for r in results)} failed, {sum(bool(r.get('notRun')) for r in results)} not run, "
          f"{time.time() - began:.0f} s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="gpu-truth-out")
    ap.add_argument("--only")
    ap.add_argument("--point")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--trace", action="store_true", help="also write the allocator's sequence to DIR/<id>.trace.json")
    ap.add_argument("--stacks", action="store_true", help="with --trace: record each allocation's Python frames (slower)")
    ap.add_argument("--first", type=int, default=0, help="index of the first point to run (the order of points.all_points)")
    ap.add_argument("--last", type=int, default=None, help="index after the last point to run")
    ap.add_argument("--deadline", type=float, default=1e9, help="start no point after this many seconds")
    ap.add_argument("--timeout", type=float, default=300, help="seconds one point may take")
    args = ap.parse_args()
    if args.stacks:
        os.environ["TRUTH_TRACE_STACKS"] = "1"  # read by each point's child
    if args.list:
        print("\n".join(f"{i} {pid}" for i, pid in enumerate(P.all_points())))
        return
    deepspeed_metadata([args.point] if args.point else selected(args.only, args.first, args.last))
    if args.point:
        record, tr = measure_point(args.point, P.all_points()[args.point], args.trace)
        with open(os.path.join(args.out, args.point + ".json"), "w") as f:
            json.dump(record, f, indent=1)
        if tr is not None:
            with open(os.path.join(args.out, args.point + ".trace.json"), "w") as f:
                json.dump(tr, f)
        return
    run_all(args.out, selected(args.only, args.first, args.last), args.trace, args.deadline, args.timeout)


if __name__ == "__main__":
    main()
