// The llm-foundry planner (analyzers/yaml/llmfoundry.ts): the micro-batch, the sequence length and activation
// checkpointing written at the keys the file reads them from (under `parameters:` in a MosaicML platform run). Pure.
import type { SetupChange } from '../../../core';
import { type Planned, no, ok, op, type PlanCtx } from '../ops';

/** Where a key of the training YAML is in this file: under `parameters.` in a platform run. */
const at = (c: PlanCtx, key: string): string[] =>
  c.file.facts.facts.some((f) => f.rawKey.startsWith('parameters.'))
    ? ['parameters', ...key.split('.')]
    : key.split('.');

export function planLlmFoundry(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    // The accumulation is global_train_batch_size / (device_train_microbatch_size x GPUs): the micro-batch says it.
    case 'gradient_accumulation_steps':
      return c.changed('micro_batch_size') !== undefined
        ? ok()
        : no(
            'the accumulation is global_train_batch_size / (device_train_microbatch_size x GPUs): change the micro-batch',
          );
    case 'micro_batch_size':
      return ok(op(at(c, 'device_train_microbatch_size'), Number(v)));
    case 'seq_len': {
      // `max_seq_len: ${variables.max_seq_len}`: written where the interpolation points, from the parameters' root.
      const ref = /^\$\{\s*([\w.]+)\s*\}$/.exec(c.fact('seqLen')?.rawValue.trim() ?? '')?.[1];
      return ok(op(at(c, ref ?? 'max_seq_len'), Number(v)));
    }
    case 'gradient_checkpointing':
      if (!c.fact('fsdp')) return no('llm-foundry checkpoints activations under fsdp_config only');
      return ok(op(at(c, 'fsdp_config.activation_checkpointing'), v !== 'none'));
    default:
      return no(`write ${ch.key} in the llm-foundry YAML by hand`);
  }
}
