// A DeepSpeed run whose GPU count no file gives (`deepspeed pretrain_gpt.py ...` without --num_gpus takes every GPU
// it sees): where train_batch_size, the micro-batch and the accumulation are all given, DeepSpeed asserts
// train_batch_size = micro x accumulation x data-parallel world at start-up (deepspeed/runtime/config.py
// _batch_assertion), so the run has that world. Before, the one GPU assumed made a "batch-size-mismatch" error
// (bigscience-workshop/Megatron-DeepSpeed examples/curriculum_learning: 512 = 1 x 1 x GPUs).
import * as assert from 'node:assert/strict';
import type { PipelineResult } from '../../../src/analyzers/pipeline';
import { runFiles } from '../helpers';

const DS = '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}';
const TRAIN = `from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
Trainer(model=model, args=TrainingArguments(output_dir="o", deepspeed="ds.json")).train()
`;

function run(launch: string): PipelineResult {
  return runFiles({ '/r/run.sh': launch, '/r/train.py': TRAIN, '/r/ds.json': DS }, '/r/run.sh');
}

describe('DeepSpeed: the data-parallel world train_batch_size requires', () => {
  it('with no GPU count in the files, 64 / (4 x 2) = 8 GPUs, said with the formula; no mismatch error', () => {
    const r = run('deepspeed train.py --deepspeed ds.json\n');
    assert.equal(r.setup?.gpus_per_node, 8);
    assert.equal(r.problems.filter((p) => p.code === 'batch-size-mismatch').length, 0);
    const prov = r.provenance?.gpus_per_node;
    assert.equal(prov?.kind, 'file');
    assert.match(prov?.kind === 'file' ? prov.key : '', /the data-parallel GPUs DeepSpeed requires/);
  });

  it('a GPU count the launch line gives stands, and a batch that does not add up is still an error', () => {
    const r = run('deepspeed --num_gpus 4 train.py --deepspeed ds.json\n');
    assert.equal(r.setup?.gpus_per_node, 4);
    const p = r.problems.find((x) => x.code === 'batch-size-mismatch');
    assert.equal(p?.message, 'train_batch_size 64 != 4 (micro) x 2 (accumulation) x 4 (GPUs) = 32');
  });
});
