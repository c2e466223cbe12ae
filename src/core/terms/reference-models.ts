// Term: frozen models beside the trained one. Their weights per GPU, sharded as the policy's:
//   teacher (distillation) params x its load dtype, the reference copy (DPO, GRPO with beta > 0) = the model's weights
//   again, each reward model params x the policy's load dtype; offloaded with the policy's parameters.
// And their no-grad forwards in the training step: the reference's logits and log-probs at the policy's batch
// (terms/loss.ts referenceLogps), a reward model's one layer at a time (noGradLayerBytes).
// Sources: TRL create_reference_model, GKDTrainer, GRPOTrainer (trl/trainer/grpo_trainer.py); LLaMA-Factory
// create_ref_model; torchtune's KD recipes. Docs: docs/estimate/preference-and-rl.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, RewardModel, StageContext } from '../estimate/context';
import { ktoReferenceLogps, noGradLayerBytes, referenceLogps } from './activations';
import { lossPlan } from './logits-loss';
import { DTYPE_BYTES, formatBytes, formatCount } from '../units';
import { olderThan } from '../util/version';
import { quantBytesPerParam } from './quantization';

/** Weights of the teacher, the reference copy and the reward models on this stage's GPU. */
export function frozenModelWeights(ctx: EstimateContext, st: StageContext): Component[] {
  const { setup, effectiveSetup: effSetup } = ctx;
  const { shardParams, offloadParams, fsdpOffload } = ctx.sharding;
  const wb = ctx.dtypes.weightBytes;
  const { teacher, rollout, rewardModels } = ctx.methods;
  const { first, quantizedHere: quantHere, unquantizedParams, modelBytes } = st;
  const persistent: Component[] = [];
  if (teacher) {
    // The distillation teacher: frozen weights in the model dtype, sharded like the student's (torchtune's distributed
    // KD recipes shard it with the same FSDP settings); no gradients, optimizer state or adapters.
    // TRL's GKDTrainer loads the teacher by its id with teacher_model_init_kwargs (none by default): the checkpoint's
    // dtype under transformers 5 (dtype="auto"), fp32 before; torchtune builds it in the training dtype.
    const stored =
      setup.distillation!.teacher_architecture.torch_dtype ?? setup.distillation!.teacher_architecture.dtype;
    const teacherBytes =
      setup.distillation!.loss !== 'jsd'
        ? wb
        : olderThan(setup.transformers_version, 5, 0)
          ? 4
          : stored === 'bfloat16' || stored === 'float16'
            ? 2
            : 4;
    persistent.push(
      comp(
        ctx,
        'weights',
        'Teacher model weights (frozen, distillation)',
        (teacher.params * teacherBytes) / (offloadParams || fsdpOffload ? Infinity : shardParams),
        () =>
          offloadParams || fsdpOffload
            ? "offloaded to host memory with the student's parameters"
            : `${setup.distillation!.teacher_model ?? teacher.arch.family} ${formatCount(teacher.params)} ` +
              `params x ${teacherBytes} B${shardParams > 1 ? ` / ${shardParams} (sharded)` : ''}`,
        () => ({ params: teacher.params, shard: shardParams }),
      ),
    );
  }
  if (setup.preference?.reference === 'copy' || rollout?.reference === 'copy') {
    // A frozen copy of the model (TRL create_reference_model, LLaMA-Factory create_ref_model), loaded and sharded as
    // the policy is (TRL prepares it with the same DeepSpeed ZeRO-3 / FSDP setup, offload included), without
    // gradients, optimizer state or adapters.
    const quantRef =
      quantHere > 0 && effSetup.quantization
        ? quantHere * quantBytesPerParam(effSetup.quantization, setup.torchao_version).bytes
        : 0;
    // TRL loads the reference by the policy's name: in reference_dtype where that is not the model's weights dtype.
    const refDtype = setup.reference_dtype;
    const refUnquantized = refDtype ? unquantizedParams * DTYPE_BYTES[refDtype] : modelBytes;
    const refBytes = (refUnquantized + quantRef) / (offloadParams || fsdpOffload ? Infinity : shardParams);
    persistent.push(
      comp(
        ctx,
        'weights',
        'Reference model weights (frozen copy)',
        refBytes,
        () =>
          offloadParams || fsdpOffload
            ? "offloaded to host memory with the policy's parameters"
            : `the model's weights again: ${formatCount(unquantizedParams + quantHere)} params` +
              `${refDtype ? ` x ${DTYPE_BYTES[refDtype]} B (loaded in ${refDtype})` : ''}` +
              `${shardParams > 1 ? ` / ${shardParams} (sharded)` : ''}`,
        () => ({ params: Math.round(unquantizedParams + quantHere), shard: shardParams }),
      ),
    );
  }
  // GRPOTrainer loads each reward model with the config's model_init_kwargs (their dtype, else transformers' default:
  // the checkpoint's from 5) and prepares it like the reference: sharded under ZeRO-3 / FSDP, a whole copy on every GPU
  // otherwise (trl/trainer/grpo_trainer.py). Its dtype where not the model's: rollout.reward_models[].dtype.
  if (first) {
    for (const rm of rewardModels) {
      const rmBytes = rm.weightBytes ?? wb;
      persistent.push(
        comp(
          ctx,
          'weights',
          `Reward model weights (${rm.model}, frozen)`,
          (rm.params * rmBytes) / (offloadParams || fsdpOffload ? Infinity : shardParams),
          () =>
            offloadParams || fsdpOffload
              ? "offloaded to host memory with the policy's parameters"
              : `${formatCount(rm.params)} params (sequence classifier, 1 label) x ${rmBytes} B, ` +
                `${rm.weightBytes ? 'its load dtype' : "the policy's load dtype"}` +
                `${shardParams > 1 ? ` / ${shardParams} (sharded)` : ''}`,
          () => ({ params: rm.params, shard: shardParams }),
        ),
      );
    }
  }
  return persistent;
}

