// A launch line's option that its script declares and never reads (src/analyzers/collect/unread-options.ts).
import * as assert from 'node:assert/strict';
import { runFact, runFiles } from './helpers';

// mesolitica/malaya@ddbfe3ba session/qwen2.5/72b-lora-128.sh and train.py, shortened: DataTrainingArguments keeps
// run_clm's block_size field, and the data are packed rows read from a folder.
const LINE = 'torchrun --nproc_per_node 8 -m train --model_name_or_path Qwen/Qwen2.5-7B --block_size 24576 --bf16\n';
const script = (reads: string): string =>
  [
    'from dataclasses import dataclass, field',
    'from typing import Optional',
    'import torch',
    'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
    '@dataclass',
    'class ModelArguments:',
    '    model_name_or_path: Optional[str] = field(default=None)',
    '    torch_dtype: Optional[str] = field(default="bfloat16")',
    '@dataclass',
    'class DataTrainingArguments:',
    '    train_file: Optional[str] = field(default=None)',
    '    block_size: Optional[int] = field(',
    '        default=None,',
    '        metadata={"help": "Optional input sequence length after tokenization."},',
    '    )',
    'def main():',
    '    parser = HfArgumentParser((ModelArguments, DataTrainingArguments, TrainingArguments))',
    '    model_args, data_args, training_args = parser.parse_args_into_dataclasses()',
    '    dtype = getattr(torch, model_args.torch_dtype)',
    `    dataset = load(data_args.train_file${reads})`,
    '    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path, torch_dtype=dtype)',
    '    Trainer(model=model, args=training_args, train_dataset=dataset).train()',
    'if __name__ == "__main__":',
    '    main()',
    '',
  ].join('\n');

describe('a launch option the script declares and never reads', () => {
  it('sets no sequence length, and a note at the flag says so', () => {
    const r = runFiles({ '/w/run.sh': LINE, '/w/train.py': script('') }, '/w/run.sh');
    assert.notEqual(r.setup?.seq_len, 24576);
    assert.equal(runFact(r, 'seqLen'), undefined);
    const launcher = r.files.find((f) => f.file === '/w/run.sh');
    const note = launcher?.facts.problems.find((p) => p.code === 'no-effect');
    assert.match(note?.message ?? '', /--block_size: the script declares it \(DataTrainingArguments\.block_size/);
  });

  it('sets it where the script reads the field', () => {
    const r = runFiles({ '/w/run.sh': LINE, '/w/train.py': script(', block_size=data_args.block_size') }, '/w/run.sh');
    assert.equal(r.setup?.seq_len, 24576);
  });

  it('sets it where the script reads its arguments by computed names', () => {
    const dynamic = script('').replace('    dtype = getattr', '    kwargs = vars(data_args)\n    dtype = getattr');
    const r = runFiles({ '/w/run.sh': LINE, '/w/train.py': dynamic }, '/w/run.sh');
    assert.equal(r.setup?.seq_len, 24576);
  });
});
