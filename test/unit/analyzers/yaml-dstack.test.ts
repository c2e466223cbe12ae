// A dstack task (src/analyzers/yaml/dstack.ts): its `commands:` read as a launch script at the YAML's own offsets, with
// `env:` and DSTACK_GPUS_PER_NODE / DSTACK_NODES_NUM from `resources.gpu` and `nodes` set, the GPU of the fit from
// `resources.gpu`, and quick fixes written inside the command lines (writers/task-script.ts). test/fixtures/dstack: a
// TRL LoRA task over 2 nodes of 8 A100-80GB, written for these tests.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PipelineResult } from '../../../src/analyzers/pipeline';
import { runFiles } from '../helpers';
import { detectFormat } from '../../../src/analyzers/detect';
import { taskScriptSet } from '../../../src/features/fixes/writers/task-script';
import type { FixFile } from '../../../src/features/fixes/ops';

const DIR = path.join(__dirname, '../../../../test/fixtures/dstack');
const TASK = fs.readFileSync(path.join(DIR, 'sft.dstack.yml'), 'utf8');
const SFT = fs.readFileSync(path.join(DIR, 'sft.py'), 'utf8');

function run(task: string): PipelineResult {
  return runFiles({ '/d/sft.dstack.yml': task, '/d/sft.py': SFT }, '/d/sft.dstack.yml');
}

describe('dstack task YAML', () => {
  it('the commands with the task variables: Llama 3.1 8B LoRA over 2 x 8 A100-80GB, the env items', () => {
    assert.equal(detectFormat('sft.dstack.yml', TASK), 'dstack-yaml');
    const r = run(TASK);
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual([s.model, s.gpus_per_node, s.nodes, s.gpu], ['meta-llama/Llama-3.1-8B', 8, 2, 'A100-80GB']);
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.seq_len], [1, 4, 2048]);
    assert.deepEqual([s.method, s.lora?.r, s.gradient_checkpointing], ['lora', 16, 'full']);
  });

  it('resources.gpu: a memory alone is a card of that size, a range its smallest; a plain item folds its lines', () => {
    const sized = TASK.replace('gpu: A100:80GB:8', 'gpu: 24GB..48GB:2');
    assert.deepEqual([run(sized).setup?.gpu, run(sized).setup?.gpus_per_node], ['24GiB', 2]);
    const plain = TASK.replace(
      /commands:[\s\S]*?\nresources:/,
      'commands:\n  - python sft.py\n    --model_name_or_path Qwen/Qwen2.5-0.5B\n    --per_device_train_batch_size 4\n\nresources:',
    );
    const r = run(plain);
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 4]);
  });

  it('quick fixes are written inside a command line, a folded item kept whole', () => {
    const file = { file: '/d/sft.dstack.yml', text: TASK } as unknown as FixFile;
    const r = taskScriptSet('commands')(file, TASK, { path: ['per_device_train_batch_size'], value: 2 });
    assert.ok('text' in r, JSON.stringify(r));
    assert.equal(r.text, TASK.replace('--per_device_train_batch_size 1', '--per_device_train_batch_size 2'));
    const plain = 'type: task\ncommands:\n  - python sft.py\n    --bf16\n    --output_dir out\n';
    const added = taskScriptSet('commands')(file, plain, { path: ['gradient_checkpointing'], value: true });
    // Written after --bf16, the line break it stood before folded into a space, as YAML folds it anyway.
    assert.deepEqual(added, { text: plain.replace('--bf16\n', '--bf16 --gradient_checkpointing True ') });
    // Taking `--bf16` out takes its line with it: no blank line, which YAML would read as a break inside the command.
    const removed = taskScriptSet('commands')(file, plain, { path: ['bf16'], value: false });
    assert.deepEqual(removed, { text: plain.replace('    --bf16\n', '') });
  });
});
