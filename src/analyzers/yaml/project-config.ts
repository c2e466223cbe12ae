// A project's own training config (YAML or JSON) that no tool's format takes: the project's script loads it (into a
// dict, a dataclass, a pydantic model) and hands its values to transformers, PEFT and TRL, in sections of its own
// choosing (`model:`, `lora:`, `quantization:`, `training:`) and often under names of its own (`lora.r`,
// `training.batch_size`, `grad_accum`, `max_seq_len`). Where the run's script is not found, or reads the file in a way
// the Python reader does not follow, the file is read by its names: each key that names a TrainingArguments, TRL,
// PEFT or bitsandbytes setting (or a common name for one) is that setting, located where it is written, with the HF
// Trainer's (or TRL's) defaults for the rest. What the script does with a value is not seen, and the note at the model
// key says so. One training stage is read: of several stage sections (`sft:` and `dpo:`), the first, and the others
// are said to be left out. Facts read this way rank below any a script gives (Fact.byNameOnly), and a fix rewrites only
// a key the file holds, as the kind of value written there (the script-data planner). Pure; never throws on user text.
// Docs: docs/formats.md (project configs)
import { Scalar } from 'yaml';
import { msg, type ConfigFacts, type Fact, type Span } from '../facts';
import { YamlCtx, guarded } from './common';
import { analyzeHfEntries, TRL_KEYS } from './hf-yaml';
import { boolOf, numOf, strOf, type Entry, type View } from './values';

/** A setting as hf-yaml reads it (`key`), the names a project writes it under, and the section they must be in. */
interface Alias {
  readonly key: string;
  readonly names: readonly string[];
  /** The section (the parent mapping's key) a name counts in: `r` is LoRA's rank only under `lora:`. */
  readonly under?: RegExp;
  /** The value as hf-yaml reads the key, where the project writes another kind (`precision: bf16` for bf16). */
  readonly value?: (v: View) => string | number | boolean | undefined;
}

const MODEL_SECTION = /^(model|model_args|model_arguments|model_config|base_model|policy|actor|student|llm)$/;
const LORA_SECTION = /^(lora|lora_config|lora_args|peft|peft_config|peft_args|adapter|adapters|qlora)$/;
const QUANT_SECTION = /^(quantization|quantization_config|quant|quant_config|bnb|bnb_config|bitsandbytes)$/;
const OPTIMIZER_SECTION = /^(optimizer|optim|optimizer_config)$/;
const CHECKPOINTING_SECTION = /^(gradient_checkpointing|activation_checkpointing|checkpointing)$/;
const BATCH_SECTION = /^(batch|batching)$/;
/** Sections whose "auto" values the HF Trainer fills: a DeepSpeed config written inline. */
const AUTO_FILLED = /^(deepspeed|deepspeed_config|ds_config|zero_optimization)$/;

const lower = (v: View): string => (strOf(v) ?? '').trim().toLowerCase();
const halfNamed =
  (half: 'bf16' | 'fp16') =>
  (v: View): true | undefined => {
    const s = lower(v);
    if (half === 'bf16') return /^(bf16|bfloat16|bf16[-_]mixed|amp_bf16)$/.test(s) ? true : undefined;
    return /^(fp16|float16|half|16|16[-_]mixed|fp16[-_]mixed|amp_fp16)$/.test(s) ? true : undefined;
  };
const bitsOf =
  (bits: number) =>
  (v: View): true | undefined =>
    numOf(v) === bits ? true : undefined;
/** `quant: 4bit` (AcidicSoil/llm-finetuned-supportbot configs/sft.yaml: "one of: 4bit, 8bit, none"). */
const quantNamed =
  (bits: 4 | 8) =>
  (v: View): true | undefined => {
    const s = lower(v);
    if (bits === 4) return /^(4|4[-_]?bits?|int4|nf4|fp4|bnb[-_]?4(bit)?)$/.test(s) ? true : undefined;
    return /^(8|8[-_]?bits?|int8|bnb[-_]?8(bit)?|llm\.int8)$/.test(s) ? true : undefined;
  };
