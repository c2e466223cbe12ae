// Readers of a published case's description (shared/reference README.md, "Schema"): each turns one part of the case
// (its method, precision, optimizer, parallelism, stack) into TrainingSetup keys, from the case's own words and the
// documented behaviour of the stack it names. Nothing here is tuned to a case.
import type { Tool } from '../src/analyzers/facts';
import { ACCELERATE_FSDP_TOOLS, accelerateFsdpPatch } from '../src/analyzers/accelerate-fsdp';
import { trainerFindUnused } from '../src/analyzers/trainer-ddp';
import { toolDefault } from '../src/analyzers/defaults';
import { shippedZeroBuckets } from '../src/analyzers/shipped-zero';
import { preferenceOf } from '../src/analyzers/resolve/preference';
import { SUPPORTED_MODEL_TYPES } from '../src/core/architecture';
import type { TrainingSetupInput } from '../src/core/setup';

/** Some of a setup's keys. */
export type SetupPart = Partial<TrainingSetupInput>;

type Setup = SetupPart;

/** The case's free text where readers look for a stack's name and its settings: framework, strategy and notes. */
export interface CaseText {
  readonly framework: string;
  readonly strategy: string;
  readonly notes: string;
}

/**
 * The stack the case ran, by the name its framework text gives (first match wins: a tool built on the HF Trainer is
 * named before the Trainer). undefined when the text names none of them.
 */
export function caseTool(text: CaseText): Tool | undefined {
  const f = text.framework;
  const rules: Array<[RegExp, Tool]> = [
    [/axolotl/i, 'axolotl'],
    [/llama[- ]?factory/i, 'llamafactory'],
    [/ms-swift|\bswift\b/i, 'ms-swift'],
    [/torchtune/i, 'torchtune'],
    [/lit-?gpt/i, 'litgpt'],
    [/unsloth/i, 'unsloth'],
    [/openrlhf/i, 'openrlhf'],
    [/\btrl\b|sfttrainer|dpotrainer|grpotrainer/i, 'trl'],
    [/trainer|transformers/i, 'hf-trainer'],
    [/accelerate/i, 'accelerate'],
    [/deepspeed/i, 'deepspeed'],
    [/pytorch|torch\b|custom|loop/i, 'pytorch'],
  ];
  return rules.find(([re]) => re.test(f))?.[1];
}

/** Accelerate's minor releases by date (github.com/huggingface/accelerate tags). */
const ACCELERATE_RELEASES: ReadonlyArray<readonly [string, string]> = [
  ['2024-01-10', '0.26'],
  ['2024-02-09', '0.27'],
  ['2024-03-12', '0.28'],
  ['2024-04-05', '0.29'],
  ['2024-05-03', '0.30'],
  ['2024-06-07', '0.31'],
  ['2024-07-03', '0.32'],
  ['2024-07-23', '0.33'],
  ['2024-09-02', '0.34'],
  ['2024-10-07', '1.0'],
  ['2024-11-01', '1.1'],
  ['2024-12-06', '1.2'],
  ['2025-01-17', '1.3'],
  ['2025-02-17', '1.4'],
  ['2025-03-12', '1.5'],
  ['2025-04-01', '1.6'],
  ['2025-05-15', '1.7'],
  ['2025-06-19', '1.8'],
  ['2025-07-16', '1.9'],
  ['2025-08-07', '1.10'],
  ['2025-10-20', '1.11'],
  ['2025-11-21', '1.12'],
  ['2026-03-04', '1.13'],
  ['2026-06-11', '1.14'],
];

/**
 * The Accelerate release out on a case's date (YYYY-MM or YYYY-MM-DD): the newest whose release day is not after it.
 * A month alone is read as its first day, so a case of the month a release came out gets the release before. Before
 * 2024 the earliest entry's predecessor is not listed: '0.25'. From 1.14 on, undefined (the current behaviour).
 */
export function accelerateBy(date: string): string | undefined {
  return releaseOn(ACCELERATE_RELEASES, date, '0.25');
}

/** PyTorch's minor releases by date (github.com/pytorch/pytorch releases). */
const TORCH_RELEASES: ReadonlyArray<readonly [string, string]> = [
  ['2022-03-10', '1.11'],
  ['2022-06-28', '1.12'],
  ['2022-10-28', '1.13'],
  ['2023-03-15', '2.0'],
  ['2023-10-04', '2.1'],
  ['2024-01-30', '2.2'],
  ['2024-04-24', '2.3'],
  ['2024-07-24', '2.4'],
  ['2024-10-17', '2.5'],
  ['2025-01-29', '2.6'],
  ['2025-04-23', '2.7'],
  ['2025-08-06', '2.8'],
  ['2025-10-15', '2.9'],
];

