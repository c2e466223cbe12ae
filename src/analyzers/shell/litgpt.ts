// LitGPT command lines: `litgpt finetune_lora|finetune|finetune_full|finetune_adapter|pretrain <checkpoint_dir>
// --config cfg.yaml --train.micro_batch_size 4 --devices 2 --precision bf16-true --quantize bnb.nf4 ...`. The flags
// are jsonargparse's spelling of the keys of LitGPT's config YAML and mean the same (Lightning-AI/litgpt@2685705:
// litgpt/__main__.py, litgpt/finetune/lora.py setup()); the YAML analyzer's tables are reused. `--config` is a
// reference to that YAML, which the pipeline reads as a config file, so the flags here win over it. Pure: no I/O,
// no node:*, no 'vscode'.
import { msg, normalizeOptimizer, type FactValue } from '../facts';
import {
  LITGPT_PAGED_ADAMW,
  LITGPT_PRECISION,
  LORA_SWITCHES,
  litgptCheckpointModel,
  litgptFsdp1Note,
  litgptModelName,
  litgptQuantize,
  TRAIN_OPTIMIZER_KEYS,
} from '../yaml/litgpt';
import { known, parseArgs, type Consume, type Opt } from './args';
import type { Field } from './fields';
import { spec, type FlagSpec } from './flags';
import type { CmdResult, Launch } from './launch';

/** The training subcommands; `finetune` is finetune_lora (litgpt/__main__.py). */
const LORA = new Set(['finetune', 'finetune_lora']);
const FULL = new Set(['finetune_full', 'pretrain']);
const ADAPTER = new Set(['finetune_adapter', 'finetune_adapter_v2']);

/** Whether `litgpt <sub>` is a training command. */
export const isLitgptTrain = (sub: string | undefined): boolean =>
  sub !== undefined && (LORA.has(sub) || FULL.has(sub) || ADAPTER.has(sub));

/** Flags read through a spec, as the YAML keys of the same name (yaml/litgpt.ts). */
const LITGPT_FLAGS: Record<string, FlagSpec> = {
  'train.micro_batch_size': spec('microBatchSize', 'int'),
  'train.global_batch_size': spec('trainBatchSize', 'int'),
  'train.max_seq_length': spec('seqLen', 'int'),
  lora_r: spec('loraR', 'int'),
  lora_alpha: spec('loraAlpha', 'num'),
  lora_dropout: spec('loraDropout', 'num'),
  num_nodes: spec('nodes', 'int'),
};
const SWITCHES = new Set(LORA_SWITCHES.map(([k]) => k));

const consume = (name: string): Consume => (SWITCHES.has(name) ? 'bool' : 'one');

/** `litgpt <sub> ...` from fields[i] (the `litgpt` word). */
export function litgptLaunch(l: Launch, fields: readonly Field[], i: number, opaque: (f: Field) => void): CmdResult {
  l.tool('litgpt');
  const subField = fields[i + 1];
  const sub = subField.text;
  const p = parseArgs(fields, i + 2, consume, false, false, opaque);
  const last = (name: string): Opt | undefined => [...p.opts].reverse().find((o) => o.name === name);
  const quantize = litgptQuantize(known(last('quantize')) ?? '');
  if (ADAPTER.has(sub)) {
    l.warnNotModeled(
      msg('{0}: LitGPT adapter fine-tuning is not modeled; the estimate is not for this run', `litgpt ${sub}`),
      subField.span,
      `litgpt ${sub}`,
    );
  } else if (!LORA.has(sub)) {
    l.fact('method', `litgpt ${sub}`, subField.span, subField.span, 'full', 'litgpt');
  } else if (quantize || !last('config')) {
    // finetune_lora is LoRA whether or not a LoRA flag is given (lora.py setup() defaults), QLoRA over 4-bit weights.
    // With --config and no --quantize, the config's LoRA keys say it (resolve derives LoRA, or QLoRA over the
    // config's quantize): a method fact here would win over that and lose the config's 4-bit load.
    l.fact('method', `litgpt ${sub}`, subField.span, subField.span, quantize?.bits === 4 ? 'qlora' : 'lora', 'litgpt');
  }
  modelFact(l, p.positionals[0], sub);
  for (const o of p.opts) {
    const s = LITGPT_FLAGS[o.name];
    if (s) l.spec(s, o, 'litgpt');
    else if (o.name === 'checkpoint_dir' || o.name === 'initial_checkpoint_dir') modelFact(l, o, 'finetune');
    else if (o.name === 'model_name') modelFact(l, o, 'pretrain');
    else if (o.name === 'config') configRef(l, o);
    else if (o.name === 'precision') precisionFacts(l, o);
    else if (o.name === 'quantize') quantizeFacts(l, o);
    else if (o.name === 'devices') devicesFacts(l, o, known(last('num_nodes')), LORA.has(sub), oldTrainFlag(p.opts));
    else if (o.name === 'optimizer' || o.name === 'optimizer.class_path') optimizerFact(l, o, quantize !== undefined);
  }
  pagedByDefault(l, p.opts, quantize !== undefined);
  loraTargets(
    l,
    p.opts.filter((o) => SWITCHES.has(o.name)),
  );
  quantizeChecks(l, quantize !== undefined, last('precision'), last('devices'));
  l.r.training = true;
  l.r.launcherTool = 'litgpt';
  return l.r;
}