/**
 * The reference's no-grad forward during the training step: its logits and log-probs at the policy's batch, while the
 * policy's activations are held. Zero without a reference pass (or without an LM head).
 */
export function referenceForward(
  ctx: EstimateContext,
  st: StageContext,
): { refForwardBytes: number; refForwardFormula: string } {
  const setup = ctx.setup;
  const { arch: a, lmHead } = ctx.model;
  const tp = ctx.layout.tensorParallel;
  const cb = ctx.dtypes.computeBytes;
  const { rollout, onlineDpo } = ctx.methods;
  const pref = setup.preference;
  const { sequences: seqs, tokens: T } = st;
  // The reference model's no-grad forward runs after the policy's (TRL get_batch_loss_metrics), while the policy's
  // activations and log-probs are held: its logits and their log-probs at the same batch.
  let refForwardBytes = 0;
  let refForwardFormula = '';
  if (pref && lmHead && (pref.reference === 'copy' || pref.reference === 'adapters-off')) {
    // KTO (unpaired): TRL's and LLaMA-Factory's reference passes beside the policy's index-copied logits; HALOs' one
    // pass at a time (logits_kept false: each pass keeps its log-probs only), as a paired reference's; elsewhere
    // (torchtune) the completions' and the KL batch's logits are both held before their log-probs are taken.
    const onePass = pref.paired || pref.logits_kept === false;
    const profiledKto = !onePass && (pref.logps === 'rows' || pref.logps === 'whole');
    const ref = profiledKto ? ktoReferenceLogps(lossPlan(ctx, T)) : referenceLogps(lossPlan(ctx, T));
    refForwardBytes = ref.bytes + (onePass || profiledKto ? 0 : cb * T * (a.vocab / tp));
    refForwardFormula = `${pref.reference === 'copy' ? 'reference model' : 'the model with its adapters disabled'}, no grad, ${seqs} sequences: ${ref.formula}`;
    const whole = wholeReferenceGather(ctx);
    const inFlight = whole + cb * T * (a.vocab / tp);
    if (whole > 0 && inFlight > refForwardBytes) {
      refForwardBytes = inFlight;
      refForwardFormula =
        `reference model, no grad, ${seqs} sequences: gathered whole as one FSDP2 unit (TRL prepare_fsdp), its ` +
        `all-gather output and unsharded parameters ${formatBytes(whole)}, and its ${cb} B logits`;
    }
  }
  if (onlineDpo && lmHead) {
    const ref = referenceLogps(lossPlan(ctx, T));
    refForwardBytes = ref.bytes;
    refForwardFormula =
      `${rollout!.reference === 'copy' ? 'reference model' : 'the model with its adapters disabled'}, ` +
      `no grad, ${seqs} sequences: ${ref.formula}`;
  }
  return { refForwardBytes, refForwardFormula };
}

