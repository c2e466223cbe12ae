// A JSON / YAML file a script loads for its values, as a file of the script's run (src/analyzers/script-data.ts): the
// items the script takes are located at the file's keys, the editor shows the run there (diagnostic, hover), and a fix
// rewrites the value where it is written (src/features/fixes/planners/script-data.ts), not the script's read of it.
// The script is shaped as the research scripts of test/real-files and the fresh samples: `with open("configs/sft.yaml")
// as f: cfg = yaml.safe_load(f)`, then `cfg["train"]["micro_batch_size"]` into TrainingArguments.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { catalogResolver } from '../../src/analyzers/resolve';
import { analyzeDocument, type AnalysisSettings } from '../../src/features/analysis';
import { applyEditData } from '../../src/features/fixes';
import { hoverAt } from '../../src/features/hover';
import { quickFixes } from '../../src/features/quick-fixes';
import { runFact, runFiles } from './helpers';

const SCRIPT = [
  'import yaml',
  'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
  'with open("configs/sft.yaml") as f:',
  '    cfg = yaml.safe_load(f)',
  'model = AutoModelForCausalLM.from_pretrained(cfg["model"]["name"])',
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=cfg["train"]["micro_batch_size"],',
  '    gradient_accumulation_steps=cfg["train"].get("grad_accum", 1), bf16=True)',
  'Trainer(model=model, args=args).train()',
  '',
].join('\n');
const YAML = 'model:\n  name: mistralai/Mistral-7B-v0.1\ntrain:\n  micro_batch_size: 16\n  grad_accum: 8\n';
const settings: AnalysisSettings = { gpu: 'A100-80GB', headroomPercent: 5 };

function analyze(file: string, files: Record<string, string>, related: string[]) {
  const reader = {
    read: (p: string) => files[p],
    join: (from: string, rel: string) => path.posix.join(path.posix.dirname(from), rel),
  };
  return analyzeDocument({ file, text: files[file] }, settings, {
    reader,
    resolver: catalogResolver,
    related: related.map((f) => ({ file: f, text: files[f] })),
  });
}

