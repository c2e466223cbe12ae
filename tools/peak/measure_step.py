#!/usr/bin/python3
"""Ground truth for the peak of a training step: the bytes PyTorch holds at the highest point of one forward and
backward pass (after a first full step, so the optimizer state exists), for small reference models that mirror
Hugging Face transformers' op sequences (the models of tools/activations/measure.py).

The allocations are read from the PyTorch profiler (profile_memory=True) on the CPU: its raw allocation records
(+bytes, -bytes, in order) give allocated bytes over time. Parameters, gradients and optimizer state are counted
like any other tensor; nothing about CUDA (caching, rounding, context) is involved, so this checks the estimator's
peak allocated bytes, phase by phase.

Run with Debian's torch (apt-get install python3-torch; torch 1.13):
    /usr/bin/python3 tools/peak/measure_step.py          # writes test/fixtures/peak/golden.json
"""
import json
import math
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools", "activations"))
import measure as M  # noqa: E402  (reference models)

OUT = os.path.join(REPO, "test", "fixtures", "peak", "golden.json")
BLOCK = 16  # query rows per block of the blockwise attention below


def block_scores(qi, kk, start, causal, scale):
    """fp32 scores of the query rows starting at `start` against every key, causally masked."""
    sc = (qi.float() @ kk.float().transpose(-1, -2)) * scale
    if causal:
        rows = torch.arange(start, start + qi.shape[2]).unsqueeze(1)
        sc = sc.masked_fill(torch.arange(kk.shape[2]).unsqueeze(0) > rows, float("-inf"))
    return sc


