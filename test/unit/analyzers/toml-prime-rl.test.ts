// prime-rl's TOML configs (src/analyzers/toml/prime-rl.ts): the trainer's FSDP2 step on the trainer's GPUs. The RL
// config is shaped as PrimeIntellect-ai/prime-rl@559b447 configs/basic/reverse-text/rl.toml with LoRA, the SFT one as
// its sft.toml, and the earlier layout as configs of mid-2025 (`trainer_gpu_ids`, the orchestrator's seq_len); the
// defaults are those of packages/prime-rl-configs/src/prime_rl/configs/trainer.py (optimization_dtype float32,
// activation checkpointing and offloading on, optim_cpu_offload true, compile on) and sft.py (data.seq_len 128).
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzePrimeRlToml } from '../../../src/analyzers/toml/prime-rl';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import { component, phase, run, runFiles } from '../helpers';

const RL = `max_steps = 20

[deployment]
num_train_gpus = 4
num_infer_gpus = 4

[model]
name = "Qwen/Qwen3-1.7B"

[trainer.model]
seq_len = 4096

[trainer.model.lora]
rank = 32
alpha = 64

[trainer.optim]
lr = 3e-6

[orchestrator]
batch_size = 128
seq_len = 4096
`;

const SFT = `max_steps = 100

[deployment]
num_train_gpus = 2

[model]
name = "Qwen/Qwen3-1.7B"

[data]
name = "willcb/R1-reverse-wikipedia-paragraphs-v1-1000"
seq_len = 4096
batch_size = 32

[optim]
lr = 2e-5
`;

const EARLIER = `inference_gpu_ids = [0,1,2,3,4,5]
trainer_gpu_ids = [6,7]

[model]
name = "Qwen/Qwen3-1.7B"

[orchestrator]
seq_len = 8192
batch_size = 512

[trainer]
`;

const runOf = (name: string, text: string) => runFiles({ [`/a/${name}`]: text }, `/a/${name}`);

describe('prime-rl TOML configs', () => {
  it("RL: the trainer's FSDP2 step over its 4 GPUs, fp32 shards, LoRA, packed rows, states on the host but for the step", () => {
    assert.equal(detectFormat('rl.toml', RL), 'prime-rl-toml');
    const s = runOf('rl.toml', RL).setup!;
    assert.equal(s.model, 'Qwen/Qwen3-1.7B');
    assert.deepEqual([s.gpus_per_node, s.fsdp, s.fsdp_version, s.fsdp_shard_embeddings], [4, 'full_shard', 2, true]);
    assert.deepEqual(
      [s.weights_dtype, s.mixed_precision, s.optimizer, s.optimizer_states_gpu],
      ['fp32', 'bf16', 'adamw', 'step'],
    );
    assert.deepEqual([s.micro_batch_size, s.seq_len, s.batch_lengths, s.loss], [1, 4096, 'fixed', 'fused']);
    assert.deepEqual(
      [s.gradient_checkpointing, s.activation_offloading, s.compile, s.attention],
      ['full', true, true, 'flash'],
    );
    assert.deepEqual([s.method, s.lora?.r, s.lora?.alpha, s.lora?.target_modules], ['lora', 32, 64, 'all-linear']);
    // The inference GPUs are said apart, at their key.
    const facts = analyzePrimeRlToml(RL);
    assert.ok(
      facts.problems.some((p) => p.rawKey === 'deployment.num_infer_gpus' && /GPUs of its own/.test(p.message)),
    );
    // fp32 weights sharded over 4 GPUs; the adapters' AdamW states only at the step (CPUOffloadOptimizer).
    const e = run(s);
    // Qwen3-1.7B: 1,720,574,976 parameters (the catalog's, tied embeddings counted once) x 4 B / 4 GPUs.
    assert.equal(e.parameters.total, 1_720_574_976);
    assert.equal(component(phase(e, 'backward'), 'weights'), (1_720_574_976 * 4) / 4);
    assert.equal(component(phase(e, 'backward'), 'optimizer-states'), 0);
    assert.ok(component(phase(e, 'optimizer'), 'optimizer-states') > 0);
    assert.equal(component(phase(e, 'forward'), 'logits-loss'), 0);
  });

  it("SFT: data.seq_len rows of data.micro_batch_size, the plain head's loss; the earlier layout's GPUs and rows", () => {
    assert.equal(detectFormat('sft.toml', SFT), 'prime-rl-toml');
    const s = runOf('sft.toml', SFT).setup!;
    assert.deepEqual([s.gpus_per_node, s.micro_batch_size, s.seq_len, s.loss, s.method], [2, 1, 4096, 'full', 'full']);
    // Qwen3-1.7B full fine-tune: fp32 shards over 2 GPUs.
    const e = run(s);
    assert.equal(component(phase(e, 'backward'), 'weights'), (1_720_574_976 * 4) / 2);
    const early = runOf('rl.toml', EARLIER).setup!;
    assert.deepEqual([early.gpus_per_node, early.seq_len], [2, 8192]);
    // torchtitan's job config is not prime-rl's.
    assert.notEqual(
      detectFormat('train.toml', '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nseq_len = 8192\n'),
      'prime-rl-toml',
    );
  });

  it('the launch line `uv run rl @ rl.toml` reads the config and its `--section.key value` overrides', () => {
    const line =
      '#!/bin/bash\nuv run rl @ configs/rl.toml --trainer.model.seq-len 1024 --deployment.num_train_gpus 2\n';
    assert.equal(detectFormat('run.sh', line), 'shell');
    const r = runFiles({ '/p/run.sh': line, '/p/configs/rl.toml': RL }, '/p/run.sh');
    const s = r.setup!;
    assert.deepEqual([s.model, s.seq_len, s.gpus_per_node, s.lora?.r], ['Qwen/Qwen3-1.7B', 1024, 2, 32]);
  });

  it("a quick fix writes the trainer's and the orchestrator's seq_len, and the LoRA rank in the trainer's table", () => {
    const file = { file: '/a/rl.toml', text: RL, format: 'prime-rl-toml' as const, facts: analyzePrimeRlToml(RL) };
    const plan = editsForChanges([{ key: 'seq_len', value: 2048 }], [file], file.file);
    assert.deepEqual(plan.unsupported, []);
    const out = applyEditData(RL, plan.edits);
    assert.match(out, /\[trainer\.model\]\nseq_len = 2048\n/);
    assert.match(out, /\[orchestrator\]\nbatch_size = 128\nseq_len = 2048\n/);
  });
});
