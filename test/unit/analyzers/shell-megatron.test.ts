// Megatron-LM's pretraining scripts build the model from the line's dimension flags and train it with Megatron's own
// distributed optimizer and pipeline schedules: the line is said to be such a run, at its script, where it was read
// as a missing script whose model nothing names. The launch line follows NVIDIA/Megatron-LM
// examples/gpt3/train_gpt3_175b_distributed.sh, cut to a 1.3B model.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

const LINE = [
  'GPT_MODEL_ARGS=(',
  '    --num-layers 24',
  '    --hidden-size 2048',
  '    --num-attention-heads 16',
  '    --seq-length 2048',
  ')',
  'torchrun --nproc_per_node 8 pretrain_gpt.py ${GPT_MODEL_ARGS[@]} --micro-batch-size 4 --bf16 \\',
  '    --tensor-model-parallel-size 2 --use-distributed-optimizer',
  '',
].join('\n');

describe("Megatron-LM's pretrain_gpt.py", () => {
  it('is said as not modeled at its script, not as a missing script', () => {
    const run = runFiles({ '/p/train.sh': LINE }, '/p/train.sh');
    assert.equal(run.setup, undefined);
    const said = run.problems.find((p) => p.code === 'not-modeled');
    assert.match(said?.message ?? '', /^pretrain_gpt\.py: Megatron-LM builds this model from the flags on the line/);
    assert.equal(LINE.slice(said?.start, said?.end), 'pretrain_gpt.py');
    assert.ok(!run.problems.some((p) => p.code === 'reference-not-found'), JSON.stringify(run.problems));
  });

  it('a script of that name without Megatron dimension flags is an ordinary script of the run', () => {
    const line = 'torchrun --nproc_per_node 8 pretrain_gpt.py --model_name_or_path Qwen/Qwen2.5-0.5B\n';
    const run = runFiles({ '/p/train.sh': line }, '/p/train.sh');
    assert.ok(!run.problems.some((p) => p.code === 'not-modeled'));
    assert.deepEqual([run.setup?.model, run.setup?.gpus_per_node], ['Qwen/Qwen2.5-0.5B', 8]);
  });
});
