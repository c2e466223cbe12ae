"""The causal-LM loss as three transformers releases wrote it, run with torch's real autograd on the CPU, every
allocation recorded with the profiler and replayed through the caching-allocator model of tools/allocator/replay.py.

transformers 4.37-4.48 are not installable here, so the loss code is written out from those releases (a replica of a
few lines, not the library): LlamaForCausalLM.forward 4.37-4.45 (`logits = logits.float()` in the model, then
`shift_logits = logits[..., :-1, :].contiguous()` and CrossEntropyLoss), ForCausalLMLoss 4.46-4.48 (the model returns
the 16-bit logits, the loss upcasts and shifts them) and ForCausalLMLoss 4.49+ (huggingface/transformers#35646: the
labels padded and shifted, the logits flattened as they are); and GPT2LMHeadModel's own loss, which GPTBigCode kept
through 4.48 (the shifted slice of the 16-bit logits copied and given to CrossEntropyLoss, no `.float()`), in bf16 and
under bf16 autocast, where cross_entropy runs in fp32. As under the HF Trainer, the model's outputs are dropped
before the backward. The recorded sizes are scaled by 64 before the replay so that the T x V tensors are 64-512 MiB,
as in a real run, and fall under the allocator's large-block rules.

Usage: tools/truth/.venv/bin/python tools/truth/loss_chain.py
Prints, per release and rows per micro-batch: peak allocated and peak reserved in units of T x V bytes.
"""

import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "allocator"))
from replay import Allocator  # noqa: E402
from truthlib import memory  # noqa: E402

S, H, V, SCALE = 128, 64, 4096, 64


def loss_of(release, x, head, labels):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=release == "gpt2-own amp"):
        return _loss_of(release, x, head, labels)


def _loss_of(release, x, head, labels):
    logits = nn.functional.linear(x, head)
    if release.startswith("gpt2-own"):
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return nn.CrossEntropyLoss()(shift_logits.view(-1, V), shift_labels.view(-1)), logits
    if release == "4.37-4.45":
        logits = logits.float()
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return nn.CrossEntropyLoss()(shift_logits.view(-1, V), shift_labels.view(-1)), logits
    upcast = logits.float()
    if release == "4.46-4.48":
        shift_logits = upcast[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return nn.functional.cross_entropy(shift_logits.view(-1, V), shift_labels.view(-1)), logits
    padded = nn.functional.pad(labels, (0, 1), value=-100)
    return nn.functional.cross_entropy(upcast.view(-1, V), padded[..., 1:].contiguous().view(-1)), logits


def step(release, rows):
    torch.manual_seed(0)
    head = torch.randn(V, H, dtype=torch.bfloat16, requires_grad=True)
    x = torch.randn(rows, S, H, dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, V, (rows, S))
    with memory.Recorder() as rec:
        loss, outputs = loss_of(release, x, head, labels)
        del outputs  # the HF Trainer's compute_loss returns the loss only
        loss.backward()
    timeline = memory.Timeline(rec.prof)
    alloc, live, current, peak = Allocator(capacity=2**50), {}, 0, 0
    for _, kind, payload in timeline.events:
        if kind != 0:
            continue
        size, ptr, _ = payload
        current += size
        peak = max(peak, current)
        if size > 0:
            live[ptr] = alloc.malloc(size * SCALE)
        elif ptr in live:
            alloc.free(live.pop(ptr))
    tv = rows * S * V
    return peak / tv, alloc.peak_reserved / (tv * SCALE)


if __name__ == "__main__":
    for release in ("4.37-4.45", "4.46-4.48", "4.49+", "gpt2-own bf16", "gpt2-own amp"):
        for rows in (1, 4):
            allocated, reserved = step(release, rows)
            print(f"transformers {release:13}  rows {rows}  peak allocated {allocated:5.2f} x T·V B  reserved {reserved:5.2f} x T·V B")
