// Ludwig's declarative LLM config (ludwig-ai/ludwig: `model_type: llm`, run by `ludwig train --config x.yaml`): the
// base model (a Hub id or one of Ludwig's presets), `trainer` (type finetune; `none`, the default, does not train),
// `adapter` (PEFT LoRA and its kin), `quantization` (bitsandbytes), `preprocessing` (the merged sequence's cap) and
// `backend` (local, or DeepSpeed with its ZeRO block inline). Ludwig's own defaults are facts with their source; the
// configs in the wild were written for Ludwig 0.8-0.10, whose rules are read (v0.10.4 where releases differ).
// Source: ludwig-ai/ludwig@be821e4 (v0.10.4) ludwig/schema/{model_types/llm.py, llms/*.py, trainer.py,
// preprocessing.py}, ludwig/utils/llm_utils.py, ludwig/models/llm.py, ludwig/trainers/trainer.py,
// ludwig/distributed/deepspeed.py, ludwig/schema/model_types/utils.py. Pure.
// Docs: docs/formats.md
import { about, msg, normalizeOptimizer, type ConfigFacts } from '../facts';
import { NO_TRAINING_ESTIMATE } from '../trains';
import { YamlCtx, guarded } from './common';
import {
  asBool,
  asCheckpointing,
  asPosInt,
  boolOf,
  describe,
  Invalid,
  numOf,
  optimizerOf,
  strOf,
  type Entry,
} from './values';

const SRC = 'ludwig-ai/ludwig@be821e4 (v0.10.4)';
const SCHEMA = `${SRC}:ludwig/schema`;

/** Whether top-level keys are Ludwig's: its feature lists beside a model type or a base model. */
export function isLudwigYaml(keys: ReadonlySet<string>): boolean {
  return (
    keys.has('input_features') &&
    keys.has('output_features') &&
    (keys.has('base_model') || keys.has('model_type') || keys.has('trainer') || keys.has('combiner'))
  );
}

export function analyzeLudwigYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'ludwig-yaml', tool: 'ludwig', omegaconf: false });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  const typeEntry = top.get('model_type');
  const modelType = typeEntry ? strOf(ctx.view(typeEntry))?.trim().toLowerCase() : undefined;
  const first = typeEntry ?? top.get('input_features')!;
  if (modelType !== 'llm') {
    ctx.problem(
      'not-modeled',
      'warning',
      msg(
        "{0}: Ludwig's ECD models (model_type ecd, the default: encoders, a combiner and decoders) are not modeled; " +
          'only model_type: llm is',
        typeEntry ? 'model_type' : 'input_features',
      ),
      typeEntry ? typeEntry.valueSpan : first.keySpan,
      typeEntry ? 'model_type' : 'input_features',
    );
    return;
  }
  const trainer = ctx.sub(top.get('trainer'));
  if (!trains(ctx, top.get('trainer'), trainer.get('type'), first)) return;
  const base = top.get('base_model');
  ctx.put('model', base, (v) => {
    const s = strOf(v)?.trim();
    return s ? (PRESETS[s.toLowerCase()] ?? s) : undefined;
  });
  const quant = quantization(ctx, top.get('quantization'), base ?? first);
  adapter(ctx, top.get('adapter'), quant, base);
  const deepspeed = sectionType(ctx, top.get('backend')).name === 'deepspeed';
  steps(ctx, trainer, first, deepspeed);
  length(ctx, ctx.sub(top.get('preprocessing')), top, first);
  backend(ctx, top.get('backend'));
}

/**
 * `trainer.type`: `finetune` trains; `none`, the default, answers prompts zero- or few-shot and trains nothing
 * (schema/trainer.py LLMTrainerDataclassField default "none"). Says so and reads no run where it does not train.
 */
