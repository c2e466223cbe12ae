// Term: the whole model on the GPU while ZeRO-3 partitions a model made outside deepspeed.zero.Init (zero3_init
// false: a loop that hands deepspeed.initialize a model from from_pretrained without HfDeepSpeedConfig, a Trainer
// script that loads its model before its arguments; a quantized model is on the GPU whole from its load, not counted
// here). DeepSpeed's engine casts such a module to its 16-bit dtype and moves it to the device whole (engine.py
// _configure_distributed_model: `if not (self.dont_change_device or is_zero_init_model): self.module.to(self.device)`),
// then ZeRO-3 converts its parameters one by one (parameter_offload.py _convert_to_zero_parameters: Init(module=...)),
// each partition made before its full tensor is freed, to the CPU with offload_param. Nothing empties the cache
// afterwards (stage3.py's see_memory_usage calls return before it unless forced), so the model's segments stay
// reserved and serve the step's tensors. Docs: docs/estimate/parallelism.md. Pure arithmetic.
import type { EstimateContext, ModelLoad } from '../estimate/context';
import { comp, loadPhase, sum } from '../estimate/component';
import { formatBytes, formatCount } from '../units';

/**
 * The engine's move of a whole unpartitioned model to the GPU: its parameters at the dtypes the step trains them in
 * (blocks at the weights', embeddings, head and vision tower at the embeddings', adapters at theirs). Undefined unless
 * ZeRO-3 partitions a model made outside zero.Init; a quantized model is on the GPU whole from its load anyway.
 */
export function zero3ModuleToDevice(ctx: EstimateContext): ModelLoad | undefined {
  const { setup, sharding, dtypes } = ctx;
  if (setup.zero3_init !== false || sharding.fsdp || sharding.zeroStage !== 3 || setup.quantization) return undefined;
  const inv = ctx.model.inventory;
  const outside = inv.embedding + inv.head + inv.vision;
  const bytes =
    inv.blocks * dtypes.weightBytes +
    outside * dtypes.embeddingBytes +
    (inv.adapter + inv.savedModules) * dtypes.adapterBytes;
  const components = [
    comp(
      ctx,
      'load-transient',
      'The whole model on the GPU before ZeRO-3 partitions it',
      bytes,
      () =>
        `${formatCount(inv.blocks)} block parameters x ${dtypes.weightBytes} B + ${formatCount(outside)} embedding, ` +
        `head and vision parameters x ${dtypes.embeddingBytes} B` +
        (inv.adapter + inv.savedModules > 0
          ? ` + ${formatCount(inv.adapter + inv.savedModules)} adapter parameters x ${dtypes.adapterBytes} B`
          : '') +
        ': deepspeed.initialize moves a model made outside deepspeed.zero.Init to the GPU whole, then partitions it',
      () => ({ parameters: inv.total }),
    ),
  ];
  return {
    phase: loadPhase(
      ctx,
      components,
      () =>
        'deepspeed.initialize: the engine moves the unpartitioned model to the GPU (module.to(device)), then ZeRO-3 ' +
        'partitions each parameter and frees its full tensor',
    ),
    reservedBytes: sum(components),
    servesStep: true,
    cacheLabel: 'Segments cached since DeepSpeed moved the whole model to the GPU',
    cacheFormula: () =>
      `the unpartitioned model's segments (${formatBytes(bytes)}), freed as ZeRO-3 partitioned it and kept ` +
      "reserved: nothing empties the cache, and the step's tensors and caches reuse them",
  };
}
