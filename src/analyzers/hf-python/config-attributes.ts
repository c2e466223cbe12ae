// An attribute of the training arguments set after they are made: `training_args = SFTConfig(...)` then
// `training_args.bf16 = True` (SakibAhmedShuva/Gemma-3-LLM-Fine-Tuning's notebook sets its precision so), read as a
// keyword of the call written at the assignment; so is `setattr(training_args, 'max_length', 512)` with the name written
// as a string (biosharp18/CS245-project train_DPO.py sets its batch and lengths so), and so is one set on the training
// arguments HfArgumentParser parsed, over the launch line's flag. One on a branch known not to run is left out; one on
// a branch whose test is not known statically is not known, said with its condition. Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import { branchTaken, conditionOf } from './branches';
import type { Entry, PythonFile } from './file';
import { mapEntry } from './mapping';
import { soleCallArgumentNode } from './attributes';
import { assignedName, children, pyString, span, stringInner } from './syntax';

/**
 * Each `name.attr = value` after the call that binds `name`, mapped as the call's keyword `attr` (a later one wins).
 * One that may not run leaves the setting not known: the call's own value for it is dropped.
 */
export function attributesSetAfter(file: PythonFile, call: SyntaxNode, tool: Tool, trlOrLocal: boolean): void {
  const name = assignedName(call, file.text);
  if (name === undefined) return;
  const assigned = [...file.optionAssignments.values()].flat();
  const sets = [...assigned, ...file.callsNamed('setattr')].filter((st) => st.from > call.to);
  const inCall = (s: { start: number; end: number }): boolean => s.start >= call.from && s.end <= call.to;
  for (const st of sets.sort((a, b) => a.from - b.from)) {
    const entry = st.name === 'CallExpression' ? setattrEntry(file, st, name) : attributeEntry(file, st, name);
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
  return whereRun(file, st, { rawKey: file.text.slice(property.from, property.to), keySpan: span(property), value });
}

/** `setattr(name, 'attr', value)` as the entry `attr=value`, unless its branch is known not to run. */
function setattrEntry(file: PythonFile, call: SyntaxNode, name: string): Entry | undefined {
  const args = children(call.getChild('ArgList') ?? call).filter((c) => !['(', ')', ','].includes(c.name));
  const [object, attr, value] = args;
  if (args.length !== 3 || object.name !== 'VariableName' || file.text.slice(object.from, object.to) !== name) return;
  const rawKey = attr.name === 'String' ? pyString(file.text.slice(attr.from, attr.to)) : undefined;
  if (rawKey === undefined || !/^\w+$/.test(rawKey)) return;
  return whereRun(file, call, { rawKey, keySpan: stringInner(file.text, attr), value });
}

/** The entry of a statement that sets `rawKey`: none on a branch known not to run, not known on one that may not. */
function whereRun(
  file: PythonFile,
  st: SyntaxNode,
  e: { rawKey: string; keySpan: Entry['keySpan']; value: SyntaxNode },
): Entry | undefined {
  const taken = branchTaken(file, st);
  if (taken === false) return;
  const condition = taken === undefined ? conditionOf(file, st) : undefined;
  return {
    rawKey: e.rawKey,
    keySpan: e.keySpan,
    valueNode: e.value,
    valueSpan: span(e.value),
    ...(condition ? { forced: `set only when ${condition}` } : {}),
  };
}

/** The HfArgumentParser methods that return the parsed dataclasses (a TrainingArguments among them). */
const PARSED_DATACLASSES =
  /^(parse_args_into_dataclasses|parse_yaml_file|parse_json_file|parse_dict|parse_args_and_config)$/;

/**
 * `training_args.fp16 = True` after `script_args, training_args, model_args = parser.parse_args_into_dataclasses()`
 * (aarentai/Qwen trl/train_ppo.py): the parsed training arguments changed once the command line is read, mapped as
 * their keyword; the value set so wins over the launch line's flag (Fact.overridesLauncher).
 */
export function attributesSetOnParsed(file: PythonFile, tool: Tool): void {
  const assigned = [...file.optionAssignments.values()].flat().sort((a, b) => a.from - b.from);
  for (const st of assigned) {
    const object = st.firstChild?.name === 'MemberExpression' ? st.firstChild.firstChild : null;
    if (object?.name !== 'VariableName') continue;
    const name = file.text.slice(object.from, object.to);
    if (!parsedDataclasses(file, name, object)) continue;
    const entry = attributeEntry(file, st, name);
    if (!entry) continue;
    const before = file.facts.length;
    mapEntry(file, 'train', entry, tool, undefined, tool === 'trl');
    for (let i = before; i < file.facts.length; i++) file.facts[i] = { ...file.facts[i], overridesLauncher: true };
  }
}

/**
 * Whether `name` where `use` reads it is bound from an HfArgumentParser's parse of its dataclasses, also as a
 * function's parameter that the function's one call in the file gives such a name (X-R1's `main(script_args,
 * training_args, model_args)` after `parser.parse_args_and_config()`, which sets `training_args.gradient_checkpointing =
 * False` in main).
 */
function parsedDataclasses(file: PythonFile, name: string, use: SyntaxNode, depth = 0): boolean {
  const found = file.lookup(name, use);
  if (found.k !== 'binding') {
    const arg = found.param && depth < 4 ? soleCallArgumentNode(file, found.param.scope, found.param.name) : undefined;
    return arg?.name === 'VariableName' && parsedDataclasses(file, file.text.slice(arg.from, arg.to), arg, depth + 1);
  }
  const b = found.binding;
  const value = b.kind === 'assign' ? b.valueNode : b.kind === 'unpack' ? b.rhs : null;
  if (value?.name !== 'CallExpression') return false;
  const callee = value.firstChild;
  const method =
    callee?.name === 'MemberExpression' && callee.lastChild?.name === 'PropertyName'
      ? file.text.slice(callee.lastChild.from, callee.lastChild.to)
      : file.calleeName(value)?.split('.').pop();
  return method !== undefined && PARSED_DATACLASSES.test(method);
}

/**
 * `config._attn_implementation = "flash_attention_2"` on the config a load is given (`from_pretrained(path,
 * config=config)`), before the load: the keyword attn_implementation of the load (RUCAIBox/LLMBox training/train.py,
 * under `if args.use_flash_attention:`, which its dataclass default decides). Branch-aware as the training arguments'.
 */
export function attentionSetOnConfig(file: PythonFile, load: SyntaxNode, entries: readonly Entry[]): void {
  const config = entries.find((e) => e.rawKey === 'config')?.valueNode;
  if (config?.name !== 'VariableName' || entries.some((e) => e.rawKey === 'attn_implementation')) return;
  const name = file.text.slice(config.from, config.to);
  const sets = [...(file.optionAssignments.get('_attn_implementation') ?? [])]
    .concat(file.optionAssignments.get('attn_implementation') ?? [])
    .filter((st) => st.to < load.from)
    .sort((a, b) => a.from - b.from);
  for (const st of sets) {
    const entry = attributeEntry(file, st, name);
    if (entry) mapEntry(file, 'load', { ...entry, rawKey: 'attn_implementation' }, 'hf-trainer');
  }
}
