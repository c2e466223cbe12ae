// The GLM fine-tuning config planner (analyzers/yaml/glm-finetune.ts): the Trainer's keys under `training_args`, LoRA
// under `peft_config`. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Lora, type Planned, no, ok, op, type PlanCtx } from '../ops';
import { loraOps, str } from './common';
import { HF_OPTIM } from './vocab';

export function planGlmFinetune(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('training_args.per_device_train_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('training_args.gradient_accumulation_steps', Number(v)));
    case 'gradient_checkpointing':
      return v === 'selective'
        ? no('TrainingArguments has no selective checkpointing')
        : ok(op('training_args.gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return name ? ok(op('training_args.optim', name)) : no(`HF optim has no name for ${str(v)}`);
    }
    case 'mixed_precision':
      if (v === 'bf16') return ok(op('training_args.bf16', true), op('training_args.fp16', false, { when: 'present' }));
      if (v === 'fp16') return ok(op('training_args.fp16', true), op('training_args.bf16', false, { when: 'present' }));
      return ok(op('training_args.bf16', false), op('training_args.fp16', false, { when: 'present' }));
    case 'seq_len':
      return no('the longest sample is max_input_length + max_output_length + 1: shorten the two by hand');
    case 'lora':
      if (!c.has('peft_config.peft_type')) return no('write a peft_config with peft_type LORA by hand');
      return ok(
        ...loraOps(
          v as Lora,
          { r: 'peft_config.r', alpha: 'peft_config.lora_alpha', dropout: 'peft_config.lora_dropout' },
          (t) => [op('peft_config.target_modules', t === 'all-linear' ? 'all-linear' : [...t])],
        ),
      );
    default:
      return no(`write ${ch.key} in the GLM fine-tuning config by hand`);
  }
}
