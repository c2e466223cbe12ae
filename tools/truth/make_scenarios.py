#!/usr/bin/env python3
"""Writes the truth scenarios (tools/truth/scenarios/<suite>/<id>.vram.yaml, the estimator's format) and each
suite's harness.yaml from the matrix below. The files are committed; rerun after changing the matrix."""
import json
import os
import shutil

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "scenarios")

H, I, V = 256, 688, 4096
BASE = dict(hidden_size=H, intermediate_size=I, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=V, max_position_embeddings=2048, tie_word_embeddings=False)
# Scaled-down config.json fields of each family (real model_type, real code paths in transformers).
FAMILIES = {
    "llama": dict(BASE, model_type="llama"),
    "mistral": dict(BASE, model_type="mistral", sliding_window=None),
    "qwen2": dict(BASE, model_type="qwen2"),
    "qwen3": dict(BASE, model_type="qwen3", head_dim=64),
    "gemma2": dict(BASE, model_type="gemma2", head_dim=64, query_pre_attn_scalar=64, sliding_window=4096, tie_word_embeddings=True),
    "gemma3": dict(BASE, model_type="gemma3_text", head_dim=64, query_pre_attn_scalar=64, sliding_window=4096, tie_word_embeddings=True),
    "phi3": dict(BASE, model_type="phi3", num_key_value_heads=4, pad_token_id=0),
    "gpt_neox": dict(model_type="gpt_neox", hidden_size=H, intermediate_size=1024, num_hidden_layers=2, num_attention_heads=4,
                     vocab_size=V, max_position_embeddings=2048, rotary_pct=0.25, tie_word_embeddings=False),
    # GPT2Config's dropouts default to 0.1; the harness runs without dropout, and says so to the estimator.
    "gpt2": dict(model_type="gpt2", n_embd=H, n_layer=2, n_head=4, vocab_size=V, n_positions=2048, resid_pdrop=0.0, embd_pdrop=0.0,
                 attn_pdrop=0.0),
    # Ungated MLPs: Falcon (multi-query, parallel attention, GELU) and OPT (ReLU, learned positions), without dropout.
    "falcon": dict(model_type="falcon", hidden_size=H, num_hidden_layers=2, num_attention_heads=4, multi_query=True,
                   new_decoder_architecture=False, parallel_attn=True, bias=False, alibi=False, vocab_size=V,
                   hidden_dropout=0.0, attention_dropout=0.0, tie_word_embeddings=True),
    "opt": dict(model_type="opt", hidden_size=H, ffn_dim=1024, num_hidden_layers=2, num_attention_heads=4, vocab_size=V,
                max_position_embeddings=2048, word_embed_proj_dim=H, dropout=0.0, attention_dropout=0.0,
                activation_dropout=0.0, layerdrop=0.0, do_layer_norm_before=True, activation_function="relu"),
    # GPT-J: attention and MLP side by side on one LayerNorm (parallel residual), rotary on a quarter of each head, no
    # SDPA path (eager attention only), gelu_new written out.
    "gptj": dict(model_type="gptj", n_embd=H, n_layer=2, n_head=4, rotary_dim=16, n_inner=1024, vocab_size=V, n_positions=2048,
                 tie_word_embeddings=False),
    # Cohere (Command R, Aya 23 / Expanse): one weight-only LayerNorm computed in fp32 feeding attention and the gated
    # MLP side by side, rotary on interleaved pairs computed in fp32, tied embeddings, logits times logit_scale.
    "cohere": dict(BASE, model_type="cohere", logit_scale=0.0625, use_qk_norm=False, tie_word_embeddings=True),
    # Cohere 2 (Command R7B, Tiny Aya): Cohere's block with sliding-window layers and full-attention layers without
    # rotary (layer_types).
    "cohere2": dict(BASE, model_type="cohere2", logit_scale=0.25, sliding_window=4096, tie_word_embeddings=True,
                    layer_types=["sliding_attention", "full_attention"]),
    # Nemotron (Minitron, Nemotron-Mini): Llama's attention with rotary on half of each head, LayerNorm1P (F.layer_norm
    # with weight + 1, in the autocast dtype), an ungated relu^2 MLP (up_proj, down_proj), an untied head.
    "nemotron": dict(BASE, model_type="nemotron", head_dim=64, hidden_act="relu2", partial_rotary_factor=0.5),
    "mixtral": dict(BASE, model_type="mixtral", intermediate_size=256, num_local_experts=4, num_experts_per_tok=2, sliding_window=None),
    "qwen2_moe": dict(BASE, model_type="qwen2_moe", moe_intermediate_size=128, shared_expert_intermediate_size=256, num_experts=4,
                      num_experts_per_tok=2, decoder_sparse_step=1),
    "qwen3_moe": dict(BASE, model_type="qwen3_moe", head_dim=64, moe_intermediate_size=128, num_experts=4, num_experts_per_tok=2,
                      decoder_sparse_step=1),
    # OLMoE: q/k norms over the whole projections, experts of intermediate_size, norm_topk_prob false.
    "olmoe": dict(BASE, model_type="olmoe", intermediate_size=128, num_experts=8, num_experts_per_tok=2, norm_topk_prob=False),
}
# Hybrid families: Mamba / Mamba2 / Gated DeltaNet mixers beside attention (and MoE), scaled down. The CPU runs
# transformers' reference PyTorch paths (no mamba_ssm, causal-conv1d or flash-linear-attention), which the estimator
# takes with mamba_kernels / linear_attention_kernels: torch. Chunk sizes below the sequence so the chunked scans
# run more than one chunk.
HYBRIDS = {
    # Qwen3.5 (dense): three Gated DeltaNet layers and one gated full-attention layer.
    "qwen3_5": dict(model_type="qwen3_5_text", hidden_size=H, intermediate_size=I, num_hidden_layers=4, num_attention_heads=4,
                    num_key_value_heads=2, head_dim=64, vocab_size=V, max_position_embeddings=2048, tie_word_embeddings=False,
                    linear_num_value_heads=4, linear_num_key_heads=2, linear_key_head_dim=32, linear_value_head_dim=32,
                    linear_conv_kernel_dim=4, full_attention_interval=4),
    # Qwen3-Next: the same mixers with a routed MoE and a gated shared expert in every layer.
    "qwen3_next": dict(model_type="qwen3_next", hidden_size=H, intermediate_size=I, num_hidden_layers=4, num_attention_heads=4,
                       num_key_value_heads=2, head_dim=64, vocab_size=V, max_position_embeddings=2048, tie_word_embeddings=False,
                       linear_num_value_heads=4, linear_num_key_heads=2, linear_key_head_dim=32, linear_value_head_dim=32,
                       linear_conv_kernel_dim=4, full_attention_interval=4, moe_intermediate_size=128,
                       shared_expert_intermediate_size=128, num_experts=4, num_experts_per_tok=2, decoder_sparse_step=1),
    # Granite 4.0 H: Mamba2 layers and one attention layer, each with a shared gated MLP, no position embedding.
    "granite_hybrid": dict(model_type="granitemoehybrid", hidden_size=H, intermediate_size=I, shared_intermediate_size=I,
                           num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, vocab_size=V,
                           max_position_embeddings=2048, tie_word_embeddings=True,
                           layer_types=["mamba", "mamba", "mamba", "attention"], mamba_n_heads=8, mamba_d_head=64,
                           mamba_d_state=64, mamba_n_groups=1, mamba_expand=2, mamba_chunk_size=128, num_local_experts=0,
                           position_embedding_type="nope"),
    # Jamba: Mamba-1 layers, one attention layer, a Mixtral MoE every other layer.
    "jamba": dict(model_type="jamba", hidden_size=H, intermediate_size=I, num_hidden_layers=4, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=V, max_position_embeddings=2048, tie_word_embeddings=False,
                  attn_layer_period=4, attn_layer_offset=2, expert_layer_period=2, expert_layer_offset=1, num_experts=4,
                  num_experts_per_tok=2, mamba_d_state=16, mamba_d_conv=4, mamba_expand=2, use_mamba_kernels=False),
    # Falcon-H1: a Mamba2 mixer and attention side by side in every layer.
    "falcon_h1": dict(model_type="falcon_h1", hidden_size=H, intermediate_size=I, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=64, vocab_size=V, max_position_embeddings=2048, tie_word_embeddings=False,
                      mamba_n_heads=8, mamba_d_head=64, mamba_d_state=64, mamba_n_groups=1, mamba_expand=2, mamba_d_ssm=512,
                      mamba_chunk_size=128),
    # Nemotron-H: one mixer per layer (Mamba2, ReLU^2 MLP, attention) by hybrid_override_pattern.
    "nemotron_h": dict(model_type="nemotron_h", hidden_size=H, intermediate_size=I, num_hidden_layers=4, num_attention_heads=4,
                       num_key_value_heads=2, head_dim=64, vocab_size=V, max_position_embeddings=2048, tie_word_embeddings=False,
                       hybrid_override_pattern="M-M*", mamba_num_heads=8, mamba_head_dim=64, ssm_state_size=64, n_groups=1,
                       expand=2, chunk_size=128),
}
HYBRID_KERNELS = {"qwen3_5": {"linear_attention_kernels": "torch"}, "qwen3_next": {"linear_attention_kernels": "torch"}}
# PEFT refuses LoRA on a Mamba mixer's out_proj and conv1d for falcon_h1 and nemotron_h (tuners_utils.py
# _check_lora_target_modules_mamba: the fused kernel reads out_proj.weight itself), so all-linear fails there: every
# other linear instead. Jamba's reference selective scan loops over the tokens, and the profiler's records of it take
# ~4 GB of RAM per 64 tokens: a shorter sequence.
HYBRID_LORA = {
    "falcon_h1": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "in_proj"],
    "nemotron_h": ["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj", "in_proj"],
}
HYBRID_SEQ = {"jamba": 64}

LORA_QV = {"r": 8, "alpha": 16, "target_modules": ["q_proj", "v_proj"]}
LORA_ALL = {"r": 16, "alpha": 32, "target_modules": "all-linear"}
GPT2_TARGETS = {"gpt2": ["c_attn"], "gpt_neox": ["query_key_value"], "falcon": ["query_key_value"]}
# The tiny gpt-oss of the zero, fsdp2 and peft suites: 4 experts of top-2, sliding and full layers, attention sinks.
GPT_OSS = {"model_type": "gpt_oss", "hidden_size": 256, "intermediate_size": 256, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 4096,
           "max_position_embeddings": 2048, "tie_word_embeddings": False, "num_local_experts": 4,
           "num_experts_per_tok": 2, "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"]}


def lora(family, spec, **extra):
    spec = dict(spec, **extra)
    if family in GPT2_TARGETS and spec["target_modules"] != "all-linear":
        spec["target_modules"] = GPT2_TARGETS[family]
    return spec


def scenario(family, **keys):
    s = {"architecture": dict(FAMILIES[family]), "method": "full", "weights_dtype": "fp32", "micro_batch_size": 2,
         "seq_len": 256, "attention": "sdpa", "optimizer": "adamw", "cuda_context_bytes": 0}
    s.update(keys)
    return s


def default_attention(family):
    return "eager" if family in ("gemma2", "gptj") else "sdpa"


# ---- suites: each returns {id: (scenario, harness overrides)} ----

def suite_loop():
    variants = {
        "full-fp32": dict(),
        "full-bf16": dict(weights_dtype="bf16"),
        "full-amp": dict(mixed_precision="bf16"),
        "full-bf16-eager": dict(weights_dtype="bf16", attention="eager"),
        "full-bf16-ckpt": dict(weights_dtype="bf16", gradient_checkpointing="full", seq_len=512),
        "full-bf16-ckpt-reentrant": (dict(weights_dtype="bf16", gradient_checkpointing="full", seq_len=512), {"reentrant": True}),
        "lora-bf16": "lora_qv",
        "lora-all-bf16-ckpt": "lora_all_ckpt",
    }
    out = {}
    for fam in FAMILIES:
        for name, v in variants.items():
            harness = {}
            if isinstance(v, tuple):
                v, harness = v
            if v == "lora_qv":
                qv = dict(LORA_QV, target_modules=["qkv_proj"]) if fam == "phi3" else lora(fam, LORA_QV)
                v = dict(weights_dtype="bf16", method="lora", lora=qv)
            elif v == "lora_all_ckpt":
                v = dict(weights_dtype="bf16", method="lora", lora=lora(fam, LORA_ALL), gradient_checkpointing="full", seq_len=512)
            keys = {"attention": default_attention(fam), **v}
            out[f"{fam}-{name}"] = (scenario(fam, **keys), harness)
    # A loop that keeps the last step's logits to the next forward (LitGPT's fit loops).
    for fam in KEEP_FAMILIES:
        out[f"{fam}-full-fp32-keep"] = (scenario(fam, attention=default_attention(fam), loop_keeps_outputs=True), {})
        lora_keys = dict(weights_dtype="bf16", method="lora", lora=lora(fam, LORA_QV), loop_keeps_outputs=True)
        out[f"{fam}-lora-bf16-keep"] = (scenario(fam, attention=default_attention(fam), **lora_keys), {})
        # A plain transformers loop keeps the whole `outputs`: with the config's use_cache, every layer's keys and
        # values (the DynamicCache the training forward builds) stay allocated with the logits.
        out[f"{fam}-full-fp32-keep-cache"] = (
            scenario(fam, attention=default_attention(fam), loop_keeps_outputs=True, use_cache=True), {})
        out[f"{fam}-lora-bf16-keep-cache"] = (
            scenario(fam, attention=default_attention(fam), use_cache=True, **lora_keys), {})
        # The same under torch's checkpoint_wrapper (apply_activation_checkpointing): transformers does not know of
        # it and keeps use_cache, so the step's cache is no longer the keys and values attention saves. (Gemma 2's
        # recompute fails there: its sliding-window cache was updated by the first forward.)
        ck = dict(gradient_checkpointing="full", checkpoint_wrapper=True, use_cache=True)
        if fam != "gemma2":
            out[f"{fam}-full-fp32-keep-cache-wrapper"] = (
                scenario(fam, attention=default_attention(fam), loop_keeps_outputs=True, **ck), {})
            out[f"{fam}-lora-bf16-keep-cache-wrapper"] = (
                scenario(fam, attention=default_attention(fam), **dict(lora_keys, **ck)), {})
            out[f"{fam}-lora-bf16-cache-wrapper"] = (
                scenario(fam, attention=default_attention(fam), **dict(lora_keys, loop_keeps_outputs=False, **ck)), {})
        # A loop that drops its outputs after the optimizer step (`output = None`: Answer.AI's fsdp_qlora train.py):
        # the logits are held through the backward and the optimizer step, not into the next forward.
        out[f"{fam}-full-fp32-keep-step"] = (
            scenario(fam, attention=default_attention(fam), loop_keeps_outputs="step"), {})
        out[f"{fam}-lora-bf16-keep-step"] = (
            scenario(fam, attention=default_attention(fam), **dict(lora_keys, loop_keeps_outputs="step")), {})
    # Falcon's other layouts: the new decoder architecture (kv groups broadcast to every head, ln_attn and ln_mlp) and
    # Falcon-RW (ALiBi, interleaved q/k/v, sequential blocks with biases); the multi-query one with one sequence.
    for name, arch in FALCON_LAYOUTS.items():
        for variant, keys in FALCON_VARIANTS.items():
            s = scenario("falcon", **keys)
            s["architecture"] = dict(arch)
            out[f"{name}-{variant}"] = (s, {})
    out["falcon-full-bf16-b1"] = (scenario("falcon", weights_dtype="bf16", micro_batch_size=1), {})
    # SDPA's math kernel before PyTorch 2.5: the 16-bit inputs not upcast.
    out["falcon-full-bf16-torch24"] = (scenario("falcon", weights_dtype="bf16", pytorch_version="2.4"), {"math_sdp_half": True})
    lora_keys = dict(weights_dtype="bf16", method="lora", lora=lora("falcon", LORA_QV), pytorch_version="2.4")
    out["falcon-lora-bf16-torch24"] = (scenario("falcon", **lora_keys), {"math_sdp_half": True})
    out["falcon-full-bf16-eager-b1"] = (scenario("falcon", weights_dtype="bf16", attention="eager", micro_batch_size=1), {})
    # Eager attention whose backward makes the peak: 8 heads over 1,024 tokens and a small vocabulary, so the softmax's
    # backward (its gradients beside the saved probabilities) outweighs the loss.
    for fam in ("llama", "qwen2"):
        for name, keys in EAGER_LONG_VARIANTS.items():
            s = scenario(fam, attention="eager", micro_batch_size=1, seq_len=1024, **keys)
            s["architecture"].update(num_attention_heads=8, num_key_value_heads=4, vocab_size=512)
            if keys.get("method") == "lora":
                s["lora"] = lora(fam, LORA_QV)
            out[f"{fam}-{name}-eager-s1024"] = (s, {})
    return out


