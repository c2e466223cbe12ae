// verl command lines: Hydra overrides of `python3 -m verl.trainer.main_ppo` (GRPO / PPO) and `torchrun -m
// verl.trainer.fsdp_sft_trainer` (SFT), with verl's defaults (volcengine/verl@b178a3c:
// verl/trainer/config/_generated_ppo_trainer.yaml, sft_trainer.yaml) said at the module, and the estimate of verl's
// FSDP actor. The GRPO line is examples/grpo_trainer/run_qwen2-7b.sh of that commit, shortened to the keys it sets.
import * as assert from 'node:assert/strict';
import { type CanonicalKey, type ConfigFacts } from '../../../src/analyzers/facts';
import { detectFormat } from '../../../src/analyzers/detect';
import { findGpu } from '../../../src/core/lookup';
import { estimate } from '../../../src/core/estimate';
import { analyzeShell } from '../../../src/analyzers/shell';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import type { SetupChange } from '../../../src/core/advice';
import { component, near, phase, resolveText, run, runProject } from '../helpers';
import { checkFacts } from './shell-common';

const fact = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();

const GRPO =
  'python3 -m verl.trainer.main_ppo \\\n' +
  '    algorithm.adv_estimator=grpo \\\n' +
  '    data.train_batch_size=1024 \\\n' +
  '    data.max_prompt_length=512 \\\n' +
  '    data.max_response_length=1024 \\\n' +
  '    actor_rollout_ref.model.path=Qwen/Qwen2-7B-Instruct \\\n' +
  '    actor_rollout_ref.model.use_remove_padding=True \\\n' +
  '    actor_rollout_ref.actor.ppo_mini_batch_size=256 \\\n' +
  '    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=40 \\\n' +
  '    actor_rollout_ref.actor.use_kl_loss=True \\\n' +
  '    actor_rollout_ref.model.enable_gradient_checkpointing=True \\\n' +
  '    actor_rollout_ref.actor.fsdp_config.param_offload=False \\\n' +
  '    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \\\n' +
  '    actor_rollout_ref.rollout.name=vllm \\\n' +
  '    actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \\\n' +
  '    actor_rollout_ref.rollout.n=5 \\\n' +
  '    actor_rollout_ref.ref.fsdp_config.param_offload=True \\\n' +
  '    trainer.n_gpus_per_node=8 \\\n' +
  '    trainer.nnodes=1 $@\n';

