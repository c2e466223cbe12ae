// A Python script that trains by running a launch command (src/analyzers/hf-python/shell-out.ts): a driver's
// subprocess.run([...]) or os.system("...") read as the shell line it runs, located in the Python, with the config it
// writes first. moreWax/llmcompressor-axolotl_workflow's 03_finetune.py (an Axolotl config dict written with
// yaml.dump, then `accelerate launch ... -m axolotl.cli.train`) was "not a recognised training config".
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline, type FileReader } from '../../../src/analyzers/pipeline';
import { editsForChanges } from '../../../src/features/fixes';

const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p) => files[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

const DRIVER = [
  'import yaml, subprocess',
  'from pathlib import Path',
  'ROOT = Path("axolotl_run")',
  'yaml_path = ROOT / "finetune.yaml"',
  'cfg = {',
  '    "base_model": "meta-llama/Llama-3.1-8B",',
  '    "micro_batch_size": 2,',
  '    "gradient_accumulation_steps": 8,',
  '    "sequence_len": 4096,',
  '    "bf16": True,',
  '    "gradient_checkpointing": True,',
  '}',
  'yaml_path.write_text(yaml.dump(cfg))',
  'subprocess.run([',
  '    "accelerate", "launch",',
  '    "--num_processes", "4",',
  '    "-m", "axolotl.cli.train", str(yaml_path)',
  '])',
  '',
].join('\n');

describe('hf-python: a script that runs a launch command', () => {
  it('is a training file when a command it runs launches training; not for another command', () => {
    assert.equal(detectFormat('03_finetune.py', DRIVER), 'hf-python');
    const other = 'import subprocess\nsubprocess.run(["nvidia-smi", "-L"])\nprint("done")\n';
    assert.equal(detectFormat('check.py', other), undefined);
  });

  it('subprocess.run of a list: the launch line, its values located at the list items, the written config read', () => {
    const r = analyzeHfPython(DRIVER);
    assert.equal(r.launchesRun, true);
    // accelerate's --num_processes is the world size (its GPUs on one node).
    const gpus = r.facts.find((f) => f.key === 'worldSize');
    assert.equal(gpus?.value, 4);
    assert.equal(DRIVER.slice(gpus!.valueSpan.start, gpus!.valueSpan.end), '4');
    assert.equal(DRIVER.slice(gpus!.keySpan.start, gpus!.keySpan.end), '--num_processes');
    const config = r.references.find((x) => x.kind === 'config');
    assert.equal(config?.path, 'axolotl_run/finetune.yaml');
    assert.match(config?.text ?? '', /base_model: meta-llama\/Llama-3\.1-8B/);
    const run = runPipeline([{ file: '/w/03_finetune.py', text: DRIVER }], inMemory({}), {});
    assert.equal(run.setup?.gpus_per_node, 4);
    assert.equal(run.setup?.micro_batch_size, 2);
    assert.equal(run.setup?.gradient_accumulation_steps, 8);
    assert.equal(run.setup?.seq_len, 4096);
    assert.equal(run.setup?.gradient_checkpointing, 'full');
  });

  it("os.system of a command line: a Modal app's `accelerate launch -m axolotl.cli.train config.yml`", () => {
    const app = [
      'import os',
      '@app.run()',
      'def train_model():',
      '    os.system("accelerate launch --num_processes 2 -m axolotl.cli.train config.yml")',
      '',
    ].join('\n');
    assert.equal(detectFormat('modal_app.py', app), 'hf-python');
    const yaml = 'base_model: Qwen/Qwen2.5-7B\nmicro_batch_size: 1\nsequence_len: 2048\nadapter: lora\nlora_r: 16\n';
    const run = runPipeline([{ file: '/w/modal_app.py', text: app }], inMemory({ '/w/config.yml': yaml }), {});
    assert.equal(run.setup?.method, 'lora');
    assert.equal(run.setup?.gpus_per_node, 2);
    const model = run.decided.model;
    assert.equal(model?.file, '/w/config.yml');
    // The launch's flag is located where the Python string writes it.
    const at = run.decided.worldSize;
    assert.equal(at?.file, '/w/modal_app.py');
    assert.equal(at?.location.line, 4);
  });

  it('takes no quick fix: its words are Python expressions, not the shell line the fix would write', () => {
    const file = {
      file: '/w/03_finetune.py',
      text: DRIVER,
      format: 'hf-python' as const,
      facts: analyzeHfPython(DRIVER),
    };
    const plan = editsForChanges([{ key: 'gpus_per_node', value: 2 }], [file], file.file);
    assert.equal(plan.edits.length, 0);
    assert.match(plan.unsupported[0]?.reason ?? '', /runs its training as a command/);
  });

  it('a script that trains in its own code is read as such, whatever commands it runs besides', () => {
    const text = [
      'import subprocess',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'model = AutoModelForCausalLM.from_pretrained("gpt2")',
      'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=4)).train()',
      'subprocess.run(["accelerate", "launch", "eval.py"])',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.notEqual(r.launchesRun, true);
    assert.equal(r.facts.find((f) => f.key === 'microBatchSize')?.value, 4);
  });
});
