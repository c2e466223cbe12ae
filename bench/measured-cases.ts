// Converts a case of the published-measurement set (shared/reference/measured.json) into a TrainingSetup,
// reading only the case's own description (model dims, method, precision, optimizer, batch, parallelism),
// and picks the estimate figure that matches the metric the case measured.
import type { Estimate } from '../src/core/model';
import { TrainingSetupSchema, type TrainingSetup, type TrainingSetupInput } from '../src/core/setup';
import { GiB, MiB } from '../src/core/units';
import { GPU_CATALOG, type GpuSpec } from '../src/core/catalog/gpus';
import type { EstimateOptions } from '../src/core/estimate';
import { FAMILY_ALIASES, FAMILY_TRAITS, peftDefaultLoraTargets, type ConfigKeys } from '../src/core/architecture';
import { findModel } from '../src/core/lookup';
import { olderThan } from '../src/core/util/version';
import type { Tool } from '../src/analyzers/facts';
import { bitsandbytesLoad, shardsModel, trlQuantizedPreparation } from '../src/analyzers/trl-quantized';
import {
  accelerateBy,
  deepspeedBy,
  accelerateFsdp,
  torchBy,
  trlBy,
  trainerDdp,
  caseAttention,
  caseHead,
  caseCheckpointing,
  caseLoss,
  caseMethod,
  caseModelType,
  caseOptimizer,
  caseParallelism,
  casePreference,
  casePrecision,
  caseTool,
  recipeDefaults,
  loraTargets,
  savedModules,
  shippedZero,
  stackDefaults,
  type Distributed,
  type PrecisionText,
  type SetupPart,
} from './case-reading';

export interface MeasuredCase {
  id: string;
  model: {
    family: string;
    num_layers: number;
    hidden_size: number;
    num_attention_heads: number;
    num_kv_heads: number;
    intermediate_size: number;
    vocab_size: number;
    tied_embeddings: boolean;
    num_params: number;
    max_position_embeddings?: number;
    hf_id?: string;
    name?: string;
    num_decoder_layers?: number;
  };
  source?: {
    repo?: string;
    path?: string;
    url?: string;
    date?: string;
    quote?: string;
    /** The command the source shows for its runs (PEFT's docs: `accelerate launch ... --use_reentrant False`). */
    template_command?: string;
  };
  training: {
    framework?: string;
    task?: string;
    method: string;
    lora?: {
      rank: number;
      alpha: number;
      dropout: number;
      target_modules: string[] | string;
      adapter_dtype: string;
      modules_to_save?: string[];
      use_dora?: boolean;
    };
    ia3?: { target_modules: string[]; feedforward_modules: string[] };
    quantization?: { bits: number; type: string; applies_to: string; double_quant?: boolean };
    precision_kind: string;
    precision?: PrecisionText;
    optimizer: { name: string; optimizer_in_backward?: boolean };
    micro_batch_size: number;
    grad_accum: number;
    seq_len: number;
    seq_len_kind?: string;
    gradient_checkpointing_kind: string;
    attention: string;
    loss: string;
    compile?: boolean;
    activation_offloading?: boolean | null;
    distributed: Distributed;
  };
  hardware?: { gpu?: string; gpu_memory_gib?: number; num_gpus?: number };
  measurement: {
    metric_kind: string;
    metric?: string;
    value_gib: number;
    value?: number;
    unit?: string;
    includes_cuda_context?: boolean;
    cuda_context_reference_mib?: number;
  };
  notes?: string;
}

/**
 * transformers 4.x minor releases by the month after their release (github.com/huggingface/transformers/releases):
 * the newest release out before the month a case was published in.
 */
const TRANSFORMERS_RELEASES: ReadonlyArray<readonly [string, string]> = [
  ['2023-01', '4.25'],
  ['2023-02', '4.26'],
  ['2023-04', '4.27'],
  ['2023-05', '4.28'],
  ['2023-06', '4.29'],
  ['2023-07', '4.30'],
  ['2023-08', '4.31'],
  ['2023-09', '4.32'],
  ['2023-10', '4.33'],
  ['2023-11', '4.34'],
  ['2023-12', '4.35'],
  ['2024-01', '4.36'],
  ['2024-02', '4.37'],
  ['2024-03', '4.38'],
  ['2024-04', '4.39'],
  ['2024-05', '4.40'],
  ['2024-06', '4.41'],
  ['2024-07', '4.42'],
  ['2024-08', '4.43'],
  ['2024-09', '4.44'],
  ['2024-10', '4.45'],
  ['2024-11', '4.46'],
  ['2025-01', '4.47'],
  ['2025-02', '4.48'],
  ['2025-03', '4.49'],
];

