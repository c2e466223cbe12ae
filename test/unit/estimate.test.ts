// The estimator against numbers worked out by hand; each test names where its number comes from.
import * as assert from 'node:assert/strict';
import { estimate } from '../../src/core/estimate';
import { layerActivations } from '../../src/core/terms/activations';
import { GiB, MiB } from '../../src/core/units';
import type { TrainingSetupInput } from '../../src/core/setup';
import { GB, component, near, phase, run, setupFor } from './helpers';
import { archOf, frozenLayerPlan } from './terms/helpers';

/** Model states on the optimizer step: weights + master + optimizer states + gradients (no temporaries). */
function modelStates(e: ReturnType<typeof run>): number {
  const p = phase(e, 'optimizer');
  return ['weights', 'master-weights', 'optimizer-states', 'gradients'].reduce(
    (s, id) => s + component(p, id as never),
    0,
  );
}

describe('estimate: model states', () => {
  // ZeRO paper (Rajbhandari et al. 2019, §5.1 and Figure 1): Psi = 7.5B, N_d = 64, mixed-precision Adam (K = 12):
  // baseline 16 Psi = 120 GB; P_os 4 Psi + 12 Psi/64 = 31.4 GB; P_os+g 2 Psi + 14 Psi/64 = 16.6 GB; P_os+g+p 16 Psi/64 = 1.9 GB.
  // At the optimizer step DeepSpeed's ZeRO-1 holds what ZeRO-2 holds: it keeps every gradient through the backward
  // (the paper's P_os) and its epilogue keeps the rank's partition only (stage_1_and_2.py; CPU truth zero/*-w4-z1-full
  // against -z2-full, DeepSpeed 0.19.6: the same optimizer-phase peak to the byte).
  const psi = 7.5e9;
  const base = {
    parameters: psi,
    weights_dtype: 'bf16' as const,
    master_weights: true,
    optimizer: 'adamw_fused' as const,
    gpus_per_node: 8,
    nodes: 8,
  };
  const cases: Array<[0 | 1 | 2 | 3, number]> = [
    [1, 2 * psi + (14 * psi) / 64],
    [2, 2 * psi + (14 * psi) / 64],
    [3, (16 * psi) / 64],
  ];
  for (const [stage, expected] of cases) {
    it(`ZeRO-${stage}: ${(expected / GB).toFixed(1)} GB per GPU at the step for 7.5B params on 64 GPUs (ZeRO paper)`, () => {
      const e = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, zero_stage: stage }));
      // ZeRO-1/2: DeepSpeed's gradient buffer holds the whole parameters reaching into the partition (terms/
      // gradients.ts zero12GradientBuffer): the busiest rank 1.5 % above the paper's even share.
      near(modelStates(e), expected, stage === 3 ? 0.001 : 0.02, `ZeRO-${stage} model states`);
    });
  }
  it('single GPU mixed-precision Adam: 16 bytes per parameter = 120 GB for 7.5B (ZeRO paper baseline)', () => {
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, gpus_per_node: 1, nodes: 1 }));
    near(modelStates(e), 16 * psi, 0.001, 'baseline');
  });

  it('fp32 AdamW full fine-tune of gpt2: 4 + 4 + 8 = 16 bytes per parameter (124,439,808 x 16)', () => {
    const e = run(setupFor('gpt2', { optimizer: 'adamw_fused', weights_dtype: 'fp32' }));
    assert.equal(modelStates(e), 124_439_808 * 16);
  });

  it('torch AdamW (foreach) adds one state-sized temporary on the step: torch._foreach_sqrt(exp_avg_sq)', () => {
    const e = run(setupFor('gpt2', { optimizer: 'adamw', weights_dtype: 'fp32' }));
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-step'), 124_439_808 * 4);
  });

  it('LoRA r=16 on q,k,v,o of Llama-2-7B: 16 x (4096 + 4096) x 4 modules x 32 layers = 16,777,216 trainable', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', {
        method: 'lora',
        weights_dtype: 'bf16',
        lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      }),
    );
    assert.equal(e.parameters.trainable, 16_777_216);
    // PEFT keeps adapters in fp32: AdamW states are 2 x 4 B per adapter parameter.
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-states'), 16_777_216 * 8);
  });

  it('QLoRA NF4 with double quantization: 0.5 + 1/64 + 4/(64*256) bytes per quantized parameter (QLoRA paper §2)', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', {
        method: 'qlora',
        weights_dtype: 'bf16',
        quantization: { bits: 4, type: 'nf4', double_quant: true },
        lora: { r: 8 },
      }),
    );
    // Llama-2-7B block linears: 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 parameters.
    const linear = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008);
    assert.equal(e.parameters.quantized, linear);
    near(
      component(phase(e, 'optimizer'), 'quantization-constants'),
      linear * (0.5 + 1 / 64 + 4 / (64 * 256)),
      1e-9,
      'nf4 bytes',
    );
    // The embeddings, lm_head and norms stay in bf16: 6,738,415,616 - 6,476,005,376 = 262,410,240 params x 2 B.
    assert.equal(component(phase(e, 'optimizer'), 'weights'), (6_738_415_616 - linear) * 2);
  });

  it('fp32 upcast of a 4-bit model (PEFT prepare_model_for_kbit_training / TRL before Nov 2025): weights, residual stream, head copy', () => {
    const base = {
      method: 'qlora',
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      quantization: { bits: 4, type: 'nf4' },
      lora: { r: 8 },
      gradient_checkpointing: 'full',
      seq_len: 2048,
    } as const;
    const none = run(setupFor('meta-llama/Llama-2-7b-hf', base));
    const all = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, kbit_upcast: 'all' }));
    const norms = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, kbit_upcast: 'norms' }));
    // Unquantized: embeddings + head 2 x 32000 x 4096 = 262,144,000, norms 65 x 4096 = 266,240.
    const emb = 2 * 32000 * 4096;
    const normParams = 65 * 4096;
    assert.equal(component(phase(none, 'optimizer'), 'weights'), (emb + normParams) * 2);
    assert.equal(component(phase(all, 'optimizer'), 'weights'), (emb + normParams) * 4);
    assert.equal(component(phase(norms, 'optimizer'), 'weights'), emb * 2 + normParams * 4);
    // fp32 norms feed bitsandbytes layers, which return their input's dtype: the residual stream (what checkpointing
    // keeps per layer) is fp32: 32 layers x 2048 x 4096 x 4 B (golden.json qlora_amp_bf16 cases, measured).
    assert.equal(component(phase(none, 'forward'), 'activations'), 32 * 2048 * 4096 * 2);
    assert.equal(component(phase(all, 'forward'), 'activations'), 32 * 2048 * 4096 * 4);
    assert.equal(component(phase(norms, 'forward'), 'activations'), 32 * 2048 * 4096 * 4);
    // The frozen fp32 head is cast to bf16 for the logits; the matmul keeps that copy for backward: V x h x 2 B (on
    // top of the autocast cache of the fp32 adapters, 32 layers x 2 x (4096 x 8 + 8 x 4096) x 2 B, in all three).
    const adapterCache = 32 * 2 * (4096 * 8 + 8 * 4096) * 2;
    assert.equal(component(phase(none, 'forward'), 'autocast-weight-copies'), adapterCache);
    assert.equal(component(phase(all, 'forward'), 'autocast-weight-copies'), adapterCache + 32000 * 4096 * 2);
    assert.equal(component(phase(norms, 'forward'), 'autocast-weight-copies'), adapterCache);
    assert.ok(
      all.perGpu.peakBytes - none.perGpu.peakBytes > emb * 2 + 32000 * 4096 * 2,
      'upcast costs at least the fp32 embeddings/head and the head copy',
    );
  });

  it('prepare_model_for_kbit_training on a 16-bit model that is not quantized makes every weight fp32', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', {
        method: 'lora',
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        kbit_upcast: 'all',
      }),
    );
    assert.equal(component(phase(e, 'optimizer'), 'weights'), 6_738_415_616 * 4);
    assert.ok(e.warnings.some((w) => w.key === 'kbit_upcast'));
  });

  it('gpt-oss-20b LoRA: all-linear reaches only q/k/v/o (the experts and router are bare parameters); bitsandbytes leaves the experts 16-bit', () => {
    const lora = run(
      setupFor('openai/gpt-oss-20b', {
        method: 'lora',
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        lora: { r: 8, target_modules: 'all-linear' },
      }),
    );
    // 24 layers x 8 x ((2880 + 4096) + 2 x (2880 + 512) + (4096 + 2880)) = 4,644,864 adapter parameters.
    assert.equal(lora.parameters.trainable, 24 * 8 * (2880 + 4096 + 2 * (2880 + 512) + (4096 + 2880)));
    const q = run(
      setupFor('openai/gpt-oss-20b', {
        method: 'qlora',
        weights_dtype: 'bf16',
        quantization: { bits: 4, type: 'nf4' },
        lora: { r: 8, target_modules: 'all-linear' },
      }),
    );
    // Only the attention projections are nn.Linear: 24 x (2880 x 4096 + 2 x 2880 x 512 + 4096 x 2880).
    assert.equal(q.parameters.quantized, 24 * (2 * 2880 * 4096 + 2 * 2880 * 512));
    // No SDPA path for gpt-oss in transformers: the estimate runs eager attention and says so.
    assert.deepEqual(
      lora.assumptions.filter((x) => x.key === 'attention').map((x) => x.value),
      ['eager'],
    );
    const sdpa = run(setupFor('openai/gpt-oss-20b', { method: 'lora', weights_dtype: 'bf16', attention: 'sdpa' }), {
      provenance: { attention: { kind: 'file', file: 'train.py', key: 'attn_implementation' } },
    });
    assert.ok(
      sdpa.warnings.some((w) => w.key === 'attention' && /eager/.test(w.message)),
      'an sdpa written in the file is answered with a warning',
    );
  });

  it("gpt-oss under Unsloth's 4-bit load: the experts are per-expert 4-bit linears, the router stays 16-bit", () => {
    // unsloth_zoo temporary_patches/gpt_oss.py GptOssExpertsBnb4bit: gate_up_projs (2880 -> 5760, bias) and down_projs
    // (2880 -> 2880, bias) per expert, nn.Linear that bitsandbytes quantizes; the router is _RouterLinearParams.
    const setup = (kernels: 'unsloth' | 'pytorch') =>
      setupFor('openai/gpt-oss-20b', {
        method: 'qlora',
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        kernels,
        quantization: { bits: 4, type: 'nf4', double_quant: true },
        lora: { r: 8, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
        micro_batch_size: 1,
        gradient_accumulation_steps: 4,
        seq_len: 1024,
        gradient_checkpointing: 'full',
      });
    const unsloth = run(setup('unsloth'));
    const attention = 24 * (2 * 2880 * 4096 + 2 * 2880 * 512);
    const experts = 24 * 32 * (2880 * 5760 + 2880 * 2880);
    assert.equal(unsloth.parameters.quantized, attention + experts);
    // Under PEFT alone bitsandbytes does not reach the 3-D expert parameters.
    assert.equal(run(setup('pytorch')).parameters.quantized, attention);
  });

  it('Gemma 3 4B full fine-tune on text: the vision tower is loaded (weights) but has no gradients or optimizer state', () => {
    const e = run(
      setupFor('google/gemma-3-4b-it', {
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        gradient_checkpointing: 'full',
        seq_len: 1024,
      }),
    );
    const vision = 416_866_032 + 1152 * 2560 + 1152;
    assert.equal(e.parameters.total, 4_300_079_472);
    assert.equal(e.parameters.trainable, 4_300_079_472 - vision);
    assert.equal(component(phase(e, 'optimizer'), 'weights'), 4_300_079_472 * 2);
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-states'), (4_300_079_472 - vision) * 2 * 2);
    assert.ok(e.assumptions.some((x) => x.key === 'architecture' && /vision tower/.test(x.value)));
  });

  it("evaluation during training at HF's default eval batch of 8 is the peak of a micro-batch-1 LoRA run", () => {
    const base = {
      method: 'lora',
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      lora: { r: 16, target_modules: 'all-linear' },
      gradient_checkpointing: 'full',
      seq_len: 2048,
      micro_batch_size: 1,
    } as const;
    const train = run(setupFor('meta-llama/Meta-Llama-3-8B', base));
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, eval_batch_size: 8 }));
    // No-grad forward at 8 x 2048 tokens: at the loss call the bf16 logits (2 B), their fp32 upcast (4 B) and the fp32
    // log-softmax (4 B) of T x V = 16,384 x 128,256 are live: 10 x 16,384 x 128,256 = 21,013,463,040 B.
    const ev = phase(e, 'evaluation');
    assert.equal(component(ev, 'logits-loss'), 10 * 16_384 * 128_256);
    assert.equal(component(ev, 'gradients'), 0, 'gradients were freed by zero_grad(set_to_none=True)');
    assert.equal(component(ev, 'weights'), component(phase(train, 'optimizer'), 'weights'));
    assert.equal(e.perGpu.phase, 'evaluation');
    assert.ok(e.perGpu.peakBytes > train.perGpu.peakBytes);
    assert.equal(
      train.perGpu.phases.some((p) => p.phase === 'evaluation'),
      false,
      'no evaluation phase without eval_batch_size',
    );
    const pp = run(
      setupFor('meta-llama/Meta-Llama-3-8B', { ...base, eval_batch_size: 8, gpus_per_node: 2, pipeline_parallel: 2 }),
    );
    assert.ok(
      pp.warnings.some((w) => w.key === 'eval_batch_size'),
      'said, not silently dropped, under pipeline parallelism',
    );
  });

  it('a device_map split holds one micro-batch at a time; a pipeline engine holds up to its stages on the first', () => {
    // Llama-3-8B over 2 stages of 16 layers, nothing checkpointed, 8 micro-batches a step (src/core/estimate/stage.ts).
    const base = {
      weights_dtype: 'bf16',
      method: 'lora',
      micro_batch_size: 4,
      seq_len: 2048,
      gpus_per_node: 2,
    } as const;
    const at = (extra: Record<string, unknown>) =>
      run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, pipeline_parallel: 2, ...extra })).perGpu;
    const split = at({ pipeline_schedule: 'device_map', gradient_accumulation_steps: 8 });
    const engine = at({ gradient_accumulation_steps: 8 });
    const oneInFlight = at({ gradient_accumulation_steps: 1 });
    const activations = (p: typeof engine) => p.components.find((c) => c.id === 'activations')!.bytes;
    // One micro-batch in flight whatever the accumulation: the engine's activations with nothing to overlap.
    assert.equal(split.stage, 1, 'the head and the loss make the last stage the busiest');
    assert.equal(oneInFlight.stage, 1);
    assert.equal(activations(split), activations(oneInFlight));
    // 1F1B: the first stage keeps min(stages, accumulation) = 2 micro-batches' activations, and peaks there.
    assert.equal(engine.stage, 0);
    assert.ok(activations(engine) > 1.9 * activations(split));
  });

  it('8-bit AdamW (bitsandbytes): 2 x (1 + 4/2048) bytes per parameter of large tensors', () => {
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { optimizer: 'adamw_8bit', weights_dtype: 'bf16' }));
    const states = component(phase(e, 'optimizer'), 'optimizer-states');
    // Norm weights (4096 elements, 65 of them) stay 32-bit; everything else is 8-bit.
    const small = 65 * 4096;
    near(states, (6_738_415_616 - small) * 2 * (1 + 4 / 2048) + small * 2 * 4, 1e-6, '8-bit states');
  });

  it('DDP keeps a second copy of the gradients in its buckets (gradient_as_bucket_view=False)', () => {
    const e = run(setupFor('gpt2', { weights_dtype: 'fp32', gpus_per_node: 2 }));
    assert.equal(component(phase(e, 'optimizer'), 'ddp-buckets'), 124_439_808 * 4);
  });

  it('optimizer offload moves states and master weights to the host: 16 B/param/shard on the CPU (DeepSpeed ZeRO-Offload)', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', {
        weights_dtype: 'bf16',
        master_weights: true,
        zero_stage: 2,
        offload_optimizer: 'cpu',
        gpus_per_node: 8,
        optimizer: 'adamw_fused',
      }),
    );
    const p = phase(e, 'optimizer');
    assert.equal(component(p, 'optimizer-states'), 0);
    assert.equal(component(p, 'master-weights'), 0);
    // fp32 master 4 + Adam 8 + fp32 grads 4 = 16 B per parameter, each rank's 1/8 shard, 8 ranks on the node.
    near(e.cpuBytes, 6_738_415_616 * 16, 1e-9, 'host bytes per node');
  });
});

