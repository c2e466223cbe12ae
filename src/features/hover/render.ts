// Text for the hover: the breakdown as an aligned block (the `vram-breakdown` language, highlighted by
// syntaxes/vram-breakdown.tmLanguage.json), signed byte deltas, and the translation function the host passes in.
// Editor-free and pure.
import type { Estimate } from '../../core';
import { formatBytes } from '../../core';

export type Translate = (message: string, ...args: Array<string | number>) => string;
export const identity: Translate = (m, ...args) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

/** The breakdown as an aligned text block (one line per component, then the totals). */
export function breakdownBlock(e: Estimate, gpuLine: boolean): string {
  const rows: Array<[string, string]> = e.perGpu.components.filter((c) => c.bytes > 0).map((c) => [c.label, formatBytes(c.bytes)]);
  rows.push(['= peak allocated', `${formatBytes(e.perGpu.peakBytes)}  (${e.perGpu.phase})`]);
  rows.push(['= reserved', formatBytes(e.perGpu.reservedBytes)]);
  rows.push(['= device (nvidia-smi)', formatBytes(e.perGpu.deviceBytes)]);
  const vl = e.perGpu.variableLengths;
  if (vl && vl.cacheBytes > 0) rows.push(['over a run (variable lengths)',
    `about ${formatBytes(vl.reservedBytes)} reserved or more, ${formatBytes(vl.deviceBytes)} nvidia-smi (+${formatBytes(vl.cacheBytes)} cached, freed before OOM)`]);
  if (e.perGpu.pagedToHostBytes) rows.push(['paged optimizer state in host RAM',
    `${formatBytes(e.perGpu.pagedToHostBytes)} (does not fit beside the rest; paged in and out at each step)`]);
  if (gpuLine && e.gpu) rows.push([`${e.gpu.id}`,
    `${formatBytes(e.gpu.memoryBytes)}  ${e.fits ? 'fits' : 'DOES NOT FIT'}, headroom ${formatBytes(e.headroomBytes ?? 0)}`]);
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([l, v]) => l + ' '.repeat(Math.max(1, w - l.length)) + v).join('\n');
}

export function signed(bytes: number): string {
  return `${bytes >= 0 ? '+' : '-'}${formatBytes(Math.abs(bytes))}`;
}
