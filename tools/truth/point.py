#!/usr/bin/env python3
"""Runs truth points in this process and prints their JSON records: `point.py [--dump-trace DIR] SCENARIO.vram.yaml...`.
run.py starts one process per point (a fresh process group, a fresh profiler) with the right virtual environment."""
import datetime
import gc
import importlib
import importlib.metadata
import json
import os
import platform
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # run.py runs points side by side; threads only oversubscribe the cores

import torch  # noqa: E402
import torch.distributed  # noqa: E402

torch.set_num_threads(1)

from truthlib import bnb, cuda_like, ds_meta, memory, parallel, scenario as scen  # noqa: E402


RUNNERS = {"loop": "truthlib.loop", "trainer": "truthlib.hf", "sft": "truthlib.hf", "dpo": "truthlib.hf", "grpo": "truthlib.hf", "kto": "truthlib.hf",
           "orpo": "truthlib.hf", "online_dpo": "truthlib.hf", "rloo": "truthlib.hf", "deepspeed": "truthlib.zero",
           "litgpt": "truthlib.litgpt"}


def versions():
    out = {"python": platform.python_version()}
    for name in ("torch", "transformers", "peft", "accelerate", "trl", "deepspeed", "bitsandbytes"):
        try:
            out[name] = importlib.metadata.version(name)  # no import: trl alone takes seconds
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    if out["deepspeed"] and "truth-deepspeed-meta-" in str(getattr(importlib.metadata.distribution("deepspeed"), "_path", "")):
        out["deepspeed"] += " (source checkout, truthlib/zero.py)"  # the metadata ds_meta.py made for it
    src = os.environ.get("DEEPSPEED_SRC")
    if out["deepspeed"] is None and src and os.path.exists(os.path.join(src, "version.txt")):
        with open(os.path.join(src, "version.txt")) as f:
            out["deepspeed"] = f.read().strip() + " (source checkout, truthlib/zero.py)"
    litgpt_src = os.environ.get("LITGPT_SRC")
    if litgpt_src and os.path.isdir(litgpt_src):
        from truthlib import litgpt

        out["litgpt"] = litgpt.commit(litgpt_src) + " (source checkout, truthlib/litgpt.py)"
    return out


def _local_bytes(tensors):
    seen, total = set(), 0
    for t in tensors:
        t = getattr(t, "_local_tensor", t)
        if t is None or not torch.is_tensor(t):
            continue
        key = t.untyped_storage().data_ptr()
        if key not in seen:
            seen.add(key)
            total += t.untyped_storage().nbytes()
    return total


def resident(model, optimizer):
    """Bytes of this rank's own parameters and optimizer state after the run (sharded under FSDP)."""
    states = [v for st in optimizer.state.values() for v in st.values() if torch.is_tensor(v) and v.dim() > 0]
    return {"parameterBytes": _local_bytes(model.parameters()), "optimizerStateBytes": _local_bytes(states),
            "trainableParameters": sum(p.numel() for p in model.parameters() if p.requires_grad)}


def timeline_of(rec):
    timeline = memory.Timeline(rec.prof)
    timeline.exclude_cpu_promotions()  # CPU-only dtype temporaries (memory.py)
    timeline.exclude_kernel_internals(bnb.KERNEL_RANGE)  # bitsandbytes' CPU stand-ins for its CUDA kernels (bnb.py)
    if rec.offloaded:
        timeline.exclude_offloaded(rec.offloaded)
        timeline.exclude_between("optimizer_begin", "optimizer_end")
    return timeline


def analyze(timeline, steps):
    measured = steps - 1
    phases, marks = memory.phase_stats(timeline, measured)
    first, _ = memory.phase_stats(timeline, 0)
    top = max(phases, key=lambda k: phases[k]["peakBytes"])
    return {
        "measuredStep": measured,
        "phases": phases,
        "marks": marks,
        "peakBytes": phases[top]["peakBytes"],
        "peakPhase": top,
        "firstStepPeakBytes": max(v["peakBytes"] for v in first.values()),
        "attentionKernels": timeline.attention_kernels(),
    }


def dump_trace(timeline, record, out_dir):
    """Writes the point's allocation sequence (every step, from before the model is built) beside its measured
    figures: `<out_dir>/<suite>/<name>.trace.json` (tools/truth/replay.mjs reads it)."""
    suite, name = record["id"].split("/")
    os.makedirs(os.path.join(out_dir, suite), exist_ok=True)
    keep = ("id", "scenarioPath", "scenario", "harness", "versions", "measuredStep", "phases", "marks", "peakBytes", "peakPhase")
    with open(os.path.join(out_dir, suite, name + ".trace.json"), "w") as f:
        json.dump({**{k: record[k] for k in keep}, **memory.trace(timeline)}, f, separators=(",", ":"))


def run_one(path, trace_dir=None):
    scenario, harness = scen.load(path)
    runner = importlib.import_module(RUNNERS[harness.get("runner", "loop")])
    steps = harness.get("steps", 2)
    started = time.time()
    import torch

    # PyTorch before 2.5 ran SDPA's math kernel in the inputs' 16-bit dtype; this flag restores that behaviour.
    torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(bool(harness.get("math_sdp_half")))
    with memory.Recorder() as rec:
        result = runner.run(rec, scenario, harness)
    timeline = timeline_of(rec)
    record = {
        "id": scen.point_id(path),
        "scenarioPath": scen.relpath(path),
        "scenario": scenario,
        "harness": harness,
        "versions": versions(),
        "date": datetime.date.today().isoformat(),
        "machine": "cpu",
        "worldSize": parallel.world_size(scenario),
        "rank": torch.distributed.get_rank() if torch.distributed.is_initialized() else 0,
        "batchShape": result.get("batchShape"),
        "expertsImplementation": result.get("expertsImplementation"),
        **analyze(timeline, steps),
        **resident(result["model"], result["optimizer"]),
        "offloadSeparated": bool(rec.offloaded),
        "wallSeconds": round(time.time() - started, 2),
    }
    if trace_dir:
        dump_trace(timeline, record, trace_dir)
    print("TRUTH-JSON " + json.dumps(record), flush=True)


def main(args):
    """Several points in one process (saves the imports); each gets its own profile and, when distributed, its
    own fake process group. A point that fails prints TRUTH-FAILED and the next one runs.
    `--dump-trace DIR` first also writes each point's allocation sequence (dump_trace)."""
    trace_dir = None
    if args[:1] == ["--dump-trace"]:
        trace_dir, args = args[1], args[2:]
    # A trainer under DeepSpeed: its metadata on the path before transformers and Accelerate are imported (ds_meta.py).
    trainers_on_deepspeed = [h for h in (scen.load(p)[1] for p in args) if h.get("parallel") == "deepspeed"]
    if trainers_on_deepspeed:
        ds_meta.install(ds_meta.source_dir(trainers_on_deepspeed[0]))
    # CPU autocast and bmm allocate as their CUDA kernels do (truthlib/cuda_like.py). After DeepSpeed's metadata: its
    # Nemotron patch imports transformers, which with Accelerate decides at its import whether DeepSpeed is there.
    cuda_like.install()
    for path in args:
        try:
            run_one(path, trace_dir)
        except Exception as exc:  # noqa: BLE001 (reported to run.py, which lists the failures)
            print(f"TRUTH-FAILED {scen.point_id(path)} {type(exc).__name__}: {str(exc)[:300]}", flush=True)
        finally:
            if torch.distributed.is_initialized():
                torch.distributed.destroy_process_group()
            gc.collect()


if __name__ == "__main__":
    main(sys.argv[1:])