/** The transformers release current at the start of a case's month (YYYY-MM...), from 2023 to February 2025. */
function releasedBy(date: string): string | undefined {
  const month = /^\d{4}-\d{2}/.exec(date)?.[0];
  if (!month) return undefined;
  // Before the table: 4.24 (November 2022) or older, alike in all the estimator reads by release (each change it
  // models came from 4.39 on).
  if (month < TRANSFORMERS_RELEASES[0][0]) return '4.24';
  const next = TRANSFORMERS_RELEASES.findIndex(([from]) => from > month);
  // From the last entry's month on (4.49 and later), the 4.57 default stands.
  return next > 0 ? TRANSFORMERS_RELEASES[next - 1][1] : undefined;
}

/**
 * The case's architecture as a config.json would give it: the catalog's config.json for the model the case names, when
 * its depth and width are the case's (what the schema does not ask: head_dim, activation, biases, experts, norms), with
 * the case's own fields over it; positions from the catalog when the case has none.
 */
function caseArchitecture(
  m: MeasuredCase['model'],
  published: Record<string, unknown> | undefined,
  modelType: string,
): Record<string, unknown> {
  const keys = configKeys(modelType);
  const stated: Record<string, unknown> = { model_type: modelType, tie_word_embeddings: m.tied_embeddings };
  const put = (names: readonly string[], v: number | undefined) => {
    for (const n of names) stated[n] = v;
  };
  put(keys.hidden.keys, m.hidden_size);
  put(keys.layers.keys, m.num_layers);
  // T5: num_layers is the encoder's, num_decoder_layers the decoder's (the encoder's when not given).
  if (m.num_decoder_layers !== undefined) stated.num_decoder_layers = m.num_decoder_layers;
  put(keys.heads.keys, m.num_attention_heads);
  put(['num_key_value_heads'], m.num_kv_heads);
  put(FFN_KEYS, m.intermediate_size);
  put(keys.vocab, m.vocab_size);
  // A field the case leaves out keeps the catalog's value.
  const architecture: Record<string, unknown> = { ...published };
  for (const [k, v] of Object.entries(stated)) if (v !== undefined && v !== null) architecture[k] = v;
  const positions = m.max_position_embeddings ?? published?.max_position_embeddings;
  if (typeof positions === 'number') architecture.max_position_embeddings = positions;
  // BertForSequenceClassification, 2 labels; the case's parameter count includes its pooler and classifier.
  if (modelType === 'bert') architecture.architectures = ['BertForSequenceClassification'];
  return architecture;
}

/** Where each family's config.json keeps the MLP width: LlamaConfig's, T5's, GPT-2's / GPT-J's, OPT's, Falcon's. */
const FFN_KEYS = ['intermediate_size', 'd_ff', 'n_inner', 'ffn_dim', 'ffn_hidden_size'] as const;

/** The config.json keys of a model type's family (T5's d_model / num_heads, GPT-2's n_embd / n_layer), else LlamaConfig's. */
function configKeys(modelType: string): ConfigKeys {
  const family = Object.hasOwn(FAMILY_ALIASES, modelType) ? FAMILY_ALIASES[modelType] : 'llama';
  return FAMILY_TRAITS[family].keys;
}

/**
 * The catalog's config.json of the model the case names (the first Hub id of its hf_id that the catalog lists, else
 * its name), when that config has the case's layers and hidden size where the case states them (a case may describe
 * a variant of the model), under any of the keys its family uses.
 */
function publishedConfig(m: MeasuredCase['model']): Record<string, unknown> | undefined {
  for (const id of [...(m.hf_id?.match(/[\w.-]+\/[\w.-]+/g) ?? []), m.name]) {
    const found = id ? findModel(id) : undefined;
    if (!found?.ok) continue;
    const config = found.model.config as Record<string, unknown>;
    const keys = configKeys(String(config.model_type));
    const same = (names: readonly string[], v: number | undefined) =>
      v === undefined || v === null || names.some((n) => config[n] === v);
    if (same(keys.layers.keys, m.num_layers) && same(keys.hidden.keys, m.hidden_size)) return config;
  }
  return undefined;
}

