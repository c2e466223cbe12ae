// The planner of HALOs' Hydra config (analyzers/hydra/halos.ts): the run's settings are keys of its model option
// (`model/base_model.yaml` and the options that extend it), written where the option writes them; the optimizer is a
// key of the primary config (a value the launch line sets is said by planHydra). Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Lora, type Planned, no, ok, op, type PlanCtx } from '../ops';
import { batchOverAccumulation, loraOps, str, torchOptimizer } from './common';

const ATTENTION: Readonly<Record<string, string>> = { eager: 'eager', sdpa: 'sdpa', flash: 'flash_attention_2' };
const DTYPES: Readonly<Record<string, string>> = { fp32: 'float32', bf16: 'bfloat16', fp16: 'float16' };

/** Keys a model option holds, by the setup key they write. */
const MODEL_KEYS: Readonly<Record<string, string>> = {
  gradient_accumulation_steps: 'gradient_accumulation_steps',
  seq_len: 'max_length',
  gradient_checkpointing: 'activation_checkpointing',
  method: 'use_peft',
  lora: 'peft',
  attention: 'attn_implementation',
  weights_dtype: 'policy_dtype',
};

export function planHalos(c: PlanCtx, ch: SetupChange): Planned {
  const primary = /^defaults\s*:/m.test(c.file.text) && /^trainer\s*:/m.test(c.file.text);
  if (ch.key === 'preference') return reference(primary, ch.value);
  if (ch.key === 'loss')
    return no(
      "HALOs' trainers take one log_softmax over the batch's logits (train/trainers.py get_batch_logps): there is no chunked or fused loss to turn on",
    );
  if (ch.key === 'quantization') return no('HALOs loads its models without quantization (launch.py from_pretrained)');
  if (ch.key === 'optimizer') {
    if (!primary) return no('HALOs reads optimizer from its primary config (config/config.yaml)');
    return torchOptimizer(ch.value);
  }
  if (MODEL_KEYS[ch.key] !== undefined && primary)
    return no(`HALOs reads model.${MODEL_KEYS[ch.key]} from its model option (config/model/<option>.yaml)`);
  return modelOption(c, ch);
}

/**
 * The reference's log-probabilities computed before training: `cache_reference_logprobs: true` in the primary config
 * (launch.py's ReferenceModelWrapper computes them, then frees the reference model). Any other reference is the loss
 * option's.
 */
function reference(primary: boolean, value: unknown): Planned {
  if ((value as { reference?: string } | undefined)?.reference !== 'precomputed')
    return no("HALOs' reference is its loss option's: choose another with loss=<option> on the launch line");
  return primary
    ? ok(op('cache_reference_logprobs', true))
    : no('HALOs reads cache_reference_logprobs from its primary config (config/config.yaml)');
}

/** A change written in the model option. */
function modelOption(c: PlanCtx, ch: SetupChange): Planned {
  const batch = batchOverAccumulation(c, ch);
  if (batch) return batch;
  const v = ch.value;
  switch (ch.key) {
    case 'seq_len':
      return ok(op('max_length', Number(v)));
    case 'gradient_checkpointing':
      return ok(op('activation_checkpointing', v !== 'none'));
    case 'method':
      return v === 'lora' || v === 'full'
        ? ok(op('use_peft', v === 'lora'))
        : no(`HALOs trains full or LoRA, not ${str(v)}`);
    case 'lora':
      return ok(
        ...loraOps(v as Lora, { r: 'peft.lora_r', alpha: 'peft.lora_alpha', dropout: 'peft.lora_dropout' }, (t) => [
          op('peft.target_modules', t === 'all-linear' ? t : [...t]),
        ]),
      );
    case 'attention':
      return ATTENTION[str(v)]
        ? ok(op('attn_implementation', ATTENTION[str(v)]))
        : no(`no attn_implementation for ${str(v)}`);
    case 'weights_dtype':
      return DTYPES[str(v)] ? ok(op('policy_dtype', DTYPES[str(v)])) : no(`no torch dtype for ${str(v)}`);
    default:
      return no(`write ${ch.key} in the Hydra config (its model option, or the launch line) by hand`);
  }
}
