// What a launch line starts where its files disagree or are missing: an Accelerate config's num_processes against the
// GPUs CUDA_VISIBLE_DEVICES shows (resolve/parallelism.ts resolveVisibleProcesses), and a training script the line
// names that is not in the project (pipeline.ts missingScriptProblems).
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const SCRIPT =
  'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
  'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)\n' +
  'Trainer(model=model, args=args).train()\n';
const fsdp = (processes: number): string =>
  `distributed_type: FSDP\nnum_processes: ${processes}\nfsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n`;
const launch = (devices: string): string =>
  `CUDA_VISIBLE_DEVICES="${devices}" accelerate launch --config_file fsdp.yaml train.py\n`;

describe('launch: processes and the GPUs they see', () => {
  it('num_processes 4 with two GPUs visible (Joe-Hall-Lee/STaR-Judge): a warning at num_processes, 2 GPUs estimated', () => {
    // scripts/train_dpo.sh: CUDA_VISIBLE_DEVICES="5,7" accelerate launch --config_file accelerate/fsdp_config.yaml, whose
    // num_processes is 4: Accelerate starts four processes, and ranks 2 and 3 find no device.
    const r = runProject({ 'launch.sh': launch('5,7'), 'fsdp.yaml': fsdp(4), 'train.py': SCRIPT }, 'launch.sh');
    assert.equal(r.setup?.gpus_per_node, 2);
    const w = r.problems.find((p) => p.code === 'invalid-value' && p.key === 'num_processes');
    assert.ok(w, JSON.stringify(r.problems.map((p) => p.message)));
    assert.equal(w.severity, 'warning');
    assert.match(w.message, /starts 4 processes on each machine, but CUDA_VISIBLE_DEVICES \(line 1\) shows 2 GPUs/);
    assert.equal(w.file.endsWith('fsdp.yaml'), true);
    assert.equal(w.line, 2);
  });

  it('num_processes 2 with four GPUs visible: two processes on the first two, sharded two ways, said at num_processes', () => {
    const r = runProject({ 'launch.sh': launch('0,1,2,3'), 'fsdp.yaml': fsdp(2), 'train.py': SCRIPT }, 'launch.sh');
    assert.equal(r.setup?.gpus_per_node, 2);
    const p = r.provenance?.gpus_per_node;
    assert.equal(p?.kind === 'file' ? p.key : undefined, 'num_processes');
    assert.equal(
      r.problems.find((x) => x.key === 'num_processes'),
      undefined,
    );
  });

  it('the same count: nothing said, the visible GPUs estimated', () => {
    const r = runProject({ 'launch.sh': launch('0,1'), 'fsdp.yaml': fsdp(2), 'train.py': SCRIPT }, 'launch.sh');
    assert.equal(r.setup?.gpus_per_node, 2);
    assert.equal(
      r.problems.find((x) => x.key === 'num_processes'),
      undefined,
    );
  });
});

describe('launch: a training script that is not there', () => {
  // xforce-io/llm-finetune scripts/pretrain_hf.sh runs finetune/finetune.py, which the repository does not have.
  const LINE =
    'deepspeed --num_gpus=8 finetune/finetune.py --model_name_or_path bigscience/bloom-560m ' +
    '--per_device_train_batch_size 12\n';

  it('with the model on the launch line: estimated, and an info note at the script name says what is not read', () => {
    const r = runProject({ 'pretrain_hf.sh': LINE }, 'pretrain_hf.sh');
    assert.equal(r.setup?.gpus_per_node, 8);
    const note = r.problems.find((p) => p.code === 'reference-not-found');
    assert.equal(note?.severity, 'info');
    assert.match(note?.message ?? '', /the training script finetune\/finetune\.py was not found: the estimate reads/);
    assert.equal(
      LINE.slice(note!.column - 1, note!.column - 1 + 'finetune/finetune.py'.length),
      'finetune/finetune.py',
    );
  });

  it('with no model anywhere: the warning that nothing names the model, as before', () => {
    const r = runProject(
      { 'run.sh': 'torchrun --nproc_per_node 2 train.py --per_device_train_batch_size 2\n' },
      'run.sh',
    );
    const note = r.problems.find((p) => p.code === 'reference-not-found');
    assert.equal(note?.severity, 'warning');
    assert.match(
      note?.message ?? '',
      /the training script train\.py was not found, and no other file of the run names/,
    );
  });
});
