// Term: logits and loss on the last stage. The loss plan of a stage (tokens, vocabulary shard, loss kind, preference
// and RL log-probabilities, distillation), and what the final norm, the head and the loss keep for backward:
//   full cross-entropy: the logits in the compute dtype + the fp32 upcast and log-softmax, ~ (cb + 4 + 4)·T·V;
//   chunked (torchtune): one chunk's fp32 copies at a time; fused (Liger, Cut Cross-Entropy): no full logits.
// The formulas per loss are in terms/loss.ts. Sources: HF ForCausalLMLoss, torchtune CEWithChunkedOutputLoss, Liger
// fused linear cross-entropy, TRL selective_log_softmax. Docs: docs/estimate/loss-and-logits.md. Pure arithmetic.
import { decoderLength } from './activations/encoder-decoder';
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';
import { finalNormSaved, type FinalNormPlan } from './activations';
import { autocastCastsHead } from './activations/stage';
import { lossMemory, type LossPlan } from './loss';
import { quantizedHead } from './quantized-head';
import { deepspeedLinearRuns } from './zero3-linear-kept';
import { logitsDtypeLoss, modelUpcastsLogits, ownHalfLoss, shiftedLogitsCopy, upcastInModel } from './shifted-logits';
import { olderThan } from '../util/version';

/**
 * What the final norm and the head run with over `tokens` (finalNormSaved, and the step replays' finalNormSequence):
 * `quantizedHere`, the stage holds 4/8-bit layers, whose residual stream is fp32.
 */
export function finalNormPlan(ctx: EstimateContext, tokens: number, quantizedHere: boolean): FinalNormPlan {
  const setup = ctx.setup;
  const { arch: a, inventory: inv } = ctx.model;
  const { weightBytes, denseBytes, embeddingBytes, half, mode, kbitQuantized } = ctx.dtypes;
  return {
    arch: a,
    mode,
    half,
    weightBytes,
    tokens,
    normTrainable: setup.method === 'full',
    headTrainable: setup.method === 'full' || inv.headTrainable,
    normWeightBytes: denseBytes,
    headWeightBytes: embeddingBytes,
    residualBytes: kbitQuantized !== 'none' && quantizedHere ? 4 : undefined,
    packedHeadInput: setup.loss === 'chunked-nll',
    litgpt: setup.model_code === 'litgpt',
    ...(deepspeedLinearRuns(setup, ctx.sharding.zeroStage) && !quantizedHead(setup, a) ? { zero3Linear: true } : {}),
  };
}

/**
 * The bytes per logit of TRL's log-probabilities. TRL's trainers subclass transformers.Trainer, which prepares the
 * model with Accelerate; under native AMP (mixed precision without DeepSpeed: accelerate/accelerator.py Accelerator
 * sets native_amp for fp16 / bf16 unless the distributed type is DeepSpeed or Megatron) prepare_model wraps the
 * forward in convert_outputs_to_fp32 (accelerate/utils/operations.py ConvertOutputsToFp32: `tensor.float()` on every
 * 16-bit output), so the logits that DPO's and GRPO's selective_log_softmax (and KTO's, ORPO's, online DPO's) receive
 * are fp32 and take its logsumexp path; the 16-bit head output is freed once cast. Liger's fused losses take no
 * logits. FSDP2 is prepared apart (fsdp2_prepare_model: its MixedPrecisionPolicy casts the parameters, no autocast,
 * no conversion of the outputs): its logits stay 16-bit (CPU truth accelerate/llama-dpo-fsdp2-*: bf16 log-softmax rows).
 * Before transformers 4.46 the model's own forward upcasts them (shifted-logits.ts modelUpcastsLogits), under
 * DeepSpeed and FSDP too. Elsewhere: the head's output dtype (DtypePlan.logitsBytes).
 */