/**
 * The adapters' dtype from the case's words: the first dtype they name (fp32 / float32, bf16 / bfloat16, fp16 /
 * float16 / half), else the model weights' dtype ("same as the model"), else bf16.
 */
export function adapterDtype(text: string, weights: string | undefined): 'fp32' | 'fp16' | 'bf16' {
  const named = /\b(fp32|float32|bf16|bfloat16|fp16|float16|half)\b/i.exec(text)?.[1].toLowerCase();
  const dtype = named ?? weights?.toLowerCase() ?? 'bf16';
  if (/fp32|float32/.test(dtype)) return 'fp32';
  if (/bf16|bfloat16/.test(dtype)) return 'bf16';
  return /fp16|float16|half/.test(dtype) ? 'fp16' : 'bf16';
}

/** PEFT's default LoRA targets for a model type, as a LoRA block's part; none where PEFT has none. */
function peftTargets(modelType: string): { target_modules?: string[] } {
  const d = peftDefaultLoraTargets(modelType);
  return d ? { target_modules: [...d] } : {};
}

/** LoRA (with DoRA and modules_to_save) or IA3 as the case describes its adapters. */
function caseAdapters(t: MeasuredCase['training'], method: string, family: string): SetupPart {
  const s: SetupPart = {};
  // PEFT IA3Config: vectors in fp32 (autocast_adapter_dtype=True).
  if (method === 'ia3' && t.ia3)
    s.ia3 = { target_modules: t.ia3.target_modules, feedforward_modules: t.ia3.feedforward_modules, dtype: 'fp32' };
  if (t.lora) {
    const targets = loraTargets(t.lora.target_modules, family);
    const saved = savedModules(t.method, t.lora.modules_to_save);
    s.lora = {
      r: t.lora.rank,
      alpha: t.lora.alpha,
      dropout: t.lora.dropout,
      // None named: PEFT's default for the model type (LoraConfig without target_modules), else LoraSchema's.
      ...(targets === 'all-linear' || targets.length > 0 ? { target_modules: targets } : peftTargets(family)),
      dtype: adapterDtype(t.lora.adapter_dtype, t.precision?.weights),
      ...(saved.length > 0 ? { modules_to_save: saved } : {}),
      ...(t.lora.use_dora === true || /dora/i.test(t.method) ? { use_dora: true } : {}),
    };
  }
  return s;
}

/** The 4/8-bit load: bitsandbytes NF4 / int8, torchao NF4 (torchtune) or GPTQ, with the library release it ran. */
function caseQuantization(c: MeasuredCase): SetupPart {
  const t = c.training;
  if (!t.quantization) return {};
  const s: SetupPart = {};
  const torchao = /torchao/i.test(t.quantization.type);
  const words = `${t.quantization.type} ${t.method}`;
  // GPTQ and AWQ checkpoints carry their own int4 weights (no bitsandbytes release applies).
  const packed = /gptq/i.test(words) ? 'gptq' : /\bawq/i.test(words) ? 'awq' : undefined;
  s.quantization = {
    bits: t.quantization.bits === 8 ? 8 : 4,
    type: packed ?? (t.quantization.bits === 8 ? 'int8' : /fp4/i.test(t.quantization.type) ? 'fp4' : 'nf4'),
    // Every block linear, whatever the case's applies_to says: torchtune's qlora builders store the ones without LoRA
    // as FrozenNF4Linear, and bitsandbytes through transformers (BitsAndBytesConfig; Answer.AI's replace_linear and
    // LitGPT's BitsandbytesPrecision alike) replaces every nn.Linear but the head (llm_int8_skip_modules), not only
    // the LoRA targets.
    // Double quantization: named in the type ("NF4 double quant", bitsandbytes' "nested" quantization) or a flag.
    double_quant: torchao || t.quantization.double_quant === true || /double|nested/i.test(t.quantization.type),
    scope: 'all-linear',
    // torchao's NF4Tensor shards its constants with its codes under FSDP and keeps no matmul input; bitsandbytes keeps
    // a 4-bit weight's QuantState on the module, whole on every GPU (terms/quantization.ts).
    ...(torchao ? { library: 'torchao' as const } : {}),
  };
  // torchtune's releases before May 2024 (v0.1.x) pinned torchao 0.1 (torchtune 0.1.1 requirements.txt).
  if (torchao && c.source?.repo === 'pytorch/torchtune' && (c.source.date ?? '9999') < '2024-05')
    s.torchao_version = '0.1';
  // bitsandbytes: the release the case names, else the last before 0.43.2 for a case published before August 2024
  // (0.43.2, July 2024, is the first whose 4-bit matmul keeps no input: bitsandbytes-foundation/bitsandbytes#1270).
  const bnb = /bitsandbytes\s*v?(\d+\.\d+(?:\.\d+)?)/i.exec(`${t.framework ?? ''} ${t.quantization.type}`);
  if (!torchao && !packed && bnb) s.bitsandbytes_version = bnb[1];
  else if (!torchao && !packed && (c.source?.date ?? '9999') < '2024-08') s.bitsandbytes_version = '0.43.1';
  return s;
}

