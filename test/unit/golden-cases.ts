// The profiled step cases of test/fixtures/peak/golden.json (tools/peak/measure_step.py) as estimator inputs, shared by
// the peak golden test and the full-output snapshot.
import type { TrainingSetupInput } from '../../src/core/setup';

export interface PeakCase {
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

/** The estimator input that describes a profiled case: its reference model, precision, batch and the trainer's pass. */
export function peakInput(c: PeakCase): TrainingSetupInput {
  return {
    // The reference models' config.json fields (tools/activations/measure.py make_cfg).
    architecture: { ...c.config, model_type: c.family },
    weights_dtype: c.dtype,
    mixed_precision: 'none',
    optimizer: 'adamw',
    gradient_accumulation_steps: c.accumulation ?? 1,
    micro_batch_size: c.onlineDpo || (c.preference && !c.kto) ? c.batch / 2 : c.batch,
    seq_len: c.seq,
    attention: c.attention,
    gradient_checkpointing: c.checkpointing === 'none' ? 'none' : 'full',
    cuda_context_bytes: 0,
    loss: c.loss ?? 'full',
    ...(c.lora
      ? {
          method: 'lora' as const,
          lora: { r: c.lora.r, target_modules: c.lora.targets, dtype: 'fp32' as const, use_dora: c.lora.dora === true },
        }
      : {}),
    // The measured reference is the policy's own weights without grad (TRL: the PEFT model with its adapters disabled).
    ...(c.completion
      ? {
          rollout: {
            batch: c.batch,
            completion_len: c.completion,
            engine: 'vllm-server' as const,
            ...(c.onlineDpo ? { objective: 'online-dpo' as const, reference: 'adapters-off' as const } : {}),
          },
        }
      : {}),
    ...(c.preference
      ? {
          preference: {
            reference: c.orpo || c.valueHead ? ('none' as const) : ('adapters-off' as const),
            logps: c.preference,
            chosen_nll: c.orpo === true || c.rpo === true,
            paired: c.kto !== true,
          },
          value_head: c.valueHead === true,
        }
      : {}),
    // tools/peak's TRL DPO replica is DPOTrainer.concatenated_forward, the pass before TRL 0.29's _compute_loss; its GRPO
    // replica takes no entropy of the completion logits (TRL < 0.20).
    ...(c.preference === 'rows' && !c.kto && !c.orpo && !c.rpo ? { trl_version: '0.28' } : {}),
    ...(c.completion && !c.onlineDpo ? { trl_version: '0.19' } : {}),
    ...(c.labelSmoothing ? { label_smoothing: true } : {}),
    // The reference MoE blocks loop over their experts as transformers 4.x does, or run them through grouped_mm as 5.x does.
    ...(c.balancedRouting ? { transformers_version: c.expertsImpl === 'grouped_mm' ? '5.2' : '4.57' } : {}),
    ...(c.distill
      ? {
          loss: 'chunked' as const,
          distillation: { teacher_architecture: { ...c.config, model_type: c.family }, loss: c.distill },
        }
      : {}),
    ...(c.ia3
      ? {
          method: 'ia3' as const,
          ia3: { target_modules: c.ia3.targets, feedforward_modules: c.ia3.feedforward, dtype: 'fp32' as const },
        }
      : {}),
  };
}
