// A transformers example script run from scratch (run_clm.py / run_mlm.py and their copies): `--config_name` on the
// launch line and no --model_name_or_path, so the script's else branch builds `AutoModelForCausalLM.from_config(config)`
// from `AutoConfig.from_pretrained(model_args.config_name)`. The script here is run_clm.py cut to those branches.
import * as assert from 'node:assert/strict';
import { runFact, runProject } from '../helpers';

const SCRIPT = `from dataclasses import dataclass, field
from typing import Optional
from transformers import AutoConfig, AutoModelForCausalLM, HfArgumentParser, TrainingArguments, Trainer

@dataclass
class ModelArguments:
    model_name_or_path: Optional[str] = field(default=None)
    config_name: Optional[str] = field(default=None)

def main():
    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_args_into_dataclasses()
    if model_args.config_name:
        config = AutoConfig.from_pretrained(model_args.config_name)
    else:
        config = AutoConfig.from_pretrained(model_args.model_name_or_path)
    if model_args.model_name_or_path:
        model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path, config=config)
    else:
        model = AutoModelForCausalLM.from_config(config)
    Trainer(model=model, args=training_args).train()

if __name__ == "__main__":
    main()
`;

describe('hf-python: a transformers example script trained from scratch (--config_name)', () => {
  it("the launch line's --config_name is the model, with no error at the script's from_pretrained", () => {
    // A Hub id here: a config file's path is read by the CLI and the editor (node/models), not by the pipeline alone.
    const line = 'torchrun --nproc_per_node 2 run_clm.py --config_name EleutherAI/pythia-160m --output_dir out\n';
    const r = runProject({ 'run_clm.py': SCRIPT, 'train.sh': line }, 'train.sh');
    assert.equal(r.setup?.model, 'EleutherAI/pythia-160m');
    assert.equal(r.setup?.gpus_per_node, 2);
    assert.ok(!r.problems.some((p) => p.severity === 'error'), JSON.stringify(r.problems));
    const model = runFact(r, 'model')!;
    assert.equal(model.fact.rawKey, '--config_name');
  });

  it('--model_name_or_path beside it decides the model, as the script loads those weights', () => {
    const line = 'python run_clm.py --model_name_or_path gpt2 --config_name EleutherAI/pythia-160m --output_dir o\n';
    const r = runProject({ 'run_clm.py': SCRIPT, 'train.sh': line }, 'train.sh');
    assert.equal(r.setup?.model, 'gpt2');
  });
});

describe('hf-python: a sequence classifier built from a config', () => {
  it('from_config of AutoModelForSequenceClassification has a classifier head, not vocabulary logits (budwing/generative-ai)', () => {
    // chapter10/example10.2.py: `config = AutoConfig.from_pretrained("bert-base-uncased")`, then
    // `AutoModelForSequenceClassification.from_config(config)`: a score layer over 2 labels replaces the MLM head, so the
    // logits are 16 x 2, not 16 x 512 x 30,522 (about 1 GB in fp32) as a masked LM's would be.
    const script = [
      'from transformers import AutoConfig, AutoModelForSequenceClassification, Trainer, TrainingArguments',
      'config = AutoConfig.from_pretrained("bert-base-uncased")',
      'model = AutoModelForSequenceClassification.from_config(config)',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=16)',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const r = runProject({ 'train.py': script }, 'train.py');
    assert.equal(r.setup?.model, 'bert-base-uncased');
    assert.equal(r.setup?.head, 'seq_cls');
    assert.equal(runFact(r, 'head')?.fact.rawValue, 'AutoModelForSequenceClassification.from_config(...)');
  });
});

describe('hf-python: a model class called with a config', () => {
  it("GPT2LMHeadModel(config) of AutoConfig.from_pretrained('gpt2', ...): that checkpoint's architecture (the HF course)", () => {
    // The Hugging Face course, chapter 7 "Training a causal language model from scratch": `config =
    // AutoConfig.from_pretrained("gpt2", vocab_size=len(tokenizer), n_ctx=context_length, ...)`, `model =
    // GPT2LMHeadModel(config)`: GPT-2's 124M parameters with random weights.
    const script = [
      'from transformers import AutoConfig, GPT2LMHeadModel, Trainer, TrainingArguments',
      'config = AutoConfig.from_pretrained("gpt2", n_ctx=128)',
      'model = GPT2LMHeadModel(config)',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=32)',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const r = runProject({ 'train.py': script }, 'train.py');
    assert.equal(r.setup?.model, 'gpt2');
    const built = runProject(
      { 'train.py': script.replace('AutoConfig.from_pretrained("gpt2", n_ctx=128)', 'GPT2Config()') },
      'train.py',
    );
    assert.equal(built.setup, undefined);
  });
});
