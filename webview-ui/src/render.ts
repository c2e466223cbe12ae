// PanelModel (and the what-if result) -> DOM. Every piece of data goes in through textContent or an attribute
// (never innerHTML); no inline style attributes (the CSP forbids them); colours are classes in styles.css.
// Controls are @vscode-elements/elements web components: native-looking, themed by --vscode-* variables and
// keyboard accessible (listbox semantics, focus rings) without us re-implementing any of it.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { AdviceView, EstimateView, PanelModel } from '../../src/protocol/messages';
import { formatBytes, formatCount } from '../../src/core';
import { groupLabel, groupOf, groupTotals, renderChart } from './chart';
import { classify, type CellStatus, type FitMap } from './fitmap';
import { describeChanges } from './changes';
import { tr, type StringId } from './strings';
import {
  CHECKPOINTINGS,
  LIMITS,
  METHODS,
  OFFLOADS,
  OPTIMIZERS,
  PRECISIONS,
  SHARDINGS,
  gpuCountOptions,
  gpuOptions,
  parseCount,
  type Controls,
  type Overrides,
  type WhatIfWrite,
} from './whatif';

type Attrs = Record<string, string | number | boolean | undefined>;

/** createElement with attributes and children; strings become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined | false>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') e.className = String(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

function custom(tag: string, attrs: Attrs = {}, ...children: Array<Node | string>): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : String(v));
  e.append(...children);
  return e;
}

const section = (id: string, heading: StringId | null, ...children: Array<Node | null>): HTMLElement =>
  h(
    'section',
    { id, class: 'card', 'aria-labelledby': heading ? `${id}-h` : undefined },
    heading ? h('h2', { id: `${id}-h` }, tr(heading)) : null,
    ...children,
  );

/** tr() with nodes for its placeholders: "Applied: {0} in {1}" with a link for {1}. */
export function trNodes(id: StringId, ...args: ReadonlyArray<Node | string>): Array<Node | string> {
  const out: Array<Node | string> = [];
  const text = tr(id);
  let at = 0;
  for (const m of text.matchAll(/\{(\d+)\}/g)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push(args[Number(m[1])] ?? m[0]);
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** The changes of an advice item or a what-if, in words, joined. */
export const changesText = (changes: ReadonlyArray<{ key: string; value: unknown }>, setup: object): string =>
  describeChanges(changes, setup as Readonly<Record<string, unknown>>).join(tr('listSeparator'));

export const phaseName = (p: string): string =>
  ['load', 'forward', 'backward', 'optimizer', 'first-step', 'evaluation', 'generation'].includes(p)
    ? tr(`phase.${p}` as StringId)
    : p;

// ---- Layout ------------------------------------------------------------------------------------------------

export interface Slots {
  header: HTMLElement;
  summary: HTMLElement;
  breakdown: HTMLElement;
  chartBox: HTMLElement;
  whatif: HTMLElement;
  /** The what-if's "Write these changes" outcome (role=status). */
  whatifNotice: HTMLElement;
  fitmap: HTMLElement;
  advice: HTMLElement;
  /** The outcome of the last Apply (role=status), above the list. */
  adviceNotice: HTMLElement;
  /** The advice list itself (renderAdvice fills it). */
  adviceBody: HTMLElement;
  assumptions: HTMLElement;
}

/** Empties root and lays out the panel's sections. */
export function renderShell(root: HTMLElement): Slots {
  const chartBox = h('div', { class: 'chart-box' });
  const notice = (id: string): HTMLElement =>
    h('div', { id, class: 'notice-box', role: 'status', 'aria-live': 'polite' });
  const adviceNotice = notice('advice-notice');
  const adviceBody = h('div', { class: 'advice-body' });
  const slots: Slots = {
    header: h('header', { class: 'head' }),
    summary: h('section', { id: 'summary', class: 'card summary', 'aria-live': 'polite' }),
    breakdown: section('breakdown', 'breakdownHeading'),
    chartBox,
    whatif: section('whatif', 'whatIfHeading'),
    whatifNotice: notice('whatif-notice'),
    fitmap: section('fitmap', 'fitMapHeading'),
    advice: section('advice', 'adviceHeading', adviceNotice, adviceBody),
    adviceNotice,
    adviceBody,
    assumptions: section('assumptions', null),
  };
  const main = h(
    'main',
    { class: 'panel' },
    slots.header,
    slots.summary,
    slots.breakdown,
    slots.whatif,
    slots.fitmap,
    slots.advice,
    slots.assumptions,
  );
  root.replaceChildren(main);
  return slots;
}

export function renderMessage(root: HTMLElement, title: string, detail: string): void {
  root.replaceChildren(
    h(
      'main',
      { class: 'panel' },
      h('section', { class: 'card empty', role: 'status' }, h('h1', {}, title), h('p', { class: 'muted' }, detail)),
    ),
  );
}

/** Replaces the children of a section, keeping its heading (h2). */
export function fill(sec: HTMLElement, ...children: Array<Node | null | false>): void {
  const head = sec.querySelector(':scope > h2');
  sec.replaceChildren(...(head ? [head] : []), ...children.filter((c): c is Node => !!c));
}

export function renderHeader(slot: HTMLElement, m: PanelModel): void {
  const params = tr(
    'paramsLabel',
    formatCount(m.estimate.parametersTotal),
    formatCount(m.estimate.parametersTrainable),
  );
  slot.replaceChildren(
    h('h1', {}, h('span', { class: 'app' }, tr('appName')), ' ', h('span', { class: 'file' }, m.title)),
    h(
      'p',
      { class: 'meta muted' },
      h('span', {}, tr('formatLabel', m.format)),
      m.setup.model ? h('span', {}, tr('modelLabel', m.setup.model)) : null,
      h('span', {}, params),
    ),
  );
}

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

// ---- What-if controls ---------------------------------------------------------------------------------------

export type ControlKey = keyof Controls;
export interface ControlHandlers {
  change(key: ControlKey, value: string | number): void;
  reset(): void;
  /** Write the what-if's changes into the run's files. */
  write(): void;
}

const OPTION_LABEL: Partial<Record<ControlKey, (v: string) => string>> = {
  precision: (v) => tr(`precision.${v}` as StringId),
  checkpointing: (v) => tr(`checkpointing.${v}` as StringId),
  sharding: (v) => tr(`sharding.${v}` as StringId),
  offload: (v) => tr(`offload.${v}` as StringId),
  method: (v) => tr(`method.${v}` as StringId),
};

function select(
  key: ControlKey,
  values: ReadonlyArray<string | number>,
  current: string | number,
  withFile: boolean,
  combobox = false,
): HTMLElement {
  const label = OPTION_LABEL[key] ?? ((v: string) => v);
  const opts = values.map((v) =>
    custom('vscode-option', { value: String(v), selected: String(v) === String(current) }, label(String(v))),
  );
  if (withFile) opts.unshift(custom('vscode-option', { value: 'file', selected: current === 'file' }, tr('asInFile')));
  return custom('vscode-single-select', { id: `ctl-${key}`, 'data-key': key, combobox, position: 'below' }, ...opts);
}

const CONTROL_LABEL: Record<ControlKey, StringId> = {
  gpu: 'ctlGpu',
  gpus: 'ctlGpus',
  micro: 'ctlMicro',
  seq: 'ctlSeq',
  precision: 'ctlPrecision',
  checkpointing: 'ctlCheckpointing',
  sharding: 'ctlSharding',
  offload: 'ctlOffload',
  optimizer: 'ctlOptimizer',
  method: 'ctlMethod',
};

/** Builds the what-if form for the controls' current values. Built once per model; values change in place. */
export function renderWhatIf(
  slot: HTMLElement,
  c: Controls,
  base: Controls,
  fileGpuId: string | undefined,
  handlers: ControlHandlers,
  notice: HTMLElement,
): void {
  const fields: Array<[ControlKey, HTMLElement]> = [
    ['gpu', select('gpu', gpuOptions(fileGpuId), c.gpu, false, true)],
    ['gpus', select('gpus', gpuCountOptions(base.gpus), c.gpus, false)],
    [
      'micro',
      custom('vscode-textfield', {
        id: 'ctl-micro',
        'data-key': 'micro',
        type: 'number',
        min: LIMITS.micro[0],
        max: LIMITS.micro[1],
        value: c.micro,
        inputmode: 'numeric',
      }),
    ],
    [
      'seq',
      custom('vscode-textfield', {
        id: 'ctl-seq',
        'data-key': 'seq',
        type: 'number',
        min: LIMITS.seq[0],
        max: LIMITS.seq[1],
        value: c.seq,
        inputmode: 'numeric',
      }),
    ],
    ['precision', select('precision', PRECISIONS, c.precision, base.precision === 'file')],
    ['checkpointing', select('checkpointing', CHECKPOINTINGS, c.checkpointing, false)],
    ['sharding', select('sharding', SHARDINGS, c.sharding, base.sharding === 'file')],
    ['offload', select('offload', OFFLOADS, c.offload, base.offload === 'file')],
    ['optimizer', select('optimizer', OPTIMIZERS, c.optimizer, false)],
    ['method', select('method', METHODS, c.method, false)],
  ];
  const grid = h('div', { class: 'controls' });
  for (const [key, ctl] of fields) {
    const err = h('div', { class: 'field-error', id: `ctl-${key}-err`, role: 'alert' });
    grid.append(
      h(
        'div',
        { class: 'field', 'data-field': key },
        custom('vscode-label', { for: `ctl-${key}` }, tr(CONTROL_LABEL[key])),
        ctl,
        err,
      ),
    );
    const isNumber = key === 'micro' || key === 'seq';
    ctl.addEventListener(isNumber ? 'input' : 'change', () => {
      const raw = (ctl as unknown as { value: string }).value;
      if (isNumber) {
        const [lo, hi] = key === 'micro' ? LIMITS.micro : LIMITS.seq;
        const n = parseCount(raw, lo, hi);
        err.textContent = n === undefined ? tr('invalidNumber', lo, hi) : '';
        ctl.toggleAttribute('invalid', n === undefined);
        if (n !== undefined) handlers.change(key, n);
      } else {
        handlers.change(key, key === 'gpus' ? Number(raw) : raw);
      }
    });
  }
  const reset = custom('vscode-button', { secondary: true, id: 'whatif-reset', title: tr('resetHint') }, tr('reset'));
  reset.addEventListener('click', () => handlers.reset());
  const write = custom(
    'vscode-button',
    { id: 'whatif-write', title: tr('whatIfWriteHint'), disabled: true },
    tr('whatIfWrite'),
  );
  write.addEventListener('click', () => {
    if (!write.hasAttribute('disabled')) handlers.write();
  });
  const writes = h('p', { id: 'whatif-writes', class: 'muted small', hidden: true });
  fill(slot, grid, h('div', { class: 'actions' }, write, reset), writes, notice);
  markChanged(slot, c, base);
}

/** The write button and the line that says what it writes (or why it does not). */
export function setWriteState(slot: HTMLElement, w: WhatIfWrite, setup: object): void {
  const button = slot.querySelector<HTMLElement>('#whatif-write');
  const line = slot.querySelector<HTMLElement>('#whatif-writes');
  if (!button || !line) return;
  const can = w.changes.length > 0 && w.removed.length === 0;
  button.toggleAttribute('disabled', !can);
  let text = '';
  if (w.removed.length > 0) text = tr('whatIfRemoval', w.removed.join(tr('listSeparator')));
  else if (can) text = tr('whatIfWrites', changesText(w.changes, setup));
  else if (w.gpuOnly) text = tr('whatIfGpuNote');
  setText(line, text);
  line.hidden = text === '';
}

/**
 * Everything the what-if form's markup depends on except the values it shows (setControlValues sets those in
 * place). While it stays the same, a new model keeps the form: rebuilding its ten web components (each select
 * measures itself to place its dropdown, a forced layout) costs more than the rest of the redraw.
 */
export function whatIfShape(
  base: Controls,
  fileGpuId: string | undefined,
  strings: Readonly<Record<string, string>>,
): string {
  return JSON.stringify([
    gpuOptions(fileGpuId),
    gpuCountOptions(base.gpus),
    base.precision === 'file',
    base.sharding === 'file',
    base.offload === 'file',
    strings,
  ]);
}

/** Sets each control to `c` (after a reset, a fit-map pick or a new model) and marks the ones that differ from the file. */
export function setControlValues(slot: HTMLElement, c: Controls, base: Controls): void {
  for (const key of Object.keys(c) as ControlKey[]) {
    const ctl = slot.querySelector<HTMLElement>(`#ctl-${key}`);
    if (!ctl) continue;
    const v = String(c[key]);
    const el = ctl as unknown as { value: string };
    if (el.value !== v) el.value = v;
    ctl.removeAttribute('invalid');
    const err = slot.querySelector(`#ctl-${key}-err`);
    if (err) err.textContent = '';
  }
  markChanged(slot, c, base);
}

export function markChanged(slot: HTMLElement, c: Controls, base: Controls): void {
  let n = 0;
  for (const key of Object.keys(c) as ControlKey[]) {
    const changed = c[key] !== base[key];
    if (changed) n++;
    slot.querySelector(`[data-field="${key}"]`)?.classList.toggle('changed', changed);
  }
  slot.querySelector('#whatif-reset')?.toggleAttribute('disabled', n === 0);
}

export function countChanged(o: Overrides): number {
  return Object.values(o).filter((v) => v !== undefined).length;
}

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

// ---- Advice -------------------------------------------------------------------------------------------------

/** Applicable items shown before the "more" fold. */
export const ADVICE_SHOWN = 6;

export interface AdviceHandlers {
  apply(id: string): void;
  toggle(id: string): void;
  /** The advised setup's estimate (computed locally, on demand) and the current one, for "Show formula". */
  details(a: AdviceView): { after: EstimateView | null; before: EstimateView };
}

function costText(a: AdviceView): string {
  const f = a.stepTimeFactor;
  if (Math.abs(f - 1) < 0.005) return tr('noSlower');
  return f < 1 ? tr('faster', f.toFixed(2)) : tr('slower', f.toFixed(2));
}

/** The saving, the step-time cost and the labels of an item. */
function adviceTags(a: AdviceView, currentGpus: number): HTMLElement[] {
  const tags = [
    h('span', { class: 'saves' }, tr('saves', formatBytes(a.savedBytes), formatBytes(a.deviceBytes))),
    h('span', { class: 'tag' }, costText(a)),
  ];
  if (a.changesResult) tags.push(h('span', { class: 'tag tag-warn' }, tr('changesResult')));
  if (a.gpus !== currentGpus) tags.push(h('span', { class: 'tag' }, tr('needsGpus', a.gpus)));
  return tags;
}

/** The DOM of one applicable item, kept between redraws so that its buttons (web components) are not rebuilt. */
interface AdviceEntry {
  li: HTMLLIElement;
  title: HTMLSpanElement;
  meta: HTMLParagraphElement;
  changes: HTMLParagraphElement;
  apply: HTMLElement;
  toggle: HTMLElement;
  detail: HTMLDivElement;
  view: AdviceView;
  /** What the detail box shows ('' when closed), to redraw it only when it changes. */
  detailKey: string;
}

interface AdviceState {
  banner: HTMLParagraphElement;
  /** Said when no item can be applied to these files. */
  none: HTMLParagraphElement;
  list: HTMLOListElement;
  more: HTMLDetailsElement;
  moreSummary: HTMLElement;
  moreList: HTMLOListElement;
  blocked: HTMLDetailsElement;
  blockedSummary: HTMLElement;
  blockedList: HTMLUListElement;
  /** What the blocked list shows, to rebuild it only when it changes. */
  blockedKey: string;
  /** Whether the folds were ever drawn for this file (they open by default only then). */
  file: string;
  entries: Map<string, AdviceEntry>;
  handlers: AdviceHandlers;
}

const adviceStates = new WeakMap<HTMLElement, AdviceState>();

const setText = (el: HTMLElement, text: string): void => {
  if (el.textContent !== text) el.textContent = text;
};

const setAttr = (el: HTMLElement, name: string, value: string | null): void => {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
};

function adviceShell(slot: HTMLElement, handlers: AdviceHandlers): AdviceState {
  const moreSummary = h('summary', {});
  const moreList = h('ol', { class: 'advice-list', start: ADVICE_SHOWN + 1 });
  const blockedSummary = h('summary', {});
  const blockedList = h('ul', { class: 'blocked-list' });
  const st: AdviceState = {
    banner: h('p', { class: 'muted small' }),
    none: h('p', { class: 'muted' }),
    list: h('ol', { class: 'advice-list' }),
    more: h('details', { class: 'advice-more' }, moreSummary, moreList),
    moreSummary,
    moreList,
    blocked: h('details', { class: 'advice-blocked' }, blockedSummary, blockedList),
    blockedSummary,
    blockedList,
    blockedKey: '',
    file: '',
    entries: new Map(),
    handlers,
  };
  fill(slot, st.banner, st.none, st.list, st.more, st.blocked);
  return st;
}

/** Puts the entries in `list` in the given order, moving only those out of place (moving re-connects web components). */
function placeEntries(list: HTMLElement, entries: readonly AdviceEntry[]): void {
  let prev: Node | null = null;
  for (const e of entries) {
    const want: Node | null = prev ? prev.nextSibling : list.firstChild;
    if (want !== e.li) list.insertBefore(e.li, want);
    prev = e.li;
  }
  while (prev?.nextSibling) prev.nextSibling.remove();
  if (!prev) list.replaceChildren();
}

/**
 * The ranked advice: the first applicable items, the rest of them under one fold, and the items these files cannot
 * express under another whose line says why. Applicable items are updated in place by id: a model update changes
 * their numbers, and rebuilding them would re-create two web-component buttons per item, the largest cost of a redraw.
 */
export function renderAdvice(
  slot: HTMLElement,
  m: PanelModel,
  expanded: ReadonlySet<string>,
  whatIfActive: boolean,
  handlers: AdviceHandlers,
): void {
  const items = m.advice;
  let st = adviceStates.get(slot);
  if (items.length === 0) {
    const fitsNow = m.estimate.fits === true;
    fill(slot, h('p', { class: 'muted' }, tr(fitsNow ? 'adviceNone' : 'adviceNoneFound')));
    adviceStates.delete(slot);
    return;
  }
  if (!st || !st.list.isConnected || st.list.parentElement !== slot) {
    st = adviceShell(slot, handlers);
    adviceStates.set(slot, st);
  }
  st.handlers = handlers;
  setText(st.banner, tr('adviceForFile'));
  st.banner.hidden = !whatIfActive;
  const currentGpus = m.setup.gpus_per_node * m.setup.nodes;
  const applicable = items.filter((a) => a.applicable);
  const blocked = items.filter((a) => !a.applicable);
  setText(st.none, tr('adviceNoneApplicable', m.title));
  st.none.hidden = applicable.length > 0;

  const keep = new Set<string>();
  const placed = applicable.map((a) => {
    keep.add(a.id);
    let e = st!.entries.get(a.id);
    if (!e) {
      e = adviceEntry(st!, a);
      st!.entries.set(a.id, e);
    }
    updateEntry(e, a, m, expanded.has(a.id), currentGpus, handlers);
    return e;
  });
  for (const [id, e] of st.entries) {
    if (keep.has(id)) continue;
    e.li.remove();
    st.entries.delete(id);
  }
  placeEntries(st.list, placed.slice(0, ADVICE_SHOWN));
  placeEntries(st.moreList, placed.slice(ADVICE_SHOWN));
  st.more.hidden = placed.length <= ADVICE_SHOWN;
  setText(st.moreSummary, tr('adviceMore', placed.length - ADVICE_SHOWN));

  st.blocked.hidden = blocked.length === 0;
  if (st.file !== m.title) {
    // A new file: nothing folded open yet, except the blocked items when they are all there is.
    st.more.open = false;
    st.blocked.open = applicable.length === 0;
    st.file = m.title;
  }
  const counts = new Map<string, number>();
  for (const a of blocked) {
    const kind = tr(`blocked.${a.blocked?.kind ?? 'other'}` as StringId);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const why = [...counts].map(([kind, n]) => (counts.size > 1 ? `${kind} (${n})` : kind)).join(tr('listSeparator'));
  setText(st.blockedSummary, tr('adviceBlocked', blocked.length, m.title, why));
  const blockedKey = JSON.stringify([
    blocked.map((a) => [a.id, a.savedBytes, a.deviceBytes, a.stepTimeFactor, a.blocked, a.changes]),
    currentGpus,
    m.title,
    tr('blockedWhy', ''),
  ]);
  if (blockedKey !== st.blockedKey) {
    st.blockedList.replaceChildren(
      ...blocked.map((a) =>
        h(
          'li',
          { class: 'blocked', 'data-advice': a.id },
          h('div', { class: 'advice-head' }, h('span', { class: 'advice-title' }, a.title)),
          h('p', { class: 'advice-meta' }, ...adviceTags(a, currentGpus)),
          h('p', { class: 'changes' }, changesText(a.changes, m.setup)),
          a.blocked?.detail ? h('p', { class: 'muted small why' }, tr('blockedWhy', a.blocked.detail)) : null,
        ),
      ),
    );
    st.blockedKey = blockedKey;
  }
}

function updateEntry(
  e: AdviceEntry,
  a: AdviceView,
  m: PanelModel,
  open: boolean,
  currentGpus: number,
  handlers: AdviceHandlers,
): void {
  e.view = a;
  setText(e.title, a.title);
  const tags = adviceTags(a, currentGpus);
  const metaText = tags.map((t) => t.textContent).join('\u0000');
  if (e.meta.dataset.text !== metaText) {
    e.meta.replaceChildren(...tags);
    e.meta.dataset.text = metaText;
  }
  setText(e.changes, changesText(a.changes, m.setup));
  setAttr(e.apply, 'title', tr('applyTitle'));
  setText(e.apply, tr('apply'));
  setAttr(e.toggle, 'aria-expanded', String(open));
  setText(e.toggle, tr(open ? 'hideFormula' : 'showFormula'));
  e.detail.hidden = !open;
  const detailKey = open ? JSON.stringify([a.costExplain, a.changes, a.deviceBytes, m.estimate.deviceBytes]) : '';
  if (detailKey !== e.detailKey) {
    e.detail.replaceChildren();
    if (open) {
      const d = handlers.details(a);
      e.detail.append(
        h('h3', {}, tr('costHeading')),
        h('ul', { class: 'cost' }, ...a.costExplain.map((line) => h('li', {}, h('code', {}, line)))),
      );
      if (d.after) e.detail.append(h('h3', {}, tr('componentsAfter')), componentTable(d.after, d.before));
    }
    e.detailKey = detailKey;
  }
}

function adviceEntry(st: AdviceState, a: AdviceView): AdviceEntry {
  const detailId = `adv-${a.id.replace(/[^a-zA-Z0-9_-]/g, '_')}-f`;
  const apply = custom('vscode-button', { 'data-advice': a.id }, tr('apply'));
  const toggle = custom('vscode-button', { secondary: true, 'aria-controls': detailId }, tr('showFormula'));
  const title = h('span', { class: 'advice-title' });
  const meta = h('p', { class: 'advice-meta' });
  const changes = h('p', { class: 'changes' });
  const detail = h('div', { class: 'formula-box', id: detailId, hidden: true });
  const li = h(
    'li',
    { class: 'advice' },
    h('div', { class: 'advice-head' }, title),
    meta,
    changes,
    h('div', { class: 'actions' }, apply, toggle),
    detail,
  );
  const e: AdviceEntry = { li, title, meta, changes, apply, toggle, detail, view: a, detailKey: '' };
  // The handlers read the entry's current view and the state's current handlers: both change between redraws.
  apply.addEventListener('click', () => st.handlers.apply(e.view.id));
  toggle.addEventListener('click', () => st.handlers.toggle(e.view.id));
  return e;
}

// ---- Notices (the outcome of Apply and of "Write these changes") --------------------------------------------------

export interface Notice {
  readonly state: 'pending' | 'applied' | 'failed';
  /** The change in words. */
  readonly text: string;
  readonly message?: string;
  readonly files: ReadonlyArray<{ id: string; name: string }>;
}

/** Shows the notice (or clears the box); file names are links that ask the host to reveal the file. */
export function renderNotice(box: HTMLElement, n: Notice | undefined, reveal: (fileId: string) => void): void {
  if (!n) {
    box.replaceChildren();
    return;
  }
  if (n.state === 'pending') {
    box.replaceChildren(h('p', { class: 'notice notice-pending' }, tr('applying')));
    return;
  }
  if (n.state === 'failed') {
    box.replaceChildren(
      h(
        'p',
        { class: 'notice notice-failed' },
        h('span', { class: 'notice-icon', 'aria-hidden': 'true' }, '✗'),
        ' ',
        tr('notApplied', n.message ?? n.text),
      ),
    );
    return;
  }
  const links: Array<Node | string> = [];
  n.files.forEach((f, i) => {
    if (i > 0) links.push(tr('listSeparator'));
    const b = h(
      'button',
      { type: 'button', class: 'linkish file-link', title: tr('revealFile', f.name), 'data-file': f.id },
      f.name,
    );
    b.addEventListener('click', () => reveal(f.id));
    links.push(b);
  });
  box.replaceChildren(
    h(
      'p',
      { class: 'notice notice-applied' },
      h('span', { class: 'notice-icon', 'aria-hidden': 'true' }, '✓'),
      ' ',
      ...trNodes('appliedIn', n.text, ...[h('span', {}, ...links)]),
    ),
  );
}

// ---- Warnings and assumptions -----------------------------------------------------------------------------------

export function renderAssumptions(slot: HTMLElement, m: PanelModel, reveal: (key: string) => void): void {
  const keyButton = (key: string): HTMLButtonElement => {
    const b = h('button', { type: 'button', class: 'linkish', title: tr('revealKey', key) }, key);
    b.addEventListener('click', () => reveal(key));
    return b;
  };
  const parts: Node[] = [];
  if (m.warnings.length > 0) {
    parts.push(
      h('h2', { id: 'warnings-h' }, tr('warningsHeading')),
      h(
        'ul',
        { class: 'warnings', 'aria-labelledby': 'warnings-h' },
        ...m.warnings.map((w) => h('li', {}, keyButton(w.key), ' ', w.message)),
      ),
    );
  }
  parts.push(
    h('h2', { id: 'assumptions-h' }, tr('assumptionsHeading')),
    h(
      'table',
      { class: 'assumptions', 'aria-labelledby': 'assumptions-h' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, tr('assumptionKey')),
          h('th', { scope: 'col' }, tr('assumptionValue')),
          h('th', { scope: 'col' }, tr('assumptionSource')),
        ),
      ),
      h(
        'tbody',
        {},
        ...m.assumptions.map((a) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, keyButton(a.key)),
            h('td', {}, a.value),
            h('td', { class: 'muted' }, a.source),
          ),
        ),
      ),
    ),
  );
  slot.replaceChildren(...parts);
}
