// Entry of the panel's front end (bundled to dist/webview.js as an IIFE). Posts {type:'ready'}; the host answers
// with a PanelModel (validated here with the protocol's zod schema) and pushes a new one whenever the file changes.
// What-if changes are recomputed here with the same core as the host; the fit map is computed after the first paint.
import type { AdviceView, EstimateView, PanelModel } from '../../src/protocol/messages';
import { ToWebview } from '../../src/protocol/messages';
import { computeFitMap, type FitMap } from './fitmap';
import {
  changesText,
  countChanged,
  drawChart,
  fill,
  renderAdvice,
  renderAssumptions,
  renderBreakdown,
  renderFitMapPlaceholder,
  renderFitMaps,
  renderHeader,
  renderMessage,
  renderNotice,
  renderShell,
  renderSummary,
  renderWhatIf,
  setControlValues,
  setWriteState,
  markChanged,
  whatIfShape,
  type ControlKey,
  type Notice,
  type ResultView,
  type Slots,
} from './render';
import { setStrings, tr } from './strings';
import { getState, post, setState } from './vscode-api';
import {
  applyChanges,
  controlsFromSetup,
  gpuTarget,
  pruneOverrides,
  recompute,
  toView,
  whatIfWrite,
  type Controls,
  type GpuTarget,
  type Overrides,
} from './whatif';
import { estimate } from '../../src/core';
import type { TrainingSetup } from '../../src/core';

function assertNever(x: never): never {
  throw new Error(`unexpected message ${JSON.stringify(x)}`);
}

/** What survives a reload of the webview (getState/setState); the document is the source of truth for the rest. */
interface SavedState {
  readonly v: 1;
  readonly title: string;
  readonly overrides: Overrides;
  readonly expanded: readonly string[];
}

function loadState(): SavedState | undefined {
  const s = getState() as Partial<SavedState> | undefined;
  return s && s.v === 1 && typeof s.title === 'string' && typeof s.overrides === 'object' && Array.isArray(s.expanded)
    ? (s as SavedState)
    : undefined;
}

const root = document.getElementById('root') ?? document.body;
let model: PanelModel | undefined;
let slots: Slots | undefined;
/** whatIfShape of the form on screen. */
let formShape = '';
/** The chart box's width as last laid out (0: not known yet); kept by chartSizer below. */
let chartWidth = 0;
let overrides: Overrides = {};
let expanded = new Set<string>();
let result: ResultView | undefined;
let effSetup: TrainingSetup | undefined;
let effControls: Controls | undefined;
let fitTimer: number | undefined;
const fitCache = new Map<string, FitMap>();
const adviceCache = new Map<string, EstimateView | null>();
/** Edits asked of the host and not answered yet, by request id: where the answer shows, and the change in words. */
const pending = new Map<number, { where: 'advice' | 'whatif'; text: string }>();
let nextRequest = 1;
const notices: { advice?: Notice; whatif?: Notice } = {};

/** Timings for the preview page and for curious developers (window.__vramLens). */
const timings = { updateMs: 0, estimateMs: 0, fitMapMs: 0, fitMapEstimates: 0 };
(window as unknown as { __vramLens: typeof timings }).__vramLens = timings;

function save(): void {
  if (!model) return;
  const s: SavedState = { v: 1, title: model.title, overrides, expanded: [...expanded] };
  setState(s);
}

const fileGpu = (): { id: string; memoryBytes: number } | null => model?.gpu ?? null;
const baseControls = (): Controls => controlsFromSetup(model!.setup, model!.gpu?.id);

function currentGpu(): GpuTarget | undefined {
  const id = overrides.gpu ?? model!.gpu?.id ?? '';
  return gpuTarget(id, fileGpu());
}

function onModel(m: PanelModel): void {
  const saved = model ? undefined : loadState();
  const sameFile = (model?.title ?? saved?.title) === m.title;
  if (sameFile) {
    // Same file edited (or the webview reloaded): keep the what-if, minus what the file now says anyway.
    overrides = pruneOverrides(m.setup, m.gpu?.id, saved ? saved.overrides : overrides);
    const ids = saved ? saved.expanded : [...expanded];
    expanded = new Set(ids.filter((id) => m.advice.some((a) => a.id === id)));
  } else {
    overrides = {};
    expanded = new Set();
    notices.advice = undefined;
    notices.whatif = undefined;
  }
  model = m;
  setStrings(m.strings);
  fitCache.clear();
  adviceCache.clear();
  const base = baseControls();
  effControls = { ...base, ...overrides };
  const shape = whatIfShape(base, m.gpu?.id, m.strings);
  if (slots && slots.header.isConnected && shape === formShape) {
    // Same form: keep the layout and the controls, set their values; every other section is redrawn below.
    fill(slots.fitmap);
    setControlValues(slots.whatif, effControls, base);
  } else {
    slots = renderShell(root);
    chartSizer.disconnect();
    chartSizer.observe(slots.chartBox);
    renderWhatIf(
      slots.whatif,
      effControls,
      base,
      m.gpu?.id,
      { change: onControl, reset: onReset, write: onWrite },
      slots.whatifNotice,
    );
    formShape = shape;
  }
  showNotices();
  renderHeader(slots.header, m);
  renderAssumptions(slots.assumptions, m, (key) => post({ type: 'revealKey', key }));
  renderAdviceList();
  update();
  save();
}

