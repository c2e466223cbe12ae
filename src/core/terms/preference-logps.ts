// The log-probabilities of preference and RL training (TRL's DPO, ORPO, KTO, online DPO; verl's actor) and of their
// reference passes: what each keeps of the logits, the step's high points around them. Pure arithmetic; no I/O.
// Docs: docs/estimate/loss-and-logits.md
import type { LossMemory, LossPlan } from './loss';

/**
 * TRL's per-token log-probabilities of a chosen + rejected batch (trl/trainer/utils.py selective_log_softmax, DPOTrainer
 * concatenated_forward). 16-bit logits go row by row through log_softmax, whose outputs (fp32 under autocast) are kept
 * for backward; fp32 logits take the logsumexp path, which keeps the logits themselves. The mean chosen / rejected
 * logits are taken over boolean-masked copies of half the logits. In backward each row's gradient goes through fp32
 * temporaries, and unbind's backward stacks the rows' gradients into one tensor of the logits' size.
 */
export function preferenceLogps(p: LossPlan, TV: number): LossMemory {
  if (p.chosenNll) return withChosenNll(p, TV, p.chosenNll);
  if (p.dpoMetrics && !p.policyGradient) return dpoComputeLoss(p, TV);
  const lb = p.logitsBytes;
  const rowTV = p.preferenceRowTokens! * p.vocab;
  // GRPO / RLOO (trl/trainer/grpo_trainer.py _get_per_token_logps_and_entropies): TRL >= 1.7 holds the undivided
  // logits through `outputs`; TRL >= 0.20 then takes the entropy of the divided logits (contiguous: reshape is a view)
  // 128 rows at a time without grad, three chunk tensors in the logits' dtype.
  const heldUndivided = p.policyGradient && p.rlOutputsHeld ? lb * TV : 0;
  const entropy = p.policyGradient && p.rlEntropy ? 3 * lb * Math.min(TRL_ENTROPY_CHUNK_ROWS, p.tokens) * p.vocab : 0;
  const rlFormula =
    (heldUndivided > 0 ? `; the undivided logits ${lb}·T·V held to the end (outputs, TRL >= 1.7)` : '') +
    (entropy > 0 ? `; the entropy's 128-row chunk: log_softmax, exp and product 3 x ${lb}·128·V (TRL >= 0.20)` : '');
  if (lb === 4 && p.policyGradient) {
    return {
      savedBytes: 4 * TV,
      forwardTransientBytes: Math.max(4 * TV, heldUndivided + 4 * rowTV, entropy > 0 ? heldUndivided + entropy : 0),
      backwardTransientBytes: 8 * TV,
      formula:
        'completion log-probs (fp32 logits, logsumexp path): logits divided by the temperature ' +
        '4·T·V kept; the undivided logits 4·T·V' +
        rlFormula +
        '; backward: gradients of the logits 8·T·V (T: completion tokens)',
    };
  }
  // TRL's mean chosen / rejected logits are taken over masked copies of half the kept logits; a trainer that keeps
  // only log-probabilities (preference.logits_kept false: align-anything's compute_log_probs) takes none.
  const meanLogits = p.policyLogitsKept !== false;
  if (lb === 4) {
    return {
      savedBytes: 4 * TV,
      forwardTransientBytes: meanLogits ? 2 * TV : 0,
      backwardTransientBytes: 8 * TV,
      formula:
        'preference log-probs (fp32 logits, logsumexp path): logits 4·T·V kept' +
        (meanLogits ? '; masked half for the mean logits 2·T·V' : '') +
        '; backward: gradients of the logits 8·T·V',
    };
  }
  const out = p.amp ? 4 : lb;
  // Backward: each row's saved output is freed once its log_softmax backward has run, while its gradient (in the logits'
  // dtype) waits for unbind's backward to stack them all: the saved outputs plus one row's temporaries at the start,
  // the rows' gradients and their stack at the end (tools/peak: GRPO cases within 3 % of the profiler's peak).
  const backward = Math.max(2 * out * rowTV, 2 * lb * TV - out * TV);
  const backwardFormula = `backward: max(one row's gradients ${2 * out}·s·V beside the kept outputs, the rows' gradients and their stack 2 x ${lb}·T·V)`;
  if (p.policyGradient) {
    return {
      savedBytes: out * TV,
      // Before TRL 1.7 the undivided logits are freed once divided, before any row's output exists.
      forwardTransientBytes: Math.max(
        2 * lb * TV - out * TV,
        lb * TV + heldUndivided + (p.amp ? 4 * rowTV : 0),
        entropy > 0 ? lb * TV + heldUndivided + entropy : 0,
      ),
      backwardTransientBytes: backward,
      formula:
        `completion log-probs row by row: log_softmax outputs ${out}·T·V kept; forward: max(the ` +
        `logits and their copy divided by the temperature 2 x ${lb}·T·V, the divided ` +
        `logits ${lb}·T·V${p.amp ? " + one row's fp32 copy" : ''} beside the kept ` +
        `outputs)${rlFormula}; ${backwardFormula} (T: completion tokens)`,
    };
  }
  return {
    savedBytes: out * TV,
    forwardTransientBytes: lb * TV + Math.max(p.amp ? 4 * rowTV : 0, meanLogits ? (lb * TV) / 2 : 0),
    backwardTransientBytes: backward,
    formula:
      `preference log-probs row by row: log_softmax outputs ${out}·T·V kept; logits ${lb}·T·V` +
      (meanLogits
        ? " + max(one row's fp32 copy, masked half for the mean logits)"
        : p.amp
          ? " + one row's fp32 copy"
          : '') +
      `; ${backwardFormula}`,
  };
}