export function trlLogitsBytes(ctx: EstimateContext): number {
  const setup = ctx.setup;
  const { logitsBytes: cb, mode } = ctx.dtypes;
  const trl = ctx.methods.rollout !== undefined || setup.preference?.logps === 'rows';
  const fsdp2 = ctx.sharding.fsdp && setup.fsdp_version === 2;
  // verl runs the model without Accelerate's fp32 output wrapper: the logits come in the compute dtype.
  if (ctx.methods.rollout?.logps === 'verl') return cb;
  // OpenRLHF's Actor casts the head's output to fp32 itself (setup.actor_logps).
  if (setup.actor_logps === 'openrlhf' && setup.loss === 'full')
    return olderThan(setup.openrlhf_version, 0, 5, 6) ? cb : 4;
  if (trl && setup.loss !== 'fused' && modelUpcastsLogits(ctx)) return 4;
  return trl && mode === 'amp' && ctx.sharding.zeroStage === 0 && !fsdp2 && setup.loss !== 'fused' ? 4 : cb;
}

/**
 * The loss of `tokens` tokens as this stage computes it.
 * Preference log-probs: TRL row by row, torchtune one log_softmax in the logits' dtype; LLaMA-Factory's one
 * log_softmax over fp32 logits has the full cross-entropy's tensors.
 * GRPO (TRL _get_per_token_logps_and_entropies): logits of the completion tokens only (logits_to_keep), divided by
 * the temperature, then row by row through selective_log_softmax.
 * The distillation loss runs in training only (evaluation scores the student's cross-entropy).
 */
export function lossPlan(ctx: EstimateContext, tokens: number, training = true): LossPlan {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const tp = ctx.layout.tensorParallel;
  const { logitsBytes: cb, mode, oldSoftmax, half } = ctx.dtypes;
  const { teacher, rollout, onlineDpo } = ctx.methods;
  const pref = setup.preference;
  const logitsBytes = trlLogitsBytes(ctx);
  const chunkedNll = setup.loss === 'chunked-nll';
  const policyGradient = rollout !== undefined && !onlineDpo;
  // TRL < 0.15 takes a DPO / KTO batch's log-probabilities in one log_softmax (the chosen NLL of ORPO / CPO / RPO
  // keeps the rows' reading).
  const trlWhole =
    pref?.logps === 'rows' && !rollout && pref.chosen_nll !== true && olderThan(setup.trl_version, 0, 15);
  // OpenRLHF's SFT before 0.7: GPTLMLoss over the Actor's fp32 logits, their shifted contiguous copy and log_softmax.
  // From 0.5.6 over fp32 logits (OpenRLHF/OpenRLHF#634); before it over the 16-bit head output, the loss in that dtype
  // (DeepSpeed's 16-bit engine runs no autocast).
  const openrlhfGpt = setup.actor_logps === 'openrlhf' && !pref && !rollout && olderThan(setup.openrlhf_version, 0, 7);
  const openrlhfOld = setup.actor_logps === 'openrlhf' && olderThan(setup.openrlhf_version, 0, 5, 6);
  // One literal with the optional fields set or undefined (no key reads them by presence): the advice search builds
  // this plan several times per candidate, and conditional spreads made it one of the search's costliest lines.
  return {
    tokens,
    vocab: a.vocab / tp,
    hidden: a.hidden,
    logitsBytes,
    convertedFrom: logitsBytes !== cb ? cb : undefined,
    loss: setup.loss,
    unslothChunks: setup.loss === 'fused' && setup.kernels === 'unsloth',
    chunks: headChunks(ctx),
    // TRL chunked_nll: autocast's 16-bit copy of an fp32 head, saved by each chunk's recomputed matmul in backward;
    // none where FSDP's param dtype gathers the head in 16 bits (accelerate/llama-sft-fsdp2-w4-full-amp-ckpt).
    headCastBytes: chunkedNll && autocastCastsHead(ctx) ? (a.vocab / tp) * a.hidden * half : 0,
    packedHiddenBytes: chunkedNll ? Math.max(ctx.dtypes.computeBytes, ctx.dtypes.denseBytes) : undefined,
    softcap: a.finalLogitSoftcap,
    distill: training && teacher !== undefined && !rollout,
    jsdBeta: setup.distillation?.loss === 'jsd' ? setup.distillation.jsd_beta : undefined,
    compile: setup.compile_loss ?? setup.compile,
    logSoftmaxSavesInput: oldSoftmax,
    shiftedCopy: openrlhfGpt || shiftedLogitsCopy(ctx),
    upcastInModel: (openrlhfGpt && !openrlhfOld) || upcastInModel(ctx),
    openrlhfGptLoss: openrlhfGpt,
    ownHalfLoss: (openrlhfGpt && openrlhfOld) || ownHalfLoss(ctx),
    fp32FromModel: setup.model_logits_fp32 === true && setup.loss === 'full',
    noUpcast: logitsDtypeLoss(ctx),
    amp: mode === 'amp',
    preferenceRowTokens:
      rollout && !onlineDpo ? rollout.completion_len : pref?.logps === 'rows' && !trlWhole ? setup.seq_len : undefined,
    nativeLogSoftmax: pref?.logps === 'native',
    trlWholeLogSoftmax: trlWhole,
    wholeLogSoftmax: pref?.logps === 'whole',
    policyLogitsKept: pref?.logits_kept !== false,
    // TRL's metrics over the kept logits; a trainer that keeps only log-probabilities computes none.
    dpoMetrics:
      pref?.logps === 'rows' &&
      pref.paired &&
      pref.chosen_nll !== true &&
      pref.logits_kept !== false &&
      !olderThan(setup.trl_version, 0, 29),
    chosenNll:
      pref?.chosen_nll === true && pref.logps === 'rows' ? (pref.reference === 'none' ? 'orpo' : 'dpo') : undefined,
    unusedLogits: setup.value_head === true,
    labelSmoothing: setup.label_smoothing === true,
    policyGradient,
    verlLogps: policyGradient && rollout.logps === 'verl',
    openrlhfActor:
      setup.actor_logps === 'openrlhf' && setup.loss === 'full' && !policyGradient && !openrlhfGpt && !openrlhfOld,
    logitsHeldByLoop: setup.loop_keeps_outputs !== undefined && setup.loop_keeps_outputs !== false,
    rlEntropy: policyGradient && !olderThan(setup.trl_version, 0, 20),
    rlOutputsHeld: policyGradient && !olderThan(setup.trl_version, 1, 7),
    completionShare: onlineDpo ? rollout!.completion_len / setup.seq_len : undefined,
  };
}

