// A launch line's options given to a script that reads no command line (src/analyzers/collect/unread-command-line.ts):
// the shape of yuanzhoulvpi2017/zero_nlp's rl_grpo, whose example_grpo.py builds GRPOConfig(...) from literals and
// parses nothing while its launcher passes flags.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { inMemory } from '../helpers';

const SCRIPT =
  'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=4, gradient_accumulation_steps=2)\n' +
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
  'Trainer(model=model, args=args).train()\n';

function run(script: string, line = 'torchrun --nproc_per_node 2 train.py --per_device_train_batch_size 8\n') {
  const files = { '/w/run.sh': line, '/w/train.py': script };
  return runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
}

describe('analyzers: options a launch line passes a script that reads no command line', () => {
  it("set nothing: the script's own arguments stand, the launcher's processes too, and a note says so", () => {
    const r = run(SCRIPT);
    assert.deepEqual([r.setup?.micro_batch_size, r.setup?.gpus_per_node], [4, 2]);
    const note = r.files.flatMap((f) => f.facts.problems).find((p) => /reads no command line/.test(p.message));
    assert.equal(note?.rawKey, '--per_device_train_batch_size');
  });

  it('a script that parses its command line takes them', () => {
    const parsed = SCRIPT.replace(
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=4, gradient_accumulation_steps=2)\n',
      'from transformers import HfArgumentParser\n(args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()\n',
    );
    assert.equal(run(parsed).setup?.micro_batch_size, 8);
    assert.equal(run(`import sys\nprint(sys.argv[1:])\n${SCRIPT}`).setup?.micro_batch_size, 8);
  });
});
