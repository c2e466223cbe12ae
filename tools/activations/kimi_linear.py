#!/usr/bin/python3
"""Ground truth: bytes that Kimi Linear's (Hugging Face model_type `kimi_linear`;
moonshotai/Kimi-Linear-48B-A3B-Instruct and -Base) MLA token mixer, MoE block and dense MLP save for backward when
Axolotl trains the model.

Axolotl does not run the Hub's remote code (its KimiSparseMoeBlock raises NotImplementedError in training mode): it
redirects transformers' dynamic-module loading to its own copies (`patch_kimi_linear.py`: `get_class_in_module` is
patched so that "configuration_kimi" / "modeling_kimi" / "tokenization_kimi" resolve to the in-tree files). Mirrored:

* axolotl-ai-cloud/axolotl src/axolotl/model_support/kimi_linear/modeling_kimi.py
  @ 33fff91afdc0027d7fe93381d7bd21594365d96b (the newest stored; the KDA layer takes position_ids / cu_seqlens for
  sample packing and the model forwards position_ids to every layer), also
  @ d9cc0b5a64855be9f34bf90d046bc443c00d57fc and the older location
  src/axolotl/monkeypatch/models/kimi_linear/modeling_kimi.py @ 1e4d015475e3f5d48e6fb5517484f0bfd08b96bd: the
  KimiMLAAttention, KimiSparseMoeBlock, KimiBlockSparseMLP, KimiMLP and KimiRMSNorm measured here are the same in all
  three ("Adapted Kimi-Linear modeling to enable MoE differentiable", from the Hub's modeling_kimi.py rev 6e163f3).
  patch_kimi_linear.py @ 35a29dbf19b0d1274d18a68708ec602b131b6612 (model_support) and
  @ 97f1b1758d699ecdef88f296ace8cfed9d5bdfec / 001f4205f39d0178963abb8c74b66d27b6ca71c9 (monkeypatch): loading
  redirection only, no change of modules.
  - KimiMLAAttention (mla_use_nope; q_lora_rank must be None): q_proj (h -> H*(nope+rope)), view / transpose, split;
    kv_a_proj_with_mqa (h -> r+rope), split; kv_b_proj(kv_a_layernorm(k_pass)) (r -> H*(nope+dv)), split into k_pass /
    value; k_rot (b, 1, s, rope) expanded over the heads; q = cat(q_pass, q_rot), k = cat(k_pass, k_rot): NO rotary
    embedding at all (NoPE; the rope dims are only concatenated). flash_attention_2 with dq = nope+rope != dv:
    value F.pad'ed to dq, output sliced back to dv, reshape(b, s, -1).contiguous(), o_proj. scaling dq^-0.5.
  - KimiLinearModel.__init__ forces config._attn_implementation = "flash_attention_2" (any other value is "ignored"
    with a warning), so flash_attention_2 is the only path Axolotl runs; `eager` (the file's eager_attention_forward)
    is measured as an unreachable reference. sdpa is never selected.
  - KimiSparseMoeBlock in training mode: KimiMoEGate = F.linear(x.type(fp32), weight.type(fp32)) -> fp32 logits
    (T, E); route_tokens_to_experts (training branch): F.softmax(logits, -1, dtype=fp32) over ALL experts, torch.topk(K,
    sorted=False) (the sigmoid scoring, e_score_correction_bias and group selection are inference-only), then
    (K > 1 and moe_renormalize) w / (w.sum(-1, keepdim) + 1e-20), then * routed_scaling_factor (fp32 weights);
    _training_forward: argsort(flat idx), inverse argsort, arange(T).repeat_interleave(K), shuffled_tokens =
    x[token_indices[sorted]], shuffled_weights = w.view(-1)[sorted].unsqueeze(-1) (fp32), a Python loop over all E
    experts (KimiBlockSparseMLP: w2(silu(w1(x)) * w3(x)), separate nn.Linear modules) on contiguous slices of
    shuffled_tokens, torch.cat, `cat * shuffled_weights` (bf16 * fp32 -> fp32 (S, h)), [inverse_permutation],
    view(T, K, h).sum(1) (fp32); + shared_experts (KimiMLP of width moe_intermediate_size * num_shared_experts) -> the
    block returns fp32. No aux loss unless output_router_logits is passed.
  - KimiMLP (layer 0, first_k_dense_replace = 1): down_proj(silu(gate_proj(x)) * up_proj(x)).
  - KimiRMSNorm: x.to(fp32), pow(2).mean(-1), * rsqrt(var + eps), weight * y.to(input_dtype).
* transformers' flash path (integrations/flash_attention.py, modeling_flash_attention_utils.py, 4.56-4.57 / 5.x):
  q / k / v transposed to (b, s, H, d); `_flash_attention_forward` takes one of three branches:
  - `fa2`: no mask, no packed position ids -> flash_attn_func on the (b, s, H, d) views (no copy; the last dim is
    contiguous): saves q, k, v (the cat outputs and the padded v), out_padded (b, s, H, dq), softmax_lse fp32
    (b, H, s) and rng_state (int64 (2,), always allocated by mha_fwd).
  - `fa2_posids`: packed position ids with batch size 1 (`_is_packed_sequence` requires bsz == 1):
    `_prepare_from_posids` makes contiguous (T, H, d) copies of q / k / v, `prepare_fa_kwargs_from_position_ids` one
    int32 cu_seqlens tensor (D+1 for D documents, used as both cu_seqlens_q and _k), flash_attn_varlen_func saves
    q, k, v, out_padded, softmax_lse fp32 (H, T), cu_seqlens_q, cu_seqlens_k, rng_state.
  - `fa2_mask`: a 2-D attention mask with padding (Axolotl's pad_to_sequence_len: true leaves zeros at the row ends;
    an all-nonzero mask is dropped to None by masking_utils.flash_attention_mask): `_upad_input` indexes q / k / v
    with one int64 index of the T' unpadded tokens (saved once; `_pad_input`'s index_put saves the same tensor),
    cu_seqlens int32, varlen kernel on T' tokens. Emulated with one cu_seqlens entry per document (Axolotl's
    get_unpad_data; masking_utils turns the mask to bool first, which gives one per row: 4 bytes per entry either way).
  The kernels are emulated by autograd Functions that save exactly those tensors (fp32 math inside, causal per doc).
* bitsandbytes 8-bit (load_in_8bit in Axolotl's example; every nn.Linear incl. each routed expert's w1 / w2 / w3
  becomes Linear8bitLt, the router weight is a bare nn.Parameter and stays 16-bit): MatMul8bitLt keeps
  `ctx.tensors = (CAt, subA, A)` whenever an input needs a gradient, i.e. it keeps every frozen linear's input alive
  (a ctx attribute, invisible to saved-tensor hooks). Params mode `int8` emulates that by saving the input of every
  nn.Linear (frozen weights); subA (the outlier columns, fp16, data-dependent, threshold 6.0) is left out.
* Not emulated, for the estimator: (1) the MoE block returns fp32 (the fp32 routing weights promote the routed sum), so
  from the first MoE layer on the residual stream, every later norm output and every block input are fp32; bf16
  linears then need autocast (the HF Trainer's bf16 mixed precision, on in Axolotl's bf16 runs) or 8-bit layers.
  The norms save the same bytes (their fp32 copy is the fp32 input itself), but checkpointed layer inputs are
  4 B/element and trainable linears keep autocast's bf16 copies of their inputs. (2) PEFT LoRA adapters' own saved
  tensors (dropout mask, adapter inputs) on the matched modules. (3) The KDA mixer (chunk_kda, fla).
* Packing: the older copies (1e4d015, d9cc0b5) do not pass position_ids to the decoder layers, so MLA never takes the
  fa2_posids branch there; Axolotl's micro_batch_size 2 also rules it out (bsz == 1 only). With pad_to_sequence_len
  the row-end padding sends MLA down fa2_mask; without padding it runs fa2 over whole packed rows.

Conventions follow gated_deltanet.py / nemotron_moe.py (gdn.prepare / gdn.Recorder / gdn.summarize / gdn.write_cases):
every saved tensor's storage counted once by its full nbytes (a saved view costs its whole storage), parameters (and
views of them) and 0-dim scalars reported apart. bf16 model without autocast, no gradient checkpointing. params:
`frozen` (LoRA-style: only the block input requires grad), `trainable` (every weight), `int8` (frozen + bnb 8-bit's
kept linear inputs). torch 1.13 saves what torch 2.x saves for every op used (mm's per-input guard, pow its input,
rsqrt its result, mul / div both operands as needed, softmax its result, topk / index their indices, silu its input,
bmm both operands); the mean of the norms uses gated_deltanet's PyTorch >= 2 MeanBackward.

Run with Debian's torch (1.13, CPU): /usr/bin/python3 tools/activations/kimi_linear.py [--quick] [--tensors] [--out F]
Prints one JSON line per case with the measured bytes, formula_bytes() (term by term) and closed_form() (the compact
forms of closed_form_text()); exits 1 unless all three agree everywhere.
Last full run (Debian torch 1.13.0a0, CPU, 2 threads, ~8 s): "formula check: 105/105 cases reproduced exactly"
(MLA 60: fa2 15, fa2_posids 12, fa2_mask 21, eager 12; MoE 24, two points with forced routing; dense MLP 21), incl.
the full-width Kimi-Linear-48B MLA point (fa2 frozen 51332.5 B/token at b=1, s=32: 51332*T + 16), a 16-expert MoE
at the 48B widths and the 48B dense layer; kimi_param_count() = 49,122,681,728 = the index's total_parameters.
"""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gated_deltanet as gdn  # noqa: E402  (same folder: prepare / record / Recorder / summarize / mean_lastdim)

