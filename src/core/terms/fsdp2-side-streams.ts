// Term: what FSDP2's side streams keep cached where its step replay (terms/fsdp2-step-cache.ts) does not run (MoE
// layers, activation offloading, ...). 1. The all-gather inputs FSDP2 makes on its copy-in stream beside a unit's
// all-gather output. foreach_all_gather
// (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py) builds the inputs under `all_gather_copy_in_stream`:
// with CPU offload each shard is copied to the GPU (FSDPParam.all_gather_inputs: `.to(device, non_blocking=True)`)
// and cast to the gather dtype when it is stored in another, the copy freed once cast; without offload, shards stored
// in another dtype than the gather's are cast in one flat tensor; shards already in the gather dtype are copied into
// the output in place. The inputs are freed once the all-gather is issued, but their blocks stay in that stream's
// pool. The root unit's output is held to the first layer's copy-out (AllGatherState), so the first layer is gathered
// beside it. 2. Under CPU offload, each unit's reduce-scatter output and its cast to the parameters' dtype
// (foreach_reduce: `reduce_output` allocated in the RS stream, `.to(orig_dtype)` there), which are copied to the host
// and freed ("the GPU sharded gradient is allocated in the RS stream, we can free it here"): their blocks stay in that
// stream's pool. The replay makes the same requests one by one (allGather, postBackward). Pure arithmetic.
// Docs: docs/estimate/runtime.md
import type { EstimateContext } from '../estimate/context';
import { formatCount } from '../units';
import { fsdpStepReplayed } from './step-replay';

/** What FSDP2's copy-in stream holds for one unit's all-gather besides its output, and for the root's. */
export interface Fsdp2CopyIn {
  /** A layer unit's inputs: its shards cast (or copied) in the gather dtype, in bytes. */
  readonly layer: number;
  /** The root unit's inputs, in bytes (0 without a root unit). */
  readonly root: number;
  /** The root unit's all-gather output, held while the first layer is gathered, in bytes. */
  readonly rootOutput: number;
}

/** The sharded parameters' bytes per element as FSDP2 keeps them: the fp32 master under mixed precision, else as loaded. */
export function fsdp2StorageBytes(ctx: EstimateContext): number {
  return ctx.setup.method === 'full' && ctx.dtypes.fsdpMaster ? 4 : ctx.dtypes.weightBytes;
}

/**
 * The copy-in stream's inputs of one all-gather of `params` parameters gathered at `gatherBytes` each, over `world`
 * ranks: under CPU offload every shard (cast when stored in another dtype), else the flat cast of such shards. A unit
 * gathered as stored (4/8-bit codes, fp8 weights: `cast` false) is copied, never cast.
 */
export function copyInBytes(
  ctx: EstimateContext,
  unit: { readonly params: number; readonly gatherBytes: number; readonly castable: boolean },
  world: number,
): number {
  const storage = fsdp2StorageBytes(ctx);
  const shard = Math.ceil(unit.params / Math.max(1, world));
  const cast = unit.castable && storage !== unit.gatherBytes;
  if (ctx.sharding.fsdpOffload) return shard * (cast ? unit.gatherBytes : storage);
  return cast ? shard * unit.gatherBytes : 0;
}

/**
 * FSDP2's copy-in inputs for a layer unit and for the root unit of `rootParams` (0: none), which is gathered in the
 * compute dtype; zero outside FSDP2's FULL_SHARD.
 */
export function fsdp2CopyIn(
  ctx: EstimateContext,
  unit: { readonly params: number; readonly gatherBytes: number; readonly castable: boolean },
  rootParams: number,
): Fsdp2CopyIn {
  if (!ctx.sharding.fsdp || ctx.setup.fsdp_version !== 2 || ctx.setup.fsdp !== 'full_shard')
    return { layer: 0, root: 0, rootOutput: 0 };
  const world = ctx.sharding.shardParams;
  const half = ctx.dtypes.half;
  return {
    layer: copyInBytes(ctx, unit, world),
    root: rootParams > 0 ? copyInBytes(ctx, { params: rootParams, gatherBytes: half, castable: true }, world) : 0,
    rootOutput: rootParams * half,
  };
}

/**
 * Whether the all-gather pool holds FSDP2's copy-in inputs here: FULL_SHARD without the step replay (which makes them
 * itself), with shards to copy from the host or to cast. Also the words that say so in the pool's formula.
 */
export function fsdp2CopyInPooled(ctx: EstimateContext): string | undefined {
  const { setup, sharding, dtypes } = ctx;
  if (!sharding.fsdp || setup.fsdp_version !== 2 || setup.fsdp !== 'full_shard') return undefined;
  if (fsdpStepReplayed(ctx, { hasLoss: true })) return undefined;
  const storage = fsdp2StorageBytes(ctx);
  if (!sharding.fsdpOffload && storage === dtypes.half) return undefined;
  const how = sharding.fsdpOffload
    ? `copied from the host${storage !== dtypes.half ? ` and cast from ${storage} to ${dtypes.half} B` : ''}`
    : `cast from ${storage} to ${dtypes.half} B`;
  return (
    `of what FSDP2's all-gather (copy-in) stream holds at once: the layer units gathered (current + prefetch) with ` +
    `the inputs of the one being gathered (each shard ${how}), or the root unit's gather and inputs, its output held ` +
    `while the first layer is gathered`
  );
}

/**
 * Under FSDP2's CPU offload, where the replay does not run: the bytes one unit's reduce-scatter leaves cached in the
 * reduce-scatter stream's pool, its output in the gather dtype and the cast to the stored dtype when they differ, for
 * `trained` elements of the unit; 0 elsewhere.
 */
export function fsdp2OffloadReduceScatter(ctx: EstimateContext, trained: number): number {
  const { setup, sharding, dtypes } = ctx;
  if (!sharding.fsdp || !sharding.fsdpOffload || setup.fsdp_version !== 2 || setup.fsdp !== 'full_shard') return 0;
  if (fsdpStepReplayed(ctx, { hasLoss: true })) return 0;
  const shard = Math.ceil(trained / Math.max(1, sharding.shardGrads));
  const storage = trainedStorageBytes(ctx);
  return shard * dtypes.half + (storage !== dtypes.half ? shard * storage : 0);
}

/** The trained parameters' bytes per element as FSDP2 keeps them: a full fine-tune's shards, else the adapters. */
const trainedStorageBytes = (ctx: EstimateContext): number =>
  ctx.setup.method === 'full' ? fsdp2StorageBytes(ctx) : ctx.dtypes.trainableBytes;

/** The formula of fsdp2OffloadReduceScatter for `trained` elements of a unit. */
export function fsdp2OffloadReduceScatterFormula(ctx: EstimateContext, trained: number): string {
  const { half } = ctx.dtypes;
  const storage = trainedStorageBytes(ctx);
  const shard = Math.ceil(trained / Math.max(1, ctx.sharding.shardGrads));
  return (
    `one unit's reduce-scatter output, ${formatCount(shard)} gradient elements x ${half} B` +
    `${storage !== half ? ` and its cast to ${storage} B` : ''}, copied to the host under CPU offload and freed: ` +
    `reusable only by FSDP's reduce-scatter stream`
  );
}