/**
 * verl's dp_actor (volcengine/verl@b178a3c:verl/workers/actor/dp_actor.py _forward_micro_batch): the logits of every
 * token, divided in place by the temperature (logits.div_), go through flash-attn's cross_entropy_loss
 * (verl/utils/torch_functional.py logprobs_from_logits, inplace_backward=True), which keeps them with an fp32 loss and
 * logsumexp per token, and in backward writes the logits' gradient over them: no T x V tensor beyond the logits.
 */
export function verlLogps(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  return {
    savedBytes: lb * TV + 8 * p.tokens,
    forwardTransientBytes: 0,
    backwardTransientBytes: 0,
    formula:
      `log-probs of every token (verl, flash-attn cross_entropy_loss): the logits ${lb}·T·V, divided in place by ` +
      'the temperature, kept with an fp32 loss and logsumexp 8·T; backward writes their gradient in place (T: prompt + ' +
      'response tokens)',
  };
}

/**
 * OpenRLHF's Actor (openrlhf/models/actor.py forward, models/utils.py log_probs_from_logits): the head's 16-bit output
 * is cast to fp32 (both exist at the cast), and flash-attn's triton cross_entropy_loss keeps the fp32 logits, its loss
 * and logsumexp (8·T) for backward; its backward writes the logits' gradient into a new fp32 tensor (inplace_backward
 * off), and the cast's backward makes the 16-bit gradient beside it. Where the loop itself holds the logits (SFT's
 * `output`, logitsHeldByLoop), previous-step.ts counts them through the backward: here they are live at the forward
 * only.
 */
export function openrlhfActorLogps(p: LossPlan, TV: number): LossMemory {
  const head = (p.convertedFrom ?? 0) * TV;
  const kept = p.logitsHeldByLoop ? 0 : 4 * TV;
  return {
    savedBytes: kept + 8 * p.tokens,
    forwardTransientBytes: head + (p.logitsHeldByLoop ? 4 * TV : 0),
    backwardTransientBytes: 4 * TV + head,
    formula:
      `log-probs by OpenRLHF's Actor: the head's output ${p.convertedFrom ?? 0}·T·V cast to fp32 logits 4·T·V, ` +
      `${p.logitsHeldByLoop ? 'held by the loop' : 'kept'} for flash-attn's cross_entropy_loss with its loss and ` +
      `logsumexp 8·T; backward: the logits' gradient 4·T·V and the cast's ${p.convertedFrom ?? 0}·T·V`,
  };
}

/** Rows of the logits per chunk of TRL's entropy_from_logits (trl/trainer/utils.py, chunk_size 128). */
export const TRL_ENTROPY_CHUNK_ROWS = 128;

/**
 * What TRL >= 0.29's DPOTrainer._compute_loss holds at the end of the policy's forward beside what selective_log_softmax
 * keeps (trl/trainer/dpo_trainer.py): the metrics run after the loss, while `outputs` / `shift_logits` (and the
 * reference's `ref_outputs`) are still referenced. entropy_from_logits(shift_logits.detach()) (trl/trainer/utils.py)
 * reshapes the non-contiguous logits[..., :-1, :] to rows, which copies them (lb·T'·V, T' = the sequences' tokens
 * less one each), then takes 128 rows at a time through log_softmax, exp and their product (3 x lb·128·V); the mean
 * chosen / rejected logits follow, over boolean-index copies of one half's completion rows, once the copy is freed.
 * `held`: the logits referenced beside what is kept for backward (the 16-bit rows path keeps the log_softmax outputs,
 * not the logits; the fp32 logsumexp path keeps the logits themselves).
 */