const methodOf = (v: View): boolean | undefined => {
  const s = lower(v);
  return /^(lora|qlora|dora|rslora|peft)$/.test(s)
    ? true
    : /^(full|none|full_finetune|full_ft)$/.test(s)
      ? false
      : undefined;
};
const checkpointingOf = (v: View): boolean | undefined => boolOf(v) ?? (lower(v) === 'unsloth' ? true : undefined);
const flashOf = (v: View): string | undefined => (boolOf(v) === true ? 'flash_attention_2' : undefined);
const pureBf16 = (v: View): string | undefined => (/^bf16[-_]true$/.test(lower(v)) ? 'bfloat16' : undefined);
/** `bit: bfloat16` (universal-llm-trainer: "[4, 8, 16, 32] or string like float16 or bfloat16"): the load dtype. */
const dtypeNamed = (v: View): string | undefined => {
  const s = lower(v);
  return /^(bfloat16|float16|float32)$/.test(s) ? s : s === '32' ? 'float32' : undefined;
};
/** A path to the adapter's own config file (`peft_config_path: config_lora/llm_lora_config.yaml`): LoRA on. */
const adapterConfigPath = (v: View): true | undefined => (/\.(ya?ml|json)$/.test(lower(v)) ? true : undefined);

/** In priority order per key: of two names found for one setting, the earlier alias wins, then the earlier key. */
const ALIASES: readonly Alias[] = [
  {
    key: 'model_name_or_path',
    names: [
      'model_name_or_path',
      'pretrained_model_name_or_path',
      'base_model',
      'base_model_name',
      'base_model_name_or_path',
      'base_model_id',
      'model_id',
      'model_name',
      'model_path',
      'pretrained_model',
      'pretrained_model_name',
      'pretrained_model_path',
      'policy_name',
      'policy_model',
      'name_or_path',
      'hf_model',
      'hf_model_id',
      'hf_model_ckpt',
      'model_checkpoint',
      'llm_backbone',
      'model',
    ],
  },
  {
    key: 'model_name_or_path',
    names: ['name', 'path', 'id', 'repo_id', 'checkpoint', 'hub_id', 'base_path'],
    under: MODEL_SECTION,
  },
  {
    key: 'per_device_train_batch_size',
    names: [
      'per_device_train_batch_size',
      'per_gpu_train_batch_size',
      'train_micro_batch_size_per_gpu',
      'micro_batch_size',
      'train_micro_batch_size',
      'per_device_batch_size',
      'local_batch_size',
      'batch_size_per_device',
      'batch_size_per_gpu',
      // Anyscale LLMForge's.
      'train_batch_size_per_device',
      'batch_size',
    ],
  },
  // `training: {batch: {size: 2, gradient_accumulation_steps: 4}}` (farhan-syah/unsloth-finetuning).
  { key: 'per_device_train_batch_size', names: ['size', 'per_device', 'per_gpu', 'micro'], under: BATCH_SECTION },
  {
    key: 'per_device_eval_batch_size',
    names: ['per_device_eval_batch_size', 'eval_batch_size', 'eval_batch_size_per_device'],
  },
  {
    key: 'gradient_accumulation_steps',
    names: [
      'gradient_accumulation_steps',
      'gradient_accumulation',
      'grad_accumulation_steps',
      'grad_accumulation',
      'grad_accum_steps',
      'grad_accum',
      'accumulate_grad_batches',
      'accumulation_steps',
    ],
  },
  {
    key: 'max_length',
    names: [
      'max_length',
      'max_seq_length',
      'max_seq_len',
      'seq_len',
      'seq_length',
      'sequence_len',
      'sequence_length',
      'cutoff_len',
      'model_max_length',
      'context_length',
      'max_len',
    ],
  },
  {
    key: 'use_peft',
    names: ['use_peft', 'use_lora', 'enable_lora', 'use_qlora', 'is_peft', 'is_lora', 'peft_enabled', 'lora_enabled'],
  },
  {
    key: 'use_peft',
    names: ['peft_config_path', 'lora_config_path', 'adapter_config_path', 'peft_config_file', 'lora_config_file'],
    value: adapterConfigPath,
  },
  // A switch of that name (a section of that name is read as LoRA's settings).
  { key: 'use_peft', names: ['lora', 'peft'], value: (v) => boolOf(v) },
  { key: 'use_peft', names: ['enabled', 'enable', 'use'], under: LORA_SECTION },
  {
    key: 'use_peft',
    names: ['finetuning_type', 'tuner_type', 'train_type', 'finetune_type', 'peft_type', 'method', 'adapter'],
    value: methodOf,
  },
  { key: 'lora_r', names: ['lora_r', 'lora_rank', 'lora_dim'] },
  { key: 'lora_r', names: ['r', 'rank', 'dim'], under: LORA_SECTION },
  { key: 'lora_alpha', names: ['lora_alpha'] },
  { key: 'lora_alpha', names: ['alpha'], under: LORA_SECTION },
  { key: 'lora_dropout', names: ['lora_dropout'] },
  { key: 'lora_dropout', names: ['dropout'], under: LORA_SECTION },
  { key: 'lora_target_modules', names: ['lora_target_modules', 'lora_target', 'lora_targets'] },
  { key: 'lora_target_modules', names: ['target_modules', 'targets'], under: LORA_SECTION },
  { key: 'lora_target_modules', names: ['target_modules'] },
  { key: 'use_dora', names: ['use_dora'] },
  { key: 'lora_modules_to_save', names: ['lora_modules_to_save'] },
  { key: 'lora_modules_to_save', names: ['modules_to_save'], under: LORA_SECTION },
  { key: 'load_in_4bit', names: ['load_in_4bit', 'use_4bit', 'load_4bit', 'in_4bit'] },
  { key: 'load_in_4bit', names: ['quantization_bit', 'quant_bits', 'load_in_kbit'], value: bitsOf(4) },
  { key: 'load_in_4bit', names: ['bits'], under: QUANT_SECTION, value: bitsOf(4) },
  { key: 'load_in_4bit', names: ['backbone_dtype'], value: (v) => (lower(v) === 'int4' ? true : undefined) },
  {
    key: 'load_in_4bit',
    names: ['quant', 'quantization', 'quantize', 'quant_mode', 'quantization_mode'],
    value: quantNamed(4),
  },
  { key: 'load_in_8bit', names: ['load_in_8bit', 'use_8bit', 'load_8bit', 'in_8bit'] },
  { key: 'load_in_8bit', names: ['quantization_bit', 'quant_bits', 'load_in_kbit'], value: bitsOf(8) },
  { key: 'load_in_8bit', names: ['bits'], under: QUANT_SECTION, value: bitsOf(8) },
  {
    key: 'load_in_8bit',
    names: ['quant', 'quantization', 'quantize', 'quant_mode', 'quantization_mode'],
    value: quantNamed(8),
  },
  { key: 'load_in_8bit', names: ['backbone_dtype'], value: (v) => (lower(v) === 'int8' ? true : undefined) },
  { key: 'bnb_4bit_quant_type', names: ['bnb_4bit_quant_type', 'bnb_quant_type'] },
  { key: 'bnb_4bit_quant_type', names: ['quant_type', 'type'], under: QUANT_SECTION },
  {
    key: 'use_bnb_nested_quant',
    names: [
      'use_bnb_nested_quant',
      'bnb_4bit_use_double_quant',
      'use_nested_quant',
      'use_double_quant',
      'double_quant',
      'bnb_double_quant',
    ],
  },
  { key: 'bf16', names: ['bf16', 'use_bf16'] },
  {
    key: 'bf16',
    names: ['precision', 'mixed_precision', 'mixed_precision_dtype', 'amp', 'amp_dtype'],
    value: halfNamed('bf16'),
  },
  { key: 'fp16', names: ['fp16', 'use_fp16'] },
  {
    key: 'fp16',
    names: ['precision', 'mixed_precision', 'mixed_precision_dtype', 'amp', 'amp_dtype'],
    value: halfNamed('fp16'),
  },
  { key: 'dtype', names: ['torch_dtype', 'dtype', 'model_dtype', 'model_param_dtype', 'weight_dtype'] },
  { key: 'dtype', names: ['precision'], value: pureBf16 },
  { key: 'dtype', names: ['bit', 'bits'], value: dtypeNamed },
  { key: 'load_in_4bit', names: ['bit'], value: bitsOf(4) },
  { key: 'load_in_8bit', names: ['bit'], value: bitsOf(8) },
  {
    key: 'dtype',
    names: ['backbone_dtype'],
    value: (v) => (/^(bfloat16|float16|float32)$/.test(lower(v)) ? lower(v) : undefined),
  },
  {
    key: 'gradient_checkpointing',
    names: [
      'gradient_checkpointing',
      'use_gradient_checkpointing',
      'enable_gradient_checkpointing',
      'activation_checkpointing',
      'grad_checkpointing',
    ],
    value: checkpointingOf,
  },
  // A section of that name with its switch (universal-llm-trainer's `gradient_checkpointing: {activate: True}`).
  {
    key: 'gradient_checkpointing',
    names: ['activate', 'enabled', 'enable', 'use'],
    under: CHECKPOINTING_SECTION,
    value: checkpointingOf,
  },
  { key: 'optim', names: ['optim', 'optimizer', 'optimizer_type', 'optimizer_name'] },
  { key: 'optim', names: ['type', 'name'], under: OPTIMIZER_SECTION },
  { key: 'attn_implementation', names: ['attn_implementation', 'attention_implementation', 'attn_impl'] },
  {
    key: 'attn_implementation',
    names: [
      'use_flash_attention_2',
      'use_flash_attention',
      'use_flash_attn',
      'flash_attn',
      'flash_attention',
      'flash_attention_2',
    ],
    value: flashOf,
  },
  // The DeepSpeed config a section names by its path (Anyscale LLMForge's `deepspeed: {config_path: ...}`).
  { key: 'deepspeed', names: ['config_path', 'config_file', 'config'], under: /^deepspeed$/ },
  { key: 'fsdp', names: ['mode', 'sharding_strategy'], under: /^fsdp$/ },
  // The names a project keeps as TrainingArguments' and TRL's own.
  ...[
    'deepspeed',
    'fsdp',
    'fsdp_config',
    'use_liger_kernel',
    'packing',
    'torch_compile',
    'activation_offloading',
    'num_generations',
    'max_prompt_length',
    'max_completion_length',
    'use_vllm',
    'vllm_mode',
    'vllm_gpu_memory_utilization',
    'beta',
    'loss_type',
    'save_strategy',
    'eval_strategy',
    'evaluation_strategy',
  ].map((k) => ({ key: k, names: [k] })),
];