describe('a JSON / YAML file a script loads, as a file of its run', () => {
  it('the items the script takes as written are facts of the file, at its keys; the estimate is the same', () => {
    const files = { '/p/train.py': SCRIPT, '/p/configs/sft.yaml': YAML };
    const run = runFiles(files, '/p/train.py');
    const loaded = run.files.find((f) => f.file === '/p/configs/sft.yaml');
    assert.equal(loaded?.facts.format, 'script-data');
    assert.deepEqual(
      loaded?.facts.facts.map((f) => [f.key, YAML.slice(f.keySpan.start, f.keySpan.end), f.rawValue]),
      [
        ['model', 'name', 'mistralai/Mistral-7B-v0.1'],
        ['microBatchSize', 'micro_batch_size', '16'],
        ['gradientAccumulationSteps', 'grad_accum', '8'],
      ],
    );
    // Said where it is written: the file's line and key.
    assert.deepEqual(run.provenance.micro_batch_size, {
      kind: 'file',
      file: '/p/configs/sft.yaml',
      line: 4,
      key: 'train.micro_batch_size',
    });
    // from_pretrained without a dtype still loads Mistral's bfloat16 (the fact keeps the script's key).
    assert.equal(run.setup?.weights_dtype, 'bf16');
    assert.equal(runFact(run, 'bf16')?.file, '/p/train.py');
  });

  it("an item the script changes (`* 2`, `not`) stays the script's: the file does not write that value", () => {
    const script = SCRIPT.replace('cfg["train"]["micro_batch_size"]', 'cfg["train"]["micro_batch_size"] * 2');
    const run = runFiles({ '/p/train.py': script, '/p/configs/sft.yaml': YAML }, '/p/train.py');
    assert.equal(run.setup?.micro_batch_size, 32);
    assert.equal(run.decided.microBatchSize?.file, '/p/train.py');
  });

  it('a function of the script that returns what a loader read (`load_config(args.config)`) is read through', () => {
    // eduardd76/fine-tuned-Phi-4-14B fine_tuning/train.py: `def load_config(config_path): with open(config_path) as f:
    // return yaml.safe_load(f)`, `config = load_config(args.config)`, `model_cfg = config["model"]`.
    const script = [
      'import argparse, yaml',
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'def load_config(config_path):',
      '    with open(config_path, encoding="utf-8") as f:',
      '        return yaml.safe_load(f)',
      'def main():',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--config", default="config.yaml")',
      '    args = parser.parse_args()',
      '    config = load_config(args.config)',
      '    model_cfg = config["model"]',
      '    model = AutoModelForCausalLM.from_pretrained(model_cfg["name"])',
      '    t = TrainingArguments(output_dir="o", per_device_train_batch_size=config["training"]["batch_size"])',
      '    Trainer(model=model, args=t).train()',
      'main()',
      '',
    ].join('\n');
    const yaml = 'model:\n  name: Qwen/Qwen2.5-7B\ntraining:\n  batch_size: 4\n';
    const run = runFiles({ '/p/train.py': script, '/p/config.yaml': yaml }, '/p/train.py');
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['Qwen/Qwen2.5-7B', 4]);
    // The model as the run decides it: the file's item, at its key.
    assert.equal(run.decided.model?.file, '/p/config.yaml');
    assert.equal(run.decided.model?.location.line, 2);
  });

  it('the editor shows the run at the file: the diagnostic at the micro-batch key, the hover there', () => {
    const files = { '/p/train.py': SCRIPT, '/p/configs/sft.yaml': YAML };
    const doc = analyze('/p/configs/sft.yaml', files, ['/p/train.py']);
    const script = analyze('/p/train.py', files, []);
    assert.equal(doc.format, 'script-data');
    // One run: the same bytes from either file.
    assert.equal(doc.estimate?.perGpu.deviceBytes, script.estimate?.perGpu.deviceBytes);
    const over = doc.findings.find((f) => f.code === 'exceeds-gpu-memory');
    assert.equal(over && YAML.slice(over.span.start, over.span.end), 'micro_batch_size');
    const hover = hoverAt(doc, YAML.indexOf('grad_accum') + 2, YAML);
    assert.match(hover ?? '', /A100-80GB/);
  });

  it('a fix writes the new micro-batch and accumulation into the file, from the file and from the script', () => {
    const files = { '/p/train.py': SCRIPT, '/p/configs/sft.yaml': YAML };
    for (const [doc, related] of [
      ['/p/configs/sft.yaml', ['/p/train.py']],
      ['/p/train.py', []],
    ] as const) {
      const fixes = quickFixes(analyze(doc, files, [...related]));
      const micro = fixes.find((q) => /^-[\d.]+ GiB · Micro-batch \d+, accumulation \d+/.test(q.title));
      assert.ok(micro, `a micro-batch fix from ${doc}`);
      assert.deepEqual([...new Set(micro.edits.map((e) => e.file))], ['/p/configs/sft.yaml']);
      const after = applyEditData(YAML, micro.edits);
      const m = /micro_batch_size: (\d+)\n {2}grad_accum: (\d+)/.exec(after);
      assert.ok(m, after);
      // The global batch stays 16 x 8 = 128.
      assert.equal(Number(m[1]) * Number(m[2]), 128);
    }
  });

  it('a JSON file is written as JSON', () => {
    const script = SCRIPT.replace('configs/sft.yaml', 'cfg.json').replace('yaml.safe_load(f)', 'json.load(f)');
    const json =
      '{\n  "model": {"name": "mistralai/Mistral-7B-v0.1"},\n  "train": {"micro_batch_size": 16, "grad_accum": 8}\n}\n';
    const files = { '/p/train.py': `import json\n${script}`, '/p/cfg.json': json };
    const fixes = quickFixes(analyze('/p/cfg.json', files, ['/p/train.py']));
    const micro = fixes.find((q) => /Micro-batch \d+, accumulation \d+/.test(q.title));
    assert.ok(micro);
    const after = JSON.parse(applyEditData(json, micro.edits)) as { train: Record<string, number> };
    assert.equal(after.train.micro_batch_size * after.train.grad_accum, 128);
  });
});

