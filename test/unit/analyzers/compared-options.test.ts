// An argparse option compared with a string (`args.cpu_offload == "on"`, src/analyzers/hf-python/expressions.ts
// comparedOption): the script's default decides the value where the launch line passes nothing, and the launch line's
// word is compared the same way (src/analyzers/launch-args.ts withLaunchArgs).
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
