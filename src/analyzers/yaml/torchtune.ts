// The torchtune recipe config (`tune run <recipe> --config cfg.yaml`): the model builder named by
// `model._component_` (architecture, size, LoRA/QLoRA), batch, dtype, activation checkpointing/offloading, optimizer,
// loss and FSDP/TP keys as facts with exact spans, `${...}` interpolation resolved. Keys and defaults follow
// FORMATS.md §7 (pytorch/torchtune@bd2a0fc:recipes/*.py, recipes/configs/**). Pure: no I/O, no node:* or vscode imports.
import { about, msg, normalizeOptimizer, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { builderArchitecture, sizedBuilderArchitecture } from './torchtune-builders';
import {
  Invalid,
  asBool,
  asNonNegNumber,
  asPacking,
  asPosInt,
  boolOf,
  describe,
  listOf,
  numOf,
  strOf,
  type Entry,
} from './values';

/**
 * torchtune model builders (the last segment of `_component_` without its lora_/qlora_ prefix and _base/_instruct
 * suffix) to the Hub id of the same architecture. Instruct and base checkpoints share the architecture, so the
 * base id stands for both.
 */
const BUILDERS: Readonly<Record<string, string>> = {
  llama2_7b: 'meta-llama/Llama-2-7b-hf',
  llama2_13b: 'meta-llama/Llama-2-13b-hf',
  llama2_70b: 'meta-llama/Llama-2-70b-hf',
  llama3_8b: 'meta-llama/Meta-Llama-3-8B',
  llama3_70b: 'meta-llama/Meta-Llama-3-70B',
  llama3_1_8b: 'meta-llama/Llama-3.1-8B',
  llama3_1_70b: 'meta-llama/Llama-3.1-70B',
  llama3_1_405b: 'meta-llama/Llama-3.1-405B',
  llama3_2_1b: 'meta-llama/Llama-3.2-1B',
  llama3_2_3b: 'meta-llama/Llama-3.2-3B',
  llama3_3_70b: 'meta-llama/Llama-3.3-70B-Instruct',
  qwen2_5_0_5b: 'Qwen/Qwen2.5-0.5B',
  qwen2_5_1_5b: 'Qwen/Qwen2.5-1.5B',
  qwen2_5_3b: 'Qwen/Qwen2.5-3B',
  qwen2_5_7b: 'Qwen/Qwen2.5-7B',
  qwen2_5_14b: 'Qwen/Qwen2.5-14B',
  qwen2_5_32b: 'Qwen/Qwen2.5-32B',
  qwen2_5_72b: 'Qwen/Qwen2.5-72B',
  qwen2_0_5b: 'Qwen/Qwen2-0.5B',
  qwen2_1_5b: 'Qwen/Qwen2-1.5B',
  qwen2_7b: 'Qwen/Qwen2-7B',
  qwen3_0_6b: 'Qwen/Qwen3-0.6B',
  qwen3_1_7b: 'Qwen/Qwen3-1.7B',
  qwen3_4b: 'Qwen/Qwen3-4B',
  qwen3_8b: 'Qwen/Qwen3-8B',
  qwen3_14b: 'Qwen/Qwen3-14B',
  qwen3_32b: 'Qwen/Qwen3-32B',
  gemma_2b: 'google/gemma-2b',
  gemma_7b: 'google/gemma-7b',
  gemma2_2b: 'google/gemma-2-2b',
  gemma2_9b: 'google/gemma-2-9b',
  gemma2_27b: 'google/gemma-2-27b',
  mistral_7b: 'mistralai/Mistral-7B-v0.1',
  phi3_mini: 'microsoft/Phi-3-mini-4k-instruct',
  phi4_14b: 'microsoft/phi-4',
  smollm2_135m: 'HuggingFaceTB/SmolLM2-135M',
  smollm2_360m: 'HuggingFaceTB/SmolLM2-360M',
  smollm2_1_7b: 'HuggingFaceTB/SmolLM2-1.7B',
  llama4_scout_17b_16e: 'meta-llama/Llama-4-Scout-17B-16E-Instruct',
  llama4_maverick_17b_128e: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct',
};

/** torchtune's attention/MLP projection names to the Hugging Face module names PEFT uses. */
const MODULE_NAMES: Readonly<Record<string, string>> = {
  q_proj: 'q_proj',
  k_proj: 'k_proj',
  v_proj: 'v_proj',
  output_proj: 'o_proj',
};

export interface Builder {
  readonly hubId?: string;
  readonly builder: string;
  readonly method: 'full' | 'lora' | 'qlora';
}

/** Splits `torchtune.models.llama3_1.qlora_llama3_1_8b` into method and architecture. */
export function parseBuilder(component: string): Builder {
  const last = component.trim().split('.').pop() ?? '';
  const m = /^(q?lora_)?(.*)$/.exec(last);
  const method = m?.[1] === 'qlora_' ? 'qlora' : m?.[1] === 'lora_' ? 'lora' : 'full';
  const builder = (m?.[2] ?? '').replace(/_(base|instruct)$/, '');
  return { hubId: BUILDERS[builder], builder, method };
}

export function analyzeTorchtuneYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'torchtune-yaml', tool: 'torchtune', omegaconf: true });
  return guarded(ctx, () => analyze(ctx));
}

