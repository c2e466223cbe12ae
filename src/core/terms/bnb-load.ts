// Term: the segments a bitsandbytes 4-bit model's load leaves reserved under FSDP1. transformers' from_pretrained loads
// the whole model onto each rank's GPU (device_map: the current device): since transformers 4.50 it first allocates and
// frees one block of the loaded model's bytes, 4-bit weights at half a byte per element (modeling_utils.py
// caching_allocator_warmup), so the weights load into that block; then, weight by weight, the 16-bit value is copied to
// the GPU and bitsandbytes' Params4bit quantizes it there (backends/cuda/ops.py quantize_4bit: the fp32 absmax of each
// 64 elements, then the packed codes; with double quantization the absmax less its mean, quantized blockwise into an
// 8-bit absmax with an fp32 absmax of each 256, the fp32 ones freed), and the 16-bit value is freed. FSDP1 then flattens
// each unit (a copy of its packed weights and norms), clones this rank's shard and frees the copy and the loaded
// tensors; under CPU offload the shard goes to the host. The quantization constants are not parameters: they stay on
// the GPU where they were allocated, inside segments whose packed weights FSDP has freed, and the caching allocator
// releases no segment with a block in use. transformers 4 under FSDP's CPU-RAM-efficient loading (Accelerate's default)
// moved each quantized weight to the host at once (modeling_utils.py _load_state_dict_into_meta_model, "quantize the
// parameter on the GPU and then cast it to CPU"; transformers 5 loads it onto the GPU), as Answer.AI's train.py does
// with low_memory: there only the constants stay, and FSDP1 builds each unit on the GPU from the host
// (terms/fsdp-init-cache.ts buildUnit). Replayed through the caching-allocator model (terms/allocator.ts); the step's
// tensors reuse the free blocks of those segments, so the load counts where its segments exceed the rest.
// Measured on an H100 with bitsandbytes 0.50.1's CUDA kernels (tools/truth/gpu/results/2026-11-27-h100): Llama-2-70B
// QLoRA over 2 ranks keeps 24.8 GB of free blocks in segments pinned by 1.0 GB of constants.
// DeepSpeed ZeRO-3 meets the same load: transformers creates a quantized model outside zero.Init (modeling_utils.py:
// `if is_deepspeed_zero3_enabled() and not is_quantized`) and bitsandbytes' quantizer loads it onto the current device
// (quantizer_bnb_4bit.py update_device_map), whole under transformers 5, its codes sent to the host weight by weight
// under transformers 4; deepspeed.initialize then partitions it parameter by parameter in module order
// (runtime/zero/partition_parameters.py _convert_to_zero_parameters: the parameter brought to the GPU whole, its
// partition allocated, its slice copied, the whole tensor freed), and the constants stay where the load put them.
// Pure arithmetic; no I/O. Docs: docs/estimate/runtime.md
import type { EstimateContext } from '../estimate/context';
import type { TrainingSetup } from '../setup';
import { olderThan } from '../util/version';
import { memo, memoByObject } from '../util/memo';
import { type Allocation, CachingAllocator } from './allocator';
import { buildUnit, shardUnit } from './fsdp-init-cache';
import { bitsandbytes4bit } from './quantization';

/** bitsandbytes' 4-bit blocks: one absmax per 64 weights, one second-level absmax per 256 of those. */
const BLOCK = 64;
const NESTED_BLOCK = 256;

/** A 4-bit model's load and its sharding by FSDP1 or ZeRO-3, in bytes and elements (one rank). */
export interface BnbLoadModel {
  /** Who shards the loaded model: FSDP1 flattens each unit; ZeRO-3 partitions each parameter. */
  readonly sharder: 'fsdp1' | 'zero3';
  readonly layers: number;
  /** A decoder layer's quantized linear weights in module order, in elements. */
  readonly linears: readonly number[];
  /** A decoder layer's other tensors (norm scales, unquantized weights) in bytes, each its own allocation. */
  readonly layerOther: readonly number[];
  /**
   * The root unit's tensors in bytes: the token embeddings (loaded first), the final norm (after the layers) and the
   * untied head (loaded last, 0 when tied).
   */
  readonly embedding: number;
  readonly finalNorm: number;
  readonly head: number;
  /** Bytes per element of the checkpoint's 16-bit values. */
  readonly valueBytes: number;
  readonly doubleQuant: boolean;
  /** transformers' caching_allocator_warmup before the load (4.50 and later). */
  readonly warmup: boolean;
  /**
   * Each weight's packed codes go to the host once quantized, the constants staying on the GPU, and FSDP1 then builds
   * each unit on the GPU from the host (transformers 4 under FSDP's CPU-RAM-efficient loading, Answer.AI's low_memory).
   */
  readonly host: boolean;
  /** Ranks a unit (a parameter under ZeRO-3) is sharded over, and whether each shard goes to the host. */
  readonly shards: number;
  readonly offload: boolean;
}

export interface BnbLoadReplay {
  /** Bytes reserved once the model is loaded and wrapped: every segment the load obtained, none released. */
  readonly reserved: number;
  /** Of those, the segments holding a block in use: what the allocator cannot release. */
  readonly pinned: number;
  /** Bytes still allocated then: the constants, the GPU-resident shards and the root. */
  readonly allocated: number;
}

