// A training script that hands its argparse parser to a helper class of the project (tdolega/rag-tge's
// src/finetune.py and src/common/llm_finetuning.py, cut to what decides the values asserted): the class adds its
// options to the parser, keeps `self.args = parser.parse_args()`, loads the model in a method from
// `self.args.input_model_name`, and calls the Unsloth loader only under `if self.args.use_unsloth:` (default False).
// Each expected value is written in the test's own files.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';

const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p) => files[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

const SCRIPT = `import argparse
from common.llm_finetuning import LLM_TRAINER_ASSISTANT

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--language", type=str, default="en")
    trainer_assistant = LLM_TRAINER_ASSISTANT(parser=parser)
    trainer_assistant()

if __name__ == "__main__":
    main()
`;

const HELPER = `import argparse
import torch
from transformers import TrainingArguments
from trl import SFTTrainer

notified = False

def standardize_chat(model_name, chat):
    global notified
    if not notified:
        print("WARNING")
        notified = True
    return chat

class LLM_TRAINER_ASSISTANT:
    def add_args(self, parser):
        parser.add_argument("--input_model_name", type=str, default="meta-llama/Meta-Llama-3-8B-Instruct")
        parser.add_argument("--use_unsloth", type=bool, default=False)
        parser.add_argument("--lora_rank", type=int, default=128)
        parser.add_argument("--batch_size", type=int, default=8)
        parser.add_argument("--optim", type=str, default="paged_adamw_32bit")
        return parser

    def __init__(self, parser=None):
        if parser is None:
            parser = argparse.ArgumentParser()
        parser = self.add_args(parser)
        self.args = parser.parse_args()
        if self.args.use_unsloth:
            self.init_model_unsloth()
        else:
            self.init_model_transformers()

    def init_model_unsloth(self):
        from unsloth import FastLanguageModel
        self.model, self.tokenizer = FastLanguageModel.from_pretrained(model_name=self.args.input_model_name)
        self.model = FastLanguageModel.get_peft_model(self.model, r=self.args.lora_rank, lora_dropout=0)

    def init_model_transformers(self):
        from transformers import AutoModelForCausalLM
        from peft import LoraConfig
        self.model = AutoModelForCausalLM.from_pretrained(self.args.input_model_name, torch_dtype=torch.bfloat16)
        self.peft_config = LoraConfig(r=self.args.lora_rank, lora_dropout=0.1, target_modules="all-linear")

    def __call__(self):
        args = self.args
        self.trainer = SFTTrainer(
            model=self.model,
            peft_config=self.peft_config,
            args=TrainingArguments(output_dir="out", per_device_train_batch_size=args.batch_size, optim=args.optim),
        )
        self.trainer.train()
`;

function runWith(options: string): PipelineResult {
  const launcher = `python src/finetune.py ${options}\n`;
  const files = {
    '/w/run.sh': launcher,
    '/w/src/finetune.py': SCRIPT,
    '/w/src/common/llm_finetuning.py': HELPER,
  };
  return runPipeline([{ file: '/w/run.sh', text: launcher }], inMemory(files), {});
}

describe("a helper class that parses the script's command line itself", () => {
  it("reads self.args.x as the option x: the class's default, or the launch line's value", () => {
    assert.equal(runWith('').setup?.model, 'meta-llama/Meta-Llama-3-8B-Instruct');
    assert.equal(runWith('--input_model_name Qwen/Qwen2.5-7B').setup?.model, 'Qwen/Qwen2.5-7B');
  });

  it('reads `args = self.args` as the parsed options too: the batch and the optimizer of its TrainingArguments', () => {
    const r = runWith('--batch_size 2');
    assert.equal(r.setup?.micro_batch_size, 2);
    assert.equal(r.setup?.optimizer, 'paged_adamw');
  });

  it('does not read a method called only on a branch known not to run (the Unsloth loader, use_unsloth False)', () => {
    const r = runWith('--lora_rank 32');
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.lora?.r, 32);
    assert.equal(r.setup?.lora?.dropout, 0.1);
    assert.equal(r.setup?.lora?.target_modules, 'all-linear');
    assert.notEqual(r.setup?.kernels, 'unsloth');
  });

  it('reads the Unsloth loader where the launch line turns it on', () => {
    const r = runWith('--use_unsloth True --lora_rank 32');
    assert.equal(r.setup?.kernels, 'unsloth');
    assert.equal(r.setup?.lora?.dropout, 0);
  });

  it("another object's method of a function's name is no call of it: a module's train() that calls trainer.train()", () => {
    // A helper module whose entry `train` (the script calls it) runs `trainer.train()` only under a test known false:
    // that call is the Trainer's method, not a call of the module's own train, which still runs.
    const module = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'RESUME = False',
      'def train():',
      '    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      '    trainer = Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=2))',
      '    if RESUME:',
      '        trainer.train()',
      '',
    ].join('\n');
    const script = 'from helpers import train\nif __name__ == "__main__":\n    train()\n';
    const files = { '/w/run.sh': 'python main.py\n', '/w/main.py': script, '/w/helpers.py': module };
    const r = runPipeline([{ file: '/w/run.sh', text: files['/w/run.sh'] }], inMemory(files), {});
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 2]);
  });
});
