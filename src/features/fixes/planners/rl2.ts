// The RL2 planner (a launch line `torchrun -m RL2.trainer.<trainer> key=value ...`: analyzers/shell/rl2.ts,
// analyzers/hydra/rl2.ts): a change is an override the line already writes, rewritten there. RL2's configs reject a
// key they do not have, and a fork's keys differ from RL2's, so no override is added; a change of what the line does
// not write is said as a reason. The GPU count is the launcher's (the shell planner's). Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, op, ok, no, type PlanCtx } from '../ops';

/** A launch line's override of RL2's config, rewritten in place. */
const set = (key: string, value: boolean | number): Planned => ok(op(key, value, { hydra: true }));

/** RL2's overrides for one change; undefined where the shell planner's launcher options apply (the GPUs). */
export function planRl2(c: PlanCtx, ch: SetupChange): Planned | undefined {
  const v = ch.value;
  switch (ch.key) {
    case 'gpus_per_node':
    case 'nodes':
      return undefined;
    case 'micro_batch_size':
      return no('RL2 packs each micro-batch up to max_length_per_device tokens: change that instead');
    case 'seq_len':
      return packingLength(c, Number(v));
    case 'gradient_checkpointing': {
      const f = c.fact('gradientCheckpointing');
      if (v === 'selective') return no('RL2 has no selective checkpointing');
      return f ? set(f.rawKey, v === 'full') : no('the launch line does not set checkpointing: set it in its config');
    }
    default:
      return no(`no RL2 override on this launch line for ${ch.key}`);
  }
}

/**
 * A shorter packed micro-batch: max_length_per_device scaled as the sequence the estimate counts from it (x cp_size,
 * halved for a chosen and a rejected sequence), where the line writes it.
 */
function packingLength(c: PlanCtx, seq: number): Planned {
  const f = c.fact('seqLen');
  const written = f ? Number(f.rawValue) : NaN;
  if (!f || typeof f.value !== 'number' || !Number.isSafeInteger(written) || written <= 0)
    return no('the launch line does not set max_length_per_device: set it in its config');
  const perDevice = Math.floor((written * seq) / f.value);
  return perDevice > 0 ? set(f.rawKey, perDevice) : no(`a sequence of ${seq} tokens packs no token per GPU`);
}