EAGER_LONG_VARIANTS = {
    "full-fp32": dict(),
    "full-bf16": dict(weights_dtype="bf16"),
    "full-amp": dict(mixed_precision="bf16"),
    "lora-bf16": dict(weights_dtype="bf16", method="lora"),
}


FALCON_LAYOUTS = {
    "falcon40": dict(FAMILIES["falcon"], multi_query=False, new_decoder_architecture=True, num_kv_heads=2),
    "falconrw": dict(FAMILIES["falcon"], multi_query=False, parallel_attn=False, alibi=True, bias=True),
}
FALCON_VARIANTS = {
    "full-bf16": dict(weights_dtype="bf16"),
    "full-bf16-eager": dict(weights_dtype="bf16", attention="eager"),
    "full-amp": dict(mixed_precision="bf16"),
    "lora-bf16": dict(weights_dtype="bf16", method="lora", lora=lora("falcon", LORA_QV)),
}
KEEP_FAMILIES = ["llama", "qwen2", "gemma2", "mixtral", "opt"]


PEFT_FAMILIES = ["llama", "mistral", "qwen2", "qwen3", "gemma2", "phi3", "mixtral"]
IA3 = {"target_modules": ["k_proj", "v_proj", "down_proj"], "feedforward_modules": ["down_proj"]}
PHI3_IA3 = {"target_modules": ["qkv_proj", "down_proj"], "feedforward_modules": ["down_proj"]}


def _gpt_oss_lora():
    """gpt-oss with LoRA as its fine-tuning recipes write it: all-linear (the attention projections: the router and the
    experts are bare parameters), and PEFT's target_parameters on the 3-D experts (lora.ParamWrapper), bf16 weights,
    with and without checkpointing."""
    out = {}
    experts = ["mlp.experts.gate_up_proj", "mlp.experts.down_proj"]
    common = dict(architecture=GPT_OSS, attention="eager", weights_dtype="bf16", method="lora")
    ckpt = dict(gradient_checkpointing="full", seq_len=512)
    out["gptoss-lora-all-bf16"] = (scenario("llama", **common, lora=LORA_ALL), {})
    out["gptoss-lora-all-experts-bf16"] = (scenario("llama", **common, lora=dict(LORA_ALL, target_parameters=experts)), {})
    out["gptoss-lora-all-experts-bf16-ckpt"] = (
        scenario("llama", **common, **ckpt, lora=dict(LORA_ALL, target_parameters=experts)), {})
    out["gptoss-lora-experts-bf16-ckpt-reentrant"] = (
        scenario("llama", **common, **ckpt, lora=dict(LORA_QV, target_parameters=experts)), {"reentrant": True})
    return out


def suite_peft():
    out = _gpt_oss_lora()
    for fam in PEFT_FAMILIES:
        att = default_attention(fam)
        ia3 = PHI3_IA3 if fam == "phi3" else IA3
        qv = lora(fam, LORA_QV)
        if fam == "phi3":
            qv = dict(qv, target_modules=["qkv_proj"])
        out[f"{fam}-dora-bf16"] = (scenario(fam, attention=att, weights_dtype="bf16", method="lora", lora=dict(qv, use_dora=True)), {})
        if fam != "mixtral":  # PEFT: "lora.ParamWrapper does not work with use_dora=True" (3-D experts under all-linear)
            out[f"{fam}-dora-all-fp32"] = (scenario(fam, attention=att, method="lora", lora=lora(fam, LORA_ALL, use_dora=True)), {})
        if fam in ("llama", "qwen3", "gemma2"):
            # DoRA with dropout (published recipes set 0.05): PEFT's DoraLinearVariant then computes the base output
            # again from the dropped input and the base weight in the input's dtype (base_result None).
            out[f"{fam}-dora-dropout-bf16"] = (scenario(fam, attention=att, weights_dtype="bf16", method="lora",
                                                        lora=dict(qv, use_dora=True, dropout=0.05)), {})
            out[f"{fam}-dora-all-fp32-ckpt"] = (scenario(fam, attention=att, method="lora",
                                                         lora=lora(fam, LORA_ALL, use_dora=True),
                                                         gradient_checkpointing="full", seq_len=512), {})
            out[f"{fam}-dora-all-dropout-fp32-ckpt"] = (scenario(fam, attention=att, method="lora",
                                                                 lora=lora(fam, LORA_ALL, use_dora=True, dropout=0.05),
                                                                 gradient_checkpointing="full", seq_len=512), {})
        out[f"{fam}-ia3-fp32"] = (scenario(fam, attention=att, method="ia3", ia3=ia3), {})
        out[f"{fam}-ia3-bf16"] = (scenario(fam, attention=att, weights_dtype="bf16", method="ia3", ia3=ia3), {})
        out[f"{fam}-lora64-all-fp32"] = (scenario(fam, attention=att, method="lora", lora=lora(fam, LORA_ALL, r=64, alpha=128)), {})
        out[f"{fam}-lora-bf16-ckpt-reentrant"] = (scenario(fam, attention=att, weights_dtype="bf16", method="lora", lora=qv,
                                                           gradient_checkpointing="full", seq_len=512), {"reentrant": True})
        if fam in ("llama", "qwen3", "gemma2", "mixtral"):
            # LoRA dropout (PEFT's nn.Dropout on each adapter's input; most published recipes set 0.05-0.1).
            if fam != "mixtral":  # PEFT: "lora.ParamWrapper does not work with lora_dropout != 0" (3-D experts)
                out[f"{fam}-lora-all-dropout-bf16"] = (scenario(fam, attention=att, weights_dtype="bf16", method="lora",
                                                                lora=lora(fam, LORA_ALL, dropout=0.1)), {})
                out[f"{fam}-lora-all-dropout-fp32"] = (scenario(fam, attention=att, method="lora",
                                                                lora=lora(fam, LORA_ALL, dropout=0.1)), {})
            out[f"{fam}-lora-dropout-amp-ckpt"] = (scenario(fam, attention=att, mixed_precision="bf16", method="lora",
                                                            lora=dict(qv, dropout=0.05), gradient_checkpointing="full",
                                                            seq_len=512), {})
        if fam in ("llama", "qwen3", "mixtral"):
            # Gradient accumulation (the gradients of the first micro-batch are held through the second's backward)
            # and the optimizers that install offline besides foreach AdamW.
            out[f"{fam}-full-bf16-ga2"] = (scenario(fam, attention=att, weights_dtype="bf16", gradient_accumulation_steps=2), {})
            out[f"{fam}-lora-bf16-ga2"] = (scenario(fam, attention=att, weights_dtype="bf16", method="lora", lora=qv,
                                                    gradient_accumulation_steps=2), {})
            out[f"{fam}-full-bf16-sgd"] = (scenario(fam, attention=att, weights_dtype="bf16", optimizer="sgd"), {})
            out[f"{fam}-full-bf16-adamw-fused"] = (scenario(fam, attention=att, weights_dtype="bf16", optimizer="adamw_fused"), {})
            # torch.optim.RMSprop with its defaults (the DPO reference implementation's optimizer): one state.
            out[f"{fam}-full-bf16-rmsprop"] = (scenario(fam, attention=att, weights_dtype="bf16", optimizer="rmsprop"), {})
            out[f"{fam}-full-fp32-rmsprop"] = (scenario(fam, attention=att, optimizer="rmsprop"), {})
        if fam in ("llama", "mistral", "qwen2"):
            # modules_to_save: PEFT's ModulesToSaveWrapper trains a copy of the embedding and the head in the model's
            # dtype (its fp32 upcast, autocast_adapter_dtype, reaches tuner layers only), beside fp32 adapters.
            saved = lora(fam, LORA_QV, modules_to_save=["embed_tokens", "lm_head"])
            out[f"{fam}-lora-save-emb-head-bf16"] = (scenario(fam, attention=att, weights_dtype="bf16", method="lora",
                                                              lora=saved), {})
            out[f"{fam}-lora-save-emb-head-fp32"] = (scenario(fam, attention=att, method="lora", lora=saved), {})
            out[f"{fam}-lora-save-head-bf16-ga2"] = (scenario(fam, attention=att, weights_dtype="bf16", method="lora",
                                                              lora=lora(fam, LORA_QV, modules_to_save=["lm_head"]),
                                                              gradient_accumulation_steps=2), {})
        if att == "sdpa":
            # A batch padded to its longest sample: the model gets an attention mask (grouped key-value heads
            # repeated, the boolean mask converted by every layer's SDPA call).
            padded = dict(weights_dtype="bf16", method="lora", lora=qv, batch_lengths="variable")
            out[f"{fam}-lora-bf16-padded"] = (scenario(fam, attention=att, **padded), {"pad": 64})
            out[f"{fam}-full-amp-padded"] = (scenario(fam, attention=att, mixed_precision="bf16", batch_lengths="variable"), {"pad": 64})
            out[f"{fam}-lora-bf16-ckpt-padded"] = (scenario(fam, attention=att, gradient_checkpointing="full", seq_len=512, **padded),
                                                   {"pad": 128})
    return out


TRAINER_FAMILIES = ["llama", "mistral", "qwen2", "qwen3", "phi3", "gemma3", "gpt_neox", "mixtral", "cohere2"]


def suite_trainer():
    out = {}
    for fam in TRAINER_FAMILIES:
        att = default_attention(fam)
        qv = lora(fam, LORA_QV) if fam != "phi3" else dict(LORA_QV, target_modules=["qkv_proj"])
        out[f"{fam}-full-amp"] = (scenario(fam, attention=att, mixed_precision="bf16"), {})
        out[f"{fam}-full-bf16"] = (scenario(fam, attention=att, weights_dtype="bf16", mixed_precision="bf16"), {})
        out[f"{fam}-lora-bf16-ckpt"] = (scenario(fam, attention=att, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=qv,
                                                 gradient_checkpointing="full", seq_len=512), {})
        out[f"{fam}-lora-amp-ckpt-reentrant"] = (scenario(fam, attention=att, mixed_precision="bf16", method="lora", lora=qv,
                                                          gradient_checkpointing="full", seq_len=512), {"reentrant": True})
        if fam in ("llama", "qwen3"):
            out[f"{fam}-lora-bf16-ga2"] = (scenario(fam, attention=att, weights_dtype="bf16", mixed_precision="bf16", method="lora",
                                                    lora=qv, gradient_accumulation_steps=2), {})
        if fam in ("llama", "mistral", "qwen2", "gemma3"):
            out[f"{fam}-lora-all-dropout-bf16-ckpt"] = (scenario(fam, attention=att, weights_dtype="bf16", mixed_precision="bf16",
                                                                 method="lora", lora=lora(fam, LORA_ALL, dropout=0.05),
                                                                 gradient_checkpointing="full", seq_len=512), {})
    # A bf16 model without autocast and PEFT's fp32 adapters on q/k/v/o (fms-hf-tuning's benchmark runs; beside its
    # FSDP1 twin in the accelerate suite).
    out["llama-lora-qkvo-bf16-nomp-ckpt-reentrant"] = (scenario("llama", **NOMP_LORA), {"reentrant": True})
    return out


