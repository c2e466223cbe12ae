// The estimator against numbers worked out by hand; each test names where its number comes from.
import * as assert from 'node:assert/strict';
import { estimate } from '../../src/core/estimate';
import { PLAN_FIELDS, finalNormSaved, layerActivations, lossMemory, noGradLayerBytes, referenceLogps, type ActivationPlan } from '../../src/core/terms/activations';
import { parseArchitecture, type Architecture } from '../../src/core/architecture';
import { findGpu, findModel } from '../../src/core/lookup';
import { GiB, MiB } from '../../src/core/units';
import type { TrainingSetupInput } from '../../src/core/setup';
import { GB, component, near, phase, run, setupFor } from './helpers';

/** The architecture of a catalog model. */
function archOf(id: string): Architecture {
  const m = findModel(id);
  assert.ok(m.ok, id);
  const r = parseArchitecture(m.model.config);
  assert.ok(r.ok, id);
  return r.arch;
}

/** Model states on the optimizer step: weights + master + optimizer states + gradients (no temporaries). */
function modelStates(e: ReturnType<typeof run>): number {
  const p = phase(e, 'optimizer');
  return ['weights', 'master-weights', 'optimizer-states', 'gradients'].reduce((s, id) => s + component(p, id as never), 0);
}

describe('estimate: model states', () => {
  // ZeRO paper (Rajbhandari et al. 2019, §5.1 and Figure 1): Psi = 7.5B, N_d = 64, mixed-precision Adam (K = 12):
  // baseline 16 Psi = 120 GB; P_os 4 Psi + 12 Psi/64 = 31.4 GB; P_os+g 2 Psi + 14 Psi/64 = 16.6 GB; P_os+g+p 16 Psi/64 = 1.9 GB.
  const psi = 7.5e9;
  const base = { parameters: psi, weights_dtype: 'bf16' as const, master_weights: true, optimizer: 'adamw_fused' as const, gpus_per_node: 8, nodes: 8 };
  const cases: Array<[0 | 1 | 2 | 3, number]> = [[1, 4 * psi + (12 * psi) / 64], [2, 2 * psi + (14 * psi) / 64], [3, (16 * psi) / 64]];
  for (const [stage, expected] of cases) {
    it(`ZeRO-${stage}: ${(expected / GB).toFixed(1)} GB per GPU for 7.5B params on 64 GPUs (ZeRO paper)`, () => {
      const e = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, zero_stage: stage }));
      near(modelStates(e), expected, 0.001, `ZeRO-${stage} model states`);
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
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] } }));
    assert.equal(e.parameters.trainable, 16_777_216);
    // PEFT keeps adapters in fp32: AdamW states are 2 x 4 B per adapter parameter.
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-states'), 16_777_216 * 8);
  });

  it('QLoRA NF4 with double quantization: 0.5 + 1/64 + 4/(64*256) bytes per quantized parameter (QLoRA paper §2)', () => {
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { method: 'qlora', weights_dtype: 'bf16', quantization: { bits: 4, type: 'nf4', double_quant: true }, lora: { r: 8 } }));
    // Llama-2-7B block linears: 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 parameters.
    const linear = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008);
    assert.equal(e.parameters.quantized, linear);
    near(component(phase(e, 'optimizer'), 'quantization-constants'), linear * (0.5 + 1 / 64 + 4 / (64 * 256)), 1e-9, 'nf4 bytes');
    // The embeddings, lm_head and norms stay in bf16: 6,738,415,616 - 6,476,005,376 = 262,410,240 params x 2 B.
    assert.equal(component(phase(e, 'optimizer'), 'weights'), (6_738_415_616 - linear) * 2);
  });

  it('fp32 upcast of a 4-bit model (PEFT prepare_model_for_kbit_training / TRL before Nov 2025): weights, residual stream, head copy', () => {
    const base = { method: 'qlora', weights_dtype: 'bf16', mixed_precision: 'bf16', quantization: { bits: 4, type: 'nf4' }, lora: { r: 8 }, gradient_checkpointing: 'full', seq_len: 2048 } as const;
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
    assert.ok(all.perGpu.peakBytes - none.perGpu.peakBytes > emb * 2 + 32000 * 4096 * 2, 'upcast costs at least the fp32 embeddings/head and the head copy');
  });

  it('prepare_model_for_kbit_training on a 16-bit model that is not quantized makes every weight fp32', () => {
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', mixed_precision: 'bf16', kbit_upcast: 'all' }));
    assert.equal(component(phase(e, 'optimizer'), 'weights'), 6_738_415_616 * 4);
    assert.ok(e.warnings.some((w) => w.key === 'kbit_upcast'));
  });

  it('gpt-oss-20b LoRA: all-linear reaches only q/k/v/o (the experts and router are bare parameters); bitsandbytes leaves the experts 16-bit', () => {
    const lora = run(setupFor('openai/gpt-oss-20b', { method: 'lora', weights_dtype: 'bf16', mixed_precision: 'bf16', lora: { r: 8, target_modules: 'all-linear' } }));
    // 24 layers x 8 x ((2880 + 4096) + 2 x (2880 + 512) + (4096 + 2880)) = 4,644,864 adapter parameters.
    assert.equal(lora.parameters.trainable, 24 * 8 * ((2880 + 4096) + 2 * (2880 + 512) + (4096 + 2880)));
    const q = run(setupFor('openai/gpt-oss-20b', { method: 'qlora', weights_dtype: 'bf16', quantization: { bits: 4, type: 'nf4' }, lora: { r: 8, target_modules: 'all-linear' } }));
    // Only the attention projections are nn.Linear: 24 x (2880 x 4096 + 2 x 2880 x 512 + 4096 x 2880).
    assert.equal(q.parameters.quantized, 24 * (2 * 2880 * 4096 + 2 * 2880 * 512));
    // No SDPA path for gpt-oss in transformers: the estimate runs eager attention and says so.
    assert.deepEqual(lora.assumptions.filter((x) => x.key === 'attention').map((x) => x.value), ['eager']);
    const sdpa = run(setupFor('openai/gpt-oss-20b', { method: 'lora', weights_dtype: 'bf16', attention: 'sdpa' }), { provenance: { attention: { kind: 'file', file: 'train.py', key: 'attn_implementation' } } });
    assert.ok(sdpa.warnings.some((w) => w.key === 'attention' && /eager/.test(w.message)), 'an sdpa written in the file is answered with a warning');
  });

  it('Gemma 3 4B full fine-tune on text: the vision tower is loaded (weights) but has no gradients or optimizer state', () => {
    const e = run(setupFor('google/gemma-3-4b-it', { weights_dtype: 'bf16', mixed_precision: 'bf16', gradient_checkpointing: 'full', seq_len: 1024 }));
    const vision = 416_866_032 + 1152 * 2560 + 1152;
    assert.equal(e.parameters.total, 4_300_079_472);
    assert.equal(e.parameters.trainable, 4_300_079_472 - vision);
    assert.equal(component(phase(e, 'optimizer'), 'weights'), 4_300_079_472 * 2);
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-states'), (4_300_079_472 - vision) * 2 * 2);
    assert.ok(e.assumptions.some((x) => x.key === 'architecture' && /vision tower/.test(x.value)));
  });

  it('evaluation during training at HF\'s default eval batch of 8 is the peak of a micro-batch-1 LoRA run', () => {
    const base = { method: 'lora', weights_dtype: 'bf16', mixed_precision: 'bf16', lora: { r: 16, target_modules: 'all-linear' }, gradient_checkpointing: 'full', seq_len: 2048, micro_batch_size: 1 } as const;
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
    assert.equal(train.perGpu.phases.some((p) => p.phase === 'evaluation'), false, 'no evaluation phase without eval_batch_size');
    const pp = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, eval_batch_size: 8, gpus_per_node: 2, pipeline_parallel: 2 }));
    assert.ok(pp.warnings.some((w) => w.key === 'eval_batch_size'), 'said, not silently dropped, under pipeline parallelism');
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
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', master_weights: true, zero_stage: 2, offload_optimizer: 'cpu', gpus_per_node: 8, optimizer: 'adamw_fused' }));
    const p = phase(e, 'optimizer');
    assert.equal(component(p, 'optimizer-states'), 0);
    assert.equal(component(p, 'master-weights'), 0);
    // fp32 master 4 + Adam 8 + fp32 grads 4 = 16 B per parameter, each rank's 1/8 shard, 8 ranks on the node.
    near(e.cpuBytes, 6_738_415_616 * 16, 1e-9, 'host bytes per node');
  });
});

describe('estimate: rotary tables kept by every attention layer before transformers 4.39', () => {
  // transformers <= 4.37 modeling_llama.py / modeling_mistral.py: each attention's rotary embedding registers
  // cos_cached and sin_cached of max_position_embeddings x head_dim in the default dtype at load (4.38 keeps them as
  // _cos_cached / _sin_cached "for BC"); 4.39 computes cos and sin in forward.
  const rotary = (e: ReturnType<typeof run>): number => e.perGpu.phases[0].components.find((c) => c.id === 'rotary-tables')?.bytes ?? 0;
  const base = { weights_dtype: 'bf16' as const, method: 'lora' as const, micro_batch_size: 1, seq_len: 1024 };
  it('Mistral-7B-v0.1 (32,768 positions) under 4.37: 32 x 2 x 32,768 x 128 x 2 B = 512 MiB', () => {
    assert.equal(rotary(run(setupFor('mistralai/Mistral-7B-v0.1', { ...base, transformers_version: '4.37' }))), 32 * 2 * 32768 * 128 * 2);
    // In fp32 (loaded without a torch_dtype) twice that.
    assert.equal(rotary(run(setupFor('mistralai/Mistral-7B-v0.1', { ...base, weights_dtype: 'fp32', transformers_version: '4.38.2' }))), 32 * 2 * 32768 * 128 * 4);
  });
  it('none from 4.39, with no version given (a current release), or for Gemma', () => {
    assert.equal(rotary(run(setupFor('mistralai/Mistral-7B-v0.1', { ...base, transformers_version: '4.39' }))), 0);
    assert.equal(rotary(run(setupFor('mistralai/Mistral-7B-v0.1', base))), 0);
    assert.equal(rotary(run(setupFor('google/gemma-7b', { ...base, transformers_version: '4.38' }))), 0);
  });
  it('Yi-6B (4,096 positions) under 4.37: 64 MiB, counted in every phase', () => {
    const e = run(setupFor('01-ai/Yi-6B', { ...base, transformers_version: '4.37' }));
    for (const p of e.perGpu.phases) assert.equal(p.components.find((c) => c.id === 'rotary-tables')?.bytes, 32 * 2 * 4096 * 128 * 2, p.phase);
  });
});

describe('MoE backward working set: looped experts (transformers 4.x) against one grouped matmul (5.x)', () => {
  // Mixtral-8x7B (h 4,096, 8 experts of width 14,336, top-2), LoRA on q and v, bf16, 1 x 4,096 tokens: 1,024 routed
  // tokens per expert. Worked by hand from the terms in blockActivations (profiled: tools/peak --moe-checkpointing).
  const arch = archOf('mistralai/Mixtral-8x7B-v0.1');
  const plan: ActivationPlan = { arch, mode: 'half', half: 2, weightBytes: 2, batch: 1, seq: 4096, attention: 'flash', baseTrainable: false, normsTrainable: false,
    inputRequiresGrad: true, tp: 1, sequenceParallel: false, lora: { r: 16, dropout: 0, dtypeBytes: 4, targets: new Set(['q_proj', 'v_proj']) } };
  const residual = 2 * 2 * 4096 * 4096; // the layer output's gradient and the input's gradient accumulator
  it('transformers 4.x: the largest of one expert, the gather gradient and the recomputed forward\'s end', () => {
    const oneExpert = 3 * 2 * 1024 * 14336 + 2 * 1024 * 4096; // 96,468,992
    const gather = 2 * 4096 * 4096 + 2 * 1024 * 4096; // 41,943,040
    const forwardEnd = 2 * 2 * 4096 * 4096 + 8 * 8 * 2 * 4096 + 2 * 1024 * (14336 + 4096); // 105,381,888
    assert.equal(Math.max(oneExpert, gather, forwardEnd), 105_381_888);
    assert.equal(layerActivations({ ...plan, expertsLooped: true }).backwardWorkingBytes, 105_381_888 + residual);
  });
  it('transformers 5.x (grouped_mm): every routed token\'s gate, up and product gradients at once', () => {
    assert.equal(layerActivations(plan).backwardWorkingBytes, 3 * 2 * 4096 * 2 * 14336 + residual); // 771,751,936
  });
  it('the estimate passes the transformers release through', () => {
    // A fused loss leaves the layers to make the backward's high point, where one layer's working set is counted.
    const bwd = (v: string): number => component(phase(run(setupFor('mistralai/Mixtral-8x7B-v0.1', { method: 'lora', lora: { r: 16, target_modules: ['q_proj', 'v_proj'] },
      weights_dtype: 'bf16', micro_batch_size: 1, seq_len: 4096, attention: 'flash', gradient_checkpointing: 'full', loss: 'fused', transformers_version: v })), 'backward'), 'backward-working');
    assert.equal(bwd('4.57'), 105_381_888 + residual);
    assert.equal(bwd('5.2'), 3 * 2 * 4096 * 2 * 14336 + residual);
  });
});

describe('estimate: the layer memo tells plans apart', () => {
  it('a plan that differs in any one field gets its own result, in any call order', () => {
    // layerActivations keeps its last plans (compared field by field) in front of a memo keyed by a string; a plan
    // mistaken for another would come back as the other's result object. Every field of PLAN_FIELDS needs a variant.
    const arch = archOf('meta-llama/Meta-Llama-3-8B');
    const qkv = new Set(['q_proj', 'k_proj', 'v_proj']);
    const base: ActivationPlan = { arch, mode: 'half', half: 2, weightBytes: 2, batch: 2, seq: 512, attention: 'sdpa', baseTrainable: false, normsTrainable: false,
      inputRequiresGrad: false, tp: 1, sequenceParallel: false, lora: { r: 16, dropout: 0.05, dtypeBytes: 4, targets: qkv } };
    const variants: { readonly [K in keyof typeof PLAN_FIELDS]: Partial<ActivationPlan> } = {
      arch: { arch: archOf('mistralai/Mistral-7B-v0.1') }, mode: { mode: 'amp' }, half: { half: 4 }, weightBytes: { weightBytes: 4 }, batch: { batch: 3 },
      seq: { seq: 1024 }, attention: { attention: 'eager' }, baseTrainable: { baseTrainable: true }, normsTrainable: { normsTrainable: true },
      inputRequiresGrad: { inputRequiresGrad: true }, tp: { tp: 2 }, sequenceParallel: { sequenceParallel: true }, compile: { compile: true },
      softmaxSavesInput: { softmaxSavesInput: true }, quantizedBase: { quantizedBase: true }, int8Base: { int8Base: true }, dequantizedExperts: { dequantizedExperts: 8 }, expertsLooped: { expertsLooped: true }, kbitUpcast: { kbitUpcast: 'all' }, kernels: { kernels: 'liger' },
      tiledMlpShards: { tiledMlpShards: 4 }, linearKernels: { linearKernels: 'torch' }, mambaKernels: { mambaKernels: 'torch' }, expertLora: { expertLora: { targets: [{ name: 'experts.gate_up_proj', savedBytes: 1, workingBytes: 1 }] } }, lora: { lora: { r: 16, dropout: 0.05, dtypeBytes: 4, targets: new Set(['q_proj', 'k_proj', 'o_proj']) } },
      ia3: { ia3: { dtypeBytes: 4, targets: new Set(['k_proj']), feedforward: new Set() } },
    };
    const loraVariants: Array<Partial<NonNullable<ActivationPlan['lora']>>> = [{ r: 8 }, { dropout: 0 }, { dtypeBytes: 2 }, { dora: true }];
    const plans = [base, ...Object.values(variants).map((v) => ({ ...base, ...v })), ...loraVariants.map((v) => ({ ...base, lora: { ...base.lora!, ...v } }))];
    const first = plans.map((p) => layerActivations(p));
    for (let i = 1; i < plans.length; i++) assert.notEqual(first[i], first[0], `variant ${i} was taken for the base plan`);
    // Again in reverse order, and with equal plans built afresh (a new Set with the same targets is the same plan).
    for (let i = plans.length - 1; i >= 0; i--) assert.equal(layerActivations({ ...plans[i] }), first[i]);
    assert.equal(layerActivations({ ...base, lora: { ...base.lora!, targets: new Set(['v_proj', 'q_proj', 'k_proj']) } }), first[0]);
  });
});

