// Tests of features/fixes/: before -> after text per format (in the style of jsonc-parser's modify tests), the
// all-or-nothing rule for multi-key changes, file choice across several files, and a round-trip property: after the
// edits, re-analyzing the file yields the requested values and no new syntax problems.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeAs, detectFormat } from '../../src/analyzers/detect';
import { emptyFacts, isUnknown, type CanonicalKey, type ConfigFacts, type Format } from '../../src/analyzers/facts';
import { analyzeScenario } from '../../src/analyzers/scenario';
import type { SetupChange } from '../../src/core/advice';
import { applyEditData, editsForChanges, setKey, type FixFile } from '../../src/features/fixes';
import { diffEdits } from '../../src/features/fixes/diff';
import { sharedDir } from './helpers';

function fixFile(file: string, text: string, format?: Format): FixFile {
  const fmt = format ?? detectFormat(file, text);
  assert.ok(fmt, `format of ${file}`);
  return { file, text, format: fmt, facts: fmt === 'scenario' ? emptyFacts('scenario') : analyzeAs(fmt, text) };
}

type Changes = Record<string, unknown> | readonly SetupChange[];
const toChanges = (c: Changes): SetupChange[] =>
  Array.isArray(c) ? [...c] : Object.entries(c).map(([key, value]) => ({ key: key as SetupChange['key'], value }));

/** Applies the changes to one file and compares the text; `after` undefined means the change must be unsupported. */
function checkFix(file: string, before: string, changes: Changes, after: string | undefined, format?: Format): void {
  const f = fixFile(file, before, format);
  const plan = editsForChanges(toChanges(changes), [f], file);
  if (after === undefined) {
    assert.equal(plan.edits.length, 0, 'no edits for an unsupported change');
    assert.ok(plan.unsupported.length > 0, 'the change is reported as unsupported');
    for (const u of plan.unsupported) assert.ok(u.reason.length > 10, `a reason for ${u.key}`);
    return;
  }
  assert.deepEqual(plan.unsupported, []);
  for (const e of plan.edits) assert.ok(e.start <= e.end && e.end <= before.length && e.file === file);
  assert.equal(applyEditData(before, plan.edits), after);
}

describe('fixes: the edits of a changed file', () => {
  it('edits far apart in a long file: one small edit each, and the edits give the new text', () => {
    // 2,000 lines `key_i: i`; line 3 and line 1,990 changed and a line inserted before line 1,000. Offsets: lines
    // 0-9 are 9 bytes (`key_0: 0` and the newline), so line 3's value starts at 3 x 9 + 7 = 34.
    const lines = Array.from({ length: 2000 }, (_, i) => `key_${i}: ${i}\n`);
    const edited = [...lines];
    edited[3] = 'key_3: changed\n';
    edited[1990] = 'key_1990: changed\n';
    edited.splice(1000, 0, 'new: 1\n');
    const a = lines.join('');
    const b = edited.join('');
    const edits = diffEdits('f.yaml', a, b);
    assert.equal(edits.length, 3);
    assert.deepEqual(
      edits.map((e) => e.newText),
      ['changed', 'new: 1\n', 'changed'],
    );
    assert.deepEqual([edits[0]!.start, edits[0]!.end], [34, 35]);
    assert.equal(applyEditData(a, edits), b);
  });
});

describe('fixes: package versions', () => {
  it('a scenario takes the torchao version; a training config cannot, and says where it lives', () => {
    checkFix(
      'run.vram.yaml',
      'model: meta-llama/Llama-2-7b-hf\ntorchao_version: "0.1"\n',
      { torchao_version: '0.2' },
      'model: meta-llama/Llama-2-7b-hf\ntorchao_version: "0.2"\n',
    );
    const f = fixFile(
      'qlora.yaml',
      'model:\n  _component_: torchtune.models.llama2.qlora_llama2_7b\nbatch_size: 2\n',
      'torchtune-yaml',
    );
    const plan = editsForChanges([{ key: 'torchao_version', value: '0.2' }], [f], 'qlora.yaml');
    assert.equal(plan.edits.length, 0);
    assert.match(plan.unsupported[0].reason, /torchao is a package version: upgrade it in the environment/);
  });
});

describe("fixes: the checkpointing form (bitsandbytes' kept inputs)", () => {
  it('TRL / HF YAML: gradient_checkpointing_kwargs.use_reentrant, replaced or added', () => {
    checkFix(
      'sft.yaml',
      'model_name_or_path: m\ngradient_checkpointing: true\ngradient_checkpointing_kwargs:\n  use_reentrant: false\n',
      { checkpoint_reentrant: true },
      'model_name_or_path: m\ngradient_checkpointing: true\ngradient_checkpointing_kwargs:\n  use_reentrant: true\n',
      'hf-yaml',
    );
    checkFix(
      'sft.yaml',
      'model_name_or_path: m\ngradient_checkpointing: true\n',
      { checkpoint_reentrant: true },
      'model_name_or_path: m\ngradient_checkpointing: true\ngradient_checkpointing_kwargs:\n  use_reentrant: true\n',
      'hf-yaml',
    );
  });
  it('JSON text is left to the user; LLaMA-Factory writes use_reentrant_gc', () => {
    checkFix(
      'sft.yaml',
      'model_name_or_path: m\ngradient_checkpointing: true\ngradient_checkpointing_kwargs: \'{"use_reentrant": false}\'\n',
      { checkpoint_reentrant: true },
      undefined,
      'hf-yaml',
    );
    checkFix(
      'train.yaml',
      'model_name_or_path: m\nstage: sft\nuse_reentrant_gc: false\n',
      { checkpoint_reentrant: true },
      'model_name_or_path: m\nstage: sft\nuse_reentrant_gc: true\n',
      'llamafactory-yaml',
    );
  });
  it('the bitsandbytes release is a package version', () => {
    const f = fixFile('sft.yaml', 'model_name_or_path: m\nload_in_4bit: true\n', 'hf-yaml');
    const plan = editsForChanges([{ key: 'bitsandbytes_version', value: '0.43.2' }], [f], 'sft.yaml');
    assert.equal(plan.edits.length, 0);
    assert.match(plan.unsupported[0].reason, /bitsandbytes is a package version/);
  });
});

describe('fixes: DeepSpeed JSON', () => {
  const F = 'ds_config.json';
  it('replaces a value in place', () => {
    checkFix(
      F,
      '{\n  "zero_optimization": {\n    "stage": 2\n  }\n}\n',
      { zero_stage: 3 },
      '{\n  "zero_optimization": {\n    "stage": 3\n  }\n}\n',
    );
  });
  it('creates the zero_optimization block when missing (2 spaces)', () => {
    checkFix(
      F,
      '{\n  "train_micro_batch_size_per_gpu": 4\n}\n',
      { zero_stage: 2 },
      '{\n  "train_micro_batch_size_per_gpu": 4,\n  "zero_optimization": {\n    "stage": 2\n  }\n}\n',
    );
  });
  it('keeps tab indentation', () => {
    checkFix(
      F,
      '{\n\t"train_micro_batch_size_per_gpu": 4\n}',
      { zero_stage: 1 },
      '{\n\t"train_micro_batch_size_per_gpu": 4,\n\t"zero_optimization": {\n\t\t"stage": 1\n\t}\n}',
    );
  });
  it('keeps 4-space indentation and comments', () => {
    checkFix(
      F,
      '{\n    // ZeRO settings\n    "zero_optimization": {\n        "stage": 2 // two\n    }\n}\n',
      { zero_stage: 3, offload_optimizer: 'cpu' },
      // jsonc-parser keeps the comment; it ends up after the inserted property.
      '{\n' +
        '    // ZeRO settings\n' +
        '    "zero_optimization": {\n' +
        '        "stage": 3,\n' +
        '        "offload_optimizer": {\n' +
        '            "device": "cpu",\n' +
        '            "pin_memory": true\n' +
        '        } // two\n' +
        '    }\n' +
        '}\n',
    );
  });
  it('keeps CRLF line endings', () => {
    checkFix(
      F,
      '{\r\n  "zero_optimization": {\r\n    "stage": 1\r\n  }\r\n}\r\n',
      { offload_optimizer: 'cpu' },
      '{\r\n' +
        '  "zero_optimization": {\r\n' +
        '    "stage": 1,\r\n' +
        '    "offload_optimizer": {\r\n' +
        '      "device": "cpu",\r\n' +
        '      "pin_memory": true\r\n' +
        '    }\r\n' +
        '  }\r\n' +
        '}\r\n',
    );
  });
  it('changes an existing offload device and leaves its other keys', () => {
    checkFix(
      F,
      '{"zero_optimization": {"stage": 3, "offload_param": {"device": "none", "pin_memory": false}}}',
      { offload_params: 'cpu' },
      '{"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu", "pin_memory": false}}}',
    );
  });
  it('bf16 on flips fp16 off', () => {
    checkFix(
      F,
      '{\n  "fp16": {\n    "enabled": true\n  },\n  "zero_optimization": {\n    "stage": 2\n  }\n}\n',
      { mixed_precision: 'bf16' },
      '{\n  "fp16": {\n    "enabled": false\n  },\n  "zero_optimization": {\n    "stage": 2\n  },\n  "bf16": {\n    "enabled": true\n  }\n}\n',
    );
  });
  it('halves micro, doubles accumulation; train_batch_size stays consistent', () => {
    checkFix(
      F,
      '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 1}}',
      { micro_batch_size: 4, gradient_accumulation_steps: 2 },
      '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 1}}',
    );
  });
  it('scales train_batch_size when only the micro-batch changes', () => {
    checkFix(
      F,
      '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 1}',
      { micro_batch_size: 4 },
      '{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1}',
    );
  });
  it('leaves "auto" batch keys alone (HF fills them)', () => {
    checkFix(
      F,
      '{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2}}',
      { zero_stage: 3 },
      '{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 3}}',
    );
  });
  it('an 8-bit optimizer is not expressible in the optimizer block', () => {
    checkFix(
      F,
      '{"optimizer": {"type": "AdamW"}, "zero_optimization": {"stage": 2}}',
      { optimizer: 'adamw_8bit' },
      undefined,
    );
  });
  it('the legacy "zero_optimization": true is refused', () => {
    checkFix(F, '{"zero_optimization": true}', { zero_stage: 3 }, undefined);
  });
  it('NVMe offload without nvme_path is refused', () => {
    checkFix(F, '{"zero_optimization": {"stage": 3}}', { offload_optimizer: 'nvme' }, undefined);
  });
  it('master_weights is derived, not written', () => {
    checkFix(
      F,
      '{"zero_optimization": {"stage": 0}}',
      { zero_stage: 3, master_weights: true },
      '{"zero_optimization": {"stage": 3}}',
    );
  });
});

