// Value readers. PyYAML (YAML 1.1) reads plain yes/no/on/off as booleans and `2e-5` as a string; eemeli/yaml
// (YAML 1.2 core) does the opposite. Pydantic and dataclass loaders then coerce strings, so memory keys are read
// leniently: a boolean may be written true/True/yes/on/1, a number may be a quoted or underscored string. Also what a
// value is (Entry, View), the converters (Conv) the analyzers' key tables use, and the GaLore and GRPO keys several
// formats share. Pure: no I/O.
import { YAMLMap, type Node } from 'yaml';
import { about, EVALUATION_STRATEGY_RELEASE, evaluationOn, galoreOf, galoreRankOf, wordBool } from '../facts';
import type { FactValue, Span, SubjectMessage, Unknown } from '../facts';
import type { YamlCtx } from './common';

/** One `key: value` of a mapping, with the value resolved through aliases and interpolation. */
export interface Entry {
  readonly key: string;
  /** Dotted path from the document root (`fsdp_config.fsdp_offload_params`). */
  readonly path: string;
  readonly keySpan: Span;
  /** The value after alias and interpolation resolution; null for `key:` with nothing after it. */
  readonly node: Node | null;
  /** Where the value, the alias (`*a`) or the interpolation (`${x}`) is written. */
  readonly valueSpan: Span;
  /** Where the resolved value is defined, when that differs from valueSpan. */
  readonly originSpan?: Span;
  /** Why an interpolation could not be resolved statically. */
  readonly unresolved?: string;
}

/** A value as the tools read it, after YAML 1.1 / 1.2 differences are smoothed out. */
export type View =
  | { readonly t: 'absent' }
  | { readonly t: 'unknown'; readonly reason: string }
  | { readonly t: 'str'; readonly v: string; readonly plain: boolean }
  | { readonly t: 'num'; readonly v: number }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'seq'; readonly items: readonly View[] }
  | { readonly t: 'map'; readonly node: YAMLMap };

/** A value the tool would reject; recorded as an 'invalid-value' problem instead of a fact. */
export class Invalid {
  /** `why` is about the key path (its `{0}`), filled in when the problem is recorded. */
  constructor(
    readonly why: SubjectMessage,
    readonly severity: 'error' | 'warning' = 'error',
  ) {}
}

export type Converted = FactValue | Unknown | Invalid | undefined;
export type Conv = (v: View) => Converted;

/** Interprets a view as a boolean, or undefined when it is not one. */
export function boolOf(v: View): boolean | undefined {
  if (v.t === 'bool') return v.v;
  if (v.t === 'num' && (v.v === 0 || v.v === 1)) return v.v === 1;
  return v.t === 'str' ? wordBool(v.v) : undefined;
}

/** Interprets a view as a number (`1_000`, `'8'`, `5e8` included), or undefined. */
export function numOf(v: View): number | undefined {
  if (v.t === 'num') return v.v;
  if (v.t === 'str') {
    const s = v.v.trim().replace(/_/g, '');
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Number(s);
  }
  return undefined;
}

export function strOf(v: View): string | undefined {
  if (v.t === 'str') return v.v;
  if (v.t === 'num') return String(v.v);
  if (v.t === 'bool') return String(v.v);
  return undefined;
}

/** A list of strings: a YAML sequence, or one comma- or space-separated string. */
export function listOf(v: View, sep: RegExp = /[,\s]+/): string[] | undefined {
  if (v.t === 'seq') return v.items.map((i) => strOf(i)).filter((s): s is string => s !== undefined && s.length > 0);
  if (v.t === 'str')
    return v.v
      .split(sep)
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  return undefined;
}

export const asBool: Conv = (v) => {
  const b = boolOf(v);
  return b === undefined ? new Invalid(about('{0}: expected true or false, found {1}', describe(v))) : b;
};

/** A checkpointing switch: on is every layer checkpointed ('full'), off is none. */
export const asCheckpointing: Conv = (v) => {
  const b = boolOf(v);
  return b === undefined ? asBool(v) : b ? 'full' : 'none';
};

