// Term: logits and loss (src/core/terms/loss.ts, terms/logits-loss.ts), against numbers worked out by hand; each test
// names its source.
import * as assert from 'node:assert/strict';
import { finalNormSaved, finalNormSequence, lossMemory, referenceLogps } from '../../../src/core/terms/activations';
import { parseArchitecture } from '../../../src/core/architecture';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { component, near, phase, run, setupFor } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

describe('estimate: logits and loss', () => {
  it('final RMSNorm + output head keep 8 / 4 / 6 B per token x hidden in bf16 (trained / frozen / head only) and 12 / 4 / 8 in fp32', () => {
    // Measured with torch.autograd.graph.saved_tensors_hooks on an HF-style RMSNorm + bias-free head (T=512, h=256,
    // torch 1.13 with the mean written as sum / h, which saves what PyTorch >= 2.0's mean saves): per T·h, plus the
    // fp32 rsqrt of each row (4 B per token).
    const arch = parseArchitecture(setupFor('meta-llama/Llama-3.2-1B').architecture);
    assert.ok(arch.ok);
    const T = 512;
    const h = arch.arch.hidden;
    const saved = (weightBytes: 2 | 4, normTrainable: boolean, headTrainable: boolean): number =>
      finalNormSaved({
        arch: arch.arch,
        mode: weightBytes === 4 ? 'fp32' : 'half',
        half: weightBytes,
        weightBytes,
        tokens: T,
        normTrainable,
        headTrainable,
      });
    const expect: Array<[2 | 4, boolean, boolean, number]> = [
      [2, true, true, 8],
      [2, false, false, 4],
      [2, false, true, 6],
      [4, true, true, 12],
      [4, false, false, 4],
      [4, false, true, 8],
    ];
    for (const [wb, nt, ht, perTh] of expect)
      assert.equal(saved(wb, nt, ht), perTh * T * h + 4 * T, `${wb} B weights, norm ${nt}, head ${ht}`);
  });

  it("the final norm's forward as the step replays run it: the GPU's order of requests and frees (Qwen3-4B, 4,096 tokens)", () => {
    // H100 history of Qwen3-4B's full fine-tune at 2 x 2,048 tokens (tools/truth/FINDINGS.md section 101), between the
    // last layer and the head, in MiB: +40 +40 -40 +40 +20 +20 -40 -20. T x h = 4,096 x 2,560: the fp32 upcast (40,
    // kept), its square (40, freed once reduced), the rsqrt (16 KiB, kept), the normalized fp32 tensor (40), the cast
    // back (20, kept: the weight trains) and the weight's product (20, the output); then the normalized tensor and the
    // last layer's output (20), which the model holds until the norm returns.
    const arch = parseArchitecture(setupFor('Qwen/Qwen3-4B').architecture);
    assert.ok(arch.ok);
    const T = 4096;
    const seq = finalNormSequence({
      arch: arch.arch,
      mode: 'half',
      half: 2,
      weightBytes: 2,
      tokens: T,
      normTrainable: true,
      headTrainable: true,
    });
    const MiB = 2 ** 20;
    assert.deepEqual(
      seq.bytes.map((b) => b / MiB),
      [20, 40, 40, (T * 4) / MiB, 40, 20, 20],
    );
    assert.deepEqual(seq.saved, [false, true, false, true, false, true, false]);
    // Each allocation is freed after the one freeAfter names (the upcast, the rsqrt and the cast are kept).
    assert.deepEqual(seq.freeAfter, [6, 4, 3, 4, 6, 6, 6]);
    assert.equal(seq.input, 0);
    assert.equal(seq.output, 6);
  });

  it('fused linear cross-entropy: Liger token chunks sized so one chunk of logits is about the input (Llama-3-8B, 2 x 2048 tokens)', () => {
    // liger_kernel/ops/fused_linear_cross_entropy.py: inc_factor = ceil(V/h) = ceil(128,256/4096) = 32;
    // chunk = next_pow2(ceil(4096/32)) = 128 tokens. Kept for backward: grad_input 4096 x 4096 x 2 B = 33,554,432 B and the
    // fp32 loss per token 16,384 B; live in forward: 128 x 128,256 x 2 B = 32,833,536 B of chunk logits.
    const l = lossMemory({
      tokens: 4096,
      vocab: 128256,
      hidden: 4096,
      logitsBytes: 2,
      loss: 'fused',
      chunks: 8,
      softcap: false,
    });
    assert.equal(l.savedBytes, 33_554_432 + 16_384);
    assert.equal(l.forwardTransientBytes, 32_833_536);
    assert.equal(l.backwardTransientBytes, 0);
  });

  it("Unsloth's fused cross-entropy: one chunk where the fp32 logits fit 4 GiB, its 16-bit logits at the high point", () => {
    // unsloth_zoo get_chunk_size: exact = T·V·4 B / 4 GiB; 1 chunk at or below 1, else ceil(exact / 4) x 4. The compiled
    // chunk step holds 2 B per chunk logit (tools/truth/unsloth_fused_ce.py, torch 2.13 on the CPU).
    const plan = (tokens: number) =>
      lossMemory({
        tokens,
        vocab: 152064,
        hidden: 3584,
        logitsBytes: 2,
        loss: 'fused',
        unslothChunks: true,
        chunks: 8,
        softcap: false,
      });
    // Qwen2.5-7B, 4,096 tokens: 4096 x 152064 x 4 = 2,491,416,576 B <= 4 GiB, one chunk of 4,096 x 152064 x 2 B.
    assert.equal(plan(4096).forwardTransientBytes, 1_245_708_288);
    assert.equal(plan(4096).savedBytes, 4096 * 3584 * 2);
    // 16,384 tokens: exact 2.32, 4 chunks of 4,096 tokens, the same chunk.
    assert.equal(plan(16384).forwardTransientBytes, 1_245_708_288);
    // 65,536 tokens: exact 9.28, 12 chunks of ceil(65536 / 12) = 5,462 tokens: 5462 x 152064 x 2 B.
    assert.equal(plan(65536).forwardTransientBytes, 1_661_147_136);
  });

  it('full CE on Llama-3 vocab, b=2 s=4096: 4·T·V saved, 8·T·V of logit gradients in backward', () => {
    const TV = 8192 * 128256;
    const l = lossMemory({ tokens: 8192, vocab: 128256, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false });
    assert.equal(l.savedBytes, 4 * TV);
    assert.equal(l.backwardTransientBytes, 8 * TV);
    assert.equal(l.forwardTransientBytes, 6 * TV);
  });

  it('PyTorch < 1.11: log_softmax keeps its fp32 input as well (+4·T·V saved, no longer a forward temporary)', () => {
    const TV = 8192 * 128256;
    const now = lossMemory({ tokens: 8192, vocab: 128256, logitsBytes: 2, loss: 'full', chunks: 8, softcap: false });
    const old = lossMemory({
      tokens: 8192,
      vocab: 128256,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      logSoftmaxSavesInput: true,
    });
    assert.equal(old.savedBytes - now.savedBytes, 4 * TV);
    assert.equal(now.forwardTransientBytes - old.forwardTransientBytes, 4 * TV);
  });

  it('compiled chunked CE (torchtune compile_loss): bf16 chunks saved, backward writes one bf16 chunk gradient, no fp32 buffer', () => {
    // torchtune CEWithChunkedOutputLoss with compile: 8 bf16 logit chunks of 8192 x 128256 / 8 are saved; Inductor
    // fuses .float(), log-softmax and nll, so the backward of a chunk allocates only its 2-byte gradient.
    const TV = 8192 * 128256;
    const l = lossMemory({
      tokens: 8192,
      vocab: 128256,
      logitsBytes: 2,
      loss: 'chunked',
      chunks: 8,
      softcap: false,
      compile: true,
    });
    assert.equal(l.savedBytes, 2 * TV + 4 * 8192); // 2,101,379,072 B
    assert.equal(l.backwardTransientBytes, (2 * TV) / 8); // 262,668,288 B
    assert.equal(l.forwardTransientBytes, 0);
  });

  it("compiled full CE over the model's fp32 logits (torchtune's decoder upcasts them): 4·T·V kept, their fp32 gradient beside", () => {
    // tools/truth/compiled_loss.py (torch 2.13, Inductor on the CPU): a compiled cross-entropy given 16-bit logits
    // that it upcasts itself peaks at 4.00 x T·V bytes; given logits the model upcast first (torchtune's
    // TransformerDecoder without output chunks: `self.output(h).float()`), at 8.00 x T·V: the fp32 logits kept and
    // their fp32 gradient. Llama 3.2 3B at 2 x 4,096 tokens: T·V = 8,192 x 128,256 = 1,050,673,152.
    const TV = 8192 * 128256;
    const plan = { tokens: 8192, vocab: 128256, logitsBytes: 2 as const, loss: 'full' as const, softcap: false };
    const inLoss = lossMemory({ ...plan, chunks: 8, compile: true });
    const inModel = lossMemory({ ...plan, chunks: 8, compile: true, fp32FromModel: true });
    assert.equal(inLoss.savedBytes + inLoss.backwardTransientBytes, 4 * TV + 4 * 8192);
    assert.equal(inModel.savedBytes, 4 * TV + 4 * 8192); // 4,202,725,376 B
    assert.equal(inModel.backwardTransientBytes, 4 * TV);
    assert.equal(inModel.savedBytes + inModel.backwardTransientBytes, 8 * TV + 4 * 8192);
    assert.equal(inModel.forwardTransientBytes, 2 * TV); // the 16-bit logits beside their upcast
    // Chunked, the upcast is the loss's own (CEWithChunkedOutputLoss.compute_cross_entropy, compiled): unchanged.
    const chunked = lossMemory({ ...plan, loss: 'chunked', chunks: 8, compile: true, fp32FromModel: true });
    assert.equal(chunked.savedBytes, 2 * TV + 4 * 8192);
  });

  it('compile_loss: false keeps the eager loss under a compiled model (torchtitan compiles blocks only)', () => {
    const base = {
      weights_dtype: 'bf16' as const,
      micro_batch_size: 2,
      seq_len: 4096,
      loss: 'chunked' as const,
      compile: true,
    };
    const loss = (e: ReturnType<typeof run>): number => component(phase(e, 'backward'), 'loss-backward');
    const eager = run(setupFor('meta-llama/Llama-3.2-3B', { ...base, compile: false }));
    const blocksOnly = run(setupFor('meta-llama/Llama-3.2-3B', { ...base, compile_loss: false }));
    const compiled = run(setupFor('meta-llama/Llama-3.2-3B', base));
    assert.equal(loss(blocksOnly), loss(eager));
    assert.ok(loss(compiled) < loss(eager));
  });
});

