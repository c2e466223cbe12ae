// The torchtitan planner (analyzers/toml/torchtitan.ts), for its TOML and forge's YAML: the per-GPU batch, the sequence length, activation
// checkpointing, CPU offload, compile and the optimizer's implementation, each at the key of the layout the file uses
// (`training.local_batch_size` from June 2025, `training.batch_size` before). Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx } from '../ops';

/** Whether the file is written in the layout before June 2025 (`training.batch_size`, the degrees under [training]). */
const older = (c: PlanCtx): boolean =>
  c.file.facts.facts.some((f) => f.rawKey === 'training.batch_size') ||
  (/^\s*batch_size\s*=/m.test(c.file.text) && !/^\s*local_batch_size\s*=/m.test(c.file.text));

export function planTorchtitan(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op(older(c) ? 'training.batch_size' : 'training.local_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      // global_batch_size = local_batch_size x data-parallel degree x accumulation: it needs the run's GPUs.
      if (c.changed('micro_batch_size') !== undefined && !c.fact('trainBatchSize')) return ok();
      return no('the accumulation is training.global_batch_size / (local_batch_size x data-parallel GPUs): edit it');
    case 'seq_len':
      return ok(op('training.seq_len', Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective')
        return ok(op('activation_checkpoint.mode', 'selective'), op('activation_checkpoint.selective_ac_option', 'op'));
      return ok(op('activation_checkpoint.mode', v === 'full' ? 'full' : 'none'));
    case 'offload_optimizer':
    case 'offload_params': {
      // enable_cpu_offload moves parameters, gradients and optimizer states together (FSDP2 CPUOffloadPolicy).
      const other = c.changed(ch.key === 'offload_optimizer' ? 'offload_params' : 'offload_optimizer');
      if (v === 'cpu' && other === 'cpu') return ok(op('training.enable_cpu_offload', true));
      if (v === 'none' && other !== 'cpu') return ok(op('training.enable_cpu_offload', false, { when: 'present' }));
      return no('torchtitan offloads parameters and optimizer states together (training.enable_cpu_offload)');
    }
    case 'compile':
      return ok(op(older(c) ? 'training.compile' : 'compile.enable', Boolean(v)));
    case 'optimizer': {
      const impl = { adamw_fused: 'fused', adamw: 'foreach', adamw_hf: 'for-loop' }[String(v)];
      if (!impl) return no(`torchtitan builds torch.optim's Adam / AdamW only; ${String(v)} is not one`);
      if (older(c))
        return impl === 'for-loop'
          ? no('this layout has `optimizer.fused` only')
          : ok(op('optimizer.fused', impl === 'fused'));
      return ok(op('optimizer.implementation', impl));
    }
    default:
      return no(`write ${ch.key} in the torchtitan job config by hand`);
  }
}

/** forge's app config: torchtitan's keys, under `trainer:` where the file keeps its trainer's job config there. */
export function planForge(c: PlanCtx, ch: SetupChange): Planned {
  const planned = planTorchtitan(c, ch);
  const nested = c.file.facts.facts.some((f) => f.rawKey.startsWith('trainer.'));
  if (!nested || !('ops' in planned)) return planned;
  return { ops: planned.ops.map((o) => ({ ...o, path: ['trainer', ...o.path] })) };
}
