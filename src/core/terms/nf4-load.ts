// Model load of a torchtune 0.1 QLoRA model with torchao before 0.2, replayed through the caching-allocator model.
//
// torchao's NF4Tensor.from_tensor of those releases (torchao/dtypes/nf4tensor.py, to_nf4) finds each element's code
// by comparing it with all 16 NF4 values at once: `diff = (value.unsqueeze(-1) - nf4).abs()` is numel x 16 bf16
// elements, twice (the difference, then its absolute value), then `diff.min(dim=-1)` returns 16-bit values and int64
// indices. pytorch/ao#196 ("Perform quantization in Chunks", 2024-05-01, in torchao 0.2) calls it "a huge memory
// spike" and quantizes 1,048,576 elements at a time since. Its double quantization also keeps a view of a realized
// n/64-element bf16 quantization factor, so the whole storage stays (later releases take .contiguous()).
//
// torchtune 0.1 quantizes at three moments, each on the GPU:
// 1. the builder makes one decoder layer: every LoRALinear creates nn.Linear on the device and calls to_nf4 on it
//    (torchtune/modules/peft/lora.py _create_weight_and_bias);
// 2. TransformerDecoder deep-copies that layer num_layers times (_get_clones); torchtune's clone override for NF4
//    (modules/low_precision/_register_nf4_dispatch_ops.py) dequantizes (get_original_weight) and quantizes again;
// 3. load_state_dict copies each checkpoint tensor into its NF4 parameter through torchtune's copy_ override for
//    torchao < 0.2: to_nf4(source.to(device)), replacing the parameter's inner tensors.
// The temporaries of the largest weights leave segments in the allocator that the persistent NF4 data then fragments,
// so max_memory_reserved after init is well above the model's size: torchtune's QLoRA tutorial (docs/source/tutorials/
// qlora_finetune.rst, April 2024) reports 9.13 GB reserved after model init for Llama-2-7B, whose NF4 model with its
// bf16 embeddings, head and adapters takes about 4.2 GB.
// Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md

import type { LinearModule } from '../architecture';
import { comp, loadPhase, MODEL_TENSOR_IDS, sum } from '../estimate/component';
import type { EstimateContext, ModelLoad } from '../estimate/context';
import type { PhaseEstimate } from '../model';
import { DTYPE_BYTES, formatBytes, formatCount } from '../units';
import { memo } from '../util/memo';
import { CachingAllocator, type Allocation } from './allocator';

export interface Nf4LoadLinear {
  readonly elements: number;
  readonly quantized: boolean;
  /** Elements of the LoRA matrices (r x in, out x r); empty without an adapter. */
  readonly adapterElements: readonly number[];
}

export interface Nf4LoadModel {
  readonly layers: number;
  /** A decoder layer's linear weights in construction order (attention projections, then the MLP's). */
  readonly linears: readonly Nf4LoadLinear[];
  /** Other tensors of one layer (norm scales, the rotary cache) in bytes, each its own allocation. */
  readonly layerOtherBytes: readonly number[];
  /** Tensors outside the layers (token embeddings, output head, final norm) in bytes, made after the first layer. */
  readonly outsideBytes: readonly number[];
  /** Bytes per element of the LoRA matrices (torchtune keeps them in the model dtype). */
  readonly adapterBytesPerElement: number;
}

export interface Nf4LoadResult {
  /** Highest memory_allocated during build and load. */
  readonly peakAllocated: number;
  /** max_memory_reserved at the end of load: the segments the allocator keeps for training. */
  readonly reserved: number;
  /** memory_allocated at the end of load: the model as trained. */
  readonly allocated: number;
  /** Elements of the largest quantized weight (whose temporaries set the high point). */
  readonly largest: number;
}

/** Bytes a torchao (< 0.2) NF4 weight of n elements keeps: 4-bit codes, int8 scales, the realized bf16 factor. */
export function oldTorchaoNf4Bytes(n: number): number {
  return n / 2 + n / 64 + (2 * n) / 64;
}

/** What the per-weight traces allocate through: the caching-allocator model, or an exact byte count. */
export interface Memory {
  alloc(bytes: number): Allocation;
  free(...xs: Allocation[]): void;
}

/** get_block_absmax(x, block): abs(x) in x's dtype, then max(dim=1) returns values and int64 indices. */
function absmax(mem: Memory, elems: number, bytes: number, block: number): Allocation {
  const abs = mem.alloc(elems * bytes);
  const values = mem.alloc((elems / block) * bytes);
  const indices = mem.alloc((elems / block) * 8);
  mem.free(abs, indices);
  return values;
}

/**
 * NF4Tensor.from_tensor of a bf16 tensor of n elements (torchao 0.1): returns its inner tensors (codes, int8 scales,
 * the realized factor, mean, table). Its high point is 66.08 B per element above the input, and it keeps 0.547 B:
 * tools/allocator/nf4_trace.py measures both with the profiler (test/unit/allocator.test.ts).
 */
