// A file given alone run by the command a README.md shows for it (collect/readme-command.ts): a launch script that takes
// its values as positional parameters (princeton-nlp/LESS's root README runs `./less/scripts/train/warmup_lora_train.sh
// "$DATA_DIR" "$MODEL_PATH" ...` after setting the variables in its code block), or a config whose sibling the README
// runs (princeton-nlp/SimPO's training_configs). Each expected value is written in the test's own files.
import * as assert from 'node:assert/strict';
import { runFact, runFiles } from '../helpers';

/** LESS's warmup_lora_train.sh, cut to what decides the model and the batch. */
const SCRIPT = [
  '#!/bin/bash',
  'data_dir=$1',
  'model_path=$2',
  'percentage=$3',
  'torchrun --nproc_per_node 1 less/train/train.py --model_name_or_path $model_path \\',
  '  --per_device_train_batch_size 1 --gradient_accumulation_steps 32 --lora True --lora_r 128',
  '',
].join('\n');

const README = [
  '# LESS',
  '### Step 1: Warmup training',
  '```bash',
  'DATA_DIR=../data',
  'MODEL_PATH=meta-llama/Llama-2-7b-hf',
  'PERCENTAGE=0.05 # percentage of the full data to train',
  '',
  './less/scripts/train/warmup_lora_train.sh "$DATA_DIR" "$MODEL_PATH" "$PERCENTAGE"',
  '```',
  '',
].join('\n');

const SCRIPT_PATH = '/p/less/scripts/train/warmup_lora_train.sh';

