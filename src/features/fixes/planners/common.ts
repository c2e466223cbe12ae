// Helpers the planners share: LoRA keys, the sequence-length and GRPO keys of HF-argument formats, the keys HF YAML
// formats share, and the ZeRO settings Axolotl and LLaMA-Factory take from the DeepSpeed configs they ship. Pure: no I/O.
import { bundledDeepspeedFor, findBundledDeepspeed } from '../../../analyzers/deepspeed-json/bundled';
import type { CanonicalKey } from '../../../analyzers/facts';
import type { SetupChange } from '../../../core';
import type { TrainingSetup } from '../../../core';
import { type Val, type Op, type Planned, op, ok, no, type PlanCtx, type Lora } from '../ops';
import { HF_OPTIM, HF_FSDP } from './vocab';

export const str = (v: unknown): string => String(v);

/** The training-call keyword for the sequence length: the one the file already uses, else TRL's max_length. */
export function seqKey(c: PlanCtx, fallback: string | undefined): string | undefined {
  const f = c.fact('seqLen');
  return f ? f.rawKey.replace(/^-+/, '') : fallback;
}

export function loraOps(
  l: Lora,
  keys: { r: string; alpha: string; dropout: string; dora?: string },
  targets: (t: NonNullable<Lora['target_modules']>) => Op[],
  extra: Partial<Op> = {},
): Op[] {
  const ops: Op[] = [];
  // DoRA on is written; off only where the file has the key.
  if (keys.dora && l.use_dora !== undefined)
    ops.push(op(keys.dora, l.use_dora, l.use_dora ? extra : { ...extra, when: 'present' }));
  if (l.r !== undefined) ops.push(op(keys.r, l.r, extra));
  if (l.alpha !== undefined) ops.push(op(keys.alpha, l.alpha, extra));
  if (l.dropout !== undefined) ops.push(op(keys.dropout, l.dropout, extra));
  if (l.target_modules !== undefined) ops.push(...targets(l.target_modules));
  return ops;
}

export type Rollout = NonNullable<TrainingSetup['rollout']>;

/**
 * LoRA's rank, alpha and dropout written to the flags the launch line already has for them (`flagOf` gives the flag's
 * name, or undefined where the line has none: then `missing` says why the change is not written).
 */
export function loraFlagOps(
  l: Lora,
  flagOf: (key: 'loraR' | 'loraAlpha' | 'loraDropout') => string | undefined,
  missing: string,
): Planned {
  const ops: Op[] = [];
  for (const [k, x] of [
    ['loraR', l.r],
    ['loraAlpha', l.alpha],
    ['loraDropout', l.dropout],
  ] as const) {
    if (x === undefined) continue;
    const flag = flagOf(k);
    if (!flag) return no(missing);
    ops.push(op([flag], x));
  }
  return ok(...ops);
}

/**
 * GRPOConfig keys for a changed rollout, against what the file sets (or TRL's defaults): vllm_enable_sleep_mode, beta
 * 0.0 for no reference, max_completion_length, and steps_per_generation for the completions per round.
 */
export function rolloutKeys(c: PlanCtx, r: Rollout): Array<[string, Val]> | string {
  const num = (k: CanonicalKey): number | undefined => {
    const f = c.fact(k);
    return typeof f?.value === 'number' ? f.value : undefined;
  };
  const out: Array<[string, Val]> = [];
  // OnlineDPOConfig: the generated tokens are max_new_tokens (64 by default); the completions per micro-step follow the
  // micro-batch.
  if (r.objective === 'online-dpo') {
    if (r.completion_len !== (num('maxNewTokens') ?? 64)) out.push(['max_new_tokens', r.completion_len]);
    return out;
  }
  if (r.vllm_sleep !== (c.fact('vllmSleep')?.value === true)) out.push(['vllm_enable_sleep_mode', r.vllm_sleep]);
  if (r.reference === 'none' && (num('klBeta') ?? 0) > 0) out.push(['beta', 0.0]);
  if (r.completion_len !== (num('completionLen') ?? 256)) out.push(['max_completion_length', r.completion_len]);
  const micro = (c.changed('micro_batch_size') as number | undefined) ?? num('microBatchSize') ?? 8;
  const gas = (c.changed('gradient_accumulation_steps') as number | undefined) ?? num('gradientAccumulationSteps') ?? 1;
  const current = micro * (num('stepsPerGeneration') ?? gas);
  if (r.batch !== current) {
    if (c.fact('generationBatchSize'))
      return 'generation_batch_size counts the completions of all GPUs; change it by hand';
    if (r.batch % micro !== 0)
      return `${r.batch} completions per round is not a multiple of the micro-batch (${micro})`;
    out.push(['steps_per_generation', r.batch / micro]);
  }
  return out;
}

