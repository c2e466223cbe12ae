// NeMo-RL's config YAML (src/analyzers/yaml/nemorl.ts) and its launch line (shell/nemorl.ts). What each key means comes
// from NVIDIA/NeMo-RL@54bec9d: the DTensor worker (dtensor_policy_worker.py, dtensor/parallelize.py: float32 weights,
// each layer fully_shard with param_dtype = precision, its activation checkpointing on each layer's MLP), the FSDP1
// worker (fsdp1_policy_worker.py), DPO's pairs (examples/configs/dpo.yaml: "the actual batch size processed by the
// model is train_global_batch_size * 2"), GRPO's colocated vLLM (generation/vllm.py sleep(level=1)).
// test/fixtures/nemorl/grpo_qwen_1_5b.yaml: GRPO on Qwen2.5-1.5B over 8 GPUs, written for these tests.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeNemoRlYaml } from '../../../src/analyzers/yaml/nemorl';
import { detectFormat } from '../../../src/analyzers/detect';

const GRPO = fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/nemorl/grpo_qwen_1_5b.yaml'), 'utf8');

const SFT = `sft:
  max_num_epochs: 1
policy:
  model_name: meta-llama/Llama-3.1-8B-Instruct
  train_global_batch_size: 32
  train_micro_batch_size: 1
  max_total_sequence_length: 1024
  precision: bfloat16
  fsdp_offload_enabled: false
  activation_checkpointing_enabled: true
  dtensor_cfg:
    enabled: false
cluster:
  gpus_per_node: 8
  num_nodes: 1
`;

describe('NeMo-RL config YAML', () => {
  it('GRPO on the DTensor worker: FSDP2 over 8 GPUs, fp32 weights with bf16 param_dtype, a sleeping colocated vLLM', () => {
    assert.equal(detectFormat('grpo.yaml', GRPO), 'nemorl-yaml');
    const r = runFiles({ '/n/grpo.yaml': GRPO }, '/n/grpo.yaml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.equal(s.model, 'Qwen/Qwen2.5-1.5B');
    assert.deepEqual([s.gpus_per_node, s.micro_batch_size, s.seq_len], [8, 4, 2048]);
    // 512 = 4 x accumulation x 8 GPUs: accumulation 16.
    assert.equal(s.gradient_accumulation_steps, 16);
    assert.deepEqual([s.fsdp, s.fsdp_version, s.weights_dtype, s.mixed_precision], ['full_shard', 2, 'fp32', 'bf16']);
    // foreach: false, fused: false: torch's per-parameter loop.
    assert.equal(s.optimizer, 'adamw_hf');
    const ro = s.rollout!;
    assert.deepEqual([ro.engine, ro.vllm_memory_fraction, ro.vllm_sleep], ['vllm-colocate', 0.6, true]);
    // The reference's weights are swapped in for its log-probabilities: none resident while the policy trains.
    assert.equal(ro.reference, 'none');
    // Every token's log-probability: the completion counted as the sequence less its first token; 32 x 16 completions.
    assert.deepEqual([ro.completion_len, ro.batch], [2047, 512 / 8]);
  });

  it('SFT on the FSDP1 worker: FSDP1, non-reentrant checkpointing of every layer, the wrap policy said', () => {
    const r = analyzeNemoRlYaml(SFT);
    const v = (k: string) => r.facts.find((f) => f.key === k)?.value;
    assert.deepEqual(
      [v('fsdp'), v('fsdpVersion'), v('gradientCheckpointing'), v('checkpointReentrant')],
      ['full_shard', 1, 'full', false],
    );
    assert.ok(r.problems.some((p) => /size_based_auto_wrap_policy/.test(p.message) && p.severity === 'info'));
  });

  it("the DTensor worker's activation_checkpointing (each layer's MLP) is estimated as op-level SAC, said", () => {
    const r = analyzeNemoRlYaml(GRPO.replace('activation_checkpointing: false', 'activation_checkpointing: true'));
    assert.equal(r.facts.find((f) => f.key === 'gradientCheckpointing')?.value, 'selective');
    assert.match(r.problems.find((p) => p.code === 'not-modeled')!.message, /checkpoints each layer's MLP only/);
  });

  it('DPO: pairs in one pass, counted in pairs; the reference precomputed', () => {
    const dpo = SFT.replace('sft:\n  max_num_epochs: 1', 'dpo:\n  reference_policy_kl_penalty: 0.05').replace(
      'train_micro_batch_size: 1',
      'train_micro_batch_size: 2',
    );
    const r = runFiles({ '/n/dpo.yaml': dpo }, '/n/dpo.yaml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual(r.setup.preference, {
      reference: 'precomputed',
      logps: 'whole',
      paired: true,
      logits_kept: false,
    });
    // The micro-batch counts pairs (dpo.py: mbs = train_micro_batch_size x 2 sequences), as the setup's does.
    assert.equal(r.setup.micro_batch_size, 2);
  });

  it("`defaults:` reads the parent config under this one: the child's keys win, the parent gives the rest", () => {
    const child = 'defaults: grpo.yaml\npolicy:\n  model_name: Qwen/Qwen2.5-7B\n  train_micro_batch_size: 1\n';
    const r = runFiles({ '/n/child.yaml': child, '/n/grpo.yaml': GRPO }, '/n/child.yaml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual([r.setup.model, r.setup.micro_batch_size, r.setup.seq_len], ['Qwen/Qwen2.5-7B', 1, 2048]);
    assert.equal(r.setup.gpus_per_node, 8);
  });

  it('the launch line: --config with key=value overrides, which win over the config', () => {
    const files = {
      '/n/run.sh':
        'uv run python examples/run_grpo_math.py --config configs/grpo.yaml policy.model_name=Qwen/Qwen2.5-0.5B ' +
        'cluster.gpus_per_node=4 policy.train_micro_batch_size=2\n',
      '/n/configs/grpo.yaml': GRPO,
    };
    const r = runFiles(files, '/n/run.sh');
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual([r.setup.model, r.setup.gpus_per_node, r.setup.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 4, 2]);
    // 512 = 2 x accumulation x 4 GPUs: accumulation 64.
    assert.equal(r.setup.gradient_accumulation_steps, 64);
  });
});
