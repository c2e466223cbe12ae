// FIELD_RULES: the order in which resolve fills the setup. A row copies a field from the fact that decided its
// canonical key (through a mapper that keeps only values of the right kind), or sets a field still unset to the tool's
// default; a function is a rule that needs more than a copy (the method's adapters, precision, the GPU layout, the
// rollout). The order is behaviour: a rule reads what earlier ones set (the eval batch reads micro_batch_size, the
// train-batch derivation the GPU count, the rollout both), and provenance lists fields in the order they were set.
import type { CanonicalKey, FactValue } from '../facts';
import { bool, num, type DefaultField, type ResolveContext } from './context';
import { resolveEvalBatch, resolveEvalGeneration, resolveTrainBatch } from './batch';
import { checkTrainerDeepspeedMatch } from './deepspeed-trainer';
import {
  resolveIa3,
  resolveKbitCheckpointing,
  resolveKbitUpcast,
  resolveLora,
  resolveMethod,
  resolveModelRef,
  resolveQuantization,
  resolveVisionUnfrozen,
} from './method';
import { resolveBadam, resolveGalore, resolveOptimizer } from './optimizer';
import {
  checkOffloadNeedsZero,
  checkUnreadDeepspeedConfig,
  resolveCpuRamEfficient,
  resolveFsdpOffload,
  resolveGpu,
  refusedDeviceMapSplit,
  resolveDeviceMapSplit,
  resolveGpuOverrides,
  resolveLayoutWorld,
  resolveOpenGpuCount,
  resolveOpenNodeCount,
  resolveSeqLenOverride,
  resolveTorchtuneFsdp,
  resolveWorldSize,
  resolveVisibleProcesses,
  resolveZeroBuckets,
} from './parallelism';
import { resolveAttentionKernel } from './attention';
import { fsdpCheckpointingConflict, resolveCheckpointReentrant, resolveFsdpConfigCheckpointing } from './checkpointing';
import { resolveEvalSequenceSplit } from './parallelism';
import { resolveTrlSftLoss, resolveUnslothPreferenceLoss } from './loss';
import { resolvePrecision } from './precision';
import { resolvePreference } from './preference';
import { resolveRollout } from './rollout';

export type FieldRule =
  /** The field from the fact that decided `key`, through `map` (a value it maps to undefined is not taken). */
  | { readonly field: string; readonly key: CanonicalKey; readonly map?: (v: FactValue) => unknown }
  /** The field, when still unset, from the first tool that has a default for it (analyzers/defaults.ts). */
  | { readonly field: string; readonly toolDefault: DefaultField }
  | ((ctx: ResolveContext) => void);

/** A row: the field from the fact that decided `key`. */
const fromFact = (field: string, key: CanonicalKey, map?: (v: FactValue) => unknown): FieldRule => ({
  field,
  key,
  ...(map ? { map } : {}),
});
/** A row: the field, when still unset, from the tools' default for `defaultField`. */
const fromDefault = (field: string, defaultField: DefaultField): FieldRule => ({ field, toolDefault: defaultField });

/**
 * The sequence length a file gives. A preference trainer over an Unsloth model truncates its pairs at its own
 * max_length: Unsloth's from_pretrained max_seq_length sizes the model's positions (RoPE scaling), not the pairs
 * (WMWMW1/LM_qlora_dataset_mistral7b's bloom/dpo.py: max_seq_length 2048 to Unsloth, DPOTrainer with no max_length).
 * There the trainer's default stands, said with Unsloth's value.
 */
function resolveSeqLen(ctx: ResolveContext): void {
  const w = ctx.decided.seqLen;
  if (!(w && w.fact.tool === 'unsloth' && ctx.decided.preference !== undefined)) {
    ctx.fromFact('seq_len', 'seqLen', num);
    return;
  }
  ctx.fromDefaultOf(
    'seq_len',
    'seq_len',
    ctx.tools.filter((t) => t !== 'unsloth'),
  );
  const p = ctx.prov.seq_len;
  if (p?.kind === 'default')
    ctx.prov.seq_len = {
      ...p,
      note:
        `${p.note ?? ''}; Unsloth's ${w.fact.rawValue} sizes the model's positions, not the ` +
        'preference pairs, which the trainer truncates',
    };
}

