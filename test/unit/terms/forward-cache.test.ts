// The blocks the forward's last layers leave cached at the loss (src/core/terms/forward-cache.ts): a replay of one
// block's forward allocations through the caching-allocator model, layer after layer. The small sequences are worked
// by hand with the allocator's rules (terms/allocator.ts); the real-width points are the recorded HF Trainer
// sequences of tools/truth/FINDINGS.md §8, replayed through the same allocator model.
import * as assert from 'node:assert/strict';
import { forwardEndCache } from '../../../src/core/terms/forward-cache';
import type { ForwardSequence } from '../../../src/core/terms/saved-tensors';
import { replayEstimate, runtimeBytes } from './helpers';

const MiB = 1 << 20;
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * A block of four tensors: its input (8 MiB, the previous block's output), two 30 MiB intermediates and an 8 MiB output.
 * The input and the first intermediate are read last by the op that makes the second; the second by the one that makes
 * the output.
 */
const block = (firstSaved: boolean): ForwardSequence => ({
  bytes: [8 * MiB, 30 * MiB, 30 * MiB, 8 * MiB],
  freeAfter: [2, 2, 3, 3],
  saved: [false, firstSaved, false, false],
  recomputeEnd: 4,
  held: [false, false, false, false],
  contextHeld: [false, false, false, false],
  input: 0,
  output: 3,
  linears: [],
});

describe('forward-cache: hand-worked replays', () => {
  it('nothing saved: 72 MiB cached after every layer', () => {
    // Layer 1: the input takes 8 MiB of a 20 MiB segment (< 10 MiB: kLargeBuffer) and the rest is split off (12 MiB);
    // each intermediate gets a 30 MiB segment (>= 10 MiB: its own size). After the second, the input and the first are
    // freed (the input's segment merges back to 20 MiB). The output (8 MiB) takes the best fit, the 20 MiB block (12
    // left); then the second is freed. Cached: 12 + 30 + 30 = 72 MiB. Layer 2 reuses both 30 MiB blocks and the
    // 20 MiB one the same way: 72 MiB again.
    assert.equal(forwardEndCache(block(false), 1, false, { below: NO_LIMIT }).bytes, 72 * MiB);
    assert.equal(forwardEndCache(block(false), 2, false, { below: NO_LIMIT }).bytes, 72 * MiB);
    assert.equal(forwardEndCache(block(false), 32, false, { below: NO_LIMIT }).bytes, 72 * MiB);
    assert.equal(forwardEndCache(block(false), 32, false, { below: NO_LIMIT }).layers, 4);
  });
  it('the first intermediate saved: it stays allocated, 42 MiB cached', () => {
    // Layer 1: 12 MiB beside the output and the second's 30 MiB. Layer 2: its first intermediate takes that 30 MiB
    // block, its second a new segment, which it leaves free: 12 + 30 again.
    assert.equal(forwardEndCache(block(true), 1, false, { below: NO_LIMIT }).bytes, 42 * MiB);
    assert.equal(forwardEndCache(block(true), 2, false, { below: NO_LIMIT }).bytes, 42 * MiB);
  });
  it('checkpointed: the input is kept, nothing else, the output takes the input segment rest or a freed block', () => {
    // Layer 1: the input stays (8 of 20 MiB), the output takes the 12 MiB rest (4 MiB left, > 1 MiB: split), both
    // intermediates are freed: 4 + 30 + 30 = 64 MiB. Layer 2: the intermediates reuse the 30 MiB blocks; the output
    // finds no block smaller than 30 MiB that holds it (4 MiB) and splits the first (22 MiB left): 4 + 22 + 30 = 56.
    assert.equal(forwardEndCache(block(false), 1, true, { below: NO_LIMIT }).bytes, 64 * MiB);
    assert.equal(forwardEndCache(block(false), 2, true, { below: NO_LIMIT }).bytes, 56 * MiB);
  });
  it('blocks that hold the loss request are not counted (the head and the loss take them)', () => {
    // Of 12 + 30 + 30 MiB, only the 12 MiB block is smaller than a 25 MiB request.
    assert.equal(forwardEndCache(block(false), 1, false, { below: 25 * MiB }).bytes, 12 * MiB);
  });
  it("a chunked loss's requests are placed in the forward's blocks: what stays free is the cache", () => {
    // After layer 1: free 12, 30, 30 MiB. A 25 MiB request takes the first 30 MiB block by best fit (lowest address
    // among equal sizes) and splits it (5 MiB left, > 1 MiB): 12 + 5 + 30 = 47 MiB stay free.
    assert.equal(forwardEndCache(block(false), 1, false, { sizes: [25 * MiB] }).bytes, 47 * MiB);
  });
});

describe('forward-cache: against recorded allocation sequences', () => {
  it('the checkpointed MLP: three T x I x 2 B intermediates (gate, act, up / product) stay cached at 1 x 2048', () => {
    // The recorded sequence leaves 3 x 46.1 MB of the last layer's MLP (2048 x 11008 x 2 B each) cached at the loss.
    // The term counts them where the two-step replay does not stand for the setup: here over a 4-bit base (QLoRA).
    const cache = runtimeBytes(
      replayEstimate('llama7b-4l-lora-qv-ckpt-2k', { quantization: { bits: 4 } }),
      'forward-cache',
    )!;
    assert.ok(cache >= 3 * 2048 * 11008 * 2, `${cache}`);
  });
  it('none with expandable segments: freed ranges of the one growing segment serve requests of any size', () => {
    const e = replayEstimate('llama7b-4l-lora-qv-ckpt-2k', { expandable_segments: true });
    assert.equal(runtimeBytes(e, 'forward-cache'), undefined);
  });
  it('none when the peak is not at the loss (a full fine-tune peaks at the optimizer step)', () => {
    const e = replayEstimate('llama7b-2l-full-bf16');
    assert.equal(e.perGpu.phase, 'optimizer');
    assert.equal(runtimeBytes(e, 'forward-cache'), undefined);
  });
});
