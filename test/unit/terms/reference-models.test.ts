// Term: frozen models beside the trained one (src/core/terms/reference-models.ts): DPO's reference, distillation's
// teacher; against numbers worked out by hand, each test names its source.
import * as assert from 'node:assert/strict';
import { lossMemory } from '../../../src/core/terms/activations';
import { findModel } from '../../../src/core/lookup';
import { component, near, phase, run, setupFor } from '../helpers';
import { truthPeak, truthSetup } from './helpers';

describe('estimate: paired preference training (DPO)', () => {
  // Llama-3-8B (V = 128,256), bf16 weights under bf16 autocast, one example of 1,024 tokens: chosen + rejected make
  // 2 sequences, T = 2,048 tokens, T·V = 262,668,288.
  const TV = 2048 * 128_256;
  const sV = 1024 * 128_256;
  const base = {
    weights_dtype: 'bf16' as const,
    mixed_precision: 'bf16' as const,
    micro_batch_size: 1,
    seq_len: 1024,
    gradient_checkpointing: 'full' as const,
  };
  const lora = { ...base, method: 'lora' as const, lora: { r: 16, target_modules: ['q_proj', 'v_proj'] } };

  it("runs the chosen and the rejected sequence together and takes TRL's row-by-row log-probs", () => {
    const sft = run(setupFor('meta-llama/Meta-Llama-3-8B', lora));
    const dpo = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...lora, preference: { reference: 'adapters-off' } }));
    assert.equal(component(phase(dpo, 'forward'), 'activations'), 2 * component(phase(sft, 'forward'), 'activations'));
    // trl selective_log_softmax: the fp32 log_softmax of every row is kept (4·T·V). In backward each row's saved output is
    // freed once its log_softmax backward has run while its bf16 gradient waits for the stack: the kept outputs and one
    // row's fp32 temporaries (2 x 4·s·V) at the start, the rows' gradients and their stack (2 x 2·T·V = the 4·T·V the
    // outputs took) at the end; beyond the saved outputs, max(8·s·V, 4·T·V - 4·T·V) (tools/peak GRPO cases: the same rows).
    const l = lossMemory({
      tokens: 2048,
      vocab: 128_256,
      hidden: 4096,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      preferenceRowTokens: 1024,
      amp: true,
    });
    assert.deepEqual(
      [l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes],
      [4 * TV, 2 * TV + Math.max(4 * sV, TV), 2 * 4 * sV],
    );
    // torchtune's get_batch_log_probs: one log_softmax in bf16 (kept: 2·T·V); backward: gather and log_softmax gradients.
    const tt = lossMemory({
      tokens: 2048,
      vocab: 128_256,
      hidden: 4096,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      nativeLogSoftmax: true,
    });
    assert.deepEqual([tt.savedBytes, tt.forwardTransientBytes, tt.backwardTransientBytes], [2 * TV, 2 * TV, 4 * TV]);
    // Under bf16 autocast without DeepSpeed, Accelerate's convert_outputs_to_fp32 hands TRL fp32 logits: the logsumexp
    // path keeps them (4·T·V); with DeepSpeed (no native AMP) they stay bf16 and go row by row.
    const saved = phase(dpo, 'forward').components.find((c) => c.label.startsWith('Logits and cross-entropy'));
    assert.ok(saved && saved.bytes >= 4 * TV && /logsumexp path/.test(saved.formula));
    const ds = run(
      setupFor('meta-llama/Meta-Llama-3-8B', { ...lora, zero_stage: 2, preference: { reference: 'adapters-off' } }),
    );
    const dsSaved = phase(ds, 'forward').components.find((c) => c.label.startsWith('Logits and cross-entropy'));
    assert.ok(dsSaved && /row by row/.test(dsSaved.formula));
    // TRL >= 0.29 (_compute_loss): the reference's fp32 logits (adapters disabled, no grad) 4·T·V = 8,192·V stay held
    // while the metrics run: entropy_from_logits copies the shifted logits, 4 x 2 x 1,023 rows = 8,184·V, and takes 128
    // rows at a time through log_softmax, exp and their product, 3 x 4 x 128 = 1,536·V: 17,912 x 128,256 B.
    const ref = phase(dpo, 'forward').components.find((c) => c.label.startsWith('Reference forward'));
    assert.equal(ref?.bytes, 17_912 * 128_256);
    // TRL < 0.29 (concatenated_forward): the fp32 logits 4·T·V and the masked half for the mean logits 2·T·V.
    const old = run(
      setupFor('meta-llama/Meta-Llama-3-8B', {
        ...lora,
        trl_version: '0.28',
        preference: { reference: 'adapters-off' },
      }),
    );
    const oldRef = phase(old, 'forward').components.find((c) => c.label.startsWith('Reference forward'));
    assert.equal(oldRef?.bytes, 6 * TV);
  });

  it("KTO: single completions, the KL batch's logits held through the policy forward, two reference forwards", () => {
    // micro_batch_size 2 x 1,024 tokens = T·V of the paired case; trl KTOTrainer: the policy's chosen and rejected logits
    // (index copies) are held while the reference's completion logits and their index copies exist; under bf16 autocast
    // Accelerate's convert_outputs_to_fp32 makes them fp32: 3 x 4·T·V (tools/peak --trl-kto's fp32 case).
    const kto = { ...lora, micro_batch_size: 2 };
    const sft = run(setupFor('meta-llama/Meta-Llama-3-8B', kto));
    const e = run(
      setupFor('meta-llama/Meta-Llama-3-8B', { ...kto, preference: { reference: 'adapters-off', paired: false } }),
    );
    assert.equal(component(phase(e, 'forward'), 'activations'), component(phase(sft, 'forward'), 'activations'));
    const ref = phase(e, 'forward').components.find((c) => c.label.startsWith('Reference forward'));
    assert.equal(ref?.bytes, 12 * TV);
  });

  it('a frozen reference copy holds the weights again; precomputed or reference-free log-probs add nothing', () => {
    const full = { ...base, method: 'full' as const, optimizer: 'adamw_8bit' as const };
    const sft = run(setupFor('meta-llama/Meta-Llama-3-8B', full));
    const copy = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...full, preference: { reference: 'copy' } }));
    const weights = (e: ReturnType<typeof run>): number => component(phase(e, 'optimizer'), 'weights');
    assert.equal(weights(copy) - weights(sft), 8_030_261_248 * 2);
    for (const reference of ['precomputed', 'none'] as const) {
      const e = run(setupFor('meta-llama/Meta-Llama-3-8B', { ...full, preference: { reference } }));
      assert.equal(weights(e), weights(sft));
      assert.ok(!phase(e, 'forward').components.some((c) => c.label.startsWith('Reference forward')));
    }
    // Under ZeRO-3 over 8 GPUs the copy is sharded like the policy.
    const z3 = { ...full, gpus_per_node: 8, zero_stage: 3 as const, master_weights: true };
    assert.equal(
      weights(run(setupFor('meta-llama/Meta-Llama-3-8B', { ...z3, preference: { reference: 'copy' } }))) -
        weights(run(setupFor('meta-llama/Meta-Llama-3-8B', z3))),
      (8_030_261_248 * 2) / 8,
    );
  });
});