const isOn = (ctx: YamlCtx, e: Entry | undefined): boolean => (e ? boolOf(ctx.view(e)) === true : false);

/**
 * torchtune's configs open with the command that runs them (`#   tune run --nproc_per_node 8 lora_finetune_distributed
 * --config llama3_1/70B_lora`): the GPUs per node and nodes it gives are the config's own launch, read from the first
 * such comment line. A launcher in another file (a shell script), a flag or a setting takes precedence.
 */
function launchComment(ctx: YamlCtx): void {
  const re = /^[ \t]*#[ \t#]*tune[ \t]+run\b([^\n]*)/gm;
  const m = re.exec(ctx.text);
  if (!m) return;
  const argsStart = m.index + m[0].length - m[1].length;
  for (const [flag, key] of [
    ['nproc_per_node', 'gpusPerNode'],
    ['nnodes', 'nodes'],
  ] as const) {
    const f = new RegExp(`--${flag}(?:[ \t]+|=)(\\d+)\\b`).exec(m[1]);
    if (!f) continue;
    const n = Number(f[1]);
    if (!Number.isSafeInteger(n) || n < 1) continue;
    const keyStart = argsStart + f.index;
    const valueStart = keyStart + f[0].length - f[1].length;
    const fact = ctx.addAt(
      key,
      n,
      `--${flag}`,
      { start: keyStart, end: keyStart + flag.length + 2 },
      { start: valueStart, end: valueStart + f[1].length },
    );
    // A comment, not a setting: the count stands as an assumption, said with the line it comes from.
    const assumed = `the command the config's header comment runs it with (tune run --${flag} ${n})`;
    ctx.facts[ctx.facts.indexOf(fact)] = { ...fact, assumed };
  }
}

type Top = ReturnType<YamlCtx['top']>;

/**
 * The torchtune release a config was written for, from the components it names: 0.1-0.2 keep the checkpointer and the
 * metric logger under `torchtune.utils` (moved to `torchtune.training` in 0.3), and only 0.1 names its profiler
 * `torchtune.utils.profiler` (`torchtune.utils.setup_torch_profiler` in 0.2). `before03`: the entry that dates it.
 */
function vintage(ctx: YamlCtx, top: Top): { before03?: Entry; only01?: Entry } {
  const component = (block: string): Entry | undefined => {
    const c = ctx.sub(top.get(block)).get('_component_');
    return c && ctx.view(c).t !== 'absent' ? c : undefined;
  };
  const named = (e: Entry | undefined, prefix: string): boolean =>
    e !== undefined && (strOf(ctx.view(e))?.trim().startsWith(prefix) ?? false);
  const before03 = [component('checkpointer'), component('metric_logger')].find((e) => named(e, 'torchtune.utils.'));
  const profiler = component('profiler');
  const only01 = profiler && strOf(ctx.view(profiler))?.trim() === 'torchtune.utils.profiler' ? profiler : undefined;
  return { before03, only01 };
}

