// Key mapping: one keyword argument, dict entry or dataclass field of a recognized call to canonical facts, by the
// kind of call (training arguments, model loading, bitsandbytes, LoRA, IA3, TRL's ModelConfig, dataclass defaults).
// Pure: no I/O, no node:* and no 'vscode'.
import type { SyntaxNode } from '@lezer/common';
import {
  evaluationOn,
  galoreOf,
  galoreRankOf,
  msg,
  type CanonicalKey,
  type Fact,
  type FactValue,
  type Tool,
  type Unknown,
} from '../facts';
import { SEQ_KEYS } from './vocab';
import { type Val, type Entry, PythonFile } from './file';
import { span } from './syntax';
import {
  numberOf,
  boolOf,
  enumOf,
  optimizerOf,
  dtypeOf,
  attentionOf,
  stringListOf,
  targetsOf,
  scriptTargetsOf,
  mapBool,
} from './values';

type Ctx = 'train' | 'load' | 'bnb' | 'lora' | 'ia3' | 'trl-model' | 'dataclass';

/**
 * BitsAndBytesConfig defaults to fp4 without double quantization (transformers quantization_config.py), while TRL's
 * ModelConfig defaults to nf4, so a 4-bit load that names no type gets an explicit 'fp4' fact.
 */
export function implicitBnbDefaults(file: PythonFile, entries: readonly Entry[], call: SyntaxNode, tool: Tool): void {
  const has = (k: string): boolean => entries.some((e) => e.rawKey === k);
  const four = entries.find((e) => e.rawKey === 'load_in_4bit');
  if (!four) return;
  const v = file.valueOf(four);
  if (v.k !== 'lit' || v.v !== true) return;
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  if (!has('bnb_4bit_quant_type')) {
    file.facts.push({
      key: 'quantType',
      rawKey: 'bnb_4bit_quant_type',
      value: 'fp4',
      rawValue: `${name}: default "fp4"`,
      keySpan: at,
      valueSpan: at,
      tool,
      origin: 'call-default',
    });
  }
  if (!has('bnb_4bit_use_double_quant')) {
    file.facts.push({
      key: 'doubleQuant',
      rawKey: 'bnb_4bit_use_double_quant',
      value: false,
      rawValue: `${name}: default False`,
      keySpan: at,
      valueSpan: at,
      tool,
      origin: 'call-default',
    });
  }
}

