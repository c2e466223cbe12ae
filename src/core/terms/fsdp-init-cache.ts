// Term: what FSDP1's initialisation leaves cached on the compute stream. FSDP1 builds each unit on the GPU: its
// parameters are materialised there (param_init_fn, or moved to device_id), flattened into one FlatParameter
// (torch.cat: a second full-size copy), this rank's chunk is cloned as the shard, and the full tensors are freed
// (torch/distributed/fsdp/_init_utils.py _init_param_handle_from_module, _flat_param.py
// flatten_tensors_into_flat_param, FlatParamHandle.shard); the root unit (embeddings, final norm, head) comes last.
// At the first forward each unit's padded unsharded buffer is allocated and freed once more on that stream
// (FlatParamHandle.init_flat_param_attributes: _full_param_padded, then _free_storage); later unshards allocate it on
// the unshard stream. The blocks these frees leave stay in the compute stream's pool: the step's own allocations reuse
// them, so they add to reserved only where the compute stream holds less than they cover. Replayed through the
// caching-allocator model (terms/allocator.ts). FSDP2 shards parameters in place (fully_shard on meta or a module
// built on the host) and is not counted. Docs: docs/estimate/runtime.md. Pure arithmetic; no I/O.
import type { EstimateContext } from '../estimate/context';
import { type Allocation, CachingAllocator } from './allocator';
import { memo } from '../util/memo';
import { quantBytesPerParam, unshardedConstantsPerParam } from './quantization';
import { fsdpMixedPrecision } from './activations/stage';

/** One FSDP1 initialisation, in bytes per tensor: a decoder-layer unit and the root unit, and how they are sharded. */
export interface FsdpInitUnits {
  /** The tensors of one decoder-layer unit as materialised (storage dtype), in bytes. */
  readonly layer: readonly number[];
  /** The root unit's tensors (embeddings, head, final norm): what the per-layer wrapping leaves over. */
  readonly root: readonly number[];
  /** Bytes per element of the unsharded buffer at the first forward over bytes per element as stored. */
  readonly unshardedRatio: number;
  /** Ranks a unit is sharded over (1: NO_SHARD, whose flat parameter stays whole). */
  readonly shards: number;
  /** CPUOffload(offload_params=True): each shard goes to the host once built, freeing its GPU copy. */
  readonly offload: boolean;
}

/** Layer units replayed: from the second on, every unit reuses the blocks the one before it freed. */
const REPLAYED_UNITS = 2;

const total = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

/**
 * The bytes cached in free blocks after FSDP1's initialisation and first-forward setup (the allocator replay),
 * memoized: the advice search asks for the same units again and again.
 */
export const initCacheBytes = memo(replayInit, {
  key: (u) => `${u.layer.join(',')}|${u.root.join(',')}|${u.unshardedRatio}|${u.shards}|${+u.offload}`,
  limit: 256,
});

/**
 * One unit's build on the compute stream: its tensors materialised, flattened into one tensor, this rank's chunk cloned
 * as the shard, the full tensors freed; under CPU offload the shard goes to the host.
 */
export function buildUnit(allocator: CachingAllocator, tensors: readonly number[], u: FsdpInitUnits): void {
  const params = tensors.filter((b) => b > 0).map((b) => allocator.malloc(b));
  shardUnit(allocator, params, total(tensors), u);
}

/**
 * A unit's tensors, already on the GPU, flattened into one tensor of `bytes`, this rank's chunk cloned as the shard,
 * the flat copy and the tensors freed; under CPU offload the shard goes to the host.
 */
export function shardUnit(
  allocator: CachingAllocator,
  params: readonly Allocation[],
  bytes: number,
  u: Pick<FsdpInitUnits, 'shards' | 'offload'>,
): void {
  const flat = allocator.malloc(bytes);
  const shard = allocator.malloc(Math.ceil(bytes / u.shards));
  allocator.free(flat);
  for (const p of params) allocator.free(p);
  if (u.offload) allocator.free(shard);
}

function replayInit(u: FsdpInitUnits): number {
  const allocator = new CachingAllocator();
  for (let i = 0; i < REPLAYED_UNITS; i++) buildUnit(allocator, u.layer, u);
  buildUnit(allocator, u.root, u);
  // The first forward's lazy initialisation: each unit's padded unsharded buffer, allocated and freed.
  if (u.shards > 1)
    for (const tensors of [u.root, u.layer]) allocator.free(allocator.malloc(total(tensors) * u.unshardedRatio));
  return allocator.cachedBelow(Number.MAX_SAFE_INTEGER);
}

/**
 * FSDP1's root unit: the root module's own parameters in module order, the embeddings, the final norm and the untied
 * head, in elements on this tensor-parallel rank (none that is empty).
 */
export function rootUnitElements(ctx: EstimateContext): number[] {
  const { embedding, finalNorm, head } = ctx.model.inventory;
  const tp = ctx.layout.tensorParallel;
  return [embedding / tp, finalNorm, head / tp].filter((p) => p > 0);
}

/**
 * The FSDP1 units of this run, or undefined where FSDP1 does not build units on the GPU (no FSDP, FSDP2, ZeRO).
 * A decoder layer's tensors are its linear weights (the per-layer modules' in x out, quantized ones in their packed
 * bytes as FSDP-QLoRA stores them) and the rest of the unit as one tensor; the root has the embeddings, the final norm
 * and the head (the root module's own parameters in module order).
 */
export function fsdpInitUnits(ctx: EstimateContext, blockUnitParams: number): FsdpInitUnits | undefined {
  const { setup, effectiveSetup: effSetup } = ctx;
  const { fsdp, zeroStage, shardParams, fsdpOffload } = ctx.sharding;
  if (!fsdp || zeroStage > 0 || setup.fsdp_version === 2 || blockUnitParams <= 0) return undefined;
  const { arch: a, modules: mods } = ctx.model;
  const tp = ctx.layout.tensorParallel;
  const { weightBytes: wb, half } = ctx.dtypes;
  const q = effSetup.quantization;
  // FSDP-QLoRA keeps bitsandbytes' packed codes in a 16-bit storage; the constants live on the module, not here.
  const linearBytes = q ? quantBytesPerParam(q, setup.torchao_version).bytes - unshardedConstantsPerParam(q) : wb;
  const layer: number[] = [];
  let linearParams = 0;
  for (const m of mods) {
    if (m.layerKind !== undefined) continue;
    const perLayer = Math.round(m.count / Math.max(1, a.layers));
    const params = (m.inFeatures * m.outFeatures) / tp;
    if (perLayer <= 0) continue;
    if (m.parameter) layer.push(perLayer * params * linearBytes);
    else for (let i = 0; i < perLayer; i++) layer.push(params * linearBytes);
    linearParams += perLayer * params;
  }
  const rest = Math.max(0, blockUnitParams - linearParams);
  if (rest > 0) layer.push(rest * wb);
  const root = rootUnitElements(ctx).map((p) => p * wb);
  return {
    layer,
    root,
    unshardedRatio: !q && fsdpMixedPrecision(ctx) ? half / wb : 1,
    shards: Math.max(1, shardParams),
    offload: fsdpOffload,
  };
}
