// llama-recipes' fine-tuning entry (meta-llama/llama-recipes, renamed llama-cookbook): `torchrun --nproc_per_node 4
// recipes/quickstart/finetuning/finetuning.py --enable_fsdp --use_peft --peft_method lora --model_name ...`, or
// `python -m llama_recipes.finetuning ...`. fire.Fire(main) hands every `--name value` to main(**kwargs), whose
// update_config sets the field of that name on train_config and fsdp_config (`--fsdp_config.pure_bf16` names the
// class), on quantization_config when --quantization is set, and on lora_config through generate_peft_config
// (src/llama_cookbook/finetuning.py main, utils/config_utils.py update_config). What main does with them:
// - the model is loaded in bf16 (fp16 with use_fp16; llama-cookbook's "auto" is the checkpoint's dtype, 16-bit for the
//   Llama models it takes) whatever else is set, and trained in that dtype: autocast only with use_fp16
//   (utils/train_utils.py train), torch's AdamW over those parameters;
// - enable_fsdp wraps it in FSDP1 (FULL_SHARD, CPUOffload with fsdp_cpu_offload, use_orig_params with PEFT) and
//   checkpoints every decoder layer (fsdp_activation_checkpointing, default True: apply_fsdp_checkpointing); without
//   it nothing checkpoints and no DDP wraps the model (each process trains a whole copy);
// - use_peft with peft_method lora: PEFT LoRA from lora_config (r 8, alpha 32, q_proj and v_proj, dropout 0.05);
// - quantization "4bit" / "8bit": bitsandbytes through quantization_config (quant_type fp4, no double quant);
// - batch_size_training (4) rows of context_length (4096) tokens when batching_strategy is "packing", rows padded to
//   the longest of the batch when "padding"; gradient_accumulation_steps (1).
// The entry before the package, `llama_finetuning.py` at the root of the repository (July-September 2023, vendored by
// many projects), did otherwise (meta-llama/llama-recipes@b79f7ec5): the model loaded with no dtype (float32 under the
// transformers 4 of its day) and cast to bf16 only under enable_fsdp with pure_bf16; under FSDP, fsdp_config's
// mixed_precision (True) gathers and computes in bf16 (fp16 with use_fp16; policies bfSixteen_mixed / fpSixteen), and
// without FSDP nothing autocasts (use_fp16 adds a GradScaler only); gradient_accumulation_steps is batch_size_training //
// micro_batch_size (4 // 4); the default samsum_dataset is packed into 2,048-token chunks (ft_datasets/utils.py
// Concatenator); FSDP gets no use_orig_params, and the model keeps its config's use_cache, so under the checkpoint_wrapper
// the training forward builds the cache.
// Fire reads each value as a Python literal: `--enable_fsdp` alone is True, `--enable_fsdp False` is False, and a
// word that is no literal (`false`) is a non-empty string, which is true. Sources: meta-llama/llama-cookbook@0e00335
// src/llama_cookbook/configs/{training,fsdp,peft,quantization}.py and finetuning.py. Pure.
import { msg, type CanonicalKey, type FactValue, type Unknown } from '../facts';
import { parseArgs, type Opt } from './args';
import { SDPA_DEFAULT_NOTE } from '../defaults';
import type { Field } from './fields';
import type { CmdResult, Launch } from './launch';
import type { Tool } from '../facts';

const TOOL: Tool = 'pytorch';
const SOURCE = 'meta-llama/llama-cookbook@0e00335 src/llama_cookbook';

/** llama-recipes' fine-tuning entry: its module, or the quickstart script that runs it. */
export function isLlamaRecipesFinetuning(script: string): boolean {
  return (
    /^llama_(recipes|cookbook)\.finetuning$/.test(script) ||
    /(^|\/)(recipes\/quickstart|getting-started)\/finetuning\/finetuning\.py$/.test(script) ||
    /(^|\/)llama_(recipes|cookbook)\/finetuning\.py$/.test(script) ||
    isLegacyEntry(script)
  );
}

/** The entry of 2023, before the package: `llama_finetuning.py` (llama-recipes@b79f7ec5). */
const isLegacyEntry = (script: string): boolean => /(^|\/)llama_finetuning\.py$/.test(script);

const LEGACY_SOURCE = 'meta-llama/llama-recipes@b79f7ec5 llama_finetuning.py';

