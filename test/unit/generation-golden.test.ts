// GRPO's generation phase against ground truth: the most bytes PyTorch holds while a small Llama-like model generates a
// round of completions with a growing KV cache (tools/peak/measure_generation.py: transformers' generate() loop with a
// DynamicCache, read from the profiler's allocation records on the CPU; data in test/fixtures/peak/generation.json).
// The loop attends like SDPA with the prompts' padding mask: by blocks in the prefill, with the key and value heads
// repeated for grouped-query attention (transformers repeat_kv). The estimator's generation phase must be within 5 %.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { estimate } from '../../src/core/estimate';
import { TrainingSetupSchema } from '../../src/core/setup';

interface GenerationCase {
  config: Record<string, unknown>;
  dtype: 'fp32' | 'bf16';
  completions: number;
  prompt: number;
  completion: number;
  peakBytes: number;
  peakAt: string;
}

const golden = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'peak', 'generation.json'), 'utf8'),
) as { cases: GenerationCase[] };

describe('GRPO generation phase against the profiler ground truth (tools/peak)', () => {
  assert.ok(golden.cases.length >= 3);
  for (const c of golden.cases) {
    it(`${c.dtype} ${c.completions} completions x (${c.prompt} + ${c.completion}) tokens: ${c.peakBytes.toLocaleString('en-US')} B at ${c.peakAt}`, () => {
      const setup = TrainingSetupSchema.parse({
        architecture: { ...c.config, model_type: 'llama' },
        weights_dtype: c.dtype,
        mixed_precision: 'none',
        optimizer: 'adamw',
        attention: 'sdpa',
        micro_batch_size: 1,
        seq_len: c.prompt + c.completion,
        cuda_context_bytes: 0,
        rollout: { batch: c.completions, completion_len: c.completion, engine: 'generate' },
      });
      const r = estimate(setup);
      assert.ok(r.ok);
      const gen = r.estimate.perGpu.phases.find((p) => p.phase === 'generation');
      assert.ok(gen);
      const err = (gen.allocatedBytes - c.peakBytes) / c.peakBytes;
      assert.ok(
        Math.abs(err) <= 0.05,
        `estimate ${gen.allocatedBytes} is ${(err * 100).toFixed(1)} % from ${c.peakBytes}: ${gen.components.map((x) => `${x.label} ${x.bytes}`).join('; ')}`,
      );
    });
  }
});
