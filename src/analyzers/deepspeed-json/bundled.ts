// The DeepSpeed configs that Axolotl and LLaMA-Factory ship and their examples name by a path relative to where the
// run starts (`deepspeed: deepspeed_configs/zero3_bf16.json`, `deepspeed: examples/deepspeed/ds_z3_config.json`).
// When such a file is not beside the config, its settings are read from this table, and every value taken from it is
// shown as that tool's default. The entries list the memory settings each file writes (the rest of each file is
// batch-size and precision "auto" values that the trainer fills in, and logging), as published in
// axolotl-ai-cloud/axolotl deepspeed_configs/ and hiyouga/LLaMA-Factory examples/deepspeed/.
import type { Format, Tool } from '../facts';

export interface BundledDeepspeed {
  readonly tool: 'axolotl' | 'llamafactory';
  /** The path the tool's examples use, relative to the directory the run starts in. */
  readonly path: string;
  readonly stage: 0 | 1 | 2 | 3;
  readonly offloadOptimizer: 'none' | 'cpu';
  readonly offloadParams: 'none' | 'cpu';
  /** bf16 "enabled": true in the file (the others leave precision "auto", to the trainer). */
  readonly bf16: boolean;
  /** The file's memory settings as DeepSpeed JSON. */
  readonly config: Readonly<Record<string, unknown>>;
}

const OWNER: Record<BundledDeepspeed['tool'], { name: string; format: Format; fetch: string }> = {
  axolotl: {
    name: 'Axolotl',
    format: 'axolotl-yaml',
    fetch: '`axolotl fetch deepspeed_configs` puts them in the working directory',
  },
  llamafactory: {
    name: 'LLaMA-Factory',
    format: 'llamafactory-yaml',
    fetch: 'runs start from a LLaMA-Factory checkout',
  },
};

const offload = (device: 'cpu', pin?: boolean): Record<string, unknown> =>
  pin ? { device, pin_memory: true } : { device };

// Axolotl: stage 3 files share overlap_comm, contiguous gradients, sub_group_size 0, auto buckets and thresholds and
// no live-parameter limit set (0).
const AXOLOTL_Z3 = {
  overlap_comm: true,
  contiguous_gradients: true,
  sub_group_size: 0,
  reduce_bucket_size: 'auto',
  stage3_prefetch_bucket_size: 'auto',
  stage3_param_persistence_threshold: 'auto',
  stage3_max_live_parameters: 0,
  stage3_max_reuse_distance: 0,
};
// LLaMA-Factory: stage 2 files with 5e8 buckets and no overlap; stage 3 files with DeepSpeed's usual 1e9 limits.
const LF_Z2 = {
  allgather_partitions: true,
  allgather_bucket_size: 5e8,
  overlap_comm: false,
  reduce_scatter: true,
  reduce_bucket_size: 5e8,
  contiguous_gradients: true,
  round_robin_gradients: true,
};
/** The stage-3 buckets LLaMA-Factory's and ms-swift's (from 3.3) shipped files write alike. */
export const SHIPPED_Z3_BUCKETS = {
  overlap_comm: false,
  contiguous_gradients: true,
  sub_group_size: 1e9,
  reduce_bucket_size: 'auto',
  stage3_prefetch_bucket_size: 'auto',
  stage3_param_persistence_threshold: 'auto',
  stage3_max_live_parameters: 1e9,
  stage3_max_reuse_distance: 1e9,
} as const;
const LF_Z3 = SHIPPED_Z3_BUCKETS;

const entry = (
  tool: BundledDeepspeed['tool'],
  path: string,
  zero: Record<string, unknown>,
  bf16 = false,
): BundledDeepspeed => ({
  tool,
  path,
  bf16,
  stage: zero.stage as BundledDeepspeed['stage'],
  offloadOptimizer: zero.offload_optimizer ? 'cpu' : 'none',
  offloadParams: zero.offload_param ? 'cpu' : 'none',
  config: { zero_optimization: zero, ...(bf16 ? { bf16: { enabled: true } } : {}) },
});