/** max_prompt_length for a shorter GRPO sequence: the sequence minus the completion. */
export function promptKey(c: PlanCtx, seq: number): [string, number] {
  const r = c.changed('rollout') as Rollout | undefined;
  const f = c.fact('completionLen');
  const completion = r?.completion_len ?? (typeof f?.value === 'number' ? f.value : 256);
  return ['max_prompt_length', seq - completion];
}

/** Keys shared by HF-argument YAML formats (LLaMA-Factory, TRL/alignment-handbook YAML): FORMATS.md §2, §6. */
export function hfYamlCommon(c: PlanCtx, ch: SetupChange): Planned | undefined {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(
        op(
          c.has('micro_batch_size') && !c.has('per_device_train_batch_size')
            ? 'micro_batch_size'
            : 'per_device_train_batch_size',
          Number(v),
        ),
      );
    case 'eval_batch_size':
      return v === undefined ? ok(op('eval_strategy', 'no')) : ok(op('per_device_eval_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(op('gradient_accumulation_steps', Number(v)));
    case 'mixed_precision':
      if (v === 'bf16') return ok(op('bf16', true), op('fp16', false, { when: 'present' }));
      if (v === 'fp16')
        return ok(
          op('fp16', true),
          op('bf16', false, { when: 'present' }),
          op('pure_bf16', false, { when: 'present' }),
        );
      return ok(op('bf16', false), op('fp16', false, { when: 'present' }), op('pure_bf16', false, { when: 'present' }));
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return name ? ok(op('optim', name)) : no(`HF optim has no name for ${str(v)}`);
    }
    case 'compile':
      return ok(op('torch_compile', Boolean(v)));
    case 'fsdp': {
      const s = HF_FSDP[str(v)];
      return s === undefined ? no(`no fsdp option for ${str(v)}`) : ok(op('fsdp', s));
    }
    default:
      return undefined;
  }
}

/**
 * ZeRO settings for a YAML config whose tool ships DeepSpeed configs (Axolotl deepspeed_configs/, LLaMA-Factory
 * examples/deepspeed/): point `deepspeed` at the shipped file with the wanted stage and offload. The current settings
 * come from the file the config names (a shipped one), or none; the advice's changes override them.
 */
export function bundledZeroOp(c: PlanCtx, tool: 'axolotl' | 'llamafactory', name: string): Planned {
  // Under FSDP the offload is FSDP's (parameters, gradients and the optimizer step together).
  const fsdp = c.changed('fsdp') ?? c.fact('fsdp')?.value;
  if (fsdp !== undefined && fsdp !== 'none' && c.changed('zero_stage') === undefined) return fsdpOffloadOp(c, tool);
  const named = c.fact('deepspeedConfig');
  const path = named && typeof named.value === 'string' ? named.value : undefined;
  const current = path ? findBundledDeepspeed(path, c.file.format) : undefined;
  if (path && !current)
    return no(`deepspeed names ${path}, not one of the DeepSpeed configs ${name} ships; change that file`);
  const stage = Number(c.changed('zero_stage') ?? current?.stage ?? 0);
  const offOpt = str(c.changed('offload_optimizer') ?? current?.offloadOptimizer ?? 'none');
  const offParams = str(c.changed('offload_params') ?? current?.offloadParams ?? 'none');
  if (stage === 0 && offOpt === 'none' && offParams === 'none') return ok(op('deepspeed', null, { when: 'present' }));
  const mp = c.changed('mixed_precision') ?? c.fact('bf16')?.value;
  const b = bundledDeepspeedFor(tool, stage, offOpt, offParams, mp === true || mp === 'bf16');
  if (!b)
    return no(
      `${name} ships no DeepSpeed config with ZeRO-${stage}` +
        `${offOpt !== 'none' ? `, the optimizer offloaded to ${offOpt}` : ''}${offParams !== 'none' ? `, the parameters offloaded to ${offParams}` : ''}`,
    );
  return ok(op('deepspeed', b.path));
}