describe('estimate: totals, fit and provenance', () => {
  it('device = reserved + CUDA context; reserved >= allocated', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', method: 'lora', cuda_context_bytes: 600 * MiB }),
    );
    assert.ok(e.perGpu.reservedBytes >= e.perGpu.peakBytes);
    assert.equal(e.perGpu.deviceBytes, e.perGpu.reservedBytes + 600 * MiB);
  });

  it("the CUDA context by PyTorch release: 768 MiB measured with lazy loading, 1,343 MiB before 1.13's default", () => {
    // tools/truth/gpu: 766.8 MiB on an H100 (torch 2.11); Hugging Face's model training anatomy: 1,343 MB on a V100
    // with PyTorch 1.10, which loaded every kernel with the context (CUDA_MODULE_LOADING=LAZY from 1.13, #86509).
    const context = (pytorch_version?: string) =>
      run(
        setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', ...(pytorch_version ? { pytorch_version } : {}) }),
      ).perGpu.runtime.find((t) => t.id === 'cuda-context')!.bytes;
    assert.equal(context(), 768 * MiB);
    assert.equal(context('2.0'), 768 * MiB);
    assert.equal(context('1.13'), 768 * MiB);
    assert.equal(context('1.12.1'), 1343 * MiB);
    assert.equal(context('1.10'), 1343 * MiB);
  });

  it('a 7B full fine-tune in bf16 with AdamW does not fit a 24 GiB card; LoRA does', () => {
    const gpu = { id: 'RTX-4090', memoryBytes: 24564 * MiB, source: 'test' };
    const full = run(setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', gradient_checkpointing: 'full' }), {
      gpu,
    });
    assert.equal(full.fits, false);
    const lora = run(
      setupFor('meta-llama/Llama-2-7b-hf', {
        weights_dtype: 'bf16',
        method: 'lora',
        gradient_checkpointing: 'full',
        seq_len: 1024,
      }),
      { gpu },
    );
    assert.equal(lora.fits, true);
    assert.ok((lora.headroomBytes ?? 0) > 2 * GiB);
  });

  it('lists every value that was not in the user files as an assumption with its source', () => {
    const e = run(setupFor('gpt2'), {
      provenance: { seq_len: { kind: 'file', file: 'x.vram.yaml', line: 3, key: 'seq_len' } },
    });
    const keys = e.assumptions.map((a) => a.key);
    assert.ok(keys.includes('micro_batch_size'));
    assert.ok(!keys.includes('seq_len'));
    assert.ok(e.assumptions.every((a) => a.source.length > 0));
  });

  it('warns about offload without ZeRO and returns an error for impossible TP layouts', () => {
    const e = run(setupFor('gpt2', { offload_optimizer: 'cpu' }));
    assert.ok(e.warnings.some((w) => w.key === 'offload_optimizer'));
    const { estimate } = require('../../src/core/estimate') as typeof import('../../src/core/estimate');
    const r = estimate(setupFor('gpt2', { gpus_per_node: 3, tensor_parallel: 2 }));
    assert.equal(r.ok, false);
  });

  it('every component has a formula', () => {
    const e = run(
      setupFor('mistralai/Mixtral-8x7B-v0.1', {
        method: 'qlora',
        weights_dtype: 'bf16',
        lora: { r: 16, target_modules: 'all-linear' },
        quantization: { bits: 4 },
        gradient_checkpointing: 'full',
      }),
    );
    for (const p of e.perGpu.phases)
      for (const c of p.components) assert.ok(c.formula.length > 0, `${c.id} has a formula`);
  });
});

