// The DeepSpeed config's vocabulary: the keys DeepSpeed knows per block, the ZeRO counts HF Trainer may fill as
// "auto", and deprecated keys with their replacements (deepspeedai/DeepSpeed@edaa722 deepspeed/runtime/constants.py,
// zero/config.py, zero/offload_config.py). Data; pure: no I/O, no node:* and no 'vscode'.
import type { CanonicalKey } from '../facts';

/** The reason carried by facts whose value is "auto" (resolve fills them from TrainingArguments or the launcher). */
export const AUTO_REASON = 'auto: filled from TrainingArguments / launcher';

/** Keys DeepSpeed knows, per block (deepspeed/runtime/constants.py, zero/config.py, zero/offload_config.py @edaa722). */
export const DEEPSPEED_KEYS: {
  readonly topLevel: ReadonlySet<string>;
  readonly zeroOptimization: ReadonlySet<string>;
  readonly offloadOptimizer: ReadonlySet<string>;
  readonly offloadParam: ReadonlySet<string>;
} = {
  topLevel: new Set([
    'train_batch_size',
    'train_micro_batch_size_per_gpu',
    'gradient_accumulation_steps',
    'steps_per_print',
    'dump_state',
    'disable_allgather',
    'communication_data_type',
    'seq_parallel_comm_data_type',
    'prescale_gradients',
    'gradient_predivide_factor',
    'sparse_gradients',
    'gradient_clipping',
    'graph_harvesting',
    'fp16',
    'bf16',
    'bfloat16',
    'amp',
    'torch_autocast',
    'optimizer',
    'scheduler',
    'zero_optimization',
    'zero_allow_untested_optimizer',
    'zero_force_ds_cpu_optimizer',
    'activation_checkpointing',
    'wall_clock_breakdown',
    'memory_breakdown',
    'flops_profiler',
    'comms_logger',
    'tensorboard',
    'wandb',
    'csv_monitor',
    'comet',
    'elasticity',
    'sparse_attention',
    'pipeline',
    'progressive_layer_drop',
    'curriculum_learning',
    'data_efficiency',
    'eigenvalue',
    'quantize_training',
    'compression_training',
    'weight_quantization',
    'checkpoint',
    'data_types',
    'aio',
    'nebula',
    'autotuning',
    'hybrid_engine',
    'compile',
    'timers',
    'tensor_parallel',
    'expert_parallel',
    'sequence_parallel_size',
    'dataloader_drop_last',
    'vocabulary_size',
    'use_data_before_expert_parallelism',
    'allgather_size',
  ]),
  zeroOptimization: new Set([
    'stage',
    'contiguous_gradients',
    'reduce_scatter',
    'reduce_bucket_size',
    'use_multi_rank_bucket_allreduce',
    'allgather_partitions',
    'allgather_bucket_size',
    'overlap_comm',
    'load_from_fp32_weights',
    'elastic_checkpoint',
    'offload_param',
    'offload_optimizer',
    'zenflow',
    'sub_group_size',
    'cpu_offload_param',
    'cpu_offload_use_pin_memory',
    'cpu_offload',
    'prefetch_bucket_size',
    'stage3_prefetch_bucket_size',
    'param_persistence_threshold',
    'stage3_param_persistence_threshold',
    'model_persistence_threshold',
    'stage3_model_persistence_threshold',
    'max_live_parameters',
    'stage3_max_live_parameters',
    'max_reuse_distance',
    'stage3_max_reuse_distance',
    'gather_16bit_weights_on_model_save',
    'stage3_gather_16bit_weights_on_model_save',
    'module_granularity_threshold',
    'stage3_module_granularity_threshold',
    'use_all_reduce_for_fetch_params',
    'stage3_use_all_reduce_for_fetch_params',
    'allgather_sequential',
    'stage3_allgather_sequential',
    'partition_stream_chunk_size',
    'stage3_partition_stream_chunk_size',
    'stage3_gather_fp16_weights_on_model_save',
    'ignore_unused_parameters',
    'legacy_stage1',
    'round_robin_gradients',
    'zero_hpz_partition_size',
    'zero_quantized_weights',
    'zero_quantized_nontrainable_weights',
    'zero_quantized_gradients',
    'zeropp_loco_param',
    'mics_shard_size',
    'mics_hierarchical_params_gather',
    'memory_efficient_linear',
    'pipeline_loading_checkpoint',
    'override_module_apply',
    'log_trace_cache_warnings',
    'enable_sanity_checks',
    'save_muon_momentum_buffer_in_memory',
    'leaf_module',
  ]),
  offloadOptimizer: new Set([
    'device',
    'nvme_path',
    'buffer_count',
    'pin_memory',
    'pipeline_read',
    'pipeline_write',
    'fast_init',
    'ratio',
    'super_offload',
    'convert_grad_on_cpu',
    'cpuadam_cores_perc',
  ]),
  offloadParam: new Set(['device', 'nvme_path', 'buffer_count', 'buffer_size', 'max_in_cpu', 'pin_memory']),
};

/**
 * The ZeRO count fields that have a canonical key. Each field is accepted under both spellings (pydantic alias with
 * populate_by_name, zero/config.py); `hfAuto` names the spelling HF Trainer fills when it is "auto" (its is_auto()
 * checks only the stage3_-prefixed names), and `dflt` is DeepSpeed's default, which applies when DeepSpeed drops an
 * unfilled "auto" (config_utils.py DeepSpeedConfigModel.__init__ filters "auto" out in non-strict mode).
 */
export const ZERO_COUNTS: readonly { key: CanonicalKey; names: readonly string[]; hfAuto?: string; dflt: number }[] = [
  { key: 'reduceBucketSize', names: ['reduce_bucket_size'], hfAuto: 'reduce_bucket_size', dflt: 5e8 },
  { key: 'allgatherBucketSize', names: ['allgather_bucket_size'], dflt: 5e8 },
  {
    key: 'stage3PrefetchBucketSize',
    names: ['stage3_prefetch_bucket_size', 'prefetch_bucket_size'],
    hfAuto: 'stage3_prefetch_bucket_size',
    dflt: 5e7,
  },
  { key: 'stage3MaxLiveParameters', names: ['stage3_max_live_parameters', 'max_live_parameters'], dflt: 1e9 },
  { key: 'stage3MaxReuseDistance', names: ['stage3_max_reuse_distance', 'max_reuse_distance'], dflt: 1e9 },
  {
    key: 'stage3ParamPersistenceThreshold',
    names: ['stage3_param_persistence_threshold', 'param_persistence_threshold'],
    hfAuto: 'stage3_param_persistence_threshold',
    dflt: 1e5,
  },
  { key: 'subGroupSize', names: ['sub_group_size'], dflt: 1e9 },
];

/** What HF Trainer fills each of those "auto" values with (transformers integrations/deepspeed.py trainer_config_finalize). */
export const HF_BUCKET_FILL: Record<string, string> = {
  reduce_bucket_size: 'hidden_size²',
  stage3_prefetch_bucket_size: '0.9 × hidden_size²',
  stage3_param_persistence_threshold: '10 × hidden_size',
};

/** Deprecated keys and what replaces them. */
export const DEPRECATED_ZERO: Record<string, string> = {
  cpu_offload: 'offload_optimizer: {"device": "cpu"}',
  cpu_offload_param: 'offload_param: {"device": "cpu"}',
  cpu_offload_use_pin_memory: 'offload_optimizer.pin_memory / offload_param.pin_memory',
  stage3_gather_fp16_weights_on_model_save: 'stage3_gather_16bit_weights_on_model_save',
};
