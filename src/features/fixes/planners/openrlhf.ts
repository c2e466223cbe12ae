// The OpenRLHF planner (a launch script running openrlhf.cli.train_*, analyzers/shell/openrlhf.ts): a change is
// written into the flag the command line already has, in its spelling (dotted --ds.zero_stage or flat --zero_stage),
// wherever it is written (often a heredoc read into a variable). A flag the command line lacks is not added: the
// command may be assembled in a heredoc, a variable or another file. The launcher's options (the GPU and node counts
// of deepspeed / torchrun) are the shell planner's, except PPO on Ray's --actor.num_gpus_per_node. Pure: no I/O.
import type { SetupChange } from '../../../core';
import type { CanonicalKey } from '../../../analyzers/facts';
import { type Val, type Planned, op, ok, no, type PlanCtx, type Lora } from '../ops';
import { HF_ATTN } from './vocab';
import { loraFlagOps, str } from './common';

/** OpenRLHF's flags for one change; undefined for a launcher option. */
export function planOpenrlhf(c: PlanCtx, ch: SetupChange): Planned | undefined {
  const v = ch.value;
  /** The flag of `key` as the command line writes it, without its dashes. */
  const raw = (key: CanonicalKey): string | undefined => c.fact(key)?.rawKey.replace(/^-+/, '');
  const set = (key: CanonicalKey, value: (flag: string) => Val | undefined): Planned => {
    const flag = raw(key);
    if (!flag || !/^[\w.]+$/.test(flag))
      return no(`the OpenRLHF command line has no flag for ${ch.key}; add it by hand`);
    const x = value(flag);
    return x === undefined ? no(`no OpenRLHF value for ${ch.key} ${str(v)}`) : ok(op([flag], x));
  };
  /** A store_true switch: kept (or written as it is) for on, removed for off. */
  const toggle = (key: CanonicalKey, on: boolean): Planned => {
    const flag = raw(key);
    if (!flag) return on ? no(`the OpenRLHF command line has no flag for ${ch.key}; add it by hand`) : ok();
    return ok(op([flag], on));
  };
  switch (ch.key) {
    case 'micro_batch_size':
      return set('microBatchSize', () => Number(v));
    case 'seq_len':
      return set('seqLen', () => Number(v));
    case 'zero_stage':
      return set('zeroStage', () => Number(v));
    case 'gradient_accumulation_steps':
      return no('OpenRLHF derives the accumulation from the global batch (--train.batch_size / (micro x GPUs))');
    case 'gradient_checkpointing':
      return v === 'selective'
        ? no('OpenRLHF has no selective checkpointing')
        : toggle('gradientCheckpointing', v === 'full');
    case 'offload_optimizer':
      return v === 'nvme' ? no('OpenRLHF offloads Adam to the CPU only') : toggle('offloadOptimizer', v === 'cpu');
    case 'attention':
      if (raw('attention') === 'flash_attn')
        return v === 'flash' ? ok() : no('the flat --flash_attn switch only turns flash on');
      return set('attention', () => HF_ATTN[str(v)]);
    case 'lora':
      return loraFlagOps(v as Lora, raw, 'the OpenRLHF command line does not have this LoRA flag; add it by hand');
    case 'gpus_per_node':
    case 'nodes': {
      const key = ch.key === 'nodes' ? 'nodes' : 'gpusPerNode';
      return c.fact(key)?.tool === 'openrlhf' ? set(key, () => Number(v)) : undefined;
    }
    case 'method':
      return c.fact('method')?.value === v
        ? ok()
        : no('switching the method needs other OpenRLHF flags; edit it by hand');
    default:
      return no(`no OpenRLHF flag for ${ch.key}`);
  }
}
