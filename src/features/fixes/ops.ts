// What fixes are made of: the files they edit and the edits they return, values and operations (`Op`: set this key
// to this value), what a planner and a writer return, the text helpers the writers share, and the planning context
// of one file. Pure: no I/O.
import type { CanonicalKey, ConfigFacts, Fact, FactValue, Format } from '../../analyzers/facts';
import type { SetupChange } from '../../core';

export interface EditData {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  readonly newText: string;
}

export interface FixFile {
  readonly file: string;
  readonly text: string;
  readonly format: Format;
  readonly facts: ConfigFacts;
}

/**
 * Either every change is written (edits) or none is (edits empty, and `unsupported` says which keys could not be
 * written and why): advice is a unit, and half of it can make a run worse.
 */
export interface FixPlan {
  readonly edits: readonly EditData[];
  readonly unsupported: readonly { key: string; reason: string }[];
}

/** Code written as is (a Python expression such as `torch.bfloat16`). */
interface Raw {
  readonly raw: string;
}

export type Val = FactValue | Raw | { readonly [k: string]: Val };

/**
 * One key to write. `when: 'present'` only rewrites a key that is already there (flip fp16 off when bf16 goes on);
 * `when: 'absent'` only adds a missing key (pin_memory next to a new offload device). `append` adds an item to a list.
 * For Python, `call` names the call the keyword belongs to; for shell, `launcher` marks a launcher option.
 */
export interface Op {
  readonly path: readonly string[];
  readonly value: Val;
  readonly when?: 'present' | 'absent';
  readonly append?: boolean;
  readonly call?: PyCall;
  readonly launcher?: 'torchrun' | 'deepspeed' | 'accelerate' | 'tune';
  /** A Hydra override of the command line (`key=value`, verl): found and written without dashes. */
  readonly hydra?: boolean;
}

export type PyCall = 'train' | 'lora' | 'bnb' | 'load' | 'unsloth-load' | 'unsloth-peft';
export type Planned = { readonly ops: readonly Op[] } | { readonly reason: string };
export type Written = { readonly text: string } | { readonly reason: string };

export const isRaw = (v: Val): v is Raw =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  typeof (v as Raw).raw === 'string' &&
  Object.keys(v).length === 1;
export const isObj = (v: Val): v is { readonly [k: string]: Val } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isRaw(v);
export const op = (path: string | readonly string[], value: Val, extra: Partial<Op> = {}): Op => ({
  path: typeof path === 'string' ? path.split('.') : path,
  value,
  ...extra,
});
export const ok = (...ops: Op[]): Planned => ({ ops });
export const no = (reason: string): Planned => ({ reason });
export const failed = (x: Planned | Written): x is { readonly reason: string } => 'reason' in x;

export function eolOf(text: string): string {
  return /\r\n/.test(text) ? '\r\n' : '\n';
}

export function lineStartOf(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

export function splice(text: string, start: number, end: number, s: string): string {
  return text.slice(0, start) + s + text.slice(end);
}

export interface PlanCtx {
  readonly file: FixFile;
  readonly changes: readonly SetupChange[];
  readonly fact: (k: CanonicalKey) => Fact | undefined;
  readonly has: (rawKey: string) => boolean;
  readonly changed: (k: string) => unknown;
}

export function planCtx(file: FixFile, changes: readonly SetupChange[]): PlanCtx {
  return {
    file,
    changes,
    fact: (k) => file.facts.facts.find((f) => f.key === k && f.origin !== 'call-default'),
    has: (raw) => file.facts.facts.some((f) => f.rawKey === raw || f.rawKey.replace(/^-+/, '') === raw),
    changed: (k) => changes.find((c) => c.key === k)?.value,
  };
}

export type Lora = {
  r?: number;
  alpha?: number;
  dropout?: number;
  target_modules?: readonly string[] | 'all-linear';
  modules_to_save?: readonly string[];
  use_dora?: boolean;
};
export type Quant = { bits?: number; type?: string; double_quant?: boolean; experts?: boolean };

/** Canonical keys through which a file says it sets a setup key. */
export const RELATED: Partial<Record<string, readonly CanonicalKey[]>> = {
  micro_batch_size: ['microBatchSize'],
  gradient_accumulation_steps: ['gradientAccumulationSteps'],
  seq_len: ['seqLen'],
  gradient_checkpointing: ['gradientCheckpointing'],
  mixed_precision: ['bf16', 'fp16', 'mixedPrecision'],
  weights_dtype: ['weightsDtype'],
  optimizer: ['optimizer'],
  attention: ['attention'],
  loss: ['loss'],
  compile: ['compile'],
  activation_offloading: ['activationOffloading'],
  tiled_mlp: ['tiledMlp'],
  zero_stage: ['zeroStage'],
  offload_optimizer: ['offloadOptimizer'],
  offload_params: ['offloadParams'],
  fsdp: ['fsdp'],
  method: ['method'],
  lora: ['loraR', 'loraAlpha', 'loraDropout', 'loraTargets'],
  quantization: ['quantBits'],
  gpus_per_node: ['gpusPerNode', 'worldSize'],
  nodes: ['nodes'],
  fsdp_no_sync: ['fsdpNoSync'],
  fsdp_state_dict_type: ['fsdpStateDictType'],
};
