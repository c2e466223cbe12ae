// An option a script declares with argparse `type=bool` (collect/bool-typed-options.ts, launch-args.ts): argparse calls
// bool() on the launch line's word, and bool("False") is True, so `--use_lora=False` leaves LoRA on.
// pinecypressfxd/finetune-Qwen2.5-VL finetune_distributed.py: `parser.add_argument('--use_lora', type=bool, ...)`,
// launched by finetune_distributed_without_LoRA.sh with `--use_lora=False`: the LoRA run, not the full fine-tune.
import * as assert from 'node:assert/strict';
import { runFiles, runFact } from '../helpers';

const SCRIPT = (declaration: string): string =>
  [
    'import argparse, torch',
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'from peft import LoraConfig, get_peft_model',
    'p = argparse.ArgumentParser()',
    declaration,
    'p.add_argument("--bf16", type=bool, default=True)',
    'args = p.parse_args()',
    'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype=torch.bfloat16)',
    'if args.use_lora:',
    '    model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))',
    'targs = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=args.bf16)',
    'Trainer(model=model, args=targs, train_dataset=ds).train()',
    '',
  ].join('\n');

describe('argparse type=bool: the launch line word is what bool() makes of it', () => {
  it('`--use_lora=False` to a `type=bool` option is LoRA, with a warning at the word', () => {
    const r = runFiles(
      {
        '/w/run.sh': 'torchrun --nproc_per_node 1 train.py --use_lora=False\n',
        '/w/train.py': SCRIPT('p.add_argument("--use_lora", type=bool, default=True)'),
      },
      '/w/run.sh',
    );
    assert.equal(r.setup?.method, 'lora');
    const said = r.problems.find((p) => p.key === 'use_lora');
    assert.equal(said?.severity, 'warning');
    assert.match(said?.message ?? '', /bool\('False'\) is True/);
    // Column 49: the word after `--use_lora=` (48 characters before it).
    assert.equal(said?.column, 49);
  });

  it('the same word to a `type=bool` option whose default is False: the branch is taken, LoRA', () => {
    const r = runFiles(
      {
        '/w/run.sh': 'python train.py --use_lora False\n',
        '/w/train.py': SCRIPT('p.add_argument("--use_lora", type=bool, default=False)'),
      },
      '/w/run.sh',
    );
    assert.equal(r.setup?.method, 'lora');
  });

  it("`--bf16 False` that the script hands TrainingArguments: bf16 is on (the script's reading of its option too)", () => {
    const r = runFiles(
      {
        '/w/run.sh': 'python train.py --use_lora True --bf16 False\n',
        '/w/train.py': SCRIPT('p.add_argument("--use_lora", type=bool, default=True)'),
      },
      '/w/run.sh',
    );
    assert.equal(r.setup?.mixed_precision, 'bf16');
    assert.equal(runFact(r, 'bf16')?.fact.value, true);
  });

  it('an option argparse converts with a function of the script (str2bool) reads False as False', () => {
    const r = runFiles(
      {
        '/w/run.sh': 'python train.py --use_lora False\n',
        '/w/train.py': SCRIPT(
          'def str2bool(v):\n    return v.lower() in ("yes", "true", "1")\np.add_argument("--use_lora", type=str2bool, default=True)',
        ),
      },
      '/w/run.sh',
    );
    assert.equal(r.setup?.method, 'full');
    assert.ok(!r.problems.some((p) => p.key === 'use_lora'));
  });
});
