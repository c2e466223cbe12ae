// verl-family config YAML: EasyR1's examples/config.yaml (hiyouga/EasyR1@b44b311, shortened to the keys that change
// memory) read alone and with the overrides of the line that names it (`python3 -m verl.trainer.main config=...`,
// examples/qwen3_4b_math_grpo_lora.sh), and a fork's verl/trainer/config/ppo_trainer.yaml written out key by key
// (Jiayi-Pan/TinyZero's, shortened). Defaults: EasyR1's dataclasses (verl/trainer/config.py,
// verl/workers/actor/config.py, verl/workers/rollout/config.py).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { detectFormat } from '../../../src/analyzers/detect';
import type { CanonicalKey, ConfigFacts, Fact } from '../../../src/analyzers/facts';
import { runPipeline, type FileReader } from '../../../src/analyzers/pipeline';
import { analyzeShell } from '../../../src/analyzers/shell';
import { analyzeVerlYaml } from '../../../src/analyzers/verl/yaml';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import type { SetupChange } from '../../../src/core/advice';
import type { TrainingSetup } from '../../../src/core';
import { resolveText, run } from '../helpers';

const EASYR1 = [
  'data:',
  '  max_prompt_length: 2048',
  '  max_response_length: 2048',
  '  rollout_batch_size: 512  # equivalent to verl data.train_batch_size',
  'algorithm:',
  '  adv_estimator: grpo',
  '  use_kl_loss: true',
  'worker:',
  '  actor:',
  '    global_batch_size: 128',
  '    micro_batch_size_per_device_for_update: 1',
  '    micro_batch_size_per_device_for_experience: 2',
  '    padding_free: true',
  '    dynamic_batching: true',
  '    model:',
  '      model_path: Qwen/Qwen2.5-7B-Instruct',
  '      enable_gradient_checkpointing: true',
  '      freeze_vision_tower: false',
  '      lora:',
  '        rank: 0',
  '        alpha: 64',
  '        target_modules: all-linear',
  '    offload:',
  '      offload_params: true',
  '      offload_optimizer: true',
  '  rollout:',
  '    n: 5',
  '    gpu_memory_utilization: 0.6',
  '    tensor_parallel_size: 2',
  '  ref:',
  '    fsdp:',
  '      enable_cpu_offload: true',
  'trainer:',
  '  nnodes: 1',
  '  n_gpus_per_node: 8',
  '',
].join('\n');

const LORA_LINE =
  'MODEL_PATH=Qwen/Qwen3-4B\n' +
  'python3 -m verl.trainer.main \\\n' +
  '    config=examples/config.yaml \\\n' +
  '    data.max_response_length=2048 \\\n' +
  '    worker.actor.model.model_path=${MODEL_PATH} \\\n' +
  '    worker.actor.model.lora.rank=64 \\\n' +
  '    worker.rollout.tensor_parallel_size=1 \\\n' +
  '    trainer.n_gpus_per_node=1\n';