/** The three ways a 4-bit model reaches FSDP1 (setup bnb_load). */
export type BnbLoadMode = NonNullable<TrainingSetup['bnb_load']>;

const total = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

/** One weight's quantization on the GPU; returns the packed codes (the constants stay allocated, with no handle). */
function quantize(allocator: CachingAllocator, elements: number, m: BnbLoadModel): Allocation {
  const value = allocator.malloc(elements * m.valueBytes);
  const absmax = allocator.malloc((elements / BLOCK) * 4);
  const packed = allocator.malloc(elements / 2);
  if (m.doubleQuant) {
    const centred = allocator.malloc((elements / BLOCK) * 4);
    allocator.malloc((elements / BLOCK / NESTED_BLOCK) * 4);
    allocator.malloc(elements / BLOCK);
    allocator.free(centred);
    allocator.free(absmax);
  }
  allocator.free(value);
  return packed;
}

/** The load and its sharding by FSDP1 or ZeRO-3 on `allocator` (the compute stream). */
export function loadAndShard(allocator: CachingAllocator, m: BnbLoadModel): void {
  const layerBytes = total(m.linears) / 2 + total(m.layerOther);
  const rootBytes = m.embedding + m.finalNorm + m.head;
  if (m.warmup) allocator.free(allocator.malloc(m.layers * layerBytes + rootBytes));
  if (m.sharder === 'zero3') {
    partitionParameters(allocator, loadParameters(allocator, m), m);
    return;
  }
  if (m.host) {
    for (let l = 0; l < m.layers; l++) for (const n of m.linears) allocator.free(quantize(allocator, n, m));
    const units = { layer: [], root: [], unshardedRatio: 1, shards: m.shards, offload: m.offload };
    const layerTensors = [...m.linears.map((n) => n / 2), ...m.layerOther];
    for (let l = 0; l < m.layers; l++) buildUnit(allocator, layerTensors, units);
    if (rootBytes > 0) buildUnit(allocator, [m.embedding, m.finalNorm, m.head], units);
    return;
  }
  const embedding = m.embedding > 0 ? [allocator.malloc(m.embedding)] : [];
  const layers: Allocation[][] = [];
  for (let l = 0; l < m.layers; l++)
    layers.push([...m.linears.map((n) => quantize(allocator, n, m)), ...m.layerOther.map((b) => allocator.malloc(b))]);
  const root = [...embedding, ...[m.finalNorm, m.head].filter((b) => b > 0).map((b) => allocator.malloc(b))];
  for (const loaded of layers) shardUnit(allocator, loaded, layerBytes, m);
  if (root.length > 0) shardUnit(allocator, root, rootBytes, m);
}

/** A parameter the load left: its block on the GPU, or none where its codes went to the host; its bytes. */
interface LoadedParameter {
  readonly block: Allocation | undefined;
  readonly bytes: number;
}

/**
 * The load ZeRO-3 partitions, in module order: the 16-bit tensors onto the GPU, each 4-bit weight quantized there;
 * under transformers 4 (host) its codes go to the host at once ("quantize the parameter on the GPU and then cast it to
 * CPU", for FSDP and DeepSpeed ZeRO-3 alike), the constants staying.
 */
function loadParameters(allocator: CachingAllocator, m: BnbLoadModel): LoadedParameter[] {
  const out: LoadedParameter[] = [];
  const onGpu = (bytes: number): void => void out.push({ block: allocator.malloc(bytes), bytes });
  if (m.embedding > 0) onGpu(m.embedding);
  for (let l = 0; l < m.layers; l++) {
    for (const n of m.linears) {
      const packed = quantize(allocator, n, m);
      if (m.host) allocator.free(packed);
      out.push({ block: m.host ? undefined : packed, bytes: n / 2 });
    }
    m.layerOther.forEach(onGpu);
  }
  [m.finalNorm, m.head].filter((b) => b > 0).forEach(onGpu);
  return out;
}

/**
 * ZeRO-3's partitioning of the loaded model, parameter by parameter in module order (partition_parameters.py
 * _convert_to_zero_parameters: `param.data.to(local_device)`, which brings a parameter on the host back whole, then
 * _partition_param: the partition allocated, this rank's slice copied, free_param). With parameter offload the
 * partition is on the host.
 */
function partitionParameters(
  allocator: CachingAllocator,
  params: readonly LoadedParameter[],
  m: Pick<BnbLoadModel, 'shards' | 'offload'>,
): void {
  for (const p of params) {
    const whole = p.block ?? allocator.malloc(p.bytes);
    if (!m.offload) allocator.malloc(Math.ceil(p.bytes / m.shards));
    allocator.free(whole);
  }
}

function replayLoad(m: BnbLoadModel): BnbLoadReplay {
  const allocator = new CachingAllocator();
  loadAndShard(allocator, m);
  const reserved = allocator.reserved;
  allocator.emptyCache();
  return { reserved, pinned: allocator.reserved, allocated: allocator.allocated };
}

