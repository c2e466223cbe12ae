// Term: fp32 master weights. trainable params x 4 B / optimizer shard degree, when the trainable parameters are
// stored in 16 bits and an fp32 copy is stepped (DeepSpeed's bf16 / fp16 optimizers, FSDP mixed precision with
// 16-bit storage); on the host under optimizer offload. DeepSpeed's ZeRO optimizers copy the partition they step into
// fp32 whatever the weights' dtype, so fp32 weights get the copy too. Sources: Micikevicius et al. 2018 (mixed
// precision training); DeepSpeed ZeRO paper §3 (2 + 2 + 12 bytes per parameter); deepspeed/runtime/zero/
// stage_1_and_2.py, stage3.py. Docs: docs/estimate/optimizer-states.md. Pure arithmetic.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';

/** The fp32 master copy of this stage's trainable parameters. */
export function masterWeights(ctx: EstimateContext, st: StageContext): Component[] {
  const { shardOptimizer, offloadOptimizer: offloadOpt, fsdpOffload } = ctx.sharding;
  const { masterCopy, trainableBytes } = ctx.dtypes;
  const { trainableHere } = st;
  // DeepSpeed ZeRO-1/2 clone the rank's partition into fp32 (stage_1_and_2.py single_partition_of_fp32_groups:
  // .detach().clone().to(dtype=fp32)); ZeRO-3 too (stage3.py _create_fp32_partitions: the branch that would share
  // an fp32 partition compares a torch.device with a device name string, which is never equal, so it clones).
  const zeroFp32Copy =
    !masterCopy && trainableBytes === 4 && ctx.sharding.zeroStage >= 1 && ctx.setup.optimizer !== 'none';
  if (!(masterCopy || zeroFp32Copy) || offloadOpt || fsdpOffload) return [];
  const shard = shardOptimizer > 1 ? ` / ${shardOptimizer}` : '';
  return [
    comp(
      ctx,
      'master-weights',
      zeroFp32Copy ? "ZeRO's fp32 partition (a copy of the fp32 weights)" : 'fp32 master weights',
      (trainableHere * 4) / shardOptimizer,
      () =>
        `${formatCount(trainableHere)} trainable x 4 B${shard}` +
        (zeroFp32Copy ? ': the ZeRO optimizer steps its own fp32 copy of the partition' : ''),
      () => ({ params: Math.round(trainableHere), shard: shardOptimizer }),
    ),
  ];
}