describe('a Python module a script imports, as a file of its run', () => {
  it("a settings module shows the run's estimate, with no complaint that it is no config", () => {
    // The editor analyses a project module the index of runs puts in a script's run (server/runs.ts) with the run's
    // entry: the script reads MODEL_NAME and BATCH_SIZE from it. Written for this test.
    const files = {
      '/p/settings.py': 'MODEL_NAME = "Qwen/Qwen2.5-0.5B"\nBATCH_SIZE = 3\n',
      '/p/train.py':
        'from settings import MODEL_NAME, BATCH_SIZE\n' +
        'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
        'model = AutoModelForCausalLM.from_pretrained(MODEL_NAME)\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=BATCH_SIZE)).train()\n',
    };
    const a = analyze('/p/settings.py', files, ['/p/train.py']);
    assert.equal(a.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(a.setup?.micro_batch_size, 3);
    assert.ok(a.estimate);
    assert.deepEqual(
      a.findings.filter((f) => f.severity === 'error').map((f) => f.code),
      [],
    );
  });
});

describe("a script's own usage line", () => {
  // baremetaldevx86/Qwen-2.5-1.5B-GRPO scripts/run_grpo.py: `--config` is required, and the module docstring shows
  // `python scripts/run_grpo.py --config configs/grpo.yaml`; the trainer is built in a module of the project.
  const script = [
    '"""Run GRPO training for GSM8K.',
    '',
    'Usage:',
    '    python scripts/run_grpo.py --config configs/grpo.yaml',
    '"""',
    'import argparse, yaml',
    'from transformers import AutoModelForCausalLM',
    'from grpo_loop import build_trainer',
    'ap = argparse.ArgumentParser()',
    'ap.add_argument("--config", required=True)',
    'args = ap.parse_args()',
    'with open(args.config) as f:',
    '    cfg = yaml.safe_load(f)',
    'model = AutoModelForCausalLM.from_pretrained(cfg["model_path"], torch_dtype="bfloat16")',
    'build_trainer(cfg, model).train()',
    '',
  ].join('\n');
  const loop = [
    'from trl import GRPOConfig, GRPOTrainer',
    'def build_trainer(cfg, model):',
    '    args = GRPOConfig(output_dir="o", per_device_train_batch_size=cfg["per_device_train_batch_size"],',
    '                      num_generations=cfg["num_generations"], max_completion_length=cfg["max_completion_length"])',
    '    return GRPOTrainer(model=model, args=args)',
    '',
  ].join('\n');
  const yaml = [
    'model_path: Qwen/Qwen2.5-1.5B',
    'per_device_train_batch_size: 8',
    'num_generations: 8',
    'max_completion_length: 1024',
    '',
  ].join('\n');

  it('runs the script alone with the options the line passes, said to come from it', () => {
    const files = { '/p/scripts/run_grpo.py': script, '/p/scripts/grpo_loop.py': loop, '/p/configs/grpo.yaml': yaml };
    // This test's reader joins a path to the script's folder (no lookup from the folders above): the config is there.
    const run = runFiles({ ...files, '/p/scripts/configs/grpo.yaml': yaml }, '/p/scripts/run_grpo.py');
    assert.deepEqual(
      [run.setup?.model, run.setup?.micro_batch_size, run.setup?.rollout?.completion_len],
      ['Qwen/Qwen2.5-1.5B', 8, 1024],
    );
    // The module builds the trainer: the script is not said to train nothing.
    assert.ok(!run.problems.some((p) => /no Trainer, TRL trainer or training loop/.test(p.message)));
  });

  it("else the first command that runs it in the README.md of its folder (castorini/visa's qwen/README.md)", () => {
    // A train.py whose model option has no default and whose README documents `deepspeed ... train.py --model_name_or_path
    // ... --per_device_train_batch_size 1` (the repository's qwen/README.md, abridged).
    const train = [
      'from dataclasses import dataclass, field',
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
      '@dataclass',
      'class ModelArguments:',
      '    model_name_or_path: str = field(metadata={"help": "Path to pretrained model"})',
      'parser = HfArgumentParser((ModelArguments, TrainingArguments))',
      'model_args, training_args = parser.parse_args_into_dataclasses()',
      'model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)',
      'Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const readme = [
      '# Training',
      '```bash',
      'deepspeed --include localhost:0,1,2,3 train.py \\',
      '  --output_dir out \\',
      '  --model_name_or_path Qwen/Qwen2.5-0.5B \\',
      '  --per_device_train_batch_size 2 \\',
      '  --gradient_checkpointing',
      '```',
      '',
    ].join('\n');
    const run = runFiles({ '/p/qwen/train.py': train, '/p/qwen/README.md': readme }, '/p/qwen/train.py');
    // The command is the run's launch line, read in place in the README: the options the script reads, the Trainer's
    // own flags and the launcher's GPUs (--include localhost:0,1,2,3), each located at its place in README.md.
    assert.deepEqual(
      [run.setup?.model, run.setup?.micro_batch_size, run.setup?.gradient_checkpointing, run.setup?.gpus_per_node],
      ['Qwen/Qwen2.5-0.5B', 2, 'full', 4],
    );
    const model = runFact(run, 'model');
    assert.deepEqual([model?.file, model?.at], ['/p/qwen/README.md', 'Qwen/Qwen2.5-0.5B']);
    assert.equal(run.files.find((f) => f.file === '/p/qwen/README.md')?.role, 'launcher');
    // Without the README the model stays unknown.
    const alone = runFiles({ '/p/qwen/train.py': train }, '/p/qwen/train.py');
    assert.equal(alone.setup, undefined);
    // A command that names the script by another path (from the repository's top) does not lead back to it: the
    // script takes the line's options alone, and nothing of the README is part of the run.
    const elsewhere = readme.replace('train.py \\', 'qwen/train.py \\');
    const other = runFiles({ '/p/qwen/train.py': train, '/p/qwen/README.md': elsewhere }, '/p/qwen/train.py');
    assert.deepEqual([other.setup?.model, other.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 8]);
    assert.deepEqual(
      other.files.map((f) => f.file),
      ['/p/qwen/train.py'],
    );
    assert.equal(other.problems.filter((p) => p.severity !== 'info').length, 0);
    // The README of the folder above, where the script's own folder has none (nlpxucan/WizardLM's WizardCoder/README.md
    // runs `deepspeed train_wizardcoder.py ...` for src/train_wizardcoder.py): its command by the script's path from
    // there leads back to it; by its name alone it gives the script's options, as long as no file of that name is
    // beside the README.
    const byPath = readme.replace('train.py \\', 'src/train.py \\');
    const above = runFiles({ '/p/src/train.py': train, '/p/README.md': byPath }, '/p/src/train.py');
    assert.deepEqual(
      [above.setup?.model, above.setup?.micro_batch_size, above.setup?.gpus_per_node],
      ['Qwen/Qwen2.5-0.5B', 2, 4],
    );
    // A long README keeps its fine-tuning section far down: TigerResearch/TigerBot's runs train_sft.py at line 429.
    const long = `${'Some text.\n'.repeat(430)}${byPath}`;
    const far = runFiles({ '/p/src/train.py': train, '/p/README.md': long }, '/p/src/train.py');
    assert.deepEqual([far.setup?.model, far.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 2]);
    const bare = runFiles({ '/p/src/train.py': train, '/p/README.md': readme }, '/p/src/train.py');
    // By its name alone it does not lead back (no train.py beside the README): as for a command by another path, the
    // script takes the options it reads itself, and the Trainer's own flags are not the run's.
    assert.deepEqual([bare.setup?.model, bare.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 8]);
    // A model option with a default still needs a command line where the script parses transformers'
    // TrainingArguments from it: their output_dir had no default before transformers 4.50 (huggingface/transformers
    // #35735). deepseek-ai/DeepSeek-Coder's finetune/README.md runs finetune_deepseekcoder.py so, with the model in a
    // variable its code block sets first.
    const defaulted = train.replace(
      'field(metadata={"help": "Path to pretrained model"})',
      'field(default="deepseek-ai/deepseek-coder-6.7b-instruct")',
    );
    const withVariable = readme
      .replace('```bash\n', '```bash\nMODEL_PATH="Qwen/Qwen2.5-0.5B"\n\n')
      .replace('--model_name_or_path Qwen/Qwen2.5-0.5B', '--model_name_or_path $MODEL_PATH');
    const documented = runFiles(
      { '/p/qwen/train.py': defaulted, '/p/qwen/README.md': withVariable },
      '/p/qwen/train.py',
    );
    assert.deepEqual(
      [documented.setup?.model, documented.setup?.micro_batch_size, documented.setup?.gpus_per_node],
      ['Qwen/Qwen2.5-0.5B', 2, 4],
    );
    const shadowed = runFiles(
      { '/p/src/train.py': train, '/p/README.md': readme, '/p/train.py': train },
      '/p/src/train.py',
    );
    assert.equal(shadowed.setup, undefined);
  });

  it("the README's line is the command line of the modules the script calls into (a model class's class attribute)", () => {
    // castorini/visa qwen/: train.py calls `RagVisaModel.build(model_args, ...)` of ragvisa.py, whose classmethod loads
    // `cls.TRANSFORMER_CLS.from_pretrained(model_args.model_name_or_path)` with TRANSFORMER_CLS a model class; the
    // model comes from the README's command (abridged).
    const train = [
      'from dataclasses import dataclass, field',
      'from transformers import HfArgumentParser, Trainer, TrainingArguments',
      'from ragvisa import RagVisaModel',
      '@dataclass',
      'class ModelArguments:',
      '    model_name_or_path: str = field(metadata={"help": "Path to pretrained model"})',
      'parser = HfArgumentParser((ModelArguments, TrainingArguments))',
      'model_args, training_args = parser.parse_args_into_dataclasses()',
      'model = RagVisaModel.build(model_args, training_args)',
      'Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const helper = [
      'from torch import nn',
      'from transformers import Qwen2VLForConditionalGeneration',
      'class RagVisaModel(nn.Module):',
      '    TRANSFORMER_CLS = Qwen2VLForConditionalGeneration',
      '    @classmethod',
      '    def build(cls, model_args, train_args):',
      '        base = cls.TRANSFORMER_CLS.from_pretrained(model_args.model_name_or_path, torch_dtype="bfloat16")',
      '        return cls(base)',
      '',
    ].join('\n');
    const readme = [
      '```bash',
      'deepspeed train.py \\',
      '  --model_name_or_path Qwen/Qwen2-VL-7B-Instruct',
      '```',
      '',
    ].join('\n');
    const files = { '/p/qwen/train.py': train, '/p/qwen/ragvisa.py': helper, '/p/qwen/README.md': readme };
    const run = runFiles(files, '/p/qwen/train.py');
    assert.equal(run.setup?.model, 'Qwen/Qwen2-VL-7B-Instruct');
    // The module loads the model the README's line names (the launcher's fact, in README.md, and the module's own).
    const loaded = run.files.find((f) => f.file === '/p/qwen/ragvisa.py')?.facts.facts.find((f) => f.key === 'model');
    assert.equal(loaded?.value, 'Qwen/Qwen2-VL-7B-Instruct');
  });

  it("TRL's example scripts (TrlParser over a TRL config) run with their docstring's usage line", () => {
    // huggingface/trl examples/scripts/gspo.py, shortened: TrlParser reads GRPOConfig, a TrainingArguments, from the
    // command line (output_dir had no default before transformers 4.50), so the script runs only with one: the usage
    // line its docstring shows names the model.
    const gspo = [
      '"""',
      'Usage:',
      'python examples/scripts/gspo.py \\',
      '    --model_name_or_path Qwen/Qwen3-0.6B \\',
      '    --per_device_train_batch_size 4',
      '"""',
      'from trl import GRPOConfig, GRPOTrainer, ModelConfig, ScriptArguments, TrlParser',
      'parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))',
      'script_args, training_args, model_args = parser.parse_args_and_config()',
      'trainer = GRPOTrainer(model=model_args.model_name_or_path, args=training_args, reward_funcs=[])',
      'trainer.train()',
      '',
    ].join('\n');
    const run = runFiles({ '/p/examples/scripts/gspo.py': gspo }, '/p/examples/scripts/gspo.py');
    assert.equal(run.setup?.model, 'Qwen/Qwen3-0.6B');
    const model = runFact(run, 'model');
    assert.match(model?.fact.rawValue ?? '', /usage line of gspo\.py/);
    // The Trainer's flags of the line are the run's too (TrlParser fills GRPOConfig from them, whether the script
    // reads them or not): 4 per GPU, where GRPOConfig's default is 8; located on the line, which a note names.
    assert.equal(run.setup?.micro_batch_size, 4);
    const batch = runFact(run, 'microBatchSize');
    assert.equal(gspo.slice(batch?.fact.valueSpan.start, batch?.fact.valueSpan.end), '4');
    assert.match(batch?.fact.rawValue ?? '', /usage line of gspo\.py \(line 3\)/);
    assert.ok(run.problems.some((p) => /usage line here runs it.*--per_device_train_batch_size/.test(p.message)));
  });

  it('a usage line of another script, or one with no option, gives nothing', () => {
    const other = script.replace('scripts/run_grpo.py --config', 'scripts/run_sft.py --config');
    const run = runFiles(
      { '/p/scripts/run_grpo.py': other, '/p/scripts/configs/grpo.yaml': yaml },
      '/p/scripts/run_grpo.py',
    );
    assert.equal(run.setup, undefined);
    assert.ok(run.problems.some((p) => p.code === 'unknown-model'));
  });

  it('a usage line that runs the script by its console script (pyproject.toml [project.scripts])', () => {
    // techwithsergiu/qwen-qlora-train: `qlora-train = "qwen_qlora_train.train:main"`, and train.py's docstring shows
    // `qlora-train --config configs/qwen3/1.7b.yaml`. Here the package is scripts/ and the entry point run_grpo:main.
    const byName = script.replace('    python scripts/run_grpo.py --config', '  $ grpo-train --config');
    const pyproject = '[project]\nname = "p"\n\n[project.scripts]\ngrpo-train = "scripts.run_grpo:main"\n';
    const files = {
      '/p/scripts/run_grpo.py': byName,
      '/p/scripts/grpo_loop.py': loop,
      '/p/scripts/configs/grpo.yaml': yaml,
    };
    const run = runFiles({ ...files, '/p/pyproject.toml': pyproject }, '/p/scripts/run_grpo.py');
    assert.equal(run.setup?.model, 'Qwen/Qwen2.5-1.5B');
    assert.equal(run.setup?.micro_batch_size, 8);
    // Poetry's table names it too; an entry point of another module, or no pyproject.toml, does not.
    const poetry = pyproject.replace('[project.scripts]', '[tool.poetry.scripts]');
    assert.equal(
      runFiles({ ...files, '/p/pyproject.toml': poetry }, '/p/scripts/run_grpo.py').setup?.model,
      'Qwen/Qwen2.5-1.5B',
    );
    const other = pyproject.replace('scripts.run_grpo:main', 'scripts.grpo_loop:main');
    assert.equal(runFiles({ ...files, '/p/pyproject.toml': other }, '/p/scripts/run_grpo.py').setup, undefined);
    assert.equal(runFiles(files, '/p/scripts/run_grpo.py').setup, undefined);
  });

  it("a Trainer flag on the usage line of a script that parses no Trainer arguments is not the run's", () => {
    // run_grpo.py reads --config with argparse and builds GRPOConfig from the YAML: a --per_device_train_batch_size on
    // its usage line would stop argparse (an unknown option), it is no setting of the run: the YAML's 8 stands.
    const withFlag = script.replace(
      '--config configs/grpo.yaml',
      '--config configs/grpo.yaml --per_device_train_batch_size 2',
    );
    const files = { '/p/scripts/run_grpo.py': withFlag, '/p/scripts/grpo_loop.py': loop };
    const run = runFiles({ ...files, '/p/scripts/configs/grpo.yaml': yaml }, '/p/scripts/run_grpo.py');
    assert.equal(run.setup?.micro_batch_size, 8);
    assert.ok(!run.problems.some((p) => /usage line here runs it/.test(p.message)));
  });
});