HF_SOURCES = {
    "axolotl_modeling": "axolotl-ai-cloud/axolotl src/axolotl/model_support/kimi_linear/modeling_kimi.py"
                        "@33fff91afdc0027d7fe93381d7bd21594365d96b (same MLA / MoE / MLP @ "
                        "d9cc0b5a64855be9f34bf90d046bc443c00d57fc and src/axolotl/monkeypatch/models/kimi_linear/"
                        "modeling_kimi.py@1e4d015475e3f5d48e6fb5517484f0bfd08b96bd)",
    "axolotl_config": "axolotl-ai-cloud/axolotl src/axolotl/monkeypatch/models/kimi_linear/configuration_kimi.py"
                      "@318f8bb03cf0b080d86a36c72b4514762a8572bf",
    "axolotl_patch": "axolotl-ai-cloud/axolotl src/axolotl/model_support/kimi_linear/patch_kimi_linear.py"
                     "@35a29dbf19b0d1274d18a68708ec602b131b6612; src/axolotl/monkeypatch/models/kimi_linear/"
                     "patch_kimi_linear.py@97f1b1758d699ecdef88f296ace8cfed9d5bdfec (dynamic-module redirection only)",
    "axolotl_example": "axolotl-ai-cloud/axolotl examples/kimi-linear/kimi-48b-lora.yaml"
                       "@3755ad7039350af7381dc42576d010f1fa35784d, README.md@84ec42debce54b18eb4c2d6b68885dacd699a346"
                       " ('This config uses about 98.7GiB VRAM')",
    "transformers_flash": "huggingface/transformers src/transformers/modeling_flash_attention_utils.py"
                          "@7713be1e51fbf31eb2c5eb27624369e08af29243 (_flash_attention_forward, _upad_input, "
                          "_prepare_from_posids, _is_packed_sequence bsz == 1)",
    "flash_attn": "Dao-AILab/flash-attention flash_attn/flash_attn_interface.py"
                  "@88c4e5dbf677dd184cf953599414e0be622835e1: FlashAttnFunc saves (q, k, v, "
                  "out_padded, softmax_lse, rng_state); FlashAttnVarlenFunc adds cu_seqlens_q, cu_seqlens_k",
    "bitsandbytes": "bitsandbytes autograd/_functions.py MatMul8bitLt.forward: ctx.tensors = (CAt, subA, A) if any "
                    "input needs a gradient",
    "checkpoint_index": "pmains/kimi-linear-48b-ssd-streaming refs/kimi-linear/model.safetensors.index.json"
                        "@2b254efd1a17a293843857ac84ec144051983aa7 (copy of the Instruct repo's index: total_parameters"
                        " 49122681728, total_size 98245528576)",
}