describe('estimate: LoRA on fused expert parameters (PEFT target_parameters)', () => {
  const moe = (lora: Record<string, unknown>, extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> => run(setupFor('Qwen/Qwen3-30B-A3B', {
    method: 'lora', lora: { r: 16, alpha: 32, target_modules: ['q_proj'], ...lora }, weights_dtype: 'bf16', mixed_precision: 'bf16', micro_batch_size: 1, seq_len: 2048,
    gradient_checkpointing: 'none', attention: 'flash', transformers_version: '5.0', ...extra,
  }));
  it('adapters r x E x (in + out) per targeted parameter and layer; each adapted layer keeps W + BA and the routed input', () => {
    // Qwen3-30B-A3B: 48 MoE layers of 128 experts, gate_up_proj 2 x 768 wide over 2048, down_proj 768 -> 2048, top-8.
    // ParamWrapper: lora_A (r·E x in) + lora_B (out x r·E): 16 x 128 x (2048 + 1536) and 16 x 128 x (768 + 2048).
    const plain = moe({});
    const both = moe({ target_parameters: ['mlp.experts.gate_up_proj', 'mlp.experts.down_proj'] });
    const adapters = 48 * 16 * 128 * ((2048 + 1536) + (768 + 2048));
    assert.equal(both.parameters.trainable - plain.parameters.trainable, adapters);
    assert.equal(adapters, 629_145_600);
    // Saved per layer (tools/activations/lora_target_parameters.py closed form): W + BA in bf16 (128 x 2048 x 1536 and
    // 128 x 768 x 2048 elements x 2 B) and the matmuls' routed inputs (2,048 tokens x 8 x (2048 + 768) x 2 B).
    const perLayer = 2 * 128 * 2048 * 1536 + 2 * 128 * 768 * 2048 + 2048 * 8 * (2048 + 768) * 2;
    near(component(phase(both, 'forward'), 'activations') - component(phase(plain, 'forward'), 'activations'), 48 * perLayer, 1e-12, '48 adapted layers');
    assert.ok(both.assumptions.some((x) => x.key === 'lora.target_parameters'));
    // transformers 5's target_modules warning about the unreached experts is gone once target_parameters adapts them.
    assert.ok(!both.warnings.some((w) => w.code === 'fused-experts'));
  });
  it('a layer index limits a target to that layer; a name that matches no expert parameter is a warning, not an adapter', () => {
    const plain = moe({});
    const two = moe({ target_parameters: ['7.mlp.experts.gate_up_proj', 'model.layers.15.mlp.experts.gate_up_proj', 'mlp.experts.up_proj'] });
    assert.equal(two.parameters.trainable - plain.parameters.trainable, 2 * 16 * 128 * (2048 + 1536));
    near(component(phase(two, 'forward'), 'activations') - component(phase(plain, 'forward'), 'activations'), 2 * (2 * 128 * 2048 * 1536 + 2048 * 8 * 2048 * 2), 1e-12, 'two adapted layers');
    assert.match(two.warnings.find((w) => w.key === 'lora.target_parameters')?.message ?? '', /mlp\.experts\.up_proj: no expert parameter/);
  });
});

describe('estimate: Mamba2 layers (Granite 4.0 H)', () => {
  const granite = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> => run(setupFor('ibm-granite/granite-4.0-h-micro', {
    method: 'full', weights_dtype: 'bf16', mixed_precision: 'none', optimizer: 'adamw', micro_batch_size: 1, seq_len: 4096, gradient_checkpointing: 'none', attention: 'flash', ...extra,
  }));
  it('the fused kernel is an assumption until set; the torch fallback keeps what tools/activations/mamba2.py measured', () => {
    const cuda = granite();
    assert.ok(cuda.assumptions.some((x) => x.key === 'mamba_kernels' && x.value === 'cuda'));
    const torch = granite({ mamba_kernels: 'torch' });
    // mamba2.py closed forms, trainable, b 1, s 4,096, hidden 2048, 64 heads x 64, 1 group, state 128, conv 4, chunk 256
    // (16 chunks): fused T·(6d + 4GN + 2H + 4G) + 4H + 2·T·h + 4H; torch_forward the fallback's terms. 36 Mamba2 layers.
    const T = 4096;
    const d = 4096;
    const fused = T * (6 * d + 4 * 128 + 2 * 64 + 4) + 4 * 64 + 2 * T * 2048 + 4 * 64;
    const Sp = 4096;
    const nc = 16;
    const frozenTorch = T * (8 * d + 4 * 128 + 8 * 64) + 2 * 4352 * (4096 + 3) + Sp * (12 * d + 12 * 64 * 128 + 12 * 64 * 256 + 8 * 64)
      + 8 * (nc + 1) * d * 128 + 4 * 64 * (nc + 1) ** 2 + 2 * 256 * 256 + 2 * (nc + 1) ** 2 + 4 * 64 + 12 * T * d + 4 * T;
    const trainableTorch = frozenTorch + 2 * T * 2048 + 4 * 64 + 4 * Sp * d + 2 * T * d + 4 * T * d;
    near(component(phase(torch, 'forward'), 'activations') - component(phase(cuda, 'forward'), 'activations'), 36 * (trainableTorch - fused), 1e-12, 'torch fallback over the fused kernel, 36 layers');
  });
  it('LoRA on out_proj is a warning under the fused kernel (it applies out_proj itself); generation keeps per-sequence SSM and conv states', () => {
    const lora = granite({ method: 'lora', lora: { r: 16, target_modules: ['in_proj', 'out_proj'] } });
    assert.ok(lora.warnings.some((w) => /out_proj is never used/.test(w.message)));
    // GRPO with 8 completions of 512 + 3,584 tokens: the 4 attention layers cache 2 x 8 kv heads x 64 x 2 B per token;
    // each of the 36 Mamba2 layers keeps 64 x 64 x 128 + 4352 x 4 elements x 2 B per sequence.
    const e = granite({ method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, mixed_precision: 'bf16', micro_batch_size: 2, gradient_accumulation_steps: 4,
      gradient_checkpointing: 'full', rollout: { batch: 8, completion_len: 3584 } });
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    assert.equal(kv?.bytes, 8 * 4 * 2 * 8 * 64 * 2 * 4096 + 8 * 36 * (64 * 64 * 128 + 4352 * 4) * 2);
  });
});

describe('estimate: Nemotron-H (one mixer per layer)', () => {
  const nano = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> => run(setupFor('nvidia/NVIDIA-Nemotron-Nano-9B-v2', {
    method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, weights_dtype: 'bf16', mixed_precision: 'bf16', micro_batch_size: 1, seq_len: 4096, attention: 'flash', ...extra,
  }));
  it('without checkpointing its Mamba2 layers run the split kernels (a cache in training), listed; only the 4 attention layers cache keys', () => {
    const plain = nano({ gradient_checkpointing: 'none' });
    assert.equal(plain.assumptions.find((x) => x.key === 'mamba_kernels')?.value, 'cuda (split kernels)');
    assert.equal(nano({ gradient_checkpointing: 'full' }).assumptions.find((x) => x.key === 'mamba_kernels')?.value, 'cuda');
    // GRPO, 8 completions of 512 + 3,584 tokens: 4 attention layers x 2 x 8 kv heads x 128 x 2 B per token, and each of the
    // 27 Mamba2 layers 128 x 80 x 128 + 12,288 x 4 elements x 2 B per sequence; the 25 MLP layers cache nothing.
    const e = nano({ gradient_checkpointing: 'full', micro_batch_size: 2, gradient_accumulation_steps: 4, rollout: { batch: 8, completion_len: 3584 } });
    // The round's larger tail here is the prefill (512 prompt tokens cached, one layer's no-grad forward).
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    const tokens = Number(/x (\d+) tokens/.exec(kv?.label ?? '')?.[1]);
    assert.equal(tokens, 512);
    assert.equal(kv?.bytes, 8 * 4 * 2 * 8 * 128 * 2 * tokens + 8 * 27 * (128 * 80 * 128 + 12_288 * 4) * 2);
  });
  it('padded batches take the split kernels even with checkpointing, and keep the masked scan input', () => {
    // Variable lengths with 2 sequences per micro-batch: the mask is not all ones, so cuda_kernels_forward takes
    // causal_conv1d_fn + mamba_chunk_scan_combined, whose x is x * attention_mask: 2 B x 8,192 tokens x 10,240 more per
    // layer than the unpadded split path (mamba2.py, nemotron_h split cases with a mask).
    const padded = nano({ gradient_checkpointing: 'full', micro_batch_size: 2, batch_lengths: 'variable' });
    assert.equal(padded.assumptions.find((x) => x.key === 'mamba_kernels')?.value, 'cuda (split kernels)');
    const masked = component(phase(nano({ gradient_checkpointing: 'none', micro_batch_size: 2, batch_lengths: 'variable' }), 'forward'), 'activations');
    const unpadded = component(phase(nano({ gradient_checkpointing: 'none', micro_batch_size: 2 }), 'forward'), 'activations');
    assert.equal(masked - unpadded, 27 * 2 * 8192 * 10_240);
  });
});

describe('estimate: Falcon-H1 (Mamba2 and attention side by side)', () => {
  const falcon = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> => run(setupFor('tiiuae/Falcon-H1-0.5B-Base', {
    method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, weights_dtype: 'bf16', mixed_precision: 'bf16', micro_batch_size: 2, seq_len: 4096,
    gradient_checkpointing: 'full', attention: 'flash', ...extra,
  }));
  it('generation keeps keys and values in every layer and a Mamba2 state per sequence in every layer', () => {
    // GRPO, 8 completions of 512 + 3,584 tokens: 36 layers x 2 x 2 kv heads x 64 x 2 B per cached token, and 36 x
    // (24 heads x 64 x state 128 + 1,792 conv channels x 4) x 2 B per sequence.
    const e = falcon({ gradient_accumulation_steps: 4, rollout: { batch: 8, completion_len: 3584 } });
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    const tokens = Number(/x (\d+) tokens/.exec(kv?.label ?? '')?.[1]);
    assert.ok(tokens === 512 || tokens === 4096, kv?.label);
    assert.equal(kv?.bytes, 8 * 36 * 2 * 2 * 64 * 2 * tokens + 8 * 36 * (24 * 64 * 128 + 1792 * 4) * 2);
  });
  it('the mixer keeps no norm rstd without mamba_rms_norm; the torch fallback keeps silu(gate) in its place', () => {
    // Fused kernel, LoRA (frozen base), b 2, s 4,096, inner 1,536, 1 group: with the gated norm (mamba_rms_norm) the kernel
    // also keeps an fp32 rstd per token and group: 4 B x 8,192 tokens x 36 layers (tools/activations/mamba2.py formula_bytes).
    const without = component(phase(falcon({ gradient_checkpointing: 'none' }), 'forward'), 'activations');
    const m = findModel('tiiuae/Falcon-H1-0.5B-Base');
    assert.ok(m.ok);
    const withNorm = component(phase(run(setupFor('tiiuae/Falcon-H1-0.5B-Base', {
      architecture: { ...m.model.config, mamba_rms_norm: true },
      method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, weights_dtype: 'bf16', mixed_precision: 'bf16', micro_batch_size: 2, seq_len: 4096,
      gradient_checkpointing: 'none', attention: 'flash',
    })), 'forward'), 'activations');
    assert.equal(withNorm - without, 36 * 4 * 8192);
    // torch_forward: y * silu(gate) keeps silu(gate) (2 B x T x d); the gated norm (gate first) keeps gate.float(),
    // silu(gate), y x silu(gate) (fp32) and an rsqrt per token and group: 12·T·d + 4·T (mamba2.py formula_bytes).
    const torch = (rms: boolean): number => component(phase(run(setupFor('tiiuae/Falcon-H1-0.5B-Base', {
      architecture: { ...m.model.config, mamba_rms_norm: rms }, mamba_kernels: 'torch',
      method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, weights_dtype: 'bf16', mixed_precision: 'bf16', micro_batch_size: 2, seq_len: 4096,
      gradient_checkpointing: 'none', attention: 'flash',
    })), 'forward'), 'activations');
    const T = 8192;
    const d = 1536;
    assert.equal(torch(true) - torch(false), 36 * (12 * T * d + 4 * T - 2 * T * d));
  });
});

describe('estimate: Jamba (Mamba-1 and attention layers, MoE every other layer)', () => {
  const jamba = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> => run(setupFor('ai21labs/Jamba-v0.1', {
    method: 'lora', lora: { r: 8, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'in_proj', 'x_proj', 'dt_proj', 'out_proj'] }, weights_dtype: 'bf16',
    mixed_precision: 'bf16', micro_batch_size: 1, seq_len: 4096, attention: 'flash', ...extra,
  }));
  it('the selective-scan kernels are an assumption; generation caches keys and values in the 4 attention layers only', () => {
    const e = jamba({ gradient_checkpointing: 'full', gradient_accumulation_steps: 4, rollout: { batch: 8, completion_len: 3584 } });
    assert.equal(e.assumptions.find((x) => x.key === 'mamba_kernels')?.value, 'cuda');
    // GRPO, 8 completions: 4 attention layers x 2 x 8 kv heads x 128 x 2 B per cached token, and each of the 28 Mamba-1
    // layers an SSM state of 8192 x 16 and the conv's last 4 inputs over 8192 channels, 2 B each, per sequence.
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    const tokens = Number(/x (\d+) tokens/.exec(kv?.label ?? '')?.[1]);
    assert.equal(kv?.bytes, 8 * 4 * 2 * 8 * 128 * 2 * tokens + 8 * 28 * 8192 * (16 + 4) * 2);
  });
  it('slow_forward keeps the discretized A and B and every step\'s state: about 20x the fused kernels', () => {
    // mamba1.py closed forms, frozen base (the LoRA adapters and the terms both paths share cancel), b 1, s 4096, inner
    // 8192, state 16, conv 4: fused 12·T·I + 4·T·N + 8·I·nc·N + 8·I (nc = 2 scan chunks of 2048 tokens); torch
    // 16·T·I + 2·I·(s + K - 1) + 6·T·N + 8·T·I·N + 6·I·N·s - 2·I·N.
    const T = 4096;
    const I = 8192;
    const N = 16;
    const fused = 12 * T * I + 4 * T * N + 8 * I * 2 * N + 8 * I;
    const torch = 16 * T * I + 2 * I * (T + 3) + 6 * T * N + 8 * T * I * N + 6 * I * N * T - 2 * I * N;
    const a = component(phase(jamba({ gradient_checkpointing: 'none' }), 'forward'), 'activations');
    const b = component(phase(jamba({ gradient_checkpointing: 'none', mamba_kernels: 'torch' }), 'forward'), 'activations');
    near(b - a, 28 * (torch - fused), 1e-12, 'torch over fused, 28 Mamba-1 layers');
    // A config with use_mamba_kernels: false runs slow_forward whatever is installed: the same as mamba_kernels torch.
    const m = findModel('ai21labs/Jamba-v0.1');
    assert.ok(m.ok);
    const off = run(setupFor('ai21labs/Jamba-v0.1', {
      architecture: { ...m.model.config, use_mamba_kernels: false }, method: 'lora', lora: { r: 8, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'in_proj', 'x_proj', 'dt_proj', 'out_proj'] },
      weights_dtype: 'bf16', mixed_precision: 'bf16', micro_batch_size: 1, seq_len: 4096, attention: 'flash', gradient_checkpointing: 'none',
    }));
    assert.equal(off.assumptions.find((x) => x.key === 'mamba_kernels')?.value, 'torch');
    assert.equal(component(phase(off, 'forward'), 'activations'), b);
  });
});

describe('estimate: Gated DeltaNet layers (Qwen3.5)', () => {
  const qwen35 = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> => run(setupFor('Qwen/Qwen3.5-9B', {
    method: 'full', weights_dtype: 'bf16', mixed_precision: 'none', optimizer: 'adamw', micro_batch_size: 1, seq_len: 2048, gradient_checkpointing: 'none', attention: 'flash', ...extra,
  }));
  it('the kernels are an assumption until set; the torch fallback keeps what tools/activations/gated_deltanet.py measured', () => {
    const fla = qwen35();
    assert.ok(fla.assumptions.some((a) => a.key === 'linear_attention_kernels' && a.value === 'fla'));
    const torch = qwen35({ linear_attention_kernels: 'torch' });
    assert.ok(!torch.assumptions.some((a) => a.key === 'linear_attention_kernels'));
    // Full fine-tune, bf16, one sequence of 2,048 tokens, 24 Gated DeltaNet layers (16 key heads, 32 value heads of 128,
    // conv 4 over 8,192 channels, hidden 4,096). gated_deltanet.py formula_bytes (variant qwen3_5_main, trainable):
    // fla (causal-conv1d + fla >= 0.5) T x (2h + 8 Hk dk + 8 Hk + 22 Hv dv + 146 Hv) + 8 Hv = 244,711,680 B; the torch
    // fallback 757,522,688 B.
    const T = 2048;
    assert.equal(T * (2 * 4096 + 8 * 16 * 128 + 8 * 16 + 22 * 32 * 128 + 146 * 32) + 8 * 32, 244_711_680);
    near(component(phase(torch, 'forward'), 'activations') - component(phase(fla, 'forward'), 'activations'), 24 * (757_522_688 - 244_711_680), 1e-12, 'torch fallback over fla, 24 layers');
  });
});

