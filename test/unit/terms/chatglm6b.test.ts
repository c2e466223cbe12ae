// ChatGLM-6B's GLMBlock (src/core/terms/activations/families.ts chatglm6bBlock), worked by hand from the ops of the
// remote modeling_chatglm.py of THUDM/chatglm-6b on a tiny config: hidden 256, 4 heads of 64, MLP 1,024, 2 x 256
// tokens (T = 512, b x heads x s² = 524,288), bf16 weights, no autocast. Saved-tensor hooks over that forward on the
// CPU (torch 2.13, gelu_impl scripted as the file has it) kept the same tensors: 14,290,944 B, the LayerNorms' mean and
// rstd there in bf16 (4,096 B less than the fp32 a GPU keeps), and the one boolean mask all layers share.
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import { TrainingSetupSchema, type TrainingSetupInput } from '../../../src/core/setup';
import { run } from '../helpers';

const T = 512;
const TINY = {
  model_type: 'chatglm',
  hidden_size: 256,
  inner_hidden_size: 1024,
  num_attention_heads: 4,
  num_layers: 28,
  vocab_size: 1024,
  position_encoding_2d: true,
  max_sequence_length: 2048,
};
const estimateOf = (extra: Partial<TrainingSetupInput>): Estimate =>
  run(
    TrainingSetupSchema.parse({
      model: 'tiny-chatglm-6b',
      architecture: TINY,
      method: 'full',
      weights_dtype: 'bf16',
      mixed_precision: 'none',
      micro_batch_size: 2,
      seq_len: 256,
      attention: 'eager',
      gradient_checkpointing: 'none',
      ...extra,
    }),
  );
const perLayer = (e: Estimate): number =>
  (e.perGpu.components.find((c) => c.id === 'activations')!.inputs as { perLayerBytes: number }).perLayerBytes;

// Every layer, trained in full: the block input (kept by input_layernorm), the normalized input (query_key_value's
// input), the attention context (dense's) and the MLP's (dense_h_to_4h's), the residual sum (post_attention_layernorm's
// input): 5 x T x 256 x 2 B; both LayerNorms' mean and rstd, 2 x 2 x T x 4 B; q scaled and k (baddbmm), 2 x T x 256 x 2 B;
// the fused q/k/v output that the value's view keeps, T x 768 x 2 B; cos and sin gathered for both halves' positions,
// 4 x T x 32 x 2 B; the fp32 softmax and its bf16 cast, 524,288 x (4 + 2) B; gelu_impl's input and its six products,
// and its output (dense_4h_to_h's input), 8 x T x 1,024 x 2 B.
const FULL =
  5 * T * 256 * 2 + 2 * 2 * T * 4 + 2 * T * 256 * 2 + T * 768 * 2 + 4 * T * 32 * 2 + 524_288 * 6 + 8 * T * 1024 * 2;

describe('ChatGLM-6B: the GLMBlock as its remote code runs it (tiny config, 2 x 256, bf16)', () => {
  it('keeps 14,295,040 B per layer trained in full, gelu_impl seven tensors of the MLP width', () => {
    assert.equal(FULL, 14_295_040);
    assert.equal(perLayer(estimateOf({})), FULL);
  });
  it('LoRA on dense_4h_to_h: no linear keeps its input for a frozen weight; the adapter keeps the fp32 cast of its input', () => {
    // Less the four inputs kept for weight gradients (3 x T x 256 x 2 B and the T x 1,024 x 2 B gelu output), plus
    // PEFT's fp32 copy of that output for lora_A (T x 1,024 x 4 B) and lora_A's output for lora_B (T x 8 x 4 B).
    const lora = estimateOf({ method: 'lora', lora: { r: 8, alpha: 16, target_modules: ['dense_4h_to_h'] } });
    assert.equal(perLayer(lora), FULL - 3 * T * 256 * 2 - T * 1024 * 2 + T * 1024 * 4 + T * 8 * 4);
  });
  it('attention is eager whatever is asked (attention_fn), and the boolean b x s x s mask is kept once', () => {
    const e = estimateOf({ attention: 'sdpa' });
    assert.equal(perLayer(e), FULL);
    const mask = e.perGpu.components.find((c) => c.label.startsWith('Causal attention mask'));
    assert.equal(mask?.bytes, 2 * 256 * 256); // 131,072 B: one byte per element
    assert.ok(e.assumptions.some((x) => x.key === 'attention' && /attention_fn/.test(x.source)));
  });
  it("the loss is ChatGLMForConditionalGeneration's: the fp32 logits and their shifted copy, whatever transformers runs it", () => {
    // `lm_logits.to(torch.float32)` and `lm_logits[..., :-1, :].contiguous()` over 2 rows: transformers 4.36's pattern
    // (terms/shifted-logits.ts), also under transformers 5.17, whose own causal-LM loss has neither.
    const now = estimateOf({ transformers_version: '5.17' });
    const then = estimateOf({ transformers_version: '4.27' });
    const loss = (e: Estimate) => e.perGpu.components.find((c) => c.id === 'logits-loss')!;
    assert.match(
      loss(now).formula,
      /fp32 upcast 4·T·V \(in the model, the 16-bit logits freed\), shifted contiguous copy/,
    );
    assert.equal(now.perGpu.peakBytes, then.perGpu.peakBytes);
  });
});
