#!/usr/bin/python3
"""Ground truth: bytes that one Nemotron-H MoE block ('E' in hybrid_override_pattern; NVIDIA Nemotron 3 Nano) saves
for backward, as Hugging Face transformers runs it in training.

Mirrors `NemotronHMoE.forward` from its input (the output of the block's `NemotronHRMSNorm`, shape (b, s, hidden),
bf16) to its output before the residual add (routed experts + shared expert, bf16), as these files write it:

* transformers 5, src/transformers/models/nemotron_h/modeling_nemotron_h.py
  @ 008d9e9577b0eb0149aa6bb0c44da582b10e0b6e (generated from modular_nemotron_h.py @ the same commit;
  modular @ ae3cf70e65cdebb740497f62ac16e35440fe45de and modeling @ 897753a012bfa6dac8c0ae3281f23a2fc1e72db6 have the
  same MoE, the router's masked_fill there fills 0.0 instead of -inf, which saves the same):
  - `NemotronHTopkRouter.forward`: F.linear(x.type(fp32), weight.type(fp32)) -> fp32 logits (T, E);
  - `NemotronHMoE.route_tokens_to_experts` (DeepSeek-V3 routing, NOT under no_grad): sigmoid, + e_score_correction_bias
    (fp32 buffer, `_keep_in_fp32_modules_strict`), group scores = sum of the top-2 per group, top-`topk_group` groups,
    masked_fill(~group mask), top-k, gather of the sigmoid scores, `topk_weights /= sum + 1e-20` (norm_topk_prob),
    `* routed_scaling_factor`; the weights stay fp32. A newer modular (the router returns (logits, weights, indices)
    itself, `_, topk_weights, topk_indices = self.gate(hidden_states)`) runs the same ops.
  - `fc1_latent_proj` / `fc2_latent_proj` (nn.Linear h <-> moe_latent_size) when moe_latent_size is set, else Identity;
  - `NemotronHExperts` (@use_experts_implementation(has_gate=False)): up_proj (E, Im, d), down_proj (E, d, Im),
    act ACT2FN["relu2"] = ReLUSquaredActivation (torch.square(F.relu(x))), d = moe_latent_size or hidden;
  - `NemotronHMLP` shared expert: down_proj(relu2(up_proj(x))), width moe_shared_expert_intermediate_size, no bias.
* transformers 5 experts implementations, src/transformers/integrations/moe.py. `get_correct_experts_implementation`
  picks "grouped_mm" when none is requested (modeling_utils.py), so grouped_mm is what training runs:
  - impl `grouped_mm` (default): the has_gate version of grouped_mm_experts_forward (torch.sort, hidden_states[perm //
    top_k], sentinel mask: masked_fill_ of the sorted input ("pre-mask") and of the weighted output ("post-mask"),
    inv_perm by index_put, weighted_out[inv_perm], view(T, K, d).sum(1)). `_grouped_mm` calls
    torch.nn.functional.grouped_mm / torch._grouped_mm (CUDA, torch >= 2.9 or sm90 with 2.8); torch 1.13 lacks it, so
    an autograd.Function saves what derivatives.yaml's `_grouped_mm` entry saves: self if mat2 needs a gradient, mat2
    if self does (the codegen guard of mm), and offs (int32 (E,)) always (used by both formulas). The
    lora_target_parameters.py emulation leaves offs out; it is saved (4E bytes).
  - impl `grouped_mm_fallback`: the same forward through `torch.ops.transformers.grouped_mm_fallback` (CPU with torch
    <= 2.8, CUDA below sm80, or sm80 with torch < 2.9 without F.grouped_mm): its setup_context does
    ctx.save_for_backward(input, weight) whatever needs a gradient; offs is a ctx attribute (not a saved tensor).
  - impl `grouped_mm_v50`: the first has_gate version (token_idx = arange(T).expand(K), hidden_states[token_idx],
    argsort, [perm], index_put inv_perm, no sentinel mask); same _grouped_mm rule.
  - impl `eager`: `NemotronHExperts.forward` itself (config._experts_implementation = "eager"): loop over hit experts,
    torch.where on the one-hot mask, F.linear with up_proj[e] / down_proj[e], fp32 accumulator
    (zeros_like(dtype=top_k_weights.dtype)) and index_add_.
* impl `remote`: what transformers 4.x users ran. transformers 4.x's NemotronHBlock only knows mamba / attention / mlp,
  so Nemotron 3 Nano ran with trust_remote_code (the Hub's modeling_nemotron_h.py, seen through the copy
  nvidia-cosmos/cosmos-rl nemotron_vl/nemotron_vl_overwrite/modeling_nemotron_h.py
  @ 19e8a79005a1dda31f58cf6194c98750d162fd38): `NemotronHMOE` with nn.ModuleList of NemotronHMLP experts, the router's
  expert selection under @torch.no_grad (`get_topk_indices`), DeepSeek-V3 4.x's `moe()` loop over all experts
  (torch.where, topk_weights[token, pos], index_add_ into an fp32 buffer). No latent projection.

Conventions follow gated_deltanet.py / measure.py (its prepare / record / Recorder / summarize are used): every saved
tensor's storage counted once by its full nbytes, parameters (and views of them) and 0-dim scalars reported apart.
The ops used save the same in torch 1.13 and 2.x (checked against derivatives.yaml and the autograd codegen: mm's
per-input guard, in-place div_ saving a clone of the original self (`original_self`) and the divisor, masked_fill
its mask, index its indices, gather self + index, topk its indices, relu its result, pow(x, 2) its input).

Parameters are either all frozen (LoRA-style: only the block input requires grad) or all trainable; bf16 model without
autocast, no gradient checkpointing. The router's e_score_correction_bias stays fp32.

Run with Debian's torch (1.13, CPU): /usr/bin/python3 tools/activations/nemotron_moe.py [--quick] [--tensors] [--out F]
Prints one JSON line per (point, impl, params) with the measured bytes, formula_bytes() (term by term) and
closed_form() (the compact closed forms of closed_form_text()), exits 1 if any of the three differs. Points with a
forced routing (e_score_correction_bias pushes every token onto H experts) show that no term depends on which or how
many experts are hit: only S = T*K and E enter. Last full run: 82/82 cases exact (~8 min, most of it the full-width
Nano point); --quick: 16 cases, ~2 s.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gated_deltanet as gdn  # noqa: E402  (same folder: prepare / record / Recorder / summarize)

HF_SOURCES = {
    "nemotron_h": "huggingface/transformers src/transformers/models/nemotron_h/modeling_nemotron_h.py"
                  "@008d9e9577b0eb0149aa6bb0c44da582b10e0b6e",
    "nemotron_h_modular": "huggingface/transformers src/transformers/models/nemotron_h/modular_nemotron_h.py"
                          "@008d9e9577b0eb0149aa6bb0c44da582b10e0b6e (also ae3cf70e65cdebb740497f62ac16e35440fe45de)",
    "moe_grouped_mm": "huggingface/transformers src/transformers/integrations/moe.py, has_gate version (sort, "
                      "perm // top_k, sentinel pre/post masks); the pre-has_gate layout @ "
                      "8b584a67b474f3dfdedcdda7acb96a33dcc3b5e3",
    "derivatives": "pytorch tools/autograd/derivatives.yaml: _grouped_mm(self, mat2, offs) -> "
                   "_grouped_mm_mat1_backward(grad, mat2, ..., offs) / _grouped_mm_mat2_backward(grad, self, ..., offs)",
    "remote_code": "nvidia-cosmos/cosmos-rl nemotron_vl/nemotron_vl_overwrite/modeling_nemotron_h.py"
                   "@19e8a79005a1dda31f58cf6194c98750d162fd38 (copy of the Hub trust_remote_code NemotronHMOE)",
}

IMPLS = ["grouped_mm", "grouped_mm_fallback", "grouped_mm_v50", "eager", "remote"]


def relu2(x):
    """ACT2FN["relu2"] = ReLUSquaredActivation: relu (saves its result) then torch.square = pow(x, 2) (saves its input,
    the same storage)."""
    return torch.square(F.relu(x))


# ----------------------------------------------------------------------------------------
# torch._grouped_mm and transformers::grouped_mm_fallback (torch 1.13 has neither)
# ----------------------------------------------------------------------------------------
def _gmm_values(x, w, offs):
    out = x.new_zeros(x.shape[0], w.shape[2])
    start = 0
    for i, end in enumerate(offs.tolist()):
        end = int(end)
        if end > start:
            out[start:end] = x[start:end] @ w[i]
        start = end
    return out


def _gmm_grads(g, x, w, offs, need_x, need_w):
    gx = g.new_zeros(g.shape[0], w.shape[1]) if need_x else None
    gw = g.new_zeros(w.shape) if need_w else None
    start = 0
    for i, end in enumerate(offs.tolist()):
        end = int(end)
        if end > start:
            if need_x:
                gx[start:end] = g[start:end] @ w[i].t()
            if need_w:
                gw[i] = x[start:end].t() @ g[start:end]
        start = end
    return gx, gw


class GroupedMM(torch.autograd.Function):
    """torch._grouped_mm(self (S, in) sorted by expert, mat2 (E, in, out), offs int32 (E,)). derivatives.yaml:
    `self: _grouped_mm_mat1_backward(grad, mat2, ..., offs, 1)`, `mat2: _grouped_mm_mat2_backward(grad, self, ...,
    offs, 1)`: the codegen saves mat2 only if self needs a gradient, self only if mat2 does (each is used in one
    formula), and offs (an optional tensor used in both) always."""

    @staticmethod
    def forward(ctx, x, w, offs):
        need_x, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ctx.save_for_backward(x if need_w else None, w if need_x else None, offs)
        return _gmm_values(x, w, offs)

    @staticmethod
    def backward(ctx, g):
        x, w, offs = ctx.saved_tensors
        gx, gw = _gmm_grads(g, x, w, offs, ctx.needs_input_grad[0], ctx.needs_input_grad[1])
        return gx, gw, None


class GroupedMMFallback(torch.autograd.Function):
    """transformers::grouped_mm_fallback (moe.py): _grouped_mm_fallback_setup_context does
    ctx.save_for_backward(inputs[0], inputs[1]) and keeps offs as ctx.offs."""

    @staticmethod
    def forward(ctx, x, w, offs):
        ctx.save_for_backward(x, w)
        ctx.offs = offs
        return _gmm_values(x, w, offs)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx, gw = _gmm_grads(g, x, w, ctx.offs, ctx.needs_input_grad[0], ctx.needs_input_grad[1])
        return gx, gw, None


def _grouped_linear(x, w, offs, fallback):
    """moe.py _grouped_linear (is_transposed False, no bias) -> _grouped_mm(input, weight.transpose(-2, -1), offs);
    the native call casts input.to(weight.dtype) (a no-op here, bf16 already)."""
    wt = w.transpose(-2, -1)
    if fallback:
        return GroupedMMFallback.apply(x, wt, offs)
    return GroupedMM.apply(x.to(wt.dtype), wt, offs)


# ----------------------------------------------------------------------------------------
# the block
# ----------------------------------------------------------------------------------------
class SharedMLP(nn.Module):
    """NemotronHMLP: down_proj(relu2(up_proj(x))), mlp_bias False."""

    def __init__(self, h, inter):
        super().__init__()
        self.up_proj = nn.Linear(h, inter, bias=False)
        self.down_proj = nn.Linear(inter, h, bias=False)

    def forward(self, x):
        return self.down_proj(relu2(self.up_proj(x)))


class Router(nn.Module):
    """NemotronHTopkRouter (= DeepseekV3TopkRouter): weight (E, h), e_score_correction_bias fp32 buffer."""

    def __init__(self, E, h):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(E, h))
        self.register_buffer("e_score_correction_bias", torch.zeros(E))

    def forward(self, hidden_states):
        hidden_states = hidden_states.view(-1, self.weight.shape[1])
        return F.linear(hidden_states.type(torch.float32), self.weight.type(torch.float32))


class NemotronMoE(nn.Module):
    def __init__(self, pt, impl):
        super().__init__()
        E, h, Im, Is, lat = pt["E"], pt["hidden"], pt["Im"], pt["Is"], pt["latent"]
        self.impl, self.E, self.top_k = impl, E, pt["K"]
        self.n_group, self.topk_group = pt["G"], pt["Gk"]
        self.norm_topk_prob, self.routed_scaling_factor = pt["norm"], 2.5
        self.gate = Router(E, h)
        self.shared_experts = SharedMLP(h, Is)
        if impl == "remote":
            assert lat is None
            self.experts = nn.ModuleList([SharedMLP(h, Im) for _ in range(E)])
        else:
            d = lat if lat is not None else h
            self.up_proj = nn.Parameter(torch.empty(E, Im, d))    # NemotronHExperts.up_proj (E, Im, d)
            self.down_proj = nn.Parameter(torch.empty(E, d, Im))  # NemotronHExperts.down_proj (E, d, Im)
        if lat is not None:
            self.fc1_latent_proj = nn.Linear(h, lat, bias=False)
            self.fc2_latent_proj = nn.Linear(lat, h, bias=False)
        else:
            self.fc1_latent_proj = nn.Identity()
            self.fc2_latent_proj = nn.Identity()

    # --- routing -------------------------------------------------------------------------
    def route_tokens_to_experts(self, router_logits):
        """NemotronHMoE.route_tokens_to_experts (transformers 5): every op is on the autograd tape."""
        E, G = self.E, self.n_group
        router_logits = router_logits.sigmoid()
        router_logits_for_choice = router_logits + self.gate.e_score_correction_bias
        group_scores = router_logits_for_choice.view(-1, G, E // G).topk(2, dim=-1)[0].sum(dim=-1)
        group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = group_mask.unsqueeze(-1).expand(-1, G, E // G).reshape(-1, E)
        scores_for_choice = router_logits_for_choice.masked_fill(~score_mask.bool(), float("-inf"))
        topk_indices = torch.topk(scores_for_choice, k=self.top_k, dim=-1, sorted=False)[1]
        topk_weights = router_logits.gather(1, topk_indices)
        if self.norm_topk_prob:
            denominator = topk_weights.sum(dim=-1, keepdim=True) + 1e-20
            topk_weights /= denominator
        topk_weights = topk_weights * self.routed_scaling_factor
        return topk_indices, topk_weights

    def route_remote(self, hidden_states):
        """Hub NemotronHTopkRouter.forward: selection in get_topk_indices under @torch.no_grad."""
        E, G = self.E, self.n_group
        router_logits = self.gate(hidden_states)
        scores = router_logits.sigmoid()
        with torch.no_grad():
            scores_for_choice = scores.view(-1, E) + self.gate.e_score_correction_bias.unsqueeze(0)
            group_scores = scores_for_choice.view(-1, G, E // G).topk(2, dim=-1)[0].sum(dim=-1)
            group_idx = torch.topk(group_scores, k=self.topk_group, dim=-1, sorted=False)[1]
            group_mask = torch.zeros_like(group_scores)
            group_mask.scatter_(1, group_idx, 1)
            score_mask = group_mask.unsqueeze(-1).expand(-1, G, E // G).reshape(-1, E)
            scores_for_choice = scores_for_choice.masked_fill(~score_mask.bool(), 0.0)
            topk_indices = torch.topk(scores_for_choice, k=self.top_k, dim=-1, sorted=False)[1]
        topk_weights = scores.gather(1, topk_indices)
        if self.norm_topk_prob:
            denominator = topk_weights.sum(dim=-1, keepdim=True) + 1e-20
            topk_weights /= denominator
        topk_weights = topk_weights * self.routed_scaling_factor
        return topk_indices, topk_weights

    # --- experts -------------------------------------------------------------------------
    def experts_grouped_mm(self, hidden_states, top_k_index, top_k_weights, fallback=False):
        """grouped_mm_experts_forward, has_gate=False (newest moe.py)."""
        num_top_k = top_k_index.size(-1)
        num_tokens = hidden_states.size(0)
        hidden_dim = hidden_states.size(-1)
        sample_weights = top_k_weights.reshape(-1)
        expert_ids = top_k_index.reshape(-1)
        expert_ids_g, perm = torch.sort(expert_ids)
        selected_hidden_states_g = hidden_states[perm // num_top_k]
        sample_weights_g = sample_weights[perm]
        histc_input = expert_ids_g.float()  # CPU; .int() on CUDA
        tokens_per_expert = torch.histc(histc_input, bins=self.E, min=0, max=self.E - 1)
        offsets = torch.cumsum(tokens_per_expert, dim=0, dtype=torch.int32)
        sentinel_mask = (expert_ids_g >= self.E).unsqueeze(-1)
        expert_ids_g.clamp_(max=self.E - 1)
        selected_weights = self.up_proj
        selected_hidden_states_g.masked_fill_(sentinel_mask, 0.0)  # pre-mask (bwd path)
        proj_out = _grouped_linear(selected_hidden_states_g, selected_weights, offsets, fallback)
        proj_out = relu2(proj_out)  # has_gate False: self.act_fn(proj_out)
        proj_out = _grouped_linear(proj_out, self.down_proj, offsets, fallback)
        weighted_out = proj_out * sample_weights_g.unsqueeze(-1)  # bf16 * fp32 -> fp32
        weighted_out.masked_fill_(sentinel_mask, 0.0)  # post-mask (fwd path)
        inv_perm = torch.empty_like(perm)
        inv_perm[perm] = torch.arange(perm.size(0))
        weighted_out = weighted_out[inv_perm]
        final_hidden_states = weighted_out.view(num_tokens, num_top_k, hidden_dim).sum(dim=1)
        return final_hidden_states.to(hidden_states.dtype)

    def experts_grouped_mm_v50(self, hidden_states, top_k_index, top_k_weights):
        """First has_gate grouped_mm_experts_forward: token_idx gather, argsort, no sentinel mask."""
        num_top_k = top_k_index.size(-1)
        num_tokens = hidden_states.size(0)
        hidden_dim = hidden_states.size(-1)
        token_idx = torch.arange(num_tokens).unsqueeze(1).expand(-1, num_top_k).reshape(-1)
        sample_weights = top_k_weights.reshape(-1)
        expert_ids = top_k_index.reshape(-1)
        selected_hidden_states = hidden_states[token_idx]
        perm = torch.argsort(expert_ids)
        inv_perm = torch.empty_like(perm)
        inv_perm[perm] = torch.arange(perm.size(0))
        expert_ids_g = expert_ids[perm]
        sample_weights_g = sample_weights[perm]
        selected_hidden_states_g = selected_hidden_states[perm]
        tokens_per_expert = torch.histc(expert_ids_g.float(), bins=self.E, min=0, max=self.E - 1)
        offsets = torch.cumsum(tokens_per_expert, dim=0, dtype=torch.int32)
        proj_out = _grouped_linear(selected_hidden_states_g, self.up_proj, offsets, False)
        proj_out = relu2(proj_out)
        proj_out = _grouped_linear(proj_out, self.down_proj, offsets, False)
        weighted_out = proj_out * sample_weights_g.unsqueeze(-1)
        weighted_out = weighted_out[inv_perm]
        final_hidden_states = weighted_out.view(num_tokens, num_top_k, hidden_dim).sum(dim=1)
        return final_hidden_states.to(hidden_states.dtype)

    def experts_eager(self, hidden_states, top_k_index, top_k_weights):
        """NemotronHExperts.forward (experts_implementation="eager")."""
        final_hidden_states = torch.zeros_like(hidden_states, dtype=top_k_weights.dtype)
        with torch.no_grad():
            expert_mask = F.one_hot(top_k_index, num_classes=self.E)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero().squeeze(-1)
        for expert_idx in expert_hit:
            expert_idx = expert_idx.item()
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            if token_idx.numel() == 0:
                continue
            current_state = hidden_states[token_idx]
            current_hidden_states = F.linear(current_state, self.up_proj[expert_idx])
            current_hidden_states = relu2(current_hidden_states)
            current_hidden_states = F.linear(current_hidden_states, self.down_proj[expert_idx])
            current_hidden_states = current_hidden_states * top_k_weights[token_idx, top_k_pos, None]
            final_hidden_states.index_add_(0, token_idx, current_hidden_states.to(final_hidden_states.dtype))
        return final_hidden_states.to(hidden_states.dtype)

    def experts_remote(self, hidden_states, topk_indices, topk_weights):
        """Hub NemotronHMOE.moe (DeepSeek-V3 4.x loop over every expert)."""
        final_hidden_states = torch.zeros_like(hidden_states, dtype=topk_weights.dtype)
        expert_mask = F.one_hot(topk_indices, num_classes=len(self.experts))
        expert_mask = expert_mask.permute(2, 0, 1)
        for expert_idx in range(len(self.experts)):
            expert = self.experts[expert_idx]
            mask = expert_mask[expert_idx]
            token_indices, weight_indices = torch.where(mask)
            if token_indices.numel() > 0:
                expert_weights = topk_weights[token_indices, weight_indices]
                expert_input = hidden_states[token_indices]
                expert_output = expert(expert_input)
                weighted_output = expert_output * expert_weights.unsqueeze(-1)
                final_hidden_states.index_add_(0, token_indices, weighted_output)
        return final_hidden_states.type(hidden_states.dtype)

    def forward(self, hidden_states):
        residuals = hidden_states
        orig_shape = hidden_states.shape
        if self.impl == "remote":
            topk_indices, topk_weights = self.route_remote(hidden_states)
            self.last_routing = topk_indices.detach()
            hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
            hidden_states = self.experts_remote(hidden_states, topk_indices, topk_weights).view(*orig_shape)
            return hidden_states + self.shared_experts(residuals)
        router_logits = self.gate(hidden_states)
        topk_indices, topk_weights = self.route_tokens_to_experts(router_logits)
        self.last_routing = topk_indices.detach()
        hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
        hidden_states = self.fc1_latent_proj(hidden_states)
        if self.impl == "grouped_mm":
            hidden_states = self.experts_grouped_mm(hidden_states, topk_indices, topk_weights)
        elif self.impl == "grouped_mm_fallback":
            hidden_states = self.experts_grouped_mm(hidden_states, topk_indices, topk_weights, fallback=True)
        elif self.impl == "grouped_mm_v50":
            hidden_states = self.experts_grouped_mm_v50(hidden_states, topk_indices, topk_weights)
        else:
            hidden_states = self.experts_eager(hidden_states, topk_indices, topk_weights)
        hidden_states = self.fc2_latent_proj(hidden_states)
        hidden_states = hidden_states.view(*orig_shape)
        hidden_states = hidden_states + self.shared_experts(residuals)
        return hidden_states


def measure(pt, impl, trainable, dtype=torch.bfloat16, want_tensors=False, seed=0):
    torch.manual_seed(seed)
    m = NemotronMoE(pt, impl)
    x = gdn.prepare(m, pt, dtype, trainable, seed)
    with torch.no_grad():  # _keep_in_fp32_modules_strict: the correction bias stays fp32
        bias = torch.zeros(pt["E"])
        if pt.get("H"):  # force routing onto the first H experts (tests the experts-hit dependence)
            bias[: pt["H"]] = 100.0
        m.gate.e_score_correction_bias = bias
    # the Hub code's unhit nn.Linear experts get no gradient: their parameters are checked apart
    tot, tensors = gdn.record(m, gdn.Recorder(m), x, lambda: m(x), trainable and impl != "remote", want_tensors)
    hit_ids = torch.unique(m.last_routing).tolist()
    if trainable and impl == "remote":
        others = [p for n, p in m.named_parameters() if not n.startswith("experts.")]
        hit_params = [p for e in hit_ids for p in m.experts[e].parameters()]
        assert all(p.grad is not None and torch.isfinite(p.grad.float()).all() for p in others + hit_params)
    return tot, tensors, len(hit_ids)


# ----------------------------------------------------------------------------------------
# closed form (bf16 model, bytes per MoE block)
# ----------------------------------------------------------------------------------------
def formula_terms(pt, impl, trainable):
    """Bytes saved for backward by one NemotronHMoE block; returns {term: bytes}. T tokens, K top_k, S = T*K routed
    pairs, E experts, h hidden, Im expert width, Is shared width, d = moe_latent_size or h, G n_group, Gk topk_group.
    No term depends on which experts are hit (only on S = T*K and E)."""
    T = pt["b"] * pt["s"]
    K, E, h, Im, Is, lat = pt["K"], pt["E"], pt["hidden"], pt["Im"], pt["Is"], pt["latent"]
    G, Gk, norm = pt["G"], pt["Gk"], pt["norm"]
    S = T * K
    d = lat if lat is not None else h
    t = {}
    # --- router (fp32) ---
    t["router W.float() copy kept by the logits mm (fp32 E x h)"] = 4 * E * h
    if trainable:
        t["router x.float() kept for the router weight grad (fp32 T x h)"] = 4 * T * h
    t["sigmoid scores (fp32 T x E)"] = 4 * T * E
    if impl != "remote":  # selection on the tape (transformers 5); under no_grad in the Hub code
        t["group top-2 indices (int64 T x G x 2)"] = 16 * T * G
        t["top-topk_group group indices (int64 T x Gk)"] = 8 * T * Gk
        t["~group mask kept by masked_fill (bool T x E)"] = T * E
    t["top-k indices (int64 T x K, shared with gather)"] = 8 * S
    if norm:
        t["div_: clone of the gathered weights + denominator (fp32)"] = 4 * S + 4 * T
    # --- experts ---
    if impl in ("grouped_mm", "grouped_mm_fallback", "grouped_mm_v50"):
        if impl == "grouped_mm_v50":
            t["token_idx, perm, inv_perm index tensors (int64 S each)"] = 24 * S
        else:
            t["perm // K, perm, inv_perm index tensors (int64 S each)"] = 24 * S
            t["sentinel mask (bool S)"] = S
        if impl != "grouped_mm_fallback":
            t["grouped_mm offs (int32 E)"] = 4 * E
        t["relu output (bf16 S x Im, relu + square)"] = 2 * S * Im
        t["down_proj output kept by the routing-weight mul (bf16 S x d)"] = 2 * S * d
        t["sorted routing weights (fp32 S)"] = 4 * S
        if trainable or impl == "grouped_mm_fallback":
            t["up grouped_mm input (bf16 S x d)"] = 2 * S * d
            t["down grouped_mm input = relu^2 output (bf16 S x Im)"] = 2 * S * Im
    else:  # eager / remote: per hit expert, summed over experts (sum of n_e = S)
        t["torch.where (n_e x 2) int64 per hit expert"] = 16 * S
        t["relu output (bf16 S x Im)"] = 2 * S * Im
        t["down_proj output kept by the routing-weight mul (bf16 S x d)"] = 2 * S * d
        t["gathered routing weights (fp32 S)"] = 4 * S
        t["index_add_ source = weighted output (fp32 S x d)"] = 4 * S * d
        if trainable:
            t["up_proj input (bf16 S x d)"] = 2 * S * d
            t["down_proj input = relu^2 output (bf16 S x Im)"] = 2 * S * Im
    # --- latent projections (nn.Linear, frozen weight: nothing) ---
    if lat is not None and trainable:
        t["fc2_latent_proj input = experts output (bf16 T x d)"] = 2 * T * d
    # --- shared expert ---
    t["shared relu output (bf16 T x Is)"] = 2 * T * Is
    if trainable:
        t["block input x kept by shared up_proj (and fc1_latent_proj) (bf16 T x h)"] = 2 * T * h
        t["shared down_proj input = relu^2 output (bf16 T x Is)"] = 2 * T * Is
    return t


def formula_bytes(pt, impl, trainable):
    return sum(formula_terms(pt, impl, trainable).values())


def closed_form(pt, impl, trainable):
    """The same bytes as formula_terms, collected into the compact closed forms of closed_form_text()."""
    T = pt["b"] * pt["s"]
    K, E, h, Im, Is, lat = pt["K"], pt["E"], pt["hidden"], pt["Im"], pt["Is"], pt["latent"]
    G, Gk, norm = pt["G"], pt["Gk"], pt["norm"]
    S, d = T * K, (lat if lat is not None else h)
    nrm = 4 * S + 4 * T if norm else 0  # the norm_topk_prob division
    if impl == "remote":
        n = S * (28 + 2 * Im + 6 * h) + T * (4 * E + 2 * Is) + 4 * E * h + nrm
        if trainable:
            n += S * (2 * Im + 2 * h) + T * (6 * h + 2 * Is)
        return n
    per_pair = {"grouped_mm": 37, "grouped_mm_v50": 36, "grouped_mm_fallback": 37, "eager": 28}[impl]
    widths = 2 * Im + (6 * d if impl == "eager" else 2 * d)
    n = S * (per_pair + widths) + T * (5 * E + 16 * G + 8 * Gk + 2 * Is) + 4 * E * h + nrm
    if impl in ("grouped_mm", "grouped_mm_v50"):
        n += 4 * E  # offs
    if impl == "grouped_mm_fallback" or trainable:
        n += S * (2 * Im + 2 * d)  # the expert matmuls' activation inputs
    if trainable:
        n += T * (6 * h + 2 * Is + (2 * d if lat is not None else 0))
    return n


def closed_form_text():
    """The closed forms (bytes, bf16 model), as in the report. S = T*K; d = moe_latent_size or h."""
    return {
        "grouped_mm frozen": "S*(41 + 2*Im + 2*d) + T*(5*E + 16*G + 8*Gk + 4 + 2*Is) + 4*E*(h + 1)",
        "grouped_mm trainable": "S*(41 + 4*Im + 4*d) + T*(5*E + 16*G + 8*Gk + 4 + 4*Is + 6*h) + 4*E*(h + 1)"
                                " [+ 2*T*d with a latent projection]",
        "grouped_mm_fallback frozen": "S*(41 + 4*Im + 4*d) + T*(5*E + 16*G + 8*Gk + 4 + 2*Is) + 4*E*h",
        "grouped_mm_fallback trainable": "S*(41 + 4*Im + 4*d) + T*(5*E + 16*G + 8*Gk + 4 + 4*Is + 6*h) + 4*E*h"
                                         " [+ 2*T*d with a latent projection]",
        "grouped_mm_v50": "grouped_mm minus S (no sentinel mask)",
        "eager frozen": "S*(32 + 2*Im + 6*d) + T*(5*E + 16*G + 8*Gk + 4 + 2*Is) + 4*E*h",
        "eager trainable": "S*(32 + 4*Im + 8*d) + T*(5*E + 16*G + 8*Gk + 4 + 4*Is + 6*h) + 4*E*h"
                           " [+ 2*T*d with a latent projection]",
        "remote frozen": "S*(32 + 2*Im + 6*h) + T*(4*E + 4 + 2*Is) + 4*E*h",
        "remote trainable": "S*(32 + 4*Im + 8*h) + T*(4*E + 4 + 4*Is + 6*h) + 4*E*h",
        "norm_topk_prob False": "subtract 4*S + 4*T",
    }


# ----------------------------------------------------------------------------------------
# points
# ----------------------------------------------------------------------------------------
def P_(b, s, hidden, E, K, Im, Is, latent=None, G=1, Gk=1, norm=True, H=None, name=None):
    return dict(b=b, s=s, hidden=hidden, E=E, K=K, Im=Im, Is=Is, latent=latent, G=G, Gk=Gk, norm=norm, H=H, name=name)


POINTS = [
    P_(1, 64, 64, 8, 2, 48, 96),
    P_(2, 48, 96, 16, 4, 32, 64, latent=48),
    P_(1, 100, 128, 32, 6, 64, 128, G=4, Gk=2),
    P_(2, 37, 80, 12, 3, 40, 72, norm=False),
    P_(1, 96, 64, 16, 2, 32, 64, H=4),                      # only 4 of 16 experts hit
    P_(2, 64, 96, 64, 8, 24, 48, latent=32, G=8, Gk=4),
    P_(1, 128, 128, 128, 6, 64, 128, name="Nemotron 3 Nano routing (128 experts, top-6, n_group 1), widths scaled"),
    P_(1, 64, 128, 32, 4, 48, 96, latent=32, H=6, name="latent MoE (Nemotron 3 Super style), 6 of 32 experts hit"),
    P_(1, 64, 2688, 128, 6, 1856, 3712, name="Nemotron 3 Nano widths (h 2688, Im 1856, Is 3712, E 128, K 6)"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="first 4 points, grouped_mm and eager only")
    ap.add_argument("--tensors", action="store_true", help="also print the saved-tensor list of each case")
    ap.add_argument("--impls", default=",".join(IMPLS))
    ap.add_argument("--out", help="also write {source, cases} as JSON")
    args = ap.parse_args()
    torch.set_num_threads(2)
    points = POINTS[:4] if args.quick else POINTS
    impls = args.impls.split(",")
    if args.quick:
        impls = [i for i in impls if i in ("grouped_mm", "eager")]
    records, bad, n = [], 0, 0
    for pt in points:
        for impl in impls:
            if impl == "remote" and pt["latent"] is not None:
                continue  # the Hub code (Nemotron 3 Nano) has no latent projection
            if impl == "remote" and pt["hidden"] > 1024:
                continue  # 128 separate nn.Linear experts at full width: too slow on CPU, same formula
            for trainable in (False, True):
                tot, tensors, hit = measure(pt, impl, trainable, want_tensors=args.tensors)
                exp = formula_bytes(pt, impl, trainable)
                compact = closed_form(pt, impl, trainable)
                n += 1
                bad += tot["act"] != exp or compact != exp
                T = pt["b"] * pt["s"]
                rec = dict(impl=impl, params="trainable" if trainable else "frozen",
                           **{k: pt[k] for k in ("b", "s", "hidden", "E", "K", "Im", "Is", "latent", "G", "Gk", "norm")},
                           T=T, S=T * pt["K"], expertsHit=hit,
                           measured=tot["act"], formula=exp, closedForm=compact,
                           match=tot["act"] == exp == compact,
                           perToken=round(tot["act"] / T, 2),
                           savedParamBytes=tot["param"], savedScalarBytes=tot["scalar"])
                gdn.emit_case(records, rec, tensors, pt.get("name"))
    print(f"formula check: {n - bad}/{n} cases reproduced exactly", flush=True)
    if args.out:
        gdn.write_cases(args.out, "nemotron_moe.py", records, sources=HF_SOURCES, closedForms=closed_form_text())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
