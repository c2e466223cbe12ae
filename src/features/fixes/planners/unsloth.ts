// Unsloth's from_pretrained and get_peft_model, planned before the other Python calls. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Op, type PyCall, type Planned, op, ok, no, type PlanCtx, type Lora, type Quant } from '../ops';
import { loraOps } from './common';

/**
 * Unsloth scripts: the model, 4/8-bit loading, the sequence length and checkpointing are keywords of
 * FastLanguageModel.from_pretrained / get_peft_model (unsloth/models/loader.py, llama.py), LoRA those of get_peft_model.
 * Undefined leaves the change to the TrainingArguments planner.
 */
export function planUnsloth(c: PlanCtx, ch: SetupChange, hasCall: (k: PyCall | 'trl') => boolean): Planned | undefined {
  const v = ch.value;
  const peft = hasCall('unsloth-peft');
  const load = (kw: string, value: Val, extra: Partial<Op> = {}): Op =>
    op([kw], value, { call: 'unsloth-load', ...extra });
  const gcCall: PyCall = peft ? 'unsloth-peft' : 'unsloth-load';
  const gc = (value: Val): Op => op(['use_gradient_checkpointing'], value, { call: gcCall });
  switch (ch.key) {
    case 'gradient_checkpointing': {
      if (v === 'selective') return no('Unsloth checkpoints whole layers');
      if (v === 'none') return ok(gc(false));
      const offload = c.changed('activation_offloading') ?? c.fact('activationOffloading')?.value ?? true;
      return ok(gc(offload === false ? true : 'unsloth'));
    }
    case 'activation_offloading':
      // "unsloth" checkpoints and offloads; True checkpoints only. Without checkpointing there is nothing to offload.
      if (c.changed('gradient_checkpointing') === 'none') return ok();
      return ok(gc(v ? 'unsloth' : true));
    case 'lora': {
      if (!peft) return undefined;
      const l = v as Lora;
      return ok(
        ...loraOps(
          l,
          { r: 'r', alpha: 'lora_alpha', dropout: 'lora_dropout' },
          (t) => [op(['target_modules'], t === 'all-linear' ? 'all-linear' : [...t], { call: 'unsloth-peft' })],
          { call: 'unsloth-peft' },
        ),
      );
    }
    case 'quantization': {
      if (!hasCall('unsloth-load')) return undefined;
      const q = v as Quant | undefined;
      if (!q) return ok(load('load_in_4bit', false), load('load_in_8bit', false, { when: 'present' }));
      if (q.bits === 8) return ok(load('load_in_8bit', true), load('load_in_4bit', false));
      return ok(load('load_in_4bit', true), load('load_in_8bit', false, { when: 'present' }));
    }
    case 'method':
      if (!peft || !hasCall('unsloth-load') || (v !== 'lora' && v !== 'qlora')) return undefined;
      return v === 'qlora'
        ? ok(load('load_in_4bit', true), load('load_in_8bit', false, { when: 'present' }))
        : ok(load('load_in_4bit', false));
    case 'seq_len': {
      if (!hasCall('unsloth-load')) return undefined;
      // The model's max_seq_length, and the trainer's own length key when the file writes one.
      const own = c.file.facts.facts.find(
        (f) => f.key === 'seqLen' && f.tool !== 'unsloth' && f.origin !== 'call-default',
      );
      return ok(load('max_seq_length', Number(v)), ...(own ? [op([own.rawKey], Number(v), { call: 'train' })] : []));
    }
    case 'loss':
      return v === 'fused'
        ? ok()
        : no(
            'Unsloth computes the loss with its fused cross-entropy unless UNSLOTH_RETURN_LOGITS=1 is set in the environment',
          );
    case 'kernels':
      return no(
        "Unsloth's kernels come with FastLanguageModel; running without them means loading the model with transformers",
      );
    default:
      return undefined;
  }
}
