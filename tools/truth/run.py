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

SUITE_ORDER = ["trainer", "trl", "loop", "peft", "fsdp2", "fsdp1", "ddp", "tf4"]
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "test", "fixtures", "truth")


def python_for(scenario):
    version = str(scenario.get("transformers_version", "5"))
    venv = ".venv4" if version.startswith("4") else ".venv"
    return os.path.join(HERE, venv, "bin", "python")


def run_point(path, timeout):
    scenario, _ = scen.load(path)
    try:
        proc = subprocess.run([python_for(scenario), os.path.join(HERE, "point.py"), path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return path, None, "timeout"
    for line in proc.stdout.splitlines():
        if line.startswith("TRUTH-JSON "):
            return path, json.loads(line[len("TRUTH-JSON "):]), None
    tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-6:])
    return path, None, tail


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
    ap.add_argument("--only", help="glob over point ids (suite/name)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    paths = [p for p in scen.all_paths(args.suite) if not args.only or fnmatch.fnmatch(scen.point_id(p), args.only)]
    order = {s: i for i, s in enumerate(SUITE_ORDER)}
    paths.sort(key=lambda p: (order.get(scen.point_id(p).split("/")[0], len(order)), p))
    by_suite, failed = {}, []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for n, (path, record, error) in enumerate(pool.map(lambda p: run_point(p, args.timeout), paths), 1):
            pid = scen.point_id(path)
            if record is None:
                failed.append(pid)
                print(f"[{n}/{len(paths)}] FAILED {pid}\n{error}", flush=True)
                continue
            by_suite.setdefault(pid.split("/")[0], []).append(record)
            if n % 10 == 0:  # keep what is measured so far
                for suite, records in by_suite.items():
                    save(suite, records)
            print(f"[{n}/{len(paths)}] {pid}: peak {record['peakBytes']:,} B ({record['peakPhase']}) in {record['wallSeconds']} s", flush=True)
    for suite, records in by_suite.items():
        save(suite, records)
    print(f"{sum(len(r) for r in by_suite.values())} points written, {len(failed)} failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