/** The aliases each name appears in, with their places in ALIASES (a name's lookup is one map read). */
const ALIASES_BY_NAME: ReadonlyMap<string, readonly (readonly [Alias, number])[]> = (() => {
  const m = new Map<string, (readonly [Alias, number])[]>();
  ALIASES.forEach((a, rank) => {
    for (const n of a.names) m.set(n, [...(m.get(n) ?? []), [a, rank] as const]);
  });
  return m;
})();

/** Sections of what is not the training run (evaluation, generation, other models, logging): not read. */
const NOT_TRAINING = new RegExp(
  `^(${[
    'eval|evaluation|evaluate|eval_args|test|testing|predict|prediction|benchmark|benchmarks|bench|benchmarking',
    'inference|infer|generation|generate|generation_config|generation_kwargs|sampling|serving|serve|deploy|export|merge',
    'teacher|teacher_model|reward|reward_model|rewards|judge|critic|ref|reference|ref_model|reference_model',
    'wandb|mlflow|tracker|tracking|tags|metadata|logging|logger|log|paths|output|outputs|save|hub|profiles|sweep|search',
    'env|resources|slurm|cluster|rollout|vllm|curriculum|experiments?|data_collator|chat_tokens|special_tokens',
  ].join('|')})$`,
);

/** A section holding one training stage's settings: of several, the first is read. */
const STAGE = new RegExp(
  '^(sft|dpo|grpo|orpo|kto|ppo|rm|simpo|cpo|pt|cpt|pretrain|pretraining|finetune|fine_tuning|distill|distillation)' +
    '([_-]?(training|train|trainer|config|cfg|args|arguments|params))?$',
);

