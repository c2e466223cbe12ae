// The loss: logits, their fp32 upcast and the cross-entropy (full, chunked, fused) and the distillation JSD; the
// log-probabilities of preference and RL training in preference-logps.ts. Pure arithmetic; no I/O.
//
// Logits and cross-entropy. HF ForCausalLMLoss upcasts the logits to fp32 (logits.float()) before
// F.cross_entropy, whose log_softmax saves its fp32 output; in backward, nll_loss_backward and
// log_softmax_backward each produce an fp32 b x s x V gradient. With 128k-152k vocabularies this is often the
// largest single term. torchtune's CEWithChunkedOutputLoss upcasts chunk by chunk; Liger / Cut Cross-Entropy
// never materialise the logits.
// Docs: docs/estimate/loss-and-logits.md
import {
  dpoMetricsBytes,
  onlineDpoLogps,
  openrlhfActorLogps,
  preferenceLogps,
  trlWholeLogSoftmax,
  verlLogps,
} from './preference-logps';

export interface LossPlan {
  readonly tokens: number;
  readonly vocab: number;
  readonly logitsBytes: number;
  /**
   * Accelerate's convert_outputs_to_fp32 made the (fp32) logits from the model's 16-bit head output, these bytes per
   * logit, which exist beside the copy until it is made (logits-loss.ts trlLogitsBytes).
   */
  readonly convertedFrom?: number;
  readonly loss: 'full' | 'chunked' | 'chunked-linear' | 'fused' | 'chunked-nll';
  /** Hidden size: the fused linear cross-entropy sizes its token chunks by it. */
  readonly hidden?: number;
  /** With 'fused': Unsloth's chunked fused cross-entropy, its chunks sized by the logits' fp32 bytes (unslothChunkCount). */
  readonly unslothChunks?: boolean;
  /** Paired preference training with TRL's selective_log_softmax: the tokens of one sequence (a row). */
  readonly preferenceRowTokens?: number;
  /** verl's log-probabilities: flash-attn's cross-entropy over every token's logits (RolloutSchema logps 'verl'). */
  readonly verlLogps?: boolean;
  /**
   * OpenRLHF's Actor (setup.actor_logps): fp32 logits cast from the head's output, flash-attn's cross_entropy_loss
   * keeping them (preference-logps.ts openrlhfActorLogps).
   */
  readonly openrlhfActor?: boolean;
  /** With shiftedCopy: OpenRLHF's GPTLMLoss before 0.7 over its Actor's fp32 logits (setup.openrlhf_version). */
  readonly openrlhfGptLoss?: boolean;
  /** The training loop references the step's logits itself (setup.loop_keeps_outputs: previous-step.ts counts them). */
  readonly logitsHeldByLoop?: boolean;
  /** Autocast runs log_softmax in fp32. */
  readonly amp?: boolean;
  /**
   * With policyGradient: TRL >= 0.20's GRPO / RLOO training forward computes the entropy of the divided completion
   * logits without grad (trl/trainer/utils.py entropy_from_logits, 128 rows at a time: log_softmax, exp, product).
   */
  readonly rlEntropy?: boolean;
  /**
   * With policyGradient: TRL >= 1.7 keeps the model's `outputs`, so the undivided logits stay referenced to the end of
   * _get_per_token_logps_and_entropies (before: `model(...).logits`, freed once divided by the temperature).
   */
  readonly rlOutputsHeld?: boolean;
  /**
   * With preferenceRowTokens: TRL >= 0.29's DPOTrainer._compute_loss, whose metrics run at the end of the forward
   * (entropy over a copy of the logits, 128 rows at a time) while the policy's and the reference's logits are held;
   * no masked copies of half the logits for the mean logits (TRL < 0.29 concatenated_forward).
   */
  readonly dpoMetrics?: boolean;
  /**
   * GRPO's per-token log-probabilities (TRL _get_per_token_logps_and_entropies): the completion logits divided by the
   * temperature (a second tensor of their size), then selective_log_softmax row by row; no mean-logits copies.
   */
  readonly policyGradient?: boolean;
  /** Preference log-probabilities from one log_softmax in the logits' own dtype (torchtune get_batch_log_probs). */
  readonly nativeLogSoftmax?: boolean;
  /**
   * TRL before 0.15 (dpo_trainer.py concatenated_forward, the KTO trainer's likewise): `gather(logits.log_softmax(-1))`
   * over the whole batch in the logits' dtype, then masked copies of half the logits for the mean logits; 0.15
   * (huggingface/trl#2799) brought selective_log_softmax, row by row.
   */
  readonly trlWholeLogSoftmax?: boolean;
  /**
   * LLaMA-Factory's preference log-probabilities (train/dpo/trainer.py concatenated_forward, trainer_utils.py
   * get_batch_logps): the logits cast to fp32, logits[:, :-1, :] through one log_softmax; the fp32 logits stay
   * referenced for the metrics until the loss is computed.
   */
  readonly wholeLogSoftmax?: boolean;
  /** The policy's logits stay referenced while the reference runs its pass (preference.logits_kept). */
  readonly policyLogitsKept?: boolean;
  /** The HF Trainer's LabelSmoother instead of the model's own loss. */
  readonly labelSmoothing?: boolean;
  /** A value head scores the hidden states; the LM head's logits are computed (and cast to fp32) but unused. */
  readonly unusedLogits?: boolean;
  /**
   * With preferenceRowTokens: the chosen half's NLL beside the rows' log-probs, TRL ORPO / CPO's ('orpo': no reference,
   * no masked mean logits, the rows' backward first) or TRL DPO's with rpo_alpha ('dpo': after the rows, the NLL's
   * backward first, and the reference's pass computes it too).
   */
  readonly chosenNll?: 'orpo' | 'dpo';
  /**
   * Online DPO (TRL OnlineDPOTrainer._forward): the logits of every position exist (`tokens`), and one log_softmax runs
   * over the completion slice, this share of the tokens, in the logits' dtype (fp32 under autocast).
   */
  readonly completionShare?: number;
  /** Chunks of CEWithChunkedOutputLoss (torchtune uses 8). */
  readonly chunks: number;
  /**
   * 'chunked-nll': the 16-bit copy of the output head that autocast makes of fp32 head weights, saved by the chunk's
   * recomputed matmul in backward (V x h x 2 B; 0 without autocast or with 16-bit weights).
   */
  readonly headCastBytes?: number;
  /**
   * 'chunked-nll': bytes per element of the final norm's output, which _chunked_cross_entropy_loss packs
   * (hidden_states[mask]) and whose gradient each chunk's backward fills in a zero tensor of the packed size.
   */
  readonly packedHiddenBytes?: number;
  readonly softcap: boolean;
  /** torch.compile fuses the upcast, log-softmax and nll: it saves the logits and a per-row logsumexp. */
  readonly compile?: boolean;
  /**
   * transformers < 4.49 over more than one row: `logits[..., :-1, :].contiguous()`, an fp32 copy of the logits beside
   * the upcast at the cross-entropy call (terms/shifted-logits.ts).
   */
  readonly shiftedCopy?: boolean;
  /** transformers < 4.46: the model's forward upcasts the logits, and the 16-bit ones are freed before the loss. */
  readonly upcastInModel?: boolean;
  /**
   * The family's own loss on the 16-bit logits (GPT2LMHeadModel's, terms/shifted-logits.ts ownHalfLoss): the shifted
   * copy is 16-bit, and cross_entropy runs in fp32 under autocast (`amp`), in 16 bits without (`noUpcast`).
   */
  readonly ownHalfLoss?: boolean;
  /** The model hands a compiled full cross-entropy fp32 logits (setup.model_logits_fp32: torchtune's decoder). */
  readonly fp32FromModel?: boolean;
  /** The model's own cross-entropy in the logits' dtype, without autocast (Qwen-1, terms/shifted-logits.ts). */
  readonly noUpcast?: boolean;
  /** PyTorch < 1.11: log_softmax's backward also took its input, so the fp32 logits are saved next to its output. */
  readonly logSoftmaxSavesInput?: boolean;
  /** Knowledge distillation: a forward-KL loss against a teacher's logits, beside the cross-entropy. */
  readonly distill?: boolean;
  /** With distill: TRL GKD's generalized JSD (this beta) over the full logits, instead of the cross-entropy. */
  readonly jsdBeta?: number;
}