describe("a README's command as the launch line of a file given alone (a script's positional parameters, a config)", () => {
  it("the root README's command, with the variables its code block sets, gives $2: the model", () => {
    const run = runFiles({ [SCRIPT_PATH]: SCRIPT, '/p/README.md': README }, SCRIPT_PATH);
    assert.equal(run.setup?.model, 'meta-llama/Llama-2-7b-hf');
    assert.equal(run.setup?.gradient_accumulation_steps, 32);
    // As with any caller's words, the value is located where the script uses its parameter.
    const model = runFact(run, 'model');
    assert.equal(model?.file, SCRIPT_PATH);
    const note = run.problems.find((p) => p.code === 'readme-launch');
    assert.equal(note?.file, '/p/README.md');
    assert.equal(note?.severity, 'info');
    assert.equal(note?.line, 8, "the command's line");
  });

  it('a README whose command names another script, or no README: the parameter stays unknown', () => {
    const other = README.replace('warmup_lora_train.sh', 'other.sh');
    const run = runFiles({ [SCRIPT_PATH]: SCRIPT, '/p/README.md': other }, SCRIPT_PATH);
    assert.equal(run.setup, undefined);
    assert.ok(run.problems.some((p) => p.code === 'unknown-model' && /positional argument \$2/.test(p.message)));
    assert.ok(!run.problems.some((p) => p.code === 'readme-launch'));
    const alone = runFiles({ [SCRIPT_PATH]: SCRIPT }, SCRIPT_PATH);
    assert.equal(alone.setup, undefined);
  });

  it('a script that needs no arguments is read as written, whatever a README runs', () => {
    const fixed = SCRIPT.replace('model_path=$2', 'model_path=Qwen/Qwen2.5-0.5B');
    const run = runFiles({ [SCRIPT_PATH]: fixed, '/p/README.md': README }, SCRIPT_PATH);
    assert.equal(run.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.ok(!run.problems.some((p) => p.code === 'readme-launch'));
  });

  it("a config given alone is run as the README's command runs the file beside it (princeton-nlp/SimPO's recipes)", () => {
    const files = {
      '/p/README.md': [
        '## Training Scripts',
        '* Mistral-Base:',
        '```shell',
        'ACCELERATE_LOG_LEVEL=info accelerate launch --config_file accelerate_configs/deepspeed_zero3.yaml \\',
        '  scripts/run_simpo.py training_configs/mistral-7b-base-simpo.yaml',
        '```',
        '',
      ].join('\n'),
      '/p/accelerate_configs/deepspeed_zero3.yaml': [
        'distributed_type: DEEPSPEED',
        'deepspeed_config:',
        '  zero_stage: 3',
        'mixed_precision: bf16',
        'num_machines: 1',
        'num_processes: 4',
        '',
      ].join('\n'),
      '/p/scripts/run_simpo.py': [
        'from alignment import H4ArgumentParser, ModelArguments, DataArguments',
        'from trl import DPOConfig, DPOTrainer',
        'parser = H4ArgumentParser((ModelArguments, DataArguments, DPOConfig))',
        'model_args, data_args, training_args = parser.parse()',
        'trainer = DPOTrainer(model=model_args.model_name_or_path, args=training_args)',
        'trainer.train()',
        '',
      ].join('\n'),
      '/p/training_configs/gemma-2-9b-it-simpo.yaml': [
        'model_name_or_path: google/gemma-2-9b-it',
        'per_device_train_batch_size: 2',
        'gradient_accumulation_steps: 16',
        'bf16: true',
        'max_length: 2048',
        '',
      ].join('\n'),
    };
    const run = runFiles(files, '/p/training_configs/gemma-2-9b-it-simpo.yaml');
    assert.equal(run.setup?.model, 'google/gemma-2-9b-it');
    // The accelerate config of the README's command: ZeRO-3 over 4 processes.
    assert.equal(run.setup?.gpus_per_node, 4);
    assert.equal(run.setup?.zero_stage, 3);
    const note = run.problems.find((p) => p.code === 'readme-launch');
    assert.equal(note?.file, '/p/README.md');
    assert.match(
      note?.message ?? '',
      /training_configs\/gemma-2-9b-it-simpo\.yaml is run as this command runs training_configs\/mistral-7b-base-simpo\.yaml/,
    );
    // A sibling of another kind (an Accelerate config where the file is a recipe) is no model of its run.
    const unlike = runFiles(
      {
        ...files,
        '/p/training_configs/mistral-7b-base-simpo.yaml': files['/p/accelerate_configs/deepspeed_zero3.yaml'],
      },
      '/p/training_configs/gemma-2-9b-it-simpo.yaml',
    );
    assert.equal(unlike.setup?.gpus_per_node, 1);
    assert.ok(!unlike.problems.some((p) => p.code === 'readme-launch'));
    // Alone, without the README: one GPU, no ZeRO.
    const { ['/p/README.md']: _readme, ...rest } = files;
    const alone = runFiles(rest, '/p/training_configs/gemma-2-9b-it-simpo.yaml');
    assert.equal(alone.setup?.gpus_per_node, 1);
    assert.equal(alone.setup?.zero_stage, 0);
  });

  it("a Python script no file launches is run as its root README's launcher command runs it (WhyChaos/TRE)", () => {
    // WhyChaos/TRE-Encouraging-Exploration-in-the-Trust-Region (abridged): the reward script names its model and batch
    // itself; README.md runs it with `accelerate launch --config_file .../deepspeed_config_zero3.yaml`, whose file says
    // ZeRO-3 on 8 processes.
    const script =
      'from transformers import AutoModelForSequenceClassification\nfrom trl import RewardConfig, RewardTrainer\n' +
      'model = AutoModelForSequenceClassification.from_pretrained("Qwen/Qwen2.5-7B-Instruct", num_labels=1)\n' +
      'args = RewardConfig(output_dir="o", per_device_train_batch_size=8, gradient_accumulation_steps=2, bf16=True)\n' +
      'RewardTrainer(model=model, args=args).train()\n';
    const readme =
      '# TRE\n## Reward model\n```bash\n' +
      'accelerate launch --config_file experiments/hh/reward/deepspeed_config_zero3.yaml ' +
      'experiments/hh/reward/train_reward_model_7b.py\n```\n';
    const accelerate = 'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\nnum_processes: 8\n';
    const file = '/p/experiments/hh/reward/train_reward_model_7b.py';
    const files = { [file]: script, '/p/experiments/hh/reward/deepspeed_config_zero3.yaml': accelerate };
    const run = runFiles({ ...files, '/p/README.md': readme }, file);
    assert.deepEqual([run.setup?.gpus_per_node, run.setup?.zero_stage], [8, 3]);
    const note = run.problems.find((p) => p.code === 'readme-launch');
    assert.deepEqual([note?.file, note?.line], ['/p/README.md', 4]);
    // A README that runs it with plain python gives no launcher: the script alone, one process, no note.
    const plain = runFiles(
      { ...files, '/p/README.md': readme.replace(/accelerate launch --config_file \S+/, 'python') },
      file,
    );
    assert.deepEqual([plain.setup?.gpus_per_node, plain.setup?.zero_stage], [1, 0]);
    assert.ok(!plain.problems.some((p) => p.code === 'readme-launch'));
  });

  it('a Markdown file given alone is read as the launch script its shell code blocks make (HeegyuKim/llm-sft-example)', () => {
    const readme = [
      '# llm-sft-example',
      '```',
      'pip install -r requirements.txt',
      '```',
      '## Train',
      '```bash',
      '# with accelerate / Deepspeed',
      'accelerate launch \\',
      '    --config_file single-ds0.yaml \\',
      '    train_llm.py \\',
      '    --model_name_or_path meta-llama/Llama-3.2-3B \\',
      '    --per_device_train_batch_size 2',
      '```',
      '```python',
      'print("not a command")',
      '```',
      '',
    ].join('\n');
    const accelerate = 'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 0\nnum_processes: 1\n';
    const run = runFiles({ '/p/README.md': readme, '/p/single-ds0.yaml': accelerate }, '/p/README.md');
    assert.equal(run.setup?.model, 'meta-llama/Llama-3.2-3B');
    assert.equal(run.setup?.micro_batch_size, 2);
    assert.equal(run.unrecognized.length, 0);
    // A README with no training command in its shell blocks is still no training config.
    const none = runFiles({ '/p/README.md': '# x\n```bash\npip install torch\n```\n' }, '/p/README.md');
    assert.deepEqual(none.unrecognized, ['/p/README.md']);
  });

  it('its commands in an HTML block of their own lines, <code> ... </code> (liangwq/Chatglm_lora_multi-gpu)', () => {
    const readme = [
      '## 多Gpu执行命令',
      '<div>',
      '  <code>pip install -r requirements.txt</code>',
      '  <code>',
      '    torchrun --nproc_per_node=2 finetune.py \\',
      '             --model_name_or_path meta-llama/Llama-3.2-3B \\',
      '             --per_device_train_batch_size 1',
      '  </code>',
      '</div>',
      '',
    ].join('\n');
    const run = runFiles({ '/p/README.md': readme }, '/p/README.md');
    assert.equal(run.setup?.model, 'meta-llama/Llama-3.2-3B');
    assert.deepEqual([run.setup?.micro_batch_size, run.setup?.gpus_per_node], [1, 2]);
  });
});
