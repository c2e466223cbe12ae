// The launch-script planner: launcher options and HF-style script flags. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Op, type Planned, op, ok, no, type PlanCtx, type Lora } from '../ops';
import { HF_OPTIM, HF_ATTN, LF_ATTN, FSDP_STATE_DICT } from './vocab';
import { loraFlagOps, str, seqKey } from './common';
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
  return planFlags(new ShellFlags(c), ch);
}

/** The flags of a launch line: which it has, and whether its script takes HF's flags it does not have yet. */
class ShellFlags {
  /** ms-swift parses its flags with HfArgumentParser over the HF TrainingArguments (swift/trainers/arguments.py). */
  readonly hfScript: boolean;

  constructor(readonly c: PlanCtx) {
    this.hfScript = c.file.facts.tools.some(
      (t) => t === 'hf-trainer' || t === 'trl' || t === 'llamafactory' || t === 'ms-swift',
    );
  }

  flag(name: string, value: Val, extra: Partial<Op> = {}): Op {
    return op([name], value, extra);
  }

  present(raw: string): boolean {
    return this.c.has(`--${raw}`) || this.c.has(raw);
  }

  /** A flag the script already takes can be rewritten whatever the script is; a new flag only for HfArgumentParser scripts. */
  needHf(name: string): Planned | undefined {
    return this.present(name) || this.hfScript
      ? undefined
      : no(`the script's own flags are unknown, so \`--${name}\` is not added`);
  }

  /** An HF flag set to a value, where the script takes it. */
  hf(name: string, value: Val): Planned {
    return this.needHf(name) ?? ok(this.flag(name, value));
  }
}