/**
 * TRL wraps a reference copy under FSDP2 itself, as one unit over the whole model (trl/models/utils.py prepare_fsdp:
 * one fully_shard call, not Accelerate's per-layer preparation; DPO, KTO, ORPO, GRPO and RLOO alike), so its forward
 * gathers every parameter at once: the all-gather output and the unsharded parameters, each the model in the gather
 * dtype (CPU truth accelerate/llama-dpo-fsdp2-w4-full-bf16: a 7,097,344 B all-gather output and the copied-out
 * parameters through the reference's forward). 0 elsewhere.
 */
export function wholeReferenceGather(ctx: EstimateContext): number {
  const setup = ctx.setup;
  const { rollout, onlineDpo } = ctx.methods;
  const trlCopy =
    (setup.preference?.reference === 'copy' && setup.preference.logps === 'rows') ||
    (rollout !== undefined && !onlineDpo && rollout.reference === 'copy');
  const fsdp2 = ctx.sharding.fsdp && setup.fsdp_version === 2 && ctx.sharding.shardParams > 1;
  if (!trlCopy || !fsdp2) return 0;
  return 2 * (ctx.model.inventory.total / ctx.layout.tensorParallel) * ctx.dtypes.half;
}

/**
 * Online DPO runs the reference (OnlineDPOTrainer.training_step: ref_model, or the policy under disable_adapter)
 * and then the reward model without grad after the policy's forward, while its activations are held.
 * A reward model's no-grad forward over `sequences` sequences, in its own dtype (outside the training step's
 * autocast); under ZeRO-3 / FSDP one layer is gathered with the next prefetched.
 */
export function rewardForward(ctx: EstimateContext, rm: RewardModel, sequences: number): Component {
  const setup = ctx.setup;
  const tp = ctx.layout.tensorParallel;
  const shardParams = ctx.sharding.shardParams;
  const { attention } = ctx.dtypes;
  const wb = rm.weightBytes ?? ctx.dtypes.weightBytes;
  const fwd = noGradLayerBytes(rm.arch, sequences * setup.seq_len, setup.seq_len, wb, attention, tp);
  const gatheredLayers = shardParams > 1 ? 2 * rm.largestBlock * wb : 0;
  return comp(
    ctx,
    'backward-working',
    `Reward model ${rm.model}: one layer's forward over ${sequences} sequences (no grad)`,
    fwd + gatheredLayers,
    () =>
      `the layer's input, residual and norm output, and the larger of the MLP's and the attention's ` +
      `temporaries, at ${sequences} x ${setup.seq_len} tokens in ${wb} B` +
      (gatheredLayers > 0 ? `; two of its layers gathered (${formatCount(rm.largestBlock)} params each)` : ''),
    () => ({ sequences, tokens: setup.seq_len }),
  );
}

/** Online DPO: the reward models' forwards over the micro-batch, in the training step (first stage). */
export function rewardForwards(ctx: EstimateContext, st: StageContext): Component[] {
  const { onlineDpo, rewardModels } = ctx.methods;
  const lmHead = ctx.model.lmHead;
  const { first, sequences: seqs } = st;
  return onlineDpo && lmHead && first ? rewardModels.map((rm) => rewardForward(ctx, rm, seqs)) : [];
}
