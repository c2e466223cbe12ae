// A list comprehension over a list known statically, the shape scripts clean a comma-separated option with:
// `[m.strip() for m in args.lora_target_modules.split(",")]`, `[x for x in s.split(",") if x]`. The element is the
// loop's name or a case or blank change of it; the condition, where there is one, keeps the non-empty items. Anything
// else is computed at run time. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import { clip } from './syntax';

const ITEM_METHODS: Readonly<Record<string, (s: string) => string>> = {
  strip: (s) => s.trim(),
  lstrip: (s) => s.trimStart(),
  rstrip: (s) => s.trimEnd(),
  lower: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
};

/** `name` itself, or `name.strip()` (a method of ITEM_METHODS without arguments): what it makes of an item. */
function itemMap(file: PythonFile, node: SyntaxNode, name: string): ((s: string) => string) | undefined {
  const text = (n: SyntaxNode | null | undefined): string => (n ? file.text.slice(n.from, n.to) : '');
  if (node.name === 'VariableName') return text(node) === name ? (s) => s : undefined;
  if (node.name !== 'CallExpression') return undefined;
  const callee = node.firstChild;
  const args = callee?.nextSibling;
  if (callee?.name !== 'MemberExpression' || text(args).replace(/\s+/g, '') !== '()') return undefined;
  if (callee.firstChild?.name !== 'VariableName' || text(callee.firstChild) !== name) return undefined;
  return ITEM_METHODS[text(callee.lastChild)];
}

/** `[elt for name in iterable]` or `[elt for name in iterable if cond]` over a list of strings known statically. */
export function evalComprehension(file: PythonFile, node: SyntaxNode, depth: number): Val {
  const unknown: Val = { k: 'unknown', reason: `${clip(file.text.slice(node.from, node.to))} is computed at run time` };
  const parts: SyntaxNode[] = [];
  for (let ch = node.firstChild; ch; ch = ch.nextSibling) if (ch.name !== 'Comment') parts.push(ch);
  // [ elt for name in iterable (if cond)? ]
  const [, elt, kwFor, target, kwIn, iterable, kwIf, cond, close] = parts;
  if (kwFor?.name !== 'for' || target?.name !== 'VariableName' || kwIn?.name !== 'in' || !iterable) return unknown;
  const filtered = kwIf?.name === 'if';
  if ((filtered && close?.name !== ']') || (!filtered && kwIf?.name !== ']')) return unknown;
  const name = file.text.slice(target.from, target.to);
  const map = itemMap(file, elt, name);
  const keep = filtered ? itemMap(file, cond, name) : undefined;
  if (!map || (filtered && !keep)) return unknown;
  const items = file.evalNode(iterable, depth + 1);
  if (items.k !== 'lit' || !Array.isArray(items.v) || !items.v.every((x) => typeof x === 'string')) return unknown;
  const strings = items.v as string[];
  return { k: 'lit', v: strings.filter((s) => !keep || keep(s) !== '').map(map) };
}