describe('estimate: knowledge distillation', () => {
  // torchtune llama3_2/8B_to_1B_KD_lora: Llama-3.2-1B student (LoRA), Llama-3.1-8B teacher in bf16, batch 4 x 1,024
  // tokens, CEWithChunkedOutputLoss + ForwardKLWithChunkedOutputLoss (8 chunks each), vocabulary 128,256.
  const found = findModel('meta-llama/Llama-3.1-8B');
  assert.ok(found.ok);
  const teacher = found.model;
  const base = {
    method: 'lora' as const,
    weights_dtype: 'bf16' as const,
    lora: { r: 64, target_modules: ['q_proj', 'v_proj', 'o_proj'], dtype: 'bf16' as const },
    micro_batch_size: 4,
    seq_len: 1024,
    loss: 'chunked' as const,
    gradient_checkpointing: 'full' as const,
  };
  const kd = run(
    setupFor('meta-llama/Llama-3.2-1B', {
      ...base,
      distillation: {
        teacher_model: teacher.id,
        teacher_architecture: teacher.config,
        teacher_parameters: teacher.publishedParams,
      },
    }),
  );
  const plain = run(setupFor('meta-llama/Llama-3.2-1B', base));
  const TV = 4 * 1024 * 128_256;
  it('loads the frozen teacher in the model dtype: 8,030,261,248 x 2 B', () => {
    const w = phase(kd, 'optimizer').components.find((c) => c.label.startsWith('Teacher model weights'));
    assert.equal(w?.bytes, 8_030_261_248 * 2);
  });
  it("the forward-KL loss keeps 9 B per logit (teacher softmax, student log-softmax, isinf mask) and holds the teacher's bf16 logits to the loss", () => {
    const saved = (e: ReturnType<typeof run>): number => component(phase(e, 'forward'), 'logits-loss');
    // Saved + forward temporaries at the end of forward: +9·T·V kept, +2·T·V of teacher logits, and at the last chunk's
    // masked_fill its product and filled copy 2 x 4·T·V/8 where the cross-entropy's chunk upcast 4·T·V/8 was
    // (tools/peak/measure_step.py --torchtune-kd: within 1 %).
    assert.equal(saved(kd) - saved(plain), 9 * TV + 2 * TV + ((8 - 4) * TV) / 8);
  });
});

