// A sample cut at an option whose name says a maximal length is the sequence length
// (src/analyzers/hf-python/sequence-length.ts optionSlices).
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

/** ise-uiuc/magicoder src/magicoder/train.py (abridged): its own Args dataclass, samples cut at its length. */
const TRAIN = `from dataclasses import dataclass, field
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments

@dataclass
class Args:
    model_key: str = field(default="deepseek-ai/deepseek-coder-6.7b-base")
    max_training_seq_length: int = field(default=1216)

def map_dataset(examples, args):
    input_ids = [input_id[: args.max_training_seq_length] for input_id in examples["input_ids"]]
    return dict(input_ids=input_ids)

def train():
    parser = HfArgumentParser((TrainingArguments, Args))
    training_args, args = parser.parse_args_into_dataclasses()
    model = AutoModelForCausalLM.from_pretrained(args.model_key)
    Trainer(model=model, args=training_args).train()
`;

const seqLen = (launch: string): unknown =>
  runFiles({ '/p/train.sh': launch, '/p/train.py': TRAIN }, '/p/train.sh').setup?.seq_len;

describe('hf-python: a sample cut at a length option', () => {
  it("is the sequence length: the option's default, or the launch line's value (2,048 stood in before)", () => {
    // train.sh passes --max_training_seq_length 1216: 50.0 GiB at the 2,048 default against 39.8 GiB.
    assert.equal(seqLen('python train.py --output_dir o\n'), 1216);
    assert.equal(seqLen('python train.py --output_dir o --max_training_seq_length 512\n'), 512);
  });
});
