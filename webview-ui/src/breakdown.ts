// The summary (fits or not, by how much), the breakdown by phase and component, host memory, and the chart.
import type { EstimateView } from '../../src/protocol/messages';
import { formatBytes } from '../../src/core';
import { groupLabel, groupOf, groupTotals, renderChart } from './chart';
import { classify, type CellStatus } from './fitmap';
import { tr, type StringId } from './strings';
import { h, fill, phaseName } from './dom';

// ---- Summary, breakdown, host memory -----------------------------------------------------------------------

export interface ResultView {
  readonly view: EstimateView | null;
  readonly errors: readonly string[];
  readonly gpu: { readonly id: string; readonly memoryBytes: number } | null;
  readonly headroomFraction: number;
  readonly changed: number;
  /** The file's own figures (not a what-if): largest micro-batch / sequence and GPUs needed. */
  readonly fileLimits: { maxMicroBatch: number | null; maxSeqLen: number | null; gpusNeeded: number | null } | null;
}

export function statusOf(r: ResultView): CellStatus | 'unknown' {
  if (!r.view) return 'error';
  return r.gpu ? classify(r.view.deviceBytes, r.gpu.memoryBytes, r.headroomFraction) : 'unknown';
}

const STATUS_TEXT: Record<CellStatus | 'unknown', { id: StringId; icon: string }> = {
  fits: { id: 'fits', icon: '✓' },
  near: { id: 'near', icon: '~' },
  oom: { id: 'oom', icon: '✗' },
  error: { id: 'estimateError', icon: '!' },
  unknown: { id: 'unknownFit', icon: '?' },
};

export function renderSummary(slot: HTMLElement, r: ResultView): void {
  const kids: Node[] = [];
  if (r.changed > 0)
    kids.push(
      h('p', { class: 'whatif-banner' }, h('strong', {}, tr('whatIfActive', r.changed)), ' ', tr('whatIfNote')),
    );
  if (!r.view) {
    kids.push(
      h('p', { class: 'status status-error', role: 'alert' }, tr('estimateError')),
      h('ul', { class: 'errors' }, ...r.errors.map((e) => h('li', {}, e))),
    );
    slot.replaceChildren(...kids);
    return;
  }
  const v = r.view;
  const st = statusOf(r);
  const badge = h('span', { class: `status status-${st}` }, `${STATUS_TEXT[st].icon} ${tr(STATUS_TEXT[st].id)}`);
  const big = h(
    'p',
    { class: 'big' },
    h('span', { class: 'big-num' }, formatBytes(v.deviceBytes)),
    ' ',
    h(
      'span',
      { class: 'muted' },
      r.gpu
        ? tr('deviceOfCapacity', '', formatBytes(r.gpu.memoryBytes), r.gpu.id).trim()
        : tr('deviceNoGpu', '').trim(),
    ),
  );
  const details: Node[] = [badge];
  if (r.gpu && v.headroomBytes !== null) {
    const free = r.gpu.memoryBytes - v.deviceBytes;
    details.push(
      h('span', {}, free >= 0 ? tr('headroomLeft', formatBytes(free)) : tr('headroomOver', formatBytes(-free))),
    );
  }
  details.push(h('span', {}, tr('peakPhase', phaseName(v.phase))));
  kids.push(h('p', { class: 'label muted' }, tr('perGpu')), big, h('p', { class: 'facts' }, ...details));
  if (r.fileLimits && r.gpu) {
    const L = r.fileLimits;
    kids.push(
      h(
        'p',
        { class: 'facts muted' },
        h('span', {}, tr('maxMicro', L.maxMicroBatch ?? tr('nothingFits'))),
        h('span', {}, tr('maxSeq', L.maxSeqLen ?? tr('nothingFits'))),
        L.gpusNeeded !== null ? h('span', {}, tr('gpusNeeded', L.gpusNeeded)) : null,
      ),
    );
  }
  slot.replaceChildren(...kids);
}

