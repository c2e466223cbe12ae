// AReaL's experiment config (src/analyzers/yaml/areal.ts): the actor's FSDP2 engine on GPUs apart from the inference
// engine's, its packed micro-batches, LoRA and the older allocation_mode. The config below is shaped as
// inclusionAI/AReaL@4aef98d examples/math/gsm8k_grpo.yaml, cut to the keys read; defaults from areal/api/cli_args.py
// (dtype bfloat16, lora_rank 32, kl_ctl 0.1) and areal/engine/fsdp_engine.py (fused AdamW, flash_attention_2).
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeArealYaml } from '../../../src/analyzers/yaml/areal';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import { component, phase, run, runFiles } from '../helpers';

const GRPO = `experiment_name: gsm8k-grpo
cluster:
  n_nodes: 1
  n_gpus_per_node: 8
rollout:
  backend: "sglang:d4p1t1"
gconfig:
  n_samples: 4
  max_new_tokens: 1024
actor:
  backend: "fsdp:d4p1t1"
  path: Qwen/Qwen2.5-1.5B-Instruct
  gradient_checkpointing: true
  dtype: bfloat16
  mb_spec:
    max_tokens_per_mb: 10240
  optimizer:
    type: adam
    lr: 1.70e-5
  kl_ctl: 0.0
ref:
  backend: \${actor.backend}
  path: \${actor.path}
train_dataset:
  batch_size: 256
  max_length: 1024
`;

/** The run of /a/<name> with the config's text. */
const runOf = (text: string) => runFiles({ '/a/gsm8k_grpo.yaml': text }, '/a/gsm8k_grpo.yaml');

describe('AReaL experiment config', () => {
  it('the actor: FSDP2 over its 4 GPUs, bf16, packed rows of 10,240 tokens, fused AdamW', () => {
    assert.equal(detectFormat('gsm8k_grpo.yaml', GRPO), 'areal-yaml');
    const r = runOf(GRPO);
    const s = r.setup!;
    assert.equal(s.model, 'Qwen/Qwen2.5-1.5B-Instruct');
    // fsdp:d4p1t1: 4 data-parallel GPUs train; sglang:d4p1t1's 4 serve generation apart.
    assert.deepEqual([s.gpus_per_node * s.nodes, s.fsdp, s.fsdp_version], [4, 'full_shard', 2]);
    assert.deepEqual([s.weights_dtype, s.mixed_precision, s.optimizer], ['bf16', 'bf16', 'adamw_fused']);
    assert.deepEqual([s.micro_batch_size, s.seq_len, s.batch_lengths], [1, 10240, 'fixed']);
    assert.deepEqual([s.gradient_checkpointing, s.checkpoint_reentrant, s.attention], ['full', false, 'flash']);
    assert.equal(s.rollout, undefined);
    assert.match(r.provenance.seq_len?.kind === 'default' ? (r.provenance.seq_len.note ?? '') : '', /upper bound/);
    // kl_ctl 0: no reference engine is made (rl_trainer.py), so nothing is said of the `ref` section.
    const facts = analyzeArealYaml(GRPO);
    assert.ok(!facts.problems.some((p) => p.rawKey === 'ref'));
    assert.ok(facts.problems.some((p) => p.rawKey === 'rollout.backend' && /GPUs of its own/.test(p.message)));
    // Qwen2.5-1.5B: 1,543,714,304 parameters; bf16 shards over 4 GPUs, AdamW's two bf16 states twice that.
    const e = run(s);
    assert.equal(component(phase(e, 'optimizer'), 'weights'), (1_543_714_304 * 2) / 4);
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-states'), (1_543_714_304 * 4) / 4);
  });

  it('LoRA: the rank by default, the adapters in the model dtype; the KL reference said where it is', () => {
    const lora = GRPO.replace(
      '  gradient_checkpointing: true\n',
      '  gradient_checkpointing: true\n  use_lora: true\n  lora_alpha: 16\n  target_modules: [all-linear]\n',
    ).replace('  kl_ctl: 0.0\n', '');
    const s = runOf(lora).setup!;
    assert.deepEqual([s.method, s.lora?.r, s.lora?.alpha, s.lora?.target_modules], ['lora', 32, 16, 'all-linear']);
    assert.equal(s.lora?.dtype, 'bf16');
    // kl_ctl unset is 0.1: a reference engine is colocated with the actor.
    assert.ok(analyzeArealYaml(lora).problems.some((p) => p.rawKey === 'ref' && /kl_ctl 0.1/.test(p.message)));
  });

  it("the older allocation_mode's training side, and Megatron said as not modeled", () => {
    const old = GRPO.replace(
      'rollout:\n  backend: "sglang:d4p1t1"\n',
      'allocation_mode: sglang.d2p1t1+d6p1t1\nrollout: {}\n',
    ).replace('  backend: "fsdp:d4p1t1"\n', '');
    assert.equal(runOf(old).setup!.gpus_per_node, 6);
    const megatron = GRPO.replace('fsdp:d4p1t1', 'megatron:d2p2t2');
    const facts = analyzeArealYaml(megatron);
    assert.ok(facts.problems.some((p) => p.code === 'not-modeled' && /megatron engine is not modeled/.test(p.message)));
    assert.equal(facts.facts.find((f) => f.key === 'worldSize')?.value, 8);
  });

  it('a quick fix writes the micro-batch tokens at mb_spec.max_tokens_per_mb', () => {
    const file = {
      file: '/a/gsm8k_grpo.yaml',
      text: GRPO,
      format: 'areal-yaml' as const,
      facts: analyzeArealYaml(GRPO),
    };
    const plan = editsForChanges([{ key: 'seq_len', value: 4096 }], [file], file.file);
    assert.deepEqual(plan.unsupported, []);
    assert.match(applyEditData(GRPO, plan.edits), /max_tokens_per_mb: 4096\n/);
  });
});