function renderAdviceList(): void {
  if (!model || !slots) return;
  renderAdvice(slots.adviceBody, model, expanded, countChanged(overrides) > 0, {
    apply: onApply,
    toggle: (id) => {
      if (expanded.has(id)) expanded.delete(id);
      else expanded.add(id);
      save();
      renderAdviceList();
      // keep keyboard focus on the toggle that was pressed
      slots?.advice
        .querySelector<HTMLElement>(`[aria-controls="adv-${id.replace(/[^a-zA-Z0-9_-]/g, '_')}-f"]`)
        ?.focus();
    },
    details: adviceDetails,
  });
}

function showNotices(): void {
  if (!slots) return;
  const reveal = (fileId: string): void => post({ type: 'revealFile', fileId });
  renderNotice(slots.adviceNotice, notices.advice, reveal);
  renderNotice(slots.whatifNotice, notices.whatif, reveal);
}

/** Asks the host for an edit; the answer (adviceApplied, same request id) replaces the pending notice. */
function request(where: 'advice' | 'whatif', text: string, send: (requestId: number) => void): void {
  const requestId = nextRequest++;
  pending.set(requestId, { where, text });
  notices[where] = { state: 'pending', text, files: [] };
  showNotices();
  send(requestId);
}

function onApply(adviceId: string): void {
  const a = model?.advice.find((x) => x.id === adviceId);
  if (!model || !a || !a.applicable) return;
  request('advice', changesText(a.changes, model.setup) || a.title, (requestId) =>
    post({ type: 'applyAdvice', adviceId, requestId }),
  );
}

function onWrite(): void {
  if (!model) return;
  const w = whatIfWrite(model.setup, overrides, model.format);
  if (w.changes.length === 0 || w.removed.length > 0) return;
  const changes = w.changes.map((c) => ({ key: c.key, value: c.value }));
  request('whatif', changesText(changes, model.setup), (requestId) =>
    post({ type: 'applyChanges', changes, requestId }),
  );
}

function onApplied(msg: {
  requestId: number;
  applied: boolean;
  message?: string;
  files: Array<{ id: string; name: string }>;
}): void {
  const p = pending.get(msg.requestId);
  if (!p) return;
  pending.delete(msg.requestId);
  notices[p.where] = {
    state: msg.applied ? 'applied' : 'failed',
    text: p.text,
    message: msg.message,
    files: msg.files,
  };
  showNotices();
}

/** The advised setup estimated in full (formulas), for "Show formula"; computed once per model and item. */
function adviceDetails(a: AdviceView): { after: EstimateView | null; before: EstimateView } {
  const m = model!;
  if (!adviceCache.has(a.id)) {
    const s = applyChanges(m.setup, a.changes);
    const gpu = gpuTarget(m.gpu?.id ?? '', fileGpu());
    const r = s ? estimate(s, { gpu, headroomFraction: m.headroomFraction }) : undefined;
    adviceCache.set(a.id, r && r.ok ? toView(r.estimate) : null);
  }
  return { after: adviceCache.get(a.id) ?? null, before: m.estimate };
}

function onControl(key: ControlKey, value: string | number): void {
  if (!model) return;
  overrides = pruneOverrides(model.setup, model.gpu?.id, { ...overrides, [key]: value });
  update();
  save();
}

function onReset(): void {
  if (!model || !slots) return;
  overrides = {};
  update();
  setControlValues(slots.whatif, effControls!, baseControls());
  renderAdviceList();
  save();
  slots.whatif.querySelector<HTMLElement>('#ctl-gpu')?.focus();
}

function pickCell(micro: number, seq: number): void {
  if (!model || !slots) return;
  overrides = pruneOverrides(model.setup, model.gpu?.id, { ...overrides, micro, seq });
  update();
  setControlValues(slots.whatif, effControls!, baseControls());
  save();
}

