// Where a Trainer script says how long its samples are when its training arguments do not
// (src/analyzers/hf-python/sequence-length.ts), and a checkpointing call under `if training_args.do_train:`, on the
// pattern of THUDM/ChatGLM-6B's and ChatGLM2-6B's ptuning/main.py: the training samples are padded to
// `max_seq_length = data_args.max_source_length + data_args.max_target_length` (the options of its arguments.py),
// the evaluation data is tokenized to max_source_length in a function of its own, and main() sets max_seq_length again,
// one longer, for generation at evaluation.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { resolveText } from '../helpers';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline } from '../../../src/analyzers/pipeline';

const MAIN = [
  'from transformers import AutoModel, HfArgumentParser, Seq2SeqTrainingArguments, Seq2SeqTrainer',
  'from arguments import ModelArguments, DataTrainingArguments',
  'def main():',
  '    parser = HfArgumentParser((ModelArguments, DataTrainingArguments, Seq2SeqTrainingArguments))',
  '    model_args, data_args, training_args = parser.parse_args_into_dataclasses()',
  '    model = AutoModel.from_pretrained("THUDM/chatglm-6b", trust_remote_code=True)',
  '    def preprocess_function_eval(examples):',
  '        return tokenizer(examples["q"], max_length=data_args.max_source_length, truncation=True, padding=True)',
  '    def preprocess_function_train(examples):',
  '        max_seq_length = data_args.max_source_length + data_args.max_target_length',
  '        pad_len = max_seq_length - len(examples["input_ids"])',
  '        return examples["input_ids"] + [tokenizer.pad_token_id] * pad_len',
  '    trainer = Seq2SeqTrainer(model=model, args=training_args)',
  '    if training_args.do_train:',
  '        model.gradient_checkpointing_enable()',
  '        trainer.train()',
  '    max_seq_length = data_args.max_source_length + data_args.max_target_length + 1',
  '    if training_args.do_eval:',
  '        trainer.evaluate(max_length=max_seq_length)',
  'main()',
  '',
].join('\n');

const LAUNCH =
  'python3 main.py --do_train --model_name_or_path THUDM/chatglm-6b --max_source_length 64 --max_target_length 64 ' +
  '--per_device_train_batch_size 1\n';

function pipeline(launch: string | undefined, script = MAIN) {
  const reader = {
    read: (f: string): string | undefined => (f === '/w/main.py' ? script : undefined),
    join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
  };
  const files = launch === undefined ? [] : [{ file: '/w/train.sh', text: launch }];
  return runPipeline([...files, { file: '/w/main.py', text: script }], reader, {});
}