# Kimi-Linear-48B-A3B-Instruct config.json (values as copied in the sources named in KIMI_48B_SOURCES)
KIMI_48B = dict(
    hidden_size=2304, num_hidden_layers=27, vocab_size=163840, num_attention_heads=32, num_key_value_heads=32,
    head_dim=72, q_lora_rank=None, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
    mla_use_nope=True, intermediate_size=9216, moe_intermediate_size=1024, num_experts=256, num_experts_per_token=8,
    num_shared_experts=1, first_k_dense_replace=1, moe_layer_freq=1, num_expert_group=1, topk_group=1,
    use_grouped_topk=True, moe_renormalize=True, moe_router_activation_func="sigmoid", routed_scaling_factor=2.446,
    tie_word_embeddings=False, hidden_act="silu", rms_norm_eps=1e-5, rope_theta=10000.0, rope_scaling=None,
    model_max_length=1048576, num_nextn_predict_layers=0, torch_dtype="bfloat16",
    bos_token_id=163584, eos_token_id=163586, pad_token_id=163839,
    linear_attn_config=dict(head_dim=128, num_heads=32, short_conv_kernel_size=4,
                            kda_layers=[1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26],
                            full_attn_layers=[4, 8, 12, 16, 20, 24, 27]),
)
KIMI_48B_SOURCES = (
    "no max_position_embeddings key (transformers' KimiLinearConfig maps it to model_max_length = 1048576); "
    "head_dim 72 is the legacy hidden/heads field, unused by the modeling. Copies of the Hub config.json: "
    "an MLX test's kimiConfig (find 'static let kimiConfig'), REFERENCE of a static checker pinned to cyankiwi AWQ "
    "config.json@5d029d1844aa64ec302e14466be7d0353c6e697f, pmains/kimi-linear-48b-ssd-streaming "
    "benchmarks/results/phase-02-static-inventory.json@2b254efd1a17a293843857ac84ec144051983aa7, transformers "
    "configuration_kimi_linear.py@0bc4dd0d6a7cbd5dee2280a076b8ea89e8af22cd defaults")


def kimi_param_count(c=KIMI_48B):
    """Exact parameter count of Axolotl's KimiLinearForCausalLM for a config (every nn.Parameter, incl. the router's
    e_score_correction_bias, which is an nn.Parameter that training never uses)."""
    h, V, L = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"]
    la = c["linear_attn_config"]
    kd, kh, kc = la["head_dim"], la["num_heads"], la["short_conv_kernel_size"]
    P = kd * kh
    H, r, nope, rope, dv = (c["num_attention_heads"], c["kv_lora_rank"], c["qk_nope_head_dim"],
                            c["qk_rope_head_dim"], c["v_head_dim"])
    E, Im, ns, I = c["num_experts"], c["moe_intermediate_size"], c["num_shared_experts"], c["intermediate_size"]
    kda = {"q_proj,k_proj,v_proj": 3 * h * P, "q/k/v_conv1d (P,1,K)": 3 * P * kc, "A_log (1,1,heads,1)": kh,
           "f_a_proj": h * kd, "f_b_proj": kd * P, "dt_bias": P, "b_proj": h * kh, "g_a_proj": h * kd,
           "g_b_proj": kd * P, "o_norm": kd, "o_proj": P * h}
    mla = {"q_proj": h * H * (nope + rope), "kv_a_proj_with_mqa": h * (r + rope), "kv_a_layernorm": r,
           "kv_b_proj": r * H * (nope + dv), "o_proj": H * dv * h}
    moe = {"gate.weight": E * h, "gate.e_score_correction_bias": E, "experts (w1,w2,w3)": E * 3 * h * Im,
           "shared_experts": 3 * h * Im * ns}
    dense = {"gate_proj,up_proj,down_proj": 3 * h * I}
    n_kda = sum(1 for i in range(L) if (i + 1) in la["kda_layers"])
    n_mla = L - n_kda
    n_moe = sum(1 for i in range(L) if i >= c["first_k_dense_replace"] and i % c["moe_layer_freq"] == 0)
    n_dense = L - n_moe
    parts = {
        "embed_tokens": V * h,
        "lm_head": 0 if c["tie_word_embeddings"] else V * h,
        "final norm": h,
        "decoder norms (2 per layer)": 2 * h * L,
        f"KDA mixers ({n_kda} x {sum(kda.values())})": n_kda * sum(kda.values()),
        f"MLA mixers ({n_mla} x {sum(mla.values())})": n_mla * sum(mla.values()),
        f"dense MLP ({n_dense} x {sum(dense.values())})": n_dense * sum(dense.values()),
        f"MoE routed experts ({n_moe} x {moe['experts (w1,w2,w3)']})": n_moe * moe["experts (w1,w2,w3)"],
        f"MoE shared experts ({n_moe} x {moe['shared_experts']})": n_moe * moe["shared_experts"],
        f"MoE router weight + e_score_correction_bias ({n_moe} x {E * h + E})": n_moe * (E * h + E),
    }
    return sum(parts.values()), parts, dict(kda=kda, mla=mla, moe=moe, dense=dense)


def lora_param_count(c=KIMI_48B, r=16, targets=("gate_proj", "down_proj", "up_proj", "q_proj", "v_proj", "k_proj",
                                                  "o_proj")):
    """LoRA parameters PEFT adds for examples/kimi-linear/kimi-48b-lora.yaml: target names match module-name suffixes,
    so the routed experts (w1 / w2 / w3) and kv_a_proj_with_mqa / kv_b_proj / f_* / g_* / b_proj get none."""
    h = c["hidden_size"]
    la = c["linear_attn_config"]
    P = la["head_dim"] * la["num_heads"]
    H, dq, dv = c["num_attention_heads"], c["qk_nope_head_dim"] + c["qk_rope_head_dim"], c["v_head_dim"]
    Im, ns, I = c["moe_intermediate_size"], c["num_shared_experts"], c["intermediate_size"]
    L = c["num_hidden_layers"]
    mods = {"kda": {"q_proj": (h, P), "k_proj": (h, P), "v_proj": (h, P), "o_proj": (P, h)},
            "mla": {"q_proj": (h, H * dq), "o_proj": (H * dv, h)},
            "dense": {"gate_proj": (h, I), "up_proj": (h, I), "down_proj": (I, h)},
            "shared": {"gate_proj": (h, Im * ns), "up_proj": (h, Im * ns), "down_proj": (Im * ns, h)}}
    per = {k: sum(r * (i + o) for n, (i, o) in v.items() if n in targets) for k, v in mods.items()}
    n_kda = sum(1 for i in range(L) if (i + 1) in la["kda_layers"])
    n_moe = sum(1 for i in range(L) if i >= c["first_k_dense_replace"] and i % c["moe_layer_freq"] == 0)
    counts = {"kda": n_kda, "mla": L - n_kda, "dense": L - n_moe, "shared": n_moe}
    return sum(per[k] * counts[k] for k in per), {k: f"{counts[k]} x {per[k]}" for k in per}


