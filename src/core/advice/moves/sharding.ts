// Sharding across the GPUs (DeepSpeed ZeRO, FSDP), more GPUs, the optimizer on NVMe.
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import { defersGradientSync, type TrainingSetup } from '../../setup';
import { linearsKeepGatheredWeights } from '../../terms/zero3-linear-kept';
import { type Move, type MoveContext, isInt8 } from './context';

export function shardingMoves(context: MoveContext): Move[] {
  const m: Move[] = [];
  if (context.worldSize > 1) {
    for (const z of [1, 2, 3] as const) {
      m.push({
        id: `zero${z}`,
        group: 'sharding',
        title: `DeepSpeed ZeRO stage ${z}`,
        changesResult: false,
        apply: (s) =>
          s.fsdp === 'none' && s.zero_stage < z && !(z === 3 && isInt8(s))
            ? { zero_stage: z, ...(s.weights_dtype !== 'fp32' && s.method === 'full' ? { master_weights: true } : {}) }
            : undefined,
      });
    }
    m.push({
      id: 'zero3-offload-opt',
      group: 'sharding',
      title: 'ZeRO-3 with the optimizer offloaded to CPU',
      changesResult: false,
      apply: (s) =>
        s.fsdp === 'none' && s.offload_optimizer === 'none' && !isInt8(s)
          ? { zero_stage: 3, offload_optimizer: 'cpu' }
          : undefined,
    });
  }
  if (context.worldSize > 1) {
    for (const f of ['full_shard', 'shard_grad_op', 'hybrid_shard'] as const) {
      if (f === 'hybrid_shard' && context.base.nodes === 1) continue;
      m.push({
        id: `fsdp-${f}`,
        group: 'sharding',
        title: `FSDP ${f.toUpperCase()}`,
        changesResult: false,
        apply: (s) =>
          s.fsdp !== f && s.zero_stage === 0 && !isInt8(s)
            ? { fsdp: f, ...(s.weights_dtype !== 'fp32' && s.method === 'full' ? { master_weights: true } : {}) }
            : undefined,
      });
    }
  }
  // The HF Trainer's no_sync keeps every unsharded gradient between micro-batches (terms/gradients.ts); syncing each
  // micro-batch (Accelerate sync_each_batch) keeps only the shards, at one reduce-scatter per micro-batch.
  m.push({
    id: 'fsdp-sync-each-batch',
    group: 'sharding',
    title: 'Reduce-scatter the gradients every micro-batch (sync_each_batch instead of no_sync)',
    changesResult: false,
    apply: (s) => (defersGradientSync(s) ? { fsdp_no_sync: false } : undefined),
  });
  // A model made outside deepspeed.zero.Init reaches the GPU whole before ZeRO-3 partitions it
  // (terms/zero3-module-to-device.ts), and keeps its linears' gathered weights until their backward before DeepSpeed
  // 0.19.4 (terms/zero3-linear-kept.ts); made inside it, it is partitioned as it is built.
  m.push({
    id: 'zero3-init',
    group: 'sharding',
    title:
      'Make the model inside deepspeed.zero.Init (zero3_init_flag, or HfDeepSpeedConfig before from_pretrained): ' +
      'ZeRO-3 partitions it as it is built instead of moving it to the GPU whole',
    changesResult: false,
    apply: (s) => (linearsKeepGatheredWeights(s) || movesWholeModel(s) ? { zero3_init: true } : undefined),
  });
  for (const factor of [2, 4]) {
    m.push({
      id: `gpus-x${factor}`,
      group: 'scale',
      title: `${factor}x the GPUs (${context.worldSize * factor} in total) with sharded model states`,
      changesResult: false,
      apply: (s) => {
        if (isInt8(s)) return undefined;
        const total = s.gpus_per_node * s.nodes * factor;
        const perNode = Math.min(total, 8);
        return {
          gpus_per_node: perNode,
          nodes: Math.max(1, total / perNode),
          ...(s.zero_stage === 0 && s.fsdp === 'none' ? { zero_stage: 3 as const } : {}),
        };
      },
    });
  }
  // FSDP has no NVMe offload: from an FSDP setup this switches to DeepSpeed ZeRO-3, and it does not follow a move
  // that just chose an FSDP mode (that move would be undone).
  m.push({
    id: 'offload-opt-nvme',
    group: 'offload',
    title:
      context.base.fsdp !== 'none'
        ? 'Switch to DeepSpeed ZeRO-3 with the optimizer on NVMe (ZeRO-Infinity)'
        : 'Offload the optimizer to NVMe (ZeRO-Infinity)',
    changesResult: false,
    apply: (s) =>
      s.offload_optimizer !== 'nvme' && s.optimizer !== 'none' && s.fsdp === context.base.fsdp && !isInt8(s)
        ? { offload_optimizer: 'nvme', zero_stage: 3 as const, fsdp: 'none' }
        : undefined,
  });
  return m;
}

/** ZeRO-3 gets a model made outside zero.Init, which DeepSpeed moves to the GPU whole first (a quantized one is there). */
const movesWholeModel = (s: TrainingSetup): boolean =>
  s.zero_stage === 3 && s.zero3_init === false && !s.quantization && s.fsdp === 'none';
