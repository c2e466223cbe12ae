// The LLaMA-Factory YAML planner. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, op, ok, no, type PlanCtx, type Lora, type Quant } from '../ops';
import { LF_ATTN } from './vocab';
import { str, loraOps, hfYamlCommon, bundledZeroOp } from './common';

/** LLaMA-Factory YAML (FORMATS.md §6). */
export function planLlamaFactory(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const common = hfYamlCommon(c, ch);
  if (common) return common;
  switch (ch.key) {
    case 'seq_len':
      return ok(op('cutoff_len', Number(v)));
    case 'zero_stage':
    case 'offload_optimizer':
    case 'offload_params':
      return bundledZeroOp(c, 'llamafactory', 'LLaMA-Factory');
    case 'kbit_upcast':
      return v === 'none'
        ? ok(op('upcast_layernorm', false))
        : v === 'norms'
          ? ok(op('upcast_layernorm', true))
          : no('LLaMA-Factory upcasts only the norms');
    case 'gradient_checkpointing':
      // Checkpointing is on unless disable_gradient_checkpointing (model_utils/checkpointing.py:184).
      if (v === 'selective') return no('LLaMA-Factory has no selective checkpointing');
      return v === 'full'
        ? ok(op('disable_gradient_checkpointing', false, { when: 'present' }))
        : ok(op('disable_gradient_checkpointing', true));
    case 'attention': {
      const s = LF_ATTN[str(v)];
      return s ? ok(op('flash_attn', s)) : no(`no flash_attn value for ${str(v)}`);
    }
    case 'loss':
      if (v === 'fused') return ok(op('enable_liger_kernel', true));
      if (v === 'full') return ok(op('enable_liger_kernel', false, { when: 'present' }));
      return no('LLaMA-Factory has no chunked-loss switch');
    case 'method':
      if (v === 'lora' || v === 'full' || v === 'freeze')
        return ok(
          op('finetuning_type', str(v)),
          ...(v === 'lora' ? [] : [op('quantization_bit', null, { when: 'present' })]),
        );
      if (v === 'qlora') return ok(op('finetuning_type', 'lora'), op('quantization_bit', 4));
      return no(`LLaMA-Factory has no method ${str(v)}`);
    case 'lora': {
      const l = v as Lora;
      const ops = loraOps(
        l,
        { r: 'lora_rank', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'use_dora' },
        (t) => [op('lora_target', t === 'all-linear' ? 'all' : t.join(','))],
      );
      if (l.modules_to_save && l.modules_to_save.length > 0)
        ops.push(op('additional_target', l.modules_to_save.join(',')));
      return ok(...ops);
    }
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!q) return ok(op('quantization_bit', null, { when: 'present' }));
      const ops = [op('quantization_bit', q.bits ?? 4)];
      if (q.type && q.type !== 'nf4' && q.type !== 'int8')
        return no(`LLaMA-Factory bnb quantization is nf4; ${q.type} is not written`);
      if (q.double_quant === false) ops.push(op('double_quantization', false));
      else ops.push(op('double_quantization', true, { when: 'present' }));
      return ok(...ops);
    }
    case 'weights_dtype':
      return no(
        'LLaMA-Factory loads the model in the compute dtype (bf16/fp16 switches); pure_bf16 changes more than the weights',
      );
    case 'checkpoint_reentrant':
      return ok(op('use_reentrant_gc', Boolean(v)));
    default:
      return no(`LLaMA-Factory has no setting for ${ch.key}`);
  }
}