describe('analyzers: the sequence length a Trainer script pads to', () => {
  it("alone: the padded length is computed from the options, unknown at the training function's assignment", () => {
    const seq = analyzeHfPython(MAIN).facts.filter((f) => f.key === 'seqLen');
    assert.equal(seq.length, 1);
    assert.deepEqual(seq[0].value, {
      unknown: "data_args.max_source_length + data_args.max_target_length is computed from the script's options",
    });
    assert.equal(seq[0].rawKey, 'max_seq_length');
    assert.equal(MAIN.slice(0, seq[0].keySpan.start).split('\n').length, 10); // in preprocess_function_train
  });

  it("launched: 64 + 64 = 128 tokens, and checkpointing on (--do_train runs the if's branch)", () => {
    const run = pipeline(LAUNCH);
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.seq_len, 128);
    assert.equal(run.setup.gradient_checkpointing, 'full');
    assert.equal(run.setup.micro_batch_size, 1);
  });

  it('without --do_train the branch does not run: no checkpointing', () => {
    const run = pipeline(LAUNCH.replace('--do_train ', '--do_eval '));
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.gradient_checkpointing, 'none');
  });

  it('with no function named for training, the longest bound counts: main() one longer (129)', () => {
    const run = pipeline(LAUNCH, MAIN.replace('def preprocess_function_train', 'def preprocess_function'));
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.seq_len, 129);
  });

  it("arguments with max_source_length and max_target_length: their sum; a generation config's max_length is not", () => {
    // YerongLi/ChatGLM-Efficient-Tuning src/utils/config.py (abridged): DataTrainingArguments 512 + 512, and
    // GeneratingArguments' max_length 2048, a bound on generated text.
    const text = [
      'from dataclasses import dataclass, field',
      'from typing import Optional',
      '@dataclass',
      'class DataTrainingArguments:',
      '    max_source_length: Optional[int] = field(default=512)',
      '    max_target_length: Optional[int] = field(default=512)',
      '@dataclass',
      'class GeneratingArguments:',
      '    top_p: Optional[float] = field(default=0.7)',
      '    top_k: Optional[int] = field(default=50)',
      '    max_length: Optional[int] = field(default=2048)',
      '',
    ].join('\n');
    const seq = analyzeHfPython(text).facts.filter((f) => f.key === 'seqLen');
    assert.deepEqual(
      seq.map((f) => [f.rawKey, f.value]),
      [['max_source_length + max_target_length', 1024]],
    );
  });

  it("for an encoder-decoder (T5) the two lengths are its two stacks' lengths, not their sum", () => {
    // jwliao1209/Explainable-NLP run_summarization.py: DataTrainingArguments 1024 + 128 over t5-small.
    const text = [
      'from dataclasses import dataclass, field',
      'from transformers import AutoModelForSeq2SeqLM, HfArgumentParser, Seq2SeqTrainer, Seq2SeqTrainingArguments',
      '@dataclass',
      'class DataTrainingArguments:',
      '    max_source_length: int = field(default=1024)',
      '    max_target_length: int = field(default=128)',
      'data_args, training_args = HfArgumentParser((DataTrainingArguments, Seq2SeqTrainingArguments)).parse_args_into_dataclasses()',
      'model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")',
      'Seq2SeqTrainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const t5 = resolveText('run.py', text);
    assert.equal(t5.setup?.seq_len, 1024);
    assert.equal(t5.setup?.target_len, 128);
    const p = t5.provenance.seq_len;
    assert.match(
      p?.kind === 'default' ? (p.note ?? '') : '',
      /max_source_length in its encoder .*: the encoder's 1024/,
    );
    const q = t5.provenance.target_len;
    assert.match(q?.kind === 'default' ? (q.note ?? '') : '', /the decoder's 128 tokens/);
    // A decoder-only model trains on the two as one sequence.
    const gpt = resolveText(
      'run.py',
      text.replace('AutoModelForSeq2SeqLM', 'AutoModelForCausalLM').replace('t5-small', 'gpt2'),
    );
    assert.equal(gpt.setup?.seq_len, 1152);
  });

  it("an encoder-decoder's labels tokenized to their own max_length (text_target=) are its decoder's length", () => {
    // transformers' examples/pytorch/summarization/run_summarization.py shape, with argparse options:
    // `tokenizer(inputs, max_length=args.max_source_length, ...)` and `tokenizer(text_target=targets,
    // max_length=args.max_target_length, ...)`. The logits are the decoder's: 8 x 64 tokens, not 8 x 512.
    const text = [
      'import argparse',
      'from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, Seq2SeqTrainer, Seq2SeqTrainingArguments',
      'p = argparse.ArgumentParser()',
      'p.add_argument("--max_source_length", type=int, default=512)',
      'p.add_argument("--max_target_length", type=int, default=64)',
      'args = p.parse_args()',
      'tok = AutoTokenizer.from_pretrained("google/flan-t5-base")',
      'def prep(ex):',
      '    inputs = tok(ex["document"], max_length=args.max_source_length, truncation=True)',
      '    labels = tok(text_target=ex["summary"], max_length=args.max_target_length, truncation=True)',
      '    inputs["labels"] = labels["input_ids"]',
      '    return inputs',
      'model = AutoModelForSeq2SeqLM.from_pretrained("google/flan-t5-base")',
      'Seq2SeqTrainer(model=model, args=Seq2SeqTrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const r = resolveText('run.py', text);
    assert.equal(r.setup?.seq_len, 512);
    assert.equal(r.setup?.target_len, 64);
    // Labels longer than the source do not lengthen the encoder's rows.
    const long = resolveText('run.py', text.replace('default=64', 'default=600'));
    assert.equal(long.setup?.seq_len, 512);
    assert.equal(long.setup?.target_len, 600);
  });

  it("an encoder-decoder's max_source_length and max_target_length fields take the launch line's values", () => {
    // transformers' old examples/seq2seq/finetune_trainer.py (exelents/try_t5_qa run-qa-3b.sh: `deepspeed
    // finetune_trainer.py --model_name_or_path google/t5-v1_1-xl ... --max_source_length 100 --max_target_length 70`):
    // its DataTrainingArguments default to 1024 and 128, which the launch line overrides.
    const script = [
      'from dataclasses import dataclass, field',
      'from typing import Optional',
      'from transformers import AutoModelForSeq2SeqLM, HfArgumentParser, Seq2SeqTrainer, Seq2SeqTrainingArguments',
      '@dataclass',
      'class DataTrainingArguments:',
      '    max_source_length: Optional[int] = field(default=1024)',
      '    max_target_length: Optional[int] = field(default=128)',
      'parser = HfArgumentParser((DataTrainingArguments, Seq2SeqTrainingArguments))',
      'data_args, training_args = parser.parse_args_into_dataclasses()',
      'model = AutoModelForSeq2SeqLM.from_pretrained("google/t5-v1_1-xl")',
      'Seq2SeqTrainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const launch = 'python main.py --output_dir o --max_source_length 100 --max_target_length 70\n';
    const r = pipeline(launch, script);
    assert.deepEqual([r.setup?.seq_len, r.setup?.target_len], [100, 70]);
    const alone = pipeline(undefined, script);
    assert.deepEqual([alone.setup?.seq_len, alone.setup?.target_len], [1024, 128]);
  });

  it("an encoder-decoder's labels tokenized under as_target_tokenizer() or assigned to labels are its decoder's length", () => {
    // transformers 4.x's summarization scripts before text_target= (`with tokenizer.as_target_tokenizer(): labels =
    // tokenizer(targets, max_length=max_target_length, ...)`), and scripts that tokenize the labels in a call of their
    // own. A t5-small run at 512 source and 32 target tokens.
    const script = (labels: string[]): string =>
      [
        'from transformers import AutoTokenizer, AutoModelForSeq2SeqLM, Seq2SeqTrainer, Seq2SeqTrainingArguments',
        'tok = AutoTokenizer.from_pretrained("t5-small")',
        'model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")',
        'def prep(ex):',
        '    inputs = tok(ex["document"], max_length=512, padding="max_length", truncation=True)',
        ...labels,
        '    inputs["labels"] = labels["input_ids"]',
        '    return inputs',
        'args = Seq2SeqTrainingArguments(output_dir="out", per_device_train_batch_size=16)',
        'Seq2SeqTrainer(model=model, args=args).train()',
        '',
      ].join('\n');
    const call = 'labels = tok(ex["summary"], max_length=32, padding="max_length", truncation=True)';
    for (const labels of [['    with tok.as_target_tokenizer():', `        ${call}`], [`    ${call}`]]) {
      const r = resolveText('run.py', script(labels));
      assert.equal(r.setup?.seq_len, 512);
      assert.equal(r.setup?.target_len, 32);
    }
    // A call assigned to labels still bounds a decoder-only model's sequences.
    const gpt = resolveText(
      'run.py',
      script([`    ${call.replace('32', '640')}`])
        .replace(/AutoModelForSeq2SeqLM/g, 'AutoModelForCausalLM')
        .replace(/t5-small/g, 'gpt2'),
    );
    assert.equal(gpt.setup?.seq_len, 640);
  });

  it('a local of a common name (max_length) counts where the script pads or cuts a sample with it', () => {
    // huggingface/peft examples/causal_language_modeling/peft_prompt_tuning_clm.ipynb, shortened.
    const loop = (use: string): string =>
      [
        'import torch',
        'from transformers import AutoModelForCausalLM',
        'from torch.utils.data import DataLoader',
        'model = AutoModelForCausalLM.from_pretrained("bigscience/bloomz-560m")',
        'max_length = 64',
        'def preprocess_function(examples):',
        use,
        'train_dataloader = DataLoader(train_dataset, batch_size=8)',
        'for batch in train_dataloader:',
        '    loss = model(**batch).loss',
        '    loss.backward()',
        '',
      ].join('\n');
    const seq = (text: string): unknown => analyzeHfPython(text).facts.find((f) => f.key === 'seqLen')?.value;
    assert.equal(seq(loop('    ids = [0] * (max_length - len(ids)) + ids')), 64);
    assert.equal(seq(loop('    ids = torch.tensor(ids[:max_length])')), 64);
    // Only a generation length: not the training batches'.
    assert.equal(seq(loop('    out = model.generate(ids, max_length=max_length)')), undefined);
    // In capitals, as a constant of the function (datawhalechina/self-llm MiniCPM/train.py: `MAX_LENGTH = 512`, then
    // `input_ids = input_ids[:MAX_LENGTH]`), the same.
    const caps = loop('    ids = ids[:MAX_LENGTH]').replace('max_length = 64', 'MAX_LENGTH = 512');
    assert.equal(seq(caps), 512);
  });

  it("max_length=tokenizer.model_max_length of a tokenizer passed down is the one load's model_max_length (FastLoRAChat)", () => {
    // bupticybee/FastLoRAChat finetune_fastchat.py after stanford_alpaca's train.py: `_tokenize_fn(strings, tokenizer)`
    // truncates to `tokenizer.model_max_length`, which `LlamaTokenizer.from_pretrained(..., model_max_length=1024)` sets.
    const text = [
      'import transformers',
      'from transformers import AutoModelForCausalLM, LlamaTokenizer',
      'def _tokenize_fn(strings, tokenizer):',
      '    return [tokenizer(t, padding="longest", max_length=tokenizer.model_max_length, truncation=True) for t in strings]',
      'def train():',
      '    model = AutoModelForCausalLM.from_pretrained("huggyllama/llama-13b")',
      '    tokenizer = LlamaTokenizer.from_pretrained("huggyllama/llama-13b", model_max_length=1024, padding_side="right")',
      '    trainer = transformers.Trainer(model=model, args=transformers.TrainingArguments(output_dir="o"))',
      '    trainer.train()',
      '',
    ].join('\n');
    const seq = analyzeHfPython(text).facts.find((f) => f.key === 'seqLen');
    assert.equal(seq?.value, 1024);
    assert.equal(text.slice(seq!.valueSpan.start, seq!.valueSpan.end), '1024');
    // Two loads of different lengths: which one the function gets is not known.
    const two = text.replace(
      '    trainer =',
      '    other = AutoTokenizer.from_pretrained("x", model_max_length=4096)\n    trainer =',
    );
    assert.equal(typeof analyzeHfPython(two).facts.find((f) => f.key === 'seqLen')?.value, 'object');
  });

  it("stanford_alpaca's collator pads each batch to its longest sample (torch's pad_sequence): variable lengths", () => {
    // OFA-Sys/gsm8k-ScRel train_llama2_70b.py (after stanford_alpaca's train.py): DataCollatorForSupervisedDataset
    // stacks the batch with torch.nn.utils.rnn.pad_sequence, so each batch is as long as its longest sample. The
    // batches were read as all model_max_length long.
    const text = [
      'import torch, transformers',
      'class DataCollatorForSupervisedDataset(object):',
      '    def __call__(self, instances):',
      '        input_ids = [i["input_ids"] for i in instances]',
      '        input_ids = torch.nn.utils.rnn.pad_sequence(input_ids, batch_first=True, padding_value=0)',
      '        return dict(input_ids=input_ids)',
      'model = transformers.AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")',
      'trainer = transformers.Trainer(model=model, args=transformers.TrainingArguments(output_dir="o"))',
      'trainer.train()',
      '',
    ].join('\n');
    const lengths = analyzeHfPython(text).facts.find((f) => f.key === 'batchLengths');
    assert.deepEqual([lengths?.value, lengths?.rawKey], ['variable', 'pad_sequence']);
    // A script that pads every sample to max_length keeps fixed lengths.
    const padded = analyzeHfPython(
      text.replace(
        '    def __call__',
        '    def tok(self, t):\n        return tokenizer(t, padding="max_length", max_length=512)\n    def __call__',
      ),
    );
    assert.equal(
      padded.facts.some((f) => f.key === 'batchLengths' && f.value === 'variable'),
      false,
    );
  });

  it("Alpaca-LoRA's generate_and_tokenize_prompt prepares the training data: its tokenizer length counts", () => {
    const text = [
      'import transformers',
      'from transformers import AutoModelForCausalLM',
      'model = AutoModelForCausalLM.from_pretrained("microsoft/phi-2")',
      'def generate_and_tokenize_prompt(prompt):',
      '    return tokenizer(prompt, truncation=True, max_length=512, padding="max_length")',
      'trainer = transformers.Trainer(model=model, args=transformers.TrainingArguments(output_dir="o"))',
      'trainer.train()',
      '',
    ].join('\n');
    assert.equal(analyzeHfPython(text).facts.find((f) => f.key === 'seqLen')?.value, 512);
    // The same call in a function named for evaluation is passed by.
    const evaluation = text.replace('def generate_and_tokenize_prompt', 'def tokenize_eval_prompt');
    assert.equal(
      analyzeHfPython(evaluation).facts.find((f) => f.key === 'seqLen'),
      undefined,
    );
  });

  it("a dataset class of the project built with max_len= cuts its samples there (ZLHe0/MiniOneRec's sft.py)", () => {
    // sft.py's train() (run by fire.Fire) has `cutoff_len: int = 512` and builds SidSFTDataset(..., max_len=cutoff_len)
    // from its data.py, which truncates each sample to it; ConcatDataset(train_datasets) beside it bounds nothing.
    const text = [
      'import fire',
      'import transformers',
      'from torch.utils.data import ConcatDataset',
      'from data import SidSFTDataset',
      'def train(base_model: str = "Qwen/Qwen2.5-1.5B-Instruct", cutoff_len: int = 512):',
      '    model = transformers.AutoModelForCausalLM.from_pretrained(base_model)',
      '    train_datasets = []',
      '    train_datasets.append(SidSFTDataset(train_file="t.csv", tokenizer=None, max_len=cutoff_len, sample=-1))',
      '    train_data = ConcatDataset(train_datasets)',
      '    args = transformers.TrainingArguments(output_dir="o", per_device_train_batch_size=16)',
      '    transformers.Trainer(model=model, train_dataset=train_data, args=args).train()',
      'if __name__ == "__main__":',
      '    fire.Fire(train)',
      '',
    ].join('\n');
    const seq = analyzeHfPython(text).facts.find((f) => f.key === 'seqLen');
    assert.equal(seq?.value, 512);
    assert.equal(seq?.rawKey, 'max_len');
  });

  it("a dataset class the file defines, given its length by position: its __init__'s seq_length (cs336's loop)", () => {
    // go-akshit/spring2024-assignment5-alignment@a835324 instruction_finetuning.py: class finetuning_dataset(Dataset)
    // cuts the token stream into seq_length pieces; built as finetuning_dataset(tokenizer, path, args.seq_length,
    // shuffle) with --seq_length 512 by default.
    const text = [
      'import argparse, torch',
      'from torch.utils.data import DataLoader, Dataset',
      'from transformers import AutoModelForCausalLM',
      'class finetuning_dataset(Dataset):',
      '    def __init__(self, tokenizer, dataset_path, seq_length, shuffle):',
      '        self.seq_length = seq_length',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--seq_length", type=int, default=512)',
      'args = parser.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B").to("cuda")',
      'optimizer = torch.optim.AdamW(model.parameters())',
      'train_dataset = finetuning_dataset(None, "train.jsonl", args.seq_length, True)',
      'for batch in DataLoader(train_dataset, batch_size=2):',
      '    model(**batch).loss.backward()',
      '    optimizer.step()',
      '',
    ].join('\n');
    const seq = analyzeHfPython(text).facts.find((f) => f.key === 'seqLen');
    assert.deepEqual([seq?.value, seq?.rawKey], [512, 'seq_length']);
  });
});

describe('the default length of a model with learned positions', () => {
  const script = (model: string): string =>
    [
      'from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments',
      `model = AutoModelForSequenceClassification.from_pretrained("${model}", num_labels=2)`,
      'trainer = Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=32))',
      'trainer.train()',
      '',
    ].join('\n');
  const run = (model: string) =>
    runPipeline([{ file: '/w/train.py', text: script(model) }], { read: () => undefined, join: path.posix.join }, {});

  it('is the positions the model has where fewer than 2,048 and nothing gives a length (BERT 512, GPT-2 1,024)', () => {
    // afurkank/vecquery_tune scripts/fine_tune.py: bert-base-uncased with its tokenizer's length in a module not in the
    // repository; 2,048 tokens would index past BERT's 512 position embeddings.
    const bert = run('bert-base-uncased');
    assert.equal(bert.setup?.seq_len, 512);
    assert.equal(bert.provenance.seq_len?.kind, 'default');
    assert.match(
      bert.provenance.seq_len?.kind === 'default' ? (bert.provenance.seq_len.note ?? '') : '',
      /learned position embeddings hold 512 positions/,
    );
    assert.equal(run('gpt2').setup?.seq_len, 1024);
    // A length the file gives but not statically: said beside the bound.
    const unknown = runPipeline(
      [
        {
          file: '/w/train.py',
          text: script('bert-base-uncased').replace(
            'per_device_train_batch_size=32',
            'per_device_train_batch_size=32, max_seq_length=compute_len()',
          ),
        },
      ],
      { read: () => undefined, join: path.posix.join },
      {},
    );
    assert.equal(unknown.setup?.seq_len, 512);
    // Rotary positions set no bound: the default stays.
    assert.equal(run('Qwen/Qwen2.5-0.5B').setup?.seq_len, 2048);
  });

  it("is DeBERTa-v3's trained length, 512, though its relative positions take longer inputs (Coluding/partition-classifier)", () => {
    // Coluding/partition-classifier train.py fine-tunes microsoft/deberta-v3-large with a length from its data; the
    // model has no absolute positions (position_biased_input false) and was trained at max_position_embeddings 512.
    const deberta = run('microsoft/deberta-v3-large');
    assert.equal(deberta.setup?.seq_len, 512);
    assert.match(
      deberta.provenance.seq_len?.kind === 'default' ? (deberta.provenance.seq_len.note ?? '') : '',
      /the length the model was trained at \(max_position_embeddings 512; its relative positions take longer inputs\)/,
    );
  });

  it("is T5's trained length, 512 (its n_positions), for a T5 whose length nothing gives", () => {
    // VirtuosoResearch/Scalable-finetuning custom_train_cot.py fine-tunes google/flan-t5-base with a length its data
    // module (not in the files) sets; T5 was pre-trained on 512-token inputs (Raffel et al. 2020, section 3.1.2) and
    // its configs write n_positions 512, though its bucketed relative positions take any length.
    const t5 = run('google/flan-t5-base');
    assert.equal(t5.setup?.seq_len, 512);
    assert.match(
      t5.provenance.seq_len?.kind === 'default' ? (t5.provenance.seq_len.note ?? '') : '',
      /the length the model was trained at \(n_positions 512; its relative positions take longer inputs\)/,
    );
  });
});

describe("the length of batches the script's own collator makes for SFTTrainer", () => {
  it('is not max_length where TRL prepares no dataset (skip_prepare_dataset): unknown, said at the key', () => {
    // tulerfeng/Video-R1@59d65c3 src/r1-v/src/open_r1/sft_video.py (abridged): training_args.dataset_kwargs =
    // {"skip_prepare_dataset": True}, then SFTTrainer(..., data_collator=collate_fn): TRL neither tokenizes nor
    // truncates, so the video prompts are as long as the data makes them, not TRL's 1,024.
    const script = [
      'from trl import SFTConfig, SFTTrainer',
      'from transformers import Qwen2VLForConditionalGeneration',
      'model = Qwen2VLForConditionalGeneration.from_pretrained("Qwen/Qwen2-VL-2B-Instruct")',
      'training_args = SFTConfig(output_dir="o", per_device_train_batch_size=1)',
      'training_args.dataset_kwargs = {"skip_prepare_dataset": True}',
      'trainer = SFTTrainer(model=model, args=training_args, train_dataset=ds, data_collator=collate_fn)',
      'trainer.train()',
      '',
    ].join('\n');
    const fact = analyzeHfPython(script).facts.find((f) => f.key === 'seqLen');
    assert.ok(fact && typeof fact.value === 'object' && fact.value !== null && 'unknown' in fact.value);
    assert.equal(script.slice(fact.keySpan.start, fact.keySpan.end), '"skip_prepare_dataset": True');
    // TRL's collator (no data_collator) truncates as usual.
    const own = analyzeHfPython(script.replace(', data_collator=collate_fn', ''));
    assert.equal(
      own.facts.find((f) => f.key === 'seqLen'),
      undefined,
    );
  });
});

describe("hf-python: QLoRA's DataCollatorForCausalLM bounds a sample by source_max_len + target_max_len", () => {
  it("280 + 512 = 792 tokens (Brian-Konr/applied-deep-learning hw3/train_qlora.py, a copy of qlora.py's collator)", () => {
    const text = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'from DataCollatorForCausalLM import DataCollatorForCausalLM',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")',
      'collator = DataCollatorForCausalLM(tokenizer=tok, source_max_len=280, target_max_len=512, train_on_source=False)',
      'Trainer(model=model, args=TrainingArguments(output_dir="o"), data_collator=collator).train()',
      '',
    ].join('\n');
    const seq = analyzeHfPython(text).facts.filter((f) => f.key === 'seqLen');
    assert.deepEqual(
      seq.map((f) => f.value),
      [792],
    );
    assert.equal(text.slice(seq[0].keySpan.start, seq[0].keySpan.end), 'DataCollatorForCausalLM');
  });
});

describe('hf-python: the labels of a seq2seq script whose arguments give the sequence length', () => {
  it("max_seq_length from the arguments, the decoder at the labels' max_answer_length (30)", () => {
    // EternalEdenn/multitask_ext-gen_sts-gen run_seq2seq_qa_tamura.py (abridged, transformers' run_seq2seq_qa.py):
    // the labels are tokenized under as_target_tokenizer() to max_answer_length; the decoder ran at 512 before.
    const text = [
      'from dataclasses import dataclass, field',
      'from transformers import AutoModelForSeq2SeqLM, HfArgumentParser, Seq2SeqTrainer, Seq2SeqTrainingArguments',
      '@dataclass',
      'class DataTrainingArguments:',
      '    max_seq_length: int = field(default=384)',
      '    max_answer_length: int = field(default=30)',
      'def main():',
      '    parser = HfArgumentParser((DataTrainingArguments, Seq2SeqTrainingArguments))',
      '    data_args, training_args = parser.parse_args_into_dataclasses()',
      '    model = AutoModelForSeq2SeqLM.from_pretrained("google/mt5-base")',
      '    max_answer_length = data_args.max_answer_length',
      '    max_seq_length = data_args.max_seq_length',
      '    def preprocess_function(examples):',
      '        model_inputs = tokenizer(examples["q"], max_length=max_seq_length, padding="max_length", truncation=True)',
      '        with tokenizer.as_target_tokenizer():',
      '            labels = tokenizer(examples["a"], max_length=max_answer_length, padding="max_length", truncation=True)',
      '        return model_inputs',
      '    Seq2SeqTrainer(model=model, args=training_args).train()',
      'main()',
      '',
    ].join('\n');
    const facts = analyzeHfPython(text).facts;
    assert.deepEqual(
      facts.filter((f) => f.key === 'seqLen' || f.key === 'targetLen').map((f) => [f.key, f.value]),
      [
        ['seqLen', 384],
        ['targetLen', 30],
      ],
    );
  });
});

describe("run_clm's block_size", () => {
  it('the option where it is given, capped by the tokenizer limit it cannot read; the branch for no option skipped', () => {
    // transformers examples/pytorch/language-modeling/run_clm.py (also Miraclove/DevAssistant's train.py):
    // `if data_args.block_size is None: block_size = tokenizer.model_max_length ...` else
    // `block_size = min(data_args.block_size, tokenizer.model_max_length)`.
    const text = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--block_size", type=int, default=4096)',
      'args = parser.parse_args()',
      'tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'if args.block_size is None:',
      '    block_size = tokenizer.model_max_length',
      '    if block_size > 1024:',
      '        block_size = 1024',
      'else:',
      '    block_size = min(args.block_size, tokenizer.model_max_length)',
      'def group_texts(examples):',
      '    return {k: [t[i : i + block_size] for i in range(0, len(t), block_size)] for k, t in examples.items()}',
      'Trainer(model=model, args=TrainingArguments(output_dir="o"), train_dataset=raw.map(group_texts)).train()',
      '',
    ].join('\n');
    const r = resolveText('train.py', text);
    assert.equal(r.setup?.seq_len, 4096);
  });
});
