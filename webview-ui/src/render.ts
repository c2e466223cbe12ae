// PanelModel (and the what-if result) -> DOM. Every piece of data goes in through textContent or an attribute
// (never innerHTML); no inline style attributes (the CSP forbids them); colours are classes in styles.css.
// Controls are @vscode-elements/elements web components: native-looking, themed by --vscode-* variables and
// keyboard accessible (listbox semantics, focus rings) without us re-implementing any of it.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { PanelModel } from '../../src/protocol/messages';
import { formatCount } from '../../src/core';
import { tr } from './strings';
import { h, section } from './dom';

export { h, trNodes, changesText, phaseName, fill } from './dom';
export { type ResultView, statusOf, renderSummary, renderBreakdown, drawChart, componentTable } from './breakdown';
export {
  type ControlKey,
  type ControlHandlers,
  renderWhatIf,
  setWriteState,
  whatIfShape,
  setControlValues,
  markChanged,
  countChanged,
} from './whatif-form';
export { type FitMapPanel, renderFitMapPlaceholder, renderFitMaps } from './fitmap-view';
export { ADVICE_SHOWN, type AdviceHandlers, renderAdvice } from './advice-view';
export { type Notice, renderNotice, renderAssumptions } from './notices';

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
