"""The HF Trainer and TRL's SFT / DPO / GRPO trainers, single process on the CPU (use_cpu), as users run them:
the trainer builds its own data loader, autocast, gradient checkpointing, loss and (for TRL) reference and
generation. Only the optimizer is chosen: torch's AdamW with foreach=True, the implementation CUDA tensors get
by default (CPU tensors default to the per-tensor loop). With `parallel: ddp | fsdp1 | fsdp2` the trainer runs as
rank 0 of the scenario's GPUs over the fake process group, and Accelerate prepares the model (DDP, the FSDP1
plugin or FSDP2, from the `fsdp` / `fsdp_config` a user gives the trainer); with `parallel: deepspeed`, DeepSpeed ZeRO
from the `deepspeed` config a user gives it (hf_zero.py)."""
import os
import tempfile

import torch

from . import hf_zero, loop, models, parallel


def _callback(rec):
    from transformers import TrainerCallback

    class StepMarks(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            rec.mark(f"step_begin:{state.global_step}")

        def on_step_end(self, args, state, control, **kwargs):
            rec.mark(f"step_end:{state.global_step - 1}")

    return StepMarks()


def training_kwargs(scenario, harness, out_dir):
    # `fsdp_ac: true`: checkpointing through fsdp_config's activation_checkpointing (Accelerate wraps each layer in
    # checkpoint_wrapper before sharding) instead of the trainer's gradient_checkpointing.
    ckpt = scenario.get("gradient_checkpointing", "none") != "none" and not harness.get("fsdp_ac")
    deepspeed = harness.get("parallel") == "deepspeed"
    return dict(
        output_dir=out_dir, use_cpu=not deepspeed, report_to=[], save_strategy="no", logging_strategy="no",
        **({"deepspeed": hf_zero.config(scenario, harness)} if deepspeed else {}),
        per_device_train_batch_size=scenario.get("micro_batch_size", 1),
        gradient_accumulation_steps=scenario.get("gradient_accumulation_steps", 1),
        # Under DeepSpeed `bf16` turns on its bf16 mode (the config's "auto"), which the scenario says as bf16 weights.
        max_steps=harness.get("steps", 2),
        bf16=scenario.get("mixed_precision") == "bf16" or (deepspeed and scenario.get("weights_dtype") == "bf16"),
        gradient_checkpointing=ckpt,
        gradient_checkpointing_kwargs={"use_reentrant": harness.get("reentrant", False)} if ckpt else None,
        dataloader_num_workers=0, seed=harness.get("seed", 0), max_grad_norm=harness.get("max_grad_norm", 1.0),
        **({"optim": "adamw_torch"} if harness.get("parallel", "none") != "none" else {}),
        **_fsdp_kwargs(scenario, harness),
    )


PREFETCH = {"pre": "BACKWARD_PRE", "post": "BACKWARD_POST", "none": "NO_PREFETCH"}


def _fsdp_kwargs(scenario, harness):
    """TrainingArguments' `fsdp` and `fsdp_config` for an FSDP point: the sharding, CPU offload, and for FSDP1 the
    backward prefetch and use_orig_params the scenario names (the trainer's defaults otherwise). sync_module_states
    broadcasts a model every rank already holds; Accelerate asks a GPU for it."""
    kind = harness.get("parallel", "none")
    if kind not in ("fsdp1", "fsdp2"):
        return {}
    config = {"version": 2 if kind == "fsdp2" else 1, "cpu_offload": parallel.offloading(scenario),
              "reshard_after_forward": scenario.get("fsdp", "full_shard") != "shard_grad_op" if kind == "fsdp2" else scenario.get("fsdp", "full_shard")}
    if harness.get("fsdp_ac"):
        config["activation_checkpointing"] = True
    if kind == "fsdp1":
        config.update(sync_module_states=False, use_orig_params=scenario.get("fsdp_use_orig_params", True))
        if "fsdp_backward_prefetch" in scenario:
            config["backward_prefetch"] = PREFETCH[scenario["fsdp_backward_prefetch"]]
    return {"fsdp": True, "fsdp_config": config}


class _ForeachAdamW(torch.optim.AdamW):
    """torch's AdamW with foreach=True, the implementation CUDA tensors get by default."""

    def __init__(self, params, **kwargs):
        super().__init__(params, **{**kwargs, "foreach": True})


def _optimizer(scenario, harness, model):
    """The trainer's optimizer: made here, or under data parallelism, where the trainer makes it from the prepared
    model (FSDP refuses one made before), `optim="adamw_torch"` with torch's AdamW made foreach (_ForeachAdamW stands
    in for torch.optim.AdamW, which transformers imports when it builds the optimizer)."""
    if harness.get("parallel", "none") != "none":
        torch.optim.AdamW = _ForeachAdamW
        return {}
    return {"optimizers": (loop.make_optimizer(model, scenario), None)}


def _token_rows(scenario, n, length, seed=7):
    g = torch.Generator().manual_seed(seed)
    vocab = scenario["architecture"]["vocab_size"]
    return [torch.randint(3, vocab, (length,), generator=g).tolist() for _ in range(n)]


def _texts(scenario, n, length, seed):
    g = torch.Generator().manual_seed(seed)
    return [models.text(length, g, scenario["architecture"]["vocab_size"]) for _ in range(n)]


def _rows(scenario, harness):
    return scenario.get("micro_batch_size", 1) * scenario.get("gradient_accumulation_steps", 1) * harness.get("steps", 2) * 2


def _trainer(scenario, harness, rec, model, out_dir):
    from datasets import Dataset
    from transformers import Trainer, TrainingArguments

    rows = _token_rows(scenario, _rows(scenario, harness), scenario.get("seq_len", 128))
    ds = Dataset.from_dict({"input_ids": rows, "labels": rows})
    args = TrainingArguments(**training_kwargs(scenario, harness, out_dir))
    return Trainer(model=model, args=args, train_dataset=ds, callbacks=[_callback(rec)], **_optimizer(scenario, harness, model))


def _sft(scenario, harness, rec, model, out_dir):
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    # harness `packed_rows: N`: rows of N tokens, packed by TRL (best-fit decreasing, padding-free position ids) into
    # bins of seq_len; otherwise rows of seq_len, unpacked.
    packed = harness.get("packed_rows")
    seq_len = scenario.get("seq_len", 128)
    n = _rows(scenario, harness) * (seq_len // packed if packed else 1)
    ds = Dataset.from_dict({"input_ids": _token_rows(scenario, n, packed or seq_len)})
    args = SFTConfig(**training_kwargs(scenario, harness, out_dir), max_length=seq_len, packing=bool(packed))
    return SFTTrainer(model=model, args=args, train_dataset=ds, **_trainer_kwargs(scenario, harness, rec, model))


def _tokenizer(scenario):
    return models.tokenizer(scenario["architecture"]["vocab_size"])


def _trainer_kwargs(scenario, harness, rec, model):
    """What every TRL trainer here is given: the tokenizer, torch's foreach AdamW, the step marks."""
    return dict(processing_class=_tokenizer(scenario), callbacks=[_callback(rec)], **_optimizer(scenario, harness, model))


def _pairs(scenario, harness):
    """Prompts with a chosen and a rejected completion. The completions begin with a space: the trainers tokenize
    prompt + completion as one string, and the word-level tokenizer would read the last prompt word and the first
    completion word as one unknown word."""
    from datasets import Dataset

    n, prompt, completion = _rows(scenario, harness), harness["prompt_len"], harness["completion_len"]
    return Dataset.from_dict({"prompt": _texts(scenario, n, prompt, 1), "chosen": [" " + t for t in _texts(scenario, n, completion, 2)],
                              "rejected": [" " + t for t in _texts(scenario, n, completion, 3)]})


def _reference_copy(scenario, harness, reference):
    """A frozen copy when the scenario's reference is one (TRL would load it by the model's hub name), else None."""
    return models.build_model(scenario, harness) if reference == "copy" else None


def _watch_reference(rec, trainer):
    if getattr(trainer, "ref_model", None) is not None:
        rec.watch_forward(models.hf_model(trainer.ref_model))
    return trainer


def _dpo(scenario, harness, rec, model, out_dir):
    from trl import DPOConfig, DPOTrainer

    args = DPOConfig(**training_kwargs(scenario, harness, out_dir), max_length=scenario.get("seq_len", 128))
    ref = _reference_copy(scenario, harness, scenario.get("preference", {}).get("reference"))
    trainer = DPOTrainer(model=model, ref_model=ref, args=args, train_dataset=_pairs(scenario, harness),
                         **_trainer_kwargs(scenario, harness, rec, model))
    return _watch_reference(rec, trainer)


def _kto(scenario, harness, rec, model, out_dir):
    from datasets import Dataset
    from trl import KTOConfig, KTOTrainer

    n, prompt, completion = _rows(scenario, harness), harness["prompt_len"], harness["completion_len"]
    # Unpaired completions, desirable and undesirable in turn; KTOTrainer builds each example's KL completion from its
    # neighbour in the (sequential) batch.
    ds = Dataset.from_dict({"prompt": _texts(scenario, n, prompt, 1), "completion": [" " + t for t in _texts(scenario, n, completion, 2)],
                            "label": [i % 2 == 0 for i in range(n)]})
    args = KTOConfig(**training_kwargs(scenario, harness, out_dir), max_length=scenario.get("seq_len", 128))
    ref = _reference_copy(scenario, harness, scenario.get("preference", {}).get("reference"))
    trainer = KTOTrainer(model=model, ref_model=ref, args=args, train_dataset=ds, **_trainer_kwargs(scenario, harness, rec, model))
    return _watch_reference(rec, trainer)


def _orpo(scenario, harness, rec, model, out_dir):
    from trl.experimental.orpo import ORPOConfig, ORPOTrainer

    args = ORPOConfig(**training_kwargs(scenario, harness, out_dir), max_length=scenario.get("seq_len", 128))
    return ORPOTrainer(model=model, args=args, train_dataset=_pairs(scenario, harness), **_trainer_kwargs(scenario, harness, rec, model))


def _prompts(scenario, harness):
    from datasets import Dataset

    return Dataset.from_dict({"prompt": _texts(scenario, 64, harness["prompt_len"], 1)})


def _online_dpo(scenario, harness, rec, model, out_dir):
    from trl.experimental.online_dpo import OnlineDPOConfig, OnlineDPOTrainer

    rollout = scenario["rollout"]
    args = OnlineDPOConfig(**training_kwargs(scenario, harness, out_dir), max_new_tokens=rollout["completion_len"],
                           max_length=scenario.get("seq_len", 128), use_vllm=False)
    ref = _reference_copy(scenario, harness, rollout.get("reference"))
    trainer = OnlineDPOTrainer(model=model, ref_model=ref, reward_funcs=_reward, args=args, train_dataset=_prompts(scenario, harness),
                               **_trainer_kwargs(scenario, harness, rec, model))
    rec.watch_generate(model)
    return _watch_reference(rec, trainer)


def _reward(completions, **kwargs):
    return [float(len(c)) for c in completions]


def _policy_gradient(config_cls, trainer_cls, scenario, harness, rec, model, out_dir):
    """GRPO and RLOO: groups of completions per prompt, scored by a reward function, no vLLM."""
    rollout = scenario["rollout"]
    if harness.get("beta", 0.0) and scenario.get("method") == "full":
        _loadable(model, out_dir)
    args = config_cls(**training_kwargs(scenario, harness, out_dir), num_generations=harness.get("num_generations", 2),
                      max_completion_length=rollout["completion_len"], beta=harness.get("beta", 0.0),
                      steps_per_generation=rollout["batch"] // scenario.get("micro_batch_size", 1), use_vllm=False)
    trainer = trainer_cls(model=model, reward_funcs=_reward, args=args, train_dataset=_prompts(scenario, harness),
                          **_trainer_kwargs(scenario, harness, rec, model))
    rec.watch_generate(model)  # the outermost generate (PEFT's calls the base model's inside)
    return trainer


def _loadable(model, out_dir):
    """GRPO and RLOO load their reference by the policy's name (trl create_model_from_path): the random policy is
    saved where that name points, as a hub model's files would be."""
    path = os.path.join(out_dir, "policy")
    model.save_pretrained(path)
    model.config._name_or_path = path


def _grpo(scenario, harness, rec, model, out_dir):
    from trl import GRPOConfig, GRPOTrainer

    return _policy_gradient(GRPOConfig, GRPOTrainer, scenario, harness, rec, model, out_dir)


def _rloo(scenario, harness, rec, model, out_dir):
    from trl import RLOOConfig, RLOOTrainer

    return _policy_gradient(RLOOConfig, RLOOTrainer, scenario, harness, rec, model, out_dir)


BUILDERS = {"trainer": _trainer, "sft": _sft, "dpo": _dpo, "grpo": _grpo, "kto": _kto, "orpo": _orpo, "online_dpo": _online_dpo, "rloo": _rloo}


def _watch_shape(model, sink):
    def hook(module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        if torch.is_tensor(ids) and torch.is_grad_enabled():
            sink["batchShape"] = list(ids.shape)

    models.hf_model(model).register_forward_pre_hook(hook, with_kwargs=True)


def _watch_offload(rec, trainer):
    """Under CPU offload, the storages kept in host memory as each optimizer step begins (loop.run does the same)."""
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    parallel.watch_grad_writeback(rec)
    handle = register_optimizer_step_pre_hook(
        lambda *a: rec.snapshot_offloaded(parallel.offloaded_tensors(trainer.model_wrapped, trainer.optimizer)))
    return handle


def run(rec, scenario, harness):
    distributed = harness.get("parallel", "none") != "none"
    deepspeed = harness.get("parallel") == "deepspeed"
    if deepspeed:
        hf_zero.prepare(scenario, harness)
    if distributed and not deepspeed:
        parallel.fake_accelerate(parallel.world_size(scenario))
    # Under DeepSpeed the arguments come first: they hand the config to from_config (ZeRO-Init at stage 3).
    early = hf_zero.arguments(training_kwargs(scenario, harness, tempfile.gettempdir())) if deepspeed else None
    model = models.apply_peft(models.build_model(scenario, harness), scenario)
    rec.watch_forward(models.hf_model(model))
    sink = {}
    _watch_shape(model, sink)
    with tempfile.TemporaryDirectory() as out_dir:
        trainer = BUILDERS[harness["runner"]](scenario, harness, rec, model, out_dir)
        del early
        watch = _watch_offload(rec, trainer) if distributed and parallel.offloading(scenario) else None
        trainer.train()
        if watch:
            watch.remove()
    wrapped = trainer.model_wrapped if distributed else trainer.model
    if deepspeed:  # the engine's module and DeepSpeed's ZeRO optimizer (its state: the fp32 partitions' AdamW)
        wrapped, optimizer = wrapped.module, trainer.model_wrapped.optimizer
    else:
        optimizer = trainer.optimizer
    return {"model": wrapped, "optimizer": optimizer, **sink,
            "expertsImplementation": getattr(models.hf_model(model).config, "_experts_implementation", None)}