function trains(ctx: YamlCtx, section: Entry | undefined, type: Entry | undefined, first: Entry): boolean {
  const name = type ? strOf(ctx.view(type))?.trim().toLowerCase() : 'none';
  if (name === 'finetune') return true;
  const at = type ?? section ?? first;
  ctx.problem(
    'not-modeled',
    'warning',
    name === 'none'
      ? msg(
          "{0}: Ludwig's trainer type none (the default) trains nothing: it generates zero- or few-shot " +
            '({1}); set trainer.type: finetune for a fine-tune to estimate; {2}',
          'trainer.type',
          `${SCHEMA}/trainer.py`,
          NO_TRAINING_ESTIMATE,
        )
      : msg("{0}: Ludwig's trainer type {1} is not modeled; only finetune is", 'trainer.type', name ?? '?'),
    type ? type.valueSpan : at.keySpan,
    'trainer.type',
  );
  return false;
}

/** Ludwig's `base_model` presets and the Hub ids they stand for (schema/llms/base_model.py MODEL_PRESETS). */
const PRESETS: Readonly<Record<string, string>> = {
  'bloomz-3b': 'bigscience/bloomz-3b',
  'bloomz-7b1': 'bigscience/bloomz-7b1',
  'codellama-7b': 'codellama/CodeLlama-7b-hf',
  'codellama-13b': 'codellama/CodeLlama-13b-hf',
  'codellama-34b': 'codellama/CodeLlama-34b-hf',
  'codellama-7b-instruct': 'codellama/CodeLlama-7b-instruct-hf',
  'codellama-13b-instruct': 'codellama/CodeLlama-13b-instruct-hf',
  'codellama-34b-instruct': 'codellama/CodeLlama-34b-instruct-hf',
  'gpt-neo-2.7b': 'EleutherAI/gpt-neo-2.7B',
  'gpt-j-6b': 'EleutherAI/gpt-j-6b',
  'llama-2-7b': 'meta-llama/Llama-2-7b-hf',
  'llama-2-13b': 'meta-llama/Llama-2-13b-hf',
  'llama-2-70b': 'meta-llama/Llama-2-70b-hf',
  'llama-2-7b-chat': 'meta-llama/Llama-2-7b-chat-hf',
  'llama-2-13b-chat': 'meta-llama/Llama-2-13b-chat-hf',
  'llama-2-70b-chat': 'meta-llama/Llama-2-70b-chat-hf',
  'mistral-7b': 'mistralai/Mistral-7B-v0.1',
  'mistral-7b-instruct': 'mistralai/Mistral-7B-Instruct-v0.1',
  'mixtral-8x7b': 'mistralai/Mixtral-8x7B-v0.1',
  'mixtral-8x7b-instruct': 'mistralai/Mixtral-8x7B-Instruct-v0.1',
  'opt-350m': 'facebook/opt-350m',
  'opt-1.3b': 'facebook/opt-1.3b',
  'opt-6.7b': 'facebook/opt-6.7b',
  'pythia-2.8b': 'EleutherAI/pythia-2.8b',
  'pythia-12b': 'EleutherAI/pythia-12b',
  'vicuna-7b': 'lmsys/vicuna-7b-v1.3',
  'vicuna-13b': 'lmsys/vicuna-13b-v1.3',
  'zephyr-7b-alpha': 'HuggingFaceH4/zephyr-7b-alpha',
  'zephyr-7b-beta': 'HuggingFaceH4/zephyr-7b-beta',
  'phi-1': 'microsoft/phi-1',
  'phi-1_5': 'microsoft/phi-1_5',
  'phi-2': 'microsoft/phi-2',
};

/**
 * `quantization` (absent: none; `{}`: on with its defaults): bitsandbytes at `bits` 4 (NF4, double quantization) or
 * 8, the model loaded in `bnb_4bit_compute_dtype` (float16) and every unquantized parameter then cast to fp32 by
 * PEFT's prepare_model_for_kbit_training (utils/llm_utils.py load_pretrained_from_config, models/llm.py
 * prepare_for_training). Without it the model is loaded without a dtype: float32. Returns the bits, or undefined.
 */
