// Term: evaluation during training (a single pipeline stage): a no-grad forward at the eval batch after an optimizer
// step. Nothing is kept for backward; the high point is the larger of one layer's intermediates (noGradLayerBytes)
// and the loss call's logits, fp32 upcast and log-softmax at the eval batch (HF Trainer prediction_step computes the
// loss), or, where the evaluation only generates (eval_generation), the prefill and decoding steps beside the KV cache
// (terms/generation.ts). Gradients stay allocated only when zero_grad keeps them. Docs: docs/estimate/evaluation.md.
// Pure arithmetic.
import type { Component } from '../model';
import { sequencesPerExample } from '../setup';
import { sum } from '../estimate/component';
import { zero3GradientBuffer } from './gradients';
import type { EstimateContext, StageContext } from '../estimate/context';
import { decodeTails } from './generation';
import { layerActivations, noGradLayerBytes, type ActivationPlan } from './activations';
import { lossAt } from './logits-loss';
import { decoderLength } from './activations/encoder-decoder';
import { isEncoderDecoder } from '../architecture';

/** What the evaluation phase holds besides the persistent components; evalBatch undefined: no evaluation phase. */
export interface EvaluationWork {
  readonly evalBatch: number | undefined;
  readonly evalLossBytes: number;
  readonly evalLayerBytes: number;
  readonly evalLossFormula: string;
  /** Gradients not freed by zero_grad(set_to_none=False). */
  readonly gradsKeptInEval: number;
  /** A generating evaluation's high point (its bytes are evalLayerBytes): the prefill's or a decoding step's. */
  readonly generation?: readonly Component[];
}

/**
 * Evaluation during training (a single pipeline stage): a no-grad forward at the eval batch after an optimizer
 * step. Nothing is kept for backward, but the largest intermediates of one layer, or the logits, their fp32 upcast
 * and the log-softmax at the loss call, exist at the eval batch (HF Trainer prediction_step computes the loss).
 */
export function evaluationWork(
  ctx: EstimateContext,
  st: StageContext,
  layerPlan: ActivationPlan,
  gradStored: number,
): EvaluationWork {
  const setup = ctx.setup;
  const { arch: a, lmHead } = ctx.model;
  const { tensorParallel: tp, pipelineParallel: pp } = ctx.layout;
  const { computeBytes: cb, attention, residualBytes } = ctx.dtypes;
  const { rollout, onlineDpo } = ctx.methods;
  const evalBatch = setup.eval_batch_size !== undefined && pp === 1 ? setup.eval_batch_size : undefined;
  // Split over the context-parallel group as training is (setup.eval_sequence_split), each GPU runs its share.
  const seq = setup.eval_sequence_split ? setup.seq_len / ctx.layout.contextParallel : setup.seq_len;
  let evalLossBytes = 0;
  let evalLayerBytes = 0;
  let evalLossFormula = '';
  if (evalBatch !== undefined) {
    if (isEncoderDecoder(a)) {
      const evalLayer = layerActivations({ ...layerPlan, batch: evalBatch });
      evalLayerBytes = evalLayer.backwardWorkingBytes / 2 + 2 * evalLayer.layerInputBytes;
    } else {
      evalLayerBytes = noGradLayerBytes(
        a,
        evalBatch * sequencesPerExample(setup) * seq,
        seq,
        cb,
        attention,
        tp,
        residualBytes,
      );
    }
    if (lmHead) {
      // The logits are the decoder's: an encoder-decoder's target_len positions (T5, BART), else the sequence's.
      // A policy-gradient run's evaluation scores the completions only (TRL's logits_to_keep).
      const logitPositions = rollout && !onlineDpo ? rollout.completion_len : (decoderLength(ctx) ?? seq);
      const tokens = evalBatch * sequencesPerExample(setup) * logitPositions;
      const lm = lossAt(ctx, tokens, false);
      evalLossBytes = lm.savedBytes + lm.forwardTransientBytes;
      const perTV = evalLossBytes / (tokens * (a.vocab / tp));
      const over =
        logitPositions === setup.seq_len
          ? ''
          : logitPositions === seq
            ? ` over each GPU's ${seq} positions of a row (split over ${ctx.layout.contextParallel})`
            : ` over ${logitPositions} positions a row`;
      evalLossFormula =
        setup.loss === 'fused'
          ? lm.formula
          : `the logits${over}, their fp32 upcast and the log-softmax at the loss call: ${+perTV.toFixed(2)}·T·V`;
    }
  }
  // ZeRO-3's flat buffer of gradient partitions stays allocated between steps (terms/gradients.ts).
  const zero3Buffer = zero3GradientBuffer(ctx);
  const gradsKeptInEval = (setup.zero_grad_set_to_none && !zero3Buffer) || setup.optimizer_in_backward ? 0 : gradStored;
  const generation = evalBatch !== undefined && lmHead ? generatingEvaluation(ctx, st, evalBatch) : undefined;
  if (generation)
    return {
      evalBatch,
      evalLossBytes: 0,
      evalLayerBytes: sum(generation),
      evalLossFormula: '',
      gradsKeptInEval,
      generation,
    };
  return { evalBatch, evalLossBytes, evalLayerBytes, evalLossFormula, gradsKeptInEval };
}

/**
 * An evaluation that only generates (eval_generation): Seq2SeqTrainer.prediction_step calls generate() and, with no
 * labels in the batch, no loss forward; the larger of the prefill of the eval batch's prompts and a decoding step at
 * the full length, each beside its KV cache. Undefined where the evaluation computes a loss.
 */
function generatingEvaluation(ctx: EstimateContext, st: StageContext, evalBatch: number): Component[] | undefined {
  const g = ctx.setup.eval_generation;
  if (!g) return undefined;
  const tails = decodeTails(ctx, st, evalBatch, g.prompt_len, g.prompt_len + g.new_tokens);
  return tails.reduce((m, t) => (sum(t) > sum(m) ? t : m));
}
