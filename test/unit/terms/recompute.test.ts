// Term: the recomputed layer's own high point under full checkpointing (src/core/terms/activations/recompute.ts).
// CPU truth of the `layer` suite (test/fixtures/truth/layer.json: Llama of hidden 256, MLP 688, 4 heads over 2 key-value
// heads, a 512-word vocabulary, 2 x 1,024 tokens, LoRA r 16 on every linear layer, fp32 adapters over bf16 weights;
// tools/truth/FINDINGS.md §58). The step peaks inside the last layer's recompute, at the up projection's LoRA sum.
import * as assert from 'node:assert/strict';
import { type ForwardSequence, Tape, type Weight } from '../../../src/core/terms/saved-tensors';
import { loraEntryGradientBytes, recomputeHighBytes } from '../../../src/core/terms/activations/recompute';
import { component, near, phase, run } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

const T = 2 * 1024;

describe("recompute: the recomputed layer's own high point", () => {
  // input (100, not counted), a (10, saved), b (20, freed after c), c (30, freed after d), copy (7, held), d (5, output)
  const seq: ForwardSequence = {
    bytes: [100, 10, 20, 30, 7, 5],
    freeAfter: [5, 1, 3, 5, 4, 5],
    saved: [false, true, false, false, false, false],
    recomputeEnd: 6,
    held: [false, false, false, false, true, false],
    contextHeld: [false, false, false, false, false, false],
    input: 0,
    output: 5,
    linears: [],
  };

  it('a sequence: saved tensors stay, the rest go at their last read; the input and weight copies are not counted', () => {
    // After c: 10 + 20 + 30 = 60 (b goes once c exists); then 10 + 30 (+ 7 held, not counted) + 5 = 45.
    assert.equal(recomputeHighBytes(seq, true), 60);
  });

  it('non-reentrant checkpointing stops the recompute at the last pack; the reentrant form runs it all', () => {
    // The last pack before c (recomputeEnd 3: input, a, b made): a (10, saved) and b (20) at once, 30; c and d never
    // made. torch/utils/checkpoint.py early stop (_StopRecomputationError).
    const early = { ...seq, recomputeEnd: 3 };
    assert.equal(recomputeHighBytes(early, true), 30);
    assert.equal(recomputeHighBytes(early, false), 60);
  });

  it("DoRA's recompute ends at the first magnitude product (PEFT 0.21 on every linear layer, dropout, fp32)", () => {
    // CPU truth peft/llama-dora-all-dropout-fp32-ckpt (tools/truth/FINDINGS.md §61): the step's peak, 81,705,740 B,
    // at down_proj's (mag_norm_scale - 1) x base_result; the next product's packing of lora_result is the last pack,
    // so its output is never made. The recompute point stays within 2 % of it.
    const id = 'peft/llama-dora-all-dropout-fp32-ckpt';
    const bwd = phase(run(truthSetup(id)), 'backward');
    near(bwd.allocatedBytes, truthPeak(id), 0.02, 'backward peak against the loop');
  });

  it("a LoRA target's gradients before lora_B reads its input: fp32 adapters over a bf16 output, bf16 adapters", () => {
    // fp32 sum over a bf16 base output: the scaled adapter output's fp32 gradient and the base output's bf16 one.
    assert.equal(loraEntryGradientBytes({ elems: T * 256, outputBytes: 2, sumBytes: 4 }), T * 256 * (4 + 2));
    // Same dtype: AddBackward0 passes the gradient through; only the multiply by scaling makes one.
    assert.equal(loraEntryGradientBytes({ elems: T * 256, outputBytes: 2, sumBytes: 2 }), T * 256 * 2);
  });

  it('Llama LoRA on every linear layer, checkpointed: 42,582,016 B high point, 4,194,304 B in flight, within 1 %', () => {
    const id = 'layer/llama-lora-all-bf16-ckpt';
    const bwd = phase(run(truthSetup(id)), 'backward');
    const high = bwd.components.find((c) => c.label.startsWith('Recomputed layer at its high point'));
    // The up projection's sum: the layer's saved tensors so far, the gate's SiLU output, the up projection's bf16 base
    // output, its fp32 adapter input, the scaled fp32 adapter output and the fp32 sum (the trace of the point).
    assert.equal(high?.bytes, 42_582_016);
    // The layer output's bf16 gradient (T x 256 x 2 B), and down_proj's: the scaled adapter output's fp32 gradient
    // and the base output's bf16 one.
    assert.equal(component(bwd, 'backward-working'), T * 256 * (2 + 4 + 2));
    near(bwd.allocatedBytes, truthPeak(id), 0.01, 'backward peak against the loop');
  });

  it("a post-feedforward norm opens the layer's backward (Gemma 3): its backward beside the recomputed layer", () => {
    // CPU truth layer/gemma3-lora-all-bf16-ckpt (FINDINGS §61): the peak, 61,268,862 B, at aten::mul < PowBackward0 of
    // post_feedforward_layernorm, with the whole recomputed layer and five fp32 tensors of T x 256 (2,097,152 B each).
    // The working set: those five and the residual stream's two bf16 gradients (2 x T x 256 x 2 B).
    const id = 'layer/gemma3-lora-all-bf16-ckpt';
    const bwd = phase(run(truthSetup(id)), 'backward');
    assert.equal(bwd.components.find((c) => c.label.startsWith('Recomputed layer'))?.bytes, 42_390_016);
    assert.equal(component(bwd, 'backward-working'), 5 * T * 256 * 4 + 2 * T * 256 * 2);
    near(bwd.allocatedBytes, truthPeak(id), 0.02, 'backward peak against the loop');
    // The full fine-tune's trained norm weight kept the fp32 normalized tensor, released by then: four fp32 tensors.
    const full = phase(run(truthSetup('layer/gemma3-full-bf16-ckpt')), 'backward');
    assert.equal(component(full, 'backward-working'), 4 * T * 256 * 4 + 2 * T * 256 * 2);
    near(full.allocatedBytes, truthPeak('layer/gemma3-full-bf16-ckpt'), 0.01, 'full fine-tune against the loop');
  });

  it('a DoRA down_proj releases what it kept, adapters included, before the MLP working set peaks', () => {
    // CPU truth peft/llama-dora-all-fp32-ckpt (FINDINGS §61): after the recompute the layer's backward never holds more
    // than 70,155,776 B; the step's peak is the recompute's, 71,367,452 B. Within 1 % (it was +7.7 % with down_proj's
    // tensors stacked under the MLP's gradients).
    const id = 'peft/llama-dora-all-fp32-ckpt';
    near(phase(run(truthSetup(id)), 'backward').allocatedBytes, truthPeak(id), 0.01, 'backward peak against the loop');
  });

  it('a full fine-tune: the MLP working set without the product down_proj kept, within 2 %', () => {
    // 3 x 2,048 x 688 x 2 B of gradients at MulBackward0 less the 2,818,048 B product, and the residual stream's two.
    const id = 'layer/llama-full-bf16-ckpt';
    const bwd = phase(run(truthSetup(id)), 'backward');
    assert.equal(
      bwd.components.find((c) => c.label.startsWith('Backward working set'))?.bytes,
      2 * T * 688 * 2 + 2 * T * 256 * 2,
    );
    near(bwd.allocatedBytes, truthPeak(id), 0.02, 'backward peak against the loop');
  });

  it("the tape's LoRA input released first: only the last linear's branch, only what nothing else keeps", () => {
    // A frozen base layer (keeps no input), then lora_A (keeps it) and lora_B: 100 bf16 elements, 200 B.
    const frozen: Weight = { what: 'W', elems: 10_000, trainable: false, bytesPerElem: 2 };
    const adapter = (what: string): Weight => ({ what, elems: 1_600, trainable: true, bytesPerElem: 2 });
    const lora = (tape: Tape, x: ReturnType<Tape['tensor']>): void => {
      tape.linear(x, frozen, 100, 'base');
      tape.linear(tape.linear(x, adapter('A'), 16, 'a'), adapter('B'), 100, 'b');
      tape.noteLoraInput(x);
    };
    const last = new Tape('half', 2);
    lora(last, last.tensor('x', 100, 2, true));
    assert.equal(last.releasedFirst(), 200);
    // A linear op after the branch: its backward opens the layer's, with the input still kept.
    const notLast = new Tape('half', 2);
    lora(notLast, notLast.tensor('x', 100, 2, true));
    notLast.linear(notLast.tensor('y', 100, 2, true), frozen, 100, 'next');
    assert.equal(notLast.releasedFirst(), 0);
    // The input kept by another op too (a layer norm's saved input, say).
    const shared = new Tape('half', 2);
    const x = shared.tensor('x', 100, 2, true);
    shared.save(x);
    lora(shared, x);
    assert.equal(shared.releasedFirst(), 0);
    // Rolled back (a tiled MLP's shards): not kept at all, so nothing to release.
    const tiled = new Tape('half', 2);
    const mark = tiled.mark();
    lora(tiled, tiled.tensor('x', 100, 2, true));
    tiled.rollback(mark);
    assert.equal(tiled.releasedFirst(), 0);
  });

  it("reentrant checkpointing: the layer's backward opens with down_proj's LoRA branch, which frees its input", () => {
    // CPU truth qlora/llama-wide-w2-fsdp1-qlora-all-ckpt-reentrant (hidden 1,024, MLP 2,752, 256 tokens, QLoRA r 16 on
    // every linear layer, no dropout, FSDP1 over 2 ranks): the peak is the first layer's down_proj MatMul4BitBackward,
    // after lora_A's MmBackward0 (made later in the forward, so run first) has released the product that only it kept
    // (bitsandbytes 0.50 keeps no input). The recomputed layer is the layer's saved tensors less that product,
    // 256 x 2,752 x 2 B = 1,409,024 B; the non-reentrant form (the same scenario without the flag) keeps the whole set.
    const id = 'qlora/llama-wide-w2-fsdp1-qlora-all-ckpt-reentrant';
    const recomputed = (e: ReturnType<typeof run>): number =>
      phase(e, 'backward').components.find((c) => c.label === 'Recomputed layer (checkpointing)')?.bytes ?? 0;
    const reentrant = run(truthSetup(id));
    const nonReentrant = run(truthSetup(id, { checkpoint_reentrant: false }));
    assert.equal(recomputed(nonReentrant) - recomputed(reentrant), 256 * 2752 * 2);
    near(phase(reentrant, 'backward').allocatedBytes, truthPeak(id), 0.01, 'backward peak against the loop');
  });

  it('without checkpointing there is no recompute point', () => {
    const bwd = phase(run(truthSetup('layer/llama-lora-all-bf16')), 'backward');
    assert.equal(
      bwd.components.some((c) => c.label.startsWith('Recomputed layer')),
      false,
    );
  });
});
