// The per-GPU breakdown as a hand-drawn SVG stacked bar: seven groups of components, the allocated / reserved /
// device markers and the GPU capacity (and headroom) line. Hand-drawn because it is one bar: a chart library would
// add tens of kB, inline styles (blocked by our CSP) and its own colours instead of the theme's. Colours come
// from CSS classes (styles.css, --vscode-charts-*); text is set with textContent only. role=img + aria-label
// carries a one-sentence summary; the legend next to it is a real <table> with every number (the fallback).
import type { EstimateView } from '../../src/protocol/messages';
import { formatBytes } from '../../src/core';
import { tr, type StringId } from './strings';

export const GROUPS = ['weights', 'optimizer', 'gradients', 'activations', 'loss', 'buffers', 'runtime'] as const;
export type GroupId = (typeof GROUPS)[number];

const GROUP_OF: Record<string, GroupId> = {
  weights: 'weights',
  'quantization-constants': 'weights',
  'adapter-weights': 'weights',
  'master-weights': 'weights',
  'autocast-weight-copies': 'weights',
  'rotary-tables': 'weights',
  'optimizer-states': 'optimizer',
  'optimizer-step': 'optimizer',
  'first-step-init': 'optimizer',
  'checkpoint-save': 'weights',
  'paged-optimizer': 'optimizer',
  gradients: 'gradients',
  activations: 'activations',
  'checkpoint-recompute': 'activations',
  'backward-working': 'activations',
  'kv-cache': 'activations',
  'logits-loss': 'loss',
  'loss-backward': 'loss',
  'ddp-buckets': 'buffers',
  'blas-workspaces': 'runtime',
  'zero-buckets': 'buffers',
  'gathered-params': 'buffers',
  'gathered-grads': 'buffers',
  'rollout-engine': 'buffers',
  'load-transient': 'buffers',
  'allocator-reserve': 'runtime',
  'stream-pools': 'runtime',
  'all-gather-pool': 'runtime',
  'zero3-launch-lead': 'runtime',
  'fsdp-init-cache': 'runtime',
  'logits-block': 'runtime',
  'forward-cache': 'runtime',
  'small-pool': 'runtime',
  'kbit-setup-cache': 'runtime',
  'loss-segments': 'runtime',
  'load-cache': 'runtime',
  'cuda-context': 'runtime',
  nccl: 'runtime',
};

export function groupOf(id: string): GroupId {
  return GROUP_OF[id] ?? 'buffers';
}

export const groupLabel = (g: GroupId): string => tr(`group.${g}` as StringId);

export interface GroupTotal {
  readonly group: GroupId;
  readonly bytes: number;
  readonly items: ReadonlyArray<{ id: string; label: string; bytes: number; formula: string }>;
}

/** Components of the peak phase and runtime terms, summed per group, in GROUPS order (empty groups dropped). */
export function groupTotals(v: EstimateView): GroupTotal[] {
  const out = new Map<
    GroupId,
    { bytes: number; items: Array<{ id: string; label: string; bytes: number; formula: string }> }
  >();
  for (const c of [...v.components, ...v.runtime]) {
    if (c.bytes <= 0) continue;
    const g = c.id === 'paged-optimizer' ? 'optimizer' : groupOf(c.id);
    const e = out.get(g) ?? { bytes: 0, items: [] };
    e.bytes += c.bytes;
    e.items.push(c);
    out.set(g, e);
  }
  return GROUPS.filter((g) => out.has(g)).map((g) => ({ group: g, ...out.get(g)! }));
}

const SVG = 'http://www.w3.org/2000/svg';

function el<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  parent?: Element,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent?.appendChild(e);
  return e;
}

export interface ChartInput {
  readonly view: EstimateView;
  readonly capacity: { readonly id: string; readonly memoryBytes: number } | null;
  readonly headroomFraction: number;
  /** Drawing width in CSS pixels (the container's width). */
  readonly width: number;
}

