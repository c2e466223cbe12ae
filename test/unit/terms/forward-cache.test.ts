// The blocks the forward's last layers leave cached at the loss (src/core/terms/forward-cache.ts): a replay of one
// block's forward allocations through the caching-allocator model, layer after layer. The small sequences are worked
// by hand with the allocator's rules (terms/allocator.ts); the real-width points are the recorded HF Trainer
// sequences of tools/truth/FINDINGS.md §8, replayed through the same allocator model.
import * as assert from 'node:assert/strict';
import { estimate } from '../../../src/core/estimate';
import type { Estimate } from '../../../src/core/model';
import { TrainingSetupSchema, type TrainingSetupInput } from '../../../src/core/setup';
import { forwardEndCache } from '../../../src/core/terms/forward-cache';
import type { ForwardSequence } from '../../../src/core/terms/saved-tensors';

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
  held: [false, false, false, false],
  input: 0,
  output: 3,
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

/** The replay scenarios of tools/truth/scenarios/replay (Llama-2-7B widths, few layers; HF Trainer, bf16 autocast). */
const llamaWidths = (layers: number): TrainingSetupInput['architecture'] => ({
  model_type: 'llama',
  hidden_size: 4096,
  intermediate_size: 11008,
  num_hidden_layers: layers,
  num_attention_heads: 32,
  num_key_value_heads: 32,
  vocab_size: 32000,
  max_position_embeddings: 4096,
  tie_word_embeddings: false,
});
/** Llama-3-8B widths: grouped-query attention (8 kv heads), a 128,256-token vocabulary. */
const llama3Widths = (layers: number): TrainingSetupInput['architecture'] => ({
  model_type: 'llama',
  hidden_size: 4096,
  intermediate_size: 14336,
  num_hidden_layers: layers,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  vocab_size: 128256,
  max_position_embeddings: 8192,
  tie_word_embeddings: false,
  rope_theta: 500000.0,
});
const replayPoint = (extra: Partial<TrainingSetupInput>): Estimate => {
  const r = estimate(
    TrainingSetupSchema.parse({
      method: 'lora',
      weights_dtype: 'bf16',
      attention: 'sdpa',
      optimizer: 'adamw',
      cuda_context_bytes: 0,
      mixed_precision: 'bf16',
      ...extra,
    }),
  );
  assert.ok(r.ok);
  return r.estimate;
};

