// zero_grad by the PyTorch release a run pins (src/analyzers/zero-grad-release.ts): before 2.0 set_to_none defaulted
// to False (torch 1.13 torch/optim/optimizer.py and torch/nn/modules/module.py zero_grad), so the gradients stay
// allocated through the next forward. The transformers docs' "Efficient Training on a Single GPU" page measured
// BERT-large on a V100 under torch 1.10 (performance.mdx @4fa5705e): 14,949 MB at batch 4 without accumulation, which
// the gradients kept from the step before (335M x 4 B = 1,278 MiB) reach.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';

const SCRIPT = [
  'from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments',
  'model = AutoModelForSequenceClassification.from_pretrained("bert-large-uncased")',
  'args = TrainingArguments(output_dir="out", per_device_train_batch_size=4)',
  'Trainer(model=model, args=args, train_dataset=ds).train()',
  '',
].join('\n');

function run(pins: string, text = SCRIPT) {
  const files = new Map([['/w/requirements.txt', pins]]);
  const reader = {
    read: (p: string) => files.get(p),
    join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
  };
  return runPipeline([{ file: '/w/train.py', text }], reader, {});
}

describe('zero_grad by the pinned PyTorch release', () => {
  it('torch 1.10.1: gradients kept (set_to_none False), said with the pin; 2.0 and unpinned: freed', () => {
    const old = run('torch==1.10.1\ntransformers==4.15.0\n');
    assert.equal(old.setup?.zero_grad_set_to_none, false);
    const p = old.provenance.zero_grad_set_to_none;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /before PyTorch 2\.0 \(torch 1\.10\.1 pinned/);
    assert.equal(run('torch==2.0.1\n').setup?.zero_grad_set_to_none, true);
    assert.equal(run('').setup?.zero_grad_set_to_none, true);
  });

  it('not where a loop says zero_grad(set_to_none=True)', () => {
    const loop = [
      'import torch',
      'from transformers import AutoModelForCausalLM',
      'model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()',
      'optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)',
      'for batch in loader:',
      '    model(**batch).loss.backward()',
      '    optimizer.step()',
      '    optimizer.zero_grad(set_to_none=True)',
      '',
    ].join('\n');
    assert.equal(run('torch==1.13.1\n', loop).setup?.zero_grad_set_to_none, true);
    assert.equal(run('torch==1.13.1\n', loop.replace('set_to_none=True', '')).setup?.zero_grad_set_to_none, false);
  });

  it('not under DeepSpeed, whose engine keeps its own gradient buffers', () => {
    const ds = SCRIPT.replace('per_device_train_batch_size=4', 'per_device_train_batch_size=4, deepspeed="ds.json"');
    const files = new Map([
      ['/w/requirements.txt', 'torch==1.13.1\n'],
      ['/w/ds.json', '{"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}'],
    ]);
    const reader = {
      read: (p: string) => files.get(p),
      join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
    };
    const r = runPipeline([{ file: '/w/train.py', text: ds }], reader, {});
    assert.equal(r.setup?.zero_stage, 2);
    assert.equal(r.setup?.zero_grad_set_to_none, true);
  });
});
