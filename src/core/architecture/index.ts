// The architecture of a Hugging Face config.json: parse it into a normalized Architecture, list its linear modules,
// count its parameters exactly, and look up what its family does differently (FAMILY_TRAITS). This file is the folder's
// public surface; the rest is internal. Pure: no I/O.
export { FAMILY_ALIASES, SUPPORTED_MODEL_TYPES } from './aliases';
export { attentionLayerCount, countParameters, encoderLayerParameters } from './count';
export {
  FUSED_EXPERT_FAMILIES,
  PEFT_MOE_PATTERNS,
  expertsIn3dParameters,
  groupedMmExperts,
  withFusedExperts,
  withSequentialExperts,
} from './experts';
export { litgptHead } from './litgpt-head';
export {
  FAMILY_TRAITS,
  isEncoderDecoder,
  type ConfigKeys,
  type EagerOnlyAttention,
  type FamilyTraits,
  type SizeField,
} from './families';
export { BERT_LINEARS, DEBERTA_LINEARS, DISTILBERT_LINEARS, type EncoderLinears, linearModules } from './modules';
export { LITGPT_ROLE_NAMES, litgptAdaptedParts, litgptQkvParts, litgptRoleTargets } from './litgpt-roles';
export { parseArchitecture } from './parse';
export { visionLinearNames } from './vision-modules';
export { PEFT_LORA_DEFAULT_SOURCE, PEFT_LORA_DEFAULT_TARGETS, peftDefaultLoraTargets } from './peft-lora-targets';
export type {
  Architecture,
  ArchitectureProblem,
  ArchitectureResult,
  Family,
  LinearAttentionSpec,
  LinearModule,
  Mamba1Spec,
  Mamba2Spec,
  MlaSpec,
  MoeSpec,
  ParameterCount,
  PeftMoePattern,
} from './types';