export function quantizeTrace(mem: Memory, n: number): Allocation[] {
  const table = mem.alloc(32);
  // double_quantize_scalers
  let s1 = absmax(mem, n, 2, 64);
  const mean = mem.alloc(2);
  const centred = mem.alloc((n / 64) * 2);
  mem.free(s1);
  s1 = centred;
  const sAbs = absmax(mem, n / 64, 2, 256);
  const twice = mem.alloc((n / 64) * 2);
  const factor = mem.alloc((n / 64) * 2); // 256 / (2 * expanded absmax): realized, kept through the [:, 0] view
  mem.free(twice);
  let q = mem.alloc((n / 64) * 2);
  const rounded = mem.alloc((n / 64) * 2);
  mem.free(q);
  q = mem.alloc((n / 64) * 2); // clamp
  mem.free(rounded);
  const scalers = mem.alloc(n / 64); // .to(torch.int8)
  mem.free(q, s1, sAbs);
  // convert_to_norm_float_weight
  const blockMax = absmax(mem, n, 2, 64);
  const scaled = mem.alloc(2 * n);
  const difference = mem.alloc(32 * n);
  const diff = mem.alloc(32 * n);
  mem.free(difference);
  const minValues = mem.alloc(2 * n);
  const codes = mem.alloc(8 * n);
  mem.free(diff, minValues);
  const shifted = mem.alloc(4 * n);
  const combined = mem.alloc(4 * n);
  mem.free(shifted);
  const data = mem.alloc(n / 2);
  mem.free(combined, codes, scaled, blockMax);
  return [data, scalers, factor, mean, table];
}

/** NF4Tensor.get_original_weight (torchao 0.1): the bf16 weight of n elements; 14.03 B per element at its high point. */
export function dequantizeTrace(mem: Memory, n: number): Allocation {
  let t = mem.alloc(n / 2);
  const first = mem.alloc(4 * n);
  mem.free(t);
  t = mem.alloc(n / 2);
  const second = mem.alloc(4 * n);
  mem.free(t);
  const dFirst = mem.alloc(n);
  const dSecond = mem.alloc(n);
  t = mem.alloc((n / 64) * 2);
  const scales = mem.alloc((n / 64) * 2);
  mem.free(t);
  t = mem.alloc(n);
  const sFirst = mem.alloc(n);
  mem.free(t);
  t = mem.alloc(n);
  const sSecond = mem.alloc(n);
  mem.free(t);
  const out = mem.alloc(2 * n);
  mem.free(first, second, dFirst, dSecond, scales, sFirst, sSecond);
  return out;
}

export function simulateNf4Load(m: Nf4LoadModel, capacity = Infinity): Nf4LoadResult {
  const A = new CachingAllocator(capacity);
  const mem: Memory = {
    alloc: (bytes) => A.malloc(Math.max(1, Math.round(bytes))),
    free: (...xs) => {
      for (const x of xs) A.free(x);
    },
  };
  const alloc = mem.alloc;
  const free = mem.free;
  const quantize = (n: number): Allocation[] => quantizeTrace(mem, n);
  const dequantize = (n: number): Allocation => dequantizeTrace(mem, n);

  const adapter = (l: Nf4LoadLinear): Allocation[] => l.adapterElements.map((e) => alloc(e * m.adapterBytesPerElement));

  // 1. The builder's layer.
  const template: Allocation[][] = [];
  for (const l of m.linears) {
    const w = alloc(2 * l.elements);
    if (l.quantized) {
      template.push(quantize(l.elements));
      free(w);
    } else {
      template.push([w]);
    }
    template.push(adapter(l));
  }
  template.push(m.layerOtherBytes.map(alloc));
  for (const b of m.outsideBytes) alloc(b);
  // 2. _get_clones: deep copies of the layer.
  const layers: Allocation[][][] = [];
  let largest = 0;
  for (let i = 0; i < m.layers; i++) {
    const layer: Allocation[][] = [];
    for (const l of m.linears) {
      if (l.quantized) {
        largest = Math.max(largest, l.elements);
        const w = dequantize(l.elements);
        layer.push(quantize(l.elements));
        free(w);
      } else {
        layer.push([alloc(2 * l.elements)]);
      }
      layer.push(adapter(l));
    }
    layer.push(m.layerOtherBytes.map(alloc));
    layers.push(layer);
  }
  for (const g of template) free(...g);
  // 3. load_state_dict: each NF4 parameter requantized from the checkpoint tensor copied to the GPU.
  for (const layer of layers) {
    m.linears.forEach((l, k) => {
      if (!l.quantized) return;
      const source = alloc(2 * l.elements);
      const fresh = quantize(l.elements);
      free(...layer[2 * k]);
      layer[2 * k] = fresh;
      free(source);
    });
  }
  return { peakAllocated: A.peakAllocated, reserved: A.peakReserved, allocated: A.allocated, largest };
}

