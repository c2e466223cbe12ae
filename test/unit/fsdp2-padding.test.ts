// FSDP2's padded dim-0 shards of fused MoE experts (src/core/estimate/fsdp2-padding.ts), with numbers worked by hand
// and the CPU truth points fsdp2/mixtral-w8-amp, fsdp2/mixtral-w16-amp and fsdp2/gptoss-w8-amp (tools/truth,
// test/fixtures/truth).
import * as assert from 'node:assert/strict';
import { estimate, TrainingSetupSchema, type TrainingSetupInput } from '../../src/core';

// The truth points' tiny Mixtral: 4 experts of 3 x 256 x 256 per layer, 2 layers.
const MIXTRAL = {
  model_type: 'mixtral',
  hidden_size: 256,
  intermediate_size: 256,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 4096,
  max_position_embeddings: 2048,
  tie_word_embeddings: false,
  num_local_experts: 4,
  num_experts_per_tok: 2,
  sliding_window: null,
};

function run(world: number, version: 1 | 2): { optimizer: number; warnings: string[]; assumptions: string[] } {
  const setup: TrainingSetupInput = {
    architecture: MIXTRAL,
    method: 'full',
    weights_dtype: 'fp32',
    micro_batch_size: 2,
    seq_len: 256,
    attention: 'sdpa',
    optimizer: 'adamw',
    cuda_context_bytes: 0,
    fsdp: 'full_shard',
    gpus_per_node: world,
    mixed_precision: 'bf16',
    fsdp_version: version,
  };
  const r = estimate(TrainingSetupSchema.parse(setup));
  assert.ok(r.ok, JSON.stringify(r));
  const states = r.estimate.perGpu.components.find((c) => c.id === 'optimizer-states');
  return {
    optimizer: states?.bytes ?? 0,
    warnings: r.estimate.warnings.map((w) => w.message),
    assumptions: r.estimate.assumptions.map((a) => `${a.key}=${a.value}`),
  };
}

describe('FSDP2 padding of fused experts', () => {
  // Expert params: 2 layers x 4 experts x 3 x 256 x 256 = 1,572,864. AdamW keeps 2 x 4 B per param.
  const experts = 2 * 4 * 3 * 256 * 256;
  it('4 experts over 8 GPUs: each GPU holds 1 of 4 (2x its 1/8), over 4 GPUs exactly 1/4', () => {
    const even = run(8, 1).optimizer;
    const padded = run(8, 2).optimizer;
    // FSDP2 adds (1/4 - 1/8) of the experts' states: 1,572,864 x 8 B / 8 = 1,572,864 B.
    assert.equal(padded - even, (experts * 8) / 8);
    assert.equal(run(4, 2).optimizer, run(4, 1).optimizer);
  });
  it('4 experts over 16 GPUs: 4x the even share, and a warning with the numbers', () => {
    const r = run(16, 2);
    // (1/4 - 1/16) x 1,572,864 x 8 B = 2,359,296 B more than FSDP1.
    assert.equal(r.optimizer - run(16, 1).optimizer, experts * 8 * (1 / 4 - 1 / 16));
    assert.ok(r.warnings.some((m) => /over 16 GPUs every GPU holds 1 \(padded\), 4x the even share/.test(m)));
  });
  it("gpt-oss's own 3-D experts are padded the same way (CPU truth fsdp2/gptoss-w8-amp)", () => {
    // gpt-oss: 4 experts of gate_up_proj [4, 256, 512] + bias [4, 512] and down_proj [4, 256, 256] + bias [4, 256]
    // per layer, 2 layers: 2 x 4 x (131,072 + 512 + 65,536 + 256) = 1,579,008 expert params. Over 8 ranks each holds
    // 1 of the 4 experts (padded): (1/4 - 1/8) of their AdamW states more than an even share, 1,579,008 B.
    const gptOss = {
      ...MIXTRAL,
      model_type: 'gpt_oss',
      head_dim: 64,
      sliding_window: 128,
      layer_types: ['sliding_attention', 'full_attention'],
    };
    const states = (world: number, version: 1 | 2): number => {
      const setup: TrainingSetupInput = {
        architecture: gptOss,
        attention: 'eager',
        fsdp: 'full_shard',
        gpus_per_node: world,
        mixed_precision: 'bf16',
        fsdp_version: version,
        cuda_context_bytes: 0,
      };
      const r = estimate(TrainingSetupSchema.parse(setup));
      assert.ok(r.ok, JSON.stringify(r));
      return r.estimate.perGpu.components.find((c) => c.id === 'optimizer-states')?.bytes ?? 0;
    };
    const expertParams = 2 * 4 * (256 * 512 + 512 + 256 * 256 + 256);
    assert.equal(states(8, 2) - states(8, 1), expertParams * 8 * (1 / 4 - 1 / 8));
    assert.equal(states(4, 2), states(4, 1));
  });
  it('an unknown fsdp_version is assumed FSDP1 where it would matter, and says what FSDP2 would do', () => {
    const setup: TrainingSetupInput = { architecture: MIXTRAL, fsdp: 'full_shard', gpus_per_node: 16 };
    const r = estimate(TrainingSetupSchema.parse(setup));
    assert.ok(r.ok);
    const a = r.estimate.assumptions.find((x) => x.key === 'fsdp_version');
    assert.equal(a?.value, '1');
    assert.match(
      a?.source ?? '',
      /4 fused experts of each layer along dim 0 over 16 GPUs: 1 per GPU, 4x the even share/,
    );
  });
});
