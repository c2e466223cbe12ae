// Lit-GPT's fine-tuning scripts of 2023 (finetune/lora.py and finetune/full.py of Lightning-AI/lit-gpt before its
// config files, 73baa2d of February 2024, and the copies projects made of them): no config file, the hyperparameters
// are module-level constants (micro_batch_size, batch_size, devices, lora_r ... lora_head) and setup()'s defaults name
// the checkpoint (`checkpoint_dir: Path = Path("checkpoints/<org>/<name>")`), the precision and the quantization.
// Semantics from Lightning-AI/lit-gpt@8641822 (finetune/lora.py setup() and train(), lit_gpt/utils.py
// get_default_supported_precision); what the scripts share with LitGPT's config files comes from yaml/litgpt.ts. Only
// literals are read; the script is never run. Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import { parsePython } from '../python-parse';
import { msg, type CanonicalKey, type ConfigFacts, type FactValue, type Span, type Unknown } from '../facts';
import {
  LITGPT_PRECISION,
  LORA_SWITCHES,
  litgptCheckpointModel,
  litgptLoraTargets,
  litgptQuantize,
} from '../yaml/litgpt';
import { type Entry, PythonFile } from './file';
import { evaluateNumber, moduleConstants, named, positiveInt, type Named } from './module-constants';
import { children, span } from './syntax';