# ----------------------------------------------------------------------------------------
# FlashAttention-2 emulation (flash_attn_func / flash_attn_varlen_func)
# ----------------------------------------------------------------------------------------
def _causal_attn(q, k, v, scale):
    """q, k, v (n, H, d) of one sequence -> (out (n, H, d) fp32, lse (H, n) fp32)."""
    sc = torch.einsum("qhd,khd->hqk", q.float(), k.float()) * scale
    n = q.shape[0]
    sc = sc.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    lse = torch.logsumexp(sc, -1)
    out = torch.einsum("hqk,khd->qhd", torch.softmax(sc, -1), v.float())
    return out, lse


class FlashAttnFunc(torch.autograd.Function):
    """flash_attn_func on (b, s, H, d): saves q, k, v (as given: maybe_contiguous only copies when the last stride
    is not 1), out_padded (b, s, H, d), softmax_lse fp32 (b, H, s), rng_state int64 (2,)."""

    @staticmethod
    def forward(ctx, q, k, v, scale):
        b, s, H, d = q.shape
        out = torch.empty(b, s, H, d, dtype=q.dtype)
        lse = torch.empty(b, H, s, dtype=torch.float32)
        for i in range(b):
            o, l_ = _causal_attn(q[i], k[i], v[i], scale)
            out[i] = o.to(q.dtype)
            lse[i] = l_
        rng_state = torch.zeros(2, dtype=torch.int64)
        ctx.save_for_backward(q, k, v, out, lse, rng_state)
        ctx.scale = scale
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse, _ = ctx.saved_tensors
        gq, gk, gv = [], [], []
        for i in range(q.shape[0]):
            g = _attn_grads(q[i], k[i], v[i], dout[i], ctx.scale)
            gq.append(g[0]), gk.append(g[1]), gv.append(g[2])
        return torch.stack(gq), torch.stack(gk), torch.stack(gv), None


class FlashAttnVarlenFunc(torch.autograd.Function):
    """flash_attn_varlen_func on (T, H, d) with int32 cu_seqlens: saves q, k, v, out_padded (T, H, d),
    softmax_lse fp32 (H, T), cu_seqlens_q, cu_seqlens_k, rng_state int64 (2,)."""

    @staticmethod
    def forward(ctx, q, k, v, cu_q, cu_k, scale):
        T, H, d = q.shape
        out = torch.empty(T, H, d, dtype=q.dtype)
        lse = torch.empty(H, T, dtype=torch.float32)
        cu = cu_q.tolist()
        for a, e in zip(cu[:-1], cu[1:]):
            o, l_ = _causal_attn(q[a:e], k[a:e], v[a:e], scale)
            out[a:e] = o.to(q.dtype)
            lse[:, a:e] = l_
        rng_state = torch.zeros(2, dtype=torch.int64)
        ctx.save_for_backward(q, k, v, out, lse, cu_q, cu_k, rng_state)
        ctx.scale = scale
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse, cu_q, cu_k, _ = ctx.saved_tensors
        gq, gk, gv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        cu = cu_q.tolist()
        for a, e in zip(cu[:-1], cu[1:]):
            g = _attn_grads(q[a:e], k[a:e], v[a:e], dout[a:e], ctx.scale)
            gq[a:e], gk[a:e], gv[a:e] = g
        return gq, gk, gv, None, None, None


def _attn_grads(q, k, v, dout, scale):
    with torch.enable_grad():
        qq, kk, vv = [t.detach().float().requires_grad_() for t in (q, k, v)]
        o, _ = _causal_attn(qq, kk, vv, scale)
        g = torch.autograd.grad(o, (qq, kk, vv), dout.float())
    return tuple(x.to(q.dtype) for x in g)


def cu_seqlens_of(docs):
    """int32 cumulative lengths over the flattened documents (docs: list of rows, each a list of lengths)."""
    lens = [n for row in docs for n in row]
    return torch.tensor([0] + list(torch.tensor(lens).cumsum(0).tolist()), dtype=torch.int32)


def flash_attention_forward(q, k, v, scale, impl, docs=None, pad=0):
    """transformers' flash_attention_forward + _flash_attention_forward (q, k, v: (b, H, s, d)) -> (b, s, H, d)."""
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    b, s, H, d = q.shape
    if impl == "fa2":
        return FlashAttnFunc.apply(q, k, v, scale)
    if impl == "fa2_posids":  # _prepare_from_posids: contiguous (T, H, d) copies; one cu_seqlens tensor for q and k
        assert b == 1
        qq = q.contiguous().view(-1, H, d)
        kk = k.contiguous().view(-1, H, d)
        vv = v.contiguous().view(-1, H, d)
        cu = cu_seqlens_of(docs)
        out = FlashAttnVarlenFunc.apply(qq, kk, vv, cu, cu, scale)
        return out.view(b, -1, H, d)
    if impl == "fa2_mask":  # _upad_input / _pad_input with the unpadded-token index (pad tokens at each row's end)
        keep = torch.ones(b, s, dtype=torch.bool)
        if pad:
            keep[:, s - pad:] = False
        indices = torch.nonzero(keep.flatten(), as_tuple=False).flatten()
        kk = k.reshape(-1, H, d)[indices]
        vv = v.reshape(-1, H, d)[indices]
        qq = q.reshape(-1, H, d)[indices]
        cu = cu_seqlens_of(docs)
        out_unpad = FlashAttnVarlenFunc.apply(qq, kk, vv, cu, cu, scale)
        output = torch.zeros(b * s, H, d, dtype=out_unpad.dtype)
        output[indices] = out_unpad
        return output.view(b, s, H, d)
    raise ValueError(impl)


def eager_attention_forward(q, k, v, mask, scale):
    """modeling_kimi.eager_attention_forward (num_key_value_groups 1: repeat_kv is the identity), dropout 0."""
    w = torch.matmul(q, k.transpose(2, 3)) * scale
    w = w + mask[:, :, :, : k.shape[-2]]
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    o = torch.matmul(w, v)
    return o.transpose(1, 2).contiguous()


