// What a training loop that keeps its outputs leaves allocated (setup.loop_keeps_outputs). A loop that rebinds
// `logits = model(...)` each iteration (LitGPT's fit loops: Lightning-AI/litgpt@2685705:litgpt/finetune/lora.py fit)
// references the step's logits through its backward, its optimizer step and an evaluation between steps, and frees
// them only when the next forward has returned. The logits also keep the step's autograd graph alive. PyTorch frees a
// node's saved tensors once its backward has run (PyNode::release_variables clears saved_variables only), but what a
// custom Function keeps as a ctx attribute lives as long as the node: bitsandbytes' kept inputs (kept-inputs.ts:
// MatMul4Bit before 0.43.2, MatMul8bitLt) of every layer stay allocated with the graph, into the next forward.
// Checked with torch 2.13 on the CPU: a Function that sets `ctx.tensors = (A, B)` keeps all four layers' A of step 0
// during step 1's forward while `loss` is referenced, and none once it is deleted; one that calls save_for_backward
// keeps none either way. The CPU truth's `*-keep` loop points measure the logits at all three phases.
// A loop that drops its outputs after the step (`output = None` after the backward and the optimizer step:
// AnswerDotAI/fsdp_qlora@05ed9f2:train.py; loop_keeps_outputs 'step') holds them through the backward and the optimizer
// step only: the next forward, an evaluation or a checkpoint save between steps find none. CPU truth `loop/*-keep-step`.
// A loop that runs its longest batch first (Lit-GPT's finetune scripts from Lightning-AI/lit-gpt@fa5d73e, June 2023,
// to 73baa2d, February 2024: `get_batch(..., longest_seq_ix if iter_num == 0 else None)`; setup.longest_batch_first)
// meets that batch before any step has left outputs: its forward holds none. The batches after it are shorter, and
// what they keep of the one before scales with its length; they are taken to stay below it (an assumption, said).
// A transformers model that runs with use_cache also returns its DynamicCache (`outputs.past_key_values`): every
// attention layer's keys and values, the cat copies its attention takes (cache_utils.py DynamicLayer.update). Kept with
// the outputs, the cache stays allocated after the backward, through the optimizer step and the next forward; while
// the step runs it is what SDPA and flash attention save, but eager attention over grouped key/value heads saves
// repeat_kv's copies instead, so there the cache is held beside them through the step's forward and backward. CPU
// truth `loop/*-keep-cache` (transformers 5.17): +2 x layers x b x kv x s x d x bytes at the forward and the optimizer
// step, and at the backward too for Gemma 2's eager attention.
// Docs: docs/estimate/activations.md. Pure arithmetic; no I/O.
import { FAMILY_TRAITS } from '../architecture/families';
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatBytes, formatCount } from '../units';
import { olderThan } from '../util/version';
import type { StageActivations } from './activations/stage';
import { kvCache, kvCacheShape } from './kv-cache';
import { logitTokens, trlLogitsBytes } from './logits-loss';
import { upcastInModel } from './shifted-logits';

/** What the loop keeps of a step: its logits, and what its graph's autograd Functions keep as ctx attributes. */
export interface HeldStepOutputs {
  /** The step's logits: allocated through its own backward and its optimizer step. */
  readonly logits: Component[];
  /** Its graph's ctx attributes and its KV cache: after its backward too, through its optimizer step. */
  readonly graph: Component[];
  /** Its KV cache where attention saved repeated copies instead: beside the step's own forward and backward. */
  readonly stepCache: Component[];
  /**
   * What of the last step is still allocated at the next forward, at an evaluation or a checkpoint save between steps:
   * its logits and graph when the loop keeps them until the next forward returns, none when it drops them at the
   * step's end (loop_keeps_outputs 'step').
   */
  readonly lastStep: Component[];
  /**
   * What of the last step is allocated while this step's forward runs: its lastStep, or none where the longest batch
   * runs first (setup.longest_batch_first), before any step has left outputs.
   */
  readonly atForward: Component[];
}

/** What the loop keeps of a step when it keeps its outputs (setup.loop_keeps_outputs); nothing otherwise. */
export function heldStepOutputs(
  ctx: EstimateContext,
  st: StageContext,
  activations: StageActivations,
): HeldStepOutputs {
  const { setup } = ctx;
  const keeps = setup.loop_keeps_outputs;
  const cache = heldCache(ctx, st, activations);
  // A loop that drops its outputs before the backward: the step's cache under checkpoint_wrapper still lives with the
  // graph, whose checkpointed layers keep it as an argument for their recompute.
  if (!keeps) return { logits: [], graph: [], stepCache: cache.checkpointed, lastStep: [], atForward: [] };
  const logits = heldLogits(ctx, st);
  const graph = [...heldGraph(ctx, activations), ...cache.held];
  const lastStep = keeps === 'step' ? [] : [...logits, ...graph];
  return { logits, graph, stepCache: cache.step, lastStep, atForward: setup.longest_batch_first ? [] : lastStep };
}

/**
 * The logits the forward returns, on the loss's stage; a fused loss (Liger, Cut Cross-Entropy) returns none. Before
 * transformers 4.46 the model upcast them itself (`logits = logits.float()`) and returned the fp32 ones, as torchtune's
 * and mistral-finetune's decoders do (model_logits_fp32); Lightning
 * Fabric, which runs LitGPT, converts every output of the model to the default dtype, fp32
 * (plugins/precision/half.py HalfPrecision.convert_output, amp.py MixedPrecision.convert_output).
 */
