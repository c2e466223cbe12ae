// argparse's abbreviated options on a launch line (shell/abbreviations.ts): HfArgumentParser, an ArgumentParser with
// allow_abbrev on, takes a unique prefix of an option for the option. cynthia/llm-jp-sft's run_sft.sh (Apache-2.0) passes
// `--per_device_train_batch 2` to its HfArgumentParser script, which runs with per_device_train_batch_size 2, not the
// default 8. The option names are TrainingArguments' of transformers 4.57.6 and 5.17.0 and TRL 1.13's config fields.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { abbreviatedOption } from '../../../src/analyzers/shell/abbreviations';
import { checkFacts } from './shell-common';

describe('shell: abbreviated options of the training script', () => {
  it("reads a unique prefix as its option: --per_device_train_batch 2 is the micro-batch, at the option's text", () => {
    const text = 'accelerate launch train.py --per_device_train_batch 2 --gradient_accumulation 64 --bf16\n';
    checkFacts(text, [
      ['microBatchSize', 2, '--per_device_train_batch', '2'],
      ['gradientAccumulationSteps', 64, '--gradient_accumulation', '64'],
    ]);
  });

  it('reads no option from a prefix of several (argparse refuses it) or of none', () => {
    // per_device_train_batch_size and per_device_eval_batch_size; gradient_checkpointing and its _kwargs.
    const r = analyzeShell('torchrun train.py --per_device 4 --gradient_checkpoint --my_own_flag 3\n');
    assert.deepEqual(
      r.facts.filter((f) => ['microBatchSize', 'evalBatchSize', 'gradientCheckpointing'].includes(f.key)),
      [],
    );
    assert.equal(
      abbreviatedOption('per_device', () => true),
      undefined,
    );
    assert.equal(
      abbreviatedOption('gradient_checkpoint', () => true),
      undefined,
    );
  });

  it('an option written in full is itself, never another it is a prefix of', () => {
    // bf16 is an option and a prefix of bf16_full_eval: argparse takes the exact match.
    assert.equal(
      abbreviatedOption('bf16', () => true),
      undefined,
    );
    assert.equal(
      abbreviatedOption('per_device_train_batch', () => true),
      'per_device_train_batch_size',
    );
    assert.equal(
      abbreviatedOption('per_device_train_batch', () => false),
      undefined,
    );
  });
});
