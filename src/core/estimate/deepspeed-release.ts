// What the DeepSpeed release changes in the estimate, and the release a run is taken to use when no file names it:
// the setup's deepspeed_version, else a transformers release before 4.57 (October 2025) dates the stack before
// DeepSpeed 0.18.2, else a current release (estimate/assumptions.ts says which where it matters). Pure.
import type { TrainingSetup } from '../setup';
import { olderThan } from '../util/version';

/**
 * Whether the run's DeepSpeed is older than `release`: the setup's release, else whether a transformers release older
 * than `datedBy` dates the stack (4.57, October 2025, came out before DeepSpeed 0.18.2); without either, a current one.
 */
function deepspeedBefore(
  setup: TrainingSetup,
  release: readonly [number, number, number],
  datedBy: readonly [number, number] = [4, 57],
): boolean {
  if (setup.deepspeed_version !== undefined) return olderThan(setup.deepspeed_version, ...release);
  return olderThan(setup.transformers_version, ...datedBy);
}

/** The transformers release that dates a run without a DeepSpeed release to DeepSpeed before 0.18.2, if any. */
export function deepspeedDatedBy(setup: TrainingSetup): string | undefined {
  return setup.deepspeed_version === undefined && deepspeedBefore(setup, [0, 18, 2])
    ? setup.transformers_version
    : undefined;
}

/**
 * DeepSpeed before 0.18.2 makes ZeRO-1/2's buckets in backward(), before the loss's backward (stage_1_and_2.py
 * backward); later releases run that prologue from a hook at the first gradient (deepspeedai/DeepSpeed#7665).
 */
export function bucketsBeforeLoss(setup: TrainingSetup): boolean {
  return deepspeedBefore(setup, [0, 18, 2]);
}

/**
 * Whether ZeRO-1/2 flattens the 16-bit parameters on the GPU when it has room for the flat buffer beside them
 * (stage_1_and_2.py __init__ flatten_on_accelerator, deepspeedai/DeepSpeed#7828, 0.18.7) rather than through the host
 * with the cache emptied between (terms/zero-step-cache.ts).
 */
export function deepspeedFlattensOnDevice(setup: TrainingSetup): boolean {
  return !deepspeedBefore(setup, [0, 18, 7]);
}

/**
 * DeepSpeed 0.19.3 and later keep a reentrant recomputation's frozen parameters gathered under ZeRO-3 until the
 * optimizer step (terms/zero3-recompute-kept.ts).
 */
export function deepspeedKeepsRecomputed(setup: TrainingSetup): boolean {
  return !deepspeedBefore(setup, [0, 19, 3]);
}

/**
 * Whether ZeRO-3's linear wrapper (LinearFunctionForZeroStage3, which lets the release free a gathered weight) is
 * installed for a model made outside deepspeed.zero.Init: from 0.19.4 deepspeed.initialize installs it
 * (deepspeedai/DeepSpeed#8189); before, only zero.Init did (terms/zero3-linear-kept.ts).
 */
export function deepspeedWrapsLinearOutsideInit(setup: TrainingSetup): boolean {
  return !deepspeedBefore(setup, [0, 19, 4]);
}

/**
 * Whether DeepSpeed's 16-bit mode casts the parameters of a model made under ZeRO-Init: before 0.19.2 the engine casts
 * the whole module (engine.py module.bfloat16() / half()), adapters added after the load included; from 0.19.2 a
 * ZeRO-Init model is taken to be in its dtype already and only the other paths cast (_cast_module_mixed_precision,
 * deepspeedai/DeepSpeed#8066), so PEFT's adapters keep the fp32 PEFT gives them (autocast_adapter_dtype, PEFT 0.12+).
 */
export function deepspeedCastsZeroInitModel(setup: TrainingSetup): boolean {
  return deepspeedBefore(setup, [0, 19, 2]);
}

/**
 * Whether ZeRO-3's count of available parameters falls below zero after each backward: DeepSpeed before 0.15.4, which
 * reset it at the backward's end (deepspeedai/DeepSpeed#6662; terms/zero3-gathered.ts). Without a release, a
 * transformers release before 4.47 (December 2024) dates it.
 */
export function deepspeedCountDrifts(setup: TrainingSetup): boolean {
  return deepspeedBefore(setup, [0, 15, 4], [4, 47]);
}

/**
 * Whether the run's DeepSpeed is the release whose ZeRO-3 hooks' CPU time the GPU truth measured, 0.19.6, or a later
 * one (terms/zero3-launch-lead.ts): how far the CPU runs ahead of the GPU depends on it, and older releases' was not
 * measured.
 */
export function deepspeedHooksMeasured(setup: TrainingSetup): boolean {
  return !deepspeedBefore(setup, [0, 19, 6]);
}
