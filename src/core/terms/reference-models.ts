// Term: frozen models beside the trained one. Their weights per GPU, sharded as the policy's:
//   teacher (distillation) params x its load dtype, the reference copy (DPO, GRPO with beta > 0) = the model's weights
//   again, each reward model params x the policy's load dtype; offloaded with the policy's parameters.
// Sources: TRL create_reference_model, GKDTrainer, GRPOTrainer (trl/trainer/grpo_trainer.py); LLaMA-Factory
// create_ref_model; torchtune's KD recipes. Docs: docs/estimate/preference-and-rl.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';
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
    const stored = setup.distillation!.teacher_architecture.torch_dtype ?? setup.distillation!.teacher_architecture.dtype;
    const teacherBytes = setup.distillation!.loss !== 'jsd' ? wb : olderThan(setup.transformers_version, 5, 0) ? 4 : stored === 'bfloat16' || stored === 'float16' ? 2 : 4;
    persistent.push(comp(ctx, 'weights', 'Teacher model weights (frozen, distillation)', (teacher.params * teacherBytes) / (offloadParams || fsdpOffload ? Infinity : shardParams),
      () => (offloadParams || fsdpOffload ? 'offloaded to host memory with the student\'s parameters' : `${setup.distillation!.teacher_model ?? teacher.arch.family} ${formatCount(teacher.params)} params x ${teacherBytes} B${shardParams > 1 ? ` / ${shardParams} (sharded)` : ''}`),
      () => ({ params: teacher.params, shard: shardParams })));
  }
  if (setup.preference?.reference === 'copy' || rollout?.reference === 'copy') {
    // A frozen copy of the model (TRL create_reference_model, LLaMA-Factory create_ref_model), loaded and sharded as
    // the policy is (TRL prepares it with the same DeepSpeed ZeRO-3 / FSDP setup, offload included), without
    // gradients, optimizer state or adapters.
    const quantRef = quantHere > 0 && effSetup.quantization ? quantHere * quantBytesPerParam(effSetup.quantization, setup.torchao_version).bytes : 0;
    const refBytes = (modelBytes + quantRef) / (offloadParams || fsdpOffload ? Infinity : shardParams);
    persistent.push(comp(ctx, 'weights', 'Reference model weights (frozen copy)', refBytes, () => (offloadParams || fsdpOffload ? 'offloaded to host memory with the policy\'s parameters'
      : `the model's weights again: ${formatCount(unquantizedParams + quantHere)} params${shardParams > 1 ? ` / ${shardParams} (sharded)` : ''}`), () => ({ params: Math.round(unquantizedParams + quantHere), shard: shardParams })));
  }
  // GRPOTrainer loads each reward model with the policy's model_init_kwargs (its dtype) and prepares it like the
  // reference: sharded under ZeRO-3 / FSDP, a whole copy on every GPU otherwise (trl/trainer/grpo_trainer.py).
  if (first) {
    for (const rm of rewardModels) {
      persistent.push(comp(ctx, 'weights', `Reward model weights (${rm.model}, frozen)`, (rm.params * wb) / (offloadParams || fsdpOffload ? Infinity : shardParams),
        () => (offloadParams || fsdpOffload ? 'offloaded to host memory with the policy\'s parameters' : `${formatCount(rm.params)} params (sequence classifier, 1 label) x ${wb} B, the policy's load dtype${shardParams > 1 ? ` / ${shardParams} (sharded)` : ''}`),
        () => ({ params: rm.params, shard: shardParams })));
    }
  }
  return persistent;
}