/** FSDP CPU offload in an Axolotl fsdp_config (offload_params moves parameters, gradients and the optimizer step). */
function fsdpOffloadOp(c: PlanCtx, tool: 'axolotl' | 'llamafactory'): Planned {
  // Either key asks for FSDP's one offload (CPUOffload(offload_params=True)); it goes to the CPU only.
  const wanted = [c.changed('offload_params'), c.changed('offload_optimizer')].filter((x) => x !== undefined).map(str);
  if (wanted.some((x) => x !== 'cpu' && x !== 'none')) return no('FSDP offloads to the CPU only');
  const on = wanted.includes('cpu');
  if (tool === 'llamafactory')
    return no('LLaMA-Factory runs FSDP from an Accelerate config: set fsdp_offload_params there');
  if (c.fact('fsdp')?.rawKey === 'fsdp')
    return no('the fsdp: option list is deprecated; add offload_params to an fsdp_config block by hand');
  const key = c.has('fsdp_config.fsdp_offload_params')
    ? 'fsdp_config.fsdp_offload_params'
    : 'fsdp_config.offload_params';
  return on ? ok(op(key, true)) : ok(op(key, false, { when: 'present' }));
}

/**
 * gradient_checkpointing_kwargs.use_reentrant (HF TrainingArguments, TRL and Axolotl YAML), unless the file writes the
 * kwargs as JSON text: that string is left to the user rather than rewritten.
 */
export function reentrantOps(c: PlanCtx, v: boolean): Planned {
  if (c.fact('checkpointReentrant')?.rawKey === 'gradient_checkpointing_kwargs')
    return no('gradient_checkpointing_kwargs is written as JSON text here: set its use_reentrant by hand');
  return ok(op('gradient_checkpointing_kwargs.use_reentrant', v));
}

/**
 * A step batch split over the accumulation and the GPUs (`batch_size / (gradient_accumulation_steps x GPUs)`: the DPO
 * reference implementation's and HALOs' Hydra configs): the accumulation is written, a micro-batch follows from it.
 * Undefined for any other key.
 */
export function batchOverAccumulation(c: PlanCtx, ch: SetupChange): Planned | undefined {
  if (ch.key === 'gradient_accumulation_steps') return ok(op('gradient_accumulation_steps', Number(ch.value)));
  if (ch.key !== 'micro_batch_size') return undefined;
  return c.changed('gradient_accumulation_steps') !== undefined
    ? ok()
    : no('the micro-batch is batch_size / (gradient_accumulation_steps x GPUs): change gradient_accumulation_steps');
}

/** torch.optim classes a trainer makes by name (`getattr(torch.optim, config.optimizer)`: the Hydra applications). */
const TORCH_OPTIM: Readonly<Record<string, string>> = { adamw: 'AdamW', sgd: 'SGD', rmsprop: 'RMSprop' };

/** The optimizer written as the torch.optim class a config names. */
export function torchOptimizer(value: unknown): Planned {
  const cls = TORCH_OPTIM[str(value)];
  return cls ? ok(op('optimizer', cls)) : no(`torch.optim has no class for ${str(value)}`);
}
