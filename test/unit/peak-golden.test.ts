// The step peak against ground truth: the most bytes PyTorch holds during one forward and backward pass (after a
// first full step, so the AdamW state exists), read from the profiler's allocation records on the CPU for small
// models of seven families (tools/peak/measure_step.py; data in test/fixtures/peak/golden.json). This checks the phases,
// not only the saved activations: the loss backward's logit gradients, when the head's gradient appears, the
// working set of a layer in backward. The estimator's peak allocated bytes must be within 3 % of every point.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { estimate } from '../../src/core/estimate';
import { TrainingSetupSchema, type TrainingSetupInput } from '../../src/core/setup';

interface PeakCase {
  family: string;
  config: Record<string, unknown> & { hidden_size: number; vocab_size: number };
  batch: number;
  seq: number;
  dtype: 'fp32' | 'bf16';
  attention: 'eager' | 'flash';
  checkpointing: 'none' | 'full_reentrant';
  lora: null | { r: number; targets: string[] | 'all-linear'; dora?: boolean };
  ia3?: null | { targets: string[]; feedforward: string[] };
  accumulation?: number;
  loss?: 'full' | 'chunked';
  /** GRPO's training pass: the trailing tokens whose log-probabilities are trained. */
  completion?: number;
  /** Online DPO's training pass: `batch` sequences, two completions per prompt, the reference run without grad. */
  onlineDpo?: boolean;
  /**
   * A DPO pass over `batch` sequences, chosen and rejected, with the reference without grad: LLaMA-Factory's ('whole': one
   * log_softmax over the fp32 logits) or TRL's ('rows': selective_log_softmax row by row).
   */
  preference?: 'whole' | 'rows' | 'native';
  /** TRL's ORPO pass: no reference; the chosen half's NLL beside the row-by-row log-probs. */
  orpo?: boolean;
  /** TRL's KTO pass: `batch` single completions and a KL batch, the reference without grad. */
  kto?: boolean;
  /** LLaMA-Factory's reward-model pass: a value head over the pairs, the LM logits computed unused. */
  valueHead?: boolean;
  /** The HF Trainer's LabelSmoother (label_smoothing_factor > 0). */
  labelSmoothing?: boolean;
  /** TRL's DPO pass with rpo_alpha: the chosen half's NLL beside the row-by-row log-probs. */
  rpo?: boolean;
  /** torchtune's knowledge distillation: a frozen teacher of the student's shape, the forward KL beside the chunked CE. */
  distill?: 'forward_kl';
  /** TRL SFTTrainer's pass: the model's loss, then its entropy and token-accuracy metrics without grad. */
  trlSft?: boolean;
  /** Tokens routed evenly over the experts (token t to experts (t·k + j) mod E), as the estimate assumes. */
  balancedRouting?: boolean;
  /** The experts through transformers 5's grouped_mm (a replica of integrations/moe.py), not a loop over them. */
  expertsImpl?: 'grouped_mm';
  peakBytes: number;
  peakAt: string;
}

const golden = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'peak', 'golden.json'), 'utf8')) as { cases: PeakCase[] };