/** A switch or count that is on (true, or a number above 0): true; otherwise no fact. */
export const asOnWhenSet: Conv = (v) => (boolOf(v) === true || (numOf(v) ?? 0) > 0 ? true : undefined);

/** A positive integer (batch sizes, accumulation steps, lengths). */
/** A packing / pad-to-maximum switch: on means every batch is seq_len long, off means each batch is padded to its longest sample. */
export const asPacking: Conv = (v) => {
  const b = boolOf(v);
  return b === undefined ? asBool(v) : b ? 'fixed' : 'variable';
};

/** The same switch on: the batches carry padding or packed rows, so the model builds an attention mask (off: unsaid). */
export const asPaddedWhenOn: Conv = (v) => (boolOf(v) === true ? true : undefined);

export const asPosInt: Conv = (v) => {
  const n = numOf(v);
  if (n === undefined) return new Invalid(about('{0}: expected a positive integer, found {1}', describe(v)));
  if (!Number.isInteger(n) || n <= 0)
    return new Invalid(about('{0}: must be a positive integer, found {1}', describe(v)));
  return n;
};

/** HF eval_strategy / evaluation_strategy: "no" turns evaluation off; "steps" and "epoch" run it during training. */
export const asEvalStrategy: Conv = (v) => {
  const s = strOf(v);
  return (
    (s === undefined ? undefined : evaluationOn(s)) ??
    new Invalid(about('{0}: expected one of {1}, found {2}', 'no, steps, epoch', describe(v)))
  );
};

export const asNonNegNumber: Conv = (v) => {
  const n = numOf(v);
  if (n === undefined) return new Invalid(about('{0}: expected a number, found {1}', describe(v)));
  if (n < 0) return new Invalid(about('{0}: must not be negative, found {1}', n));
  return n;
};

export const asString: Conv = (v) => {
  const s = strOf(v);
  if (s === undefined) return new Invalid(about('{0}: expected a string, found {1}', describe(v)));
  return s.trim() === '' ? undefined : s.trim();
};

export function asEnumInt(allowed: readonly number[]): Conv {
  return (v) => {
    const n = numOf(v);
    if (n === undefined || !allowed.includes(n))
      return new Invalid(about('{0}: expected one of {1}, found {2}', allowed.join(', '), describe(v)));
    return n;
  };
}

/** Offload devices as DeepSpeed and Accelerate spell them. */
export const asOffload: Conv = (v) => {
  if (v.t === 'bool' && !v.v) return 'none';
  const s = strOf(v)?.trim().toLowerCase();
  if (s === 'none' || s === 'cpu' || s === 'nvme') return s;
  if (s === 'no' || s === 'false') return 'none';
  return new Invalid(about('{0}: expected none, cpu or nvme, found {1}', describe(v)));
};

export function describe(v: View): string {
  switch (v.t) {
    case 'str':
      return JSON.stringify(v.v.length > 40 ? `${v.v.slice(0, 40)}…` : v.v);
    // YAML reads 1e999 as Infinity: say what it is rather than print a word the file does not contain.
    case 'num':
      return Number.isFinite(v.v) ? String(v.v) : `a number beyond ${v.v > 0 ? '' : '-'}1.8e308`;
    case 'bool':
      return String(v.v);
    case 'seq':
      return 'a list';
    case 'map':
      return 'a mapping';
    case 'unknown':
      return 'an unresolved value';
    default:
      return 'nothing';
  }
}

/** HF / PyTorch dtype names to the setup vocabulary. */
export function dtypeOf(raw: string): 'fp32' | 'bf16' | 'fp16' | undefined {
  const s = raw
    .trim()
    .toLowerCase()
    .replace(/^torch\./, '');
  if (s === 'bfloat16' || s === 'bf16') return 'bf16';
  if (s === 'float16' || s === 'fp16' || s === 'half') return 'fp16';
  if (s === 'float32' || s === 'fp32' || s === 'float') return 'fp32';
  return undefined;
}

