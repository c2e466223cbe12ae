// The file an HfArgumentParser reads its dataclasses from through one of the script's options (hf-python/
// arguments-file.ts), the choice between trainers on the branches of an `if` (calls.ts trainerCall, launch-args.ts
// withTrainerChosen), and the run of such a file opened alone (node/config-readers.ts). The shape is that of
// yangjianxin1/Firefly's train.py: `parser.add_argument("--train_args_file", default='train_args/sft/qlora/...json')`,
// `HfArgumentParser((CustomizedArguments, TrainingArguments)).parse_json_file(json_file=train_args_file)`, then
// `DPOTrainer(model, ref_model, ...)` when `args.task_type == 'dpo'`, else `Trainer(...)`.
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../../src/cli/main';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { RunIndex } from '../../../src/server/runs';
import { Workspace } from '../../../src/server/workspace';
import { runProject, tempDir } from '../helpers';
import * as fs from 'node:fs';

const TRAIN = [
  'import argparse',
  'from dataclasses import dataclass, field',
  'from peft import LoraConfig, get_peft_model',
  'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
  'from trl import DPOTrainer',
  '',
  '@dataclass',
  'class CustomizedArguments:',
  '    model_name_or_path: str = field(metadata={"help": "model"})',
  '    task_type: str = field(default="sft")',
  '    train_mode: str = field(default="lora")',
  '    lora_rank: int = field(default=64)',
  '',
  'def setup():',
  '    parser = argparse.ArgumentParser()',
  '    # parser.add_argument("--train_args_file", type=str, default="train_args/old/full/old.json")',
  '    parser.add_argument("--train_args_file", type=str, default="train_args/sft/lora/qwen-sft-lora.json")',
  '    args = parser.parse_args()',
  '    train_args_file = args.train_args_file',
  '    parser = HfArgumentParser((CustomizedArguments, TrainingArguments))',
  '    args, training_args = parser.parse_json_file(json_file=train_args_file)',
  '    return args, training_args',
  '',
  'def build(args, training_args):',
  '    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, torch_dtype="bfloat16")',
  '    if args.train_mode == "full":',
  '        peft_config = None',
  '    else:',
  '        peft_config = LoraConfig(r=args.lora_rank, lora_alpha=16, target_modules=["q_proj", "v_proj"])',
  '    components = {"ref_model": None, "peft_config": peft_config}',
  '    if args.task_type == "dpo":',
  '        trainer = DPOTrainer(model, components["ref_model"], args=training_args,',
  '                             peft_config=components["peft_config"])',
  '    else:',
  '        model = get_peft_model(model, peft_config)',
  '        trainer = Trainer(model=model, args=training_args)',
  '    return trainer',
  '',
  'def main():',
  '    args, training_args = setup()',
  '    trainer = build(args, training_args)',
  '    trainer.train()',
  '',
  'main()',
  '',
].join('\n');

const json = (o: Record<string, unknown>): string => `${JSON.stringify(o, null, 2)}\n`;
const SFT = json({
  output_dir: 'out',
  model_name_or_path: 'Qwen/Qwen2.5-7B',
  per_device_train_batch_size: 2,
  gradient_accumulation_steps: 8,
  bf16: true,
});
const DPO = json({
  output_dir: 'out',
  model_name_or_path: 'Qwen/Qwen2.5-1.5B',
  task_type: 'dpo',
  per_device_train_batch_size: 1,
  bf16: true,
});
const FULL = json({ output_dir: 'out', model_name_or_path: 'Qwen/Qwen2.5-0.5B', train_mode: 'full', bf16: true });

const PROJECT = {
  'train.py': TRAIN,
  'train_args/sft/lora/qwen-sft-lora.json': SFT,
  'train_args/dpo/lora/qwen-dpo-lora.json': DPO,
  'train_args/sft/full/qwen-sft-full.json': FULL,
};

