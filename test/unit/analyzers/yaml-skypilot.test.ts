// A SkyPilot task YAML (src/analyzers/yaml/skypilot.ts): its `run:` script read as a launch script at the YAML's own
// offsets, with `envs:` and SKYPILOT_NUM_GPUS_PER_NODE (the count of `resources.accelerators`) set, the accelerator as
// the GPU of the fit, and quick fixes written inside the script (writers/skypilot.ts). test/fixtures/skypilot: a TRL SFT
// task on 8 H100s, written for these tests.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PipelineResult } from '../../../src/analyzers/pipeline';
import { runFiles } from '../helpers';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeSkyPilotYaml } from '../../../src/analyzers/yaml/skypilot';
import { taskScriptSet } from '../../../src/features/fixes/writers/task-script';
import type { FixFile } from '../../../src/features/fixes/ops';

const DIR = path.join(__dirname, '../../../../test/fixtures/skypilot');
const TASK = fs.readFileSync(path.join(DIR, 'sft.sky.yaml'), 'utf8');
const TRAIN = fs.readFileSync(path.join(DIR, 'train.py'), 'utf8');

function run(task: string): PipelineResult {
  return runFiles({ '/s/sft.sky.yaml': task, '/s/train.py': TRAIN }, '/s/sft.sky.yaml');
}

describe('SkyPilot task YAML', () => {
  it('the run script with the task variables: Qwen2.5-7B over 8 GPUs (H100:8), the envs, the GPU of the fit', () => {
    assert.equal(detectFormat('sft.sky.yaml', TASK), 'skypilot-yaml');
    const r = run(TASK);
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual(
      [s.model, s.gpus_per_node, s.micro_batch_size, s.gradient_accumulation_steps],
      ['Qwen/Qwen2.5-7B', 8, 2, 4],
    );
    assert.deepEqual([s.seq_len, s.gradient_checkpointing, s.mixed_precision], [4096, 'full', 'bf16']);
    assert.equal(s.gpu, 'H100-80GB');
  });

  it('facts are located in the YAML: the model where the script reads $MODEL_ID, its value from `envs`', () => {
    const r = analyzeSkyPilotYaml(TASK);
    const model = r.facts.find((f) => f.key === 'model')!;
    assert.equal(model.value, 'Qwen/Qwen2.5-7B');
    assert.equal(TASK.slice(model.valueSpan.start, model.valueSpan.end), '$MODEL_ID');
    const batch = r.facts.find((f) => f.key === 'gradientAccumulationSteps')!;
    assert.equal(TASK.slice(batch.valueSpan.start, batch.valueSpan.end), '4');
  });

  it('a variable of `envs` is in the environment of the script the run script starts (its os.getenv)', () => {
    const task =
      'resources:\n  accelerators: A100:8\nenvs:\n  MODEL_ID: Qwen/Qwen2.5-0.5B\nrun: |\n  python train.py\n';
    const train =
      'import os\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      'm = AutoModelForCausalLM.from_pretrained(os.getenv("MODEL_ID", "gpt2"))\n' +
      'Trainer(model=m, args=TrainingArguments(output_dir="o")).train()\n';
    const r = runFiles({ '/s/t.sky.yaml': task, '/s/train.py': train }, '/s/t.sky.yaml');
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B');
  });

  it("SkyPilot's names: A100 is the 40 GB card, a map gives the count; a one-line plain run script is read too", () => {
    const a100 = TASK.replace('accelerators: H100:8', 'accelerators: {A100: 4}');
    assert.deepEqual([run(a100).setup?.gpu, run(a100).setup?.gpus_per_node], ['A100-40GB', 4]);
    const oneLine = TASK.replace(/run: \|[\s\S]*$/, 'run: python train.py --model_name_or_path Qwen/Qwen2.5-0.5B\n');
    assert.equal(run(oneLine).setup?.model, 'Qwen/Qwen2.5-0.5B');
  });

  it('quick fixes are written inside the run script, in its indentation; a change outside it is refused', () => {
    const file = { file: '/s/sft.sky.yaml', text: TASK } as unknown as FixFile;
    const r = taskScriptSet('run')(file, TASK, { path: ['per_device_train_batch_size'], value: 1 });
    assert.ok('text' in r, JSON.stringify(r));
    assert.match(r.text, /--per_device_train_batch_size 1 \\\n/);
    assert.equal(r.text.replace('--per_device_train_batch_size 1', '--per_device_train_batch_size $MICRO_BATCH'), TASK);
    const none = taskScriptSet('run')(file, 'run: [\n', { path: ['x'], value: 1 });
    assert.ok('reason' in none);
  });
});
