// The Accelerate config YAML (`accelerate launch --config_file`): process counts, mixed precision and the DeepSpeed /
// FSDP / N-D parallel plugin blocks, as facts with exact spans. Keys and defaults follow FORMATS.md §4
// (huggingface/accelerate@16cb6eb:src/accelerate/commands/config/config_args.py, commands/launch.py). Pure: no I/O, no node:* or vscode imports.
import { about, msg, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import {
  asBackwardPrefetch,
  Invalid,
  asBool,
  asEnumInt,
  asOffload,
  asPosInt,
  asSharding,
  asStateDictType,
  boolOf,
  describe,
  numOf,
  strOf,
  type Conv,
  type Entry,
} from './values';

/**
 * Fields of ClusterConfig / SageMakerConfig (config_args.py) plus the legacy keys process_config converts
 * (`fp16`, `dynamo_backend`). Anything else makes `accelerate launch` raise "had unknown keys".
 */
const KNOWN_TOP_KEYS = new Set([
  'compute_environment',
  'distributed_type',
  'mixed_precision',
  'use_cpu',
  'debug',
  'num_processes',
  'machine_rank',
  'num_machines',
  'gpu_ids',
  'main_process_ip',
  'main_process_port',
  'rdzv_backend',
  'same_network',
  'main_training_function',
  'enable_cpu_affinity',
  'fp8_config',
  'deepspeed_config',
  'fsdp_config',
  'tp_config',
  'parallelism_config',
  'megatron_lm_config',
  'ipex_config',
  'mpirun_config',
  'downcast_bf16',
  'tpu_name',
  'tpu_zone',
  'tpu_use_cluster',
  'tpu_use_sudo',
  'command_file',
  'commands',
  'tpu_vm',
  'tpu_env',
  'dynamo_config',
  'fp16',
  'dynamo_backend',
  'ec2_instance_type',
  'iam_role_name',
  'image_uri',
  'profile',
  'region',
  'base_job_name',
  'pytorch_version',
  'transformers_version',
  'py_version',
  'sagemaker_inputs_file',
  'sagemaker_metrics_file',
  'additional_args',
]);

const DISTRIBUTED_TYPES = new Set([
  'NO',
  'MULTI_GPU',
  'DEEPSPEED',
  'FSDP',
  'MEGATRON_LM',
  'XLA',
  'MULTI_CPU',
  'MULTI_NPU',
  'MULTI_XPU',
  'MULTI_MLU',
  'MULTI_SDAA',
  'MULTI_MUSA',
  'MULTI_HPU',
  'MULTI_NEURON',
  'TP',
  'DATA_PARALLEL',
  'MODEL_PARALLEL',
]);

/**
 * `mixed_precision`: Accelerate writes 'no' quoted because PyYAML (YAML 1.1) reads a plain `no` as False; both
 * spellings mean no autocast, normalized to 'none'.
 */
const asMixedPrecision: Conv = (v) => {
  if (v.t === 'bool' && !v.v) return 'none';
  const s = strOf(v)?.trim().toLowerCase();
  if (s === 'no' || s === 'none' || s === 'false' || s === 'off') return 'none';
  if (s === 'bf16' || s === 'fp16' || s === 'fp8') return s;
  return new Invalid(about("{0}: expected 'no', 'fp16', 'bf16' or 'fp8', found {1}", describe(v)));
};

/** num_processes counts every process on every machine; -1 asks for `--num_processes` at launch. */
const asWorldSize: Conv = (v) => {
  const n = numOf(v);
  if (n === -1) return { unknown: 'num_processes -1: given with --num_processes at launch' };
  return asPosInt(v);
};

export function analyzeAccelerateYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'accelerate-yaml', tool: 'accelerate', omegaconf: false });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  for (const [k, e] of top) {
    if (!KNOWN_TOP_KEYS.has(k))
      ctx.problem(
        'unknown-key',
        'warning',
        msg('`{0}` is not an Accelerate config key; `accelerate launch` refuses files with unknown keys', k),
        e.keySpan,
        k,
      );
  }

  const dtEntry = top.get('distributed_type');
  const dtView = dtEntry ? ctx.view(dtEntry) : undefined;
  // A plain `NO` is False under PyYAML; Accelerate's own files quote it.
  const distributed = dtView
    ? dtView.t === 'bool' && !dtView.v
      ? 'NO'
      : strOf(dtView)?.trim().toUpperCase()
    : undefined;
  if (dtEntry && distributed !== undefined && !DISTRIBUTED_TYPES.has(distributed)) {
    ctx.problem(
      'invalid-value',
      'error',
      msg('distributed_type: unknown value {0}', JSON.stringify(distributed)),
      dtEntry.valueSpan,
      'distributed_type',
    );
  }

  const cpu = top.get('use_cpu');
  if (cpu && boolOf(ctx.view(cpu)) === true)
    ctx.problem(
      'runs-on-cpu',
      'warning',
      msg('use_cpu: true: `accelerate launch` trains on the CPU; the estimate is of the same run on GPUs'),
      { start: cpu.keySpan.start, end: cpu.valueSpan.end },
      'use_cpu',
    );
  ctx.put('worldSize', top.get('num_processes'), asWorldSize);
  ctx.put('nodes', top.get('num_machines'), asPosInt);

  const mp = top.get('mixed_precision');
  if (mp && ctx.view(mp).t !== 'absent') {
    ctx.put('mixedPrecision', mp, asMixedPrecision);
  } else {
    // process_config: a legacy `fp16: true` stands for mixed_precision "fp16".
    const legacy = top.get('fp16');
    if (legacy && boolOf(ctx.view(legacy)) === true) ctx.add('mixedPrecision', legacy, 'fp16');
  }
  ctx.deprecated(top.get('fp16'), about('`{0}` is deprecated: use `mixed_precision: fp16`'));
  ctx.deprecated(top.get('dynamo_backend'), about('`{0}` is deprecated: use `dynamo_config: {dynamo_backend: ...}`'));

  if (distributed === 'DEEPSPEED') deepspeed(ctx, dtEntry, top.get('deepspeed_config'));
  if (distributed === 'FSDP') fsdp(ctx, dtEntry, top.get('fsdp_config'), top.get('parallelism_config'));
  else parallelism(ctx, top.get('parallelism_config'));
  if (distributed === 'MEGATRON_LM') {
    const mlm = ctx.sub(top.get('megatron_lm_config'));
    ctx.put('tensorParallel', mlm.get('megatron_lm_tp_degree'), asPosInt);
    ctx.put('pipelineParallel', mlm.get('megatron_lm_pp_degree'), asPosInt);
  }

  // torch.compile is on when a dynamo backend other than "no" is chosen (dynamo_config or the legacy top-level key).
  const backend = ctx.sub(top.get('dynamo_config')).get('dynamo_backend') ?? top.get('dynamo_backend');
  ctx.put('compile', backend, (v) => {
    if (v.t === 'bool') return v.v;
    const s = strOf(v)?.trim().toLowerCase();
    return s === undefined ? undefined : s !== 'no' && s !== 'none';
  });
}

