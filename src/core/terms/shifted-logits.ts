// Term: the causal-LM loss of transformers before 4.49, which shifted the logits, not the labels. Its models (and, from
// 4.46, ForCausalLMLoss) ran `shift_logits = logits[..., :-1, :].contiguous()` before the cross-entropy: over more than
// one row the slice is not contiguous, so the fp32 logits are copied (4 B per logit) beside the upcast, and in backward
// SliceBackward builds the gradient of the whole logits in a new zero-filled fp32 tensor. Before 4.46 the models also
// upcast in their own forward (`logits = logits.float()`), which frees the 16-bit logits at once. transformers 4.49
// (huggingface/transformers#35646) pads the labels instead and flattens the logits as they are.
// Docs: docs/estimate/loss-and-logits.md. Pure arithmetic; no I/O.
import type { EstimateContext } from '../estimate/context';
import { FAMILY_TRAITS } from '../architecture';
import { olderThan } from '../util/version';
import type { ShiftedLoss } from './step-replay';

/**
 * Whether the loss is the model's own cross-entropy over the full logits: what transformers' causal-LM classes
 * compute when given labels (not a fused or chunked kernel, a preference, RL or distillation loss, a label smoother,
 * a value head, a compiled loss, or another library's model code).
 */
export function modelCrossEntropy(ctx: EstimateContext): boolean {
  return ctx.setup.loss === 'full' && plainTokenLoss(ctx);
}

/**
 * A next-token loss over the logits of the model's head (the causal-LM one unless said: a sequence classifier's logits
 * are num_labels wide), whatever kernel computes it: not compiled, no preference, RL or distillation loss, no label
 * smoother or value head, not OpenRLHF's Actor (setup.actor_logps).
 */
export function plainTokenLoss(ctx: EstimateContext, head: 'causal_lm' | 'seq2seq_lm' = 'causal_lm'): boolean {
  const setup = ctx.setup;
  const { teacher, rollout } = ctx.methods;
  return (
    !(setup.compile_loss ?? setup.compile) &&
    setup.preference === undefined &&
    rollout === undefined &&
    teacher === undefined &&
    setup.label_smoothing !== true &&
    setup.value_head !== true &&
    setup.actor_logps === undefined &&
    (ctx.setup.head ?? ctx.model.arch.defaultHead) === head
  );
}

/**
 * Qwen-1's own loss (modeling_qwen.py QWenLMHeadModel.forward: `lm_logits = self.lm_head(hidden_states)`, the shifted
 * slice and `CrossEntropyLoss()(shift_logits.view(-1, V), ...)`, no `.float()`) over 16-bit weights without autocast
 * (DeepSpeed's fp16 / bf16 engine, under which the HF Trainer does not autocast): log_softmax and nll_loss run in the
 * logits' dtype, so no fp32 upcast exists. Under autocast, cross_entropy is one of its fp32 ops and upcasts anyway.
 * The same for the GPT-2-style own loss of transformers' older classes (ownHalfLoss).
 */
export function logitsDtypeLoss(ctx: EstimateContext): boolean {
  const qwen1 = modelCrossEntropy(ctx) && ctx.model.arch.family === 'qwen';
  return (qwen1 || seq2seqLoss(ctx) || ownHalfLoss(ctx)) && ctx.dtypes.mode === 'half';
}

/**
 * An encoder-decoder's own loss: T5ForConditionalGeneration's (modeling_t5.py: `CrossEntropyLoss(ignore_index=-100)(
 * lm_logits.view(-1, V), labels.view(-1))`, no `.float()`, no shift: the decoder's inputs are the labels shifted
 * right), and BartForConditionalGeneration's, the same over `lm_logits + final_logits_bias`. CPU truth
 * seq2seq/t5-small-lora-bf16-t32: the loss's backward holds 2 x 2 B per logit over the saved bf16 log-softmax.
 */
function seq2seqLoss(ctx: EstimateContext): boolean {
  return (
    FAMILY_TRAITS[ctx.model.arch.family].stack === 'encoder-decoder' &&
    ctx.setup.loss === 'full' &&
    plainTokenLoss(ctx, 'seq2seq_lm')
  );
}

