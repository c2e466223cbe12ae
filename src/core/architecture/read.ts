// Reading config.json fields: typed getters that never throw, and the parse context that collects problems in the
// order they are found. Pure; imports only types.
import type { HfConfig } from '../setup';
import type { ArchitectureProblem, Family } from './types';

/** The first of `keys` that holds a finite number. */
export function num(cfg: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = cfg[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

/** partial_rotary_factor inside rope_parameters (transformers 5 configs) or rope_scaling. */
export function ropePartial(cfg: HfConfig): number | undefined {
  for (const k of ['rope_parameters', 'rope_scaling']) {
    const r = cfg[k];
    if (typeof r === 'object' && r !== null && !Array.isArray(r)) {
      const v = (r as HfConfig).partial_rotary_factor;
      if (typeof v === 'number' && v > 0 && v <= 1) return v;
    }
  }
  return undefined;
}

export function bool(cfg: HfConfig, key: string): boolean | undefined {
  const v = cfg[key];
  return typeof v === 'boolean' ? v : undefined;
}

export function str(cfg: HfConfig, key: string): string | undefined {
  const v = cfg[key];
  return typeof v === 'string' ? v : undefined;
}

/** A nested object field (text_config, vision_config, linear_attn_config), or undefined. */
export function obj(cfg: HfConfig, key: string): HfConfig | undefined {
  const v = cfg[key];
  return typeof v === 'object' && v !== null ? (v as HfConfig) : undefined;
}

/** The numbers of a list field (mlp_only_layers, moe_layers, kda_layers); undefined when the field is not a list. */
export function numbers(cfg: HfConfig, key: string): number[] | undefined {
  const v = cfg[key];
  return Array.isArray(v) ? (v as unknown[]).filter((x): x is number => typeof x === 'number') : undefined;
}

/**
 * What every parsing step reads and writes: the effective config (the language model's fields, nested configs merged),
 * the config as given (for vision_config and other top-level fields), its model_type and family, and the problems
 * found so far. Problems keep the order in which the steps find them.
 */
export class ParseContext {
  readonly problems: ArchitectureProblem[] = [];

  constructor(
    /** The language model's fields (text_config merged in for the image-text checkpoints). */
    readonly cfg: HfConfig,
    /** The config.json as given. */
    readonly config: HfConfig,
    readonly modelType: string,
    readonly family: Family,
  ) {}

  /** `value` when it is a positive integer; otherwise records a problem on `field` and returns 1. */
  need(value: number | undefined, field: string): number {
    if (value === undefined || !(value > 0) || !Number.isInteger(value)) {
      this.problems.push({ field, message: `${field} must be a positive integer in a ${this.modelType} config` });
      return 1;
    }
    return value;
  }

  problem(field: string, message: string): void {
    this.problems.push({ field, message });
  }
}
