// The planner of a Hydra config of the DPO reference implementation (analyzers/hydra): the keys its primary config
// writes at the top level, written where the file opened writes them. The model options (model/*.yaml) and the launch
// line's overrides are not written: a change of them is said as the reason. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx } from '../ops';
import { str } from './common';

/** torch.optim classes the trainer makes by name (`getattr(torch.optim, config.optimizer)`). */
const TORCH_OPTIM: Readonly<Record<string, string>> = { adamw: 'AdamW', sgd: 'SGD', rmsprop: 'RMSprop' };

export function planHydra(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const trainer = c.fact('fsdp')?.value === 'full_shard' ? 'FSDPTrainer' : 'BasicTrainer';
  switch (ch.key) {
    // The micro-batch is batch_size / (gradient_accumulation_steps x GPUs): the accumulation says it.
    case 'gradient_accumulation_steps':
      return ok(op('gradient_accumulation_steps', Number(v)));
    case 'micro_batch_size':
      return c.changed('gradient_accumulation_steps') !== undefined
        ? ok()
        : no(
            'the micro-batch is batch_size / (gradient_accumulation_steps x GPUs): change gradient_accumulation_steps',
          );
    case 'seq_len':
      return ok(op('max_length', Number(v)));
    case 'gradient_checkpointing':
      if (trainer !== 'FSDPTrainer') return no('only FSDPTrainer applies activation_checkpointing (trainers.py)');
      return ok(op('activation_checkpointing', v !== 'none'));
    case 'optimizer':
      return TORCH_OPTIM[str(v)]
        ? ok(op('optimizer', TORCH_OPTIM[str(v)]))
        : no(`torch.optim has no class for ${str(v)}`);
    default:
      return no(`write ${ch.key} in the Hydra config (or its model option, or the launch line) by hand`);
  }
}