/**
 * The family's own causal-LM loss on the 16-bit logits, as GPT2LMHeadModel computes it (FamilyTraits.ownHalfLossBefore):
 * the shifted slice copied in the logits' dtype, then cross_entropy, in that dtype without autocast and in fp32 under
 * it (autocast's cast of the copy); no `.float()` in the model's forward.
 */
export function ownHalfLoss(ctx: EstimateContext): boolean {
  const before = FAMILY_TRAITS[ctx.model.arch.family].ownHalfLossBefore;
  return (
    before !== undefined &&
    ctx.dtypes.logitsBytes < 4 &&
    transformersLoss(ctx) &&
    olderThan(ctx.setup.transformers_version, before[0], before[1])
  );
}

/** The loss is transformers' own causal-LM code. */
export const transformersLoss = (ctx: EstimateContext): boolean =>
  modelCrossEntropy(ctx) &&
  ctx.setup.model_code === 'transformers' &&
  FAMILY_TRAITS[ctx.model.arch.family].remoteCodeLoss !== 'own';

/**
 * transformers < 4.46: the causal-LM class's forward returns fp32 logits whoever calls it, with or without labels
 * (LlamaForCausalLM 4.45 `logits = self.lm_head(...).float()`, whose comment says the float() goes in v4.46), so
 * a trainer that takes its own log-probabilities from them (TRL's) gets fp32; not the families with their own loss on
 * the 16-bit logits (FamilyTraits.ownHalfLossBefore: no `.float()`) or remote code (ChatGLM's casts only when given
 * labels, which TRL does not pass).
 */
export function modelUpcastsLogits(ctx: EstimateContext): boolean {
  const traits = FAMILY_TRAITS[ctx.model.arch.family];
  const half = traits.ownHalfLossBefore;
  return (
    ctx.setup.model_code === 'transformers' &&
    traits.remoteCodeLoss === undefined &&
    olderThan(ctx.setup.transformers_version, 4, 46) &&
    !(half && olderThan(ctx.setup.transformers_version, half[0], half[1]))
  );
}

/** The transformers release whose causal-LM loss the model's code runs (FamilyTraits.remoteCodeLoss). */
function lossCodeRelease(ctx: EstimateContext): string | undefined {
  const own = FAMILY_TRAITS[ctx.model.arch.family].remoteCodeLoss;
  return own !== undefined && own !== 'own' ? own : ctx.setup.transformers_version;
}

/**
 * transformers < 4.49 with more than one row per micro-batch: the shifted logits are a contiguous fp32 copy (a
 * single row's slice is contiguous already, and `.contiguous()` returns it as it is).
 */
export function shiftedLogitsCopy(ctx: EstimateContext): boolean {
  const setup = ctx.setup;
  return transformersLoss(ctx) && olderThan(lossCodeRelease(ctx), 4, 49) && setup.micro_batch_size > 1;
}

/** transformers < 4.46: the model's forward upcasts the logits itself, and the 16-bit logits are freed at once. */
export function upcastInModel(ctx: EstimateContext): boolean {
  return transformersLoss(ctx) && olderThan(lossCodeRelease(ctx), 4, 46) && !ownHalfLoss(ctx);
}

/**
 * transformers' causal-LM loss as 4.49 and later run it (ForCausalLMLoss: the 16-bit logits upcast in the loss, no
 * shifted copy): the loss the allocation replays follow (terms/loss-replay.ts lossForwardBackward).
 */
export function currentTransformersLoss(ctx: EstimateContext): boolean {
  return transformersLoss(ctx) && !shiftedLogitsCopy(ctx) && !upcastInModel(ctx);
}

/**
 * How the allocation replays run transformers' loss before 4.49 (terms/loss-replay.ts lossForwardBackward): the upcast
 * in the model before 4.46, the shifted copy over more than one row; undefined for 4.49 and later, and for any other loss.
 */
export function shiftedLoss(ctx: EstimateContext): ShiftedLoss | undefined {
  if (!transformersLoss(ctx) || !olderThan(lossCodeRelease(ctx), 4, 49)) return undefined;
  const own = ownHalfLoss(ctx);
  return {
    upcastInModel: upcastInModel(ctx),
    copy: shiftedLogitsCopy(ctx),
    ...(own ? { ownHalf: { amp: ctx.dtypes.mode === 'amp' } } : {}),
  };
}