export interface LossMemory {
  /** Saved for backward at the end of forward (log-softmax output, logits kept by the caller). */
  readonly savedBytes: number;
  /** Live at the cross-entropy call in forward, beyond what stays saved. */
  readonly forwardTransientBytes: number;
  /** Live at the start of backward through the loss (gradients of logits), beyond what stays saved. */
  readonly backwardTransientBytes: number;
  readonly formula: string;
}

/**
 * TRL KTO's reference pass (kto_trainer.py get_batch_loss_metrics, forward): the policy's chosen and rejected logits,
 * taken by index (copies of all the completion logits), are kept for the metrics while the reference runs the same
 * forward without grad: the KL batch, then the completions, whose logits go row by row through log_softmax and are
 * then copied by index in turn. Profiled on the CPU: tools/peak/measure_step.py --trl-kto.
 */
export function ktoReferenceLogps(p: LossPlan): { bytes: number; formula: string } {
  const TV = p.tokens * p.vocab;
  const lb = p.logitsBytes;
  if (p.wholeLogSoftmax) {
    // LLaMA-Factory (train/kto/trainer.py): the policy's chosen and rejected fp32 logits (boolean-index copies) are kept
    // for the metrics; the reference's concatenated_forward holds its completions' fp32 logits while its KL batch runs
    // the same pass: fp32 logits, the slice's copy and the log_softmax. Profiled: tools/peak/measure_step.py --lf-kto.
    return {
      bytes: 20 * TV,
      formula:
        "the policy's chosen and rejected fp32 logits (index copies) 4·T·V; the reference's " +
        "completion fp32 logits 4·T·V beside its KL batch's fp32 logits, the slice's copy and the " +
        'log_softmax 3 x 4·T·V',
    };
  }
  const out = p.amp ? 4 : lb;
  const rows = lb === 4 || p.preferenceRowTokens === undefined ? 0 : 2 * out * p.preferenceRowTokens * p.vocab;
  return {
    bytes: 2 * lb * TV + Math.max(lb * TV, rows),
    formula:
      `the policy's chosen and rejected logits (index copies) ${lb}·T·V; the reference's ` +
      `completion logits ${lb}·T·V and their index ` +
      `copies ${lb}·T·V${rows > 0 ? " (or one row's log_softmax temporaries)" : ''}`,
  };
}

