// The fit maps: micro-batch by sequence-length grids of fits / near / out of memory, one per GPU count shown.
import { formatBytes } from '../../src/core';
import type { CellStatus, FitMap } from './fitmap';
import { tr, type StringId } from './strings';
import { h, fill } from './dom';

// ---- Fit map --------------------------------------------------------------------------------------------------

const CELL: Record<CellStatus, { icon: string; id: StringId }> = {
  fits: { icon: '✓', id: 'cellFits' },
  near: { icon: '~', id: 'cellNear' },
  oom: { icon: '✗', id: 'cellOom' },
  error: { icon: '!', id: 'cellError' },
};

export interface FitMapPanel {
  readonly title: string;
  readonly map: FitMap | null;
}

export function renderFitMapPlaceholder(slot: HTMLElement, text: StringId): void {
  fill(slot, h('p', { class: 'muted' }, tr(text)));
}

const seqLabel = (s: number): string => (s >= 1024 ? `${s / 1024}K` : String(s));

/** One tab stop per grid (the current cell, else the first); arrow keys, Home and End move between cells. */
function rovingFocus(table: HTMLTableElement): void {
  const rows = [...table.tBodies[0].rows].map((r) => [...r.querySelectorAll<HTMLButtonElement>('button.cell')]);
  const start = table.querySelector<HTMLButtonElement>('button.cell.current') ?? rows[0]?.[0];
  start?.setAttribute('tabindex', '0');
  table.addEventListener('keydown', (ev: KeyboardEvent) => {
    const target = ev.target as HTMLElement;
    const i = rows.findIndex((r) => r.includes(target as HTMLButtonElement));
    if (i < 0) return;
    const j = rows[i].indexOf(target as HTMLButtonElement);
    const moves: Record<string, [number, number]> = {
      ArrowUp: [i - 1, j],
      ArrowDown: [i + 1, j],
      ArrowLeft: [i, j - 1],
      ArrowRight: [i, j + 1],
      Home: [i, 0],
      End: [i, rows[i].length - 1],
    };
    const to = moves[ev.key];
    if (!to) return;
    const next = rows[to[0]]?.[to[1]];
    ev.preventDefault();
    if (!next) return;
    target.setAttribute('tabindex', '-1');
    next.setAttribute('tabindex', '0');
    next.focus();
  });
}

export function renderFitMaps(
  slot: HTMLElement,
  panels: readonly FitMapPanel[],
  gpuId: string,
  headroomFraction: number,
  current: { micro: number; seq: number },
  pick: (micro: number, seq: number) => void,
): void {
  const focused =
    document.activeElement instanceof HTMLElement && slot.contains(document.activeElement)
      ? document.activeElement.dataset.panel
      : undefined;
  const grids = panels.map((p, pi) => {
    if (!p.map)
      return h(
        'figure',
        { class: 'fitmap' },
        h('figcaption', {}, p.title),
        h('p', { class: 'muted' }, tr('fitMapComputing')),
      );
    const m = p.map;
    const table = h(
      'table',
      { class: 'fitgrid' },
      h('caption', { class: 'sr-only' }, tr('fitMapCaption', gpuId)),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col', class: 'corner' }, `${tr('seqShort')} \\ ${tr('microShort')}`),
          ...m.micros.map((mb) => h('th', { scope: 'col' }, String(mb))),
        ),
      ),
      h(
        'tbody',
        {},
        ...m.rows.map((row, i) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, seqLabel(m.seqs[i])),
            ...row.map((cell) => {
              const info = CELL[cell.status];
              const size = Number.isFinite(cell.deviceBytes)
                ? formatBytes(cell.deviceBytes)
                : `> ${formatBytes(m.capacityBytes)}`;
              const label = tr('fitMapCell', cell.micro, cell.seq, tr(info.id), size);
              const isCurrent = cell.micro === current.micro && cell.seq === current.seq;
              const btn = h(
                'button',
                {
                  type: 'button',
                  class: `cell cell-${cell.status}${isCurrent ? ' current' : ''}`,
                  'aria-label': label,
                  title: label,
                  'aria-current': isCurrent ? 'true' : undefined,
                  'data-panel': pi,
                  tabindex: -1,
                },
                info.icon,
              );
              btn.addEventListener('click', () => pick(cell.micro, cell.seq));
              return h('td', {}, btn);
            }),
          ),
        ),
      ),
    );
    rovingFocus(table);
    return h('figure', { class: 'fitmap' }, h('figcaption', {}, p.title), table);
  });
  const pct = `${Math.round(headroomFraction * 100)}%`;
  fill(
    slot,
    h('p', { class: 'muted' }, tr('fitMapCaption', gpuId)),
    h('div', { class: 'fitmaps' }, ...grids),
    h(
      'p',
      { class: 'legend-line' },
      h('span', { class: 'key cell-fits' }, `✓ ${tr('cellFits')}`),
      h('span', { class: 'key cell-near' }, `~ ${tr('cellNear')} (${pct})`),
      h('span', { class: 'key cell-oom' }, `✗ ${tr('cellOom')}`),
    ),
    h('p', { class: 'muted small' }, tr('fitMapPick')),
  );
  // Keep keyboard focus in the grid the user was in when it is redrawn after a pick.
  if (focused !== undefined)
    slot.querySelector<HTMLElement>(`button.cell[data-panel="${focused}"][tabindex="0"]`)?.focus();
}
