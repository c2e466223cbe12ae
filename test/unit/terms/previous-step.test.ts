// Term: what the last step leaves allocated when the loop keeps its outputs (src/core/terms/previous-step.ts). The
// numbers are worked by hand for Llama-2-7B (hidden 4,096, MLP 11,008, vocab 32,000, 32 layers) at 1 x 512 tokens in
// bf16: the logits T x V x 2 B = 512 x 32,000 x 2 = 32,768,000 B; bitsandbytes 0.42's MatMul4Bit keeps each frozen
// linear's input as a ctx attribute (q/k/v share the norm's output, gate/up the second norm's), so a layer keeps
// T x (3h + f) x 2 B = 512 x 23,296 x 2 = 23,855,104 B, and 32 layers 763,363,328 B. That a ctx attribute lives as
// long as the graph, where saved tensors are freed by the backward, was checked with torch 2.13 on the CPU (the term's
// header).
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { phase, resolveText, run } from '../helpers';
import { litgptQloraYaml, llama2Qlora, truthSetup } from './helpers';

const LOGITS = 512 * 32_000 * 2; // 32,768,000
const KEPT = 32 * 512 * (3 * 4_096 + 11_008) * 2; // 763,363,328

const qlora = (extra: Partial<TrainingSetupInput>): Estimate =>
  run(llama2Qlora({ bitsandbytes_version: '0.42.0', ...extra }));

const lastStep = (e: Estimate, name: 'forward' | 'backward' | 'optimizer'): number[] =>
  phase(e, name)
    .components.filter((c) => c.label.startsWith("The step's logits") || c.label.startsWith("The last step's"))
    .map((c) => c.bytes);

describe('previous step: a loop that keeps its outputs (Llama-2-7B QLoRA, bitsandbytes 0.42, 1 x 512)', () => {
  const dropped = qlora({});
  const kept = qlora({ loop_keeps_outputs: true });
  it('the logits and every layer kept input of the last step are allocated through the next forward', () => {
    assert.deepEqual(lastStep(kept, 'forward'), [LOGITS, KEPT]);
    assert.equal(phase(kept, 'forward').allocatedBytes - phase(dropped, 'forward').allocatedBytes, LOGITS + KEPT);
  });
  it('and through its own optimizer step', () => {
    assert.deepEqual(lastStep(kept, 'optimizer'), [LOGITS, KEPT]);
    assert.equal(phase(kept, 'optimizer').allocatedBytes - phase(dropped, 'optimizer').allocatedBytes, LOGITS + KEPT);
  });
  it("through its own backward the step's logits are referenced beside their gradient", () => {
    assert.deepEqual(lastStep(kept, 'backward'), [LOGITS]);
    assert.equal(phase(kept, 'backward').allocatedBytes - phase(dropped, 'backward').allocatedBytes, LOGITS);
  });
  it('a loop that drops them (HF Trainer) leaves nothing', () => {
    assert.deepEqual(lastStep(dropped, 'forward'), []);
  });
  it('bitsandbytes 0.43.2 keeps no input: the logits only', () => {
    assert.deepEqual(lastStep(qlora({ loop_keeps_outputs: true, bitsandbytes_version: '0.43.2' }), 'forward'), [
      LOGITS,
    ]);
  });
  it('non-reentrant checkpointing keeps the inputs on the graph; reentrant checkpointing builds no forward graph', () => {
    const ck = (reentrant: boolean) =>
      lastStep(
        qlora({ loop_keeps_outputs: true, gradient_checkpointing: 'full', checkpoint_reentrant: reentrant }),
        'forward',
      );
    assert.deepEqual(ck(false), [LOGITS, KEPT]);
    assert.deepEqual(ck(true), [LOGITS]);
  });
  it('before transformers 4.46 the model returns the logits upcast: 512 x 32,000 x 4 B = 65,536,000 B', () => {
    const old = qlora({ loop_keeps_outputs: true, transformers_version: '4.38' });
    assert.deepEqual(lastStep(old, 'optimizer'), [2 * LOGITS, KEPT]);
    assert.deepEqual(lastStep(qlora({ loop_keeps_outputs: true, transformers_version: '4.46' }), 'optimizer'), [
      LOGITS,
      KEPT,
    ]);
  });
  it("a model whose forward upcasts them (model_logits_fp32: torchtune's and mistral-finetune's decoders): 4 B each", () => {
    assert.deepEqual(lastStep(qlora({ loop_keeps_outputs: true, model_logits_fp32: true }), 'optimizer'), [
      2 * LOGITS,
      KEPT,
    ]);
  });
  it('a fused loss returns no logits', () => {
    assert.deepEqual(lastStep(qlora({ loop_keeps_outputs: true, loss: 'fused' }), 'forward'), [KEPT]);
  });
});