/**
 * The reference model's no-grad log-probabilities of the same batch: the logits and, with nothing kept for backward,
 * one row's log_softmax at a time (TRL), or one log_softmax over fp32 logits (LLaMA-Factory's get_batch_logps).
 */
export function referenceLogps(p: LossPlan): { bytes: number; formula: string } {
  const TV = p.tokens * p.vocab;
  const lb = p.logitsBytes;
  if (p.chosenNll === 'dpo') {
    // TRL DPO with rpo_alpha: the reference's concatenated_forward computes the chosen half's NLL too (its copy, fp32
    // cast under autocast and log_softmax, without grad), the largest of its temporaries beside its logits.
    const plain = referenceLogps({ ...p, chosenNll: undefined });
    const nll = (lb * TV) / 2 + (p.amp && lb < 4 ? 2 * TV : 0) + ((p.amp ? 4 : lb) * TV) / 2;
    const logits = lb * TV;
    return {
      bytes: Math.max(plain.bytes, logits + nll),
      formula: `${plain.formula}, or the logits ${lb}·T·V and the chosen half's NLL (its copy and log_softmax)`,
    };
  }
  if (p.dpoMetrics && p.preferenceRowTokens !== undefined && !p.policyGradient && p.loss !== 'fused') {
    // TRL >= 0.29 (dpo_trainer.py _compute_loss): the reference's logits (ref_outputs) stay referenced to the end of
    // the policy's forward, through its own log-probs and the metrics, beside the policy's held logits.
    const lb = p.logitsBytes;
    const rowTV = p.preferenceRowTokens * p.vocab;
    const { held, metrics } = dpoMetricsBytes(p, TV);
    const rows = lb === 4 ? 4 * rowTV : 2 * (p.amp ? 4 : lb) * rowTV;
    const converted = (p.convertedFrom ?? 0) * TV;
    return {
      bytes: held + lb * TV + Math.max(rows, converted, metrics),
      formula:
        `logits ${lb}·T·V held to the end of the forward${held > 0 ? ` beside the policy's ${lb}·T·V` : ''} + ` +
        `max(one row's log-probs temporaries, the metrics: the entropy's copy of the shifted logits ${lb}·T'·V ` +
        `and a 128-row chunk 3 x ${lb}·128·V)`,
    };
  }
  if (p.openrlhfActor) {
    const head = (p.convertedFrom ?? 0) * TV;
    return {
      bytes: head + 4 * TV,
      formula: `the head's output ${p.convertedFrom ?? 0}·T·V beside its fp32 cast 4·T·V (OpenRLHF's Actor); flash-attn's cross-entropy adds 12·T`,
    };
  }
  if (p.completionShare !== undefined) {
    const TcV = p.completionShare * TV;
    const slice = p.amp ? 4 : lb;
    return {
      bytes: lb * TV + 2 * slice * TcV,
      formula: `logits of every position ${lb}·T·V, the completion slice's ${p.amp ? 'fp32 ' : ''}copy and its log_softmax 2 x ${slice}·Tc·V`,
    };
  }
  if (p.loss === 'fused') {
    const f = lossMemory(p);
    return { bytes: f.savedBytes + f.forwardTransientBytes, formula: f.formula };
  }
  if (p.nativeLogSoftmax || p.trlWholeLogSoftmax)
    return { bytes: 2 * lb * TV, formula: `logits ${lb}·T·V and their log_softmax ${lb}·T·V` };
  if (p.wholeLogSoftmax) {
    // LLaMA-Factory get_batch_loss_metrics: the policy's fp32 logits are still referenced (chosen_logits /
    // rejected_logits, for the metrics) while the reference runs the same pass: its fp32 logits, the slice's copy and
    // the log_softmax. The DPO reference implementation and HALOs return log-probs only: the policy's logits are gone.
    const reference = "the reference's fp32 logits, the slice's copy and its log_softmax 3 x 4·T·V";
    if (p.policyLogitsKept === false) return { bytes: 12 * TV, formula: reference };
    return {
      bytes: 16 * TV,
      formula: `the policy's fp32 logits, still referenced for the metrics, 4·T·V; ${reference}`,
    };
  }
  if (p.preferenceRowTokens === undefined)
    return { bytes: 8 * TV, formula: 'fp32 logits 4·T·V and their log_softmax 4·T·V' };
  // The mean logits' masked copies are TRL's metric over kept logits (preferenceLogps).
  const meanLogits = p.policyLogitsKept !== false;
  if (lb === 4)
    return meanLogits
      ? { bytes: 6 * TV, formula: 'fp32 logits 4·T·V + masked half for the mean logits 2·T·V' }
      : { bytes: 4 * TV, formula: 'fp32 logits 4·T·V' };
  const out = p.amp ? 4 : lb;
  const rowTV = p.preferenceRowTokens * p.vocab;
  return {
    bytes: lb * TV + Math.max(2 * out * rowTV, meanLogits ? (lb * TV) / 2 : 0),
    formula: meanLogits
      ? `logits ${lb}·T·V + max(one row's ${out}-byte copy and log_softmax, masked half for the mean logits)`
      : `logits ${lb}·T·V + one row's ${out}-byte copy and log_softmax`,
  };
}

