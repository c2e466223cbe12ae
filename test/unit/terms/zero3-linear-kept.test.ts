// Term: ZeRO-3's linear weights kept for their backward where the model was made outside deepspeed.zero.Init and
// DeepSpeed is older than 0.19.4 (src/core/terms/zero3-linear-kept.ts), worked out by hand from the CPU truth's tiny
// 8-layer Llama and measured with the real engine under DeepSpeed 0.15.0, 0.16.5 and 0.19.6
// (test/fixtures/truth/zero.json, tools/truth/FINDINGS.md §67-68).
import * as assert from 'node:assert/strict';
import { near, phase, run, setupFor } from '../helpers';
import { adviceItemOn, truthPeak, truthSetup } from './helpers';

const AT_LOSS = 'ZeRO-3 gathered parameters (linear weights kept for the backward, at the loss)';
const IN_BACKWARD = 'ZeRO-3 gathered parameters (linear weights kept for the backward)';
const FORWARD_LAYER = "ZeRO-3 gathered parameters (the layers before keep their linears' weights)";

describe('estimate: ZeRO-3 keeps the linear weights of a model made outside ZeRO-Init (DeepSpeed before 0.19.4)', () => {
  // The tiny Llama, one layer: q and o 256 x 256 = 65,536 each, k and v 256 x 128 = 32,768 each, gate, up and down
  // 256 x 688 = 176,128 each: 724,992 linear weights; 8 layers 5,799,936, in bf16 11,599,872 B. The small parameters
  // every rank keeps unsharded: 8 x 2 norms x 256 + the final norm 256 = 4,352, 8,704 B.
  const keptParams = 5_799_936;
  const smallBytes = 8_704;
  const full = 'zero/llama8-w8-z3-full-runahead';
  const tinyArch = truthSetup(full).architecture as Record<string, unknown>;
  const labelled = (p: ReturnType<typeof phase>, label: string) => p.components.find((c) => c.label === label);

  it('every layer at the loss under 0.16.5 and 0.15.0: the CPU truth within 1 % (was -7.0 / -5.0 %)', () => {
    for (const release of ['0.16.5', '0.15.0']) {
      const id = `${full}-ds${release}`;
      const e = run(truthSetup(id));
      const kept = labelled(phase(e, 'backward'), AT_LOSS);
      assert.equal(kept?.inputs?.keptParams, keptParams, id);
      assert.equal(kept?.bytes, keptParams * 2 + smallBytes, id);
      near(e.perGpu.peakBytes, truthPeak(id), 0.01, id);
    }
  });

  it('the measured difference to 0.19.6 is the layers the prefetch had released: within 0.5 MB of 7.25 MB', () => {
    // Measured: 102,262,557 B under 0.16.5 against 95,012,773 B under 0.19.6 at the loss's backward, 7,249,784 B: in
    // the histories 15 MLP weights, 10 q / o and 10 k / v beyond 0.19.6's (five layers' worth). The estimate: every
    // layer's 5,799,936 less what the prefetch holds at the loss anyway under 0.19.6, max_live 3,300,000 + the largest
    // module 176,128 - the head 1,048,576 = 2,427,552: 3,372,384 x 2 B = 6,744,768 B.
    const before = run(truthSetup(`${full}-ds0.16.5`)).perGpu.peakBytes;
    const after = run(truthSetup(full)).perGpu.peakBytes;
    assert.equal(before - after, 6_744_768);
    near(before - after, truthPeak(`${full}-ds0.16.5`) - truthPeak(full), 0.07, 'difference');
  });

  it('LoRA without checkpointing keeps the frozen base weights and the adapters too: within 0.5 %', () => {
    const id = 'zero/llama8-w8-z3-lora-all-runahead-ds0.16.5';
    const e = run(truthSetup(id));
    // and the adapters, nn.Linear too, all above the threshold of 1,000 elements: r 16 x (in + out) a target, q and o
    // 16 x 512, k and v 16 x 384, gate, up and down 16 x 944: 73,984 a layer, 591,872 in 8 (was -1.1 % without them)
    assert.equal(labelled(phase(e, 'backward'), AT_LOSS)?.inputs?.keptParams, keptParams + 591_872);
    near(e.perGpu.peakBytes, truthPeak(id), 0.005, id);
    // 0.19.6 wraps the linears of any model: nothing kept, and its own point within 1 %
    const control = run(truthSetup('zero/llama8-w8-z3-lora-all-runahead'));
    assert.equal(labelled(phase(control, 'backward'), AT_LOSS), undefined);
    near(control.perGpu.peakBytes, truthPeak('zero/llama8-w8-z3-lora-all-runahead'), 0.01, 'control');
  });

  it('at 8B on an H100: 13.09 GB measured between 0.16.5 and 0.19.6 outside ZeRO-Init, the estimate within 2 %', () => {
    // Llama-3.1-8B full fine-tune, 1 x 2,048 tokens, 8 ranks, no checkpointing (tools/truth/gpu/results/2026-11-26c-h100):
    // 47,673,710,592 against 34,587,482,112 B allocated; 32 layers' linear weights, 6,979,321,856 params in bf16.
    const old = 'gpu/llama-3.1-8b-full-s2048-b1-nockpt-z3-w8-noinit-ds0.16.5';
    const current = 'gpu/llama-3.1-8b-full-s2048-b1-nockpt-z3-w8-noinit';
    const e = run(truthSetup(old));
    assert.equal(labelled(phase(e, 'backward'), AT_LOSS)?.inputs?.keptParams, 6_979_321_856);
    const estimated = e.perGpu.peakBytes - run(truthSetup(current)).perGpu.peakBytes;
    near(estimated, truthPeak(old) - truthPeak(current), 0.02, 'difference');
    near(e.perGpu.peakBytes, truthPeak(old), 0.005, old);
  });

  it("torch's linear, which runs in DeepSpeed's place there, keeps no frozen linear's input: the GPU truth within 0.5 %", () => {
    // Qwen2.5-7B, LoRA on q, k, v and o, 1 x 4,096 tokens, 8 ranks, one H100 (tools/truth/gpu/results/2026-11-26c-h100).
    // The MLP is frozen: DeepSpeed's linear saves its input (the norm's output, 4,096 x 3,584 x 2 = 29,360,128 B) and
    // down_proj's (4,096 x 18,944 x 2 = 155,189,248 B), torch's only what a gradient needs: 184,549,376 B a layer, 28
    // layers; and the frozen head's input, 29,360,128 B. Without it the estimate was 12.0 % over.
    const id = 'gpu/qwen2.5-7b-lora-s4096-b1-nockpt-z3-w8-noinit-ds0.16.5';
    const torchLinear = run(truthSetup(id));
    const deepspeedLinear = run(truthSetup(id, { zero3_init: true }));
    const bytesOf = (e: typeof torchLinear, id: string) =>
      phase(e, 'backward').components.find((c) => c.id === id)!.bytes;
    assert.equal(bytesOf(deepspeedLinear, 'activations') - bytesOf(torchLinear, 'activations'), 28 * 184_549_376);
    assert.equal(bytesOf(deepspeedLinear, 'logits-loss') - bytesOf(torchLinear, 'logits-loss'), 29_360_128);
    near(torchLinear.perGpu.peakBytes, truthPeak(id), 0.005, id);
    // the same model under 0.19.6 (DeepSpeed's linear in both places): the inputs kept, measured within 0.5 %
    for (const twin of [
      'gpu/qwen2.5-7b-lora-s4096-b1-nockpt-z3-w8-noinit',
      'gpu/qwen2.5-7b-lora-s4096-b1-nockpt-z3-w8-ds0.16.5',
    ]) {
      near(run(truthSetup(twin)).perGpu.peakBytes, truthPeak(twin), 0.005, twin);
    }
  });

  it("the forward's end holds them too, and the forward's last layer the seven layers before it", () => {
    const e = run(truthSetup(`${full}-ds0.16.5`));
    assert.equal(labelled(phase(e, 'forward'), AT_LOSS)?.bytes, keptParams * 2 + smallBytes);
    // With a tiny vocabulary the forward's high point moves into the last layer: 7 of the 8 layers' linear weights
    // (5,074,944) beside the prefetch running ahead there (max_live 3,300,000 + the largest module 176,128).
    const small = run(truthSetup(`${full}-ds0.16.5`, { architecture: { ...tinyArch, vocab_size: 32 } }));
    const inLayer = labelled(phase(small, 'forward'), FORWARD_LAYER);
    assert.equal(inLayer?.bytes, (5_074_944 + 3_476_128) * 2 + smallBytes);
  });

  it('nothing under 0.19.4, under ZeRO-Init, with full checkpointing, with a 4-bit base, or at stage 2', () => {
    const none = (extra: Record<string, unknown>) => {
      const e = run(truthSetup(`${full}-ds0.16.5`, extra));
      return ['forward', 'backward'].every((ph) =>
        phase(e, ph as 'forward').components.every((c) => c.label !== AT_LOSS && c.label !== IN_BACKWARD),
      );
    };
    assert.ok(none({ deepspeed_version: '0.19.4' }));
    assert.ok(none({ zero3_init: true }));
    assert.ok(none({ zero3_init: undefined }));
    assert.ok(none({ gradient_checkpointing: 'full' }));
    assert.ok(none({ zero_stage: 2 }));
    assert.ok(none({ method: 'qlora', quantization: { bits: 4 }, lora: { r: 16, target_modules: 'all-linear' } }));
    assert.ok(!none({ method: 'lora', lora: { r: 16, target_modules: 'all-linear' } }));
  });

  const llama8b = (extra: Record<string, unknown>) =>
    setupFor('meta-llama/Llama-3.1-8B', {
      method: 'full',
      weights_dtype: 'bf16',
      zero_stage: 3,
      gpus_per_node: 8,
      micro_batch_size: 1,
      seq_len: 2048,
      deepspeed_version: '0.16.5',
      zero3_init: false,
      ...extra,
    });

  it("a freeze run keeps its trainable layers' only: 2 of Llama-3.1-8B's 32", () => {
    // One layer: q and o 4,096 x 4,096 = 16,777,216 each, k and v 4,096 x 1,024 = 4,194,304 each, gate, up and down
    // 4,096 x 14,336 = 58,720,256 each: 218,103,808; 32 layers 6,979,321,856; the last two 436,207,616.
    const all = labelled(phase(run(llama8b({})), 'backward'), AT_LOSS);
    assert.equal(all?.inputs?.keptParams, 6_979_321_856);
    const freeze = labelled(phase(run(llama8b({ method: 'freeze', freeze_trainable_layers: 2 })), 'backward'), AT_LOSS);
    assert.equal(freeze?.inputs?.keptParams, 436_207_616);
  });

  it('without a release a current one is said; zero3_init is said where an older release makes it matter', () => {
    const current = run(llama8b({ deepspeed_version: undefined }));
    assert.equal(labelled(phase(current, 'backward'), AT_LOSS), undefined);
    assert.equal(current.assumptions.find((a) => a.key === 'deepspeed_version')?.value, 'current (0.19.4 or later)');
    const initDefault = run(llama8b({ zero3_init: undefined }));
    assert.equal(initDefault.assumptions.find((a) => a.key === 'zero3_init')?.value, 'true');
    assert.equal(labelled(phase(initDefault, 'backward'), AT_LOSS), undefined);
    // the same under a current release: nothing to say
    const quiet = run(llama8b({ zero3_init: undefined, deepspeed_version: '0.19.6' }));
    assert.equal(
      quiet.assumptions.find((a) => a.key === 'zero3_init'),
      undefined,
    );
  });

  it('advice: making the model inside ZeRO-Init is a change that saves what the linears kept (Llama-3.1-8B, 8 x H100)', () => {
    const setup = llama8b({ micro_batch_size: 2 });
    const { item, before, after } = adviceItemOn(setup, 'H100-80GB', 'zero3-init', { zero3_init: true });
    assert.ok(item, 'the zero3-init move is offered');
    assert.deepEqual(item.changes, [{ key: 'zero3_init', value: true }]);
    // What it saves is the estimates' difference: at the backward's high point the 32 layers' 6,979,321,856 linear
    // weights (13.96 GB in bf16) less what the prefetch holds there anyway.
    assert.equal(item.savedBytes, before - after);
    assert.ok(item.savedBytes > 5e9 && item.savedBytes < 13.96e9, `saves ${item.savedBytes} B`);
    assert.equal(item.stepTimeFactor, 1);
  });
});
