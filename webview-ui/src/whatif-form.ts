// The what-if form: one control per setting, the write button and what it writes.
import { tr, type StringId } from './strings';
import { h, custom, fill, setText, changesText } from './dom';
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
