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

/**
 * CUDA_VISIBLE_DEVICES set to hide every GPU: empty, or a list whose first id is negative (CUDA lists the devices up to
 * the first id that names none). torch.cuda.is_available() is then False, and the HF Trainer and Accelerate train on
 * the CPU.
 */
export function hidesEveryGpu(env: Env): Visible | undefined {
  const v = env.get('CUDA_VISIBLE_DEVICES');
  if (!v || !v.exported || !v.nameSpan || !v.valueSpan || unknownOf(v.pieces) !== undefined) return undefined;
  const first = textOf(v.pieces).split(',')[0].trim();
  if (first !== '' && !/^-\d+$/.test(first)) return undefined;
  return { rawKey: 'CUDA_VISIBLE_DEVICES', keySpan: v.nameSpan, valueSpan: v.valueSpan };
}

/**
 * Whether a file's text sets a launch on the CPU, as hidesEveryGpu and the Accelerate config's `use_cpu` read it: a
 * test on the text alone, for ordering a file's runs before they are analyzed (server/runs.ts).
 */
export function textRunsOnCpu(text: string): boolean {
  return /\bCUDA_VISIBLE_DEVICES=(""|''|-\d|\s)/.test(text) || /^use_cpu:[ \t]*true[ \t]*(#.*)?$/m.test(text);
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