describe('shell: verl PPO / GRPO command lines', () => {
  it('reads the Hydra overrides of main_ppo at the places they are written', () => {
    assert.equal(detectFormat('run_qwen2-7b.sh', GRPO), 'shell');
    const r = checkFacts(GRPO, [
      ['model', 'Qwen/Qwen2-7B-Instruct', 'actor_rollout_ref.model.path', 'Qwen/Qwen2-7B-Instruct'],
      ['microBatchSize', 40, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu', '40'],
      ['promptLen', 512, 'data.max_prompt_length', '512'],
      ['completionLen', 1024, 'data.max_response_length', '1024'],
      ['numGenerations', 5, 'actor_rollout_ref.rollout.n', '5'],
      ['vllmMemoryFraction', 0.6, 'actor_rollout_ref.rollout.gpu_memory_utilization', '0.6'],
      ['vllmTensorParallel', 2, 'actor_rollout_ref.rollout.tensor_model_parallel_size', '2'],
      ['useVllm', true, 'actor_rollout_ref.rollout.name', 'vllm'],
      ['vllmMode', 'colocate', 'actor_rollout_ref.rollout.name', 'vllm'],
      ['gradientCheckpointing', 'full', 'actor_rollout_ref.model.enable_gradient_checkpointing', 'True'],
      ['gpusPerNode', 8, 'trainer.n_gpus_per_node', '8'],
      // 1024 prompts x 5 completions per round; 256 x 5 / 8 GPUs / 40 per micro-step = 4 micro-steps per update.
      ['generationBatchSize', 5120, 'data.train_batch_size', '1024'],
      ['gradientAccumulationSteps', 4, 'actor_rollout_ref.actor.ppo_mini_batch_size', '256'],
      // The reference is kept on the CPU by verl (FSDP CPU offload): nothing of it beside the actor's update.
      ['klBeta', 0, 'actor_rollout_ref.actor.use_kl_loss', 'True'],
    ]);
    assert.deepEqual(r.tools, ['verl']);
    // verl's defaults at the module: FSDP1 FULL_SHARD, and an engine that sleeps while the actor trains.
    const module = (key: CanonicalKey) => {
      const f = fact(r, key)!;
      assert.equal(f.origin, 'call-default', key);
      assert.equal(GRPO.slice(f.keySpan.start, f.keySpan.end), 'verl.trainer.main_ppo', key);
      return f.value;
    };
    assert.deepEqual(
      [module('fsdpVersion'), module('fsdp'), module('vllmSleep'), module('rollout')],
      [1, 'full_shard', true, 'grpo'],
    );
    assert.match(fact(r, 'vllmSleep')!.defaultNote!, /free_cache_engine defaults to true/);
    assert.ok(!r.problems.some((p) => p.code === 'not-modeled'), 'GRPO trains no critic');
  });

  it("PPO's critic (adv_estimator gae, the default) is said not modeled where it is written", () => {
    const ppo = GRPO.replace('algorithm.adv_estimator=grpo', 'algorithm.adv_estimator=gae').replace(
      'param_offload=False',
      'param_offload=True',
    );
    const r = checkFacts(ppo, [
      ['model', 'Qwen/Qwen2-7B-Instruct', 'actor_rollout_ref.model.path', 'Qwen/Qwen2-7B-Instruct'],
    ]);
    const warned = r.problems.filter((p) => p.code === 'not-modeled').map((p) => ppo.slice(p.span.start, p.span.end));
    assert.deepEqual(warned, ['algorithm.adv_estimator']);
    const noEstimator = analyzeOnly(GRPO.replace('    algorithm.adv_estimator=grpo \\\n', ''));
    const critic = noEstimator.problems.find((p) => p.code === 'not-modeled')!;
    assert.match(critic.message, /gae \(the default\) trains a critic/);
    const megatron = analyzeOnly(GRPO.replace('main_ppo \\', "main_ppo --config-name='ppo_megatron_trainer' \\"));
    assert.equal(megatron.problems.filter((p) => p.code === 'not-modeled' && /Megatron/.test(p.message)).length, 1);
    const strategy = analyzeOnly(
      GRPO.replace('trainer.nnodes=1', 'trainer.nnodes=1 actor_rollout_ref.actor.strategy=megatron'),
    );
    assert.deepEqual(
      strategy.problems.filter((p) => p.code !== 'not-static').map((p) => [p.code, /Megatron/.test(p.message)]),
      [['not-modeled', true]],
    );
  });

  it('LoRA from lora_rank, `+key=value` additions, and dynamic batching as tokens per micro-step', () => {
    const lora = GRPO.replace(
      'trainer.nnodes=1',
      'trainer.nnodes=1 actor_rollout_ref.model.lora_rank=64 +actor_rollout_ref.model.lora_alpha=32',
    );
    checkFacts(lora, [
      ['method', 'lora', 'actor_rollout_ref.model.lora_rank', '64'],
      ['loraR', 64, 'actor_rollout_ref.model.lora_rank', '64'],
      ['loraAlpha', 32, '+actor_rollout_ref.model.lora_alpha', '32'],
    ]);
    // The deprecated global ppo_micro_batch_size is divided by the GPUs (fsdp_workers.py): 64 / 8 = 8 per micro-step,
    // so 256 x 5 / 8 / 8 = 20 micro-steps per update.
    checkFacts(GRPO.replace('ppo_micro_batch_size_per_gpu=40', 'ppo_micro_batch_size=64'), [
      ['microBatchSize', 8, 'actor_rollout_ref.actor.ppo_micro_batch_size', '64'],
      ['gradientAccumulationSteps', 20, 'actor_rollout_ref.actor.ppo_mini_batch_size', '256'],
    ]);
    // use_dynamic_bsz: 16384 tokens (ppo_max_token_len_per_gpu's default) / (512 + 1024) = 10.7, rounded up to 11
    // sequences: the micro-batch holds up to the budget's tokens, which 10 whole sequences leave 1,024 short of.
    const dynamic = checkFacts(
      GRPO.replace('trainer.nnodes=1', 'trainer.nnodes=1 actor_rollout_ref.actor.use_dynamic_bsz=True'),
      [['microBatchSize', 11, 'actor_rollout_ref.actor.use_dynamic_bsz', 'True']],
    );
    assert.match(fact(dynamic, 'microBatchSize')!.defaultNote!, /16384 tokens/);
    // FSDP1's use_orig_params, said where the adapters' units matter: verl's default false, as its note says (the
    // assumption said true beside that note: patrlean/verl run_qwen3-14b_simplerl_grpo_lora.sh).
    const res = resolveText('run.sh', lora);
    const e = run(res.setup!, { provenance: res.provenance });
    const orig = e.assumptions.find((a) => a.key === 'fsdp_use_orig_params');
    assert.equal(res.setup?.fsdp_use_orig_params, false);
    assert.deepEqual([orig?.value, /defaults to false/.test(orig?.source ?? '')], ['false', true]);
    // verl's optimizer_offload is a phase offload (the states on the GPU for the update only, XHMY/rllm
    // train_solver_judge_flow.sh:28): not also said to be 'offload_optimizer = none' by default.
    const phased = resolveText(
      'run.sh',
      lora.replace('trainer.nnodes=1', 'trainer.nnodes=1 actor_rollout_ref.actor.fsdp_config.optimizer_offload=True'),
    );
    const pe = run(phased.setup!, { provenance: phased.provenance });
    assert.equal(phased.setup?.optimizer_states_gpu, 'training');
    assert.equal(
      pe.assumptions.some((a) => a.key === 'offload_optimizer'),
      false,
    );
    // The rollout loss's default is verl's own log-probabilities, not said to be TRL's.
    const loss = res.provenance.loss;
    assert.deepEqual([loss?.kind, loss?.kind === 'default' ? loss.owner : undefined], ['default', 'verl']);
  });

  it("estimates verl's actor: fp32 shards, bf16 logits of every token, the engine only while it generates", () => {
    const res = resolveText('run_qwen2-7b.sh', GRPO);
    const s = res.setup!;
    assert.deepEqual(
      [s.weights_dtype, s.mixed_precision, s.fsdp, s.fsdp_version, s.micro_batch_size, s.seq_len],
      ['fp32', 'bf16', 'full_shard', 1, 40, 1536],
    );
    assert.deepEqual(
      [s.rollout!.logps, s.rollout!.engine, s.rollout!.vllm_sleep, s.rollout!.reference, s.rollout!.batch],
      ['verl', 'vllm-colocate', true, 'none', 640],
    );
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const e = run(s, { gpu: h100.gpu });
    // Qwen2-7B: 7,615,616,512 parameters; fp32 shards over 8 GPUs: 3,807,808,256 B of weights, twice that of AdamW.
    const backward = phase(e, 'backward');
    assert.equal(component(backward, 'weights'), (7_615_616_512 * 4) / 8);
    assert.equal(component(backward, 'optimizer-states'), (7_615_616_512 * 8) / 8);
    // flash-attn's cross-entropy keeps the bf16 logits of all 40 x 1536 = 61,440 tokens (vocabulary 152,064) and an
    // fp32 loss and logsumexp per token: 2 x 61,440 x 152,064 + 8 x 61,440 = 18,686,115,840 B, with no fp32 copy; beside
    // them the final RMSNorm's saved tensors over fp32 hidden states (terms/activations/norms.ts): its input and output
    // in fp32 and the bf16 cast the head reads, 10 B x 3,584 per token, and the fp32 rstd, 4 B per token.
    const forward = phase(e, 'forward');
    const T = 61_440;
    assert.equal(component(forward, 'logits-loss'), 2 * T * 152_064 + 8 * T + (10 * 3584 + 4) * T);
    assert.match(forward.components.find((c) => c.id === 'logits-loss')!.formula, /flash-attn cross_entropy_loss/);
    // While it generates: the engine's 0.6 of the GPU beside the actor's shards; not beside the training step.
    const generation = phase(e, 'generation');
    assert.ok(generation.components.some((c) => /vLLM engine/.test(c.label)));
    assert.ok(!backward.components.some((c) => /vLLM engine/.test(c.label)));
    // verl (free_cache_engine) puts the engine to sleep before the old policy scores the round: the scoring's logits
    // (40 x 1536 tokens) are not beside the engine's share; the larger of the two is the phase's peak.
    assert.ok(!generation.components.some((c) => /^Scoring/.test(c.label)));
  });
});

describe('shell: verl scoring micro-batch', () => {
  it("the old policy's scoring pass runs log_prob_micro_batch_size_per_gpu sequences, the global one over the GPUs", () => {
    // verl's compute_log_prob takes rollout.log_prob_micro_batch_size_per_gpu sequences at a time; the deprecated global
    // log_prob_micro_batch_size is divided by the data-parallel GPUs (fsdp_workers.py _normalize_config): 128 / 8 = 16.
    const at = (extra: string): ReturnType<typeof resolveText> =>
      resolveText(
        'run_qwen2-7b.sh',
        GRPO.replace('    trainer.n_gpus_per_node=8', `    ${extra} \\\n    trainer.n_gpus_per_node=8`),
      );
    const perGpu = at('actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=64');
    assert.equal(perGpu.setup?.rollout?.scoring_batch, 64);
    const global = at('actor_rollout_ref.rollout.log_prob_micro_batch_size=128');
    assert.equal(global.setup?.rollout?.scoring_batch, 16);
    // Over nodes the line leaves open (simpleRL-reason's trainer.nnodes=$ARNOLD_WORKER_NUM), the share is unknown.
    const open = GRPO.replace('trainer.nnodes=1', 'trainer.nnodes=$N').replace(
      '    trainer.n_gpus_per_node=8',
      '    actor_rollout_ref.rollout.log_prob_micro_batch_size=128 \\\n    trainer.n_gpus_per_node=8',
    );
    assert.deepEqual(fact(analyzeShell(open), 'scoringBatchSize')?.value, {
      unknown: 'actor_rollout_ref.rollout.log_prob_micro_batch_size / GPUs: not known statically',
    });
    // The scoring forward's logits over 160 x 1,536 tokens in bf16 (vocabulary 152,064), divided in place by the
    // temperature (verl dp_actor.py `logits_rmpad.div_(temperature)`), with flash-attn's fp32 loss and logsumexp per
    // token: 2 B x 245,760 x 152,064 + 8 B x 245,760 = 74,743,971,840 B, above the engine's share: the phase's peak.
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const scoringOf = (r: ReturnType<typeof resolveText>): number =>
      run(r.setup!, { gpu: h100.gpu })
        .perGpu.phases.flatMap((p) => p.components)
        .filter((c) => /^Scoring: the old policy/.test(c.label))
        .reduce((m, c) => Math.max(m, c.bytes), 0);
    const big = at('actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=160');
    near(scoringOf(big), 74_743_971_840, 0.0001, 'one copy of the logits, divided in place');
  });
});

describe("shell: a project's own verl 0.1", () => {
  it('counts the global micro-batches in prompts x rollout.n, no more than the round (Unakar/Logic-RL)', () => {
    // Logic-RL's scripts/train_grpo_4gpu_7Binstruct.sh, cut: 16 prompts x 8 completions over 4 GPUs = 32 a GPU; the
    // project's verl/workers/fsdp_workers.py (verl 0.1) divides ppo_micro_batch_size 64 by the 4 GPUs and multiplies it
    // by n: 128 sequences, of which a GPU's mini-batch (256 / 4 x 8 = 512, the round's 32) holds 32: one micro-step.
    // log_prob_micro_batch_size 160 / 4 x 8 = 320: the round's 32 again.
    const line =
      'python3 -m verl.trainer.main_ppo data.train_batch_size=16 data.max_prompt_length=400 data.max_response_length=2160 \\\n' +
      '  actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct actor_rollout_ref.actor.ppo_mini_batch_size=256 \\\n' +
      '  actor_rollout_ref.actor.ppo_micro_batch_size=64 actor_rollout_ref.rollout.log_prob_micro_batch_size=160 \\\n' +
      '  actor_rollout_ref.rollout.n=8 actor_rollout_ref.rollout.name=vllm trainer.n_gpus_per_node=4 trainer.nnodes=1\n';
    const workers =
      'class ActorRolloutRefWorker(Worker):\n' +
      '    def __init__(self, config, role):\n' +
      '        if self._is_actor:\n' +
      '            self.config.actor.ppo_micro_batch_size //= (self.device_mesh.shape[0] // self.ulysses_sequence_parallel_size)\n' +
      '            self.config.actor.ppo_micro_batch_size *= self.config.rollout.n\n';
    const vendored = runProject(
      { 'scripts/train.sh': line, 'verl/workers/fsdp_workers.py': workers },
      'scripts/train.sh',
    );
    const s = vendored.setup!;
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.rollout?.scoring_batch], [32, 1, 32]);
    const micro = vendored.files.flatMap((f) => f.facts.facts).find((f) => f.key === 'microBatchSize');
    assert.match(micro?.rawValue ?? '', /32 as the project's verl 0\.1 \(verl\/workers\/fsdp_workers\.py\) counts it/);
    // Without the project's copy, today's verl: 64 / 4 = 16 sequences, the mini-batch's 32 in 2 micro-steps, and a
    // scoring batch of 160 / 4 = 40, no more than the round's 32.
    const today = runProject({ 'scripts/train.sh': line }, 'scripts/train.sh').setup!;
    assert.deepEqual(
      [today.micro_batch_size, today.gradient_accumulation_steps, today.rollout?.scoring_batch],
      [16, 2, 32],
    );
  });
});

