// The align-anything planner (analyzers/yaml/align-anything.ts): train_cfgs' batch, accumulation, checkpointing and
// precision switches, model_cfgs' length, lora_cfgs' rank, alpha, dropout and targets, and the DeepSpeed config file
// the trainer reads for a ZeRO stage (the files align-anything ships under configs/deepspeed). Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Lora, type Op, type Planned, no, ok, op, type PlanCtx } from '../ops';

/** The DeepSpeed configs align-anything ships (configs/deepspeed), by ZeRO stage, without offload. */
const DS_FILES: Readonly<Record<number, string>> = {
  0: 'ds_z0_config.json',
  2: 'ds_z2_config.json',
  3: 'ds_z3_config.json',
};

export function planAlignAnything(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('train_cfgs.per_device_train_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('train_cfgs.gradient_accumulation_steps', Number(v)));
    case 'seq_len':
      return ok(op('model_cfgs.model_max_length', Number(v)));
    case 'gradient_checkpointing': {
      const lora = c.fact('method')?.value;
      if (lora === 'lora' || lora === 'qlora')
        return no('align-anything enables gradient checkpointing only without LoRA (lora_cfgs.use_lora)');
      if (v === 'selective') return no('align-anything checkpoints whole layers (train_cfgs.gradient_checkpointing)');
      return ok(op('train_cfgs.gradient_checkpointing', v === 'full'));
    }
    case 'mixed_precision':
      if (v === 'bf16' || v === 'fp16')
        return ok(op('train_cfgs.bf16', v === 'bf16'), op('train_cfgs.fp16', v === 'fp16'));
      return no("align-anything's DeepSpeed engine runs in bf16 or fp16 (train_cfgs.bf16, train_cfgs.fp16)");
    case 'zero_stage': {
      const file = DS_FILES[Number(v)];
      return file
        ? ok(op('train_cfgs.ds_cfgs', file))
        : no(
            `align-anything ships no DeepSpeed config for ZeRO stage ${String(v)}: write one and name it in train_cfgs.ds_cfgs`,
          );
    }
    case 'lora':
      return loraOps(v as Lora | undefined);
    default:
      return no(`write ${ch.key} in the align-anything config by hand`);
  }
}

/** LoRA's fields under lora_cfgs, with use_lora switched on. */
function loraOps(l: Lora | undefined): Planned {
  if (!l) return ok(op('lora_cfgs.use_lora', false));
  if (l.use_dora || l.modules_to_save)
    return no('align-anything passes r, lora_alpha, lora_dropout and target_modules only');
  const ops: Op[] = [op('lora_cfgs.use_lora', true)];
  if (l.r !== undefined) ops.push(op('lora_cfgs.r', l.r));
  if (l.alpha !== undefined) ops.push(op('lora_cfgs.lora_alpha', l.alpha));
  if (l.dropout !== undefined) ops.push(op('lora_cfgs.lora_dropout', l.dropout));
  if (l.target_modules === 'all-linear') return no("align-anything's target_modules is a list of module names");
  if (l.target_modules !== undefined) ops.push(op('lora_cfgs.target_modules', [...l.target_modules]));
  return ok(...ops);
}