export function dpoMetricsBytes(p: LossPlan, TV: number): { held: number; metrics: number } {
  const lb = p.logitsBytes;
  const S = p.preferenceRowTokens!;
  const shifted = (TV * (S - 1)) / S; // T'·V
  const rows = Math.min(TRL_ENTROPY_CHUNK_ROWS, (p.tokens * (S - 1)) / S);
  return { held: lb === 4 ? 0 : lb * TV, metrics: lb * shifted + 3 * lb * rows * p.vocab };
}

/**
 * TRL >= 0.29 DPO (trl/trainer/dpo_trainer.py _compute_loss): selective_log_softmax over the policy's logits (fp32
 * under Accelerate's native AMP: the logsumexp path keeps them; 16-bit: row by row, the outputs kept), then the
 * reference's pass (referenceLogps) and the metrics (dpoMetricsBytes). The backward is the rows' as before.
 * Profiled on the CPU truth trl/*-dpo-* (TRL 1.13): the forward peaks at the entropy's last chunk with the reference's
 * fp32 logits held, 8·T·V + 4·T'·V + 12·128·V over the activations.
 */
function dpoComputeLoss(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  const rowTV = p.preferenceRowTokens! * p.vocab;
  const { held, metrics } = dpoMetricsBytes(p, TV);
  const rows = preferenceLogps({ ...p, dpoMetrics: false }, TV);
  // The rows' own temporaries: fp32, one row's logsumexp; 16-bit, one row's fp32 copy under autocast beside the logits.
  const rowTemps = lb === 4 ? 4 * rowTV : p.amp ? 4 * rowTV : 0;
  const converted = (p.convertedFrom ?? 0) * TV;
  const kept =
    lb === 4
      ? 'fp32 logits, logsumexp path: logits 4·T·V kept'
      : `row by row: outputs ${rows.savedBytes / TV}·T·V kept, logits ${lb}·T·V held`;
  return {
    savedBytes: rows.savedBytes,
    forwardTransientBytes: held + Math.max(rowTemps, metrics, converted),
    backwardTransientBytes: rows.backwardTransientBytes,
    formula:
      `preference log-probs (TRL >= 0.29 _compute_loss; ${kept}); ` +
      `metrics: the entropy's copy of the shifted logits ${lb}·T'·V and one 128-row chunk's log_softmax, exp and ` +
      `product 3 x ${lb}·128·V; ${rows.formula.replace(/^.*?backward/, 'backward')}`,
  };
}

/**
 * Online DPO's log-probabilities (trl/trainer/online_dpo_trainer.py _forward): the model's logits of every position
 * (T·V, freed when _forward returns), logits[:, prompt_len - 1:-1].log_softmax(-1) over the completion slice (Tc·V, in the
 * logits' dtype, fp32 under autocast), then take_along_dim. The slice is not contiguous: log_softmax's kernel copies it
 * (autocast's fp32 cast is that copy). log_softmax keeps its output for backward; the slice and the gather keep nothing
 * of that size. Backward: take_along_dim's gradient and log_softmax's (2 x Tc·V) beside the kept output; then, the kept
 * output freed, `logits[:, a:b]` unwinds two recorded slices (the batch dimension's full `:` is a slice op too): each
 * SliceBackward fills a zero gradient of all the logits, the second while the first is copied into it (2 x T·V).
 * Profiled on the CPU (tools/peak/measure_step.py --online-dpo: within 1 %).
 */
export function onlineDpoLogps(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  const out = p.amp ? 4 : lb;
  const TcV = p.completionShare! * TV;
  return {
    savedBytes: out * TcV,
    forwardTransientBytes: lb * TV + (p.amp ? 4 : lb) * TcV,
    backwardTransientBytes: Math.max(2 * out * TcV, 2 * lb * TV - out * TcV),
    formula:
      `completion log-probs, one log_softmax over the completion slice: output ${out}·Tc·V ` +
      `kept; forward: logits of every position ${lb}·T·V + the ` +
      `slice's ${p.amp ? 'fp32 ' : ''}copy ${p.amp ? 4 : lb}·Tc·V; backward: max(gather and ` +
      `log_softmax gradients 2 x ${out}·Tc·V, two slices' zero-filled gradients of all the ` +
      `logits 2 x ${lb}·T·V once the kept output is freed) (Tc ` +
      `= ${+p.completionShare!.toFixed(3)} x T completion tokens)`,
  };
}

