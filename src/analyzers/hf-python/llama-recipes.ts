// llama-recipes (meta-llama/llama-recipes, renamed llama-cookbook): a script or notebook that fills the fields of the
// library's `train_config` and hands its model to the library's `train()` loop (getting-started/finetuning's
// quickstart_peft_finetuning.ipynb and the projects that copy it). The loop is the library's
// (utils/train_utils.py train: `with autocast(): loss = model(**batch).loss` under
// `torch.cuda.amp.autocast if train_config.use_fp16 else nullcontext`, a GradScaler with fp16, the optimizer the script
// built stepped every gradient_accumulation_steps batches); the batches are its dataloader's
// (`batch_size_training` rows of `context_length` tokens when `batching_strategy` is "packing", rows padded to the
// longest of the batch when "padding"). The fields the script does not set keep train_config's defaults
// (meta-llama/llama-cookbook@1a97f6f src/llama_cookbook/configs/training.py), said at the train() call.
// Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import type { CanonicalKey, FactValue, Unknown } from '../facts';
import { type Entry, PythonFile } from './file';
import { span, walk } from './syntax';
import { optimizerCall } from './optimizer-calls';

const LIBRARY = String.raw`(?:llama_recipes|llama_cookbook)`;
const LOOP = 'pytorch';
const SOURCE = 'meta-llama/llama-cookbook@1a97f6f:src/llama_cookbook/configs/training.py';

/**
 * The fields train() and the dataloader read: their facts, the setup key a change to them writes, and the library's
 * defaults (with how they read).
 */
interface Field {
  readonly key: CanonicalKey;
  readonly setupKey: string;
  readonly dflt: FactValue;
  readonly dfltText: string;
  readonly conv: (v: unknown) => FactValue | undefined;
}
const FIELDS: Readonly<Record<string, Field>> = {
  batch_size_training: {
    key: 'microBatchSize',
    setupKey: 'micro_batch_size',
    dflt: 4,
    dfltText: '4',
    conv: positiveInt,
  },
  gradient_accumulation_steps: {
    key: 'gradientAccumulationSteps',
    setupKey: 'gradient_accumulation_steps',
    dflt: 1,
    dfltText: '1',
    conv: positiveInt,
  },
  context_length: { key: 'seqLen', setupKey: 'seq_len', dflt: 4096, dfltText: '4096', conv: positiveInt },
  batching_strategy: {
    key: 'batchLengths',
    setupKey: 'batch_lengths',
    dflt: 'fixed',
    dfltText: '"packing" (every row context_length tokens)',
    conv: (v) => (v === 'packing' ? 'fixed' : v === 'padding' ? 'variable' : undefined),
  },
  use_fp16: {
    key: 'mixedPrecision',
    setupKey: 'mixed_precision',
    dflt: 'none',
    dfltText: 'False (no autocast: the model computes in its own dtype)',
    conv: (v) => (v === true ? 'fp16' : v === false ? 'none' : undefined),
  },
};

/** The library's train() imported (`from llama_cookbook.utils.train_utils import train`). */
const IMPORTS_TRAIN = new RegExp(String.raw`^\s*from\s+${LIBRARY}\.utils\.train_utils\s+import\s+[^\n]*\btrain\b`, 'm');
/** The train_config class imported, and the name it is imported as. */
const IMPORTS_CONFIG = new RegExp(
  String.raw`^\s*from\s+${LIBRARY}\.configs\s+import\s+[^\n]*\btrain_config(?:\s+as\s+(\w+))?`,
  'm',
);

/** Whether a file hands its model to llama-recipes' train() (the quick fixes' planner asks too). */
export const importsLlamaRecipesTrain = (text: string): boolean => IMPORTS_TRAIN.test(text);

/** The train_config field that sets a setup key train() reads, or undefined. */
export function llamaRecipesField(setupKey: string): string | undefined {
  return Object.keys(FIELDS).find((f) => FIELDS[f].setupKey === setupKey);
}

function positiveInt(v: unknown): FactValue | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** The library's train() the file calls, or undefined where it calls none (or does not import it from the library). */
export function llamaRecipesTrainCall(file: PythonFile, calls: readonly SyntaxNode[]): SyntaxNode | undefined {
  if (!importsLlamaRecipesTrain(file.text)) return undefined;
  return calls.find((c) => file.calleeName(c) === 'train');
}

/** The names of the file's train_config instances: `train_config = TRAIN_CONFIG()` after importing the class. */
function configNames(file: PythonFile, calls: readonly SyntaxNode[]): Set<string> {
  const found = IMPORTS_CONFIG.exec(file.text);
  const names = new Set<string>();
  if (!found) return names;
  const cls = found[1] ?? 'train_config';
  for (const c of calls) {
    if (file.calleeName(c) !== cls) continue;
    const st = c.parent;
    const target = st?.name === 'AssignStatement' ? st.firstChild : null;
    if (target?.name === 'VariableName') names.add(file.text.slice(target.from, target.to));
  }
  return names;
}

/**
 * The run of the library's train(): each field of train_config the file sets (`train_config.batch_size_training = 1`),
 * else its default, said at the call; the optimizer the file builds for it; its loop, LOOP's.
 */
export function llamaRecipesFacts(file: PythonFile, calls: readonly SyntaxNode[], train: SyntaxNode): void {
  file.tools.add(LOOP);
  const names = configNames(file, calls);
  const set = new Set<string>();
  walk(
    file.root,
    (n) => {
      if (n.name !== 'AssignStatement') return;
      const target = n.firstChild;
      if (target?.name !== 'MemberExpression') return;
      const object = target.firstChild;
      const prop = target.lastChild;
      if (object?.name !== 'VariableName' || prop?.name !== 'PropertyName') return;
      if (!names.has(file.text.slice(object.from, object.to))) return;
      const field = file.text.slice(prop.from, prop.to);
      const spec = FIELDS[field];
      const valueNode = n.lastChild;
      if (!spec || !valueNode) return;
      set.add(field);
      const e: Entry = { rawKey: field, keySpan: span(prop), valueNode, valueSpan: span(valueNode) };
      const x = file.valueOf(e);
      const value: FactValue | Unknown | undefined =
        x.k === 'lit' ? spec.conv(x.v) : { unknown: x.k === 'unknown' ? x.reason : `${field} is computed at run time` };
      if (value !== undefined) file.push(spec.key, e, value, LOOP, x);
    },
    true,
  );
  const at = span(train.firstChild ?? train);
  for (const [field, spec] of Object.entries(FIELDS)) {
    if (set.has(field)) continue;
    file.facts.push({
      key: spec.key,
      rawKey: field,
      value: spec.dflt,
      rawValue: 'train(...)',
      keySpan: at,
      valueSpan: at,
      tool: LOOP,
      origin: 'call-default',
      defaultNote: `llama-recipes' train_config.${field} defaults to ${spec.dfltText} (${SOURCE})`,
    });
  }
  optimizerCall(file, calls, train, LOOP);
}
