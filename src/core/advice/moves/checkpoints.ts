// Checkpoints: FSDP1 sharded checkpoints that older Accelerate releases build on the GPU (terms/checkpoint-save.ts).
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import { ACCELERATE_SHARDS_TO_CPU, shardedSaveOnGpu } from '../../terms/checkpoint-save';
import type { Move } from './context';

export function checkpointMoves(): Move[] {
  return [
    // FULL_STATE_DICT: Accelerate's plugin sets FullStateDictConfig(offload_to_cpu=True, rank0_only=True), so each unit
    // is unsharded in turn and copied to rank 0's host memory; no shard is cloned on the GPU.
    {
      id: 'fsdp-full-state-dict',
      group: 'checkpoint',
      title: "Save checkpoints as FULL_STATE_DICT (gathered unit by unit into rank 0's CPU memory)",
      changesResult: false,
      apply: (s) => (shardedSaveOnGpu(s) ? { fsdp_state_dict_type: 'full' } : undefined),
    },
    // Accelerate 0.31 sets ShardedStateDictConfig(offload_to_cpu=True) (huggingface/accelerate#2762): the clones of
    // each shard go to the host as they are made.
    {
      id: 'accelerate-shards-to-cpu',
      group: 'checkpoint',
      title: `Upgrade Accelerate to ${ACCELERATE_SHARDS_TO_CPU} or later (sharded checkpoints built in CPU memory)`,
      changesResult: false,
      apply: (s) => (shardedSaveOnGpu(s) ? { accelerate_version: ACCELERATE_SHARDS_TO_CPU } : undefined),
    },
  ];
}