/** The names of the settings that make a file a training config (with a model). */
const TRAINING_KEYS = new Set([
  'per_device_train_batch_size',
  'gradient_accumulation_steps',
  'max_length',
  'use_peft',
  'lora_r',
  'lora_alpha',
  'lora_target_modules',
  'load_in_4bit',
  'load_in_8bit',
  'bf16',
  'fp16',
  'gradient_checkpointing',
  'optim',
  'deepspeed',
  'num_generations',
]);

/** Mapping levels read below the top (`model.lora.r` is two). */
const MAX_DEPTH = 3;

/** What the file gives by its names: the settings as hf-yaml's keys, and what was left out. */
export interface ProjectReading {
  readonly top: Map<string, Entry>;
  /** Entries whose value was turned into the kind hf-yaml reads (not the file's own value). */
  readonly converted: ReadonlySet<Entry>;
  readonly model: Entry;
  /** The stage section read, and the other stage sections left out. */
  readonly stage: Entry | undefined;
  readonly otherStages: readonly Entry[];
}

/** A candidate entry for a setting: the alias's place in ALIASES, and the entry's place in the document. */
interface Candidate {
  readonly entry: Entry;
  readonly rank: number;
  readonly order: number;
  readonly converted: boolean;
}

/** The walk's state: the best candidate per setting, the stage sections, the order of entries seen. */
class Walk {
  readonly best = new Map<string, Candidate>();
  stage: Entry | undefined;
  readonly otherStages: Entry[] = [];
  order = 0;

