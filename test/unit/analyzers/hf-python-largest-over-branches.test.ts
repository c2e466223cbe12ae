// A number set outside any branch and set again on a branch the options do not decide is the largest of its values
// (src/analyzers/hf-python/branches.ts largestOverBranches).
import * as assert from 'node:assert/strict';
import type { PipelineResult } from '../../../src/analyzers/pipeline';
import { runFiles } from '../helpers';

function runOf(text: string): PipelineResult {
  return runFiles({ '/p/train.py': text }, '/p/train.py');
}

/** 4AI/LS-LLaMA llama_seq_clf.py (abridged): module-level lengths, the amazon datasets' on an `elif`. */
const script = (amazon: string, dataset = 'sys.argv[1]'): string =>
  [
    'import sys',
    'from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments',
    `dataset = ${dataset}`,
    'batch_size = 8',
    'max_length = 64',
    "if dataset == 'agnews':",
    "    text_name = 'text'",
    "elif dataset in ['amazon_de', 'amazon_en']:",
    amazon,
    "    text_name = 'review_body'",
    'model = AutoModelForSequenceClassification.from_pretrained("NousResearch/Llama-2-7b-hf", num_labels=4)',
    'tokenizer = AutoTokenizer.from_pretrained("NousResearch/Llama-2-7b-hf")',
    'def preprocess(examples):',
    '    return tokenizer(examples[text_name], truncation=True, max_length=max_length)',
    'args = TrainingArguments(output_dir="o", per_device_train_batch_size=batch_size)',
    'Trainer(model=model, args=args).train()',
    '',
  ].join('\n');

const setting = (r: PipelineResult, key: string): unknown => (r.setup as Record<string, unknown> | undefined)?.[key];

describe('hf-python: a number set again on a branch the options do not decide', () => {
  it('is the largest of its values, each with its line (the 2,048 default took its place before)', () => {
    const r = runOf(script('    max_length = 200\n    batch_size = 4'));
    // max(64, 200) tokens and max(8, 4) rows: the peak of the most demanding branch, an upper bound.
    assert.equal(setting(r, 'seq_len'), 200);
    assert.equal(setting(r, 'micro_batch_size'), 8);
    const fact = r.files.flatMap((f) => f.facts.facts).find((f) => f.key === 'seqLen');
    assert.match(fact?.rawValue ?? '', /max_length = 64 at line 5, 200 at line 9 on a branch: the largest/);
    // Reported as an assumption, not as the file's setting.
    assert.match(fact?.assumed ?? '', /the largest over the branches the options do not decide is estimated$/);
    assert.equal(r.provenance?.seq_len?.kind, 'default');
  });

  it('a branch the options decide gives its own value; a value that is not a number stays unknown', () => {
    assert.equal(setting(runOf(script('    max_length = 200', "'agnews'")), 'seq_len'), 64);
    assert.equal(setting(runOf(script('    max_length = 200', "'amazon_en'")), 'seq_len'), 200);
    const computed = runOf(script('    max_length = int(sys.argv[2])'));
    assert.notEqual(setting(computed, 'seq_len'), 64);
    const fact = computed.files.flatMap((f) => f.facts.facts).find((f) => f.key === 'seqLen');
    assert.match(JSON.stringify(fact?.value), /set conditionally/);
  });
});