/** The tensors of a fused linear cross-entropy, in bytes (lossMemory's 'fused' term and the step replays' loss). */
export interface FusedLossSizes {
  /** The hidden states' gradient, T x h in the logits' dtype, made in the forward and kept for the backward. */
  readonly inputGrad: number;
  /** The fp32 loss of every token, kept for the backward. */
  readonly tokenLosses: number;
  /** Tokens in one chunk, and that chunk's logits (written over by their gradient in place). */
  readonly chunkTokens: number;
  readonly chunkLogits: number;
}

/**
 * Liger's fused linear cross-entropy (liger_kernel/ops/fused_linear_cross_entropy.py) computes the gradient during the
 * forward: it allocates the input's gradient (T x h, input dtype) and an fp32 loss per token, both kept for backward,
 * and runs the tokens in chunks of next_pow2(ceil(T / ceil(V / h))), so that one chunk's logits (written over by their
 * gradient in place) are about the size of the input. Cut Cross-Entropy (Apple cce, used by Unsloth and Axolotl's
 * plugin) keeps less: its logits never leave on-chip memory.
 */
export function fusedLossSizes(
  p: Pick<LossPlan, 'tokens' | 'vocab' | 'hidden' | 'logitsBytes' | 'unslothChunks'>,
): FusedLossSizes {
  const h = p.hidden ?? 4096;
  const lb = p.logitsBytes;
  const chunkTokens = p.unslothChunks
    ? Math.ceil(p.tokens / unslothChunkCount(p.tokens, p.vocab))
    : Math.min(p.tokens, 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(p.tokens / Math.ceil(p.vocab / h))))));
  return {
    inputGrad: p.tokens * h * lb,
    tokenLosses: 4 * p.tokens,
    chunkTokens,
    chunkLogits: chunkTokens * p.vocab * lb,
  };
}

export function lossMemory(p: LossPlan): LossMemory {
  if (p.distill && p.jsdBeta !== undefined) {
    if (p.loss !== 'fused') return jsdMemory(p, p.jsdBeta);
    // Liger's fused linear JSD (TRL GKD with use_liger_kernel) runs chunk by chunk like its fused cross-entropy: the
    // logits of the student and the teacher never exist whole.
    const f = crossEntropyMemory(p);
    return {
      ...f,
      forwardTransientBytes: 2 * f.forwardTransientBytes,
      formula: `fused linear JSD (Liger): ${f.formula}, for the student's and the teacher's chunk`,
    };
  }
  const ce = crossEntropyMemory(p);
  if (!p.distill) return ce;
  // torchtune ForwardKLLoss, chunk by chunk: softmax(teacher, fp32) is kept by the product with the student's
  // log-probabilities (which need a gradient), log_softmax(student, fp32) keeps its output, masked_fill keeps the bool
  // isinf mask: 9 B per logit until the backward. The teacher's logits (no grad, the model's dtype) are held from its
  // forward through the student's forward to the loss; at the last chunk's masked_fill its product and the filled
  // copy (2 x 4 B per logit of the chunk) exist beside them, where the cross-entropy's chunk upcast is gone. The
  // backward of each chunk: the product's and the log-softmax's gradients (2 x 4 B per logit of the chunk). Profiled
  // on the CPU: tools/peak/measure_step.py --torchtune-kd.
  const TV = p.tokens * p.vocab;
  const c = Math.max(1, p.chunks);
  const up = p.logitsBytes === 4 ? 0 : 4;
  const cc = chunkedLoss(p) ? c : 1; // the cross-entropy's and the KL's pieces: one chunk, or the whole logits
  return {
    savedBytes: ce.savedBytes + 9 * TV,
    forwardTransientBytes: ce.forwardTransientBytes - (up * TV) / cc + p.logitsBytes * TV + (Math.max(up, 8) * TV) / cc,
    backwardTransientBytes: ce.backwardTransientBytes + (8 * TV) / c,
    formula:
      `${ce.formula}; forward-KL distillation: teacher softmax 4·T·V + student log-softmax ` +
      `4·T·V + isinf mask 1·T·V kept, teacher logits ${p.logitsBytes}·T·V held to the loss, ` +
      `backward +8·T·V/${c}`,
  };
}

/**
 * TRL GKDTrainer.generalized_jsd_loss on the student's and the teacher's logits (no cross-entropy): both divided by
 * the temperature, log_softmax in fp32 (autocast), then for 0 < beta < 1 the mixture's logsumexp over the two stacked
 * log-probability tensors and two kl_div terms; beta 0 or 1 is one kl_div. Bytes per logit measured with the profiler
 * on the CPU (tools/peak/measure_jsd.py: the same for 16- and 32-bit logits except the two divided copies): kept for
 * backward 28 / 8 / 12 B (mixture / beta 0 / beta 1), forward high point 52 / 20 / 24 B + the divided copies, loss
 * backward 20 / 8 / 12 B above what is kept. The student's and the teacher's logits are held through the loss.
 */
