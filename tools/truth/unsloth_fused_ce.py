"""Unsloth's chunked fused cross-entropy (unsloth_zoo/fused_losses/cross_entropy_loss.py: UnslothFusedLoss, used by
unsloth/models/llama.py since 2025-08 for batches above 1,024 tokens and since 2025-10 for all), rebuilt from its
structure and run with torch's real autograd and Inductor on the CPU, every allocation recorded with the profiler.

Each chunk of the hidden states runs `torch.func.grad_and_value` over a function that makes the chunk's logits with
the frozen 16-bit head, upcasts them inside the function for the cross-entropy (sum over the chunk, divided by the
token count), and returns the gradient of the chunk's hidden states, which the loop copies into a preallocated
gradient; Unsloth compiles that chunk step (torch_compile=True). The LoRA run's head is frozen, so no head gradient.

Usage: tools/truth/.venv/bin/python tools/truth/unsloth_fused_ce.py
Prints the peak allocated bytes above the inputs, in units of (tokens per chunk) x V bytes, compiled and eager.
"""

import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from truthlib import memory  # noqa: E402

T, H, V = 2048, 64, 32000


def chunk_loss(hidden, weight, labels, divisor):
    logits = F.linear(hidden, weight)
    loss = F.cross_entropy(logits.float(), labels, reduction="sum") / divisor
    return loss, (loss.detach(),)


def chunk_step(grad_out, hidden, weight, labels, divisor):
    grad, (_, (value,)) = torch.func.grad_and_value(chunk_loss, argnums=(0,), has_aux=True)(
        hidden, weight, labels, divisor
    )
    grad_out[:] = grad[0]
    return value


def fused(hidden, weight, labels, step, n_chunks):
    divisor = torch.tensor(float(labels.numel()))
    grad = torch.empty_like(hidden)
    total = torch.zeros(())
    for h, g, y in zip(hidden.chunk(n_chunks), grad.chunk(n_chunks), labels.chunk(n_chunks)):
        total = total + step(g, h, weight, y, divisor)
    return total, grad


def peak(compiled, n_chunks):
    torch.manual_seed(0)
    weight = torch.randn(V, H, dtype=torch.bfloat16)
    hidden = torch.randn(T, H, dtype=torch.bfloat16)
    labels = torch.randint(0, V, (T,))
    step = torch.compile(chunk_step, dynamic=False) if compiled else chunk_step
    fused(hidden, weight, labels, step, n_chunks)
    with memory.Recorder() as rec:
        fused(hidden, weight, labels, step, n_chunks)
    high, _ = memory.high_water(memory.Timeline(rec.prof))
    return high / ((T // n_chunks) * V)


if __name__ == "__main__":
    for compiled in (True, False):
        for n_chunks in (1, 4):
            how = "compiled" if compiled else "eager   "
            print(
                f"{how} {n_chunks} chunk(s): peak allocated {peak(compiled, n_chunks):5.2f} x chunk tokens·V B "
                f"(torch {torch.__version__})"
            )
