// Dict values read statically: a `{...}` literal (its `**` spreads merged where they are dicts themselves) and a
// `dict(...)` call, as entries with their spans, and what could not be read said as opaque. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import type { Entry, Val } from './static-values';
import { clip, MAX_DEPTH, pyString, span, stringInner } from './syntax';
import { isMapping } from './data-files';

/** `{"a": 1, **b}`: its string-keyed entries; a computed key or a spread of what is not a dict is said as opaque. */
export function dictLiteral(file: PythonFile, node: SyntaxNode, depth: number): Val {
  const entries: Entry[] = [];
  const opaque: string[] = [];
  for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
    if (ch.name === '{' || ch.name === '}' || ch.name === ',' || ch.type.isError) continue;
    if (ch.name === '**') {
      const target = ch.nextSibling;
      if (!target) break;
      ch = target;
      const v = file.evalNode(target, depth + 1);
      if (v.k === 'dict') {
        entries.push(...v.entries);
        opaque.push(...v.opaque);
      } else opaque.push(`**${clip(file.text.slice(target.from, target.to))} is ${file.describe(v)}`);
      continue;
    }
    const colon = ch.nextSibling;
    if (!colon || colon.name !== ':') continue;
    const value = colon.nextSibling;
    const key = ch.name === 'String' ? pyString(file.text.slice(ch.from, ch.to)) : undefined;
    if (key === undefined) opaque.push(`the key ${clip(file.text.slice(ch.from, ch.to))} is computed at run time`);
    else if (value && value.name !== ',' && value.name !== '}')
      entries.push({ rawKey: key, keySpan: stringInner(file.text, ch), valueNode: value, valueSpan: span(value) });
    ch = value && value.name !== ',' && value.name !== '}' ? value : colon;
  }
  return { k: 'dict', entries, opaque };
}

/**
 * `dict(a=1, **b)`: its keywords are its entries; `dict(m)` alone is a copy of the mapping m (a dict, or a part of a
 * loaded file: `grpo_kwargs = dict(cfg["grpo"])`); another positional argument makes it opaque.
 */
export function dictCall(file: PythonFile, node: SyntaxNode, depth: number): Val {
  if (depth > MAX_DEPTH) return { k: 'unknown', reason: 'too deeply nested to read' };
  const a = file.args(node);
  const only =
    a.positional.length === 1 && a.entries.length === 0 && a.opaque.length === 0 ? a.positional[0] : undefined;
  if (only) {
    const copied = file.evalNode(only, depth + 1);
    if (copied.k === 'dict' || (copied.k === 'data' && isMapping(copied.value))) return copied;
  }
  const opaque = a.opaque.map((o) => o.reason);
  if (a.positional.length) opaque.push('dict(...) built from a positional argument');
  return { k: 'dict', entries: a.entries, opaque };
}

/**
 * The keys a spread name lost before the call (`grpo_kwargs.pop("attn_implementation", ...)`, `del kwargs["x"]`) in
 * the function around it, up to the spread: what `**name` does not pass.
 */
export function removedKeys(text: string, target: SyntaxNode): ReadonlySet<string> {
  const out = new Set<string>();
  if (target.name !== 'VariableName') return out;
  const name = text.slice(target.from, target.to).replace(/[^\w]/g, '');
  // Most spreads lose no key: a scan of the text spares the slice and the pattern at every evaluation of the call.
  if (!text.includes(`${name}.pop(`) && !text.includes(`del ${name}[`)) return out;
  let scope: SyntaxNode | null = target.parent;
  while (scope && scope.name !== 'FunctionDefinition' && scope.name !== 'Script') scope = scope.parent;
  const before = text.slice(scope?.from ?? 0, target.from);
  const removal = new RegExp(
    String.raw`\b${name}\.pop\(\s*(['"])([^'"\n]+)\1|\bdel\s+${name}\[\s*(['"])([^'"\n]+)\3\s*\]`,
    'g',
  );
  for (const m of before.matchAll(removal)) out.add(m[2] ?? m[4] ?? '');
  return out;
}