/** The library releases of the case's stack: torch, transformers, Accelerate; named, or current on its date. */
function caseVersions(c: MeasuredCase, tool: Tool | undefined): SetupPart {
  const t = c.training;
  const s: SetupPart = {};
  // PyTorch: the release the case names, else the one out on its date. Before 2.0 zero_grad() kept gradient buffers
  // (set_to_none=False by default).
  const torch = /torch (\d+\.\d+)/i.exec(t.framework ?? '')?.[1] ?? torchBy(c.source?.date ?? '9999');
  if (torch) s.pytorch_version = torch;
  if (/torch 1\./i.test(t.framework ?? '') || (torch && olderThan(torch, 2, 0))) s.zero_grad_set_to_none = false;
  // The transformers release the case names; else, for a run through transformers' own models, the release current
  // when the case was published (releasedBy); else the last 4.x line for a case published before 2026 (5.0 came out of
  // its release candidates in 2026). It decides how MoE experts are stored (one nn.Linear per expert before 5.0) and
  // how the causal-LM loss shifts the logits (before 4.49).
  const hfVersion = /transformers ~?(\d+\.\d+)/.exec(t.framework ?? '');
  const date = c.source?.date ?? '9999';
  const ownModels = /torchtune|torchtitan|litgpt|megatron|nanogpt/i.test(t.framework ?? '');
  const current = ownModels ? undefined : releasedBy(date);
  if (hfVersion) s.transformers_version = hfVersion[1];
  else if (current) s.transformers_version = current;
  else if (date < '2026-01') s.transformers_version = '4.57';
  // Accelerate: the release the case names, else the one out on its date, for a stack that runs through it (its FSDP
  // preparation and checkpoint saving changed by release: terms/checkpoint-save.ts, accelerateFsdp).
  const named = /accelerate\s*v?(\d+\.\d+)/i.exec(t.framework ?? '')?.[1];
  const dated = !ownModels && tool !== 'pytorch' ? accelerateBy(date) : undefined;
  if (named ?? dated) s.accelerate_version = named ?? dated;
  // TRL: the release the case names, else the one out on its date (its trainers' passes and their preparation of a
  // quantized model changed by release: terms/logits-loss.ts, analyzers/trl-quantized.ts).
  const trl =
    tool === 'trl' ? (/\btrl\s*v?(\d+\.\d+(?:\.\d+)?)/i.exec(t.framework ?? '')?.[1] ?? trlBy(date)) : undefined;
  if (trl) s.trl_version = trl;
  // DeepSpeed: the release the case names, else the one out on its date, for a run that names it (its ZeRO-1/2
  // buckets and ZeRO-3's reentrant recomputation changed by release: estimate/deepspeed-release.ts).
  const ds = /deepspeed\s*v?(\d+\.\d+(?:\.\d+)?)/i.exec(t.framework ?? '')?.[1];
  const usesDeepspeed =
    (t.distributed?.zero_stage ?? 0) > 0 ||
    /deepspeed|\bzero[- ]?[123]\b/i.test(`${t.framework ?? ''} ${t.distributed?.strategy ?? ''}`);
  if (ds ?? (usesDeepspeed ? deepspeedBy(date) : undefined)) s.deepspeed_version = ds ?? deepspeedBy(date);
  // Lit-GPT's finetune scripts ran the longest sample first from Lightning-AI/lit-gpt@fa5d73e (2023-06-21) until its
  // DataLoader came in at 73baa2d (2024-02-29).
  if (tool === 'litgpt' && date >= '2023-06-21' && date < '2024-02-29') s.longest_batch_first = true;
  // Before Lightning-AI/lit-gpt@50b1974b (2023-10-24) a multi-query model's key and value heads reached SDPA unrepeated.
  if (tool === 'litgpt' && date < '2023-10-24') s.litgpt_mqa_broadcast = true;
  return s;
}