// Answer.AI's fsdp_qlora loop (AnswerDotAI/fsdp_qlora@05ed9f2:train.py train_fsdp) binds `output = model(...)`, runs the
// backward and the optimizer step, then sets `output = None` before the next batch. CPU truth `loop/*-keep-step`
// (transformers 5.17): the forward allocates what a loop that drops its outputs does, the backward and the optimizer
// step what a loop that keeps them does (Llama at 2 x 256, fp32: forward 87,041,388 B either way, backward
// 103,810,400 B both with `keep`, test/fixtures/truth/loop.json).
describe("previous step: a loop that drops its outputs after the step (loop_keeps_outputs: 'step')", () => {
  const dropped = qlora({});
  const step = qlora({ loop_keeps_outputs: 'step' });
  it('the next forward finds none of the last step', () => {
    assert.deepEqual(lastStep(step, 'forward'), []);
    assert.equal(phase(step, 'forward').allocatedBytes, phase(dropped, 'forward').allocatedBytes);
  });
  it("the step's logits are referenced through its backward, and with its graph through its optimizer step", () => {
    assert.deepEqual(lastStep(step, 'backward'), [LOGITS]);
    assert.deepEqual(lastStep(step, 'optimizer'), [LOGITS, KEPT]);
    assert.equal(phase(step, 'optimizer').allocatedBytes - phase(dropped, 'optimizer').allocatedBytes, LOGITS + KEPT);
  });
  it('the scenario format reads it', () => {
    const r = resolveText('run.vram.yaml', 'model: meta-llama/Llama-2-7b-hf\nloop_keeps_outputs: step\n');
    assert.equal(r.setup?.loop_keeps_outputs, 'step');
  });
});

