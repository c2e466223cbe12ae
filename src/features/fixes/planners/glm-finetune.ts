// The GLM fine-tuning config planner (analyzers/yaml/glm-finetune.ts): the Trainer's keys as a TRL YAML writes them
// (hfYamlCommon), under `training_args`; LoRA under `peft_config`. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Lora, type Planned, no, ok, op, type PlanCtx } from '../ops';
import { hfYamlCommon, loraOps } from './common';

export function planGlmFinetune(c: PlanCtx, ch: SetupChange): Planned {
  const common = hfYamlCommon(c, ch);
  if (common)
    return 'ops' in common ? { ops: common.ops.map((o) => ({ ...o, path: ['training_args', ...o.path] })) } : common;
  switch (ch.key) {
    case 'gradient_checkpointing':
      return ch.value === 'selective'
        ? no('TrainingArguments has no selective checkpointing')
        : ok(op('training_args.gradient_checkpointing', ch.value === 'full'));
    case 'seq_len':
      return no('the longest sample is max_input_length + max_output_length + 1: shorten the two by hand');
    case 'lora': {
      if (!c.has('peft_config.peft_type')) return no('write a peft_config with peft_type LORA by hand');
      const keys = { r: 'peft_config.r', alpha: 'peft_config.lora_alpha', dropout: 'peft_config.lora_dropout' };
      return ok(
        ...loraOps(ch.value as Lora, keys, (t) => [
          op('peft_config.target_modules', t === 'all-linear' ? 'all-linear' : [...t]),
        ]),
      );
    }
    default:
      return no(`write ${ch.key} in the GLM fine-tuning config by hand`);
  }
}