function planFlags(s: ShellFlags, ch: SetupChange): Planned {
  const { c } = s;
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return s.hf('per_device_train_batch_size', Number(v));
    case 'eval_batch_size':
      return v === undefined ? s.hf('eval_strategy', 'no') : s.hf('per_device_eval_batch_size', Number(v));
    case 'gradient_accumulation_steps':
      return s.hf('gradient_accumulation_steps', Number(v));
    case 'mixed_precision':
      return mixedPrecision(s, v);
    case 'gradient_checkpointing':
      return checkpointing(s, v);
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return !name ? no(`HF optim has no name for ${str(v)}`) : s.hf('optim', name);
    }
    case 'seq_len': {
      const tools = c.file.facts.tools;
      const k = seqKey(c, tools.includes('trl') || tools.includes('ms-swift') ? 'max_length' : undefined);
      return k ? ok(s.flag(k, Number(v))) : no("the script's sequence-length flag is unknown");
    }
    case 'attention':
      return attention(s, v);
    case 'loss':
      if (v !== 'fused') return no('no flag for this loss');
      return (
        s.needHf('use_liger_kernel') ??
        ok(s.flag(s.present('enable_liger_kernel') ? 'enable_liger_kernel' : 'use_liger_kernel', true))
      );
    case 'zero_stage':
      return s.present('zero_stage')
        ? ok(s.flag('zero_stage', Number(v)))
        : no('the launch command has no --zero_stage flag; ZeRO is set in the DeepSpeed config');
    case 'offload_optimizer':
      return s.present('offload_optimizer_device')
        ? ok(s.flag('offload_optimizer_device', str(v)))
        : no('no offload flag in the launch command');
    case 'offload_params':
      return s.present('offload_param_device')
        ? ok(s.flag('offload_param_device', str(v)))
        : no('no offload flag in the launch command');
    case 'gpus_per_node':
      return gpusPerNode(s, Number(v));
    case 'nodes':
      if (s.present('nnodes')) return ok(s.flag('nnodes', Number(v), { launcher: 'torchrun' }));
      if (s.present('num_machines')) return ok(s.flag('num_machines', Number(v), { launcher: 'accelerate' }));
      return Number(v) === 1 ? ok() : no('multi-node launch options are set by hand (hosts, rendezvous)');
    case 'lora':
      return lora(s, v as Lora);
    case 'fsdp_state_dict_type': {
      const name = FSDP_STATE_DICT[str(v)];
      if (!name) return no(`no FSDP state dict type for ${str(v)}`);
      return s.present('fsdp_state_dict_type') || s.present('use_fsdp')
        ? ok(s.flag('fsdp_state_dict_type', name, { launcher: 'accelerate' }))
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

/** The script's own precision flag where it has one, else HF's bf16 / fp16 (the other turned off where present). */
function mixedPrecision(s: ShellFlags, v: unknown): Planned {
  const mp = s.c.fact('mixedPrecision');
  if (mp) return ok(s.flag(mp.rawKey.replace(/^-+/, ''), v === 'none' ? 'no' : str(v)));
  if (v === 'bf16') return s.needHf('bf16') ?? ok(s.flag('bf16', true), s.flag('fp16', false, { when: 'present' }));
  if (v === 'fp16') return s.needHf('fp16') ?? ok(s.flag('fp16', true), s.flag('bf16', false, { when: 'present' }));
  return ok(s.flag('bf16', false, { when: 'present' }), s.flag('fp16', false, { when: 'present' }));
}

/** LLaMA-Factory's disable_gradient_checkpointing where the line has it, else HF's gradient_checkpointing. */
function checkpointing(s: ShellFlags, v: unknown): Planned {
  if (v === 'selective') return no('no selective checkpointing flag');
  const f = s.c.fact('gradientCheckpointing');
  if (f && f.rawKey.replace(/^-+/, '') === 'disable_gradient_checkpointing')
    return ok(s.flag('disable_gradient_checkpointing', v !== 'full'));
  return s.hf('gradient_checkpointing', v === 'full');
}

/** The attention flag the line has: HF's attn_implementation, LLaMA-Factory's flash_attn, or a switch for flash. */
function attention(s: ShellFlags, v: unknown): Planned {
  const f = s.c.fact('attention');
  const raw = f?.rawKey.replace(/^-+/, '');
  if (raw === 'attn_implementation') return ok(s.flag(raw, HF_ATTN[str(v)] ?? str(v)));
  if (raw === 'flash_attn' && /^(sdpa|fa2|fa3|disabled|auto)$/.test(f?.rawValue ?? ''))
    return ok(s.flag(raw, LF_ATTN[str(v)] ?? str(v)));
  if (raw && v === 'flash' && f?.value !== 'flash') return ok(s.flag(raw, true));
  return no('the script has no attention flag to change');
}

/** The GPU count in the launcher's own flag, or the one a launcher the line runs takes. */
function gpusPerNode(s: ShellFlags, gpus: number): Planned {
  const { c } = s;
  const text = c.file.text;
  if (s.present('num_processes')) {
    const nodes =
      (c.changed('nodes') as number | undefined) ??
      (typeof c.fact('nodes')?.value === 'number' ? (c.fact('nodes')!.value as number) : 1);
    return ok(s.flag('num_processes', gpus * nodes, { launcher: 'accelerate' }));
  }
  if (s.present('nproc_per_node')) return ok(s.flag('nproc_per_node', gpus, { launcher: 'torchrun' }));
  if (s.present('num_gpus')) return ok(s.flag('num_gpus', gpus, { launcher: 'deepspeed' }));
  if (/(^|[\s;&|(])(torchrun|python3? -m torch\.distributed\.(run|launch))\s/m.test(text))
    return ok(s.flag('nproc_per_node', gpus, { launcher: 'torchrun' }));
  if (/(^|[\s;&|(])tune\s+run\s/m.test(text)) return ok(s.flag('nproc_per_node', gpus, { launcher: 'tune' }));
  if (/(^|[\s;&|(])accelerate\s+launch\s/m.test(text)) {
    const nodes = (c.changed('nodes') as number | undefined) ?? 1;
    return ok(s.flag('num_processes', gpus * nodes, { launcher: 'accelerate' }));
  }
  if (/(^|[\s;&|(])deepspeed\s+(?!-)\S/m.test(text)) return ok(s.flag('num_gpus', gpus, { launcher: 'deepspeed' }));
  return no('no distributed launcher (torchrun, accelerate launch, deepspeed, tune run) to give the GPU count to');
}

/** LoRA's rank, alpha and dropout in the flags the script already takes for them. */
function lora(s: ShellFlags, l: Lora): Planned {
  const flagOf = (k: 'loraR' | 'loraAlpha' | 'loraDropout') => s.c.fact(k)?.rawKey.replace(/^-+/, '');
  return loraFlagOps(l, flagOf, 'the script does not take this LoRA setting as a flag');
}
