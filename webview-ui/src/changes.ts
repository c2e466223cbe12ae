// Setup changes ({ key, value } in scenario-key terms, as advice items and the what-if carry them) in words:
// "ZeRO stage 3", "2 GPUs per node", "LoRA r 16 on all linear layers". Never JSON: a key this file does not know
// is written as its words and plain values. Pure (no DOM), so unit tests run it in Node.
import { S, tr, type StringId } from './strings';

export interface Change {
  readonly key: string;
  readonly value: unknown;
}

type Rec = Readonly<Record<string, unknown>>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Known values of a key that have a string of their own: `${key}.${value}` -> id. */
const VALUE_IDS: Readonly<Record<string, readonly string[]>> = {
  gradient_checkpointing: ['none', 'full', 'selective'],
  attention: ['eager', 'sdpa', 'flash'],
  loss: ['full', 'chunked', 'fused'],
  optimizer: [
    'adamw',
    'adamw_fused',
    'adamw_hf',
    'adamw_8bit',
    'paged_adamw_8bit',
    'paged_adamw',
    'adafactor',
    'sgd',
    'sgd_momentum',
    'lion',
    'lion_8bit',
    'adam_mini',
    'muon',
    'adamw_4bit',
    'none',
  ],
  kbit_upcast: ['none', 'norms', 'all'],
  linear_attention_kernels: ['fla', 'torch'],
  mamba_kernels: ['cuda', 'torch'],
  kernels: ['pytorch', 'liger', 'unsloth'],
};

/** A plain value in words: lists joined with commas, booleans as on/off, objects as their fields. */
function plain(v: unknown): string {
  if (v === null || v === undefined) return tr('change.unset');
  if (typeof v === 'boolean') return tr(v ? 'change.on' : 'change.off');
  if (Array.isArray(v)) return v.map(plain).join(', ');
  if (isRec(v))
    return Object.entries(v)
      .map(([k, x]) => `${words(k)} ${plain(x)}`)
      .join(', ');
  return String(v);
}

const words = (key: string): string => key.replace(/_/g, ' ');

function offload(what: 'optimizer' | 'params', v: unknown): string {
  const where = v === 'cpu' || v === 'nvme' ? v : 'none';
  return tr(`change.offload.${what}.${where}` as StringId);
}

function lora(v: Rec, before: unknown): string {
  const old = isRec(before) ? before : {};
  const targets =
    v.target_modules === 'all-linear'
      ? tr('change.lora.allLinear')
      : Array.isArray(v.target_modules)
        ? v.target_modules.join(', ')
        : undefined;
  // A whole new block says rank and targets; a change to an existing one says the fields that change.
  const fresh = !isRec(before);
  const parts: string[] = [];
  if (
    fresh ||
    v.r !== old.r ||
    (targets !== undefined && JSON.stringify(v.target_modules) !== JSON.stringify(old.target_modules))
  ) {
    parts.push(
      targets ? tr('change.lora.rankOn', plain(v.r ?? old.r), targets) : tr('change.lora.rank', plain(v.r ?? old.r)),
    );
  }
  if (v.use_dora !== undefined && (fresh ? v.use_dora === true : v.use_dora !== old.use_dora))
    parts.push(tr(v.use_dora ? 'change.lora.dora' : 'change.lora.noDora'));
  return parts.length > 0 ? parts.join(', ') : tr('change.lora.rank', plain(v.r ?? old.r));
}

function quantization(v: unknown, before: unknown): string {
  if (!isRec(v)) return tr('change.quantization.none');
  const old = isRec(before) ? before : {};
  if (v.experts === true && old.experts !== true && isRec(before)) return tr('change.quantization.experts');
  const type = typeof v.type === 'string' ? v.type.toUpperCase() : '';
  return tr('change.quantization.bits', plain(v.bits), type).trim();
}

/** The fields of an object value that differ from what the setup had, in words (rollout, preference, ...). */
function fields(key: string, v: unknown, before: unknown): string[] {
  if (!isRec(v)) return [`${words(key)} ${plain(v)}`];
  const old = isRec(before) ? before : {};
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (JSON.stringify(x) === JSON.stringify(old[k])) continue;
    const known = `${key}.${k}.${String(x)}`;
    if (known === 'rollout.vllm_sleep.true') out.push(tr('change.rollout.vllmSleep'));
    else if (known === 'rollout.reference.none') out.push(tr('change.rollout.noReference'));
    else if (known === 'preference.reference.precomputed') out.push(tr('change.preference.precomputed'));
    else if (key === 'rollout' && k === 'batch') out.push(tr('change.rollout.batch', plain(x)));
    else if (key === 'rollout' && k === 'completion_len') out.push(tr('change.rollout.completionLen', plain(x)));
    else out.push(`${words(key)} ${words(k)} ${plain(x)}`);
  }
  return out;
}

