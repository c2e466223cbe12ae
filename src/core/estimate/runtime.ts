// Runtime terms outside PyTorch's allocated bytes: the caching allocator's reserve, the CUDA context, NCCL's buffers,
// FSDP's reduce-scatter and all-gather stream pools, segments a model load left cached, and paged optimizer state in CUDA unified
// memory; they turn the peak allocated bytes into what the driver reports. Where the two-step allocator replay stands for
// the setup (terms/two-step-cache.ts), its reserved bytes replace the allocator's terms. Sources: c10/cuda/CUDACachingAllocator.cpp,
// NCCL docs (NCCL_BUFFSIZE), bitsandbytes functional.py get_paged, torch/distributed/fsdp/_fully_shard.
// Docs: docs/estimate/runtime.md. Pure.
import { forwardCacheTerm, type StageForward } from '../terms/forward-cache';
import { logitsBlock, type LogitsBlock } from '../terms/logits-block';
import { type TwoStepReserve, twoStepReplayed, twoStepReserve } from '../terms/two-step-cache';
import { zeroReplayed, zeroStepReserve } from '../terms/zero-step-cache';
import { fsdp1Plan, fsdp1StepReserve } from '../terms/fsdp1-step-cache';
import { bnbLoadModel, bnbLoadReplay } from '../terms/bnb-load';
import { fsdp2StepCacheTerm } from '../terms/fsdp2-step-cache';
import { lossSegments } from '../terms/loss-segments';
import { smallPoolTerm } from '../terms/small-pool';
import { kbitSetupCacheTerm } from '../terms/kbit-setup-cache';
import { ncclBuffers, nvlsBuffers, processes, singleRankNccl } from '../terms/nccl';
import { keepsRecomputedFrozen } from '../terms/zero3-recompute-kept';
import { fsdpInitUnits, initCacheBytes } from '../terms/fsdp-init-cache';
import type { PhaseEstimate, RuntimeTerm } from '../model';
import { RESERVED_RUNTIME_IDS } from '../model';
import { zero3GatherStream, zero3LaunchLeadTerm } from '../terms/zero3-launch-lead';
import { optimizerStateBytes } from '../terms/optimizer-states';
import { formatBytes, formatCount, MiB } from '../units';
import { olderThan } from '../util/version';
import { PERSISTENT_IDS, runtimeTerm, usableGpuBytes } from './component';
import type { EstimateContext, ModelLoad } from './context';
import { LOSS_BACKWARD_NOTE, type StreamPoolLedger } from './phases';
import {
  fsdp2CopyInPooled,
  fsdp2OffloadReduceScatter,
  fsdp2OffloadReduceScatterFormula,
} from '../terms/fsdp2-side-streams';

/**
 * Device memory a training process uses outside PyTorch's caching allocator, per process: the CUDA context, the
 * cuBLAS / cuBLASLt handles and the kernel modules loaded lazily (CUDA >= 11.7) by the forward, backward and AdamW
 * step. GPU truth (tools/truth/gpu, H100 80GB, driver 580, CUDA 13.0, torch 2.11): device memory in use less
 * max_memory_reserved after the second training step is 766.8 MiB for 89 single-process SDPA points, 750.8 MiB
 * with eager attention (no flash kernel loaded), 836.8 MiB with a process group; the context alone, before any
 * kernel runs, is 526.8 MiB.
 */
export const DEFAULT_CUDA_CONTEXT_BYTES = 768 * MiB;
/**
 * PyTorch before 1.13 loads every kernel of its CUDA libraries when it makes the context: from 1.13 it sets
 * CUDA_MODULE_LOADING=LAZY unless the user does (pytorch/pytorch#86509, measured there at 287 MB lazy against 667 MB
 * for one small tensor). Hugging Face's "Model training anatomy" measures 1,343 MB in use after moving a one-element
 * tensor to a V100 with PyTorch 1.10.
 */
export const EAGER_CUDA_CONTEXT_BYTES = 1343 * MiB;

/** The CUDA context a run's PyTorch release makes when the files do not say: eager module loading before 1.13. */
export function defaultCudaContextBytes(setup: { readonly pytorch_version?: string }): number {
  return olderThan(setup.pytorch_version, 1, 13) ? EAGER_CUDA_CONTEXT_BYTES : DEFAULT_CUDA_CONTEXT_BYTES;
}
/** The CUDA context of a run: the setup's own figure, else its PyTorch release's (defaultCudaContextBytes). */
export function cudaContextBytes(setup: {
  readonly cuda_context_bytes?: number;
  readonly pytorch_version?: string;
}): number {
  return setup.cuda_context_bytes ?? defaultCudaContextBytes(setup);
}

