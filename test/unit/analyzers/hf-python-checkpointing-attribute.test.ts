// `model.transformer.gradient_checkpointing = True`, the model's own switch set by hand (MOSS's finetune scripts, and
// transformers' models before 4.35): every layer checkpointed, reentrant (src/analyzers/hf-python/checkpointing-attribute.ts).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

/** A MOSS-style fine-tune (abridged): remote code loaded, the switch set on the transformer, the HF Trainer. */
function script(lines: readonly string[]): string {
  return [
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'model = AutoModelForCausalLM.from_pretrained("fnlp/moss-moon-003-sft", trust_remote_code=True)',
    ...lines,
    'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)',
    'Trainer(model=model, args=args).train()',
    '',
  ].join('\n');
}
const fact = (text: string, key: string) => analyzeHfPython(text).facts.filter((f) => f.key === key);

describe('hf-python: the model switch `gradient_checkpointing = True`', () => {
  it('on the transformer: every layer checkpointed, reentrant (torch.utils.checkpoint default)', () => {
    const text = script(['model.transformer.gradient_checkpointing = True']);
    const gc = fact(text, 'gradientCheckpointing');
    assert.deepEqual(
      gc.map((f) => f.value),
      ['full'],
    );
    assert.equal(text.slice(gc[0].keySpan.start, gc[0].keySpan.end), 'model.transformer.gradient_checkpointing');
    assert.deepEqual(
      fact(text, 'checkpointReentrant').map((f) => f.value),
      [true],
    );
  });

  it('on the model itself, or on model.model, too; False sets nothing', () => {
    assert.deepEqual(
      fact(script(['model.gradient_checkpointing = True']), 'gradientCheckpointing').map((f) => f.value),
      ['full'],
    );
    assert.deepEqual(
      fact(script(['model.model.gradient_checkpointing = True']), 'gradientCheckpointing').map((f) => f.value),
      ['full'],
    );
    assert.deepEqual(fact(script(['model.transformer.gradient_checkpointing = False']), 'gradientCheckpointing'), []);
  });

  it("the training arguments' field and a class's own attribute are not the switch", () => {
    assert.deepEqual(fact(script(['args.gradient_checkpointing = True']), 'gradientCheckpointing'), []);
    const own = ['class Net:', '    def __init__(self):', '        self.gradient_checkpointing = True'];
    assert.deepEqual(fact(script(own), 'gradientCheckpointing'), []);
  });

  it('on a branch known not to run, nothing; on an unknown one, unknown with its condition', () => {
    const off = ['if False:', '    model.transformer.gradient_checkpointing = True'];
    assert.deepEqual(fact(script(off), 'gradientCheckpointing'), []);
    const maybe = ['import os', 'if os.environ.get("GC"):', '    model.transformer.gradient_checkpointing = True'];
    const gc = fact(script(maybe), 'gradientCheckpointing');
    assert.equal(gc.length, 1);
    assert.match(JSON.stringify(gc[0].value), /runs only when/);
  });
});