describe('forward-cache: against recorded allocation sequences', () => {
  // Reserved figures: the recorded sequence of each point (transformers 5.17, PEFT 0.21, HF Trainer) replayed through
  // terms/allocator.ts over two steps (tools/truth/FINDINGS.md §8, `node tools/truth/replay.mjs`).
  const points: Array<{ name: string; extra: Partial<TrainingSetupInput>; replayedMB: number }> = [
    {
      name: 'llama7b-4l-lora-qv-ckpt, 1 x 1024',
      extra: {
        architecture: llamaWidths(4),
        micro_batch_size: 1,
        seq_len: 1024,
        lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'v_proj'] },
        gradient_checkpointing: 'full',
      },
      replayedMB: 2795.5,
    },
    {
      name: 'llama7b-4l-lora-qv-ckpt-2k, 1 x 2048',
      extra: {
        architecture: llamaWidths(4),
        micro_batch_size: 1,
        seq_len: 2048,
        lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'v_proj'] },
        gradient_checkpointing: 'full',
      },
      replayedMB: 3408,
    },
    {
      name: 'llama7b-2l-lora-all, 2 x 512',
      extra: {
        architecture: llamaWidths(2),
        micro_batch_size: 2,
        seq_len: 512,
        lora: { r: 16, alpha: 32, target_modules: 'all-linear' },
      },
      replayedMB: 2430.6,
    },
    // Recorded after the term was written: other widths, grouped-query attention, other vocabularies.
    {
      name: 'llama3-8b-2l-lora-all, 1 x 1024',
      extra: {
        architecture: llama3Widths(2),
        micro_batch_size: 1,
        seq_len: 1024,
        lora: { r: 16, alpha: 32, target_modules: 'all-linear' },
      },
      replayedMB: 5492.4,
    },
    {
      name: 'llama3-8b-4l-lora-all-ckpt, 1 x 2048',
      extra: {
        architecture: llama3Widths(4),
        micro_batch_size: 1,
        seq_len: 2048,
        lora: { r: 16, alpha: 32, target_modules: 'all-linear' },
        gradient_checkpointing: 'full',
      },
      replayedMB: 8170.5,
    },
    {
      name: 'mistral-7b-2l-lora-all, 2 x 1024',
      extra: {
        architecture: { ...llama3Widths(2), model_type: 'mistral', vocab_size: 32000, max_position_embeddings: 32768 },
        micro_batch_size: 2,
        seq_len: 1024,
        lora: { r: 16, alpha: 32, target_modules: 'all-linear' },
      },
      replayedMB: 3540.0,
    },
    {
      name: 'qwen2.5-7b-4l-lora-qv-ckpt, 1 x 1024',
      extra: {
        architecture: {
          model_type: 'qwen2',
          hidden_size: 3584,
          intermediate_size: 18944,
          num_hidden_layers: 4,
          num_attention_heads: 28,
          num_key_value_heads: 4,
          vocab_size: 152064,
          max_position_embeddings: 32768,
          tie_word_embeddings: false,
          rope_theta: 1000000.0,
          rms_norm_eps: 0.000001,
        },
        micro_batch_size: 1,
        seq_len: 1024,
        lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'v_proj'] },
        gradient_checkpointing: 'full',
      },
      replayedMB: 6486.5,
    },
    {
      name: 'gemma2-2b-4l-lora-all-ckpt, 1 x 1024 (sandwich norms, a 256,000-token vocabulary)',
      extra: {
        architecture: {
          model_type: 'gemma2',
          hidden_size: 2304,
          intermediate_size: 9216,
          num_hidden_layers: 4,
          num_attention_heads: 8,
          num_key_value_heads: 4,
          head_dim: 256,
          vocab_size: 256000,
          max_position_embeddings: 8192,
          tie_word_embeddings: true,
          hidden_activation: 'gelu_pytorch_tanh',
          query_pre_attn_scalar: 256,
          sliding_window: 4096,
          final_logit_softcapping: null,
          attn_logit_softcapping: null,
        },
        micro_batch_size: 1,
        seq_len: 1024,
        lora: { r: 16, alpha: 32, target_modules: 'all-linear' },
        gradient_checkpointing: 'full',
      },
      replayedMB: 5729.4,
    },
    {
      name: 'gpt2-xl-4l-lora-attn, 2 x 512 (gelu_new written out)',
      extra: {
        architecture: {
          model_type: 'gpt2',
          n_embd: 1600,
          n_inner: null,
          n_layer: 4,
          n_head: 25,
          vocab_size: 50257,
          n_positions: 1024,
          tie_word_embeddings: true,
          activation_function: 'gelu_new',
        },
        micro_batch_size: 2,
        seq_len: 512,
        lora: { r: 16, alpha: 32, target_modules: ['c_attn'] },
      },
      replayedMB: 1761.6,
    },
  ];
  for (const p of points) {
    it(`${p.name}: reserved within 3 % of the replayed recorded sequence (${p.replayedMB} MB)`, () => {
      const e = replayPoint(p.extra);
      assert.ok(e.perGpu.runtime.some((r) => r.id === 'forward-cache'));
      const err = e.perGpu.reservedBytes / (p.replayedMB * 1e6) - 1;
      assert.ok(Math.abs(err) <= 0.03, `${(err * 100).toFixed(1)} %`);
    });
  }
  it('the checkpointed MLP: three T x I x 2 B intermediates (gate, act, up / product) stay cached at 1 x 2048', () => {
    // The recorded sequence leaves 3 x 46.1 MB of the last layer's MLP (2048 x 11008 x 2 B each) cached at the loss.
    const e = replayPoint(points[1].extra);
    const cache = e.perGpu.runtime.find((r) => r.id === 'forward-cache')!.bytes;
    assert.ok(cache >= 3 * 2048 * 11008 * 2, `${cache}`);
  });
  it('none with expandable segments: freed ranges of the one growing segment serve requests of any size', () => {
    const e = replayPoint({ ...points[1].extra, expandable_segments: true });
    assert.equal(
      e.perGpu.runtime.find((r) => r.id === 'forward-cache'),
      undefined,
    );
  });
  it('none when the peak is not at the loss (a full fine-tune peaks at the optimizer step)', () => {
    const e = replayPoint({ method: 'full', architecture: llamaWidths(2), micro_batch_size: 1, seq_len: 512 });
    assert.equal(
      e.perGpu.runtime.find((r) => r.id === 'forward-cache'),
      undefined,
    );
  });
});