describe('estimate: LLaMA-Factory DPO log-probs (get_batch_logps)', () => {
  it("the reference's pass peaks beside the policy's kept log-probs and its fp32 logits, still referenced for the metrics", () => {
    // Meta-Llama-3-8B, LoRA, 1 pair of 1,024-token sequences: T = 2,048, V = 128,256, T·V = 262,668,288.
    // Policy: the fp32 log_softmax output 4·T·V kept; forward beyond it: the fp32 logits and the slice's copy 2 x 4·T·V;
    // backward: the gather's and log_softmax's gradients 2 x 4·T·V. Reference (adapters disabled, no grad): the policy's
    // fp32 logits 4·T·V, the reference's fp32 logits, copy and log_softmax 3 x 4·T·V, beside the kept output.
    // tools/peak/measure_step.py --lf-dpo measures the same pass on the CPU (20·T·V at its high point, within 1 %).
    const TV = 2048 * 128_256;
    const plan = {
      tokens: 2048,
      vocab: 128_256,
      hidden: 4096,
      logitsBytes: 2,
      loss: 'full' as const,
      chunks: 8,
      softcap: false,
      amp: true,
      wholeLogSoftmax: true,
    };
    const l = lossMemory(plan);
    assert.deepEqual([l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes], [4 * TV, 8 * TV, 8 * TV]);
    assert.equal(referenceLogps(plan).bytes, 16 * TV);
    const e = run(
      setupFor('meta-llama/Meta-Llama-3-8B', {
        method: 'lora',
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        micro_batch_size: 1,
        seq_len: 1024,
        gradient_checkpointing: 'full',
        preference: { reference: 'adapters-off', logps: 'whole' },
      }),
    );
    assert.equal(phase(e, 'forward').components.find((c) => c.label.startsWith('Reference forward'))?.bytes, 16 * TV);
  });
});

