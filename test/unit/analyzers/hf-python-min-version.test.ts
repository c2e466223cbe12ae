// `check_min_version("4.12.0.dev0")` dates a copied transformers example script to the release it was written for
// (src/analyzers/hf-python/min-version.ts).
import * as assert from 'node:assert/strict';
import { runFiles as runOf } from '../helpers';

/** run_clm.py as projects copy it (abridged): the version check, then GPT-2 loaded without a dtype. */
const RUN_CLM = (version: string, extra = ''): string =>
  [
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'from transformers.utils import check_min_version',
    `check_min_version("${version}")`,
    'model = AutoModelForCausalLM.from_pretrained("gpt2-xl")',
    `args = TrainingArguments(output_dir="o", per_device_train_batch_size=2${extra})`,
    'Trainer(model=model, args=args).train()',
    '',
  ].join('\n');

describe('hf-python: check_min_version dates the run', () => {
  it('"4.12.0.dev0" (MerHS/DNNBenches bench.py): transformers 4.12, so float32 weights and eager attention', () => {
    const r = runOf({ '/p/run_clm.py': RUN_CLM('4.12.0.dev0') }, '/p/run_clm.py');
    assert.equal(r.setup?.transformers_version, '4.12');
    assert.equal(r.setup?.weights_dtype, 'fp32');
    assert.equal(r.setup?.attention, 'eager');
    const p = r.provenance?.transformers_version;
    assert.equal(p?.kind, 'default');
    assert.match(
      p?.kind === 'default' ? (p.note ?? '') : '',
      /check_min_version\("4\.12\.0\.dev0"\).*transformers 4\.12/,
    );
  });

  it('over the upper bound evaluation_strategy gives (4.45), and not above it', () => {
    const old = runOf({ '/p/t.py': RUN_CLM('4.30.0.dev0', ', evaluation_strategy="steps"') }, '/p/t.py');
    assert.equal(old.setup?.transformers_version, '4.30');
    const later = runOf({ '/p/t.py': RUN_CLM('4.50.0.dev0', ', evaluation_strategy="steps"') }, '/p/t.py');
    assert.equal(later.setup?.transformers_version, '4.45');
  });

  it('a pin in the project wins', () => {
    const r = runOf(
      { '/p/run_clm.py': RUN_CLM('4.12.0.dev0'), '/p/requirements.txt': 'transformers==4.40.2\n' },
      '/p/run_clm.py',
    );
    assert.equal(r.setup?.transformers_version, '4.40.2');
    assert.equal(r.setup?.attention, 'sdpa');
  });
});
