// The model cast after its load, `model = model.bfloat16()` and the like, is the weights' dtype
// (src/analyzers/hf-python/model-cast.ts).
import * as assert from 'node:assert/strict';
import type { PipelineResult } from '../../../src/analyzers/pipeline';
import { runFiles } from '../helpers';

function runOf(text: string, files: Record<string, string> = {}): PipelineResult {
  return runFiles({ '/p/train.py': text, ...files }, '/p/train.py');
}

/** A FastChat fork's train.py (abridged): loaded with no dtype under transformers 4 (its pin), then cast. */
const script = (cast: string, load = 'AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5")'): string =>
  [
    'import torch',
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    `model = ${load}`,
    cast,
    'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=1)).train()',
    '',
  ].join('\n');
const PIN = { '/p/requirements.txt': 'transformers==4.31.0\n' };
const dtype = (text: string): string | undefined => runOf(text, PIN).setup?.weights_dtype as string | undefined;

describe('hf-python: the model cast after its load', () => {
  it('model.bfloat16() / .half() / .to(torch.bfloat16) / .float(): the weights in that dtype over the load', () => {
    // BillyZhang24kobe/LS_Proficiency fastchat/train/train.py:256 `model = model.bfloat16()`: read as float32 before.
    assert.equal(dtype(script('')), 'fp32');
    assert.equal(dtype(script('model = model.bfloat16()')), 'bf16');
    assert.equal(dtype(script('model.half()')), 'fp16');
    assert.equal(dtype(script('model = model.to(torch.bfloat16)')), 'bf16');
    assert.equal(dtype(script('model.to("cuda", dtype=torch.float16)')), 'fp16');
    assert.equal(
      dtype(script('model = model.float()', 'AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float16)')),
      'fp32',
    );
  });

  it('on the load itself, and through .cuda()', () => {
    assert.equal(dtype(script('', 'AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5").half()')), 'fp16');
    assert.equal(
      dtype(script('', 'AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5").cuda().bfloat16()')),
      'bf16',
    );
  });

  it('a device move, another object, or a branch known not to run casts nothing', () => {
    assert.equal(dtype(script('model = model.to("cuda")')), 'fp32');
    assert.equal(dtype(script('x = torch.zeros(2).half()')), 'fp32');
    assert.equal(dtype(script('if False:\n    model = model.half()')), 'fp32');
    // After the trainer's train(): the trained model readied for saving.
    const saved = script('').replace('.train()\n', '.train()\nmodel.half().save_pretrained("out")\n');
    assert.equal(dtype(saved), 'fp32');
  });
});
