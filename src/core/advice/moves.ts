// The changes a practitioner would make to a setup that does not fit (the Move table), and how a chain of them
// is applied. The table's sections live in advice/moves/; their order here is the table's order, which the advice
// lists follow. Pure; no I/O.
// Docs: docs/estimate/advice.md
import type { SetupChange } from './types';
import type { TrainingSetup } from '../setup';
import { parseArchitecture } from '../architecture';
import { peftWrapsExperts } from '../estimate';
import { derivedBlocks, type Move, type MoveContext } from './moves/context';
import { adapterAndBatchMoves } from './moves/adapters';
import { checkpointMoves } from './moves/checkpoints';
import { kernelMoves } from './moves/kernels';
import { offloadAndOptimizerMoves } from './moves/offload';
import { precisionMoves } from './moves/precision';
import { rolloutMoves } from './moves/rollout';
import { shardingMoves } from './moves/sharding';
import { tradeOffMoves } from './moves/tradeoffs';

export type { Move, MoveContext } from './moves/context';

export function moves(base: TrainingSetup, bf16: boolean): Move[] {
  const parsed = parseArchitecture(base.architecture);
  const context: MoveContext = {
    base,
    bf16,
    halfDtype: bf16 ? 'bf16' : 'fp16',
    worldSize: base.gpus_per_node * base.nodes,
    allLinearDropout: parsed.ok && peftWrapsExperts(base, parsed.arch) ? 0 : 0.05,
    derived: derivedBlocks(),
  };
  return [
    ...precisionMoves(context),
    ...rolloutMoves(context),
    ...kernelMoves(context),
    ...shardingMoves(context),
    ...checkpointMoves(),
    ...tradeOffMoves(context),
    ...offloadAndOptimizerMoves(context),
    ...adapterAndBatchMoves(context),
  ];
}

export function applyAll(
  base: TrainingSetup,
  ms: readonly Move[],
  settle: (s: TrainingSetup) => TrainingSetup = (s) => s,
): { setup: TrainingSetup; changes: SetupChange[] } | undefined {
  let s = base;
  const changes = new Map<keyof TrainingSetup, unknown>();
  for (const mv of ms) {
    const patch = mv.apply(s);
    if (!patch) return undefined;
    s = settle({ ...s, ...patch });
    for (const [k, v] of Object.entries(patch)) changes.set(k as keyof TrainingSetup, v);
  }
  return { setup: s, changes: [...changes].map(([key, value]) => ({ key, value })) };
}
