// transformers < 4.49's causal-LM loss, which shifts the logits (src/core/terms/shifted-logits.ts, terms/loss.ts
// shiftedCrossEntropy, terms/logits-block.ts). Bytes worked by hand; the pattern (peak allocated 12 / 14 / 12 and
// reserved 18 / 18 / 14 x T·V bytes for 4.37-4.45 / 4.46-4.48 / 4.49+ over four rows, 14.7 for all three over one) is
// what tools/truth/loss_chain.py measures: the three releases' loss code under torch's autograd on the CPU, every
// allocation replayed through the caching-allocator model.
import * as assert from 'node:assert/strict';
import { lossMemory } from '../../../src/core/terms/loss';
import { findModel } from '../../../src/core/lookup';
import { TrainingSetupSchema, type TrainingSetupInput } from '../../../src/core/setup';
import { run, setupFor } from '../helpers';
import { LORA_LOSS_RUN, llama2LoraLoss } from './helpers';

// Llama-2-7B, 4 x 2,048 tokens: T·V = 8,192 x 32,000 = 262,144,000 logits.
const TV = 8192 * 32000;
const lora = (transformers: string, extra: Partial<TrainingSetupInput> = {}) =>
  llama2LoraLoss({ transformers_version: transformers, ...extra });
/**
 * The same run over a 4-bit base (QLoRA): reserved from the flat terms in every release (plain LoRA under 4.49 and later
 * is the two-step replay's, two-step-cache.test.ts, which follows only that release's loss).
 */
const qlora = (transformers: string, extra: Partial<TrainingSetupInput> = {}) =>
  lora(transformers, { quantization: { bits: 4 }, ...extra });
const loss = (e: ReturnType<typeof run>): number => e.perGpu.components.find((c) => c.id === 'logits-loss')!.bytes;
const runtime = (e: ReturnType<typeof run>, id: string): number | undefined =>
  e.perGpu.runtime.find((r) => r.id === id)?.bytes;

