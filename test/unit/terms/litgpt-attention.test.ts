// Term: LitGPT's own attention (src/core/terms/activations/litgpt.ts): the fused qkv layer whose output q, k and v are
// views of, LoRAQKVLinear's one dropout and zero-padded update, the rotated q and k rebuilt by torch.cat, and the key
// and value heads repeated in training. Worked by hand for Llama-2-7B (hidden 4,096, 32 heads, 32 layers) at
// 1 x 512 tokens in bf16, LoRA r 8 with dropout 0.05, against the same run replayed as transformers' LlamaAttention
// with PEFT's adapters; one unit u = T x h x 2 B = 512 x 4,096 x 2 = 4,194,304 B.
//
// A layer whose input requires grad keeps, beyond transformers' layer, with LoRA on q and v:
// - the fused output whole (3u, v is a view of it) where transformers keeps v_proj's output (1u): +2u;
// - the update's zero_pad source (index_copy_ keeps it, q and v: 2u): +2u;
// - one dropout (its bool mask 0.5u and its output 1u) where PEFT runs one per target: -1.5u;
// so +2.5u. The first layer's input (a frozen embedding's output) needs no grad: no dropout keeps its mask, +3u.
// The same tensors were counted in LitGPT's own code on the CPU (tools/truth, suite litgpt, LitGPT 0.5.13:
// litgpt/llama-mha-lora-qv-bf16 within 0.3 % of its measured peak).
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { component, phase, run, setupFor } from '../helpers';

const U = 512 * 4_096 * 2; // 4,194,304

/** A model at 1 x 512 tokens in bf16, run by LitGPT's code or transformers'; LoRA r 8 with dropout 0.05 on `targets`. */
const at512 = (
  model: string,
  modelCode: 'litgpt' | 'transformers',
  targets: string[] | undefined,
  extra: Partial<TrainingSetupInput> = {},
): Estimate =>
  run(
    setupFor(model, {
      ...(targets
        ? { method: 'lora', lora: { r: 8, alpha: 16, dropout: 0.05, target_modules: targets, dtype: 'bf16' } }
        : { method: 'full' }),
      weights_dtype: 'bf16',
      micro_batch_size: 1,
      seq_len: 512,
      model_code: modelCode,
      ...extra,
    } satisfies Partial<TrainingSetupInput>),
  );

const llama2 = (modelCode: 'litgpt' | 'transformers', targets: string[]): Estimate =>
  at512('meta-llama/Llama-2-7b-hf', modelCode, targets, { attention: 'sdpa' });

const saved = (e: Estimate): number => component(phase(e, 'forward'), 'activations');

describe("LitGPT's attention: the fused qkv layer and its LoRA (Llama-2-7B, 1 x 512, bf16)", () => {
  it('LoRA on q and v: +3u in the first layer and +2.5u in each of the other 31 = 80.5u = 337,641,472 B', () => {
    const extra = saved(llama2('litgpt', ['q_proj', 'v_proj'])) - saved(llama2('transformers', ['q_proj', 'v_proj']));
    assert.equal(extra, 3 * U + 31 * 2.5 * U);
    assert.equal(extra, 337_641_472);
  });
  it('LoRA on q, k and v: zero_pad returns the update as it is, and one dropout replaces three: -1u a layer after the first', () => {
    // LitGPT: 3u + 2u (the cat copies of q and k) + 1.5u; transformers: 1u + 2u + 3 x 1.5u. The first layer keeps
    // no masks: 6u against 6u.
    const qkv = ['q_proj', 'k_proj', 'v_proj'];
    assert.equal(saved(llama2('litgpt', qkv)) - saved(llama2('transformers', qkv)), -31 * U);
  });
  it('without LoRA in the attention the fused output is kept whole: +2u in each layer after the first', () => {
    // The first layer's attention keeps nothing: its input and weights need no grad (the MLP's adapters make the
    // residual stream require grad from its output on).
    const mlp = ['gate_proj', 'up_proj', 'down_proj'];
    assert.equal(saved(llama2('litgpt', mlp)) - saved(llama2('transformers', mlp)), 31 * 2 * U);
  });
});

