#!/usr/bin/env python3
"""Writes test/fixtures/truth/gpu.json from the raw GPU results (results/<date>-<gpu>/gpu-truth-*.json): one truth
point per measured point, in the format of the CPU suites (so tools/truth/compare.mjs and the golden tests read it
as they read those), plus what only a GPU gives: the peak reserved bytes (`reservedBytes`, max_memory_reserved) and
the device memory used (`deviceBytes`, cudaMemGetInfo: the CUDA context, loaded kernels and the reserved segments).

Where the harness's build allocated and freed an untied output head before the run (gpu/history.py: a model with a
tied head, built on the meta device and materialised in module order), `reservedBytes` and `deviceBytes` are what the
same run reserves without that pair, as a from_pretrained load makes none: the history replayed through the caching
allocator's rules, which give the GPU's own max_memory_reserved within 0.1 % on that history (the correction is left
out where they do not). The GPU's figures are kept in `harnessLoad` beside the head's bytes.

    python3 tools/truth/gpu/fixture.py tools/truth/gpu/results/2026-11-24-h100 [...]
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def harness(scenario, extra):
    world = scenario.get("gpus_per_node", 1)
    if scenario.get("zero_stage"):
        out = {"runner": "deepspeed", **extra}
        if extra.get("runner") in ("trainer", "sft"):  # a trainer under DeepSpeed (ds_trainer.py)
            out["parallel"] = "deepspeed"
        if scenario.get("gradient_checkpointing", "none") != "none":
            out["reentrant"] = bool(scenario.get("checkpoint_reentrant", False))
        return out
    if scenario.get("fsdp", "none") != "none":
        parallel = "fsdp1" if scenario.get("fsdp_version") == 1 else "fsdp2"
    else:
        parallel = "ddp" if world > 1 else "none"
    out = {"runner": "loop", "parallel": parallel, **extra}
    if scenario.get("gradient_checkpointing", "none") != "none":
        out["reentrant"] = bool(scenario.get("checkpoint_reentrant", False))
    return out


HEAD_REPLAY_TOLERANCE = 0.001
# The DeepSpeed source of the DeepSpeed points measured before run.py recorded its release (the first three commands
# of results/2026-11-26b-h100): 0.19.6, as their README says.
DEEPSPEED_UNRECORDED = "0.19.6"


# The 4-bit FSDP1 points whose histories replay 0.3 to 2.3 % above the GPU's reserved bytes (7B at 10 and 12 rows, 70B
# over 8 ranks; not explained): the cache the harness emptied is taken as what the replays with and without the
# empty_cache differ by, added to the GPU's figure.
EMPTY_CACHE_REPLAY_TOLERANCE = 0.03


def without_harness_step(point, load, key, what, tolerance=HEAD_REPLAY_TOLERANCE):
    """The point's reserved and device bytes as the history replays without a step of the harness's own
    (`load[key]`, gpu/history.py), where the history replays to the GPU's reserved bytes within `tolerance`: the
    replay's figure where it is within HEAD_REPLAY_TOLERANCE, else the GPU's plus what the step changed in the replay;
    the GPU's figures kept in `harnessLoad` beside `what`."""
    if not load or key not in load or load["gpuReservedBytes"] != point["reservedBytes"]:
        return point
    replayed = load["replayedReservedBytes"]
    if abs(replayed - point["reservedBytes"]) > tolerance * point["reservedBytes"]:
        return point
    reserved = load[key]
    if abs(replayed - point["reservedBytes"]) > HEAD_REPLAY_TOLERANCE * point["reservedBytes"]:
        reserved = point["reservedBytes"] + load[key] - replayed
        what = {**what, "correctedFromGpu": True}
    return {**point, "reservedBytes": reserved, "deviceBytes": point["deviceBytes"] - point["reservedBytes"] + reserved,
            "harnessLoad": {**what, "gpuReservedBytes": point["reservedBytes"], "gpuDeviceBytes": point["deviceBytes"],
                            "replayedReservedBytes": replayed}}


def without_harness_head(point, load):
    """Without the build's untied head, where its history has one."""
    what = {"headTemporaryBytes": load["headTemporaryBytes"]} if load and "headTemporaryBytes" in load else {}
    return without_harness_step(point, load, "reservedWithoutHeadBytes", what)


def without_harness_empty_cache(point, load):
    """Without the cache the harness emptied once FSDP1 had sharded a 4-bit model: a user's run keeps those segments."""
    return without_harness_step(point, load, "reservedWithoutEmptyCacheBytes", {"emptiedCacheAfterWrap": True},
                                EMPTY_CACHE_REPLAY_TOLERANCE)


FIRST_GPU = "NVIDIA H100 80GB HBM3"


def point_id(record):
    """`gpu/<id>` for the H100 the first points ran on; a point measured on another GPU is `gpu/<gpu>/<id>` (`gpu/h200/...`),
    so the same point on two GPUs is two truth points."""
    if record["gpu"] == FIRST_GPU:
        return "gpu/" + record["id"]
    return "gpu/" + record["gpu"].lower().replace("nvidia ", "").replace(" ", "-") + "/" + record["id"]


