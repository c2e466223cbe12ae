// Term: the segments a bitsandbytes 4-bit model's load leaves reserved under FSDP1 (src/core/terms/bnb-load.ts). The
// per-weight sequence is the H100 history's (tools/truth/gpu/results/2026-11-27-h100, Llama-2-70B's q_proj: the 128 MiB
// bf16 value, the 4 MiB fp32 absmax, the 32 MiB packed codes, the 4 MiB centred absmax, the 16 KiB nested absmax, the
// 1 MiB 8-bit absmax; then the centred and fp32 absmax and the value freed). The replays are worked by hand with the
// caching allocator's rules (terms/allocator.ts): requests of at most 1 MiB from 2 MiB small segments, below 10 MiB from
// 20 MiB segments, larger ones a segment of their own; the best-fitting free block is split when more than 1 MiB is
// left. The GPU figures are the fixture's (test/fixtures/truth/gpu.json).
import * as assert from 'node:assert/strict';
import { type BnbLoadModel, bnbLoadMode, bnbLoadReplay } from '../../../src/core/terms/bnb-load';
import { run, setupFor } from '../helpers';

const MiB = 2 ** 20;
const KiB = 2 ** 10;

/** One decoder layer of one 8192 x 8192 weight, nothing else, double quantization, two ranks. */
const ONE_WEIGHT: BnbLoadModel = {
  sharder: 'fsdp1',
  layers: 1,
  linears: [8192 * 8192],
  layerOther: [],
  embedding: 0,
  finalNorm: 0,
  head: 0,
  valueBytes: 2,
  doubleQuant: true,
  warmup: false,
  host: false,
  shards: 2,
  offload: false,
};

describe('bnb-load: hand-worked replays', () => {
  it('one weight without the warm-up: 182 MiB reserved, 22 MiB of it pinned', () => {
    // Load: the value (128 MiB segment), the absmax (a 20 MiB segment), the packed codes (32 MiB segment), the centred
    // absmax split from the 20 MiB segment, the nested and 8-bit absmax in one 2 MiB small segment; the 20 MiB and
    // 128 MiB segments then free. Wrap: the 32 MiB flat copy split from the 128 MiB block, the 16 MiB shard from the
    // 20 MiB one; the copy and the packed codes freed. 128 + 20 + 32 + 2 = 182 MiB; in use: the 20 MiB segment (the
    // shard) and the small one (16 + 1 MiB + 16 KiB).
    const r = bnbLoadReplay(ONE_WEIGHT);
    assert.equal(r.reserved, 182 * MiB);
    assert.equal(r.pinned, 22 * MiB);
    assert.equal(r.allocated, 17 * MiB + 16 * KiB);
  });
  it('CPU offload frees the shard: only the constants pin their small segment', () => {
    const r = bnbLoadReplay({ ...ONE_WEIGHT, offload: true });
    assert.equal(r.reserved, 182 * MiB);
    assert.equal(r.pinned, 2 * MiB);
  });
  it("transformers' warm-up: the weights load into its block, and the shard pins the value's segment", () => {
    // Warm-up: a 32 MiB block (the packed layer), freed. The value takes a 128 MiB segment, the absmax splits the
    // warm-up block, the packed codes take a 32 MiB segment, the centred absmax splits the warm-up block's rest; the
    // small ones a 2 MiB segment. Wrap: the flat copy takes the warm-up block whole, the shard splits the 128 MiB one.
    // 32 + 128 + 32 + 2 = 194 MiB; pinned: the 128 MiB segment and the small one.
    const r = bnbLoadReplay({ ...ONE_WEIGHT, warmup: true });
    assert.equal(r.reserved, 194 * MiB);
    assert.equal(r.pinned, 130 * MiB);
  });
});

