// The Axolotl training YAML (`axolotl train cfg.yml`): model, batch, LoRA/QLoRA, precision, checkpointing,
// attention, kernels, DeepSpeed and FSDP keys as facts with exact spans. Keys and defaults follow FORMATS.md §5
// (axolotl-ai-cloud/axolotl@067b021:src/axolotl/utils/schemas/*.py, utils/config/__init__.py). Pure: no I/O, no node:* or vscode imports.
import { about, msg, normalizeOptimizer, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { configOverrides } from './config-overrides';
import { lookalikeKeys } from './axolotl-lookalikes';
import {
  asBackwardPrefetch,
  asEvalStrategy,
  asPacking,
  asPaddedWhenOn,
  Invalid,
  asBool,
  asNonNegNumber,
  asPosInt,
  asSaveStrategy,
  asStateDictType,
  asSharding,
  asString,
  attentionOf,
  boolOf,
  describe,
  fsdpFromOptions,
  galoreKeys,
  grpoKeys,
  listOf,
  numOf,
  optimizerOf,
  strOf,
  type Conv,
  type Entry,
} from './values';

/** Deprecated attention booleans and the attn_implementation they stand for (schemas/model.py). */
const ATTENTION_FLAGS: Readonly<Record<string, string>> = {
  flash_attention: 'flash_attention_2',
  sdp_attention: 'sdpa',
  xformers_attention: 'xformers',
  flex_attention: 'flex_attention',
  sage_attention: 'sage',
  eager_attention: 'eager',
};

export function analyzeAxolotlYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'axolotl-yaml', tool: 'axolotl', omegaconf: false });
  return guarded(ctx, () => analyze(ctx));
}

const isOn = (ctx: YamlCtx, e: Entry | undefined): boolean => (e ? boolOf(ctx.view(e)) === true : false);
const isSet = (ctx: YamlCtx, e: Entry | undefined): boolean => (e ? ctx.view(e).t !== 'absent' : false);

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  ctx.put('model', top.get('base_model'), asString);
  configOverrides(ctx, top.get('overrides_of_model_config'));

  // Batch: at least two of micro_batch_size / gradient_accumulation_steps / batch_size, and never gas with
  // batch_size (validation.py:220-279). Per-GPU memory depends on micro_batch_size only.
  const micro = top.get('micro_batch_size');
  const gas = top.get('gradient_accumulation_steps');
  const batch = top.get('batch_size');
  ctx.put('microBatchSize', micro, asPosInt);
  ctx.put('gradientAccumulationSteps', gas, asPosInt);
  ctx.put('trainBatchSize', batch, asPosInt);
  const given = [micro, gas, batch].filter((e) => isSet(ctx, e));
  const base = top.get('base_model');
  if (base && given.length < 2) {
    ctx.problem(
      'invalid-value',
      'warning',
      msg('Axolotl needs at least two of micro_batch_size, gradient_accumulation_steps and batch_size'),
      (given[0] ?? base).keySpan,
      'micro_batch_size',
    );
  }
  if (gas && batch && isSet(ctx, gas) && isSet(ctx, batch)) {
    ctx.problem(
      'invalid-value',
      'error',
      msg('batch_size and gradient_accumulation_steps cannot both be set; Axolotl derives one from the other'),
      batch.keySpan,
      'batch_size',
    );
  }
  ctx.put('seqLen', top.get('sequence_len'), asPosInt);
  // save_strategy goes to TrainingArguments as is ("no" writes no checkpoint).
  ctx.put('savesCheckpoints', top.get('save_strategy'), asSaveStrategy);
  // Evaluation runs during training when a validation split (val_set_size > 0) or test_datasets exist, unless
  // eval_strategy is "no"; eval_batch_size defaults to micro_batch_size.
  ctx.put('evalBatchSize', top.get('eval_batch_size'), asPosInt);
  const evalStrategy = top.get('eval_strategy');
  if (evalStrategy && isSet(ctx, evalStrategy)) ctx.put('evalStrategy', evalStrategy, asEvalStrategy);
  else if (isSet(ctx, top.get('test_datasets'))) ctx.put('evalStrategy', top.get('test_datasets'), () => true);
  else
    ctx.put('evalStrategy', top.get('val_set_size'), (v) => {
      const n = numOf(v);
      return n === undefined ? undefined : n > 0;
    });
  // sample_packing fills every batch to sequence_len; pad_to_sequence_len pads to it. Otherwise batches vary.
  const packing = top.get('sample_packing');
  const lengthsFrom = packing && isOn(ctx, packing) ? packing : (top.get('pad_to_sequence_len') ?? packing);
  ctx.put('batchLengths', lengthsFrom, asPacking);
  // Padded to sequence_len, or packed (Axolotl's multipack builds a mask of the packed rows for SDPA): a mask either way.
  ctx.put('paddedBatches', lengthsFrom, asPaddedWhenOn);

  method(ctx, top);
  precision(ctx, top);
  memory(ctx, top);
  attention(ctx, top);
  kernels(ctx, top);
  distributed(ctx, top);
  lookalikeKeys(ctx, top);
}