/**
 * The PyTorch release out on a case's date, read as accelerateBy reads it: before 1.11, '1.10'; from the last entry
 * on, undefined (the current behaviour). What the estimator reads by release: AdamW's per-tensor step before 2.0 and
 * its foreach temporaries of 2.0, zero_grad keeping the gradients before 2.0.
 */
export function torchBy(date: string): string | undefined {
  return releaseOn(TORCH_RELEASES, date, '1.10');
}

/**
 * DeepSpeed's releases by date (github.com/deepspeedai/DeepSpeed tags): the minor releases, and the patch releases
 * the estimator reads (0.18.2: ZeRO-1/2's buckets made at the first gradient; 0.19.3: ZeRO-3 keeps a reentrant
 * recomputation's frozen parameters).
 */
const DEEPSPEED_RELEASES: ReadonlyArray<readonly [string, string]> = [
  ['2023-07-17', '0.10'],
  ['2023-10-06', '0.11'],
  ['2023-11-03', '0.12'],
  ['2024-01-19', '0.13'],
  ['2024-03-07', '0.14'],
  ['2024-08-22', '0.15'],
  ['2024-11-25', '0.16'],
  ['2025-06-02', '0.17'],
  ['2025-10-07', '0.18'],
  ['2025-11-04', '0.18.2'],
  ['2026-05-06', '0.19'],
  ['2026-07-22', '0.19.3'],
];

/**
 * The DeepSpeed release out on a case's date, read as accelerateBy reads it: before 0.10, '0.9'; from the last entry
 * on, undefined (the current behaviour).
 */
export function deepspeedBy(date: string): string | undefined {
  return releaseOn(DEEPSPEED_RELEASES, date, '0.9');
}

/**
 * The release out on a case's date among `releases`: `before` ahead of the first (undefined: none), undefined from the
 * last on (the current behaviour) or without a date.
 */
function releaseOn(
  releases: ReadonlyArray<readonly [string, string]>,
  date: string,
  before: string | undefined,
): string | undefined {
  const i = releaseIndex(releases, date);
  if (i === undefined || i === releases.length - 1) return undefined;
  return i < 0 ? before : releases[i][1];
}

/**
 * Where a case's date (YYYY-MM or YYYY-MM-DD; a month alone is its first day) falls among releases by day: the index of
 * the newest out on it, -1 before the first; undefined without a date.
 */
function releaseIndex(releases: ReadonlyArray<readonly [string, string]>, date: string): number | undefined {
  const day = /^\d{4}-\d{2}(-\d{2})?/.exec(date)?.[0];
  if (!day) return undefined;
  const full = day.length === 7 ? `${day}-01` : day;
  const next = releases.findIndex(([from]) => from > full);
  return next < 0 ? releases.length - 1 : next - 1;
}

/**
 * TRL's releases by date (github.com/huggingface/trl tags), with the patch releases where what its trainers do to a
 * quantized model changed (0.7.5: peft_module_casting_to_bf16; 0.9.3: LoRA layers no longer cast; trl-quantized.ts).
 */
const TRL_RELEASES: ReadonlyArray<readonly [string, string]> = [
  ['2023-03-09', '0.4'],
  ['2023-08-02', '0.5'],
  ['2023-08-24', '0.6'],
  ['2023-08-30', '0.7'],
  ['2023-12-22', '0.7.5'],
  ['2024-03-19', '0.8'],
  ['2024-06-05', '0.9.3'],
  ['2024-08-29', '0.10'],
  ['2024-09-19', '0.11'],
  ['2024-11-01', '0.12'],
  ['2024-12-15', '0.13'],
  ['2025-01-29', '0.14'],
  ['2025-02-13', '0.15'],
  ['2025-03-22', '0.16'],
  ['2025-04-24', '0.17'],
  ['2025-05-27', '0.18'],
  ['2025-06-20', '0.19'],
  ['2025-07-28', '0.20'],
  ['2025-08-05', '0.21'],
  ['2025-08-29', '0.22'],
  ['2025-09-09', '0.23'],
  ['2025-10-15', '0.24'],
  ['2025-11-05', '0.25'],
  ['2025-12-09', '0.26'],
  ['2026-01-15', '0.27'],
  ['2026-02-10', '0.28'],
  ['2026-02-25', '0.29'],
  ['2026-03-30', '1.0'],
  ['2026-04-11', '1.1'],
  ['2026-04-16', '1.2'],
  ['2026-04-26', '1.3'],
  ['2026-05-08', '1.4'],
  ['2026-05-25', '1.5'],
  ['2026-06-11', '1.6'],
  ['2026-06-25', '1.7'],
  ['2026-07-09', '1.8'],
  ['2026-07-21', '1.9'],
];