describe('fixes: YAML', () => {
  it('Axolotl: quantizing the fused MoE experts writes quantize_moe_experts; no other format can', () => {
    checkFix(
      'glm.yml',
      'base_model: zai-org/GLM-4.5-Air\nload_in_4bit: true\nadapter: qlora\n',
      { quantization: { bits: 4, type: 'nf4', double_quant: true, experts: true } },
      'base_model: zai-org/GLM-4.5-Air\nload_in_4bit: true\nadapter: qlora\nquantize_moe_experts: true\n',
      'axolotl-yaml',
    );
    checkFix(
      'lf.yaml',
      'model_name_or_path: zai-org/GLM-4.5-Air\nfinetuning_type: lora\nquantization_bit: 4\n',
      { quantization: { bits: 4, type: 'nf4', double_quant: true, experts: true } },
      undefined,
      'llamafactory-yaml',
    );
  });
  it('Accelerate: replaces a quoted scalar keeping its quotes', () => {
    checkFix(
      'accel.yaml',
      "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmixed_precision: 'no'\nnum_processes: 2\n",
      { mixed_precision: 'bf16' },
      "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmixed_precision: 'bf16'\nnum_processes: 2\n",
      'accelerate-yaml',
    );
  });
  it('Accelerate: none becomes a quoted no', () => {
    checkFix(
      'accel.yaml',
      'distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 2\n',
      { mixed_precision: 'none' },
      "distributed_type: MULTI_GPU\nmixed_precision: 'no'\nnum_processes: 2\n",
      'accelerate-yaml',
    );
  });
  it('Accelerate: inserts into the nested deepspeed_config at its indentation', () => {
    checkFix(
      'accel.yaml',
      'compute_environment: LOCAL_MACHINE\n' +
        'deepspeed_config:\n' +
        '  zero_stage: 2\n' +
        '  offload_optimizer_device: none\n' +
        'distributed_type: DEEPSPEED\n' +
        'num_processes: 8\n',
      { zero_stage: 3, offload_params: 'cpu' },
      'compute_environment: LOCAL_MACHINE\n' +
        'deepspeed_config:\n' +
        '  zero_stage: 3\n' +
        '  offload_optimizer_device: none\n' +
        '  offload_param_device: cpu\n' +
        'distributed_type: DEEPSPEED\n' +
        'num_processes: 8\n',
      'accelerate-yaml',
    );
  });
  it("Accelerate: a script's own loop made inside ZeRO-Init (zero3_init_flag: false -> true)", () => {
    // terms/zero3-linear-kept.ts: before DeepSpeed 0.19.4 a model made outside zero.Init keeps its linears' weights
    checkFix(
      'accel.yaml',
      'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\n  zero3_init_flag: false\nnum_processes: 8\n',
      { zero3_init: true },
      'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\n  zero3_init_flag: true\nnum_processes: 8\n',
      'accelerate-yaml',
    );
  });
  it('Accelerate: MULTI_GPU switches to DEEPSPEED and creates the block', () => {
    checkFix(
      'accel.yaml',
      'distributed_type: MULTI_GPU\nnum_processes: 4\n',
      { zero_stage: 2 },
      'distributed_type: DEEPSPEED\nnum_processes: 4\ndeepspeed_config:\n  zero_stage: 2\n',
      'accelerate-yaml',
    );
  });
  it('Accelerate: num_processes is GPUs x machines', () => {
    checkFix(
      'accel.yaml',
      'distributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 8\n',
      { gpus_per_node: 8 },
      'distributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 16\n',
      'accelerate-yaml',
    );
  });
  it('Accelerate JSON config (ms-swift fsdp_qlora/fsdp_offload.json): edits written as JSON', () => {
    const before =
      '{\n  "distributed_type": "FSDP",\n  "fsdp_config": {\n    "fsdp_offload_params": true\n  },\n' +
      '  "mixed_precision": "no",\n  "num_processes": 2\n}\n';
    const f = fixFile('fsdp_offload.json', before);
    assert.equal(f.format, 'accelerate-yaml');
    const plan = editsForChanges(toChanges({ mixed_precision: 'bf16', gpus_per_node: 4 }), [f], f.file);
    assert.deepEqual(plan.unsupported, []);
    const after = applyEditData(before, plan.edits);
    const parsed = JSON.parse(after) as Record<string, unknown>;
    assert.equal(parsed.mixed_precision, 'bf16');
    assert.equal(parsed.num_processes, 4);
    assert.deepEqual(parsed.fsdp_config, { fsdp_offload_params: true });
  });
  it("HfArgumentParser's JSON arguments (python run_clm.py args.json): edits written as JSON", () => {
    const before =
      '{\n  "model_name_or_path": "gpt2",\n  "per_device_train_batch_size": 8,\n  "output_dir": "out"\n}\n';
    const f = fixFile('args.json', before);
    assert.equal(f.format, 'hf-yaml');
    const plan = editsForChanges(toChanges({ micro_batch_size: 4, gradient_checkpointing: 'full' }), [f], f.file);
    assert.deepEqual(plan.unsupported, []);
    const parsed = JSON.parse(applyEditData(before, plan.edits)) as Record<string, unknown>;
    assert.equal(parsed.per_device_train_batch_size, 4);
    assert.equal(parsed.gradient_checkpointing, true);
    assert.equal(parsed.model_name_or_path, 'gpt2');
  });
  it('Axolotl: inserts at the end in block style, CRLF kept', () => {
    checkFix(
      'a.yml',
      'base_model: NousResearch/Llama-2-7b-hf\r\nmicro_batch_size: 4\r\ngradient_accumulation_steps: 2\r\n',
      { gradient_checkpointing: 'full', micro_batch_size: 2, gradient_accumulation_steps: 4 },
      'base_model: NousResearch/Llama-2-7b-hf\r\nmicro_batch_size: 2\r\ngradient_accumulation_steps: 4\r\ngradient_checkpointing: true\r\n',
      'axolotl-yaml',
    );
  });
  it('Axolotl: no final newline', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nsequence_len: 4096',
      { seq_len: 2048, optimizer: 'adamw_8bit' },
      'base_model: x/y\nsequence_len: 2048\noptimizer: adamw_bnb_8bit\n',
      'axolotl-yaml',
    );
  });
  it('Axolotl: LoRA writes adapter and the lora_ keys', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nmicro_batch_size: 1\n',
      [
        { key: 'method', value: 'lora' },
        {
          key: 'lora',
          value: { r: 16, alpha: 32, dropout: 0.05, target_modules: 'all-linear', modules_to_save: [], dtype: 'fp32' },
        },
        { key: 'master_weights', value: false },
        { key: 'weights_dtype', value: 'bf16' },
      ],
      'base_model: x/y\nmicro_batch_size: 1\nadapter: lora\nlora_r: 16\nlora_alpha: 32\nlora_dropout: 0.05\nlora_target_linear: true\nbfloat16: true\n',
      'axolotl-yaml',
    );
  });
  it('Axolotl: QLoRA sets adapter qlora and load_in_4bit, flipping load_in_8bit', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nadapter: lora\nload_in_8bit: true\n',
      { method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true } },
      'base_model: x/y\nadapter: qlora\nload_in_8bit: false\nload_in_4bit: true\n',
      'axolotl-yaml',
    );
  });
  it('Axolotl: attention follows the deprecated switches the file uses', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nsdp_attention: true\n',
      { attention: 'flash' },
      'base_model: x/y\nsdp_attention: false\nflash_attention: true\n',
      'axolotl-yaml',
    );
    checkFix(
      'a.yml',
      'base_model: x/y\n',
      { attention: 'flash' },
      'base_model: x/y\nattn_implementation: flash_attention_2\n',
      'axolotl-yaml',
    );
  });
  it('Axolotl: the tiled MLP is tiled_mlp, with tiled_mlp_num_shards for a shard count', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nsequence_len: 65536\n',
      { tiled_mlp: true },
      'base_model: x/y\nsequence_len: 65536\ntiled_mlp: true\n',
      'axolotl-yaml',
    );
    checkFix(
      'a.yml',
      'base_model: x/y\ntiled_mlp: false\n',
      { tiled_mlp: 8 },
      'base_model: x/y\ntiled_mlp: true\ntiled_mlp_num_shards: 8\n',
      'axolotl-yaml',
    );
  });
  it("Axolotl / TRL YAML: FSDP's gradients every micro-batch is the Trainer's accelerator_config sync_each_batch", () => {
    for (const format of ['axolotl-yaml', 'hf-yaml'] as const) {
      checkFix(
        'a.yml',
        'gradient_accumulation_steps: 4\n',
        { fsdp_no_sync: false },
        'gradient_accumulation_steps: 4\naccelerator_config:\n  gradient_accumulation_kwargs:\n    sync_each_batch: true\n',
        format,
      );
      checkFix(
        'a.yml',
        'accelerator_config:\n  gradient_accumulation_kwargs:\n    sync_each_batch: false\n',
        { fsdp_no_sync: false },
        'accelerator_config:\n  gradient_accumulation_kwargs:\n    sync_each_batch: true\n',
        format,
      );
    }
    checkFix(
      'run.vram.yaml',
      'fsdp: full_shard\n',
      { fsdp_no_sync: false },
      'fsdp: full_shard\nfsdp_no_sync: false\n',
      'scenario',
    );
  });
  it('FSDP1 checkpoints as FULL_STATE_DICT: Accelerate and Axolotl fsdp_config, accelerate launch, a scenario', () => {
    // The advice's fsdp-full-state-dict move (advice/moves/checkpoints.ts); the names are torch's StateDictType.
    checkFix(
      'fsdp.yaml',
      'distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_state_dict_type: SHARDED_STATE_DICT\n',
      { fsdp_state_dict_type: 'full' },
      'distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_state_dict_type: FULL_STATE_DICT\n',
      'accelerate-yaml',
    );
    checkFix(
      'ds.yaml',
      'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\n',
      { fsdp_state_dict_type: 'full' },
      undefined,
      'accelerate-yaml',
    );
    // Axolotl takes fsdp_config keys with or without the fsdp_ prefix; the edit follows the file.
    checkFix(
      'a.yml',
      'base_model: x/y\nfsdp:\n  - full_shard\nfsdp_config:\n  fsdp_offload_params: true\n',
      { fsdp_state_dict_type: 'full' },
      'base_model: x/y\nfsdp:\n  - full_shard\nfsdp_config:\n  fsdp_offload_params: true\n  fsdp_state_dict_type: FULL_STATE_DICT\n',
      'axolotl-yaml',
    );
    checkFix(
      'a.yml',
      'base_model: x/y\nfsdp_version: 1\nfsdp_config:\n  state_dict_type: SHARDED_STATE_DICT\n',
      { fsdp_state_dict_type: 'full' },
      'base_model: x/y\nfsdp_version: 1\nfsdp_config:\n  state_dict_type: FULL_STATE_DICT\n',
      'axolotl-yaml',
    );
    checkFix(
      'run.sh',
      'accelerate launch --use_fsdp --fsdp_state_dict_type SHARDED_STATE_DICT train.py --bf16\n',
      { fsdp_state_dict_type: 'full' },
      'accelerate launch --use_fsdp --fsdp_state_dict_type FULL_STATE_DICT train.py --bf16\n',
      'shell',
    );
    checkFix(
      'run.sh',
      'accelerate launch --use_fsdp train.py --bf16\n',
      { fsdp_state_dict_type: 'full' },
      'accelerate launch --fsdp_state_dict_type FULL_STATE_DICT --use_fsdp train.py --bf16\n',
      'shell',
    );
    checkFix('run.sh', 'torchrun --nproc_per_node 2 train.py --bf16\n', { fsdp_state_dict_type: 'full' }, undefined);
    checkFix(
      'run.vram.yaml',
      'fsdp: full_shard\n',
      { fsdp_state_dict_type: 'full' },
      'fsdp: full_shard\nfsdp_state_dict_type: full\n',
      'scenario',
    );
  });
  it('the Accelerate version is a package version: only a scenario takes it', () => {
    checkFix(
      'run.vram.yaml',
      'fsdp: full_shard\n',
      { accelerate_version: '0.31' },
      "fsdp: full_shard\naccelerate_version: '0.31'\n",
      'scenario',
    );
    checkFix('fsdp.yaml', 'distributed_type: FSDP\n', { accelerate_version: '0.31' }, undefined, 'accelerate-yaml');
  });
  it('Axolotl: fused loss appends the Liger plugin to a block list', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nplugins:\n  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\nmicro_batch_size: 1\n',
      { loss: 'fused' },
      'base_model: x/y\n' +
        'plugins:\n' +
        '  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\n' +
        '  - axolotl.integrations.liger.LigerPlugin\n' +
        'micro_batch_size: 1\n' +
        'liger_fused_linear_cross_entropy: true\n',
      'axolotl-yaml',
    );
    checkFix(
      'a.yml',
      'base_model: x/y\n',
      { loss: 'fused' },
      'base_model: x/y\nplugins:\n  - axolotl.integrations.liger.LigerPlugin\nliger_fused_linear_cross_entropy: true\n',
      'axolotl-yaml',
    );
  });
  it('an anchored value is edited at its definition', () => {
    checkFix(
      'a.yml',
      'defaults: &d\n  micro_batch_size: 8\n  sequence_len: 1024\nbase_model: x/y\n<<: *d\n',
      { micro_batch_size: 4 },
      'defaults: &d\n  micro_batch_size: 4\n  sequence_len: 1024\nbase_model: x/y\n<<: *d\n',
      'axolotl-yaml',
    );
  });
  it('an alias value is edited at its anchor', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nsize: &s 8\nmicro_batch_size: *s\n',
      { micro_batch_size: 2 },
      'base_model: x/y\nsize: &s 2\nmicro_batch_size: *s\n',
      'axolotl-yaml',
    );
  });
  it('LLaMA-Factory: keys and vocabulary, comments kept', () => {
    checkFix(
      'lf.yaml',
      '### model\n' +
        'model_name_or_path: Qwen/Qwen3-4B\n' +
        '\n' +
        '### method\n' +
        'stage: sft\n' +
        'finetuning_type: full\n' +
        '\n' +
        '### train\n' +
        'per_device_train_batch_size: 2  # per GPU\n' +
        'cutoff_len: 4096\n',
      {
        method: 'qlora',
        quantization: { bits: 4, type: 'nf4', double_quant: true },
        micro_batch_size: 1,
        seq_len: 2048,
        attention: 'flash',
      },
      '### model\n' +
        'model_name_or_path: Qwen/Qwen3-4B\n' +
        '\n' +
        '### method\n' +
        'stage: sft\n' +
        'finetuning_type: lora\n' +
        '\n' +
        '### train\n' +
        'per_device_train_batch_size: 1  # per GPU\n' +
        'cutoff_len: 2048\n' +
        'quantization_bit: 4\n' +
        'flash_attn: fa2\n',
      'llamafactory-yaml',
    );
  });
  it('LLaMA-Factory: checkpointing is on unless disabled', () => {
    checkFix(
      'lf.yaml',
      'model_name_or_path: a/b\nstage: sft\ndisable_gradient_checkpointing: true\n',
      { gradient_checkpointing: 'full' },
      'model_name_or_path: a/b\nstage: sft\ndisable_gradient_checkpointing: false\n',
      'llamafactory-yaml',
    );
    checkFix(
      'lf.yaml',
      'model_name_or_path: a/b\nstage: sft\n',
      { gradient_checkpointing: 'full' },
      'model_name_or_path: a/b\nstage: sft\n',
      'llamafactory-yaml',
    );
    checkFix(
      'lf.yaml',
      'model_name_or_path: a/b\nstage: sft\n',
      { loss: 'fused', mixed_precision: 'bf16' },
      'model_name_or_path: a/b\nstage: sft\nenable_liger_kernel: true\nbf16: true\n',
      'llamafactory-yaml',
    );
  });
  it('evaluation batch: per_device_eval_batch_size (HF, TRL, LLaMA-Factory), eval_batch_size (Axolotl)', () => {
    checkFix(
      'a.yml',
      'base_model: x/y\nval_set_size: 0.05\n',
      { eval_batch_size: 1 },
      'base_model: x/y\nval_set_size: 0.05\neval_batch_size: 1\n',
      'axolotl-yaml',
    );
    checkFix(
      'lf.yaml',
      'model_name_or_path: a/b\nstage: sft\neval_strategy: steps\nper_device_eval_batch_size: 8\n',
      { eval_batch_size: 1 },
      'model_name_or_path: a/b\nstage: sft\neval_strategy: steps\nper_device_eval_batch_size: 1\n',
      'llamafactory-yaml',
    );
  });
  it('the fp32 upcast of a 4-bit model: LLaMA-Factory upcast_layernorm is a key, PEFT prepare_model_for_kbit_training is code', () => {
    checkFix(
      'lf.yaml',
      'model_name_or_path: a/b\nstage: sft\nquantization_bit: 4\nupcast_layernorm: true\n',
      { kbit_upcast: 'none' },
      'model_name_or_path: a/b\nstage: sft\nquantization_bit: 4\nupcast_layernorm: false\n',
      'llamafactory-yaml',
    );
    checkFix(
      'train.py',
      'model = prepare_model_for_kbit_training(model)\nargs = TrainingArguments(output_dir="o", bf16=True)\n',
      { kbit_upcast: 'none' },
      undefined,
      'hf-python',
    );
  });
  it('torchtune: nested keys, Python-style booleans and component swaps', () => {
    checkFix(
      'tt.yaml',
      'model:\n' +
        '  _component_: torchtune.models.llama3_1.llama3_1_8b\n' +
        'tokenizer:\n' +
        '  _component_: torchtune.models.llama3.llama3_tokenizer\n' +
        '  max_seq_len: null\n' +
        'batch_size: 2\n' +
        'enable_activation_checkpointing: False\n' +
        'optimizer:\n' +
        '  _component_: torch.optim.AdamW\n' +
        '  lr: 2e-5\n',
      { gradient_checkpointing: 'full', seq_len: 2048, optimizer: 'paged_adamw_8bit' },
      'model:\n' +
        '  _component_: torchtune.models.llama3_1.llama3_1_8b\n' +
        'tokenizer:\n' +
        '  _component_: torchtune.models.llama3.llama3_tokenizer\n' +
        '  max_seq_len: 2048\n' +
        'batch_size: 2\n' +
        'enable_activation_checkpointing: True\n' +
        'optimizer:\n' +
        '  _component_: bitsandbytes.optim.PagedAdamW8bit\n' +
        '  lr: 2e-5\n',
      'torchtune-yaml',
    );
  });
  it('torchtune: creates a missing parent mapping', () => {
    checkFix(
      'tt.yaml',
      'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: 2\n',
      { seq_len: 1024, loss: 'chunked' },
      'model:\n' +
        '  _component_: torchtune.models.llama3_1.llama3_1_8b\n' +
        'batch_size: 2\n' +
        'tokenizer:\n' +
        '  max_seq_len: 1024\n' +
        'loss:\n' +
        '  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n',
      'torchtune-yaml',
    );
  });
  it("torchtune: no fused loss to write (LinearCrossEntropyLoss keeps every chunk's fp32 log-softmax: chunked)", () => {
    checkFix(
      'tt.yaml',
      'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: 2\n',
      { loss: 'fused' },
      undefined,
      'torchtune-yaml',
    );
  });
  it('torchtune: an interpolation is edited at its target', () => {
    checkFix(
      'tt.yaml',
      'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nmy_bs: 4\nbatch_size: ${my_bs}\n',
      { micro_batch_size: 2 },
      'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nmy_bs: 2\nbatch_size: ${my_bs}\n',
      'torchtune-yaml',
    );
  });
  it('torchtune: switching a full builder to LoRA is unsupported; lora_ builders take lora_rank', () => {
    checkFix(
      'tt.yaml',
      'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: 2\n',
      { method: 'lora', lora: { r: 16 } },
      undefined,
      'torchtune-yaml',
    );
    checkFix(
      'tt.yaml',
      'model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n  lora_rank: 8\n  lora_alpha: 16\nbatch_size: 2\n',
      { lora: { r: 4, alpha: 8 } },
      'model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n  lora_rank: 4\n  lora_alpha: 8\nbatch_size: 2\n',
      'torchtune-yaml',
    );
  });
  it('HF/TRL YAML: inserts use_peft and lora keys, keeps sequence key name', () => {
    checkFix(
      'sft.yaml',
      'model_name_or_path: a/b\nmax_seq_length: 2048\nper_device_train_batch_size: 4\n',
      { seq_len: 1024, method: 'lora', lora: { r: 16, alpha: 32, target_modules: 'all-linear' } },
      'model_name_or_path: a/b\n' +
        'max_seq_length: 1024\n' +
        'per_device_train_batch_size: 4\n' +
        'use_peft: true\n' +
        'lora_r: 16\n' +
        'lora_alpha: 32\n' +
        'lora_target_modules: all-linear\n',
      'hf-yaml',
    );
  });
  it('an empty parent (`key:` with nothing) gets the nested key', () => {
    checkFix(
      'accel.yaml',
      'distributed_type: DEEPSPEED\ndeepspeed_config:\nnum_processes: 2\n',
      { zero_stage: 3 },
      'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\nnum_processes: 2\n',
      'accelerate-yaml',
    );
  });
});

