// Term: fp32 master weights. trainable params x 4 B / optimizer shard degree, when the trainable parameters are
// stored in 16 bits and an fp32 copy is stepped (DeepSpeed's bf16 / fp16 optimizers, FSDP mixed precision with
// 16-bit storage); on the host under optimizer offload. Sources: Micikevicius et al. 2018 (mixed precision training);
// DeepSpeed ZeRO paper §3 (2 + 2 + 12 bytes per parameter). Docs: docs/estimate/optimizer-states.md. Pure arithmetic.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';

/** The fp32 master copy of this stage's trainable parameters. */
export function masterWeights(ctx: EstimateContext, st: StageContext): Component[] {
  const { shardOptimizer, offloadOptimizer: offloadOpt, fsdpOffload } = ctx.sharding;
  const { masterCopy } = ctx.dtypes;
  const { trainableHere } = st;
  const persistent: Component[] = [];
  // fp32 master copy (DeepSpeed bf16/fp16 optimizer, FSDP mixed precision with 16-bit storage).
  if (masterCopy && !offloadOpt && !fsdpOffload) {
    persistent.push(
      comp(
        ctx,
        'master-weights',
        'fp32 master weights',
        (trainableHere * 4) / shardOptimizer,
        () => `${formatCount(trainableHere)} trainable x 4 B${shardOptimizer > 1 ? ` / ${shardOptimizer}` : ''}`,
        () => ({ params: Math.round(trainableHere), shard: shardOptimizer }),
      ),
    );
  }
  return persistent;
}
