// The planner of a Hydra config of the DPO reference implementation (analyzers/hydra; HALOs' in halos.ts): the keys
// its primary config writes at the top level, written where the file opened writes them. The model options
// (model/*.yaml) and the launch line's overrides are not written: a change of them is said as the reason. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx, RELATED } from '../ops';
import { batchOverAccumulation, torchOptimizer } from './common';
import { planHalos } from './halos';

/** How compose.ts names a key the launch line overrides. */
const LAUNCH_LINE = ' (launch line)';

export function planHydra(c: PlanCtx, ch: SetupChange): Planned {
  // A value the launch line overrides (placed at the key it replaces, compose.ts): the file's key does not decide it.
  const launched = c.file.facts.facts.find((f) => RELATED[ch.key]?.includes(f.key) && f.rawKey.endsWith(LAUNCH_LINE));
  if (launched) return no(`the launch line sets ${launched.rawKey.slice(0, -LAUNCH_LINE.length)}: change it there`);
  if (c.file.facts.tools.includes('halos')) return planHalos(c, ch);
  if (c.file.facts.tools.includes('rl2')) return no("RL2's settings are changed on its launch line");
  const batch = batchOverAccumulation(c, ch);
  if (batch) return batch;
  const v = ch.value;
  const trainer = c.fact('fsdp')?.value === 'full_shard' ? 'FSDPTrainer' : 'BasicTrainer';
  switch (ch.key) {
    case 'seq_len':
      return ok(op('max_length', Number(v)));
    case 'gradient_checkpointing':
      if (trainer !== 'FSDPTrainer') return no('only FSDPTrainer applies activation_checkpointing (trainers.py)');
      return ok(op('activation_checkpointing', v !== 'none'));
    case 'optimizer':
      return torchOptimizer(v);
    default:
      return no(`write ${ch.key} in the Hydra config (or its model option, or the launch line) by hand`);
  }
}
