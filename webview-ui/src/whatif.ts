// What-if: the controls' state -> a TrainingSetup patch -> the core's estimate, in the webview, no round trip.
// Pure (no DOM), so unit tests run it in Node. Only the controls the user touched are stored (overrides);
// everything else follows the file, so an edit to the file still shows through an active what-if.
import { estimate } from '../../src/core';
import { GPU_NAMES, findGpu } from '../../src/core';
import type { EstimateResult } from '../../src/core';
import {
  CheckpointingSchema,
  MethodSchema,
  OptimizerSchema,
  TrainingSetupSchema,
  type Checkpointing,
  type Method,
  type Optimizer,
  type TrainingSetup,
} from '../../src/core';
import { estimateView, type EstimateView } from '../../src/protocol/messages';

export const PRECISIONS = ['fp32', 'amp-bf16', 'amp-fp16', 'bf16', 'bf16-master', 'fp16-master'] as const;
export type Precision = (typeof PRECISIONS)[number];
export const SHARDINGS = [
  'none',
  'zero1',
  'zero2',
  'zero3',
  'fsdp-full_shard',
  'fsdp-shard_grad_op',
  'fsdp-hybrid_shard',
] as const;
export type Sharding = (typeof SHARDINGS)[number];
export const OFFLOADS = ['none', 'opt-cpu', 'opt-nvme', 'all-cpu', 'all-nvme'] as const;
export type OffloadChoice = (typeof OFFLOADS)[number];
export const CHECKPOINTINGS: readonly Checkpointing[] = CheckpointingSchema.options;
export const OPTIMIZERS: readonly Optimizer[] = OptimizerSchema.options;
export const METHODS: readonly Method[] = MethodSchema.options;
export const GPU_COUNTS: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128];
export const LIMITS = { micro: [1, 4096], seq: [16, 1 << 21] } as const;

/** The value each control shows. 'file' = a combination the presets do not name: keep what the file says. */
export interface Controls {
  gpu: string;
  gpus: number;
  micro: number;
  seq: number;
  precision: Precision | 'file';
  checkpointing: Checkpointing;
  sharding: Sharding | 'file';
  offload: OffloadChoice | 'file';
  optimizer: Optimizer;
  method: Method;
}
export type Overrides = Partial<Controls>;

const PRECISION_FIELDS: Record<
  Precision,
  Pick<TrainingSetup, 'weights_dtype' | 'mixed_precision' | 'master_weights'>
> = {
  fp32: { weights_dtype: 'fp32', mixed_precision: 'none', master_weights: false },
  'amp-bf16': { weights_dtype: 'fp32', mixed_precision: 'bf16', master_weights: false },
  'amp-fp16': { weights_dtype: 'fp32', mixed_precision: 'fp16', master_weights: false },
  bf16: { weights_dtype: 'bf16', mixed_precision: 'bf16', master_weights: false },
  'bf16-master': { weights_dtype: 'bf16', mixed_precision: 'bf16', master_weights: true },
  'fp16-master': { weights_dtype: 'fp16', mixed_precision: 'fp16', master_weights: true },
};

const SHARDING_FIELDS: Record<Sharding, Pick<TrainingSetup, 'zero_stage' | 'fsdp'>> = {
  none: { zero_stage: 0, fsdp: 'none' },
  zero1: { zero_stage: 1, fsdp: 'none' },
  zero2: { zero_stage: 2, fsdp: 'none' },
  zero3: { zero_stage: 3, fsdp: 'none' },
  'fsdp-full_shard': { zero_stage: 0, fsdp: 'full_shard' },
  'fsdp-shard_grad_op': { zero_stage: 0, fsdp: 'shard_grad_op' },
  'fsdp-hybrid_shard': { zero_stage: 0, fsdp: 'hybrid_shard' },
};

const OFFLOAD_FIELDS: Record<OffloadChoice, Pick<TrainingSetup, 'offload_optimizer' | 'offload_params'>> = {
  none: { offload_optimizer: 'none', offload_params: 'none' },
  'opt-cpu': { offload_optimizer: 'cpu', offload_params: 'none' },
  'opt-nvme': { offload_optimizer: 'nvme', offload_params: 'none' },
  'all-cpu': { offload_optimizer: 'cpu', offload_params: 'cpu' },
  'all-nvme': { offload_optimizer: 'nvme', offload_params: 'nvme' },
};

