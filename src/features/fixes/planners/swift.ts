// The planner of ms-swift's argument files (analyzers/yaml/swift.ts): swift takes the HF TrainingArguments' names, and
// its own max_length. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx } from '../ops';

export function planSwiftArgs(_c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('per_device_train_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('gradient_accumulation_steps', Number(v)));
    case 'seq_len':
      return ok(op('max_length', Number(v)));
    case 'gradient_checkpointing':
      return v === 'selective'
        ? no('swift has no selective checkpointing')
        : ok(op('gradient_checkpointing', v === 'full'));
    default:
      return no(`write ${ch.key} in the swift argument file by hand`);
  }
}
