// The parallel layout of the run: world size, tensor / pipeline / context / data / expert parallel degrees, and how
// ZeRO or FSDP shard the optimizer state, the gradients and the parameters (MiCS and hybrid shard groups), what is
// offloaded. Impossible layouts are errors; ignored settings are warnings. Docs: docs/estimate/parallelism.md. Pure.
import type { Architecture } from '../architecture';
import type { Layout } from '../model';
import type { PlanningContext, ShardingPlan } from './context';
import type { EstimateFailure } from './normalize';
import { defersGradientSync, fsdpTailUnit } from '../setup';

/** The layout and the sharding plan, or the first impossible value. */
export function planLayout(
  ctx: PlanningContext,
  a: Architecture,
  badamRatio: number | undefined,
): { layout: Layout; sharding: ShardingPlan } | EstimateFailure {
  const setup = ctx.setup;
  const { warnings } = ctx.notes;
  const world = setup.gpus_per_node * setup.nodes;
  // LLaMA-Factory refuses ratio-based BAdam in distributed training (hparams/parser.py: "does not yet support
  // distributed training, use layer-wise BAdam"); its sparse gradients fit no data-parallel reduction.
  if (badamRatio !== undefined && world > 1)
    warnings.push({
      key: 'badam',
      message: `BAdam's ratio mode runs on one GPU only (LLaMA-Factory stops on ${world} GPUs: use badam_mode layer)`,
    });
  const tp = setup.tensor_parallel;
  const pp = setup.pipeline_parallel;
  const cp = setup.context_parallel;
  const impossible = modelParallelError(setup, world);
  if (impossible) return { ok: false, errors: [impossible] };
  if (a.heads % tp !== 0)
    warnings.push({
      key: 'tensor_parallel',
      message: `attention heads (${a.heads}) are not divisible by tensor_parallel (${tp})`,
    });
  // Context-parallel ranks share each batch (they split its sequences), so they are not data-parallel for the batch,
  // but FSDP and ZeRO shard over them as over data-parallel ranks (torchtitan's dp_shard x cp mesh).
  const dp = world / (tp * pp * cp);
  const fsdp = setup.fsdp !== 'none' && setup.fsdp !== 'no_shard';
  const zero = fsdp ? 0 : setup.zero_stage;
  shardingWarnings(ctx, fsdp, zero);
  const { shardGroup, shardOptimizer, shardGrads, shardParams } = shardDegrees(setup, dp * cp, fsdp, zero);
  const offloadOpt = setup.offload_optimizer !== 'none' && (zero > 0 || fsdp);
  const offloadParams = setup.offload_params !== 'none' && (zero === 3 || fsdp);
  // FSDP's CPUOffload moves parameters, gradients and the optimizer step to the host together.
  const fsdpOffload = fsdp && (setup.offload_params !== 'none' || setup.offload_optimizer !== 'none');
  const ep = Math.max(1, setup.expert_parallel);
  // Expert parallelism is carved out of the data-parallel ranks (they hold different experts of the same layers).
  if (ep > 1 && (dp * cp) % ep !== 0) {
    return {
      ok: false,
      errors: [
        { key: 'expert_parallel', message: `expert_parallel (${ep}) must divide the data-parallel GPUs (${dp * cp})` },
      ],
    };
  }
  if (ep > 1 && a.moe && a.moe.experts % ep !== 0)
    warnings.push({
      key: 'expert_parallel',
      message: `${a.moe.experts} experts do not split evenly over expert_parallel (${ep})`,
    });
  const globalBatch = setup.micro_batch_size * setup.gradient_accumulation_steps * dp;
  const layout: Layout = {
    world,
    dataParallel: dp,
    shardGroup,
    tensorParallel: tp,
    pipelineParallel: pp,
    ...(pp > 1 && setup.pipeline_schedule === 'device_map' ? { deviceMapSplit: true as const } : {}),
    expertParallel: ep,
    contextParallel: cp,
    globalBatch,
  };
  // FSDP keeps its root unit (embeddings + output head unless they are wrapped on their own) unsharded. FSDP2's tail
  // unit (fsdp_tail_unit) holds tied embeddings the same way, from the forward's start to the embeddings' gradient;
  // untied, only the head, and only to its own backward.
  const rootUnit = fsdp && shardParams > 1 && !setup.fsdp_shard_embeddings && (!fsdpTailUnit(setup) || a.tied);
  // FSDP1 no_sync() / FSDP2 set_requires_gradient_sync(False) on every micro-batch but the last keep the unsharded
  // gradients (torch/distributed/fsdp/_runtime_utils.py _post_backward_hook returns before the reduce-scatter).
  const deferredGradSync = shardGrads > 1 && defersGradientSync(setup);
  return {
    layout,
    sharding: {
      fsdp,
      zeroStage: zero,
      shardOptimizer,
      shardGrads,
      shardParams,
      offloadOptimizer: offloadOpt,
      offloadParams,
      fsdpOffload,
      rootUnit,
      deferredGradSync,
      ddp: dp * cp > 1 && zero === 0 && !fsdp && setup.ddp_wrap !== false,
    },
  };
}