/** The LoRA block the what-if adds when a setup without one switches to LoRA/QLoRA (the advice engine's default). */
export const DEFAULT_LORA: NonNullable<TrainingSetup['lora']> = {
  r: 16,
  alpha: 32,
  dropout: 0.05,
  target_modules: 'all-linear',
  modules_to_save: [],
  dtype: 'fp32',
  use_dora: false,
};
export const DEFAULT_IA3: NonNullable<TrainingSetup['ia3']> = {
  target_modules: ['k_proj', 'v_proj', 'down_proj'],
  feedforward_modules: ['down_proj'],
  dtype: 'fp32',
};
export const DEFAULT_QLORA_QUANT: NonNullable<TrainingSetup['quantization']> = {
  bits: 4,
  type: 'nf4',
  double_quant: true,
  scope: 'all-linear',
};

function matchKey<K extends string, V extends object>(table: Record<K, V>, s: object): K | 'file' {
  for (const [k, fields] of Object.entries(table) as Array<[K, V]>) {
    if (Object.entries(fields).every(([f, v]) => (s as Record<string, unknown>)[f] === v)) return k;
  }
  return 'file';
}

/** What the controls show for a setup (no overrides). */
export function controlsFromSetup(setup: TrainingSetup, gpuId: string | undefined): Controls {
  const fsdpNone = setup.fsdp === 'no_shard' ? { ...setup, fsdp: 'none' as const } : setup;
  return {
    gpu: gpuId ?? '',
    gpus: setup.gpus_per_node * setup.nodes,
    micro: setup.micro_batch_size,
    seq: setup.seq_len,
    precision: matchKey(PRECISION_FIELDS, setup),
    checkpointing: setup.gradient_checkpointing,
    sharding: matchKey(SHARDING_FIELDS, fsdpNone),
    offload: matchKey(OFFLOAD_FIELDS, setup),
    optimizer: setup.optimizer,
    method: setup.method,
  };
}

/** The setup fields that the overrides change (GPU choice is not a setup field the estimator reads; see gpuTarget). */
export function whatIfPatch(setup: TrainingSetup, o: Overrides): Partial<TrainingSetup> {
  const p: Partial<TrainingSetup> = {};
  if (o.gpus !== undefined && o.gpus !== setup.gpus_per_node * setup.nodes) {
    const cap = Math.max(8, setup.gpus_per_node);
    const perNode = Math.min(o.gpus, cap);
    p.gpus_per_node = perNode;
    p.nodes = Math.max(1, Math.ceil(o.gpus / perNode));
  }
  if (o.micro !== undefined) p.micro_batch_size = o.micro;
  if (o.seq !== undefined) p.seq_len = o.seq;
  if (o.precision !== undefined && o.precision !== 'file') Object.assign(p, PRECISION_FIELDS[o.precision]);
  if (o.checkpointing !== undefined) p.gradient_checkpointing = o.checkpointing;
  if (o.sharding !== undefined && o.sharding !== 'file') Object.assign(p, SHARDING_FIELDS[o.sharding]);
  if (o.offload !== undefined && o.offload !== 'file') Object.assign(p, OFFLOAD_FIELDS[o.offload]);
  if (o.optimizer !== undefined) p.optimizer = o.optimizer;
  if (o.method !== undefined && o.method !== setup.method) {
    p.method = o.method;
    if (o.method === 'lora') {
      p.lora = setup.lora ?? DEFAULT_LORA;
      p.quantization = undefined;
    } else if (o.method === 'qlora') {
      p.lora = setup.lora ?? DEFAULT_LORA;
      p.quantization = setup.quantization ?? DEFAULT_QLORA_QUANT;
    } else if (o.method === 'ia3') {
      p.ia3 = setup.ia3 ?? DEFAULT_IA3;
      p.quantization = undefined;
    } else {
      // Full fine-tuning and freeze train the base weights, which cannot stay quantized.
      p.quantization = undefined;
    }
  }
  if (o.gpu !== undefined) p.gpu = o.gpu || undefined;
  return p;
}

export function applyOverrides(setup: TrainingSetup, o: Overrides): TrainingSetup {
  return { ...setup, ...whatIfPatch(setup, o) };
}

