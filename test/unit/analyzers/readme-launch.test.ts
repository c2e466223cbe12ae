// A launch script that takes its values as positional parameters, given alone, run by the command a README.md shows
// for it (collect/readme-shell.ts; princeton-nlp/LESS's root README runs
// `./less/scripts/train/warmup_lora_train.sh "$DATA_DIR" "$MODEL_PATH" ...` after setting the variables in its code
// block). Each expected value is written in the test's own files.
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

describe("shell: a README's command as the launch line of a script that takes positional parameters", () => {
  it("the root README's command, with the variables its code block sets, gives $2: the model, located there", () => {
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
});
