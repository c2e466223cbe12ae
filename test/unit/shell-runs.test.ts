// A run is several files: a launch script, the configs it names and the training script it runs
// (test/fixtures/shell-run). The launcher references its script, so the pipeline merges the script's own values
// below the launcher's flags, and the workspace index links all three files to one run. Also: variables set on some
// branches of an `if`, unresolved references, paths written from the repository root, and GPU counts from settings.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeShell } from '../../src/analyzers/shell';
import { runPipeline, type InputFile, type PipelineResult } from '../../src/analyzers/pipeline';
import type { Overrides } from '../../src/analyzers/resolve';
import { nodeFileReader, foldersAbove } from '../../src/node/files';
import { RunIndex } from '../../src/server/runs';
import { Workspace } from '../../src/server/workspace';
import { tempDir, inMemory } from './helpers';

const fixtures = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'shell-run');
const input = (name: string): InputFile => ({
  file: path.join(fixtures, name),
  text: fs.readFileSync(path.join(fixtures, name), 'utf8'),
});
const pipelineOf = (inputs: InputFile[], overrides: Overrides = {}) =>
  runPipeline(inputs, nodeFileReader(fixtures), overrides);
/** The run of a launch line /w/run.sh beside the training script /w/train.py given as text. */
const launchingTrainPy =
  (train: string) =>
  (line: string): PipelineResult =>
    runPipeline([{ file: '/w/run.sh', text: line }], inMemory({ '/w/train.py': train, '/w/run.sh': line }), {});