describe('estimate: BAdam', () => {
  it('trains one decoder layer at a time: its gradients, fp32 copy and AdamW states; every layer above keeps its input', () => {
    // Llama-3-8B in bf16 (LLaMA-Factory pure_bf16 with use_badam): one layer of 218,112,000 parameters
    // (q, o 2 x 4,096² + k, v 2 x 1,024 x 4,096 + 3 x 4,096 x 14,336 + 2 x 4,096 norms) trains: fp32 master 4 B, AdamW states
    // 2 x 4 B; with checkpointing all 32 layers keep their input (the first layer active: gradients flow through all).
    assert.equal(2 * 4096 * 4096 + 2 * 1024 * 4096 + 3 * 4096 * 14_336 + 2 * 4096, 218_112_000);
    // The estimator takes one layer's share of the blocks, the final norm's 4,096 spread over the 32 layers.
    const block = (8_030_261_248 - 2 * 128_256 * 4096) / 32;
    assert.equal(block, 218_112_128);
    const e = run(
      setupFor('meta-llama/Meta-Llama-3-8B', {
        method: 'full',
        weights_dtype: 'bf16',
        micro_batch_size: 1,
        seq_len: 1024,
        gradient_checkpointing: 'full',
        badam: { mode: 'layer' },
      }),
    );
    const opt = phase(e, 'optimizer');
    assert.equal(component(opt, 'optimizer-states'), 2 * 4 * block);
    assert.equal(component(opt, 'master-weights'), 4 * block);
    assert.equal(component(opt, 'gradients'), 2 * block);
    assert.equal(component(phase(e, 'forward'), 'activations'), 32 * 1024 * 4096 * 2);
    // The whole model: 15 GB of bf16 weights plus about 3 GB for one block, where a full AdamW fine-tune needs 16 B per
    // parameter of state, copy and gradient.
    assert.ok(e.perGpu.deviceBytes < 24 * GiB);
  });
  it('ratio mode: sparse gradients and sparse Adam states for a share of every decoder-layer tensor, one mask per shape', () => {
    // BlockOptimizerRatio (Ledzy/BAdam src/badam/block_optim.py), update_ratio 0.05, Llama-3-8B in bf16: every decoder-layer
    // tensor and the final norm train (6,979,588,096 parameters; the embedding and the head are frozen). Each gradient
    // becomes a sparse COO tensor of 5 % of its entries: a 2 B value and two int64 indices; the sparse Adam keeps two 2 B
    // states for those entries; no fp32 copy.
    const trainable = 8_030_261_248 - 2 * 128_256 * 4096;
    assert.equal(trainable, 6_979_588_096);
    const e = run(
      setupFor('meta-llama/Meta-Llama-3-8B', {
        method: 'full',
        weights_dtype: 'bf16',
        micro_batch_size: 1,
        seq_len: 1024,
        gradient_checkpointing: 'full',
        badam: { mode: 'ratio', update_ratio: 0.05 },
      }),
    );
    const opt = phase(e, 'optimizer');
    assert.equal(component(opt, 'gradients'), Math.round(trainable * 0.05 * (2 + 16)));
    assert.equal(component(opt, 'master-weights'), 0);
    // keep_mask: one mask per tensor shape, (4096, 4096) for q and o, (1024, 4096) for k and v, (14336, 4096) for gate and
    // up, (4096, 14336) for down, and the norms' (4096,): 5 % of their entries, a 2 B value and the indices.
    const masks =
      (Math.floor(4096 * 4096 * 0.05) + Math.floor(1024 * 4096 * 0.05) + 2 * Math.floor(14_336 * 4096 * 0.05)) * 18 +
      Math.floor(4096 * 0.05) * 10;
    assert.equal(component(opt, 'optimizer-states'), Math.round(2 * 0.05 * 2 * trainable) + masks);
    // LLaMA-Factory refuses it in distributed training (hparams/parser.py).
    assert.ok(!e.warnings.some((w) => w.key === 'badam'));
    const two = run(
      setupFor('meta-llama/Meta-Llama-3-8B', {
        method: 'full',
        weights_dtype: 'bf16',
        micro_batch_size: 1,
        seq_len: 1024,
        gpus_per_node: 2,
        badam: { mode: 'ratio', update_ratio: 0.05 },
      }),
    );
    assert.ok(two.warnings.some((w) => w.key === 'badam' && /one GPU only/.test(w.message)));
  });
});

