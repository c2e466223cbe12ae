"""Allocated bytes over time, from the PyTorch profiler's raw allocation records, split into training phases.

The profiler runs from before the model is built to the end of the run, so every tensor of the run is in its
records (+bytes when allocated, -bytes when freed, with the storage's address). Phase boundaries are zero-length
`record_function` ranges named `truth::<marker>`, emitted by hooks on the model, on `torch.autograd.backward`
and on every optimizer's `step` (see `Recorder`). Replaying the records in time order gives the bytes held at
any instant; `phase_stats` reports, per phase of one step, the highest point and the bytes held at its edges.
"""
import contextlib
import functools

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from torch.autograd.profiler import record_function
from torch.profiler import ProfilerActivity, profile

PREFIX = "truth::"
ATTENTION_OPS = ("scaled_dot_product", "flash_attention", "efficient_attention", "flex_attention", "flash_attn::")


class Recorder:
    """Profiles a whole run and emits phase markers. Use as a context manager around everything the point does."""

    def __init__(self):
        self.prof = profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=False)
        self._backward_depth = 0
        self._undo = []
        self.offloaded = []  # (time marker name, tensors) snapshots of storages that would live in host memory

    def __enter__(self):
        self.prof.__enter__()
        self._patch_backward()
        self._undo.append(register_optimizer_step_pre_hook(lambda *a: self.mark("optimizer_begin")).remove)
        self._undo.append(register_optimizer_step_post_hook(lambda *a: self.mark("optimizer_end")).remove)
        return self

    def __exit__(self, *exc):
        for undo in reversed(self._undo):
            undo()
        return self.prof.__exit__(*exc)

    @staticmethod
    def mark(name):
        with record_function(PREFIX + name):
            pass

    def _patch_backward(self):
        """Marks the outermost torch.autograd.backward call (reentrant checkpointing calls it again inside)."""
        original = torch.autograd.backward

        @functools.wraps(original)
        def backward(*args, **kwargs):
            outer = self._backward_depth == 0
            self._backward_depth += 1
            if outer:
                self.mark("backward_begin")
            try:
                return original(*args, **kwargs)
            finally:
                self._backward_depth -= 1
                if outer:
                    self.mark("backward_end")

        torch.autograd.backward = backward
        self._undo.append(lambda: setattr(torch.autograd, "backward", original))

    def watch_forward(self, module):
        """Marks each call of a model's forward (the HF model under any wrapper: PEFT, DDP, FSDP)."""
        handle = module.register_forward_pre_hook(lambda *a: self.mark("forward_begin"))
        self._undo.append(handle.remove)

    def watch_generate(self, model):
        """Marks generate() calls of a model (GRPO's rollout)."""
        original = model.generate

        @functools.wraps(original)
        def generate(*args, **kwargs):
            self.mark("generate_begin")
            try:
                return original(*args, **kwargs)
            finally:
                self.mark("generate_end")

        model.generate = generate

    @contextlib.contextmanager
    def step(self, index):
        self.mark(f"step_begin:{index}")
        yield
        self.mark(f"step_end:{index}")

    def snapshot_offloaded(self, tensors):
        """Remembers the storages that CPU offload keeps in host memory, as they are at this instant."""
        name = f"offload_snapshot:{len(self.offloaded)}"
        self.mark(name)
        self.offloaded.append((name, {t.untyped_storage().data_ptr() for t in tensors if t is not None and t.numel() > 0}))


def _walk(nodes):
    stack = list(reversed(nodes))
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _op_path(node, depth=4):
    names = []
    n = node.parent
    while n is not None and len(names) < depth:
        names.append(n.name)
        n = n.parent
    return " < ".join(names)


