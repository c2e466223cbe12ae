#!/usr/bin/env python3
"""The GPU's segments, rebuilt from a trace's addresses (gpu/run.py --trace).

A history without segment entries or streams still names each block's address and size. The caching allocator places
a block inside one segment, and a segment is never released while the GPU has room, so the address ranges that
overlap over the whole run belong to one segment: their union is what max_memory_reserved counted, and each range
tells which requests shared it (requests of one stream only: a block serves no other stream).

    python3 tools/truth/gpu/segments.py TRACE.trace.json [N]

prints the union of the ranges beside the GPU's reserved bytes, the N largest ranges with the sizes they held and the
phase that first touched them, and the ranges grouped by size and first phase.
"""
import collections
import json
import sys

MIB = 2**20


def ranges(events):
    """Merged address ranges: start, end, and the (bytes, phase, index) of every allocation inside."""
    allocs, phase = [], "load"
    for i, e in enumerate(events):
        if isinstance(e, str):
            phase = e
            continue
        if e[0] > 0:
            size = (e[0] + 511) // 512 * 512
            allocs.append((e[1], e[1] + size, e[0], phase, i))
    allocs.sort()
    out = []
    for start, end, size, ph, i in allocs:
        if out and start < out[-1]["end"]:
            out[-1]["end"] = max(out[-1]["end"], end)
            out[-1]["allocs"].append((size, ph, i))
        else:
            out.append({"start": start, "end": end, "allocs": [(size, ph, i)]})
    return out


def main():
    trace = json.load(open(sys.argv[1]))
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    steps, step = {}, "load"
    for i, e in enumerate(trace["events"]):
        if isinstance(e, str) and e.startswith("step_begin:"):
            step = e
        steps[i] = step
    rs = ranges(trace["events"])
    union = sum(r["end"] - r["start"] for r in rs)
    print(f"{len(rs)} ranges, union {union / MIB:,.1f} MiB; GPU reserved {trace['gpuMaxReservedBytes'] / MIB:,.1f} MiB")
    for r in sorted(rs, key=lambda r: r["start"] - r["end"])[:top]:
        first = min(r["allocs"], key=lambda a: a[2])
        sizes = collections.Counter(a[0] for a in r["allocs"])
        held = ", ".join(f"{b / MIB:.1f} x {n}" for b, n in sorted(sizes.items(), reverse=True)[:5])
        print(f"{(r['end'] - r['start']) / MIB:9.1f} MiB  {len(r['allocs']):5d} requests, first at "
              f"{steps[first[2]]} {first[1]}; MiB x requests: {held}")
    groups = collections.defaultdict(lambda: [0, 0])
    for r in rs:
        first = min(r["allocs"], key=lambda a: a[2])
        key = (round((r["end"] - r["start"]) / MIB, 1), steps[first[2]], first[1])
        groups[key][0] += 1
        groups[key][1] += (r["end"] - r["start"]) / MIB
    print("\nby size and first phase: MiB, step, phase -> ranges, MiB in all")
    for key, (n, total) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {key} -> {n}, {total:,.0f}")


if __name__ == "__main__":
    main()
