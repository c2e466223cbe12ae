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
// Docs: docs/estimate/activations.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatBytes, formatCount } from '../units';
import type { StageActivations } from './activations/stage';
import { logitTokens, trlLogitsBytes } from './logits-loss';

/** What the loop keeps of a step: its logits, and what its graph's autograd Functions keep as ctx attributes. */
export interface HeldStepOutputs {
  /** The step's logits: allocated through its own backward, its optimizer step, and the next forward. */
  readonly logits: Component[];
  /** Its graph's ctx attributes: after its backward too, into the next forward. */
  readonly graph: Component[];
}

/** What the loop keeps of a step when it keeps its outputs (setup.loop_keeps_outputs); nothing otherwise. */
export function heldStepOutputs(
  ctx: EstimateContext,
  st: StageContext,
  activations: StageActivations,
): HeldStepOutputs {
  const { setup } = ctx;
  if (!setup.loop_keeps_outputs) return { logits: [], graph: [] };
  return { logits: heldLogits(ctx, st), graph: heldGraph(ctx, activations) };
}

/** The logits the forward returns, on the loss's stage; a fused loss (Liger, Cut Cross-Entropy) returns none. */
function heldLogits(ctx: EstimateContext, st: StageContext): Component[] {
  const { arch: a, lmHead } = ctx.model;
  if (!st.last || !lmHead || ctx.setup.loss === 'fused') return [];
  const tokens = logitTokens(ctx, st);
  const vocab = a.vocab / ctx.layout.tensorParallel;
  const bytes = trlLogitsBytes(ctx);
  return [
    comp(
      ctx,
      'logits-loss',
      "The step's logits (referenced by the loop until the next forward returns)",
      tokens * vocab * bytes,
      () =>
        `T x V x ${bytes} B = ${formatCount(tokens)} x ${formatCount(vocab)} x ${bytes}; ` +
        "in the next forward the last batch's, counted as long as this one",
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