function method(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('method', top.get('adapter'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    if (s === 'lora' || s === 'qlora') return s;
    if (s === 'llama-adapter') return { unknown: 'llama-adapter: prefix tuning is not modelled' };
    return new Invalid(about('{0}: expected lora or qlora, found {1}', describe(v)));
  });
  ctx.put('loraR', top.get('lora_r'), asPosInt);
  ctx.put('loraAlpha', top.get('lora_alpha'), asNonNegNumber);
  ctx.put('loraDropout', top.get('lora_dropout'), asNonNegNumber);
  ctx.put('loraDora', top.get('peft_use_dora'), asBool);
  ctx.put(
    'loraTargetParameters',
    top.get('lora_target_parameters'),
    (v) => listOf(v) ?? new Invalid(about('{0}: expected a list of parameter names')),
  );
  // lora_target_linear adds every linear layer, which subsumes an explicit module list.
  const linear = top.get('lora_target_linear');
  if (isOn(ctx, linear) && linear) ctx.add('loraTargets', linear, 'all-linear');
  else ctx.put('loraTargets', top.get('lora_target_modules'), asTargets);
  ctx.put(
    'loraModulesToSave',
    top.get('lora_modules_to_save'),
    (v) => listOf(v) ?? new Invalid(about('{0}: expected a list of module names')),
  );

  const q4 = top.get('load_in_4bit');
  const q8 = top.get('load_in_8bit');
  const adapter = top.get('adapter');
  const adapterName = adapter ? strOf(ctx.view(adapter))?.trim().toLowerCase() : undefined;
  if (isOn(ctx, q4) && q4 && adapterName === 'lora') loraOver4bitFlag(ctx, q4);
  else if (isOn(ctx, q4) && q4) ctx.add('quantBits', q4, 4);
  else if (isOn(ctx, q8) && q8) ctx.add('quantBits', q8, 8);
  if (isOn(ctx, q4) && isOn(ctx, q8) && q8)
    ctx.problem(
      'invalid-value',
      'error',
      msg('load_in_4bit and load_in_8bit are both true'),
      q8.keySpan,
      'load_in_8bit',
    );
  if (adapter && adapterName === 'qlora' && !isOn(ctx, q4)) qloraWithout4bit(ctx, adapter, q4);
  // rl: paired preference trainers built on TRL (axolotl core/trainers/dpo): dpo and ipo compare with a reference model,
  // orpo and simpo need none. KTO's unpaired batches are not modelled here.
  const rl = top.get('rl');
  const rlName = rl ? strOf(ctx.view(rl))?.trim().toLowerCase() : undefined;
  if (rl && rlName === 'grpo') {
    // GRPO through TRL's GRPOTrainer (axolotl core/trainers/grpo): the generation settings sit under `trl:`.
    ctx.add('rollout', rl, 'grpo');
    const trl = ctx.sub(top.get('trl'));
    grpoKeys(ctx, trl);
    // trl.reward_funcs names Python functions (module.function) or reward models (a Hub id, loaded on every GPU).
    const rf = trl.get('reward_funcs');
    const ids = ((rf ? listOf(ctx.view(rf)) : undefined) ?? []).filter((name) => /^[\w.-]+\/[\w.-]+$/.test(name));
    if (rf && ids.length > 0) ctx.add('rewardModels', rf, ids, 'trl.reward_funcs');
  }
  ctx.put('preference', top.get('rl'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    return s === 'dpo' || s === 'ipo'
      ? 'dpo'
      : s === 'kto'
        ? 'kto'
        : s === 'orpo' || s === 'simpo'
          ? 'reference-free'
          : undefined;
  });
  // rl: simpo trains with TRL's CPOTrainer: cpo_alpha weighs its chosen NLL (0: none).
  ctx.put('cpoAlpha', top.get('cpo_alpha'), asNonNegNumber);
  // rl: dpo with rpo_alpha: TRL's DPOTrainer adds the chosen half's NLL.
  ctx.put('rpoAlpha', top.get('rpo_alpha'), asNonNegNumber);
}

