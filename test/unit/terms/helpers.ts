// Helpers shared by the estimate tests (test/unit/estimate.test.ts and test/unit/terms/*).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { TrainingSetupSchema, type TrainingSetup } from '../../../src/core';
import { estimate } from '../../../src/core/estimate';
import type { Estimate, RuntimeTerm } from '../../../src/core/model';
import { parseArchitecture, type Architecture } from '../../../src/core/architecture';
import { findGpu, findModel } from '../../../src/core/lookup';
import { type Allocation, CachingAllocator } from '../../../src/core/terms/allocator';
import type { ReplayParameter, StepShape } from '../../../src/core/terms/step-replay';
import type { ActivationPlan } from '../../../src/core/terms/activations';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { run, setupFor } from '../helpers';
import { singleChanges } from '../../../src/core/advice';

/**
 * Llama-2-7B QLoRA (NF4), LoRA r 16 on q_proj and v_proj in bf16, bf16 weights, 1 x 512 tokens: the run the
 * bitsandbytes terms' tests work by hand (kept inputs, the 4-bit head, a loop that keeps its outputs). `extra` replaces
 * whole keys.
 */
export function llama2Qlora(extra: Partial<TrainingSetupInput> = {}): TrainingSetup {
  return setupFor('meta-llama/Llama-2-7b-hf', {
    method: 'qlora',
    quantization: { bits: 4, type: 'nf4' },
    lora: { r: 16, alpha: 32, dropout: 0, target_modules: ['q_proj', 'v_proj'], dtype: 'bf16' },
    weights_dtype: 'bf16',
    micro_batch_size: 1,
    seq_len: 512,
    ...extra,
  });
}

/**
 * LoRA r 16 on q, k, v and o, bf16 weights with bf16 autocast, 4 x 2,048 tokens, checkpointed, SDPA: the run the loss
 * blocks' tests work by hand (on Llama-2-7B, T·V = 8,192 x 32,000).
 */
export const LORA_LOSS_RUN: Partial<TrainingSetupInput> = {
  method: 'lora',
  lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
  weights_dtype: 'bf16',
  mixed_precision: 'bf16',
  micro_batch_size: 4,
  seq_len: 2048,
  gradient_checkpointing: 'full',
  attention: 'sdpa',
};

/** LORA_LOSS_RUN on Llama-2-7B; `extra` replaces whole keys. */
export function llama2LoraLoss(extra: Partial<TrainingSetupInput> = {}): TrainingSetup {
  return setupFor('meta-llama/Llama-2-7b-hf', { ...LORA_LOSS_RUN, ...extra });
}

/**
 * Llama-3-8B full fine-tune in bf16 with an fp32 master copy and bf16 mixed precision over 8 GPUs, checkpointed: the
 * run the ZeRO terms' tests work by hand. `extra` replaces whole keys (the ZeRO stage, its buckets, the GPU count).
 */
export function llama3ZeroFull(extra: Partial<TrainingSetupInput> = {}): TrainingSetup {
  return setupFor('meta-llama/Meta-Llama-3-8B', {
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    master_weights: true,
    gpus_per_node: 8,
    gradient_checkpointing: 'full',
    ...extra,
  });
}

/**
 * Llama-3.1-8B full fine-tune, fp32 weights under bf16 mixed precision, FSDP FULL_SHARD over 8 GPUs with 4 micro-batches
 * of 1 x 2,048 tokens, checkpointed: the run the FSDP no_sync tests work by hand (8,030,261,248 params).
 */
export function llama31FsdpAccum(extra: Partial<TrainingSetupInput> = {}): TrainingSetup {
  return setupFor('meta-llama/Llama-3.1-8B', {
    weights_dtype: 'fp32',
    mixed_precision: 'bf16',
    fsdp: 'full_shard',
    gpus_per_node: 8,
    gradient_accumulation_steps: 4,
    micro_batch_size: 1,
    seq_len: 2048,
    gradient_checkpointing: 'full',
    ...extra,
  });
}

/**
 * Llama-2-7B LoRA (r 16 on q, v) over two GPUs under FSDP1, writing SHARDED_STATE_DICT checkpoints with Accelerate
 * 0.28, which builds them on the GPU (terms/checkpoint-save.ts): 1 x 512 tokens, checkpointed.
 */
export const FSDP1_SHARDED_SAVE: Partial<TrainingSetupInput> = {
  method: 'lora',
  lora: { r: 16, alpha: 32, dropout: 0, target_modules: ['q_proj', 'v_proj'], dtype: 'bf16' },
  weights_dtype: 'bf16',
  mixed_precision: 'bf16',
  micro_batch_size: 1,
  seq_len: 512,
  gradient_checkpointing: 'full',
  gpus_per_node: 2,
  fsdp: 'full_shard',
  fsdp_version: 1,
  fsdp_state_dict_type: 'sharded',
  accelerate_version: '0.28',
};

