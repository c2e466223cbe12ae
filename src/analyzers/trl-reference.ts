// What dtype TRL loads a model in by its name when no file says: a policy given as a model id, GRPO's reward models, and
// the reference copy. GRPO and RLOO (from TRL 0.19) and DPO (from 0.29) load the frozen reference by the policy's
// name, not as a copy of the policy object (trl grpo_trainer.py "create a reference
// model from scratch": create_model_from_path(get_config_model_id(model.config), **model_init_kwargs); dpo_trainer.py
// create_model_from_path(ref_model_path, **ref_model_init_kwargs)), with the trainer config's model_init_kwargs: their
// dtype, else TRL's default: float32 from 0.27 (trl#4778, create_model_from_path `kwargs.get("dtype", "float32")`),
// the checkpoint's in 0.26 (dtype "auto"), transformers' default before (float32 in 4.x, the checkpoint's from 5). A
// policy the trainer loads by its name, or a dtype in model_init_kwargs, gives the policy the same dtype: only a policy
// the script loads itself can differ from its reference. The rules the pipeline applies (pipeline.ts trlLoads).
// Pure.
import { olderThan, type Dtype, type TrainingSetup } from '../core';
import type { Fact } from './facts';

type ReferenceFields = Pick<
  TrainingSetup,
  'method' | 'weights_dtype' | 'rollout' | 'preference' | 'trl_version' | 'transformers_version' | 'zero_stage'
>;

/**
 * The reference's load dtype where it is not the model's weights dtype, with the reason; undefined where TRL copies
 * the policy, the script gives the reference, or the dtypes agree. `facts`: the TRL run's files' facts.
 */
export function trlReferenceDtype(
  s: ReferenceFields,
  facts: readonly Fact[],
  checkpointDtype: Dtype | undefined,
): { value: Dtype; note: string } | undefined {
  if (s.method !== 'full' || facts.some((f) => f.key === 'referenceModel' && f.value === 'given')) return undefined;
  // Under DeepSpeed with 16-bit weights TRL initializes the reference with the run's DeepSpeed config
  // (trl/models/utils.py prepare_deepspeed): ZeRO-3's zero.Init builds it in that dtype, and the engine casts a
  // module it initializes under bf16 / fp16 (deepspeed/runtime/engine.py _configure_distributed_model).
  if (s.zero_stage >= 1 && (s.weights_dtype === 'bf16' || s.weights_dtype === 'fp16')) return undefined;
  const trainer = loadingTrainer(s);
  if (!trainer) return undefined;
  // The policy loaded by TRL from its name, or a dtype in model_init_kwargs: the reference is loaded the same way.
  if (trlLoadsPolicy(facts) || trlLoadDtype(facts) !== undefined) return undefined;
  const release = trlDefault(s, checkpointDtype);
  if (!release || release.value === s.weights_dtype) return undefined;
  return {
    value: release.value,
    note: `${trainer} loads its reference by the policy's name (${release.why}); model_init_kwargs={"dtype": ...} sets it`,
  };
}

/** Whether the files give TRL the policy by its name (a trainer's `model="org/name"`, the TRL CLI's model_name_or_path). */
export function trlLoadsPolicy(facts: readonly Fact[]): boolean {
  return facts.some(
    (f) => f.tool === 'trl' && f.key === 'model' && (f.rawKey === 'model' || f.rawKey === 'model_name_or_path'),
  );
}

/** The load dtype the files give TRL (model_init_kwargs, the TRL CLI's dtype), if any. */
export function trlLoadDtype(facts: readonly Fact[]): Dtype | undefined {
  const v = facts.find((f) => f.tool === 'trl' && f.key === 'weightsDtype')?.value;
  return v === 'fp32' || v === 'bf16' || v === 'fp16' ? v : undefined;
}

/** The TRL trainer that loads its reference by name, in the pinned release (unset: a current one). */
function loadingTrainer(s: ReferenceFields): string | undefined {
  if (s.rollout?.reference === 'copy') return olderThan(s.trl_version, 0, 19) ? undefined : 'GRPOTrainer / RLOOTrainer';
  const dpo = s.preference?.reference === 'copy' && s.preference.paired !== false;
  return dpo && !olderThan(s.trl_version, 0, 29) ? 'DPOTrainer' : undefined;
}

/**
 * The dtype TRL loads a model by its name in without model_init_kwargs, by release: the policy given to a trainer as a
 * name, and the reference loaded by the policy's name.
 */
export function trlDefault(
  s: Pick<TrainingSetup, 'trl_version' | 'transformers_version'>,
  checkpointDtype: Dtype | undefined,
): { value: Dtype; why: string } | undefined {
  if (!olderThan(s.trl_version, 0, 27)) return { value: 'fp32', why: 'in float32 unless a dtype is given, TRL 0.27+' };
  if (!olderThan(s.trl_version, 0, 26) || !olderThan(s.transformers_version, 5, 0))
    return checkpointDtype ? { value: checkpointDtype, why: 'dtype="auto": the checkpoint\'s' } : undefined;
  return { value: 'fp32', why: "transformers 4.x's default, float32" };
}

/**
 * The dtype GRPOTrainer loads a reward model given by name in: AutoModelForSequenceClassification.from_pretrained with
 * the config's model_init_kwargs (their dtype, `given`), else transformers' default: the checkpoint's from 5
 * (dtype="auto"), float32 in 4.x. Undefined where it is the model's weights dtype or not known.
 */
export function trlRewardDtype(
  s: Pick<TrainingSetup, 'weights_dtype' | 'transformers_version'>,
  given: Dtype | undefined,
  checkpointDtype: Dtype | undefined,
): Dtype | undefined {
  const d = given ?? (olderThan(s.transformers_version, 5, 0) ? 'fp32' : (checkpointDtype ?? 'fp32'));
  return d === s.weights_dtype ? undefined : d;
}