/**
 * Builders whose own max_seq_len truncated in torchtune 0.1-0.2, with its default there (torchtune/datasets at v0.2.1:
 * `_alpaca.py` 512, `_slimorca.py` and `_stack_exchanged_paired.py` 1024; the other builders none). From 0.3 the
 * builders take none and the tokenizer's max_seq_len truncates.
 */
const DATASET_MAX_SEQ_LEN_BEFORE_0_3: Readonly<Record<string, number>> = {
  alpaca_dataset: 512,
  alpaca_cleaned_dataset: 512,
  slimorca_dataset: 1024,
  stack_exchanged_paired_dataset: 1024,
};

/**
 * The longest sequence: tokenizer.max_seq_len (null: no truncation, the longest sample sets the length); in a config
 * of torchtune 0.1-0.2, the dataset builder's max_seq_len, or its default there.
 */
function seqLen(ctx: YamlCtx, top: Top, before03: Entry | undefined): void {
  const seq = ctx.sub(top.get('tokenizer')).get('max_seq_len');
  if (seq && ctx.view(seq).t === 'absent' && seq.node) {
    ctx.add('seqLen', seq, { unknown: 'unbounded: the longest sample in the dataset' }, 'tokenizer.max_seq_len');
    return;
  }
  if (seq) {
    ctx.put('seqLen', seq, asPosInt, 'tokenizer.max_seq_len');
    return;
  }
  const dataset = ctx.sub(top.get('dataset'));
  const own = dataset.get('max_seq_len');
  if (own) {
    ctx.put('seqLen', own, asPosInt, 'dataset.max_seq_len');
    return;
  }
  const builder = dataset.get('_component_');
  const name = builder ? (strOf(ctx.view(builder))?.trim().split('.').pop() ?? '') : '';
  const length = DATASET_MAX_SEQ_LEN_BEFORE_0_3[name];
  if (!before03 || !builder || length === undefined) return;
  ctx.addDefault(
    'seqLen',
    builder,
    length,
    `${before03.path} dates the config to torchtune 0.1-0.2, whose ${name} truncates samples to its max_seq_len ` +
      `default ${length} (torchtune/datasets at v0.2.1; the tokenizer's max_seq_len from 0.3)`,
  );
}

/**
 * What a config of torchtune 0.1-0.2 runs with: its distributed recipes wrap the model in FSDP1
 * (`FullyShardedDataParallel(..., sharding_strategy=FULL_SHARD, mixed_precision=None)` in
 * recipes/{full,lora}_finetune_distributed.py at v0.2.1: use_orig_params and backward_prefetch left at FSDP1's
 * defaults, False and BACKWARD_PRE; FSDP2 from 0.3), and 0.1 pinned torchao==0.1 (pyproject.toml at v0.1.1), whose
 * NF4 quantizes each weight whole as it loads.
 */