/** A LitGPT finetune_lora config quantizing `model` to NF4 (LoRA r 32 on query and value, 2 x 512 tokens). */
export function litgptQloraYaml(model: string): string {
  return [
    `checkpoint_dir: checkpoints/${model}`,
    'precision: bf16-true',
    'quantize: bnb.nf4',
    'lora_r: 32',
    'lora_query: true',
    'lora_value: true',
    'train:',
    '  micro_batch_size: 2',
    '  max_seq_length: 512',
  ].join('\n');
}

/** The architecture of a catalog model. */
export function archOf(id: string): Architecture {
  const m = findModel(id);
  assert.ok(m.ok, id);
  const r = parseArchitecture(m.model.config);
  assert.ok(r.ok, id);
  return r.arch;
}

/**
 * One layer's plan for adapters over a frozen 16-bit model on one rank (1 x 2,048 tokens, flash attention, no
 * autocast): the layer tests start from it and name what they change.
 */
export function frozenLayerPlan(arch: Architecture, extra: Partial<ActivationPlan> = {}): ActivationPlan {
  return {
    arch,
    mode: 'half',
    half: 2,
    weightBytes: 2,
    batch: 1,
    seq: 2048,
    attention: 'flash',
    baseTrainable: false,
    normsTrainable: false,
    inputRequiresGrad: true,
    tp: 1,
    sequenceParallel: false,
    ...extra,
  };
}

/** The setup of a point of the CPU truth (test/fixtures/truth/<suite>.json, tools/truth/README.md), e.g. 'loop/mixtral-full-amp'. */
export function truthSetup(id: string, extra: Record<string, unknown> = {}): TrainingSetup {
  const file = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'truth', `${id.split('/')[0]}.json`);
  const point = (
    JSON.parse(fs.readFileSync(file, 'utf8')) as { points: Array<{ id: string; scenario: Record<string, unknown> }> }
  ).points.find((p) => p.id === id);
  assert.ok(point, id);
  return TrainingSetupSchema.parse({ ...point.scenario, ...extra });
}

/** The measured peak allocated bytes of a truth point (rank 0, the measured step). */
export function truthPeak(id: string): number {
  const file = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'truth', `${id.split('/')[0]}.json`);
  return (
    JSON.parse(fs.readFileSync(file, 'utf8')) as { points: Array<{ id: string; peakBytes: number }> }
  ).points.find((p) => p.id === id)!.peakBytes;
}

/**
 * The estimate of an allocator-replay point: tools/truth/scenarios/replay/<name>.vram.yaml (real widths, few layers;
 * its recorded sequence replayed in tools/truth/FINDINGS.md §8), with `extra` over the scenario.
 */
export function replayEstimate(name: string, extra: Record<string, unknown> = {}, lean = false): Estimate {
  const file = path.resolve(
    __dirname,
    '..',
    '..',
    '..',
    '..',
    'tools',
    'truth',
    'scenarios',
    'replay',
    `${name}.vram.yaml`,
  );
  const scenario = parseYaml(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const r = estimate(TrainingSetupSchema.parse({ ...scenario, ...extra }), { lean });
  assert.ok(r.ok, name);
  return r.estimate;
}

/** The bytes of a runtime term of an estimate, or undefined where it has none. */
export function runtimeBytes(e: Estimate, id: RuntimeTerm['id']): number | undefined {
  return e.perGpu.runtime.find((r) => r.id === id)?.bytes;
}

/** A point of the GPU truth (test/fixtures/truth/gpu.json): one H100 80GB, torch 2.11, transformers 5.17. */
export interface GpuTruthPoint {
  id: string;
  gpu: string;
  scenario: TrainingSetupInput;
  reservedBytes: number;
  /** max_memory_allocated of the measured step. */
  peakBytes: number;
}

const gpuFixture = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'truth', 'gpu.json');

/** The GPU truth point `gpu/<id>`. */
export function gpuTruthPoint(id: string): GpuTruthPoint {
  const points = (JSON.parse(fs.readFileSync(gpuFixture, 'utf8')) as { points: GpuTruthPoint[] }).points;
  const p = points.find((x) => x.id === `gpu/${id}`);
  assert.ok(p, id);
  return p;
}

/**
 * A GPU truth point estimated for the GPU it ran on, its scenario's keys replaced by `extra`, with the point's
 * measured max_memory_allocated (`peak`) and max_memory_reserved (`reserved`).
 */
