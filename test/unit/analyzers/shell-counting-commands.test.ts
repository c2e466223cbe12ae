// Commands a launch script counts its GPUs and nodes with (shell/counting-commands.ts): `$(nvidia-smi -L | wc -l)`,
// torch's device count, and a Slurm job's host names counted with `wc -w` (simplescaling/s1 train/sft_slurm.sh, run
// by `srun --nodes=2 --ntasks-per-node=1 --gpus-per-task=8` in train/launch.sh). Each expected count is the one the
// test's own directives or variables give.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isUnknown } from '../../../src/analyzers/facts';
import { runPipeline, type FileReader } from '../../../src/analyzers/pipeline';
import { checkFacts } from './shell-common';

const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p) => files[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

describe('shell: commands that count GPUs and nodes', () => {
  it("nvidia-smi's GPU list counted with wc -l is the job's GPUs on the node (#SBATCH --gres)", () => {
    const text = '#SBATCH --gres=gpu:4\nNUM_GPUS=$(nvidia-smi -L | wc -l)\ntorchrun --nproc_per_node=$NUM_GPUS t.py\n';
    checkFacts(text, [['gpusPerNode', 4, '--nproc_per_node', '$NUM_GPUS']]);
    const query = '#SBATCH --gpus-per-node=2\nN=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)\n';
    checkFacts(`${query}torchrun --nproc_per_node $N t.py\n`, [['gpusPerNode', 2, '--nproc_per_node', '$N']]);
  });

  it('outside a Slurm job the machine is not in the files: unknown, and said why', () => {
    const r = checkFacts('G=$(nvidia-smi --list-gpus | wc -l)\ntorchrun --nproc_per_node=$G t.py\n', [
      ['gpusPerNode', '?', '--nproc_per_node', '$G'],
    ]);
    const f = r.facts.find((x) => x.key === 'gpusPerNode');
    assert.ok(f && isUnknown(f.value));
    assert.match(f.value.unknown, /counts the GPUs of the machine the script runs on, which these files do not give/);
  });

  it("torch's device count is CUDA_VISIBLE_DEVICES's where the script exports it", () => {
    const text =
      'export CUDA_VISIBLE_DEVICES=0,1,2\nN=$(python -c "import torch; print(torch.cuda.device_count())")\n' +
      'torchrun --nproc_per_node $N t.py\n';
    checkFacts(text, [['gpusPerNode', 3, '--nproc_per_node', '$N']]);
  });

  it("an array of the visible devices counted with ${#ARR[@]}, made with ${VAR//,/ } (Chinese-Vicuna's finetune.sh)", () => {
    const text =
      'TOT_CUDA="2,3"\nCUDAs=(${TOT_CUDA//,/ })\nCUDA_NUM=${#CUDAs[@]}\n' +
      'CUDA_VISIBLE_DEVICES=${TOT_CUDA} torchrun --nproc_per_node=$CUDA_NUM t.py\n';
    checkFacts(text, [['gpusPerNode', 2, '--nproc_per_node', '$CUDA_NUM']]);
    // The first match only with one slash; a glob pattern is not read.
    checkFacts('A="0,1,2,3"\nB=(${A/,/ })\ntorchrun --nproc_per_node=${#B[@]} t.py\n', [
      ['gpusPerNode', 2, '--nproc_per_node', '${#B[@]}'],
    ]);
    checkFacts('A="0,1"\nB=(${A//[,]/ })\ntorchrun --nproc_per_node=${#B[@]} t.py\n', [
      ['gpusPerNode', '?', '--nproc_per_node', '${#B[@]}'],
    ]);
  });

  it("srun's options are the SLURM_* variables of the script it runs: s1's node list and GPU count", () => {
    const launch = 'srun --nodes=2 --ntasks-per-node=1 --gpus-per-task=8 ./train/sft_slurm.sh --uid 1\n';
    const job =
      'batch_size=16\nnode_array=$(scontrol show hostnames $SLURM_JOB_NODELIST)\nnnodes=$(echo $node_array | wc -w)\n' +
      'gpu_count=$(nvidia-smi -L | wc -l)\ngrad_acc=$((batch_size/(gpu_count * nnodes)))\n' +
      'torchrun --nnodes=$nnodes --nproc_per_node=$gpu_count train/sft.py --per_device_train_batch_size=1 ' +
      '--gradient_accumulation_steps=$grad_acc --model_name_or_path=Qwen/Qwen2.5-0.5B\n';
    const r = runPipeline(
      [{ file: '/w/launch.sh', text: launch }],
      inMemory({ '/w/launch.sh': launch, '/w/train/sft_slurm.sh': job }),
      {},
    );
    assert.equal(r.setup?.nodes, 2, 'srun --nodes=2');
    assert.equal(r.setup?.gpus_per_node, 8, 'srun --gpus-per-task=8 x --ntasks-per-node=1');
    assert.equal(r.setup?.gradient_accumulation_steps, 1, '16 / (8 x 2)');
  });
});