/** The memo key of a load. */
export const bnbLoadKey = (m: BnbLoadModel): string =>
  [
    m.sharder,
    m.layers,
    m.linears.join(','),
    m.layerOther.join(','),
    m.embedding,
    m.finalNorm,
    m.head,
    m.valueBytes,
    +m.doubleQuant,
    +m.warmup,
    +m.host,
    m.shards,
    +m.offload,
  ].join('|');

export const bnbLoadReplay = memo(replayLoad, { key: bnbLoadKey, limit: 64 });

/**
 * How the 4-bit model reaches FSDP1 (setup bnb_load), else from the releases: transformers 5 loads it whole onto each
 * GPU after the warm-up; transformers 4 under FSDP's CPU-RAM-efficient loading (fsdp_cpu_ram_efficient_loading, unset:
 * on, as `accelerate launch` has it) sends each quantized weight to the host; without it, 4.50 and later load it whole
 * after the warm-up, earlier releases with none.
 */
export function bnbLoadMode(
  setup: Pick<TrainingSetup, 'bnb_load' | 'transformers_version' | 'fsdp_cpu_ram_efficient_loading'>,
): BnbLoadMode {
  if (setup.bnb_load) return setup.bnb_load;
  if (!olderThan(setup.transformers_version, 5, 0)) return 'warmup';
  if (setup.fsdp_cpu_ram_efficient_loading !== false) return 'host';
  return olderThan(setup.transformers_version, 4, 50) ? 'gpu' : 'warmup';
}

/**
 * The load of this run, or undefined where no bitsandbytes 4-bit model is loaded onto the GPU and then sharded by FSDP1
 * or partitioned by ZeRO-3: every decoder-layer linear module quantized (transformers keeps the output head in 16
 * bits). Worked out once per estimate: the replays' predicates, the plan and the runtime terms all ask.
 */
export function bnbLoadModel(ctx: EstimateContext): BnbLoadModel | undefined {
  // Most estimates load no 4-bit model: answered before the per-estimate memo (a WeakMap entry for every estimate).
  const q = ctx.effectiveSetup.quantization;
  return q && bitsandbytes4bit(q) ? bnbLoadModels(ctx) : undefined;
}
const bnbLoadModels = memoByObject(bnbLoadModelOf);

function bnbLoadModelOf(ctx: EstimateContext): BnbLoadModel | undefined {
  const { setup, effectiveSetup } = ctx;
  const q = effectiveSetup.quantization;
  const { fsdp, zeroStage, shardParams, fsdpOffload, offloadParams } = ctx.sharding;
  if (!q || !bitsandbytes4bit(q)) return undefined;
  const sharder =
    fsdp && zeroStage === 0 && setup.fsdp_version !== 2 ? 'fsdp1' : !fsdp && zeroStage === 3 ? 'zero3' : undefined;
  if (!sharder) return undefined;
  const { arch: a, modules, inventory } = ctx.model;
  if (a.layers === 0 || ctx.layout.tensorParallel > 1 || modules.some((mod) => mod.parameter)) return undefined;
  const linears: number[] = [];
  let linearParams = 0;
  for (const mod of modules) {
    const perLayer = mod.count / a.layers;
    if (!Number.isInteger(perLayer)) return undefined;
    for (let k = 0; k < perLayer; k++) linears.push(mod.inFeatures * mod.outFeatures);
    linearParams += perLayer * mod.inFeatures * mod.outFeatures;
  }
  const { weightBytes } = ctx.dtypes;
  const mode = sharder === 'zero3' ? zero3LoadMode(setup) : bnbLoadMode(setup);
  const rest = Math.max(0, Math.round((inventory.blocks - inventory.finalNorm) / a.layers) - linearParams);
  const layerOther: number[] = [];
  for (let left = rest; left > 0; left -= a.hidden) layerOther.push(Math.min(a.hidden, left) * weightBytes);
  return {
    sharder,
    layers: a.layers,
    linears,
    layerOther,
    embedding: inventory.embedding * weightBytes,
    finalNorm: inventory.finalNorm * weightBytes,
    head: inventory.head * weightBytes,
    valueBytes: weightBytes,
    doubleQuant: q.double_quant ?? false,
    warmup: mode === 'warmup',
    host: mode === 'host',
    shards: Math.max(1, shardParams),
    offload: sharder === 'zero3' ? offloadParams : fsdpOffload,
  };
}

/**
 * How a 4-bit model reaches ZeRO-3: transformers 5 loads it whole onto each GPU after the allocator warm-up (its
 * condition is a device map, which the quantizer sets); transformers 4 sends each quantized weight's codes to the host
 * under ZeRO-3 as under FSDP (modeling_utils.py _load_state_dict_into_meta_model, 4.57.6), whatever FSDP's
 * CPU-RAM-efficient loading says.
 */
function zero3LoadMode(setup: Pick<TrainingSetup, 'bnb_load' | 'transformers_version'>): BnbLoadMode {
  if (setup.bnb_load) return setup.bnb_load;
  return olderThan(setup.transformers_version, 5, 0) ? 'host' : 'warmup';
}
