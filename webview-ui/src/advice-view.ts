// The advice list: applicable items (updated in place by id), the rest under a fold, the blocked ones under another.
import type { AdviceView, EstimateView, PanelModel } from '../../src/protocol/messages';
import { formatBytes } from '../../src/core';
import { tr, type StringId } from './strings';
import { h, custom, fill, setText, setAttr, changesText } from './dom';
import { componentTable } from './breakdown';

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