const asTargets: Conv = (v) => {
  const list = listOf(v);
  if (!list || list.length === 0) return undefined;
  return list.length === 1 && list[0] === 'all-linear' ? 'all-linear' : list;
};

/**
 * bf16 defaults to "auto" (bf16 on GPUs that support it, else fp16: resolve_dtype); "full" also means bf16.
 * bfloat16 / float16 / float32: true load the weights in that dtype without AMP.
 */
function precision(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.put('bf16', top.get('bf16'), (v) => {
    const s = strOf(v)?.trim().toLowerCase();
    if (s === 'auto') return { unknown: 'auto: bf16 on Ampere or newer GPUs, fp16 otherwise' };
    if (s === 'full') return true;
    return asBool(v);
  });
  fp16(ctx, top.get('fp16'));
  ctx.checkPrecisionConflict();
  for (const [k, d] of [
    ['bfloat16', 'bf16'],
    ['float16', 'fp16'],
    ['float32', 'fp32'],
  ] as const) {
    const e = top.get(k);
    if (isOn(ctx, e) && e && !ctx.has('weightsDtype')) ctx.add('weightsDtype', e, d);
  }
  const fp8 = top.get('fp8');
  if (isOn(ctx, fp8) && fp8) ctx.add('mixedPrecision', fp8, 'fp8');
  ctx.put('fp8AllGather', top.get('fp8_enable_fsdp_float8_all_gather'), asBool);
  // quantize_moe_experts: the 3-D expert parameters of transformers 5's fused MoE blocks, which bitsandbytes does not
  // reach, are quantized to NF4 as the model loads (axolotl/monkeypatch/moe_quant.py).
  ctx.put('quantizeExperts', top.get('quantize_moe_experts'), asBool);
}

/**
 * gradient_checkpointing: true / "offload" / "offload_disk"; the offload forms also move checkpoints to the host.
 * "unsloth", the older name, is taken as "offload" (schemas/config.py check_offload_grad_checkpointing, with a warning
 * that it is deprecated).
 */
function memory(ctx: YamlCtx, top: Map<string, Entry>): void {
  const gc = top.get('gradient_checkpointing');
  ctx.put('autoFindBatchSize', top.get('auto_find_batch_size'), asBool);
  ctx.put('ddpFindUnused', top.get('ddp_find_unused_parameters'), asBool);
  const ao = top.get('activation_offloading');
  ctx.checkpointKwargs(top.get('gradient_checkpointing_kwargs'));
  // `gradient_checkpointing: false` beside fsdp_config's activation_checkpointing leaves FSDP's checkpointing on
  // (utils/trainer.py setup_fsdp_envs: FSDP_ACTIVATION_CHECKPOINTING): distributed() reads it.
  const fsdpCheckpoints = gc !== undefined && boolOf(ctx.view(gc)) === false && fsdpActivationCheckpointing(ctx, top);
  if (!fsdpCheckpoints)
    ctx.put('gradientCheckpointing', gc, (v) => {
      const s = strOf(v)?.trim().toLowerCase();
      if (s === 'offload' || s === 'offload_disk' || s === 'unsloth') return 'full';
      const b = boolOf(v);
      return b === undefined
        ? new Invalid(about('{0}: expected true, false, offload, offload_disk or unsloth, found {1}', describe(v)))
        : b
          ? 'full'
          : 'none';
    });
  if (isSet(ctx, ao)) {
    ctx.put('activationOffloading', ao, (v) => {
      const s = strOf(v)?.trim().toLowerCase();
      if (s === 'legacy' || s === 'disk' || s === 'hidden_states') return true;
      return asBool(v);
    });
  } else if (gc && /^(offload|unsloth$)/.test(strOf(ctx.view(gc))?.trim().toLowerCase() ?? '')) {
    ctx.add('activationOffloading', gc, true);
  }
  // tiled_mlp (axolotl monkeypatch/tiled_mlp: DeepSpeed's TiledMLP) with tiled_mlp_num_shards, or ceil(seq / hidden).
  const tiled = top.get('tiled_mlp');
  if (tiled && boolOf(ctx.view(tiled)) === true) {
    const shards = top.get('tiled_mlp_num_shards');
    const n = shards ? numOf(ctx.view(shards)) : undefined;
    if (shards && n !== undefined && Number.isInteger(n) && n > 0) ctx.add('tiledMlp', shards, n);
    else ctx.add('tiledMlp', tiled, true);
  } else if (tiled) {
    ctx.put('tiledMlp', tiled, (v) =>
      boolOf(v) === false ? false : new Invalid(about('{0}: expected true or false, found {1}', describe(v))),
    );
  }
  // The default optimizer is adamw_torch_fused (schemas/training.py); 4-bit optimizers keep their raw name.
  galoreKeys(ctx, top);
  ctx.put('optimizer', top.get('optimizer'), (v) => {
    const s = strOf(v)?.trim();
    return s ? optimizerOf(s, normalizeOptimizer) : undefined;
  });
}