class Timeline:
    """The run's allocation records and markers in time order."""

    def __init__(self, prof):
        self.events = []  # (t_ns, kind, payload): kind "mem" payload (bytes, ptr, node) or "mark" payload name
        self.op_names = set()
        for n in _walk(prof.profiler.kineto_results.experimental_event_tree()):
            if n.name == "[memory]":
                ef = n.extra_fields
                if str(ef.device.type) == "cpu" and ef.alloc_size != 0:
                    self.events.append((n.start_time_ns, 0, (ef.alloc_size, ef.ptr, n)))
            elif n.name.startswith(PREFIX):
                self.events.append((n.start_time_ns, 1, n.name[len(PREFIX):]))
            else:
                self.op_names.add(n.name)
        self.events.sort(key=lambda e: (e[0], e[1]))
        self._drop_unpaired_frees()
        self.excluded = set()  # indices of allocation records left out (offloaded storages) and their frees

    def _drop_unpaired_frees(self):
        """Frees of storages allocated before this profile began (an earlier point in the same process) are not
        this run's bytes: they are dropped, so the replay starts from zero at the profile's start."""
        live, kept = set(), []
        for e in self.events:
            if e[1] == 0:
                size, ptr, _ = e[2]
                if size > 0:
                    live.add(ptr)
                elif ptr in live:
                    live.discard(ptr)
                else:
                    continue
            kept.append(e)
        self.events = kept

    def exclude_cpu_promotions(self):
        """Leaves out the temporaries a CPU elementwise kernel makes to bring its operands to one dtype, and their
        frees. TensorIterator (aten/src/ATen/TensorIterator.cpp compute_types) casts a CPU input of another dtype to
        the common dtype with a full-size copy, and gives an in-place output of another dtype a temporary of the
        common dtype, both `if (common_device == kCPU)`: a CUDA kernel casts element by element and allocates neither
        (a bf16 base output plus a LoRA adapter's fp32 output). They are the allocations made under a copy or empty
        (`PROMOTION_PATH`) inside an elementwise op (`ELEMENTWISE_OPS`) and freed before that same op returns.
        Returns the bytes left out, by op."""

        def freed_in_owner(node, owner):
            parent = node.parent
            return parent is not None and parent.id == owner.id and parent.start_time_ns == owner.start_time_ns

        return self._exclude_freed_inside(_promoting_op, freed_in_owner)

    def exclude_kernel_internals(self, prefix):
        """Leaves out what is allocated inside a range whose name starts with `prefix` and freed before that range
        ends, and its frees: the temporaries of a CPU stand-in for a CUDA kernel that allocates only its outputs
        (truthlib/bnb.py). Returns the bytes left out, by range."""
        return self._exclude_freed_inside(lambda node: _enclosing(node, prefix),
                                          lambda node, owner: _enclosing(node, prefix, owner) is not None)

    def _exclude_freed_inside(self, owner_of, freed_inside):
        """Leaves out each allocation whose node `owner_of` gives an owner (an op or a range) and whose free
        `freed_inside` finds inside that same owner, with its free. Returns the bytes left out, by owner's name."""
        open_allocs, left_out = {}, {}
        for i, (t, kind, payload) in enumerate(self.events):
            if kind != 0 or i in self.excluded:
                continue
            size, ptr, node = payload
            if size > 0:
                owner = owner_of(node)
                if owner is not None:
                    open_allocs[ptr] = (i, owner)
                continue
            alloc = open_allocs.pop(ptr, None)
            if alloc is not None and freed_inside(node, alloc[1]):
                self.excluded.update((alloc[0], i))
                left_out[alloc[1].name] = left_out.get(alloc[1].name, 0) + (-size)
        return left_out

    def exclude_offloaded(self, snapshots):
        """Leaves out the allocations alive at each snapshot whose storage the snapshot lists, and their frees."""
        for name, ptrs in snapshots:
            live = {}
            for i, (t, kind, payload) in enumerate(self.events):
                if kind == 1 and payload == name:
                    break
                if kind == 0:
                    size, ptr, _ = payload
                    if size > 0:
                        live[ptr] = i
                    else:
                        live.pop(ptr, None)
            for ptr in ptrs:
                if ptr in live:
                    self._exclude_pair(live[ptr])

    def exclude_between(self, begin, end):
        """Leaves out every allocation made between two marks, and its free (CPU offload: the optimizer step runs on
        the host, so its temporaries are host memory)."""
        inside = False
        for i, (t, kind, payload) in enumerate(self.events):
            if kind == 1:
                inside = payload == begin or (inside and payload != end)
            elif inside and payload[0] > 0:
                self._exclude_pair(i)

    def _exclude_pair(self, alloc_index):
        self.excluded.add(alloc_index)
        ptr = self.events[alloc_index][2][1]
        for j in range(alloc_index + 1, len(self.events)):
            t, kind, payload = self.events[j]
            if kind == 0 and payload[1] == ptr and payload[0] < 0:
                self.excluded.add(j)
                return

    def attention_kernels(self):
        return sorted(n for n in self.op_names if any(k in n for k in ATTENTION_OPS) and n.startswith(("aten::", "flash_attn::")))


