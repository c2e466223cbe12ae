// The setup as it runs: what a model's own code fixes (checkpointing, attention), layer-wise GaLore's optimizer in
// the backward, BAdam as a freeze run; the architecture as loaded (fused or per-expert MoE experts); the frozen
// models beside it (distillation teacher, reward models). Pure.
// Docs: docs/estimate/index.md
import {
  type Architecture,
  countParameters,
  FUSED_EXPERT_FAMILIES,
  parseArchitecture,
  withFusedExperts,
  litgptHead,
  withSequentialExperts,
} from '../architecture';
import type { EstimateResult } from '../model';
import type { TrainingSetup } from '../setup';
import { DTYPE_BYTES } from '../units';
import { olderThan } from '../util/version';
import type { RewardModel } from './context';

/** An estimate that cannot be made: the first impossible value. */
export type EstimateFailure = Extract<EstimateResult, { ok: false }>;

/**
 * Whether a setup's MoE experts are 3-D parameters: a family that only has them, or one transformers 5 fuses (Mixtral,
 * Qwen-MoE, DeepSeek, GLM-4.5 ...) unless transformers 4.x is pinned or Unsloth loads them per expert (2026.6 on,
 * unslothai/unsloth#4032).
 */
export function fusedExpertsIn(setup: TrainingSetup, a: Architecture): boolean {
  if (a.moe === undefined) return false;
  return (
    a.fusedExperts === true ||
    (FUSED_EXPERT_FAMILIES.has(a.family) && !olderThan(setup.transformers_version, 5, 0) && setup.kernels !== 'unsloth')
  );
}

/**
 * transformers 4.x runs an MoE layer's experts one after another in training (its experts loop); transformers 5 through
 * grouped_mm by default (modeling_utils get_correct_experts_implementation), and Unsloth through its own kernels.
 */
export function expertsLooped(setup: TrainingSetup, a: Architecture): boolean {
  return a.moe !== undefined && olderThan(setup.transformers_version, 5, 0) && setup.kernels !== 'unsloth';
}

/** The setup normalized, with what the model's code overrode and BAdam's mode. */
export interface NormalizedSetup {
  readonly parsed: ReturnType<typeof parseArchitecture>;
  readonly code: Architecture['modelCode'];
  /** The model's code calls its layers directly: all of them (this many) keep their activations. */
  readonly checkpointingIgnored: number | undefined;
  /** The attention asked for, which the model's code replaces. */
  readonly attentionIgnored: TrainingSetup['attention'] | undefined;
  readonly badamLayer: boolean;
  readonly badamRatio: number | undefined;
  readonly setup: TrainingSetup;
}

/** The setup as it runs, from the setup as given. */
export function normalizeSetup(setupAsGiven: TrainingSetup): NormalizedSetup {
  // A model whose own code fixes checkpointing or attention (Architecture.modelCode) runs with what its code sets.
  const parsed = parseArchitecture(setupAsGiven.architecture);
  const code = parsed.ok ? parsed.arch.modelCode : undefined;
  const checkpointingIgnored =
    parsed.ok && code && setupAsGiven.gradient_checkpointing !== 'none' ? parsed.arch.layers : undefined;
  const attentionIgnored = code && setupAsGiven.attention !== code.attention ? setupAsGiven.attention : undefined;
  const setupIn: TrainingSetup =
    code && (checkpointingIgnored !== undefined || attentionIgnored !== undefined)
      ? { ...setupAsGiven, gradient_checkpointing: 'none', attention: code.attention }
      : setupAsGiven;
  // Layer-wise GaLore steps each parameter in its gradient hook: the optimizer runs in the backward.
  const galoreSetup =
    setupIn.galore?.layerwise && !setupIn.optimizer_in_backward ? { ...setupIn, optimizer_in_backward: true } : setupIn;
  // BAdam trains one decoder layer at a time (BlockOptimizer, badam_mode layer): a one-layer 'freeze' run for the
  // parameters, gradients and optimizer state, with an fp32 copy of the active block when the weights are 16-bit. Its
  // worst point is the first layer active: every layer above keeps what its input's gradient needs.
  const badamLayer = setupIn.badam !== undefined && setupIn.badam.mode === 'layer' && setupIn.method === 'full';
  // BAdam's ratio mode (BlockOptimizerRatio) trains every decoder-layer tensor (the embedding and the head frozen) on a
  // share of its entries: each gradient is cut to a sparse COO tensor by a post-accumulate hook, and its own sparse Adam
  // keeps two states for those entries only, in the parameters' dtype, with no fp32 copy.
  const badamRatio =
    setupIn.badam?.mode === 'ratio' && setupIn.method === 'full' ? setupIn.badam.update_ratio : undefined;
  const setup: TrainingSetup = badamLayer
    ? {
        ...galoreSetup,
        method: 'freeze',
        freeze_trainable_layers: 1,
        master_weights: galoreSetup.weights_dtype !== 'fp32' || galoreSetup.master_weights,
      }
    : badamRatio !== undefined
      ? {
          ...galoreSetup,
          method: 'freeze',
          freeze_trainable_layers: Number.MAX_SAFE_INTEGER,
          master_weights: false,
          optimizer: 'adamw',
          optimizer_in_backward: false,
        }
      : galoreSetup;
  return { parsed, code, checkpointingIgnored, attentionIgnored, badamLayer, badamRatio, setup };
}