describe('estimate: TRL ORPO / CPO chosen NLL', () => {
  it("keeps the chosen half's log_softmax and adds two gradients of all the logits in backward", () => {
    // Llama-3-8B, bf16 under autocast, 1 pair of 1,024 tokens: T = 2,048, V = 128,256, T·V = 262,668,288, rows of 1,024.
    // Rows (selective_log_softmax): fp32 outputs 4·T·V kept; backward max(one row's 2 x 4 x 1,024 x V, 2 x 2·T·V - 4·T·V).
    // The NLL: its fp32 log_softmax over the chosen half 4·T·V/2 kept; forward: the logits 2·T·V, the half's contiguous
    // copy 2·T·V/2 and fp32 cast 4·T·V/2 beside it, or the logits and one row's fp32 copy beside all the outputs;
    // backward: the rows' phase with the NLL's output held (4·T·V + 2·T·V + one row's 2 x 4 x 1,024 x V = 10·T·V, the
    // largest: a row is half the tokens here), the NLL's log_softmax backward beside the rows' gradient of the logits
    // (2·T·V + 3 x 2·T·V), or that gradient, the NLL's and their sum (3 x 2·T·V).
    // tools/peak/measure_step.py --trl-orpo measures this pass on the CPU (within 1 %).
    const TV = 2048 * 128_256;
    const row = 1024 * 128_256;
    const l = lossMemory({
      tokens: 2048,
      vocab: 128_256,
      hidden: 4096,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      amp: true,
      preferenceRowTokens: 1024,
      chosenNll: 'orpo',
    });
    const saved = 4 * TV + 2 * TV;
    assert.equal(l.savedBytes, saved);
    assert.equal(
      l.forwardTransientBytes,
      Math.max(2 * TV + TV + 2 * TV + 2 * TV, 4 * TV + 2 * TV + 2 * TV + 4 * row) - saved,
    );
    assert.equal(l.backwardTransientBytes, 4 * TV + 2 * TV + 8 * row - saved);
  });
});

