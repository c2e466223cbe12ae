// PEFT's conversion of a LoRA config for transformers 5's fused MoE experts (peft/utils/transformers_weight_conversion.py
// `convert_peft_config_for_transformers` -> `_convert_peft_config_moe`, called by BaseTuner.inject_adapter when
// transformers >= 5; PEFT 0.19 on, `all-linear` 0.20 on): target_modules that name the 4.x expert modules or the router
// leave target_modules and become target_parameters on the fused 3-D parameters and the router's weight, the fused
// pair at twice the rank (rank_pattern) and twice the alpha (alpha_pattern). Pure.
// Docs: docs/estimate/adapters.md
import type { Architecture, LinearModule, PeftMoePattern } from '../architecture';
import type { TrainingSetup } from '../setup';
import { olderThan } from '../util/version';
import { fusedExpertsIn } from './normalize';

/** `_MOE_TARGET_MODULE_MAPPING`: each 4.x name, in PEFT's order, and the transformers 5 parameter it maps to. */
const MAPPING: Record<PeftMoePattern, ReadonlyArray<readonly [string, string]>> = {
  mixtral: [
    ['gate', 'gate.weight'],
    ['w1', 'gate_up_proj'],
    ['w3', 'gate_up_proj'],
    ['w2', 'down_proj'],
  ],
  qwen2_moe: [
    ['gate', 'gate.weight'],
    ['gate_proj', 'gate_up_proj'],
    ['up_proj', 'gate_up_proj'],
    ['down_proj', 'down_proj'],
  ],
};

/** `_MOE_FUSED_TARGETS`: the 4.x names fused into one parameter, which PEFT converts only together. */
const FUSED: Record<PeftMoePattern, { readonly into: string; readonly from: readonly string[] }> = {
  mixtral: { into: 'gate_up_proj', from: ['w1', 'w3'] },
  qwen2_moe: { into: 'gate_up_proj', from: ['gate_proj', 'up_proj'] },
};

/** What PEFT makes of a LoRA config on a model whose 4.x expert names it converts. */
export interface PeftMoeConversion {
  readonly pattern: PeftMoePattern;
  /** target_modules as PEFT leaves them: the entries that name no 4.x expert or router module. */
  readonly targetModules: readonly string[];
  /** The target_parameters PEFT adds (gate_up_proj, down_proj, gate.weight), without the fused one named in part. */
  readonly targetParameters: readonly string[];
  /** The target_modules entries PEFT moved, each with the parameter it names now. */
  readonly moved: ReadonlyArray<readonly [string, string]>;
  /** rank_pattern (and alpha_pattern) `.*\.gate_up_proj`: r x 2 when both fused halves are named. */
  readonly rankFactors: ReadonlyMap<string, number>;
  /** A fused pair named in part: PEFT raises ValueError ("Cannot convert PEFT target(s) w1 without also targeting w3"). */
  readonly partial?: {
    readonly present: readonly string[];
    readonly missing: readonly string[];
    readonly into: string;
  };
  /**
   * PEFT 0.19 with target_modules 'all-linear': `set(peft_config.target_modules)` splits the string into its
   * characters, which match no module (huggingface/peft#3229, fixed in 0.20 by `_resolve_string_target_modules`).
   */
  readonly stringSplit: boolean;
}

const leaf = (name: string): string => name.split('.').pop()!.toLowerCase();

/**
 * PEFT's conversion of the setup's LoRA targets, when it converts any: LoRA (not IA3 or other methods), transformers 5's
 * fused experts (Architecture.fusedExperts), a model type PEFT maps (Architecture.peftMoePattern), PEFT 0.19 or later
 * (unset: a current release), and a target that names a 4.x expert or router module. A name maps when it equals the
 * 4.x name or ends with `.` and it (`target == old_name or target.endswith(f".{old_name}")`); the shared experts' and
 * the dense layers' gate_proj / up_proj / down_proj (nn.Linear) match too, and so lose their adapters: the parameter
 * targets match `<module>.gate_up_proj` / `<module>.down_proj` only (BaseTuner._inject_parameters).
 */
export function peftMoeConversion(
  setup: TrainingSetup,
  lora: TrainingSetup['lora'],
  a: Architecture,
  mods: readonly LinearModule[],
): PeftMoeConversion | undefined {
  const pattern = a.peftMoePattern;
  if (!pattern || !lora || a.fusedExperts !== true || a.moe === undefined) return undefined;
  if (setup.method !== 'lora' && setup.method !== 'qlora') return undefined;
  if (olderThan(setup.peft_version, 0, 19)) return undefined;
  const mapping = MAPPING[pattern];
  // _resolve_string_target_modules: 'all-linear' is the leaf name of every nn.Linear but the output layer
  // (_maybe_include_all_linear_layers) with every 4.x name added, as transformers 4 had those as nn.Linear too.
  const names =
    lora.target_modules === 'all-linear'
      ? [...new Set([...mods.filter((m) => !m.parameter).map((m) => leaf(m.name)), ...mapping.map(([old]) => old)])]
      : lora.target_modules;
  const targetModules: string[] = [];
  const targetParameters: string[] = [];
  const moved: Array<readonly [string, string]> = [];
  const present = new Set<string>();
  for (const t of names) {
    const low = t.toLowerCase();
    const hit = mapping.find(([old]) => low === old || low.endsWith(`.${old}`));
    if (!hit) {
      targetModules.push(t);
      continue;
    }
    moved.push([t, hit[1]]);
    present.add(hit[0]);
    if (!targetParameters.includes(hit[1])) targetParameters.push(hit[1]);
  }
  if (moved.length === 0) return undefined;
  const fused = FUSED[pattern];
  const named = fused.from.filter((n) => present.has(n));
  const rankFactors = new Map<string, number>();
  if (named.length === fused.from.length) rankFactors.set(fused.into, fused.from.length);
  const partial =
    named.length > 0 && named.length < fused.from.length
      ? { present: named, missing: fused.from.filter((n) => !present.has(n)), into: fused.into }
      : undefined;
  return {
    pattern,
    targetModules,
    targetParameters: partial ? targetParameters.filter((p) => p !== partial.into) : targetParameters,
    moved,
    rankFactors,
    ...(partial ? { partial } : {}),
    stringSplit: lora.target_modules === 'all-linear' && olderThan(setup.peft_version, 0, 20),
  };
}

/**
 * Whether LoRA on 'all-linear' puts PEFT's lora.ParamWrapper on this model's experts (the conversion above applies:
 * transformers 5's fused experts, a model type PEFT maps, PEFT 0.19 or later): ParamWrapper refuses LoRA dropout and
 * DoRA, so an advice move that proposes such LoRA sets dropout 0.
 */
export function peftWrapsExperts(setup: TrainingSetup, a: Architecture): boolean {
  return a.peftMoePattern !== undefined && fusedExpertsIn(setup, a) && !olderThan(setup.peft_version, 0, 19);
}