describe('estimate: activations (hand-derived from the HF Llama forward)', () => {
  it('PyTorch < 1.11 also saves the softmax input: + b·heads·s²·4 B per BERT-large layer in fp32, eager', () => {
    // derivatives.yaml before 1.11: _softmax: self: _softmax_backward_data(grad, result, dim, self); bert-large has
    // 16 heads; b=4, s=512: 4 x 16 x 512 x 512 x 4 B = 67,108,864 B more per layer.
    const arch = archOf('google-bert/bert-large-uncased');
    const plan = { arch, mode: 'fp32' as const, half: 4 as const, weightBytes: 4, batch: 4, seq: 512, attention: 'eager' as const, baseTrainable: true, normsTrainable: true, inputRequiresGrad: true, tp: 1, sequenceParallel: false };
    const now = layerActivations(plan);
    const old = layerActivations({ ...plan, softmaxSavesInput: true });
    assert.equal(old.bytesPerLayer - now.bytesPerLayer, 4 * 16 * 512 * 512 * 4);
  });

  it('pytorch_version 1.10 in a setup turns it on; a malformed version is a located error', () => {
    const base = { weights_dtype: 'fp32' as const, micro_batch_size: 4, seq_len: 512, attention: 'eager' as const };
    const act = (e: ReturnType<typeof run>): number => component(phase(e, 'forward'), 'activations');
    const current = run(setupFor('google-bert/bert-large-uncased', base));
    const old = run(setupFor('google-bert/bert-large-uncased', { ...base, pytorch_version: '1.10' }));
    assert.equal(act(old) - act(current), 24 * 4 * 16 * 512 * 512 * 4); // 24 layers
    assert.equal(act(run(setupFor('google-bert/bert-large-uncased', { ...base, pytorch_version: '1.11.0' }))), act(current));
    assert.throws(() => setupFor('google-bert/bert-large-uncased', { ...base, pytorch_version: 'latest' }));
  });

  it('Llama-3-8B, bf16, SDPA, full fine-tune, b=1 s=1024: 24·T·h + 8·T·f + 8·T + 4·a·s bytes per layer', () => {
    // RMSNorm x2: fp32 input copy 4Th + normalized 2Th + output 2Th + rsqrt 4T; attention: rotary q, repeat_kv k and v,
    // output (2·T·qd each) + fp32 logsumexp 4·a·s; MLP: gate, act(gate), up, product (2·T·f each).
    const arch = archOf('meta-llama/Meta-Llama-3-8B');
    const l = layerActivations({ arch, mode: 'half', half: 2, weightBytes: 2, batch: 1, seq: 1024, attention: 'sdpa', baseTrainable: true, normsTrainable: true, inputRequiresGrad: true, tp: 1, sequenceParallel: false });
    const T = 1024;
    assert.equal(l.bytesPerLayer, 24 * T * 4096 + 8 * T * 14336 + 8 * T + 4 * 32 * 1024);
  });

  it('a tiled MLP keeps only its input: Llama-3-8B full fine-tune, bf16, 8·T·f bytes of MLP tensors become 2·T·h', () => {
    // Full fine-tune: the MLP keeps its input (for the gate/up weight grads, 2Th), gate, act(gate), up and the product
    // (2·T·f each). DeepSpeed's TiledMLP keeps the input only; one shard's 8·T·f / shards is recomputed in backward.
    const arch = archOf('meta-llama/Meta-Llama-3-8B');
    const T = 8192;
    const plan = { arch, mode: 'half' as const, half: 2 as const, weightBytes: 2, batch: 1, seq: T, attention: 'flash' as const, baseTrainable: true, normsTrainable: true, inputRequiresGrad: true, tp: 1, sequenceParallel: false };
    const plain = layerActivations(plan);
    const tiled = layerActivations({ ...plan, tiledMlpShards: 2 });
    assert.equal(plain.bytesPerLayer - tiled.bytesPerLayer, 8 * T * 14336);
    // Backward of a tiled MLP holds one shard's recomputed tensors (8·T·f and the input kept for the weight gradients
    // 2·T·h, halved) and their gradients (3 x 2·T·f, halved), the input gradient 2·T·h and the residual stream's gradients 2 x 2·T·h;
    // with what the layer keeps it stays below the untiled layer.
    assert.equal(tiled.backwardWorkingBytes, (3 * 2 * T * 14336 + 8 * T * 14336 + 2 * T * 4096) / 2 + 2 * T * 4096 + 2 * 2 * T * 4096);
    assert.ok(tiled.bytesPerLayer + tiled.backwardWorkingBytes < plain.bytesPerLayer + plain.backwardWorkingBytes);
  });

  it('tiled_mlp: true takes ceil(seq_len / hidden) shards and says so; an MoE model gets a warning', () => {
    const e = run(setupFor('meta-llama/Llama-3.1-8B', { method: 'lora', weights_dtype: 'bf16', seq_len: 65536, gradient_checkpointing: 'full', attention: 'flash', loss: 'fused', tiled_mlp: true }));
    assert.ok(e.assumptions.some((x) => x.key === 'tiled_mlp' && x.value === '16 shards'));
    const plain = run(setupFor('meta-llama/Llama-3.1-8B', { method: 'lora', weights_dtype: 'bf16', seq_len: 65536, gradient_checkpointing: 'full', attention: 'flash', loss: 'fused' }));
    assert.ok(e.perGpu.peakBytes < plain.perGpu.peakBytes - 8 * GiB, `${e.perGpu.peakBytes} vs ${plain.perGpu.peakBytes}`);
    const moe = run(setupFor('Qwen/Qwen3-30B-A3B', { method: 'lora', weights_dtype: 'bf16', seq_len: 8192, tiled_mlp: 4 }));
    assert.ok(moe.warnings.some((w) => w.key === 'tiled_mlp'));
  });

  it('eager attention adds the fp32 softmax output and its bf16 copy: 6·b·a·s² bytes', () => {
    const arch = archOf('meta-llama/Llama-2-7b-hf');
    const base = { arch, mode: 'half' as const, half: 2 as const, weightBytes: 2, batch: 1, seq: 512, baseTrainable: true, normsTrainable: true, inputRequiresGrad: true, tp: 1, sequenceParallel: false };
    const eager = layerActivations({ ...base, attention: 'eager' }).bytesPerLayer;
    const flash = layerActivations({ ...base, attention: 'flash' }).bytesPerLayer;
    // No GQA here (32 kv heads): eager keeps q, k, v and a contiguous output copy; flash keeps q, k, v, out, the lse and
    // its 16-byte RNG state.
    assert.equal(eager - flash, 6 * 32 * 512 * 512 - 4 * 32 * 512 - 16);
  });

  it('full checkpointing keeps one layer input (b·s·h·2 B) per layer', () => {
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', gradient_checkpointing: 'full', micro_batch_size: 2, seq_len: 1024 }));
    assert.equal(component(phase(e, 'forward'), 'activations'), 32 * 2 * 1024 * 4096 * 2);
  });

  it('LoRA (fp32 adapters on q,v, frozen bf16 base) saves 2·T·f - 8·T·r bytes less per layer than a full fine-tune', () => {
    // Frozen weights need no saved inputs (mm saves its input only for the weight gradient), so the norms drop
    // their normalized copies (2 x 2Th) and down_proj its input (2Tf); PEFT adds an fp32 copy of the q/v input
    // (2 x 4Th) and lora_A outputs (2 x 4Tr). Net: 8Th + 2Tf - 8Th - 8Tr.
    const arch = archOf('meta-llama/Llama-2-7b-hf');
    const base = { arch, mode: 'half' as const, half: 2 as const, weightBytes: 2, batch: 1, seq: 2048, attention: 'sdpa' as const, inputRequiresGrad: true, tp: 1, sequenceParallel: false };
    const full = layerActivations({ ...base, baseTrainable: true, normsTrainable: true }).bytesPerLayer;
    const lora = layerActivations({ ...base, baseTrainable: false, normsTrainable: false, lora: { r: 8, dropout: 0, dtypeBytes: 4, targets: new Set(['q_proj', 'v_proj']) } }).bytesPerLayer;
    const T = 2048;
    assert.equal(full - lora, T * (2 * 11008 - 8 * 8));
  });
});

describe('estimate: logits and loss', () => {
  it('final RMSNorm + output head keep 8 / 4 / 6 B per token x hidden in bf16 (trained / frozen / head only) and 12 / 4 / 8 in fp32', () => {
    // Measured with torch.autograd.graph.saved_tensors_hooks on an HF-style RMSNorm + bias-free head (T=512, h=256,
    // torch 1.13 with the mean written as sum / h, which saves what PyTorch >= 2.0's mean saves): per T·h, plus the
    // fp32 rsqrt of each row (4 B per token).
    const arch = parseArchitecture(setupFor('meta-llama/Llama-3.2-1B').architecture);
    assert.ok(arch.ok);
    const T = 512;
    const h = arch.arch.hidden;
    const saved = (weightBytes: 2 | 4, normTrainable: boolean, headTrainable: boolean): number =>
      finalNormSaved({ arch: arch.arch, mode: weightBytes === 4 ? 'fp32' : 'half', half: weightBytes, weightBytes, tokens: T, normTrainable, headTrainable });
    const expect: Array<[2 | 4, boolean, boolean, number]> = [[2, true, true, 8], [2, false, false, 4], [2, false, true, 6], [4, true, true, 12], [4, false, false, 4], [4, false, true, 8]];
    for (const [wb, nt, ht, perTh] of expect) assert.equal(saved(wb, nt, ht), perTh * T * h + 4 * T, `${wb} B weights, norm ${nt}, head ${ht}`);
  });

  it('fused linear cross-entropy: Liger token chunks sized so one chunk of logits is about the input (Llama-3-8B, 2 x 2048 tokens)', () => {
    // liger_kernel/ops/fused_linear_cross_entropy.py: inc_factor = ceil(V/h) = ceil(128,256/4096) = 32;
    // chunk = next_pow2(ceil(4096/32)) = 128 tokens. Kept for backward: grad_input 4096 x 4096 x 2 B = 33,554,432 B and the
    // fp32 loss per token 16,384 B; live in forward: 128 x 128,256 x 2 B = 32,833,536 B of chunk logits.
    const l = lossMemory({ tokens: 4096, vocab: 128256, hidden: 4096, logitsBytes: 2, loss: 'fused', chunks: 8, softcap: false });
    assert.equal(l.savedBytes, 33_554_432 + 16_384);
    assert.equal(l.forwardTransientBytes, 32_833_536);
    assert.equal(l.backwardTransientBytes, 0);
  });

  it('full CE on Llama-3 vocab, b=2 s=4096: 4·T·V saved, 8·T·V of logit gradients in backward', () => {
    const TV = 8192 * 128256;
    const l = lossMemory({ tokens: 8192, vocab: 128256, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false });
    assert.equal(l.savedBytes, 4 * TV);
    assert.equal(l.backwardTransientBytes, 8 * TV);
    assert.equal(l.forwardTransientBytes, 6 * TV);
  });

  it('PyTorch < 1.11: log_softmax keeps its fp32 input as well (+4·T·V saved, no longer a forward temporary)', () => {
    const TV = 8192 * 128256;
    const now = lossMemory({ tokens: 8192, vocab: 128256, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false });
    const old = lossMemory({ tokens: 8192, vocab: 128256, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false, logSoftmaxSavesInput: true });
    assert.equal(old.savedBytes - now.savedBytes, 4 * TV);
    assert.equal(now.forwardTransientBytes - old.forwardTransientBytes, 4 * TV);
  });

  it('compiled chunked CE (torchtune compile_loss): bf16 chunks saved, backward writes one bf16 chunk gradient, no fp32 buffer', () => {
    // torchtune CEWithChunkedOutputLoss with compile: 8 bf16 logit chunks of 8192 x 128256 / 8 are saved; Inductor
    // fuses .float(), log-softmax and nll, so the backward of a chunk allocates only its 2-byte gradient.
    const TV = 8192 * 128256;
    const l = lossMemory({ tokens: 8192, vocab: 128256, logitsBytes: 2, loss: 'chunked', chunks: 8, softcap: false, compile: true });
    assert.equal(l.savedBytes, 2 * TV + 4 * 8192); // 2,101,379,072 B
    assert.equal(l.backwardTransientBytes, (2 * TV) / 8); // 262,668,288 B
    assert.equal(l.forwardTransientBytes, 0);
  });

  it('compile_loss: false keeps the eager loss under a compiled model (torchtitan compiles blocks only)', () => {
    const base = { weights_dtype: 'bf16' as const, micro_batch_size: 2, seq_len: 4096, loss: 'chunked' as const, compile: true };
    const loss = (e: ReturnType<typeof run>): number => component(phase(e, 'backward'), 'loss-backward');
    const eager = run(setupFor('meta-llama/Llama-3.2-3B', { ...base, compile: false }));
    const blocksOnly = run(setupFor('meta-llama/Llama-3.2-3B', { ...base, compile_loss: false }));
    const compiled = run(setupFor('meta-llama/Llama-3.2-3B', base));
    assert.equal(loss(blocksOnly), loss(eager));
    assert.ok(loss(compiled) < loss(eager));
  });
});

describe('estimate: totals, fit and provenance', () => {
  it('device = reserved + CUDA context; reserved >= allocated', () => {
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', method: 'lora', cuda_context_bytes: 600 * MiB }));
    assert.ok(e.perGpu.reservedBytes >= e.perGpu.peakBytes);
    assert.equal(e.perGpu.deviceBytes, e.perGpu.reservedBytes + 600 * MiB);
  });

  it('a 7B full fine-tune in bf16 with AdamW does not fit a 24 GiB card; LoRA does', () => {
    const gpu = { id: 'RTX-4090', memoryBytes: 24564 * MiB, source: 'test' };
    const full = run(setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', gradient_checkpointing: 'full' }), { gpu });
    assert.equal(full.fits, false);
    const lora = run(setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', method: 'lora', gradient_checkpointing: 'full', seq_len: 1024 }), { gpu });
    assert.equal(lora.fits, true);
    assert.ok((lora.headroomBytes ?? 0) > 2 * GiB);
  });

  it('lists every value that was not in the user files as an assumption with its source', () => {
    const e = run(setupFor('gpt2'), { provenance: { seq_len: { kind: 'file', file: 'x.vram.yaml', line: 3, key: 'seq_len' } } });
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
    const e = run(setupFor('mistralai/Mixtral-8x7B-v0.1', { method: 'qlora', weights_dtype: 'bf16', lora: { r: 16, target_modules: 'all-linear' }, quantization: { bits: 4 }, gradient_checkpointing: 'full' }));
    for (const p of e.perGpu.phases) for (const c of p.components) assert.ok(c.formula.length > 0, `${c.id} has a formula`);
  });
});

describe('estimate: gradients of weights used more than once', () => {
  // Autograd sums the gradients of a weight used twice in its input buffer: a new contribution and the running sum
  // coexist. Llama-3.2-3B: tied embeddings, vocab 128,256 x hidden 3,072 = 394,002,432 elements, 2 B in bf16.
  const VH = 128256 * 3072;
  const extra = (e: ReturnType<typeof run>, label: string): number => e.perGpu.phases.flatMap((p) => p.components).filter((c) => c.label.startsWith(label)).reduce((m, c) => Math.max(m, c.bytes), 0);
  const s = (x: Record<string, unknown>) => setupFor('meta-llama/Llama-3.2-3B', { weights_dtype: 'bf16', micro_batch_size: 2, seq_len: 4096, ...x });

  it('chunked output (torchtune): each chunk\'s head gradient next to the running sum, 788,004,864 B', () => {
    assert.equal(extra(run(s({ loss: 'chunked' })), 'Output head gradient of one chunk'), VH * 2);
    assert.equal(extra(run(s({ loss: 'full' })), 'Output head gradient of one chunk'), 0);
  });

  it('tied embeddings: the lookup\'s gradient meets the head\'s at the end of the backward; not for LoRA or a classifier head', () => {
    // Short sequences with checkpointing: the end of the backward (all gradients) is the backward's high point; the
    // embedding's backward runs after the first layer's, so its gradient does not meet that layer's recomputation.
    const end = { micro_batch_size: 1, seq_len: 256, gradient_checkpointing: 'full' };
    const full = run(s(end));
    assert.equal(phase(full, 'backward').note, 'end of backward: all gradients + the embedding gradient of the tied head');
    assert.equal(extra(full, 'Recomputed layer'), 0);
    assert.equal(extra(full, 'Embedding gradient before'), VH * 2);
    assert.equal(extra(run(s({ ...end, method: 'lora', lora: { r: 8, target_modules: ['q_proj', 'v_proj'] } })), 'Embedding gradient before'), 0);
    const bert = run(setupFor('google-bert/bert-large-uncased', { weights_dtype: 'fp32', micro_batch_size: 1, seq_len: 128, gradient_checkpointing: 'full', head: 'seq_cls' }));
    assert.equal(extra(bert, 'Embedding gradient before'), 0);
  });
});

describe('estimate: FSDP and ZeRO-3 gather quantized layers as stored', () => {
  it('QLoRA under FSDP full_shard gathers 4-bit codes and constants, the norms in bf16', () => {
    // Llama-3.1-8B layer: 218,103,808 linear params (q, o 4096²; k, v 4096 x 1024; gate, up, down 4096 x 14336) and
    // 2 x 4,096 norm weights. NF4 with double quantization: 0.5 + 1/64 + 4/(64·256) = 0.515869140625 B per param.
    const s = setupFor('meta-llama/Llama-3.1-8B', { method: 'qlora', weights_dtype: 'bf16', mixed_precision: 'bf16', quantization: { bits: 4, type: 'nf4', double_quant: true },
      lora: { r: 16, target_modules: 'all-linear' }, fsdp: 'full_shard', gpus_per_node: 8, micro_batch_size: 1, seq_len: 2048, gradient_checkpointing: 'full' });
    const gathered = (e: ReturnType<typeof run>): number => component(phase(e, 'backward'), 'gathered-params');
    const layer = 218_103_808 * 0.515869140625 + 8192 * 2;
    const root = 2 * 128_256 * 4096 * 2; // embeddings + head, unquantized, in the root unit
    // (The quantized share is taken over all blocks, whose count includes the final norm: within 1e-6.)
    assert.ok(Math.abs(gathered(run(s)) / (2 * layer + root) - 1) < 1e-6, `${gathered(run(s))} vs ${2 * layer + root}`);
    // Unquantized LoRA under FSDP gathers the same layers in bf16: 2 x 218,112,000 params x 2 B.
    const lora = run({ ...s, method: 'lora', quantization: undefined });
    assert.equal(gathered(lora), 2 * (218_103_808 + 8192) * 2 + root);
  });
});

describe('estimate: ZeRO-3 live parameters', () => {
  it('stage3_max_live_parameters 0 (Axolotl zero3.json) still gathers the module running: one 4096 x 14336 linear', () => {
    // DeepSpeed's coordinator gathers the current module and prefetches up to max_live minus what is available; with
    // 0 nothing is prefetched. Llama-3-8B's largest module: an MLP projection, 58,720,256 params x 2 B. The default
    // (1e9) keeps one layer (218,103,808 linear + 8,192 norm params) + the 5e7 prefetch bucket. Both add the norms, which stay unsharded
    // (below the persistence threshold): 32 x 2 x 4096 + 4096 = 266,240 params x 2 B.
    const base = { weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, master_weights: true, zero_stage: 3 as const, gpus_per_node: 8, gradient_checkpointing: 'full' as const };
    const gathered = (e: ReturnType<typeof run>): number => phase(e, 'backward').components.find((c) => c.label === 'ZeRO-3 gathered parameters')!.bytes;
    const norms = 266_240 * 2;
    assert.equal(gathered(run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, zero_buckets: { stage3_max_live_parameters: 0 } }))), 58_720_256 * 2 + norms);
    assert.equal(gathered(run(setupFor('meta-llama/Meta-Llama-3-8B', base))), (218_112_000 + 5e7) * 2 + norms);
  });
});