/** The stacked bar. Segments are in GROUPS order; markers sit under the bar, one label row each. */
export function renderChart({ view, capacity, headroomFraction, width }: ChartInput): SVGSVGElement {
  const W = Math.max(260, Math.floor(width));
  const pad = 4;
  const barTop = 22;
  const barH = 34;
  const rowH = 15;
  const markers: Array<{ key: 'allocated' | 'reserved' | 'device'; bytes: number }> = [
    { key: 'allocated', bytes: view.peakBytes },
    { key: 'reserved', bytes: view.reservedBytes },
    { key: 'device', bytes: view.deviceBytes },
  ];
  const H = barTop + barH + 8 + markers.length * rowH + 4;
  const totals = groupTotals(view);
  const cap = capacity?.memoryBytes ?? 0;
  const scaleMax = Math.max(view.deviceBytes, cap) * 1.04 || 1;
  const x = (b: number): number => pad + (b / scaleMax) * (W - 2 * pad);

  const summary = tr(
    'chartSummary',
    totals.map((t) => `${groupLabel(t.group)} ${formatBytes(t.bytes)}`).join(', '),
    formatBytes(view.peakBytes),
    formatBytes(view.reservedBytes),
    formatBytes(view.deviceBytes),
    capacity ? `${capacity.id} ${formatBytes(cap)}` : '—',
  );
  const svg = el('svg', {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: 'img',
    'aria-label': summary,
    class: 'chart',
  });
  el('title', {}, svg).textContent = summary;

  // Track (the whole capacity), then the segments.
  if (cap > 0) el('rect', { x: x(0), y: barTop, width: x(cap) - x(0), height: barH, class: 'track' }, svg);
  let at = 0;
  for (const t of totals) {
    const x0 = x(at);
    const x1 = x(at + t.bytes);
    const r = el(
      'rect',
      { x: x0, y: barTop, width: Math.max(0.5, x1 - x0), height: barH, class: `seg seg-${t.group}` },
      svg,
    );
    el('title', {}, r).textContent = `${groupLabel(t.group)}: ${formatBytes(t.bytes)}`;
    at += t.bytes;
  }
  // Beyond the capacity: hatched overlay, so "over" reads without colour.
  if (cap > 0 && view.deviceBytes > cap) {
    const defs = el('defs', {}, svg);
    const pat = el(
      'pattern',
      { id: 'vl-hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      defs,
    );
    el('rect', { x: 0, y: 0, width: 3, height: 6, class: 'hatch' }, pat);
    el(
      'rect',
      {
        x: x(cap),
        y: barTop,
        width: x(view.deviceBytes) - x(cap),
        height: barH,
        fill: 'url(#vl-hatch)',
        class: 'over',
      },
      svg,
    );
  }
  // Capacity and headroom lines, labelled on the top row.
  if (cap > 0) {
    if (headroomFraction > 0) {
      const hx = x(cap * (1 - headroomFraction));
      el('line', { x1: hx, x2: hx, y1: barTop - 4, y2: barTop + barH + 4, class: 'headroom-line' }, svg);
    }
    const cx = x(cap);
    el('line', { x1: cx, x2: cx, y1: barTop - 6, y2: barTop + barH + 6, class: 'capacity-line' }, svg);
    const label = el(
      'text',
      { x: cx, y: barTop - 9, class: 'chart-text capacity-text', 'text-anchor': cx > W * 0.6 ? 'end' : 'start' },
      svg,
    );
    label.textContent = `${tr('capacity')} ${capacity!.id} ${formatBytes(cap)}`;
  }
  // Markers: a tick under the bar and a label on its own row, kept inside the drawing.
  markers.forEach((m, i) => {
    const mx = x(m.bytes);
    const y = barTop + barH + 8 + (i + 1) * rowH - 3;
    el('line', { x1: mx, x2: mx, y1: barTop, y2: y - 9, class: `marker marker-${m.key}` }, svg);
    const anchor = mx > W * 0.6 ? 'end' : 'start';
    const t = el(
      'text',
      {
        x: anchor === 'end' ? mx - 3 : mx + 3,
        y,
        class: `chart-text marker-text marker-${m.key}`,
        'text-anchor': anchor,
      },
      svg,
    );
    t.textContent = `${tr(m.key)} ${formatBytes(m.bytes)}`;
  });
  return svg;
}