describe('estimate: paged optimizer state (CUDA unified memory)', () => {
  // torchtune llama3_1/8B_full_single_device: Llama-3.1-8B pure bf16, bitsandbytes PagedAdamW8bit, optimizer in
  // backward, checkpointing, batch 2 x 2,048 packed, chunked loss, compiled. torchtune's README: "Runnable on 1x 4090", 18.9 GiB.
  // The state: 2 x (1 B + 4 B/2048) for tensors >= 4,096 elements, 4 B for the 266,240 norm weights.
  const s = setupFor('meta-llama/Llama-3.1-8B', {
    method: 'full',
    weights_dtype: 'bf16',
    optimizer: 'paged_adamw_8bit',
    optimizer_in_backward: true,
    gradient_checkpointing: 'full',
    micro_batch_size: 2,
    seq_len: 2048,
    loss: 'chunked',
    compile: true,
  });
  const state = 2 * (8_029_995_008 * (1 + 4 / 2048) + 266_240 * 4);
  const paged = (e: ReturnType<typeof run>): number =>
    e.perGpu.runtime.find((r) => r.id === 'paged-optimizer')?.bytes ?? 0;

  it('is resident while the GPU has room', () => {
    const e = run(s, { gpu: { id: 'A100-80GB', memoryBytes: 80 * GiB, source: 'test' } });
    assert.ok(Math.abs(paged(e) - state) < 1);
    assert.equal(e.perGpu.pagedToHostBytes, undefined);
  });

  it('takes what a smaller GPU has left beside the rest, the remainder in host RAM: the run fits, paging at each step', () => {
    const gpu = { id: 'RTX-4090', memoryBytes: 24 * GiB, source: 'test' };
    const e = run(s, { gpu });
    const rest = e.perGpu.deviceBytes - paged(e);
    assert.equal(e.perGpu.deviceBytes, 24 * GiB);
    assert.ok(Math.abs(paged(e) - (24 * GiB - rest)) < 1);
    assert.ok(Math.abs((e.perGpu.pagedToHostBytes ?? 0) - (state - paged(e))) < 1);
    assert.ok(Math.abs(e.cpuBytes - (state - paged(e))) < 1);
    assert.equal(e.fits, true);
    // Within 3 % of torchtune's published peak (reserved, 18.9 GiB): the paged state is outside the allocator.
    assert.ok(Math.abs(e.perGpu.reservedBytes / (18.9 * GiB) - 1) < 0.03, `${e.perGpu.reservedBytes / GiB}`);
  });

  it("does not fit when the rest alone leaves no room for one tensor's state", () => {
    const e = run(s, { gpu: { id: '16GiB', memoryBytes: 16 * GiB, source: 'test' } });
    assert.equal(e.fits, false);
  });

  it('takes a GPU size in fractional GiB as its whole bytes (23.6 GiB was an error: a fraction of a byte resident)', () => {
    // 23.6 GiB = 25,340,307,046.4 B: the paged state resident beside the rest filled the GPU to the fraction.
    const e = run(s, { gpu: { id: 'RTX 4090 24GB', memoryBytes: 23.6 * GiB, source: 'test' } });
    assert.equal(e.perGpu.deviceBytes, 25_340_307_046);
    assert.ok(Number.isSafeInteger(e.perGpu.deviceBytes));
  });
});

