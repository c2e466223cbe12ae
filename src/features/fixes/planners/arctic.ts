// The ArcticTraining planner (analyzers/yaml/arctic.ts): the micro-batch, the accumulation, the sequence length,
// checkpointing and its CPU offload, tiled MLP, the ZeRO stage and offload of the inline DeepSpeed config, and the
// LoRA rank of model.peft_config, at ArcticTraining's keys. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx } from '../ops';

export function planArctic(_c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('micro_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('gradient_accumulation_steps', Number(v)));
    case 'seq_len':
      return ok(op(['data', 'max_length'], Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective') return no('ArcticTraining checkpoints whole layers (model.disable_activation_checkpoint)');
      return ok(op(['model', 'disable_activation_checkpoint'], v !== 'full'));
    case 'activation_offloading':
      return ok(op('activation_checkpoint_cpu_offload', Boolean(v)));
    case 'tiled_mlp':
      return typeof v === 'number'
        ? no('ArcticTraining derives the number of MLP shards from the sequence length')
        : ok(op('tiled_mlp_compute', Boolean(v)));
    case 'zero_stage':
      return ok(op(['deepspeed', 'zero_optimization', 'stage'], Number(v)));
    case 'offload_optimizer':
      return offload('offload_optimizer', v);
    case 'offload_params':
      return offload('offload_param', v);
    default:
      return no(`write ${ch.key} in the ArcticTraining config by hand`);
  }
}

/** A ZeRO offload device: cpu or nvme in the inline DeepSpeed config; none takes the block's device back. */
function offload(block: 'offload_optimizer' | 'offload_param', v: unknown): Planned {
  const device = v === 'cpu' || v === 'nvme' ? v : 'none';
  if (device === 'nvme') return no('an NVMe offload needs its nvme_path: write it in the DeepSpeed config by hand');
  const ops = [op(['deepspeed', 'zero_optimization', block, 'device'], device)];
  // DeepSpeedCPUAdam steps the offloaded states on the CPU (optimizer/adam_factory.py): the SFT trainer's default
  // FusedAdam does not run on them.
  if (block === 'offload_optimizer' && device === 'cpu') ops.push(op(['optimizer', 'type'], 'cpu_adam'));
  return ok(...ops);
}