/** A Lit-GPT import (`from lit_gpt.lora import GPT`, `import lit_gpt`) and a `def setup(`: one of its scripts. */
export function isLitgptScript(text: string): boolean {
  return (
    text.includes('lit_gpt') &&
    /^\s*(?:from\s+lit_gpt\b[\w.]*\s+import|import\s+lit_gpt\b)/m.test(text) &&
    /^def\s+setup\s*\(/m.test(text)
  );
}

/** The script's module constants and setup()'s parameter defaults. */
interface ScriptNames {
  readonly constants: Map<string, Named>;
  readonly setup: Map<string, Named>;
  readonly setupSpan: Span | undefined;
}

export function analyzeLitgptScript(text: string): ConfigFacts {
  const file = new PythonFile(text);
  file.tools.add('litgpt');
  try {
    const parsed = parsePython(text);
    file.problems.push(...parsed.problems);
    const names = scriptNames(file, parsed.tree.topNode);
    read(file, names);
  } catch {
    // What was found before a failure is returned.
  }
  return file.result();
}

function read(file: PythonFile, names: ScriptNames): void {
  const quantBits = quantize(file, names);
  method(file, names, quantBits);
  const { constants: c } = names;
  put(file, 'microBatchSize', c.get('micro_batch_size'), positiveInt);
  accumulation(file, c);
  devices(file, names, quantBits !== undefined);
  lora(file, c);
  precision(file, names.setup, quantBits !== undefined);
  optimizer(file, quantBits !== undefined);
  sequence(file, c);
  longestFirst(file);
}

function scriptNames(file: PythonFile, top: SyntaxNode): ScriptNames {
  const constants = moduleConstants(file, top);
  const setup = new Map<string, Named>();
  let setupSpan: Span | undefined;
  for (const st of children(top)) {
    if (st.name !== 'FunctionDefinition') continue;
    const nameNode = st.getChild('VariableName');
    if (!nameNode || file.text.slice(nameNode.from, nameNode.to) !== 'setup') continue;
    setupSpan = span(nameNode);
    const params = children(st.getChild('ParamList') ?? st);
    params.forEach((p, i) => {
      if (p.name !== 'VariableName') return;
      const name = file.text.slice(p.from, p.to);
      const op = params.slice(i + 1).find((n) => n.name === 'AssignOp' || n.name === ',' || n.name === ')');
      const value = op?.name === 'AssignOp' ? op.nextSibling : null;
      setup.set(name, named(file, name, p, value));
    });
  }
  return { constants, setup, setupSpan };
}

type Check = (v: FactValue | null | undefined) => FactValue | undefined;

const nonNegative: Check = (v) => (typeof v === 'number' && v >= 0 ? v : undefined);

/** A constant's fact, or a problem at it where it is not a literal of the kind the key takes. */
function put(file: PythonFile, key: CanonicalKey, n: Named | undefined, check: Check): void {
  if (!n) return;
  const v = check(n.value);
  if (v !== undefined) {
    file.push(key, n.entry, v, 'litgpt');
    return;
  }
  const unknown: Unknown = { unknown: `${n.entry.rawKey} is not a literal VRAM Lens reads` };
  file.push(key, n.entry, unknown, 'litgpt');
}

/** The checkpoint (the Hub id of `checkpoints/<org>/<name>`) and the method: lit_gpt.lora's GPT, else a full fine-tune. */
function method(file: PythonFile, names: ScriptNames, quantBits: 4 | 8 | undefined): void {
  const dir = names.setup.get('checkpoint_dir');
  if (dir && typeof dir.value === 'string' && dir.value.trim()) {
    file.push('model', dir.entry, litgptCheckpointModel(dir.value), 'litgpt', undefined, 'script-default');
  } else if (names.setupSpan) {
    const at: Entry = dir?.entry ?? {
      rawKey: 'checkpoint_dir',
      keySpan: names.setupSpan,
      valueNode: null,
      valueSpan: names.setupSpan,
    };
    file.push(
      'model',
      at,
      { unknown: 'setup() gives checkpoint_dir no literal default: pass --checkpoint_dir' },
      'litgpt',
    );
  }
  const imported = /^\s*from\s+lit_gpt\.(lora|adapter_v2|adapter)\s+import\b/m.exec(file.text);
  const at = importEntry(file, imported);
  if (imported?.[1] === 'lora') file.push('method', at, quantBits === 4 ? 'qlora' : 'lora', 'litgpt');
  else if (imported)
    file.problem(
      'not-modeled',
      'warning',
      msg('{0}: LitGPT adapter fine-tuning is not modeled; the estimate is not for this run', `lit_gpt.${imported[1]}`),
      at.valueSpan,
      'lit_gpt',
    );
  else file.push('method', at, 'full', 'litgpt');
}

/** The `lit_gpt...` module of the import that decides the method (the first Lit-GPT import otherwise), located. */
function importEntry(file: PythonFile, m: RegExpExecArray | null): Entry {
  const found = m ?? /^\s*(?:from|import)\s+lit_gpt\b[\w.]*/m.exec(file.text);
  const line = found?.[0] ?? '';
  const name = /lit_gpt[\w.]*/.exec(line)?.[0] ?? 'lit_gpt';
  const start = (found?.index ?? 0) + Math.max(0, line.indexOf(name));
  const at: Span = { start, end: start + (found ? name.length : 0) };
  return { rawKey: found ? name : '', keySpan: at, valueNode: null, valueSpan: at };
}

/**
 * `gradient_accumulation_iters = batch_size // micro_batch_size` (batch_size may be divided by `devices` first, as
 * full.py does): worked out from the constants.
 */
function accumulation(file: PythonFile, c: Map<string, Named>): void {
  const n = c.get('gradient_accumulation_iters');
  if (!n?.entry.valueNode) return;
  const v = evaluateNumber(file.text, n.entry.valueNode, c);
  if (v !== undefined && Number.isFinite(v) && v >= 1)
    file.push('gradientAccumulationSteps', n.entry, Math.floor(v), 'litgpt');
}

/**
 * `devices`: more than one runs Fabric's FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block}):
 * FSDP1, every Block checkpointed. Lit-GPT refuses quantization over several GPUs.
 */
function devices(file: PythonFile, names: ScriptNames, quantized: boolean): void {
  const d = names.constants.get('devices');
  if (!d) return;
  const count = positiveInt(d.value);
  if (count === undefined) {
    file.push('gpusPerNode', d.entry, { unknown: 'devices is not a literal number of GPUs' }, 'litgpt');
    return;
  }
  file.push('gpusPerNode', d.entry, count, 'litgpt');
  if (count === 1) return;
  file.push('fsdp', d.entry, 'full_shard', 'litgpt');
  file.push('fsdpVersion', d.entry, 1, 'litgpt');
  if (/activation_checkpointing(?:_policy)?\s*=/.test(file.text))
    file.push('gradientCheckpointing', d.entry, 'full', 'litgpt');
  if (quantized)
    file.problem(
      'invalid-value',
      'error',
      msg(
        'LitGPT trains quantized models on one GPU only ("Quantization is currently not supported for multi-GPU training")',
      ),
      d.entry.valueSpan,
      'devices',
    );
}

/** lora_r, lora_alpha, lora_dropout and the switches lora_query ... lora_head, as LitGPT's config files name them. */
function lora(file: PythonFile, c: Map<string, Named>): void {
  put(file, 'loraR', c.get('lora_r'), positiveInt);
  put(file, 'loraAlpha', c.get('lora_alpha'), nonNegative);
  put(file, 'loraDropout', c.get('lora_dropout'), nonNegative);
  const first = LORA_SWITCHES.map(([k]) => c.get(k)).find((n): n is Named => n !== undefined);
  if (!first) return;
  const on = (key: string): boolean | undefined => {
    const v = c.get(key)?.value;
    return typeof v === 'boolean' ? v : undefined;
  };
  file.push('loraTargets', first.entry, litgptLoraTargets(on), 'litgpt');
}

/** setup()'s `quantize` default: Fabric's BitsandbytesPrecision ("bnb.nf4", "bnb.nf4-dq", ...); None trains unquantized. */
function quantize(file: PythonFile, names: ScriptNames): 4 | 8 | undefined {
  const q = names.setup.get('quantize');
  if (!q || q.value === null || q.value === undefined) return undefined;
  const parsed = typeof q.value === 'string' ? litgptQuantize(q.value) : undefined;
  if (!parsed) {
    file.problem(
      'invalid-value',
      'error',
      msg(
        '{0}: expected bnb.nf4, bnb.nf4-dq, bnb.fp4, bnb.fp4-dq or bnb.int8-training, found {1}',
        'quantize',
        file.text.slice(q.entry.valueSpan.start, q.entry.valueSpan.end),
      ),
      q.entry.valueSpan,
      'quantize',
    );
    return undefined;
  }
  file.push('quantBits', q.entry, parsed.bits, 'litgpt', undefined, 'script-default');
  if (parsed.type) file.push('quantType', q.entry, parsed.type, 'litgpt', undefined, 'script-default');
  file.push('doubleQuant', q.entry, parsed.doubleQuant, 'litgpt', undefined, 'script-default');
  return parsed.bits;
}

/**
 * setup()'s `precision` default: a Fabric precision name, or None for get_default_supported_precision(training=True)
 * (bf16-mixed on a GPU with bf16: LitGPT's default, which the tool's defaults give). Quantization refuses a mixed one.
 */
function precision(file: PythonFile, setup: Map<string, Named>, quantized: boolean): void {
  const p = setup.get('precision');
  const name = typeof p?.value === 'string' ? p.value.trim().toLowerCase() : undefined;
  const pair = name ? LITGPT_PRECISION[name] : undefined;
  if (p && pair) {
    file.push('weightsDtype', p.entry, pair[0], 'litgpt', undefined, 'script-default');
    file.push('mixedPrecision', p.entry, pair[1], 'litgpt', undefined, 'script-default');
  }
  if (p && quantized && (p.value === null || (pair !== undefined && pair[1] !== 'none')))
    file.problem(
      'invalid-value',
      'error',
      msg(
        'LitGPT refuses quantization with mixed precision ("Quantization and mixed precision is not supported."): use bf16-true',
      ),
      p.entry.valueSpan,
      'precision',
    );
}

/** The optimizer the script constructs: bitsandbytes' PagedAdamW for a quantized model, torch's AdamW otherwise. */
function optimizer(file: PythonFile, quantized: boolean): void {
  const m = (quantized ? /\bbnb\.optim\.PagedAdamW\b/ : /\btorch\.optim\.AdamW\b/).exec(file.text);
  if (m) file.push('optimizer', located(m, m[0]), quantized ? 'paged_adamw' : 'adamw', 'litgpt');
}

/** A regex match as an entry: the key is `rawKey` where the match begins, the value the match from `valueFrom` on. */
function located(m: RegExpExecArray, rawKey: string, valueFrom = 0): Entry {
  const keySpan: Span = { start: m.index, end: m.index + rawKey.length };
  return { rawKey, keySpan, valueNode: null, valueSpan: { start: m.index + valueFrom, end: m.index + m[0].length } };
}

/**
 * The sequence: `model.max_seq_length = longest_seq_length` (later `min(longest_seq_length, max_seq_length or inf)`)
 * sets it to the longest training sample, which the data set decides (unknown here); a literal `max_seq_length` /
 * `override_max_seq_length` constant truncates to it, the most a batch holds.
 */
function sequence(file: PythonFile, c: Map<string, Named>): void {
  const cap = c.get('override_max_seq_length') ?? c.get('max_seq_length');
  if (cap && positiveInt(cap.value) !== undefined) {
    file.push('seqLen', cap.entry, positiveInt(cap.value)!, 'litgpt');
    return;
  }
  const m = /\bmax_seq_length\s*=[^\n]*\blongest_seq_length\b[^\n]*/.exec(file.text);
  if (!m) return;
  const rest = m[0].slice(m[0].indexOf('=') + 1);
  file.push(
    'seqLen',
    located(m, 'max_seq_length', m[0].length - rest.trimStart().length),
    { unknown: "the longest sample in the dataset (up to the model's context length): set vramLens.seqLen" },
    'litgpt',
  );
}

/** `get_batch(..., longest_seq_ix if iter_num == 0 else None)`: the longest sample is the first batch (fa5d73e). */
function longestFirst(file: PythonFile): void {
  const m = /\blongest_seq_ix\s+if\s+iter_num\s*==\s*0\b/.exec(file.text);
  if (m) file.push('longestBatchFirst', located(m, 'longest_seq_ix'), true, 'litgpt');
}
