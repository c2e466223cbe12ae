"""The GPU points: real-size models (configs in configs/, random weights), each a scenario in the estimator's format
plus how to run it (its `harness` key, which is not the estimator's: run.py harness_of). Ids are
`<model>-<method>-<variant>`."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def config(name):
    with open(os.path.join(HERE, "configs", name + ".json")) as f:
        return json.load(f)


def point(model, method, seq, batch=1, ckpt="full", world=1, fsdp="none", offload=False, lora_all=False, weights="bf16", mp="bf16",
          attention="sdpa", dora=False, r=16):
    scenario = {"model": model, "architecture": config(model), "method": method, "weights_dtype": weights, "mixed_precision": mp,
                "optimizer": "adamw", "micro_batch_size": batch, "seq_len": seq, "gradient_checkpointing": ckpt, "attention": attention,
                "gpus_per_node": world, "fsdp": fsdp}
    if fsdp != "none":
        scenario["fsdp_version"] = 2
    if method == "lora":
        scenario["lora"] = {"r": r, "alpha": 2 * r, "target_modules": "all-linear" if lora_all else ["q_proj", "k_proj", "v_proj", "o_proj"]}
        if dora:
            scenario["lora"]["use_dora"] = True
    if offload:
        scenario.update(offload_params="cpu", offload_optimizer="cpu")
    parts = [model, "dora" if dora else method, f"s{seq}", f"b{batch}", "ckpt" if ckpt != "none" else "nockpt"]
    parts += [f"fsdp2-w{world}"] if fsdp != "none" else [f"ddp-w{world}"] if world > 1 else []
    parts += ["offload"] if offload else []
    parts += ["all-linear"] if lora_all else []
    parts += [f"r{r}"] if r != 16 else []
    parts += [f"w{weights}"] if weights != "bf16" else []
    parts += [f"mp{mp}"] if mp != "bf16" else []
    parts += [attention] if attention != "sdpa" else []
    return "-".join(parts), scenario


def custom_fsdp1(seq, batch, offload=False, reentrant=True, prefetch="pre", model="llama-2-7b"):
    """A custom FSDP1 loop as Answer.AI's fsdp_qlora train.py runs LoRA (AnswerDotAI/fsdp_qlora@05ed9f2): Llama-2-7B in
    bf16 without mixed precision, bf16 LoRA r 64 / alpha 16 / dropout 0.1 on q, k, v, gate, up and down, each adapter
    layer an FSDP unit of its own beside the decoder layers, FULL_SHARD over 2 ranks, use_orig_params=False,
    limit_all_gathers, backward_prefetch left at BACKWARD_PRE (or the `prefetch` given), checkpoint_wrapper on every
    decoder layer (REENTRANT or NO_REENTRANT), optional CPU offload of the parameters. Its benchmarks
    (benchmarks_03_2024.md) give max_memory_reserved for the same layouts on 24 GB cards."""
    scenario = {"model": model, "architecture": config(model), "method": "lora", "weights_dtype": "bf16",
                "mixed_precision": "none", "optimizer": "adamw", "micro_batch_size": batch, "seq_len": seq,
                "gradient_checkpointing": "full", "checkpoint_reentrant": reentrant, "attention": "sdpa",
                "gpus_per_node": 2, "fsdp": "full_shard", "fsdp_version": 1, "fsdp_backward_prefetch": prefetch, "fsdp_use_orig_params": False,
                "lora": {"r": 64, "alpha": 16, "dropout": 0.1, "dtype": "bf16",
                         "target_modules": ["k_proj", "q_proj", "v_proj", "up_proj", "down_proj", "gate_proj"]}}
    if offload:
        scenario["offload_params"] = "cpu"
    parts = [model, "lora", f"s{seq}", f"b{batch}", "ckpt", "fsdp1-w2"]
    parts += ["offload"] if offload else []
    parts += [] if reentrant else ["nonreentrant"]
    parts += [] if prefetch == "pre" else [f"prefetch-{prefetch}"]
    return "-".join(parts), scenario


def plugin_fsdp1(model, method, seq, batch=1, world=8, offload=False, ckpt="full", weights=None, lora_all=False, prefetch="none"):
    """FSDP1 as Accelerate's FullyShardedDataParallelPlugin applies it for the HF Trainer: FULL_SHARD, one unit per
    decoder layer (transformer_auto_wrap_policy) and, for a PEFT model, each adapter layer a unit of its own (PEFT's
    fsdp_auto_wrap_policy, Trainer._fsdp_qlora_plugin_updates), use_orig_params=True, limit_all_gathers,
    MixedPrecision(bf16 param / reduce / buffer dtypes), the plugin's NO_PREFETCH unless `prefetch` names another,
    activation checkpointing by checkpoint_wrapper(NO_REENTRANT) on the decoder layers (fsdp_activation_checkpointing),
    optional CPU offload of the parameters. Full fine-tunes load fp32 weights, LoRA bf16 weights with PEFT's fp32
    adapters."""
    weights = weights or ("fp32" if method == "full" else "bf16")
    pid, scenario = point(model, method, seq, batch=batch, ckpt=ckpt, world=world, fsdp="full_shard", offload=offload, lora_all=lora_all,
                          weights=weights)
    scenario.update(fsdp_version=1, fsdp_backward_prefetch=prefetch, harness={"fsdp1": "plugin"})
    if ckpt != "none":
        scenario["checkpoint_reentrant"] = False
    if method == "lora":
        scenario["fsdp_adapters_wrapped"] = True
    return pid.replace("-fsdp2-", "-fsdp1plugin-") + ("" if prefetch == "none" else f"-prefetch-{prefetch}"), scenario


def trainer(model, method, seq, batch=1, ckpt="full", weights="bf16", mp="bf16", lora_all=False, dora=False, r=16, attention="sdpa",
            runner="trainer"):
    """The HF Trainer as a user runs it on one GPU: TrainingArguments(bf16=..., gradient_checkpointing=...), its default
    optimizer (adamw_torch_fused) and max_grad_norm (1.0), its own data loader and loss (the model's, with the batch's
    token count), two steps; the model loaded in `weights`, PEFT LoRA with fp32 adapters. `runner="sft"`: TRL's SFTTrainer
    (its chunked NLL loss and the entropy / token-accuracy metrics it computes from the logits each step)."""
    pid, scenario = point(model, method, seq, batch=batch, ckpt=ckpt, weights=weights, mp=mp, lora_all=lora_all, dora=dora, r=r,
                          attention=attention)
    scenario.update(optimizer="adamw_fused", harness={"runner": runner})
    if runner == "sft":
        scenario.update(loss="chunked-nll", trl_version="1.13")
    return f"{runner}-{pid}", scenario


def trainer_zero(model, seq, batch=1, world=8, r=8, dropout=0.0, runner="sft"):
    """The HF Trainer or TRL's SFTTrainer under DeepSpeed ZeRO-3 (ds_trainer.py), PEFT's ZeRO-3 recipe as a script gives
    it: a DeepSpeed config with the ZeRO block's buckets "auto", bf16, gradient checkpointing, LoRA on every linear
    layer added by the script with PEFT's fp32 adapters (which DeepSpeed 0.19.6 leaves fp32 on a ZeRO-Init model).
    TRL 0.28+ forces reentrant checkpointing for a PEFT model under ZeRO-3 (huggingface/trl#4951); the Trainer keeps
    transformers 5's default, non-reentrant."""
    pid, scenario = zero_point(model, "lora", seq, batch=batch, world=world, r=r, dropout=dropout, reentrant=runner == "sft")
    scenario["harness"] = {"runner": runner}
    if runner == "sft":
        scenario.update(loss="chunked-nll", trl_version="1.13")
    return f"{runner}-{pid}", scenario


def falcon(seq, batch, ckpt):
    """Falcon-7B LoRA on query_key_value and dense. transformers' FalconAttention hands SDPA its one key and value head
    without enable_gqa, so no fused kernel takes the call and SDPA's math kernel runs: fp32 scores and probabilities of
    every head per layer (src/core/terms/activations/falcon.ts; CPU truth loop/falcon-*)."""
    scenario = {"model": "falcon-7b", "architecture": config("falcon-7b"), "method": "lora", "weights_dtype": "bf16",
                "mixed_precision": "none", "optimizer": "adamw", "micro_batch_size": batch, "seq_len": seq,
                "gradient_checkpointing": ckpt, "attention": "sdpa", "gpus_per_node": 1, "fsdp": "none",
                "lora": {"r": 16, "alpha": 32, "target_modules": ["query_key_value", "dense"]}}
    return "-".join(["falcon-7b", "lora", f"s{seq}", f"b{batch}", "ckpt" if ckpt != "none" else "nockpt"]), scenario


def zero_point(model, method, seq, batch=1, world=8, stage=3, ckpt="full", lora_all=True, r=8, dropout=0.0, buckets="auto", offload=False,
               reentrant=False, release=None, init=True):
    """DeepSpeed ZeRO as the HF Trainer runs it (run.py with ds_point.py): bf16 weights (DeepSpeed's bf16 mode casts
    the adapters too and keeps fp32 master partitions), the ZeRO block's buckets "auto" (filled from the hidden size)
    or DeepSpeed's defaults, zero.Init for stage 3 unless `init` is False (a loop with Accelerate's zero3_init_flag
    off: the whole model made on the GPU, partitioned by deepspeed.initialize)."""
    scenario = {"model": model, "architecture": config(model), "method": method, "weights_dtype": "bf16", "mixed_precision": "none",
                "master_weights": True, "optimizer": "adamw", "micro_batch_size": batch, "seq_len": seq, "gradient_checkpointing": ckpt,
                "attention": "sdpa", "gpus_per_node": world, "fsdp": "none", "zero_stage": stage}
    keys = ("reduce_bucket_size", "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold") if stage == 3 else ("reduce_bucket_size",)
    scenario["zero_buckets"] = {k: "auto" for k in keys} if buckets == "auto" else {}
    if stage == 3 and not init:
        scenario["zero3_init"] = False
    if ckpt != "none":
        scenario["checkpoint_reentrant"] = reentrant
    if method == "lora":
        # PEFT's adapters in fp32, which DeepSpeed casts to bf16 before 0.19.2 and, from then on, leaves as they are
        # on a ZeRO-Init model (ZeRO-3); ZeRO-1/2 and a model made outside zero.Init have every parameter cast
        # (fixture.py says which ran)
        kept = stage == 3 and init and tuple(int(x) for x in (release or "0.19.6").split(".")) >= (0, 19, 2)
        scenario["lora"] = {"r": r, "alpha": 2 * r, "dropout": dropout, "dtype": "fp32" if kept else "bf16",
                            "target_modules": "all-linear" if lora_all else ["q_proj", "k_proj", "v_proj", "o_proj"]}
    if offload:  # True: parameters and optimizer; "optimizer": the optimizer only
        scenario.update(offload_optimizer="cpu", **({} if offload == "optimizer" else {"offload_params": "cpu"}))
    parts = [model, method, f"s{seq}", f"b{batch}", "ckpt" if ckpt != "none" else "nockpt", f"z{stage}-w{world}"]
    parts += ["reentrant"] if reentrant else []
    parts += ["offload-opt"] if offload == "optimizer" else ["offload"] if offload else []
    parts += [f"r{r}"] if method == "lora" and r != 8 else []
    parts += [f"drop{dropout}"] if dropout else []
    parts += ["dsdefaults"] if buckets != "auto" else []
    parts += ["noinit"] if stage == 3 and not init else []
    if release:  # a DeepSpeed release other than the harness's (ds_point.import_deepspeed)
        scenario["harness"] = {"deepspeed": release}
        parts += [f"ds{release}"]
    return "-".join(parts), scenario


BNB_RELEASE = "0.50.1"  # bnb_build.sh's default, the CPU suite's release


def qlora(pair, upcast="none", double_quant=True, **lora):
    """A LoRA point made QLoRA: the base model's linear layers loaded in 4 bits by bitsandbytes (qlora.py), NF4 with
    double quantization as a BitsAndBytesConfig gives it, the packed codes stored in the weights' dtype under FSDP,
    PEFT's prepare_model_for_kbit_training where `upcast` is "all", LoRA settings as `lora` overrides."""
    pid, scenario = pair
    scenario = {**scenario, "method": "qlora", "quantization": {"bits": 4, "type": "nf4", "double_quant": double_quant},
                "bitsandbytes_version": BNB_RELEASE, "kbit_upcast": upcast, "lora": {**scenario["lora"], **lora}}
    parts = pid.replace("-lora-", "-qlora-", 1).split("-")
    parts += [] if upcast == "none" else [f"upcast{upcast}"]
    parts += [] if double_quant else ["nodq"]
    parts += [f"{k}{v}" for k, v in sorted(lora.items()) if k in ("r", "dropout")]
    return "-".join(parts), scenario


def peft_fsdp_qlora(model, seq, batch, world=2, offload=False, warmup=False):
    """PEFT's QLoRA + FSDP recipe (examples/sft, configs/fsdp_config_qlora.yaml) as Accelerate's plugin applies it:
    FULL_SHARD, BACKWARD_PRE, use_orig_params false, adapters wrapped alone, bf16 mixed precision over bf16 quant
    storage, the Trainer's reentrant checkpointing, LoRA r 8 / alpha 16 / dropout 0.1 on every linear layer."""
    pid, scenario = plugin_fsdp1(model, "lora", seq, batch=batch, world=world, offload=offload, lora_all=True, prefetch="pre")
    scenario.update(fsdp_use_orig_params=False, checkpoint_reentrant=True)
    if warmup:  # from_pretrained's caching_allocator_warmup before the load (qlora.py)
        scenario["harness"] = {**scenario["harness"], "warmup": True}
        pid += "-warmup"
    return qlora((pid + "-reentrant", scenario), r=8, alpha=16, dropout=0.1)


def qlora_points():
    """bitsandbytes 4-bit on the GPU (qlora.py): PEFT's 70B QLoRA + FSDP recipe with and without CPU offload,
    Answer.AI's loop at 7B, one GPU through the plain loop, the HF Trainer and TRL's SFTTrainer."""
    return [peft_fsdp_qlora("llama-2-70b", 2048, 2, offload=True), peft_fsdp_qlora("llama-2-70b", 2048, 2),
            qlora(custom_fsdp1(2048, 4)), qlora(custom_fsdp1(512, 1)), qlora(custom_fsdp1(2048, 12, offload=True)),
            qlora(trainer("llama-3.1-8b", "lora", 2048, batch=2, lora_all=True), upcast="all"),
            qlora(point("llama-3.1-8b", "lora", 2048, batch=2, lora_all=True)),
            qlora(point("qwen2.5-7b", "lora", 1024, ckpt="none")),
            peft_fsdp_qlora("llama-3.1-8b", 2048, 2),
            qlora(point("qwen2.5-32b", "lora", 2048, lora_all=True)),
            qlora(trainer("mistral-7b-v0.3", "lora", 2048, batch=2, lora_all=True, runner="sft"), upcast="all"),
            qlora(point("llama-2-7b", "lora", 4096, lora_all=True)),
            # second command: Answer.AI's loop at 70B with offload, 70B on one GPU, more layouts at 7-8B
            qlora(custom_fsdp1(2048, 2, offload=True, model="llama-2-70b"), r=8, dropout=0.1),
            qlora(point("llama-3.1-70b", "lora", 1024, lora_all=True)), qlora(point("llama-2-70b", "lora", 2048, lora_all=True)),
            qlora(custom_fsdp1(2048, 1)), qlora(custom_fsdp1(2048, 10)),
            peft_fsdp_qlora("llama-3.1-8b", 2048, 2, offload=True), peft_fsdp_qlora("llama-3.1-70b", 2048, 1, world=8),
            qlora(point("llama-3.1-8b", "lora", 2048, batch=2, lora_all=True), double_quant=False),
            qlora(trainer("qwen2.5-7b", "lora", 2048, batch=4, lora_all=True), upcast="all"),
            qlora(point("qwen3-8b", "lora", 4096, lora_all=True)),
            # third command: the PEFT recipe's load as from_pretrained makes it, its allocator warm-up first
            peft_fsdp_qlora("llama-2-70b", 2048, 2, warmup=True), peft_fsdp_qlora("llama-3.1-8b", 2048, 2, warmup=True),
            peft_fsdp_qlora("llama-3.1-70b", 2048, 1, world=8, warmup=True), peft_fsdp_qlora("llama-2-70b", 2048, 2, offload=True, warmup=True)]


def all_points():
    """In the order they run: a command that runs out of time leaves the last ones for the next."""
    pts = []
    for m in ("qwen2.5-0.5b", "llama-3.2-1b", "qwen2.5-1.5b"):  # full fine-tunes that fit whole
        pts += [point(m, "full", 2048, batch=2, ckpt="none"), point(m, "full", 2048, batch=4), point(m, "full", 4096, weights="fp32")]
    pts += [point("llama-3.2-3b", "full", 2048, batch=2), point("llama-3.2-3b", "full", 4096, ckpt="full")]
    for m in ("qwen2.5-7b", "llama-3.1-8b", "mistral-7b-v0.3", "qwen3-8b"):  # LoRA on 7-8B
        pts += [point(m, "lora", 2048, batch=2), point(m, "lora", 4096, lora_all=True), point(m, "lora", 1024, ckpt="none")]
    pts += [point("qwen2.5-14b", "lora", 2048), point("qwen2.5-32b", "lora", 1024)]
    for world in (8, 16):  # one rank of FSDP2 through the fake process group
        pts += [point("llama-3.1-8b", "full", 2048, world=world, fsdp="full_shard", weights="fp32"),
                point("qwen2.5-7b", "full", 4096, world=world, fsdp="full_shard", weights="fp32")]
    pts += [point("llama-3.1-8b", "full", 2048, world=8, fsdp="full_shard", weights="fp32", offload=True)]
    # FSDP1 custom loops (Answer.AI's layout): the all-gather stream's pool and what FSDP's initialisation leaves cached
    pts += [custom_fsdp1(512, 1), custom_fsdp1(2048, 1), custom_fsdp1(2048, 4), custom_fsdp1(2048, 6),
            custom_fsdp1(2048, 4, reentrant=False), custom_fsdp1(2048, 10, offload=True)]
    # Falcon-7B: SDPA's math kernel for multi-query attention
    pts += [falcon(512, 1, "none"), falcon(1024, 2, "none"), falcon(2048, 1, "full")]
    for seq in (8192, 16384):  # long context
        pts += [point("llama-3.2-1b", "full", seq), point("llama-3.1-8b", "lora", seq)]
    pts += [point("llama-3.2-1b", "full", 32768)]
    # More families: Gemma 2 / 3 (256k vocabularies), Phi-3 (fused projections), Qwen3 dense, MoE (grouped_mm experts)
    for m in ("gemma-2-2b", "gemma-3-1b", "qwen3-1.7b", "qwen3-4b", "phi-3-mini"):
        pts += [point(m, "full", 2048, batch=2), point(m, "full", 1024, batch=1, ckpt="none", weights="fp32"),
                point(m, "lora", 2048, batch=4, lora_all=True), point(m, "lora", 1024, batch=2, ckpt="none")]
    pts += [point("gemma-2-2b", "full", 1024, batch=2, ckpt="none", attention="eager"),
            point("gemma-3-1b", "full", 4096, batch=1, attention="eager")]
    for m in ("qwen1.5-moe-a2.7b", "qwen3-30b-a3b"):
        pts += [point(m, "lora", 2048, batch=2), point(m, "lora", 1024, ckpt="none")]
    pts += [point("qwen1.5-moe-a2.7b", "lora", 2048, lora_all=True)]
    # Full fine-tunes: pure bf16, AMP over fp32 weights, eager attention, no checkpointing
    for m in ("qwen2.5-0.5b", "llama-3.2-1b"):
        pts += [point(m, "full", 1024, batch=4, ckpt="none", weights="fp32"), point(m, "full", 512, batch=8, ckpt="none", attention="eager"),
                point(m, "full", 1024, batch=2, ckpt="none", weights="fp32", mp="none"), point(m, "full", 8192, batch=1, weights="fp32")]
    pts += [point("qwen2.5-1.5b", "full", 1024, batch=2, ckpt="none", weights="fp32"), point("llama-3.2-3b", "full", 1024, batch=1, ckpt="none"),
            point("qwen3-4b", "full", 4096, batch=2)]
    # DoRA and larger ranks on 7-8B
    for m in ("llama-3.1-8b", "qwen2.5-7b"):
        pts += [point(m, "lora", 2048, dora=True), point(m, "lora", 1024, ckpt="none", lora_all=True, dora=True),
                point(m, "lora", 2048, batch=4, lora_all=True, r=64), point(m, "lora", 512, batch=4, ckpt="none", attention="eager")]
    pts += [point("mistral-7b-v0.3", "lora", 8192, lora_all=True), point("qwen3-8b", "lora", 2048, batch=8),
            point("qwen2.5-14b", "lora", 4096, lora_all=True), point("qwen2.5-14b", "lora", 1024, ckpt="none"),
            point("qwen2.5-32b", "lora", 2048, lora_all=True), point("qwen2.5-7b", "lora", 16384), point("qwen2.5-7b", "lora", 24576)]
    # DDP on one rank of the fake group: the gradient buckets beside the gradients
    for world in (2, 8):
        pts += [point("qwen2.5-0.5b", "full", 2048, batch=2, world=world, weights="fp32"),
                point("llama-3.2-1b", "full", 2048, batch=2, world=world, weights="fp32"),
                point("llama-3.1-8b", "lora", 2048, batch=2, world=world)]
    # FSDP2: LoRA under it, no checkpointing, CPU offload, more world sizes
    for world in (2, 8):
        pts += [point("llama-3.1-8b", "lora", 2048, batch=2, world=world, fsdp="full_shard"),
                point("qwen2.5-14b", "lora", 2048, world=world, fsdp="full_shard", offload=True)]
    pts += [point("llama-3.2-3b", "full", 2048, batch=2, ckpt="none", world=4, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-14b", "full", 2048, world=8, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-14b", "full", 2048, world=16, fsdp="full_shard", weights="fp32", offload=True),
            point("llama-3.1-8b", "full", 4096, world=32, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-32b", "full", 2048, world=64, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-32b", "lora", 4096, world=8, fsdp="full_shard", offload=True)]
    # FSDP1 custom loops: more layouts
    pts += [custom_fsdp1(4096, 1), custom_fsdp1(1024, 8), custom_fsdp1(4096, 2, reentrant=False), custom_fsdp1(2048, 2, offload=True)]
    # More shapes on the small models, DoRA on the other 7-8B, FSDP2 at world size 4, DDP in bf16
    for m in ("qwen2.5-0.5b", "llama-3.2-1b", "qwen3-1.7b", "gemma-3-1b"):
        pts += [point(m, "full", 1024, batch=8), point(m, "full", 512, batch=4, ckpt="none", weights="fp32", mp="none"),
                point(m, "lora", 4096, batch=2, lora_all=True), point(m, "lora", 1024, batch=2, dora=True)]
    for m in ("mistral-7b-v0.3", "qwen3-8b"):
        pts += [point(m, "lora", 2048, dora=True), point(m, "lora", 2048, batch=2, attention="eager")]
    pts += [point("qwen3-8b", "full", 2048, world=4, fsdp="full_shard", weights="fp32"),
            point("gemma-2-2b", "full", 2048, world=2, fsdp="full_shard", weights="fp32"),
            point("mistral-7b-v0.3", "lora", 1024, ckpt="none", world=4, fsdp="full_shard"),
            point("qwen3-1.7b", "full", 1024, batch=2, ckpt="none", world=4),
            point("phi-3-mini", "lora", 2048, batch=2, world=2)]
    # Near the card's 80 GB: last, so what runs out of memory costs no other point its turn
    pts += [point("llama-3.1-8b", "full", 2048, world=2, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-7b", "full", 4096, world=2, fsdp="full_shard", weights="fp32"),
            point("llama-3.1-8b", "lora", 32768)]
    # 2026-11-25: the HF Trainer on one GPU (its fused AdamW, clipping, data loader, loss)
    pts += [trainer("llama-3.1-8b", "lora", 2048, batch=2), trainer("llama-3.1-8b", "lora", 4096, lora_all=True),
            trainer("qwen2.5-7b", "lora", 2048, batch=4, lora_all=True), trainer("mistral-7b-v0.3", "lora", 4096, batch=2),
            trainer("qwen3-8b", "lora", 1024, dora=True), trainer("qwen2.5-14b", "lora", 2048),
            trainer("llama-3.1-8b", "lora", 1024, batch=2, ckpt="none"), trainer("gemma-2-2b", "lora", 2048, batch=2, lora_all=True),
            trainer("qwen2.5-0.5b", "full", 2048, batch=4), trainer("qwen2.5-0.5b", "full", 1024, batch=4, ckpt="none", weights="fp32"),
            trainer("llama-3.2-1b", "full", 2048, batch=2, weights="fp32"), trainer("llama-3.2-1b", "full", 1024, batch=8, ckpt="none"),
            trainer("qwen2.5-1.5b", "full", 2048, weights="fp32"), trainer("llama-3.2-3b", "full", 2048, batch=2),
            trainer("qwen3-1.7b", "full", 2048, batch=2, mp="none"), trainer("phi-3-mini", "lora", 2048, batch=4, lora_all=True)]
    # TRL's SFTTrainer on one GPU (trl travels as a wheel: tools/truth/gpu/README in results)
    pts += [trainer("llama-3.1-8b", "lora", 2048, batch=2, runner="sft"), trainer("llama-3.1-8b", "lora", 4096, lora_all=True, runner="sft"),
            trainer("qwen2.5-7b", "lora", 2048, batch=4, lora_all=True, runner="sft"), trainer("mistral-7b-v0.3", "lora", 1024, batch=8, runner="sft"),
            trainer("qwen2.5-0.5b", "full", 2048, batch=4, runner="sft"), trainer("llama-3.2-1b", "full", 2048, batch=2, weights="fp32", runner="sft"),
            trainer("qwen3-4b", "lora", 2048, batch=4, lora_all=True, runner="sft")]
    # FSDP1's backward prefetch side by side: Answer.AI's loop under NO_PREFETCH and BACKWARD_POST
    pts += [custom_fsdp1(2048, 1, prefetch="none"), custom_fsdp1(2048, 1, prefetch="post"), custom_fsdp1(2048, 4, prefetch="none"),
            custom_fsdp1(2048, 4, prefetch="post")]
    # FSDP1 as Accelerate's plugin applies it for the Trainer: full fine-tunes and LoRA, with and without CPU offload
    pts += [plugin_fsdp1("llama-3.1-8b", "full", 2048, world=8), plugin_fsdp1("llama-3.1-8b", "full", 2048, world=8, prefetch="pre"),
            plugin_fsdp1("llama-3.1-8b", "full", 2048, world=16), plugin_fsdp1("llama-3.1-8b", "full", 2048, world=8, offload=True),
            plugin_fsdp1("qwen2.5-7b", "full", 4096, world=8), plugin_fsdp1("llama-3.2-3b", "full", 2048, batch=2, world=4, ckpt="none"),
            plugin_fsdp1("llama-3.1-8b", "lora", 2048, batch=2, world=2), plugin_fsdp1("llama-3.1-8b", "lora", 2048, batch=2, world=8),
            plugin_fsdp1("llama-3.1-8b", "lora", 2048, batch=2, world=2, offload=True), plugin_fsdp1("mistral-7b-v0.3", "lora", 1024, world=4, ckpt="none"),
            plugin_fsdp1("qwen2.5-14b", "lora", 2048, world=4, offload=True, lora_all=True), plugin_fsdp1("qwen2.5-32b", "lora", 2048, world=8),
            plugin_fsdp1("qwen2.5-32b", "lora", 2048, world=8, offload=True), plugin_fsdp1("llama-3.1-70b", "lora", 2048, world=8, offload=True),
            plugin_fsdp1("llama-3.1-70b", "lora", 4096, world=8, offload=True, lora_all=True)]
    # More Trainer / SFT shapes: no checkpointing, eager attention, long context, 14-32B LoRA, full fine-tunes in bf16
    pts += [trainer("llama-3.1-8b", "lora", 8192, runner="sft"), trainer("qwen2.5-1.5b", "full", 2048, batch=4, runner="sft"),
            trainer("gemma-2-2b", "lora", 2048, batch=4, runner="sft"), trainer("qwen2.5-14b", "lora", 2048, batch=2, lora_all=True, runner="sft"),
            trainer("llama-3.2-3b", "lora", 1024, batch=4, ckpt="none", runner="sft"), trainer("qwen2.5-32b", "lora", 1024, runner="sft"),
            trainer("qwen3-8b", "lora", 2048, batch=2, attention="eager"), trainer("qwen2.5-7b", "lora", 8192, lora_all=True),
            trainer("llama-3.2-1b", "full", 4096, batch=2, mp="none"), trainer("qwen2.5-0.5b", "full", 2048, batch=8, weights="fp32"),
            trainer("llama-3.2-3b", "lora", 2048, batch=8, lora_all=True, r=64), trainer("qwen3-1.7b", "lora", 1024, batch=8, ckpt="none")]
    pts += [plugin_fsdp1("llama-3.1-8b", "lora", 2048, batch=2, world=8, prefetch="pre"), plugin_fsdp1("qwen3-8b", "full", 2048, world=8),
            plugin_fsdp1("qwen2.5-14b", "full", 2048, world=16), plugin_fsdp1("llama-3.1-8b", "lora", 4096, batch=4, world=4, lora_all=True),
            plugin_fsdp1("qwen2.5-1.5b", "full", 2048, batch=4, world=2, ckpt="none")]
    # 70B under FSDP2, LoRA: one rank of eight and sixteen, with and without CPU offload
    pts += [point("llama-3.1-70b", "lora", 2048, world=16, fsdp="full_shard"), point("llama-3.1-70b", "lora", 2048, world=8, fsdp="full_shard", offload=True),
            point("llama-3.1-70b", "lora", 4096, batch=2, world=8, fsdp="full_shard", offload=True, lora_all=True)]
    # Not measured yet: the shape of Accelerate's benchmarks/fsdp2 (Qwen2.5-1.5B in fp32, FSDP2 with bf16 parameters over
    # 8 ranks, 2 x 128 tokens, no checkpointing), whose published plots show reserved 8-14 % above the estimate with
    # real NCCL and torch 2.6 (FINDINGS §64): the same shape on the fake process group tells the two apart.
    pts += [point("qwen2.5-1.5b", "full", 128, batch=2, ckpt="none", world=8, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-1.5b", "full", 1024, batch=2, ckpt="none", world=8, fsdp="full_shard", weights="fp32")]
    # 2026-11-26: Qwen2.5-32B under FSDP2 at 16 and 32 ranks beside the 64-rank point the replay leaves 11 % low, the same
    # model's LoRA without offload, LoRA under DDP at 7-8B, and the benchmark's model with bf16 weights
    pts += [point("qwen2.5-32b", "full", 2048, world=16, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-32b", "full", 2048, world=32, fsdp="full_shard", weights="fp32"),
            point("qwen2.5-32b", "lora", 2048, world=8, fsdp="full_shard"),
            point("qwen2.5-7b", "lora", 2048, batch=2, world=4, lora_all=True),
            point("llama-3.1-8b", "lora", 4096, world=2),
            point("qwen2.5-1.5b", "full", 512, batch=4, ckpt="none", world=8, fsdp="full_shard"),
            point("mistral-7b-v0.3", "lora", 2048, batch=4, world=8), point("qwen3-8b", "lora", 1024, batch=2, ckpt="none", world=2),
            point("llama-3.1-8b", "lora", 4096, batch=2, world=4, fsdp="full_shard", offload=True),
            plugin_fsdp1("qwen2.5-32b", "lora", 2048, world=16, offload=True, lora_all=True)]
    # FSDP2 at world size 1, measured on the fake group and, with VRAM_TRUTH_BACKEND=nccl, on real NCCL
    pts += [point("qwen2.5-1.5b", "full", 1024, batch=2, ckpt="none", world=1, fsdp="full_shard", weights="fp32"),
            point("llama-3.2-1b", "full", 2048, batch=2, world=1, fsdp="full_shard", weights="fp32")]
    # DeepSpeed ZeRO (ds_point.py): PEFT's ZeRO-3 LoRA recipe on Llama-2-70B (8 x 2,048, r 8 all-linear, dropout 0.1),
    # LoRA and full fine-tunes at 8B, ZeRO-3 with everything offloaded, ZeRO-2
    pts += [zero_point("llama-2-70b", "lora", 2048, batch=8, dropout=0.1), zero_point("llama-3.1-8b", "lora", 2048, batch=4),
            zero_point("llama-3.1-8b", "full", 2048, batch=2), zero_point("qwen2.5-32b", "lora", 4096, batch=2, dropout=0.1),
            zero_point("llama-3.1-8b", "lora", 2048, batch=4, offload=True), zero_point("llama-3.1-8b", "full", 2048, batch=2, stage=2),
            zero_point("llama-2-70b", "lora", 2048, batch=2, dropout=0.1, reentrant=True, buckets="defaults")]
    # What made the last one run out of memory (DeepSpeed's default buckets or reentrant checkpointing), smaller
    # batches of the recipe, ZeRO-2 LoRA, and DeepSpeed's defaults at 8B
    pts += [zero_point("llama-2-70b", "lora", 2048, batch=2, dropout=0.1, reentrant=True),
            zero_point("llama-2-70b", "lora", 2048, batch=2, dropout=0.1, buckets="defaults"),
            zero_point("llama-2-70b", "lora", 2048, batch=4, dropout=0.1), zero_point("llama-3.1-8b", "lora", 2048, batch=4, stage=2, dropout=0.1),
            zero_point("llama-3.1-8b", "lora", 2048, batch=4, buckets="defaults"), zero_point("llama-3.1-8b", "full", 2048, batch=2, buckets="defaults")]
    # Reentrant checkpointing under ZeRO-3 (transformers 4's default), at sizes where the whole model fits gathered
    pts += [zero_point("llama-3.1-8b", "lora", 2048, batch=4, reentrant=True), zero_point("qwen2.5-14b", "lora", 2048, batch=2, reentrant=True, dropout=0.1),
            zero_point("llama-3.1-8b", "full", 2048, batch=2, reentrant=True)]
    # The same under the DeepSpeed releases of 2024-2025 (before ZeRO-3 attributed a reentrant recomputation's frozen
    # parameters, 0.19.3; their non-reentrant checkpointing fails torch's recomputation check), and the 70B recipe at
    # 2 x 2,048 with the "auto" buckets
    pts += [zero_point("llama-3.1-8b", "lora", 2048, batch=4, reentrant=True, release="0.16.5"),
            zero_point("llama-3.1-8b", "lora", 2048, batch=4, reentrant=True, release="0.15.0"),
            zero_point("qwen2.5-14b", "lora", 2048, batch=2, reentrant=True, dropout=0.1, release="0.16.5"),
            zero_point("llama-2-70b", "lora", 2048, batch=2, dropout=0.1),
            zero_point("llama-2-70b", "lora", 2048, batch=2, dropout=0.1, reentrant=True, release="0.16.5")]
    # A model made outside zero.Init (Accelerate's zero3_init_flag off), no checkpointing: before 0.19.4 DeepSpeed's
    # own linear is installed only inside zero.Init, so torch's linear saves a view of each gathered weight and the
    # release leaves it until the layer's backward (FINDINGS 68); 0.19.6 twins, and one with reentrant checkpointing
    pts += [zero_point("llama-3.1-8b", "full", 2048, ckpt="none", init=False, release="0.16.5"),
            zero_point("llama-3.1-8b", "full", 2048, ckpt="none", init=False),
            zero_point("llama-3.1-8b", "lora", 2048, ckpt="none", init=False, release="0.16.5"),
            zero_point("llama-3.1-8b", "lora", 2048, ckpt="none", init=False),
            zero_point("qwen2.5-7b", "full", 2048, ckpt="none", init=False, release="0.15.0"),
            zero_point("qwen2.5-7b", "lora", 4096, ckpt="none", lora_all=False, init=False, release="0.16.5"),
            zero_point("llama-3.1-8b", "full", 2048, batch=2, reentrant=True, init=False, release="0.16.5"),
            zero_point("llama-3.1-8b", "full", 2048, batch=2, ckpt="none", init=False, release="0.16.5", world=16)]
    # The attention-only LoRA twins: DeepSpeed's linear saves a frozen linear's input, torch's does not (the MLP's)
    pts += [zero_point("qwen2.5-7b", "lora", 4096, ckpt="none", lora_all=False, init=False),
            zero_point("qwen2.5-7b", "lora", 4096, ckpt="none", lora_all=False),
            zero_point("qwen2.5-7b", "lora", 4096, ckpt="none", lora_all=False, release="0.16.5"),
            zero_point("llama-3.1-8b", "lora", 2048, batch=2, ckpt="none", lora_all=False, init=False, release="0.15.0")]
    # TRL's SFTTrainer and the HF Trainer under ZeRO-3 with PEFT's recipe (the CPU's SFTTrainer point is -4.1 %), beside
    # the engine loop's llama-3.1-8b-lora-s2048-b4-ckpt-z3-w8-reentrant
    pts += [trainer_zero("llama-3.1-8b", 2048, batch=4), trainer_zero("llama-3.1-8b", 2048, batch=4, runner="trainer"),
            trainer_zero("qwen2.5-7b", 2048, batch=2, dropout=0.1), trainer_zero("llama-3.1-8b", 4096, batch=1)]
    # 2026-11-27: QLoRA with bitsandbytes' own CUDA kernels
    pts += qlora_points()
    # 2026-12-04, one H200 (141 GB): single-GPU runs an 80 GB card cannot hold. The HF Trainer's full fine-tune of a
    # 7-8B model loaded in fp32 with bf16 autocast (TrainingArguments' defaults), 14B in bf16, 32B LoRA at 8k tokens,
    # 8B LoRA at 64k, Gemma-2's 256k vocabulary at 2 x 8,192, an MoE, Llama-2-70B LoRA on one GPU, LoRA under DDP at
    # 4 x 8,192; two runs at the card's edge (Mistral-7B fp32 in a plain loop) and past it (Llama-3.1-8B fp32 with the
    # foreach AdamW's temporaries), which tell whether the estimate's "fits" holds there
    pts += [trainer("llama-3.1-8b", "full", 2048, weights="fp32"), trainer("qwen2.5-7b", "full", 1024, batch=2, weights="fp32"),
            trainer("qwen2.5-14b", "full", 2048), point("qwen2.5-32b", "lora", 8192, lora_all=True),
            trainer("qwen2.5-32b", "lora", 4096, batch=2, lora_all=True), point("llama-3.1-8b", "lora", 65536),
            point("qwen2.5-7b", "lora", 32768, lora_all=True), point("gemma-2-2b", "full", 8192, batch=2),
            point("qwen3-30b-a3b", "lora", 2048, batch=2), point("llama-2-70b", "lora", 1024),
            point("llama-3.1-8b", "lora", 8192, batch=4, world=2, lora_all=True), trainer("mistral-7b-v0.3", "full", 2048, batch=2),
            plugin_fsdp1("llama-3.1-8b", "full", 8192, world=8), point("qwen2.5-14b", "full", 4096, world=8, fsdp="full_shard", weights="fp32"),
            point("mistral-7b-v0.3", "full", 1024, batch=4, weights="fp32"), point("llama-3.1-8b", "full", 2048, weights="fp32")]
    # ZeRO-Offload full fine-tunes (FINDINGS 113, CPU truth only so far): ZeRO-3 checks each gradient partition on the
    # GPU before it goes to the host, the output head's beside every activation; ZeRO-1 checks every gradient at its
    # epilogue, the embedding's on rank 0 beside all of them. Short sequences, so that the checks, not the loss, peak.
    pts += [zero_point("llama-3.2-3b", "full", 2048, batch=2, offload="optimizer"),
            zero_point("llama-3.1-8b", "full", 2048, offload="optimizer"),
            zero_point("qwen2.5-7b", "full", 256, offload="optimizer"),
            zero_point("llama-3.1-8b", "full", 512, ckpt="none", offload="optimizer"),
            zero_point("llama-3.2-1b", "full", 512, stage=1, offload="optimizer"),
            zero_point("qwen2.5-1.5b", "full", 512, stage=1, offload="optimizer")]
    # ms-swift's example scripts state 27.5 / 18 / 16 GiB a GPU for Qwen2.5-7B LoRA (rank 8, every linear layer) over 2
    # GPUs under DDP, ZeRO-2 and ZeRO-3 (December 2024: DeepSpeed 0.15-0.16, reentrant checkpointing); the estimate for
    # short samples is 10-44 % under them (FINDINGS 115). The same runs at 128 and 1,024 tokens, the ZeRO-3 one under
    # 0.16.5 and 0.19.6, to settle whether the figures are the runs' or the scripts' data.
    for seq in (128, 1024):
        pts += [point("qwen2.5-7b", "lora", seq, world=2, lora_all=True, r=8),
                zero_point("qwen2.5-7b", "lora", seq, world=2, stage=2, dropout=0.05, reentrant=True),
                zero_point("qwen2.5-7b", "lora", seq, world=2, stage=3, dropout=0.05, reentrant=True, release="0.16.5"),
                zero_point("qwen2.5-7b", "lora", seq, world=2, stage=3, dropout=0.05, reentrant=True)]
    return dict(pts)
