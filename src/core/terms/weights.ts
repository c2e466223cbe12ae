// Term: weights. Per GPU, the model's parameters in their storage dtype:
//   block params / TP x (4 B after the kbit upcast, else the weight dtype) + embedding/head/vision / TP x 4 B or the
//   weight dtype, divided by the parameter shard degree (ZeRO-3 / FSDP); offloaded parameters count 0 here.
// Also the rotary cos/sin tables each attention layer kept before transformers 4.39, the 4/8-bit base weights with
// their quantization constants (terms/quantization.ts), and ZeRO++'s secondary 16-bit partition (hpZ).
// Sources: DeepSpeed ZeRO paper (arXiv:1910.02054) §5, ZeRO++ tutorial; transformers modeling_llama.py < 4.39.
// Docs: docs/estimate/weights-and-quantization.md. Pure arithmetic; no I/O.
import { attentionLayerCount, type Architecture } from '../architecture';
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { dtypeBytes } from '../estimate/dtypes';
import { formatCount } from '../units';
import { olderThan } from '../util/version';
import { quantBytesPerParam, unshardedConstantsPerParam } from './quantization';

/** Families whose attention layers each kept rotary cos/sin tables for every position before transformers 4.39. */
export const ROPE_TABLES_PER_LAYER: ReadonlySet<Architecture['family']> = new Set([
  'llama',
  'mistral',
  'qwen2',
  'mixtral',
]);

/** The model's own weights on this stage's GPU: weights, rotary tables, quantized weights, the hpZ partition. */
export function weights(ctx: EstimateContext, st: StageContext): Component[] {
  const { setup, effectiveSetup: effSetup } = ctx;
  const a = ctx.model.arch;
  const { tensorParallel: tp, pipelineParallel: pp } = ctx.layout;
  const { shardParams, offloadParams, fsdpOffload, zeroStage: zero } = ctx.sharding;
  const { weightBytes: wb, half, kbitQuantized: kbitQ, fsdpMaster } = ctx.dtypes;
  const { layerShare, quantizedHere: quantHere, unquantizedParams, modelBytes } = st;
  const persistent: Component[] = [];
  const base = { tp, pp, shard: shardParams };
  const weightShard = offloadParams || fsdpOffload || (fsdpMaster && setup.method === 'full') ? Infinity : shardParams;
  const weightBytes = modelBytes / weightShard;
  persistent.push(
    comp(
      ctx,
      'weights',
      'Weights',
      weightBytes,
      () => weightsFormula(ctx, st),
      () => ({ params: Math.round(unquantizedParams), bytesPerParam: kbitQ === 'all' ? 4 : wb, ...base }),
    ),
  );
  // Before transformers 4.39 every attention layer of Llama, Mistral, Qwen2 and Mixtral built its own rotary
  // embedding with cos and sin tables for all max_position_embeddings positions, in the default dtype at load (the
  // load dtype): modeling_llama.py LlamaRotaryEmbedding._set_cos_sin_cache registers cos_cached / sin_cached
  // (<= 4.37; 4.38 keeps them as _cos_cached / _sin_cached "for BC"); from 4.39 cos and sin are computed in forward.
  if (ROPE_TABLES_PER_LAYER.has(a.family) && olderThan(setup.transformers_version, 4, 39)) {
    const tb = dtypeBytes(setup.weights_dtype);
    const ropeLayers = attentionLayerCount(a) * layerShare;
    persistent.push(
      comp(
        ctx,
        'rotary-tables',
        'Rotary cos/sin tables (one pair per attention layer)',
        ropeLayers * 2 * a.maxPositions * a.headDim * tb,
        () =>
          `${ropeLayers} layers x 2 x ${a.maxPositions} positions x ${a.headDim} head dim x ${tb} B ` +
          `(transformers ${setup.transformers_version}: each attention's rotary embedding keeps its ` +
          `own tables)`,
        () => ({ layers: ropeLayers, positions: a.maxPositions, headDim: a.headDim, bytes: tb }),
      ),
    );
  }
  if (quantHere > 0 && effSetup.quantization) persistent.push(quantizedWeights(ctx, st));
  // ZeRO++ hpZ (zero_hpz_partition_size): a secondary partition of the 16-bit parameters within the node, from which
  // the backward's all-gathers read (DeepSpeed ZeRO++ tutorial; zero/partition_parameters.py ds_secondary_tensor).
  const hpz = zero === 3 && !offloadParams ? Math.min(setup.zero_hpz_partition_size ?? 1, shardParams) : 1;
  if (hpz > 1) {
    const params = unquantizedParams + quantHere;
    persistent.push(
      comp(
        ctx,
        'weights',
        'ZeRO++ secondary parameter partition (hpZ)',
        (params * half) / hpz,
        () => `${formatCount(params)} params x ${half} B / ${hpz} (zero_hpz_partition_size)`,
        () => ({ params: Math.round(params), hpz }),
      ),
    );
  }
  return persistent;
}

