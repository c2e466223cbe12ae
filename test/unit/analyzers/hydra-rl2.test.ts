// RL2 (ChenmienTan/RL2@9161ede): `torchrun -m RL2.trainer.<trainer> key=value ...` composes
// RL2/trainer/config/<trainer>.yaml with its worker options and the line's overrides; the overrides are read where
// the line writes them, the rest in the config (the checkout's, else as RL2 ships it). The launch lines are shaped as
// RL2's examples/limo_sft.sh, ultrafeedback_dpo.sh, orz_ppo.sh and skywork_rm.sh; the configs are RL2's own
// (src/analyzers/hydra/rl2-configs.ts). Every number below is worked out from the lines and those files.
import * as assert from 'node:assert/strict';
import { RL2_CONFIGS } from '../../../src/analyzers/hydra/rl2-configs';
import { detectFormat } from '../../../src/analyzers/detect';
import type { PipelineResult } from '../../../src/analyzers/pipeline';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import { component, phase, run, runFact, runFiles } from '../helpers';

/** RL2's config directory as a checkout has it, under /w. */
const CHECKOUT: Record<string, string> = Object.fromEntries(
  Object.entries(RL2_CONFIGS).map(([rel, lines]) => [`/w/RL2/trainer/config/${rel}`, `${lines.join('\n')}\n`]),
);

const SFT = `torchrun \\
    --nproc_per_node=4 \\
    -m RL2.trainer.sft \\
    data.train.path=Chenmien/LIMO \\
    data.train.max_length=16384 \\
    actor.model_name=Qwen/Qwen2.5-7B-Instruct \\
    actor.cp_size=4 \\
    actor.max_length_per_device=4096 \\
    trainer.n_epochs=15
`;

/** The run of /w/<name>, launched from the checkout's root, with its configs (or none). */
function launch(name: string, text: string, checkout = true): PipelineResult {
  const file = `/w/${name}`;
  return runFiles({ ...(checkout ? CHECKOUT : {}), [file]: text }, file);
}