function jsdMemory(p: LossPlan, beta: number): LossMemory {
  const TV = p.tokens * p.vocab;
  const lb = p.logitsBytes;
  const [kept, peak, back, what] =
    beta === 0
      ? [8, 20, 8, 'forward KL']
      : beta === 1
        ? [12, 24, 12, 'reverse KL']
        : [28, 52, 20, `mixture, beta ${beta}`];
  return {
    savedBytes: kept * TV,
    forwardTransientBytes: (peak - kept + 4 * lb) * TV,
    backwardTransientBytes: back * TV,
    formula:
      `GKD generalized JSD (${what}): ${kept}·T·V kept (fp32 ` +
      `log-probabilities${beta > 0 && beta < 1 ? ', their stack and the mixture' : ''}); forward ` +
      `+${peak - kept}·T·V temporaries + the student's and teacher's logits and their copies ` +
      `divided by the temperature 4 x ${lb}·T·V; backward +${back}·T·V`,
  };
}

/** Valid tokens per chunk of TRL SFTTrainer's chunked_nll (trl/trainer/sft_trainer.py _CHUNKED_LM_HEAD_CHUNK_SIZE). */
export const TRL_NLL_CHUNK_TOKENS = 256;

/**
 * The tensors of TRL chunked_nll alive at its last chunk's backward, in the order they are allocated: the packed
 * hidden states (`hidden_states[mask]`), the chunk's four fp32 chunk x V tensors (logits, log_softmax, its exp, the
 * entropy product), and the chunk slice's gradient, which slice_backward fills into zeros of the packed size (CPU
 * truth trl/llama-sft-full-amp: aten::zeros < slice_backward, 510 x 256 x 4 B at NllLossBackward0).
 */
export function chunkedNllTensors(p: LossPlan): number[] {
  const chunk = 4 * Math.min(TRL_NLL_CHUNK_TOKENS, p.tokens) * p.vocab;
  const packed = p.tokens * (p.hidden ?? 0) * (p.packedHiddenBytes ?? 0);
  return [packed, chunk, chunk, chunk, chunk, packed];
}

/**
 * TRL SFTTrainer's loss_type "chunked_nll" (trl/trainer/sft_trainer.py: _patch_chunked_ce_lm_head runs the decoder
 * without the head; _chunked_cross_entropy_loss packs the valid tokens and calls _chunk on 256 of them at a time under
 * torch.utils.checkpoint.checkpoint(use_reentrant=False)). _chunk computes the chunk's logits in the compute dtype and
 * upcasts them (`(h @ w.to(h.dtype).t()).float()`; the 16-bit product is freed once cast), log_softmax, the nll, the
 * argmax and the entropy `-(log_p.exp() * log_p).sum(-1)`: the fp32 logits, log_p, its exp and the product, four fp32
 * chunk x V tensors at once. The checkpoint keeps none of them (only the chunk's inputs), so no T x V tensor outlives a
 * chunk. In backward each chunk is recomputed (the same four tensors; the recomputed matmul keeps the head weight,
 * autocast's 16-bit copy of an fp32 head among them) before nll_loss and log_softmax's gradients (two more, after
 * three of the four are freed). Profiled on the CPU truth: trl/*-sft-* (the recompute's 4 x 4 x 256 x V at
 * NllLossBackward0, 16.8 MB over the held bytes at V 4096).
 */
function chunkedNll(p: LossPlan): LossMemory {
  const C = Math.min(TRL_NLL_CHUNK_TOKENS, p.tokens);
  // Beside the held packed hidden states: the chunk's four fp32 tensors, and the slice's gradient in zeros.
  const [, logits, logp, exp, product, sliceGrad] = chunkedNllTensors(p);
  const chunk = logits + logp + exp + product;
  const cast = p.headCastBytes ?? 0;
  const hb = p.packedHiddenBytes ?? 0;
  return {
    savedBytes: 0,
    forwardTransientBytes: chunk,
    backwardTransientBytes: chunk + cast + sliceGrad,
    formula:
      `TRL chunked_nll (${C}-token chunks under checkpointing): nothing of T x V kept; per chunk the fp32 logits, ` +
      `log_softmax, its exp and the entropy product 4 x 4·${C}·V, in forward and again in the chunk's recompute` +
      (cast > 0 ? " beside autocast's 16-bit copy of the fp32 head (V·h·2)" : '') +
      (sliceGrad > 0 ? `, and the chunk slice's gradient in zeros of the packed hidden states (T·h·${hb})` : ''),
  };
}

/**
 * transformers trainer_pt_utils.py LabelSmoother: compute_loss keeps the model's logits (outputs) while the smoother
 * makes logits[..., :-1, :].contiguous(), -log_softmax of it (the log_softmax output kept by its backward, the negation
 * by gather's) and an fp32 sum over the classes (a cast copy when the log-probs are 16-bit). Backward: the gather's
 * zero-filled gradient beside the sum's (cast back to 16 bits), then their sum. Profiled on the CPU:
 * tools/peak/measure_step.py --label-smoothing.
 */