describe('estimate: FSDP2 float8 all-gather', () => {
  it('gathers the linear weights in fp8: 1 B less per linear weight of the two units in flight', () => {
    // torchao enable_fsdp_float8_all_gather (Axolotl fp8_enable_fsdp_float8_all_gather): Llama-3.2-3B's decoder layer has
    // 2 x 3072² + 2 x 3072 x 1024 + 3 x 3072 x 8192 = 100,663,296 linear weights; the current and the prefetched unit
    // hold them at 1 B instead of 2, the norms stay 2 B.
    const base = { method: 'full' as const, weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, micro_batch_size: 1, seq_len: 2048, gpus_per_node: 8, fsdp: 'full_shard' as const, gradient_checkpointing: 'full' as const };
    const bf16 = run(setupFor('meta-llama/Llama-3.2-3B', base));
    const fp8 = run(setupFor('meta-llama/Llama-3.2-3B', { ...base, fp8_all_gather: true }));
    const g = (e: ReturnType<typeof run>): number => phase(e, 'forward').components.filter((c) => c.label === 'FSDP all-gathered units').reduce((t, c) => t + c.bytes, 0);
    assert.equal(2 * 3072 * 3072 + 2 * 3072 * 1024 + 3 * 3072 * 8192, 100_663_296);
    near(g(bf16) - g(fp8), 2 * 100_663_296, 1e-5, 'two units of linear weights at 1 B less (the final norm spread over the layers)');
  });
});

describe('estimate: FSDP root unit and the reduce-scatter stream pool', () => {
  // Llama-3.1-8B: vocab 128,256 x hidden 4,096 = 525,336,576 parameters in the embedding and as many in the untied
  // output head. FSDP keeps its root unit (what per-layer wrapping leaves: embeddings, final norm, head) unsharded
  // from forward to backward (fully_shard: "The root FSDP state has its value specially set to False").
  const VH = 128256 * 4096;
  const fsdp8 = (extra: Record<string, unknown> = {}) => setupFor('meta-llama/Llama-3.1-8B', {
    weights_dtype: 'bf16', master_weights: true, mixed_precision: 'bf16', fsdp: 'full_shard', gpus_per_node: 8,
    micro_batch_size: 2, seq_len: 8192, gradient_checkpointing: 'selective', attention: 'flash', ...extra,
  });
  const rootUnit = (p: ReturnType<typeof phase>): number => p.components.filter((c) => c.label.startsWith('FSDP root unit')).reduce((s, c) => s + c.bytes, 0);

  it('holds embeddings + head in bf16 through the forward and the whole backward, not at the optimizer step', () => {
    const e = run(fsdp8());
    assert.equal(rootUnit(phase(e, 'forward')), 2 * VH * 2); // 2,101,346,304 B
    assert.equal(rootUnit(phase(e, 'backward')), 2 * VH * 2);
    assert.equal(rootUnit(phase(e, 'optimizer')), 0);
  });

  it('with embeddings and head wrapped on their own (torchtune custom_sharded_layers) only the head is gathered, for the loss', () => {
    const e = run(fsdp8({ fsdp_shard_embeddings: true }));
    assert.equal(rootUnit(phase(e, 'forward')), 0);
    const head = phase(e, 'forward').components.filter((c) => c.label.startsWith('Output projection')).reduce((s, c) => s + c.bytes, 0);
    assert.equal(head, VH * 2); // 1,050,673,152 B
  });

  it('counts the gradient shards cached on the reduce-scatter stream as reserved when the peak precedes them', () => {
    const e = run(fsdp8());
    const pool = e.perGpu.runtime.find((r) => r.id === 'stream-pools');
    assert.ok(pool, 'stream-pool term present');
    // fp32 gradient shards: 8,030,261,248 x 4 B / 8 = 4,015,130,624 B, minus the gradients already allocated at the peak.
    const gradsAtPeak = e.perGpu.components.filter((c) => c.id === 'gradients').reduce((s, c) => s + c.bytes, 0);
    assert.equal(pool.bytes, 8030261248 * 4 / 8 - gradsAtPeak);
    const reserve = e.perGpu.runtime.find((r) => r.id === 'allocator-reserve')!.bytes;
    assert.equal(e.perGpu.reservedBytes, e.perGpu.peakBytes + reserve + pool.bytes);
  });

  it('has no stream-pool term when gradients persist across micro-steps (accumulation keeps them allocated)', () => {
    const e = run(fsdp8({ gradient_accumulation_steps: 4 }));
    assert.equal(e.perGpu.runtime.find((r) => r.id === 'stream-pools'), undefined);
  });
});

describe('estimate: IA3', () => {
  it('PEFT IA3 on Llama-2-7B: one fp32 value per k/v output and per down_proj input: 32 x (4096 + 4096 + 11008) x 4 B', () => {
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', method: 'ia3', micro_batch_size: 1, seq_len: 512 }));
    assert.equal(e.parameters.trainable, 32 * (4096 + 4096 + 11008));
    assert.equal(component(phase(e, 'optimizer'), 'adapter-weights'), 32 * (4096 + 4096 + 11008) * 4);
    assert.ok(e.warnings.some((w) => w.key === 'ia3'), 'no ia3 block: PEFT defaults, with a warning');
  });

  it('keeps the fp32 copies the vectors multiply for their gradient: k and v outputs and the down_proj input', () => {
    // Per layer and token, bf16 base, fp32 vectors: 4 B x (kv + kv + intermediate) beyond what the frozen layer saves.
    const base = { weights_dtype: 'bf16' as const, micro_batch_size: 1, seq_len: 512 };
    const frozenish = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, method: 'ia3', ia3: { target_modules: ['o_proj'], feedforward_modules: [] } }));
    const ia3 = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, method: 'ia3' }));
    const acts = (e: ReturnType<typeof run>): number => component(phase(e, 'forward'), 'activations');
    // o_proj's output copy (4 B x 4096) is replaced by k, v outputs and the down_proj input: 4 B x (4096 + 4096 + 11008 - 4096).
    assert.equal(acts(ia3) - acts(frozenish), 32 * 512 * 4 * (4096 + 4096 + 11008 - 4096));
  });
});

describe('estimate: quantized base weights in a layer', () => {
  it('QLoRA: the largest 4-bit weight is dequantized whole for its matmul (Llama-2-70B MLP 28672 x 8192 x 2 B = 469,762,048 B)', () => {
    // bitsandbytes MatMul4Bit.forward: F.linear(A, dequantize_4bit(B).to(A.dtype).t()); backward the same for grad_A.
    const e = run(setupFor('meta-llama/Llama-2-70b-hf', { method: 'qlora', weights_dtype: 'bf16', quantization: { bits: 4 }, gradient_checkpointing: 'full', seq_len: 128 }));
    const bwd = phase(e, 'backward');
    const dq = bwd.components.find((c) => c.label.startsWith('Dequantized base weight'));
    assert.equal(dq?.bytes, 28672 * 8192 * 2);
    assert.match(bwd.note, /layer/);
  });
});

describe('estimate: paired preference training (DPO)', () => {
  // Llama-3-8B (V = 128,256), bf16 weights under bf16 autocast, one example of 1,024 tokens: chosen + rejected make
  // 2 sequences, T = 2,048 tokens, T·V = 262,668,288.
  const TV = 2048 * 128_256;
  const sV = 1024 * 128_256;
  const base = { weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, micro_batch_size: 1, seq_len: 1024, gradient_checkpointing: 'full' as const };
  const lora = { ...base, method: 'lora' as const, lora: { r: 16, target_modules: ['q_proj', 'v_proj'] } };

  it('runs the chosen and the rejected sequence together and takes TRL\'s row-by-row log-probs', () => {
    const sft = run(setupFor('meta-llama/Meta-Llama-3-8B', lora));
    const dpo = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...lora, preference: { reference: 'adapters-off' } }));
    assert.equal(component(phase(dpo, 'forward'), 'activations'), 2 * component(phase(sft, 'forward'), 'activations'));
    // trl selective_log_softmax: the fp32 log_softmax of every row is kept (4·T·V). In backward each row's saved output is
    // freed once its log_softmax backward has run while its bf16 gradient waits for the stack: the kept outputs and one
    // row's fp32 temporaries (2 x 4·s·V) at the start, the rows' gradients and their stack (2 x 2·T·V = the 4·T·V the
    // outputs took) at the end; beyond the saved outputs, max(8·s·V, 4·T·V - 4·T·V) (tools/peak GRPO cases: the same rows).
    const l = lossMemory({ tokens: 2048, vocab: 128_256, hidden: 4096, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false, preferenceRowTokens: 1024, amp: true });
    assert.deepEqual([l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes], [4 * TV, 2 * TV + Math.max(4 * sV, TV), 2 * 4 * sV]);
    // torchtune's get_batch_log_probs: one log_softmax in bf16 (kept: 2·T·V); backward: gather and log_softmax gradients.
    const tt = lossMemory({ tokens: 2048, vocab: 128_256, hidden: 4096, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false, nativeLogSoftmax: true });
    assert.deepEqual([tt.savedBytes, tt.forwardTransientBytes, tt.backwardTransientBytes], [2 * TV, 2 * TV, 4 * TV]);
    const saved = phase(dpo, 'forward').components.find((c) => c.label.startsWith('Logits and cross-entropy'));
    assert.ok(saved && saved.bytes >= 4 * TV && /row by row/.test(saved.formula));
    // The reference log-probs (adapters disabled, no grad) while the policy's are held: logits 2·T·V + one row's fp32
    // copy and log_softmax 2 x 4·s·V = 525,336,576 + 1,050,673,152 B.
    const ref = phase(dpo, 'forward').components.find((c) => c.label.startsWith('Reference forward'));
    assert.equal(ref?.bytes, 2 * TV + 8 * sV);
    assert.equal(ref?.bytes, 1_576_009_728);
  });

  it('KTO: single completions, the KL batch\'s logits held through the policy forward, two reference forwards', () => {
    // micro_batch_size 2 x 1,024 tokens = T·V of the paired case; trl KTOTrainer: the policy's no-grad KL logits
    // (2·T·V) stay referenced through its forward; the reference holds the completions' and the KL batch's logits
    // (2 x 2·T·V) and one row's fp32 copy and log_softmax (2 x 4·s·V).
    const kto = { ...lora, micro_batch_size: 2 };
    const sft = run(setupFor('meta-llama/Meta-Llama-3-8B', kto));
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...kto, preference: { reference: 'adapters-off', paired: false } }));
    assert.equal(component(phase(e, 'forward'), 'activations'), component(phase(sft, 'forward'), 'activations'));
    const ref = phase(e, 'forward').components.find((c) => c.label.startsWith('Reference forward'));
    assert.equal(ref?.bytes, 2 * TV + 8 * sV + 2 * TV);
  });

  it('a frozen reference copy holds the weights again; precomputed or reference-free log-probs add nothing', () => {
    const full = { ...base, method: 'full' as const, optimizer: 'adamw_8bit' as const };
    const sft = run(setupFor('meta-llama/Meta-Llama-3-8B', full));
    const copy = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...full, preference: { reference: 'copy' } }));
    const weights = (e: ReturnType<typeof run>): number => component(phase(e, 'optimizer'), 'weights');
    assert.equal(weights(copy) - weights(sft), 8_030_261_248 * 2);
    for (const reference of ['precomputed', 'none'] as const) {
      const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...full, preference: { reference } }));
      assert.equal(weights(e), weights(sft));
      assert.ok(!phase(e, 'forward').components.some((c) => c.label.startsWith('Reference forward')));
    }
    // Under ZeRO-3 over 8 GPUs the copy is sharded like the policy.
    const z3 = { ...full, gpus_per_node: 8, zero_stage: 3 as const, master_weights: true };
    assert.equal(weights(run(setupFor('meta-llama/Meta-Llama-3-8B', { ...z3, preference: { reference: 'copy' } }))) - weights(run(setupFor('meta-llama/Meta-Llama-3-8B', z3))), (8_030_261_248 * 2) / 8);
  });
});

describe('estimate: DoRA', () => {
  it('keeps the base output and the LoRA output of every target for the magnitude\'s gradient: +24,576 B per token and layer (Llama-3.2-3B, q and v)', () => {
    // peft/tuners/lora/dora.py: (m / ||W + sBA|| - 1) * base_result + m / ||W + sBA|| * lora_result * s with m trained:
    // both products keep their tensor operand. bf16 base outputs (2 B) and fp32 LoRA outputs (4 B) of q (3,072
    // features) and v (1,024): 4,096 x 6 B per token. Checked against the profiler: tools/peak DoRA cases.
    const arch = archOf('meta-llama/Llama-3.2-3B');
    const plan = { arch, mode: 'half' as const, half: 2 as const, weightBytes: 2, batch: 1, seq: 1, attention: 'sdpa' as const, baseTrainable: false, normsTrainable: false,
      inputRequiresGrad: true, tp: 1, sequenceParallel: false };
    const lora = { r: 32, dropout: 0, dtypeBytes: 4, targets: new Set(['q_proj', 'v_proj']) };
    assert.equal(layerActivations({ ...plan, lora: { ...lora, dora: true } }).bytesPerLayer - layerActivations({ ...plan, lora }).bytesPerLayer, 24_576);
    // The magnitude vectors train: one fp32 value per output feature of each target, 28 x 4,096.
    const base = { method: 'lora' as const, weights_dtype: 'bf16' as const, seq_len: 768, micro_batch_size: 4 };
    const e = run(setupFor('meta-llama/Llama-3.2-3B', { ...base, lora: { r: 32, target_modules: ['q_proj', 'v_proj'], use_dora: true } }));
    const l = run(setupFor('meta-llama/Llama-3.2-3B', { ...base, lora: { r: 32, target_modules: ['q_proj', 'v_proj'] } }));
    assert.equal(e.parameters.trainable - l.parameters.trainable, 28 * 4096);
    // Setups that share one architecture object (the advice search spreads its candidates from the current setup)
    // keep their own parameter inventories with and without DoRA.
    const s = setupFor('meta-llama/Llama-3.2-3B', { ...base, lora: { r: 32, target_modules: ['q_proj', 'v_proj'], use_dora: true } });
    const plain = run({ ...s, lora: { ...s.lora!, use_dora: false } });
    assert.equal(run(s).parameters.trainable - plain.parameters.trainable, 28 * 4096);
    // Without checkpointing the backward does not recompute the weight norm; the forward does, one target at a time:
    // an identity of 3,072 x 3,072, the LoRA product, the fp32 base weight and their sum (q: 4 x 3,072² x 4 B).
    const norm = phase(e, 'forward').components.find((c) => c.label.startsWith('DoRA weight norm'));
    assert.ok(!norm || norm.bytes === 4 * 3072 * 3072 * 4);
  });
});

describe('estimate: GaLore', () => {
  it('keeps AdamW states for the projected gradients of the targets and the projection matrices (Llama-3-8B, rank 128)', () => {
    // Per layer, projected to 128 x max(rows, cols): q, k, v, o 128 x 4,096 each, gate, up, down 128 x 14,336 each =
    // 7,602,176; x 32 = 243,269,632. Projection matrices 128 x min(rows, cols): 128 x (5 x 4,096 + 2 x 1,024) x 32 =
    // 92,274,688. Untargeted: embedding and head 2 x 128,256 x 4,096 and the norms 65 x 4,096. Pure bf16 AdamW:
    // 2 states x 2 B x 1,294,209,024 + 2 B x 92,274,688 = 5,361,385,472 B (instead of 32.1 GB for full states).
    const base = { method: 'full' as const, weights_dtype: 'bf16' as const, optimizer: 'adamw' as const, micro_batch_size: 1, seq_len: 1024, gradient_checkpointing: 'full' as const };
    const g = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, galore: { rank: 128 } }));
    assert.equal(component(phase(g, 'optimizer'), 'optimizer-states'), 5_361_385_472);
    // The SVD of the largest target (14,336 x 4,096) at a projection update: (14,336 x 4,096 + 14,336 x 4,096 + 4,096²) x 4 B.
    const svd = phase(g, 'optimizer').components.find((c) => c.label.startsWith('GaLore projection update'));
    assert.equal(svd?.bytes, (14_336 * 4096 * 2 + 4096 * 4096) * 4);
    // Layer-wise GaLore steps each parameter in its gradient hook: no gradient buffers persist.
    const lw = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, galore: { rank: 128, layerwise: true } }));
    assert.ok(component(phase(lw, 'optimizer'), 'gradients') < component(phase(g, 'optimizer'), 'gradients') / 100);
    // APOLLO keeps the same projected states but no projection matrices (regenerated from a seed) and runs no SVD.
    const ap = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, galore: { kind: 'apollo', rank: 128 } }));
    assert.equal(component(phase(ap, 'optimizer'), 'optimizer-states'), 5_361_385_472 - 2 * 92_274_688);
    assert.ok(!phase(ap, 'optimizer').components.some((c) => c.label.startsWith('GaLore projection update')));
    // Targets by group: 'attn' only projects q, k, v and o.
    const attn = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, galore: { rank: 128, target_modules: ['attn'] } }));
    assert.ok(component(phase(attn, 'optimizer'), 'optimizer-states') > component(phase(g, 'optimizer'), 'optimizer-states'));
  });
});