  constructor(readonly ctx: YamlCtx) {}

  offer(key: string, c: Candidate): void {
    const had = this.best.get(key);
    if (!had || c.rank < had.rank || (c.rank === had.rank && c.order < had.order)) this.best.set(key, c);
  }
}

const normalized = (name: string): string => name.toLowerCase().replace(/-/g, '_');

/**
 * A section switched off, by an `enabled: false` of its own (under `quantization:` or `lora:`) or by a switch beside it
 * that names what it configures (`is_quantized: false` next to `quantization_config:`, `is_peft: false` next to
 * `peft_config:`: DimensionSTP/llm-fine-tune-hf configs/sft.yaml): its other keys are not read.
 */
function switchedOff(
  ctx: YamlCtx,
  section: Map<string, Entry>,
  siblings: Map<string, Entry>,
  name: string,
): 'own' | 'sibling' | undefined {
  for (const k of ['enabled', 'enable', 'use']) {
    const e = section.get(k);
    if (e && boolOf(ctx.view(e)) === false) return 'own';
  }
  const subject = QUANT_SECTION.test(name) ? QUANT_SWITCH : LORA_SWITCH;
  for (const [k, e] of siblings) if (subject.test(normalized(k)) && boolOf(ctx.view(e)) === false) return 'sibling';
  return undefined;
}