/**
 * The TRL release out on a case's date (YYYY-MM or YYYY-MM-DD), read as accelerateBy reads it; undefined before the
 * first listed and from the newest on (a current release).
 */
export function trlBy(date: string): string | undefined {
  return releaseOn(TRL_RELEASES, date, undefined);
}

/**
 * A case's family words as a config.json model_type. The README's families are free text ("llama", "qwen1",
 * "bert-encoder"); a model's generation or size is not a model type of its own: Llama 2 / 3 / Code Llama / Vicuna /
 * TinyLlama are `llama`, Qwen1.5 / Qwen2 / Qwen2.5 are `qwen2` (Qwen1.5 shipped as Qwen2's code), Qwen-1 is `qwen`,
 * Phi-3 / Phi-4 are `phi3`, Pythia is `gpt_neox`. undefined when the words name no supported model type.
 */
export function caseModelType(family: string): string | undefined {
  const f = family.trim().toLowerCase();
  const asType = f.replace(/[\s-]+/g, '_');
  if (SUPPORTED_MODEL_TYPES.includes(asType)) return asType;
  const rules: Array<[RegExp, string]> = [
    [/^bert/, 'bert'],
    [/^(code[\s_-]?)?llama|^tiny[\s_-]?llama|^vicuna/, 'llama'],
    [/^qwen[\s_-]?(1\.5|2(\.5)?)\b/, 'qwen2'],
    [/^qwen[\s_-]?3[\s_-]?moe/, 'qwen3_moe'],
    [/^qwen[\s_-]?3\b/, 'qwen3'],
    [/^qwen[\s_-]?(1|v1)?$/, 'qwen'],
    [/^mistral|^zephyr/, 'mistral'],
    [/^mixtral/, 'mixtral'],
    [/^gemma[\s_-]?3/, 'gemma3_text'],
    [/^gemma[\s_-]?2/, 'gemma2'],
    [/^gemma/, 'gemma'],
    [/^phi[\s_-]?[34]/, 'phi3'],
    [/^phi/, 'phi'],
    [/^gpt[\s_-]?2/, 'gpt2'],
    [/^gpt[\s_-]?neox|^pythia/, 'gpt_neox'],
    [/^gpt[\s_-]?j/, 'gptj'],
    [/^falcon/, 'falcon'],
    [/^deepseek[\s_-]?v3/, 'deepseek_v3'],
    [/^deepseek[\s_-]?v2/, 'deepseek_v2'],
    [/^olmo[\s_-]?2/, 'olmo2'],
    [/^starcoder[\s_-]?2/, 'starcoder2'],
  ];
  return rules.find(([re]) => re.test(f))?.[1];
}

/**
 * Paired preference training from the case's words (its task, method and framework), read as the analyzers read a
 * config (analyzers/resolve/preference.ts preferenceOf): DPO / IPO, with a precomputed reference where the words say
 * so; ORPO / SimPO / CPO without a reference; KTO with single completions. undefined for any other training.
 */
export function casePreference(words: string, method: string, tool: Tool | undefined): Setup['preference'] {
  const w = words.toLowerCase();
  const kind = /\b(orpo|simpo|cpo)/.test(w)
    ? 'reference-free'
    : /\bkto/.test(w)
      ? 'kto'
      : /\b(dpo|ipo)|direct preference/.test(w)
        ? 'dpo'
        : undefined;
  if (!kind) return undefined;
  return preferenceOf(kind, { method, tool, reference: /precompute/.test(w) ? 'precomputed' : undefined });
}

/**
 * A classification head where the task is sequence classification (or the model a BERT encoder, whose cases all are):
 * the labels the words count ("2 labels", "3 classes"), else 2; nothing for a language-model task.
 */
export function caseHead(task: string, modelType: string): Pick<Setup, 'head' | 'num_labels'> {
  // "Sequence classification" or a classifier head; an LM fine-tune on classification prompts keeps its LM head.
  if (modelType !== 'bert' && !/sequence[- _]?classification|classifier|classification head/i.test(task)) return {};
  const labels = Number(/(\d+)\s*(labels|classes)/i.exec(task)?.[1] ?? 2);
  return { head: 'seq_cls', num_labels: labels > 0 ? labels : 2 };
}

/**
 * 'full' | 'lora' | 'qlora' | 'ia3' | 'freeze' from the case's method (README: full, lora, qlora, qlora (GPTQ int4),
 * lora+embeddings, ia3; and freeze tuning).
 */
