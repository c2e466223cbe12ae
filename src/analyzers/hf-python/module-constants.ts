// Module-level constants of a script whose run is set in them (Lit-GPT's 2023 scripts, nanoGPT's train.py and its
// config files): each name's last top-level assignment, where it is written and its literal value, and the arithmetic
// over them (`gradient_accumulation_steps = 5 * 8`). Only literals are read; the script is never run. Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import type { FactValue } from '../facts';
import type { Entry, PythonFile } from './file';
import { children, parseNumber, pyString, span } from './syntax';

/** A module-level constant or a parameter default: where it is written and its literal value, if it is one. */
export interface Named {
  readonly entry: Entry;
  readonly value: FactValue | null | undefined;
}

/** The top-level `name = value` assignments of a module, the last one of each name. */
export function moduleConstants(file: Pick<PythonFile, 'text'>, top: SyntaxNode): Map<string, Named> {
  const constants = new Map<string, Named>();
  for (const st of children(top)) {
    if (st.name !== 'AssignStatement') continue;
    const [target, op, value] = children(st);
    if (target?.name !== 'VariableName' || op?.name !== 'AssignOp' || !value) continue;
    const name = file.text.slice(target.from, target.to);
    constants.set(name, named(file, name, target, value));
  }
  return constants;
}

export function named(file: Pick<PythonFile, 'text'>, name: string, key: SyntaxNode, value: SyntaxNode | null): Named {
  const entry: Entry = {
    rawKey: name,
    keySpan: span(key),
    valueNode: value,
    valueSpan: value ? span(value) : span(key),
  };
  return { entry, value: value ? literal(file.text, value) : undefined };
}

/** A literal's value: a number, True / False, None (null), a string, or `Path("...")`'s string; undefined otherwise. */
export function literal(text: string, n: SyntaxNode): FactValue | null | undefined {
  const raw = text.slice(n.from, n.to);
  if (n.name === 'Number') return parseNumber(raw);
  if (n.name === 'Boolean') return raw === 'True';
  if (n.name === 'None') return null;
  if (n.name === 'String') return pyString(raw);
  if (n.name === 'CallExpression' && /^Path\s*\(/.test(raw)) {
    const arg = n.getChild('ArgList')?.getChild('String');
    return arg ? pyString(text.slice(arg.from, arg.to)) : undefined;
  }
  return undefined;
}

/** A literal that is a whole number of at least 1, or undefined. */
export function positiveInt(v: FactValue | null | undefined): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}

/** + - * / // over numbers and constants bound to them; undefined for anything else. */
export function evaluateNumber(
  text: string,
  n: SyntaxNode,
  c: ReadonlyMap<string, Named>,
  depth = 0,
): number | undefined {
  if (depth > 8) return undefined;
  if (n.name === 'Number') return parseNumber(text.slice(n.from, n.to));
  if (n.name === 'ParenthesizedExpression')
    return n.firstChild?.nextSibling ? evaluateNumber(text, n.firstChild.nextSibling, c, depth + 1) : undefined;
  if (n.name === 'VariableName') {
    const bound = c.get(text.slice(n.from, n.to))?.entry.valueNode;
    return bound ? evaluateNumber(text, bound, c, depth + 1) : undefined;
  }
  if (n.name !== 'BinaryExpression') return undefined;
  const [l, op, r] = children(n);
  const a = l && evaluateNumber(text, l, c, depth + 1);
  const b = r && evaluateNumber(text, r, c, depth + 1);
  if (a === undefined || b === undefined || !op) return undefined;
  const o = text.slice(op.from, op.to);
  if (o === '+') return a + b;
  if (o === '-') return a - b;
  if (o === '*') return a * b;
  if (b === 0) return undefined;
  return o === '/' ? a / b : o === '//' ? Math.floor(a / b) : undefined;
}

/**
 * A dataclass field's value as its class body writes it: the argument `field(...)` (or pydantic's `Field(...)`) is
 * given for `which` (its default, or its default_factory), else the value itself.
 */
export function fieldArgument(
  text: string,
  value: SyntaxNode,
  which: 'default' | 'default_factory',
): SyntaxNode | undefined {
  const callee = value.name === 'CallExpression' ? value.firstChild : null;
  if (!callee || !/^((dataclasses\.)?field|(pydantic\.)?Field)$/.test(text.slice(callee.from, callee.to))) return value;
  let positional: SyntaxNode | undefined;
  for (let ch = value.getChild('ArgList')?.firstChild ?? null; ch; ch = ch.nextSibling) {
    const key = ch.name === 'VariableName' && ch.nextSibling?.name === 'AssignOp' ? ch : null;
    if (key && text.slice(key.from, key.to) === which) return ch.nextSibling?.nextSibling ?? undefined;
    if (key) ch = ch.nextSibling?.nextSibling ?? ch;
    else if (!positional && !['(', ')', ','].includes(ch.name)) positional = ch;
  }
  // pydantic's Field(v, description=...): its first argument is the default.
  return which === 'default' ? positional : undefined;
}