function attention(ctx: YamlCtx, top: Map<string, Entry>): void {
  const impl = top.get('attn_implementation');
  ctx.put('attention', impl, (v) => {
    const s = strOf(v);
    if (s === undefined)
      return new Invalid(about('{0}: expected an attention implementation name, found {1}', describe(v)));
    return attentionOf(s) ?? { unknown: `attn_implementation ${s}: memory behaviour not known` };
  });
  for (const [flag, replacement] of Object.entries(ATTENTION_FLAGS)) {
    const e = top.get(flag);
    if (!e || !isSet(ctx, e)) continue;
    ctx.deprecated(e, about('`{0}` is deprecated: use `attn_implementation: {1}`', replacement));
    if (isOn(ctx, e) && !ctx.has('attention')) ctx.add('attention', e, attentionOf(replacement) ?? 'flash');
  }
}

/**
 * Loss and kernel plugins: Liger's fused linear cross-entropy and Cut Cross Entropy never materialize the full
 * logits ('fused'); cut_cross_entropy defaults to true once its plugin is listed
 * (axolotl@1188fdc:src/axolotl/integrations/cut_cross_entropy/args.py). chunked_cross_entropy is 'chunked'.
 * Both are plugins: Axolotl registers a plugin and merges its keys into the config schema only where `plugins:` lists
 * it (axolotl@067b021 src/axolotl/cli/config.py:214, utils/config/__init__.py:447; Liger has been a plugin since
 * it came, #1861), and the schema drops a key it does not know, so their keys without it do nothing (said at each).
 */
function kernels(ctx: YamlCtx, top: Map<string, Entry>): void {
  const plugins = top.get('plugins');
  const names = plugins ? (listOf(ctx.view(plugins)) ?? []) : [];
  const ligerListed = names.some((n) => /liger/i.test(n));
  const cceListed = names.some((n) => /cut_cross_entropy/i.test(n));
  const liger = pluginKey(ctx, top, 'liger_fused_linear_cross_entropy', ligerListed, LIGER_PLUGIN);
  const cce = pluginKey(ctx, top, 'cut_cross_entropy', cceListed, CCE_PLUGIN);
  if (isOn(ctx, liger) && liger) ctx.add('loss', liger, 'fused');
  else if (isOn(ctx, cce) && cce) ctx.add('loss', cce, 'fused');
  else if (plugins && !(cce && isSet(ctx, cce)) && cceListed) ctx.add('loss', plugins, 'fused');
  // Liger's plugin swaps RMSNorm and the gated MLP activation for its kernels when liger_rms_norm / liger_glu_activation.
  const norm = pluginKey(ctx, top, 'liger_rms_norm', ligerListed, LIGER_PLUGIN);
  const glu = pluginKey(ctx, top, 'liger_glu_activation', ligerListed, LIGER_PLUGIN);
  const ligerNorm = norm ?? glu;
  if (isOn(ctx, ligerNorm) && ligerNorm) ctx.add('kernels', ligerNorm, 'liger');
  const chunked = top.get('chunked_cross_entropy');
  if (!ctx.has('loss') && isOn(ctx, chunked) && chunked) ctx.add('loss', chunked, 'chunked');

  ctx.put('compile', top.get('torch_compile'), (v) => {
    if (strOf(v)?.trim().toLowerCase() === 'auto')
      return { unknown: 'auto: compiled when the installed torch supports it' };
    return asBool(v);
  });
}

/**
 * fp16: a boolean. `auto` (truefoundry/llm-finetune's config-base.yaml, beside `bf16: auto`, filled in by the project's
 * own script) is not one Axolotl reads, unlike bf16's: said at the key and read as unset, so bf16 decides.
 */
const LIGER_PLUGIN = 'axolotl.integrations.liger.LigerPlugin';
const CCE_PLUGIN = 'axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin';

