// What the HF Trainer asks of DDP that a file does not say: find_unused_parameters. transformers' Trainer passes the
// file's ddp_find_unused_parameters, else true for a model that is not a PreTrainedModel (a PEFT model) or one without
// gradient checkpointing (trainer.py: `find_unused_parameters = not model.is_gradient_checkpointing`, True otherwise),
// to Accelerate's DDP. Tools on the Trainer that decide it themselves: Axolotl passes bool(ddp_find_unused_parameters),
// false unless set (axolotl src/axolotl/core/builders/causal.py), LLaMA-Factory false for LoRA (hparams/parser.py).
// The rule the pipeline applies (pipeline.ts trainerDdp) and the published cases' reader (bench/case-reading.ts). Pure.
import type { TrainingSetup } from '../core';

/** The tools whose DDP runs through the HF Trainer. */
export const TRAINER_DDP_TOOLS: ReadonlySet<string> = new Set(['hf-trainer', 'trl', 'llamafactory', 'axolotl']);

type DdpFields = Pick<
  TrainingSetup,
  | 'method'
  | 'gradient_checkpointing'
  | 'fsdp'
  | 'zero_stage'
  | 'gpus_per_node'
  | 'nodes'
  | 'tensor_parallel'
  | 'pipeline_parallel'
  | 'context_parallel'
>;

/** find_unused_parameters as the tool's Trainer sets it under DDP, when it is true; undefined otherwise. */
export function trainerFindUnused(tool: string, s: Partial<DdpFields>): { value: true; note: string } | undefined {
  const world = (s.gpus_per_node ?? 1) * (s.nodes ?? 1);
  const modelParallel = (s.tensor_parallel ?? 1) * (s.pipeline_parallel ?? 1) * (s.context_parallel ?? 1);
  const ddp = world / modelParallel > 1 && (s.fsdp ?? 'none') === 'none' && (s.zero_stage ?? 0) === 0;
  if (!ddp || !TRAINER_DDP_TOOLS.has(tool) || tool === 'axolotl') return undefined;
  const peft = s.method !== undefined && s.method !== 'full';
  if (tool === 'llamafactory' && peft) return undefined;
  if (peft) {
    return {
      value: true,
      note:
        'the HF Trainer asks DDP for find_unused_parameters for a PEFT model (not a PreTrainedModel) unless ' +
        'ddp_find_unused_parameters is set (transformers trainer.py)',
    };
  }
  if ((s.gradient_checkpointing ?? 'none') !== 'none') return undefined;
  return {
    value: true,
    note:
      'the HF Trainer asks DDP for find_unused_parameters for a model without gradient checkpointing unless ' +
      'ddp_find_unused_parameters is set (transformers trainer.py)',
  };
}