def causal_float_mask(b, s, dtype):
    m = torch.full((s, s), torch.finfo(dtype).min, dtype=dtype).triu(1)
    return m[None, None].expand(b, 1, -1, -1).clone()


# ----------------------------------------------------------------------------------------
# modules (Axolotl's modeling_kimi.py)
# ----------------------------------------------------------------------------------------
class _Int8MatMul(torch.autograd.Function):
    """bitsandbytes MatMul8bitLt with a frozen Int8Params weight: the input A is kept for backward whenever it
    needs a gradient (ctx.tensors = (CAt, subA, A)); emulated by saving A (subA, the outlier columns, left out)."""

    @staticmethod
    def forward(ctx, a, w):
        ctx.save_for_backward(a if ctx.needs_input_grad[0] else None)
        ctx.w = w
        return F.linear(a, w)

    @staticmethod
    def backward(ctx, g):
        return g @ ctx.w.to(g.dtype), None


class Linear(nn.Linear):
    """nn.Linear(bias=False); with int8=True, bitsandbytes Linear8bitLt's saved state (see _Int8MatMul)."""

    int8 = False

    def __init__(self, i, o):
        super().__init__(i, o, bias=False)

    def forward(self, x):
        if Linear.int8:
            return _Int8MatMul.apply(x, self.weight)
        return F.linear(x, self.weight)


class KimiRMSNorm(nn.Module):
    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def forward(self, x):
        input_dtype = x.dtype
        x = x.to(torch.float32)
        variance = gdn.mean_lastdim(x.pow(2))
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(input_dtype)


class KimiMLAAttention(nn.Module):
    def __init__(self, pt, impl):
        super().__init__()
        h, H = pt["hidden"], pt["H"]
        self.H, self.r, self.nope, self.rope, self.dv = H, pt["r"], pt["nope"], pt["rope"], pt["dv"]
        self.dq = self.nope + self.rope
        self.scaling = self.dq ** -0.5
        self.impl, self.docs, self.pad = impl, pt.get("docs"), pt.get("pad", 0)
        self.q_proj = Linear(h, H * self.dq)
        self.kv_a_proj_with_mqa = Linear(h, self.r + self.rope)
        self.kv_a_layernorm = KimiRMSNorm(self.r)
        self.kv_b_proj = Linear(self.r, H * (self.nope + self.dv))
        self.o_proj = Linear(H * self.dv, h)

    def forward(self, x):
        b, s = x.shape[:-1]
        q = self.q_proj(x).view(b, s, -1, self.dq).transpose(1, 2)
        q_pass, q_rot = torch.split(q, [self.nope, self.rope], dim=-1)
        ckv = self.kv_a_proj_with_mqa(x)
        k_pass, k_rot = torch.split(ckv, [self.r, self.rope], dim=-1)
        k_pass = self.kv_b_proj(self.kv_a_layernorm(k_pass)).view(b, s, -1, self.nope + self.dv).transpose(1, 2)
        k_pass, v = torch.split(k_pass, [self.nope, self.dv], dim=-1)
        k_rot = k_rot.view(b, 1, s, self.rope).expand(*k_pass.shape[:-1], -1)
        q = torch.cat((q_pass, q_rot), dim=-1)
        k = torch.cat((k_pass, k_rot), dim=-1)
        fa = self.impl.startswith("fa2")
        if fa and self.dq != self.dv:
            v = F.pad(v, [0, self.dq - self.dv])
        if fa:
            o = flash_attention_forward(q, k, v, self.scaling, self.impl, self.docs, self.pad)
            if self.dq != self.dv:
                o = o[:, :, :, : self.dv]
        else:
            o = eager_attention_forward(q, k, v, causal_float_mask(b, s, x.dtype), self.scaling)
        o = o.reshape(b, s, -1).contiguous()
        return self.o_proj(o)


class KimiMLP(nn.Module):
    """KimiMLP (dense layer 0 and the shared experts): gate_proj / up_proj / down_proj."""

    def __init__(self, h, inter):
        super().__init__()
        self.gate_proj, self.up_proj, self.down_proj = Linear(h, inter), Linear(h, inter), Linear(inter, h)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class KimiBlockSparseMLP(nn.Module):
    """One routed expert: w1 (gate), w2 (down), w3 (up), separate nn.Linear modules."""

    def __init__(self, h, inter):
        super().__init__()
        self.w1, self.w2, self.w3 = Linear(h, inter), Linear(inter, h), Linear(h, inter)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class KimiMoEGate(nn.Module):
    def __init__(self, E, h):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(E, h))
        self.e_score_correction_bias = nn.Parameter(torch.zeros(E))  # an nn.Parameter; unused in training

    def forward(self, x):
        h = x.shape[-1]
        x = x.view(-1, h)
        return F.linear(x.type(torch.float32), self.weight.type(torch.float32), None)


class KimiSparseMoeBlock(nn.Module):
    def __init__(self, pt):
        super().__init__()
        h, E = pt["hidden"], pt["E"]
        self.E, self.K, self.renorm, self.scale = E, pt["K"], pt.get("renorm", True), 2.446
        self.experts = nn.ModuleList([KimiBlockSparseMLP(h, pt["Im"]) for _ in range(E)])
        self.gate = KimiMoEGate(E, h)
        self.shared_experts = KimiMLP(h, pt["Is"])
        self.last_counts = None

    def route_tokens_to_experts(self, logits):
        scores = F.softmax(logits, dim=-1, dtype=torch.float32)
        topk_weight, topk_idx = torch.topk(scores, self.K, dim=-1, sorted=False)
        if self.K > 1 and self.renorm:
            denominator = topk_weight.sum(dim=-1, keepdim=True) + 1e-20
            topk_weight = topk_weight / denominator
        topk_weight = topk_weight * self.scale
        return topk_idx, topk_weight

    def forward(self, hidden_states):
        identity = hidden_states
        b, s, h = hidden_states.shape
        T = b * s
        flat = hidden_states.view(T, h)
        logits = self.gate(hidden_states)
        topk_idx, topk_weight = self.route_tokens_to_experts(logits)
        # _training_forward
        flat_topk_idx = topk_idx.view(-1)
        sorted_indices = torch.argsort(flat_topk_idx)
        inverse_permutation = torch.argsort(sorted_indices)
        token_indices = torch.arange(T).repeat_interleave(self.K)
        shuffled_tokens = flat[token_indices[sorted_indices]]
        shuffled_weights = topk_weight.view(-1)[sorted_indices].unsqueeze(-1)
        tokens_per_expert = F.one_hot(flat_topk_idx, num_classes=self.E).sum(dim=0)
        self.last_counts = tokens_per_expert.tolist()
        outs, pos = [], 0
        for i in range(self.E):
            n = tokens_per_expert[i].item()
            if n == 0:
                continue
            outs.append(self.experts[i](shuffled_tokens[pos: pos + n]))
            pos += n
        cat = torch.cat(outs, dim=0)
        weighted = cat * shuffled_weights
        unshuffled = weighted[inverse_permutation]
        final = unshuffled.view(T, self.K, h).sum(dim=1)
        final = final.view(b, s, h)
        return final + self.shared_experts(identity)


