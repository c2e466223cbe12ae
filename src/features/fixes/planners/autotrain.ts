// The AutoTrain planner (analyzers/yaml/autotrain.ts): AutoTrain's `params` keys: the micro-batch, the accumulation,
// the block size, checkpointing, the optimizer, mixed precision, PEFT with its quantization, LoRA's rank, alpha and
// dropout. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx, type Quant } from '../ops';
import { str } from './common';

/** AutoTrain's optimizer names for the setup's (the HF Trainer's `optim`, as AutoTrain passes it). */
const OPTIMIZERS: Readonly<Record<string, string>> = {
  adamw: 'adamw_torch',
  adamw_fused: 'adamw_torch_fused',
  adamw_8bit: 'adamw_bnb_8bit',
  paged_adamw_8bit: 'paged_adamw_8bit',
  adafactor: 'adafactor',
  sgd: 'sgd',
};

export function planAutotrain(_c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('params.batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('params.gradient_accumulation', Number(v)));
    case 'seq_len':
      return ok(op('params.block_size', Number(v)));
    case 'gradient_checkpointing':
      if (v === 'selective') return no('AutoTrain checkpoints whole layers (disable_gradient_checkpointing)');
      return ok(op('params.disable_gradient_checkpointing', v !== 'full'));
    case 'optimizer': {
      const name = OPTIMIZERS[str(v)];
      return name ? ok(op('params.optimizer', name)) : no(`write the optimizer ${str(v)} in params.optimizer by hand`);
    }
    case 'mixed_precision':
      if (v === 'bf16' || v === 'fp16') return ok(op('params.mixed_precision', str(v)));
      return no('AutoTrain trains in fp32 without mixed_precision; remove params.mixed_precision by hand');
    case 'method':
      if (v === 'full') return ok(op('params.peft', false));
      if (v === 'lora') return ok(op('params.peft', true), op('params.quantization', 'none'));
      if (v === 'qlora') return ok(op('params.peft', true), op('params.quantization', 'int4'));
      return no(`AutoTrain has no method ${str(v)}`);
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!q) return ok(op('params.quantization', 'none'));
      if (q.type && q.type !== 'nf4' && q.type !== 'int8')
        return no(`AutoTrain's 4-bit quantization is nf4; ${q.type} is not written`);
      return ok(op('params.quantization', q.bits === 8 ? 'int8' : 'int4'));
    }
    default:
      return no(`write ${ch.key} in the AutoTrain config by hand`);
  }
}