export const BUNDLED_DEEPSPEED: readonly BundledDeepspeed[] = [
  entry('axolotl', 'deepspeed_configs/zero1.json', { stage: 1, overlap_comm: true }),
  // Axolotl's ZeRO-2 file offloads the optimizer to the CPU.
  entry('axolotl', 'deepspeed_configs/zero2.json', {
    stage: 2,
    offload_optimizer: offload('cpu'),
    contiguous_gradients: true,
    overlap_comm: true,
  }),
  entry('axolotl', 'deepspeed_configs/zero3.json', { stage: 3, ...AXOLOTL_Z3 }),
  entry('axolotl', 'deepspeed_configs/zero3_bf16.json', { stage: 3, ...AXOLOTL_Z3 }, true),
  entry(
    'axolotl',
    'deepspeed_configs/zero3_bf16_cpuoffload_params.json',
    { stage: 3, offload_param: offload('cpu', true), ...AXOLOTL_Z3 },
    true,
  ),
  entry(
    'axolotl',
    'deepspeed_configs/zero3_bf16_cpuoffload_all.json',
    { stage: 3, offload_optimizer: offload('cpu', true), offload_param: offload('cpu', true), ...AXOLOTL_Z3 },
    true,
  ),
  entry('llamafactory', 'examples/deepspeed/ds_z0_config.json', { stage: 0, ...LF_Z2 }),
  entry('llamafactory', 'examples/deepspeed/ds_z2_config.json', { stage: 2, ...LF_Z2 }),
  entry('llamafactory', 'examples/deepspeed/ds_z2_offload_config.json', {
    stage: 2,
    offload_optimizer: offload('cpu', true),
    ...LF_Z2,
  }),
  entry('llamafactory', 'examples/deepspeed/ds_z3_config.json', { stage: 3, ...LF_Z3 }),
  entry('llamafactory', 'examples/deepspeed/ds_z3_offload_config.json', {
    stage: 3,
    offload_optimizer: offload('cpu', true),
    offload_param: offload('cpu', true),
    ...LF_Z3,
  }),
];

/** The bundled file a config of `format` names with `path` (as written, or ending in the bundled path), if any. */
export function findBundledDeepspeed(path: string, format: Format | undefined): BundledDeepspeed | undefined {
  const p = path.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  // A bare file name is the shipped file of that name, copied beside the config (NexusAI-tddi/NexusAI's Axolotl YAML:
  // `deepspeed: zero3_bf16_cpuoffload_params.json`).
  const named = (b: BundledDeepspeed): boolean =>
    p === b.path || p.endsWith(`/${b.path}`) || (!p.includes('/') && p === b.path.split('/').pop());
  return BUNDLED_DEEPSPEED.find((b) => OWNER[b.tool].format === format && named(b));
}

/** The bundled file of `tool` with exactly these ZeRO settings (bf16 files preferred when training in bf16). */
export function bundledDeepspeedFor(
  tool: BundledDeepspeed['tool'],
  stage: number,
  offloadOptimizer: string,
  offloadParams: string,
  bf16: boolean,
): BundledDeepspeed | undefined {
  const hits = BUNDLED_DEEPSPEED.filter(
    (b) =>
      b.tool === tool &&
      b.stage === stage &&
      b.offloadOptimizer === offloadOptimizer &&
      b.offloadParams === offloadParams,
  );
  return hits.find((b) => b.bf16 === bf16) ?? hits.find((b) => !b.bf16);
}

/** Where a value read from a bundled file comes from, for the assumptions list. */
export function bundledNote(b: BundledDeepspeed): { owner: string; note: string } {
  return {
    owner: b.tool,
    note: `${b.path} as ${OWNER[b.tool].name} ships it (not found beside the config; ${OWNER[b.tool].fetch})`,
  };
}

/** The synthetic file name under which a bundled config is analyzed. */
export function bundledFileName(b: BundledDeepspeed): string {
  return `${OWNER[b.tool].name}: ${b.path}`;
}

/**
 * The format whose shipped DeepSpeed files a file names: its own, or for a launch line the tool it runs
 * (Zhou-bl/Toy-LIMA: `deepspeed src/train_bash.py --deepspeed /abs/.../LLaMA-Factory/examples/deepspeed/
 * ds_z2_offload_config.json --stage sft ...` from a checkout that lacks the file is LLaMA-Factory's ZeRO-2 offload).
 */
export function shippedDeepspeedFormat(format: Format | undefined, tools: readonly Tool[]): Format | undefined {
  if (format !== 'shell') return format;
  const tool = (Object.keys(OWNER) as BundledDeepspeed['tool'][]).find((t) => tools.includes(t));
  return tool ? OWNER[tool].format : undefined;
}

/** The tool whose shipped DeepSpeed files a config of `format` names, if it ships any. */
export function bundledTool(format: Format | undefined): BundledDeepspeed['tool'] | undefined {
  return (Object.keys(OWNER) as BundledDeepspeed['tool'][]).find((t) => OWNER[t].format === format);
}