# bf16 weights, no mixed precision, LoRA r16 on q/k/v/o with dropout in fp32, reentrant checkpointing at 2 x 512 tokens.
NOMP_LORA = dict(weights_dtype="bf16", method="lora", gradient_checkpointing="full", seq_len=512, checkpoint_reentrant=True,
                 lora={"r": 16, "alpha": 16, "dropout": 0.1, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"], "dtype": "fp32"})


TRL_FAMILIES = ["llama", "qwen2", "qwen3", "mistral"]


TRL_VERSION = "1.13"  # the harness's trl (setup.sh); the estimator models TRL's passes by release (trl_version)


def suite_trl():
    out = {}
    for fam, (s, h) in _suite_trl().items():
        out[fam] = (dict(s, trl_version=TRL_VERSION), h)
    return out


def _suite_trl():
    out = {}
    for fam in TRL_FAMILIES:
        qv = lora(fam, LORA_QV)
        # SFT: SFTConfig's loss_type default since TRL 1.7, chunked_nll (trl/trainer/sft_config.py).
        sft = dict(mixed_precision="bf16", loss="chunked-nll")
        out[f"{fam}-sft-full-amp"] = (scenario(fam, **sft), {"runner": "sft"})
        out[f"{fam}-sft-lora-bf16"] = (scenario(fam, weights_dtype="bf16", method="lora", lora=qv, **sft), {"runner": "sft"})
        # DPO: 128 prompt + 64 completion tokens, the tokenizer's EOS after the completion.
        dpo = {"runner": "dpo", "prompt_len": 128, "completion_len": 64}
        out[f"{fam}-dpo-lora-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=qv, seq_len=193,
                                                preference={"reference": "adapters-off", "logps": "rows"}), dpo)
        out[f"{fam}-dpo-full-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", seq_len=193,
                                                preference={"reference": "copy", "logps": "rows"}), dpo)
        # KTO: unpaired completions and their KL completions (the batch's neighbours), the same shapes as DPO's.
        kto = {"runner": "kto", "prompt_len": 128, "completion_len": 64}
        out[f"{fam}-kto-lora-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=qv, seq_len=193,
                                                preference={"reference": "adapters-off", "logps": "rows", "paired": False}), kto)
        out[f"{fam}-kto-full-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", seq_len=193,
                                                preference={"reference": "copy", "logps": "rows", "paired": False}), kto)
        # ORPO (trl.experimental): no reference, the chosen half's NLL beside the odds ratio; its batches are one token
        # longer (194: the tokenizer's BOS before the prompt).
        orpo = {"runner": "orpo", "prompt_len": 128, "completion_len": 64}
        pref_orpo = {"reference": "none", "logps": "rows", "chosen_nll": True}
        out[f"{fam}-orpo-lora-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=qv, seq_len=194,
                                                 preference=pref_orpo), orpo)
        out[f"{fam}-orpo-full-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", seq_len=194, preference=pref_orpo), orpo)
        # Online DPO (trl.experimental): two completions of 32 tokens per prompt of 64, generated in every micro-step
        # (batch: 2 x micro_batch_size).
        odpo = {"runner": "online_dpo", "prompt_len": 64}
        # The harness hands the trainer a PeftModel and no peft_config, and OnlineDPOTrainer then copies it for the
        # reference (create_reference_model unless peft_config is given: trl/experimental/online_dpo), LoRA too.
        for kind, ref in (("lora", "copy"), ("full", "copy")):
            extra = dict(method="lora", lora=qv) if kind == "lora" else {}
            out[f"{fam}-online-dpo-{kind}-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", seq_len=96, **extra,
                                                             rollout={"objective": "online-dpo", "batch": 4, "completion_len": 32,
                                                                      "engine": "generate", "reference": ref}), odpo)
        # GRPO: 64 prompt tokens + 32 completion tokens.
        grpo = {"runner": "grpo", "prompt_len": 64, "num_generations": 2}
        rollout = {"batch": 2, "completion_len": 32, "engine": "generate", "reference": "none"}
        out[f"{fam}-grpo-lora-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=qv, seq_len=96,
                                                 rollout=rollout), grpo)
        out[f"{fam}-grpo-full-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", seq_len=96, rollout=rollout), grpo)
        # RLOO: GRPO's shapes; with LoRA RLOOConfig's beta 0.05 keeps a reference (the adapters disabled), the full
        # points run with beta 0 (a full reference would be loaded from the model's Hub path).
        out[f"{fam}-rloo-lora-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=qv, seq_len=96,
                                                 rollout=dict(rollout, reference="adapters-off")), dict(grpo, runner="rloo", beta=0.05))
        out[f"{fam}-rloo-full-bf16"] = (scenario(fam, weights_dtype="bf16", mixed_precision="bf16", seq_len=96, rollout=rollout),
                                        dict(grpo, runner="rloo"))
    return out


SHARD_FAMILIES = ["llama", "mistral", "qwen2", "qwen3", "gemma3", "mixtral", "cohere2"]


def _sharded(kind):
    out = {}
    for fam in SHARD_FAMILIES:
        for world in (2, 4, 8, 16):
            common = dict(fsdp="full_shard", gpus_per_node=world, mixed_precision="bf16")
            out[f"{fam}-w{world}-amp"] = (scenario(fam, **common), {"parallel": kind})
            out[f"{fam}-w{world}-amp-offload"] = (scenario(fam, **common, offload_params="cpu", offload_optimizer="cpu"), {"parallel": kind})
    for world in (2, 8):
        out[f"llama-w{world}-lora-amp"] = (scenario("llama", fsdp="full_shard", gpus_per_node=world, mixed_precision="bf16", method="lora",
                                                    lora=LORA_QV), {"parallel": kind})
    out["llama-w4-fp32"] = (scenario("llama", fsdp="full_shard", gpus_per_node=4), {"parallel": kind})
    out["llama-w4-amp-ckpt"] = (scenario("llama", fsdp="full_shard", gpus_per_node=4, mixed_precision="bf16", gradient_checkpointing="full",
                                         seq_len=512), {"parallel": kind})
    out["llama-w64-amp"] = (scenario("llama", fsdp="full_shard", gpus_per_node=8, nodes=8, mixed_precision="bf16"), {"parallel": kind})
    out["llama-w4-shard-grad-op-amp"] = (scenario("llama", fsdp="shard_grad_op", gpus_per_node=4, mixed_precision="bf16"), {"parallel": kind})
    out.update(_accumulating(kind))
    # Eager attention (Gemma 3's recommended one for training): its full and sliding-window masks, built in the
    # gathered embedding's dtype, held by the checkpointed layers.
    out["gemma3-w2-amp-eager-ckpt"] = (scenario("gemma3", fsdp="full_shard", gpus_per_node=2, mixed_precision="bf16",
                                                attention="eager", gradient_checkpointing="full", seq_len=512),
                                       {"parallel": kind})
    if kind == "fsdp1":
        out.update(_fsdp1_peft())
    return out


def _accumulating(kind):
    """Two micro-batches per step: reduced as they come (FSDP's default, a plain loop) or, as the HF Trainer runs them,
    every one but the last under Accelerator.no_sync (fsdp_no_sync: FSDP1 no_sync(), FSDP2
    set_requires_gradient_sync(False)), which accumulates unsharded gradients."""
    out = {}
    amp = dict(fsdp="full_shard", gpus_per_node=4, mixed_precision="bf16", gradient_accumulation_steps=2)
    out["llama-w4-amp-accum2"] = (scenario("llama", **amp, fsdp_no_sync=False), {"parallel": kind})
    for fam in ("llama", "qwen3", "gemma3", "mixtral"):
        out[f"{fam}-w4-amp-accum2-nosync"] = (scenario(fam, **amp, fsdp_no_sync=True), {"parallel": kind})
    nosync = dict(amp, fsdp_no_sync=True)
    out["llama-w8-amp-offload-accum2-nosync"] = (scenario("llama", **dict(nosync, gpus_per_node=8), offload_params="cpu",
                                                          offload_optimizer="cpu"), {"parallel": kind})
    out["llama-w4-amp-ckpt-accum2-nosync"] = (scenario("llama", **nosync, gradient_checkpointing="full", seq_len=512), {"parallel": kind})
    out["llama-w4-fp32-accum2-nosync"] = (scenario("llama", **dict(nosync, mixed_precision="none")), {"parallel": kind})
    out["llama-w4-shard-grad-op-amp-accum2-nosync"] = (scenario("llama", **dict(nosync, fsdp="shard_grad_op")), {"parallel": kind})
    out["llama-w8-lora-amp-accum2-nosync"] = (scenario("llama", **dict(nosync, gpus_per_node=8), method="lora", lora=LORA_QV),
                                              {"parallel": kind})
    return out


def _fsdp1_peft():
    """LoRA as the HF Trainer / TRL run it under Accelerate's FSDP1 plugin (the PEFT docs' QLoRA + FSDP recipe without the
    4-bit base, which needs bitsandbytes): PEFT's fsdp_auto_wrap_policy (each adapter Linear its own unit, beside the
    decoder layers), use_orig_params false, a bf16 model under bf16 mixed precision, reentrant checkpointing, with
    and without CPU offload."""
    out = {}
    harness = {"parallel": "fsdp1", "wrap": "peft", "use_orig_params": False, "reentrant": True}
    for fam in ("llama", "qwen2"):
        for world in (2, 8):
            keys = dict(fsdp="full_shard", gpus_per_node=world, weights_dtype="bf16", mixed_precision="bf16", method="lora",
                        lora=lora(fam, LORA_ALL), gradient_checkpointing="full", seq_len=512, fsdp_use_orig_params=False)
            out[f"{fam}-w{world}-lora-all-bf16-ckpt-reentrant-peftwrap"] = (scenario(fam, **keys), harness)
            out[f"{fam}-w{world}-lora-all-bf16-ckpt-reentrant-peftwrap-offload"] = (
                scenario(fam, **keys, offload_params="cpu", offload_optimizer="cpu"), harness)
    # The recipe's two micro-batches per step, as the HF Trainer runs them (no_sync on the first).
    keys = dict(fsdp="full_shard", gpus_per_node=2, weights_dtype="bf16", mixed_precision="bf16", method="lora",
                lora=lora("llama", LORA_ALL), gradient_checkpointing="full", seq_len=512, gradient_accumulation_steps=2,
                fsdp_no_sync=True, fsdp_use_orig_params=False)
    out["llama-w2-lora-all-bf16-ckpt-reentrant-peftwrap-accum2-nosync"] = (scenario("llama", **keys), harness)
    out["llama-w2-lora-all-bf16-ckpt-reentrant-peftwrap-offload-accum2-nosync"] = (
        scenario("llama", **keys, offload_params="cpu", offload_optimizer="cpu"), harness)
    # Answer.AI's fsdp_qlora loop: a bf16 model without mixed precision, its `output` held through the backward and the
    # optimizer step (`output = None` after them), with and without CPU offload.
    keys = dict(fsdp="full_shard", gpus_per_node=2, weights_dtype="bf16", method="lora", lora=lora("llama", LORA_ALL),
                gradient_checkpointing="full", seq_len=512, micro_batch_size=4, fsdp_use_orig_params=False,
                loop_keeps_outputs="step")
    out["llama-w2-lora-all-bf16-ckpt-reentrant-peftwrap-keep-step"] = (scenario("llama", **keys), harness)
    out["llama-w2-lora-all-bf16-ckpt-reentrant-peftwrap-offload-keep-step"] = (
        scenario("llama", **keys, offload_params="cpu", offload_optimizer="cpu"), harness)
    return out


def _prefetching():
    """FSDP1 with a backward prefetch: BACKWARD_PRE gathers the last layer's unit in the root's pre-backward hook, as the
    loss's backward starts (the model returns the loss), BACKWARD_POST in a unit's post-backward hook. Vocabulary-heavy
    points (one-token-wide logits dominate), where the loss's backward is the step's peak."""
    out = {}
    for world in (2, 8):
        for prefetch in ("pre", "post"):
            keys = dict(fsdp="full_shard", gpus_per_node=world, mixed_precision="bf16", fsdp_backward_prefetch=prefetch)
            out[f"llama-w{world}-amp-prefetch-{prefetch}"] = (scenario("llama", **keys), {"parallel": "fsdp1"})
    keys = dict(fsdp="full_shard", gpus_per_node=2, weights_dtype="bf16", mixed_precision="bf16", method="lora",
                lora=lora("llama", LORA_ALL), gradient_checkpointing="full", seq_len=512, fsdp_backward_prefetch="pre",
                fsdp_adapters_wrapped=True, fsdp_use_orig_params=False)
    out["llama-w2-lora-all-bf16-ckpt-reentrant-peftwrap-prefetch-pre"] = (
        scenario("llama", **keys), {"parallel": "fsdp1", "wrap": "peft", "use_orig_params": False, "reentrant": True})
    out["qwen3-w4-amp-ckpt-prefetch-pre"] = (scenario("qwen3", fsdp="full_shard", gpus_per_node=4, mixed_precision="bf16",
                                                      gradient_checkpointing="full", seq_len=512, fsdp_backward_prefetch="pre"),
                                             {"parallel": "fsdp1"})
    return out


def _versioned(points, version):
    """Each point says which FSDP it runs (the estimator's fsdp_version: FSDP2 pads dim-0 shards, FSDP1 does not)."""
    return {k: (dict(sc, fsdp_version=version), h) for k, (sc, h) in points.items()}


