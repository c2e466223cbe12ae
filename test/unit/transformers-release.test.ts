// A transformers pin older than the model's code (src/core/estimate/transformers-release.ts): IntMeGroup/DFBench pins
// transformers==4.37.2 in its root requirements.txt for its InternVL code, and its qwen2.5/train.sh fine-tunes
// Qwen2.5-VL-7B, whose code came with transformers 4.49. Read as 4.37, the run got 4.37's per-layer rotary tables.
import * as assert from 'node:assert/strict';
import { run, runFiles, setupFor } from './helpers';

const rotary = (e: ReturnType<typeof run>): number =>
  e.perGpu.phases[0].components.find((c) => c.id === 'rotary-tables')?.bytes ?? 0;

describe('a transformers pin older than the model', () => {
  it("is not the run's: warned at transformers_version, and a current release estimated", () => {
    const pinned = run(setupFor('Qwen/Qwen2.5-VL-7B-Instruct', { method: 'lora', transformers_version: '4.37.2' }));
    const current = run(setupFor('Qwen/Qwen2.5-VL-7B-Instruct', { method: 'lora' }));
    const w = pinned.warnings.find((x) => x.key === 'transformers_version');
    assert.match(
      w?.message ?? '',
      /^transformers 4\.37\.2 predates qwen2_5_vl, whose code came with transformers 4\.49/,
    );
    assert.equal(rotary(pinned), 0);
    assert.equal(pinned.perGpu.deviceBytes, current.perGpu.deviceBytes);
  });

  it('a release that has the model stays: 4.37 for Llama-2 keeps its per-layer rotary tables', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', transformers_version: '4.37.2' }),
    );
    assert.equal(
      e.warnings.some((x) => x.key === 'transformers_version'),
      false,
    );
    // 32 layers x cos and sin x 4096 positions x 128 x 2 B in the bf16 weights' dtype (weights.test.ts).
    assert.equal(rotary(e), 32 * 2 * 4096 * 128 * 2);
  });
});

describe("the default attention under a project's pins", () => {
  // A Trainer script that names no attention, with its requirements.txt pins (meta-math/MetaMath@fe667b1 pins
  // torch==2.0.1 and transformers>=4.34).
  const SCRIPT = [
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")',
    'Trainer(model=model, args=TrainingArguments(output_dir="o", bf16=True)).train()',
    '',
  ].join('\n');
  const attention = (requirements: string) => {
    const r = runFiles({ '/w/train.py': SCRIPT, '/w/requirements.txt': `${requirements}\n` }, '/w/train.py');
    const p = r.provenance.attention;
    return { attention: r.setup?.attention, note: p?.kind === 'default' ? (p.note ?? '') : '' };
  };

  it('is eager under a PyTorch before 2.1.1, for which transformers reports no SDPA (is_torch_sdpa_available)', () => {
    const a = attention('torch==2.0.1\ntransformers>=4.34');
    assert.equal(a.attention, 'eager');
    assert.match(a.note, /PyTorch 2\.0\.1 runs the eager attention/);
  });

  it('is eager under transformers before 4.36, and SDPA from torch 2.1.1 and transformers 4.36', () => {
    assert.equal(attention('transformers==4.35.2').attention, 'eager');
    assert.equal(attention('torch==2.1.1\ntransformers==4.36.0').attention, 'sdpa');
  });
});