/** Share of the memory allocated and freed every step that the caching allocator cannot hand back out (docs/estimate/runtime.md). */
export const ALLOCATOR_FRAGMENTATION = 0.05;

/** The step's high point and what the model load left (estimate/stage.ts, terms/nf4-load.ts). */
export interface StepPeak {
  /** The highest phase of the training step, and of the step or the load. */
  readonly stepPeak: PhaseEstimate;
  readonly peak: PhaseEstimate;
  /** A load phase and the segments it leaves (terms/nf4-load.ts, terms/zero3-module-to-device.ts). */
  readonly modelLoad: ModelLoad | undefined;
  readonly poolsAtPhase: StreamPoolLedger | undefined;
  readonly contextBytes: number;
  /** The busiest stage's block forward, for the allocator replay (terms/forward-cache.ts). */
  readonly forward: StageForward;
}

/**
 * Which stream pools apply: FSDP's reduce-scatter pool of gradient shards (sharded gradients that live on the GPU and
 * are freed by zero_grad), the all-gather pool of unsharded layer units (FSDP FULL_SHARD / HYBRID_SHARD), and ZeRO-3's
 * all-gather stream with overlap_comm, its default at stage 3 (partitioned_param_coordinator.py
 * __all_gather_params_: the gathered buffers are allocated under `get_accelerator().stream(self.__allgather_stream)`).
 */
export function sideStreamPools(ctx: EstimateContext): { reduceScatter: boolean; allGather: boolean } {
  const { fsdp, shardGrads, shardParams, fsdpOffload } = ctx.sharding;
  return {
    reduceScatter: fsdp && shardGrads > 1 && !fsdpOffload && !ctx.setup.optimizer_in_backward,
    allGather: (fsdp && shardParams > 1 && ctx.setup.fsdp !== 'shard_grad_op') || zero3GatherStream(ctx),
  };
}

/** FSDP's stream pools beside the compute stream's peak, in bytes, with their formulas. */
interface StreamPoolBytes {
  reduceScatter: number;
  allGather: number;
  initCache: number;
  reduceScatterFormula: string;
  allGatherFormula: string;
  initCacheFormula: string;
}

/** No stream pool beside the compute stream's (frozen, shared). */
const NO_POOLS: StreamPoolBytes = Object.freeze({
  reduceScatter: 0,
  allGather: 0,
  initCache: 0,
  reduceScatterFormula: '',
  allGatherFormula: '',
  initCacheFormula: '',
});

/**
 * FSDP reduce-scatters gradients on its own stream, and the sharded gradients are allocated there ("The RS output is
 * allocated in the RS stream", torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py). The unsharded layer units
 * are views of all-gather outputs allocated on FSDP's all-gather streams (FSDP2 foreach_all_gather:
 * all_gather_comm.allocate under all_gather_copy_in_stream; FSDP1 FlatParamHandle._full_param_padded, filled in the
 * unshard stream, _flat_param.py / _runtime_utils.py). Blocks freed on one stream are reused only by that stream
 * (CUDA caching allocator): after zero_grad(set_to_none) the gradient shards stay reserved in the reduce-scatter pool,
 * and once a unit is resharded its blocks stay in the all-gather pool (the units gathered at once: current +
 * prefetch). Reserved memory peaks where the compute stream's allocation plus what the pools keep beside it is
 * highest, which need not be the allocated peak: at the loss every layer unit is resharded.
 */
