// PEFT's conversion of LoRA target_modules for transformers 5's fused MoE experts (src/core/estimate/peft-moe.ts),
// against the trainable counts of the CPU truth (test/fixtures/truth) worked out by hand from PEFT 0.21's rules:
// peft/utils/transformers_weight_conversion.py `_convert_peft_config_moe` (w1 + w3 -> gate_up_proj at rank 2r, w2 ->
// down_proj and gate -> gate.weight at rank r; all-linear names them all) and peft/tuners/lora/layer.py
// ParamWrapper.update_layer (lora_A r·E x in, lora_B out x r·E; E = 1 for a 2-D weight).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { moves } from '../../../src/core/advice/moves';
import type { TrainingSetup } from '../../../src/core/setup';
import { component, phase, run } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

/** The trainable parameters PEFT reported at a truth point. */
function measuredTrainable(id: string): number {
  const file = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'truth', `${id.split('/')[0]}.json`);
  const points = (
    JSON.parse(fs.readFileSync(file, 'utf8')) as { points: Array<{ id: string; trainableParameters: number }> }
  ).points;
  return points.find((p) => p.id === id)!.trainableParameters;
}

describe('estimate: PEFT maps 4.x expert names onto transformers 5 fused experts', () => {
  it('Mixtral, r 64 on all-linear: 1,311,232 trainable, as measured (peft/mixtral-lora64-all-fp32)', () => {
    // hidden 256, 4 heads of 64 (2 kv heads: k and v 128 wide), 4 experts of width 256, 2 layers.
    const attention = 64 * (256 + 256) + 64 * (256 + 128) + 64 * (256 + 128) + 64 * (256 + 256); // q, k, v, o
    const gateUp = 128 * 4 * (256 + 2 * 256); // w1 + w3 -> gate_up_proj at rank 2 x 64, E = 4, 256 -> 512
    const down = 64 * 4 * (256 + 256); // w2 -> down_proj at rank 64
    const router = 64 * (256 + 4); // gate -> gate.weight (4 x 256) at rank 64, E = 1
    assert.deepEqual([attention, gateUp, down, router], [114_688, 393_216, 131_072, 16_640]);
    const byHand = 2 * (attention + gateUp + down + router);
    assert.equal(byHand, 1_311_232);
    assert.equal(measuredTrainable('peft/mixtral-lora64-all-fp32'), byHand);

    const e = run(truthSetup('peft/mixtral-lora64-all-fp32'));
    assert.equal(e.parameters.trainable, byHand);
    // fp32 adapters; AdamW's two fp32 states follow the trainable count.
    assert.equal(component(phase(e, 'optimizer'), 'adapter-weights'), byHand * 4);
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-states'), byHand * 2 * 4);
    // Measured peak 84,706,796 B; 27 % low before the conversion was modeled.
    const peak = truthPeak('peft/mixtral-lora64-all-fp32');
    assert.ok(Math.abs(e.perGpu.phases.find((p) => p.phase === 'backward')!.allocatedBytes / peak - 1) < 0.03);
    const a = e.assumptions.find((x) => x.key === 'peft_version');
    assert.match(a?.value ?? '', /w1, w3 -> gate_up_proj \(r 128\); w2 -> down_proj \(r 64\)/);
    assert.ok(!e.warnings.some((w) => w.code === 'fused-experts'));
  });

  it('each adapted MoE layer keeps W + BA of every adapted parameter and its input: experts and router', () => {
    // fp32, no autocast, 2 x 256 tokens, top-2: per layer gate_up_proj W + BA (4 x 256 x 512) and its routed input
    // (1,024 x 256), down_proj W + BA (4 x 256 x 256) and its routed input (1,024 x 256), the router's W + BA (4 x 256)
    // and its input (512 x 256), all 4 B.
    const perLayer = 4 * (4 * 256 * 512 + 1024 * 256 + 4 * 256 * 256 + 1024 * 256 + 4 * 256 + 512 * 256);
    const current = run(truthSetup('peft/mixtral-lora64-all-fp32'));
    const old = run(truthSetup('peft/mixtral-lora64-all-fp32', { peft_version: '0.18' }));
    assert.equal(
      component(phase(current, 'forward'), 'activations') - component(phase(old, 'forward'), 'activations'),
      2 * perLayer,
    );
  });

  it('PEFT before 0.19 converts nothing: attention only, and the fused-experts warning', () => {
    const e = run(truthSetup('peft/mixtral-lora64-all-fp32', { peft_version: '0.18.1' }));
    assert.equal(e.parameters.trainable, 2 * 114_688);
    const w = e.warnings.find((x) => x.code === 'fused-experts');
    assert.match(w?.message ?? '', /PEFT 0\.18\.1 does not convert 4\.x expert names onto them \(0\.19 and later do\)/);
    assert.ok(!e.assumptions.some((x) => x.key === 'peft_version'));
  });

  it('Qwen3-MoE, r 16 on all-linear: 245,888 trainable, as measured (loop/qwen3_moe-lora-all-bf16-ckpt)', () => {
    // hidden 256, 4 heads of 64 (2 kv heads), 4 experts of width 128, 2 layers, no shared expert.
    const attention = 16 * (256 + 256) + 2 * 16 * (256 + 128) + 16 * (256 + 256);
    const gateUp = 32 * 4 * (256 + 2 * 128); // gate_proj + up_proj -> gate_up_proj at rank 2 x 16
    const down = 16 * 4 * (128 + 256); // down_proj -> down_proj at rank 16
    const router = 16 * (256 + 4); // gate -> gate.weight at rank 16
    assert.deepEqual([attention, gateUp, down, router], [28_672, 65_536, 24_576, 4_160]);
    const byHand = 2 * (attention + gateUp + down + router);
    assert.equal(byHand, 245_888);
    assert.equal(measuredTrainable('loop/qwen3_moe-lora-all-bf16-ckpt'), byHand);
    assert.equal(run(truthSetup('loop/qwen3_moe-lora-all-bf16-ckpt')).parameters.trainable, byHand);
  });

  it('Qwen2-MoE is not converted: 114,720 trainable, as measured (loop/qwen2_moe-lora-all-bf16-ckpt)', () => {
    // qwen2_moe is no key of _MODEL_TO_CONVERSION_PATTERN: all-linear is every nn.Linear but lm_head (PEFT
    // _maybe_include_all_linear_layers). hidden 256, 4 heads of 64 (2 kv heads), a shared expert of width 256 and its
    // one-output gate, 2 layers; the 4 routed experts (3-D) and the router's bare weight get no adapter.
    const attention = 16 * (256 + 256) + 2 * 16 * (256 + 128) + 16 * (256 + 256);
    const sharedExpert = 3 * 16 * (256 + 256); // shared_expert.gate_proj, up_proj, down_proj
    const sharedExpertGate = 16 * (256 + 1); // shared_expert_gate, an nn.Linear(256, 1)
    const byHand = 2 * (attention + sharedExpert + sharedExpertGate);
    assert.equal(byHand, 114_720);
    assert.equal(measuredTrainable('loop/qwen2_moe-lora-all-bf16-ckpt'), byHand);
    const e = run(truthSetup('loop/qwen2_moe-lora-all-bf16-ckpt'));
    assert.equal(e.parameters.trainable, byHand);
    assert.match(
      e.warnings.find((w) => w.code === 'fused-experts')?.message ?? '',
      /PEFT converts no 4\.x expert name onto them for qwen2_moe/,
    );
  });

  it('a list converts the names it gives (no router without gate); half a fused pair makes PEFT raise', () => {
    const lora = (target_modules: string[]): Record<string, unknown> => ({
      lora: { r: 16, alpha: 32, target_modules },
    });
    const q = 16 * (256 + 256);
    const both = run(
      truthSetup('loop/qwen3_moe-lora-all-bf16-ckpt', lora(['q_proj', 'gate_proj', 'up_proj', 'down_proj'])),
    );
    assert.equal(both.parameters.trainable, 2 * (q + 32 * 4 * (256 + 256) + 16 * 4 * (128 + 256)));
    const half = run(truthSetup('loop/qwen3_moe-lora-all-bf16-ckpt', lora(['q_proj', 'gate_proj', 'down_proj'])));
    assert.equal(half.parameters.trainable, 2 * (q + 16 * 4 * (128 + 256)));
    assert.match(
      half.warnings.find((w) => w.key === 'lora.target_modules')?.message ?? '',
      /Cannot convert PEFT target\(s\) gate_proj without also targeting up_proj/,
    );
  });

  it('DoRA and LoRA dropout on the converted parameters: PEFT raises, said as warnings', () => {
    const e = run(
      truthSetup('peft/mixtral-lora64-all-fp32', {
        lora: { r: 64, alpha: 128, target_modules: 'all-linear', use_dora: true, dropout: 0.05 },
      }),
    );
    assert.match(
      e.warnings.find((w) => w.key === 'lora.use_dora')?.message ?? '',
      /lora\.ParamWrapper does not work with use_dora=True/,
    );
    assert.match(
      e.warnings.find((w) => w.key === 'lora.dropout')?.message ?? '',
      /lora\.ParamWrapper does not work with lora_dropout != 0/,
    );
    // DoRA's magnitudes on the attention modules only: one per output feature of q, k, v and o.
    assert.equal(e.parameters.trainable, 1_311_232 + 2 * (256 + 128 + 128 + 256));
  });

  it('the advice proposes all-linear LoRA on such a model without dropout, which ParamWrapper refuses', () => {
    const dropouts = (base: TrainingSetup): Array<number | undefined> =>
      ['lora', 'qlora', 'lora-r8', 'lora-r64'].map((id) => {
        const patch = moves(base, true)
          .find((m) => m.id === id)!
          .apply(base);
        return patch?.lora?.dropout;
      });
    assert.deepEqual(dropouts(truthSetup('loop/mixtral-full-fp32')), [0, 0, 0, 0]);
    assert.deepEqual(
      dropouts(truthSetup('loop/mixtral-full-fp32', { peft_version: '0.18' })),
      [0.05, 0.05, 0.05, 0.05],
    );
    assert.deepEqual(dropouts(truthSetup('loop/llama-full-fp32')), [0.05, 0.05, 0.05, 0.05]);
  });
});