describe('fixes: DPO scripts', () => {
  const D =
    'args = DPOConfig(output_dir="o", per_device_train_batch_size=2)\ntrainer = DPOTrainer(model=model, args=args)\n';
  it('writes precompute_ref_log_probs and the fused preference loss into DPOConfig', () => {
    checkFix(
      'dpo.py',
      D,
      { preference: { reference: 'precomputed', logps: 'rows' } },
      D.replace('per_device_train_batch_size=2)', 'per_device_train_batch_size=2, precompute_ref_log_probs=True)'),
    );
    checkFix(
      'dpo.py',
      D,
      { loss: 'fused' },
      D.replace('per_device_train_batch_size=2)', 'per_device_train_batch_size=2, use_liger_loss=True)'),
    );
  });
});

describe('fixes: DoRA', () => {
  it('turns DoRA off in LoraConfig and in a LLaMA-Factory YAML', () => {
    const P = 'config = LoraConfig(r=16, lora_alpha=32, use_dora=True)\nmodel = get_peft_model(model, config)\n';
    checkFix(
      'train.py',
      P,
      { lora: { r: 16, alpha: 32, use_dora: false } },
      P.replace('use_dora=True', 'use_dora=False'),
    );
    const Y =
      'model_name_or_path: meta-llama/Llama-3.2-3B\nstage: sft\nfinetuning_type: lora\nlora_rank: 16\nuse_dora: true\n';
    checkFix(
      'lf.yaml',
      Y,
      { lora: { r: 16, use_dora: false } },
      Y.replace('use_dora: true', 'use_dora: false'),
      'llamafactory-yaml',
    );
  });
});

