// CPU offload (ZeRO-Offload, ZeRO-Infinity, FSDP), the tiled MLP, 8-bit and paged AdamW.
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import { type Move, type MoveContext, isInt8 } from './context';

export function offloadAndOptimizerMoves(context: MoveContext): Move[] {
  const m: Move[] = [];
  // FSDP has one CPU offload (CPUOffload(offload_params=True)): sharded parameters, their gradients and the optimizer
  // step all move to the host, whichever of the two keys asks for it.
  const fsdpOffload = 'FSDP CPU offload (parameters, gradients and optimizer step on the host)';
  m.push({
    id: 'offload-opt',
    group: 'offload',
    title: context.base.fsdp !== 'none' ? fsdpOffload : 'Offload the optimizer to CPU (ZeRO-Offload)',
    changesResult: false,
    apply: (s) =>
      s.offload_optimizer === 'none' && s.optimizer !== 'none'
        ? { offload_optimizer: 'cpu', ...(s.zero_stage === 0 && s.fsdp === 'none' ? { zero_stage: 2 as const } : {}) }
        : undefined,
  });
  m.push({
    id: 'offload-params',
    group: 'offload',
    title: context.base.fsdp !== 'none' ? fsdpOffload : 'Offload parameters and optimizer to CPU (ZeRO-Infinity)',
    changesResult: false,
    apply: (s) =>
      s.offload_params === 'none' && !isInt8(s)
        ? { offload_params: 'cpu', offload_optimizer: 'cpu', ...(s.fsdp === 'none' ? { zero_stage: 3 as const } : {}) }
        : undefined,
  });
  // Long sequences: a tiled MLP (DeepSpeed ALST TiledMLP, Axolotl tiled_mlp) keeps only each dense MLP's input and
  // recomputes it shard by shard in backward: one more MLP forward.
  m.push({
    id: 'tiled-mlp',
    group: 'mlp',
    title: 'Tiled MLP (sequence shards, recomputed in backward)',
    changesResult: false,
    apply: (s) => (s.tiled_mlp === false && s.seq_len >= 8192 ? { tiled_mlp: true } : undefined),
  });
  m.push({
    id: 'adam8bit',
    group: 'optimizer',
    title: 'Switch to 8-bit AdamW (bitsandbytes)',
    changesResult: false,
    apply: (s) =>
      ['adamw', 'adamw_fused', 'adamw_hf', 'paged_adamw'].includes(s.optimizer) && s.offload_optimizer === 'none'
        ? { optimizer: 'adamw_8bit' }
        : undefined,
  });
  m.push({
    id: 'paged8bit',
    group: 'optimizer',
    title: 'Paged 8-bit AdamW (spills to host under pressure)',
    changesResult: false,
    apply: (s) =>
      ['adamw', 'adamw_fused', 'adamw_hf', 'adamw_8bit'].includes(s.optimizer) && s.offload_optimizer === 'none'
        ? { optimizer: 'paged_adamw_8bit' }
        : undefined,
  });
  return m;
}