describe('estimate: context parallelism', () => {
  // Llama-3.1-8B full fine-tune, pure bf16, FSDP full_shard over 8 GPUs. Context parallelism 2 splits each 8,192-token
  // sequence into two 4,096-token shares: per GPU everything is as for 4,096-token sequences, and FSDP still shards
  // over all 8 GPUs (torchtitan's dp_shard x cp mesh); only the data-parallel degree (the batch) halves.
  const base = {
    method: 'full' as const,
    weights_dtype: 'bf16' as const,
    fsdp: 'full_shard' as const,
    gpus_per_node: 8,
    micro_batch_size: 1,
    gradient_checkpointing: 'full' as const,
    attention: 'flash' as const,
  };
  it('holds seq_len / context_parallel tokens per GPU, sharded over every GPU', () => {
    const cp = run(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8192, context_parallel: 2 }));
    const half = run(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 4096 }));
    assert.equal(cp.perGpu.peakBytes, half.perGpu.peakBytes);
    assert.equal(component(phase(cp, 'backward'), 'activations'), component(phase(half, 'backward'), 'activations'));
    assert.deepEqual(
      [cp.layout.dataParallel, cp.layout.contextParallel, cp.layout.shardGroup, cp.layout.globalBatch],
      [4, 2, 8, 4],
    );
  });
  it('refuses a layout or a length that does not split, and runs attention as flash blocks', () => {
    const bad = estimate(
      setupFor('meta-llama/Llama-3.1-8B', { ...base, gpus_per_node: 6, seq_len: 8192, context_parallel: 4 }),
    );
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.errors[0].key, 'context_parallel');
    const odd = estimate(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8191, context_parallel: 2 }));
    assert.equal(!odd.ok && odd.errors[0].key, 'context_parallel');
    const eager = run(
      setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8192, context_parallel: 2, attention: 'eager' }),
    );
    assert.ok(eager.warnings.some((w) => w.key === 'attention'));
    assert.equal(
      eager.perGpu.peakBytes,
      run(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8192, context_parallel: 2 })).perGpu.peakBytes,
    );
  });
});

describe('estimate: expert parallelism with sharding', () => {
  // Qwen3-30B-A3B: 48 MoE layers of 128 experts, each 3 x 2048 x 768 (experts 48 x 128 x 4,718,592 = 28,991,029,248).
  // Expert parallelism splits the experts over ep ranks; ZeRO / FSDP shard each rank's experts over the ranks that hold
  // the same ones (S / ep), so per GPU an expert quantity sharded over S ranks is divided by max(ep, S). Under
  // transformers 4.57, whose experts run one after another, neither setup is replayed (terms/step-replay.ts
  // expertsReplayed), so both count their gathered units by the same formula.
  const experts = 48 * 128 * 3 * 2048 * 768;
  const s = (extra: Record<string, unknown>) =>
    setupFor('Qwen/Qwen3-30B-A3B', {
      method: 'full',
      weights_dtype: 'bf16',
      transformers_version: '4.57',
      gpus_per_node: 8,
      micro_batch_size: 1,
      seq_len: 2048,
      gradient_checkpointing: 'full',
      ...extra,
    });
  it('FSDP over 8 GPUs: the same weights, gradients and states per GPU with ep 8 as without; each rank gathers its 16 experts only', () => {
    const e1 = run(s({ fsdp: 'full_shard' }));
    const e8 = run(s({ fsdp: 'full_shard', expert_parallel: 8 }));
    for (const id of ['weights', 'optimizer-states'] as const)
      assert.equal(component(phase(e8, 'optimizer'), id), component(phase(e1, 'optimizer'), id));
    // The units gathered at once: those allocated at the peak and what the all-gather stream's pool keeps beside them.
    const unit = (e: ReturnType<typeof run>): number =>
      e.perGpu.components.filter((c) => c.label === 'FSDP all-gathered units').reduce((t, c) => t + c.bytes, 0) +
      (e.perGpu.runtime.find((r) => r.id === 'all-gather-pool')?.bytes ?? 0);
    assert.ok(Math.abs(unit(e1) - unit(e8) - 2 * (experts / 48) * (7 / 8) * 2) < 1); // 2 units x 7/8 of a layer's experts x 2 B
  });
  it('ZeRO-1 over 8 GPUs with ep 4: weights keep a quarter of the experts, optimizer states are sharded over all 8', () => {
    const e1 = run(s({ zero_stage: 1 }));
    const e4 = run(s({ zero_stage: 1, expert_parallel: 4 }));
    assert.equal(
      component(phase(e4, 'optimizer'), 'optimizer-states'),
      component(phase(e1, 'optimizer'), 'optimizer-states'),
    );
    assert.ok(
      Math.abs(
        component(phase(e1, 'optimizer'), 'weights') -
          component(phase(e4, 'optimizer'), 'weights') -
          experts * (3 / 4) * 2,
      ) < 1,
    );
  });
});