function labelSmoothing(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  const out = p.amp ? 4 : lb;
  const sumCast = out < 4 ? 4 * TV : 0;
  const saved = 2 * out * TV;
  const forward = Math.max(2 * lb * TV + (p.amp ? 4 * TV : 0) + out * TV, 2 * lb * TV + saved + sumCast);
  return {
    savedBytes: saved,
    forwardTransientBytes: forward - saved,
    backwardTransientBytes: (out < 4 ? 2 : 1) * out * TV,
    formula:
      `label smoothing (LabelSmoother): log_softmax output and its negation 2 x ${out}·T·V ` +
      `kept; forward: the model's logits and their shifted copy 2 ` +
      `x ${lb}·T·V${sumCast > 0 ? " + the fp32 sum's cast 4·T·V" : ''}; backward: the gather's ` +
      `gradient${out < 4 ? " and the sum's" : ''} ${out < 4 ? 2 : 1} x ${out}·T·V`,
  };
}

/**
 * AutoModelForCausalLMWithValueHead.forward: lm_logits = base_model_output.logits, then .float(); both exist at the end
 * of the forward and are dropped unused, so nothing of their size is kept or has a gradient. Profiled on the CPU:
 * tools/peak/measure_step.py --lf-rm.
 */
function unusedLogits(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  return {
    savedBytes: 0,
    forwardTransientBytes: lb * TV + (lb < 4 ? 4 * TV : 0),
    backwardTransientBytes: 0,
    formula: `logits computed but unused (value head): ${lb}·T·V${lb < 4 ? ' and their fp32 copy 4·T·V' : ''} at the end of the forward; nothing kept`,
  };
}

/**
 * get_batch_logps: .to(float32) (the 16-bit logits freed once cast), then log_softmax over the non-contiguous
 * logits[:, :-1, :], whose kernel copies it; its output is kept for backward. Backward: the gather's and log_softmax's
 * gradients beside the kept output (the slices' zero-filled gradients come after, one at a time). Profiled on the CPU:
 * tools/peak/measure_step.py --lf-dpo.
 */
function wholeLogSoftmax(TV: number): LossMemory {
  return {
    savedBytes: 4 * TV,
    forwardTransientBytes: 8 * TV,
    backwardTransientBytes: 8 * TV,
    formula:
      'preference log-probs, one log_softmax over the fp32 logits: output 4·T·V kept; forward: ' +
      "the fp32 logits and the slice's copy 2 x 4·T·V; backward: gather and log_softmax " +
      'gradients 2 x 4·T·V',
  };
}

/** A fused linear cross-entropy (Liger, Cut Cross-Entropy): one chunk of logits at a time, the input gradient kept. */
/** The per-chunk budget of Unsloth's fused cross-entropy: min(half the free memory, 4 GiB), taken as 4 GiB. */
export const UNSLOTH_CHUNK_TARGET = 4 * 1024 ** 3;

/**
 * Unsloth's chunked fused cross-entropy (unsloth_zoo fused_losses/cross_entropy_loss.py get_chunk_size; unsloth's
 * llama.py runs it for every batch since 2025-10, above 1,024 tokens since 2025-08): one chunk where the fp32 logits
 * fit the budget, else their share of it rounded up to a multiple of 4. Each chunk's compiled step holds its 16-bit
 * logits at its high point, Inductor fusing the upcast, the cross-entropy and the gradient (tools/truth/
 * unsloth_fused_ce.py: 2.0 B per chunk logit compiled, 14 B eager, torch 2.13 on the CPU).
 */
export function unslothChunkCount(tokens: number, vocab: number): number {
  const exact = (tokens * vocab * 4) / UNSLOTH_CHUNK_TARGET;
  return exact <= 1 ? 1 : Math.ceil(exact / 4) * 4;
}

function fusedCrossEntropy(p: LossPlan): LossMemory {
  const f = fusedLossSizes(p);
  if (p.unslothChunks)
    return {
      savedBytes: f.inputGrad,
      forwardTransientBytes: f.chunkLogits,
      backwardTransientBytes: 0,
      formula:
        `Unsloth's fused cross-entropy: input gradient T·h·${p.logitsBytes} B kept; one chunk of ${f.chunkTokens} ` +
        `tokens x V x ${p.logitsBytes} B of logits (chunks: T·V·4 B over a 4 GiB budget, rounded up to a multiple ` +
        'of 4; one where they fit)',
    };
  return {
    savedBytes: f.inputGrad + f.tokenLosses,
    forwardTransientBytes: f.chunkLogits,
    backwardTransientBytes: 0,
    formula:
      `fused linear-cross-entropy: input gradient T·h·${p.logitsBytes} B + fp32 loss 4·T kept; one chunk ` +
      `of ${f.chunkTokens} tokens x V x ${p.logitsBytes} B of logits (chunk = next_pow2(T / ceil(V/h)))`,
  };
}

/**
 * Inductor fuses the .float() upcast, log-softmax and nll into reductions over the saved logits (forward) and one
 * pointwise kernel that writes the logits' gradient in their own dtype (backward): no fp32 T x V buffer exists. Where
 * the model upcasts the logits outside the compiled loss (torchtune's decoder), the loss keeps the fp32 logits and
 * writes their fp32 gradient beside them: 8·T·V at the backward's high point against 4·T·V for 16-bit logits upcast
 * inside (tools/truth/compiled_loss.py, torch 2.13 on the CPU).
 */
