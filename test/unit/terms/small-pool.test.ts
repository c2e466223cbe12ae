// The small pool's cache at the loss under LoRA (src/core/terms/small-pool.ts), worked by hand. The recorded HF Trainer
// sequences replayed through the caching-allocator model (tools/truth/FINDINGS.md §8, `replay.mjs --detail`) show
// 9.8 MB free in the small pool at the loss of llama7b-4l-lora-qv-ckpt and 25.4 MB at gemma2-2b-4l-lora-all-ckpt.
// The two-step replay holds these blocks where it stands for a setup (plain LoRA: two-step-cache.test.ts); the term
// counts them for the rest, here the same run over a 4-bit base (QLoRA: the adapters and AdamW as they were).
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import { replayEstimate, runtimeBytes } from './helpers';

/** Llama-2-7B widths, four layers, QLoRA r 16 on q and v, checkpointed (tools/truth/scenarios/replay, 4-bit base). */
const point = (extra: Record<string, unknown> = {}): Estimate =>
  replayEstimate('llama7b-4l-lora-qv-ckpt', { quantization: { bits: 4 }, ...extra });
const small = (e: Estimate): number | undefined => runtimeBytes(e, 'small-pool');

describe('small-pool', () => {
  it('LoRA r 16 on q, v of 4 layers, checkpointed: gradients + AdamW foreach temporaries, 8,388,608 B', () => {
    // Each matrix: 16 x 4,096 x 4 B = 256 KiB (<= 1 MiB: the small pool); 4 layers x 2 targets x (A + B) = 1,048,576
    // params. Gradients 4 B + _foreach_sqrt copies 4 B = 8,388,608 B; checkpointed layers keep no small tensor.
    assert.equal(small(point()), 8_388_608);
  });
  it('without checkpointing the small tensors the layers keep have taken blocks back', () => {
    const e = small(point({ gradient_checkpointing: 'none' }))!;
    assert.ok(e > 0 && e < 8_388_608, `${e}`);
  });
  it('with gradient accumulation the gradients stay allocated: only the temporaries are cached', () => {
    assert.equal(small(point({ gradient_accumulation_steps: 2 })), 4_194_304);
  });
  it('fused AdamW has no foreach temporaries: the gradients only', () => {
    assert.equal(small(point({ optimizer: 'adamw_fused' })), 4_194_304);
  });
  it('none when every matrix exceeds 1 MiB (r 128 on 4,096 features: 2 MiB each) or with sharded gradients', () => {
    // r 128: 128 x 4,096 x 4 B = 2 MiB, from the large pool, whose blocks larger requests reuse.
    assert.equal(small(point({ lora: { r: 128, alpha: 32, target_modules: ['q_proj', 'v_proj'] } })), undefined);
    assert.equal(small(point({ gpus_per_node: 2, zero_stage: 2 })), undefined);
  });
});
