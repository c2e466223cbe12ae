// llm-foundry's training YAML (src/analyzers/yaml/llmfoundry.ts), alone and as a MosaicML platform run's parameters.
// The files are written here after mosaicml/llm-foundry@v0.21.0's scripts/train/yamls/finetune and mcli/ examples.
import * as assert from 'node:assert/strict';
import { analyzeLlmFoundryYaml } from '../../../src/analyzers/yaml';
import { analyzeAs, detectFormat } from '../../../src/analyzers/detect';
import { applyEditData, editsForChanges, type FixFile } from '../../../src/features/fixes';
import type { SetupChange } from '../../../src/core/advice';
import type { ConfigFacts } from '../../../src/analyzers/facts';
import { resolveText } from '../helpers';

const FINETUNE = `max_seq_len: 2048
global_seed: 17
model:
  name: hf_causal_lm
  pretrained_model_name_or_path: mistralai/Mistral-7B-v0.1
  pretrained: true
  use_flash_attention_2: true
  peft_config:
    peft_type: LORA
    task_type: CAUSAL_LM
    r: 64
    lora_alpha: 128
    lora_dropout: 0.05
    target_modules:
    - q_proj
    - v_proj
train_loader:
  name: finetuning
  dataset:
    max_seq_len: \${max_seq_len}
optimizer:
  name: decoupled_lionw
  lr: 5.0e-7
max_duration: 1ep
global_train_batch_size: 32
device_train_microbatch_size: 4
precision: amp_bf16
fsdp_config:
  sharding_strategy: FULL_SHARD
  mixed_precision: PURE
  activation_checkpointing: true
  activation_checkpointing_reentrant: false
  activation_cpu_offload: false
  limit_all_gathers: true
`;

const MCLI = `integrations:
- integration_type: git_repo
  git_repo: mosaicml/llm-foundry
command: |
  cd llm-foundry/scripts
  composer train/train.py /mnt/config/parameters.yaml
compute:
  gpus: 16
parameters:
  variables:
    max_seq_len: 4096
  max_seq_len: \${variables.max_seq_len}
  model:
    name: hf_causal_lm
    pretrained_model_name_or_path: meta-llama/Meta-Llama-3-8B
  global_train_batch_size: 64
  device_train_microbatch_size: auto
  precision: amp_bf16
  fsdp_config:
    sharding_strategy: FULL_SHARD
    mixed_precision: DEFAULT
    activation_checkpointing: true
`;

const of = (r: ConfigFacts, key: string): unknown => r.facts.find((f) => f.key === key)?.value;

