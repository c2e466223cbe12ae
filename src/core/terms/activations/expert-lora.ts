// LoRA on bare expert parameters and on a 2-D router weight (PEFT's ParamWrapper): what each targeted parameter's
// forward keeps and builds, for the block replay (block.ts). Docs: docs/estimate/activations.md. Pure.
import type { EstimateContext } from '../../estimate/context';
import type { ActivationPlan } from './plan';

/** Families whose router is F.linear of fp32 copies of the input and the weight (DeepSeek-V3, GLM-4.5, Kimi Linear). */
const FP32_ROUTERS = new Set(['deepseek_v3', 'glm4_moe', 'kimi_linear']);

/**
 * LoRA on bare expert parameters (PEFT ParamWrapper, huggingface/peft src/peft/tuners/lora/layer.py): each forward
 * builds delta = einsum(B, A) x scaling in the adapter dtype, casts it to the parameter's, and registers W + delta as a
 * parametrization of the experts module. W + delta is a new tensor that requires grad: the expert matmul keeps it and
 * its routed input for backward (one full copy of the parameter per targeted layer). Building the delta holds it in
 * the adapter dtype and its cast; the backward holds W + delta's gradient and its cast to the adapter dtype
 * (tools/activations/lora_target_parameters.py measures both on a grouped_mm replica). On a router's 2-D weight (PEFT's
 * transformers 5 conversion of `gate`) the same: the router's F.linear keeps W + delta (E x hidden) and its input, every
 * token of the layer (fp32 where the family's router computes in fp32 outside autocast).
 */
export function expertLoraPlan(ctx: EstimateContext, tokens: number): NonNullable<ActivationPlan['expertLora']> {
  const a = ctx.model.arch;
  const ep = ctx.layout.expertParallel;
  const { mode, half, denseBytes, adapterBytes } = ctx.dtypes;
  const paramTargets = ctx.methods.parameterTargets;
  // The input in the compute dtype (the autocast / model dtype).
  const computeBytes = mode === 'fp32' ? 4 : half;
  return {
    targets: paramTargets.targets.map((t) => {
      const router = t.module.group === 'router';
      const elems = (router ? 1 : a.moe!.experts / ep) * t.module.inFeatures * t.module.outFeatures;
      const inputBytes = router && mode === 'half' && FP32_ROUTERS.has(a.family) ? 4 : computeBytes;
      const inputTokens = router ? tokens : tokens * a.moe!.topK;
      return {
        name: t.module.name,
        savedBytes: elems * denseBytes + inputTokens * t.module.inFeatures * inputBytes,
        workingBytes: 2 * Math.max(adapterBytes, denseBytes) * elems,
        ...(router ? { router } : {}),
        ...(t.indices ? { indices: t.indices } : {}),
      };
    }),
  };
}