/** Checkpointing, attention, loss, kernels and compile as the case states them. */
function caseKernels(c: MeasuredCase, tool: Tool | undefined): SetupPart {
  const t = c.training;
  const s: SetupPart = {
    ...caseCheckpointing(t.gradient_checkpointing_kind),
    ...caseAttention(t.attention),
    loss: caseLoss(t.loss),
    compile: t.compile === true,
  };
  if (t.activation_offloading === true) s.activation_offloading = true;
  if (tool === 'unsloth') s.kernels = 'unsloth';
  else if (/liger/i.test(`${t.framework ?? ''} ${t.loss}`)) s.kernels = 'liger';
  // torchtitan's torch.compile wraps each transformer block; the output projection and the loss run eager.
  if (s.compile && /torchtitan/i.test(t.framework ?? '')) s.compile_loss = false;
  // use_reentrant where the case says it; torchtune, torchtitan and LitGPT checkpoint through checkpoint_wrapper, whose
  // default is CheckpointImpl.NO_REENTRANT. Otherwise transformers' default for its release (kept-inputs.ts).
  // The launch command a source gives (`--use_reentrant False` in PEFT's FSDP docs) says it too.
  const command = c.source?.template_command ?? '';
  const ckText = `${t.gradient_checkpointing_kind ?? ''} ${t.framework ?? ''} ${c.notes ?? ''} ${command}`;
  if (/use_reentrant\s*[=:]?\s*false|non[- _]?reentrant/i.test(ckText)) s.checkpoint_reentrant = false;
  else if (/use_reentrant\s*[=:]?\s*true|\breentrant\b/i.test(ckText)) s.checkpoint_reentrant = true;
  else if (/torchtune|torchtitan|litgpt/i.test(t.framework ?? '')) s.checkpoint_reentrant = false;
  // Answer.AI's train.py checkpoints through apply_activation_checkpointing on the FSDP-wrapped model: checkpoint_wrapper
  // inside each unit (terms/fsdp1-frozen-inputs.ts); so do torchtune, torchtitan and LitGPT.
  if (
    /Answer\.AI|apply_activation_checkpointing|checkpoint_wrapper|torchtune|torchtitan|litgpt/i.test(t.framework ?? '')
  )
    s.checkpoint_wrapper = true;
  return s;
}

/**
 * What a TRL run's release (caseVersions) does to a bitsandbytes 4/8-bit model (src/analyzers/trl-quantized.ts). A
 * QLoRA run through the HF Trainer without TRL (the case names a Trainer) prepares its model as PEFT's QLoRA recipe does
 * (peft docs developer_guides/quantization: prepare_model_for_kbit_training, every unquantized parameter in fp32),
 * unless FSDP or ZeRO-3 shards the 4-bit weights (the recipe leaves the call out there). A plain loop over a
 * transformers model (PEFT's MetaMathQA harness loads its int4 / int8 models without the call) keeps them as loaded.
 */
function caseQuantizedPreparation(c: MeasuredCase, tool: Tool | undefined, s: TrainingSetupInput): SetupPart {
  const q = s.quantization;
  if (tool === 'trl') {
    const prep = trlQuantizedPreparation({
      trl_version: s.trl_version,
      quantization: q,
      mixed_precision: s.mixed_precision ?? 'none',
      preference: s.preference,
      rollout: s.rollout,
      fsdp: s.fsdp ?? 'none',
      zero_stage: s.zero_stage ?? 0,
    } as Parameters<typeof trlQuantizedPreparation>[0]);
    // The adapters' dtype stays the case's own words (caseAdapters).
    return prep ? { kbit_upcast: prep.kbitUpcast } : {};
  }
  const trainer =
    /\btrainer\b/i.test(c.training.framework ?? '') && !/\bloop\b|harness/i.test(c.training.framework ?? '');
  return tool === 'hf-trainer' && trainer && bitsandbytesLoad(q) && !shardsModel(s) ? { kbit_upcast: 'all' } : {};
}