export function caseMethod(method: string): 'full' | 'lora' | 'qlora' | 'ia3' | 'freeze' | undefined {
  const m = method.toLowerCase();
  if (/q-?lora/.test(m)) return 'qlora';
  if (/ia3|\(ia\)/.test(m)) return 'ia3';
  if (/lora|dora/.test(m)) return 'lora';
  // LLaMA-Factory's freeze tuning: the last layers trained, the rest frozen.
  if (/freez/.test(m)) return 'freeze';
  if (/full|fft/.test(m)) return 'full';
  return undefined;
}

/** The case's words for LoRA targets, as transformers' Llama-style module names. */
const LORA_NAME_MAP: Array<[RegExp, string[]]> = [
  [/^q_proj$/, ['q_proj']],
  [/^k_proj$/, ['k_proj']],
  [/^v_proj$/, ['v_proj']],
  [/output_proj|o_proj/, ['o_proj']],
  [/w1\/w2\/w3|gate\/down\/up/, ['gate_proj', 'up_proj', 'down_proj']],
  [/^gate_proj$|^w1$/, ['gate_proj']],
  [/^up_proj$|^w3$/, ['up_proj']],
  [/^down_proj$|^w2$/, ['down_proj']],
  [/lm_head|final output/, ['lm_head']],
  // LitGPT's LoRA switches name roles (lora_query, lora_key, lora_value, lora_projection, lora_mlp, lora_head).
  [/^(lora_)?query$/, ['q_proj']],
  [/^(lora_)?key$/, ['k_proj']],
  [/^(lora_)?value$/, ['v_proj']],
  [/^(lora_)?projection$/, ['o_proj']],
  [/^(lora_)?mlp$/, ['gate_proj', 'up_proj', 'down_proj']],
  [/^(lora_)?head$/, ['lm_head']],
];

/** Model types whose attention layers are named query / key / value themselves (BERT and RoBERTa). */
const OWN_QKV_NAMES = /^(bert|roberta|xlm-roberta|camembert|electra)$/;

/** Model types whose own modules are named w1 / w2 (/ w3): Qwen-1's MLP, Mixtral's experts (transformers 4.x). */
const OWN_W_NAMES = new Set(['qwen', 'mixtral']);

/**
 * LoRA's target modules from the case's words: torchtune's names (output_proj, w1 / w2 / w3) and LitGPT's roles
 * (query, value, projection, mlp) as transformers' Llama ones (BERT's own query / key / value stay), "all-linear" as
 * PEFT's; the names of a model whose own modules are w1 / w2 (OWN_W_NAMES: Qwen-1's c_attn, c_proj, w1, w2; Mixtral's
 * experts) and any other name the map does not know as written. The output head is left
 * out: a LoRA on it is a modules_to_save question the schema does not ask. A case may write the list as one string
 * ("all-linear", "q_proj,v_proj").
 */
export function loraTargets(written: readonly string[] | string, family: string): string[] | 'all-linear' {
  const raw = typeof written === 'string' ? written.split(/[\s,]+/).filter(Boolean) : written;
  if (raw.some((r) => /^all[-_ ]linear$/i.test(r.trim()))) return 'all-linear';
  const targets = new Set<string>();
  for (const name of raw) {
    const own = OWN_W_NAMES.has(family) || (OWN_QKV_NAMES.test(family) && /^(query|key|value)$/.test(name));
    const mapped = own ? undefined : LORA_NAME_MAP.find(([re]) => re.test(name));
    if (mapped) mapped[1].forEach((n) => targets.add(n));
    else if (/^[A-Za-z_][\w.]*$/.test(name)) targets.add(name);
  }
  targets.delete('lm_head');
  return [...targets];
}

/** Module names of PEFT's modules_to_save from the case's words (the estimator matches embed / wte / lm_head / output). */
export function savedModules(method: string, listed: readonly string[] | undefined): string[] {
  const names = new Set<string>();
  for (const raw of listed ?? []) {
    if (/embed|wte|tok_embeddings|word_embeddings/i.test(raw)) names.add('embed_tokens');
    else if (/lm_head|output|embed_out/i.test(raw)) names.add('lm_head');
  }
  // "lora+embeddings" (Qwen-1's "LoRA (emb)": finetune.py modules_to_save = ["wte", "lm_head"]) trains both.
  if (names.size === 0 && /emb/i.test(method)) ['embed_tokens', 'lm_head'].forEach((n) => names.add(n));
  return [...names];
}

/** A dtype named in free text: the first of fp32 / bf16 / fp16 it mentions. */
function dtypeIn(text: string): 'fp32' | 'bf16' | 'fp16' | undefined {
  if (/bf16|bfloat16/i.test(text)) return 'bf16';
  if (/fp16|float16|half/i.test(text)) return 'fp16';
  if (/fp32|float32|full precision/i.test(text)) return 'fp32';
  return undefined;
}