function quantization(ctx: YamlCtx, e: Entry | undefined, at: Entry): 4 | 8 | undefined {
  const src = `${SRC}:ludwig/utils/llm_utils.py load_pretrained_from_config`;
  if (!e || ctx.view(e).t === 'absent') {
    ctx.addDefault(
      'weightsDtype',
      at,
      'fp32',
      `Ludwig loads the model without a dtype, float32 under transformers 4 (${src})`,
    );
    return undefined;
  }
  const q = ctx.sub(e);
  const bitsEntry = q.get('bits');
  const bits = bitsEntry ? numOf(ctx.view(bitsEntry)) : 4;
  const quant = `${SCHEMA}/llms/quantization.py`;
  if (bits !== 4 && bits !== 8) {
    ctx.put(
      'quantBits',
      bitsEntry,
      () => new Invalid(about('{0}: expected 4 or 8, found {1}', describe(ctx.view(bitsEntry!)))),
    );
    return undefined;
  }
  if (bitsEntry) ctx.add('quantBits', bitsEntry, bits);
  else ctx.addDefault('quantBits', e, 4, `Ludwig quantization.bits defaults to 4 (${quant})`);
  if (bits === 4) {
    const type = q.get('bnb_4bit_quant_type');
    if (type)
      ctx.put('quantType', type, (v) =>
        strOf(v)?.trim() === 'fp4' ? 'fp4' : strOf(v)?.trim() === 'nf4' ? 'nf4' : undefined,
      );
    else ctx.addDefault('quantType', e, 'nf4', `Ludwig bnb_4bit_quant_type defaults to nf4 (${quant})`);
    const dq = q.get('bnb_4bit_use_double_quant');
    if (dq) ctx.put('doubleQuant', dq, asBool);
    else ctx.addDefault('doubleQuant', e, true, `Ludwig bnb_4bit_use_double_quant defaults to True (${quant})`);
  }
  const compute = q.get('bnb_4bit_compute_dtype');
  const dtype = compute ? strOf(ctx.view(compute))?.trim() : 'float16';
  const weights = dtype === 'bfloat16' ? 'bf16' : dtype === 'float32' ? 'fp32' : 'fp16';
  const how = `Ludwig loads a quantized model with torch_dtype = bnb_4bit_compute_dtype (${src})`;
  if (compute) ctx.add('weightsDtype', compute, weights);
  else ctx.addDefault('weightsDtype', e, weights, `${how}, float16 by default (${quant})`);
  ctx.addDefault(
    'kbitUpcast',
    e,
    'all',
    `Ludwig prepares a quantized model with PEFT's prepare_model_for_kbit_training, which casts every unquantized ` +
      `parameter to fp32 (${SRC}:ludwig/models/llm.py prepare_for_training)`,
  );
  ctx.addDefault(
    'attention',
    e,
    'eager',
    `Ludwig loads a quantized model with attn_implementation "eager" under transformers 4.36 or later (${src})`,
  );
  return bits;
}

/** LoRA's targets Ludwig writes itself for these models where the config names none (schema/model_types/utils.py). */
const LUDWIG_TARGETS: readonly [RegExp, readonly string[]][] = [
  [/^microsoft\/phi-(1|1_5|2)$/i, ['q_proj', 'k_proj', 'v_proj', 'dense', 'fc1', 'fc2']],
  [/^microsoft\/phi-3-mini-(4k|128k)-instruct$/i, ['qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj']],
];

/**
 * `adapter` (absent: a full fine-tune): `lora` (alone, or `type: lora`) with r 8, alpha 2 x r, dropout 0.05 and
 * PEFT's targets for the model (Ludwig's own for Phi), `adalora` read as LoRA at its init_r, `ia3`. Over a 4-bit base,
 * QLoRA (schema/llms/peft.py).
 */
