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
  const mem: Memory = { alloc: (bytes) => A.malloc(Math.max(1, Math.round(bytes))), free: (...xs) => { for (const x of xs) A.free(x); } };
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