describe('estimate: TRL GKD (generalized JSD against a teacher)', () => {
  it('a Qwen2.5-0.5B student distilled from Qwen2.5-7B: teacher weights and the JSD terms, worked by hand', () => {
    // Through the pipeline from a GKD script: the teacher resolves from the catalog (Qwen2.5-7B 7,615,616,512 params).
    const { resolveText } = require('../helpers') as typeof import('../helpers');
    const text =
      'from trl import GKDConfig, GKDTrainer\nfrom transformers import AutoModelForCausalLM\n' +
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", dtype="bfloat16")\n' +
      'args = GKDConfig(output_dir="o", per_device_train_batch_size=4, max_length=1024, bf16=True, gradient_checkpointing=True)\n' +
      'trainer = GKDTrainer(model=model, teacher_model="Qwen/Qwen2.5-7B-Instruct", args=args)\n';
    const r = resolveText('/w/gkd.py', text);
    assert.ok(r.setup?.distillation);
    assert.deepEqual([r.setup.distillation.loss, r.setup.distillation.jsd_beta], ['jsd', 0.5]);
    const e = run(r.setup);
    const f = phase(e, 'forward');
    assert.equal(f.components.find((c) => c.label.startsWith('Teacher model weights'))!.bytes, 7_615_616_512 * 2);
    // T x V = 4 x 1,024 tokens x 151,936 = 622,329,856 logits: forward temporaries (52 - 28) + 4 x 2 B = 32 B each
    // (tools/peak/measure_jsd.py), and 28 B each kept, beside the final norm's input.
    const TV = 4 * 1024 * 151_936;
    assert.equal(f.components.find((c) => c.label === 'Distillation loss forward temporaries')!.bytes, 32 * TV);
    assert.ok(f.components.find((c) => c.label === 'Logits and distillation loss (saved)')!.bytes >= 28 * TV);
    assert.ok(e.assumptions.some((a) => a.key === 'distillation' && /completion positions/.test(a.source)));
  });

  it("on-policy rounds (lmbda > 0) are a generation phase: the student's prefill and KV cache, below the step here", () => {
    // Qwen2.5-0.5B: 24 layers, 2 kv heads x 64, bf16: 2 x 2 x 64 x 2 B = 512 B per token and layer. GKDConfig's lmbda
    // 0.5 and max_new_tokens 128: prompts of 1,024 - 128 = 896 tokens; their prefill (the cache of 4 x 896 tokens,
    // 44,040,192 B, beside one layer's no-grad forward) is this round's high point.
    const { resolveText } = require('../helpers') as typeof import('../helpers');
    const script = (extra: string) =>
      'from trl import GKDConfig, GKDTrainer\nfrom transformers import AutoModelForCausalLM\n' +
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", dtype="bfloat16")\n' +
      `args = GKDConfig(output_dir="o", per_device_train_batch_size=4, max_length=1024, bf16=True, gradient_checkpointing=True${extra})\n` +
      'trainer = GKDTrainer(model=model, teacher_model="Qwen/Qwen2.5-7B-Instruct", args=args)\n';
    const e = run(resolveText('/w/gkd.py', script('')).setup!);
    const gen = phase(e, 'generation');
    assert.equal(
      gen.components.find((c) => c.label === 'KV cache (4 sequences x 896 tokens)')!.bytes,
      4 * 896 * 24 * 512,
    );
    assert.match(gen.note, /on-policy generation \(GKD lmbda 0.5\): 4 completions of up to 128 tokens/);
    assert.ok(gen.allocatedBytes < phase(e, 'forward').allocatedBytes);
    // With accumulation the earlier micro-steps' gradients are held while the student generates: 494,032,768 x 2 B.
    const acc = run(resolveText('/w/gkd.py', script(', gradient_accumulation_steps=4')).setup!);
    assert.equal(component(phase(acc, 'generation'), 'gradients'), 494_032_768 * 2);
    // lmbda 0: every step trains on the dataset's completions, no generation.
    assert.equal(
      run(resolveText('/w/gkd.py', script(', lmbda=0.0')).setup!).perGpu.phases.some((p) => p.phase === 'generation'),
      false,
    );
  });
});