function adapter(ctx: YamlCtx, e: Entry | undefined, bits: 4 | 8 | undefined, base: Entry | undefined): void {
  if (!e || ctx.view(e).t === 'absent') {
    ctx.addDefault('method', base ?? e!, 'full', 'Ludwig fine-tunes every weight where the config has no adapter');
    return;
  }
  const a = ctx.sub(e);
  const { entry: typeEntry, name: type } = sectionType(ctx, e);
  const peft = `${SCHEMA}/llms/peft.py`;
  if (type === 'ia3') {
    ctx.add('method', typeEntry!, 'ia3');
    return;
  }
  if (type !== 'lora' && type !== 'adalora') {
    ctx.problem(
      'not-modeled',
      'warning',
      msg("{0}: Ludwig's adapter {1} is not modeled; estimated as LoRA with Ludwig's defaults", 'adapter', type ?? '?'),
      (typeEntry ?? e).valueSpan,
      'adapter',
    );
  }
  ctx.add('method', typeEntry ?? e, bits === 4 ? 'qlora' : 'lora');
  const rKey = type === 'adalora' ? 'init_r' : 'r';
  const rEntry = a.get(rKey);
  const rDefault = type === 'adalora' ? 12 : 8;
  if (rEntry) ctx.put('loraR', rEntry, asPosInt);
  else ctx.addDefault('loraR', e, rDefault, `Ludwig ${type ?? 'lora'} ${rKey} defaults to ${rDefault} (${peft})`);
  const r = rEntry ? numOf(ctx.view(rEntry)) : rDefault;
  const alpha = a.get('alpha');
  if (alpha && ctx.view(alpha).t !== 'absent') ctx.put('loraAlpha', alpha, (x) => numOf(x));
  else if (r !== undefined) ctx.addDefault('loraAlpha', e, 2 * r, `Ludwig lora alpha defaults to 2 x r (${peft})`);
  const dropout = a.get('dropout');
  if (dropout) ctx.put('loraDropout', dropout, (x) => numOf(x));
  else ctx.addDefault('loraDropout', e, 0.05, `Ludwig lora dropout defaults to 0.05 (${peft})`);
  const dora = a.get('use_dora');
  if (dora) ctx.put('loraDora', dora, asBool);
  const targets = a.get('target_modules');
  if (targets) {
    ctx.put('loraTargets', targets, (x) =>
      x.t === 'seq' ? x.items.flatMap((i) => (i.t === 'str' ? [i.v] : [])) : strOf(x) ? [strOf(x)!] : undefined,
    );
    return;
  }
  const id = base ? strOf(ctx.view(base))?.trim() : undefined;
  const own = LUDWIG_TARGETS.find(([re]) => id !== undefined && re.test(PRESETS[id.toLowerCase()] ?? id))?.[1];
  if (own)
    ctx.addDefault(
      'loraTargets',
      e,
      own,
      `Ludwig sets these LoRA targets for ${id} where the config names none (${SCHEMA}/model_types/utils.py)`,
    );
}

/**
 * The `finetune` trainer's keys (schema/trainer.py FineTuneTrainerConfig, over the ECD trainer's): `batch_size` (1
 * from v0.10.2; "auto" tunes it at run time up to the first out-of-memory), `eval_batch_size` (2),
 * `gradient_accumulation_steps` ("auto": 1 where no effective_batch_size), `enable_gradient_checkpointing` (off;
 * reentrant when on), `use_mixed_precision` (fp16 autocast), `optimizer.type` (`adam`: torch.optim.Adam), `compile`.
 */