ELEMENTWISE_OPS = frozenset("aten::" + n for n in (
    "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "where", "maximum", "minimum", "lerp_", "addcmul_",
    "addcdiv_", "eq", "ne", "lt", "le", "gt", "ge"))
PROMOTION_PATH = frozenset(("aten::to", "aten::_to_copy", "aten::empty_like", "aten::empty_strided", "aten::empty"))


def _enclosing(memory_node, prefix, same=None):
    """The innermost range around a memory record whose name starts with `prefix` (with `same`: that very range, or
    None when the record is outside it)."""
    n = memory_node.parent
    while n is not None:
        if n.name.startswith(prefix) and (same is None or (n.id == same.id and n.start_time_ns == same.start_time_ns)):
            return n
        n = n.parent
    return None


def _promoting_op(memory_node):
    """The elementwise op an allocation was made for, when it was made under a dtype copy or empty inside one."""
    n = memory_node.parent
    if n is None or n.name not in PROMOTION_PATH:
        return None
    while n is not None and n.name in PROMOTION_PATH:
        n = n.parent
    return n if n is not None and n.name in ELEMENTWISE_OPS else None


PHASE_OF_MARK = {"forward_begin": "forward", "backward_begin": "backward", "backward_end": "after_backward",
                 "optimizer_begin": "optimizer", "generate_begin": "generation", "generate_end": "forward"}


def _bump(phases, name, cur, where):
    st = phases.setdefault(name, {"peakBytes": cur, "peakAt": where})
    if cur > st["peakBytes"]:
        st["peakBytes"], st["peakAt"] = cur, where


def phase_stats(timeline, step_index):
    """Per phase of one step: peak bytes held (and the operators running then), and the bytes held at the marks.
    The bytes after the last backward and before the optimizer (gradient clipping) count as the optimizer phase."""
    cur = 0
    phase = None
    phases = {}
    marks = []
    generating = False
    for i, (t, kind, payload) in enumerate(timeline.events):
        if kind == 1:
            if payload == f"step_begin:{step_index}":
                phase = "forward"
            elif payload == f"step_end:{step_index}":
                marks.append(["step_end", cur])
                break
            if phase is None:
                continue
            if payload in ("generate_begin", "generate_end"):
                generating = payload == "generate_begin"
            if payload in PHASE_OF_MARK and not (generating and payload == "forward_begin"):
                phase = PHASE_OF_MARK[payload]
            marks.append([payload.split(":")[0], cur])
            _bump(phases, _name(phase), cur, "(phase start)")
            continue
        if i in timeline.excluded:
            continue
        cur += payload[0]
        if phase is not None:
            _bump(phases, _name(phase), cur, _op_path(payload[2]))
    return phases, marks


def _name(phase):
    return "optimizer" if phase == "after_backward" else phase


def high_water(timeline):
    """The highest bytes held over the recording, and the bytes held at its end (every allocation counted)."""
    held = peak = 0
    for _, kind, payload in timeline.events:
        if kind == 0:
            held += payload[0]
            peak = max(peak, held)
    return peak, held


def held_at(timeline, mark_name):
    """Bytes held when a marker was emitted (the first such marker)."""
    cur = 0
    for i, (t, kind, payload) in enumerate(timeline.events):
        if kind == 1 and payload == mark_name:
            return cur
        if kind == 0 and i not in timeline.excluded:
            cur += payload[0]
    return None


def trace(timeline):
    """The run's allocation sequence as plain data, for replays through a model of the CUDA caching allocator
    (tools/truth/replay.mjs): `events` in time order, each `[bytes, address, op]` (bytes > 0 allocated, < 0 freed,
    with the storage's address; `op` indexes `ops`, the operators running then, innermost first) or a mark's name (a
    string). Records left out of the measurement (CPU offload) are left out here too."""
    ops, index, events = [], {}, []
    for i, (t, kind, payload) in enumerate(timeline.events):
        if kind == 1:
            events.append(payload)
            continue
        if i in timeline.excluded:
            continue
        size, ptr, node = payload
        where = _op_path(node, depth=3)
        if where not in index:
            index[where] = len(ops)
            ops.append(where)
        events.append([size, ptr, index[where]])
    return {"ops": ops, "events": events}