function heldLogits(ctx: EstimateContext, st: StageContext): Component[] {
  const { arch: a, lmHead } = ctx.model;
  if (!st.last || !lmHead || ctx.setup.loss === 'fused') return [];
  const tokens = logitTokens(ctx, st);
  const vocab = a.vocab / ctx.layout.tensorParallel;
  const fp32 = upcastInModel(ctx) || ctx.setup.model_code === 'litgpt' || ctx.setup.model_logits_fp32 === true;
  const bytes = fp32 ? 4 : trlLogitsBytes(ctx);
  const toStepEnd = ctx.setup.loop_keeps_outputs === 'step';
  return [
    comp(
      ctx,
      'logits-loss',
      toStepEnd
        ? "The step's logits (referenced by the loop through its backward and optimizer step)"
        : "The step's logits (referenced by the loop until the next forward returns)",
      tokens * vocab * bytes,
      () =>
        `T x V x ${bytes} B = ${formatCount(tokens)} x ${formatCount(vocab)} x ${bytes}; ` +
        (toStepEnd
          ? 'dropped by the loop before the next forward'
          : "in the next forward the last batch's, counted as long as this one"),
      () => ({ tokens, vocab, bytesPerLogit: bytes }),
    ),
  ];
}

/** The kept inputs of every layer whose Functions keep them as ctx attributes (bitsandbytes), held by the graph. */
function heldGraph(ctx: EstimateContext, activations: StageActivations): Component[] {
  const perLayer = activations.layer.contextHeldBytes ?? 0;
  const layers = activations.contextHeldLayers;
  if (perLayer <= 0 || layers <= 0) return [];
  return [
    comp(
      ctx,
      'activations',
      "The last step's quantized linears' inputs (bitsandbytes ctx attributes, held by its graph)",
      perLayer * layers,
      () => `${layers} layers x ${formatBytes(perLayer)} (the last batch counted as long as this one)`,
      () => ({ layers, perLayerBytes: Math.round(perLayer) }),
    ),
  ];
}

/**
 * The outputs' KV cache (use_cache): a transformers decoder's, not LitGPT's model nor an encoder's, and none under
 * transformers' own gradient checkpointing (which turns use_cache off). Beside the step where eager attention copies
 * grouped key/value heads (repeat_kv; with one head and one sequence the copy is a view), or SDPA does without
 * enable_gqa; and under torch's checkpoint_wrapper (setup.checkpoint_wrapper: ATorch, llama-recipes, Accelerate's FSDP
 * activation_checkpointing), which transformers does not see: the cache is built, and the layers' saved keys and
 * values are dropped for the recompute, so the cache is beside them whatever the attention. CPU truth
 * `loop/*-keep-cache-wrapper`.
 */
function heldCache(
  ctx: EstimateContext,
  st: StageContext,
  activations: StageActivations,
): { held: Component[]; step: Component[]; checkpointed: Component[] } {
  const { setup } = ctx;
  const a = ctx.model.arch;
  const p = activations.layerPlan;
  const none = { held: [], step: [], checkpointed: [] };
  const checkpointed = setup.gradient_checkpointing !== 'none';
  if (!setup.use_cache || (checkpointed && !setup.checkpoint_wrapper) || setup.model_code === 'litgpt') return none;
  if (FAMILY_TRAITS[a.family].stack !== 'decoder') return none;
  const shape = kvCacheShape(ctx, st);
  const cache = kvCache(ctx, shape, p.batch, p.seq);
  if (cache.bytes <= 0) return none;
  // Recomputed under checkpoint_wrapper, each layer updates the same cache object again: from transformers 4.36's
  // Cache classes, DynamicLayer.update cats the recomputed keys and values, so after the backward every layer holds
  // 2 x seq positions (checked on the CPU with transformers 5.17: (2, 2, 256, 64) after the forward, (2, 2, 512, 64)
  // after the backward).
  const doubled = checkpointed && !olderThan(setup.transformers_version, 4, 36);
  const formula = `${cache.formula} (outputs.past_key_values)`;
  const component = (label: string, times = 1): Component =>
    comp(
      ctx,
      'kv-cache',
      label,
      times * cache.bytes,
      () => (times > 1 ? `${times} x ${formula}: the recompute added each layer's keys and values again` : formula),
      () => cache.inputs,
    );
  const grouped = a.kvHeads < a.heads && a.family !== 'falcon';
  const copies =
    (p.attention === 'eager' && grouped && !(a.kvHeads === 1 && p.batch === 1)) ||
    (p.attention === 'sdpa' && grouped && a.kvHeads > 1 && p.sdpaGqa !== true);
  const held = component(
    "The step's KV cache (use_cache: outputs.past_key_values, kept with the outputs " +
      (setup.loop_keeps_outputs === 'step' ? 'through the optimizer step)' : 'until the next forward returns)'),
    doubled ? 2 : 1,
  );
  const beside = checkpointed
    ? [component("This step's KV cache beside the checkpointed layers (torch's checkpoint_wrapper keeps use_cache on)")]
    : [];
  const step =
    beside.length > 0
      ? beside
      : copies
        ? [component("This step's KV cache beside repeat_kv's copies, which attention saves instead")]
        : [];
  return { held: [held], step, checkpointed: beside };
}
