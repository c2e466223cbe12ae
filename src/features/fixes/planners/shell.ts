// The launch-script planner: launcher options and HF-style script flags. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Op, type Planned, op, ok, no, type PlanCtx, type Lora } from '../ops';
import { HF_OPTIM, HF_ATTN, LF_ATTN, FSDP_STATE_DICT } from './vocab';
import { str, seqKey } from './common';
import { planOpenrlhf } from './openrlhf';
import { planRl2 } from './rl2';
import { planVerl } from './verl';

/** Shell launch scripts (FORMATS.md §3, §2.3): launcher options and HF-style script flags. */
export function planShell(c: PlanCtx, ch: SetupChange): Planned {
  const openrlhf = c.file.facts.tools.includes('openrlhf') ? planOpenrlhf(c, ch) : undefined;
  if (openrlhf) return openrlhf;
  const verl = c.file.facts.tools.includes('verl') ? planVerl(c, ch) : undefined;
  if (verl) return verl;
  const rl2 = c.file.facts.tools.includes('rl2') ? planRl2(c, ch) : undefined;
  if (rl2) return rl2;
  const v = ch.value;
  // ms-swift parses its flags with HfArgumentParser over the HF TrainingArguments (swift/trainers/arguments.py).
  const hfScript = c.file.facts.tools.some(
    (t) => t === 'hf-trainer' || t === 'trl' || t === 'llamafactory' || t === 'ms-swift',
  );
  const flag = (name: string, value: Val, extra: Partial<Op> = {}): Op => op([name], value, extra);
  // A flag the script already takes can be rewritten whatever the script is; a new flag only for HfArgumentParser scripts.
  const present = (raw: string): boolean => c.has(`--${raw}`) || c.has(raw);
  const needHf = (name: string): Planned | undefined =>
    present(name) || hfScript ? undefined : no(`the script's own flags are unknown, so \`--${name}\` is not added`);
  switch (ch.key) {
    case 'micro_batch_size':
      return needHf('per_device_train_batch_size') ?? ok(flag('per_device_train_batch_size', Number(v)));
    case 'eval_batch_size':
      return v === undefined
        ? (needHf('eval_strategy') ?? ok(flag('eval_strategy', 'no')))
        : (needHf('per_device_eval_batch_size') ?? ok(flag('per_device_eval_batch_size', Number(v))));
    case 'gradient_accumulation_steps':
      return needHf('gradient_accumulation_steps') ?? ok(flag('gradient_accumulation_steps', Number(v)));
    case 'mixed_precision': {
      const mp = c.fact('mixedPrecision');
      if (mp) return ok(flag(mp.rawKey.replace(/^-+/, ''), v === 'none' ? 'no' : str(v)));
      if (v === 'bf16') return needHf('bf16') ?? ok(flag('bf16', true), flag('fp16', false, { when: 'present' }));
      if (v === 'fp16') return needHf('fp16') ?? ok(flag('fp16', true), flag('bf16', false, { when: 'present' }));
      return ok(flag('bf16', false, { when: 'present' }), flag('fp16', false, { when: 'present' }));
    }
    case 'gradient_checkpointing': {
      if (v === 'selective') return no('no selective checkpointing flag');
      const f = c.fact('gradientCheckpointing');
      if (f && f.rawKey.replace(/^-+/, '') === 'disable_gradient_checkpointing')
        return ok(flag('disable_gradient_checkpointing', v !== 'full'));
      return needHf('gradient_checkpointing') ?? ok(flag('gradient_checkpointing', v === 'full'));
    }
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return !name ? no(`HF optim has no name for ${str(v)}`) : (needHf('optim') ?? ok(flag('optim', name)));
    }
    case 'seq_len': {
      const k = seqKey(
        c,
        c.file.facts.tools.includes('trl') || c.file.facts.tools.includes('ms-swift') ? 'max_length' : undefined,
      );
      return k ? ok(flag(k, Number(v))) : no("the script's sequence-length flag is unknown");
    }
    case 'attention': {
      const f = c.fact('attention');
      const raw = f?.rawKey.replace(/^-+/, '');
      if (raw === 'attn_implementation') return ok(flag(raw, HF_ATTN[str(v)] ?? str(v)));
      if (raw === 'flash_attn' && /^(sdpa|fa2|fa3|disabled|auto)$/.test(f?.rawValue ?? ''))
        return ok(flag(raw, LF_ATTN[str(v)] ?? str(v)));
      if (raw && v === 'flash' && f?.value !== 'flash') return ok(flag(raw, true));
      return no('the script has no attention flag to change');
    }
    case 'loss':
      if (v !== 'fused') return no('no flag for this loss');
      return (
        needHf('use_liger_kernel') ??
        ok(flag(present('enable_liger_kernel') ? 'enable_liger_kernel' : 'use_liger_kernel', true))
      );
    case 'zero_stage':
      return present('zero_stage')
        ? ok(flag('zero_stage', Number(v)))
        : no('the launch command has no --zero_stage flag; ZeRO is set in the DeepSpeed config');
    case 'offload_optimizer':
      return present('offload_optimizer_device')
        ? ok(flag('offload_optimizer_device', str(v)))
        : no('no offload flag in the launch command');
    case 'offload_params':
      return present('offload_param_device')
        ? ok(flag('offload_param_device', str(v)))
        : no('no offload flag in the launch command');
    case 'gpus_per_node': {
      const text = c.file.text;
      if (present('num_processes')) {
        const nodes =
          (c.changed('nodes') as number | undefined) ??
          (typeof c.fact('nodes')?.value === 'number' ? (c.fact('nodes')!.value as number) : 1);
        return ok(flag('num_processes', Number(v) * nodes, { launcher: 'accelerate' }));
      }
      if (present('nproc_per_node')) return ok(flag('nproc_per_node', Number(v), { launcher: 'torchrun' }));
      if (present('num_gpus')) return ok(flag('num_gpus', Number(v), { launcher: 'deepspeed' }));
      if (/(^|[\s;&|(])(torchrun|python3? -m torch\.distributed\.(run|launch))\s/m.test(text))
        return ok(flag('nproc_per_node', Number(v), { launcher: 'torchrun' }));
      if (/(^|[\s;&|(])tune\s+run\s/m.test(text)) return ok(flag('nproc_per_node', Number(v), { launcher: 'tune' }));
      if (/(^|[\s;&|(])accelerate\s+launch\s/m.test(text))
        return ok(
          flag('num_processes', Number(v) * ((c.changed('nodes') as number | undefined) ?? 1), {
            launcher: 'accelerate',
          }),
        );
      if (/(^|[\s;&|(])deepspeed\s+(?!-)\S/m.test(text))
        return ok(flag('num_gpus', Number(v), { launcher: 'deepspeed' }));
      return no('no distributed launcher (torchrun, accelerate launch, deepspeed, tune run) to give the GPU count to');
    }
    case 'nodes':
      if (present('nnodes')) return ok(flag('nnodes', Number(v), { launcher: 'torchrun' }));
      if (present('num_machines')) return ok(flag('num_machines', Number(v), { launcher: 'accelerate' }));
      return Number(v) === 1 ? ok() : no('multi-node launch options are set by hand (hosts, rendezvous)');
    case 'lora': {
      const l = v as Lora;
      const ops: Op[] = [];
      for (const [k, x] of [
        ['loraR', l.r],
        ['loraAlpha', l.alpha],
        ['loraDropout', l.dropout],
      ] as const) {
        if (x === undefined) continue;
        const f = c.fact(k);
        if (!f) return no('the script does not take this LoRA setting as a flag');
        ops.push(flag(f.rawKey.replace(/^-+/, ''), x));
      }
      return ok(...ops);
    }
    case 'fsdp_state_dict_type': {
      const name = FSDP_STATE_DICT[str(v)];
      if (!name) return no(`no FSDP state dict type for ${str(v)}`);
      return present('fsdp_state_dict_type') || present('use_fsdp')
        ? ok(flag('fsdp_state_dict_type', name, { launcher: 'accelerate' }))
        : no('the launch command takes its FSDP settings from an Accelerate config');
    }
    case 'method':
      return c.fact('method')?.value === v
        ? ok()
        : no('switching the method needs other flags of the script; edit it by hand');
    default:
      return no(`no launch flag for ${ch.key}`);
  }
}
