// Architecture variant: the output head as LitGPT's model code builds it (src/core/architecture/litgpt-head.ts).
// litgpt/model.py builds `lm_head = nn.Linear(n_embd, padded_vocab_size)` beside `wte`, and
// litgpt/scripts/convert_hf_checkpoint.py copies `transformer.wte.weight` into `lm_head.weight` when the checkpoint has
// no head; litgpt/pretrain.py ties them under train.tie_embeddings (Lightning-AI/litgpt 5895df1 and 2685705). Worked by
// hand for Gemma-2B (vocab 256,000 x hidden 2,048 = 524,288,000 head parameters beside the 2,506,172,416 of the tied
// checkpoint) and TinyLlama-1.1B (untied: 32,000 x 2,048 = 65,536,000 of its 1,100,048,384). The published Gemma-2B
// rows of LitGPT's config hub are checked through its YAML files in test/unit/analyzers/yaml-litgpt.test.ts.
import * as assert from 'node:assert/strict';
import { litgptHead } from '../../../src/core/architecture';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { quantizedHead } from '../../../src/core/terms/quantized-head';
import { phase, run, setupFor } from '../helpers';
import { archOf } from './helpers';

const HEAD = 256_000 * 2_048; // 524,288,000
const TIED = 2_506_172_416;

/** Gemma-2B full fine-tune in bf16 without autocast (LitGPT's bf16-true), 1 x 512 tokens, one GPU. */
function gemmaFull(code: 'litgpt' | 'transformers', extra: Partial<TrainingSetupInput> = {}) {
  return run(
    setupFor('google/gemma-2b', {
      method: 'full',
      model_code: code,
      weights_dtype: 'bf16',
      mixed_precision: 'none',
      micro_batch_size: 1,
      seq_len: 512,
      ...extra,
    }),
  );
}

describe('LitGPT head: a tied model fine-tuned, an untied one pretrained tied', () => {
  it('counts the copied head beside the tied checkpoint, and says so', () => {
    const litgpt = gemmaFull('litgpt');
    assert.equal(litgpt.parameters.total, TIED + HEAD);
    assert.equal(litgpt.parameters.trainable, TIED + HEAD);
    assert.match(litgpt.parameters.source, /\+ 524\.3M for LitGPT's output head copied from the tied embedding/);
    assert.equal(gemmaFull('transformers').parameters.total, TIED);
  });

  it('trains it: 10 B more per head parameter at the optimizer step (weight, gradient, two bf16 states, a temporary)', () => {
    // bf16 weights 2 B + bf16 gradients 2 B + AdamW's two bf16 states 4 B + the foreach step's temporary 2 B.
    assert.equal(phase(gemmaFull('litgpt'), 'optimizer').allocatedBytes, 10 * (TIED + HEAD));
    assert.equal(phase(gemmaFull('transformers'), 'optimizer').allocatedBytes, 10 * TIED);
  });

  it('under LoRA the copied head is frozen: in the weights, not in the trained parameters', () => {
    const e = gemmaFull('litgpt', {
      method: 'lora',
      lora: { r: 8, alpha: 16, target_modules: ['q_proj', 'v_proj'] },
    });
    // 18 layers x r 8 x ((2,048 + 2,048) for q_proj + (2,048 + 256) for v_proj: one 256-wide KV head).
    assert.equal(e.parameters.trainable, 921_600);
    assert.equal(e.parameters.frozen, TIED + HEAD);
  });

  it('is a linear of its own, which Fabric quantizes with the rest under QLoRA', () => {
    const gemma = archOf('google/gemma-2b');
    const q4 = {
      bits: 4 as const,
      type: 'nf4' as const,
      double_quant: false,
      scope: 'all-linear' as const,
      head: true,
    };
    assert.equal(quantizedHead({ quantization: q4 }, gemma), false, 'tied: the embedding');
    assert.equal(quantizedHead({ quantization: q4 }, litgptHead(gemma, false)), true);
  });

  it('pretraining with train.tie_embeddings ties the head, whatever the config says', () => {
    const tiny = (tie: boolean | undefined) =>
      run(
        setupFor('TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T', { model_code: 'litgpt', tie_embeddings: tie }),
      ).parameters;
    assert.equal(tiny(undefined).total, 1_100_048_384);
    assert.equal(tiny(true).total, 1_100_048_384 - 32_000 * 2_048);
    assert.match(
      tiny(true).source,
      /- 65\.5M for LitGPT's output head tied to the embedding \(train\.tie_embeddings\)/,
    );
    assert.equal(gemmaFull('litgpt', { tie_embeddings: true }).parameters.total, TIED);
  });
});
