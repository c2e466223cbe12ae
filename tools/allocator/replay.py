"""Replays the per-step allocations of a LoRA fine-tune through a model of PyTorch's CUDA caching allocator, to
see how much `max_memory_reserved` grows when batches have different lengths (each padded to its own longest
sample) compared with every batch at the longest length.

Allocator model: c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.1, default configuration: no max_split_size, no
expandable segments, no garbage-collection threshold): sizes rounded to 512 B; blocks <= 1 MiB from 2 MiB segments,
requests < 10 MiB from 20 MiB segments, larger ones from segments rounded to 2 MiB; best fit by (size, address); a
block is split when the rest exceeds 1 MiB (large pool) or 512 B (small pool); freed blocks merge only with free
neighbours of the same segment; on failure every unsplit cached segment is released and the request retried.

Step trace: one decoder block after another with full activation checkpointing (reentrant, per block) and flash
attention, the logits and cross-entropy buffers of the full vocabulary, then the backward with each block recomputed.
Sizes are in bytes per token; `arch='qwen'` follows Qwen-v1 remote code (cross-entropy on bf16 logits under autocast),
`arch='llama'` transformers 4.37 (logits.float()).

Usage: python3 tools/allocator/replay.py   (plain Python 3 with numpy; no GPU, no torch)
"""

import bisect
import sys

import numpy as np

kMinBlockSize = 512
kSmallSize = 1 << 20
kSmallBuffer = 2 << 20
kLargeBuffer = 20 << 20
kMinLargeAlloc = 10 << 20
kRoundLarge = 2 << 20