describe('fixes: GRPO scripts', () => {
  const G =
    'args = GRPOConfig(output_dir="o", per_device_train_batch_size=8, ' +
    'gradient_accumulation_steps=4, beta=0.04, max_completion_length=1024, use_vllm=True, ' +
    'vllm_mode="colocate")\n' +
    'trainer = GRPOTrainer(model="Qwen/Qwen2.5-7B-Instruct", args=args, reward_funcs=f)\n';
  const r = {
    batch: 32,
    completion_len: 1024,
    engine: 'vllm-colocate',
    vllm_memory_fraction: 0.3,
    vllm_sleep: false,
    reference: 'adapters-off',
    old_logps: true,
    gather_weights: true,
  };
  it('writes vllm_enable_sleep_mode, beta 0, steps_per_generation and max_completion_length into GRPOConfig', () => {
    const add = (kw: string): string => G.replace('vllm_mode="colocate")', `vllm_mode="colocate", ${kw})`);
    checkFix('grpo.py', G, { rollout: { ...r, vllm_sleep: true } }, add('vllm_enable_sleep_mode=True'));
    checkFix('grpo.py', G, { rollout: { ...r, reference: 'none' } }, G.replace('beta=0.04', 'beta=0'));
    // 16 completions per round at a micro-batch of 8: two micro-batches per round.
    checkFix('grpo.py', G, { rollout: { ...r, batch: 16 } }, add('steps_per_generation=2'));
    // A shorter GRPO sequence: the prompt gets what the completion leaves.
    checkFix(
      'grpo.py',
      G,
      { seq_len: 1280, rollout: { ...r, completion_len: 768 } },
      G.replace('max_completion_length=1024', 'max_completion_length=768').replace(
        'vllm_mode="colocate")',
        'vllm_mode="colocate", max_prompt_length=512)',
      ),
    );
  });
});

describe('fixes: online DPO scripts', () => {
  const O =
    'args = OnlineDPOConfig(output_dir="o", per_device_train_batch_size=4, max_new_tokens=256, max_length=1024, bf16=True)\n' +
    'trainer = OnlineDPOTrainer(model="Qwen/Qwen2.5-7B-Instruct", args=args, reward_funcs=["Qwen/Qwen2.5-0.5B"])\n';
  const r = { objective: 'online-dpo', batch: 8, completion_len: 256, engine: 'generate', reference: 'copy' };
  it("writes max_new_tokens for fewer generated tokens and max_length for a shorter sequence (not GRPO's keys)", () => {
    checkFix(
      'odpo.py',
      O,
      { rollout: { ...r, completion_len: 128 } },
      O.replace('max_new_tokens=256', 'max_new_tokens=128'),
    );
    checkFix(
      'odpo.py',
      O,
      { seq_len: 512, rollout: { ...r, completion_len: 128 } },
      O.replace('max_new_tokens=256', 'max_new_tokens=128').replace('max_length=1024', 'max_length=512'),
    );
  });
});

