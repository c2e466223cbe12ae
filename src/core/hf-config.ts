// A Hugging Face config.json as the setup carries it: its raw fields, with every size field bounded so that a typo or
// a fuzzed value cannot make the arithmetic overflow. Pure data and a zod schema; no I/O.
import { z } from 'zod';

/**
 * The largest value each size field of a config.json may take: well above every released model (the widest hidden
 * size is 16,384 and the largest vocabulary 262,144 today), so that a typo or a fuzzed value cannot make the
 * arithmetic overflow to Infinity or lose integer precision.
 */
export const ARCHITECTURE_LIMITS: Readonly<Record<string, number>> = {
  hidden_size: 2 ** 20,
  d_model: 2 ** 20,
  n_embd: 2 ** 20,
  dim: 2 ** 20,
  num_hidden_layers: 10_000,
  n_layer: 10_000,
  num_layers: 10_000,
  n_layers: 10_000,
  num_attention_heads: 65_536,
  n_head: 65_536,
  n_heads: 65_536,
  num_heads: 65_536,
  num_key_value_heads: 65_536,
  head_dim: 65_536,
  intermediate_size: 2 ** 22,
  ffn_dim: 2 ** 22,
  d_ff: 2 ** 22,
  n_inner: 2 ** 22,
  moe_intermediate_size: 2 ** 22,
  shared_expert_intermediate_size: 2 ** 22,
  vocab_size: 2 ** 24,
  max_position_embeddings: 2 ** 27,
  n_positions: 2 ** 27,
  num_local_experts: 65_536,
  num_experts: 65_536,
  n_routed_experts: 65_536,
  num_experts_per_tok: 65_536,
  n_shared_experts: 65_536,
};

/** Flags a size field of a config.json (and of its text_config / vision_config) that is not a finite number within its limit. */
function checkArchitectureBounds(
  config: Record<string, unknown>,
  ctx: z.core.$RefinementCtx<Record<string, unknown>>,
  path: PropertyKey[] = [],
  depth = 0,
): void {
  for (const [key, value] of Object.entries(config)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < 2) {
      checkArchitectureBounds(value as Record<string, unknown>, ctx, [...path, key], depth + 1);
      continue;
    }
    const max = ARCHITECTURE_LIMITS[key];
    if (max === undefined || typeof value !== 'number') continue;
    if (!Number.isFinite(value))
      ctx.addIssue({ code: 'invalid_type', expected: 'number', input: value, path: [...path, key] });
    else if (value > max)
      ctx.addIssue({
        code: 'too_big',
        origin: 'number',
        maximum: max,
        inclusive: true,
        input: value,
        path: [...path, key],
      });
    else if (value < 0)
      ctx.addIssue({
        code: 'too_small',
        origin: 'number',
        minimum: 0,
        inclusive: true,
        input: value,
        path: [...path, key],
      });
  }
}

/** Raw Hugging Face config.json fields (numbers, strings, booleans, lists), as written in the checkpoint; size fields bounded. */
export const HfConfigSchema = z
  .record(z.string(), z.unknown())
  .superRefine((config, ctx) => checkArchitectureBounds(config, ctx));
export type HfConfig = Readonly<Record<string, unknown>>;
