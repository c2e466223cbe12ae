// The layout: FSDP offload, ZeRO buckets, the GPU count (launcher world size, overrides, the smallest world a
// tensor-, pipeline- or context-parallel layout needs), torchtune's FSDP default, the offload check and the GPU.
// Rules of FIELD_RULES; pure.
import { isUnknown, msg, type FactValue } from '../facts';
import { fileProv, num, type ResolveContext } from './context';
import type { Provenance } from '../../core';

/** FSDP's CPU offload (Accelerate fsdp_offload_params, HF fsdp "offload"): parameters and optimizer state in host memory. */
export function resolveFsdpOffload(ctx: ResolveContext): void {
  const { decided, setup, prov } = ctx;
  if (decided.fsdpOffload && decided.fsdpOffload.fact.value === true) {
    const w = decided.fsdpOffload;
    setup.offload_params = 'cpu';
    setup.offload_optimizer = 'cpu';
    prov.offload_params = prov.offload_optimizer = fileProv(w);
    if (setup.fsdp === undefined) setup.fsdp = 'full_shard';
  }
}

/**
 * FSDP's CPU-RAM-efficient loading where no file names it, by what configures FSDP: `accelerate launch` from its config
 * or flags sets FSDP_CPU_RAM_EFFICIENT_LOADING, "true" unless given, which a trainer leaves as it is unless its own
 * TrainingArguments configure FSDP (fsdp_config, "false" unless given). So an Accelerate-configured FSDP takes
 * Accelerate's default; the tool defaults apply otherwise (field-rules fromDefault).
 */
export function resolveCpuRamEfficient(ctx: ResolveContext): void {
  if (ctx.decided.fsdp?.fact.tool !== 'accelerate') return;
  ctx.fromDefaultOf('fsdp_cpu_ram_efficient_loading', 'fsdp_cpu_ram_efficient_loading', ['accelerate']);
}

/** ZeRO's bucket sizes and thresholds, as the zero_buckets block. */
export function resolveZeroBuckets(ctx: ResolveContext): void {
  const { decided, unknownOnly, setup } = ctx;
  const buckets: Record<string, number | boolean | 'auto'> = {};
  for (const [k, field] of [
    ['reduceBucketSize', 'reduce_bucket_size'],
    ['allgatherBucketSize', 'allgather_bucket_size'],
    ['stage3PrefetchBucketSize', 'stage3_prefetch_bucket_size'],
    ['stage3MaxLiveParameters', 'stage3_max_live_parameters'],
    ['stage3MaxReuseDistance', 'stage3_max_reuse_distance'],
    ['stage3ParamPersistenceThreshold', 'stage3_param_persistence_threshold'],
    ['subGroupSize', 'sub_group_size'],
  ] as const) {
    const v = decided[k] ? num(decided[k]!.fact.value as FactValue) : undefined;
    if (v !== undefined) buckets[field] = v;
    // HF Trainer and Accelerate fill these "auto" values from the model's hidden size (estimate/zero-config.ts).
    else {
      const open = unknownOnly[k]?.fact.value;
      if (open !== undefined && isUnknown(open) && open.fromHiddenSize) buckets[field] = 'auto';
    }
  }
  for (const [k, field] of [
    ['zeroOverlapComm', 'overlap_comm'],
    ['zeroContiguousGradients', 'contiguous_gradients'],
  ] as const) {
    const v = decided[k]?.fact.value;
    if (typeof v === 'boolean') buckets[field] = v;
  }
  if (Object.keys(buckets).length > 0) setup.zero_buckets = buckets;
}

