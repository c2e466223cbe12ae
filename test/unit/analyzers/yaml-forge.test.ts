// meta-pytorch/forge's app configs (src/analyzers/yaml/forge.ts): torchtitan's job config read by the torchtitan
// reader, at the top of an SFT config or under `trainer:` in a GRPO one. The configs are cut from
// meta-pytorch/forge@8cb21be apps/sft/llama3_8b.yaml and apps/grpo/qwen3_8b.yaml to the keys that decide memory.
import * as assert from 'node:assert/strict';
import { analyzeAs, detectFormat } from '../../../src/analyzers/detect';
import { applyEditData, editsForChanges, editableFiles } from '../../../src/features/fixes';
import { runFiles } from '../helpers';

const SFT = `model:
  name: llama3
  flavor: 8B
  hf_assets_path: /tmp/Meta-Llama-3.1-8B-Instruct
optimizer:
  name: AdamW
  lr: 1e-5
training:
  local_batch_size: 1
  seq_len: 2048
  compile: false
parallelism:
  data_parallel_replicate_degree: 1
  data_parallel_shard_degree: -1
  tensor_parallel_degree: 1
activation_checkpoint:
  mode: selective
  selective_ac_option: op
`;

const GRPO = `group_size: 8
batch_size: 16
max_req_tokens: 512
max_res_tokens: 512
model: "Qwen/Qwen3-8B"
policy:
  engine_config:
    model: \${model}
    tensor_parallel_size: 2
trainer:
  model:
    name: qwen3
    flavor: 8B
    hf_assets_path: hf://\${model}
  optimizer:
    name: AdamW
    lr: 1e-5
  training:
    local_batch_size: \${batch_size}
    seq_len: 2048
    dtype: bfloat16
  parallelism:
    data_parallel_replicate_degree: 1
    data_parallel_shard_degree: -1
  activation_checkpoint:
    mode: selective
    selective_ac_option: op
actors:
  trainer:
    procs: 2
    with_gpus: true
`;

describe("forge's app configs", () => {
  it('are recognised by torchtitan keys at the top or under trainer:', () => {
    assert.equal(detectFormat('apps/sft/llama3_8b.yaml', SFT), 'forge-yaml');
    assert.equal(detectFormat('apps/grpo/qwen3_8b.yaml', GRPO), 'forge-yaml');
    // torchtune's and Oumi's configs are not taken for one.
    assert.notEqual(
      detectFormat('x.yaml', 'model:\n  model_name: gpt2\ntraining:\n  trainer_type: TRL_SFT\n'),
      'forge-yaml',
    );
  });

  it("SFT: the model by name and flavor, the batch, FSDP2 over the GPUs, op-level SAC, as torchtitan's TOML", () => {
    const r = runFiles({ '/f/sft.yaml': SFT }, '/f/sft.yaml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual([s.model, s.micro_batch_size, s.seq_len], ['meta-llama/Llama-3.1-8B', 1, 2048]);
    assert.equal(s.gradient_checkpointing, 'selective');
    assert.equal(s.optimizer, 'adamw_fused');
  });

  it("GRPO: the trainer: section, its GPUs from actors.trainer.procs, the episode's padded length", () => {
    const r = runFiles({ '/f/grpo.yaml': GRPO }, '/f/grpo.yaml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.equal(s.model, 'Qwen/Qwen3-8B');
    // local_batch_size: ${batch_size} followed to 16; each episode is max_req_tokens + max_res_tokens long.
    assert.deepEqual([s.micro_batch_size, s.seq_len, s.gpus_per_node], [16, 1024, 2]);
    assert.deepEqual([s.fsdp, s.fsdp_version, s.weights_dtype], ['full_shard', 2, 'bf16']);
    const facts = analyzeAs('forge-yaml', GRPO).facts;
    assert.equal(facts.find((f) => f.key === 'microBatchSize')?.rawKey, 'trainer.training.local_batch_size');
  });

  it('a quick fix writes the trainer: section, the interpolated batch where it is defined', () => {
    const r = runFiles({ '/f/grpo.yaml': GRPO }, '/f/grpo.yaml');
    const plan = editsForChanges(
      [
        { key: 'micro_batch_size', value: 8 },
        { key: 'gradient_checkpointing', value: 'full' },
      ],
      editableFiles(r.files),
      '/f/grpo.yaml',
    );
    assert.deepEqual(plan.unsupported, []);
    const text = applyEditData(GRPO, plan.edits);
    assert.match(text, /^batch_size: 8$/m);
    assert.match(text, /^ {4}mode: full$/m);
    assert.match(text, /^ {4}local_batch_size: \$\{batch_size\}$/m);
  });
});
