#!/usr/bin/env python3
"""A GPU history (gpu/run.py --trace) replayed through the CUDA caching allocator's rules, and the harness's own load
taken out of it.

The replay follows PyTorch's CUDACachingAllocator (c10/cuda/CUDACachingAllocator.cpp): requests rounded up to 512 B;
requests of at most 1 MiB from the small pool's 2 MiB segments, others from the large pool (a new segment of 20 MiB
below 10 MiB, else the request rounded up to 2 MiB); the best fit is the smallest free block of the request's stream
and pool that holds it, the lowest address among equal sizes (BlockComparatorSize); a block is split when what is
left is at least 512 B (small pool) or more than 1 MiB (large pool); a freed block merges with free neighbours of its
segment; segments are never released (no memory limit is reached). A new segment lands below the earlier ones, as
the driver placed them in these histories (FINDINGS §42). Frees are taken where the history completed them.
It is kept apart from the estimator's model (src/core/terms/allocator.ts, which numbers its segments upwards and
which `replay.mjs` drives): this replay checks the GPU against the rules themselves, with the driver's placement.

From the first event, the replay gives max_memory_reserved to the byte on most histories and within 0.3 % on nearly all
the others (`replayedReservedBytes` beside `gpuReservedBytes`). It does not follow a run that neared the GPU's memory
(the allocator then releases its cached segments and retries). FSDP histories recorded before run.py named each
request's stream are not replayed (`streams: unnamed`): their side streams read as the default one.

The harness builds a model on the meta device and allocates each tensor in module order (run.py materialise). A model
with a tied output head then gets the head's own tensor, which transformers frees when it ties the weights: a request
of the embedding's size, freed before the first step. A from_pretrained load ties before it allocates and makes no such
request, yet its cached block changes where the run's later requests land. The same history without that pair is what
a user's load leaves, and its replay is the reserved bytes such a run has (`reservedWithoutHeadBytes`). Likewise the
harness empties the cache once FSDP1 has sharded a 4-bit model loaded whole onto the GPU (run.py shard_fsdp1); a
user's run keeps those segments, and the replay without that call gives its reserved bytes
(`reservedWithoutEmptyCacheBytes`, beside the replay with it).

    python3 tools/truth/gpu/history.py RESULTS_DIR [...]     # writes RESULTS_DIR/harness-load.json from its traces

Each traces-*.tar.xz of a results directory is read in a temporary directory.
"""
import bisect
import glob
import json
import os
import sys
import tarfile
import tempfile

SMALL = 1 << 20
MIN_BLOCK = 512