describe("estimate: the HF Trainer's label smoothing", () => {
  it("keeps the log_softmax output and its negation; the model's logits and their shifted copy at the loss call", () => {
    // transformers LabelSmoother under bf16 autocast: -log_softmax of logits[..., :-1, :].contiguous() in fp32 (its
    // output kept by log_softmax's backward, the negation by gather's: 2 x 4·T·V); at the call the bf16 logits of the
    // model's outputs and the shifted copy 2 x 2·T·V, and autocast's fp32 cast 4·T·V beside the output; backward: the
    // gather's zero-filled gradient 4·T·V (the fp32 sum's gradient is a broadcast view). Profiled: tools/peak
    // --label-smoothing (fp32 and bf16 models, within 1 %).
    const TV = 2048 * 128_256;
    const l = lossMemory({
      tokens: 2048,
      vocab: 128_256,
      hidden: 2048,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      amp: true,
      labelSmoothing: true,
    });
    assert.deepEqual(
      [l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes],
      [8 * TV, 12 * TV - 8 * TV, 4 * TV],
    );
  });
});

describe('estimate: Gemma 2 soft-caps by default (Gemma2Config final_logit_softcapping 30.0, attn_logit_softcapping 50.0)', () => {
  // Truth point loop/gemma2-full-fp32 (2 layers, h 256, 4 heads, vocab 4,096, 2 x 256 tokens, eager attention) leaves both
  // keys out of its config, so transformers applies its defaults: Gemma2ForCausalLM.forward soft-caps the logits
  // (logits / cap, tanh, * cap: tanh keeps its fp32 output, 512 x 4,096 x 4 B = 8,388,608 B, seen with
  // saved_tensors_hooks as TanhBackward0 (2, 256, 4096)), and each layer's eager attention its scores (tanh keeps
  // 2 x 4 x 256 x 256 x 4 B = 2,097,152 B per layer, TanhBackward0 (2, 4, 256, 256)).
  it("keeps tanh's output of the logits and of each layer's scores: 8,388,608 + 2 x 2,097,152 B more than without", () => {
    const on = run(truthSetup('loop/gemma2-full-fp32'));
    const arch = truthSetup('loop/gemma2-full-fp32').architecture as Record<string, unknown>;
    const offArch = run(
      truthSetup('loop/gemma2-full-fp32', {
        architecture: { ...arch, final_logit_softcapping: null, attn_logit_softcapping: null },
      }),
    );
    assert.equal(on.perGpu.peakBytes - offArch.perGpu.peakBytes, 8_388_608 + 2 * 2_097_152);
    near(
      on.perGpu.peakBytes,
      truthPeak('loop/gemma2-full-fp32'),
      0.01,
      'against the measured 99,645,872 B (was -12.2 %)',
    );
  });
});

