// What a launch line starts where its files are missing: a training script the line names that is not in the project
// (pipeline.ts missingScriptProblems).
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

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
