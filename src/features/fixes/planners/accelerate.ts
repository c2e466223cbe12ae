// The Accelerate YAML planner. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Planned, op, ok, no, type PlanCtx } from '../ops';
import { ACCELERATE_MP, ACCELERATE_FSDP, FSDP_STATE_DICT } from './vocab';
import { str } from './common';

/** Accelerate YAML (FORMATS.md §4): mixed_precision, deepspeed_config.*, num_processes / num_machines, fsdp_config. */
export function planAccelerate(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const dt = /^distributed_type:\s*['"]?(\w+)/m.exec(c.file.text)?.[1]?.toUpperCase();
  const deepspeed = (key: string, value: Val): Planned => {
    if (dt === 'DEEPSPEED') return ok(op(['deepspeed_config', key], value));
    if (dt === 'FSDP') return no('this Accelerate config uses FSDP, not DeepSpeed');
    if (/deepspeed_config_file/.test(c.file.text)) return no('the DeepSpeed settings live in deepspeed_config_file');
    return ok(op('distributed_type', 'DEEPSPEED'), op(['deepspeed_config', key], value));
  };
  switch (ch.key) {
    case 'mixed_precision':
      return ok(op('mixed_precision', ACCELERATE_MP[str(v)] ?? str(v)));
    case 'zero_stage':
      return deepspeed('zero_stage', Number(v));
    case 'offload_optimizer':
      return deepspeed('offload_optimizer_device', str(v));
    case 'offload_params':
      return deepspeed('offload_param_device', str(v));
    case 'zero3_init':
      // The flag decides for a script's own loop; a Trainer script's model load order decides for it (the fix is then
      // planned in the script).
      return dt === 'DEEPSPEED'
        ? ok(op(['deepspeed_config', 'zero3_init_flag'], Boolean(v)))
        : no('this Accelerate config does not use DeepSpeed');
    case 'gradient_accumulation_steps':
      return dt === 'DEEPSPEED' && c.fact('gradientAccumulationSteps')
        ? ok(op('deepspeed_config.gradient_accumulation_steps', Number(v)))
        : no('Accelerate takes the accumulation from the training script');
    case 'gpus_per_node': {
      const nodesFact = c.fact('nodes');
      const nodes =
        (c.changed('nodes') as number | undefined) ?? (typeof nodesFact?.value === 'number' ? nodesFact.value : 1);
      return ok(op('num_processes', Number(v) * nodes));
    }
    case 'nodes':
      return c.fact('nodes') || Number(v) !== 1 ? ok(op('num_machines', Number(v))) : ok();
    case 'fsdp': {
      if (dt !== 'FSDP')
        return no('switching Accelerate to FSDP needs a whole fsdp_config block; run `accelerate config`');
      const s = ACCELERATE_FSDP[str(v)];
      if (!s) return no(`no FSDP sharding strategy for ${str(v)}`);
      return ok(op('fsdp_config.fsdp_sharding_strategy', s));
    }
    case 'fsdp_state_dict_type': {
      if (dt !== 'FSDP') return no('this Accelerate config does not use FSDP');
      const name = FSDP_STATE_DICT[str(v)];
      if (!name) return no(`no FSDP state dict type for ${str(v)}`);
      return ok(op(c.fact('fsdpStateDictType')?.rawKey ?? 'fsdp_config.fsdp_state_dict_type', name));
    }
    default:
      return no(`an Accelerate config has no setting for ${ch.key}`);
  }
}
