"""The GPU points: real-size models (configs in configs/, random weights), each a scenario in the estimator's format
plus how to run it. Ids are `<model>-<method>-<variant>`."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def config(name):
    with open(os.path.join(HERE, "configs", name + ".json")) as f:
        return json.load(f)


def point(model, method, seq, batch=1, ckpt="full", world=1, fsdp="none", offload=False, lora_all=False, weights="bf16", mp="bf16"):
    scenario = {"model": model, "architecture": config(model), "method": method, "weights_dtype": weights, "mixed_precision": mp,
                "optimizer": "adamw", "micro_batch_size": batch, "seq_len": seq, "gradient_checkpointing": ckpt, "attention": "sdpa",
                "gpus_per_node": world, "fsdp": fsdp}
    if method == "lora":
        scenario["lora"] = {"r": 16, "alpha": 32, "target_modules": "all-linear" if lora_all else ["q_proj", "k_proj", "v_proj", "o_proj"]}
    if offload:
        scenario.update(offload_params="cpu", offload_optimizer="cpu")
    parts = [model, method, f"s{seq}", f"b{batch}", "ckpt" if ckpt != "none" else "nockpt"]
    parts += [f"fsdp2-w{world}"] if fsdp != "none" else []
    parts += ["offload"] if offload else []
    parts += ["all-linear"] if lora_all else []
    parts += [f"w{weights}"] if weights != "bf16" else []
    return "-".join(parts), scenario


def custom_fsdp1(seq, batch, offload=False, reentrant=True):
    """A custom FSDP1 loop as Answer.AI's fsdp_qlora train.py runs LoRA (AnswerDotAI/fsdp_qlora@05ed9f2): Llama-2-7B in
    bf16 without mixed precision, bf16 LoRA r 64 / alpha 16 / dropout 0.1 on q, k, v, gate, up and down, each adapter
    layer an FSDP unit of its own beside the decoder layers, FULL_SHARD over 2 ranks, use_orig_params=False,
    limit_all_gathers, checkpoint_wrapper on every decoder layer (REENTRANT or NO_REENTRANT), optional CPU offload of
    the parameters. Its benchmarks (benchmarks_03_2024.md) give max_memory_reserved for the same layouts on 24 GB cards."""
    scenario = {"model": "llama-2-7b", "architecture": config("llama-2-7b"), "method": "lora", "weights_dtype": "bf16",
                "mixed_precision": "none", "optimizer": "adamw", "micro_batch_size": batch, "seq_len": seq,
                "gradient_checkpointing": "full", "checkpoint_reentrant": reentrant, "attention": "sdpa",
                "gpus_per_node": 2, "fsdp": "full_shard", "fsdp_version": 1,
                "lora": {"r": 64, "alpha": 16, "dropout": 0.1, "dtype": "bf16",
                         "target_modules": ["k_proj", "q_proj", "v_proj", "up_proj", "down_proj", "gate_proj"]}}
    if offload:
        scenario["offload_params"] = "cpu"
    parts = ["llama-2-7b", "lora", f"s{seq}", f"b{batch}", "ckpt", "fsdp1-w2"]
    parts += ["offload"] if offload else []
    parts += [] if reentrant else ["nonreentrant"]
    return "-".join(parts), scenario


def falcon(seq, batch, ckpt):
    """Falcon-7B LoRA on query_key_value and dense. transformers' FalconAttention hands SDPA its one key and value head
    without enable_gqa, so no fused kernel takes the call and SDPA's math kernel runs: fp32 scores and probabilities of
    every head per layer (src/core/terms/activations/falcon.ts; CPU truth loop/falcon-*)."""
    scenario = {"model": "falcon-7b", "architecture": config("falcon-7b"), "method": "lora", "weights_dtype": "bf16",
                "mixed_precision": "none", "optimizer": "adamw", "micro_batch_size": batch, "seq_len": seq,
                "gradient_checkpointing": ckpt, "attention": "sdpa",
                "lora": {"r": 16, "alpha": 32, "target_modules": ["query_key_value", "dense"]}}
    return "-".join(["falcon-7b", "lora", f"s{seq}", f"b{batch}", "ckpt" if ckpt != "none" else "nockpt"]), scenario


def all_points():
    pts = []
    for m in ("qwen2.5-0.5b", "llama-3.2-1b", "qwen2.5-1.5b"):  # full fine-tunes that fit whole
        pts += [point(m, "full", 2048, batch=2, ckpt="none"), point(m, "full", 2048, batch=4), point(m, "full", 4096, weights="fp32")]
    pts += [point("llama-3.2-3b", "full", 2048, batch=2), point("llama-3.2-3b", "full", 4096, ckpt="full")]
    for m in ("qwen2.5-7b", "llama-3.1-8b", "mistral-7b-v0.3", "qwen3-8b"):  # LoRA on 7-8B
        pts += [point(m, "lora", 2048, batch=2), point(m, "lora", 4096, lora_all=True), point(m, "lora", 1024, ckpt="none")]
    pts += [point("qwen2.5-14b", "lora", 2048), point("qwen2.5-32b", "lora", 1024)]
    for world in (2, 8, 16):  # one rank of FSDP2 through the fake process group
        pts += [point("llama-3.1-8b", "full", 2048, world=world, fsdp="full_shard", weights="fp32"),
                point("qwen2.5-7b", "full", 4096, world=world, fsdp="full_shard", weights="fp32")]
    pts += [point("llama-3.1-8b", "full", 2048, world=8, fsdp="full_shard", weights="fp32", offload=True)]
    # FSDP1 custom loops (Answer.AI's layout): the all-gather stream's pool and what FSDP's initialisation leaves cached
    pts += [custom_fsdp1(512, 1), custom_fsdp1(2048, 1), custom_fsdp1(2048, 4), custom_fsdp1(2048, 6),
            custom_fsdp1(2048, 4, reentrant=False), custom_fsdp1(2048, 10, offload=True)]
    # Falcon-7B: SDPA's math kernel for multi-query attention
    pts += [falcon(512, 1, "none"), falcon(1024, 2, "none"), falcon(2048, 1, "full")]
    for seq in (8192, 16384, 32768):  # long context
        pts += [point("llama-3.2-1b", "full", seq), point("llama-3.1-8b", "lora", seq)]
    return dict(pts)