function compiledCrossEntropy(p: LossPlan, TV: number): LossMemory {
  const fromModel = p.fp32FromModel === true && p.loss === 'full' && p.logitsBytes < 4;
  const lb = fromModel ? 4 : p.logitsBytes;
  const c = chunkedLoss(p) ? Math.max(1, p.chunks) : 1;
  return {
    savedBytes: lb * TV + 4 * p.tokens,
    // The model's upcast: its 16-bit logits beside their fp32 copy until the copy is made.
    forwardTransientBytes: fromModel ? p.logitsBytes * TV : 0,
    backwardTransientBytes: (lb * TV) / c,
    formula: fromModel
      ? `compiled CE over the model's fp32 logits (upcast outside the compiled loss): saved logits 4·T·V + fp32 ` +
        `logsumexp 4·T; forward: the 16-bit logits ${p.logitsBytes}·T·V beside their upcast; backward: their fp32 ` +
        'gradient 4·T·V'
      : `compiled CE${c > 1 ? ` (${c} chunks)` : ''}: saved logits ${lb}·T·V + fp32 logsumexp ` +
        `4·T; backward: gradient ` +
        `of ${c > 1 ? 'one chunk' : 'the logits'} ${lb}·T·V${c > 1 ? `/${c}` : ''} (upcast fused)`,
  };
}

/**
 * Chunked cross-entropy. Saved: fp32 log-softmax of every chunk (4TV). Forward: 16-bit logits chunks (lb*TV) + one fp32
 * chunk copy. Backward: per chunk, nll grad + log_softmax grad (2 x 4TV/c). torchtune upcasts each chunk (`.float()`);
 * LitGPT's chunked_cross_entropy does not, but Lightning Fabric converts every output of the model to the default
 * dtype, fp32 (plugins/precision/half.py HalfPrecision.convert_output), so its chunks reach it in fp32 too.
 */
function chunkedCrossEntropy(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  const up = lb === 4 ? 0 : 4;
  const c = Math.max(1, p.chunks);
  const oldIn = p.logSoftmaxSavesInput ? 4 * TV : 0;
  // CEWithChunkedOutputLoss gets every chunk's logits from the model at once; LinearCrossEntropyLoss projects one chunk
  // at a time inside the loss, so only that chunk's logits exist (torchtune/modules/loss/cross_entropy_loss.py).
  const logits = p.loss === 'chunked-linear' ? (lb * TV) / c : lb * TV;
  const logitsText = p.loss === 'chunked-linear' ? `${lb}·T·V/${c} (one chunk's logits)` : `${lb}·T·V logits`;
  return {
    savedBytes: 4 * TV + oldIn,
    forwardTransientBytes: logits + (oldIn > 0 ? 0 : (up * TV) / c),
    backwardTransientBytes: (8 * TV) / c + (lb * TV) / c,
    formula:
      `chunked CE (${c} chunks): saved 4·T·V (fp32 ` +
      `log-softmax)${oldIn > 0 ? ' + 4·T·V (its fp32 input, PyTorch < 1.11)' : ''}; forward ` +
      `+${logitsText}${oldIn > 0 ? '' : ` +${up}·T·V/${c}`}; backward +8·T·V/${c}`,
  };
}

/** torchtune's chunked losses: the cross-entropy over one chunk of the tokens at a time. */
function chunkedLoss(p: Pick<LossPlan, 'loss'>): boolean {
  return p.loss === 'chunked' || p.loss === 'chunked-linear';
}

/**
 * The full cross-entropy over the fp32-upcast logits (HF ForCausalLMLoss), or a shifted copy of them, or in the logits'
 * own dtype. Gemma 2/3 soft-capping, tanh(logits / cap) * cap: tanh's backward keeps its output; the divisions and
 * products by a scalar keep nothing (profiled: tools/peak/measure_step.py --gemma2).
 */
function fullCrossEntropy(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  const up = lb === 4 ? 0 : 4; // the .float() copy exists only when logits are 16-bit
  const softcap = p.softcap ? lb * TV : 0;
  const oldIn = p.logSoftmaxSavesInput ? 4 * TV : 0;
  if (p.shiftedCopy) return shiftedCrossEntropy(p, TV, softcap, oldIn);
  if (p.noUpcast) {
    // log_softmax keeps its output in the logits' dtype; the logits themselves are freed once the model returns.
    return logSoftmaxInLogitsDtype(
      lb,
      TV,
      `full CE in the logits' dtype (no upcast): logits ${lb}·T·V, saved log-softmax ${lb}·T·V; backward nll grad ` +
        `+ log-softmax grad 2 x ${lb}·T·V`,
    );
  }
  return {
    savedBytes: 4 * TV + softcap + oldIn,
    forwardTransientBytes: lb * TV + (oldIn > 0 ? 0 : up * TV),
    backwardTransientBytes: 8 * TV,
    formula:
      `full CE: logits ${lb}·T·V, fp32 upcast ${up}·T·V, saved log-softmax ` +
      `4·T·V${oldIn > 0 ? ' and its fp32 input 4·T·V (PyTorch < 1.11)' : ''}; backward nll grad ` +
      `+ log-softmax grad 8·T·V`,
  };
}

