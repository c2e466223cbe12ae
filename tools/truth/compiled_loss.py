"""A compiled cross-entropy over the full logits, run with torch's real autograd and Inductor on the CPU, every
allocation recorded with the profiler: where the logits become fp32 decides what the compiled loss keeps.

- "upcast in the loss" (a loss that calls `.float()` inside its compiled region, as transformers' ForCausalLMLoss does
  inside a compiled model): Inductor fuses the upcast into its reductions and writes the gradient in the logits' dtype.
- "upcast in the model" (torchtune's TransformerDecoder without output chunks ends in `self.output(h).float()`,
  torchtune/modules/transformer.py, outside any compiled region; training/_compile.py compiles the loss apart): the
  compiled loss takes fp32 logits, keeps them for its backward and makes their gradient in fp32.

The head's output is 16-bit, as a bf16 model's is; as torchtune's recipe does (`del logits` before the backward), the
loop drops its reference before the backward. One warm-up step compiles the loss's forward and backward first.

Usage: tools/truth/.venv/bin/python tools/truth/compiled_loss.py
Prints the peak allocated bytes of the loss's forward and backward in units of T x V bytes.
"""

import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from truthlib import memory  # noqa: E402

T, H, V = 2048, 64, 32000


def step(head, x, labels, loss_fn, upcast_in_model):
    logits = head(x)
    if upcast_in_model:
        logits = logits.float()
    loss = loss_fn(logits, labels)
    del logits
    loss.backward()


def peak(upcast_in_model):
    torch.manual_seed(0)
    head = nn.Linear(H, V, bias=False).to(torch.bfloat16).requires_grad_(False)
    x = torch.randn(T, H, dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, V, (T,))
    if upcast_in_model:
        loss_fn = torch.compile(nn.CrossEntropyLoss())
    else:
        loss_fn = torch.compile(lambda logits, y: nn.functional.cross_entropy(logits.float(), y))
    step(head, x, labels, loss_fn, upcast_in_model)
    x.grad = None
    with memory.Recorder() as rec:
        step(head, x, labels, loss_fn, upcast_in_model)
    high, _ = memory.high_water(memory.Timeline(rec.prof))
    return high / (T * V)


if __name__ == "__main__":
    for upcast_in_model in (False, True):
        where = "model" if upcast_in_model else "loss "
        print(f"upcast in the {where}: peak allocated {peak(upcast_in_model):5.2f} x T·V B (torch {torch.__version__})")
