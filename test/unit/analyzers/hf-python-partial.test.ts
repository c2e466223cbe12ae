// A function called only through functools.partial takes the keywords the partial binds
// (src/analyzers/hf-python/script-defaults.ts partialArgument).
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

/** RethinkFun/sft train_sft/sft_NEFT.py (abridged): a plain loop whose collator truncates at the partial's max_length. */
const script = (bind: string): string =>
  [
    'import functools',
    'import torch',
    'from torch.utils.data import DataLoader',
    'from transformers import AutoModelForCausalLM, AutoTokenizer',
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", torch_dtype=torch.bfloat16).cuda()',
    'tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")',
    'def sft_collate(batch, tokenizer, end_str, max_length):',
    '    inputs = tokenizer(batch, max_length=max_length, padding=True, truncation=True)',
    '    return inputs',
    `collate_fn = ${bind}`,
    'loader = DataLoader([], batch_size=2, collate_fn=collate_fn)',
    'optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)',
    'for batch in loader:',
    '    loss = model(**batch).loss',
    '    loss.backward()',
    '    optimizer.step()',
    '',
  ].join('\n');

const seqLen = (bind: string): unknown => runFiles({ '/p/sft.py': script(bind) }, '/p/sft.py').setup?.seq_len;

describe('hf-python: a function called through functools.partial', () => {
  it("takes the keyword the partial binds: the collator's max_length (the 2,048 default took its place before)", () => {
    // sft_NEFT.py binds max_length=500: 52.2 GiB read at 2,048 tokens, 16.9 GiB at 500.
    assert.equal(seqLen('functools.partial(sft_collate, tokenizer=tokenizer, end_str="x", max_length=500)'), 500);
    assert.equal(seqLen('partial(sft_collate, tokenizer=tokenizer, end_str="x", max_length=50)'), 50);
  });

  it('a partial that binds no length leaves it to the call: not known statically', () => {
    assert.equal(seqLen('functools.partial(sft_collate, tokenizer=tokenizer, end_str="x")'), 2048);
  });
});
