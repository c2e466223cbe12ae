// Answer.AI's fsdp_qlora train.py (AnswerDotAI/fsdp_qlora, and the forks that keep its entry point): fastcore's
// `@call_parse` main() makes each parameter an option `--name`, and fsdp_qlora() builds the run from them by its own
// rules, not through a Trainer: the model loaded per train_type (PEFT LoRA, its own LoRA / DoRA layers, bitsandbytes
// Linear4bit with the quantized storage in the model's dtype, HQQ), the dtypes per precision, FullyShardedDataParallel
// with use_orig_params=False, limit_all_gathers and the constructor's backward prefetch, CPU offload of the parameters,
// checkpoint_wrapper on each decoder layer, torch's Adam / AdamW / SGD, and a loop that keeps the step's outputs
// until after its backward. The values are main()'s defaults, or the launch line's flags (the pipeline reads the file
// again with them). Semantics from AnswerDotAI/fsdp_qlora@05ed9f2 train.py: fsdp_qlora() (the `lora_target_modules`
// "all" list, the no_sync rule), fsdp_main() (precision, loading, FSDP, checkpointing, autocast), get_optimizer,
// get_dataloader (each batch padded to its longest sample, cut at context_length). Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import {
  msg,
  type ArgumentEnvironment,
  type CanonicalKey,
  type ConfigFacts,
  type Fact,
  type FactValue,
  type Unknown,
} from '../facts';
import { parsePython } from '../python-parse';
import { decoratorName, decoratorsOf, topLevelFunctions } from './command-line';
import { PythonFile } from './file';
import { literal } from './module-constants';
import { clip, parameters, span, type Parameter } from './syntax';

