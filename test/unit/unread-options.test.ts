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

describe("the script's own default of an option nothing reads", () => {
  // hquzhuguofeng/LLM-RoadMap's qwen_sft_DT_debug/train_qwen2_sft2.py: its TrainingArguments subclass declares
  // model_max_length (default 512) and the script never truncates with it; its launch line's --model_max_length 2048
  // is dropped as unread, and the default is too: neither sets the sequence length.
  const withDefault = script('').replace(
    '    block_size: Optional[int] = field(\n        default=None,',
    '    block_size: Optional[int] = field(\n        default=512,',
  );

  it('sets no sequence length, said at the field, and sets it where the script reads the field', () => {
    const alone = runFiles({ '/w/train.py': withDefault }, '/w/train.py');
    assert.equal(runFact(alone, 'seqLen'), undefined);
    const note = alone.files[0].facts.problems.find((p) => p.code === 'no-effect');
    assert.equal(note?.message, 'block_size: nothing of the run reads this field: it sets no sequence length');
    const launched = runFiles({ '/w/run.sh': LINE, '/w/train.py': withDefault }, '/w/run.sh');
    assert.notEqual(launched.setup?.seq_len, 512);
    assert.notEqual(launched.setup?.seq_len, 24576);
    const read = runFiles(
      { '/w/train.py': withDefault.replace('train_file)', 'train_file, block_size=data_args.block_size)') },
      '/w/train.py',
    );
    assert.equal(runFact(read, 'seqLen')?.fact.value, 512);
  });
});

describe('a QLoRA switch the script declares and reads itself', () => {
  // hao-ai-lab/Consistency_LLM train_cllm_global.py, shortened: `--qlora` runs prepare_model_for_kbit_training and LoRA on
  // a bf16 model; no BitsAndBytesConfig anywhere, so nothing loads in 4 bits.
  const script = (name: string) =>
    [
      'from dataclasses import dataclass, field',
      'import torch, transformers',
      'from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training',
      '@dataclass',
      'class ModelArguments:',
      `    ${name}: bool = field(default=False)`,
      'parser = transformers.HfArgumentParser((ModelArguments, transformers.TrainingArguments))',
      'model_args, training_args = parser.parse_args_into_dataclasses()',
      'model = transformers.AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)',
      `if model_args.${name}:`,
      '    model = prepare_model_for_kbit_training(model)',
      '    model = get_peft_model(model, LoraConfig(r=32, lora_alpha=16))',
      'transformers.Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
  const launch = (name: string) =>
    runFiles(
      { '/w/run.sh': `python train.py --${name} True --output_dir o\n`, '/w/train.py': script(name) },
      '/w/run.sh',
    );

  it('quantizes nothing: its code decides, not the name, said at the flag', () => {
    const r = launch('qlora');
    assert.equal(r.setup?.quantization, undefined);
    assert.equal(r.setup?.method, 'lora');
    assert.ok(r.problems.some((p) => p.code === 'read-by-name' && /its code decides the quantization/.test(p.message)));
    // As the same script with a switch of another name reads.
    assert.equal(launch('use_lora').setup?.method, 'lora');
  });
});