function olderRelease(ctx: YamlCtx, before03: Entry | undefined, only01: Entry | undefined): void {
  if (before03) {
    const fsdp1 = `${before03.path} dates the config to torchtune 0.1-0.2, whose distributed recipes wrap the model in FSDP1`;
    ctx.addDefault('fsdpVersion', before03, 1, `${fsdp1} (FullyShardedDataParallel; fully_shard from 0.3)`);
    ctx.addDefault('fsdpUseOrigParams', before03, false, `${fsdp1} with use_orig_params left at its default, False`);
    ctx.addDefault(
      'fsdpBackwardPrefetch',
      before03,
      'pre',
      `${fsdp1} with backward_prefetch at its default, BACKWARD_PRE`,
    );
  }
  if (only01)
    ctx.addDefault(
      'torchaoVersion',
      only01,
      '0.1',
      `${only01.path} torchtune.utils.profiler dates the config to torchtune 0.1, which pinned torchao==0.1 ` +
        '(pyproject.toml at v0.1.1; setup_torch_profiler from 0.2)',
    );
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  model(ctx, top);
  launchComment(ctx);
  teacherModel(ctx, top);
  ctx.put('microBatchSize', top.get('batch_size'), asPosInt);
  ctx.put('gradientAccumulationSteps', top.get('gradient_accumulation_steps'), asPosInt);
  const { before03, only01 } = vintage(ctx, top);
  seqLen(ctx, top, before03);
  olderRelease(ctx, before03, only01);

  // dataset.packed: samples packed to max_seq_len; otherwise padded_collate pads each batch to its longest sample.
  ctx.put('batchLengths', ctx.sub(top.get('dataset')).get('packed'), asPacking, 'dataset.packed');
  weightsDtype(ctx, top);
  checkpointing(ctx, top);
  optimizer(ctx, top);
  ctx.put('optimizerInBackward', top.get('optimizer_in_bwd'), asBool);
  lossOf(ctx, top);
  ctx.put('compile', top.get('compile'), (v) => (v.t === 'map' ? true : asBool(v)));
  parallelism(ctx, top);
  device(ctx, top);
}

/**
 * torchtune's `device: cpu` or `mps` (Apple's GPU; torchtune/utils/_device.py get_device): no CUDA device runs the
 * recipe, said at the key; the estimate is of the same run on CUDA GPUs.
 */
function device(ctx: YamlCtx, top: Map<string, Entry>): void {
  const d = top.get('device');
  const v = d ? ctx.view(d) : undefined;
  if (!d || v?.t !== 'str' || !/^(cpu|mps)$/i.test(v.v)) return;
  ctx.problem(
    'runs-on-cpu',
    'warning',
    msg('device: {0}: the recipe runs on no CUDA device; the estimate is of the same run on CUDA GPUs', v.v),
    { start: d.keySpan.start, end: d.valueSpan.end },
    'device',
  );
}

/** A distillation recipe's teacher_model: the Hub id its builder names. */
function teacherModel(ctx: YamlCtx, top: Map<string, Entry>): void {
  const teacher = ctx.sub(top.get('teacher_model')).get('_component_');
  ctx.put(
    'teacherModel',
    teacher,
    (v) => {
      const s = strOf(v);
      if (!s) return new Invalid(about('{0}: expected a model builder path, found {1}', describe(v)));
      const b = parseBuilder(s);
      return b.hubId ?? { unknown: `torchtune builder ${b.builder}: no known Hub id` };
    },
    'teacher_model._component_',
  );
}

/** dtype: parameters, gradients and optimizer states all in that dtype (no fp32 master copy); fp32 when absent. */
function weightsDtype(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('weightsDtype', top.get('dtype'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    if (s === 'bf16' || s === 'fp32') return s;
    if (s === 'fp16')
      return new Invalid(about('{0}: fp16 is rejected by the full-finetune recipes; use bf16 or fp32'), 'warning');
    if (s === 'fp64') return { unknown: 'fp64 is not modelled' };
    return new Invalid(about('{0}: expected bf16 or fp32, found {1}', describe(v)));
  });
}

/** enable_activation_checkpointing with ac_mode (selective or full), and enable_activation_offloading. */
function checkpointing(ctx: YamlCtx, top: Map<string, Entry>): void {
  const acMode = top.get('ac_mode');
  ctx.put('gradientCheckpointing', top.get('enable_activation_checkpointing'), (v) => {
    const b = boolOf(v);
    if (b === undefined) return asBool(v);
    if (!b) return 'none';
    return acMode && strOf(ctx.view(acMode))?.trim().toLowerCase() === 'selective' ? 'selective' : 'full';
  });
  ctx.put('activationOffloading', top.get('enable_activation_offloading'), asBool);
}

