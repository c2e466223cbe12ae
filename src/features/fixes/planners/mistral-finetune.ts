// The mistral-finetune planner (analyzers/yaml/mistral-finetune.ts): its TrainArgs keys, the micro-batch, the
// accumulation, the packed sequence length, checkpointing and LoRA's rank. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Lora, type Planned, no, ok, op, type PlanCtx } from '../ops';

export function planMistralFinetune(_c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('num_microbatches', Number(v)));
    case 'seq_len':
      return ok(op('seq_len', Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective') return no('mistral-finetune checkpoints whole blocks (checkpoint)');
      return ok(op('checkpoint', v === 'full'));
    case 'lora': {
      const l = v as Lora | undefined;
      if (l?.r === undefined || l.alpha !== undefined || l.dropout !== undefined || l.target_modules !== undefined)
        return no('mistral-finetune takes the LoRA rank only (lora.rank); its targets are every linear layer');
      return ok(op('lora.rank', l.r));
    }
    default:
      return no(`write ${ch.key} in the mistral-finetune config by hand`);
  }
}