/**
 * TRL ORPO / CPO (orpo_trainer.py, cpo_trainer.py concatenated_forward): nn.CrossEntropyLoss over the chosen half's
 * logits[..., :-1, :].contiguous() (its log_softmax output kept, in fp32 under autocast), then the rows' log-probs over
 * all the logits without the DPO trainer's masked mean logits. In backward the rows run first: their gradient of all the
 * logits waits in autograd's input buffer while the NLL's log_softmax backward runs, and then its zero-filled gradient of
 * all the logits is added to it (three of them at once). Profiled on the CPU: tools/peak/measure_step.py --trl-orpo.
 */
function withChosenNll(p: LossPlan, TV: number, kind: 'orpo' | 'dpo'): LossMemory {
  const lb = p.logitsBytes;
  const rows = preferenceLogps({ ...p, chosenNll: undefined }, TV);
  const half = ((p.amp ? 4 : lb) * TV) / 2; // the chosen half's log_softmax output
  const copy = (lb * TV) / 2 + (p.amp && lb < 4 ? (4 * TV) / 2 : 0); // its contiguous copy (and autocast's fp32 cast)
  const rowTV = p.preferenceRowTokens! * p.vocab;
  // ORPO's rows run without the masked copies of DPO's mean logits: 16-bit logits (and one row's fp32 copy under
  // autocast) beside the outputs; fp32 logits are what the logsumexp path keeps.
  const rowsForward = kind === 'dpo' ? rows.forwardTransientBytes : lb === 4 ? 0 : lb * TV + (p.amp ? 4 * rowTV : 0);
  const saved = rows.savedBytes + half;
  // At the NLL's log_softmax: the logits (fp32 ones are what the rows keep), DPO's rows' outputs (its NLL comes after
  // them; ORPO's before), the half's copy and its output.
  const atNll = (lb === 4 ? rows.savedBytes : lb * TV + (kind === 'dpo' ? rows.savedBytes : 0)) + copy + half;
  const forward = Math.max(atNll, rows.savedBytes + half + rowsForward);
  // ORPO: the rows' backward runs first, then the NLL's beside the rows' gradient of the logits, then their sum. DPO:
  // the NLL's backward first (its gradients beside everything kept, then its zero-filled gradient of all the logits),
  // then the rows' beside that gradient, then their sum.
  const backward =
    kind === 'orpo'
      ? Math.max(rows.savedBytes + half + rows.backwardTransientBytes, lb * TV + 3 * half, 3 * lb * TV)
      : Math.max(
          saved + 2 * half,
          rows.savedBytes + half + lb * TV,
          rows.savedBytes + lb * TV + rows.backwardTransientBytes,
          3 * lb * TV,
        );
  return {
    savedBytes: saved,
    forwardTransientBytes: forward - saved,
    backwardTransientBytes: backward - saved,
    formula:
      `preference log-probs row by row (${rows.savedBytes / TV}·T·V kept) and the chosen half's ` +
      `NLL: its log_softmax ${(2 * half) / TV}·T·V/2 kept, its contiguous ` +
      `copy${p.amp ? ' and fp32 cast' : ''} in forward; backward: the rows' and the NLL's ` +
      `gradients of all the logits and their sum 3 x ${lb}·T·V`,
  };
}

/**
 * TRL before 0.15 (DPOTrainer / KTOTrainer get_batch_logps): one log_softmax over the whole batch's logits in their
 * dtype, its output kept for the gather's backward; the logits stay referenced through the model's outputs while the
 * mean chosen / rejected logits take masked copies of half of them, one at a time. Backward: the gather's
 * zero-filled gradient and log_softmax's, each of the logits' size.
 */
export function trlWholeLogSoftmax(p: LossPlan, TV: number): LossMemory {
  const lb = p.logitsBytes;
  return {
    savedBytes: lb * TV,
    forwardTransientBytes: lb * TV + (lb * TV) / 2,
    backwardTransientBytes: 2 * lb * TV,
    formula:
      `preference log-probs, one log_softmax over the batch (TRL < 0.15): output ${lb}·T·V kept; logits ` +
      `${lb}·T·V and a masked half for the mean logits ${lb}·T·V / 2; backward: gather and log_softmax ` +
      `gradients 2 x ${lb}·T·V`,
  };
}
