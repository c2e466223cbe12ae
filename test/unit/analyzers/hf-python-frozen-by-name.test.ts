// A loop that freezes the model's parameters by name is said at the assignment: which weights train is not read
// (src/analyzers/hf-python/frozen-by-name.ts).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

/** nkkbr/241121_qwerty train.py (abridged): the first stage trains only the projector, by the parameters' names. */
function script(loop: readonly string[], extra: readonly string[] = []): string {
  return [
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct")',
    ...extra,
    ...loop,
    'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
    '',
  ].join('\n');
}
const PROJECTOR_ONLY = [
  'for name, param in model.named_parameters():',
  "    if 'mm_projector' in name:",
  '        param.requires_grad = True',
  '    else:',
  '        param.requires_grad = False',
];
const warnings = (text: string): string[] =>
  analyzeHfPython(text)
    .problems.filter((p) => p.code === 'not-modeled' && p.rawKey === 'requires_grad')
    .map((p) => text.slice(p.span.start, p.span.end));

describe('hf-python: weights frozen by name in a loop', () => {
  it('a projector-only stage is a warning at `param.requires_grad`, every weight estimated as trained', () => {
    const text = script(PROJECTOR_ONLY);
    assert.deepEqual(warnings(text), ['param.requires_grad']);
    const w = analyzeHfPython(text).problems.find((p) => p.rawKey === 'requires_grad');
    assert.equal(w?.severity, 'warning');
    assert.match(w?.message ?? '', /which weights train is not read, every weight is estimated as trained/);
  });

  it('with LoRA applied (PEFT freezes the base weights itself), nothing is said', () => {
    const lora = ['from peft import LoraConfig, get_peft_model', 'model = get_peft_model(model, LoraConfig(r=8))'];
    assert.deepEqual(warnings(script(PROJECTOR_ONLY, lora)), []);
  });

  it('a LoRA rank no LoraConfig reads applies no adapter: the loop is said', () => {
    // NJUDeepEngine/meteora meteora_train.py: a `lora_r: int = 64` field of its arguments, its adapters loaded by its
    // own loader, then `lora_` and `moe_gate` weights turned on by name; it was read silently as an 8.03B full
    // fine-tune.
    const fields = [
      'from dataclasses import dataclass',
      '@dataclass',
      'class ScriptArguments:',
      '    lora_r: int = 64',
    ];
    assert.deepEqual(warnings(script(PROJECTOR_ONLY, fields)), ['param.requires_grad']);
  });

  it('a loop over a part of the model (the vision tower) or one that unfreezes is not said', () => {
    assert.deepEqual(warnings(script(['for p in model.visual.parameters():', '    p.requires_grad = False'])), []);
    assert.deepEqual(warnings(script(['for p in model.parameters():', '    p.requires_grad = True'])), []);
  });

  it('on a branch known not to run (`if False:`), nothing is said', () => {
    const off = ['if False:', ...PROJECTOR_ONLY.map((l) => `    ${l}`)];
    assert.deepEqual(warnings(script(off)), []);
  });
});