describe('fixes: Unsloth scripts', () => {
  const U = [
    'model, tok = FastLanguageModel.from_pretrained(model_name="unsloth/Qwen3-8B", max_seq_length=4096, load_in_4bit=True)',
    'model = FastLanguageModel.get_peft_model(model, r=16, lora_alpha=16, use_gradient_checkpointing="unsloth")',
    'args = SFTConfig(per_device_train_batch_size=2, output_dir="o")',
    '',
  ].join('\n');
  const with_ = (from: string, to: string): string => U.replace(from, to);
  it('writes checkpointing and offload into use_gradient_checkpointing', () => {
    checkFix(
      'train.py',
      U,
      { gradient_checkpointing: 'none' },
      with_('use_gradient_checkpointing="unsloth"', 'use_gradient_checkpointing=False'),
    );
    checkFix(
      'train.py',
      U,
      { activation_offloading: false },
      with_('use_gradient_checkpointing="unsloth"', 'use_gradient_checkpointing=True'),
    );
    checkFix(
      'train.py',
      U,
      [
        { key: 'gradient_checkpointing', value: 'none' },
        { key: 'activation_offloading', value: false },
      ],
      with_('use_gradient_checkpointing="unsloth"', 'use_gradient_checkpointing=False'),
    );
  });
  it('writes LoRA into get_peft_model, 4/8-bit loading and the sequence length into from_pretrained', () => {
    checkFix('train.py', U, { lora: { r: 8, alpha: 16 } }, with_('r=16', 'r=8'));
    checkFix(
      'train.py',
      U,
      { quantization: { bits: 8, type: 'int8' } },
      with_('load_in_4bit=True', 'load_in_4bit=False, load_in_8bit=True'),
    );
    checkFix(
      'train.py',
      U,
      [
        { key: 'method', value: 'lora' },
        { key: 'quantization', value: undefined },
      ],
      with_('load_in_4bit=True', 'load_in_4bit=False'),
    );
    checkFix('train.py', U, { seq_len: 2048 }, with_('max_seq_length=4096', 'max_seq_length=2048'));
    checkFix('train.py', U, { loss: 'full' }, undefined);
  });
});

describe('fixes: Python', () => {
  const F = 'train.py';
  it('replaces a keyword value and adds one inline', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="out", per_device_train_batch_size=8)\n',
      { micro_batch_size: 4, gradient_checkpointing: 'full' },
      'from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="out", per_device_train_batch_size=4, gradient_checkpointing=True)\n',
    );
  });
  it('one keyword per line with a trailing comma', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nargs = TrainingArguments(\n    output_dir="out",\n    fp16=True,\n)\n',
      { mixed_precision: 'bf16' },
      'from transformers import TrainingArguments\nargs = TrainingArguments(\n    output_dir="out",\n    fp16=False,\n    bf16=True,\n)\n',
    );
  });
  it('one keyword per line without a trailing comma', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nargs = TrainingArguments(\n  output_dir="out",\n  bf16=True\n)\n',
      { optimizer: 'adamw_8bit' },
      'from transformers import TrainingArguments\nargs = TrainingArguments(\n  output_dir="out",\n  bf16=True,\n  optim="adamw_bnb_8bit"\n)\n',
    );
  });
  it('single quotes are kept for new strings', () => {
    checkFix(
      F,
      "from trl import SFTConfig\ncfg = SFTConfig(output_dir='out', max_length=2048)\n",
      { optimizer: 'paged_adamw_8bit', seq_len: 1024 },
      "from trl import SFTConfig\ncfg = SFTConfig(output_dir='out', max_length=1024, optim='paged_adamw_8bit')\n",
    );
  });
  it('hanging indentation', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="out",\n                         bf16=True)\n',
      { gradient_accumulation_steps: 4 },
      'from transformers import TrainingArguments\n' +
        'args = TrainingArguments(output_dir="out",\n' +
        '                         bf16=True,\n' +
        '                         gradient_accumulation_steps=4)\n',
    );
  });
  it('nested inside Trainer(args=...), code around it untouched', () => {
    checkFix(
      F,
      'import transformers\n' +
        'trainer = transformers.Trainer(\n' +
        '    model=model,\n' +
        '    args=transformers.TrainingArguments(per_device_train_batch_size=4, fp16=True),\n' +
        ')\n' +
        'trainer.train()\n',
      { micro_batch_size: 2, gradient_accumulation_steps: 2 },
      'import transformers\n' +
        'trainer = transformers.Trainer(\n' +
        '    model=model,\n' +
        '    args=transformers.TrainingArguments(per_device_train_batch_size=2, fp16=True, ' +
        'gradient_accumulation_steps=2),\n' +
        ')\n' +
        'trainer.train()\n',
    );
  });
  it('a variable value is replaced by the literal', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nbs = 8\nargs = TrainingArguments(per_device_train_batch_size=bs)\n',
      { micro_batch_size: 4 },
      'from transformers import TrainingArguments\nbs = 8\nargs = TrainingArguments(per_device_train_batch_size=4)\n',
    );
  });
  it('attention goes to from_pretrained; LoRA edits an existing LoraConfig', () => {
    checkFix(
      F,
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
        'from peft import LoraConfig\n' +
        'model = AutoModelForCausalLM.from_pretrained("a/b")\n' +
        'cfg = LoraConfig(r=8, target_modules=["q_proj", "v_proj"])\n' +
        'args = TrainingArguments(bf16=True)\n',
      [
        { key: 'attention', value: 'flash' },
        { key: 'method', value: 'lora' },
        { key: 'lora', value: { r: 16, alpha: 32, target_modules: 'all-linear', modules_to_save: [] } },
      ],
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
        'from peft import LoraConfig\n' +
        'model = AutoModelForCausalLM.from_pretrained("a/b", attn_implementation="flash_attention_2")\n' +
        'cfg = LoraConfig(r=16, target_modules="all-linear", lora_alpha=32)\n' +
        'args = TrainingArguments(bf16=True)\n',
    );
  });
  it('LoRA without a LoraConfig is unsupported, and the whole change is dropped', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nargs = TrainingArguments(per_device_train_batch_size=8)\n',
      [
        { key: 'method', value: 'lora' },
        { key: 'lora', value: { r: 16 } },
        { key: 'micro_batch_size', value: 4 },
      ],
      undefined,
    );
  });
  it('a sequence length needs a TRL config or a key the file already uses', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nargs = TrainingArguments(bf16=True)\n',
      { seq_len: 1024 },
      undefined,
    );
  });
  it('CRLF files keep CRLF in new lines', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\r\nargs = TrainingArguments(\r\n    bf16=True,\r\n)\r\n',
      { gradient_checkpointing: 'full' },
      'from transformers import TrainingArguments\r\nargs = TrainingArguments(\r\n    bf16=True,\r\n    gradient_checkpointing=True,\r\n)\r\n',
    );
  });
  it('a keyword is not added beside a ** argument, which may already pass it (a TypeError at run time)', () => {
    // PEFT's examples/sft/utils.py: from_pretrained(args.model_name_or_path, **model_kwargs) with model_kwargs["dtype"].
    const before =
      'import torch\nfrom transformers import AutoModelForCausalLM\n' +
      'model_kwargs = {"dtype": torch.float32}\n' +
      'model = AutoModelForCausalLM.from_pretrained("a/b", **model_kwargs)\n';
    checkFix(F, before, { weights_dtype: 'bf16' }, undefined);
    const plan = editsForChanges(toChanges({ weights_dtype: 'bf16' }), [fixFile(F, before)], F);
    assert.match(plan.unsupported[0].reason, /\*\* argument that may already set `(torch_)?dtype`/);
    // A mapping whose keys are read whole, without the keyword (on any branch), takes it beside it.
    checkFix(
      F,
      'from trl import GRPOConfig\nkw = dict(use_vllm=True)\nif x:\n    kw["bf16"] = True\ncfg = GRPOConfig(**kw)\n',
      { optimizer: 'adamw_8bit' },
      'from trl import GRPOConfig\nkw = dict(use_vllm=True)\nif x:\n    kw["bf16"] = True\ncfg = GRPOConfig(**kw, optim="adamw_bnb_8bit")\n',
    );
    checkFix(
      F,
      'from trl import GRPOConfig\nkw = dict(use_vllm=True)\nif x:\n    kw["optim"] = "adamw_torch"\ncfg = GRPOConfig(**kw)\n',
      { optimizer: 'adamw_8bit' },
      undefined,
    );
    checkFix(
      F,
      'from trl import GRPOConfig\nkw = load()\ncfg = GRPOConfig(**kw)\n',
      { optimizer: 'adamw_8bit' },
      undefined,
    );
    // A keyword the call names itself is still replaced in place.
    checkFix(
      F,
      'from transformers import TrainingArguments\nkw = {}\nargs = TrainingArguments(bf16=True, **kw)\n',
      { gradient_checkpointing: 'full', mixed_precision: 'bf16' },
      'from transformers import TrainingArguments\nkw = {}\nargs = TrainingArguments(bf16=True, **kw, gradient_checkpointing=True)\n',
    );
    checkFix(
      F,
      'from transformers import TrainingArguments\nkw = {}\nargs = TrainingArguments(per_device_train_batch_size=8, **kw)\n',
      { micro_batch_size: 4 },
      'from transformers import TrainingArguments\nkw = {}\nargs = TrainingArguments(per_device_train_batch_size=4, **kw)\n',
    );
  });
  it('empty call', () => {
    checkFix(
      F,
      'from transformers import TrainingArguments\nargs = TrainingArguments()\n',
      { micro_batch_size: 2 },
      'from transformers import TrainingArguments\nargs = TrainingArguments(per_device_train_batch_size=2)\n',
    );
  });
});