/** The project's files written to a new temporary folder. */
function projectDir(): string {
  const dir = tempDir('vram-lens-args-file-');
  for (const [rel, text] of Object.entries(PROJECT)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe("hf-python: the arguments file a script's option names", () => {
  it("alone, the script reads the file its option's default names (not a commented-out call's)", () => {
    const r = runProject(PROJECT, 'train.py');
    assert.equal(r.decided.model?.fact.value, 'Qwen/Qwen2.5-7B');
    // per_device_train_batch_size 2 from the JSON, not TrainingArguments' default 8.
    assert.equal(r.setup?.micro_batch_size, 2);
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.lora?.r, 64);
    // task_type defaults to "sft": the else branch's Trainer, no preference objective, no reference model.
    assert.equal(r.setup?.preference, undefined);
    assert.equal(r.decided.preference, undefined);
  });

  it("a launch line's --train_args_file names the file; its task_type picks DPOTrainer", () => {
    const files = {
      ...PROJECT,
      'run.sh': 'python train.py --train_args_file train_args/dpo/lora/qwen-dpo-lora.json\n',
    };
    const r = runProject(files, 'run.sh');
    assert.equal(r.decided.model?.fact.value, 'Qwen/Qwen2.5-1.5B');
    assert.equal(r.setup?.micro_batch_size, 1);
    assert.equal(r.decided.preference?.fact.value, 'dpo');
    // The reference is `components["ref_model"]`, looked up at run time: with peft_config, TRL turns the adapters
    // off for it (DPOTrainer without ref_model), no copy of the model.
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.preference?.reference, 'adapters-off');
  });

  it('a full DPO run: no LoRA though the trainer is handed a peft_config looked up at run time, and a reference copy', () => {
    const files = {
      ...PROJECT,
      'train_args/dpo/full/qwen-dpo-full.json': json({
        output_dir: 'out',
        model_name_or_path: 'Qwen/Qwen2.5-0.5B',
        task_type: 'dpo',
        train_mode: 'full',
      }),
      'run.sh': 'python train.py --train_args_file train_args/dpo/full/qwen-dpo-full.json\n',
    };
    const r = runProject(files, 'run.sh');
    assert.equal(r.setup?.method, 'full');
    // TRL's DPOTrainer without ref_model and without PEFT copies the model as its reference (create_reference_model).
    assert.equal(r.setup?.preference?.reference, 'copy');
  });

  it('a LoraConfig on the else of `if args.train_mode == "full"` is no LoRA when the file says full', () => {
    const files = {
      ...PROJECT,
      'run.sh': 'python train.py --train_args_file train_args/sft/full/qwen-sft-full.json\n',
    };
    const r = runProject(files, 'run.sh');
    assert.equal(r.decided.model?.fact.value, 'Qwen/Qwen2.5-0.5B');
    assert.equal(r.setup?.method, 'full');
  });

  it('the run of a file in another folder of the same tree is the script with that file (CLI)', async () => {
    const dir = projectDir();
    // A README command that names another file does not replace the default that names this one.
    fs.writeFileSync(
      path.join(dir, 'README.md'),
      '```bash\npython train.py --train_args_file train_args/sft/full/qwen-sft-full.json\n```\n',
    );
    const cli = async (file: string): Promise<{ code: number; out: string; err: string }> => {
      let out = '';
      let err = '';
      const env = { HOME: os.tmpdir(), HF_HUB_CACHE: path.join(os.tmpdir(), 'vram-lens-no-cache') };
      const io = { out: (s: string) => (out += `${s}\n`), err: (s: string) => (err += `${s}\n`), cwd: dir, env };
      const code = await run(['estimate', file, '--json'], io);
      return { code, out, err };
    };
    const dpo = await cli('train_args/dpo/lora/qwen-dpo-lora.json');
    assert.equal(dpo.code, 0, dpo.err);
    assert.match(dpo.err, /read as the run of train\.py --train_args_file train_args\/dpo\/lora\/qwen-dpo-lora\.json/);
    assert.match(
      dpo.err,
      /its --train_args_file reads train_args\/sft\/lora\/qwen-sft-lora\.json, a file of the same folder tree/,
    );
    assert.equal((JSON.parse(dpo.out) as { model: string }).model, 'Qwen/Qwen2.5-1.5B');
    const sft = await cli('train_args/sft/lora/qwen-sft-lora.json');
    assert.equal(sft.code, 0, sft.err);
    assert.match(sft.err, /qwen-sft-lora\.json is part of a run; read as the run of train\.py/);
    assert.equal((JSON.parse(sft.out) as { model: string }).model, 'Qwen/Qwen2.5-7B');
  });

  it("the editor's index: the script runs with the file its default names, and with a sibling tree's file", async () => {
    const dir = projectDir();
    const workspace = new Workspace(true, { HOME: '/nonexistent' });
    workspace.setFolders([dir]);
    const index = new RunIndex(workspace, () => undefined);
    index.rebuild();
    for (let i = 0; i < 200 && !index.ready; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(index.ready, 'the index finished');
    const runOf = (rel: string): ReturnType<typeof runPipeline> => {
      const file = path.join(dir, rel);
      const found = index.runFor(file);
      assert.ok(found, `a run for ${rel}`);
      const doc = { file, text: fs.readFileSync(file, 'utf8') };
      return runPipeline([...found.inputs.filter((i) => i.file !== file), doc], workspace.reader(dir), {});
    };
    const sft = runOf('train_args/sft/lora/qwen-sft-lora.json');
    assert.equal(sft.decided.model?.fact.value, 'Qwen/Qwen2.5-7B');
    assert.equal(sft.setup?.micro_batch_size, 2);
    const dpo = runOf('train_args/dpo/lora/qwen-dpo-lora.json');
    assert.equal(dpo.decided.model?.fact.value, 'Qwen/Qwen2.5-1.5B');
    assert.equal(dpo.decided.preference?.fact.value, 'dpo');
  });
});