def _gpt_oss_fsdp2():
    """gpt-oss under FSDP2 as Axolotl's examples run it (fused [E, h, 2I] experts, attention sinks, eager attention):
    fp32 shards under bf16 mixed precision, with and without CPU offload, checkpointed."""
    out = {}
    common = dict(architecture=GPT_OSS, attention="eager", fsdp="full_shard", mixed_precision="bf16")
    off = dict(offload_params="cpu", offload_optimizer="cpu")
    for world in (2, 8):
        out[f"gptoss-w{world}-amp"] = (scenario("llama", **common, gpus_per_node=world), {"parallel": "fsdp2"})
        out[f"gptoss-w{world}-amp-offload"] = (scenario("llama", **common, **off, gpus_per_node=world), {"parallel": "fsdp2"})
    ckpt = dict(gradient_checkpointing="full", seq_len=512)
    experts = ["mlp.experts.gate_up_proj", "mlp.experts.down_proj"]
    adapters = dict(weights_dtype="bf16", method="lora", lora=dict(LORA_ALL, target_parameters=experts))
    out["gptoss-w2-lora-experts-bf16-amp-ckpt"] = (scenario("llama", **common, **ckpt, **adapters, gpus_per_node=2),
                                                   {"parallel": "fsdp2"})
    out["mixtral-w4-lora-all-bf16-amp-ckpt"] = (
        scenario("mixtral", fsdp="full_shard", mixed_precision="bf16", gpus_per_node=4, **ckpt, weights_dtype="bf16",
                 method="lora", lora=LORA_ALL), {"parallel": "fsdp2"})
    out["gptoss-w2-amp-ckpt"] = (scenario("llama", **common, **ckpt, gpus_per_node=2), {"parallel": "fsdp2"})
    # Qwen3-MoE (transformers 5's fused experts): 4 experts over 2 ranks, and over 8 (padded), with offload.
    moe = dict(fsdp="full_shard", mixed_precision="bf16")
    for world in (2, 8):
        out[f"qwen3_moe-w{world}-amp"] = (scenario("qwen3_moe", **moe, gpus_per_node=world), {"parallel": "fsdp2"})
        out[f"qwen3_moe-w{world}-amp-offload"] = (scenario("qwen3_moe", **moe, **off, gpus_per_node=world),
                                                  {"parallel": "fsdp2"})
    out["gptoss-w2-amp-ckpt-offload"] = (scenario("llama", **common, **off, **ckpt, gpus_per_node=2), {"parallel": "fsdp2"})
    return out


def suite_fsdp2():
    return _versioned({**_sharded("fsdp2"), **_gpt_oss_fsdp2()}, 2)


def suite_fsdp1():
    # LoRA points say how the adapters are wrapped: inside their decoder layer's unit (the harness's per-layer wrap,
    # use_orig_params=True) or as units of their own (PEFT's policy).
    # Every point says the harness's backward_prefetch=None (Accelerate's plugin default, which the HF Trainer keeps),
    # but those that name BACKWARD_PRE (FSDP's own default, what `accelerate config` writes) or BACKWARD_POST.
    out = {k: (dict(sc, fsdp_backward_prefetch="none"), h) for k, (sc, h) in _versioned(_sharded("fsdp1"), 1).items()}
    out.update(_versioned(_prefetching(), 1))
    return {k: (dict(sc, fsdp_adapters_wrapped="peftwrap" in k) if sc.get("method") == "lora" else sc, h)
            for k, (sc, h) in out.items()}


def suite_ddp():
    out = {}
    for fam in ("llama", "qwen2", "qwen3", "mixtral"):
        for world in (2, 4, 8):
            out[f"{fam}-w{world}-fp32"] = (scenario(fam, gpus_per_node=world), {"parallel": "ddp"})
            out[f"{fam}-w{world}-amp"] = (scenario(fam, gpus_per_node=world, mixed_precision="bf16"), {"parallel": "ddp"})
        # LoRA under DDP: the Reducer buckets only the adapters' gradients.
        qv = lora(fam, LORA_QV)
        for world in (2, 8):
            lora_keys = dict(gpus_per_node=world, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=qv)
            out[f"{fam}-w{world}-lora-bf16"] = (scenario(fam, **lora_keys), {"parallel": "ddp"})
            out[f"{fam}-w{world}-lora-bf16-ckpt"] = (scenario(fam, gradient_checkpointing="full", seq_len=512, **lora_keys),
                                                     {"parallel": "ddp"})
    return out


def suite_accelerate():
    """The HF Trainer and TRL's SFTTrainer as rank 0 of several GPUs (the fake process group): Accelerate prepares the
    model as the trainer asks it to (DDP; the FSDP1 plugin; FSDP2, the trainer's default FSDP in transformers 5) from
    the `fsdp_config` a user writes, with the trainer's own autocast, checkpointing, no_sync and optimizer. Scenario
    keys say what that preparation does: Accelerate upcasts a 16-bit model's trainable parameters to fp32 under mixed
    precision (master_weights), and from 1.14 gives FSDP2's final norm and head a unit of their own (fsdp_tail_unit)."""
    out = {}
    amp = dict(mixed_precision="bf16")
    half = dict(weights_dtype="bf16", mixed_precision="bf16", master_weights=True)
    ckpt = dict(gradient_checkpointing="full", seq_len=512)
    off = dict(offload_params="cpu", offload_optimizer="cpu")

    def fsdp(version, world, fam="llama", runner="trainer", **keys):
        # Accelerate 1.14+ gives FSDP2's final norm and head a unit kept from the forward to the backward.
        tail = {"fsdp_tail_unit": True} if version == 2 else {}
        sc = scenario(fam, fsdp=keys.pop("fsdp", "full_shard"), fsdp_version=version, gpus_per_node=world, **tail, **keys)
        return sc, {"runner": runner, "parallel": f"fsdp{version}"}

    for fam in ("llama", "qwen3", "gemma3", "mixtral"):
        out[f"{fam}-fsdp2-w4-full-amp"] = fsdp(2, 4, fam, **amp)
    for world in (2, 8):
        out[f"llama-fsdp2-w{world}-full-amp"] = fsdp(2, world, **amp)
        out[f"llama-fsdp2-w{world}-lora-bf16-ckpt"] = fsdp(2, world, **half, **ckpt, method="lora", lora=LORA_QV)
    out["llama-fsdp2-w2-full-bf16-amp"] = fsdp(2, 2, **half)
    out["llama-fsdp2-w2-lora-all-bf16-ckpt-reentrant"] = fsdp(2, 2, **half, **ckpt, method="lora", lora=LORA_ALL,
                                                             checkpoint_reentrant=True)
    out["llama-fsdp2-w4-full-amp-offload"] = fsdp(2, 4, **amp, **off)
    out["llama-fsdp2-w2-lora-bf16-ckpt-offload"] = fsdp(2, 2, **half, **ckpt, **off, method="lora", lora=LORA_QV)
    out["llama-fsdp2-w4-full-amp-accum2"] = fsdp(2, 4, **amp, gradient_accumulation_steps=2, fsdp_no_sync=True)
    # Checkpointing through fsdp_config's activation_checkpointing (Accelerate's checkpoint_wrapper, non-reentrant).
    for version in (1, 2):
        sc, h = fsdp(version, 4, **amp, **ckpt, **({"fsdp_backward_prefetch": "none"} if version == 1 else {}))
        out[f"llama-fsdp{version}-w4-full-amp-fsdp-ac"] = (sc, dict(h, fsdp_ac=True))
    sft = dict(loss="chunked-nll", trl_version=TRL_VERSION)
    out["llama-sft-fsdp2-w4-lora-bf16-ckpt"] = fsdp(2, 4, runner="sft", **half, **ckpt, **sft, method="lora", lora=LORA_QV)
    # A full fine-tune under SFT's chunked_nll: the head trains, and under FSDP2 TRL gathers its weight with
    # full_tensor() where it is a DTensor (trl/trainer/sft_trainer.py _patch_chunked_ce_lm_head).
    out["llama-sft-fsdp2-w4-full-amp-ckpt"] = fsdp(2, 4, runner="sft", **amp, **ckpt, **sft)
    out["llama-sft-fsdp1-w4-full-amp-ckpt"] = fsdp(1, 4, runner="sft", **amp, **ckpt, **sft, fsdp_backward_prefetch="none")
    # A tied head (the tail unit holds the embedding), CPU offload, and LoRA under FSDP1; the Gemma run's twin through
    # the HF Trainer (transformers' loss).
    out["gemma3-sft-fsdp2-w4-full-amp-ckpt"] = fsdp(2, 4, "gemma3", runner="sft", **amp, **ckpt, **sft)
    out["gemma3-fsdp2-w4-full-amp-ckpt"] = fsdp(2, 4, "gemma3", **amp, **ckpt)
    out["llama-sft-fsdp2-w2-lora-bf16-ckpt-offload"] = fsdp(2, 2, runner="sft", **half, **ckpt, **off, **sft, method="lora",
                                                            lora=LORA_QV)
    out["qwen3-sft-fsdp1-w4-lora-bf16-ckpt"] = fsdp(1, 4, "qwen3", runner="sft", **half, **ckpt, **sft, method="lora",
                                                    lora=lora("qwen3", LORA_QV), fsdp_backward_prefetch="none")
    # FSDP1 through Accelerate's plugin, as transformers 5 still offers it (fsdp_config version 1): the trainer's
    # defaults (use_orig_params, no backward prefetch), and PEFT's QLoRA + FSDP recipe without the 4-bit base.
    out["llama-fsdp1-w4-full-amp"] = fsdp(1, 4, **amp, fsdp_backward_prefetch="none")
    out["llama-fsdp1-w4-full-amp-offload"] = fsdp(1, 4, **amp, **off, fsdp_backward_prefetch="none")
    recipe = dict(half, **ckpt, method="lora", checkpoint_reentrant=True, fsdp_use_orig_params=False, fsdp_backward_prefetch="pre",
                  fsdp_adapters_wrapped=True)
    out["llama-fsdp1-w2-lora-all-bf16-ckpt-reentrant-offload"] = fsdp(1, 2, **recipe, **off, lora=LORA_ALL)
    out["qwen2-fsdp1-w8-lora-all-bf16-ckpt-reentrant"] = fsdp(1, 8, "qwen2", **recipe, lora=lora("qwen2", LORA_ALL))
    # The trainer's FSDP1 with use_orig_params and PEFT's wrap, no mixed precision (fms-hf-tuning's benchmark runs).
    out["llama-fsdp1-w2-lora-qkvo-bf16-nomp-ckpt-reentrant"] = fsdp(1, 2, **NOMP_LORA, fsdp_use_orig_params=True,
                                                                   fsdp_backward_prefetch="pre", fsdp_adapters_wrapped=True)
    # Deeper, with a small vocabulary, so that the first layer's backward is the peak: transformers 5 checkpoints inside
    # the layer, so no FSDP1 hook keeps the other layers' inputs (src/core/terms/fsdp1-frozen-inputs.ts).
    for layers, seq in ((8, 512), (16, 1024)):
        sc, h = fsdp(1, 2, **dict(NOMP_LORA, seq_len=seq), fsdp_use_orig_params=True, fsdp_backward_prefetch="pre",
                     fsdp_adapters_wrapped=True)
        sc["architecture"] = dict(sc["architecture"], num_hidden_layers=layers, vocab_size=512)
        out[f"llama-fsdp1-w2-lora-qkvo-bf16-nomp-ckpt-reentrant-l{layers}v512"] = (sc, h)
    # DDP as Accelerate wraps the model for the trainer, which asks for find_unused_parameters for a PEFT model or one
    # without gradient checkpointing.
    unused = dict(ddp_find_unused_parameters=True)
    for name, keys in (("full-amp", amp), ("lora-bf16", dict(weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=LORA_QV)),
                       ("lora-bf16-ckpt", dict(weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=LORA_QV, **ckpt))):
        out[f"llama-ddp-w2-{name}"] = (scenario("llama", gpus_per_node=2, **keys, **unused), {"runner": "trainer", "parallel": "ddp"})
    out["qwen3-ddp-w4-lora-bf16-ckpt"] = (
        scenario("qwen3", gpus_per_node=4, weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=LORA_QV, **ckpt, **unused),
        {"runner": "trainer", "parallel": "ddp"})
    out["qwen3-ddp-w4-full-amp"] = (scenario("qwen3", gpus_per_node=4, **amp, **unused), {"runner": "trainer", "parallel": "ddp"})
    out["llama-sft-ddp-w2-lora-bf16"] = (scenario("llama", gpus_per_node=2, weights_dtype="bf16", mixed_precision="bf16", method="lora",
                                                  lora=LORA_QV, **sft, **unused), {"runner": "sft", "parallel": "ddp"})
    out.update(_accelerate_trl(half, unused))
    out.update(_accelerate_deepspeed(ckpt, sft))
    for k, (sc, h) in out.items():
        if sc.get("checkpoint_reentrant"):
            h["reentrant"] = True
    return out


def _accelerate_deepspeed(ckpt, sft):
    """The HF Trainer and TRL's SFTTrainer under DeepSpeed ZeRO, given a `deepspeed` config as PEFT's and Axolotl's
    recipes give it (truthlib/hf_zero.py): at stage 3 the model made inside ZeRO-Init (the arguments come first) and
    PEFT's adapters added after it in fp32, which DeepSpeed 0.19.6 leaves as they are; at stage 2 the engine casts the
    whole model, adapters included, to bf16. DeepSpeed's bf16 mode, the trainer's torch AdamW as its client optimizer."""
    out = {}
    ds = dict(weights_dtype="bf16", master_weights=True, mixed_precision="none", zero_buckets=dict(ZERO_SMALL))

    def point(stage, runner="trainer", **keys):
        return scenario("llama", gpus_per_node=8, zero_stage=stage, **ds, **keys), {"runner": runner, "parallel": "deepspeed"}

    lora3 = dict(ckpt, method="lora", lora=dict(LORA_ALL, dtype="fp32"))
    out["llama-z3-w8-lora-all-bf16-ckpt"] = point(3, **lora3)
    out["llama-z3-w8-full-bf16"] = point(3)
    out["llama-z2-w8-lora-all-bf16-ckpt"] = point(2, **ckpt, method="lora", lora=dict(LORA_ALL, dtype="bf16"))
    # TRL's SFTTrainer forces reentrant checkpointing for a PEFT model under ZeRO-3 (sft_trainer.py, trl#2514).
    out["llama-sft-z3-w8-lora-all-bf16-ckpt"] = point(3, runner="sft", **lora3, **sft, checkpoint_reentrant=True)
    # QLoRA as PEFT's ZeRO-3 recipe loads it through the Trainer (no device_map, the codes stored in bf16), with
    # transformers 5's non-reentrant checkpointing: transformers makes a quantized model outside zero.Init, so DeepSpeed
    # casts the adapters to bf16, and bitsandbytes' matmuls keep every gathered weight (zero suite, FINDINGS §90).
    wide = qlora_scenario("llama", lora=dict(lora("llama", LORA_ALL), dtype="bf16"), micro_batch_size=1, seq_len=256,
                          gradient_checkpointing="full", gpus_per_node=8, zero_stage=3, zero3_init=False, **ds)
    wide["architecture"].update(WIDE)
    out["llama-wide-z3-w8-qlora-all-bf16-ckpt"] = (wide, {"runner": "trainer", "parallel": "deepspeed",
                                                          "quant_storage": "weights"})
    # ms-swift's ZeRO-3 LoRA example of December 2024 (FINDINGS 115): PEFT's fp32 adapters, dropout, reentrant
    # checkpointing, 2 ranks, under DeepSpeed 0.16.5 and 0.14.4.
    for release in ("0.16.5", "0.14.4"):
        swift = point(3, **ckpt, method="lora", lora=dict(LORA_ALL, dtype="fp32", dropout=0.05), checkpoint_reentrant=True,
                      deepspeed_version=release)
        swift[0]["gpus_per_node"] = 2
        out[f"llama-z3-w2-lora-all-fp32-dropout-ckpt-reentrant-ds{release}"] = (
            swift[0], dict(swift[1], reentrant=True, deepspeed=release))
    # PEFT's recipe as it ran in March 2024: reentrant checkpointing, 2 ranks, DeepSpeed 0.14 beside 0.19.6.
    for release in (None, "0.14.4"):
        two = dict(wide, gpus_per_node=2, checkpoint_reentrant=True, **({"deepspeed_version": release} if release else {}))
        harness = {"runner": "trainer", "parallel": "deepspeed", "quant_storage": "weights", "reentrant": True}
        out["llama-wide-z3-w2-qlora-all-bf16-ckpt-reentrant" + (f"-ds{release}" if release else "")] = (
            two, dict(harness, **({"deepspeed": release} if release else {})))
    return out


