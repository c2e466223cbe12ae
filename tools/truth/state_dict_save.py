"""What FSDP1 allocates while it builds a SHARDED_STATE_DICT (terms/checkpoint-save.ts), measured on the CPU.

A tiny Llama in bf16 (with PEFT LoRA on q_proj and v_proj under PEFT's wrap policy, or a full model under the
transformer-layer policy), FSDP1 FULL_SHARD with use_orig_params=False at world sizes 2 and 4 through the fake process
group, then `model.state_dict()` under SHARDED_STATE_DICT with ShardedStateDictConfig(offload_to_cpu=False), the
config Accelerate before 0.31 left in place. The profiler's allocation records over that call give its high point and
what the finished state dict holds, counted from zero at the call. On the CPU `.cpu()` is a no-op, so offload_to_cpu
cannot be told apart here; what this checks is the size of the clones and of the units unsharded beside them.

    tools/truth/.venv/bin/python tools/truth/state_dict_save.py > test/fixtures/state-dict-save.json
"""
import json
import sys

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import ShardedStateDictConfig, ShardingStrategy, StateDictType
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from truthlib.memory import Timeline, high_water  # noqa: E402

ARCH = dict(model_type="llama", hidden_size=256, intermediate_size=704, num_hidden_layers=4, num_attention_heads=8,
            num_key_value_heads=8, vocab_size=3200, max_position_embeddings=512, tie_word_embeddings=False)


def build(method):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**{k: v for k, v in ARCH.items() if k != "model_type"})).to(torch.bfloat16)
    if method == "lora":
        from peft import LoraConfig, get_peft_model
        from peft.utils.other import fsdp_auto_wrap_policy

        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "v_proj"]))
        for name, p in model.named_parameters():
            if "lora_" in name:
                p.data = p.data.to(torch.bfloat16)
        return model, fsdp_auto_wrap_policy(model)
    import functools

    from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer

    return model, functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={LlamaDecoderLayer})


def measure(method):
    model, policy = build(method)
    fsdp = FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD, device_id=torch.device("cpu"),
                auto_wrap_policy=policy, use_orig_params=False, sync_module_states=False)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with FSDP.state_dict_type(fsdp, StateDictType.SHARDED_STATE_DICT, ShardedStateDictConfig(offload_to_cpu=False)):
            state = fsdp.state_dict()
    peak, held = high_water(Timeline(prof))
    del state
    return {"peakBytes": peak, "heldAtEndBytes": held}


def main():
    import peft
    import transformers

    points = []
    for world in (2, 4):
        dist.init_process_group(backend="fake", rank=0, world_size=world, store=_store())
        for method in ("lora", "full"):
            points.append({"world": world, "method": method, **measure(method)})
        dist.destroy_process_group()
    json.dump({"versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                            "peft": peft.__version__},
               "architecture": ARCH, "lora": {"r": 16, "target_modules": ["q_proj", "v_proj"], "dtype": "bf16"},
               "points": points}, sys.stdout, indent=1)
    print()


def _store():
    from torch.testing._internal.distributed.fake_pg import FakeStore

    return FakeStore()


if __name__ == "__main__":
    main()
