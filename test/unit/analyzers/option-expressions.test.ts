// A script's option used through an expression: compared with a string (`args.cpu_offload == "on"`,
// src/analyzers/hf-python/expressions.ts comparedOption) or split where it is used (`training_args.trainable.split(",")`,
// staticSplit). The script's default decides the value where the launch line passes nothing, and the launch line's
// word goes through the same expression (src/analyzers/launch-args.ts withLaunchArgs).
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

describe("an option compared with a string decides a switch the way the launch line's word does", () => {
  // LambdaLabsML/distributed-training-guide@55b8679 05-sharding-fsdp/train_llm.py: `parser.add_argument("--cpu-offload",
  // default="off", choices=["on", "off"])` and `FSDP(..., cpu_offload=CPUOffload(offload_params=args.cpu_offload ==
  // "on"))`, launched with `--cpu-offload on`.
  const script = (test: string) => `import argparse, torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, CPUOffload
from transformers import AutoModelForCausalLM
parser = argparse.ArgumentParser()
parser.add_argument("--cpu-offload", default="off", choices=["on", "off"])
args = parser.parse_args()
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model = FSDP(model, cpu_offload=CPUOffload(offload_params=${test}))
for batch in dataloader:
    model(**batch).loss.backward()
`;
  const launched = (test: string, flag: string) =>
    runFiles(
      { '/w/run.sh': `torchrun --nproc_per_node 8 train.py ${flag}\n`, '/w/train.py': script(test) },
      '/w/run.sh',
    ).setup?.offload_params;

  it('== "on": offloaded with --cpu-offload on, not with off or the default "off"', () => {
    assert.equal(launched('args.cpu_offload == "on"', '--cpu-offload on'), 'cpu');
    assert.equal(launched('args.cpu_offload == "on"', '--cpu-offload off'), 'none');
    assert.equal(launched('args.cpu_offload == "on"', ''), 'none');
  });

  it('!= "off" and the string on the left read the same', () => {
    assert.equal(launched('args.cpu_offload != "off"', '--cpu-offload on'), 'cpu');
    assert.equal(launched('"on" == args.cpu_offload', '--cpu-offload on'), 'cpu');
    assert.equal(launched('"on" == args.cpu_offload', '--cpu-offload off'), 'none');
  });
});

describe("a TrainingArguments field split where it is used takes the launch line's word split the same way", () => {
  // ymcui/Chinese-LLaMA-Alpaca@090475f scripts/training/run_clm_sft_with_peft.py: `class MyTrainingArguments(
  // TrainingArguments): trainable: Optional[str] = field(default="q_proj,v_proj")`, `target_modules =
  // training_args.trainable.split(',')`; run_sft.sh passes `--trainable q_proj,v_proj,k_proj,o_proj,gate_proj,down_proj,up_proj`.
  const script = `from dataclasses import dataclass, field
from typing import Optional
import torch
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments
from peft import LoraConfig, get_peft_model

@dataclass
class MyTrainingArguments(TrainingArguments):
    trainable: Optional[str] = field(default="q_proj,v_proj")

parser = HfArgumentParser((MyTrainingArguments,))
training_args, = parser.parse_args_into_dataclasses()
model = AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b", torch_dtype=torch.float16)
model = get_peft_model(model, LoraConfig(task_type="CAUSAL_LM", target_modules=training_args.trainable.split(','), r=8))
Trainer(model=model, args=training_args).train()
`;
  const targets = (flag: string) =>
    runFiles(
      { '/w/run.sh': `torchrun --nproc_per_node 1 train.py --output_dir out ${flag}\n`, '/w/train.py': script },
      '/w/run.sh',
    ).setup?.lora?.target_modules;

  it('seven modules from --trainable; the default q_proj,v_proj without it', () => {
    assert.deepEqual(targets('--trainable q_proj,v_proj,k_proj,o_proj,gate_proj,down_proj,up_proj'), [
      'q_proj',
      'v_proj',
      'k_proj',
      'o_proj',
      'gate_proj',
      'down_proj',
      'up_proj',
    ]);
    assert.deepEqual(targets(''), ['q_proj', 'v_proj']);
  });
});
