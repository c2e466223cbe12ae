// LitGPT's Python API in a script that writes its own loop (Lightning-AI/litgpt@2685705
// tutorials/full_finetune_example.py, and the scripts built like it): the model is LitGPT's own GPT made from a Config
// (`Config.from_file("checkpoints/<org>/<name>/model_config.yaml")`, `Config.from_checkpoint(dir)`,
// `Config.from_name("name")`, `GPT.from_name("name")`), Lightning Fabric runs it with Fabric's own defaults (not the
// litgpt CLI's), and a LitGPT DataModule's `connect(tokenizer, batch_size, max_seq_length)` sets the batch. The loop,
// the optimizer and the outputs it keeps are read by loop.ts as for any written-out loop.
// Semantics: litgpt/config.py (Config.from_file, from_checkpoint, from_name), litgpt/lora.py (Config's lora_* fields,
// all switched off by default), litgpt/data/base.py (DataModule.connect(tokenizer=None, batch_size=1,
// max_seq_length=-1)), lightning/fabric/fabric.py and connector.py (Fabric(devices="auto", strategy="auto",
// precision=None): "32-true", every visible GPU, DDP over more than one; the strategy names registered by
// strategies/fsdp.py and strategies/deepspeed.py). Pure: it reads the syntax tree, never runs code.
import type { SyntaxNode } from '@lezer/common';
import { msg, type CanonicalKey, type FactValue, type Tool } from '../facts';
import {
  LITGPT_PRECISION,
  LORA_SWITCHES,
  litgptCheckpointModel,
  litgptLoraTargets,
  litgptModelName,
} from '../yaml/litgpt';
import { argument, calleeFact } from './calls';
import type { Entry, PythonFile, Val } from './file';
import { assignedName, span } from './syntax';
import { boolOf, numberOf } from './values';

const TOOL = 'pytorch' satisfies Tool;
const FABRIC = 'Lightning-AI/pytorch-lightning src/lightning/fabric/connector.py _Connector';

/** The script imports the litgpt package (`from litgpt.model import GPT, Config`, `import litgpt`). */
export function importsLitgpt(text: string): boolean {
  return /^\s*(?:from\s+litgpt\b[\w.]*\s+import|import\s+litgpt\b)/m.test(text);
}

/** LitGPT's LoRA model (`from litgpt.lora import GPT, Config`): its Config takes the lora_* fields. */
function importsLitgptLora(text: string): boolean {
  return /^\s*from\s+litgpt\.lora\s+import\b/m.test(text);
}

/** `GPT(config)`, `GPT.from_name(...)`: LitGPT's model, where the script imports litgpt. */
export function isLitgptModel(file: PythonFile, parts: readonly string[]): boolean {
  const last = parts[parts.length - 1];
  const model = last === 'GPT' || (last === 'from_name' && parts[parts.length - 2] === 'GPT');
  return model && importsLitgpt(file.text);
}

/** The Config / GPT constructors that name LitGPT's model, by method. */
const MODEL_SOURCES = new Set(['from_file', 'from_checkpoint', 'from_name']);

/** Whether this call names the model: Config.from_file / from_checkpoint / from_name or GPT.from_name. */
export function isLitgptConfigCall(file: PythonFile, parts: readonly string[]): boolean {
  const owner = parts[parts.length - 2];
  return (
    MODEL_SOURCES.has(parts[parts.length - 1]) && (owner === 'Config' || owner === 'GPT') && importsLitgpt(file.text)
  );
}

/**
 * The first call that names the model: its Hub id (the checkpoint folder's `<org>/<name>` of LitGPT's download
 * layout, or a LitGPT model name), LitGPT's own model code, and the method with its LoRA fields.
 */
