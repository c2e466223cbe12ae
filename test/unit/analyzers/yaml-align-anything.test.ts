// PKU-Alignment/align-anything's training config (src/analyzers/yaml/align-anything.ts) and its launch line
// (`deepspeed --module align_anything.trainers.text_to_text.sft --model_name_or_path X ...`,
// src/analyzers/shell/align-anything-launch.ts). Keys and behaviour from PKU-Alignment/align-anything@3f9decc:
// configs/train/text_to_text/{sft,dpo,simpo,rm,ppo}.yaml (the sections and the keys only each trainer has),
// utils/tools.py (read_cfgs: the DeepSpeed file under configs/deepspeed, read before the options apply;
// prepare_ds_train_cfgs: the trainer's batch, accumulation and bf16 / fp16 written over the DeepSpeed file's),
// models/pretrained_model.py (the model loaded in bfloat16; bitsandbytes only with LoRA), trainers/base/
// supervised_trainer.py (FusedAdam; checkpointing only without LoRA), trainers/text_to_text/dpo.py (a second model as
// the reference, log-probabilities only). The configs below are shortened to the keys the trainers read.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeAlignAnythingYaml } from '../../../src/analyzers/yaml/align-anything';
import { alignAnythingConfig } from '../../../src/analyzers/shell/align-anything-launch';
import { editsForChanges, applyEditData } from '../../../src/features/fixes';
import { estimate } from '../../../src/core/estimate';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchersOf } from '../../../src/node/launchers';
import { nodeFileReader } from '../../../src/node/files';
import { runFiles, tempDir } from '../helpers';

const SFT = `train_cfgs:
  save_checkpoint: True
  ds_cfgs: ds_z3_config.json
  epochs: 1
  per_device_train_batch_size: 1
  per_device_eval_batch_size: 1
  gradient_accumulation_steps: 1
  gradient_checkpointing: True
  bf16: True
  fp16: False
  max_grad_norm: 1.0
data_cfgs:
  train_datasets: null
  eval_datasets: null
logger_cfgs:
  log_run_name: sft
model_cfgs:
  model_name_or_path: null
  trust_remote_code: True
  model_max_length: 4096
lora_cfgs:
  use_lora: False
  r: 16
  lora_alpha: 16
  lora_dropout: 0.1
  target_modules: ["q_proj", "v_proj"]
bnb_cfgs:
  use_bnb: False
  load_in_4bit: True
  load_in_8bit: False
  bnb_4bit_quant_type: nf4
  bnb_4bit_use_double_quant: True
  bnb_4bit_compute_dtype: float16
`;

/** DPO's config: SFT's sections with scale_coeff in train_cfgs (configs/train/text_to_text/dpo.yaml). */
const DPO = SFT.replace('  max_grad_norm: 1.0\n', '  scale_coeff: 0.1\n').replace('4096', '2048');

/** The shipped ZeRO-3 config: its batch keys and bf16 switch are the trainer's to write. */
const Z3 = `{
  "train_batch_size": 128,
  "train_micro_batch_size_per_gpu": 16,
  "gradient_accumulation_steps": null,
  "zero_optimization": {"stage": 3, "offload_param": {"device": "none"}, "offload_optimizer": {"device": "none"}},
  "fp16": {"enabled": false},
  "bf16": {"enabled": false}
}
`;

const SFT_LINE = `deepspeed --num_gpus 8 \\
  --module align_anything.trainers.text_to_text.sft \\
  --model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
  --per_device_train_batch_size 4 \\
  --output_dir ../outputs/qwen_sft
`;

function tree(config: string, trainer = 'sft'): Record<string, string> {
  return {
    [`/r/align_anything/configs/train/text_to_text/${trainer}.yaml`]: config,
    '/r/align_anything/configs/deepspeed/ds_z3_config.json': Z3,
  };
}