/** Switches that name quantization or LoRA / PEFT (`is_quantized`, `use_quantization`, `is_peft`, `lora_enabled`). */
const QUANT_SWITCH =
  /^(((is|use|enable|do|apply)_?)?(quant|quantize|quantized|quantization|bnb|bitsandbytes)|(quant|quantization|bnb)_?enabled?)$/;
const LORA_SWITCH = /^(((is|use|enable|do|apply)_?)?(peft|lora|qlora|adapters?)|(peft|lora|qlora)_?enabled?)$/;

/** Whether a mapping holds, at any depth read, a name of a training setting. */
function holdsTraining(ctx: YamlCtx, map: Map<string, Entry>, parent: string, depth: number): boolean {
  for (const [name, e] of map) {
    const n = normalized(name);
    const v = ctx.view(e);
    if (v.t === 'map') {
      if (depth < MAX_DEPTH && !NOT_TRAINING.test(n) && holdsTraining(ctx, ctx.sub(e), n, depth + 1)) return true;
    } else if (
      (ALIASES_BY_NAME.get(n) ?? []).some(([a]) => TRAINING_KEYS.has(a.key) && (!a.under || a.under.test(parent)))
    )
      return true;
  }
  return false;
}

function walk(w: Walk, map: Map<string, Entry>, parent: string, depth: number): void {
  for (const [name, e] of map) {
    const n = normalized(name);
    const v = w.ctx.view(e);
    if (v.t === 'map') {
      if (depth >= MAX_DEPTH || NOT_TRAINING.test(n)) continue;
      const section = w.ctx.sub(e);
      // A stage at the top or one level down (`training: {orpo: {...}}`).
      if (depth <= 1 && STAGE.test(n) && holdsTraining(w.ctx, section, n, depth + 1)) {
        if (w.stage) {
          w.otherStages.push(e);
          continue;
        }
        w.stage = e;
      }
      const off = QUANT_SECTION.test(n) || LORA_SECTION.test(n) ? switchedOff(w.ctx, section, map, n) : undefined;
      if (off) {
        // A switch beside the section is read at its own key (`is_peft` is a name of use_peft).
        if (off === 'own' && LORA_SECTION.test(n))
          w.offer('use_peft', { entry: valued(e, false), rank: -1, order: w.order++, converted: true });
        continue;
      }
      walk(w, section, n, depth + 1);
      continue;
    }
    const order = w.order++;
    // `gradient_accumulation_steps: "auto"` in a DeepSpeed block: the Trainer fills it; the file gives no value there.
    if (lower(v) === 'auto' && AUTO_FILLED.test(parent)) continue;
    for (const [a, rank] of ALIASES_BY_NAME.get(n) ?? []) {
      if (a.under && !a.under.test(parent)) continue;
      if (!a.value) {
        if (v.t !== 'absent') w.offer(a.key, { entry: e, rank, order, converted: false });
        continue;
      }
      const value = a.value(v);
      if (value === undefined) continue;
      // A value already of the kind hf-yaml reads (a switch written true) is the file's own, rewritable where it is.
      const same = boolOf(v) === value || numOf(v) === value || strOf(v) === value;
      w.offer(a.key, { entry: same ? e : valued(e, value), rank, order, converted: !same });
    }
  }
}

/** The entry with its value replaced (the kind hf-yaml reads), located where the file writes it. */
function valued(e: Entry, value: string | number | boolean): Entry {
  return { key: e.key, path: e.path, keySpan: e.keySpan, node: new Scalar(value), valueSpan: e.valueSpan };
}

/** A model reference a project config names: a Hub id or a path (absolute too: `/opt/models/Qwen2-7B`), one word. */
const MODEL_WORD = /^[A-Za-z0-9_.~/-][\w.~/-]*$/;

/**
 * The file's settings by their names, or undefined when it is not a training config: it must name a model (a Hub id,
 * or a path under one of the model keys of TrainingArguments and PEFT) and a batch or accumulation beside one more
 * training setting.
 */
