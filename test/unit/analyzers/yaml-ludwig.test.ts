// Ludwig's declarative LLM config (src/analyzers/yaml/ludwig.ts) and its command line (`ludwig train --config x.yaml`).
// Keys and defaults from ludwig-ai/ludwig@be821e4 (v0.10.4): schema/model_types/llm.py (model_type llm, base_model),
// schema/llms/base_model.py (presets: llama-2-7b is meta-llama/Llama-2-7b-hf), schema/trainer.py (type none by default;
// finetune's batch_size 1, eval_batch_size 2, gradient_accumulation_steps auto = 1, optimizer adam,
// enable_gradient_checkpointing False, use_mixed_precision False), schema/llms/peft.py (lora r 8, alpha 2 x r, dropout
// 0.05), schema/llms/quantization.py (bits 4, nf4, double quantization, compute dtype float16), utils/llm_utils.py
// (from_pretrained without a dtype, or in the compute dtype with attn_implementation eager when quantized; the merged
// input + output + EOS sequence padded to each batch's longest), models/llm.py (prepare_model_for_kbit_training),
// distributed/deepspeed.py (the backend's zero_optimization, bf16 and fp16 handed to DeepSpeed). The first config is
// Ludwig's examples/llama2_7b_finetuning_4bit/llama2_7b_4bit.yaml.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeLudwigYaml } from '../../../src/analyzers/yaml/ludwig';
import { editsForChanges, applyEditData } from '../../../src/features/fixes';
import { estimate } from '../../../src/core/estimate';
import { runFiles } from '../helpers';

const QLORA = `model_type: llm
base_model: meta-llama/Llama-2-7b-hf

quantization:
  bits: 4

adapter:
  type: lora

input_features:
  - name: instruction
    type: text

output_features:
  - name: output
    type: text

trainer:
  type: finetune
  learning_rate: 0.0003
  batch_size: 2
  gradient_accumulation_steps: 8
  epochs: 3
  learning_rate_scheduler:
    warmup_fraction: 0.01

backend:
  type: local
`;

const FULL = `model_type: llm
base_model: llama-2-7b
input_features:
  - name: prompt
    type: text
    preprocessing:
      max_sequence_length: 384
output_features:
  - name: completion
    type: text
    preprocessing:
      max_sequence_length: 127
trainer:
  type: finetune
  enable_gradient_checkpointing: true
backend:
  type: deepspeed
  zero_optimization:
    stage: 3
    offload_optimizer:
      device: cpu
  bf16:
    enabled: true
`;