describe('fixes: shell', () => {
  const F = 'run.sh';
  const base =
    '#!/bin/bash\n' +
    'torchrun --nproc_per_node=4 train.py \\\n' +
    '    --model_name_or_path meta-llama/Llama-2-7b-hf \\\n' +
    '    --per_device_train_batch_size 8 \\\n' +
    '    --bf16 True\n';
  it('replaces `--k v` and `--k=v` values', () => {
    checkFix(
      F,
      base,
      { micro_batch_size: 4, gpus_per_node: 8 },
      '#!/bin/bash\n' +
        'torchrun --nproc_per_node=8 train.py \\\n' +
        '    --model_name_or_path meta-llama/Llama-2-7b-hf \\\n' +
        '    --per_device_train_batch_size 4 \\\n' +
        '    --bf16 True\n',
    );
  });
  it('a new flag joins the continuation block; the last line stays without a backslash', () => {
    checkFix(
      F,
      base,
      { gradient_checkpointing: 'full' },
      '#!/bin/bash\n' +
        'torchrun --nproc_per_node=4 train.py \\\n' +
        '    --model_name_or_path meta-llama/Llama-2-7b-hf \\\n' +
        '    --per_device_train_batch_size 8 \\\n' +
        '    --bf16 True \\\n' +
        '    --gradient_checkpointing True\n',
    );
  });
  it('inserts before the next continuation line when the last flag is not last in the block', () => {
    checkFix(
      F,
      'torchrun train.py \\\n  --per_device_train_batch_size 8 \\\n  --output_dir out \\\n  --bf16 True \\\n  2>&1 | tee log\n',
      { optimizer: 'adamw_8bit' },
      'torchrun train.py \\\n  --per_device_train_batch_size 8 \\\n  --output_dir out \\\n  --bf16 True \\\n  --optim adamw_bnb_8bit \\\n  2>&1 | tee log\n',
    );
  });
  it('a launcher option is added after the launcher', () => {
    checkFix(
      F,
      'torchrun train.py --per_device_train_batch_size 8\n',
      { gpus_per_node: 2 },
      'torchrun --nproc_per_node 2 train.py --per_device_train_batch_size 8\n',
    );
    checkFix(
      F,
      'accelerate launch train.py --per_device_train_batch_size 8\n',
      { gpus_per_node: 4 },
      'accelerate launch --num_processes 4 train.py --per_device_train_batch_size 8\n',
    );
  });
  it('a bare flag switched off is removed', () => {
    checkFix(
      F,
      'python train.py \\\n  --per_device_train_batch_size 8 \\\n  --fp16 \\\n  --output_dir out\n',
      { mixed_precision: 'bf16' },
      'python train.py \\\n  --per_device_train_batch_size 8 \\\n  --bf16 True \\\n  --output_dir out\n',
    );
  });
  it('CRLF scripts', () => {
    checkFix(
      F,
      'torchrun train.py \\\r\n  --per_device_train_batch_size 8\r\n',
      { gradient_accumulation_steps: 2 },
      'torchrun train.py \\\r\n  --per_device_train_batch_size 8 \\\r\n  --gradient_accumulation_steps 2\r\n',
    );
  });
  it('a single-process python command cannot take a GPU count', () => {
    checkFix(F, 'python train.py --per_device_train_batch_size 8\n', { gpus_per_node: 2 }, undefined);
  });
  it('ms-swift takes the HF flags it parses, and --max_length for the sequence; LitGPT only the flags it already has', () => {
    checkFix(
      F,
      'swift sft \\\n  --model Qwen/Qwen2.5-7B-Instruct \\\n  --per_device_train_batch_size 4\n',
      { micro_batch_size: 2, seq_len: 1024, gradient_checkpointing: 'full' },
      'swift sft \\\n  --model Qwen/Qwen2.5-7B-Instruct \\\n  --per_device_train_batch_size 2 \\\n  --max_length 1024 \\\n  --gradient_checkpointing True\n',
    );
    checkFix(
      F,
      'litgpt finetune_lora checkpoints/a/b --train.max_seq_length 2048 --lora_r 16\n',
      { seq_len: 1024, lora: { r: 8 } },
      'litgpt finetune_lora checkpoints/a/b --train.max_seq_length 1024 --lora_r 8\n',
    );
    checkFix(F, 'litgpt finetune_lora checkpoints/a/b\n', { micro_batch_size: 2 }, undefined);
  });
});

describe('fixes: scenario', () => {
  it('YAML scenario takes any key, nested in block style', () => {
    checkFix(
      'run.vram.yaml',
      'model: meta-llama/Llama-2-7b-hf\nmicro_batch_size: 4\n',
      [
        { key: 'micro_batch_size', value: 2 },
        { key: 'method', value: 'lora' },
        { key: 'lora', value: { r: 16, target_modules: ['q_proj', 'v_proj'] } },
      ],
      'model: meta-llama/Llama-2-7b-hf\nmicro_batch_size: 2\nmethod: lora\nlora:\n  r: 16\n  target_modules:\n    - q_proj\n    - v_proj\n',
    );
  });
  it('an existing block mapping is updated key by key', () => {
    checkFix(
      'run.vram.yaml',
      'model: a/b\nlora:\n  r: 8 # small\n  alpha: 16\n',
      { lora: { r: 16, alpha: 32 } },
      'model: a/b\nlora:\n  r: 16 # small\n  alpha: 32\n',
    );
  });
  it('JSON scenario', () => {
    checkFix(
      'run.vram.json',
      '{\n  "model": "a/b"\n}\n',
      { zero_stage: 3, gpus_per_node: 8 },
      '{\n  "model": "a/b",\n  "zero_stage": 3,\n  "gpus_per_node": 8\n}\n',
    );
  });
});

describe('fixes: choosing the file', () => {
  const py =
    'from transformers import TrainingArguments\nargs = TrainingArguments(per_device_train_batch_size=8, deepspeed="ds.json")\n';
  const ds = '{\n  "train_micro_batch_size_per_gpu": 8,\n  "zero_optimization": {\n    "stage": 1\n  }\n}\n';
  const files = (): FixFile[] => [fixFile('train.py', py), fixFile('ds.json', ds, 'deepspeed-json')];
  it('ZeRO goes to the DeepSpeed JSON even when the .py is primary', () => {
    const plan = editsForChanges([{ key: 'zero_stage', value: 3 }], files(), 'train.py');
    assert.deepEqual(plan.unsupported, []);
    assert.ok(plan.edits.every((e) => e.file === 'ds.json'));
  });
  it('a key set in two files is changed in both (DeepSpeed numbers must match TrainingArguments)', () => {
    const plan = editsForChanges([{ key: 'micro_batch_size', value: 4 }], files(), 'train.py');
    assert.deepEqual(new Set(plan.edits.map((e) => e.file)), new Set(['train.py', 'ds.json']));
  });
  it('precision goes to the trainer file when nothing sets it', () => {
    const plan = editsForChanges([{ key: 'mixed_precision', value: 'bf16' }], files(), 'ds.json');
    assert.ok(plan.edits.length > 0 && plan.edits.every((e) => e.file === 'train.py'));
  });
  it('ZeRO without any DeepSpeed-capable file is unsupported with a reason', () => {
    const plan = editsForChanges(
      [
        { key: 'zero_stage', value: 3 },
        { key: 'offload_optimizer', value: 'cpu' },
      ],
      [fixFile('train.py', 'from transformers import TrainingArguments\nargs = TrainingArguments(bf16=True)\n')],
      'train.py',
    );
    assert.equal(plan.edits.length, 0);
    assert.deepEqual(
      plan.unsupported.map((u) => u.key),
      ['zero_stage', 'offload_optimizer'],
    );
  });
  it('zero_stage 0 with no DeepSpeed file is already true: no edit, no complaint', () => {
    const plan = editsForChanges(
      [{ key: 'zero_stage', value: 0 }],
      [fixFile('train.py', py.replace(', deepspeed="ds.json"', ''))],
      'train.py',
    );
    assert.deepEqual(plan, { edits: [], unsupported: [] });
  });
  it('setKey writes one canonical key', () => {
    const f = fixFile('ds.json', ds, 'deepspeed-json');
    const e = setKey(f, 'zeroStage', 2);
    assert.ok(e);
    assert.equal(applyEditData(ds, e), ds.replace('"stage": 1', '"stage": 2'));
    assert.equal(setKey(f, 'teacherModel', 'x'), undefined);
  });
});

