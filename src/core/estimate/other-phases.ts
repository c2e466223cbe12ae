// The phases beside the training step: evaluation during training, the rollout's generation, a checkpoint's save,
// and the first step's initialisation, each from the stage's terms (phases.ts builds the step's own). Pure; no I/O.
// Docs: docs/estimate/index.md
import type { Component, PhaseEstimate } from '../model';
import { comp, sum } from './component';
import type { EstimateContext, StageContext } from './context';
import { savesShardsOnGpu, shardClones, unshardedForSave } from '../terms/checkpoint-save';
import type { GradientShare, StageTerms } from './phases';

/** Evaluation during training: a no-grad forward at the eval batch (terms/evaluation.ts). */
export function evaluationPhase(
  ctx: EstimateContext,
  terms: StageTerms,
  pers: Component[],
  gradC: GradientShare,
): PhaseEstimate | undefined {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { gathered, headGather, dequantFwdC } = terms;
  const { evalBatch, evalLossBytes, evalLayerBytes, evalLossFormula, gradsKeptInEval, generation } = terms.evaluation;
  if (evalBatch === undefined) return undefined;
  const evalTail = generation
    ? [...generation, ...dequantFwdC]
    : evalLossBytes >= evalLayerBytes + sum(dequantFwdC)
      ? [
          comp(
            ctx,
            'logits-loss',
            `Evaluation: logits and cross-entropy at the eval batch (${evalBatch})`,
            evalLossBytes,
            () => `${evalBatch} x ${setup.seq_len} tokens, no grad; ${evalLossFormula}`,
            () => ({ evalBatch, tokens: evalBatch * setup.seq_len, vocab: a.vocab }),
          ),
        ]
      : [
          comp(
            ctx,
            'backward-working',
            `Evaluation: one layer's forward at the eval batch (${evalBatch})`,
            evalLayerBytes,
            () => 'the largest intermediates of one layer, its input and output, no grad',
            () => ({ evalBatch }),
          ),
          ...dequantFwdC,
        ];
  const ev: Component[] = [
    ...pers,
    ...(gradsKeptInEval > 0 ? [gradC(gradsKeptInEval, ' (not freed: zero_grad(set_to_none=False))')] : []),
    ...gathered,
    ...headGather,
    ...evalTail,
    ...terms.held.lastStep,
  ];
  return {
    phase: 'evaluation',
    allocatedBytes: sum(ev),
    components: ev,
    note: generation
      ? `evaluation during training: generation at the eval batch (${evalBatch}), no loss forward`
      : `evaluation during training: no-grad forward at the eval batch (${evalBatch})`,
  };
}

/** Generation (online RL, GKD's on-policy rounds): the persistent components and generation's own (terms/generation.ts). */
export function generationPhase(
  ctx: EstimateContext,
  pers: Component[],
  genComps: Component[],
): PhaseEstimate | undefined {
  const setup = ctx.setup;
  const { onlineDpo, generation, gkdGeneration } = ctx.methods;
  if (!generation) return undefined;
  const gen = [...pers, ...genComps];
  const dpoWhere =
    generation.engine === 'generate'
      ? ' (prompts prefilled, then decoded with a KV cache)'
      : generation.engine === 'vllm-colocate'
        ? ' in the colocated vLLM engine'
        : ' on the vLLM server (other GPUs)';
  return {
    phase: 'generation',
    allocatedBytes: sum(gen),
    components: gen,
    note: gkdGeneration
      ? `on-policy generation (GKD lmbda ${setup.distillation!.on_policy}): ${gkdGeneration.batch} completions ` +
        `of up to ${gkdGeneration.completion_len} tokens (prompts prefilled, then decoded with a KV cache)`
      : onlineDpo
        ? `online DPO generation in the training step: two completions for each of the micro-batch's ` +
          `${setup.micro_batch_size} prompts${dpoWhere}`
        : generation.engine === 'generate'
          ? `generation of ${generation.batch} completions (prompts prefilled, then decoded with a KV cache)`
          : generation.engine === 'vllm-colocate'
            ? 'generation in the colocated vLLM engine'
            : 'generation on the vLLM server (other GPUs)',
  };
}

/**
 * A sharded FSDP1 checkpoint that keeps its shards on the GPU (terms/checkpoint-save.ts): after an optimizer step,
 * the persistent components, the gradients zero_grad keeps, the clones of every parameter shard, the root unit and one
 * layer unit unsharded.
 */
export function checkpointSavePhase(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  gradC: GradientShare,
): PhaseEstimate | undefined {
  if (!savesShardsOnGpu(ctx)) return undefined;
  const kept = terms.evaluation.gradsKeptInEval;
  const save: Component[] = [
    ...terms.persistent,
    ...(kept > 0 ? [gradC(kept, ' (not freed: zero_grad(set_to_none=False))')] : []),
    shardClones(ctx, st),
    ...unshardedForSave(ctx, terms.gathered, terms.headGather),
    ...terms.held.lastStep,
  ];
  return {
    phase: 'checkpoint-save',
    allocatedBytes: sum(save),
    components: save,
    note: "checkpoint save: FSDP1's sharded state dict, every parameter's shard cloned on the GPU",
  };
}

/**
 * The first step under ZeRO: the optimizer state not built yet, a flat copy of the 16-bit parameters. ZeRO-3 with its
 * parameters offloaded builds that flat buffer in pinned host memory (stage3.py _create_fp16_partitions_with_
 * defragmentation: `_create_param_groups_fp16_flat_cpu_memory` where `offload_param`), so its GPU holds none.
 */
export function firstStepPhase(ctx: EstimateContext, st: StageContext, pers: Component[]): PhaseEstimate | undefined {
  const setup = ctx.setup;
  const { zeroStage: zero, shardParams, offloadParams } = ctx.sharding;
  const wb = ctx.dtypes.weightBytes;
  const { flatHere } = st;
  if (!(zero >= 1 && setup.optimizer !== 'none') || (zero === 3 && offloadParams)) return undefined;
  // First step: DeepSpeed flattens the 16-bit parameters of each group into one buffer at init (a transient copy).
  const init = comp(
    ctx,
    'first-step-init',
    'ZeRO flatten buffer (initialisation)',
    (flatHere * wb) / (zero === 3 ? shardParams : 1),
    () => 'one flat copy of the 16-bit parameters while groups are built',
    () => ({}),
  );
  const fs = [...pers.filter((c) => c.id !== 'optimizer-states'), init];
  return {
    phase: 'first-step',
    allocatedBytes: sum(fs),
    components: fs,
    note: 'initialisation and first step: flat parameter groups are built',
  };
}

/** What stays on the GPU while the engine generates: the persistent components but states and weights on the host. */
export function heldWhileGenerating(terms: StageTerms): Component[] {
  // Most setups move nothing: the advice search's candidates take the persistent list as it is.
  if (terms.statesOffWhileGenerating.length === 0 && terms.weightsOffWhileGenerating.length === 0)
    return terms.persistent;
  const off = new Set([...terms.statesOffWhileGenerating, ...terms.weightsOffWhileGenerating]);
  return terms.persistent.filter((c) => !off.has(c));
}