def _accelerate_trl(half, unused):
    """TRL's DPO over several ranks: the trainer prepares the policy, and a reference copy in Accelerate's evaluation
    mode (sharded as the policy under FSDP), as for SFT."""
    out = {}
    dpo = {"runner": "dpo", "prompt_len": 128, "completion_len": 64}
    pref = {"logps": "rows"}
    lora_keys = dict(weights_dtype="bf16", mixed_precision="bf16", method="lora", lora=LORA_QV, seq_len=193, trl_version=TRL_VERSION)
    out["llama-dpo-ddp-w2-lora-bf16"] = (scenario("llama", gpus_per_node=2, **lora_keys, **unused,
                                                  preference=dict(pref, reference="adapters-off")), dict(dpo, parallel="ddp"))
    out["llama-dpo-fsdp2-w4-full-bf16"] = (
        scenario("llama", gpus_per_node=4, fsdp="full_shard", fsdp_version=2, fsdp_tail_unit=True, **half, seq_len=193,
                 trl_version=TRL_VERSION, preference=dict(pref, reference="copy")), dict(dpo, parallel="fsdp2"))
    # GRPO and RLOO with a reference (beta > 0): TRL loads it by the policy's name, in float32 without model_init_kwargs
    # (trl create_model_from_path), and wraps it whole in one FSDP2 unit (prepare_fsdp); the rewards are gathered over
    # the ranks (truthlib/parallel.py passes the fake group a flat input).
    fsdp2 = dict(gpus_per_node=4, fsdp="full_shard", fsdp_version=2, fsdp_tail_unit=True, **half, seq_len=96, trl_version=TRL_VERSION,
                 rollout={"batch": 2, "completion_len": 32, "engine": "generate", "reference": "copy"}, reference_dtype="fp32")
    pg = {"prompt_len": 64, "num_generations": 2, "beta": 0.04, "parallel": "fsdp2"}
    out["llama-grpo-fsdp2-w4-full-bf16"] = (scenario("llama", **fsdp2), dict(pg, runner="grpo"))
    out["llama-rloo-fsdp2-w4-full-bf16"] = (scenario("llama", **fsdp2), dict(pg, runner="rloo"))
    return out


def suite_layer():
    """Points whose backward peaks inside the layers, not at the loss: a 512-word vocabulary and 1,024-token sequences,
    so a layer's recomputed tensors and its backward's working set outweigh the logits and their gradients."""
    out = {}
    small = dict(vocab_size=512)
    for fam in ("llama", "qwen3", "mistral", "gemma3"):
        arch = dict(FAMILIES[fam], **small)
        def sc(**keys):
            s = scenario(fam, seq_len=1024, **keys)
            s["architecture"] = dict(arch)
            return s
        qv = lora(fam, LORA_QV)
        out[f"{fam}-lora-all-bf16-ckpt"] = (sc(weights_dtype="bf16", method="lora", lora=lora(fam, LORA_ALL),
                                               gradient_checkpointing="full"), {})
        out[f"{fam}-lora-bf16-ckpt"] = (sc(weights_dtype="bf16", method="lora", lora=qv, gradient_checkpointing="full"), {})
        out[f"{fam}-full-bf16-ckpt"] = (sc(weights_dtype="bf16", gradient_checkpointing="full"), {})
        out[f"{fam}-lora-all-bf16"] = (sc(weights_dtype="bf16", method="lora", lora=lora(fam, LORA_ALL)), {})
        out[f"{fam}-full-bf16"] = (sc(weights_dtype="bf16"), {})
        out[f"{fam}-lora-all-fp32-ckpt"] = (sc(method="lora", lora=lora(fam, LORA_ALL), gradient_checkpointing="full"), {})
    return out


def suite_tf4():
    """transformers 4.57 (tools/truth/.venv4): MoE experts as nn.Linear loops, reentrant checkpointing by default."""
    out = {}
    for fam in ("llama", "mistral", "qwen2", "mixtral"):
        v4 = dict(transformers_version="4.57")
        out[f"{fam}-full-fp32"] = (scenario(fam, **v4), {})
        out[f"{fam}-full-bf16-eager"] = (scenario(fam, **v4, weights_dtype="bf16", attention="eager"), {})
        out[f"{fam}-lora-bf16-ckpt-reentrant"] = (scenario(fam, **v4, weights_dtype="bf16", method="lora", lora=LORA_QV,
                                                           gradient_checkpointing="full", seq_len=512), {"reentrant": True})
        out[f"{fam}-trainer-full-amp"] = (scenario(fam, **v4, mixed_precision="bf16"), {"runner": "trainer"})
    return out


FLASH_FAMILIES = ["llama", "mistral", "qwen2", "qwen3", "phi3", "gemma2", "gemma3", "mixtral", "qwen3_moe", "gpt_neox", "opt", "gpt2"]


def suite_flash():
    """`attention: flash`: transformers' flash_attention_2 path (the unpad / pad of padded batches, the varlen path of
    packed position ids) with the kernel's allocations (truthlib/flash.py)."""
    out = {}
    for fam in FLASH_FAMILIES:
        qv = lora(fam, LORA_QV) if fam != "phi3" else dict(LORA_QV, target_modules=["qkv_proj"])
        fa = dict(attention="flash")
        out[f"{fam}-lora-bf16"] = (scenario(fam, **fa, weights_dtype="bf16", method="lora", lora=qv), {})
        out[f"{fam}-full-amp"] = (scenario(fam, **fa, mixed_precision="bf16"), {})
        # A batch padded to its longest sample: q, k and v unpadded for the varlen kernel, the output padded back.
        padded = dict(fa, batch_lengths="variable", padded_batches=True)
        out[f"{fam}-lora-bf16-padded"] = (scenario(fam, **padded, weights_dtype="bf16", method="lora", lora=qv), {"pad": 64})
        out[f"{fam}-full-amp-padded"] = (scenario(fam, **padded, mixed_precision="bf16"), {"pad": 64})
        out[f"{fam}-lora-bf16-ckpt-padded"] = (scenario(fam, **padded, weights_dtype="bf16", method="lora", lora=qv,
                                                        gradient_checkpointing="full", seq_len=512), {"pad": 128})
        out[f"{fam}-trainer-lora-bf16-ckpt"] = (scenario(fam, **fa, weights_dtype="bf16", mixed_precision="bf16", method="lora",
                                                         lora=qv, gradient_checkpointing="full", seq_len=512), {"runner": "trainer"})
        if fam in ("llama", "qwen3", "mistral"):
            # TRL's packing (best-fit decreasing, padding-free): two 128-token rows per 256-token bin, the micro-batch
            # flattened into one row with position ids that restart, the varlen kernel.
            out[f"{fam}-sft-lora-bf16-packed"] = (scenario(fam, **fa, weights_dtype="bf16", mixed_precision="bf16", method="lora",
                                                           lora=qv, loss="chunked-nll", trl_version=TRL_VERSION),
                                                  {"runner": "sft", "packed_rows": 128})
    return out


# Buckets scaled to the tiny models (DeepSpeed's defaults, 5e8 elements, would dwarf a 3.5M-parameter model): a few
# gradient flushes per backward, a prefetch smaller than a layer, norms below the persistence threshold.
ZERO_SMALL = {"reduce_bucket_size": 200000, "allgather_bucket_size": 200000, "stage3_prefetch_bucket_size": 50000,
              "stage3_max_live_parameters": 1000000, "stage3_max_reuse_distance": 1000000,
              "stage3_param_persistence_threshold": 1000}
ZERO_FAMILIES = ["llama", "mistral", "qwen2", "qwen3", "gemma3", "mixtral"]


def _zero(fam, stage, world=8, method="full", buckets=ZERO_SMALL, **keys):
    """DeepSpeed's bf16 mode (the HF Trainer's `bf16: true` under DeepSpeed): the whole model in bf16, adapters
    included, fp32 master partitions in its optimizer, no autocast. The model is made before deepspeed.initialize,
    outside deepspeed.zero.Init (truthlib/zero.py), as a loop with Accelerate's zero3_init_flag off makes it."""
    base = dict(weights_dtype="bf16", master_weights=True, mixed_precision="none", zero_stage=stage, gpus_per_node=world,
                zero_buckets=dict(buckets))
    if stage == 3:
        base["zero3_init"] = False
    if method == "lora":
        base.update(method="lora", lora=dict(LORA_ALL, dtype="bf16"), gradient_checkpointing="full", seq_len=512)
    base.update(keys)
    return scenario(fam, **base)