describe('estimate: Adam-mini and Muon', () => {
  it('Adam-mini: a first moment per parameter, a second per matrix row; Muon: one momentum per hidden-matrix parameter', () => {
    // Llama-3-8B pure bf16 full fine-tune. Hidden matrices: 32 x 218,103,808 = 6,979,321,856; embedding and head
    // 2 x 128,256 x 4,096 = 1,050,673,152; vectors (norms) 65 x 4,096 = 266,240.
    const base = { method: 'full' as const, weights_dtype: 'bf16' as const, micro_batch_size: 1, seq_len: 1024, gradient_checkpointing: 'full' as const };
    const states = (optimizer: 'adam_mini' | 'muon'): number => component(phase(run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, optimizer })), 'optimizer'), 'optimizer-states');
    // Muon: 2 B x 6,979,321,856 + 2 x 2 B x (1,050,673,152 + 266,240).
    assert.equal(states('muon'), 2 * 6_979_321_856 + 4 * (1_050_673_152 + 266_240));
    // Adam-mini: 2 B x 8,030,261,248 + 4 B x (rows: 32 x (4,096 + 1,024 + 1,024 + 4,096 + 14,336 + 14,336 + 4,096) + 2 x 128,256, and the norms).
    const rows = 32 * (4096 + 1024 + 1024 + 4096 + 14_336 + 14_336 + 4096) + 2 * 128_256;
    assert.equal(states('adam_mini'), 2 * 8_030_261_248 + 4 * (rows + 266_240));
  });
});

describe('estimate: torchao 4-bit AdamW', () => {
  it('keeps 4-bit codes and a scale per 128 elements for tensors of >= 4096 elements, the parameter dtype for the rest', () => {
    // Llama-3-8B pure bf16 full fine-tune: every matrix (8,029,995,008 params) has >= 4096 elements and a multiple of
    // 128; the 65 norms (266,240) keep bf16 states. torchao/optim/adam.py _new_buffer, subclass_4bit.py.
    const base = { method: 'full' as const, weights_dtype: 'bf16' as const, micro_batch_size: 1, seq_len: 1024, gradient_checkpointing: 'full' as const, optimizer: 'adamw_4bit' as const };
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', base));
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-states'), 2 * (8_029_995_008 * (0.5 + 2 / 128) + 266_240 * 2));
    // The step dequantizes one parameter's two states to fp32: the largest is the embedding (or head), 128,256 x 4,096.
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-step'), 128_256 * 4096 * 2 * 4);
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
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { method: 'full', weights_dtype: 'bf16', micro_batch_size: 1, seq_len: 1024, gradient_checkpointing: 'full', badam: { mode: 'layer' } }));
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
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { method: 'full', weights_dtype: 'bf16', micro_batch_size: 1, seq_len: 1024, gradient_checkpointing: 'full', badam: { mode: 'ratio', update_ratio: 0.05 } }));
    const opt = phase(e, 'optimizer');
    assert.equal(component(opt, 'gradients'), Math.round(trainable * 0.05 * (2 + 16)));
    assert.equal(component(opt, 'master-weights'), 0);
    // keep_mask: one mask per tensor shape, (4096, 4096) for q and o, (1024, 4096) for k and v, (14336, 4096) for gate and
    // up, (4096, 14336) for down, and the norms' (4096,): 5 % of their entries, a 2 B value and the indices.
    const masks = (Math.floor(4096 * 4096 * 0.05) + Math.floor(1024 * 4096 * 0.05) + 2 * Math.floor(14_336 * 4096 * 0.05)) * 18 + Math.floor(4096 * 0.05) * 10;
    assert.equal(component(opt, 'optimizer-states'), Math.round(2 * 0.05 * 2 * trainable) + masks);
    // LLaMA-Factory refuses it in distributed training (hparams/parser.py).
    assert.ok(!e.warnings.some((w) => w.key === 'badam'));
    const two = run(setupFor('meta-llama/Meta-Llama-3-8B', { method: 'full', weights_dtype: 'bf16', micro_batch_size: 1, seq_len: 1024, gpus_per_node: 2, badam: { mode: 'ratio', update_ratio: 0.05 } }));
    assert.ok(two.warnings.some((w) => w.key === 'badam' && /one GPU only/.test(w.message)));
  });
});

describe('estimate: Liger kernels', () => {
  it('keep the norm input instead of its fp32 copy, and the gate and up projections without the activation: -45,056 B per token', () => {
    // Llama-3-8B LoRA on q, v under bf16 autocast, one token. Per block PyTorch's RMSNorm keeps its fp32 input copy
    // (2 x 4 x 4096 B for the two norms) where LigerRMSNormFunction keeps the bf16 input (2 x 2 x 4096 B), and the MLP
    // keeps act(gate) (14,336 x 2 B) that LigerSiLUMulFunction recomputes: 16,384 + 28,672 = 45,056 B less.
    const arch = archOf('meta-llama/Meta-Llama-3-8B');
    const plan = { arch, mode: 'amp' as const, half: 2 as const, weightBytes: 2, batch: 1, seq: 1, attention: 'sdpa' as const, baseTrainable: false, normsTrainable: false,
      inputRequiresGrad: true, lora: { r: 16, dropout: 0, dtypeBytes: 4, targets: new Set(['q_proj', 'v_proj']) }, tp: 1, sequenceParallel: false };
    const pytorch = layerActivations({ ...plan, kernels: 'pytorch' });
    const liger = layerActivations({ ...plan, kernels: 'liger' });
    assert.equal(pytorch.bytesPerLayer - liger.bytesPerLayer, 45_056);
  });
});

describe('estimate: Unsloth kernels', () => {
  const seven = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
  const unsloth = { method: 'qlora' as const, quantization: { bits: 4 as const, type: 'nf4' as const, double_quant: true }, weights_dtype: 'bf16' as const,
    mixed_precision: 'bf16' as const, micro_batch_size: 1, seq_len: 4096, gradient_checkpointing: 'full' as const, activation_offloading: true,
    kernels: 'unsloth' as const, attention: 'flash' as const, loss: 'fused' as const, lora: { r: 16, alpha: 16, dropout: 0, target_modules: seven } };

  it('a Llama-3-8B block keeps what Unsloth\'s kernels save: 110,728 B per token', () => {
    // unsloth/kernels: RMSNorm input 8,192 + inverse RMS 4, LoRA_QKV input 8,192, Q 8,192, K 2,048, V 2,048, attention
    // output 8,192 + logsumexp 32 heads x 4 = 128, residual 8,192 + 4, LoRA_MLP input 8,192, e 28,672, g 28,672 bytes per token.
    const arch = archOf('meta-llama/Meta-Llama-3-8B');
    const l = layerActivations({ arch, mode: 'amp', half: 2, weightBytes: 2, batch: 1, seq: 4096, attention: 'flash', baseTrainable: false, normsTrainable: false,
      inputRequiresGrad: true, lora: { r: 16, dropout: 0, dtypeBytes: 4, targets: new Set(seven) }, tp: 1, sequenceParallel: false, quantizedBase: true, kernels: 'unsloth' });
    assert.equal(l.bytesPerLayer, 4096 * 110_728);
    // Backward: the down projection's input gradient (T x 14,336 x 2 B) + the residual gradient in and out (2 x T x 4,096 x 2 B).
    assert.equal(l.backwardWorkingBytes, 4096 * (28_672 + 16_384));
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', unsloth));
    assert.equal(component(phase(e, 'backward'), 'checkpoint-recompute'), 4096 * 110_728);
    assert.ok(e.assumptions.some((x) => x.key === 'kernels' && x.value === 'unsloth'));
  });

  it('falls back to the PyTorch layer, and says so, when LoRA has dropout or leaves a projection out', () => {
    const pytorch = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...unsloth, kernels: 'pytorch' as const, lora: { ...unsloth.lora, dropout: 0.05 } }));
    const dropout = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...unsloth, lora: { ...unsloth.lora, dropout: 0.05 } }));
    assert.equal(component(phase(dropout, 'backward'), 'checkpoint-recompute'), component(phase(pytorch, 'backward'), 'checkpoint-recompute'));
    assert.ok(dropout.assumptions.some((x) => x.key === 'kernels' && x.value === 'pytorch layers'));
    const qv = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...unsloth, lora: { ...unsloth.lora, target_modules: ['q_proj', 'v_proj'] } }));
    assert.ok(qv.assumptions.some((x) => x.key === 'kernels' && x.value === 'pytorch layers'));
  });
});

describe('estimate: autocast over 4-bit base weights', () => {
  it('copies only the fp32 LoRA adapters to 16 bits, not the 4-bit weights bitsandbytes dequantizes inside its matmul', () => {
    // Llama-3-8B QLoRA r=8 on q_proj, v_proj, other parameters stored in fp32, bf16 autocast: per layer the adapters
    // hold 8 x (4096 + 4096) + 8 x (4096 + 1024) = 106,496 elements; 32 layers x 106,496 x 2 B = 6,815,744 B.
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true },
      lora: { r: 8, target_modules: ['q_proj', 'v_proj'] }, weights_dtype: 'fp32', mixed_precision: 'bf16', micro_batch_size: 1, seq_len: 2048, gradient_checkpointing: 'full' }));
    const fwd = e.perGpu.phases.find((p) => p.phase === 'forward')!;
    assert.equal(fwd.components.find((c) => c.id === 'autocast-weight-copies')?.bytes, 6_815_744);
  });
});

describe('estimate: variable-length batches', () => {
  // Qwen2-7B (vocab 152,064), LoRA on bf16 weights without autocast: the logits are bf16 and the loss is the full
  // fp32-upcast cross-entropy, whose vocabulary-sized tensors peak at 4·T·V saved + 8·T·V of logit gradients.
  const base = { weights_dtype: 'bf16' as const, method: 'lora' as const, gradient_checkpointing: 'full' as const, micro_batch_size: 1, seq_len: 2048 };
  const lossSet = 12 * 2048 * 152_064; // 3,737,124,864 B

  it('the cache of earlier, shorter batches is one more set of loss tensors (12·T·V = 3,737,124,864 B), beside the fit', () => {
    const gpu = { id: 'A100-80GB', memoryBytes: 80 * GiB, source: 'test' };
    const fixed = run(setupFor('Qwen/Qwen2-7B', base), { gpu });
    const v = run(setupFor('Qwen/Qwen2-7B', { ...base, batch_lengths: 'variable' }), { gpu });
    assert.equal(fixed.perGpu.variableLengths, undefined);
    const vl = v.perGpu.variableLengths!;
    assert.equal(vl.cacheBytes, lossSet);
    assert.equal(vl.reservedBytes, v.perGpu.reservedBytes + lossSet);
    assert.equal(vl.deviceBytes, v.perGpu.deviceBytes + lossSet);
    // The allocator frees its cache before an out-of-memory error: the fit and the per-step figures do not change.
    assert.equal(v.perGpu.deviceBytes, fixed.perGpu.deviceBytes);
    assert.equal(v.fits, fixed.fits);
    assert.ok(v.assumptions.some((a) => a.key === 'batch_lengths.cache' && /one set/.test(a.value)));
  });

  it('keeps no cache of earlier batches with expandable segments or with the cache emptied every few steps', () => {
    const fixed = run(setupFor('Qwen/Qwen2-7B', base));
    for (const extra of [{ expandable_segments: true }, { empty_cache_steps: 10 }]) {
      const e = run(setupFor('Qwen/Qwen2-7B', { ...base, ...extra, batch_lengths: 'variable' }));
      assert.equal(e.perGpu.variableLengths, undefined);
      assert.equal(e.perGpu.reservedBytes, fixed.perGpu.reservedBytes);
      assert.ok(e.assumptions.some((a) => a.key === 'batch_lengths.cache' && a.value === 'none kept over the run'));
    }
  });

  it('stops at the GPU\'s capacity', () => {
    const probe = run(setupFor('Qwen/Qwen2-7B', { ...base, batch_lengths: 'variable' }));
    const gpu = { id: 'small', memoryBytes: probe.perGpu.deviceBytes + GiB, source: 'test' };
    const vl = run(setupFor('Qwen/Qwen2-7B', { ...base, batch_lengths: 'variable' }), { gpu }).perGpu.variableLengths!;
    assert.equal(vl.cacheBytes, GiB);
    assert.equal(vl.deviceBytes, gpu.memoryBytes);
    assert.match(vl.formula, /capped/);
  });

  it('a fused linear-cross-entropy caches only its input gradient, per-token loss and one chunk of logits', () => {
    // Liger chunking at T = 8192, h = 3584, V = 152,064: ceil(V/h) = 43, ceil(8192/43) = 191 -> 256 tokens a chunk.
    // T·h·2 + 4·T + 256·V·2 = 58,720,256 + 32,768 + 77,856,768 = 136,609,792 B.
    const vl = run(setupFor('Qwen/Qwen2-7B', { ...base, seq_len: 8192, loss: 'fused', batch_lengths: 'variable' })).perGpu.variableLengths!;
    assert.equal(vl.cacheBytes, 136_609_792);
  });
});