describe('llm-foundry YAML', () => {
  it('reads the model, its LoRA, the batch, Composer precision, FSDP and the optimizer', () => {
    assert.equal(detectFormat('finetune.yaml', FINETUNE), 'llmfoundry-yaml');
    const r = analyzeLlmFoundryYaml(FINETUNE);
    assert.deepEqual(r.problems, []);
    assert.equal(of(r, 'model'), 'mistralai/Mistral-7B-v0.1');
    assert.equal(of(r, 'attention'), 'flash');
    assert.deepEqual(
      ['method', 'loraR', 'loraAlpha', 'loraDropout', 'loraTargets'].map((k) => of(r, k)),
      ['lora', 64, 128, 0.05, ['q_proj', 'v_proj']],
    );
    assert.deepEqual(
      ['seqLen', 'trainBatchSize', 'microBatchSize', 'weightsDtype', 'mixedPrecision'].map((k) => of(r, k)),
      [2048, 32, 4, 'fp32', 'bf16'],
    );
    assert.deepEqual(
      ['fsdp', 'fsdpVersion', 'gradientCheckpointing', 'checkpointReentrant', 'activationOffloading'].map((k) =>
        of(r, k),
      ),
      ['full_shard', 1, 'full', false, false],
    );
    assert.equal(of(r, 'optimizer'), 'lion');
    // Composer's DecoupledAdamW steps one parameter at a time: the per-tensor temporaries of adamw_hf.
    assert.equal(
      of(analyzeLlmFoundryYaml(FINETUNE.replace('decoupled_lionw', 'decoupled_adamw')), 'optimizer'),
      'adamw_hf',
    );
    // Composer checkpoints reentrantly unless told otherwise.
    const reentrant = analyzeLlmFoundryYaml(FINETUNE.replace('  activation_checkpointing_reentrant: false\n', ''));
    assert.equal(of(reentrant, 'checkpointReentrant'), true);
    // 32 sequences a step over 4 GPUs at 4 each: accumulation 2.
    const res = resolveText('finetune.yaml', FINETUNE, { gpusPerNode: 4 });
    assert.deepEqual([res.setup?.micro_batch_size, res.setup?.gradient_accumulation_steps], [4, 2]);
  });

  it("a platform run: its parameters, their interpolations from there, the run's GPUs; auto and fp32 gathers said", () => {
    assert.equal(detectFormat('mcli-llama3-finetune.yaml', MCLI), 'llmfoundry-yaml');
    const r = analyzeLlmFoundryYaml(MCLI);
    assert.equal(of(r, 'model'), 'meta-llama/Meta-Llama-3-8B');
    assert.equal(of(r, 'seqLen'), 4096);
    assert.equal(of(r, 'worldSize'), 16);
    assert.deepEqual(of(r, 'microBatchSize'), { unknown: 'Composer searches the micro-batch at run time (auto)' });
    const auto = r.problems.find((p) => p.code === 'not-static')!;
    assert.equal(MCLI.slice(auto.span.start, auto.span.end), 'auto');
    assert.match(auto.message, /Composer starts at the whole per-GPU batch/);
    const mp = r.problems.find((p) => p.code === 'not-modeled')!;
    assert.match(mp.message, /DEFAULT keeps the gathered parameters in fp32/);
    // auto: the first try is the whole per-GPU batch, 64 / 16 = 4.
    const res = resolveText('mcli-llama3-finetune.yaml', MCLI);
    assert.deepEqual([res.setup?.gpus_per_node, res.setup?.nodes, res.setup?.micro_batch_size], [16, 1, 4]);
  });

  it('MPT built from dimensions is an unknown model at model.name; other YAML is not taken', () => {
    const mpt = FINETUNE.replace('name: hf_causal_lm', 'name: mpt_causal_lm');
    const r = analyzeLlmFoundryYaml(mpt);
    assert.match(JSON.stringify(of(r, 'model')), /mpt_causal_lm builds its model from the config's dimensions/);
    assert.notEqual(detectFormat('config.yaml', 'model:\n  name: x\nprecision: amp_bf16\n'), 'llmfoundry-yaml');
  });
});

describe('llm-foundry YAML: quick fixes', () => {
  const fix = (text: string, key: string, value: unknown, more: readonly SetupChange[] = []) => {
    const file: FixFile = {
      file: 'x.yaml',
      text,
      format: 'llmfoundry-yaml',
      facts: analyzeAs('llmfoundry-yaml', text),
    };
    return editsForChanges([{ key: key as SetupChange['key'], value }, ...more], [file], file.file);
  };

  it('writes the micro-batch and the sequence length where the file reads them, under parameters in a platform run', () => {
    assert.match(
      applyEditData(FINETUNE, fix(FINETUNE, 'micro_batch_size', 2).edits),
      /^device_train_microbatch_size: 2$/m,
    );
    const seq = applyEditData(MCLI, fix(MCLI, 'seq_len', 2048).edits);
    // The interpolated value is written where it is defined: parameters.variables.max_seq_len.
    assert.match(seq, /^ {4}max_seq_len: 2048$/m);
    assert.match(seq, /^ {2}max_seq_len: \$\{variables\.max_seq_len\}$/m);
    assert.match(applyEditData(MCLI, fix(MCLI, 'micro_batch_size', 2).edits), /^ {2}device_train_microbatch_size: 2$/m);
    // The accumulation follows from the global batch: a micro-batch change with it writes the micro-batch only.
    const half = fix(FINETUNE, 'micro_batch_size', 2, [{ key: 'gradient_accumulation_steps', value: 4 }]);
    assert.deepEqual(half.unsupported, []);
    assert.equal(half.edits.length, 1);
  });
});