export function readProjectConfig(ctx: YamlCtx): ProjectReading | undefined {
  if (!ctx.root) return undefined;
  const w = new Walk(ctx);
  walk(w, ctx.top(), '', 0);
  const model = w.best.get('model_name_or_path');
  const modelName = model ? strOf(ctx.view(model.entry)) : undefined;
  if (!model || modelName === undefined || !MODEL_WORD.test(modelName.trim())) return undefined;
  // A bare name under a less sure key is a model where it carries a size (`pretrained_model_path: "Qwen2.5-3B-Instruct"`,
  // the local clone policy-gradient/GRPO-Zero's README makes), not any word.
  if (!modelName.includes('/') && model.rank > 0 && !SIZED_NAME.test(modelName.trim())) return undefined;
  if (!w.best.has('per_device_train_batch_size') && !w.best.has('gradient_accumulation_steps')) return undefined;
  if ([...w.best.keys()].filter((k) => TRAINING_KEYS.has(k)).length < 2) return undefined;
  // LoRA's settings without a switch of their own: PEFT is on where a rank is written.
  const rank = w.best.get('lora_r');
  if (!w.best.has('use_peft') && rank)
    w.offer('use_peft', { entry: valued(rank.entry, true), rank: 0, order: 0, converted: true });
  const top = new Map<string, Entry>();
  const converted = new Set<Entry>();
  for (const [k, c] of w.best) {
    top.set(k, c.entry);
    if (c.converted) converted.add(c.entry);
  }
  return { top, converted, model: model.entry, stage: w.stage, otherStages: w.otherStages };
}

/** A model's name with its size as a part of it (`Qwen2.5-3B-Instruct`, `llama-2-7b-hf`, `gpt2-355M`). */
const SIZED_NAME = /^[A-Za-z][\w.]*[-_](?:[\w.]+[-_])*\d+(?:\.\d+)?[bBmM](?:[-_.][\w.-]*)?$/;

/** Characters of the largest file read as a project's config (the largest of the samples' configs is under 14,000). */
const MAX_PROJECT_CONFIG = 32 * 1024;

/** Whether a YAML / JSON text is a project's training config that its names can be read from (detect.ts, last). */
export function isProjectConfig(text: string): boolean {
  // Cheap first: a file that names no model or no batch is not one; nor one larger than any project's config (a
  // data file: the full parse this takes would cost the editor a keystroke's budget).
  if (text.length > MAX_PROJECT_CONFIG || !/model|policy/i.test(text) || !/batch|accum/i.test(text)) return false;
  try {
    return readProjectConfig(projectCtx(text)) !== undefined;
  } catch {
    return false;
  }
}

/** A project's config read as OmegaConf reads it where it interpolates (`${model_type}`: a Hydra app's), else as YAML. */
const projectCtx = (text: string): YamlCtx =>
  new YamlCtx(text, { format: 'project-yaml', tool: 'hf-trainer', omegaconf: text.includes('${') });

/** The file's settings as facts at their keys, ranked below a script's, with notes on how it was read. */
export function analyzeProjectConfig(text: string): ConfigFacts {
  const ctx = projectCtx(text);
  return guarded(ctx, () => {
    const reading = readProjectConfig(ctx);
    if (!reading) return;
    ctx.setTool(trlNamed(reading) ? 'trl' : 'hf-trainer');
    stageObjective(ctx, reading.stage);
    analyzeHfEntries(ctx, reading.top);
    // The project's keys are its own: a name TRL renamed is not deprecated in its file.
    const kept = ctx.problems.filter((p) => p.code !== 'deprecated-key');
    ctx.problems.splice(0, ctx.problems.length, ...kept);
    const written = new Map<number, Entry>();
    const notWritten = new Set<string>();
    for (const [k, e] of reading.top) {
      if (!reading.converted.has(e)) written.set(e.keySpan.start, e);
      else for (const f of CONVERTED_FACTS[k] ?? []) notWritten.add(f);
    }
    for (let i = 0; i < ctx.facts.length; i++) ctx.facts[i] = byName(ctx.facts[i], written, notWritten);
    said(ctx, reading);
  });
}