def suite_zero():
    out = {}
    for fam in ZERO_FAMILIES:
        out[f"{fam}-w8-z3-full"] = (_zero(fam, 3), {})
        out[f"{fam}-w8-z3-full-ckpt"] = (_zero(fam, 3, gradient_checkpointing="full", seq_len=512), {})
        out[f"{fam}-w8-z3-lora-all-ckpt"] = (_zero(fam, 3, method="lora"), {})
        out[f"{fam}-w8-z2-full"] = (_zero(fam, 2), {})
        out[f"{fam}-w8-z2-lora-all-ckpt"] = (_zero(fam, 2, method="lora"), {})
        out[f"{fam}-w4-z1-full"] = (_zero(fam, 1, world=4), {})
    # One rank: DeepSpeed points each parameter at its partition (NoGatherCoalescedHandle) and gathers nothing.
    out["llama-w1-z3-full"] = (_zero("llama", 3, world=1), {})
    out["llama-w1-z3-lora-all-ckpt"] = (_zero("llama", 3, world=1, method="lora"), {})
    for world in (2, 4, 16):
        out[f"llama-w{world}-z3-full"] = (_zero("llama", 3, world=world), {})
        out[f"llama-w{world}-z3-lora-all-ckpt"] = (_zero("llama", 3, world=world, method="lora"), {})
        out[f"llama-w{world}-z2-full"] = (_zero("llama", 2, world=world), {})
    out["llama-w8-z3-lora-all-ckpt-reentrant"] = (_zero("llama", 3, method="lora"), {"reentrant": True})
    out["llama-w8-z3-lora-qv-dropout-ckpt"] = (_zero("llama", 3, method="lora", lora=dict(LORA_QV, dtype="bf16", dropout=0.1)), {})
    out["llama-w8-z3-lora-all-ckpt-defaults"] = (_zero("llama", 3, method="lora", buckets={}), {})
    out["llama-w8-z2-full-defaults"] = (_zero("llama", 2, buckets={}), {})
    out["llama-w8-z2-full-overlap"] = (_zero("llama", 2, buckets=dict(ZERO_SMALL, overlap_comm=True)), {})
    out["llama-w8-z2-full-accum2"] = (_zero("llama", 2, gradient_accumulation_steps=2), {})
    out["llama-w8-z3-full-accum2"] = (_zero("llama", 3, gradient_accumulation_steps=2), {})
    out["llama-w8-z3-full-fp32"] = (_zero("llama", 3, weights_dtype="fp32", master_weights=False), {})
    out["llama-w8-z2-full-fp32"] = (_zero("llama", 2, weights_dtype="fp32", master_weights=False), {})
    # Four layers, a reuse distance of about two layers: the layers kept gathered from the forward into the backward.
    four = dict(FAMILIES["llama"], num_hidden_layers=4)
    out["llama4-w8-z3-full-reuse"] = (_zero("llama", 3, architecture=four, buckets=dict(ZERO_SMALL, stage3_max_reuse_distance=2000000)), {})
    out["llama4-w8-z3-full-ckpt-reuse"] = (_zero("llama", 3, architecture=four, gradient_checkpointing="full", seq_len=512,
                                                 buckets=dict(ZERO_SMALL, stage3_max_reuse_distance=2000000)), {})
    out["llama4-w8-z3-lora-all-ckpt"] = (_zero("llama", 3, method="lora", architecture=four), {})
    # ZeRO-Offload: the fp32 master partitions, their gradients and the optimizer state in host memory.
    out["llama-w8-z3-full-offload-opt"] = (_zero("llama", 3, offload_optimizer="cpu"), {})
    out["llama-w8-z3-full-offload-all"] = (_zero("llama", 3, offload_optimizer="cpu", offload_params="cpu"), {})
    out["llama-w8-z2-full-offload-opt"] = (_zero("llama", 2, offload_optimizer="cpu"), {})
    # Accumulation over two micro-batches with the optimizer offloaded: the gradients accumulate on the host.
    out["llama-w8-z3-full-offload-opt-ga2"] = (_zero("llama", 3, offload_optimizer="cpu", gradient_accumulation_steps=2), {})
    out["llama-w8-z2-full-offload-opt-ga2"] = (_zero("llama", 2, offload_optimizer="cpu", gradient_accumulation_steps=2), {})
    # Wide layers and a 512-word vocabulary, so that the backward's end (every gradient partition) is the peak: with
    # the optimizer offloaded the partitions are on the host (stage3.py: its flat gradient buffer on the CPU).
    wide = dict(FAMILIES["llama"], hidden_size=1024, intermediate_size=2752, num_attention_heads=8,
                num_key_value_heads=8, vocab_size=512)
    for sfx, keys in (("", {}), ("-offload-opt", dict(offload_optimizer="cpu"))):
        s = _zero("llama", 3, world=1, **keys)
        s["architecture"] = dict(wide)
        out[f"llama-wide-small-vocab-w1-z3-full{sfx}"] = (s, {})
    # Each reduced partition comes back from the host buffer for the boundary's fp64 norm and fp32 copy
    # (truthlib/zero.py gpu_copy_of_host_gradients): over 4 ranks, checkpointed, with adapters, under ZeRO-2, and with an
    # 8,192-word head whose partition is the largest.
    offload = dict(offload_optimizer="cpu")
    variants = {
        "llama-wide-small-vocab-w4-z3-full-offload-opt": (dict(world=4), wide),
        "llama-wide-small-vocab-w1-z3-full-ckpt-offload-opt": (dict(world=1, gradient_checkpointing="full"), wide),
        "llama-wide-small-vocab-w2-z3-lora-all-offload-opt": (dict(world=2, method="lora", gradient_checkpointing="none",
                                                                  seq_len=256), wide),
        "llama-wide-small-vocab-w1-z2-full-offload-opt": (dict(world=1, stage=2), wide),
        "llama-wide-small-vocab-w4-z2-full-offload-opt": (dict(world=4, stage=2), wide),
        "llama-wide-small-vocab-w4-z2-full-offload-opt-last-rank": (dict(world=4, stage=2), wide),
        "llama-wide-vocab8k-w1-z3-full-offload-opt": (dict(world=1), dict(wide, vocab_size=8192)),
        "llama-wide-vocab8k-w4-z3-full-offload-opt": (dict(world=4), dict(wide, vocab_size=8192)),
        "llama-wide-vocab8k-w4-z2-full-offload-opt-last-rank": (dict(world=4, stage=2), dict(wide, vocab_size=8192)),
        "llama-wide-small-vocab-w4-z1-full-offload-opt-last-rank": (dict(world=4, stage=1), wide),
        "llama-wide-vocab8k-w4-z1-full-offload-opt-last-rank": (dict(world=4, stage=1), dict(wide, vocab_size=8192)),
    }
    for name, (keys, arch) in variants.items():
        keys = dict(keys)
        s = _zero("llama", keys.pop("stage", 3), **offload, **keys)
        s["architecture"] = dict(arch)
        # ZeRO-2's last rank holds the head and the last layer: it checks their gradients beside every activation.
        out[name] = (s, {"rank": "last"} if name.endswith("-last-rank") else {})
    out["llama-w8-z3-lora-all-ckpt-offload-opt"] = (_zero("llama", 3, method="lora", offload_optimizer="cpu"), {})
    # Without checkpointing: ZeRO-3's linear saves the inputs of frozen linears (and of the frozen head), and the
    # matmuls' views keep frozen fused experts gathered; ZeRO-2 runs torch's own linear (the same layouts as controls).
    qv_dropout = dict(LORA_QV, dtype="bf16", dropout=0.1)
    for fam in ("llama", "mixtral"):
        out[f"{fam}-w8-z3-lora-all"] = (_zero(fam, 3, method="lora", gradient_checkpointing="none"), {})
        out[f"{fam}-w8-z3-lora-qv-dropout"] = (_zero(fam, 3, method="lora", lora=qv_dropout, gradient_checkpointing="none"), {})
        out[f"{fam}-w8-z2-lora-qv-dropout"] = (_zero(fam, 2, method="lora", lora=qv_dropout, gradient_checkpointing="none"), {})
    out["mixtral-w8-z3-full-fp32"] = (_zero("mixtral", 3, weights_dtype="fp32", master_weights=False), {})
    # Eight layers, with a prefetch bucket and a live limit in the proportion of DeepSpeed's defaults to a 7-8B model's
    # modules (5e7 against 4-59M, 1e9 against 218M a layer): the prefetch runs ahead to the limit.
    eight = dict(FAMILIES["llama"], num_hidden_layers=8)
    ahead = dict(ZERO_SMALL, stage3_prefetch_bucket_size=166000, stage3_max_live_parameters=3300000, stage3_max_reuse_distance=1000)
    out["llama8-w8-z3-full-runahead"] = (_zero("llama", 3, architecture=eight, buckets=ahead), {})
    out["llama8-w8-z3-lora-all-ckpt-runahead"] = (_zero("llama", 3, method="lora", architecture=eight, buckets=ahead), {})
    # The same under earlier DeepSpeed releases (harness `deepspeed`, DEEPSPEED_SRC_DIR): before 0.15.4 the count of
    # available parameters drifts by the embedding (reentrant LoRA); before 0.19.4 a model made outside zero.Init runs
    # torch's linear, which keeps each gathered weight until its backward (the full fine-tune).
    for release in ("0.10.3", "0.12.6", "0.14.4", "0.15.0", "0.16.5"):
        out[f"llama8-w8-z3-lora-all-ckpt-runahead-ds{release}"] = (
            _zero("llama", 3, method="lora", architecture=eight, buckets=ahead, deepspeed_version=release,
                  checkpoint_reentrant=True),
            {"deepspeed": release, "reentrant": True})
        out[f"llama8-w8-z3-full-runahead-ds{release}"] = (
            _zero("llama", 3, architecture=eight, buckets=ahead, deepspeed_version=release), {"deepspeed": release})
    # LoRA without checkpointing: the frozen base weights are saved too (their input's gradient), 0.16.5 against 0.19.6.
    lora_none = dict(method="lora", architecture=eight, buckets=ahead, gradient_checkpointing="none", seq_len=256)
    out["llama8-w8-z3-lora-all-runahead"] = (_zero("llama", 3, **lora_none), {})
    out["llama8-w8-z3-lora-all-runahead-ds0.16.5"] = (_zero("llama", 3, deepspeed_version="0.16.5", **lora_none),
                                                      {"deepspeed": "0.16.5"})
    # gpt-oss multiplies by its [E, h, 2I] experts as they are (no view): nothing is kept gathered; the eager attention
    # it runs with sinks. ZeRO-2 as the control.
    for stage in (2, 3):
        out[f"gptoss-w8-z{stage}-full"] = (_zero("llama", stage, architecture=GPT_OSS, attention="eager"), {})
    # "auto" buckets as Axolotl's and LLaMA-Factory's stage-3 files and HF's examples write them, filled by the HF
    # Trainer's own code from the hidden size (truthlib/zero.py fill_auto): hidden², 0.9 x hidden², 10 x hidden.
    hf_auto = {"reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto"}
    axolotl = dict(hf_auto, overlap_comm=True, contiguous_gradients=True, sub_group_size=0, stage3_max_live_parameters=0,
                   stage3_max_reuse_distance=0)
    llamafactory = dict(hf_auto, overlap_comm=False, contiguous_gradients=True, sub_group_size=1000000000,
                        stage3_max_live_parameters=1000000000, stage3_max_reuse_distance=1000000000)
    out["llama-w8-z3-lora-all-ckpt-axolotl"] = (_zero("llama", 3, method="lora", buckets=axolotl), {})
    out["llama-w8-z3-full-axolotl"] = (_zero("llama", 3, buckets=axolotl), {})
    out["llama-w8-z3-full-llamafactory"] = (_zero("llama", 3, buckets=llamafactory), {})
    out["llama-w8-z2-full-auto"] = (_zero("llama", 2, buckets={"reduce_bucket_size": "auto", "overlap_comm": True}), {})
    out.update(_zero_qlora())
    out.update(_older_releases(out))
    return out


# Published runs of 2023-2024 ran DeepSpeed 0.10-0.14: LoRA, QLoRA, offload and ZeRO-2 points again under them. Not
# LoRA under ZeRO-3 with non-reentrant checkpointing: those releases fail its recompute (torch.utils.checkpoint
# CheckpointError, the recomputed tensors' metadata differ), which is why the recipes of the time ran the reentrant form.
OLDER_RELEASE_POINTS = (
    "llama-w8-z3-lora-all-ckpt-reentrant", "llama-w8-z3-lora-all", "llama-w8-z2-lora-all-ckpt",
    "llama-w8-z3-full-offload-all", "llama-w8-z3-full-offload-opt", "llama-w8-z2-full-offload-opt", "llama-w8-z2-full",
    "llama-w8-z3-full-ckpt", "llama-wide-w8-z3-qlora-all-ckpt-reentrant", "mixtral-w8-z3-lora-all",
    "llama-w8-z2-lora-qv-dropout", "llama-w8-z3-lora-qv-dropout", "llama-wide-small-vocab-w2-z3-lora-all-offload-opt",
    "llama-w8-z3-full-offload-opt-ga2", "llama-w8-z2-full-offload-opt-ga2",
)


def _older_releases(points):
    out = {}
    for release in ("0.10.3", "0.12.6", "0.14.4"):
        for name in OLDER_RELEASE_POINTS:
            scenario, harness = points[name]
            out[f"{name}-ds{release}"] = (dict(scenario, deepspeed_version=release), dict(harness, deepspeed=release))
    return out


def _zero_qlora():
    """A bitsandbytes 4-bit base with LoRA under ZeRO-3 (PEFT's ZeRO-3 QLoRA recipe: the codes stored in bf16, which
    DeepSpeed partitions; BNB_SRC and DEEPSPEED_SRC both), wide layers as in the qlora suite. transformers loads a
    quantized model outside zero.Init, so DeepSpeed's bf16 mode casts the adapters to bf16. With non-reentrant,
    reentrant and no checkpointing, and ZeRO-2 as the control. bitsandbytes' MatMul4Bit keeps the weight it was given
    (`ctx.tensors = (None, B)`, a view of the gathered storage) past DeepSpeed's release of the parameter."""
    out = {}
    for fam in ("llama", "qwen2"):
        for world in (1, 2, 8) if fam == "llama" else (2, 8):
            def wide(stage=3, **keys):
                s = qlora_scenario(fam, lora=dict(lora(fam, LORA_ALL), dtype="bf16"), micro_batch_size=1, seq_len=256,
                                   master_weights=True, mixed_precision="none", zero_stage=stage, gpus_per_node=world,
                                   zero_buckets=dict(ZERO_SMALL), **keys)
                if stage == 3:
                    s["zero3_init"] = False
                s["architecture"].update(WIDE)
                return s

            storage = {"quant_storage": "weights"}
            out[f"{fam}-wide-w{world}-z3-qlora-all-ckpt"] = (wide(gradient_checkpointing="full"), storage)
            out[f"{fam}-wide-w{world}-z3-qlora-all-ckpt-reentrant"] = (
                wide(gradient_checkpointing="full"), dict(storage, reentrant=True))
            out[f"{fam}-wide-w{world}-z3-qlora-all"] = (wide(gradient_checkpointing="none"), storage)
        out[f"{fam}-wide-w8-z2-qlora-all-ckpt"] = (wide(stage=2, gradient_checkpointing="full"), storage)
    # PEFT's recipe ran DeepSpeed 0.14 (March 2024): the reentrant point again under that release and the next two.
    for release in ("0.14.4", "0.15.0", "0.16.5"):
        out[f"llama-wide-w2-z3-qlora-all-ckpt-reentrant-ds{release}"] = (
            dict(out["llama-wide-w2-z3-qlora-all-ckpt-reentrant"][0], deepspeed_version=release),
            {"quant_storage": "weights", "reentrant": True, "deepspeed": release})
    return out


def suite_hybrid():
    """Hybrid families on transformers' reference PyTorch mixers (plain loop): full and LoRA, with and without
    checkpointing, under autocast."""
    variants = {
        "full-bf16": dict(weights_dtype="bf16"),
        "full-fp32": dict(),
        "full-amp": dict(mixed_precision="bf16"),
        "full-bf16-ckpt": dict(weights_dtype="bf16", gradient_checkpointing="full"),
        "lora-all-bf16": dict(weights_dtype="bf16", method="lora", lora=LORA_ALL),
        "lora-all-bf16-ckpt": dict(weights_dtype="bf16", method="lora", lora=LORA_ALL, gradient_checkpointing="full"),
    }
    out = {}
    for fam, arch in HYBRIDS.items():
        kernels = HYBRID_KERNELS.get(fam, {"mamba_kernels": "torch"})
        for name, v in variants.items():
            s = {"architecture": dict(arch), "method": "full", "weights_dtype": "fp32", "micro_batch_size": 2,
                 "seq_len": HYBRID_SEQ.get(fam, 256), "attention": "sdpa", "optimizer": "adamw", "cuda_context_bytes": 0,
                 **kernels}
            s.update(v)
            if "lora" in s and fam in HYBRID_LORA:
                s["lora"] = dict(s["lora"], target_modules=HYBRID_LORA[fam])
            out[f"{fam}-{name}"] = (s, {})
    return out


QLORA_FAMILIES = ["llama", "mistral", "qwen2", "qwen3", "gemma2", "phi3"]
# What the estimator says of the release the points run (bnb.py: the checkout's own, 0.50.1 at these fixtures): no
# kept input in its 4-bit matmul (from 0.43.2), the weight dequantized whole for each matmul of a training shape.
BNB_VERSION = "0.50.1"
NF4 = {"bits": 4, "type": "nf4", "double_quant": True}


def qlora_scenario(fam, **keys):
    """A bitsandbytes 4-bit base (transformers' BitsAndBytesConfig, every linear but the head) with LoRA, bf16."""
    base = dict(weights_dtype="bf16", method="qlora", quantization=NF4, bitsandbytes_version=BNB_VERSION,
                attention=default_attention(fam))
    base.update(keys)
    return scenario(fam, **base)


