// The length a project module's data function tokenizes to, where the script maps it over its dataset
// (hf-python/index.ts moduleDataBound, helper-modules.ts mappedFunctions, resolve/winning.ts): the run's sequence
// length where no file sets one, below any that does.
// genji970/mistralai-7B_training_using_DeepSpeed: train.py `from tokenizer import tokenizer, tokenize` and
// `processed_dataset.map(tokenize, batched=True)`; tokenizer.py's `def tokenize(examples, MAX_LEN=520)` calls the
// tokenizer with `truncation=True, max_length=520, padding='max_length'`. It had been estimated at the 2,048-token
// default (166.1 GiB on one GPU where the run takes 148.5).
import * as assert from 'node:assert/strict';
import { runFiles } from './helpers';

const MODULE = [
  'from transformers import AutoTokenizer',
  'tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")',
  'def tokenize(examples, MAX_LEN=520):',
  '    return tokenizer(examples["text"], truncation=True, max_length=520, padding="max_length")',
  '',
].join('\n');

const script = (args: string, mapped = 'tokenize'): string =>
  [
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'from trl import SFTConfig, SFTTrainer',
    'from tokenizer import tokenizer, tokenize',
    'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
    `tokenized = raw.map(${mapped}, batched=True)`,
    `Trainer(model=model, args=TrainingArguments(output_dir="o"${args}), train_dataset=tokenized).train()`,
    '',
  ].join('\n');

describe("a project module's data function the script maps over its dataset", () => {
  it('gives the sequence length it pads and cuts to, located in the module', () => {
    const r = runFiles({ '/w/train.py': script(''), '/w/tokenizer.py': MODULE }, '/w/train.py');
    assert.equal(r.setup?.seq_len, 520);
    const p = r.provenance.seq_len;
    assert.ok(p?.kind === 'file' && p.file === '/w/tokenizer.py' && p.line === 4, JSON.stringify(p));
  });

  it('as `.map(function=tokenize)` too; not where the script maps a function of its own', () => {
    const keyword = runFiles(
      { '/w/train.py': script('', 'function=tokenize'), '/w/tokenizer.py': MODULE },
      '/w/train.py',
    );
    assert.equal(keyword.setup?.seq_len, 520);
    const own = script('', 'lambda x: x').replace('from tokenizer import tokenizer, tokenize', 'import tokenizer');
    const notMapped = runFiles({ '/w/train.py': own, '/w/tokenizer.py': MODULE }, '/w/train.py');
    assert.notEqual(notMapped.setup?.seq_len, 520);
  });

  it("a parameter of the mapped function that datasets does not pass is its default (the script's own function too)", () => {
    // The same tokenize pasted into the script, `max_length=MAX_LEN` with `MAX_LEN=520` its default: `.map` passes
    // the batch alone. It had been "MAX_LEN is a parameter of tokenize()", not known; fn_kwargs would pass it.
    const own = [
      'from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments',
      'tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'def tokenize(examples, MAX_LEN=520):',
      '    return tokenizer(examples["text"], truncation=True, max_length=MAX_LEN, padding="max_length")',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'tokenized = raw.map(tokenize, batched=True)',
      'Trainer(model=model, args=TrainingArguments(output_dir="o"), train_dataset=tokenized).train()',
      '',
    ].join('\n');
    assert.equal(runFiles({ '/w/train.py': own }, '/w/train.py').setup?.seq_len, 520);
    const passed = own.replace('batched=True)', 'batched=True, fn_kwargs={"MAX_LEN": 1024})');
    assert.notEqual(runFiles({ '/w/train.py': passed }, '/w/train.py').setup?.seq_len, 520);
  });

  it("ranks below a length any file sets itself: TRL's max_length of the script's config", () => {
    const trl = script('')
      .replace('TrainingArguments(output_dir="o")', 'SFTConfig(output_dir="o", max_length=256)')
      .replace('Trainer(model=model', 'SFTTrainer(model=model');
    const r = runFiles({ '/w/train.py': trl, '/w/tokenizer.py': MODULE }, '/w/train.py');
    assert.equal(r.setup?.seq_len, 256);
  });
});