describe('estimate: GRPO rollouts', () => {
  // Qwen2.5-7B-Instruct: 28 layers, 4 kv heads of 128, vocab 152,064. LoRA r=16 on every linear layer, bf16 weights under
  // bf16 autocast, 8 sequences per micro-batch of a 512-token prompt and a 256-token completion, 4 micro-batches per
  // round (32 completions), checkpointing on.
  const V = 152_064;
  const kvPerToken = 28 * 2 * 4 * 128 * 2; // 57,344 B: keys and values of every layer, bf16
  const grpo = {
    method: 'lora' as const, lora: { r: 16, target_modules: 'all-linear' as const }, weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const,
    micro_batch_size: 8, gradient_accumulation_steps: 4, seq_len: 768, gradient_checkpointing: 'full' as const,
    rollout: { batch: 32, completion_len: 256 },
  };
  const qwen = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof setupFor> => setupFor('Qwen/Qwen2.5-7B-Instruct', { ...grpo, ...extra });

  it('vLLM engines: a colocated share too small for the weights and one sequence, a server whose default max_model_len does not fit', () => {
    const g = findGpu('RTX-4090');
    assert.ok(g.ok);
    const gpu = { gpu: g.gpu };
    // Colocated at 0.3 of the GPU: the 16-bit weights 7,615,616,512 x 2 B alone exceed the share. vLLM's profile run
    // (TRL: 4,096 tokens, 32 sequences) peaks in the forward: 4,096 x (6 x 18,944 + 8 x 3,584) bytes, above the sampler's
    // 32 x 152,064 logits x 32 B + 2 x 4,096 x 3,584.
    const colocated = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate' } }), gpu);
    const w = colocated.warnings.find((x) => x.key === 'rollout.vllm_memory_fraction');
    const need = 7_615_616_512 * 2 + kvPerToken * 768 + 4096 * (6 * 18_944 + 8 * 3584);
    assert.match(w?.message ?? '', new RegExp(`at least ${(Math.ceil((100 * need) / g.gpu.memoryBytes) / 100).toFixed(2)}`));
    assert.ok(!run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate', vllm_memory_fraction: 0.7 } }), gpu).warnings.some((x) => x.key === 'rollout.vllm_memory_fraction'));
    // Split over 2 GPUs (vllm_tensor_parallel_size 2) each engine holds half the weights and half the 4 kv heads: 0.35
    // of a 24 GiB card (8.4 GiB) holds 7.1 GiB of weights and its cache.
    assert.ok(!run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate', vllm_memory_fraction: 0.35, vllm_tensor_parallel: 2 } }), gpu).warnings.some((x) => x.key === 'rollout.vllm_memory_fraction'));
    assert.ok(run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate', vllm_memory_fraction: 0.35 } }), gpu).warnings.some((x) => x.key === 'rollout.vllm_memory_fraction'));
    // A server on one such GPU at 0.9 (21.6 GiB): vLLM's profile run with its defaults on a 24 GiB card (8,192 tokens,
    // 256 sequences) peaks in the sampler: 256 x 152,064 logits x 32 B + 2 x 8,192 x 3,584 for Qwen2.5-7B, above the
    // forward's 8,192 x (6 x 18,944 + 8 x 3,584). Beside 14.2 GiB of weights it leaves room for 32,768 tokens of cache
    // (--max_model_len 32768: 1.75 GiB), not for the model's 131,072 positions (7.0 GiB).
    assert.ok(!run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-server', vllm_server: { tensor_parallel: 1, memory_fraction: 0.9, max_model_len: 32_768 } } }), gpu).warnings.some((x) => x.key === 'rollout.engine'));
    const qwenFit = Math.floor((0.9 * g.gpu.memoryBytes - 7_615_616_512 * 2 - (256 * V * 32 + 2 * 8192 * 3584)) / kvPerToken);
    assert.match(run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' } }), gpu).warnings.find((x) => x.key === 'rollout.engine')?.message ?? '', new RegExp(`--max_model_len between 768 and ${qwenFit} tokens`));
    // Llama-3.1-8B (131,072 B per token: 32 layers x 2 x 8 kv heads x 128 x 2 B): its sampler run 256 x 128,256 x 32 B +
    // 2 x 8,192 x 4,096 exceeds its forward's 8,192 x (6 x 14,336 + 8 x 4,096).
    const llama = run(setupFor('meta-llama/Llama-3.1-8B', { ...grpo, rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' } }), gpu);
    const fit = Math.floor((0.9 * g.gpu.memoryBytes - 8_030_261_248 * 2 - (256 * 128_256 * 32 + 2 * 8192 * 4096)) / 131_072);
    assert.match(llama.warnings.find((x) => x.key === 'rollout.engine')?.message ?? '', new RegExp(`--max_model_len between 768 and ${fit} tokens`));
    // On an H100-80GB vLLM's defaults are 16,384 tokens and 1,024 sequences: Llama-3.1-70B's 141 GB of weights need two
    // GPUs at 0.9 (65.7 GiB each, with the sampler run's 1,024 x 128,256 x 32 B + 2 x 16,384 x 8,192 beside them).
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const big = run(setupFor('meta-llama/Llama-3.1-70B', { ...grpo, rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' } }), { gpu: h100.gpu });
    const msg = big.warnings.find((x) => x.key === 'rollout.engine')?.message ?? '';
    assert.match(msg, /16,384 tokens, 1,024 sampled sequences/);
    assert.match(msg, /serve it over 2 GPUs/);
  });
  it('a reward model by Hub id: frozen weights on every GPU (sharded under ZeRO-3) and one no-grad forward over the round', () => {
    const m = findModel('meta-llama/Llama-3.1-8B');
    assert.ok(m.ok);
    const reward = { model: m.model.id, architecture: m.model.config };
    const e = run(qwen({ seq_len: 1536, micro_batch_size: 4, rollout: { batch: 16, completion_len: 1024, engine: 'vllm-server', reward_models: [reward] } }));
    // LlamaForSequenceClassification, 1 label: 8,030,261,248 - the untied lm_head 128,256 x 4096 + the score 4096 x 1.
    const params = 8_030_261_248 - 128_256 * 4096 + 4096;
    const w = phase(e, 'forward').components.find((c) => c.label.startsWith('Reward model weights'));
    assert.equal(w?.bytes, params * 2);
    // Its forward over the 16 x 1,536 tokens of the round (T = 24,576, h 4096, 14,336 MLP, bf16, flash): the layer input,
    // the residual and the norm output 6·T·h, and the MLP's gate, up and product 3 x 2·T·14,336 (larger than attention's).
    const T = 16 * 1536;
    const fwd = phase(e, 'generation').components.find((c) => c.label.startsWith('Reward model') && c.label.includes('forward'));
    assert.equal(fwd?.bytes, 6 * T * 4096 + 6 * T * 14_336);
    // ZeRO-3 over 4 GPUs: the weights sharded as the policy's; two of its layers gathered for the forward.
    const z3 = run(qwen({ seq_len: 1536, micro_batch_size: 4, gpus_per_node: 4, zero_stage: 3, rollout: { batch: 16, completion_len: 1024, engine: 'vllm-server', reward_models: [reward] } }));
    assert.equal(phase(z3, 'forward').components.find((c) => c.label.startsWith('Reward model weights'))?.bytes, Math.round((params * 2) / 4));
    const layer = 4096 * (4096 + 2 * 1024 + 4096) + 3 * 4096 * 14_336 + 2 * 4096;
    assert.equal(phase(z3, 'generation').components.find((c) => c.label.startsWith('Reward model') && c.label.includes('forward'))?.bytes, 6 * T * 4096 + 6 * T * 14_336 + 2 * layer * 2);
  });
  it('trains on the completion tokens\' log-probs only, row by row (TRL logits_to_keep, selective_log_softmax)', () => {
    // T = 8 x 256 completion tokens; T·V = 311,427,072. Saved: the rows' fp32 log_softmax outputs 4·T·V. Forward beyond
    // them: the bf16 logits (the undivided ones are freed once divided) and one row's fp32 copy, 2·T·V + 4 x 256 x V.
    // Backward beyond them: one row's fp32 temporaries 2 x 4 x 256 x V at the start; at the end the rows' bf16 gradients
    // and their stack 2 x 2·T·V take what the freed outputs took. Checked against the profiler (tools/peak: GRPO cases).
    const TV = 8 * 256 * V;
    const l = lossMemory({ tokens: 8 * 256, vocab: V, hidden: 3584, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false, preferenceRowTokens: 256, amp: true, policyGradient: true });
    assert.deepEqual([l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes], [4 * TV, 2 * TV + 4 * 256 * V, 8 * 256 * V]);
    const e = run(qwen());
    const saved = phase(e, 'forward').components.find((c) => c.label.startsWith('Completion logits'));
    // Beside them the final norm keeps its fp32 input and inverse RMS over all 8 x 768 tokens (the head runs after it).
    assert.equal(saved?.bytes, 4 * TV + 8 * 768 * (3584 * 4 + 4));
    // The same run as plain SFT at 768 tokens keeps the fp32 log-softmax of all 6,144 tokens: three times as much.
    const sft = run(qwen({ rollout: undefined }));
    assert.ok(component(phase(sft, 'forward'), 'logits-loss') > 2.9 * 4 * TV);
    // Activations cover the prompt and the completion: the same as the 768-token SFT run.
    assert.equal(component(phase(e, 'forward'), 'activations'), component(phase(sft, 'forward'), 'activations'));
  });

  it('generation: the KV cache of the whole round, prefill or decoding, whichever is larger', () => {
    const e = run(qwen());
    const gen = phase(e, 'generation');
    const pers = phase(e, 'optimizer').components.filter((c) => ['weights', 'adapter-weights', 'optimizer-states'].includes(c.id)).reduce((s, c) => s + c.bytes, 0);
    // Decoding ends with 32 x 768 tokens cached: 1,409,286,144 B. Meanwhile the previous step's fp32 logits and
    // probabilities (2 x 4 B x 32 x V) are held, and attention with the prompts' padding mask repeats the 4 key and value
    // heads of one layer to 28 (2 x 32 x 768 x 28 x 128 x 2 B = 352,321,536 B), more than the layer's torch.cat copy.
    const decodeEnd = 32 * 768 * kvPerToken + 2 * 32 * V * 4 + 352_321_536;
    assert.equal(32 * 768 * kvPerToken, 1_409_286_144);
    // Prefill: 32 x 512 tokens cached and one layer's no-grad forward over them (its input, residual and norm output,
    // and the MLP's activation, up projection and product: 3 x 16,384 x 18,944 x 2 B).
    const prefill = 32 * 512 * kvPerToken + noGradLayerBytes(archOf('Qwen/Qwen2.5-7B-Instruct'), 32 * 512, 512, 2, 'sdpa');
    assert.equal(noGradLayerBytes(archOf('Qwen/Qwen2.5-7B-Instruct'), 32 * 512, 512, 2, 'sdpa'), 3 * 16_384 * 3584 * 2 + 3 * 16_384 * 18_944 * 2);
    near(gen.allocatedBytes, pers + Math.max(decodeEnd, prefill), 1e-9, 'generation phase');
    assert.ok(gen.components.some((c) => c.id === 'kv-cache'));
  });

  it('sliding-window layers keep only their window in the cache (Gemma 3: 29 of 34 layers at 1,024 tokens)', () => {
    // gemma-3-4b: 34 layers, every 6th global (5), 4 kv heads of 256: 4,096 B per layer and token in bf16. 8 completions
    // of 512 + 3,584 tokens at the last decoding step: 8 x 4,096 x (5 x 4,096 + 29 x 1,024) = 1,644,167,168 B.
    const e = run(setupFor('google/gemma-3-4b-it', { method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, weights_dtype: 'bf16', mixed_precision: 'bf16',
      micro_batch_size: 2, gradient_accumulation_steps: 4, seq_len: 4096, gradient_checkpointing: 'full', attention: 'flash', rollout: { batch: 8, completion_len: 3584 } }));
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    assert.equal(kv?.bytes, 1_644_167_168);
  });

  it('Gated DeltaNet layers cache a recurrent state, not keys and values (Qwen3.5-9B: 8 of 32 layers cache)', () => {
    // 8 full-attention layers x 2 (K, V) x 4 kv heads x 256 x 2 B = 32,768 B per token; 8 completions of 512 + 3,584
    // tokens at the last decoding step: 8 x 32,768 x 4,096 = 1,073,741,824 B. Each of the 24 Gated DeltaNet layers keeps
    // per sequence a state of 32 value heads x 128 x 128 x 4 B (fp32) and the conv's last 4 inputs of 2 x 16 x 128 +
    // 32 x 128 = 8,192 channels x 2 B: 8 x 24 x (2,097,152 + 65,536) = 415,236,096 B.
    const e = run(setupFor('Qwen/Qwen3.5-9B', { method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, weights_dtype: 'bf16', mixed_precision: 'bf16',
      micro_batch_size: 2, gradient_accumulation_steps: 4, seq_len: 4096, gradient_checkpointing: 'full', attention: 'flash', rollout: { batch: 8, completion_len: 3584 } }));
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    assert.equal(kv?.bytes, 1_073_741_824 + 415_236_096);
  });

  it('a KL reference (beta > 0) scores the round without grad; a full fine-tune holds a frozen copy', () => {
    // With the adapters disabled, one micro-batch's completion logits (2·T·V), divided by the temperature (2·T·V).
    const TV = 8 * 256 * V;
    const e = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-server', reference: 'adapters-off' } }));
    const scoring = phase(e, 'generation').components.find((c) => c.label.startsWith('Scoring'));
    assert.equal(scoring?.bytes, 4 * TV);
    // vLLM on other GPUs: no KV cache on the training GPU.
    assert.ok(!phase(e, 'generation').components.some((c) => c.id === 'kv-cache'));
    const full = { method: 'full' as const, lora: undefined, optimizer: 'adamw_8bit' as const };
    const none = run(qwen({ ...full, rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' } }));
    const copy = run(qwen({ ...full, rollout: { batch: 32, completion_len: 256, engine: 'vllm-server', reference: 'copy' } }));
    assert.equal(component(phase(copy, 'optimizer'), 'weights') - component(phase(none, 'optimizer'), 'weights'), 7_615_616_512 * 2);
  });

  it('a colocated vLLM engine holds its share of the GPU, in every phase unless it sleeps', () => {
    const gpu = { id: 'A100-80GB', memoryBytes: 80 * GiB, source: 'test' };
    const share = 0.3 * 80 * GiB;
    const awake = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate' } }), { gpu });
    for (const p of awake.perGpu.phases) assert.equal(component(p, 'rollout-engine'), share, p.phase);
    const asleep = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate', vllm_sleep: true } }), { gpu });
    assert.equal(component(phase(asleep, 'backward'), 'rollout-engine'), 0);
    assert.equal(component(phase(asleep, 'generation'), 'rollout-engine'), share);
    // Asleep, the training phases run without the share: the peak is the higher of those and the generation phase.
    const trainingPeak = Math.max(...asleep.perGpu.phases.filter((p) => p.phase !== 'generation').map((p) => p.allocatedBytes));
    assert.equal(asleep.perGpu.peakBytes, Math.max(trainingPeak, phase(asleep, 'generation').allocatedBytes));
    assert.equal(awake.perGpu.peakBytes, share + Math.max(trainingPeak, phase(asleep, 'generation').allocatedBytes - share));
    // Without a GPU the share cannot be counted, and a warning says so.
    const blind = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate' } }));
    assert.ok(blind.warnings.some((w) => w.key === 'rollout.engine'));
  });

  it('ZeRO-3 gathers the full 16-bit weights for generation (ds3_gather_for_generation)', () => {
    const z3 = { method: 'full' as const, lora: undefined, gpus_per_node: 8, zero_stage: 3 as const, master_weights: true, mixed_precision: 'none' as const };
    const e = run(qwen({ ...z3, rollout: { batch: 32, completion_len: 256 } }));
    const gathered = phase(e, 'generation').components.find((c) => c.label.startsWith('ZeRO-3 weights gathered'));
    assert.equal(gathered?.bytes, 7_615_616_512 * 2);
    const off = run(qwen({ ...z3, rollout: { batch: 32, completion_len: 256, gather_weights: false } }));
    assert.ok(!phase(off, 'generation').components.some((c) => c.label.startsWith('ZeRO-3 weights gathered')));
  });

  it('rejects a completion as long as the whole sequence, and rollouts next to a preference objective', () => {
    const bad = estimate(qwen({ rollout: { batch: 32, completion_len: 768 } }));
    assert.ok(!bad.ok && bad.errors.some((x) => x.key === 'rollout.completion_len'));
    const both = estimate(qwen({ preference: { reference: 'none' } }));
    assert.ok(!both.ok && both.errors.some((x) => x.key === 'rollout'));
  });
});

describe('estimate: paged optimizer state (CUDA unified memory)', () => {
  // torchtune llama3_1/8B_full_single_device: Llama-3.1-8B pure bf16, bitsandbytes PagedAdamW8bit, optimizer in
  // backward, checkpointing, batch 2 x 2,048 packed, chunked loss, compiled. torchtune's README: "Runnable on 1x 4090", 18.9 GiB.
  // The state: 2 x (1 B + 4 B/2048) for tensors >= 4,096 elements, 4 B for the 266,240 norm weights.
  const s = setupFor('meta-llama/Llama-3.1-8B', { method: 'full', weights_dtype: 'bf16', optimizer: 'paged_adamw_8bit', optimizer_in_backward: true,
    gradient_checkpointing: 'full', micro_batch_size: 2, seq_len: 2048, loss: 'chunked', compile: true });
  const state = 2 * (8_029_995_008 * (1 + 4 / 2048) + 266_240 * 4);
  const paged = (e: ReturnType<typeof run>): number => e.perGpu.runtime.find((r) => r.id === 'paged-optimizer')?.bytes ?? 0;

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

  it('does not fit when the rest alone leaves no room for one tensor\'s state', () => {
    const e = run(s, { gpu: { id: '16GiB', memoryBytes: 16 * GiB, source: 'test' } });
    assert.equal(e.fits, false);
  });
});

describe('estimate: context parallelism', () => {
  // Llama-3.1-8B full fine-tune, pure bf16, FSDP full_shard over 8 GPUs. Context parallelism 2 splits each 8,192-token
  // sequence into two 4,096-token shares: per GPU everything is as for 4,096-token sequences, and FSDP still shards
  // over all 8 GPUs (torchtitan's dp_shard x cp mesh); only the data-parallel degree (the batch) halves.
  const base = { method: 'full' as const, weights_dtype: 'bf16' as const, fsdp: 'full_shard' as const, gpus_per_node: 8, micro_batch_size: 1, gradient_checkpointing: 'full' as const, attention: 'flash' as const };
  it('holds seq_len / context_parallel tokens per GPU, sharded over every GPU', () => {
    const cp = run(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8192, context_parallel: 2 }));
    const half = run(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 4096 }));
    assert.equal(cp.perGpu.peakBytes, half.perGpu.peakBytes);
    assert.equal(component(phase(cp, 'backward'), 'activations'), component(phase(half, 'backward'), 'activations'));
    assert.deepEqual([cp.layout.dataParallel, cp.layout.contextParallel, cp.layout.shardGroup, cp.layout.globalBatch], [4, 2, 8, 4]);
  });
  it('refuses a layout or a length that does not split, and runs attention as flash blocks', () => {
    const bad = estimate(setupFor('meta-llama/Llama-3.1-8B', { ...base, gpus_per_node: 6, seq_len: 8192, context_parallel: 4 }));
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.errors[0].key, 'context_parallel');
    const odd = estimate(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8191, context_parallel: 2 }));
    assert.equal(!odd.ok && odd.errors[0].key, 'context_parallel');
    const eager = run(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8192, context_parallel: 2, attention: 'eager' }));
    assert.ok(eager.warnings.some((w) => w.key === 'attention'));
    assert.equal(eager.perGpu.peakBytes, run(setupFor('meta-llama/Llama-3.1-8B', { ...base, seq_len: 8192, context_parallel: 2 })).perGpu.peakBytes);
  });
});

describe('estimate: expert parallelism with sharding', () => {
  // Qwen3-30B-A3B: 48 MoE layers of 128 experts, each 3 x 2048 x 768 (experts 48 x 128 x 4,718,592 = 28,991,029,248).
  // Expert parallelism splits the experts over ep ranks; ZeRO / FSDP shard each rank's experts over the ranks that hold
  // the same ones (S / ep), so per GPU an expert quantity sharded over S ranks is divided by max(ep, S).
  const experts = 48 * 128 * 3 * 2048 * 768;
  const s = (extra: Record<string, unknown>) => setupFor('Qwen/Qwen3-30B-A3B', { method: 'full', weights_dtype: 'bf16', gpus_per_node: 8, micro_batch_size: 1, seq_len: 2048, gradient_checkpointing: 'full', ...extra });
  it('FSDP over 8 GPUs: the same weights, gradients and states per GPU with ep 8 as without; each rank gathers its 16 experts only', () => {
    const e1 = run(s({ fsdp: 'full_shard' }));
    const e8 = run(s({ fsdp: 'full_shard', expert_parallel: 8 }));
    for (const id of ['weights', 'optimizer-states'] as const) assert.equal(component(phase(e8, 'optimizer'), id), component(phase(e1, 'optimizer'), id));
    const unit = (e: ReturnType<typeof run>): number => phase(e, 'backward').components.filter((c) => c.label === 'FSDP all-gathered units').reduce((t, c) => t + c.bytes, 0);
    assert.ok(Math.abs(unit(e1) - unit(e8) - 2 * (experts / 48) * (7 / 8) * 2) < 1); // 2 units x 7/8 of a layer's experts x 2 B
  });
  it('ZeRO-1 over 8 GPUs with ep 4: weights keep a quarter of the experts, optimizer states are sharded over all 8', () => {
    const e1 = run(s({ zero_stage: 1 }));
    const e4 = run(s({ zero_stage: 1, expert_parallel: 4 }));
    assert.equal(component(phase(e4, 'optimizer'), 'optimizer-states'), component(phase(e1, 'optimizer'), 'optimizer-states'));
    assert.ok(Math.abs(component(phase(e1, 'optimizer'), 'weights') - component(phase(e4, 'optimizer'), 'weights') - experts * (3 / 4) * 2) < 1);
  });
});

describe('estimate: GLM-4.5-Air LoRA with FSDP over 8 GPUs (worked by hand)', () => {
  // 106,852,245,504 parameters (architecture.test.ts); the largest block is an MoE layer: attention 109,074,432 +
  // 128 experts, 1 shared expert and the router 2,232,418,304 = 2,341,492,736.
  const e = run(setupFor('zai-org/GLM-4.5-Air', { method: 'lora', lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] }, weights_dtype: 'bf16', micro_batch_size: 1, seq_len: 4096, gradient_checkpointing: 'full', attention: 'flash', gpus_per_node: 8, fsdp: 'full_shard' }));
  const b = phase(e, 'backward');
  it('bf16 weights sharded over 8, two gathered MoE blocks, the embeddings and head unsharded in the root unit', () => {
    assert.equal(component(b, 'weights'), (106_852_245_504 * 2) / 8);
    assert.equal(b.components.find((c) => c.label === 'FSDP all-gathered units')?.bytes, 2 * 2_341_492_736 * 2);
    assert.equal(b.components.find((c) => c.label.startsWith('FSDP root unit'))?.bytes, 2 * 151_552 * 4096 * 2);
  });
  it('checkpointing keeps one bf16 layer input per layer: 46 x 4,096 x 4,096 x 2 B', () => {
    assert.equal(component(b, 'activations'), 46 * 4096 * 4096 * 2);
  });
});

describe('estimate: Llama 4 runs every token through every expert (transformers Llama4TextMoe)', () => {
  // bf16 LoRA on q/k/v/o, flash attention, 1 x 2048 tokens. Per MoE layer the block keeps the input repeated for all
  // E experts (E x T x 5120), every expert's gate_up output (E x T x 16384) and activation (E x T x 8192), 2 B each:
  // for Scout's 16 experts 16 x 2048 x 29,696 x 2 B = 1,946,157,056 B, on top of what a dense layer keeps.
  const plan = () => ({ method: 'lora' as const, lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] }, weights_dtype: 'bf16' as const, micro_batch_size: 1, seq_len: 2048, attention: 'flash' as const, gradient_checkpointing: 'none' as const });
  const scout = run(setupFor('meta-llama/Llama-4-Scout-17B-16E-Instruct', plan()));
  it('Scout without checkpointing: each of the 48 layers keeps more than 1.9 GB for its experts', () => {
    const act = component(phase(scout, 'backward'), 'activations');
    assert.ok(act > 48 * 1_946_157_056, `${act}`);
    assert.ok(act < 48 * 1_946_157_056 * 1.3, `${act}`); // attention, norms, the shared expert: about 0.44 GB more per layer
  });
  it('QLoRA: bitsandbytes loads the experts as per-expert linear layers (SequentialLlama4TextExperts) and quantizes them', () => {
    // Every block linear (attention, 16 experts x 3, router, shared expert) is 4-bit: 108,641,793,536 - embeddings and
    // head 2 x 202,048 x 5120 - norms 48 x 2 x 5120 + 5120 - vision tower and projector 871,932,416 = 105,700,392,960.
    const q = run(setupFor('meta-llama/Llama-4-Scout-17B-16E-Instruct', { ...plan(), method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true } }));
    assert.equal(q.parameters.quantized, 108_641_793_536 - 2 * 202_048 * 5120 - (48 * 2 * 5120 + 5120) - 871_932_416);
    // PEFT's all-linear then reaches the experts too: 48 layers x 16 experts x r x (5120 + 8192) x 3 more adapter weights.
    const attnOnly = run(setupFor('meta-llama/Llama-4-Scout-17B-16E-Instruct', { ...plan(), method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true } }));
    const all = run(setupFor('meta-llama/Llama-4-Scout-17B-16E-Instruct', { ...plan(), method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: true }, lora: { r: 16, target_modules: 'all-linear' } }));
    assert.ok(all.parameters.trainable - attnOnly.parameters.trainable >= 48 * 16 * 16 * (5120 + 8192) * 3);
  });
  it('Maverick with checkpointing recomputes one MoE layer (128 experts), not the average of its dense and MoE layers', () => {
    const e = run(setupFor('meta-llama/Llama-4-Maverick-17B-128E-Instruct', { ...plan(), gradient_checkpointing: 'full' }));
    const recompute = phase(e, 'backward').components.find((c) => c.label === 'Recomputed layer (checkpointing)')?.bytes ?? 0;
    assert.ok(recompute > 128 * 2048 * 29_696 * 2, `${recompute}`);
  });
});