/**
 * deepspeed_config: without a deepspeed_config_file the launcher builds the ZeRO config from these keys, and
 * zero_stage defaults to 2 (FORMATS.md §4, launch.py). With a file, the file decides and is followed as a Reference.
 */
function deepspeed(ctx: YamlCtx, dtEntry: Entry | undefined, block: Entry | undefined): void {
  const ds = ctx.sub(block);
  const file = ds.get('deepspeed_config_file');
  ctx.deepspeedRef(file);
  const stage = ds.get('zero_stage');
  ctx.put('zeroStage', stage, asEnumInt([0, 1, 2, 3]));
  if (!ctx.has('zeroStage') && !ctx.has('deepspeedConfig') && dtEntry) {
    ctx.add('zeroStage', dtEntry, 2, 'distributed_type');
  }
  ctx.put('offloadOptimizer', ds.get('offload_optimizer_device'), asOffload);
  ctx.put('offloadParams', ds.get('offload_param_device'), asOffload);
  // 'auto' (what `accelerate config` writes for a Trainer-driven run): the DeepSpeed plugin keeps the string and the
  // HF Trainer fills the config from its own gradient_accumulation_steps (accelerate/utils/dataclasses.py
  // DeepSpeedPlugin.__post_init__: `int(gas) if gas.isdigit() else gas`), so the script's value stands.
  ctx.put('gradientAccumulationSteps', ds.get('gradient_accumulation_steps'), (v) =>
    strOf(v)?.toLowerCase() === 'auto' ? undefined : asPosInt(v),
  );
  // Whether the script's model is made inside deepspeed.zero.Init (true unless given, at stage 3); the HF Trainer
  // loads under it whatever the flag says (pipeline.ts trainerZeroInit).
  ctx.put('zero3Init', ds.get('zero3_init_flag'), asBool);
}