describe('estimate: TRL >= 0.29 DPO (DPOTrainer._compute_loss) against the CPU truth', () => {
  // Truth point trl/llama-dpo-lora-bf16 (TRL 1.13): 2 pairs of 193 tokens (128 prompt + 64 completion + EOS), T = 772,
  // V = 4,096, bf16 weights under bf16 autocast, the reference = the model with its adapters disabled. The profile's
  // forward peak (aten::mul in entropy_from_logits) holds, beyond the activations: the policy's fp32 logits kept by the
  // logsumexp path 4·T·V = 12,648,448, the reference's fp32 logits 12,648,448, the entropy's copy of the shifted logits
  // 4 x 4 x 192 x 4,096 = 12,582,912 and one 128-row chunk's log_softmax, exp and product 3 x 4 x 128 x 4,096 = 6,291,456.
  it('the reference forward holds its logits through the metrics: 12,648,448 + 12,582,912 + 6,291,456 B', () => {
    const e = run(truthSetup('trl/llama-dpo-lora-bf16'));
    const ref = phase(e, 'forward').components.find((c) => c.label.startsWith('Reference forward'));
    assert.equal(ref?.bytes, 12_648_448 + 12_582_912 + 6_291_456);
    near(e.perGpu.peakBytes, truthPeak('trl/llama-dpo-lora-bf16'), 0.03, 'measured 65,192,240 B (was -26.7 %)');
    near(
      run(truthSetup('trl/llama-dpo-full-bf16')).perGpu.peakBytes,
      truthPeak('trl/llama-dpo-full-bf16'),
      0.03,
      'copy',
    );
  });
});

/** A bf16 model trained under TRL 1.13 over 8 ranks with FSDP2 (an fp32 master from Accelerate's upcast), checkpointed. */
const trlFsdp2 = (model: string, extra: Parameters<typeof setupFor>[1]) =>
  setupFor(model, {
    weights_dtype: 'bf16',
    master_weights: true,
    mixed_precision: 'bf16',
    gradient_checkpointing: 'full',
    gpus_per_node: 8,
    fsdp: 'full_shard',
    fsdp_version: 2,
    trl_version: '1.13',
    ...extra,
  });

describe('estimate: a reference copy under FSDP2, as TRL wraps it (one unit over the whole model)', () => {
  // CPU truth of TRL's DPOTrainer over 4 ranks (test/fixtures/truth/accelerate.json): a Llama of 3,548,416 parameters,
  // bf16 under FSDP2's bf16 MixedPrecisionPolicy, 4 sequences of 193 tokens (T = 772), V = 4,096. The reference's
  // forward gathers the whole model: its all-gather output and the unsharded parameters, 2 x 3,548,416 x 2 B, beside
  // its bf16 logits 772 x 4,096 x 2 B (trl/models/utils.py prepare_fsdp; tools/truth/FINDINGS.md §56).
  const id = 'accelerate/llama-dpo-fsdp2-w4-full-bf16';

  it('counts the whole-model gather and 16-bit logits in the reference forward, within 2 % of the trainer', () => {
    const e = run(truthSetup(id));
    const fwd = phase(e, 'forward');
    const ref = fwd.components.find((c) => c.label.startsWith('Reference forward'));
    assert.ok(ref, 'reference forward component');
    assert.ok(ref.bytes >= 2 * 3_548_416 * 2 + 772 * 4096 * 2, `${ref.bytes}`);
    near(e.perGpu.peakBytes, truthPeak(id), 0.02, 'DPO under FSDP2 against the trainer');
  });
  it('at 8B over 8 ranks the gather is the reference forward: 2 x 8.03B x 2 B, beside its 16-bit logits', () => {
    const s = trlFsdp2('meta-llama/Llama-3.1-8B', {
      seq_len: 1024,
      fsdp_tail_unit: true,
      preference: { logps: 'rows', reference: 'copy' },
    });
    const e = run(s);
    const ref = phase(e, 'forward').components.find((c) => c.label.startsWith('Reference forward'))!;
    const params = e.parameters.total;
    assert.equal(ref.bytes, 2 * params * 2 + 2048 * 128_256 * 2);
    assert.match(ref.formula, /gathered whole as one FSDP2 unit/);
  });
  it('on one GPU the reference is not gathered', () => {
    const e = run(truthSetup(id, { gpus_per_node: 1, fsdp: 'none', fsdp_tail_unit: undefined }));
    const ref = phase(e, 'forward').components.find((c) => c.label.startsWith('Reference forward'));
    assert.ok(ref && !/FSDP2/.test(ref.formula), ref?.formula);
  });
});

describe("estimate: GRPO's reference copy under FSDP2 scores gathered whole", () => {
  it('the scoring tail is the whole-model gather beside the completion logits', () => {
    // Qwen2.5-7B-Instruct over 8 ranks, 2 completions of 1,024 tokens per micro-batch (T = 2,048), V = 152,064:
    // 2 x params x 2 B (trl/models/utils.py prepare_fsdp: one unit) + 2 B x T x V.
    const s = trlFsdp2('Qwen/Qwen2.5-7B-Instruct', {
      micro_batch_size: 2,
      seq_len: 1536,
      rollout: { batch: 16, completion_len: 1024, engine: 'generate', reference: 'copy' },
    });
    const e = run(s);
    const c = phase(e, 'generation').components.find((x) => x.label.includes('gathered whole'))!;
    assert.equal(c.bytes, 2 * e.parameters.total * 2 + 2 * 2048 * 152_064);
  });
});
