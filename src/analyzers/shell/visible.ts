// The GPUs and nodes an environment variable gives the launched process: CUDA_VISIBLE_DEVICES (a device list) or a
// count (NPROC_PER_NODE, NNODES), exported or given as a prefix of the launch line. Pure: no I/O.
import type { CanonicalKey, Span, Tool } from '../facts';
import { type Env, textOf, unknownOf } from './fields';
import { deviceCount, isNumberText } from './flags';
import type { Launch } from './launch';

export interface Visible {
  readonly count?: number;
  readonly unknown?: string;
  readonly rawKey: string;
  readonly keySpan: Span;
  readonly valueSpan: Span;
}

/** CUDA_VISIBLE_DEVICES as the launched process sees it (exported or given as a prefix), if the script sets it. */
export function visibleDevices(env: Env, name = 'CUDA_VISIBLE_DEVICES'): Visible | undefined {
  const v = env.get(name);
  if (!v || !v.exported || !v.nameSpan || !v.valueSpan) return undefined;
  const u = unknownOf(v.pieces);
  const text = textOf(v.pieces);
  const base = { rawKey: name, keySpan: v.nameSpan, valueSpan: v.valueSpan };
  if (u !== undefined) return { ...base, unknown: u };
  const count =
    name === 'CUDA_VISIBLE_DEVICES' ? deviceCount(text) : isNumberText(text.trim()) ? Number(text.trim()) : undefined;
  return count === undefined ? { ...base, unknown: `${name}='${text}' is not a device count` } : { ...base, count };
}

export function emitVisible(l: Launch, vis: Visible, key: CanonicalKey, tool: Tool): void {
  l.fact(
    key,
    vis.rawKey,
    vis.keySpan,
    vis.valueSpan,
    vis.count !== undefined ? vis.count : { unknown: vis.unknown ?? 'not known statically' },
    tool,
  );
}
