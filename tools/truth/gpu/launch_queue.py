#!/usr/bin/env python3
"""How much work the CPU can queue on a CUDA stream before a launch blocks: the bound on how far a GPU-bound program's
CPU runs ahead of its kernels (FINDINGS §89).

    python3 tools/truth/gpu/launch_queue.py [--out FILE]

For each kind of operation: the stream is held by one long kernel (torch.cuda._sleep), then the operation is issued
N times while the CPU times each call. Calls return at once until the queue is full; the first call that waits for the
sleeping kernel (more than 20 ms) is the queue's depth in operations of that kind. Also: two streams held at once
(do they share one queue?), and kernels of two kinds alternating. CUDA_SCALE_LAUNCH_QUEUES (CUDA 12.7 and later)
scales the queue: its value is printed with the figures."""
import argparse
import json
import os
import time

import torch

SLEEP_CYCLES = int(4e9)  # about 2 s at the H100's clock: far longer than the CPU needs to fill any queue
BLOCKED_S = 0.02


def first_blocked(issue, n, stream=None):
    """The index of the first of n calls of `issue` that waited for the held stream, or None."""
    torch.cuda.synchronize()
    with torch.cuda.stream(stream or torch.cuda.current_stream()):
        torch.cuda._sleep(SLEEP_CYCLES)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        issue()
        times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    return next((i for i, t in enumerate(times) if t > BLOCKED_S), None)


def kinds():
    a = torch.zeros(16, device="cuda")
    b = torch.zeros(16, device="cuda")
    x = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    z = torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)
    big = torch.randn(1 << 20, device="cuda")
    side = torch.cuda.Stream()

    def event():
        torch.cuda.Event().record()

    def wait():
        torch.cuda.current_stream().wait_stream(side)

    def alternate():
        a.add_(1)
        torch.mm(x, y, out=z)

    return {
        "add_ (one elementwise kernel)": (lambda: a.add_(1), 1),
        "mm bf16 64x64 (one cuBLAS kernel)": (lambda: torch.mm(x, y, out=z), 1),
        "copy_ device to device (memcpy)": (lambda: a.copy_(b), 1),
        "sum (a reduction kernel)": (lambda: big.sum(), 1),
        "event record": (event, 1),
        "wait on another stream's event": (wait, 1),
        "add_ then mm (two per call)": (alternate, 2),
    }


def two_streams(n):
    """Both streams held; calls alternate between them: where the first call blocks, in calls issued to both."""
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    a1, a2 = torch.zeros(16, device="cuda"), torch.zeros(16, device="cuda")
    torch.cuda.synchronize()
    for s in (s1, s2):
        with torch.cuda.stream(s):
            torch.cuda._sleep(SLEEP_CYCLES)
    times = []
    for i in range(n):
        s, a = (s1, a1) if i % 2 == 0 else (s2, a2)
        t0 = time.perf_counter()
        with torch.cuda.stream(s):
            a.add_(1)
        times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    return next((i for i, t in enumerate(times) if t > BLOCKED_S), None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--n", type=int, default=16384)
    args = parser.parse_args()
    torch.cuda.init()
    result = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "driver": torch.cuda.driver_version() if hasattr(torch.cuda, "driver_version") else None,
        "CUDA_SCALE_LAUNCH_QUEUES": os.environ.get("CUDA_SCALE_LAUNCH_QUEUES"),
        "depth": {},
    }
    for name, (issue, per_call) in kinds().items():
        issue()  # warm: cuBLAS handles, the first launch's module load
        depths = [first_blocked(issue, args.n) for _ in range(2)]
        result["depth"][name] = {"calls": depths, "operationsPerCall": per_call}
        print(f"{name}: blocked at call {depths}", flush=True)
    result["twoStreamsAlternating"] = [two_streams(args.n) for _ in range(2)]
    print(f"two held streams, alternating add_: blocked at call {result['twoStreamsAlternating']}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
