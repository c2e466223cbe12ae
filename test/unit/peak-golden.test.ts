// The step peak against ground truth: the most bytes PyTorch holds during one forward and backward pass (after a
// first full step, so the AdamW state exists), read from the profiler's allocation records on the CPU for small
// models of seven families (tools/peak/measure_step.py; data in test/fixtures/peak/golden.json). This checks the phases,
// not only the saved activations: the loss backward's logit gradients, when the head's gradient appears, the
// working set of a layer in backward. The estimator's peak allocated bytes must be within 3 % of every point.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { estimate } from '../../src/core/estimate';
import { TrainingSetupSchema } from '../../src/core/setup';
import { peakInput, type PeakCase } from './golden-cases';

const golden = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'peak', 'golden.json'), 'utf8'),
) as { cases: PeakCase[] };

function peakOf(c: PeakCase): { bytes: number; phase: string } {
  const input = peakInput(c);
  const r = estimate(TrainingSetupSchema.parse(input));
  assert.ok(r.ok);
  // The measured pass ends before the optimizer step (PyTorch 1.13's foreach AdamW keeps one more temporary than 2.x).
  const phases = r.estimate.perGpu.phases.filter((p) => p.phase !== 'optimizer');
  const top = phases.reduce((m, p) => (p.allocatedBytes > m.allocatedBytes ? p : m));
  return { bytes: top.allocatedBytes, phase: top.note };
}

describe('step peak against the profiler ground truth (tools/peak)', () => {
  assert.ok(golden.cases.length >= 10);
  for (const c of golden.cases) {
    const name =
      `${c.family} ${c.dtype} ${c.attention} ${c.checkpointing}` +
      `${c.lora ? (c.lora.dora ? ' DoRA' : ' LoRA') : c.ia3 ? ' IA3' : ''}` +
      `${(c.accumulation ?? 1) > 1 ? ` accumulation ${c.accumulation}` : ''}` +
      `${c.loss === 'chunked' ? ' chunked loss' : ''}${c.labelSmoothing ? ' label smoothing' : ''}` +
      `${c.distill ? ' torchtune KD' : ''}${c.trlSft ? ' TRL SFT' : ''}` +
      `${
        c.balancedRouting
          ? ` ${c.config.num_local_experts ?? c.config.num_experts ?? c.config.n_routed_experts} experts` +
            `${c.expertsImpl ? ` (${c.expertsImpl})` : ' (loop)'}`
          : ''
      }` +
      `${c.completion ? ` ${c.onlineDpo ? 'online DPO' : 'GRPO'} completion ${c.completion}` : ''}` +
      `${
        c.preference
          ? c.valueHead
            ? ' LLaMA-Factory reward model'
            : c.preference === 'whole'
              ? ' LLaMA-Factory DPO'
              : c.preference === 'native'
                ? ' torchtune DPO'
                : c.orpo
                  ? ' TRL ORPO'
                  : c.kto
                    ? ' TRL KTO'
                    : c.rpo
                      ? ' TRL DPO rpo_alpha'
                      : ' TRL DPO'
          : ''
      }` +
      ` b=${c.batch} s=${c.seq} h=${c.config.hidden_size} V=${c.config.vocab_size}: ` +
      `${c.peakBytes.toLocaleString('en-US')} B at ${c.peakAt}`;
    it(name, () => {
      const got = peakOf(c);
      const err = (got.bytes - c.peakBytes) / c.peakBytes;
      assert.ok(
        Math.abs(err) <= 0.03,
        `estimate ${got.bytes} (${got.phase}) is ${(err * 100).toFixed(1)} % from ${c.peakBytes}`,
      );
    });
  }
});

interface JsdCase {
  batch: number;
  seq: number;
  vocab: number;
  beta: number;
  dtype: 'bfloat16' | 'float32';
  forwardPeakBytes: number;
  keptBytes: number;
  backwardPeakBytes: number;
}
const jsd = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'peak', 'jsd.json'), 'utf8'),
) as { cases: JsdCase[] };

describe('TRL GKD generalized JSD loss against the profiler ground truth (tools/peak/measure_jsd.py)', () => {
  const { lossMemory } =
    require('../../src/core/terms/activations') as typeof import('../../src/core/terms/activations');
  for (const c of jsd.cases) {
    it(`beta ${c.beta}, ${c.dtype} logits, ${c.batch} x ${c.seq} x ${c.vocab}: kept, forward and backward high points within 1 %`, () => {
      const lb = c.dtype === 'float32' ? 4 : 2;
      const TV = c.batch * c.seq * c.vocab;
      const m = lossMemory({
        tokens: c.batch * c.seq,
        vocab: c.vocab,
        logitsBytes: lb,
        loss: 'full',
        chunks: 8,
        softcap: false,
        distill: true,
        jsdBeta: c.beta,
      });
      const near = (got: number, want: number, what: string): void =>
        assert.ok(Math.abs(got - want) / want <= 0.01, `${what}: ${got} vs ${want}`);
      near(m.savedBytes, c.keptBytes, 'kept for backward');
      // The measurement starts with both logit tensors allocated; the estimate counts them in the forward's temporaries.
      near(m.savedBytes + m.forwardTransientBytes - 2 * lb * TV, c.forwardPeakBytes, 'forward high point');
      near(m.backwardTransientBytes, c.backwardPeakBytes, 'backward high point above what is kept');
    });
  }
});
