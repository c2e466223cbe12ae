// The Oumi planner (analyzers/yaml/oumi.ts): the micro-batch, the accumulation, the sequence length, checkpointing,
// the optimizer and the LoRA rank at Oumi's keys. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx } from '../ops';
import { str } from './common';

export function planOumi(_c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('training.per_device_train_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('training.gradient_accumulation_steps', Number(v)));
    case 'seq_len':
      return ok(op('model.model_max_length', Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective') return no('Oumi checkpoints whole layers (enable_gradient_checkpointing)');
      return ok(op('training.enable_gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = { adamw: 'adamw_torch', adamw_fused: 'adamw_torch_fused', adamw_8bit: 'adamw_8bit' }[str(v)];
      return name
        ? ok(op('training.optimizer', name))
        : no(`write the optimizer ${str(v)} in training.optimizer by hand`);
    }
    default:
      return no(`write ${ch.key} in the Oumi config by hand`);
  }
}