export interface PrecisionText {
  readonly scheme?: string;
  readonly weights?: string;
  readonly compute?: string;
  readonly master_weights?: string;
}

type Precision = Pick<Setup, 'weights_dtype' | 'mixed_precision' | 'master_weights'>;

/** The schema's precision kinds (and their fp16 / fp32-master counterparts) as weights dtype, autocast and master. */
const PRECISION_KINDS: Readonly<Record<string, Precision>> = {
  fp32: { weights_dtype: 'fp32', mixed_precision: 'none' },
  amp_fp16: { weights_dtype: 'fp32', mixed_precision: 'fp16' },
  amp_bf16: { weights_dtype: 'fp32', mixed_precision: 'bf16' },
  pure_bf16: { weights_dtype: 'bf16', mixed_precision: 'none' },
  pure_fp16: { weights_dtype: 'fp16', mixed_precision: 'none' },
  bf16_weights_plus_autocast: { weights_dtype: 'bf16', mixed_precision: 'bf16' },
  fp16_weights_plus_autocast: { weights_dtype: 'fp16', mixed_precision: 'fp16' },
  fsdp_mixed_bf16_fp32_master: { weights_dtype: 'bf16', master_weights: true },
  deepspeed_bf16_fp32_master_trainable_only: { weights_dtype: 'bf16', master_weights: true },
  deepspeed_fp16_fp32_master_trainable_only: { weights_dtype: 'fp16', master_weights: true },
};

/**
 * Weights dtype, autocast and fp32 master from the case's precision_kind, or, for a kind the README does not list,
 * from its free-text precision (weights, compute, master weights). undefined when neither says.
 */
export function casePrecision(kind: string, text: PrecisionText | undefined): Precision | undefined {
  if (kind === 'fsdp_mixed_bf16_fp32_master' && fp32Shards(text))
    return { weights_dtype: 'fp32', mixed_precision: 'bf16' };
  return Object.hasOwn(PRECISION_KINDS, kind) ? PRECISION_KINDS[kind] : precisionFromText(text);
}

/**
 * FSDP mixed precision over parameters kept in fp32 (the first dtype the case's weights name is fp32: "fp32 shards",
 * "fp32 sharded flat params, bf16 all-gathered compute copies", where a later one is the gathered copy's): every shard
 * is fp32, the frozen ones too, and MixedPrecision's param_dtype all-gathers them in bf16. A model loaded in bf16 under
 * FSDP mixed precision keeps its frozen shards in bf16 (Accelerate upcasts the trainable ones), the kind's own mapping.
 */
function fp32Shards(text: PrecisionText | undefined): boolean {
  const first = /fp32|float32|bf16|bfloat16|fp16|float16/i.exec(text?.weights ?? '');
  return first !== null && /fp32|float32/i.test(first[0]);
}

function precisionFromText(text: PrecisionText | undefined): Precision | undefined {
  const weights = dtypeIn(text?.weights ?? '');
  if (!weights) return undefined;
  const compute = dtypeIn(text?.compute ?? '') ?? weights;
  const autocast = /autocast|amp|mixed/i.test(`${text?.compute ?? ''} ${text?.scheme ?? ''}`);
  const master = /fp32|float32/i.test(text?.master_weights ?? '') && weights !== 'fp32';
  const mixed = compute === 'fp32' ? 'none' : compute !== weights || autocast ? compute : 'none';
  return { weights_dtype: weights, mixed_precision: mixed, ...(master ? { master_weights: true } : {}) };
}

/** The optimizer of the schema from the case's optimizer name. */
export function caseOptimizer(name: string): NonNullable<Setup['optimizer']> {
  const on = name.toLowerCase();
  if (/adafactor/.test(on)) return 'adafactor';
  if (/adam[- _]?mini/.test(on)) return 'adam_mini';
  if (/muon/.test(on)) return 'muon';
  if (/lion/.test(on)) return /8[- ]?bit/.test(on) ? 'lion_8bit' : 'lion';
  if (/\bsgd\b/.test(on)) return /momentum/.test(on) ? 'sgd_momentum' : 'sgd';
  if (/4[- ]?bit/.test(on)) return 'adamw_4bit';
  // "AdamW8bit/PagedAdamW8bit" names both classes: the unpaged one is taken.
  if (/8[- ]?bit/.test(on)) return /paged/.test(on) && !/\bor\b|\//.test(on) ? 'paged_adamw_8bit' : 'adamw_8bit';
  if (/paged/.test(on)) return 'paged_adamw';
  if (/adamw_hf|transformers\.adamw/.test(on)) return 'adamw_hf';
  // DeepSpeed's FusedAdam and torch's fused=True step from one kernel per group; DeepSpeedCPUAdam steps on the host.
  if (/fused/.test(on)) return 'adamw_fused';
  return 'adamw';
}

