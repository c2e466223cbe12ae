// The program a launch line runs where it is not written as a word of its own: a container's `--entrypoint`, and an
// interpreter the script computes under a name that says Python (shell/wrappers.ts, shell/launch.ts).
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';

const value = (text: string, key: string) => analyzeShell(text).facts.find((f) => f.key === key)?.value;

describe('shell analyzer: the interpreter of a launch line', () => {
  it("a container's --entrypoint runs the image's arguments (kingjameschan/gemma-math-sft-grpo's verl DAPO run)", () => {
    // v3/E5_grpo/r16_grpo_clean/run_grpo_r16_clean.sh (abridged): the model was "not found in these files".
    const text = [
      'docker run --rm --gpus all --shm-size 16g \\',
      '  --entrypoint python3 $DOCKER_IMAGE -m verl.trainer.main_ppo \\',
      '  actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct \\',
      '  trainer.n_gpus_per_node=2',
      '',
    ].join('\n');
    assert.equal(value(text, 'model'), 'Qwen/Qwen2.5-0.5B-Instruct');
    assert.equal(value(text, 'gpusPerNode'), 2);
    assert.equal(
      value(text.replace('--entrypoint python3', '--entrypoint=python3'), 'model'),
      'Qwen/Qwen2.5-0.5B-Instruct',
    );
    // Without --entrypoint the command after the image is the program, as before.
    const plain =
      'docker run --rm --gpus all img:1 python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B\n';
    assert.equal(value(plain, 'model'), 'Qwen/Qwen2.5-0.5B');
  });

  it('an interpreter computed under a name that says Python is python, said at the command (MalveauxLuke/GRPO_testbed)', () => {
    // scripts/sol/run_grpo_debug_validation.sh: sol_python is a function of the sourced common_env.sh.
    const text =
      '"$(sol_python)" -m verl.trainer.main_ppo \\\n  actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct\n';
    const r = analyzeShell(text);
    assert.equal(r.facts.find((f) => f.key === 'model')?.value, 'Qwen/Qwen2.5-0.5B-Instruct');
    const note = r.problems.find((p) => p.code === 'read-by-name')!;
    assert.equal(text.slice(note.span.start, note.span.end), '$(sol_python)');
    assert.equal(
      value(
        '$PYTHON_EXE train.py --model_name_or_path Qwen/Qwen2.5-0.5B --per_device_train_batch_size 2\n',
        'microBatchSize',
      ),
      2,
    );
    // A command not known statically under another name is not a launch.
    assert.equal(
      value('"$(runner)" -m verl.trainer.main_ppo actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B\n', 'model'),
      undefined,
    );
  });

  it('a launcher found on PATH, `$(which torchrun)`, runs as torchrun (UFResearchComputing/Llama2_on_HPG multi_node.sh)', () => {
    // finetuning/code/multi_node.sh (abridged): `TORCHRUN_PATH=$(which torchrun)`, then `srun $TORCHRUN_PATH ...`:
    // "no model found" before; 4 processes on each of 2 nodes.
    const text = [
      'TORCHRUN_PATH=$(which torchrun)',
      'srun $TORCHRUN_PATH --nproc_per_node=4 --nnodes=2 finetuning.py --enable_fsdp \\',
      '  --model_name meta-llama/Llama-2-13b-hf --output_dir out',
      '',
    ].join('\n');
    assert.equal(value(text, 'model'), 'meta-llama/Llama-2-13b-hf');
    assert.equal(value(text, 'gpusPerNode'), 4);
    assert.equal(
      value('X=$(command -v deepspeed)\n$X --num_gpus 2 train.py --model_name_or_path gpt2\n', 'gpusPerNode'),
      2,
    );
  });
});

describe("shell analyzer: bash's older arithmetic expansion", () => {
  it('$[ expr ] is worked out as $(( expr )) is (DAMO-NLP-SG/VideoLLaMA2 scripts/custom/finetune_qlora.sh)', () => {
    const text = [
      'GLOBAL_BATCH_SIZE=128',
      'LOCAL_BATCH_SIZE=4',
      'GRADIENT_ACCUMULATION_STEPS=$[$GLOBAL_BATCH_SIZE/($LOCAL_BATCH_SIZE*8)]',
      'torchrun --nproc_per_node 8 train.py --per_device_train_batch_size $LOCAL_BATCH_SIZE \\',
      '  --gradient_accumulation_steps $GRADIENT_ACCUMULATION_STEPS',
      '',
    ].join('\n');
    // 128 / (4 x 8) = 4
    assert.equal(value(text, 'gradientAccumulationSteps'), 4);
  });
});
