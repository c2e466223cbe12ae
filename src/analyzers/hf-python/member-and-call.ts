// Two kinds of node the static evaluation (PythonFile.evalNode) reads through the expressions it knows: an attribute
// or an item (`args.x`, a module's constant, `d["key"]`, a path's `.parent`), and a call (a string method, getattr,
// a path of a value, an environment variable's default). Pure; it never runs code.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import {
  dictItem,
  dtypeProperty,
  environmentDefault,
  pathMember,
  pathOfCall,
  staticGetattr,
  staticStringCall,
} from './expressions';
import { classConstant } from './class-constants';
import { dataGet, dataMember, loadedData } from './data-files';
import { importedMember } from './imported-constants';
import { memberValue } from './script-defaults';
import { clip } from './syntax';

/** `a.b.c` or `x[...]`: an imported constant, the script's option or attribute, a path's parent, a dict's item. */
export function evalMember(file: PythonFile, node: SyntaxNode, text: string, depth: number): Val {
  const d = file.dotted(node);
  const imported = d ? importedMember(file, d, node) : undefined;
  if (imported) return imported;
  if (d)
    return (
      dataMember(file, d, node, depth) ??
      memberValue(file, d, node, depth) ??
      classConstant(file, d, node, depth) ??
      pathMember(file, node, depth) ??
      dtypeProperty(file, node, depth) ?? { k: 'dotted', text: d }
    );
  return (
    dictItem(file, node, depth) ??
    pathMember(file, node, depth) ?? { k: 'unknown', reason: `${clip(text)} is looked up at run time` }
  );
}

/** A call whose value is known statically, else the call itself (`{ k: 'call' }`); `dict(...)` is the caller's. */
export function evalCall(file: PythonFile, node: SyntaxNode, callee: string, depth: number): Val {
  const known =
    loadedData(file, node, callee, depth) ??
    dataGet(file, node, callee, depth) ??
    staticStringCall(file, node, depth) ??
    staticGetattr(file, node, callee, depth) ??
    pathOfCall(file, node, callee, depth) ??
    environmentDefault(file, node, callee, depth);
  return known ?? { k: 'call', callee, node };
}