export function litgptModelCall(file: PythonFile, call: SyntaxNode): void {
  if (file.facts.some((f) => f.key === 'model')) return;
  const parts = file.calleeName(call)?.split('.') ?? [];
  const how = parts[parts.length - 1];
  const args = file.args(call);
  const arg = argument(args)(how === 'from_name' ? 'name' : 'path', 0);
  const at = arg ?? calleeEntry(call);
  file.push('modelCode', at, 'litgpt', TOOL);
  // LitGPT's GPT is made in torch's default dtype; only a 16-bit "-true" Fabric precision converts it.
  if (!fabricConvertsTo16(file)) file.push('weightsDtype', at, 'fp32', TOOL);
  if (arg) {
    const v = file.valueOf(arg);
    const id = v.k === 'lit' && typeof v.v === 'string' ? modelOf(how, v.v) : undefined;
    if (id) file.push('model', arg, id, TOOL, v);
    else if (v.k === 'lit' && typeof v.v === 'string')
      file.push('model', arg, { unknown: `${v.v} is not a checkpoints/<org>/<name> folder of LitGPT's layout` }, TOOL);
    else file.push('model', arg, { unknown: file.describe(v) }, TOOL, v);
  }
  if (!importsLitgptLora(file.text)) {
    file.push('method', at, 'full', TOOL);
    return;
  }
  file.push('method', at, 'lora', TOOL);
  loraFields(file, args.entries);
}

/** Config.from_file's path (…/model_config.yaml), from_checkpoint's folder, or from_name's model name, as a Hub id. */
function modelOf(how: string, value: string): string | undefined {
  const s = value.trim().replace(/\\/g, '/');
  if (how === 'from_name') return s ? litgptModelName(s) : undefined;
  const dir = how === 'from_file' ? s.replace(/\/[^/]*$/, '') : s;
  const id = litgptCheckpointModel(dir);
  return /^[^/]+\/[^/]+$/.test(id) && id !== dir ? id : undefined;
}

/** lora_r, lora_alpha, lora_dropout and the switches lora_query ... lora_head: Config's fields, off by default. */
function loraFields(file: PythonFile, entries: readonly Entry[]): void {
  const get = (k: string): Entry | undefined => entries.find((e) => e.rawKey === k);
  const number = (key: CanonicalKey, raw: string, integer: boolean): void => {
    const e = get(raw);
    if (!e) return;
    const v = file.valueOf(e);
    const n = numberOf(file, v, e, integer);
    if (n !== undefined) file.push(key, e, n, TOOL, v);
  };
  number('loraR', 'lora_r', true);
  number('loraAlpha', 'lora_alpha', false);
  number('loraDropout', 'lora_dropout', false);
  const switches = new Map<string, unknown>();
  for (const [key] of LORA_SWITCHES) {
    const e = get(key);
    if (e) switches.set(key, boolOf(file, file.valueOf(e), e) ?? false);
  }
  const first = LORA_SWITCHES.map(([k]) => get(k)).find((e): e is Entry => e !== undefined);
  if (!first) return;
  if ([...switches.values()].some((v) => typeof v !== 'boolean')) {
    file.push('loraTargets', first, { unknown: 'a lora_* switch is not a literal True or False' }, TOOL);
    return;
  }
  // LitGPT's lora.Config switches every projection off; only those the call turns on get adapters.
  file.push(
    'loraTargets',
    first,
    litgptLoraTargets((k) => switches.get(k) === true),
    TOOL,
  );
}

function calleeEntry(call: SyntaxNode): Entry {
  const at = span(call.firstChild!);
  return { rawKey: '', keySpan: at, valueNode: null, valueSpan: at };
}

/**
 * `Fabric(...)` / `L.Fabric(...)`: the precision (Fabric's default "32-true": fp32 throughout), the devices (an integer
 * count; "auto" and -1 take every visible GPU, which the file does not say) and the strategy ("fsdp" or
 * FSDPStrategy(...): FSDP1, "deepspeed_stage_N": ZeRO stage N; "auto" and "ddp" replicate the model).
 */
export function fabricCall(file: PythonFile, call: SyntaxNode): void {
  const arg = argument(file.args(call));
  const precision = arg('precision');
  const plugins = arg('plugins');
  if (precision) fabricPrecision(file, precision);
  else if (plugins)
    file.push(
      'mixedPrecision',
      plugins,
      { unknown: 'plugins= may set the precision (a Precision plugin): not read' },
      TOOL,
    );
  else
    calleeFact(
      file,
      call,
      'mixedPrecision',
      'precision',
      'none',
      `Fabric: precision None is "32-true" (${FABRIC})`,
      TOOL,
      'call-default',
    );
  const devices = arg('devices');
  if (devices) fabricDevices(file, devices);
  const nodes = arg('num_nodes');
  if (nodes) {
    const v = file.valueOf(nodes);
    const n = numberOf(file, v, nodes, true);
    if (n !== undefined) file.push('nodes', nodes, n, TOOL, v);
  }
  const strategy = arg('strategy');
  if (strategy) fabricStrategy(file, strategy);
}

