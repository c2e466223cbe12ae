"""Closed-form per-layer activation formulas (bytes) and their fitting/verification.

A formula is   bytes(layer i) = sum_t coef[t] * term_t(case)
with the terms below (b=batch, s=seq, h=hidden_size, nh=num_attention_heads, kv=num_key_value_heads,
hd=head_dim, f=intermediate_size (ffn), fm=moe_intermediate_size (qwen2_moe) or intermediate_size
(mixtral), rot=rotary dims (gpt_neox: int(hd*rotary_pct)), r=LoRA rank).

Coefficients are fitted by least squares over the 8 measured (b, s, h, nh, kv, f, vocab) points of each
(family, dtype, attention, checkpointing, lora) group, rounded to multiples of 0.5 byte and then required to
reproduce EVERY measured layer EXACTLY (measure.py prints any mismatch). formulas.json holds the result;
README.md explains which saved tensors make up each coefficient.
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FORMULA_FILE = os.path.join(HERE, "formulas.json")

TERM_DOC = {
    "BSH": "b*s*h", "BSKV": "b*s*kv*hd", "BSF": "b*s*f", "BHSS": "b*nh*s*s", "BHS": "b*nh*s", "BS": "b*s",
    "SR": "s*rot", "SS": "s*s", "H": "h", "BSHV": "b*s*h*(3 if b==1 else 1)", "BSFM": "b*s*fm", "BSRL": "b*s*r",
}


def terms(case):
    fam = case["family"]
    cf = case["config"]
    b, s = case["batch"], case["seq"]
    h = cf["hidden_size"]
    nh = cf["num_attention_heads"]
    kv = cf.get("num_key_value_heads", nh)
    hd = cf.get("head_dim") or h // nh
    f = cf.get("intermediate_size") or 4 * h  # BLOOM's MLP is 4 x hidden (no intermediate_size)
    if fam == "bloom":  # no GQA, and f = 4h: b*s*f would repeat b*s*h
        T = {"BSH": b * s * h, "BHSS": b * nh * s * s, "BHS": b * nh * s, "BS": b * s}
    elif fam in ("mixtral", "qwen2_moe"):
        fm = cf.get("moe_intermediate_size", f)
        T = {"BSH": b * s * h, "BSKV": b * s * kv * hd, "BHSS": b * nh * s * s, "BHS": b * nh * s, "BS": b * s,
             "BSFM": b * s * fm}
    elif fam in ("gpt2", "gpt_neox", "bert", "t5"):  # no GQA: kv*hd == h
        T = {"BSH": b * s * h, "BSF": b * s * f, "BHSS": b * nh * s * s, "BHS": b * nh * s, "BS": b * s}
    else:
        T = {"BSH": b * s * h, "BSKV": b * s * kv * hd, "BSF": b * s * f, "BHSS": b * nh * s * s,
             "BHS": b * nh * s, "BS": b * s}
    if fam == "gpt_neox":
        T["SR"] = s * int(hd * cf["rotary_pct"])
        if case["attention"] == "eager":
            # matmul(probs, v): v is a permuted view of the fused qkv output; for b == 1 the reshape to
            # (b*nh, s, hd) is a view, so the whole qkv storage (3*b*s*h) is saved instead of a b*s*h copy.
            T["BSHV"] = b * s * h * (3 if b == 1 else 1)
    if fam == "gemma":
        T["H"] = h  # (1 + weight).float() of each GemmaRMSNorm is a saved non-parameter tensor
    if fam == "t5":
        T["SS"] = s * s
    if case.get("lora"):
        T["BSRL"] = b * s * case["lora"]["r"]
    return T


def group_key(case):
    lo = case.get("lora")
    lk = "none" if not lo else "lora-p{}-{}".format(lo["dropout"], "+".join(lo["targets"]) if isinstance(lo["targets"], list) else lo["targets"])
    return "|".join([case["family"], case["dtype"], case["attention"], case["checkpointing"], lk])


def fit(cases):
    groups = {}
    for c in cases:
        groups.setdefault(group_key(c), []).append(c)
    out = {}
    bad = []
    for key, cs in groups.items():
        names = list(terms(cs[0]).keys())
        A = np.array([[terms(c)[n] for n in names] for c in cs], dtype=float)
        nL = len(cs[0]["savedBytes"]["perLayerList"])
        layers = []
        for li in range(nL):
            y = np.array([c["savedBytes"]["perLayerList"][li] for c in cs], dtype=float)
            coef, *_ = np.linalg.lstsq(A, y, rcond=None)
            rc = np.round(coef * 2) / 2
            if not np.all(A @ rc == y):
                bad.append((key, li))
            layers.append({n: (int(v) if float(v).is_integer() else float(v)) for n, v in zip(names, rc) if v != 0})
        out[key] = dict(points=len(cs), rank=int(np.linalg.matrix_rank(A)), terms=names, layers=layers)
    return out, bad


_F = None


def load_cases(path):
    """Cases of a golden.json with familyConfigDefaults merged back into each config."""
    d = json.load(open(path))
    for c in d["cases"]:
        c["config"] = {**d.get("familyConfigDefaults", {}).get(c["family"], {}), **c["config"]}
    return d["cases"]


def formula_per_layer(case):
    global _F
    if _F is None:
        if not os.path.exists(FORMULA_FILE):
            return None
        with open(FORMULA_FILE) as fh:
            _F = json.load(fh)
    ent = _F.get(group_key(case))
    if ent is None:
        return None
    T = terms(case)
    res = []
    for co in ent["layers"]:
        v = sum(c * T[t] for t, c in co.items())
        res.append(int(v) if float(v).is_integer() else v)
    return res


def pretty(co):
    parts = []
    for t, c in co.items():
        parts.append(f"{c:g}*{TERM_DOC[t]}")
    return " + ".join(parts) if parts else "0"


if __name__ == "__main__":
    import sys
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.dirname(HERE)), "test", "fixtures", "activations", "golden.json")
    out, bad = fit(load_cases(path))
    with open(FORMULA_FILE, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
    print(f"{len(out)} groups, {len(bad)} layer fits not exact")
    for k, li in bad:
        print("  NOT EXACT", k, "layer", li, out[k]["layers"][li], "rank", out[k]["rank"], "of", len(out[k]["terms"]))


def markdown(path=FORMULA_FILE):
    """Formula table for README.md."""
    F = json.load(open(path))
    lines = ["| family | dtype | attention | checkpointing | lora | bytes per layer |", "|---|---|---|---|---|---|"]
    for key in sorted(F):
        fam, dt, at, ck, lo = key.split("|")
        lay = F[key]["layers"]
        uniq = []
        for i, co in enumerate(lay):
            if not uniq or uniq[-1][1] != co:
                uniq.append((i, co))
        if len(uniq) == 1:
            txt = pretty(uniq[0][1])
        else:
            txt = "<br>".join(f"layer {i}{'+' if j == len(uniq) - 1 and i < len(lay) - 1 else ''}: {pretty(co)}" for j, (i, co) in enumerate(uniq))
        lines.append(f"| {fam} | {dt} | {at} | {ck} | {lo} | {txt} |")
    return "\n".join(lines)
