// The AReaL planner (analyzers/yaml/areal.ts): the packed micro-batch's tokens, checkpointing, the optimizer and the
// LoRA rank at the actor's keys. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx, type Lora } from '../ops';
import { str } from './common';

export function planAreal(_c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'seq_len':
      return ok(op('actor.mb_spec.max_tokens_per_mb', Number(v)));
    case 'micro_batch_size':
      return no('AReaL packs each micro-batch up to actor.mb_spec.max_tokens_per_mb tokens: change that instead');
    case 'gradient_checkpointing':
      if (v === 'selective') return no('AReaL checkpoints whole layers (actor.gradient_checkpointing)');
      return ok(op('actor.gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = { adamw_fused: 'adam', adamw: 'adam', sgd: 'sgd' }[str(v)];
      return name ? ok(op('actor.optimizer.type', name)) : no(`AReaL's FSDP engine has no optimizer for ${str(v)}`);
    }
    case 'lora': {
      const l = v as Lora;
      if (l.r === undefined) return no('choose the LoRA rank and write actor.use_lora and actor.lora_rank by hand');
      return ok(op('actor.use_lora', true), op('actor.lora_rank', l.r));
    }
    default:
      return no(`write ${ch.key} in the AReaL config by hand`);
  }
}