/** LitGPT's fine-tuning scripts run the head over 128 positions at a time (`model(input_ids, lm_head_chunk_size=128)`). */
const LITGPT_HEAD_CHUNK = 128;

/**
 * The head's chunks under `loss: chunked`: LitGPT splits the sequence into pieces of 128 positions
 * (Lightning-AI/litgpt@2685705:litgpt/model.py GPT.forward `x.split(lm_head_chunk_size, dim=1)`), torchtune's
 * CEWithChunkedOutputLoss the tokens into 8 chunks.
 */
export function headChunks(ctx: EstimateContext): number {
  const setup = ctx.setup;
  return setup.model_code === 'litgpt' ? Math.max(1, Math.ceil(setup.seq_len / LITGPT_HEAD_CHUNK)) : 8;
}

/**
 * The tokens of a stage's decoder: an encoder-decoder's (T5's) target_len per sequence, where given (its encoder reads
 * seq_len); otherwise the stage's tokens. The logits and the loss are the decoder's.
 */
export function decoderTokens(ctx: EstimateContext, st: Pick<StageContext, 'sequences' | 'tokens'>): number {
  const target = decoderLength(ctx);
  return target ? (st.sequences * target) / ctx.layout.contextParallel : st.tokens;
}

/** Tokens whose logits one micro-batch computes (online DPO: every position's, of which the completions are sliced). */
export function logitTokens(ctx: EstimateContext, st: StageContext): number {
  const { rollout, onlineDpo } = ctx.methods;
  const seqs = st.sequences;
  return rollout && !onlineDpo && rollout.logps !== 'verl' ? seqs * rollout.completion_len : decoderTokens(ctx, st);
}

/** The loss's memory at `tokens` tokens. */
export const lossAt = (ctx: EstimateContext, tokens: number, training = true): ReturnType<typeof lossMemory> =>
  lossMemory(lossPlan(ctx, tokens, training));

