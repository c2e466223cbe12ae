// The Axolotl YAML planner. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, op, ok, no, type PlanCtx, type Lora, type Quant } from '../ops';
import { HF_OPTIM, HF_ATTN, AXOLOTL_ATTN_FLAGS, FSDP_STATE_DICT } from './vocab';
import { str, loraOps, bundledZeroOp, reentrantOps } from './common';

/** Axolotl YAML (FORMATS.md §5). */
export function planAxolotl(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('micro_batch_size', Number(v)));
    case 'eval_batch_size':
      return v === undefined ? ok(op('eval_strategy', 'no')) : ok(op('eval_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      if (c.has('batch_size') && !c.has('gradient_accumulation_steps'))
        return no('the accumulation is derived from batch_size here; change batch_size by hand');
      return ok(op('gradient_accumulation_steps', Number(v)));
    case 'seq_len':
      return ok(op('sequence_len', Number(v)));
    case 'zero_stage':
    case 'offload_optimizer':
    case 'offload_params':
      return bundledZeroOp(c, 'axolotl', 'Axolotl');
    case 'mixed_precision':
      if (v === 'bf16') return ok(op('bf16', true), op('fp16', false, { when: 'present' }));
      if (v === 'fp16') return ok(op('fp16', true), op('bf16', false, { when: 'present' }));
      return ok(op('bf16', false), op('fp16', false, { when: 'present' }));
    case 'gradient_checkpointing':
      return v === 'selective'
        ? no('Axolotl has no selective checkpointing')
        : ok(op('gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return name ? ok(op('optimizer', name)) : no(`Axolotl has no optimizer name for ${str(v)}`);
    }
    case 'attention':
      return attention(c, v);
    case 'loss':
      return loss(v);
    case 'compile':
      return ok(op('torch_compile', Boolean(v)));
    case 'activation_offloading':
      return ok(op('activation_offloading', Boolean(v)));
    case 'checkpoint_reentrant':
      return reentrantOps(c, Boolean(v));
    case 'tiled_mlp':
      if (v === false) return ok(op('tiled_mlp', false, { when: 'present' }));
      return typeof v === 'number'
        ? ok(op('tiled_mlp', true), op('tiled_mlp_num_shards', v))
        : ok(op('tiled_mlp', true));
    case 'method':
      return method(v);
    case 'lora':
      return lora(v as Lora);
    case 'quantization':
      return quantization(v as Quant | undefined);
    case 'weights_dtype':
      return weightsDtype(v);
    case 'fsdp_no_sync':
      // The HF Trainer's AcceleratorConfig: sync_each_batch turns its no_sync off (transformers trainer.py).
      return ok(op('accelerator_config.gradient_accumulation_kwargs.sync_each_batch', v === false));
    case 'fsdp_state_dict_type': {
      const name = FSDP_STATE_DICT[str(v)];
      if (!name) return no(`no FSDP state dict type for ${str(v)}`);
      if (!c.fact('fsdp')) return no('this config does not use FSDP');
      // Axolotl reads fsdp_config keys with or without Accelerate's fsdp_ prefix: follow the file.
      const prefixed = c.file.facts.facts.some((f) => f.rawKey.startsWith('fsdp_config.fsdp_'));
      const key = prefixed ? 'fsdp_config.fsdp_state_dict_type' : 'fsdp_config.state_dict_type';
      return ok(op(c.fact('fsdpStateDictType')?.rawKey ?? key, name));
    }
    default:
      return no(`Axolotl has no setting for ${ch.key}`);
  }
}

/** Follow the file: attn_implementation when it uses it, the deprecated switches when it uses those. */
function attention(c: PlanCtx, v: unknown): Planned {
  const flags = Object.values(AXOLOTL_ATTN_FLAGS).filter((k) => c.has(k));
  if (c.has('attn_implementation') || flags.length === 0) {
    const s = HF_ATTN[str(v)];
    return s
      ? ok(op('attn_implementation', s), ...flags.map((k) => op(k, false, { when: 'present' })))
      : no(`no attn_implementation for ${str(v)}`);
  }
  const on = AXOLOTL_ATTN_FLAGS[str(v)];
  if (!on) return no(`no attention switch for ${str(v)}`);
  return ok(
    op(on, true),
    ...Object.values(AXOLOTL_ATTN_FLAGS)
      .filter((k) => k !== on)
      .map((k) => op(k, false, { when: 'present' })),
  );
}

/** The Liger plugin with its fused linear cross-entropy (axolotl integrations/liger), chunked cross-entropy, or neither. */
function loss(v: unknown): Planned {
  if (v === 'fused')
    return ok(
      op('plugins', 'axolotl.integrations.liger.LigerPlugin', { append: true }),
      op('liger_fused_linear_cross_entropy', true),
    );
  if (v === 'chunked') return ok(op('chunked_cross_entropy', true));
  return ok(
    op('liger_fused_linear_cross_entropy', false, { when: 'present' }),
    op('cut_cross_entropy', false, { when: 'present' }),
    op('chunked_cross_entropy', false, { when: 'present' }),
  );
}

/** The adapter and the 4/8-bit loading a method takes. */
function method(v: unknown): Planned {
  if (v === 'lora') return ok(op('adapter', 'lora'), op('load_in_4bit', false, { when: 'present' }));
  if (v === 'qlora')
    return ok(op('adapter', 'qlora'), op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' }));
  if (v === 'full')
    return ok(
      op('adapter', null, { when: 'present' }),
      op('load_in_4bit', false, { when: 'present' }),
      op('load_in_8bit', false, { when: 'present' }),
    );
  return no(`Axolotl has no method ${str(v)}`);
}

/** LoRA's rank, alpha, dropout, DoRA, targets and modules to save. */
function lora(l: Lora): Planned {
  const ops = loraOps(l, { r: 'lora_r', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'peft_use_dora' }, (t) =>
    t === 'all-linear'
      ? [op('lora_target_linear', true)]
      : [op('lora_target_modules', [...t]), op('lora_target_linear', false, { when: 'present' })],
  );
  if (l.modules_to_save && l.modules_to_save.length > 0) ops.push(op('lora_modules_to_save', [...l.modules_to_save]));
  return ok(...ops);
}

/** bitsandbytes loading: 4 or 8 bits (Axolotl's 4-bit is nf4), and the MoE experts' quantization. */
function quantization(q: Quant | undefined): Planned {
  if (!q) return ok(op('load_in_4bit', false, { when: 'present' }), op('load_in_8bit', false, { when: 'present' }));
  if (q.type && q.type !== 'nf4' && q.type !== 'int8')
    return no(`Axolotl's 4-bit loading is nf4; ${q.type} needs bnb_config_kwargs`);
  const experts = q.experts
    ? [op('quantize_moe_experts', true)]
    : [op('quantize_moe_experts', false, { when: 'present' })];
  return q.bits === 8
    ? ok(op('load_in_8bit', true), op('load_in_4bit', false, { when: 'present' }), ...experts)
    : ok(op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' }), ...experts);
}

/** The one dtype switch (bfloat16, float16, float32) on, the others off where present. */
function weightsDtype(v: unknown): Planned {
  const k = { bf16: 'bfloat16', fp16: 'float16', fp32: 'float32' }[str(v)];
  return k
    ? ok(
        op(k, true),
        ...['bfloat16', 'float16', 'float32'].filter((x) => x !== k).map((x) => op(x, false, { when: 'present' })),
      )
    : no(`no dtype for ${str(v)}`);
}