export function gpuPointRun(
  id: string,
  extra: Partial<TrainingSetupInput> = {},
): { estimate: Estimate; peak: number; reserved: number } {
  const p = gpuTruthPoint(id);
  const gpu = findGpu(p.gpu);
  assert.ok(gpu.ok, p.gpu);
  const r = estimate(TrainingSetupSchema.parse({ ...p.scenario, ...extra }), { gpu: gpu.gpu });
  assert.ok(r.ok, id);
  return { estimate: r.estimate, peak: p.peakBytes, reserved: p.reservedBytes };
}

/**
 * A GPU truth point estimated for the GPU it ran on: the reserved bytes, the runtime term `termId`'s bytes (0 when
 * absent) and the measured max_memory_reserved.
 */
export function gpuPointEstimate(
  id: string,
  termId: RuntimeTerm['id'],
): { reserved: number; term: number; measured: number } {
  const { estimate: e, reserved } = gpuPointRun(id);
  const g = e.perGpu;
  const term = g.runtime.find((t) => t.id === termId)?.bytes ?? 0;
  return { reserved: g.reservedBytes, term, measured: reserved };
}

/**
 * An allocator model that logs each request in MiB as it is made (positive) and each block freed (negative, its
 * rounded size), for replays worked by hand.
 */
export function loggingAllocator(): { allocator: CachingAllocator; log: number[] } {
  const log: number[] = [];
  class Logged extends CachingAllocator {
    override malloc(bytes: number, stream = 0): Allocation {
      log.push(bytes / 2 ** 20);
      return super.malloc(bytes, stream);
    }
    override free(a: Allocation): void {
      log.push(-(a as { size: number }).size / 2 ** 20);
      super.free(a);
    }
  }
  return { allocator: new Logged(), log };
}

/**
 * A replay's step with no layers, for plans worked by hand: `embedding` (its head tied), a 20 MiB hidden state, 100
 * MiB of 16-bit logits and 200 MiB in fp32, without checkpointing and without cuBLAS workspaces.
 */
export function noLayerStep(embedding: ReplayParameter): StepShape {
  return {
    embedding,
    layer: [],
    layers: 0,
    head: undefined,
    sequence: {
      bytes: [],
      freeAfter: [],
      saved: [],
      recomputeEnd: 0,
      held: [],
      contextHeld: [],
      input: -1,
      output: -1,
      linears: [],
    },
    checkpointed: false,
    hidden: 20 * 2 ** 20,
    logits: 100 * 2 ** 20,
    logitsFp32: 200 * 2 ** 20,
    blasWorkspace: 0,
  };
}

/**
 * Answer.AI's FSDP1 LoRA layout (AnswerDotAI/fsdp_qlora@05ed9f2 train.py defaults, benchmarks_03_2024.md): Llama-2-7B
 * over 2 GPUs, LoRA r 64 on six projections in bf16, reentrant checkpointing through apply_activation_checkpointing on the
 * wrapped model (checkpoint_wrapper inside each unit), batch 1, transformers 4.38.
 */
export const ANSWER_AI_LORA: Partial<TrainingSetupInput> = {
  method: 'lora',
  lora: {
    r: 64,
    alpha: 16,
    dropout: 0.1,
    dtype: 'bf16',
    target_modules: ['k_proj', 'q_proj', 'v_proj', 'up_proj', 'down_proj', 'gate_proj'],
  },
  weights_dtype: 'bf16',
  mixed_precision: 'none',
  micro_batch_size: 1,
  gradient_checkpointing: 'full',
  checkpoint_reentrant: true,
  checkpoint_wrapper: true,
  gpus_per_node: 2,
  fsdp: 'full_shard',
  fsdp_version: 1,
  transformers_version: '4.38',
};

/**
 * The single-change advice item `id` for the setup on the named GPU (undefined where it is not offered), and the
 * device bytes of the setup before and with `patch`: what an item saves is their difference.
 */
export function adviceItemOn(
  setup: TrainingSetup,
  gpuName: string,
  id: string,
  patch: Partial<TrainingSetup>,
): { item: ReturnType<typeof singleChanges>[number] | undefined; before: number; after: number } {
  const gpu = findGpu(gpuName);
  assert.ok(gpu.ok, `catalog has ${gpuName}`);
  const item = singleChanges(setup, { gpu: gpu.gpu, gpuSpec: gpu.gpu.spec }).find((i) => i.id === id);
  const before = run(setup, { gpu: gpu.gpu }).perGpu.deviceBytes;
  const after = run({ ...setup, ...patch }, { gpu: gpu.gpu }).perGpu.deviceBytes;
  return { item, before, after };
}
