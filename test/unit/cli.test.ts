// The CLI contract of DESIGN.md: flags, --json fields, exit codes 0/1/2, and messages that name the file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../src/cli/main';
import { SCRIPT_WITH_MAIN, tempDir } from './helpers';

const repo = path.resolve(__dirname, '..', '..', '..');
const isolatedEnv = {
  HOME: os.tmpdir(),
  HF_HUB_CACHE: path.join(os.tmpdir(), 'vram-lens-no-cache'),
  XDG_CACHE_HOME: path.join(os.tmpdir(), 'vram-lens-no-cache'),
};
/** The CLI run in a folder (the repository's by default), with what it printed. */
async function cliIn(cwd: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, {
    out: (s) => (out += `${s}\n`),
    err: (s) => (err += `${s}\n`),
    cwd,
    env: isolatedEnv,
  });
  return { code, out, err };
}
const cli = (...args: string[]): ReturnType<typeof cliIn> => cliIn(repo, ...args);

/** A temporary project folder with these files (paths relative to it). */
function projectWith(files: Record<string, string>): string {
  const dir = tempDir('vram-lens-cli-');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('cli: vram-lens estimate', async () => {
  it('prints the breakdown of the bundled example and exits 0', async () => {
    const r = await cli('estimate', 'examples/llama2-7b-lora.vram.yaml');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /peak allocated/);
    assert.match(r.out, /RTX-4090: .* FITS/);
    assert.match(r.out, /assumptions \(not in your files\)/);
  });

  it("reads the data files a script loads inside the given file's project, run from another folder", async () => {
    // liucongg/ChatGLM-Finetuning's train.py: `with open(args.ds_file) as fh: ds_config = json.load(fh)`, the file named
    // on the launch line beside it; run as `vram-lens estimate ../LC/train.sh` from elsewhere it had been refused.
    const dir = projectWith({
      'train.sh': 'deepspeed --num_gpus 4 train.py --ds_file ds.json\n',
      'ds.json': '{"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3}, "bf16": {"enabled": true}}',
      'train.py':
        'import argparse, json, deepspeed\nfrom transformers import AutoModelForCausalLM\n' +
        'p = argparse.ArgumentParser()\np.add_argument("--ds_file", type=str, default="none.json")\nargs = p.parse_args()\n' +
        'with open(args.ds_file, "r", encoding="utf-8") as fh:\n    ds_config = json.load(fh)\n' +
        'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
        'model, optimizer, _, _ = deepspeed.initialize(model=model, config=ds_config)\n' +
        'for batch in loader:\n    loss = model(**batch).loss\n    model.backward(loss)\n    model.step()\n',
    });
    const elsewhere = tempDir('vram-lens-cwd-');
    const r = await cliIn(elsewhere, 'estimate', path.join(dir, 'train.sh'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /ZeRO-3 gathered parameters/);
    assert.doesNotMatch(r.err, /not known statically/);
  });

  it("a launcher's config that its script loads as data is read once, given by a relative path", async () => {
    // ZIYUANLI-star/TriUTest's scripts/run_sft.sh: `ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"` and
    // `-m src.train_sft --config $ROOT_DIR/configs/sft.yaml`; the script takes base_model and training.micro_batch_size
    // from the YAML. Found from a folder above, the script's data had come back as an absolute path and the launcher's
    // config as a relative one: the YAML was read twice, the second time as an Axolotl config (seq_len 512 "default
    // of axolotl", micro_batch_size refused).
    const dir = projectWith({
      'scripts/run_sft.sh':
        '#!/usr/bin/env bash\nROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"\n' +
        'accelerate launch --num_processes 1 -m src.train_sft --config $ROOT_DIR/configs/sft.yaml\n',
      'configs/sft.yaml':
        'base_model: "Qwen/Qwen2.5-0.5B"\nlora:\n  r: 16\ntraining:\n  micro_batch_size: 2\n  bf16: true\n',
      'src/__init__.py': '',
      'src/train_sft.py':
        'import argparse, yaml\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
        'from peft import LoraConfig, get_peft_model\n' +
        'p = argparse.ArgumentParser()\np.add_argument("--config", type=str, required=True)\nargs = p.parse_args()\n' +
        'with open(args.config) as f:\n    cfg = yaml.safe_load(f)\n' +
        'model = AutoModelForCausalLM.from_pretrained(cfg["base_model"])\n' +
        'model = get_peft_model(model, LoraConfig(r=cfg["lora"]["r"], target_modules=["q_proj", "v_proj"]))\n' +
        'targs = TrainingArguments(output_dir="out", per_device_train_batch_size=cfg["training"]["micro_batch_size"],\n' +
        '    bf16=cfg["training"]["bf16"])\nTrainer(model=model, args=targs, train_dataset=ds).train()\n',
    });
    const r = await cliIn(dir, 'estimate', 'scripts/run_sft.sh', '--json');
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /Axolotl/);
    const j = JSON.parse(r.out) as { assumptions: { key: string; source: string }[] };
    assert.doesNotMatch(j.assumptions.find((a) => a.key === 'seq_len')?.source ?? '', /axolotl/i);
  });

  it('a file with an estimate of its own that a launcher runs is read as that run, as the editor shows it', async () => {
    // fengyuli-dev/cs229-project: a torchtune config whose header copies torchtune's `tune run --nproc_per_node 4 ...`
    // usage line, which cs229/scripts/train.sh runs on one GPU with a batch override; a script with defaults of its own
    // that a launch line runs with flags. The file's own run stands where no launcher's run trains.
    const dir = tempDir('vram-lens-cli-');
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(
      path.join(dir, 'train.py'),
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
        'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=8)).train()\n',
    );
    let out = '';
    let err = '';
    const io = { out: (t: string) => (out += `${t}\n`), err: (t: string) => (err += `${t}\n`), env: isolatedEnv };
    assert.equal(await run(['estimate', 'train.py', '--json'], { ...io, cwd: dir }), 0, err);
    assert.equal((JSON.parse(out) as { layout: { world: number } }).layout.world, 1);
    assert.equal(err, '');
    fs.writeFileSync(path.join(dir, 'scripts', 'run.sh'), 'torchrun --nproc_per_node 4 train.py\n');
    out = '';
    assert.equal(await run(['estimate', 'train.py', '--json'], { ...io, cwd: dir }), 0, err);
    assert.match(err, /train\.py is part of a run; read as the run of scripts\/run\.sh, which runs it/);
    assert.equal((JSON.parse(out) as { layout: { world: number } }).layout.world, 4);
    // A file that only names it, without running it, leaves the file's own run.
    fs.writeFileSync(path.join(dir, 'scripts', 'run.sh'), 'echo train.py\n');
    out = '';
    err = '';
    assert.equal(await run(['estimate', 'train.py', '--json'], { ...io, cwd: dir }), 0, err);
    assert.equal((JSON.parse(out) as { layout: { world: number } }).layout.world, 1);
  });

  it('a project module opened alone (a settings module, a dataclass config) is read as the run of the script that imports it', async () => {
    // The shapes of nested and flat Python configs that training scripts import (`from settings import MODEL_NAME`,
    // `from config import Config` then `config.training.x`): the module names no run alone. Written for this test.
    const dir = projectWith({
      'settings.py': 'MODEL_NAME = "Qwen/Qwen2.5-0.5B"\nBATCH_SIZE = 3\n',
      'train.py':
        'from settings import MODEL_NAME, BATCH_SIZE\n' +
        'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
        'model = AutoModelForCausalLM.from_pretrained(MODEL_NAME)\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=BATCH_SIZE)).train()\n',
      'pkg/config.py':
        'from dataclasses import dataclass, field\n' +
        '@dataclass\nclass TrainConfig:\n    batch_size: int = 5\n' +
        '@dataclass\nclass Config:\n    model_name: str = "Qwen/Qwen2.5-0.5B"\n' +
        '    training: TrainConfig = field(default_factory=TrainConfig)\n',
      'pkg/run.py':
        'from pkg.config import Config\n' +
        'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
        'config = Config()\n' +
        'model = AutoModelForCausalLM.from_pretrained(config.model_name)\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=config.training.batch_size)).train()\n',
    });
    const flat = await cliIn(dir, 'estimate', 'settings.py', '--json');
    assert.equal(flat.code, 0, flat.err);
    assert.match(flat.err, /settings\.py gives no estimate alone; read as the run of train\.py, which imports it/);
    assert.equal((JSON.parse(flat.out) as { layout: { globalBatch: number } }).layout.globalBatch, 3);
    const nested = await cliIn(dir, 'estimate', 'pkg/config.py', '--json');
    assert.equal(nested.code, 0, nested.err);
    assert.match(
      nested.err,
      /pkg\/config\.py gives no estimate alone; read as the run of pkg\/run\.py, which imports it/,
    );
    assert.equal((JSON.parse(nested.out) as { layout: { globalBatch: number } }).layout.globalBatch, 5);
  });

  it('a script with its own main block stays its own run where another script only imports its helpers', async () => {
    // HaoranLuo/text2sql-grpo: train_grpo_finer_full.py imports train_reasoning_grpo's helpers (`import
    // train_reasoning_grpo as base; from train_reasoning_grpo import (...)`) beside a GRPO trainer of its own, and
    // never calls its main(); LLaVA's train_mem.py does call the train() its train.py's main block calls.
    const own = SCRIPT_WITH_MAIN;
    const importer =
      'import train as base\nfrom train import build\n' +
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
      'def main():\n' +
      '    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
      '    Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=16)).train()\n' +
      'if __name__ == "__main__":\n    main()\n';
    const dir = projectWith({ 'train.py': own, 'train_full.py': importer });
    try {
      const r = await cliIn(dir, 'estimate', 'train.py', '--json');
      assert.equal(r.code, 0, r.err);
      assert.doesNotMatch(r.err, /read as the run of/);
      // Its own per_device_train_batch_size 2 on one GPU, not the importer's 16.
      assert.equal((JSON.parse(r.out) as { layout: { globalBatch: number } }).layout.globalBatch, 2);
      // An importer that calls the function the main block calls runs it: its run is the file's.
      fs.writeFileSync(
        path.join(dir, 'train_full.py'),
        importer.replace('    model = ', '    base.main()\n    model = '),
      );
      const called = await cliIn(dir, 'estimate', 'train.py');
      assert.match(called.err, /train\.py is part of a run; read as the run of train_full\.py, which imports it/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('one file that names no model alone is read as the run of the file that launches it', async () => {
    // A TrlParser script whose model comes from the launch line (sdiehl/tiny-r1's train_trl.py and accelerate.sh).
    const dir = tempDir('vram-lens-cli-');
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(
      path.join(dir, 'train.py'),
      'from trl import SFTConfig, SFTTrainer, ModelConfig, TrlParser\n' +
        'args, model_args = TrlParser((SFTConfig, ModelConfig)).parse_args_and_config()\n' +
        'SFTTrainer(model=model_args.model_name_or_path, args=args).train()\n',
    );
    fs.writeFileSync(
      path.join(dir, 'scripts', 'run.sh'),
      'torchrun --nproc_per_node 2 train.py --model_name_or_path Qwen/Qwen2.5-0.5B --per_device_train_batch_size 4\n',
    );
    let out = '';
    let err = '';
    const io = { out: (t: string) => (out += `${t}\n`), err: (t: string) => (err += `${t}\n`), env: isolatedEnv };
    const code = await run(['estimate', 'train.py', '--json'], { ...io, cwd: dir });
    assert.equal(code, 0, err);
    assert.match(err, /train\.py gives no estimate alone; read as the run of scripts\/run\.sh, which runs it/);
    const j = JSON.parse(out) as { model: string; layout: { world: number } };
    assert.equal(j.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(j.layout.world, 2);
    // A notebook whose shell line runs a script of the run is a launcher too; a file detection does not know alone is
    // read with it.
    fs.writeFileSync(path.join(dir, 'entry.py'), 'import torch\n');
    fs.writeFileSync(
      path.join(dir, 'scripts', 'go.ipynb'),
      JSON.stringify({
        cells: [{ cell_type: 'code', source: ['!torchrun --nproc_per_node 4 entry.py --model_name_or_path gpt2\n'] }],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      }),
    );
    out = '';
    err = '';
    assert.equal(await run(['estimate', 'entry.py', '--json'], { ...io, cwd: dir }), 0, err);
    assert.match(err, /entry\.py gives no estimate alone; read as the run of scripts\/go\.ipynb/);
    assert.equal((JSON.parse(out) as { layout: { world: number } }).layout.world, 4);
    // With no launcher, the file's own refusal stands.
    fs.rmSync(path.join(dir, 'scripts'), { recursive: true });
    err = '';
    assert.equal(await run(['estimate', 'train.py'], { ...io, cwd: dir }), 2);
    assert.match(err, /error/);
    // A YAML a script loads whose model is not known offline (skotnkat/llm_sft_rl: run_sft.py loads sft_config.yaml,
    // a Granite 4.0 model not in the catalog): the run's refusal at the YAML's key, not "not a recognised config".
    fs.writeFileSync(
      path.join(dir, 'run_sft.py'),
      'import yaml\nfrom trl import SFTConfig, SFTTrainer\n' +
        'with open("sft_config.yaml") as f:\n    cfg = yaml.safe_load(f)\n' +
        'SFTTrainer(model=cfg["model_name"], args=SFTConfig(**cfg["training"])).train()\n',
    );
    fs.writeFileSync(path.join(dir, 'sft_config.yaml'), 'model_name: org/not-in-catalog\ntraining:\n  bf16: true\n');
    err = '';
    assert.equal(await run(['estimate', 'sft_config.yaml'], { ...io, cwd: dir }), 2);
    assert.match(err, /sft_config\.yaml is not a config alone; read as the run of run_sft\.py, which reads it/);
    assert.match(err, /sft_config\.yaml:1:13: error \[model\]: unknown model 'org\/not-in-catalog'/);
    // A YAML the script loads through a loader function of its project's modules (Gabriel-Hong/qlora-function-calling:
    // scripts/03_train_qlora.py, `from src.data_utils import load_yaml_config`): the run is found from the YAML too.
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(
      path.join(dir, 'src', 'data_utils.py'),
      'import yaml\ndef load_yaml_config(path):\n    with open(path) as f:\n        return yaml.safe_load(f)\n',
    );
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.writeFileSync(
      path.join(dir, 'scripts', 'train_qlora.py'),
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
        'from src.data_utils import load_yaml_config\ncfg = load_yaml_config("config/model_config.yaml")\n' +
        'model = AutoModelForCausalLM.from_pretrained(cfg["model"]["name"])\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()\n',
    );
    fs.mkdirSync(path.join(dir, 'config'));
    fs.writeFileSync(path.join(dir, 'config', 'model_config.yaml'), 'model:\n  name: Qwen/Qwen2.5-1.5B-Instruct\n');
    err = '';
    assert.equal(await run(['estimate', 'config/model_config.yaml'], { ...io, cwd: dir }), 0);
    assert.match(
      err,
      /model_config\.yaml is not a config alone; read as the run of scripts\/train_qlora\.py, which reads it/,
    );
  });

  it('a YAML several scripts load is read as the run of the one that trains, through the modules it passes it to', async () => {
    // nasim-raj-laskar/QwenDrive-QLoRA: train.py loads configs/{model,lora,training}.yaml with one loader function
    // and passes them to src/pipeline.py's run_training_pipeline, which passes them on to src/model.py's load_model and
    // src/trainer.py's build_trainer (train_cfg["training"]); health/eval.py loads training.yaml too and trains nothing.
    const files: Record<string, string> = {
      'configs/model.yaml': 'model_name: Qwen/Qwen2.5-3B-Instruct\n',
      'configs/training.yaml':
        'training:\n  per_device_train_batch_size: 2\n  gradient_accumulation_steps: 4\n  max_seq_length: 512\n',
      'health/eval.py':
        'import yaml\nfrom unsloth import FastLanguageModel\n' +
        'cfg = yaml.safe_load(open("configs/training.yaml"))\n' +
        'model, tok = FastLanguageModel.from_pretrained(model_name="Qwen/Qwen2.5-0.5B-Instruct",\n' +
        '    max_seq_length=cfg["training"]["max_seq_length"])\n',
      'train.py':
        'import yaml\nfrom src.pipeline import run_training_pipeline\n' +
        'def load_config(path):\n    with open(path) as f:\n        return yaml.safe_load(f)\n' +
        'def main():\n    model_cfg = load_config("configs/model.yaml")\n' +
        '    train_cfg = load_config("configs/training.yaml")\n    run_training_pipeline(model_cfg, train_cfg)\n' +
        'if __name__ == "__main__":\n    main()\n',
      'src/pipeline.py':
        'from src.model import load_model\nfrom src.trainer import build_trainer\n' +
        'def run_training_pipeline(model_cfg, train_cfg):\n    model = load_model(model_cfg)\n' +
        '    trainer = build_trainer(model, train_cfg["training"])\n    trainer.train()\n',
      'src/model.py':
        'from transformers import AutoModelForCausalLM\n' +
        'def load_model(model_cfg):\n    return AutoModelForCausalLM.from_pretrained(model_cfg["model_name"])\n',
      'src/trainer.py':
        'from transformers import Trainer, TrainingArguments\ndef build_trainer(model, training_cfg):\n' +
        '    args = TrainingArguments(output_dir="o",\n' +
        '        per_device_train_batch_size=training_cfg.get("per_device_train_batch_size", 4),\n' +
        '        gradient_accumulation_steps=training_cfg["gradient_accumulation_steps"])\n' +
        '    return Trainer(model=model, args=args)\n',
    };
    const { code, out, err } = await cliIn(projectWith(files), 'estimate', 'configs/training.yaml');
    assert.equal(code, 0, err);
    assert.match(err, /training\.yaml is not a config alone; read as the run of train\.py, which reads it \(1 other/);
    // The model from model.yaml through two modules; the batch 2 x accumulation 4 from training.yaml's `training`.
    assert.match(out, /^VRAM Lens: Qwen\/Qwen2\.5-3B-Instruct \(1 GPU, data parallel 1, global batch 8\)/);
    assert.doesNotMatch(out, /micro_batch_size = /);
  });

  it("a YAML no file names but a script's own usage line is read as that script's run", async () => {
    // baremetaldevx86/Qwen-2.5-1.5B-GRPO: scripts/run_grpo.py requires --config, and its docstring shows
    // `python scripts/run_grpo.py --config configs/grpo.yaml`; configs/grpo.yaml alone is a project YAML.
    const files: Record<string, string> = {
      'configs/grpo.yaml': 'model_path: Qwen/Qwen2.5-1.5B\nper_device_train_batch_size: 4\n',
      'scripts/run_grpo.py':
        '"""Usage:\n    python scripts/run_grpo.py --config configs/grpo.yaml\n"""\n' +
        'import argparse, yaml\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
        'ap = argparse.ArgumentParser()\nap.add_argument("--config", required=True)\nargs = ap.parse_args()\n' +
        'cfg = yaml.safe_load(open(args.config))\n' +
        'model = AutoModelForCausalLM.from_pretrained(cfg["model_path"])\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o",\n' +
        '    per_device_train_batch_size=cfg["per_device_train_batch_size"])).train()\n',
    };
    const { code, out, err } = await cliIn(projectWith(files), 'estimate', 'configs/grpo.yaml');
    assert.equal(code, 0, err);
    assert.match(
      err,
      /configs\/grpo\.yaml gives no estimate alone; read as the run of scripts\/run_grpo\.py, which runs it/,
    );
    assert.match(out, /^VRAM Lens: Qwen\/Qwen2\.5-1\.5B \(1 GPU, data parallel 1, global batch 4\)/);
  });

  it("a project's own config no file reads is read by its names, said on stderr; a script that reads it wins", async () => {
    // The layout of shreyashreddyk/json-extraction-qlora-dpo's configs/sft.yaml (abridged), which its script reads
    // through a config class the reader does not follow.
    const yaml =
      'model:\n  model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct\nlora:\n  r: 16\n  alpha: 32\n' +
      'training:\n  batch_size: 2\n  gradient_accumulation_steps: 8\n';
    const alone = await cliIn(projectWith({ 'configs/sft.yaml': yaml }), 'estimate', 'configs/sft.yaml');
    assert.equal(alone.code, 0, alone.err);
    assert.match(alone.err, /configs\/sft\.yaml:2:3: info: read as a project's own config, by the names of its keys: /);
    assert.match(alone.err, /training\.batch_size as per_device_train_batch_size/);
    assert.match(alone.out, /^VRAM Lens: Qwen\/Qwen2\.5-1\.5B-Instruct \(1 GPU, data parallel 1, global batch 16\)/);
    // A script that loads it and reads its batch from another key: the script's reading is the run.
    const script =
      'import yaml\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      'cfg = yaml.safe_load(open("configs/sft.yaml"))\n' +
      'model = AutoModelForCausalLM.from_pretrained(cfg["model"]["model_name_or_path"])\n' +
      'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=4)).train()\n';
    const read = await cliIn(
      projectWith({ 'configs/sft.yaml': yaml, 'train.py': script }),
      'estimate',
      'configs/sft.yaml',
    );
    assert.equal(read.code, 0, read.err);
    assert.match(read.err, /configs\/sft\.yaml is not a config alone; read as the run of train\.py, which reads it/);
    assert.match(read.out, /^VRAM Lens: Qwen\/Qwen2\.5-1\.5B-Instruct \(1 GPU, data parallel 1, global batch 4\)/);
  });

  it("a project's own config that only a script training nothing reads (a merge) is read by its names", async () => {
    // DimensionSTP/llm-fine-tune-hf: configs/sft.yaml is read by name; src/postprocessing/merge_lora.py loads the model
    // it names to merge an adapter and trains nothing, and was taken for the run (a full fine-tune at the Trainer's
    // default batch of 8).
    const yaml =
      'model:\n  model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct\nlora:\n  r: 16\n' +
      'training:\n  batch_size: 2\n  gradient_accumulation_steps: 8\n';
    const merge =
      'import yaml\nfrom transformers import AutoModelForCausalLM\n' +
      'cfg = yaml.safe_load(open("configs/sft.yaml"))\n' +
      'model = AutoModelForCausalLM.from_pretrained(cfg["model"]["model_name_or_path"])\n' +
      'model.save_pretrained("merged")\n';
    const r = await cliIn(projectWith({ 'configs/sft.yaml': yaml, 'merge.py': merge }), 'estimate', 'configs/sft.yaml');
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /read as the run of merge\.py/);
    assert.match(r.out, /^VRAM Lens: Qwen\/Qwen2\.5-1\.5B-Instruct \(1 GPU, data parallel 1, global batch 16\)/);
  });

  describe('a YAML that no file names, read by the script that takes configs like it', () => {
    // Sunshine535/nips-grpo-dynamics: scripts/run_sage_grpo.py's --config defaults to configs/sage_grpo_minimal.yaml;
    // configs/grpo_9b.yaml beside it is named by no file. TheSleepGod/RL: sft/train_sft_lora.py requires --config
    // and scripts/sft_run_accelerate.sh passes it `CFG=${1:-configs/sft_qwen2_7b.yaml}`. Abridged.
    const script = (option: string) =>
      'import argparse, yaml\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      `ap = argparse.ArgumentParser()\nap.add_argument("--config", ${option})\nargs = ap.parse_args()\n` +
      'cfg = yaml.safe_load(open(args.config))\n' +
      'model = AutoModelForCausalLM.from_pretrained(cfg["model"])\n' +
      'Trainer(model=model, args=TrainingArguments(output_dir="o",\n' +
      '    per_device_train_batch_size=cfg["batch"])).train()\n';
    const yaml = (model: string, batch: number) => `model: ${model}\nbatch: ${batch}\n`;

    it('the script whose --config default is a file beside it, given the YAML as its --config', async () => {
      const files: Record<string, string> = {
        'configs/minimal.yaml': yaml('Qwen/Qwen2.5-0.5B', 2),
        'configs/grpo_9b.yaml': yaml('Qwen/Qwen2.5-7B', 3),
        'scripts/run_grpo.py': script('default="configs/minimal.yaml"'),
        // An evaluation script that takes configs the same way is not the run.
        'scripts/eval_grpo.py': script('default="configs/minimal.yaml"'),
      };
      const { code, out, err } = await cliIn(projectWith(files), 'estimate', 'configs/grpo_9b.yaml');
      assert.equal(code, 0, err);
      assert.ok(
        err.includes(
          'configs/grpo_9b.yaml is not a config alone and no file of the project names it; read as the run of ' +
            'scripts/run_grpo.py --config configs/grpo_9b.yaml (its --config reads configs/minimal.yaml, a file beside it)',
        ),
        err,
      );
      assert.match(out, /^VRAM Lens: Qwen\/Qwen2\.5-7B \(1 GPU, data parallel 1, global batch 3\)/);
    });

    it("a launcher that passes the script its first argument runs it, with the launcher's GPUs", async () => {
      const files: Record<string, string> = {
        'configs/sft_llama3_8b.yaml': yaml('meta-llama/Meta-Llama-3-8B', 2),
        'sft/train_sft_lora.py': script('required=True'),
        'scripts/run.sh':
          'CFG=${1:-configs/sft_qwen2_7b.yaml}\ntorchrun --nproc_per_node 4 sft/train_sft_lora.py --config "$CFG"\n',
      };
      const { code, out, err } = await cliIn(projectWith(files), 'estimate', 'configs/sft_llama3_8b.yaml');
      assert.equal(code, 0, err);
      assert.ok(
        err.includes(
          'read as the run of scripts/run.sh configs/sft_llama3_8b.yaml, which runs sft/train_sft_lora.py with it ' +
            '(its --config has no value without a launch line)',
        ),
        err,
      );
      assert.match(out, /^VRAM Lens: meta-llama\/Meta-Llama-3-8B \(4 GPUs, data parallel 4, global batch 8\)/);
    });

    it('a script whose --config names a file in another folder is not offered', async () => {
      const files: Record<string, string> = {
        'configs/a.yaml': yaml('Qwen/Qwen2.5-0.5B', 2),
        'other/b.yaml': yaml('Qwen/Qwen2.5-7B', 3),
        'train.py': script('default="configs/a.yaml"'),
      };
      const { code, err } = await cliIn(projectWith(files), 'estimate', 'other/b.yaml');
      assert.equal(code, 2);
      assert.match(err, /not a recognised training config/);
    });
  });

  it('a setup the estimator refuses: exit 2 and the reason at the file and line that set it', async () => {
    const dir = tempDir('vram-lens-cli-');
    const file = path.join(dir, 'grpo.vram.yaml');
    fs.writeFileSync(file, 'model: Qwen/Qwen2.5-0.5B\nseq_len: 512\nrollout:\n  batch: 8\n  completion_len: 600\n');
    const r = await cli('estimate', file);
    assert.equal(r.code, 2);
    assert.ok(
      r.err.includes(
        `${file}:3: error [rollout.completion_len]: completion_len (600) must be shorter than seq_len (512)`,
      ),
      r.err,
    );
  });

  it('the GRPO example: a generation phase beside the training phases, and the rollout in the assumptions', async () => {
    const r = await cli('estimate', 'examples/qwen2.5-7b-grpo-lora.vram.yaml', '--json');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    const gen = j.perGpu.phases.find((p: { phase: string }) => p.phase === 'generation');
    // 32 x 1,536 tokens of Qwen2.5-7B keys and values (57,344 B per token) at the end of decoding.
    assert.ok(gen && gen.allocatedBytes > 32 * 1536 * 57_344);
    assert.ok(j.fits);
  });

  it('the long-context MoE example: context and expert parallelism in the layout, 8,192 tokens per GPU', async () => {
    const r = await cli('estimate', 'examples/moonlight-16b-long-context.vram.yaml', '--json');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(
      [j.layout.world, j.layout.contextParallel, j.layout.expertParallel, j.layout.dataParallel, j.layout.shardGroup],
      [8, 4, 2, 2, 8],
    );
    // Checkpointed layer inputs: 27 layers x 1 x (32,768 / 4) tokens x 2048 x 2 B.
    const act = j.perGpu.components.find((c: { id: string }) => c.id === 'activations');
    assert.equal(act.bytes, 27 * 8192 * 2048 * 2);
    assert.ok(j.fits);
  });

  it('--json prints the contract fields', async () => {
    const r = await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--json');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    for (const k of ['peakBytes', 'reservedBytes', 'deviceBytes', 'phase', 'components']) assert.ok(k in j.perGpu, k);
    assert.ok(
      j.perGpu.components.every(
        (c: { id: string; label: string; bytes: number }) =>
          typeof c.id === 'string' && typeof c.label === 'string' && Number.isInteger(c.bytes),
      ),
    );
    assert.equal(typeof j.cpuBytes, 'number');
    assert.equal(typeof j.gpu.memoryBytes, 'number');
    assert.equal(typeof j.fits, 'boolean');
    assert.ok(
      j.assumptions.every(
        (a: { key: string; value: string; source: string }) => a.key && a.value !== undefined && a.source,
      ),
    );
    assert.ok(j.perGpu.deviceBytes >= j.perGpu.reservedBytes && j.perGpu.reservedBytes >= j.perGpu.peakBytes);
  });

  it('variable-length batches: --json perGpu.variableLengths (two sets of loss tensors, 2 x 12·T·V) and a line in the table', async () => {
    // Llama-2-7B, T = 1 x 1024 tokens, vocab 32,000, bf16 logits + full fp32 cross-entropy: 12 x 1024 x 32000 B a set,
    // two sets cached (tools/allocator/README.md).
    const dir = tempDir('vram-lens-cli-');
    const file = path.join(dir, 'padded.vram.yaml');
    fs.writeFileSync(
      file,
      'model: meta-llama/Llama-2-7b-hf\nweights_dtype: bf16\nmethod: lora\nseq_len: 1024\nbatch_lengths: variable\ngpu: A100-80GB\n',
    );
    const j = JSON.parse((await cli('estimate', file, '--json')).out);
    assert.equal(j.perGpu.variableLengths.cacheBytes, 2 * 12 * 1024 * 32000);
    assert.equal(j.perGpu.variableLengths.reservedBytes, j.perGpu.reservedBytes + 2 * 12 * 1024 * 32000);
    assert.match(
      (await cli('estimate', file)).out,
      /variable-length batches: over a run reserved grows to about .* or more/,
    );
    const fixed = JSON.parse((await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--json')).out);
    assert.equal(fixed.perGpu.variableLengths, null);
  });

  it('--check exits 1 when it does not fit and 0 when it does', async () => {
    assert.equal((await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--gpu', 'T4', '--check')).code, 1);
    assert.equal((await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--gpu', 'A100-80GB', '--check')).code, 0);
  });

  it('flags override the file (--gpus, --seq-len, --model, --gpu as a size)', async () => {
    const a = JSON.parse((await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--json')).out);
    const b = JSON.parse(
      (await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--json', '--seq-len', '4096', '--gpu', '48GiB')).out,
    );
    assert.ok(b.perGpu.peakBytes > a.perGpu.peakBytes);
    assert.equal(b.gpu.memoryBytes, 48 * 2 ** 30);
    const c = JSON.parse(
      (await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--json', '--model', 'meta-llama/Meta-Llama-3-8B'))
        .out,
    );
    assert.equal(c.parameters.total, 8_030_261_248);
  });

  it('unknown GPU: exit 2 naming the closest catalog names', async () => {
    const r = await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--gpu', 'A100-81GB');
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown GPU 'A100-81GB'.*A100-80GB/);
  });

  it('unknown model: exit 2 with file:line:col and suggestions', async () => {
    const dir = tempDir('vram-');
    const f = path.join(dir, 'm.vram.yaml');
    fs.writeFileSync(f, 'seq_len: 128\nmodel: mistralai/Mistral-7B\n');
    const r = await cli('estimate', f);
    assert.equal(r.code, 2);
    assert.match(r.err, /m\.vram\.yaml:2:8: error \[model\]: unknown model 'mistralai\/Mistral-7B'.*Mistral-7B-v0\.1/);
  });

  it('bad values: exit 2, one line per problem naming file, line and key', async () => {
    const r = await cli('estimate', 'test/fixtures/scenario/bad-keys.vram.yaml');
    assert.equal(r.code, 2);
    assert.match(r.err, /bad-keys\.vram\.yaml:3:1: error \[seq_lenght\]: unknown key/);
    assert.match(r.err, /bad-keys\.vram\.yaml:5:13: error \[zero_stage\]/);
    assert.doesNotMatch(r.err, /at .*\.js:\d+/, 'no stack trace');
  });

  it('nonexistent file, directory, unsupported format, usage: exit 2 naming the path', async () => {
    assert.match((await cli('estimate', 'nope.vram.yaml')).err, /nope\.vram\.yaml: no such file/);
    assert.equal((await cli('estimate', 'nope.vram.yaml')).code, 2);
    const d = await cli('estimate', 'examples');
    assert.equal(d.code, 2);
    assert.match(d.err, /examples: is a directory/);
    assert.equal((await cli('estimate', 'package.json')).code, 2);
    assert.equal((await cli('estimate', 'x.vram.yaml', '--gpus', 'two')).code, 2);
    assert.equal((await cli('frobnicate')).code, 2);
  });

  it('an unrecognised file and a heredoc launcher: exit 2 with file:line:col', async () => {
    const dir = tempDir('vram-');
    const plain = path.join(dir, 'notes.sh');
    fs.writeFileSync(plain, 'echo hello\n');
    const r = await cli('estimate', plain);
    assert.equal(r.code, 2);
    assert.match(r.err, /notes\.sh:1:1: error: not a recognised training config/);
    const py = path.join(dir, 'util.py');
    fs.writeFileSync(py, 'def mask(bits):\n    return 1 << bits\n');
    assert.match((await cli('estimate', py)).err, /util\.py:1:1: error: not a recognised training config \(/);
    // OpenRLHF examples/scripts/train_sft.sh keeps the command in a heredoc read into a variable and runs it later:
    // that heredoc is read. One fed to python's standard input is not, and the refusal points at it.
    const heredoc = path.join(dir, 'train_sft.sh');
    fs.writeFileSync(
      heredoc,
      'set -x\n' +
        '\n' +
        "read -r -d '' training_commands <<EOF\n" +
        'openrlhf.cli.train_sft \\\n' +
        '   --model.model_name_or_path meta-llama/Meta-Llama-3-8B\n' +
        'EOF\n' +
        '\n' +
        'if [[ ${1} != "slurm" ]]; then\n' +
        '    deepspeed --module $training_commands\n' +
        'fi\n',
    );
    const h = await cli('estimate', heredoc);
    assert.equal(h.code, 0, h.err);
    assert.match(h.out, /meta-llama\/Meta-Llama-3-8B/);
    const stdin = path.join(dir, 'launch.sh');
    fs.writeFileSync(
      stdin,
      'set -x\n' +
        '\n' +
        'python - <<EOF\n' +
        'import subprocess\n' +
        'subprocess.run("deepspeed --module openrlhf.cli.train_sft --model.model_name_or_path meta-llama/Meta-Llama-3-8B".split())\n' +
        'EOF\n',
    );
    const s = await cli('estimate', stdin);
    assert.equal(s.code, 2);
    assert.match(s.err, /launch\.sh:3:10: error: no model found in these files: heredocs \(<<EOF\) are not read/);
  });

  it('reads a model from a local config.json path', async () => {
    const dir = tempDir('vram-');
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({
        model_type: 'llama',
        num_hidden_layers: 2,
        hidden_size: 64,
        num_attention_heads: 4,
        intermediate_size: 128,
        vocab_size: 1000,
      }),
    );
    const f = path.join(dir, 's.vram.yaml');
    fs.writeFileSync(f, `model: ${dir}\n`);
    const r = await cli('estimate', f, '--json');
    assert.equal(r.code, 0, r.err);
    // 2 x (4·64² + 3·64·128 + 2·64) + 64 + 2 x 1000·64 (untied) = 2 x 41,088 + 64 + 128,000 = 210,240.
    assert.equal(JSON.parse(r.out).parameters.total, 210_240);
  });

  it('a JSON scenario on a T4: gpt2 fp32 eager b=8 s=1024', async () => {
    const r = await cli('estimate', 'test/fixtures/scenario/gpt2.vram.json', '--json');
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).gpu.id, 'T4');
  });

  it('--advise --json adds `advice`: cheapest first, with changes, savings, cost, fit, estimate and edits', async () => {
    const r = await cli(
      'estimate',
      'test/e2e/fixtures/workspace/run.vram.yaml',
      '--gpu',
      'RTX-4090',
      '--advise',
      '--json',
    );
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.ok(Array.isArray(j.advice) && j.advice.length > 0);
    for (const a of j.advice) {
      for (const k of [
        'title',
        'changes',
        'savedBytes',
        'stepTimeFactor',
        'changesResult',
        'fits',
        'estimate',
        'edits',
      ])
        assert.ok(k in a, k);
      assert.ok(a.changes.every((c: { key: string }) => typeof c.key === 'string'));
      assert.ok(typeof a.estimate.deviceBytes === 'number' && a.fits === true);
    }
    // Result-preserving advice comes before result-changing advice, and edits target the scenario file itself.
    const firstChanging = j.advice.findIndex((a: { changesResult: boolean }) => a.changesResult);
    assert.ok(
      firstChanging === -1 || j.advice.slice(firstChanging).every((a: { changesResult: boolean }) => a.changesResult),
    );
    assert.ok(j.advice[0].edits.length > 0 && j.advice[0].edits[0].file.endsWith('run.vram.yaml'));
  });

  it('--advise prints the ranked list under the table', async () => {
    // A 16 GB card: the bundled example needs 19.9 GiB at micro-batch 4 and 15.0 GiB at 1.
    const r = await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--gpu', 'V100-16GB', '--advise');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /advice \(\d+ candidate setups evaluated for V100-16GB; cheapest first\):/);
    assert.match(r.out, /largest micro-batch that fits: \d+/);
  });

  it('a setup that does not fit points at --advise; one that fits, or --advise itself, does not', async () => {
    // The bundled example (Llama-2-7B LoRA, 19.9 GiB on the device) fits its RTX 4090 (24 GB), not a 12 GB RTX 3060.
    const hint = /it does not fit: --advise lists the changes that make it fit/;
    assert.doesNotMatch((await cli('estimate', 'examples/llama2-7b-lora.vram.yaml')).out, hint);
    const small = await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--gpu', 'RTX-3060-12GB');
    assert.match(small.out, /DOES NOT FIT/);
    assert.match(small.out, hint);
    assert.doesNotMatch(
      (await cli('estimate', 'examples/llama2-7b-lora.vram.yaml', '--gpu', 'RTX-3060-12GB', '--advise')).out,
      hint,
    );
  });

  it('--advise says which advice a quick fix cannot write into the files, and why', async () => {
    // The e2e fixture's Axolotl config (Mistral-7B QLoRA) on an 8 GB card: the GPU count lives in the launcher, not in
    // the Axolotl file, so "Use N GPUs" is not written; ZeRO offload is, as Axolotl's own DeepSpeed config
    // (deepspeed_configs/zero3_bf16_cpuoffload_all.json, the config trains in bf16).
    const r = await cli('estimate', 'test/e2e/fixtures/workspace/axolotl.yml', '--gpu', '8GB', '--advise');
    assert.equal(r.code, 0, r.err);
    const items = r.out.split(/\n(?= {2}\d+\. )/).slice(1);
    const offload = items.find((i) => /^ {2}\d+\. Offload parameters and optimizer to CPU/.test(i));
    assert.ok(offload && !offload.includes('not written by a quick fix'), r.out);
    const more = items.find((i) => /^ {2}\d+\. (.*\dx the GPUs|Use \d+ GPUs)/.test(i));
    assert.ok(more, r.out);
    assert.match(
      more,
      /not written by a quick fix: test\/e2e\/fixtures\/workspace\/axolotl\.yml: Axolotl has no setting for gpus_per_node(, nodes)?$/m,
    );
    const json = await cli('estimate', 'test/e2e/fixtures/workspace/axolotl.yml', '--gpu', '8GB', '--advise', '--json');
    const advice = (JSON.parse(json.out) as { advice: Array<{ title: string; edits: Array<{ newText: string }> }> })
      .advice;
    const edit = advice.find((a) =>
      a.title.startsWith('Offload parameters and optimizer to CPU (ZeRO-Infinity)'),
    )!.edits;
    assert.ok(
      edit.some((e) => e.newText === 'deepspeed: deepspeed_configs/zero3_bf16_cpuoffload_all.json\n'),
      JSON.stringify(edit),
    );
  });

  it("--json's problems: the warnings stderr prints, at their places (a Trainer's compute_metrics keeps eval logits)", async () => {
    const dir = projectWith({
      'train.py': [
        'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
        'm = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B")',
        'args = TrainingArguments(output_dir="o", per_device_eval_batch_size=4, eval_strategy="steps", bf16=True)',
        'Trainer(model=m, args=args, compute_metrics=metrics).train()',
        '',
      ].join('\n'),
    });
    const r = await cliIn(dir, 'estimate', 'train.py', '--json');
    assert.equal(r.code, 0, r.err);
    // transformers Trainer.evaluation_loop keeps each batch's logits: 4 x 2048 tokens x 128,256 x 2 B = 2.0 GiB.
    assert.match(r.err, /train\.py:4:29: warning \[compute_metrics\]: .*2\.0 GiB per batch/);
    const problems = (JSON.parse(r.out) as { problems: { code: string; line: number; column: number }[] }).problems;
    const kept = problems.find((p) => p.code === 'eval-logits-kept');
    assert.deepEqual([kept?.line, kept?.column], [4, 29]);
    // A sequence classifier keeps its labels' few logits per row (Markfryazino/EfficientDL-DeepSpeedPhD's SST-2 run):
    // no warning.
    const cls = projectWith({
      'train.py': [
        'from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments',
        'm = AutoModelForSequenceClassification.from_pretrained("meta-llama/Meta-Llama-3-8B", num_labels=2)',
        'args = TrainingArguments(output_dir="o", per_device_eval_batch_size=4, eval_strategy="steps", bf16=True)',
        'Trainer(model=m, args=args, compute_metrics=metrics).train()',
        '',
      ].join('\n'),
    });
    const c = await cliIn(cls, 'estimate', 'train.py', '--json');
    assert.doesNotMatch(c.err, /eval-logits-kept|compute_metrics without eval_accumulation_steps/);
  });
});