describe("LitGPT's attention over soft-capped scores (Gemma-2-2B, 1 x 512, bf16)", () => {
  const gemma2 = (attention: 'sdpa' | 'eager'): Estimate =>
    at512('google/gemma-2-2b', 'litgpt', ['q_proj', 'v_proj'], { attention });
  it('computes the scores itself (no SDPA): estimated as eager attention, and said so', () => {
    const asked = gemma2('sdpa');
    assert.equal(asked.perGpu.peakBytes, gemma2('eager').perGpu.peakBytes);
    const notes = [...asked.assumptions, ...asked.warnings].filter((n) => n.key === 'attention');
    assert.ok(notes.some((n) => /LitGPT computes attention itself/.test('source' in n ? n.source : n.message)));
  });
});

// Falcon-7B (hidden 4,544, 71 heads of 64, one key-value head, 32 layers), whose transformers code fuses q, k and v into
// query_key_value: LitGPT's switches adapt parts of it (lora.qkv_parts). At 1 x 512 tokens in bf16, LoRA r 8:
// - q and v: lora_A has 2r rows and lora_B maps them to q's 4,544 and v's 64 columns, zero-padded to the fused 4,672
//   (index_copy_ keeps the update, T x 4,608 x 2 B a layer);
// - q, k and v: lora_A has 3r rows, and the update needs no padding (nothing kept of it beyond lora_A's output).
// So q and v keep T x (4,608 - 8) x 2 B = 4,710,400 B more a layer: 150,732,800 B over 32 layers. The adapters:
// r x (parts x 4,544 + widths) a layer, 8 x (2 x 4,544 + 4,608) x 32 = 3,506,176 for q and v,
// 8 x (3 x 4,544 + 4,672) x 32 = 4,685,824 for all three.
describe("LitGPT's LoRA over a fused query_key_value (Falcon-7B, 1 x 512, bf16)", () => {
  const falcon = (parts: Array<'q' | 'k' | 'v'> | undefined): Estimate =>
    at512('tiiuae/falcon-7b', 'litgpt', undefined, {
      method: 'lora',
      lora: {
        r: 8,
        alpha: 16,
        dropout: 0.05,
        target_modules: ['query_key_value'],
        dtype: 'bf16',
        ...(parts ? { qkv_parts: parts } : {}),
      },
    });
  it('q and v keep the zero-padded update: 150,732,800 B more than q, k and v', () => {
    assert.equal(saved(falcon(['q', 'v'])) - saved(falcon(undefined)), 32 * 512 * (4_608 - 8) * 2);
  });
  it("the adapters count LoRAQKVLinear's shapes: r x (parts x in + the parts' widths)", () => {
    assert.equal(falcon(['q', 'v']).parameters.trainable, 3_506_176);
    assert.equal(falcon(undefined).parameters.trainable, 4_685_824);
  });
  it('the same parts from a role list (q_proj, v_proj), as a scenario gives them', () => {
    const roles = at512('tiiuae/falcon-7b', 'litgpt', ['q_proj', 'v_proj']);
    assert.equal(roles.perGpu.peakBytes, falcon(['q', 'v']).perGpu.peakBytes);
  });
});

// A full fine-tune (finetune/full.py) of Llama-2-7B at 1 x 512 in bf16, every layer's input requiring grad: beyond
// transformers' layer, LitGPT's keeps the fused output whole (+2u); the heads joined by a reshape copy, which the trained
// output projection keeps (+1u: q from torch.cat is laid out (b, heads, s, d), and the flash kernel writes its output
// in q's layout); and its RMSNorms' fp32 normalized input, `x_normed * weight.float()`, for the trained weight's
// gradient, where LlamaRMSNorm keeps the 16-bit one (+1u each, two a layer). +5u a layer: 671,088,640 B over 32 layers.
// CPU truth litgpt/llama-mha-full-bf16: -8.2 % before these, -0.5 % after.
describe('LitGPT full fine-tune: the heads joined by a copy, the fp32 normalized norm input (Llama-2-7B, 1 x 512)', () => {
  const full = (modelCode: 'litgpt' | 'transformers'): Estimate =>
    at512('meta-llama/Llama-2-7b-hf', modelCode, undefined, { attention: 'sdpa' });
  it('+5u a layer', () => {
    assert.equal(saved(full('litgpt')) - saved(full('transformers')), 32 * 5 * U);
    assert.equal(32 * 5 * U, 671_088_640);
  });
});