describe("estimate: TRL SFTTrainer's chunked_nll (loss 'chunked-nll', SFTConfig's default since TRL 1.7)", () => {
  // trl/trainer/sft_trainer.py _chunked_cross_entropy_loss: the head and the cross-entropy run 256 valid tokens at a time
  // under non-reentrant checkpointing; _chunk holds the chunk's fp32 logits, log_softmax, its exp and the entropy product.
  // Truth points trl/*-sft-* (2 x 256 tokens, vocab 4,096): 4 x 4 x 256 x 4,096 = 16,777,216 B over the held bytes, at
  // aten::mul in the forward and again at the recompute inside NllLossBackward0.
  it('keeps nothing of T x V; one chunk of four fp32 tensors in forward and in its recompute (16·256·V)', () => {
    const base = { tokens: 512, vocab: 4096, logitsBytes: 2, chunks: 8, softcap: false, amp: true } as const;
    const l = lossMemory({ ...base, loss: 'chunked-nll' });
    assert.deepEqual([l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes], [0, 16_777_216, 16_777_216]);
    // An fp32 head under autocast: the recomputed matmul keeps autocast's bf16 copy of it, 4,096 x 256 x 2 B.
    const fp32Head = lossMemory({ ...base, loss: 'chunked-nll', headCastBytes: 2_097_152 });
    assert.equal(fp32Head.backwardTransientBytes, 16_777_216 + 2_097_152);
    // Fewer tokens than a chunk: the chunk is the tokens (4 x 4 x 100 x 4,096).
    assert.equal(lossMemory({ ...base, tokens: 100, loss: 'chunked-nll' }).forwardTransientBytes, 6_553_600);
    // A chunk is a slice of the packed hidden states: slice_backward fills its gradient into zeros of the packed size,
    // 512 x 256 x 4 B for fp32 hidden states (CPU truth trl/llama-sft-full-amp: aten::zeros < slice_backward).
    const packed = lossMemory({ ...base, hidden: 256, loss: 'chunked-nll', packedHiddenBytes: 4 });
    assert.equal(packed.backwardTransientBytes, 16_777_216 + 512 * 256 * 4);
  });

  it('trl/llama-sft-lora-bf16: 7,864,320 B below the full cross-entropy (no 4·T·V kept), within 1 % of the truth', () => {
    // Full CE peaks at the loss backward: 4·T·V kept + 8·T·V of gradients = 25,165,824 B over the held bytes; chunked_nll
    // at a chunk: 16,777,216 B, beside the packed copy of the valid tokens' hidden states its chunks keep (hidden_states
    // [mask], 512 x 256 x 2 B) and the slice's gradient in zeros of that size. T·V = 512 x 4,096.
    const chunked = run(truthSetup('trl/llama-sft-lora-bf16'));
    const full = run(truthSetup('trl/llama-sft-lora-bf16', { loss: 'full' }));
    assert.equal(full.perGpu.peakBytes - chunked.perGpu.peakBytes, 8_388_608 - 2 * 512 * 256 * 2);
    near(
      chunked.perGpu.peakBytes,
      truthPeak('trl/llama-sft-lora-bf16'),
      0.01,
      'measured 33,705,494 B (full CE: +26 %)',
    );
  });

  it("trl/llama-sft-full-amp: the last chunk's recompute meets the head's fp32 gradient of the first and its bf16 copy", () => {
    // 2 x 256 tokens leave 510 valid tokens: two chunks. At the second one's recompute (the first to run backward is the
    // last chunk), the head's gradient from the other, 4,096 x 256 x 4 B = 4,194,304, and autocast's bf16 copy of the
    // fp32 head, 2,097,152 B, are held beside the chunk's 16,777,216 B and the slice's fp32 gradient of the packed
    // hidden states, 512 x 256 x 4 B.
    const e = run(truthSetup('trl/llama-sft-full-amp'));
    const bwd = phase(e, 'backward');
    assert.equal(component(bwd, 'loss-backward'), 16_777_216 + 2_097_152 + 524_288);
    assert.equal(component(bwd, 'gradients'), 4_194_304);
    near(e.perGpu.peakBytes, truthPeak('trl/llama-sft-full-amp'), 0.01, 'measured 85,000,692 B at NllLossBackward0');
  });
});

