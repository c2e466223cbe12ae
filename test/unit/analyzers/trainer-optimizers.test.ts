// The optimizer a script builds and hands the HF Trainer (`optimizers=(optimizer, scheduler)`), which replaces
// TrainingArguments' optim (transformers trainer.py create_optimizer builds one only `if self.optimizer is None`):
// src/analyzers/hf-python/optimizer-calls.ts trainerOptimizers. The script is the transformers docs' "Efficient Training
// on a Single GPU" 8-bit Adam example (performance.mdx @4fa5705e), shortened.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { resolveText } from '../helpers';

const script = (optimizers: string): string =>
  [
    'import bitsandbytes as bnb',
    'from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments',
    'model = AutoModelForSequenceClassification.from_pretrained("bert-large-uncased")',
    'training_args = TrainingArguments(output_dir="out", per_device_train_batch_size=4)',
    'adam_bnb_optim = bnb.optim.Adam8bit(model.parameters(), betas=(0.9, 0.999), eps=1e-8, lr=1e-5)',
    `trainer = Trainer(model=model, args=training_args, train_dataset=ds${optimizers})`,
    'trainer.train()',
    '',
  ].join('\n');

describe('the optimizer a script hands the Trainer', () => {
  it('bnb.optim.Adam8bit through optimizers=(adam_bnb_optim, None): 8-bit Adam, at its construction', () => {
    const text = script(', optimizers=(adam_bnb_optim, None)');
    const f = analyzeHfPython(text).facts.find((x) => x.key === 'optimizer');
    assert.equal(f?.value, 'adamw_8bit');
    assert.equal(text.slice(f!.keySpan.start, f!.keySpan.end), 'bnb.optim.Adam8bit');
    assert.equal(resolveText('train.py', text).setup?.optimizer, 'adamw_8bit');
  });

  it('a constructor written in the tuple reads the same; without optimizers= the Trainer builds its own', () => {
    const inline = script(', optimizers=(bnb.optim.PagedAdamW8bit(model.parameters(), lr=1e-5), None)');
    assert.equal(analyzeHfPython(inline).facts.find((x) => x.key === 'optimizer')?.value, 'paged_adamw_8bit');
    assert.equal(
      analyzeHfPython(script('')).facts.some((x) => x.key === 'optimizer'),
      false,
    );
  });
});