/** Attention from the case's words: eager, FlashAttention (the flash-attn package), or SDPA (torch's kernels). */
export function caseAttention(attention: string): Pick<Setup, 'attention' | 'attention_kernel'> {
  if (/xformers/i.test(attention)) return { attention: 'flash', attention_kernel: 'xformers' };
  if (/flash[-_ ]?attn|flash_attention_2|flash[- ]?attention[- ]?2|\bfa2\b|flash attn/i.test(attention))
    return { attention: 'flash' };
  // Of eager and SDPA both named, the first: "eager (transformers 4.36; SDPA not default yet)" is eager.
  const words = attention ?? '';
  const eager = words.search(/eager|materiali[sz]ed|math/i);
  const sdpa = words.search(/sdpa/i);
  if (eager >= 0 && (sdpa < 0 || eager < sdpa)) return { attention: 'eager' };
  return { attention: 'sdpa' };
}

/** The loss: chunked (torchtune / LitGPT chunks), fused (Liger, Cut Cross-Entropy: no logits kept), or full. */
export function caseLoss(loss: string): NonNullable<Setup['loss']> {
  if (/chunked[_ ]nll/i.test(loss)) return 'chunked-nll';
  // "CrossEntropyLoss on full logits (non-chunked)": the word names what the loss is not.
  if (/chunk/i.test(String(loss ?? '').replace(/\b(non|un|not)[- ]?chunked\b/gi, ''))) return 'chunked';
  if (/liger|fused|cut[- ]cross|\bcce\b|linear[- ]cross/i.test(loss)) return 'fused';
  return 'full';
}

/**
 * Checkpointing from gradient_checkpointing_kind: none, full, selective_op, or unsloth_cpu_offloaded (Unsloth's
 * use_gradient_checkpointing="unsloth": each checkpointed layer's input goes to the host, as activation offloading
 * does with whole-layer checkpointing).
 */
export function caseCheckpointing(kind: string): Pick<Setup, 'gradient_checkpointing' | 'activation_offloading'> {
  if (/^(none|no|off|false)$/i.test(kind.trim())) return { gradient_checkpointing: 'none' };
  if (/selective/i.test(kind)) return { gradient_checkpointing: 'selective' };
  if (/offload/i.test(kind)) return { gradient_checkpointing: 'full', activation_offloading: true };
  return { gradient_checkpointing: 'full' };
}

export interface Distributed {
  readonly strategy: string;
  readonly num_gpus: number;
  readonly zero_stage: number;
  readonly cpu_offload_params: boolean;
  readonly cpu_offload_optimizer: boolean;
}

/** GPUs per node and nodes: whole nodes of 8 when the count divides by 8, else one node of them all. */
export function caseNodes(gpus: number): Pick<Setup, 'gpus_per_node' | 'nodes'> {
  return gpus > 8 && gpus % 8 === 0 ? { gpus_per_node: 8, nodes: gpus / 8 } : { gpus_per_node: gpus, nodes: 1 };
}

/** FSDP's sharding from the strategy's words, else from zero_stage (README: 0 = NO_SHARD, 2, 3 = FULL_SHARD). */
function fsdpSharding(strategy: string, stage: number): NonNullable<Setup['fsdp']> {
  if (/no[_ ]shard/i.test(strategy)) return 'no_shard';
  if (/hybrid/i.test(strategy)) return 'hybrid_shard';
  if (/shard[_ ]grad[_ ]op/i.test(strategy)) return 'shard_grad_op';
  if (/full[_ ]shard|fully_shard/i.test(strategy)) return 'full_shard';
  return stage === 3 ? 'full_shard' : stage === 2 ? 'shard_grad_op' : 'no_shard';
}

/** FSDP2 (fully_shard) where the words or the stack say so, FSDP1 where they name it; else unset (FSDP1 assumed). */
function fsdpVersion(strategy: string, text: CaseText, tool: Tool | undefined): 1 | 2 | undefined {
  const words = `${strategy} ${text.framework}`;
  if (/fsdp ?2|fsdpv2|fully_shard|fsdp_version[:= ]+2/i.test(words)) return 2;
  if (tool === 'torchtune' || /torchtitan/i.test(text.framework)) return 2;
  if (/fsdp ?1|fullyshardeddataparallel|fsdp_version[:= ]+1/i.test(words)) return 1;
  return undefined;
}