// ZeRO-3 partitions the loaded model parameter by parameter (deepspeed partition_parameters.py _partition_param): the
// partition (half the 32 MiB packed codes over two ranks) is allocated, then the whole codes freed.
describe('bnb-load: hand-worked replays under ZeRO-3', () => {
  const zero3: BnbLoadModel = { ...ONE_WEIGHT, sharder: 'zero3' };
  it('without the warm-up the 16 MiB partition splits the free 20 MiB segment: 182 MiB reserved, 22 MiB pinned', () => {
    const r = bnbLoadReplay(zero3);
    assert.equal(r.reserved, 182 * MiB);
    assert.equal(r.pinned, 22 * MiB);
    assert.equal(r.allocated, 17 * MiB + 16 * KiB);
  });
  it("after transformers' warm-up it splits the warm-up block, which it pins, not the value's: 34 MiB", () => {
    // The absmax and the centred absmax come from the 32 MiB warm-up block and are freed; the partition then fits that
    // block best (32 MiB against the value's 128 MiB). 32 + 128 + 32 + 2 = 194 MiB; pinned: 32 + 2 MiB.
    const r = bnbLoadReplay({ ...zero3, warmup: true });
    assert.equal(r.reserved, 194 * MiB);
    assert.equal(r.pinned, 34 * MiB);
  });
  it('with parameter offload the partition goes to the host: the constants pin their small segment only', () => {
    assert.equal(bnbLoadReplay({ ...zero3, offload: true }).pinned, 2 * MiB);
  });
});

/** PEFT's QLoRA recipe (examples/sft) at 70B over 2 GPUs, without its sharding. */
const QLORA_RECIPE = {
  method: 'qlora' as const,
  quantization: { bits: 4 as const, type: 'nf4' as const, double_quant: true },
  lora: { r: 8, alpha: 16, dropout: 0.1, target_modules: 'all-linear' as const },
  micro_batch_size: 2,
  seq_len: 2048,
  gradient_checkpointing: 'full' as const,
  mixed_precision: 'bf16' as const,
  weights_dtype: 'bf16' as const,
  gpus_per_node: 2,
};

describe('bnb-load: in the estimate', () => {
  const recipe = {
    ...QLORA_RECIPE,
    checkpoint_reentrant: true,
    fsdp: 'full_shard' as const,
    fsdp_version: 1 as const,
    fsdp_use_orig_params: false,
    fsdp_adapters_wrapped: true,
    fsdp_backward_prefetch: 'pre' as const,
  };
  it("PEFT's 70B QLoRA + FSDP recipe: the load's segments raise reserved well above the peak", () => {
    // H100, bitsandbytes 0.50.1, the warm-up first (gpu/llama-2-70b-qlora-...-warmup-...): 27.12 GiB allocated at the
    // peak, 39.16 GiB reserved without the harness's emptied cache.
    const est = run(setupFor('meta-llama/Llama-2-70b-hf', recipe)).perGpu;
    const GiB = 2 ** 30;
    assert.ok(est.peakBytes / GiB > 27 && est.peakBytes / GiB < 28.5, `${est.peakBytes / GiB}`);
    assert.ok(Math.abs(est.reservedBytes / (39.16 * GiB) - 1) < 0.05, `${est.reservedBytes / GiB}`);
  });
  it('says which transformers release it takes for the load when no file names one', () => {
    const assumed = (e: ReturnType<typeof run>): string | undefined =>
      e.assumptions.find((a) => a.key === 'transformers_version')?.value;
    assert.equal(assumed(run(setupFor('meta-llama/Llama-2-70b-hf', recipe))), 'current (5.x)');
    const pinned = run(setupFor('meta-llama/Llama-2-70b-hf', { ...recipe, transformers_version: '4.39' }));
    assert.equal(assumed(pinned), undefined);
    // transformers 4.39 under FSDP's CPU-RAM-efficient loading: only the constants stay, reserved near the peak.
    assert.ok(pinned.perGpu.reservedBytes < 1.25 * pinned.perGpu.peakBytes, `${pinned.perGpu.reservedBytes}`);
  });
  it('with CPU offload the pinned segments dominate: several times the peak allocated', () => {
    // H100, no warm-up (gpu/llama-2-70b-qlora-...-offload-...): 10.13 GiB allocated, 39.04 GiB reserved.
    const est = run(
      setupFor('meta-llama/Llama-2-70b-hf', {
        ...recipe,
        offload_params: 'cpu',
        offload_optimizer: 'cpu',
        bnb_load: 'gpu',
      }),
    ).perGpu;
    assert.ok(est.reservedBytes > 3 * est.peakBytes, `${est.reservedBytes} vs ${est.peakBytes}`);
  });
  it('under transformers 4 says which loading it takes: CPU-RAM-efficient, as accelerate launch runs it', () => {
    const assumed = (e: ReturnType<typeof run>): string | undefined =>
      e.assumptions.find((a) => a.key === 'fsdp_cpu_ram_efficient_loading')?.value;
    // Non-reentrant, so that the load is what the peak is compared with: under 4.46 the reentrant form around the frozen
    // units keeps every layer's input to the backward's end (fsdp1-frozen-inputs.ts).
    const v4 = { ...recipe, transformers_version: '4.46', checkpoint_reentrant: false };
    assert.equal(assumed(run(setupFor('meta-llama/Llama-2-70b-hf', v4))), 'true');
    const named = run(setupFor('meta-llama/Llama-2-70b-hf', { ...v4, fsdp_cpu_ram_efficient_loading: false }));
    assert.equal(assumed(named), undefined);
    // Loaded whole onto each GPU (no warm-up before 4.50): the constants pin the segments FSDP1 frees, as measured
    // (gpu/llama-2-70b-qlora-s2048-b2-ckpt-fsdp1plugin-w2-all-linear-...: 50.45 GB reserved at 29.6 GB allocated).
    assert.ok(named.perGpu.reservedBytes > 1.5 * named.perGpu.peakBytes, `${named.perGpu.reservedBytes}`);
  });
});

