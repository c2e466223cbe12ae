// Term: eager attention's 4D causal masks (src/core/terms/activations/causal-mask.ts). CPU truth of the peft suite
// (test/fixtures/truth/peft.json: Gemma 2 of hidden 256, 2 layers, one sliding-window and one full-attention layer,
// eager attention, 2 x 512 tokens, fp32 weights; tools/truth/FINDINGS.md §61): the profiler's history holds two
// 2,097,152 B `aten::where` tensors (2 x 512 x 512 x 4 B) from the forward to the end of the backward; and the fsdp2
// suite's gpt-oss under FSDP2 mixed precision, whose masks are bf16.
import * as assert from 'node:assert/strict';
import { near, phase, run } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

const MASK = 2 * 512 * 512 * 4;
const maskBytes = (id: string, extra: Record<string, unknown> = {}): number | undefined =>
  phase(run(truthSetup(id, extra)), 'backward').components.find((c) => c.label.startsWith('Causal attention mask'))
    ?.bytes;

describe('causal-mask: the 4D masks eager attention takes', () => {
  it('full and sliding-window layers: one mask of each kind, both held by the checkpointed layers', () => {
    const id = 'peft/gemma2-dora-all-fp32-ckpt';
    assert.equal(maskBytes(id), 2 * MASK);
    near(phase(run(truthSetup(id)), 'backward').allocatedBytes, truthPeak(id), 0.02, 'backward peak against the loop');
  });

  it('before transformers 4.53 (masking_utils) one mask', () => {
    assert.equal(maskBytes('peft/gemma2-dora-all-fp32-ckpt', { transformers_version: '4.52' }), MASK);
  });

  it("FSDP's 16-bit param_dtype over fp32 weights: the embeddings' output, so each mask, is 16-bit", () => {
    // fsdp2/gptoss-w2-amp-ckpt: gpt-oss (eager attention with sinks, sliding and full layers), fp32 shards gathered in
    // bf16 by MixedPrecisionPolicy, 2 x 512 tokens: two masks of 2 x 512 x 512 x 2 B. Counted in fp32, the estimate was
    // 2 MB (+2.3 %) above the loop at the loss and at its backward.
    const id = 'fsdp2/gptoss-w2-amp-ckpt';
    assert.equal(maskBytes(id), 2 * 2 * 512 * 512 * 2);
    near(phase(run(truthSetup(id)), 'backward').allocatedBytes, truthPeak(id), 0.005, 'backward peak against the loop');
  });

  it('layers of one kind: one mask (GPT-J, full attention everywhere)', () => {
    // loop/gptj-full-bf16-ckpt: bf16 weights, so the mask is in bf16.
    assert.equal(maskBytes('loop/gptj-full-bf16-ckpt'), 2 * 512 * 512 * 2);
  });
});
