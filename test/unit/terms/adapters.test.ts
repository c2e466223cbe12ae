// Term: adapter weights and what adapters keep (src/core/terms/adapters.ts, terms/activations), against numbers worked
// out by hand; each test names its source.
import * as assert from 'node:assert/strict';
import { layerActivations } from '../../../src/core/terms/activations';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { component, near, phase, run, setupFor } from '../helpers';
import { archOf, truthPeak, truthSetup } from './helpers';

describe('estimate: LoRA on fused expert parameters (PEFT target_parameters)', () => {
  const moe = (lora: Record<string, unknown>, extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> =>
    run(
      setupFor('Qwen/Qwen3-30B-A3B', {
        method: 'lora',
        lora: { r: 16, alpha: 32, target_modules: ['q_proj'], ...lora },
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        micro_batch_size: 1,
        seq_len: 2048,
        gradient_checkpointing: 'none',
        attention: 'flash',
        transformers_version: '5.0',
        ...extra,
      }),
    );
  it('adapters r x E x (in + out) per targeted parameter and layer; each adapted layer keeps W + BA and the routed input', () => {
    // Qwen3-30B-A3B: 48 MoE layers of 128 experts, gate_up_proj 2 x 768 wide over 2048, down_proj 768 -> 2048, top-8.
    // ParamWrapper: lora_A (r·E x in) + lora_B (out x r·E): 16 x 128 x (2048 + 1536) and 16 x 128 x (768 + 2048).
    const plain = moe({});
    const both = moe({ target_parameters: ['mlp.experts.gate_up_proj', 'mlp.experts.down_proj'] });
    const adapters = 48 * 16 * 128 * (2048 + 1536 + (768 + 2048));
    assert.equal(both.parameters.trainable - plain.parameters.trainable, adapters);
    assert.equal(adapters, 629_145_600);
    // Saved per layer (tools/activations/lora_target_parameters.py closed form): W + BA in bf16 (128 x 2048 x 1536 and
    // 128 x 768 x 2048 elements x 2 B) and the matmuls' routed inputs (2,048 tokens x 8 x (2048 + 768) x 2 B).
    const perLayer = 2 * 128 * 2048 * 1536 + 2 * 128 * 768 * 2048 + 2048 * 8 * (2048 + 768) * 2;
    near(
      component(phase(both, 'forward'), 'activations') - component(phase(plain, 'forward'), 'activations'),
      48 * perLayer,
      1e-12,
      '48 adapted layers',
    );
    assert.ok(both.assumptions.some((x) => x.key === 'lora.target_parameters'));
    // transformers 5's target_modules warning about the unreached experts is gone once target_parameters adapts them.
    assert.ok(!both.warnings.some((w) => w.code === 'fused-experts'));
  });
  it('a layer index limits a target to that layer; a name that matches no expert parameter is a warning, not an adapter', () => {
    const plain = moe({});
    const two = moe({
      target_parameters: [
        '7.mlp.experts.gate_up_proj',
        'model.layers.15.mlp.experts.gate_up_proj',
        'mlp.experts.up_proj',
      ],
    });
    assert.equal(two.parameters.trainable - plain.parameters.trainable, 2 * 16 * 128 * (2048 + 1536));
    near(
      component(phase(two, 'forward'), 'activations') - component(phase(plain, 'forward'), 'activations'),
      2 * (2 * 128 * 2048 * 1536 + 2048 * 8 * 2048 * 2),
      1e-12,
      'two adapted layers',
    );
    assert.match(
      two.warnings.find((w) => w.key === 'lora.target_parameters')?.message ?? '',
      /mlp\.experts\.up_proj: no expert parameter/,
    );
  });
});

describe('estimate: IA3', () => {
  it('PEFT IA3 on Llama-2-7B: one fp32 value per k/v output and per down_proj input: 32 x (4096 + 4096 + 11008) x 4 B', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', method: 'ia3', micro_batch_size: 1, seq_len: 512 }),
    );
    assert.equal(e.parameters.trainable, 32 * (4096 + 4096 + 11008));
    assert.equal(component(phase(e, 'optimizer'), 'adapter-weights'), 32 * (4096 + 4096 + 11008) * 4);
    assert.ok(
      e.warnings.some((w) => w.key === 'ia3'),
      'no ia3 block: PEFT defaults, with a warning',
    );
  });

  it('keeps what the vectors multiply for their gradient: the k and v outputs as they are, the down_proj input in fp32', () => {
    // peft/tuners/ia3/layer.py Linear.forward: a feed-forward target casts its input to the vector's dtype (x.to(dtype)),
    // the others multiply their output as it is ((result * ia3_scaling).to(result_dtype)). Per layer and token, bf16
    // base, fp32 vectors: 2 B x (kv + kv) + 4 B x intermediate beyond what the frozen layer saves. CPU truth
    // peft/*-ia3-bf16: +3.4 to +4.5 % when the outputs were counted as fp32 copies, +1.0 to +3.4 % since.
    const base = { weights_dtype: 'bf16' as const, micro_batch_size: 1, seq_len: 512 };
    const frozenish = run(
      setupFor('meta-llama/Llama-2-7b-hf', {
        ...base,
        method: 'ia3',
        ia3: { target_modules: ['o_proj'], feedforward_modules: [] },
      }),
    );
    const ia3 = run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, method: 'ia3' }));
    // Per layer (layer 0, whose input does not require grad, keeps less in both).
    const perLayer = (e: ReturnType<typeof run>): number =>
      (phase(e, 'forward').components.find((c) => c.id === 'activations')!.inputs as { perLayerBytes: number })
        .perLayerBytes;
    // o_proj's kept output (2 B x 4096) is replaced by the k and v outputs (2 B) and the down_proj input (4 B).
    assert.equal(perLayer(ia3) - perLayer(frozenish), 512 * (2 * (4096 + 4096 - 4096) + 4 * 11008));
  });
});