function steps(ctx: YamlCtx, t: ReadonlyMap<string, Entry>, first: Entry, deepspeed: boolean): void {
  const trainer = `${SCHEMA}/trainer.py`;
  const auto = (e: Entry | undefined): boolean => !!e && strOf(ctx.view(e))?.trim() === 'auto';
  const batch = t.get('batch_size');
  if (auto(batch))
    ctx.add('microBatchSize', batch!, {
      unknown:
        'batch_size auto: Ludwig tries larger batches at run time until one runs out of memory or stops paying off',
    });
  else ctx.put('microBatchSize', batch, asPosInt);
  const evalBatch = t.get('eval_batch_size');
  if (!evalBatch)
    ctx.addDefault('evalBatchSize', first, 2, `Ludwig's finetune eval_batch_size defaults to 2 (${trainer})`);
  else if (!auto(evalBatch)) ctx.put('evalBatchSize', evalBatch, asPosInt);
  // Ludwig evaluates on the validation split after every epoch (its default split keeps 10 % for it).
  ctx.addDefault(
    'evalStrategy',
    t.get('type') ?? first,
    true,
    `Ludwig evaluates the validation split every epoch (${trainer})`,
  );
  const accum = t.get('gradient_accumulation_steps');
  const effective = t.get('effective_batch_size');
  if (auto(accum) && effective && !auto(effective))
    ctx.add('gradientAccumulationSteps', accum!, {
      unknown: 'gradient_accumulation_steps auto: effective_batch_size / batch_size / the number of workers',
    });
  else if (!auto(accum)) ctx.put('gradientAccumulationSteps', accum, asPosInt);
  const ckpt = t.get('enable_gradient_checkpointing');
  ctx.put('gradientCheckpointing', ckpt, asCheckpointing);
  if (ckpt && boolOf(ctx.view(ckpt)) === true)
    ctx.addDefault(
      'checkpointReentrant',
      ckpt,
      true,
      `Ludwig checkpoints with use_reentrant True (${SRC}:ludwig/trainers/trainer.py Trainer.prepare)`,
    );
  ctx.put('mixedPrecision', t.get('use_mixed_precision'), (v) =>
    boolOf(v) === undefined ? asBool(v) : boolOf(v) ? 'fp16' : 'none',
  );
  ctx.put('compile', t.get('compile'), asBool);
  const optimizer = ctx.sub(t.get('optimizer')).get('type');
  ctx.put('optimizer', optimizer, (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    // Under DeepSpeed the class's name ("Adam") is DeepSpeed's optimizer type: its FusedAdam runs the step.
    if (deepspeed && (s === 'adam' || s === 'adamw')) return 'adamw_fused';
    return s ? optimizerOf(OPTIMIZERS[s] ?? s, normalizeOptimizer) : undefined;
  });
  // The step's outputs (logits, probabilities) stay until the metrics are updated after the optimizer step.
  ctx.addDefault(
    'loopKeepsOutputs',
    t.get('type') ?? first,
    'step',
    `Ludwig updates the training metrics from the step's outputs after the optimizer step (${SRC}:ludwig/trainers/trainer.py train_step)`,
  );
}

/** Ludwig's optimizer names as the setup's (schema/optimizers.py: `adam` is torch.optim.Adam, bnb's 8-bit and paged). */
const OPTIMIZERS: Readonly<Record<string, string>> = {
  adam: 'adamw_torch',
  adamw: 'adamw_torch',
  adam_8bit: 'adamw_bnb_8bit',
  adamw_8bit: 'adamw_bnb_8bit',
  paged_adam: 'paged_adamw_32bit',
  paged_adamw: 'paged_adamw_32bit',
  paged_adam_8bit: 'paged_adamw_8bit',
  paged_adamw_8bit: 'paged_adamw_8bit',
  sgd: 'sgd',
};

/**
 * The training sequence: each sample's input and output merged with an EOS token, cut at
 * `preprocessing.global_max_sequence_length` (else the model's context length), each batch padded to its longest
 * (utils/llm_utils.py generate_merged_ids). Where the features' `max_sequence_length` are both given, the merged
 * sample is at most their sum and one.
 */
function length(ctx: YamlCtx, pre: ReadonlyMap<string, Entry>, top: ReadonlyMap<string, Entry>, first: Entry): void {
  const merged = `${SRC}:ludwig/utils/llm_utils.py generate_merged_ids`;
  ctx.addDefault('batchLengths', first, 'variable', `Ludwig pads each batch to its longest merged sample (${merged})`);
  const global = pre.get('global_max_sequence_length');
  if (global && ctx.view(global).t !== 'absent') {
    ctx.put('seqLen', global, asPosInt);
    return;
  }
  const input = featureLength(ctx, top.get('input_features'));
  const output = featureLength(ctx, top.get('output_features'));
  if (input && output) {
    const a = numOf(ctx.view(input));
    const b = numOf(ctx.view(output));
    if (a !== undefined && b !== undefined && a > 0 && b > 0)
      ctx.addDefault(
        'seqLen',
        input,
        a + b + 1,
        `the input's max_sequence_length ${a} + the output's ${b} + an EOS token, merged into one sequence (${merged})`,
      );
  } else
    ctx.problem(
      'not-static',
      'info',
      msg(
        '{0}: no global_max_sequence_length: Ludwig trains on the longest merged sample of the data, up to the ' +
          "model's context length; set it to bound the sequence the estimate takes",
        'preprocessing',
      ),
      (pre.size ? top.get('preprocessing')! : first).keySpan,
      'preprocessing.global_max_sequence_length',
    );
}