describe("estimate: TRL's log-probabilities take Accelerate's fp32 logits under mixed precision", () => {
  // accelerate/accelerator.py prepare_model wraps the forward in convert_outputs_to_fp32 under native AMP (bf16 without
  // DeepSpeed), so the logits DPOTrainer hands to selective_log_softmax are fp32: its logsumexp path keeps them for
  // backward (4·T·V), and the rows' gradients and their stack are 2 x 4·T·V. Truth point trl/llama-dpo-lora-bf16: 2 pairs
  // of 193 tokens, T = 772, V = 4,096 (the profile shows aten::_to_copy of 12,648,448 B after the head).
  it('trl/llama-dpo-lora-bf16: 4·T·V kept and 8·T·V of gradients at the loss backward, within 3 % of the backward measured', () => {
    const e = run(truthSetup('trl/llama-dpo-lora-bf16'));
    const bwd = phase(e, 'backward');
    assert.equal(component(bwd, 'loss-backward'), 8 * 772 * 4096);
    const l = lossMemory({
      tokens: 772,
      vocab: 4096,
      logitsBytes: 4,
      convertedFrom: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      amp: true,
      preferenceRowTokens: 193,
    });
    assert.equal(l.savedBytes, 12_648_448);
    near(
      bwd.allocatedBytes,
      58_825_688,
      0.03,
      'the measured backward peak, at UnbindBackward0 (was -29.6 % on 16-bit rows)',
    );
  });

  it('a DeepSpeed run (no native AMP) keeps the 16-bit logits', () => {
    const s = truthSetup('trl/llama-dpo-lora-bf16');
    const plain = lossMemory({
      tokens: 772,
      vocab: 4096,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      amp: true,
      preferenceRowTokens: 193,
    });
    // Without the flat gradient bucket (5e8 elements, which would set this tiny model's peak), the loss sets it.
    const ds = run({ ...s, zero_stage: 2, zero_buckets: { contiguous_gradients: false } });
    assert.equal(component(phase(ds, 'backward'), 'loss-backward'), plain.backwardTransientBytes);
  });
});

describe("estimate: TRL GRPO's training forward (trl_version)", () => {
  // Truth point trl/llama-grpo-lora-bf16 (TRL 1.13): 2 completions of 32 tokens after 64-token prompts, V = 4,096, bf16
  // weights under bf16 autocast (Accelerate's fp32 logits). grpo_trainer.py _get_per_token_logps_and_entropies keeps
  // `outputs` (the undivided fp32 logits, TRL >= 1.7), divides the completion logits by the temperature (kept by the
  // logsumexp path: 4 x 64 x 4,096 = 1,048,576 B) and, without grad, takes their entropy 128 rows at a time (TRL >= 0.20;
  // here all 64 rows: log_softmax, exp and product 3 x 4 x 64 x 4,096 = 3,145,728 B). Profiled: 1,081,344 B of fp32
  // logits (33 positions), 1,048,576 B divided, then the three 1,048,576 B chunk tensors at aten::mul.
  it('holds the undivided logits (1.7) and takes the entropy (0.20) beside the kept divided logits', () => {
    const forwardTemps = (v: string): number =>
      phase(run(truthSetup('trl/llama-grpo-lora-bf16', { trl_version: v })), 'forward').components.find((c) =>
        c.label.startsWith('Completion log-probs forward temporaries'),
      )!.bytes;
    assert.equal(forwardTemps('1.13'), 1_048_576 + 3_145_728);
    assert.equal(forwardTemps('1.6'), 3_145_728);
    assert.equal(forwardTemps('0.19'), 1_048_576); // the undivided logits beside their divided copy
    // The measured peak, 16,282,464 B, is at the CPU's bmm copy of the frozen head (tools/truth/README.md); the entropy's
    // point, 15,972,728 B, is the one a GPU has.
    near(run(truthSetup('trl/llama-grpo-lora-bf16')).perGpu.peakBytes, 15_972_728, 0.03, 'the entropy point');
    near(
      run(truthSetup('trl/llama-grpo-full-bf16')).perGpu.peakBytes,
      truthPeak('trl/llama-grpo-full-bf16'),
      0.01,
      'full',
    );
  });
});

describe('estimate: TRL before 0.15 and transformers before 4.46 (DPO under DeepSpeed)', () => {
  // taishan1994/DPO-Finetuning (TRL 0.12, transformers 4.45, Accelerate's DeepSpeed): TRL < 0.15's concatenated_forward
  // takes `gather(logits.log_softmax(-1))` over the whole batch (huggingface/trl@v0.14.0 trl/trainer/dpo_trainer.py:1214;
  // selective_log_softmax came with 0.15, #2799), and LlamaForCausalLM 4.45 returns `self.lm_head(...).float()` whoever
  // calls it. Here a pair of 2 x 193 tokens: T = 2 x 2 x 193 = 772, V = 4,096, T·V = 3,162,112.
  const TV = 772 * 4096;
  const at = (extra: Record<string, unknown>): { saved: number; reference: number; formula: string } => {
    const e = run(truthSetup('trl/llama-dpo-full-bf16', { trl_version: '0.14', zero_stage: 2, ...extra }));
    const c = (label: string) => phase(e, 'forward').components.find((x) => x.label.startsWith(label))!;
    const saved = c('Logits and cross-entropy (saved)');
    return { saved: saved.bytes, reference: c('Reference forward').bytes, formula: saved.formula };
  };
  it("one log_softmax over the batch in the logits' dtype, fp32 where the model upcasts them (4.45), not from 4.46", () => {
    const upcast = at({ transformers_version: '4.45.2' });
    const half = at({ transformers_version: '4.46.0' });
    assert.match(upcast.formula, /^preference log-probs, one log_softmax over the batch \(TRL < 0\.15\): output 4·T·V/);
    // The kept log_softmax output: 4 B against 2 B per logit.
    assert.equal(upcast.saved - half.saved, 2 * TV);
    // The reference's no-grad pass: its logits and their log_softmax, 2 x 4 (2) B per logit.
    assert.equal(upcast.reference, 8 * TV);
    assert.equal(half.reference, 4 * TV);
    // TRL 0.15 takes them row by row: the reference pass holds its fp32 logits and a masked half, no log_softmax.
    const rows = at({ trl_version: '0.15', transformers_version: '4.45.2' });
    assert.equal(rows.reference, 6 * TV);
  });
});

