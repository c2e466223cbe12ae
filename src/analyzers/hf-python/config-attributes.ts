// An attribute of the training arguments set after they are made: `training_args = SFTConfig(...)` then
// `training_args.bf16 = True` (SakibAhmedShuva/Gemma-3-LLM-Fine-Tuning's notebook sets its precision so), read as a
// keyword of the call written at the assignment. One on a branch known not to run is left out; one on a branch whose
// test is not known statically is not known, said with its condition. Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import { branchTaken, conditionOf } from './branches';
import type { Entry, PythonFile } from './file';
import { mapEntry } from './mapping';
import { assignedName, span } from './syntax';

/**
 * Each `name.attr = value` after the call that binds `name`, mapped as the call's keyword `attr` (a later one wins).
 * One that may not run leaves the setting not known: the call's own value for it is dropped.
 */
export function attributesSetAfter(file: PythonFile, call: SyntaxNode, tool: Tool, trlOrLocal: boolean): void {
  const name = assignedName(call, file.text);
  if (name === undefined) return;
  const sets = [...file.optionAssignments.values()].flat().filter((st) => st.from > call.to);
  const inCall = (s: { start: number; end: number }): boolean => s.start >= call.from && s.end <= call.to;
  for (const st of sets.sort((a, b) => a.from - b.from)) {
    const entry = attributeEntry(file, st, name);
    if (!entry) continue;
    const before = file.facts.length;
    mapEntry(file, 'train', entry, tool, undefined, trlOrLocal);
    if (!entry.forced) continue;
    const keys = new Set(file.facts.slice(before).map((f) => f.key));
    file.facts = file.facts.filter((f, i) => i >= before || !keys.has(f.key) || !inCall(f.keySpan));
  }
}

/** `name.attr = value` (one target) as the entry `attr=value`, unless its branch is known not to run. */
function attributeEntry(file: PythonFile, st: SyntaxNode, name: string): Entry | undefined {
  const target = st.name === 'AssignStatement' ? st.firstChild : null;
  const object = target?.name === 'MemberExpression' ? target.firstChild : null;
  const property = target?.lastChild;
  const value = st.lastChild;
  if (object?.name !== 'VariableName' || property?.name !== 'PropertyName' || !value || value === target) return;
  if (file.text.slice(object.from, object.to) !== name || target?.nextSibling?.name !== 'AssignOp') return;
  if (value.prevSibling?.from !== target.nextSibling.from) return;
  const taken = branchTaken(file, st);
  if (taken === false) return;
  const condition = taken === undefined ? conditionOf(file, st) : undefined;
  return {
    rawKey: file.text.slice(property.from, property.to),
    keySpan: span(property),
    valueNode: value,
    valueSpan: span(value),
    ...(condition ? { forced: `set only when ${condition}` } : {}),
  };
}