// Lit-GPT's finetune scripts from Lightning-AI/lit-gpt@fa5d73e to 73baa2d put the longest training sample into the
// first iteration (`get_batch(..., longest_seq_ix if iter_num == 0 else None)`): that batch's forward meets no earlier
// step's outputs. Its own are held as before: the logits through its backward, with the kept inputs through its
// optimizer step; an evaluation between steps still holds the last step's, counted as long as this one.
describe('previous step: the longest batch runs first (longest_batch_first)', () => {
  const dropped = qlora({});
  const kept = qlora({ loop_keeps_outputs: true });
  const first = qlora({ loop_keeps_outputs: true, longest_batch_first: true });
  it('its forward holds nothing of a last step', () => {
    assert.deepEqual(lastStep(first, 'forward'), []);
    assert.equal(phase(first, 'forward').allocatedBytes, phase(dropped, 'forward').allocatedBytes);
  });
  it('its own logits and kept inputs are held through its backward and optimizer step, as before', () => {
    assert.deepEqual(lastStep(first, 'backward'), [LOGITS]);
    assert.deepEqual(lastStep(first, 'optimizer'), [LOGITS, KEPT]);
    assert.equal(phase(first, 'optimizer').allocatedBytes, phase(kept, 'optimizer').allocatedBytes);
  });
  it('the estimate says what it takes of the batches after it', () => {
    const said = first.assumptions.find((a) => a.key === 'longest_batch_first');
    assert.match(said?.source ?? '', /Lit-GPT's finetune scripts, June 2023 to February 2024/);
    assert.equal(
      kept.assumptions.some((a) => a.key === 'longest_batch_first'),
      false,
    );
  });
  it('the scenario format reads it', () => {
    const r = resolveText('run.vram.yaml', 'model: meta-llama/Llama-2-7b-hf\nlongest_batch_first: true\n');
    assert.equal(r.setup?.longest_batch_first, true);
  });
});

describe("previous step: LitGPT's fit loops keep their logits", () => {
  const file = litgptQloraYaml('meta-llama/Llama-2-7b-hf');
  it('a LitGPT file sets loop_keeps_outputs, with the source of the default', () => {
    const r = resolveText('qlora.yaml', file);
    assert.equal(r.setup?.loop_keeps_outputs, true);
    assert.equal(r.provenance.loop_keeps_outputs?.kind, 'default');
    assert.match(JSON.stringify(r.provenance.loop_keeps_outputs), /finetune\/lora\.py fit/);
  });
  it('an HF Trainer file does not', () => {
    const r = resolveText(
      'train.yaml',
      ['model_name_or_path: meta-llama/Llama-2-7b-hf', 'per_device_train_batch_size: 1', 'bf16: true'].join('\n'),
    );
    assert.equal(r.setup?.loop_keeps_outputs ?? false, false);
  });
});

describe('previous step: the CPU truth (a loop that keeps the logits, tiny Llama, transformers 5.17, torch 2.13)', () => {
  // tools/truth/scenarios/loop/llama-lora-bf16-keep.vram.yaml against llama-lora-bf16: 2 x 256 tokens, vocab 4,096,
  // bf16 logits = 4,194,304 B. Measured (test/fixtures/truth/loop.json, step 1): forward 42,863,448 vs 38,669,144,
  // backward 46,787,404 vs 42,593,100, optimizer 11,586,348 vs 7,392,044: 4,194,304 B more at each phase.
  const measuredDelta = 4_194_304;
  const keep = run(truthSetup('loop/llama-lora-bf16-keep'));
  const drop = run(truthSetup('loop/llama-lora-bf16'));
  for (const name of ['forward', 'backward', 'optimizer'] as const)
    it(`${name}: the estimate adds what the run measured`, () => {
      assert.equal(phase(keep, name).allocatedBytes - phase(drop, name).allocatedBytes, measuredDelta);
    });
});

describe("previous step: the outputs' KV cache (use_cache), Llama-2-7B QLoRA at 1 x 512 in bf16", () => {
  // A transformers loop keeps the whole `outputs`, past_key_values included: 32 layers x (k, v) x 1 x 32 key/value
  // heads x 512 tokens x 128 x 2 B = 32 x 2 x 4,194,304 = 268,435,456 B.
  const CACHE = 32 * 2 * 32 * 512 * 128 * 2;
  const cacheOf = (e: Estimate, name: 'forward' | 'backward' | 'optimizer'): number[] =>
    phase(e, name)
      .components.filter((c) => c.id === 'kv-cache')
      .map((c) => c.bytes);
  const kept = qlora({ loop_keeps_outputs: true });
  const cached = qlora({ loop_keeps_outputs: true, use_cache: true });
  it('held after the backward: through the optimizer step and the next forward', () => {
    assert.deepEqual(cacheOf(cached, 'forward'), [CACHE]);
    assert.deepEqual(cacheOf(cached, 'optimizer'), [CACHE]);
    assert.equal(phase(cached, 'forward').allocatedBytes - phase(kept, 'forward').allocatedBytes, CACHE);
  });
  it("during the backward it is what SDPA saved for the step (Llama-2's 32 key/value heads are not repeated)", () => {
    assert.deepEqual(cacheOf(cached, 'backward'), []);
    assert.equal(phase(cached, 'backward').allocatedBytes, phase(kept, 'backward').allocatedBytes);
  });
  it('none under gradient checkpointing (transformers turns use_cache off), none when the loop drops its outputs', () => {
    const ck = qlora({ loop_keeps_outputs: true, use_cache: true, gradient_checkpointing: 'full' });
    assert.deepEqual(cacheOf(ck, 'forward'), []);
    assert.deepEqual(cacheOf(qlora({ use_cache: true }), 'forward'), []);
  });
});

describe('previous step: the KV cache against the CPU truth (transformers 5.17, torch 2.13)', () => {
  // loop/*-keep-cache against loop/*-keep (test/fixtures/truth/loop.json, step 1). Tiny Llama: 2 layers, 2 key/value
  // heads of 64, 2 x 256 tokens in fp32: 2 x 2 x (2 x 2 x 256 x 64) x 4 B = 1,048,576 B; measured +1,048,580 at the
  // forward and the optimizer step (the 4 B more is the kept loss), +0 at the backward. Tiny Gemma 2 (eager attention,
  // 4 heads over 2 key/value heads) LoRA in bf16: 524,288 B of cache, held beside repeat_kv's copies through the step
  // too; measured +1,048,596 at the forward (the last step's and this step's), +524,296 at the backward, +524,300 at
  // the optimizer step.
  const cases: [string, Record<'forward' | 'backward' | 'optimizer', number>][] = [
    ['loop/llama-full-fp32-keep', { forward: 1_048_576, backward: 0, optimizer: 1_048_576 }],
    ['loop/gemma2-lora-bf16-keep', { forward: 1_048_576, backward: 524_288, optimizer: 524_288 }],
  ];
  for (const [id, want] of cases) {
    const withCache = run(truthSetup(`${id}-cache`));
    const without = run(truthSetup(id));
    for (const name of ['forward', 'backward', 'optimizer'] as const)
      it(`${id}-cache, ${name}: +${want[name]} B`, () => {
        assert.equal(phase(withCache, name).allocatedBytes - phase(without, name).allocatedBytes, want[name]);
      });
  }
});