def round_size(s):
    return kMinBlockSize if s < kMinBlockSize else kMinBlockSize * ((s + kMinBlockSize - 1) // kMinBlockSize)


def alloc_size(s):
    if s <= kSmallSize:
        return kSmallBuffer
    if s < kMinLargeAlloc:
        return kLargeBuffer
    return kRoundLarge * ((s + kRoundLarge - 1) // kRoundLarge)


class Block:
    __slots__ = ("addr", "size", "free", "prev", "next", "small")

    def __init__(s, addr, size, small):
        s.addr, s.size, s.free, s.prev, s.next, s.small = addr, size, True, None, None, small


class Allocator:
    def __init__(self, capacity=79 * 2**30):
        self.cap = capacity
        self.free_sets = {True: [], False: []}  # sorted lists of (size, addr, block)
        self.reserved = 0
        self.allocated = 0
        self.peak_reserved = 0
        self.peak_allocated = 0
        self.next_addr = 0
        self.n_segments = 0
        self.n_oom_flush = 0

    def _ins(self, b):
        bisect.insort(self.free_sets[b.small], (b.size, b.addr, b))

    def _rm(self, b):
        L = self.free_sets[b.small]
        i = bisect.bisect_left(L, (b.size, b.addr))
        assert L[i][2] is b
        del L[i]

    def _new_segment(self, size, small):
        a = alloc_size(size) if not small else kSmallBuffer
        if self.reserved + a > self.cap:
            self._release_cached()
            if self.reserved + a > self.cap:
                raise MemoryError
        b = Block(self.next_addr, a, small)
        self.next_addr += a + (1 << 30)
        self.reserved += a
        self.n_segments += 1
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        return b

    def _release_cached(self):
        self.n_oom_flush += 1
        for small in (True, False):
            keep = []
            for t in self.free_sets[small]:
                b = t[2]
                if b.prev is None and b.next is None:
                    self.reserved -= b.size
                else:
                    keep.append(t)
            self.free_sets[small] = keep

    def malloc(self, nbytes):
        size = round_size(nbytes)
        small = size <= kSmallSize
        L = self.free_sets[small]
        i = bisect.bisect_left(L, (size, -1))
        if i < len(L):
            b = L[i][2]
            del L[i]
        else:
            b = self._new_segment(size, small)
        rem = b.size - size
        if (rem >= kMinBlockSize) if small else (rem > kSmallSize):
            r = Block(b.addr + size, rem, small)
            r.prev, r.next = b, b.next
            if b.next:
                b.next.prev = r
            b.next = r
            b.size = size
            self._ins(r)
        b.free = False
        self.allocated += b.size
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return b

    def free(self, b):
        b.free = True
        self.allocated -= b.size
        for nb in (b.prev, b.next):
            if nb is not None and nb.free:
                self._rm(nb)
                if nb is b.prev:
                    nb.size += b.size
                    nb.next = b.next
                    if b.next:
                        b.next.prev = nb
                    b = nb
                else:
                    b.size += nb.size
                    b.next = nb.next
                    if nb.next:
                        nb.next.prev = b
        self._ins(b)


def step_events(S, cfg, b=1):
    h, I, V, L, arch = cfg["h"], cfg["I"], cfg["V"], cfg["L"], cfg["arch"]
    kv = cfg.get("kv", h)  # GQA kv width for llama/yi
    T = b * S
    t = lambda n, bytes_=2: T * n * bytes_
    ev = []
    A = lambda k, n: ev.append(("a", k, n))
    F = lambda *ks: [ev.append(("f", k)) for k in ks]
    # ---------------- forward ----------------
    A("h0", t(h))  # embedding output (GC input of layer 0)

    def layer_tmp(i, keep):  # one decoder block forward; keep=True -> recompute with grad
        p = f"L{i}_"
        A(p + "n1", t(h))  # ln_1 / input_layernorm
        qkvw = (3 * h) if arch == "qwen" else (h + 2 * kv)
        A(p + "drop", t(h))
        A(p + "mask", t(h, 1))  # lora dropout out + bool mask (c_attn / q,v lora)
        A(p + "qkv", t(qkvw))
        A(p + "lb", t(qkvw))
        A(p + "res", t(qkvw))
        F(p + "lb", p + "qkv")
        A(p + "q", t(h))
        A(p + "k", t(kv))  # rotary outputs
        A(p + "fa", t(h))  # flash-attn output (+small lse)
        if not keep:
            F(p + "q", p + "k", p + "res", p + "drop", p + "mask")
        A(p + "proj", t(h))
        if not keep:
            F(p + "fa")
        A(p + "r1", t(h))
        F(p + "proj")
        if not keep:
            F(p + "n1")
        A(p + "n2", t(h))
        A(p + "w1", t(I))
        A(p + "w2", t(I))
        A(p + "s", t(I))
        A(p + "m", t(I))
        F(p + "s")
        if not keep:
            F(p + "w1", p + "w2")
        A(p + "o", t(h))
        if not keep:
            F(p + "m", p + "n2")
        A(p + "out", t(h))
        F(p + "o")
        if not keep:
            F(p + "r1")

    for i in range(L):
        layer_tmp(i, keep=False)
        ev.append(("rename", f"L{i}_out", f"h{i+1}"))  # checkpoint output = next layer's GC input
    A("nf", t(h))  # ln_f output (saved by lm_head)
    E = T * V
    if arch == "qwen":  # modeling_qwen.py: CE on bf16 logits; autocast casts to fp32
        A("logits_bf16", 2 * E)
        if b > 1:
            A("shift", 2 * E)  # .contiguous() copies only when b>1
        A("cast32", 4 * E)
        A("lsm", 4 * E)
        F("cast32")
        if b > 1:
            F("shift")
        A("logits32", 4 * E)
        F("logits_bf16")  # accelerate convert_outputs_to_fp32
    else:  # llama 4.37: logits = logits.float()
        A("logits_bf16", 2 * E)
        A("logits32", 4 * E)
        F("logits_bf16")
        if b > 1:
            A("shift", 4 * E)
        A("lsm", 4 * E)
        if b > 1:
            F("shift")
    A("argmax", T * 8)
    F("logits32")  # swift compute_loss acc; outputs freed on return
    # ---------------- backward ----------------
    A("g_nll", 4 * E)
    A("g_lsm", 4 * E)
    F("lsm", "g_nll")
    if arch == "qwen":
        A("g_bf16", 2 * E)
        F("g_lsm")  # ToCopyBackward (fp32->bf16)
        A("g_slice", 2 * E)
        F("g_bf16")  # SliceBackward: zeros(full) + copy
    else:
        A("g_slice", 4 * E)
        F("g_lsm")  # SliceBackward in fp32
        A("g_bf16", 2 * E)
        F("g_slice")
        ev.append(("rename", "g_bf16", "g_slice"))
    A("gx", t(h))
    F("g_slice", "nf", "argmax")  # MmBackward -> grad of ln_f output
    A("g", t(h))
    F("gx")  # ln_f backward
    for i in reversed(range(L)):
        p = f"L{i}_"
        layer_tmp(i, keep=True)  # recompute with grad: everything saved
        F(p + "out")
        # backward through the block: transient grads of the same sizes, then free saved
        A(p + "g_o", t(I))
        A(p + "g_w", t(I))
        A(p + "g_w2", t(I))
        F(p + "g_o")
        F(p + "m", p + "w1", p + "w2")
        A(p + "g_n2", t(h))
        F(p + "g_w", p + "g_w2", p + "n2")
        A(p + "g_r1", t(h))
        F(p + "g_n2", p + "r1")
        A(p + "g_fa", t(h))
        A(p + "g_q", t(h))
        A(p + "g_k", t(kv))
        F(p + "fa", p + "g_fa")
        A(p + "g_qkv", t((3 * h) if arch == "qwen" else h + 2 * kv))
        F(p + "g_q", p + "g_k", p + "q", p + "k", p + "res")
        A(p + "g_x", t(h))
        F(p + "g_qkv", p + "drop", p + "mask")
        A(p + "g_n1", t(h))
        F(p + "g_x", p + "n1")
        A(p + "g_in", t(h))
        F(p + "g_n1", p + "g_r1", "g")
        ev.append(("rename", p + "g_in", "g"))
        F(f"h{i+1}" if i + 1 <= L else None)
    F("g", "h0")
    return ev


def run(alloc, lengths, cfg, b=1, record=None):
    for n, S in enumerate(lengths):
        live = {}
        for e in step_events(S, cfg, b):
            if e[0] == "a":
                live[e[1]] = alloc.malloc(e[2])
            elif e[0] == "f":
                if e[1] is not None and e[1] in live:
                    alloc.free(live.pop(e[1]))
            else:
                live[e[2]] = live.pop(e[1])
        if record is not None:
            record.append((n, S, alloc.reserved, alloc.peak_reserved))
        assert not live, live.keys()
    return alloc


GiB = 2**30
MODELS = {
    "Qwen-7B": dict(arch="qwen", h=4096, I=11008, V=151936, L=32),
    "Llama-3-8B": dict(arch="llama", h=4096, kv=1024, I=14336, V=128256, L=32),
}


def growth_over_loss_set(cfg, s_max, steps, seed):
    """(peak reserved with lengths uniform in [16, s_max]) - (peak reserved at s_max every step), in units of the
    loss tensors of one longest batch (12 bytes per logit: bf16 logits, fp32 upcast, log-softmax, two gradients)."""
    fixed = run(Allocator(10**13), [s_max] * 20, cfg).peak_reserved
    rng = np.random.RandomState(seed)
    lengths = [int(x) for x in rng.randint(16, s_max + 1, size=steps)]
    lengths[rng.randint(steps)] = s_max  # the longest batch occurs once somewhere in the run
    varied = run(Allocator(10**13), lengths, cfg).peak_reserved
    return (varied - fixed) / (12 * cfg["V"] * s_max)


if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    orders = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    for name, cfg in MODELS.items():
        for s_max in (512, 2048):
            r = [growth_over_loss_set(cfg, s_max, steps, seed) for seed in range(orders)]
            q10, q25, q50, q75 = (float(np.percentile(r, q)) for q in (10, 25, 50, 75))
            below2 = sum(x < 2 for x in r) / len(r)
            print(
                f"{name} seq {s_max}, {steps} steps, {orders} orders of lengths: cache growth = "
                f"{q50:.2f} x loss tensors (median), {min(r):.2f} to {max(r):.2f}; "
                f"10/25/75 %: {q10:.2f} / {q25:.2f} / {q75:.2f}; fewer than 2 sets in {below2:.0%} of the orders",
                flush=True,
            )
