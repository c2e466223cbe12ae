// A keyword argument a call names twice (hf-python/repeated-keywords.ts): Python's compiler refuses the file
// ("SyntaxError: keyword argument repeated"), as in tapir-mirror/model_finetune's main.py, whose TrainingArguments(...)
// repeats lr_scheduler_type.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

describe('hf-python: a keyword argument named twice', () => {
  it('is a warning at the second keyword; different keywords are not', () => {
    const text =
      'from transformers import TrainingArguments\n' +
      'args = TrainingArguments(output_dir="o", lr_scheduler_type="cosine", bf16=True, lr_scheduler_type="linear")\n';
    const p = analyzeHfPython(text).problems.filter((x) => x.code === 'duplicate-key');
    assert.equal(p.length, 1);
    assert.equal(text.slice(p[0].span.start, p[0].span.end), 'lr_scheduler_type');
    assert.ok(p[0].span.start > text.indexOf('bf16'));
    assert.match(p[0].message, /Python refuses to compile the file/);
    const fine = 'from transformers import TrainingArguments\nTrainingArguments(output_dir="o", bf16=True)\n';
    assert.equal(analyzeHfPython(fine).problems.filter((x) => x.code === 'duplicate-key').length, 0);
  });
});