def truth_point(record, source):
    scenario = {k: v for k, v in record["scenario"].items() if k not in ("model", "harness")}
    if scenario.get("fsdp_version") == 1:
        # run.py's shard_fsdp1 leaves FullyShardedDataParallel's backward_prefetch at its default, BACKWARD_PRE, as
        # Answer.AI's train.py does (points.py writes it into the scenarios measured since).
        scenario.setdefault("fsdp_backward_prefetch", "pre")
        if record["scenario"].get("harness", {}).get("fsdp1") != "plugin":
            # shard_fsdp1 builds Answer.AI's loop with use_orig_params=False (points.py writes it since 2026-11-25).
            scenario.setdefault("fsdp_use_orig_params", False)
        if not record.get("fsdp1Retied") and scenario.get("architecture", {}).get("tie_word_embeddings"):
            # Measured before shard_fsdp1 tied shared parameters again (run.py retying_init): to_empty(recurse=False)
            # gave the output head a parameter of its own, so the run trained an untied head (the step-1 optimizer
            # peak holds the root's flat parameter, gradient, AdamW state and sqrt temporary at twice the embedding's
            # shard). What ran is the untied model, so that is the scenario the point checks.
            scenario["architecture"] = {**scenario["architecture"], "tie_word_embeddings": False}
    if scenario.get("fsdp_version") == 1 and scenario.get("quantization", {}).get("bits") == 4:
        # gpu/qlora.py loads the 4-bit model as from_pretrained does, weight by weight on the GPU, after transformers'
        # caching_allocator_warmup only where the harness was asked for it (the load of transformers before 4.50, or of
        # Answer.AI's train.py with --low_memory false, otherwise).
        scenario["bnb_load"] = "warmup" if record["scenario"].get("harness", {}).get("warmup") else "gpu"
    if scenario.get("zero_stage"):
        # The DeepSpeed release the point ran (ds_point.py: a source checkout's version.txt)
        release = (record["versions"].get("deepspeed") or DEEPSPEED_UNRECORDED).split(" ")[0]
        scenario["deepspeed_version"] = release
        if scenario.get("lora") and scenario["zero_stage"] == 3:
            # ds_point.py adds PEFT's adapters after zero.Init, in fp32 (autocast_adapter_dtype); DeepSpeed casts them
            # to bf16 before 0.19.2 and leaves a ZeRO-Init model's parameters as they are from then on (FINDINGS 67:
            # the inputs' fp32 copies are in 0.19.6's histories, not in 0.16.5's). points.py wrote bf16 at first.
            # A model made outside zero.Init (zero3_init false) has them cast by every release.
            kept = scenario.get("zero3_init", True) and tuple(int(x) for x in release.split(".")[:3]) >= (0, 19, 2)
            scenario["lora"] = {**scenario["lora"], "dtype": "fp32" if kept else "bf16"}
    measured = record["phases"]
    phases = {name: {"peakBytes": v["maxAllocatedBytes"], "reservedBytes": v["maxReservedBytes"],
                     "deviceBytes": v["deviceUsedAtEndBytes"]} for name, v in measured.items()}
    peak_phase = max(phases, key=lambda k: phases[k]["peakBytes"])
    first = record["steps"][0]
    return {"id": point_id(record), "model": record["scenario"].get("model"), "source": source,
            "scenario": scenario, "harness": harness(scenario, record["scenario"].get("harness", {})), "versions": record["versions"], "date": record["date"],
            "machine": "gpu", "gpu": record["gpu"], "worldSize": scenario.get("gpus_per_node", 1), "rank": 0,
            "batchShape": [scenario["micro_batch_size"], scenario["seq_len"]], "measuredStep": 1, "phases": phases,
            "peakBytes": phases[peak_phase]["peakBytes"], "peakPhase": peak_phase,
            "reservedBytes": max(v["reservedBytes"] for v in phases.values()),
            "deviceBytes": max(v["deviceBytes"] for v in phases.values()),
            "cudaContextBytes": record["cudaContextBytes"],
            "firstStepPeakBytes": max(v["maxAllocatedBytes"] for v in first.values()),
            "offloadSeparated": scenario.get("offload_params", "none") != "none",
            "allocatorStats": record.get("allocatorStats")}


def main():
    points = []
    for results in sys.argv[1:]:
        source = os.path.relpath(os.path.abspath(results), REPO)
        loads = {}
        if os.path.exists(os.path.join(results, "harness-load.json")):
            with open(os.path.join(results, "harness-load.json")) as f:
                loads = json.load(f)
        for path in sorted(glob.glob(os.path.join(results, "gpu-truth-*.json"))):
            with open(path) as f:
                records = [r for r in json.load(f)["points"] if "phases" in r]
            points += [without_harness_empty_cache(without_harness_head(truth_point(r, source), loads.get(r["id"])), loads.get(r["id"]))
                       for r in records]
    points.sort(key=lambda p: p["id"])
    ids = [p["id"] for p in points]
    assert len(set(ids)) == len(ids), "a point is measured twice"
    out = os.path.join(REPO, "test", "fixtures", "truth", "gpu.json")
    with open(out, "w") as f:
        json.dump({"suite": "gpu", "points": points}, f, indent=1)
        f.write("\n")
    print(f"{out}: {len(points)} points")


if __name__ == "__main__":
    main()
