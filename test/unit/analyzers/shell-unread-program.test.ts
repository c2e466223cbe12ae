// A command that is neither a script nor a known tool, whose options are the HF Trainer's (a project's own console
// script): read by their names, and said so at the command.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { checkFacts } from './shell-common';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { inMemory } from '../helpers';

describe("shell analyzer: a program not in the files, passed the HF Trainer's options", () => {
  // icip-cas/AutoAlign scripts/train_sft.sh: `autoalign-cli sft --model_name_or_path ... --deepspeed ...`; the command
  // is the package's console script.
  const text = [
    'autoalign-cli sft \\',
    '    --model_name_or_path Qwen/Qwen2-7B \\',
    '    --per_device_train_batch_size 4 \\',
    '    --gradient_accumulation_steps 16 \\',
    '    --model_max_length 4096 \\',
    '    --gradient_checkpointing True \\',
    '    --deepspeed configs/zero3.json',
    '',
  ].join('\n');

  it('reads the options by their names, as a script of the HF Trainer would be', () => {
    const r = checkFacts(text, [
      ['model', 'Qwen/Qwen2-7B', '--model_name_or_path', 'Qwen/Qwen2-7B'],
      ['microBatchSize', 4, '--per_device_train_batch_size', '4'],
      ['gradientAccumulationSteps', 16, '--gradient_accumulation_steps', '16'],
      ['seqLen', 4096, '--model_max_length', '4096'],
      ['gradientCheckpointing', 'full', '--gradient_checkpointing', 'True'],
    ]);
    assert.deepEqual(r.tools, ['hf-trainer']);
    // The program by its name, which a console script of the project may be (collect/index.ts), and the config.
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path, x.program]),
      [
        ['script', 'autoalign-cli', true],
        ['deepspeed', 'configs/zero3.json', undefined],
      ],
    );
  });

  it('says at the command that the program is not read', () => {
    const r = analyzeShell(text);
    const notes = r.problems.filter((p) => p.code === 'read-by-name');
    assert.equal(notes.length, 1);
    assert.equal(text.slice(notes[0].span.start, notes[0].span.end), 'autoalign-cli');
    assert.match(notes[0].message, /^autoalign-cli is a program whose code is not in these files/);
  });

  it("a command with the model's option but none only the Trainer has is not read as one", () => {
    const r = analyzeShell('python_env/bin/convert --model_name_or_path Qwen/Qwen2-7B --output_dir out\n');
    assert.deepEqual(r.tools, []);
    assert.equal(
      r.facts.some((f) => f.key === 'model'),
      false,
    );
  });

  // PetroGPT/PetroGPT: scripts/train_sft.sh runs `petrogpt-train --stage sft ...`, which its setup.py declares as
  // `"petrogpt-train  = petrogpt_cli.train:cli_main"` (the setuptools way; pyproject.toml's [project.scripts] too).
  const launcher =
    'petrogpt-train --stage sft \\\n    --model_name_or_path Qwen/Qwen2.5-0.5B \\\n' +
    '    --per_device_train_batch_size 4 \\\n    --gradient_accumulation_steps 4\n';
  const setup =
    'from setuptools import setup\nsetup(\n    name="petrogpt",\n    entry_points={\n        "console_scripts": [\n' +
    '            "petrogpt-train  = petrogpt_cli.train:cli_main",\n        ]\n    },\n)\n';
  const run = (module: string) => {
    const files = {
      '/p/scripts/train_sft.sh': launcher,
      '/p/setup.py': setup,
      '/p/petrogpt_cli/train.py': module,
    };
    return runPipeline([{ file: '/p/scripts/train_sft.sh', text: launcher }], inMemory(files), {});
  };

  it("a console script its setup.py declares is read as the program's code: its settings count, the note goes", () => {
    const module =
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n' +
      'def cli_main():\n    (args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n' +
      '    args.gradient_checkpointing = True\n' +
      '    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
      '    Trainer(model=model, args=args).train()\n';
    const r = run(module);
    assert.ok(r.files.some((f) => f.file === '/p/petrogpt_cli/train.py'));
    assert.equal(r.setup?.micro_batch_size, 4);
    assert.ok(!r.problems.some((p) => p.code === 'read-by-name'), JSON.stringify(r.problems));
    assert.ok(!r.problems.some((p) => /not found/.test(p.message)));
  });

  it('a console script whose module gives none of the settings: said with the module it runs', () => {
    const r = run('from petrogpt import run_exp\ndef cli_main():\n    run_exp()\n');
    const note = r.problems.find((p) => p.code === 'read-by-name');
    assert.match(note?.message ?? '', /^petrogpt-train runs petrogpt_cli\/train\.py, a console script of this project/);
  });
});