/** `chartWidth`: the chart box's laid-out width when the caller knows it (0: measure the box). */
export function renderBreakdown(slot: HTMLElement, chartBox: HTMLElement, r: ResultView, chartWidth = 0): void {
  if (!r.view) {
    fill(slot, h('p', { class: 'muted' }, '—'));
    return;
  }
  const v = r.view;
  const totals = groupTotals(v);
  const all = totals.reduce((s, t) => s + t.bytes, 0) || 1;
  const legend = h(
    'table',
    { class: 'legend' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, tr('group')),
        h('th', { scope: 'col', class: 'num' }, tr('size')),
        h('th', { scope: 'col', class: 'num' }, tr('share')),
      ),
    ),
    h(
      'tbody',
      {},
      ...totals.map((t) =>
        h(
          'tr',
          {},
          h(
            'th',
            { scope: 'row' },
            h('span', { class: `swatch seg-${t.group}`, 'aria-hidden': 'true' }),
            groupLabel(t.group),
          ),
          h('td', { class: 'num' }, formatBytes(t.bytes)),
          h('td', { class: 'num' }, `${((100 * t.bytes) / all).toFixed(0)}%`),
        ),
      ),
    ),
    h(
      'tfoot',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, `${tr('total')} (${tr('device')})`),
        h('td', { class: 'num' }, formatBytes(v.deviceBytes)),
        h('td', {}),
      ),
    ),
  );
  const comps = h('details', { class: 'components' }, h('summary', {}, tr('allComponents')), componentTable(v));
  const phases = h(
    'div',
    { class: 'phases' },
    h('h3', {}, tr('phasesHeading')),
    h(
      'ul',
      {},
      ...v.phases.map((p) =>
        h(
          'li',
          { class: p.phase === v.phase ? 'peak' : undefined },
          h('span', { class: 'phase-name' }, phaseName(p.phase)),
          ' ',
          h('span', { class: 'num' }, formatBytes(p.allocatedBytes)),
          p.phase === v.phase ? h('span', { class: 'peak-tag' }, ' ▲') : null,
          h('span', { class: 'muted note' }, p.note),
        ),
      ),
    ),
  );
  const host = h(
    'div',
    { class: 'host' },
    h('h3', {}, tr('hostHeading')),
    h(
      'dl',
      {},
      h('dt', {}, tr('hostRam')),
      h('dd', {}, v.cpuBytes > 0 ? formatBytes(v.cpuBytes) : tr('none')),
      h('dt', {}, tr('nvme')),
      h('dd', {}, v.nvmeBytes > 0 ? formatBytes(v.nvmeBytes) : tr('none')),
    ),
  );
  const vl = v.variableLengths;
  const lengths =
    vl && vl.cacheBytes > 0
      ? h(
          'p',
          { class: 'muted note variable-lengths', title: vl.formula },
          tr('variableLengths', formatBytes(vl.reservedBytes), formatBytes(vl.deviceBytes), formatBytes(vl.cacheBytes)),
        )
      : null;
  drawChart(chartBox, r, chartWidth);
  fill(slot, chartBox, legend, lengths, h('div', { class: 'cols' }, phases, host), comps);
}

/**
 * (Re)draws the SVG at `width`, else at the box's current width. Measuring the box while the panel is being rebuilt
 * forces a layout in the middle of the frame, so callers pass the width when they know it.
 */
export function drawChart(chartBox: HTMLElement, r: ResultView, width = 0): void {
  if (!r.view) return;
  width ||= chartBox.clientWidth || chartBox.parentElement?.clientWidth || 600;
  chartBox.replaceChildren(renderChart({ view: r.view, capacity: r.gpu, headroomFraction: r.headroomFraction, width }));
}

export function componentTable(v: EstimateView, before?: EstimateView): HTMLTableElement {
  const rows = [...v.components, ...v.runtime].filter((c) => c.bytes > 0);
  const prev = new Map<string, number>();
  if (before)
    for (const c of [...before.components, ...before.runtime]) prev.set(c.label, (prev.get(c.label) ?? 0) + c.bytes);
  return h(
    'table',
    { class: 'components-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, tr('component')),
        h('th', { scope: 'col', class: 'num' }, tr('size')),
        before ? h('th', { scope: 'col', class: 'num' }, tr('changeCol')) : null,
        h('th', { scope: 'col' }, tr('formula')),
      ),
    ),
    h(
      'tbody',
      {},
      ...rows.map((c) => {
        const d = before ? c.bytes - (prev.get(c.label) ?? 0) : 0;
        return h(
          'tr',
          {},
          h(
            'th',
            { scope: 'row' },
            h('span', { class: `swatch seg-${groupOf(c.id)}`, 'aria-hidden': 'true' }),
            c.label,
          ),
          h('td', { class: 'num' }, formatBytes(c.bytes)),
          before
            ? h(
                'td',
                { class: `num ${d < 0 ? 'delta-down' : d > 0 ? 'delta-up' : ''}` },
                d === 0 ? '0' : `${d > 0 ? '+' : ''}${formatBytes(d)}`,
              )
            : null,
          h('td', { class: 'formula' }, h('code', {}, c.formula || '—')),
        );
      }),
    ),
  );
}
