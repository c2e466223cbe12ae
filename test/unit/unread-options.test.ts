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

describe("a training setting's field of the script's own class that extends nothing, which nothing reads", () => {
  // sagerpascal/deepspeed-llm finetune_conversation/finetune_llama.py: `class ScriptArguments:` declares
  // `gradient_checkpointing: Optional[bool] = field(default=True)`, and the script's `TrainingArguments(...)` takes no
  // gradient_checkpointing; TRL's SFTTrainer checkpoints only where its arguments say. Read by the field's name, the
  // Llama-2-7B LoRA run had been estimated checkpointed (26.0 GiB where it takes 29.5).
  const train = (handed: string, base = ''): string =>
    [
      'from dataclasses import dataclass, field',
      'from typing import Optional',
      'from transformers import AutoModelForCausalLM, HfArgumentParser, TrainingArguments',
      'from trl import SFTTrainer',
      '@dataclass',
      `class ScriptArguments${base}:`,
      '    model_name: Optional[str] = field(default="Qwen/Qwen2.5-0.5B")',
      '    gradient_checkpointing: Optional[bool] = field(default=True)',
      'script_args = HfArgumentParser(ScriptArguments).parse_args_into_dataclasses()[0]',
      `training_arguments = TrainingArguments(output_dir="o"${handed})`,
      'model = AutoModelForCausalLM.from_pretrained(script_args.model_name)',
      'SFTTrainer(model=model, train_dataset=ds, args=training_arguments).train()',
      '',
    ].join('\n');

  it('sets no checkpointing, said at the field', () => {
    const r = runFiles({ '/w/train.py': train('') }, '/w/train.py');
    assert.equal(r.setup?.gradient_checkpointing, 'none');
    const note = r.files[0].facts.problems.find((p) => p.code === 'no-effect');
    assert.match(note?.message ?? '', /^gradient_checkpointing: nothing of the run reads this field/);
  });

  it('sets it where the script hands it on, and where the class extends the training arguments', () => {
    const handed = runFiles(
      { '/w/train.py': train(', gradient_checkpointing=script_args.gradient_checkpointing') },
      '/w/train.py',
    );
    assert.equal(handed.setup?.gradient_checkpointing, 'full');
    const subclass = runFiles({ '/w/train.py': train('', '(TrainingArguments)') }, '/w/train.py');
    assert.equal(subclass.setup?.gradient_checkpointing, 'full');
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
