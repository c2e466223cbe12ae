// The DeepSpeed JSON planner. Pure: no I/O.
import { isUnknown, type CanonicalKey } from '../../../analyzers/facts';
import type { SetupChange } from '../../../core';
import { type Planned, op, ok, no, type PlanCtx } from '../ops';
import { DS_OPTIM } from './vocab';
import { str } from './common';

/** DeepSpeed JSON (FORMATS.md §1): batch keys, precision blocks, ZeRO block with offload and buckets, optimizer.type. */
export function planDeepSpeed(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const known = (k: CanonicalKey): boolean => {
    const f = c.fact(k);
    return !!f && !isUnknown(f.value);
  };
  switch (ch.key) {
    case 'zero_stage':
      if (c.file.facts.facts.some((f) => f.key === 'zeroStage' && f.rawKey === 'zero_optimization'))
        return no('`"zero_optimization": true` is the legacy form; write it as {"stage": N} first');
      return ok(op('zero_optimization.stage', Number(v)));
    case 'offload_optimizer':
    case 'offload_params': {
      const block = ch.key === 'offload_optimizer' ? 'offload_optimizer' : 'offload_param';
      if (v === 'nvme' && !/"nvme_path"/.test(c.file.text))
        return no('NVMe offload needs an nvme_path; write it by hand');
      return ok(
        op(['zero_optimization', block, 'device'], str(v)),
        ...(v !== 'none' ? [op(['zero_optimization', block, 'pin_memory'], true, { when: 'absent' })] : []),
      );
    }
    case 'mixed_precision':
      if (v === 'bf16') return ok(op('bf16.enabled', true), op('fp16.enabled', false, { when: 'present' }));
      if (v === 'fp16') return ok(op('fp16.enabled', true), op('bf16.enabled', false, { when: 'present' }));
      return ok(op('bf16.enabled', false, { when: 'present' }), op('fp16.enabled', false, { when: 'present' }));
    case 'micro_batch_size':
    case 'gradient_accumulation_steps': {
      const key = ch.key === 'micro_batch_size' ? 'train_micro_batch_size_per_gpu' : 'gradient_accumulation_steps';
      const canon: CanonicalKey = ch.key === 'micro_batch_size' ? 'microBatchSize' : 'gradientAccumulationSteps';
      const f = c.fact(canon);
      // "auto" is filled from TrainingArguments; it stays as it is.
      if (f && isUnknown(f.value) && /^auto/.test(f.value.unknown)) return ok();
      const ops = [op(key, Number(v))];
      // train_batch_size = micro x accumulation x GPUs (config.py _batch_assertion): keep it consistent.
      const tb = c.fact('trainBatchSize');
      if (tb && typeof tb.value === 'number') {
        const m0 = c.fact('microBatchSize');
        const g0 = c.fact('gradientAccumulationSteps');
        const micro0 = typeof m0?.value === 'number' ? m0.value : undefined;
        const gas0 = typeof g0?.value === 'number' ? g0.value : g0 ? undefined : micro0 !== undefined ? undefined : 1;
        const micro1 = (c.changed('micro_batch_size') as number | undefined) ?? micro0;
        const gas1 = (c.changed('gradient_accumulation_steps') as number | undefined) ?? gas0;
        if (micro0 === undefined || gas0 === undefined || micro1 === undefined || gas1 === undefined) {
          if (!known('microBatchSize') || !known('gradientAccumulationSteps'))
            return no(
              'train_batch_size is fixed and the other batch keys are derived from it; change train_batch_size by hand',
            );
        } else if (micro0 * gas0 !== micro1 * gas1) {
          const next = (tb.value * micro1 * gas1) / (micro0 * gas0);
          if (!Number.isInteger(next)) return no('train_batch_size would not be a whole number');
          ops.push(op('train_batch_size', next));
        }
      }
      return ok(...ops);
    }
    case 'optimizer': {
      const name = DS_OPTIM[str(v)];
      if (!c.fact('optimizer')) return no('DeepSpeed has no optimizer block here; the trainer picks the optimizer');
      if (!name)
        return no(
          `the DeepSpeed optimizer block cannot express ${str(v)} (bitsandbytes optimizers are not DeepSpeed optimizers); ` +
            "remove the block so the trainer's optim applies",
        );
      return ok(op('optimizer.type', name));
    }
    case 'weights_dtype':
      return no('DeepSpeed derives the weights dtype from its bf16/fp16 blocks');
    default:
      return no(`DeepSpeed JSON has no key for ${ch.key}`);
  }
}
