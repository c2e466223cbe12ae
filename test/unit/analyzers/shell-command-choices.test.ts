// A launch whose command is a variable set on the branches of an `if` (src/analyzers/shell/command-choices.ts):
// princeton-nlp/ProLong's train_sft.sh sets `header` to an `srun torchrun` line on more than one node and a `torchrun`
// line else, then runs `${header} "${base_arguments[@]}"`.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { checkFacts } from './shell-common';

/** ProLong's train_sft.sh, abridged: the node count from Slurm, the launcher on each branch, the options in an array. */
const prolong = (multiNode: string): string =>
  `model=\${MODEL:-meta-llama/Meta-Llama-3-8B}
num_nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | wc -l)
if [ $num_nodes -gt 1 ]; then
    header="srun torchrun --nnodes=${multiNode} --nproc-per-node=8 -m training.train_language_model"
else
    header="torchrun --nnodes=1 --nproc-per-node=8 -m training.train_language_model"
fi
base_arguments=(
    --model_name $model
    --per_device_train_batch_size 1
    --bf16
    --fsdp "auto_wrap"
)
\${header} "\${base_arguments[@]}"
`;

describe('shell analyzer: a command set on the branches of an `if`', () => {
  it('the facts the branches agree on, and the worst for memory of values they set differently', () => {
    const text = prolong('2');
    const r = checkFacts(text, [
      ['model', 'meta-llama/Meta-Llama-3-8B', '--model_name', '$model'],
      ['microBatchSize', 1, '--per_device_train_batch_size', '1'],
      ['gpusPerNode', 8, '--nproc-per-node', '8'],
      ['fsdp', 'full_shard', '--fsdp', 'auto_wrap'],
      // 2 nodes or 1: one node shards over the fewest GPUs, the most memory per GPU.
      ['nodes', 1, '--nnodes', '1'],
    ]);
    const assumed = r.facts.find((f) => f.key === 'nodes')!.assumed ?? '';
    assert.match(assumed, /`header`, the command, is 'srun torchrun --nnodes=2 .*' or 'torchrun --nnodes=1 .*'/);
    assert.match(
      assumed,
      /depending on the `if` at line 3; --nnodes can be 2 or 1: the worst for memory \(1\) is estimated/,
    );
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['script', 'training/train_language_model.py']],
    );
  });

  it('a flag whose value a branch leaves unknown (`--nnodes=$num_nodes`) is unknown, the others still read', () => {
    const r = checkFacts(prolong('$num_nodes'), [
      ['nodes', '?', '--nnodes', '$num_nodes'],
      ['gpusPerNode', 8, '--nproc-per-node', '8'],
      ['model', 'meta-llama/Meta-Llama-3-8B', '--model_name', '$model'],
    ]);
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['training/train_language_model.py'],
    );
  });

  it('branches that run different scripts launch nothing the line can name', () => {
    const text =
      'if [ -n "$DPO" ]; then\n  cmd="torchrun --nproc-per-node=8 dpo.py"\nelse\n  cmd="torchrun --nproc-per-node=8 sft.py"\nfi\n' +
      '$cmd --model_name meta-llama/Meta-Llama-3-8B\n';
    const r = analyzeShell(text);
    assert.deepEqual(r.references, []);
    assert.equal(
      r.facts.some((f) => f.key === 'gpusPerNode'),
      false,
    );
  });
});