export const FIELD_RULES: readonly FieldRule[] = [
  resolveModelRef,
  // The transformers release a config's keys imply (a key it removed); a pin found after resolve wins over it.
  fromFact('transformers_version', 'transformersVersion', (v) => (typeof v === 'string' ? v : undefined)),
  // Method, LoRA and quantization.
  resolveMethod,
  resolveIa3,
  resolveLora,
  resolveQuantization,
  fromFact('freeze_trainable_layers', 'freezeTrainableLayers', num),
  resolvePrecision,
  // The reference copy's own dtype where the trainer loads it apart (the DPO reference implementation's
  // model.reference_dtype); TRL's follows from the policy's load after resolve (pipeline.ts trlReferenceDtype).
  fromFact('reference_dtype', 'referenceDtype', (v) => (v === 'fp32' || v === 'bf16' || v === 'fp16' ? v : undefined)),
  // Optimizer, batch, sequence, checkpointing, attention, loss.
  resolveOptimizer,
  resolveBadam,
  resolveGalore,
  fromFact('micro_batch_size', 'microBatchSize', num),
  fromFact('gradient_accumulation_steps', 'gradientAccumulationSteps', num),
  resolveSeqLen,
  resolveEvalBatch,
  resolveEvalGeneration,
  fromFact('batch_lengths', 'batchLengths'),
  fromFact('padded_batches', 'paddedBatches'),
  resolveKbitUpcast,
  fromFact('gradient_checkpointing', 'gradientCheckpointing'),
  resolveKbitCheckpointing,
  fromFact('attention', 'attention'),
  resolveAttentionKernel,
  fromFact('loss', 'loss'),
  fromFact('compile', 'compile', bool),
  fromFact('head', 'head'),
  fromFact('num_labels', 'numLabels', num),
  // The HF Trainer's LabelSmoother (label_smoothing_factor > 0) replaces the model's own loss.
  fromFact('label_smoothing', 'labelSmoothing', (v) => (typeof v === 'number' && v > 0 ? true : undefined)),
  fromFact('activation_offloading', 'activationOffloading', bool),
  fromFact('optimizer_states_gpu', 'optimizerStatesGpu'),
  fromFact('weights_gpu', 'weightsGpu'),
  fromFact('vision_tower_trained', 'visionTowerTrained', bool),
  resolveVisionUnfrozen,
  fromFact('checkpoint_reentrant', 'checkpointReentrant', bool),
  fromFact('checkpoint_wrapper', 'checkpointWrapper', bool),
  fromFact('zero3_init', 'zero3Init', bool),
  fromFact('tiled_mlp', 'tiledMlp', (v) => (typeof v === 'boolean' || typeof v === 'number' ? v : undefined)),
  fromFact('kernels', 'kernels'),
  fromFact('expandable_segments', 'expandableSegments', bool),
  fromFact('empty_cache_steps', 'emptyCacheSteps', num),
  fromFact('loop_keeps_outputs', 'loopKeepsOutputs', (v) => (v === 'step' ? v : bool(v))),
  fromFact('longest_batch_first', 'longestBatchFirst', bool),
  fromFact('actor_logps', 'actorLogps', (v) => (v === 'openrlhf' ? v : undefined)),
  fromFact('use_cache', 'useCache', bool),
  resolvePreference,
  fromFact('fsdp_shard_embeddings', 'fsdpShardEmbeddings', bool),
  fromFact('fsdp_tail_unit', 'fsdpTailUnit', bool),
  fromFact('fsdp_no_sync', 'fsdpNoSync', bool),
  fromFact('ddp_find_unused_parameters', 'ddpFindUnused', bool),
  fromFact('ddp_wrap', 'ddpWrap', bool),
  fromFact('fsdp_state_dict_type', 'fsdpStateDictType'),
  fromFact('fsdp_backward_prefetch', 'fsdpBackwardPrefetch'),
  fromFact('fsdp_use_orig_params', 'fsdpUseOrigParams', bool),
  fromFact('fsdp_limit_all_gathers', 'fsdpLimitAllGathers', bool),
  fromFact('fsdp_cpu_ram_efficient_loading', 'fsdpCpuRamEfficientLoading', bool),
  fromFact('bnb_load', 'bnbLoad'),
  fromFact('saves_checkpoints', 'savesCheckpoints', bool),
  fromFact('optimizer_in_backward', 'optimizerInBackward', bool),
  // Parallelism.
  fromFact('zero_stage', 'zeroStage', num),
  fromFact('offload_optimizer', 'offloadOptimizer'),
  fromFact('offload_params', 'offloadParams'),
  fromFact('fsdp', 'fsdp'),
  resolveFsdpOffload,
  resolveFsdpConfigCheckpointing,
  fsdpCheckpointingConflict,
  resolveZeroBuckets,
  fromFact('tensor_parallel', 'tensorParallel', num),
  fromFact('pipeline_parallel', 'pipelineParallel', num),
  fromFact('pipeline_schedule', 'pipelineSchedule', (v) => (v === 'device_map' ? v : undefined)),
  fromFact('sequence_parallel', 'sequenceParallel', bool),
  fromFact('context_parallel', 'contextParallel', num),
  resolveEvalSequenceSplit,
  fromFact('zero_hpz_partition_size', 'zeroHpzPartitionSize', (v) => {
    const n = num(v);
    return n !== undefined && n > 1 ? n : undefined;
  }),
  fromFact('zero_mics_shard_size', 'micsShardSize', (v) => {
    const n = num(v);
    return n !== undefined && n > 0 ? n : undefined;
  }),
  fromFact('expert_parallel', 'expertParallel', num),
  fromFact('nodes', 'nodes', num),
  fromFact('gpus_per_node', 'gpusPerNode', num),
  resolveWorldSize,
  resolveVisibleProcesses,
  resolveGpuOverrides,
  resolveDeviceMapSplit,
  refusedDeviceMapSplit,
  // An FSDP shard group (Axolotl dp_shard_size, Accelerate parallelism_config dp_shard_size, torchtune
  // data_parallel_shard_dim) is the hybrid-shard group size, and the sharding degree when nothing replicates.
  fromFact('fsdp_shard_size', 'fsdpShardSize', num),
  fromFact('fsdp_version', 'fsdpVersion', (v) => (v === 1 || v === 2 ? v : undefined)),
  fromFact('bitsandbytes_version', 'bitsandbytesVersion', (v) => (typeof v === 'string' ? v : undefined)),
  fromFact('torchao_version', 'torchaoVersion', (v) => (typeof v === 'string' ? v : undefined)),
  fromFact('trl_version', 'trlVersion', (v) => (typeof v === 'string' ? v : undefined)),
  fromFact('peft_version', 'peftVersion', (v) => (typeof v === 'string' ? v : undefined)),
  fromFact('master_weights', 'masterWeights', (v) => (typeof v === 'boolean' ? v : undefined)),
  resolveLayoutWorld,
  resolveOpenGpuCount,
  resolveOpenNodeCount,
  resolveSeqLenOverride,
  resolveTorchtuneFsdp,
  resolveTrainBatch,
  checkTrainerDeepspeedMatch,
  fromDefault('micro_batch_size', 'micro_batch_size'),
  fromDefault('gradient_accumulation_steps', 'gradient_accumulation_steps'),
  resolveRollout,
  fromDefault('seq_len', 'seq_len'),
  fromDefault('batch_lengths', 'batch_lengths'),
  fromDefault('loop_keeps_outputs', 'loop_keeps_outputs'),
  fromDefault('use_cache', 'use_cache'),
  fromFact('model_code', 'modelCode', (v) => (v === 'litgpt' || v === 'transformers' ? v : undefined)),
  fromDefault('model_code', 'model_code'),
  fromDefault('model_logits_fp32', 'model_logits_fp32'),
  fromFact('tie_embeddings', 'tieEmbeddings', bool),
  fromDefault('gradient_checkpointing', 'gradient_checkpointing'),
  fromDefault('fsdp_no_sync', 'fsdp_no_sync'),
  fromDefault('fsdp_backward_prefetch', 'fsdp_backward_prefetch'),
  fromDefault('fsdp_use_orig_params', 'fsdp_use_orig_params'),
  resolveCpuRamEfficient,
  fromDefault('fsdp_cpu_ram_efficient_loading', 'fsdp_cpu_ram_efficient_loading'),
  resolveCheckpointReentrant,
  fromDefault('attention', 'attention'),
  resolveTrlSftLoss,
  resolveUnslothPreferenceLoss,
  fromDefault('loss', 'loss'),
  checkOffloadNeedsZero,
  checkUnreadDeepspeedConfig,
  resolveGpu,
];

/** Applies one rule of FIELD_RULES. */
export function applyRule(ctx: ResolveContext, rule: FieldRule): void {
  if (typeof rule === 'function') rule(ctx);
  else if ('key' in rule) ctx.fromFact(rule.field, rule.key, rule.map);
  else ctx.fromDefault(rule.field, rule.toolDefault);
}
