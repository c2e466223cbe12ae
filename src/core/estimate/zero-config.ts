// DeepSpeed ZeRO's bucket sizes and limits as a run uses them: DeepSpeed's defaults (deepspeed/runtime/zero/config.py)
// under what the files set, and the "auto" values HF Trainer and Accelerate fill from the model's hidden size before
// DeepSpeed sees the config (transformers integrations/deepspeed.py trainer_config_finalize, accelerate
// accelerator.py _prepare_deepspeed): reduce_bucket_size = hidden², stage3_prefetch_bucket_size = int(0.9 x hidden²),
// stage3_param_persistence_threshold = 10 x hidden. Docs: docs/estimate/parallelism.md. Pure.
import type { TrainingSetup } from '../setup';
import { formatCount } from '../units';

/** DeepSpeed ZeRO defaults (deepspeed/runtime/zero/config.py). */
export const ZERO_DEFAULTS = {
  reduce_bucket_size: 5e8,
  allgather_bucket_size: 5e8,
  stage3_prefetch_bucket_size: 5e7,
  stage3_max_live_parameters: 1e9,
  stage3_max_reuse_distance: 1e9,
  stage3_param_persistence_threshold: 1e5,
  sub_group_size: 1e9,
};

type Counted = keyof typeof ZERO_DEFAULTS;

/** The keys HF Trainer and Accelerate fill when the config says "auto", and how. */
const HIDDEN_FILL: Partial<Record<Counted, { value: (hidden: number) => number; text: string }>> = {
  reduce_bucket_size: { value: (h) => h * h, text: 'hidden_size²' },
  stage3_prefetch_bucket_size: { value: (h) => Math.floor(0.9 * h * h), text: '0.9 x hidden_size²' },
  stage3_param_persistence_threshold: { value: (h) => 10 * h, text: '10 x hidden_size' },
};

/** ZeRO's settings with every count resolved to a number, and which of them "auto" filled. */
export type ZeroConfig = typeof ZERO_DEFAULTS & {
  readonly contiguous_gradients?: boolean;
  readonly overlap_comm?: boolean;
  /** The counts the config left "auto", each with the rule that filled it (`hidden_size²` with the number). */
  readonly filled: Partial<Record<Counted, string>>;
};

/** DeepSpeed's defaults as a ZeroConfig: what a setup without zero_buckets runs with (frozen, shared). */
const DEFAULT_CONFIG: ZeroConfig = Object.freeze({ ...ZERO_DEFAULTS, filled: Object.freeze({}) });

/** The ZeRO settings of `setup`, its "auto" counts filled from the model's hidden size as HF Trainer does. */
export function zeroConfig(setup: TrainingSetup, hidden: number): ZeroConfig {
  if (!setup.zero_buckets) return DEFAULT_CONFIG;
  const out: Record<string, number | boolean> = { ...ZERO_DEFAULTS };
  const filled: Partial<Record<Counted, string>> = {};
  for (const [key, value] of Object.entries(setup.zero_buckets ?? {})) {
    if (value !== 'auto') {
      out[key] = value;
      continue;
    }
    const fill = HIDDEN_FILL[key as Counted];
    if (!fill) continue;
    out[key] = fill.value(hidden);
    filled[key as Counted] = `"auto" = ${fill.text} (${hidden}) = ${formatCount(out[key] as number)}`;
  }
  return { ...(out as typeof ZERO_DEFAULTS), filled };
}

/** A count for formulas, with the rule when "auto" filled it. */
export function zeroValue(zb: ZeroConfig, key: Counted): string {
  return zb.filled[key] ?? formatCount(zb[key]);
}

/** `key value` for formulas, with the rule when "auto" filled it. */
export function zeroSetting(zb: ZeroConfig, key: Counted): string {
  return `${key} ${zeroValue(zb, key)}`;
}