/** Maps one key/value to canonical facts for the given kind of call. */
export function mapEntry(
  file: PythonFile,
  ctx: Ctx,
  e: Entry,
  tool: Tool,
  origin?: Fact['origin'],
  trlOrLocal = false,
): void {
  const k = e.rawKey;
  const v = (): Val => file.valueOf(e);
  const train = ctx === 'train' || ctx === 'dataclass';
  const script = ctx === 'dataclass' || ctx === 'trl-model';
  const emit = (key: CanonicalKey, conv: (x: Val) => FactValue | Unknown | undefined): void => {
    const x = v();
    const value = conv(x);
    if (value !== undefined) file.push(key, e, value, tool, x, origin);
  };
  if (train) {
    switch (k) {
      case 'per_device_train_batch_size':
      case 'per_gpu_train_batch_size':
        return emit('microBatchSize', (x) => numberOf(file, x, e, true));
      case 'per_device_eval_batch_size':
      case 'per_gpu_eval_batch_size':
        return emit('evalBatchSize', (x) => numberOf(file, x, e, true));
      case 'eval_accumulation_steps':
      case 'prediction_loss_only':
      case 'batch_eval_metrics': {
        const x = v();
        if (!(x.k === 'lit' && (x.v === null || x.v === false || x.v === 0))) file.logitsReleased = true;
        return;
      }
      case 'eval_strategy':
      case 'evaluation_strategy':
        // "no" / IntervalStrategy.NO: no evaluation; "steps" / "epoch": evaluation runs during training.
        return emit('evalStrategy', (x) => {
          if (x.k === 'lit' && x.v === null) return undefined;
          const on =
            x.k === 'lit' && typeof x.v === 'string'
              ? evaluationOn(x.v)
              : x.k === 'dotted'
                ? evaluationOn(x.text)
                : undefined;
          return on ?? { unknown: file.describe(x) };
        });
      case 'gradient_accumulation_steps':
        return emit('gradientAccumulationSteps', (x) => numberOf(file, x, e, true));
      case 'use_liger_loss':
        // DPOConfig: Liger's fused linear DPO loss takes the log-probabilities without materializing the logits.
        return emit('loss', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'fused' : undefined)));
      case 'torch_empty_cache_steps':
        return emit('emptyCacheSteps', (x) => numberOf(file, x, e, true));
      case 'label_smoothing_factor':
        return emit('labelSmoothing', (x) => numberOf(file, x, e, false));
      // GRPOConfig: prompt and completion lengths, the generation round, the KL reference and the vLLM engine.
      case 'max_prompt_length':
        return emit('promptLen', (x) => numberOf(file, x, e, true));
      case 'max_completion_length':
        return emit('completionLen', (x) => numberOf(file, x, e, true));
      case 'steps_per_generation':
        return emit('stepsPerGeneration', (x) => numberOf(file, x, e, true));
      case 'generation_batch_size':
        return emit('generationBatchSize', (x) => numberOf(file, x, e, true));
      case 'num_iterations':
        return emit('numIterations', (x) => numberOf(file, x, e, true));
      case 'num_generations':
        return emit('numGenerations', (x) => numberOf(file, x, e, true));
      case 'beta':
        return emit('klBeta', (x) => numberOf(file, x, e, false));
      case 'cpo_alpha':
        return emit('cpoAlpha', (x) => numberOf(file, x, e, false));
      case 'rpo_alpha':
        return emit('rpoAlpha', (x) => (x.k === 'lit' && x.v === null ? undefined : numberOf(file, x, e, false)));
      // GKDConfig: the on-policy share, the tokens of an on-policy round, the teacher the student is distilled from.
      case 'lmbda':
        return emit('onPolicyFraction', (x) => numberOf(file, x, e, false));
      case 'max_new_tokens':
        return emit('maxNewTokens', (x) => numberOf(file, x, e, true));
      case 'teacher_model_name_or_path':
        return emit('teacherModel', (x) =>
          x.k === 'lit' && typeof x.v === 'string'
            ? x.v
            : x.k === 'lit' && x.v === null
              ? undefined
              : { unknown: file.describe(x) },
        );
      case 'use_vllm':
        return emit('useVllm', (x) => boolOf(file, x, e));
      case 'vllm_mode':
        return emit('vllmMode', (x) =>
          x.k === 'lit' && (x.v === 'colocate' || x.v === 'server')
            ? x.v
            : x.k === 'lit' && x.v === null
              ? undefined
              : { unknown: file.describe(x) },
        );
      case 'vllm_gpu_memory_utilization':
        return emit('vllmMemoryFraction', (x) => numberOf(file, x, e, false));
      // OnlineDPOConfig before TRL 0.20: the colocated engine's share; reward_model_path: the reward model's Hub id or path.
      case 'gpu_memory_utilization':
        return emit('vllmMemoryFraction', (x) => numberOf(file, x, e, false));
      case 'reward_model_path':
        return emit('rewardModels', (x) =>
          x.k === 'lit' && typeof x.v === 'string'
            ? [x.v]
            : x.k === 'lit' && x.v === null
              ? undefined
              : { unknown: file.describe(x) },
        );
      case 'vllm_tensor_parallel_size':
        return emit('vllmTensorParallel', (x) => numberOf(file, x, e, true));
      case 'vllm_enable_sleep_mode':
        return emit('vllmSleep', (x) => boolOf(file, x, e));
      case 'ds3_gather_for_generation':
        return emit('gatherForGeneration', (x) => boolOf(file, x, e));
      case 'precompute_ref_log_probs':
        // DPOConfig: the reference log-probabilities are computed once before training; no reference forward per step.
        return emit('referenceModel', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'precomputed' : undefined)));
      case 'bf16':
        return emit('bf16', (x) => boolOf(file, x, e));
      case 'fp16':
        return emit('fp16', (x) => boolOf(file, x, e));
      case 'optim': {
        const x = v();
        const g = x.k === 'lit' && typeof x.v === 'string' ? galoreOf(x.v) : undefined;
        if (g) {
          file.push('galore', e, 'galore', tool, x, origin);
          file.push('galoreLayerwise', e, g.layerwise, tool, x, origin);
        }
        return emit('optimizer', (y) => optimizerOf(file, y, e));
      }
      case 'optim_target_modules':
        return emit('galoreTargets', (x) =>
          x.k === 'lit' && typeof x.v === 'string' ? [x.v] : stringListOf(file, x, e),
        );
      case 'optim_args':
        return emit('galoreRank', (x) => (x.k === 'lit' && typeof x.v === 'string' ? galoreRankOf(x.v) : undefined));
      case 'gradient_checkpointing':
        return emit('gradientCheckpointing', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'full' : 'none')));
      case 'activation_offloading':
        return emit('activationOffloading', (x) => boolOf(file, x, e));
      case 'auto_find_batch_size':
        return emit('autoFindBatchSize', (x) => boolOf(file, x, e));
      case 'torch_compile':
        return emit('compile', (x) => boolOf(file, x, e));
      case 'use_liger_kernel':
        // Liger's fused linear cross-entropy never materializes the logits (HF use_liger_kernel, TRL loss with liger);
        // its RMSNorm, RoPE and SwiGLU kernels replace the block's ops (transformers _apply_liger_kernel_to_instance).
        return emit('loss', (x) => {
          const on = mapBool(boolOf(file, x, e), (b) => b || undefined);
          if (on !== undefined) file.push('kernels', e, on === true ? 'liger' : on, tool, x, origin);
          return on === true ? 'fused' : on;
        });
      case 'deepspeed':
        return deepspeedEntry(file, e, tool, origin);
      case 'fsdp':
        return fsdpEntry(file, e, tool, origin);
      case 'model_init_kwargs':
        return nestedLoad(file, e, tool);
      case 'packing':
        // TRL SFTConfig packing: samples concatenated to max_length; otherwise each batch is padded to its longest.
        if (trlOrLocal || ctx === 'dataclass')
          return emit('batchLengths', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'fixed' : 'variable')));
        return;
      case 'max_length':
        if (trlOrLocal || ctx === 'dataclass') return emit('seqLen', (x) => numberOf(file, x, e, true));
        return;
      default:
        if (SEQ_KEYS.has(k)) return emit('seqLen', (x) => numberOf(file, x, e, true));
    }
  }
  if (ctx === 'load' || script) {
    switch (k) {
      case 'dtype':
      case 'torch_dtype':
        return emit('weightsDtype', (x) => dtypeOf(file, x));
      case 'attn_implementation':
        return emit('attention', (x) => attentionOf(file, x));
      case 'num_labels':
        return emit('numLabels', (x) => numberOf(file, x, e, true));
      case 'quantization_config': {
        const x = v();
        if (x.k === 'lit' && x.v === null) return;
        if (x.k === 'call' && /(^|\.)BitsAndBytesConfig$/.test(x.callee)) return;
        if (x.k === 'dict') return nestedBnb(file, x, tool);
        // A BitsAndBytesConfig(...) written inside the value (e.g. `BitsAndBytesConfig(...) if q_lora else None`) speaks for itself.
        if (e.valueNode && /\bBitsAndBytesConfig\s*\(/.test(file.text.slice(e.valueNode.from, e.valueNode.to))) return;
        return file.push('quantBits', e, { unknown: `quantization_config is ${file.describe(x)}` }, tool, x, origin);
      }
    }
  }
  if (ctx === 'load' || ctx === 'bnb' || script) {
    switch (k) {
      case 'load_in_4bit':
        return emit('quantBits', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 4 : undefined)));
      case 'load_in_8bit':
        return emit('quantBits', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 8 : undefined)));
      case 'bnb_4bit_quant_type':
        return emit('quantType', (x) => enumOf(file, x, e, ['nf4', 'fp4']));
      case 'bnb_4bit_use_double_quant':
      case 'use_bnb_nested_quant':
      case 'use_nested_quant':
        return emit('doubleQuant', (x) => boolOf(file, x, e));
    }
  }
  if (ctx === 'ia3') {
    switch (k) {
      case 'target_modules':
        return emit('ia3Targets', (x) => stringListOf(file, x, e));
      case 'feedforward_modules':
        return emit('ia3Feedforward', (x) => stringListOf(file, x, e));
    }
  }
  if (ctx === 'lora') {
    switch (k) {
      case 'r':
        return emit('loraR', (x) => numberOf(file, x, e, true));
      case 'lora_alpha':
        return emit('loraAlpha', (x) => numberOf(file, x, e, false));
      case 'lora_dropout':
        return emit('loraDropout', (x) => numberOf(file, x, e, false));
      case 'target_modules': {
        // A str other than "all-linear": PEFT re.fullmatch-es it against every module's full name
        // (peft/tuners/tuners_utils.py check_target_module_exists); resolve matches it once the model is known.
        const x = v();
        if (x.k === 'lit' && typeof x.v === 'string' && x.v !== 'all-linear')
          return file.push('loraTargetRegex', e, x.v, tool, x, origin);
        return emit('loraTargets', (y) => targetsOf(file, y, e));
      }
      case 'modules_to_save':
        return emit('loraModulesToSave', (x) => stringListOf(file, x, e));
      case 'use_dora':
        return emit('loraDora', (x) => boolOf(file, x, e));
      case 'target_parameters':
        return emit('loraTargetParameters', (x) => stringListOf(file, x, e));
    }
  }
  if (script) {
    switch (k) {
      case 'model_name_or_path':
      case 'pretrained_model_name_or_path':
      case 'base_model_name_or_path': {
        const x = v();
        if (x.k === 'lit' && x.v === null) return;
        return file.push(
          'model',
          e,
          x.k === 'lit' && typeof x.v === 'string' ? x.v : { unknown: file.describe(x) },
          tool,
          x,
          origin,
        );
      }
      case 'lora_r':
      case 'lora_rank':
        return emit('loraR', (x) => numberOf(file, x, e, true));
      case 'lora_alpha':
        return emit('loraAlpha', (x) => numberOf(file, x, e, false));
      case 'lora_dropout':
        return emit('loraDropout', (x) => numberOf(file, x, e, false));
      case 'lora_target_modules':
        return emit('loraTargets', (x) => scriptTargetsOf(file, x, e));
      case 'lora_modules_to_save':
        return emit('loraModulesToSave', (x) => stringListOf(file, x, e));
      case 'use_dora':
        return emit('loraDora', (x) => boolOf(file, x, e));
      case 'use_peft':
        return emit('method', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'lora' : undefined)));
      // FastChat's q_lora and the PEFT SFT example's use_4bit_quantization load the base model in 4 bits.
      case 'q_lora':
      case 'use_4bit_quantization':
      case 'use_qlora':
        return emit('quantBits', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 4 : undefined)));
      case 'use_flash_attn':
        return emit('attention', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'flash' : undefined)));
    }
  }
}