/** The positional checkpoint directory (`checkpoints/<org>/<name>` is that Hub id), or pretrain's model name. */
function modelFact(l: Launch, at: Field | Opt | undefined, sub: string): void {
  if (!at) return;
  const isOpt = 'rawKey' in at;
  const text = isOpt ? known(at) : at.unknown === undefined ? at.text : undefined;
  const span = isOpt ? at.value?.span : at.span;
  if (!span) return;
  const rawKey = isOpt ? at.rawKey : sub === 'pretrain' ? 'model_name' : 'checkpoint_dir';
  const keySpan = isOpt ? at.keySpan : span;
  if (text === undefined) {
    const reason = isOpt ? at.value?.unknown : at.unknown;
    l.fact('model', rawKey, keySpan, span, { unknown: reason ?? 'not known statically' }, 'litgpt');
    return;
  }
  l.fact(
    'model',
    rawKey,
    keySpan,
    span,
    sub === 'pretrain' && !text.includes('/') ? litgptModelName(text) : litgptCheckpointModel(text),
    'litgpt',
  );
}

function configRef(l: Launch, o: Opt): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined) l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown), o.rawKey);
  else l.ref('config', o.value.text.trim(), o.value.span);
}

/** `--precision`: Fabric's names, as the YAML key (pure 16-bit weights for *-true, autocast over fp32 for *-mixed). */
function precisionFacts(l: Launch, o: Opt): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined)
    return l.fact('weightsDtype', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'litgpt');
  const pair = LITGPT_PRECISION[o.value.text.trim().toLowerCase()];
  if (!pair) return l.invalid(o, 'bf16-true, bf16-mixed, 16-true, 16-mixed or 32-true');
  l.fact('weightsDtype', o.rawKey, o.keySpan, o.value.span, pair[0], 'litgpt');
  l.fact('mixedPrecision', o.rawKey, o.keySpan, o.value.span, pair[1], 'litgpt');
}

/** `--quantize bnb.nf4|bnb.nf4-dq|bnb.fp4|bnb.fp4-dq|bnb.int8-training`. */
function quantizeFacts(l: Launch, o: Opt): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined)
    return l.fact('quantBits', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'litgpt');
  const q = litgptQuantize(o.value.text);
  if (!q) return l.invalid(o, 'bnb.nf4, bnb.nf4-dq, bnb.fp4, bnb.fp4-dq or bnb.int8-training');
  l.fact('quantBits', o.rawKey, o.keySpan, o.value.span, q.bits, 'litgpt');
  if (q.type) l.fact('quantType', o.rawKey, o.keySpan, o.value.span, q.type, 'litgpt');
  l.fact('doubleQuant', o.rawKey, o.keySpan, o.value.span, q.doubleQuant, 'litgpt');
}

/** A `--train.learning_rate` (beta1, ...) flag: TrainArgs before OptimizerArgs, a LitGPT of before May 2024. */
const oldTrainFlag = (opts: readonly Opt[]): Opt | undefined =>
  opts.find((o) => TRAIN_OPTIMIZER_KEYS.some((k) => o.name === `train.${k}`));

/**
 * `--devices N|auto|-1`: more than one process shards with FSDP and checkpoints every block, as the YAML key says:
 * finetune_lora with fully_shard (FSDP2), or Fabric's FSDPStrategy (FSDP1) where a flag dates it before OptimizerArgs;
 * finetune_full and pretrain with Fabric's FSDPStrategy.
 */
