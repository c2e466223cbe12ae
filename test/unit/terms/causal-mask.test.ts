// Term: eager attention's 4D causal masks (src/core/terms/activations/causal-mask.ts). CPU truth of the peft suite
// (test/fixtures/truth/peft.json: Gemma 2 of hidden 256, 2 layers, one sliding-window and one full-attention layer,
// eager attention, 2 x 512 tokens, fp32 weights; tools/truth/FINDINGS.md §61): the profiler's history holds two
// 2,097,152 B `aten::where` tensors (2 x 512 x 512 x 4 B) from the forward to the end of the backward.
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

  it('layers of one kind: one mask (GPT-J, full attention everywhere)', () => {
    // loop/gptj-full-bf16-ckpt: bf16 weights, so the mask is in bf16.
    assert.equal(maskBytes('loop/gptj-full-bf16-ckpt'), 2 * 512 * 512 * 2);
  });
});