describe("estimate: an fp32 head under autocast keeps its 16-bit copy to the head's backward", () => {
  // Truth point trainer/llama-lora-amp-ckpt-reentrant (HF Trainer, LoRA on a frozen fp32 Llama, bf16 autocast,
  // reentrant checkpointing): at the loss backward the profile holds a 2,097,152 B aten::_to_copy made just before the
  // head's mm, the bf16 copy of the 4,096 x 256 head the matmul keeps for its input's gradient (a frozen weight's cast
  // is not cached, but saved all the same). The peak was -3.4 % without it.
  it('counts V x h x 2 B at the loss backward and lands within 1 % of the measured peak', () => {
    const e = run(truthSetup('trainer/llama-lora-amp-ckpt-reentrant'));
    const head = phase(e, 'backward').components.find((c) =>
      c.label.startsWith('Autocast copy of the fp32 output head'),
    );
    assert.equal(head?.bytes, 4096 * 256 * 2);
    near(e.perGpu.peakBytes, truthPeak('trainer/llama-lora-amp-ckpt-reentrant'), 0.01, 'peak against the CPU truth');
  });

  it('is not counted with bf16 weights, nor under FSDP mixed precision (the gathered head is already bf16)', () => {
    const base = { method: 'full' as const, mixed_precision: 'bf16' as const, micro_batch_size: 1, seq_len: 1024 };
    const label = (e: ReturnType<typeof run>): boolean =>
      phase(e, 'backward').components.some((c) => c.label.startsWith('Autocast copy of the fp32 output head'));
    assert.ok(label(run(setupFor('meta-llama/Llama-3.2-1B', { ...base, weights_dtype: 'fp32' }))));
    assert.ok(!label(run(setupFor('meta-llama/Llama-3.2-1B', { ...base, weights_dtype: 'bf16' }))));
    const fsdp = { ...base, weights_dtype: 'fp32' as const, fsdp: 'full_shard' as const, gpus_per_node: 8 };
    assert.ok(!label(run(setupFor('meta-llama/Llama-3.2-1B', fsdp))));
  });
});

describe('estimate: a 4-bit model without autocast after the kbit upcast makes fp32 logits', () => {
  // Truth point qlora/llama-qlora-all-ckpt-upcast-all (bitsandbytes 0.50.1 NF4, PEFT's prepare_model_for_kbit_training,
  // no autocast): the embeddings, norms and head are fp32 and Linear4bit casts its output back to its input's dtype,
  // so the head makes fp32 logits (2 x 512 x 4,096 x 4 B = 16,777,216 B) and the loss's .float() copies nothing. The
  // forward's measured peak is 48,995,096 B; with a 16-bit logits tensor and its upcast the estimate was 56.0 MB.
  const id = 'qlora/llama-qlora-all-ckpt-upcast-all';
  const T = 2 * 512;
  const V = 4096;

  it('counts 4·T·V of logits and no upcast, and the forward lands within 3 % of the CPU truth', () => {
    const e = run(truthSetup(id));
    const saved = phase(e, 'backward').components.find((c) => c.id === 'logits-loss');
    assert.match(saved?.formula ?? '', /logits 4·T·V, fp32 upcast 0·T·V/);
    const forward = phase(e, 'forward').allocatedBytes;
    near(forward, 48_995_096, 0.03, 'the forward phase against the CPU truth');
    near(e.perGpu.peakBytes, truthPeak(id), 0.01, 'peak against the CPU truth');
    // Under bf16 autocast the head's matmul runs in 16 bits: 2·T·V of logits, then the fp32 upcast.
    const amp = run(truthSetup(id, { mixed_precision: 'bf16' }));
    const ampSaved = phase(amp, 'backward').components.find((c) => c.id === 'logits-loss');
    assert.match(ampSaved?.formula ?? '', /logits 2·T·V, fp32 upcast 4·T·V/);
    assert.ok(phase(amp, 'forward').allocatedBytes - forward >= 2 * T * V, 'the 16-bit logits come on top');
  });
});