describe("shell: a project's own verl 0.1 trainer config", () => {
  it("takes its actor's enable_gradient_checkpointing where the line sets none (Jiayi-Pan/TinyZero: False)", () => {
    // TinyZero@95df88f verl/trainer/config/ppo_trainer.yaml:19 under actor_rollout_ref.model; verl since defaults it
    // to true. Its scripts/train_tiny_zero.sh sets none.
    const line =
      'python3 -m verl.trainer.main_ppo data.train_batch_size=256 actor_rollout_ref.model.path=Qwen/Qwen2.5-3B \\\n' +
      '  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=1 trainer.n_gpus_per_node=2 trainer.nnodes=1\n';
    const init = "if package_version == '0.6.3':\n    from .vllm_v_0_6_3.llm import LLM\n";
    const config =
      'actor_rollout_ref:\n  hybrid_engine: True\n  model:\n    path: ~/models/deepseek-llm-7b-chat\n' +
      '    enable_gradient_checkpointing: False\ncritic:\n  model:\n    enable_gradient_checkpointing: False\n';
    const project = {
      'scripts/train.sh': line,
      'verl/third_party/vllm/__init__.py': init,
      'verl/trainer/config/ppo_trainer.yaml': config,
    };
    const vendored = runProject(project, 'scripts/train.sh');
    assert.equal(vendored.setup?.gradient_checkpointing, 'none');
    const p = vendored.provenance.gradient_checkpointing;
    assert.match(
      p?.kind === 'default' ? (p.note ?? '') : '',
      /the project's own verl sets the actor's enable_gradient_checkpointing: False/,
    );
    // The line's own setting wins; without the project's copy, today's verl default (true).
    const set = {
      ...project,
      'scripts/train.sh': line.replace(
        ' trainer.n_gpus',
        ' actor_rollout_ref.model.enable_gradient_checkpointing=True trainer.n_gpus',
      ),
    };
    assert.equal(runProject(set, 'scripts/train.sh').setup?.gradient_checkpointing, 'full');
    assert.equal(runProject({ 'scripts/train.sh': line }, 'scripts/train.sh').setup?.gradient_checkpointing, 'full');
  });
});