describe('estimate: GLM-4.5-Air LoRA with FSDP over 8 GPUs (worked by hand)', () => {
  // 106,852,245,504 parameters (architecture.test.ts); the largest block is an MoE layer: attention 109,074,432 +
  // 128 experts, 1 shared expert and the router 2,232,418,304 = 2,341,492,736.
  const e = run(
    setupFor('zai-org/GLM-4.5-Air', {
      method: 'lora',
      lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      weights_dtype: 'bf16',
      micro_batch_size: 1,
      seq_len: 4096,
      gradient_checkpointing: 'full',
      attention: 'flash',
      gpus_per_node: 8,
      fsdp: 'full_shard',
    }),
  );
  const b = phase(e, 'backward');
  it('bf16 weights sharded over 8, one gathered MoE block, the embeddings and head unsharded in the root unit', () => {
    // FSDP1's BACKWARD_PRE with each adapter a unit of its own gathers the next layer only at the end of a layer's
    // backward (sharding-buffers.ts prefetchesInLayerBackward, FINDINGS §78): one block through the layer's backward.
    assert.equal(component(b, 'weights'), (106_852_245_504 * 2) / 8);
    const gathered = b.components.find((c) => c.label.startsWith('FSDP all-gathered unit ('));
    assert.equal(gathered?.bytes, 2_341_492_736 * 2);
    assert.equal(b.components.find((c) => c.label.startsWith('FSDP root unit'))?.bytes, 2 * 151_552 * 4096 * 2);
  });
  it('checkpointing keeps one bf16 layer input per layer: 46 x 4,096 x 4,096 x 2 B', () => {
    assert.equal(component(b, 'activations'), 46 * 4096 * 4096 * 2);
  });
});

