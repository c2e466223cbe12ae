// Term: ZeRO-3's frozen layers kept gathered through a reentrant backward (src/core/terms/zero3-recompute-kept.ts),
// worked out by hand from Qwen2.5-14B's shapes and measured on an H100 with DeepSpeed 0.19.6 and 0.16.5
// (test/fixtures/truth/gpu.json, tools/truth/gpu/results/2026-11-26b-h100, FINDINGS §67).
import * as assert from 'node:assert/strict';
import { near, phase, run, setupFor } from '../helpers';
import { gpuPointRun } from './helpers';

const KEPT_LABEL = 'ZeRO-3 gathered parameters (frozen layers kept through the reentrant backward)';

describe('estimate: ZeRO-3 keeps a reentrant backward’s frozen layers gathered (DeepSpeed 0.19.3 and later)', () => {
  // Qwen2.5-14B, one layer: q and o 5,120 x 5,120 = 26,214,400 each, k and v 5,120 x 1,024 = 5,242,880 each, gate, up
  // and down 5,120 x 13,824 = 70,778,880 each: 275,251,200 linear weights, + q/k/v biases 5,120 + 1,024 + 1,024 and
  // two norms 2 x 5,120: 275,268,608 parameters; 48 layers and the final norm (5,120) = 13,212,898,304, in bf16
  // 26,425,796,608 B. The H100's
  // history holds exactly the 48 layers' linear weights gathered at the backward's end: 144 x 141,557,760 +
  // 96 x 52,428,800 + 96 x 10,485,760 = 26,424,115,200 B.
  const keptParams = 13_212_898_304;
  const id = 'qwen2.5-14b-lora-s2048-b2-ckpt-z3-w8-reentrant-drop0.1';
  const kept = (p: ReturnType<typeof phase>): number =>
    p.components.filter((c) => c.label === KEPT_LABEL).reduce((t, c) => t + c.bytes, 0);
  const detail = (p: ReturnType<typeof phase>) => p.components.find((c) => c.label === KEPT_LABEL)?.inputs;

  it('every layer of Qwen2.5-14B LoRA at the end of the backward under 0.19.6: the H100 within 3 % (was -52 %)', () => {
    const { estimate: e, peak, reserved } = gpuPointRun(id);
    const bwd = phase(e, 'backward');
    assert.equal(detail(bwd)?.keptParams, keptParams);
    // the bytes: the kept parameters in bf16, plus the small parameters every rank keeps unsharded (below the
    // persistence threshold): 48 x (biases 7,168 + norms 10,240) + the final norm 5,120 = 840,704, in bf16 1,681,408 B
    assert.equal(kept(bwd), keptParams * 2 + 1_681_408);
    near(e.perGpu.peakBytes, peak, 0.03, 'allocated');
    // The all-gather stream's pool keeps the whole stack after the step, beside the next forward's memory.
    near(e.perGpu.reservedBytes, reserved, 0.05, 'reserved');
  });

  it('nothing under 0.16.5, which releases them after use: the H100 within 1 %', () => {
    const { estimate: e, peak } = gpuPointRun(`${id}-ds0.16.5`);
    assert.equal(kept(phase(e, 'backward')), 0);
    near(e.perGpu.peakBytes, peak, 0.01, 'allocated');
  });

  it('nothing for a full fine-tune, non-reentrant checkpointing, or without ZeRO-3', () => {
    const full = gpuPointRun('llama-3.1-8b-full-s2048-b2-ckpt-z3-w8-reentrant');
    assert.equal(kept(phase(full.estimate, 'backward')), 0);
    near(full.estimate.perGpu.peakBytes, full.peak, 0.01, 'full fine-tune');
    assert.equal(kept(phase(gpuPointRun(id, { checkpoint_reentrant: false }).estimate, 'backward')), 0);
    assert.equal(kept(phase(gpuPointRun(id, { zero_stage: 2 }).estimate, 'backward')), 0);
  });

  const lora = (extra: Record<string, unknown>) =>
    setupFor('Qwen/Qwen2.5-14B', {
      method: 'lora',
      lora: { r: 8, target_modules: 'all-linear' },
      weights_dtype: 'bf16',
      zero_stage: 3,
      gpus_per_node: 8,
      micro_batch_size: 2,
      seq_len: 2048,
      gradient_checkpointing: 'full',
      ...extra,
    });

  it('the frozen layers only in a freeze run: 46 of 48 with the last 2 trainable', () => {
    const p = phase(
      run(lora({ method: 'freeze', freeze_trainable_layers: 2, checkpoint_reentrant: true })),
      'backward',
    );
    assert.equal(detail(p)?.keptParams, Math.round((keptParams * 46) / 48));
  });

  it('a current DeepSpeed without a release, said as an assumption; a transformers 4 stack dates it before', () => {
    const current = run(lora({ checkpoint_reentrant: true }));
    assert.equal(detail(phase(current, 'backward'))?.keptParams, keptParams);
    const said = current.assumptions.find((x) => x.key === 'deepspeed_version');
    assert.equal(said?.value, 'current (0.19.3 or later)');
    // transformers 4.46 (October 2024): reentrant by default, and the stack predates DeepSpeed 0.18.2
    const dated = run(lora({ transformers_version: '4.46' }));
    assert.equal(kept(phase(dated, 'backward')), 0);
    assert.equal(dated.assumptions.find((x) => x.key === 'deepspeed_version')?.value, 'before 0.18.2');
    assert.equal(kept(phase(run(lora({ checkpoint_reentrant: true, deepspeed_version: '0.19.2' })), 'backward')), 0);
  });

  // TRL's SFTTrainer on Llama-3.1-8B LoRA (tools/truth/gpu/results/2026-11-26c-h100, its history replayed through the
  // allocator model): the all-gather stream's live bytes reach 16,060,522,496 B, every parameter of the model, before
  // the optimizer step: the 32 layers, the head TRL holds, and the input embedding, 128,256 x 4,096 x 2 B =
  // 1,050,673,152 B, gathered after the first layer's backward by the hook on its output (which requires grad for
  // the reentrant recomputation). Its stream's pool keeps it: reserved -7.1 % / -6.8 % without it.
  for (const id of [
    'sft-llama-3.1-8b-lora-s2048-b4-ckpt-z3-w8-reentrant',
    'sft-llama-3.1-8b-lora-s4096-b1-ckpt-z3-w8-reentrant',
  ]) {
    it(`the input embedding gathered after the backward, in the all-gather pool: ${id}`, () => {
      const { estimate: e, peak, reserved } = gpuPointRun(id);
      // Not at a high point: the first layer's recompute is freed before the embedding is fetched.
      near(e.perGpu.peakBytes, peak, 0.01, 'allocated');
      near(e.perGpu.reservedBytes, reserved, 0.05, 'reserved');
      // The pool's share beside the compute stream's peak: at least the embedding's bytes.
      const pool = e.perGpu.runtime.find((t) => t.id === 'all-gather-pool');
      assert.ok(pool && pool.bytes >= 1_050_673_152);
    });
  }
});
