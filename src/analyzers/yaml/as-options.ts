// A config file's keys as the command-line options they stand for (verl's and EasyR1's config YAML, ms-swift's
// argument files): every scalar or list under its mappings as `path=value`, located at its key and value. Pure.
import type { Opt } from '../shell/args';
import type { YamlCtx } from './common';
import type { Entry, View } from './values';

/** The most keys of a file read as options (a verl config has a few hundred). */
const MAX_KEYS = 4096;
const MAX_NESTING = 12;

/** Every scalar or list under a mapping, as the option `path=value` it stands for; null values are left out. */
export function yamlOptions(ctx: YamlCtx, entries: Map<string, Entry>): Opt[] {
  return yamlLeaves(ctx, entries).map(({ entry: e, view }) => ({
    name: e.path,
    rawKey: e.path,
    keySpan: e.keySpan,
    value: valueOf(view, e),
  }));
}

/** Every entry under a mapping that is not itself a mapping (absent values left out), with its view, in order. */
export function yamlLeaves(
  ctx: YamlCtx,
  entries: Map<string, Entry>,
  out: { entry: Entry; view: View }[] = [],
  depth = 0,
): { entry: Entry; view: View }[] {
  if (depth > MAX_NESTING) return out;
  for (const e of entries.values()) {
    if (out.length >= MAX_KEYS) return out;
    const v = ctx.view(e);
    if (v.t === 'map') yamlLeaves(ctx, ctx.sub(e), out, depth + 1);
    else if (v.t !== 'absent') out.push({ entry: e, view: v });
  }
  return out;
}

function valueOf(v: View, e: Entry): NonNullable<Opt['value']> {
  const span = e.valueSpan;
  switch (v.t) {
    case 'str':
      return { text: v.v, span };
    case 'num':
      return { text: String(v.v), span };
    case 'bool':
      return { text: v.v ? 'true' : 'false', span };
    case 'seq': {
      const items = v.items.flatMap((x) => (x.t === 'str' ? [x.v] : x.t === 'num' ? [String(x.v)] : []));
      return { text: `[${items.join(',')}]`, span, items };
    }
    case 'unknown':
      return { text: '', span, unknown: v.reason };
    default:
      return { text: '', span, unknown: 'not a scalar or a list' };
  }
}
