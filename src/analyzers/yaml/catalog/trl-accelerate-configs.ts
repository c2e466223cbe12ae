// The Accelerate configs TRL ships under examples/accelerate_configs/ (huggingface/trl@f2cd577; fsdp_qlora.yaml as
// last written before huggingface/trl@45f4c58 removed it), cut to the keys VRAM Lens reads: what `accelerate launch
// --config_file examples/accelerate_configs/fsdp1.yaml` runs from a TRL checkout that is not among the run's files.
// TRL is Apache-2.0. Data only.

/** A config file as TRL shipped it: its lines, and the commit they were read at. */
export interface TrlAccelerateConfig {
  readonly commit: string;
  readonly lines: readonly string[];
}

/** Each config by its file name less `.yaml`. */
export const TRL_ACCELERATE_CONFIGS: Readonly<Record<string, TrlAccelerateConfig>> = {
  deepspeed_zero1: {
    commit: 'f2cd577',
    lines: [
      'deepspeed_config:',
      '  deepspeed_multinode_launcher: standard',
      '  gradient_accumulation_steps: 1',
      '  zero3_init_flag: false',
      '  zero_stage: 1',
      'distributed_type: DEEPSPEED',
      "mixed_precision: 'bf16'",
      'num_machines: 1',
      'num_processes: 8',
    ],
  },
  deepspeed_zero2: {
    commit: 'f2cd577',
    lines: [
      'deepspeed_config:',
      '  deepspeed_multinode_launcher: standard',
      '  offload_optimizer_device: none',
      '  offload_param_device: none',
      '  zero3_init_flag: false',
      '  zero_stage: 2',
      'distributed_type: DEEPSPEED',
      "mixed_precision: 'bf16'",
      'num_machines: 1',
      'num_processes: 8',
    ],
  },
  deepspeed_zero3: {
    commit: 'f2cd577',
    lines: [
      'deepspeed_config:',
      '  deepspeed_multinode_launcher: standard',
      '  offload_optimizer_device: none',
      '  offload_param_device: none',
      '  zero3_init_flag: true',
      '  zero3_save_16bit_model: true',
      '  zero_stage: 3',
      'distributed_type: DEEPSPEED',
      'mixed_precision: bf16',
      'num_machines: 1',
      'num_processes: 8',
    ],
  },
  fsdp1: {
    commit: 'f2cd577',
    lines: [
      'distributed_type: FSDP',
      'fsdp_config:',
      '  fsdp_activation_checkpointing: false',
      '  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP',
      '  fsdp_backward_prefetch: BACKWARD_PRE',
      '  fsdp_cpu_ram_efficient_loading: true',
      '  fsdp_forward_prefetch: true',
      '  fsdp_offload_params: false',
      '  fsdp_reshard_after_forward: FULL_SHARD',
      '  fsdp_state_dict_type: FULL_STATE_DICT',
      '  fsdp_sync_module_states: true',
      '  fsdp_use_orig_params: true',
      '  fsdp_version: 1',
      'mixed_precision: bf16',
      'num_machines: 1',
      'num_processes: 8',
    ],
  },
  fsdp2: {
    commit: 'f2cd577',
    lines: [
      'distributed_type: FSDP',
      'fsdp_config:',
      '  fsdp_activation_checkpointing: false',
      '  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP',
      '  fsdp_cpu_ram_efficient_loading: true',
      '  fsdp_offload_params: false',
      '  fsdp_reshard_after_forward: true',
      '  fsdp_state_dict_type: FULL_STATE_DICT',
      '  fsdp_version: 2',
      'mixed_precision: bf16',
      'num_machines: 1',
      'num_processes: 8',
    ],
  },
  multi_gpu: {
    commit: 'f2cd577',
    lines: ['distributed_type: MULTI_GPU', "mixed_precision: 'bf16'", 'num_machines: 1', 'num_processes: 8'],
  },
  single_gpu: {
    commit: 'f2cd577',
    lines: ['distributed_type: "NO"', "mixed_precision: 'bf16'", 'num_machines: 1', 'num_processes: 1'],
  },
  fsdp_qlora: {
    commit: '45f4c58^',
    lines: [
      'distributed_type: FSDP',
      'fsdp_config:',
      '  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP',
      '  fsdp_backward_prefetch: BACKWARD_PRE',
      '  fsdp_cpu_ram_efficient_loading: true',
      '  fsdp_forward_prefetch: false',
      '  fsdp_offload_params: true',
      '  fsdp_sharding_strategy: FULL_SHARD',
      '  fsdp_state_dict_type: SHARDED_STATE_DICT',
      '  fsdp_sync_module_states: true',
      '  fsdp_use_orig_params: false',
      "mixed_precision: 'bf16'",
      'num_machines: 1',
      'num_processes: 8',
    ],
  },
};