function streamPools(ctx: EstimateContext, step: StepPeak): StreamPoolBytes {
  const inv = ctx.model.inventory;
  const tp = ctx.layout.tensorParallel;
  const shardGrads = ctx.sharding.shardGrads;
  const gradBytes = ctx.dtypes.gradBytes;
  const ledger = step.poolsAtPhase;
  if (!ledger) return NO_POOLS;
  const on = sideStreamPools(ctx);
  // A 4-bit model loaded whole and then sharded is built by its load (terms/bnb-load.ts, the load-cache term).
  const units = bnbLoadModel(ctx) ? undefined : fsdpInitUnits(ctx, inv.largestBlock);
  const initCached = units ? initCacheBytes(units) : 0;
  const shardGradBytes = on.reduceScatter ? Math.round((inv.trainable * gradBytes) / (tp * shardGrads)) : 0;
  // Under FSDP2's CPU offload the gradient shards go to the host; one unit's reduce-scatter blocks stay cached.
  const offloadReduce = fsdp2OffloadReduceScatter(ctx, unitTrained(ctx));
  const capacity = on.allGather ? Math.round(ledger.unitCapacity) : 0;
  // The point where allocated + pooled is highest: the step's allocated peak first (a phase with no point recorded,
  // evaluation or generation, holds neither gradients nor units of the training step), then every high point.
  const points = ledger.points.some((p) => p.phase === step.stepPeak)
    ? ledger.points
    : [
        { phase: step.stepPeak, allocated: step.stepPeak.allocatedBytes, grads: 0, units: 0, persistent: 0, root: 0 },
        ...ledger.points,
      ];
  let best = { phase: step.stepPeak, rs: 0, ag: 0, ic: 0, working: 0, total: -1 };
  // ZeRO-3's head is fetched like any module, into the same pool: what the pool holds beside it is the rest.
  const zero3 = zero3GatherStream(ctx);
  for (const p of points) {
    const rs = Math.max(0, shardGradBytes - Math.round(p.grads)) + offloadReduce;
    const ag = Math.max(0, capacity - Math.round(p.units) - (zero3 ? Math.round(p.root) : 0));
    // What the compute stream holds beyond the model states: the step's own allocations, which reuse the blocks
    // FSDP1's initialisation left there (terms/fsdp-init-cache.ts) before asking for new segments.
    const working = Math.max(0, p.allocated - p.persistent - p.units - p.root - p.grads);
    const ic = Math.max(0, initCached - working);
    const total = p.allocated + rs + ag + ic;
    if (total > best.total) best = { phase: p.phase, rs, ag, ic, working, total };
  }
  const extra = Math.max(0, best.total - step.stepPeak.allocatedBytes);
  const reduceScatter = Math.min(best.rs, extra);
  const allGather = Math.min(best.ag, extra - reduceScatter);
  const initCache = extra - reduceScatter - allGather;
  if (ctx.lean)
    return {
      reduceScatter,
      allGather,
      initCache,
      reduceScatterFormula: '',
      allGatherFormula: '',
      initCacheFormula: '',
    };
  return {
    reduceScatter,
    allGather,
    initCache,
    initCacheFormula:
      `${formatBytes(initCache)} of the ${formatBytes(initCached)} that FSDP1's initialisation left cached on the compute ` +
      `stream (each unit materialised, flattened with torch.cat and sharded on the GPU, the root last: allocator ` +
      `replay), beyond the ${formatBytes(best.working)} the step's own allocations hold there (${best.phase.phase})`,
    reduceScatterFormula: offloadReduce
      ? fsdp2OffloadReduceScatterFormula(ctx, unitTrained(ctx))
      : `${formatCount(reduceScatter / gradBytes)} gradient elements x ${gradBytes} B (of ` +
        `the ${formatCount(inv.trainable / (tp * shardGrads))} shards allocated on FSDP's ` +
        `reduce-scatter stream, those not allocated at that point): freed by zero_grad but ` +
        `reusable only by that stream`,
    allGatherFormula:
      `${formatBytes(allGather)}${allGather < capacity - 1 ? ` of the ${formatBytes(capacity)}` : ''} ` +
      (zero3
        ? `that ZeRO-3's all-gather stream (overlap_comm) holds at most (the gathered parameters and a prefetch's ` +
          `flat buffer${keptAfterBackward(ctx)}), reusable only by that stream, beyond what is gathered where the ` +
          `compute stream's memory and the pool are highest together (${best.phase.phase})`
        : `${fsdp2CopyInPooled(ctx) ?? "of layer units gathered at once (current + prefetch) on FSDP's all-gather stream"}, ` +
          `reusable only by that stream, beside the compute stream's memory where their sum is highest (${best.phase.phase})`),
  };
}

/** The elements one layer unit trains: the whole unit in a full fine-tune, its adapters otherwise. */
function unitTrained(ctx: EstimateContext): number {
  const { inventory: inv, arch } = ctx.model;
  const tp = ctx.layout.tensorParallel;
  return (ctx.setup.method === 'full' ? inv.largestBlock : inv.trainable / Math.max(1, arch.layers)) / tp;
}

/** The most the all-gather stream's pool holds (its units and flat buffers), in bytes; 0 without the pool. */
const poolCapacity = (step: StepPeak): number => Math.round(step.poolsAtPhase?.unitCapacity ?? 0);

/** What a reentrant backward leaves on ZeRO-3's all-gather stream, where the release keeps it (zero3-recompute-kept.ts). */
function keptAfterBackward(ctx: EstimateContext): string {
  if (!keepsRecomputedFrozen(ctx.setup)) return '';
  return '; after a reentrant backward every frozen layer and an untied input embedding, which its hook gathers last';
}

/** The all-gather stream's pool beside the compute stream's peak (FSDP's unsharded units, ZeRO-3's gathers). */
function allGatherPoolTerm(ctx: EstimateContext, pools: StreamPoolBytes): RuntimeTerm | undefined {
  if (pools.allGather <= 0) return undefined;
  return {
    id: 'all-gather-pool',
    label: zero3GatherStream(ctx)
      ? "Gathered parameters cached in ZeRO-3's all-gather stream pool"
      : 'Unsharded layer units cached in the all-gather stream pool',
    bytes: pools.allGather,
    formula: ctx.lean ? '' : pools.allGatherFormula,
  };
}

