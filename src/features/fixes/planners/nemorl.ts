// The NeMo-RL planner (analyzers/yaml/nemorl.ts): the policy's micro-batch, its sequence length, checkpointing and CPU
// offload at the keys of the worker the config runs (dtensor_cfg for the DTensor worker, the policy's own for FSDP1).
// Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx } from '../ops';

/** Whether the config runs the DTensor worker (dtensor_cfg.enabled: FSDP2 facts). */
const dtensor = (c: PlanCtx): boolean => c.fact('fsdpVersion')?.value === 2;

export function planNemoRl(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('policy.train_micro_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      // The accumulation is train_global_batch_size / (train_micro_batch_size x data-parallel GPUs).
      return c.changed('micro_batch_size') !== undefined
        ? ok()
        : no('the accumulation is train_global_batch_size / (train_micro_batch_size x GPUs): change the micro-batch');
    case 'seq_len':
      return ok(op('policy.max_total_sequence_length', Number(v)));
    case 'gradient_checkpointing':
      if (dtensor(c)) return ok(op('policy.dtensor_cfg.activation_checkpointing', v !== 'none'));
      return ok(op('policy.activation_checkpointing_enabled', v !== 'none'));
    case 'offload_optimizer':
    case 'offload_params': {
      // Both workers offload the parameters, gradients and optimizer states together.
      const other = c.changed(ch.key === 'offload_optimizer' ? 'offload_params' : 'offload_optimizer');
      if (v === 'cpu' && other !== 'cpu') return no('NeMo-RL offloads parameters and optimizer states together');
      const key = dtensor(c) ? 'policy.dtensor_cfg.cpu_offload' : 'policy.fsdp_offload_enabled';
      return ok(op(key, v === 'cpu'));
    }
    default:
      return no(`write ${ch.key} in the NeMo-RL config by hand`);
  }
}