/** train.py of fsdp_qlora: fsdp_qlora() with train_type and FSDP, run from a `@call_parse` main(). */
export function isFsdpQloraScript(text: string): boolean {
  return (
    /^def fsdp_qlora\(/m.test(text) &&
    /^@call_parse\b/m.test(text) &&
    /\btrain_type\b/.test(text) &&
    /\bFSDP\(|FullyShardedDataParallel\(/.test(text)
  );
}

/** `--lora_target_modules all` (fsdp_qlora(): "our best guess for Llama models"); "default" is PEFT's own. */
const ALL_TARGETS = ['k_proj', 'q_proj', 'v_proj', 'up_proj', 'down_proj', 'gate_proj'];

/** One option as the run has it: the launch line's value over main()'s default, located at the default. */
interface Option {
  readonly param: Parameter;
  readonly value: FactValue | null | undefined;
  /** Where the launch line set it; absent for main()'s own default. */
  readonly source?: string;
  /** Why the launch line's value is not known. */
  readonly unknown?: string;
}

/** main()'s options with the launch line over them, and the facts pushed at them. */
class Options {
  readonly facts: Fact[] = [];
  constructor(
    private readonly text: string,
    private readonly params: ReadonlyMap<string, Parameter>,
    private readonly launch: ArgumentEnvironment | undefined,
  ) {}

  get(name: string): Option | undefined {
    const param = this.params.get(name);
    if (!param) return undefined;
    const set = this.launch?.get(name);
    if (set?.launched) return { param, value: set.value, source: set.source, unknown: set.unknown };
    return { param, value: param.def ? defaultOf(this.text, param.def) : undefined };
  }

  /** A string option, a number, a fastcore bool_arg ("true", "False", 1 ...); undefined when not known. */
  str(name: string): string | undefined {
    const v = this.get(name)?.value;
    return typeof v === 'string' ? v : undefined;
  }
  num(name: string): number | undefined {
    const v = this.get(name)?.value;
    const n = typeof v === 'string' ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
  }
  bool(name: string): boolean | undefined {
    const v = this.get(name)?.value;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v !== 0;
    if (typeof v !== 'string') return undefined;
    if (/^(true|t|yes|y|1)$/i.test(v)) return true;
    return /^(false|f|no|n|0)$/i.test(v) ? false : undefined;
  }

  /** A fact at the option's default (its name, and its value as written or as the launch line sets it). */
  push(key: CanonicalKey, name: string, value: FactValue | Unknown, extra: Partial<Fact> = {}): void {
    const o = this.get(name);
    if (!o) return;
    const at = o.param.def ?? o.param.nameNode;
    const written = this.text.slice(at.from, at.to);
    this.facts.push({
      key,
      rawKey: name,
      value: o.unknown ? { unknown: o.unknown } : value,
      rawValue: clip(o.source ? `${name} = ${String(o.value)}, ${o.source}` : `${name} = ${written}`),
      keySpan: span(o.param.nameNode),
      valueSpan: span(at),
      tool: 'pytorch',
      ...extra,
    });
  }

  /** What fsdp_qlora() does that no option says, at the option it follows from: an assumption with its source. */
  assume(key: CanonicalKey, name: string, value: FactValue, note: string): void {
    this.push(key, name, value, { origin: 'call-default', defaultNote: note });
  }
}

/** A parameter's default as a literal; `-1` too. */
function defaultOf(text: string, def: SyntaxNode): FactValue | null | undefined {
  const sign = def.name === 'UnaryExpression' ? def.firstChild : null;
  const operand = sign?.nextSibling;
  if (sign && operand?.name === 'Number' && text.slice(sign.from, sign.to) === '-') {
    const n = literal(text, operand);
    return typeof n === 'number' ? -n : undefined;
  }
  return literal(text, def);
}

export function analyzeFsdpQloraScript(text: string, options?: ArgumentEnvironment): ConfigFacts {
  const file = new PythonFile(text);
  file.tools.add('pytorch');
  file.readsConfigurator = true;
  try {
    const top = parsePython(text).tree.topNode;
    file.root = top;
    const main = entryPoint(file);
    if (main) {
      const params = new Map(parameters(text, main.getChild('ParamList')).map((p) => [p.name, p]));
      const o = new Options(text, params, options);
      read(o, file);
      file.facts.push(...o.facts);
    }
  } catch {
    // What was found before a failure is returned.
  }
  return file.result();
}

/** The `@call_parse` function the command line runs (main() in train.py). */
function entryPoint(file: PythonFile): SyntaxNode | undefined {
  return topLevelFunctions(file).find((f) => decoratorsOf(f).some((d) => /^call_parse$/.test(decoratorName(file, d))));
}

function read(o: Options, file: PythonFile): void {
  if (o.get('model_name'))
    o.push('model', 'model_name', o.str('model_name') ?? { unknown: 'model_name is not a string' });
  method(o, file);
  precision(o);
  batch(o);
  sharding(o);
  memorySavers(o);
  optimizer(o, file);
}

/** train_type: the model, its adapters and its quantization. */
function method(o: Options, file: PythonFile): void {
  const type = o.str('train_type');
  if (!type) return;
  const adapters = /lora|dora/.test(type);
  if (type === 'full') o.push('method', 'train_type', 'full');
  else if (/llama_pro/.test(type)) {
    file.problems.push({
      code: 'not-modeled',
      severity: 'warning',
      ...msg('{0}: Llama-Pro block expansion is not modeled; estimated as a full fine-tune', `train_type ${type}`),
      span: span(o.get('train_type')!.param.def ?? o.get('train_type')!.param.nameNode),
    });
    o.push('method', 'train_type', 'full');
  } else if (adapters) {
    const quantized = /qlora|hqq|bnb/.test(type);
    o.push('method', 'train_type', quantized ? 'qlora' : 'lora');
    if (quantized) quantization(o, file, type);
    if (/dora/.test(type)) o.push('loraDora', 'train_type', true);
  }
  if (!adapters) return;
  o.push('loraR', 'lora_rank', o.num('lora_rank') ?? { unknown: 'lora_rank is not a number' });
  o.push('loraAlpha', 'lora_alpha', o.num('lora_alpha') ?? { unknown: 'lora_alpha is not a number' });
  o.push('loraDropout', 'lora_dropout', o.num('lora_dropout') ?? { unknown: 'lora_dropout is not a number' });
  // "default" leaves target_modules to PEFT (q_proj and v_proj for Llama); the custom layers take the list given.
  if (o.str('lora_target_modules') === 'all') o.push('loraTargets', 'lora_target_modules', ALL_TARGETS);
}

/**
 * bitsandbytes Linear4bit (NF4, compressed statistics, the packed weights stored in the model's dtype) in place of
 * every linear layer but the head, or HQQ's n_bits quantization, estimated as NF4 (said). With low_memory (the
 * default) each weight is quantized on the GPU and sent to the host, FSDP building its units from there.
 */
function quantization(o: Options, file: PythonFile, type: string): void {
  const hqq = /hqq/.test(type);
  const bits = hqq ? o.num('n_bits') : 4;
  o.push('quantBits', 'train_type', bits === 4 || bits === 8 ? bits : { unknown: `HQQ at ${String(bits)} bits` });
  o.push('quantType', 'train_type', 'nf4');
  o.push('doubleQuant', 'train_type', true);
  if (hqq) {
    file.problems.push({
      code: 'not-modeled',
      severity: 'warning',
      ...msg('{0}: HQQ quantization is estimated as bitsandbytes NF4 of the same bits', `train_type ${type}`),
      span: span(o.get('train_type')!.param.def ?? o.get('train_type')!.param.nameNode),
    });
  }
  const low = o.bool('low_memory');
  if (low !== undefined) o.assume('bnbLoad', 'low_memory', low ? 'host' : 'gpu', BNB_LOAD_NOTE);
}

const BNB_LOAD_NOTE =
  'fsdp_qlora quantizes each weight on the GPU as it loads, then keeps it on the host with low_memory (rank 0, meta on ' +
  'the others) or on the GPU without (train.py load_and_quantize)';

/** precision: the dtype the model is loaded in, and autocast around the forward. */
function precision(o: Options): void {
  const p = o.str('precision');
  const dtypes: Readonly<Record<string, readonly [string, string]>> = {
    bf16: ['bf16', 'none'],
    fp32: ['fp32', 'none'],
    fp16_autocast: ['fp32', 'fp16'],
    bf16_autocast: ['fp32', 'bf16'],
    bf16_buffers_autocast: ['bf16', 'bf16'],
  };
  const d = p ? dtypes[p] : undefined;
  if (!d) {
    if (p) o.push('weightsDtype', 'precision', { unknown: `precision ${p} is not one train.py accepts` });
    return;
  }
  o.push('weightsDtype', 'precision', d[0]);
  o.push('mixedPrecision', 'precision', d[1]);
}

/** batch_size, context_length, the accumulation, and the padding of get_dataloader's collate_fn. */
function batch(o: Options): void {
  o.push('microBatchSize', 'batch_size', o.num('batch_size') ?? { unknown: 'batch_size is not a number' });
  o.push('seqLen', 'context_length', o.num('context_length') ?? { unknown: 'context_length is not a number' });
  const ga = o.num('gradient_accumulation_steps');
  o.push('gradientAccumulationSteps', 'gradient_accumulation_steps', Math.max(1, ga ?? 1));
  // "dummy" makes every sample longer than context_length; the others are padded to the batch's longest sample.
  const dataset = o.str('dataset');
  if (dataset) o.push('batchLengths', 'dataset', dataset === 'dummy' ? 'fixed' : 'variable');
  o.assume('useCache', 'model_name', false, 'fsdp_main() loads the model with use_cache=False');
  o.assume(
    'loopKeepsOutputs',
    'model_name',
    'step',
    "the loop's `output = model(...)` lives through the backward, until `output = None` after the optimizer step",
  );
  o.assume('attention', 'model_name', 'sdpa', 'fsdp_main() sets attn_impl = "sdpa"');
}

const STRATEGIES: Readonly<Record<string, string>> = {
  full_shard: 'full_shard',
  shard_grad_op: 'shard_grad_op',
  ddp: 'no_shard',
  hybrid_full_shard: 'hybrid_shard',
  hybrid_shard_grad_op: 'hybrid_shard',
};

/** FullyShardedDataParallel as fsdp_main() builds it, over world_size GPUs (-1: every GPU of the machine). */
function sharding(o: Options): void {
  const world = o.num('world_size');
  if (world !== undefined && world >= 1) o.push('gpusPerNode', 'world_size', world);
  else if (world !== undefined)
    o.push('gpusPerNode', 'world_size', { unknown: 'world_size -1 runs on every GPU of the machine' });
  const s = o.str('sharding_strategy');
  if (s) o.push('fsdp', 'sharding_strategy', STRATEGIES[s] ?? { unknown: `sharding_strategy ${s}` });
  o.assume('fsdpVersion', 'sharding_strategy', 1, 'fsdp_main() wraps the model in FullyShardedDataParallel');
  o.assume('fsdpUseOrigParams', 'sharding_strategy', false, 'fsdp_main() passes use_orig_params=False');
  o.assume(
    'fsdpBackwardPrefetch',
    'sharding_strategy',
    'pre',
    "fsdp_main() leaves backward_prefetch at FullyShardedDataParallel's default, BACKWARD_PRE",
  );
  const offload = o.bool('use_cpu_offload');
  if (offload !== undefined) o.push('fsdpOffload', 'use_cpu_offload', offload);
  const low = o.bool('low_memory');
  if (low !== undefined) o.push('fsdpCpuRamEfficientLoading', 'low_memory', low);
  // fsdp_qlora(): CPU offload with accumulation forces no_sync; no_sync without accumulation is dropped.
  const ga = o.num('gradient_accumulation_steps') ?? 1;
  const noSync = o.bool('no_sync');
  if (offload && ga > 1) o.assume('fsdpNoSync', 'use_cpu_offload', true, 'fsdp_qlora() sets no_sync with CPU offload');
  else if (noSync !== undefined) o.push('fsdpNoSync', 'no_sync', noSync && ga > 1);
}

/** checkpoint_wrapper on each decoder layer (reentrant or not), and offload_wrapper's activation offloading. */
function memorySavers(o: Options): void {
  const ckpt = o.bool('use_gradient_checkpointing');
  if (ckpt !== undefined) o.push('gradientCheckpointing', 'use_gradient_checkpointing', ckpt ? 'full' : 'none');
  const reentrant = o.bool('reentrant_checkpointing');
  if (ckpt && reentrant !== undefined) o.push('checkpointReentrant', 'reentrant_checkpointing', reentrant);
  const act = o.bool('use_activation_cpu_offload');
  if (act !== undefined) o.push('activationOffloading', 'use_activation_cpu_offload', act);
}

/** get_optimizer: torch Adam / AdamW (fused when named so), SGD, Adadelta (two states, counted as AdamW's). */
function optimizer(o: Options, file: PythonFile): void {
  const name = o.str('optimizer');
  if (!name) return;
  const known: Readonly<Record<string, string>> = {
    adamw: 'adamw',
    adam: 'adamw',
    fused_adamw: 'adamw_fused',
    fused_adam: 'adamw_fused',
    sgd: 'sgd',
    adadelta: 'adamw',
  };
  o.push('optimizer', 'optimizer', known[name] ?? { unknown: `optimizer ${name} is not one get_optimizer builds` });
  if (name === 'adadelta')
    file.problems.push({
      code: 'not-modeled',
      severity: 'info',
      ...msg('{0}: Adadelta keeps two states per parameter, counted as AdamW', 'optimizer adadelta'),
      span: span(o.get('optimizer')!.param.def ?? o.get('optimizer')!.param.nameNode),
    });
}