/** One change in words; `setup` is the setup the change applies to (for what changes inside an object). */
function one(c: Change, setup: Rec): string[] {
  const v = c.value;
  const before = setup[c.key];
  switch (c.key) {
    case 'zero_stage':
      return [v === 0 ? tr('change.zero.off') : tr('change.zero', plain(v))];
    case 'fsdp':
      return [v === 'none' || v === 'no_shard' ? tr('change.fsdp.off') : tr('change.fsdp', String(v).toUpperCase())];
    case 'offload_optimizer':
      return [offload('optimizer', v)];
    case 'offload_params':
      return [offload('params', v)];
    case 'micro_batch_size':
      return [tr('change.micro', plain(v))];
    case 'gradient_accumulation_steps':
      return [tr('change.accumulation', plain(v))];
    case 'seq_len':
      return [tr('change.seq', plain(v))];
    case 'weights_dtype':
      return [tr('change.weightsDtype', plain(v))];
    case 'mixed_precision':
      return [v === 'none' ? tr('change.autocast.off') : tr('change.autocast', plain(v))];
    case 'master_weights':
      return [tr(v ? 'change.master.on' : 'change.master.off')];
    case 'method':
      return [`method.${String(v)}` in S ? tr(`method.${String(v)}` as StringId) : `${words(c.key)} ${plain(v)}`];
    case 'lora':
      return isRec(v) ? [lora(v, before)] : [tr('change.lora.off')];
    case 'quantization':
      return [quantization(v, before)];
    case 'eval_batch_size':
      return [tr('change.evalBatch', plain(v))];
    case 'tiled_mlp':
      return [tr(v ? 'change.tiledMlp.on' : 'change.tiledMlp.off')];
    case 'gpu':
      return [tr('change.gpu', plain(v))];
    case 'checkpoint_reentrant':
      return [tr(v ? 'change.reentrant.on' : 'change.reentrant.off')];
    case 'pytorch_version':
    case 'transformers_version':
    case 'torchao_version':
    case 'bitsandbytes_version':
      return [tr('change.version', c.key.replace('_version', '').replace('pytorch', 'torch'), plain(v))];
    case 'rollout':
    case 'preference':
      return fields(c.key, v, before);
    default: {
      const known = VALUE_IDS[c.key];
      if (known && typeof v === 'string' && known.includes(v)) {
        const name = tr(`change.${c.key}.${v}` as StringId);
        return [c.key === 'optimizer' ? tr('change.optimizer', name) : name];
      }
      return isRec(v) ? fields(c.key, v, before) : [`${words(c.key)} ${plain(v)}`];
    }
  }
}

/**
 * The changes in words, in their order, with the GPU count and the method folded into one phrase each
 * ("8 GPUs per node on 4 nodes"; "QLoRA" is said by its quantization and LoRA phrases when they are there).
 */
export function describeChanges(changes: readonly Change[], setup: Rec): string[] {
  const byKey = new Map(changes.map((c) => [c.key, c.value]));
  const out: string[] = [];
  for (const c of changes) {
    if (c.key === 'nodes' && byKey.has('gpus_per_node')) continue;
    if (c.key === 'gpus_per_node' || c.key === 'nodes') {
      const perNode = byKey.get('gpus_per_node') ?? setup.gpus_per_node;
      const nodes = byKey.get('nodes') ?? setup.nodes;
      out.push(nodes === 1 ? tr('change.gpus', plain(perNode)) : tr('change.gpusNodes', plain(perNode), plain(nodes)));
      continue;
    }
    // What the setup already says is no change (advice sets a few keys along, e.g. master_weights: false with LoRA).
    if (JSON.stringify(c.value) === JSON.stringify(setup[c.key])) continue;
    // "LoRA r 16 on all linear layers" and "4-bit NF4 base weights" say the method themselves.
    if (
      c.key === 'method' &&
      byKey.has('lora') &&
      (c.value === 'lora' || (c.value === 'qlora' && byKey.has('quantization')))
    )
      continue;
    out.push(...one(c, setup));
  }
  return out;
}