/**
 * The architecture as loaded: Llama 4's experts per-expert linears under bitsandbytes (gpt-oss's under Unsloth's),
 * fused 3-D experts under
 * transformers 5, the output head as LitGPT's model code builds it (a copy of a tied embedding, or tied by pretrain).
 */
export function modelVariant(
  setup: TrainingSetup,
  baseArch: Architecture,
): { bitsandbytes: boolean; fusedFamily: boolean; arch: Architecture } {
  // Llama 4 under bitsandbytes: the experts become per-expert linear layers (quantized, targetable by LoRA).
  const bnb =
    setup.quantization !== undefined && setup.quantization.type !== 'gptq' && setup.quantization.type !== 'awq';
  // transformers 5 fuses the experts of Mixtral, Qwen-MoE, DeepSeek and GLM-4.5 into 3-D parameters. Unsloth (2026.6 on)
  // swaps them back for per-expert 4-bit linears when it loads a model in 4 bits (unslothai/unsloth#4032), so its runs
  // are estimated with per-expert linears.
  const fusedFamily = FUSED_EXPERT_FAMILIES.has(baseArch.family) && baseArch.moe !== undefined;
  const fuseExperts = fusedFamily && fusedExpertsIn(setup, baseArch);
  // gpt-oss loaded in 4 bits by Unsloth: its own per-expert 4-bit linears (unsloth_zoo temporary_patches/gpt_oss.py).
  const perExpert =
    (baseArch.family === 'llama4' || (baseArch.family === 'gpt_oss' && setup.kernels === 'unsloth')) && bnb;
  const a = perExpert ? withSequentialExperts(baseArch) : fuseExperts ? withFusedExperts(baseArch) : baseArch;
  // LitGPT's GPT copies a tied embedding into an output head of its own, or ties them (architecture/litgpt-head.ts).
  const arch = setup.model_code === 'litgpt' ? litgptHead(a, setup.tie_embeddings === true) : a;
  return { bitsandbytes: bnb, fusedFamily, arch };
}

/** The distillation teacher and the reward models, parsed; errors name the block they come from. */
export function frozenModels(
  setup: TrainingSetup,
):
  | { teacher: { arch: Architecture; params: number } | undefined; rewardModels: RewardModel[]; gkd: boolean }
  | EstimateFailure {
  let teacher: { arch: Architecture; params: number } | undefined;
  if (setup.distillation) {
    const t = parseArchitecture(setup.distillation.teacher_architecture);
    if (!t.ok)
      return {
        ok: false,
        errors: t.problems.map((p) => ({ key: `distillation.teacher_architecture.${p.field}`, message: p.message })),
      };
    teacher = { arch: t.arch, params: setup.distillation.teacher_parameters ?? countParameters(t.arch).total };
  }
  // GRPO reward models named by Hub id: frozen sequence classifiers (one score) beside the policy.
  const rewardModels: RewardModel[] = [];
  for (const [i, rm] of (setup.rollout?.reward_models ?? []).entries()) {
    const t = parseArchitecture(rm.architecture);
    if (!t.ok)
      return {
        ok: false,
        errors: t.problems.map((p) => ({
          key: `rollout.reward_models.${i}.architecture.${p.field}`,
          message: `${rm.model}: ${p.message}`,
        })),
      };
    const count = countParameters(t.arch, 'seq_cls', 1);
    rewardModels.push({
      model: rm.model,
      arch: t.arch,
      params: rm.parameters ?? count.total,
      largestBlock: count.largestBlock,
      ...(rm.dtype ? { weightBytes: DTYPE_BYTES[rm.dtype] } : {}),
    });
  }
  // TRL GKD: the student trains on the generalized JSD against the teacher (not the cross-entropy), outside online RL.
  const gkd = teacher !== undefined && setup.distillation?.loss === 'jsd' && !setup.rollout;
  return { teacher, rewardModels, gkd };
}