describe('estimate: MoE experts as transformers 5 stores them (3-D parameters)', () => {
  // transformers 5 (modeling_mixtral.py, modeling_qwen3_moe.py, modeling_qwen2_moe.py): MixtralExperts /
  // Qwen3MoeExperts hold gate_up_proj (E, 2f, h) and down_proj (E, h, f) as nn.Parameter, the TopKRouter a bare
  // weight; 4.x had one nn.Linear per expert projection and an nn.Linear gate.
  const v4 = { transformers_version: '4.57' };

  it('keeps the parameter count (Mixtral-8x7B 46,702,792,704 either way)', () => {
    const { countParameters, withFusedExperts } =
      require('../../src/core/architecture') as typeof import('../../src/core/architecture');
    const a = archOf('mistralai/Mixtral-8x7B-v0.1');
    const fused = withFusedExperts(a);
    assert.equal(countParameters(a).total, 46_702_792_704);
    assert.equal(countParameters(fused).total, 46_702_792_704);
    assert.equal(
      withFusedExperts(archOf('meta-llama/Llama-2-7b-hf')).fusedExperts,
      undefined,
      'dense models are left as they are',
    );
  });

  it('all-linear LoRA r16 on Mixtral-8x7B: 242,225,152 (4.x), 13,631,488 (5 with PEFT 0.18), 359,665,664 (5, current PEFT)', () => {
    // r x (in + out) per target: q 16·(4096+4096), k and v 16·(4096+1024), o 16·(4096+4096) = 425,984 per layer, x 32
    // layers = 13,631,488. 4.x adds w1, w3 (4096 -> 14336) and w2 of 8 experts: 3 x 16 x 18,432 x 8 x 32 = 226,492,416,
    // and the router gate, an nn.Linear there: 16 x (4096 + 8) x 32 = 2,101,248.
    // transformers 5 with PEFT 0.19 on (peft/utils/transformers_weight_conversion.py): gate_up_proj at r 32 over 8
    // experts, 32 x 8 x (4096 + 28672) = 8,388,608; down_proj 16 x 8 x (14336 + 4096) = 2,359,296; the router's
    // gate.weight 16 x (4096 + 8) = 65,664; x 32 layers = 346,034,176 beside the attention's 13,631,488.
    const s = {
      method: 'lora' as const,
      weights_dtype: 'bf16' as const,
      mixed_precision: 'bf16' as const,
      lora: { r: 16, target_modules: 'all-linear' as const },
    };
    const v5 = run(setupFor('mistralai/Mixtral-8x7B-v0.1', s));
    const oldPeft = run(setupFor('mistralai/Mixtral-8x7B-v0.1', { ...s, peft_version: '0.18' }));
    const old = run(setupFor('mistralai/Mixtral-8x7B-v0.1', { ...s, ...v4 }));
    assert.equal(v5.parameters.trainable, 13_631_488 + 32 * (8_388_608 + 2_359_296 + 65_664));
    assert.equal(v5.parameters.trainable, 359_665_664);
    assert.equal(oldPeft.parameters.trainable, 13_631_488);
    assert.equal(old.parameters.trainable, 13_631_488 + 226_492_416 + 2_101_248);
    assert.ok(
      oldPeft.warnings.some((w) => w.key === 'lora.target_modules' && /target_modules does not reach/.test(w.message)),
    );
    assert.ok(!v5.warnings.some((w) => w.key === 'lora.target_modules'));
    assert.ok(v5.assumptions.some((x) => x.key === 'peft_version'));
    assert.ok(!old.warnings.some((w) => w.key === 'lora.target_modules'));
  });

  it('named targets reach the shared expert, not the routed ones (Qwen1.5-MoE-A2.7B r8: 4,423,680 vs 123,863,040)', () => {
    // gate_proj / up_proj / down_proj of the shared expert (2048 <-> 5632): 3 x 8 x 7,680 = 184,320 per layer x 24.
    // 4.x adds 60 experts of 1,408: 3 x 8 x (2048 + 1408) x 60 x 24 = 119,439,360.
    const s = {
      method: 'lora' as const,
      weights_dtype: 'bf16' as const,
      lora: { r: 8, target_modules: ['gate_proj', 'up_proj', 'down_proj'] },
    };
    assert.equal(run(setupFor('Qwen/Qwen1.5-MoE-A2.7B', s)).parameters.trainable, 4_423_680);
    assert.equal(run(setupFor('Qwen/Qwen1.5-MoE-A2.7B', { ...s, ...v4 })).parameters.trainable, 123_863_040);
  });

  it('bitsandbytes 4-bit leaves the experts of Qwen3-30B-A3B in bf16: 905,969,664 params quantized, not 29,909,581,824', () => {
    // Attention per layer: q 2048 x 4096, k and v 2048 x 512, o 4096 x 2048 = 18,874,368; x 48 = 905,969,664.
    // Experts 48 x 128 x 3 x 2048 x 768 = 28,991,029,248 and routers 48 x 128 x 2048 = 12,582,912 (bitsandbytes#1849).
    const s = {
      method: 'qlora' as const,
      weights_dtype: 'bf16' as const,
      mixed_precision: 'bf16' as const,
      quantization: { bits: 4 as const, double_quant: true },
      lora: { r: 16, target_modules: 'all-linear' as const },
      gradient_checkpointing: 'full' as const,
    };
    const v5 = run(setupFor('Qwen/Qwen3-30B-A3B', s));
    assert.equal(v5.parameters.quantized, 905_969_664);
    // Everything not quantized is stored in bf16: total minus the quantized attention, 2 B each.
    assert.equal(component(phase(v5, 'optimizer'), 'weights'), (v5.parameters.total - 905_969_664) * 2);
    assert.ok(
      v5.warnings.some((w) => w.key === 'quantization' && /29\.00B expert and router params stay bf16/.test(w.message)),
    );
    assert.ok(v5.assumptions.some((a) => a.key === 'transformers_version' && a.value === '5'));
    const old = run(setupFor('Qwen/Qwen3-30B-A3B', { ...s, ...v4 }));
    assert.equal(old.parameters.quantized, 905_969_664 + 28_991_029_248 + 12_582_912);
    assert.ok(
      !old.assumptions.some((a) => a.key === 'transformers_version'),
      'a version the setup gives is not an assumption',
    );
    // Unsloth swaps the fused experts for per-expert 4-bit linears (unslothai/unsloth#4032).
    assert.equal(
      run(setupFor('Qwen/Qwen3-30B-A3B', { ...s, kernels: 'unsloth' })).parameters.quantized,
      old.parameters.quantized,
    );
  });

  it('Qwen3-VL-30B-A3B keeps 3-D experts under 4.x too: 4-bit quantizes the attention only, no version assumed', () => {
    // Qwen3VLMoeTextExperts were 3-D parameters from the model's first release (transformers 4.57).
    const s = {
      method: 'qlora' as const,
      weights_dtype: 'bf16' as const,
      quantization: { bits: 4 as const },
      lora: { r: 16, target_modules: 'all-linear' as const },
      gradient_checkpointing: 'full' as const,
    };
    for (const extra of [{}, v4]) {
      const e = run(setupFor('Qwen/Qwen3-VL-30B-A3B-Instruct', { ...s, ...extra }));
      assert.equal(e.parameters.quantized, 905_969_664);
      assert.ok(!e.assumptions.some((a) => a.key === 'transformers_version'));
      const w = e.warnings.find((x) => x.key === 'quantization');
      assert.ok(w && !/transformers 4\.x or Unsloth/.test(w.message), w?.message);
      assert.ok(
        e.warnings.some((x) => x.key === 'lora.target_modules' && /target_modules does not reach/.test(x.message)),
      );
    }
  });

  it('prepare_model_for_kbit_training upcasts the unquantized experts to fp32 (4 B each)', () => {
    const s = {
      method: 'qlora' as const,
      weights_dtype: 'bf16' as const,
      mixed_precision: 'bf16' as const,
      quantization: { bits: 4 as const },
      kbit_upcast: 'all' as const,
      gradient_checkpointing: 'full' as const,
    };
    const e = run(setupFor('Qwen/Qwen3-30B-A3B', s));
    const w = phase(e, 'optimizer').components.find((c) => c.id === 'weights')!;
    // Block params not quantized (experts, routers, norms) x 4 B + embeddings and head (151,936 x 2048 each) x 4 B.
    assert.equal(w.bytes, (e.parameters.total - 905_969_664) * 4);
    assert.match(w.formula, /fused expert, router and norm\/bias params x 4 B/);
  });

  it("a full fine-tune: grouped_mm (5.x) keeps three index tensors where the 4.x loop keeps index_add_'s source", () => {
    // gate_up chunked in two views keeps what gate and up keep; the difference is how the weighted outputs return to
    // token order: 4.x index_add_ keeps its source (routed tokens x hidden, bf16) and the token indices, 5.x grouped_mm
    // an index (int64 token, sort and unsort indices) whose source it does not keep. 48 MoE layers, 1,024 tokens x top-8
    // = 8,192 routed rows, hidden 2,048 (profiled: tools/peak/measure_step.py --moe-checkpointing).
    // flash_attention_2 keeps k and v unrepeated in both versions (SDPA repeats them in 4.x: see activations.test.ts).
    const s = {
      weights_dtype: 'bf16' as const,
      mixed_precision: 'bf16' as const,
      seq_len: 1024,
      attention: 'flash' as const,
    };
    const v5 = run(setupFor('Qwen/Qwen3-30B-A3B', s));
    const old = run(setupFor('Qwen/Qwen3-30B-A3B', { ...s, ...v4 }));
    const acts = (e: typeof v5): number => component(phase(e, 'forward'), 'activations');
    assert.equal(acts(old) - acts(v5), 48 * (8192 * 2048 * 2 - 2 * 8192 * 8));
    assert.match(v5.assumptions.find((a) => a.key === 'transformers_version')?.source ?? '', /grouped matmul/);
    assert.ok(!old.assumptions.some((a) => a.key === 'transformers_version'), 'a version given is not an assumption');
  });
});

