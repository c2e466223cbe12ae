// Term: ZeRO-3's frozen parameters kept gathered through a reentrant backward (DeepSpeed 0.19.3 and later). Reentrant
// checkpointing recomputes each layer's forward inside the backward (torch.utils.checkpoint CheckpointFunction.backward);
// from 0.19.3 ZeRO-3 attributes the frozen parameters fetched there to the module whose backward runs
// (partitioned_param_coordinator.py fetch_sub_module: update_recompute_parameters, deepspeedai/DeepSpeed#8148), and
// the GPU's allocator histories show them released only at the optimizer step: the all-gather stream's live bytes grow
// by one layer per layer of the backward, every frozen layer gathered at its end. Trainable parameters are released by
// their own backward hooks (a full fine-tune keeps nothing), and 0.15.0 and 0.16.5 release the frozen ones after their
// use. GPU truth: tools/truth/gpu/results/2026-11-26b-h100 (tools/truth/FINDINGS.md §67).
// Docs: docs/estimate/parallelism.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import type { TrainingSetup } from '../setup';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { deepspeedKeepsRecomputed } from '../estimate/deepspeed-release';
import { formatCount } from '../units';
import { checkpointReentrant } from './activations/kept-inputs';

/** The first DeepSpeed release that keeps a reentrant recomputation's frozen parameters gathered. */
export const RECOMPUTE_KEPT_SINCE = '0.19.3';

/** Whether the run recomputes frozen layers under ZeRO-3 with reentrant checkpointing (the release aside). */
export function recomputesFrozenUnderZero3(setup: TrainingSetup): boolean {
  return (
    setup.zero_stage === 3 &&
    setup.method !== 'full' &&
    setup.gradient_checkpointing === 'full' &&
    checkpointReentrant(setup)
  );
}

/** Whether the run's DeepSpeed release keeps a reentrant recomputation's frozen layers gathered to the step's end. */
export function keepsRecomputedFrozen(setup: TrainingSetup): boolean {
  return recomputesFrozenUnderZero3(setup) && deepspeedKeepsRecomputed(setup);
}

/** The share of the stage's layer parameters that do not train: all but a freeze run's trainable last layers. */
function frozenShare(ctx: EstimateContext): number {
  const { setup } = ctx;
  const layers = ctx.model.arch.layers;
  if (setup.method !== 'freeze') return 1;
  const trainable = Math.min(layers, setup.freeze_trainable_layers ?? 2);
  return layers > 0 ? (layers - trainable) / layers : 0;
}

/**
 * What ZeRO-3 holds gathered at the end of a reentrant backward when the release keeps recomputed frozen parameters:
 * every frozen layer parameter of the stage in the gather dtype, and the small parameters, which stay unsharded.
 * Undefined when it keeps nothing.
 */
export function zero3RecomputeKept(
  ctx: EstimateContext,
  st: StageContext,
  gather: { bytesPerParam: number; dtype: string },
  small: { bytes: number; text: () => string },
): Component | undefined {
  const { setup } = ctx;
  if (!keepsRecomputedFrozen(setup)) return undefined;
  const share = frozenShare(ctx);
  const params = Math.round((st.blockParams / ctx.layout.tensorParallel) * share);
  if (!(params > 0)) return undefined;
  const release = setup.deepspeed_version ?? `current (${RECOMPUTE_KEPT_SINCE} or later)`;
  return comp(
    ctx,
    'gathered-params',
    'ZeRO-3 gathered parameters (frozen layers kept through the reentrant backward)',
    params * gather.bytesPerParam + small.bytes,
    () =>
      `${share < 1 ? `the frozen ${Math.round(share * 100)} % of ` : 'all '}the stage's layer params ` +
      `${formatCount(params)} x ${gather.dtype} + ${small.text()}: DeepSpeed ${release} attributes a reentrant ` +
      "recomputation's frozen parameters to the module whose backward runs and releases them at the optimizer step",
    () => ({ keptParams: params, deepspeedVersion: release }),
  );
}

/**
 * The frozen input embedding ZeRO-3 gathers once the backward is done, beside the layers it keeps (0.19.3 and later):
 * a reentrant recomputation over frozen layers needs the embedding's output to require grad (transformers'
 * enable_input_require_grads), so DeepSpeed's PreBackwardFunction on that output fetches the embedding when the
 * gradient reaches it, after the first layer's backward, and the PostBackwardFunction that would release it wraps the
 * token ids, which take no gradient: it stays gathered to the optimizer step. GPU truth (DeepSpeed 0.19.6, TRL's
 * SFTTrainer, Llama-3.1-8B LoRA, tools/truth/gpu/results/2026-11-26c-h100): the all-gather stream's live bytes reach
 * every parameter of the model, the embedding's 1.05 GB included, before the optimizer step. It adds to the
 * all-gather stream's pool, not to a high point (the first layer's recompute is freed by then). A tied embedding is
 * the head's parameter; a trained copy (modules_to_save) has hooks of its own. Undefined where none is held.
 */
export function zero3EmbeddingAfterBackward(ctx: EstimateContext, st: StageContext): Component | undefined {
  const { setup } = ctx;
  if (!keepsRecomputedFrozen(setup)) return undefined;
  if (!st.first || ctx.model.arch.tied || (setup.lora?.modules_to_save ?? []).length > 0) return undefined;
  const params = ctx.model.inventory.embedding / ctx.layout.tensorParallel;
  if (!(params > 0)) return undefined;
  const half = ctx.dtypes.half;
  return comp(
    ctx,
    'gathered-params',
    'ZeRO-3 gathered input embedding (after the backward)',
    params * half,
    () =>
      `${formatCount(params)} params x ${half} B: fetched by its pre-backward hook once the gradient reaches its ` +
      'output (which requires grad for the reentrant recomputation) and never released by its post-backward hook',
    () => ({ embeddingParams: params }),
  );
}