describe('shifted-logits', () => {
  const plan = { tokens: 8192, vocab: 32000, logitsBytes: 2, loss: 'full' as const, chunks: 8, softcap: false };
  it('the cross-entropy call: 16-bit logits + fp32 upcast + shifted copy (4.46-4.48), without the 16-bit logits before 4.46', () => {
    assert.equal(lossMemory(plan).forwardTransientBytes, (2 + 4) * TV);
    assert.equal(lossMemory({ ...plan, shiftedCopy: true }).forwardTransientBytes, (2 + 4 + 4) * TV);
    assert.equal(lossMemory({ ...plan, shiftedCopy: true, upcastInModel: true }).forwardTransientBytes, (4 + 4) * TV);
    // Kept and the backward's gradients are the same: log-softmax 4·T·V; nll and log-softmax gradients 8·T·V.
    assert.equal(lossMemory({ ...plan, shiftedCopy: true }).savedBytes, 4 * TV);
    assert.equal(lossMemory({ ...plan, shiftedCopy: true }).backwardTransientBytes, 8 * TV);
    // PyTorch < 1.11 keeps log_softmax's input, which is then the copy: it moves from the call's bytes to the kept.
    const old = lossMemory({ ...plan, shiftedCopy: true, logSoftmaxSavesInput: true });
    assert.equal(old.savedBytes, 8 * TV);
    assert.equal(old.forwardTransientBytes, (2 + 4) * TV);
  });
  it('4.46-4.48 over four rows: the copy, 4·T·V = 1,048,576,000 B, at the forward call, which becomes the peak', () => {
    const now = run(lora('4.57'));
    const then = run(lora('4.47'));
    const forward = (e: ReturnType<typeof run>): number =>
      e.perGpu.phases.find((p) => p.phase === 'forward')!.allocatedBytes;
    assert.equal(forward(then) - forward(now), 4 * TV);
    assert.equal(now.perGpu.phase, 'backward');
    assert.equal(then.perGpu.phase, 'forward');
    assert.equal(loss(then), loss(now));
  });
  it('reserved: the 16-bit block and the whole-logits gradient of SliceBackward, (2 + 4) x 262,144,000 B', () => {
    // 4.40: the model upcasts and the 16-bit logits are freed at once, so the call holds 4 + 4 + 4 (kept) = 12·T·V,
    // 2·T·V more than 4.57's 2 + 4 + 4; the loss's backward is the same.
    const then = run(qlora('4.40'));
    const now = run(qlora('4.57'));
    const phase = (e: ReturnType<typeof run>, name: string): number =>
      e.perGpu.phases.find((p) => p.phase === name)!.allocatedBytes;
    assert.equal(phase(then, 'forward') - phase(now, 'forward'), 2 * TV);
    assert.equal(phase(then, 'backward'), phase(now, 'backward'));
    // 524,288,000 and 1,048,576,000 B are multiples of 2 MiB (250 and 500), so no rounding.
    assert.equal(runtime(now, 'logits-block'), 2 * TV);
    // 4.57 peaks at the loss's backward, which is where 4.40's loss blocks are counted from (loss-segments.ts).
    assert.equal(now.perGpu.phase, 'backward');
    const blocks = 6 * TV + runtime(now, 'forward-cache')! + runtime(now, 'small-pool')!;
    assert.equal(then.perGpu.reservedBytes, now.perGpu.peakBytes + blocks);
  });
  it('none over one row (the slice is contiguous), from 4.49, or for Qwen-1 (its remote code computes the loss)', () => {
    const one = (v: string) => run(qlora(v, { micro_batch_size: 1, seq_len: 8192 }));
    assert.equal(one('4.40').perGpu.reservedBytes, one('4.57').perGpu.reservedBytes);
    assert.equal(run(qlora('4.49')).perGpu.reservedBytes, run(qlora('4.57')).perGpu.reservedBytes);
    const qwen = (v: string) =>
      run(
        setupFor('Qwen/Qwen-7B', {
          method: 'lora',
          lora: { r: 8, alpha: 32, target_modules: ['c_attn'] },
          weights_dtype: 'bf16',
          mixed_precision: 'bf16',
          micro_batch_size: 4,
          seq_len: 2048,
          gradient_checkpointing: 'full',
          transformers_version: v,
        }),
      ).perGpu.reservedBytes;
    assert.equal(qwen('4.37'), qwen('4.57'));
  });
});

