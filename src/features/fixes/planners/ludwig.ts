// The Ludwig planner (analyzers/yaml/ludwig.ts): the `trainer` keys (the micro-batch, the accumulation, checkpointing,
// the optimizer, fp16 mixed precision), the merged sequence's cap in `preprocessing`, and the quantization's bits.
// Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx, type Quant } from '../ops';
import { str } from './common';

/** Ludwig's optimizer names (schema/optimizers.py) for the setup's. */
const OPTIMIZERS: Readonly<Record<string, string>> = {
  adamw: 'adamw',
  adamw_8bit: 'adamw_8bit',
  paged_adamw_8bit: 'paged_adamw_8bit',
  paged_adamw: 'paged_adamw',
  sgd: 'sgd',
};

export function planLudwig(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('trainer.batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('trainer.gradient_accumulation_steps', Number(v)));
    case 'seq_len':
      return ok(op('preprocessing.global_max_sequence_length', Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective') return no('Ludwig checkpoints whole layers (trainer.enable_gradient_checkpointing)');
      return ok(op('trainer.enable_gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = OPTIMIZERS[str(v)];
      return name
        ? ok(op('trainer.optimizer.type', name))
        : no(`write the optimizer ${str(v)} in trainer.optimizer by hand`);
    }
    case 'mixed_precision':
      if (v === 'fp16' || v === 'none') return ok(op('trainer.use_mixed_precision', v === 'fp16'));
      return no("Ludwig's mixed precision is fp16 autocast (trainer.use_mixed_precision)");
    case 'method':
      if (v === 'qlora' && c.fact('method')?.value === 'lora') return ok(op('quantization.bits', 4));
      return no(`change the adapter and quantization sections to ${str(v)} by hand`);
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!q) return no('remove the quantization section by hand');
      if (q.type && q.type !== 'nf4' && q.type !== 'fp4' && q.type !== 'int8')
        return no(`Ludwig quantizes with bitsandbytes; ${q.type} is not written`);
      return ok(op('quantization.bits', q.bits === 8 ? 8 : 4));
    }
    default:
      return no(`write ${ch.key} in the Ludwig config by hand`);
  }
}
