#!/usr/bin/python3
"""Ground truth for GRPO's generation phase: the bytes PyTorch holds at the highest point of generating a round of
completions with the policy's own generate(), for a small Llama-like model (tools/activations/measure.py), after one
training step (so the AdamW state exists), read from the profiler's allocation records on the CPU like
measure_step.py.

The loop follows transformers' generate() with a DynamicCache (transformers generation/utils.py _sample, cache_utils.py
DynamicLayer.update): the prompts are prefilled in one forward (attention by blocks, like the flash kernel), the final
norm runs on every position and the head on the last one (logits_to_keep=1), the next-token logits are copied to fp32,
softmaxed and sampled; each step appends the new keys and values to every layer's cache with torch.cat.

    /usr/bin/python3 tools/peak/measure_generation.py     # writes test/fixtures/peak/generation.json
"""
import json
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import measure_step as S  # noqa: E402  (reference models, blockwise flash attention, allocation replay)

M = S.M
OUT = os.path.join(REPO, "test", "fixtures", "peak", "generation.json")


class DynamicCache:
    def __init__(self, layers):
        self.k = [None] * layers
        self.v = [None] * layers

    def update(self, i, k, v):
        if self.k[i] is None:
            self.k[i], self.v[i] = k, v
        else:
            self.k[i] = torch.cat([self.k[i], k], dim=-2)
            self.v[i] = torch.cat([self.v[i], v], dim=-2)
        return self.k[i], self.v[i]


def attention(att, x, cos, sin, cache, i):
    b, s, _ = x.shape
    shp = (b, s, -1, att.hd)
    q = att.q_proj(x).view(shp).transpose(1, 2)
    k = att.k_proj(x).view(shp).transpose(1, 2)
    v = att.v_proj(x).view(shp).transpose(1, 2)
    q, k = M.apply_rotary(q, k, cos, sin)
    k, v = cache.update(i, k, v)
    if s > 1:
        o = S.blockwise_flash_attn(q, k, v, True, att.scaling).transpose(1, 2).contiguous()
    else:
        o = M.eager_attention(q, k, v, None, att.scaling, att.nh // att.kv, 0.0)
    return att.o_proj(o.reshape(b, s, -1))


def layer_step(layer, hs, cos, sin, cache, i):
    res = hs
    hs = res + attention(layer.self_attn, layer.input_layernorm(hs), cos, sin, cache, i)
    return hs + layer.mlp(layer.post_attention_layernorm(hs))


@torch.no_grad()
def generate(model, prompts, completion):
    g, p = prompts.shape
    cache = DynamicCache(len(model.layers))
    cur, pos = prompts, torch.arange(p)
    out = prompts
    for step in range(completion):
        hs = model.embed_tokens(cur)
        cos, sin = M.rope_cos_sin(model.inv_freq, pos.unsqueeze(0), hs.dtype)
        for i, layer in enumerate(model.layers):
            hs = layer_step(layer, hs, cos, sin, cache, i)
        hs = model.norm(hs)
        logits = model.lm_head(hs[:, -1:, :])
        scores = logits[:, -1, :].to(copy=True, dtype=torch.float32)
        del logits, hs
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1)
        out = torch.cat([out, tok], dim=1)
        cur, pos = tok, torch.tensor([p + step])
    return out


def generation_peak(point, dtype, completions, prompt, completion):
    b, s, h, nh, kv, V = point
    cfg = M.make_cfg("llama", b, s, h, nh, kv, V)
    cfg["_attn"], cfg["_ckpt"] = "flash", "none"
    torch.manual_seed(0)
    model = M.FAMILY_CLASS["llama"](cfg)
    if dtype == "bf16":
        model.to(torch.bfloat16)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, foreach=True)
    gen = torch.Generator().manual_seed(1234)
    ids = torch.randint(0, V, (b, s), generator=gen)
    model(ids, ids).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    prompts = torch.randint(0, V, (completions, prompt), generator=gen)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        generate(model, prompts, completion)
    top, where = S.allocated_peak(prof)
    params = S.tensor_bytes(model.parameters())
    states = S.tensor_bytes(t for st in opt.state.values() for t in st.values() if torch.is_tensor(t) and t.dim() > 0)
    public = {k: v for k, v in cfg.items() if not k.startswith("_")}
    return dict(config=public, dtype=dtype, completions=completions, prompt=prompt, completion=completion,
                parameterBytes=params, optimizerStateBytes=states, peakBytes=params + states + top, peakAt=where)


CASES = [
    # (training point for the first step, dtype, completions, prompt tokens, generated tokens)
    ((2, 128, 256, 4, 2, 8000), "bf16", 32, 256, 16),   # prefill-bound: a long prompt, few generated tokens
    ((2, 128, 256, 4, 2, 8000), "bf16", 32, 16, 256),   # decoding-bound: the cache of 272 tokens per completion
    ((2, 128, 256, 4, 4, 32000), "fp32", 16, 64, 128),
]


def main():
    out = []
    for point, dtype, g, p, c in CASES:
        r = generation_peak(point, dtype, g, p, c)
        print(f"{dtype} {g} x ({p} + {c}): peak {r['peakBytes']:,} B at {r['peakAt']}", flush=True)
        out.append(r)
    with open(OUT, "w") as f:
        json.dump(dict(torch=torch.__version__, source="tools/peak/measure_generation.py", cases=out), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
