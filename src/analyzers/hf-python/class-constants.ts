// `C.attr` of a class the file defines, read from the class body: notebooks keep their settings as class constants
// (`class ModelConfig:` / `model_name: str = "google/gemma-2-2b"`, then `from_pretrained(ModelConfig.model_name)`).
// Only a body that sets the attribute once, in a file that sets no `.attr` anywhere else, gives a value. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import { clip } from './syntax';

/** The value the class body gives `C.attr`, or undefined when C is not a class of this file or attr is not constant. */
export function classConstant(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const parts = dotted.split('.');
  if (parts.length !== 2 || file.attrAssigned.has(parts[1])) return undefined;
  const [name, attr] = parts;
  const found = file.lookup(name, use);
  if (found.k !== 'binding' || found.binding.kind !== 'def') return undefined;
  const cls = classAt(use, found.binding.pos);
  const value = cls ? onlyAssignment(file, cls, attr) : undefined;
  if (!value) return undefined;
  const v = file.evalNode(value, depth + 1);
  if (v.k !== 'lit') return undefined;
  const text = `${name}.${attr} = ${clip(file.text.slice(value.from, value.to), 40)} at line ${file.line(value.from)}`;
  return { ...v, via: { text, span: { start: value.from, end: value.to } } };
}

/** The class definition that starts at `pos` (its binding's place), found from any node of the file. */
function classAt(node: SyntaxNode, pos: number): SyntaxNode | undefined {
  let root = node;
  while (root.parent) root = root.parent;
  for (let n: SyntaxNode | null = root.resolveInner(pos, 1); n; n = n.parent)
    if (n.name === 'ClassDefinition') return n;
  return undefined;
}

/** The value of the one statement of the class body that sets `attr` (`attr = v`, `attr: T = v`); none if two do. */
function onlyAssignment(file: PythonFile, cls: SyntaxNode, attr: string): SyntaxNode | undefined {
  let value: SyntaxNode | undefined;
  for (let st = cls.getChild('Body')?.firstChild ?? null; st; st = st.nextSibling) {
    if (st.name !== 'AssignStatement') continue;
    const target = st.firstChild;
    const last = st.lastChild;
    if (target?.name !== 'VariableName' || file.text.slice(target.from, target.to) !== attr) continue;
    if (value || !last || last.from === target.from || !st.getChild('AssignOp')) return undefined;
    value = last;
  }
  return value;
}
