// PEFT's adapters under DeepSpeed ZeRO-3 in bf16 (src/analyzers/deepspeed-adapters.ts): DeepSpeed before 0.19.2 casts
// them to bf16 with the rest of the module; from 0.19.2 it leaves a ZeRO-Init model's parameters as they are, and the
// adapters PEFT added after the load stay fp32. Measured on an H100 (tools/truth/gpu/results/2026-11-26b-h100): the
// 0.19.6 histories hold each LoRA target's input cast to fp32, the 0.16.5 ones do not (FINDINGS §67).
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';

// An Axolotl LoRA config over Llama-3.1-8B with a ZeRO-3 DeepSpeed file beside it, and optionally a requirements.txt.
const AXOLOTL =
  'base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: 16\nlora_alpha: 32\nlora_target_linear: true\n' +
  'bf16: true\nsequence_len: 2048\nmicro_batch_size: 2\ngradient_checkpointing: true\ndeepspeed: ds.json\n';
const ZERO3 = '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}}';

function run(pin?: string, ds = ZERO3) {
  const files = new Map([
    ['/w/lora.yaml', AXOLOTL],
    ['/w/ds.json', ds],
  ]);
  if (pin) files.set('/w/requirements.txt', pin);
  const reader = {
    read: (p: string) => files.get(p),
    join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
  };
  return runPipeline([{ file: '/w/lora.yaml', text: AXOLOTL }], reader, { gpusPerNode: 8 });
}

describe('analyzers: PEFT adapters under DeepSpeed ZeRO-3 by release', () => {
  it('fp32 under a current DeepSpeed (0.19.2 or later), which the estimate says as its assumption', () => {
    // (Axolotl checkpoints reentrant, so the release said is also the one that keeps recomputed frozen layers)
    const r = run();
    assert.equal(r.setup?.zero_stage, 3);
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.equal(r.setup?.mixed_precision, 'none');
    assert.equal(r.setup?.lora?.dtype, 'fp32');
    // the LoRA settings keep their place in the file
    assert.deepEqual(r.provenance.lora, { kind: 'file', file: '/w/lora.yaml', line: 3, key: 'lora_r' });
    const e = estimate(r.setup!);
    assert.ok(e.ok);
    assert.equal(e.estimate.assumptions.find((a) => a.key === 'deepspeed_version')?.value, 'current (0.19.3 or later)');
    assert.equal(run('deepspeed==0.19.6\n').setup?.lora?.dtype, 'fp32');
  });

  it('bf16 under a release that casts the module (0.16.5), under PEFT before 0.12, and under ZeRO-2', () => {
    assert.equal(run('deepspeed==0.16.5\n').setup?.lora?.dtype, 'bf16');
    assert.equal(run('peft==0.10.0\n').setup?.lora?.dtype, 'bf16');
    const zero2 = run(undefined, '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}}');
    assert.equal(zero2.setup?.lora?.dtype, 'bf16');
  });

  it('the fp32 adapters cost their inputs in fp32: Llama-3.1-8B, 2 x 2,048 tokens, r 16 on every linear layer', () => {
    const fp32 = run('deepspeed==0.19.6\n').setup!;
    const bf16 = run('deepspeed==0.16.5\n').setup!;
    const a = estimate(fp32);
    const b = estimate(bf16);
    assert.ok(a.ok && b.ok);
    // Adapters: 32 layers x 16 x (q 4096+4096, k 4096+1024, v 4096+1024, o 4096+4096, gate and up 4096+14336 each,
    // down 14336+4096) = 32 x 16 x 81,920 = 41,943,040 parameters, 4 B instead of 2, sharded over 8 ranks.
    const adapters = (x: typeof a) =>
      x.ok ? x.estimate.perGpu.components.find((c) => c.label === 'LoRA adapter weights')?.bytes : 0;
    assert.equal(adapters(a), (41_943_040 * 4) / 8);
    assert.equal(adapters(b), (41_943_040 * 2) / 8);
    assert.ok(a.ok && b.ok && a.estimate.perGpu.peakBytes > b.estimate.perGpu.peakBytes);
  });
});
