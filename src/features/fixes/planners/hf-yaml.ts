// The TRL / alignment-handbook YAML planner. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Planned, op, ok, no, type PlanCtx, type Lora, type Quant } from '../ops';
import { HF_ATTN, TORCH_DTYPE } from './vocab';
import { str, seqKey, loraOps, type Rollout, rolloutKeys, promptKey, hfYamlCommon, reentrantOps } from './common';

/** TRL / alignment-handbook YAML: TrainingArguments + ModelConfig keys (FORMATS.md §2.4). */
export function planHfYaml(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  const common = hfYamlCommon(c, ch);
  if (common) return common;
  switch (ch.key) {
    case 'rollout': {
      const keys = rolloutKeys(c, v as Rollout);
      return typeof keys === 'string' ? no(keys) : ok(...keys.map(([k, x]) => op(k, x)));
    }
    case 'seq_len':
      if (c.fact('rollout') && c.fact('rollout')?.value !== 'online-dpo') return ok(op(...promptKey(c, Number(v))));
      return ok(op(seqKey(c, 'max_length') ?? 'max_length', Number(v)));
    case 'gradient_checkpointing':
      return v === 'selective'
        ? no('TrainingArguments has no selective checkpointing')
        : ok(op('gradient_checkpointing', v === 'full'));
    case 'attention': {
      const s = HF_ATTN[str(v)];
      if (!s) return no(`no attn_implementation for ${str(v)}`);
      return ok(
        op(
          c.has('model_init_kwargs.attn_implementation') && !c.has('attn_implementation')
            ? 'model_init_kwargs.attn_implementation'
            : 'attn_implementation',
          s,
        ),
      );
    }
    case 'loss':
      if (v === 'fused') return ok(op('use_liger_kernel', true));
      if (v === 'full') return ok(op('use_liger_kernel', false, { when: 'present' }));
      return no('no chunked-loss switch');
    case 'activation_offloading':
      return ok(op('activation_offloading', Boolean(v)));
    case 'checkpoint_reentrant':
      return reentrantOps(c, Boolean(v));
    case 'weights_dtype': {
      const d = TORCH_DTYPE[str(v)];
      const f = c.fact('weightsDtype');
      return d ? ok(op(f ? f.rawKey : 'dtype', d)) : no(`no dtype for ${str(v)}`);
    }
    case 'method':
      if (v === 'lora') return ok(op('use_peft', true));
      if (v === 'qlora')
        return ok(op('use_peft', true), op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' }));
      if (v === 'full') return ok(op('use_peft', false), op('load_in_4bit', false, { when: 'present' }));
      return no(`no method ${str(v)} in TRL configs`);
    case 'lora': {
      const l = v as Lora;
      const ops = loraOps(l, { r: 'lora_r', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'use_dora' }, (t) => [
        op('lora_target_modules', t === 'all-linear' ? 'all-linear' : [...t]),
      ]);
      if (l.modules_to_save && l.modules_to_save.length > 0)
        ops.push(op('lora_modules_to_save', [...l.modules_to_save]));
      return ok(...ops);
    }
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!q) return ok(op('load_in_4bit', false, { when: 'present' }), op('load_in_8bit', false, { when: 'present' }));
      if (q.bits === 8) return ok(op('load_in_8bit', true), op('load_in_4bit', false, { when: 'present' }));
      const ops = [op('load_in_4bit', true), op('load_in_8bit', false, { when: 'present' })];
      if (q.type === 'nf4' || q.type === 'fp4') ops.push(op('bnb_4bit_quant_type', q.type));
      if (q.double_quant !== undefined) ops.push(op('use_bnb_nested_quant', q.double_quant));
      return ok(...ops);
    }
    case 'fsdp_no_sync':
      // The HF Trainer's AcceleratorConfig: sync_each_batch turns its no_sync off (transformers trainer.py).
      return ok(op('accelerator_config.gradient_accumulation_kwargs.sync_each_batch', v === false));
    default:
      return no(`a TRL config has no setting for ${ch.key}`);
  }
}