/** The runtime terms outside the allocator's reserved bytes (CUDA context, NCCL, paged state). */
const outsideReserved = (runtime: readonly RuntimeTerm[]): number =>
  runtime.filter((r) => !RESERVED_RUNTIME_IDS.has(r.id)).reduce((s, r) => s + r.bytes, 0);

/**
 * The blocks FSDP1's initialisation left cached (terms/fsdp-init-cache.ts), as far as the GPU has room for them: whole
 * free segments are what the caching allocator releases (release_cached_blocks) before it reports out of memory, so on
 * a chosen GPU they count only up to what the rest leaves free, and never decide the fit.
 */
function fsdpInitCacheTerm(
  ctx: EstimateContext,
  pools: StreamPoolBytes,
  reservedSoFar: number,
  outside: number,
): RuntimeTerm | undefined {
  if (pools.initCache <= 0) return undefined;
  const usable = usableGpuBytes(ctx);
  const room = Math.max(0, usable - reservedSoFar - outside);
  const bytes = Math.min(pools.initCache, room);
  return runtimeTerm(
    ctx,
    'fsdp-init-cache',
    "Blocks FSDP1's initialisation left cached",
    bytes,
    () =>
      pools.initCacheFormula +
      (bytes < pools.initCache
        ? `; ${formatBytes(bytes)} of them fit beside the rest, the allocator frees the others`
        : ''),
  );
}

/** What the driver reports for one GPU: the runtime terms and the totals they make. */
export interface RuntimeTotals {
  readonly runtime: RuntimeTerm[];
  readonly peakBytes: number;
  readonly reservedBytes: number;
  readonly deviceBytes: number;
  readonly loadCache: number;
  readonly pagedBytes: number;
  readonly pagedWorking: number;
  readonly pagedResident: number;
  /** A step replay was skipped (EstimateOptions.reservedLowerBound): reserved and device bytes are lower bounds. */
  readonly reservedLowerBound?: true;
}

/** What the cached terms of the compute stream's peak start from. */
interface CachedBase {
  readonly ctx: EstimateContext;
  readonly step: StepPeak;
  /** Whether the peak is in the loss's backward. */
  readonly atLoss: boolean;
  readonly pools: StreamPoolBytes;
  /** The peak's allocated bytes and the flat reserve. */
  readonly allocated: number;
  /** Bytes outside the allocator (CUDA context, NCCL). */
  readonly outside: number;
}

/** The cached terms, what the allocator then reserves, and the segments the model's load left cached. */
interface CachedTerms {
  readonly terms: RuntimeTerm[];
  readonly reservedBytes: number;
  readonly loadCache: number;
  /** FSDP2's replay ran its first micro-batch only (EstimateContext.firstMicroBatch): reservedBytes is a lower bound. */
  readonly partial: boolean;
}

/** Whether `deviceBytes` is more than the chosen GPU holds (beyond its headroom); never without a GPU. */
function exceedsGpu(ctx: EstimateContext, deviceBytes: number): boolean {
  return ctx.gpu !== undefined && deviceBytes > ctx.gpu.memoryBytes * (1 - ctx.headroomFraction);
}

/**
 * The blocks held in the allocator beside the compute stream's peak: the stream pools, the loss's cached blocks, the
 * load's and FSDP1 initialisation's segments, the two-step replays. With `released`, the 16-bit logits' block the GPU
 * had no room for: a whole free segment, which the caching allocator frees (release_cached_blocks) when a request
 * finds no room on the device, before it reports out of memory (c10/cuda/CUDACachingAllocator.cpp malloc).
 */