/** The ZeRO stage the case runs, from zero_stage or the strategy's "ZeRO-n". */
function zeroStage(d: Distributed): 0 | 1 | 2 | 3 {
  const named = /zero[- _]?(stage[- _]?)?([0-3])/i.exec(d.strategy)?.[2];
  const stage = Number(named ?? d.zero_stage);
  return stage === 1 || stage === 2 || stage === 3 ? stage : 0;
}

/** Parallelism: FSDP (which and how sharded), DeepSpeed ZeRO, or DDP; with the offloads the case names. */
export function caseParallelism(d: Distributed, text: CaseText, tool: Tool | undefined): Setup {
  const s: Setup = { ...caseNodes(Math.max(1, d.num_gpus)) };
  const fsdp = /fsdp|fully_shard|fullyshardeddataparallel/i.test(d.strategy);
  const zero = !fsdp && (/deepspeed|zero/i.test(d.strategy) || tool === 'deepspeed') && zeroStage(d) > 0;
  if (fsdp) {
    s.fsdp = fsdpSharding(d.strategy, d.zero_stage);
    const version = fsdpVersion(d.strategy, text, tool);
    if (version) s.fsdp_version = version;
    if (/embeddings and output sharded separately/i.test(d.strategy)) s.fsdp_shard_embeddings = true;
    // FSDP1's use_orig_params where the case states it (a CPU-offloaded unit's GPU copy of its shard depends on it).
    const orig = /use_orig_params\W{0,3}(true|false)/i.exec(`${d.strategy} ${text.notes}`)?.[1].toLowerCase();
    if (orig) s.fsdp_use_orig_params = orig === 'true';
    const prefetch = /backward_(pre|post)|no_prefetch/i.exec(d.strategy)?.[0].toLowerCase();
    if (prefetch)
      s.fsdp_backward_prefetch = prefetch === 'no_prefetch' ? 'none' : prefetch === 'backward_pre' ? 'pre' : 'post';
  } else if (zero || (d.num_gpus > 1 && zeroStage(d) > 0)) {
    s.zero_stage = zeroStage(d);
  }
  Object.assign(s, modelParallel(d.strategy));
  if ((fsdp || s.zero_stage) && d.cpu_offload_optimizer) s.offload_optimizer = 'cpu';
  if ((fsdp || s.zero_stage) && d.cpu_offload_params) s.offload_params = 'cpu';
  return s;
}

/**
 * Tensor, pipeline and context parallel degrees the strategy's words give ("TP=2", "tensor parallel 4", "PP 2",
 * "context_parallel_degree=2"), and Megatron's sequence parallelism; none where the words name none.
 */
export function modelParallel(strategy: string | undefined): Setup {
  const w = (strategy ?? '').toLowerCase();
  const degree = (short: string, long: string): number | undefined => {
    const re = new RegExp(
      `\\b(?:${short}|(?:${long})[_ -]?parallel(?:ism)?(?:[_ -](?:size|degree))?)\\s*[=:]?\\s*(\\d+)`,
    );
    const n = Number(re.exec(w)?.[1]);
    return n > 1 ? n : undefined;
  };
  const s: Setup = {};
  const tp = degree('tp', 'tensor[_ -]?model|tensor');
  const pp = degree('pp', 'pipeline[_ -]?model|pipeline');
  const cp = degree('cp', 'context');
  if (tp) s.tensor_parallel = tp;
  if (pp) s.pipeline_parallel = pp;
  if (cp) s.context_parallel = cp;
  if (tp && /sequence[_ -]?parallel|\bsp\b/.test(w)) s.sequence_parallel = true;
  return s;
}

/**
 * The DeepSpeed file a tool ships for the stage (Axolotl's deepspeed_configs, LLaMA-Factory's examples/deepspeed),
 * when the case runs ZeRO through that tool and states no buckets of its own.
 */
export function shippedZero(tool: Tool | undefined, s: Setup): Setup['zero_buckets'] {
  if ((tool !== 'axolotl' && tool !== 'llamafactory') || !s.zero_stage) return undefined;
  const bf16 = s.weights_dtype === 'bf16' || s.mixed_precision === 'bf16';
  return shippedZeroBuckets(tool, s.zero_stage, s.offload_optimizer ?? 'none', s.offload_params ?? 'none', bf16);
}

/**
 * The behaviour of the case's stack that its description does not restate: which model code runs, whether the loop
 * keeps its outputs, FSDP's no_sync, prefetch and use_orig_params under the tool, from the tool's documented defaults
 * (analyzers/defaults.ts), for the keys the case left unset.
 */