// PEFT's QLoRA + DeepSpeed ZeRO-3 recipe (examples/sft, Llama-2-70B over 2 GPUs): transformers loads the quantized
// model outside zero.Init; transformers 5 keeps it whole on each GPU until DeepSpeed partitions it, transformers 4 sends
// each weight's codes to the host as it quantizes them (the constants stay).
describe('bnb-load: in a ZeRO-3 estimate', () => {
  // PEFT's ZeRO-3 QLoRA recipe checkpoints with use_reentrant True (run_peft_qlora_deepspeed_stage3.sh), here under
  // DeepSpeed 0.19.2, before ZeRO-3 kept the frozen layers its reentrant recompute gathers (zero3-recompute-kept.ts).
  const zero3 = {
    ...QLORA_RECIPE,
    checkpoint_reentrant: true,
    deepspeed_version: '0.19.2',
    zero_stage: 3 as const,
    transformers_version: '5.0',
  };
  const loadTerm = (e: ReturnType<typeof run>) => e.perGpu.runtime.find((t) => t.id === 'load-cache');
  it('the segments the load left reserved count, after ZeRO-3 partitions the model parameter by parameter', () => {
    const e = run(setupFor('meta-llama/Llama-2-70b-hf', zero3));
    const term = loadTerm(e);
    assert.ok(term && term.bytes > 0);
    assert.match(term.formula, /ZeRO-3's partitioning of it, parameter by parameter/);
    // The whole 4-bit model stays reserved: 80 layers x 855.6M linear weights = 68.45B, their codes at 0.5 B
    // (34.22 GB) and double-quantized constants at 1/64 + 4/(64·256) B (1.09 GB), the 16-bit embedding and head
    // (2 x 32,000 x 8,192 x 2 B = 1.05 GB): 36.36 GB = 33.86 GiB, with the last weight's 16-bit value and the
    // segments' rounding on top. The step (29.3 GiB at its peak) fits in its free blocks.
    const GiB = 2 ** 30;
    assert.ok(
      e.perGpu.reservedBytes > 33.86 * GiB && e.perGpu.reservedBytes < 35 * GiB,
      `${e.perGpu.reservedBytes / GiB}`,
    );
    assert.ok(e.perGpu.peakBytes < 30 * GiB);
  });
  it("non-reentrant checkpointing keeps every layer's codes gathered: the step, not the load, is the high point", () => {
    // zero3-bnb-kept.ts: the 68.45B weights' codes at 0.5 B, 34,225,520,640 B (31.87 GiB), beside the step, less the
    // layer DeepSpeed holds gathered anyway (one layer's codes, 0.40 GiB) and what the reentrant recompute held more.
    const reentrant = run(setupFor('meta-llama/Llama-2-70b-hf', zero3)).perGpu.peakBytes;
    const e = run(setupFor('meta-llama/Llama-2-70b-hf', { ...zero3, checkpoint_reentrant: false }));
    const GiB = 2 ** 30;
    const more = (e.perGpu.peakBytes - reentrant) / GiB;
    assert.ok(more > 30 && more < 31.87, `${more}`);
    assert.equal(loadTerm(e), undefined);
  });
  it('transformers 4 sent the codes to the host: the constants pin less than the step reserves, no term', () => {
    const e = run(setupFor('meta-llama/Llama-2-70b-hf', { ...zero3, transformers_version: '4.40' }));
    assert.equal(loadTerm(e), undefined);
    assert.ok(e.perGpu.reservedBytes < 1.1 * e.perGpu.peakBytes, `${e.perGpu.reservedBytes} vs ${e.perGpu.peakBytes}`);
  });
  it('a 16-bit model under ZeRO-3 has no such term; an unnamed transformers release is said', () => {
    const lora = { ...zero3, method: 'lora' as const, quantization: undefined };
    assert.equal(loadTerm(run(setupFor('meta-llama/Llama-2-70b-hf', lora))), undefined);
    const unnamed = run(setupFor('meta-llama/Llama-2-70b-hf', { ...zero3, transformers_version: undefined }));
    assert.match(
      unnamed.assumptions.find((a) => a.key === 'transformers_version')?.source ?? '',
      /segments ZeRO-3 frees when it partitions/,
    );
  });
});

describe('bnb-load: how the model reaches FSDP1', () => {
  it('takes bnb_load where the setup names it', () => {
    assert.equal(bnbLoadMode({ bnb_load: 'gpu', transformers_version: '5.2' }), 'gpu');
  });
  it("transformers 5 loads it whole onto each GPU after the allocator's warm-up", () => {
    assert.equal(bnbLoadMode({}), 'warmup');
    assert.equal(bnbLoadMode({ transformers_version: '5.0', fsdp_cpu_ram_efficient_loading: true }), 'warmup');
  });
  it('transformers 4 under CPU-RAM-efficient loading (unset: on) sends each quantized weight to the host', () => {
    // transformers 4.57.6 modeling_utils.py _load_state_dict_into_meta_model: `value.data.to(device)` with device "cpu"
    // on local rank 0, "meta" elsewhere; the quant_state stays where it was made.
    assert.equal(bnbLoadMode({ transformers_version: '4.57' }), 'host');
    assert.equal(bnbLoadMode({ transformers_version: '4.39', fsdp_cpu_ram_efficient_loading: true }), 'host');
  });
  it('without it, whole onto each GPU: after the warm-up from 4.50 (caching_allocator_warmup), with none before', () => {
    assert.equal(bnbLoadMode({ transformers_version: '4.57', fsdp_cpu_ram_efficient_loading: false }), 'warmup');
    assert.equal(bnbLoadMode({ transformers_version: '4.49', fsdp_cpu_ram_efficient_loading: false }), 'gpu');
  });
});

describe('bnb-load: the root unit holds the final norm', () => {
  it('the root is flattened from the embeddings, the final norm and the head: 618 MiB reserved', () => {
    // ONE_WEIGHT with a 100 MiB embedding, an 8 KiB final norm and a 100 MiB head (FSDP1's root unit holds the root
    // module's own parameters in module order; the GPU histories flatten 2 x 128,256 x 4,096 + 4,096 elements for
    // Llama-3.1-8B). Load: the embedding a 100 MiB segment; the weight as in the first case (128 + 20 + 32 + 2 MiB);
    // the norm in the small segment; the head split from the freed 128 MiB value block. Wrap: the layer's 32 MiB flat
    // copy a segment of its own, its 16 MiB shard split from the 20 MiB one; the root's flat copy, 200 MiB + 8 KiB,
    // rounds to a 202 MiB segment, its shard (100 MiB + 4 KiB) to a 102 MiB one. 100 + 128 + 20 + 32 + 2 + 32 + 202 +
    // 102 = 618 MiB (without the norm the root's two would be 200 and 100).
    const r = bnbLoadReplay({ ...ONE_WEIGHT, embedding: 100 * MiB, finalNorm: 8 * KiB, head: 100 * MiB });
    assert.equal(r.reserved, 618 * MiB);
  });
});