/** Overrides with the entries equal to the file's value removed (so "changed" counts only real changes). */
export function pruneOverrides(setup: TrainingSetup, gpuId: string | undefined, o: Overrides): Overrides {
  const base = controlsFromSetup(setup, gpuId);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && base[k as keyof Controls] !== v) out[k] = v;
  return out as Overrides;
}

export interface GpuTarget {
  readonly id: string;
  readonly memoryBytes: number;
  readonly source: string;
}

/** The GPU to check against: the picked catalog entry, or the file's GPU (which may be a plain size). */
export function gpuTarget(id: string, fileGpu: { id: string; memoryBytes: number } | null): GpuTarget | undefined {
  if (!id) return undefined;
  if (fileGpu && fileGpu.id === id) return { ...fileGpu, source: 'the panel model' };
  const hit = findGpu(id);
  return hit.ok ? { id: hit.gpu.id, memoryBytes: hit.gpu.memoryBytes, source: hit.gpu.source } : undefined;
}

/** GPU picker entries: the catalog, plus the file's GPU when it is not a catalog name (e.g. "24 GiB"). */
export function gpuOptions(fileGpuId: string | undefined): string[] {
  const names = [...GPU_NAMES];
  if (fileGpuId && !names.includes(fileGpuId)) names.unshift(fileGpuId);
  return names;
}

export function gpuCountOptions(current: number): number[] {
  return [...new Set([...GPU_COUNTS, current])].sort((a, b) => a - b);
}

/** Parses a whole number in [lo, hi]; undefined for anything else. */
export function parseCount(text: string, lo: number, hi: number): number | undefined {
  if (!/^\s*\d+\s*$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= lo && n <= hi ? n : undefined;
}

/** The estimate's fields the panel shows (the same shape the host sends). */
export const toView = estimateView;

export type WhatIfResult =
  | { readonly ok: true; readonly setup: TrainingSetup; readonly view: EstimateView }
  | { readonly ok: false; readonly setup: TrainingSetup; readonly errors: readonly string[] };

/** Estimates the setup with the overrides, with formulas (for the chart and "all components"). */
export function recompute(
  setup: TrainingSetup,
  o: Overrides,
  gpu: GpuTarget | undefined,
  headroomFraction: number,
): WhatIfResult {
  const s = applyOverrides(setup, o);
  const r: EstimateResult = estimate(s, { gpu, headroomFraction });
  return r.ok
    ? { ok: true, setup: s, view: toView(r.estimate) }
    : { ok: false, setup: s, errors: r.errors.map((e) => `${e.key}: ${e.message}`) };
}

/** The setup with an advice item's changes applied, validated by the setup schema (values arrive as unknown). */
export function applyChanges(
  setup: TrainingSetup,
  changes: ReadonlyArray<{ key: string; value: unknown }>,
): TrainingSetup | undefined {
  const next: Record<string, unknown> = { ...setup };
  for (const c of changes) next[c.key] = c.value;
  const r = TrainingSetupSchema.safeParse(next);
  return r.success ? r.data : undefined;
}

export interface WhatIfWrite {
  /** The setup keys the what-if changes, with their new values: what "Write these changes to the file" sends. */
  readonly changes: ReadonlyArray<{ key: string; value: unknown }>;
  /** Keys the what-if removes from the setup (e.g. quantization, leaving QLoRA): not written, the user edits them. */
  readonly removed: readonly string[];
  /** The what-if picks another GPU, which is a setting (vramLens.gpu) rather than part of the file. */
  readonly gpuOnly: boolean;
}

/**
 * What the what-if would write into the run's files: the patch's keys whose value differs from the file's setup.
 * The GPU is written only into a scenario file (*.vram.yaml has a `gpu:` key; other formats name no GPU).
 */
export function whatIfWrite(setup: TrainingSetup, o: Overrides, format: string): WhatIfWrite {
  const patch = whatIfPatch(setup, o) as Record<string, unknown>;
  const now = setup as unknown as Record<string, unknown>;
  const changes: Array<{ key: string; value: unknown }> = [];
  const removed: string[] = [];
  let gpu = false;
  for (const [key, value] of Object.entries(patch)) {
    if (JSON.stringify(value) === JSON.stringify(now[key])) continue;
    if (key === 'gpu' && format !== 'scenario') {
      gpu = true;
      continue;
    }
    if (value === undefined) removed.push(key);
    else changes.push({ key, value });
  }
  return { changes, removed, gpuOnly: gpu && changes.length === 0 && removed.length === 0 };
}