def round_size(n):
    return MIN_BLOCK if n < MIN_BLOCK else MIN_BLOCK * ((n + MIN_BLOCK - 1) // MIN_BLOCK)


def segment_size(n):
    if n <= SMALL:
        return 2 << 20
    if n < 10 << 20:
        return 20 << 20
    return (2 << 20) * ((n + (2 << 20) - 1) // (2 << 20))


class Block:
    __slots__ = ("addr", "size", "small", "stream", "prev", "next", "free")

    def __init__(self, addr, size, small, stream, prev=None, nxt=None):
        self.addr, self.size, self.small, self.stream = addr, size, small, stream
        self.prev, self.next, self.free = prev, nxt, False


class Allocator:
    def __init__(self):
        self.pools = {}  # (stream, small) -> sorted [(size, addr)]
        self.blocks = {}  # addr -> Block
        self.low = 1 << 50
        self.reserved = 0
        self.max_reserved = 0

    def _pool(self, stream, small):
        return self.pools.setdefault((stream, small), [])

    def malloc(self, n, stream=0):
        size = round_size(n)
        small = size <= SMALL
        pool = self._pool(stream, small)
        i = bisect.bisect_left(pool, (size, -1))
        if i < len(pool):
            _, addr = pool.pop(i)
            block = self.blocks[addr]
        else:
            seg = segment_size(n)
            self.low -= seg
            block = Block(self.low, seg, small, stream)
            self.blocks[block.addr] = block
            self.reserved += seg
            self.max_reserved = max(self.max_reserved, self.reserved)
        block.free = False
        rest = block.size - size
        if (rest >= MIN_BLOCK) if small else (rest > SMALL):
            tail = Block(block.addr + size, rest, small, stream, block, block.next)
            tail.free = True
            if block.next:
                block.next.prev = tail
            block.next, block.size = tail, size
            self.blocks[tail.addr] = tail
            bisect.insort(pool, (rest, tail.addr))
        return block.addr

    def free(self, addr):
        block = self.blocks[addr]
        block.free = True
        pool = self._pool(block.stream, block.small)
        for other in (block.prev, block.next):
            if other is None or not other.free:
                continue
            pool.remove((other.size, other.addr))
            left, right = (other, block) if other is block.prev else (block, other)
            left.size += right.size
            left.next = right.next
            if right.next:
                right.next.prev = left
            del self.blocks[right.addr]
            block = left
        bisect.insort(pool, (block.size, block.addr))


    def empty_cache(self):
        """torch.cuda.empty_cache(): every segment with no block in use released."""
        for addr, block in list(self.blocks.items()):
            if block.free and block.prev is None and block.next is None:
                self._pool(block.stream, block.small).remove((block.size, addr))
                del self.blocks[addr]
                self.reserved -= block.size


def replay(events, skip=(), empty_at=None, final=False):
    """max reserved bytes of the history, leaving out the events at the indices in `skip`; with `empty_at` (an index),
    the cache emptied there, and with `final` the bytes reserved at its end rather than its maximum."""
    a = Allocator()
    handles = {}
    for i, e in enumerate(events):
        if i == empty_at:
            a.empty_cache()
        if isinstance(e, str) or i in skip:
            continue
        stream = e[3] if len(e) > 3 else 0
        if e[0] > 0:
            handles[e[1]] = a.malloc(e[0], stream)
        elif e[1] in handles:
            a.free(handles.pop(e[1]))
    return a.reserved if final else a.max_reserved


def head_temporary(trace):
    """The indices of the build's untied output head (a request of the embedding's size, the history's first, freed
    before the first step) when the model ties its head; None otherwise."""
    arch = trace["scenario"].get("architecture", {})
    if not arch.get("tie_word_embeddings") or trace["scenario"].get("fsdp", "none") != "none":
        return None
    events = trace["events"]
    if "step_begin:0" not in events or isinstance(events[0], str):
        return None
    embedding, start = events[0][0], events.index("step_begin:0")
    for i in range(1, start):
        e = events[i]
        if isinstance(e, str) or e[0] != embedding:
            continue
        for j in range(i + 1, start):
            f = events[j]
            if not isinstance(f, str) and f[0] == -embedding and f[1] == e[1]:
                return i, j
    return None


def emptied_after_wrap(trace):
    """run.py's shard_fsdp1 empties the cache once it has sharded a 4-bit model (loaded whole, qlora.py), before the
    first step: a user's run does not."""
    scenario = trace["scenario"]
    return bool(scenario.get("quantization")) and scenario.get("fsdp_version") == 1 and "step_begin:0" in trace["events"]


def unnamed_streams(trace):
    """FSDP histories recorded before run.py named each request's stream: their side streams read as the default."""
    named = any(len(e) > 3 for e in trace["events"] if not isinstance(e, str))
    return trace["scenario"].get("fsdp", "none") != "none" and not named


def analyse(trace):
    out = {"gpuReservedBytes": trace["gpuMaxReservedBytes"], "date": trace["date"]}
    if unnamed_streams(trace):
        return {**out, "streams": "unnamed"}
    if emptied_after_wrap(trace):
        start = trace["events"].index("step_begin:0")
        out["replayedReservedBytes"] = replay(trace["events"], empty_at=start, final=True)
        out["reservedWithoutEmptyCacheBytes"] = replay(trace["events"], final=True)
        return out
    out["replayedReservedBytes"] = replay(trace["events"])
    head = head_temporary(trace)
    if head:
        out["headTemporaryBytes"] = trace["events"][head[0]][0]
        out["reservedWithoutHeadBytes"] = replay(trace["events"], set(head))
    return out


def main():
    for results in sys.argv[1:]:
        found = {}
        with tempfile.TemporaryDirectory() as tmp:
            for archive in sorted(glob.glob(os.path.join(results, "traces-*.tar.xz"))):
                with tarfile.open(archive) as tar:
                    tar.extractall(tmp, filter="data")
            for path in sorted(glob.glob(os.path.join(tmp, "**", "*.trace.json"), recursive=True)):
                with open(path) as f:
                    trace = json.load(f)
                found[trace["id"]] = analyse(trace)
        exact = [k for k, v in found.items() if v.get("replayedReservedBytes") == v["gpuReservedBytes"]]
        replayed = [k for k, v in found.items() if "replayedReservedBytes" in v]
        out = os.path.join(results, "harness-load.json")
        with open(out, "w") as f:
            json.dump(dict(sorted(found.items())), f, indent=1)
            f.write("\n")
        heads = sum("headTemporaryBytes" in v for v in found.values())
        print(f"{out}: {len(found)} histories, {len(replayed)} replayed, {len(exact)} to the byte, {heads} with the head")


if __name__ == "__main__":
    main()