/** GPUs per node from a world size (Accelerate num_processes counts every machine's) when nothing gives them per node. */
export function resolveWorldSize(ctx: ResolveContext): void {
  const { decided, setup, prov } = ctx;
  const world = decided.worldSize ? num(decided.worldSize.fact.value as FactValue) : undefined;
  if (world !== undefined && setup.gpus_per_node === undefined) {
    // vramLens.nodes fills in a node count the files leave out before the world is split per node.
    if (setup.nodes === undefined && ctx.overrides.origin === 'setting' && ctx.overrides.nodes !== undefined) {
      setup.nodes = ctx.overrides.nodes;
      prov.nodes = { kind: 'setting', setting: 'vramLens.nodes' };
    }
    const nodes = (setup.nodes as number | undefined) ?? 1;
    setup.gpus_per_node = Math.max(1, Math.round(world / nodes));
    const w = decided.worldSize!;
    prov.gpus_per_node = fileProv(w);
  }
}

/**
 * `CUDA_VISIBLE_DEVICES=5,7 accelerate launch --config_file fsdp.yaml` with the config's num_processes: Accelerate
 * starts num_processes (per machine) processes whatever the variable shows (commands/launch.py takes the config's count;
 * only without one does it count torch.cuda.device_count()), each on the visible device of its local rank. Fewer
 * processes than visible GPUs run on the first ones: the count is the config's. More find no device past the visible
 * ones and stop at start-up (PartialState's torch.cuda.set_device: invalid device ordinal): said at num_processes, and
 * the visible GPUs estimated.
 */
export function resolveVisibleProcesses(ctx: ResolveContext): void {
  const { decided, setup, prov, problems } = ctx;
  const visible = decided.gpusPerNode;
  const world = decided.worldSize;
  if (visible?.fact.rawKey !== 'CUDA_VISIBLE_DEVICES' || visible.fact.tool !== 'accelerate') return;
  const shown = num(visible.fact.value as FactValue);
  if (world?.fact.tool !== 'accelerate' || shown === undefined || setup.gpus_per_node !== shown) return;
  const perNode = (num(world.fact.value as FactValue) ?? NaN) / ((setup.nodes as number | undefined) ?? 1);
  if (!Number.isInteger(perNode) || perNode === shown) return;
  if (perNode < shown) {
    setup.gpus_per_node = perNode;
    prov.gpus_per_node = fileProv(world);
    return;
  }
  problems.push({
    ...world.location,
    severity: 'warning',
    code: 'invalid-value',
    key: world.fact.rawKey,
    ...msg(
      '{0} starts {1} processes on each machine, but CUDA_VISIBLE_DEVICES (line {2}) shows {3} GPUs: the processes ' +
        'past the first {3} find no device and stop at start-up (invalid device ordinal); estimated on {3}',
      world.fact.rawKey,
      perNode,
      visible.location.line,
      shown,
    ),
  });
}

/**
 * A script run by plain `python` (one process) that loads its model with device_map="auto" (or "balanced",
 * "sequential") while CUDA_VISIBLE_DEVICES shows several GPUs: Accelerate places the layers over all of them
 * (accelerate/utils/modeling.py infer_auto_device_map), and the HF Trainer leaves the model where it lies
 * (trainer.py: is_parallelizable / model_parallel when hf_device_map names several devices): a device_map split over
 * those GPUs, one micro-batch at a time. Not under DeepSpeed or FSDP, nor where a launcher, flag or layout gives the
 * GPUs.
 */
export function resolveDeviceMapSplit(ctx: ResolveContext): void {
  const { decided, setup, prov } = ctx;
  const split = decided.deviceMapSplit;
  const shown = decided.visibleGpus;
  const gpus = shown ? num(shown.fact.value as FactValue) : undefined;
  if (split?.fact.value !== true || !shown || gpus === undefined || gpus < 2) return;
  const sharded = (setup.fsdp !== undefined && setup.fsdp !== 'none') || ((setup.zero_stage as number) ?? 0) > 0;
  if (sharded || setup.gpus_per_node !== undefined || setup.pipeline_parallel !== undefined) return;
  setup.gpus_per_node = gpus;
  setup.pipeline_parallel = gpus;
  setup.pipeline_schedule = 'device_map';
  prov.gpus_per_node = fileProv(shown);
  prov.pipeline_parallel = prov.pipeline_schedule = fileProv(split);
}

