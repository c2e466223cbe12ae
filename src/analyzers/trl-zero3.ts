// What TRL's trainers do to checkpointing for a PEFT model under DeepSpeed ZeRO-3: from TRL 0.28 every trainer forces
// use_reentrant=True there, over the user's False with a warning ("PEFT + DeepSpeed ZeRO-3 requires reentrant
// checkpointing", huggingface/trl#4951, for trl#2514; trl/trainer/sft_trainer.py __init__). With DeepSpeed 0.19.3 or
// later a reentrant backward keeps every frozen layer gathered (core/terms/zero3-recompute-kept.ts). CPU truth:
// accelerate/llama-sft-z3-w8-lora-all-bf16-ckpt runs SFTTrainer so (tools/truth/FINDINGS.md §69). Pure.
import { olderThan, type ProvenanceMap, type TrainingSetup } from '../core';

/** The first TRL release that forces reentrant checkpointing for PEFT under ZeRO-3. */
const FORCED_SINCE = [0, 28] as const;

/**
 * The setup with reentrant checkpointing where the TRL release forces it (a PEFT model, ZeRO-3, checkpointing on);
 * the setup as it is otherwise.
 */
export function trlZero3Reentrant(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const peft = setup.method === 'lora' || setup.method === 'qlora' || setup.method === 'ia3';
  if (setup.zero_stage !== 3 || !peft || setup.gradient_checkpointing === 'none') return setup;
  if (setup.trl_version !== undefined && olderThan(setup.trl_version, ...FORCED_SINCE)) return setup;
  if (setup.checkpoint_reentrant === true) return setup;
  const over = setup.checkpoint_reentrant === false ? ", over the files' use_reentrant: false (with a warning)" : '';
  provenance.checkpoint_reentrant = {
    kind: 'default',
    owner: 'trl',
    note:
      `${setup.trl_version ? `TRL ${setup.trl_version}` : 'the current TRL'} forces use_reentrant=True for a PEFT ` +
      `model under DeepSpeed ZeRO-3 with checkpointing on${over} (huggingface/trl#4951, from 0.28)`,
  };
  return { ...setup, checkpoint_reentrant: true };
}