/**
 * Fabric's precision: "bf16-true" / "16-true" convert the module to 16 bits (HalfPrecision.convert_module); "32-true"
 * and the "-mixed" ones leave the weights in the dtype they were made or loaded in, the mixed ones under autocast.
 */
function fabricPrecision(file: PythonFile, e: Entry): void {
  const v = file.valueOf(e);
  const pair = fabricPair(v);
  if (!pair) {
    const name = v.k === 'lit' ? String(v.v) : undefined;
    const why = name !== undefined ? `${name} is not a Fabric precision VRAM Lens reads` : file.describe(v);
    file.push('mixedPrecision', e, { unknown: why }, TOOL, v);
    return;
  }
  if (pair[1] === 'none' && pair[0] !== 'fp32') file.push('weightsDtype', e, pair[0], TOOL, v);
  file.push('mixedPrecision', e, pair[1], TOOL, v);
}

/** [weights dtype, autocast dtype] of a literal Fabric precision ("bf16-mixed", 32, "16-true" ...). */
function fabricPair(v: Val): readonly [string, string] | undefined {
  const raw = v.k === 'lit' ? v.v : undefined;
  const name = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
  return name !== undefined ? LITGPT_PRECISION[name] : undefined;
}

/** Whether a Fabric call of the script converts the module to 16 bits (a literal "bf16-true" / "16-true"). */
function fabricConvertsTo16(file: PythonFile): boolean {
  return file.calls.some((c) => {
    if (file.calleeName(c)?.split('.').pop() !== 'Fabric') return false;
    const e = argument(file.args(c))('precision');
    const pair = e ? fabricPair(file.valueOf(e)) : undefined;
    return pair !== undefined && pair[1] === 'none' && pair[0] !== 'fp32';
  });
}

function fabricDevices(file: PythonFile, e: Entry): void {
  const v = file.valueOf(e);
  if (v.k === 'lit' && typeof v.v === 'number' && Number.isInteger(v.v) && v.v >= 1) {
    file.push('gpusPerNode', e, v.v, TOOL, v);
    return;
  }
  const every = v.k === 'lit' && (v.v === 'auto' || v.v === -1 || v.v === '-1');
  const why = every ? `devices=${String(v.v)}: every GPU the machine has` : file.describe(v);
  file.push('gpusPerNode', e, { unknown: why }, TOOL, v);
}

function fabricStrategy(file: PythonFile, e: Entry): void {
  const node = e.valueNode;
  if (node?.name === 'CallExpression') {
    const last = file.calleeName(node)?.split('.').pop();
    if (last === 'FSDPStrategy') return fsdpStrategy(file, e, node);
    if (last === 'DDPStrategy') return;
    file.push('fsdp', e, { unknown: `${last ?? 'this strategy'} is not a Fabric strategy VRAM Lens reads` }, TOOL);
    return;
  }
  const v = file.valueOf(e);
  const name = v.k === 'lit' && typeof v.v === 'string' ? v.v.trim().toLowerCase() : undefined;
  if (name === undefined) file.push('fsdp', e, { unknown: file.describe(v) }, TOOL, v);
  else if (name === 'fsdp' || name === 'fsdp_cpu_offload') {
    file.push('fsdp', e, 'full_shard', TOOL, v);
    file.push('fsdpVersion', e, 1, TOOL, v);
    if (name === 'fsdp_cpu_offload') file.push('offloadParams', e, 'cpu', TOOL, v);
  } else if (DEEPSPEED_NAMES[name]) {
    const [stage, optimizer, params] = DEEPSPEED_NAMES[name];
    file.push('zeroStage', e, stage, TOOL, v);
    if (optimizer !== 'none') file.push('offloadOptimizer', e, optimizer, TOOL, v);
    if (params !== 'none') file.push('offloadParams', e, params, TOOL, v);
  } else if (!/^(auto|ddp|ddp_spawn|ddp_fork|ddp_notebook|dp|single_device)$/.test(name))
    file.problem(
      'not-modeled',
      'warning',
      msg('Fabric strategy {0} is not modeled', JSON.stringify(name)),
      e.valueSpan,
      'strategy',
    );
}