/** Recomputes the what-if (or takes the host's estimate when nothing is changed) and redraws the figures. */
function update(): void {
  if (!model || !slots) return;
  const t0 = performance.now();
  const m = model;
  const base = baseControls();
  effControls = { ...base, ...overrides };
  const gpu = currentGpu();
  const changed = countChanged(overrides);
  let view: EstimateView | null;
  let errors: readonly string[] = [];
  if (changed === 0) {
    view = m.estimate;
    effSetup = m.setup;
  } else {
    const t = performance.now();
    const r = recompute(m.setup, overrides, gpu, m.headroomFraction);
    timings.estimateMs = performance.now() - t;
    effSetup = r.setup;
    view = r.ok ? r.view : null;
    if (!r.ok) errors = r.errors;
  }
  result = {
    view,
    errors,
    gpu: gpu ? { id: gpu.id, memoryBytes: gpu.memoryBytes } : null,
    headroomFraction: m.headroomFraction,
    changed,
    fileLimits:
      changed === 0 ? { maxMicroBatch: m.maxMicroBatch, maxSeqLen: m.maxSeqLen, gpusNeeded: m.gpusNeeded } : null,
  };
  renderSummary(slots.summary, result);
  renderBreakdown(slots.breakdown, slots.chartBox, result, chartWidth);
  markChanged(slots.whatif, effControls, base);
  setWriteState(slots.whatif, whatIfWrite(m.setup, overrides, m.format), m.setup);
  // The note is the list's own first paragraph (blocked items have nested p.small of their own).
  const banner = slots.adviceBody.querySelector<HTMLElement>(':scope > p.small');
  if (changed > 0 !== (!!banner && !banner.hidden)) renderAdviceList();
  timings.updateMs = performance.now() - t0;
  scheduleFitMap();
}

function fitKey(s: TrainingSetup, gpu: GpuTarget, h: number): string {
  const { micro_batch_size: _m, seq_len: _s, ...rest } = s;
  return JSON.stringify([rest, gpu.id, gpu.memoryBytes, h]);
}

/** The fit maps are ~40-80 lean estimates: run them after the frame that shows the new totals. */
function scheduleFitMap(): void {
  if (fitTimer !== undefined) window.clearTimeout(fitTimer);
  const gpu = currentGpu();
  if (!model || !slots) return;
  if (!gpu) {
    renderFitMapPlaceholder(slots.fitmap, 'fitMapNoGpu');
    return;
  }
  requestAnimationFrame(() => {
    fitTimer = window.setTimeout(() => {
      fitTimer = undefined;
      if (!model || !slots || !effSetup || !effControls) return;
      const m = model;
      const t = performance.now();
      let evaluated = 0;
      const grid = (s: TrainingSetup): FitMap => {
        const k = fitKey(s, gpu, m.headroomFraction);
        let fm = fitCache.get(k);
        if (!fm) {
          fm = computeFitMap(s, gpu, m.headroomFraction);
          evaluated += fm.evaluated;
          fitCache.set(k, fm);
        }
        return fm;
      };
      const panels = [{ title: tr('fitMapCurrent'), map: grid(effSetup) }];
      // The best advised strategy: the top item that changes more than the batch shape (the grid varies that itself).
      const shape = new Set(['micro_batch_size', 'gradient_accumulation_steps', 'seq_len']);
      const best = m.advice.find((a) => a.changes.some((c) => !shape.has(c.key)));
      const bestSetup = best
        ? applyChanges(
            effSetup,
            best.changes.filter((c) => !shape.has(c.key)),
          )
        : undefined;
      if (best && bestSetup) panels.push({ title: tr('fitMapBest', best.title), map: grid(bestSetup) });
      if (evaluated > 0) {
        timings.fitMapMs = performance.now() - t;
        timings.fitMapEstimates = evaluated;
      }
      renderFitMaps(
        slots.fitmap,
        panels,
        gpu.id,
        m.headroomFraction,
        { micro: effSetup.micro_batch_size, seq: effSetup.seq_len },
        pickCell,
      );
    }, 0);
  });
}

function onMessage(data: unknown): void {
  const parsed = ToWebview.safeParse(data);
  if (!parsed.success) {
    console.warn('[vram-lens] dropped an invalid message from the host', parsed.error.issues.slice(0, 5));
    return;
  }
  const msg = parsed.data;
  switch (msg.type) {
    case 'panelModel':
      onModel(msg.model);
      break;
    case 'noConfig':
      model = undefined;
      slots = undefined;
      renderMessage(root, tr('noConfig'), msg.reason || tr('noConfigHint'));
      break;
    case 'adviceApplied':
      onApplied(msg);
      break;
    default:
      assertNever(msg);
  }
}

window.addEventListener('message', (ev: MessageEvent) => onMessage(ev.data));

// Redraw the chart at the new width (the SVG is drawn in CSS pixels so its text stays crisp). Resize observers run
// after layout, so reading the width here costs nothing; redraws in update() reuse it instead of measuring.
let resizeFrame = 0;
const chartSizer = new ResizeObserver(() => {
  const width = slots?.chartBox.clientWidth ?? 0;
  if (width === 0 || width === chartWidth) return;
  chartWidth = width;
  cancelAnimationFrame(resizeFrame);
  resizeFrame = requestAnimationFrame(() => {
    if (slots && result) drawChart(slots.chartBox, result, chartWidth);
  });
});

renderMessage(root, tr('appName'), tr('waiting'));
post({ type: 'ready' });
