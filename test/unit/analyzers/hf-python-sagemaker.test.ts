// A SageMaker training job a notebook starts (src/analyzers/hf-python/sagemaker.ts): the entry point run with the
// hyperparameters as its command line, on the instance type's GPUs, from haandol/finetune-gemma2-sagemaker's
// finetune-txt2sql.ipynb and scripts/run_sft.py (abridged).
import * as assert from 'node:assert/strict';
import { instanceGpus } from '../../../src/analyzers/hf-python/sagemaker';
import { runFact, runFiles } from '../helpers';

const SCRIPT = [
  'from dataclasses import dataclass, field',
  'from transformers import AutoModelForCausalLM, HfArgumentParser',
  'from trl import SFTTrainer, SFTConfig',
  '@dataclass',
  'class ScriptArguments:',
  '    model_id: str = field(default="google/gemma-2-2b")',
  'parser = HfArgumentParser((ScriptArguments, SFTConfig))',
  'script_args, training_args = parser.parse_args_into_dataclasses()',
  'model = AutoModelForCausalLM.from_pretrained(script_args.model_id, torch_dtype="bfloat16")',
  'SFTTrainer(model=model, args=training_args).train()',
  '',
].join('\n');

const NOTEBOOK = (hyperparameters: string, instance: string, distribution = ''): string =>
  [
    'from dataclasses import dataclass, asdict',
    'from sagemaker.huggingface import HuggingFace',
    '@dataclass',
    'class Hyperparameters:',
    '    model_id: str',
    '    per_device_train_batch_size: int',
    '    def to_dict(self):',
    '        return asdict(self)',
    hyperparameters,
    'estimator = HuggingFace(',
    '    entry_point="run_sft.py",',
    '    source_dir="./scripts",',
    `    instance_type="${instance}",`,
    '    instance_count=1,',
    '    transformers_version="4.36",',
    '    pytorch_version="2.1",',
    distribution,
    '    hyperparameters=hyperparameters,',
    ')',
    'estimator.fit({"training": "s3://bucket/train"})',
    '',
  ].join('\n');

describe('hf-python: a SageMaker estimator', () => {
  it("runs its entry point with the hyperparameters on the instance type's GPU (ml.g5.16xlarge: one A10G)", () => {
    const hp =
      'hyperparameters = Hyperparameters(model_id="google/gemma-2-9b", per_device_train_batch_size=1,\n' +
      '    gradient_accumulation_steps=4, max_seq_length=512, bf16=True).to_dict()';
    const files = { '/p/train.py': NOTEBOOK(hp, 'ml.g5.16xlarge'), '/p/scripts/run_sft.py': SCRIPT };
    const run = runFiles(files, '/p/train.py');
    // The model option the job's command line passes, over the script's own default.
    assert.equal(run.setup?.model, 'google/gemma-2-9b');
    // The Trainer's own flags among the hyperparameters, at their keys in the notebook.
    assert.deepEqual(
      [run.setup?.micro_batch_size, run.setup?.gradient_accumulation_steps, run.setup?.seq_len],
      [1, 4, 512],
    );
    assert.equal(runFact(run, 'microBatchSize')?.file, '/p/train.py');
    assert.deepEqual([run.setup?.gpu, run.setup?.gpus_per_node, run.setup?.nodes], ['A10G', 1, 1]);
    assert.equal(run.setup?.transformers_version, '4.36');
  });

  it('a dict of hyperparameters, and one process per GPU under a distribution (ml.p4d.24xlarge: 8 x A100 40 GB)', () => {
    const hp = 'hyperparameters = {"model_id": "google/gemma-2-9b", "per_device_train_batch_size": 2}';
    const nb = NOTEBOOK(hp, 'ml.p4d.24xlarge', '    distribution={"torch_distributed": {"enabled": True}},');
    const run = runFiles({ '/p/train.py': nb, '/p/scripts/run_sft.py': SCRIPT }, '/p/train.py');
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['google/gemma-2-9b', 2]);
    assert.deepEqual([run.setup?.gpu, run.setup?.gpus_per_node], ['A100-40GB', 8]);
  });

  it('instance types: their GPU and count (AWS accelerated computing instances)', () => {
    assert.deepEqual(instanceGpus('ml.g5.2xlarge'), { gpu: 'A10G', count: 1 });
    assert.deepEqual(instanceGpus('ml.g5.12xlarge'), { gpu: 'A10G', count: 4 });
    assert.deepEqual(instanceGpus('ml.p5.48xlarge'), { gpu: 'H100-80GB', count: 8 });
    assert.deepEqual(instanceGpus('ml.g4dn.xlarge'), { gpu: 'T4', count: 1 });
    assert.equal(instanceGpus('ml.m5.xlarge'), undefined);
  });
});
