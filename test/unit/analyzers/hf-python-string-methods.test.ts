// String methods of a script's values read statically: `s.replace(old, new)` and `"google/{}".format(s)`, computed
// with the options as the run has them (a launch line's --x replaces x, not the result).
import * as assert from 'node:assert/strict';
import { runFiles, runFact } from '../helpers';

// VirtuosoResearch/Scalable-finetuning custom_train_cot.py (shortened): the Hub id is made from --model_key.
const TRAIN = [
  'import argparse',
  'from transformers import AutoModelForSeq2SeqLM',
  'parser = argparse.ArgumentParser()',
  'parser.add_argument("--model_key", type=str, default="flan_t5_base")',
  'args = parser.parse_args()',
  'hf_key = "google/{}".format(args.model_key.replace("_", "-"))',
  'model = AutoModelForSeq2SeqLM.from_pretrained(hf_key)',
  '',
].join('\n');

describe('Python: replace and format of a string known statically', () => {
  it("with the script's default: google/ and flan_t5_base with its underscores replaced", () => {
    const r = runFiles({ '/r/train.py': TRAIN }, '/r/train.py');
    assert.equal(runFact(r, 'model')?.fact.value, 'google/flan-t5-base');
  });

  it("with the launch line's --model_key, the result is computed from it, not replaced by it", () => {
    const files = { '/r/run.sh': 'python train.py --model_key flan_t5_large\n', '/r/train.py': TRAIN };
    const r = runFiles(files, '/r/run.sh');
    assert.equal(runFact(r, 'model')?.fact.value, 'google/flan-t5-large');
  });

  it('a format with a field other than {} or {0} is left to run time', () => {
    const text = TRAIN.replace('"google/{}".format(', '"google/{name}".format(');
    const r = runFiles({ '/r/train.py': text }, '/r/train.py');
    const fact = runFact(r, 'model')?.fact;
    assert.equal(typeof fact?.value, 'object');
  });
});