describe('estimate: knowledge distillation', () => {
  // torchtune llama3_2/8B_to_1B_KD_lora: Llama-3.2-1B student (LoRA), Llama-3.1-8B teacher in bf16, batch 4 x 1,024
  // tokens, CEWithChunkedOutputLoss + ForwardKLWithChunkedOutputLoss (8 chunks each), vocabulary 128,256.
  const found = findModel('meta-llama/Llama-3.1-8B');
  assert.ok(found.ok);
  const teacher = found.model;
  const base = { method: 'lora' as const, weights_dtype: 'bf16' as const, lora: { r: 64, target_modules: ['q_proj', 'v_proj', 'o_proj'], dtype: 'bf16' as const }, micro_batch_size: 4, seq_len: 1024, loss: 'chunked' as const, gradient_checkpointing: 'full' as const };
  const kd = run(setupFor('meta-llama/Llama-3.2-1B', { ...base, distillation: { teacher_model: teacher.id, teacher_architecture: teacher.config, teacher_parameters: teacher.publishedParams } }));
  const plain = run(setupFor('meta-llama/Llama-3.2-1B', base));
  const TV = 4 * 1024 * 128_256;
  it('loads the frozen teacher in the model dtype: 8,030,261,248 x 2 B', () => {
    const w = phase(kd, 'optimizer').components.find((c) => c.label.startsWith('Teacher model weights'));
    assert.equal(w?.bytes, 8_030_261_248 * 2);
  });
  it('the forward-KL loss keeps 9 B per logit (teacher softmax, student log-softmax, isinf mask) and holds the teacher\'s bf16 logits to the loss', () => {
    const saved = (e: ReturnType<typeof run>): number => component(phase(e, 'forward'), 'logits-loss');
    // Saved + forward temporaries at the end of forward: +9·T·V kept, +2·T·V of teacher logits, and at the last chunk's
    // masked_fill its product and filled copy 2 x 4·T·V/8 where the cross-entropy's chunk upcast 4·T·V/8 was
    // (tools/peak/measure_step.py --torchtune-kd: within 1 %).
    assert.equal(saved(kd) - saved(plain), 9 * TV + 2 * TV + (8 - 4) * TV / 8);
  });
});

describe('estimate: ZeRO++ hpZ and MiCS', () => {
  // Llama-3.1-8B pure bf16 full fine-tune under ZeRO-3 on 2 nodes x 8 GPUs (8,030,261,248 parameters).
  const s = (extra: Record<string, unknown>) => setupFor('meta-llama/Llama-3.1-8B', { method: 'full', weights_dtype: 'bf16', zero_stage: 3, gpus_per_node: 8, nodes: 2, micro_batch_size: 1, seq_len: 2048, gradient_checkpointing: 'full', ...extra });
  it('hpZ keeps a secondary copy of the 16-bit parameters partitioned within the node: params x 2 B / 8', () => {
    const e = run(s({ zero_hpz_partition_size: 8 }));
    const hpz = phase(e, 'optimizer').components.find((c) => c.label.startsWith('ZeRO++ secondary'));
    assert.equal(hpz?.bytes, (8_030_261_248 * 2) / 8);
    assert.equal(run(s({})).perGpu.phases.every((p) => !p.components.some((c) => c.label.startsWith('ZeRO++'))), true);
  });
  it('MiCS shards over its groups of 8 instead of all 16 GPUs', () => {
    const all = component(phase(run(s({})), 'optimizer'), 'optimizer-states');
    const mics = component(phase(run(s({ zero_mics_shard_size: 8 })), 'optimizer'), 'optimizer-states');
    assert.equal(mics, 2 * all);
  });
});

describe('estimate: ZeRO-3 optimizer sub-groups', () => {
  it('the step upcasts the gradients of one sub-group of sub_group_size parameters, not the whole partition', () => {
    // Llama-3.1-70B bf16 with fp32 master weights, ZeRO-3 over 8 GPUs: the partition is 70,553,706,496 / 8 = 8.8B
    // parameters; DeepSpeed stage3.py steps sub-groups of sub_group_size (1e9 by default) one at a time.
    const s = (extra: Record<string, unknown>) => setupFor('meta-llama/Llama-3.1-70B', { weights_dtype: 'bf16', master_weights: true, optimizer: 'adamw_fused', gpus_per_node: 8, zero_stage: 3, micro_batch_size: 1, seq_len: 2048, gradient_checkpointing: 'full', ...extra });
    const step = (e: ReturnType<typeof run>): number => component(phase(e, 'optimizer'), 'optimizer-step');
    assert.equal(step(run(s({}))), 1e9 * 4);
    assert.equal(step(run(s({ zero_buckets: { sub_group_size: 5e8 } }))), 5e8 * 4);
    // ZeRO-2 upcasts its whole gradient partition at once.
    assert.equal(step(run(s({ zero_stage: 2 }))), (70_553_706_496 / 8) * 4);
  });

  it('sub_group_size 0 steps one parameter at a time: the fp32 gradients of the largest partition, not nothing', () => {
    // Llama-3-8B over 8 GPUs: the largest parameter is an embedding 128,256 x 4,096 = 525,336,576, a partition of
    // 65,667,072 x 4 B. DeepSpeed's default sub_group_size 1e9 holds 1e9 params x 4 B (the partition is 1.0037e9).
    const base = { weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, master_weights: true, zero_stage: 3 as const, gpus_per_node: 8, gradient_checkpointing: 'full' as const };
    const sub = (e: ReturnType<typeof run>): number => phase(e, 'optimizer').components.find((c) => c.label === 'fp32 gradients of one optimizer sub-group (ZeRO-3)')!.bytes;
    assert.equal(sub(run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, zero_buckets: { sub_group_size: 0 } }))), (525_336_576 / 8) * 4);
    assert.equal(sub(run(setupFor('meta-llama/Meta-Llama-3-8B', base))), 1e9 * 4);
  });
});

describe('estimate: MoE experts as transformers 5 stores them (3-D parameters)', () => {
  // transformers 5 (modeling_mixtral.py, modeling_qwen3_moe.py, modeling_qwen2_moe.py): MixtralExperts /
  // Qwen3MoeExperts hold gate_up_proj (E, 2f, h) and down_proj (E, h, f) as nn.Parameter, the TopKRouter a bare
  // weight; 4.x had one nn.Linear per expert projection and an nn.Linear gate.
  const v4 = { transformers_version: '4.57' };

  it('keeps the parameter count (Mixtral-8x7B 46,702,792,704 either way)', () => {
    const { countParameters, withFusedExperts } = require('../../src/core/architecture') as typeof import('../../src/core/architecture');
    const a = archOf('mistralai/Mixtral-8x7B-v0.1');
    const fused = withFusedExperts(a);
    assert.equal(countParameters(a).total, 46_702_792_704);
    assert.equal(countParameters(fused).total, 46_702_792_704);
    assert.equal(withFusedExperts(archOf('meta-llama/Llama-2-7b-hf')).fusedExperts, undefined, 'dense models are left as they are');
  });

  it('all-linear LoRA r16 on Mixtral-8x7B reaches the experts under 4.x only: 240,123,904 vs 13,631,488 adapter params', () => {
    // r x (in + out) per target: q 16·(4096+4096), k and v 16·(4096+1024), o 16·(4096+4096) = 425,984 per layer, x 32
    // layers = 13,631,488. 4.x adds w1, w3 (4096 -> 14336) and w2 of 8 experts: 3 x 16 x 18,432 x 8 x 32 = 226,492,416.
    const s = { method: 'lora' as const, weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, lora: { r: 16, target_modules: 'all-linear' as const } };
    const v5 = run(setupFor('mistralai/Mixtral-8x7B-v0.1', s));
    const old = run(setupFor('mistralai/Mixtral-8x7B-v0.1', { ...s, ...v4 }));
    assert.equal(v5.parameters.trainable, 13_631_488);
    assert.equal(old.parameters.trainable, 240_123_904);
    assert.ok(v5.warnings.some((w) => w.key === 'lora.target_modules' && /target_modules does not reach/.test(w.message)));
    assert.ok(!old.warnings.some((w) => w.key === 'lora.target_modules'));
  });

  it('named targets reach the shared expert, not the routed ones (Qwen1.5-MoE-A2.7B r8: 4,423,680 vs 123,863,040)', () => {
    // gate_proj / up_proj / down_proj of the shared expert (2048 <-> 5632): 3 x 8 x 7,680 = 184,320 per layer x 24.
    // 4.x adds 60 experts of 1,408: 3 x 8 x (2048 + 1408) x 60 x 24 = 119,439,360.
    const s = { method: 'lora' as const, weights_dtype: 'bf16' as const, lora: { r: 8, target_modules: ['gate_proj', 'up_proj', 'down_proj'] } };
    assert.equal(run(setupFor('Qwen/Qwen1.5-MoE-A2.7B', s)).parameters.trainable, 4_423_680);
    assert.equal(run(setupFor('Qwen/Qwen1.5-MoE-A2.7B', { ...s, ...v4 })).parameters.trainable, 123_863_040);
  });

  it('bitsandbytes 4-bit leaves the experts of Qwen3-30B-A3B in bf16: 905,969,664 params quantized, not 29,909,581,824', () => {
    // Attention per layer: q 2048 x 4096, k and v 2048 x 512, o 4096 x 2048 = 18,874,368; x 48 = 905,969,664.
    // Experts 48 x 128 x 3 x 2048 x 768 = 28,991,029,248 and routers 48 x 128 x 2048 = 12,582,912 (bitsandbytes#1849).
    const s = { method: 'qlora' as const, weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, quantization: { bits: 4 as const, double_quant: true }, lora: { r: 16, target_modules: 'all-linear' as const }, gradient_checkpointing: 'full' as const };
    const v5 = run(setupFor('Qwen/Qwen3-30B-A3B', s));
    assert.equal(v5.parameters.quantized, 905_969_664);
    // Everything not quantized is stored in bf16: total minus the quantized attention, 2 B each.
    assert.equal(component(phase(v5, 'optimizer'), 'weights'), (v5.parameters.total - 905_969_664) * 2);
    assert.ok(v5.warnings.some((w) => w.key === 'quantization' && /29\.00B expert and router params stay bf16/.test(w.message)));
    assert.ok(v5.assumptions.some((a) => a.key === 'transformers_version' && a.value === '5'));
    const old = run(setupFor('Qwen/Qwen3-30B-A3B', { ...s, ...v4 }));
    assert.equal(old.parameters.quantized, 905_969_664 + 28_991_029_248 + 12_582_912);
    assert.ok(!old.assumptions.some((a) => a.key === 'transformers_version'), 'a version the setup gives is not an assumption');
    // Unsloth swaps the fused experts for per-expert 4-bit linears (unslothai/unsloth#4032).
    assert.equal(run(setupFor('Qwen/Qwen3-30B-A3B', { ...s, kernels: 'unsloth' })).parameters.quantized, old.parameters.quantized);
  });

  it('Qwen3-VL-30B-A3B keeps 3-D experts under 4.x too: 4-bit quantizes the attention only, no version assumed', () => {
    // Qwen3VLMoeTextExperts were 3-D parameters from the model's first release (transformers 4.57).
    const s = { method: 'qlora' as const, weights_dtype: 'bf16' as const, quantization: { bits: 4 as const }, lora: { r: 16, target_modules: 'all-linear' as const }, gradient_checkpointing: 'full' as const };
    for (const extra of [{}, v4]) {
      const e = run(setupFor('Qwen/Qwen3-VL-30B-A3B-Instruct', { ...s, ...extra }));
      assert.equal(e.parameters.quantized, 905_969_664);
      assert.ok(!e.assumptions.some((a) => a.key === 'transformers_version'));
      const w = e.warnings.find((x) => x.key === 'quantization');
      assert.ok(w && !/transformers 4\.x or Unsloth/.test(w.message), w?.message);
      assert.ok(e.warnings.some((x) => x.key === 'lora.target_modules' && /target_modules does not reach/.test(x.message)));
    }
  });

  it('prepare_model_for_kbit_training upcasts the unquantized experts to fp32 (4 B each)', () => {
    const s = { method: 'qlora' as const, weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, quantization: { bits: 4 as const }, kbit_upcast: 'all' as const, gradient_checkpointing: 'full' as const };
    const e = run(setupFor('Qwen/Qwen3-30B-A3B', s));
    const w = phase(e, 'optimizer').components.find((c) => c.id === 'weights')!;
    // Block params not quantized (experts, routers, norms) x 4 B + embeddings and head (151,936 x 2048 each) x 4 B.
    assert.equal(w.bytes, (e.parameters.total - 905_969_664) * 4);
    assert.match(w.formula, /fused expert, router and norm\/bias params x 4 B/);
  });

  it('a full fine-tune: grouped_mm (5.x) keeps three index tensors where the 4.x loop keeps index_add_\'s source', () => {
    // gate_up chunked in two views keeps what gate and up keep; the difference is how the weighted outputs return to
    // token order: 4.x index_add_ keeps its source (routed tokens x hidden, bf16) and the token indices, 5.x grouped_mm
    // an index (int64 token, sort and unsort indices) whose source it does not keep. 48 MoE layers, 1,024 tokens x top-8
    // = 8,192 routed rows, hidden 2,048 (profiled: tools/peak/measure_step.py --moe-checkpointing).
    const s = { weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, seq_len: 1024 };
    const v5 = run(setupFor('Qwen/Qwen3-30B-A3B', s));
    const old = run(setupFor('Qwen/Qwen3-30B-A3B', { ...s, ...v4 }));
    const acts = (e: typeof v5): number => component(phase(e, 'forward'), 'activations');
    assert.equal(acts(old) - acts(v5), 48 * (8192 * 2048 * 2 - 2 * 8192 * 8));
    assert.match(v5.assumptions.find((a) => a.key === 'transformers_version')?.source ?? '', /grouped matmul/);
    assert.ok(!old.assumptions.some((a) => a.key === 'transformers_version'), 'a version given is not an assumption');
  });
});

