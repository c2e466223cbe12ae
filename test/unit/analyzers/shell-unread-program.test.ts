// A command that is neither a script nor a known tool, whose options are the HF Trainer's (a project's own console
// script): read by their names, and said so at the command.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { checkFacts } from './shell-common';

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
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['deepspeed', 'configs/zero3.json']],
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
});