describe('estimate: bitsandbytes 8-bit base layers and Kimi Linear', () => {
  it('a frozen LLM.int8 linear keeps its input (MatMul8bitLt ctx.tensors), a 4-bit one does not: T·(4·h + 2·f) per Llama layer', () => {
    // bitsandbytes autograd/_functions.py MatMul8bitLt.forward: ctx.tensors = (CAt, subA, A) whenever the input needs a
    // gradient; MatMul4Bit keeps (None, B). Per Llama-2-7B layer the inputs of q/k/v (the norm output, shared), gate/up
    // (the second norm output) and down_proj (act x up) are kept in addition: 2·T·h x 2 + 2·T·f. o_proj's input is the
    // attention output flash-attn keeps anyway.
    const plan = frozenLayerPlan(archOf('meta-llama/Llama-2-7b-hf'), {
      mode: 'amp',
      seq: 1024,
      quantizedBase: true,
      lora: { r: 8, dropout: 0.05, dtypeBytes: 4, targets: new Set(['q_proj', 'v_proj']) },
    });
    const int8 = layerActivations({ ...plan, bnbKeepsInput: true }).bytesPerLayer;
    const nf4 = layerActivations(plan).bytesPerLayer;
    assert.equal(int8 - nf4, 1024 * (4 * 4096 + 2 * 11008));
  });

  it('Kimi Linear ignores gradient checkpointing: the estimate is the one without, with a no-effect warning at the key', () => {
    // modeling_kimi.py: KimiDecoderLayer is a plain nn.Module and KimiLinearModel.forward calls each layer itself.
    const base: Omit<TrainingSetupInput, 'architecture'> = {
      method: 'lora',
      lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 1,
      seq_len: 1024,
      attention: 'flash',
    };
    const on = run(setupFor('moonshotai/Kimi-Linear-48B-A3B-Instruct', { ...base, gradient_checkpointing: 'full' }));
    const off = run(setupFor('moonshotai/Kimi-Linear-48B-A3B-Instruct', { ...base, gradient_checkpointing: 'none' }));
    assert.equal(on.perGpu.peakBytes, off.perGpu.peakBytes);
    assert.deepEqual(
      on.warnings.filter((w) => w.code === 'no-effect').map((w) => w.key),
      ['gradient_checkpointing'],
    );
    assert.equal(off.warnings.filter((w) => w.code === 'no-effect').length, 0);
    // KimiLinearModel sets flash_attention_2 whatever is asked for: eager costs nothing more.
    const eager = run(
      setupFor('moonshotai/Kimi-Linear-48B-A3B-Instruct', {
        ...base,
        attention: 'eager',
        gradient_checkpointing: 'none',
      }),
    );
    assert.equal(eager.perGpu.peakBytes, off.perGpu.peakBytes);
    assert.ok(eager.assumptions.some((x) => x.key === 'attention' && x.value === 'flash'));
    // Llama is checkpointed as asked: the flag matters there.
    const llama = (ck: 'full' | 'none') =>
      run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, gradient_checkpointing: ck })).perGpu.peakBytes;
    assert.ok(llama('full') < llama('none'));
  });
});

describe('estimate: fused MoE experts quantized by Axolotl (quantize_moe_experts)', () => {
  it('GLM-4.5-Air QLoRA: the 3-D experts go to NF4, and the layer being recomputed keeps its experts dequantized', () => {
    // GLM-4.5-Air: 45 MoE layers of 128 experts, 1,408 wide over 4,096 (gate_up 2 x 1,408, down 1,408). transformers 5
    // keeps them as 3-D parameters, which bitsandbytes skips; quantize_moe_experts quantizes them as they load. Each
    // forward then dequantizes a layer's whole experts to bf16 (bitsandbytes parametrize, cached for the module's
    // forward) and grouped_mm keeps them for the routed input's gradient: 128 x 3 x 1,408 x 4,096 x 2 B per layer.
    const base = {
      method: 'qlora' as const,
      quantization: { bits: 4 as const, type: 'nf4' as const, double_quant: true },
      lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      weights_dtype: 'bf16' as const,
      mixed_precision: 'bf16' as const,
      micro_batch_size: 2,
      seq_len: 2048,
      gradient_checkpointing: 'full' as const,
      attention: 'flash' as const,
      loss: 'fused' as const, // Axolotl's example runs Cut Cross Entropy: the peak is in the last layer's backward
    };
    const plain = run(setupFor('zai-org/GLM-4.5-Air', base));
    const q = run(setupFor('zai-org/GLM-4.5-Air', { ...base, quantization: { ...base.quantization, experts: true } }));
    const experts = 45 * 128 * 3 * 1408 * 4096;
    // Weights: the experts leave the bf16 weights for the NF4 ones (0.5 B + double-quantized scales per parameter).
    const bf16 = (e: ReturnType<typeof run>): number => component(phase(e, 'forward'), 'weights');
    assert.equal(bf16(plain) - bf16(q), experts * 2);
    assert.ok(plain.warnings.some((w) => w.code === 'fused-experts' && w.key === 'quantization'));
    assert.ok(!q.warnings.some((w) => w.code === 'fused-experts' && w.key === 'quantization'));
    const recomputed = (e: ReturnType<typeof run>): number => component(phase(e, 'backward'), 'checkpoint-recompute');
    assert.equal(recomputed(q) - recomputed(plain), 128 * 3 * 1408 * 4096 * 2);
  });
});

describe("estimate: ZeRO's first step", () => {
  // DeepSpeed stage3.py _create_fp16_partitions_with_defragmentation: without offload_param the 16-bit partitions are
  // copied into one flat GPU buffer (defragment); with it the flat buffer is pinned host memory
  // (_create_param_groups_fp16_flat_cpu_memory). Qwen2.5-7B (7,615,616,512 params) over one GPU in bf16: 15.2 GB.
  const zero3 = (offload: 'none' | 'cpu') =>
    run(
      setupFor('Qwen/Qwen2.5-7B', {
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        zero_stage: 3,
        offload_params: offload,
        offload_optimizer: offload,
        micro_batch_size: 1,
        seq_len: 1024,
        gradient_checkpointing: 'full',
      }),
    );

  it('holds a flat copy of the 16-bit partitions on the GPU while the groups are built', () => {
    const init = component(phase(zero3('none'), 'first-step'), 'first-step-init');
    assert.equal(init, 7_615_616_512 * 2);
  });

  it('builds it on the host where the parameters are offloaded: no first-step phase on the GPU', () => {
    assert.equal(
      zero3('cpu').perGpu.phases.find((p) => p.phase === 'first-step'),
      undefined,
    );
  });
});
