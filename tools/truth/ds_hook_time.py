"""CPU time of a layer's forward under DeepSpeed ZeRO-3, release by release, on this host: what the estimator's
ZeRO-3 launch lead (src/core/terms/zero3-launch-lead.ts) needs of a release whose hooks' time the GPU did not measure.

The engine's own code runs (truthlib/zero.py: the release from DEEPSPEED_SRC_DIR/ds-<release>, the fake process group
at world size 8, the CPU accelerator): a Llama of narrow layers (hidden 64, so that each op's arithmetic is small
beside its dispatch and DeepSpeed's fetch and release hooks) with PEFT LoRA r 8 on every linear layer and dropout 0.1,
bf16, DeepSpeed's default buckets, without checkpointing (releases before 0.15 fail non-reentrant checkpointing's
recompute check, and from 0.19.3 reentrant checkpointing keeps frozen layers gathered: the forward's own ops are the
same either way). Each release
runs in a process of its own (DeepSpeed keeps its groups in module globals); the forwards of `--steps` steps after
`--warmup` are timed whole (time.perf_counter), their median divided by the layers. The model and the ops are the
same in every release, so the ratio of a release's time to the reference release's (0.19.6 unless --reference, whose
ZeRO3_CPU_SECONDS_PER_LAUNCH the GPU truth measured) is what its hooks cost beside the reference's. Printed as one JSON
line per run and one per release with that ratio.

    DEEPSPEED_SRC_DIR=DIR tools/truth/.venv/bin/python tools/truth/ds_hook_time.py 0.19.6 0.14.4 0.12.6 0.10.3

DIR as tools/truth/gpu/deps.sh assembles it. Wall-clock figures of one host: run the releases alternately and more
than once (--rounds) before reading a ratio."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

ARCH = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 16,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512, "max_position_embeddings": 512,
        "tie_word_embeddings": False}


def scenario():
    return {"architecture": ARCH, "method": "lora", "weights_dtype": "bf16", "micro_batch_size": 1, "seq_len": 64,
            "attention": "sdpa", "zero_stage": 3, "gpus_per_node": 8, "zero_buckets": {},
            "lora": {"r": 8, "alpha": 16, "dropout": 0.1, "target_modules": "all-linear"},
            "gradient_checkpointing": "none"}


def timed_forwards(forward_backward, warmup, steps):
    times = []
    for step in range(warmup + steps):
        t0 = time.perf_counter()
        t1 = forward_backward()
        if step >= warmup:
            times.append(t1 - t0)
    return statistics.median(times) / ARCH["num_hidden_layers"]


def plain(warmup, steps):
    """The same model and steps without DeepSpeed: the ops' own time, which every release's includes."""
    import torch

    from truthlib import models
    from truthlib.loop import trainable

    s = scenario()
    harness = {"seed": 0}
    model = models.apply_peft(models.build_model(s, harness), s)
    model.train()
    data = models.batch(s, harness)
    opt = torch.optim.AdamW(trainable(model), lr=1e-4, foreach=True)

    def step():
        out = model(**data)
        t1 = time.perf_counter()
        out.loss.backward()
        opt.step()
        opt.zero_grad()
        return t1

    print(json.dumps({"release": "none", "layerForwardSeconds": timed_forwards(step, warmup, steps),
                      "torch": torch.__version__}))


def child(release, warmup, steps):
    sys.path.insert(0, HERE)
    import torch
    from torch.testing._internal.distributed.fake_pg import FakeStore

    from truthlib import models, zero
    from truthlib.loop import trainable

    if release == "none":
        return plain(warmup, steps)
    torch.distributed.init_process_group(backend="fake", rank=0, world_size=8, store=FakeStore())
    os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="8", MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")
    deepspeed = zero.import_deepspeed(release=release)
    s = scenario()
    harness = {"seed": 0}
    model = models.apply_peft(models.build_model(s, harness), s)
    data = models.batch(s, harness)
    model.train()
    opt = torch.optim.AdamW(trainable(model), lr=1e-4, foreach=True)
    config = zero.ds_config(s, {})
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=config, dist_init_required=False)

    def step():
        out = engine(**data)
        t1 = time.perf_counter()
        engine.backward(out.loss)
        engine.step()
        return t1

    print(json.dumps({"release": release, "layerForwardSeconds": timed_forwards(step, warmup, steps),
                      "torch": torch.__version__}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("releases", nargs="*")
    ap.add_argument("--reference", default="0.19.6")
    ap.add_argument("--warmup", type=int, default=4)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.warmup, args.steps)
        return
    releases = list(dict.fromkeys([args.reference] + args.releases))
    seen = {r: [] for r in releases}
    for _ in range(args.rounds):
        for r in releases:
            out = subprocess.run([sys.executable, __file__, "--child", r, "--warmup", str(args.warmup), "--steps",
                                  str(args.steps)], capture_output=True, text=True, env=dict(os.environ, LOCAL_SIZE="1"))
            line = [x for x in out.stdout.splitlines() if x.startswith("{")]
            if out.returncode != 0 or not line:
                sys.exit(f"{r}: {out.stderr[-2000:]}")
            seen[r].append(json.loads(line[-1]))
            print(line[-1], flush=True)
    ref = statistics.median(x["layerForwardSeconds"] for x in seen[args.reference])
    for r in releases:
        med = statistics.median(x["layerForwardSeconds"] for x in seen[r])
        print(json.dumps({"release": r, "medianLayerForwardSeconds": med, "ratioToReference": med / ref}))


if __name__ == "__main__":
    main()