/**
 * An attention implementation name (HF attn_implementation, Axolotl, LLaMA-Factory flash_attn) to the memory class
 * the estimator models: 'eager' materializes the s x s score matrix; 'sdpa' uses PyTorch's fused kernels; 'flash'
 * keeps O(s) memory. FlashAttention 2/3, xformers' memory-efficient kernel, flex and sage attention all avoid the
 * score matrix, so they are 'flash' for memory purposes.
 */
export function attentionOf(raw: string): 'eager' | 'sdpa' | 'flash' | undefined {
  const s = raw.trim().toLowerCase();
  if (s === 'eager' || s === 'disabled') return 'eager';
  if (s === 'sdpa') return 'sdpa';
  if (/flash|^fa[23]$|xformers|flex|sage/.test(s)) return 'flash';
  return undefined;
}

/** FSDP options of HF TrainingArguments / Axolotl `fsdp` (list or space-separated string). */
export function fsdpFromOptions(options: readonly string[]): { fsdp?: string; offload: boolean } {
  const lower = options.map((o) => o.toLowerCase());
  let fsdp: string | undefined;
  for (const o of lower) {
    if (o === 'full_shard' || o === 'shard_grad_op' || o === 'no_shard') fsdp = o;
    else if (o === 'hybrid_shard' || o === 'hybrid_shard_zero2') fsdp = 'hybrid_shard';
  }
  // Options without a sharding one (`fsdp: auto_wrap`) still turn FSDP on, and Accelerate's plugin then shards with
  // FSDP_SHARDING_STRATEGY, FULL_SHARD unless the environment names another.
  if (fsdp === undefined && lower.includes('auto_wrap')) fsdp = 'full_shard';
  return { fsdp, offload: lower.includes('offload') };
}

/** FSDP1 sharding strategies by name or by the integer Accelerate accepts (1-5). */
export function shardingOf(v: View): string | undefined {
  const n = numOf(v);
  const byInt = ['full_shard', 'shard_grad_op', 'no_shard', 'hybrid_shard', 'hybrid_shard'];
  if (n !== undefined && Number.isInteger(n) && n >= 1 && n <= 5) return byInt[n - 1];
  const s = strOf(v)?.trim().toLowerCase();
  if (s === 'full_shard' || s === 'shard_grad_op' || s === 'no_shard' || s === 'hybrid_shard') return s;
  if (s === 'hybrid_shard_zero2' || s === '_hybrid_shard_zero2') return 'hybrid_shard';
  return undefined;
}

export const asSharding: Conv = (v) =>
  shardingOf(v) ??
  new Invalid(
    about(
      '{0}: expected FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2, found {1}',
      describe(v),
    ),
  );

/** An FSDP1 state dict type (Accelerate fsdp_state_dict_type: the name, or the integer 1-3 it accepts) as 'full' | 'sharded' | 'local'. */
export function stateDictTypeOf(v: View): 'full' | 'sharded' | 'local' | undefined {
  const n = numOf(v);
  const byInt = ['full', 'local', 'sharded'] as const;
  if (n !== undefined && Number.isInteger(n) && n >= 1 && n <= 3) return byInt[n - 1];
  const s = strOf(v)
    ?.trim()
    .toLowerCase()
    .replace(/_state_dict$/, '');
  return s === 'full' || s === 'sharded' || s === 'local' ? s : undefined;
}

export const asStateDictType: Conv = (v) =>
  stateDictTypeOf(v) ??
  new Invalid(about('{0}: expected FULL_STATE_DICT, SHARDED_STATE_DICT or LOCAL_STATE_DICT, found {1}', describe(v)));

/**
 * FSDP1's backward prefetch as 'pre' | 'post' | 'none': BACKWARD_PRE, BACKWARD_POST or NO_PREFETCH (any case, as
 * Accelerate and the HF Trainer's fsdp_config take them) or the integers 1 and 2 of torch's BackwardPrefetch enum.
 */
export function backwardPrefetchOf(v: View): 'pre' | 'post' | 'none' | undefined {
  const n = numOf(v);
  if (n === 1 || n === 2) return n === 1 ? 'pre' : 'post';
  const s = strOf(v)?.trim().toUpperCase();
  return s === 'BACKWARD_PRE' ? 'pre' : s === 'BACKWARD_POST' ? 'post' : s === 'NO_PREFETCH' ? 'none' : undefined;
}