/** Fabric's registered DeepSpeed strategy names: [ZeRO stage, optimizer offload, parameter offload]. */
const DEEPSPEED_NAMES: Readonly<Record<string, readonly [number, string, string]>> = {
  deepspeed: [2, 'none', 'none'],
  deepspeed_stage_1: [1, 'none', 'none'],
  deepspeed_stage_2: [2, 'none', 'none'],
  deepspeed_stage_2_offload: [2, 'cpu', 'none'],
  deepspeed_stage_3: [3, 'none', 'none'],
  deepspeed_stage_3_offload: [3, 'cpu', 'cpu'],
  deepspeed_stage_3_offload_nvme: [3, 'nvme', 'nvme'],
};

/** FSDPStrategy(sharding_strategy=, cpu_offload=, activation_checkpointing_policy=): Fabric's FSDP1. */
function fsdpStrategy(file: PythonFile, e: Entry, call: SyntaxNode): void {
  const arg = argument(file.args(call));
  const sharding = arg('sharding_strategy');
  const v = sharding ? file.valueOf(sharding) : undefined;
  const name = v?.k === 'lit' && typeof v.v === 'string' ? v.v.toLowerCase() : 'full_shard';
  const known: Record<string, FactValue> = {
    full_shard: 'full_shard',
    shard_grad_op: 'shard_grad_op',
    hybrid_shard: 'hybrid_shard',
    no_shard: 'no_shard',
  };
  file.push('fsdp', sharding ?? e, known[name] ?? { unknown: `sharding_strategy ${name} is not read` }, TOOL, v);
  file.push('fsdpVersion', e, 1, TOOL);
  const offload = arg('cpu_offload');
  if (offload) {
    const b = boolOf(file, file.valueOf(offload), offload);
    if (b !== undefined) file.push('offloadParams', offload, b ? 'cpu' : 'none', TOOL);
  }
  const checkpointing = arg('activation_checkpointing_policy') ?? arg('activation_checkpointing');
  if (checkpointing) file.push('gradientCheckpointing', checkpointing, 'full', TOOL);
}

/**
 * A LitGPT DataModule's `connect(tokenizer, batch_size, max_seq_length)`: the micro-batch, and the longest a batch
 * can be (samples are cut to max_seq_length; -1, the default, leaves them to the data set).
 */
export function dataConnect(file: PythonFile, call: SyntaxNode): void {
  const arg = argument(file.args(call));
  const size = arg('batch_size', 1);
  if (!size) return;
  const data = sftData(file, call);
  // LitGPT's SFT collate pads each batch to its longest sample (litgpt/data/base.py get_sft_collate_fn).
  if (data) calleeFact(file, call, 'batchLengths', data, 'variable', `${data}().connect(...)`, TOOL);
  const x = file.valueOf(size);
  const n = numberOf(file, x, size, true);
  if (n !== undefined) file.push('microBatchSize', size, n, TOOL, x);
  const length = arg('max_seq_length', 2);
  if (!length) return;
  const y = file.valueOf(length);
  const m = numberOf(file, y, length, true);
  // -1 (the default) cuts nothing: the data set decides the longest batch.
  if (m !== undefined && (typeof m !== 'number' || m >= 1)) file.push('seqLen', length, m, TOOL, y);
}

/** LitGPT's instruction-tuning data modules: each batch is padded to its longest sample, cut to max_seq_length. */
const SFT_DATA = new Set(['Alpaca', 'Alpaca2k', 'AlpacaGPT4', 'Deita', 'Dolly', 'FLAN', 'JSON', 'LIMA', 'LongForm']);

/** The SFT data module `connect` is called on (`data = Alpaca()` ... `data.connect(...)`), by class name. */
function sftData(file: PythonFile, call: SyntaxNode): string | undefined {
  const receiver = file.calleeName(call)?.split('.').slice(0, -1).join('.');
  if (!receiver) return undefined;
  for (const c of file.calls) {
    const last = file.calleeName(c)?.split('.').pop() ?? '';
    if (SFT_DATA.has(last) && assignedName(c, file.text) === receiver) return last;
  }
  return undefined;
}