describe('fixes: ZeRO through the DeepSpeed configs Axolotl and LLaMA-Factory ship', () => {
  const AX = 'base_model: meta-llama/Meta-Llama-3-8B\nbf16: true\nmicro_batch_size: 1\n';
  const LF = 'model_name_or_path: Qwen/Qwen3-4B\nstage: sft\nfinetuning_type: full\nbf16: true\n';
  it('Axolotl: ZeRO-3 names deepspeed_configs/zero3_bf16.json (bf16 run), full offload the cpuoffload_all file', () => {
    checkFix(
      'axolotl.yml',
      AX,
      { zero_stage: 3 },
      `${AX}deepspeed: deepspeed_configs/zero3_bf16.json\n`,
      'axolotl-yaml',
    );
    checkFix(
      'axolotl.yml',
      AX,
      { zero_stage: 3, offload_optimizer: 'cpu', offload_params: 'cpu' },
      `${AX}deepspeed: deepspeed_configs/zero3_bf16_cpuoffload_all.json\n`,
      'axolotl-yaml',
    );
    // Axolotl's ZeRO-2 file offloads the optimizer: plain ZeRO-2 has no shipped file.
    checkFix('axolotl.yml', AX, { zero_stage: 2 }, undefined, 'axolotl-yaml');
    checkFix(
      'axolotl.yml',
      AX,
      { zero_stage: 2, offload_optimizer: 'cpu' },
      `${AX}deepspeed: deepspeed_configs/zero2.json\n`,
      'axolotl-yaml',
    );
  });
  it('Axolotl: a change of offload alone keeps the stage of the shipped file already named', () => {
    const named = `${AX}deepspeed: deepspeed_configs/zero3_bf16.json\n`;
    checkFix(
      'axolotl.yml',
      named,
      { offload_params: 'cpu' },
      named.replace('zero3_bf16.json', 'zero3_bf16_cpuoffload_params.json'),
      'axolotl-yaml',
    );
    // A DeepSpeed file of the user's own is changed in that file, not swapped for a shipped one.
    checkFix('axolotl.yml', `${AX}deepspeed: my_ds.json\n`, { offload_params: 'cpu' }, undefined, 'axolotl-yaml');
  });
  it('Axolotl under FSDP: the offload is fsdp_config.offload_params (parameters, gradients and optimizer step)', () => {
    const fsdp = `${AX}fsdp_version: 2\nfsdp_config:\n  offload_params: false\n  reshard_after_forward: true\n`;
    checkFix(
      'axolotl.yml',
      fsdp,
      { offload_optimizer: 'cpu' },
      fsdp.replace('offload_params: false', 'offload_params: true'),
      'axolotl-yaml',
    );
    const prefixed = `${AX}fsdp_config:\n  fsdp_offload_params: false\n  fsdp_sharding_strategy: FULL_SHARD\n`;
    checkFix(
      'axolotl.yml',
      prefixed,
      { offload_params: 'cpu', offload_optimizer: 'cpu' },
      prefixed.replace('fsdp_offload_params: false', 'fsdp_offload_params: true'),
      'axolotl-yaml',
    );
    checkFix('axolotl.yml', fsdp, { offload_params: 'nvme' }, undefined, 'axolotl-yaml');
    checkFix(
      'axolotl.yml',
      `${AX}fsdp:\n  - full_shard\n  - auto_wrap\n`,
      { offload_params: 'cpu' },
      undefined,
      'axolotl-yaml',
    );
  });

  it('LLaMA-Factory: examples/deepspeed/ds_z3_config.json, ds_z3_offload_config.json, ds_z2_offload_config.json', () => {
    checkFix(
      'sft.yaml',
      LF,
      { zero_stage: 3 },
      `${LF}deepspeed: examples/deepspeed/ds_z3_config.json\n`,
      'llamafactory-yaml',
    );
    checkFix(
      'sft.yaml',
      LF,
      { zero_stage: 3, offload_optimizer: 'cpu', offload_params: 'cpu' },
      `${LF}deepspeed: examples/deepspeed/ds_z3_offload_config.json\n`,
      'llamafactory-yaml',
    );
    checkFix(
      'sft.yaml',
      LF,
      { zero_stage: 2, offload_optimizer: 'cpu' },
      `${LF}deepspeed: examples/deepspeed/ds_z2_offload_config.json\n`,
      'llamafactory-yaml',
    );
    // Parameters offloaded without the optimizer: LLaMA-Factory ships no such file.
    checkFix('sft.yaml', LF, { zero_stage: 3, offload_params: 'cpu' }, undefined, 'llamafactory-yaml');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Round trip: every supported (format, key) pair re-analyzes to the requested value with no new syntax problems.

/** Canonical facts that show a setup value; undefined when the value shows as the tool default (no fact). */
function showsValue(facts: ConfigFacts, key: string, value: unknown, format: Format): boolean {
  const get = (k: CanonicalKey): unknown => {
    const hits = facts.facts.filter((f) => f.key === k && !isUnknown(f.value));
    return hits.length ? hits[hits.length - 1]!.value : undefined;
  };
  switch (key) {
    case 'micro_batch_size':
      return get('microBatchSize') === value;
    case 'gradient_accumulation_steps':
      return get('gradientAccumulationSteps') === value;
    case 'seq_len':
      return get('seqLen') === value;
    case 'gradient_checkpointing':
      return (
        get('gradientCheckpointing') === value ||
        (format === 'llamafactory-yaml' && value === 'full' && get('gradientCheckpointing') === undefined)
      );
    case 'mixed_precision':
      if (format === 'torchtune-yaml') return get('weightsDtype') === value;
      if (value === 'none')
        return get('bf16') !== true && get('fp16') !== true && (get('mixedPrecision') ?? 'none') === 'none';
      return get(value === 'bf16' ? 'bf16' : 'fp16') === true || get('mixedPrecision') === value;
    case 'optimizer':
      return get('optimizer') === value;
    case 'attention':
      return get('attention') === value;
    case 'loss':
      return get('loss') === value;
    case 'zero_stage':
      return get('zeroStage') === value;
    case 'offload_optimizer':
      return get('offloadOptimizer') === value;
    case 'offload_params':
      return get('offloadParams') === value;
    case 'gpus_per_node':
      return (
        get('gpusPerNode') === value ||
        get('worldSize') === (value as number) * ((get('nodes') as number | undefined) ?? 1)
      );
    case 'weights_dtype':
      return get('weightsDtype') === value;
    case 'master_weights':
      return true;
    case 'compile':
      return get('compile') === value;
    case 'method':
      return get('method') === value || (value === 'qlora' && get('quantBits') === 4);
    case 'fsdp':
      return get('fsdp') === value;
    default:
      return true;
  }
}

const ROUND_TRIP: readonly { file: string; format: Format; text: string; changes: Record<string, unknown>[] }[] = [
  {
    file: 'ds.json',
    format: 'deepspeed-json',
    text: '{\n  "train_micro_batch_size_per_gpu": 8,\n  "gradient_accumulation_steps": 1\n}\n',
    changes: [
      { zero_stage: 3 },
      { zero_stage: 2, offload_optimizer: 'cpu' },
      { zero_stage: 3, offload_params: 'cpu' },
      { mixed_precision: 'bf16' },
      { mixed_precision: 'fp16' },
      { micro_batch_size: 4, gradient_accumulation_steps: 2 },
    ],
  },
  {
    file: 'train.py',
    format: 'hf-python',
    text:
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'model = AutoModelForCausalLM.from_pretrained("a/b")\n' +
      'args = TrainingArguments(\n' +
      '    output_dir="out",\n' +
      '    per_device_train_batch_size=8,\n' +
      ')\n',
    changes: [
      { micro_batch_size: 2 },
      { gradient_accumulation_steps: 4 },
      { mixed_precision: 'bf16' },
      { mixed_precision: 'fp16' },
      { mixed_precision: 'none' },
      { gradient_checkpointing: 'full' },
      { optimizer: 'adamw_8bit' },
      { optimizer: 'paged_adamw_8bit' },
      { optimizer: 'adafactor' },
      { attention: 'flash' },
      { attention: 'sdpa' },
      { loss: 'fused' },
      { compile: true },
      { fsdp: 'full_shard' },
    ],
  },
  {
    file: 'sft.py',
    format: 'hf-python',
    text: 'from trl import SFTConfig\ncfg = SFTConfig(output_dir="o")\n',
    changes: [{ seq_len: 1024 }, { micro_batch_size: 1 }],
  },
  {
    file: 'run.sh',
    format: 'shell',
    text: 'torchrun --nproc_per_node 2 train.py \\\n  --per_device_train_batch_size 8 \\\n  --output_dir out\n',
    changes: [
      { micro_batch_size: 4 },
      { gradient_accumulation_steps: 8 },
      { mixed_precision: 'bf16' },
      { gradient_checkpointing: 'full' },
      { optimizer: 'adamw_8bit' },
      { loss: 'fused' },
      { gpus_per_node: 8 },
    ],
  },
  {
    file: 'accel.yaml',
    format: 'accelerate-yaml',
    text: "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmixed_precision: 'no'\nnum_processes: 2\n",
    changes: [
      { mixed_precision: 'bf16' },
      { zero_stage: 3 },
      { zero_stage: 2, offload_optimizer: 'cpu' },
      { gpus_per_node: 8 },
    ],
  },
  {
    file: 'a.yml',
    format: 'axolotl-yaml',
    text: 'base_model: NousResearch/Llama-2-7b-hf\nmicro_batch_size: 4\nsequence_len: 4096\n',
    changes: [
      { micro_batch_size: 1 },
      { gradient_accumulation_steps: 4 },
      { seq_len: 2048 },
      { mixed_precision: 'bf16' },
      { gradient_checkpointing: 'full' },
      { optimizer: 'adamw_8bit' },
      { attention: 'flash' },
      { attention: 'sdpa' },
      { loss: 'fused' },
      { method: 'lora', lora: { r: 16, alpha: 32, target_modules: 'all-linear' } },
      { method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true } },
      { compile: true },
    ],
  },
  {
    file: 'lf.yaml',
    format: 'llamafactory-yaml',
    text: 'model_name_or_path: Qwen/Qwen3-4B\nstage: sft\nfinetuning_type: full\nper_device_train_batch_size: 2\n',
    changes: [
      { micro_batch_size: 1 },
      { gradient_accumulation_steps: 8 },
      { seq_len: 1024 },
      { mixed_precision: 'bf16' },
      { gradient_checkpointing: 'full' },
      { gradient_checkpointing: 'none' },
      { optimizer: 'adamw_8bit' },
      { attention: 'flash' },
      { attention: 'sdpa' },
      { loss: 'fused' },
      { method: 'lora', lora: { r: 16 } },
      { method: 'qlora' },
    ],
  },
  {
    file: 'tt.yaml',
    format: 'torchtune-yaml',
    text:
      'model:\n' +
      '  _component_: torchtune.models.llama3_1.llama3_1_8b\n' +
      'batch_size: 2\n' +
      'gradient_accumulation_steps: 1\n' +
      'optimizer:\n' +
      '  _component_: torch.optim.AdamW\n' +
      '  lr: 2e-5\n',
    changes: [
      { micro_batch_size: 1 },
      { gradient_accumulation_steps: 4 },
      { seq_len: 2048 },
      { gradient_checkpointing: 'full' },
      { optimizer: 'adamw_8bit' },
      { optimizer: 'paged_adamw_8bit' },
      { loss: 'chunked' },
      { weights_dtype: 'bf16', mixed_precision: 'bf16' },
      { compile: true },
    ],
  },
  {
    file: 'sft.yaml',
    format: 'hf-yaml',
    text: 'model_name_or_path: a/b\nper_device_train_batch_size: 4\nlearning_rate: 2.0e-05\n',
    changes: [
      { micro_batch_size: 1 },
      { seq_len: 1024 },
      { mixed_precision: 'bf16' },
      { gradient_checkpointing: 'full' },
      { optimizer: 'adamw_8bit' },
      { attention: 'flash' },
      { loss: 'fused' },
      { method: 'lora', lora: { r: 16 } },
      { weights_dtype: 'bf16' },
    ],
  },
];

function roundTrip(file: string, format: Format, text: string, changes: Record<string, unknown>): void {
  const f = fixFile(file, text, format);
  const plan = editsForChanges(toChanges(changes), [f], file);
  assert.deepEqual(plan.unsupported, [], `${file} ${JSON.stringify(changes)}`);
  const after = applyEditData(text, plan.edits);
  const facts = analyzeAs(format, after);
  const errs = (c: ConfigFacts): number => c.problems.filter((p) => p.code === 'syntax-error').length;
  assert.ok(
    errs(facts) <= errs(f.facts),
    `no new syntax errors in ${file} after ${JSON.stringify(changes)}:\n${after}`,
  );
  for (const [k, v] of Object.entries(changes)) {
    assert.ok(showsValue(facts, k, v, format), `${file}: ${k} = ${JSON.stringify(v)} after the edit:\n${after}`);
  }
  // Applying the same change again changes nothing.
  const again = editsForChanges(toChanges(changes), [fixFile(file, after, format)], file);
  assert.equal(applyEditData(after, again.edits), after, `${file}: idempotent for ${JSON.stringify(changes)}`);
}

describe('fixes: round trip (re-analysis reads back the requested value)', () => {
  for (const rt of ROUND_TRIP) {
    it(`${rt.format}: ${rt.changes.length} changes`, () => {
      for (const c of rt.changes) roundTrip(rt.file, rt.format, rt.text, c);
    });
  }
  it('scenario YAML and JSON read back every key', () => {
    const changes: Record<string, unknown> = {
      micro_batch_size: 2,
      gradient_checkpointing: 'full',
      zero_stage: 3,
      offload_optimizer: 'cpu',
      optimizer: 'adamw_8bit',
      method: 'lora',
      lora: { r: 16, alpha: 32 },
    };
    for (const [file, text] of [
      ['s.vram.yaml', 'model: a/b\nmicro_batch_size: 4\n'],
      ['s.vram.json', '{\n  "model": "a/b",\n  "micro_batch_size": 4\n}\n'],
    ] as const) {
      const plan = editsForChanges(toChanges(changes), [fixFile(file, text)], file);
      assert.deepEqual(plan.unsupported, []);
      const after = analyzeScenario(applyEditData(text, plan.edits), file);
      assert.deepEqual(after.problems, []);
      for (const [k, v] of Object.entries(changes)) assert.deepEqual(after.values[k], v, `${file}: ${k}`);
    }
  });
});

describe('fixes: corpus files as before-texts (needs ../shared/corpus)', () => {
  const shared = sharedDir();
  const CASES: Partial<Record<Format, Record<string, unknown>[]>> = {
    'deepspeed-json': [{ zero_stage: 3, offload_optimizer: 'cpu' }, { mixed_precision: 'bf16' }],
    'accelerate-yaml': [{ mixed_precision: 'bf16' }, { gpus_per_node: 8 }],
    'axolotl-yaml': [
      { micro_batch_size: 1, gradient_accumulation_steps: 8 },
      { gradient_checkpointing: 'full' },
      { optimizer: 'paged_adamw_8bit' },
    ],
    'llamafactory-yaml': [{ micro_batch_size: 1 }, { seq_len: 1024 }, { attention: 'sdpa' }],
    'torchtune-yaml': [{ micro_batch_size: 1 }, { gradient_checkpointing: 'full' }],
    'hf-yaml': [{ micro_batch_size: 1 }, { gradient_checkpointing: 'full' }],
  };
  /** Applies one change to a corpus file; false where the change is reported unsupported (with its reason). */
  const checkEdit = (name: string, text: string, format: Format, c: Record<string, unknown>): boolean => {
    const f = fixFile(name, text, format);
    const plan = editsForChanges(toChanges(c), [f], name);
    if (plan.unsupported.length > 0) {
      for (const u of plan.unsupported) assert.ok(u.reason.length > 10, `${name}: a reason for ${u.key}`);
      return false;
    }
    const after = applyEditData(text, plan.edits);
    const facts = analyzeAs(format, after);
    const errs = (x: ConfigFacts): number => x.problems.filter((p) => p.code === 'syntax-error').length;
    assert.ok(errs(facts) <= errs(f.facts), `${name}: no new syntax errors`);
    for (const [k, v] of Object.entries(c))
      assert.ok(showsValue(facts, k, v, format), `${name}: ${k} = ${JSON.stringify(v)}\n${after}`);
    return true;
  };
  it('supported changes re-analyze to the requested values, or are reported with a reason', function () {
    if (!shared) this.skip();
    const root = path.join(shared!, 'corpus');
    let checked = 0;
    for (const dir of fs.readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      const format = dir.name as Format;
      for (const name of fs.readdirSync(path.join(root, dir.name))) {
        const text = fs.readFileSync(path.join(root, dir.name, name), 'utf8');
        for (const c of CASES[format] ?? []) if (checkEdit(name, text, format, c)) checked++;
      }
    }
    assert.ok(checked > 40, `checked ${checked} corpus edits`);
  });
});

describe('fixes: a training loop written out in Python', () => {
  it('is not edited by a quick fix, and the reason says where its settings are', () => {
    const src = [
      'from torch.utils.data import DataLoader',
      'from transformers import AutoModelForCausalLM',
      'model = AutoModelForCausalLM.from_pretrained("gpt2")',
      'loader = DataLoader(ds, batch_size=8)',
      'for batch in loader:',
      '    model(**batch).loss.backward()',
      '',
    ].join('\n');
    const plan = editsForChanges([{ key: 'micro_batch_size', value: 4 }], [fixFile('train.py', src)], 'train.py');
    assert.deepEqual(plan.edits, []);
    assert.match(plan.unsupported[0]?.reason ?? '', /training loop is written out in this file/);
  });
});