describe('estimate: DoRA', () => {
  it("keeps the base output and the LoRA output of every target for the magnitude's gradient: +24,576 B per token and layer (Llama-3.2-3B, q and v)", () => {
    // peft/tuners/lora/dora.py: (m / ||W + sBA|| - 1) * base_result + m / ||W + sBA|| * lora_result * s with m trained:
    // both products keep their tensor operand. bf16 base outputs (2 B) and fp32 LoRA outputs (4 B) of q (3,072
    // features) and v (1,024): 4,096 x 6 B per token. Checked against the profiler: tools/peak DoRA cases.
    const arch = archOf('meta-llama/Llama-3.2-3B');
    const plan = {
      arch,
      mode: 'half' as const,
      half: 2 as const,
      weightBytes: 2,
      batch: 1,
      seq: 1,
      attention: 'sdpa' as const,
      baseTrainable: false,
      normsTrainable: false,
      inputRequiresGrad: true,
      tp: 1,
      sequenceParallel: false,
    };
    const lora = { r: 32, dropout: 0, dtypeBytes: 4, targets: new Set(['q_proj', 'v_proj']) };
    assert.equal(
      layerActivations({ ...plan, lora: { ...lora, dora: true } }).bytesPerLayer -
        layerActivations({ ...plan, lora }).bytesPerLayer,
      24_576,
    );
    // The magnitude vectors train: one fp32 value per output feature of each target, 28 x 4,096.
    const base = { method: 'lora' as const, weights_dtype: 'bf16' as const, seq_len: 768, micro_batch_size: 4 };
    const e = run(
      setupFor('meta-llama/Llama-3.2-3B', {
        ...base,
        lora: { r: 32, target_modules: ['q_proj', 'v_proj'], use_dora: true },
      }),
    );
    const l = run(
      setupFor('meta-llama/Llama-3.2-3B', { ...base, lora: { r: 32, target_modules: ['q_proj', 'v_proj'] } }),
    );
    assert.equal(e.parameters.trainable - l.parameters.trainable, 28 * 4096);
    // Setups that share one architecture object (the advice search spreads its candidates from the current setup)
    // keep their own parameter inventories with and without DoRA.
    const s = setupFor('meta-llama/Llama-3.2-3B', {
      ...base,
      lora: { r: 32, target_modules: ['q_proj', 'v_proj'], use_dora: true },
    });
    const plain = run({ ...s, lora: { ...s.lora!, use_dora: false } });
    assert.equal(run(s).parameters.trainable - plain.parameters.trainable, 28 * 4096);
    // Without checkpointing the backward does not recompute the weight norm; the forward does, one target at a time:
    // an identity of 3,072 x 3,072, the LoRA product, the fp32 base weight and their sum (q: 4 x 3,072² x 4 B).
    const norm = phase(e, 'forward').components.find((c) => c.label.startsWith('DoRA weight norm'));
    assert.ok(!norm || norm.bytes === 4 * 3072 * 3072 * 4);
  });
});

