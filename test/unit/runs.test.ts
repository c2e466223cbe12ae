// The workspace index of runs (src/server/runs.ts): which entry file each file belongs to, built in the background,
// kept current as files change, and several runs told apart.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunIndex } from '../../src/server/runs';
import { runPipeline } from '../../src/analyzers/pipeline';
import { Workspace } from '../../src/server/workspace';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { pathToFileURL } from 'node:url';
import { tempDir } from './helpers';

function workspaceWith(files: Record<string, string>): { dir: string; workspace: Workspace } {
  const dir = tempDir('vram-lens-runs-');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const workspace = new Workspace(true, { HOME: '/nonexistent' });
  workspace.setFolders([dir]);
  return { dir, workspace };
}

async function built(index: RunIndex): Promise<void> {
  index.rebuild();
  for (let i = 0; i < 200 && !index.ready; i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(index.ready, 'the index finished');
}

describe('runs: the workspace index of which file runs which', () => {
  it('a launcher two folders up is the entry of the configs it names; the launcher is an entry of its own', async () => {
    const { dir, workspace } = workspaceWith({
      'scripts/launch.sh': 'accelerate launch --config_file ../configs/fsdp.yaml train.py --model_name_or_path gpt2\n',
      'configs/fsdp.yaml': 'distributed_type: FSDP\nnum_processes: 8\n',
      'configs/other.yaml': 'distributed_type: MULTI_GPU\nnum_processes: 2\n',
    });
    const index = new RunIndex(workspace, () => undefined);
    await built(index);
    assert.deepEqual(
      index.runsOf(path.join(dir, 'configs/fsdp.yaml')).map((r) => r.entry),
      [path.join(dir, 'scripts/launch.sh')],
    );
    assert.deepEqual(index.runsOf(path.join(dir, 'configs/other.yaml')), []);
    assert.deepEqual(index.runsOf(path.join(dir, 'scripts/launch.sh')), []);
  });

  it("a script the launcher runs and a file it sources belong to the launcher's run", async () => {
    const { dir, workspace } = workspaceWith({
      'run.sh': 'source env/vars.sh\nbash scripts/train.sh --model Qwen/Qwen2.5-0.5B\n',
      'env/vars.sh': 'export NPROC=2\n',
      'scripts/train.sh':
        'while [ $# -gt 0 ]; do case "$1" in --model) M="$2"; shift 2;; *) shift;; esac; done\n' +
        'torchrun --nproc_per_node $NPROC train.py --model_name_or_path $M\n',
    });
    const index = new RunIndex(workspace, () => undefined);
    await built(index);
    for (const f of ['env/vars.sh', 'scripts/train.sh'])
      assert.deepEqual(
        index.runsOf(path.join(dir, f)).map((r) => r.entry),
        [path.join(dir, 'run.sh')],
        f,
      );
  });

  it("RL2's config and its worker option belong to the example launching it from the repository root", async () => {
    const { dir, workspace } = workspaceWith({
      'examples/limo_sft.sh':
        'torchrun --nproc_per_node=4 -m RL2.trainer.sft actor.model_name=Qwen/Qwen2.5-7B-Instruct ' +
        'actor.max_length_per_device=4096\n',
      'RL2/trainer/config/sft.yaml': 'defaults:\n- _self_\n- actor: fsdp\n\ntrainer:\n  n_epochs: 1\n',
      'RL2/trainer/config/actor/fsdp.yaml': 'model_name: null\nmax_length_per_device: null\ndtype: bfloat16\n',
    });
    const index = new RunIndex(workspace, () => undefined);
    await built(index);
    for (const f of ['RL2/trainer/config/sft.yaml', 'RL2/trainer/config/actor/fsdp.yaml'])
      assert.deepEqual(
        index.runsOf(path.join(dir, f)).map((r) => r.entry),
        [path.join(dir, 'examples/limo_sft.sh')],
        f,
      );
  });

  it("a project module a script imports (settings, a dataclass config) belongs to the script's run", async () => {
    // The script imports constants from settings.py and a config class from configs/train_config.py (read through the
    // folders above the script, as the pipeline finds them); utils.py, which nothing imports, is in no run.
    const { dir, workspace } = workspaceWith({
      'launch.sh': 'torchrun --nproc_per_node 2 src/train.py\n',
      'settings.py': 'MODEL_NAME = "Qwen/Qwen2.5-0.5B"\n',
      'configs/train_config.py': 'class TrainConfig:\n    batch_size = 4\n',
      'utils.py': 'def seed():\n    return 0\n',
      'src/train.py':
        'from settings import MODEL_NAME\n' +
        'from configs.train_config import TrainConfig\n' +
        'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
        'model = AutoModelForCausalLM.from_pretrained(MODEL_NAME)\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=TrainConfig.batch_size)).train()\n',
    });
    const index = new RunIndex(workspace, () => undefined);
    await built(index);
    for (const f of ['settings.py', 'configs/train_config.py', 'src/train.py'])
      assert.deepEqual(
        index.runsOf(path.join(dir, f)).map((r) => r.entry),
        [path.join(dir, 'launch.sh')],
        f,
      );
    assert.deepEqual(index.runsOf(path.join(dir, 'utils.py')), []);
  });

  it('two launchers of one DeepSpeed config: two runs, the first by path unless the user chose', async () => {
    const { dir, workspace } = workspaceWith({
      'a.sh': 'deepspeed train.py --model_name_or_path gpt2 --deepspeed ds.json --per_device_train_batch_size 2\n',
      'b.sh': 'deepspeed train.py --model_name_or_path gpt2-large --deepspeed ds.json\n',
      'ds.json': '{"zero_optimization": {"stage": 2}}\n',
    });
    const index = new RunIndex(workspace, () => undefined);
    await built(index);
    const ds = path.join(dir, 'ds.json');
    assert.deepEqual(
      index.runsOf(ds).map((r) => path.basename(r.entry)),
      ['a.sh', 'b.sh'],
    );
    assert.equal(path.basename(index.runFor(ds)!.entry), 'a.sh');
    index.choose(ds, path.join(dir, 'b.sh'));
    assert.equal(path.basename(index.runFor(ds)!.entry), 'b.sh');
    assert.match(index.runFor(ds)!.inputs[0].text, /gpt2-large/);
  });

  it('a changed launcher moves the run: the index follows the edit and says so', async () => {
    const { dir, workspace } = workspaceWith({
      'run.sh': 'deepspeed train.py --model_name_or_path gpt2 --deepspeed ds_z2.json\n',
      'ds_z2.json': '{"zero_optimization": {"stage": 2}}\n',
      'ds_z3.json': '{"zero_optimization": {"stage": 3}}\n',
    });
    let changes = 0;
    const index = new RunIndex(workspace, () => changes++);
    await built(index);
    const before = changes;
    fs.writeFileSync(path.join(dir, 'run.sh'), 'deepspeed train.py --model_name_or_path gpt2 --deepspeed ds_z3.json\n');
    index.update(path.join(dir, 'run.sh'));
    assert.equal(changes, before + 1);
    assert.deepEqual(index.runsOf(path.join(dir, 'ds_z2.json')), []);
    assert.deepEqual(
      index.runsOf(path.join(dir, 'ds_z3.json')).map((r) => path.basename(r.entry)),
      ['run.sh'],
    );
  });

  it("the module `python -m` runs from a src layout belongs to the launcher's run", async () => {
    const { dir, workspace } = workspaceWith({
      'scripts/train.sh': 'python -m pkg.train --config configs/c.yaml\n',
      'src/pkg/train.py': 'from transformers import Trainer\nTrainer().train()\n',
      'configs/c.yaml': 'model: gpt2\n',
    });
    const index = new RunIndex(workspace, () => undefined);
    await built(index);
    assert.deepEqual(
      index.runsOf(path.join(dir, 'src/pkg/train.py')).map((r) => r.entry),
      [path.join(dir, 'scripts/train.sh')],
    );
  });

  it('a project YAML no file names belongs to the run of the script whose --config takes files beside it', async () => {
    // Sunshine535/nips-grpo-dynamics (abridged): scripts/run_grpo.py's --config defaults to configs/minimal.yaml;
    // configs/grpo_9b.yaml is named by no file. Its run is the script given it as --config, until the script changes.
    const script =
      'import argparse, yaml\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      'ap = argparse.ArgumentParser()\nap.add_argument("--config", default="configs/minimal.yaml")\n' +
      'args = ap.parse_args()\ncfg = yaml.safe_load(open(args.config))\n' +
      'model = AutoModelForCausalLM.from_pretrained(cfg["model"])\n' +
      'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=cfg["batch"])).train()\n';
    const { dir, workspace } = workspaceWith({
      'configs/minimal.yaml': 'model: Qwen/Qwen2.5-0.5B\nbatch: 2\n',
      'configs/grpo_9b.yaml': 'model: Qwen/Qwen2.5-7B\nbatch: 3\n',
      'scripts/run_grpo.py': script,
    });
    const index = new RunIndex(workspace, () => undefined);
    await built(index);
    const yaml = path.join(dir, 'configs/grpo_9b.yaml');
    const [run] = index.runsOf(yaml);
    assert.equal(run?.entry, path.join(dir, 'scripts/run_grpo.py'));
    assert.deepEqual(
      run.inputs[0].args?.map((a) => [a.name, a.value]),
      [['config', 'configs/grpo_9b.yaml']],
    );
    const r = runPipeline(
      [...run.inputs, { file: yaml, text: fs.readFileSync(yaml, 'utf8') }],
      workspace.reader(dir),
      {},
    );
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['Qwen/Qwen2.5-7B', 3]);
    // The script no longer takes --config: the YAML has no run.
    const changed = path.join(dir, 'scripts/run_grpo.py');
    workspace.setOpen(TextDocument.create(pathToFileURL(changed).href, 'python', 2, 'print("hello")\n'));
    index.update(changed);
    assert.deepEqual(index.runsOf(yaml), []);
  });

  it('a data file a script loads is read inside the folder only, open in the editor or not', () => {
    // An open document above the folder (`../../secrets.yaml` from scripts/) is not handed to a script's loader.
    const { dir, workspace } = workspaceWith({ 'project/scripts/train.py': 'import yaml\n' });
    const outside = path.join(dir, 'secrets.yaml');
    const inside = path.join(dir, 'project', 'configs', 'c.yaml');
    for (const [file, text] of [
      [outside, 'token: hf_abc\n'],
      [inside, 'model: gpt2\n'],
    ])
      workspace.setOpen(TextDocument.create(pathToFileURL(file).href, 'yaml', 1, text));
    const reader = workspace.reader(path.join(dir, 'project'));
    assert.equal(reader.read(outside, 'project-data'), undefined);
    assert.equal(reader.read(inside, 'project-data'), 'model: gpt2\n');
    // As a config a launcher names, a file above the folder is read as before.
    assert.equal(reader.read(outside), 'token: hf_abc\n');
  });
});