function cachedTerms(base: CachedBase, block: LogitsBlock | undefined, released?: ReleasedBlock): CachedTerms {
  const { ctx, step, atLoss, pools, allocated } = base;
  const terms: RuntimeTerm[] = [];
  if (block) {
    terms.push({
      id: 'logits-block',
      label: `${block.name[0].toUpperCase()}${block.name.slice(1)}, cached at the loss backward`,
      bytes: block.bytes,
      formula: block.formula,
    });
  }
  if (released) {
    terms.push({
      id: 'logits-block',
      label: `${released.block.name[0].toUpperCase()}${released.block.name.slice(1)}, released: the GPU is full`,
      bytes: released.before,
      formula: ctx.lean
        ? ''
        : `${formatBytes(released.block.bytes)} would be cached at the loss backward, past the ` +
          `${ctx.gpu ? formatBytes(ctx.gpu.memoryBytes) : ''} GPU less its headroom: the loss backward's ` +
          `${formatBytes(released.block.request)} fp32 buffer finds no room, and the caching allocator frees the whole ` +
          'free segments (release_cached_blocks) and retries before it reports out of memory' +
          (released.before > 0
            ? `; max_memory_reserved keeps the level before that request, with ${formatBytes(released.before)} of ` +
              'the block still cached'
            : ''),
    });
  }
  const forwardCache = atLoss ? forwardCacheTerm(ctx, step.forward) : undefined;
  if (forwardCache) terms.push(forwardCache);
  const smallPool = atLoss ? smallPoolTerm(ctx, step.forward) : undefined;
  if (smallPool) terms.push(smallPool);
  let heldBeside =
    pools.reduceScatter +
    pools.allGather +
    (block?.bytes ?? 0) +
    (released?.before ?? 0) +
    (forwardCache?.bytes ?? 0) +
    (smallPool?.bytes ?? 0);
  const kept =
    step.peak === step.stepPeak && !atLoss
      ? lossSegments(ctx, step.forward, allocated + heldBeside, pools.reduceScatter + pools.allGather)
      : undefined;
  if (kept) {
    terms.push(kept);
    heldBeside += kept.bytes;
  }
  const loadCache =
    loadCacheTerm(ctx, step, allocated + heldBeside) ??
    bnbLoadCacheTerm(ctx, allocated + heldBeside, base.outside) ??
    kbitSetupCacheTerm(ctx, step.stepPeak, allocated + heldBeside, base.outside + (pagedState(ctx)?.pagedWorking ?? 0));
  if (loadCache) terms.push(loadCache);
  const loadBytes = loadCache?.bytes ?? 0;
  const initCache = fsdpInitCacheTerm(ctx, pools, allocated + heldBeside + loadBytes, base.outside);
  if (initCache) terms.push(initCache);
  const beforeTwoSteps = allocated + heldBeside + loadBytes + (initCache?.bytes ?? 0);
  const twoSteps = fsdp2StepCacheTerm(ctx, step.forward, beforeTwoSteps, base.outside);
  if (twoSteps?.term) terms.push(twoSteps.term);
  return {
    terms,
    reservedBytes: beforeTwoSteps + (twoSteps?.term?.bytes ?? 0),
    loadCache: loadBytes,
    partial: twoSteps?.partial === true,
  };
}

/**
 * Segments a bitsandbytes 4-bit model's load left reserved under FSDP1 or ZeRO-3 (terms/bnb-load.ts): those its quantization
 * constants pin count whole; the wholly free ones only as far as the GPU has room (the allocator releases them before
 * it reports out of memory). They serve the step's tensors, so they count where they exceed the rest.
 */
function bnbLoadCacheTerm(ctx: EstimateContext, reservedSoFar: number, outside: number): RuntimeTerm | undefined {
  const model = bnbLoadModel(ctx);
  if (!model) return undefined;
  const load = bnbLoadReplay(model);
  const usable = usableGpuBytes(ctx);
  const level = Math.min(load.reserved, Math.max(load.pinned, usable - outside));
  if (level <= reservedSoFar) return undefined;
  return runtimeTerm(
    ctx,
    'load-cache',
    "Segments the 4-bit model's load left reserved",
    level - reservedSoFar,
    () =>
      `allocator replay of the load (${model.warmup ? "transformers' allocator warm-up, then " : ''}each weight ` +
      `quantized on the GPU by bitsandbytes) and ` +
      (model.sharder === 'zero3' ? "ZeRO-3's partitioning of it, parameter by parameter" : "FSDP1's sharding of it") +
      `: ${formatBytes(load.reserved)} reserved, ` +
      `${formatBytes(load.pinned)} of it in segments the quantization constants (${formatBytes(load.allocated)} ` +
      'with the shards kept on the GPU) hold in use; the step reuses their free blocks',
  );
}

/** The 16-bit logits' block the GPU had no room for, and what of it max_memory_reserved saw before its release. */
interface ReleasedBlock {
  readonly block: LogitsBlock;
  /** Bytes above the terms without the block: the level before the request that found no room, within the GPU. */
  readonly before: number;
}

/**
 * The cached terms once the 16-bit logits' block is released. The release comes at the loss backward's fp32 request
 * that finds no room on the device; until then the block was cached, so the peak reserved is the level just before that
 * request (all the terms with the block, less the request), up to what the GPU holds beside the memory outside the
 * allocator, and never below the terms without it.
 */
function releasedBlock(base: CachedBase, block: LogitsBlock, withBlock: CachedTerms): CachedTerms {
  const without = cachedTerms(base, undefined, { block, before: 0 });
  const gpu = base.ctx.gpu;
  const room = gpu ? gpu.memoryBytes * (1 - base.ctx.headroomFraction) - base.outside - without.reservedBytes : 0;
  const before = Math.floor(
    Math.max(0, Math.min(withBlock.reservedBytes - block.request - without.reservedBytes, room)),
  );
  return before > 0 ? cachedTerms(base, undefined, { block, before }) : without;
}