describe('shell runs: a launcher, its configs and its training script are one run', () => {
  it('a file the launch line names in no format it reads is said there, and the run is estimated without it', () => {
    // Alpha-VLLM/LLaMA2-Accessory's launchers: `llama_config="$2 configs/model/finetune/sg/llamaPeft_normBiasLora.json"`
    // hands the script its model's params file and a PEFT JSON of its own format; had stopped the estimate.
    const line =
      'llama_config="$2 configs/lora.json"\ntorchrun --nproc_per_node=8 train.py --batch_size 4 --llama_config $llama_config\n';
    const train =
      'import argparse\nfrom transformers import AutoModelForCausalLM\np = argparse.ArgumentParser()\n' +
      'p.add_argument("--llama_config", nargs="+")\np.add_argument("--batch_size", type=int, default=1)\n' +
      'args = p.parse_args()\nmodel = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n';
    const files = {
      '/w/run.sh': line,
      '/w/train.py': train,
      '/w/configs/lora.json': '{"lora_rank": 16, "bias_tuning": true}',
    };
    const r = runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
    assert.deepEqual(r.unrecognized, []);
    const said = r.problems.find((p) => p.file === '/w/configs/lora.json');
    assert.equal(said?.severity, 'warning');
    assert.match(said?.message ?? '', /in no format VRAM Lens reads/);
    assert.equal(r.setup?.model, 'meta-llama/Llama-2-7b-hf');
    // Given alone, a file no format takes still stops the run.
    const alone = runPipeline(
      [{ file: '/w/configs/lora.json', text: files['/w/configs/lora.json'] }],
      inMemory(files),
      {},
    );
    assert.deepEqual(alone.unrecognized, ['/w/configs/lora.json']);
  });

  it("the launcher names its script and a project's module as references; not an installed module or a variable", () => {
    const refs = analyzeShell(
      'accelerate launch --config_file fsdp.yaml train.py --per_device_train_batch_size 2\n',
    ).references;
    assert.deepEqual(
      refs.map((r) => [r.kind, r.path]),
      [
        ['config', 'fsdp.yaml'],
        ['script', 'train.py'],
      ],
    );
    for (const line of [
      'torchrun --nproc_per_node 8 train.py',
      'deepspeed train.py --deepspeed ds.json',
      'python train.py --bf16',
    ]) {
      assert.ok(
        analyzeShell(`${line}\n`).references.some((r) => r.kind === 'script' && r.path === 'train.py'),
        line,
      );
    }
    assert.deepEqual(analyzeShell('python -m trl.scripts.sft --model_name_or_path gpt2\n').references, []);
    // A module of the project's own (the pipeline looks for its file, also under src/, and skips one it does not find).
    assert.deepEqual(
      analyzeShell('python -m mypkg.train --config c.yaml\n').references.map((r) => [r.kind, r.path, r.module]),
      [
        ['script', 'mypkg/train.py', 'mypkg.train'],
        ['config', 'c.yaml', undefined],
      ],
    );
    // `-m` finds a module by its file's name, hyphens and all (Scicom-AI-Enterprise-Organization/small-ablation's
    // 120b-r256.sh: `torchrun --nproc_per_node 8 -m openai-oss-sft-lora`, which runs openai-oss-sft-lora.py).
    assert.deepEqual(
      analyzeShell('torchrun --nproc_per_node 8 -m openai-oss-sft-lora --bf16 true\n').references.map((r) => r.path),
      ['openai-oss-sft-lora.py'],
    );
    assert.deepEqual(
      analyzeShell('torchrun --nproc_per_node 2 $SCRIPT --bf16\n').references.filter((r) => r.kind === 'script'),
      [],
    );
  });

  it('launch.sh + fsdp.yaml + train.py: FSDP on 4 GPUs, the model from the script, the launcher flag over the script value', () => {
    const r = pipelineOf([input('launch.sh')]);
    assert.deepEqual(
      r.files.map((f) => path.basename(f.file)),
      ['launch.sh', 'fsdp.yaml', 'train.py'],
    );
    assert.ok(r.setup);
    assert.equal(r.setup.model, 'Qwen/Qwen2.5-1.5B');
    assert.equal(r.setup.fsdp, 'full_shard');
    assert.equal(r.setup.gpus_per_node, 4);
    assert.equal(r.setup.micro_batch_size, 2, 'the launcher flag wins over TrainingArguments in the script');
    assert.equal(r.setup.gradient_checkpointing, 'full', 'the script gives what the launcher does not');
    assert.equal(
      r.provenance.micro_batch_size?.kind === 'file' && path.basename(r.provenance.micro_batch_size.file),
      'launch.sh',
    );
    assert.equal(r.provenance.model?.kind === 'file' && path.basename(r.provenance.model.file), 'train.py');
    assert.deepEqual(
      r.problems.filter((p) => p.severity !== 'info'),
      [],
    );
  });

  it("each file of the run, analyzed with the run's entry file, gives the same setup", () => {
    const fromLauncher = pipelineOf([input('launch.sh')]).setup;
    for (const doc of ['fsdp.yaml', 'train.py']) {
      assert.deepEqual(pipelineOf([input('launch.sh'), input(doc)]).setup, fromLauncher, doc);
    }
  });

  it('the workspace index links the three files both ways: the launcher is the entry of the config and of the script', async () => {
    const workspace = new Workspace(true, { HOME: '/nonexistent' });
    workspace.setFolders([fixtures]);
    const index = new RunIndex(workspace, () => undefined);
    index.rebuild();
    for (let i = 0; i < 400 && !index.ready; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(index.ready);
    const entries = (f: string): string[] =>
      index.runsOf(path.join(fixtures, f)).map((r) => path.relative(fixtures, r.entry));
    assert.deepEqual(entries('fsdp.yaml'), ['launch.sh']);
    assert.deepEqual(entries('train.py'), ['launch.sh', path.join('scripts', 'run_from_root.sh')]);
    assert.deepEqual(entries('launch.sh'), []);
    assert.equal(path.basename(index.runFor(path.join(fixtures, 'train.py'))!.entry), 'launch.sh');
    assert.deepEqual(
      index
        .runsOf(path.join(fixtures, 'examples/accelerate/fsdp_config.yaml'))
        .map((r) => path.relative(fixtures, r.entry)),
      [path.join('scripts', 'run_from_root.sh')],
      'a path written from the repository root is linked where it is found',
    );
  });

  it('a path written from the repository root is found from the folder above, with a note at the reference', () => {
    const r = pipelineOf([input('scripts/run_from_root.sh')]);
    assert.equal(r.setup?.fsdp, 'full_shard');
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-1.5B');
    const notes = r.problems.filter((p) => p.code === 'reference-found-above');
    assert.deepEqual(
      notes.map((p) => [path.basename(p.file), p.line, p.severity]),
      [
        ['run_from_root.sh', 3, 'info'],
        ['run_from_root.sh', 3, 'info'],
      ],
    );
    assert.match(
      notes[0].message,
      /read \.\.\/examples\/accelerate\/fsdp_config\.yaml, the path from 1 folder\(s\) up/,
    );
  });

  it("the folders above stop at the reader's root or at the folder with .git", () => {
    const dir = tempDir('vram-lens-above-');
    fs.mkdirSync(path.join(dir, 'repo/.git'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'repo/a/b'), { recursive: true });
    assert.deepEqual(foldersAbove(path.join(dir, 'repo/a/b/run.sh'), dir), [
      path.join(dir, 'repo/a'),
      path.join(dir, 'repo'),
    ]);
    assert.deepEqual(foldersAbove(path.join(dir, 'repo/a/b/run.sh'), path.join(dir, 'repo/a')), [
      path.join(dir, 'repo/a'),
    ]);
    assert.deepEqual(foldersAbove(path.join(dir, 'repo/run.sh'), dir), []);
  });

  it("an absolute path of the author's clone is read from this checkout, by its last parts, with a note", () => {
    // fengyuli-dev/cs229-project@4f33b1b cs229/scripts/train.sh: `tune run ... --config
    // /lfs/local/0/fengyuli/cs229-project/cs229/configs/config_1b.yaml`, the config being cs229/configs/config_1b.yaml
    // of the repository.
    const dir = tempDir('vram-lens-clone-');
    fs.mkdirSync(path.join(dir, 'cs229/scripts'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'cs229/configs'), { recursive: true });
    const launch =
      'tune run --nproc_per_node 1 full_finetune_single_device ' +
      '--config /lfs/local/0/fengyuli/cs229-project/cs229/configs/config_1b.yaml\n';
    fs.writeFileSync(path.join(dir, 'cs229/scripts/train.sh'), launch);
    fs.writeFileSync(
      path.join(dir, 'cs229/configs/config_1b.yaml'),
      'model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\nbatch_size: 4\ndtype: bf16\n' +
        'tokenizer:\n  max_seq_len: 2048\n',
    );
    const reader = nodeFileReader(dir);
    const r = runPipeline([{ file: path.join(dir, 'cs229/scripts/train.sh'), text: launch }], reader, {});
    assert.equal(r.setup?.model, 'meta-llama/Llama-3.2-1B');
    assert.equal(r.setup?.micro_batch_size, 4);
    const notes = r.problems.filter((p) => p.code === 'reference-found-above');
    assert.equal(notes.length, 1);
    assert.match(
      notes[0].message,
      /is not on this machine: read .*cs229\/configs\/config_1b\.yaml, the file of this checkout/,
    );
    // Two parts at least: a file name alone is not looked for.
    const lone = 'tune run full_finetune_single_device --config /lfs/elsewhere/config_1b.yaml\n';
    const r2 = runPipeline([{ file: path.join(dir, 'cs229/configs/run.sh'), text: lone }], reader, {});
    assert.equal(r2.problems.filter((p) => p.code === 'reference-found-above').length, 0);
    // A Python script at the clone's top is found by its name alone (luozoupi/HLSmith-GRPO scripts/pbs/sft.pbs:
    // `accelerate launch ... "$PROJ/train_sft.py"` with PROJ=/eagle/...), after every longer tail.
    fs.writeFileSync(
      path.join(dir, 'train_sft.py'),
      'import argparse\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
        'p = argparse.ArgumentParser()\np.add_argument("--batch_size", type=int, default=1)\na = p.parse_args()\n' +
        'm = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
        'Trainer(model=m, args=TrainingArguments(output_dir="o", per_device_train_batch_size=a.batch_size)).train()\n',
    );
    const pbs = 'PROJ=/eagle/someproj/llm-hls\naccelerate launch --num_processes 4 "$PROJ/train_sft.py"\n';
    const r3 = runPipeline([{ file: path.join(dir, 'cs229/scripts/sft.pbs'), text: pbs }], reader, {});
    assert.equal(r3.setup?.micro_batch_size, 1);
    assert.match(
      r3.problems.find((p) => p.code === 'reference-found-above')?.message ?? '',
      /llm-hls\/train_sft\.py is not on this machine: read .*train_sft\.py/,
    );
  });

  it('a training script found in no folder above is read from the one subproject that holds its path', () => {
    // Deep-Agent/R1-V@bbbbe3d src/scripts/run_grpo_vllm_qwen25vl.sh runs `torchrun ... src/open_r1/grpo.py` after the
    // README's `cd src/r1-v`, which the launcher does not write: the script is src/r1-v/src/open_r1/grpo.py. It parses
    // TrlParser((GRPOScriptArguments, GRPOConfig, ModelConfig)) and picks its own trainer class by use_vllm; the
    // repository pins trl==0.14.0 (src/requirements.txt), whose GRPOConfig beta was 0.04 and whose
    // per_device_train_batch_size counted prompts, 8 completions each.
    const dir = tempDir('vram-lens-below-');
    fs.mkdirSync(path.join(dir, 'src/scripts'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src/r1-v/src/open_r1'), { recursive: true });
    const launch =
      'torchrun --nproc_per_node="4" src/open_r1/grpo.py --model_name_or_path Qwen/Qwen2.5-VL-3B-Instruct \\\n' +
      '  --max_prompt_length 1024 --max_completion_length 512 --per_device_train_batch_size 1 \\\n' +
      '  --gradient_accumulation_steps 2 --bf16 true --gradient_checkpointing true --num_generations 8\n';
    const script = [
      'from trl import GRPOConfig, ModelConfig, ScriptArguments, TrlParser',
      'from open_r1.trainer import Qwen2VLGRPOTrainer, Qwen2VLGRPOVLLMTrainerModified',
      '',
      'def main(script_args, training_args, model_args):',
      '    trainer_cls = Qwen2VLGRPOTrainer if not training_args.use_vllm else Qwen2VLGRPOVLLMTrainerModified',
      '    trainer = trainer_cls(model=model_args.model_name_or_path, args=training_args)',
      '    trainer.train()',
      '',
      'if __name__ == "__main__":',
      '    parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))',
      '    script_args, training_args, model_args = parser.parse_args_and_config()',
      '    main(script_args, training_args, model_args)',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'src/scripts/run.sh'), launch);
    fs.writeFileSync(path.join(dir, 'src/r1-v/src/open_r1/grpo.py'), script);
    fs.writeFileSync(path.join(dir, 'src/requirements.txt'), 'transformers==4.49.0\ntrl==0.14.0\n');
    const run = (): PipelineResult =>
      runPipeline([{ file: path.join(dir, 'src/scripts/run.sh'), text: launch }], nodeFileReader(dir), {});
    const r = run();
    const notes = r.problems.filter((p) => p.code === 'reference-found-above');
    assert.equal(notes.length, 1);
    assert.match(notes[0].message, /read \.\.\/r1-v\/src\/open_r1\/grpo\.py, the one file of the project/);
    assert.equal(r.setup?.rollout?.objective, 'policy-gradient');
    assert.equal(r.setup?.trl_version, '0.14.0');
    assert.equal(r.setup?.rollout?.reference, 'copy');
    // 1 prompt x 8 completions in each step, prompt 1,024 + completion 512 tokens.
    assert.equal(r.setup?.micro_batch_size, 8);
    assert.equal(r.setup?.rollout?.batch, 8);
    assert.equal(r.setup?.seq_len, 1536);
    // The project's own trainer decides over the pin where its module shows its rule (tulerfeng/Video-R1 pins
    // trl==0.16.0 and keeps 0.14's trainer: `prompt_mask.repeat_interleave(self.num_generations, dim=0)`; a fork with
    // TRL 0.15's RepeatRandomSampler counts completions).
    fs.writeFileSync(path.join(dir, 'src/requirements.txt'), 'transformers==4.49.0\ntrl==0.16.0\n');
    fs.mkdirSync(path.join(dir, 'src/r1-v/src/open_r1/trainer'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'src/r1-v/src/open_r1/trainer/__init__.py'),
      'from .grpo_trainer import Qwen2VLGRPOTrainer\nfrom .vllm_grpo_trainer import Qwen2VLGRPOVLLMTrainerModified\n',
    );
    const trainer = (body: string): void =>
      fs.writeFileSync(
        path.join(dir, 'src/r1-v/src/open_r1/trainer/grpo_trainer.py'),
        `from transformers import Trainer\n\nclass Qwen2VLGRPOTrainer(Trainer):\n    def compute_loss(self, model, inputs):\n        ${body}\n`,
      );
    trainer('prompt_mask = prompt_mask.repeat_interleave(self.num_generations, dim=0)');
    const fork = run();
    assert.equal(fork.setup?.trl_version, '0.16.0');
    assert.equal(fork.setup?.micro_batch_size, 8);
    assert.match(JSON.stringify(fork.provenance.micro_batch_size), /class Qwen2VLGRPOTrainer in/);
    trainer('sampler = RepeatRandomSampler(self.train_dataset, self.num_generations)');
    assert.equal(run().setup?.micro_batch_size, 1);
    // Two subprojects with that path: neither is guessed.
    fs.mkdirSync(path.join(dir, 'src/other/src/open_r1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/other/src/open_r1/grpo.py'), script);
    const twice = run();
    assert.equal(twice.problems.filter((p) => p.code === 'reference-found-above').length, 0);
    assert.ok(twice.problems.some((p) => p.code === 'reference-not-found' && /src\/open_r1\/grpo\.py/.test(p.message)));
  });

  it("a YAML of the script's own keys that a README's command names is the script's data, not an unread config", () => {
    // dhruvd22/llama3_fine_tuning@67ce545: README.md runs `python scripts/train_lora.py --config
    // configs/train_lora.yaml`; the script loads it with its own load_config and reads cfg.get("training", {}).get(...).
    // The README's line names the file relative to the root, the script finds it from scripts/ up: one file, which
    // had been said to be an unrecognised config and stopped the estimate.
    const dir = tempDir('vram-lens-readme-data-');
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.mkdirSync(path.join(dir, 'configs'));
    fs.writeFileSync(
      path.join(dir, 'README.md'),
      '# Train\n```bash\npython scripts/train_lora.py --config configs/train_lora.yaml\n```\n',
    );
    fs.writeFileSync(
      path.join(dir, 'configs/train_lora.yaml'),
      'model:\n  base_model_path: Qwen/Qwen2.5-0.5B\ntraining:\n  batch_size: 2\n  gradient_accumulation_steps: 8\n',
    );
    const script = [
      'import argparse, yaml',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'def load_config(path):',
      '    with open(path, "r") as f:',
      '        return yaml.safe_load(f)',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--config", required=True)',
      'args = parser.parse_args()',
      'cfg = load_config(args.config)',
      'model_cfg = cfg.get("model", {})',
      'train_cfg = cfg.get("training", {})',
      'model = AutoModelForCausalLM.from_pretrained(model_cfg["base_model_path"])',
      'targs = TrainingArguments(output_dir="out", per_device_train_batch_size=train_cfg.get("batch_size", 1),',
      '    gradient_accumulation_steps=train_cfg.get("gradient_accumulation_steps", 1))',
      'Trainer(model=model, args=targs).train()',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'scripts/train_lora.py'), script);
    const r = runPipeline([{ file: 'scripts/train_lora.py', text: script }], nodeFileReader(dir), {});
    assert.deepEqual(r.unrecognized, []);
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(r.setup?.micro_batch_size, 2);
    assert.equal(r.setup?.gradient_accumulation_steps, 8);
  });

  it("a file right under /workspace or /content, where a container or Colab runs the project, is the project's", () => {
    // vimalKeshu/qwen2-7b-reason-lora run_train.sh: `export DEEPSPEED_CONFIG="/workspace/ds_config_zero2.json"`, then
    // `deepspeed --num_gpus=2 train.py ... --deepspeed $DEEPSPEED_CONFIG`, the config beside the script.
    const dir = tempDir('vram-lens-mount-');
    const ds = '{"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}\n';
    fs.writeFileSync(path.join(dir, 'ds_config_zero2.json'), ds);
    const launch = (at: string): string =>
      `deepspeed --num_gpus=2 train.py --model_name_or_path Qwen/Qwen2-7B --deepspeed ${at}/ds_config_zero2.json\n`;
    const reader = nodeFileReader(dir);
    for (const mount of ['/workspace', '/content']) {
      const r = runPipeline([{ file: path.join(dir, 'run.sh'), text: launch(mount) }], reader, {});
      assert.equal(r.setup?.zero_stage, 2, mount);
      assert.equal(r.problems.filter((p) => p.code === 'reference-found-above').length, 1, mount);
    }
    // Any other folder of one part: a file name alone is not looked for.
    const other = runPipeline([{ file: path.join(dir, 'run.sh'), text: launch('/data') }], reader, {});
    assert.equal(other.setup?.zero_stage, 0);
  });

  it("a relative path after `cd` to an absolute folder of the author's machine is looked for there, by its last parts", () => {
    // raja-kumar/Visual-RFT src/scripts/birds/2.5_7B_cub_base_mcq.sh: `cd /app/Visual-RFT/src/virft/`, then
    // `torchrun ... src/open_r1/grpo_classification.py ... --deepspeed local_scripts/zero3_offload.json`, both files
    // under src/virft of the repository.
    const dir = tempDir('vram-lens-cd-');
    fs.mkdirSync(path.join(dir, 'src/scripts'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src/virft/src/open_r1'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src/virft/local_scripts'), { recursive: true });
    const launch =
      'cd /app/Visual-RFT/src/virft/\n' +
      'torchrun --nproc_per_node="3" src/open_r1/grpo.py --deepspeed local_scripts/zero3.json --bf16\n';
    fs.writeFileSync(path.join(dir, 'src/scripts/run.sh'), launch);
    fs.writeFileSync(
      path.join(dir, 'src/virft/src/open_r1/grpo.py'),
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
        'AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B")\nTrainingArguments(output_dir="o")\n',
    );
    fs.writeFileSync(
      path.join(dir, 'src/virft/local_scripts/zero3.json'),
      '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto"}\n',
    );
    const r = runPipeline([{ file: path.join(dir, 'src/scripts/run.sh'), text: launch }], nodeFileReader(dir), {});
    assert.deepEqual([r.setup?.model, r.setup?.zero_stage, r.setup?.gpus_per_node], ['Qwen/Qwen2.5-7B', 3, 3]);
    const notes = r.problems.filter((p) => p.code === 'reference-found-above').map((p) => p.message);
    assert.equal(notes.length, 2);
    for (const n of notes) assert.match(n, /^\/app\/Visual-RFT\/src\/virft\/.* is not on this machine: read /);
    // `cd` to a folder not known statically changes nothing.
    const unknown = analyzeShell('cd $WORK\ntorchrun train.py\n').references;
    assert.deepEqual(
      unknown.map((x) => [x.path, x.cwd]),
      [['train.py', undefined]],
    );
    assert.deepEqual(
      analyzeShell('cd /opt/p\ncd sub\ntorchrun train.py\n').references.map((x) => x.cwd),
      ['/opt/p/sub'],
    );
  });

  it("a `cd` into a folder of the repository: the launch line's files are looked for there (ChiYeungLaw/LLaMa-EasyFT)", () => {
    // finetune.sh at the repository's top: `cd src`, then `deepspeed train.py ... --deepspeed configs/deepspeed_config.json`,
    // both under src/.
    const launch = 'cd src\ndeepspeed train.py --deepspeed configs/ds.json --per_device_train_batch_size 4\n';
    const files = {
      '/w/run.sh': launch,
      '/w/src/train.py':
        'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
        'AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B")\nTrainingArguments(output_dir="o")\n',
      '/w/src/configs/ds.json': '{"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}\n',
    };
    const r = runPipeline([{ file: '/w/run.sh', text: launch }], inMemory(files), {});
    assert.deepEqual([r.setup?.model, r.setup?.zero_stage], ['Qwen/Qwen2.5-7B', 2]);
    const notes = r.problems.filter((p) => p.code === 'reference-found-above').map((p) => p.message);
    assert.deepEqual(notes, [
      'train.py is read from src/train.py: the script moves to src (cd) before this line',
      'configs/ds.json is read from src/configs/ds.json: the script moves to src (cd) before this line',
    ]);
  });

  it('a training script that is not there is an info note, a warning where nothing else names the model', () => {
    const withModel = pipelineOf([input('scripts/missing_script.sh')]);
    assert.ok(withModel.setup);
    assert.deepEqual(
      withModel.problems.filter((p) => p.code === 'reference-not-found').map((p) => [p.severity, p.line]),
      [['info', 2]],
    );
    const r = runPipeline(
      [{ file: '/w/run.sh', text: 'torchrun --nproc_per_node 2 train.py --bf16 True\n' }],
      inMemory({}),
      {},
    );
    const missing = r.problems.filter((p) => p.code === 'reference-not-found');
    assert.equal(missing.length, 1);
    assert.match(
      missing[0].message,
      /the training script train\.py was not found, and no other file of the run names the model/,
    );
    assert.equal(missing[0].column, 29);
  });

  it('a config named with one YAML ending where the other is there: said, not read (the launch stops)', () => {
    // sdiehl/tiny-r1@a4d1352 accelerate.sh names deepspeed_zero3.yaml; the repository has deepspeed_zero3.yml.
    const line = 'accelerate launch --num_processes 3 --config_file deepspeed_zero3.yaml train.py\n';
    const files = {
      '/w/accelerate.sh': line,
      '/w/deepspeed_zero3.yml': 'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\n',
    };
    const r = runPipeline([{ file: '/w/accelerate.sh', text: line }], inMemory(files), {});
    const w = r.problems.find((p) => p.code === 'reference-not-found' && /deepspeed_zero3\.yaml/.test(p.message));
    assert.equal(w?.severity, 'warning');
    assert.match(w?.message ?? '', /deepspeed_zero3\.yml is there, with the other YAML ending, but the launch stops/);
    assert.notEqual(r.setup?.zero_stage, 3);
  });

  it('LoRA behind a switch the launch line does not pass is a full fine-tune; with the switch, LoRA', () => {
    // QwenLM/Qwen@e8e15962 finetune.py: LoraConfig and get_peft_model only under `if training_args.use_lora:`, with
    // `use_lora: bool = False` in its TrainingArguments; finetune_ds.sh (full) passes no --use_lora,
    // finetune_lora_ds.sh does.
    const files = {
      '/w/train.py':
        'from dataclasses import dataclass, field\nimport transformers\nfrom peft import LoraConfig, get_peft_model\n' +
        '@dataclass\nclass TrainingArguments(transformers.TrainingArguments):\n    use_lora: bool = False\n' +
        '@dataclass\nclass LoraArguments:\n    lora_r: int = 64\n' +
        '    lora_target_modules: list = field(default_factory=lambda: ["c_attn", "c_proj", "w1", "w2"])\n' +
        'def train():\n    parser = transformers.HfArgumentParser((TrainingArguments, LoraArguments))\n' +
        '    (\n        training_args,\n        lora_args,\n    ) = parser.parse_args_into_dataclasses()\n' +
        '    model = transformers.AutoModelForCausalLM.from_pretrained("Qwen/Qwen-7B")\n' +
        '    if training_args.use_lora:\n' +
        '        config = LoraConfig(r=lora_args.lora_r, target_modules=lora_args.lora_target_modules)\n' +
        '        model = get_peft_model(model, config)\n',
    };
    const run = (line: string) =>
      runPipeline([{ file: '/w/run.sh', text: line }], inMemory({ ...files, '/w/run.sh': line }), {});
    const full = run('torchrun --nproc_per_node 2 train.py --bf16 True\n');
    assert.equal(full.setup?.method, 'full');
    assert.match(full.decided.method?.fact.rawValue ?? '', /training_args\.use_lora: the script's default False/);
    const lora = run('torchrun --nproc_per_node 2 train.py --bf16 True --use_lora\n');
    assert.equal(lora.setup?.method, 'lora');
    assert.equal(lora.setup?.lora?.r, 64);
    assert.deepEqual(lora.setup?.lora?.target_modules, ['c_attn', 'c_proj', 'w1', 'w2']);
    // The script alone runs with its own default: no LoRA.
    const alone = runPipeline([{ file: '/w/train.py', text: files['/w/train.py'] }], inMemory(files), {});
    assert.equal(alone.setup?.method, 'full');
  });

  it('one LoraConfig per branch of a required option: the one the launch line picks, not the last one written', () => {
    // waynehacking8/lora-without-regret sft_compare.py: `--method` (required, choices) picks `if a.method ==
    // "lora-attention":` (q, k, v, o) or `elif a.method == "lora-all":` (all-linear) or full;
    // scripts/run_llama31_gsm8k_experiments.sh runs each. The all-linear targets read over the first branch's before.
    const train = [
      'import argparse',
      'from transformers import AutoModelForCausalLM',
      'from peft import LoraConfig',
      'from trl import SFTConfig, SFTTrainer',
      'def parse_args():',
      '    p = argparse.ArgumentParser()',
      '    p.add_argument("--model", required=True)',
      '    p.add_argument("--method", choices=["lora-attention", "lora-all", "fullft"], required=True)',
      '    return p.parse_args()',
      'def main():',
      '    a = parse_args()',
      '    peft_cfg = None',
      '    if a.method == "lora-attention":',
      '        peft_cfg = LoraConfig(r=256, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])',
      '    elif a.method == "lora-all":',
      '        peft_cfg = LoraConfig(r=256, target_modules="all-linear")',
      '    model = AutoModelForCausalLM.from_pretrained(a.model)',
      '    SFTTrainer(model=model, args=SFTConfig(output_dir="o"), peft_config=peft_cfg).train()',
      'main()',
      '',
    ].join('\n');
    const run = launchingTrainPy(train);
    const line = (method: string) => `python3 train.py --model meta-llama/Llama-3.1-8B-Instruct --method ${method}\n`;
    const attention = run(line('lora-attention'));
    assert.equal(attention.setup?.method, 'lora');
    assert.deepEqual(attention.setup?.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
    const all = run(line('lora-all'));
    assert.equal(all.setup?.lora?.target_modules, 'all-linear');
  });

  it("a launch option from a variable it does not set overrides the script's dataclass default: unknown, said there", () => {
    // Qwen-1's finetune.py defaults `model_name_or_path` to "Qwen/Qwen-7B" (ModelArguments); a launcher that passes
    // `--model_name_or_path $MODEL` runs whatever MODEL is, never that default.
    const train =
      'import transformers\nfrom dataclasses import dataclass, field\n@dataclass\nclass ModelArguments:\n' +
      '    model_name_or_path: str = field(default="Qwen/Qwen-7B")\n' +
      'def train():\n    parser = transformers.HfArgumentParser((ModelArguments, transformers.TrainingArguments))\n' +
      '    model_args, training_args = parser.parse_args_into_dataclasses()\n' +
      '    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n';
    const run = launchingTrainPy(train);
    const open = run('python train.py --model_name_or_path $SOMEWHERE --bf16 True\n');
    assert.equal(open.setup?.model, undefined);
    const p = open.problems.find((x) => x.code === 'unknown-model')!;
    assert.equal(path.basename(p.file), 'run.sh');
    assert.match(p.message, /\$SOMEWHERE: `SOMEWHERE` is not set in this script \(it comes from the environment\)/);
    // Passed as written, or not passed at all (the default runs).
    assert.equal(run('python train.py --model_name_or_path Qwen/Qwen-1_8B-Chat\n').setup?.model, 'Qwen/Qwen-1_8B-Chat');
    assert.equal(run('python train.py --bf16 True\n').setup?.model, 'Qwen/Qwen-7B');
    // The launcher's own value before its argument loop, said as an assumption of the estimate.
    const looped = run(
      'MODEL=Qwen/Qwen-1_8B-Chat\nwhile [[ "$1" != "" ]]; do\n  case $1 in\n    -m) shift; MODEL=$1 ;;\n  esac\n  shift\ndone\n' +
        'python train.py --model_name_or_path $MODEL\n',
    );
    assert.equal(looped.setup?.model, 'Qwen/Qwen-1_8B-Chat');
    assert.equal(looped.provenance?.model?.kind, 'default');
  });

  it('an option that takes a word given no value stops the script: unknown, not True, nor the default', () => {
    // Ruimeng-Ye/wts_70B lora.sh: `--model_name_or_path  \` then `--data_path data/`, where the script's argparse
    // option (FastChat's train_lora_llama.py: type=str, default="Llama-2-13b-chat-hf") expects one argument; the model
    // had been read as 'True'. The same for an arguments dataclass's field (Qwen-1's ModelArguments).
    const argparseScript =
      'import argparse, transformers\nparser = argparse.ArgumentParser()\n' +
      'parser.add_argument("--model_name_or_path", type=str, default="Llama-2-13b-chat-hf")\n' +
      'args = parser.parse_args()\n' +
      'model = transformers.AutoModelForCausalLM.from_pretrained(args.model_name_or_path)\n';
    const bare = 'python train.py --model_name_or_path \\\n    --output_dir out/\n';
    for (const train of [
      argparseScript,
      'import transformers\nfrom dataclasses import dataclass, field\n@dataclass\nclass ModelArguments:\n' +
        '    model_name_or_path: str = field(default="Qwen/Qwen-7B")\n' +
        'parser = transformers.HfArgumentParser((ModelArguments, transformers.TrainingArguments))\n' +
        'model_args, training_args = parser.parse_args_into_dataclasses()\n' +
        'model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n',
    ]) {
      const r = launchingTrainPy(train)(bare);
      assert.equal(r.setup?.model, undefined);
      const p = r.problems.find((x) => x.code === 'unknown-model');
      assert.match(p?.message ?? '', /--model_name_or_path on the launch line has no value .* "expected one argument"/);
      assert.doesNotMatch(p?.message ?? '', /'True'/);
    }
  });

  it("a value set on branches of the script's options is decided by the launch line (Qwen-1's modules_to_save)", () => {
    // finetune.py (QwenLM/Qwen@e8e15962): a chat model trains no copies, a base model trains wte and lm_head.
    const train =
      'import transformers\nfrom dataclasses import dataclass, field\nfrom peft import LoraConfig\n@dataclass\n' +
      'class ModelArguments:\n    model_name_or_path: str = field(default="Qwen/Qwen-7B")\n@dataclass\n' +
      'class LoraArguments:\n    q_lora: bool = False\ndef train():\n' +
      '    parser = transformers.HfArgumentParser((ModelArguments, LoraArguments))\n' +
      '    model_args, lora_args = parser.parse_args_into_dataclasses()\n' +
      '    if lora_args.q_lora or "chat" in model_args.model_name_or_path.lower():\n        modules_to_save = None\n' +
      '    else:\n        modules_to_save = ["wte", "lm_head"]\n' +
      '    config = LoraConfig(r=64, target_modules=["c_attn"], modules_to_save=modules_to_save)\ntrain()\n';
    const run = launchingTrainPy(train);
    const saved = (r: ReturnType<typeof run>) => r.setup?.lora?.modules_to_save ?? [];
    assert.deepEqual(saved(run('python train.py --model_name_or_path Qwen/Qwen-7B\n')), ['wte', 'lm_head']);
    assert.deepEqual(saved(run('python train.py --model_name_or_path Qwen/Qwen-7B-Chat\n')), []);
    assert.deepEqual(saved(run('python train.py --model_name_or_path Qwen/Qwen-7B --q_lora True\n')), []);
    // Through the launcher's own variable, decided by its default.
    assert.deepEqual(saved(run('MODEL=${1:-Qwen/Qwen-7B-Chat}\npython train.py --model_name_or_path $MODEL\n')), []);
    // The script alone runs its default model, a base model.
    const alone = runPipeline([{ file: '/w/train.py', text: train }], inMemory({ '/w/train.py': train }), {});
    assert.deepEqual(alone.setup?.lora?.modules_to_save, ['wte', 'lm_head']);
    // From a variable the launch line does not set, the test stays open, said at the call.
    const open = run('python train.py --model_name_or_path $SOMEWHERE\n');
    assert.ok(open.problems.some((p) => p.key === 'modules_to_save' && p.code === 'not-static'));
  });

  it("a config path the argument loop can replace is followed as the script names it (Qwen-1's finetune_lora_ds.sh)", () => {
    const line =
      'DS_CONFIG_PATH="ds_config_zero2.json"\nwhile [[ "$1" != "" ]]; do\n  case $1 in\n    --deepspeed ) shift; DS_CONFIG_PATH=$1 ;;\n' +
      '  esac\n  shift\ndone\ntorchrun --nproc_per_node 2 train.py --model_name_or_path Qwen/Qwen-7B-Chat --deepspeed ${DS_CONFIG_PATH}\n';
    const files = {
      '/w/run.sh': line,
      '/w/train.py': 'from transformers import Trainer, TrainingArguments\n',
      '/w/ds_config_zero2.json': '{"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}\n',
    };
    const r = runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
    // In the order of the line run without arguments, as if it named the file literally.
    const literal = line.replace('${DS_CONFIG_PATH}', 'ds_config_zero2.json');
    const asWritten = runPipeline(
      [{ file: '/w/run.sh', text: literal }],
      inMemory({ ...files, '/w/run.sh': literal }),
      {},
    );
    assert.deepEqual(
      r.files.map((f) => path.basename(f.file)),
      ['run.sh', 'train.py', 'ds_config_zero2.json'],
    );
    assert.deepEqual(
      r.files.map((f) => f.file),
      asWritten.files.map((f) => f.file),
    );
    assert.equal(r.setup?.zero_stage, 2);
    assert.ok(!r.problems.some((p) => p.code === 'reference-not-found'));
  });

  it("a script's argparse options: the launch line's flag, else the default the script writes", () => {
    const files = {
      '/w/run.sh': 'torchrun --nproc_per_node 2 train.py --bf16 True\n',
      '/w/train.py':
        'import argparse\nfrom transformers import AutoModelForCausalLM, TrainingArguments\np = argparse.ArgumentParser()\n' +
        'p.add_argument("--batch", type=int, default=16)\nargs = p.parse_args()\n' +
        'm = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\nTrainingArguments(output_dir="o", per_device_train_batch_size=args.batch)\n',
    };
    const r = runPipeline([{ file: '/w/run.sh', text: files['/w/run.sh'] }], inMemory(files), {});
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(r.setup?.gpus_per_node, 2);
    assert.equal(r.setup?.micro_batch_size, 16, 'the default of --batch, which the launch line does not pass');
    // Located at the default the script writes (line 4), where the value comes from.
    assert.deepEqual(r.provenance.micro_batch_size?.kind, 'file');
    assert.equal((r.provenance.micro_batch_size as { line?: number }).line, 4);
    assert.match(
      r.decided.microBatchSize?.fact.rawValue ?? '',
      /args\.batch: the script's default 16 \(argparse default of --batch, line 4\)/,
    );
    const passed = runPipeline(
      [{ file: '/w/run.sh', text: 'torchrun --nproc_per_node 2 train.py --batch 4\n' }],
      inMemory(files),
      {},
    );
    assert.equal(passed.setup?.micro_batch_size, 4, 'the launch line passes --batch 4');
    const fromVar = runPipeline(
      [{ file: '/w/run.sh', text: 'torchrun --nproc_per_node 2 train.py --batch $BS\n' }],
      inMemory(files),
      {},
    );
    assert.equal(
      fromVar.provenance.micro_batch_size?.kind,
      'default',
      'a flag from an unset variable leaves it unknown',
    );
    // The script alone (not run by a launcher) runs with its own default.
    const alone = runPipeline([{ file: '/w/train.py', text: files['/w/train.py'] }], inMemory(files), {});
    assert.equal(alone.setup?.micro_batch_size, 16);
  });

  // princeton-nlp/SimPO's README: `accelerate launch --config_file accelerate_configs/deepspeed_zero3.yaml
  // scripts/run_simpo.py training_configs/llama-3-8b-instruct-simpo-v2.yaml`; run_simpo.py's arguments come from
  // alignment-handbook's H4ArgumentParser((ModelArguments, DataArguments, SimPOConfig)).parse(), which reads the YAML
  // that is its first argument and the flags after it (alignment-handbook@v0.3 src/alignment/configs.py).
  it("the recipe YAML that is a script's first argument is the run's config; SimPO's own key says it keeps no reference", () => {
    const files = {
      '/w/scripts/run_simpo.py':
        'from alignment import H4ArgumentParser, ModelArguments, DataArguments\nfrom simpo_config import SimPOConfig\n' +
        'from transformers import AutoModelForCausalLM\n' +
        'parser = H4ArgumentParser((ModelArguments, DataArguments, SimPOConfig))\n' +
        'model_args, data_args, training_args = parser.parse()\n' +
        'model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n',
      '/w/training_configs/simpo.yaml':
        'model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nbf16: true\nbeta: 10\ngamma_beta_ratio: 0.3\n' +
        'gradient_checkpointing: true\nmax_length: 2048\nper_device_train_batch_size: 2\n',
    };
    const launch = (line: string): PipelineResult =>
      runPipeline([{ file: '/w/run.sh', text: line }], inMemory({ ...files, '/w/run.sh': line }), {});
    const r = launch('accelerate launch --num_processes 8 scripts/run_simpo.py training_configs/simpo.yaml\n');
    assert.equal(r.setup?.model, 'meta-llama/Meta-Llama-3-8B-Instruct');
    assert.equal(r.setup?.micro_batch_size, 2);
    assert.equal(r.setup?.seq_len, 2048);
    // SimPOConfig's gamma_beta_ratio: SimPO keeps no reference model.
    assert.equal(r.setup?.preference?.reference, 'none');
    const flag = launch(
      'accelerate launch scripts/run_simpo.py training_configs/simpo.yaml --per_device_train_batch_size 1\n',
    );
    assert.equal(flag.setup?.micro_batch_size, 1);
  });

  it("an option the script has no default for, read with the launch line's value; several words for nargs", () => {
    // bigai-nlco/TongSearch-QR scripts/train/train_grpo.py: `--training_model_path` has no default, the model is
    // loaded in a function from it; razvanalex-phd/SeLeRoSa llm_finetune.py: `--target_modules` with nargs="+", the
    // launch line passing `$LORA_TARGET_MODULES` (seven words).
    const train = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'from peft import LoraConfig, get_peft_model',
      'def parse_args():',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--training_model_path", type=str)',
      '    parser.add_argument("--target_modules", nargs="+", default=["q_proj", "v_proj"])',
      '    return parser.parse_args()',
      'def load(training_model_path):',
      '    return AutoModelForCausalLM.from_pretrained(training_model_path)',
      'args = parse_args()',
      'model = get_peft_model(load(args.training_model_path), LoraConfig(r=8, target_modules=args.target_modules))',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const run = launchingTrainPy(train);
    const line =
      'MODULES="up_proj down_proj gate_proj"\n' +
      'python train.py --training_model_path Qwen/Qwen2.5-1.5B-Instruct --target_modules $MODULES\n';
    const r = run(line);
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.deepEqual(r.setup?.lora?.target_modules, ['up_proj', 'down_proj', 'gate_proj']);
    // One word is a list of one; without the flag the default list.
    const one = run('python train.py --training_model_path Qwen/Qwen2.5-1.5B-Instruct --target_modules o_proj\n');
    assert.deepEqual(one.setup?.lora?.target_modules, ['o_proj']);
    const none = run('python train.py --training_model_path Qwen/Qwen2.5-1.5B-Instruct\n');
    assert.deepEqual(none.setup?.lora?.target_modules, ['q_proj', 'v_proj']);
    // Alone, the script names no model.
    assert.equal(runPipeline([{ file: '/w/train.py', text: train }], inMemory({}), {}).setup, undefined);
  });
});

describe('shell: values set on some branches, unresolved references', () => {
  const script = [
    '#!/bin/bash',
    'if [ "$BIG" = 1 ]; then',
    '  MBS=8',
    '  STAGE=2',
    'else',
    '  STAGE=3',
    'fi',
    'deepspeed --num_gpus 4 train.py --model_name_or_path Qwen/Qwen2.5-0.5B ' +
      '--per_device_train_batch_size ${MBS:-4} --gradient_checkpointing $GC --deepspeed $DS_CONFIG',
    '',
  ].join('\n');

  it('a variable set on some branches takes the worst of its values, said as an assumption at its place', () => {
    const facts = analyzeShell(script).facts;
    const mbs = facts.find((f) => f.key === 'microBatchSize');
    assert.equal(mbs?.value, 8);
    assert.match(
      mbs?.assumed ?? '',
      /`MBS` is '8' or unset depending on the `if` at line 2; --per_device_train_batch_size can be 8 or 4: the worst for memory \(8\) is estimated/,
    );
    const r = runPipeline([{ file: '/w/run.sh', text: script }], inMemory({}), {});
    assert.equal(r.setup?.micro_batch_size, 8);
    const p = r.provenance.micro_batch_size;
    assert.ok(p?.kind === 'default' && /worst for memory \(8\).*\(run\.sh:8\)/.test(p.note ?? ''), JSON.stringify(p));
  });

  it('an environment variable stays unknown; a DeepSpeed config from one is a located warning, not a silent drop', () => {
    const facts = analyzeShell(script).facts;
    assert.deepEqual(facts.find((f) => f.key === 'gradientCheckpointing')?.value, {
      unknown: '`GC` is not set in this script (it comes from the environment)',
    });
    const r = runPipeline([{ file: '/w/run.sh', text: script }], inMemory({}), {});
    const w = r.problems.find((p) => p.code === 'reference-not-found');
    assert.ok(w);
    assert.equal(w.severity, 'warning');
    assert.equal(w.line, 8);
    assert.equal(script.split('\n')[7].slice(w.column - 1, w.column - 1 + '$DS_CONFIG'.length), '$DS_CONFIG');
    assert.match(w.message, /^not resolved: \$DS_CONFIG/);
  });

  it('a case branch: the smallest ZeRO stage of the branches is the worst', () => {
    const text =
      'case "$SIZE" in\n' +
      '  small) ZERO=3 ;;\n' +
      '  big) ZERO=2 ;;\n' +
      '  *) ZERO=1 ;;\n' +
      'esac\n' +
      'deepspeed --num_gpus 2 train.py --model_name_or_path gpt2 --zero_stage $ZERO\n';
    const z = analyzeShell(text).facts.find((f) => f.key === 'zeroStage');
    assert.equal(z?.value, 1);
    assert.match(
      z?.assumed ?? '',
      /`ZERO` is '3' or '2' or '1' depending on the `case` at line 1; --zero_stage can be 3 or 2 or 1: the worst for memory \(1\) is estimated/,
    );
    // Unset on a branch, with no default at the use: the flag has no value there, so no value is chosen.
    const open = analyzeShell(
      'case "$SIZE" in\n  small) ZERO=3 ;;\nesac\ndeepspeed train.py --zero_stage $ZERO\n',
    ).facts.find((f) => f.key === 'zeroStage');
    assert.ok(open && typeof open.value === 'object' && open.value !== null && 'unknown' in open.value);
  });
});

describe("a launch line's --evaluation_strategy dates transformers only where TrainingArguments parse it", () => {
  // evaluation_strategy was renamed eval_strategy in transformers 4.41 and removed after 4.45 (PR 30190).
  const line = 'python train.py --model_name_or_path Qwen/Qwen2.5-0.5B --evaluation_strategy steps\n';
  it("a script's own argparse option of that name (razvanalex-phd/SeLeRoSa llm_finetune.py) dates nothing", () => {
    const own = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'p = argparse.ArgumentParser()',
      'p.add_argument("--model_name_or_path")',
      'p.add_argument("--evaluation_strategy", type=str, default="steps")',
      'args = p.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)',
      'targs = TrainingArguments(output_dir="o", eval_strategy=args.evaluation_strategy)',
      'Trainer(model=model, args=targs).train()',
      '',
    ].join('\n');
    const r = launchingTrainPy(own)(line);
    assert.equal(r.setup?.transformers_version, undefined);
    // Parsed by HfArgumentParser into TrainingArguments, the flag is transformers' own: 4.45 at the latest.
    const parsed = [
      'from transformers import AutoModelForCausalLM, HfArgumentParser, TrainingArguments, Trainer',
      '(targs,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'Trainer(model=model, args=targs).train()',
      '',
    ].join('\n');
    assert.equal(launchingTrainPy(parsed)(line).setup?.transformers_version, '4.45');
  });

  it("a config's evaluation_strategy that the script's own dataclass declares dates nothing (minwukim/VRL)", () => {
    // GRPO_on_hard.py: TrlParser over its own MyArguments (`evaluation_strategy: str`), passed on as eval_strategy=;
    // GRPO_on_hard_config.yaml sets `evaluation_strategy: steps`. Dated to 4.45 it was 50.9 GiB against 33.6.
    const script = [
      'from dataclasses import dataclass',
      'from transformers import AutoModelForCausalLM',
      'from trl import GRPOConfig, GRPOTrainer, TrlParser',
      '@dataclass',
      'class MyArguments:',
      '    model_name: str',
      '    evaluation_strategy: str',
      '(args,) = TrlParser(dataclass_types=[MyArguments]).parse_args_and_config()',
      'model = AutoModelForCausalLM.from_pretrained(args.model_name)',
      'config = GRPOConfig(output_dir="o", eval_strategy=args.evaluation_strategy)',
      '',
    ].join('\n');
    const yaml = [
      'model_name: Qwen/Qwen2.5-Math-1.5B',
      'bf16: True',
      'per_device_train_batch_size: 5',
      'gradient_accumulation_steps: 10',
      'num_generations: 25',
      'max_completion_length: 4000',
      'evaluation_strategy: steps',
      '',
    ].join('\n');
    const files = { '/w/train.py': script, '/w/config.yaml': yaml };
    const r = runPipeline(
      [
        { file: '/w/train.py', text: script },
        { file: '/w/config.yaml', text: yaml },
      ],
      inMemory(files),
      {},
    );
    assert.equal(r.setup?.transformers_version, undefined);
  });
});

describe("a launch line's reference model says DPO where its script is not read", () => {
  // yyDing1/ScaleQuest run_qwen2_qft.sh: `train.py --ref_model /path/to/models/Qwen2-Math-7B-QFT --loss_type sigmoid`,
  // whose train.py is not beside the launcher.
  const line =
    'python train.py --model_name_or_path Qwen/Qwen2-7B --ref_model /path/to/sft --loss_type sigmoid ' +
    '--per_device_train_batch_size 8\n';
  it('not read: DPO with the named model as a copy, an assumption said at --ref_model', () => {
    const r = runPipeline([{ file: '/w/run.sh', text: line }], inMemory({ '/w/run.sh': line }), {});
    // preferenceOf: a given reference is a copy; a full fine-tune's log-probs row by row (TRL's DPOTrainer).
    assert.equal(r.setup?.preference?.reference, 'copy');
    const p = r.provenance.preference;
    assert.equal(p?.kind, 'default');
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /--ref_model names a reference model/);
  });
  it("read: the script's own trainer decides (an SFTTrainer keeps no reference)", () => {
    const train = [
      'from transformers import AutoModelForCausalLM',
      'from trl import SFTConfig, SFTTrainer',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B")',
      'SFTTrainer(model=model, args=SFTConfig(output_dir="o")).train()',
      '',
    ].join('\n');
    assert.equal(launchingTrainPy(train)(line).setup?.preference, undefined);
  });
});

describe("the HF Trainer's --fsdp_config file is read as FSDP's options", () => {
  // linkedin/Liger-Kernel examples/huggingface/run_llama.sh: `--fsdp "full_shard auto_wrap" --fsdp_config
  // config/fsdp_config.json`, whose activation_checkpointing wraps each layer in FSDP's checkpoint_wrapper.
  const line =
    'torchrun --nproc_per_node 4 train.py --model_name_or_path meta-llama/Meta-Llama-3-8B ' +
    '--per_device_train_batch_size 2 --bf16 --fsdp "full_shard auto_wrap" --fsdp_config config/fsdp_config.json\n';
  const json =
    '{\n  "backward_prefetch": "backward_pre",\n  "forward_prefetch": false,\n  "activation_checkpointing": true\n}\n';
  it('activation_checkpointing and backward_prefetch, each located in the file', () => {
    const r = runPipeline(
      [{ file: '/w/run.sh', text: line }],
      inMemory({ '/w/run.sh': line, '/w/config/fsdp_config.json': json }),
      {},
    );
    assert.deepEqual(
      [r.setup?.fsdp, r.setup?.gradient_checkpointing, r.setup?.fsdp_backward_prefetch],
      ['full_shard', 'full', 'pre'],
    );
    assert.deepEqual(r.provenance.gradient_checkpointing, {
      kind: 'file',
      file: '/w/config/fsdp_config.json',
      line: 4,
      key: 'activation_checkpointing',
    });
    // The `fsdp_` prefix transformers strips, and a script's TrainingArguments(fsdp_config="...") alike.
    const prefixed = json.replace('"activation_checkpointing"', '"fsdp_activation_checkpointing"');
    const train = [
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B")',
      'args = TrainingArguments(output_dir="o", fsdp="full_shard auto_wrap", fsdp_config="fsdp.json")',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const py = runPipeline(
      [{ file: '/w/train.py', text: train }],
      inMemory({ '/w/train.py': train, '/w/fsdp.json': prefixed }),
      {},
    );
    assert.equal(py.setup?.gradient_checkpointing, 'full');
  });
});

describe('GPU counts: settings fill what the files leave open', () => {
  const ds = (flags: string): InputFile => ({
    file: '/w/run.sh',
    text: `deepspeed ${flags} train.py --model_name_or_path Qwen/Qwen2.5-0.5B\n`,
  });
  const setting: Overrides = { gpusPerNode: 8, nodes: 2, origin: 'setting' };

  it('deepspeed without --num_gpus uses every GPU of the node: an assumption that says so, or vramLens.gpusPerNode', () => {
    const bare = runPipeline([ds('')], inMemory({}), {});
    assert.equal(bare.setup?.gpus_per_node, 1);
    const p = bare.provenance.gpus_per_node;
    assert.ok(
      p?.kind === 'default' &&
        /deepspeed without --num_gpus uses every GPU of the node .*set vramLens\.gpusPerNode/.test(p.note ?? ''),
      JSON.stringify(p),
    );
    const set = runPipeline([ds('')], inMemory({}), setting);
    assert.equal(set.setup?.gpus_per_node, 8);
    assert.deepEqual(set.provenance.gpus_per_node, { kind: 'setting', setting: 'vramLens.gpusPerNode' });
  });

  it('a launcher flag, Accelerate num_processes or an SBATCH header wins over the settings; a CLI flag wins over the files', () => {
    const flagged = runPipeline([ds('--num_gpus 4 --num_nodes 1')], inMemory({}), setting);
    assert.equal(flagged.setup?.gpus_per_node, 4);
    assert.equal(flagged.setup?.nodes, 1);
    assert.equal(flagged.provenance.gpus_per_node?.kind, 'file');
    const acc = runPipeline(
      [
        { file: '/w/a.yaml', text: 'distributed_type: MULTI_GPU\nnum_processes: 4\n' },
        {
          file: '/w/t.py',
          text: 'from transformers import TrainingArguments\nTrainingArguments(output_dir="o")\nAutoModelForCausalLM.from_pretrained("gpt2")\n',
        },
      ],
      inMemory({}),
      { gpusPerNode: 8, origin: 'setting' },
    );
    assert.equal(acc.setup?.gpus_per_node, 4);
    const slurm = runPipeline(
      [
        {
          file: '/w/job.slurm',
          text: '#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4\nsrun torchrun --nnodes 2 --nproc_per_node 4 train.py --model_name_or_path gpt2\n',
        },
      ],
      inMemory({}),
      setting,
    );
    assert.equal(slurm.setup?.gpus_per_node, 4);
    assert.equal(slurm.setup?.nodes, 2);
    // --gpus (-G) counts the job's GPUs in all, spread over its nodes: 2 on one node, 8 over 2 nodes 4 each
    // (guc1/Meaning-in-Temperatures run_train_2gpu.sbatch: `#SBATCH -N 1`, `#SBATCH --gpus=2`).
    for (const [header, perNode, nodes] of [
      ['#SBATCH -N 1\n#SBATCH --gpus=2', 2, 1],
      ['#SBATCH --nodes=2\n#SBATCH --gpus=a100:8', 4, 2],
      ['#SBATCH -G 4', 4, 1],
    ] as const) {
      const r = runPipeline(
        [{ file: '/w/job.sbatch', text: `#!/bin/bash\n${header}\ntorchrun train.py --model_name_or_path gpt2\n` }],
        inMemory({}),
        {},
      );
      assert.deepEqual([header, r.setup?.gpus_per_node, r.setup?.nodes ?? 1], [header, perNode, nodes]);
    }
    const cli = runPipeline([ds('--num_gpus 4')], inMemory({}), { gpusPerNode: 2, origin: 'flag' });
    assert.equal(cli.setup?.gpus_per_node, 2);
    assert.deepEqual(cli.provenance.gpus_per_node, { kind: 'flag', flag: '--gpus' });
  });
});

describe('the environment a launch line gives its script (os.getenv)', () => {
  // hwang2006/finetuning-gpt-oss-on-hpc: run_train.sh exports MODEL_ID, which train_unsloth_flex.py reads with a
  // default of its own; `MODEL_ID=... python train.py` gives it for that line alone.
  const train =
    'import os\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
    'm = AutoModelForCausalLM.from_pretrained(os.getenv("MODEL_ID", "gpt2"))\n' +
    'bs = int(os.environ.get("BS", "2"))\n' +
    'Trainer(model=m, args=TrainingArguments(output_dir="o", per_device_train_batch_size=bs)).train()\n';
  const run = (launch: string) =>
    runPipeline([{ file: '/w/run.sh', text: launch }], inMemory({ '/w/run.sh': launch, '/w/train.py': train }), {});

  it('an exported variable, or one the line sets before the command, is what os.getenv reads', () => {
    const exported = run('export MODEL_ID=Qwen/Qwen2.5-0.5B\npython train.py\n');
    assert.deepEqual([exported.setup?.model, exported.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 2]);
    const model = exported.files.find((f) => f.file === '/w/train.py')?.facts.facts.find((f) => f.key === 'model');
    assert.match(model?.rawValue ?? '', /MODEL_ID=Qwen\/Qwen2\.5-0\.5B in the launch line's environment/);
    const prefixed = run('MODEL_ID=Qwen/Qwen2.5-0.5B BS=4 python train.py\n');
    assert.deepEqual([prefixed.setup?.model, prefixed.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 4]);
  });

  it('a variable the script does not export is not in its environment: the default stands', () => {
    assert.equal(run('MODEL_ID=Qwen/Qwen2.5-0.5B\npython train.py\n').setup?.model, 'gpt2');
  });

  it('os.environ["X"] reads the environment too; without it the value is said to come from the environment', () => {
    const subscript = train.replace('os.getenv("MODEL_ID", "gpt2")', 'os.environ["MODEL_ID"]');
    const files = (launch: string) => inMemory({ '/w/run.sh': launch, '/w/train.py': subscript });
    const given = 'export MODEL_ID=Qwen/Qwen2.5-0.5B\npython train.py\n';
    assert.equal(runPipeline([{ file: '/w/run.sh', text: given }], files(given), {}).setup?.model, 'Qwen/Qwen2.5-0.5B');
    const none = runPipeline([{ file: '/w/run.sh', text: 'python train.py\n' }], files('python train.py\n'), {});
    assert.equal(none.setup, undefined);
    assert.ok(none.problems.some((p) => /MODEL_ID comes from the environment/.test(p.message)));
  });

  it('WORLD_SIZE is what the launcher sets: nproc_per_node x nnodes, or Accelerate num_processes', () => {
    // tloen/alpaca-lora's finetune.py idiom: world_size = int(os.environ.get("WORLD_SIZE", 1)); ddp = world_size != 1.
    // torch/distributed/run.py sets WORLD_SIZE for each process it starts, over what it is started with.
    const script =
      'import os\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      'world_size = int(os.environ.get("WORLD_SIZE", 1))\nddp = world_size != 1\ncheckpointing = True\n' +
      'if ddp:\n    checkpointing = False\nm = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=16 // world_size, ' +
      'gradient_checkpointing=checkpointing)\nTrainer(model=m, args=args).train()\n';
    const launched = (launch: string) => {
      const r = runPipeline(
        [{ file: '/w/run.sh', text: launch }],
        inMemory({ '/w/run.sh': launch, '/w/train.py': script }),
        {},
      );
      return [r.setup?.micro_batch_size, r.setup?.gradient_checkpointing];
    };
    assert.deepEqual(launched('torchrun --nproc_per_node=4 train.py\n'), [4, 'none']);
    assert.deepEqual(launched('WORLD_SIZE=1 torchrun --nproc_per_node 2 --nnodes 2 train.py\n'), [4, 'none']);
    assert.deepEqual(launched('accelerate launch --num_processes 8 --num_machines 2 train.py\n'), [2, 'none']);
    // One process: the script's default, 1.
    assert.deepEqual(launched('python train.py\n'), [16, 'full']);
  });
});

describe('a notebook that launches its run', () => {
  // IbrahimOued/torchtune-finetuning finetuning_llama2.ipynb (abridged): `!tune cp` copies torchtune's llama2/7B_lora
  // (whose header comment launches it on 2 GPUs) to configs/custom_lora.yaml, a cell runs it on 4, and a later cell
  // evaluates with `tune run eleuther_eval`. The run was read as the evaluation's config on the comment's 2 GPUs.
  const cell = (source: string) => ({ cell_type: 'code', metadata: {}, outputs: [], execution_count: null, source });
  const notebook = JSON.stringify({
    cells: [
      cell(
        '!tune run --nnodes 1 --nproc_per_node 4 ./recipes/lora_finetune_distributed.py --config ./configs/custom_lora.yaml',
      ),
      cell('!tune run eleuther_eval --config ./configs/custom_eval_config.yaml'),
    ],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  });
  const files: Record<string, string> = {
    '/w/nb.ipynb': notebook,
    '/w/configs/custom_lora.yaml': [
      '#   tune run --nnodes 1 --nproc_per_node 2 lora_finetune_fsdp2 --config llama2/7B_lora',
      'model:',
      '  _component_: torchtune.models.llama2.lora_llama2_7b',
      "  lora_attn_modules: ['q_proj','v_proj']",
      '  lora_rank: 8',
      'batch_size: 2',
      'dtype: bf16',
      '',
    ].join('\n'),
    '/w/configs/custom_eval_config.yaml': [
      'model:',
      '  _component_: torchtune.models.llama2.llama2_7b',
      'batch_size: 8',
      '',
    ].join('\n'),
  };

  it("is the run's launcher: its GPUs win over a config's header comment; an evaluation recipe is no training launch", () => {
    const r = runPipeline([{ file: '/w/nb.ipynb', text: notebook }], inMemory(files), {});
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.micro_batch_size, 2);
    assert.equal(r.setup?.gpus_per_node, 4);
  });
});
