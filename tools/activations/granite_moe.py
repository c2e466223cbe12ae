#!/usr/bin/python3
"""Ground truth: bytes that the MoE part of one IBM Granite 4.0 H decoder layer (Hugging Face transformers model_type
`granitemoehybrid`: GraniteMoeHybridMoE + the layer's GraniteMoeHybridMLP shared MLP) saves for backward in training.

Mirrors, from the input (the output of `post_attention_layernorm`, (b, s, h) bf16) to `moe_out + shared_mlp(x)`
before the residual add (and before `* residual_multiplier`), the code of

* huggingface/transformers src/transformers/models/granitemoehybrid/modeling_granitemoehybrid.py
  @ 00511f5df3b63c48b31496072ec35d6ff3ffa6c6 (transformers 5 layout: `moe_hidden_states = self.block_sparse_moe(h)`,
  `hidden_states = moe_hidden_states + self.shared_mlp(h)` under `if self.has_experts`) and
  @ 1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e (4.x layout: the MoE also returns the router logits,
  `moe_hidden_states, router_logits = self.block_sparse_moe(h)`; the same ops, so the same saved tensors).
  Neither uses @use_experts_implementation / grouped_mm: the experts are still GraniteMoeHybridParallelExperts.
  - GraniteMoeHybridTopKGating: `self.layer` nn.Linear(h, E, bias=False) in bf16, `.float()` -> fp32 logits (T, E),
    `logits.topk(K, dim=1)`, `torch.softmax(top_k_logits, dim=1)` in fp32, `.type_as(hidden_states)` -> bf16 gates;
    expert_size via zeros.scatter(...).long().sum(0).tolist() (no grad); `top_k_indices.flatten().sort(0)` ->
    index_sorted_experts; batch_index = index_sorted_experts.div(K, rounding_mode="trunc");
    batch_gates = top_k_gates.flatten()[index_sorted_experts] (bf16).
  - GraniteMoeHybridMoE.forward: expert_inputs = layer_input[batch_index]; input_linear (ParallelExperts, weight
    (E, 2*Ie, h)): inputs.split(expert_size), F.linear(input_list[i], weight[i]) for every expert, torch.cat;
    chunk(2, -1); activation(chunk[0]) * chunk[1] (hidden_act "silu"); output_linear (weight (E, h, Ie)) the same way;
    expert_outputs * batch_gates[:, None]; zeros((T, h), bf16).index_add(0, batch_index, expert_outputs).
  - GraniteMoeHybridMLP (shared_mlp): input_linear nn.Linear(h, 2*S) -> chunk -> silu(gate) * up -> output_linear
    nn.Linear(S, h), no bias; S = shared_intermediate_size.
Saved by (derivatives.yaml, torch 1.13 and 2.x alike): mm its inputs per the other's requires_grad; topk its indices;
softmax its result; index (x[idx]) its indices; silu its input; mul both operands (each if the other requires grad);
index_add its index AND its source (the backward formula's `expand_as(source)` reads source, so the codegen saves
it; same line in torch 1.13 and current pytorch derivatives.yaml); split / chunk / cat / select / to() nothing (sizes).

Conventions follow gated_deltanet.py (gdn.prepare / gdn.record / gdn.Recorder / gdn.summarize / gdn.write_cases):
every saved tensor's storage counted once by its full nbytes, parameters (and views of them) and 0-dim scalars
apart. Parameters all frozen (only the block input requires grad) or all trainable; bf16, no autocast.

Run with Debian's torch (1.13, CPU): /usr/bin/python3 tools/activations/granite_moe.py [--quick] [--tensors] [--out F]
Prints one JSON line per (point, params); exits 1 unless measured == formula_bytes() == closed_form() everywhere.
Points with forced routing (router weight biased so every token picks the same H experts) show that nothing depends
on which or how many experts are hit.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gated_deltanet as gdn  # noqa: E402

HF_SOURCES = {
    "granitemoehybrid_v5": "huggingface/transformers src/transformers/models/granitemoehybrid/"
                           "modeling_granitemoehybrid.py@00511f5df3b63c48b31496072ec35d6ff3ffa6c6",
    "granitemoehybrid_v4": "huggingface/transformers src/transformers/models/granitemoehybrid/"
                           "modeling_granitemoehybrid.py@1c0ff25f4cc9d0e13e0bd848a43a964a8ae1ba8e (MoE also returns"
                           " router_logits; same saved tensors)",
}


class ParallelExperts(nn.Module):
    """GraniteMoeHybridParallelExperts: weight (E, out, in); split per expert, F.linear, cat."""

    def __init__(self, E, inp, out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(E, out, inp))
        self.num_experts = E

    def forward(self, inputs, expert_size):
        input_list = inputs.split(expert_size, dim=0)
        return torch.cat([F.linear(input_list[i], self.weight[i]) for i in range(self.num_experts)], dim=0)


class TopKGating(nn.Module):
    """GraniteMoeHybridTopKGating."""

    def __init__(self, h, E, K):
        super().__init__()
        self.num_experts, self.top_k = E, K
        self.layer = nn.Linear(h, E, bias=False)

    def forward(self, hidden_states):
        logits = self.layer(hidden_states).float()
        top_k_logits, top_k_indices = logits.topk(self.top_k, dim=1)
        top_k_gates = torch.softmax(top_k_logits, dim=1).type_as(hidden_states)
        zeros = torch.zeros([top_k_gates.size(0), self.num_experts], dtype=top_k_gates.dtype)
        gates = zeros.scatter(1, top_k_indices, 1)
        expert_size = gates.long().sum(0).tolist()
        top_k_experts = top_k_indices.flatten()
        _, index_sorted_experts = top_k_experts.sort(0)
        batch_index = index_sorted_experts.div(self.top_k, rounding_mode="trunc")
        top_k_gates = top_k_gates.flatten()
        batch_gates = top_k_gates[index_sorted_experts]
        self.last_hit = sum(1 for n in expert_size if n > 0)
        return index_sorted_experts, batch_index, batch_gates, expert_size, logits


class GraniteMoE(nn.Module):
    """GraniteMoeHybridMoE."""

    def __init__(self, h, E, K, Ie):
        super().__init__()
        self.input_size = h
        self.input_linear = ParallelExperts(E, h, 2 * Ie)
        self.output_linear = ParallelExperts(E, Ie, h)
        self.router = TopKGating(h, E, K)

    def forward(self, layer_input):
        bsz, length, emb_size = layer_input.size()
        layer_input = layer_input.reshape(-1, emb_size)
        _, batch_index, batch_gates, expert_size, router_logits = self.router(layer_input)
        expert_inputs = layer_input[batch_index]
        hidden_states = self.input_linear(expert_inputs, expert_size)
        chunked = hidden_states.chunk(2, dim=-1)
        hidden_states = F.silu(chunked[0]) * chunked[1]
        expert_outputs = self.output_linear(hidden_states, expert_size)
        expert_outputs = expert_outputs * batch_gates[:, None]
        zeros = torch.zeros((bsz * length, self.input_size), dtype=expert_outputs.dtype)
        layer_output = zeros.index_add(0, batch_index, expert_outputs)
        return layer_output.view(bsz, length, self.input_size), router_logits


class SharedMLP(nn.Module):
    """GraniteMoeHybridMLP."""

    def __init__(self, h, S):
        super().__init__()
        self.input_linear = nn.Linear(h, 2 * S, bias=False)
        self.output_linear = nn.Linear(S, h, bias=False)

    def forward(self, x):
        x = self.input_linear(x)
        c = x.chunk(2, dim=-1)
        return self.output_linear(F.silu(c[0]) * c[1])


class Block(nn.Module):
    """The MoE part of GraniteMoeHybridDecoderLayer.forward: block_sparse_moe(x) + shared_mlp(x)."""

    def __init__(self, pt):
        super().__init__()
        self.block_sparse_moe = GraniteMoE(pt["hidden"], pt["E"], pt["K"], pt["Ie"])
        self.shared_mlp = SharedMLP(pt["hidden"], pt["S"])

    def forward(self, x):
        moe_hidden_states, _ = self.block_sparse_moe(x)
        return moe_hidden_states + self.shared_mlp(x)


def measure(pt, trainable, want_tensors=False, seed=0):
    torch.manual_seed(seed)
    m = Block(pt)
    x = gdn.prepare(m, pt, torch.bfloat16, trainable, seed)
    if pt.get("H"):  # force routing: feature 0 of every token is large and only the first H router rows read it
        with torch.no_grad():
            x[..., 0] = 4.0
            w = m.block_sparse_moe.router.layer.weight
            w[:, 0] = 0.0
            w[: pt["H"], 0] = 2.0
    tot, tensors = gdn.record(m, gdn.Recorder(m), x, lambda: m(x), trainable, want_tensors)
    return tot, tensors, m.block_sparse_moe.router.last_hit


def formula_terms(pt, trainable):
    """{term: bytes}; T tokens, K top-k, P = T*K routed pairs, h hidden, Ie expert width, S shared width."""
    T = pt["b"] * pt["s"]
    K, h, Ie, S = pt["K"], pt["hidden"], pt["Ie"], pt["S"]
    P = T * K
    t = {
        "topk indices (int64 T x K)": 8 * P,
        "softmax of the top-k logits (fp32 T x K)": 4 * P,
        "index_sorted_experts, kept by top_k_gates[...] (int64 P)": 8 * P,
        "batch_index, kept by layer_input[...] and index_add (int64 P)": 8 * P,
        "input_linear output (bf16 P x 2Ie): silu input + up operand": 4 * P * Ie,
        "silu output, kept by the mul (bf16 P x Ie)": 2 * P * Ie,
        "expert_outputs, kept by * batch_gates (bf16 P x h)": 2 * P * h,
        "batch_gates, kept by the mul (bf16 P)": 2 * P,
        "expert_outputs * gates, kept by index_add as source (bf16 P x h)": 2 * P * h,
        "shared input_linear output (bf16 T x 2S): silu input + up": 4 * T * S,
        "shared silu output (bf16 T x S)": 2 * T * S,
    }
    if trainable:
        t["block input x, kept by router layer and shared input_linear (bf16 T x h)"] = 2 * T * h
        t["expert_inputs = x[batch_index], kept by input_linear (bf16 P x h)"] = 2 * P * h
        t["silu*up, kept by output_linear (bf16 P x Ie)"] = 2 * P * Ie
        t["shared silu*up, kept by output_linear (bf16 T x S)"] = 2 * T * S
    return t


def formula_bytes(pt, trainable):
    return sum(formula_terms(pt, trainable).values())


def closed_form(pt, trainable):
    T = pt["b"] * pt["s"]
    K, h, Ie, S = pt["K"], pt["hidden"], pt["Ie"], pt["S"]
    if trainable:
        return T * K * (30 + 8 * Ie + 6 * h) + T * (2 * h + 8 * S)
    return T * K * (30 + 6 * Ie + 4 * h) + 6 * T * S


def closed_form_text():
    return {
        "frozen": "T*K*(30 + 6*Ie + 4*h) + 6*T*S",
        "trainable": "T*K*(30 + 8*Ie + 6*h) + T*(2*h + 8*S)",
        "note": "no term in E, nor in which / how many experts are hit",
    }


def P_(b, s, hidden, E, K, Ie, S, H=None, name=None):
    return dict(b=b, s=s, hidden=hidden, E=E, K=K, Ie=Ie, S=S, H=H, name=name)


POINTS = [
    P_(1, 64, 64, 8, 2, 48, 96),
    P_(2, 48, 96, 16, 4, 32, 64),
    P_(1, 100, 128, 32, 6, 64, 128),
    P_(2, 37, 80, 12, 3, 40, 72),
    P_(1, 96, 64, 16, 2, 32, 64, H=3, name="forced: 3 of 16 experts hit"),
    P_(1, 50, 64, 64, 8, 16, 40, name="T*K=400 pairs over 64 experts"),
    P_(1, 128, 96, 62, 6, 32, 128, name="62 experts top-6, widths scaled"),
    P_(1, 40, 64, 72, 10, 24, 80, H=10, name="forced: exactly 10 of 72 experts hit"),
    P_(1, 64, 1536, 62, 6, 512, 1024, name="H-Tiny widths (h 1536, Ie 512, S 1024) with 62 experts"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="first 4 points")
    ap.add_argument("--tensors", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    torch.set_num_threads(2)
    points = POINTS[:4] if args.quick else POINTS
    records, bad, n = [], 0, 0
    for pt in points:
        for trainable in (False, True):
            tot, tensors, hit = measure(pt, trainable, want_tensors=args.tensors)
            exp, compact = formula_bytes(pt, trainable), closed_form(pt, trainable)
            n += 1
            ok = tot["act"] == exp == compact
            bad += not ok
            T = pt["b"] * pt["s"]
            rec = dict(params="trainable" if trainable else "frozen",
                       **{k: pt[k] for k in ("b", "s", "hidden", "E", "K", "Ie", "S")},
                       T=T, pairs=T * pt["K"], expertsHit=hit, measured=tot["act"], formula=exp, closedForm=compact,
                       match=ok, perToken=round(tot["act"] / T, 2),
                       savedParamBytes=tot["param"], savedScalarBytes=tot["scalar"])
            gdn.emit_case(records, rec, tensors, pt.get("name"))
    print(f"formula check: {n - bad}/{n} cases reproduced exactly", flush=True)
    if args.out:
        gdn.write_cases(args.out, "granite_moe.py", records, sources=HF_SOURCES, closedForms=closed_form_text())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
