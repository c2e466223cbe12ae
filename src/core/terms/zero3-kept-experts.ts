// Term: ZeRO-3's gathered MoE experts, kept by autograd. Fused experts (transformers 5's 3-D gate_up_proj and
// down_proj) are multiplied through views of the parameter (grouped_mm: weight.transpose(-2, -1); the eager loop:
// gate_up_proj[expert]), and the matmul saves that view for its backward. ZeRO-3 releases a gathered parameter by
// replacing its .data (deepspeed/runtime/zero/partition_parameters.py free_param: param.data = torch.empty(0)); a view
// still holds the old storage, so each layer's gathered experts stay allocated from its forward until its backward
// has run. FSDP frees an unsharded parameter by resizing its storage, which views share, so it keeps nothing.
// Checkpointed layers save nothing in the forward; the recomputed one keeps its experts while its backward gathers
// them again. Not when autocast multiplies a 16-bit copy of fp32 experts (that copy is an autocast weight copy), for
// experts PEFT adapts through ParamWrapper (the matmul saves the sum W + delta, counted with its adapter), nor for
// gpt-oss and Llama 4, whose matmuls take the parameter itself.
// CPU truth: zero/mixtral-w8-z3-full. Docs: docs/estimate/parallelism.md. Pure arithmetic; no I/O.
import { FAMILY_TRAITS } from '../architecture/families';
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';

/** One MoE layer's fused expert elements on this GPU that autograd keeps gathered under ZeRO-3 (0 when none). */
export function zero3KeptExpertParams(ctx: EstimateContext): number {
  const a = ctx.model.arch;
  const { mixed_precision: mp } = ctx.setup;
  if (ctx.sharding.zeroStage !== 3 || !a.moe || (mp !== 'none' && ctx.dtypes.weightBytes === 4)) return 0;
  // gpt-oss and Llama 4 store their experts as [E, h, 2I] and multiply by the parameter itself (gpt-oss:
  // use_experts_implementation(is_transposed=True), so grouped_mm takes the weight as it is; Llama 4: torch.bmm), which
  // autograd saves as the parameter: its released data goes with it.
  if (FAMILY_TRAITS[a.family].fusedExperts === 'own') return 0;
  const adapted = new Set(ctx.methods.parameterTargets.targets.map((t) => t.module.name));
  const ep = ctx.layout.expertParallel;
  return ctx.model.modules
    .filter((m) => m.parameter && m.group === 'expert' && !adapted.has(m.name))
    .reduce((t, m) => t + (m.inFeatures * m.outFeatures * a.moe!.experts) / ep, 0);
}

/**
 * The gathered experts autograd keeps on this stage's GPU: every MoE layer's without checkpointing (inFlight
 * micro-batches of them in a pipeline), the recomputed layer's alone with full checkpointing.
 */
export function zero3KeptExperts(ctx: EstimateContext, st: StageContext, inFlight: number): Component[] {
  const a = ctx.model.arch;
  const perLayer = zero3KeptExpertParams(ctx) / ctx.layout.tensorParallel;
  const ck = ctx.setup.gradient_checkpointing;
  if (!(perLayer > 0) || !a.moe || ck === 'selective') return [];
  const bytes = ctx.dtypes.weightBytes;
  const moeLayersHere = Math.round((a.moe.moeLayers * st.layersHere) / Math.max(1, a.layers));
  const layers = ck === 'full' ? 1 : moeLayersHere * inFlight;
  if (!(layers > 0)) return [];
  return [
    comp(
      ctx,
      'gathered-params',
      'ZeRO-3 gathered experts kept for backward (views saved by the matmuls)',
      layers * perLayer * bytes,
      () =>
        `${ck === 'full' ? '1 recomputed MoE layer' : `${layers} MoE layers`} x ${formatCount(perLayer)} fused ` +
        `expert params x ${bytes} B: ZeRO-3 releases a parameter by replacing its data, and the view each matmul ` +
        "saved keeps the gathered storage until the layer's backward",
      () => ({ perLayerParams: Math.round(perLayer), layers }),
    ),
  ];
}