/** The loss component: the preference objective it names, or how the cross-entropy holds its logits. */
function lossOf(ctx: YamlCtx, top: Map<string, Entry>): void {
  // The DPO recipes (lora_dpo_*: the reference is the model with its adapters disabled; full_dpo_distributed: a copy)
  // run chosen and rejected together; SimPO needs no reference. Their loss component names the objective.
  const lossComponent = ctx.sub(top.get('loss')).get('_component_');
  ctx.put(
    'preference',
    lossComponent,
    (v) => {
      const s = strOf(v)?.trim() ?? '';
      return /\.(DPOLoss|RSOLoss)$/.test(s) ? 'dpo' : /\.SimPOLoss$/.test(s) ? 'reference-free' : undefined;
    },
    'loss._component_',
  );
  ctx.put(
    'loss',
    lossComponent,
    (v) => {
      const s = strOf(v)?.trim() ?? '';
      if (/\.(DPOLoss|RSOLoss|SimPOLoss)$/.test(s)) return undefined;
      // LinearCrossEntropyLoss projects and upcasts 1/8 of the tokens at a time, but each chunk's F.cross_entropy keeps
      // its fp32 log-softmax for the backward (4 B x T x V over the chunks, measured with torch's saved-tensor hooks),
      // as CEWithChunkedOutputLoss does: chunked, not a fused kernel; the whole logits never exist, as the model skips
      // its output layer (torchtune/modules/loss/cross_entropy_loss.py set_model_output).
      if (/LinearCrossEntropyLoss$/.test(s)) return 'chunked-linear';
      if (/Chunked/.test(s)) return 'chunked';
      if (/CrossEntropyLoss$/.test(s)) return 'full';
      return { unknown: `loss ${s}: memory behaviour not known` };
    },
    'loss._component_',
  );
}

/** FSDP's CPU offload and extra units, and the tensor-, context- and data-parallel dims of the distributed recipes. */
function parallelism(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('fsdpOffload', top.get('fsdp_cpu_offload'), asBool);
  // custom_sharded_layers: modules wrapped as FSDP units of their own besides the transformer layers.
  ctx.put('fsdpShardEmbeddings', top.get('custom_sharded_layers'), (v) => {
    if (v.t === 'seq') return v.items.some((i) => /^(tok_embeddings|output)$/.test(strOf(i)?.trim() ?? ''));
    return new Invalid(about('{0}: expected a list of module names, found {1}', describe(v)));
  });
  // Its name in torchtune 0.1-0.2, memory_efficient_fsdp_wrap: True: the full fine-tune recipe wraps the token
  // embeddings and the output projection as units of their own (torchtune/utils/_distributed.py
  // _memory_efficient_wrap_policy: "this will wrap the model's token embedding and output projection").
  if (!top.has('custom_sharded_layers')) ctx.put('fsdpShardEmbeddings', top.get('memory_efficient_fsdp_wrap'), asBool);
  const nested = top.get('fsdp');
  if (nested && nested.node) {
    ctx.problem(
      'unknown-key',
      'info',
      msg('the recipes never read a nested `fsdp:` block; CPU offload is the top-level `fsdp_cpu_offload`'),
      nested.keySpan,
      'fsdp',
    );
  }
  ctx.put('tensorParallel', top.get('tensor_parallel_dim'), asPosInt);
  // The distributed recipes split each sequence over context_parallel_dim GPUs (cfg.get("context_parallel_dim", 1)).
  ctx.put('contextParallel', top.get('context_parallel_dim'), asPosInt);
  ctx.put('fsdpShardSize', top.get('data_parallel_shard_dim'), (v) =>
    numOf(v) === -1 ? { unknown: '-1: inferred from the world size and the other parallel dims' } : asPosInt(v),
  );
}

/**
 * model._component_ names the architecture and the method: `lora_` builders add adapters, `qlora_` builders also
 * store the base weights in torchao NF4 (4-bit, double-quantized scales). LoRA options are sibling keys.
 */