describe("estimate: LitGPT's chunked head under autocast keeps one copy of a frozen fp32 head per chunk", () => {
  // lit-gpt tutorials/finetune_lora.md (Lightning-AI/litgpt@0cc02af, October 2023): StableLM-Base-Alpha-3B LoRA on
  // q and v (2,097,152 trainable), bf16-mixed (fp32 weights under autocast), micro-batch 1, Alpaca's longest sample
  // 1,034 tokens, no checkpointing: 26.92 GB max_memory_allocated. GPT.forward runs the head over x.split(128, dim=1),
  // 9 chunks; autocast does not cache a frozen weight's cast, so each chunk's matmul saves its own bf16 copy of the
  // 50,688 x 4,096 head (profiled with torch 2.13's CPU autocast: 9 distinct copies, one for a trainable head).
  const litgpt = (extra: Partial<TrainingSetupInput> = {}) =>
    setupFor('stabilityai/stablelm-base-alpha-3b', {
      model_code: 'litgpt',
      method: 'lora',
      lora: { r: 8, alpha: 16, dropout: 0.05, target_modules: ['q_proj', 'v_proj'] },
      weights_dtype: 'fp32',
      mixed_precision: 'bf16',
      micro_batch_size: 1,
      seq_len: 1034,
      loss: 'chunked',
      loop_keeps_outputs: true,
      ...extra,
    });
  const copies = (e: ReturnType<typeof run>): number =>
    phase(e, 'forward').components.find((c) => c.label.startsWith('Autocast cop'))?.bytes ?? 0;
  it('counts 9 x V x h x 2 B, adapts the fused query_key_value for q_proj and v_proj, and lands within 3 % of 26.92 GB', () => {
    const e = run(litgpt());
    assert.equal(copies(e), 9 * 50688 * 4096 * 2);
    // LitGPT's LoRAQKVLinear on q and v: 16 layers x 8 x (2 x 4,096 + 2 x 4,096) = 2,097,152, as the tutorial prints.
    assert.equal(e.parameters.trainable, 2_097_152);
    near(e.perGpu.peakBytes, 26.92e9, 0.03, 'published max_memory_allocated');
  });
  it('one copy for a trained head (the cast is cached), none with 16-bit weights', () => {
    assert.equal(copies(run(litgpt({ method: 'full', lora: undefined }))), 50688 * 4096 * 2);
    assert.equal(copies(run(litgpt({ weights_dtype: 'bf16', mixed_precision: 'none' }))), 0);
  });
});

describe("estimate: torchtune's LinearCrossEntropyLoss projects one chunk at a time", () => {
  it("keeps every chunk's fp32 log-softmax, but only one chunk's logits exist at the loss call (Llama-3.2-1B, 4 x 2,048)", () => {
    // torchtune/modules/loss/cross_entropy_loss.py: set_model_output makes the model skip its output layer, and each
    // of the 8 chunks runs `logits = self.linear_projection(valid_hidden)`, then F.cross_entropy(logits.float()).
    // CEWithChunkedOutputLoss gets all 8 chunks of bf16 logits from the model first. T x V = 8,192 x 128,256.
    const TV = 8_192 * 128_256;
    const forwardTemporaries = (loss: 'chunked' | 'chunked-linear'): number | undefined =>
      phase(
        run(
          setupFor('meta-llama/Llama-3.2-1B', {
            weights_dtype: 'bf16',
            micro_batch_size: 4,
            seq_len: 2_048,
            gradient_checkpointing: 'full',
            loss,
          }),
        ),
        'forward',
      ).components.find((c) => c.label === 'Cross-entropy forward temporaries')?.bytes;
    // The whole bf16 logits (2·T·V) and one chunk's fp32 copy (4·T·V / 8).
    assert.equal(forwardTemporaries('chunked'), 2 * TV + (4 * TV) / 8);
    // One chunk's bf16 logits and its fp32 copy.
    assert.equal(forwardTemporaries('chunked-linear'), (2 * TV) / 8 + (4 * TV) / 8);
  });
});
