"""Scenario files (the estimator's *.vram.yaml, read as is) and the harness settings of their suite
(`harness.yaml` beside them: `defaults` for the suite, `points: {id: {...}}` per file)."""
import os

import yaml

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(HERE, "scenarios")


def load(path):
    with open(path) as f:
        scenario = yaml.safe_load(f)
    suite_dir = os.path.dirname(path)
    point_id = os.path.basename(path)[: -len(".vram.yaml")]
    harness_path = os.path.join(suite_dir, "harness.yaml")
    harness = {}
    if os.path.exists(harness_path):
        with open(harness_path) as f:
            spec = yaml.safe_load(f) or {}
        harness = {**(spec.get("defaults") or {}), **((spec.get("points") or {}).get(point_id) or {})}
    return scenario, harness


def all_paths(suite=None):
    out = []
    for root, _, files in os.walk(SCENARIOS):
        for name in files:
            if name.endswith(".vram.yaml"):
                out.append(os.path.join(root, name))
    out.sort()
    return [p for p in out if suite is None or os.path.basename(os.path.dirname(p)) == suite]


def point_id(path):
    return f"{os.path.basename(os.path.dirname(path))}/{os.path.basename(path)[: -len('.vram.yaml')]}"


def relpath(path):
    return os.path.relpath(path, os.path.dirname(os.path.dirname(HERE)))