describe("shell: a project's own verl SFT trainer config", () => {
  it('takes its checkpointing and FSDP release where the line sets neither (NovaSky-AI/SkyThought: off, FSDP1)', () => {
    // SkyThought@0d190f1 skythought-rl/verl/trainer/config/sft_trainer.yaml: `model:` with enable_gradient_checkpointing
    // False and no strategy key (its fsdp_sft_trainer wraps with FullyShardedDataParallel); its
    // examples/sft/gsm8k/run_gemma_2b.sh sets neither. verl since defaults to checkpointing and FSDP2.
    const line =
      'torchrun --standalone --nnodes=1 --nproc_per_node=2 -m verl.trainer.fsdp_sft_trainer \\\n' +
      '  data.micro_batch_size=8 model.partial_pretrain=google/gemma-2b-it trainer.total_epochs=2\n';
    const config =
      'data:\n  max_length: 1024\nmodel:\n  partial_pretrain: ~/models/gemma-1.1-7b-it\n  fsdp_config:\n' +
      '    cpu_offload: False\n  enable_gradient_checkpointing: False\n  lora_rank: 0\n';
    const project = { 'examples/sft/gsm8k/run.sh': line, 'verl/trainer/config/sft_trainer.yaml': config };
    const vendored = runProject(project, 'examples/sft/gsm8k/run.sh');
    assert.equal(vendored.setup?.gradient_checkpointing, 'none');
    assert.equal(vendored.setup?.fsdp_version, 1);
    const p = vendored.provenance.gradient_checkpointing;
    assert.match(
      p?.kind === 'default' ? (p.note ?? '') : '',
      /the project's own verl sets model\.enable_gradient_checkpointing: false/,
    );
    // The line's own settings win; a copy that names fsdp2 is FSDP2; without the copy, today's verl defaults.
    const set = {
      ...project,
      'examples/sft/gsm8k/run.sh': line.replace(
        ' trainer.total',
        ' model.enable_gradient_checkpointing=True model.strategy=fsdp2 trainer.total',
      ),
    };
    assert.deepEqual(
      [
        runProject(set, 'examples/sft/gsm8k/run.sh').setup?.gradient_checkpointing,
        runProject(set, 'examples/sft/gsm8k/run.sh').setup?.fsdp_version,
      ],
      ['full', 2],
    );
    const fsdp2 = {
      ...project,
      'verl/trainer/config/sft_trainer.yaml': config.replace('  lora_rank', '  strategy: fsdp2\n  lora_rank'),
    };
    assert.equal(runProject(fsdp2, 'examples/sft/gsm8k/run.sh').setup?.fsdp_version, 2);
    const upstream = runProject({ 'examples/sft/gsm8k/run.sh': line }, 'examples/sft/gsm8k/run.sh').setup;
    assert.deepEqual([upstream?.gradient_checkpointing, upstream?.fsdp_version], ['full', 2]);
  });
});