/**
 * The case with the schema's readings of what it leaves out, and the catalog's config of its model, or why it cannot
 * be compared: a case needs its model's widths (unless the catalog has the model), its training and its measurement.
 * Without a method it is LoRA where it describes adapters (QLoRA with a 4-bit load), else a full fine-tune; without a
 * distribution, one GPU (or the hardware's count with nothing sharded), and without offload flags what the strategy's
 * words say; without an optimizer, AdamW (torch's and the Trainer's default); without a checkpointing kind, the raw
 * gradient_checkpointing; LoRA without target modules takes PEFT's defaults for the model.
 */
function completeCase(
  c: MeasuredCase,
): { ok: true; c: MeasuredCase; published: Record<string, unknown> | undefined } | { ok: false; reason: string } {
  const missing = (['model', 'training', 'measurement'] as const).filter((k) => typeof c[k] !== 'object' || !c[k]);
  if (missing.length > 0) return { ok: false, reason: `no ${missing.join(', ')} in the case` };
  const m = c.model;
  // Widths the catalog's config of the named model gives need not be stated.
  const published = publishedConfig(m);
  const widths = published ? [] : (['num_layers', 'hidden_size', 'num_attention_heads', 'vocab_size'] as const);
  for (const k of widths) if (typeof m[k] !== 'number') return { ok: false, reason: `model.${k} is not a number` };
  // The schema's required fields, read as a published case may leave them out.
  const t = c.training as Partial<MeasuredCase['training']>;
  const quantized = typeof t.quantization?.bits === 'number' && t.quantization.bits <= 8;
  const method = t.method ?? (t.lora ? (quantized ? 'qlora' : 'lora') : t.ia3 ? 'ia3' : 'full');
  const gpus = c.hardware?.num_gpus ?? 1;
  // Offload flags left out: the strategy's words (FSDP's CPUOffload moves the parameters and steps on the host).
  const words = t.distributed?.strategy ?? '';
  const offload = /offload/i.test(words) && !/no[-_ ]?offload|without offload/i.test(words);
  const distributed: Distributed = {
    strategy: gpus > 1 ? 'DDP' : 'single GPU',
    num_gpus: gpus,
    zero_stage: 0,
    cpu_offload_params: offload && /fsdp|fully_shard|param/i.test(words),
    cpu_offload_optimizer: offload,
    ...t.distributed,
  };
  const raw = (c.training as { gradient_checkpointing?: unknown }).gradient_checkpointing;
  const checkpointing = t.gradient_checkpointing_kind ?? (raw === true ? 'full' : raw ? String(raw) : 'none');
  const lora = t.lora ? { ...t.lora, target_modules: t.lora.target_modules ?? [] } : undefined;
  const training: MeasuredCase['training'] = {
    ...c.training,
    method,
    distributed,
    gradient_checkpointing_kind: checkpointing,
    optimizer: { ...t.optimizer, name: t.optimizer?.name ?? 'adamw_torch' },
    ...(lora ? { lora } : {}),
  };
  return { ok: true, c: { ...c, model: { ...m, family: m.family ?? '' }, training }, published };
}