/**
 * The objective a stage section's name gives where its keys alone do not: an `orpo:`, `cpo:` or `simpo:` section is
 * trained without a reference model (TRL's ORPOTrainer and CPOTrainer load none), a `kto:` one with KTO's unpaired
 * examples. A `dpo:` section is left to its keys (DPOConfig's own keys, a loss type, reference_free).
 */
function stageObjective(ctx: YamlCtx, stage: Entry | undefined): void {
  const name = stage ? /^(orpo|cpo|simpo|kto)/.exec(normalized(stage.key))?.[1] : undefined;
  // Located at the section's name, which is what says it.
  if (stage && name)
    ctx.add('preference', stage, name === 'kto' ? 'kto' : 'reference-free', undefined, { valueSpan: stage.keySpan });
}

/** Names shared by TRL's configs and many projects' own (a length, LoRA's rank): they do not say TRL. */
const SHARED_NAMES = new Set([
  'max_length',
  'max_seq_length',
  'lora_r',
  'lora_target_modules',
  'dataset_name',
  'eos_token',
]);

/** Whether the file writes a name only TRL's configs have (packing, num_generations, beta, use_peft, ...) as its own. */
function trlNamed(reading: ProjectReading): boolean {
  return [...reading.top].some(([k, e]) => normalized(e.key) === k && TRL_KEYS.has(k) && !SHARED_NAMES.has(k));
}

/** The facts hf-yaml makes of a key whose value may be one the file does not write (a converted entry). */
const CONVERTED_FACTS: Readonly<Record<string, readonly string[]>> = {
  use_peft: ['method'],
  bf16: ['bf16'],
  fp16: ['fp16'],
  load_in_4bit: ['quantBits'],
  load_in_8bit: ['quantBits'],
  gradient_checkpointing: ['gradientCheckpointing'],
  attn_implementation: ['attention'],
  dtype: ['weightsDtype'],
};

/** A fact read by its name: below any a script gives; one the file writes as it is, rewritable at its keys. */
function byName(f: Fact, written: ReadonlyMap<number, Entry>, notWritten: ReadonlySet<string>): Fact {
  const e = notWritten.has(f.key) ? undefined : written.get(f.keySpan.start);
  return e ? { ...f, byNameOnly: true, fromData: { path: '', keys: e.path.split('.') } } : { ...f, byNameOnly: true };
}

/** LoRA's rank, which switches PEFT on where no switch is written (not a renaming of the switch). */
const RANK_NAMES = new Set(['lora_r', 'lora_rank', 'lora_dim', 'r', 'rank', 'dim']);

/** The notes: at the model, how the file was read and under which names; at each stage section left out, that it is. */
function said(ctx: YamlCtx, reading: ProjectReading): void {
  const renamed = [...reading.top]
    .filter(([k, e]) => normalized(e.key) !== k && !(k === 'use_peft' && RANK_NAMES.has(normalized(e.key))))
    .map(([k, e]) => `${e.path} as ${k}`)
    .slice(0, 12);
  const at: Span = reading.model.keySpan;
  ctx.problem(
    'read-by-name',
    'info',
    msg(
      "read as a project's own config, by the names of its keys: {0}; the script that reads it is not followed, so a " +
        'value it sets itself, or a default of its own, is not seen (a batch_size is taken as the batch per GPU)',
      renamed.length > 0 ? renamed.join(', ') : 'TrainingArguments, PEFT and TRL names',
    ),
    at,
  );
  const stageName = reading.stage?.key;
  for (const other of reading.otherStages)
    ctx.problem(
      'read-by-name',
      'info',
      msg(
        '`{0}` is another training stage, not read: the file is read as its `{1}` section',
        other.path,
        stageName ?? '',
      ),
      other.keySpan,
    );
}
