// The HF Trainer's DeepSpeed integration refuses a DeepSpeed value that mismatches TrainingArguments
// (src/analyzers/resolve/deepspeed-trainer.ts; transformers integrations/deepspeed.py trainer_config_process and
// trainer_config_finalize).
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

const SCRIPT = [
  'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
  '(args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()',
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype="bfloat16")',
  'Trainer(model=model, args=args).train()',
  '',
].join('\n');
const LOOP = [
  'import deepspeed',
  'from transformers import AutoModelForCausalLM',
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype="bfloat16")',
  'engine, opt, _, _ = deepspeed.initialize(model=model, config=args.deepspeed)',
  'for batch in loader:',
  '    engine.backward(engine(**batch).loss)',
  '    engine.step()',
  '',
].join('\n');
// xforce-io/llm-finetune's shape: the launcher's micro-batch 12 against the DeepSpeed file's 4.
const LAUNCH = 'deepspeed --num_gpus 4 train.py --deepspeed ds.json --per_device_train_batch_size 12 --bf16\n';
const ds = (micro: number | string) =>
  JSON.stringify({ train_micro_batch_size_per_gpu: micro, zero_optimization: { stage: 2 } }, null, 2);

describe("resolve: a DeepSpeed value the HF Trainer's arguments contradict", () => {
  it('is an error at the DeepSpeed value under a script that builds the Trainer, and the estimate uses the argument', () => {
    const r = runFiles({ '/t/run.sh': LAUNCH, '/t/train.py': SCRIPT, '/t/ds.json': ds(4) }, '/t/run.sh');
    const p = r.problems.find((x) => x.code === 'batch-size-mismatch');
    assert.ok(p, JSON.stringify(r.problems));
    assert.equal(p.severity, 'error');
    assert.equal(p.file, '/t/ds.json');
    assert.match(p.message, /train_micro_batch_size_per_gpu 4 here, --per_device_train_batch_size 12 at run\.sh:1/);
    assert.equal(r.setup?.micro_batch_size, 12);
  });

  it('is none for "auto" or the same value, nor under a loop of its own that calls deepspeed.initialize', () => {
    const files = (micro: number | string, script = SCRIPT) => ({
      '/t/run.sh': LAUNCH,
      '/t/train.py': script,
      '/t/ds.json': ds(micro),
    });
    for (const f of [files('auto'), files(12), files(4, LOOP)]) {
      const r = runFiles(f, '/t/run.sh');
      assert.ok(!r.problems.some((x) => x.code === 'batch-size-mismatch'), JSON.stringify(r.problems));
    }
  });
});

describe("resolve: a DeepSpeed precision the HF Trainer's arguments contradict", () => {
  // artidoro/detect-gentext generator/scripts/gptneo_nela_covid_finetune.sh: `deepspeed run_clm.py ... --bf16
  // --deepspeed deepspeed_config.json` with `"fp16": {"enabled": true}`. The Trainer fills fp16.enabled from its fp16
  // argument (False) and refuses the written true (integrations/deepspeed.py fill_match, trainer_config_finalize).
  const files = (fp16: boolean | string, flags = '--bf16') => ({
    '/t/run.sh': `deepspeed --num_gpus 4 train.py --deepspeed ds.json ${flags}\n`,
    '/t/train.py': SCRIPT,
    '/t/ds.json': JSON.stringify({ fp16: { enabled: fp16 }, zero_optimization: { stage: 3 } }, null, 2),
  });

  it('is an error at fp16.enabled true where the arguments leave fp16 at its default False', () => {
    const r = runFiles(files(true), '/t/run.sh');
    const p = r.problems.find((x) => x.code === 'conflicting-precision');
    assert.ok(p, JSON.stringify(r.problems));
    assert.equal(p.severity, 'error');
    assert.equal(p.file, '/t/ds.json');
    assert.equal(p.line, 3);
    assert.match(p.message, /^fp16\.enabled true here, fp16 false in the training arguments \(the Trainer's default\)/);
  });

  it('is none for "auto", for the value the arguments give, nor under a loop of its own', () => {
    const loop = { ...files(true), '/t/train.py': LOOP };
    for (const f of [files('auto'), files(true, '--fp16'), loop]) {
      const r = runFiles(f, '/t/run.sh');
      assert.ok(!r.problems.some((x) => x.code === 'conflicting-precision'), JSON.stringify(r.problems));
    }
  });
});
