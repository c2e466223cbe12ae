// Fields a trainer sets over the checkpoint's config.json before it builds the model: ArcticTraining's
// `model.hf_config_kwargs` (arctic_training/model/hf_factory.py create_config: `setattr(config, k, v)` for each) and
// Axolotl's `overrides_of_model_config` (axolotl/utils/models.py load_model_config, the same loop). The mapping is
// read as JSON text, which resolve/model.ts lays over the named model's config. Pure.
import { msg } from '../facts';
import type { YamlCtx } from './common';
import type { Entry } from './values';

/** A value as the mapping writes it, or the reason it is not known statically. */
type Plain = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** Deepest nesting read (`rope_scaling: {type: ..., factor: ...}` is one level). */
const MAX_DEPTH = 8;

/** The mapping at `e` as the fact `modelConfigOverrides` (JSON text); nothing when it is absent or empty. */
export function configOverrides(ctx: YamlCtx, e: Entry | undefined): void {
  if (!e) return;
  const fields = ctx.sub(e);
  if (fields.size === 0) return;
  const v = plainMapping(ctx, fields, 0);
  if (!v.ok) {
    ctx.problem('not-static', 'warning', msg('{0}: {1}', e.path, v.reason), e.valueSpan, e.path);
    ctx.add('modelConfigOverrides', e, { unknown: v.reason });
    return;
  }
  ctx.add('modelConfigOverrides', e, JSON.stringify(v.value));
}

function plainMapping(ctx: YamlCtx, fields: ReadonlyMap<string, Entry>, depth: number): Plain {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of fields) {
    const v = plainEntry(ctx, entry, depth);
    if (!v.ok) return v;
    out[key] = v.value;
  }
  return { ok: true, value: out };
}

function plainEntry(ctx: YamlCtx, e: Entry, depth: number): Plain {
  if (depth > MAX_DEPTH) return { ok: false, reason: `${e.path} is nested too deeply to read` };
  const view = ctx.view(e);
  switch (view.t) {
    case 'absent':
      return { ok: true, value: null };
    case 'unknown':
      return { ok: false, reason: view.reason };
    case 'bool':
    case 'num':
    case 'str':
      return { ok: true, value: view.v };
    case 'map':
      return plainMapping(ctx, ctx.sub(e), depth + 1);
    case 'seq': {
      const items: unknown[] = [];
      for (const item of view.items) {
        if (item.t === 'unknown') return { ok: false, reason: item.reason };
        if (item.t === 'map' || item.t === 'seq')
          return { ok: false, reason: `${e.path}: a list of lists or mappings is not read` };
        items.push(item.t === 'absent' ? null : item.v);
      }
      return { ok: true, value: items };
    }
  }
}