describe('Ludwig LLM config', () => {
  it("is told by its feature lists beside base_model; it is not Axolotl's, whose base_model it shares", () => {
    assert.equal(detectFormat('llama2_7b_4bit.yaml', QLORA), 'ludwig-yaml');
    assert.equal(detectFormat('full.yaml', FULL), 'ludwig-yaml');
  });

  it("QLoRA: bits 4 with Ludwig's NF4 defaults, the compute dtype as the load dtype, kbit preparation, LoRA r 8", () => {
    const run = runFiles({ '/a/q.yaml': QLORA }, '/a/q.yaml');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    assert.equal(s.method, 'qlora');
    assert.deepEqual([s.quantization?.bits, s.quantization?.type, s.quantization?.double_quant], [4, 'nf4', true]);
    // Loaded in bnb_4bit_compute_dtype (float16); prepare_model_for_kbit_training casts the rest to fp32.
    assert.deepEqual([s.weights_dtype, s.kbit_upcast, s.mixed_precision], ['fp16', 'all', 'none']);
    // r 8, alpha 2 x 8, dropout 0.05; PEFT's targets for llama (q_proj, v_proj).
    assert.deepEqual([s.lora?.r, s.lora?.alpha, s.lora?.dropout], [8, 16, 0.05]);
    assert.deepEqual(s.lora?.target_modules, ['q_proj', 'v_proj']);
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.eval_batch_size], [2, 8, 2]);
    assert.deepEqual([s.gradient_checkpointing, s.attention, s.optimizer], ['none', 'eager', 'adamw']);
    assert.equal(s.batch_lengths, 'variable');
    // The fp32 adapters over an fp16 base are not "pure fp16 training".
    const r = estimate(s);
    assert.ok(r.ok && !r.estimate.warnings.some((w) => /pure fp16/.test(w.message)));
    assert.equal(run.provenance.weights_dtype?.kind, 'default');
  });

  it("a preset name, the features' lengths, checkpointing, autocast and the DeepSpeed backend", () => {
    const run = runFiles({ '/a/f.yaml': FULL }, '/a/f.yaml');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    assert.equal(s.model, 'meta-llama/Llama-2-7b-hf');
    // No adapter: every weight, loaded without a dtype (fp32); DeepSpeed's bf16 over it.
    assert.deepEqual([s.method, s.weights_dtype], ['full', 'bf16']);
    // 384 input tokens + 127 output tokens + EOS, merged.
    assert.equal(s.seq_len, 512);
    assert.deepEqual([s.gradient_checkpointing, s.checkpoint_reentrant, s.mixed_precision], ['full', true, 'none']);
    // use_mixed_precision is fp16 autocast (torch.cuda.amp.autocast() in trainers/trainer.py).
    const amp = runFiles(
      { '/a/q.yaml': QLORA.replace('  epochs: 3\n', '  epochs: 3\n  use_mixed_precision: true\n') },
      '/a/q.yaml',
    );
    assert.equal(amp.setup?.mixed_precision, 'fp16');
    assert.deepEqual([s.zero_stage, s.offload_optimizer], [3, 'cpu']);
    // Ludwig names torch's Adam in DeepSpeed's config: DeepSpeed's FusedAdam runs the step.
    assert.equal(s.optimizer, 'adamw_fused');
    // global_max_sequence_length caps the merged sample.
    const capped = FULL.replace('trainer:\n', 'preprocessing:\n  global_max_sequence_length: 256\ntrainer:\n');
    assert.equal(runFiles({ '/a/f.yaml': capped }, '/a/f.yaml').setup?.seq_len, 256);
  });

  it('a config that does not train, or an ECD model, is said and not estimated', () => {
    const none = analyzeLudwigYaml(QLORA.replace('  type: finetune\n', ''));
    assert.match(none.problems.map((p) => p.message).join('\n'), /trainer type none \(the default\) trains nothing/);
    assert.ok(!none.facts.some((f) => f.key === 'model'));
    const ecd = analyzeLudwigYaml(QLORA.replace('model_type: llm\n', ''));
    assert.match(ecd.problems.map((p) => p.message).join('\n'), /ECD models .* are not modeled/);
    // batch_size auto is tuned at run time: the estimate takes Ludwig's default, 1, and says the file's value is not known.
    const auto = runFiles({ '/a/q.yaml': QLORA.replace('batch_size: 2', 'batch_size: auto') }, '/a/q.yaml');
    assert.equal(auto.setup?.micro_batch_size, 1);
    assert.match(JSON.stringify(auto.provenance.micro_batch_size), /the file's value auto is not known statically/);
  });

  it('`ludwig train --config x.yaml` runs the config; quick fixes are written at its trainer keys', () => {
    const line = 'ludwig train --config q.yaml --dataset alpaca.csv\n';
    const run = runFiles({ '/a/run.sh': line, '/a/q.yaml': QLORA }, '/a/run.sh');
    assert.equal(run.setup?.method, 'qlora', JSON.stringify(run.problems));
    const file = { file: 'q.yaml', text: QLORA, format: 'ludwig-yaml' as const, facts: analyzeLudwigYaml(QLORA) };
    const plan = editsForChanges(
      [
        { key: 'micro_batch_size', value: 1 },
        { key: 'seq_len', value: 512 },
        { key: 'gradient_checkpointing', value: 'full' },
      ],
      [file],
      'q.yaml',
    );
    assert.deepEqual(plan.unsupported, []);
    const after = applyEditData(QLORA, plan.edits);
    assert.match(after, /^ {2}batch_size: 1$/m);
    assert.match(after, /^ {2}enable_gradient_checkpointing: true$/m);
    assert.match(after, /^preprocessing:\n {2}global_max_sequence_length: 512$/m);
  });
});
