// DeepSpeed configs that LLaMA-Factory and Axolotl ship (src/analyzers/deepspeed-json/bundled.ts), named by a file of
// the run that is not there: read as the tool ships them where the file or the launch line is that tool's; else the
// estimate goes without ZeRO, and the warning at the path says so.
import * as assert from 'node:assert/strict';
import { runFiles } from './helpers';

// Zhou-bl/Toy-LIMA@0c28783 sft_deepspeed.sh, shortened: LLaMA-Factory's src/train_bash.py era, from a checkout whose
// examples/deepspeed/ folder is not in the repository.
const TOY_LIMA = [
  'cd LLaMA-Factory',
  'deepspeed --num_gpus 1 src/train_bash.py \\',
  '    --deepspeed /amax/zbl/toy_LIMA/LLaMA-Factory/examples/deepspeed/ds_z2_offload_config.json \\',
  '    --stage sft --do_train True --model_name_or_path Qwen/Qwen1.5-1.8B --finetuning_type full \\',
  '    --template qwen --cutoff_len 512 --per_device_train_batch_size 4 --bf16 True',
  '',
].join('\n');

describe('DeepSpeed configs a tool ships, named by a file that is not there', () => {
  it("reads LLaMA-Factory's ZeRO-2 offload file for its launch line: stage 2, the optimizer on the CPU", () => {
    const r = runFiles({ '/w/sft_deepspeed.sh': TOY_LIMA }, '/w/sft_deepspeed.sh');
    assert.equal(r.setup?.zero_stage, 2);
    assert.equal(r.setup?.offload_optimizer, 'cpu');
    assert.match(JSON.stringify(r.provenance?.zero_stage), /ds_z2_offload_config\.json as LLaMA-Factory ships it/);
    assert.ok(!r.problems.some((p) => p.code === 'reference-not-found' && /ds_z2_offload/.test(p.message)));
  });

  it("reads it for LLaMA-Factory's YAML, as its examples name it", () => {
    const yaml = [
      'model_name_or_path: Qwen/Qwen2.5-1.5B',
      'stage: sft',
      'do_train: true',
      'finetuning_type: full',
      'deepspeed: examples/deepspeed/ds_z3_config.json',
      'per_device_train_batch_size: 1',
      'cutoff_len: 1024',
      'bf16: true',
      '',
    ].join('\n');
    const r = runFiles({ '/w/train.yaml': yaml }, '/w/train.yaml');
    assert.equal(r.setup?.zero_stage, 3);
  });

  it("another launch's missing file is no tool's: no ZeRO, and the warning at its path says so", () => {
    const line = 'deepspeed --num_gpus 2 train.py --deepspeed /abs/zero3_custom.json --model_name_or_path gpt2\n';
    const files = { '/w/run.sh': line, '/w/train.py': 'from transformers import Trainer, TrainingArguments\n' };
    const r = runFiles(files, '/w/run.sh');
    assert.equal(r.setup?.zero_stage, 0);
    const p = r.problems.find((x) => x.code === 'reference-not-found');
    assert.match(p?.message ?? '', /zero3_custom\.json .*the estimate is without ZeRO and offload/);
    // A plain script's path that looks like LLaMA-Factory's is not its file either.
    const lookalike = line.replace('/abs/zero3_custom.json', 'examples/deepspeed/ds_z3_config.json');
    const s = runFiles({ ...files, '/w/run.sh': lookalike }, '/w/run.sh');
    assert.equal(s.setup?.zero_stage, 0);
  });
});
