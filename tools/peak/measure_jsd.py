"""TRL GKDTrainer's generalized JSD loss: what it keeps for backward and its forward and backward high points.

The loss of trl/trainer/gkd_trainer.py (generalized_jsd_loss) on random student logits (requiring grad) and teacher
logits, with autocast's fp32 log_softmax written as .float() (the CPU has no CUDA autocast). Each run is profiled
(torch.profiler, profile_memory=True) and the raw allocation records replayed: the forward's high point and what is
still held when it returns (kept for backward), then the backward's high point above that, all beyond the two input
logit tensors. Writes test/fixtures/peak/jsd.json; test/unit/peak-golden.test.ts checks the estimator's loss terms.

    /usr/bin/python3 tools/peak/measure_jsd.py
"""
import json
import os

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


def replay(prof):
    """Highest running sum of the [memory] records and the sum at the end."""
    records = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    records.sort(key=lambda e: e.start_us())
    cur = top = 0
    for e in records:
        cur += e.nbytes()
        top = max(top, cur)
    return top, cur


def generalized_jsd_loss(student_logits, teacher_logits, labels, beta, temperature=0.9):
    student_logits = student_logits / temperature
    teacher_logits = teacher_logits / temperature
    student_log_probs = F.log_softmax(student_logits.float(), dim=-1)
    teacher_log_probs = F.log_softmax(teacher_logits.float(), dim=-1)
    if beta == 0:
        jsd = F.kl_div(student_log_probs, teacher_log_probs, reduction="none", log_target=True)
    elif beta == 1:
        jsd = F.kl_div(teacher_log_probs, student_log_probs, reduction="none", log_target=True)
    else:
        beta = torch.tensor(beta, dtype=student_log_probs.dtype)
        mixture_log_probs = torch.logsumexp(
            torch.stack([student_log_probs + torch.log(1 - beta), teacher_log_probs + torch.log(beta)]), dim=0)
        kl_teacher = F.kl_div(mixture_log_probs, teacher_log_probs, reduction="none", log_target=True)
        kl_student = F.kl_div(mixture_log_probs, student_log_probs, reduction="none", log_target=True)
        jsd = beta * kl_teacher + (1 - beta) * kl_student
    mask = labels != -100
    jsd = jsd[mask]
    return jsd.sum() / mask.sum()


def measure(b, s, vocab, beta, dtype):
    torch.manual_seed(0)
    student = torch.randn(b, s, vocab, dtype=dtype, requires_grad=True)
    teacher = torch.randn(b, s, vocab, dtype=dtype)
    labels = torch.randint(0, vocab, (b, s))
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as fwd:
        loss = generalized_jsd_loss(student, teacher, labels, beta)
    forward_peak, kept = replay(fwd)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as bwd:
        loss.backward()
    backward_peak, _ = replay(bwd)
    return dict(batch=b, seq=s, vocab=vocab, beta=beta, dtype=str(dtype).replace("torch.", ""),
                forwardPeakBytes=forward_peak, keptBytes=kept, backwardPeakBytes=backward_peak)


CASES = [(2, 256, 4000, 0.5, torch.bfloat16), (1, 512, 8000, 0.5, torch.bfloat16), (2, 256, 4000, 0.5, torch.float32),
         (2, 256, 4000, 0.0, torch.bfloat16), (2, 256, 4000, 1.0, torch.bfloat16), (2, 256, 4000, 0.1, torch.float32)]


def main():
    out = [measure(*c) for c in CASES]
    for r in out:
        tv = r["batch"] * r["seq"] * r["vocab"]
        print(
            f"beta {r['beta']} {r['dtype']} T x V {tv}: forward {r['forwardPeakBytes'] / tv:.3f} B, "
            f"kept {r['keptBytes'] / tv:.3f} B, backward {r['backwardPeakBytes'] / tv:.3f} B per logit"
        )
    path = os.path.join(os.path.dirname(__file__), "..", "..", "test", "fixtures", "peak", "jsd.json")
    with open(path, "w") as f:
        json.dump({"tool": "tools/peak/measure_jsd.py", "torch": torch.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
