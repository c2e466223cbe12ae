// A load given both load_in_4bit=True and a quantization_config (src/analyzers/hf-python/calls.ts
// withoutBareQuantization): the config is read, the bare switch said at its key.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../src/analyzers/hf-python';

// emaroppo/phish-gen@055b009 finetuning/online/kto.py, shortened.
const script = (extra: string): string =>
  [
    'from transformers import AutoModelForCausalLM, BitsAndBytesConfig',
    'bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True)',
    `model = AutoModelForCausalLM.from_pretrained("mistralai/Mixtral-8x7B-v0.1"${extra}, quantization_config=bnb_config)`,
    '',
  ].join('\n');

const read = (text: string) => {
  const r = analyzeHfPython(text);
  const value = (key: string) => r.facts.filter((f) => f.key === key).map((f) => f.value);
  return { r, value };
};

describe('load_in_4bit beside a quantization_config', () => {
  it("reads the config's NF4 with double quantization, not the bare switch's fp4 defaults, and says so", () => {
    const { r, value } = read(script(', load_in_4bit=True'));
    assert.deepEqual(value('quantType'), ['nf4']);
    assert.deepEqual(value('doubleQuant'), [true]);
    const p = r.problems.find((x) => x.rawKey === 'load_in_4bit');
    assert.match(p?.message ?? '', /load_in_4bit=True beside quantization_config: recent transformers releases raise/);
  });

  it('reads the config alone the same way, without a warning', () => {
    const { r, value } = read(script(''));
    assert.deepEqual(value('quantType'), ['nf4']);
    assert.ok(!r.problems.some((x) => x.rawKey === 'load_in_4bit'));
  });
});