function peakOf(c: PeakCase): { bytes: number; phase: string } {
  const input: TrainingSetupInput = {
    // The reference models' config.json fields (tools/activations/measure.py make_cfg).
    architecture: { ...c.config, model_type: c.family },
    weights_dtype: c.dtype, mixed_precision: 'none', optimizer: 'adamw', gradient_accumulation_steps: c.accumulation ?? 1, micro_batch_size: c.onlineDpo || (c.preference && !c.kto) ? c.batch / 2 : c.batch, seq_len: c.seq, attention: c.attention,
    gradient_checkpointing: c.checkpointing === 'none' ? 'none' : 'full', cuda_context_bytes: 0, loss: c.loss ?? 'full',
    ...(c.lora ? { method: 'lora' as const, lora: { r: c.lora.r, target_modules: c.lora.targets, dtype: 'fp32' as const, use_dora: c.lora.dora === true } } : {}),
    // The measured reference is the policy's own weights without grad (TRL: the PEFT model with its adapters disabled).
    ...(c.completion ? { rollout: { batch: c.batch, completion_len: c.completion, engine: 'vllm-server' as const, ...(c.onlineDpo ? { objective: 'online-dpo' as const, reference: 'adapters-off' as const } : {}) } } : {}),
    ...(c.preference ? { preference: { reference: c.orpo || c.valueHead ? 'none' as const : 'adapters-off' as const, logps: c.preference, chosen_nll: c.orpo === true || c.rpo === true, paired: c.kto !== true }, value_head: c.valueHead === true } : {}),
    ...(c.labelSmoothing ? { label_smoothing: true } : {}),
    // The reference MoE blocks loop over their experts as transformers 4.x does, or run them through grouped_mm as 5.x does.
    ...(c.balancedRouting ? { transformers_version: c.expertsImpl === 'grouped_mm' ? '5.2' : '4.57' } : {}),
    ...(c.distill ? { loss: 'chunked' as const, distillation: { teacher_architecture: { ...c.config, model_type: c.family }, loss: c.distill } } : {}),
    ...(c.ia3 ? { method: 'ia3' as const, ia3: { target_modules: c.ia3.targets, feedforward_modules: c.ia3.feedforward, dtype: 'fp32' as const } } : {}),
  };
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
    const name = `${c.family} ${c.dtype} ${c.attention} ${c.checkpointing}${c.lora ? (c.lora.dora ? ' DoRA' : ' LoRA') : c.ia3 ? ' IA3' : ''}${(c.accumulation ?? 1) > 1 ? ` accumulation ${c.accumulation}` : ''}${c.loss === 'chunked' ? ' chunked loss' : ''}${c.labelSmoothing ? ' label smoothing' : ''}${c.distill ? ' torchtune KD' : ''}${c.trlSft ? ' TRL SFT' : ''}${c.balancedRouting ? ` ${c.config.num_local_experts ?? c.config.num_experts ?? c.config.n_routed_experts} experts${c.expertsImpl ? ` (${c.expertsImpl})` : ' (loop)'}` : ''}${c.completion ? ` ${c.onlineDpo ? 'online DPO' : 'GRPO'} completion ${c.completion}` : ''}${c.preference ? (c.valueHead ? ' LLaMA-Factory reward model' : c.preference === 'whole' ? ' LLaMA-Factory DPO' : c.preference === 'native' ? ' torchtune DPO' : c.orpo ? ' TRL ORPO' : c.kto ? ' TRL KTO' : c.rpo ? ' TRL DPO rpo_alpha' : ' TRL DPO') : ''} b=${c.batch} s=${c.seq} h=${c.config.hidden_size} V=${c.config.vocab_size}: ${c.peakBytes.toLocaleString('en-US')} B at ${c.peakAt}`;
    it(name, () => {
      const got = peakOf(c);
      const err = (got.bytes - c.peakBytes) / c.peakBytes;
      assert.ok(Math.abs(err) <= 0.03, `estimate ${got.bytes} (${got.phase}) is ${(err * 100).toFixed(1)} % from ${c.peakBytes}`);
    });
  }
});

interface JsdCase { batch: number; seq: number; vocab: number; beta: number; dtype: 'bfloat16' | 'float32'; forwardPeakBytes: number; keptBytes: number; backwardPeakBytes: number }
const jsd = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'peak', 'jsd.json'), 'utf8')) as { cases: JsdCase[] };

describe('TRL GKD generalized JSD loss against the profiler ground truth (tools/peak/measure_jsd.py)', () => {
  const { lossMemory } = require('../../src/core/terms/activations') as typeof import('../../src/core/terms/activations');
  for (const c of jsd.cases) {
    it(`beta ${c.beta}, ${c.dtype} logits, ${c.batch} x ${c.seq} x ${c.vocab}: kept, forward and backward high points within 1 %`, () => {
      const lb = c.dtype === 'float32' ? 4 : 2;
      const TV = c.batch * c.seq * c.vocab;
      const m = lossMemory({ tokens: c.batch * c.seq, vocab: c.vocab, logitsBytes: lb, loss: 'full', chunks: 8, softcap: false, distill: true, jsdBeta: c.beta });
      const near = (got: number, want: number, what: string): void => assert.ok(Math.abs(got - want) / want <= 0.01, `${what}: ${got} vs ${want}`);
      near(m.savedBytes, c.keptBytes, 'kept for backward');
      // The measurement starts with both logit tensors allocated; the estimate counts them in the forward's temporaries.
      near(m.savedBytes + m.forwardTransientBytes - 2 * lb * TV, c.forwardPeakBytes, 'forward high point');
      near(m.backwardTransientBytes, c.backwardPeakBytes, 'backward high point above what is kept');
    });
  }
});