/**
 * The model-load replay depends only on the model's shapes and the room on the GPU; an advice search asks for the same
 * one many times. On a GPU too small for the load itself the allocator fails; the replay is then run without a limit,
 * and the load phase's peak shows that it does not fit.
 */
const nf4Loads = memo(
  ({ m, capacity }: { m: Nf4LoadModel; capacity: number }): Nf4LoadResult => {
    try {
      return simulateNf4Load(m, capacity);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      return simulateNf4Load(m);
    }
  },
  { key: ({ m, capacity }) => `${capacity}|${JSON.stringify(m)}`, limit: 64 },
);
const memoNf4Load = (m: Nf4LoadModel, capacity: number): Nf4LoadResult => nf4Loads({ m, capacity });

/**
 * torchtune 0.1 QLoRA with torchao < 0.2 (terms/nf4-load.ts): the builder's to_nf4 calls, the deep copies of the
 * layer and load_state_dict's copy_ each quantize a weight on the GPU with numel x 16 x 2 B temporaries, twice. The
 * high point of that is the load phase; what the allocator reserved by then stays reserved. Replayed through the
 * caching-allocator model for a single GPU holding dense decoder layers (one instance of each linear per layer).
 * `stepPeak` is the training step's highest phase (its weights are the model as loaded).
 */
export function nf4LoadPhase(
  ctx: EstimateContext,
  stepPeak: PhaseEstimate,
  contextBytes: number,
): ModelLoad | undefined {
  const { setup, effectiveSetup: effSetup } = ctx;
  const { arch: a, modules: mods } = ctx.model;
  const world = ctx.layout.world;
  const { targets, oldTorchaoNf4 } = ctx.methods;
  const q = effSetup.quantization;
  if (
    !oldTorchaoNf4 ||
    !q ||
    world > 1 ||
    a.moe ||
    a.layers === 0 ||
    mods.some((m) => m.count !== a.layers || m.parameter)
  )
    return undefined;
  const lora = setup.lora;
  const adapterBytes = lora ? DTYPE_BYTES[lora.dtype] : 2;
  const quantizes = (m: LinearModule): boolean => q.scope === 'all-linear' || targets.has(m.name);
  const model: Nf4LoadModel = {
    layers: a.layers,
    linears: mods.map((m) => ({
      elements: m.inFeatures * m.outFeatures,
      quantized: quantizes(m),
      adapterElements: lora && targets.has(m.name) ? [lora.r * m.inFeatures, lora.r * m.outFeatures] : [],
    })),
    // Two norm scales and the rotary cache (max positions x head dim, fp32) that torchtune keeps in each attention.
    layerOtherBytes: [2 * a.hidden, 2 * a.hidden, a.maxPositions * a.headDim * 4],
    outsideBytes: [2 * a.vocab * a.hidden, ...(a.tied ? [] : [2 * a.vocab * a.hidden]), 2 * a.hidden],
    adapterBytesPerElement: adapterBytes,
  };
  // The driver's room for the allocator: the GPU less the CUDA context (released cached segments make room first).
  const sim = memoNf4Load(model, ctx.gpu ? ctx.gpu.memoryBytes - contextBytes : Infinity);
  // The model as trained is the step's own weights; the simulation adds what its load held on top of them.
  const kept = stepPeak.components.filter((c) => MODEL_TENSOR_IDS.has(c.id));
  const transient = sim.peakAllocated - sim.allocated;
  const components = [
    ...kept,
    comp(
      ctx,
      'load-transient',
      'NF4 quantization temporaries (model build and load)',
      transient,
      () =>
        `to_nf4 of the largest weight (${formatCount(sim.largest)} elements): |w/scale - 16 NF4 ` +
        `codes| as ${formatCount(sim.largest * 16)} x 2 B twice, int64 codes, the 16-bit copy ` +
        `being quantized; plus the builder's template layer, replayed through the caching allocator`,
      () => ({ elements: sim.largest, layers: a.layers }),
    ),
  ];
  const reservedBytes = setup.expandable_segments
    ? sum(components)
    : sim.reserved + Math.max(0, sum(kept) - sim.allocated);
  return {
    phase: loadPhase(
      ctx,
      components,
      () =>
        `model build and checkpoint load: torchao ${setup.torchao_version} quantizes each NF4 ` +
        `weight whole on the GPU (torchtune 0.1: the builder's layer, its ${a.layers} deep copies, load_state_dict)`,
    ),
    // What the replay reserved, plus any model tensors the estimate counts that the replay did not allocate. With
    // expandable segments freed ranges serve requests of any size: what stays reserved is the load's high point.
    reservedBytes,
    cacheLabel: 'Segments cached since the model was quantized and loaded',
    cacheFormula: () =>
      `allocator segments of torchao's NF4 quantization temporaries, partly filled by the NF4 ` +
      `weights, kept through training (${formatBytes(reservedBytes)} reserved after load)`,
  };
}
