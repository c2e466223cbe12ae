// The HF Trainer's default optimizer, which depends on the stack: `optim` defaults to adamw_torch_fused where torch is
// 2.8 or later, from transformers 4.54 (huggingface/transformers#37358, training_args.py: `default_optim =
// "adamw_torch_fused"` under is_torch_greater_or_equal_than_2_8), to adamw_torch before. The fused kernel steps the
// parameters in place; the foreach one makes whole-model temporaries (terms/optimizer-step.ts). Applied where the
// optimizer is a Trainer-based tool's default (HF Trainer, TRL, LLaMA-Factory, ms-swift), once the versions are known:
// the files' pins, else the current releases. Pure.
import { olderThan, type ProvenanceMap, type TrainingSetup } from '../core';

/** Tools whose optimizer is TrainingArguments' `optim` default. */
const TRAINER_OPTIM_TOOLS: ReadonlySet<string> = new Set(['hf-trainer', 'trl', 'llamafactory', 'ms-swift']);

const HF = 'huggingface/transformers#37358, transformers/training_args.py';

/** The setup with a Trainer-default optimizer set as the stack's release defaults it; the same objects when unchanged. */
export function trainerDefaultOptimizer(
  setup: TrainingSetup,
  provenance: ProvenanceMap,
): { setup: TrainingSetup; provenance: ProvenanceMap } {
  const prov = provenance.optimizer;
  if (prov?.kind !== 'default' || !TRAINER_OPTIM_TOOLS.has(prov.owner)) return { setup, provenance };
  if (setup.optimizer !== 'adamw' && setup.optimizer !== 'adamw_fused') return { setup, provenance };
  const oldTransformers = olderThan(setup.transformers_version, 4, 54);
  const oldTorch = olderThan(setup.pytorch_version, 2, 8);
  const fused = !oldTransformers && !oldTorch;
  const value = fused ? 'adamw_fused' : 'adamw';
  const release = oldTransformers ? `transformers ${setup.transformers_version}` : `torch ${setup.pytorch_version}`;
  const note = fused
    ? `optim defaults to adamw_torch_fused with torch >= 2.8 from transformers 4.54 (${HF}); adamw_torch before: ` +
      'set optim, or pin torch / transformers, for an older stack'
    : `optim defaults to adamw_torch with ${release} (adamw_torch_fused from transformers 4.54 with torch >= 2.8; ${HF})`;
  if (setup.optimizer === value && prov.note === note) return { setup, provenance };
  return {
    setup: { ...setup, optimizer: value },
    provenance: { ...provenance, optimizer: { kind: 'default', owner: prov.owner, note } },
  };
}
