// Term: Falcon's decoder block (src/core/terms/activations/falcon.ts) on the CPU truth's tiny Falcon (hidden 256,
// 4 heads of 64, one key/value head, MLP 1,024, 2 layers; 2 x 256 tokens, so T = 512 and b x heads x s² = 524,288).
// The per-layer bytes are worked by hand from what transformers 5.17 saved on the CPU (saved-tensor hooks over one
// FalconDecoderLayer, tools/truth/FINDINGS.md §14); the peaks are the truth points' (test/fixtures/truth/loop.json).
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import { phase, run } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

const T = 512;
const SCORES = 2 * 4 * 256 * 256; // b x heads x s x s
// Outside attention, per layer in bf16: the block input and the LayerNorm's output (T x 256 x 2 B each), its mean and
// rstd (fp32, 2 x T x 4 B), the MLP's up projection and GELU outputs (T x 1,024 x 2 B each), and the attention output
// permuted to (b, s, heads x d) for dense (T x 256 x 2 B).
const OUTSIDE = 2 * T * 256 * 2 + 2 * T * 4 + 2 * T * 1_024 * 2 + T * 256 * 2; // 2,363,392

const perLayer = (e: Estimate): number =>
  (e.perGpu.components.find((c) => c.id === 'activations')!.inputs as { perLayerBytes: number }).perLayerBytes;
const estimateOf = (id: string): Estimate => run(truthSetup(id));
const within = (id: string, share: number): void => {
  const peak = estimateOf(id).perGpu.peakBytes;
  const measured = truthPeak(id);
  assert.ok(Math.abs(peak / measured - 1) <= share, `${id}: ${peak} vs measured ${measured}`);
};

describe('Falcon: multi-query attention under SDPA runs the math kernel (tiny Falcon, 2 x 256, bf16)', () => {
  it('keeps fp32 copies of q, k and v expanded to every head and the fp32 probabilities', () => {
    // q, k and v are T x 256 x 4 B each after the upcast and matmul's expand-and-copy; the probabilities b h s² x 4 B.
    assert.equal(perLayer(estimateOf('loop/falcon-full-bf16')), OUTSIDE + 3 * T * 256 * 4 + SCORES * 4); // 6,557,696
    within('loop/falcon-full-bf16', 0.003);
  });
  it('before PyTorch 2.5 the math kernel ran in bf16: the same tensors at 2 B', () => {
    assert.equal(perLayer(estimateOf('loop/falcon-full-bf16-torch24')), OUTSIDE + 3 * T * 256 * 2 + SCORES * 2);
    within('loop/falcon-full-bf16-torch24', 0.003);
    within('loop/falcon-lora-bf16-torch24', 0.003);
  });
  it('with one sequence the key and value heads broadcast as views: one head each is kept', () => {
    // T = 256: the fp32 q copy (256 x 256 x 4), k and v of one head (256 x 64 x 4 each), probabilities 4 x 256² x 4.
    const outside = 2 * 256 * 256 * 2 + 2 * 256 * 4 + 2 * 256 * 1_024 * 2 + 256 * 256 * 2;
    const expected = outside + 256 * 256 * 4 + 2 * 256 * 64 * 4 + 4 * 256 * 256 * 4; // 2,885,632
    assert.equal(perLayer(estimateOf('loop/falcon-full-bf16-b1')), expected);
    within('loop/falcon-full-bf16-b1', 0.003);
  });
  it('eager attention takes its softmax in the input dtype (no fp32 copy), with the same matmul copies', () => {
    assert.equal(perLayer(estimateOf('loop/falcon-full-bf16-eager')), OUTSIDE + 3 * T * 256 * 2 + SCORES * 2); // 4,722,688
    within('loop/falcon-full-bf16-eager', 0.003);
  });
  it('LoRA on query_key_value, and the checkpointed runs, within 0.3 % of the measured peaks', () => {
    for (const id of ['loop/falcon-lora-bf16', 'loop/falcon-full-bf16-ckpt', 'loop/falcon-full-amp']) within(id, 0.003);
  });
});

describe('Falcon: the new decoder architecture and Falcon-RW (ALiBi)', () => {
  it('kv groups broadcast to every head take the fused SDPA kernel (no copy for dense)', () => {
    for (const id of ['loop/falcon40-full-bf16', 'loop/falcon40-full-bf16-eager', 'loop/falcon40-lora-bf16'])
      within(id, 0.003);
  });
  it("ALiBi's (b, heads, s, s) mask is kept by every layer's SDPA call, or its own autocast copy under AMP", () => {
    const mask = (e: Estimate, name: 'forward' | 'backward') =>
      phase(e, name).components.find((c) => c.label.startsWith('ALiBi attention mask'))?.bytes;
    const bf16 = estimateOf('loop/falconrw-full-bf16');
    assert.equal(mask(bf16, 'forward'), SCORES * 2); // 1,048,576
    assert.equal(mask(bf16, 'backward'), SCORES * 2);
    const amp = estimateOf('loop/falconrw-full-amp');
    assert.equal(mask(amp, 'forward'), SCORES * 4); // fp32: the embeddings' dtype
    assert.equal(mask(amp, 'backward'), undefined);
    for (const id of ['loop/falconrw-full-bf16', 'loop/falconrw-full-amp', 'loop/falconrw-lora-bf16'])
      within(id, 0.003);
  });
});