export function caseToSetup(whole: MeasuredCase): { ok: true; setup: TrainingSetup } | { ok: false; reason: string } {
  const completed = completeCase(whole);
  if (!completed.ok) return completed;
  const { c, published } = completed;
  const m = c.model;
  const t = c.training;
  // The model type of the catalog's config, else the family's words (an unsupported family stays as written, and the
  // estimate says so).
  const fam = (published?.model_type as string | undefined) ?? caseModelType(m.family) ?? m.family;
  const method = caseMethod(t.method);
  if (!method) return { ok: false, reason: `method '${t.method}' is not modeled` };
  const precision = casePrecision(t.precision_kind, t.precision);
  if (!precision) return { ok: false, reason: `precision '${t.precision_kind}' is not mapped` };
  const text = { framework: t.framework ?? '', strategy: t.distributed.strategy, notes: c.notes ?? '' };
  const tool = caseTool(text);
  let s: TrainingSetupInput = {
    architecture: caseArchitecture(m, published, fam),
    parameters: m.num_params,
    method,
    micro_batch_size: t.micro_batch_size,
    gradient_accumulation_steps: t.grad_accum,
    seq_len: t.seq_len,
    ...caseAdapters(t, method, fam),
    ...caseQuantization(c),
    ...precision,
    optimizer: caseOptimizer(t.optimizer.name),
    optimizer_in_backward: t.optimizer.optimizer_in_backward === true,
    ...caseKernels(c, tool),
    ...caseVersions(c, tool),
    ...caseParallelism(t.distributed, text, tool),
  };
  // Freeze tuning: the trained layers the method's words count (LLaMA-Factory's freeze_trainable_layers).
  const frozen = method === 'freeze' ? /(\d+)\s*(trainable\s*)?layers?/i.exec(t.method)?.[1] : undefined;
  if (frozen) s.freeze_trainable_layers = Number(frozen);
  const preference = casePreference(`${t.task ?? ''} ${t.method} ${t.framework ?? ''}`, method, tool);
  if (preference) s.preference = preference;
  // Batches padded to their own longest sample (the case's seq_len is then the longest batch of the run).
  // A harness that calls torch.cuda.empty_cache() between steps (PEFT's MetaMathQA runner, every 10 steps, over batches
  // bucketed by length) returns that cache to the driver, so its runs are compared with the per-step figure. Those cases
  // also give the 99th percentile of the reserved memory sampled after each step; the comparison uses their
  // max_memory_reserved, the peak of the longest batch that the estimate describes, not a percentile over shorter
  // batches (run.py runs its extra loss passes at the training batch size "to prevent this from ... affecting the max
  // memory metric").
  if (/dynamic/i.test(t.seq_len_kind ?? '') && !/empty_cache/.test(c.measurement.metric ?? ''))
    s.batch_lengths = 'variable';
  s = { ...s, ...caseHead(t.task ?? '', fam) };
  // FSDP1 checkpoints: SHARDED_STATE_DICT where the case says so, or the recipe it names ships (terms/checkpoint-save.ts).
  if (/SHARDED_STATE_DICT|sharded state dict/i.test(`${text.strategy} ${text.framework} ${text.notes}`))
    s.fsdp_state_dict_type = 'sharded';
  s = { ...recipeDefaults(text, s, c.source ?? {}), ...s };
  const zeroBuckets = shippedZero(tool, s);
  if (zeroBuckets) s.zero_buckets = zeroBuckets;
  s = { ...s, ...stackDefaults(tool, s) };
  s = { ...s, ...accelerateFsdp(tool, s), ...trainerDdp(tool, s), ...caseQuantizedPreparation(c, tool, s) };
  if (c.measurement.includes_cuda_context && c.measurement.cuda_context_reference_mib)
    s.cuda_context_bytes = c.measurement.cuda_context_reference_mib * MiB;
  const parsed = TrainingSetupSchema.safeParse(s);
  if (!parsed.success)
    return { ok: false, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, setup: parsed.data };
}

/**
 * The measured value in GiB, where the source's "GB" is known to be 10^9 bytes:
 * - torchtune's April 2024 releases (v0.1.x) logged `torch.cuda.max_memory_reserved(device) / 1e9` with the unit "GB"
 *   (torchtune/utils/memory.py `memory_stats_log`), and the tutorials of that month quote those logs ("GPU peak memory
 *   allocation: 13.96 GB"). Later versions divide by 1024**3 and print GiB, as the README tables say.
 * - LitGPT (Lit-GPT before 2024) has always printed `torch.cuda.max_memory_allocated() / 1e9` as "GB" (finetune/lora.py
 *   "Memory used", since Lightning-AI/litgpt@364dcbf of August 2023; litgpt/finetune/*.py), which its resource tables
 *   and README quote.
 * - Qwen-1's README table ("Profiling of Memory and Speed", QwenLM/Qwen) writes "G": its Qwen-7B full fine-tune over
 *   two A100-SXM4-80G at 1,024 tokens reads 162.0G, 81.0 per GPU, more than the 80 GiB a card holds, so the unit is
 *   10^9 bytes (at most; 1,000 MiB would be 4.9 % more).
 */
export function measuredGiB(c: MeasuredCase): number {
  const m = c.measurement;
  const quote = c.source?.quote ?? '';
  const torchtune01 = c.source?.repo === 'pytorch/torchtune' && (c.source.date ?? '9999') < '2024-05';
  const litgpt = /^Lightning-AI\/lit-?gpt$/i.test(c.source?.repo ?? '');
  const qwen1 = c.source?.repo === 'QwenLM/Qwen' && /\d\s*G\b/.test(quote);
  const decimal = (/\bGB\b/.test(quote) && (torchtune01 || litgpt)) || qwen1;
  const gib = typeof m.value_gib === 'number' ? m.value_gib : valueInGiB(m.value, m.unit);
  return decimal ? (gib * 1e9) / GiB : gib;
}

