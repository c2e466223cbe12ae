// A script or notebook that loads a model and only runs it (src/analyzers/trains.ts runsWithoutTraining): generate,
// eval or no_grad, and no call that trains (no trainer, no `train(` of any function, no `.fit(` or `.backward(`). It was
// estimated as a training run with the HF Trainer's defaults; Sriramdayal/Unsloth-LLM-finetuningv1's Qwen_LeetCoder.ipynb
// (a LoRA adapter over a 4-bit Qwen2.5-0.5B, then `model.eval()` and `model.generate(...)` under no_grad) is the shape.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

const INFERENCE = [
  'import torch',
  'from peft import PeftModel',
  'from transformers import AutoModelForCausalLM, AutoTokenizer',
  'base_model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", device_map="auto", torch_dtype=torch.float16)',
  'model = PeftModel.from_pretrained(base_model, "lora_model")',
  'model.eval()',
  'with torch.no_grad():',
  '    output = model.generate(**inputs, max_new_tokens=200)',
  '',
].join('\n');

describe('hf-python: a file that runs its model and trains nothing', () => {
  it('is said at the model and gives no training estimate, and no missing model is asked for', () => {
    const run = runFiles({ '/p/infer.py': INFERENCE }, '/p/infer.py');
    assert.equal(run.setup, undefined);
    const messages = run.files.flatMap((f) => f.facts.problems.map((p) => p.message));
    assert.ok(
      messages.some((m) => /runs the model \(generate, eval or no_grad\) and calls nothing that trains/.test(m)),
    );
    assert.ok(!run.problems.some((p) => p.code === 'unknown-model'));
  });

  it('a call that trains keeps the estimate: a trainer, a function named for training, a loop', () => {
    for (const call of ['trainer.train()', 'train(model, train_config)', 'run_training(model)', 'loss.backward()']) {
      const run = runFiles({ '/p/t.py': `${INFERENCE}${call}\n` }, '/p/t.py');
      assert.equal(run.setup?.model, 'Qwen/Qwen2.5-0.5B', call);
    }
    // `peft_model.train()` of a model is nn.Module's mode switch, no training (LiuHarry1/llm-finetuning
    // jira_finetuning.py: a PeftModel switched to training mode, saved, then asked to generate).
    const modeSwitch = runFiles({ '/p/t.py': `${INFERENCE}model.train()\nmodel.save_pretrained("out")\n` }, '/p/t.py');
    assert.equal(modeSwitch.setup, undefined);
    // `from_pretrained` is no training call, nor is a comment that names one.
    const commented = runFiles({ '/p/t.py': `${INFERENCE}# trainer.train()\n` }, '/p/t.py');
    assert.equal(commented.setup, undefined);
  });
});