describe("shell: a project's own vLLM workers of verl 0.1", () => {
  it('take gpu_memory_utilization as a share of the memory free when the engine starts (Wyyyb/CriticCoT)', () => {
    // simpleRL-reason vendors verl 0.1: verl/third_party/vllm/__init__.py picks its own vllm_v_0_6_3 worker, whose
    // determine_num_available_blocks sizes the KV cache as free_gpu_memory x gpu_memory_utilization. Qwen2.5-0.5B on
    // 2 A100 80GB (80.0 GiB each), tensor parallel 1, at 0.75: the engine's weights 494,032,768 x 2 B, the actor's fp32
    // shard 494,032,768 x 4 / 2 B and the 768 MiB context are there at its start, its profile run too.
    const line =
      'python3 -m verl.trainer.main_ppo data.train_batch_size=8 data.max_prompt_length=256 data.max_response_length=256 \\\n' +
      '  actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B actor_rollout_ref.rollout.name=vllm \\\n' +
      '  actor_rollout_ref.rollout.gpu_memory_utilization=0.75 actor_rollout_ref.rollout.tensor_model_parallel_size=1 \\\n' +
      '  actor_rollout_ref.rollout.n=4 trainer.n_gpus_per_node=2 trainer.nnodes=1\n';
    const init =
      "if package_version == '0.5.4':\n    from .vllm_v_0_5_4.llm import LLM\n" +
      "elif package_version == '0.6.3':\n    from .vllm_v_0_6_3.llm import LLM\n";
    const vendored = runProject(
      { 'scripts/train.sh': line, 'verl/third_party/vllm/__init__.py': init },
      'scripts/train.sh',
    );
    assert.equal(vendored.setup?.rollout?.vllm_memory_of, 'free');
    const said = vendored.files.flatMap((f) => f.facts.facts).find((f) => f.key === 'vllmMemoryOf');
    assert.match(said?.rawValue ?? '', /a share of the memory free when the engine starts/);
    const gpu = findGpu('A100-80GB');
    assert.ok(gpu.ok);
    const e = estimate(vendored.setup!, { gpu: gpu.gpu });
    assert.ok(e.ok);
    const engine = e.estimate.perGpu.phases.flatMap((p) => p.components).find((c) => c.id === 'rollout-engine');
    const params = e.estimate.parameters.total;
    const weights = params * 2;
    const atStart = e.estimate.perGpu.phases[0].components
      .filter((c) => c.id === 'weights')
      .reduce((t, c) => t + c.bytes, 0);
    const profile = Math.max(8192 * (6 * 4864 + 8 * 896), 256 * 151_936 * 32 + 2 * 8192 * 896);
    const free = gpu.gpu.memoryBytes - atStart - 768 * 2 ** 20 - weights - profile;
    assert.ok(Math.abs(engine!.bytes - (weights + 0.75 * free)) < 1024 * 1024, `${engine!.bytes}`);
    // Without the project's copy, today's verl on vLLM's own workers: 0.75 of the GPU.
    const today = runProject({ 'scripts/train.sh': line }, 'scripts/train.sh').setup!;
    assert.equal(today.rollout?.vllm_memory_of, 'total');
    // verl 0.2 and later vendor a branch to vLLM's own SPMD workers (>= 0.7): not read as the free share.
    const spmd = runProject(
      {
        'scripts/train.sh': line,
        'verl/third_party/vllm/__init__.py':
          init + "elif vs.parse(package_version) >= vs.parse('0.7.0'):\n    from vllm import LLM\n",
      },
      'scripts/train.sh',
    );
    assert.equal(spmd.setup?.rollout?.vllm_memory_of, 'total');
  });
});