# ----------------------------------------------------------------------------------------
# measuring
# ----------------------------------------------------------------------------------------
def build(block, pt, impl):
    if block == "mla":
        return KimiMLAAttention(pt, impl)
    if block == "moe":
        return KimiSparseMoeBlock(pt)
    return KimiMLP(pt["hidden"], pt["I"])


def measure(block, pt, impl, params, want_tensors=False, seed=0):
    torch.manual_seed(seed)
    m = build(block, pt, impl)
    trainable = params == "trainable"
    x = gdn.prepare(m, pt, torch.bfloat16, trainable, seed)
    if block == "moe":
        m.gate.e_score_correction_bias.requires_grad_(False)  # never used by the training router: no gradient
        if pt.get("H"):  # force routing: feature 0 of every token is large and only the first H router rows read it
            with torch.no_grad():
                x[..., 0] = 4.0
                m.gate.weight[:, 0] = -2.0
                m.gate.weight[: pt["H"], 0] = 2.0
    Linear.int8 = params == "int8"
    try:
        tot, tensors = gdn.record(m, gdn.Recorder(m), x, lambda: m(x), False, want_tensors)
    finally:
        Linear.int8 = False
    hit = None
    if block == "moe":
        hit = sum(1 for n in m.last_counts if n > 0)
    if trainable:  # every used parameter got a finite gradient (unhit experts and the correction bias get none)
        for n_, p in m.named_parameters():
            if block == "moe" and (n_.startswith("experts.") and m.last_counts[int(n_.split(".")[1])] == 0
                                   or n_ == "gate.e_score_correction_bias"):
                continue
            assert p.grad is not None and torch.isfinite(p.grad.float()).all(), n_
    return tot, tensors, hit


# ----------------------------------------------------------------------------------------
# closed forms (bf16 model, bytes)
# ----------------------------------------------------------------------------------------
def n_docs(pt):
    return sum(len(row) for row in pt["docs"])


def mla_terms(pt, impl, params):
    """KimiMLAAttention from its input (the input_layernorm output, (b, s, h) bf16) to o_proj's output.
    T = b*s, H heads, r kv_lora_rank, dq = nope + rope, dv v_head_dim, D packed documents, P trailing pad tokens."""
    b, s, h, H, r, dv = pt["b"], pt["s"], pt["hidden"], pt["H"], pt["r"], pt["dv"]
    dq = pt["nope"] + pt["rope"]
    T = b * s
    t = {
        "kv_a_layernorm: fp32 copy of k_pass kept by pow (T x r)": 4 * T * r,
        "kv_a_layernorm: rsqrt result (fp32 T)": 4 * T,
    }
    if impl.startswith("fa2"):
        Tk = T - (b * pt.get("pad", 0) if impl == "fa2_mask" else 0)  # tokens the kernel sees
        t["flash q (bf16 T x H x dq; cat output, or its varlen copy)"] = 2 * Tk * H * dq
        t["flash k (bf16 T x H x dq)"] = 2 * Tk * H * dq
        t["flash v, F.pad'ed to dq (bf16 T x H x dq)"] = 2 * Tk * H * dq
        t["flash out_padded (bf16 T x H x dq)"] = 2 * Tk * H * dq
        t["flash softmax_lse (fp32 H x T)"] = 4 * Tk * H
        t["flash rng_state (int64 x 2)"] = 16
        if impl in ("fa2_posids", "fa2_mask"):
            t["cu_seqlens (int32 D+1, shared by q and k)"] = 4 * (n_docs(pt) + 1)
        if impl == "fa2_mask":
            t["unpad index (int64 T'), kept by the q/k/v gathers and _pad_input's index_put"] = 8 * Tk
    else:  # eager (unreachable in Axolotl: the model forces flash_attention_2)
        t["matmul q (bf16 T x H x dq)"] = 2 * T * H * dq
        t["matmul k (bf16 T x H x dq)"] = 2 * T * H * dq
        t["softmax result (fp32 b x H x s x s)"] = 4 * b * H * s * s
        t["probs .to(bf16) kept by matmul (b x H x s x s)"] = 2 * b * H * s * s
        if b == 1:  # matmul folds (1, H, s, dv) to (H, s, dv) as a view: bmm keeps the whole kv_b_proj output
            t["kv_b_proj output (k_pass and v, bf16 T x H x (nope + dv)) kept by the PV bmm"] = \
                2 * T * H * (pt["nope"] + dv)
        else:
            t["contiguous (b*H, s, dv) copy of v made by matmul's bmm fold (bf16 T x H x dv)"] = 2 * T * H * dv
    if params in ("trainable", "int8"):
        t["x kept by q_proj and kv_a_proj_with_mqa (bf16 T x h)"] = 2 * T * h
        t["kv_b_proj input = kv_a_layernorm output (bf16 T x r)"] = 2 * T * r
        t["o_proj input (bf16 T x H x dv)"] = 2 * T * H * dv
    if params == "trainable":
        t["kv_a_layernorm: normalized bf16 kept by the weight mul (T x r)"] = 2 * T * r
    return t