function devicesFacts(l: Launch, o: Opt, nodes: string | undefined, lora: boolean, old: Opt | undefined): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined)
    return l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'litgpt');
  const t = o.value.text.trim().toLowerCase();
  if (t === 'auto' || t === '-1') {
    return l.fact(
      'gpusPerNode',
      o.rawKey,
      o.keySpan,
      o.value.span,
      { unknown: 'devices: auto uses every GPU of the node; set vramLens.gpusPerNode' },
      'litgpt',
    );
  }
  if (!/^\d+$/.test(t) || Number(t) < 1) return l.invalid(o, 'a number of GPUs or auto');
  const n = Number(t);
  l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, n, 'litgpt');
  if (n * (nodes !== undefined && /^\d+$/.test(nodes) ? Number(nodes) : 1) > 1) {
    l.fact('fsdp', o.rawKey, o.keySpan, o.value.span, 'full_shard', 'litgpt');
    const dated = lora && old !== undefined ? litgptFsdp1Note(old.rawKey) : undefined;
    l.fact('fsdpVersion', o.rawKey, o.keySpan, o.value.span, lora && !dated ? 2 : 1, 'litgpt', dated);
    l.fact('gradientCheckpointing', o.rawKey, o.keySpan, o.value.span, 'full', 'litgpt');
  }
}

/**
 * `--quantize bnb.*` with neither `--optimizer` nor a `--config` that may name one: LitGPT's default AdamW is stepped as
 * bnb.optim.PagedAdamW (utils.py instantiate_bnb_optimizer), said at `--quantize` as LitGPT's default.
 */
function pagedByDefault(l: Launch, opts: readonly Opt[], quantized: boolean): void {
  const at = opts.find((o) => o.name === 'quantize');
  if (!quantized || !at?.value || opts.some((o) => o.name === 'config' || o.name.startsWith('optimizer'))) return;
  l.fact('optimizer', at.rawKey, at.keySpan, at.value.span, 'paged_adamw', 'litgpt', LITGPT_PAGED_ADAMW);
}

/** `--optimizer AdamW` (or a class path); bitsandbytes quantization makes an AdamW paged (utils.py instantiate_bnb_optimizer). */
function optimizerFact(l: Launch, o: Opt, quantized: boolean): void {
  const v = known(o);
  if (!v || !o.value) return;
  const short = v.split('.').pop() ?? v;
  const value: FactValue = quantized && /AdamW/.test(short) ? 'paged_adamw' : normalizeOptimizer(short);
  l.fact('optimizer', o.rawKey, o.keySpan, o.value.span, value, 'litgpt');
}

/** `--lora_query false --lora_mlp true ...`: the projections LoRA wraps, LitGPT's defaults for the switches not given. */
function loraTargets(l: Launch, given: readonly Opt[]): void {
  if (!given.length) return;
  const on = new Map<string, boolean>();
  for (const o of given) {
    const t = o.value ? known(o)?.toLowerCase() : 'true';
    if (t === 'true' || t === 'false') on.set(o.name, t === 'true');
    else if (o.value?.unknown === undefined) return l.invalid(o, 'true or false');
    else return l.fact('loraTargets', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'litgpt');
  }
  const targets = LORA_SWITCHES.flatMap(([k, byDefault, names]) => ((on.get(k) ?? byDefault) ? [...names] : []));
  const first = given[0];
  const lastOpt = given[given.length - 1];
  const span = { start: first.keySpan.start, end: (lastOpt.value?.span ?? lastOpt.keySpan).end };
  l.fact('loraTargets', given.map((o) => o.rawKey).join(', '), first.keySpan, span, targets, 'litgpt');
}

/** LitGPT's refusals (lora.py setup()): quantization with mixed precision, and quantization over several GPUs. */
function quantizeChecks(l: Launch, quantized: boolean, precision: Opt | undefined, devices: Opt | undefined): void {
  if (!quantized) return;
  if (precision?.value && /mixed/.test(known(precision) ?? '')) {
    l.r.problems.push({
      code: 'invalid-value',
      severity: 'error',
      span: precision.value.span,
      rawKey: precision.rawKey,
      ...msg(
        'LitGPT refuses quantization with mixed precision ("Quantization and mixed precision is not supported."): use bf16-true',
      ),
    });
  }
  const d = known(devices);
  if (devices?.value && d !== undefined && /^\d+$/.test(d) && Number(d) > 1) {
    l.r.problems.push({
      code: 'invalid-value',
      severity: 'error',
      span: devices.value.span,
      rawKey: devices.rawKey,
      ...msg(
        'LitGPT trains quantized models on one GPU only ("Quantization is currently not supported for multi-GPU training")',
      ),
    });
  }
}