describe('shell: verl lines of forks and open values', () => {
  it("a fork's main_ppo_<name> is verl; an engine name the line leaves open is a colocated engine, said so", () => {
    // NovaSky-AI/SkyThought runs `python3 -m verl.trainer.main_ppo_sky`; verl's run_qwen2_5_vl-7b.sh passes
    // `actor_rollout_ref.rollout.name=$ENGINE` with ENGINE=${1:-vllm}.
    const text = GRPO.replace('main_ppo \\', 'main_ppo_sky \\').replace('rollout.name=vllm', 'rollout.name=$1');
    const r = checkFacts(text, [
      ['useVllm', true, 'actor_rollout_ref.rollout.name', '$1'],
      ['vllmMode', 'colocate', 'actor_rollout_ref.rollout.name', '$1'],
    ]);
    assert.deepEqual(r.tools, ['verl']);
    assert.match(fact(r, 'useVllm')!.defaultNote!, /not known statically: a colocated vLLM \/ SGLang engine assumed/);
  });

  it("a project's own entry point passed verl's overrides is verl's PPO trainer, said at the module", () => {
    // LeapLabTHU/Absolute-Zero-Reasoner scripts/selfplay/llama.sh: `python -m absolute_zero_reasoner.main_azr_ppo`,
    // its fork of main_ppo, with actor_rollout_ref.* and data.* overrides.
    const text = GRPO.replace('verl.trainer.main_ppo \\', 'absolute_zero_reasoner.main_azr_ppo \\');
    const r = analyzeShell(text);
    assert.deepEqual(r.tools, ['verl']);
    assert.equal(fact(r, 'model')?.value, 'Qwen/Qwen2-7B-Instruct');
    const note = r.problems.find((p) => p.code === 'read-by-name');
    assert.equal(note?.severity, 'info');
    assert.match(note!.message, /absolute_zero_reasoner\.main_azr_ppo is not verl's own entry point/);
    // Without verl's overrides the module is a script of its own.
    const plain = analyzeShell('python -m absolute_zero_reasoner.main_azr_ppo --model_name_or_path gpt2\n');
    assert.ok(!plain.tools.includes('verl'));
  });

  it("a recipe's entry point under a package of its own is a launch (QingyangZhang/EMPO recipe.empo.src.main_dapo)", () => {
    // verl-empo/recipe/empo/scripts/run_empo_qwen2.5_math_7b.sh: `python3 -m recipe.empo.src.main_dapo` with verl's
    // overrides; recipe.<name>.main_<x> was read, the extra package level was not a launch at all.
    const text = GRPO.replace('verl.trainer.main_ppo \\', 'recipe.empo.src.main_dapo \\');
    assert.equal(detectFormat('run_empo.sh', text), 'shell');
    const r = analyzeShell(text);
    assert.deepEqual(r.tools, ['verl']);
    assert.equal(fact(r, 'model')?.value, 'Qwen/Qwen2-7B-Instruct');
  });

  it("Ulysses sequence parallelism splits each sequence over its group, whose GPUs share the group's batch", () => {
    // verl's fsdp_workers.py _normalize_config divides ppo_mini_batch_size by world / ulysses size: 256 x 5 / (8 / 4)
    // / 40 = 16 micro-steps per update; dp_actor.py packs ppo_max_token_len_per_gpu x ulysses tokens per dynamic
    // micro-step: 16384 x 4 / 1536 = 42.7, rounded up to 43 sequences, each a quarter on every GPU of the group.
    const sp = GRPO.replace(
      'trainer.nnodes=1',
      'trainer.nnodes=1 actor_rollout_ref.actor.ulysses_sequence_parallel_size=4',
    );
    const r = checkFacts(sp, [
      ['contextParallel', 4, 'actor_rollout_ref.actor.ulysses_sequence_parallel_size', '4'],
      ['gradientAccumulationSteps', 16, 'actor_rollout_ref.actor.ppo_mini_batch_size', '256'],
    ]);
    assert.ok(!r.problems.some((p) => p.code === 'not-modeled'), 'Ulysses is modeled');
    const dynamic = sp.replace('trainer.nnodes=1', 'trainer.nnodes=1 actor_rollout_ref.actor.use_dynamic_bsz=True');
    checkFacts(dynamic, [['microBatchSize', 43, 'actor_rollout_ref.actor.use_dynamic_bsz', 'True']]);
    // The estimate: 40 sequences of 1536 / 4 = 384 tokens on each GPU, so the logits of 15,360 tokens; the fp32
    // shards still over all 8 GPUs (FSDP's mesh is the whole world).
    const s = resolveText('run_qwen2-7b.sh', sp).setup!;
    assert.deepEqual([s.context_parallel, s.micro_batch_size, s.seq_len], [4, 40, 1536]);
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const backward = phase(run(s, { gpu: h100.gpu }), 'backward');
    assert.equal(component(backward, 'weights'), (7_615_616_512 * 4) / 8);
    const T = 15_360;
    assert.equal(
      component(phase(run(s, { gpu: h100.gpu }), 'forward'), 'logits-loss'),
      2 * T * 152_064 + 8 * T + (10 * 3584 + 4) * T,
    );
  });

  it('a mini-batch larger than the round updates once on the whole round', () => {
    // Logic-RL's shape: 8 prompts x 16 completions a round, ppo_mini_batch_size 256 on 8 GPUs with 16 per micro-step:
    // the update sees the round's 128 sequences, 16 per GPU, one micro-step.
    const text = GRPO.replace('data.train_batch_size=1024', 'data.train_batch_size=8')
      .replace('rollout.n=5', 'rollout.n=16')
      .replace('ppo_micro_batch_size_per_gpu=40', 'ppo_micro_batch_size_per_gpu=16');
    checkFacts(text, [['gradientAccumulationSteps', 1, 'actor_rollout_ref.actor.ppo_mini_batch_size', '256']]);
  });

  it("the SFT trainer's data.micro_batch_size of earlier verl (TinyZero) is the per-GPU micro-batch", () => {
    const text =
      'torchrun --nproc_per_node=2 -m verl.trainer.fsdp_sft_trainer data.micro_batch_size=8 model.partial_pretrain=google/gemma-2b\n';
    checkFacts(text, [['microBatchSize', 8, 'data.micro_batch_size', '8']]);
    // And it decides: no default of micro_batch_size_per_gpu (4) said after it.
    assert.equal(resolveText('run.sh', text).setup?.micro_batch_size, 8);
  });
});

describe('shell: verl counts that are no counts', () => {
  it('trainer.nnodes=-1e308 is not a world of -Infinity GPUs in a message (a fuzz mutant)', () => {
    const r = resolveText('run.sh', GRPO.replace('trainer.nnodes=1', 'trainer.nnodes=-1e308'));
    assert.ok(!r.problems.some((p) => /Infinity/.test(p.message)), JSON.stringify(r.problems.map((p) => p.message)));
  });
});

describe('shell: verl quick fixes', () => {
  const fix = (text: string, changes: Record<string, unknown>) =>
    editsForChanges(
      Object.entries(changes).map(([key, value]) => ({ key: key as SetupChange['key'], value })),
      [{ file: 'run.sh', text, format: 'shell', facts: analyzeShell(text) }],
      'run.sh',
    );

  it('rewrites the overrides the line has, in place, and adds a missing one as an override of its own', () => {
    const p = fix(GRPO, { micro_batch_size: 8, gradient_checkpointing: 'none', seq_len: 1280, fsdp_version: 2 });
    assert.deepEqual(p.unsupported, []);
    const after = applyEditData(GRPO, p.edits);
    assert.match(after, /actor_rollout_ref\.actor\.ppo_micro_batch_size_per_gpu=8 \\\n/);
    assert.match(after, /actor_rollout_ref\.model\.enable_gradient_checkpointing=False \\\n/);
    // The response (1024 tokens) stays; the prompt's share of 1280 is 256.
    assert.match(after, /data\.max_prompt_length=256 \\\n/);
    // Not on the line: added after its last override, before `$@`.
    assert.match(after, /trainer\.nnodes=1 actor_rollout_ref\.actor\.strategy=fsdp2 \$@\n$/);
    const r = analyzeShell(after);
    assert.deepEqual(
      [fact(r, 'microBatchSize')?.value, fact(r, 'gradientCheckpointing')?.value, fact(r, 'promptLen')?.value],
      [8, 'none', 256],
    );
    assert.equal(r.facts.filter((f) => f.key === 'fsdpVersion' && f.origin !== 'call-default').pop()?.value, 2);
  });

  it('a shorter sequence with a shorter response: the prompt keeps the rest of the sequence', () => {
    // 1536 tokens with a 512-token response (changed from 1024): max_prompt_length 1024.
    const rollout = { ...resolveText('run.sh', GRPO).setup!.rollout!, completion_len: 512 };
    const p = fix(GRPO, { seq_len: 1536, rollout });
    assert.deepEqual(p.unsupported, []);
    const after = applyEditData(GRPO, p.edits);
    assert.match(after, /data\.max_prompt_length=1024 \\\n/);
    assert.match(after, /data\.max_response_length=512 \\\n/);
  });

  it('refuses what verl has no override for, with the reason', () => {
    const p = fix(GRPO, { gradient_checkpointing: 'selective', method: 'qlora' });
    assert.equal(p.edits.length, 0);
    assert.equal(p.unsupported.length, 2);
  });
});

describe('shell: verl SFT command lines', () => {
  it('the engine-based sft_trainer: model.path, FSDP1, checkpointing and dynamic batches of 8,192 tokens by default', () => {
    // volcengine/verl@b178a3c sft_trainer.py (hydra config sft_trainer_engine.yaml, model/hf_model.yaml,
    // engine/fsdp.yaml); lfq1234/Agentar-Fin-R1-Reproduce's run had given "no model found".
    const line = (extra: string) =>
      'torchrun --nproc_per_node=8 -m verl.trainer.sft_trainer model.path=Qwen/Qwen3-8B model.lora_rank=64 ' +
      `${extra}\n`;
    const s = resolveText('run.sh', line('data.max_length=2048')).setup!;
    assert.deepEqual(
      [s.model, s.fsdp, s.fsdp_version, s.gradient_checkpointing, s.method, s.lora?.r],
      ['Qwen/Qwen3-8B', 'full_shard', 1, 'full', 'lora', 64],
    );
    // ceil(8192 / 2048) = 4 sequences of 2,048 tokens per micro-step.
    assert.deepEqual([s.micro_batch_size, s.seq_len], [4, 2048]);
    // Without dynamic batches, data.micro_batch_size_per_gpu (4 by default).
    const fixed = resolveText('run.sh', line('data.use_dynamic_bsz=false data.micro_batch_size_per_gpu=2')).setup!;
    assert.deepEqual([fixed.micro_batch_size, fixed.seq_len], [2, 1024]);
  });

  it("a fork's copy of the SFT trainer under its own name reads as verl's (Parallel-R1's fsdp_parallel_sft_trainer)", () => {
    // Mr-DarkTesla/Parallel-R1-repro verl/training_scripts/sft_qwen3_06b.sh: had been read as a DDP script in fp32.
    const text =
      'torchrun --nproc_per_node=8 -m verl.trainer.fsdp_parallel_sft_trainer ' +
      'model.partial_pretrain=Qwen/Qwen3-0.6B-Base data.micro_batch_size_per_gpu=4\n';
    const r = analyzeShell(text);
    assert.ok(r.tools.includes('verl'));
    assert.equal(fact(r, 'fsdpVersion')?.value, 2);
  });

  it("fsdp_sft_trainer under torchrun: the launcher's GPUs, verl's SFT defaults at the module", () => {
    const text =
      'torchrun --standalone --nnodes=1 --nproc_per_node=4 \\\n' +
      '     -m verl.trainer.fsdp_sft_trainer \\\n' +
      '    data.micro_batch_size_per_gpu=8 \\\n' +
      '    model.partial_pretrain=Qwen/Qwen2.5-0.5B-Instruct \\\n' +
      '    model.lora_rank=32 \\\n' +
      '    model.target_modules=[q_proj,v_proj]\n';
    const r = checkFacts(text, [
      ['gpusPerNode', 4, '--nproc_per_node', '4'],
      ['model', 'Qwen/Qwen2.5-0.5B-Instruct', 'model.partial_pretrain', 'Qwen/Qwen2.5-0.5B-Instruct'],
      ['microBatchSize', 8, 'data.micro_batch_size_per_gpu', '8'],
      ['method', 'lora', 'model.lora_rank', '32'],
      ['loraTargets', ['q_proj', 'v_proj'], 'model.target_modules', '[q_proj,v_proj]'],
    ]);
    assert.deepEqual(r.tools, ['torchrun', 'verl']);
    assert.deepEqual(
      ['fsdpVersion', 'trainBatchSize', 'seqLen', 'batchLengths'].map((k) => fact(r, k as CanonicalKey)!.value),
      [2, 256, 1024, 'fixed'],
    );
    // 256 samples a step over 4 GPUs x 8 per micro-step: 8 micro-steps.
    const s = resolveText('run_qwen_05_peft.sh', text).setup!;
    assert.deepEqual([s.gradient_accumulation_steps, s.weights_dtype, s.fsdp_version], [8, 'fp32', 2]);
  });
});

function analyzeOnly(text: string): ConfigFacts {
  return checkFacts(text, []);
}