/** fsdp_config keys may be written with or without their `fsdp_` prefix (Accelerate adds it when missing). */
function fsdpKey(m: Map<string, Entry>, name: string): Entry | undefined {
  return m.get(`fsdp_${name}`) ?? m.get(name);
}

/**
 * FSDP: fsdp_sharding_strategy (FSDP1; FULL_SHARD by default), or for FSDP2 fsdp_reshard_after_forward
 * (true = ZeRO-3-like full shard, false = SHARD_GRAD_OP-like). parallelism_config with dp_replicate and dp_shard
 * both above 1 is hybrid sharding (HSDP).
 */
function fsdp(
  ctx: YamlCtx,
  dtEntry: Entry | undefined,
  block: Entry | undefined,
  parallelBlock: Entry | undefined,
): void {
  const f = ctx.sub(block);
  const hybrid = parallelism(ctx, parallelBlock);
  if (!hybrid) {
    const strategy = fsdpKey(f, 'sharding_strategy');
    const reshard = fsdpKey(f, 'reshard_after_forward');
    if (strategy) ctx.put('fsdp', strategy, asSharding);
    if (!ctx.has('fsdp') && reshard) {
      ctx.put('fsdp', reshard, (v) => {
        const b = boolOf(v);
        return b === undefined ? asSharding(v) : b ? 'full_shard' : 'shard_grad_op';
      });
    }
    if (!ctx.has('fsdp') && dtEntry) ctx.add('fsdp', dtEntry, 'full_shard', 'distributed_type');
  }
  ctx.put('fsdpOffload', fsdpKey(f, 'offload_params'), asBool);
  ctx.put('fsdpStateDictType', fsdpKey(f, 'state_dict_type'), asStateDictType);
  // fsdp_backward_prefetch_policy is the name Accelerate's config files used before 0.21.
  const prefetch = fsdpKey(f, 'backward_prefetch') ?? fsdpKey(f, 'backward_prefetch_policy');
  ctx.put('fsdpBackwardPrefetch', prefetch, asBackwardPrefetch);
  // Only an enabled flag is recorded: false leaves activation checkpointing to the training script.
  ctx.put('gradientCheckpointing', fsdpKey(f, 'activation_checkpointing'), (v) => {
    const b = boolOf(v);
    return b === undefined ? asBool(v) : b ? 'full' : undefined;
  });
  ctx.fsdpCheckpointing(fsdpKey(f, 'activation_checkpointing'));
  const version = fsdpKey(f, 'version');
  if (version && ctx.view(version).t !== 'absent') {
    const n = numOf(ctx.view(version));
    if (n !== 1 && n !== 2)
      ctx.problem('invalid-value', 'error', msg('{0}: expected 1 or 2', version.path), version.valueSpan, version.path);
    else ctx.put('fsdpVersion', version, () => n);
  }
  // FSDP1 only: FSDP2 always computes with the original parameters.
  if (!version || numOf(ctx.view(version)) !== 2) ctx.put('fsdpUseOrigParams', fsdpKey(f, 'use_orig_params'), asBool);
  ctx.put('fsdpCpuRamEfficientLoading', fsdpKey(f, 'cpu_ram_efficient_loading'), asBool);
}

/** N-D parallelism (Accelerate >= 1.10): returns true when it makes FSDP hybrid. */
function parallelism(ctx: YamlCtx, block: Entry | undefined): boolean {
  const p = ctx.sub(block);
  const get = (n: string): Entry | undefined => p.get(`parallelism_config_${n}`) ?? p.get(n);
  ctx.put('tensorParallel', get('tp_size'), asPosInt);
  ctx.put('contextParallel', get('cp_size'), asPosInt);
  const shard = get('dp_shard_size');
  const replicate = get('dp_replicate_size');
  ctx.put('fsdpShardSize', shard, (v) =>
    numOf(v) === -1 ? { unknown: 'dp_shard_size -1: inferred from the world size' } : asPosInt(v),
  );
  const s = shard ? numOf(ctx.view(shard)) : undefined;
  const r = replicate ? numOf(ctx.view(replicate)) : undefined;
  if (replicate && s !== undefined && r !== undefined && s > 1 && r > 1) {
    ctx.add('fsdp', replicate, 'hybrid_shard');
    return true;
  }
  return false;
}
