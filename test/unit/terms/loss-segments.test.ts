// The segments reserved at the loss's backward when the step peaks elsewhere (src/core/terms/loss-segments.ts): the
// allocator releases none while the GPU has room, so reserved is at least what the loss's backward point held. The
// replayed figure is the recorded HF Trainer sequence of tools/truth/scenarios/replay/llama70b-2l-lora-qv-ckpt
// (transformers 5.17, PEFT 0.21, on the CPU) replayed through the caching-allocator model (tools/truth/FINDINGS.md §8).
import * as assert from 'node:assert/strict';
import { LOSS_BACKWARD_NOTE } from '../../../src/core/estimate/phases';
import type { Estimate } from '../../../src/core/model';
import { run, setupFor } from '../helpers';
import { llama2LoraLoss, replayEstimate, runtimeBytes } from './helpers';

/** Llama-2-70B widths, two layers, LoRA on q and v, checkpointed, bf16 autocast, no CUDA context (as replayed). */
const llama70bWidths = (extra: Record<string, unknown> = {}, lean = false): Estimate =>
  replayEstimate('llama70b-2l-lora-qv-ckpt', extra, lean);

describe('loss-segments', () => {
  it('Llama-2-70B widths, checkpointed: the peak is a layer backward, the replay holds what the loss held', () => {
    const e = llama70bWidths();
    // The recorded sequence peaks in a layer's backward too (5,023.8 MB allocated, MulBackward0).
    assert.equal(e.perGpu.phase, 'backward');
    assert.match(e.perGpu.phases.find((p) => p.phase === 'backward')!.note, /last layer/);
    // Plain LoRA: the two-step replay stands for the setup (two-step-cache.test.ts) and holds the loss's segments
    // itself. The replayed recorded sequence reserves 5,247.1 MB (2 steps).
    assert.equal(runtimeBytes(e, 'loss-segments'), undefined);
    const err = e.perGpu.reservedBytes / 5_247.1e6 - 1;
    assert.ok(Math.abs(err) <= 0.03, `${(err * 100).toFixed(1)} %`);
  });
  it('none when the peak is the loss itself (the logits block and the forward cache are counted there)', () => {
    // Llama-2-7B QLoRA over 4 x 2,048 tokens peaks at the loss's backward; the replay does not stand for a 4-bit base.
    const e = run(llama2LoraLoss({ quantization: { bits: 4 } }));
    assert.equal(e.perGpu.phases.find((p) => p.phase === e.perGpu.phase)!.note, LOSS_BACKWARD_NOTE);
    assert.equal(runtimeBytes(e, 'loss-segments'), undefined);
    assert.ok(runtimeBytes(e, 'forward-cache')! > 0);
  });
  it('none with a chunked loss (no whole-logits blocks to keep) or expandable segments', () => {
    assert.equal(runtimeBytes(llama70bWidths({ loss: 'chunked' }), 'loss-segments'), undefined);
    assert.equal(runtimeBytes(llama70bWidths({ expandable_segments: true }), 'loss-segments'), undefined);
  });
  it('the lean estimate (the advice search) reserves the same', () => {
    assert.equal(llama70bWidths({}, true).perGpu.reservedBytes, llama70bWidths().perGpu.reservedBytes);
  });
  it("FSDP's stream pools are held beside the loss's backward too: Answer.AI's LoRA layout, 6 x 2,048, transformers 4.40", () => {
    // AnswerDotAI/fsdp_qlora@05ed9f2 train.py defaults (FSDP1 over 2 GPUs, LoRA r 64, reentrant checkpointing), with
    // the backward prefetch off as Accelerate runs FSDP1 (train.py leaves FSDP's BACKWARD_PRE: the last test). Under
    // transformers 4.40 (4.38's per-layer rotary tables left out) the loss's call ties the loss's backward
    // (terms/shifted-logits.ts), so the peak is labelled the forward and the loss's segments are counted here; under
    // 4.57 the loss's backward is the peak. Both hold the same allocated bytes at the loss's backward and the same
    // stream pools; 4.40 adds the shift's slice gradient, 4·T·V.
    const layout = (transformers: string, prefetch: 'none' | 'pre' = 'none'): Estimate =>
      run(
        setupFor('meta-llama/Llama-2-7b-hf', {
          method: 'lora',
          lora: { r: 64, alpha: 16, dropout: 0.1, dtype: 'bf16', target_modules: ['q_proj', 'k_proj', 'v_proj'] },
          weights_dtype: 'bf16',
          mixed_precision: 'none',
          micro_batch_size: 6,
          seq_len: 2048,
          gradient_checkpointing: 'full',
          checkpoint_reentrant: true,
          // train.py's apply_activation_checkpointing: checkpoint_wrapper inside each unit (fsdp1-frozen-inputs.ts).
          checkpoint_wrapper: true,
          gpus_per_node: 2,
          fsdp: 'full_shard',
          fsdp_version: 1,
          fsdp_backward_prefetch: prefetch,
          transformers_version: transformers,
          // An optimizer the FSDP1 replay (terms/fsdp1-step-cache.ts) does not stand for: the flat terms are tested.
          optimizer: 'adamw_hf',
        }),
      );
    const then = layout('4.40');
    const now = layout('4.57');
    assert.equal(now.perGpu.phase, 'backward');
    assert.ok(runtimeBytes(then, 'loss-segments')! > 0);
    const pools = (e: Estimate): number => runtimeBytes(e, 'all-gather-pool')! + (runtimeBytes(e, 'stream-pools') ?? 0);
    assert.ok(pools(then) > 0);
    assert.equal(pools(then), pools(now));
    // 12,288 tokens x 32,000 x 4 B = 1,572,864,000 B (750 x 2 MiB) more than 4.57's loss blocks.
    const lossBlocks = (e: Estimate): number =>
      runtimeBytes(e, 'logits-block')! + runtimeBytes(e, 'forward-cache')! + (runtimeBytes(e, 'small-pool') ?? 0);
    assert.equal(then.perGpu.reservedBytes, now.perGpu.peakBytes + lossBlocks(now) + 1_572_864_000 + pools(then));
    // Under BACKWARD_PRE the root's pre-backward hook gathers the last layer's unit (202,383,360 params x 2 B) as the
    // loss's backward starts: it is allocated at the peak, now the loss's backward in both releases, and no longer
    // beside it in the all-gather stream's pool, which keeps one unit of the two; 4.57 reserves the same.
    const unit = 202_383_360 * 2;
    const pre = layout('4.40', 'pre');
    assert.equal(pre.perGpu.phase, 'backward');
    assert.equal(pre.perGpu.peakBytes, then.perGpu.peakBytes + unit);
    assert.equal(runtimeBytes(pre, 'all-gather-pool'), unit);
    assert.equal(layout('4.57', 'pre').perGpu.reservedBytes, now.perGpu.reservedBytes);
  });
});