/** The loss's memory by its kind: the log-probabilities a trainer takes, or the cross-entropy a loss kernel runs. */
function crossEntropyMemory(p: LossPlan): LossMemory {
  const TV = p.tokens * p.vocab;
  // OnlineDPOTrainer takes its log-probabilities from the model's logits whatever loss kernel the config names.
  if (p.completionShare !== undefined) return onlineDpoLogps(p, TV);
  if (p.labelSmoothing) return labelSmoothing(p, TV);
  if (p.unusedLogits) return unusedLogits(p, TV);
  if (p.wholeLogSoftmax && p.loss !== 'fused') return wholeLogSoftmax(TV);
  if (p.loss === 'chunked-nll') return chunkedNll(p);
  if (p.loss === 'fused') return fusedCrossEntropy(p);
  if (p.verlLogps) return verlLogps(p, TV);
  if (p.openrlhfActor) return openrlhfActorLogps(p, TV);
  if (p.preferenceRowTokens !== undefined) return preferenceLogps(p, TV);
  if (p.trlWholeLogSoftmax) return trlWholeLogSoftmax(p, TV);
  if (p.nativeLogSoftmax) {
    // torchtune rlhf.get_batch_log_probs: gather(logits.log_softmax(-1)) on the model's logits, no upcast.
    const lb = p.logitsBytes;
    return logSoftmaxInLogitsDtype(
      lb,
      TV,
      `preference log-probs, one log_softmax in the logits' dtype: output ${lb}·T·V kept; ` +
        `logits ${lb}·T·V; backward: gather and log_softmax gradients 2 x ${lb}·T·V`,
    );
  }
  if (p.compile) return compiledCrossEntropy(p, TV);
  if (chunkedLoss(p)) return chunkedCrossEntropy(p, TV);
  return fullCrossEntropy(p, TV);
}

/**
 * One log_softmax over the logits in their own dtype (no upcast): its output kept, the logits live at the call, and
 * two gradients of the logits' size in backward (the gather's or nll's, and log_softmax's).
 */
function logSoftmaxInLogitsDtype(lb: number, TV: number, formula: string): LossMemory {
  return { savedBytes: lb * TV, forwardTransientBytes: lb * TV, backwardTransientBytes: 2 * lb * TV, formula };
}

/**
 * The full cross-entropy of transformers < 4.49 over more than one row (terms/shifted-logits.ts): at the call, the
 * 16-bit logits (freed already where the model upcast them itself, before 4.46), the fp32 upcast and its shifted
 * contiguous copy; log_softmax keeps its output (and, before PyTorch 1.11, its input: the copy). The backward's
 * allocated high point is the full cross-entropy's (the nll and log-softmax gradients beside the kept output); the
 * whole-logits gradient SliceBackward builds afterwards is reserved in terms/logits-block.ts. Worked through for
 * LlamaForCausalLM 4.37-4.45 and ForCausalLMLoss 4.46-4.48.
 */
function shiftedCrossEntropy(p: LossPlan, TV: number, softcap: number, oldIn: number): LossMemory {
  if (p.ownHalfLoss) return ownHalfCrossEntropy(p, TV, softcap);
  const lb = p.logitsBytes;
  const up = lb === 4 ? 0 : 4;
  const held16 = p.upcastInModel && up > 0 ? 0 : lb;
  const atCall = (held16 + up + 4) * TV - oldIn;
  const whose = p.openrlhfGptLoss ? "OpenRLHF < 0.7 GPTLMLoss over the Actor's fp32 logits" : 'transformers < 4.49';
  return {
    savedBytes: 4 * TV + softcap + oldIn,
    forwardTransientBytes: Math.max((lb + up) * TV, atCall),
    backwardTransientBytes: 8 * TV,
    formula:
      `full CE, logits shifted (${whose}): ${held16 > 0 ? `logits ${lb}·T·V, ` : ''}` +
      `${up > 0 ? `fp32 upcast ${up}·T·V${p.upcastInModel ? ' (in the model, the 16-bit logits freed)' : ''}, ` : ''}` +
      `shifted contiguous copy 4·T·V, saved log-softmax 4·T·V` +
      `${oldIn > 0 ? ' and its input, the copy (PyTorch < 1.11)' : ''}; backward nll grad + log-softmax grad 8·T·V`,
  };
}

/**
 * A family's own loss before transformers moved it to ForCausalLMLoss (GPT2LMHeadModel's: terms/shifted-logits.ts
 * ownHalfLoss), over more than one row: at the call the 16-bit logits, their shifted contiguous 16-bit copy, and under
 * autocast its fp32 cast; log_softmax keeps its output, fp32 under autocast, 16-bit without, and the backward's nll and
 * log-softmax gradients are of that dtype.
 */
function ownHalfCrossEntropy(p: LossPlan, TV: number, softcap: number): LossMemory {
  const lb = p.logitsBytes;
  const ls = p.amp ? 4 : lb;
  const cast = p.amp ? 4 : 0;
  return {
    savedBytes: ls * TV + softcap,
    forwardTransientBytes: (lb + lb + cast) * TV,
    backwardTransientBytes: 2 * ls * TV,
    formula:
      `full CE in ${p.openrlhfGptLoss ? "OpenRLHF < 0.5.6 GPTLMLoss over the Actor's" : "the model's own code (no .float()):"} ` +
      `logits ${lb}·T·V, shifted contiguous copy ${lb}·T·V, ` +
      `${cast > 0 ? `autocast's fp32 cast ${cast}·T·V, ` : ''}saved log-softmax ${ls}·T·V; backward nll grad + ` +
      `log-softmax grad 2 x ${ls}·T·V`,
  };
}
