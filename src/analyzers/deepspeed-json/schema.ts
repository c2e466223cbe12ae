// The DeepSpeed config as a zod schema, for VS Code's own completion and validation of ds_config*.json files:
// emitted as JSON Schema at build time (esbuild.mjs -> dist/deepspeed.schema.json) and contributed through
// `jsonValidation`. Keys and defaults follow deepspeedai/DeepSpeed@edaa722 deepspeed/runtime/{config.py,
// zero/config.py, zero/offload_config.py} (see ../shared/FORMATS.md §1). Pure; no I/O.
import { z } from 'zod';

const auto = z.literal('auto');
const intOrAuto = (d: string) => z.union([z.number().int().positive(), auto]).describe(d);
const numOrAuto = (d: string) => z.union([z.number().nonnegative(), auto]).describe(d);
const boolOrAuto = (d: string) => z.union([z.boolean(), auto]).describe(d);

const Offload = (what: string) =>
  z
    .object({
      device: z.enum(['none', 'cpu', 'nvme']).default('none').describe(`Where ${what} live: none (GPU), cpu or nvme.`),
      pin_memory: z.boolean().default(false).describe('Page-locked host memory: faster transfers, more host RAM held.'),
      nvme_path: z.string().optional().describe('Directory on an NVMe drive (device: nvme).'),
      buffer_count: z.number().int().positive().optional().describe('Number of staging buffers for NVMe offload.'),
      buffer_size: z.number().positive().optional().describe('Size of each staging buffer (parameters).'),
      max_in_cpu: z
        .number()
        .nonnegative()
        .optional()
        .describe('Parameters kept in CPU memory when offloading to NVMe.'),
      fast_init: z.boolean().optional(),
      ratio: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('Share of the optimizer step run on the CPU (partial offload).'),
    })
    .describe(`Offload of ${what} (ZeRO-Offload / ZeRO-Infinity).`);

export const DeepSpeedZeroSchema = z
  .object({
    stage: z
      .union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])
      .default(0)
      .describe(
        'ZeRO stage: 1 shards optimizer states, 2 also gradients, 3 also parameters (VRAM Lens shows the saving on hover).',
      ),
    offload_optimizer: Offload('optimizer states and fp32 master weights').optional(),
    offload_param: Offload('parameters (ZeRO-3 only)').optional(),
    overlap_comm: boolOrAuto('Overlap gradient reduction with backward (uses 2 reduce buckets).').optional(),
    contiguous_gradients: z
      .boolean()
      .optional()
      .describe('Copy gradients into one contiguous buffer as they are produced.'),
    reduce_bucket_size: numOrAuto('Elements reduced at once (default 5e8).').optional(),
    allgather_bucket_size: numOrAuto('Elements all-gathered at once in stage 1/2 (default 5e8).').optional(),
    allgather_partitions: z.boolean().optional(),
    reduce_scatter: z.boolean().optional(),
    round_robin_gradients: z.boolean().optional(),
    sub_group_size: z
      .number()
      .nonnegative()
      .optional()
      .describe('Parameters per optimizer step sub-group (default 1e9).'),
    stage3_prefetch_bucket_size: numOrAuto('Parameters prefetched ahead in stage 3 (default 5e7).').optional(),
    stage3_param_persistence_threshold: numOrAuto(
      'Parameters smaller than this stay unsharded in stage 3 (default 1e5).',
    ).optional(),
    stage3_max_live_parameters: z
      .number()
      .nonnegative()
      .optional()
      .describe('Upper bound on gathered parameters in stage 3 (default 1e9).'),
    stage3_max_reuse_distance: z
      .number()
      .nonnegative()
      .optional()
      .describe('Keep gathered parameters reused within this distance (default 1e9).'),
    stage3_gather_16bit_weights_on_model_save: boolOrAuto('Gather a full 16-bit state dict when saving.').optional(),
    prefetch_bucket_size: numOrAuto('Alias of stage3_prefetch_bucket_size.').optional(),
    param_persistence_threshold: numOrAuto('Alias of stage3_param_persistence_threshold.').optional(),
    max_live_parameters: z.number().nonnegative().optional().describe('Alias of stage3_max_live_parameters.'),
    max_reuse_distance: z.number().nonnegative().optional().describe('Alias of stage3_max_reuse_distance.'),
    gather_16bit_weights_on_model_save: boolOrAuto('Alias of stage3_gather_16bit_weights_on_model_save.').optional(),
    cpu_offload: z.boolean().optional().describe('Deprecated: use offload_optimizer.device = "cpu".'),
    cpu_offload_params: z.boolean().optional().describe('Deprecated: use offload_param.device = "cpu".'),
    cpu_offload_use_pin_memory: z.boolean().optional().describe('Deprecated: use offload_*.pin_memory.'),
    elastic_checkpoint: z.boolean().optional(),
    ignore_unused_parameters: z.boolean().optional(),
    legacy_stage1: z.boolean().optional(),
    zero_hpz_partition_size: z.number().int().positive().optional(),
    zero_quantized_weights: z.boolean().optional(),
    zero_quantized_gradients: z.boolean().optional(),
    mics_shard_size: z.number().int().optional(),
    memory_efficient_linear: z.boolean().optional(),
  })
  .strict()
  .describe('ZeRO memory optimisation (DeepSpeed rejects unknown keys here).');

