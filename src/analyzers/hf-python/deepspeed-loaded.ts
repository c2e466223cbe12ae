// A DeepSpeed config a script loads itself and hands DeepSpeed (albert-jeffery/DeepSpeed-Finetuning's train.py:
// `ds_config = json.load(open(args.ds_config_path))`, items set in place from its options, then
// `deepspeed.initialize(..., config_params=ds_config)`): the file is the run's DeepSpeed config, read as one the script
// names, and the items the script sets before the call, in the statements that surely run, replace the file's (the
// script's facts outrank a file it references). An item set from a value not known statically is said there, as the
// file's value is then what is estimated. Pure.
import type { SyntaxNode } from '@lezer/common';
import { type CanonicalKey, type FactValue, msg, type Tool } from '../facts';
import type { Entry, PythonFile, Val } from './file';
import { clip, pyString, span } from './syntax';
import { statementOf } from './attributes';

/** The items of a DeepSpeed config whose setting in place is read, with the fact each gives. */
const SET_IN_PLACE: Readonly<Record<string, { key: CanonicalKey; of: (v: FactValue) => FactValue | undefined }>> = {
  train_micro_batch_size_per_gpu: { key: 'microBatchSize', of: (v) => count(v) },
  gradient_accumulation_steps: { key: 'gradientAccumulationSteps', of: (v) => count(v) },
  train_batch_size: { key: 'trainBatchSize', of: (v) => count(v) },
  'zero_optimization.stage': {
    key: 'zeroStage',
    of: (v) => (v === 0 || v === 1 || v === 2 || v === 3 ? v : undefined),
  },
  'zero_optimization.offload_param.device': { key: 'offloadParams', of: (v) => device(v) },
  'zero_optimization.offload_optimizer.device': { key: 'offloadOptimizer', of: (v) => device(v) },
  'bf16.enabled': { key: 'bf16', of: (v) => (typeof v === 'boolean' ? v : undefined) },
  'fp16.enabled': { key: 'fp16', of: (v) => (typeof v === 'boolean' ? v : undefined) },
};

const count = (v: FactValue): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
const device = (v: FactValue): FactValue | undefined => (v === 'cpu' || v === 'nvme' || v === 'none' ? v : undefined);

/** The loaded file (`x`, the whole of it) as the run's DeepSpeed config, and the items the script sets in it first. */
export function loadedDeepspeedConfig(file: PythonFile, e: Entry, x: Extract<Val, { k: 'data' }>, tool: Tool): void {
  file.push('deepspeedConfig', e, x.path, tool, x);
  const name = e.valueNode?.name === 'VariableName' ? file.text.slice(e.valueNode.from, e.valueNode.to) : undefined;
  const sets = name ? itemsSetBefore(file, name, e.valueNode!) : [];
  // A global batch the script works out at run time (`args.per_device_train_batch_size * world_size * accumulation`,
  // gammachen/p-llm-dialog-element-extraction) is not the file's: the run's follows from its micro-batch, accumulation
  // and GPUs, and the file's value is not checked against them.
  const replaced = sets.some((set) => set.keys === 'train_batch_size' && !setInPlace(file, set, tool));
  file.references.push({
    kind: 'deepspeed',
    path: x.path,
    span: e.valueSpan,
    ...(replaced ? { replacedKeys: ['trainBatchSize' as const] } : {}),
  });
  for (const set of sets) if (set.keys !== 'train_batch_size') setInPlace(file, set, tool);
}

/** One `name["a"]["b"] = value` statement: the keys it writes, dotted, and its target and value. */
interface ItemSet {
  readonly keys: string;
  readonly target: SyntaxNode;
  readonly value: SyntaxNode;
}

/**
 * The statements `name[...] = value` that surely run before `use`: those of its block and of the blocks around it up
 * to its function, first to last (a later one replaces an earlier one).
 */
function itemsSetBefore(file: PythonFile, name: string, use: SyntaxNode): ItemSet[] {
  const out: ItemSet[] = [];
  for (let st = statementOf(use); st?.parent; st = statementOf(st.parent)) {
    for (let s = st.prevSibling; s; s = s.prevSibling) {
      const set = itemSet(file, s, name);
      if (set) out.unshift(set);
    }
    if (st.parent.name === 'Script' || st.parent.parent?.name === 'FunctionDefinition') break;
  }
  return out;
}

/** `name["a"]["b"] = value` with string keys, as an ItemSet; undefined for any other statement. */
function itemSet(file: PythonFile, st: SyntaxNode, name: string): ItemSet | undefined {
  const target = st.name === 'AssignStatement' ? st.firstChild : null;
  const value = st.lastChild;
  if (target?.name !== 'MemberExpression' || !value || st.getChildren('AssignOp').length !== 1) return undefined;
  const keys: string[] = [];
  let n: SyntaxNode | null = target;
  while (n?.name === 'MemberExpression') {
    const key = n.getChild('String');
    const k = key && n.lastChild?.name === ']' ? pyString(file.text.slice(key.from, key.to)) : undefined;
    if (k === undefined) return undefined;
    keys.unshift(k);
    n = n.firstChild;
  }
  if (n?.name !== 'VariableName' || file.text.slice(n.from, n.to) !== name) return undefined;
  return { keys: keys.join('.'), target, value };
}

/**
 * The fact an item set in place gives, or where its value is not known, a warning that the file's is estimated (for
 * the global batch: that the file's is not the run's). Whether a fact was given.
 */
function setInPlace(file: PythonFile, set: ItemSet, tool: Tool): boolean {
  const read = SET_IN_PLACE[set.keys];
  if (!read) return false;
  const v = file.evalNode(set.value, 0);
  const value = v.k === 'lit' && v.v !== null ? read.of(v.v) : undefined;
  const rawKey = clip(file.text.slice(set.target.from, set.target.to), 100);
  if (value === undefined) {
    const why = v.k === 'lit' ? `${JSON.stringify(v.v)} is not a value DeepSpeed takes here` : file.describe(v);
    file.problem(
      'not-static',
      'warning',
      read.key === 'trainBatchSize'
        ? msg(
            "{0} is set here, but {1}: the run's global batch follows from its micro-batch, accumulation and GPUs",
            rawKey,
            why,
          )
        : msg("{0} is set here, but {1}: the config file's value is estimated", rawKey, why),
      span(set.value),
      rawKey,
    );
    return false;
  }
  const entry: Entry = { rawKey, keySpan: span(set.target), valueNode: set.value, valueSpan: span(set.value) };
  file.push(read.key, entry, value, tool, v);
  return true;
}