describe('RL2: a launch line and the config it composes', () => {
  it('reads the SFT line: the overrides where the line writes them, the worker option from actor/fsdp.yaml', () => {
    assert.equal(detectFormat('limo_sft.sh', SFT), 'shell');
    const r = launch('limo_sft.sh', SFT);
    const model = runFact(r, 'model')!;
    assert.equal(model.file, '/w/limo_sft.sh');
    assert.equal(model.at, 'Qwen/Qwen2.5-7B-Instruct');
    // Packed micro-batches of up to 4,096 tokens per GPU, each split over cp_size 4: one row of 4 x 4,096 = 16,384.
    const seq = runFact(r, 'seqLen')!;
    assert.deepEqual([seq.file, seq.at, seq.fact.value], ['/w/limo_sft.sh', '4096', 16_384]);
    assert.match(seq.fact.assumed!, /upper bound/);
    const s = r.setup!;
    assert.deepEqual(
      [s.gpus_per_node, s.context_parallel, s.seq_len, s.micro_batch_size, s.batch_lengths],
      [4, 4, 16_384, 1, 'fixed'],
    );
    // FSDP1 HYBRID_SHARD over a (1, 4) mesh is FULL_SHARD; MixedPrecision in the worker's dtype (bfloat16); the model
    // loaded by from_pretrained without a dtype: the checkpoint's bfloat16 under transformers 5.
    assert.deepEqual(
      [s.fsdp, s.fsdp_version, s.mixed_precision, s.weights_dtype, s.attention, s.gradient_checkpointing],
      ['full_shard', 1, 'bf16', 'bf16', 'flash', 'full'],
    );
    assert.equal(runFact(r, 'mixedPrecision')!.file, '/w/RL2/trainer/config/actor/fsdp.yaml');
    // offload_optimizer (true in actor/fsdp.yaml): AdamW's states on the GPU for the optimizer step only.
    assert.equal(s.optimizer_states_gpu, 'step');
    assert.equal(runFact(r, 'optimizerStatesGpu')!.file, '/w/RL2/trainer/config/actor/fsdp.yaml');
    // So the estimate's assumptions do not say "no offload" of the optimizer (jsbyun121/exploring-paths-llm's run).
    const e = run(s);
    assert.ok(!e.assumptions.some((a) => a.key === 'offload_optimizer'));
  });

  it("a fork's actor LoRA: use_lora on the line, the adapter's settings from its actor/fsdp.yaml", () => {
    // simonucl/RL2 RL2/trainer/config/actor/fsdp.yaml:16-29 (use_lora false, lora: r 16, alpha 32, dropout 0.05, the
    // seven projections) and examples/orz_reinforce_lora.sh:11-12 (`actor.use_lora=true actor.lora.r=16`): it was read
    // as a full fine-tune.
    const fork =
      CHECKOUT['/w/RL2/trainer/config/actor/fsdp.yaml'] +
      'use_lora: false\nlora:\n  r: 16\n  lora_alpha: 32\n  lora_dropout: 0.05\n' +
      '  target_modules:\n    - q_proj\n    - v_proj\n';
    const line = SFT.replace('trainer.n_epochs=15', 'actor.use_lora=true actor.lora.r=8 trainer.n_epochs=15');
    const r = runFiles(
      { ...CHECKOUT, '/w/RL2/trainer/config/actor/fsdp.yaml': fork, '/w/lora.sh': line },
      '/w/lora.sh',
    );
    const s = r.setup!;
    assert.deepEqual(
      [s.method, s.lora?.r, s.lora?.alpha, s.lora?.dropout, s.lora?.target_modules],
      ['lora', 8, 32, 0.05, ['q_proj', 'v_proj']],
    );
    assert.equal(runFact(r, 'method')!.file, '/w/lora.sh');
    assert.equal(runFact(r, 'loraAlpha')!.file, '/w/RL2/trainer/config/actor/fsdp.yaml');
    // use_lora false (the fork's default) is a full fine-tune.
    const full = runFiles(
      { ...CHECKOUT, '/w/RL2/trainer/config/actor/fsdp.yaml': fork, '/w/sft.sh': SFT },
      '/w/sft.sh',
    );
    assert.equal(full.setup?.method, 'full');
  });

  it("says RL2's Megatron workers are not modeled where the line chooses them", () => {
    // actor/megatron.yaml, cut to the keys read.
    const megatron = 'model_name: null\nmax_length_per_device: null\n';
    const file = '/w/limo_sft.sh';
    const text = SFT.replace('-m RL2.trainer.sft \\', '-m RL2.trainer.sft actor=megatron \\');
    const r = runFiles({ ...CHECKOUT, '/w/RL2/trainer/config/actor/megatron.yaml': megatron, [file]: text }, file);
    assert.ok(r.problems.some((p) => p.code === 'not-modeled' && /Megatron workers are not modeled/.test(p.message)));
    assert.equal(r.setup!.model, 'Qwen/Qwen2.5-7B-Instruct');
  });

  it('estimates the SFT run: bf16 shards over 4 GPUs, the states on the GPU for the step only', () => {
    const e = run(launch('limo_sft.sh', SFT).setup!);
    // Qwen2.5-7B: 7,615,616,512 parameters; bf16 over 4 GPUs: 3,807,808,256 B of weights, AdamW's two bf16 states
    // twice that, held at the optimizer step and on the host through the forward and backward.
    const optimizer = phase(e, 'optimizer');
    assert.equal(component(optimizer, 'weights'), (7_615_616_512 * 2) / 4);
    assert.equal(component(optimizer, 'optimizer-states'), (7_615_616_512 * 4) / 4);
    assert.equal(component(phase(e, 'backward'), 'optimizer-states'), 0);
    assert.equal(component(phase(e, 'forward'), 'optimizer-states'), 0);
    // On the host: 4 GPUs' states, 4 x 7,615,616,512 B.
    assert.equal(e.cpuBytes, 4 * 7_615_616_512);
  });

  it('composes the config as RL2 ships it when the checkout has none, said as RL2 defaults', () => {
    const r = launch('limo_sft.sh', SFT, false);
    assert.deepEqual(
      r.files.map((f) => f.file),
      ['/w/limo_sft.sh', 'RL2: RL2/trainer/config/sft.yaml', 'RL2: RL2/trainer/config/actor/fsdp.yaml'],
    );
    assert.equal(r.setup!.seq_len, 16_384);
    assert.equal(r.setup!.mixed_precision, 'bf16');
    const mp = r.provenance.mixed_precision!;
    assert.equal(mp.kind, 'default');
    assert.match(mp.kind === 'default' ? (mp.note ?? '') : '', /as RL2 ships it \(ChenmienTan\/RL2@9161ede/);
    // The line's model stays the line's.
    assert.equal(r.provenance.model?.kind, 'file');
  });

  it('reads DPO: a chosen and a rejected sequence packed together, the reference scored in a pass of its own', () => {
    const dpo = SFT.replace('RL2.trainer.sft', 'RL2.trainer.dpo')
      .replace('Qwen/Qwen2.5-7B-Instruct', 'allenai/Llama-3.1-Tulu-3-8B-SFT')
      .replace('    actor.cp_size=4 \\\n', '');
    const r = launch('ultrafeedback_dpo.sh', dpo);
    // dpo.yaml composes ref_actor with `${actor}`: its fsdp option is read too.
    assert.ok(r.files.some((f) => f.file === '/w/RL2/trainer/config/ref_actor/fsdp.yaml'));
    const s = r.setup!;
    // 4,096 tokens per GPU hold the pair: two sequences of 2,048.
    assert.deepEqual([s.seq_len, s.micro_batch_size, s.context_parallel], [2048, 1, 1]);
    assert.deepEqual(
      [s.preference?.reference, s.preference?.logps, s.preference?.paired],
      ['precomputed', 'whole', true],
    );
  });

  it('reads a reward model: the critic with one label, a pair per packed row', () => {
    const rm = `torchrun --nproc_per_node=4 -m RL2.trainer.rm data.train.max_length=2048 \\
    critic.model_name=meta-llama/Llama-3.1-8B-Instruct critic.max_length_per_device=8192
`;
    const s = launch('skywork_rm.sh', rm).setup!;
    assert.deepEqual([s.head, s.num_labels, s.preference?.reference, s.seq_len], ['seq_cls', 1, 'none', 4096]);
  });

  it('reads PPO: the rollout from a colocated engine, the sequence the packing length', () => {
    const ppo = `torchrun \\
    --nproc_per_node=4 \\
    -m RL2.trainer.ppo \\
    rollout.train.prompts_per_rollout=128 \\
    rollout.train.responses_per_prompt=64 \\
    rollout.train.sampling_params.max_new_tokens=8192 \\
    actor.model_name=Qwen/Qwen2.5-7B \\
    actor.cp_size=2 \\
    actor.max_length_per_device=8192 \\
    critic.model_name=Qwen/Qwen2.5-7B \\
    critic.cp_size=2 \\
    critic.max_length_per_device=8192 \\
    adv.estimator=gae
`;
    const r = launch('orz_ppo.sh', ppo);
    const s = r.setup!;
    // A sequence holds at most 8,192 x 2 = 16,384 tokens: 8,192 generated, the prompt the other 8,192.
    assert.deepEqual([s.seq_len, s.rollout?.completion_len, s.context_parallel], [16_384, 8192, 2]);
    // mem_fraction_static 0.6 (ppo.yaml); the engine releases its memory while the actor trains.
    assert.deepEqual(
      [s.rollout?.engine, s.rollout?.vllm_memory_fraction, s.rollout?.vllm_sleep, s.rollout?.reference],
      ['vllm-colocate', 0.6, true, 'none'],
    );
    // 128 prompts x 64 responses over 4 GPUs.
    assert.equal(runFact(r, 'generationBatchSize')!.fact.value, 8192);
    // The critic (gae) trains after the actor with its weights offloaded: said at the line's adv.estimator.
    const launcher = r.files.find((f) => f.file === '/w/orz_ppo.sh')!;
    assert.ok(launcher.facts.problems.some((p) => p.rawKey === 'adv.estimator' && /critic/.test(p.message)));
  });

  it("reads a fork's older layout: the worker's keys written out in ppo.yaml", () => {
    // jsbyun121/exploring-paths-llm's RL2/trainer/config/ppo.yaml, cut to the keys read.
    const config = `train_data:
  prompts_per_rollout: null
  responses_per_prompt: 1
actor:
  model_name: null
  use_liger_kernel: false
  gradient_checkpointing: true
  sp_size: 1
  max_length_per_device: null
  offload_optimizer: true
rollout:
  gpu_memory_utilization: 0.6
  train_sampling_params:
    max_new_tokens: null
trainer:
  n_epochs: 1
`;
    const line = `torchrun --nproc_per_node=1 -m RL2.trainer.ppo train_data.prompts_per_rollout=128 \\
    train_data.responses_per_prompt=4 actor.model_name=Qwen/Qwen3-4B-Thinking-2507 actor.use_liger_kernel=true \\
    actor.max_length_per_device=8576 rollout.train_sampling_params.max_new_tokens=8192 \\
    rollout.gpu_memory_utilization=0.3
`;
    const file = '/w/gsm8k_reinforce.sh';
    const r = runFiles({ '/w/RL2/trainer/config/ppo.yaml': config, [file]: line }, file);
    const s = r.setup!;
    // 8,576 tokens: 8,192 generated and a prompt of up to 384.
    assert.deepEqual(
      [s.seq_len, s.rollout?.completion_len, s.rollout?.vllm_memory_fraction, s.kernels],
      [8576, 8192, 0.3, 'liger'],
    );
    assert.equal(runFact(r, 'numGenerations')!.fact.value, 4);
  });

  it('a quick fix scales max_length_per_device on the line for a shorter sequence', () => {
    const r = launch('limo_sft.sh', SFT);
    const launcher = r.files.find((f) => f.file === '/w/limo_sft.sh')!;
    const fixFile = { file: launcher.file, text: launcher.text, format: launcher.facts.format, facts: launcher.facts };
    // 16,384 -> 8,192 tokens a row: 4,096 x 8,192 / 16,384 = 2,048 per GPU.
    const plan = editsForChanges([{ key: 'seq_len', value: 8192 }], [fixFile], launcher.file);
    assert.deepEqual(plan.unsupported, []);
    assert.match(applyEditData(SFT, plan.edits), /actor\.max_length_per_device=2048 \\/);
    const micro = editsForChanges([{ key: 'micro_batch_size', value: 2 }], [fixFile], launcher.file);
    assert.match(micro.unsupported[0]?.reason ?? '', /max_length_per_device/);
  });
});
