// Term: the 4-bit codes bitsandbytes' MatMul4Bit keeps gathered under ZeRO-3 (src/core/terms/zero3-bnb-kept.ts),
// worked out by hand from the CPU truth's wide 4-layer Llama and measured with DeepSpeed 0.19.6 and bitsandbytes
// 0.50.1's own code (test/fixtures/truth/zero.json, tools/truth/FINDINGS.md §90).
import * as assert from 'node:assert/strict';
import { near, phase, run, setupFor } from '../helpers';
import { adviceItemOn, truthPeak, truthSetup } from './helpers';

const AT_LOSS = 'ZeRO-3 gathered parameters (4-bit codes kept for the backward, at the loss)';
const IN_BACKWARD = 'ZeRO-3 gathered parameters (4-bit codes kept for the backward)';

describe('estimate: ZeRO-3 keeps the 4-bit codes bitsandbytes multiplied by until the backward ends', () => {
  // The wide Llama, one layer: q and o 1,024 x 1,024 = 1,048,576 each, k and v 512 x 1,024 = 524,288 each, gate, up and
  // down 2,752 x 1,024 = 2,818,048 each: 11,599,872 4-bit weights; 4 layers 46,399,488, at 0.5 B 23,199,744 B. The
  // history of llama-wide-w8-z3-qlora-all-ckpt holds exactly these at its backward peak: 12 MLP weights of 1,409,024 B,
  // 8 of 524,288 and 8 of 262,144, all allocated in the forward and freed after the backward.
  const keptCodeBytes = 23_199_744;
  const labelled = (e: ReturnType<typeof run>, label: string) =>
    phase(e, 'backward').components.find((c) => c.label === label);

  it('non-reentrant checkpointing: every layer kept through the backward, the CPU truth within 1 % (was -35 / -46 %)', () => {
    for (const world of [2, 8]) {
      for (const fam of ['llama', 'qwen2']) {
        const id = `zero/${fam}-wide-w${world}-z3-qlora-all-ckpt`;
        const e = run(truthSetup(id));
        const kept = labelled(e, IN_BACKWARD);
        assert.equal(kept?.inputs?.keptCodeBytes, keptCodeBytes, id);
        near(e.perGpu.peakBytes, truthPeak(id), 0.01, id);
      }
    }
  });

  it('without checkpointing: kept through the backward, within 2 % (was -22 / -26 %)', () => {
    for (const world of [2, 8]) {
      const id = `zero/llama-wide-w${world}-z3-qlora-all`;
      const e = run(truthSetup(id));
      const kept = phase(e, 'backward').components.find((c) => c.label === AT_LOSS || c.label === IN_BACKWARD);
      assert.equal(kept?.inputs?.keptCodeBytes, keptCodeBytes, id);
      near(e.perGpu.peakBytes, truthPeak(id), 0.02, id);
    }
  });

  it('the difference to reentrant checkpointing is the kept codes and the recomputed layer: within 1 MB of 7.9 MB', () => {
    // Measured at 8 ranks: 57,253,545 - 49,326,609 = 7,926,936 B. Reentrant checkpointing builds no graph in the forward
    // (nothing kept) and its recompute's activations are the larger; the non-reentrant run keeps the 23.2 MB of codes.
    const base = 'zero/llama-wide-w8-z3-qlora-all-ckpt';
    const reentrant = run(truthSetup(`${base}-reentrant`));
    assert.equal(labelled(reentrant, IN_BACKWARD), undefined);
    const diff = run(truthSetup(base)).perGpu.peakBytes - reentrant.perGpu.peakBytes;
    assert.ok(Math.abs(diff - (truthPeak(base) - truthPeak(`${base}-reentrant`))) < 1_000_000, `${diff}`);
  });

  it('over one rank DeepSpeed gathers nothing: no kept codes, nothing gathered, within 3 % (was +5.2 / +32 %)', () => {
    // partition_parameters.py NoGatherCoalescedHandle: param.data = param.ds_tensor.data, the partition itself.
    for (const kind of ['-ckpt', '-ckpt-reentrant', '']) {
      const id = `zero/llama-wide-w1-z3-qlora-all${kind}`;
      const e = run(truthSetup(id));
      for (const p of e.perGpu.phases)
        for (const c of p.components) if (c.id === 'gathered-params') assert.equal(c.bytes, 0, `${id} ${c.label}`);
      near(e.perGpu.peakBytes, truthPeak(id), 0.03, id);
    }
    // and a 16-bit model the same (its points were within 0.3 % before: little of it is gathered at their peaks)
    for (const id of ['zero/llama-w1-z3-full', 'zero/llama-w1-z3-lora-all-ckpt'])
      near(run(truthSetup(id)).perGpu.peakBytes, truthPeak(id), 0.005, id);
  });

  it('not under ZeRO-2 (nothing partitioned), nor for torchao NF4 (codes and constants in its own tensor)', () => {
    const z2 = run(truthSetup('zero/llama-wide-w8-z2-qlora-all-ckpt'));
    assert.equal(labelled(z2, IN_BACKWARD), undefined);
    const setup = truthSetup('zero/llama-wide-w8-z3-qlora-all-ckpt');
    const torchao = run({ ...setup, quantization: { ...setup.quantization!, library: 'torchao' } });
    assert.equal(labelled(torchao, IN_BACKWARD), undefined);
  });

  const llama70b = () =>
    setupFor('meta-llama/Llama-2-70b-hf', {
      method: 'qlora',
      quantization: { bits: 4, type: 'nf4', double_quant: true },
      lora: { r: 8, alpha: 16, target_modules: 'all-linear', dtype: 'bf16' },
      weights_dtype: 'bf16',
      zero_stage: 3,
      gpus_per_node: 8,
      micro_batch_size: 1,
      seq_len: 2048,
      gradient_checkpointing: 'full',
      checkpoint_reentrant: false,
    });

  it('Llama-2-70B over 8 GPUs: 32 GiB of codes on every GPU where its partition is 4 GiB', () => {
    // 80 layers x (q, o 8,192² + k, v 8,192 x 1,024 + gate, up, down 8,192 x 28,672) = 80 x 855,638,016 =
    // 68,451,041,280 weights, at 0.5 B 34,225,520,640 B.
    assert.equal(labelled(run(llama70b()), IN_BACKWARD)?.inputs?.keptCodeBytes, 34_225_520_640);
  });

  it('says which checkpointing form it took where no file says, since that decides the codes', () => {
    const { checkpoint_reentrant: _unset, ...setup } = llama70b();
    const said = run(setup).assumptions.find((a) => a.key === 'checkpoint_reentrant');
    assert.equal(said?.value, 'false');
    assert.match(said?.source ?? '', /keeps every gathered 4-bit weight under ZeRO-3/);
    // ZeRO-2 gathers nothing: the form is not said for that
    assert.equal(
      run({ ...setup, zero_stage: 2 }).assumptions.find((a) => a.key === 'checkpoint_reentrant'),
      undefined,
    );
  });

  it('the advice offers reentrant checkpointing, which saves about the codes', () => {
    const setup = llama70b();
    const patch = { checkpoint_reentrant: true };
    const id = 'reentrant-checkpointing-zero3';
    const { item, before, after } = adviceItemOn(setup, 'A100-80GB', id, patch);
    assert.ok(item, 'the move is offered');
    assert.deepEqual(item.changes, [{ key: 'checkpoint_reentrant', value: true }]);
    assert.equal(item.savedBytes, before - after);
    // The 34.2 GB of codes less what a reentrant backward holds in their place under DeepSpeed 0.19.3 or later (the
    // frozen layers its recompute gathered, terms/zero3-recompute-kept.ts, 4-bit here too): the saving is the rest.
    assert.ok(item.savedBytes > 0 && item.savedBytes < 34.3e9, `saves ${item.savedBytes} B`);
    // Not offered under PEFT's recipe, which is reentrant already.
    assert.equal(adviceItemOn({ ...setup, ...patch }, 'A100-80GB', id, patch).item, undefined);
  });
});