function model(ctx: YamlCtx, top: Map<string, Entry>): void {
  const block = top.get('model');
  const m = ctx.sub(block);
  const comp = m.get('_component_');
  if (!comp) return;
  const view = ctx.view(comp);
  if (view.t === 'unknown') {
    ctx.put('model', comp, () => undefined, 'model._component_');
    return;
  }
  const s = strOf(view);
  if (!s) {
    ctx.put('model', comp, (v) => new Invalid(about('{0}: expected a model builder path, found {1}', describe(v))));
    return;
  }
  const b = parseBuilder(s);
  const sized = sizedBuilderArchitecture(b.builder);
  if (sized) ctx.add('architecture', comp, JSON.stringify(sized), 'model._component_');
  const generic = b.hubId ? undefined : builderArchitecture(ctx, b.builder, m);
  if (generic && 'config' in generic) {
    ctx.add('architecture', comp, JSON.stringify(generic.config), 'model._component_');
    const assumed = generic.assumedVocab;
    if (assumed)
      ctx.problem(
        'not-static',
        'warning',
        msg(
          "vocab_size is left to the recipe here: the {0} family's tokenizer vocabulary, {1} tokens, is assumed " +
            '(tokens the recipe adds to it are not counted)',
          b.builder,
          assumed.vocab,
        ),
        assumed.at?.keySpan ?? comp.keySpan,
        'model.vocab_size',
      );
  } else if (generic) ctx.add('model', generic.at ?? comp, generic.unknown, generic.at?.path ?? 'model._component_');
  else
    ctx.add(
      'model',
      comp,
      b.hubId ?? { unknown: `torchtune builder ${b.builder}: no known Hub id` },
      'model._component_',
    );
  ctx.add('method', comp, b.method, 'model._component_');
  const quantizeBase = m.get('quantize_base');
  if (b.method === 'qlora' || isOn(ctx, quantizeBase)) {
    const site = b.method === 'qlora' ? comp : (quantizeBase ?? comp);
    ctx.add('quantBits', site, 4, site.path);
    ctx.add('quantType', site, 'nf4', site.path);
    ctx.add('doubleQuant', site, true, site.path);
  }
  if (b.method === 'full') return;

  ctx.put('loraR', m.get('lora_rank'), asPosInt);
  ctx.put('loraAlpha', m.get('lora_alpha'), asNonNegNumber);
  ctx.put('loraDropout', m.get('lora_dropout'), asNonNegNumber);
  ctx.put('loraDora', m.get('use_dora'), asBool);
  const attn = m.get('lora_attn_modules');
  const mlp = m.get('apply_lora_to_mlp');
  const out = m.get('apply_lora_to_output');
  ctx.put('loraTargets', attn, (v) => {
    const list = listOf(v);
    if (!list) return new Invalid(about('{0}: expected a list of module names, found {1}', describe(v)));
    const targets = list.map((n) => MODULE_NAMES[n] ?? n);
    if (isOn(ctx, mlp)) targets.push('gate_proj', 'up_proj', 'down_proj');
    if (isOn(ctx, out)) targets.push('lm_head');
    return targets;
  });
}

/** optimizer._component_: torch.optim.AdamW with fused: True is the fused kernel; bitsandbytes paged variants. */
function optimizer(ctx: YamlCtx, top: Map<string, Entry>): void {
  const opt = ctx.sub(top.get('optimizer'));
  const fused = opt.get('fused');
  ctx.put(
    'optimizer',
    opt.get('_component_'),
    (v) => {
      const s = strOf(v)?.trim();
      if (!s) return new Invalid(about('{0}: expected an optimizer class path, found {1}', describe(v)));
      const n = normalizeOptimizer(s);
      return n === 'adamw' && isOn(ctx, fused) ? 'adamw_fused' : n;
    },
    'optimizer._component_',
  );
}
