// Term: ZeRO and FSDP working buffers. Docs: docs/estimate/parallelism.md. Pure arithmetic; no I/O.

/** DeepSpeed ZeRO defaults (deepspeed/runtime/zero/config.py). */
export const ZERO_DEFAULTS = { reduce_bucket_size: 5e8, allgather_bucket_size: 5e8, stage3_prefetch_bucket_size: 5e7, stage3_max_live_parameters: 1e9, stage3_param_persistence_threshold: 1e5, sub_group_size: 1e9 };