/**
 * A script of the project that runs llama-recipes' finetuning under a name of its own (`src/train/finetuning.py`:
 * `from llama_cookbook.finetuning import main; fire.Fire(main)`), told by the flags only train_config has
 * (`--batch_size_training`, `--enable_fsdp`, `--peft_method`) on a script named finetuning.py.
 */
export function llamaRecipesEntryCopy(script: string, fields: readonly Field[], at: number): boolean {
  if (!/(^|\/)finetuning\.py$/.test(script)) return false;
  const flags = new Set(fields.slice(at + 1).map((f) => f.text.replace(/=.*$/s, '')));
  return ['--batch_size_training', '--enable_fsdp', '--peft_method'].some((f) => flags.has(f));
}

/** A value as fire reads it: a Python literal (int, float, True / False / None, a quoted string), else the word. */
type Literal = number | boolean | string | null;

function fireValue(o: Opt): Literal | Unknown {
  if (!o.value) return true;
  if (o.value.unknown !== undefined) return { unknown: o.value.unknown };
  const t = o.value.text.trim();
  if (/^-?\d+$/.test(t)) return Number(t);
  if (/^-?\d*\.\d+(e-?\d+)?$|^-?\d+e-?\d+$/i.test(t)) return Number(t);
  if (t === 'True' || t === 'False') return t === 'True';
  if (t === 'None') return null;
  return t.replace(/^(['"])(.*)\1$/, '$2');
}

/** Python's truth of a value fire read. */
const truthy = (v: Literal): boolean => (typeof v === 'string' ? v.length > 0 : Boolean(v));

/** The options by the field they set: `--fsdp_config.pure_bf16` and `--pure_bf16` alike, the last one winning. */
function byField(opts: readonly Opt[]): Map<string, Opt> {
  const out = new Map<string, Opt>();
  for (const o of opts) out.set(o.name.replace(/^(train|fsdp|lora|quantization)_config\./, ''), o);
  return out;
}

/** Reading the line: its options, where the entry's word is, and what is emitted. */
interface Reading {
  readonly l: Launch;
  readonly opts: Map<string, Opt>;
  readonly at: Field;
  /** The 2023 entry, llama_finetuning.py (isLegacyEntry). */
  readonly legacy: boolean;
}

/** The field's value from the line, else its default said at the entry's word. */
function value(r: Reading, field: string, dflt: Literal): Literal | Unknown {
  const o = r.opts.get(field);
  return o ? fireValue(o) : dflt;
}

/** A switch's truth as Python takes it (fire's value, else the default); an unknown value stays unknown. */
function switchValue(r: Reading, field: string, dflt: boolean): boolean | Unknown {
  const v = value(r, field, dflt);
  return typeof v === 'object' && v !== null ? v : truthy(v);
}

/** A fact of `key` from the field's option, else the default of llama-recipes stated at the entry. */
function emit(
  r: Reading,
  key: CanonicalKey,
  field: string,
  v: FactValue | Unknown,
  dfltNote: string | undefined,
): void {
  const o = r.opts.get(field);
  if (o) {
    r.l.fact(key, o.rawKey, o.keySpan, o.value?.span ?? o.keySpan, v, TOOL);
    return;
  }
  const note = dfltNote ?? `llama-recipes' ${field} defaults to ${String(v)}`;
  r.l.toolDefault({
    key,
    rawKey: field,
    value: v,
    rawValue: field,
    at: r.at.span,
    tool: TOOL,
    note: `${note} (${r.legacy ? LEGACY_SOURCE : SOURCE})`,
  });
}

/** `torchrun ... finetuning.py --enable_fsdp ...` (or `-m llama_recipes.finetuning`): the run main() makes of it. */
export function llamaRecipesLaunch(
  l: Launch,
  fields: readonly Field[],
  scriptAt: number,
  opaque: (f: Field) => void,
  launcherTool: Tool | undefined,
): CmdResult {
  const p = parseArgs(fields, scriptAt + 1, () => 'one', false, false, opaque);
  const legacy = isLegacyEntry(fields[scriptAt].text);
  const r: Reading = { l, opts: byField(p.opts), at: fields[scriptAt], legacy };
  l.tool(TOOL);
  if (!isLlamaRecipesFinetuning(fields[scriptAt].text))
    l.r.problems.push({
      code: 'read-by-name',
      severity: 'info',
      ...msg(
        "{0}: read as llama-recipes' finetuning, named by its flags (a script of the project that runs it; it may differ)",
        fields[scriptAt].text,
      ),
      span: fields[scriptAt].span,
      rawKey: fields[scriptAt].text,
    });
  model(r);
  batch(r);
  const peft = switchValue(r, 'use_peft', false);
  const fsdp = parallelism(r, peft);
  if (legacy) legacyPrecision(r, fsdp);
  else precision(r);
  if (!r.opts.has('use_fast_kernels')) attention(r);
  adapters(r, fsdp, peft);
  l.r.training = true;
  l.r.launcherTool = launcherTool;
  return l.r;
}

function model(r: Reading): void {
  const o = r.opts.get('model_name');
  if (!o) {
    r.l.notStatic(
      r.at.span,
      msg('llama-recipes\' model_name defaults to "PATH/to/Model", which names no model: pass --model_name'),
      'model_name',
    );
    return;
  }
  const v = fireValue(o);
  r.l.fact('model', o.rawKey, o.keySpan, o.value?.span ?? o.keySpan, typeof v === 'string' ? v : asUnknown(v), TOOL);
}

const asUnknown = (v: Literal | Unknown): Unknown =>
  typeof v === 'object' && v !== null ? v : { unknown: `${String(v)} is no path or Hub id` };

const positive = (v: Literal | Unknown): FactValue | Unknown =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : asUnknown(v);

function batch(r: Reading): void {
  emit(r, 'microBatchSize', 'batch_size_training', positive(value(r, 'batch_size_training', 4)), undefined);
  if (r.legacy) {
    legacyBatch(r);
    return;
  }
  const gas = positive(value(r, 'gradient_accumulation_steps', 1));
  emit(r, 'gradientAccumulationSteps', 'gradient_accumulation_steps', gas, undefined);
  emit(r, 'seqLen', 'context_length', positive(value(r, 'context_length', 4096)), undefined);
  const strategy = value(r, 'batching_strategy', 'packing');
  const lengths =
    strategy === 'packing'
      ? 'fixed'
      : strategy === 'padding'
        ? 'variable'
        : { unknown: `batching_strategy ${JSON.stringify(strategy)} is neither "packing" nor "padding"` };
  emit(r, 'batchLengths', 'batching_strategy', lengths, `llama-recipes' batching_strategy defaults to "packing"`);
}

/**
 * The 2023 entry's batches: gradient_accumulation_steps is batch_size_training // micro_batch_size, and the default
 * samsum_dataset packs 2,048-token rows; another dataset's lengths are not read.
 */
function legacyBatch(r: Reading): void {
  const rows = value(r, 'batch_size_training', 4);
  const micro = value(r, 'micro_batch_size', 4);
  const steps = typeof rows === 'number' && typeof micro === 'number' && micro > 0 ? Math.floor(rows / micro) : 0;
  const gas =
    steps > 0 ? steps : { unknown: `batch_size_training // micro_batch_size is ${String(rows)} // ${String(micro)}` };
  emit(r, 'gradientAccumulationSteps', 'micro_batch_size', gas, 'batch_size_training // micro_batch_size (4 // 4)');
  const dataset = value(r, 'dataset', 'samsum_dataset');
  const samsum = dataset === 'samsum_dataset';
  const why = `dataset ${JSON.stringify(dataset)}: its lengths are not read`;
  const packed = 'samsum_dataset, the default, packs 2,048-token rows (ft_datasets/utils.py Concatenator)';
  emit(r, 'seqLen', 'dataset', samsum ? 2048 : { unknown: why }, packed);
  emit(r, 'batchLengths', 'dataset', samsum ? 'fixed' : { unknown: why }, packed);
}

/**
 * The 2023 entry's precision: float32 weights (bf16 under enable_fsdp with pure_bf16); under FSDP the mixed-precision
 * policy gathers and computes in bf16 (fp16 with use_fp16, none with mixed_precision False or pure_bf16); without FSDP
 * nothing autocasts.
 */
function legacyPrecision(r: Reading, fsdp: boolean): void {
  const pure = fsdp ? switchValue(r, 'pure_bf16', false) : false;
  const weights = typeof pure === 'object' ? pure : pure ? 'bf16' : 'fp32';
  const loads =
    'llama_finetuning.py loads the model with no dtype, float32 under the transformers 4 of its day, cast to bf16 ' +
    'only under enable_fsdp with pure_bf16';
  emit(r, 'weightsDtype', 'pure_bf16', weights, loads);
  const policy = fsdp && pure === false ? switchValue(r, 'mixed_precision', true) : false;
  const fp16 = switchValue(r, 'use_fp16', false);
  const mixed =
    typeof policy === 'object' ? policy : !policy ? 'none' : typeof fp16 === 'object' ? fp16 : fp16 ? 'fp16' : 'bf16';
  const how = fsdp
    ? "under FSDP, fsdp_config's mixed_precision (True) computes in bf16 (fp16 with use_fp16), unless pure_bf16"
    : 'without FSDP nothing autocasts (use_fp16 adds a GradScaler only)';
  emit(r, 'mixedPrecision', 'mixed_precision', mixed, how);
  emit(r, 'optimizer', 'optimizer', 'adamw', "llama-recipes steps torch's AdamW over the model's parameters");
  const release =
    "llama_finetuning.py's requirements ask transformers>=4.31.0, the release of its day (July 2023), which the " +
    "project's own pin overrides";
  emit(r, 'transformersVersion', 'model_name', '4.31', release);
}

/** The attention transformers gives a model loaded with no attn_implementation (use_fast_kernels off). */
function attention(r: Reading): void {
  emit(r, 'attention', 'use_fast_kernels', 'sdpa', SDPA_DEFAULT_NOTE);
}

/** The model in bf16 (fp16 with use_fp16), trained in that dtype; fp16 autocast with use_fp16. */
function precision(r: Reading): void {
  const fp16 = switchValue(r, 'use_fp16', false);
  const half = typeof fp16 === 'object' ? fp16 : fp16 ? 'fp16' : 'bf16';
  emit(r, 'weightsDtype', 'use_fp16', half, 'llama-recipes loads the model in bf16 unless use_fp16 (finetuning.py)');
  const autocast = half === 'fp16' ? 'fp16' : typeof half === 'object' ? half : 'none';
  emit(r, 'mixedPrecision', 'use_fp16', autocast, 'llama-recipes autocasts only under use_fp16 (utils/train_utils.py)');
  emit(r, 'optimizer', 'optimizer', 'adamw', "llama-recipes steps torch's AdamW over the model's parameters");
}

/** FSDP1 and its checkpointing under enable_fsdp; without it, whole copies and no checkpointing. */
function parallelism(r: Reading, peft: boolean | Unknown): boolean {
  const fsdp = switchValue(r, 'enable_fsdp', false);
  if (typeof fsdp === 'object') {
    emit(r, 'fsdp', 'enable_fsdp', fsdp, undefined);
    return false;
  }
  emit(r, 'fsdp', 'enable_fsdp', fsdp ? 'full_shard' : 'none', "llama-recipes' enable_fsdp defaults to False");
  if (!fsdp) {
    emit(
      r,
      'ddpWrap',
      'enable_fsdp',
      false,
      'without enable_fsdp llama-recipes wraps no DDP: each process trains a copy',
    );
    emit(r, 'gradientCheckpointing', 'enable_fsdp', 'none', 'llama-recipes checkpoints only under FSDP');
    return false;
  }
  emit(r, 'fsdpVersion', 'enable_fsdp', 1, 'llama-recipes wraps the model in FSDP1 (torch.distributed.fsdp)');
  // llama-cookbook passes use_orig_params=use_peft (or freeze_LLM_only); llama-recipes before it passed none (False).
  if (r.legacy)
    emit(r, 'fsdpUseOrigParams', 'use_peft', false, 'llama_finetuning.py builds FSDP without use_orig_params');
  else emit(r, 'fsdpUseOrigParams', 'use_peft', peft, 'llama-cookbook builds FSDP with use_orig_params=use_peft');
  emit(r, 'fsdpOffload', 'fsdp_cpu_offload', switchValue(r, 'fsdp_cpu_offload', false), undefined);
  const ckpt = switchValue(r, 'fsdp_activation_checkpointing', true);
  const gc = typeof ckpt === 'object' ? ckpt : ckpt ? 'full' : 'none';
  const every = "llama-recipes' fsdp_activation_checkpointing defaults to True: every decoder layer is checkpointed";
  emit(r, 'gradientCheckpointing', 'fsdp_activation_checkpointing', gc, every);
  if (r.legacy && gc === 'full') {
    const wrapper = 'apply_fsdp_checkpointing wraps each decoder layer in checkpoint_wrapper (NO_REENTRANT)';
    emit(r, 'checkpointWrapper', 'fsdp_activation_checkpointing', true, wrapper);
    const cache =
      "llama_finetuning.py keeps the model config's use_cache (True): the training forward builds the cache";
    emit(r, 'useCache', 'fsdp_activation_checkpointing', true, cache);
  }
  return true;
}

/** PEFT LoRA from lora_config, over bitsandbytes weights with --quantization. */
function adapters(r: Reading, fsdp: boolean, peft: boolean | Unknown): void {
  const quant = value(r, 'quantization', null);
  const bits = quant === '4bit' ? 4 : quant === '8bit' || quant === true ? 8 : undefined;
  const method = value(r, 'peft_method', 'lora');
  const lora = peft === true && method === 'lora';
  if (peft === true && method !== 'lora') {
    const o = r.opts.get('peft_method');
    r.l.warnNotModeled(
      msg('peft_method {0}: only LoRA is modeled; the estimate trains every weight', String(method)),
      o?.keySpan ?? r.at.span,
      'peft_method',
    );
  }
  if (bits !== undefined) quantization(r, bits);
  else if (quant !== null && quant !== false) emit(r, 'quantBits', 'quantization', asUnknown(quant), undefined);
  if (!lora) {
    emit(r, 'method', 'use_peft', bits ? { unknown: 'quantized weights that nothing trains' } : 'full', undefined);
    return;
  }
  emit(r, 'method', 'use_peft', bits ? 'qlora' : 'lora', undefined);
  emit(r, 'loraR', 'r', positive(value(r, 'r', 8)), "llama-recipes' lora_config.r defaults to 8");
  emit(
    r,
    'loraAlpha',
    'lora_alpha',
    positive(value(r, 'lora_alpha', 32)),
    "llama-recipes' lora_config.lora_alpha defaults to 32",
  );
  const dropout = value(r, 'lora_dropout', 0.05);
  emit(r, 'loraDropout', 'lora_dropout', typeof dropout === 'number' ? dropout : asUnknown(dropout), undefined);
  emit(r, 'loraTargets', 'target_modules', targetModules(r), "llama-recipes' lora_config targets q_proj and v_proj");
  if (fsdp && bits === 8)
    r.l.notStatic(r.at.span, msg('8bit quantization is not supported with FSDP: llama-recipes raises'), 'quantization');
}

function quantization(r: Reading, bits: 4 | 8): void {
  emit(r, 'quantBits', 'quantization', bits, undefined);
  if (bits !== 4) return;
  const type = value(r, 'quant_type', 'fp4');
  emit(
    r,
    'quantType',
    'quant_type',
    type === 'nf4' || type === 'fp4' ? type : asUnknown(type),
    "llama-recipes' quantization_config.quant_type defaults to fp4",
  );
  const dq = switchValue(r, 'use_double_quant', false);
  emit(
    r,
    'doubleQuant',
    'use_double_quant',
    dq,
    "llama-recipes' quantization_config.use_double_quant defaults to False",
  );
}

/** lora_config.target_modules: a list fire reads as a Python literal (`--target_modules "['q_proj','k_proj']"`). */
function targetModules(r: Reading): FactValue | Unknown {
  const o = r.opts.get('target_modules');
  if (!o) return ['q_proj', 'v_proj'];
  const v = fireValue(o);
  if (typeof v !== 'string') return asUnknown(v);
  const list = /^\[(.*)\]$/s.exec(v.trim())?.[1];
  const names = list?.split(',').map((x) => x.trim().replace(/^(['"])(.*)\1$/, '$2'));
  if (names && names.length > 0 && names.every((n) => /^[\w.]+$/.test(n))) return names;
  // A bare word is a string, which PEFT matches as a regular expression over the module names.
  return /^[\w.]+$/.test(v) ? [v] : { unknown: `target_modules ${v} is not a list fire reads` };
}
