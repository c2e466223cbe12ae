// A model given by --model or vramLens.model that cannot be resolved (src/analyzers/resolve/model.ts): the problem names
// where the model came from and stands at the top of the file, not at the file's own model key it replaced.
import * as assert from 'node:assert/strict';
import { resolveText } from '../helpers';

const SCRIPT = 'from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained("gpt2")\n';

describe('a model override that cannot be resolved', () => {
  it('is said as the flag or the setting, at the top of the file', () => {
    const flag = resolveText('/w/train.py', SCRIPT, { model: 'org/not-in-catalog' });
    const p = flag.problems.find((x) => x.code === 'unknown-model');
    assert.match(p?.message ?? '', /^--model: unknown model 'org\/not-in-catalog'/);
    assert.deepEqual([p?.line, p?.column, p?.key], [1, 1, undefined]);
    const setting = resolveText('/w/train.py', SCRIPT, { model: 'org/not-in-catalog', origin: 'setting' });
    assert.match(setting.problems.find((x) => x.code === 'unknown-model')?.message ?? '', /^vramLens\.model: /);
  });

  it("the file's own unknown model stays at its key", () => {
    const own = resolveText('/w/train.py', SCRIPT.replace('gpt2', 'org/not-in-catalog'));
    const p = own.problems.find((x) => x.code === 'unknown-model');
    assert.equal(p?.line, 2);
    assert.match(p?.message ?? '', /^unknown model 'org\/not-in-catalog'/);
  });
});