/**
 * The 4/8-bit base weights with their constants, sharded and offloaded with the parameters, except bitsandbytes'
 * 4-bit constants, which stay whole on every GPU when the parameters are sharded (terms/quantization.ts).
 */
function quantizedWeights(ctx: EstimateContext, st: StageContext): Component {
  const { setup, effectiveSetup: effSetup } = ctx;
  const { shardParams, offloadParams, fsdpOffload } = ctx.sharding;
  const quantHere = st.quantizedHere;
  const quant = effSetup.quantization!;
  const q = quantBytesPerParam(quant, setup.torchao_version);
  const offloaded = offloadParams || fsdpOffload;
  const whole = shardParams > 1 ? unshardedConstantsPerParam(quant) : 0;
  const shard = offloaded ? Infinity : shardParams;
  const label = `${quant.bits}-bit base weights (${quant.type})`;
  const inputs = () => ({ params: Math.round(quantHere), bytesPerParam: q.bytes });
  if (whole > 0) {
    return comp(
      ctx,
      'quantization-constants',
      label,
      (quantHere * (q.bytes - whole)) / shard + quantHere * whole,
      () =>
        `${formatCount(quantHere)} params x (${q.formula}): the 0.5 B codes ` +
        `${offloaded ? 'offloaded' : `/ ${shardParams} (sharded)`}, the constants (${whole.toFixed(4)} B) whole on ` +
        `every GPU (bitsandbytes keeps them on the module, outside the sharded parameter)`,
      inputs,
    );
  }
  return comp(
    ctx,
    'quantization-constants',
    label,
    (quantHere * q.bytes) / (offloadParams ? Infinity : shardParams),
    () =>
      `${formatCount(quantHere)} params x ${q.formula}${shardParams > 1 && !offloadParams ? ` / ${shardParams} (sharded)` : ''}`,
    inputs,
  );
}

/** The weights' formula: offloaded, FSDP's fp32 shard only, the kbit upcast's split, or params x bytes. */
function weightsFormula(ctx: EstimateContext, st: StageContext): string {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const tp = ctx.layout.tensorParallel;
  const { shardParams, offloadParams, fsdpOffload } = ctx.sharding;
  const { weightBytes: wb, embeddingBytes: embBytes, kbitQuantized: kbitQ, fsdpMaster } = ctx.dtypes;
  const { embeddingHere: embHere, denseBlock, visionHere, unquantizedParams } = st;
  const sharded = shardParams > 1 ? ` / ${shardParams} (sharded)` : '';
  return offloadParams || fsdpOffload
    ? 'offloaded to host memory (see gathered parameters)'
    : fsdpMaster && setup.method === 'full'
      ? 'FSDP mixed precision keeps only the fp32 shard (see master weights); 16-bit copies exist only all-gathered'
      : kbitQ !== 'none'
        ? `${formatCount(denseBlock)} ${a.fusedExperts ? 'fused expert, router and norm/bias' : 'norm/bias'} params x 4 B (fp32 upcast) + ` +
          `${formatCount(embHere / tp + visionHere)} embedding/head${visionHere > 0 ? '/vision' : ''} params x ${embBytes} B${sharded}`
        : `${formatCount(unquantizedParams)} params x ${wb} B${sharded}`;
}