export function stackDefaults(tool: Tool | undefined, s: Setup): Setup {
  if (!tool) return {};
  const out: Record<string, unknown> = {};
  const sharded = s.fsdp !== undefined && s.fsdp !== 'none';
  const fields = [
    'model_code',
    'model_logits_fp32',
    'loop_keeps_outputs',
    'use_cache',
    // FSDP1's backward prefetch is left to the case's words (caseParallelism): Accelerate's plugin has none unless
    // its config names one, and the configs people launch with (\`accelerate config\`, PEFT's, Axolotl's) name
    // BACKWARD_PRE.
    ...(sharded ? (['fsdp_no_sync', 'fsdp_use_orig_params'] as const) : []),
  ] as const;
  for (const field of fields) {
    const d = toolDefault([tool], field);
    if (d && (s as Record<string, unknown>)[field] === undefined) out[field] = d.value;
  }
  // LitGPT quantizes through Fabric's BitsandbytesPrecision: every nn.Linear with the head, from fp16.
  if (tool === 'litgpt' && s.quantization && s.quantization.type !== 'gptq')
    out.quantization = { ...s.quantization, head: true, dequant_dtype: 'fp16' };
  // A loop of its own that wraps the model in torch's FullyShardedDataParallel (no Accelerate, which would pass
  // use_orig_params=True) gets the constructor's default, False (torch/distributed/fsdp/fully_sharded_data_parallel.py),
  // as the Python analyzer reads a `FSDP(...)` call that does not name it.
  if (tool === 'pytorch' && sharded && s.fsdp_version !== 2 && s.fsdp_use_orig_params === undefined)
    out.fsdp_use_orig_params = false;
  return out as Setup;
}

/**
 * What a recipe the case names sets in the configs it ships, where the case does not say: PEFT's examples/sft FSDP
 * configs (configs/fsdp_config.yaml, fsdp_config_qlora.yaml; run_peft_fsdp.sh, run_peft_qlora_fsdp.sh) save a
 * SHARDED_STATE_DICT (terms/checkpoint-save.ts). Named in the case's words (the recipe, its scripts or configs), or the
 * page that documents its runs being the case's source.
 */
export function recipeDefaults(text: CaseText, s: Setup, source: CaseSource = {}): Setup {
  const words = `${text.framework} ${text.notes}`;
  const named =
    /peft\b[^.;]*(examples\/sft|fsdp_config)|(examples\/sft|fsdp_config)[^.;]*\bpeft|run_peft_(qlora_)?fsdp/i;
  // PEFT's own page for the recipe (docs/source/accelerate/fsdp.md) documents runs of these configs; an SFT run that
  // PEFT's repository publishes is that recipe's (examples/sft is its SFTTrainer script).
  const documented =
    /^huggingface\/peft$/i.test(source.repo ?? '') &&
    (/accelerate\/fsdp|examples\/sft/i.test(`${source.path} ${source.url}`) || /\bsft/i.test(text.framework));
  const peftSft = named.test(words) || documented;
  // Answer.AI's fsdp_qlora train.py (AnswerDotAI/fsdp_qlora@05ed9f2) builds its config with use_cache = False and keeps
  // the forward's output (its logits) until after the backward (`output = None` there).
  const answerAi = /fsdp[_-]qlora|answer\.?ai/i.test(words)
    ? ({ loop_keeps_outputs: 'step', use_cache: false } as const)
    : {};
  return {
    ...answerAi,
    ...(peftSft && s.fsdp !== undefined && s.fsdp !== 'none' ? { fsdp_state_dict_type: 'sharded' } : {}),
  };
}

/** Where a case's figure was published: the repository and the file or page. */
export interface CaseSource {
  readonly repo?: string;
  readonly path?: string;
  readonly url?: string;
}

/**
 * What Accelerate's FSDP preparation does by release, for a stack that runs through it (the analyzers' rules,
 * analyzers/accelerate-fsdp.ts): the fp32 upcast of a 16-bit model's trainable parameters, FSDP2's ineffective no_sync
 * before 1.11 (the no_sync here being the stack's default, stackDefaults), FSDP2's tail unit from 1.14.
 */
export function accelerateFsdp(tool: Tool | undefined, s: Setup): Setup {
  if (!tool || !ACCELERATE_FSDP_TOOLS.has(tool)) return {};
  return accelerateFsdpPatch(s, { masterWeightsStated: false, noSyncFromDefault: true });
}

/** The HF Trainer's DDP find_unused_parameters, for a stack that runs its DDP through it (analyzers/trainer-ddp.ts). */
export function trainerDdp(tool: Tool | undefined, s: Setup): Setup {
  const rule = tool ? trainerFindUnused(tool, s) : undefined;
  return rule ? { ddp_find_unused_parameters: rule.value } : {};
}
