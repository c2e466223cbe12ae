// An old lit-gpt's multi-query attention (setup.litgpt_mqa_broadcast, terms/activations/sdpa-math.ts): before
// Lightning-AI/lit-gpt@50b1974b (2023-10-24) CausalSelfAttention repeated the key and value heads only when a model had
// more than one (`if self.config.n_query_groups != 1`), so Falcon-7B's one key and value head reached SDPA unrepeated
// and its math kernel ran, keeping the probabilities of every layer: 71 heads x s x s x 2 B (bf16, PyTorch 2.1 computes
// 16-bit inputs in their dtype). The published peaks of that time are checked in test/unit/measured-cases.test.ts.
import * as assert from 'node:assert/strict';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { component, phase, resolveText, run, setupFor } from '../helpers';

/** Lit-GPT's finetune/lora.py on Falcon-7B over one sequence of `seq` tokens. */
function falconLora(seq: number, extra: Partial<TrainingSetupInput> = {}) {
  return run(
    setupFor('tiiuae/falcon-7b', {
      method: 'lora',
      model_code: 'litgpt',
      lora: { r: 8, alpha: 16, dropout: 0.05, target_modules: ['query_key_value'], qkv_parts: ['q', 'v'] },
      weights_dtype: 'bf16',
      mixed_precision: 'none',
      micro_batch_size: 1,
      seq_len: seq,
      attention: 'sdpa',
      pytorch_version: '2.1',
      ...extra,
    }),
  );
}

const saved = (e: ReturnType<typeof falconLora>): number => component(phase(e, 'backward'), 'activations');

describe('LitGPT: a multi-query model under an old lit-gpt (litgpt_mqa_broadcast)', () => {
  it("keeps every layer s x s probabilities per head in place of the fused kernel's output and logsumexp", () => {
    // Per layer: the probabilities 71 x 1,079^2 x 2 B = 165,322,222 B kept by the math kernel, where the fused kernel
    // keeps its output, 1,079 x 4,544 x 2 B = 9,805,952 B, and its fp32 logsumexp, 71 x 1,079 x 4 B = 306,436 B; both
    // keep q and k (the math kernel their copies scaled by sqrt(scale)) and the fused output v is a view of.
    const perLayer = 71 * 1079 * 1079 * 2 - 1079 * 4544 * 2 - 71 * 1079 * 4;
    const grown = saved(falconLora(1079, { litgpt_mqa_broadcast: true })) - saved(falconLora(1079));
    assert.equal(grown, 32 * perLayer); // 4,966,714,688 B
  });

  it('changes nothing for a model with a key and value head per query head', () => {
    const llama = (extra: Partial<TrainingSetupInput>) =>
      run(setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', model_code: 'litgpt', seq_len: 1024, ...extra }));
    assert.equal(llama({ litgpt_mqa_broadcast: true }).perGpu.peakBytes, llama({}).perGpu.peakBytes);
  });

  it('is read from a scenario file', () => {
    const r = resolveText('run.vram.yaml', 'model: tiiuae/falcon-7b\nmodel_code: litgpt\nlitgpt_mqa_broadcast: true\n');
    assert.equal(r.setup?.litgpt_mqa_broadcast, true);
  });
});