def moe_terms(pt, params):
    """KimiSparseMoeBlock (training) from its input (post_attention_layernorm output, bf16) to routed + shared.
    T tokens, K top-k, S = T*K routed pairs, E experts, h hidden, Im expert width, Is shared width."""
    T = pt["b"] * pt["s"]
    K, E, h, Im, Is = pt["K"], pt["E"], pt["hidden"], pt["Im"], pt["Is"]
    S = T * K
    t = {
        "router weight.type(fp32) copy kept by the logits mm (E x h)": 4 * E * h,
        "softmax over all experts (fp32 T x E)": 4 * T * E,
        "topk indices (int64 T x K)": 8 * S,
    }
    if K > 1 and pt.get("renorm", True):
        t["renormalize: topk values + denominator kept by the div (fp32)"] = 4 * S + 4 * T
    t["token_indices[sorted] kept by x[...] (int64 S)"] = 8 * S
    t["sorted_indices kept by weight[...] (int64 S)"] = 8 * S
    t["inverse_permutation kept by weighted[...] (int64 S)"] = 8 * S
    t["experts: w1 output = silu input (bf16 S x Im)"] = 2 * S * Im
    t["experts: silu output (bf16 S x Im)"] = 2 * S * Im
    t["experts: w3 output (bf16 S x Im)"] = 2 * S * Im
    t["cat of expert outputs kept by the fp32 weight mul (bf16 S x h)"] = 2 * S * h
    t["shuffled_weights (fp32 S)"] = 4 * S
    t["shared: gate_proj output, silu output, up_proj output (bf16 3 x T x Is)"] = 6 * T * Is
    if params in ("trainable", "int8"):
        t["shuffled_tokens kept by every w1 / w3 (its slices) (bf16 S x h)"] = 2 * S * h
        t["experts: w2 input = silu*up (bf16 S x Im)"] = 2 * S * Im
        t["block input x kept by shared gate_proj / up_proj (bf16 T x h)"] = 2 * T * h
        t["shared: down_proj input (bf16 T x Is)"] = 2 * T * Is
    if params == "trainable":
        t["router x.type(fp32) kept for the router weight grad (T x h)"] = 4 * T * h
    return t


def mlp_terms(pt, params):
    T = pt["b"] * pt["s"]
    h, I = pt["hidden"], pt["I"]
    t = {"gate_proj output = silu input, silu output, up_proj output (bf16 3 x T x I)": 6 * T * I}
    if params in ("trainable", "int8"):
        t["x kept by gate_proj / up_proj (bf16 T x h)"] = 2 * T * h
        t["down_proj input (bf16 T x I)"] = 2 * T * I
    return t


def formula_terms(block, pt, impl, params):
    if block == "mla":
        return mla_terms(pt, impl, params)
    if block == "moe":
        return moe_terms(pt, params)
    return mlp_terms(pt, params)


def formula_bytes(block, pt, impl, params):
    return sum(formula_terms(block, pt, impl, params).values())


def closed_form(block, pt, impl, params):
    """The same bytes collected into the compact forms of closed_form_text()."""
    b, s, h = pt["b"], pt["s"], pt["hidden"]
    T = b * s
    kept = params in ("trainable", "int8")
    if block == "mla":
        H, r, dv = pt["H"], pt["r"], pt["dv"]
        dq = pt["nope"] + pt["rope"]
        n = T * (4 * r + 4)
        if impl.startswith("fa2"):
            Tk = T - (b * pt.get("pad", 0) if impl == "fa2_mask" else 0)
            n += Tk * H * (8 * dq + 4) + 16
            if impl in ("fa2_posids", "fa2_mask"):
                n += 4 * (n_docs(pt) + 1)
            if impl == "fa2_mask":
                n += 8 * Tk
        else:
            n += T * H * (4 * dq + 2 * dv + (2 * pt["nope"] if b == 1 else 0)) + 6 * b * H * s * s
        if kept:
            n += T * (2 * h + 2 * r + 2 * H * dv)
        if params == "trainable":
            n += 2 * T * r
        return n
    if block == "moe":
        K, E, Im, Is = pt["K"], pt["E"], pt["Im"], pt["Is"]
        S = T * K
        ren = K > 1 and pt.get("renorm", True)
        n = S * (36 + (4 if ren else 0) + 6 * Im + 2 * h) + T * (4 * E + (4 if ren else 0) + 6 * Is) + 4 * E * h
        if kept:
            n += S * (2 * h + 2 * Im) + T * (2 * h + 2 * Is)
        if params == "trainable":
            n += 4 * T * h
        return n
    I = pt["I"]
    return T * (6 * I) + (T * (2 * h + 2 * I) if kept else 0)


def closed_form_text():
    return {
        "mla fa2 frozen": "T*(4*r + 4) + T*H*(8*dq + 4) + 16   [dq = qk_nope + qk_rope; q, k, padded v, out in bf16 at"
                          " width dq, lse fp32, rng_state 16 B]",
        "mla fa2_posids frozen": "mla fa2 frozen + 4*(D + 1)   [D packed documents; batch size 1 only]",
        "mla fa2_mask frozen": "T*(4*r + 4) + T'*H*(8*dq + 4) + 16 + 4*(D + 1) + 8*T'   [T' = unpadded tokens]",
        "mla eager frozen (unreachable in Axolotl)": "T*(4*r + 4) + T*H*(4*dq + 2*dv) + 6*b*H*s^2   [b = 1: "
                                                     "+ 2*T*H*nope, the PV bmm keeps a view of the whole kv_b_proj "
                                                     "output]",
        "mla int8 (bitsandbytes keeps linear inputs)": "frozen + T*(2*h + 2*r + 2*H*dv)",
        "mla trainable": "frozen + T*(2*h + 4*r + 2*H*dv)",
        "moe frozen": "S*(40 + 6*Im + 2*h) + T*(4*E + 4 + 6*Is) + 4*E*h   [S = T*K; K > 1 with moe_renormalize; else "
                      "S*(36 + ...) + T*(4*E + 6*Is)]",
        "moe int8": "moe frozen + S*(2*h + 2*Im) + T*(2*h + 2*Is)",
        "moe trainable": "moe frozen + S*(2*h + 2*Im) + T*(6*h + 2*Is)",
        "dense mlp frozen": "6*T*I",
        "dense mlp int8 / trainable": "T*(8*I + 2*h)",
        "note": "no term depends on which or how many experts receive tokens; the MoE block returns fp32 (T x h)",
    }