/**
 * A plugin's key: the entry where `plugins:` lists the plugin; else undefined, and a key set on is said to do nothing
 * (DeltaCoder's FSDP config sets liger_fused_linear_cross_entropy with no plugins: the full logits of 32,768 tokens).
 */
function pluginKey(
  ctx: YamlCtx,
  top: Map<string, Entry>,
  key: string,
  listed: boolean,
  plugin: string,
): Entry | undefined {
  const e = top.get(key);
  if (listed || !e) return e;
  if (isOn(ctx, e))
    ctx.problem(
      'no-effect',
      'warning',
      msg('{0} does nothing unless `plugins:` lists {1}: Axolotl reads the key only from the plugin', key, plugin),
      e.keySpan,
      key,
    );
  return undefined;
}

function fp16(ctx: YamlCtx, e: Entry | undefined): void {
  if (!e || strOf(ctx.view(e))?.trim().toLowerCase() !== 'auto') {
    ctx.put('fp16', e, asBool);
    return;
  }
  ctx.problem(
    'not-static',
    'warning',
    msg("fp16: 'auto' is not a boolean Axolotl reads (bf16 takes 'auto', fp16 does not): read as unset"),
    e.valueSpan,
    'fp16',
  );
}

/** fsdp_config's activation_checkpointing (or fsdp_activation_checkpointing) is true. */
function fsdpActivationCheckpointing(ctx: YamlCtx, top: Map<string, Entry>): boolean {
  const cfg = ctx.sub(top.get('fsdp_config'));
  const e = cfg.get('activation_checkpointing') ?? cfg.get('fsdp_activation_checkpointing');
  return e !== undefined && boolOf(ctx.view(e)) === true;
}

/** DeepSpeed (a JSON path), FSDP (deprecated list form or fsdp_config / fsdp_version) and N-D parallel sizes. */
function distributed(ctx: YamlCtx, top: Map<string, Entry>): void {
  ctx.deepspeedRef(top.get('deepspeed'));

  const list = top.get('fsdp');
  if (list && isSet(ctx, list)) {
    const v = ctx.view(list);
    const options = listOf(v);
    if (options && options.length > 0) {
      ctx.deprecated(
        list,
        about('`{0}` is deprecated: the `fsdp:` option list is replaced by `fsdp_version` and `fsdp_config`'),
        'info',
      );
      const parsed = fsdpFromOptions(options);
      if (parsed.fsdp) ctx.add('fsdp', list, parsed.fsdp);
      if (parsed.offload) ctx.add('fsdpOffload', list, true);
    } else if (v.t !== 'unknown') {
      ctx.put('fsdp', list, (x) => new Invalid(about('{0}: expected a list of FSDP options, found {1}', describe(x))));
    }
  }

  const cfgEntry = top.get('fsdp_config');
  const cfg = ctx.sub(cfgEntry);
  // A `fsdp_` prefix on fsdp_config keys is accepted and stripped with a deprecation warning (validation.py:1083-1103).
  const get = (name: string): Entry | undefined => cfg.get(name) ?? cfg.get(`fsdp_${name}`);
  for (const [k, e] of cfg) {
    if (k.startsWith('fsdp_') && k !== 'fsdp_version')
      ctx.deprecated(e, about('`{0}` is deprecated: write `{1}` without the `fsdp_` prefix', k.slice(5)), 'info');
  }
  const version = top.get('fsdp_version') ?? get('version') ?? cfg.get('fsdp_version');
  if (version && isSet(ctx, version)) {
    const n = numOf(ctx.view(version));
    if (n !== 1 && n !== 2)
      ctx.problem('invalid-value', 'error', msg('{0}: expected 1 or 2', version.path), version.valueSpan, version.path);
    else ctx.put('fsdpVersion', version, () => n);
  }
  const fsdpOn = cfg.size > 0 || (version !== undefined && isSet(ctx, version));
  if (fsdpOn && !ctx.has('fsdp')) {
    const strategy = get('sharding_strategy');
    const reshard = get('reshard_after_forward');
    if (strategy) ctx.put('fsdp', strategy, asSharding);
    if (!ctx.has('fsdp') && reshard) {
      ctx.put('fsdp', reshard, (v) => {
        const b = boolOf(v);
        // FSDP2's fully_shard takes a world size too, but Accelerate's FSDP2 plugin requires a bool.
        if (b === undefined && numOf(v) !== undefined)
          return new Invalid(
            about('{0}: expected true or false (Accelerate takes a bool under FSDP2), found {1}', describe(v)),
          );
        return b === undefined ? asSharding(v) : b ? 'full_shard' : 'shard_grad_op';
      });
    }
    // fsdp_config without a strategy shards fully (FSDP's FULL_SHARD / FSDP2 reshard_after_forward=True).
    const site = cfgEntry && cfg.size > 0 ? cfgEntry : version;
    if (!ctx.has('fsdp') && site) ctx.add('fsdp', site, 'full_shard');
  }
  if (!ctx.has('fsdpOffload')) ctx.put('fsdpOffload', get('offload_params'), asBool);
  ctx.put('fsdpStateDictType', get('state_dict_type'), asStateDictType);
  ctx.put('fsdpBackwardPrefetch', get('backward_prefetch'), asBackwardPrefetch);
  // FSDP1 only: FSDP2 always computes with the original parameters.
  if (!version || numOf(ctx.view(version)) !== 2) {
    ctx.put('fsdpUseOrigParams', get('use_orig_params'), asBool);
    ctx.put('fsdpLimitAllGathers', get('limit_all_gathers'), asBool);
  }
  ctx.put('fsdpCpuRamEfficientLoading', get('cpu_ram_efficient_loading'), asBool);
  if (!ctx.has('gradientCheckpointing')) {
    ctx.put('gradientCheckpointing', get('activation_checkpointing'), (v) => {
      const b = boolOf(v);
      return b === undefined ? asBool(v) : b ? 'full' : undefined;
    });
  }
  ctx.fsdpCheckpointing(get('activation_checkpointing'));
  ctx.syncEachBatch(top.get('accelerator_config'));

  ctx.put('tensorParallel', top.get('tensor_parallel_size'), asPosInt);
  ctx.put('fsdpShardSize', top.get('dp_shard_size'), asPosInt);
  // Sequence splitting over GPUs (ring-flash-attn): context_parallel_size, called sequence_parallel_degree before.
  ctx.put('contextParallel', top.get('context_parallel_size') ?? top.get('sequence_parallel_degree'), asPosInt);
  ctx.put('expertParallel', top.get('expert_parallel_size'), asPosInt);
}