/**
 * A published value in GiB from its unit, for a case without value_gib: MiB, GiB, bytes, MB (10^6 B); "GB" taken at
 * face value as the schema's value_gib takes it (most tools that print "GB" divide by 1024^3). NaN for another unit.
 */
function valueInGiB(value: number | undefined, unit: string | undefined): number {
  if (typeof value !== 'number') return NaN;
  const u = (unit ?? '').trim();
  if (/^MiB$/i.test(u)) return value / 1024;
  if (/^MB$/.test(u)) return (value * 1e6) / GiB;
  if (/^bytes?$|^B$/i.test(u)) return value / GiB;
  if (/^(GiB|GB|G)\b/i.test(u)) return value;
  return NaN;
}

/** The estimate figure comparable with the case's metric, in GiB. */
export function compareMetric(
  c: MeasuredCase,
  e: Estimate,
): { metric: string; measuredGiB: number; estimatedGiB: number } {
  const m = c.measurement;
  const measured = measuredGiB(c);
  const pg = e.perGpu;
  // Reserved and nvidia-smi figures of a whole run include the cache of earlier, shorter batches.
  const run = pg.variableLengths ?? pg;
  switch (metricKind(m.metric_kind, m.includes_cuda_context)) {
    case 'allocated':
      return { metric: m.metric_kind, measuredGiB: measured, estimatedGiB: pg.peakBytes / GiB };
    case 'device':
      return { metric: m.metric_kind, measuredGiB: measured, estimatedGiB: run.deviceBytes / GiB };
    default:
      return {
        metric: m.metric_kind === 'max_memory_reserved' ? m.metric_kind : `${m.metric_kind} (vs reserved)`,
        measuredGiB: measured,
        estimatedGiB: run.reservedBytes / GiB,
      };
  }
}

/**
 * What a metric kind measures, in the schema's words or a spelling of them: the allocated peak (max_memory_allocated,
 * peak_active_bytes), the device's used memory (nvidia_smi_used, NVML), else reserved (max_memory_reserved; an
 * unspecified metric is compared with reserved, what most loggers print as "peak memory", unless the case says it
 * includes the CUDA context, which only the device's used memory does).
 */
export function metricKind(kind: string | undefined, includesContext?: boolean): 'allocated' | 'device' | 'reserved' {
  const k = (kind ?? '').toLowerCase();
  if (/alloc|active/.test(k)) return 'allocated';
  if (/smi|nvml|device|used/.test(k)) return 'device';
  return includesContext === true && !/reserv/.test(k) ? 'device' : 'reserved';
}

/**
 * The case's GPU as an estimate target: its memory caps what the allocator can cache (the case's usable capacity, else
 * the catalog's), and the catalog entry its words name gives the architecture (cuBLAS's workspace size by compute
 * capability, the peer link NCCL's buffers depend on). undefined when the case gives neither a size nor a known GPU.
 */
export function caseGpu(c: MeasuredCase): EstimateOptions['gpu'] {
  const gib = c.hardware?.gpu_memory_gib;
  const spec = gpuNamed(c.hardware?.gpu ?? '');
  if (gib) {
    const memoryBytes = Math.round(gib * GiB);
    return { id: c.hardware?.gpu ?? 'GPU', memoryBytes, source: `${c.id}: hardware.gpu_memory_gib`, spec };
  }
  return spec ? { id: spec.id, memoryBytes: spec.memoryBytes, source: `GPU catalog: ${spec.id}`, spec } : undefined;
}

/**
 * The catalog GPU a hardware text names ("NVIDIA A100-SXM4-80GB", "RTX 4090 24GB", "H100 SXM 96GB HBM2e"): the entry
 * with the longest name or alias whose words run, in order, in the text's words (so "A10" does not name an A100).
 */
export function gpuNamed(text: string): GpuSpec | undefined {
  const words = (t: string) =>
    t
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const said = words(text).join(' ');
  let best: { spec: GpuSpec; length: number } | undefined;
  for (const g of GPU_CATALOG) {
    for (const name of [g.id, ...g.aliases]) {
      const w = words(name);
      const phrase = w.join(' ');
      if (w.length === 0 || !` ${said} `.includes(` ${phrase} `)) continue;
      if (!best || phrase.length > best.length) best = { spec: g, length: phrase.length };
    }
  }
  return best?.spec;
}
