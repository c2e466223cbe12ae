// DOM building blocks of the panel: elements with attributes and text children (never innerHTML), sections,
// translated text with nodes in it, and in-place updates that touch the DOM only on a change.
import { describeChanges } from './changes';
import { tr, type StringId } from './strings';

export type Attrs = Record<string, string | number | boolean | undefined>;

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

export function custom(tag: string, attrs: Attrs = {}, ...children: Array<Node | string>): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : String(v));
  e.append(...children);
  return e;
}

export const section = (id: string, heading: StringId | null, ...children: Array<Node | null>): HTMLElement =>
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
  ['load', 'forward', 'backward', 'optimizer', 'first-step', 'evaluation', 'generation', 'checkpoint-save'].includes(p)
    ? tr(`phase.${p}` as StringId)
    : p;

export const setText = (el: HTMLElement, text: string): void => {
  if (el.textContent !== text) el.textContent = text;
};

export const setAttr = (el: HTMLElement, name: string, value: string | null): void => {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
};

/** Replaces the children of a section, keeping its heading (h2). */
export function fill(sec: HTMLElement, ...children: Array<Node | null | false>): void {
  const head = sec.querySelector(':scope > h2');
  sec.replaceChildren(...(head ? [head] : []), ...children.filter((c): c is Node => !!c));
}
