// An argparse store_false option given bare on the launch line is False (argparse's store_false: True unless given).
// The shape of pacman100/DHS-LLM-Workshop's personal_copilot/training/train.py (`--no_fp16`, action="store_false", then
// `TrainingArguments(..., bf16=args.bf16, fp16=args.no_fp16)`), run by run_peft.sh with `--bf16 --no_fp16`: read as
// True, the run was refused with "bf16=True and fp16=True together".
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const script = [
  'import argparse',
  'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
  'parser = argparse.ArgumentParser()',
  'parser.add_argument("--bf16", action="store_true")',
  'parser.add_argument("--no_fp16", action="store_false")',
  'args = parser.parse_args()',
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
  'training_args = TrainingArguments(output_dir="o", bf16=args.bf16, fp16=args.no_fp16)',
  'Trainer(model=model, args=training_args).train()',
  '',
].join('\n');

describe('hf-python: a store_false flag given on the launch line', () => {
  it('--bf16 --no_fp16 is bf16 alone; with no launch line, fp16 by the store_false default', () => {
    const r = runProject({ 'train.py': script, 'run.sh': 'python train.py --bf16 --no_fp16\n' }, 'run.sh');
    assert.ok(!r.problems.some((p) => p.code === 'conflicting-precision'), JSON.stringify(r.problems));
    assert.equal(r.setup?.mixed_precision, 'bf16');
    const alone = runProject({ 'train.py': script }, 'train.py');
    assert.equal(alone.setup?.mixed_precision, 'fp16');
  });
});