/**
 * Embedding output / final norm / loss on the last stage: what is saved at the end of the forward, and the loss's
 * transient bytes in the forward and at the start of the backward. Undefined on other stages and without an LM head.
 */
export function logitsAndLoss(
  ctx: EstimateContext,
  st: StageContext,
): { outside: Component[]; lossFwd: number; lossBwd: number; lossTensorBytes: number } | undefined {
  const setup = ctx.setup;
  const { arch: a, inventory: inv, lmHead } = ctx.model;
  const tp = ctx.layout.tensorParallel;
  const { half, computeBytes: cb, kbitQuantized: kbitQ } = ctx.dtypes;
  const { rollout, gkd } = ctx.methods;
  const pref = setup.preference;
  const { last, quantizedHere: quantHere } = st;
  const T = decoderTokens(ctx, st);
  if (!(last && lmHead)) return undefined;
  const outside: Component[] = [];
  const lossTokens = logitTokens(ctx, st);
  const lm = lossAt(ctx, lossTokens);
  const lossTensorBytes = lm.savedBytes + Math.max(lm.forwardTransientBytes, lm.backwardTransientBytes);
  const finalNorm = finalNormSaved(finalNormPlan(ctx, T, quantHere > 0));
  outside.push(
    comp(
      ctx,
      'logits-loss',
      rollout
        ? 'Completion logits and log-probabilities (saved)'
        : gkd
          ? 'Logits and distillation loss (saved)'
          : setup.value_head
            ? 'Final norm and head inputs (value head)'
            : 'Logits and cross-entropy (saved)',
      lm.savedBytes + finalNorm,
      () => `${lm.formula}; final norm + lm_head input ${+(finalNorm / (T * a.hidden)).toFixed(2)}·T·h`,
      () => ({ tokens: lossTokens, vocab: a.vocab, loss: setup.loss }),
    ),
  );
  const chunkedHead = setup.loss === 'chunked' && setup.model_code === 'litgpt';
  if (autocastCastsHead(ctx) && (kbitQ === 'all' || setup.loss === 'full' || chunkedHead)) {
    // An fp32 head under autocast: the matmul keeps the 16-bit copy of its weight for the gradient of its input until
    // the head's backward, after the loss's. A frozen head's cast is not cached (cached_cast needs requires_grad) but
    // is saved all the same; a trainable head's cached copy outlives the cache, which is cleared when the forward's
    // autocast region ends. Profiled: trainer/llama-lora-amp-ckpt-reentrant holds the 2,097,152 B copy of its 4,096 x
    // 256 head (aten::_to_copy before the head's mm) at the loss backward. FSDP's 16-bit param dtype casts nothing.
    // LitGPT calls the head once per 128 positions, so a frozen head keeps one copy per chunk (profiled with torch
    // 2.13's CPU autocast: a frozen fp32 head over 1,034 positions saves 9 distinct bf16 copies, a trainable one 1).
    const headElems = (a.vocab * a.hidden) / tp;
    const trainable = setup.method === 'full' || inv.headTrainable;
    const copies = chunkedHead && !trainable ? headChunks(ctx) : 1;
    outside.push(
      comp(
        ctx,
        'autocast-weight-copies',
        copies > 1
          ? 'Autocast copies of the frozen fp32 output head, one per chunk (kept for backward)'
          : 'Autocast copy of the fp32 output head (kept for backward)',
        copies * headElems * half,
        () =>
          `${copies > 1 ? `${copies} chunks of ${LITGPT_HEAD_CHUNK} positions x ` : ''}` +
          `V x h${tp > 1 ? ' / TP' : ''} = ${formatCount(headElems)} x ${half} B`,
        () => ({ vocab: a.vocab, hidden: a.hidden, copies }),
      ),
    );
  }
  // KTO: the policy's no-grad logits of the KL batch stay referenced through its forward (TRL KTOTrainer.forward).
  const klLogits = pref && !pref.paired ? (pref.logps === 'rows' ? trlLogitsBytes(ctx) : cb) * T * (a.vocab / tp) : 0;
  return { outside, lossFwd: lm.forwardTransientBytes + klLogits, lossBwd: lm.backwardTransientBytes, lossTensorBytes };
}