describe('align-anything config', () => {
  it('is told by train_cfgs beside model_cfgs; the trainer module names its config', () => {
    assert.equal(detectFormat('sft.yaml', SFT), 'align-anything-yaml');
    assert.equal(
      alignAnythingConfig('align_anything.trainers.text_to_text.dpo'),
      'align_anything/configs/train/text_to_text/dpo.yaml',
    );
    assert.equal(
      alignAnythingConfig('../align_anything/trainers/text_image_to_text/sft.py'),
      '../align_anything/configs/train/text_image_to_text/sft.yaml',
    );
    assert.equal(alignAnythingConfig('align_anything.serve.app'), undefined);
  });

  it("SFT under the launch line: the line's model and batch, ZeRO-3 from the DeepSpeed file, the trainer's bf16", () => {
    const run = runFiles({ ...tree(SFT), '/r/sft.sh': SFT_LINE }, '/r/sft.sh');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    assert.equal(s.model, 'Qwen/Qwen2.5-7B-Instruct');
    // --per_device_train_batch_size 4 over the file's 1; the DeepSpeed file's 16 and 128 are not the run's.
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.gpus_per_node], [4, 1, 8]);
    assert.deepEqual([s.zero_stage, s.offload_optimizer, s.offload_params], [3, 'none', 'none']);
    // bf16: True in train_cfgs over the file's bf16.enabled false: DeepSpeed's bf16 engine, an fp32 master copy.
    assert.deepEqual([s.weights_dtype, s.master_weights, s.mixed_precision], ['bf16', true, 'none']);
    assert.deepEqual([s.method, s.optimizer, s.gradient_checkpointing], ['full', 'adamw_fused', 'full']);
    assert.deepEqual([s.seq_len, s.batch_lengths], [4096, 'variable']);
    assert.ok(!run.problems.some((p) => p.code === 'batch-size-mismatch'), JSON.stringify(run.problems));
    // The weights under ZeRO-3: 7.62B parameters x 2 bytes / 8 GPUs (Qwen2.5-7B's 7,615,616,512, its config.json).
    const r = estimate(s);
    assert.ok(r.ok);
    const weights = r.estimate.perGpu.phases[0]?.components.find((c) => c.id === 'weights');
    assert.equal(weights?.bytes, (7_615_616_512 * 2) / 8);
  });

  it('the shipped config alone says where the model comes from, at its key', () => {
    const facts = analyzeAlignAnythingYaml(SFT);
    const model = facts.facts.find((f) => f.key === 'model');
    assert.match(JSON.stringify(model?.value), /launch line \(--model_name_or_path\)/);
    assert.equal(model?.rawKey, 'model_cfgs.model_name_or_path');
  });

  it('DPO: a second model as the reference, log-probabilities only; SimPO and the reward model have none', () => {
    const line = SFT_LINE.replace('text_to_text.sft', 'text_to_text.dpo');
    const run = runFiles({ ...tree(DPO, 'dpo'), '/r/dpo.sh': line }, '/r/dpo.sh');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    assert.deepEqual(s.preference, { reference: 'copy', logps: 'rows', paired: true, logits_kept: false });
    assert.equal(s.seq_len, 2048);
    const simpo = analyzeAlignAnythingYaml(
      DPO.replace('  scale_coeff: 0.1\n', '  scale_coeff: 0.1\n  gamma: 0.5\n  regularization: 0.0\n'),
    );
    assert.equal(simpo.facts.find((f) => f.key === 'preference')?.value, 'reference-free');
    const rm = analyzeAlignAnythingYaml(SFT.replace('  max_grad_norm: 1.0\n', '  regularization: 0.001\n'));
    assert.deepEqual(
      ['preference', 'head', 'numLabels'].map((k) => rm.facts.find((f) => f.key === k)?.value),
      ['reward', 'seq_cls', 1],
    );
  });

  it('LoRA turns checkpointing off, QLoRA needs LoRA, and the RL trainers are said', () => {
    const lora = analyzeAlignAnythingYaml(SFT.replace('use_lora: False', 'use_lora: True'));
    const get = (k: string): unknown => lora.facts.find((f) => f.key === k)?.value;
    assert.deepEqual([get('method'), get('loraR'), get('loraAlpha'), get('loraDropout')], ['lora', 16, 16, 0.1]);
    assert.deepEqual(get('loraTargets'), ['q_proj', 'v_proj']);
    assert.equal(get('gradientCheckpointing'), 'none');
    assert.ok(lora.problems.some((p) => p.code === 'no-effect' && p.rawKey === 'train_cfgs.gradient_checkpointing'));
    const qlora = analyzeAlignAnythingYaml(
      SFT.replace('use_lora: False', 'use_lora: True').replace('use_bnb: False', 'use_bnb: True'),
    );
    const q = (k: string): unknown => qlora.facts.find((f) => f.key === k)?.value;
    assert.deepEqual([q('method'), q('quantBits'), q('quantType'), q('doubleQuant')], ['qlora', 4, 'nf4', true]);
    const bnbAlone = analyzeAlignAnythingYaml(SFT.replace('use_bnb: False', 'use_bnb: True'));
    assert.match(bnbAlone.problems.map((p) => p.message).join('\n'), /refuses bitsandbytes without LoRA/);
    const ppo = analyzeAlignAnythingYaml(
      SFT.replace(
        '  model_name_or_path: null\n',
        '  actor_model_name_or_path: null\n  reward_model_name_or_path: null\n',
      ),
    );
    assert.match(ppo.problems.map((p) => p.message).join('\n'), /PPO and GRPO trainers .* are not modeled/);
    assert.ok(!ppo.facts.some((f) => f.key === 'model'));
  });

  it('--ds_cfgs on the line is said to change nothing; quick fixes write train_cfgs and the DeepSpeed file name', () => {
    const line = SFT_LINE.replace('--output_dir', '--ds_cfgs ds_z2_config.json --output_dir');
    const run = runFiles({ ...tree(SFT), '/r/sft.sh': line }, '/r/sft.sh');
    assert.equal(run.setup?.zero_stage, 3);
    assert.match(run.problems.map((p) => p.message).join('\n'), /--ds_cfgs does not change the DeepSpeed config/);
    const file = {
      file: 'sft.yaml',
      text: SFT,
      format: 'align-anything-yaml' as const,
      facts: analyzeAlignAnythingYaml(SFT),
    };
    const plan = editsForChanges(
      [
        { key: 'micro_batch_size', value: 2 },
        { key: 'seq_len', value: 2048 },
        { key: 'zero_stage', value: 2 },
      ],
      [file],
      'sft.yaml',
    );
    assert.deepEqual(plan.unsupported, []);
    const after = applyEditData(SFT, plan.edits);
    assert.match(after, /^ {2}per_device_train_batch_size: 2$/m);
    assert.match(after, /^ {2}model_max_length: 2048$/m);
    assert.match(after, /^ {2}ds_cfgs: ds_z2_config\.json$/m);
  });

  it("ZERO_STAGE_FILE in the launch's environment names the DeepSpeed file in place of ds_cfgs", () => {
    const z2 = Z3.replace('"stage": 3', '"stage": 2');
    const line = `export ZERO_STAGE_FILE="ds_z2_config.json"\n${SFT_LINE}`;
    const files = { ...tree(SFT), '/r/align_anything/configs/deepspeed/ds_z2_config.json': z2, '/r/sft.sh': line };
    const run = runFiles(files, '/r/sft.sh');
    assert.equal(run.setup?.zero_stage, 2);
    const yaml = run.files.find((f) => f.file.endsWith('sft.yaml'));
    assert.ok(
      yaml?.facts.problems.some((p) => p.code === 'no-effect' && /ZERO_STAGE_FILE=ds_z2_config\.json/.test(p.message)),
    );
    // Not exported: the trainer's Python does not see it.
    const local = runFiles({ ...files, '/r/sft.sh': line.replace('export ', '') }, '/r/sft.sh');
    assert.equal(local.setup?.zero_stage, 3);
  });

  it('neither bf16 nor fp16: an fp32 copy of the bf16-loaded weights under ZeRO-3, none at stage 0', () => {
    // DeepSpeed@edaa722 engine.py _do_optimizer_sanity_check: ZeRO 1-3 wrap the optimizer in their fp32 partitions;
    // fp32 model and gradient dtypes at stage 0 wrap nothing, and the engine casts nothing without bf16 / fp16.
    const fp32 = SFT.replace('  bf16: True\n', '  bf16: False\n');
    const z3 = runFiles({ ...tree(fp32), '/r/sft.sh': SFT_LINE }, '/r/sft.sh').setup;
    assert.deepEqual([z3?.zero_stage, z3?.weights_dtype, z3?.master_weights], [3, 'bf16', true]);
    const z0 = Z3.replace('"stage": 3', '"stage": 0');
    const files = { ...tree(fp32), '/r/align_anything/configs/deepspeed/ds_z3_config.json': z0, '/r/sft.sh': SFT_LINE };
    const s = runFiles(files, '/r/sft.sh').setup;
    assert.deepEqual([s?.zero_stage, s?.weights_dtype, s?.master_weights], [0, 'bf16', false]);
    // AdamW's two states beside the bf16 weights, in the weights' dtype: 7,615,616,512 x 2 x 2 bytes on each GPU.
    const r = estimate(s!);
    assert.ok(r.ok);
    const states = r.estimate.perGpu.phases[0]?.components.find((c) => c.id === 'optimizer-states');
    assert.equal(states?.bytes, 7_615_616_512 * 2 * 2);
  });

  it('the config opened alone is found run by the launch scripts that name its trainer module', () => {
    const dir = tempDir('vram-lens-align-anything-');
    try {
      for (const [rel, text] of Object.entries({ ...tree(SFT), '/r/scripts/qwen/sft.sh': SFT_LINE })) {
        const file = path.join(dir, rel.replace(/^\/r\//, ''));
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, text);
      }
      const config = path.join(dir, 'align_anything/configs/train/text_to_text/sft.yaml');
      assert.deepEqual(launchersOf(config, dir, nodeFileReader(dir)), [path.join(dir, 'scripts/qwen/sft.sh')]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