describe("Qwen-1's own loss: CrossEntropyLoss on the 16-bit logits (modeling_qwen.py, no .float())", () => {
  // Qwen-1.8B-Chat, one row of 8,192 tokens, vocab 151,936: T·V = 1,244,659,712 logits. Under DeepSpeed's fp16 engine
  // (Qwen's finetune_qlora_single_gpu.sh: --fp16 --deepspeed ds_config_zero2.json) the HF Trainer does not autocast,
  // so log_softmax and nll_loss run in fp16: 2 B a logit for the kept output and each gradient, where the upcast chain
  // keeps 4 B and makes two 4 B gradients. Under autocast (--bf16 without DeepSpeed) cross_entropy is an fp32 op and
  // upcasts as transformers' own loss does.
  const TV8K = 8192 * 151936;
  const qwen = (extra: Partial<TrainingSetupInput>) =>
    setupFor('Qwen/Qwen-1_8B-Chat', {
      method: 'lora',
      micro_batch_size: 1,
      seq_len: 8192,
      gradient_checkpointing: 'full',
      attention: 'flash',
      ...extra,
    });
  it('keeps 2·T·V and makes 2 x 2·T·V of gradients without autocast, where the upcast chain has 4 + 6 + 8 B', () => {
    const plan = { tokens: 8192, vocab: 151936, logitsBytes: 2, loss: 'full' as const, chunks: 8, softcap: false };
    const own = lossMemory({ ...plan, noUpcast: true });
    assert.equal(own.savedBytes, 2 * TV8K);
    assert.equal(own.forwardTransientBytes, 2 * TV8K);
    assert.equal(own.backwardTransientBytes, 4 * TV8K);
    const up = lossMemory(plan);
    assert.deepEqual(
      [up.savedBytes, up.forwardTransientBytes, up.backwardTransientBytes],
      [4, 6, 8].map((b) => b * TV8K),
    );
  });
  it('is what the estimate counts for Qwen-1 under DeepSpeed fp16, with no 16-bit logits block left cached', () => {
    const e = run(qwen({ weights_dtype: 'fp16', mixed_precision: 'none', zero_stage: 2, master_weights: true }));
    assert.match(
      e.perGpu.components.find((c) => c.id === 'logits-loss')!.formula,
      /in the logits' dtype \(no upcast\)/,
    );
    assert.equal(runtime(e, 'logits-block'), undefined);
    // The loss's assumption says so, where a transformers model's says ForCausalLMLoss's fp32 upcast.
    assert.match(e.assumptions.find((x) => x.key === 'loss')?.source ?? '', /16-bit dtype \(Qwen-1's own loss/);
  });
  it('upcasts under autocast, as transformers models do', () => {
    const e = run(qwen({ weights_dtype: 'bf16', mixed_precision: 'bf16' }));
    const kept = e.perGpu.components.find((c) => c.id === 'logits-loss')!;
    assert.match(kept.formula, /fp32 upcast/);
  });
  it("MiniCPM's remote code is 4.36's Llama: under 5.17 it upcasts in the model and copies the shifted logits", () => {
    // MiniCPM-2B, LoRA over 4 x 2,048 tokens (T = 8,192, h = 2,304, V = 122,753). The same run with the config read as a
    // Llama under transformers 4.40 has the same loss; MiniCPM's forward is 2·T·h = 37,748,736 B more: its final
    // rms_layernorm (T5's way) also keeps the 16-bit input for backward.
    const m = findModel('openbmb/MiniCPM-2B-sft-bf16');
    assert.ok(m.ok);
    const on = (config: Record<string, unknown>, transformers: string) =>
      run(
        TrainingSetupSchema.parse({
          ...LORA_LOSS_RUN,
          model: 'x',
          architecture: config,
          transformers_version: transformers,
        }),
      );
    const forward = (e: ReturnType<typeof run>): number =>
      e.perGpu.phases.find((p) => p.phase === 'forward')!.allocatedBytes;
    const minicpm = on(m.model.config, '5.17');
    const asLlama = on({ ...m.model.config, model_type: 'llama', tie_word_embeddings: true }, '4.40');
    assert.equal(forward(minicpm) - forward(asLlama), 2 * 8192 * 2304);
    assert.equal(forward(minicpm), forward(on(m.model.config, '4.40')));
    assert.match(minicpm.perGpu.components.find((c) => c.id === 'logits-loss')!.formula, /shifted contiguous copy/);
  });
});

describe("GPTBigCode's own loss through transformers 4.48: CrossEntropyLoss on the shifted 16-bit logits", () => {
  // SantaCoder-1.1B (vocab 49,280), 4 x 2,048 tokens: T·V = 8,192 x 49,280 = 403,701,760 logits. tools/truth/loss_chain.py
  // runs GPT2LMHeadModel's lines on the CPU under torch's autograd: over four rows the peak is 5.97 x T·V B in bf16
  // (the 16-bit logits, their shifted copy and log-softmax's 16-bit output) and 11.92 x T·V B under bf16 autocast
  // (cross_entropy's fp32 cast of the copy and its fp32 output), where Llama's 4.37-4.45 chain is 11.94.
  const TVS = 8192 * 49280;
  const santacoder = (transformers: string, extra: Partial<TrainingSetupInput> = {}) =>
    setupFor('bigcode/gpt_bigcode-santacoder', {
      method: 'full',
      weights_dtype: 'bf16',
      mixed_precision: 'none',
      micro_batch_size: 4,
      seq_len: 2048,
      gradient_checkpointing: 'full',
      attention: 'flash',
      transformers_version: transformers,
      ...extra,
    });
  it('holds 6·T·V at the call in bf16 and 12·T·V under autocast, as the loss chain measures', () => {
    const plan = { tokens: 8192, vocab: 49280, logitsBytes: 2, loss: 'full' as const, chunks: 8, softcap: false };
    const bf16 = lossMemory({ ...plan, shiftedCopy: true, ownHalfLoss: true, noUpcast: true });
    assert.equal(bf16.savedBytes + bf16.forwardTransientBytes, 6 * TVS);
    assert.equal(bf16.backwardTransientBytes, 4 * TVS);
    const amp = lossMemory({ ...plan, shiftedCopy: true, ownHalfLoss: true, amp: true });
    assert.equal(amp.savedBytes + amp.forwardTransientBytes, 12 * TVS);
    assert.equal(amp.backwardTransientBytes, 8 * TVS);
  });
  it('is what the estimate counts for 4.45 and 4.48, not for 4.57 (self.loss_function, which upcasts)', () => {
    const forward = (v: string) => run(santacoder(v)).perGpu.phases.find((p) => p.phase === 'forward')!;
    const formula = (v: string): string => forward(v).components.find((c) => c.id === 'logits-loss')!.formula;
    assert.match(formula('4.45.2'), /model's own code \(no \.float\(\)\): logits 2·T·V, shifted contiguous copy 2·T·V/);
    assert.match(formula('4.48.1'), /model's own code/);
    assert.doesNotMatch(formula('4.57.6'), /model's own code/);
    // 4.57's forward holds 2 + 4 + 4 = 10·T·V at the call (16-bit logits, fp32 upcast, fp32 log-softmax), 4 B a logit
    // more than the 2 + 2 + 2 of the own loss; the rest of the forward is the same.
    assert.equal(forward('4.57.6').allocatedBytes - forward('4.45.2').allocatedBytes, 4 * TVS);
  });
  it('GPT-2, GPT-NeoX, BLOOM, OPT and Falcon wrote the same loss before 4.46 (no self.loss_function yet)', () => {
    const formula = (id: string, v: string): string =>
      run(
        setupFor(id, {
          method: 'full',
          weights_dtype: 'bf16',
          mixed_precision: 'none',
          micro_batch_size: 4,
          seq_len: 1024,
          gradient_checkpointing: 'full',
          transformers_version: v,
        }),
      )
        .perGpu.phases.find((p) => p.phase === 'forward')!
        .components.find((c) => c.id === 'logits-loss')!.formula;
    for (const id of ['openai-community/gpt2-large', 'EleutherAI/pythia-1b', 'bigscience/bloom-560m']) {
      assert.match(formula(id, '4.38'), /model's own code/, id);
      assert.doesNotMatch(formula(id, '4.46'), /model's own code/, id);
    }
  });
  it("fms-acceleration's SantaCoder at 4 x 2,048 in bf16: its optimizer step, 11,267,745,280 B, within 1 %", () => {
    // foundation-model-stack/fms-acceleration@24bdadb scripts/benchmarks/refs/a100_80gb.csv line 2 (transformers 4.48.1,
    // no --bf16): mem_peak_torch_mem_alloc_in_bytes; the same bytes at @9239802 (4.45.2). The step's loss no longer
    // makes the peak (it did at +18 % with Llama's chain): weights, AdamW's two bf16 states, the gradients and the
    // foreach copy of exp_avg_sq, 5 x 2.25 GB.
    const e = run(santacoder('4.48.1', { optimizer: 'adamw', gpus_per_node: 1 }));
    assert.equal(e.perGpu.phase, 'optimizer');
    assert.ok(Math.abs(e.perGpu.peakBytes / 11267745280 - 1) < 0.01, String(e.perGpu.peakBytes));
  });
});
