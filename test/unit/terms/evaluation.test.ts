// Term: evaluation during training (src/core/terms/evaluation.ts): the no-grad loss forward at the eval batch, and an
// evaluation that only generates (eval_generation: Seq2SeqTrainer predict_with_generate over eval batches without
// labels). Numbers worked out by hand from the model's config; each test says where they come from.
import * as assert from 'node:assert/strict';
import { noGradLayerBytes } from '../../../src/core/terms/activations';
import { phase, run, setupFor } from '../helpers';
import { archOf } from './helpers';

describe('estimate: evaluation during training', () => {
  // Qwen2.5-7B-Instruct: 28 layers, 4 kv heads of 128, vocab 152,064. LoRA r=8 under bf16 autocast over bf16 weights,
  // FlashAttention-2, an eval batch of 4 at 1,025 tokens: THUDM's GLM finetune shape (prompts cut to 512 tokens and
  // the assistant's role token, 512 generated tokens).
  const V = 152_064;
  const kvPerToken = 28 * 2 * 4 * 128 * 2; // 57,344 B: keys and values of every layer, bf16
  const base = {
    method: 'lora' as const,
    lora: { r: 8, target_modules: ['q_proj', 'v_proj'] },
    weights_dtype: 'bf16' as const,
    mixed_precision: 'bf16' as const,
    micro_batch_size: 1,
    seq_len: 1025,
    gradient_checkpointing: 'full' as const,
    attention: 'flash' as const,
    eval_batch_size: 4,
  };

  it('a generating evaluation holds the prefill or a decoding step beside its KV cache, and no logits of the loss', () => {
    const e = run(
      setupFor('Qwen/Qwen2.5-7B-Instruct', { ...base, eval_generation: { prompt_len: 513, new_tokens: 512 } }),
    );
    const ev = phase(e, 'evaluation');
    assert.match(ev.note ?? '', /generation at the eval batch \(4\), no loss forward/);
    assert.ok(!ev.components.some((c) => c.id === 'logits-loss'));
    // Prefill: the cache of 4 prompts of 513 tokens and one layer's no-grad forward over them.
    const prefill =
      4 * 513 * kvPerToken + noGradLayerBytes(archOf('Qwen/Qwen2.5-7B-Instruct'), 4 * 513, 513, 2, 'flash');
    // Decoding at 1,025 tokens: the cache, and max(4 x V x (2 + 3 x 4) B, 2 x 4 x V x 4 B + one layer's keys at full
    // length 4 x 4 x 256 x 2 B x 1,025 / 2); FlashAttention repeats no heads.
    const decode = 4 * 1025 * kvPerToken + Math.max(4 * V * 14, 2 * 4 * V * 4 + (4 * 2048 * 1025) / 2);
    assert.equal(decode, 235_110_400 + 9_064_448);
    const kv = ev.components.filter((c) => c.id === 'kv-cache');
    assert.equal(kv.length, 1);
    const tail = ev.components.filter((c) => c.id === 'kv-cache' || c.id === 'backward-working');
    assert.equal(
      tail.reduce((s, c) => s + c.bytes, 0),
      Math.round(Math.max(prefill, decode)),
    );
  });

  it('without eval_generation the evaluation computes the loss: logits, fp32 upcast and log-softmax at the eval batch', () => {
    const ev = phase(run(setupFor('Qwen/Qwen2.5-7B-Instruct', base)), 'evaluation');
    assert.match(ev.note ?? '', /no-grad forward at the eval batch \(4\)/);
    // 4 x 1,025 tokens x V: far above the generating evaluation's few hundred MB.
    const loss = ev.components.find((c) => c.id === 'logits-loss');
    assert.ok(loss && loss.bytes > 4 * 1025 * V * (2 + 4));
  });

  it("a GRPO run's evaluation scores the completions' positions only, and its formula says so per T·V of those", () => {
    // TRL's prediction_step runs compute_loss, whose per-token log-probabilities take logits_to_keep = the completion's
    // length: 4 evaluated rows x 1,024 completion positions, not the 1,536 of the sequence.
    const s = setupFor('Qwen/Qwen2.5-0.5B-Instruct', {
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      seq_len: 1536,
      eval_batch_size: 4,
      rollout: { batch: 8, completion_len: 1024, engine: 'generate', reference: 'none', old_logps: false },
    });
    const loss = phase(run(s), 'evaluation').components.find((c) => c.id === 'logits-loss')!;
    const perTV = loss.bytes / (4 * 1024 * 151_936);
    assert.match(loss.formula, new RegExp(`over 1024 positions a row, .*: ${+perTV.toFixed(2)}·T·V$`));
  });

  it("split over the context-parallel group as training is (Axolotl), each GPU's evaluation holds its share of a row", () => {
    // basetenlabs/ml-cookbook's Gemma-3-27B Axolotl config: sequence_parallel_degree 16 at 128,000 tokens had its
    // evaluation counted at whole rows (76.9 GiB of logits); Axolotl's SequenceParallelContextManager hooks the model
    // for all of trainer.train(), so each GPU evaluates 8,000 tokens of a row.
    const cp = { ...base, seq_len: 8192, context_parallel: 8, gpus_per_node: 8 };
    const whole = phase(run(setupFor('Qwen/Qwen2.5-7B-Instruct', cp)), 'evaluation');
    const split = phase(run(setupFor('Qwen/Qwen2.5-7B-Instruct', { ...cp, eval_sequence_split: true })), 'evaluation');
    const logits = (p: typeof whole): number => p.components.find((c) => c.id === 'logits-loss')!.bytes;
    // The loss's tensors scale with the tokens: 4 x 8,192 whole, 4 x 1,024 on each GPU when split.
    assert.equal(logits(split) * 8, logits(whole));
    assert.match(
      split.components.find((c) => c.id === 'logits-loss')!.formula,
      /each GPU's 1024 positions of a row \(split over 8\)/,
    );
  });
});
