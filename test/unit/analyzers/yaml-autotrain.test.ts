// Hugging Face AutoTrain's LLM config (src/analyzers/yaml/autotrain.ts) and its command line (`autotrain --config x.yml`).
// Keys and defaults from huggingface/autotrain-advanced@b5c98fb: parser.py (the task's trainer, then `params` copied
// over it), trainers/clm/params.py (batch_size 2, gradient_accumulation 4, quantization int4, peft False, lora 16 / 32 /
// 0.05, all-linear, block_size -1, model_max_length 2048, max_prompt_length 128), trainers/clm/utils.py (from_pretrained
// without a dtype; int4 as NF4 without double quantization; configure_block_size's 1,024; use_reentrant for a
// 4/8-bit base), commands.py (DeepSpeed ZeRO-3) and requirements.txt (transformers 4.48.0, trl 0.13.0, peft 0.14.0,
// bitsandbytes 0.45.0). The configs are written for these tests after configs/llm_finetuning/llama3-8b-dpo-qlora.yml.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeAutotrainYaml } from '../../../src/analyzers/yaml/autotrain';
import { editsForChanges, applyEditData } from '../../../src/features/fixes';
import { runFiles } from '../helpers';

const DPO = `task: llm-dpo
base_model: meta-llama/Meta-Llama-3-8B-Instruct
project_name: dpo-qlora
log: tensorboard
backend: local

data:
  path: mlabonne/orpo-dpo-mix-40k
  train_split: train
  valid_split: null
  chat_template: chatml

params:
  block_size: 1024
  model_max_length: 2048
  max_prompt_length: 512
  batch_size: 2
  peft: true
  quantization: int4
  target_modules: all-linear
  optimizer: adamw_torch
  gradient_accumulation: 4
  mixed_precision: fp16
`;

const SFT = `task: llm-sft
base_model: Qwen/Qwen2.5-7B-Instruct
project_name: sft
backend: spaces-a10g-largex4
data:
  path: HuggingFaceH4/no_robots
  train_split: train
  valid_split: test
params:
  peft: true
  quantization: null
  lora_r: 8
  target_modules: q_proj,v_proj
  distributed_backend: deepspeed
  mixed_precision: bf16
`;

describe('AutoTrain LLM config', () => {
  it("is told by task, base_model and params; it is not Axolotl's, whose base_model it shares", () => {
    assert.equal(detectFormat('llama3-8b-dpo-qlora.yml', DPO), 'autotrain-yaml');
    assert.equal(detectFormat('sft.yml', SFT), 'autotrain-yaml');
    const axolotl = 'base_model: meta-llama/Meta-Llama-3-8B\nmicro_batch_size: 2\nnum_epochs: 1\n';
    assert.equal(detectFormat('cfg.yml', axolotl), 'axolotl-yaml');
  });

  it("DPO over a 4-bit base: AutoTrain's quantization, precision, lengths and the releases it pins", () => {
    const run = runFiles({ '/a/dpo.yml': DPO }, '/a/dpo.yml');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    assert.equal(s.method, 'qlora');
    assert.deepEqual([s.quantization?.bits, s.quantization?.type, s.quantization?.double_quant], [4, 'nf4', false]);
    assert.deepEqual([s.lora?.r, s.lora?.alpha, s.lora?.dropout, s.lora?.target_modules], [16, 32, 0.05, 'all-linear']);
    // Loaded without a dtype under transformers 4.48: float32, fp16 autocast from mixed_precision.
    assert.deepEqual([s.weights_dtype, s.mixed_precision], ['fp32', 'fp16']);
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.seq_len], [2, 4, 1024]);
    // DPO under PEFT: the model with its adapters off is the reference (TRL's DPOTrainer; model_ref is not loaded).
    assert.deepEqual([s.preference?.paired, s.preference?.reference], [true, 'adapters-off']);
    // A 4-bit base checkpoints with use_reentrant True (utils.py configure_training_args).
    assert.deepEqual([s.gradient_checkpointing, s.checkpoint_reentrant], ['full', true]);
    assert.deepEqual(
      [s.transformers_version, s.trl_version, s.peft_version, s.bitsandbytes_version],
      ['4.48.0', '0.13.0', '0.14.0', '0.45.0'],
    );
    assert.equal(run.provenance.trl_version?.kind, 'default');
    // `backend: local` runs on every GPU the machine has: one GPU estimated, said as the assumption with the key.
    assert.match(JSON.stringify(run.provenance.gpus_per_node), /AutoTrain backend local runs on every GPU/);
  });

  it("SFT on a Space: its GPUs, DeepSpeed's ZeRO-3, a 16-bit LoRA base, the length from AutoTrain's rule", () => {
    const run = runFiles({ '/a/sft.yml': SFT }, '/a/sft.yml');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    assert.deepEqual([s.method, s.quantization], ['lora', undefined]);
    assert.deepEqual([s.lora?.r, s.lora?.target_modules], [8, ['q_proj', 'v_proj']]);
    assert.equal(s.gpus_per_node, 4);
    assert.equal(s.zero_stage, 3);
    // block_size unset: the tokenizer's length, model_max_length 2048, up to 1,024; packed to it.
    assert.deepEqual([s.seq_len, s.batch_lengths], [1024, 'fixed']);
    // Defaults: batch_size 2, gradient_accumulation 4; non-reentrant checkpointing without a 4/8-bit base.
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.checkpoint_reentrant], [2, 4, false]);
    assert.equal(run.gpu, 'A10G');
    const long = SFT.replace('params:\n', 'params:\n  block_size: 4096\n');
    assert.equal(runFiles({ '/a/sft.yml': long }, '/a/sft.yml').setup?.seq_len, 2048);
  });

  it('the trainer: params.trainer over the task; peft off is a full fine-tune whatever quantization says', () => {
    const value = (text: string, key: string) =>
      [...analyzeAutotrainYaml(text).facts].reverse().find((f) => f.key === key)?.value;
    const orpo = DPO.replace('task: llm-dpo', 'task: llm').replace('params:\n', 'params:\n  trainer: orpo\n');
    assert.equal(value(orpo, 'preference'), 'reference-free');
    const full = runFiles({ '/a/f.yml': DPO.replace('peft: true', 'peft: false') }, '/a/f.yml');
    assert.deepEqual([full.setup?.method, full.setup?.quantization], ['full', undefined]);
    const other = analyzeAutotrainYaml(DPO.replace('task: llm-dpo', 'task: text-classification'));
    assert.match(other.problems.map((p) => p.message).join('\n'), /text-classification is not modeled/);
  });

  it('`autotrain --config x.yml` runs the config; quick fixes are written at its params keys', () => {
    const run = runFiles({ '/a/run.sh': 'autotrain --config dpo.yml\n', '/a/dpo.yml': DPO }, '/a/run.sh');
    assert.equal(run.setup?.preference?.reference, 'adapters-off', JSON.stringify(run.problems));
    const file = { file: 'dpo.yml', text: DPO, format: 'autotrain-yaml' as const, facts: analyzeAutotrainYaml(DPO) };
    const plan = editsForChanges(
      [
        { key: 'micro_batch_size', value: 1 },
        { key: 'seq_len', value: 512 },
        { key: 'gradient_accumulation_steps', value: 8 },
      ],
      [file],
      'dpo.yml',
    );
    assert.deepEqual(plan.unsupported, []);
    const after = applyEditData(DPO, plan.edits);
    assert.match(after, /^ {2}batch_size: 1$/m);
    assert.match(after, /^ {2}block_size: 512$/m);
    assert.match(after, /^ {2}gradient_accumulation: 8$/m);
  });
});