/** Segments the model's load left cached (StepPeak.modelLoad): they serve the step's tensors and count where they exceed it. */
function loadCacheTerm(ctx: EstimateContext, step: StepPeak, reservedSoFar: number): RuntimeTerm | undefined {
  const load = step.modelLoad;
  if (!load) return undefined;
  return runtimeTerm(ctx, 'load-cache', load.cacheLabel, load.reservedBytes - reservedSoFar, load.cacheFormula);
}

/** The terms outside the allocator: the CUDA context (its default an assumption) and NCCL's communicators, where a process group is made. */
function outsideTerms(ctx: EstimateContext, step: StepPeak): RuntimeTerm[] {
  const { contextBytes } = step;
  if (ctx.setup.cuda_context_bytes === undefined && !ctx.lean) {
    ctx.notes.assumptions.push({
      key: 'cuda_context_bytes',
      value: `${contextBytes / MiB} MiB`,
      source:
        contextBytes === EAGER_CUDA_CONTEXT_BYTES
          ? `VRAM Lens default: PyTorch ${ctx.setup.pytorch_version} loads every kernel of its CUDA libraries with the ` +
            'context (lazy module loading is its default from 1.13), as measured by Hugging Face on a V100 with ' +
            'PyTorch 1.10; set vramLens.cudaContextGiB or cuda_context_bytes'
          : 'VRAM Lens default: CUDA context, cuBLAS handles and the kernels a training step loads, as measured on an ' +
            'H100 with CUDA 13.0 and torch 2.11 (tools/truth/gpu); set vramLens.cudaContextGiB or cuda_context_bytes',
    });
  }
  const terms: RuntimeTerm[] = [
    {
      id: 'cuda-context',
      label: 'CUDA context and kernels',
      bytes: contextBytes,
      formula: ctx.lean ? '' : `${Math.round(contextBytes / MiB)} MiB per process`,
    },
  ];
  if (processes(ctx) > 1) {
    terms.push(ncclBuffers(ctx));
    const nvls = nvlsBuffers(ctx);
    if (nvls) terms.push(nvls);
  } else if (ctx.sharding.fsdp || ctx.sharding.zeroStage > 0) terms.push(singleRankNccl());
  return terms;
}

/**
 * The totals of a setup whose whole step the allocator model replays (terms/two-step-cache.ts): what that replay
 * reserves stands for every cached block, with the terms outside the allocator beside it.
 */
function replayedTotals(step: StepPeak, outside: RuntimeTerm[], replay: TwoStepReserve): RuntimeTotals {
  const runtime = replay.term ? [replay.term, ...outside] : outside;
  return {
    runtime,
    peakBytes: step.peak.allocatedBytes,
    reservedBytes: replay.reservedBytes,
    deviceBytes: replay.reservedBytes + outsideReserved(outside),
    loadCache: 0,
    pagedBytes: 0,
    pagedWorking: 0,
    pagedResident: 0,
    ...(replay.lowerBound ? { reservedLowerBound: true as const } : {}),
  };
}

/**
 * The totals of a ZeRO setup its replay stands for (terms/zero-step-cache.ts): what the replay reserves on the compute
 * stream, and beside it what ZeRO-3's all-gather stream keeps in its own pool beyond the gathered parameters the peak
 * counts.
 */
function zeroTotals(ctx: EstimateContext, step: StepPeak, outside: RuntimeTerm[]): RuntimeTotals | undefined {
  if (!zeroReplayed(ctx, step.forward)) return undefined;
  const pools = streamPools(ctx, step);
  const pool = allGatherPoolTerm(ctx, pools);
  const replay = zeroStepReserve(
    ctx,
    step.forward,
    step.peak.allocatedBytes,
    outsideReserved(outside) + pools.allGather,
  );
  if (!replay) return undefined;
  const pooled = replay.reservedBytes + pools.allGather;
  const lead = zero3LaunchLeadTerm(
    ctx,
    step.forward.zero3LaunchLead,
    poolCapacity(step),
    pooled,
    outsideReserved(outside),
  );
  const runtime = [...(replay.term ? [replay.term] : []), ...(pool ? [pool] : []), ...(lead ? [lead] : []), ...outside];
  const reservedBytes = pooled + (lead?.bytes ?? 0);
  return {
    runtime,
    peakBytes: step.peak.allocatedBytes,
    reservedBytes,
    deviceBytes: reservedBytes + outsideReserved(outside),
    loadCache: 0,
    pagedBytes: 0,
    pagedWorking: 0,
    pagedResident: 0,
  };
}

