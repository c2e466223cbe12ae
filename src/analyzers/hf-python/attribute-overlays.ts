// Every key of a mapping set as an attribute of one object: `for k, v in cfg.items(): setattr(args, k, v)` (also under
// an `if hasattr(args, k):`), `vars(args).update(cfg)` and `args.__dict__.update(cfg)`, the ways research scripts lay a
// loaded YAML over their parsed options. `args.x` read after one is the mapping's x where the mapping has it, what it
// was before where it has not, and not known where the mapping is not. Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import { dataAt } from './data-files';
import { clip } from './syntax';

/** One statement that sets an attribute of `object` for each key of `mapping`. */
export interface Overlay {
  readonly statement: SyntaxNode;
  readonly object: string;
  readonly mapping: SyntaxNode;
}

const text = (file: PythonFile, n: SyntaxNode): string => file.text.slice(n.from, n.to);

/** Notes the overlay a statement of the file is, if it is one (PythonFile.overlays). */
export function noteOverlay(file: PythonFile, st: SyntaxNode): void {
  const overlay = st.name === 'ForStatement' ? loopOverlay(file, st) : updateOverlay(file, st);
  if (overlay) file.overlays.push(overlay);
}

/** `for k, v in m.items():` whose body calls `setattr(obj, k, v)`, at any depth (under an `if hasattr(obj, k):`). */
function loopOverlay(file: PythonFile, st: SyntaxNode): Overlay | undefined {
  if (!text(file, st).includes('setattr')) return undefined;
  const targets = st.getChildren('VariableName').map((n) => text(file, n));
  const iterable = st.getChild('in')?.nextSibling;
  const callee = iterable?.name === 'CallExpression' ? iterable.firstChild : null;
  const mapping = callee?.name === 'MemberExpression' ? callee.firstChild : null;
  if (targets.length !== 2 || !mapping || callee?.lastChild?.name !== 'PropertyName') return undefined;
  if (text(file, callee.lastChild) !== 'items') return undefined;
  const body = st.getChild('Body');
  const cur = body?.cursor();
  if (!body || !cur) return undefined;
  do {
    if (cur.name !== 'CallExpression' || text(file, cur.node.firstChild ?? cur.node) !== 'setattr') continue;
    const args =
      cur.node
        .getChild('ArgList')
        ?.getChildren('VariableName')
        .map((n) => text(file, n)) ?? [];
    if (args.length === 3 && args[1] === targets[0] && args[2] === targets[1])
      return { statement: st, object: args[0], mapping };
  } while (cur.next() && cur.from < body.to);
  return undefined;
}

/** `vars(obj).update(m)` or `obj.__dict__.update(m)`. */
function updateOverlay(file: PythonFile, st: SyntaxNode): Overlay | undefined {
  const call = st.firstChild;
  const member = call?.name === 'CallExpression' ? call.firstChild : null;
  if (!call || member?.name !== 'MemberExpression' || member.lastChild?.name !== 'PropertyName') return undefined;
  if (text(file, member.lastChild) !== 'update') return undefined;
  const mapping = soleArgument(call.getChild('ArgList'));
  if (!mapping) return undefined;
  const dict = /^(?:vars\((\w+)\)|(\w+)\.__dict__)\.update$/.exec(text(file, member).replace(/\s+/g, ''));
  const object = dict?.[1] ?? dict?.[2];
  return object ? { statement: st, object, mapping } : undefined;
}

/** The one positional argument of an argument list (`(cfg)`, `({"bs": 2})`), if it has exactly one. */
function soleArgument(list: SyntaxNode | null): SyntaxNode | undefined {
  const items: SyntaxNode[] = [];
  for (let c = list?.firstChild?.nextSibling; c && c.name !== ')'; c = c.nextSibling) if (c.name !== ',') items.push(c);
  return items.length === 1 ? items[0] : undefined;
}

/** The overlays of the object `dotted` is an attribute of (`args` for `args.model_name`). */
export function overlaysOf(file: PythonFile, dotted: string): Overlay[] {
  const object = dotted.slice(0, dotted.lastIndexOf('.'));
  return file.overlays.length > 0 ? file.overlays.filter((o) => o.object === object) : [];
}

/**
 * What the overlay `st` is (one of `overlays`) sets attribute `attr` to: the mapping's item, 'absent' where the mapping
 * has no such key, a value not known where the mapping is not; undefined where `st` is no overlay.
 */
export function overlaidValue(
  file: PythonFile,
  overlays: readonly Overlay[],
  st: SyntaxNode,
  attr: string,
  use: SyntaxNode,
  depth: number,
): Val | 'absent' | undefined {
  const overlay = overlays.find((o) => o.statement.from === st.from && o.statement.to === st.to);
  if (!overlay) return undefined;
  const m = file.evalNode(overlay.mapping, depth + 1);
  const line = file.line(st.from);
  if (m.k === 'data') {
    const obj = m.value as Record<string, unknown>;
    const has =
      obj !== null && typeof obj === 'object' && !Array.isArray(obj) && Object.prototype.hasOwnProperty.call(obj, attr);
    return has ? dataAt(m, attr, use) : 'absent';
  }
  if (m.k === 'dict' && m.opaque.length === 0) {
    const entry = m.entries.find((e) => e.rawKey === attr);
    if (!entry) return 'absent';
    return entry.value ?? (entry.valueNode ? file.evalNode(entry.valueNode, depth + 1) : 'absent');
  }
  const reason = `${overlay.object}.${attr} may be set at line ${line} by ${clip(text(file, st).trim(), 50)}, from a mapping not known statically`;
  return { k: 'unknown', reason };
}
