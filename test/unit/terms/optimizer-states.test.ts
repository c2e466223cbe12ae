// Term: optimizer states (src/core/terms/optimizer-states.ts), against numbers worked out by hand; each test names its
// source.
import * as assert from 'node:assert/strict';
import { component, phase, run, setupFor } from '../helpers';
import { runtimeBytes } from './helpers';
import { findGpu } from '../../../src/core/lookup';

/** A full fine-tune in bf16 with torch's AdamW at 1,024 tokens, checkpointed. */
const base = {
  method: 'full' as const,
  weights_dtype: 'bf16' as const,
  optimizer: 'adamw' as const,
  micro_batch_size: 1,
  seq_len: 1024,
  gradient_checkpointing: 'full' as const,
};

describe('estimate: GaLore', () => {
  it('keeps AdamW states for the projected gradients of the targets and the projection matrices (Llama-3-8B, rank 128)', () => {
    // Per layer, projected to 128 x max(rows, cols): q, k, v, o 128 x 4,096 each, gate, up, down 128 x 14,336 each =
    // 7,602,176; x 32 = 243,269,632. Projection matrices 128 x min(rows, cols): 128 x (5 x 4,096 + 2 x 1,024) x 32 =
    // 92,274,688. Untargeted: embedding and head 2 x 128,256 x 4,096 and the norms 65 x 4,096. Pure bf16 AdamW:
    // 2 states x 2 B x 1,294,209,024 + 2 B x 92,274,688 = 5,361,385,472 B (instead of 32.1 GB for full states).
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
    const attn = run(
      setupFor('meta-llama/Meta-Llama-3-8B', { ...base, galore: { rank: 128, target_modules: ['attn'] } }),
    );
    assert.ok(
      component(phase(attn, 'optimizer'), 'optimizer-states') > component(phase(g, 'optimizer'), 'optimizer-states'),
    );
  });
});

describe('estimate: Adam-mini and Muon', () => {
  it('Adam-mini: a first moment per parameter, a second per matrix row; Muon: one momentum per hidden-matrix parameter', () => {
    // Llama-3-8B pure bf16 full fine-tune. Hidden matrices: 32 x 218,103,808 = 6,979,321,856; embedding and head
    // 2 x 128,256 x 4,096 = 1,050,673,152; vectors (norms) 65 x 4,096 = 266,240.
    const base = {
      method: 'full' as const,
      weights_dtype: 'bf16' as const,
      micro_batch_size: 1,
      seq_len: 1024,
      gradient_checkpointing: 'full' as const,
    };
    const states = (optimizer: 'adam_mini' | 'muon'): number =>
      component(
        phase(run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, optimizer })), 'optimizer'),
        'optimizer-states',
      );
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
    const base = {
      method: 'full' as const,
      weights_dtype: 'bf16' as const,
      micro_batch_size: 1,
      seq_len: 1024,
      gradient_checkpointing: 'full' as const,
      optimizer: 'adamw_4bit' as const,
    };
    const e = run(setupFor('meta-llama/Meta-Llama-3-8B', base));
    assert.equal(
      component(phase(e, 'optimizer'), 'optimizer-states'),
      2 * (8_029_995_008 * (0.5 + 2 / 128) + 266_240 * 2),
    );
    // The step dequantizes one parameter's two states to fp32: the largest is the embedding (or head), 128,256 x 4,096.
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-step'), 128_256 * 4096 * 2 * 4);
  });
});

describe('estimate: RMSprop', () => {
  it('keeps one state, square_avg, like its parameter (Llama-3-8B pure bf16 and with fp32 master weights)', () => {
    // torch/optim/rmsprop.py _init_group: square_avg = torch.zeros_like(p); no momentum buffer (momentum 0) and no
    // grad_avg (centered False) by default. Llama-3-8B has 8,030,261,248 parameters: 2 B each in bf16, 4 B each beside
    // an fp32 master copy (the states follow the fp32 parameters the optimizer steps).
    const s = (extra: Record<string, unknown>) =>
      setupFor('meta-llama/Meta-Llama-3-8B', { optimizer: 'rmsprop', micro_batch_size: 1, seq_len: 512, ...extra });
    assert.equal(
      component(phase(run(s({ weights_dtype: 'bf16' })), 'optimizer'), 'optimizer-states'),
      8_030_261_248 * 2,
    );
    assert.equal(
      component(phase(run(s({ weights_dtype: 'bf16', master_weights: true })), 'optimizer'), 'optimizer-states'),
      8_030_261_248 * 4,
    );
  });
});

