// The arguments of one call as the script writes them: positional nodes, keywords (a `**` spread of a mapping known
// statically gives its items, less the keys the script pops or deletes from it first) and the spreads whose keys are not
// known statically. Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { Span } from '../facts';
import type { Entry, PythonFile } from './file';
import { dataAt, isMapping } from './data-files';
import { removedKeys } from './dict-values';
import { importedDictItems } from './imported-constants';
import { calledFunctionBody, soleReturn } from './expressions';
import { clip, parameters, span } from './syntax';

export interface CallArgs {
  positional: SyntaxNode[];
  entries: Entry[];
  opaque: { reason: string; span: Span }[];
}

export function callArguments(file: PythonFile, call: SyntaxNode): CallArgs {
  const out: CallArgs = { positional: [], entries: [], opaque: [] };
  const list = call.getChild('ArgList');
  if (!list) return out;
  const head = call.firstChild;
  const lazy = head !== null && file.text.slice(head.from, head.to) === 'dict' && file.calleeName(call) !== 'dict';
  for (let ch = list.firstChild; ch; ch = ch.nextSibling) {
    const n = ch.name;
    if (n === '(' || n === ')' || n === ',' || n === 'Comment' || ch.type.isError) continue;
    if (n === '**' || n === '*') {
      const target = ch.nextSibling;
      if (!target || target.name === ')' || target.name === ',') continue;
      ch = target;
      if (n === '**') spread(file, target, out);
      continue;
    }
    const next = ch.nextSibling;
    if (n === 'VariableName' && next?.name === 'AssignOp') {
      const value = next.nextSibling;
      // A lazy dict's `type` is its callee, not an argument.
      if (lazy && value && file.text.slice(ch.from, ch.to) === 'type') {
        ch = value;
        continue;
      }
      const valueOk = value && value.name !== ',' && value.name !== ')' && !value.type.isError;
      out.entries.push({
        rawKey: file.text.slice(ch.from, ch.to),
        keySpan: span(ch),
        valueNode: valueOk ? value : null,
        valueSpan: valueOk ? span(value) : { start: next.to, end: next.to },
        ...(valueOk ? {} : { forced: 'the value is missing' }),
      });
      ch = valueOk ? value : next;
      continue;
    }
    out.positional.push(ch);
  }
  return out;
}

/** `**target`: the items of a mapping known statically, else an opaque spread said at it. */
function spread(file: PythonFile, target: SyntaxNode, out: CallArgs, depth = 0): void {
  const filtered = depth < 2 ? filteredMapping(file, target) : undefined;
  if (filtered) return spread(file, filtered, out, depth + 1);
  const v = file.evalNode(target, 0);
  const removed = removedKeys(file.text, target);
  if (v.k === 'dict') {
    out.entries.push(...v.entries.filter((e) => !removed.has(e.rawKey)));
    for (const r of v.opaque) out.opaque.push({ reason: r, span: span(target) });
  } else if (v.k === 'data' && isMapping(v.value)) {
    // `TrainingArguments(**hparams["training_args"])`: each key of the loaded file's mapping, at the spread.
    for (const key of Object.keys(v.value).filter((k) => !removed.has(k)))
      out.entries.push({
        rawKey: key,
        keySpan: span(target),
        valueNode: null,
        valueSpan: span(target),
        value: dataAt(v, key, target),
      });
  } else if (target.name === 'VariableName' && importedSpread(file, target, removed, out)) {
    return;
  } else {
    const reason = `**${clip(file.text.slice(target.from, target.to))} is ${file.describe(v)}`;
    out.opaque.push({ reason, span: span(target) });
  }
}

/** `**TRAINING_ARGS` of a dict constant imported from a module of the project: its literal items, at the spread. */
function importedSpread(file: PythonFile, target: SyntaxNode, removed: ReadonlySet<string>, out: CallArgs): boolean {
  const items = importedDictItems(file, file.text.slice(target.from, target.to), target);
  if (!items) return false;
  for (const { key, value } of items.filter((i) => !removed.has(i.key)))
    out.entries.push({ rawKey: key, keySpan: span(target), valueNode: null, valueSpan: span(target), value });
  return true;
}

/**
 * The trainer or config class a local name is bound to once, where a call goes through it (`trainer_cls =
 * Qwen2VLGRPOTrainer`, then `trainer_cls(model=..., args=training_args)`: xirui-li/VisualThinker-R1-Zero's grpo.py).
 */
export function classAlias(file: PythonFile, callee: SyntaxNode | null, name: string | undefined): string | undefined {
  if (callee?.name !== 'VariableName' || name === undefined || /^[A-Z]/.test(name)) return undefined;
  const found = file.lookup(name, callee);
  const value = found.k === 'binding' && found.binding.kind === 'assign' ? found.binding.valueNode : null;
  const target =
    value && (value.name === 'VariableName' || value.name === 'MemberExpression') ? file.dotted(value) : undefined;
  return target !== undefined && /(?:^|\.)[A-Z]\w*(?:Trainer|Config)$/.test(target) ? target : undefined;
}

/** A return that filters a parameter's items: `{k: v for k, v in names.items() if k in accepted}`. */
const FILTERED_ITEMS = /^\{\s*(\w+)\s*:\s*(\w+)\s+for\s+\1\s*,\s*\2\s+in\s+(\w+)\.items\(\)(?:\s+if\s[^]*)?\}$/;

/**
 * The argument a call of the script's own function gives the mapping the function returns filtered (Chrissie-1/
 * qlora-dpo-trainer's `DPOConfig(**supported(DPOConfig, {...}))`, whose `supported` keeps the keys the installed
 * release's signature accepts): that mapping's items stand for the call's, every one kept (the filter is a run-time
 * test). Undefined for any other spread.
 */
function filteredMapping(file: PythonFile, target: SyntaxNode): SyntaxNode | undefined {
  const body = target.name === 'CallExpression' ? calledFunctionBody(file, target) : undefined;
  const ret = body ? soleReturn(body) : undefined;
  const fn = body?.parent;
  if (!ret || fn?.name !== 'FunctionDefinition') return undefined;
  const expr = file.text
    .slice(ret.from, ret.to)
    .replace(/^return\s+/, '')
    .trim();
  const m = FILTERED_ITEMS.exec(expr);
  const params = parameters(file.text, fn.getChild('ParamList')).map((p) => p.name);
  const at = m ? params.indexOf(m[3]) : -1;
  if (at < 0) return undefined;
  const a = file.args(target);
  return a.positional[at] ?? a.entries.find((e) => e.rawKey === m![3])?.valueNode ?? undefined;
}