export const asBackwardPrefetch: Conv = (v) =>
  backwardPrefetchOf(v) ??
  new Invalid(about('{0}: expected BACKWARD_PRE, BACKWARD_POST or NO_PREFETCH, found {1}', describe(v)));

/** HF TrainingArguments save_strategy: "no" writes no checkpoint; "steps", "epoch" and "best" do. */
export const asSaveStrategy: Conv = (v) => {
  const s = strOf(v)?.trim().toLowerCase();
  if (s === 'no') return false;
  if (s === 'steps' || s === 'epoch' || s === 'best') return true;
  return new Invalid(about('{0}: expected no, steps, epoch or best, found {1}', describe(v)));
};

/** Optimizer names of the HF family; 4-bit states have no setup value yet, so their raw name is kept. */
export function optimizerOf(raw: string, normalize: (s: string) => string): string {
  return normalize(raw.trim());
}

/**
 * HF TrainingArguments' GaLore: optim galore_* (with _layerwise), optim_target_modules (a name or a list), optim_args
 * ("rank=64, ..."). Axolotl passes the same keys through.
 */
export function galoreKeys(ctx: YamlCtx, m: ReadonlyMap<string, Entry>): void {
  const optim = m.get('optim') ?? m.get('optimizer');
  const g = optim ? galoreOf(strOf(ctx.view(optim)) ?? '') : undefined;
  if (!g || !optim) return;
  ctx.add('galore', optim, 'galore');
  ctx.add('galoreLayerwise', optim, g.layerwise);
  ctx.put(
    'galoreTargets',
    m.get('optim_target_modules'),
    (v) =>
      listOf(v) ??
      (strOf(v) !== undefined ? [strOf(v)!] : new Invalid(about('{0}: expected module names, found {1}', describe(v)))),
  );
  ctx.put('galoreRank', m.get('optim_args'), (v) => {
    const s = strOf(v);
    return s === undefined ? undefined : galoreRankOf(s);
  });
}

/**
 * TRL GRPOConfig keys (top level of a TRL YAML, Axolotl's `trl:` block): prompt and completion lengths, the generation
 * round, the KL reference and the vLLM engine.
 */
export function grpoKeys(ctx: YamlCtx, m: ReadonlyMap<string, Entry>): void {
  ctx.put('promptLen', m.get('max_prompt_length'), asPosInt);
  ctx.put('completionLen', m.get('max_completion_length'), asPosInt);
  ctx.put('stepsPerGeneration', m.get('steps_per_generation'), asPosInt);
  ctx.put('generationBatchSize', m.get('generation_batch_size'), asPosInt);
  ctx.put('numIterations', m.get('num_iterations'), asPosInt);
  ctx.put('numGenerations', m.get('num_generations'), asPosInt);
  ctx.put('klBeta', m.get('beta'), asNonNegNumber);
  ctx.put('useVllm', m.get('use_vllm'), asBool);
  ctx.put('vllmMode', m.get('vllm_mode'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    return s === 'colocate' || s === 'server'
      ? s
      : new Invalid(about('{0}: expected colocate or server, found {1}', describe(v)));
  });
  ctx.put('vllmMemoryFraction', m.get('vllm_gpu_memory_utilization'), asNonNegNumber);
  ctx.put('vllmTensorParallel', m.get('vllm_tensor_parallel_size'), asPosInt);
  ctx.put('vllmSleep', m.get('vllm_enable_sleep_mode'), asBool);
  ctx.put('gatherForGeneration', m.get('ds3_gather_for_generation'), asBool);
}

/** `evaluation_strategy` (TrainingArguments' name before 4.41) dates the run's transformers (EVALUATION_STRATEGY_RELEASE). */
export function datedByEvaluationStrategy(ctx: YamlCtx, e: Entry | undefined): void {
  if (e && ctx.view(e).t !== 'absent')
    ctx.addDefault('transformersVersion', e, EVALUATION_STRATEGY_RELEASE.version, EVALUATION_STRATEGY_RELEASE.note);
}
