// Term: FSDP1 with CPU offload copies a unit's shard to the GPU to all-gather it and keeps that copy while the unit is
// unsharded.
//   FlatParamHandle.pre_unshard moves the sharded FlatParameter to the compute device when its parameters are
//   offloaded and no parameter mixed precision casts them (torch.distributed.fsdp _flat_param.py flat_param_to), and
//   under use_orig_params=True (Accelerate's default) flat_param_to points the original nn.Parameters at that copy
//   (_use_sharded_views); the forward and backward compute with plain tensor views of the unsharded parameter
//   (_use_unsharded_views(as_params=False)), so the nn.Parameters keep the copy alive until the unit reshards and
//   views the host shard again. With use_orig_params=False nothing but the FlatParameter refers to it, and the
//   all-gather's output replaces it (H100 truth of Answer.AI's loop, llama-2-7b-lora-*-fsdp1-w2-offload). Under a
//   MixedPrecision param_dtype other than the stored dtype the 16-bit shard is made on the GPU instead
//   (_use_low_precision_shard) and freed as soon as the all-gather is done (post_unshard), so it holds nothing. The
//   root unit is unsharded from its forward to the end of the backward, so
//   its copy is there throughout; of the layer units, the one being computed:
//     shard copy = unit params / S x stored bytes.
//   GPU truth (H100, 2026-11-25): llama-3.1-8b LoRA in Accelerate's FSDP1 layout with offload at 2 ranks, the root's
//   1,050,677,248 B copy (1,050,677,248 params / 2 x 2 B) live through the forward and the backward and one layer's
//   218,112,000 B copy beside its 436,224,000 B gathered unit.
// Docs: docs/estimate/parallelism.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext } from '../estimate/context';
import { formatCount } from '../units';

/**
 * Whether FSDP1 keeps a GPU copy of each unsharded unit's shard: CPU-offloaded parameters, sharded, use_orig_params
 * (unset: true), gathered in the dtype they are stored in (`gatherBytes`, the bytes per gathered parameter).
 */
export function keepsOffloadShardCopy(ctx: EstimateContext, gatherBytes: number): boolean {
  const { fsdp, fsdpOffload, shardParams } = ctx.sharding;
  const setup = ctx.setup;
  const origParams = setup.fsdp_use_orig_params !== false;
  return (
    fsdp &&
    fsdpOffload &&
    shardParams > 1 &&
    setup.fsdp_version !== 2 &&
    origParams &&
    gatherBytes === ctx.dtypes.weightBytes
  );
}

/** The GPU copy of the shard of a unit of `unitParams` parameters, for the unit `what` names. */
export function offloadShardCopy(ctx: EstimateContext, unitParams: number, what: string): Component {
  const S = ctx.sharding.shardParams;
  const wb = ctx.dtypes.weightBytes;
  return comp(
    ctx,
    'gathered-params',
    `FSDP1 CPU offload: GPU copy of the ${what}'s shard`,
    (unitParams / S) * wb,
    () =>
      `${formatCount(unitParams)} params / ${S} x ${wb} B, copied from the host to all-gather and kept while unsharded`,
    () => ({ unitParams: Math.round(unitParams), shards: S }),
  );
}