export const DeepSpeedConfigSchema = z.looseObject({
  train_batch_size: intOrAuto('Global batch = micro-batch x accumulation x data-parallel GPUs.').optional(),
  train_micro_batch_size_per_gpu: intOrAuto('Micro-batch per GPU per step (drives activation memory).').optional(),
  gradient_accumulation_steps: intOrAuto('Micro-steps per optimizer step.').optional(),
  gradient_clipping: numOrAuto('Clip the global gradient norm (0 disables).').optional(),
  steps_per_print: z.number().int().optional(),
  wall_clock_breakdown: z.boolean().optional(),
  fp16: z
    .object({
      enabled: boolOrAuto('fp16 mixed precision (fp32 master weights in the optimizer).'),
      auto_cast: z.boolean().optional(),
      loss_scale: z.number().nonnegative().optional(),
      initial_scale_power: z.number().int().optional(),
      loss_scale_window: z.number().int().optional(),
      hysteresis: z.number().int().optional(),
      min_loss_scale: z.number().optional(),
      consecutive_hysteresis: z.boolean().optional(),
    })
    .partial()
    .optional(),
  bf16: z
    .object({
      enabled: boolOrAuto('bf16 training (fp32 master weights in the optimizer).'),
      immediate_grad_update: z.boolean().optional(),
    })
    .partial()
    .optional(),
  optimizer: z
    .object({
      type: z.string().describe('Adam, AdamW, Lamb, OneBitAdam, ... (case-insensitive).'),
      params: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  scheduler: z.object({ type: z.string(), params: z.record(z.string(), z.unknown()).optional() }).optional(),
  zero_optimization: DeepSpeedZeroSchema.optional(),
  zero_allow_untested_optimizer: z.boolean().optional(),
  zero_force_ds_cpu_optimizer: z.boolean().optional(),
  activation_checkpointing: z
    .object({
      partition_activations: z.boolean().optional(),
      cpu_checkpointing: z.boolean().optional(),
      contiguous_memory_optimization: z.boolean().optional(),
      number_checkpoints: z.number().int().optional(),
      synchronize_checkpoint_boundary: z.boolean().optional(),
      profile: z.boolean().optional(),
    })
    .optional()
    .describe('Megatron-style activation checkpointing (has no effect on Hugging Face models).'),
  communication_data_type: z.enum(['fp16', 'bf16', 'fp32']).optional(),
  sequence_parallel_size: z.number().int().positive().optional(),
});

/** The JSON Schema VS Code validates DeepSpeed configs with. */
export function deepSpeedJsonSchema(): Record<string, unknown> {
  const s = z.toJSONSchema(DeepSpeedConfigSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return { ...s, title: 'DeepSpeed configuration (VRAM Lens)', allowTrailingCommas: true, allowComments: true };
}
