"""DeepSpeed ZeRO on the GPU: rank 0 of the real engine at world size N through torch's fake process group, as the
HF Trainer runs it under Accelerate's DeepSpeed plugin with `zero3_init_flag` (PEFT's examples/sft recipe): the model
built inside `deepspeed.zero.Init` (each module's parameters partitioned as it is made, on the GPU), PEFT's adapters
added to the partitioned model, `deepspeed.initialize` with a client torch AdamW, the ZeRO block's "auto" buckets
filled by transformers' own code, then engine forward / backward / step. DeepSpeed is the source checkout the CPU
harness uses (DEEPSPEED_SRC, truthlib/zero.py), with its CUDA accelerator: its side streams (ZeRO-3's all-gather
stream, the reduction stream under overlap_comm) and the caching allocator's pools per stream are what the CPU
harness cannot show. No C++ op is built."""
import os


def init_world(world):
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    if not dist.is_initialized():
        dist.init_process_group(backend="fake", rank=0, world_size=world, store=FakeStore())
    os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")


def device():
    """cuda; cpu for a smoke test of this module on a machine without a GPU (TRUTH_SMOKE_CPU=1)."""
    return "cpu" if os.environ.get("TRUTH_SMOKE_CPU") == "1" else "cuda"


def import_deepspeed(scenario):
    """DeepSpeed from DEEPSPEED_SRC, or for a point that names a release (`harness: {deepspeed: "0.16.5"}`) from
    DEEPSPEED_SRC_DIR/ds-<release>."""
    from truthlib import zero

    return zero.import_deepspeed(accelerator=device(), release=scenario.get("harness", {}).get("deepspeed"))


def version():
    """The release of the DeepSpeed source in use (its version.txt)."""
    src = os.environ.get("DEEPSPEED_SRC")
    if not src or not os.path.exists(os.path.join(src, "version.txt")):
        return None
    with open(os.path.join(src, "version.txt")) as f:
        return f.read().strip() + " (source checkout)"


def ds_config(scenario, model_config):
    """The scenario's DeepSpeed config (truthlib/zero.py ds_config), its "auto" values filled from the model config as
    the HF Trainer fills them (truthlib/zero.py fill_auto; the model stands in by its config, before it exists)."""
    from types import SimpleNamespace

    from truthlib import zero

    config = zero.ds_config(scenario, scenario.get("harness", {}))
    return zero.fill_auto(config, SimpleNamespace(config=model_config, modules=lambda: []))


def build(scenario):
    """The model made inside zero.Init (partitioned as built; whole on the GPU where `zero3_init` is false), random
    partitions, PEFT's adapters on top; gradient checkpointing as the HF Trainer enables it (non-reentrant unless the
    scenario says reentrant)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from truthlib import models

    deepspeed = import_deepspeed(scenario)
    arch = dict(scenario["architecture"])
    cfg = AutoConfig.for_model(arch.pop("model_type"), **arch)
    config = ds_config(scenario, cfg)
    # ZeRO-3: partitioned as built (zero3_init_flag); ZeRO-1/2 or zero3_init false: the whole model on the GPU,
    # partitioned (ZeRO-3) by deepspeed.initialize
    init = scenario.get("zero_stage") == 3 and scenario.get("zero3_init", True)
    with deepspeed.zero.Init(config_dict_or_path=config) if init else torch.device(device()):
        model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation=scenario.get("attention", "sdpa"))
    with torch.no_grad():
        for p in model.parameters():
            (p.ds_tensor if hasattr(p, "ds_tensor") else p).normal_(0, 0.02)
    model.config.use_cache = False
    model = models.apply_peft(model, scenario)
    if scenario.get("gradient_checkpointing", "none") != "none":
        reentrant = bool(scenario.get("checkpoint_reentrant", False))
        models.hf_model(model).gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
        if scenario.get("method") != "full":
            models.hf_model(model).enable_input_require_grads()
    model.train()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4, foreach=True)
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=config, dist_init_required=False)
    return engine


def run_engine(engine, scenario, clock, steps):
    """Two optimizer steps (the second measured), each over the scenario's micro-batches: forward (the engine's call,
    the loss included), backward (engine.backward), optimizer (engine.step: the reduction of the last micro-batch's
    gradients, clipping, AdamW, the 16-bit partitions updated)."""
    import torch

    g = torch.Generator(device=device()).manual_seed(0)
    ids = torch.randint(3, scenario["architecture"]["vocab_size"], (scenario["micro_batch_size"], scenario["seq_len"]), device=device(),
                        generator=g)
    accumulation = scenario.get("gradient_accumulation_steps", 1)
    for step in range(2):
        phases = {}
        clock.mark(f"step_begin:{step}")
        for micro in range(accumulation):
            clock.begin("forward")
            loss = engine(input_ids=ids, labels=ids).loss
            _keep_max(phases, "forward", clock.end())
            clock.begin("backward")
            engine.backward(loss)
            del loss
            _keep_max(phases, "backward", clock.end())
            clock.begin("optimizer")
            engine.step()
            _keep_max(phases, "optimizer", clock.end())
        clock.mark(f"step_end:{step}")
        steps.append(phases)
    if os.environ.get("TRUTH_COUNT_LAUNCHES"):
        count_launches(engine, scenario, ids, os.environ["TRUTH_COUNT_LAUNCHES"])


def count_launches(engine, scenario, ids, out_dir):
    """A third step (after the measured two) under torch's profiler: the CUDA runtime calls the CPU made (kernel
    launches, copies and memsets, which fill a stream's launch queue; event records and waits, which do not) and the
    operations the GPU ran (kernels, copies, memsets), in the forward and in the backward, with the number of decoder
    layers and each phase's seconds, written to OUT_DIR/launches-<pid>.json. The run-ahead of ZeRO-3's gathered
    parameters is bounded by how many layers' launches the queue holds (FINDINGS §89)."""
    import collections
    import json
    import time

    import torch
    from torch.profiler import ProfilerActivity, profile

    def counted(fn):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            out = fn()
            torch.cuda.synchronize()
        runtime, kernels = collections.Counter(), 0
        for event in prof.events():
            if event.device_type == torch.autograd.DeviceType.CUDA:
                kernels += 1
            elif event.name.startswith(("cuda", "cu")):
                runtime[event.name] += 1
        return out, {"seconds": round(time.perf_counter() - t0, 3), "kernels": kernels, "runtime": dict(runtime)}

    record = {"scenario": {k: scenario.get(k) for k in ("model", "micro_batch_size", "seq_len", "method")},
              "layers": scenario["architecture"].get("num_hidden_layers")}
    loss, record["forward"] = counted(lambda: engine(input_ids=ids, labels=ids).loss)
    _, record["backward"] = counted(lambda: engine.backward(loss))
    del loss
    engine.step()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, f"launches-{os.getpid()}.json"), "w") as f:
        json.dump(record, f, indent=1)


def _keep_max(phases, name, figures):
    """A phase over several micro-batches: the highest of each peak, the last of each end figure."""
    old = phases.get(name)
    if old is None:
        phases[name] = figures
        return
    for key in ("maxAllocatedBytes", "maxReservedBytes"):
        figures[key] = max(figures[key], old[key])
    figures["seconds"] = round(figures["seconds"] + old["seconds"], 3)
    phases[name] = figures