const at = (text: string, f: Fact): string => text.slice(f.keySpan.start, f.keySpan.end);
const last = (r: ConfigFacts, key: CanonicalKey): Fact | undefined => r.facts.filter((f) => f.key === key).pop();
const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p) => files[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

describe('verl-family config YAML', () => {
  it("reads EasyR1's config.yaml as the overrides it stands for, at its keys", () => {
    assert.equal(detectFormat('examples/config.yaml', EASYR1), 'verl-yaml');
    const r = analyzeVerlYaml(EASYR1);
    const want: Array<[CanonicalKey, unknown, string]> = [
      ['model', 'Qwen/Qwen2.5-7B-Instruct', 'model_path'],
      ['microBatchSize', 1, 'micro_batch_size_per_device_for_update'],
      ['promptLen', 2048, 'max_prompt_length'],
      ['completionLen', 2048, 'max_response_length'],
      ['numGenerations', 5, 'n'],
      ['vllmMemoryFraction', 0.6, 'gpu_memory_utilization'],
      ['vllmTensorParallel', 2, 'tensor_parallel_size'],
      ['gradientCheckpointing', 'full', 'enable_gradient_checkpointing'],
      ['gpusPerNode', 8, 'n_gpus_per_node'],
      // 512 prompts x 5 completions a round; 128 x 5 / 8 GPUs / 1 per micro-step = 80 micro-steps per update.
      ['generationBatchSize', 2560, 'rollout_batch_size'],
      ['gradientAccumulationSteps', 80, 'global_batch_size'],
      // The reference sits on the CPU (FSDP's CPU offload) outside its own scoring pass.
      ['klBeta', 0, 'enable_cpu_offload'],
      ['method', 'full', 'rank'],
    ];
    for (const [key, value, keyText] of want) {
      const f = last(r, key);
      assert.ok(f, `no ${key}`);
      assert.deepEqual(f.value, value, key);
      assert.equal(at(EASYR1, f), keyText, `${key} said at its key`);
    }
    // EasyR1's engine always sleeps while the actor trains, and vLLM is its only engine: said as its defaults.
    assert.equal(last(r, 'vllmSleep')?.value, true);
    assert.match(last(r, 'vllmSleep')?.defaultNote ?? '', /enable_sleep_mode/);
    assert.equal(last(r, 'useVllm')?.value, true);
    // AdamW's states go to the host while the engine generates and come back for the update (verl's optimizer_offload:
    // fsdp_workers.py load_fsdp_optimizer / offload_fsdp_optimizer around update_actor); the weights go to the host
    // once the engine has them (offload_fsdp_model_to_cpu) and come back for the passes that score and train.
    const states = last(r, 'optimizerStatesGpu');
    assert.equal(states?.value, 'training');
    assert.equal(at(EASYR1, states!), 'offload_optimizer');
    const weights = last(r, 'weightsGpu');
    assert.equal(weights?.value, 'training');
    assert.equal(at(EASYR1, weights!), 'offload_params');
    const warned = r.problems.filter((p) => p.code === 'not-modeled').map((p) => p.rawKey);
    assert.deepEqual(warned, []);
    // freeze_vision_tower: false trains a vision-language model's tower: a warning of the estimate, for such a model only.
    const tower = last(r, 'visionTowerTrained');
    assert.equal(tower?.value, true);
    assert.equal(at(EASYR1, tower!), 'freeze_vision_tower');
    const vl = resolveText('config.yaml', EASYR1.replace('Qwen/Qwen2.5-7B-Instruct', 'Qwen/Qwen2.5-VL-7B-Instruct'));
    const warns = (setup: TrainingSetup): string[] => run(setup).warnings.map((w) => w.key);
    assert.ok(warns(vl.setup!).includes('vision_tower_trained'));
    assert.ok(!warns(resolveText('config.yaml', EASYR1).setup!).includes('vision_tower_trained'));
  });

  it("EasyR1's defaults where the file is silent: 4 sequences per micro-step, 512 prompts, one completion each", () => {
    const r = analyzeVerlYaml(
      'worker:\n  actor:\n    model:\n      model_path: Qwen/Qwen2.5-3B\ntrainer:\n  nnodes: 1\n',
    );
    assert.equal(last(r, 'microBatchSize')?.value, 4);
    assert.match(last(r, 'microBatchSize')?.rawValue ?? '', /EasyR1 default/);
    assert.equal(last(r, 'generationBatchSize')?.value, 512);
    // 256 x 1 / 8 GPUs / 4 = 8 micro-steps per update; the critic-free GRPO is EasyR1's default estimator.
    assert.equal(last(r, 'gradientAccumulationSteps')?.value, 8);
    assert.equal(last(r, 'loraAlpha')?.value, 64);
    assert.ok(!r.problems.some((p) => p.rawKey === 'algorithm.adv_estimator'));
    // No disable_kl and no offload: the reference's bf16 shards stay on the GPUs, a warning.
    assert.ok(r.problems.some((p) => p.code === 'not-modeled' && p.rawKey === 'worker.ref'));
  });

  it("EasyR1's default LoRA alpha (64) beside no rank trains every weight: its rank 0 leaves LoRA off", () => {
    // zhaosina/multi_turn_EasyR1@8e4a547 examples/qwen2_5_7b_math_grpo.sh names no lora key; EasyR1's LoraConfig has
    // rank 0 (off) and alpha 64 (hiyouga/EasyR1@b44b311 verl/workers/actor/config.py). It was read as LoRA.
    const line =
      'python3 -m verl.trainer.main worker.actor.model.model_path=Qwen/Qwen2.5-7B-Instruct trainer.n_gpus_per_node=8\n';
    const full = runPipeline([{ file: '/r/run.sh', text: line }], inMemory({ '/r/run.sh': line }), {});
    assert.equal(full.setup?.method, 'full');
    const lora = line.replace(' trainer.', ' worker.actor.model.lora.rank=32 trainer.');
    const r = runPipeline([{ file: '/r/run.sh', text: lora }], inMemory({ '/r/run.sh': lora }), {});
    assert.deepEqual([r.setup?.method, r.setup?.lora?.r, r.setup?.lora?.alpha], ['lora', 32, 64]);
  });

  it('the launch line names the YAML: its overrides win, the arithmetic uses both (the LoRA example on 1 GPU)', () => {
    const files = { '/r/run.sh': LORA_LINE, '/r/examples/config.yaml': EASYR1 };
    const r = runPipeline([{ file: '/r/run.sh', text: LORA_LINE }], inMemory(files), {});
    assert.deepEqual(
      r.files.map((f) => path.basename(f.file)),
      ['run.sh', 'config.yaml'],
    );
    assert.equal(r.setup?.model, 'Qwen/Qwen3-4B');
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.lora?.r, 64);
    assert.equal(r.setup?.lora?.alpha, 64);
    assert.equal(r.setup?.gpus_per_node, 1);
    assert.equal(r.setup?.micro_batch_size, 1);
    // 128 x 5 sequences / 1 GPU / 1 per micro-step.
    assert.equal(r.setup?.gradient_accumulation_steps, 640);
    assert.equal(r.setup?.rollout?.vllm_tensor_parallel, 1);
    // Located where they are written: the GPU count on the line, the micro-batch in the YAML.
    assert.equal((r.provenance.gpus_per_node as { file?: string }).file, '/r/run.sh');
    assert.equal((r.provenance.micro_batch_size as { file?: string }).file, '/r/examples/config.yaml');
    // Alone, the line says only what it sets: EasyR1's defaults are the YAML's to say.
    const line = analyzeShell(LORA_LINE);
    assert.ok(!line.facts.some((f) => f.origin === 'call-default' && f.key === 'microBatchSize'));
    assert.equal(line.references[0]?.kind, 'config');
  });

  it("a fork's ppo_trainer.yaml written out key by key: verl's keys, the deprecated global micro-batch", () => {
    const text = [
      'data:',
      '  train_batch_size: 1024',
      '  max_prompt_length: 512',
      '  max_response_length: 512',
      'actor_rollout_ref:',
      '  model:',
      '    path: ~/models/deepseek-llm-7b-chat',
      '    enable_gradient_checkpointing: False',
      '  actor:',
      '    strategy: fsdp',
      '    ppo_mini_batch_size: 256',
      '    ppo_micro_batch_size: 64',
      '    ppo_max_token_len_per_gpu: 16384 # n * ${data.max_prompt_length} + ${data.max_response_length}',
      '  rollout:',
      '    name: vllm',
      '    prompt_length: ${data.max_prompt_length}',
      '    gpu_memory_utilization: 0.5',
      'algorithm:',
      '  adv_estimator: gae',
      'trainer:',
      '  n_gpus_per_node: 8',
      '  nnodes: 1',
      '',
    ].join('\n');
    assert.equal(detectFormat('verl/trainer/config/ppo_trainer.yaml', text), 'verl-yaml');
    const r = analyzeVerlYaml(text);
    assert.equal(last(r, 'model')?.value, '~/models/deepseek-llm-7b-chat');
    // ppo_micro_batch_size is over all GPUs: 64 / 8 = 8 per GPU (fsdp_workers.py _normalize_config).
    assert.equal(last(r, 'microBatchSize')?.value, 8);
    assert.equal(last(r, 'gradientCheckpointing')?.value, 'none');
    // 256 x 1 / 8 / 8 = 4 micro-steps per update.
    assert.equal(last(r, 'gradientAccumulationSteps')?.value, 4);
    assert.ok(r.problems.some((p) => p.code === 'not-modeled' && p.rawKey === 'algorithm.adv_estimator'));
  });

  it("a fork's sft_trainer.yaml: the SFT trainer's keys; another YAML with data / model / optim / trainer is not verl's", () => {
    // Jiayi-Pan/TinyZero verl/trainer/config/sft_trainer.yaml, shortened: the old per-GPU key data.micro_batch_size.
    const text =
      'data:\n  train_batch_size: 256\n  micro_batch_size: 16\n  max_length: 1024\nmodel:\n' +
      '  partial_pretrain: ~/models/gemma-1.1-7b-it\n  enable_gradient_checkpointing: False\noptim:\n  lr: 1e-5\n' +
      'trainer:\n  total_epochs: 4\n';
    assert.equal(detectFormat('sft_trainer.yaml', text), 'verl-yaml');
    const r = analyzeVerlYaml(text);
    assert.equal(last(r, 'model')?.value, '~/models/gemma-1.1-7b-it');
    assert.equal(last(r, 'microBatchSize')?.value, 16);
    assert.equal(last(r, 'seqLen')?.value, 1024);
    assert.equal(last(r, 'batchLengths')?.value, 'fixed');
    const lightning = 'data:\n  batch_size: 8\nmodel:\n  name: x\noptim:\n  lr: 1\ntrainer:\n  max_epochs: 1\n';
    assert.notEqual(detectFormat('config.yaml', lightning), 'verl-yaml');
  });

  it('quick fixes write EasyR1 keys: in the YAML, and on the line where it overrides them', () => {
    const fix = (file: string, text: string, facts: ConfigFacts, changes: Record<string, unknown>) =>
      editsForChanges(
        Object.entries(changes).map(([key, value]) => ({ key: key as SetupChange['key'], value })),
        [{ file, text, format: facts.format, facts }],
        file,
      );
    const yaml = fix('config.yaml', EASYR1, analyzeVerlYaml(EASYR1), { micro_batch_size: 2, fsdp_version: 2 });
    assert.equal(yaml.edits.length, 0, 'EasyR1 shards with FSDP1 only: the whole fix is refused');
    const micro = fix('config.yaml', EASYR1, analyzeVerlYaml(EASYR1), { micro_batch_size: 2 });
    assert.match(applyEditData(EASYR1, micro.edits), /micro_batch_size_per_device_for_update: 2\n/);
    const line = fix('run.sh', LORA_LINE, analyzeShell(LORA_LINE), { gpus_per_node: 2 });
    assert.match(applyEditData(LORA_LINE, line.edits), /trainer\.n_gpus_per_node=2\n$/);
  });
});
