// Autocast's 16-bit copies of fp32 weights (terms/activations/stage.ts autocastCopies, terms/saved-tensors.ts linear):
// autocast caches the copy of a leaf that requires grad until its region ends (aten/src/ATen/autocast_mode.cpp
// cached_cast: `arg.requires_grad() && arg.is_leaf()`); a frozen fp32 weight is cast anew at each use. Checked on
// torch 2.13 (CPU autocast, bf16): three calls of an nn.Linear with a trained fp32 weight make one copy of it, with a
// frozen one three, under torch.no_grad too. So under checkpointing a full fine-tune holds every layer's copies at the
// loss, and a LoRA over an fp32 base none of its base weights'.
import * as assert from 'node:assert/strict';
import { estimate } from '../../../src/core/estimate';
import { findModel } from '../../../src/core/lookup';
import { TrainingSetupSchema } from '../../../src/core/setup';

const llama = findModel('meta-llama/Llama-3.1-8B');
if (!llama.ok) throw new Error('catalog entry missing: meta-llama/Llama-3.1-8B');

const setup = (method: 'full' | 'lora') =>
  TrainingSetupSchema.parse({
    architecture: llama.model.config,
    parameters: llama.model.publishedParams,
    method,
    ...(method === 'lora' ? { lora: { r: 16, alpha: 32, target_modules: 'all-linear' } } : {}),
    weights_dtype: 'fp32',
    mixed_precision: 'bf16',
    micro_batch_size: 1,
    seq_len: 1024,
    gradient_checkpointing: 'full',
  });

const cacheBytes = (method: 'full' | 'lora'): number => {
  const r = estimate(setup(method));
  assert.ok(r.ok);
  const cache = r.estimate.perGpu.phases
    .flatMap((p) => p.components)
    .filter((c) => c.label.startsWith('Autocast weight cache'));
  return Math.max(0, ...cache.map((c) => c.bytes));
};

describe('autocast weight copies', () => {
  it("a full fine-tune's fp32 weights are cached to the forward's end: 32 layers x 218,103,808 x 2 B", () => {
    // A Llama-3.1-8B layer's linears: q and o 2 x 4,096^2, k and v 2 x 4,096 x 1,024, the MLP 3 x 4,096 x 14,336.
    assert.equal(cacheBytes('full'), 32 * 218_103_808 * 2);
  });

  it("LoRA over an fp32 base caches none of the frozen base weights' copies", () => {
    // Only the adapters train: r 16 over the seven projections, 1,310,720 elements a layer, their copies cached.
    assert.equal(cacheBytes('lora'), 32 * 16 * (2 * 8_192 + 2 * 5_120 + 3 * 18_432) * 2);
  });
});