/**
 * `adapter: lora` with `load_in_4bit: true`: Axolotl builds its 4-bit BitsAndBytesConfig for `adapter: qlora` only
 * (axolotl-ai-cloud/axolotl@067b021 src/axolotl/loaders/model.py _set_quantization_config; since v0.13, #3205, it no
 * longer passes `load_in_4bit` to from_pretrained), so the model loads unquantized, and _prepare_model_for_quantization
 * still runs prepare_model_for_kbit_training on it, which casts every 16-bit parameter to fp32 (the norms and
 * embeddings go back to the model dtype after; the linear layers stay fp32). Said at the key.
 */
function loraOver4bitFlag(ctx: YamlCtx, q4: Entry): void {
  ctx.add('kbitUpcast', q4, 'all');
  ctx.problem(
    'no-effect',
    'warning',
    msg(
      'load_in_4bit: true with adapter: lora loads no 4-bit weights in Axolotl 0.13 and later (only adapter: qlora does): ' +
        'the model loads unquantized and prepare_model_for_kbit_training casts its weights to fp32; ' +
        'set adapter: qlora for 4-bit weights',
    ),
    q4.keySpan,
    'load_in_4bit',
  );
}

/**
 * `adapter: qlora` without `load_in_4bit: true`. A value that is no boolean (`load_in_4bit: auto` in
 * truefoundry/llm-finetune's config-base.yaml, filled in by the project's own script) is not one Axolotl reads: the run
 * that works is the 4-bit one the adapter needs, said at the key. Otherwise Axolotl refuses the config.
 */
function qloraWithout4bit(ctx: YamlCtx, adapter: Entry, q4: Entry | undefined): void {
  const written = q4 ? ctx.view(q4) : undefined;
  if (q4 && written && written.t !== 'absent' && boolOf(written) === undefined) {
    ctx.problem(
      'not-static',
      'warning',
      msg("load_in_4bit: '{0}' is not a boolean Axolotl reads; adapter: qlora loads the model in 4 bits", ctx.raw(q4)),
      q4.valueSpan,
      'load_in_4bit',
    );
    ctx.add('quantBits', q4, 4);
    return;
  }
  ctx.problem(
    'invalid-value',
    'error',
    msg('adapter: qlora requires load_in_4bit: true'),
    adapter.valueSpan,
    'adapter',
  );
}
