// The prime-rl planner (analyzers/toml/prime-rl.ts): the trainer's sequence, the SFT micro-batch, checkpointing,
// offload, the LoRA rank and the trainer's GPUs, at the keys of the trainer's model table (`[trainer.model]` in an
// RL config, `[model]` in an SFT config). Pure: no I/O.
import type { SetupChange } from '../../../core';
import { readToml } from '../../../analyzers/toml/parse';
import { primeRlKind } from '../../../analyzers/toml/prime-rl';
import { type Planned, no, ok, op, type PlanCtx, type Lora } from '../ops';

export function planPrimeRl(c: PlanCtx, ch: SetupChange): Planned {
  const rl = primeRlKind(c.file.text) === 'rl';
  const m = rl ? 'trainer.model' : 'model';
  const v = ch.value;
  switch (ch.key) {
    case 'seq_len':
      if (!rl) return ok(op('data.seq_len', Number(v)));
      // The orchestrator packs rows of its seq_len, which the trainer's must hold: both are written.
      return ok(
        op(`${m}.seq_len`, Number(v)),
        ...(readToml(c.file.text).entries.has('orchestrator.seq_len') ? [op('orchestrator.seq_len', Number(v))] : []),
      );
    case 'micro_batch_size':
      return rl
        ? no('the RL trainer steps one packed row of seq_len tokens at a time: shorten the sequence instead')
        : ok(op('data.micro_batch_size', Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective') return ok(op(`${m}.ac.mode`, 'selective'));
      if (v === 'full') return ok(op(`${m}.ac.freq`, 1));
      return no('prime-rl checkpoints every block unless the `ac` table is removed from its config');
    case 'offload_optimizer':
    case 'offload_params': {
      // fsdp_cpu_offload moves parameters, gradients and the optimizer's states together (CPUOffloadPolicy).
      const other = c.changed(ch.key === 'offload_optimizer' ? 'offload_params' : 'offload_optimizer');
      if (v === 'cpu' && other === 'cpu')
        return ok(op(`${m}.fsdp_cpu_offload`, true), op(`${m}.optim_cpu_offload`, false));
      return no('prime-rl offloads parameters and optimizer states together (fsdp_cpu_offload)');
    }
    case 'lora': {
      const l = v as Lora;
      if (l.r === undefined) return no(`choose the LoRA rank and write ${m}.lora.rank by hand`);
      return ok(op(`${m}.lora.rank`, l.r));
    }
    case 'gpus_per_node':
      return ok(op('deployment.num_train_gpus', Number(v)));
    default:
      return no(`write ${ch.key} in the prime-rl config by hand`);
  }
}
