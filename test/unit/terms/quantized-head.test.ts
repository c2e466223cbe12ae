// Term: a 4-bit output head and the dequantized copies of 4-bit weights (src/core/terms/quantized-head.ts). Lightning
// Fabric's BitsandbytesPrecision replaces every nn.Linear, lm_head included, and quantizes from fp16
// (lightning/fabric/plugins/precision/bitsandbytes.py); bitsandbytes' MatMul4Bit dequantizes to the QuantState's dtype
// and copies to the input's (bitsandbytes/autograd/_functions.py). The numbers are worked by hand for Llama-2-7B:
// vocab 32,000 x hidden 4,096 = 131,072,000 head parameters; block linears 32 x (4 x 4,096² + 3 x 4,096 x 11,008) =
// 6,476,005,376; NF4 at 0.5 B + 4 B / 64 per parameter.
import * as assert from 'node:assert/strict';
import { estimate } from '../../../src/core/estimate';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { dequantBytesPerElement, quantizedHead } from '../../../src/core/terms/quantized-head';
import { component, phase, resolveText, run } from '../helpers';
import { archOf, litgptQloraYaml, llama2Qlora } from './helpers';

const HEAD = 32_000 * 4_096; // 131,072,000
const BLOCK_LINEARS = 6_476_005_376;

describe('quantized head: which heads and copies', () => {
  const q4 = { bits: 4 as const, type: 'nf4' as const, double_quant: false, scope: 'all-linear' as const };
  it('an fp16 QuantState under bf16 compute holds the fp16 weight and its bf16 copy: 4 B per element', () => {
    const fabric = { ...q4, head: true, dequant_dtype: 'fp16' as const };
    assert.equal(
      dequantBytesPerElement({ quantization: fabric, weights_dtype: 'bf16', mixed_precision: 'none' }, 2),
      4,
    );
    assert.equal(
      dequantBytesPerElement({ quantization: fabric, weights_dtype: 'fp16', mixed_precision: 'none' }, 2),
      2,
    );
    assert.equal(dequantBytesPerElement({ quantization: q4, weights_dtype: 'bf16', mixed_precision: 'none' }, 2), 2);
  });
  it('only a 4-bit bitsandbytes head that is not the tied embedding', () => {
    const llama = archOf('meta-llama/Llama-2-7b-hf');
    const gemma = archOf('google/gemma-2b');
    assert.equal(quantizedHead({ quantization: { ...q4, head: true } }, llama), true);
    assert.equal(quantizedHead({ quantization: q4 }, llama), false, "transformers' integration skips lm_head");
    assert.equal(quantizedHead({ quantization: { ...q4, head: true } }, gemma), false, 'tied: the embedding');
    assert.equal(quantizedHead({ quantization: { ...q4, head: true, library: 'torchao' } }, llama), false);
  });
});

describe('quantized head: the estimate (Llama-2-7B QLoRA, bf16, 1 x 512)', () => {
  const qlora = (quantization: Partial<NonNullable<TrainingSetupInput['quantization']>>) =>
    run(llama2Qlora({ quantization: { bits: 4, type: 'nf4', ...quantization } }));
  const fabric = qlora({ head: true, dequant_dtype: 'fp16' });
  const hf = qlora({});
  it('the head is counted with the 4-bit weights', () => {
    assert.equal(fabric.parameters.quantized, BLOCK_LINEARS + HEAD);
    assert.equal(hf.parameters.quantized, BLOCK_LINEARS);
    const fwd = phase(fabric, 'forward');
    // 4-bit: (6,476,005,376 + 131,072,000) x 0.5625 B; 16-bit: the embedding and 65 norms of 4,096.
    assert.equal(component(fwd, 'quantization-constants'), (BLOCK_LINEARS + HEAD) * 0.5625);
    assert.equal(component(fwd, 'weights'), (HEAD + 65 * 4_096) * 2);
  });
  it('the head is dequantized whole for its matmul: V x h x (2 B fp16 + 2 B bf16) = 524,288,000 B at the loss backward', () => {
    const bwd = phase(fabric, 'backward');
    const head = bwd.components.find((c) => c.label.startsWith('Dequantized 4-bit output head'));
    assert.equal(head?.bytes, 524_288_000);
    assert.equal(
      phase(hf, 'backward').components.find((c) => c.label.startsWith('Dequantized 4-bit output head')),
      undefined,
    );
  });
});

describe('quantized head: LitGPT', () => {
  it('Fabric quantizes the head from fp16', () => {
    const r = resolveText('qlora.yaml', litgptQloraYaml('meta-llama/Llama-2-7b-hf'));
    assert.ok(r.setup);
    assert.equal(r.setup.quantization?.head, true);
    assert.equal(r.setup.quantization?.dequant_dtype, 'fp16');
  });
  it("a tied Hub checkpoint gets a head of its own: Gemma-2B's 256,000 x 2,048 = 524,288,000 parameters more", () => {
    // The setup keeps the checkpoint's config and count; the estimate builds the head as LitGPT does
    // (architecture/litgpt-head.ts), and Fabric quantizes it with the other linears.
    const r = resolveText('qlora.yaml', litgptQloraYaml('google/gemma-2b'));
    assert.ok(r.setup);
    assert.equal(r.setup.model_code, 'litgpt');
    assert.equal(r.setup.parameters, 2_506_172_416);
    const e = estimate(r.setup as Parameters<typeof estimate>[0]);
    assert.ok(e.ok);
    assert.equal(e.estimate.parameters.total, 2_506_172_416 + 524_288_000);
    assert.ok(e.estimate.parameters.quantized >= 524_288_000);
  });
  it("pretrain's train.tie_embeddings keeps them tied", () => {
    const pretrain = (tie: string[]) =>
      resolveText(
        'pretrain.yaml',
        [
          'model_name: gemma-2b',
          'out_dir: out/pretrain/gemma',
          'precision: bf16-true',
          'devices: 1',
          'train:',
          '  micro_batch_size: 1',
          '  max_seq_length: 512',
          ...tie,
        ].join('\n'),
      ).setup;
    const total = (s: ReturnType<typeof pretrain>): number => {
      const e = estimate(s as Parameters<typeof estimate>[0]);
      assert.ok(e.ok);
      return e.estimate.parameters.total;
    };
    assert.equal(pretrain([])?.tie_embeddings, undefined);
    assert.equal(total(pretrain([])), 2_506_172_416 + 524_288_000);
    assert.equal(pretrain(['  tie_embeddings: true'])?.tie_embeddings, true);
    assert.equal(total(pretrain(['  tie_embeddings: true'])), 2_506_172_416);
  });
});