/**
 * Lower bounds (EstimateOptions.reservedLowerBound) for a setup whose step replay (FSDP1's, ZeRO's or the two-step
 * one) is skipped, or whose peak allocated with what sits outside the allocator already exceeds the GPU: whichever way
 * its reserved bytes are reached, they are at least the peak allocated, and the paged optimizer state comes on top of
 * them. FSDP2's replay only raises the flat terms (`cachedTerms`: the larger of the two), so an FSDP2 setup goes on to
 * them with its replay skipped (fsdp2StepCacheTerm), a closer bound. With the first micro-batch's bounds
 * (EstimateContext.firstMicroBatch) the replays run (in part), and only the second case stops here.
 */
function lowerBoundTotals(ctx: EstimateContext, step: StepPeak, outside: RuntimeTerm[]): RuntimeTotals | undefined {
  if (!ctx.reservedLowerBound) return undefined;
  const peak = step.peak.allocatedBytes;
  const bounded =
    exceedsGpu(ctx, peak + outsideReserved(outside)) ||
    (!ctx.firstMicroBatch &&
      (fsdp1Plan(ctx, step.forward) !== undefined ||
        twoStepReplayed(ctx, step.forward) ||
        zeroReplayed(ctx, step.forward)));
  if (!bounded) return undefined;
  return {
    runtime: outside,
    peakBytes: peak,
    reservedBytes: peak,
    deviceBytes: peak + outsideReserved(outside),
    loadCache: 0,
    pagedBytes: 0,
    pagedWorking: 0,
    pagedResident: 0,
    reservedLowerBound: true,
  };
}

/**
 * The allocator's reserve over what the step allocates and frees (its churn: everything of the peak but the persistent
 * components, and the all-gather pool's blocks, freed on their own stream).
 */
function allocatorReserve(ctx: EstimateContext, step: StepPeak, allGather: number): RuntimeTerm {
  const { stepPeak } = step;
  let churnBytes = 0;
  if (ctx.lean) {
    // Lean phases list only their persistent components; everything else in the peak churns.
    churnBytes = stepPeak.allocatedBytes;
    for (const c of stepPeak.components) churnBytes -= c.bytes;
  } else {
    for (const c of stepPeak.components) if (!PERSISTENT_IDS.has(c.id)) churnBytes += c.bytes;
  }
  churnBytes += allGather;
  return {
    id: 'allocator-reserve',
    label: 'Allocator reserve (cached, not allocated)',
    bytes: Math.round(ALLOCATOR_FRAGMENTATION * churnBytes),
    formula: ctx.lean
      ? ''
      : `${ALLOCATOR_FRAGMENTATION * 100}% x memory allocated and freed every step ` +
        `(${Math.round(churnBytes / MiB)} MiB: gradients, activations, temporaries)`,
  };
}

/**
 * bitsandbytes' paged optimizers allocate their state with cudaMallocManaged (bitsandbytes/functional.py get_paged):
 * the driver keeps it on the GPU while there is room and evicts pages to host RAM under pressure; each parameter's state
 * is paged back in for its update. So it takes what the GPU has left (beside `unpagedDevice`), at least one tensor's.
 */
/**
 * A paged optimizer's state on this GPU, and what a step needs resident at once: the largest trainable tensor's states
 * (the rest is paged to host RAM under pressure); undefined without a paged optimizer.
 */
function pagedState(ctx: EstimateContext): { pagedBytes: number; pagedWorking: number } | undefined {
  const state = ctx.methods.paged ? optimizerStateBytes(ctx) : undefined;
  if (!state) return undefined;
  const pagedBytes = Math.round(state.bytes / ctx.sharding.shardOptimizer);
  const largest = ctx.model.inventory.largestTrainableTensor;
  const pagedWorking = Math.min(pagedBytes, Math.round((state.perParamBytes * largest) / ctx.layout.tensorParallel));
  return { pagedBytes, pagedWorking };
}

function pagedOptimizer(
  ctx: EstimateContext,
  unpagedDevice: number,
): { term?: RuntimeTerm; pagedBytes: number; pagedWorking: number; pagedResident: number } {
  const state = pagedState(ctx);
  if (!state) return { pagedBytes: 0, pagedWorking: 0, pagedResident: 0 };
  const { pagedBytes, pagedWorking } = state;
  const room = ctx.gpu ? ctx.gpu.memoryBytes - unpagedDevice : Infinity;
  const pagedResident = Math.min(pagedBytes, Math.max(pagedWorking, room));
  const evicted = pagedBytes - pagedResident;
  const term: RuntimeTerm = {
    id: 'paged-optimizer',
    label: 'Paged optimizer state (CUDA unified memory, outside the allocator)',
    bytes: pagedResident,
    formula: ctx.lean
      ? ''
      : evicted > 0
        ? `${formatBytes(pagedBytes)} allocated with cudaMallocManaged by ` +
          `bitsandbytes: ${formatBytes(pagedResident)} fits beside the rest on this ` +
          `GPU, ${formatBytes(evicted)} is paged to host RAM and back at each step (slower)`
        : 'optimizer state allocated with cudaMallocManaged by bitsandbytes: resident while the GPU has room, paged to host RAM under pressure',
  };
  return { term, pagedBytes, pagedWorking, pagedResident };
}