describe("estimate: DoRA's weight norm in a checkpointed recompute precedes the layer's backward", () => {
  // Under checkpointing the recompute runs each target's weight norm again before the layer's backward starts; the
  // layer's forward sequence replays it where it runs (activations/linear.ts doraWeightNorm), so the recompute's high
  // point holds it. Llama-3.1-8B, DoRA on down_proj only, fp32 adapters over bf16 weights, 1 x 128 tokens: at down_proj's
  // norm the identity (14,336² x 4 B), lora_A's output (14,336 x 16 x 4 B), the LoRA product, the base weight cast to
  // fp32, the scaled product and their sum (14,336 x 4,096 x 4 B each) are alive together: 1,762,525,184 B. The CPU
  // truth peft/llama-dora-all-fp32-ckpt makes the same allocations in the same order (688 features in: 1,893,376 B,
  // 44,032 B, then 704,512 B three times, no cast for fp32 weights).
  it("counts the norm's tensors at the recompute's high point", () => {
    const e = run(
      setupFor('meta-llama/Llama-3.1-8B', {
        method: 'lora',
        weights_dtype: 'bf16',
        lora: { r: 16, target_modules: ['down_proj'], use_dora: true },
        micro_batch_size: 1,
        seq_len: 128,
        gradient_checkpointing: 'full',
      }),
    );
    const at = phase(e, 'backward').components;
    const high = at.find((c) => c.label === 'Recomputed layer at its high point (checkpointing)');
    assert.ok(high, at.map((c) => c.label).join(', '));
    const norm = 14_336 ** 2 * 4 + 14_336 * 16 * 4 + 4 * 14_336 * 4_096 * 4;
    assert.equal(norm, 1_762_525_184);
    // Beside it, what the layer has saved of 128 tokens before down_proj: a few tens of MB.
    assert.ok(high.bytes >= norm && high.bytes - norm < 32 * 2 ** 20, `${high.bytes}`);
  });
  it('the CPU truth of DoRA under checkpointing, with dropout (PEFT 0.21): within 3 %', () => {
    for (const id of ['peft/llama-dora-all-dropout-fp32-ckpt', 'peft/qwen3-dora-all-dropout-fp32-ckpt'])
      near(run(truthSetup(id)).perGpu.peakBytes, truthPeak(id), 0.03, id);
  });
});

describe("estimate: FSDP's 16-bit param dtype gathers the adapters in 16 bits", () => {
  // PEFT casts a target's input to lora_A's dtype; under FSDP mixed precision (param_dtype bf16 over fp32 weights) the
  // gathered adapters are bf16, so that cast is the bf16 input itself, not an fp32 copy. CPU truth
  // fsdp2/llama-w2-lora-amp and -w8: +3.2 / +3.6 % with the fp32 copies counted.
  it('is within 3 % of the measured peaks', () => {
    for (const id of ['fsdp2/llama-w2-lora-amp', 'fsdp2/llama-w8-lora-amp'])
      near(run(truthSetup(id)).perGpu.peakBytes, truthPeak(id), 0.03, id);
  });
});

