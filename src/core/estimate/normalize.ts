// The setup as it runs. Pure.
import { type Architecture, FUSED_EXPERT_FAMILIES } from '../architecture';
import type { TrainingSetup } from '../setup';
import { olderThan } from '../util/version';

/**
 * Whether a setup's MoE experts are 3-D parameters: a family that only has them, or one transformers 5 fuses (Mixtral,
 * Qwen-MoE, DeepSeek, GLM-4.5 ...) unless transformers 4.x is pinned or Unsloth loads them per expert (2026.6 on,
 * unslothai/unsloth#4032).
 */
export function fusedExpertsIn(setup: TrainingSetup, a: Architecture): boolean {
  if (a.moe === undefined) return false;
  return a.fusedExperts === true || (FUSED_EXPERT_FAMILIES.has(a.family) && !olderThan(setup.transformers_version, 5, 0) && setup.kernels !== 'unsloth');
}
