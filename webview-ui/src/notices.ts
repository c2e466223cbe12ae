// Notices (the outcome of Apply and of "Write these changes") and the warnings and assumptions.
import type { PanelModel } from '../../src/protocol/messages';
import { tr } from './strings';
import { h, trNodes } from './dom';

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
