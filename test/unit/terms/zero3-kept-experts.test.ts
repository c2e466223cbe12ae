// Term: ZeRO-3's gathered fused experts kept by the matmuls' saved views (src/core/terms/zero3-kept-experts.ts),
// worked out by hand from Mixtral-8x7B's shapes and measured with DeepSpeed 0.19.6 on the CPU (tools/truth).
import * as assert from 'node:assert/strict';
import { near, phase, run, setupFor } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

describe('estimate: ZeRO-3 keeps fused experts gathered until their backward', () => {
  // Mixtral-8x7B on transformers 5: each MoE layer's 8 experts are gate_up_proj [8, 2 x 14336, 4096] and down_proj
  // [8, 4096, 14336] = 8 x 3 x 4096 x 14336 = 1,409,286,144 params, 2,818,572,288 B in bf16; 32 MoE layers.
  const layer = 2_818_572_288;
  const s = (extra: Record<string, unknown>) =>
    setupFor('mistralai/Mixtral-8x7B-v0.1', {
      method: 'lora',
      lora: { r: 16, target_modules: ['q_proj', 'v_proj'] },
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      zero_stage: 3,
      gpus_per_node: 8,
      micro_batch_size: 1,
      seq_len: 1024,
      attention: 'flash',
      ...extra,
    });
  const kept = (e: ReturnType<typeof run>, p: 'forward' | 'backward'): number =>
    phase(e, p)
      .components.filter((c) => c.label.startsWith('ZeRO-3 gathered experts kept'))
      .reduce((t, c) => t + c.bytes, 0);

  it('every MoE layer without checkpointing, the recomputed one with it', () => {
    assert.equal(kept(run(s({ gradient_checkpointing: 'none' })), 'forward'), 32 * layer);
    assert.equal(kept(run(s({ gradient_checkpointing: 'full', loss: 'fused' })), 'backward'), layer);
  });

  it('none under FSDP, for fp32 experts under autocast, or on transformers 4 (one nn.Linear per expert)', () => {
    assert.equal(kept(run(s({ gradient_checkpointing: 'none', zero_stage: 0, fsdp: 'full_shard' })), 'forward'), 0);
    assert.equal(kept(run(s({ gradient_checkpointing: 'none', weights_dtype: 'fp32' })), 'forward'), 0);
    assert.equal(kept(run(s({ gradient_checkpointing: 'none', transformers_version: '4.57' })), 'forward'), 0);
  });

  it('none for gpt-oss, whose grouped_mm takes its [E, h, 2I] experts as they are (CPU truth within 1 %)', () => {
    const e = run(truthSetup('zero/gptoss-w8-z3-full'));
    assert.equal(kept(e, 'forward'), 0);
    near(e.perGpu.peakBytes, truthPeak('zero/gptoss-w8-z3-full'), 0.01, 'peak');
  });

  it('matches DeepSpeed 0.19.6 on the CPU within 1 % (zero/mixtral-w8-z3-full was -6.2 % without it)', () => {
    for (const id of ['zero/mixtral-w8-z3-full', 'zero/mixtral-w8-z3-lora-qv-dropout', 'zero/mixtral-w8-z3-lora-all'])
      near(run(truthSetup(id)).perGpu.peakBytes, truthPeak(id), 0.01, id);
  });
});