function deepspeedEntry(file: PythonFile, e: Entry, tool: Tool, origin?: Fact['origin']): void {
  const x = file.valueOf(e);
  if (x.k === 'lit' && x.v === null) return;
  if (x.k === 'lit' && typeof x.v === 'string') {
    if (x.v.trimStart().startsWith('{')) {
      return file.push(
        'deepspeedConfig',
        e,
        { unknown: 'an inline DeepSpeed JSON string; its keys are not read here' },
        tool,
        x,
        origin,
      );
    }
    file.push('deepspeedConfig', e, x.v, tool, x, origin);
    file.references.push({ kind: 'deepspeed', path: x.v, span: x.via?.span ?? e.valueSpan });
    return;
  }
  if (x.k === 'dict')
    return file.push(
      'deepspeedConfig',
      e,
      { unknown: 'an inline DeepSpeed dict; its keys are not read here' },
      tool,
      x,
      origin,
    );
  file.push('deepspeedConfig', e, { unknown: file.describe(x) }, tool, x, origin);
}

/** HF `fsdp`: bool, a space-separated string or a list of FSDPOption values (transformers training_args.py). */
function fsdpEntry(file: PythonFile, e: Entry, tool: Tool, origin?: Fact['origin']): void {
  const x = file.valueOf(e);
  if (x.k === 'lit' && x.v === null) return;
  let opts: string[] | undefined;
  if (x.k === 'lit' && typeof x.v === 'boolean') opts = x.v ? ['full_shard'] : [];
  else if (x.k === 'lit' && typeof x.v === 'string') opts = x.v.split(/\s+/).filter(Boolean);
  else if (x.k === 'lit' && Array.isArray(x.v)) opts = [...(x.v as readonly string[])];
  if (!opts) return file.push('fsdp', e, { unknown: file.describe(x) }, tool, x, origin);
  const mode = opts.find((o) =>
    ['full_shard', 'shard_grad_op', 'hybrid_shard', 'hybrid_shard_zero2', 'no_shard'].includes(o),
  );
  const value =
    mode === 'hybrid_shard_zero2' ? 'hybrid_shard' : (mode ?? (opts.includes('offload') ? undefined : 'none'));
  if (value === undefined) {
    file.problem(
      'invalid-value',
      'warning',
      msg('fsdp "offload" needs a sharding mode such as full_shard'),
      e.valueSpan,
      e.rawKey,
    );
    file.push('fsdp', e, { unknown: 'offload without a sharding mode' }, tool, x, origin);
  } else {
    file.push('fsdp', e, value, tool, x, origin);
  }
  if (opts.includes('offload')) file.push('fsdpOffload', e, true, tool, x, origin);
}

/** TRL model_init_kwargs: the from_pretrained keywords used when the trainer loads the model from a string. */
function nestedLoad(file: PythonFile, e: Entry, tool: Tool): void {
  const x = file.valueOf(e);
  if (x.k === 'lit' && x.v === null) return;
  if (x.k !== 'dict') {
    file.problem(
      'not-static',
      'info',
      msg('model_init_kwargs is {0}; the load dtype and attention are not known', file.describe(x)),
      e.valueSpan,
      e.rawKey,
    );
    return;
  }
  for (const inner of x.entries) mapEntry(file, 'load', inner, tool);
  implicitBnbDefaults(file, x.entries, e.valueNode ?? file.root, tool);
  file.opaqueSpreads(x.opaque.map((r) => ({ reason: r, span: e.valueSpan })));
}

function nestedBnb(file: PythonFile, x: Extract<Val, { k: 'dict' }>, tool: Tool): void {
  for (const inner of x.entries) mapEntry(file, 'bnb', inner, tool);
}