describe('estimate: offloaded parameters take the adapters with them', () => {
  // torch FSDP1 CPUOffload(offload_params=True) moves every FlatParameter to the host, the adapters' own units
  // (PEFT's wrap policy) included (torch/distributed/fsdp/_init_utils.py); ZeRO-3 offload_param moves every
  // partitioned parameter. Llama-2-70B, LoRA r 64 on q (8192 + 8192), k and v (8192 + 1024 each: 8 key-value heads of
  // 128), gate, up, down (8192 + 28672 each): 80 x 64 x 145,408 = 744,488,960 params, 2 B each in bf16, / 2 ranks.
  const lora = (offload: boolean): ReturnType<typeof run> =>
    run(
      setupFor('meta-llama/Llama-2-70b-hf', {
        method: 'qlora',
        lora: {
          r: 64,
          alpha: 16,
          dtype: 'bf16',
          target_modules: ['q_proj', 'k_proj', 'v_proj', 'gate_proj', 'up_proj', 'down_proj'],
        },
        quantization: { bits: 4, type: 'nf4' },
        weights_dtype: 'bf16',
        micro_batch_size: 2,
        seq_len: 2048,
        gradient_checkpointing: 'full',
        gpus_per_node: 2,
        fsdp: 'full_shard',
        fsdp_version: 1,
        ...(offload ? { offload_params: 'cpu' as const } : {}),
      }),
    );
  it('resident: r x (in + out) per target x 2 B / 2 ranks; offloaded: none on the GPU, the host holds them', () => {
    const resident = lora(false);
    const offloaded = lora(true);
    assert.equal(resident.parameters.adapter, 744_488_960);
    assert.equal(component(phase(resident, 'forward'), 'adapter-weights'), 744_488_960);
    assert.equal(component(phase(offloaded, 'forward'), 'adapter-weights'), 0);
    assert.ok(offloaded.cpuBytes > 0);
  });
});

describe('estimate: modules_to_save copies train in their own dtype', () => {
  // CPU truth peft/llama-lora-save-emb-head-bf16 (tools/truth, PEFT 0.21, torch 2.13): a bf16 Llama of hidden 256,
  // vocab 4,096, 2 layers (4 heads, 2 kv heads of 64), LoRA r 8 on q_proj (256 -> 256) and v_proj (256 -> 128) with
  // PEFT's fp32 adapters, embed_tokens and lm_head saved. Adapters 2 x 8 x ((256 + 256) + (256 + 128)) = 14,336 fp32
  // parameters; copies 2 x 4,096 x 256 = 2,097,152 bf16 parameters (ModulesToSaveWrapper copies the module as loaded;
  // PEFT's fp32 upcast reaches tuner layers only).
  const id = 'peft/llama-lora-save-emb-head-bf16';
  const e = run(truthSetup(id));
  const step = phase(e, 'optimizer');
  it('AdamW keeps each state like its parameter: 2 x 4 B per adapter parameter, 2 x 2 B per copied one', () => {
    assert.equal(e.parameters.trainable, 14_336 + 2_097_152);
    assert.equal(component(step, 'optimizer-states'), 2 * 4 * 14_336 + 2 * 2 * 2_097_152);
  });
  it('the gradients and the foreach step temporaries (one per state, both dtype groups bound at once) likewise', () => {
    assert.equal(component(step, 'gradients'), 4 * 14_336 + 2 * 2_097_152);
    assert.equal(component(step, 'optimizer-step'), 4 * 14_336 + 2 * 2_097_152);
  });
  it('the peak is the measured one within 1 % (+14.9 % when the copies took the adapters fp32)', () => {
    near(e.perGpu.peakBytes, truthPeak(id), 0.01, id);
  });
  it('copies upcast to fp32 (lora.saved_dtype: LLaMA-Factory outside pure_bf16) train at 4 B like the adapters', () => {
    const setup = truthSetup(id);
    const up = run({ ...setup, lora: { ...setup.lora!, saved_dtype: 'fp32' } });
    const upStep = phase(up, 'optimizer');
    assert.equal(component(upStep, 'optimizer-states'), 2 * 4 * (14_336 + 2_097_152));
    assert.equal(component(upStep, 'gradients'), 4 * (14_336 + 2_097_152));
    const copies = upStep.components.find((c) => c.label === 'modules_to_save copies');
    assert.equal(copies?.bytes, 4 * 2_097_152);
  });
});
