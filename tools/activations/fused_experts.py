"""transformers 5's fused MoE experts save what transformers 4's per-expert nn.Linear layers saved.

4.x (MixtralSparseMoeBlock): a router nn.Linear and, per expert, w1 / w3 / w2 nn.Linear. 5.x (MixtralTopKRouter,
MixtralExperts under @use_experts_implementation "eager"): a bare router weight, gate_up_proj (E, 2f, h) and
down_proj (E, h, f) indexed per hit expert, gate_up chunked into two views. Both blocks, with the same weights, run
over the same tokens under torch.autograd.graph.saved_tensors_hooks (bytes deduplicated by storage); the script
fails if the saved bytes or the outputs differ. Run with Debian's torch: /usr/bin/python3 tools/activations/fused_experts.py
"""
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F


def saved_bytes(fn):
    seen = {}

    def pack(t):
        st = t.storage()
        seen[st.data_ptr()] = st.nbytes()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return sum(seen.values()), out


class V4(nn.Module):
    def __init__(s, h, f, E, k):
        super().__init__()
        s.h, s.E, s.k = h, E, k
        s.gate = nn.Linear(h, E, bias=False)
        s.w1 = nn.ModuleList([nn.Linear(h, f, bias=False) for _ in range(E)])
        s.w3 = nn.ModuleList([nn.Linear(h, f, bias=False) for _ in range(E)])
        s.w2 = nn.ModuleList([nn.Linear(f, h, bias=False) for _ in range(E)])

    def forward(s, x):
        logits = s.gate(x)
        rw = F.softmax(logits, dim=1, dtype=torch.float)
        rw, sel = torch.topk(rw, s.k, dim=-1)
        rw /= rw.sum(dim=-1, keepdim=True)
        rw = rw.to(x.dtype)
        final = torch.zeros_like(x)
        mask = F.one_hot(sel, num_classes=s.E).permute(2, 1, 0)
        for e in range(s.E):
            idx, top = torch.where(mask[e])
            cur = x[None, top].reshape(-1, s.h)
            y = s.w2[e](F.silu(s.w1[e](cur)) * s.w3[e](cur)) * rw[top, idx, None]
            final.index_add_(0, top, y.to(x.dtype))
        return final

class V5(nn.Module):
    def __init__(s, v4):
        super().__init__()
        E = s.E = v4.E
        s.k = v4.k
        s.weight = nn.Parameter(v4.gate.weight.detach().clone())
        s.gate_up_proj = nn.Parameter(torch.stack([torch.cat([v4.w1[e].weight, v4.w3[e].weight], 0) for e in range(E)]).detach())
        s.down_proj = nn.Parameter(torch.stack([v4.w2[e].weight for e in range(E)]).detach())

    def forward(s, x):
        logits = F.linear(x, s.weight)
        probs = F.softmax(logits.float(), dim=-1)
        tv, ti = torch.topk(probs, s.k, dim=-1)
        tv /= tv.sum(dim=-1, keepdim=True)
        tw = tv.to(x.dtype)
        final = torch.zeros_like(x)
        with torch.no_grad():
            em = F.one_hot(ti, num_classes=s.E).permute(2, 1, 0)
            hit = torch.greater(em.sum(dim=(-1, -2)), 0).nonzero()
        for ei in hit:
            ei = ei[0]
            pos, tok = torch.where(em[ei])
            cur = x[tok]
            g, u = F.linear(cur, s.gate_up_proj[ei]).chunk(2, dim=-1)
            y = F.linear(F.silu(g) * u, s.down_proj[ei])
            y = y * tw[tok, pos, None]
            final.index_add_(0, tok, y.to(final.dtype))
        return final


failures = 0
for h, f, E, k, T in [(64, 96, 4, 2, 256), (128, 352, 8, 2, 512), (96, 64, 16, 4, 300)]:
    for dt in (torch.float32, torch.bfloat16):
        for train in (False, True):
            torch.manual_seed(0)
            v4 = V4(h, f, E, k).to(dt)
            v5 = V5(v4).to(dt)
            for m in (v4, v5):
                for p in m.parameters():
                    p.requires_grad_(train)
            x = torch.randn(T, h, dtype=dt, requires_grad=True)
            b4, o4 = saved_bytes(lambda: v4(x))
            b5, o5 = saved_bytes(lambda: v5(x))
            same = b4 == b5 and torch.equal(o4, o5)
            failures += not same
            print(f"h={h} f={f} E={E} k={k} T={T} {str(dt)[6:]} experts {'trained' if train else 'frozen '}: "
                  f"4.x {b4} B, 5.x {b5} B {'same' if same else 'DIFFERENT'}")
sys.exit(1 if failures else 0)