/**
 * The runtime terms of the busiest GPU, in the order they are reported. A load whose segments serve the step
 * (ModelLoad.servesStep) leaves the step's terms as they are and counts where its segments exceed what the step
 * reserves; its allocated peak is the estimate's where it is higher.
 */
export function runtimeTerms(ctx: EstimateContext, step: StepPeak): RuntimeTotals {
  const load = step.modelLoad;
  if (!load?.servesStep) return stepRuntimeTerms(ctx, step);
  const totals = stepRuntimeTerms(ctx, { ...step, peak: step.stepPeak, modelLoad: undefined });
  const peakBytes = Math.max(totals.peakBytes, load.phase.allocatedBytes);
  if (load.reservedBytes <= totals.reservedBytes) return { ...totals, peakBytes };
  // The load's segments hold the step's tensors and caches: what it reserves is theirs, beside the terms outside.
  const outside = totals.runtime.filter((r) => !RESERVED_RUNTIME_IDS.has(r.id));
  const cache = runtimeTerm(ctx, 'load-cache', load.cacheLabel, load.reservedBytes - peakBytes, load.cacheFormula);
  return {
    ...totals,
    runtime: cache ? [cache, ...outside] : outside,
    peakBytes,
    reservedBytes: load.reservedBytes,
    deviceBytes: load.reservedBytes + outsideReserved(outside),
    loadCache: load.reservedBytes - totals.reservedBytes,
  };
}

function stepRuntimeTerms(ctx: EstimateContext, step: StepPeak): RuntimeTotals {
  const outside = outsideTerms(ctx, step);
  const bound = lowerBoundTotals(ctx, step, outside);
  if (bound) return bound;
  const outsideBytes = outsideReserved(outside);
  const replay =
    twoStepReserve(ctx, step.forward, step.peak.allocatedBytes, outsideBytes) ??
    fsdp1StepReserve(ctx, step.forward, step.peak.allocatedBytes, outsideBytes);
  if (replay) return replayedTotals(step, outside, replay);
  const zero = zeroTotals(ctx, step, outside);
  if (zero) return zero;
  const { stepPeak, peak } = step;
  const pools = streamPools(ctx, step);
  const reserve = allocatorReserve(ctx, step, pools.allGather);
  const runtime: RuntimeTerm[] = [reserve, ...outside];
  if (pools.reduceScatter > 0) {
    runtime.push({
      id: 'stream-pools',
      label: 'Gradient shards cached in the reduce-scatter stream pool',
      bytes: pools.reduceScatter,
      formula: ctx.lean ? '' : pools.reduceScatterFormula,
    });
  }
  const pool = allGatherPoolTerm(ctx, pools);
  if (pool) runtime.push(pool);
  const atLoss = peak === stepPeak && stepPeak.phase === 'backward' && stepPeak.note === LOSS_BACKWARD_NOTE;
  const block = atLoss ? logitsBlock(ctx) : undefined;
  const base = {
    ctx,
    step,
    atLoss,
    pools,
    allocated: peak.allocatedBytes + reserve.bytes,
    outside: outsideReserved(runtime),
  };
  let cached = cachedTerms(base, block);
  if (block && exceedsGpu(ctx, cached.reservedBytes + base.outside)) cached = releasedBlock(base, block, cached);
  runtime.push(...cached.terms);
  const lead = zero3LaunchLeadTerm(
    ctx,
    step.forward.zero3LaunchLead,
    poolCapacity(step),
    cached.reservedBytes,
    base.outside,
  );
  if (lead) runtime.push(lead);
  const reservedBytes = cached.reservedBytes + (lead?.bytes ?? 0);
  const paged = pagedOptimizer(ctx, reservedBytes + outsideReserved(runtime));
  if (paged.term) runtime.push(paged.term);
  return {
    runtime,
    peakBytes: peak.allocatedBytes,
    reservedBytes,
    deviceBytes: reservedBytes + outsideReserved(runtime),
    loadCache: cached.loadCache,
    pagedBytes: paged.pagedBytes,
    pagedWorking: paged.pagedWorking,
    pagedResident: paged.pagedResident,
    // FSDP2's replay ran its first micro-batch only: what it reserves is at least that.
    ...(cached.partial ? { reservedLowerBound: true as const } : {}),
  };
}