describe('estimate: PEFT lora.ParamWrapper under FSDP', () => {
  // fsdp2/gptoss-w2-lora-experts-bf16-amp-ckpt ran under FSDP2 (-0.5 %). The same adapters under FSDP1 with PEFT's
  // fsdp_auto_wrap_policy failed in the harness's first forward, use_orig_params false ("setStorage ... out of bounds
  // for storage of size 0") and true (tools/truth/FINDINGS.md §93).
  const id = 'fsdp2/gptoss-w2-lora-experts-bf16-amp-ckpt';
  const warned = (extra: Record<string, unknown>): boolean =>
    run(truthSetup(id, extra)).warnings.some((w) => w.key === 'fsdp' && /lora\.ParamWrapper/.test(w.message));
  it('FSDP1 over 2 GPUs (and fsdp_version unset): a warning at fsdp, the estimate made as if it ran', () => {
    assert.equal(warned({ fsdp_version: 1 }), true);
    assert.equal(warned({ fsdp_version: undefined }), true);
  });
  it('FSDP2, or FSDP1 over one GPU, or no bare parameter adapted: no warning', () => {
    assert.equal(warned({}), false);
    assert.equal(warned({ fsdp_version: 1, gpus_per_node: 1 }), false);
    const lora = truthSetup(id).lora!;
    assert.equal(warned({ fsdp_version: 1, lora: { ...lora, target_parameters: undefined } }), false);
  });
});