describe("estimate: ZeRO-3 before 0.19.3 holds a QLoRA layer's codes twice in its reentrant backward", () => {
  it("the recompute's MatMul4Bit keeps the layer's codes while the backward gathers them anew", () => {
    // CPU truth (DeepSpeed 0.14.4 / 0.15.0, bitsandbytes 0.50.1, FINDINGS §114): Llama of hidden 1,024, MLP 2,752, 8
    // heads and 4 KV heads over 2 ranks. One layer's 4-bit codes: q and o 1,024 x 1,024, k and v 512 x 1,024, gate, up
    // and down 2,752 x 1,024: (2 x 1,048,576 + 2 x 524,288 + 3 x 2,818,048) x 0.5 B = 5,799,936 B.
    const id = 'zero/llama-wide-w2-z3-qlora-all-ckpt-reentrant-ds0.14.4';
    const e = run(truthSetup(id));
    const twice = phase(e, 'backward').components.find((c) => c.label.includes('kept from its reentrant recompute'));
    assert.equal(twice?.bytes, 5_799_936);
    near(e.perGpu.peakBytes, truthPeak(id), 0.01, 'against the CPU truth (52,192,249 B)');
    // 0.19.6 keeps the recomputed layers gathered to the step: nothing is gathered twice.
    const current = run(truthSetup('zero/llama-wide-w2-z3-qlora-all-ckpt-reentrant'));
    assert.ok(
      !phase(current, 'backward').components.some((c) => c.label.includes('kept from its reentrant recompute')),
    );
  });
});
