// Text for the hover: the verdict line, the compact breakdown (the `vram-breakdown` language, highlighted by
// syntaxes/vram-breakdown.tmLanguage.json), the full breakdown block, signed byte deltas, and the translation
// function the host passes in. Editor-free and pure.
import type { ComponentId, Estimate } from '../../core';
import { formatBytes } from '../../core';

export type Translate = (message: string, ...args: Array<string | number>) => string;
export const identity: Translate = (m, ...args) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

/** The verdict first: "48.0 GiB > 24.0 GiB on RTX-4090 (24.0 GiB over)", "fits: 18.2 GiB of 24.0 GiB on RTX-4090". */
export function verdictLine(e: Estimate, t: Translate = identity): string {
  const need = e.perGpu.deviceBytes;
  if (!e.gpu || e.fits === undefined) return t('{0} per GPU (nvidia-smi; no GPU chosen)', formatBytes(need));
  const cap = e.gpu.memoryBytes;
  return e.fits
    ? t('fits: {0} of {1} on {2}', formatBytes(need), formatBytes(cap), e.gpu.id)
    : t('{0} > {1} on {2} ({3} over)', formatBytes(need), formatBytes(cap), e.gpu.id, formatBytes(need - cap));
}

/** The three largest terms, then those of `driven` not among them (marked), and the device total: at most 6 rows. */
export function compactBlock(e: Estimate, driven: readonly ComponentId[] = []): string {
  const parts = e.perGpu.components.filter((c) => c.bytes > 0);
  const big = [...parts].sort((x, y) => y.bytes - x.bytes);
  const shown = big.slice(0, 3);
  for (const c of big.slice(3)) if (driven.includes(c.id) && shown.length < 5) shown.push(c);
  const rows: Array<[string, string]> = shown.map((c) => [
    `${driven.includes(c.id) ? '* ' : ''}${c.label}`,
    formatBytes(c.bytes),
  ]);
  const rest = parts.length - shown.length;
  if (rest > 0)
    rows.push([
      `+ ${rest} more`,
      formatBytes(parts.filter((c) => !shown.includes(c)).reduce((s, c) => s + c.bytes, 0)),
    ]);
  rows.push(['= device (nvidia-smi)', `${formatBytes(e.perGpu.deviceBytes)}  (peak in ${e.perGpu.phase})`]);
  const vl = e.perGpu.variableLengths;
  if (vl && vl.cacheBytes > 0)
    rows.push([
      'over a run (variable lengths)',
      `${formatBytes(vl.deviceBytes)} nvidia-smi (+${formatBytes(vl.cacheBytes)} cached)`,
    ]);
  if (e.perGpu.pagedToHostBytes) rows.push(['paged to host RAM', formatBytes(e.perGpu.pagedToHostBytes)]);
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([l, v]) => l + ' '.repeat(Math.max(1, w - l.length)) + v).join('\n');
}

/** The breakdown as an aligned text block (one line per component, then the totals). */
export function breakdownBlock(e: Estimate, gpuLine: boolean): string {
  const rows: Array<[string, string]> = e.perGpu.components
    .filter((c) => c.bytes > 0)
    .map((c) => [c.label, formatBytes(c.bytes)]);
  rows.push(['= peak allocated', `${formatBytes(e.perGpu.peakBytes)}  (${e.perGpu.phase})`]);
  rows.push(['= reserved', formatBytes(e.perGpu.reservedBytes)]);
  rows.push(['= device (nvidia-smi)', formatBytes(e.perGpu.deviceBytes)]);
  const vl = e.perGpu.variableLengths;
  if (vl && vl.cacheBytes > 0)
    rows.push([
      'over a run (variable lengths)',
      `about ${formatBytes(vl.reservedBytes)} reserved or more, ` +
        `${formatBytes(vl.deviceBytes)} nvidia-smi (+${formatBytes(vl.cacheBytes)} cached, freed before OOM)`,
    ]);
  if (e.perGpu.pagedToHostBytes)
    rows.push([
      'paged optimizer state in host RAM',
      `${formatBytes(e.perGpu.pagedToHostBytes)} (does not fit beside the rest; paged in and out at each step)`,
    ]);
  if (gpuLine && e.gpu)
    rows.push([
      `${e.gpu.id}`,
      `${formatBytes(e.gpu.memoryBytes)}  ${e.fits ? 'fits' : 'DOES NOT FIT'}, headroom ${formatBytes(e.headroomBytes ?? 0)}`,
    ]);
  const w = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([l, v]) => l + ' '.repeat(Math.max(1, w - l.length)) + v).join('\n');
}

export function signed(bytes: number): string {
  return `${bytes >= 0 ? '+' : '-'}${formatBytes(Math.abs(bytes))}`;
}
