// The training examples LLaMA-Factory ships, named by a launch line that runs from a LLaMA-Factory checkout outside the
// run's files (src/analyzers/yaml/llamafactory-examples.ts).
import * as assert from 'node:assert/strict';
import { editableFiles } from '../../../src/features/fixes';
import { llamafactoryExampleName } from '../../../src/analyzers/yaml/llamafactory-examples';
import { runFiles } from '../helpers';

describe("LLaMA-Factory's shipped examples", () => {
  // Vitasii/NLP_Hw_2 part2/2.1.b.sh (abridged): the checkout is on the author's machine, so the YAML is not among the
  // run's files. hiyouga/LLaMA-Factory@0005269 examples/train_full/llama3_full_sft.yaml: finetuning_type full,
  // deepspeed examples/deepspeed/ds_z3_config.json, cutoff_len 2048, per_device_train_batch_size 1,
  // gradient_accumulation_steps 2, bf16 true.
  const line = [
    'cd /root/autodl-tmp/LLaMA-Factory',
    'FORCE_TORCHRUN=1 llamafactory-cli train \\',
    '  /root/autodl-tmp/LLaMA-Factory/examples/train_full/llama3_full_sft.yaml \\',
    '  model_name_or_path=Qwen/Qwen2.5-0.5B-Instruct \\',
    '  per_device_train_batch_size=4 \\',
    '  deepspeed=null',
    '',
  ].join('\n');

  it("are read as LLaMA-Factory's, under the line's overrides: a full fine-tune, not the LoRA of finetuning_type's default", () => {
    const r = runFiles({ '/t/run.sh': line }, '/t/run.sh');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual([s.model, s.method], ['Qwen/Qwen2.5-0.5B-Instruct', 'full']);
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.seq_len], [4, 2, 2048]);
    // deepspeed=null on the line wins over the example's ZeRO-3 file, and turns DeepSpeed off: LLaMA-Factory upcasts
    // what trains to fp32 in place (model/adapter.py _setup_full_tuning: param.data.to(torch.float32)), with bf16
    // autocast, not DeepSpeed's bf16 weights and fp32 master copy.
    assert.equal(s.zero_stage, 0);
    assert.deepEqual([s.weights_dtype, s.master_weights, s.mixed_precision], ['fp32', false, 'bf16']);
    const p = r.provenance.gradient_accumulation_steps;
    assert.ok(p?.kind === 'default' && p.owner === 'llamafactory', JSON.stringify(p));
    assert.match(p.note ?? '', /examples\/train_full\/llama3_full_sft\.yaml as LLaMA-Factory ships it/);
    // No "referenced file not found" at the path, and no quick fix edits the shipped example.
    assert.ok(!r.problems.some((x) => x.code === 'reference-not-found'), JSON.stringify(r.problems));
    assert.ok(!editableFiles(r.files).some((f) => f.file.startsWith('LLaMA-Factory: ')));
  });

  it("take the example's DeepSpeed file as LLaMA-Factory ships it when the line leaves it", () => {
    const r = runFiles(
      {
        '/t/run.sh': line.replace(
          '  per_device_train_batch_size=4 \\\n  deepspeed=null',
          '  per_device_train_batch_size=4',
        ),
      },
      '/t/run.sh',
    );
    assert.equal(r.setup?.zero_stage, 3);
    assert.deepEqual([r.setup?.weights_dtype, r.setup?.master_weights], ['bf16', true]);
  });

  it('are known by their path under examples/, relative or absolute, and a file of that name in the run is read instead', () => {
    assert.equal(
      llamafactoryExampleName('examples/train_lora/llama3_lora_sft.yaml'),
      'train_lora/llama3_lora_sft.yaml',
    );
    assert.equal(
      llamafactoryExampleName('/opt/LLaMA-Factory/examples/train_qlora/llama3_lora_sft_otfq.yaml'),
      'train_qlora/llama3_lora_sft_otfq.yaml',
    );
    assert.equal(llamafactoryExampleName('examples/train_lora/my_own.yaml'), undefined);
    assert.equal(llamafactoryExampleName('configs/llama3_lora_sft.yaml'), undefined);
    const own = 'model_name_or_path: Qwen/Qwen2.5-1.5B\nstage: sft\nfinetuning_type: lora\ncutoff_len: 512\n';
    const r = runFiles(
      {
        '/t/run.sh': 'llamafactory-cli train examples/train_full/llama3_full_sft.yaml\n',
        '/t/examples/train_full/llama3_full_sft.yaml': own,
      },
      '/t/run.sh',
    );
    assert.deepEqual([r.setup?.model, r.setup?.method, r.setup?.seq_len], ['Qwen/Qwen2.5-1.5B', 'lora', 512]);
  });
});