# Wider layers, a small vocabulary and one short sequence: the 4-bit weights, their dequantized copies and the
# gathered units outweigh the loss, as in a QLoRA run of a large model at a small batch.
WIDE = dict(hidden_size=1024, intermediate_size=2752, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=4, vocab_size=512)


def _weight_heavy_qlora():
    out = {}
    harness = {"parallel": "fsdp1", "wrap": "peft", "use_orig_params": False, "reentrant": True}
    for fam in ("llama", "qwen2"):
        every = lora(fam, LORA_ALL)
        base = dict(lora=every, micro_batch_size=1, seq_len=256, gradient_checkpointing="full")

        def wide(**keys):
            s = qlora_scenario(fam, **dict(base, **keys))
            s["architecture"].update(WIDE)
            return s

        out[f"{fam}-wide-qlora-all-ckpt"] = (wide(), {})
        out[f"{fam}-wide-qlora-all-ckpt-reentrant"] = (wide(), {"reentrant": True})
        out[f"{fam}-wide-qlora-all"] = (wide(gradient_checkpointing="none"), {})
        out[f"{fam}-wide-trainer-qlora-all-ckpt"] = (wide(mixed_precision="bf16"), {"runner": "trainer"})
        out[f"{fam}-wide-w2-ddp-qlora-all-ckpt"] = (wide(gpus_per_node=2, mixed_precision="bf16"), {"parallel": "ddp"})
        for world in (2, 8):
            keys = dict(fsdp="full_shard", fsdp_version=1, gpus_per_node=world, mixed_precision="bf16", fsdp_use_orig_params=False,
                        fsdp_adapters_wrapped=True, fsdp_backward_prefetch="none")
            out[f"{fam}-wide-w{world}-fsdp1-qlora-all-ckpt-reentrant"] = (wide(**keys), harness)
            if world == 2:
                # Non-reentrant: FSDP1 frees a unit's storage in place (resize_(0)), so the view bitsandbytes' matmul
                # keeps of each weight holds nothing, unlike ZeRO-3's (zero suite, *-wide-*-z3-qlora-*).
                out[f"{fam}-wide-w{world}-fsdp1-qlora-all-ckpt"] = (wide(**keys), dict(harness, reentrant=False))
            out[f"{fam}-wide-w{world}-fsdp1-qlora-all-ckpt-reentrant-offload"] = (
                wide(**keys, offload_params="cpu", offload_optimizer="cpu"), harness)
        # FSDP2 (Accelerate's fsdp2_prepare_model: fully_shard per decoder layer and the root) over the 4-bit codes in bf16
        for world in (2, 8):
            keys = dict(fsdp="full_shard", fsdp_version=2, gpus_per_node=world, mixed_precision="bf16")
            out[f"{fam}-wide-w{world}-fsdp2-qlora-all-ckpt"] = (wide(**keys), {"parallel": "fsdp2"})
            out[f"{fam}-wide-w{world}-fsdp2-qlora-all-ckpt-offload"] = (
                wide(**keys, offload_params="cpu", offload_optimizer="cpu"), {"parallel": "fsdp2"})
    return out


def suite_qlora():
    """QLoRA with the real bitsandbytes (truthlib/bnb.py: its Python code, its kernels' allocations as on a GPU): one
    GPU in a loop, the HF Trainer and TRL's SFTTrainer; DDP; Accelerate's FSDP1 plugin as PEFT's QLoRA + FSDP recipe
    runs it (PEFT's wrap policy, use_orig_params false, the codes stored in bf16, reentrant checkpointing), with and
    without CPU offload; and the loop of Answer.AI's fsdp_qlora."""
    out = {}
    for fam in QLORA_FAMILIES:
        qv = dict(LORA_QV, target_modules=["qkv_proj"]) if fam == "phi3" else lora(fam, LORA_QV)
        every = lora(fam, LORA_ALL)
        out[f"{fam}-qlora-qv"] = (qlora_scenario(fam, lora=qv), {})
        out[f"{fam}-qlora-all-ckpt"] = (qlora_scenario(fam, lora=every, gradient_checkpointing="full", seq_len=512), {})
        out[f"{fam}-qlora-all-ckpt-reentrant"] = (qlora_scenario(fam, lora=every, gradient_checkpointing="full", seq_len=512),
                                                 {"reentrant": True})
    llama_all = lora("llama", LORA_ALL)
    ckpt = dict(lora=llama_all, gradient_checkpointing="full", seq_len=512)
    out["llama-qlora-all-nodq"] = (qlora_scenario("llama", lora=llama_all, quantization=dict(NF4, double_quant=False)), {})
    out["llama-qlora-all-fp4"] = (qlora_scenario("llama", lora=llama_all, quantization=dict(NF4, type="fp4")), {})
    out["llama-qlora-all-dropout-ckpt"] = (qlora_scenario("llama", **dict(ckpt, lora=lora("llama", LORA_ALL, dropout=0.1))), {})
    out["llama-qlora-all-b4"] = (qlora_scenario("llama", lora=llama_all, micro_batch_size=4), {})
    # PEFT's prepare_model_for_kbit_training (every unquantized parameter in fp32), and TRL before 0.26 (the norms).
    out["llama-qlora-all-ckpt-upcast-all"] = (qlora_scenario("llama", **ckpt, kbit_upcast="all"), {})
    out["llama-qlora-all-ckpt-upcast-norms"] = (qlora_scenario("llama", **ckpt, kbit_upcast="norms", mixed_precision="bf16"), {})
    # The HF Trainer and TRL's SFTTrainer (chunked_nll since TRL 1.7).
    for fam in ("llama", "qwen3"):
        every = lora(fam, LORA_ALL)
        out[f"{fam}-trainer-qlora-all-ckpt"] = (qlora_scenario(fam, lora=every, mixed_precision="bf16", gradient_checkpointing="full",
                                                               seq_len=512), {"runner": "trainer"})
        out[f"{fam}-sft-qlora-all-ckpt"] = (qlora_scenario(fam, lora=every, mixed_precision="bf16", gradient_checkpointing="full",
                                                           seq_len=512, loss="chunked-nll", trl_version=TRL_VERSION), {"runner": "sft"})
    # DDP: the Reducer buckets only the adapters' gradients.
    for world in (2, 8):
        out[f"llama-w{world}-ddp-qlora-all-ckpt"] = (qlora_scenario("llama", gpus_per_node=world, mixed_precision="bf16", **ckpt),
                                                     {"parallel": "ddp"})
    # Accelerate's FSDP1 plugin, PEFT's QLoRA + FSDP recipe (examples/sft/configs/fsdp_config_qlora.yaml).
    harness = {"parallel": "fsdp1", "wrap": "peft", "use_orig_params": False, "reentrant": True}
    for fam in ("llama", "qwen2"):
        for world in (2, 8):
            keys = dict(fsdp="full_shard", fsdp_version=1, gpus_per_node=world, mixed_precision="bf16", lora=lora(fam, LORA_ALL),
                        gradient_checkpointing="full", seq_len=512, fsdp_use_orig_params=False, fsdp_adapters_wrapped=True,
                        fsdp_backward_prefetch="none")
            out[f"{fam}-w{world}-fsdp1-qlora-all-ckpt-reentrant"] = (qlora_scenario(fam, **keys), harness)
            out[f"{fam}-w{world}-fsdp1-qlora-all-ckpt-reentrant-offload"] = (
                qlora_scenario(fam, **keys, offload_params="cpu", offload_optimizer="cpu"), harness)
    out.update(_weight_heavy_qlora())
    # Answer.AI's fsdp_qlora loop: a bf16 model without mixed precision, `output` held to the step's end.
    keys = dict(fsdp="full_shard", fsdp_version=1, gpus_per_node=2, lora=llama_all, gradient_checkpointing="full", seq_len=512,
                micro_batch_size=4, fsdp_use_orig_params=False, fsdp_adapters_wrapped=True, fsdp_backward_prefetch="none",
                loop_keeps_outputs="step")
    out["llama-w2-fsdp1-qlora-all-ckpt-reentrant-keep-step"] = (qlora_scenario("llama", **keys), harness)
    out["llama-w2-fsdp1-qlora-all-ckpt-reentrant-offload-keep-step"] = (
        qlora_scenario("llama", **keys, offload_params="cpu", offload_optimizer="cpu"), harness)
    return out


def suite_litgpt():
    """LitGPT's own model and LoRA code (truthlib/litgpt.py, from LITGPT_SRC) in its finetune/lora.py loop, bf16-true:
    the fused qkv layer with LoRA on some or all of its parts, multi-head and grouped-query attention; a 512-word
    vocabulary so the layers, not the loss, hold most of the peak."""
    out = {}
    keys = dict(weights_dtype="bf16", method="lora", model_code="litgpt", loss="chunked", loop_keeps_outputs=True)
    for heads, kv in (("mha", 4), ("gqa", 2)):
        arch = dict(FAMILIES["llama"], vocab_size=512, num_hidden_layers=4, num_key_value_heads=kv)
        for name, targets in (("qv", ["q_proj", "v_proj"]), ("qkv", ["q_proj", "k_proj", "v_proj"]),
                              ("mlp", ["gate_proj", "up_proj", "down_proj"]),
                              ("all", ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])):
            adapter = {"r": 8, "alpha": 16, "dropout": 0.05, "target_modules": targets, "dtype": "bf16"}
            s = scenario("llama", seq_len=512, lora=adapter, **keys)
            s["architecture"] = dict(arch)
            out[f"llama-{heads}-lora-{name}-bf16"] = (s, {})
    # finetune/full.py: every parameter trained, the whole head at once.
    for heads, kv in (("mha", 4), ("gqa", 2)):
        s = scenario("llama", seq_len=512, **dict(keys, method="full"))
        s["architecture"] = dict(FAMILIES["llama"], vocab_size=512, num_hidden_layers=4, num_key_value_heads=kv)
        out[f"llama-{heads}-full-bf16"] = (s, {})
    # bf16-mixed (LitGPT's default precision for training on a bf16 GPU): fp32 weights and adapters under autocast.
    for name, targets in (("qv", ["q_proj", "v_proj"]), ("full", None)):
        mixed = dict(keys, weights_dtype="fp32", mixed_precision="bf16")
        if targets:
            mixed["lora"] = {"r": 8, "alpha": 16, "dropout": 0.05, "target_modules": targets, "dtype": "fp32"}
        else:
            mixed["method"] = "full"
        s = scenario("llama", seq_len=512, **mixed)
        s["architecture"] = dict(FAMILIES["llama"], vocab_size=512, num_hidden_layers=4, num_key_value_heads=2)
        out[f"llama-gqa-{'lora-qv' if targets else 'full'}-amp"] = (s, {})
    # Gemma 2 (LitGPT's Gemma-2-2b config at these sizes): soft-capped scores, which LitGPT computes without SDPA.
    gemma2 = dict(FAMILIES["gemma2"], vocab_size=512, num_hidden_layers=4, attn_logit_softcapping=50.0,
                  final_logit_softcapping=30.0)
    for name, targets in (("qv", ["q_proj", "v_proj"]), ("all", ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                                                  "up_proj", "down_proj"])):
        adapter = {"r": 8, "alpha": 16, "dropout": 0.05, "target_modules": targets, "dtype": "bf16"}
        s = scenario("gemma2", seq_len=512, lora=adapter, **keys)
        s["architecture"] = dict(gemma2)
        out[f"gemma2-lora-{name}-bf16"] = (s, {"litgpt_name": "Gemma-2-2b"})
    # Falcon-7B and StableLM-alpha (LitGPT's named configs at these sizes): models whose transformers code fuses q, k
    # and v too, where LitGPT's switches adapt parts of the fused layer.
    for fam, litgpt_name in (("falcon", "falcon-7b"), ("gpt_neox", "stablelm-base-alpha-3b")):
        arch = dict(FAMILIES[fam], vocab_size=512, num_hidden_layers=4)
        for name, targets in (("qv", ["q_proj", "v_proj"]), ("qkv", ["q_proj", "k_proj", "v_proj"])):
            adapter = {"r": 8, "alpha": 16, "dropout": 0.05, "target_modules": targets, "dtype": "bf16"}
            s = scenario(fam, seq_len=512, lora=adapter, **keys)
            s["architecture"] = dict(arch)
            out[f"{fam}-lora-{name}-bf16"] = (s, {"litgpt_name": litgpt_name})
    return out


