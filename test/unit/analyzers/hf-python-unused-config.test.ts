// A LoraConfig the script makes and never hands on applies no adapter (src/analyzers/hf-python/unused-config.ts).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runProject } from '../helpers';

/** datawhalechina/self-llm MiniCPM/train.py, cut to what decides the method: its get_peft_model is commented out. */
const SCRIPT = [
  'import torch',
  'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
  'from peft import LoraConfig, TaskType, get_peft_model',
  'model = AutoModelForCausalLM.from_pretrained("openbmb/MiniCPM-2B-sft-bf16", torch_dtype=torch.bfloat16)',
  'config = LoraConfig(task_type=TaskType.CAUSAL_LM, target_modules=["q_proj", "v_proj"], r=8, lora_alpha=32)',
  '# model = get_peft_model(model, config)',
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)',
  'Trainer(model=model, args=args).train()',
  '',
].join('\n');

describe('hf-python: a PEFT config nothing reads', () => {
  it('is no LoRA: the method stays a full fine-tune, said at the call', () => {
    const r = analyzeHfPython(SCRIPT);
    assert.equal(
      r.facts.find((f) => f.key === 'method'),
      undefined,
    );
    assert.equal(
      r.facts.find((f) => f.key === 'loraR'),
      undefined,
    );
    const note = r.problems.find((p) => p.code === 'no-effect');
    assert.match(note?.message ?? '', /LoraConfig\(\.\.\.\) is made as config, which nothing in the script reads/);
    assert.equal(SCRIPT.slice(note!.span.start, note!.span.end), 'LoraConfig');
    assert.equal(runProject({ 'train.py': SCRIPT }, 'train.py').setup?.method, 'full');
  });

  it('handed on (the call not commented out), it is LoRA as before', () => {
    const used = SCRIPT.replace('# model = get_peft_model', 'model = get_peft_model');
    const r = analyzeHfPython(used);
    assert.equal(r.facts.find((f) => f.key === 'method')?.value, 'lora');
    assert.equal(r.facts.find((f) => f.key === 'loraR')?.value, 8);
  });
});
