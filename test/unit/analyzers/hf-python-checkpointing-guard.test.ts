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

  it('a test that asks whether the model has the switch is true of a transformers model, also through a name', () => {
    // Jack31098/llm_training_demo fsdp/train_fsdp.py: `model_gradient_ckpt_supported = hasattr(model,
    // "gradient_checkpointing_enable")`, then `if args.use_activation_checkpointing and model_gradient_ckpt_supported:`.
    assert.equal(
      checkpointing(script('GRADIENT_CHECKPOINTING and hasattr(model, "gradient_checkpointing_enable")')),
      'full',
    );
    const named = script('GRADIENT_CHECKPOINTING and supported').replace(
      'if GRADIENT',
      'supported = hasattr(model, "gradient_checkpointing_enable")\nif GRADIENT',
    );
    assert.equal(checkpointing(named), 'full');
    assert.equal(
      checkpointing(
        script('hasattr(model, "gradient_checkpointing_enable")', 'False').replace(
          'if hasattr',
          'if GRADIENT_CHECKPOINTING and hasattr',
        ),
      ),
      undefined,
    );
  });

  it('a switch that is off, or another unknown test, keeps the call off or unknown', () => {
    const guard = 'GRADIENT_CHECKPOINTING and not getattr(model, "is_gradient_checkpointing", False)';
    assert.equal(checkpointing(script(guard, 'False')), undefined);
    const other = checkpointing(script('torch.cuda.device_count() > 1'));
    assert.match(JSON.stringify(other), /runs only when/);
  });
});
