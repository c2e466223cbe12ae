#!/usr/bin/env python3
"""Runs the truth points and writes test/fixtures/truth/<suite>.json.

    python3 tools/truth/run.py                 # every scenario
    python3 tools/truth/run.py --suite fsdp2   # one suite
    python3 tools/truth/run.py --only 'loop/llama-*' --jobs 2

Each point runs in its own process (point.py) under the virtual environment its scenario asks for:
transformers_version 4.x -> tools/truth/.venv4, otherwise tools/truth/.venv (see setup.sh). Results are merged
into the suite's file by id, so a partial run refreshes only its points."""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from truthlib import scenario as scen  # noqa: E402

SUITE_ORDER = ["trainer", "trl", "loop", "peft", "fsdp2", "fsdp1", "ddp", "accelerate", "layer", "tf4", "flash", "qlora"]
ON_DEMAND = {"replay"}  # real-width points for the allocator replay (minutes each): run only with --suite / --only
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "test", "fixtures", "truth")


def python_for(scenario):
    version = str(scenario.get("transformers_version", "5"))
    venv = ".venv4" if version.startswith("4") else ".venv"
    return os.path.join(HERE, venv, "bin", "python")


def run_batch(paths, timeout, trace_dir=None):
    """Runs a batch of points (same virtual environment) in one process; returns [(point id, record, error)]."""
    scenario, _ = scen.load(paths[0])
    dump = ["--dump-trace", os.path.abspath(trace_dir)] if trace_dir else []
    try:
        proc = subprocess.run([python_for(scenario), os.path.join(HERE, "point.py"), *dump, *paths], capture_output=True, text=True, timeout=timeout)
        out, err = proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        out, err = exc.stdout or "", "timeout"
        out = out.decode() if isinstance(out, bytes) else out
    results, seen = [], set()
    for line in out.splitlines():
        if line.startswith("TRUTH-JSON "):
            record = json.loads(line[len("TRUTH-JSON "):])
            results.append((record["id"], record, None))
            seen.add(record["id"])
        elif line.startswith("TRUTH-FAILED "):
            pid, _, why = line[len("TRUTH-FAILED "):].partition(" ")
            results.append((pid, None, why))
            seen.add(pid)
    tail = "\n".join((err or "").strip().splitlines()[-4:])
    results += [(scen.point_id(p), None, tail) for p in paths if scen.point_id(p) not in seen]
    return results


def batches(paths, size):
    """Consecutive points sharing a virtual environment, `size` at a time. A DeepSpeed point runs alone: DeepSpeed
    keeps its process groups in module globals, which outlive the fake group each point makes. So does a trainer's
    run over several ranks: Accelerate's state is one per process."""
    out, last = [], None
    for p in paths:
        scenario, harness = scen.load(p)
        alone = harness.get("runner") == "deepspeed" or (harness.get("runner", "loop") != "loop" and harness.get("parallel", "none") != "none")
        key = (python_for(scenario), alone)
        if out and not key[1] and key == last and len(out[-1]) < size:
            out[-1].append(p)
        else:
            out.append([p])
        last = key
    return out


def done_ids():
    ids = set()
    for name in os.listdir(FIXTURES) if os.path.isdir(FIXTURES) else []:
        if name.endswith(".json") and name != "status.json":
            with open(os.path.join(FIXTURES, name)) as f:
                ids.update(p["id"] for p in json.load(f)["points"])
    return ids


def save(suite, records):
    os.makedirs(FIXTURES, exist_ok=True)
    out = os.path.join(FIXTURES, f"{suite}.json")
    points = {}
    if os.path.exists(out):
        with open(out) as f:
            points = {p["id"]: p for p in json.load(f)["points"]}
    points.update({r["id"]: r for r in records})
    with open(out, "w") as f:
        json.dump({"suite": suite, "points": [points[k] for k in sorted(points)]}, f, indent=1, sort_keys=False)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite")
    ap.add_argument("--only", help="glob over point ids (suite/name); several, comma-separated")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per batch")
    ap.add_argument("--batch", type=int, default=4, help="points per process")
    ap.add_argument("--skip-done", action="store_true", help="leave out points already in the fixtures")
    ap.add_argument("--dump-trace", metavar="DIR", help="also write each point's allocation sequence to DIR/<suite>/<name>.trace.json")
    args = ap.parse_args()
    globs = args.only.split(",") if args.only else []
    paths = [p for p in scen.all_paths(args.suite) if not globs or any(fnmatch.fnmatch(scen.point_id(p), g) for g in globs)]
    if not args.suite and not args.only:
        paths = [p for p in paths if scen.point_id(p).split("/")[0] not in ON_DEMAND]
    order = {s: i for i, s in enumerate(SUITE_ORDER)}
    paths.sort(key=lambda p: (order.get(scen.point_id(p).split("/")[0], len(order)), p))
    if args.skip_done:
        done = done_ids()
        paths = [p for p in paths if scen.point_id(p) not in done]
    by_suite, failed, n = {}, [], 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for results in pool.map(lambda b: run_batch(b, args.timeout, args.dump_trace), batches(paths, args.batch)):
            for pid, record, error in results:
                n += 1
                if record is None:
                    failed.append(pid)
                    print(f"[{n}/{len(paths)}] FAILED {pid}\n{error}", flush=True)
                    continue
                by_suite.setdefault(pid.split("/")[0], []).append(record)
                print(f"[{n}/{len(paths)}] {pid}: peak {record['peakBytes']:,} B ({record['peakPhase']}) in {record['wallSeconds']} s", flush=True)
            for suite, records in by_suite.items():  # keep what is measured so far
                save(suite, records)
    for suite, records in by_suite.items():
        save(suite, records)
    print(f"{sum(len(r) for r in by_suite.values())} points written, {len(failed)} failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
