// transformers' GPTQConfig / AwqConfig in a script (src/analyzers/hf-python/gptq-config.ts): the model's linear
// layers are 4- or 8-bit GPTQ / AWQ weights. bayjarvis/llm mistral/dpo/dpo_trainer.py loads its policy and reference
// with `GPTQConfig(bits=4, disable_exllama=True)` and trains LoRA r4 on q and v.
import * as assert from 'node:assert/strict';
import { resolveText } from '../helpers';

const script = (bits: string) =>
  [
    'import torch',
    'from transformers import AutoModelForCausalLM, GPTQConfig, TrainingArguments, Trainer',
    'from peft import LoraConfig, get_peft_model',
    `gptq_config = GPTQConfig(bits=${bits}, disable_exllama=True)`,
    'model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", torch_dtype=torch.float16,',
    '    quantization_config=gptq_config)',
    'model = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))',
    'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=1)).train()',
    '',
  ].join('\n');

describe('hf-python: GPTQConfig and AwqConfig', () => {
  it('GPTQConfig(bits=4) makes 4-bit GPTQ weights under the LoRA', () => {
    const r = resolveText('train.py', script('4'));
    assert.equal(r.setup?.method, 'qlora');
    assert.deepEqual([r.setup?.quantization?.bits, r.setup?.quantization?.type], [4, 'gptq']);
    assert.deepEqual(
      [script('8').length > 0, resolveText('train.py', script('8')).setup?.quantization?.bits],
      [true, 8],
    );
  });

  it('another bit width (2, 3) is said not to be modeled, at bits', () => {
    const r = resolveText('train.py', script('3'));
    assert.equal(r.setup?.quantization, undefined);
    assert.ok(
      r.problems.some((p) => p.code === 'not-modeled' && /bits: 3-bit weights are not modeled/.test(p.message)),
    );
  });

  it('a config on the side of a conditional the run does not take quantizes nothing; an open test is unknown', () => {
    // QwenLM/Qwen@e8e1596 finetune.py: quantization_config=GPTQConfig(bits=4, disable_exllama=True)
    // if training_args.use_lora and lora_args.q_lora else None, with q_lora False by default.
    const text = (test: string) =>
      [
        'import argparse',
        'from transformers import AutoModelForCausalLM, GPTQConfig, TrainingArguments, Trainer',
        'p = argparse.ArgumentParser()',
        'p.add_argument("--q_lora", action="store_true")',
        'a = p.parse_args()',
        'model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1",',
        `    quantization_config=GPTQConfig(bits=4, disable_exllama=True) if ${test} else None)`,
        'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
        '',
      ].join('\n');
    assert.equal(resolveText('train.py', text('a.q_lora')).setup?.quantization, undefined);
    assert.equal(resolveText('train.py', text('not a.q_lora')).setup?.quantization?.type, 'gptq');
  });
});