describe('estimate: optimizer states on the GPU for their uses only', () => {
  // Llama-3-8B (8,030,261,248 parameters, catalog), full fine-tune in bf16 with torch's AdamW: two bf16 states of
  // 2 B per parameter, 32,121,044,992 B in all.
  const STATES = 2 * 2 * 8_030_261_248;
  it("'step' (RL2's offload_optimizer, prime-rl's CPUOffloadOptimizer): held at the step only, on the host otherwise", () => {
    const always = run(setupFor('meta-llama/Meta-Llama-3-8B', base));
    const step = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...base, optimizer_states_gpu: 'step' }));
    for (const p of ['forward', 'backward'] as const) {
      assert.equal(component(phase(step, p), 'optimizer-states'), 0, p);
      assert.equal(phase(always, p).allocatedBytes - phase(step, p).allocatedBytes, STATES, p);
    }
    // The step moves them in before it and out after it: the step itself holds what it held.
    assert.equal(component(phase(step, 'optimizer'), 'optimizer-states'), STATES);
    assert.equal(phase(step, 'optimizer').allocatedBytes, phase(always, 'optimizer').allocatedBytes);
    assert.equal(step.cpuBytes, STATES);
    // The replay frees them after each step: their blocks serve the next forward, so nothing more is reserved.
    assert.ok(step.perGpu.reservedBytes <= always.perGpu.reservedBytes);
  });

  it("'step' under FSDP2 over 8 GPUs: each GPU's shard of the states, in the lean path too", () => {
    const fsdp = { ...base, gpus_per_node: 8, fsdp: 'full_shard' as const, fsdp_version: 2 as const };
    const always = run(setupFor('meta-llama/Meta-Llama-3-8B', fsdp));
    const setup = setupFor('meta-llama/Meta-Llama-3-8B', { ...fsdp, optimizer_states_gpu: 'step' });
    const step = run(setup);
    assert.equal(phase(always, 'backward').allocatedBytes - phase(step, 'backward').allocatedBytes, STATES / 8);
    assert.equal(component(phase(step, 'optimizer'), 'optimizer-states'), STATES / 8);
    // The advice's lean estimate reaches the same peak.
    const lean = run(setup, { lean: true });
    assert.equal(lean.perGpu.peakBytes, step.perGpu.peakBytes);
    assert.equal(lean.perGpu.reservedBytes, step.perGpu.reservedBytes);
  });

  it("'training' (verl's optimizer_offload): on the GPU through the update, on the host while the engine generates", () => {
    const grpo = {
      ...base,
      rollout: { batch: 8, completion_len: 512, engine: 'vllm-colocate' as const, vllm_sleep: true },
    };
    const always = run(setupFor('meta-llama/Meta-Llama-3-8B', grpo));
    const training = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...grpo, optimizer_states_gpu: 'training' }));
    for (const p of ['forward', 'backward', 'optimizer'] as const)
      assert.equal(phase(training, p).allocatedBytes, phase(always, p).allocatedBytes, p);
    assert.equal(phase(always, 'generation').allocatedBytes - phase(training, 'generation').allocatedBytes, STATES);
    assert.equal(component(phase(training, 'generation'), 'optimizer-states'), 0);
  });
});

describe("estimate: bitsandbytes' paged 32-bit AdamW", () => {
  it('keeps two fp32 states per adapter weight whatever their dtype (Mistral-7B QLoRA, bf16 adapters)', () => {
    // LoRA r 16 on the seven projections of Mistral-7B: per layer q and o 16 x (4,096 + 4,096), k and v 16 x
    // (4,096 + 1,024), gate, up and down 16 x (4,096 + 14,336) = 1,310,720; x 32 layers = 41,943,040. bitsandbytes'
    // Optimizer2State.init_state with optim_bits 32 makes state1 and state2 in torch.float32 (optimizer.py):
    // 2 x 4 B x 41,943,040 = 335,544,320 B, on a GPU with room for all of it.
    const a100 = findGpu('A100-80GB');
    assert.ok(a100.ok);
    const e = run(
      setupFor('mistralai/Mistral-7B-v0.1', {
        method: 'qlora',
        quantization: { bits: 4, type: 'nf4' },
        lora: {
          r: 16,
          alpha: 32,
          target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
          dtype: 'bf16',
        },
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        optimizer: 'paged_adamw',
        micro_batch_size: 1,
        seq_len: 128,
      }),
      { gpu: a100.gpu },
    );
    assert.equal(runtimeBytes(e, 'paged-optimizer'), 335_544_320);
  });
});