class BlockwiseFlash(torch.autograd.Function):
    """Flash attention with the memory behaviour of the real kernel: the s x s scores never exist whole (they are
    computed BLOCK query rows at a time, as the kernel does tile by tile in on-chip memory), and backward keeps
    q, k, v, out and the fp32 logsumexp, like aten::_scaled_dot_product_flash_attention. Gradients of k and v are
    accumulated in fp32, like flash-attn 2's backward."""

    @staticmethod
    def forward(ctx, q, k, v, causal, scale, p):
        b, h, s, d = q.shape
        rep = h // k.shape[1]
        kk = k.repeat_interleave(rep, 1)
        vv = v.repeat_interleave(rep, 1)
        out = torch.empty(b, s, h, d, dtype=q.dtype).transpose(1, 2)
        lse = torch.empty(b, h, s, dtype=torch.float32)
        for i in range(0, s, BLOCK):
            sc = block_scores(q[:, :, i:i + BLOCK], kk, i, causal, scale)
            lse[:, :, i:i + BLOCK] = torch.logsumexp(sc, -1)
            out[:, :, i:i + BLOCK] = (torch.softmax(sc, -1) @ vv.float()).to(q.dtype)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.causal, ctx.scale = causal, scale
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        b, h, s, d = q.shape
        rep = h // k.shape[1]
        kk = k.repeat_interleave(rep, 1).float()
        vv = v.repeat_interleave(rep, 1).float()
        dq = torch.empty_like(q)
        dk = torch.zeros(b, h, s, d, dtype=torch.float32)
        dv = torch.zeros(b, h, s, d, dtype=torch.float32)
        delta = (dout.float() * out.float()).sum(-1)
        for i in range(0, s, BLOCK):
            qi = q[:, :, i:i + BLOCK].float()
            sc = block_scores(qi, kk, i, ctx.causal, ctx.scale)
            pr = torch.exp(sc - lse[:, :, i:i + BLOCK].unsqueeze(-1))
            doi = dout[:, :, i:i + BLOCK].float()
            dv += pr.transpose(-1, -2) @ doi
            ds = pr * (doi @ vv.transpose(-1, -2) - delta[:, :, i:i + BLOCK].unsqueeze(-1))
            dq[:, :, i:i + BLOCK] = ((ds @ kk) * ctx.scale).to(q.dtype)
            dk += (ds.transpose(-1, -2) @ qi) * ctx.scale
        dk = dk.view(b, h // rep, rep, s, d).sum(2).to(k.dtype)
        dv = dv.view(b, h // rep, rep, s, d).sum(2).to(v.dtype)
        return dq, dk, dv, None, None, None


def blockwise_flash_attn(q, k, v, causal, scale, p=0.0):
    return BlockwiseFlash.apply(q, k, v, causal, scale, p)


M.flash_attn = blockwise_flash_attn


class IA3Linear(torch.nn.Module):
    """PEFT ia3.Linear.forward: the output (or, for a feed-forward target, the input) is cast to the vector's dtype
    and multiplied by the learned vector, then cast back (peft/tuners/ia3/layer.py)."""

    def __init__(self, base, feedforward):
        super().__init__()
        self.base = base
        self.feedforward = feedforward
        n = base.in_features if feedforward else base.out_features
        self.ia3_l = torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        previous = x.dtype
        scaling = 1 * self.ia3_l.flatten()
        if self.feedforward:
            interm = (x.to(self.ia3_l.dtype) * scaling).to(self.base.weight.dtype)
            result = self.base(interm)
        else:
            result = self.base(x)
            result = result.to(self.ia3_l.dtype) * scaling
        return result.to(previous)


class DoraLinear(M.LoraLinear):
    """PEFT lora.Linear with use_dora (peft/tuners/lora/dora.py DoraLinearLayer.forward, dropout 0 so the base
    result is reused): the weight norm of W + scaling * B A, taken through an identity and detached, rescales the
    output by the trained magnitude: result + (m / ||W + sBA|| - 1) * result + m / ||W + sBA|| * lora_B(lora_A(x)) * s."""

    def __init__(self, base, r, alpha, p):
        super().__init__(base, r, alpha, p)
        with torch.no_grad():
            self.magnitude = torch.nn.Parameter(torch.linalg.norm(base.weight.float(), dim=1))

    def forward(self, x):
        result = self.base_layer(x)
        dt = result.dtype
        if x.dtype != self.lora_A.weight.dtype:
            x = x.to(self.lora_A.weight.dtype)
        x_eye = torch.eye(self.lora_A.weight.shape[1], dtype=x.dtype)
        lora_weight = self.lora_B(self.lora_A(x_eye)).T
        weight = self.base_layer.weight.to(x.dtype)
        weight_norm = torch.linalg.norm(weight + self.scaling * lora_weight.detach(), dim=1).to(weight.dtype).detach()
        mag_norm_scale = (self.magnitude / weight_norm).view(1, -1)
        lora_result = self.lora_B(self.lora_A(x))
        result = result + (mag_norm_scale - 1) * result + mag_norm_scale * lora_result * self.scaling
        return result.to(dt)


_make_linear = M.make_linear


def make_linear(cfg, i, o, bias, name):
    lora = cfg.get("_lora")
    if lora and lora.get("dora") and (lora["targets"] == "all-linear" or name in lora["targets"]):
        return DoraLinear(torch.nn.Linear(i, o, bias=bias), lora["r"], lora["alpha"], lora["dropout"])
    ia3 = cfg.get("_ia3")
    if ia3 and name in ia3["targets"]:
        return IA3Linear(torch.nn.Linear(i, o, bias=bias), name in ia3["feedforward"])
    return _make_linear(cfg, i, o, bias, name)


M.make_linear = make_linear


def final_hidden(model, ids):
    """The decoder's normalized hidden states, as LlamaModel.forward computes them (before the head)."""
    b, s = ids.shape
    hs = model.embed_tokens(ids)
    position_ids = torch.arange(s).unsqueeze(0)
    mask = None if model.cfg["_attn"] == "flash" else M.causal_float_mask(b, s, hs.dtype)
    pos_emb = M.rope_cos_sin(model.inv_freq, position_ids, hs.dtype)
    hs = M.run_layers(model, model.layers, hs, lambda i, x: (x, mask, position_ids, torch.arange(s), pos_emb))
    return model.norm(hs)


class ChunkedLlama(M.LlamaLike):
    """torchtune's TransformerDecoder with num_output_chunks=8 and CEWithChunkedOutputLoss (eager): the head runs on
    8 slices of the hidden states, each slice's logits are upcast and reduced separately (torchtune/modules/loss)."""

    def forward(self, ids, labels):
        b, s = ids.shape
        hs = final_hidden(self, ids)
        logits = [self.lm_head(c) for c in hs.chunk(8, dim=1)]
        labels = torch.cat([labels[:, 1:], torch.full((b, 1), -100)], 1)
        total = (labels != -100).sum()
        loss = 0.0
        for lc, yc in zip(logits, (c.reshape(-1) for c in labels.chunk(8, dim=1))):
            loss = loss + torch.nn.functional.cross_entropy(lc.reshape(-1, lc.size(-1)).float(), yc, ignore_index=-100, reduction="sum")
        del logits
        return loss / total


M.FAMILY_CLASS["llama_chunked_loss"] = ChunkedLlama


class TorchtuneKdLlama(M.LlamaLike):
    """torchtune's knowledge-distillation recipes (knowledge_distillation_single_device.py _loss_step; modules/loss
    ForwardKLWithChunkedOutputLoss): the student's 8 output chunks, the teacher's (a frozen model of the same shape,
    no grad), the cross-entropy over the student's chunks (CEWithChunkedOutputLoss) and the forward KL chunk by chunk:
    softmax(teacher) and log_softmax(student) in fp32, their product with the isinf mask filled; kd_ratio 0.5."""

    def __init__(self, cfg):
        super().__init__(cfg)
        self.teacher = M.LlamaLike(cfg)
        for p in self.teacher.parameters():
            p.requires_grad_(False)

    def forward(self, ids, labels):
        b, s = ids.shape
        student = [self.lm_head(c) for c in final_hidden(self, ids).chunk(8, dim=1)]
        labels = torch.cat([labels[:, 1:], torch.full((b, 1), -100)], 1)
        with torch.no_grad():
            teacher = [self.teacher.lm_head(c) for c in final_hidden(self.teacher, ids).chunk(8, dim=1)]
        chunks = [c.reshape(-1) for c in labels.chunk(8, dim=1)]
        total = (labels != -100).sum()
        class_loss = 0.0
        for lc, yc in zip(student, chunks):
            class_loss = class_loss + torch.nn.functional.cross_entropy(lc.reshape(-1, lc.size(-1)).float(), yc, ignore_index=-100, reduction="sum")
        class_loss = class_loss / total
        def fkl_loss(sc, tc, yc):  # ForwardKLLoss.forward(normalize=False): its locals go when it returns
            teacher_prob = torch.nn.functional.softmax(tc, dim=-1, dtype=torch.float32)
            inf_mask = torch.isinf(sc)
            student_logprob = torch.nn.functional.log_softmax(sc, dim=-1, dtype=torch.float32)
            prod_probs = torch.masked_fill(teacher_prob * student_logprob, inf_mask, 0)
            x = torch.sum(prod_probs, dim=-1).view(-1)
            return -torch.sum(x * (yc != -100).int(), dim=0)

        kd = 0.0
        for sc, tc, yc in zip(student, teacher, chunks):
            kd = kd + fkl_loss(sc.reshape(-1, sc.size(-1)), tc.reshape(-1, tc.size(-1)), yc)
        kd = kd / total
        return 0.5 * class_loss + 0.5 * kd


M.FAMILY_CLASS["llama_tt_kd"] = TorchtuneKdLlama


def selective_log_softmax(logits, index):
    """trl/trainer/utils.py selective_log_softmax: fp32 logits take the logsumexp path (one row's logsumexp at a time),
    16-bit logits go row by row through log_softmax."""
    if logits.dtype in (torch.float32, torch.float64):
        selected = torch.gather(logits, dim=-1, index=index.unsqueeze(-1)).squeeze(-1)
        lse = torch.stack([torch.logsumexp(lg, dim=-1) for lg in logits])
        return selected - lse
    rows = []
    for row_logits, row_labels in zip(logits, index):
        row_logps = torch.nn.functional.log_softmax(row_logits, dim=-1)
        rows.append(row_logps.gather(dim=-1, index=row_labels.unsqueeze(-1)).squeeze(-1))
    return torch.stack(rows)


class GrpoLlama(M.LlamaLike):
    """TRL GRPOTrainer's training pass (_get_per_token_logps_and_entropies, _compute_loss): the head runs on the last
    completion + 1 positions only (logits_to_keep), the last logit is dropped, the logits are divided by the
    temperature, the completion tokens' log-probabilities are taken by selective_log_softmax, and the clipped
    surrogate with the round's advantages is averaged over the completion tokens."""

    def forward(self, ids, labels):
        b, c = ids.shape[0], self.cfg["_completion"]
        hs = final_hidden(self, ids)
        logits = self.lm_head(hs[:, -(c + 1):, :])
        logits = logits[:, :-1, :]
        logits = logits / 0.9  # temperature
        logps = selective_log_softmax(logits, ids[:, -c:])
        advantages = torch.linspace(-1.0, 1.0, b).unsqueeze(1)
        ratio = torch.exp(logps - logps.detach())
        per_token = -torch.min(ratio * advantages, torch.clamp(ratio, 0.8, 1.2) * advantages)
        return per_token.sum() / (b * c)


M.FAMILY_CLASS["llama_grpo"] = GrpoLlama


class OnlineDpoLlama(M.LlamaLike):
    """TRL OnlineDPOTrainer's training pass (training_step, _forward): the batch holds two completions per prompt (the
    first half chosen, the second rejected); the head runs on every position, the completion slice of the logits goes
    through one log_softmax in the logits' dtype and take_along_dim; then the reference's forward runs without grad
    (TRL disables the PEFT adapters; here the same weights) while the policy's graph is held, and the sigmoid DPO loss
    compares the pairs' summed log-probabilities."""

    def forward(self, ids, labels):
        b, s, c = ids.shape[0], ids.shape[1], self.cfg["_completion"]
        index = ids[:, -c:].unsqueeze(-1)

        def logps(hs):
            logits = self.lm_head(hs)
            return torch.take_along_dim(logits[:, s - c - 1:-1].log_softmax(dim=-1), index, dim=2).squeeze(-1)

        policy = logps(final_hidden(self, ids))
        with torch.no_grad():
            ref = logps(final_hidden(self, ids))
        p, r, half = policy.sum(1), ref.sum(1), b // 2
        margin = (p[:half] - p[half:]) - (r[:half] - r[half:])
        return -torch.nn.functional.logsigmoid(0.1 * margin).mean()


M.FAMILY_CLASS["llama_online_dpo"] = OnlineDpoLlama


class LlamaFactoryDpoLlama(M.LlamaLike):
    """LLaMA-Factory's DPO pass (train/dpo/trainer.py get_batch_loss_metrics, concatenated_forward; trainer_utils.py
    get_batch_logps): the chosen and rejected halves in one forward, the logits cast to fp32, logits[:, :-1, :] through
    one log_softmax and a gather; the fp32 logits stay referenced (chosen_logits / rejected_logits, for the metrics) while
    the reference (the model with its adapters disabled; here the same weights) runs the same pass without grad."""

    def forward(self, ids, labels):
        b = ids.shape[0]

        def batch_logps(hs):
            all_logits = self.lm_head(hs).to(torch.float32)
            lab = labels[:, 1:].clone()
            per_token = torch.gather(all_logits[:, :-1, :].log_softmax(-1), dim=2, index=lab.unsqueeze(2)).squeeze(2)
            return per_token.sum(-1), all_logits

        policy, policy_logits = batch_logps(final_hidden(self, ids))
        chosen_logits, rejected_logits = policy_logits.split(b // 2, dim=0)
        del policy_logits
        with torch.no_grad():
            ref, _ = batch_logps(final_hidden(self, ids))
            del _
        half = b // 2
        margin = (policy[:half] - policy[half:]) - (ref[:half] - ref[half:])
        loss = -torch.nn.functional.logsigmoid(0.1 * margin).mean()
        metrics = (chosen_logits.detach().mean().item(), rejected_logits.detach().mean().item())
        return loss


M.FAMILY_CLASS["llama_lf_dpo"] = LlamaFactoryDpoLlama


class TrlDpoLlama(M.LlamaLike):
    """TRL DPOTrainer's pass (dpo_trainer.py get_batch_loss_metrics, concatenated_forward): the chosen and rejected
    halves in one forward, the labels rolled by one, selective_log_softmax row by row, the per-token log-probs rolled
    back and summed, and the mean chosen / rejected logits over boolean-masked copies; then the reference (the model with
    its adapters disabled; here the same weights) runs the same pass without grad, and the sigmoid DPO loss."""

    def forward(self, ids, labels):
        b = ids.shape[0]
        half = b // 2
        loss_mask = torch.ones_like(ids, dtype=torch.bool)
        loss_mask[:, : ids.shape[1] // 2] = False  # the prompt half carries no loss

        def concatenated_forward(hs):
            logits = self.lm_head(hs)
            lab = torch.roll(ids, shifts=-1, dims=1)
            mask = torch.roll(loss_mask, shifts=-1, dims=1)
            lab[~mask] = 0
            per_token = selective_log_softmax(logits, lab)
            per_token[~mask] = 0
            per_token = torch.roll(per_token, shifts=1, dims=1)
            all_logps = per_token[:, 1:].sum(-1)
            nll = None
            if self.rpo:  # DPOConfig rpo_alpha: the chosen half's NLL over its flattened logits
                nll = torch.nn.functional.cross_entropy(torch.flatten(logits[:half, :-1], end_dim=1), torch.flatten(lab[:half, :-1], end_dim=1), ignore_index=0)
            mean_chosen = logits[:half][mask[:half]].mean()
            mean_rejected = logits[half:][mask[half:]].mean()
            return all_logps, mean_chosen, mean_rejected, nll

        policy, mean_chosen, mean_rejected, nll = concatenated_forward(final_hidden(self, ids))
        with torch.no_grad():
            ref, _, _, _ = concatenated_forward(final_hidden(self, ids))
        margin = (policy[:half] - policy[half:]) - (ref[:half] - ref[half:])
        loss = -torch.nn.functional.logsigmoid(0.1 * margin).mean()
        if nll is not None:
            loss = loss + 1.0 * nll
        metrics = (mean_chosen.detach().item(), mean_rejected.detach().item())
        return loss


M.FAMILY_CLASS["llama_trl_dpo"] = TrlDpoLlama
TrlDpoLlama.rpo = False


class TrlDpoRpoLlama(TrlDpoLlama):
    """TRL's DPO pass with rpo_alpha: the chosen half's NLL beside the row-by-row log-probs."""
    rpo = True


M.FAMILY_CLASS["llama_trl_dpo_rpo"] = TrlDpoRpoLlama


class TorchtuneDpoLlama(M.LlamaLike):
    """torchtune's DPO recipes (lora_dpo_single_device.py concatenated_forward; rlhf get_batch_log_probs): one forward
    over the chosen and rejected halves, each half's logits[:, :-1, :] through log_softmax in the logits' dtype and a
    gather; the policy's logits are deleted after their means are taken, then the reference (adapters disabled; here the
    same weights) runs the same pass without grad."""

    def forward(self, ids, labels):
        b = ids.shape[0]
        half = b // 2

        def batch_log_probs(logits, lab):
            lab = lab[:, 1:].clone()
            return torch.gather(logits[:, :-1, :].log_softmax(-1), dim=2, index=lab.unsqueeze(2)).squeeze(2).sum(-1)

        def concatenated_forward(hs):
            all_logits = self.lm_head(hs)
            chosen = batch_log_probs(all_logits[:half], labels[:half])
            rejected = batch_log_probs(all_logits[half:], labels[half:])
            return chosen, rejected, all_logits[:half], all_logits[half:]

        pc, pr, chosen_logits, rejected_logits = concatenated_forward(final_hidden(self, ids))
        metrics = (chosen_logits.detach().mean(), rejected_logits.detach().mean())
        del chosen_logits, rejected_logits
        with torch.no_grad():
            rc, rr, ref_chosen_logits, ref_rejected_logits = concatenated_forward(final_hidden(self, ids))
            del ref_chosen_logits, ref_rejected_logits
        margin = (pc - pr) - (rc - rr)
        return -torch.nn.functional.logsigmoid(0.1 * margin).mean()


M.FAMILY_CLASS["llama_tt_dpo"] = TorchtuneDpoLlama


class TrlOrpoLlama(M.LlamaLike):
    """TRL ORPOTrainer's pass (orpo_trainer.py concatenated_forward, get_batch_logps): one forward over the chosen and
    rejected halves; the chosen half's NLL by nn.CrossEntropyLoss over logits[..., :-1, :].contiguous(); the average
    log-probs of every sequence by selective_log_softmax over logits[:, :-1, :]; the chosen and rejected logits
    (all_logits[:n, :-1, :]) stay referenced for the metrics until the loss is computed. No reference model."""

    def forward(self, ids, labels):
        b = ids.shape[0]
        n = b // 2
        all_logits = self.lm_head(final_hidden(self, ids))
        lab = labels.clone()
        lab[:, : ids.shape[1] // 2] = -100  # the prompt carries no loss

        def cross_entropy_loss(logits, labels):
            logits = logits[..., :-1, :].contiguous()
            labels = labels[..., 1:].contiguous()
            return torch.nn.CrossEntropyLoss()(logits.view(-1, logits.shape[-1]), labels.view(-1))

        chosen_nll = cross_entropy_loss(all_logits[:n], lab[:n])
        l2 = lab[:, 1:].clone()
        mask = l2 != -100
        l2 = torch.where(mask, l2, 0)
        per_token = selective_log_softmax(all_logits[:, :-1, :], l2)
        all_logps = (per_token * mask).sum(-1) / mask.sum(-1)
        chosen_logits, rejected_logits = all_logits[:n, :-1, :], all_logits[n:, :-1, :]
        del all_logits
        log_odds = (all_logps[:n] - all_logps[n:]) - (torch.log1p(-torch.exp(all_logps[:n])) - torch.log1p(-torch.exp(all_logps[n:])))
        loss = chosen_nll - 0.1 * torch.nn.functional.logsigmoid(log_odds).mean()
        metrics = (chosen_logits.detach().mean().item(), rejected_logits.detach().mean().item())
        return loss


M.FAMILY_CLASS["llama_trl_orpo"] = TrlOrpoLlama


def kto_loss(pc, pr, rc, rr, pkl, rkl, beta=0.1):
    """The KTO loss (sigmoid of the log-ratio against the clamped KL estimate), for the chosen and rejected examples."""
    kl = (pkl - rkl).mean().clamp(min=0)
    return torch.cat((1 - torch.sigmoid(beta * (pc - rc - kl)), 1 - torch.sigmoid(beta * (kl - (pr - rr))))).mean()


class TrlKtoLlama(M.LlamaLike):
    """TRL KTOTrainer's pass (kto_trainer.py get_batch_loss_metrics, forward, _compute_kl_logps, get_batch_logps): the KL
    batch (mismatched completions) without grad, then the completions with grad, each through selective_log_softmax over
    logits[:, :-1, :]; the chosen and rejected logits are taken by index (copies) and kept for the metrics while the
    reference (the model with its adapters disabled; here the same weights) runs the same forward without grad."""

    def forward(self, ids, labels):
        b = ids.shape[0]
        kl_ids = torch.roll(ids, shifts=1, dims=0)
        chosen_idx, rejected_idx = list(range(0, b, 2)), list(range(1, b, 2))

        def batch_logps(logits, input_ids):
            lab = input_ids[:, 1:].clone()
            return selective_log_softmax(logits[:, :-1, :], lab).sum(-1)

        def kto_forward():
            with torch.no_grad():
                kl_logits = self.lm_head(final_hidden(self, kl_ids))
                kl_logps = batch_logps(kl_logits, kl_ids)
                del kl_logits
            completion_logits = self.lm_head(final_hidden(self, ids))
            completion_logps = batch_logps(completion_logits, ids)
            chosen_logits = completion_logits[chosen_idx, ...]
            rejected_logits = completion_logits[rejected_idx, ...]
            return completion_logps[chosen_idx, ...], completion_logps[rejected_idx, ...], chosen_logits, rejected_logits, kl_logps

        pc, pr, chosen_logits, rejected_logits, pkl = kto_forward()
        with torch.no_grad():
            rc, rr, _, _, rkl = kto_forward()
        metrics = (chosen_logits.detach().nansum().item(), rejected_logits.detach().nansum().item())
        return kto_loss(pc, pr, rc, rr, pkl, rkl)


M.FAMILY_CLASS["llama_trl_kto"] = TrlKtoLlama


class LlamaFactoryRmLlama(M.LlamaLike):
    """LLaMA-Factory's reward-model pass (train/rm/trainer.py PairwiseTrainer.compute_loss over TRL's
    AutoModelForCausalLMWithValueHead): the chosen and rejected halves in one forward; the LM head's logits are computed
    and cast to fp32 although no loss uses them; a one-output value head (fp32) scores the last hidden states, and the
    pairwise loss compares the last token's scores."""

    def __init__(self, cfg):
        super().__init__(cfg)
        self.v_head = torch.nn.Linear(cfg["hidden_size"], 1)

    def forward(self, ids, labels):
        b = ids.shape[0]
        hs = final_hidden(self, ids)
        lm_logits = self.lm_head(hs)
        if lm_logits.dtype != torch.float32:
            lm_logits = lm_logits.float()
        values = self.v_head(hs.to(self.v_head.weight.dtype)).squeeze(-1)
        del lm_logits
        chosen, rejected = values[: b // 2, -1], values[b // 2 :, -1]
        return -torch.nn.functional.logsigmoid(chosen.float() - rejected.float()).mean()


M.FAMILY_CLASS["llama_lf_rm"] = LlamaFactoryRmLlama


class LlamaFactoryKtoLlama(M.LlamaLike):
    """LLaMA-Factory's KTO pass (train/kto/trainer.py concatenated_forward, forward, get_batch_loss_metrics): the
    completions with grad (logits cast to fp32, get_batch_logps over logits[:, :-1, :]), the KL batch without grad,
    the chosen and rejected logits taken by boolean index (copies) for the metrics; then the reference (adapters
    disabled; here the same weights) runs both forwards without grad."""

    def forward(self, ids, labels):
        b = ids.shape[0]
        kl_ids = torch.roll(ids, shifts=1, dims=0)
        tags = torch.tensor([i % 2 == 0 for i in range(b)])

        def lf_forward(input_ids):
            logits = self.lm_head(final_hidden(self, input_ids)).to(torch.float32)
            lab = input_ids[:, 1:].clone()
            logps = torch.gather(logits[:, :-1, :].log_softmax(-1), dim=2, index=lab.unsqueeze(2)).squeeze(2).sum(-1)
            return logits, logps, logps / lab.shape[1]

        def concatenated_forward():
            target_logits, target_logps, target_logps_avg = lf_forward(ids)
            with torch.no_grad():
                _, kl_logps, _ = lf_forward(kl_ids)  # the KL logits are dropped as `_` is rebound
            return target_logps[tags], target_logps[~tags], target_logits[tags], target_logits[~tags], kl_logps, target_logps_avg[tags]

        pc, pr, chosen_logits, rejected_logits, pkl, _ = concatenated_forward()
        with torch.no_grad():
            rc, rr, _, _, rkl, _ = concatenated_forward()
        metrics = (chosen_logits.detach().sum().item(), rejected_logits.detach().sum().item())
        return kto_loss(pc, pr, rc, rr, pkl, rkl)


M.FAMILY_CLASS["llama_lf_kto"] = LlamaFactoryKtoLlama


class LabelSmoothingLlama(M.LlamaLike):
    """The HF Trainer with label_smoothing_factor (trainer.py compute_loss, trainer_pt_utils.py LabelSmoother): the
    labels are popped, the model returns its logits, and the smoother shifts them (a contiguous copy), takes
    -log_softmax, gathers the labels' terms and sums every class in fp32."""

    def forward(self, ids, labels):
        outputs_logits = self.lm_head(final_hidden(self, ids))  # compute_loss keeps `outputs` through the smoother
        epsilon, ignore_index = 0.1, -100
        logits = outputs_logits[..., :-1, :].contiguous()
        labels = labels[..., 1:].contiguous()
        log_probs = -torch.nn.functional.log_softmax(logits, dim=-1)
        labels = labels.unsqueeze(-1)
        padding_mask = labels.eq(ignore_index)
        labels = torch.clamp(labels, min=0)
        nll_loss = log_probs.gather(dim=-1, index=labels)
        smoothed_loss = log_probs.sum(dim=-1, keepdim=True, dtype=torch.float32)
        nll_loss.masked_fill_(padding_mask, 0.0)
        smoothed_loss.masked_fill_(padding_mask, 0.0)
        num_active_elements = padding_mask.numel() - padding_mask.long().sum()
        nll_loss = nll_loss.sum() / num_active_elements
        smoothed_loss = smoothed_loss.sum() / (num_active_elements * log_probs.shape[-1])
        loss = (1 - epsilon) * nll_loss + epsilon * smoothed_loss
        del outputs_logits
        return loss


M.FAMILY_CLASS["llama_label_smoothing"] = LabelSmoothingLlama


def entropy_from_logits(logits, chunk_size=128):
    """trl/trainer/utils.py entropy_from_logits: 128 rows of the logits at a time."""
    flat = logits.reshape(-1, logits.shape[-1])
    out = []
    for chunk in flat.split(chunk_size, dim=0):
        logps = torch.nn.functional.log_softmax(chunk, dim=-1)
        out.append(-(torch.exp(logps) * logps).sum(-1))
    return torch.cat(out, dim=0).reshape(logits.shape[:-1])


class TrlSftLlama(M.LlamaLike):
    """TRL SFTTrainer.compute_loss: the model's own loss (transformers ForCausalLMLoss), then without grad the entropy
    of the logits (128 rows at a time) and the token accuracy (a contiguous copy of the shifted logits, argmax), while
    the outputs' logits are still held."""

    def forward(self, ids, labels):
        outputs_logits = self.lm_head(final_hidden(self, ids))
        loss = M.causal_lm_loss(outputs_logits, labels, outputs_logits.shape[-1])
        with torch.no_grad():
            entropy = entropy_from_logits(outputs_logits).mean()
            shift_logits = outputs_logits[..., :-1, :].contiguous()
            predictions = shift_logits.argmax(dim=-1)
            accuracy = (predictions == labels[..., 1:]).float().mean()
            del shift_logits
        del outputs_logits
        return loss


M.FAMILY_CLASS["llama_trl_sft"] = TrlSftLlama


def allocated_peak(prof):
    """Highest running sum of the profiler's raw allocation records ([memory] events: +bytes on allocation, -bytes on
    free, in the order they happened), and the innermost operator running at that moment."""
    records = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    records.sort(key=lambda e: e.start_us())  # stable: records of the same microsecond keep their order
    cur = top = 0
    at = None
    for e in records:
        cur += e.nbytes()
        if cur > top:
            top, at = cur, e.start_us()
    where = None
    if at is not None:
        at -= prof.profiler.kineto_results.trace_start_us()  # operator events count from the start of the trace
        ops = [e for e in prof.events() if e.name != "[memory]" and e.time_range.start <= at <= e.time_range.end]
        if ops:
            where = max(ops, key=lambda e: e.time_range.start).name
    return top, where


def tensor_bytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)


def step_peak(family, point, dtype, attn, ckpt, lora=None, ia3=None, accumulation=1, overrides=None):
    b, s, h, nh, kv, V = point
    chunked = family == "llama_chunked_loss"
    grpo = family in ("llama_grpo", "llama_online_dpo")
    smoothing = family == "llama_label_smoothing"
    kd = family == "llama_tt_kd"
    sft = family == "llama_trl_sft"
    online_dpo = family == "llama_online_dpo"
    lf_dpo = family in ("llama_lf_dpo", "llama_trl_dpo", "llama_tt_dpo", "llama_trl_orpo", "llama_trl_kto", "llama_lf_rm", "llama_lf_kto", "llama_trl_dpo_rpo")
    logps = {
        "llama_lf_dpo": "whole",
        "llama_trl_dpo": "rows",
        "llama_tt_dpo": "native",
        "llama_trl_orpo": "rows",
        "llama_trl_kto": "rows",
        "llama_lf_rm": "whole",
        "llama_lf_kto": "whole",
        "llama_trl_dpo_rpo": "rows",
    }.get(family)
    rpo = family == "llama_trl_dpo_rpo"
    value_head = family == "llama_lf_rm"
    orpo = family == "llama_trl_orpo"
    kto = family in ("llama_trl_kto", "llama_lf_kto")
    cfg = M.make_cfg("llama" if chunked or grpo or lf_dpo or smoothing or kd or sft else family, b, s, h, nh, kv, V)
    cfg.update(overrides or {})  # config.json fields of the case (more layers, more or narrower experts)
    if grpo:
        cfg["_completion"] = s // 4
    if family == "gpt2":  # deterministic: no dropout masks (they are saved tensors, checked by tools/activations)
        cfg.update(attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0)
    cfg["_attn"], cfg["_ckpt"] = attn, ckpt
    if lora:
        cfg["_lora"] = lora
    if ia3:
        cfg["_ia3"] = ia3
    torch.manual_seed(0)
    model = M.FAMILY_CLASS[family](cfg)
    if chunked or grpo or lf_dpo or smoothing or kd or sft:
        family = "llama"
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() >= 2 and "lora" not in n:
                p.normal_(0, 0.5 / math.sqrt(p.shape[-1]))
    if lora or ia3:
        for n, p in model.named_parameters():
            p.requires_grad_("lora_" in n or "ia3_" in n or "magnitude" in n)
        if ckpt == "full_reentrant":
            # transformers enable_input_require_grads (what PEFT and the Trainer call under reentrant checkpointing):
            # the embedding's output requires grad, so each checkpointed layer's recomputation has a graph.
            emb = next(m for m in model.modules() if isinstance(m, torch.nn.Embedding))
            emb.register_forward_hook(lambda _m, _i, out: out.requires_grad_(True))
    if dtype == "bf16":
        model.to(torch.bfloat16)
        for m in model.modules():  # PEFT keeps adapters in fp32 (autocast_adapter_dtype=True)
            if isinstance(m, M.LoraLinear):
                m.lora_A.float()
                m.lora_B.float()
            if isinstance(m, DoraLinear):
                m.magnitude.data = m.magnitude.data.float()
            if isinstance(m, IA3Linear):
                m.ia3_l.data = m.ia3_l.data.float()
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-5, foreach=True)
    g = torch.Generator().manual_seed(1234)
    ids = torch.randint(0, V, (b, s), generator=g)
    labels = torch.randint(0, V, (b, s), generator=g)
    opt.zero_grad(set_to_none=True)
    model(ids, labels).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    for _ in range(accumulation - 1):  # earlier micro-steps of the same optimizer step leave their gradients
        model(ids, labels).backward()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        loss = model(ids, labels)
        loss.backward()
    top, where = allocated_peak(prof)
    params = tensor_bytes(model.parameters())
    states = tensor_bytes(t for st in opt.state.values() for t in st.values() if torch.is_tensor(t) and t.dim() > 0)
    grads = tensor_bytes(p.grad for p in model.parameters() if p.grad is not None) if accumulation > 1 else 0
    top += grads  # allocated before the profile started
    public = {k: v for k, v in cfg.items() if not k.startswith("_")}
    return dict(family=family, config=public, batch=b, seq=s, dtype=dtype, attention=attn, checkpointing=ckpt,
                lora=lora, ia3=ia3, accumulation=accumulation, loss="chunked" if chunked else "full",
                **({"completion": s // 4} if grpo else {}), **({"onlineDpo": True} if online_dpo else {}),
                **({"preference": logps} if lf_dpo else {}), **({"orpo": True} if orpo else {}),
                **({"kto": True} if kto else {}), **({"valueHead": True} if value_head else {}),
                **({"labelSmoothing": True} if smoothing else {}), **({"rpo": True} if rpo else {}),
                **({"trlSft": True} if sft else {}),
                **({"distill": "forward_kl", "teacherParameterBytes": tensor_bytes(model.teacher.parameters())} if kd else {}),
                **({"balancedRouting": True} if cfg.get("_balanced") else {}),
                **({"expertsImpl": cfg["_experts_impl"]} if cfg.get("_experts_impl") else {}),
                parameterBytes=params, optimizerStateBytes=states, peakBytes=params + states + top, peakAt=where)


CASES = [
    # (family, (b, s, h, heads, kv heads, vocab), dtype, attention, checkpointing, lora)
    ("llama", (2, 128, 256, 4, 4, 1000), "fp32", "eager", "none", None),
    ("llama", (2, 256, 256, 4, 2, 4000), "fp32", "eager", "none", None),
    ("llama", (1, 512, 512, 8, 8, 8000), "fp32", "eager", "none", None),
    ("llama", (4, 256, 256, 4, 4, 32000), "fp32", "eager", "none", None),
    ("llama", (1, 1024, 256, 4, 1, 2000), "fp32", "eager", "none", None),
    ("llama", (2, 512, 256, 4, 2, 4000), "fp32", "flash", "none", None),
    ("llama", (2, 512, 256, 4, 2, 4000), "fp32", "flash", "full_reentrant", None),
    ("llama", (1, 1024, 256, 4, 4, 2000), "fp32", "eager", "full_reentrant", None),
    ("llama", (2, 512, 256, 4, 2, 8000), "bf16", "flash", "none", None),
    ("llama", (2, 512, 256, 4, 2, 8000), "fp32", "flash", "none", dict(r=8, alpha=16, dropout=0.0, targets=["q_proj", "v_proj"])),
    ("llama", (2, 512, 256, 4, 2, 8000), "bf16", "flash", "none", dict(r=8, alpha=16, dropout=0.0, targets=["q_proj", "v_proj"])),
    ("gpt2", (2, 256, 256, 4, 4, 4000), "fp32", "eager", "none", None),
    ("gpt2", (1, 512, 256, 4, 4, 8000), "fp32", "eager", "full_reentrant", None),
    ("gemma", (2, 256, 256, 4, 1, 4000), "fp32", "eager", "none", None),
    ("mixtral", (2, 256, 256, 4, 2, 4000), "fp32", "eager", "none", None),
    ("qwen2", (2, 256, 256, 4, 2, 4000), "fp32", "flash", "none", None),
    ("gpt_neox", (2, 256, 256, 4, 4, 4000), "fp32", "eager", "none", None),
    ("phi3", (2, 256, 256, 4, 4, 4000), "fp32", "eager", "none", None),
]
# torchtune's chunked output and loss (8 chunks), eager.
CHUNKED_CASES = [
    ("llama_chunked_loss", (2, 512, 256, 4, 2, 16000), "bf16", "flash", "full_reentrant", None),
    ("llama_chunked_loss", (2, 512, 256, 4, 2, 16000), "fp32", "flash", "full_reentrant", None),
    ("llama_chunked_loss", (2, 512, 256, 4, 2, 16000), "bf16", "flash", "none", dict(r=8, alpha=16, dropout=0.0, targets=["q_proj", "v_proj"])),
]
# The second micro-step of gradient accumulation: the first one's gradients are held throughout.
ACCUMULATION_CASES = [
    ("llama", (2, 256, 256, 4, 2, 4000), "fp32", "eager", "none", None),
    ("llama", (2, 512, 256, 4, 2, 8000), "fp32", "flash", "full_reentrant", None),
]
IA3 = dict(targets=["k_proj", "v_proj", "down_proj"], feedforward=["down_proj"])  # PEFT's llama default
IA3_CASES = [
    ("llama", (2, 512, 256, 4, 2, 8000), "bf16", "flash", "none", IA3),
    ("llama", (4, 256, 256, 4, 4, 4000), "fp32", "eager", "none", IA3),
]


# GRPO's training pass: a quarter of each sequence is the completion whose log-probabilities are trained.
GRPO_CASES = [
    ("llama_grpo", (4, 512, 256, 4, 2, 16000), "fp32", "flash", "none", None),
    ("llama_grpo", (4, 512, 256, 4, 2, 16000), "bf16", "flash", "full_reentrant", None),
    ("llama_grpo", (8, 256, 256, 4, 2, 32000), "bf16", "flash", "none", dict(r=8, alpha=16, dropout=0.0, targets=["q_proj", "v_proj"])),
]


def preference_cases(family, lora_batch=4, batch=4):
    """The three points each loss-side pass is profiled at: fp32 without checkpointing, bf16 with full checkpointing,
    bf16 LoRA on q and v; for preference and online passes the batch holds the chosen and rejected halves (or the two
    completions)."""
    return [
        (family, (batch, 512, 256, 4, 2, 16000), "fp32", "flash", "none", None),
        (family, (batch, 512, 256, 4, 2, 16000), "bf16", "flash", "full_reentrant", None),
        (family, (lora_batch, 256, 256, 4, 2, 32000), "bf16", "flash", "none", dict(r=8, alpha=16, dropout=0.0, targets=["q_proj", "v_proj"])),
    ]


# Online DPO (two completions per prompt, the last quarter of each sequence generated); LLaMA-Factory's, TRL's and
# torchtune's DPO passes and TRL's ORPO and KTO passes (the reference, where there is one, without grad).
ONLINE_DPO_CASES = preference_cases("llama_online_dpo", lora_batch=8)
LF_DPO_CASES = preference_cases("llama_lf_dpo")
TRL_DPO_CASES = preference_cases("llama_trl_dpo")
TORCHTUNE_DPO_CASES = preference_cases("llama_tt_dpo")
TRL_ORPO_CASES = preference_cases("llama_trl_orpo")
TRL_KTO_CASES = preference_cases("llama_trl_kto")
LF_RM_CASES = preference_cases("llama_lf_rm")
LF_KTO_CASES = preference_cases("llama_lf_kto")
TRL_DPO_RPO_CASES = preference_cases("llama_trl_dpo_rpo")
# torchtune's knowledge distillation (a teacher of the student's shape), the student trained in full or with LoRA.
TORCHTUNE_KD_CASES = preference_cases("llama_tt_kd", lora_batch=2, batch=2)
# Gemma 2: tanh soft-capping of the attention scores and of the final logits (transformers Gemma2ForCausalLM).
GEMMA2_CASES = [
    ("gemma2", (2, 256, 256, 4, 1, 4000), "fp32", "eager", "none", None),
    ("gemma2", (2, 512, 256, 4, 1, 16000), "bf16", "eager", "full_reentrant", None),
]
# One fp32 point each for more families: Gemma 3 (q / k norms, sliding-window layers), Qwen2-MoE (routed and shared
# experts), DeepSeek-V3 (MLA, a dense first layer), GLM-4.5 MoE, gpt-oss (attention sinks), OLMo 2, BLOOM (ALiBi) and
# Qwen3.5 (Gated DeltaNet layers).
MORE_FAMILY_CASES = [
    (family, (2, 256, 256, 4, kv, 4000), "fp32", "eager", "none", None)
    for family, kv in (("gemma3", 1), ("qwen2_moe", 2), ("deepseek_v3", 4), ("gpt_oss", 2), ("glm4_moe", 2), ("olmo2", 4), ("bloom", 4), ("qwen3_5_text", 2))
]
# Mixtures of experts under checkpointing, LoRA on q and v (a full fine-tune of these shallow models would make the
# first layer's own gradients, which do not exist yet when its backward peaks, a large share of the total): the
# recomputed MoE layer's forward and its expert-by-expert backward. Routing is balanced (token t to experts
# (t*k + j) mod E), as a trained router's balancing loss makes it and as the estimate assumes; 4, 8 and 16 experts.
MOE_LORA = dict(r=8, alpha=16, dropout=0.0, targets=["q_proj", "v_proj"])
MOE_BLOCKS = (
    ("mixtral", 2, {}), ("mixtral", 2, dict(num_local_experts=8)), ("mixtral", 2, dict(num_local_experts=16, intermediate_size=344)),
    ("qwen2_moe", 2, {}), ("qwen2_moe", 2, dict(num_experts=16, moe_intermediate_size=344, num_experts_per_tok=4)),
    ("deepseek_v3", 4, {}), ("glm4_moe", 2, {}), ("gpt_oss", 2, {}), ("gpt_oss", 2, dict(num_local_experts=16)))
# Each block twice: its experts looped as transformers 4.x runs them, then through transformers 5's grouped_mm (its
# default).
MOE_CHECKPOINTING_CASES = [
    (family, (2, 1024, 256, 4, kv, 500), "bf16", "flash", "full_reentrant", MOE_LORA, dict(_balanced=True, **impl, **more))
    for impl in ({}, dict(_experts_impl="grouped_mm")) for family, kv, more in MOE_BLOCKS
]
# TRL's SFTTrainer (its entropy and token-accuracy metrics beside the model's loss).
TRL_SFT_CASES = preference_cases("llama_trl_sft", lora_batch=2, batch=2)
# The HF Trainer's label smoothing (two sequences per batch).
LABEL_SMOOTHING_CASES = preference_cases("llama_label_smoothing", lora_batch=2, batch=2)


# DoRA (PEFT use_dora): the magnitude's gradient keeps the base output and the LoRA output of every target.
DORA_CASES = [
    ("llama", (2, 512, 256, 4, 2, 8000), "bf16", "flash", "none", dict(r=8, alpha=16, dropout=0.0, targets=["q_proj", "v_proj"], dora=True)),
    ("llama", (2, 256, 256, 4, 2, 4000), "fp32", "eager", "none", dict(r=8, alpha=16, dropout=0.0, targets="all-linear", dora=True)),
]


def main():
    only = {
        "--grpo": (lambda c: c.get("completion") and not c.get("onlineDpo"), GRPO_CASES),
        "--online-dpo": (lambda c: c.get("onlineDpo"), ONLINE_DPO_CASES),
        "--lf-dpo": (lambda c: c.get("preference") == "whole" and not c.get("valueHead") and not c.get("kto"), LF_DPO_CASES),
        "--lf-kto": (lambda c: c.get("preference") == "whole" and c.get("kto"), LF_KTO_CASES),
        "--lf-rm": (lambda c: c.get("valueHead"), LF_RM_CASES),
        "--label-smoothing": (lambda c: c.get("labelSmoothing"), LABEL_SMOOTHING_CASES),
        "--torchtune-kd": (lambda c: c.get("distill"), TORCHTUNE_KD_CASES),
        "--trl-sft": (lambda c: c.get("trlSft"), TRL_SFT_CASES),
        "--gemma2": (lambda c: c.get("family") == "gemma2", GEMMA2_CASES),
        "--more-families": (lambda c: c.get("family") in {f for f, *_ in MORE_FAMILY_CASES}, MORE_FAMILY_CASES),
        "--trl-dpo": (lambda c: c.get("preference") == "rows" and not c.get("orpo") and not c.get("kto") and not c.get("rpo"), TRL_DPO_CASES),
        "--trl-dpo-rpo": (lambda c: c.get("rpo"), TRL_DPO_RPO_CASES),
        "--trl-kto": (lambda c: c.get("preference") == "rows" and c.get("kto"), TRL_KTO_CASES),
        "--trl-orpo": (lambda c: c.get("orpo"), TRL_ORPO_CASES),
        "--torchtune-dpo": (lambda c: c.get("preference") == "native", TORCHTUNE_DPO_CASES),
        "--dora": (lambda c: (c.get("lora") or {}).get("dora"), DORA_CASES),
        "--moe-checkpointing": (lambda c: c.get("balancedRouting"), MOE_CHECKPOINTING_CASES),
    }.get(sys.argv[1] if len(sys.argv) == 2 else "")
    if only:  # add or refresh these cases only
        drop, chosen = only
        with open(OUT) as f:
            data = json.load(f)
        data["cases"] = [c for c in data["cases"] if not drop(c)]
        for family, point, dtype, attn, ckpt, lora, *more in chosen:
            r = step_peak(family, point, dtype, attn, ckpt, lora, overrides=more[0] if more else None)
            print(f"{family} {point} {dtype} {attn} {ckpt}: peak {r['peakBytes']:,} B at {r['peakAt']}", flush=True)
            data["cases"].append(r)
        with open(OUT, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        return
    out = []
    runs = [(c, None, 1) for c in CASES] + [((f, pt, d, at, ck, None), ia3, 1) for f, pt, d, at, ck, ia3 in IA3_CASES]
    runs += [(c, None, 2) for c in ACCUMULATION_CASES] + [(c, None, 1) for c in CHUNKED_CASES] + [(c, None, 1) for c in GRPO_CASES]
    runs += [(c, None, 1) for c in ONLINE_DPO_CASES] + [(c, None, 1) for c in LF_DPO_CASES]
    runs += [(c, None, 1) for c in TRL_DPO_CASES] + [(c, None, 1) for c in TORCHTUNE_DPO_CASES]
    runs += [(c, None, 1) for c in TRL_ORPO_CASES] + [(c, None, 1) for c in TRL_KTO_CASES]
    runs += [(c, None, 1) for c in LF_RM_CASES] + [(c, None, 1) for c in LF_KTO_CASES]
    runs += [(c, None, 1) for c in TRL_DPO_RPO_CASES] + [(c, None, 1) for c in LABEL_SMOOTHING_CASES]
    runs += [(c, None, 1) for c in TORCHTUNE_KD_CASES] + [(c, None, 1) for c in TRL_SFT_CASES]
    runs += [(c, None, 1) for c in GEMMA2_CASES] + [(c, None, 1) for c in MORE_FAMILY_CASES] + [(c, None, 1) for c in DORA_CASES]
    runs += [(c, None, 1) for c in MOE_CHECKPOINTING_CASES]
    for (family, point, dtype, attn, ckpt, lora, *more), ia3, accumulation in runs:
        r = step_peak(family, point, dtype, attn, ckpt, lora, ia3, accumulation, overrides=more[0] if more else None)
        method = "ia3" if ia3 else "lora" if lora else "full"
        print(f"{family} {point} {dtype} {attn} {ckpt} {method} accumulation {accumulation}: peak {r['peakBytes']:,} B at {r['peakAt']}", flush=True)
        out.append(r)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(dict(torch=torch.__version__, source="tools/peak/measure_step.py", cases=out), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