# ----------------------------------------------------------------------------------------
# points
# ----------------------------------------------------------------------------------------
def MLA(b, s, hidden, H, r, nope, rope, dv, docs=None, pad=0, name=None):
    if docs is None:
        docs = [[s - pad] for _ in range(b)]
    assert all(sum(row) == s - pad for row in docs)
    return dict(b=b, s=s, hidden=hidden, H=H, r=r, nope=nope, rope=rope, dv=dv, docs=docs, pad=pad, name=name)


def MOE(b, s, hidden, E, K, Im, Is, H=None, renorm=True, name=None):
    return dict(b=b, s=s, hidden=hidden, E=E, K=K, Im=Im, Is=Is, H=H, renorm=renorm, name=name)


def MLP(b, s, hidden, I, name=None):
    return dict(b=b, s=s, hidden=hidden, I=I, name=name)


MLA_POINTS = [
    MLA(1, 64, 64, 4, 32, 16, 8, 16, docs=[[20, 30, 14]]),
    MLA(2, 48, 96, 4, 48, 24, 8, 24, docs=[[16, 24], [40]], pad=8),
    MLA(1, 96, 128, 8, 32, 32, 16, 32, docs=[[50, 46]]),
    MLA(2, 40, 64, 2, 16, 16, 8, 8, docs=[[10, 10, 10, 4], [34]], pad=6, name="dv < nope"),
    MLA(1, 70, 128, 4, 64, 32, 32, 48, docs=[[70]], name="one document, dv between nope and dq"),
    MLA(2, 40, 96, 4, 32, 16, 16, 16, docs=[[20, 20], [15, 25]], name="batch 2 without padding (rope = nope)"),
    MLA(1, 32, 2304, 32, 512, 128, 64, 128, docs=[[12, 20]],
        name="Kimi-Linear-48B MLA widths (h 2304, 32 heads, r 512, nope 128, rope 64, v 128)"),
]
MLA_IMPLS = ["fa2", "fa2_posids", "fa2_mask", "eager"]

MOE_POINTS = [
    MOE(1, 64, 64, 8, 2, 48, 96),
    MOE(2, 48, 96, 16, 4, 32, 64),
    MOE(1, 100, 128, 32, 8, 64, 64, name="Kimi routing ratio (top-8, shared width = expert width), widths scaled"),
    MOE(2, 37, 80, 12, 3, 40, 72, renorm=False, name="moe_renormalize false"),
    MOE(1, 96, 64, 16, 2, 32, 64, H=4, name="forced: 4 of 16 experts hit"),
    MOE(1, 40, 64, 8, 1, 24, 48, name="top-1 (no renormalization)"),
    MOE(1, 64, 96, 24, 8, 32, 32, H=10, name="forced: 10 of 24 experts hit, top-8"),
    MOE(1, 48, 2304, 16, 8, 1024, 1024, name="Kimi-Linear-48B expert widths (h 2304, Im = Is = 1024), 16 experts"),
]

MLP_POINTS = [
    MLP(1, 64, 64, 192),
    MLP(2, 48, 96, 256),
    MLP(1, 100, 128, 512),
    MLP(2, 37, 80, 200),
    MLP(1, 64, 256, 1024),
    MLP(1, 32, 512, 2048),
    MLP(1, 16, 2304, 9216, name="Kimi-Linear-48B dense layer 0 (h 2304, I 9216)"),
]

PARAMS = ["frozen", "trainable", "int8"]


def cases(quick):
    for pt in (MLA_POINTS[:2] if quick else MLA_POINTS):
        for impl in MLA_IMPLS:
            if impl == "fa2_posids" and pt["b"] != 1:
                continue  # _is_packed_sequence needs batch size 1 (larger batches take the plain fa2 branch)
            if impl in ("fa2", "fa2_posids", "eager") and pt["pad"]:
                continue  # a padded batch carries a 2-D mask: only the _upad_input branch
            if impl == "eager" and pt["hidden"] > 1024:
                continue
            for params in PARAMS:
                yield "mla", pt, impl, params
    for pt in (MOE_POINTS[:2] if quick else MOE_POINTS):
        for params in PARAMS:
            yield "moe", pt, "axolotl", params
    for pt in (MLP_POINTS[:2] if quick else MLP_POINTS):
        for params in PARAMS:
            yield "mlp", pt, "kimi_mlp", params


DIMS = {"mla": ("b", "s", "hidden", "H", "r", "nope", "rope", "dv", "pad"),
        "moe": ("b", "s", "hidden", "E", "K", "Im", "Is", "renorm"),
        "mlp": ("b", "s", "hidden", "I")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="first 2 points of each block")
    ap.add_argument("--tensors", action="store_true", help="also print the saved-tensor list of each case")
    ap.add_argument("--out", help="also write {source, sources, closedForms, model, cases} as JSON")
    args = ap.parse_args()
    torch.set_num_threads(2)
    records, bad, n = [], 0, 0
    for block, pt, impl, params in cases(args.quick):
        tot, tensors, hit = measure(block, pt, impl, params, want_tensors=args.tensors)
        exp = formula_bytes(block, pt, impl, params)
        compact = closed_form(block, pt, impl, params)
        n += 1
        ok = tot["act"] == exp == compact
        bad += not ok
        T = pt["b"] * pt["s"]
        rec = dict(block=block, impl=impl, params=params, **{k: pt[k] for k in DIMS[block]}, T=T)
        if block == "mla":
            rec["docs"] = n_docs(pt)
        if block == "moe":
            rec["S"] = T * pt["K"]
            rec["expertsHit"] = hit
        rec.update(measured=tot["act"], formula=exp, closedForm=compact, match=ok,
                   perToken=round(tot["act"] / T, 2), savedParamBytes=tot["param"], savedScalarBytes=tot["scalar"])
        gdn.emit_case(records, rec, tensors, pt.get("name"))
    print(f"formula check: {n - bad}/{n} cases reproduced exactly", flush=True)
    total, parts, per_layer = kimi_param_count()
    assert total == 49122681728, total
    if args.out:
        gdn.write_cases(args.out, "kimi_linear.py", records, sources=HF_SOURCES, closedForms=closed_form_text(),
                        model=dict(name="moonshotai/Kimi-Linear-48B-A3B-Instruct (and -Base)", config=KIMI_48B,
                                   configSources=KIMI_48B_SOURCES, parameterCount=total, parameterBreakdown=parts,
                                   perModule=per_layer, loraR16Params=lora_param_count()[0],
                                   loraR16Breakdown=lora_param_count()[1]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