describe('estimate: TRL GKD (generalized JSD against a teacher)', () => {
  it('a Qwen2.5-0.5B student distilled from Qwen2.5-7B: teacher weights and the JSD terms, worked by hand', () => {
    // Through the pipeline from a GKD script: the teacher resolves from the catalog (Qwen2.5-7B 7,615,616,512 params).
    const { resolveText } = require('./helpers') as typeof import('./helpers');
    const text = 'from trl import GKDConfig, GKDTrainer\nfrom transformers import AutoModelForCausalLM\n'
      + 'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", dtype="bfloat16")\n'
      + 'args = GKDConfig(output_dir="o", per_device_train_batch_size=4, max_length=1024, bf16=True, gradient_checkpointing=True)\n'
      + 'trainer = GKDTrainer(model=model, teacher_model="Qwen/Qwen2.5-7B-Instruct", args=args)\n';
    const r = resolveText('/w/gkd.py', text);
    assert.ok(r.setup?.distillation);
    assert.deepEqual([r.setup.distillation.loss, r.setup.distillation.jsd_beta], ['jsd', 0.5]);
    const e = run(r.setup);
    const f = phase(e, 'forward');
    assert.equal(f.components.find((c) => c.label.startsWith('Teacher model weights'))!.bytes, 7_615_616_512 * 2);
    // T x V = 4 x 1,024 tokens x 151,936 = 622,329,856 logits: forward temporaries (52 - 28) + 4 x 2 B = 32 B each
    // (tools/peak/measure_jsd.py), and 28 B each kept, beside the final norm's input.
    const TV = 4 * 1024 * 151_936;
    assert.equal(f.components.find((c) => c.label === 'Distillation loss forward temporaries')!.bytes, 32 * TV);
    assert.ok(f.components.find((c) => c.label === 'Logits and distillation loss (saved)')!.bytes >= 28 * TV);
    assert.ok(e.assumptions.some((a) => a.key === 'distillation' && /completion positions/.test(a.source)));
  });

  it('on-policy rounds (lmbda > 0) are a generation phase: the student\'s prefill and KV cache, below the step here', () => {
    // Qwen2.5-0.5B: 24 layers, 2 kv heads x 64, bf16: 2 x 2 x 64 x 2 B = 512 B per token and layer. GKDConfig's lmbda
    // 0.5 and max_new_tokens 128: prompts of 1,024 - 128 = 896 tokens; their prefill (the cache of 4 x 896 tokens,
    // 44,040,192 B, beside one layer's no-grad forward) is this round's high point.
    const { resolveText } = require('./helpers') as typeof import('./helpers');
    const script = (extra: string) => 'from trl import GKDConfig, GKDTrainer\nfrom transformers import AutoModelForCausalLM\n'
      + 'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", dtype="bfloat16")\n'
      + `args = GKDConfig(output_dir="o", per_device_train_batch_size=4, max_length=1024, bf16=True, gradient_checkpointing=True${extra})\n`
      + 'trainer = GKDTrainer(model=model, teacher_model="Qwen/Qwen2.5-7B-Instruct", args=args)\n';
    const e = run(resolveText('/w/gkd.py', script('')).setup!);
    const gen = phase(e, 'generation');
    assert.equal(gen.components.find((c) => c.label === 'KV cache (4 sequences x 896 tokens)')!.bytes, 4 * 896 * 24 * 512);
    assert.match(gen.note, /on-policy generation \(GKD lmbda 0.5\): 4 completions of up to 128 tokens/);
    assert.ok(gen.allocatedBytes < phase(e, 'forward').allocatedBytes);
    // With accumulation the earlier micro-steps' gradients are held while the student generates: 494,032,768 x 2 B.
    const acc = run(resolveText('/w/gkd.py', script(', gradient_accumulation_steps=4')).setup!);
    assert.equal(component(phase(acc, 'generation'), 'gradients'), 494_032_768 * 2);
    // lmbda 0: every step trains on the dataset's completions, no generation.
    assert.equal(run(resolveText('/w/gkd.py', script(', lmbda=0.0')).setup!).perGpu.phases.some((p) => p.phase === 'generation'), false);
  });
});

describe('estimate: bitsandbytes 8-bit base layers and Kimi Linear', () => {
  it('a frozen LLM.int8 linear keeps its input (MatMul8bitLt ctx.tensors), a 4-bit one does not: T·(4·h + 2·f) per Llama layer', () => {
    // bitsandbytes autograd/_functions.py MatMul8bitLt.forward: ctx.tensors = (CAt, subA, A) whenever the input needs a
    // gradient; MatMul4Bit keeps (None, B). Per Llama-2-7B layer the inputs of q/k/v (the norm output, shared), gate/up
    // (the second norm output) and down_proj (act x up) are kept in addition: 2·T·h x 2 + 2·T·f. o_proj's input is the
    // attention output flash-attn keeps anyway.
    const arch = archOf('meta-llama/Llama-2-7b-hf');
    const plan: ActivationPlan = { arch, mode: 'amp', half: 2, weightBytes: 2, batch: 1, seq: 1024, attention: 'flash', baseTrainable: false, normsTrainable: false,
      inputRequiresGrad: true, tp: 1, sequenceParallel: false, quantizedBase: true, lora: { r: 8, dropout: 0.05, dtypeBytes: 4, targets: new Set(['q_proj', 'v_proj']) } };
    const int8 = layerActivations({ ...plan, int8Base: true }).bytesPerLayer;
    const nf4 = layerActivations(plan).bytesPerLayer;
    assert.equal(int8 - nf4, 1024 * (4 * 4096 + 2 * 11008));
  });

  it('Kimi Linear ignores gradient checkpointing: the estimate is the one without, with a no-effect warning at the key', () => {
    // modeling_kimi.py: KimiDecoderLayer is a plain nn.Module and KimiLinearModel.forward calls each layer itself.
    const base: Omit<TrainingSetupInput, 'architecture'> = { method: 'lora', lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] }, weights_dtype: 'bf16',
      mixed_precision: 'bf16', micro_batch_size: 1, seq_len: 1024, attention: 'flash' };
    const on = run(setupFor('moonshotai/Kimi-Linear-48B-A3B-Instruct', { ...base, gradient_checkpointing: 'full' }));
    const off = run(setupFor('moonshotai/Kimi-Linear-48B-A3B-Instruct', { ...base, gradient_checkpointing: 'none' }));
    assert.equal(on.perGpu.peakBytes, off.perGpu.peakBytes);
    assert.deepEqual(on.warnings.filter((w) => w.code === 'no-effect').map((w) => w.key), ['gradient_checkpointing']);
    assert.equal(off.warnings.filter((w) => w.code === 'no-effect').length, 0);
    // KimiLinearModel sets flash_attention_2 whatever is asked for: eager costs nothing more.
    const eager = run(setupFor('moonshotai/Kimi-Linear-48B-A3B-Instruct', { ...base, attention: 'eager', gradient_checkpointing: 'none' }));
    assert.equal(eager.perGpu.peakBytes, off.perGpu.peakBytes);
    assert.ok(eager.assumptions.some((x) => x.key === 'attention' && x.value === 'flash'));
    // Llama is checkpointed as asked: the flag matters there.
    const llama = (ck: 'full' | 'none') => run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, gradient_checkpointing: ck })).perGpu.peakBytes;
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
      method: 'qlora' as const, quantization: { bits: 4 as const, type: 'nf4' as const, double_quant: true }, lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      weights_dtype: 'bf16' as const, mixed_precision: 'bf16' as const, micro_batch_size: 2, seq_len: 2048, gradient_checkpointing: 'full' as const, attention: 'flash' as const,
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

describe('estimate: online DPO (TRL OnlineDPOTrainer)', () => {
  // Qwen2.5-7B-Instruct, LoRA r=16 on every linear layer, bf16 weights under bf16 autocast, 2 prompts per micro-batch,
  // 4 micro-batches per step, max_length 512 (prompt + completion), max_new_tokens 64, checkpointing on.
  // trl/trainer/online_dpo_trainer.py training_step: two completions per prompt are generated, the policy runs over the
  // 4 sequences, then the reference (the policy with its adapters disabled) without grad, then the DPO loss on the pair.
  const V = 152_064;
  const setup = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof setupFor> => setupFor('Qwen/Qwen2.5-7B-Instruct', {
    method: 'lora', lora: { r: 16, target_modules: 'all-linear' }, weights_dtype: 'bf16', mixed_precision: 'bf16',
    micro_batch_size: 2, gradient_accumulation_steps: 4, seq_len: 512, gradient_checkpointing: 'full',
    rollout: { objective: 'online-dpo', batch: 4, completion_len: 64, reference: 'adapters-off' }, ...extra,
  });
  const labelled = (e: ReturnType<typeof run>, ph: 'forward' | 'backward', label: string) => phase(e, ph).components.find((c) => c.label.startsWith(label));
  const T = 4 * 512; // 2 completions x 2 prompts, 512 tokens each: logits exist for every position
  const Tc = 4 * 64; // the completion slice that goes through log_softmax

  it('log-probs: the logits of every position, one fp32 log_softmax over the completion slice kept for backward', () => {
    // Saved: log_softmax's fp32 output 4·Tc·V = 155,713,536 B. Forward beyond it: the bf16 logits of all 2,048 positions
    // 2·T·V = 622,854,144 B and autocast's fp32 copy of the slice 4·Tc·V. Backward: the gather's and log_softmax's
    // gradients 2 x 4·Tc·V = 311,427,072 B beside the kept output; then, that output freed, the two SliceBackward nodes of
    // logits[:, a:b] (the batch dimension's `:` is recorded too) each fill a zero bf16 gradient of all the logits, the
    // second while the first is copied into it: 2 x 2·T·V - 4·Tc·V = 1,089,994,752 B beyond the kept output.
    const l = lossMemory({ tokens: T, vocab: V, hidden: 3584, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false, amp: true, completionShare: 64 / 512 });
    assert.equal(l.savedBytes, 155_713_536);
    assert.equal(l.forwardTransientBytes, 622_854_144 + 155_713_536);
    assert.equal(l.backwardTransientBytes, 1_089_994_752);
    // Without autocast (fp32 model, fp32 logits): log_softmax's kernel copies the non-contiguous slice (4·Tc·V).
    // tools/peak/measure_step.py --online-dpo profiles this on the CPU (test/fixtures/peak/golden.json, peak-golden.test.ts).
    const f = lossMemory({ tokens: T, vocab: V, hidden: 3584, logitsBytes: 4, loss: 'full', chunks: 8, softcap: false, completionShare: 64 / 512 });
    assert.deepEqual([f.savedBytes, f.forwardTransientBytes, f.backwardTransientBytes], [4 * Tc * V, 4 * T * V + 4 * Tc * V, 8 * T * V - 4 * Tc * V]);
  });

  it('the reference runs after the policy\'s forward, generation runs inside the micro-step with the earlier gradients held', () => {
    const e = run(setup());
    // The reference's no-grad logits of every position 2·T·V and the slice's fp32 copy and log_softmax 2 x 4·Tc·V, while
    // the policy's saved log-probs and activations are held.
    assert.equal(labelled(e, 'forward', 'Reference forward')?.bytes, 2 * T * V + 8 * Tc * V);
    // Generation: 2 completions for each of the 2 prompts; its high point here is the prefill of the 4 prompts of 448
    // tokens (512 - 64), their KV cache (28 layers x 2 x 4 kv heads x 128 x 2 B = 57,344 B per token) beside one layer's
    // no-grad forward; the LoRA gradients of the 3 earlier micro-steps stay allocated.
    const gen = phase(e, 'generation');
    assert.equal(gen.components.find((c) => c.label === 'KV cache (4 sequences x 448 tokens)')?.bytes, 4 * 448 * 57_344);
    assert.match(gen.note, /two completions for each of the micro-batch's 2 prompts/);
    assert.ok(gen.components.some((c) => c.id === 'gradients' && /earlier micro-steps/.test(c.formula)));
    assert.ok(e.assumptions.some((x) => x.key === 'rollout.batch' && x.value === '4 completions per micro-step'));
    // A full fine-tune keeps a frozen copy of the model as the reference (TRL create_reference_model).
    const full = run(setup({ method: 'full', lora: undefined, rollout: { objective: 'online-dpo', batch: 4, completion_len: 64, reference: 'copy' } }));
    assert.equal(labelled(full, 'forward', 'Reference model weights')?.bytes, 7_615_616_512 * 2);
  });

  it('refuses online DPO without a reference, and trains twice the micro-batch\'s sequences', () => {
    const r = estimate(setup({ rollout: { objective: 'online-dpo', batch: 4, completion_len: 64, reference: 'none' } }));
    assert.ok(!r.ok && r.errors.some((x) => x.key === 'rollout.reference'));
    // The layer inputs kept by checkpointing: 28 layers x 4 sequences x 512 tokens x 3,584 x 2 B.
    assert.equal(labelled(run(setup()), 'forward', 'Activations saved for backward')?.bytes, 28 * T * 3584 * 2);
  });
});

describe('estimate: LLaMA-Factory DPO log-probs (get_batch_logps)', () => {
  it('the reference\'s pass peaks beside the policy\'s kept log-probs and its fp32 logits, still referenced for the metrics', () => {
    // Meta-Llama-3-8B, LoRA, 1 pair of 1,024-token sequences: T = 2,048, V = 128,256, T·V = 262,668,288.
    // Policy: the fp32 log_softmax output 4·T·V kept; forward beyond it: the fp32 logits and the slice's copy 2 x 4·T·V;
    // backward: the gather's and log_softmax's gradients 2 x 4·T·V. Reference (adapters disabled, no grad): the policy's
    // fp32 logits 4·T·V, the reference's fp32 logits, copy and log_softmax 3 x 4·T·V, beside the kept output.
    // tools/peak/measure_step.py --lf-dpo measures the same pass on the CPU (20·T·V at its high point, within 1 %).
    const TV = 2048 * 128_256;
    const plan = { tokens: 2048, vocab: 128_256, hidden: 4096, logitsBytes: 2, loss: 'full' as const, chunks: 8, softcap: false, amp: true, wholeLogSoftmax: true };
    const l = lossMemory(plan);
    assert.deepEqual([l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes], [4 * TV, 8 * TV, 8 * TV]);
    assert.equal(referenceLogps(plan).bytes, 16 * TV);
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { method: 'lora', weights_dtype: 'bf16', mixed_precision: 'bf16', micro_batch_size: 1, seq_len: 1024,
      gradient_checkpointing: 'full', preference: { reference: 'adapters-off', logps: 'whole' } }));
    assert.equal(phase(e, 'forward').components.find((c) => c.label.startsWith('Reference forward'))?.bytes, 16 * TV);
  });
});

describe('estimate: TRL ORPO / CPO chosen NLL', () => {
  it('keeps the chosen half\'s log_softmax and adds two gradients of all the logits in backward', () => {
    // Llama-3-8B, bf16 under autocast, 1 pair of 1,024 tokens: T = 2,048, V = 128,256, T·V = 262,668,288, rows of 1,024.
    // Rows (selective_log_softmax): fp32 outputs 4·T·V kept; backward max(one row's 2 x 4 x 1,024 x V, 2 x 2·T·V - 4·T·V).
    // The NLL: its fp32 log_softmax over the chosen half 4·T·V/2 kept; forward: the logits 2·T·V, the half's contiguous
    // copy 2·T·V/2 and fp32 cast 4·T·V/2 beside it, or the logits and one row's fp32 copy beside all the outputs;
    // backward: the rows' phase with the NLL's output held (4·T·V + 2·T·V + one row's 2 x 4 x 1,024 x V = 10·T·V, the
    // largest: a row is half the tokens here), the NLL's log_softmax backward beside the rows' gradient of the logits
    // (2·T·V + 3 x 2·T·V), or that gradient, the NLL's and their sum (3 x 2·T·V).
    // tools/peak/measure_step.py --trl-orpo measures this pass on the CPU (within 1 %).
    const TV = 2048 * 128_256;
    const row = 1024 * 128_256;
    const l = lossMemory({ tokens: 2048, vocab: 128_256, hidden: 4096, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false, amp: true, preferenceRowTokens: 1024, chosenNll: 'orpo' });
    const saved = 4 * TV + 2 * TV;
    assert.equal(l.savedBytes, saved);
    assert.equal(l.forwardTransientBytes, Math.max(2 * TV + TV + 2 * TV + 2 * TV, 4 * TV + 2 * TV + 2 * TV + 4 * row) - saved);
    assert.equal(l.backwardTransientBytes, 4 * TV + 2 * TV + 8 * row - saved);
  });
});

describe('estimate: the HF Trainer\'s label smoothing', () => {
  it('keeps the log_softmax output and its negation; the model\'s logits and their shifted copy at the loss call', () => {
    // transformers LabelSmoother under bf16 autocast: -log_softmax of logits[..., :-1, :].contiguous() in fp32 (its
    // output kept by log_softmax's backward, the negation by gather's: 2 x 4·T·V); at the call the bf16 logits of the
    // model's outputs and the shifted copy 2 x 2·T·V, and autocast's fp32 cast 4·T·V beside the output; backward: the
    // gather's zero-filled gradient 4·T·V (the fp32 sum's gradient is a broadcast view). Profiled: tools/peak
    // --label-smoothing (fp32 and bf16 models, within 1 %).
    const TV = 2048 * 128_256;
    const l = lossMemory({ tokens: 2048, vocab: 128_256, hidden: 2048, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false, amp: true, labelSmoothing: true });
    assert.deepEqual([l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes], [8 * TV, 12 * TV - 8 * TV, 4 * TV]);
  });
});