# The encoders at their real widths (BERT-base, DistilBERT-base; 512 positions, the uncased vocabularies, the
# checkpoints' dropout written out, so the run and the estimate read the same), in a plain loop: a sequence classifier
# and a masked LM, full fine-tunes and LoRA, SDPA and eager attention, with and without checkpointing. The SDPA points
# take no attention dropout: with it the CPU runs SDPA's math kernel and keeps the probabilities, where a GPU's
# memory-efficient and flash kernels (which take the dropout) keep none; the eager points keep the checkpoints' 0.1.
BERT_BASE = {"model_type": "bert", "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
             "num_attention_heads": 12, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2,
             "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}
DISTILBERT_BASE = {"model_type": "distilbert", "dim": 768, "hidden_dim": 3072, "n_layers": 6, "n_heads": 12,
                   "vocab_size": 30522, "max_position_embeddings": 512, "dropout": 0.1, "attention_dropout": 0.1,
                   "seq_classif_dropout": 0.2}
# DeBERTa-v3-base (microsoft/deberta-v3-base config.json): disentangled attention over 256 log-bucketed relative
# positions shared with the content projections, no absolute positions, no token types. Its attention is its own
# (no SDPA path), so its points run eager attention with the checkpoint's dropout, and pass the int64 attention mask
# a tokenizer gives (harness `mask`), of which the encoder builds its b x s x s mask.
DEBERTA_V3_BASE = {"model_type": "deberta-v2", "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
                   "num_attention_heads": 12, "vocab_size": 128100, "max_position_embeddings": 512,
                   "type_vocab_size": 0, "position_biased_input": False, "relative_attention": True,
                   "position_buckets": 256, "max_relative_positions": -1, "pos_att_type": ["p2c", "c2p"],
                   "share_att_key": True, "norm_rel_ebd": "layer_norm",
                   "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "pooler_hidden_size": 768,
                   "pooler_dropout": 0, "pooler_hidden_act": "gelu", "hidden_act": "gelu"}


def suite_encoder():
    out = {}
    for fam, arch, targets, attn_dropout in (
        ("bert", BERT_BASE, ["query", "value"], "attention_probs_dropout_prob"),
        ("distilbert", DISTILBERT_BASE, ["q_lin", "v_lin"], "attention_dropout"),
    ):
        base = {"architecture": dict(arch, **{attn_dropout: 0.0}), "method": "full", "weights_dtype": "fp32", "micro_batch_size": 8,
                "seq_len": 256, "attention": "sdpa", "optimizer": "adamw", "cuda_context_bytes": 0}
        adapter = {"r": 8, "alpha": 16, "dropout": 0.1, "target_modules": targets, "dtype": "fp32",
                   "modules_to_save": ["classifier"]}
        out[f"{fam}-seqcls-full-fp32"] = (dict(base, head="seq_cls", num_labels=2), {})
        eager = dict(base, architecture=dict(arch), head="seq_cls", num_labels=2, attention="eager")
        out[f"{fam}-seqcls-full-fp32-eager"] = (eager, {})
        out[f"{fam}-seqcls-full-amp-ckpt"] = (
            dict(base, head="seq_cls", num_labels=2, mixed_precision="bf16", gradient_checkpointing="full"), {})
        out[f"{fam}-seqcls-lora-fp32"] = (dict(base, head="seq_cls", num_labels=2, method="lora", lora=adapter), {})
        out[f"{fam}-mlm-full-fp32"] = (dict(base, head="masked_lm", micro_batch_size=4), {})
    arch = DEBERTA_V3_BASE
    base = {"architecture": dict(arch), "method": "full", "weights_dtype": "fp32", "micro_batch_size": 8,
            "seq_len": 256, "attention": "eager", "optimizer": "adamw", "cuda_context_bytes": 0, "head": "seq_cls",
            "num_labels": 2}
    adapter = {"r": 8, "alpha": 16, "dropout": 0.1, "target_modules": ["query_proj", "value_proj"], "dtype": "fp32",
               "modules_to_save": ["classifier"]}
    mask = {"mask": True}
    out["deberta-v3-seqcls-full-fp32"] = (base, mask)
    out["deberta-v3-seqcls-full-fp32-s512"] = (dict(base, micro_batch_size=2, seq_len=512), mask)
    out["deberta-v3-seqcls-full-amp"] = (dict(base, mixed_precision="bf16"), mask)
    out["deberta-v3-seqcls-full-amp-ckpt"] = (dict(base, mixed_precision="bf16", gradient_checkpointing="full"), mask)
    out["deberta-v3-seqcls-lora-fp32"] = (dict(base, method="lora", lora=adapter), mask)
    out["deberta-v3-mlm-full-fp32"] = (dict(base, head="masked_lm", micro_batch_size=4), mask)
    return out


# The encoder-decoders at real widths (google/flan-t5-small's config.json: gated GELU, untied head; t5-small's: ReLU,
# tied head), as Seq2SeqTrainer-style loops train them: a source of seq_len tokens in the encoder and a target of
# target_len tokens in the decoder, which the model shifts right into its decoder's input. Dropout off (the scenario's
# dropout_rate 0) so the run and the estimate keep the same tensors.
FLAN_T5_SMALL = {"model_type": "t5", "d_model": 512, "d_ff": 1024, "d_kv": 64, "num_heads": 6, "num_layers": 8,
                 "num_decoder_layers": 8, "vocab_size": 32128, "feed_forward_proj": "gated-gelu",
                 "tie_word_embeddings": False, "relative_attention_num_buckets": 32,
                 "relative_attention_max_distance": 128, "dropout_rate": 0.0,
                 "decoder_start_token_id": 0, "pad_token_id": 0, "eos_token_id": 1}
T5_SMALL = {"model_type": "t5", "d_model": 512, "d_ff": 2048, "d_kv": 64, "num_heads": 8, "num_layers": 6,
            "num_decoder_layers": 6, "vocab_size": 32128, "feed_forward_proj": "relu",
            "relative_attention_num_buckets": 32, "dropout_rate": 0.0,
            "decoder_start_token_id": 0, "pad_token_id": 0, "eos_token_id": 1}

# facebook/bart-base's widths with 3 + 3 layers; mBART's layout (pre-LayerNorm, a final LayerNorm per stack, scaled
# embeddings) at the same widths. Dropout off unless a point asks for it.
BART_BASE = {"model_type": "bart", "d_model": 768, "encoder_layers": 3, "decoder_layers": 3,
             "encoder_attention_heads": 12, "decoder_attention_heads": 12, "encoder_ffn_dim": 3072,
             "decoder_ffn_dim": 3072, "vocab_size": 50265, "max_position_embeddings": 1024, "dropout": 0.0,
             "attention_dropout": 0.0, "activation_dropout": 0.0, "activation_function": "gelu",
             "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "decoder_start_token_id": 2}
MBART = dict(BART_BASE, model_type="mbart", scale_embedding=True, vocab_size=32000)


def suite_seq2seq_bart(out):
    """BART and mBART as AutoModelForSeq2SeqLM with transformers' default SDPA attention (the CPU's flash kernel: no
    attention dropout), and eager."""
    for fam, arch in (("bart", BART_BASE), ("mbart", MBART)):
        base = {"architecture": dict(arch), "head": "seq2seq_lm", "method": "full", "weights_dtype": "fp32",
                "micro_batch_size": 8, "seq_len": 256, "attention": "sdpa", "optimizer": "adamw",
                "cuda_context_bytes": 0}
        adapter = {"r": 8, "alpha": 32, "dropout": 0.0, "target_modules": ["q_proj", "v_proj"], "dtype": "fp32"}
        out[f"{fam}-full-fp32-t256"] = (base, {})
        out[f"{fam}-full-fp32-t32"] = (dict(base, target_len=32), {})
        out[f"{fam}-lora-fp32-t64"] = (dict(base, method="lora", lora=adapter, target_len=64), {})
        out[f"{fam}-full-amp-ckpt-t64"] = (
            dict(base, mixed_precision="bf16", gradient_checkpointing="full", target_len=64), {})
        out[f"{fam}-lora-bf16-t64"] = (
            dict(base, weights_dtype="bf16", method="lora", lora=dict(adapter, dtype="fp32"), target_len=64), {})
        out[f"{fam}-full-eager-fp32-t64"] = (dict(base, attention="eager", target_len=64), {})
    dropout = dict(BART_BASE, dropout=0.1, activation_dropout=0.1)
    out["bart-dropout-full-fp32-t64"] = (
        {"architecture": dropout, "head": "seq2seq_lm", "method": "full", "weights_dtype": "fp32",
         "micro_batch_size": 8, "seq_len": 256, "attention": "sdpa", "optimizer": "adamw", "cuda_context_bytes": 0,
         "target_len": 64}, {})
    small = dict(BART_BASE, vocab_size=512)
    out["bart-v512-lora-fp32-t32"] = (
        {"architecture": small, "head": "seq2seq_lm", "method": "lora", "weights_dtype": "fp32",
         "micro_batch_size": 8, "seq_len": 256, "attention": "sdpa", "optimizer": "adamw", "cuda_context_bytes": 0,
         "target_len": 32, "lora": {"r": 8, "alpha": 32, "dropout": 0.0, "target_modules": ["q_proj", "v_proj"],
                                    "dtype": "fp32"}}, {})
    out["bart-full-fp32-t64-fsdp1-w2"] = (
        {"architecture": dict(BART_BASE), "head": "seq2seq_lm", "method": "full", "weights_dtype": "fp32",
         "micro_batch_size": 8, "seq_len": 256, "attention": "sdpa", "optimizer": "adamw", "cuda_context_bytes": 0,
         "target_len": 64, "fsdp": "full_shard", "gpus_per_node": 2, "fsdp_version": 1,
         "fsdp_backward_prefetch": "none"}, {"parallel": "fsdp1"})


def suite_seq2seq():
    out = {}
    suite_seq2seq_bart(out)
    for fam, arch, targets in (("flan-t5-small", FLAN_T5_SMALL, ["q", "v"]), ("t5-small", T5_SMALL, ["q", "v"])):
        base = {"architecture": dict(arch), "head": "seq2seq_lm", "method": "full", "weights_dtype": "fp32",
                "micro_batch_size": 8, "seq_len": 256, "attention": "eager", "optimizer": "adamw",
                "cuda_context_bytes": 0}
        adapter = {"r": 8, "alpha": 32, "dropout": 0.0, "target_modules": targets, "dtype": "fp32"}
        out[f"{fam}-full-fp32-t256"] = (base, {})
        out[f"{fam}-full-fp32-t32"] = (dict(base, target_len=32), {})
        out[f"{fam}-full-fp32-s128-t384"] = (dict(base, seq_len=128, target_len=384), {})
        out[f"{fam}-lora-fp32-t32"] = (dict(base, method="lora", lora=adapter, target_len=32), {})
        out[f"{fam}-full-amp-ckpt-t64"] = (
            dict(base, mixed_precision="bf16", gradient_checkpointing="full", target_len=64), {})
        # FSDP1 with one unit per T5Block (its _no_split_modules) over 2 ranks, as Accelerate wraps it: a frozen unit
        # reshards when its inputs' gradients are done, and a decoder block's inputs include the encoder's output.
        fsdp1 = dict(fsdp="full_shard", gpus_per_node=2, fsdp_version=1, fsdp_backward_prefetch="none", target_len=32)
        out[f"{fam}-lora-fp32-t32-fsdp1-w2"] = (
            dict(base, method="lora", lora=adapter, fsdp_adapters_wrapped=False, **fsdp1), {"parallel": "fsdp1"})
        out[f"{fam}-full-fp32-t32-fsdp1-w2"] = (dict(base, **fsdp1), {"parallel": "fsdp1"})
        # A 512-word vocabulary: the layers' backward, not the loss's, is the peak.
        small = dict(base, architecture=dict(arch, vocab_size=512), method="lora", lora=adapter,
                     fsdp_adapters_wrapped=False, **fsdp1)
        out[f"{fam}-v512-lora-fp32-t32-fsdp1-w2"] = (small, {"parallel": "fsdp1"})
        # A 16-bit load: T5PreTrainedModel keeps `wo` in fp32 (_keep_in_fp32_modules), and T5DenseGatedActDense casts
        # the MLP's activation to it.
        bf16 = dict(base, weights_dtype="bf16", target_len=32)
        out[f"{fam}-lora-bf16-t32"] = (dict(bf16, method="lora", lora=dict(adapter, dtype="fp32")), {})
        out[f"{fam}-full-bf16-ckpt-t64"] = (dict(bf16, gradient_checkpointing="full", target_len=64), {})
        plain = {k: v for k, v in small.items() if k not in fsdp1 or k == "target_len"}
        out[f"{fam}-v512-lora-fp32-t32"] = ({k: v for k, v in plain.items() if k != "fsdp_adapters_wrapped"}, {})
    return out


SUITES = {"loop": suite_loop, "peft": suite_peft, "trainer": suite_trainer, "trl": suite_trl, "fsdp2": suite_fsdp2,
          "fsdp1": suite_fsdp1, "ddp": suite_ddp, "accelerate": suite_accelerate, "layer": suite_layer, "tf4": suite_tf4,
          "zero": suite_zero, "flash": suite_flash, "hybrid": suite_hybrid, "qlora": suite_qlora,
          "litgpt": suite_litgpt, "encoder": suite_encoder, "seq2seq": suite_seq2seq}
SUITE_DEFAULTS = {"loop": {"runner": "loop"}, "peft": {"runner": "loop"}, "trainer": {"runner": "trainer"},
                  "trl": {}, "fsdp2": {"runner": "loop"}, "fsdp1": {"runner": "loop"}, "ddp": {"runner": "loop"},
                  "accelerate": {}, "layer": {"runner": "loop"}, "tf4": {"runner": "loop"},
                  "zero": {"runner": "deepspeed"}, "flash": {"runner": "loop"},
                  "hybrid": {"runner": "loop"}, "qlora": {"runner": "loop"}, "litgpt": {"runner": "litgpt"},
                  "encoder": {"runner": "loop"}, "seq2seq": {"runner": "loop"}}


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


def _line(key, value):
    """One `key: value` line; mappings and lists in flow style (JSON is YAML), model_type first."""
    if isinstance(value, dict) and "model_type" in value:
        value = {"model_type": value["model_type"], **{k: v for k, v in value.items() if k != "model_type"}}
    if isinstance(value, (dict, list)):
        return f"{key}: {json.dumps(value)}\n"
    return yaml.safe_dump({key: value}, default_flow_style=False)


def write_suite(name, points):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    overrides = {}
    for pid, (s, harness) in points.items():
        # The harness's reentrant checkpointing is what ran: the scenario says it to the estimator.
        reentrant = {**SUITE_DEFAULTS[name], **(harness or {})}.get("reentrant")
        if reentrant and s.get("gradient_checkpointing", "none") != "none":
            s = {**s, "checkpoint_reentrant": True}
        with open(os.path.join(d, pid + ".vram.yaml"), "w") as f:
            f.write(f"# truth point {name}/{pid}: see tools/truth/README.md\n")
            for key, value in s.items():
                f.write(_line(key, value))
        if harness:
            overrides[pid] = harness
    with open(os.path.join(d, "harness.yaml"), "w") as f:
        f.write("# harness settings (not estimator keys): defaults for the suite, then per point\n")
        yaml.dump({"defaults": SUITE_DEFAULTS[name], "points": overrides}, f, Dumper=_NoAliases, sort_keys=True, default_flow_style=None, width=200)


def main(only=()):
    """Rewrites every suite, or only the suites named on the command line (make_scenarios.py trl)."""
    total = 0
    for name, fn in SUITES.items():
        if only and name not in only:
            continue
        points = fn()
        write_suite(name, points)
        total += len(points)
        print(f"{name}: {len(points)}")
    print(f"total: {total}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