/** `preprocessing.max_sequence_length` of a feature list's one text feature (LLM configs have exactly one of each). */
function featureLength(ctx: YamlCtx, list: Entry | undefined): Entry | undefined {
  const v = list ? ctx.view(list) : undefined;
  if (v?.t !== 'seq' || !list?.node || !('items' in list.node)) return undefined;
  const item = (list.node.items as unknown[])[0];
  if (!item || typeof item !== 'object' || !('items' in item)) return undefined;
  const feature = ctx.entries(item as Parameters<YamlCtx['entries']>[0], `${list.path}[0]`);
  return ctx.sub(feature.get('preprocessing')).get('max_sequence_length');
}

/**
 * `backend`: `local` (the default) runs one process; `deepspeed` (Ludwig 0.8-0.10) hands its `zero_optimization`,
 * `fp16` and `bf16` blocks to DeepSpeed, with the trainer's batch as the micro-batch and Ludwig's optimizer as
 * DeepSpeed's (distributed/deepspeed.py DeepSpeedStrategy.prepare); `ray` runs a worker per GPU of its cluster.
 */
function backend(ctx: YamlCtx, e: Entry | undefined): void {
  if (!e) return;
  const b = ctx.sub(e);
  const { entry: typeEntry, name: type } = sectionType(ctx, e);
  if (type === 'deepspeed') {
    ctx.add('deepspeedConfig', e, '{inline json}');
    const ds = `${SRC}:ludwig/distributed/deepspeed.py`;
    if (b.get('zero_optimization')) ctx.zeroBlock(b.get('zero_optimization'));
    else
      ctx.add('zeroStage', typeEntry!, {
        unknown: `no zero_optimization: Ludwig hands DeepSpeed stage "auto" (${ds} DEFAULT_ZERO_OPTIMIZATION)`,
      });
    if (!ctx.has('optimizer'))
      ctx.addDefault(
        'optimizer',
        typeEntry!,
        'adamw_fused',
        `Ludwig's optimizer type Adam in DeepSpeed's config is DeepSpeed's FusedAdam (${ds} prepare)`,
      );
    const bf16 = b.get('bf16');
    const fp16 = b.get('fp16');
    if (bf16) ctx.put('bf16', ctx.sub(bf16).get('enabled'), asBool);
    if (fp16) ctx.put('fp16', ctx.sub(fp16).get('enabled'), asBool);
    return;
  }
  if (type === 'ray') {
    const workers = ctx.sub(b.get('trainer')).get('num_workers');
    if (workers) ctx.put('gpusPerNode', workers, asPosInt);
    else
      ctx.add('gpusPerNode', typeEntry!, { unknown: "Ludwig's Ray backend runs a worker on every GPU of the cluster" });
    return;
  }
  if (type !== undefined && type !== 'local' && typeEntry)
    ctx.problem(
      'not-modeled',
      'warning',
      msg("{0}: Ludwig's backend {1} is not modeled; estimated on one GPU", 'backend', type),
      typeEntry.valueSpan,
      'backend',
    );
}

/** A section written as its type alone (`adapter: lora`) or with `type:` in it: the entry of the type, and its name. */
function sectionType(ctx: YamlCtx, e: Entry | undefined): { entry?: Entry; name?: string } {
  if (!e) return {};
  const entry = ctx.view(e).t === 'str' ? e : ctx.sub(e).get('type');
  return { entry, name: entry ? strOf(ctx.view(entry))?.trim().toLowerCase() : undefined };
}
