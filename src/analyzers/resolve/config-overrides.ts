// The named model's config with the fields a trainer sets over it before it builds the model (the fact
// `modelConfigOverrides`: ArcticTraining's model.hf_config_kwargs, Axolotl's overrides_of_model_config; each runs
// `setattr(config, key, value)` on the loaded config). Pure.
import { ARCHITECTURE_LIMITS, HfConfigSchema, type HfConfig } from '../../core';
import { isUnknown, msg } from '../facts';
import type { ResolveContext } from './context';

/**
 * Fields that leave the parameter count as it is: the published count of the checkpoint still holds where only these
 * change (a longer rope, another dropout). Any other field sizes the model anew, and the count follows the architecture.
 */
const UNSIZED = new Set([
  'rope_scaling',
  'rope_theta',
  'rope_parameters',
  'use_cache',
  'attention_dropout',
  'hidden_dropout',
  'resid_pdrop',
  'embd_pdrop',
  'attn_pdrop',
  'sliding_window',
  'use_sliding_window',
  'output_router_logits',
  'router_aux_loss_coef',
  'torch_dtype',
  'dtype',
]);

/**
 * The checkpoint's config with the files' overrides laid over it, and whether its published parameter count still
 * holds; the config as it is where there are none, or where they cannot be used (said at the key).
 */
export function withConfigOverrides(
  ctx: ResolveContext,
  config: HfConfig,
  modelName: string,
): { readonly config: HfConfig; readonly countHolds: boolean } {
  const w = ctx.decided.modelConfigOverrides;
  const unchanged = { config, countHolds: true };
  if (!w || isUnknown(w.fact.value) || typeof w.fact.value !== 'string') return unchanged;
  const overrides = parsedObject(w.fact.value);
  // The info has a code of its own, which the CLI prints: the model estimated is not the checkpoint as published.
  const problem = (severity: 'warning' | 'info', m: ReturnType<typeof msg>): void => {
    const code = severity === 'info' ? 'model-config-overrides' : 'model-files';
    ctx.problems.push({ ...w.location, severity, code, ...m, key: w.fact.rawKey });
  };
  if (!overrides) {
    problem(
      'warning',
      msg("{0}: not a mapping of config fields; {1}'s config.json is estimated", w.fact.rawKey, modelName),
    );
    return unchanged;
  }
  const changed = Object.keys(overrides).filter((k) => JSON.stringify(config[k]) !== JSON.stringify(overrides[k]));
  if (changed.length === 0) return unchanged;
  // A size the checkpoint writes as a number must stay one (`num_hidden_layers: ${LAYERS}` is text the trainer would set).
  const notNumber = changed.find(
    (k) => (typeof config[k] === 'number' || k in ARCHITECTURE_LIMITS) && typeof overrides[k] !== 'number',
  );
  if (notNumber) {
    problem(
      'warning',
      msg(
        "{0}: {1} is not a number ({2}); {3}'s config.json is estimated",
        w.fact.rawKey,
        notNumber,
        JSON.stringify(overrides[notNumber]),
        modelName,
      ),
    );
    return unchanged;
  }
  const merged = { ...config, ...overrides };
  const parsed = HfConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
    problem(
      'warning',
      msg(
        "{0}: the config it makes is out of range ({1}); {2}'s config.json is estimated",
        w.fact.rawKey,
        why,
        modelName,
      ),
    );
    return unchanged;
  }
  const fields = changed.map((k) => `${k} ${JSON.stringify(overrides[k])} (${JSON.stringify(config[k] ?? null)})`);
  problem(
    'info',
    msg(
      "{0}: set over {1}'s config.json before the model is built, as the trainer does: {2}",
      w.fact.rawKey,
      modelName,
      fields.join(', '),
    ),
  );
  return { config: parsed.data, countHolds: changed.every((k) => UNSIZED.has(k)) };
}

/** A JSON object's fields; undefined for any other JSON value or text. */
function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