/**
 * A model loaded with device_map="auto" (or "balanced", "sequential") in a run of several processes that Accelerate
 * prepares (the HF Trainer, TRL, an Accelerator loop): each process spreads the model over every GPU it sees, and
 * Accelerate refuses to train it in any distributed mode (accelerator.py prepare_model: `verify_device_map(model)` and
 * `distributed_type != NO` raise "You can't train a model that has been loaded with `device_map='auto'` in any
 * distributed mode"), so the run stops there. Said at the device_map; estimated as the launch says.
 */
export function refusedDeviceMapSplit(ctx: ResolveContext): void {
  const { decided, setup, problems } = ctx;
  const split = decided.deviceMapSplit;
  // The processes the files start (a launcher's count), not GPUs a setting or --gpus gives a one-process run.
  const started =
    decided.worldSize ??
    (decided.gpusPerNode?.fact.rawKey === 'CUDA_VISIBLE_DEVICES' ? undefined : decided.gpusPerNode);
  const perNode = started === decided.worldSize ? 1 : ((setup.nodes as number | undefined) ?? 1);
  const processes = (num((started?.fact.value ?? 1) as FactValue) ?? 1) * perNode;
  if (split?.fact.value !== true || setup.pipeline_schedule === 'device_map' || processes < 2) return;
  const scripts = ctx.files.filter((f) => f.facts.format === 'hf-python');
  const prepared = scripts.some(
    (f) =>
      f.facts.tools.some((t) => t === 'hf-trainer' || t === 'trl') ||
      (/\bAccelerator\s*\(/.test(f.text) && /\.prepare\(/.test(f.text)),
  );
  if (!prepared) return;
  problems.push({
    ...split.location,
    severity: 'warning',
    code: 'invalid-value',
    key: split.fact.rawKey,
    ...msg(
      '{0} spreads the model over every GPU each of the {1} processes sees, and Accelerate refuses to train such a ' +
        "model in a distributed run (\"You can't train a model that has been loaded with device_map='auto' in any " +
        'distributed mode"): load it on the process\'s own GPU (device_map={"": local_rank}) or start one process; ' +
        'estimated as the launch starts it',
      split.fact.rawKey,
      String(processes),
    ),
  });
}

/**
 * --gpus / --nodes win over the files. vramLens.gpusPerNode / vramLens.nodes apply only where the files do not give
 * the count (a launcher flag, Accelerate num_processes / num_machines, a SLURM header): a setting is the user's
 * machine, the files are the run.
 */
export function resolveGpuOverrides(ctx: ResolveContext): void {
  const { overrides, setup, prov } = ctx;
  const setting = overrides.origin === 'setting';
  if (overrides.gpusPerNode !== undefined && (!setting || setup.gpus_per_node === undefined)) {
    setup.gpus_per_node = overrides.gpusPerNode;
    prov.gpus_per_node = setting
      ? { kind: 'setting', setting: 'vramLens.gpusPerNode' }
      : { kind: 'flag', flag: '--gpus' };
  }
  if (overrides.nodes !== undefined && (!setting || setup.nodes === undefined)) {
    setup.nodes = overrides.nodes;
    prov.nodes = setting ? { kind: 'setting', setting: 'vramLens.nodes' } : { kind: 'flag', flag: '--nodes' };
  }
}

/**
 * A launcher that takes every GPU it sees (`deepspeed` without --num_gpus, torchrun --nproc_per_node gpu), or a count
 * from a variable, when no flag, setting or layout gives the count: one GPU, the most memory per GPU, said so.
 */
export function resolveOpenGpuCount(ctx: ResolveContext): void {
  const open = openCount(ctx, 'gpusPerNode');
  if (ctx.setup.gpus_per_node !== undefined || !open) return;
  ctx.setup.gpus_per_node = 1;
  ctx.prov.gpus_per_node = open.assumed(
    'one GPU is estimated, the most memory per GPU: set vramLens.gpusPerNode (or --gpus)',
  );
}

/**
 * A node count from a variable (`torchrun --nnodes=${WORLD_SIZE}`, NNODES=$WORLD_SIZE) when no flag, setting or file
 * gives it: one node, said so at the value the file leaves open.
 */
export function resolveOpenNodeCount(ctx: ResolveContext): void {
  const open = openCount(ctx, 'nodes');
  if (ctx.setup.nodes !== undefined || !open) return;
  ctx.setup.nodes = 1;
  ctx.prov.nodes = open.assumed('one node is estimated: set vramLens.nodes (or --nodes)');
}

/** A count the files give only as a value not known statically, and the provenance of the count assumed for it. */
function openCount(
  ctx: ResolveContext,
  key: 'gpusPerNode' | 'nodes',
): { assumed: (what: string) => Provenance } | undefined {
  const open = ctx.unknownOnly[key];
  const v = open?.fact.value;
  if (!open || typeof v !== 'object' || v === null || !('unknown' in v)) return undefined;
  return {
    assumed: (what) => ({
      kind: 'default',
      owner: 'VRAM Lens',
      note: `${v.unknown} (${open.fact.rawKey} at line ${open.location.line}); ${what}`,
    }),
  };
}

/**
 * A tensor-parallel, pipeline-parallel, sharded or expert-parallel layout runs on tp x pp x cp x shard x ep GPUs at
 * least: expert-parallel ranks hold different experts of the same layers, each group of them a whole FSDP shard group
 * (Axolotl's expert-parallel example: "world size 4 minimum: expert_parallel_size x dp_shard_size"; DeepSpeed's MoE
 * carves its expert groups out of the data-parallel ranks). When no launcher, file, flag or setting says how many GPUs
 * run (torchtune's multi-node configs leave it to `tune run --nnodes --nproc_per_node`, Axolotl's to its launcher),
 * the smallest such world is assumed, eight GPUs to a node, instead of a single GPU that cannot hold the layout.
 */
export function resolveLayoutWorld(ctx: ResolveContext): void {
  const { setup, prov } = ctx;
  const n = (field: string): number => (setup[field] as number | undefined) ?? 1;
  const shared = n('fsdp_shard_size') * n('context_parallel');
  const layoutGpus = n('tensor_parallel') * n('pipeline_parallel') * shared * n('expert_parallel');
  if (layoutGpus > 1 && setup.gpus_per_node === undefined && setup.nodes === undefined) {
    const multiNode = layoutGpus > 8 && layoutGpus % 8 === 0;
    setup.gpus_per_node = multiNode ? 8 : layoutGpus;
    const experts = n('expert_parallel') > 1 ? ' x expert_parallel' : '';
    const note =
      `the smallest world that holds tensor_parallel x pipeline_parallel x context_parallel x the FSDP shard group${experts} ` +
      `= ${layoutGpus} GPUs (no launcher, flag or setting gives the GPU count)`;
    prov.gpus_per_node = { kind: 'default', owner: 'VRAM Lens', note };
    if (multiNode) {
      setup.nodes = layoutGpus / 8;
      prov.nodes = { kind: 'default', owner: 'VRAM Lens', note };
    }
  }
}

/** --seq-len wins over the files. */
export function resolveSeqLenOverride(ctx: ResolveContext): void {
  const { overrides, setup, prov } = ctx;
  if (overrides.seqLen !== undefined) {
    setup.seq_len = overrides.seqLen;
    prov.seq_len = { kind: 'flag', flag: '--seq-len' };
  }
}

/** torchtune's distributed recipes shard with FSDP2 (fully_shard) whenever more than one GPU runs. */
export function resolveTorchtuneFsdp(ctx: ResolveContext): void {
  const { tools, setup, prov } = ctx;
  if (
    tools.includes('torchtune') &&
    setup.fsdp === undefined &&
    ((setup.gpus_per_node as number | undefined) ?? 1) * ((setup.nodes as number | undefined) ?? 1) > 1
  ) {
    setup.fsdp = 'full_shard';
    prov.fsdp = {
      kind: 'default',
      owner: 'torchtune',
      note: 'distributed recipes shard parameters, gradients and optimizer state with FSDP2',
    };
  }
  // torchtune has only FSDP2 (torchtune/training/_distributed.py shard_model: fully_shard on each layer, then the root).
  if (
    tools.includes('torchtune') &&
    setup.fsdp !== undefined &&
    setup.fsdp !== 'none' &&
    setup.fsdp_version === undefined
  ) {
    setup.fsdp_version = 2;
    prov.fsdp_version = {
      kind: 'default',
      owner: 'torchtune',
      note: 'torchtune shards with FSDP2 (training/_distributed.py shard_model calls fully_shard)',
    };
  }
}

/** Offload sanity: DeepSpeed offload without a ZeRO stage does nothing. */
export function checkOffloadNeedsZero(ctx: ResolveContext): void {
  const { decided, setup, problems } = ctx;
  if (setup.offload_optimizer && setup.offload_optimizer !== 'none' && !setup.zero_stage && !setup.fsdp) {
    const w = decided.offloadOptimizer;
    if (w)
      problems.push({
        ...w.location,
        severity: 'warning',
        code: 'offload-needs-zero',
        key: w.fact.rawKey,
        ...msg('optimizer offload needs ZeRO stage 1-3 (or FSDP); without it nothing is offloaded'),
      });
  }
}

/**
 * A DeepSpeed config the files name by a value not known statically (`HfDeepSpeedConfig(f'dsconfig/{name}.json')`),
 * with no ZeRO stage or sharding from elsewhere: the estimate is without ZeRO, and says so where the config is named.
 */
export function checkUnreadDeepspeedConfig(ctx: ResolveContext): void {
  const { decided, unknownOnly, setup, problems } = ctx;
  const w = unknownOnly.deepspeedConfig;
  if (!w || decided.deepspeedConfig || decided.zeroStage || (setup.fsdp && setup.fsdp !== 'none')) return;
  problems.push({
    ...w.location,
    severity: 'warning',
    code: 'not-static',
    key: w.fact.rawKey,
    ...msg(
      'the DeepSpeed config {0} is not known statically: the estimate is without ZeRO and its batch settings; name the file to read it',
      w.fact.rawValue,
    ),
  });
}

/** The GPU: --gpu or vramLens.gpu, else the files'. */
export function resolveGpu(ctx: ResolveContext): void {
  const { overrides, setup, prov } = ctx;
  if (overrides.gpu) {
    setup.gpu = overrides.gpu;
    prov.gpu =
      overrides.origin === 'setting' ? { kind: 'setting', setting: 'vramLens.gpu' } : { kind: 'flag', flag: '--gpu' };
  } else {
    ctx.fromFact('gpu', 'gpu', (v) => (typeof v === 'string' ? v : undefined));
  }
}

/**
 * Axolotl's context parallelism splits evaluation too: SequenceParallelContextManager hooks the model for the whole
 * trainer.train(), evaluation included (src/axolotl/train.py execute_training), so each GPU evaluates its share of a row.
 */
export function resolveEvalSequenceSplit(ctx: ResolveContext): void {
  const { setup, prov, tools } = ctx;
  if (tools[0] !== 'axolotl' || typeof setup.context_parallel !== 'number' || setup.context_parallel <= 1) return;
  setup.eval_sequence_split = true;
  prov.eval_sequence_split = {
    kind: 'default',
    owner: 'axolotl',
    note:
      'SequenceParallelContextManager hooks the model for the whole trainer.train(), evaluation included ' +
      '(axolotl-ai-cloud/axolotl src/axolotl/train.py execute_training): each GPU evaluates its share of a row',
  };
}
