// A checkpointing call under an `if` whose unknown part only asks whether the model checkpoints already is on
// (src/analyzers/hf-python/checkpointing-guard.ts).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

/** DaoyuanLi2816/can-i-finetune-this canifinetune/bench/runner.py (abridged): the switch, then the guard. */
const script = (test: string, flag = 'True'): string =>
  [
    'from transformers import AutoModelForCausalLM',
    `GRADIENT_CHECKPOINTING = ${flag}`,
    'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct").to("cuda")',
    `if ${test}:`,
    '    model.gradient_checkpointing_enable()',
    '',
  ].join('\n');

const checkpointing = (text: string): unknown =>
  analyzeHfPython(text).facts.find((f) => f.key === 'gradientCheckpointing')?.value;

describe('hf-python: a checkpointing call guarded by whether the model checkpoints already', () => {
  it('is on where the rest of the test is true (read as off before: 7.5 GiB against 5.1 for Qwen2.5-0.5B LoRA)', () => {
    const guard = 'GRADIENT_CHECKPOINTING and not getattr(model, "is_gradient_checkpointing", False)';
    assert.equal(checkpointing(script(guard)), 'full');
    assert.equal(checkpointing(script('not model.is_gradient_checkpointing')), 'full');
  });

  it('a switch that is off, or another unknown test, keeps the call off or unknown', () => {
    const guard = 'GRADIENT_CHECKPOINTING and not getattr(model, "is_gradient_checkpointing", False)';
    assert.equal(checkpointing(script(guard, 'False')), undefined);
    const other = checkpointing(script('torch.cuda.device_count() > 1'));
    assert.match(JSON.stringify(other), /runs only when/);
  });
});