/** The first tensor / pipeline / context parallel degree the GPUs or the sequence cannot hold, at its key. */
function modelParallelError(
  setup: PlanningContext['setup'],
  world: number,
): EstimateFailure['errors'][number] | undefined {
  const tp = setup.tensor_parallel;
  const pp = setup.pipeline_parallel;
  const cp = setup.context_parallel;
  if (world % (tp * pp) !== 0)
    return {
      key: 'tensor_parallel',
      message: `GPUs (${world}) must be a multiple of tensor_parallel x pipeline_parallel (${tp} x ${pp})`,
    };
  if (world % (tp * pp * cp) !== 0)
    return {
      key: 'context_parallel',
      message: `GPUs (${world}) must be a multiple of tensor_parallel x pipeline_parallel x context_parallel (${tp} x ${pp} x ${cp})`,
    };
  if (setup.seq_len % cp !== 0)
    return {
      key: 'context_parallel',
      message: `seq_len (${setup.seq_len}) must split evenly over context_parallel (${cp}) GPUs`,
    };
  return undefined;
}

/** Settings the sharding ignores or cannot run: FSDP beside a ZeRO stage, sharded 8-bit layers, offload without it. */
function shardingWarnings(ctx: PlanningContext, fsdp: boolean, zero: number): void {
  const setup = ctx.setup;
  const { warnings } = ctx.notes;
  if (fsdp && setup.zero_stage > 0) {
    warnings.push({ key: 'fsdp', message: 'both FSDP and a ZeRO stage are set; FSDP is used and zero_stage ignored' });
  }
  // bitsandbytes' 8-bit layers hold int8 Int8Params with their row scales beside them: FSDP refuses to flatten integer
  // parameters with 16-bit ones (accelerate#1415, bitsandbytes#1709; PEFT's FSDP-QLoRA is 4-bit only, peft#2833) and
  // DeepSpeed ZeRO-3 cannot partition them either (bitsandbytes#89). 4-bit layers can, through bnb_4bit_quant_storage.
  if (setup.quantization?.type === 'int8' && (fsdp || zero === 3)) {
    warnings.push({
      key: fsdp ? 'fsdp' : 'zero_stage',
      message:
        `bitsandbytes 8-bit layers cannot be sharded ` +
        `by ${fsdp ? 'FSDP (integer parameters: accelerate#1415, bitsandbytes#1709)' : 'DeepSpeed ZeRO-3 (bitsandbytes#89)'}: ` +
        `training stops at start-up; use 4-bit QLoRA with bnb_4bit_quant_storage, or ZeRO-2`,
    });
  }
  if (setup.offload_params !== 'none' && !(zero === 3 || fsdp)) {
    warnings.push({ key: 'offload_params', message: 'parameter offload needs ZeRO stage 3 (or FSDP); it is ignored' });
  }
  if (setup.offload_optimizer !== 'none' && zero === 0 && !fsdp) {
    warnings.push({
      key: 'offload_optimizer',
      message: 'optimizer offload needs a ZeRO stage (1-3) or FSDP; it is ignored',
    });
  }
}

/**
 * Over how many GPUs the optimizer state, the gradients and the parameters are sharded: all the data-parallel (and
 * context-parallel) ranks, or FSDP's hybrid shard group and DeepSpeed's MiCS group (mics_shard_size) within them.
 * FSDP's SHARD_GRAD_OP shards the parameters at rest too ("parameters are sharded outside computation"): it only keeps
 * them unsharded from a unit's forward to its backward (terms/sharding-buffers.ts).
 */
function shardDegrees(
  setup: PlanningContext['setup'],
  ranks: number,
  fsdp: boolean,
  zero: number,
): { shardGroup: number; shardOptimizer: number; shardGrads: number; shardParams: number } {
  const shardGroup =
    setup.fsdp === 'hybrid_shard'
      ? Math.min(ranks, setup.fsdp_shard_size ?? setup.gpus_per_node)
      : !fsdp && setup.zero_stage >= 1 && setup.zero_mics_shard_size !== undefined
        ? Math.min(ranks, setup.zero_mics_shard_size)
        : ranks;
  const shardedFsdp = setup.fsdp === 'full_shard' || setup.fsdp === 'shard_grad_op' || setup.fsdp === 'hybrid_shard';
  return {
    shardGroup,
    shardOptimizer: fsdp || zero >= 1 ? shardGroup : 1,
    shardGrads: shardedFsdp || zero >= 2 ? shardGroup : 1,
    shardParams: shardedFsdp || zero === 3 ? shardGroup : 1,
  };
}
